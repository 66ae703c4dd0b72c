#pragma once
// What the shim needs to know of an MPI datatype: its predefined kind (for the reduction
// operators), its size and extent, whether its elements lie back to back with no gaps
// ("dense": the bytes of count elements are one contiguous run), and packing of the others
// into that form.

#include <collectives/transport/mpi.hpp> // <mpi.h>, without the MPI-2 C++ bindings

#include <cstddef>
#include <cstdint>

namespace collectives::pmpi {

/// The C type behind a predefined datatype, for the predefined reduction operators.
enum class ValueType : std::uint8_t {
  i8, i16, i32, i64, u8, u16, u32, u64,
  f32, f64, f80,         ///< float, double, long double
  c32, c64, c80,         ///< float, double, long double _Complex
  boolean, byte,
  float_int, double_int, long_int, two_int, short_int, long_double_int, ///< MINLOC/MAXLOC pairs
  two_float, two_double,
};

/// The MPI standard's groups of basic datatypes, which say what operators apply (MPI 3.1, 5.9.2).
enum class TypeClass : std::uint8_t { c_integer, fortran_integer, floating, complex, logical, byte, pair };

/// A predefined datatype the shim reduces natively.
struct PredefinedType {
  ValueType value;
  TypeClass cls;
};

/// The predefined datatype `type`, or null (derived types, and those the shim leaves to
/// Open MPI: MPI_CHAR, MPI_WCHAR, MPI_LOGICAL, MPI_CHARACTER, MPI_REAL16, ...).
/// Thread-safe after init_datatypes().
const PredefinedType* predefined(MPI_Datatype type);

/// Builds the predefined table (checks every entry's size and extent against the C type,
/// so a type this MPI lays out otherwise is left out). Called once MPI is initialised.
void init_datatypes();

/// Size and layout of a datatype.
struct TypeLayout {
  std::size_t size = 0;   ///< bytes of data per element (MPI_Type_size)
  std::size_t extent = 0; ///< bytes from one element to the next
  std::size_t true_extent = 0;
  bool dense = false;     ///< lb = true lb = 0 and size = extent = true extent: no gaps
  bool ok = false;        ///< false: MPI could not tell (an invalid datatype); forward the call
};

/// The layout of `type` (a few PMPI queries for derived types); not ok for a derived
/// datatype the program has not committed (MPI_ERR_TYPE in Open MPI: forwarded).
TypeLayout layout_of(MPI_Datatype type);

/// Derived datatypes the program has committed (MPI_Type_commit, or MPI_Type_dup of a
/// committed one), until freed: MPI offers no query, so the shim keeps the list.
void remember_committed(MPI_Datatype type);
void forget_committed(MPI_Datatype type);
/// Whether `type` may be used in communication: predefined (MPI's named and Fortran
/// parameterised types) or remembered. Thread-safe.
bool committed(MPI_Datatype type);

/// Packs `count` elements of `type` at `buf` into `out` (count * size bytes, the bytes of
/// the elements in type-map order), in pieces that MPI's int sizes can take. Throws
/// collectives::mpi::Error if MPI fails or packs to another size.
void pack(const void* buf, std::size_t count, MPI_Datatype type, const TypeLayout& layout, std::byte* out,
          MPI_Comm comm);

/// The inverse of pack().
void unpack(const std::byte* in, std::size_t count, MPI_Datatype type, const TypeLayout& layout, void* buf,
            MPI_Comm comm);

} // namespace collectives::pmpi
