#pragma once
// Gather straight to the root: one step, any p (Open MPI's basic_linear).

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/schedule/operation.hpp>
#include <collectives/schedule/pattern.hpp>
#include <collectives/schedule/schedule.hpp>
#include <collectives/topology/concepts.hpp>

#include <cstddef>

namespace collectives {

/// The dual of ScatterLinearSchedule: in one step every other rank sends its block straight
/// into the root's output, and the root copies its own. Any p; no scratch. Cost
/// (one-port): (p - 1)(t_s + t_w m) plus hops.
class GatherLinearSchedule {
public:
  constexpr GatherLinearSchedule(std::size_t p, std::size_t root) : p_(p), root_(root) {}
  constexpr std::size_t size() const { return p_; }
  constexpr std::size_t num_steps() const { return 1; }
  constexpr std::size_t scratch_blocks() const { return 0; }
  /// The root: it has p - 1 messages, every other rank one.
  constexpr std::size_t busiest_rank(std::size_t) const { return root_; }
  /// The one step, stated whole (Symmetry::Star).
  constexpr Symmetry symmetry(std::size_t) const { return Symmetry::fan_in(p_, root_, 1, 1); }
  constexpr GatherOp operation() const { return {p_, root_}; }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t, V& v) const
  {
    if (r != root_) {
      v.send({root_, contiguous(Buffer::input, 0, 1)});
      return;
    }
    for (std::size_t d = 1; d < p_; ++d) {
      const std::size_t from = root_ + d < p_ ? root_ + d : root_ + d - p_;
      v.recv({from, contiguous(Buffer::output, from, 1)});
    }
    v.local({contiguous(Buffer::input, 0, 1), contiguous(Buffer::output, root_, 1)});
  }

  friend constexpr bool operator==(const GatherLinearSchedule&, const GatherLinearSchedule&) = default;

private:
  std::size_t p_;
  std::size_t root_;
};

namespace gather_algorithm {
/// Every rank sends its block to the root itself, one step; any p (Open MPI's
/// basic_linear).
struct Linear : AlgorithmBase<Collective::gather> {
  static constexpr const char* name = "linear";
  template <topology T>
  static constexpr auto schedule(const T& t, const Problem& pr) { return GatherLinearSchedule(t.size(), pr.root); }
};
inline constexpr Linear linear{};
} // namespace gather_algorithm

} // namespace collectives
