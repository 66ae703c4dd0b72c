#pragma once
// Scatter straight from the root: one step, any p (Open MPI's basic_linear).

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/schedule/operation.hpp>
#include <collectives/schedule/pattern.hpp>
#include <collectives/schedule/schedule.hpp>
#include <collectives/topology/concepts.hpp>

#include <cstddef>

namespace collectives {

/// In one step the root sends every other rank its block straight from its input (ranks
/// root + 1, root + 2, ... in that order) and copies its own. Any p; no scratch, and no
/// block is copied twice. Cost (one-port): (p - 1)(t_s + t_w m) plus hops: p - 1 start-ups
/// where a tree pays log p, but where ranks share cores or a memory system (lanes,
/// half_duplex) the m (p - 1) words move once instead of once per tree level.
class ScatterLinearSchedule {
public:
  constexpr ScatterLinearSchedule(std::size_t p, std::size_t root) : p_(p), root_(root) {}
  constexpr std::size_t size() const { return p_; }
  constexpr std::size_t num_steps() const { return 1; }
  constexpr std::size_t scratch_blocks() const { return 0; }
  /// The root: it has p - 1 messages, every other rank one.
  constexpr std::size_t busiest_rank(std::size_t) const { return root_; }
  /// The one step, stated whole (Symmetry::Star).
  constexpr Symmetry symmetry(std::size_t) const { return Symmetry::fan_out(p_, root_, 1, 1); }
  constexpr ScatterOp operation() const { return {p_, root_}; }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t, V& v) const
  {
    if (r != root_) {
      v.recv({root_, contiguous(Buffer::output, 0, 1)});
      return;
    }
    for (std::size_t d = 1; d < p_; ++d) {
      const std::size_t to = root_ + d < p_ ? root_ + d : root_ + d - p_;
      v.send({to, contiguous(Buffer::input, to, 1)});
    }
    v.local({contiguous(Buffer::input, root_, 1), contiguous(Buffer::output, 0, 1)});
  }

  friend constexpr bool operator==(const ScatterLinearSchedule&, const ScatterLinearSchedule&) = default;

private:
  std::size_t p_;
  std::size_t root_;
};

namespace scatter_algorithm {
/// The root sends every block itself, one step; any p (Open MPI's basic_linear).
struct Linear : AlgorithmBase<Collective::scatter> {
  static constexpr const char* name = "linear";
  template <topology T>
  static constexpr auto schedule(const T& t, const Problem& pr) { return ScatterLinearSchedule(t.size(), pr.root); }
};
inline constexpr Linear linear{};
} // namespace scatter_algorithm

} // namespace collectives
