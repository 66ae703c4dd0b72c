#pragma once
// Deferring what a template's body uses to the template's instantiation. clang++
// instantiates at a template's definition what its non-dependent expressions use (a
// vector's growth, an executor run on a fixed type), so every translation unit that
// includes the header pays for it, whether it calls the template or not; an expression
// whose type depends on a template parameter waits for the call.

#include <type_traits>

namespace collectives::detail {

/// T, as a type that depends on D.
template <class D, class T>
using dependent_on = std::conditional_t<sizeof(D) != 0, T, void>;

/// t, seen through a type that depends on D.
template <class D, class T>
constexpr dependent_on<D, T>& deferred(T& t) noexcept
{
  return t;
}

} // namespace collectives::detail
