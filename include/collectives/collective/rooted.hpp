#pragma once
// Shared by the front ends of the rooted collectives (broadcast, reduce, scatter, gather):
// the root, static or dynamic, and its check.

#include <collectives/detail/require.hpp>
#include <collectives/topology/concepts.hpp>

#include <concepts>
#include <cstddef>
#include <string>
#include <type_traits>

namespace collectives {

/// A root known at compile time: broadcast(comm, buf, collectives::root_c<3>).
template <std::size_t R>
inline constexpr std::integral_constant<std::size_t, R> root_c{};

namespace detail {

template <class T>
concept static_root = requires { T::value; } && std::is_empty_v<T>;

/// The root as a rank; out of range is a compile error when both the root and the
/// topology's size are static, else std::invalid_argument naming the call.
template <class Topo, class Root>
constexpr std::size_t checked_root(std::size_t p, Root root, const char* call)
{
  if constexpr (static_root<Root> && static_size_v<Topo> != dynamic_extent)
    static_assert(Root::value < static_size_v<Topo>, "collectives: the root is not a rank of the communicator");
  if constexpr (std::is_signed_v<decltype(+root)>)
    if (root < 0) throw_invalid({call, ": the root is negative"});
  const auto r = static_cast<std::size_t>(root);
  if (r >= p)
    throw_invalid({call, ": root ", r, " is not a rank of a communicator of ", p});
  return r;
}

} // namespace detail

} // namespace collectives
