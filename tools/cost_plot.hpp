#pragma once
// collectives-cost --svg: predicted time against message size, log-log, one panel per
// collective, every algorithm that fits as a line, the lower bound dashed in black.
//  - Lines that coincide stay distinguishable: every algorithm has its own dash pattern,
//    and an algorithm whose line equals an earlier one's everywhere says "= earlier" in
//    the legend.
//  - The algorithm select() picks is marked over each size range: a band along the
//    bottom of the plot in its colour with its name, and its line drawn wide there.
// Markup for tests and scripts: <polyline class="series" data-algorithm data-same-as>,
// <g class="selected" data-algorithm data-from data-to> (sizes in words), <g class="panel"
// data-collective>.

#include "registry.hpp"
#include "svg_text.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <iterator>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace collectives::tools {

/// One algorithm's line.
struct Series {
  std::string name;
  std::vector<std::pair<double, double>> points; ///< (m, seconds)
  std::string same_as;                           ///< an earlier series it equals everywhere, or empty
};

/// A size range over which select() picks one algorithm.
struct SelectedRange {
  double from = 0, to = 0;
  std::string name;
};

/// One collective's plot.
struct Panel {
  std::string title;
  std::string xlabel;
  std::vector<Series> series;
  std::vector<std::pair<double, double>> bound;
  std::vector<double> crossovers;
  std::vector<SelectedRange> selected;
};

/// Message sizes in [lo, hi] where select() changes its pick, with the picks on each side.
struct Crossing {
  double m;
  std::string from, to;
};

/// The words a call of C carries when the tools' size is m: none for the barrier, whose
/// calls select with m = 0 (Problem), whatever size the tool sweeps.
template <Collective C>
constexpr double data_words(double m)
{
  return C == Collective::barrier ? 0.0 : m;
}

/// Predicted time of every fitting algorithm of C at message size m.
template <Collective C, class T>
std::vector<std::pair<std::string, CostReport>> evaluate_all(const T& topo, const CostModel& model, Problem problem,
                                                             double m)
{
  problem.m = data_words<C>(m);
  std::vector<std::pair<std::string, CostReport>> out;
  for_each_fitting<C>(topo, problem,
                      [&](auto tag) { out.emplace_back(decltype(tag)::name, prediction_of<C>(tag, topo, model, problem)); });
  return out;
}

/// Whether algorithms a and b of C are estimated within 1e-9 of each other at size m: two
/// algorithms whose costs are one formula summed in another order (linear and pairwise
/// on a fully connected network) differ by rounding only, and select()'s pick between
/// them flips with it. Such a flip is a tie, not a crossover.
template <Collective C, class T>
bool tied_at(const T& topo, const CostModel& model, const Problem& problem, double m, std::string_view a,
             std::string_view b)
{
  double ta = -1, tb = -1;
  for (const auto& [name, report] : evaluate_all<C>(topo, model, problem, m)) {
    if (name == a) ta = report.time;
    if (name == b) tb = report.time;
  }
  return ta >= 0 && tb >= 0 && std::abs(ta - tb) <= 1e-9 * std::max(ta, tb);
}

/// Where select() changes its pick for m in [lo, hi] (97 points, then bisection); a change
/// to an algorithm tied with the previous pick (tied_at) is not one.
template <Collective C, class T>
std::vector<Crossing> crossings(const T& topo, const CostModel& model, Problem problem, double lo, double hi)
{
  auto pick = [&](double m) {
    problem.m = data_words<C>(m);
    return selected<C>(topo, model, problem);
  };
  std::vector<Crossing> out;
  constexpr int points = 97;
  const double step = std::log10(hi / lo) / (points - 1);
  double prev_m = lo;
  Selection prev = pick(lo);
  for (int i = 1; i < points; ++i) {
    const double m = lo * std::pow(10.0, step * i);
    const Selection s = pick(m);
    if (s.index != prev.index && tied_at<C>(topo, model, problem, m, prev.name, s.name)) {
      prev_m = m; // prev stays the pick shown
      continue;
    }
    if (s.index != prev.index) {
      // Bisect (geometrically) for the first m that no longer selects prev (or its tie).
      double a = prev_m, b = m;
      for (int k = 0; k < 60 && b / a > 1 + 1e-9; ++k) {
        const double mid = std::sqrt(a * b);
        const Selection q = pick(mid);
        (q.index == prev.index || tied_at<C>(topo, model, problem, mid, prev.name, q.name) ? a : b) = mid;
      }
      out.push_back(Crossing{b, std::string(prev.name), std::string(pick(b).name)});
    }
    prev = s;
    prev_m = m;
  }
  return out;
}

/// True when two lines agree at every point (to 1e-9 relative).
inline bool coincide(const Series& a, const Series& b)
{
  if (a.points.size() != b.points.size()) return false;
  for (std::size_t i = 0; i < a.points.size(); ++i) {
    const double x = a.points[i].second, y = b.points[i].second;
    if (a.points[i].first != b.points[i].first || std::abs(x - y) > 1e-9 * std::max(std::abs(x), std::abs(y)))
      return false;
  }
  return true;
}

