// The predefined operators on the predefined types, natively; user operators through their
// functions (remembered at MPI_Op_create) or, for operators created elsewhere,
// MPI_Reduce_local.

#include "element_op.hpp"

#include "datatype.hpp"
#include "values.hpp"

#include <collectives/detail/vector_isa.hpp>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <limits>
#include <complex>
#include <mutex>
#include <shared_mutex>
#include <type_traits>
#include <unordered_map>

namespace collectives::pmpi {

namespace {

enum class OpKind { max, min, sum, prod, land, band, lor, bor, lxor, bxor, maxloc, minloc };

template <class T>
constexpr bool is_pair = requires(T t) { t.v; t.i; };

template <class T>
constexpr bool is_complex = false;
template <class T>
constexpr bool is_complex<std::complex<T>> = true;

// Integer + and * wrap around as two's complement (signed overflow would be undefined).
template <class T>
T wrap_sum(T a, T b)
{
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
}
template <class T>
T wrap_prod(T a, T b)
{
  // Promote to at least unsigned int so that, e.g., uint16 * uint16 does not overflow int.
  using U = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
}

// x: the in element (lower ranks), y: the inout element; returns x op y.
template <OpKind K, class T>
T combine(const T& x, const T& y)
{
  if constexpr (K == OpKind::maxloc || K == OpKind::minloc) {
    static_assert(is_pair<T>);
    const bool better = K == OpKind::maxloc ? x.v > y.v : x.v < y.v;
    if (better) return x;
    if (x.v == y.v) {
      T r = y;
      r.i = std::min(x.i, y.i);
      return r;
    }
    return y;
  } else if constexpr (std::is_same_v<T, std::byte>) {
    if constexpr (K == OpKind::band) return x & y;
    else if constexpr (K == OpKind::bor) return x | y;
    else return x ^ y;
  } else if constexpr (K == OpKind::max) {
    return x > y ? x : y;
  } else if constexpr (K == OpKind::min) {
    return x < y ? x : y;
  } else if constexpr (K == OpKind::sum) {
    if constexpr (std::is_integral_v<T>) return wrap_sum(x, y);
    else return x + y;
  } else if constexpr (K == OpKind::prod) {
    if constexpr (std::is_integral_v<T>) return wrap_prod(x, y);
    else return x * y;
  } else if constexpr (K == OpKind::land) {
    return static_cast<T>((x != T{}) && (y != T{}));
  } else if constexpr (K == OpKind::lor) {
    return static_cast<T>((x != T{}) || (y != T{}));
  } else if constexpr (K == OpKind::lxor) {
    return static_cast<T>((x != T{}) != (y != T{}));
  } else if constexpr (K == OpKind::band) {
    return static_cast<T>(x & y);
  } else if constexpr (K == OpKind::bor) {
    return static_cast<T>(x | y);
  } else {
    return static_cast<T>(x ^ y);
  }
}

// Bytes of a long double that hold its value (10 of 16 for x87's extended precision):
// the rest is padding, which MPI's operators leave as it is.
constexpr std::size_t long_double_bytes =
  std::numeric_limits<long double>::digits == 64 ? 10 : sizeof(long double);

// Stores the value of r at `to` without writing padding bytes (struct padding, the unused
// bytes of a long double), as MPI's own operators do.
template <class T>
void store(std::byte* to, const T& r)
{
  if constexpr (is_pair<T>) {
    store(to + offsetof(T, v), r.v);
    store(to + offsetof(T, i), r.i);
  } else if constexpr (std::is_same_v<T, long double>) {
    std::memcpy(to, &r, long_double_bytes);
  } else if constexpr (std::is_same_v<T, std::complex<long double>>) {
    store(to, r.real());
    store(to + sizeof(long double), r.imag());
  } else {
    std::memcpy(to, static_cast<const void*>(&r), sizeof(T));
  }
}

// inout[i] = in[i] op inout[i], in blocks of combine_block<T> elements and then the rest (as
// the library's combine kernels: collectives/detail/vector_isa.hpp). Vectorised at -O3, and
// by clang++ at -O2; g++ 12 at -O2 leaves these element-by-element copies scalar (whole
// blocks copied through arrays vectorise there, but were 1.2-2.1x slower at -O3).
template <OpKind K, class T>
void apply_loop(const void* in, void* inout, std::size_t n)
{
  const auto* a = static_cast<const std::byte*>(in);
  auto* b = static_cast<std::byte*>(inout);
  const auto one = [&](std::size_t i) {
    T x, y; // copied: the buffers need not be aligned for T
    std::memcpy(static_cast<void*>(&x), a + i * sizeof(T), sizeof(T));
    std::memcpy(static_cast<void*>(&y), b + i * sizeof(T), sizeof(T));
    store(b + i * sizeof(T), combine<K, T>(x, y));
  };
  constexpr std::size_t block = collectives::detail::combine_block<T>;
  std::size_t i = 0;
  for (; i + block <= n; i += block) {
#pragma GCC unroll 16
    for (std::size_t k = 0; k < block; ++k) one(i + k);
  }
  for (; i < n; ++i) one(i);
}

#if COLLECTIVES_DETAIL_AVX2_DISPATCH
// apply_loop compiled for AVX2 (collectives/detail/vector_isa.hpp).
template <OpKind K, class T>
COLLECTIVES_DETAIL_AVX2_FUNCTION void apply_loop_avx2(const void* in, void* inout, std::size_t n)
{
  apply_loop<K, T>(in, inout, n);
}
#endif

template <OpKind K, class T>
void apply_native(const void* in, void* inout, std::size_t n, const ElementOp&)
{
#if COLLECTIVES_DETAIL_AVX2_DISPATCH
  // With AVX2 where the CPU has it, from one block on (as the library's kernels).
  if (n >= collectives::detail::combine_block<T> && collectives::detail::combines_with_avx2())
    return apply_loop_avx2<K, T>(in, inout, n);
#endif
  apply_loop<K, T>(in, inout, n);
}

// Which operators MPI defines on which groups of types (MPI 3.1, 5.9.2).
bool defined(OpKind k, TypeClass c)
{
  using C = TypeClass;
  switch (k) {
  case OpKind::max:
  case OpKind::min: return c == C::c_integer || c == C::fortran_integer || c == C::floating;
  case OpKind::sum:
  case OpKind::prod:
    return c == C::c_integer || c == C::fortran_integer || c == C::floating || c == C::complex;
  case OpKind::land:
  case OpKind::lor:
  case OpKind::lxor: return c == C::c_integer || c == C::logical;
  case OpKind::band:
  case OpKind::bor:
  case OpKind::bxor: return c == C::c_integer || c == C::fortran_integer || c == C::byte;
  case OpKind::maxloc:
  case OpKind::minloc: return c == C::pair;
  }
  return false;
}

template <class T>
ElementOp::Fn native_fn(OpKind k)
{
  // Only the (operator, type) pairs `defined` allows are ever asked for; the others are
  // not instantiated (they would not compile: < on complex, & on float, ...).
  if constexpr (is_pair<T>) {
    return k == OpKind::maxloc ? &apply_native<OpKind::maxloc, T> : &apply_native<OpKind::minloc, T>;
  } else if constexpr (std::is_same_v<T, std::byte>) {
    return k == OpKind::band ? &apply_native<OpKind::band, T>
           : k == OpKind::bor ? &apply_native<OpKind::bor, T>
                              : &apply_native<OpKind::bxor, T>;
  } else if constexpr (is_complex<T>) {
    return k == OpKind::sum ? &apply_native<OpKind::sum, T> : &apply_native<OpKind::prod, T>;
  } else if constexpr (std::is_same_v<T, bool>) {
    return k == OpKind::land ? &apply_native<OpKind::land, T>
           : k == OpKind::lor ? &apply_native<OpKind::lor, T>
                              : &apply_native<OpKind::lxor, T>;
  } else if constexpr (std::is_floating_point_v<T>) {
    switch (k) {
    case OpKind::max: return &apply_native<OpKind::max, T>;
    case OpKind::min: return &apply_native<OpKind::min, T>;
    case OpKind::sum: return &apply_native<OpKind::sum, T>;
    default: return &apply_native<OpKind::prod, T>;
    }
  } else {
    switch (k) {
    case OpKind::max: return &apply_native<OpKind::max, T>;
    case OpKind::min: return &apply_native<OpKind::min, T>;
    case OpKind::sum: return &apply_native<OpKind::sum, T>;
    case OpKind::prod: return &apply_native<OpKind::prod, T>;
    case OpKind::land: return &apply_native<OpKind::land, T>;
    case OpKind::lor: return &apply_native<OpKind::lor, T>;
    case OpKind::lxor: return &apply_native<OpKind::lxor, T>;
    case OpKind::band: return &apply_native<OpKind::band, T>;
    case OpKind::bor: return &apply_native<OpKind::bor, T>;
    default: return &apply_native<OpKind::bxor, T>;
    }
  }
}

bool predefined_op(MPI_Op op, OpKind& kind, bool& forward_only)
{
  forward_only = false;
  const struct {
    MPI_Op op;
    OpKind kind;
  } ops[] = {{MPI_MAX, OpKind::max},       {MPI_MIN, OpKind::min},       {MPI_SUM, OpKind::sum},
             {MPI_PROD, OpKind::prod},     {MPI_LAND, OpKind::land},     {MPI_BAND, OpKind::band},
             {MPI_LOR, OpKind::lor},       {MPI_BOR, OpKind::bor},       {MPI_LXOR, OpKind::lxor},
             {MPI_BXOR, OpKind::bxor},     {MPI_MAXLOC, OpKind::maxloc}, {MPI_MINLOC, OpKind::minloc}};
  for (const auto& o : ops)
    if (o.op == op) {
      kind = o.kind;
      return true;
    }
  if (op == MPI_REPLACE || op == MPI_NO_OP) {
    forward_only = true;
    return true;
  }
  return false;
}

// User operators -------------------------------------------------------------------------

struct UserOp {
  MPI_User_function* fn;
  bool commute;
};

std::shared_mutex user_ops_mutex;
std::unordered_map<MPI_Op, UserOp>& user_ops()
{
  static std::unordered_map<MPI_Op, UserOp> ops;
  return ops;
}

void apply_user(const void* in, void* inout, std::size_t n, const ElementOp& self)
{
  auto* a = const_cast<std::byte*>(static_cast<const std::byte*>(in)); // MPI's signature; never written
  auto* b = static_cast<std::byte*>(inout);
  MPI_Datatype type = self.type;
  while (n > 0) {
    int len = static_cast<int>(std::min<std::size_t>(n, INT_MAX));
    self.user(a, b, &len, &type);
    n -= static_cast<std::size_t>(len);
    a += static_cast<std::size_t>(len) * self.size;
    b += static_cast<std::size_t>(len) * self.size;
  }
}

void apply_reduce_local(const void* in, void* inout, std::size_t n, const ElementOp& self)
{
  const auto* a = static_cast<const std::byte*>(in);
  auto* b = static_cast<std::byte*>(inout);
  while (n > 0) {
    const int len = static_cast<int>(std::min<std::size_t>(n, INT_MAX));
    const int rc = PMPI_Reduce_local(a, b, len, self.type, self.op);
    if (rc != MPI_SUCCESS) throw std::runtime_error("collectives-pmpi: MPI_Reduce_local failed");
    n -= static_cast<std::size_t>(len);
    a += static_cast<std::size_t>(len) * self.size;
    b += static_cast<std::size_t>(len) * self.size;
  }
}

} // namespace

void remember_user_op(MPI_Op op, MPI_User_function* fn, bool commute)
{
  std::unique_lock lock(user_ops_mutex);
  user_ops()[op] = UserOp{fn, commute};
}

void forget_user_op(MPI_Op op)
{
  std::unique_lock lock(user_ops_mutex);
  user_ops().erase(op);
}

OpResolution resolve_op(MPI_Op op, MPI_Datatype type)
{
  OpResolution r;
  if (op == MPI_OP_NULL) return {{}, "MPI_OP_NULL"};
  if (type == MPI_DATATYPE_NULL) return {{}, "MPI_DATATYPE_NULL"};
  OpKind kind{};
  bool forward_only = false;
  if (predefined_op(op, kind, forward_only)) {
    if (forward_only) return {{}, "MPI_REPLACE/MPI_NO_OP in a collective"};
    const PredefinedType* t = predefined(type);
    if (t == nullptr) return {{}, "predefined operator on a datatype the shim does not reduce"};
    if (!defined(kind, t->cls)) return {{}, "predefined operator not defined on the datatype"};
    r.op.fn = values::with_value_type(t->value, [&](auto x) { return native_fn<decltype(x)>(kind); });
    r.op.size = value_extent(t->value);
    r.op.tail_pad = r.op.size - value_true_extent(t->value);
    const InnerGap gap = value_inner_gap(t->value);
    r.op.gap_at = gap.at;
    r.op.gap = gap.bytes;
    r.op.commutative = true;
    r.op.op = op;
    r.op.type = type;
    r.op.source = "predefined";
  } else {
    const TypeLayout l = layout_of(type);
    if (!l.ok) return {{}, "invalid datatype"};
    const PredefinedType* t = predefined(type);
    if (!l.dense && !(t != nullptr && t->cls == TypeClass::pair))
      return {{}, "user operator on a datatype with gaps"};
    r.op.size = l.extent;
    r.op.tail_pad = l.extent - l.true_extent;
    if (t != nullptr) {
      const InnerGap gap = value_inner_gap(t->value);
      r.op.gap_at = gap.at;
      r.op.gap = gap.bytes;
    }
    r.op.op = op;
    r.op.type = type;
    {
      std::shared_lock lock(user_ops_mutex);
      const auto it = user_ops().find(op);
      if (it != user_ops().end()) {
        r.op.fn = &apply_user;
        r.op.user = it->second.fn;
        r.op.commutative = it->second.commute;
        r.op.source = "user function";
      }
    }
    if (r.op.fn == nullptr) {
      // Created before the shim was loaded or through another binding: MPI applies it.
      int commute = 0;
      if (PMPI_Op_commutative(op, &commute) != MPI_SUCCESS) return {{}, "invalid operator"};
      r.op.fn = &apply_reduce_local;
      r.op.commutative = commute != 0;
      r.op.source = "MPI_Reduce_local";
    }
  }
  if (!supported_element_size(r.op.size, r.op.commutative)) return {{}, "element size the shim is not compiled for"};
  return r;
}

} // namespace collectives::pmpi
