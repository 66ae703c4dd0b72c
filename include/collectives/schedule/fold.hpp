#pragma once
// Running a power-of-two schedule on any p, as MPICH does for all-reduce: the first 2*rem
// ranks (rem = p - p', p' the largest power of two <= p) pair up; each even one hands its
// contribution to the odd one above it, which combines (lower ranks first, so rank order is
// kept: virtual rank v holds a contiguous ascending range of real ranks). The p' remaining
// ranks run the inner schedule on virtual ranks in place on the output buffer, and the odd
// ranks finally hand the result back to their even partners.

#include <collectives/detail/bits.hpp>
#include <collectives/schedule/pattern.hpp>
#include <collectives/schedule/schedule.hpp>

#include <algorithm>
#include <cstddef>

namespace collectives {

namespace detail {

/// Forwards a visitor's calls, mapping partner ranks through `map`.
template <class V, class Map>
struct PeerMapVisitor {
  V& inner;
  Map map;
  constexpr void send(SendOp op)
  {
    op.peer = map(op.peer);
    inner.send(op);
  }
  constexpr void recv(RecvOp op)
  {
    op.peer = map(op.peer);
    inner.recv(op);
  }
  constexpr void local(const LocalOp& op) { inner.local(op); }
};

} // namespace detail

/// Inner: a schedule over pow2_floor(p) ranks that works in place on the output buffer
/// (its blocks hold each virtual rank's contribution when it starts) and whose scratch
/// blocks are laid out like the output's. Spec: the composite operation.
/// `src` is where the contributions are at the start (input, or output in place).
/// An inner schedule with loads_contributions() true reads the contributions of the
/// ranks that were not folded from `src` itself in its first step (it can then combine
/// straight from there), so they are not copied into the output first.
template <schedule Inner, class Spec>
class Folded {
public:
  constexpr Folded(std::size_t p, Inner inner, Spec spec, std::size_t blocks, Buffer src)
    : p_(p), inner_(inner), spec_(spec), blocks_(blocks), src_(src) {}

  constexpr std::size_t size() const { return p_; }
  constexpr std::size_t rem() const { return p_ - detail::pow2_floor(p_); }
  constexpr std::size_t num_steps() const { return inner_.num_steps() + 2; }
  constexpr std::size_t scratch_blocks() const { return std::max(inner_.scratch_blocks(), blocks_); }
  constexpr Spec operation() const { return spec_; }
  /// With p a power of two nothing is folded: step 0 loads the contributions, the inner
  /// schedule's steps follow as it states them, the last step is empty. (Otherwise: not
  /// stated.)
  constexpr Symmetry symmetry(std::size_t step) const
  {
    if (rem() != 0) return Symmetry::none();
    if (step == 0) return src_ != Buffer::output ? Symmetry::uniform(RankGroup::cyclic(p_)) : Symmetry::in(RankGroup::cyclic(p_));
    if (step == num_steps() - 1) return Symmetry::in(RankGroup::cyclic(p_));
    if constexpr (symmetric_schedule<Inner>) return inner_.symmetry(step - 1);
    else return Symmetry::none();
  }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t step, V& v) const
  {
    const std::size_t folded = 2 * rem();
    const Pattern all_src = contiguous(src_, 0, blocks_);
    const Pattern all_out = contiguous(Buffer::output, 0, blocks_);
    if (step == 0) {
      if (r < folded && r % 2 == 0) {
        v.send({r + 1, all_src});
      } else if (r < folded && src_ != Buffer::output) {
        // The partner's contribution lands in the output and this rank's joins it on the
        // right: one pass over each byte where the transport combines on receipt.
        v.recv({r - 1, all_out});
        v.local({all_src, all_out, Combine::right});
      } else if (r < folded) {
        const Pattern staged = contiguous(Buffer::scratch, 0, blocks_);
        v.recv({r - 1, staged});
        v.local({staged, all_out, Combine::left});
      } else if (src_ != Buffer::output && !inner_loads()) {
        v.local({all_src, all_out});
      }
      return;
    }
    if (step == num_steps() - 1) {
      if (r < folded) {
        if (r % 2 == 1) v.send({r - 1, all_out});
        else v.recv({r + 1, all_out});
      }
      return;
    }
    if (r < folded && r % 2 == 0) return; // folded away
    const std::size_t virt = r < folded ? r / 2 : r - rem();
    detail::PeerMapVisitor<V, Real> mapped{v, Real{rem()}};
    inner_.visit(virt, step - 1, mapped);
  }

  constexpr const Inner& inner() const { return inner_; }

  friend constexpr bool operator==(const Folded&, const Folded&) = default;

private:
  constexpr bool inner_loads() const
  {
    if constexpr (requires(const Inner& i) { i.loads_contributions(); })
      return inner_.loads_contributions() && inner_.num_steps() != 0;
    else return false;
  }
  struct Real {
    std::size_t rem;
    constexpr std::size_t operator()(std::size_t v) const { return v < rem ? 2 * v + 1 : v + rem; }
  };
  std::size_t p_;
  Inner inner_;
  Spec spec_;
  std::size_t blocks_;
  Buffer src_;
};

} // namespace collectives
