#pragma once
// Prefix sums by recursive doubling (Hillis-Steele): ceil(log2 p) steps, any p.

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/algorithm/scan/common.hpp>
#include <collectives/schedule/operation.hpp>
#include <collectives/schedule/pattern.hpp>
#include <collectives/schedule/schedule.hpp>
#include <collectives/topology/concepts.hpp>
#include <collectives/detail/bits.hpp>

#include <cstddef>
#include <utility>

namespace collectives {

/// Recursive doubling for any p (Hillis–Steele): in step k rank r sends its partial, which
/// covers ranks r - 2^k + 1 .. r, to r + 2^k. ceil(log2 p) steps.
/// Cost: (t_s + t_w m) ceil(log p).
/// in_place: the input and the output may be the same memory (the first prefix then
/// arrives in scratch, not in the output, which still holds the input).
class ScanDoublingSchedule {
public:
  constexpr ScanDoublingSchedule(std::size_t p, bool exclusive, bool commutative = false, bool in_place = false)
    : p_(p), exclusive_(exclusive), commutative_(commutative), in_place_(in_place) {}
  constexpr std::size_t size() const { return p_; }
  constexpr std::size_t num_steps() const { return size() > 1 ? detail::ceil_log2(size()) : 1; }
  /// scan_total (exclusive), scan_msg (exclusive or in place)
  constexpr std::size_t scratch_blocks() const { return exclusive_ || in_place_ ? 2 : 0; }
  constexpr ScanOp operation() const { return {size(), exclusive_, commutative_}; }
  /// Ranks below p - 2^k send to rank + 2^k and ranks from 2^k receive (and fold): three
  /// runs of ranks, each doing its first rank's step translated (rank + r).
  constexpr Symmetry symmetry(std::size_t k) const
  {
    const std::size_t p = size();
    const RankGroup g = RankGroup::cyclic(p);
    if (p == 1) return Symmetry::uniform(g);
    const std::size_t dist = std::size_t{1} << k;
    const std::size_t lo = dist < p - dist ? dist : p - dist; // ranks [0, lo) only send
    const std::size_t hi = dist < p - dist ? p - dist : dist; // ranks [hi, p) only receive
    if (exclusive_) {
      // Also whether a rank sends its partial again later (r + 2 dist < p): runs between
      // the boundaries dist, p - dist and p - 2 dist; ranks that neither send nor receive
      // do nothing.
      std::size_t cut[5] = {0, dist, p - dist, 2 * dist < p ? p - 2 * dist : 0, p};
      for (std::size_t i = 1; i < 5; ++i) // insertion sort of five
        for (std::size_t j = i; j > 0 && cut[j] < cut[j - 1]; --j) std::swap(cut[j], cut[j - 1]);
      Symmetry s = Symmetry::in(g);
      for (std::size_t i = 0; i + 1 < 5; ++i)
        if (cut[i] < cut[i + 1] && (cut[i] >= dist || cut[i] + dist < p))
          s = s.with(RankClass::run(cut[i], cut[i + 1] - cut[i]));
      return s;
    }
    Symmetry s = Symmetry::in(g).with(RankClass::run(0, lo)).with(RankClass::run(hi, p - hi));
    if (dist < p - dist) return s.with(RankClass::run(dist, p - 2 * dist)); // both
    return s; // ranks [p - dist, dist) do nothing (k > 0: step 0 has dist = 1 < p - 1 or p = 2)
  }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t step, V& v) const
  {
    using namespace detail;
    const std::size_t p = size();
    const Pattern partial = exclusive_ ? scan_total : scan_out;
    const std::size_t dist = std::size_t{1} << step;
    if (exclusive_) {
      // The partial (scratch) is kept only by a rank that sends it in a later step; the
      // result takes the first prefix as it arrives, and later ones on the left (on
      // receipt, where nothing else needs them).
      if (p == 1) return;
      const bool keeps = r + 2 * dist < p;
      if (step == 0 && keeps) v.local({scan_in, scan_total});
      if (r + dist < p) v.send({r + dist, step == 0 ? scan_in : scan_total});
      if (r < dist) return;
      if (step == 0 && in_place_) {
        // The input (the output) is copied to the partial above before the prefix replaces it.
        v.recv({r - 1, scan_msg});
        v.local({scan_msg, scan_out});
        if (keeps) v.local({scan_msg, scan_total, Combine::left});
      } else if (step == 0) {
        v.recv({r - 1, scan_out});
        if (keeps) v.local({scan_out, scan_total, Combine::left});
      } else if (keeps) {
        v.recv({r - dist, scan_msg});
        v.local({scan_msg, scan_total, Combine::left});
        v.local({scan_msg, scan_out, Combine::left});
      } else {
        v.recv({r - dist, scan_out, Combine::left});
      }
      return;
    }
    if (!exclusive_ && p > 1 && r >= dist) {
      // Inclusive: the incoming prefix joins the partial on the left, combined on receipt
      // where the transport can (a rank that also sends its partial this step has it
      // copied aside first). At step 0 the prefix lands in the output and the input joins
      // it on the right: one pass over each byte instead of a copy and a combine.
      if (step == 0 && in_place_) {
        if (r + dist < p) v.send({r + dist, scan_in});
        prefix_joins_in_place(v, r - dist);
      } else if (step == 0) {
        if (r + dist < p) v.send({r + dist, scan_in});
        v.recv({r - dist, scan_out});
        v.local({scan_in, scan_out, Combine::right});
      } else {
        if (r + dist < p) v.send({r + dist, partial});
        v.recv({r - dist, partial, Combine::left});
      }
      return;
    }
    if (step == 0) v.local({scan_in, partial});
    if (p == 1) return;
    if (r + dist < p) v.send({r + dist, step == 0 ? scan_in : partial});
    if (r >= dist) {
      v.recv({r - dist, scan_msg});
      // Locals run in order: the initial copy above happens first.
      v.local({scan_msg, partial, Combine::left});
      if (exclusive_) v.local({scan_msg, scan_out, step == 0 ? Combine::copy : Combine::left});
    }
  }

  friend constexpr bool operator==(const ScanDoublingSchedule&, const ScanDoublingSchedule&) = default;

private:
  std::size_t p_;
  bool exclusive_;
  bool commutative_;
  bool in_place_;
};

namespace scan_algorithm {
/// Recursive doubling (Hillis-Steele), ceil(log2 p) steps; any p.
struct RecursiveDoubling : AlgorithmBase<Collective::scan> {
  static constexpr const char* name = "recursive_doubling";
  /// In place the input is read before the output is written (ScanDoublingSchedule).
  static constexpr bool input_may_alias_output = true;
  template <topology T>
  static constexpr auto schedule(const T& t, const Problem& pr)
  {
    return ScanDoublingSchedule(t.size(), pr.exclusive, pr.commutative, pr.in_place);
  }
};
inline constexpr RecursiveDoubling recursive_doubling{};
} // namespace scan_algorithm

} // namespace collectives
