// The combine kernels against the plain element loop and memcpy, on one thread, in the same
// run (a program that prints a table, not a test):
//
//   combine_kernels [--sizes 4K,32K,256K,1M] [--rounds R]
//
// For c = a op b (the kernel fn3: a reduction's last step into the result) and c = c op a
// (fn: a combining receive), each for double +, float +, int32 + and int64 *: the
// library's kernel as a collective calls it (through detail::make_reducer, with the AVX2
// copy on an x86-64 CPU that has AVX2 where the build's flags do not already allow it:
// detail/vector_isa.hpp), the same element loop compiled for this build's baseline, and
// memcpy of the same bytes. A cell is the best of R rounds of calls summing to about 10 ms,
// in us per call; "x" is loop / kernel (> 1: the kernel is faster) and "% memcpy" is memcpy
// / kernel. The first line says whether the AVX2 copies run. Every kernel's result is
// checked against the loop's, bit for bit (exit status 1 if one differs, 2 for a bad
// argument).

#include "harness.hpp" // parse_size

#include <collectives/execution/executor.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <functional>
#include <string>
#include <vector>

using namespace collectives;

namespace {

using Clock = std::chrono::steady_clock;

/// Best time per call of f over `rounds` rounds of about 10 ms each, in us.
template <class F>
double best_us(F&& f, int rounds)
{
  std::size_t n = 1;
  for (;;) { // calls per round: about 10 ms
    const auto t0 = Clock::now();
    for (std::size_t i = 0; i < n; ++i) f();
    if (Clock::now() - t0 > std::chrono::milliseconds(10) || n >= (std::size_t{1} << 24)) break;
    n *= 2;
  }
  double best = 1e300;
  for (int r = 0; r < rounds; ++r) {
    const auto t0 = Clock::now();
    for (std::size_t i = 0; i < n; ++i) f();
    best = std::min(best, std::chrono::duration<double, std::micro>(Clock::now() - t0).count() / double(n));
  }
  return best;
}

bool all_right = true;

template <class T, class Op>
void row(const char* name, std::size_t bytes, int rounds, Op op)
{
  const std::size_t n = std::max<std::size_t>(bytes / sizeof(T), 1);
  std::vector<T> a(n), b(n), c(n), want(n);
  for (std::size_t i = 0; i < n; ++i) {
    a[i] = static_cast<T>(i % 13 + 1);
    b[i] = static_cast<T>(i % 7 + 2);
  }
  const detail::Reducer red = detail::make_reducer<T>(op);
  auto* cb = reinterpret_cast<std::byte*>(c.data());
  const auto* ab = reinterpret_cast<const std::byte*>(a.data());
  const auto* bb = reinterpret_cast<const std::byte*>(b.data());
  // Checked once: the kernel's bits are the loop's.
  red.fn3(red.op, cb, ab, bb, n);
  detail::combine_elements3(want.data(), a.data(), b.data(), n, op);
  all_right = all_right && std::memcmp(c.data(), want.data(), n * sizeof(T)) == 0;
  c = b;
  want = b;
  red.fn(red.op, cb, ab, n, Combine::right);
  detail::combine_elements<false>(want.data(), a.data(), n, op);
  all_right = all_right && std::memcmp(c.data(), want.data(), n * sizeof(T)) == 0;

  const auto keep = [&] { asm volatile("" : : "r"(c.data()) : "memory"); };
  const double k3 = best_us([&] { red.fn3(red.op, cb, ab, bb, n), keep(); }, rounds);
  const double l3 = best_us([&] { detail::combine_elements3(c.data(), a.data(), b.data(), n, op), keep(); }, rounds);
  const double k2 = best_us([&] { red.fn(red.op, cb, ab, n, Combine::right), keep(); }, rounds);
  const double l2 = best_us([&] { detail::combine_elements<false>(c.data(), a.data(), n, op), keep(); }, rounds);
  const double mc = best_us([&] { std::memcpy(c.data(), a.data(), n * sizeof(T)), keep(); }, rounds);
  std::printf("| %s | %zu | %.3f | %.3f | %.2f | %.0f | %.3f | %.3f | %.2f | %.0f | %.3f |\n", name, n * sizeof(T), l3, k3,
              l3 / k3, 100 * mc / k3, l2, k2, l2 / k2, 100 * mc / k2, mc);
}

} // namespace

int main(int argc, char** argv)
{
  std::vector<std::size_t> sizes{4096, 32768, 262144, 1048576};
  int rounds = 7;
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      if ((arg == "--sizes" || arg == "--rounds") && i + 1 < argc) {
        const std::string value = argv[++i];
        if (arg == "--rounds") {
          rounds = std::stoi(value);
          if (rounds < 1) throw std::invalid_argument("--rounds must be at least 1");
          continue;
        }
        sizes.clear();
        for (std::size_t at = 0; at <= value.size();) {
          const std::size_t comma = std::min(value.find(',', at), value.size());
          sizes.push_back(bench::parse_size(value.substr(at, comma - at)));
          at = comma + 1;
        }
      } else {
        std::fprintf(stderr, "usage: combine_kernels [--sizes 4K,32K,256K,1M] [--rounds R]\n");
        return 2;
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "combine_kernels: %s\n", e.what());
    return 2;
  }
  std::printf("# combine kernels on one thread: the library's (AVX2 copies %s) against the element loop\n"
              "# compiled for this build, and memcpy; best of %d rounds, us per call\n\n",
              detail::combines_with_avx2() ? "running" : "not running", rounds);
  std::printf("| op | bytes | c = a op b: loop | kernel | x | %% memcpy | c = c op a: loop | kernel | x | %% memcpy | "
              "memcpy |\n|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
  for (const std::size_t bytes : sizes) {
    row<double>("double +", bytes, rounds, std::plus<>{});
    row<float>("float +", bytes, rounds, std::plus<>{});
    row<std::int32_t>("int32 +", bytes, rounds, std::plus<>{});
    row<std::int64_t>("int64 *", bytes, rounds, std::multiplies<>{});
  }
  if (!all_right) std::printf("\nWRONG: a kernel's result differs from the element loop's\n");
  return all_right ? 0 : 1;
}
