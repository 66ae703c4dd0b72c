#pragma once
// Alltoall schedules for p = 2^n ranks, written for the hypercube Q_n (dimension j = bit j
// of the rank, neighbour = rank XOR 2^j) and usable on any topology of that size (ranks
// are mapped one to one; only the cost changes). A block's *relative address* is
// source XOR destination; both schedules move every block along the dimensions of the
// 1-bits of its relative address, and keep it, on every rank x it visits, in the slot
// named by that relative address (the block for destination x XOR j sits in slot j).
//
// - StandardExchangeSchedule (seed 000, section 4.5.3, Figure 4.20; seed 002's "SEX"):
//   n steps; in step i every rank trades the p/2 blocks whose relative address has bit i
//   set (mp/2 words, one message) with rank XOR 2^i. The partner sends back the same slot
//   indices, and a rank may not receive into slots it is sending in the same step (the
//   transports read the sender's memory while the step runs), so middle steps receive
//   into a staging area and a local op moves it into place: the seed's local
//   rearrangement (t_r). Step 0 sends straight from the input and the last step receives
//   straight into the output, so neither needs staging.
//
// - AllPortSchedule (seed 002, "All-port full-duplex hypercube"): 2^(n-1) rounds, all n
//   dimensions at once in every round. Round k sends, along dimension j, the one block
//   whose relative address is r_{k,j}, entry (k, j) of the seed's schedule table (see
//   AllPortTable for the construction and constraints (a)-(c)).
//
// Decisions where seed 002's text is open (AllPortTable and AllPortSchedule):
//  1. Bit 0 is the least significant bit; "dimension j" / "link j" is the Hypercube's
//     dimension j (neighbour rank XOR 2^j). The seed's printed table for n = 4 is
//     reproduced exactly under this reading (tests/unit/alltoall_hypercube.cpp checks it).
//  2. The seed's rounds 1..2^(n-1) use m_i = 2i + 1 for i = 0..2^(n-1)-1: our step k is
//     the seed's round k + 1 and uses m_k. For n = 1 the table has one entry, r_{0,0} = 1.
//  3. "stores the number received ... into the same memory location r XOR x": x is the
//     receiving node, i.e. relative addresses are preserved (the seed's example path
//     (5,22) -> (7,20) -> (6,21) -> (22,5) confirms it).
//  4. Where the seed keeps one memory location per relative address, a block here lives
//     in the input until its first crossing, then alternately in scratch copy A (after an
//     odd number of crossings) and B (even), and lands in the output on its last
//     crossing. Both partners send the same relative address over the same link in the
//     same round, so a single location would be read and written in one step, which the
//     transports forbid; alternating needs no local rearrangement at all.

#include <collectives/detail/bits.hpp>
#include <collectives/detail/power_of_two.hpp>
#include <collectives/algorithm/algorithm.hpp>
#include <collectives/schedule/operation.hpp>
#include <collectives/schedule/pattern.hpp>
#include <collectives/schedule/schedule.hpp>
#include <collectives/topology/concepts.hpp>

#include <cstddef>
#include <vector>

namespace collectives {

namespace detail {

/// The blocks j in [0, p) whose bit b is clear, increasing (p a power of two, 2^b < p).
constexpr Pattern without_bit(Buffer buffer, std::size_t p, std::size_t b)
{
  const std::size_t half = std::size_t{1} << b;
  return strided(buffer, 0, p / 2, half, half << 1);
}

/// `pat` with every block index XORed by `mask` (slot j -> block j XOR rank).
constexpr Pattern xor_mask(Pattern pat, std::size_t mask)
{
  pat.mask ^= mask;
  return pat;
}

/// x with bits a and b exchanged.
constexpr std::size_t swap_bits(std::size_t x, std::size_t a, std::size_t b)
{
  const std::size_t diff = ((x >> a) ^ (x >> b)) & 1u;
  return x ^ ((diff << a) | (diff << b));
}

/// What both hypercube alltoall schedules share: p = 2^n ranks (checked:
/// std::invalid_argument naming `call`), n, and the local copy of the own block.
class HypercubeAlltoall {
public:
  constexpr std::size_t size() const { return p_; }
  /// log p, the dimension of the hypercube the schedule walks.
  constexpr std::size_t dims() const { return log2_exact(size()); }
  constexpr AlltoallOp operation() const { return {size()}; }
  /// Every rank does rank 0's step, translated (rank XOR r).
  constexpr Symmetry symmetry(std::size_t) const { return Symmetry::uniform(RankGroup::bits(size())); }

