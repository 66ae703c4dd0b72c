#pragma once
// Alltoall by Bruck's algorithm (Bruck, Ho, Kipnis, Upfal, Weathersby 1997), any p, any
// topology (mapped by rank order); MPICH uses it for short blocks, where start-ups dominate.
//
// Rank r works on a rotated copy tmp[j] = input[(r + j) mod p]: tmp[j] is destined for
// rank r + j. In step k = 0 .. ceil(log2 p) - 1 it sends every tmp[j] whose index j has
// bit k set to rank r + 2^k and receives the same indices from rank r - 2^k. A block for
// the rank j places ahead travels the binary digits of j and keeps its index, so at the
// end tmp[j] on rank r holds the block of rank r - j, and the inverse rotation
// output[(r - j) mod p] = tmp[j] finishes.
//
// Where the blocks live, so that no step receives into a block it is sending:
//  - step 0 sends straight from the input (the rotation is folded into the pattern),
//    receives into tmp, and copies the blocks it keeps from the input into tmp (so the
//    rotation costs no separate pass);
//  - middle steps receive into a staging region after tmp, then a local op moves the
//    blocks into place (the seed's rearrangement);
//  - the last step receives straight into the output (nothing is ever sent from there)
//    and a local op writes the blocks it kept there, inverse-rotated.
// Every pattern is a strided block set wrapped mod p (pattern.hpp), so nothing is
// materialised whatever p.

#include <collectives/detail/bits.hpp>
#include <collectives/algorithm/algorithm.hpp>
#include <collectives/schedule/operation.hpp>
#include <collectives/schedule/pattern.hpp>
#include <collectives/schedule/schedule.hpp>
#include <collectives/topology/concepts.hpp>

#include <cstddef>

namespace collectives {

namespace detail {

/// The blocks (origin + j) mod p (or (origin - j) mod p when `down`) for the j in [0, p)
/// whose bit k is set (`set`) or clear, in increasing j: the rotated with_bit set.
constexpr Pattern bruck_blocks(Buffer buffer, std::size_t p, std::size_t k, bool set, std::size_t origin, bool down)
{
  const std::size_t half = std::size_t{1} << k;
  const std::size_t with = count_with_bit(p, k);
  // j runs over half-long runs 2*half apart, from half (bit set) or from 0 (bit clear).
  const std::size_t lead = set ? half : 0;
  Pattern pat = strided(buffer, 0, set ? with : p - with, half, half << 1);
  pat.modulus = p;
  pat.descending = down;
  pat.first = down ? (origin % p + p - lead % p) % p : (origin + lead) % p;
  return pat;
}

} // namespace detail

/// Bruck's alltoall: ceil(log2 p) steps; in step k every rank sends the about p/2 blocks
/// whose rotated index has bit k set to rank + 2^k. Any p.
/// Scratch: p + max middle-step message blocks (none when p <= 2).
/// Cost (one-port): ceil(log2 p) t_s + t_w m sum_k |{j < p : bit k of j set}|, about
/// (t_s + t_w m p / 2) log2 p, plus about m p log2(p) / 2 elements of local copying.
/// Fewer start-ups than pairwise ((p - 1) t_s) for more volume: the short-block choice.
/// collective: every rank must run it (through alltoall) with the same topology.
class BruckSchedule {
public:
  constexpr explicit BruckSchedule(std::size_t p) : p_(p), steps_(detail::ceil_log2(p_))
  {
    // Staging only serves the middle steps (step 0 receives into tmp, the last into output).
    for (std::size_t k = 1; k + 1 < steps_; ++k) {
      const std::size_t n = count_with_bit(size(), k);
      if (n > staging_) staging_ = n;
    }
  }
  constexpr std::size_t size() const { return p_; }
  constexpr std::size_t num_steps() const { return steps_ > 0 ? steps_ : 1; }
  /// tmp (p blocks) and the staging region; p <= 2 needs neither.
  constexpr std::size_t scratch_blocks() const { return steps_ >= 2 ? size() + staging_ : 0; }
  constexpr AlltoallOp operation() const { return {size()}; }
  /// Every rank does rank 0's step, translated (rank + r).
  constexpr Symmetry symmetry(std::size_t) const { return Symmetry::uniform(RankGroup::cyclic(size())); }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t k, V& v) const
  {
    using detail::bruck_blocks;
    const std::size_t p = size();
    if (p == 1) {
      v.local({contiguous(Buffer::input, 0, 1), contiguous(Buffer::output, 0, 1)});
      return;
    }
    const std::size_t half = std::size_t{1} << k;
    const bool first = k == 0;
    const bool last = k + 1 == steps_;
    const std::size_t n = count_with_bit(p, k);
    const Pattern staging = contiguous(Buffer::scratch, p, n);
    const Pattern moving_tmp = bruck_blocks(Buffer::scratch, p, k, true, 0, false);

    v.send({(r + half) % p, first ? bruck_blocks(Buffer::input, p, k, true, r, false) : moving_tmp});
    const Pattern into = last ? bruck_blocks(Buffer::output, p, k, true, r, true) : first ? moving_tmp : staging;
    v.recv({(r + p - half) % p, into});

    if (first) {
      // The rotation, for the blocks that stay (the others were just received).
      const Pattern kept = bruck_blocks(Buffer::input, p, 0, false, r, false);
      v.local({kept, last ? bruck_blocks(Buffer::output, p, 0, false, r, true)
                          : bruck_blocks(Buffer::scratch, p, 0, false, 0, false)});
    } else if (!last) {
      v.local({staging, moving_tmp});
    } else {
      // The inverse rotation, for the blocks that stayed in this step.
      v.local({bruck_blocks(Buffer::scratch, p, k, false, 0, false), bruck_blocks(Buffer::output, p, k, false, r, true)});
    }
  }

  friend constexpr bool operator==(const BruckSchedule&, const BruckSchedule&) = default;

private:
  std::size_t p_;
  std::size_t steps_ = 0;
  std::size_t staging_ = 0;
};

namespace alltoall_algorithm {
/// Bruck's algorithm: ceil(log2 p) steps of about p/2 blocks; any p. For short blocks.
struct Bruck : AlgorithmBase<Collective::alltoall> {
  static constexpr const char* name = "bruck";
  template <topology T> static constexpr auto schedule(const T& t, const Problem&) { return BruckSchedule(t.size()); }
};
inline constexpr Bruck bruck{};
} // namespace alltoall_algorithm

} // namespace collectives
