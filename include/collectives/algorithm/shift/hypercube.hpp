#pragma once
// Circular q-shift on a hypercube with store-and-forward routing (seed 001, Figures 3.23
// and 3.24): the ring of p = 2^d positions is embedded in the hypercube by the reflected
// Gray code, position i on node G(i) = i XOR (i >> 1), so that ring neighbours are
// hypercube neighbours. A q-shift is one phase per set bit j of q, each a 2^j-shift along
// the embedded ring; positions 2^j apart (j >= 1) sit on nodes that differ in exactly two
// bits, j - 1 and one above, so a phase is two single-hop steps: every node first crosses
// dimension j - 1 (E-cube corrects the lower bit first), then the block crosses its second
// dimension. A 1-shift (j = 0) is one hop. Every step is a permutation of single links:
// congestion-free, one message in and one out per node. At most 2 log p - 1 steps.
//
// WHICH SHIFT. This algorithm moves blocks along the EMBEDDED RING, so it implements
//   the block of node G(i) goes to node G(i + q mod p)        (GrayShiftOp)
// — the seed's operation, where the ring's processors are numbered by ring position —
// not the rank shift r -> r + q of ShiftOp and MPI (the two agree only for p <= 2 or
// q = 0 mod p). No relabelling rescues the rank shift at this cost: r and r + 2^j differ
// in up to log p - j bits. Ranks that number themselves by ring position
// (embedded_ring_position(rank)) see an ordinary q-shift of those positions.
// For the rank shift on a hypercube use shift_algorithm::direct (the seed's CT algorithm,
// E-cube, congestion-free) or ring.

#include <collectives/detail/bits.hpp>
#include <collectives/detail/power_of_two.hpp>
#include <collectives/algorithm/algorithm.hpp>
#include <collectives/algorithm/shift/common.hpp>
#include <collectives/schedule/operation.hpp>
#include <collectives/schedule/pattern.hpp>
#include <collectives/topology/concepts.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>

namespace collectives {

/// The hypercube node at position i of the reflected-Gray-code ring: i XOR (i >> 1).
constexpr std::size_t embedded_ring_node(std::size_t i) { return i ^ (i >> 1); }

/// The position on the reflected-Gray-code ring of hypercube node n (the inverse of
/// embedded_ring_node): the prefix XOR of n's bits from the top.
constexpr std::size_t embedded_ring_position(std::size_t n)
{
  for (std::size_t s = 1; s < static_cast<std::size_t>(std::numeric_limits<std::size_t>::digits); s <<= 1) n ^= n >> s;
  return n;
}

/// Circular q-shift along the Gray-code ring embedded in a hypercube of p = 2^d nodes:
/// the block of node embedded_ring_node(i) goes to node embedded_ring_node(i + q mod p).
struct GrayShiftOp {
  std::size_t p = 1;
  std::size_t q = 0; ///< already reduced mod p
  static constexpr const char* name = "shift (Gray-code ring)";
  constexpr std::size_t input_blocks(std::size_t) const { return 1; }
  constexpr std::size_t output_blocks(std::size_t) const { return 1; }
  constexpr Symbol input(std::size_t r, std::size_t) const { return {static_cast<std::int64_t>(r)}; }
  constexpr Symbol expected(std::size_t r, std::size_t) const
  {
    const std::size_t from = (embedded_ring_position(r) + p - q) & (p - 1);
    return {static_cast<std::int64_t>(embedded_ring_node(from))};
  }
};

/// Store-and-forward Gray-code q-shift (see the top of this header; implements GrayShiftOp).
/// Shifts the shorter way by step count: forward by q or backward by p - q, one phase per
/// set bit, highest first; a phase takes 2 steps (bit 0: 1 step). p must be a power of two
/// (std::invalid_argument otherwise). One scratch block.
/// Cost (one-port, SF): (t_s + t_w m)(2 popcount(q) - (q mod 2)) <= (t_s + t_w m)(2 log p - 1).
class ShiftHypercubeSfSchedule {
public:
  /// Shift by q (any integer; reduced mod p) along the Gray-code ring of topo.
  constexpr ShiftHypercubeSfSchedule(std::size_t p, std::ptrdiff_t q) : p_(p)
  {
    detail::require_power_of_two_ranks(p_, "collectives::shift(hypercube_sf)");
    q_ = detail::reduce_shift(q, p_);
    const std::size_t back = q_ == 0 ? 0 : p_ - q_;
    forward_ = steps_for(q_) <= steps_for(back);
    amount_ = forward_ ? q_ : back;
  }
  constexpr std::size_t size() const { return p_; }
  /// q mod p.
  constexpr std::size_t shift() const { return q_; }
  /// True when the phases move blocks towards higher ring positions.
  constexpr bool forward() const { return forward_; }
  /// The distance travelled along the ring: q or p - q.
  constexpr std::size_t amount() const { return amount_; }
  constexpr std::size_t total_steps() const { return steps_for(amount_); }
  constexpr std::size_t num_steps() const { return total_steps() > 0 ? total_steps() : 1; }
  constexpr std::size_t scratch_blocks() const { return total_steps() >= 2 ? 1 : 0; }
  constexpr GrayShiftOp operation() const { return {size(), q_}; }

