// The reductions for one element size; included by engine_reduce_*.cpp, each of which
// instantiates a few sizes (so the build spreads over cores).

#include "adapter.hpp"
#include "engine.hpp"

#include <span>
#include <stdexcept>

namespace collectives::pmpi::engine::detail {

namespace {

// Calls f(fn) with the library operator for `op`: commutative(ElementFn) when MPI may
// reorder it (every algorithm is then available), ElementFn otherwise (rank order).
// Elements of 1 and 2 bytes are compiled for commutative operators only (the predefined
// ones on small integers; resolve_op forwards user operators on them).
template <std::size_t N, class F>
void with_operator(const ElementOp& op, F&& f)
{
  if (op.commutative) f(commutative(ElementFn<N>{&op}));
  else if constexpr (supported_element_size(N, false)) f(ElementFn<N>{&op});
  else throw std::logic_error("collectives-pmpi: no non-commutative reductions of " + std::to_string(N) + "-byte elements");
}

// Calls f(tag) with algorithm `alg` of C, if it accepts the operator Fn (the caller has
// checked fits(), which refuses the others at run time).
template <Coll C, std::size_t N, class Fn, class F>
void with_reduction_algorithm(std::size_t alg, F&& f)
{
  constexpr bool comm = is_commutative_v<Fn, Element<N>>;
  algorithms::with_algorithm<C>(alg, [&](auto tag) {
    if constexpr (comm || algorithms::any_operator_v<C, decltype(tag)>)
      f(tag);
    else
      throw std::logic_error("collectives-pmpi: " + std::string(coll_name(C)) + " algorithm " +
                             std::string(decltype(tag)::name) + " needs a commutative operator");
  });
}

} // namespace

template <std::size_t N>
void Reductions<N>::reduce(ShimComm& comm, std::size_t alg, const ElementOp& op, const void* in, void* out,
                           std::size_t n, std::size_t root)
{
  using E = Element<N>;
  const std::span<const E> send(static_cast<const E*>(in), n);
  const std::span<E> recv(static_cast<E*>(out), out == nullptr ? 0 : n);
  with_operator<N>(op, [&](auto fn) {
    with_reduction_algorithm<Coll::reduce, N, decltype(fn)>(alg, [&](auto tag) {
      collectives::reduce(comm, send, recv, fn, root, tag);
    });
  });
}

template <std::size_t N>
void Reductions<N>::allreduce(ShimComm& comm, std::size_t alg, const ElementOp& op, const void* in, void* out,
                              std::size_t n)
{
  using E = Element<N>;
  const std::span<E> recv(static_cast<E*>(out), n);
  with_operator<N>(op, [&](auto fn) {
    with_reduction_algorithm<Coll::allreduce, N, decltype(fn)>(alg, [&](auto tag) {
      // MPI_IN_PLACE: the in-place call, or for an algorithm that cannot run in place the
      // same buffer as both (the library then stages the input).
      if constexpr (!decltype(tag)::needs.out_of_place)
        if (in == nullptr) return collectives::allreduce(comm, recv, fn, tag);
      const E* send = in == nullptr ? recv.data() : static_cast<const E*>(in);
      collectives::allreduce(comm, std::span<const E>(send, n), recv, fn, tag);
    });
  });
}

template <std::size_t N>
void Reductions<N>::reduce_scatter(ShimComm& comm, std::size_t alg, const ElementOp& op, const void* in, void* out,
                                   std::size_t block)
{
  using E = Element<N>;
  const std::size_t p = comm.size();
  with_operator<N>(op, [&](auto fn) {
    with_reduction_algorithm<Coll::reduce_scatter, N, decltype(fn)>(alg, [&](auto tag) {
      if (in == nullptr)
        collectives::reduce_scatter(comm, std::span<E>(static_cast<E*>(out), p * block), fn, tag);
      else
        collectives::reduce_scatter(comm, std::span<const E>(static_cast<const E*>(in), p * block),
                                    std::span<E>(static_cast<E*>(out), block), fn, tag);
    });
  });
}

template <std::size_t N>
void Reductions<N>::scan(ShimComm& comm, std::size_t alg, const ElementOp& op, const void* in, void* out,
                         std::size_t n, bool exclusive)
{
  using E = Element<N>;
  const std::span<E> recv(static_cast<E*>(out), n);
  with_operator<N>(op, [&](auto fn) {
    with_reduction_algorithm<Coll::scan, N, decltype(fn)>(alg, [&](auto tag) {
      if (in == nullptr) {
        if (exclusive) collectives::exscan(comm, recv, fn, tag);
        else collectives::scan(comm, recv, fn, tag);
      } else {
        const std::span<const E> send(static_cast<const E*>(in), n);
        if (exclusive) collectives::exscan(comm, send, recv, fn, tag);
        else collectives::scan(comm, send, recv, fn, tag);
      }
    });
  });
}

} // namespace collectives::pmpi::engine::detail
