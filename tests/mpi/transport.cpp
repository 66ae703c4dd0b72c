// The MPI transport itself (collectives::mpi::Endpoint): communicator duplication and
// isolation from the application's messages, gather/scatter lists through each of the
// three paths (direct, packed, hindexed datatype), several messages per step, chunking of
// long messages (with a small artificial chunk limit), size checks, MPI error reporting.
// Runs at every rank count ctest gives it (1, 2, 3, 4, 8; shared memory and TCP).

#include <catch2/catch.hpp>

#include "support.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <sched.h>

using namespace collectives;
using collectives::mpi_testing::all_ranks;
using collectives::mpi_testing::or_abort;
using collectives::mpi_testing::world_rank;
using collectives::mpi_testing::world_size;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

/// Byte i of the message from rank `from` to rank `to` (the k-th message of the pair).
std::byte message_byte(std::size_t from, std::size_t to, std::size_t k, std::size_t i)
{
  return static_cast<std::byte>((from * 37 + to * 11 + k * 101 + i * 7 + 3) % 251);
}

/// A message of n bytes laid out as pieces of irregular sizes (zero-length ones included)
/// in a larger buffer, with gaps so no two pieces are adjacent. The sender and the
/// receiver use different `seed`s, so their piece boundaries differ.
struct Scattered {
  std::vector<std::byte> storage;
  std::vector<std::size_t> offsets, sizes;

  Scattered(std::size_t n, std::size_t seed)
  {
    std::size_t at = 1, left = n;
    for (std::size_t k = 0; left > 0 || k < 2; ++k) {
      const std::size_t want = (k + seed) % 4 == 0 ? 0 : 1 + (k * 13 + seed * 7) % 23;
      const std::size_t s = std::min(want, left);
      offsets.push_back(at);
      sizes.push_back(s);
      at += s + 2; // a gap
      left -= s;
    }
    storage.assign(at, std::byte{0xEE});
  }
  std::vector<ConstBytes> gather() const
  {
    std::vector<ConstBytes> v;
    for (std::size_t k = 0; k < sizes.size(); ++k) v.push_back({storage.data() + offsets[k], sizes[k]});
    return v;
  }
  std::vector<MutableBytes> scatter()
  {
    std::vector<MutableBytes> v;
    for (std::size_t k = 0; k < sizes.size(); ++k) v.push_back({storage.data() + offsets[k], sizes[k]});
    return v;
  }
  void fill(std::size_t from, std::size_t to, std::size_t msg)
  {
    std::size_t i = 0;
    for (std::size_t k = 0; k < sizes.size(); ++k)
      for (std::size_t b = 0; b < sizes[k]; ++b) storage[offsets[k] + b] = message_byte(from, to, msg, i++);
  }
  /// The message bytes are right and the gaps untouched.
  bool holds(std::size_t from, std::size_t to, std::size_t msg) const
  {
    std::vector<char> in_piece(storage.size(), 0);
    std::size_t i = 0;
    for (std::size_t k = 0; k < sizes.size(); ++k)
      for (std::size_t b = 0; b < sizes[k]; ++b) {
        in_piece[offsets[k] + b] = 1;
        if (storage[offsets[k] + b] != message_byte(from, to, msg, i++)) return false;
      }
    for (std::size_t b = 0; b < storage.size(); ++b)
      if (!in_piece[b] && storage[b] != std::byte{0xEE}) return false;
    return true;
  }
};

/// Endpoint options that force each path of the transport.
struct Variant {
  const char* name;
  mpi::Options options;
};
const Variant variants[] = {
  {"default", {}},
  {"never pack (hindexed datatypes)", {INT_MAX, 0, 0}},
  {"always pack", {INT_MAX, SIZE_MAX, 0}},
  {"chunks of 7 bytes, datatypes", {7, 0, 0}},
  {"chunks of 1 byte", {1, 0, 0}},
  {"chunks of 13 bytes, packed", {13, SIZE_MAX, 0}},
};

/// Bytes from rank `from` to rank `to` in message k: irregular, zero for some pairs.
std::size_t message_size(std::size_t from, std::size_t to, std::size_t k, std::size_t scale)
{
  return ((from * 5 + to * 3 + k * 7) % 6) * scale;
}

} // namespace

