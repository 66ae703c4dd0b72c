#pragma once
// A non-commutative element type for the reductions' tests: 2x2 matrices and their
// product, associative but not commutative, so a result in the wrong rank order shows.

#include <cstdint>

namespace collectives::testing {

/// A 2x2 matrix over the integers mod 2^32: its product is associative, not commutative.
struct Mat {
  std::uint32_t a, b, c, d;
  friend bool operator==(const Mat&, const Mat&) = default;
};

/// The matrix product, a user lambda (not known to be commutative).
inline constexpr auto mat_mul = [](const Mat& x, const Mat& y) {
  return Mat{x.a * y.a + x.b * y.c, x.a * y.b + x.b * y.d, x.c * y.a + x.d * y.c, x.c * y.b + x.d * y.d};
};

} // namespace collectives::testing
