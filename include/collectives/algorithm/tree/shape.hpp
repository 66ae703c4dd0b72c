#pragma once
// Trees for the rooted collectives (broadcast, reduce, scatter, gather), written once.
// A TreeShape is a list of rings (extent, stride) in the order a broadcast walks them,
// slowest-varying first. Along each ring a binomial tree runs on coordinates relative to
// the root's: in sub-step j the distance is 2^(L-1-j), L = ceil(log2 extent). Three shapes:
//  - ring_shape(p): one ring of p: the binomial tree with virtual ids (rank - root) mod p,
//    which on a ring is the seeds' cut-through recursive doubling (distance p/2^i);
//  - bits_shape(p): p = 2^d as d rings of two, highest bit first: the seeds' hypercube
//    algorithms (ONE_TO_ALL_BC with masks; virtual id = rank XOR root);
//  - topology_shape(t): the topology's own dimensions (meshes, tori: one phase per dimension).
// Three shape policies (BinomialShape, HypercubeShape, DimensionalShape) name them for the
// tree algorithms of broadcast, reduce, scatter and gather.
// Because later rings are faster-varying, the ranks below a node of the tree own one
// contiguous range of blocks, so scatter and gather move super-blocks with one Pattern.

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/detail/bits.hpp>
#include <collectives/schedule/rings.hpp>
#include <collectives/schedule/pattern.hpp>
#include <collectives/schedule/schedule.hpp>
#include <collectives/topology/concepts.hpp>

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>

namespace collectives {

/// Rings of a tree, root outward: at most Rings::max_dims (32; a hypercube of 2^32 ranks),
/// of fewer than 2^32 nodes. Kept small (32-bit extents and strides: 264 bytes) because
/// every rooted call builds and copies its tree: at 8 bytes a call, building it was a
/// tenth of the call's time.
struct TreeShape {
  std::size_t ndims = 0;
  std::array<std::uint32_t, Rings::max_dims> extent;
  std::array<std::uint32_t, Rings::max_dims> stride;

  /// No rings. At run time the entries past ndims are left unset: nothing reads them, and
  /// zeroing 256 bytes on every rooted call (`rep stos`) was 40 % of the samples in an
  /// 8-byte broadcast's front end. Constant evaluation zeroes them (a constexpr value must be
  /// fully initialised).
  constexpr TreeShape() noexcept
  {
    if (__builtin_is_constant_evaluated()) {
      extent = {};
      stride = {};
    }
  }

  /// The same rings (entries past ndims are not compared: a kept plan compares shapes on
  /// every call).
  friend constexpr bool operator==(const TreeShape& a, const TreeShape& b)
  {
    if (a.ndims != b.ndims) return false;
    for (std::size_t k = 0; k < a.ndims; ++k)
      if (a.extent[k] != b.extent[k] || a.stride[k] != b.stride[k]) return false;
    return true;
  }

