#pragma once
// Which topology a communicator runs on: its Cartesian topology (MPI_Cart_create) when it
// has one, else COLLECTIVES_TOPOLOGY's when that fits its size, else fully connected.
// No MPI here: the caller reads the communicator (so this is unit-testable).

#include "topology.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace collectives::pmpi {

/// COLLECTIVES_TOPOLOGY, parsed: fully_connected | ring | mesh[:RxC] | torus[:AxBxC...] |
/// hypercube[:D] | grid[:AxB...] (grid: lines, no wraparound). No extents: as balanced as
/// the communicator's size allows (mesh 2, torus 3 dimensions), as MPI_Dims_create.
struct TopologySpec {
  enum class Kind : unsigned char { none, fully_connected, ring, mesh, torus, hypercube, grid };
  Kind kind = Kind::none;
  std::vector<std::size_t> extents; ///< empty: derived from the size; hypercube: {2^D}
};

/// Parses a COLLECTIVES_TOPOLOGY value ("" gives Kind::none). Throws std::invalid_argument
/// with a message naming the variable and the valid forms.
TopologySpec parse_topology_spec(std::string_view text);

/// What MPI_Cart_get says of a Cartesian communicator.
struct CartesianInfo {
  std::vector<std::size_t> extents;
  std::vector<bool> periodic;
};

/// The chosen topology and where it came from ("Cartesian communicator",
/// "COLLECTIVES_TOPOLOGY", "default", ...).
struct TopologyChoice {
  ShimTopology topology;
  std::string source;
};

/// p as `ndims` extents as equal as possible, non-increasing (MPI_Dims_create's answer).
std::vector<std::size_t> balanced_extents(std::size_t p, std::size_t ndims);

/// The topology of a communicator of p ranks (cart: its Cartesian topology, or null).
/// Cartesian dimensions of extent 1 are dropped and those of extent 2 count as periodic
/// (a line of two nodes has the links of a ring of two); all-periodic ones of 1, 2, 3
/// dimensions give Ring, Mesh, Torus, any other a Grid. A Cartesian topology of more than
/// max_grid_dims non-trivial dimensions, or a spec that does not fit p (mesh:4x4 on 8
/// ranks, hypercube on 6), gives fully connected.
TopologyChoice choose_topology(std::size_t p, const CartesianInfo* cart, const TopologySpec& spec);

} // namespace collectives::pmpi
