// The combine kernels (detail::make_reducer's fn and fn3), compiled as a user's optimised
// build compiles them (tests/CMakeLists.txt gives this family -O2, where the debug presets
// build the rest at -O0): their blocked loops vectorised, and, on x86-64 without -mavx2,
// their AVX2 copies that a CPU with AVX2 runs (detail/vector_isa.hpp). Every mode against
// the element loop, bit for bit.

#include <catch2/catch.hpp>

#include <collectives/execution/executor.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

using namespace collectives;

namespace {

/// The combine kernels (detail::make_reducer's fn and fn3), which run their loops in blocks
/// of detail::combine_block<T> elements and then the rest: every mode against the element
/// loop, for lengths around the block (none, part, one, several, with a rest), with an
/// operator whose operand order shows (2a - b), for element sizes 1 to 64 bytes.
template <class T>
void check_combine_kernels()
{
  const auto op = [](const T& a, const T& b) { return static_cast<T>(2 * a - b); };
  const detail::Reducer red = detail::make_reducer<T>(op);
  constexpr std::size_t blk = detail::combine_block<T>;
  for (const std::size_t n : {std::size_t{0}, std::size_t{1}, blk - 1, blk, blk + 1, 3 * blk + 5}) {
    std::vector<T> src(n), dst(n);
    for (std::size_t i = 0; i < n; ++i) {
      src[i] = static_cast<T>(i % 7 + 1);
      dst[i] = static_cast<T>(i % 5 + 3);
    }
    for (const Combine how : {Combine::left, Combine::right, Combine::copy}) {
      std::vector<T> got = dst;
      red.fn(red.op, reinterpret_cast<std::byte*>(got.data()), reinterpret_cast<const std::byte*>(src.data()), n, how);
      for (std::size_t i = 0; i < n; ++i) {
        const T want = how == Combine::left ? op(src[i], dst[i]) : how == Combine::right ? op(dst[i], src[i]) : src[i];
        INFO("element of " << sizeof(T) << " bytes, n = " << n << ", mode " << static_cast<int>(how) << ", i = " << i);
        REQUIRE(got[i] == want);
      }
    }
    std::vector<T> out(n + 1, static_cast<T>(99)); // one past the end stays as it was
    red.fn3(red.op, reinterpret_cast<std::byte*>(out.data()), reinterpret_cast<const std::byte*>(src.data()),
            reinterpret_cast<const std::byte*>(dst.data()), n);
    for (std::size_t i = 0; i < n; ++i) REQUIRE(out[i] == op(src[i], dst[i]));
    REQUIRE(out[n] == static_cast<T>(99));
  }
}

/// An element of 64 bytes (blocks of one) with the arithmetic the check uses.
struct Wide {
  std::array<std::int64_t, 8> v{};
  Wide() = default;
  Wide(std::int64_t x) { v.fill(x); } // NOLINT: converts, as the check's static_casts need
  friend Wide operator*(std::int64_t k, const Wide& a)
  {
    Wide r;
    for (std::size_t i = 0; i < 8; ++i) r.v[i] = k * a.v[i];
    return r;
  }
  friend Wide operator-(const Wide& a, const Wide& b)
  {
    Wide r;
    for (std::size_t i = 0; i < 8; ++i) r.v[i] = a.v[i] - b.v[i];
    return r;
  }
  friend bool operator==(const Wide&, const Wide&) = default;
};

} // namespace

TEST_CASE("reductions: the combine kernels' blocked loops equal the element loop, every mode", "[reductions][kernels]")
{
  check_combine_kernels<std::int8_t>();
  check_combine_kernels<std::int32_t>();
  check_combine_kernels<double>();
  check_combine_kernels<Wide>();
}

TEST_CASE("reductions: the combine kernels run with AVX2 where the CPU has it, bit for bit as the baseline loop",
          "[reductions][kernels]")
{
#if COLLECTIVES_DETAIL_AVX2_DISPATCH
  // A build without -mavx2 on x86-64: the kernels take their AVX2 copies on a CPU with it.
  CHECK(detail::combines_with_avx2() == (__builtin_cpu_supports("avx2") != 0));
#else
  CHECK_FALSE(detail::combines_with_avx2());
#endif
  // a * 3.1 + b, rounded twice: a kernel contracted to one fused multiply-add would differ
  // in the last bit for many of these values (and from a rank without FMA).
  const auto op = [](double a, double b) { return a * 3.1 + b; };
  const detail::Reducer red = detail::make_reducer<double>(op);
  for (const std::size_t n : {std::size_t{1}, std::size_t{15}, std::size_t{16}, std::size_t{1000}, std::size_t{4099}}) {
    std::vector<double> src(n), dst(n);
    for (std::size_t i = 0; i < n; ++i) {
      src[i] = 1.0 / static_cast<double>(i + 3) + 1e-3 * static_cast<double>(i);
      dst[i] = -2.0 / static_cast<double>(2 * i + 7);
    }
    for (const Combine how : {Combine::left, Combine::right}) {
      std::vector<double> got = dst, want = dst;
      red.fn(red.op, reinterpret_cast<std::byte*>(got.data()), reinterpret_cast<const std::byte*>(src.data()), n, how);
      if (how == Combine::left) detail::combine_elements<true>(want.data(), src.data(), n, op);
      else detail::combine_elements<false>(want.data(), src.data(), n, op);
      INFO("n = " << n << ", mode " << static_cast<int>(how));
      CHECK(std::memcmp(got.data(), want.data(), n * sizeof(double)) == 0);
    }
    std::vector<double> got(n), want(n);
    red.fn3(red.op, reinterpret_cast<std::byte*>(got.data()), reinterpret_cast<const std::byte*>(src.data()),
            reinterpret_cast<const std::byte*>(dst.data()), n);
    detail::combine_elements3(want.data(), src.data(), dst.data(), n, op);
    CHECK(std::memcmp(got.data(), want.data(), n * sizeof(double)) == 0);
  }
}

TEST_CASE("reductions: NoCombine's kernel is b (right and copy copy, left leaves dst)", "[reductions][kernels]")
{
  const NoCombine op;
  const detail::Reducer red = detail::make_reducer<std::int32_t>(op);
  CHECK(red.fn3 == nullptr); // a call that never combines has no three-operand kernel
  const std::vector<std::int32_t> src{1, 2, 3, 4, 5}, dst0{9, 8, 7, 6, 5};
  for (const Combine how : {Combine::left, Combine::right, Combine::copy}) {
    std::vector<std::int32_t> dst = dst0;
    red.fn(red.op, reinterpret_cast<std::byte*>(dst.data()), reinterpret_cast<const std::byte*>(src.data()), 4, how);
    std::vector<std::int32_t> want = dst0;
    for (std::size_t i = 0; i < 4; ++i)
      want[i] = how == Combine::left ? op(src[i], dst0[i]) : op(dst0[i], src[i]); // copy: as right
    INFO("mode " << static_cast<int>(how));
    CHECK(dst == want);
  }
}