  friend constexpr bool operator==(const HypercubeAlltoall&, const HypercubeAlltoall&) = default;

protected:
  constexpr HypercubeAlltoall(std::size_t p, const char* call) : p_(p) { require_power_of_two_ranks(p_, call); }

  /// Rank r's own block: input block r to output block r, one local op.
  template <class V>
  static constexpr void copy_own_block(std::size_t r, V& v)
  {
    v.local({contiguous(Buffer::input, r, 1), contiguous(Buffer::output, r, 1)});
  }

private:
  std::size_t p_;
};

} // namespace detail

/// Standard exchange: n = log p steps; in step i every rank sends the p/2 blocks whose
/// destination differs from it in bit i, as one message, to rank XOR 2^i (the same slot
/// indices come back). Requirements: p a power of two (std::invalid_argument otherwise).
/// Cost (one-port, on Q_n): log p (t_s + t_w m p/2), plus t_r m p/2 per step for the local
/// rearrangement (load, staging moves, store). Scratch: p + p/2 blocks (p for p = 4).
class StandardExchangeSchedule : public detail::HypercubeAlltoall {
  using Base = detail::HypercubeAlltoall;

public:
  constexpr explicit StandardExchangeSchedule(std::size_t p) : Base(p, "collectives::alltoall(standard_exchange)")
  {
  }
  using Base::dims;
  using Base::size;
  /// Step i works on dimension i; p = 1 still takes one step (its local copy).
  constexpr std::size_t num_steps() const { return dims() > 0 ? dims() : 1; }
  constexpr std::size_t scratch_blocks() const
  {
    // Slots 0..p-1 hold the blocks in transit (needed between steps, so from n = 2);
    // slots p..p+p/2-1 stage what middle steps receive (only n >= 3 has middle steps).
    return dims() >= 3 ? size() + size() / 2 : dims() == 2 ? size() : 0;
  }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t step, V& v) const
  {
    const std::size_t p = size();
    const std::size_t n = dims();
    if (n == 0) {
      Base::copy_own_block(r, v);
      return;
    }
    const std::size_t i = step;
    const bool first = i == 0;
    const bool last = i + 1 == n;
    const std::size_t partner = r ^ (std::size_t{1} << i);
    // Slot j on rank r holds the block of relative address j; before step 0 that is
    // input block r XOR j, after the last step it belongs in output block r XOR j.
    const Pattern go = with_bit(Buffer::scratch, p, i);
    const Pattern stay = detail::without_bit(Buffer::scratch, p, i);
    const Pattern staging = contiguous(Buffer::scratch, p, p / 2);
    const Pattern send = first ? detail::xor_mask(with_bit(Buffer::input, p, i), r) : go;
    const Pattern into = last ? detail::xor_mask(with_bit(Buffer::output, p, i), r) : first ? go : staging;
    v.send({partner, send});
    v.recv({partner, into});
    // The blocks that stay: loaded into their slots first, stored to the output last.
    const Pattern stay_now = first ? detail::xor_mask(detail::without_bit(Buffer::input, p, i), r) : stay;
    if (last) v.local({stay_now, detail::xor_mask(detail::without_bit(Buffer::output, p, i), r)});
    else if (first) v.local({stay_now, stay});
    else v.local({staging, go}); // the rearrangement: received blocks into their slots
  }

  friend constexpr bool operator==(const StandardExchangeSchedule&, const StandardExchangeSchedule&) = default;
};

/// Seed 002's schedule table for the all-port full-duplex hypercube Q_n: 2^(n-1) rows
/// (rounds) by n columns (dimensions). Entry (k, j) is the relative address whose blocks
/// cross dimension j in round k. Construction (seed 002): m_k = 2k + 1 as an n-bit string;
/// r_{k,j} = m_k with bit j + 1 inverted (j <= n - 2) or m_k itself (j = n - 1), then bits
/// 0 and j swapped. Entries are computed in O(1); nothing is stored.
class AllPortTable {
public:
  /// The table of Q_n; 0 <= n <= 63 (n = 0: no rounds).
  constexpr explicit AllPortTable(std::size_t n) : n_(n) {}
  constexpr std::size_t dims() const { return n_; }
  /// 2^(n-1) rounds (0 when n = 0).
  constexpr std::size_t rounds() const { return n_ == 0 ? 0 : std::size_t{1} << (n_ - 1); }
  /// r_{k,j}: the relative address sent along dimension j in round k (0-based k).
  constexpr std::size_t entry(std::size_t k, std::size_t j) const
  {
    std::size_t r = 2 * k + 1;
    if (j + 1 < n_) r ^= std::size_t{1} << (j + 1);
    return detail::swap_bits(r, 0, j);
  }
  /// The round in which relative address r crosses dimension j (r has bit j set): the
  /// inverse of column j, as the construction's two steps are invertible.
  constexpr std::size_t round_of(std::size_t r, std::size_t j) const
  {
    std::size_t m = detail::swap_bits(r, 0, j);
    if (j + 1 < n_) m ^= std::size_t{1} << (j + 1);
    return m >> 1;
  }