TEST_CASE("mpi::Endpoint works on its own duplicate of the communicator", "[mpi][transport]")
{
  const std::size_t p = world_size(), me = world_rank();
  or_abort([&] {
    mpi::Endpoint ep;
    CHECK(ep.rank() == me);
    CHECK(ep.size() == p);
    int cmp = MPI_UNEQUAL;
    MPI_Comm_compare(MPI_COMM_WORLD, ep.native_handle(), &cmp);
    CHECK(cmp == MPI_CONGRUENT); // same group and order, different context
    MPI_Errhandler handler = MPI_ERRHANDLER_NULL;
    MPI_Comm_get_errhandler(ep.native_handle(), &handler);
    CHECK(handler == MPI_ERRORS_RETURN);
    MPI_Errhandler_free(&handler);
    // The application's communicator keeps its own error handler.
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &handler);
    CHECK(handler == MPI_ERRORS_ARE_FATAL);
    MPI_Errhandler_free(&handler);

    // Moves transfer ownership; the moved-from endpoint owns nothing and refuses to work.
    const MPI_Comm own = ep.native_handle();
    mpi::Endpoint moved(std::move(ep));
    CHECK(moved.native_handle() == own);
    CHECK(ep.native_handle() == MPI_COMM_NULL); // NOLINT(bugprone-use-after-move): tested on purpose
    CHECK_THROWS_AS(ep.exchange({}, {}), std::logic_error);
    mpi::Endpoint other(MPI_COMM_WORLD);
    other = std::move(moved); // frees other's communicator (collective: all ranks do it)
    CHECK(other.native_handle() == own);
    CHECK(other.rank() == me);

    // Endpoints come and go without exhausting communicators.
    for (int i = 0; i < 200; ++i) {
      mpi::Endpoint e(MPI_COMM_WORLD);
      (void)e;
    }
  });
}

namespace {

/// The CPUs any rank of `node` may run on (the union of their affinity masks).
cpu_set_t node_cpus(MPI_Comm node)
{
  cpu_set_t mine, all;
  CPU_ZERO(&mine);
  CPU_ZERO(&all);
  REQUIRE(sched_getaffinity(0, sizeof mine, &mine) == 0);
  MPI_Allreduce(&mine, &all, static_cast<int>(sizeof mine), MPI_BYTE, MPI_BOR, node);
  return all;
}

} // namespace

