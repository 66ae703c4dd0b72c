// Every collective on the threads transport against a serial reference, at p = 1-5, 7-9 and 16,
// with messages below and above the eager threshold (and through a tiny channel ring, so
// entries wrap and senders wait for room), including a non-commutative operator: what the
// transport's eager path, single-copy path and combining on receipt must all preserve.

#include "support.hpp"

#include <catch2/catch.hpp>

#include <boost/hana/for_each.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

using namespace collectives;
using namespace collectives::transport_tests;

namespace {

// (The threads runs' p of issue 10: 1-5, 7-9 and 16; the verifier proves the schedules for every p.)
const std::size_t team_sizes[] = {1, 2, 3, 4, 5, 7, 8, 9, 16};

/// The teams every case runs on: default options, and a tiny eager threshold and ring
/// (every message single copy above 64 bytes; small ones wrap the ring constantly).
std::vector<threads::Options> option_sets()
{
  return {threads::Options{}, threads::Options{.eager_bytes = 64, .channel_bytes = 512, .spin = 16}};
}

/// The team of p ranks with options o, made at its first use and kept (with its threads)
/// for every later check, as a program keeps one team for many runs.
threads::Team& kept_team(std::size_t p, const threads::Options& o)
{
  using Key = std::tuple<std::size_t, std::size_t, std::size_t, unsigned, unsigned, std::size_t, bool, bool>;
  static std::map<Key, std::unique_ptr<threads::Team>> teams;
  std::unique_ptr<threads::Team>& team =
    teams[Key{p, o.eager_bytes, o.channel_bytes, o.spin, o.yields, o.share_chunk, o.membarrier, o.pin}];
  if (!team) team = std::make_unique<threads::Team>(p, o);
  return *team;
}

/// Runs check(comm, rank) on the kept team of p and returns whether every rank said true.
template <class F>
bool on_team(std::size_t p, const threads::Options& o, F&& check)
{
  threads::Team& team = kept_team(p, o);
  std::vector<char> ok(p, 0);
  team.run([&](threads::Endpoint& ep) {
    Communicator comm{ep, Ring<>{p}};
    ok[ep.rank()] = check(comm, ep.rank()) ? 1 : 0;
  });
  for (char c : ok)
    if (!c) return false;
  return true;
}

/// Element counts per block: small (eager at the default thresholds) and large (single copy:
/// 600 elements of 8 bytes, std::uint64_t or Affine, are 4800 bytes, above both defaults,
/// 512 with a core per rank and 4096 with more ranks than cores).
const std::size_t block_sizes[] = {1, 3, 600};

} // namespace

