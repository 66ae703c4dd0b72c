#pragma once
// A run-time-sized array of value-initialised elements that owns its storage, for the
// estimate's per-rank and per-link tables (cost/). Why not std::vector: in constant
// evaluation, vector's assign(n, v) and resize(n) construct the elements one by one, and
// the compilers count each against their limits (clang++ 14: about 24 steps an element,
// 100 k for a Mesh<32,32>'s links), where `new T[n]()` is one step for a scalar and one an
// element for a class. At run time its storage is recycled per thread (recycled.hpp), so
// that an estimate made again allocates nothing once warmed up.

#include <collectives/detail/recycled.hpp>

#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>

namespace collectives::detail {

template <class T>
class ZeroedArray {
  static_assert(std::is_trivially_destructible_v<T> && std::is_trivially_copyable_v<T>,
                "ZeroedArray: its run-time storage is raw recycled memory");

public:
  constexpr ZeroedArray() = default;
  constexpr ZeroedArray(const ZeroedArray& other)
  {
    zero(other.size_);
    for (std::size_t i = 0; i < size_; ++i) data_[i] = other.data_[i];
  }
  constexpr ZeroedArray(ZeroedArray&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0))
  {
  }
  constexpr ZeroedArray& operator=(ZeroedArray other) noexcept
  {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    return *this;
  }
  constexpr ~ZeroedArray() { release(); }

  /// Replaces the contents with n value-initialised elements.
  constexpr void zero(std::size_t n)
  {
    release();
    if (n == 0) return;
    if (std::is_constant_evaluated()) {
      data_ = new T[n]();
    } else {
      data_ = RecycledAllocator<T>{}.allocate(n);
      std::uninitialized_value_construct_n(data_, n);
    }
    size_ = n;
  }
  constexpr bool empty() const { return size_ == 0; }
  constexpr std::size_t size() const { return size_; }
  constexpr T* data() { return data_; }
  constexpr const T* data() const { return data_; }
  constexpr T& operator[](std::size_t i) { return data_[i]; }
  constexpr const T& operator[](std::size_t i) const { return data_[i]; }

private:
  constexpr void release() noexcept
  {
    if (data_ != nullptr) {
      if (std::is_constant_evaluated())
        delete[] data_;
      else
        RecycledAllocator<T>{}.deallocate(data_, size_);
    }
    data_ = nullptr;
    size_ = 0;
  }

  T* data_ = nullptr;
  std::size_t size_ = 0;
};

} // namespace collectives::detail
