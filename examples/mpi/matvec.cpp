// Matrix-vector product y = A x, rowwise (the seeds' matrix-vector multiplication with
// all-to-all broadcast): rank r holds n/p rows of A and the matching n/p entries of x;
// ONE allgather gives every rank all of x, then each rank multiplies its rows.
// Verified against a serial product; the allgather's time is printed beside the
// calibrated model's prediction. (The seeds' 2-D version on a mesh needs row and column
// sub-communicators, a later issue.)
//
//   ./matvec [threads]          mpirun -n 4 ./matvec          COLLECTIVES_TRACE=mv.json ./matvec

#include "app.hpp"

#include <cmath>
#include <cstddef>
#include <vector>

namespace {

double a_entry(std::size_t i, std::size_t j) { return 1.0 / static_cast<double>(1 + i + 2 * j % 7); }
double x_entry(std::size_t j) { return static_cast<double>(j % 5) - 1.5; }

} // namespace

int main(int argc, char** argv)
{
  return app::run(argc, argv, "matvec", 4, [](app::Rank& me) {
    using namespace collectives;
    const std::size_t p = me.size(), r = me.rank();
    const std::size_t b = 48, n = b * p; // rows per rank, order of A
    std::vector<double> x_mine(b), x(n), y(b);
    for (std::size_t j = 0; j < b; ++j) x_mine[j] = x_entry(r * b + j);

    const double exchange = me.time([&] { allgather(me.comm(), x_mine, x); }); // block q of x from rank q
    const double t0 = app::now();
    for (std::size_t i = 0; i < b; ++i) {
      double s = 0;
      for (std::size_t j = 0; j < n; ++j) s += a_entry(r * b + i, j) * x[j];
      y[i] = s;
    }
    const double compute = app::now() - t0;

    const auto [predicted, algorithm] = me.predicted<Collective::allgather>(Problem{.m = app::Rank::words<double>(b)});
    me.report("allgather of x (" + std::to_string(b) + " doubles per rank)", exchange, predicted, algorithm);
    me.note("local product (" + std::to_string(b) + " x " + std::to_string(n) + ")", compute);

    // Serial reference for this rank's rows, summed in the same order.
    bool ok = true;
    for (std::size_t i = 0; i < b; ++i) {
      double s = 0;
      for (std::size_t j = 0; j < n; ++j) s += a_entry(r * b + i, j) * x_entry(j);
      ok = ok && y[i] == s;
    }
    return ok;
  });
}
