#pragma once
// Scatter along the ring: a pipeline, p - 1 steps, any p.

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/schedule/operation.hpp>
#include <collectives/schedule/pattern.hpp>
#include <collectives/schedule/schedule.hpp>
#include <collectives/topology/concepts.hpp>

#include <cstddef>

namespace collectives {

/// Pipeline round the ring: in step e the root sends the block for the rank p - e places
/// up, and every rank passes on the block it got in the step before, so all blocks arrive
/// in step p - 1. Any p. Cost: (t_s + t_w m)(p - 1).
class ScatterRingSchedule {
public:
  constexpr ScatterRingSchedule(std::size_t p, std::size_t root) : p_(p), root_(root) {}
  constexpr std::size_t size() const { return p_; }
  constexpr std::size_t num_steps() const { return p_ > 1 ? p_ - 1 : 1; }
  constexpr std::size_t scratch_blocks() const { return 2; }
  /// In every step the root sends one block (schedule.hpp).
  constexpr std::size_t blocks_every_step() const { return p_ > 1 ? 1 : 0; }
  constexpr ScatterOp operation() const { return {p_, root_}; }
  /// Step e - 1: the root sends, the next e - 1 ranks receive and pass on, rank root + e
  /// receives; each run does its first rank's step translated (rank + r).
  constexpr Symmetry symmetry(std::size_t step) const
  {
    const std::size_t p = p_, e = step + 1;
    if (p == 1) return Symmetry::of(RankGroup::cyclic(p), RankClass::only(root_));
    return Symmetry::of(RankGroup::cyclic(p), RankClass::only(root_), RankClass::run((root_ + 1) % p, e - 1),
                        RankClass::only((root_ + e) % p));
  }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t step, V& v) const
  {
    const std::size_t p = p_;
    const std::size_t d = (r + p - root_) % p; // distance from the root
    const Pattern out = contiguous(Buffer::output, 0, 1);
    if (d == 0 && step == 0) v.local({contiguous(Buffer::input, r, 1), out});
    if (p == 1) return;
    const std::size_t e = step + 1;
    const std::size_t next = (r + 1) % p, prev = (r + p - 1) % p;
    if (d == 0) v.send({next, contiguous(Buffer::input, (root_ + p - e) % p, 1)});
    // Rank d receives in steps d..p-1 the block for distance p - 1 - e + d.
    if (d >= 1 && e >= d) {
      const bool mine = e == p - 1;
      v.recv({prev, mine ? out : contiguous(Buffer::scratch, e % 2, 1)});
    }
    // ... and passes on in step e what it got in step e - 1 (unless that was its own).
    if (d >= 1 && e >= d + 1 && e - 1 < p - 1) v.send({next, contiguous(Buffer::scratch, (e - 1) % 2, 1)});
  }

  friend constexpr bool operator==(const ScatterRingSchedule&, const ScatterRingSchedule&) = default;

private:
  std::size_t p_;
  std::size_t root_;
};

namespace scatter_algorithm {
/// A pipeline along the ring, p - 1 steps; any p.
struct Ring : AlgorithmBase<Collective::scatter> {
  static constexpr const char* name = "ring";
  template <topology T>
  static constexpr auto schedule(const T& t, const Problem& pr) { return ScatterRingSchedule(t.size(), pr.root); }
};
inline constexpr Ring ring{};
} // namespace scatter_algorithm

} // namespace collectives
