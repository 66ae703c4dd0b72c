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
  std::uint64_t mix = 0; ///< for commutative reductions: the sum of the ranks' fingerprints

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
  friend constexpr bool operator==(const AlltoallOp&, const AlltoallOp&) = default;
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
  friend constexpr bool operator==(const ShiftOp&, const ShiftOp&) = default;
};

} // namespace collectives

namespace collectives {

// Specs of the collectives that broadcast, gather, scatter or reduce. Blocks are the units
// a schedule moves; a vector may be cut into several blocks (chunks) so that long-message
// algorithms can scatter it. For reductions, input block j of rank r is {j, r, r}: the
// contribution of rank r to block j; a result {j, 0, p-1} combines every rank in order.
// `commutative` lets the verifier accept combinations in any cyclic order.

/// One-to-all broadcast: root's output blocks reach every rank's output (in place).
struct BroadcastOp {
  std::size_t p = 1;
  std::size_t root = 0;
  std::size_t blocks = 1;
  static constexpr const char* name = "broadcast";
  constexpr std::size_t input_blocks(std::size_t) const { return 0; }
  constexpr std::size_t output_blocks(std::size_t) const { return blocks; }
  constexpr Symbol input(std::size_t, std::size_t) const { return {}; }
  constexpr Symbol initial_output(std::size_t r, std::size_t j) const
  {
    return r == root ? Symbol{static_cast<std::int64_t>(j)} : Symbol{};
  }
  constexpr Symbol expected(std::size_t, std::size_t j) const { return {static_cast<std::int64_t>(j)}; }
  friend constexpr bool operator==(const BroadcastOp&, const BroadcastOp&) = default;
};

/// All-to-one reduction of `blocks` blocks into root's output.
/// in_place: every rank's contribution starts in its output (the front end's in-place
/// call, where one buffer is both), and only the root's may change.
struct ReduceOp {
  std::size_t p = 1;
  std::size_t root = 0;
  std::size_t blocks = 1;
  bool commutative = false;
  bool in_place = false;
  static constexpr const char* name = "reduce";
  constexpr std::size_t input_blocks(std::size_t) const { return in_place ? 0 : blocks; }
  constexpr std::size_t output_blocks(std::size_t) const { return blocks; }
  constexpr Symbol input(std::size_t r, std::size_t j) const
  {
    return {static_cast<std::int64_t>(j), static_cast<std::uint32_t>(r), static_cast<std::uint32_t>(r)};
  }
  constexpr Symbol initial_output(std::size_t r, std::size_t j) const { return in_place ? input(r, j) : Symbol{}; }
  constexpr Symbol expected(std::size_t r, std::size_t j) const
  {
    if (r == root) return Symbol{static_cast<std::int64_t>(j), 0, static_cast<std::uint32_t>(p - 1)};
    return in_place ? input(r, j) : dont_care;
  }
  friend constexpr bool operator==(const ReduceOp&, const ReduceOp&) = default;
};

/// All-reduce: every rank's output holds the reduction of every block.
/// in_place: the contributions start in the output buffer.
struct AllreduceOp {
  std::size_t p = 1;
  std::size_t blocks = 1;
  bool commutative = false;
  bool in_place = false;
  static constexpr const char* name = "allreduce";
  constexpr std::size_t input_blocks(std::size_t) const { return in_place ? 0 : blocks; }
  constexpr Symbol initial_output(std::size_t r, std::size_t j) const
  {
    return in_place ? Symbol{static_cast<std::int64_t>(j), static_cast<std::uint32_t>(r), static_cast<std::uint32_t>(r)}
                    : Symbol{};
  }
  constexpr std::size_t output_blocks(std::size_t) const { return blocks; }
  constexpr Symbol input(std::size_t r, std::size_t j) const
  {
    return {static_cast<std::int64_t>(j), static_cast<std::uint32_t>(r), static_cast<std::uint32_t>(r)};
  }
  constexpr Symbol expected(std::size_t, std::size_t j) const
  {
    return {static_cast<std::int64_t>(j), 0, static_cast<std::uint32_t>(p - 1)};
  }
  friend constexpr bool operator==(const AllreduceOp&, const AllreduceOp&) = default;
};

/// All-to-all broadcast (all-gather): rank r's one block becomes block r of every output.
/// in_place: rank r's block starts as block r of its output (MPI_IN_PLACE).
struct AllgatherOp {
  std::size_t p = 1;
  bool in_place = false;
  static constexpr const char* name = "allgather";
  constexpr std::size_t input_blocks(std::size_t) const { return in_place ? 0 : 1; }
  constexpr Symbol initial_output(std::size_t r, std::size_t j) const
  {
    return in_place && j == r ? Symbol{static_cast<std::int64_t>(r)} : Symbol{};
  }
  constexpr std::size_t output_blocks(std::size_t) const { return p; }
  constexpr Symbol input(std::size_t r, std::size_t) const { return {static_cast<std::int64_t>(r)}; }
  constexpr Symbol expected(std::size_t, std::size_t i) const { return {static_cast<std::int64_t>(i)}; }
  friend constexpr bool operator==(const AllgatherOp&, const AllgatherOp&) = default;
};

/// All-to-all reduction (reduce-scatter): block j of the reduction ends on rank j.
struct ReduceScatterOp {
  std::size_t p = 1;
  bool commutative = false;
  static constexpr const char* name = "reduce_scatter";
  constexpr std::size_t input_blocks(std::size_t) const { return p; }
  constexpr std::size_t output_blocks(std::size_t) const { return 1; }
  constexpr Symbol input(std::size_t r, std::size_t j) const
  {
    return {static_cast<std::int64_t>(j), static_cast<std::uint32_t>(r), static_cast<std::uint32_t>(r)};
  }
  constexpr Symbol expected(std::size_t r, std::size_t) const
  {
    return {static_cast<std::int64_t>(r), 0, static_cast<std::uint32_t>(p - 1)};
  }
  friend constexpr bool operator==(const ReduceScatterOp&, const ReduceScatterOp&) = default;
};

/// Prefix reduction: rank r gets x0 op ... op xr (inclusive) or x0 op ... op x(r-1)
/// (exclusive; rank 0's output is left as it was).
struct ScanOp {
  std::size_t p = 1;
  bool exclusive = false;
  bool commutative = false;
  static constexpr const char* name = "scan";
  constexpr std::size_t input_blocks(std::size_t) const { return 1; }
  constexpr std::size_t output_blocks(std::size_t) const { return 1; }
  constexpr Symbol input(std::size_t r, std::size_t) const
  {
    return {0, static_cast<std::uint32_t>(r), static_cast<std::uint32_t>(r)};
  }
  constexpr Symbol expected(std::size_t r, std::size_t) const
  {
    if (!exclusive) return {0, 0, static_cast<std::uint32_t>(r)};
    return r == 0 ? dont_care : Symbol{0, 0, static_cast<std::uint32_t>(r - 1)};
  }
  friend constexpr bool operator==(const ScanOp&, const ScanOp&) = default;
};

/// One-to-all personalized (scatter): block j of root's input becomes rank j's output.
struct ScatterOp {
  std::size_t p = 1;
  std::size_t root = 0;
  static constexpr const char* name = "scatter";
  constexpr std::size_t input_blocks(std::size_t r) const { return r == root ? p : 0; }
  constexpr std::size_t output_blocks(std::size_t) const { return 1; }
  constexpr Symbol input(std::size_t, std::size_t j) const { return {static_cast<std::int64_t>(j)}; }
  constexpr Symbol expected(std::size_t r, std::size_t) const { return {static_cast<std::int64_t>(r)}; }
  friend constexpr bool operator==(const ScatterOp&, const ScatterOp&) = default;
};

/// All-to-one personalized (gather): rank r's block becomes block r of root's output.
struct GatherOp {
  std::size_t p = 1;
  std::size_t root = 0;
  static constexpr const char* name = "gather";
  constexpr std::size_t input_blocks(std::size_t) const { return 1; }
  constexpr std::size_t output_blocks(std::size_t r) const { return r == root ? p : 0; }
  constexpr Symbol input(std::size_t r, std::size_t) const { return {static_cast<std::int64_t>(r)}; }
  constexpr Symbol expected(std::size_t, std::size_t i) const { return {static_cast<std::int64_t>(i)}; }
  friend constexpr bool operator==(const GatherOp&, const GatherOp&) = default;
};

} // namespace collectives
