#pragma once
// Rabenseifner's all-reduce: reduce-scatter by recursive halving, then all-gather by
// recursive doubling, folded for any p.

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/detail/bits.hpp>
#include <collectives/schedule/fold.hpp>
#include <collectives/schedule/operation.hpp>
#include <collectives/schedule/pattern.hpp>
#include <collectives/schedule/schedule.hpp>
#include <collectives/topology/concepts.hpp>

#include <cstddef>

namespace collectives {

/// Rabenseifner over p' = 2^d virtual ranks, in place, the vector cut into p' blocks:
/// reduce-scatter by recursive halving (dimension 0 first), then all-gather by recursive
/// doubling (the reverse order). Cost: 2 t_s log p + 2 t_w m (p - 1)/p.
/// With `src` other than the output, every rank still has its contribution there (see
/// Folded; nothing was folded): its first step sends the partner's half from `src` and
/// combines its own half with the partner's straight into the output. The half sent away is
/// never needed in the output (the all-gather brings its result), so the contribution is
/// not copied there first.
class AllreduceRabenseifnerCore {
public:
  constexpr explicit AllreduceRabenseifnerCore(std::size_t p, Buffer src = Buffer::output) : p_(p), src_(src) {}
  constexpr std::size_t size() const { return p_; }
  constexpr std::size_t dims() const { return p_ > 1 ? detail::log2_exact(p_) : 0; }
  constexpr std::size_t num_steps() const { return 2 * dims(); }
  constexpr std::size_t scratch_blocks() const { return 0; }
  constexpr AllreduceOp operation() const { return {p_, p_, false}; }
  /// The ranks read their contributions from `src` (see Folded).
  constexpr bool loads_contributions() const { return src_ != Buffer::output; }
  /// Every rank does rank 0's step, translated (rank XOR r).
  constexpr Symmetry symmetry(std::size_t) const { return Symmetry::uniform(RankGroup::bits(p_)); }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t step, V& v) const
  {
    if (step == 0 && dims() != 0 && loads_contributions()) {
      // The partner's half of this rank's contribution goes from `src`; the partner's
      // contribution to this rank's half lands in the output and joins this rank's there.
      const std::size_t partner = r ^ 1;
      const std::size_t count = p_ / 2;
      v.send({partner, strided(src_, partner & 1, count, 1, 2)});
      const Pattern kept = strided(Buffer::output, r & 1, count, 1, 2);
      v.recv({partner, kept});
      v.local({strided(src_, r & 1, count, 1, 2), kept, partner < r ? Combine::right : Combine::left});
      return;
    }
    if (step < dims()) {
      const std::size_t bit = std::size_t{1} << step;
      const std::size_t partner = r ^ bit;
      const std::size_t low = r & (bit - 1);
      const std::size_t count = p_ / (bit << 1);
      v.send({partner, strided(Buffer::output, low | (partner & bit), count, 1, bit << 1)});
      v.recv({partner, strided(Buffer::output, low | (r & bit), count, 1, bit << 1),
              partner < r ? Combine::left : Combine::right});
    } else {
      const std::size_t i = 2 * dims() - 1 - step; // dimension, highest first
      const std::size_t span = std::size_t{2} << i;
      const std::size_t partner = r ^ (std::size_t{1} << i);
      const std::size_t count = p_ / span;
      v.send({partner, strided(Buffer::output, r & (span - 1), count, 1, span)});
      v.recv({partner, strided(Buffer::output, partner & (span - 1), count, 1, span)});
    }
  }

  friend constexpr bool operator==(const AllreduceRabenseifnerCore&, const AllreduceRabenseifnerCore&) = default;

private:
  std::size_t p_;
  Buffer src_;
};

/// Rabenseifner for any p (folded); the vector is cut into detail::pow2_floor(p) blocks.
constexpr auto allreduce_rabenseifner_schedule(std::size_t p, bool in_place, bool commutative)
{
  const std::size_t q = detail::pow2_floor(p);
  const Buffer src = in_place ? Buffer::output : Buffer::input;
  // Folded (p != q), the ranks left out of the fold load their contribution during the
  // fold's step, while their partners in the first exchange are busy with it: idle there
  // instead, they spin beside them (threads, p = 3 on 2 cores: 1.2-1.7x slower).
  const Buffer inner_src = p == q ? src : Buffer::output;
  return Folded<AllreduceRabenseifnerCore, AllreduceOp>(p, AllreduceRabenseifnerCore(q, inner_src),
                                                        AllreduceOp{p, q, commutative, in_place}, q, src);
}

namespace allreduce_algorithm {
/// Rabenseifner: recursive-halving reduce-scatter + recursive-doubling all-gather (folded
/// for any p); long vectors.
struct Rabenseifner : AlgorithmBase<Collective::allreduce> {
  static constexpr const char* name = "rabenseifner";
  /// The vector in pow2_floor(p) pieces.
  static constexpr std::size_t pieces(std::size_t p) { return detail::pow2_floor(p); }
  template <topology T>
  static constexpr auto schedule(const T& t, const Problem& pr)
  {
    return allreduce_rabenseifner_schedule(t.size(), pr.in_place, pr.commutative);
  }
};
inline constexpr Rabenseifner rabenseifner{};
} // namespace allreduce_algorithm

} // namespace collectives
