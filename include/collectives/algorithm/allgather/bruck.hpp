#pragma once
// Bruck's all-gather: ceil(log2 p) steps for any p.

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/algorithm/allgather/common.hpp>
#include <collectives/schedule/operation.hpp>
#include <collectives/schedule/pattern.hpp>
#include <collectives/schedule/schedule.hpp>
#include <collectives/topology/concepts.hpp>
#include <collectives/detail/bits.hpp>

#include <cstddef>

namespace collectives {

/// Bruck's all-gather: ceil(log2 p) steps for any p; in step k each rank sends the
/// min(2^k, p - 2^k) blocks it has (from its own, cyclically upward) to r - 2^k.
/// Cost: t_s ceil(log p) + t_w m (p - 1).
class AllgatherBruckSchedule {
public:
  constexpr explicit AllgatherBruckSchedule(std::size_t p, bool in_place = false) : p_(p), in_place_(in_place) {}
  constexpr std::size_t size() const { return p_; }
  constexpr std::size_t num_steps() const { return size() > 1 ? detail::ceil_log2(size()) : 1; }
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
    const std::size_t dist = std::size_t{1} << step;
    const std::size_t n = dist < p - dist ? dist : p - dist;
    v.send({(r + p - dist) % p, step == 0 ? detail::own_block(in_place_, r) : cyclic(Buffer::output, r, n, p)});
    v.recv({(r + dist) % p, cyclic(Buffer::output, r + dist, n, p)});
  }

  friend constexpr bool operator==(const AllgatherBruckSchedule&, const AllgatherBruckSchedule&) = default;

private:
  std::size_t p_;
  bool in_place_;
};

namespace allgather_algorithm {
/// Bruck: ceil(log2 p) steps; any p.
struct Bruck : AlgorithmBase<Collective::allgather> {
  static constexpr const char* name = "bruck";
  template <topology T>
  static constexpr auto schedule(const T& t, const Problem& pr) { return AllgatherBruckSchedule(t.size(), pr.in_place); }
};
inline constexpr Bruck bruck{};
} // namespace allgather_algorithm

} // namespace collectives
