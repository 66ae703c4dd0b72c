#pragma once
// Ring phases over a TreeShape (tree/shape.hpp), for the seeds' "ring algorithm applied
// dimension after dimension" schedules that are not binomial trees: the store-and-forward
// ring broadcast and its reduce dual, the pipelined scatter and gather. A phase runs one
// ring algorithm along one ring of the shape at once on every ring of that dimension whose
// faster coordinates are the root's (as tree_role does): broadcast and scatter walk the
// rings slowest first (the root's column, then every row), reduce and gather the reverse.
// Because later rings are faster-varying, the ranks at one coordinate of a ring own one
// contiguous range of blocks, their super-block.

#include <collectives/algorithm/tree/shape.hpp>
#include <collectives/schedule/pattern.hpp>
#include <collectives/schedule/schedule.hpp>

#include <cstddef>

namespace collectives {

/// Rank r's place on its ring along dimension k of a TreeShape, relative to the root.
struct RingPlace {
  bool on = false;       ///< r's ring takes part in phase k (r's faster coordinates are the root's)
  std::size_t z = 1;     ///< the ring's extent
  std::size_t len = 1;   ///< blocks per coordinate (the dimension's stride)
  std::size_t base = 0;  ///< first rank (and block) of the ring's range
  std::size_t c0 = 0;    ///< the root's coordinate along the ring
  std::size_t v = 0;     ///< r's coordinate relative to the root's: (c - c0) mod z
  std::size_t low = 0;   ///< r's offset inside a coordinate's range (r mod len)