TEST_CASE("mpi::Endpoint's cost model describes the machine and is the same on every rank", "[mpi][transport]")
{
  const std::size_t p = world_size(), me = world_rank();
  or_abort([&] {
    mpi::Endpoint ep;
    const CostModel m = ep.cost_model();
    // Every rank must pick the same default algorithms: compare every field with rank 0's.
    double mine[9] = {m.t_s,       m.t_w, m.t_h, m.t_r, static_cast<double>(m.lanes), m.half_duplex ? 1.0 : 0.0,
                      m.t_sync, m.crossbar ? 1.0 : 0.0, m.t_fresh};
    double root[9] = {};
    std::copy(mine, mine + 9, root);
    MPI_Bcast(root, 9, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    for (int i = 0; i < 9; ++i) CHECK(mine[i] == root[i]);

    // What this node looks like: its ranks, and the CPUs any of them may run on.
    MPI_Comm node = MPI_COMM_NULL;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int local = 0;
    MPI_Comm_size(node, &local);
    const cpu_set_t cpus = node_cpus(node);
    const auto cores = static_cast<unsigned>(CPU_COUNT(&cpus));
    MPI_Comm_free(&node);
    CAPTURE(p, me, local, cores);
    CHECK(m.half_duplex == (static_cast<std::size_t>(local) == p)); // ctest runs every rank on this machine
    CHECK(m.crossbar == m.half_duplex);                               // shared memory: no links
    CHECK(m.t_s == default_cost_model.t_s);
    if (static_cast<unsigned>(local) > cores) {
      // Oversubscribed: fewer lanes than ranks, and a wait per step for partners to be
      // scheduled, growing with the ranks per core.
      CHECK(m.lanes >= 1);
      CHECK(m.lanes < p);
      CHECK(m.lanes == static_cast<std::size_t>(static_cast<double>(p) * cores / local));
      CHECK(m.t_sync == Approx(4 * m.t_s * static_cast<double>(local) / cores));
      CHECK(m.t_fresh == Approx(0.5 * m.t_w)); // written data goes to memory between turns
    } else {
      CHECK(m.lanes == 0);
      CHECK(m.t_sync == 0);
      CHECK(m.t_fresh == 0);
    }
    CHECK(m.t_w == default_cost_model.t_w);
    CHECK_NOTHROW(m.validated());
    {
      // A Communicator starts with it.
      Communicator<mpi::Endpoint, Ring<>> comm(ep, Ring<>{p});
      CHECK(comm.cost_model().lanes == m.lanes);
      CHECK(comm.cost_model().half_duplex == m.half_duplex);
    }
    // Moving the endpoint keeps it.
    mpi::Endpoint moved(std::move(ep));
    CHECK(moved.cost_model().lanes == m.lanes);
    CHECK(moved.cost_model().t_s == m.t_s);
  });
}

TEST_CASE("mpi::Endpoint's cost model counts the CPUs the ranks may run on, not the machine's", "[mpi][transport]")
{
  // Every rank of the node narrowed to one CPU (as a cpuset or taskset would leave them):
  // the node's ranks share one core, so with two or more of them the model is the
  // oversubscribed one, whatever the machine has.
  or_abort([&] {
    MPI_Comm node = MPI_COMM_NULL;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int local = 0;
    MPI_Comm_size(node, &local);
    cpu_set_t before;
    CPU_ZERO(&before);
    REQUIRE(sched_getaffinity(0, sizeof before, &before) == 0);
    const cpu_set_t all = node_cpus(node);
    int first = 0;
    while (!CPU_ISSET(first, &all)) ++first; // the node's lowest CPU
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    REQUIRE(sched_setaffinity(0, sizeof one, &one) == 0);
    CostModel m;
    {
      mpi::Endpoint ep;
      m = ep.cost_model();
    }
    REQUIRE(sched_setaffinity(0, sizeof before, &before) == 0);
    MPI_Comm_free(&node);
    const std::size_t p = world_size();
    CAPTURE(p, local, first);
    if (local > 1) {
      CHECK(m.lanes == static_cast<std::size_t>(static_cast<double>(p) / local)); // the node runs one rank at a time
      CHECK(m.t_sync == Approx(4 * m.t_s * local));
    } else {
      CHECK(m.lanes == 0);
      CHECK(m.t_sync == 0);
    }
  });
}

TEST_CASE("the library's messages never match the application's receives", "[mpi][transport]")
{
  const std::size_t p = world_size(), me = world_rank();
  // The application waits for any message, any tag, on the communicator it gave us.
  int from_app = -1;
  MPI_Request app = MPI_REQUEST_NULL;
  MPI_Irecv(&from_app, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &app);
  int arrived = 0;
  or_abort([&] {
    mpi::Endpoint ep(MPI_COMM_WORLD);
    Communicator comm{ep};
    // Every alltoall algorithm's messages (every one of its list that fits the world's ring),
    // on the library's own communicator.
    std::vector<int> send(p * 3), recv(p * 3);
    for (std::size_t i = 0; i < send.size(); ++i) send[i] = static_cast<int>(me * 1000 + i);
    testing::for_each_fitting<Collective::alltoall>(Ring<>{p}, Problem{},
                                                    [&](auto alg) { alltoall(comm, send, recv, alg); });
    MPI_Test(&app, &arrived, MPI_STATUS_IGNORE);
  });
  CHECK(all_ranks(arrived == 0));
  // Now the application's own message arrives.
  const int value = static_cast<int>(me);
  MPI_Send(&value, 1, MPI_INT, static_cast<int>((me + 1) % p), 7, MPI_COMM_WORLD);
  MPI_Wait(&app, MPI_STATUS_IGNORE);
  CHECK(all_ranks(from_app == static_cast<int>((me + p - 1) % p)));
}

TEST_CASE("exchange moves gather lists into scatter lists, all ranks at once", "[mpi][transport]")
{
  const std::size_t p = world_size(), me = world_rank();
  for (const Variant& v : variants) {
    for (std::size_t scale : {std::size_t{1}, std::size_t{900}}) {
      // One MPI message per byte of kilobyte messages is slow and proves nothing more.
      if (v.options.max_message_bytes < 4 && scale > 1) continue;
      INFO("variant: " << v.name << ", scale " << scale);
      bool ok = true;
      or_abort([&] {
        mpi::Endpoint ep(MPI_COMM_WORLD, v.options);
        // All-port: two messages to every other rank in one exchange (the n-th from a to b
        // matches the n-th receive b posts from a).
        std::vector<Scattered> out, in;
        std::vector<std::vector<ConstBytes>> gathers;
        std::vector<std::vector<MutableBytes>> scatters;
        std::vector<SendRequest> sends;
        std::vector<RecvRequest> recvs;
        out.reserve(2 * p);
        in.reserve(2 * p);
        for (std::size_t k = 0; k < 2; ++k)
          for (std::size_t peer = 0; peer < p; ++peer) {
            if (peer == me) continue;
            out.emplace_back(message_size(me, peer, k, scale), me + k);
            out.back().fill(me, peer, k);
            in.emplace_back(message_size(peer, me, k, scale), peer * 3 + k + 1);
          }
        gathers.reserve(out.size());
        scatters.reserve(in.size());
        std::size_t i = 0;
        for (std::size_t k = 0; k < 2; ++k)
          for (std::size_t peer = 0; peer < p; ++peer) {
            if (peer == me) continue;
            gathers.push_back(out[i].gather());
            scatters.push_back(in[i].scatter());
            sends.push_back({peer, gathers.back()});
            recvs.push_back({peer, scatters.back()});
            ++i;
          }
        ep.exchange(sends, recvs);
        i = 0;
        for (std::size_t k = 0; k < 2; ++k)
          for (std::size_t peer = 0; peer < p; ++peer) {
            if (peer == me) continue;
            ok = ok && in[i].holds(peer, me, k);
            ++i;
          }

        // One-port (the MPI_Sendrecv path): to rank + 1, from rank - 1; then an empty
        // message each way; then a lone send or receive per rank pair (no Sendrecv).
        if (p > 1) {
          const std::size_t next = (me + 1) % p, prev = (me + p - 1) % p;
          Scattered o(message_size(me, next, 5, scale) + 1, me), r(message_size(prev, me, 5, scale) + 1, prev + 9);
          o.fill(me, next, 5);
          const auto g = o.gather();
          const auto s = r.scatter();
          const SendRequest snd{next, g};
          const RecvRequest rcv{prev, s};
          ep.exchange({&snd, 1}, {&rcv, 1});
          ok = ok && r.holds(prev, me, 5);

          const SendRequest empty_send{next, {}};
          const RecvRequest empty_recv{prev, {}};
          ep.exchange({&empty_send, 1}, {&empty_recv, 1});

          Scattered o2(message_size(me, next, 6, scale) + 3, me + 1), r2(message_size(prev, me, 6, scale) + 3, me);
          o2.fill(me, next, 6);
          const auto g2 = o2.gather();
          const auto s2 = r2.scatter();
          // Even ranks send first, then receive; odd ranks the other way round. With an
          // odd p the last rank pairs with rank 0 both ways: it still works, as each
          // lone message is matched by a lone receive.
          const SendRequest snd2{next, g2};
          const RecvRequest rcv2{prev, s2};
          if (me % 2 == 0) {
            ep.exchange({&snd2, 1}, {});
            ep.exchange({}, {&rcv2, 1});
          } else {
            ep.exchange({}, {&rcv2, 1});
            ep.exchange({&snd2, 1}, {});
          }
          ok = ok && r2.holds(prev, me, 6);
        }
      });
      CHECK(all_ranks(ok));
    }
  }
}

TEST_CASE("a message of several adjacent pieces, or long pieces, takes one MPI message", "[mpi][transport]")
{
  // Adjacent pieces are merged into one segment; long pieces go through a datatype with
  // the default options (mean piece >= pack_piece_bytes, total > pack_bytes).
  const std::size_t p = world_size(), me = world_rank();
  if (p < 2) return;
  bool ok = true;
  or_abort([&] {
    mpi::Endpoint ep;
    const std::size_t next = (me + 1) % p, prev = (me + p - 1) % p;
    std::vector<std::byte> a(3 * 8192), b(3 * 8192 + 100, std::byte{0});
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = message_byte(me, next, 0, i);
    const ConstBytes g[] = {{a.data(), 8192}, {a.data() + 8192, 8192}, {a.data() + 16384, 8192}};
    const MutableBytes s[] = {{b.data(), 8192}, {b.data() + 8192 + 50, 8192}, {b.data() + 16384 + 100, 8192}};
    const SendRequest snd{next, g};
    const RecvRequest rcv{prev, s};
    ep.exchange({&snd, 1}, {&rcv, 1});
    for (std::size_t i = 0; i < 3 * 8192; ++i) ok = ok && b[i + (i / 8192) * 50] == message_byte(prev, me, 0, i);
  });
  CHECK(all_ranks(ok));
}

TEST_CASE("a size mismatch is std::length_error naming both ranks; the endpoint goes on working", "[mpi][transport]")
{
  const std::size_t p = world_size(), me = world_rank();
  if (p < 2) return;
  struct Case {
    const char* name;
    std::size_t sent, expected; // rank 0 -> rank 1
    std::size_t chunk;
    bool sendrecv;   // rank 1 also sends to rank 0 (the MPI_Sendrecv path)
    const char* got; // expected in the message
  };
  const Case cases[] = {
    {"shorter", 8, 16, INT_MAX, false, "received 8"},
    {"longer (truncated)", 16, 8, INT_MAX, false, "which sent more"},
    {"shorter, MPI_Sendrecv", 4, 8, INT_MAX, true, "received 4"},
    {"longer, MPI_Sendrecv", 9, 8, INT_MAX, true, "which sent more"},
    {"shorter last chunk", 6, 8, 4, false, "chunk 1 of 4 bytes"},
    // An empty message is a request without pieces (a barrier's signal).
    {"longer than an empty message", 8, 0, INT_MAX, false, "which sent more"},
    {"longer than an empty message, MPI_Sendrecv", 8, 0, INT_MAX, true, "which sent more"},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    std::string what;
    bool fine = true;
    or_abort([&] {
      mpi::Endpoint ep(MPI_COMM_WORLD, {c.chunk, 4096, 2048});
      std::vector<std::byte> out(16, std::byte{1}), in(16);
      const ConstBytes g0{out.data(), c.sent};
      const ConstBytes g1{out.data(), c.expected};
      const MutableBytes s1{in.data(), c.expected};
      const MutableBytes s0{in.data(), c.expected};
      try {
        if (me == 0) {
          const SendRequest snd{1, {&g0, 1}};
          const RecvRequest rcv{1, {&s0, 1}};
          ep.exchange({&snd, 1}, c.sendrecv ? std::span<const RecvRequest>(&rcv, 1) : std::span<const RecvRequest>());
        } else if (me == 1) {
          // An expected size of 0 is a request without pieces.
          const SendRequest snd{0, std::span<const ConstBytes>(&g1, c.expected == 0 ? 0 : 1)};
          const RecvRequest rcv{0, std::span<const MutableBytes>(&s1, c.expected == 0 ? 0 : 1)};
          ep.exchange(c.sendrecv ? std::span<const SendRequest>(&snd, 1) : std::span<const SendRequest>(), {&rcv, 1});
        }
      } catch (const std::length_error& e) {
        what = e.what();
      }
      if (me != 1 && !what.empty()) fine = false;
      // The endpoint goes on working: nothing of the failed step is left posted to take
      // this exchange's messages.
      if (me <= 1) {
        const std::uint64_t mine = 1000 + me, theirs = 1001 - me;
        std::uint64_t got = 0;
        const ConstBytes g{reinterpret_cast<const std::byte*>(&mine), sizeof mine};
        const MutableBytes s{reinterpret_cast<std::byte*>(&got), sizeof got};
        const SendRequest snd{1 - me, {&g, 1}};
        const RecvRequest rcv{1 - me, {&s, 1}};
        ep.exchange({&snd, 1}, {&rcv, 1});
        if (got != theirs) fine = false;
      }
    });
    INFO("rank 1 says: " << what);
    const bool right = me != 1 || (contains(what, "rank 1 expects " + std::to_string(c.expected) + " bytes from rank 0") &&
                                   contains(what, c.got));
    CHECK(all_ranks(right && fine));
  }
}

TEST_CASE("bad arguments and MPI errors are exceptions naming the problem", "[mpi][transport]")
{
  const std::size_t p = world_size(), me = world_rank();
  // Checked before any MPI call, identically on every rank.
  CHECK_THROWS_AS(mpi::Endpoint(MPI_COMM_WORLD, {0, 0, 0}), std::invalid_argument);
  CHECK_THROWS_AS(mpi::Endpoint(MPI_COMM_WORLD, {std::size_t{INT_MAX} + 1, 0, 0}), std::invalid_argument);
  or_abort([&] {
    mpi::Endpoint ep;
    const SendRequest to_self{me, {}};
    const RecvRequest from_nowhere{p, {}};
    CHECK_THROWS_AS(ep.exchange({&to_self, 1}, {}), std::invalid_argument);
    CHECK_THROWS_AS(ep.exchange({}, {&from_nowhere, 1}), std::invalid_argument);
  });

  // The error text: the call, the rank and MPI's own description.
  try {
    mpi::detail::check(MPI_ERR_RANK, "MPI_Example", 3);
    FAIL("check did not throw");
  } catch (const mpi::Error& e) {
    CHECK(e.code() == MPI_ERR_RANK);
    CHECK(e.call() == "MPI_Example");
    CHECK(contains(e.what(), "MPI_Example failed on rank 3: "));
    CHECK(contains(e.what(), mpi::detail::error_string(MPI_ERR_RANK)));
    CHECK(!mpi::detail::error_string(MPI_ERR_RANK).empty());
  }

  // Without a rank (the endpoint's constructor before it knows its own).
  try {
    mpi::detail::check(MPI_ERR_COMM, "MPI_Example", mpi::detail::unknown_rank);
    FAIL("check did not throw");
  } catch (const mpi::Error& e) {
    CHECK(contains(e.what(), "MPI_Example failed: "));
  }

  // Communicators the endpoint cannot serve: std::invalid_argument, before any call on
  // them (MPI_COMM_NULL's errors would go to MPI's handler, by default a job abort; an
  // inter-communicator crashed in Open MPI's MPI_Comm_split_type).
  const auto refusal = [](MPI_Comm comm) -> std::string {
    try {
      mpi::Endpoint bad(comm);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "(taken)";
  };
  CHECK(contains(refusal(MPI_COMM_NULL), "the communicator is MPI_COMM_NULL"));
  if (p >= 2) {
    MPI_Comm half = MPI_COMM_NULL, inter = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, int(me % 2), int(me), &half);
    // The other group's leader: world rank 1 for the even ranks, 0 for the odd.
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, me % 2 == 0 ? 1 : 0, 77, &inter);
    CHECK(contains(refusal(inter), "inter-communicator"));
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
  }

  // A real MPI failure: every rank sends 8 bytes from a null pointer to the next one
  // (MPI_ERR_BUFFER from MPI's argument check, so no rank waits for a message).
  if (p >= 2) {
    std::string what, call;
    int code = MPI_SUCCESS;
    or_abort([&] {
      mpi::Endpoint ep;
      const ConstBytes nothing{nullptr, 8};
      const SendRequest send{(me + 1) % p, {&nothing, 1}};
      try {
        ep.exchange({&send, 1}, {});
      } catch (const mpi::Error& e) {
        what = e.what();
        call = e.call();
        code = e.code();
      }
    });
    INFO(what);
    CHECK(call.starts_with("MPI_"));
    CHECK(code != MPI_SUCCESS);
    CHECK(contains(what, call + " failed on rank " + std::to_string(me) + ": "));
    CHECK(contains(what, mpi::detail::error_string(code)));
  }
}

