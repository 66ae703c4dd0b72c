// collectives-cost: what every collective algorithm of the library costs on a network.
//
//   collectives-cost --topology ring --p 8 --ts 2e-6 --tw 1e-9 --m 1024
//   collectives-cost --topology mesh --dims 4x4 --routing sf --ports all --svg cost.svg
//   collectives-cost --table --p 64 --ts 1e-6 --tw 1e-9 --th 1e-8
//
// For a topology, a cost model and a message size it prints every operation x algorithm
// with its predicted time (estimate() of the schedule the library runs), the lower bound,
// the selected (cheapest) algorithm and the message sizes at which the selection changes
// (crossovers). --svg writes a log-log plot of predicted time against message size, one
// panel per operation (tools/cost_plot.hpp: coinciding lines kept apart, the selection
// marked). --table prints seed 001's cost table for the given p and model.

#include "cost_plot.hpp"
#include "registry.hpp"
#include "topology_args.hpp"

#include <collectives/cost.hpp>
#include <collectives/topology.hpp>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

using namespace collectives;

namespace {

struct Settings {
  std::string topology = "ring";
  std::size_t p = 8;
  std::string dims;
  double t_s = 2e-6, t_w = 1e-9, t_h = 5e-8, t_r = 1e-10;
  std::string routing = "ct", ports = "one";
  bool half_duplex = false;
  std::size_t lanes = 0;
  double t_sync = 0;
  bool crossbar = false;
  double t_fresh = 0;
  double m = 1024;
  std::size_t root = 0;
  long q = 1;
  bool non_commutative = false;
  std::string op; // empty: all
  std::string svg;
  bool table = false;
  double m_min = 1, m_max = 1e7;
};

const char* block_meaning(Collective c)
{
  switch (c) {
  case Collective::alltoall:
  case Collective::allgather:
  case Collective::reduce_scatter:
  case Collective::scatter:
  case Collective::gather: return "words per block";
  default: return "words";
  }
}

template <Collective C, class T>
void print_collective(const T& topo, const CostModel& model, const Problem& problem, const Settings& s)
{
  const auto lines = tools::evaluate_all<C>(topo, model, problem, s.m);
  Problem pr = problem;
  pr.m = tools::data_words<C>(s.m);
  const double bound = lower_bound(C, topo, model, pr);
  if (C == Collective::barrier)
    std::printf("\n%s (no data: --m does not apply)    lower bound %.4g s\n", tools::call_name<C>(problem).c_str(),
                bound);
  else
    std::printf("\n%s (m = %g %s)    lower bound %.4g s\n", tools::call_name<C>(problem).c_str(), s.m, block_meaning(C),
                bound);
  if (lines.empty()) {
    std::printf("  no algorithm fits this topology\n");
    return;
  }
  const Selection sel = tools::selected<C>(topo, model, pr);
  for (const auto& [name, report] : lines)
    std::printf("  %c %-22s %12.4g s   x%-7.3g steps %-5zu congestion %zu\n", name == sel.name ? '*' : ' ',
                name.c_str(), report.time, bound > 0 ? report.time / bound : 1.0, report.steps, report.congestion);
  std::printf("  selected: %s\n", std::string(sel.name).c_str());
  const auto cross = tools::crossings<C>(topo, model, problem, s.m_min, s.m_max);
  if (cross.empty()) {
    Problem at_min = pr;
    at_min.m = tools::data_words<C>(s.m_min);
    std::printf("  crossovers: none for m in [%g, %g] (%s throughout)\n", s.m_min, s.m_max,
                std::string(tools::selected<C>(topo, model, at_min).name).c_str());
  } else {
    std::printf("  crossovers:");
    for (const auto& c : cross) std::printf(" %s -> %s at m = %.4g;", c.from.c_str(), c.to.c_str(), c.m);
    std::printf("\n");
  }
}

// ---------------------------------------------------------------------------------------
// Driving one topology type through every collective
// ---------------------------------------------------------------------------------------

template <class T>
void run(const T& topo, const std::string& label, const CostModel& model, const Settings& s)
{
  const Problem problem{.m = s.m,
                        .root = s.root,
                        .q = static_cast<std::ptrdiff_t>(s.q),
                        .commutative = !s.non_commutative,
                        .exclusive = tools::names_exscan(s.op)};
  detail::require(s.root < topo.size(), "collectives-cost: --root must be a rank of the topology");
  std::printf("collectives-cost: %s (p = %zu); t_s = %g, t_w = %g, t_h = %g, t_r = %g; %s, %s-port%s", label.c_str(),
              topo.size(), model.t_s, model.t_w, model.t_h, model.t_r,
              model.routing == Routing::cut_through ? "cut-through" : "store-and-forward",
              model.ports == Ports::one ? "one" : "all", model.half_duplex ? ", half-duplex" : "");
  if (model.lanes != 0) std::printf(", %zu lanes", model.lanes);
  if (model.t_sync != 0) std::printf(", t_sync = %g", model.t_sync);
  if (model.crossbar) std::printf(", crossbar");
  if (model.t_fresh != 0) std::printf(", t_fresh = %g", model.t_fresh);
  std::printf("\n");
  std::printf("  (* = selected; xN = predicted time / lower bound; root %zu, shift q = %ld, %s operator)\n", s.root, s.q,
              s.non_commutative ? "non-commutative" : "commutative");
  std::vector<tools::Panel> panels;
  tools::for_each_collective([&]<Collective C>() {
    if (!s.op.empty() && s.op != tools::call_name<C>(problem)) return;
    print_collective<C>(topo, model, problem, s);
    if (!s.svg.empty()) panels.push_back(tools::make_panel<C>(topo, model, problem, s.m_min, s.m_max, block_meaning(C)));
  });
  if (!s.svg.empty()) {
    std::ostringstream heading;
    heading << "Predicted time on " << label << ": t_s=" << model.t_s << ", t_w=" << model.t_w << ", t_h=" << model.t_h
            << ", t_r=" << model.t_r << ", " << (model.routing == Routing::cut_through ? "CT" : "SF") << ", "
            << (model.ports == Ports::one ? "one" : "all") << "-port";
    std::ofstream out(s.svg);
    out << tools::cost_svg(heading.str(), panels);
    out.close();
    if (!out) throw std::runtime_error("collectives-cost: cannot write " + s.svg);
    std::printf("\nwrote %s\n", s.svg.c_str());
  }
}

void print_table(const Settings& s, const CostModel& base)
{
  using closed_form::Network;
  const Network nets[] = {Network::ring, Network::mesh, Network::hypercube};
  std::printf("Seed 001's cost table (one-port) for p = %zu, m = %g, t_s = %g, t_w = %g, t_h = %g\n", s.p, s.m,
              base.t_s, base.t_w, base.t_h);
  std::printf("(the seed assumes p = 2^d and a square mesh; \"-\": no cell in the seed)\n\n");
  for (Routing routing : {Routing::cut_through, Routing::store_and_forward}) {
    CostModel model = base;
    model.routing = routing;
    std::printf("%s\n%-26s %14s %14s %14s\n", routing == Routing::cut_through ? "cut-through:" : "store-and-forward:",
                "operation", "ring", "2-D mesh", "hypercube");
    for (Collective op : all_collectives) {
      std::printf("%-26s", std::string(collective_name(op)).c_str());
      for (Network net : nets) {
        const auto v = closed_form::seed::table(op, net, model, s.p, s.m, s.q);
        if (v) std::printf(" %14.5g", *v);
        else std::printf(" %14s", "-");
      }
      std::printf("\n");
    }
    std::printf("\n");
  }
}

} // namespace

