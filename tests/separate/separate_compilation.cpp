// The compiled mode (COLLECTIVES_SEPARATE_COMPILATION, collectives::compiled): this TU sees
// only the declarations of the threads transport, the executor core and the error texts,
// and links their one compiled copy. Every collective that goes through them runs here
// against a serial reference, with every algorithm of its list that fits, for several p
// (powers of two and not), sizes (0, 1, odd, eager, single copy, shared single copy) and
// roots; the failure paths whose text the library builds are checked word for word.

#if !defined(COLLECTIVES_SEPARATE_COMPILATION)
#error "collectives::compiled must define COLLECTIVES_SEPARATE_COMPILATION for its consumers"
#endif

#include <collectives/collectives.hpp>

#include <boost/hana/for_each.hpp>
#include <catch2/catch.hpp>

#include <cstddef>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

using namespace collectives;
using Catch::Matchers::Contains;

namespace {

const std::vector<std::size_t> rank_counts{1, 2, 3, 5, 8};
// 0, 1, odd, above the eager limit (single copy) and above two 64 KiB chunks (shared).
const std::vector<std::size_t> sizes{0, 1, 7, 1500, 40000};

double value(std::size_t rank, std::size_t i) { return static_cast<double>((rank * 7 + i * 3) % 17); }

} // namespace

TEST_CASE("separate compilation: allreduce, every algorithm that fits, against the serial sum", "[separate]")
{
  for (const std::size_t p : rank_counts)
    for (const std::size_t m : sizes) {
      const Ring<> ring{p};
      std::vector<double> want(m, 0.0);
      for (std::size_t r = 0; r < p; ++r)
        for (std::size_t i = 0; i < m; ++i) want[i] += value(r, i);
      std::size_t ran = 0;
      auto check = [&](auto call) {
        ++ran;
        std::vector<std::vector<double>> got(p);
        threads::Team team{p};
        team.run([&](threads::Endpoint& ep) {
          Communicator comm{ep, ring};
          std::vector<double> in(m), out(m, -1.0);
          for (std::size_t i = 0; i < m; ++i) in[i] = value(ep.rank(), i);
          call(comm, in, out);
          got[ep.rank()] = out;
        });
        for (std::size_t r = 0; r < p; ++r) CHECK(got[r] == want);
      };
      CAPTURE(p, m);
      check([](auto& comm, auto& in, auto& out) { allreduce(comm, in, out, std::plus<>{}); });
      boost::hana::for_each(algorithms<Collective::allreduce>, [&](auto alg) {
        if constexpr (fits_topology_type<decltype(alg), Ring<>>) {
          if (!fits(alg, ring)) return;
          CAPTURE(alg.name);
          check([&](auto& comm, auto& in, auto& out) { allreduce(comm, in, out, std::plus<>{}, alg); });
        }
      });
      CHECK(ran >= 3);
    }
}

TEST_CASE("separate compilation: alltoall, broadcast and scan against the serial reference", "[separate]")
{
  for (const std::size_t p : rank_counts)
    for (const std::size_t m : sizes) {
      CAPTURE(p, m);
      const Ring<> ring{p};
      const std::size_t root = p / 2;
      std::vector<int> ok(p, 0);
      threads::Team team{p};
      team.run([&](threads::Endpoint& ep) {
        Communicator comm{ep, ring};
        const std::size_t me = ep.rank();
        bool good = true;
        // alltoall: block j of rank r's send goes to rank j.
        std::vector<long> send(p * m), recv(p * m, -1);
        for (std::size_t i = 0; i < send.size(); ++i) send[i] = static_cast<long>(me * 1000003 + i);
        alltoall(comm, send, recv);
        for (std::size_t j = 0; j < p; ++j)
          for (std::size_t e = 0; e < m; ++e)
            good = good && recv[j * m + e] == static_cast<long>(j * 1000003 + me * m + e);
        // broadcast from a root in the middle.
        std::vector<double> b(m, me == root ? 0.0 : -1.0);
        if (me == root)
          for (std::size_t i = 0; i < m; ++i) b[i] = value(root, i);
        broadcast(comm, b, root);
        for (std::size_t i = 0; i < m; ++i) good = good && b[i] == value(root, i);
        // inclusive scan: the sum over ranks 0..me.
        std::vector<double> in(m), out(m, -1.0);
        for (std::size_t i = 0; i < m; ++i) in[i] = value(me, i);
        scan(comm, in, out, std::plus<>{});
        for (std::size_t i = 0; i < m; ++i) {
          double s = 0;
          for (std::size_t r = 0; r <= me; ++r) s += value(r, i);
          good = good && out[i] == s;
        }
        ok[me] = good ? 1 : 0;
      });
      for (std::size_t r = 0; r < p; ++r) CHECK(ok[r] == 1);
    }
}

