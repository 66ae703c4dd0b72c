#pragma once
// Closed forms: O(1) (at most O(log p) or O(ndims)) constexpr costs.
//
//  1. collectives::closed_form::<collective>_<algorithm>_<network>(model, p, m, ...): the
//     exact cost of OUR schedule on that network under the model of schedule_cost.hpp,
//     so estimate(schedule, topology, model, m) equals it (tests/unit/cost_closed_forms.cpp
//     checks every one over grids of p, m and model parameters). They count what the
//     seeds leave out: t_h on every hop, one-hop messages included (the seeds drop it
//     for nearest-neighbour transfers), t_r for every word a local op moves, link
//     sharing when an algorithm is mapped onto a network it was not written for, the
//     one-port serialisation of a rank's messages, and t_r per word combined into a
//     partial result (the seeds count no computation). With t_h = t_r = 0 most equal the
//     seeds' formulas; where they do not, the function's comment says why.
//  2. collectives::closed_form::seed::*: the formulas exactly as the seeds print them
//     (seed 001's cost table with its store-and-forward variants, seed 002's figures),
//     for the tool's --table and for the tests that compare.
//  3. collectives::lower_bound(collective, topology, model, problem): a bound no
//     algorithm can beat under the model: start-ups, what a node must receive or send
//     through its ports, what must cross the best cut of the network, and (alltoall)
//     the total word-hops over all links.
//
// Arguments: p ranks, m words (per block for alltoall, allgather, reduce_scatter, scatter
// and gather; the whole vector n for broadcast, reduce, allreduce, scan and shift, as in
// Problem). Networks: ring (Ring<p>), hypercube (Hypercube, p = 2^d), fully_connected
// (FullyConnected<p>: every message one hop, the network of the "standard" any-p
// formulas), or a product topology passed as an argument (mesh, torus, hypercube).

#include <collectives/algorithm/collective.hpp>
#include <collectives/detail/bits.hpp>
#include <collectives/cost/fully_connected.hpp>
#include <collectives/cost/model.hpp>
#include <collectives/detail/require.hpp>
#include <collectives/schedule/pattern.hpp>
#include <collectives/topology/concepts.hpp>

#include <bit>
#include <cstddef>
#include <optional>
#include <type_traits>
#include <utility>

namespace collectives {

namespace detail {

/// Hop distance between ranks k apart on a ring of p: min(k, p - k) (k < p).
constexpr std::size_t cf_ring_dist(std::size_t k, std::size_t p) { return k < p - k ? k : p - k; }
/// Square root by Newton's method (x >= 0), for the seeds' sqrt(p) in constant evaluation.
constexpr double cf_sqrt(double x)
{
  if (x <= 0) return 0;
  double r = x < 1 ? 1 : x;
  for (int i = 0; i < 200; ++i) {
    const double next = 0.5 * (r + x / r);
    if (next == r) break;
    r = next;
  }
  return r;
}
constexpr double cf_d(std::size_t x) { return static_cast<double>(x); }

} // namespace detail

namespace closed_form {

/// The critical path of a schedule, term by term: its time is
/// t_s starts + t_w (words, or word_hops under store-and-forward) + t_h hops + t_r local.
/// `words` and `word_hops` already include link sharing (congestion).
struct Terms {
  double starts = 0;    ///< messages on the critical path (one t_s each)
  double words = 0;     ///< sum of words x congestion
  double word_hops = 0; ///< sum of words x congestion x hops
  double hops = 0;      ///< sum of hops
  double local = 0;     ///< words moved by local ops on the critical path

