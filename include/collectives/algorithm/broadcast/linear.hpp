#pragma once
// Broadcast straight from the root: one step, any p (Open MPI's basic_linear).

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/schedule/operation.hpp>
#include <collectives/schedule/pattern.hpp>
#include <collectives/schedule/schedule.hpp>
#include <collectives/topology/concepts.hpp>

#include <cstddef>

namespace collectives {

/// In one step the root sends the whole vector to every other rank itself (ranks root + 1,
/// root + 2, ... in that order). Any p. Cost (one-port): (p - 1)(t_s + t_w m) plus hops:
/// p - 1 start-ups where a tree pays log p, and the root's words p - 1 times; where ranks
/// share cores (lanes, t_sync) the tree's log p waits for partners cost more than that.
class BroadcastLinearSchedule {
public:
  constexpr BroadcastLinearSchedule(std::size_t p, std::size_t root, std::size_t blocks = 1)
    : p_(p), root_(root), blocks_(blocks) {}
  constexpr std::size_t size() const { return p_; }
  constexpr std::size_t num_steps() const { return 1; }
  constexpr std::size_t scratch_blocks() const { return 0; }
  constexpr BroadcastOp operation() const { return {p_, root_, blocks_}; }
  /// The root: it has p - 1 messages, every other rank one.
  constexpr std::size_t busiest_rank(std::size_t) const { return root_; }
  /// The one step, stated whole (Symmetry::Star).
  constexpr Symmetry symmetry(std::size_t) const { return Symmetry::fan_out(p_, root_, blocks_, 0); }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t, V& v) const
  {
    const Pattern all = contiguous(Buffer::output, 0, blocks_);
    if (r != root_) {
      v.recv({root_, all});
      return;
    }
    for (std::size_t d = 1; d < p_; ++d) v.send({root_ + d < p_ ? root_ + d : root_ + d - p_, all});
  }

  friend constexpr bool operator==(const BroadcastLinearSchedule&, const BroadcastLinearSchedule&) = default;

private:
  std::size_t p_;
  std::size_t root_;
  std::size_t blocks_;
};

namespace broadcast_algorithm {
/// The root sends the vector to every rank itself, one step; any p (Open MPI's
/// basic_linear).
struct Linear : AlgorithmBase<Collective::broadcast> {
  static constexpr const char* name = "linear";
  template <topology T>
  static constexpr auto schedule(const T& t, const Problem& pr) { return BroadcastLinearSchedule(t.size(), pr.root); }
};
inline constexpr Linear linear{};
} // namespace broadcast_algorithm

} // namespace collectives
