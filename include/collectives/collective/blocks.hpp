#pragma once
// Per-rank views of a collective's result.

#include <collectives/collective/buffers.hpp>

#include <compare>
#include <cstddef>
#include <iterator>
#include <span>
#include <type_traits>

// std::ranges::view_base and range_reference_t come with <span>, which brings the ranges'
// base in libstdc++ and libc++ (the range concepts of buffers.hpp do too): <ranges>
// itself, every view and adaptor, cost each translation unit 0.05-0.1 s.

namespace collectives {

/// `count` equal blocks of a contiguous range, as a random-access range of std::span<E>
/// (what blocks() returns). A class of its own rather than iota | transform or
/// view_interface: clang++ 14 cannot instantiate libstdc++ 12's iota_view or view_interface.
template <class E>
class BlockView : public std::ranges::view_base {
public:
  class iterator {
  public:
    using iterator_concept = std::random_access_iterator_tag;
    using iterator_category = std::input_iterator_tag; // yields spans by value
    using value_type = std::span<E>;
    using difference_type = std::ptrdiff_t;

    constexpr iterator() = default;
    constexpr iterator(E* base, std::size_t m, std::size_t i) : base_(base), m_(m), i_(i) {}
    constexpr std::span<E> operator*() const { return {base_ + i_ * m_, m_}; }
    constexpr std::span<E> operator[](difference_type n) const { return *(*this + n); }
    constexpr iterator& operator++() { ++i_; return *this; }
    constexpr iterator operator++(int) { auto t = *this; ++i_; return t; }
    constexpr iterator& operator--() { --i_; return *this; }
    constexpr iterator operator--(int) { auto t = *this; --i_; return t; }
    constexpr iterator& operator+=(difference_type n) { i_ = static_cast<std::size_t>(static_cast<difference_type>(i_) + n); return *this; }
    constexpr iterator& operator-=(difference_type n) { return *this += -n; }
    friend constexpr iterator operator+(iterator a, difference_type n) { return a += n; }
    friend constexpr iterator operator+(difference_type n, iterator a) { return a += n; }
    friend constexpr iterator operator-(iterator a, difference_type n) { return a -= n; }
    friend constexpr difference_type operator-(const iterator& a, const iterator& b)
    {
      return static_cast<difference_type>(a.i_) - static_cast<difference_type>(b.i_);
    }
    friend constexpr bool operator==(const iterator& a, const iterator& b) { return a.i_ == b.i_; }
    friend constexpr auto operator<=>(const iterator& a, const iterator& b) { return a.i_ <=> b.i_; }

  private:
    E* base_ = nullptr;
    std::size_t m_ = 0, i_ = 0;
  };

  constexpr BlockView() = default;
  constexpr BlockView(std::span<E> all, std::size_t count)
    : base_(all.data()), m_(count == 0 ? 0 : all.size() / count), count_(count)
  {
  }
  constexpr iterator begin() const { return {base_, m_, 0}; }
  constexpr iterator end() const { return {base_, m_, count_}; }
  constexpr std::size_t size() const { return count_; }
  constexpr bool empty() const { return count_ == 0; }
  /// Block i (i < size()).
  constexpr std::span<E> operator[](std::size_t i) const { return {base_ + i * m_, m_}; }

private:
  E* base_ = nullptr;
  std::size_t m_ = 0, count_ = 0;
};

/// Range r cut into `count` equal blocks, as a random-access view of std::spans:
/// `for (std::span<double> b : blocks(recv, comm.size()))` walks the per-rank blocks of an
/// alltoall or allgather result (C++20 has no views::chunk). The last r.size() % count
/// elements are in no block; count 0 gives no blocks.
template <buffer R>
constexpr BlockView<std::remove_reference_t<std::ranges::range_reference_t<R>>> blocks(R&& r, std::size_t count)
{
  using E = std::remove_reference_t<std::ranges::range_reference_t<R>>;
  return {std::span<E>(std::ranges::data(r), std::ranges::size(r)), count};
}

} // namespace collectives
