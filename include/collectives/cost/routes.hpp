#pragma once
// Routes and link loads for the cost estimate (schedule_cost.hpp): the links a message
// crosses, hop by hop, and how many messages (all-port) or sending ranks (one-port) share
// each directed link in one step.
//
// Speed (issue #5: a 4096-node hypercube, 16.7 M messages, well under a second; see
// benchmarks/estimate.cpp): routes on hypercubes and tori are generated from their
// structure (RouteWalker) rather than by next_hop at every hop; with dense link ids, a
// first walk only marks links with the step and source (nothing is cleared between steps)
// to find whether the step shares any link, and only a step that does is walked again to
// count loads and find each route's worst link (in most steps of most schedules no link is
// shared).

#include <collectives/detail/bits.hpp>
#include <collectives/detail/require.hpp>
#include <collectives/detail/recycled.hpp>
#include <collectives/detail/zeroed_array.hpp>
#include <collectives/topology/concepts.hpp>
#include <collectives/topology/hypercube.hpp>
#include <collectives/topology/route.hpp>
#include <collectives/topology/torus.hpp>

#include <algorithm>
#include <array>
#include <compare>
#include <cstddef>
#include <type_traits>
#include <vector>

namespace collectives::detail {

/// require() for the estimate's loops: the message is looked at only when the check fails
/// (require's string_view would measure it on every call, which constant evaluation pays
/// character by character).
constexpr void expect(bool ok, const char* what)
{
  if (!ok) throw_invalid_argument(what);
}

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

/// Walks the route from -> to: f(link) for each directed link in order, where link is the
/// dense id (dense_link) on topologies that have them, else Link{at, next}; returns the
/// number of hops. This generic walker asks next_hop at every hop; the specialisations
/// below produce exactly the same links from the route's known structure, without it.
template <class Topo>
class RouteWalker {
public:
  constexpr explicit RouteWalker(const Topo& t) : topo_(&t) {}
  /// One more than the largest link id walk() gives (topologies with dense links).
  constexpr std::size_t link_count() const { return dense_link_count(*topo_); }
  template <class F>
  constexpr std::size_t walk(std::size_t from, std::size_t to, F&& f) const
  {
    std::size_t hops = 0;
    for (std::size_t at = from; at != to; ++hops) {
      const std::size_t next = topo_->next_hop(at, to);
      expect(next != at, "collectives::estimate: the topology's next_hop makes no progress");
      if constexpr (has_dense_links<Topo>) f(dense_link(*topo_, at, next));
      else f(Link{at, next});
      at = next;
    }
    return hops;
  }

private:
  const Topo* topo_;
};

/// E-cube on a hypercube (Hypercube::next_hop): the differing bits are flipped lowest
/// first; the link from `at` along bit i is Hypercube::link_index, at * ndims + i.
template <std::size_t D>
class RouteWalker<Hypercube<D>> {
public:
  constexpr explicit RouteWalker(const Hypercube<D>& t) : topo_(t) {}
  constexpr std::size_t link_count() const { return topo_.link_count_bound(); }
  template <class F>
  constexpr std::size_t walk(std::size_t from, std::size_t to, F&& f) const
  {
    const std::size_t dims = topo_.ndims();
    std::size_t at = from;
    std::size_t hops = 0;
    for (std::size_t diff = from ^ to; diff != 0; diff &= diff - 1, ++hops) {
      const auto bit = detail::countr_zero(diff);
      f(at * dims + bit);
      at ^= std::size_t{1} << bit;
    }
    return hops;
  }

private:
  Hypercube<D> topo_;
};

/// Dimension-order routing on a torus (ProductTopology::next_hop): dimensions in
/// route_dim order, along each the shorter way round (plus on a tie), so a route is at
/// most one run of hops per dimension; link ids as dense_link gives them.
template <std::size_t... Z>
class RouteWalker<Torus<Z...>> {
  static constexpr std::size_t n_ = sizeof...(Z);
  // Routing starts at the fastest-varying (last) dimension, so the coordinates of a rank
  // come out in routing order by repeated division: one division per dimension.
  static_assert(Torus<Z...>::route_dim(0) == n_ - 1, "collectives::estimate: Torus routing order changed");

public:
  constexpr explicit RouteWalker(const Torus<Z...>& t)
  {
    for (std::size_t i = 0; i < n_; ++i) {
      extent_[i] = t.extent(i);
      stride_[i] = t.stride(i);
    }
    size_ = t.size();
  }
  constexpr std::size_t link_count() const { return size_ * 2 * n_; }
  template <class F>
  constexpr std::size_t walk(std::size_t from, std::size_t to, F&& f) const
  {
    std::size_t at = from;
    std::size_t hops = 0;
    std::size_t rest_from = from, rest_to = to; // the coordinates not yet read
    for (std::size_t k = 0; k < n_; ++k) {
      const std::size_t dim = Torus<Z...>::route_dim(k);
      const std::size_t z = extent_[dim];
      const std::size_t s = stride_[dim];
      // Routing earlier dimensions left this coordinate as it was at `from`.
      std::size_t c = rest_from % z;
      const std::size_t target = rest_to % z;
      rest_from /= z;
      rest_to /= z;
      if (c == target) continue;
      const std::size_t forward = target > c ? target - c : target + z - c;
      const bool plus = forward <= z - forward;
      const std::size_t run = plus ? forward : z - forward;
      // Direction 0 is the plus neighbour; minus is never taken on a ring of two.
      const std::size_t link = 2 * dim + (plus ? 0 : 1);
      for (std::size_t h = 0; h < run; ++h) {
        f(at * 2 * n_ + link);
        if (plus) {
          at = c + 1 == z ? at - c * s : at + s;
          c = c + 1 == z ? 0 : c + 1;
        } else {
          at = c == 0 ? at + (z - 1) * s : at - s;
          c = c == 0 ? z - 1 : c - 1;
        }
      }
      hops += run;
    }
    return hops;
  }

private:
  std::array<std::size_t, n_> extent_{}, stride_{};
  std::size_t size_ = 0;
};

/// Messages per directed link in one step, on a topology with dense link ids. With
/// `distinct_sources`, a link counts each sending rank once (one-port: a rank's messages
/// do not overlap in time).
///
/// Most steps of most schedules share no link, so a step is first walked only to find
/// out whether any link is shared: each link keeps the key step_base + source of the last
/// route over it (step_base grows by p each step, so nothing is cleared between steps,
/// and the walk touches 8 bytes a link and nothing else). Only a step that shares a link
/// is walked again to count the messages on each link (seal) and to find each route's
/// worst link (worst).
template <class Topo>
class DenseLinkLoad {
public:
  constexpr DenseLinkLoad(const Topo& t, bool distinct_sources)
    : walker_(t), distinct_(distinct_sources), p_(t.size())
  {
  }
  constexpr void next_step()
  {
    // Allocated at the first step walked (an estimate that walks none needs none).
    if (keys_.empty()) keys_.zero(walker_.link_count() + 1);
    base_ += p_; // steps x p stays far below 2^64 for any schedule one can walk
    most_ = 0;
    shared_ = false;
  }
  /// Notes the route from -> to of the source numbered `seq` in this step (0, 1, ... in
  /// the order the sources come; a source's routes together, seq < p); returns its hops.
  constexpr std::size_t add_route(std::size_t from, std::size_t to, std::size_t seq)
  {
    const std::size_t key = base_ + seq;
    // A key in [base_, base_ + limit) is a route of this step from an earlier source, or
    // under all-port from any source; the unsigned difference is huge for a key of an
    // earlier step.
    const std::size_t limit = distinct_ ? seq : p_;
    const std::size_t base = base_;
    std::size_t* const keys = keys_.data();
    bool shared = false;
    const std::size_t hops = walker_.walk(from, to, [&](std::size_t id) {
      shared |= keys[id] - base < limit;
      keys[id] = key;
    });
    shared_ = shared_ || shared;
    if (hops > 0 && most_ == 0) most_ = 1;
    return hops;
  }
  /// Call once all of the step's routes are in: counts the loads if a link is shared.
  template <class Messages>
  constexpr void seal(const Messages& messages)
  {
    if (!shared_) return;
    if (counts_.empty()) counts_.zero(keys_.size());
    for (const auto& msg : messages) {
      const std::size_t key = base_ + msg.seq;
      walker_.walk(msg.from, msg.to, [&](std::size_t id) {
        auto& c = counts_[id];
        if (c.base != base_) {
          c = {base_, key, 1};
        } else if (!distinct_ || c.key != key) {
          c.key = key;
          most_ = std::max(most_, ++c.count);
        }
      });
    }
  }
  /// The most messages on any one link in this step (0: no link used).
  constexpr std::size_t most() const { return most_; }
  /// The most messages on any link of the route from -> to of message `msg` (1 at least;
  /// only asked when most() > 1).
  constexpr std::size_t worst(std::size_t /*msg*/, std::size_t from, std::size_t to) const
  {
    std::size_t w = 1;
    if (counts_.empty()) return w;
    walker_.walk(from, to, [&](std::size_t id) { w = std::max(w, counts_[id].count); });
    return w;
  }

private:
  struct Count {
    std::size_t base = 0;  // step_base of the step counted
    std::size_t key = 0;   // step_base + source of the last message counted
    std::size_t count = 0; // messages (or distinct sources) on the link in that step
  };

