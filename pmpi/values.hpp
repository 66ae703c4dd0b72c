#pragma once
// The C types behind the predefined datatypes the shim reduces (datatype.hpp's ValueType),
// laid out as MPI lays them out on this platform.

#include "datatype.hpp"

#include <complex>
#include <cstddef>
#include <cstdint>

namespace collectives::pmpi::values {

// The MINLOC/MAXLOC pairs, as the C structs they describe (value, then index).
struct FloatInt { float v; int i; };
struct DoubleInt { double v; int i; };
struct LongInt { long v; int i; };
struct TwoInt { int v; int i; };
struct ShortInt { short v; int i; };
struct LongDoubleInt { long double v; int i; };
struct TwoFloat { float v; float i; };   // MPI_2REAL: the index is a REAL too
struct TwoDouble { double v; double i; };

/// Calls f(T{}) with the C type of v.
template <class F>
decltype(auto) with_value_type(ValueType v, F&& f)
{
  switch (v) {
  case ValueType::i8: return f(std::int8_t{});
  case ValueType::i16: return f(std::int16_t{});
  case ValueType::i32: return f(std::int32_t{});
  case ValueType::i64: return f(std::int64_t{});
  case ValueType::u8: return f(std::uint8_t{});
  case ValueType::u16: return f(std::uint16_t{});
  case ValueType::u32: return f(std::uint32_t{});
  case ValueType::u64: return f(std::uint64_t{});
  case ValueType::f32: return f(float{});
  case ValueType::f64: return f(double{});
  case ValueType::f80: return f(static_cast<long double>(0));
  case ValueType::c32: return f(std::complex<float>{});
  case ValueType::c64: return f(std::complex<double>{});
  case ValueType::c80: return f(std::complex<long double>{});
  case ValueType::boolean: return f(bool{});
  case ValueType::byte: return f(std::byte{});
  case ValueType::float_int: return f(FloatInt{});
  case ValueType::double_int: return f(DoubleInt{});
  case ValueType::long_int: return f(LongInt{});
  case ValueType::two_int: return f(TwoInt{});
  case ValueType::short_int: return f(ShortInt{});
  case ValueType::long_double_int: return f(LongDoubleInt{});
  case ValueType::two_float: return f(TwoFloat{});
  case ValueType::two_double: return f(TwoDouble{});
  }
  return f(std::byte{});
}

template <class T>
constexpr std::size_t data_bytes()
{
  if constexpr (requires(T t) { t.v; t.i; }) return sizeof(T{}.v) + sizeof(T{}.i);
  else return sizeof(T);
}

/// Bytes between a pair's value and its index (MPI_SHORT_INT's 2), which MPI never writes.
template <class T>
constexpr std::size_t inner_gap()
{
  if constexpr (requires(T t) { t.v; t.i; }) return offsetof(T, i) - sizeof(T{}.v);
  else return 0;
}

template <class T>
constexpr std::size_t true_extent()
{
  if constexpr (requires(T t) { t.v; t.i; }) return offsetof(T, i) + sizeof(T{}.i);
  else return sizeof(T);
}

} // namespace collectives::pmpi::values

namespace collectives::pmpi {

/// Bytes of data of one element (MPI_Type_size).
inline std::size_t value_size(ValueType v)
{
  return values::with_value_type(v, [](auto x) { return values::data_bytes<decltype(x)>(); });
}
/// Bytes from one element to the next (MPI's extent: sizeof the C type).
inline std::size_t value_extent(ValueType v)
{
  return values::with_value_type(v, [](auto x) { return sizeof(x); });
}
/// Bytes from the first byte of data to the last, plus one.
inline std::size_t value_true_extent(ValueType v)
{
  return values::with_value_type(v, [](auto x) { return values::true_extent<decltype(x)>(); });
}
/// A MINLOC/MAXLOC pair's padding between its value and its index: where it starts and
/// its bytes ({0, 0} for the rest, and the pairs without).
struct InnerGap {
  std::size_t at = 0, bytes = 0;
};
inline InnerGap value_inner_gap(ValueType v)
{
  return values::with_value_type(v, [](auto x) {
    using T = decltype(x);
    const std::size_t bytes = values::inner_gap<T>();
    if constexpr (requires(T t) { t.v; }) return InnerGap{bytes == 0 ? 0 : sizeof(T{}.v), bytes};
    else return InnerGap{};
  });
}

} // namespace collectives::pmpi
