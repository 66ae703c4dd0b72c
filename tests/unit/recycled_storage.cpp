// The run-time storage of the estimates' tables (detail::RecycledBlocks, detail::RecycledVector
// and detail::ZeroedArray at run time): a block given back serves the thread's next request
// of at most its size, so an estimate made again (a loop over more problems than the picks
// kept) allocates nothing; another thread has blocks of its own. In the threads family: it
// starts a thread, and runs under the sanitizers.

#include <catch2/catch.hpp>

#include <collectives/detail/recycled.hpp>

#include <cstddef>
#include <thread>

using namespace collectives;

// The sizes are far above what this program's estimates keep, so no earlier block is
// taken instead.
namespace {
constexpr bool recycled_vector_in_constant_evaluation()
{
  detail::RecycledVector<std::size_t> v;
  for (std::size_t i = 0; i < 100; ++i) v.push_back(i);
  detail::RecycledVector<std::size_t> w = v;
  return v.size() == 100 && w[99] == 99;
}
static_assert(recycled_vector_in_constant_evaluation());
} // namespace

TEST_CASE("estimate tables: a thread's freed storage serves its next requests", "[cost]")
{
  using detail::RecycledBlocks;
  constexpr std::size_t big = (std::size_t{3} << 20) + 1; // a block of 4 MiB
  CHECK(RecycledBlocks::block_size(big) == std::size_t{4} << 20);
  CHECK(RecycledBlocks::block_size(1) == 64);
  void* a = RecycledBlocks::take(big);
  RecycledBlocks::give(a, big);
  void* b = RecycledBlocks::take((std::size_t{2} << 20) + 7); // same block size: the same block
  CHECK(b == a);
  void* c = RecycledBlocks::take(big); // none kept: a new one
  CHECK(c != a);
  void* huge = RecycledBlocks::take(std::size_t{16} << 20);
  RecycledBlocks::give(huge, std::size_t{16} << 20);
  RecycledBlocks::give(c, big);
  CHECK(RecycledBlocks::take(big) == c); // the smallest kept block that is large enough
  void* other = nullptr;
  std::thread([&] {
    other = RecycledBlocks::take(std::size_t{16} << 20); // not the main thread's
    RecycledBlocks::give(other, std::size_t{16} << 20); // freed with the thread's list
  }).join();
  CHECK(other != huge);
  CHECK(RecycledBlocks::take(std::size_t{16} << 20) == huge);
  RecycledBlocks::give(huge, std::size_t{16} << 20);
  RecycledBlocks::give(a, big);
  RecycledBlocks::give(c, big);
  CHECK(recycled_vector_in_constant_evaluation()); // and at run time
}

TEST_CASE("estimate tables: a recycled block is zeroed again", "[cost]")
{
  constexpr std::size_t n = (std::size_t{1} << 19) + 3; // 4 MiB + 24 bytes: a block of 8 MiB
  detail::ZeroedArray<std::size_t> t;
  t.zero(n);
  const std::size_t* first = t.data();
  for (std::size_t i = 0; i < n; ++i) t[i] = i + 1;
  t.zero(n); // gives its block back and takes it again
  CHECK(t.data() == first);
  std::size_t nonzero = 0;
  for (std::size_t i = 0; i < n; ++i) nonzero += t[i] != 0;
  CHECK(nonzero == 0);
}
