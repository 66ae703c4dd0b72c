#pragma once
// Reduction operators and their traits (as MPL's op_traits). Any associative binary
// function object on T works; results always equal the left fold in rank order
// x0 op x1 op ... op x(p-1). An operator known to be commutative may let an algorithm
// combine in another (cyclic) order; one not known to be commutative is never reordered.

#include <concepts>
#include <cstddef>
#include <functional>
#include <type_traits>

namespace collectives {

/// The smaller of two values (by <).
struct minimum {
  template <class T>
  constexpr T operator()(const T& a, const T& b) const { return b < a ? b : a; }
};

/// The larger of two values (by <).
struct maximum {
  template <class T>
  constexpr T operator()(const T& a, const T& b) const { return a < b ? b : a; }
};

/// Wraps a user's operator and declares it commutative: `commutative(my_op)`.
template <class Op>
struct Commutative {
  Op op;
  template <class T>
  constexpr T operator()(const T& a, const T& b) const { return op(a, b); }
  /// The array form, when `op` has one (array_operator).
  template <class T>
    requires requires(const Op& o, const T* in, T* inout, std::size_t n) { o.apply(in, inout, n); }
  constexpr void apply(const T* in, T* inout, std::size_t n) const { op.apply(in, inout, n); }
};

/// Marks `op` commutative (the caller's promise: op(a, b) == op(b, a)).
template <class Op>
constexpr Commutative<Op> commutative(Op op) { return {op}; }

/// Traits of operator Op on T: `commutative` (the operator may be reordered).
/// Specialise it for your own operators, or wrap them: commutative(op).
template <class Op, class T>
struct op_traits {
  static constexpr bool commutative = false;
};

namespace detail {

/// The element types on which the standard operators below are known to commute: the
/// arithmetic types. On a type of the user's, `a + b` may be a concatenation and `a * b` a
/// matrix product, so std::plus<> there is not reordered unless the user says so
/// (commutative(std::plus<>{}), or a specialisation of op_traits; std::complex too).
template <class T, class U>
concept standard_op_on = (std::is_same_v<T, void> || std::is_same_v<T, U>) && std::is_arithmetic_v<U>;

} // namespace detail

template <class T, class U>
  requires detail::standard_op_on<T, U>
struct op_traits<std::plus<T>, U> {
  static constexpr bool commutative = true;
};
template <class T, class U>
  requires detail::standard_op_on<T, U>
struct op_traits<std::multiplies<T>, U> {
  static constexpr bool commutative = true;
};
template <class T, class U>
  requires detail::standard_op_on<T, U>
struct op_traits<std::bit_and<T>, U> {
  static constexpr bool commutative = true;
};
template <class T, class U>
  requires detail::standard_op_on<T, U>
struct op_traits<std::bit_or<T>, U> {
  static constexpr bool commutative = true;
};
template <class T, class U>
  requires detail::standard_op_on<T, U>
struct op_traits<std::bit_xor<T>, U> {
  static constexpr bool commutative = true;
};
// minimum and maximum keep the left operand on ties: on a type of the user's, equal
// elements may differ (a value and its rank), and reordering would change which is kept.
template <class U>
  requires std::is_arithmetic_v<U>
struct op_traits<minimum, U> {
  static constexpr bool commutative = true;
};
template <class U>
  requires std::is_arithmetic_v<U>
struct op_traits<maximum, U> {
  static constexpr bool commutative = true;
};
template <class Op, class U>
struct op_traits<Commutative<Op>, U> {
  static constexpr bool commutative = true;
};

/// True when Op on T is known to be commutative.
template <class Op, class T>
inline constexpr bool is_commutative_v = op_traits<std::remove_cvref_t<Op>, T>::commutative;

/// True when Op may run on two threads at once, over disjoint elements of one message:
/// the threads transport then lets a sender that would only wait combine half of a large
/// receive. By default, operators without state (no data members: std::plus<>, minimum,
/// a lambda that captures nothing) and commutative() of them; specialise it (`template <>
/// inline constexpr bool collectives::concurrent_operator_v<MyOp> = true;`) for an
/// operator whose state is safe to share, or false for one that touches global state.
template <class Op>
inline constexpr bool concurrent_operator_v = std::is_empty_v<Op>;
template <class Op>
inline constexpr bool concurrent_operator_v<Commutative<Op>> = concurrent_operator_v<Op>;



/// An operator on arrays (MPI's user-function convention): op.apply(in, inout, n) sets
/// inout[i] = in[i] op inout[i] for i < n, `in` holding the lower ranks' contributions.
/// The reductions call it once per block instead of once per element; an operator may
/// offer both forms (the array one is used).
template <class Op, class T>
concept array_operator = requires(const Op& op, const T* in, T* inout, std::size_t n) { op.apply(in, inout, n); };

namespace detail {

/// A static_assert naming the call when Op is not a reduction operator on T: callable on
/// two T returning exactly T, or an array_operator.
template <class Op, class T>
constexpr void check_reduction_operator()
{
  static_assert(std::is_trivially_copyable_v<T>, "collectives: reduction elements must be trivially copyable");
  if constexpr (!array_operator<Op, T>) {
    static_assert(std::is_invocable_v<const Op&, const T&, const T&>,
                  "collectives: the reduction operator cannot be called with two elements of the buffer's type");
    if constexpr (std::is_invocable_v<const Op&, const T&, const T&>)
      static_assert(std::is_same_v<std::remove_cvref_t<std::invoke_result_t<const Op&, const T&, const T&>>, T>,
                    "collectives: the reduction operator's result type is not the buffer's element type");
  }
}

} // namespace detail

} // namespace collectives
