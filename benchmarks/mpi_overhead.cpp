// What the library adds to a small call over MPI, back to back (a plain MPI program, not a
// test):
//
//   mpirun -n 2 ./mpi_overhead [--bytes B] [--calls N] [--rounds R]
//
// Each row is a loop of N calls (default 100000) with no barrier between them, so a call's
// fixed cost is not hidden under the barrier's noise as in mpi_collectives' OSU loop. The
// rows run interleaved in R rounds (default 7), after 1000 warm-up calls each; a row's time
// is its best round's time per call on the slowest rank. Each row is a ratio to the row it
// is measured against, in the same run:
//   exchange   B bytes each way with the rank's partner (rank ^ 1): MPI_Sendrecv; the same
//              with MPI_Irecv, MPI_Isend, MPI_Testsome and MPI_Get_count written by hand on
//              the endpoint's communicator, the receive posted first (against MPI_Sendrecv)
//              and the send first (what the transport calls, against the receive first);
//              mpi::Endpoint::exchange with a StepInfo, as a collective's step calls it
//              (against the send-first hand loop).
//   barrier, broadcast, allreduce, alltoall: Open MPI's own call; the library's default
//              call over mpi::Endpoint (B bytes: the message, or one rank's block).
// A second table times a send on its own, as a rooted collective's root makes it: rank 0's
// mean call in an OSU loop (an untimed MPI_Barrier after each call; N/5 calls a round),
// while rank 1 receives with MPI_Recv: MPI_Send; MPI_Isend then MPI_Wait, and MPI_Isend
// then one MPI_Testsome poll after another (against MPI_Isend and MPI_Wait: Open MPI's
// tests begin with a full fence, which waits for the send's write to leave the core); and
// the root of Open MPI's broadcast and of the library's default one (the sends need p >= 2).
// A third table times one message at a time (each call's sender is the last call's
// receiver, so a call is a message's latency; back to back, N calls): at p = 2, MPI_Send
// received by MPI_Recv, by MPI_Irecv and MPI_Wait, by MPI_Irecv and MPI_Test polls (the
// transport's way for one request: a long wait can look for stale messages) and by
// MPI_Irecv and MPI_Testsome polls (its way for several); then Open MPI's
// broadcast and the library's default one with the root moving on by one rank each call.
// The exchange rows need an even number of ranks (left out otherwise). Before the rounds,
// one call of the library's broadcast, all-reduce and all-to-all is checked against Open
// MPI's (and the hand loop checks every message's size). Exit status: 0, 1 if a result was
// wrong, 2 for a bad argument.

#include "harness.hpp" // parse_size

#include <collectives/transport/mpi.hpp>

#include <collectives/collectives.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <cstring>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

namespace {

using namespace collectives;

struct Row {
  std::string name;
  std::function<void()> call;
  int against = -1; // the row this one is a ratio to (-1: none)
  double best = 1e300;
};

} // namespace

