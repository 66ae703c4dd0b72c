#pragma once
// Broadcast along the ring, store-and-forward, both ways from the root.

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/schedule/operation.hpp>
#include <collectives/schedule/pattern.hpp>
#include <collectives/schedule/schedule.hpp>
#include <collectives/topology/concepts.hpp>

#include <cstddef>

namespace collectives {

/// Store-and-forward ring broadcast: the root sends both ways and each rank passes the
/// data on, floor(p/2) steps. Cost: (t_s + t_w m) floor(p/2) with all ports; with one port
/// (p >= 3) the root's two first sends take turns: (t_s + t_w m) (floor(p/2) + 1).
class BroadcastRingSchedule {
public:
  constexpr BroadcastRingSchedule(std::size_t p, std::size_t root, std::size_t blocks = 1)
    : p_(p), root_(root), blocks_(blocks) {}
  constexpr std::size_t size() const { return p_; }
  /// Ranks reached going up (root + 1 ..) and going down.
  constexpr std::size_t up() const { return p_ / 2; }
  constexpr std::size_t down() const { return p_ > 0 ? (p_ - 1) / 2 : 0; }
  constexpr std::size_t num_steps() const { return up() > 0 ? up() : 1; }
  /// In every step the front going up passes the data on (schedule.hpp).
  constexpr std::size_t blocks_every_step() const { return up() > 0 ? blocks_ : 0; }
  constexpr std::size_t scratch_blocks() const { return 0; }
  constexpr BroadcastOp operation() const { return {p_, root_, blocks_}; }
  /// Step s involves the ranks s and s + 1 places either way from the root only.
  constexpr Symmetry symmetry(std::size_t step) const
  {
    const std::size_t p = p_, r = root_ % p, s = step % p;
    const std::size_t a = (r + s) % p, b = (a + 1) % p, c = (r + p - s) % p, d = (c + p - 1) % p;
    const RankGroup g = RankGroup::cyclic(p);
    if (a != b && a != c && a != d && b != c && b != d && c != d) // (most steps: in one expression)
      return Symmetry::of(g, RankClass::only(a), RankClass::only(b), RankClass::only(c), RankClass::only(d));
    return Symmetry::in(g).with_rank(a).with_rank(b).with_rank(c).with_rank(d);
  }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t step, V& v) const
  {
    if (p_ == 1) return;
    const std::size_t rel = (r + p_ - root_) % p_;
    const Pattern all = contiguous(Buffer::output, 0, blocks_);
    const std::size_t next = (r + 1) % p_, prev = (r + p_ - 1) % p_;
    // Going up: relative ranks 0..up() in order; going down: 0, p-1, ..., p-down().
    if (rel == step && step + 1 <= up()) v.send({next, all});
    if (rel == step + 1 && rel <= up()) v.recv({prev, all});
    const std::size_t drel = (p_ - rel) % p_; // distance going down
    if (drel == step && step + 1 <= down()) v.send({prev, all});
    if (drel == step + 1 && drel <= down() && rel > up()) v.recv({next, all});
  }

  friend constexpr bool operator==(const BroadcastRingSchedule&, const BroadcastRingSchedule&) = default;

private:
  std::size_t p_;
  std::size_t root_;
  std::size_t blocks_;
};

namespace broadcast_algorithm {
/// Along the ring, store-and-forward both ways; any p.
struct Ring : AlgorithmBase<Collective::broadcast> {
  static constexpr const char* name = "ring";
  template <topology T>
  static constexpr auto schedule(const T& t, const Problem& pr) { return BroadcastRingSchedule(t.size(), pr.root); }
};
inline constexpr Ring ring{};
} // namespace broadcast_algorithm

} // namespace collectives
