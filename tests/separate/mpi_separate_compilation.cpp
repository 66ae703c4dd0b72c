// The MPI transport in the compiled mode (collectives::compiled_mpi): this program sees
// only the declarations of the MPI endpoint, the executor core and the error texts, and
// links their compiled copies. Every algorithm of allreduce that fits, the default, and
// alltoall and broadcast (root in the middle) run against serial references at the
// rank counts ctest gives it, sizes 0, 1, odd and large; a message longer than its
// receive must raise the compiled text on the receiver, and a chunk limit from the
// options must still move large messages whole. Its own main: every rank's failures
// are summed, so the exit status is the same on every rank.

#if !defined(COLLECTIVES_SEPARATE_COMPILATION)
#error "collectives::compiled_mpi must define COLLECTIVES_SEPARATE_COMPILATION for its consumers"
#endif

#include <collectives/collectives.hpp>
#include <collectives/transport/mpi.hpp>

#include <boost/hana/for_each.hpp>

#include <cstddef>
#include <cstdio>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

using namespace collectives;

namespace {

int failures = 0;

void expect(bool ok, const std::string& what, std::size_t rank)
{
  if (ok) return;
  ++failures;
  std::fprintf(stderr, "rank %zu: FAILED: %s\n", rank, what.c_str());
}

double value(std::size_t rank, std::size_t i) { return static_cast<double>((rank * 7 + i * 3) % 17); }

void run(mpi::Endpoint& ep)
{
  const std::size_t p = ep.size(), me = ep.rank();
  Communicator comm{ep, Ring<>{p}};
  for (const std::size_t m : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{1500}, std::size_t{40000}}) {
    const std::string at = " (p " + std::to_string(p) + ", m " + std::to_string(m) + ")";
    std::vector<double> want(m, 0.0), in(m), out(m);
    for (std::size_t r = 0; r < p; ++r)
      for (std::size_t i = 0; i < m; ++i) want[i] += value(r, i);
    for (std::size_t i = 0; i < m; ++i) in[i] = value(me, i);
    allreduce(comm, in, out, std::plus<>{});
    expect(out == want, "allreduce default" + at, me);
    boost::hana::for_each(algorithms<Collective::allreduce>, [&](auto alg) {
      if constexpr (fits_topology_type<decltype(alg), Ring<>>) {
        if (!fits(alg, comm.topology())) return;
        std::vector<double> o(m, -1.0);
        allreduce(comm, in, o, std::plus<>{}, alg);
        expect(o == want, "allreduce " + std::string(alg.name) + at, me);
      }
    });
    std::vector<long> send(p * m), recv(p * m, -1);
    for (std::size_t i = 0; i < send.size(); ++i) send[i] = static_cast<long>(me * 1000003 + i);
    alltoall(comm, send, recv);
    bool ok = true;
    for (std::size_t j = 0; j < p; ++j)
      for (std::size_t e = 0; e < m; ++e) ok = ok && recv[j * m + e] == static_cast<long>(j * 1000003 + me * m + e);
    expect(ok, "alltoall" + at, me);
    const std::size_t root = p / 2;
    std::vector<double> b(m, -1.0);
    if (me == root)
      for (std::size_t i = 0; i < m; ++i) b[i] = value(root, i);
    broadcast(comm, b, root);
    ok = true;
    for (std::size_t i = 0; i < m; ++i) ok = ok && b[i] == value(root, i);
    expect(ok, "broadcast" + at, me);
  }
}

/// A message longer than its receive, between ranks 0 and 1 only (on an endpoint of its
/// own, so the other ranks' call numbers stay in step): rank 1 throws the compiled text.
void mismatch(mpi::Endpoint& ep)
{
  const std::size_t me = ep.rank();
  if (ep.size() < 2 || me > 1) return;
  std::vector<double> v(me == 0 ? 20 : 10, 1.0);
  const StepInfo info{"broadcast", "binomial", ep.begin_call(), 0, 1, sizeof(double)};
  std::string what;
  try {
    if (me == 0) {
      const ConstBytes piece{reinterpret_cast<const std::byte*>(v.data()), v.size() * sizeof(double)};
      const SendRequest s{1, std::span<const ConstBytes>(&piece, 1)};
      ep.exchange(std::span<const SendRequest>(&s, 1), {}, info);
    } else {
      const MutableBytes into{reinterpret_cast<std::byte*>(v.data()), v.size() * sizeof(double)};
      const RecvRequest r{0, std::span<const MutableBytes>(&into, 1)};
      ep.exchange({}, std::span<const RecvRequest>(&r, 1), info);
    }
  } catch (const std::length_error& e) {
    what = e.what();
  }
  if (me == 1) {
    expect(what.find("rank 1 expects 80 bytes from rank 0") != std::string::npos, "mismatch text: " + what, me);
    expect(what.find("in broadcast (binomial), call 1") != std::string::npos, "mismatch names the call: " + what, me);
  } else {
    expect(what.empty(), "the sender of the long message throws nothing: " + what, me);
  }
}

} // namespace

int main(int argc, char** argv)
{
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  try {
    {
      mpi::Endpoint ep{MPI_COMM_WORLD};
      run(ep);
    }
    {
      mpi::Endpoint ep{MPI_COMM_WORLD};
      mismatch(ep);
    }
    {
      // Small chunks: every message past 256 bytes goes in pieces.
      mpi::Endpoint ep{MPI_COMM_WORLD, mpi::Options{.max_message_bytes = 256}};
      Communicator comm{ep, Ring<>{ep.size()}};
      std::vector<double> in(3000, 1.0 + static_cast<double>(ep.rank())), out(3000);
      allreduce(comm, in, out, std::plus<>{});
      const double want = static_cast<double>(ep.size() * (ep.size() + 1)) / 2;
      bool ok = true;
      for (double x : out) ok = ok && x == want;
      expect(ok, "allreduce in 256-byte chunks", ep.rank());
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rank %d: unexpected exception: %s\n", rank, e.what());
    ++failures;
  }
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) std::printf("%s: %d failure(s)\n", total == 0 ? "passed" : "FAILED", total);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
