// Sample sort (the seeds' parallel sorting by all-to-all personalized communication):
// each rank sorts its keys, p - 1 regular samples per rank are gathered by allgather,
// every rank picks the same p - 1 splitters, the bucket sizes are exchanged by alltoall
// and the keys by alltoallv; each rank sorts what it received. An exscan of the bucket
// sizes says where each rank's run starts in the sorted whole, which is checked against a
// serial sort. Times are printed beside the model's predictions.
//
//   ./sample_sort [threads]          mpirun -n 4 ./sample_sort

#include "app.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <random>
#include <vector>

namespace {

/// Rank r's keys (the same on every rank that asks, for the serial check).
std::vector<std::uint32_t> keys_of(std::size_t r, std::size_t n)
{
  std::mt19937 gen(static_cast<std::uint32_t>(12345 + 7 * r));
  std::vector<std::uint32_t> k(n);
  for (auto& x : k) x = static_cast<std::uint32_t>(gen() % 1000000u);
  return k;
}

} // namespace

int main(int argc, char** argv)
{
  return app::run(argc, argv, "sample_sort", 4, [](app::Rank& me) {
    using namespace collectives;
    const std::size_t p = me.size(), r = me.rank(), n = 3000;
    std::vector<std::uint32_t> mine = keys_of(r, n);
    std::sort(mine.begin(), mine.end());

    // Splitters: p - 1 regular samples from every rank, all of them on every rank.
    std::vector<std::uint32_t> samples(p - 1), all_samples((p - 1) * p);
    for (std::size_t i = 0; i + 1 < p; ++i) samples[i] = mine[(i + 1) * n / p];
    const double t_samples = me.time([&] { allgather(me.comm(), samples, all_samples); });
    std::sort(all_samples.begin(), all_samples.end());
    std::vector<std::uint32_t> splitters(p - 1);
    for (std::size_t i = 0; i + 1 < p; ++i) splitters[i] = all_samples[(i + 1) * (p - 1)];

    // Buckets: mine is sorted, so bucket q is a contiguous run.
    std::vector<std::size_t> send_counts(p, 0), recv_counts(p, 0);
    for (std::uint32_t k : mine)
      ++send_counts[static_cast<std::size_t>(std::upper_bound(splitters.begin(), splitters.end(), k) - splitters.begin())];
    const double t_counts = me.time([&] { alltoall(me.comm(), send_counts, recv_counts); });
    std::size_t total = 0;
    for (std::size_t c : recv_counts) total += c;
    std::vector<std::uint32_t> bucket(total);
    const double t_keys = me.time([&] { alltoallv(me.comm(), mine, send_counts, bucket, recv_counts); });
    std::sort(bucket.begin(), bucket.end());

    // Where this rank's run starts in the sorted whole.
    std::vector<std::size_t> count{bucket.size()}, offset{0};
    exscan(me.comm(), count, offset, std::plus<>{});

    const auto [p_samples, a_samples] = me.predicted<Collective::allgather>(Problem{.m = app::Rank::words<std::uint32_t>(p - 1)});
    const auto [p_counts, a_counts] = me.predicted<Collective::alltoall>(Problem{.m = app::Rank::words<std::size_t>(1)});
    const auto [p_keys, a_keys] = me.predicted_alltoallv(app::Rank::words<std::uint32_t>(n / p));
    me.report("allgather of samples", t_samples, p_samples, a_samples);
    me.report("alltoall of bucket sizes", t_counts, p_counts, a_counts);
    me.report("alltoallv of keys (" + std::to_string(n) + " per rank)", t_keys, p_keys, a_keys);

    // Serial check: sort everything; this rank's run must be the slice at its offset.
    std::vector<std::uint32_t> whole;
    for (std::size_t q = 0; q < p; ++q) {
      const auto k = keys_of(q, n);
      whole.insert(whole.end(), k.begin(), k.end());
    }
    std::sort(whole.begin(), whole.end());
    const std::size_t at = r == 0 ? 0 : offset[0];
    bool ok = at + bucket.size() <= whole.size() &&
              std::equal(bucket.begin(), bucket.end(), whole.begin() + static_cast<std::ptrdiff_t>(at));
    if (r + 1 == p) ok = ok && at + bucket.size() == whole.size(); // the last run ends the whole
    return ok;
  });
}
