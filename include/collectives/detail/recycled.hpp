#pragma once
// Storage for the estimates' per-rank and per-link tables that a thread reuses: the
// default's selection estimates every candidate, and a loop over more problems than a
// communicator keeps picks for selects on every call (issue 12: no allocation per call
// once warmed up). At run time a block freed goes to its thread's lists (one per size) and the next
// request of at most its size takes it; in constant evaluation it is std::allocator's.

#include <collectives/detail/bits.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace collectives::detail {

/// A thread's freed blocks, by size (sizes are powers of two, so one block serves
/// requests of several sizes). Each size keeps up to `per_size` blocks, as many as an
/// estimate holds of one size at once; a request takes the smallest kept block that is
/// large enough, found from a mask of the sizes held: no search through the blocks, so a
/// small estimate (the default's selection at small p makes several per call) spends
/// almost nothing here. Memory kept: what the thread's estimates used, at most per_size
/// blocks of each size.
class RecycledBlocks {
public:
  static constexpr std::size_t per_size = 8;
  RecycledBlocks() = default;
  RecycledBlocks(const RecycledBlocks&) = delete;
  RecycledBlocks& operator=(const RecycledBlocks&) = delete;
  ~RecycledBlocks()
  {
    for (std::size_t k = 0; k < sizes; ++k)
      for (std::size_t i = 0; i < count_[k]; ++i) ::operator delete(kept_[k][i]);
    gone() = true;
  }

  /// Rounds a request up to the size of block that serves it.
  static std::size_t block_size(std::size_t bytes)
  {
    std::size_t b = 64;
    while (b < bytes) b *= 2;
    return b;
  }
  /// A block of block_size(bytes) bytes: the smallest kept one that is large enough, or a
  /// new one.
  static void* take(std::size_t bytes)
  {
    const std::size_t size = block_size(bytes);
    if (!gone()) {
      RecycledBlocks& mine = of_thread();
      const std::uint64_t larger = mine.held_ >> index_of(size);
      if (larger != 0) {
        const std::size_t k = index_of(size) + countr_zero(larger);
        void* data = mine.kept_[k][--mine.count_[k]];
        if (mine.count_[k] == 0) mine.held_ &= ~(std::uint64_t{1} << k);
        return data;
      }
    }
    return ::operator new(size);
  }
  /// Gives back a block that take(bytes) returned (on any thread).
  static void give(void* data, std::size_t bytes) noexcept
  {
    const std::size_t k = index_of(block_size(bytes));
    if (!gone()) {
      RecycledBlocks& mine = of_thread();
      if (mine.count_[k] < per_size) {
        mine.kept_[k][mine.count_[k]++] = data;
        mine.held_ |= std::uint64_t{1} << k;
        return;
      }
    }
    ::operator delete(data);
  }

private:
  static constexpr std::size_t sizes = 58; // 2^6 .. 2^63 bytes
  static std::size_t index_of(std::size_t block) { return countr_zero(block) - 6; }
  static RecycledBlocks& of_thread()
  {
    static thread_local RecycledBlocks blocks;
    return blocks;
  }
  // Set when the thread's list is destroyed: blocks given back later (by a thread_local or
  // static object destroyed after it) are freed at once.
  static bool& gone()
  {
    static thread_local bool flag = false; // trivially destructible: readable to the thread's end
    return flag;
  }
  void* kept_[sizes][per_size] = {};
  unsigned char count_[sizes] = {};
  std::uint64_t held_ = 0; // bit k: count_[k] > 0
};

/// An allocator whose run-time storage is recycled per thread (RecycledBlocks).
template <class T>
struct RecycledAllocator {
  static_assert(alignof(T) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__, "RecycledAllocator: over-aligned types are not supported");
  using value_type = T;
  constexpr RecycledAllocator() noexcept = default;
  template <class U>
  constexpr RecycledAllocator(const RecycledAllocator<U>&) noexcept
  {
  }
  constexpr T* allocate(std::size_t n)
  {
    if (std::is_constant_evaluated()) return std::allocator<T>{}.allocate(n);
    if (n > static_cast<std::size_t>(-1) / 2 / sizeof(T)) throw std::bad_array_new_length();
    return static_cast<T*>(RecycledBlocks::take(n * sizeof(T)));
  }
  constexpr void deallocate(T* p, std::size_t n) noexcept
  {
    if (std::is_constant_evaluated()) {
      std::allocator<T>{}.deallocate(p, n);
      return;
    }
    RecycledBlocks::give(p, n * sizeof(T));
  }
  template <class U>
  friend constexpr bool operator==(const RecycledAllocator&, const RecycledAllocator<U>&) noexcept
  {
    return true;
  }
};

/// A vector whose run-time storage is recycled per thread.
template <class T>
using RecycledVector = std::vector<T, RecycledAllocator<T>>;

} // namespace collectives::detail
