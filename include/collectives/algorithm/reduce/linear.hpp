#pragma once
// Reduce straight to the root: one step, any p, any operator (Open MPI's basic_linear).

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/schedule/operation.hpp>
#include <collectives/schedule/pattern.hpp>
#include <collectives/schedule/schedule.hpp>
#include <collectives/topology/concepts.hpp>

#include <cstddef>

namespace collectives {

/// The dual of BroadcastLinearSchedule: in one step every other rank sends its
/// contribution to the root, which then combines them in rank order (lower ranks on the
/// left), so any associative operator gets x0 op x1 op ... op x(p-1) at any root, with no
/// extra step to a tree's root. Out of place the nearest higher rank's contribution (the
/// lower one's when the root is the last rank) lands straight in the output and the root's
/// own joins it from the input: no copy; the others wait in scratch. In place (`in_place`:
/// every rank's contribution starts in its output, ReduceOp::in_place) all p - 1 wait in
/// scratch and the root's own stays where it is. Scratch: p - 2 blocks of the message out
/// of place, p - 1 in place (only the root touches them). Cost (one-port): (p - 1)(t_s +
/// t_w m + t_r m) plus hops: p - 1 start-ups and the root's combining of every
/// contribution where a tree pays log p of each, but in one step, so where ranks share
/// cores (lanes, t_sync) one wait for partners instead of log p.
class ReduceLinearSchedule {
public:
  constexpr ReduceLinearSchedule(std::size_t p, std::size_t root, bool commutative, bool in_place = false,
                                 std::size_t blocks = 1)
    : p_(p), root_(root), commutative_(commutative), in_place_(in_place), blocks_(blocks) {}
  constexpr std::size_t size() const { return p_; }
  constexpr std::size_t num_steps() const { return 1; }
  constexpr std::size_t scratch_blocks() const { return waiting() * blocks_; }
  constexpr ReduceOp operation() const { return {p_, root_, blocks_, commutative_, in_place_}; }
  /// The root: it has p - 1 messages, every other rank one.
  constexpr std::size_t busiest_rank(std::size_t) const { return root_; }
  /// The one step, stated whole (Symmetry::Star): the root combines p - 1 blocks (out of
  /// place with p = 1, copies its one).
  constexpr Symmetry symmetry(std::size_t) const
  {
    return Symmetry::fan_in(p_, root_, blocks_, (p_ > 1 ? p_ - 1 : in_place_ ? 0 : 1) * blocks_);
  }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t, V& v) const
  {
    const Buffer own = in_place_ ? Buffer::output : Buffer::input;
    const Pattern mine = contiguous(own, 0, blocks_);
    const Pattern out = contiguous(Buffer::output, 0, blocks_);
    if (r != root_) {
      v.send({root_, mine});
      return;
    }
    if (p_ == 1) {
      if (!in_place_) v.local({mine, out});
      return;
    }
    const std::size_t direct = straight_in();
    for (std::size_t d = 1; d < p_; ++d) {
      const std::size_t from = root_ + d < p_ ? root_ + d : root_ + d - p_;
      v.recv({from, from == direct ? out : waiting_at(from)});
    }
    // The partial grows from the root's contribution outwards: higher ranks join it on
    // the right, lower ones on the left.
    if (direct != p_) v.local({mine, out, direct > root_ ? Combine::left : Combine::right});
    for (std::size_t q = root_ + 1; q < p_; ++q)
      if (q != direct) v.local({waiting_at(q), out, Combine::right});
    for (std::size_t q = root_; q-- > 0;)
      if (q != direct) v.local({waiting_at(q), out, Combine::left});
  }

  friend constexpr bool operator==(const ReduceLinearSchedule&, const ReduceLinearSchedule&) = default;

private:
  /// The rank whose contribution is received straight into the output (p: none).
  constexpr std::size_t straight_in() const
  {
    if (in_place_ || p_ < 2) return p_;
    return root_ + 1 < p_ ? root_ + 1 : root_ - 1;
  }
  /// Contributions that wait in scratch.
  constexpr std::size_t waiting() const
  {
    if (p_ < 2) return 0;
    return in_place_ ? p_ - 1 : p_ - 2;
  }
  /// Where rank q's contribution waits: the scratch slots in rank order, without the
  /// root's and the one received straight into the output.
  constexpr Pattern waiting_at(std::size_t q) const
  {
    const std::size_t direct = straight_in();
    const std::size_t slot = q - (q > root_ ? 1 : 0) - (direct != p_ && q > direct ? 1 : 0);
    return contiguous(Buffer::scratch, slot * blocks_, blocks_);
  }
  std::size_t p_;
  std::size_t root_;
  bool commutative_;
  bool in_place_;
  std::size_t blocks_;
};

namespace reduce_algorithm {
/// Every rank sends its contribution to the root itself, one step, and the root combines
/// them in rank order; any p and operator (Open MPI's basic_linear).
struct Linear : AlgorithmBase<Collective::reduce> {
  static constexpr const char* name = "linear";
  /// In place the contributions are read from the output (ReduceOp::in_place).
  static constexpr bool input_may_alias_output = true;
  template <topology T>
  static constexpr auto schedule(const T& t, const Problem& pr)
  {
    return ReduceLinearSchedule(t.size(), pr.root, pr.commutative, pr.in_place);
  }
};
inline constexpr Linear linear{};
} // namespace reduce_algorithm

} // namespace collectives