  /// How many of relative address r's crossings come before round k: the 1-bits d of r
  /// with round_of(r, d) < k. In O(1), as every visit of AllPortSchedule counts these for
  /// n addresses: round_of(r, d) < k exactly when m_d < K = 2k + 1, where m_d is r with
  /// bits 0 and d swapped and bit d + 1 flipped (d + 1 < n). Bit d of r is 1, so the swap
  /// makes A = r | 1 and, when bit 0 of r is 0, clears bit d: m_d is A with the flips
  /// 2^(d+1) (r odd) or 3 2^d (r even), whose top bit is e = d + 1; d = n - 1 has no
  /// flip of its own. A ^ F against K: with t the top bit of A ^ K, a flip whose top bit is
  /// above t is below K when A has that bit; one below t, when A < K; one at t is compared.
  constexpr std::size_t crossings_before(std::size_t r, std::size_t k) const
  {
    if (n_ == 0 || r == 0) return 0;
    const std::size_t big = 2 * k + 1, a = r | 1u, odd = r & 1u;
    const std::size_t last = std::size_t{1} << (n_ - 1);
    auto flip = [&](std::size_t e) { return odd != 0 ? std::size_t{1} << e : std::size_t{3} << (e - 1); };
    auto below = [](std::size_t x) { return (std::size_t{1} << x) - 1; }; // bits under x
    const std::size_t tops = (r & (last - 1)) << 1; // e = d + 1 for the 1-bits d < n - 1
    std::size_t count = (r & last) != 0 && (odd != 0 ? a : a ^ last) < big ? 1 : 0;
    const std::size_t h = a ^ big;
    if (h == 0) return count + detail::popcount(tops & a);
    const std::size_t t = detail::floor_log2(h);
    count += detail::popcount(tops & a & ~below(t + 1));
    if (((a >> t) & 1u) == 0) count += detail::popcount(tops & below(t));
    if (((tops >> t) & 1u) != 0 && (a ^ flip(t)) < big) ++count;
    return count;
  }

private:
  std::size_t n_;
};

/// True when `table` (rounds x n entries, row-major) satisfies seed 002's constraints for
/// Q_n: every entry is a nonzero n-bit string; (a) column j's entries have bit j set;
/// (b) no entry repeats within a row; (c) every r in 1..2^n-1 appears exactly once in
/// each column j with bit j of r set, and in no other column. Cost: O(n 2^n) time and
/// memory. constexpr: usable in static_assert (small n) and at run time.
constexpr bool satisfies_all_port_constraints(std::size_t n, const std::vector<std::size_t>& table)
{
  if (n == 0) return table.empty();
  if (n > 32) return false; // the check needs n 2^n counters
  const std::size_t p = std::size_t{1} << n;
  const std::size_t rounds = p / 2;
  if (table.size() != rounds * n) return false;
  std::vector<unsigned char> seen(p * n, 0); // seen[r * n + j]: r appears in column j
  for (std::size_t k = 0; k < rounds; ++k)
    for (std::size_t j = 0; j < n; ++j) {
      const std::size_t r = table[k * n + j];
      if (r == 0 || r >= p) return false;
      if (((r >> j) & 1u) == 0) return false; // (a)
      for (std::size_t j2 = 0; j2 < j; ++j2)
        if (table[k * n + j2] == r) return false; // (b)
      if (seen[r * n + j] != 0) return false; // (c): twice in one column
      seen[r * n + j] = 1;
    }
  for (std::size_t r = 1; r < p; ++r)
    for (std::size_t j = 0; j < n; ++j)
      if (seen[r * n + j] != ((r >> j) & 1u)) return false; // (c)
  return true;
}

/// The whole of AllPortTable(n), rounds x n entries row-major (for checks and tools).
constexpr std::vector<std::size_t> all_port_table(std::size_t n)
{
  const AllPortTable t(n);
  std::vector<std::size_t> out;
  out.reserve(t.rounds() * n);
  for (std::size_t k = 0; k < t.rounds(); ++k)
    for (std::size_t j = 0; j < n; ++j) out.push_back(t.entry(k, j));
  return out;
}

