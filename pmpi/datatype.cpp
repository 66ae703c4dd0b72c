// The predefined datatype table, datatype layouts, packing.

#include "datatype.hpp"
#include "values.hpp"

#include <collectives/transport/mpi.hpp>

#include <climits>
#include <algorithm>
#include <functional>
#include <mutex>
#include <shared_mutex>
#include <unordered_set>
#include <utility>
#include <vector>

namespace collectives::pmpi {

namespace {

struct Entry {
  MPI_Datatype type;
  ValueType value;
  TypeClass cls;
};

// Sorted by handle: a binary search is a few comparisons on every call of the shim.
std::vector<std::pair<MPI_Datatype, PredefinedType>>& table()
{
  static std::vector<std::pair<MPI_Datatype, PredefinedType>> t;
  return t;
}

bool handle_less(const std::pair<MPI_Datatype, PredefinedType>& a, MPI_Datatype b)
{
  return std::less<>{}(a.first, b);
}

} // namespace

void init_datatypes()
{
  using V = ValueType;
  using C = TypeClass;
  const Entry entries[] = {
    // C integers (MPI 3.1 5.9.2 "C integer")
    {MPI_SIGNED_CHAR, V::i8, C::c_integer},
    {MPI_UNSIGNED_CHAR, V::u8, C::c_integer},
    {MPI_SHORT, V::i16, C::c_integer},
    {MPI_UNSIGNED_SHORT, V::u16, C::c_integer},
    {MPI_INT, V::i32, C::c_integer},
    {MPI_UNSIGNED, V::u32, C::c_integer},
    {MPI_LONG, sizeof(long) == 8 ? V::i64 : V::i32, C::c_integer},
    {MPI_UNSIGNED_LONG, sizeof(long) == 8 ? V::u64 : V::u32, C::c_integer},
    {MPI_LONG_LONG, V::i64, C::c_integer},
    {MPI_UNSIGNED_LONG_LONG, V::u64, C::c_integer},
    {MPI_INT8_T, V::i8, C::c_integer},
    {MPI_INT16_T, V::i16, C::c_integer},
    {MPI_INT32_T, V::i32, C::c_integer},
    {MPI_INT64_T, V::i64, C::c_integer},
    {MPI_UINT8_T, V::u8, C::c_integer},
    {MPI_UINT16_T, V::u16, C::c_integer},
    {MPI_UINT32_T, V::u32, C::c_integer},
    {MPI_UINT64_T, V::u64, C::c_integer},
    // Fortran integers
    {MPI_INTEGER, V::i32, C::fortran_integer},
    {MPI_INTEGER1, V::i8, C::fortran_integer},
    {MPI_INTEGER2, V::i16, C::fortran_integer},
    {MPI_INTEGER4, V::i32, C::fortran_integer},
    {MPI_INTEGER8, V::i64, C::fortran_integer},
    // Floating point
    {MPI_FLOAT, V::f32, C::floating},
    {MPI_DOUBLE, V::f64, C::floating},
    {MPI_LONG_DOUBLE, V::f80, C::floating},
    {MPI_REAL, V::f32, C::floating},
    {MPI_DOUBLE_PRECISION, V::f64, C::floating},
    {MPI_REAL4, V::f32, C::floating},
    {MPI_REAL8, V::f64, C::floating},
    // Complex
    {MPI_C_FLOAT_COMPLEX, V::c32, C::complex},
    {MPI_C_DOUBLE_COMPLEX, V::c64, C::complex},
    {MPI_C_LONG_DOUBLE_COMPLEX, V::c80, C::complex},
    {MPI_CXX_FLOAT_COMPLEX, V::c32, C::complex},
    {MPI_CXX_DOUBLE_COMPLEX, V::c64, C::complex},
    {MPI_CXX_LONG_DOUBLE_COMPLEX, V::c80, C::complex},
    {MPI_COMPLEX, V::c32, C::complex},
    {MPI_DOUBLE_COMPLEX, V::c64, C::complex},
    {MPI_COMPLEX8, V::c32, C::complex},
    {MPI_COMPLEX16, V::c64, C::complex},
    // Logical (C/C++ bool; Fortran LOGICAL's truth values are the compiler's: left to MPI)
    {MPI_C_BOOL, V::boolean, C::logical},
    {MPI_CXX_BOOL, V::boolean, C::logical},
    // Byte
    {MPI_BYTE, V::byte, C::byte},
    // Not the multi-language types MPI_AINT, MPI_OFFSET, MPI_COUNT: their C types vary
    // between MPIs (Open MPI 4.1 reduces MPI_OFFSET as unsigned), so MPI reduces them.
    // MINLOC/MAXLOC pairs
    {MPI_FLOAT_INT, V::float_int, C::pair},
    {MPI_DOUBLE_INT, V::double_int, C::pair},
    {MPI_LONG_INT, V::long_int, C::pair},
    {MPI_2INT, V::two_int, C::pair},
    {MPI_SHORT_INT, V::short_int, C::pair},
    {MPI_LONG_DOUBLE_INT, V::long_double_int, C::pair},
    {MPI_2REAL, V::two_float, C::pair},
    {MPI_2DOUBLE_PRECISION, V::two_double, C::pair},
    {MPI_2INTEGER, V::two_int, C::pair},
  };
  auto& t = table();
  t.clear();
  for (const Entry& e : entries) {
    // Only where this MPI lays the type out as the C type (e.g. a Fortran INTEGER of 8
    // bytes, or a type of size 0 when Open MPI was built without Fortran, is left out).
    MPI_Count size = 0;
    MPI_Count lb = 0, extent = 0;
    if (PMPI_Type_size_x(e.type, &size) != MPI_SUCCESS) continue;
    if (PMPI_Type_get_extent_x(e.type, &lb, &extent) != MPI_SUCCESS) continue;
    if (lb != 0 || static_cast<std::size_t>(extent) != value_extent(e.value) || size <= 0 ||
        static_cast<std::size_t>(size) != value_size(e.value))
      continue;
    const auto at = std::lower_bound(t.begin(), t.end(), e.type, handle_less);
    if (at == t.end() || at->first != e.type) t.insert(at, {e.type, PredefinedType{e.value, e.cls}});
  }
}

const PredefinedType* predefined(MPI_Datatype type)
{
  const auto& t = table();
  const auto it = std::lower_bound(t.begin(), t.end(), type, handle_less);
  return it == t.end() || it->first != type ? nullptr : &it->second;
}

namespace {

std::shared_mutex committed_mutex;
std::unordered_set<MPI_Datatype>& committed_types()
{
  static std::unordered_set<MPI_Datatype> s;
  return s;
}

} // namespace

void remember_committed(MPI_Datatype type)
{
  std::unique_lock lock(committed_mutex);
  committed_types().insert(type);
}

void forget_committed(MPI_Datatype type)
{
  std::unique_lock lock(committed_mutex);
  committed_types().erase(type);
}

bool committed(MPI_Datatype type)
{
  if (predefined(type) != nullptr) return true;
  {
    std::shared_lock lock(committed_mutex);
    if (committed_types().count(type) != 0) return true;
  }
  int ints = 0, addresses = 0, types = 0, combiner = MPI_UNDEFINED;
  if (PMPI_Type_get_envelope(type, &ints, &addresses, &types, &combiner) != MPI_SUCCESS) return false;
  return combiner == MPI_COMBINER_NAMED || combiner == MPI_COMBINER_F90_REAL ||
         combiner == MPI_COMBINER_F90_COMPLEX || combiner == MPI_COMBINER_F90_INTEGER;
}

TypeLayout layout_of(MPI_Datatype type)
{
  TypeLayout l;
  if (type == MPI_DATATYPE_NULL) return l;
  if (const PredefinedType* p = predefined(type)) {
    l.size = value_size(p->value);
    l.extent = value_extent(p->value);
    l.true_extent = value_true_extent(p->value);
    l.dense = l.size == l.extent && l.true_extent == l.extent;
    l.ok = true;
    return l;
  }
  if (!committed(type)) return l;
  MPI_Count size = 0, lb = 0, extent = 0, tlb = 0, textent = 0;
  if (PMPI_Type_size_x(type, &size) != MPI_SUCCESS || size == MPI_UNDEFINED || size < 0) return l;
  if (PMPI_Type_get_extent_x(type, &lb, &extent) != MPI_SUCCESS || extent < 0) return l;
  if (PMPI_Type_get_true_extent_x(type, &tlb, &textent) != MPI_SUCCESS || textent < 0) return l;
  l.size = static_cast<std::size_t>(size);
  l.extent = static_cast<std::size_t>(extent);
  l.true_extent = static_cast<std::size_t>(textent);
  l.dense = lb == 0 && tlb == 0 && size == extent && textent == extent;
  l.ok = true;
  return l;
}

namespace {

// Elements per PMPI_Pack/Unpack call: MPI's counts and positions are int.
std::size_t elements_per_piece(const TypeLayout& layout)
{
  const std::size_t by_size = layout.size == 0 ? INT_MAX : static_cast<std::size_t>(INT_MAX) / layout.size;
  return std::max<std::size_t>(1, std::min<std::size_t>(by_size, INT_MAX));
}

} // namespace

void pack(const void* buf, std::size_t count, MPI_Datatype type, const TypeLayout& layout, std::byte* out,
          MPI_Comm comm)
{
  const std::size_t step = elements_per_piece(layout);
  const auto* at = static_cast<const std::byte*>(buf);
  for (std::size_t done = 0; done < count;) {
    const std::size_t n = std::min(step, count - done);
    const std::size_t bytes = n * layout.size;
    int position = 0;
    mpi::detail::check(PMPI_Pack(at, static_cast<int>(n), type, out, static_cast<int>(bytes), &position, comm),
                       "MPI_Pack", 0);
    if (static_cast<std::size_t>(position) != bytes)
      throw mpi::Error(MPI_ERR_INTERN, "MPI_Pack",
                       "collectives-pmpi: MPI_Pack gave " + std::to_string(position) + " bytes for " +
                         std::to_string(bytes) + " bytes of data; the shim needs packed data without headers");
    out += bytes;
    at += n * layout.extent;
    done += n;
  }
}

void unpack(const std::byte* in, std::size_t count, MPI_Datatype type, const TypeLayout& layout, void* buf,
            MPI_Comm comm)
{
  const std::size_t step = elements_per_piece(layout);
  auto* at = static_cast<std::byte*>(buf);
  for (std::size_t done = 0; done < count;) {
    const std::size_t n = std::min(step, count - done);
    const std::size_t bytes = n * layout.size;
    int position = 0;
    mpi::detail::check(PMPI_Unpack(in, static_cast<int>(bytes), &position, at, static_cast<int>(n), type, comm),
                       "MPI_Unpack", 0);
    in += bytes;
    at += n * layout.extent;
    done += n;
  }
}

} // namespace collectives::pmpi