int main(int argc, char** argv)
{
  Settings s;
  CLI::App app{"collectives-cost: predicted cost of every collective algorithm on a network (the Hockney model of "
               "the seeds, read from the schedules the library runs)"};
  app.add_option("--topology", s.topology, "ring, mesh, torus, hypercube or full (fully connected)")
    ->check(CLI::IsMember(tools::topology_kinds));
  app.add_option("--p", s.p, "number of nodes (ring, hypercube: a power of two, full)")->check(CLI::Range(1ul, 1ul << 20));
  app.add_option("--dims", s.dims, "extents for mesh/torus, e.g. 4x4 or 2x3x4 (torus: 1 to 3 dimensions)");
  app.add_option("--ts", s.t_s, "start-up time per message (s)");
  app.add_option("--tw", s.t_w, "time per word (s)");
  app.add_option("--th", s.t_h, "time per hop (s)");
  app.add_option("--tr", s.t_r, "time per word of local work (s)");
  app.add_option("--routing", s.routing, "ct (cut-through) or sf (store-and-forward)")->check(CLI::IsMember({"ct", "sf"}));
  app.add_option("--ports", s.ports, "one or all")->check(CLI::IsMember({"one", "all"}));
  app.add_flag("--half-duplex", s.half_duplex, "a rank's sends and receives take turns (shared memory)");
  app.add_option("--lanes", s.lanes, "ranks that run at once, e.g. cores (0: every rank has its own)");
  app.add_option("--tsync", s.t_sync, "time per step for each rank with a message: its wait for its partners (s)");
  app.add_flag("--crossbar", s.crossbar, "every message one hop on a path of its own (shared memory)");
  app.add_option("--tfresh", s.t_fresh, "time per word added for a message sent from data written during the collective (s)");
  app.add_option("--m", s.m, "message size in words (per block for alltoall, allgather, reduce_scatter, scatter, gather)");
  app.add_option("--root", s.root, "root of broadcast, reduce, scatter, gather");
  app.add_option("--q", s.q, "shift distance");
  app.add_flag("--non-commutative", s.non_commutative, "the reduction operator does not commute");
  app.add_option("--op", s.op, "only this operation (broadcast, reduce, allgather, reduce_scatter, allreduce, scan, "
                               "exscan, scatter, gather, alltoall, alltoallv, shift, barrier)");
  app.add_option("--svg", s.svg, "write a log-log plot of predicted time against m to this file");
  app.add_option("--mmin", s.m_min, "smallest m for crossovers and the plot");
  app.add_option("--mmax", s.m_max, "largest m for crossovers and the plot");
  app.add_flag("--table", s.table, "print seed 001's cost table for --p, --m and the model, and exit");
  CLI11_PARSE(app, argc, argv);

  try {
    const CostModel model = CostModel{s.t_s, s.t_w, s.t_h, s.t_r, s.routing == "sf" ? Routing::store_and_forward : Routing::cut_through,
                                      s.ports == "all" ? Ports::all : Ports::one, s.half_duplex, s.lanes, s.t_sync, s.crossbar, s.t_fresh}
                              .validated();
    detail::require(s.m >= 0 && s.m <= max_block_words, "collectives-cost: --m must be in [0, 1e15]");
    detail::require(s.m_min > 0 && s.m_min < s.m_max && s.m_max <= max_block_words,
                    "collectives-cost: needs 0 < --mmin < --mmax <= 1e15");
    if (!s.op.empty()) {
      // The names collectives-draw takes (tools::with_collective), exscan included.
      const bool known = tools::with_collective(s.op, []<Collective>() {});
      detail::require(known, "collectives-cost: unknown --op '" + s.op + "'");
    }
    if (s.table) {
      print_table(s, model);
      return 0;
    }
    tools::with_topology(s.topology, s.p, app.count("--p") > 0, s.dims, "collectives-cost",
                         [&](const auto& topo, const std::string& label) { run(topo, label, model, s); });
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
