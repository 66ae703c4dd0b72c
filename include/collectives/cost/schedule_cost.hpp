#pragma once
// Cost read from the schedule that runs. Per step:
//  - every message is routed over the topology (its next_hop), hop by hop;
//  - messages that use the same directed link in the same step share its bandwidth: the
//    t_w term of a message is multiplied by the most messages on any link of its route.
//    Under one-port a rank's own messages go out one after another, so they never meet on
//    a link: there a link's load counts the distinct ranks sending over it;
//  - one-port: a rank's sends serialise, and so do its receives (a send and a receive
//    overlap); all-port: a rank's messages all proceed at once;
//  - a rank's local operations run after its exchanges (schedule.hpp) and cost t_r per
//    word moved or combined, and so does combining a received message into place (a
//    receive with Combine::left/right: a pass over the words like a local combine); a
//    rank's step time is its exchange time plus this local time;
//  - the step takes as long as its slowest rank, and the steps add up.
// The same code runs in constant evaluation (static_assert on small static topologies)
// and at run time. The seeds' closed forms (closed_forms.hpp) are tests of it.

#include <collectives/cost/model.hpp>
#include <collectives/detail/require.hpp>
#include <collectives/schedule/schedule.hpp>
#include <collectives/topology/concepts.hpp>

#include <algorithm>
#include <cstddef>
#include <limits>
#include <tuple>
#include <utility>
#include <vector>

