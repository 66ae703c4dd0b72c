#pragma once
// Checks shared by the reductions: the operator must take two T and return exactly T.

#include <collectives/algorithm/operators.hpp>

#include <type_traits>

namespace collectives::detail {

/// A static_assert naming the call when Op is not a reduction operator on T.
template <class Op, class T>
constexpr void check_reduction_operator()
{
  static_assert(std::is_trivially_copyable_v<T>, "collectives: reduction elements must be trivially copyable");
  static_assert(std::is_invocable_v<const Op&, const T&, const T&>,
                "collectives: the reduction operator cannot be called with two elements of the buffer's type");
  if constexpr (std::is_invocable_v<const Op&, const T&, const T&>)
    static_assert(std::is_same_v<std::remove_cvref_t<std::invoke_result_t<const Op&, const T&, const T&>>, T>,
                  "collectives: the reduction operator's result type is not the buffer's element type");
}

} // namespace collectives::detail
