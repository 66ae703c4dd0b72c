#pragma once
// Either: one of two schedules, chosen at run time, as one schedule type (an algorithm
// whose shape depends on p, such as reduce-scatter by halving for powers of two and
// pairwise otherwise, still states one schedule).

#include <collectives/schedule/schedule.hpp>

#include <cstddef>
#include <type_traits>

namespace collectives {

/// Runs A or B, whichever it was built from. Requirements: A and B trivially copyable and
/// destructible (as every schedule of the library is: sizes, counts and fixed arrays).
template <schedule A, schedule B>
class Either {
  // A union and a flag rather than std::variant: <variant> cost every translation unit
  // that includes a reduction 0.05-0.1 s.
  static_assert(std::is_trivially_copyable_v<A> && std::is_trivially_destructible_v<A> &&
                    std::is_trivially_copyable_v<B> && std::is_trivially_destructible_v<B>,
                "collectives::Either<A, B>: both schedules must be trivially copyable and destructible");

public:
  constexpr Either(A a) : first_(true), s_(a) {}
  constexpr Either(B b) : first_(false), s_(b) {}
  constexpr std::size_t size() const { return call([](const auto& s) { return s.size(); }); }
  constexpr std::size_t num_steps() const { return call([](const auto& s) { return s.num_steps(); }); }
  constexpr std::size_t scratch_blocks() const { return call([](const auto& s) { return s.scratch_blocks(); }); }
  constexpr auto operation() const { return call([](const auto& s) { return s.operation(); }); }
  /// The alternative's statement for the step (none() for one that states nothing).
  constexpr Symmetry symmetry(std::size_t step) const
  {
    if (first_) {
      if constexpr (symmetric_schedule<A>) return s_.a.symmetry(step);
      else return Symmetry::none();
    } else {
      if constexpr (symmetric_schedule<B>) return s_.b.symmetry(step);
      else return Symmetry::none();
    }
  }
  /// True when built from the first alternative.
  constexpr bool first() const { return first_; }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t step, V& v) const
  {
    if (first_) s_.a.visit(r, step, v);
    else s_.b.visit(r, step, v);
  }

  friend constexpr bool operator==(const Either& x, const Either& y)
  {
    return x.first_ == y.first_ && (x.first_ ? x.s_.a == y.s_.a : x.s_.b == y.s_.b);
  }

private:
  template <class F>
  constexpr auto call(F f) const
  {
    return first_ ? f(s_.a) : f(s_.b);
  }
  union Alternatives {
    constexpr Alternatives(A x) : a(x) {}
    constexpr Alternatives(B y) : b(y) {}
    A a;
    B b;
  };
  bool first_;
  Alternatives s_;
};

} // namespace collectives
