#pragma once
// Shared test support: element types, value generators and the serial references the
// collectives are checked against.

#include <collectives/collectives.hpp>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace collectives::testing {

/// A trivially copyable struct element (odd size, padding-free comparisons via ==).
struct Particle {
  std::int32_t id;
  float x;
  std::int16_t tag;
  char kind;
  friend bool operator==(const Particle&, const Particle&) = default;
};

/// A trivially copyable element type with no default constructor: the collectives must
/// never default-construct elements (every buffer of it is built from values).
struct NoDefault {
  std::int64_t key;
  double weight;
  constexpr NoDefault(std::int64_t k, double w) : key(k), weight(w) {}
  friend bool operator==(const NoDefault&, const NoDefault&) = default;
};
static_assert(std::is_trivially_copyable_v<NoDefault> && !std::is_default_constructible_v<NoDefault>);

/// The element-wise sum of two NoDefault (a custom, commutative-by-nature operator that the
/// library does not know is commutative).
struct NoDefaultSum {
  constexpr NoDefault operator()(const NoDefault& a, const NoDefault& b) const
  {
    return NoDefault{a.key + b.key, a.weight + b.weight};
  }
};

/// n NoDefault values of rank `owner` (exact in double: small integers).
inline std::vector<NoDefault> no_default_values(std::size_t owner, std::size_t n)
{
  std::vector<NoDefault> v;
  v.reserve(n);
  for (std::size_t i = 0; i < n; ++i)
    v.emplace_back(static_cast<std::int64_t>(owner * 1000 + i), static_cast<double>(owner + 2 * i) + 0.5);
  return v;
}

/// A distinct, reproducible value for (rank, index) of type T.
template <class T>
T make_value(std::size_t rank, std::size_t index)
{
  if constexpr (std::is_same_v<T, Particle>) {
    return Particle{static_cast<std::int32_t>(rank * 100003 + index), static_cast<float>(index) * 0.5f,
                    static_cast<std::int16_t>(rank), static_cast<char>('a' + (index % 26))};
  } else if constexpr (std::is_same_v<T, char> || std::is_same_v<T, unsigned char>) {
    return static_cast<T>((rank * 31 + index * 7 + 1) % 127);
  } else {
    return static_cast<T>(rank * 100003 + index) + static_cast<T>(0.25);
  }
}

/// A value that no collective writes: receive buffers start filled with it.
template <class T>
T poison()
{
  if constexpr (std::is_same_v<T, Particle>) return Particle{-1, -1.0f, -1, '?'};
  else return static_cast<T>(-1);
}

/// The name of T for failure messages (char, double or Particle).
template <class T>
const char* type_name()
{
  if constexpr (std::is_same_v<T, char>) return "char";
  else if constexpr (std::is_same_v<T, double>) return "double";
  else return "Particle";
}

/// n values of rank `owner`: make_value(owner, 0), ..., make_value(owner, n - 1).
template <class T>
std::vector<T> values(std::size_t owner, std::size_t n)
{
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = make_value<T>(owner, i);
  return v;
}

/// values(j, m) for j = 0..p-1 back to back: what an allgather of blocks of m leaves on
/// every rank, a scatter's root sends and a gather's root receives.
template <class T>
std::vector<T> gathered(std::size_t p, std::size_t m)
{
  std::vector<T> v;
  v.reserve(p * m);
  for (std::size_t j = 0; j < p; ++j) {
    const auto block = values<T>(j, m);
    v.insert(v.end(), block.begin(), block.end());
  }
  return v;
}

/// Rank r's send buffer for alltoall with blocks of m elements.
template <class T>
std::vector<T> alltoall_input(std::size_t p, std::size_t m, std::size_t r)
{
  return values<T>(r, p * m);
}

/// Serial reference: what rank r must receive from an alltoall of alltoall_input buffers.
template <class T>
std::vector<T> alltoall_reference(std::size_t p, std::size_t m, std::size_t r)
{
  std::vector<T> v(p * m);
  for (std::size_t i = 0; i < p; ++i)
    for (std::size_t e = 0; e < m; ++e) v[i * m + e] = make_value<T>(i, r * m + e);
  return v;
}

/// Runs f(comm) on a threads team of topo.size() ranks bound to topo; returns per-rank
/// results of f (f returns a value) in rank order.
template <class Topo, class F>
auto run_on(const Topo& topo, F f)
{
  using R = decltype(f(std::declval<Communicator<threads::Endpoint, Topo>&>()));
  // One slot per rank in its own object: a std::vector<bool> would pack the ranks' results
  // into shared words, and concurrent writes to them race.
  struct Slot {
    R value{};
  };
  std::vector<Slot> slots(topo.size());
  threads::Team team{topo.size()};
  team.run([&](threads::Endpoint& ep) {
    Communicator<threads::Endpoint, Topo> comm{ep, topo};
    slots[ep.rank()].value = f(comm);
  });
  std::vector<R> results;
  results.reserve(slots.size());
  for (auto& slot : slots) results.push_back(std::move(slot.value));
  return results;
}

/// Runs body(comm) (which returns its rank's failure count) on a threads team bound to
/// topo; the sum of the ranks' counts.
template <class Topo, class F>
int failures_on(const Topo& topo, F body)
{
  int total = 0;
  for (int bad : run_on(topo, body)) total += bad;
  return total;
}

/// Runs alltoall with `alg` (Automatic: the call without an algorithm) on topo for blocks
/// of m elements of T and returns true when every rank received the serial reference.
template <class T, class Topo, class Alg>
bool alltoall_matches_reference(const Topo& topo, std::size_t m, Alg alg)
{
  const std::size_t p = topo.size();
  auto got = run_on(topo, [&](auto& comm) {
    auto send = alltoall_input<T>(p, m, comm.rank());
    std::vector<T> recv(p * m, poison<T>());
    if constexpr (std::is_same_v<Alg, Automatic>) alltoall(comm, send, recv);
    else alltoall(comm, send, recv, alg);
    return recv;
  });
  for (std::size_t r = 0; r < p; ++r)
    if (!(got[r] == alltoall_reference<T>(p, m, r))) return false;
  return true;
}

} // namespace collectives::testing
