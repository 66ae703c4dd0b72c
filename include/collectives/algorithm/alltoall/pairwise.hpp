#pragma once
// Alltoall by direct pairwise exchange: in step k every rank trades one block with one
// partner. Two partner rules:
//  - PairwiseSchedule (any p): send to rank + k, receive from rank - k (mod p);
//  - PairwiseXorSchedule (p a power of two, the seeds' optimal hypercube algorithm):
//    partner rank XOR k, congestion-free under E-cube routing.
// Step 0 also copies the rank's own block. Each block is copied once, straight from the
// sender's input into the receiver's output.

#include <collectives/detail/bits.hpp>
#include <collectives/detail/power_of_two.hpp>
#include <collectives/algorithm/algorithm.hpp>
#include <collectives/schedule/operation.hpp>
#include <collectives/schedule/pattern.hpp>
#include <collectives/schedule/schedule.hpp>
#include <collectives/topology/concepts.hpp>

#include <cstddef>

namespace collectives {

/// p - 1 exchanges with partners rank ± k; any p. Cost (one-port, CT):
/// (p - 1)(t_s + t_w m) plus hops.
class PairwiseSchedule {
public:
  constexpr explicit PairwiseSchedule(std::size_t p) : p_(p) {}
  constexpr std::size_t size() const { return p_; }
  constexpr std::size_t num_steps() const { return size() > 1 ? size() - 1 : 1; }
  constexpr std::size_t scratch_blocks() const { return 0; }
  constexpr AlltoallOp operation() const { return {size()}; }
  /// Every rank does rank 0's step, translated (rank + r).
  constexpr Symmetry symmetry(std::size_t) const { return Symmetry::uniform(RankGroup::cyclic(size())); }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t step, V& v) const
  {
    const std::size_t p = size();
    if (step == 0) v.local({contiguous(Buffer::input, r, 1), contiguous(Buffer::output, r, 1)});
    if (p == 1) return;
    const std::size_t k = step + 1;
    const std::size_t to = (r + k) % p;
    const std::size_t from = (r + p - k) % p;
    v.send({to, contiguous(Buffer::input, to, 1)});
    v.recv({from, contiguous(Buffer::output, from, 1)});
  }

  friend constexpr bool operator==(const PairwiseSchedule&, const PairwiseSchedule&) = default;

private:
  std::size_t p_;
};

/// p - 1 exchanges with partner rank XOR k (p a power of two). Cost (one-port, CT, on a
/// hypercube): (p - 1)(t_s + t_w m) + t_h (p/2) log p.
class PairwiseXorSchedule {
public:
  constexpr explicit PairwiseXorSchedule(std::size_t p) : p_(p)
  {
    detail::require_power_of_two_ranks(p_, "collectives::alltoall(pairwise_xor)");
  }
  constexpr std::size_t size() const { return p_; }
  constexpr std::size_t num_steps() const { return size() > 1 ? size() - 1 : 1; }
  constexpr std::size_t scratch_blocks() const { return 0; }
  constexpr AlltoallOp operation() const { return {size()}; }
  /// Every rank does rank 0's step, translated (rank XOR r).
  constexpr Symmetry symmetry(std::size_t) const { return Symmetry::uniform(RankGroup::bits(size())); }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t step, V& v) const
  {
    if (step == 0) v.local({contiguous(Buffer::input, r, 1), contiguous(Buffer::output, r, 1)});
    if (size() == 1) return;
    const std::size_t partner = r ^ (step + 1);
    v.send({partner, contiguous(Buffer::input, partner, 1)});
    v.recv({partner, contiguous(Buffer::output, partner, 1)});
  }

  friend constexpr bool operator==(const PairwiseXorSchedule&, const PairwiseXorSchedule&) = default;

private:
  std::size_t p_;
};

namespace alltoall_algorithm {
/// Direct exchange with partners rank ± k, p - 1 steps; any p.
struct Pairwise : AlgorithmBase<Collective::alltoall> {
  static constexpr const char* name = "pairwise";
  template <topology T> static constexpr auto schedule(const T& t, const Problem&) { return PairwiseSchedule(t.size()); }
};
/// Direct exchange with partner rank XOR k, p - 1 steps; p a power of two (the seeds'
/// optimal hypercube algorithm, congestion-free under E-cube routing).
struct PairwiseXor : AlgorithmBase<Collective::alltoall> {
  static constexpr const char* name = "pairwise_xor";
  static constexpr Needs needs{.power_of_two = true};
  template <topology T> static constexpr auto schedule(const T& t, const Problem&) { return PairwiseXorSchedule(t.size()); }
};
inline constexpr Pairwise pairwise{};
inline constexpr PairwiseXor pairwise_xor{};
} // namespace alltoall_algorithm

} // namespace collectives