TEST_CASE("threads: rearranging collectives equal the serial reference", "[threads][collectives]")
{
  for (const auto& o : option_sets())
    for (std::size_t p : team_sizes)
      for (std::size_t m : block_sizes) {
        INFO("p = " << p << ", m = " << m << ", eager " << o.eager_bytes);
        // alltoall: block j of rank i goes to block i of rank j.
        CHECK(on_team(p, o, [&](auto& comm, std::size_t me) {
          std::vector<std::uint64_t> s(p * m), r(p * m, 0);
          for (std::size_t j = 0; j < p; ++j)
            for (std::size_t k = 0; k < m; ++k) s[j * m + k] = tag(me, j, k);
          alltoall(comm, s, r);
          for (std::size_t j = 0; j < p; ++j)
            for (std::size_t k = 0; k < m; ++k)
              if (r[j * m + k] != tag(j, me, k)) return false;
          return true;
        }));
        // allgather, gather, scatter, broadcast (every root), shift by 1 and -2.
        CHECK(on_team(p, o, [&](auto& comm, std::size_t me) {
          std::vector<std::uint64_t> mine(m), all(p * m, 0);
          for (std::size_t k = 0; k < m; ++k) mine[k] = tag(me, 0, k);
          allgather(comm, mine, all);
          bool ok = true;
          for (std::size_t j = 0; j < p; ++j)
            for (std::size_t k = 0; k < m; ++k) ok = ok && all[j * m + k] == tag(j, 0, k);
          for (std::size_t root = 0; root < p; ++root) {
            std::vector<std::uint64_t> g(me == root ? p * m : 0, 0);
            gather(comm, mine, g, root);
            if (me == root)
              for (std::size_t j = 0; j < p; ++j)
                for (std::size_t k = 0; k < m; ++k) ok = ok && g[j * m + k] == tag(j, 0, k);
            std::vector<std::uint64_t> src(me == root ? p * m : 0), got(m, 0);
            for (std::size_t i = 0; i < src.size(); ++i) src[i] = tag(root, 1, i);
            scatter(comm, src, got, root);
            for (std::size_t k = 0; k < m; ++k) ok = ok && got[k] == tag(root, 1, me * m + k);
            std::vector<std::uint64_t> b(m, 0);
            if (me == root)
              for (std::size_t k = 0; k < m; ++k) b[k] = tag(root, 2, k);
            broadcast(comm, b, root);
            for (std::size_t k = 0; k < m; ++k) ok = ok && b[k] == tag(root, 2, k);
          }
          for (std::ptrdiff_t q : {std::ptrdiff_t{1}, std::ptrdiff_t{-2}}) {
            std::vector<std::uint64_t> got(m, 0);
            shift(comm, mine, got, q);
            const std::ptrdiff_t sp = static_cast<std::ptrdiff_t>(p);
            const auto from = static_cast<std::size_t>(((static_cast<std::ptrdiff_t>(me) - q) % sp + sp) % sp);
            for (std::size_t k = 0; k < m; ++k) ok = ok && got[k] == tag(from, 0, k);
          }
          barrier(comm);
          return ok;
        }));
        // alltoallv: rank i sends (i + j) % 3 * m elements to rank j.
        CHECK(on_team(p, o, [&](auto& comm, std::size_t me) {
          std::vector<std::size_t> sc(p), rc(p);
          for (std::size_t j = 0; j < p; ++j) {
            sc[j] = (me + j) % 3 * m;
            rc[j] = (j + me) % 3 * m;
          }
          std::vector<std::uint64_t> s, r;
          for (std::size_t j = 0; j < p; ++j)
            for (std::size_t k = 0; k < sc[j]; ++k) s.push_back(tag(me, j, k));
          std::size_t total = 0;
          for (std::size_t c : rc) total += c;
          r.assign(total, 0);
          alltoallv(comm, s, sc, r, rc);
          std::size_t at = 0;
          for (std::size_t j = 0; j < p; ++j)
            for (std::size_t k = 0; k < rc[j]; ++k)
              if (r[at++] != tag(j, me, k)) return false;
          return true;
        }));
      }
}

namespace {

/// Checks every algorithm of collective C's list that fits (and the default) with the
/// non-commutative affine operator and with std::plus on doubles of exact sums.
template <class Call>
void each_algorithm(auto list, Call&& call)
{
  call(automatic);
  boost::hana::for_each(list, [&](auto alg) { call(alg); });
}

} // namespace

