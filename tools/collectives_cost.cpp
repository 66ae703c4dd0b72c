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
// panel per operation. --table prints seed 001's cost table for the given p and model.

#include <collectives/cost.hpp>
#include <collectives/topology.hpp>

#include <CLI/CLI.hpp>
#include <boost/hana/for_each.hpp>

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
namespace hana = boost::hana;

namespace {

struct Settings {
  std::string topology = "ring";
  std::size_t p = 8;
  std::string dims;
  double t_s = 2e-6, t_w = 1e-9, t_h = 5e-8, t_r = 1e-10;
  std::string routing = "ct", ports = "one";
  double m = 1024;
  std::size_t root = 0;
  long q = 1;
  bool non_commutative = false;
  std::string op; // empty: all
  std::string svg;
  bool table = false;
  double m_min = 1, m_max = 1e7;
};

/// One algorithm's line for one collective.
struct Line {
  std::string name;
  CostReport report;
};

/// Predicted time of every fitting algorithm of C at message size m.
template <Collective C, class T>
std::vector<Line> evaluate_all(const T& topo, const CostModel& model, Problem problem, double m)
{
  problem.m = m;
  std::vector<Line> out;
  hana::for_each(default_candidates<C>(), [&](auto tag) {
    using Tag = decltype(tag);
    if constexpr (fits_type_v<C, Tag, T>)
      if (fits<C, Tag>(topo, problem)) out.push_back(Line{Tag::name, predict<C>(tag, topo, model, problem)});
  });
  return out;
}

/// Message sizes in [lo, hi] where the selection changes, with the winners on each side.
struct Crossing {
  double m;
  std::string from, to;
};

template <Collective C, class T>
std::vector<Crossing> crossings(const T& topo, const CostModel& model, Problem problem, double lo, double hi)
{
  auto pick = [&](double m) {
    problem.m = m;
    return select<C>(topo, model, problem);
  };
  std::vector<Crossing> out;
  constexpr int points = 97;
  const double step = std::log10(hi / lo) / (points - 1);
  double prev_m = lo;
  Selection prev = pick(lo);
  for (int i = 1; i < points; ++i) {
    const double m = lo * std::pow(10.0, step * i);
    const Selection s = pick(m);
    if (s.index != prev.index) {
      // Bisect (geometrically) for the first m that no longer selects prev.
      double a = prev_m, b = m;
      for (int k = 0; k < 60 && b / a > 1 + 1e-9; ++k) {
        const double mid = std::sqrt(a * b);
        (pick(mid).index == prev.index ? a : b) = mid;
      }
      out.push_back(Crossing{b, std::string(prev.name), std::string(pick(b).name)});
    }
    prev = s;
    prev_m = m;
  }
  return out;
}

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
  const auto lines = evaluate_all<C>(topo, model, problem, s.m);
  Problem pr = problem;
  pr.m = s.m;
  const double bound = lower_bound(C, topo, model, pr);
  std::printf("\n%s (m = %g %s)    lower bound %.4g s\n", std::string(collective_name(C)).c_str(), s.m, block_meaning(C),
              bound);
  if (lines.empty()) {
    std::printf("  no algorithm fits this topology\n");
    return;
  }
  const Selection sel = select<C>(topo, model, pr);
  for (const auto& l : lines)
    std::printf("  %c %-22s %12.4g s   x%-7.3g steps %-5zu congestion %zu\n", l.name == sel.name ? '*' : ' ',
                l.name.c_str(), l.report.time, bound > 0 ? l.report.time / bound : 1.0, l.report.steps,
                l.report.congestion);
  std::printf("  selected: %s\n", std::string(sel.name).c_str());
  const auto cross = crossings<C>(topo, model, problem, s.m_min, s.m_max);
  if (cross.empty()) {
    std::printf("  crossovers: none for m in [%g, %g] (%s throughout)\n", s.m_min, s.m_max,
                std::string(select<C>(topo, model, Problem{s.m_min, pr.root, pr.q, pr.commutative}).name).c_str());
  } else {
    std::printf("  crossovers:");
    for (const auto& c : cross) std::printf(" %s -> %s at m = %.4g;", c.from.c_str(), c.to.c_str(), c.m);
    std::printf("\n");
  }
}

