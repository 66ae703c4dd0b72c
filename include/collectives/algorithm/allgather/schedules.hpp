#pragma once
// All-to-all broadcast (all-gather) schedules. Every one keeps the blocks in the output
// buffer at their final places, so nothing is rearranged at the end; `in_place` says the
// rank's own block already sits there (MPI_IN_PLACE, and the second half of the long-
// message broadcast and all-reduce compositions).

#include <collectives/algorithm/requirements.hpp>
#include <collectives/detail/power_of_two.hpp>
#include <collectives/schedule/operation.hpp>
#include <collectives/schedule/pattern.hpp>
#include <collectives/topology/concepts.hpp>

#include <cstddef>

namespace collectives {

namespace detail {
/// Where rank r's own block is read from in the first step.
constexpr Pattern own_block(bool in_place, std::size_t r)
{
  return in_place ? contiguous(Buffer::output, r, 1) : contiguous(Buffer::input, 0, 1);
}
} // namespace detail

/// ALL_TO_ALL_BC_RING: p - 1 steps; in step e each rank passes block (r - e + 1) to r + 1.
/// Any p. Cost (one-port): (t_s + t_w m)(p - 1).
template <topology T>
class AllgatherRingSchedule {
public:
  constexpr explicit AllgatherRingSchedule(T topo, bool in_place = false) : topo_(topo), in_place_(in_place) {}
  constexpr std::size_t size() const { return topo_.size(); }
  constexpr const T& topology() const { return topo_; }
  constexpr std::size_t num_steps() const { return size() > 1 ? size() - 1 : 1; }
  constexpr std::size_t scratch_blocks() const { return 0; }
  constexpr AllgatherOp operation() const { return {size(), in_place_}; }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t step, V& v) const
  {
    const std::size_t p = size();
    if (step == 0 && !in_place_) v.local({contiguous(Buffer::input, 0, 1), contiguous(Buffer::output, r, 1)});
    if (p == 1) return;
    const std::size_t e = step + 1;
    const std::size_t out_block = (r + p - e + 1) % p;
    v.send({(r + 1) % p, e == 1 ? detail::own_block(in_place_, r) : contiguous(Buffer::output, out_block, 1)});
    v.recv({(r + p - 1) % p, contiguous(Buffer::output, (r + p - e) % p, 1)});
  }

private:
  T topo_;
  bool in_place_;
};

/// ALL_TO_ALL_BC_HCUBE: recursive doubling, log p steps, dimension 0 first; the message
/// doubles each step. p a power of two. Cost: t_s log p + t_w m (p - 1).
template <topology T>
class AllgatherRecursiveDoublingSchedule {
public:
  constexpr explicit AllgatherRecursiveDoublingSchedule(T topo, bool in_place = false) : topo_(topo), in_place_(in_place)
  {
    static_assert(detail::may_be_power_of_two<T>,
                  "collectives::allgather(recursive_doubling): the topology's size must be a power of two");
    detail::require_power_of_two_ranks(topo_.size(), "collectives::allgather(recursive_doubling)");
  }
  constexpr std::size_t size() const { return topo_.size(); }
  constexpr const T& topology() const { return topo_; }
  constexpr std::size_t num_steps() const { return size() > 1 ? detail::log2_exact(size()) : 1; }
  constexpr std::size_t scratch_blocks() const { return 0; }
  constexpr AllgatherOp operation() const { return {size(), in_place_}; }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t step, V& v) const
  {
    if (step == 0 && !in_place_) v.local({contiguous(Buffer::input, 0, 1), contiguous(Buffer::output, r, 1)});
    if (size() == 1) return;
    const std::size_t half = std::size_t{1} << step;
    const std::size_t partner = r ^ half;
    const std::size_t mine = r & ~(half - 1);
    const std::size_t theirs = partner & ~(half - 1);
    v.send({partner, step == 0 ? detail::own_block(in_place_, r) : contiguous(Buffer::output, mine, half)});
    v.recv({partner, contiguous(Buffer::output, theirs, half)});
  }

private:
  T topo_;
  bool in_place_;
};

/// Bruck's all-gather: ceil(log2 p) steps for any p; in step k each rank sends the
/// min(2^k, p - 2^k) blocks it has (from its own, cyclically upward) to r - 2^k.
/// Cost: t_s ceil(log p) + t_w m (p - 1).
template <topology T>
class AllgatherBruckSchedule {
public:
  constexpr explicit AllgatherBruckSchedule(T topo, bool in_place = false) : topo_(topo), in_place_(in_place) {}
  constexpr std::size_t size() const { return topo_.size(); }
  constexpr const T& topology() const { return topo_; }
  constexpr std::size_t num_steps() const { return size() > 1 ? detail::ceil_log2(size()) : 1; }
  constexpr std::size_t scratch_blocks() const { return 0; }
  constexpr AllgatherOp operation() const { return {size(), in_place_}; }

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

private:
  T topo_;
  bool in_place_;
};

/// ALL_TO_ALL_BC_MESH generalised: a ring all-gather along each dimension in turn (the
/// fastest-varying first), passing the super-blocks gathered so far. Step 0 only places the
/// rank's own block. Cost on a √p×√p mesh: 2 t_s (√p − 1) + t_w m (p − 1).
template <product_topology T>
class AllgatherDimensionalSchedule {
public:
  constexpr explicit AllgatherDimensionalSchedule(T topo, bool in_place = false) : topo_(topo), in_place_(in_place) {}
  constexpr std::size_t size() const { return topo_.size(); }
  constexpr const T& topology() const { return topo_; }
  constexpr std::size_t num_steps() const
  {
    std::size_t n = 1;
    for (std::size_t i = 0; i < topo_.ndims(); ++i) n += topo_.extent(i) - 1;
    return n;
  }
  constexpr std::size_t scratch_blocks() const { return 0; }
  constexpr AllgatherOp operation() const { return {size(), in_place_}; }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t step, V& v) const
  {
    if (step == 0) {
      if (!in_place_) v.local({contiguous(Buffer::input, 0, 1), contiguous(Buffer::output, r, 1)});
      return;
    }
    std::size_t s = step - 1;
    for (std::size_t k = 0; k < topo_.ndims(); ++k) {
      const std::size_t dim = topo_.route_dim(k);
      const std::size_t z = topo_.extent(dim);
      if (s >= z - 1) {
        s -= z - 1;
        continue;
      }
      // Phase along `dim`: this rank holds the super-block of every rank that shares its
      // coordinates in the dimensions not yet gathered; a super-block is stride(dim)
      // consecutive blocks, one per coordinate along `dim`.
      const std::size_t e = s + 1;
      const std::size_t len = topo_.stride(dim);
      const std::size_t c = topo_.coord(r, dim);
      const std::size_t base = r - c * len - (r % len);
      const std::size_t send_c = (c + z - e + 1) % z;
      const std::size_t recv_c = (c + z - e) % z;
      v.send({topo_.shift_along(r, dim, 1), contiguous(Buffer::output, base + send_c * len, len)});
      v.recv({topo_.shift_along(r, dim, z - 1), contiguous(Buffer::output, base + recv_c * len, len)});
      return;
    }
  }

private:
  T topo_;
  bool in_place_;
};

} // namespace collectives
