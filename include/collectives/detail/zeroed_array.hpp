#pragma once
// A run-time-sized array of value-initialised elements that owns its storage, for the
// estimate's per-rank and per-link tables (cost/). Why not std::vector: in constant
// evaluation, vector's assign(n, v) and resize(n) construct the elements one by one, and
// the compilers count each against their limits (clang++ 14: about 24 steps an element,
// 100 k for a Mesh<32,32>'s links), where `new T[n]()` is one step for a scalar and one an
// element for a class. At run time it is the same zeroed allocation.

#include <cstddef>
#include <utility>

namespace collectives::detail {

template <class T>
class ZeroedArray {
public:
  constexpr ZeroedArray() = default;
  constexpr ZeroedArray(const ZeroedArray& other) : data_(other.size_ ? new T[other.size_]() : nullptr), size_(other.size_)
  {
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
  constexpr ~ZeroedArray() { delete[] data_; }

  /// Replaces the contents with n value-initialised elements.
  constexpr void zero(std::size_t n)
  {
    delete[] data_;
    data_ = n ? new T[n]() : nullptr;
    size_ = n;
  }
  constexpr bool empty() const { return size_ == 0; }
  constexpr std::size_t size() const { return size_; }
  constexpr T* data() { return data_; }
  constexpr const T* data() const { return data_; }
  constexpr T& operator[](std::size_t i) { return data_[i]; }
  constexpr const T& operator[](std::size_t i) const { return data_[i]; }

private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

} // namespace collectives::detail
