#pragma once
// The shim's engine: each collective run with a chosen algorithm on a communicator over
// the MPI transport and the shim's topology, on raw bytes (data movement) or raw elements
// with a type-erased operator (reductions). The interposed MPI calls (interpose.cpp)
// check their arguments, stage what is not contiguous and call these.
//
// Compile time: every algorithm is instantiated once for bytes and once per element size
// and commutativity (engine_data.cpp, engine_reduce_*.cpp): one topology type
// (ShimTopology) and one operator type per element size keep that to 13 instantiations of
// each collective.

#include "algorithms.hpp" // Coll
#include "element_op.hpp"
#include "topology.hpp"

#include <collectives/collective/allgather.hpp>
#include <collectives/collective/allreduce.hpp>
#include <collectives/collective/alltoall.hpp>
#include <collectives/collective/alltoallv.hpp>
#include <collectives/collective/barrier.hpp>
#include <collectives/collective/broadcast.hpp>
#include <collectives/collective/gather.hpp>
#include <collectives/collective/reduce.hpp>
#include <collectives/collective/reduce_scatter.hpp>
#include <collectives/collective/scan.hpp>
#include <collectives/collective/scatter.hpp>
#include <collectives/execution/communicator.hpp>
#include <collectives/transport/mpi.hpp>

#include <cstddef>

namespace collectives::pmpi {

/// The communicator the engine runs on.
using ShimComm = Communicator<mpi::Endpoint, ShimTopology>;

/// Every function: `alg` is an index into algorithms::names(c) that fits the call; sizes
/// in bytes (data movement) or elements of op.size bytes (reductions); a null `in` means
/// in place. Throws what the library and the transport throw.
namespace engine {

void broadcast(ShimComm& comm, std::size_t alg, std::byte* buf, std::size_t bytes, std::size_t root);
/// in == null: out holds this rank's block at its place.
void allgather(ShimComm& comm, std::size_t alg, const std::byte* in, std::byte* out, std::size_t block);
void alltoall(ShimComm& comm, std::size_t alg, const std::byte* in, std::byte* out, std::size_t block);
/// Counts and displacements in bytes, p of each; in_len/out_len: the bytes the blocks lie in.
void alltoallv(ShimComm& comm, std::size_t alg, const std::byte* in, std::size_t in_len, const std::size_t* sc,
               const std::size_t* sd, std::byte* out, std::size_t out_len, const std::size_t* rc, const std::size_t* rd);
/// in: p blocks at the root (in_len 0 elsewhere).
void scatter(ShimComm& comm, std::size_t alg, const std::byte* in, std::size_t in_len, std::byte* out,
             std::size_t block, std::size_t root);
/// out: p blocks at the root (out_len 0 elsewhere).
void gather(ShimComm& comm, std::size_t alg, const std::byte* in, std::size_t block, std::byte* out,
            std::size_t out_len, std::size_t root);
void barrier(ShimComm& comm, std::size_t alg);

/// out: n elements at the root (null elsewhere).
void reduce(ShimComm& comm, std::size_t alg, const ElementOp& op, const void* in, void* out, std::size_t n,
            std::size_t root);
void allreduce(ShimComm& comm, std::size_t alg, const ElementOp& op, const void* in, void* out, std::size_t n);
/// in == null: out holds the p blocks of the contribution; block r of the result lands
/// at its start.
void reduce_scatter(ShimComm& comm, std::size_t alg, const ElementOp& op, const void* in, void* out,
                    std::size_t block);
void scan(ShimComm& comm, std::size_t alg, const ElementOp& op, const void* in, void* out, std::size_t n,
          bool exclusive);

} // namespace engine

namespace engine::detail {

/// The reductions for elements of N bytes (engine_reduce.ipp, instantiated in engine_reduce_*.cpp).
template <std::size_t N>
struct Reductions {
  static void reduce(ShimComm&, std::size_t alg, const ElementOp&, const void* in, void* out, std::size_t n,
                     std::size_t root);
  static void allreduce(ShimComm&, std::size_t alg, const ElementOp&, const void* in, void* out, std::size_t n);
  static void reduce_scatter(ShimComm&, std::size_t alg, const ElementOp&, const void* in, void* out,
                             std::size_t block);
  static void scan(ShimComm&, std::size_t alg, const ElementOp&, const void* in, void* out, std::size_t n,
                   bool exclusive);
};

extern template struct Reductions<1>;
extern template struct Reductions<2>;
extern template struct Reductions<4>;
extern template struct Reductions<8>;
extern template struct Reductions<16>;
extern template struct Reductions<32>;

} // namespace engine::detail
} // namespace collectives::pmpi
