#pragma once
// Prefix sums through rank 0: every contribution to rank 0, which works out every prefix
// and sends each rank its own. Two steps.

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/algorithm/scan/common.hpp>
#include <collectives/schedule/operation.hpp>
#include <collectives/schedule/pattern.hpp>
#include <collectives/schedule/schedule.hpp>
#include <collectives/topology/concepts.hpp>

#include <cstddef>

namespace collectives {

/// Step 0: every other rank sends its contribution to rank 0, which folds them in rank
/// order into the prefixes x0 op ... op xq in scratch (each received one joins the prefix
/// before it on the left) and, inclusive, copies its own into its output. Step 1: rank 0
/// sends rank q its prefix (exclusive: the one up to q - 1, x0 itself for rank 1; rank p -
/// 1's contribution is then not needed, but is sent so that each step stays a star). Any
/// p and operator. Scratch: p - 1 blocks (only rank 0 touches them). Two steps, so where
/// ranks share cores (lanes, t_sync) two waits for partners where the ring pays p - 1 and
/// recursive doubling log p. Cost (one-port): 2 (p - 1)(t_s + t_w m) + t_r m p inclusive,
/// t_r m (p - 2) exclusive, plus hops.
class ScanLinearSchedule {
public:
  constexpr ScanLinearSchedule(std::size_t p, bool exclusive, bool commutative = false)
    : p_(p), exclusive_(exclusive), commutative_(commutative) {}
  constexpr std::size_t size() const { return p_; }
  constexpr std::size_t num_steps() const { return 2; }
  constexpr std::size_t scratch_blocks() const { return p_ > 1 ? p_ - 1 : 0; }
  constexpr ScanOp operation() const { return {p_, exclusive_, commutative_}; }
  /// Rank 0: it has p - 1 messages in each step, every other rank one.
  constexpr std::size_t busiest_rank(std::size_t) const { return 0; }
  /// Each step stated whole (Symmetry::Star): a fan-in that rank 0 folds (and, inclusive,
  /// its copy), then a fan-out.
  constexpr Symmetry symmetry(std::size_t step) const
  {
    if (step == 0) return Symmetry::fan_in(p_, 0, 1, folds() + (exclusive_ ? 0 : 1));
    return Symmetry::fan_out(p_, 0, 1, 0);
  }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t step, V& v) const
  {
    using namespace detail;
    if (step == 0) {
      if (r != 0) {
        v.send({0, scan_in});
        return;
      }
      for (std::size_t q = 1; q < p_; ++q) v.recv({q, prefix(q)});
      for (std::size_t q = 1; q <= folds(); ++q) v.local({q == 1 ? scan_in : prefix(q - 1), prefix(q), Combine::left});
      if (!exclusive_) v.local({scan_in, scan_out});
      return;
    }
    if (r != 0) {
      v.recv({0, scan_out});
      return;
    }
    for (std::size_t q = 1; q < p_; ++q)
      v.send({q, !exclusive_ ? prefix(q) : q == 1 ? scan_in : prefix(q - 1)});
  }

  friend constexpr bool operator==(const ScanLinearSchedule&, const ScanLinearSchedule&) = default;

private:
  /// Where rank 0 holds the prefix up to rank q (q >= 1; rank q's contribution first).
  static constexpr Pattern prefix(std::size_t q) { return contiguous(Buffer::scratch, q - 1, 1); }
  /// The prefixes rank 0 folds: up to p - 1 inclusive, p - 2 exclusive.
  constexpr std::size_t folds() const
  {
    const std::size_t last = exclusive_ ? 2 : 1;
    return p_ > last ? p_ - last : 0;
  }
  std::size_t p_;
  bool exclusive_;
  bool commutative_;
};

namespace scan_algorithm {
/// Every contribution to rank 0, every prefix back from it: two steps; any p and operator.
struct Linear : AlgorithmBase<Collective::scan> {
  static constexpr const char* name = "linear";
  /// In place: every rank reads its input in step 0 and its result lands in step 1 (rank 0
  /// copies its own onto itself, inclusive, or leaves it, exclusive).
  static constexpr bool input_may_alias_output = true;
  template <topology T>
  static constexpr auto schedule(const T& t, const Problem& pr)
  {
    return ScanLinearSchedule(t.size(), pr.exclusive, pr.commutative);
  }
};
inline constexpr Linear linear{};
} // namespace scan_algorithm

} // namespace collectives
