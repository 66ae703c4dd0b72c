// Run time of the schedule-derived cost estimate, collectives::estimate() (issue #5: "a
// 4096-node hypercube ... well under a second"). For several algorithms on hypercubes of
// 2^6 .. 2^12 nodes, and on rings and 2-D tori of similar size where the routes stay
// short enough, under the four combinations of ports (one, all) and routing (cut-through,
// store-and-forward), it times estimate() of the schedule the front end builds and
// prints a Markdown table: seconds per estimate (the best of a few runs, in CPU time of the
// process, which a loaded machine disturbs less than wall time, and in wall time), ns
// (CPU) per message and per hop walked (messages x hops summed over the schedule), and the estimate's
// own result (predicted time, congestion) so that two builds can be compared for equal
// results as well as for speed (diff the "predicted" column).
//
//   estimate [--max-p N] [--filter TEXT] [--min-time SECONDS] [--all] [--select]
//     --max-p: skip topologies of more than N nodes (default 4096);
//     --filter: only rows whose "collective/algorithm topology" contains TEXT;
//     --min-time: repeat each estimate until this much time has passed (default 0.2 s,
//                 at least 3 runs); the best run is reported;
//     --all: every algorithm of every collective (the registry's lists, algorithms<C>)
//            that fits each topology, instead of the fixed selection below (whose rows
//            stay comparable from build to build). Personalized exchanges on the large
//            rings and tori take long: combine with --max-p or --filter.
//     --select: instead, the run-time selection a collective called without an algorithm
//            makes when its communicator has no pick for the problem (with_selected<C>():
//            every fitting candidate walked rank by rank until it cannot win), in
//            microseconds a selection, for small problems on rings of 2, 8 and 32 ranks, under
//            default_cost_model and under the threads transport's model on this machine
//            (threads::Team(p).cost_model()).

#include <collectives/cost.hpp>
#include <collectives/topology.hpp>
#include <collectives/transport/threads.hpp>

#include <boost/hana/for_each.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <utility>

using namespace collectives;

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::size_t max_p = 4096;
  std::string filter;
  double min_time = 0.2;
  bool all = false;
  bool select = false;
};

struct NamedModel {
  const char* name;
  CostModel model;
};

// t_h is not zero so that hop counts (and so routes) show in the predicted time.
constexpr CostModel base{.t_s = 1e-6, .t_w = 1e-9, .t_h = 5e-8, .t_r = 1e-10};

constexpr NamedModel models[] = {
  {"1-port CT", CostModel{base.t_s, base.t_w, base.t_h, base.t_r, Routing::cut_through, Ports::one}},
  {"1-port SF", CostModel{base.t_s, base.t_w, base.t_h, base.t_r, Routing::store_and_forward, Ports::one}},
  {"all-port CT", CostModel{base.t_s, base.t_w, base.t_h, base.t_r, Routing::cut_through, Ports::all}},
  {"all-port SF", CostModel{base.t_s, base.t_w, base.t_h, base.t_r, Routing::store_and_forward, Ports::all}},
};

std::string topo_name(const Hypercube<>& t) { return "Hypercube " + std::to_string(t.ndims()); }
std::string topo_name(const Ring<>& t) { return "Ring " + std::to_string(t.size()); }
std::string topo_name(const Mesh<>& t) { return "Torus " + std::to_string(t.extent(0)) + "x" + std::to_string(t.extent(1)); }

/// Messages and hops of the schedule on the topology (walked once, outside the timing).
template <class S, class T>
std::pair<std::size_t, std::size_t> count_work(const S& s, const T& t)
{
  struct Counter {
    const T* topo;
    std::size_t rank = 0, messages = 0, hops = 0;
    void send(const SendOp& op)
    {
      ++messages;
      hops += t_hops(op.peer);
    }
    std::size_t t_hops(std::size_t peer) const { return topo->distance(rank, peer); }
    void recv(const RecvOp&) {}
    void local(const LocalOp&) {}
  } c{&t};
  for (std::size_t k = 0; k < s.num_steps(); ++k)
    for (std::size_t r = 0; r < s.size(); ++r) {
      c.rank = r;
      s.visit(r, k, c);
    }
  return {c.messages, c.hops};
}

template <class Tag, class T>
void run(const Options& opt, Tag tag, const T& topo, double m)
{
  constexpr Collective C = Tag::collective;
  const std::string label = std::string(collective_name(C)) + "/" + Tag::name + " " + topo_name(topo);
  if (topo.size() > opt.max_p) return;
  if (!opt.filter.empty() && label.find(opt.filter) == std::string::npos) return;
  // Only the algorithms the topology's type allows are instantiated (e.g. no 2-D one on a ring).
  if constexpr (fits_topology_type<Tag, T>) {
    const Problem problem{m};
    if (!fits(tag, topo, problem)) return;
    const auto s = Tag::schedule(topo, problem);
    const double b = problem.m / static_cast<double>(Tag::pieces(topo.size()));
    const auto [messages, hops] = count_work(s, topo);
    for (const auto& nm : models) {
      double best = 1e300, best_wall = 1e300;
      double total = 0;
      CostReport report;
      for (int runs = 0; runs < 3 || total < opt.min_time; ++runs) {
        const std::clock_t cpu_start = std::clock();
        const auto start = Clock::now();
        report = estimate(s, topo, nm.model, b);
        const double wall = std::chrono::duration<double>(Clock::now() - start).count();
        const double cpu = static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
        best = std::min(best, cpu);
        best_wall = std::min(best_wall, wall);
        total += wall;
      }
      std::printf("| %-15s | %-19s | %-15s | %5zu | %-11s | %9zu | %10zu | %4zu | %-23.17g | %8.4f | %8.4f | %7.2f | %6.2f |\n",
                  std::string(collective_name(C)).c_str(), Tag::name, topo_name(topo).c_str(), topo.size(), nm.name,
                  messages, hops, report.congestion, report.time, best, best_wall,
                  best * 1e9 / static_cast<double>(std::max<std::size_t>(messages, 1)),
                  best * 1e9 / static_cast<double>(std::max<std::size_t>(hops, 1)));
      std::fflush(stdout);
    }
  }
}