/// The panel of collective C: every fitting algorithm at 49 sizes in [m_min, m_max], the
/// lower bound, the crossovers and the selected ranges. `block_meaning` names m's unit.
template <Collective C, class T>
Panel make_panel(const T& topo, const CostModel& model, const Problem& problem, double m_min, double m_max,
                 const std::string& block_meaning)
{
  Panel panel;
  panel.title = call_name<C>(problem);
  panel.xlabel = "m (" + block_meaning + ")";
  constexpr int points = 49;
  const double step = std::log10(m_max / m_min) / (points - 1);
  for (int i = 0; i < points; ++i) {
    const double m = m_min * std::pow(10.0, step * i);
    for (const auto& line : evaluate_all<C>(topo, model, problem, m)) {
      auto it = std::find_if(panel.series.begin(), panel.series.end(),
                             [&](const Series& x) { return x.name == line.first; });
      if (it == panel.series.end()) {
        panel.series.push_back(Series{line.first, {}, {}});
        it = std::prev(panel.series.end());
      }
      it->points.emplace_back(m, line.second.time);
    }
    Problem pr = problem;
    pr.m = data_words<C>(m);
    panel.bound.emplace_back(m, lower_bound(C, topo, model, pr));
  }
  for (std::size_t i = 0; i < panel.series.size(); ++i)
    for (std::size_t j = 0; j < i && panel.series[i].same_as.empty(); ++j)
      if (panel.series[j].same_as.empty() && coincide(panel.series[i], panel.series[j]))
        panel.series[i].same_as = panel.series[j].name;
  // Selected ranges: between consecutive crossovers select() keeps one pick.
  Problem pr = problem;
  pr.m = data_words<C>(m_min);
  double from = m_min;
  std::string name(selected<C>(topo, model, pr).name);
  for (const auto& c : crossings<C>(topo, model, problem, m_min, m_max)) {
    panel.crossovers.push_back(c.m);
    panel.selected.push_back(SelectedRange{from, c.m, name});
    from = c.m;
    name = c.to;
  }
  panel.selected.push_back(SelectedRange{from, m_max, name});
  return panel;
}

namespace plot_detail {

inline constexpr const char* palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                          "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"};
/// One dash pattern per line, so that coinciding lines stay apart (as many as the longest
/// list has algorithms: alltoall's nine).
inline constexpr const char* dashes[] = {"",    "7,3",     "2,3",  "9,3,2,3",  "4,4", "12,4",
                                         "1,3", "6,2,2,2,2,2", "3,1", "10,2,2,2", "1,6", "5,2,1,2"};

inline const char* colour(std::size_t i) { return palette[i % std::size(palette)]; }
inline std::string dash(std::size_t i)
{
  const char* d = dashes[i % std::size(dashes)];
  return *d == '\0' ? "" : std::string(" stroke-dasharray=\"") + d + "\"";
}

/// Decade label 10^e with a superscript.
inline std::string decade(int e)
{
  return "10<tspan dy=\"-5\" font-size=\"9\">" + std::to_string(e) + "</tspan>";
}