// ---------------------------------------------------------------------------------------
// SVG
// ---------------------------------------------------------------------------------------

constexpr const char* palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                   "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"};

struct Series {
  std::string name;
  std::vector<std::pair<double, double>> points; // (m, seconds)
};

struct Panel {
  std::string title;
  std::string xlabel;
  std::vector<Series> series;
  std::vector<std::pair<double, double>> bound;
  std::vector<double> crossovers;
};

template <Collective C, class T>
Panel make_panel(const T& topo, const CostModel& model, const Problem& problem, const Settings& s)
{
  Panel panel;
  panel.title = std::string(collective_name(C));
  panel.xlabel = std::string("m (") + block_meaning(C) + ")";
  constexpr int points = 49;
  const double step = std::log10(s.m_max / s.m_min) / (points - 1);
  for (int i = 0; i < points; ++i) {
    const double m = s.m_min * std::pow(10.0, step * i);
    for (const auto& l : evaluate_all<C>(topo, model, problem, m)) {
      auto it = std::find_if(panel.series.begin(), panel.series.end(), [&](const Series& x) { return x.name == l.name; });
      if (it == panel.series.end()) {
        panel.series.push_back(Series{l.name, {}});
        it = panel.series.end() - 1;
      }
      it->points.emplace_back(m, l.report.time);
    }
    Problem pr = problem;
    pr.m = m;
    panel.bound.emplace_back(m, lower_bound(C, topo, model, pr));
  }
  for (const auto& c : crossings<C>(topo, model, problem, s.m_min, s.m_max)) panel.crossovers.push_back(c.m);
  return panel;
}

std::string fmt(double x)
{
  std::ostringstream o;
  o.precision(6);
  o << x;
  return o.str();
}

std::string escape(const std::string& in)
{
  std::string out;
  for (char c : in) {
    if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else out += c;
  }
  return out;
}

/// Decade label: 1e-06 -> "10⁻⁶"-like text via tspan superscript.
std::string decade(int e)
{
  return "10<tspan dy=\"-5\" font-size=\"9\">" + std::to_string(e) + "</tspan>";
}

