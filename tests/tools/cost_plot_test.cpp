// collectives-cost --svg: well-formed; lines that coincide keep apart (their own dash
// pattern, and "= earlier" in the legend); the band of selected algorithms is what
// select() picks over each size range.

#include "../../tools/cost_plot.hpp"
#include "xml.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <string>
#include <vector>

namespace {

using namespace collectives;
namespace xml = collectives::testing::xml;

template <Collective C, class Topo>
void check_panel(const Topo& topo, const CostModel& model, const Problem& problem)
{
  const double lo = 1, hi = 1e7;
  const auto panel = tools::make_panel<C>(topo, model, problem, lo, hi, "words");
  const auto doc = xml::parse(tools::cost_svg("test", {panel}));
  struct Line {
    std::string same_as, dash, points;
  };
  std::map<std::string, Line> lines;
  std::vector<std::string> order;
  std::size_t ranges = 0;
  double covered_to = lo;
  doc->walk([&](const xml::Element& e) {
    if (!e.has("class")) return;
    if (e.at("class") == "series") {
      const std::string dash = e.has("stroke-dasharray") ? e.at("stroke-dasharray") : "";
      lines[e.at("data-algorithm")] = Line{e.at("data-same-as"), dash, e.at("points")};
      order.push_back(e.at("data-algorithm"));
    } else if (e.at("class") == "selected") {
      ++ranges;
      const double from = std::stod(e.at("data-from")), to = std::stod(e.at("data-to"));
      CHECK(from == Approx(covered_to).epsilon(1e-5)); // ranges tile [lo, hi]
      covered_to = to;
      Problem pr = problem;
      pr.m = std::sqrt(from * to);
      // select()'s pick, or one tied with it (tools::tied_at: not a crossover)
      const std::string shown = e.at("data-algorithm");
      const std::string picked(tools::selected<C>(topo, model, pr).name);
      CHECK((shown == picked || tools::tied_at<C>(topo, model, pr, pr.m, shown, picked)));
    }
  });
  CHECK(covered_to == Approx(hi).epsilon(1e-5));
  CHECK(ranges == panel.crossovers.size() + 1);
  // Two lines with the same points: the later says which it equals, and they are dashed
  // differently; every note names a line with the same points.
  std::map<std::string, std::size_t> dash_seen;
  for (std::size_t i = 0; i < order.size(); ++i) {
    const Line& li = lines[order[i]];
    ++dash_seen[li.dash];
    for (std::size_t j = 0; j < i; ++j) {
      const Line& lj = lines[order[j]];
      if (li.points == lj.points && lj.same_as.empty()) {
        CHECK(li.same_as == order[j]);
        break;
      }
    }
    if (!li.same_as.empty()) CHECK(lines[li.same_as].points == li.points);
  }
  for (const auto& [dash, n] : dash_seen) CHECK(n == 1);
}

} // namespace

TEST_CASE("cost plot: two algorithms of one formula are tied, never a crossover", "[tools][cost]")
{
  // On a fully connected network linear and pairwise all-to-all cost the same sum in
  // another order: their estimates differ by rounding, and select()'s pick flips between
  // them (it flipped 12 times in [1, 1e7] words here).
  const CostModel model{.t_s = 2e-6, .t_w = 1e-9, .t_h = 5e-8, .t_r = 1e-10};
  const FullyConnected<> full(5);
  const auto cross = tools::crossings<Collective::alltoall>(full, model, Problem{}, 1, 1e7);
  for (const auto& c : cross) {
    INFO(c.from << " -> " << c.to << " at m = " << c.m);
    CHECK_FALSE(((c.from == "linear" && c.to == "pairwise") || (c.from == "pairwise" && c.to == "linear")));
  }
  CHECK(cross.size() <= 2);
  check_panel<Collective::alltoall>(full, model, Problem{});
}

TEST_CASE("cost plot: coinciding lines are told apart and the selection is marked", "[tools][cost]")
{
  const CostModel model{.t_s = 2e-6, .t_w = 1e-9, .t_h = 5e-8, .t_r = 1e-10};
  // On a ring the hypercube and dimensional trees are the binomial tree (same lines).
  check_panel<Collective::broadcast>(Ring<>{8}, model, Problem{});
  check_panel<Collective::allgather>(Ring<>{8}, model, Problem{});
  check_panel<Collective::alltoall>(Hypercube<>::of_dims(3), model, Problem{});
  check_panel<Collective::allreduce>(Mesh<>{4, 4}, model, Problem{});
  // The broadcast panel on a ring does have a coinciding pair.
  const auto panel = tools::make_panel<Collective::broadcast>(Ring<>{8}, model, Problem{}, 1, 1e7, "words");
  bool noted = false;
  for (const auto& s : panel.series) noted = noted || !s.same_as.empty();
  CHECK(noted);
}

TEST_CASE("cost plot: a barrier carries no data, whatever size the tools sweep", "[tools][cost]")
{
  // barrier(comm) selects with m = 0 (Problem): the tools price and pick it so, at every
  // size of their sweep (they priced 1024 words and picked allreduce on Ring<8>).
  const CostModel model{.t_s = 2e-6, .t_w = 1e-9, .t_h = 5e-8, .t_r = 1e-10};
  const Ring<> ring(8);
  const std::string picked(select<Collective::barrier>(ring, model, Problem{}).name);
  const auto none = tools::evaluate_all<Collective::barrier>(ring, model, Problem{}, 0);
  const auto swept = tools::evaluate_all<Collective::barrier>(ring, model, Problem{}, 1024);
  REQUIRE(none.size() == swept.size());
  for (std::size_t i = 0; i < none.size(); ++i) CHECK(swept[i].second.time == none[i].second.time);
  CHECK(tools::crossings<Collective::barrier>(ring, model, Problem{}, 1, 1e7).empty());
  const auto panel = tools::make_panel<Collective::barrier>(ring, model, Problem{}, 1, 1e7, "words");
  REQUIRE(panel.selected.size() == 1);
  CHECK(panel.selected[0].name == picked);
  check_panel<Collective::barrier>(ring, model, Problem{});
}
