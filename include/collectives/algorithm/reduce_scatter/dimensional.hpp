#pragma once
// Reduce-scatter dimension by dimension on a mesh, torus or hypercube (the seeds' exercise).

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/algorithm/reduce_scatter/common.hpp>
#include <collectives/schedule/operation.hpp>
#include <collectives/schedule/pattern.hpp>
#include <collectives/schedule/schedule.hpp>
#include <collectives/topology/concepts.hpp>
#include <collectives/schedule/rings.hpp>

#include <cstddef>

namespace collectives {

/// The seeds' mesh/torus all-to-all reduction, dimension by dimension: the dual of the
/// dimensional all-gather. Dimensions are taken slowest first; along each, a ring
/// reduce-scatter (ALL_TO_ALL_RED_RING) over super-blocks (the blocks of every rank that
/// shares the coordinates not yet reduced). Partials alternate between two scratch
/// copies of the p blocks, one per phase parity. Rings wrap, so the operator must be
/// commutative. The last step's block lands in the result and the partial joins it there
/// (combined on receipt), instead of landing in scratch to be copied out; in place with one
/// ring (the result is input block 0, which that step still reads) it goes through scratch.
/// Cost on a √p×√p mesh: 2 t_s (√p − 1) + t_w m (p − 1).
class ReduceScatterDimensionalSchedule {
public:
  constexpr explicit ReduceScatterDimensionalSchedule(Rings topo, ResultSlot slot = ResultSlot::first,
                                                      bool in_place = false)
    : topo_(topo), slot_(slot), in_place_(in_place) {}
  constexpr std::size_t size() const { return topo_.size(); }
  constexpr std::size_t num_steps() const
  {
    std::size_t n = 0;
    for (std::size_t i = 0; i < topo_.ndims(); ++i) n += topo_.extent(i) - 1;
    return n > 0 ? n : 1;
  }
  constexpr std::size_t scratch_blocks() const { return 2 * size(); }
  constexpr ReduceScatterOp operation() const { return {size(), true}; }
  /// Every rank does rank 0's step, translated along the rings.
  constexpr Symmetry symmetry(std::size_t) const { return Symmetry::uniform(RankGroup::of(topo_)); }

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
      const Pattern mine = contiguous(own, own_at + base + in_c * len, len);
      if (step + 1 == num_steps() && !(in_place_ && phase == 0)) {
        // The last ring's last step: one block (r; len = 1), straight into the result.
        v.recv({topo_.shift_along(r, dim, z - 1), result});
        v.local({mine, result, Combine::right});
        return;
      }
      const Pattern into = contiguous(Buffer::scratch, here + base + in_c * len, len);
      v.recv({topo_.shift_along(r, dim, z - 1), into});
      v.local({mine, into, Combine::right});
      if (step + 1 == num_steps()) v.local({contiguous(Buffer::scratch, here + r, 1), result});
      return;
    }
    // p == 1
    v.local({contiguous(Buffer::input, 0, 1), result});
  }

  friend constexpr bool operator==(const ReduceScatterDimensionalSchedule&, const ReduceScatterDimensionalSchedule&) = default;

private:
  Rings topo_;
  ResultSlot slot_;
  bool in_place_;
};

namespace reduce_scatter_algorithm {
/// The seeds' mesh/torus algorithm, one ring per dimension; commutative operators only.
struct Dimensional : AlgorithmBase<Collective::reduce_scatter> {
  static constexpr const char* name = "dimensional";
  /// The result (output block 0) is written last, after every read of the input.
  static constexpr bool input_may_alias_output = true;
  static constexpr Needs needs{.product = true, .commutative = true};
  template <product_topology T>
  static constexpr auto schedule(const T& t, const Problem& pr)
  {
    return ReduceScatterDimensionalSchedule(rings_of(t), ResultSlot::first, pr.in_place);
  }
};
inline constexpr Dimensional dimensional{};
} // namespace reduce_scatter_algorithm

} // namespace collectives