  friend constexpr Terms operator+(Terms a, const Terms& b)
  {
    a.starts += b.starts;
    a.words += b.words;
    a.word_hops += b.word_hops;
    a.hops += b.hops;
    a.local += b.local;
    return a;
  }
};

/// n messages on the critical path, each of w words over l hops sharing links c-fold.
constexpr Terms messages(double n, double w, double l, double c = 1)
{
  return Terms{n, n * w * c, n * w * c * l, n * l, 0};
}
/// Local work of w words.
constexpr Terms local_words(double w) { return Terms{0, 0, 0, 0, w}; }

/// The time of `x` under `model` (validated: a bad parameter throws / does not compile).
constexpr double evaluate(const Terms& x, const CostModel& model)
{
  model.validated();
  const double w = model.routing == Routing::store_and_forward ? x.word_hops : x.words;
  return model.t_s * x.starts + model.t_w * w + model.t_h * x.hops + model.t_r * x.local;
}

namespace detail_cf {
constexpr void check(std::size_t p, double m)
{
  detail::require(p >= 1, "collectives::closed_form: p must be at least 1");
  detail::require(m >= 0 && m <= 1e15, "collectives::closed_form: m must be finite, non-negative and at most 1e15");
}
constexpr void check_pow2(std::size_t p, double m)
{
  check(p, m);
  detail::require(std::has_single_bit(p), "collectives::closed_form: a hypercube needs p a power of two");
}
/// Sums over the steps k = 0 .. ceil(log2 p) - 1 of the doubling algorithms on a ring:
/// d_k = min(2^k, p - 2^k) hops with d_k-fold link sharing (every rank sends 2^k ahead).
struct RingDoubling {
  double d = 0, d2 = 0, d3 = 0; // sums of d_k, d_k^2, d_k^3
};
constexpr RingDoubling ring_doubling(std::size_t p)
{
  RingDoubling s;
  for (std::size_t k = 0; k < detail::ceil_log2(p); ++k) {
    const double d = detail::cf_d(detail::cf_ring_dist(std::size_t{1} << k, p));
    s.d += d;
    s.d2 += d * d;
    s.d3 += d * d * d;
  }
  return s;
}
/// The binomial tree of ring_shape(p) (tree/shape.hpp) with subtrees' blocks as messages
/// (scatter, gather) along one ring of z nodes: per step, the largest message and its hops.
/// Both are (z - 2^(L-1)) in the first step (one message, the shorter way round) and
/// 2^(L-1-j) after; so the words and hops sum to z - 1 each.
constexpr double binomial_subtree_word_hops(std::size_t z)
{
  const std::size_t L = detail::ceil_log2(z);
  if (L == 0) return 0;
  const double first = detail::cf_d(z - (std::size_t{1} << (L - 1)));
  double rest = 0;
  for (std::size_t j = 1; j < L; ++j) {
    const double d = detail::cf_d(std::size_t{1} << (L - 1 - j));
    rest += d * d;
  }
  return first * first + rest;
}
/// The exclusive doubling scan's blocks of local work on its busiest rank, summed over
/// the steps: in step 0 two where a receiving rank keeps its partial for a later step (p
/// >= 4), one where only rank 0 does (p = 3); in step k >= 1 two where some receiving
/// rank keeps it (3 2^k < p), else one (the combining receive into the result).
constexpr double scan_doubling_exclusive_locals(std::size_t p)
{
  if (p <= 2) return 0;
  double n = p == 3 ? 1 : 2;
  for (std::size_t k = 1; k < detail::ceil_log2(p); ++k) n += 3 * (std::size_t{1} << k) < p ? 2 : 1;
  return n;
}
} // namespace detail_cf

// ---------------------------------------------------------------------------------------
// alltoall (m: words per block)
// ---------------------------------------------------------------------------------------

/// PairwiseXorSchedule on a hypercube (seed 001's optimal algorithm; seed 002's DEX):
/// (p - 1)(t_s + t_w m) + t_h (p/2) log p, E-cube congestion-free; + t_r m (own block).
/// SF: each word pays every hop. Seed 002 prints (2^n - 1)(t_s + n t_h/2 + t_w m), taking
/// n/2 as the average distance; the exact sum of distances is n 2^(n-1).
constexpr double alltoall_pairwise_xor_hypercube(const CostModel& c, std::size_t p, double m)
{
  detail_cf::check_pow2(p, m);
  const double n = detail::cf_d(detail::floor_log2(p));
  const double P = detail::cf_d(p);
  Terms t = local_words(m);
  if (p > 1) t = t + Terms{P - 1, (P - 1) * m, m * n * P / 2, n * P / 2, 0};
  return evaluate(t, c);
}

/// PairwiseSchedule (or PairwiseXorSchedule) where every message is one hop:
/// (p - 1)(t_s + t_w m + t_h) + t_r m.
constexpr double alltoall_pairwise_fully_connected(const CostModel& c, std::size_t p, double m)
{
  detail_cf::check(p, m);
  return evaluate(messages(detail::cf_d(p) - 1, m, 1) + local_words(m), c);
}

namespace detail_cf {
/// One rank's p - 1 one-hop messages of m words in one step (the linear algorithms'
/// busiest rank): one-port they add up, all-port the step takes one message's time.
constexpr Terms linear_step(const CostModel& c, std::size_t p, double m)
{
  check(p, m);
  return messages(p == 1 ? 0 : c.ports == Ports::one ? detail::cf_d(p) - 1 : 1, m, 1);
}
} // namespace detail_cf

/// AlltoallLinearSchedule where every message is one hop: every rank's p - 1 messages in
/// one step, one-port what the pairwise exchange costs, (p - 1)(t_s + t_w m + t_h) + t_r m;
/// all-port t_s + t_w m + t_h + t_r m.
constexpr double alltoall_linear_fully_connected(const CostModel& c, std::size_t p, double m)
{
  return evaluate(detail_cf::linear_step(c, p, m) + local_words(m), c);
}

/// PairwiseSchedule on a ring: in step k every rank sends k ahead, min(k, p - k) hops the
/// shorter way, and all p messages go round the same way, so each link carries
/// min(k, p - k) of them: sum_k (t_s + t_w m d_k + t_h d_k) = (p - 1) t_s +
/// (t_w m + t_h) floor(p^2/4) (CT). Bandwidth-wise as good as the one-way ring algorithm.
constexpr double alltoall_pairwise_ring(const CostModel& c, std::size_t p, double m)
{
  detail_cf::check(p, m);
  double d = 0, d2 = 0;
  for (std::size_t k = 1; k < p; ++k) {
    // O(1) sums exist; the loop keeps them obviously right and is O(p) only here.
    const double x = detail::cf_d(detail::cf_ring_dist(k, p));
    d += x;
    d2 += x * x;
  }
  return evaluate(Terms{detail::cf_d(p) - 1, m * d, m * d2, d, m}, c);
}

/// RingSchedule (seed 000 4.5.1, seed 002's cycle) on a ring, or wherever rank + 1 is one
/// hop: (t_s + t_w m p/2)(p - 1) + t_h (p - 1) + t_r m p (the kept block of every step).
constexpr double alltoall_ring_ring(const CostModel& c, std::size_t p, double m)
{
  detail_cf::check(p, m);
  const double P = detail::cf_d(p);
  return evaluate(Terms{P - 1, m * P * (P - 1) / 2, m * P * (P - 1) / 2, P - 1, m * P}, c);
}

/// RingTwoWaySchedule on a ring: floor(p/2) steps up with floor(p/2) - e + 1 blocks and
/// floor((p-1)/2) steps down with floor((p-1)/2) - e + 1 blocks. All-port (seed 002,
/// "all-port full-duplex cycle", z odd): t_s (z-1)/2 + t_w m (z^2 - 1)/8 + t_h (z-1)/2:
/// the seed's z^2/8 is (z^2 - 1)/8 rounded (sum_{i=1}^{(z-1)/2} i = (z^2 - 1)/8).
/// One-port: the two directions' messages serialise. + t_r m p.
constexpr double alltoall_ring_two_way_ring(const CostModel& c, std::size_t p, double m)
{
  detail_cf::check(p, m);
  const double up = detail::cf_d(p / 2), down = detail::cf_d((p - 1) / 2);
  const double up_blocks = up * (up + 1) / 2, down_blocks = down * (down + 1) / 2;
  Terms t = local_words(m * detail::cf_d(p));
  if (c.ports == Ports::one) t = t + Terms{up + down, m * (up_blocks + down_blocks), m * (up_blocks + down_blocks), up + down, 0};
  else t = t + Terms{up, m * up_blocks, m * up_blocks, up, 0};
  return evaluate(t, c);
}

/// BruckSchedule where every message is one hop: ceil(log p) t_s + t_w m sum_k
/// |{j < p : bit k of j}| + ceil(log p) t_h + local rotations. For p a power of two the
/// sum is (p/2) log p: the standard ceil(log p)(t_s + t_w m p/2).
constexpr double alltoall_bruck_fully_connected(const CostModel& c, std::size_t p, double m)
{
  detail_cf::check(p, m);
  const std::size_t K = detail::ceil_log2(p);
  double blocks = 0, local = 0;
  for (std::size_t k = 0; k < K; ++k) blocks += detail::cf_d(count_with_bit(p, k));
  if (p == 1) local = 1;
  else if (K == 1) local = detail::cf_d(p - count_with_bit(p, 0));
  else {
    // Step 0 rotates the blocks it keeps, middle steps move what they staged, the last
    // step inverse-rotates what it kept (bruck.hpp).
    local = detail::cf_d(p - count_with_bit(p, 0)) + detail::cf_d(p - count_with_bit(p, K - 1));
    for (std::size_t k = 1; k + 1 < K; ++k) local += detail::cf_d(count_with_bit(p, k));
  }
  const double k = detail::cf_d(K);
  return evaluate(Terms{k, m * blocks, m * blocks, k, m * local}, c);
}

/// StandardExchangeSchedule on a hypercube (seed 000 4.5.3; seed 002's SEX,
/// n(t_s + t_w m 2^(n-1))): log p (t_s + t_w m p/2 + t_h) + t_r (m p/2) log p. The seed
/// counts t_r m p log p (the whole pool rearranged per step); ours moves half per step.
constexpr double alltoall_standard_exchange_hypercube(const CostModel& c, std::size_t p, double m)
{
  detail_cf::check_pow2(p, m);
  const double n = detail::cf_d(detail::floor_log2(p)), P = detail::cf_d(p);
  if (p == 1) return evaluate(local_words(m), c);
  return evaluate(messages(n, m * P / 2, 1) + local_words(n * m * P / 2), c);
}

/// StandardExchangeSchedule mapped onto a ring: step i's partner r XOR 2^i is 2^i hops
/// away and every link carries 2^i messages (the congestion of seed 001 Figure 3.14):
/// log p t_s + t_w (m p/2)(p - 1) + t_h (p - 1) under CT, t_w (m p/2)(p^2 - 1)/3 under SF.
constexpr double alltoall_standard_exchange_ring(const CostModel& c, std::size_t p, double m)
{
  detail_cf::check_pow2(p, m);
  const double n = detail::cf_d(detail::floor_log2(p)), P = detail::cf_d(p);
  if (p == 1) return evaluate(local_words(m), c);
  return evaluate(Terms{n, m * P / 2 * (P - 1), m * P / 2 * (P * P - 1) / 3, P - 1, n * m * P / 2}, c);
}

/// AllPortSchedule on a hypercube (seed 002): 2^(n-1) rounds of one block along every
/// dimension. All-port: (p/2)(t_s + t_w m + t_h); one-port the n messages of a round
/// serialise: (p/2) log p (t_s + t_w m + t_h). + t_r m.
constexpr double alltoall_all_port_hypercube(const CostModel& c, std::size_t p, double m)
{
  detail_cf::check_pow2(p, m);
  const double n = detail::cf_d(detail::floor_log2(p)), P = detail::cf_d(p);
  if (p == 1) return evaluate(local_words(m), c);
  const double per_round = c.ports == Ports::one ? n : 1;
  return evaluate(messages(P / 2 * per_round, m, 1) + local_words(m), c);
}

/// DimensionalSchedule on a product topology (mesh, torus, hypercube): per dimension of
/// extent z, the ring algorithm on super-blocks of p/z blocks: sum_i (z_i - 1)(t_s +
/// t_w m p/2 + t_h) + t_r m sum_i (p/z_i)(z_i - 1). On a square mesh
/// (2 t_s + t_w m p)(sqrt p - 1) as seeds 000 and 002 print it.
template <product_topology T>
constexpr double alltoall_dimensional(const CostModel& c, const T& topo, double m)
{
  const std::size_t p = topo.size();
  detail_cf::check(p, m);
  Terms t;
  for (std::size_t i = 0; i < topo.ndims(); ++i) {
    const std::size_t z = topo.extent(i);
    if (z == 1) continue;
    const double Z = detail::cf_d(z), P = detail::cf_d(p);
    t = t + messages(Z - 1, m * P / 2, 1) + local_words(m * (P / Z) * (Z - 1));
  }
  if (p == 1) t = local_words(m);
  return evaluate(t, c);
}

// ---------------------------------------------------------------------------------------
// allgather (m: words per block)
// ---------------------------------------------------------------------------------------

/// AllgatherRingSchedule (ALL_TO_ALL_BC_RING) on a ring: (p - 1)(t_s + t_w m + t_h)
/// + t_r m (own block; 0 in place).
constexpr double allgather_ring_ring(const CostModel& c, std::size_t p, double m, bool in_place = false)
{
  detail_cf::check(p, m);
  return evaluate(messages(detail::cf_d(p) - 1, m, 1) + local_words(in_place ? 0 : m), c);
}

/// AllgatherRecursiveDoublingSchedule (ALL_TO_ALL_BC_HCUBE) on a hypercube:
/// t_s log p + t_w m (p - 1) + t_h log p + t_r m.
constexpr double allgather_recursive_doubling_hypercube(const CostModel& c, std::size_t p, double m, bool in_place = false)
{
  detail_cf::check_pow2(p, m);
  const double n = detail::cf_d(detail::floor_log2(p)), P = detail::cf_d(p);
  return evaluate(Terms{n, m * (P - 1), m * (P - 1), n, in_place ? 0 : m}, c);
}

/// The hypercube all-to-all broadcast mapped onto a ring (seed 001 Figure 3.14): step i
/// sends 2^i blocks 2^i hops and every link carries 2^i messages, so under CT
/// t_s log p + t_w m (p^2 - 1)/3 + t_h (p - 1) — worse than the ring algorithm's
/// t_w m (p - 1) once m is large: "not strictly better because of congestion".
constexpr double allgather_recursive_doubling_ring(const CostModel& c, std::size_t p, double m, bool in_place = false)
{
  detail_cf::check_pow2(p, m);
  const double n = detail::cf_d(detail::floor_log2(p)), P = detail::cf_d(p);
  return evaluate(Terms{n, m * (P * P - 1) / 3, m * (P * P * P - 1) / 7, P - 1, in_place ? 0 : m}, c);
}

/// AllgatherLinearSchedule where every message is one hop: rank 0's p - 1 messages of a
/// block, its own block's copy, then p - 1 messages of p blocks: (p - 1)(2 t_s + t_w m
/// (p + 1) + 2 t_h) + t_r m one-port; all-port 2 (t_s + t_h) + t_w m (p + 1) + t_r m.
constexpr double allgather_linear_fully_connected(const CostModel& c, std::size_t p, double m, bool in_place = false)
{
  return evaluate(detail_cf::linear_step(c, p, m) + local_words(in_place ? 0 : m) +
                    detail_cf::linear_step(c, p, m * detail::cf_d(p)),
                  c);
}

/// AllgatherBruckSchedule where every message is one hop (any p):
/// ceil(log p)(t_s + t_h) + t_w m (p - 1) + t_r m.
constexpr double allgather_bruck_fully_connected(const CostModel& c, std::size_t p, double m, bool in_place = false)
{
  detail_cf::check(p, m);
  const double K = detail::cf_d(detail::ceil_log2(p)), P = detail::cf_d(p);
  return evaluate(Terms{K, m * (P - 1), m * (P - 1), K, in_place ? 0 : m}, c);
}

/// AllgatherBruckSchedule on a ring: step k sends d_k = min(2^k, p - 2^k) blocks d_k hops
/// with d_k-fold link sharing.
constexpr double allgather_bruck_ring(const CostModel& c, std::size_t p, double m, bool in_place = false)
{
  detail_cf::check(p, m);
  const auto s = detail_cf::ring_doubling(p);
  const double K = detail::cf_d(detail::ceil_log2(p));
  return evaluate(Terms{K, m * s.d2, m * s.d3, s.d, in_place ? 0 : m}, c);
}

/// AllgatherDimensionalSchedule (ALL_TO_ALL_BC_MESH) on a product topology:
/// sum_i (z_i - 1)(t_s + t_h) + t_w m (p - 1) + t_r m; on a square mesh the seed's
/// 2 t_s (sqrt p - 1) + t_w m (p - 1). Its step 0 only places the own block (t_r m).
template <product_topology T>
constexpr double allgather_dimensional(const CostModel& c, const T& topo, double m, bool in_place = false)
{
  const std::size_t p = topo.size();
  detail_cf::check(p, m);
  double steps = 0;
  for (std::size_t i = 0; i < topo.ndims(); ++i) steps += detail::cf_d(topo.extent(i) - 1);
  const double P = detail::cf_d(p);
  return evaluate(Terms{steps, m * (P - 1), m * (P - 1), steps, in_place ? 0 : m}, c);
}

// ---------------------------------------------------------------------------------------
// reduce_scatter (m: words per block)
// ---------------------------------------------------------------------------------------

/// ReduceScatterHalvingSchedule (ALL_TO_ALL_RED_HCUBE) on a hypercube:
/// log p (t_s + t_h) + t_w m (p - 1) + t_r m (p - 1): the own contributions folded in step
/// 0 (p/2 blocks), p/2 - 2 blocks combined as they arrive, and the last block's partial
/// joining the partner's part in the result. In place at p = 2 the block lands in scratch
/// and is stored at the end: t_r m p.
constexpr double reduce_scatter_recursive_halving_hypercube(const CostModel& c, std::size_t p, double m,
                                                            bool in_place = false)
{
  detail_cf::check_pow2(p, m);
  const double n = detail::cf_d(detail::floor_log2(p)), P = detail::cf_d(p);
  if (p == 1) return evaluate(local_words(m), c);
  return evaluate(Terms{n, m * (P - 1), m * (P - 1), n, m * (in_place && p == 2 ? P : P - 1)}, c);
}

/// ReduceScatterLinearSchedule where every message is one hop: rank 0's p - 1 messages of
/// p blocks and its combining of them, then p - 1 messages of a block and its own block's
/// copy: (p - 1)(2 t_s + t_w m (p + 1) + 2 t_h + t_r m p) + t_r m one-port; all-port 2 (t_s
/// + t_h) + t_w m (p + 1) + t_r m ((p - 1) p + 1) (p = 1: t_r m).
constexpr double reduce_scatter_linear_fully_connected(const CostModel& c, std::size_t p, double m)
{
  const double P = detail::cf_d(p);
  if (p == 1) return evaluate(local_words(m), c);
  return evaluate(detail_cf::linear_step(c, p, m * P) + local_words(m * P * (P - 1)) + detail_cf::linear_step(c, p, m) +
                    local_words(m),
                  c);
}

/// ReduceScatterRingSchedule (ALL_TO_ALL_RED_RING) on a ring:
/// (p - 1)(t_s + t_w m + t_h) + t_r m (p - 1), + t_r m in place (the result copied out of
/// scratch; p = 1 copies it either way).
constexpr double reduce_scatter_ring_ring(const CostModel& c, std::size_t p, double m, bool in_place = false)
{
  detail_cf::check(p, m);
  const double P = detail::cf_d(p);
  return evaluate(messages(P - 1, m, 1) + local_words(m * (in_place || p == 1 ? P : P - 1)), c);
}

/// Blocks ReduceScatterPairwiseSchedule combines on its critical path: from step 2 on some
/// rank combines an arrival into a running partial, and in the last step the busiest rank
/// folds three blocks into the arrival in its result (p >= 4: p in all; p = 3: 2; p = 2:
/// 1; p = 1: 1, the copy). In place the last arrival joins its partial, which the fold
/// then copies: one more from p = 2 on (p + 1, 3, 2).
constexpr double reduce_scatter_pairwise_local(std::size_t p, bool in_place = false)
{
  const double more = in_place && p >= 2 ? 1 : 0;
  return (p >= 4 ? static_cast<double>(p) : p == 3 ? 2.0 : 1.0) + more;
}

/// ReduceScatterPairwiseSchedule where every message is one hop:
/// (p - 1)(t_s + t_w m + t_h) + p t_r m (p >= 4; in place (p + 1) t_r m).
constexpr double reduce_scatter_pairwise_fully_connected(const CostModel& c, std::size_t p, double m,
                                                         bool in_place = false)
{
  detail_cf::check(p, m);
  return evaluate(messages(detail::cf_d(p) - 1, m, 1) + local_words(m * reduce_scatter_pairwise_local(p, in_place)),
                  c);
}

/// ReduceScatterPairwiseSchedule on a ring: the pairwise alltoall's pattern (see
/// alltoall_pairwise_ring) with the final fold.
constexpr double reduce_scatter_pairwise_ring(const CostModel& c, std::size_t p, double m, bool in_place = false)
{
  CostModel no_local = c;
  no_local.t_r = 0;
  return alltoall_pairwise_ring(no_local, p, m) + c.t_r * m * reduce_scatter_pairwise_local(p, in_place);
}

/// ReduceScatterDimensionalSchedule on a product topology:
/// sum_i (z_i - 1)(t_s + t_h) + t_w m (p - 1) + t_r m (p - 1) (the blocks combined as they
/// arrive, the last one in the result); + t_r m in place along one ring (the result copied
/// out of scratch; p = 1 copies it either way).
template <product_topology T>
constexpr double reduce_scatter_dimensional(const CostModel& c, const T& topo, double m, bool in_place = false)
{
  const std::size_t p = topo.size();
  detail_cf::check(p, m);
  double steps = 0;
  std::size_t rings = 0;
  for (std::size_t i = 0; i < topo.ndims(); ++i) {
    steps += detail::cf_d(topo.extent(i) - 1);
    rings += topo.extent(i) > 1 ? 1u : 0u;
  }
  const double P = detail::cf_d(p);
  const bool copied = p == 1 || (in_place && rings == 1);
  return evaluate(Terms{steps, m * (P - 1), m * (P - 1), steps, m * (copied ? P : P - 1)}, c);
}

// ---------------------------------------------------------------------------------------
// allreduce (m: words of the whole vector)
// ---------------------------------------------------------------------------------------

/// allreduce_doubling_schedule (recursive doubling, folded onto the largest power of two
/// q <= p, MPICH's way) where every message is one hop (on a hypercube p = q and this is
/// the seeds' (t_s + t_w m) log p + t_h log p): log q (t_s + t_w m + t_h), plus for
/// p != q the fold and unfold messages (2 (t_s + t_w m + t_h)) and the folded rank's
/// combine (t_r m); plus t_r m per step to combine the partner's vector (the first step
/// straight from the input when not in place: no copy to load it).
constexpr double allreduce_recursive_doubling_fully_connected(const CostModel& c, std::size_t p, double m,
                                                              bool in_place = false)
{
  detail_cf::check(p, m);
  const std::size_t q = detail::pow2_floor(p);
  const double d = detail::cf_d(detail::floor_log2(q));
  if (p == 1) return evaluate(local_words(in_place ? 0 : m), c); // the copy
  if (p == q) return evaluate(messages(d, m, 1) + local_words(d * m), c);
  return evaluate(messages(d + 2, m, 1) + local_words(d * m + m), c);
}

/// allreduce_rabenseifner_schedule where every message is one hop: the vector in q
/// pieces (q = largest power of two <= p); reduce-scatter by halving then all-gather by
/// doubling: 2 log q (t_s + t_h) + 2 t_w m (q - 1)/q + t_r m (q - 1)/q (the halves
/// combined), plus for p != q the fold's two messages as above and t_r m (the folded rank's
/// combine, beside the others' load of their contribution). For p = q the contribution is
/// read where it is (nothing is loaded into the output first), so in place costs the same
/// (p = 1 copies it, not in place).
/// On a hypercube: 2 t_s log p + 2 t_w m (p - 1)/p (+ 2 t_h log p).
constexpr double allreduce_rabenseifner_fully_connected(const CostModel& c, std::size_t p, double m,
                                                       bool in_place = false)
{
  detail_cf::check(p, m);
  const std::size_t q = detail::pow2_floor(p);
  const double d = detail::cf_d(detail::floor_log2(q)), Q = detail::cf_d(q);
  // The reduce-scatter half combines (q - 1)/q of the vector as it arrives.
  Terms t = messages(2 * d, 0, 1) + Terms{0, 2 * m * (Q - 1) / Q, 2 * m * (Q - 1) / Q, 0, m * (Q - 1) / Q};
  if (p == q) return evaluate(t + local_words(p == 1 && !in_place ? m : 0), c);
  return evaluate(t + messages(2, m, 1) + local_words(m), c); // the fold's combine
}

/// allreduce_ring_schedule on a ring: the vector in p pieces; ALL_TO_ALL_RED_RING then
/// ALL_TO_ALL_BC_RING: 2 (p - 1)(t_s + t_w m/p + t_h) + t_r m (p - 1)/p (the pieces
/// combined; p = 1: t_r m, the copy).
constexpr double allreduce_ring_ring(const CostModel& c, std::size_t p, double m)
{
  detail_cf::check(p, m);
  const double P = detail::cf_d(p);
  return evaluate(messages(2 * (P - 1), m / P, 1) + local_words(p == 1 ? m : m * (P - 1) / P), c);
}

/// allreduce_reduce_broadcast_schedule (binomial reduce to rank 0, then binomial
/// broadcast) where every message is one hop, or on a hypercube (rank 0's binomial tree
/// is the hypercube's): 2 ceil(log p)(t_s + t_w m + t_h) + t_r m (ceil(log p) + 1)
/// (a child's partial combined per reduce step, the contribution loaded).
constexpr double allreduce_reduce_broadcast_fully_connected(const CostModel& c, std::size_t p, double m, bool in_place = false)
{
  detail_cf::check(p, m);
  const double L = detail::cf_d(detail::ceil_log2(p));
  return evaluate(messages(2 * L, m, 1) + local_words(L * m + (in_place ? 0 : m)), c);
}

/// allreduce_linear_schedule (linear reduce to rank 0, then linear broadcast) where every
/// message is one hop: rank 0's p - 1 messages in each of the two steps and its combining,
/// 2 (p - 1)(t_s + t_w m + t_h) + (p - 1) t_r m one-port; all-port 2 (t_s + t_w m + t_h) +
/// (p - 1) t_r m (p = 1: t_r m to copy out of place).
constexpr double allreduce_linear_fully_connected(const CostModel& c, std::size_t p, double m, bool in_place = false)
{
  const double P = detail::cf_d(p);
  return evaluate(detail_cf::linear_step(c, p, m) + detail_cf::linear_step(c, p, m) +
                    local_words(p == 1 ? (in_place ? 0 : m) : m * (P - 1)),
                  c);
}

/// The same on a ring: each binomial tree's hops sum to p - 1.
constexpr double allreduce_reduce_broadcast_ring(const CostModel& c, std::size_t p, double m, bool in_place = false)
{
  detail_cf::check(p, m);
  const double L = detail::cf_d(detail::ceil_log2(p)), P = detail::cf_d(p);
  return evaluate(Terms{2 * L, 2 * L * m, 2 * m * (P - 1), 2 * (P - 1), L * m + (in_place ? 0 : m)}, c);
}

// ---------------------------------------------------------------------------------------
// broadcast (m: words)
// ---------------------------------------------------------------------------------------

/// BroadcastTreeSchedule(ring_shape) on a ring, any root: the seeds' cut-through ring
/// broadcast (recursive doubling, distance p/2^i in step i), for any p:
/// ceil(log p)(t_s + t_w m) + t_h (p - 1) (CT); SF: ceil(log p) t_s + (t_w m + t_h)(p - 1).
constexpr double broadcast_binomial_ring(const CostModel& c, std::size_t p, double m)
{
  detail_cf::check(p, m);
  const double L = detail::cf_d(detail::ceil_log2(p)), P = detail::cf_d(p);
  return evaluate(Terms{L, L * m, m * (P - 1), P - 1, 0}, c);
}

/// BroadcastTreeSchedule where every message is one hop (binomial; on a hypercube the
/// hypercube tree for any root, or the binomial tree from root 0):
/// ceil(log p)(t_s + t_w m + t_h).
constexpr double broadcast_binomial_fully_connected(const CostModel& c, std::size_t p, double m)
{
  detail_cf::check(p, m);
  return evaluate(messages(detail::cf_d(detail::ceil_log2(p)), m, 1), c);
}

/// BroadcastLinearSchedule where every message is one hop: the root's p - 1 messages in
/// one step, (p - 1)(t_s + t_w m + t_h) one-port; all-port t_s + t_w m + t_h.
constexpr double broadcast_linear_fully_connected(const CostModel& c, std::size_t p, double m)
{
  return evaluate(detail_cf::linear_step(c, p, m), c);
}

/// BroadcastTreeSchedule(bits_shape) on a hypercube, any root (ONE_TO_ALL_BC,
/// GENERAL_ONE_TO_ALL_BC): log p (t_s + t_w m + t_h).
constexpr double broadcast_hypercube_hypercube(const CostModel& c, std::size_t p, double m)
{
  detail_cf::check_pow2(p, m);
  return broadcast_binomial_fully_connected(c, p, m);
}

/// BroadcastTreeSchedule(topology_shape) on a product topology, any root: a binomial
/// tree along each dimension: sum_i ceil(log z_i)(t_s + t_w m) + t_h sum_i (z_i - 1);
/// on a square mesh (t_s + t_w m) log p + 2 t_h (sqrt p - 1) as seed 001 prints it.
template <product_topology T>
constexpr double broadcast_dimensional(const CostModel& c, const T& topo, double m)
{
  detail_cf::check(topo.size(), m);
  double steps = 0, hops = 0;
  for (std::size_t i = 0; i < topo.ndims(); ++i) {
    steps += detail::cf_d(detail::ceil_log2(topo.extent(i)));
    hops += detail::cf_d(topo.extent(i) - 1);
  }
  return evaluate(Terms{steps, steps * m, hops * m, hops, 0}, c);
}

/// BroadcastRingSchedule (store-and-forward, both ways) on a ring. All-port:
/// floor(p/2)(t_s + t_w m + t_h). One-port the root's two first messages serialise:
/// (floor(p/2) + 1)(t_s + t_w m + t_h) for p >= 3. The seed's ceil(p/2)(t_s + t_w m) is
/// the one-port optimum, reached by starting the second direction one step later
/// (ceil(p/2) = floor(p/2) + 1 for odd p; for even p our schedule pays one message more).
constexpr double broadcast_ring_ring(const CostModel& c, std::size_t p, double m)
{
  detail_cf::check(p, m);
  const double n = detail::cf_d(p / 2) + (c.ports == Ports::one && p >= 3 ? 1 : 0);
  return evaluate(messages(n, m, 1), c);
}

/// broadcast_scatter_allgather_schedule on a ring, any root: the vector in p pieces
/// scattered by the binomial tree, then ALL_TO_ALL_BC_RING: (ceil(log p) + p - 1) t_s +
/// 2 t_w m (p - 1)/p + 2 t_h (p - 1) (CT). Seed 001's 2(t_s log p + t_w m) is the same
/// split with the hypercube all-gather (recursive doubling) instead of the ring.
constexpr double broadcast_scatter_allgather_ring(const CostModel& c, std::size_t p, double m)
{
  detail_cf::check(p, m);
  const double L = detail::cf_d(detail::ceil_log2(p)), P = detail::cf_d(p), b = m / P;
  const Terms scatter{L, b * (P - 1), b * detail_cf::binomial_subtree_word_hops(p), P - 1, 0};
  return evaluate(scatter + messages(P - 1, b, 1), c);
}

/// The same where every message is one hop.
constexpr double broadcast_scatter_allgather_fully_connected(const CostModel& c, std::size_t p, double m)
{
  detail_cf::check(p, m);
  const double L = detail::cf_d(detail::ceil_log2(p)), P = detail::cf_d(p), b = m / P;
  return evaluate(Terms{L, b * (P - 1), b * (P - 1), L, 0} + messages(P - 1, b, 1), c);
}

// ---------------------------------------------------------------------------------------
// reduce (m: words). The duals of the broadcasts, plus t_r m per step to combine a child's
// partial and, for a non-commutative operator with root != 0, one more message from rank
// 0 to the root. The trees (reduce_algorithm::binomial, hypercube, dimensional) load the
// contribution into the partial first (t_r m) in place, and for p = 1; out of place they
// fold it into the first child's partial instead (ReduceTreeSchedule's fold_late).
// ---------------------------------------------------------------------------------------

namespace detail_cf {
constexpr Terms extra_to_root(double m, double hops) { return hops > 0 ? messages(1, m, hops) : Terms{}; }
/// The passes over m of a reduce tree of `steps` steps: one per step, and the load of the
/// contribution unless it is folded into the first child's partial.
constexpr double tree_passes(std::size_t p, double steps, bool in_place)
{
  return steps + (in_place || p == 1 ? 1 : 0);
}
} // namespace detail_cf

/// The reduce tree on a ring's binomial shape (reduce_algorithm::binomial): ceil(log p)
/// (t_s + t_w m) + t_h (p - 1) + t_r m (ceil(log p), + 1 in place), + a message to the root
/// when not commutative.
constexpr double reduce_binomial_ring(const CostModel& c, std::size_t p, double m, std::size_t root = 0,
                                      bool commutative = true, bool in_place = false)
{
  detail_cf::check(p, m);
  detail::require(root < p, "collectives::closed_form: the root is not a rank");
  const double L = detail::cf_d(detail::ceil_log2(p)), P = detail::cf_d(p);
  const double extra = commutative ? 0 : detail::cf_d(detail::cf_ring_dist(root, p));
  return evaluate(Terms{L, L * m, m * (P - 1), P - 1, m * detail_cf::tree_passes(p, L, in_place)} +
                    detail_cf::extra_to_root(m, extra),
                  c);
}

/// The reduce tree on a hypercube (SINGLE_NODE_ACC, reduce_algorithm::hypercube): log p
/// (t_s + t_w m + t_h) + t_r m (log p, + 1 in place), + a message over popcount(root) hops
/// when not commutative.
constexpr double reduce_hypercube_hypercube(const CostModel& c, std::size_t p, double m, std::size_t root = 0,
                                            bool commutative = true, bool in_place = false)
{
  detail_cf::check_pow2(p, m);
  detail::require(root < p, "collectives::closed_form: the root is not a rank");
  const double extra = commutative ? 0 : detail::cf_d(detail::popcount(root));
  const double n = detail::cf_d(detail::floor_log2(p));
  return evaluate(messages(n, m, 1) + local_words(m * detail_cf::tree_passes(p, n, in_place)) +
                    detail_cf::extra_to_root(m, extra),
                  c);
}

/// The reduce tree along a product topology's dimensions (reduce_algorithm::dimensional).
template <product_topology T>
constexpr double reduce_dimensional(const CostModel& c, const T& topo, double m, std::size_t root = 0,
                                    bool commutative = true, bool in_place = false)
{
  detail::require(root < topo.size(), "collectives::closed_form: the root is not a rank");
  const double extra = commutative ? 0 : detail::cf_d(topo.distance(0, root));
  CostModel no_local = c;
  no_local.t_r = 0;
  double steps = 0;
  for (std::size_t i = 0; i < topo.ndims(); ++i) steps += detail::cf_d(detail::ceil_log2(topo.extent(i)));
  return broadcast_dimensional(no_local, topo, m) + c.t_r * m * detail_cf::tree_passes(topo.size(), steps, in_place) +
         evaluate(detail_cf::extra_to_root(m, extra), c);
}

/// ReduceRingSchedule on a ring: the dual of broadcast_ring_ring, combining a partial per
/// chain step; one-port the root receives both chains in the last chain step, then folds
/// the staged one (t_r m).
constexpr double reduce_ring_ring(const CostModel& c, std::size_t p, double m, std::size_t root = 0,
                                  bool commutative = true)
{
  detail_cf::check(p, m);
  detail::require(root < p, "collectives::closed_form: the root is not a rank");
  const bool both = (p - 1) / 2 >= 1;
  const double n = detail::cf_d(p / 2) + (c.ports == Ports::one && both ? 1 : 0);
  const double extra = commutative ? 0 : detail::cf_d(detail::cf_ring_dist(root, p));
  const double chain = detail::cf_d(p / 2);
  return evaluate(messages(n, m, 1) + local_words(m * (1 + chain + (both ? 1 : 0))) + detail_cf::extra_to_root(m, extra),
                  c);
}

/// ReduceLinearSchedule where every message is one hop, any root and operator: the root's
/// p - 1 messages in one step and its combining of them, (p - 1)(t_s + t_w m + t_h + t_r m)
/// one-port; all-port t_s + t_w m + t_h + (p - 1) t_r m (p = 1: t_r m to copy out of place,
/// nothing in place).
constexpr double reduce_linear_fully_connected(const CostModel& c, std::size_t p, double m, bool in_place = false)
{
  const double P = detail::cf_d(p);
  return evaluate(detail_cf::linear_step(c, p, m) + local_words(p == 1 ? (in_place ? 0 : m) : m * (P - 1)), c);
}

/// reduce_scatter_gather_halving on a hypercube with root 0 (its binomial gather tree is
/// then the hypercube's): the vector in p pieces; 2 log p (t_s + t_h) +
/// 2 t_w m (p - 1)/p + t_r m (p - 1)/p (the halving's combining).
constexpr double reduce_scatter_gather_hypercube(const CostModel& c, std::size_t p, double m)
{
  detail_cf::check_pow2(p, m);
  const double n = detail::cf_d(detail::floor_log2(p)), P = detail::cf_d(p), b = m / P;
  if (p == 1) return evaluate(local_words(m), c);
  return evaluate(Terms{2 * n, 2 * b * (P - 1), 2 * b * (P - 1), 2 * n, b * (P - 1)}, c);
}

/// reduce_scatter_gather_pairwise where every message is one hop (any p, any root).
constexpr double reduce_scatter_gather_pairwise_fully_connected(const CostModel& c, std::size_t p, double m)
{
  detail_cf::check(p, m);
  const double P = detail::cf_d(p), b = m / P, L = detail::cf_d(detail::ceil_log2(p));
  return evaluate(messages(P - 1, b, 1) + local_words(b * reduce_scatter_pairwise_local(p)) +
                    Terms{L, b * (P - 1), b * (P - 1), L, 0},
                  c);
}

// ---------------------------------------------------------------------------------------
// scatter and gather (m: words per block); a gather costs what the scatter costs.
// ---------------------------------------------------------------------------------------

/// ScatterTreeSchedule / GatherTreeSchedule (ring_shape) on a ring, any root:
/// ceil(log p) t_s + (t_w m + t_h)(p - 1) + t_r m (CT).
constexpr double scatter_binomial_ring(const CostModel& c, std::size_t p, double m)
{
  detail_cf::check(p, m);
  const double L = detail::cf_d(detail::ceil_log2(p)), P = detail::cf_d(p);
  return evaluate(Terms{L, m * (P - 1), m * detail_cf::binomial_subtree_word_hops(p), P - 1, m}, c);
}

/// The binomial scatter/gather where every message is one hop:
/// ceil(log p)(t_s + t_h) + t_w m (p - 1) + t_r m.
constexpr double scatter_binomial_fully_connected(const CostModel& c, std::size_t p, double m)
{
  detail_cf::check(p, m);
  const double L = detail::cf_d(detail::ceil_log2(p)), P = detail::cf_d(p);
  return evaluate(Terms{L, m * (P - 1), m * (P - 1), L, m}, c);
}

/// ScatterTreeSchedule(bits_shape) on a hypercube, any root (seed 001 Figure 3.16):
/// t_s log p + t_w m (p - 1) + t_h log p + t_r m.
constexpr double scatter_hypercube_hypercube(const CostModel& c, std::size_t p, double m)
{
  detail_cf::check_pow2(p, m);
  return scatter_binomial_fully_connected(c, p, m);
}

/// ScatterTreeSchedule(topology_shape) on a product topology, any root: a binomial tree
/// of super-blocks along each dimension: t_s sum_i ceil(log z_i) + t_w m (p - 1) +
/// t_h sum_i (z_i - 1) + t_r m. Seed 001's mesh cell, 2 t_s (sqrt p - 1) + t_w m (p - 1),
/// is a ring pipeline per dimension: the tree needs fewer start-ups.
template <product_topology T>
constexpr double scatter_dimensional(const CostModel& c, const T& topo, double m)
{
  const std::size_t p = topo.size();
  detail_cf::check(p, m);
  Terms t = local_words(m);
  std::size_t len = p;
  for (std::size_t k = 0; k < topo.ndims(); ++k) {
    const std::size_t dim = topo.route_dim(topo.ndims() - 1 - k); // slowest first
    const std::size_t z = topo.extent(dim);
    len /= z; // blocks per coordinate along this dimension
    const double L = detail::cf_d(detail::ceil_log2(z)), Z = detail::cf_d(z), b = m * detail::cf_d(len);
    t = t + Terms{L, b * (Z - 1), b * detail_cf::binomial_subtree_word_hops(z), Z - 1, 0};
  }
  return evaluate(t, c);
}

/// ScatterRingSchedule / GatherRingSchedule on a ring: (p - 1)(t_s + t_w m + t_h) + t_r m.
constexpr double scatter_ring_ring(const CostModel& c, std::size_t p, double m)
{
  detail_cf::check(p, m);
  return evaluate(messages(detail::cf_d(p) - 1, m, 1) + local_words(m), c);
}

/// ScatterLinearSchedule / GatherLinearSchedule where every message is one hop: the
/// root's p - 1 messages in one step, (p - 1)(t_s + t_w m + t_h) + t_r m one-port (what
/// the ring pipeline costs, in one step instead of p - 1); all-port t_s + t_w m + t_h +
/// t_r m: the root's messages are one rank's messages of the linear alltoall.
constexpr double scatter_linear_fully_connected(const CostModel& c, std::size_t p, double m)
{
  return alltoall_linear_fully_connected(c, p, m);
}

// ---------------------------------------------------------------------------------------
// scan (m: words)
// ---------------------------------------------------------------------------------------

/// ScanHypercubeSchedule (PREFIX_SUMS_HCUBE) on a hypercube: log p (t_s + t_w m + t_h)
/// + t_r m (2 log p + 1) inclusive, 2 log p exclusive: on a rank whose partner is lower,
/// four local ops in the first step (three exclusive), two in each middle step, and in
/// the last one combining receive into the result (for log p = 1: the first step is the
/// last, where the input joins the received prefix, one local op, inclusive; none
/// exclusive).
constexpr double scan_hypercube_hypercube(const CostModel& c, std::size_t p, double m, bool exclusive = false)
{
  detail_cf::check_pow2(p, m);
  const double n = detail::cf_d(detail::floor_log2(p));
  if (p == 1) return evaluate(local_words(exclusive ? 0 : m), c);
  if (p == 2) return evaluate(messages(1, m, 1) + local_words(exclusive ? 0 : m), c);
  return evaluate(messages(n, m, 1) + local_words(m * (2 * n + (exclusive ? 0 : 1))), c);
}

/// ScanLinearSchedule where every message is one hop: rank 0's p - 1 messages in each of
/// the two steps, its folds (p - 1 inclusive, p - 2 exclusive) and, inclusive, its copy:
/// 2 (p - 1)(t_s + t_w m + t_h) + t_r m p inclusive, t_r m (p - 2) exclusive, one-port;
/// all-port 2 (t_s + t_w m + t_h) and the same local work.
constexpr double scan_linear_fully_connected(const CostModel& c, std::size_t p, double m, bool exclusive = false)
{
  const std::size_t last = exclusive ? 2 : 1;
  const double folds = detail::cf_d(p > last ? p - last : 0);
  return evaluate(detail_cf::linear_step(c, p, m) + local_words(m * (folds + (exclusive ? 0 : 1))) +
                    detail_cf::linear_step(c, p, m),
                  c);
}

/// ScanRingSchedule on a ring: (p - 1)(t_s + t_w m + t_h + t_r m) inclusive (the prefix
/// lands in the output and the input joins it: one local op a step); exclusive the last
/// rank has nothing to combine: (p - 1)(t_s + t_w m + t_h) + 2 t_r m (p - 2).
constexpr double scan_ring_ring(const CostModel& c, std::size_t p, double m, bool exclusive = false)
{
  detail_cf::check(p, m);
  const double P = detail::cf_d(p);
  if (p == 1) return evaluate(local_words(exclusive ? 0 : m), c);
  return evaluate(messages(P - 1, m, 1) + local_words(exclusive ? 2 * m * (P - 2) : m * (P - 1)), c);
}

/// ScanDoublingSchedule where every message is one hop: ceil(log p)(t_s + t_w m + t_h)
/// + t_r m ceil(log p) (one combine a step; exclusive: t_r m times
/// detail_cf::scan_doubling_exclusive_locals(p), 0 for p <= 2).
constexpr double scan_recursive_doubling_fully_connected(const CostModel& c, std::size_t p, double m,
                                                         bool exclusive = false)
{
  detail_cf::check(p, m);
  const double K = detail::cf_d(detail::ceil_log2(p));
  if (p == 1) return evaluate(local_words(exclusive ? 0 : m), c);
  const double locals = exclusive ? detail_cf::scan_doubling_exclusive_locals(p) : K;
  return evaluate(messages(K, m, 1) + local_words(m * locals), c);
}

/// ScanDoublingSchedule on a ring: step k sends min(2^k, p - 2^k) hops with that many
/// messages on a link.
constexpr double scan_recursive_doubling_ring(const CostModel& c, std::size_t p, double m, bool exclusive = false)
{
  detail_cf::check(p, m);
  const double K = detail::cf_d(detail::ceil_log2(p));
  if (p == 1) return evaluate(local_words(exclusive ? 0 : m), c);
  const auto s = detail_cf::ring_doubling(p);
  const double locals = exclusive ? detail_cf::scan_doubling_exclusive_locals(p) : K;
  return evaluate(Terms{K, m * s.d, m * s.d2, s.d, m * locals}, c);
}

// ---------------------------------------------------------------------------------------
// shift (m: words; q any integer, reduced mod p)
// ---------------------------------------------------------------------------------------

namespace detail_cf {
constexpr std::size_t reduce_q(std::ptrdiff_t q, std::size_t p)
{
  if (q >= 0) return static_cast<std::size_t>(q) % p;
  const std::size_t r = (static_cast<std::size_t>(-(q + 1)) + 1) % p;
  return r == 0 ? 0 : p - r;
}
} // namespace detail_cf

/// ShiftRingSchedule on a ring: min(q, p - q)(t_s + t_w m + t_h); at most floor(p/2)
/// message times (seed 001's ring cell). q = 0: a local copy.
constexpr double shift_ring_ring(const CostModel& c, std::size_t p, double m, std::ptrdiff_t q)
{
  detail_cf::check(p, m);
  const std::size_t s = detail_cf::reduce_q(q, p);
  if (s == 0) return evaluate(local_words(m), c);
  return evaluate(messages(detail::cf_d(detail::cf_ring_dist(s, p)), m, 1), c);
}

/// ShiftDirectSchedule on a hypercube (seed 001, CT, E-cube, congestion-free):
/// t_s + t_w m + t_h (log p - gamma(q)); SF: t_s + (t_w m + t_h)(log p - gamma(q)).
constexpr double shift_direct_hypercube(const CostModel& c, std::size_t p, double m, std::ptrdiff_t q)
{
  detail_cf::check_pow2(p, m);
  const std::size_t s = detail_cf::reduce_q(q, p);
  if (s == 0) return evaluate(local_words(m), c);
  return evaluate(messages(1, m, detail::cf_d(detail::floor_log2(p) - detail::trailing_zeros(s))), c);
}

/// ShiftDirectSchedule on a ring: one step, min(q, p - q) hops, every link shared by that
/// many messages.
constexpr double shift_direct_ring(const CostModel& c, std::size_t p, double m, std::ptrdiff_t q)
{
  detail_cf::check(p, m);
  const std::size_t s = detail_cf::reduce_q(q, p);
  if (s == 0) return evaluate(local_words(m), c);
  const double d = detail::cf_d(detail::cf_ring_dist(s, p));
  return evaluate(messages(1, m, d, d), c);
}

/// ShiftMeshSchedule on an R x C mesh (seed 001 Figure 3.22): min(b, C - b) row hops, one
/// compensation hop when b != 0, min(a, R - a) column hops (q mod p = a C + b), each
/// t_s + t_w m + t_h; at most (2 floor(sqrt p / 2) + 1) on a square mesh.
constexpr double shift_mesh_mesh(const CostModel& c, std::size_t rows, std::size_t cols, double m, std::ptrdiff_t q)
{
  detail_cf::check(rows * cols, m);
  const std::size_t s = detail_cf::reduce_q(q, rows * cols);
  if (s == 0) return evaluate(local_words(m), c);
  const std::size_t a = s / cols, b = s % cols;
  const std::size_t steps = detail::cf_ring_dist(b, cols) + (b != 0 && rows > 1 ? 1 : 0) + detail::cf_ring_dist(a, rows);
  return evaluate(messages(detail::cf_d(steps), m, 1), c);
}

/// ShiftHypercubeSfSchedule on a hypercube (seed 001, SF, Gray-code ring): two hops per
/// set bit of q (one for bit 0), the cheaper of q and p - q: at most 2 log p - 1 message
/// times (the seed's SF cell).
constexpr double shift_hypercube_sf_hypercube(const CostModel& c, std::size_t p, double m, std::ptrdiff_t q)
{
  detail_cf::check_pow2(p, m);
  const std::size_t s = detail_cf::reduce_q(q, p);
  if (s == 0) return evaluate(local_words(m), c);
  auto steps_for = [](std::size_t x) { return 2 * detail::popcount(x) - (x & 1u); };
  const std::size_t fwd = steps_for(s), back = steps_for(p - s);
  return evaluate(messages(detail::cf_d(fwd <= back ? fwd : back), m, 1), c);
}

// ---------------------------------------------------------------------------------------
// The seeds' algorithms added by issue 11: the store-and-forward ring broadcast with its
// directions one step apart, one ring phase per dimension, the split hypercube broadcast
// and the pipelined mesh scatter and gather (and their reduce and gather duals).
// ---------------------------------------------------------------------------------------

namespace detail_cf {
/// Steps of the staggered ring broadcast (and reduce) on a ring of z: ceil(z/2), 0 for z = 1.
constexpr double staggered_steps(std::size_t z) { return detail::cf_d(z <= 1 ? 0 : (z + 1) / 2); }
/// The staggered reduce: `steps` chain steps, each combining an arrival, the contribution
/// loaded first, and a message over `extra` hops from rank 0 to the root (0: none).
constexpr Terms staggered_reduce(double steps, double m, double extra)
{
  return messages(steps, m, 1) + local_words(m * (1 + steps)) + extra_to_root(m, extra);
}
} // namespace detail_cf

/// BroadcastStaggeredSchedule(ring_shape) on a ring, any root: ceil(p/2)(t_s + t_w m + t_h),
/// one-port and all-port alike (no rank sends twice in a step); with t_h = 0 the seed's SF
/// cell (t_s + t_w m) ceil(p/2) (p >= 2).
constexpr double broadcast_ring_staggered_ring(const CostModel& c, std::size_t p, double m)
{
  detail_cf::check(p, m);
  return evaluate(messages(detail_cf::staggered_steps(p), m, 1), c);
}

/// ReduceStaggeredSchedule(ring_shape) on a ring: the dual of
/// broadcast_ring_staggered_ring, ceil(p/2)(t_s + t_w m + t_h + t_r m) + t_r m (every
/// chain step combines an arrival, step 0 loads the contribution), + a message from rank 0
/// over its ring distance to the root when the operator is not commutative.
constexpr double reduce_ring_staggered_ring(const CostModel& c, std::size_t p, double m, std::size_t root = 0,
                                            bool commutative = true)
{
  detail_cf::check(p, m);
  detail::require(root < p, "collectives::closed_form: the root is not a rank");
  const double extra = commutative ? 0 : detail::cf_d(detail::cf_ring_dist(root, p));
  return evaluate(detail_cf::staggered_reduce(detail_cf::staggered_steps(p), m, extra), c);
}

namespace detail_cf {
/// The staggered ring's steps summed over the dimensions of a product topology.
template <product_topology T>
constexpr double staggered_steps(const T& topo)
{
  double steps = 0;
  for (std::size_t i = 0; i < topo.ndims(); ++i) steps += staggered_steps(topo.extent(i));
  return steps;
}
} // namespace detail_cf

/// BroadcastStaggeredSchedule(topology_shape) on a product topology, any root:
/// sum_i ceil(z_i/2)(t_s + t_w m + t_h); on a square mesh the seed's SF
/// 2(t_s + t_w m) ceil(sqrt(p)/2), on a cube 3(t_s + t_w m) ceil(p^(1/3)/2).
template <product_topology T>
constexpr double broadcast_dimensional_ring(const CostModel& c, const T& topo, double m)
{
  detail_cf::check(topo.size(), m);
  return evaluate(messages(detail_cf::staggered_steps(topo), m, 1), c);
}

/// ReduceStaggeredSchedule(topology_shape) on a product topology: sum_i ceil(z_i/2)
/// (t_s + t_w m + t_h + t_r m) + t_r m, + a message from rank 0 to the root (its hop
/// distance) when the operator is not commutative.
template <product_topology T>
constexpr double reduce_dimensional_ring(const CostModel& c, const T& topo, double m, std::size_t root = 0,
                                         bool commutative = true)
{
  detail_cf::check(topo.size(), m);
  detail::require(root < topo.size(), "collectives::closed_form: the root is not a rank");
  const double extra = commutative ? 0 : detail::cf_d(topo.distance(0, root));
  return evaluate(detail_cf::staggered_reduce(detail_cf::staggered_steps(topo), m, extra), c);
}

/// broadcast_scatter_allgather_hypercube_schedule on a hypercube, any root: the vector in
/// p pieces, scattered down the hypercube tree then all-gathered by recursive doubling,
/// every message one link: 2 log p (t_s + t_h) + 2 t_w m (p - 1)/p; with t_h = 0 seed
/// 001's split broadcast exactly (seed::split_broadcast).
constexpr double broadcast_scatter_allgather_hypercube_hypercube(const CostModel& c, std::size_t p, double m)
{
  detail_cf::check_pow2(p, m);
  const double n = detail::cf_d(detail::floor_log2(p)), P = detail::cf_d(p), b = m / P;
  return evaluate(Terms{2 * n, 2 * b * (P - 1), 2 * b * (P - 1), 2 * n, 0}, c);
}

/// reduce_scatter_gather_hypercube_schedule on a hypercube, any root and operator:
/// 2 log p (t_s + t_h) + 2 t_w m (p - 1)/p + t_r m (p - 1)/p (what reduce_scatter_gather_hypercube
/// gives for root 0: the hypercube tree's gather crosses one link per message from any root).
constexpr double reduce_scatter_gather_hypercube_hypercube(const CostModel& c, std::size_t p, double m)
{
  return reduce_scatter_gather_hypercube(c, p, m);
}

/// ScatterPipelineSchedule / GatherPipelineSchedule (topology_shape) on a product
/// topology, any root: a ring pipeline of super-blocks per dimension, every message one
/// link: sum_i (z_i - 1)(t_s + t_h) + t_w m (p - 1) + t_r m (the own block, copied once);
/// with t_h = 0 on a square mesh the seed's 2 t_s (sqrt(p) - 1) + t_w m (p - 1), under
/// store-and-forward as under cut-through. Gather costs the same.
template <product_topology T>
constexpr double scatter_dimensional_ring(const CostModel& c, const T& topo, double m)
{
  // The all-to-all broadcast's phases and messages exactly (seed 001: "complexity
  // (1 -> all personalized) = complexity (all -> all BC)"), its own block placed once.
  return allgather_dimensional(c, topo, m);
}

// ---------------------------------------------------------------------------------------
// The seeds' own formulas
// ---------------------------------------------------------------------------------------

/// The networks of seed 001's cost table.
enum class Network : unsigned char { ring, mesh, hypercube };

/// Name of a Network ("ring", "mesh", "hypercube").
constexpr const char* network_name(Network n)
{
  return n == Network::ring ? "ring" : n == Network::mesh ? "mesh" : "hypercube";
}

namespace seed {

/// Seed 001's cost table (one-port; cut-through, or store-and-forward where the seed gives
/// a different formula: broadcast/reduce on ring and mesh, alltoall and shift on the
/// hypercube), exactly as printed: t_h appears only where the seed writes it. "log p" is
/// ceil(log2 p) and sqrt p the real square root (the seed assumes p = 2^d and a square
/// mesh). Reduction costs what broadcast costs, all-to-all reduction what all-to-all
/// broadcast costs, gather what scatter costs; all-reduce and prefix sums have a cell on
/// the hypercube only. nullopt where the seed has no formula. `q` for the shift.
constexpr std::optional<double> table(Collective op, Network net, const CostModel& c, std::size_t p, double m,
                                      std::ptrdiff_t q = 1)
{
  c.validated();
  detail_cf::check(p, m);
  const double P = detail::cf_d(p), lg = detail::cf_d(detail::ceil_log2(p)), sq = detail::cf_sqrt(P);
  const double ts = c.t_s, tw = c.t_w, th = c.t_h;
  const bool sf = c.routing == Routing::store_and_forward;
  const auto ceil_half = [](double x) {
    const double h = x / 2;
    const auto n = static_cast<std::size_t>(h);
    return detail::cf_d(n) < h ? detail::cf_d(n + 1) : detail::cf_d(n);
  };
  switch (op) {
  case Collective::broadcast:
  case Collective::reduce:
    if (net == Network::ring) return sf ? (ts + tw * m) * ceil_half(P) : (ts + tw * m) * lg + th * (P - 1);
    if (net == Network::mesh) return sf ? 2 * (ts + tw * m) * ceil_half(sq) : (ts + tw * m) * lg + 2 * th * (sq - 1);
    return (ts + tw * m) * lg;
  case Collective::allgather:
  case Collective::reduce_scatter:
  case Collective::scatter:
  case Collective::gather:
    if (net == Network::ring) return (ts + tw * m) * (P - 1);
    if (net == Network::mesh) return 2 * ts * (sq - 1) + tw * m * (P - 1);
    return ts * lg + tw * m * (P - 1);
  case Collective::alltoall:
    if (net == Network::ring) return (ts + tw * m * P / 2) * (P - 1);
    if (net == Network::mesh) return (2 * ts + tw * m * P) * (sq - 1);
    return sf ? (ts + tw * m * P / 2) * lg : (ts + tw * m) * (P - 1) + th / 2 * P * lg;
  case Collective::shift: {
    if (net == Network::ring) return (ts + tw * m) * detail::cf_d(p / 2);
    if (net == Network::mesh) return (ts + tw * m) * (2 * detail::cf_d(static_cast<std::size_t>(sq) / 2) + 1);
    if (sf) return (ts + tw * m) * (2 * lg - 1);
    const std::size_t s = detail_cf::reduce_q(q, p);
    return ts + tw * m + th * (lg - (s == 0 ? lg : detail::cf_d(detail::trailing_zeros(s))));
  }
  case Collective::allreduce:
  case Collective::scan:
    if (net == Network::hypercube) return (ts + tw * m) * lg;
    return std::nullopt;
  case Collective::alltoallv:
  case Collective::barrier:
    return std::nullopt;
  }
  return std::nullopt;
}

/// Seed 002, standard exchange on Q_n (combining, one-port, SF): n (t_s + t_w m 2^(n-1)).
constexpr double standard_exchange(const CostModel& c, std::size_t p, double m)
{
  detail_cf::check_pow2(p, m);
  const double n = detail::cf_d(detail::floor_log2(p));
  return n * (c.t_s + c.t_w * m * detail::cf_d(p) / 2);
}

/// Seed 002, direct exchange on a wormhole (CT) Q_n: (2^n - 1)(t_s + n t_h/2 + t_w m).
constexpr double direct_exchange(const CostModel& c, std::size_t p, double m)
{
  detail_cf::check_pow2(p, m);
  const double n = detail::cf_d(detail::floor_log2(p));
  return (detail::cf_d(p) - 1) * (c.t_s + n * c.t_h / 2 + c.t_w * m);
}

/// Seed 002, one-port cycle T(z): (t_s + t_w m z/2)(z - 1).
constexpr double cycle_one_port(const CostModel& c, std::size_t z, double m)
{
  detail_cf::check(z, m);
  const double Z = detail::cf_d(z);
  return (c.t_s + c.t_w * m * Z / 2) * (Z - 1);
}

/// Seed 002, all-port full-duplex cycle T(z), z odd: t_s (z - 1)/2 + t_w m z^2/8.
constexpr double cycle_all_port(const CostModel& c, std::size_t z, double m)
{
  detail_cf::check(z, m);
  const double Z = detail::cf_d(z);
  return c.t_s * (Z - 1) / 2 + c.t_w * m * Z * Z / 8;
}

/// Seed 002, T(z, z) dimension by dimension: (2 t_s + t_w m z^2)(z - 1).
constexpr double torus_square(const CostModel& c, std::size_t z, double m)
{
  detail_cf::check(z, m);
  const double Z = detail::cf_d(z);
  return (2 * c.t_s + c.t_w * m * Z * Z) * (Z - 1);
}

/// Seed 002's bisection lower bound for alltoall on T(z_1, ..., z_n), z_1 the largest, in
/// words per link: (1/2) ceil(z_1/2) floor(z_1/2) prod_{i>=2} z_i; times t_w m.
template <product_topology T>
constexpr double torus_alltoall_bound(const CostModel& c, const T& topo, double m)
{
  std::size_t z1 = 1;
  for (std::size_t i = 0; i < topo.ndims(); ++i) z1 = topo.extent(i) > z1 ? topo.extent(i) : z1;
  const double rest = detail::cf_d(topo.size() / z1);
  return c.t_w * m * 0.5 * detail::cf_d((z1 + 1) / 2) * detail::cf_d(z1 / 2) * rest;
}

/// Seed 002's hypercube bound by total work (every link, every round):
/// t_w m (2^n - 1)/2.
constexpr double hypercube_alltoall_work_bound(const CostModel& c, std::size_t p, double m)
{
  detail_cf::check_pow2(p, m);
  return c.t_w * m * (detail::cf_d(p) - 1) / 2;
}

/// Seed 001, one-to-all broadcast on a hypercube with the message split (scatter, then
/// all-to-all broadcast: "t_s log p + t_w (m/p)(p - 1)" each): 2(t_s log p +
/// t_w m (p - 1)/p), which the seed rounds to 2(t_s log p + t_w m).
constexpr double split_broadcast(const CostModel& c, std::size_t p, double m)
{
  detail_cf::check_pow2(p, m);
  const double lg = detail::cf_d(detail::floor_log2(p)), P = detail::cf_d(p);
  return 2 * (c.t_s * lg + c.t_w * (m / P) * (P - 1));
}

/// Seed 001, store-and-forward one-to-all broadcast on a d-dimensional mesh of side z
/// (a ring per dimension): d (t_s + t_w m) ceil(z/2) (the seed's 2-D and 3-D cells,
/// 2(t_s + t_w m) ceil(sqrt(p)/2) and 3(t_s + t_w m) ceil(p^(1/3)/2)).
constexpr double mesh_broadcast_sf(const CostModel& c, std::size_t dims, std::size_t z, double m)
{
  detail_cf::check(z, m);
  return detail::cf_d(dims) * (c.t_s + c.t_w * m) * detail::cf_d((z + 1) / 2);
}

} // namespace seed
} // namespace closed_form

// ---------------------------------------------------------------------------------------
// Lower bounds
// ---------------------------------------------------------------------------------------

namespace detail {

/// Links a node can use at once: one under one-port, else its distinct neighbours.
template <topology T>
constexpr double port_count(const T& topo, const CostModel& model)
{
  if (model.ports == Ports::one) return 1;
  if constexpr (product_topology<T>) {
    std::size_t d = 0;
    for (std::size_t i = 0; i < topo.ndims(); ++i) d += topo.extent(i) == 1 ? 0u : topo.extent(i) == 2 ? 1u : 2u;
    return cf_d(d > 0 ? d : 1);
  } else if constexpr (requires { topo.degree(); }) {
    return cf_d(topo.degree() > 0 ? topo.degree() : 1);
  } else {
    return cf_d(topo.size() > 1 ? topo.size() - 1 : 1);
  }
}

/// The largest of cross(a, b) / links over the cuts this function knows: each dimension
/// of a product topology cut into slabs of floor(z/2) and ceil(z/2) coordinates (each of
/// its p/z rings cut once for z = 2, twice for z > 2), or a complete graph cut in halves.
/// cross(a, b): words that must cross, one way, between parts of a and b nodes; links:
/// the directed links crossing that way. 0 when no cut is known.
template <topology T, class Cross>
constexpr double best_cut(const T& topo, Cross cross)
{
  const std::size_t p = topo.size();
  double best = 0;
  if constexpr (product_topology<T>) {
    for (std::size_t i = 0; i < topo.ndims(); ++i) {
      const std::size_t z = topo.extent(i);
      if (z < 2) continue;
      const std::size_t a = (z / 2) * (p / z), b = p - a;
      const double links = cf_d((p / z) * (z == 2 ? 1 : 2));
      const double v = cross(cf_d(a), cf_d(b)) / links;
      best = v > best ? v : best;
    }
  } else if constexpr (requires { topo.degree(); }) {
    if (p >= 2) {
      const std::size_t a = p / 2, b = p - a;
      best = cross(cf_d(a), cf_d(b)) / (cf_d(a) * cf_d(b));
    }
  }
  return best;
}

/// Sum of hop distances from one node to all others and the number of directed links,
/// for vertex-transitive networks this function knows (else {0, 0}).
template <topology T>
constexpr std::pair<double, double> distance_sum_and_links(const T& topo)
{
  const std::size_t p = topo.size();
  if constexpr (product_topology<T>) {
    double sum = 0, links = 0;
    for (std::size_t i = 0; i < topo.ndims(); ++i) {
      const std::size_t z = topo.extent(i);
      sum += cf_d(p / z) * cf_d((z * z) / 4);
      links += cf_d(p / z) * cf_d(z == 1 ? 0 : z == 2 ? 2 : 2 * z);
    }
    return {sum, links};
  } else if constexpr (requires { topo.degree(); }) {
    return {cf_d(p - 1), cf_d(p) * cf_d(p - 1)};
  } else {
    return {0.0, 0.0};
  }
}

} // namespace detail

/// A time no algorithm for `op` can beat on `topo` under `model` (for the given problem:
/// m words as in Problem, root, q). Every step with a message costs at least t_s + t_h;
/// one-port, an operation needing data from all p ranks (or reaching all p) takes at
/// least ceil(log2 p) such steps (data held or known at most doubles per step); and the
/// t_w term is at least the largest of: the words some node must receive or send divided
/// by the links it can use at once; the words that must cross the best known cut divided
/// by the links crossing it; for alltoall, the total word-hops divided by the number of
/// links. (A step's time is at least the words on its busiest link, so these hold step
/// by step.) Under a crossbar model the network is FullyConnected whatever `topo` says.
/// Cost: O(ndims). Throws std::invalid_argument for a bad model or m.
template <topology T>
constexpr double lower_bound(Collective op, const T& topo, const CostModel& model, const Problem& problem)
{
  model.validated();
  if constexpr (!std::is_same_v<T, FullyConnected<>>)
    if (model.crossbar) return lower_bound(op, FullyConnected<>(topo.size()), model, problem);
  const std::size_t p = topo.size();
  const double m = problem.m;
  closed_form::detail_cf::check(p, m);
  if (p == 1) return 0;
  const double P = detail::cf_d(p), ports = detail::port_count(topo, model);
  const bool one = model.ports == Ports::one;
  double steps = one ? detail::cf_d(detail::ceil_log2(p)) : 1;
  double node = 0, cut = 0;
  switch (op) {
  case Collective::alltoall:
  case Collective::alltoallv: {
    node = (P - 1) * m / ports;
    cut = detail::best_cut(topo, [m](double a, double b) { return a * b * m; });
    const auto [dist, links] = detail::distance_sum_and_links(topo);
    if (links > 0) cut = cut > P * dist * m / links ? cut : P * dist * m / links;
    break;
  }
  case Collective::allgather:
    node = (P - 1) * m / ports;
    cut = detail::best_cut(topo, [m](double a, double b) { return (a > b ? a : b) * m; });
    break;
  case Collective::reduce_scatter:
    node = (P - 1) * m / ports; // a rank's contributions to the others' blocks must leave it
    cut = detail::best_cut(topo, [m](double a, double b) { return (a > b ? a : b) * m; });
    break;
  case Collective::allreduce:
    node = (P - 1) / P * m / ports;
    cut = detail::best_cut(topo, [m](double, double) { return m; });
    break;
  case Collective::broadcast:
  case Collective::reduce:
  case Collective::scan:
    node = m / ports;
    cut = detail::best_cut(topo, [m](double, double) { return m; });
    break;
  case Collective::scatter:
  case Collective::gather:
    node = (P - 1) * m / ports; // through the root's ports
    cut = detail::best_cut(topo, [m](double a, double b) { return (a < b ? a : b) * m; });
    break;
  case Collective::shift:
    if (closed_form::detail_cf::reduce_q(problem.q, p) == 0) return 0;
    steps = 1;
    node = m / ports;
    break;
  case Collective::barrier:
    break;
  }
  const double words = node > cut ? node : cut;
  return steps * (model.t_s + model.t_h) + model.t_w * words;
}

} // namespace collectives
