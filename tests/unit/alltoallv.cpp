// alltoallv: per-block counts and displacements over the pairwise alltoall schedules,
// checked against a serial reference on blocks of uneven sizes (zeros included), laid out
// out of order and with gaps; and every validation error, before anything is written.

#include <catch2/catch.hpp>

#include "../support/harness.hpp"
#include "../support/registry.hpp"

#include <collectives/collective/alltoallv.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using namespace collectives;
using collectives::testing::make_value;
using collectives::testing::Particle;
using collectives::testing::failures_on;
using collectives::testing::poison;
using collectives::testing::call_with;
using collectives::testing::for_each_fitting_and_default;

/// Elements rank a sends to rank b: 0..4, about one in five zero; `seed` varies the mix.
std::size_t count_of(std::size_t a, std::size_t b, std::size_t seed)
{
  std::size_t h = (a + 1) * 0x9E3779B97F4A7C15ull ^ (b + 7) * 0xC2B2AE3D27D4EB4Full ^ seed * 0x165667B19E3779F9ull;
  h ^= h >> 29;
  h *= 0xBF58476D1CE4E5B9ull;
  h ^= h >> 32;
  return h % 5;
}

/// One side of a rank's layout: blocks placed in a rank-dependent order (reversed or
/// rotated) with one-element gaps every other block, so displacements really matter.
struct Layout {
  std::vector<std::size_t> counts, displs;
  std::size_t size = 0;
};

Layout make_layout(std::vector<std::size_t> counts, std::size_t me)
{
  const std::size_t p = counts.size();
  Layout l{counts, std::vector<std::size_t>(p), 0};
  for (std::size_t i = 0; i < p; ++i) {
    const std::size_t j = me % 2 == 0 ? p - 1 - i : (i + me) % p;
    l.displs[j] = l.size;
    l.size += counts[j] + (i % 2);
  }
  return l;
}

Layout send_layout(std::size_t p, std::size_t me, std::size_t seed)
{
  std::vector<std::size_t> c(p);
  for (std::size_t b = 0; b < p; ++b) c[b] = count_of(me, b, seed);
  return make_layout(c, me);
}

Layout recv_layout(std::size_t p, std::size_t me, std::size_t seed)
{
  std::vector<std::size_t> c(p);
  for (std::size_t a = 0; a < p; ++a) c[a] = count_of(a, me, seed);
  return make_layout(c, me + 1);
}

/// Element e of the block rank a sends to rank b.
template <class T>
T element(std::size_t a, std::size_t b, std::size_t e)
{
  return make_value<T>(a, b * 8 + e);
}

/// Rank me's send buffer: its blocks, and a marker in the gaps.
template <class T>
std::vector<T> send_buffer(const Layout& l, std::size_t me)
{
  std::vector<T> v(l.size, make_value<T>(999, 999));
  for (std::size_t b = 0; b < l.counts.size(); ++b)
    for (std::size_t e = 0; e < l.counts[b]; ++e) v[l.displs[b] + e] = element<T>(me, b, e);
  return v;
}

/// Serial reference: rank me's receive buffer after the exchange (gaps keep the poison).
template <class T>
std::vector<T> reference(const Layout& l, std::size_t me)
{
  std::vector<T> v(l.size, poison<T>());
  for (std::size_t a = 0; a < l.counts.size(); ++a)
    for (std::size_t e = 0; e < l.counts[a]; ++e) v[l.displs[a] + e] = element<T>(a, me, e);
  return v;
}

/// One alltoallv of T with `alg` (Automatic: no algorithm named) on this rank; 0 when the
/// receive buffer matches the reference.
template <class T, class Comm, class Alg>
int alltoallv_once(Comm& comm, std::size_t seed, Alg alg)
{
  const std::size_t p = comm.size(), me = comm.rank();
  const Layout s = send_layout(p, me, seed), r = recv_layout(p, me, seed);
  const auto send = send_buffer<T>(s, me);
  std::vector<T> recv(r.size, poison<T>());
  call_with(alltoallv, alg, comm, send, s.counts, s.displs, recv, r.counts, r.displs);
  return recv == reference<T>(r, me) ? 0 : 1;
}

} // namespace

