#pragma once
// All-to-all reduction (reduce-scatter) schedules. Input: p blocks per rank (block j is the
// rank's contribution to block j of the result); result block r lands on rank r, in output
// block `dest` (0 for MPI_Reduce_scatter_block; r when it is a step of an all-reduce).
// Partial results live in scratch, and combinations always put lower ranks on the left.

#include <collectives/algorithm/requirements.hpp>
#include <collectives/detail/power_of_two.hpp>
#include <collectives/schedule/operation.hpp>
#include <collectives/schedule/pattern.hpp>
#include <collectives/topology/concepts.hpp>

#include <cstddef>

namespace collectives {

/// Where a reduce-scatter's result goes: output block 0, or output block r on rank r.
enum class ResultSlot : unsigned char { first, own };

/// ALL_TO_ALL_RED_HCUBE: recursive halving, log p steps, dimension 0 first (so each partial
/// combines a contiguous range of ranks, in order), p/2, p/4, ... blocks per step.
/// p a power of two. Cost: t_s log p + t_w m (p - 1) (+ combining).
template <topology T>
class ReduceScatterHalvingSchedule {
public:
  constexpr explicit ReduceScatterHalvingSchedule(T topo, bool commutative = false, ResultSlot slot = ResultSlot::first)
    : topo_(topo), commutative_(commutative), slot_(slot)
  {
    static_assert(detail::may_be_power_of_two<T>,
                  "collectives::reduce_scatter(recursive_halving): the topology's size must be a power of two");
    detail::require_power_of_two_ranks(topo_.size(), "collectives::reduce_scatter(recursive_halving)");
  }
  constexpr std::size_t size() const { return topo_.size(); }
  constexpr const T& topology() const { return topo_; }
  constexpr std::size_t num_steps() const { return size() > 1 ? detail::log2_exact(size()) : 1; }
  constexpr std::size_t scratch_blocks() const { return size(); }
  constexpr ReduceScatterOp operation() const { return {size(), commutative_}; }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t step, V& v) const
  {
    const std::size_t p = size();
    const Pattern result = contiguous(Buffer::output, slot_ == ResultSlot::first ? 0 : r, 1);
    if (p == 1) {
      v.local({contiguous(Buffer::input, 0, 1), result});
      return;
    }
    const std::size_t bit = std::size_t{1} << step;
    const std::size_t partner = r ^ bit;
    const std::size_t low = r & (bit - 1);
    const std::size_t count = p / (bit << 1);
    const Combine side = partner < r ? Combine::left : Combine::right;
    const Buffer from = step == 0 ? Buffer::input : Buffer::scratch;
    v.send({partner, strided(from, low | (partner & bit), count, 1, bit << 1)});
    const Pattern keep = strided(Buffer::scratch, low | (r & bit), count, 1, bit << 1);
    if (step == 0) {
      // Receive a copy, then fold in this rank's own contribution on the proper side.
      v.recv({partner, keep});
      v.local({strided(Buffer::input, low | (r & bit), count, 1, bit << 1), keep,
               side == Combine::left ? Combine::right : Combine::left});
    } else {
      v.recv({partner, keep, side});
    }
    if (step + 1 == num_steps()) v.local({contiguous(Buffer::scratch, r, 1), result});
  }

private:
  T topo_;
  bool commutative_;
  ResultSlot slot_;
};

/// ALL_TO_ALL_RED_RING: p - 1 steps; in step e rank r passes its partial of block (r - e)
/// to r + 1, which adds its own contribution. Each partial wraps around the ring, so the
/// operator must be commutative. Any p. Cost: (t_s + t_w m)(p - 1).
template <topology T>
class ReduceScatterRingSchedule {
public:
  constexpr explicit ReduceScatterRingSchedule(T topo, ResultSlot slot = ResultSlot::first) : topo_(topo), slot_(slot) {}
  constexpr std::size_t size() const { return topo_.size(); }
  constexpr const T& topology() const { return topo_; }
  constexpr std::size_t num_steps() const { return size() > 1 ? size() - 1 : 1; }
  constexpr std::size_t scratch_blocks() const { return size(); }
  constexpr ReduceScatterOp operation() const { return {size(), true}; }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t step, V& v) const
  {
    const std::size_t p = size();
    const Pattern result = contiguous(Buffer::output, slot_ == ResultSlot::first ? 0 : r, 1);
    if (p == 1) {
      v.local({contiguous(Buffer::input, 0, 1), result});
      return;
    }
    const std::size_t e = step + 1;
    const std::size_t out_block = (r + p - e) % p;
    const std::size_t in_block = (r + 2 * p - e - 1) % p;
    v.send({(r + 1) % p, contiguous(e == 1 ? Buffer::input : Buffer::scratch, out_block, 1)});
    v.recv({(r + p - 1) % p, contiguous(Buffer::scratch, in_block, 1)});
    v.local({contiguous(Buffer::input, in_block, 1), contiguous(Buffer::scratch, in_block, 1), Combine::right});
    if (e == p - 1) v.local({contiguous(Buffer::scratch, r, 1), result});
  }

private:
  T topo_;
  ResultSlot slot_;
};