int main(int argc, char** argv)
{
  MPI_Init(&argc, &argv);
  int rank_i = 0, size_i = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_i);
  MPI_Comm_size(MPI_COMM_WORLD, &size_i);
  const auto me = static_cast<std::size_t>(rank_i), p = static_cast<std::size_t>(size_i);
  std::size_t bytes = 8, calls = 100000, rounds = 7;
  bool usage = false;
  try {
    for (int i = 1; i < argc && !usage; ++i) {
      const std::string a = argv[i];
      if (a == "--bytes" && i + 1 < argc) bytes = bench::parse_size(argv[++i]);
      else if (a == "--calls" && i + 1 < argc) calls = bench::parse_size(argv[++i]);
      else if (a == "--rounds" && i + 1 < argc) rounds = bench::parse_size(argv[++i]);
      else usage = true;
    }
  } catch (const std::exception&) {
    usage = true;
  }
  if (usage || calls == 0 || rounds == 0) {
    if (me == 0) std::fprintf(stderr, "usage: mpi_overhead [--bytes B] [--calls N] [--rounds R]\n");
    MPI_Finalize();
    return 2;
  }
  const std::size_t n = std::max<std::size_t>(1, bytes / sizeof(double)); // doubles a message
  int wrong = 0;
  {
    mpi::Endpoint ep;
    Communicator comm(ep, Ring<>{p});
    const MPI_Comm native = ep.native_handle();
    std::vector<double> out(n * p), in(n * p);
    std::iota(out.begin(), out.end(), static_cast<double>(me * n * p));
    const int count = static_cast<int>(bytes);
    const int peer = static_cast<int>(me ^ 1);
    std::vector<Row> rows;
    if (p % 2 == 0) {
      rows.push_back({"exchange: MPI_Sendrecv", [&] {
                        MPI_Sendrecv(out.data(), count, MPI_BYTE, peer, 1, in.data(), count, MPI_BYTE, peer, 1,
                                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                      }});
      // The same calls by hand, the receive posted first (as MPI_Sendrecv does) or the
      // send first (as the transport does for one message each way).
      const auto by_hand = [&](bool send_first) {
        MPI_Request r[2];
        MPI_Status st[2];
        int idx[2];
        if (send_first) MPI_Isend(out.data(), count, MPI_BYTE, peer, 1, native, &r[1]);
        MPI_Irecv(in.data(), count, MPI_BYTE, peer, 1, native, &r[0]);
        if (!send_first) MPI_Isend(out.data(), count, MPI_BYTE, peer, 1, native, &r[1]);
        for (int open = 2; open > 0;) {
          int done = 0;
          MPI_Testsome(2, r, &done, idx, st);
          if (done == MPI_UNDEFINED) break;
          for (int k = 0; k < done; ++k) {
            if (idx[k] != 0) continue;
            int got = 0;
            MPI_Get_count(&st[k], MPI_BYTE, &got);
            if (got != count) wrong = 1;
          }
          open -= done;
        }
      };
      rows.push_back({"exchange: by hand, receive first (Irecv, Isend, Testsome)", [by_hand] { by_hand(false); }, 0});
      rows.push_back({"exchange: by hand, send first (Isend, Irecv, Testsome)", [by_hand] { by_hand(true); }, 1});
      rows.push_back({"exchange: mpi::Endpoint::exchange", [&] {
                        const ConstBytes g{reinterpret_cast<const std::byte*>(out.data()), bytes};
                        const MutableBytes m{reinterpret_cast<std::byte*>(in.data()), bytes};
                        const SendRequest s{static_cast<std::size_t>(peer), {&g, 1}};
                        const RecvRequest r{static_cast<std::size_t>(peer), {&m, 1}};
                        const StepInfo info{"exchange", "by hand", ep.begin_call(), 0, 1, 1};
                        ep.exchange({&s, 1}, {&r, 1}, info);
                      },
                      2});
    }
    auto pair = [&](const char* name, std::function<void()> native_call, std::function<void()> library_call) {
      rows.push_back({std::string(name) + ": Open MPI", std::move(native_call)});
      const int native_row = static_cast<int>(rows.size()) - 1;
      rows.push_back({std::string(name) + ": library default", std::move(library_call), native_row});
    };
    const int count_n = static_cast<int>(n);
    std::span<const double> one(out.data(), n);
    std::span<double> result(in.data(), n);
    pair("barrier", [] { MPI_Barrier(MPI_COMM_WORLD); }, [&] { barrier(comm); });
    pair("broadcast", [&] { MPI_Bcast(in.data(), count_n, MPI_DOUBLE, 0, MPI_COMM_WORLD); },
         [&] { broadcast(comm, result, 0); });
    pair("allreduce", [&] { MPI_Allreduce(out.data(), in.data(), count_n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); },
         [&] { allreduce(comm, one, result, std::plus<>{}); });
    pair("alltoall",
         [&] { MPI_Alltoall(out.data(), count_n, MPI_DOUBLE, in.data(), count_n, MPI_DOUBLE, MPI_COMM_WORLD); },
         [&] { alltoall(comm, std::span<const double>(out), std::span<double>(in)); });

    // One checked call of each library collective against Open MPI's.
    const auto first_n = [&](const std::vector<double>& v) {
      return std::vector<double>(v.begin(), v.begin() + count_n);
    };
    std::copy(out.begin(), out.end(), in.begin()); // rank 0's values are broadcast
    MPI_Bcast(in.data(), count_n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    std::vector<double> want = first_n(in);
    std::copy(out.begin(), out.end(), in.begin());
    broadcast(comm, result, 0);
    wrong |= first_n(in) != want;
    MPI_Allreduce(out.data(), want.data(), count_n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    allreduce(comm, one, result, std::plus<>{});
    wrong |= first_n(in) != want;
    want.resize(n * p);
    MPI_Alltoall(out.data(), count_n, MPI_DOUBLE, want.data(), count_n, MPI_DOUBLE, MPI_COMM_WORLD);
    alltoall(comm, std::span<const double>(out), std::span<double>(in));
    wrong |= want != in;

    const auto back_to_back = [&](std::vector<Row>& table) {
      for (std::size_t r = 0; r < rounds; ++r)
        for (Row& row : table) {
          for (int i = 0; i < 1000; ++i) row.call();
          MPI_Barrier(MPI_COMM_WORLD);
          const auto t0 = std::chrono::steady_clock::now();
          for (std::size_t i = 0; i < calls; ++i) row.call();
          const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() /
                           static_cast<double>(calls) * 1e9;
          double slowest = 0;
          MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
          row.best = std::min(row.best, slowest);
        }
    };
    back_to_back(rows);

    // One message at a time: each call's sender is the previous call's receiver, so a
    // call is one message's latency (where back-to-back broadcasts let the root run ahead).
    // How a lone receive waits (the transport polls, so that a long wait can look for stale
    // messages: with MPI_Test when one request is left, else MPI_Testsome) against a
    // blocking MPI_Recv; then broadcasts whose root moves on by one rank a call.
    std::vector<Row> chain_rows;
    if (p == 2) {
      const auto message_row = [&](const char* name, auto receive, int against) {
        chain_rows.push_back({name, [&, receive, turn = std::size_t{0}]() mutable {
                                if (turn++ % 2 == me) MPI_Send(out.data(), count, MPI_BYTE, peer, 3, native);
                                else receive();
                              },
                              against});
      };
      message_row("message: MPI_Send, MPI_Recv",
                  [&] { MPI_Recv(in.data(), count, MPI_BYTE, peer, 3, native, MPI_STATUS_IGNORE); }, -1);
      message_row("message: MPI_Send, MPI_Irecv and MPI_Wait", [&] {
        MPI_Request q;
        MPI_Irecv(in.data(), count, MPI_BYTE, peer, 3, native, &q);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
      }, 0);
      message_row("message: MPI_Send, MPI_Irecv and MPI_Test polls", [&] {
        MPI_Request q;
        MPI_Irecv(in.data(), count, MPI_BYTE, peer, 3, native, &q);
        for (int done = 0; done == 0;) MPI_Test(&q, &done, MPI_STATUS_IGNORE);
      }, 0);
      message_row("message: MPI_Send, MPI_Irecv and MPI_Testsome polls", [&] {
        MPI_Request q;
        MPI_Irecv(in.data(), count, MPI_BYTE, peer, 3, native, &q);
        for (int done = 0, idx = 0; done == 0;) MPI_Testsome(1, &q, &done, &idx, MPI_STATUSES_IGNORE);
      }, 0);
    }
    chain_rows.push_back({"broadcast, the next root each call: Open MPI", [&, root = std::size_t{0}]() mutable {
                            MPI_Bcast(in.data(), count_n, MPI_DOUBLE, static_cast<int>(root++ % p), MPI_COMM_WORLD);
                          }});
    chain_rows.push_back({"broadcast, the next root each call: library default",
                          [&, root = std::size_t{0}]() mutable { broadcast(comm, result, root++ % p); },
                          static_cast<int>(chain_rows.size()) - 1});
    back_to_back(chain_rows);
    // A send on its own: rank 0's time, each call followed by an untimed barrier.
    std::vector<Row> root_rows;
    const auto recv_on_1 = [&] {
      if (me == 1) MPI_Recv(in.data(), count, MPI_BYTE, 0, 2, native, MPI_STATUS_IGNORE);
    };
    const auto send_row = [&](const char* name, auto send, int against) {
      root_rows.push_back({name, [&, send] {
                             if (me == 0) send();
                             else recv_on_1();
                           },
                           against});
    };
    if (p >= 2) {
      send_row("send: MPI_Send", [&] { MPI_Send(out.data(), count, MPI_BYTE, 1, 2, native); }, -1);
      send_row("send: MPI_Isend, MPI_Wait", [&] {
        MPI_Request q;
        MPI_Isend(out.data(), count, MPI_BYTE, 1, 2, native, &q);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
      }, 0);
      send_row("send: MPI_Isend, MPI_Testsome polls", [&] {
        MPI_Request q;
        MPI_Isend(out.data(), count, MPI_BYTE, 1, 2, native, &q);
        for (int done = 0, idx = 0; done == 0;) MPI_Testsome(1, &q, &done, &idx, MPI_STATUSES_IGNORE);
      }, 1);
    }
    root_rows.push_back({"broadcast root: Open MPI", [&] { MPI_Bcast(in.data(), count_n, MPI_DOUBLE, 0, MPI_COMM_WORLD); }});
    root_rows.push_back({"broadcast root: library default", [&] { broadcast(comm, result, 0); },
                         static_cast<int>(root_rows.size()) - 1});
    const std::size_t osu_calls = std::max<std::size_t>(1, calls / 5);
    for (std::size_t r = 0; r < rounds; ++r)
      for (Row& row : root_rows) {
        for (int i = 0; i < 1000; ++i) row.call();
        MPI_Barrier(MPI_COMM_WORLD);
        double t = 0;
        for (std::size_t i = 0; i < osu_calls; ++i) {
          const auto t0 = std::chrono::steady_clock::now();
          row.call();
          t += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
          MPI_Barrier(MPI_COMM_WORLD);
        }
        row.best = std::min(row.best, t / static_cast<double>(osu_calls) * 1e9);
      }

    int any_wrong = 0;
    MPI_Allreduce(&wrong, &any_wrong, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    wrong = any_wrong;
    if (me == 0) {
      std::printf("Back-to-back calls, p = %zu, %zu bytes, best of %zu rounds of %zu calls (slowest rank)\n\n", p,
                  bytes, rounds, calls);
      const auto print_table = [](const std::vector<Row>& table) {
        std::printf("| call | ns | ratio | to |\n|---|--:|--:|---|\n");
        for (const Row& row : table) {
          if (row.against < 0) std::printf("| %s | %.1f | | |\n", row.name.c_str(), row.best);
          else
            std::printf("| %s | %.1f | %.2f | %s |\n", row.name.c_str(), row.best,
                        row.best / table[static_cast<std::size_t>(row.against)].best,
                        table[static_cast<std::size_t>(row.against)].name.c_str());
        }
      };
      print_table(rows);
      std::printf("\nOne message at a time, %zu bytes: each call's sender is the last call's receiver (a call is one\n"
                  "message's latency), best of %zu rounds of %zu calls (slowest rank)\n\n",
                  bytes, rounds, calls);
      print_table(chain_rows);
      std::printf("\nA send on its own, rank 0 to rank 1 (MPI_Recv), %zu bytes: rank 0's mean call, an untimed\n"
                  "barrier after each, best of %zu rounds of %zu calls\n\n",
                  bytes, rounds, osu_calls);
      print_table(root_rows);
      if (wrong) std::printf("\nWRONG: a result differs from Open MPI's\n");
    }
  }
  MPI_Finalize();
  return wrong ? 1 : 0;
}