TEST_CASE("alltoallv: matches the reference for p = 1..16 and larger, uneven blocks", "[alltoallv][threads]")
{
  std::vector<std::size_t> sizes;
  for (std::size_t p = 1; p <= 16; ++p) sizes.push_back(p);
  for (std::size_t p : {23u, 32u, 48u, 64u}) sizes.push_back(p);
  for (const std::size_t p : sizes) {
    CAPTURE(p);
    const bool all_types = p <= 16;
    const int bad = failures_on(Ring<>{p}, [&](auto& comm) {
      int wrong = 0;
      for (std::size_t seed = 0; seed < (p <= 16 ? 3u : 1u); ++seed) {
        // Every algorithm of alltoallv's list that fits p, and the default.
        for_each_fitting_and_default<Collective::alltoallv>(comm.topology(), Problem{}, [&](auto alg) {
          wrong += alltoallv_once<char>(comm, seed, alg);
        });
        if (all_types) {
          wrong += alltoallv_once<double>(comm, seed, alltoallv_algorithm::pairwise);
          wrong += alltoallv_once<Particle>(comm, seed, automatic);
        }
      }
      return wrong;
    });
    CHECK(bad == 0);
  }
}

TEST_CASE("alltoallv: all-zero blocks, rows and columns", "[alltoallv][threads]")
{
  // Rank 1 sends nothing, nobody sends to rank 2, and rank 0's block to itself is empty.
  const std::size_t p = 5;
  const int bad = failures_on(Ring<>{p}, [&](auto& comm) {
    const std::size_t me = comm.rank();
    auto count = [](std::size_t a, std::size_t b) -> std::size_t {
      return a == 1 || b == 2 || (a == 0 && b == 0) ? 0 : (a + 2 * b) % 3 + 1;
    };
    std::vector<std::size_t> sc(p), rc(p);
    for (std::size_t j = 0; j < p; ++j) {
      sc[j] = count(me, j);
      rc[j] = count(j, me);
    }
    const Layout s = make_layout(sc, me), r = make_layout(rc, me + 3);
    const auto send = send_buffer<double>(s, me);
    std::vector<double> recv(r.size, poison<double>());
    alltoallv(comm, send, s.counts, s.displs, recv, r.counts, r.displs);
    int wrong = recv == reference<double>(r, me) ? 0 : 1;
    // Nothing at all: empty ranges, all counts zero.
    const std::vector<std::size_t> zeros(p, 0);
    std::vector<double> none;
    alltoallv(comm, none, zeros, zeros, none, zeros, zeros, alltoallv_algorithm::pairwise);
    return wrong;
  });
  CHECK(bad == 0);
}

TEST_CASE("alltoallv: counts only, blocks packed back to back", "[alltoallv][threads]")
{
  for (std::size_t p : {1u, 3u, 8u, 13u}) {
    CAPTURE(p);
    const int bad = failures_on(Ring<>{p}, [&](auto& comm) {
      const std::size_t me = comm.rank();
      std::vector<std::size_t> sc(p), rc(p);
      for (std::size_t j = 0; j < p; ++j) {
        sc[j] = count_of(me, j, 11);
        rc[j] = count_of(j, me, 11);
      }
      std::vector<Particle> send;
      for (std::size_t b = 0; b < p; ++b)
        for (std::size_t e = 0; e < sc[b]; ++e) send.push_back(element<Particle>(me, b, e));
      std::vector<Particle> recv, want;
      for (std::size_t a = 0; a < p; ++a)
        for (std::size_t e = 0; e < rc[a]; ++e) want.push_back(element<Particle>(a, me, e));
      recv.assign(want.size(), poison<Particle>());
      alltoallv(comm, send, sc, recv, rc);
      int wrong = recv == want ? 0 : 1;
      recv.assign(want.size(), poison<Particle>());
      alltoallv(comm, send, sc, recv, rc, alltoallv_algorithm::pairwise);
      wrong += recv == want ? 0 : 1;
      return wrong;
    });
    CHECK(bad == 0);
  }
}

