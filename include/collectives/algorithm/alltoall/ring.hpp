#pragma once
// Alltoall on a ring (seed 000, section 4.5.1), any p, any topology (mapped by rank order).
//  - RingSchedule (one way): in exchange e = 1..p-1 every rank passes p - e blocks to
//    rank + 1; each rank keeps the first block it receives and forwards the rest.
//  - RingTwoWaySchedule: the blocks for ranks + 1 .. + ceil((p-1)/2) travel one way and
//    the others the other way, halving the t_w term.
// Received blocks alternate between two scratch halves per direction, so a step never
// overwrites what it is still sending.

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/schedule/operation.hpp>
#include <collectives/schedule/pattern.hpp>
#include <collectives/schedule/schedule.hpp>
#include <collectives/topology/concepts.hpp>

#include <cstddef>

namespace collectives {

/// One-way ring alltoall: p - 1 steps, messages of p - 1, p - 2, ..., 1 blocks.
/// Cost (one-port): (t_s + t_w m p / 2)(p - 1).
class RingSchedule {
public:
  constexpr explicit RingSchedule(std::size_t p) : p_(p) {}
  constexpr std::size_t size() const { return p_; }
  constexpr std::size_t num_steps() const { return size() > 1 ? size() - 1 : 1; }
  constexpr std::size_t scratch_blocks() const { return 2 * (size() - 1); }
  constexpr AlltoallOp operation() const { return {size()}; }
  /// Every rank does rank 0's step, translated (rank + r).
  constexpr Symmetry symmetry(std::size_t) const { return Symmetry::uniform(RankGroup::cyclic(size())); }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t step, V& v) const
  {
    const std::size_t p = size();
    if (step == 0) v.local({contiguous(Buffer::input, r, 1), contiguous(Buffer::output, r, 1)});
    if (p == 1) return;
    const std::size_t e = step + 1;     // exchange number 1..p-1
    const std::size_t n = p - e;        // blocks in flight
    const std::size_t next = (r + 1) % p;
    const std::size_t prev = (r + p - 1) % p;
    // Received blocks, ordered by destination starting with this rank.
    const Pattern into = contiguous(Buffer::scratch, half(e), n);
    if (e == 1) v.send({next, cyclic(Buffer::input, r + 1, n, p)});
    else v.send({next, contiguous(Buffer::scratch, half(e - 1) + 1, n)});
    v.recv({prev, into});
    v.local({contiguous(Buffer::scratch, half(e), 1), contiguous(Buffer::output, (r + p - e) % p, 1)});
  }

  friend constexpr bool operator==(const RingSchedule&, const RingSchedule&) = default;

private:
  constexpr std::size_t half(std::size_t e) const { return (e % 2) * (size() - 1); }
  std::size_t p_;
};

/// Two-way ring alltoall: ceil((p-1)/2) steps, each sending to both neighbours.
/// Cost (all-port ring, both directions): about (t_s + t_w m p / 4)(p - 1)... see cost/.
class RingTwoWaySchedule {
public:
  constexpr explicit RingTwoWaySchedule(std::size_t p) : p_(p) {}
  constexpr std::size_t size() const { return p_; }
  /// Blocks going up (to rank + 1 ..) and down.
  constexpr std::size_t up() const { return size() / 2; }
  constexpr std::size_t down() const { return size() > 0 ? (size() - 1) / 2 : 0; }
  constexpr std::size_t num_steps() const { return up() > 0 ? up() : 1; }
  constexpr std::size_t scratch_blocks() const { return 2 * up() + 2 * down(); }
  constexpr AlltoallOp operation() const { return {size()}; }
  /// Every rank does rank 0's step, translated (rank + r).
  constexpr Symmetry symmetry(std::size_t) const { return Symmetry::uniform(RankGroup::cyclic(size())); }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t step, V& v) const
  {
    const std::size_t p = size();
    if (step == 0) v.local({contiguous(Buffer::input, r, 1), contiguous(Buffer::output, r, 1)});
    if (p == 1) return;
    const std::size_t e = step + 1;
    const std::size_t next = (r + 1) % p;
    const std::size_t prev = (r + p - 1) % p;
    if (e <= up()) {
      // Upward: blocks ordered by destination, this rank's first.
      const std::size_t n = up() - e + 1;
      if (e == 1) v.send({next, cyclic(Buffer::input, r + 1, n, p)});
      else v.send({next, contiguous(Buffer::scratch, up_half(e - 1) + 1, n)});
      v.recv({prev, contiguous(Buffer::scratch, up_half(e), n)});
      v.local({contiguous(Buffer::scratch, up_half(e), 1), contiguous(Buffer::output, (r + p - e) % p, 1)});
    }
    if (e <= down()) {
      // Downward: blocks ordered by destination going down, this rank's first.
      const std::size_t n = down() - e + 1;
      if (e == 1) v.send({prev, cyclic_down(Buffer::input, r + p - 1, n, p)});
      else v.send({prev, contiguous(Buffer::scratch, down_half(e - 1) + 1, n)});
      v.recv({next, contiguous(Buffer::scratch, down_half(e), n)});
      v.local({contiguous(Buffer::scratch, down_half(e), 1), contiguous(Buffer::output, (r + e) % p, 1)});
    }
  }

  friend constexpr bool operator==(const RingTwoWaySchedule&, const RingTwoWaySchedule&) = default;

private:
  constexpr std::size_t up_half(std::size_t e) const { return (e % 2) * up(); }
  constexpr std::size_t down_half(std::size_t e) const { return 2 * up() + (e % 2) * down(); }
  std::size_t p_;
};

namespace alltoall_algorithm {
/// One-way ring, p - 1 steps of shrinking messages; any p.
struct Ring : AlgorithmBase<Collective::alltoall> {
  static constexpr const char* name = "ring";
  template <topology T> static constexpr auto schedule(const T& t, const Problem&) { return RingSchedule(t.size()); }
};
/// Both ways round the ring, about p/2 steps; any p.
struct RingTwoWay : AlgorithmBase<Collective::alltoall> {
  static constexpr const char* name = "ring_two_way";
  template <topology T> static constexpr auto schedule(const T& t, const Problem&) { return RingTwoWaySchedule(t.size()); }
};
inline constexpr Ring ring{};
inline constexpr RingTwoWay ring_two_way{};
} // namespace alltoall_algorithm

} // namespace collectives