  RouteWalker<Topo> walker_;
  bool distinct_;
  std::size_t p_;
  ZeroedArray<std::size_t> keys_;
  ZeroedArray<Count> counts_; // allocated at the first shared link
  std::size_t base_ = 0;
  std::size_t most_ = 0;
  bool shared_ = false;
};

/// The same for topologies without dense link ids: each route's links are listed as
/// (from, to, source), and a sorted copy of the step's list gives the loads.
template <class Topo>
class SparseLinkLoad {
public:
  constexpr SparseLinkLoad(const Topo& t, bool distinct_sources) : walker_(t), distinct_(distinct_sources) {}
  constexpr void next_step()
  {
    route_at_.clear();
    route_links_.clear();
    most_ = 0;
  }
  constexpr std::size_t add_route(std::size_t from, std::size_t to, std::size_t /*seq*/)
  {
    route_at_.push_back(route_links_.size());
    return walker_.walk(from, to, [&](Link l) { route_links_.push_back({l.from, l.to, from}); });
  }
  template <class Messages>
  constexpr void seal(const Messages&)
  {
    route_at_.push_back(route_links_.size());
    sorted_ = route_links_;
    std::sort(sorted_.begin(), sorted_.end());
    if (distinct_) sorted_.erase(std::unique(sorted_.begin(), sorted_.end()), sorted_.end());
    // Runs of one link in sorted_: the most messages on a link.
    for (std::size_t i = 0, run = 0; i < sorted_.size(); ++i) {
      const bool same = i > 0 && sorted_[i].from == sorted_[i - 1].from && sorted_[i].to == sorted_[i - 1].to;
      run = same ? run + 1 : 1;
      most_ = std::max(most_, run);
    }
  }
  constexpr std::size_t most() const { return most_; }
  constexpr std::size_t worst(std::size_t msg, std::size_t, std::size_t) const
  {
    std::size_t w = 1;
    for (std::size_t i = route_at_[msg]; i < route_at_[msg + 1]; ++i) {
      const auto& l = route_links_[i];
      const auto lo = std::lower_bound(sorted_.begin(), sorted_.end(), Entry{l.from, l.to, 0});
      const auto hi = std::lower_bound(sorted_.begin(), sorted_.end(), Entry{l.from, l.to + 1, 0});
      w = std::max(w, static_cast<std::size_t>(hi - lo));
    }
    return w;
  }

private:
  // One link of one message's route. A member of the template, so that the sorting below
  // is compiled only for a topology that uses it (a non-dependent element type had every
  // translation unit that includes this header compile std::sort over it).
  struct Entry {
    std::size_t from, to, source;
    constexpr auto operator<=>(const Entry&) const = default;
  };
  RouteWalker<Topo> walker_;
  bool distinct_;
  std::size_t most_ = 0;
  RecycledVector<std::size_t> route_at_; // per message: its first entry in route_links_
  RecycledVector<Entry> route_links_, sorted_;
};

template <class Topo>
using LinkLoad = std::conditional_t<has_dense_links<Topo>, DenseLinkLoad<Topo>, SparseLinkLoad<Topo>>;

} // namespace collectives::detail
