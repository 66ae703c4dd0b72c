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
// shared). On tori a step of long routes is counted by arcs instead (ArcLinkLoad: a route
// there is one arc of one ring per dimension), in time that does not grow with the hops.

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

/// The way a route goes round a ring of z nodes to the node `forward` ahead (mod z): the
/// shorter, plus on a tie. Every count of a ring's arcs follows it (RouteWalker; the
/// symmetric estimate's runs, stars and XOR lines).
constexpr bool ring_plus(std::size_t forward, std::size_t z) { return forward <= z - forward; }
/// The hops that way: the ring distance.
constexpr std::size_t ring_hops(std::size_t forward, std::size_t z)
{
  return ring_plus(forward, z) ? forward : z - forward;
}

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
  constexpr std::size_t extent(std::size_t dim) const { return extent_[dim]; }
  constexpr std::size_t stride(std::size_t dim) const { return stride_[dim]; }
  /// f(dim, plus, c, run, start) for each run of the route from -> to, in routing order:
  /// `run` hops along dimension dim from coordinate c, the plus way or the minus way, on
  /// the ring through node `start` (its node at coordinate 0 along dim); returns the hops.
  template <class F>
  constexpr std::size_t runs(std::size_t from, std::size_t to, F&& f) const
  {
    std::size_t at = from, hops = 0;
    std::size_t rest_from = from, rest_to = to; // the coordinates not yet read
    for (std::size_t k = 0; k < n_; ++k) {
      const std::size_t dim = Torus<Z...>::route_dim(k);
      const std::size_t z = extent_[dim], s = stride_[dim];
      // Routing earlier dimensions left this coordinate as it was at `from`.
      const std::size_t c = rest_from % z, target = rest_to % z;
      rest_from /= z;
      rest_to /= z;
      if (c == target) continue;
      const std::size_t forward = target > c ? target - c : target + z - c;
      const bool plus = ring_plus(forward, z);
      const std::size_t run = ring_hops(forward, z);
      const std::size_t start = at - c * s;
      f(dim, plus, c, run, start);
      at = start + target * s;
      hops += run;
    }
    return hops;
  }
  template <class F>
  constexpr std::size_t walk(std::size_t from, std::size_t to, F&& f) const
  {
    return runs(from, to, [&](std::size_t dim, bool plus, std::size_t c, std::size_t run, std::size_t start) {
      const std::size_t z = extent_[dim], s = stride_[dim];
      // Direction 0 is the plus neighbour; minus is never taken on a ring of two.
      const std::size_t link = 2 * dim + (plus ? 0 : 1);
      std::size_t at = start + c * s;
      for (std::size_t h = 0; h < run; ++h) {
        f(at * 2 * n_ + link);
        if (plus) {
          at = c + 1 == z ? start : at + s;
          c = c + 1 == z ? 0 : c + 1;
        } else {
          at = c == 0 ? start + (z - 1) * s : at - s;
          c = c == 0 ? z - 1 : c - 1;
        }
      }
    });
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

/// An arc of a ring's links, lo .. lo + len - 1 (mod z, len <= z), in a difference array
/// along the ring (link x at diff[x * step]): +1 where it begins, -1 after it ends; an arc
/// that wraps is two. The prefix sums are the loads (ArcLinkLoad, xor_line).
template <class T>
constexpr void add_ring_arc(T* diff, std::size_t step, std::size_t z, std::size_t lo, std::size_t len)
{
  const std::size_t end = lo + len;
  ++diff[lo * step];
  if (end < z) --diff[end * step];
  if (end > z) {
    ++diff[0];
    --diff[(end - z) * step];
  }
}

/// Link loads on a torus, from each route's runs: a route there is at most one run of hops
/// per dimension, an arc of one ring of the torus. A step whose routes average 16 hops or
/// more (a linear broadcast's p - 1 routes on a ring, about p^2 / 4 hops) is counted in
/// time proportional to its arcs and the stretches of the rings they cover: a difference
/// array along each ring, then a sparse table of the loads for each route's worst link.
/// Any other step is walked link by link, as DenseLinkLoad does. The numbers are the same
/// either way. (Why: compile-time select() on Ring<1024> under all-port walked a linear
/// broadcast's step, 262 k hops three times, beyond both compilers' constant-evaluation
/// limits.)
template <class Topo>
class ArcLinkLoad;

template <std::size_t... Z>
class ArcLinkLoad<Torus<Z...>> {
  using Topo = Torus<Z...>;
  static constexpr std::size_t n_ = sizeof...(Z);
  static_assert(Topo::route_dim(0) == n_ - 1, "collectives::estimate: Torus routing order changed");

public:
  /// How a step is counted: by arcs when its routes are long (automatic), or always one way
  /// (the tests compare the two).
  enum class Mode { automatic, links, arcs };

  constexpr ArcLinkLoad(const Topo& t, bool distinct_sources, Mode mode = Mode::automatic)
    : links_(t, distinct_sources), walker_(t), distinct_(distinct_sources), mode_(mode), p_(t.size())
  {
  }
  constexpr void next_step()
  {
    links_.next_step();
    base_ += p_ + 1; // a key base_ + seq + 1 is never 0, a line's "no source"
    deferred<Topo>(touched_).clear();
    hops_ = 0;
    routes_ = 0;
    most_ = 0;
    by_arcs_ = false;
  }
  /// As DenseLinkLoad::add_route; its links are counted when the step is sealed, once its
  /// routes' length says which way.
  constexpr std::size_t add_route(std::size_t from, std::size_t to, std::size_t /*seq*/)
  {
    // Torus::distance, by repeated division as RouteWalker reads coordinates rather than
    // by strides: fewer steps in constant evaluation, where an all-port select<broadcast>
    // on Ring<1024> (one word) is within 1 % of clang++'s limit.
    std::size_t hops = 0, a = from, b = to;
    for (std::size_t k = 0; k < n_; ++k) {
      const std::size_t z = walker_.extent(Topo::route_dim(k)), d = (b % z + z - a % z) % z;
      hops += ring_hops(d, z);
      a /= z;
      b /= z;
    }
    hops_ += hops;
    routes_ += hops != 0 ? 1u : 0u;
    return hops;
  }
  /// Counts the loads: link by link (DenseLinkLoad), or, when the routes average 16 hops
  /// or more, by arcs.
  template <class Messages>
  constexpr void seal(const Messages& messages)
  {
    by_arcs_ = mode_ == Mode::arcs || (mode_ == Mode::automatic && routes_ != 0 && hops_ >= 16 * routes_);
    if (!by_arcs_) {
      for (const auto& msg : messages) links_.add_route(msg.from, msg.to, msg.seq);
      links_.seal(messages);
      return;
    }
    if (lines_.empty()) { // (allocated at the first step counted by arcs)
      lines_.zero(p_ * 2 * n_);
      diff_.zero(p_ * 2 * n_);
      deferred<Topo>(touched_).reserve(p_); // (constant evaluation counts every copy)
    }
    // +1 and -1 where each arc begins and ends, in a difference array along its ring.
    for (const auto& msg : messages) {
      const std::size_t key = base_ + msg.seq + 1;
      for_each_run(msg.from, msg.to, [&](const Run& r, bool plus) {
        Line& line = lines_.data()[r.line];
        const std::size_t end = r.lo + r.len;
        if (line.key != base_) {
          line = Line{base_, r.step, r.z, r.lo, end, false};
          deferred<Topo>(touched_).push_back(r.line);
        }
        line.wraps = line.wraps || end > r.z;
        line.lo = r.lo < line.lo ? r.lo : line.lo;
        line.hi = end > line.hi ? end : line.hi;
        if (!distinct_) {
          add_ring_arc(diff_.data() + r.line, line.step, line.z, r.lo, r.len);
        } else if (line.source != key) {
          // One-port counts a source once per link: its arcs on one ring in one direction
          // all start at its own coordinate there (dimension-order routing), so their
          // union is the longest; the last source's is final when another comes.
          if (line.source != 0) add_ring_arc(diff_.data() + r.line, line.step, line.z, line.arc_lo, line.arc_len);
          line.source = key;
          line.arc_lo = r.lo;
          line.arc_len = r.len;
        } else if (r.len > line.arc_len) {
          if (!plus) line.arc_lo = r.lo; // going minus, the arcs end at the same coordinate
          line.arc_len = r.len;
        }
      });
    }
    for (std::size_t l : touched_) {
      Line& line = lines_[l];
      if (line.source != 0) add_ring_arc(diff_.data() + l, line.step, line.z, line.arc_lo, line.arc_len);
    }
    // The loads along each ring's stretch, then (when a route's worst link will be asked
    // for) the levels of its sparse table: level j, the most over 2^j links from each
    // position (level_at).
    std::size_t size = 0;
    for (std::size_t l : touched_) {
      Line& line = lines_[l];
      line.first = line.wraps ? 0 : line.lo;
      line.count = line.wraps ? line.z : line.hi - line.lo;
      line.table = size;
      size += (floor_log2(line.count) + 1) * line.count;
    }
    if (table_.size() < size) table_.zero(size);
    for (std::size_t l : touched_) {
      const Line& line = lines_[l];
      std::ptrdiff_t* const diff = diff_.data();
      std::size_t* const t = table_.data() + line.table;
      std::ptrdiff_t load = 0;
      std::size_t most = most_;
      for (std::size_t i = 0, at = l + line.first * line.step; i < line.count; ++i, at += line.step) {
        load += diff[at];
        diff[at] = 0;
        t[i] = static_cast<std::size_t>(load);
        most = t[i] > most ? t[i] : most;
      }
      if (line.first + line.count < line.z) diff[l + (line.first + line.count) * line.step] = 0; // the last arc's -1
      most_ = most;
    }
    if (most_ <= 1) return;
    // (Raw pointers and no calls in the loops: constant evaluation counts each call.)
    std::size_t* const table = table_.data();
    for (std::size_t l : touched_) {
      const Line& line = lines_[l];
      for (std::size_t j = 1; (std::size_t{1} << j) <= line.count; ++j) {
        const std::size_t* below = table + level_at(line, j - 1);
        const std::size_t* above = below + (std::size_t{1} << (j - 1));
        std::size_t* at = table + level_at(line, j);
        for (std::size_t* const stop = at + line.count + 1 - (std::size_t{1} << j); at != stop; ++at, ++below, ++above)
          *at = *below < *above ? *above : *below;
      }
    }
  }
  constexpr std::size_t most() const { return by_arcs_ ? most_ : links_.most(); }
  constexpr std::size_t worst(std::size_t msg, std::size_t from, std::size_t to) const
  {
    if (!by_arcs_) return links_.worst(msg, from, to);
    std::size_t w = 1;
    if (most_ <= 1) return w; // (no sparse table)
    for_each_run(from, to, [&](const Run& r, bool) {
      const Line& line = lines_.data()[r.line];
      const std::size_t end = r.lo + r.len;
      most_in(line, r.lo, end < r.z ? end : r.z, w);
      if (end > r.z) most_in(line, 0, end - r.z, w);
    });
    return w;
  }

private:
  /// The arc of links leaving a ring's nodes at coordinates lo .. lo + len - 1 (mod z);
  /// the ring's link at coordinate x is line + x * step.
  struct Run {
    std::size_t line, step, z, lo, len;
  };
  /// A ring (one direction of it) with arcs in this step, by the id of its link at
  /// coordinate 0: the stretch the arcs cover (the whole ring if one wraps), the pending
  /// arc of the last source (one-port), and where its loads are in table_.
  struct Line {
    std::size_t key = 0; // base_ of the step that touched it last
    std::size_t step = 0, z = 0, lo = 0, hi = 0;
    bool wraps = false;
    std::size_t source = 0, arc_lo = 0, arc_len = 0;
    std::size_t first = 0, count = 0, table = 0; // loads of coordinates first .. first + count - 1
  };

  /// f(run, plus) for each run of the route from -> to (RouteWalker::runs).
  template <class F>
  constexpr std::size_t for_each_run(std::size_t from, std::size_t to, F&& f) const
  {
    return walker_.runs(from, to, [&](std::size_t dim, bool plus, std::size_t c, std::size_t run, std::size_t start) {
      const std::size_t z = walker_.extent(dim);
      // The links leave the nodes at coordinates c, c + 1, ... going plus, and c, c - 1,
      // ..., c - run + 1 going minus; link id: node * 2n + 2 dim + direction.
      f(Run{start * 2 * n_ + 2 * dim + (plus ? 0 : 1), walker_.stride(dim) * 2 * n_, z, plus ? c : (c + z - (run - 1)) % z,
            run},
        plus);
    });
  }
  /// Where level j of a line's sparse table starts (level i holds count - 2^i + 1 values).
  static constexpr std::size_t level_at(const Line& l, std::size_t j)
  {
    return l.table + j * (l.count + 1) - ((std::size_t{1} << j) - 1);
  }
  /// w, raised to the most messages on the ring's links at coordinates [a, b) (two looks
  /// in the sparse table).
  constexpr void most_in(const Line& line, std::size_t a, std::size_t b, std::size_t& w) const
  {
    const std::size_t n = b - a, j = floor_log2(n);
    const std::size_t* const level = table_.data() + level_at(line, j) + (a - line.first);
    const std::size_t x = level[0], y = level[n - (std::size_t{1} << j)];
    w = x > w ? x : w;
    w = y > w ? y : w;
  }

  DenseLinkLoad<Topo> links_;
  RouteWalker<Topo> walker_;
  bool distinct_;
  Mode mode_;
  std::size_t p_;
  std::size_t base_ = 0;
  std::size_t hops_ = 0, routes_ = 0; // this step's, routes of at least one hop
  std::size_t most_ = 0;
  bool by_arcs_ = false;
  RecycledVector<std::size_t> touched_; // the lines of this step's arcs
  ZeroedArray<Line> lines_;             // by the id of the ring's link at coordinate 0
  ZeroedArray<std::ptrdiff_t> diff_;    // by link id; zero between steps
  ZeroedArray<std::size_t> table_;      // the loads and sparse tables of this step's lines
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
    constexpr bool operator==(const Entry&) const = default;
    // By hand, not a defaulted <=>: clang 14 warns about the 0 its synthesized comparison
    // categories compare with, under -Wzero-as-null-pointer-constant, in users' builds.
    friend constexpr bool operator<(const Entry& a, const Entry& b)
    {
      if (a.from != b.from) return a.from < b.from;
      if (a.to != b.to) return a.to < b.to;
      return a.source < b.source;
    }
  };
  RouteWalker<Topo> walker_;
  bool distinct_;
  std::size_t most_ = 0;
  RecycledVector<std::size_t> route_at_; // per message: its first entry in route_links_
  RecycledVector<Entry> route_links_, sorted_;
};

template <class Topo>
struct LinkLoadOf {
  using type = std::conditional_t<has_dense_links<Topo>, DenseLinkLoad<Topo>, SparseLinkLoad<Topo>>;
};
template <std::size_t... Z>
struct LinkLoadOf<Torus<Z...>> {
  using type = ArcLinkLoad<Torus<Z...>>;
};

/// The link loads MessageStep counts with: arcs on tori, dense link ids on hypercubes and
/// topologies that give link_index, sorted lists of links otherwise.
template <class Topo>
using LinkLoad = typename LinkLoadOf<Topo>::type;

} // namespace collectives::detail
