#pragma once
// Prefix sums on a hypercube (the seeds' PREFIX_SUMS_HCUBE).

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/algorithm/scan/common.hpp>
#include <collectives/schedule/operation.hpp>
#include <collectives/schedule/pattern.hpp>
#include <collectives/schedule/schedule.hpp>
#include <collectives/topology/concepts.hpp>
#include <collectives/detail/bits.hpp>
#include <collectives/detail/power_of_two.hpp>

#include <cstddef>

namespace collectives {

/// PREFIX_SUMS_HCUBE: log p steps; in step i trade the subcube total with rank XOR 2^i,
/// add the partner's total to the own one (lower ranks left) and, when the partner is
/// lower, to the result (in the last step only that: the totals are not used again, so
/// only the lower rank of each pair sends).
/// p a power of two. in_place: the input and the output may be the same memory (at p = 2
/// the upper rank's prefix then waits in scratch, its input being its output).
/// Cost: (t_s + t_w m) log p.
class ScanHypercubeSchedule {
public:
  constexpr ScanHypercubeSchedule(std::size_t p, bool exclusive, bool commutative = false, bool in_place = false)
    : p_(p), exclusive_(exclusive), commutative_(commutative), in_place_(in_place)
  {
    detail::require_power_of_two_ranks(p_, "collectives::scan(hypercube)");
  }
  constexpr std::size_t size() const { return p_; }
  constexpr std::size_t num_steps() const { return size() > 1 ? detail::log2_exact(size()) : 1; }
  constexpr std::size_t scratch_blocks() const { return 2; }
  constexpr ScanOp operation() const { return {size(), exclusive_, commutative_}; }
  /// Every rank trades with rank XOR 2^k as rank 0 does, translated (rank XOR r); those
  /// whose partner is lower (bit k set) also fold the partner's total into the result.
  constexpr Symmetry symmetry(std::size_t k) const
  {
    const RankGroup g = RankGroup::bits(size());
    if (size() == 1) return Symmetry::uniform(g);
    const std::size_t bit = std::size_t{1} << k;
    RankClass low = RankClass::everyone(g, 0), high = RankClass::everyone(g, bit);
    low.free = high.free = (size() - 1) & ~bit;
    return Symmetry::in(g).with(low).with(high);
  }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t step, V& v) const
  {
    using namespace detail;
    if (size() == 1) {
      if (!exclusive_) v.local({scan_in, scan_out});
      return;
    }
    const std::size_t bit = std::size_t{1} << step;
    const std::size_t partner = r ^ bit;
    const bool last = step + 1 == num_steps();
    const bool first_lower = (r & (bit - 1)) == 0; // no lower partner in earlier steps
    const Combine into_out = exclusive_ && first_lower ? Combine::copy : Combine::left;
    if (step == 0) {
      if (!last) v.local({scan_in, scan_total});
      if (!exclusive_ && !(last && partner < r)) v.local({scan_in, scan_out});
    }
    if (last) {
      // No total is needed after the last step, so only the result's half moves: the
      // lower rank of each pair sends its total, which the upper one takes straight into
      // its result (combined on receipt where the transport can; for p = 2 the input
      // joins it on the right, in the same pass).
      if (partner > r) {
        v.send({partner, step == 0 ? scan_in : scan_total});
      } else if (step == 0 && !exclusive_ && in_place_) {
        prefix_joins_in_place(v, partner);
      } else if (step == 0 && !exclusive_) {
        v.recv({partner, scan_out});
        v.local({scan_in, scan_out, Combine::right});
      } else if (!exclusive_ || size() == 2) {
        v.recv({partner, scan_out, into_out});
      } else {
        // Exclusive: one upper rank copies (its first lower partner) and the others
        // combine; through scratch, so that every upper rank has one local op, as the
        // step's symmetry says.
        v.recv({partner, scan_msg});
        v.local({scan_msg, scan_out, into_out});
      }
      return;
    }
    v.send({partner, step == 0 ? scan_in : scan_total});
    v.recv({partner, scan_msg});
    v.local({scan_msg, scan_total, partner < r ? Combine::left : Combine::right});
    if (partner < r) v.local({scan_msg, scan_out, into_out});
  }

  friend constexpr bool operator==(const ScanHypercubeSchedule&, const ScanHypercubeSchedule&) = default;

private:
  std::size_t p_;
  bool exclusive_;
  bool commutative_;
  bool in_place_;
};

namespace scan_algorithm {
/// PREFIX_SUMS_HCUBE; p a power of two.
struct Hypercube : AlgorithmBase<Collective::scan> {
  static constexpr const char* name = "hypercube";
  static constexpr Needs needs{.power_of_two = true};
  /// In place the input is read before the output is written (ScanHypercubeSchedule).
  static constexpr bool input_may_alias_output = true;
  template <topology T>
  static constexpr auto schedule(const T& t, const Problem& pr)
  {
    return ScanHypercubeSchedule(t.size(), pr.exclusive, pr.commutative, pr.in_place);
  }
};
inline constexpr Hypercube hypercube{};
} // namespace scan_algorithm

} // namespace collectives
