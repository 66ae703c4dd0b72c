#pragma once
// All-reduce by recursive doubling (the all-to-all broadcast pattern with combine instead of
// concatenate), folded onto the largest power of two for any p as MPICH does.

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/detail/bits.hpp>
#include <collectives/schedule/fold.hpp>
#include <collectives/schedule/operation.hpp>
#include <collectives/schedule/pattern.hpp>
#include <collectives/schedule/schedule.hpp>
#include <collectives/topology/concepts.hpp>

#include <cstddef>

namespace collectives {

/// Recursive doubling over p' = 2^d virtual ranks, in place: in step i exchange the whole
/// vector with rank XOR 2^i and combine, lower ranks on the left (the all-to-all broadcast
/// pattern of the seeds with combine instead of concatenate). Every rank computes the same
/// tree, so floating-point results are bit-identical on all ranks.
/// Cost: (t_s + t_w m) log p.
class AllreduceDoublingCore {
public:
  constexpr AllreduceDoublingCore(std::size_t p, std::size_t blocks) : p_(p), blocks_(blocks) {}
  constexpr std::size_t size() const { return p_; }
  constexpr std::size_t num_steps() const { return p_ > 1 ? detail::log2_exact(p_) : 0; }
  constexpr std::size_t scratch_blocks() const { return 0; }
  constexpr AllreduceOp operation() const { return {p_, blocks_, false}; }
  /// Every rank does rank 0's step, translated (rank XOR r).
  constexpr Symmetry symmetry(std::size_t) const { return Symmetry::uniform(RankGroup::bits(p_)); }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t step, V& v) const
  {
    const std::size_t partner = r ^ (std::size_t{1} << step);
    const Pattern all = contiguous(Buffer::output, 0, blocks_);
    v.send({partner, all});
    v.recv({partner, all, partner < r ? Combine::left : Combine::right});
  }

private:
  std::size_t p_;
  std::size_t blocks_;
};

/// Recursive doubling for any p (folded onto the largest power of two).
constexpr auto allreduce_doubling_schedule(std::size_t p, bool in_place, bool commutative)
{
  return Folded<AllreduceDoublingCore, AllreduceOp>(p, AllreduceDoublingCore(detail::pow2_floor(p), 1),
                                                    AllreduceOp{p, 1, commutative, in_place}, 1,
                                                    in_place ? Buffer::output : Buffer::input);
}

namespace allreduce_algorithm {
/// Recursive doubling (any p: folded onto a power of two); best for short vectors.
struct RecursiveDoubling : AlgorithmBase<Collective::allreduce> {
  static constexpr const char* name = "recursive_doubling";
  template <topology T>
  static constexpr auto schedule(const T& t, const Problem& pr)
  {
    return allreduce_doubling_schedule(t.size(), pr.in_place, pr.commutative);
  }
};
inline constexpr RecursiveDoubling recursive_doubling{};
} // namespace allreduce_algorithm

} // namespace collectives
