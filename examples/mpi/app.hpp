#pragma once
// Shared by the seeds' applications in examples/mpi (fft2d, sample_sort, matvec,
// compaction, histogram): the same code runs over MPI when the program was started by
// mpirun/mpiexec and over a team of threads otherwise.
//
//   app::run(argc, argv, "fft2d", [&](app::Rank& me) { ...; return ok; });
//
// Each rank gets an app::Rank: its communicator (FullyConnected: threads and one node's
// shared-memory MPI have no links, so no hops and no link sharing) whose cost model was
// calibrated on the transport at the start, and report(), which prints a collective's
// time (the slowest rank's) beside the model's prediction. With COLLECTIVES_TRACE=file.json
// in the environment every collective is traced (collectives/transport/tracing.hpp) and
// written to that file for Perfetto / chrome://tracing.
//
// The transports are reached through AnyEndpoint (one virtual call per step), so each
// application is compiled once, not once per transport.

#include <collectives/collectives.hpp>
#include <collectives/transport/mpi.hpp>
#include <collectives/transport/tracing.hpp>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <string>
#include <vector>

namespace app {

using namespace collectives;

/// Any endpoint behind one interface (the application sees only this type).
class AnyEndpoint {
public:
  template <endpoint E>
  explicit AnyEndpoint(E& ep)
    : self_(&ep), rank_(ep.rank()), size_(ep.size()),
      exchange_([](void* self, std::span<const SendRequest> s, std::span<const RecvRequest> r) {
        static_cast<E*>(self)->exchange(s, r);
      })
  {
  }
  std::size_t rank() const { return rank_; }
  std::size_t size() const { return size_; }
  void exchange(std::span<const SendRequest> s, std::span<const RecvRequest> r) { exchange_(self_, s, r); }

private:
  void* self_;
  std::size_t rank_, size_;
  void (*exchange_)(void*, std::span<const SendRequest>, std::span<const RecvRequest>);
};

using Endpoint = TracingEndpoint<AnyEndpoint>;
using Comm = Communicator<Endpoint, FullyConnected<>>;

/// Seconds since an arbitrary start.
inline double now()
{
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/// What a rank of an application works with.
class Rank {
public:
  Rank(Comm& comm, bool mpi) : comm_(&comm), mpi_(mpi) {}
  Comm& comm() { return *comm_; }
  std::size_t rank() const { return comm_->rank(); }
  std::size_t size() const { return comm_->size(); }
  bool on_mpi() const { return mpi_; }

  /// The slowest rank's value of `seconds` (a collective: every rank calls it).
  double slowest(double seconds)
  {
    std::vector<double> in{seconds}, out(1);
    comm_->endpoint().set_enabled(false); // bookkeeping, not part of the trace
    allreduce(*comm_, in, out, maximum{});
    comm_->endpoint().set_enabled(true);
    return out[0];
  }

  /// The time of one call of f on this rank: f is run once to warm up (the first call of
  /// a collective also selects its algorithm), then `reps` times, each after a barrier;
  /// the median. collective: f must be the same collective on every rank.
  template <class F>
  double time(F&& f, int reps = 5)
  {
    f();
    std::vector<double> t;
    for (int i = 0; i < reps; ++i) {
      comm_->endpoint().set_enabled(false);
      barrier(*comm_);
      comm_->endpoint().set_enabled(true);
      const double t0 = now();
      f();
      t.push_back(now() - t0);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  }

  /// Prints, on rank 0, "what: ... us (slowest rank)". collective.
  void note(const std::string& what, double seconds)
  {
    const double t = slowest(seconds);
    if (rank() == 0) std::printf("  %-44s %10.1f us (slowest rank)\n", what.c_str(), t * 1e6);
  }

  /// Prints, on rank 0, "what: measured ... us (slowest rank), predicted ... us (how)".
  /// collective: every rank calls it with its own `seconds`.
  void report(const std::string& what, double seconds, double predicted_seconds, const std::string& how)
  {
    const double t = slowest(seconds);
    if (rank() == 0)
      std::printf("  %-44s %10.1f us measured (slowest rank), %10.1f us predicted (%s)\n", what.c_str(), t * 1e6,
                  predicted_seconds * 1e6, how.c_str());
  }

  /// The predicted time of collective C with no algorithm named: the one select() picks
  /// for this communicator's model, and its name.
  template <Collective C>
  std::pair<double, std::string> predicted(const Problem& problem) const
  {
    const Selection s = select<C>(comm_->topology(), comm_->cost_model(), problem);
    return {s.time, std::string(s.name)};
  }

  /// The predicted time of alltoallv with blocks of `mean_words` on average: the
  /// pairwise schedule it runs (pairwise XOR when p is a power of two) as an alltoall of
  /// that block, and its name.
  std::pair<double, std::string> predicted_alltoallv(double mean_words) const
  {
    const Problem problem{.m = mean_words};
    const auto& topo = comm_->topology();
    if (std::has_single_bit(size()))
      return {predict(alltoall_algorithm::pairwise_xor, topo, comm_->cost_model(), problem).time,
              "pairwise_xor with the mean block"};
    return {predict(alltoall_algorithm::pairwise, topo, comm_->cost_model(), problem).time,
            "pairwise with the mean block"};
  }

  /// words of a buffer of n elements of type T, in the model's 8-byte words.
  template <class T>
  static double words(std::size_t n) { return static_cast<double>(n * sizeof(T)) / 8.0; }

private:
  Comm* comm_;
  bool mpi_;
};

namespace detail {

/// True when this process was started by an MPI launcher (Open MPI, MPICH/Hydra, PMIx).
inline bool launched_by_mpirun()
{
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"})
    if (std::getenv(var) != nullptr) return true;
  return false;
}

/// A quick calibration (short messages, few samples: the examples run under ctest).
template <endpoint E>
CostModel quick_model(E& ep)
{
  CalibrationOptions o;
  o.max_words = 1 << 12;
  o.samples = 5;
  o.min_sample_seconds = 5e-5;
  return calibrate(ep, o);
}

/// Runs `body` as one rank over endpoint `ep`, traced into `trace` when tracing.
template <endpoint E, class Body>
bool one_rank(E& ep, Trace& trace, bool tracing, bool mpi, Body& body)
{
  const CostModel model = quick_model(ep);
  AnyEndpoint any(ep);
  Endpoint traced(any, trace);
  traced.set_enabled(tracing);
  Comm comm(traced, FullyConnected<>{ep.size()}, model);
  Rank me(comm, mpi);
  if (ep.rank() == 0)
    std::printf("  calibrated %s model: t_s = %.3g s, t_w = %.3g s/word\n", mpi ? "MPI" : "threads", model.t_s,
                model.t_w);
  return body(me);
}

} // namespace detail

/// Runs `body(Rank&) -> bool` on every rank: over MPI when started by mpirun (ranks =
/// mpirun's -n), else on `default_p` threads (or argv[1]). Prints `name` and the outcome;
/// returns the exit status (0 when body returned true on every rank).
template <class Body>
int run(int argc, char** argv, const char* name, std::size_t default_p, Body body)
{
  const std::string trace_file = trace_file_from_environment();
  const bool tracing = !trace_file.empty();
  if (detail::launched_by_mpirun()) {
    MPI_Init(&argc, &argv);
    int ok = mpi::abort_on_exception([&] {
      mpi::Endpoint ep;
      if (ep.rank() == 0) std::printf("%s on %zu MPI ranks\n", name, ep.size());
      Trace trace(ep.size(), name);
      const bool good = detail::one_rank(ep, trace, tracing, true, body);
      if (tracing) {
        gather_trace(trace, ep);
        if (ep.rank() == 0) trace.write_file(trace_file);
      }
      return good ? 1 : 0;
    });
    int all_ok = 0, rank = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
      if (tracing) std::printf("  trace written to %s\n", trace_file.c_str());
      std::printf("%s: %s\n", name, all_ok ? "verified against the serial computation" : "WRONG");
    }
    MPI_Finalize();
    return all_ok ? 0 : 1;
  }
  std::size_t p = default_p;
  if (argc > 1) {
    const long v = std::strtol(argv[1], nullptr, 10);
    if (v < 1 || v > 256) {
      std::fprintf(stderr, "%s: the number of threads must be between 1 and 256\n", name);
      return 2;
    }
    p = static_cast<std::size_t>(v);
  }
  std::printf("%s on %zu threads\n", name, p);
  std::vector<int> ok(p, 0);
  try {
    Trace trace(p, name);
    threads::Team team{p};
    team.run([&](threads::Endpoint& ep) { ok[ep.rank()] = detail::one_rank(ep, trace, tracing, false, body) ? 1 : 0; });
    if (tracing) {
      trace.write_file(trace_file);
      std::printf("  trace written to %s\n", trace_file.c_str());
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", name, e.what());
    return 1;
  }
  bool all = true;
  for (int v : ok) all = all && v == 1;
  std::printf("%s: %s\n", name, all ? "verified against the serial computation" : "WRONG");
  return all ? 0 : 1;
}

} // namespace app