/// Every algorithm of every collective in the registry that fits `topo` (--all).
template <class T>
void run_registry(const Options& opt, const T& topo)
{
  const double m = 1024;
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (boost::hana::for_each(algorithms<all_collectives[I]>, [&](auto tag) { run(opt, tag, topo, m); }), ...);
  }(std::make_index_sequence<all_collectives.size()>{});
}

template <class T>
void run_all(const Options& opt, const T& topo, bool long_routes_ok)
{
  if (opt.all) return run_registry(opt, topo);
  const double m = 1024;
  // Personalized all-to-all: p^2 messages, the heaviest estimates.
  if (long_routes_ok) {
    run(opt, alltoall_algorithm::pairwise_xor, topo, m);
    run(opt, alltoall_algorithm::pairwise, topo, m);
  }
  run(opt, alltoall_algorithm::standard_exchange, topo, m);
  run(opt, alltoall_algorithm::bruck, topo, m);
  run(opt, allgather_algorithm::ring, topo, m);
  run(opt, allgather_algorithm::recursive_doubling, topo, m);
  run(opt, broadcast_algorithm::binomial, topo, m);
  run(opt, allreduce_algorithm::rabenseifner, topo, m * 64);
  run(opt, reduce_scatter_algorithm::recursive_halving, topo, m);
}

/// Microseconds the selection of a collective called without an algorithm takes on a ring
/// of p under `model` (with_selected<C>(); the best of five rounds; problems of 1 and 2
/// words in turn, as a loop over sizes would ask).
template <Collective C>
double select_us(std::size_t p, const CostModel& model, double min_time)
{
  const Ring<> ring{p};
  Problem problem{};
  double best = 1e300, sink = 0;
  const int calls = p <= 8 ? 2000 : 200;
  for (int round = 0; round < 5; ++round) {
    const auto start = Clock::now();
    double spent = 0;
    int made = 0;
    do {
      for (int i = 0; i < calls; ++i, ++made) {
        problem.m = 1 + (made & 1);
        sink += with_selected<C>(ring, model, problem, [](auto) {}).time;
      }
      spent = std::chrono::duration<double>(Clock::now() - start).count();
    } while (spent < min_time / 5);
    best = std::min(best, spent * 1e6 / made);
  }
  if (sink < 0) std::puts(""); // keeps the selections
  return best;
}

void run_select(const Options& opt)
{
  std::printf("with_selected<C>() (a default call's selection) on Ring<>{p}: microseconds a selection (best of 5 "
              "rounds)\n\n");
  std::printf("| model | p | allreduce | broadcast | alltoall |\n|---|--:|--:|--:|--:|\n");
  for (const bool threads : {false, true})
    for (const std::size_t p : {2u, 8u, 32u}) {
      const CostModel model = threads ? threads::Team(p).cost_model() : default_cost_model;
      std::printf("| %s | %zu | %.2f | %.2f | %.2f |\n", threads ? "threads::Team(p)" : "default_cost_model", p,
                  select_us<Collective::allreduce>(p, model, opt.min_time),
                  select_us<Collective::broadcast>(p, model, opt.min_time),
                  select_us<Collective::alltoall>(p, model, opt.min_time));
      std::fflush(stdout);
    }
}

[[noreturn]] void usage()
{
  std::fprintf(stderr, "usage: estimate [--max-p N] [--filter TEXT] [--min-time SECONDS] [--all] [--select]\n");
  std::exit(2);
}

} // namespace

int main(int argc, char** argv)
{
  Options opt;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--all") {
      opt.all = true;
      continue;
    }
    if (a == "--select") {
      opt.select = true;
      continue;
    }
    if (i + 1 >= argc) usage();
    if (a == "--max-p") opt.max_p = std::strtoull(argv[++i], nullptr, 10);
    else if (a == "--filter") opt.filter = argv[++i];
    else if (a == "--min-time") opt.min_time = std::strtod(argv[++i], nullptr);
    else usage();
  }
  if (opt.select) {
    run_select(opt);
    return 0;
  }
  std::printf("estimate(): run time per call (best of >= 3 runs, >= %.2f s in all); m = 1024 words\n\n", opt.min_time);
  std::printf("| collective      | algorithm           | topology        |     p | model       |  messages |       hops | cong | predicted (s)           |  cpu s   |  wall s  | ns/msg  | ns/hop |\n");
  std::printf("|-----------------|---------------------|-----------------|-------|-------------|-----------|------------|------|-------------------------|----------|----------|---------|--------|\n");
  for (std::size_t d : {6u, 8u, 10u, 12u}) run_all(opt, Hypercube<>::of_dims(d), true);
  // Rings: routes are up to p/2 hops, so personalized exchange only on small rings.
  for (std::size_t p : {64u, 256u, 1024u, 4096u}) run_all(opt, Ring<>{p}, p <= 256);
  for (std::size_t side : {8u, 16u, 32u, 64u}) run_all(opt, Mesh<>{side, side}, side <= 32);
  return 0;
}
