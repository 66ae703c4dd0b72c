#pragma once
// Concat: one schedule after another, as one schedule with its own operation spec. Long-
// message algorithms are compositions (scatter then all-gather, reduce-scatter then gather,
// Rabenseifner's reduce-scatter then all-gather); the parts agree on where the data lies
// between them, and the verifier checks the whole against the composite spec.

#include <collectives/schedule/schedule.hpp>

#include <algorithm>
#include <cstddef>

namespace collectives {

/// Steps of First, then steps of Second; scratch is shared (the larger of the two).
template <schedule First, schedule Second, class Spec>
class Concat {
public:
  constexpr Concat(First first, Second second, Spec spec) : first_(first), second_(second), spec_(spec) {}
  constexpr std::size_t size() const { return first_.size(); }
  constexpr std::size_t num_steps() const { return first_.num_steps() + second_.num_steps(); }
  constexpr std::size_t scratch_blocks() const { return std::max(first_.scratch_blocks(), second_.scratch_blocks()); }
  constexpr Spec operation() const { return spec_; }
  constexpr const First& first() const { return first_; }
  /// The part's statement for the step (none() for a part that states nothing).
  constexpr Symmetry symmetry(std::size_t step) const
  {
    if (step < first_.num_steps()) {
      if constexpr (symmetric_schedule<First>) return first_.symmetry(step);
      else return Symmetry::none();
    } else {
      if constexpr (symmetric_schedule<Second>) return second_.symmetry(step - first_.num_steps());
      else return Symmetry::none();
    }
  }
  constexpr const Second& second() const { return second_; }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t step, V& v) const
  {
    if (step < first_.num_steps()) first_.visit(r, step, v);
    else second_.visit(r, step - first_.num_steps(), v);
  }

  friend constexpr bool operator==(const Concat&, const Concat&) = default;

private:
  First first_;
  Second second_;
  Spec spec_;
};

} // namespace collectives
