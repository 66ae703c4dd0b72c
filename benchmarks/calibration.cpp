// Calibration of the cost model on the threads transport, and how well it predicts.
//
// For p = 2, 4, 8: calibrate() measures t_s, t_w (ping-pong, least squares) and t_r (local
// copies); then every algorithm of every collective runs on the threads transport for a
// few message sizes, and its measured time (median over repetitions of the slowest rank)
// is compared with the prediction: estimate() of the schedule it ran, on FullyConnected
// (the threads transport moves any message in one hop, with no links to share), one-port
// (a receiver copies its messages one after another). Prints one line per run and the
// median and worst relative error, per p and overall.
//
//   calibration [--quick] [--ping-pong | --pairs | --shift]
//     --quick: fewer sizes and repetitions; the other flags choose calibrate()'s exchange
//     pattern (default --shift, see tuning/calibrate.hpp).

#include <collectives/collectives.hpp>

#include <boost/hana/for_each.hpp>

#include <algorithm>
#include <barrier>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

using namespace collectives;
namespace hana = boost::hana;

namespace {

using Clock = std::chrono::steady_clock;

struct Row {
  std::size_t p;
  std::string collective, algorithm;
  std::size_t m;
  double measured, predicted;
  double error() const { return (predicted - measured) / measured; }
};

double median(std::vector<double> v)
{
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// Per rank: `reps` samples, each `batch` runs of `body` back to back after a barrier (so
/// the ranks' wake-up skew after the barrier is spread over the batch, as in OSU-style
/// benchmarks); a sample's time is the slowest rank's / batch; returns the median.
class Timer {
public:
  Timer(std::size_t p, std::size_t reps, std::size_t batch)
    : barrier_(static_cast<std::ptrdiff_t>(p)), times_(p, std::vector<double>(reps)), batch_(batch) {}
  template <class F>
  double run(std::size_t rank, std::size_t reps, F&& body)
  {
    for (std::size_t i = 0; i < reps; ++i) {
      barrier_.arrive_and_wait();
      const auto t0 = Clock::now();
      for (std::size_t k = 0; k < batch_; ++k) body();
      times_[rank][i] = std::chrono::duration<double>(Clock::now() - t0).count() / static_cast<double>(batch_);
    }
    barrier_.arrive_and_wait();
    std::vector<double> slowest(reps, 0.0);
    for (const auto& r : times_)
      for (std::size_t i = 0; i < reps; ++i) slowest[i] = std::max(slowest[i], r[i]);
    const double result = median(slowest);
    barrier_.arrive_and_wait(); // nobody overwrites times_ before all have read them
    return result;
  }

private:
  std::barrier<> barrier_;
  std::vector<std::vector<double>> times_;
  std::size_t batch_;
};

template <Collective C, class Comm, class Tag>
void run_once(Comm& comm, Tag tag, std::size_t m, std::vector<double>& a, std::vector<double>& b)
{
  const std::size_t p = comm.size();
  const std::plus<double> plus;
  const std::span<const double> in1(a.data(), m), inp(a.data(), p * m);
  const std::span<double> out1(b.data(), m), outp(b.data(), p * m);
  if constexpr (C == Collective::alltoall) alltoall(comm, inp, outp, tag);
  else if constexpr (C == Collective::allgather) allgather(comm, in1, outp, tag);
  else if constexpr (C == Collective::reduce_scatter) reduce_scatter(comm, inp, out1, plus, tag);
  else if constexpr (C == Collective::allreduce) allreduce(comm, in1, out1, plus, tag);
  else if constexpr (C == Collective::broadcast) broadcast(comm, out1, 0, tag);
  else if constexpr (C == Collective::reduce) reduce(comm, in1, out1, plus, 0, tag);
  else if constexpr (C == Collective::scatter) scatter(comm, inp, out1, 0, tag);
  else if constexpr (C == Collective::gather) gather(comm, in1, outp, 0, tag);
  else if constexpr (C == Collective::scan) scan(comm, in1, out1, plus, tag);
  else shift(comm, in1, out1, 1, tag);
}

template <Collective C>
void measure_collective(threads::Endpoint& ep, const Hypercube<>& cube, const CostModel& model, Timer& timer,
                        const std::vector<std::size_t>& sizes, std::size_t reps, std::vector<Row>& rows)
{
  Communicator<threads::Endpoint, Hypercube<>> comm{ep, cube};
  const std::size_t p = cube.size();
  const FullyConnected<> network{p};
  const std::size_t biggest = sizes.back();
  std::vector<double> a(p * biggest, 1.0), b(p * biggest, 0.0);
  hana::for_each(algorithms<C>, [&](auto tag) {
    using Tag = decltype(tag);
    if constexpr (fits_topology_type<Tag, Hypercube<>>) {
      if (!fits(tag, cube, Problem{})) return;
      for (std::size_t m : sizes) {
        run_once<C>(comm, tag, m, a, b); // warm-up (page faults, first touches)
        const double t = timer.run(ep.rank(), reps, [&] { run_once<C>(comm, tag, m, a, b); });
        if (ep.rank() == 0) {
          const double predicted =
            predict_on(tag, cube, network, model, Problem{static_cast<double>(m), 0, 1, true}).time;
          rows.push_back(Row{p, std::string(collective_name(C)), Tag::name, m, t, predicted});
        }
      }
    }
  });
}

void summarize(const char* what, const std::vector<Row>& rows)
{
  std::vector<double> errs;
  const Row* worst = nullptr;
  for (const auto& r : rows) {
    errs.push_back(std::abs(r.error()));
    if (worst == nullptr || std::abs(r.error()) > std::abs(worst->error())) worst = &r;
  }
  if (errs.empty()) return;
  std::sort(errs.begin(), errs.end());
  std::printf("%-8s runs %3zu  median |error| %6.1f%%  90th %6.1f%%  worst %7.1f%% (%s %s p=%zu m=%zu)\n", what,
              errs.size(), 100 * errs[errs.size() / 2], 100 * errs[errs.size() * 9 / 10], 100 * errs.back(),
              worst->collective.c_str(), worst->algorithm.c_str(), worst->p, worst->m);
}

} // namespace

int main(int argc, char** argv)
{
  bool quick = false;
  CalibrationPattern pattern = CalibrationPattern::shift;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) quick = true;
    else if (std::strcmp(argv[i], "--ping-pong") == 0) pattern = CalibrationPattern::ping_pong;
    else if (std::strcmp(argv[i], "--pairs") == 0) pattern = CalibrationPattern::pairs;
    else if (std::strcmp(argv[i], "--shift") == 0) pattern = CalibrationPattern::shift;
    else {
      std::fprintf(stderr, "usage: calibration [--quick] [--ping-pong | --pairs | --shift]\n");
      return 2;
    }
  }
  const std::vector<std::size_t> sizes = quick ? std::vector<std::size_t>{1, 4096} : std::vector<std::size_t>{1, 256, 8192};
  const std::size_t reps = quick ? 5 : 11;
  const std::size_t batch = quick ? 4 : 10;
  std::vector<Row> all;
  std::printf("%3s %-15s %-22s %7s %12s %12s %8s\n", "p", "collective", "algorithm", "m", "measured/s", "predicted/s",
              "error");
  for (std::size_t d : {1u, 2u, 3u}) {
    const Hypercube<> cube = Hypercube<>::of_dims(d);
    const std::size_t p = cube.size();
    threads::Team team{p};
    Timer timer(p, reps, batch);
    std::vector<Row> rows;
    Calibration cal;
    team.run([&](threads::Endpoint& ep) {
      CalibrationOptions options;
      options.pattern = pattern;
      if (quick) options.min_sample_seconds = 2e-5;
      const Calibration c = calibrate_detailed(ep, options);
      if (ep.rank() == 0) cal = c;
      measure_collective<Collective::alltoall>(ep, cube, c.model, timer, sizes, reps, rows);
      measure_collective<Collective::allgather>(ep, cube, c.model, timer, sizes, reps, rows);
      measure_collective<Collective::reduce_scatter>(ep, cube, c.model, timer, sizes, reps, rows);
      measure_collective<Collective::allreduce>(ep, cube, c.model, timer, sizes, reps, rows);
      measure_collective<Collective::broadcast>(ep, cube, c.model, timer, sizes, reps, rows);
      measure_collective<Collective::reduce>(ep, cube, c.model, timer, sizes, reps, rows);
      measure_collective<Collective::scatter>(ep, cube, c.model, timer, sizes, reps, rows);
      measure_collective<Collective::gather>(ep, cube, c.model, timer, sizes, reps, rows);
      measure_collective<Collective::scan>(ep, cube, c.model, timer, sizes, reps, rows);
      measure_collective<Collective::shift>(ep, cube, c.model, timer, sizes, reps, rows);
    });
    std::printf("# p = %zu: calibrated t_s = %.3g s, t_w = %.3g s/word, t_r = %.3g s/word (fit worst error "
                "%.0f%%)\n",
                p, cal.model.t_s, cal.model.t_w, cal.model.t_r, 100 * cal.worst_fit_error);
    for (const auto& r : rows)
      std::printf("%3zu %-15s %-22s %7zu %12.4g %12.4g %+7.0f%%\n", r.p, r.collective.c_str(), r.algorithm.c_str(), r.m,
                  r.measured, r.predicted, 100 * r.error());
    all.insert(all.end(), rows.begin(), rows.end());
  }
  std::printf("\n");
  for (std::size_t p : {2u, 4u, 8u}) {
    std::vector<Row> some;
    for (const auto& r : all)
      if (r.p == p) some.push_back(r);
    const std::string label = "p=" + std::to_string(p);
    summarize(label.c_str(), some);
  }
  summarize("all", all);
  return 0;
}
