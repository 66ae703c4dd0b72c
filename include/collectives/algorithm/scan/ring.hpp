#pragma once
// Prefix sums along the ring: a pipeline, p - 1 steps.

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/algorithm/scan/common.hpp>
#include <collectives/schedule/operation.hpp>
#include <collectives/schedule/pattern.hpp>
#include <collectives/schedule/schedule.hpp>
#include <collectives/topology/concepts.hpp>

#include <cstddef>

namespace collectives {

/// Pipeline along the ring: in step s rank s hands its inclusive prefix to rank s + 1.
/// Any p. Cost: (t_s + t_w m)(p - 1).
/// in_place: the input and the output may be the same memory (the prefix then arrives in
/// scratch, not in the output, which still holds the input).
class ScanRingSchedule {
public:
  constexpr ScanRingSchedule(std::size_t p, bool exclusive, bool commutative = false, bool in_place = false)
    : p_(p), exclusive_(exclusive), commutative_(commutative), in_place_(in_place) {}
  constexpr std::size_t size() const { return p_; }
  constexpr std::size_t num_steps() const { return size() > 1 ? size() - 1 : 1; }
  /// scan_total (exclusive), scan_msg (in place)
  constexpr std::size_t scratch_blocks() const { return in_place_ ? 2 : exclusive_ ? 1 : 0; }
  constexpr ScanOp operation() const { return {size(), exclusive_, commutative_}; }
  /// Step s involves ranks s and s + 1 only.
  constexpr Symmetry symmetry(std::size_t step) const
  {
    if (step + 1 >= size()) return Symmetry::of(RankGroup::cyclic(size()), RankClass::only(step));
    return Symmetry::of(RankGroup::cyclic(size()), RankClass::only(step), RankClass::only(step + 1));
  }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t step, V& v) const
  {
    using namespace detail;
    const std::size_t p = size();
    // The inclusive prefix this rank forwards: the output, or (exclusive) scratch.
    const Pattern inclusive = exclusive_ ? scan_total : scan_out;
    if (r == 0 && step == 0 && !exclusive_) v.local({scan_in, scan_out});
    if (p == 1) return;
    if (step == r && r + 1 < p) v.send({r + 1, r == 0 ? scan_in : inclusive});
    if (step + 1 == r && in_place_ && !exclusive_) {
      prefix_joins_in_place(v, r - 1);
    } else if (step + 1 == r && in_place_ && r + 1 < p) {
      // Exclusive: the prefix waits in scratch while the input (the output) is read.
      v.recv({r - 1, scan_msg});
      v.local({scan_in, scan_total});
      v.local({scan_msg, scan_out});
      v.local({scan_msg, scan_total, Combine::left});
    } else if (step + 1 == r) {
      if (exclusive_) {
        v.recv({r - 1, scan_out});
        if (r + 1 < p) {
          v.local({scan_in, scan_total});
          v.local({scan_out, scan_total, Combine::left});
        }
      } else {
        // The prefix lands in the output and this rank's input joins it on the right: on a
        // transport that combines on receipt, one pass (prefix op input) over each byte.
        v.recv({r - 1, scan_out});
        v.local({scan_in, scan_out, Combine::right});
      }
    }
  }

  friend constexpr bool operator==(const ScanRingSchedule&, const ScanRingSchedule&) = default;

private:
  std::size_t p_;
  bool exclusive_;
  bool commutative_;
  bool in_place_;
};

namespace scan_algorithm {
/// Pipeline along the ring, p - 1 steps; any p.
struct Ring : AlgorithmBase<Collective::scan> {
  static constexpr const char* name = "ring";
  /// In place the input is read before the output is written (ScanRingSchedule).
  static constexpr bool input_may_alias_output = true;
  template <topology T>
  static constexpr auto schedule(const T& t, const Problem& pr)
  {
    return ScanRingSchedule(t.size(), pr.exclusive, pr.commutative, pr.in_place);
  }
};
inline constexpr Ring ring{};
} // namespace scan_algorithm

} // namespace collectives
