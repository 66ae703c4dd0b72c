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
/// With `src` other than the output, virtual ranks from `loaded` on still have their
/// contribution there (see Folded): their first step sends it from `src` and combines the
/// partner's into the output with it, one pass over each byte instead of a copy and then
/// an exchange in place (whose combining receive a transport must stage, since the same
/// bytes go out).
class AllreduceDoublingCore {
public:
  constexpr AllreduceDoublingCore(std::size_t p, std::size_t blocks, Buffer src = Buffer::output,
                                  std::size_t loaded = 0)
    : p_(p), blocks_(blocks), src_(src), loaded_(loaded) {}
  constexpr std::size_t size() const { return p_; }
  constexpr std::size_t num_steps() const { return p_ > 1 ? detail::log2_exact(p_) : 0; }
  constexpr std::size_t scratch_blocks() const { return 0; }
  constexpr AllreduceOp operation() const { return {p_, blocks_, false}; }
  /// Virtual ranks from `loaded` on read their contribution from `src` (see Folded).
  constexpr bool loads_contributions() const { return src_ != Buffer::output; }
  /// Every rank does rank 0's step, translated (rank XOR r); not step 0 when some ranks
  /// start from the output and the others from `src`.
  constexpr Symmetry symmetry(std::size_t step) const
  {
    if (step == 0 && loads_contributions() && loaded_ != 0) return Symmetry::none();
    return Symmetry::uniform(RankGroup::bits(p_));
  }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t step, V& v) const
  {
    const std::size_t partner = r ^ (std::size_t{1} << step);
    const Pattern all = contiguous(Buffer::output, 0, blocks_);
    if (step == 0 && loads_contributions() && r >= loaded_) {
      // The partner's vector lands in the output and this rank's joins it from `src`,
      // lower ranks on the left.
      const Pattern mine = contiguous(src_, 0, blocks_);
      v.send({partner, mine});
      v.recv({partner, all});
      v.local({mine, all, partner < r ? Combine::right : Combine::left});
      return;
    }
    v.send({partner, all});
    v.recv({partner, all, partner < r ? Combine::left : Combine::right});
  }

  friend constexpr bool operator==(const AllreduceDoublingCore&, const AllreduceDoublingCore&) = default;

private:
  std::size_t p_;
  std::size_t blocks_;
  Buffer src_;
  std::size_t loaded_;
};

/// Recursive doubling for any p (folded onto the largest power of two q; the virtual
/// ranks below p - q hold folded pairs, whose contributions are in the output).
constexpr auto allreduce_doubling_schedule(std::size_t p, bool in_place, bool commutative)
{
  const std::size_t q = detail::pow2_floor(p);
  const Buffer src = in_place ? Buffer::output : Buffer::input;
  return Folded<AllreduceDoublingCore, AllreduceOp>(p, AllreduceDoublingCore(q, 1, src, p - q),
                                                    AllreduceOp{p, 1, commutative, in_place}, 1, src);
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
