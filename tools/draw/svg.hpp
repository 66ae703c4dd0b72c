#pragma once
// collectives-draw's SVG: one panel per step. Each panel shows the topology's links in
// grey, a red band with "×n" on every directed link that carries n >= 2 messages in the
// step, the nodes, and an arrow per message along its route, labelled with what it
// carries (blue: the receiver copies it; dark orange: the receiver combines it).
//
// The markup is meant to be read back by tests and scripts: every panel is
// <g class="step" data-step="k"> (k from 0, shown as "step k+1" like the seeds), every
// arrow <g class="message" data-step data-from data-to data-blocks data-hops data-load
// data-combines> with the full contents in its <title>, every marked link
// <g class="shared-link" data-from data-to data-load>.

#include "../svg_text.hpp"
#include "layout.hpp"
#include "picture.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace collectives::draw {

namespace detail {

using tools::escape;
using tools::fmt;

inline Point offset_right(Point a, Point b, double by)
{
  const double dx = b.x - a.x, dy = b.y - a.y, n = std::max(1e-9, std::hypot(dx, dy));
  return {-dy / n * by, dx / n * by}; // right of the direction, in screen coordinates
}

inline Point toward(Point a, Point b, double by)
{
  const double dx = b.x - a.x, dy = b.y - a.y, n = std::max(1e-9, std::hypot(dx, dy));
  return {a.x + dx / n * by, a.y + dy / n * by};
}

/// Where a message's label goes, and how it is anchored there.
struct LabelSpot {
  Point at{};
  const char* anchor = "middle";
};

/// The path of a message: every piece of every link, shifted `shift` to the right,
/// shortened at both ends so the arrow starts and ends at the nodes' rims. Returns the
/// path data and the label's spot: beside the middle piece, on its right.
inline std::pair<std::string, LabelSpot> message_path(const Layout& layout, const Message& m, double shift)
{
  std::vector<Piece> pieces;
  for (const Link& l : m.route)
    for (const Piece& pc : layout.pieces(l.from, l.to)) pieces.push_back(pc);
  std::ostringstream d;
  Point last{1e300, 1e300};
  LabelSpot label_at{};
  const std::size_t middle = pieces.size() / 2;
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    Piece pc = pieces[i];
    const Point o = offset_right(pc.a, pc.b, shift);
    if (i == 0) pc.a = toward(pc.a, pc.b, layout.radius + 2);
    if (i + 1 == pieces.size()) pc.b = toward(pc.b, pc.a, layout.radius + 4);
    const Point a{pc.a.x + o.x, pc.a.y + o.y}, b{pc.b.x + o.x, pc.b.y + o.y};
    if (std::hypot(a.x - last.x, a.y - last.y) > 1.0) d << "M" << fmt(a.x) << "," << fmt(a.y) << " ";
    d << "L" << fmt(b.x) << "," << fmt(b.y) << " ";
    last = b;
    if (i == middle) {
      const Point lo = offset_right(pc.a, pc.b, shift + 6);
      label_at.at = {(pc.a.x + pc.b.x) / 2 + lo.x, (pc.a.y + pc.b.y) / 2 + lo.y + 3};
      // Beside a steep piece the text runs away from it; across a flat one, centred.
      if (std::abs(lo.x) > 2 * std::abs(lo.y)) label_at.anchor = lo.x > 0 ? "start" : "end";
      else label_at.at.y += lo.y > 0 ? 5 : -1;
    }
  }
  return {d.str(), label_at};
}

} // namespace detail

/// Panels per row for a picture of `steps` steps and panels `panel_width` wide.
inline std::size_t panel_columns(std::size_t steps, double panel_width)
{
  const auto fit = static_cast<std::size_t>(std::max(1.0, std::floor(1500.0 / panel_width)));
  return std::max<std::size_t>(1, std::min({steps, fit, std::size_t{4}}));
}

