// OSU-style alltoall latency benchmark over MPI (a plain MPI program, not Google Benchmark):
//
//   mpirun -n 4 ./mpi_alltoall [--max-bytes N] [--min-bytes N] [--rounds R] [--scale S] [--rows]
//
// For each block size (bytes per rank pair, 8 B .. 1 MiB by factors of 4) it times, in the
// same run and at the same p:
//   native      Open MPI's MPI_Alltoall;
//   hand        the pairwise algorithm written by hand with MPI_Sendrecv (the reference for
//               "the MPI transport costs at most a few percent over the same algorithm
//               written directly against MPI");
//   lib:<alg>   collectives::alltoall over collectives::mpi::Endpoint, for the default
//               choice and every algorithm that fits p.
// Method (as OSU's osu_alltoall): warm-up calls, then `iterations` timed calls, each
// followed by an MPI_Barrier outside the timed region; a rank's latency is its mean time
// per call; the table shows the mean over ranks, with the min and max over ranks. The
// variants run interleaved in `rounds` rounds (default 3) and the round with the lowest
// mean is kept, so a burst of noise from other processes on the machine hits one round,
// not one variant. Every variant's result is checked against MPI_Alltoall once per size.
// Exit status: 0, or 1 if a result was wrong.

#include <collectives/transport/mpi.hpp>

#include <collectives/collectives.hpp>
#if __has_include(<collectives/algorithm/alltoall/bruck.hpp>)
#include <collectives/algorithm/alltoall/bruck.hpp>
#define BENCH_BRUCK 1
#endif
#if __has_include(<collectives/algorithm/alltoall/hypercube.hpp>)
#include <collectives/algorithm/alltoall/hypercube.hpp>
#define BENCH_HYPERCUBE 1
#endif
#if __has_include(<collectives/algorithm/alltoall/dimensional.hpp>)
#include <collectives/algorithm/alltoall/dimensional.hpp>
#define BENCH_DIMENSIONAL 1
#endif

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace {

using namespace collectives;

struct Args {
  std::size_t min_bytes = 8;
  std::size_t max_bytes = std::size_t{1} << 20;
  int rounds = 3;
  double scale = 1.0; // multiplies the iteration counts
  bool rows = false;  // also print one row per (size, variant) with min and max
  bool median = false; // a rank's latency: median of its calls instead of the mean
};

Args parse(int argc, char** argv)
{
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string s = argv[i];
    auto next = [&]() -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "mpi_alltoall: %s needs a value\n", s.c_str());
        MPI_Abort(MPI_COMM_WORLD, 2);
      }
      return argv[++i];
    };
    if (s == "--max-bytes") a.max_bytes = std::strtoull(next(), nullptr, 10);
    else if (s == "--min-bytes") a.min_bytes = std::strtoull(next(), nullptr, 10);
    else if (s == "--rounds") a.rounds = std::max(1, std::atoi(next()));
    else if (s == "--scale") a.scale = std::atof(next());
    else if (s == "--rows") a.rows = true;
    else if (s == "--median") a.median = true;
    else {
      std::fprintf(stderr, "usage: mpi_alltoall [--min-bytes N] [--max-bytes N] [--rounds R] [--scale S] [--rows] [--median]\n");
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  return a;
}

/// One variant: runs one alltoall of `bytes` per block from `send` into `recv`.
struct Variant {
  std::string name;
  std::function<void(const std::byte* send, std::byte* recv, std::size_t bytes)> run;
};

/// The pairwise algorithm written by hand: own block by memcpy, then p - 1 MPI_Sendrecv
/// steps to rank + k, from rank - k (the same partners and order as PairwiseSchedule).
void hand_pairwise(const std::byte* send, std::byte* recv, std::size_t bytes, MPI_Comm comm)
{
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const auto r = static_cast<std::size_t>(rank), p = static_cast<std::size_t>(size);
  std::memcpy(recv + r * bytes, send + r * bytes, bytes);
  for (std::size_t k = 1; k < p; ++k) {
    const std::size_t to = (r + k) % p, from = (r + p - k) % p;
    MPI_Sendrecv(send + to * bytes, static_cast<int>(bytes), MPI_BYTE, static_cast<int>(to), 0, recv + from * bytes,
                 static_cast<int>(bytes), MPI_BYTE, static_cast<int>(from), 0, comm, MPI_STATUS_IGNORE);
  }
}