void draw_panel(std::ostringstream& svg, const Panel& p, double x0, double y0, double w, double h)
{
  // Plot area inside the panel.
  const double left = x0 + 62, right = x0 + w - 170, top = y0 + 30, bottom = y0 + h - 45;
  double ymin = 1e300, ymax = 0, xmin = 1e300, xmax = 0;
  auto take = [&](double m, double t) {
    if (t > 0) {
      ymin = std::min(ymin, t);
      ymax = std::max(ymax, t);
    }
    xmin = std::min(xmin, m);
    xmax = std::max(xmax, m);
  };
  for (const auto& s : p.series)
    for (auto [m, t] : s.points) take(m, t);
  for (auto [m, t] : p.bound) take(m, t);
  if (ymax <= 0) return;
  const double ly0 = std::floor(std::log10(ymin)), ly1 = std::ceil(std::log10(ymax));
  const double lx0 = std::floor(std::log10(xmin)), lx1 = std::ceil(std::log10(xmax));
  auto X = [&](double m) { return left + (std::log10(m) - lx0) / std::max(1.0, lx1 - lx0) * (right - left); };
  auto Y = [&](double t) { return bottom - (std::log10(t) - ly0) / std::max(1.0, ly1 - ly0) * (bottom - top); };

  svg << "<text x=\"" << fmt((left + right) / 2) << "\" y=\"" << fmt(y0 + 18)
      << "\" text-anchor=\"middle\" font-size=\"14\" font-weight=\"bold\">" << escape(p.title) << "</text>\n";
  svg << "<rect x=\"" << fmt(left) << "\" y=\"" << fmt(top) << "\" width=\"" << fmt(right - left) << "\" height=\""
      << fmt(bottom - top) << "\" fill=\"white\" stroke=\"#444\"/>\n";
  // Grid and tick labels at decades.
  for (double e = lx0; e <= lx1; ++e) {
    const double x = X(std::pow(10.0, e));
    svg << "<line x1=\"" << fmt(x) << "\" y1=\"" << fmt(top) << "\" x2=\"" << fmt(x) << "\" y2=\"" << fmt(bottom)
        << "\" stroke=\"#ddd\"/>\n";
    svg << "<text x=\"" << fmt(x) << "\" y=\"" << fmt(bottom + 16) << "\" text-anchor=\"middle\" font-size=\"11\">"
        << decade(static_cast<int>(e)) << "</text>\n";
  }
  for (double e = ly0; e <= ly1; ++e) {
    const double y = Y(std::pow(10.0, e));
    svg << "<line x1=\"" << fmt(left) << "\" y1=\"" << fmt(y) << "\" x2=\"" << fmt(right) << "\" y2=\"" << fmt(y)
        << "\" stroke=\"#ddd\"/>\n";
    svg << "<text x=\"" << fmt(left - 6) << "\" y=\"" << fmt(y + 4) << "\" text-anchor=\"end\" font-size=\"11\">"
        << decade(static_cast<int>(e)) << "</text>\n";
  }
  svg << "<text x=\"" << fmt((left + right) / 2) << "\" y=\"" << fmt(bottom + 36)
      << "\" text-anchor=\"middle\" font-size=\"12\">" << escape(p.xlabel) << "</text>\n";
  svg << "<text transform=\"translate(" << fmt(x0 + 16) << "," << fmt((top + bottom) / 2)
      << ") rotate(-90)\" text-anchor=\"middle\" font-size=\"12\">predicted time (s)</text>\n";
  // Crossovers.
  for (double m : p.crossovers)
    svg << "<line x1=\"" << fmt(X(m)) << "\" y1=\"" << fmt(top) << "\" x2=\"" << fmt(X(m)) << "\" y2=\"" << fmt(bottom)
        << "\" stroke=\"#888\" stroke-dasharray=\"2,3\"/>\n";
  // Curves.
  auto polyline = [&](const std::vector<std::pair<double, double>>& pts, const char* colour, const char* dash) {
    svg << "<polyline fill=\"none\" stroke=\"" << colour << "\" stroke-width=\"2\"" << dash << " points=\"";
    for (auto [m, t] : pts)
      if (t > 0) svg << fmt(X(m)) << "," << fmt(Y(t)) << " ";
    svg << "\"/>\n";
  };
  polyline(p.bound, "#000", " stroke-dasharray=\"6,4\"");
  for (std::size_t i = 0; i < p.series.size(); ++i)
    polyline(p.series[i].points, palette[i % std::size(palette)], "");
  // Legend.
  double ly = top + 6;
  auto entry = [&](const std::string& name, const char* colour, const char* dash) {
    svg << "<line x1=\"" << fmt(right + 10) << "\" y1=\"" << fmt(ly) << "\" x2=\"" << fmt(right + 34) << "\" y2=\""
        << fmt(ly) << "\" stroke=\"" << colour << "\" stroke-width=\"2\"" << dash << "/>\n";
    svg << "<text x=\"" << fmt(right + 40) << "\" y=\"" << fmt(ly + 4) << "\" font-size=\"11\">" << escape(name)
        << "</text>\n";
    ly += 16;
  };
  for (std::size_t i = 0; i < p.series.size(); ++i) entry(p.series[i].name, palette[i % std::size(palette)], "");
  entry("lower bound", "#000", " stroke-dasharray=\"6,4\"");
  if (!p.crossovers.empty()) entry("crossover", "#888", " stroke-dasharray=\"2,3\"");
}

void write_svg(const std::string& file, const std::string& heading, const std::vector<Panel>& panels)
{
  const std::size_t cols = panels.size() > 1 ? 2 : 1;
  const double pw = cols == 1 ? 680 : 580, ph = 300;
  const std::size_t rows = (panels.size() + cols - 1) / cols;
  const double width = pw * static_cast<double>(cols), height = ph * static_cast<double>(rows) + 40;
  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << fmt(width) << "\" height=\"" << fmt(height)
      << "\" viewBox=\"0 0 " << fmt(width) << " " << fmt(height) << "\" font-family=\"DejaVu Sans, Arial, sans-serif\">\n";
  svg << "<rect width=\"100%\" height=\"100%\" fill=\"#fafafa\"/>\n";
  svg << "<text x=\"" << fmt(width / 2) << "\" y=\"24\" text-anchor=\"middle\" font-size=\"" << (cols == 1 ? 12 : 15)
      << "\">" << escape(heading)
      << "</text>\n";
  for (std::size_t i = 0; i < panels.size(); ++i)
    draw_panel(svg, panels[i], pw * static_cast<double>(i % cols), 40 + ph * static_cast<double>(i / cols), pw, ph);
  svg << "</svg>\n";
  std::ofstream out(file);
  if (!out) throw std::runtime_error("cannot write " + file);
  out << svg.str();
}