/// The SVG document of `pic` drawn on `layout` with the topology's `links`.
inline std::string svg(const Picture& pic, const Layout& layout,
                       const std::vector<std::pair<std::size_t, std::size_t>>& links, const std::string& title)
{
  using detail::escape;
  using detail::fmt;
  const double header = 26, pw = std::max(layout.width, 220.0), ph = layout.height + header;
  const std::size_t n = std::max<std::size_t>(1, pic.steps.size());
  const std::size_t cols = panel_columns(n, pw);
  const std::size_t rows = (n + cols - 1) / cols;
  const double width = pw * static_cast<double>(cols), height = 44 + ph * static_cast<double>(rows);
  std::ostringstream o;
  o << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << fmt(width) << "\" height=\"" << fmt(height)
    << "\" viewBox=\"0 0 " << fmt(width) << " " << fmt(height)
    << "\" font-family=\"DejaVu Sans, Arial, sans-serif\" data-steps=\"" << pic.steps.size() << "\" data-p=\""
    << pic.p << "\">\n";
  o << "<defs>\n"
       "<marker id=\"copy\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" "
       "orient=\"auto\"><path d=\"M0,1 L10,5 L0,9 z\" fill=\"#1f5fa8\"/></marker>\n"
       "<marker id=\"combine\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" "
       "orient=\"auto\"><path d=\"M0,1 L10,5 L0,9 z\" fill=\"#b35900\"/></marker>\n"
       "</defs>\n";
  o << "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
  o << "<text x=\"" << fmt(width / 2) << "\" y=\"26\" text-anchor=\"middle\" font-size=\"15\">" << escape(title)
    << "</text>\n";

  for (std::size_t k = 0; k < pic.steps.size(); ++k) {
    const Step& step = pic.steps[k];
    const double x0 = pw * static_cast<double>(k % cols), y0 = 44 + ph * static_cast<double>(k / cols);
    o << "<g class=\"step\" data-step=\"" << k << "\" transform=\"translate(" << fmt(x0) << "," << fmt(y0) << ")\">\n";
    o << "<rect x=\"4\" y=\"0\" width=\"" << fmt(pw - 8) << "\" height=\"" << fmt(ph - 8)
      << "\" rx=\"6\" fill=\"#f7f7f7\" stroke=\"#dddddd\"/>\n";
    std::string heading = "step " + std::to_string(k + 1) + ": " + std::to_string(step.messages.size()) +
                          (step.messages.size() == 1 ? " message" : " messages");
    if (step.locals > 0) heading += ", local moves";
    o << "<text x=\"14\" y=\"18\" font-size=\"12\" font-weight=\"bold\">" << escape(heading) << "</text>\n";
    o << "<g transform=\"translate(0," << fmt(header) << ")\">\n";
    // Links.
    for (const auto& [a, b] : links)
      for (const Piece& pc : layout.pieces(a, b))
        o << "<line x1=\"" << fmt(pc.a.x) << "\" y1=\"" << fmt(pc.a.y) << "\" x2=\"" << fmt(pc.b.x) << "\" y2=\""
          << fmt(pc.b.y) << "\" stroke=\"#c8c8c8\" stroke-width=\"1.5\"/>\n";
    // Links carrying two or more messages in this step.
    for (const auto& [link, count] : step.link_load) {
      if (count < 2) continue;
      o << "<g class=\"shared-link\" data-from=\"" << link.first << "\" data-to=\"" << link.second << "\" data-load=\""
        << count << "\">";
      Point mid{};
      for (const Piece& pc : layout.pieces(link.first, link.second)) {
        const Point off = detail::offset_right(pc.a, pc.b, 6);
        o << "<line x1=\"" << fmt(pc.a.x + off.x) << "\" y1=\"" << fmt(pc.a.y + off.y) << "\" x2=\""
          << fmt(pc.b.x + off.x) << "\" y2=\"" << fmt(pc.b.y + off.y)
          << "\" stroke=\"#e03030\" stroke-opacity=\"0.35\" stroke-width=\"9\"/>";
        mid = {(pc.a.x + pc.b.x) / 2 + 2.5 * off.x, (pc.a.y + pc.b.y) / 2 + 2.5 * off.y};
      }
      o << "<text x=\"" << fmt(mid.x) << "\" y=\"" << fmt(mid.y + 4) << "\" font-size=\"11\" fill=\"#c00000\" "
        << "font-weight=\"bold\" text-anchor=\"middle\">×" << count << "</text></g>\n";
    }
    // Nodes.
    for (std::size_t r = 0; r < layout.nodes.size(); ++r) {
      const Point c = layout.nodes[r];
      o << "<circle cx=\"" << fmt(c.x) << "\" cy=\"" << fmt(c.y) << "\" r=\"" << fmt(layout.radius)
        << "\" fill=\"#ffffff\" stroke=\"#333333\" stroke-width=\"1.5\"/>";
      o << "<text x=\"" << fmt(c.x) << "\" y=\"" << fmt(c.y + 4) << "\" font-size=\"12\" text-anchor=\"middle\">"
        << escape(layout.names[r]) << "</text>";
      if (!layout.captions[r].empty())
        o << "<text x=\"" << fmt(c.x) << "\" y=\"" << fmt(c.y + layout.radius + 12)
          << "\" font-size=\"9\" fill=\"#666666\" text-anchor=\"middle\">" << escape(layout.captions[r]) << "</text>";
      o << "\n";
    }
    // Messages: each gets the next free lane on the directed links it crosses, so
    // messages over the same link in the same direction stay apart, and the two ways of
    // a link are on opposite sides.
    std::map<std::pair<std::size_t, std::size_t>, std::size_t> lanes;
    for (const Message& m : step.messages) {
      std::size_t lane = 0;
      for (const Link& l : m.route) lane = std::max(lane, lanes[{l.from, l.to}]);
      for (const Link& l : m.route) lanes[{l.from, l.to}] = lane + 1;
      const auto [d, at] = detail::message_path(layout, m, 4.0 + 5.0 * static_cast<double>(lane));
      const char* colour = m.combines ? "#b35900" : "#1f5fa8";
      o << "<g class=\"message\" data-step=\"" << m.step << "\" data-from=\"" << m.from << "\" data-to=\"" << m.to
        << "\" data-blocks=\"" << m.blocks << "\" data-hops=\"" << m.route.size() << "\" data-load=\"" << m.load
        << "\" data-combines=\"" << (m.combines ? 1 : 0) << "\">";
      o << "<title>" << m.from << " → " << m.to << ": " << escape(m.contents) << "</title>";
      o << "<path d=\"" << d << "\" fill=\"none\" stroke=\"" << colour << "\" stroke-width=\"1.6\" marker-end=\"url(#"
        << (m.combines ? "combine" : "copy") << ")\"/>";
      o << "<text x=\"" << fmt(at.at.x) << "\" y=\"" << fmt(at.at.y) << "\" font-size=\"9.5\" fill=\"" << colour
        << "\" text-anchor=\"" << at.anchor << "\" stroke=\"#ffffff\" stroke-width=\"3\" paint-order=\"stroke\">"
        << escape(m.label) << "</text></g>\n";
    }
    o << "</g>\n</g>\n";
  }
  o << "</svg>\n";
  return o.str();
}

} // namespace collectives::draw
