#pragma once
// Alltoall on a product topology, dimension by dimension: the seeds' mesh/torus algorithm
// (seed 000, section 4.5.2: "two phases, regroup by column then by row"), generalised to
// any number of dimensions, and on a hypercube (D rings of two) the standard exchange.
//
// Phase k works along one dimension d of extent z: every ring along d runs the one-way
// ring alltoall (ring.hpp) on super-blocks, a super-block being the p/z blocks this rank
// holds for the nodes with one coordinate along d. In exchange e = 1 .. z-1 every rank
// passes z - e super-blocks, (z - e) p / z blocks, to its neighbour + 1 along d, keeps the
// first one it receives and forwards the rest. On a √p×√p mesh that is the seed's m√p(√p − e).
// Between phases the blocks are regrouped (local ops) so that the next dimension's
// super-blocks are contiguous.
//
// Slot layout. Before phase k a rank holds p blocks, one for every pair (source s,
// destination t) with t's coordinates along the dimensions already done equal to its own
// and s's along the others equal to its own. Its slot is a mixed-radix number of one
// digit per dimension: s's coordinate for a dimension done, t's for one to do. The phases
// go from the slowest-varying dimension d_0 (largest stride: dimension 0 of a mesh, so
// first within each column by destination row, then within each row; the top bit of a
// hypercube first) to the fastest, and phase k orders the digits d_k, d_k+1, ..., d_D-1,
// d_0, ..., d_k-1 (most significant first): the rank order rotated by k. So
//  - phase 0's layout is the caller's input (grouped by destination row: no first pass);
//  - phase k's super-blocks are contiguous, and the ones it sends first are a range that
//    wraps mod p (a cyclic pattern);
//  - a super-block kept in phase k holds its blocks in the order of the other digits,
//    which is their order in phase k+1's layout with digit d_k moved to the end: it lands
//    at stride z (a strided pattern) — the regrouping is the keep op itself;
//  - after the last phase the layout is rank order again, by source: the output.
// The seed regroups by column first (phases fastest-varying first); slowest first is the
// same algorithm mirrored, and needs no local pass before the first or after the last step.
//
// Where the blocks live: phase k reads its layout from region A_k and writes A_k+1 (A_0 is
// the input, the last one the output, the ones between alternate between the output and
// a p-block scratch region so a phase never writes what it reads). Forwarded super-blocks
// land in two scratch halves used alternately, as in ring.hpp, so an exchange never
// receives into what it sends; the last exchange of a phase (one super-block) lands
// straight in A_k+1. Dimensions of extent 1 are skipped.

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/detail/require.hpp>
#include <collectives/schedule/rings.hpp>
#include <collectives/schedule/operation.hpp>
#include <collectives/schedule/pattern.hpp>
#include <collectives/schedule/schedule.hpp>
#include <collectives/topology/concepts.hpp>

#include <cstddef>
#include <string>
#include <type_traits>

namespace collectives {

/// Dimension-by-dimension alltoall on a product topology (Mesh<R, C>, Torus<Z...>,
/// Hypercube<D>) with at least two dimensions: a ring alltoall of super-blocks along each
/// dimension in turn. Requirements: ndims() >= 2 (std::invalid_argument otherwise); ranks numbered mixed-radix in routing order
/// (stride(route_dim(0)) == 1, each next stride the product of the extents before), as
/// Torus and Hypercube number them. Steps: sum over dimensions of (z_i - 1).
/// Scratch: p (with two or more non-trivial dimensions) plus one or two halves of
/// max (z_i - 1) p / z_i blocks (dimensions of extent 3 or more).
/// Cost (one-port, CT): sum_i (z_i - 1)(t_s + t_w m p / 2); on a √p×√p mesh
/// 2(√p − 1)(t_s + t_w m p / 2) (seed equation 4.8), plus under p m element copies per phase.
/// collective: every rank must run it (through alltoall) with the same topology.
class DimensionalSchedule {
public:
  constexpr explicit DimensionalSchedule(Rings topo) : topo_(topo)
  {
    if (topo_.ndims() < 2) {
      detail::throw_invalid_argument(
        "collectives::alltoall(dimensional): the two-phase algorithm on a ring: needs a topology of two or more "
        "dimensions, got " +
        detail::to_text(topo_.ndims()));
    }
    const std::size_t p = topo_.size();
    std::size_t radix = 1;
    std::size_t widest = 1;
    for (std::size_t j = 0; j < topo_.ndims(); ++j) {
      const std::size_t dim = topo_.route_dim(j);
      const std::size_t z = topo_.extent(dim);
      if (z == 1) continue;
      detail::require(topo_.stride(dim) == radix,
                      "collectives::alltoall(dimensional): the topology's ranks must be numbered mixed-radix in "
                      "routing order, as Torus and Hypercube number them");
      radix *= z;
      ++phases_;
      steps_ += z - 1;
      if (z > widest) widest = z;
      if (z >= 3 && (z - 1) * (p / z) > half_) half_ = (z - 1) * (p / z);
    }
    halves_ = widest >= 4 ? 2 : widest == 3 ? 1 : 0;
  }
  constexpr std::size_t size() const { return topo_.size(); }
  constexpr std::size_t num_steps() const { return steps_ > 0 ? steps_ : 1; }
  /// Number of phases: dimensions of extent greater than 1.
  constexpr std::size_t num_phases() const { return phases_; }
  constexpr std::size_t scratch_blocks() const { return region_blocks() + halves_ * half_; }
  constexpr AlltoallOp operation() const { return {size()}; }
  /// Every rank does rank 0's step, translated along the rings.
  constexpr Symmetry symmetry(std::size_t) const { return Symmetry::uniform(RankGroup::of(topo_)); }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t step, V& v) const
  {
    if (steps_ == 0) {
      v.local({contiguous(Buffer::input, 0, 1), contiguous(Buffer::output, 0, 1)});
      return;
    }
    // Slowest-varying dimension first: routing order reversed.
    std::size_t s = step;
    std::size_t k = 0;
    for (std::size_t j = topo_.ndims(); j-- > 0;) {
      const std::size_t dim = topo_.route_dim(j);
      const std::size_t z = topo_.extent(dim);
      if (z == 1) continue;
      if (s < z - 1) {
        exchange(r, k, dim, z, s + 1, v);
        return;
      }
      s -= z - 1;
      ++k;
    }
  }

