#pragma once
// Reduce-scatter by direct exchange, then an in-order fold: any p, any operator.

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/algorithm/reduce_scatter/common.hpp>
#include <collectives/schedule/operation.hpp>
#include <collectives/schedule/pattern.hpp>
#include <collectives/schedule/schedule.hpp>
#include <collectives/topology/concepts.hpp>

#include <cstddef>

namespace collectives {

/// Pairwise reduce-scatter for any p: in step k rank r sends its contribution to block
/// r + k straight to rank r + k and gets the contribution to its own block from r - k.
/// Those arrive in descending rank order, wrapping once past rank 0, so two running
/// partials suffice: L = x0 op ... op x(r-1) and R = x(r+1) op ... op x(p-1), each new
/// arrival joining on the left; the result is L op xr op R. Any operator, any p.
/// The last arrival (x(r+1), or x0 at rank p - 1) lands in the result itself and the fold
/// joins it there, one pass less than landing it in its partial and then copying; in place
/// (the result is input block 0, which the last step still reads, or with ResultSlot::own
/// the rank's own input block) it goes through scratch.
/// Scratch: blocks r and p + r (two copies of the vector's block layout).
/// Cost: (t_s + t_w m)(p - 1) + p - 1 combinations of m elements.
class ReduceScatterPairwiseSchedule {
public:
  constexpr explicit ReduceScatterPairwiseSchedule(std::size_t p, bool commutative = false,
                                                   ResultSlot slot = ResultSlot::first, bool in_place = false)
    : p_(p), commutative_(commutative), slot_(slot), in_place_(in_place) {}
  constexpr std::size_t size() const { return p_; }
  constexpr std::size_t num_steps() const { return size() > 1 ? size() - 1 : 1; }
  constexpr std::size_t scratch_blocks() const { return 2 * size(); }
  constexpr ReduceScatterOp operation() const { return {size(), commutative_}; }
  /// Every rank sends rank 0's message translated (rank + r); the first arrival of a
  /// partial is copied, the others combined, so in step k > 0 rank k combines one block
  /// less, and the last step's fold differs at ranks 0 and p - 1. (Small p: not stated.)
  constexpr Symmetry symmetry(std::size_t k) const
  {
    const std::size_t p = size();
    const RankGroup g = RankGroup::cyclic(p);
    if (p < 5) return Symmetry::none();
    if (k + 1 == num_steps()) // k = p - 2
      return Symmetry::in(g)
        .with(RankClass::only(0))
        .with(RankClass::only(p - 2))
        .with(RankClass::only(p - 1))
        .with(RankClass::run(1, p - 3));
    if (k == 0) return Symmetry::uniform(g);
    return Symmetry::in(g).with(RankClass::only(k)).with(RankClass::run(k + 1, p - 1));
  }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t step, V& v) const
  {
    const std::size_t p = size();
    const Pattern result = contiguous(Buffer::output, slot_ == ResultSlot::first ? 0 : r, 1);
    const Pattern left = contiguous(Buffer::scratch, r, 1);
    const Pattern right = contiguous(Buffer::scratch, p + r, 1);
    const Pattern own = contiguous(Buffer::input, r, 1);
    if (p > 1) {
      const std::size_t k = step + 1;
      const std::size_t to = (r + k) % p;
      const std::size_t from = (r + p - k) % p;
      v.send({to, contiguous(Buffer::input, to, 1)});
      if (step + 1 == num_steps() && !in_place_) {
        // The last arrival straight into the result (the executor combines it on receipt
        // with the first fold below): x(r+1) op R', or x0 op L' at rank p - 1.
        v.recv({from, result});
        if (r + 1 < p) {
          if (r + 2 < p) v.local({right, result, Combine::right});
          v.local({own, result, Combine::left});
          if (r > 0) v.local({left, result, Combine::left});
        } else {
          if (p > 2) v.local({left, result, Combine::right});
          v.local({own, result, Combine::right});
        }
        return;
      }
      // The first arrival of each partial is copied, later ones join on the left.
      if (from < r) v.recv({from, left, from == r - 1 ? Combine::copy : Combine::left});
      else v.recv({from, right, from == p - 1 ? Combine::copy : Combine::left});
    }
    if (step + 1 == num_steps()) {
      if (r > 0 && in_place_ && slot_ == ResultSlot::own) {
        // The result is this rank's own input block: fold it into the left partial first.
        v.local({own, left, Combine::right});
        v.local({left, result});
      } else if (r > 0) {
        v.local({left, result});
        v.local({own, result, Combine::right});
      } else {
        v.local({own, result});
      }
      if (r + 1 < p) v.local({right, result, Combine::right});
    }
  }

  friend constexpr bool operator==(const ReduceScatterPairwiseSchedule&, const ReduceScatterPairwiseSchedule&) = default;

private:
  std::size_t p_;
  bool commutative_;
  ResultSlot slot_;
  bool in_place_;
};

namespace reduce_scatter_algorithm {
/// Direct exchange then an in-order fold; any p, any operator.
struct Pairwise : AlgorithmBase<Collective::reduce_scatter> {
  static constexpr const char* name = "pairwise";
  /// In place the result (output block 0) is written last, after every read of the input.
  static constexpr bool input_may_alias_output = true;
  template <topology T>
  static constexpr auto schedule(const T& t, const Problem& pr)
  {
    return ReduceScatterPairwiseSchedule(t.size(), pr.commutative, ResultSlot::first, pr.in_place);
  }
};
inline constexpr Pairwise pairwise{};
} // namespace reduce_scatter_algorithm

} // namespace collectives