TEST_CASE("threads: reductions equal the serial reference, non-commutative ones in rank order",
          "[threads][collectives][reductions]")
{
  for (const auto& o : option_sets())
    for (std::size_t p : team_sizes)
      for (std::size_t m : block_sizes) {
        INFO("p = " << p << ", m = " << m << ", eager " << o.eager_bytes);
        const std::size_t n = p * m; // elements of allreduce, reduce, scan; p blocks of reduce_scatter
        auto contribution = [&](std::size_t r) {
          std::vector<Affine> v(n);
          for (std::size_t i = 0; i < n; ++i) v[i] = affine(r, i);
          return v;
        };
        std::vector<std::vector<Affine>> prefix(p); // prefix[r] = x0 op ... op xr
        for (std::size_t r = 0; r < p; ++r) {
          prefix[r] = contribution(r);
          if (r > 0)
            for (std::size_t i = 0; i < n; ++i) prefix[r][i] = compose(prefix[r - 1][i], prefix[r][i]);
        }
        const auto& total = prefix[p - 1];
        auto fits = [&](auto&& run) {
          try {
            return run();
          } catch (const std::invalid_argument&) {
            return true; // the algorithm does not fit this p: every rank says so before any message
          }
        };
        each_algorithm(algorithm_list<Collective::allreduce>::value, [&](auto alg) {
          if constexpr (requires(Communicator<threads::Endpoint, Ring<>>& c, std::vector<Affine>& v) {
                          allreduce(c, v, v, compose, alg);
                        }) {
            INFO("allreduce " << name_of(alg));
            CHECK(fits([&] {
              return on_team(p, o, [&](auto& comm, std::size_t me) {
                const auto x = contribution(me);
                std::vector<Affine> r(n);
                allreduce(comm, x, r, compose, alg);
                auto inplace = x;
                allreduce(comm, inplace, compose, alg);
                return r == total && inplace == total;
              });
            }));
          }
        });
        each_algorithm(algorithm_list<Collective::reduce>::value, [&](auto alg) {
          if constexpr (requires(Communicator<threads::Endpoint, Ring<>>& c, std::vector<Affine>& v) {
                          reduce(c, v, v, compose, 0, alg);
                        }) {
            INFO("reduce " << name_of(alg));
            CHECK(fits([&] {
              return on_team(p, o, [&](auto& comm, std::size_t me) {
                bool ok = true;
                for (std::size_t root : {std::size_t{0}, p - 1, p / 2}) {
                  const auto x = contribution(me);
                  std::vector<Affine> r(me == root ? n : 0);
                  reduce(comm, x, r, compose, root, alg);
                  auto inplace = x;
                  reduce(comm, inplace, compose, root, alg);
                  if (me == root) ok = ok && r == total && inplace == total;
                  else ok = ok && inplace == x;
                }
                return ok;
              });
            }));
          }
        });
        each_algorithm(algorithm_list<Collective::reduce_scatter>::value, [&](auto alg) {
          if constexpr (requires(Communicator<threads::Endpoint, Ring<>>& c, std::vector<Affine>& v) {
                          reduce_scatter(c, v, v, compose, alg);
                        }) {
            INFO("reduce_scatter " << name_of(alg));
            CHECK(fits([&] {
              return on_team(p, o, [&](auto& comm, std::size_t me) {
                const auto x = contribution(me);
                std::vector<Affine> r(m);
                reduce_scatter(comm, x, r, compose, alg);
                auto inplace = x;
                reduce_scatter(comm, inplace, compose, alg);
                for (std::size_t k = 0; k < m; ++k)
                  if (!(r[k] == total[me * m + k]) || !(inplace[k] == total[me * m + k])) return false;
                return true;
              });
            }));
          }
        });
        each_algorithm(algorithm_list<Collective::scan>::value, [&](auto alg) {
          if constexpr (requires(Communicator<threads::Endpoint, Ring<>>& c, std::vector<Affine>& v) {
                          scan(c, v, v, compose, alg);
                        }) {
            INFO("scan " << name_of(alg));
            CHECK(fits([&] {
              return on_team(p, o, [&](auto& comm, std::size_t me) {
                const auto x = contribution(me);
                std::vector<Affine> r(n), e(n, Affine{7, 7});
                scan(comm, x, r, compose, alg);
                exscan(comm, x, e, compose, alg);
                return r == prefix[me] && (me == 0 ? e == std::vector<Affine>(n, Affine{7, 7}) : e == prefix[me - 1]);
              });
            }));
          }
        });
        // A commutative operator the ring algorithms accept, on exact doubles.
        CHECK(on_team(p, o, [&](auto& comm, std::size_t me) {
          std::vector<double> x(n), r(n);
          for (std::size_t i = 0; i < n; ++i) x[i] = static_cast<double>(me * 1000 + i);
          allreduce(comm, x, r, std::plus<>{}, allreduce_algorithm::ring);
          for (std::size_t i = 0; i < n; ++i)
            if (r[i] != static_cast<double>(1000 * p * (p - 1) / 2 + p * i)) return false;
          return true;
        }));
      }
}
