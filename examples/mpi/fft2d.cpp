// 2-D FFT of an n x n complex matrix distributed by rows, as the seeds use all-to-all
// personalized communication: FFTs of the local rows, ONE alltoall to transpose, FFTs of
// the local rows again. Rank r then holds rows r*b.. of the transform's transpose
// (columns of the 2-D FFT), checked against a serial FFTW 2-D transform. The local FFTs
// are FFTW's (libfftw3); the alltoall's time is printed beside the model's prediction.
//
//   ./fft2d [threads]          mpirun -n 4 ./fft2d          COLLECTIVES_TRACE=fft.json ./fft2d

#include "app.hpp"

#include <fftw3.h>

#include <cmath>
#include <complex>
#include <cstddef>
#include <mutex>
#include <vector>

namespace {

using cplx = std::complex<double>;

cplx x_entry(std::size_t i, std::size_t j)
{
  return {std::sin(0.3 * static_cast<double>(i) + 0.7 * static_cast<double>(j)),
          std::cos(0.01 * static_cast<double>(i * j))};
}

fftw_complex* raw(cplx* p) { return reinterpret_cast<fftw_complex*>(p); }

// FFTW's planner is not thread-safe (fftw_execute_dft on a plan is): one lock for all
// plans of all ranks of a threads team.
std::mutex planner;

/// FFTs of `rows` contiguous rows of length n, in place.
class RowFfts {
public:
  RowFfts(int n, int rows, cplx* data)
  {
    const std::lock_guard lock(planner);
    plan_ = fftw_plan_many_dft(1, &n, rows, raw(data), nullptr, 1, n, raw(data), nullptr, 1, n, FFTW_FORWARD,
                               FFTW_ESTIMATE | FFTW_UNALIGNED);
  }
  ~RowFfts()
  {
    const std::lock_guard lock(planner);
    fftw_destroy_plan(plan_);
  }
  RowFfts(const RowFfts&) = delete;
  RowFfts& operator=(const RowFfts&) = delete;
  void run(cplx* data) const { fftw_execute_dft(plan_, raw(data), raw(data)); }

private:
  fftw_plan plan_;
};

} // namespace

int main(int argc, char** argv)
{
  return app::run(argc, argv, "fft2d", 4, [](app::Rank& me) {
    using namespace collectives;
    const std::size_t p = me.size(), r = me.rank();
    const std::size_t b = 16, n = b * p; // rows per rank, order of the matrix
    std::vector<cplx> rows(b * n), send(b * n), recv(b * n);
    const RowFfts ffts(static_cast<int>(n), static_cast<int>(b), rows.data());

    auto fill = [&] {
      for (std::size_t i = 0; i < b; ++i)
        for (std::size_t j = 0; j < n; ++j) rows[i * n + j] = x_entry(r * b + i, j);
    };
    auto transpose = [&] {
      // Block q (for rank q) is the b x b square of columns q*b.., transposed while packing.
      for (std::size_t q = 0; q < p; ++q)
        for (std::size_t jj = 0; jj < b; ++jj)
          for (std::size_t ii = 0; ii < b; ++ii) send[(q * b + jj) * b + ii] = rows[ii * n + q * b + jj];
      alltoall(me.comm(), send, recv);
      for (std::size_t q = 0; q < p; ++q)
        for (std::size_t jj = 0; jj < b; ++jj)
          for (std::size_t ii = 0; ii < b; ++ii) rows[jj * n + q * b + ii] = recv[(q * b + jj) * b + ii];
    };

    fill();
    double t = app::now();
    ffts.run(rows.data());
    const double first = app::now() - t;
    transpose();
    t = app::now();
    ffts.run(rows.data());
    const double second = app::now() - t;
    const std::vector<cplx> result = rows;
    const double exchange = me.time([&] { alltoall(me.comm(), send, recv); });

    const auto [predicted, algorithm] =
      me.predicted<Collective::alltoall>(Problem{.m = app::Rank::words<cplx>(b * b)});
    me.note("row FFTs, first pass (" + std::to_string(b) + " of length " + std::to_string(n) + ")", first);
    me.report("alltoall transpose (" + std::to_string(b) + "x" + std::to_string(b) + " blocks)", exchange, predicted,
              algorithm);
    me.note("row FFTs, second pass", second);

    // Serial reference: the whole 2-D transform; this rank holds its columns r*b...
    std::vector<cplx> x(n * n), z(n * n);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) x[i * n + j] = x_entry(i, j);
    {
      const std::lock_guard lock(planner);
      const fftw_plan whole = fftw_plan_dft_2d(static_cast<int>(n), static_cast<int>(n), raw(x.data()), raw(z.data()),
                                               FFTW_FORWARD, FFTW_ESTIMATE);
      fftw_execute(whole);
      fftw_destroy_plan(whole);
    }
    double worst = 0, scale = 0;
    for (std::size_t ii = 0; ii < b; ++ii)
      for (std::size_t k = 0; k < n; ++k) {
        worst = std::max(worst, std::abs(result[ii * n + k] - z[k * n + r * b + ii]));
        scale = std::max(scale, std::abs(z[k * n + r * b + ii]));
      }
    return worst <= 1e-12 * static_cast<double>(n) * std::max(1.0, scale);
  });
}
