#pragma once
// What the collectives accept as buffers: contiguous ranges of trivially copyable
// elements (std::vector, std::array, std::span, C arrays, ...), and their static sizes
// when the type knows them.

#include <collectives/topology/extents.hpp>

#include <cstddef>
#include <span>
#include <tuple>
#include <type_traits>

namespace collectives {

/// A contiguous sized range of trivially copyable elements.
template <class R>
concept buffer = std::ranges::contiguous_range<R> && std::ranges::sized_range<R> &&
                 std::is_trivially_copyable_v<std::ranges::range_value_t<R>>;

/// A buffer the collective may write.
template <class R>
concept output_buffer = buffer<R> && !std::is_const_v<std::remove_reference_t<std::ranges::range_reference_t<R>>>;

namespace detail {

/// Number of elements of R known at compile time, or dynamic_extent.
template <class R>
constexpr std::size_t static_extent_of()
{
  using U = std::remove_cvref_t<R>;
  if constexpr (std::is_bounded_array_v<U>) return std::extent_v<U>;
  else if constexpr (requires { U::extent; }) return U::extent;
  else if constexpr (requires { std::tuple_size<U>::value; }) return std::tuple_size<U>::value;
  else return dynamic_extent;
}

template <class R>
inline constexpr std::size_t static_extent_v = static_extent_of<R>();

} // namespace detail
} // namespace collectives
