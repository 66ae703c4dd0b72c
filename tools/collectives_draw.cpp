// collectives-draw: the picture of a collective algorithm's schedule on its topology,
// drawn from the schedule the library runs.
//
//   collectives-draw --op broadcast --algorithm binomial --topology hypercube --p 8 --root 0 --svg out.svg
//   collectives-draw --op allgather --algorithm ring --topology ring --p 8 --text
//   collectives-draw --op alltoall --topology mesh --dims 3x3 --list
//
// One panel per step, nodes laid out as the seeds lay them out, an arrow per message
// along its route labelled with what it carries, and links that carry two or more
// messages in one step marked (tools/draw/svg.hpp). --text prints the same steps as a
// table. The vocabulary of --op, --topology, --p and --dims is collectives-cost's.

#include "draw/drawing.hpp"
#include "registry.hpp"
#include "topology_args.hpp"

#include <CLI/CLI.hpp>

#include <cstddef>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <string>

using namespace collectives;

namespace {

struct Settings {
  std::string op = "broadcast";
  std::string algorithm;
  std::string topology = "ring";
  std::size_t p = 8;
  std::string dims;
  std::size_t root = 0;
  long q = 1;
  bool non_commutative = false;
  std::string svg;
  bool text = false;
  bool list = false;
};

/// The largest p drawn as a picture (beyond it nodes and labels no longer fit).
constexpr std::size_t max_drawn_p = 64;

std::string joined(const std::vector<std::string>& names)
{
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "(none)" : out;
}

template <Collective C, class T>
int run(const T& topo, const std::string& label, const Settings& s)
{
  const Problem problem{.m = 1,
                        .root = s.root,
                        .q = static_cast<std::ptrdiff_t>(s.q),
                        .commutative = !s.non_commutative,
                        .exclusive = tools::names_exscan(s.op)};
  if (s.root >= topo.size()) throw std::invalid_argument("collectives-draw: --root must be a rank of the topology");
  const auto fitting = tools::fitting_names<C>(topo, problem);
  if (s.list) {
    std::printf("%s on a %s: %s\n", tools::call_name<C>(problem).c_str(), label.c_str(), joined(fitting).c_str());
    return 0;
  }
  const auto d = draw::drawing<C>(s.algorithm, topo, problem, label);
  if (!d) {
    const auto all = tools::algorithm_names<C>();
    const bool known = std::find(all.begin(), all.end(), s.algorithm) != all.end();
    throw std::invalid_argument("collectives-draw: " +
                                (known ? "algorithm '" + s.algorithm + "' does not fit a " + label +
                                           (s.non_commutative ? " with a non-commutative operator" : "")
                                       : "unknown --algorithm '" + s.algorithm + "' for " +
                                           tools::call_name<C>(problem)) +
                                "; algorithms that fit: " + joined(fitting));
  }
  if (s.text || s.svg.empty()) std::fputs(d->text().c_str(), stdout);
  if (!s.svg.empty()) {
    if (topo.size() > max_drawn_p)
      throw std::invalid_argument("collectives-draw: --svg draws at most " + std::to_string(max_drawn_p) +
                                  " nodes; use --text for more");
    std::ofstream out(s.svg);
    out << d->svg();
    out.close();
    if (!out) throw std::runtime_error("collectives-draw: cannot write " + s.svg);
    const std::size_t steps = d->picture.steps.size();
    std::printf("wrote %s (%zu step%s)\n", s.svg.c_str(), steps, steps == 1 ? "" : "s");
  }
  return 0;
}

} // namespace

int main(int argc, char** argv)
{
  Settings s;
  CLI::App app{"collectives-draw: the schedule of a collective algorithm drawn on its topology, step by step"};
  app.add_option("--op", s.op, "broadcast, reduce, allgather, reduce_scatter, allreduce, scan, exscan, scatter, "
                               "gather, alltoall, alltoallv, shift or barrier");
  app.add_option("--algorithm", s.algorithm, "the algorithm's name (--list shows those that fit)");
  app.add_option("--topology", s.topology, "ring, mesh, torus, hypercube or full (fully connected)")
    ->check(CLI::IsMember(tools::topology_kinds));
  app.add_option("--p", s.p, "number of nodes (hypercube: a power of two)")->check(CLI::Range(1ul, 1ul << 12));
  app.add_option("--dims", s.dims, "extents for mesh/torus, e.g. 3x3 or 2x3x4");
  app.add_option("--root", s.root, "root of broadcast, reduce, scatter, gather");
  app.add_option("--q", s.q, "shift distance");
  app.add_flag("--non-commutative", s.non_commutative, "the reduction operator does not commute");
  app.add_option("--svg", s.svg, "write the picture to this SVG file");
  app.add_flag("--text", s.text, "print the steps as a table (also the default without --svg)");
  app.add_flag("--list", s.list, "list the algorithms of --op that fit the topology, and exit");
  CLI11_PARSE(app, argc, argv);

  try {
    if (s.algorithm.empty() && !s.list) throw std::invalid_argument("collectives-draw: --algorithm is required (or --list)");
    int status = 1;
    tools::with_topology(s.topology, s.p, app.count("--p") > 0, s.dims, "collectives-draw", [&](const auto& topo, const std::string& label) {
      const bool known = tools::with_collective(s.op, [&]<Collective C>() { status = run<C>(topo, label, s); });
      if (!known) throw std::invalid_argument("collectives-draw: unknown --op '" + s.op + "'");
    });
    return status;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