  constexpr std::size_t steps_in(std::size_t k) const { return detail::ceil_log2(extent[k]); }
  constexpr std::size_t num_steps() const
  {
    std::size_t n = 0;
    for (std::size_t k = 0; k < ndims; ++k) n += steps_in(k);
    return n;
  }
  /// num_steps(), or 1 for a tree of one rank: the broadcast, scatter and gather trees
  /// keep one step at p = 1 (the scatter's and gather's own block is copied in it).
  /// Evaluates num_steps() once: the compilers do not merge two evaluations of its loop.
  constexpr std::size_t num_steps_at_least_one() const
  {
    const std::size_t n = num_steps();
    return n > 0 ? n : 1;
  }
  /// Rank r's coordinate along ring k. 32-bit division (ranks are below 2^32), none for a
  /// stride of 1 or a quotient already below the extent (a rooted call at 8 bytes spent
  /// a tenth of its time dividing here).
  constexpr std::size_t coord(std::size_t r, std::size_t k) const
  {
    const auto x = static_cast<std::uint32_t>(r);
    const std::uint32_t q = stride[k] == 1 ? x : x / stride[k];
    return q < extent[k] ? q : q % extent[k];
  }
};

/// A tree schedule's shape argument: a TreeShape, or a function that returns one, which is
/// then built straight into the schedule (a front end builds its schedule on every call,
/// and copying the 264-byte shape into it was a third of an 8-byte broadcast's own work).
template <class S>
concept shape_source = std::convertible_to<S, TreeShape> || std::is_invocable_r_v<TreeShape, S>;

template <shape_source S>
constexpr TreeShape shape_from(S&& s)
{
  if constexpr (std::is_invocable_r_v<TreeShape, S>) return std::forward<S>(s)();
  else return std::forward<S>(s);
}

/// One ring of p nodes.
constexpr TreeShape ring_shape(std::size_t p)
{
  detail::require(p <= std::numeric_limits<std::uint32_t>::max(), "collectives: the trees take fewer than 2^32 ranks");
  TreeShape s;
  s.ndims = 1;
  s.extent[0] = static_cast<std::uint32_t>(p);
  s.stride[0] = 1;
  return s;
}

/// p = 2^d as d rings of two, highest bit first.
constexpr TreeShape bits_shape(std::size_t p)
{
  TreeShape s;
  const std::size_t d = detail::log2_exact(p);
  detail::require(d <= Rings::max_dims, "collectives: the hypercube trees take at most 2^32 ranks");
  s.ndims = d;
  for (std::size_t k = 0; k < d; ++k) {
    s.extent[k] = 2;
    s.stride[k] = static_cast<std::uint32_t>(std::size_t{1} << (d - 1 - k));
  }
  return s;
}

/// The dimensions of a product of rings, slowest-varying first (rings are in routing
/// order, fastest first).
constexpr TreeShape rings_shape(const Rings& rings)
{
  detail::require(rings.size() <= std::numeric_limits<std::uint32_t>::max(),
                  "collectives: the trees take fewer than 2^32 ranks");
  TreeShape s;
  s.ndims = rings.ndims();
  for (std::size_t k = 0; k < s.ndims; ++k) {
    s.extent[k] = static_cast<std::uint32_t>(rings.extent(s.ndims - 1 - k));
    s.stride[k] = static_cast<std::uint32_t>(rings.stride(s.ndims - 1 - k));
  }
  return s;
}

/// A product topology's dimensions, slowest-varying first.
template <product_topology T>
constexpr TreeShape topology_shape(const T& t)
{
  return rings_shape(rings_of(t));
}

namespace detail {

/// The trees the rooted collectives' tree algorithms walk, each with its name and needs
/// (algorithm/<collective>/tree.hpp make one algorithm of each per collective).
struct BinomialShape {
  static constexpr const char* name = "binomial";
  static constexpr Needs needs{};
  template <topology T> static constexpr TreeShape of(const T& t) { return ring_shape(t.size()); }
};
struct HypercubeShape {
  static constexpr const char* name = "hypercube";
  static constexpr Needs needs{.power_of_two = true};
  template <topology T> static constexpr TreeShape of(const T& t) { return bits_shape(t.size()); }
};
struct DimensionalShape {
  static constexpr const char* name = "dimensional";
  static constexpr Needs needs{.product = true};
  template <product_topology T> static constexpr TreeShape of(const T& t) { return topology_shape(t); }
};

/// The algorithm of rooted collective C along the tree of shape Shape, whose schedule is
/// Schedule(p, the shape, root): broadcast's, scatter's and gather's tree algorithms
/// (reduce's takes its operator's facts too: algorithm/reduce/tree.hpp).
template <Collective C, class Schedule, class Shape>
struct RootedTree : AlgorithmBase<C> {
  static constexpr const char* name = Shape::name;
  static constexpr Needs needs = Shape::needs;
  template <topology T>
  static constexpr auto schedule(const T& t, const Problem& pr)
  {
    return Schedule(t.size(), [&] { return Shape::of(t); }, pr.root);
  }
};

} // namespace detail

/// Step `step` of the broadcast order: which ring, and the binomial distance.
struct TreeStep {
  std::size_t dim = 0;
  std::size_t dist = 0;
};

constexpr TreeStep tree_step(const TreeShape& s, std::size_t step)
{
  for (std::size_t k = 0; k < s.ndims; ++k) {
    const std::size_t n = s.steps_in(k);
    if (step < n) return {k, std::size_t{1} << (n - 1 - step)};
    step -= n;
  }
  return {s.ndims, 0};
}

/// The translations of a shape's rings (for Symmetry): cyclic for ring_shape, bits for
/// bits_shape, the mesh's rings for topology_shape.
constexpr RankGroup shape_group(const TreeShape& s)
{
  Rings r;
  r.count = s.ndims;
  for (std::size_t k = 0; k < s.ndims; ++k) {
    r.extents[k] = s.extent[s.ndims - 1 - k]; // Rings: fastest first
    r.strides[k] = s.stride[s.ndims - 1 - k];
  }
  return RankGroup::of(r);
}

/// The class of `root` translated along the shape's first `rings` rings, as a class of g
/// (shape_group(s)): along ring k by 0, step, 2 step, ... (count values), where
/// {step, count} = along(k); rings of extent 1 are passed over. In a group of bits a ring
/// (of two) is either free (count 2) or left at the root's coordinate.
template <class Along>
constexpr RankClass class_along(const TreeShape& s, const RankGroup& g, std::size_t root, std::size_t rings,
                                Along&& along)
{
  RankClass c = RankClass::only(root);
  for (std::size_t k = 0; k < rings; ++k) {
    if (s.extent[k] == 1) continue;
    const auto [step, count] = along(k);
    if (g.kind == RankGroup::Kind::bits) {
      if (count == 2) c.free |= s.stride[k];
      continue;
    }
    for (std::size_t i = 0; i < g.digits && i < RankGroup::max_digits; ++i)
      if (g.weight[i] == s.stride[k]) {
        c.step[i] = step;
        c.count[i] = count;
      }
  }
  return c;
}

/// What broadcast-order step `step` of the tree rooted at `root` says about its ranks:
/// the senders are the root and its translates by multiples of 2m along the step's ring
/// (and anything along the rings done before), the receivers the root's first child and
/// its translates; relative coordinate v sends to v + m when v is a multiple of 2m and
/// v + m < z. When the ring's extent is not a multiple of 2m the last child's subtree may
/// be cut short: its sender and it are classes of their own (a scatter's or gather's
/// message to it is smaller), unless every message is the whole buffer (`whole_messages`:
/// a broadcast's or a reduction's, whose classes then still hold what Symmetry promises,
/// peers and block counts). So on a ring of 1000, p not a power of two, every step is
/// stated, not walked rank by rank.
constexpr Symmetry tree_symmetry(const TreeShape& s, std::size_t root, std::size_t step, bool whole_messages = false,
                                 bool with_idle = false)
{
  const RankGroup g = shape_group(s);
  const TreeStep ts = tree_step(s, step);
  if (ts.dim >= s.ndims) return Symmetry::in(g);
  if (!g.valid()) return Symmetry::none();
  const std::size_t z = s.extent[ts.dim], m = ts.dist;
  const std::size_t n = z > m ? (z - m + 2 * m - 1) / (2 * m) : 0; // senders along the ring
  const bool cut = !whole_messages && n > 0 && 2 * m * n > z;      // the last child's subtree
  const std::size_t c0 = s.coord(root, ts.dim), len = s.stride[ts.dim];
  const auto at = [&](std::size_t v) { return root - c0 * len + ((c0 + v) % z) * len; };
  // (Later rings stay at the root's coordinate.)
  const auto along = [&](std::size_t count) {
    return class_along(s, g, root, ts.dim + 1, [&](std::size_t k) {
      return std::pair{k == ts.dim ? 2 * m : 1, k == ts.dim ? count : std::size_t{s.extent[k]}};
    });
  };
  const RankClass senders = along(cut ? n - 1 : n);
  RankClass receivers = senders;
  receivers.rep = at(m);
  Symmetry sym = Symmetry::in(g).with(senders).with(receivers);
  if (cut) {
    RankClass last = along(1), child = last;
    last.rep = at(2 * m * (n - 1));
    child.rep = at(2 * m * (n - 1) + m);
    sym = sym.with(last).with(child);
  }
  // (`with_idle`, distance 1 along a ring of odd extent: the last coordinate neither sends
  // nor receives, a class of its own for a step in which every rank has local work.)
  if (with_idle && m == 1 && z % 2 == 1) {
    RankClass idle = along(1);
    idle.rep = at(z - 1);
    sym = sym.with(idle);
  }
  return sym;
}

/// tree_symmetry(), or none() unless its classes hold every rank (for steps in which every
/// rank also has local work; the last coordinate of an odd ring, idle in a step of
/// distance 1, is a class of its own).
constexpr Symmetry tree_symmetry_all(const TreeShape& s, std::size_t root, std::size_t step, std::size_t p)
{
  const Symmetry sym = tree_symmetry(s, root, step, false, true);
  std::size_t n = 0;
  for (std::size_t c = 0; c < sym.classes; ++c) n += sym.cls[c].size(sym.group);
  return n == p ? sym : Symmetry::none();
}

/// The role of rank r in one broadcast-order step of the tree rooted at `root`.
struct TreeRole {
  bool sends = false;        ///< hands data to `peer` (down the tree)
  bool receives = false;     ///< gets data from `peer` (up the tree)
  std::size_t peer = 0;
  std::size_t child_lo = 0;  ///< relative coordinates below the receiving node: [lo, lo + count)
  std::size_t child_count = 0;
  std::size_t len = 1;       ///< blocks per coordinate (the ring's stride)
  std::size_t base = 0;      ///< first block of the ring's range
  std::size_t root_coord = 0;
  std::size_t extent = 1;
  /// The super-blocks for relative coordinates [lo, lo + count) of this ring.
  constexpr Pattern blocks(Buffer b) const
  {
    const std::size_t c = root_coord + child_lo; // both below extent
    return cyclic_within(b, base, (c >= extent ? c - extent : c) * len, child_count * len, extent * len);
  }
};

constexpr TreeRole tree_role(const TreeShape& s, std::size_t root, std::size_t r, std::size_t step)
{
  TreeRole role;
  const TreeStep ts = tree_step(s, step);
  if (ts.dim >= s.ndims) return role;
  for (std::size_t k = ts.dim + 1; k < s.ndims; ++k)
    if (s.coord(r, k) != s.coord(root, k)) return role; // not reached yet
  // r = base + c len + low: its ring starts at base, c is its coordinate along the ring.
  // No divisions but coord's (this runs for every rank, step and rooted call).
  const std::size_t z = s.extent[ts.dim];
  const std::size_t len = s.stride[ts.dim];
  const std::size_t c = s.coord(r, ts.dim);
  const std::size_t c0 = s.coord(root, ts.dim);
  const std::size_t v = c >= c0 ? c - c0 : c + z - c0; // relative to the root's
  const std::size_t m = ts.dist;                       // a power of two
  const std::size_t low = len == 1 ? 0 : static_cast<std::uint32_t>(r) % static_cast<std::uint32_t>(len);
  role.len = len;
  role.base = r - low - c * len;
  role.root_coord = c0;
  role.extent = z;
  auto rank_at = [&](std::size_t rel) { // rel < z
    const std::size_t at = c0 + rel;
    return role.base + (at >= z ? at - z : at) * len + low;
  };
  const std::size_t phase = v & (2 * m - 1); // v mod 2m
  if (phase == 0 && v + m < z) {
    role.sends = true;
    role.peer = rank_at(v + m);
    role.child_lo = v + m;
  } else if (phase == m) {
    role.receives = true;
    role.peer = rank_at(v - m);
    role.child_lo = v;
  } else {
    return role;
  }
  const std::size_t end = role.child_lo + m < z ? role.child_lo + m : z;
  role.child_count = end - role.child_lo;
  return role;
}

} // namespace collectives
