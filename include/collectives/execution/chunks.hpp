#pragma once
// Cutting a vector of n elements into k blocks (chunks) for the long-message algorithms:
// the first n % k chunks get one element more, as MPICH does.

#include <collectives/execution/executor.hpp>

#include <cstddef>
#include <vector>

namespace collectives::detail {

/// Counts and displacements of n elements cut into k chunks.
struct Chunks {
  std::vector<std::size_t> counts;
  std::vector<std::size_t> displs;
  std::size_t total = 0;

  Chunks(std::size_t n, std::size_t k) : counts(k), displs(k), total(n)
  {
    std::size_t at = 0;
    for (std::size_t j = 0; j < k; ++j) {
      counts[j] = n / k + (j < n % k ? 1 : 0);
      displs[j] = at;
      at += counts[j];
    }
  }
  /// The vector as k blocks.
  BlockLayout layout() const { return BlockLayout{0, counts.data(), displs.data()}; }
  /// Several copies of the vector back to back (scratch space), still k blocks each.
  BlockLayout repeated() const { return BlockLayout{0, counts.data(), displs.data(), counts.size(), total}; }
};

} // namespace collectives::detail
