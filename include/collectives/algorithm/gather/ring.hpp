#pragma once
// Gather along the ring: a pipeline, p - 1 steps, any p.

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/schedule/operation.hpp>
#include <collectives/schedule/pattern.hpp>
#include <collectives/schedule/schedule.hpp>
#include <collectives/topology/concepts.hpp>

#include <cstddef>

namespace collectives {

/// Pipeline round the ring towards the root: in step e the rank e places below the root
/// starts sending its block, and every rank passes on what it got in the step before.
/// Any p. Cost: (t_s + t_w m)(p - 1).
class GatherRingSchedule {
public:
  constexpr GatherRingSchedule(std::size_t p, std::size_t root) : p_(p), root_(root) {}
  constexpr std::size_t size() const { return p_; }
  constexpr std::size_t num_steps() const { return p_ > 1 ? p_ - 1 : 1; }
  constexpr std::size_t scratch_blocks() const { return 2; }
  /// In every step the root receives one block (schedule.hpp).
  constexpr std::size_t blocks_every_step() const { return p_ > 1 ? 1 : 0; }
  constexpr GatherOp operation() const { return {p_, root_}; }
  /// The scatter's symmetry backwards: the root receives, the e - 1 ranks above it
  /// receive and pass on, rank root + e sends (e = p - 1 - step).
  constexpr Symmetry symmetry(std::size_t step) const
  {
    const std::size_t p = p_, e = p - 1 - step;
    if (p == 1) return Symmetry::of(RankGroup::cyclic(p), RankClass::only(root_));
    return Symmetry::of(RankGroup::cyclic(p), RankClass::only(root_), RankClass::run((root_ + 1) % p, e - 1),
                        RankClass::only((root_ + e) % p));
  }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t step, V& v) const
  {
    // ScatterRingSchedule run backwards in time and direction: its step e is step
    // p - 1 - e here, its "send to next" a "receive from next", its "receive from prev"
    // a "send to prev". d is the distance above the root.
    const std::size_t p = p_;
    const std::size_t d = (r + p - root_) % p;
    if (d == 0 && step == 0) v.local({contiguous(Buffer::input, 0, 1), contiguous(Buffer::output, root_, 1)});
    if (p == 1) return;
    const std::size_t e = p - 1 - step;
    const std::size_t next = (r + 1) % p, prev = (r + p - 1) % p;
    if (d == 0) v.recv({next, contiguous(Buffer::output, (root_ + p - e) % p, 1)});
    if (d >= 1 && e >= d) {
      const bool mine = e == p - 1;
      v.send({prev, mine ? contiguous(Buffer::input, 0, 1) : contiguous(Buffer::scratch, e % 2, 1)});
    }
    if (d >= 1 && e >= d + 1) v.recv({next, contiguous(Buffer::scratch, (e - 1) % 2, 1)});
  }

  friend constexpr bool operator==(const GatherRingSchedule&, const GatherRingSchedule&) = default;

private:
  std::size_t p_;
  std::size_t root_;
};

namespace gather_algorithm {
/// A pipeline along the ring, p - 1 steps; any p.
struct Ring : AlgorithmBase<Collective::gather> {
  static constexpr const char* name = "ring";
  template <topology T>
  static constexpr auto schedule(const T& t, const Problem& pr) { return GatherRingSchedule(t.size(), pr.root); }
};
inline constexpr Ring ring{};
} // namespace gather_algorithm

} // namespace collectives