/// Mean (or median) seconds per call on this rank.
double time_variant(const Variant& v, const std::byte* send, std::byte* recv, std::size_t bytes, int warmup,
                    int iterations, bool median)
{
  for (int i = 0; i < warmup; ++i) v.run(send, recv, bytes);
  MPI_Barrier(MPI_COMM_WORLD);
  std::vector<double> t(static_cast<std::size_t>(iterations));
  for (auto& ti : t) {
    const double t0 = MPI_Wtime();
    v.run(send, recv, bytes);
    ti = MPI_Wtime() - t0;
    MPI_Barrier(MPI_COMM_WORLD);
  }
  if (median) {
    std::nth_element(t.begin(), t.begin() + static_cast<std::ptrdiff_t>(t.size() / 2), t.end());
    return t[t.size() / 2];
  }
  double total = 0;
  for (double ti : t) total += ti;
  return total / iterations;
}

struct Stat {
  double avg = 0, min = 0, max = 0; // microseconds, over ranks
};

Stat over_ranks(double seconds, int p)
{
  Stat s;
  double sum = 0;
  MPI_Allreduce(&seconds, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&seconds, &s.min, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&seconds, &s.max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  s.avg = sum / p * 1e6;
  s.min *= 1e6;
  s.max *= 1e6;
  return s;
}

std::string size_text(std::size_t b)
{
  if (b >= (1u << 20) && b % (1u << 20) == 0) return std::to_string(b >> 20) + " MiB";
  if (b >= 1024 && b % 1024 == 0) return std::to_string(b >> 10) + " KiB";
  return std::to_string(b) + " B";
}

int run(int argc, char** argv)
{
  const Args args = parse(argc, argv);
  mpi::Endpoint ep; // the library's own duplicate of MPI_COMM_WORLD
  const std::size_t p = ep.size(), me = ep.rank();
  const bool pow2 = (p & (p - 1)) == 0;
  std::size_t d = 0;
  while ((std::size_t{1} << d) < p) ++d;
  std::size_t rows = 1;
  for (std::size_t f = 1; f * f <= p; ++f)
    if (p % f == 0) rows = f;

  const Ring<> ring{p};
  Communicator<mpi::Endpoint, Ring<>> comm{ep, ring};
  // The library moves bytes of any trivially copyable type; the blocks here are bytes.
  auto lib = [&](auto alg) {
    return [&comm, alg](const std::byte* s, std::byte* r, std::size_t bytes) {
      alltoall(comm, std::span<const std::byte>(s, bytes * comm.size()), std::span<std::byte>(r, bytes * comm.size()),
               alg);
    };
  };

  std::vector<Variant> variants;
  variants.push_back({"native", [](const std::byte* s, std::byte* r, std::size_t bytes) {
                        MPI_Alltoall(s, static_cast<int>(bytes), MPI_BYTE, r, static_cast<int>(bytes), MPI_BYTE,
                                     MPI_COMM_WORLD);
                      }});
  variants.push_back({"hand", [](const std::byte* s, std::byte* r, std::size_t bytes) {
                        hand_pairwise(s, r, bytes, MPI_COMM_WORLD);
                      }});
  // The same loop through the transport alone (no schedule, no executor): what the
  // MPI transport itself costs over MPI_Sendrecv.
  variants.push_back({"transport", [&ep](const std::byte* s, std::byte* r, std::size_t bytes) {
                        const std::size_t p = ep.size(), me = ep.rank();
                        std::memcpy(r + me * bytes, s + me * bytes, bytes);
                        for (std::size_t k = 1; k < p; ++k) {
                          const std::size_t to = (me + k) % p, from = (me + p - k) % p;
                          const ConstBytes out{s + to * bytes, bytes};
                          const MutableBytes in{r + from * bytes, bytes};
                          const SendRequest snd{to, {&out, 1}};
                          const RecvRequest rcv{from, {&in, 1}};
                          ep.exchange({&snd, 1}, {&rcv, 1});
                        }
                      }});
  variants.push_back({"lib:default", lib(alltoall_algorithm::automatic)});
  variants.push_back({"lib:pairwise", lib(alltoall_algorithm::pairwise)});
  if (pow2) variants.push_back({"lib:pairwise_xor", lib(alltoall_algorithm::pairwise_xor)});
  variants.push_back({"lib:ring", lib(alltoall_algorithm::ring)});
  variants.push_back({"lib:ring_two_way", lib(alltoall_algorithm::ring_two_way)});
#ifdef BENCH_BRUCK
  variants.push_back({"lib:bruck", lib(alltoall_algorithm::bruck)});
#endif
#ifdef BENCH_HYPERCUBE
  std::optional<Communicator<mpi::Endpoint, Hypercube<>>> cube;
  if (pow2) {
    cube.emplace(ep, Hypercube<>{d});
    auto on_cube = [&](auto alg) {
      return [&cube, alg](const std::byte* s, std::byte* r, std::size_t bytes) {
        alltoall(*cube, std::span<const std::byte>(s, bytes * cube->size()),
                 std::span<std::byte>(r, bytes * cube->size()), alg);
      };
    };
    variants.push_back({"lib:standard_exchange", on_cube(alltoall_algorithm::standard_exchange)});
    variants.push_back({"lib:all_port", on_cube(alltoall_algorithm::all_port)});
  }
#endif
#ifdef BENCH_DIMENSIONAL
  std::optional<Communicator<mpi::Endpoint, Mesh<>>> mesh;
  if (rows > 1) {
    mesh.emplace(ep, Mesh<>{rows, p / rows});
    variants.push_back({"lib:dimensional", [&mesh](const std::byte* s, std::byte* r, std::size_t bytes) {
                          alltoall(*mesh, std::span<const std::byte>(s, bytes * mesh->size()),
                                   std::span<std::byte>(r, bytes * mesh->size()), alltoall_algorithm::dimensional);
                        }});
  }
#endif

  std::vector<std::size_t> sizes;
  for (std::size_t b = args.min_bytes; b <= args.max_bytes; b *= 4) sizes.push_back(b);
  if (!sizes.empty() && sizes.back() != args.max_bytes && args.max_bytes > args.min_bytes)
    sizes.push_back(args.max_bytes);

  if (me == 0) {
    std::printf("# collectives alltoall over MPI, p = %zu\n", p);
    std::printf("# latency per call in us: mean over ranks of each rank's %s (best of %d interleaved rounds)\n",
                args.median ? "median call" : "mean call (OSU)", args.rounds);
  }

  std::vector<std::vector<Stat>> table(sizes.size(), std::vector<Stat>(variants.size()));
  int wrong = 0;
  for (std::size_t si = 0; si < sizes.size(); ++si) {
    const std::size_t bytes = sizes[si];
    // OSU's counts: many iterations for small messages, fewer for large ones.
    const int base = bytes <= 8192 ? 1000 : bytes <= 65536 ? 100 : bytes <= 262144 ? 30 : 10;
    const int iterations = std::max(3, static_cast<int>(base * args.scale / std::max<std::size_t>(1, p / 4)));
    const int warmup = std::max(2, iterations / 10);
    std::vector<std::byte> send(bytes * p), recv(bytes * p), want(bytes * p);
    for (std::size_t i = 0; i < send.size(); ++i) send[i] = static_cast<std::byte>((me * 131 + i * 7) % 251);
    MPI_Alltoall(send.data(), static_cast<int>(bytes), MPI_BYTE, want.data(), static_cast<int>(bytes), MPI_BYTE,
                 MPI_COMM_WORLD);
    for (std::size_t vi = 0; vi < variants.size(); ++vi) {
      std::fill(recv.begin(), recv.end(), std::byte{0});
      variants[vi].run(send.data(), recv.data(), bytes);
      int bad = recv != want ? 1 : 0, any = 0;
      MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
      if (any && me == 0) std::printf("# WRONG RESULT: %s at %zu bytes\n", variants[vi].name.c_str(), bytes);
      wrong |= any;
    }
    for (int round = 0; round < args.rounds; ++round)
      for (std::size_t vi = 0; vi < variants.size(); ++vi) {
        const Stat s =
          over_ranks(time_variant(variants[vi], send.data(), recv.data(), bytes, warmup, iterations, args.median), static_cast<int>(p));
        if (round == 0 || s.avg < table[si][vi].avg) table[si][vi] = s;
      }
    if (me == 0 && args.rows)
      for (std::size_t vi = 0; vi < variants.size(); ++vi)
        std::printf("%-8s %-22s avg %10.2f  min %10.2f  max %10.2f  (%d iterations)\n", size_text(bytes).c_str(),
                    variants[vi].name.c_str(), table[si][vi].avg, table[si][vi].min, table[si][vi].max, iterations);
  }

  if (me == 0) {
    auto header = [&](const char* first) {
      std::printf("%-8s", first);
      for (const auto& v : variants) {
        std::string n = v.name.rfind("lib:", 0) == 0 ? v.name.substr(4) : v.name;
        if (n.size() > 12) n = n.substr(0, 12);
        std::printf(" %12s", n.c_str());
      }
      std::printf("\n");
    };
    std::printf("\nMean latency (us); 'transport': the hand loop through mpi::Endpoint; the rest: collectives::alltoall over it\n");
    header("size");
    for (std::size_t si = 0; si < sizes.size(); ++si) {
      std::printf("%-8s", size_text(sizes[si]).c_str());
      for (std::size_t vi = 0; vi < variants.size(); ++vi) std::printf(" %12.2f", table[si][vi].avg);
      std::printf("\n");
    }
    std::printf("\nRatio to native MPI_Alltoall (< 1: faster than Open MPI)\n");
    header("size");
    for (std::size_t si = 0; si < sizes.size(); ++si) {
      std::printf("%-8s", size_text(sizes[si]).c_str());
      for (std::size_t vi = 0; vi < variants.size(); ++vi)
        std::printf(" %12.3f", table[si][vi].avg / table[si][0].avg);
      std::printf("\n");
    }
    std::size_t pairwise_column = 0, transport_column = 0;
    for (std::size_t vi = 0; vi < variants.size(); ++vi) {
      if (variants[vi].name == "lib:pairwise") pairwise_column = vi;
      if (variants[vi].name == "transport") transport_column = vi;
    }
    std::printf("\nThe pairwise algorithm: by hand (MPI_Sendrecv loop), by hand through the transport, and\n"
                "lib:pairwise (schedule + executor + transport): mean, min and max over ranks\n");
    std::printf("%-8s %9s %9s %9s %9s %9s %9s %9s %9s %9s %8s %8s\n", "size", "hand", "min", "max", "transport", "min",
                "max", "lib", "min", "max", "tr/hand", "lib/hand");
    for (std::size_t si = 0; si < sizes.size(); ++si) {
      const Stat& h = table[si][1];
      const Stat& l = table[si][pairwise_column];
      const Stat& t = table[si][transport_column];
      std::printf("%-8s %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %8.3f %8.3f\n", size_text(sizes[si]).c_str(),
                  h.avg, h.min, h.max, t.avg, t.min, t.max, l.avg, l.min, l.max, t.avg / h.avg, l.avg / h.avg);
    }
    std::fflush(stdout);
  }
  return wrong;
}

} // namespace

int main(int argc, char** argv)
{
  MPI_Init(&argc, &argv);
  // A failing rank must not leave the others waiting: report and abort the job.
  const int wrong = collectives::mpi::abort_on_exception([&] { return run(argc, argv); });
  MPI_Finalize();
  return wrong;
}
