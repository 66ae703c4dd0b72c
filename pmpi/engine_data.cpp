// The data-movement collectives on bytes, and the dispatch of reductions by element size.

#include "adapter.hpp"
#include "engine.hpp"

#include <span>
#include <stdexcept>

namespace collectives::pmpi::engine {

namespace {

using B = std::byte;

std::span<const B> in_span(const B* p, std::size_t n) { return std::span<const B>(p, n); }
std::span<B> out_span(B* p, std::size_t n) { return std::span<B>(p, n); }

} // namespace

void broadcast(ShimComm& comm, std::size_t alg, B* buf, std::size_t bytes, std::size_t root)
{
  algorithms::with_algorithm<Coll::broadcast>(
    alg, [&](auto tag) { collectives::broadcast(comm, out_span(buf, bytes), root, tag); });
}

void allgather(ShimComm& comm, std::size_t alg, const B* in, B* out, std::size_t block)
{
  const std::size_t p = comm.size();
  algorithms::with_algorithm<Coll::allgather>(alg, [&](auto tag) {
    if (in == nullptr) collectives::allgather(comm, out_span(out, p * block), tag);
    else collectives::allgather(comm, in_span(in, block), out_span(out, p * block), tag);
  });
}

void alltoall(ShimComm& comm, std::size_t alg, const B* in, B* out, std::size_t block)
{
  const std::size_t p = comm.size();
  algorithms::with_algorithm<Coll::alltoall>(
    alg, [&](auto tag) { collectives::alltoall(comm, in_span(in, p * block), out_span(out, p * block), tag); });
}

void alltoallv(ShimComm& comm, std::size_t alg, const B* in, std::size_t in_len, const std::size_t* sc,
               const std::size_t* sd, B* out, std::size_t out_len, const std::size_t* rc, const std::size_t* rd)
{
  const std::size_t p = comm.size();
  const std::span<const std::size_t> scs(sc, p), sds(sd, p), rcs(rc, p), rds(rd, p);
  algorithms::with_algorithm<Coll::alltoallv>(alg, [&](auto tag) {
    collectives::alltoallv(comm, in_span(in, in_len), scs, sds, out_span(out, out_len), rcs, rds, tag);
  });
}

void scatter(ShimComm& comm, std::size_t alg, const B* in, std::size_t in_len, B* out, std::size_t block,
             std::size_t root)
{
  algorithms::with_algorithm<Coll::scatter>(
    alg, [&](auto tag) { collectives::scatter(comm, in_span(in, in_len), out_span(out, block), root, tag); });
}

void gather(ShimComm& comm, std::size_t alg, const B* in, std::size_t block, B* out, std::size_t out_len,
            std::size_t root)
{
  algorithms::with_algorithm<Coll::gather>(
    alg, [&](auto tag) { collectives::gather(comm, in_span(in, block), out_span(out, out_len), root, tag); });
}

void barrier(ShimComm& comm, std::size_t alg)
{
  algorithms::with_algorithm<Coll::barrier>(alg, [&](auto tag) { collectives::barrier(comm, tag); });
}

// Reductions: dispatched on the element size -------------------------------------------

namespace {

template <class F>
void with_size(std::size_t size, F&& f)
{
  switch (size) {
  case 1: return f(detail::Reductions<1>{});
  case 2: return f(detail::Reductions<2>{});
  case 4: return f(detail::Reductions<4>{});
  case 8: return f(detail::Reductions<8>{});
  case 16: return f(detail::Reductions<16>{});
  case 32: return f(detail::Reductions<32>{});
  default: throw std::logic_error("collectives-pmpi: no reductions compiled for elements of " + std::to_string(size) + " bytes");
  }
}

} // namespace

void reduce(ShimComm& comm, std::size_t alg, const ElementOp& op, const void* in, void* out, std::size_t n,
            std::size_t root)
{
  with_size(op.size, [&](auto r) { r.reduce(comm, alg, op, in, out, n, root); });
}

void allreduce(ShimComm& comm, std::size_t alg, const ElementOp& op, const void* in, void* out, std::size_t n)
{
  with_size(op.size, [&](auto r) { r.allreduce(comm, alg, op, in, out, n); });
}

void reduce_scatter(ShimComm& comm, std::size_t alg, const ElementOp& op, const void* in, void* out, std::size_t block)
{
  with_size(op.size, [&](auto r) { r.reduce_scatter(comm, alg, op, in, out, block); });
}

void scan(ShimComm& comm, std::size_t alg, const ElementOp& op, const void* in, void* out, std::size_t n,
          bool exclusive)
{
  with_size(op.size, [&](auto r) { r.scan(comm, alg, op, in, out, n, exclusive); });
}

} // namespace collectives::pmpi::engine
