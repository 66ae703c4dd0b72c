#pragma once
// Prefix reduction (scan) schedules, inclusive or exclusive. The vector is one block; the
// scratch holds the running subcube/partial total (block 0) and the message just received
// (block 1). Incoming partials always hold lower ranks, so they go on the left.

#include <collectives/algorithm/requirements.hpp>
#include <collectives/detail/power_of_two.hpp>
#include <collectives/schedule/operation.hpp>
#include <collectives/schedule/pattern.hpp>
#include <collectives/topology/concepts.hpp>

#include <cstddef>

namespace collectives {

namespace detail {
inline constexpr Pattern scan_in = contiguous(Buffer::input, 0, 1);
inline constexpr Pattern scan_out = contiguous(Buffer::output, 0, 1);
inline constexpr Pattern scan_total = contiguous(Buffer::scratch, 0, 1);
inline constexpr Pattern scan_msg = contiguous(Buffer::scratch, 1, 1);
} // namespace detail

/// PREFIX_SUMS_HCUBE: log p steps; in step i trade the subcube total with rank XOR 2^i,
/// add the partner's total to the own one (lower ranks left) and, when the partner is
/// lower, to the result. p a power of two. Cost: (t_s + t_w m) log p.
template <topology T>
class ScanHypercubeSchedule {
public:
  constexpr ScanHypercubeSchedule(T topo, bool exclusive, bool commutative = false)
    : topo_(topo), exclusive_(exclusive), commutative_(commutative)
  {
    static_assert(detail::may_be_power_of_two<T>,
                  "collectives::scan(hypercube): the topology's size must be a power of two");
    detail::require_power_of_two_ranks(topo_.size(), "collectives::scan(hypercube)");
  }
  constexpr std::size_t size() const { return topo_.size(); }
  constexpr const T& topology() const { return topo_; }
  constexpr std::size_t num_steps() const { return size() > 1 ? detail::log2_exact(size()) : 1; }
  constexpr std::size_t scratch_blocks() const { return 2; }
  constexpr ScanOp operation() const { return {size(), exclusive_, commutative_}; }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t step, V& v) const
  {
    using namespace detail;
    if (size() == 1) {
      if (!exclusive_) v.local({scan_in, scan_out});
      return;
    }
    const std::size_t bit = std::size_t{1} << step;
    const std::size_t partner = r ^ bit;
    v.send({partner, step == 0 ? scan_in : scan_total});
    v.recv({partner, scan_msg});
    if (step == 0) {
      v.local({scan_in, scan_total});
      if (!exclusive_) v.local({scan_in, scan_out});
    }
    v.local({scan_msg, scan_total, partner < r ? Combine::left : Combine::right});
    if (partner < r) {
      const bool first_lower = (r & (bit - 1)) == 0; // no lower partner in earlier steps
      v.local({scan_msg, scan_out, exclusive_ && first_lower ? Combine::copy : Combine::left});
    }
  }

private:
  T topo_;
  bool exclusive_;
  bool commutative_;
};

/// Pipeline along the ring: in step s rank s hands its inclusive prefix to rank s + 1.
/// Any p. Cost: (t_s + t_w m)(p - 1).
template <topology T>
class ScanRingSchedule {
public:
  constexpr ScanRingSchedule(T topo, bool exclusive, bool commutative = false)
    : topo_(topo), exclusive_(exclusive), commutative_(commutative) {}
  constexpr std::size_t size() const { return topo_.size(); }
  constexpr const T& topology() const { return topo_; }
  constexpr std::size_t num_steps() const { return size() > 1 ? size() - 1 : 1; }
  constexpr std::size_t scratch_blocks() const { return 2; }
  constexpr ScanOp operation() const { return {size(), exclusive_, commutative_}; }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t step, V& v) const
  {
    using namespace detail;
    const std::size_t p = size();
    // The inclusive prefix this rank forwards: the output, or (exclusive) scratch.
    const Pattern inclusive = exclusive_ ? scan_total : scan_out;
    if (r == 0 && step == 0 && !exclusive_) v.local({scan_in, scan_out});
    if (p == 1) return;
    if (step == r && r + 1 < p) v.send({r + 1, r == 0 ? scan_in : inclusive});
    if (step + 1 == r) {
      if (exclusive_) {
        v.recv({r - 1, scan_out});
        if (r + 1 < p) {
          v.local({scan_in, scan_total});
          v.local({scan_out, scan_total, Combine::left});
        }
      } else {
        v.recv({r - 1, scan_msg});
        v.local({scan_in, scan_out});
        v.local({scan_msg, scan_out, Combine::left});
      }
    }
  }

private:
  T topo_;
  bool exclusive_;
  bool commutative_;
};

/// Recursive doubling for any p (Hillis–Steele): in step k rank r sends its partial, which
/// covers ranks r - 2^k + 1 .. r, to r + 2^k. ceil(log2 p) steps.
/// Cost: (t_s + t_w m) ceil(log p).
template <topology T>
class ScanDoublingSchedule {
public:
  constexpr ScanDoublingSchedule(T topo, bool exclusive, bool commutative = false)
    : topo_(topo), exclusive_(exclusive), commutative_(commutative) {}
  constexpr std::size_t size() const { return topo_.size(); }
  constexpr const T& topology() const { return topo_; }
  constexpr std::size_t num_steps() const { return size() > 1 ? detail::ceil_log2(size()) : 1; }
  constexpr std::size_t scratch_blocks() const { return 2; }
  constexpr ScanOp operation() const { return {size(), exclusive_, commutative_}; }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t step, V& v) const
  {
    using namespace detail;
    const std::size_t p = size();
    const Pattern partial = exclusive_ ? scan_total : scan_out;
    if (step == 0) v.local({scan_in, partial});
    if (p == 1) return;
    const std::size_t dist = std::size_t{1} << step;
    if (r + dist < p) v.send({r + dist, step == 0 ? scan_in : partial});
    if (r >= dist) {
      v.recv({r - dist, scan_msg});
      // Locals run in order: the initial copy above happens first.
      v.local({scan_msg, partial, Combine::left});
      if (exclusive_) v.local({scan_msg, scan_out, step == 0 ? Combine::copy : Combine::left});
    }
  }

private:
  T topo_;
  bool exclusive_;
  bool commutative_;
};

} // namespace collectives
