#pragma once
// Gather on a mesh or torus: the ring pipeline along each dimension in turn, moving
// super-blocks (the scatter's dual: along every row, then along the root's column with a
// row's blocks).

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/algorithm/tree/ring_phase.hpp>
#include <collectives/algorithm/tree/shape.hpp>
#include <collectives/schedule/operation.hpp>
#include <collectives/schedule/pattern.hpp>
#include <collectives/topology/concepts.hpp>

#include <cstddef>

namespace collectives {

/// ScatterPipelineSchedule run backwards in time and direction, along each ring of
/// `shape`, fastest first: on a ring of z, every rank first hands its super-block down
/// towards the ring's root, then passes on what it got from above in the step before,
/// the farthest super-block arriving last, in step z - 1. Blocks in transit wait at their
/// rank index in scratch (in the output at the root). Cost: sum_i (z_i - 1)(t_s + t_h) +
/// t_w m (p - 1) + t_r m, what the scatter costs.
class GatherPipelineSchedule : public RingPhases<PipelineSteps, false> {
public:
  using RingPhases::RingPhases;
  constexpr std::size_t num_steps() const { return phase_steps() > 0 ? phase_steps() : 1; }
  constexpr std::size_t scratch_blocks() const { return p_; }
  /// In every step some ring's rank e hands a super-block (at least one block) towards
  /// the ring's root (schedule.hpp).
  constexpr std::size_t blocks_every_step() const { return phase_steps() > 0 ? 1 : 0; }
  constexpr GatherOp operation() const { return {p_, root_}; }
  /// The scatter's steps backwards: in the scatter's step e, the ring's root receives,
  /// relative ranks 1 .. e - 1 receive and pass on, rank e sends; on every ring of the
  /// phase. Every rank copies its own block in the first step.
  constexpr Symmetry symmetry(std::size_t step) const
  {
    const PhaseStep at = phase_step(step);
    const std::size_t e = at.dim < shape_.ndims ? shape_.extent[at.dim] - 1 - at.step : 0;
    const PhaseRun runs[] = {{0, 1}, {1, e > 0 ? e - 1 : 0}, {e, e > 0 ? 1u : 0u}};
    return phase_symmetry(root_, at.dim, runs, step == 0);
  }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t step, V& v) const
  {
    const Buffer held = r == root_ ? Buffer::output : Buffer::scratch;
    // The own block waits in the input until the first step's exchange is over.
    if (step == 0) v.local({contiguous(Buffer::input, 0, 1), contiguous(held, r, 1)});
    const PhaseStep at = phase_step(step);
    const RingPlace ring = at.dim < shape_.ndims ? place(r, at.dim, root_) : RingPlace{};
    if (!ring.on) return;
    const std::size_t z = ring.z, d = ring.v, e = z - 1 - at.step; // the scatter's step
    if (d == 0) v.recv({ring.up(), ring.super_block(held, z - e)});
    if (d >= 1 && e >= d) {
      // In the very first step every rank sends its own block (the first phase's
      // super-blocks are single blocks: the faster dimensions all have extent 1).
      const Pattern out = step == 0 ? contiguous(Buffer::input, 0, 1) : ring.super_block(held, z - 1 - e + d);
      v.send({ring.down(), out});
    }
    if (d >= 1 && e >= d + 1) v.recv({ring.up(), ring.super_block(held, z - e + d)});
  }
};

namespace gather_algorithm {
/// A ring pipeline per dimension of a mesh, torus or hypercube, fastest dimension first,
/// moving super-blocks: what dimensional_ring scatter costs, the seeds' mesh gather
/// 2 t_s (sqrt(p) - 1) + t_w m (p - 1) under store-and-forward too. Needs a product of
/// rings.
struct DimensionalRing : AlgorithmBase<Collective::gather> {
  static constexpr const char* name = "dimensional_ring";
  static constexpr Needs needs{.product = true};
  template <product_topology T>
  static constexpr auto schedule(const T& t, const Problem& pr)
  {
    return GatherPipelineSchedule(t.size(), topology_shape(t), pr.root);
  }
};
inline constexpr DimensionalRing dimensional_ring{};
} // namespace gather_algorithm

} // namespace collectives