namespace {
/// Options under which the endpoint takes every step's work (StepWork), whatever its size.
mpi::Options work_on_every_step()
{
  mpi::Options o;
  o.overlap_work_min_bytes = 0;
  o.overlap_work_bytes = SIZE_MAX;
  return o;
}
} // namespace

TEST_CASE("a step's work runs once, while the step waits when the endpoint takes it", "[mpi][transport]")
{
  const std::size_t p = world_size(), me = world_rank();
  const mpi::Options every_step = work_on_every_step();
  mpi::Options never;
  never.overlap_work_bytes = 0;

  // Which steps the endpoint takes work for: the default window, and the options' ends.
  or_abort([&] {
    const mpi::Options defaults;
    mpi::Endpoint ep;
    CHECK_FALSE(ep.takes_step_work(defaults.overlap_work_min_bytes - 1));
    CHECK(ep.takes_step_work(defaults.overlap_work_min_bytes));
    CHECK(ep.takes_step_work(defaults.overlap_work_bytes));
    CHECK_FALSE(ep.takes_step_work(defaults.overlap_work_bytes + 1));
    mpi::Endpoint all(MPI_COMM_WORLD, every_step), none(MPI_COMM_WORLD, never);
    CHECK(all.takes_step_work(0));
    CHECK(all.takes_step_work(std::size_t{1} << 30));
    CHECK_FALSE(none.takes_step_work(2048));
  });
  if (p < 2) return;

  // Every path of a step (an empty step, one message each way, a lone send or receive,
  // several pieces, chunked) at sizes below, inside and above the window: the work runs
  // exactly once and the messages arrive. The work here writes a buffer no message
  // touches and reads what this rank sends, as the executor's local copies do.
  const std::size_t next = (me + 1) % p, prev = (me + p - 1) % p;
  for (const mpi::Options& options : {mpi::Options{}, every_step, never, mpi::Options{4096, 0, 0}}) {
    for (std::size_t n : {std::size_t{0}, std::size_t{8}, std::size_t{3000}, std::size_t{12000}, std::size_t{200000}}) {
      INFO("message of " << n << " bytes, window " << options.overlap_work_min_bytes << ".."
                         << options.overlap_work_bytes << ", max_message_bytes " << options.max_message_bytes);
      bool ok = true;
      or_abort([&] {
        mpi::Endpoint ep(MPI_COMM_WORLD, options);
        std::vector<std::byte> out(n), in(n + 16, std::byte{0xEE}), copy(n);
        for (std::size_t i = 0; i < n; ++i) out[i] = message_byte(me, next, 0, i);
        struct Work {
          const std::vector<std::byte>* from;
          std::vector<std::byte>* to;
          int runs = 0;
        } work{&out, &copy};
        const StepWork step_work{[](void* c) {
                                   auto& w = *static_cast<Work*>(c);
                                   ++w.runs;
                                   std::copy(w.from->begin(), w.from->end(), w.to->begin());
                                 },
                                 &work};
        StepInfo info;
        info.call = ep.begin_call();
        auto arrived = [&](std::size_t from) {
          for (std::size_t i = 0; i < n; ++i)
            if (in[i] != message_byte(from, me, 0, i)) return false;
          return std::all_of(in.begin() + static_cast<std::ptrdiff_t>(n), in.end(),
                             [](std::byte b) { return b == std::byte{0xEE}; });
        };
        auto copied = [&] { return work.runs == 1 && copy == out; };

        // One message each way, in one piece.
        const ConstBytes g[] = {{out.data(), n}};
        const MutableBytes s[] = {{in.data(), n}};
        const SendRequest snd{next, g};
        const RecvRequest rcv{prev, s};
        ep.exchange({&snd, 1}, {&rcv, 1}, info, step_work);
        ok = ok && copied() && arrived(prev);

        // The same message in three pieces (the planned path).
        std::fill(in.begin(), in.end(), std::byte{0xEE});
        std::fill(copy.begin(), copy.end(), std::byte{0});
        work.runs = 0;
        const ConstBytes g3[] = {{out.data(), n / 3}, {out.data() + n / 3, n / 3}, {out.data() + 2 * (n / 3), n - 2 * (n / 3)}};
        const MutableBytes s3[] = {{in.data(), n / 2}, {in.data() + n / 2, n - n / 2}};
        const SendRequest snd3{next, g3};
        const RecvRequest rcv3{prev, s3};
        ++info.step;
        ep.exchange({&snd3, 1}, {&rcv3, 1}, info, step_work);
        ok = ok && copied() && arrived(prev);

        // A lone send to the next rank and a lone receive from the previous one, even ranks
        // sending first (as "exchange moves gather lists ..." above; one step number for
        // both, so that with an odd p the last rank's send matches rank 0's receive).
        std::fill(in.begin(), in.end(), std::byte{0xEE});
        ++info.step;
        for (std::size_t turn = 0; turn < 2; ++turn) {
          std::fill(copy.begin(), copy.end(), std::byte{0});
          work.runs = 0;
          if ((me % 2 == 0) == (turn == 0))
            ep.exchange({&snd, 1}, {}, info, step_work);
          else
            ep.exchange({}, {&rcv, 1}, info, step_work);
          ok = ok && copied();
        }
        ok = ok && arrived(prev);

        // An empty step.
        work.runs = 0;
        ++info.step;
        ep.exchange({}, {}, info, step_work);
        ok = ok && work.runs == 1;
      });
      CHECK(all_ranks(ok));
    }
  }
}

