#pragma once
// Block sets. A schedule names the blocks a transfer moves by a Pattern: an O(1) formula
// from position i in the message to a block index of one of the rank's three buffers.
// No block set is ever materialised, so walking a 4096-rank schedule costs no O(p^2)
// memory; the executor, the verifier and the cost estimate all read the same formula.

#include <cstddef>
#include <cstdint>

namespace collectives {

/// The buffers a schedule addresses on each rank: the caller's input (read-only), the
/// caller's output, and the schedule's own scratch space (scratch_blocks() blocks).
enum class Buffer : std::uint8_t { input, output, scratch };

/// How incoming blocks meet the blocks already in place.
enum class Combine : std::uint8_t {
  copy,  ///< overwrite
  left,  ///< dst = incoming op dst (incoming holds lower ranks' contributions)
  right, ///< dst = dst op incoming (incoming holds higher ranks' contributions)
};

/// Block i of the message (0 <= i < count) is buffer block
///   base + (((first ± (i / run) * stride + i % run) mod modulus) XOR mask)
/// with + for ascending patterns and - for descending ones; modulus 0 means no wrap.
struct Pattern {
  Buffer buffer = Buffer::scratch;
  std::size_t count = 0;
  std::size_t first = 0;
  std::size_t run = 1;
  std::size_t stride = 1;
  std::size_t modulus = 0;
  std::size_t mask = 0;
  bool descending = false;
  std::size_t base = 0;

  /// Buffer block index of message block i.
  constexpr std::size_t operator[](std::size_t i) const
  {
    // No division within the first run (every block of a contiguous pattern): this runs
    // for every block of every message.
    const std::size_t off = i < run ? i : (i / run) * stride + i % run;
    std::size_t b;
    if (modulus == 0) b = descending ? first - off : first + off;
    else if (descending) b = (first % modulus + modulus - off % modulus) % modulus;
    else b = (first % modulus + off % modulus) % modulus;
    return base + (b ^ mask);
  }
  constexpr std::size_t size() const { return count; }
  friend constexpr bool operator==(const Pattern&, const Pattern&) = default;
};

/// Blocks first, first+1, ..., first+count-1 of `buffer`.
constexpr Pattern contiguous(Buffer buffer, std::size_t first, std::size_t count)
{
  return Pattern{buffer, count, first, count == 0 ? 1 : count, count == 0 ? 1 : count, 0, 0, false};
}

/// Blocks first, first+1, ... (mod modulus): a rotation.
constexpr Pattern cyclic(Buffer buffer, std::size_t first, std::size_t count, std::size_t modulus)
{
  Pattern p = contiguous(buffer, first, count);
  p.modulus = modulus;
  return p;
}

/// Blocks first, first-1, ... (mod modulus): a reversed rotation.
constexpr Pattern cyclic_down(Buffer buffer, std::size_t first, std::size_t count, std::size_t modulus)
{
  Pattern p = cyclic(buffer, first, count, modulus);
  p.descending = true;
  return p;
}

/// `count` blocks in runs of `run` consecutive blocks, runs `stride` apart, from `first`.
constexpr Pattern strided(Buffer buffer, std::size_t first, std::size_t count, std::size_t run, std::size_t stride)
{
  return Pattern{buffer, count, first, run == 0 ? 1 : run, stride, 0, 0, false};
}

/// `count` blocks from `first` going up and wrapping within [base, base + modulus).
constexpr Pattern cyclic_within(Buffer buffer, std::size_t base, std::size_t first, std::size_t count, std::size_t modulus)
{
  Pattern p = cyclic(buffer, first, count, modulus);
  p.base = base;
  return p;
}

/// Blocks j XOR mask for j = 0..count-1 (the hypercube's relative addressing).
constexpr Pattern xored(Buffer buffer, std::size_t count, std::size_t mask)
{
  Pattern p = contiguous(buffer, 0, count);
  p.mask = mask;
  return p;
}

/// Number of j in [0, p) with bit b set.
constexpr std::size_t count_with_bit(std::size_t p, std::size_t b)
{
  const std::size_t half = std::size_t{1} << b;
  const std::size_t full = (p >> (b + 1)) << b;
  const std::size_t rest = p & ((half << 1) - 1);
  return full + (rest > half ? rest - half : 0);
}

/// The blocks j in [0, p) whose bit b is set, in increasing order.
constexpr Pattern with_bit(Buffer buffer, std::size_t p, std::size_t b)
{
  const std::size_t half = std::size_t{1} << b;
  return strided(buffer, half, count_with_bit(p, b), half, half << 1);
}

} // namespace collectives
