#pragma once
// From a collective, an algorithm name, a topology and a problem to what collectives-draw
// prints: the picture of the schedule the front end runs (through tools/registry.hpp),
// the layout, the links and a title.

#include "../registry.hpp"
#include "layout.hpp"
#include "picture.hpp"
#include "svg.hpp"
#include "text.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace collectives::draw {

/// Everything one drawing needs.
struct Drawing {
  Picture picture;
  Layout layout;
  std::vector<std::pair<std::size_t, std::size_t>> links;
  std::string title;

  std::string svg() const { return draw::svg(picture, layout, links, title); }
  std::string text() const { return draw::text(picture, title); }
};

/// The drawing of algorithm `algorithm` of collective C on `topo` for `problem`, or
/// nullopt when C has no such algorithm that fits (see tools::fitting_names).
template <Collective C, topology T>
std::optional<Drawing> drawing(std::string_view algorithm, const T& topo, const Problem& problem,
                               const std::string& topology_label)
{
  std::optional<Drawing> out;
  tools::with_algorithm<C>(algorithm, topo, problem, [&](auto tag) {
    Drawing d;
    RecordedSchedule rec;
    tools::with_schedule_of<C>(tag, topo, problem, [&](const auto& s) { rec = record(s); });
    d.picture = picture_of(rec, router_of(topo));
    d.layout = layout_of(topo);
    d.links = links_of(topo);
    d.title = tools::call_name<C>(problem) + ", " + decltype(tag)::name + ", on a " + topology_label;
    if constexpr (C == Collective::broadcast || C == Collective::reduce || C == Collective::scatter ||
                  C == Collective::gather)
      d.title += " (root " + std::to_string(problem.root) + ")";
    if (C == Collective::shift) d.title += " (q = " + std::to_string(problem.q) + ")";
    out = std::move(d);
  });
  return out;
}

} // namespace collectives::draw
