#pragma once
// Broadcast along the ring, store-and-forward, both ways from the root with the second
// direction started one step after the first: the seeds' ceil(p/2) steps under one-port.

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/algorithm/tree/ring_phase.hpp>
#include <collectives/algorithm/tree/shape.hpp>
#include <collectives/schedule/operation.hpp>
#include <collectives/schedule/pattern.hpp>
#include <collectives/topology/concepts.hpp>

#include <cstddef>

namespace collectives {

/// The store-and-forward ring broadcast of seed 001 (Figure 3.2), along each ring of
/// `shape` in turn, slowest first (ring_shape: one ring; topology_shape: the root's
/// column, then every row, as in Figure 3.4). On a ring of z: the root sends up in step 0
/// and down in step 1, and each front then moves one rank per step: floor(z/2) ranks up,
/// ceil(z/2) - 1 down, ceil(z/2) steps, no rank sending or receiving twice in a step.
/// Cost: sum over rings of ceil(z/2)(t_s + t_w m + t_h), one-port or all-port; on a ring
/// the seed's (t_s + t_w m) ceil(p/2), on a square mesh 2(t_s + t_w m) ceil(sqrt(p)/2).
class BroadcastStaggeredSchedule : public RingPhases<HalfRingSteps, true> {
public:
  constexpr BroadcastStaggeredSchedule(std::size_t p, const TreeShape& shape, std::size_t root, std::size_t blocks = 1)
    : RingPhases(p, shape, root), blocks_(blocks) {}
  constexpr std::size_t num_steps() const { return phase_steps() > 0 ? phase_steps() : 1; }
  /// In every step of a ring's phase a front passes the data on: up, and in the last step
  /// of an odd ring down (schedule.hpp).
  constexpr std::size_t blocks_every_step() const { return phase_steps() > 0 ? blocks_ : 0; }
  constexpr std::size_t scratch_blocks() const { return 0; }
  constexpr BroadcastOp operation() const { return {p_, root_, blocks_}; }
  /// In step s of a ring's phase: relative ranks s (sends up), s + 1 (receives), and below
  /// the root, distance s - 1 (sends down) and s (receives); on every ring of the phase.
  constexpr Symmetry symmetry(std::size_t step) const
  {
    const PhaseStep at = phase_step(step);
    if (at.dim >= shape_.ndims) return Symmetry::in(shape_group(shape_));
    const std::size_t z = shape_.extent[at.dim], s = at.step, ups = z / 2, downs = z - 1 - ups;
    const bool up = s + 1 <= ups, down = s >= 1 && s <= downs;
    const PhaseRun runs[] = {{s, up ? 1u : 0u}, {s + 1, up ? 1u : 0u}, {(z - (s - 1)) % z, down ? 1u : 0u},
                             {(z - s % z) % z, down ? 1u : 0u}};
    return phase_symmetry(root_, at.dim, runs);
  }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t step, V& v) const
  {
    const PhaseStep at = phase_step(step);
    if (at.dim >= shape_.ndims) return;
    const RingPlace ring = place(r, at.dim, root_);
    if (!ring.on) return;
    const std::size_t s = at.step, z = ring.z, rel = ring.v;
    const std::size_t ups = z / 2, downs = z - 1 - ups; // ranks reached each way
    const std::size_t drel = (z - rel) % z;             // distance going down
    const Pattern all = contiguous(Buffer::output, 0, blocks_);
    // Up: relative ranks 0, 1, ..., ups; rank s passes on in step s.
    if (rel == s && s + 1 <= ups) v.send({ring.up(), all});
    if (rel == s + 1 && rel <= ups) v.recv({ring.down(), all});
    // Down, one step later: the root sends in step 1, distance j passes on in step j + 1.
    if (drel + 1 == s && drel + 1 <= downs) v.send({ring.down(), all});
    if (drel >= 1 && drel == s && drel <= downs) v.recv({ring.up(), all});
  }

private:
  std::size_t blocks_;
};

namespace broadcast_algorithm {
/// Along the ring, store-and-forward both ways, the second direction one step later:
/// ceil(p/2) steps one-port for every p (the seeds' SF ring broadcast); any p. `ring`
/// sends both ways at once: one step fewer all-port for odd p, one more one-port for
/// even p.
struct RingStaggered : AlgorithmBase<Collective::broadcast> {
  static constexpr const char* name = "ring_staggered";
  template <topology T>
  static constexpr auto schedule(const T& t, const Problem& pr)
  {
    return BroadcastStaggeredSchedule(t.size(), ring_shape(t.size()), pr.root);
  }
};
inline constexpr RingStaggered ring_staggered{};
} // namespace broadcast_algorithm

} // namespace collectives