namespace collectives {

/// A schedule's predicted time and what it meets on the way.
struct CostReport {
  double time = 0;            ///< predicted time
  std::size_t steps = 0;      ///< steps with at least one message
  std::size_t messages = 0;   ///< messages sent, over all ranks and steps
  std::size_t congestion = 0; ///< most messages sharing one directed link in one step (0: no message)
  double words = 0;           ///< words sent, over all ranks and steps
};

/// The largest block size estimate() accepts, in words (a guard against overflow to inf).
inline constexpr double max_block_words = 1e15;

namespace detail {

/// Dense ids of directed links for topologies that have them: a topology's own
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

inline constexpr std::size_t no_rank = std::numeric_limits<std::size_t>::max();

/// Messages per directed link in one step, and each message's route as a list of links
/// (so every route is walked once per step). With `distinct_sources`, a link counts each
/// sending rank once (one-port: a rank's messages do not overlap in time).
template <class Topo>
class LinkLoad {
public:
  constexpr LinkLoad(const Topo& t, bool distinct_sources) : topo_(&t), distinct_(distinct_sources)
  {
    if constexpr (has_dense_links<Topo>) {
      counts_.assign(dense_link_count(t), 0);
      last_source_.assign(counts_.size(), no_rank);
    }
  }
  constexpr void clear()
  {
    if constexpr (has_dense_links<Topo>) {
      for (auto id : route_ids_) {
        counts_[id] = 0;
        last_source_[id] = no_rank;
      }
    }
    route_ids_.clear();
    route_links_.clear();
    sorted_.clear();
  }
  /// Records the route from -> to (routes must be added source by source, in any order
  /// of sources but with each source's routes together); returns its first index.
  constexpr std::size_t add_route(std::size_t from, std::size_t to)
  {
    const std::size_t first = end();
    for (std::size_t at = from; at != to;) {
      const std::size_t next = topo_->next_hop(at, to);
      detail::require(next != at, "collectives::estimate: the topology's next_hop makes no progress");
      if constexpr (has_dense_links<Topo>) {
        const auto id = dense_link(*topo_, at, next);
        if (!distinct_ || last_source_[id] != from) ++counts_[id];
        last_source_[id] = from;
        route_ids_.push_back(id);
      } else {
        route_links_.push_back({at, next, from});
      }
      at = next;
    }
    return first;
  }
  /// Call once all of the step's routes are in.
  constexpr void seal()
  {
    if constexpr (!has_dense_links<Topo>) {
      sorted_ = route_links_;
      std::sort(sorted_.begin(), sorted_.end());
      if (distinct_) sorted_.erase(std::unique(sorted_.begin(), sorted_.end()), sorted_.end());
    }
  }
  /// The most messages on any link of the route stored at [first, last) (1 at least).
  constexpr std::size_t worst(std::size_t first, std::size_t last) const
  {
    std::size_t w = 1;
    for (std::size_t i = first; i < last; ++i) {
      if constexpr (has_dense_links<Topo>) {
        w = std::max(w, counts_[route_ids_[i]]);
      } else {
        const auto& l = route_links_[i];
        const auto lo = std::lower_bound(sorted_.begin(), sorted_.end(), std::tuple{std::get<0>(l), std::get<1>(l), std::size_t{0}});
        const auto hi = std::lower_bound(sorted_.begin(), sorted_.end(), std::tuple{std::get<0>(l), std::get<1>(l) + 1, std::size_t{0}});
        w = std::max(w, static_cast<std::size_t>(hi - lo));
      }
    }
    return w;
  }
  constexpr std::size_t end() const { return has_dense_links<Topo> ? route_ids_.size() : route_links_.size(); }

private:
  const Topo* topo_;
  bool distinct_;
  std::vector<std::size_t> counts_, last_source_, route_ids_;
  // (from, to, source) per link of a route, for topologies without dense link ids.
  std::vector<std::tuple<std::size_t, std::size_t, std::size_t>> route_links_, sorted_;
};

struct CostVisitor {
  std::vector<SendOp> sends;
  std::size_t local_blocks = 0;
  constexpr void send(const SendOp& op) { sends.push_back(op); }
  constexpr void recv(const RecvOp& op)
  {
    if (op.combine != Combine::copy) local_blocks += op.blocks.count;
  }
  constexpr void local(const LocalOp& op) { local_blocks += op.from.count; }
};

} // namespace detail

/// Predicted time of schedule s run on topology `topo` (the same size; the schedule's
/// ranks are the topology's nodes) under `model`, for blocks of `m` words (a chunked
/// schedule's blocks are its pieces: pass the piece size). See the top of this header for
/// the rules. Requirements: model valid (CostModel::validated), 0 <= m <= max_block_words,
/// s.size() == topo.size(); std::invalid_argument otherwise (a compile error in constant
/// evaluation). Cost: O(steps x messages x hops) time, O(p + links) memory; no O(p^2).
template <schedule S, topology T>
constexpr CostReport estimate(const S& s, const T& topo, const CostModel& model, double m)
{
  model.validated();
  detail::require(m >= 0 && m <= max_block_words,
                  "collectives::estimate: m (words per block) must be finite, non-negative and at most 1e15");
  detail::require(s.size() == topo.size(), "collectives::estimate: the schedule and the topology differ in size");
  CostReport report;
  const std::size_t p = s.size();
  const bool one_port = model.ports == Ports::one;
  detail::LinkLoad<T> load(topo, one_port);
  std::vector<detail::CostVisitor> ranks(p);
  std::vector<std::size_t> route_at; // per message of the step: first link in the list
  std::vector<double> send_busy(p, 0.0), recv_busy(p, 0.0);
  for (std::size_t k = 0; k < s.num_steps(); ++k) {
    load.clear();
    route_at.clear();
    for (std::size_t r = 0; r < p; ++r) {
      ranks[r].sends.clear();
      ranks[r].local_blocks = 0;
      s.visit(r, k, ranks[r]);
      for (const auto& op : ranks[r].sends) {
        detail::require(op.peer < p, "collectives::estimate: a schedule sends to a rank out of range");
        route_at.push_back(load.add_route(r, op.peer));
      }
    }
    route_at.push_back(load.end());
    load.seal();
    std::fill(send_busy.begin(), send_busy.end(), 0.0);
    std::fill(recv_busy.begin(), recv_busy.end(), 0.0);
    std::size_t msg = 0;
    for (std::size_t r = 0; r < p; ++r) {
      for (const auto& op : ranks[r].sends) {
        const std::size_t hops = route_at[msg + 1] - route_at[msg];
        const std::size_t worst = load.worst(route_at[msg], route_at[msg + 1]);
        ++msg;
        const double words = static_cast<double>(op.blocks.count) * m;
        const double t = message_time(model, words * static_cast<double>(worst), static_cast<double>(hops));
        report.messages += 1;
        report.words += words;
        if (hops > 0) report.congestion = std::max(report.congestion, worst);
        if (one_port) {
          send_busy[r] += t;
          recv_busy[op.peer] += t;
        } else {
          send_busy[r] = std::max(send_busy[r], t);
          recv_busy[op.peer] = std::max(recv_busy[op.peer], t);
        }
      }
    }
    double step = 0;
    for (std::size_t r = 0; r < p; ++r) {
      const double local = model.t_r * static_cast<double>(ranks[r].local_blocks) * m;
      step = std::max(step, std::max(send_busy[r], recv_busy[r]) + local);
    }
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
