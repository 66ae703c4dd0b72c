#pragma once
// What the circular-shift schedules share: q reduced mod p, ring arithmetic that cannot
// overflow, and where a block sits after its j-th hop.

#include <collectives/schedule/pattern.hpp>

#include <cstddef>

namespace collectives::detail {

/// q mod p, in [0, p), for any integer q (p >= 1). Computed on magnitudes so that neither
/// PTRDIFF_MIN nor a p above PTRDIFF_MAX overflows.
constexpr std::size_t reduce_shift(std::ptrdiff_t q, std::size_t p)
{
  if (q >= 0) return static_cast<std::size_t>(q) % p;
  const std::size_t magnitude = static_cast<std::size_t>(-(q + 1)) + 1;
  const std::size_t r = magnitude % p;
  return r == 0 ? 0 : p - r;
}

/// (a + b) mod p for a, b < p.
constexpr std::size_t add_mod(std::size_t a, std::size_t b, std::size_t p) { return b < p - a ? a + b : a - (p - b); }

/// (a - b) mod p for a, b < p.
constexpr std::size_t sub_mod(std::size_t a, std::size_t b, std::size_t p) { return a >= b ? a - b : a + (p - b); }

/// Where a block sits after hop j of n when every block hops in every step: the input
/// before the first hop, then alternately the output and scratch block 0, counted back
/// from the last hop, which lands in the output. Consecutive hops alternate, so no step
/// receives into the block it is sending; one scratch block is enough.
constexpr Pattern shift_slot_uniform(std::size_t j, std::size_t n)
{
  if (j == 0) return contiguous(Buffer::input, 0, 1);
  return (n - j) % 2 == 0 ? contiguous(Buffer::output, 0, 1) : contiguous(Buffer::scratch, 0, 1);
}

/// Where a block sits after hop j of its own n hops when blocks make different numbers of
/// hops: the input before the first, the output after the last, scratch block (j-1) mod 2
/// in between. A rank always sends and receives blocks on the same hop number in one step,
/// so the two scratch blocks alternate whatever n each block has.
constexpr Pattern shift_slot_counted(std::size_t j, std::size_t n)
{
  if (j == 0) return contiguous(Buffer::input, 0, 1);
  if (j == n) return contiguous(Buffer::output, 0, 1);
  return contiguous(Buffer::scratch, (j - 1) % 2, 1);
}

/// Scratch blocks shift_slot_counted needs when the longest path has n hops.
constexpr std::size_t shift_scratch_counted(std::size_t n) { return n >= 3 ? 2 : n == 2 ? 1 : 0; }

/// The one step of a shift that moves nothing (q = 0 mod p): a local copy.
template <class V>
constexpr void shift_copy_own(V& v)
{
  v.local({contiguous(Buffer::input, 0, 1), contiguous(Buffer::output, 0, 1)});
}

} // namespace collectives::detail