// ---------------------------------------------------------------------------------------
// Driving one topology type through every collective
// ---------------------------------------------------------------------------------------

template <class T>
void run(const T& topo, const std::string& label, const CostModel& model, const Settings& s)
{
  const Problem problem{s.m, s.root, static_cast<std::ptrdiff_t>(s.q), !s.non_commutative};
  detail::require(s.root < topo.size(), "collectives-cost: --root must be a rank of the topology");
  std::printf("collectives-cost: %s (p = %zu); t_s = %g, t_w = %g, t_h = %g, t_r = %g; %s, %s-port\n", label.c_str(),
              topo.size(), model.t_s, model.t_w, model.t_h, model.t_r,
              model.routing == Routing::cut_through ? "cut-through" : "store-and-forward",
              model.ports == Ports::one ? "one" : "all");
  std::printf("  (* = selected; xN = predicted time / lower bound; root %zu, shift q = %ld, %s operator)\n", s.root, s.q,
              s.non_commutative ? "non-commutative" : "commutative");
  std::vector<Panel> panels;
  auto one = [&]<Collective C>() {
    if (!s.op.empty() && s.op != collective_name(C)) return;
    print_collective<C>(topo, model, problem, s);
    if (!s.svg.empty()) panels.push_back(make_panel<C>(topo, model, problem, s));
  };
  one.template operator()<Collective::broadcast>();
  one.template operator()<Collective::reduce>();
  one.template operator()<Collective::allgather>();
  one.template operator()<Collective::reduce_scatter>();
  one.template operator()<Collective::allreduce>();
  one.template operator()<Collective::scan>();
  one.template operator()<Collective::scatter>();
  one.template operator()<Collective::gather>();
  one.template operator()<Collective::alltoall>();
  one.template operator()<Collective::shift>();
  if (!s.svg.empty()) {
    std::ostringstream heading;
    heading << "Predicted time on " << label << ": t_s=" << model.t_s << ", t_w=" << model.t_w << ", t_h=" << model.t_h
            << ", t_r=" << model.t_r << ", " << (model.routing == Routing::cut_through ? "CT" : "SF") << ", "
            << (model.ports == Ports::one ? "one" : "all") << "-port";
    write_svg(s.svg, heading.str(), panels);
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

std::vector<std::size_t> parse_dims(const std::string& text)
{
  std::vector<std::size_t> out;
  std::string cur;
  for (char c : text + "x") {
    if (c == 'x' || c == 'X' || c == ',' || c == '*') {
      if (cur.empty()) throw std::invalid_argument("collectives-cost: --dims wants extents like 4x4 or 2,3,4");
      std::size_t used = 0;
      const unsigned long v = std::stoul(cur, &used);
      if (used != cur.size() || v == 0) throw std::invalid_argument("collectives-cost: bad extent '" + cur + "' in --dims");
      out.push_back(v);
      cur.clear();
    } else {
      cur += c;
    }
  }
  return out;
}

} // namespace

int main(int argc, char** argv)
{
  Settings s;
  CLI::App app{"collectives-cost: predicted cost of every collective algorithm on a network (the Hockney model of "
               "the seeds, read from the schedules the library runs)"};
  app.add_option("--topology", s.topology, "ring, mesh, torus, hypercube or full (fully connected)")
    ->check(CLI::IsMember({"ring", "mesh", "torus", "hypercube", "full"}));
  app.add_option("--p", s.p, "number of nodes (ring, hypercube: a power of two, full)")->check(CLI::Range(1ul, 1ul << 20));
  app.add_option("--dims", s.dims, "extents for mesh/torus, e.g. 4x4 or 2x3x4 (torus: 1 to 3 dimensions)");
  app.add_option("--ts", s.t_s, "start-up time per message (s)");
  app.add_option("--tw", s.t_w, "time per word (s)");
  app.add_option("--th", s.t_h, "time per hop (s)");
  app.add_option("--tr", s.t_r, "time per word of local work (s)");
  app.add_option("--routing", s.routing, "ct (cut-through) or sf (store-and-forward)")->check(CLI::IsMember({"ct", "sf"}));
  app.add_option("--ports", s.ports, "one or all")->check(CLI::IsMember({"one", "all"}));
  app.add_option("--m", s.m, "message size in words (per block for alltoall, allgather, reduce_scatter, scatter, gather)");
  app.add_option("--root", s.root, "root of broadcast, reduce, scatter, gather");
  app.add_option("--q", s.q, "shift distance");
  app.add_flag("--non-commutative", s.non_commutative, "the reduction operator does not commute");
  app.add_option("--op", s.op, "only this operation (broadcast, reduce, allgather, reduce_scatter, allreduce, scan, "
                               "scatter, gather, alltoall, shift)");
  app.add_option("--svg", s.svg, "write a log-log plot of predicted time against m to this file");
  app.add_option("--mmin", s.m_min, "smallest m for crossovers and the plot");
  app.add_option("--mmax", s.m_max, "largest m for crossovers and the plot");
  app.add_flag("--table", s.table, "print seed 001's cost table for --p, --m and the model, and exit");
  CLI11_PARSE(app, argc, argv);

  try {
    const CostModel model = CostModel{s.t_s, s.t_w, s.t_h, s.t_r, s.routing == "sf" ? Routing::store_and_forward : Routing::cut_through,
                                      s.ports == "all" ? Ports::all : Ports::one}
                              .validated();
    detail::require(s.m >= 0 && s.m <= max_block_words, "collectives-cost: --m must be in [0, 1e15]");
    detail::require(s.m_min > 0 && s.m_min < s.m_max && s.m_max <= max_block_words,
                    "collectives-cost: needs 0 < --mmin < --mmax <= 1e15");
    if (!s.op.empty()) {
      bool known = false;
      for (Collective c : all_collectives) known = known || collective_name(c) == s.op;
      detail::require(known, "collectives-cost: unknown --op '" + s.op + "'");
    }
    if (s.table) {
      print_table(s, model);
      return 0;
    }
    const std::vector<std::size_t> dims = s.dims.empty() ? std::vector<std::size_t>{} : parse_dims(s.dims);
    if (s.topology == "ring") {
      run(Ring<>{s.p}, "ring of " + std::to_string(s.p), model, s);
    } else if (s.topology == "hypercube") {
      detail::require(s.p >= 1 && (s.p & (s.p - 1)) == 0, "collectives-cost: a hypercube needs --p a power of two");
      run(Hypercube<>::of_size(s.p), "hypercube of " + std::to_string(s.p), model, s);
    } else if (s.topology == "full") {
      run(FullyConnected<>{s.p}, "fully connected network of " + std::to_string(s.p), model, s);
    } else {
      std::vector<std::size_t> d = dims;
      if (d.empty()) { // a square mesh of about p nodes
        const auto side = static_cast<std::size_t>(std::lround(std::sqrt(static_cast<double>(s.p))));
        detail::require(side * side == s.p, "collectives-cost: give --dims, or a square --p, for a mesh or torus");
        d = {side, side};
      }
      std::string label = s.topology == "mesh" ? "mesh " : "torus ";
      for (std::size_t i = 0; i < d.size(); ++i) label += (i ? "x" : "") + std::to_string(d[i]);
      if (d.size() == 1) run(Ring<>{d[0]}, label, model, s);
      else if (d.size() == 2) run(Mesh<>{d[0], d[1]}, label, model, s);
      else if (d.size() == 3) run(Torus<dynamic_extent, dynamic_extent, dynamic_extent>{d[0], d[1], d[2]}, label, model, s);
      else throw std::invalid_argument("collectives-cost: at most 3 dimensions");
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