  template <class V>
  constexpr void visit(std::size_t node, std::size_t step, V& v) const
  {
    const std::size_t n = total_steps();
    if (n == 0) {
      detail::shift_copy_own(v);
      return;
    }
    // Find the phase (bit j of amount_, highest first) and the hop within it.
    std::size_t j = 0, hop = 0, at = 0;
    for (auto b = detail::bit_width(amount_); b-- > 0;) {
      if (((amount_ >> b) & 1u) == 0) continue;
      const std::size_t len = b == 0 ? 1 : 2;
      if (step < at + len) {
        j = b;
        hop = step - at;
        break;
      }
      at += len;
    }
    const std::size_t mask = size() - 1;
    const std::size_t dist = std::size_t{1} << j;
    auto moved = [&](std::size_t pos, bool ahead) { return (ahead == forward_ ? pos + dist : pos - dist) & mask; };
    std::size_t to = 0, from = 0;
    if (j == 0) {
      // Ring neighbours are hypercube neighbours: one hop.
      const std::size_t pos = embedded_ring_position(node);
      to = embedded_ring_node(moved(pos, true));
      from = embedded_ring_node(moved(pos, false));
    } else if (hop == 0) {
      // Every block crosses dimension j - 1 first: a swap with that neighbour.
      to = from = node ^ (dist >> 1);
    } else {
      // The block here came from node ^ 2^(j-1) at the phase's start; it crosses the one
      // dimension left to its target. The block bound for this node waits at its own
      // source's dimension-(j-1) neighbour.
      to = embedded_ring_node(moved(embedded_ring_position(node ^ (dist >> 1)), true));
      from = embedded_ring_node(moved(embedded_ring_position(node), false)) ^ (dist >> 1);
    }
    v.send({to, detail::shift_slot_uniform(step, n)});
    v.recv({from, detail::shift_slot_uniform(step + 1, n)});
  }

private:
  /// Steps of a phase sequence shifting by x: two per set bit, one for bit 0.
  static constexpr std::size_t steps_for(std::size_t x)
  {
    return 2 * detail::popcount(x) - (x & 1u);
  }

  std::size_t p_;
  std::size_t q_ = 0;
  std::size_t amount_ = 0;
  bool forward_ = true;
};

namespace shift_algorithm {
/// Store-and-forward along the Gray-code ring: at most 2 log p - 1 steps; p a power of two.
/// NOTE: shifts ring positions (GrayShiftOp), not ranks; see algorithm/shift/hypercube.hpp.
struct HypercubeSf : AlgorithmBase<Collective::shift> {
  static constexpr const char* name = "hypercube_sf";
  static constexpr Needs needs{.power_of_two = true};
  template <topology T>
  static constexpr auto schedule(const T& t, const Problem& pr) { return ShiftHypercubeSfSchedule(t.size(), pr.q); }
};
inline constexpr HypercubeSf hypercube_sf{};
} // namespace shift_algorithm

} // namespace collectives
