#pragma once
// Range maxima over a fixed array (the estimate's link loads: cost/symmetric_cost.hpp,
// cost/xor_line.hpp).

#include <collectives/detail/bits.hpp>
#include <collectives/detail/zeroed_array.hpp>

#include <algorithm>
#include <cstddef>

namespace collectives::detail {

/// Range maxima over a fixed array (a sparse table): O(n log n) to build, O(1) a query.
class RangeMax {
public:
  constexpr RangeMax() = default;
  /// Over value(0), ..., value(n - 1) (n >= 1).
  template <class F>
  constexpr void build(std::size_t n, F&& value)
  {
    n_ = n;
    levels_ = floor_log2(n_) + 1;
    table_.zero(levels_ * n_);
    for (std::size_t i = 0; i < n_; ++i) table_[i] = value(i);
    for (std::size_t l = 1; l < levels_; ++l) {
      const std::size_t half = std::size_t{1} << (l - 1);
      for (std::size_t i = 0; i + (half << 1) <= n_; ++i)
        table_[l * n_ + i] = std::max(table_[(l - 1) * n_ + i], table_[(l - 1) * n_ + i + half]);
    }
  }
  /// Largest value at lo, ..., hi (lo <= hi < n).
  constexpr std::size_t max(std::size_t lo, std::size_t hi) const
  {
    const std::size_t l = floor_log2(hi - lo + 1);
    return std::max(table_[l * n_ + lo], table_[l * n_ + hi + 1 - (std::size_t{1} << l)]);
  }
  /// Largest value at first, first + 1, ... (count of them, 1 <= count <= n, wrapping).
  constexpr std::size_t max_cyclic(std::size_t first, std::size_t count) const
  {
    if (first + count <= n_) return max(first, first + count - 1);
    return std::max(max(first, n_ - 1), max(0, first + count - n_ - 1));
  }

private:
  std::size_t n_ = 0, levels_ = 0;
  ZeroedArray<std::size_t> table_;
};

} // namespace collectives::detail