TEST_CASE("a step's work that throws ends the exchange with its exception", "[mpi][transport]")
{
  const std::size_t p = world_size(), me = world_rank();
  if (p < 2) return;
  const mpi::Options every_step = work_on_every_step();
  bool ok = true;
  or_abort([&] {
    mpi::Endpoint ep(MPI_COMM_WORLD, every_step);
    const std::size_t next = (me + 1) % p, prev = (me + p - 1) % p;
    std::vector<std::byte> out(64, std::byte{1}), in(64);
    const ConstBytes g[] = {{out.data(), out.size()}};
    const MutableBytes s[] = {{in.data(), in.size()}};
    const SendRequest snd{next, g};
    const RecvRequest rcv{prev, s};
    StepInfo info;
    info.call = ep.begin_call();
    // Rank 0's work throws; its message has been posted, so the others' steps complete
    // and the next rank's receive gets it.
    const StepWork throws{[](void*) { throw std::domain_error("work of rank 0"); }, nullptr};
    const StepWork nothing{[](void*) {}, nullptr};
    std::string what;
    try {
      ep.exchange({&snd, 1}, me == 0 ? std::span<const RecvRequest>{} : std::span<const RecvRequest>{&rcv, 1}, info,
                  me == 0 ? throws : nothing);
    } catch (const std::domain_error& e) {
      what = e.what();
    }
    ok = me == 0 ? what == "work of rank 0" : what.empty() && in == out;
    // Rank 0 took no message in that step (it posted no receive): the endpoint goes on.
    ++info.step;
    std::fill(in.begin(), in.end(), std::byte{0});
    if (me == 0) ep.exchange({}, {&rcv, 1}, info);
    else if (me == p - 1) ep.exchange({&snd, 1}, {}, info);
    if (me == 0) ok = ok && in == out;
  });
  CHECK(all_ranks(ok));
}

