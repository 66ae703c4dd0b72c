#pragma once
// Either: one of two schedules, chosen at run time, as one schedule type (an algorithm
// whose shape depends on p, such as reduce-scatter by halving for powers of two and
// pairwise otherwise, still states one schedule).

#include <collectives/schedule/schedule.hpp>

#include <cstddef>
#include <variant>

namespace collectives {

/// Runs A or B, whichever it was built from.
template <schedule A, schedule B>
class Either {
public:
  constexpr Either(A a) : s_(std::in_place_index<0>, a) {}
  constexpr Either(B b) : s_(std::in_place_index<1>, b) {}
  constexpr std::size_t size() const { return call([](const auto& s) { return s.size(); }); }
  constexpr std::size_t num_steps() const { return call([](const auto& s) { return s.num_steps(); }); }
  constexpr std::size_t scratch_blocks() const { return call([](const auto& s) { return s.scratch_blocks(); }); }
  constexpr auto operation() const { return call([](const auto& s) { return s.operation(); }); }
  /// The alternative's statement for the step (none() for one that states nothing).
  constexpr Symmetry symmetry(std::size_t step) const
  {
    if (s_.index() == 0) {
      if constexpr (symmetric_schedule<A>) return std::get<0>(s_).symmetry(step);
      else return Symmetry::none();
    } else {
      if constexpr (symmetric_schedule<B>) return std::get<1>(s_).symmetry(step);
      else return Symmetry::none();
    }
  }
  /// True when built from the first alternative.
  constexpr bool first() const { return s_.index() == 0; }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t step, V& v) const
  {
    if (s_.index() == 0) std::get<0>(s_).visit(r, step, v);
    else std::get<1>(s_).visit(r, step, v);
  }

  friend constexpr bool operator==(const Either&, const Either&) = default;

private:
  template <class F>
  constexpr auto call(F f) const
  {
    return s_.index() == 0 ? f(std::get<0>(s_)) : f(std::get<1>(s_));
  }
  std::variant<A, B> s_;
};

} // namespace collectives