inline void draw_panel(std::ostringstream& svg, const Panel& p, double x0, double y0, double w, double h)
{
  // Plot area inside the panel.
  const double left = x0 + 62, right = x0 + w - 215, top = y0 + 30, bottom = y0 + h - 45;
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

  svg << "<g class=\"panel\" data-collective=\"" << escape(p.title) << "\">\n";
  svg << "<text x=\"" << fmt((left + right) / 2) << "\" y=\"" << fmt(y0 + 18)
      << "\" text-anchor=\"middle\" font-size=\"14\" font-weight=\"bold\">" << escape(p.title) << "</text>\n";
  svg << "<rect x=\"" << fmt(left) << "\" y=\"" << fmt(top) << "\" width=\"" << fmt(right - left) << "\" height=\""
      << fmt(bottom - top) << "\" fill=\"white\" stroke=\"#444\"/>\n";
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
  for (double m : p.crossovers)
    svg << "<line x1=\"" << fmt(X(m)) << "\" y1=\"" << fmt(top) << "\" x2=\"" << fmt(X(m)) << "\" y2=\"" << fmt(bottom)
        << "\" stroke=\"#888\" stroke-dasharray=\"2,3\"/>\n";
  auto points = [&](const std::vector<std::pair<double, double>>& pts, double lo, double hi) {
    std::string out;
    for (auto [m, t] : pts)
      if (t > 0 && m >= lo && m <= hi) out += fmt(X(m)) + "," + fmt(Y(t)) + " ";
    return out;
  };
  auto index_of = [&](const std::string& name) {
    for (std::size_t i = 0; i < p.series.size(); ++i)
      if (p.series[i].name == name) return i;
    return p.series.size();
  };
  // The selected algorithm: its line wide and pale under the others, and a band along
  // the bottom of the plot in its colour.
  for (const auto& range : p.selected) {
    const std::size_t i = index_of(range.name);
    const char* c = i < p.series.size() ? colour(i) : "#000";
    const double x1 = X(range.from), x2 = X(range.to);
    svg << "<g class=\"selected\" data-algorithm=\"" << escape(range.name) << "\" data-from=\"" << fmt(range.from)
        << "\" data-to=\"" << fmt(range.to) << "\">";
    svg << "<title>selected: " << escape(range.name) << " for m in [" << fmt(range.from) << ", " << fmt(range.to)
        << "]</title>";
    if (i < p.series.size()) {
      // Include the neighbouring points so that the wide stroke spans the whole range.
      const double step = p.series[i].points.size() > 1 ? p.series[i].points[1].first / p.series[i].points[0].first : 1;
      svg << "<polyline fill=\"none\" stroke=\"" << c << "\" stroke-opacity=\"0.25\" stroke-width=\"8\" points=\""
          << points(p.series[i].points, range.from / step, range.to * step) << "\"/>";
    }
    svg << "<rect x=\"" << fmt(x1) << "\" y=\"" << fmt(bottom - 7) << "\" width=\"" << fmt(std::max(1.0, x2 - x1))
        << "\" height=\"7\" fill=\"" << c << "\" fill-opacity=\"0.8\"/>";
    if (x2 - x1 > 7.0 * static_cast<double>(range.name.size()))
      svg << "<text x=\"" << fmt((x1 + x2) / 2) << "\" y=\"" << fmt(bottom - 10)
          << "\" text-anchor=\"middle\" font-size=\"10\" fill=\"" << c << "\">" << escape(range.name) << "</text>";
    svg << "</g>\n";
  }
  svg << "<polyline fill=\"none\" stroke=\"#000\" stroke-width=\"1.5\" stroke-dasharray=\"6,4\" points=\""
      << points(p.bound, 0, 1e300) << "\"/>\n";
  for (std::size_t i = 0; i < p.series.size(); ++i)
    svg << "<polyline class=\"series\" data-algorithm=\"" << escape(p.series[i].name) << "\" data-same-as=\""
        << escape(p.series[i].same_as) << "\" fill=\"none\" stroke=\"" << colour(i) << "\" stroke-width=\"2\""
        << dash(i) << " points=\"" << points(p.series[i].points, 0, 1e300) << "\"/>\n";
  // Legend.
  double ly = top + 6;
  auto entry = [&](const std::string& name, const char* c, const std::string& d, double width) {
    svg << "<line x1=\"" << fmt(right + 10) << "\" y1=\"" << fmt(ly) << "\" x2=\"" << fmt(right + 34) << "\" y2=\""
        << fmt(ly) << "\" stroke=\"" << c << "\" stroke-width=\"" << fmt(width) << "\"" << d << "/>\n";
    svg << "<text x=\"" << fmt(right + 40) << "\" y=\"" << fmt(ly + 4) << "\" font-size=\"11\">" << escape(name)
        << "</text>\n";
    ly += 16;
  };
  for (std::size_t i = 0; i < p.series.size(); ++i)
    entry(p.series[i].name + (p.series[i].same_as.empty() ? "" : " (= " + p.series[i].same_as + ")"), colour(i),
          dash(i), 2);
  entry("lower bound", "#000", " stroke-dasharray=\"6,4\"", 1.5);
  if (!p.crossovers.empty()) entry("crossover", "#888", " stroke-dasharray=\"2,3\"", 1);
  entry("selected (band)", "#888", " stroke-opacity=\"0.5\"", 7);
  svg << "</g>\n";
}

} // namespace plot_detail

/// The SVG document: a heading and the panels, two per row.
inline std::string cost_svg(const std::string& heading, const std::vector<Panel>& panels)
{
  using plot_detail::draw_panel;
  const std::size_t cols = panels.size() > 1 ? 2 : 1;
  const double pw = cols == 1 ? 720 : 640, ph = 300;
  const std::size_t rows = (panels.size() + cols - 1) / cols;
  const double width = pw * static_cast<double>(cols), height = ph * static_cast<double>(rows) + 40;
  std::ostringstream svg;
  svg << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << fmt(width) << "\" height=\"" << fmt(height)
      << "\" viewBox=\"0 0 " << fmt(width) << " " << fmt(height) << "\" font-family=\"DejaVu Sans, Arial, sans-serif\">\n";
  svg << "<rect width=\"100%\" height=\"100%\" fill=\"#fafafa\"/>\n";
  svg << "<text x=\"" << fmt(width / 2) << "\" y=\"24\" text-anchor=\"middle\" font-size=\"" << (cols == 1 ? 12 : 15)
      << "\">" << escape(heading) << "</text>\n";
  for (std::size_t i = 0; i < panels.size(); ++i)
    draw_panel(svg, panels[i], pw * static_cast<double>(i % cols), 40 + ph * static_cast<double>(i / cols), pw, ph);
  svg << "</svg>\n";
  return svg.str();
}

} // namespace collectives::tools
