#pragma once
// Reduction operators, type-erased: an MPI operator on an MPI datatype becomes one
// function on raw elements, with MPI's convention inout[i] = in[i] op inout[i] (`in`
// holds the lower ranks' contribution). This header is the one place that wraps MPI's
// operators (predefined ones natively, MPI_Op_create's user functions, and others through
// MPI_Reduce_local) into the library's operator interface (ElementFn below).
//
// The library takes operators in an array form (collectives::array_operator:
// apply(in, inout, n) sets inout[i] = in[i] op inout[i], MPI's own convention), so
// ElementFn hands ElementOp whole blocks: one call per block, not one per element.

#include <collectives/transport/mpi.hpp> // <mpi.h>, without the MPI-2 C++ bindings

#include <collectives/algorithm/operators.hpp>

#include <cstddef>
#include <cstring>

namespace collectives::pmpi {

/// An MPI operator on one datatype, as a function on raw elements of `size` bytes.
struct ElementOp {
  /// inout[i] = in[i] op inout[i] for i < n; elements `size` bytes apart, any alignment.
  using Fn = void (*)(const void* in, void* inout, std::size_t n, const ElementOp& self);
  Fn fn = nullptr;
  std::size_t size = 0;      ///< bytes per element (the datatype's extent)
  std::size_t tail_pad = 0;  ///< bytes of padding after each element's data (MINLOC pairs)
  std::size_t gap_at = 0;    ///< a pair's padding between value and index: where it starts,
  std::size_t gap = 0;       ///< and its bytes (MPI_SHORT_INT); MPI writes no padding
  bool commutative = true;   ///< false: results must be the rank-order fold
  MPI_User_function* user = nullptr; ///< user operators (MPI_Op_create)
  MPI_Op op = MPI_OP_NULL;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  const char* source = "";   ///< "predefined", "user function", "MPI_Reduce_local" (for reports)

  void apply(const void* in, void* inout, std::size_t n) const { fn(in, inout, n, *this); }
};

/// An element of N bytes, aligned to 1 so that any user buffer can be viewed as an array of them.
template <std::size_t N>
struct Element {
  std::byte bytes[N];
};

/// The library's operator on Element<N>, in the array form: apply(in, inout, n) sets
/// inout[i] = in[i] op inout[i], `in` from the lower ranks.
template <std::size_t N>
struct ElementFn {
  const ElementOp* op;
  void apply(const Element<N>* in, Element<N>* inout, std::size_t n) const { op->fn(in, inout, n, *op); }
};

/// The outcome of resolve_op(): an operator to run, or why the call goes to Open MPI.
struct OpResolution {
  ElementOp op{};
  const char* forward = nullptr; ///< non-null: the reason to forward
};

/// The element function for `op` on `type`. Forwarded (with a reason): MPI_OP_NULL or
/// MPI_DATATYPE_NULL (MPI reports the error), MPI_REPLACE and MPI_NO_OP, a predefined
/// operator on a datatype it is not defined on or on a derived datatype, a user operator
/// on a datatype with gaps, elements of a size the shim is not compiled for
/// (supported_element_size).
OpResolution resolve_op(MPI_Op op, MPI_Datatype type);

/// True when the shim is compiled for reductions over elements of n bytes with an
/// operator that is (or is not) commutative: 4, 8, 16 and 32 bytes, and 1 and 2 bytes for
/// commutative operators (the predefined ones on small integers; user operators on so
/// small elements are rare, and each size costs compile time).
constexpr bool supported_element_size(std::size_t n, bool commutative)
{
  return n == 4 || n == 8 || n == 16 || n == 32 || (commutative && (n == 1 || n == 2));
}

/// Remembers the function of a user operator (MPI_Op_create).
void remember_user_op(MPI_Op op, MPI_User_function* fn, bool commute);
/// Forgets it (MPI_Op_free).
void forget_user_op(MPI_Op op);

} // namespace collectives::pmpi