/// Pairwise reduce-scatter for any p: in step k rank r sends its contribution to block
/// r + k straight to rank r + k and gets the contribution to its own block from r - k.
/// Those arrive in descending rank order, wrapping once past rank 0, so two running
/// partials suffice: L = x0 op ... op x(r-1) and R = x(r+1) op ... op x(p-1), each new
/// arrival joining on the left; the result is L op xr op R. Any operator, any p.
/// Scratch: blocks r and p + r (two copies of the vector's block layout).
/// Cost: (t_s + t_w m)(p - 1) + p - 1 combinations of m elements.
template <topology T>
class ReduceScatterPairwiseSchedule {
public:
  constexpr explicit ReduceScatterPairwiseSchedule(T topo, bool commutative = false, ResultSlot slot = ResultSlot::first)
    : topo_(topo), commutative_(commutative), slot_(slot) {}
  constexpr std::size_t size() const { return topo_.size(); }
  constexpr const T& topology() const { return topo_; }
  constexpr std::size_t num_steps() const { return size() > 1 ? size() - 1 : 1; }
  constexpr std::size_t scratch_blocks() const { return 2 * size(); }
  constexpr ReduceScatterOp operation() const { return {size(), commutative_}; }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t step, V& v) const
  {
    const std::size_t p = size();
    const Pattern result = contiguous(Buffer::output, slot_ == ResultSlot::first ? 0 : r, 1);
    const Pattern left = contiguous(Buffer::scratch, r, 1);
    const Pattern right = contiguous(Buffer::scratch, p + r, 1);
    if (p > 1) {
      const std::size_t k = step + 1;
      const std::size_t to = (r + k) % p;
      const std::size_t from = (r + p - k) % p;
      v.send({to, contiguous(Buffer::input, to, 1)});
      // The first arrival of each partial is copied, later ones join on the left.
      if (from < r) v.recv({from, left, from == r - 1 ? Combine::copy : Combine::left});
      else v.recv({from, right, from == p - 1 ? Combine::copy : Combine::left});
    }
    if (step + 1 == num_steps()) {
      const Pattern own = contiguous(Buffer::input, r, 1);
      if (r > 0) {
        v.local({left, result});
        v.local({own, result, Combine::right});
      } else {
        v.local({own, result});
      }
      if (r + 1 < p) v.local({right, result, Combine::right});
    }
  }

private:
  T topo_;
  bool commutative_;
  ResultSlot slot_;
};

/// The seeds' mesh/torus all-to-all reduction, dimension by dimension: the dual of the
/// dimensional all-gather. Dimensions are taken slowest first; along each, a ring
/// reduce-scatter (ALL_TO_ALL_RED_RING) over super-blocks (the blocks of every rank that
/// shares the coordinates not yet reduced). Partials alternate between two scratch
/// copies of the p blocks, one per phase parity. Rings wrap, so the operator must be
/// commutative. Cost on a √p×√p mesh: 2 t_s (√p − 1) + t_w m (p − 1).
template <product_topology T>
class ReduceScatterDimensionalSchedule {
public:
  constexpr explicit ReduceScatterDimensionalSchedule(T topo, ResultSlot slot = ResultSlot::first) : topo_(topo), slot_(slot) {}
  constexpr std::size_t size() const { return topo_.size(); }
  constexpr const T& topology() const { return topo_; }
  constexpr std::size_t num_steps() const
  {
    std::size_t n = 0;
    for (std::size_t i = 0; i < topo_.ndims(); ++i) n += topo_.extent(i) - 1;
    return n > 0 ? n : 1;
  }
  constexpr std::size_t scratch_blocks() const { return 2 * size(); }
  constexpr ReduceScatterOp operation() const { return {size(), true}; }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t step, V& v) const
  {
    const std::size_t p = size();
    const Pattern result = contiguous(Buffer::output, slot_ == ResultSlot::first ? 0 : r, 1);
    std::size_t s = step;
    std::size_t phase = 0; // phases that actually exchange, so far
    for (std::size_t k = 0; k < topo_.ndims(); ++k) {
      const std::size_t dim = topo_.route_dim(topo_.ndims() - 1 - k); // slowest first
      const std::size_t z = topo_.extent(dim);
      if (z == 1) continue;
      if (s >= z - 1) {
        s -= z - 1;
        ++phase;
        continue;
      }
      const std::size_t e = s + 1;
      const std::size_t len = topo_.stride(dim);
      const std::size_t c = topo_.coord(r, dim);
      const std::size_t base = r - c * len - (r % len);
      const std::size_t out_c = (c + z - e) % z;
      const std::size_t in_c = (c + 2 * z - e - 1) % z;
      // Own contributions: the input in the first phase, else the previous phase's partials.
      const Buffer own = phase == 0 ? Buffer::input : Buffer::scratch;
      const std::size_t own_at = phase == 0 ? 0 : ((phase - 1) % 2) * p;
      const std::size_t here = (phase % 2) * p;
      v.send({topo_.shift_along(r, dim, 1),
              e == 1 ? contiguous(own, own_at + base + out_c * len, len) : contiguous(Buffer::scratch, here + base + out_c * len, len)});
      const Pattern into = contiguous(Buffer::scratch, here + base + in_c * len, len);
      v.recv({topo_.shift_along(r, dim, z - 1), into});
      v.local({contiguous(own, own_at + base + in_c * len, len), into, Combine::right});
      if (step + 1 == num_steps()) v.local({contiguous(Buffer::scratch, here + r, 1), result});
      return;
    }
    // p == 1
    v.local({contiguous(Buffer::input, 0, 1), result});
  }

private:
  T topo_;
  ResultSlot slot_;
};

} // namespace collectives