TEST_CASE("alltoallv: static topology and std::array counts", "[alltoallv][threads]")
{
  // The family's static twin, Mesh<2, 4>: count ranges of static length p.
  constexpr std::size_t p = 8;
  const int bad = failures_on(Mesh<2, 4>{}, [](auto& comm) {
    const std::size_t me = comm.rank();
    // Rank a sends a + b + 1 elements to rank b, packed.
    std::array<std::size_t, p> sc{}, rc{}, sd{}, rd{};
    std::size_t ns = 0, nr = 0;
    for (std::size_t j = 0; j < p; ++j) {
      sc[j] = me + j + 1;
      rc[j] = j + me + 1;
      sd[j] = ns;
      rd[j] = nr;
      ns += sc[j];
      nr += rc[j];
    }
    std::vector<int> send(ns), recv(nr, -1), want(nr);
    for (std::size_t j = 0; j < p; ++j)
      for (std::size_t e = 0; e < sc[j]; ++e) send[sd[j] + e] = static_cast<int>(100 * me + 10 * j + e);
    for (std::size_t a = 0; a < p; ++a)
      for (std::size_t e = 0; e < rc[a]; ++e) want[rd[a] + e] = static_cast<int>(100 * a + 10 * me + e);
    alltoallv(comm, send, sc, sd, recv, rc, rd, alltoallv_algorithm::pairwise_xor);
    int wrong = recv == want ? 0 : 1;
    std::fill(recv.begin(), recv.end(), -1);
    alltoallv(comm, std::span<const int>(send), std::span<const std::size_t, p>(sc), std::span<int>(recv),
              std::span<const std::size_t>(rc));
    wrong += recv == want ? 0 : 1;
    return wrong;
  });
  CHECK(bad == 0);
}

TEST_CASE("alltoallv: every message carries exactly its block", "[alltoallv][threads]")
{
  using Rec = RecordingEndpoint<threads::Endpoint>;
  const std::size_t p = 6;
  std::vector<std::vector<MessageRecord>> logs(p);
  threads::Team team{p};
  team.run([&](threads::Endpoint& ep) {
    Rec rec{ep};
    Communicator<Rec, Ring<>> comm{rec, Ring<>{p}};
    const std::size_t me = ep.rank();
    const Layout s = send_layout(p, me, 5), r = recv_layout(p, me, 5);
    const auto send = send_buffer<double>(s, me);
    std::vector<double> recv(r.size);
    alltoallv(comm, send, s.counts, s.displs, recv, r.counts, r.displs, alltoallv_algorithm::pairwise);
    logs[me] = rec.log();
  });
  for (std::size_t me = 0; me < p; ++me) {
    REQUIRE(logs[me].size() == 2 * (p - 1));
    for (const auto& msg : logs[me]) {
      const std::size_t n = msg.outgoing ? count_of(me, msg.peer, 5) : count_of(msg.peer, me, 5);
      CHECK(msg.bytes == n * sizeof(double));
      CHECK(msg.peer == (msg.outgoing ? (me + msg.step + 1) % p : (me + p - msg.step - 1) % p));
    }
  }
}

// ---------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------

