#pragma once
// Operation specs: what a collective's buffers hold before and must hold after, in symbols
// the verifier can follow. A symbol is a block identity plus, for reductions, the range
// [lo, hi] of ranks whose contributions it combines, in rank order.

#include <cstddef>
#include <cstdint>

namespace collectives {

/// A symbolic block: `id` names the data, [lo, hi] the ranks combined into it, in order.
struct Symbol {
  std::int64_t id = -1; ///< -1: empty (nothing written yet)
  std::uint32_t lo = 0;
  std::uint32_t hi = 0;

  constexpr bool empty() const { return id < 0; }
  friend constexpr bool operator==(const Symbol&, const Symbol&) = default;
};

/// Marks an output block whose final content does not matter.
inline constexpr Symbol dont_care{-2, 0, 0};

/// All-to-all personalized: input block j of rank r goes to rank j, as output block r.
struct AlltoallOp {
  std::size_t p = 1;
  static constexpr const char* name = "alltoall";
  constexpr std::size_t input_blocks(std::size_t) const { return p; }
  constexpr std::size_t output_blocks(std::size_t) const { return p; }
  constexpr Symbol input(std::size_t r, std::size_t j) const { return {static_cast<std::int64_t>(r * p + j)}; }
  constexpr Symbol expected(std::size_t r, std::size_t i) const { return {static_cast<std::int64_t>(i * p + r)}; }
};

/// Circular q-shift: rank r's single block goes to rank (r + q) mod p.
struct ShiftOp {
  std::size_t p = 1;
  std::size_t q = 0; ///< already reduced mod p
  static constexpr const char* name = "shift";
  constexpr std::size_t input_blocks(std::size_t) const { return 1; }
  constexpr std::size_t output_blocks(std::size_t) const { return 1; }
  constexpr Symbol input(std::size_t r, std::size_t) const { return {static_cast<std::int64_t>(r)}; }
  constexpr Symbol expected(std::size_t r, std::size_t) const
  {
    return {static_cast<std::int64_t>((r + p - q) % p)};
  }
};

} // namespace collectives