TEST_CASE("separate compilation: the compiled error paths fail the team with their full text", "[separate]")
{
  // A count that differs between ranks: the receiver's length_error (the compiled
  // size_mismatch_text, naming the call), and the sender released, not hung.
  threads::Team team{2};
  const Ring<2> ring;
  try {
    team.run([&](threads::Endpoint& ep) {
      Communicator comm{ep, ring};
      std::vector<double> v(ep.rank() == 0 ? 2048 : 1024, 1.0);
      broadcast(comm, v, 0);
    });
    FAIL("run() returned normally");
  } catch (const std::length_error& e) {
    CHECK_THAT(e.what(), Contains("rank 1 expects 8192 bytes from rank 0, which sends 16384 bytes"));
    CHECK_THAT(e.what(), Contains("(1024 and 2048 elements of 8 bytes)"));
    CHECK_THAT(e.what(), Contains("in broadcast"));
    CHECK_THAT(e.what(), Contains("Likely cause"));
  }
  // A rank that throws releases the one waiting for it (RankFailed naming it), and run()
  // rethrows the original exception.
  std::string released;
  try {
    team.run([&](threads::Endpoint& ep) {
      Communicator comm{ep, ring};
      if (ep.rank() == 1) throw std::runtime_error("rank 1 gives up");
      std::vector<double> v(4, 1.0), out(4);
      try {
        allreduce(comm, v, out, std::plus<>{});
      } catch (const RankFailed& e) {
        released = e.what();
        throw;
      }
    });
    FAIL("run() returned normally");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()) == "rank 1 gives up");
  }
  CHECK_THAT(released, Contains("released because rank 1 failed"));
  // The team is still usable.
  std::vector<double> sums(2);
  team.run([&](threads::Endpoint& ep) {
    Communicator comm{ep, ring};
    std::vector<double> v(3, static_cast<double>(ep.rank() + 1)), out(3);
    allreduce(comm, v, out, std::plus<>{});
    sums[ep.rank()] = out[2];
  });
  CHECK(sums == std::vector<double>{3.0, 3.0});
}

TEST_CASE("separate compilation: a front end's refusal carries its compiled text", "[separate]")
{
  // The message is put together by the compiled detail::throw_invalid; nothing is written.
  // (Catch's assertions are not thread-safe: each rank records, the main thread checks.)
  threads::Team team{2};
  const Ring<2> ring;
  std::vector<std::string> short_recv(2), bad_root(2);
  std::vector<std::vector<double>> outs(2);
  team.run([&](threads::Endpoint& ep) {
    Communicator comm{ep, ring};
    std::vector<double> in(5, 1.0), out(4, -1.0);
    try {
      allreduce(comm, in, out, std::plus<>{});
    } catch (const std::invalid_argument& e) {
      short_recv[ep.rank()] = e.what();
    }
    outs[ep.rank()] = out;
    try {
      broadcast(comm, in, 9);
    } catch (const std::invalid_argument& e) {
      bad_root[ep.rank()] = e.what();
    }
  });
  for (std::size_t r = 0; r < 2; ++r) {
    CHECK(short_recv[r] == "collectives::allreduce: the receive range has 4 elements, needs 5");
    CHECK(outs[r] == std::vector<double>(4, -1.0));
    CHECK(bad_root[r] == "collectives::broadcast: root 9 is not a rank of a communicator of 2");
  }
}
