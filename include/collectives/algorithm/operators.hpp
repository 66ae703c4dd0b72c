#pragma once
// Reduction operators and their traits (as MPL's op_traits). Any associative binary
// function object on T works; results always equal the left fold in rank order
// x0 op x1 op ... op x(p-1). An operator known to be commutative may let an algorithm
// combine in another (cyclic) order; one not known to be commutative is never reordered.

#include <concepts>
#include <functional>
#include <limits>
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
};

/// Marks `op` commutative (the caller's promise: op(a, b) == op(b, a)).
template <class Op>
constexpr Commutative<Op> commutative(Op op) { return {op}; }

/// Traits of operator Op on T: `commutative`, and `identity()` where one exists.
/// Specialise it for your own operators.
template <class Op, class T>
struct op_traits {
  static constexpr bool commutative = false;
};


template <class T, class U>
  requires(std::is_same_v<T, void> || std::is_same_v<T, U>)
struct op_traits<std::plus<T>, U> {
  static constexpr bool commutative = true;
  static constexpr U identity() { return U(0); }
};
template <class T, class U>
  requires(std::is_same_v<T, void> || std::is_same_v<T, U>)
struct op_traits<std::multiplies<T>, U> {
  static constexpr bool commutative = true;
  static constexpr U identity() { return U(1); }
};
template <class T, class U>
  requires(std::is_same_v<T, void> || std::is_same_v<T, U>)
struct op_traits<std::bit_and<T>, U> {
  static constexpr bool commutative = true;
  static constexpr U identity() { return static_cast<U>(~U(0)); }
};
template <class T, class U>
  requires(std::is_same_v<T, void> || std::is_same_v<T, U>)
struct op_traits<std::bit_or<T>, U> {
  static constexpr bool commutative = true;
  static constexpr U identity() { return U(0); }
};
template <class T, class U>
  requires(std::is_same_v<T, void> || std::is_same_v<T, U>)
struct op_traits<std::bit_xor<T>, U> {
  static constexpr bool commutative = true;
  static constexpr U identity() { return U(0); }
};
template <class U>
struct op_traits<minimum, U> {
  static constexpr bool commutative = true;
  static constexpr U identity() requires std::numeric_limits<U>::is_specialized { return std::numeric_limits<U>::max(); }
};
template <class U>
struct op_traits<maximum, U> {
  static constexpr bool commutative = true;
  static constexpr U identity() requires std::numeric_limits<U>::is_specialized { return std::numeric_limits<U>::lowest(); }
};
template <class Op, class U>
struct op_traits<Commutative<Op>, U> {
  static constexpr bool commutative = true;
};

/// True when Op on T is known to be commutative.
template <class Op, class T>
inline constexpr bool is_commutative_v = op_traits<std::remove_cvref_t<Op>, T>::commutative;

/// True when Op on T has a known identity element.
template <class Op, class T>
inline constexpr bool has_identity_v = requires { op_traits<std::remove_cvref_t<Op>, T>::identity(); };

/// An operator the reductions accept on T: callable on two T, returning exactly T.
template <class Op, class T>
concept reduction_operator = std::copy_constructible<Op> && std::invocable<const Op&, const T&, const T&> &&
                             std::same_as<std::remove_cvref_t<std::invoke_result_t<const Op&, const T&, const T&>>, T>;

} // namespace collectives
