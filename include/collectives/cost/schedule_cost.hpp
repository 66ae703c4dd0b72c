#pragma once
// Cost read from the schedule that runs: per step, every message is routed over the
// topology; messages that share a directed link in the same step share its bandwidth
// (they serialise: the t_w term of each is multiplied by the most messages on any link of
// its route); one-port ranks send (and receive) a step's messages one after another; the
// step takes as long as its slowest rank; locals cost t_r per word moved. The same code
// runs in constant evaluation (static_assert on small static topologies) and at run time.

#include <collectives/cost/model.hpp>
#include <collectives/schedule/schedule.hpp>
#include <collectives/topology/concepts.hpp>

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

namespace collectives {

/// A schedule's predicted time and the congestion it meets.
struct CostReport {
  double time = 0;              ///< predicted time
  std::size_t steps = 0;        ///< steps with at least one message
  std::size_t messages = 0;     ///< messages sent, over all ranks and steps
  std::size_t congestion = 0;   ///< most messages sharing one directed link in one step
  double words = 0;             ///< words sent, over all ranks and steps
};

namespace detail {

/// Dense ids of directed links for topologies that have them: a hypercube's own
/// link_index, or node * 2 * ndims + 2 * dim + direction on a product of rings.
template <class Topo>
constexpr bool has_dense_links = product_topology<Topo> || requires(const Topo& t) { t.link_index(0, 1); };

template <class Topo>
constexpr std::size_t dense_link_count(const Topo& t)
{
  if constexpr (requires { t.link_count_bound(); }) return t.link_count_bound();
  else return t.size() * 2 * t.ndims();
}

template <class Topo>
constexpr std::size_t dense_link(const Topo& t, std::size_t from, std::size_t to)
{
  if constexpr (requires { t.link_index(from, to); }) {
    return t.link_index(from, to);
  } else {
    for (std::size_t d = 0; d < t.ndims(); ++d) {
      if (t.coord(from, d) == t.coord(to, d)) continue;
      return from * 2 * t.ndims() + 2 * d + (t.shift_along(from, d, 1) == to ? 0 : 1);
    }
    return from * 2 * t.ndims();
  }
}

/// Messages per directed link in one step, and each message's route as link ids (so
/// every route is walked once per step).
template <class Topo>
class LinkLoad {
public:
  constexpr explicit LinkLoad(const Topo& t) : topo_(&t)
  {
    if constexpr (has_dense_links<Topo>) counts_.assign(dense_link_count(t), 0);
  }
  constexpr void clear()
  {
    if constexpr (has_dense_links<Topo>)
      for (auto id : route_ids_) counts_[id] = 0;
    route_ids_.clear();
    route_links_.clear();
    sorted_.clear();
  }
  /// Records the route from -> to; returns its first index in the route list.
  constexpr std::size_t add_route(std::size_t from, std::size_t to)
  {
    const std::size_t first = has_dense_links<Topo> ? route_ids_.size() : route_links_.size();
    for (std::size_t at = from; at != to;) {
      const std::size_t next = topo_->next_hop(at, to);
      if constexpr (has_dense_links<Topo>) {
        const auto id = dense_link(*topo_, at, next);
        ++counts_[id];
        route_ids_.push_back(id);
      } else {
        route_links_.push_back({at, next});
      }
      at = next;
    }
    return first;
  }
  constexpr void seal()
  {
    if constexpr (!has_dense_links<Topo>) {
      sorted_ = route_links_;
      std::sort(sorted_.begin(), sorted_.end());
    }
  }
  /// The most messages on any link of the route stored at [first, last).
  constexpr std::size_t worst(std::size_t first, std::size_t last) const
  {
    std::size_t w = 1;
    for (std::size_t i = first; i < last; ++i) {
      if constexpr (has_dense_links<Topo>) {
        w = std::max(w, counts_[route_ids_[i]]);
      } else {
        const auto range = std::equal_range(sorted_.begin(), sorted_.end(), route_links_[i]);
        w = std::max(w, static_cast<std::size_t>(range.second - range.first));
      }
    }
    return w;
  }
  constexpr std::size_t end() const { return has_dense_links<Topo> ? route_ids_.size() : route_links_.size(); }

private:
  const Topo* topo_;
  std::vector<std::size_t> counts_, route_ids_;
  std::vector<std::pair<std::size_t, std::size_t>> route_links_, sorted_;
};

struct CostVisitor {
  std::vector<SendOp> sends;
  std::size_t local_blocks = 0;
  constexpr void send(const SendOp& op) { sends.push_back(op); }
  constexpr void recv(const RecvOp&) {}
  constexpr void local(const LocalOp& op) { local_blocks += op.from.count; }
};

} // namespace detail

/// Predicted time of schedule s on topology `topo` (same size) under `model`, for blocks
/// of `m` words. O(steps x messages x hops); no O(p^2) memory.
template <schedule S, topology T>
constexpr CostReport estimate(const S& s, const T& topo, const CostModel& model, double m)
{
  model.validated();
  detail::require(m >= 0 && m <= 1e300, "collectives::estimate: m must be finite and non-negative");
  detail::require(s.size() == topo.size(), "collectives::estimate: the schedule and the topology differ in size");
  CostReport report;
  const std::size_t p = s.size();
  detail::LinkLoad<T> load(topo);
  std::vector<detail::CostVisitor> ranks(p);
  std::vector<std::size_t> route_at;   // per message of the step: first link in the list
  std::vector<double> recv_busy(p, 0.0);
  for (std::size_t k = 0; k < s.num_steps(); ++k) {
    load.clear();
    route_at.clear();
    for (std::size_t r = 0; r < p; ++r) {
      ranks[r].sends.clear();
      ranks[r].local_blocks = 0;
      s.visit(r, k, ranks[r]);
      for (const auto& op : ranks[r].sends) route_at.push_back(load.add_route(r, op.peer));
    }
    route_at.push_back(load.end());
    load.seal();
    double step = 0;
    std::fill(recv_busy.begin(), recv_busy.end(), 0.0);
    std::size_t msg = 0;
    for (std::size_t r = 0; r < p; ++r) {
      double send_busy = 0;
      for (const auto& op : ranks[r].sends) {
        const std::size_t hops = route_at[msg + 1] - route_at[msg];
        const std::size_t worst = load.worst(route_at[msg], route_at[msg + 1]);
        ++msg;
        const double words = static_cast<double>(op.blocks.count) * m;
        const double t = message_time(model, words * static_cast<double>(worst), static_cast<double>(hops));
        report.messages += 1;
        report.words += words;
        report.congestion = std::max(report.congestion, worst);
        if (model.ports == Ports::one) {
          send_busy += t;
          recv_busy[op.peer] += t;
        } else {
          step = std::max(step, t);
        }
      }
      step = std::max(step, send_busy);
      step = std::max(step, model.t_r * static_cast<double>(ranks[r].local_blocks) * m);
    }
    for (double t : recv_busy) step = std::max(step, t);
    report.time += step;
    report.steps += msg > 0 ? 1 : 0;
  }
  return report;
}

/// Just the time: estimate(s, topo, model, m).time.
template <schedule S, topology T>
constexpr double predicted_time(const S& s, const T& topo, const CostModel& model, double m)
{
  return estimate(s, topo, model, m).time;
}

} // namespace collectives