TEST_CASE("collectives in a loop over MPI run their plans again and equal MPI's, new data each round",
          "[mpi][transport][replay]")
{
  // A call like one of the latest four runs its plan again (detail::LastCalls): over MPI
  // its messages must still match the other ranks' and their tags the call's number. Each
  // round gives new data; every result is compared with Open MPI's own call on the same
  // data. Four calls in turn, then one alone, five rounds each.
  const std::size_t p = world_size(), me = world_rank(), n = 7, rounds = 5;
  const std::size_t root = p - 1;
  bool ok = true;
  std::uint64_t replayed = 0;
  or_abort([&] {
    mpi::Endpoint ep(MPI_COMM_WORLD);
    Communicator comm{ep};
    std::vector<long> in(n), out(n), want(n), bcast(n), blocks(n * p), all(n * p), want_all(n * p);
    auto fill = [&](std::size_t k) {
      for (std::size_t i = 0; i < n; ++i) in[i] = static_cast<long>(100 * me + 10 * i + 7 * k + 1);
      for (std::size_t i = 0; i < n * p; ++i) blocks[i] = static_cast<long>(1000 * me + i + 3 * k);
    };
    for (std::size_t k = 0; k < rounds; ++k) {
      fill(k);
      allreduce(comm, in, out, std::plus<>{});
      MPI_Allreduce(in.data(), want.data(), static_cast<int>(n), MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
      ok = ok && out == want;
      for (std::size_t i = 0; i < n; ++i) bcast[i] = me == root ? in[i] : -1;
      broadcast(comm, bcast, root);
      std::vector<long> bc = me == root ? in : std::vector<long>(n, -1);
      MPI_Bcast(bc.data(), static_cast<int>(n), MPI_LONG, static_cast<int>(root), MPI_COMM_WORLD);
      ok = ok && bcast == bc;
      std::fill(out.begin(), out.end(), -1);
      reduce(comm, in, out, std::plus<>{}, root);
      ok = ok && (me == root ? out == want : out == std::vector<long>(n, -1));
      alltoall(comm, blocks, all);
      MPI_Alltoall(blocks.data(), static_cast<int>(n), MPI_LONG, want_all.data(), static_cast<int>(n), MPI_LONG,
                   MPI_COMM_WORLD);
      ok = ok && all == want_all;
    }
    for (std::size_t k = 0; k < rounds; ++k) {
      fill(k + rounds);
      allgather(comm, in, all);
      MPI_Allgather(in.data(), static_cast<int>(n), MPI_LONG, want_all.data(), static_cast<int>(n), MPI_LONG,
                    MPI_COMM_WORLD);
      ok = ok && all == want_all;
    }
    replayed = comm.context().calls_replayed();
  });
  CHECK(all_ranks(ok));
  // At p = 1 nothing runs steps; else at least the all-reduces, broadcasts, all-to-alls
  // and all-gathers of rounds 2-5 ran again (a non-root reduce may run an algorithm that
  // borrows the context's memory for the result, which never runs again).
  CHECK(all_ranks(p == 1 || replayed >= 4 * (rounds - 1)));
}
