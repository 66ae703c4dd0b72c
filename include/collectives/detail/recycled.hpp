#pragma once
// Storage for the estimates' per-rank and per-link tables that a thread reuses: the
// default's selection estimates every candidate, and a loop over more problems than a
// communicator keeps picks for selects on every call (issue 12: no allocation per call
// once warmed up). At run time a block freed goes to its thread's short list and the next
// request of at most its size takes it; in constant evaluation it is std::allocator's.

#include <cstddef>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace collectives::detail {

/// A thread's freed blocks (sizes are powers of two, so one block serves requests of
/// several sizes). It keeps the `slots` largest: as many as an estimate holds at once, for
/// a few in turn. Memory kept: what the thread's largest estimates used.
class RecycledBlocks {
public:
  static constexpr std::size_t slots = 32;
  RecycledBlocks() = default;
  RecycledBlocks(const RecycledBlocks&) = delete;
  RecycledBlocks& operator=(const RecycledBlocks&) = delete;
  ~RecycledBlocks()
  {
    for (std::size_t i = 0; i < used_; ++i) ::operator delete(blocks_[i].data);
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
      std::size_t best = mine.used_;
      for (std::size_t i = 0; i < mine.used_; ++i)
        if (mine.blocks_[i].size >= size && (best == mine.used_ || mine.blocks_[i].size < mine.blocks_[best].size))
          best = i;
      if (best != mine.used_) {
        void* data = mine.blocks_[best].data;
        mine.blocks_[best] = mine.blocks_[--mine.used_];
        return data;
      }
    }
    return ::operator new(size);
  }
  /// Gives back a block that take(bytes) returned (on any thread).
  static void give(void* data, std::size_t bytes) noexcept
  {
    std::size_t size = block_size(bytes);
    if (!gone()) {
      RecycledBlocks& mine = of_thread();
      if (mine.used_ < slots) {
        mine.blocks_[mine.used_++] = {data, size};
        return;
      }
      // Full: keep the larger of this block and the smallest kept, free the other.
      std::size_t smallest = 0;
      for (std::size_t i = 1; i < slots; ++i)
        if (mine.blocks_[i].size < mine.blocks_[smallest].size) smallest = i;
      if (mine.blocks_[smallest].size < size) {
        std::swap(data, mine.blocks_[smallest].data);
        std::swap(size, mine.blocks_[smallest].size);
      }
    }
    ::operator delete(data);
  }

private:
  struct Block {
    void* data;
    std::size_t size;
  };
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
  Block blocks_[slots];
  std::size_t used_ = 0;
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
