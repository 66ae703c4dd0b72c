#pragma once
// Where block b of a buffer lives, in elements. Two kinds, both O(1) per block and both
// allocation-free:
//  - chunked (the default): copies of a vector of n elements, each cut into k blocks as
//    MPICH cuts them (the first n % k blocks get one element more); block b is piece
//    b % k of copy b / k. k = 1 is the uniform layout of blocks of n elements:
//    BlockLayout{m} is "blocks of m elements";
//  - counted: per-block counts and displacements, as MPI's v-collectives take them.

#include <algorithm>
#include <cstddef>

namespace collectives {

/// The layout of one buffer's blocks (see the top of this header).
struct BlockLayout {
  std::size_t n = 0; ///< elements per copy (per block when k == 1)
  std::size_t k = 1; ///< blocks per copy
  const std::size_t* counts = nullptr; ///< counted layouts: elements of each block
  const std::size_t* displs = nullptr; ///< counted layouts: first element of each block

  /// Blocks of m elements.
  static constexpr BlockLayout uniform(std::size_t m) { return {m, 1}; }
  /// Copies of a vector of n elements, each in k blocks (k >= 1).
  static constexpr BlockLayout chunked(std::size_t n, std::size_t k) { return {n, k == 0 ? 1 : k}; }
  /// Block b has counts[b] elements from displs[b].
  static constexpr BlockLayout counted(const std::size_t* counts, const std::size_t* displs)
  {
    return {0, 1, counts, displs};
  }

  /// First element of block b.
  constexpr std::size_t offset(std::size_t b) const
  {
    if (counts != nullptr) return displs[b];
    if (k == 1) return b * n;
    const std::size_t copy = b < k ? 0 : b / k; // one copy (the common case): no division
    const std::size_t j = b - copy * k, q = n / k, r = n - q * k;
    return copy * n + j * q + (j < r ? j : r);
  }
  /// Elements of block b.
  constexpr std::size_t length(std::size_t b) const
  {
    if (counts != nullptr) return counts[b];
    if (k == 1) return n;
    const std::size_t j = b < k ? b : b % k;
    const std::size_t q = n / k;
    return q + (j < n - q * k ? 1 : 0);
  }
  /// Elements needed to hold blocks 0..nblocks-1.
  constexpr std::size_t extent(std::size_t nblocks) const
  {
    if (nblocks == 0) return 0;
    if (counts == nullptr) return offset(nblocks - 1) + length(nblocks - 1);
    std::size_t e = 0;
    for (std::size_t b = 0; b < nblocks; ++b) e = std::max(e, displs[b] + counts[b]);
    return e;
  }
};

} // namespace collectives
