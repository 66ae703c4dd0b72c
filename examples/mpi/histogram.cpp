// A distributed histogram by hashing (the pattern of a parallel hash join): every rank
// holds words (here integer keys); the owner of a key is hash(key) mod p. Each rank
// groups its keys by owner, the group sizes go by alltoall, the keys by alltoallv, and
// each owner counts the keys it received. Checked against a serial histogram of all
// ranks' keys; times are printed beside the model's predictions.
//
//   ./histogram [threads]          mpirun -n 4 ./histogram

#include "app.hpp"

#include <cstddef>
#include <cstdint>
#include <map>
#include <random>
#include <vector>

namespace {

std::vector<std::uint32_t> keys_of(std::size_t r, std::size_t n)
{
  std::mt19937 gen(static_cast<std::uint32_t>(777 + r));
  std::geometric_distribution<std::uint32_t> skewed(0.01); // a few keys are frequent
  std::vector<std::uint32_t> k(n);
  for (auto& x : k) x = skewed(gen);
  return k;
}

std::size_t owner(std::uint32_t key, std::size_t p)
{
  return static_cast<std::size_t>((key * 0x9e3779b1u) >> 7) % p;
}

} // namespace

int main(int argc, char** argv)
{
  return app::run(argc, argv, "histogram", 4, [](app::Rank& me) {
    using namespace collectives;
    const std::size_t p = me.size(), r = me.rank(), n = 4000;
    const auto mine = keys_of(r, n);

    // Group by owner (a counting sort by owner).
    std::vector<std::size_t> send_counts(p, 0), recv_counts(p, 0), at(p, 0);
    for (std::uint32_t k : mine) ++send_counts[owner(k, p)];
    for (std::size_t q = 1; q < p; ++q) at[q] = at[q - 1] + send_counts[q - 1];
    std::vector<std::uint32_t> grouped(n);
    for (std::uint32_t k : mine) grouped[at[owner(k, p)]++] = k;

    const double t_counts = me.time([&] { alltoall(me.comm(), send_counts, recv_counts); });
    std::size_t total = 0;
    for (std::size_t c : recv_counts) total += c;
    std::vector<std::uint32_t> received(total);
    const double t_keys = me.time([&] { alltoallv(me.comm(), grouped, send_counts, received, recv_counts); });
    std::map<std::uint32_t, std::size_t> histogram;
    for (std::uint32_t k : received) ++histogram[k];

    const auto [p_counts, a_counts] = me.predicted<Collective::alltoall>(Problem{.m = app::Rank::words<std::size_t>(1)});
    const auto [p_keys, a_keys] = me.predicted_alltoallv(app::Rank::words<std::uint32_t>(n / p));
    me.report("alltoall of group sizes", t_counts, p_counts, a_counts);
    me.report("alltoallv of keys (" + std::to_string(n) + " per rank)", t_keys, p_keys, a_keys);

    // Serial histogram; this rank must hold exactly the keys it owns, with their counts.
    std::map<std::uint32_t, std::size_t> serial;
    for (std::size_t q = 0; q < p; ++q)
      for (std::uint32_t k : keys_of(q, n)) ++serial[k];
    std::map<std::uint32_t, std::size_t> owned;
    for (const auto& [k, c] : serial)
      if (owner(k, p) == r) owned[k] = c;
    if (r == 0) std::printf("  %zu distinct keys in %zu\n", serial.size(), p * n);
    return histogram == owned;
  });
}
