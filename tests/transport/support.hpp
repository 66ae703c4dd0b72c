#pragma once
// Shared helpers of the transport tests: element values, a non-commutative operator and
// its serial reference, and text checks.

#include <collectives/collectives.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace collectives::transport_tests {

/// A distinct value for (rank, block, index).
inline std::uint64_t tag(std::size_t rank, std::size_t block, std::size_t index)
{
  return (std::uint64_t{rank} << 40) ^ (std::uint64_t{block} << 20) ^ index ^ 0x5a5a000000000000ull;
}

/// The affine map t -> a t + b (mod 2^32); composition is associative, not commutative.
struct Affine {
  std::uint32_t a = 1, b = 0;
  friend bool operator==(const Affine&, const Affine&) = default;
};

/// (f compose g)(t) = f(g(t)): the left fold x0 o x1 o ... is what the collectives promise.
struct Compose {
  Affine operator()(const Affine& f, const Affine& g) const { return Affine{f.a * g.a, f.a * g.b + f.b}; }
};
inline constexpr Compose compose{};

/// Rank r's element i.
inline Affine affine(std::size_t r, std::size_t i)
{
  return Affine{static_cast<std::uint32_t>(2 * (r * 7 + i) + 3), static_cast<std::uint32_t>(r * 1000 + i)};
}

/// The name of an algorithm tag ("default" for automatic).
template <class A>
std::string name_of(A)
{
  return std::string(std::string_view(A::name));
}

inline bool contains(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }

/// One round of every collective by default on `comm`, the rooted ones from every root:
/// 4p + 12 different calls (the allocation tests). x and y hold n p elements, z n, counts p
/// times n.
template <class Comm>
void every_collective(Comm& comm, std::vector<double>& x, std::vector<double>& y, std::vector<double>& z,
                      const std::vector<std::size_t>& counts)
{
  const std::size_t p = comm.size();
  allreduce(comm, x, y, std::plus<>{});
  allreduce(comm, y, std::plus<>{});
  alltoall(comm, x, y);
  for (std::size_t root = 0; root < p; ++root) {
    broadcast(comm, y, root);
    reduce(comm, x, y, std::plus<>{}, root);
    reduce(comm, y, std::plus<>{}, root); // in place
    scatter(comm, x, z, root);
    gather(comm, z, y, root);
  }
  reduce_scatter(comm, x, z, std::plus<>{});
  reduce_scatter(comm, y, std::plus<>{});
  allgather(comm, z, y);
  scan(comm, x, y, std::plus<>{});
  scan(comm, y, std::plus<>{}); // in place
  exscan(comm, x, y, std::plus<>{});
  alltoallv(comm, x, counts, y, counts);
  shift(comm, x, y, 1);
  barrier(comm);
}

} // namespace collectives::transport_tests