/// True when seed 002's construction for Q_n satisfies constraints (a)-(c) and
/// AllPortTable::round_of inverts every column (AllPortSchedule relies on both).
/// Cost: O(n 2^n) time and memory; n > 32 is not checked (false). constexpr:
/// static_assert it for small n, call it at run time for larger ones.
constexpr bool check_all_port_table(std::size_t n)
{
  if (n > 32) return false;
  if (!satisfies_all_port_constraints(n, all_port_table(n))) return false;
  const AllPortTable t(n);
  for (std::size_t k = 0; k < t.rounds(); ++k)
    for (std::size_t j = 0; j < n; ++j)
      if (t.round_of(t.entry(k, j), j) != k) return false;
  return true;
}

/// All-port full-duplex hypercube alltoall (seed 002): 2^(n-1) rounds; in round k every
/// rank sends, along each dimension j at once, its one block of relative address
/// AllPortTable(n).entry(k, j) to rank XOR 2^j and receives the partner's block of the
/// same relative address. Every link carries one block each way in every round, and
/// every block takes a shortest path: time- and transmission-optimal on an all-port Q_n.
/// Requirements: p = 2^n (checked like StandardExchangeSchedule). Cost (all-port, SF,
/// on Q_n): 2^(n-1) (t_s + t_w m); no local rearrangement. On a one-port network the n
/// messages of a round serialise: about (p/2) log p (t_s + t_w m). Scratch: 2p blocks
/// (p for p = 4). Each visit costs O(log^2 p).
class AllPortSchedule : public detail::HypercubeAlltoall {
  using Base = detail::HypercubeAlltoall;

public:
  constexpr explicit AllPortSchedule(std::size_t p) : Base(p, "collectives::alltoall(all_port)")
  {
  }
  using Base::dims;
  using Base::size;
  /// The table the rounds follow.
  constexpr AllPortTable table() const { return AllPortTable(dims()); }
  /// 2^(n-1) rounds; p = 1 still takes one step (its local copy).
  constexpr std::size_t num_steps() const { return dims() > 0 ? table().rounds() : 1; }
  /// After round 0 (which also copies the own block) every round sends one block to each
  /// hypercube neighbour and receives one from it (schedule.hpp).
  constexpr std::size_t steps_alike_from() const { return 1; }
  constexpr std::size_t scratch_blocks() const
  {
    // Copy A (slots r) holds blocks between crossings; copy B (slots p + r) is needed
    // only by relative addresses with three or more 1-bits.
    return dims() >= 3 ? 2 * size() : dims() == 2 ? size() : 0;
  }

  template <class V>
  constexpr void visit(std::size_t x, std::size_t k, V& v) const
  {
    const std::size_t n = dims();
    if (k == 0) Base::copy_own_block(x, v);
    if (n == 0) return;
    const AllPortTable t = table();
    for (std::size_t j = 0; j < n; ++j) {
      const std::size_t r = t.entry(k, j);
      // Crossings of r's blocks before round k, and in all: every rank has made the same
      // ones, so both partners agree on where the block is read and written.
      const std::size_t done = t.crossings_before(r, k);
      const auto total = detail::popcount(r);
      const std::size_t peer = x ^ (std::size_t{1} << j);
      v.send({peer, location(r, done, total, x)});
      v.recv({peer, location(r, done + 1, total, x)});
    }
  }

  friend constexpr bool operator==(const AllPortSchedule&, const AllPortSchedule&) = default;

private:
  /// Where rank x keeps the block of relative address r after c of its `total` crossings.
  constexpr Pattern location(std::size_t r, std::size_t c, std::size_t total, std::size_t x) const
  {
    if (c == 0) return contiguous(Buffer::input, x ^ r, 1);
    if (c == total) return contiguous(Buffer::output, x ^ r, 1);
    return contiguous(Buffer::scratch, (c % 2 == 1 ? 0 : size()) + r, 1);
  }
};

namespace alltoall_algorithm {
/// Hypercube standard exchange, log p steps of p/2 blocks; p a power of two.
struct StandardExchange : AlgorithmBase<Collective::alltoall> {
  static constexpr const char* name = "standard_exchange";
  static constexpr Needs needs{.power_of_two = true};
  template <topology T> static constexpr auto schedule(const T& t, const Problem&) { return StandardExchangeSchedule(t.size()); }
};
/// All-port full-duplex hypercube (seed 002's table), p/2 rounds using every dimension;
/// p a power of two.
struct AllPort : AlgorithmBase<Collective::alltoall> {
  static constexpr const char* name = "all_port";
  static constexpr Needs needs{.power_of_two = true};
  template <topology T> static constexpr auto schedule(const T& t, const Problem&) { return AllPortSchedule(t.size()); }
};
inline constexpr StandardExchange standard_exchange{};
inline constexpr AllPort all_port{};
} // namespace alltoall_algorithm

} // namespace collectives