  /// The same rings (Rings' operator==: its entries past its rings are not set at run
  /// time, so a kept plan must not compare the bytes).
  friend constexpr bool operator==(const DimensionalSchedule&, const DimensionalSchedule&) = default;

private:
  constexpr std::size_t region_blocks() const { return phases_ >= 2 ? size() : 0; }

  /// The buffer holding phase k's layout (each starts at block 0 of its buffer, so a
  /// range of super-blocks wraps with modulus p).
  constexpr Buffer region(std::size_t k) const
  {
    if (k == 0) return Buffer::input;
    return (phases_ - k) % 2 == 0 ? Buffer::output : Buffer::scratch;
  }

  /// First scratch block of the half that exchange e (1 .. z-2) receives into.
  constexpr std::size_t half_at(std::size_t e) const { return region_blocks() + ((e - 1) % 2) * half_; }

  /// Exchange e of phase k, along `dim` of extent z.
  template <class V>
  constexpr void exchange(std::size_t r, std::size_t k, std::size_t dim, std::size_t z, std::size_t e, V& v) const
  {
    const std::size_t p = size();
    const std::size_t sb = p / z; // blocks per super-block
    const std::size_t c = topo_.coord(r, dim);
    const std::size_t n = z - e;  // super-blocks in flight
    const std::size_t next = topo_.shift_along(r, dim, 1);
    const std::size_t prev = topo_.shift_along(r, dim, z - 1);
    const Buffer from = region(k);
    const Buffer to = region(k + 1);
    // In A_k+1 the super-block from coordinate x along dim is every z-th block from x.
    auto placed = [&](std::size_t x) { return strided(to, x, sb, 1, z); };

    if (e == 1) v.send({next, cyclic(from, ((c + 1) % z) * sb, (z - 1) * sb, p)});
    else v.send({next, contiguous(Buffer::scratch, half_at(e - 1) + sb, n * sb)});
    // The first super-block received started at coordinate c - e; it stays here.
    const Pattern kept = placed((c + z - e) % z);
    if (n == 1) {
      v.recv({prev, kept});
    } else {
      v.recv({prev, contiguous(Buffer::scratch, half_at(e), n * sb)});
      v.local({contiguous(Buffer::scratch, half_at(e), sb), kept});
    }
    if (e == 1) v.local({contiguous(from, c * sb, sb), placed(c)});
  }

  Rings topo_;
  std::size_t phases_ = 0;
  std::size_t steps_ = 0;
  std::size_t half_ = 0;
  std::size_t halves_ = 0;
};

namespace alltoall_algorithm {
/// The seeds' mesh/torus alltoall, dimension by dimension: a ring alltoall of super-blocks
/// along each dimension, regrouping between phases; sum (z_i - 1) steps. Needs a product
/// topology of two or more dimensions (mesh, torus, hypercube).
struct Dimensional : AlgorithmBase<Collective::alltoall> {
  static constexpr const char* name = "dimensional";
  static constexpr Needs needs{.two_or_more_dims = true};
  template <product_topology T> static constexpr auto schedule(const T& t, const Problem&) { return DimensionalSchedule(rings_of(t)); }
};
inline constexpr Dimensional dimensional{};
} // namespace alltoall_algorithm

} // namespace collectives