  /// The rank at relative coordinate u (mod z) of r's ring.
  constexpr std::size_t rank_at(std::size_t u) const { return base + ((c0 + u) % z) * len + low; }
  /// r's neighbours: one coordinate up and one down (the same rank when z = 2).
  constexpr std::size_t up() const { return rank_at(v + 1); }
  constexpr std::size_t down() const { return rank_at(v + z - 1); }
  /// The super-block of relative coordinate u: the blocks of the ranks at that
  /// coordinate of the ring's range, at their rank indices.
  constexpr Pattern super_block(Buffer b, std::size_t u) const
  {
    return contiguous(b, base + ((c0 + u) % z) * len, len);
  }
};

/// Rank r's place along dimension k of `shape` for a collective rooted at `root`.
constexpr RingPlace ring_place(const TreeShape& s, std::size_t root, std::size_t r, std::size_t k)
{
  RingPlace place;
  for (std::size_t j = k + 1; j < s.ndims; ++j)
    if (s.coord(r, j) != s.coord(root, j)) return place;
  place.on = true;
  place.z = s.extent[k];
  place.len = s.stride[k];
  place.base = r - r % (place.len * place.z);
  place.c0 = s.coord(root, k);
  place.v = (s.coord(r, k) + place.z - place.c0) % place.z;
  place.low = r % place.len;
  return place;
}

/// Where a step of a phase-by-phase schedule falls: the dimension and the step within
/// its phase (dim == shape.ndims past the last phase).
struct PhaseStep {
  std::size_t dim = 0;
  std::size_t step = 0;
};

/// Steps of the staggered ring broadcast or reduce along a ring of z: ceil(z/2), none for
/// z = 1.
struct HalfRingSteps {
  static constexpr std::size_t of(std::size_t z) { return z <= 1 ? 0 : (z + 1) / 2; }
};

/// Steps of a ring pipeline (scatter, gather) along a ring of z: z - 1.
struct PipelineSteps {
  static constexpr std::size_t of(std::size_t z) { return z - 1; }
};

/// Ranks of a ring phase's step that do the same, translated along their ring: those at
/// relative coordinates first, first + 1, ..., first + count - 1 (mod the ring's extent).
struct PhaseRun {
  std::size_t first = 0;
  std::size_t count = 0;
};

/// The Symmetry of a step of the phase along dimension `dim` of `s` (rings through the
/// coordinates of `root` on the faster dimensions, any coordinates on the slower ones) in
/// which, on every ring of the phase, the ranks of each run do the same, translated, and
/// no other rank does anything. Runs of no rank are skipped, and so is a run of one rank
/// that an earlier run already holds; runs must not overlap otherwise. `all`: every rank
/// also has local work in this step, so the runs must hold every rank (none() if not).
/// none() when the shape's rings are not a RankGroup (more than RankGroup::max_digits
/// rings longer than two that are not all rings of two).
template <std::size_t N>
constexpr Symmetry ring_phase_symmetry(const TreeShape& s, std::size_t root, std::size_t dim, const PhaseRun (&runs)[N],
                                       bool all = false, std::size_t p = 0)
{
  const RankGroup g = shape_group(s);
  if (!g.valid()) return Symmetry::none();
  Symmetry sym = Symmetry::in(g);
  if (dim >= s.ndims) return all ? Symmetry::none() : sym;
  const std::size_t z = s.extent[dim], len = s.stride[dim], c0 = s.coord(root, dim);
  std::size_t members = 0;
  for (std::size_t i = 0; i < N; ++i) {
    const PhaseRun run = runs[i];
    if (run.count == 0) continue;
    bool seen = false; // a rank named twice (small rings): once
    for (std::size_t j = 0; j < i; ++j)
      seen = seen || (runs[j].count == 1 && run.count == 1 && runs[j].first % z == run.first % z);
    if (seen) continue;
    RankClass c = RankClass::only(root - c0 * len + ((c0 + run.first) % z) * len);
    for (std::size_t k = 0; k <= dim; ++k) { // faster rings stay at the root's coordinates
      if (s.extent[k] == 1) continue;
      const std::size_t count = k == dim ? run.count : s.extent[k];
      if (g.kind == RankGroup::Kind::bits) {
        if (count == 2) c.free |= s.stride[k];
        continue;
      }
      for (std::size_t d = 0; d < g.digits; ++d)
        if (g.weight[d] == s.stride[k]) c.count[d] = count; // (step 1 along every ring)
    }
    members += c.size(g);
    sym = sym.with(c);
    if (!sym.stated()) return sym;
  }
  return all && members != p ? Symmetry::none() : sym;
}

/// What the phase-by-phase schedules share: p ranks, the shape, the root, and their phases
/// walked slowest ring first (SlowestFirst) or fastest first, the phase along a ring of z
/// taking Steps::of(z) steps.
template <class Steps, bool SlowestFirst>
class RingPhases {
public:
  constexpr RingPhases(std::size_t p, const TreeShape& shape, std::size_t root) : p_(p), shape_(shape), root_(root) {}
  constexpr std::size_t size() const { return p_; }
  /// Steps of all the phases.
  constexpr std::size_t phase_steps() const
  {
    std::size_t n = 0;
    for (std::size_t k = 0; k < shape_.ndims; ++k) n += Steps::of(shape_.extent[k]);
    return n;
  }

  friend constexpr bool operator==(const RingPhases&, const RingPhases&) = default;

protected:
  /// Where step `step` of the phases falls.
  constexpr PhaseStep phase_step(std::size_t step) const
  {
    for (std::size_t i = 0; i < shape_.ndims; ++i) {
      const std::size_t k = SlowestFirst ? i : shape_.ndims - 1 - i;
      const std::size_t n = Steps::of(shape_.extent[k]);
      if (step < n) return {k, step};
      step -= n;
    }
    return {shape_.ndims, 0};
  }
  /// ring_phase_symmetry() on this schedule's shape and p.
  template <std::size_t N>
  constexpr Symmetry phase_symmetry(std::size_t root, std::size_t dim, const PhaseRun (&runs)[N], bool all = false) const
  {
    return ring_phase_symmetry(shape_, root, dim, runs, all, p_);
  }
  /// Rank r's place in the phase along dimension `dim`, on the rings through the
  /// coordinates of `root`.
  constexpr RingPlace place(std::size_t r, std::size_t dim, std::size_t root) const
  {
    return ring_place(shape_, root, r, dim);
  }

  std::size_t p_;
  TreeShape shape_;
  std::size_t root_;
};

} // namespace collectives
