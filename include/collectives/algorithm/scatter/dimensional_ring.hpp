#pragma once
// Scatter on a mesh or torus: the ring pipeline along each dimension in turn, moving
// super-blocks (seed 001: along the root's column with a row's blocks, then along every
// row).

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/algorithm/tree/ring_phase.hpp>
#include <collectives/algorithm/tree/shape.hpp>
#include <collectives/schedule/operation.hpp>
#include <collectives/schedule/pattern.hpp>
#include <collectives/topology/concepts.hpp>

#include <cstddef>

namespace collectives {

/// A ring pipeline along each ring of `shape`, slowest first. On a ring of z whose
/// coordinates own super-blocks of len blocks, in step e = 1 .. z - 1 the ring's root
/// sends the super-block of the coordinate z - e places up and every other rank passes
/// on the one it got in the step before, so all arrive in step z - 1: (z - 1)(t_s +
/// t_w m len + t_h). Blocks in transit wait in scratch at their rank index; each rank's
/// own block is copied to its output at the end. Cost: sum_i (z_i - 1)(t_s + t_h) +
/// t_w m (p - 1) + t_r m; on a square mesh the seed's 2 t_s (sqrt(p) - 1) + t_w m (p - 1),
/// store-and-forward or cut-through (every message crosses one link).
class ScatterPipelineSchedule : public RingPhases<PipelineSteps, true> {
public:
  using RingPhases::RingPhases;
  constexpr std::size_t num_steps() const { return phase_steps() > 0 ? phase_steps() : 1; }
  constexpr std::size_t scratch_blocks() const { return p_; }
  /// In every step some ring's root sends a super-block (at least one block; schedule.hpp).
  constexpr std::size_t blocks_every_step() const { return phase_steps() > 0 ? 1 : 0; }
  constexpr ScatterOp operation() const { return {p_, root_}; }
  /// In step e of a ring's phase: the ring's root sends, relative ranks 1 .. e - 1
  /// receive and pass on, rank e receives; on every ring of the phase. Every rank copies
  /// its own block in the last step.
  constexpr Symmetry symmetry(std::size_t step) const
  {
    const PhaseStep at = phase_step(step);
    const std::size_t e = at.step + 1;
    const PhaseRun runs[] = {{0, 1}, {1, e - 1}, {e, 1}};
    return phase_symmetry(root_, at.dim, runs, step + 1 == num_steps());
  }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t step, V& v) const
  {
    const Buffer held = r == root_ ? Buffer::input : Buffer::scratch;
    const PhaseStep at = phase_step(step);
    const RingPlace ring = at.dim < shape_.ndims ? place(r, at.dim, root_) : RingPlace{};
    if (ring.on) {
      const std::size_t z = ring.z, d = ring.v, e = at.step + 1;
      if (d == 0) v.send({ring.up(), ring.super_block(held, z - e)});
      // Rank d receives in steps d .. z - 1 the super-blocks of z - 1 down to d ...
      if (d >= 1 && e >= d) v.recv({ring.down(), ring.super_block(Buffer::scratch, z - 1 - e + d)});
      // ... and passes each on in the next step, all but its own.
      if (d >= 1 && e >= d + 1) v.send({ring.up(), ring.super_block(Buffer::scratch, z - e + d)});
    }
    if (step + 1 == num_steps()) v.local({contiguous(held, r, 1), contiguous(Buffer::output, 0, 1)});
  }
};

namespace scatter_algorithm {
/// A ring pipeline per dimension of a mesh, torus or hypercube, slowest dimension first,
/// moving super-blocks: sum_i (z_i - 1) t_s + t_w m (p - 1) (+ t_h per step, t_r m); the
/// seeds' mesh scatter, 2 t_s (sqrt(p) - 1) + t_w m (p - 1), under store-and-forward too.
/// Needs a product of rings.
struct DimensionalRing : AlgorithmBase<Collective::scatter> {
  static constexpr const char* name = "dimensional_ring";
  static constexpr Needs needs{.product = true};
  template <product_topology T>
  static constexpr auto schedule(const T& t, const Problem& pr)
  {
    return ScatterPipelineSchedule(t.size(), topology_shape(t), pr.root);
  }
};
inline constexpr DimensionalRing dimensional_ring{};
} // namespace scatter_algorithm

} // namespace collectives
