#pragma once
// All-gather round the ring (the seeds' ALL_TO_ALL_BC_RING).

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/algorithm/allgather/common.hpp>
#include <collectives/schedule/operation.hpp>
#include <collectives/schedule/pattern.hpp>
#include <collectives/schedule/schedule.hpp>
#include <collectives/topology/concepts.hpp>

#include <cstddef>

namespace collectives {

/// ALL_TO_ALL_BC_RING: p - 1 steps; in step e each rank passes block (r - e + 1) to r + 1.
/// Any p. Cost (one-port): (t_s + t_w m)(p - 1).
class AllgatherRingSchedule {
public:
  constexpr explicit AllgatherRingSchedule(std::size_t p, bool in_place = false) : p_(p), in_place_(in_place) {}
  constexpr std::size_t size() const { return p_; }
  constexpr std::size_t num_steps() const { return size() > 1 ? size() - 1 : 1; }
  constexpr std::size_t scratch_blocks() const { return 0; }
  constexpr AllgatherOp operation() const { return {size(), in_place_}; }
  /// Every rank does rank 0's step, translated (rank + r).
  constexpr Symmetry symmetry(std::size_t) const { return Symmetry::uniform(RankGroup::cyclic(size())); }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t step, V& v) const
  {
    const std::size_t p = size();
    if (step == 0 && !in_place_) v.local({contiguous(Buffer::input, 0, 1), contiguous(Buffer::output, r, 1)});
    if (p == 1) return;
    const std::size_t e = step + 1;
    const std::size_t out_block = (r + p - e + 1) % p;
    v.send({(r + 1) % p, e == 1 ? detail::own_block(in_place_, r) : contiguous(Buffer::output, out_block, 1)});
    v.recv({(r + p - 1) % p, contiguous(Buffer::output, (r + p - e) % p, 1)});
  }

  friend constexpr bool operator==(const AllgatherRingSchedule&, const AllgatherRingSchedule&) = default;

private:
  std::size_t p_;
  bool in_place_;
};

namespace allgather_algorithm {
/// ALL_TO_ALL_BC_RING: p - 1 steps; any p.
struct Ring : AlgorithmBase<Collective::allgather> {
  static constexpr const char* name = "ring";
  template <topology T>
  static constexpr auto schedule(const T& t, const Problem& pr) { return AllgatherRingSchedule(t.size(), pr.in_place); }
};
inline constexpr Ring ring{};
} // namespace allgather_algorithm

} // namespace collectives