namespace {

/// What each rank passes; a test breaks one field on every rank (or on one rank).
struct Args {
  std::vector<std::size_t> sc, sd, rc, rd;
  std::size_t send_size = 0, recv_size = 0;
};

/// Rank me's correct arguments for p ranks: every block 2 elements, packed.
Args good_args(std::size_t p)
{
  Args a;
  for (std::size_t j = 0; j < p; ++j) {
    a.sc.push_back(2);
    a.rc.push_back(2);
    a.sd.push_back(2 * j);
    a.rd.push_back(2 * j);
  }
  a.send_size = a.recv_size = 2 * p;
  return a;
}

/// Runs alltoallv on p ranks with args_of(rank); returns the exception's message (or "")
/// and checks that, when `untouched`, no receive buffer was written.
template <class Exception, class F>
std::string failure(std::size_t p, F args_of, bool untouched = true)
{
  std::vector<std::vector<int>> recvs(p);
  threads::Team team{p};
  std::string what;
  try {
    team.run([&](threads::Endpoint& ep) {
      Communicator<threads::Endpoint, Ring<>> comm{ep, Ring<>{p}};
      const Args a = args_of(ep.rank());
      const std::vector<int> send(a.send_size, static_cast<int>(ep.rank()));
      recvs[ep.rank()].assign(a.recv_size, -7);
      alltoallv(comm, send, a.sc, a.sd, recvs[ep.rank()], a.rc, a.rd);
    });
  } catch (const Exception& e) {
    what = e.what();
  }
  if (untouched)
    for (const auto& recv : recvs) CHECK(recv == std::vector<int>(recv.size(), -7));
  return what;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

} // namespace

TEST_CASE("alltoallv: invalid arguments throw before anything is written", "[alltoallv][errors]")
{
  const std::size_t p = 4;
  SECTION("counts or displacements of the wrong length")
  {
    auto what = failure<std::invalid_argument>(p, [&](std::size_t) {
      Args a = good_args(p);
      a.sc.pop_back();
      return a;
    });
    CHECK(contains(what, "send counts have 3 entries, need p = 4"));
    what = failure<std::invalid_argument>(p, [&](std::size_t) {
      Args a = good_args(p);
      a.rd.push_back(0);
      return a;
    });
    CHECK(contains(what, "receive displacements have 5 entries"));
  }
  SECTION("a send block outside the send range")
  {
    const auto what = failure<std::invalid_argument>(p, [&](std::size_t) {
      Args a = good_args(p);
      a.sd[3] = 7; // elements 7..8 of 8
      return a;
    });
    CHECK(contains(what, "send block 3 (displacement 7, 2 elements) does not fit in the send range of 8 elements"));
  }
  SECTION("a huge displacement or count does not wrap round")
  {
    auto what = failure<std::invalid_argument>(p, [&](std::size_t) {
      Args a = good_args(p);
      a.rd[1] = ~std::size_t{0};
      return a;
    });
    CHECK(contains(what, "receive block 1"));
    what = failure<std::invalid_argument>(p, [&](std::size_t) {
      Args a = good_args(p);
      a.sc[0] = ~std::size_t{0} - 1;
      a.sd[0] = 2;
      return a;
    });
    CHECK(contains(what, "send block 0"));
  }
  SECTION("a receive block outside the receive range")
  {
    const auto what = failure<std::invalid_argument>(p, [&](std::size_t) {
      Args a = good_args(p);
      a.recv_size = 7;
      return a;
    });
    CHECK(contains(what, "receive block 3 (displacement 6, 2 elements) does not fit in the receive range of 7"));
  }
  SECTION("overlapping receive blocks")
  {
    const auto what = failure<std::invalid_argument>(p, [&](std::size_t) {
      Args a = good_args(p);
      a.rd[3] = 1;
      return a;
    });
    CHECK(contains(what, "receive blocks 0 and 3 overlap"));
  }
  SECTION("only one rank's arguments are bad: the whole team fails")
  {
    const auto what = failure<std::invalid_argument>(
      p,
      [&](std::size_t me) {
        Args a = good_args(p);
        if (me == 2) a.send_size = 3;
        return a;
      },
      false);
    CHECK(contains(what, "send block"));
  }
  SECTION("a rank's send count to itself differs from its receive count")
  {
    const auto what = failure<std::length_error>(p, [&](std::size_t me) {
      Args a = good_args(p);
      a.rc[me] = 1;
      return a;
    });
    CHECK(contains(what, "sends 2 elements to itself"));
  }
}

TEST_CASE("alltoallv: a count mismatch between two ranks fails the whole team", "[alltoallv][errors]")
{
  // Rank 1 expects 3 elements from rank 2, which sends 2: the threads transport finds it
  // when the message arrives, every rank is released, and run() rethrows.
  const std::size_t p = 5;
  const auto what = failure<std::length_error>(
    p,
    [&](std::size_t me) {
      Args a = good_args(p);
      if (me == 1) {
        a.rc[2] = 3;
        a.rd[3] = 7;
        a.rd[4] = 9;
        a.recv_size = 11;
      }
      return a;
    },
    false);
  CHECK(contains(what, "rank 1 expects 12 bytes from rank 2, which sends 8"));
  // Nothing is left behind: the same call with matching counts succeeds.
  CHECK(failure<std::length_error>(p, [&](std::size_t) { return good_args(p); }, false).empty());
}
