#pragma once
// All-gather dimension by dimension (the seeds' ALL_TO_ALL_BC_MESH, generalised).

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/algorithm/allgather/common.hpp>
#include <collectives/schedule/operation.hpp>
#include <collectives/schedule/pattern.hpp>
#include <collectives/schedule/schedule.hpp>
#include <collectives/topology/concepts.hpp>
#include <collectives/schedule/rings.hpp>

#include <cstddef>

namespace collectives {

/// ALL_TO_ALL_BC_MESH generalised: a ring all-gather along each dimension in turn (the
/// fastest-varying first), passing the super-blocks gathered so far. Step 0 only places the
/// rank's own block. Cost on a √p×√p mesh: 2 t_s (√p − 1) + t_w m (p − 1).
class AllgatherDimensionalSchedule {
public:
  constexpr explicit AllgatherDimensionalSchedule(Rings topo, bool in_place = false) : topo_(topo), in_place_(in_place) {}
  constexpr std::size_t size() const { return topo_.size(); }
  constexpr std::size_t num_steps() const
  {
    std::size_t n = 1;
    for (std::size_t i = 0; i < topo_.ndims(); ++i) n += topo_.extent(i) - 1;
    return n;
  }
  constexpr std::size_t scratch_blocks() const { return 0; }
  constexpr AllgatherOp operation() const { return {size(), in_place_}; }
  /// Every rank does rank 0's step, translated along the rings.
  constexpr Symmetry symmetry(std::size_t) const { return Symmetry::uniform(RankGroup::of(topo_)); }

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

  friend constexpr bool operator==(const AllgatherDimensionalSchedule&, const AllgatherDimensionalSchedule&) = default;

private:
  Rings topo_;
  bool in_place_;
};

namespace allgather_algorithm {
/// ALL_TO_ALL_BC_MESH: a ring along each dimension in turn; meshes, tori, hypercubes.
struct Dimensional : AlgorithmBase<Collective::allgather> {
  static constexpr const char* name = "dimensional";
  static constexpr Needs needs{.product = true};
  template <product_topology T>
  static constexpr auto schedule(const T& t, const Problem& pr)
  {
    return AllgatherDimensionalSchedule(rings_of(t), pr.in_place);
  }
};
inline constexpr Dimensional dimensional{};
} // namespace allgather_algorithm

} // namespace collectives
