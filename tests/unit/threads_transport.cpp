// The threads transport: message shapes, ordering, all-port steps, and what happens when a
// rank fails (it must never hang and never leave a peer reading freed memory).
//
// Catch2's assertions are not thread-safe, so rank functions only record what they saw;
// the checks run on the test's thread after Team::run returns.

#include <catch2/catch.hpp>
#include <collectives/detail/cpus.hpp>

#include "../support/failures.hpp"
#include "../support/harness.hpp"
#include "../support/registry.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include <sched.h>

#if defined(__linux__) && __has_include(<linux/membarrier.h>)
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

using namespace collectives;
using Catch::Matchers::Contains;

namespace {

using Bytes = std::vector<unsigned char>;

/// Where each piece of a message of the given piece sizes lives in a buffer that leaves
/// one gap byte after every piece, so a transport that writes past a piece is caught.
struct Layout {
  std::vector<std::size_t> sizes;
  std::vector<std::size_t> offsets;
  std::size_t total = 0;
  std::size_t extent = 0;

  explicit Layout(std::vector<std::size_t> s) : sizes(std::move(s))
  {
    for (std::size_t n : sizes) {
      offsets.push_back(extent);
      extent += n + 1;
      total += n;
    }
  }
  /// Buffer position of message byte j.
  std::size_t at(std::size_t j) const
  {
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      if (j < sizes[i]) return offsets[i] + j;
      j -= sizes[i];
    }
    return extent;
  }
  std::vector<ConstBytes> gather(const Bytes& buf) const
  {
    std::vector<ConstBytes> v;
    for (std::size_t i = 0; i < sizes.size(); ++i)
      v.push_back({reinterpret_cast<const std::byte*>(buf.data()) + offsets[i], sizes[i]});
    return v;
  }
  std::vector<MutableBytes> scatter(Bytes& buf) const
  {
    std::vector<MutableBytes> v;
    for (std::size_t i = 0; i < sizes.size(); ++i)
      v.push_back({reinterpret_cast<std::byte*>(buf.data()) + offsets[i], sizes[i]});
    return v;
  }
};

constexpr unsigned char gap_fill = 0xEE;

/// Message byte j of the message `tag` from rank `from`.
unsigned char payload(std::size_t from, std::size_t tag, std::size_t j)
{
  return static_cast<unsigned char>((from * 37 + tag * 11 + j * 3 + 1) % 200);
}

/// One single-piece message of `n` bytes.
struct Message {
  Bytes data;
  ConstBytes piece{};
  MutableBytes landing{};
  Message(std::size_t n, std::size_t from, std::size_t tag) : data(n)
  {
    for (std::size_t j = 0; j < n; ++j) data[j] = payload(from, tag, j);
    piece = {reinterpret_cast<const std::byte*>(data.data()), n};
    landing = {reinterpret_cast<std::byte*>(data.data()), n};
  }
  bool holds(std::size_t from, std::size_t tag) const
  {
    for (std::size_t j = 0; j < data.size(); ++j)
      if (data[j] != payload(from, tag, j)) return false;
    return true;
  }
};

/// Per-rank notes, read after run() returns.
struct Notes {
  std::vector<std::string> errors;
  bool released = false;
  std::size_t failed_rank = ~std::size_t{0};
  std::string message;
};

/// Runs body(ep, notes) on every rank; a RankFailed is noted, then rethrown.
template <class F>
void run_noting(threads::Team& team, std::vector<Notes>& notes, F body)
{
  notes.assign(team.size(), Notes{});
  team.run([&](threads::Endpoint& ep) {
    Notes& n = notes[ep.rank()];
    try {
      body(ep, n);
    } catch (const RankFailed& e) {
      n.released = true;
      n.failed_rank = e.failed_rank();
      n.message = e.what();
      throw;
    } catch (const std::exception& e) {
      n.message = e.what();
      throw;
    }
  });
}

void check_no_errors(const std::vector<Notes>& notes)
{
  for (std::size_t r = 0; r < notes.size(); ++r)
    for (const auto& e : notes[r].errors) FAIL_CHECK("rank " << r << ": " << e);
}

/// One round of a ring shift by d: send a 16-byte message to rank + d, receive one from
/// rank - d, and note an error if it is not the expected one.
void shift_round(threads::Endpoint& ep, std::size_t d, std::size_t round, Notes& n)
{
  const std::size_t p = ep.size(), r = ep.rank();
  Message out(16, r, round), in(16, 0, 0);
  const std::size_t to = (r + d) % p, from = (r + p - d % p) % p;
  const SendRequest s{to, {&out.piece, 1}};
  const RecvRequest q{from, {&in.landing, 1}};
  ep.exchange({&s, 1}, {&q, 1});
  if (!in.holds(from, round)) n.errors.push_back("round " + std::to_string(round) + ": wrong data");
}

} // namespace

TEST_CASE("threads: Team rejects an empty team", "[threads]")
{
  CHECK_THROWS_AS(threads::Team{0}, std::invalid_argument);
}

TEST_CASE("threads: the team's cost model is one node's shared memory, oversubscribed or not", "[threads][cost]")
{
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  for (std::size_t p : {std::size_t{1}, std::size_t{cores}, std::size_t{cores} + 1, 4 * std::size_t{cores}}) {
    const CostModel m = threads::Team(p).cost_model();
    CAPTURE(p, cores);
    CHECK_NOTHROW(m.validated());
    CHECK(m.half_duplex);
    CHECK(m.crossbar); // any rank reaches any other directly, whatever the topology says
    if (p > cores) {
      // Ranks share the cores: fewer lanes, and a wait per step that grows with the ranks
      // per core.
      CHECK(m.lanes == cores);
      CHECK(m.t_sync > 0);
      CHECK(m.t_sync < threads::Team(2 * p).cost_model().t_sync);
    } else {
      CHECK(m.lanes == 0);
      CHECK(m.t_sync == 0);
    }
    // A word the sender wrote during the collective crosses from the other core's cache
    // at twice a word's time; with more ranks than cores the picks were measured without.
    CHECK(m.t_fresh == (p > cores ? 0 : m.t_w));
  }
}

TEST_CASE("threads: gather and scatter lists of different shapes", "[threads]")
{
  // 23-byte messages cut every which way, including empty pieces and one piece per byte.
  const std::vector<std::vector<std::size_t>> shapes = {
    {23}, {1, 22}, {0, 5, 0, 18, 0}, {7, 7, 7, 2}, std::vector<std::size_t>(23, 1), {22, 0, 1},
  };
  // The defaults (eager), and single copy shared in chunks of 3 bytes, so chunks cut
  // pieces of both sides every which way too.
  const auto options = GENERATE(threads::Options{}, (threads::Options{.eager_bytes = 1, .share_chunk = 3}));
  threads::Team team{2, options};
  std::vector<Notes> notes;
  run_noting(team, notes, [&](threads::Endpoint& ep, Notes& n) {
    const std::size_t me = ep.rank(), peer = 1 - me;
    for (std::size_t a = 0; a < shapes.size(); ++a)
      for (std::size_t b = 0; b < shapes.size(); ++b) {
        // Rank 0 sends shape a and receives shape b; rank 1 the other way round.
        const Layout send_layout(shapes[me == 0 ? a : b]);
        const Layout recv_layout(shapes[me == 0 ? b : a]);
        const std::size_t tag = a * shapes.size() + b;
        Bytes src(send_layout.extent, gap_fill), dst(recv_layout.extent, gap_fill);
        for (std::size_t j = 0; j < send_layout.total; ++j) src[send_layout.at(j)] = payload(me, tag, j);
        const Bytes src_before = src;
        const auto gather = send_layout.gather(src);
        const auto scatter = recv_layout.scatter(dst);
        const SendRequest s{peer, gather};
        const RecvRequest r{peer, scatter};
        ep.exchange({&s, 1}, {&r, 1});
        Bytes want(recv_layout.extent, gap_fill);
        for (std::size_t j = 0; j < recv_layout.total; ++j) want[recv_layout.at(j)] = payload(peer, tag, j);
        if (dst != want) n.errors.push_back("shapes " + std::to_string(a) + " -> " + std::to_string(b));
        if (src != src_before) n.errors.push_back("the sender's buffer changed");
      }
    // Empty messages: no pieces at all against empty pieces.
    const ConstBytes empty_piece{};
    const MutableBytes empty_landing{};
    const SendRequest s{peer, me == 0 ? std::span<const ConstBytes>{} : std::span<const ConstBytes>{&empty_piece, 1}};
    const RecvRequest r{peer,
                        me == 0 ? std::span<const MutableBytes>{&empty_landing, 1} : std::span<const MutableBytes>{}};
    ep.exchange({&s, 1}, {&r, 1});
    // And an exchange with nothing in it returns at once.
    ep.exchange({}, {});
  });
  check_no_errors(notes);
}

TEST_CASE("threads: several messages to one peer keep their order", "[threads]")
{
  // Rank 0 sends 5 same-sized messages to rank 1 and 3 to rank 2, interleaved; ranks 1 and 2
  // each send 4 to rank 0. Equal sizes, so only the content tells the order.
  threads::Team team{3};
  std::vector<Notes> notes;
  run_noting(team, notes, [&](threads::Endpoint& ep, Notes& n) {
    for (std::size_t round = 0; round < 20; ++round) {
      std::vector<Message> out, in;
      std::vector<SendRequest> sends;
      std::vector<RecvRequest> recvs;
      std::vector<std::size_t> in_from, in_tag;
      out.reserve(16);
      in.reserve(16);
      auto send = [&](std::size_t to, std::size_t tag) {
        out.emplace_back(12, ep.rank(), round * 100 + tag);
        sends.push_back({to, {&out.back().piece, 1}});
      };
      auto recv = [&](std::size_t from, std::size_t tag) {
        in.emplace_back(12, 99, 99);
        recvs.push_back({from, {&in.back().landing, 1}});
        in_from.push_back(from);
        in_tag.push_back(round * 100 + tag);
      };
      if (ep.rank() == 0) {
        for (std::size_t t = 0; t < 5; ++t) {
          send(1, t);
          if (t < 3) send(2, t);
        }
        // Receives posted from rank 2 first, then rank 1, then interleaved.
        recv(2, 0);
        recv(2, 1);
        recv(1, 0);
        recv(2, 2);
        recv(1, 1);
        recv(1, 2);
        recv(1, 3);
        recv(2, 3);
      } else {
        for (std::size_t t = 0; t < 4; ++t) send(0, t);
        for (std::size_t t = 0; t < (ep.rank() == 1 ? 5u : 3u); ++t) recv(0, t);
      }
      ep.exchange(sends, recvs);
      for (std::size_t i = 0; i < in.size(); ++i)
        if (!in[i].holds(in_from[i], in_tag[i]))
          n.errors.push_back("round " + std::to_string(round) + ": message " + std::to_string(i) + " from rank " +
                             std::to_string(in_from[i]) + " out of order");
    }
  });
  check_no_errors(notes);
}

TEST_CASE("threads: a payload left in the ring never passes for the next message", "[threads]")
{
  // White box: the receiver polls the first word of the place its next entry starts, for
  // that entry's position + 1. With eager_bytes 64 and a 512-byte ring, an entry is a
  // 64-byte header and the payload rounded up to 64, from position 0. Four 64-byte
  // messages (positions 0, 128, 256, 384) leave payloads at offsets 64, 192, 320 and 448
  // whose words all read "position + 1" for the ring's next lap there (577, 705, 833,
  // 961); an empty message at 512 moves the next entry to 576, offset 64. The message that
  // goes there is sent late, while rank 1 already polls offset 64: the stale payload must
  // not count as a message (the sender zeroes the next entry's word before it publishes).
  threads::Team team{2, threads::Options{.eager_bytes = 64, .channel_bytes = 512, .spin = 16}};
  std::vector<std::uint64_t> got(8, 0);
  team.run([&](threads::Endpoint& ep) {
    auto one = [&](std::size_t bytes, std::uint64_t word) {
      std::vector<std::uint64_t> data(bytes / 8, word);
      const ConstBytes out{reinterpret_cast<const std::byte*>(data.data()), bytes};
      const MutableBytes in{reinterpret_cast<std::byte*>(data.data()), bytes};
      const SendRequest s{1, {&out, 1}};
      const RecvRequest r{0, {&in, 1}};
      if (ep.rank() == 0) ep.exchange({&s, 1}, {});
      else ep.exchange({}, {&r, 1});
      return data.empty() ? 0 : data.front();
    };
    const bool receiver = ep.rank() == 1;
    for (std::uint64_t k = 0; k < 4; ++k) {
      const std::uint64_t word = one(64, 512 + 64 + 128 * k + 1);
      if (receiver) got[k] = word;
    }
    one(0, 0);
    if (!receiver) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const std::uint64_t last = one(8, 42);
    if (receiver) got[4] = last;
  });
  for (std::uint64_t k = 0; k < 4; ++k) CHECK(got[k] == 512 + 64 + 128 * k + 1);
  CHECK(got[4] == 42);
}

TEST_CASE("threads: messages of 0 to 36 bytes arrive whole, copied or combined, across the ring's wraps", "[threads]")
{
  // A message of 1 to 32 bytes travels in its entry's header line and the rest of the
  // sender's step (its names) in the entry's second line; from 33 bytes the payload is in
  // the second line. On a 512-byte ring (entries of 64 bytes when empty, else 128) the
  // sizes cycling 0..36 wrap once a cycle, and every size lands at four offsets, the first
  // entry after a wrap among them (16 wraps in the 592 messages). The
  // sender's message is two pieces and so is the receive, split at different places; every
  // other message is combined (bytes added) into a buffer that holds 1s. Guard bytes around
  // the receive must stay untouched.
  threads::Team team{2, threads::Options{.eager_bytes = 64, .channel_bytes = 512}};
  constexpr std::size_t guard = 8;
  constexpr unsigned char fill = 0xA5;
  const ReceiveCombine add{[](const void*, std::byte* dst, const std::byte* src, std::size_t bytes) {
                             for (std::size_t i = 0; i < bytes; ++i)
                               dst[i] = std::byte(static_cast<unsigned char>(std::to_integer<unsigned>(dst[i]) +
                                                                             std::to_integer<unsigned>(src[i])));
                           },
                           nullptr, 0};
  auto byte_of = [](std::size_t k, std::size_t i) { return static_cast<unsigned char>(k * 31 + i * 7 + 1); };
  std::vector<std::string> errors;
  team.run([&](threads::Endpoint& ep) {
    for (std::size_t k = 0; k < 592; ++k) {
      const std::size_t bytes = k % 37;
      const bool combine = k % 2 == 1;
      if (ep.rank() == 0) {
        Bytes data(bytes);
        for (std::size_t i = 0; i < bytes; ++i) data[i] = byte_of(k, i);
        const std::size_t cut = bytes / 3;
        const auto* d = reinterpret_cast<const std::byte*>(data.data());
        const ConstBytes pieces[2] = {{d, cut}, {d + cut, bytes - cut}};
        const SendRequest s{1, pieces};
        ep.exchange({&s, 1}, {});
      } else {
        Bytes got(bytes + 2 * guard, fill);
        for (std::size_t i = 0; i < bytes; ++i) got[guard + i] = combine ? 1 : fill;
        const std::size_t cut = bytes - bytes / 4;
        auto* g = reinterpret_cast<std::byte*>(got.data()) + guard;
        const MutableBytes pieces[2] = {{g, cut}, {g + cut, bytes - cut}};
        const RecvRequest r{0, pieces, combine ? &add : nullptr};
        ep.exchange({}, {&r, 1});
        bool whole = true;
        for (std::size_t i = 0; i < bytes; ++i)
          whole = whole && got[guard + i] == static_cast<unsigned char>(byte_of(k, i) + (combine ? 1 : 0));
        for (std::size_t i = 0; i < guard; ++i) whole = whole && got[i] == fill && got[guard + bytes + i] == fill;
        if (!whole) errors.push_back("message " + std::to_string(k) + " (" + std::to_string(bytes) + " bytes)");
      }
    }
  });
  CHECK(errors == std::vector<std::string>{});
}

TEST_CASE("threads: all-port exchange with every other rank at once", "[threads]")
{
  constexpr std::size_t p = 6;
  threads::Team team{p};
  std::vector<Notes> notes;
  run_noting(team, notes, [&](threads::Endpoint& ep, Notes& n) {
    const std::size_t me = ep.rank();
    for (std::size_t round = 0; round < 30; ++round) {
      std::vector<Message> out, in;
      out.reserve(p);
      in.reserve(p);
      std::vector<SendRequest> sends;
      std::vector<RecvRequest> recvs;
      // Sizes differ per pair, so a message delivered to the wrong receive throws.
      for (std::size_t d = 1; d < p; ++d) {
        const std::size_t to = (me + d) % p;
        out.emplace_back(8 + me * p + to, me, round * p + to);
        sends.push_back({to, {&out.back().piece, 1}});
      }
      // Receives posted in the opposite order, rotated by round.
      for (std::size_t d = 1; d < p; ++d) {
        const std::size_t from = (me + p - 1 - (d + round) % (p - 1)) % p;
        in.emplace_back(8 + from * p + me, 99, 99);
        recvs.push_back({from, {&in.back().landing, 1}});
      }
      ep.exchange(sends, recvs);
      for (std::size_t i = 0; i < recvs.size(); ++i)
        if (!in[i].holds(recvs[i].peer, round * p + me))
          n.errors.push_back("round " + std::to_string(round) + ": wrong data from " + std::to_string(recvs[i].peer));
    }
  });
  check_no_errors(notes);
}

TEST_CASE("threads: a byte-count mismatch fails the team with std::length_error", "[threads]")
{
  threads::Team team{2};
  std::vector<Notes> notes;
  try {
    // Above the eager limit (512 B, or 4 KiB on one core), so that the sender waits for the
    // receiver to copy from its memory (an eager sender would return at once, having
    // nothing to wait for).
    run_noting(team, notes, [&](threads::Endpoint& ep, Notes&) {
      Message m(ep.rank() == 0 ? 8192 : 4096, ep.rank(), 0);
      if (ep.rank() == 0) {
        const SendRequest s{1, {&m.piece, 1}};
        ep.exchange({&s, 1}, {});
      } else {
        const RecvRequest r{0, {&m.landing, 1}};
        ep.exchange({}, {&r, 1});
      }
    });
    FAIL("run() returned normally");
  } catch (const std::length_error& e) {
    CHECK_THAT(e.what(), Contains("rank 1 expects 4096 bytes from rank 0, which sends 8192"));
  }
  // The sender was released, naming the receiver.
  CHECK(notes[0].released);
  CHECK(notes[0].failed_rank == 1);
  CHECK_FALSE(notes[1].released);
}

TEST_CASE("threads: a throwing rank releases the others and run() rethrows its exception", "[threads]")
{
  constexpr std::size_t p = 8, rounds = 40;
  threads::Team team{p};
  // (failing rank, round it throws in): the calling thread's rank and worker ranks, at once
  // and in the middle of the run. Each fails at least 8 rounds before the end, so that every
  // other rank ends up waiting for it (the shift distances spread the dependency).
  const std::size_t cases[][2] = {{3, 0}, {0, 0}, {7, 25}, {0, 13}, {5, rounds - 8}};
  for (const auto& c : cases) {
    const std::size_t bad = c[0], bad_round = c[1];
    INFO("rank " << bad << " throws in round " << bad_round);
    std::vector<Notes> notes;
    try {
      run_noting(team, notes, [&](threads::Endpoint& ep, Notes& n) {
        for (std::size_t round = 0; round < rounds; ++round) {
          if (ep.rank() == bad && round == bad_round)
            throw std::domain_error("boom from rank " + std::to_string(bad));
          shift_round(ep, 1 + round % (p - 1), round, n);
        }
      });
      FAIL_CHECK("run() returned normally");
    } catch (const RankFailed& e) {
      FAIL_CHECK("run() rethrew RankFailed instead of the original exception: " << e.what());
    } catch (const std::domain_error& e) {
      CHECK(std::string(e.what()) == "boom from rank " + std::to_string(bad));
    }
    for (std::size_t r = 0; r < p; ++r) {
      if (r == bad) continue;
      INFO("rank " << r);
      INFO(notes[r].message);
      CHECK(notes[r].released);
      CHECK(notes[r].failed_rank == bad);
      CHECK_THAT(notes[r].message, Contains("rank " + std::to_string(bad) + " failed"));
    }
    check_no_errors(notes);

    // The team is usable again.
    run_noting(team, notes, [&](threads::Endpoint& ep, Notes& n) {
      for (std::size_t round = 0; round < 10; ++round) shift_round(ep, 1 + round % (p - 1), round, n);
    });
    check_no_errors(notes);
  }
}

TEST_CASE("threads: waiting for a rank that has returned throws RankFailed naming it", "[threads]")
{
  threads::Team team{4};
  std::vector<Notes> notes;
  try {
    run_noting(team, notes, [&](threads::Endpoint& ep, Notes&) {
      // Rank 1 skips the call; rank 0 waits to receive from it; rank 2 sends it a message
      // under the eager limit, which completes without rank 1 (copied into the channel).
      // (With rank 2 waiting too -- a message above the limit -- the second of ranks 0 and
      // 2 to notice is released naming the first, which threw, not rank 1: see the report.)
      Message m(8, ep.rank(), 0);
      if (ep.rank() == 0) {
        const RecvRequest r{1, {&m.landing, 1}};
        ep.exchange({}, {&r, 1});
      } else if (ep.rank() == 2) {
        const SendRequest s{1, {&m.piece, 1}};
        ep.exchange({&s, 1}, {});
      }
    });
    FAIL("run() returned normally");
  } catch (const RankFailed& e) {
    CHECK(e.failed_rank() == 1);
    CHECK_THAT(e.what(), Contains("rank 1, which has already returned"));
  }
  CHECK(notes[0].released);
  CHECK(notes[0].failed_rank == 1);
  // Rank 2's eager send completes without rank 1 (it does not wait for its receiver); it is
  // released only when rank 0's failure reaches it before its exchange starts, and then
  // never as the culprit.
  if (notes[2].released) CHECK(notes[2].failed_rank != 2);
  CHECK_FALSE(notes[1].released);
  CHECK_FALSE(notes[3].released);
}

TEST_CASE("threads: an invalid peer is an exception, not a hang", "[threads]")
{
  threads::Team team{3};
  std::vector<Notes> notes;
  CHECK_THROWS_WITH(run_noting(team, notes,
                               [&](threads::Endpoint& ep, Notes& n) {
                                 if (ep.rank() == 2) {
                                   Message m(4, 2, 0);
                                   const SendRequest s{3, {&m.piece, 1}};
                                   ep.exchange({&s, 1}, {});
                                 }
                                 shift_round(ep, 1, 0, n);
                               }),
                    Contains("rank 2, in an exchange outside any collective call, sends to invalid rank 3"));
}

TEST_CASE("threads: a failing team never frees memory a receiver is still copying", "[threads]")
{
  // Rank 1 offers a large message; rank 2 starts copying it at the moment rank 0 fails.
  // Rank 1 is released, but must not unwind (and free its buffer) until rank 2 is done
  // reading it.
  constexpr std::size_t big = std::size_t{16} << 20;
  threads::Team team{3};
  for (int attempt = 0; attempt < 3; ++attempt) {
    std::atomic<bool> copying{false};
    std::vector<Notes> notes;
    CHECK_THROWS_WITH(run_noting(team, notes,
                                 [&](threads::Endpoint& ep, Notes& n) {
                                   if (ep.rank() == 0) {
                                     while (!copying.load()) std::this_thread::yield();
                                     throw std::runtime_error("rank 0 fails");
                                   }
                                   if (ep.rank() == 1) {
                                     Bytes data(big, 7);
                                     const ConstBytes piece{reinterpret_cast<const std::byte*>(data.data()), big};
                                     const SendRequest s{2, {&piece, 1}};
                                     ep.exchange({&s, 1}, {});
                                   } else {
                                     Bytes data(big, 0);
                                     const MutableBytes piece{reinterpret_cast<std::byte*>(data.data()), big};
                                     const RecvRequest r{1, {&piece, 1}};
                                     // Give rank 1 time to post and go to sleep.
                                     std::this_thread::sleep_for(std::chrono::milliseconds(20));
                                     copying.store(true);
                                     ep.exchange({}, {&r, 1});
                                     if (data.front() != 7 || data.back() != 7) n.errors.push_back("wrong data");
                                   }
                                 }),
                      "rank 0 fails");
    check_no_errors(notes);
  }
}

namespace {

/// A combine of doubles (dst += src) that notes which threads ran it, whether every call
/// was cut at whole elements, and can wait or throw on a chosen thread.
struct SharedAdd {
  std::atomic<std::thread::id> receiver{}, helper{};
  std::atomic<int> helper_calls{0}, receiver_calls{0}, misaligned{0};
  std::atomic<bool> throw_on_helper{false}, throw_on_receiver{false};
  const std::byte* base = nullptr;
  std::chrono::microseconds receiver_pause{0};

  static void fn(const void* ctx, std::byte* dst, const std::byte* src, std::size_t bytes)
  {
    auto& self = *static_cast<SharedAdd*>(const_cast<void*>(ctx));
    const bool on_receiver = std::this_thread::get_id() == self.receiver.load();
    (on_receiver ? self.receiver_calls : self.helper_calls).fetch_add(1);
    if (!on_receiver) self.helper.store(std::this_thread::get_id());
    if (bytes % sizeof(double) != 0 || (dst - self.base) % sizeof(double) != 0) self.misaligned.fetch_add(1);
    if (on_receiver ? self.throw_on_receiver.load() : self.throw_on_helper.load())
      throw std::runtime_error(on_receiver ? "combine fails on the receiver" : "combine fails on the helper");
    if (on_receiver && self.receiver_pause.count() != 0) std::this_thread::sleep_for(self.receiver_pause);
    for (std::size_t i = 0; i < bytes / sizeof(double); ++i) {
      double a, b;
      std::memcpy(&a, dst + i * sizeof(double), sizeof a);
      std::memcpy(&b, src + i * sizeof(double), sizeof b);
      a += b;
      std::memcpy(dst + i * sizeof(double), &a, sizeof a);
    }
  }
};

/// Rank 1 sends n doubles (3 pieces) to rank 0, which combines them into its own (4
/// pieces) with `add`, declaring grain `grain`; returns rank 0's result.
std::vector<double> combine_one_message(threads::Team& team, SharedAdd& add, std::size_t n, std::size_t grain)
{
  std::vector<double> mine(n), theirs(n);
  for (std::size_t i = 0; i < n; ++i) {
    mine[i] = static_cast<double>(i % 97);
    theirs[i] = static_cast<double>(1000 + i % 89);
  }
  add.base = reinterpret_cast<const std::byte*>(mine.data());
  const ReceiveCombine how{&SharedAdd::fn, &add, grain};
  team.run([&](threads::Endpoint& ep) {
    auto* out = reinterpret_cast<std::byte*>(mine.data());
    const auto* in = reinterpret_cast<const std::byte*>(theirs.data());
    const std::size_t b = n * sizeof(double);
    if (ep.rank() == 0) {
      add.receiver.store(std::this_thread::get_id());
      // Pieces cut at whole elements, as the executor's are.
      const std::size_t a = 3 * sizeof(double), c = (n / 2) * sizeof(double);
      const MutableBytes pieces[] = {{out, a}, {out + a, c - a}, {out + c, 0}, {out + c, b - c}};
      const RecvRequest r{1, pieces, &how};
      ep.exchange({}, {&r, 1});
    } else {
      const std::size_t a = 5 * sizeof(double);
      const ConstBytes pieces[] = {{in, a}, {in + a, b - a - 8}, {in + b - 8, 8}};
      const SendRequest s{0, pieces};
      ep.exchange({&s, 1}, {});
    }
  });
  return mine;
}

bool sums_right(const std::vector<double>& got)
{
  for (std::size_t i = 0; i < got.size(); ++i)
    if (got[i] != static_cast<double>(i % 97 + 1000 + i % 89)) return false;
  return true;
}

} // namespace

TEST_CASE("threads: a waiting sender helps its receiver move a large message", "[threads][share]")
{
  // The receiver pauses in each of its chunks, and the sender never sleeps (spin), so the
  // sender surely finds chunks left to take.
  threads::Team team{2, threads::Options{.spin = 1u << 30, .share_chunk = 1000}};
  SharedAdd add;
  add.receiver_pause = std::chrono::microseconds(2000);
  const auto got = combine_one_message(team, add, 4003, sizeof(double));
  CHECK(sums_right(got));
  CHECK(add.helper_calls.load() > 0);
  CHECK(add.receiver_calls.load() > 0);
  CHECK(add.misaligned.load() == 0); // chunks of 1000 bytes cut to 125 doubles
}

TEST_CASE("threads: a combine without a grain is never shared", "[threads][share]")
{
  threads::Team team{2, threads::Options{.spin = 1u << 30, .share_chunk = 1000}};
  SharedAdd add;
  add.receiver_pause = std::chrono::microseconds(2000);
  const auto got = combine_one_message(team, add, 4003, 0);
  CHECK(sums_right(got));
  CHECK(add.helper_calls.load() == 0);
}

TEST_CASE("threads: a combine that throws while shared fails the team, never hangs it", "[threads][share]")
{
  for (const bool on_helper : {true, false}) {
    INFO("throws on the " << (on_helper ? "helper" : "receiver"));
    threads::Team team{2, threads::Options{.spin = 1u << 30, .share_chunk = 1000}};
    SharedAdd add;
    add.receiver_pause = std::chrono::microseconds(on_helper ? 2000 : 0);
    (on_helper ? add.throw_on_helper : add.throw_on_receiver).store(true);
    CHECK_THROWS_WITH(combine_one_message(team, add, 4003, sizeof(double)),
                      on_helper ? "combine fails on the helper" : "combine fails on the receiver");
    // The team is still usable.
    SharedAdd again;
    CHECK(sums_right(combine_one_message(team, again, 4003, sizeof(double))));
  }
}

TEST_CASE("threads: a single-copy combine that throws, unshared, fails the team, never hangs it", "[threads][share]")
{
  // Not shared: a combine without a grain, and one message below two chunks. The sender
  // waits for its offer to be copied (asleep, with the default spin), and must be let go.
  for (const std::size_t grain : {std::size_t{0}, sizeof(double)}) {
    INFO("grain " << grain);
    threads::Team team{2, threads::Options{.share_chunk = grain == 0 ? std::size_t{1000} : std::size_t{1} << 20}};
    SharedAdd add;
    add.throw_on_receiver.store(true);
    CHECK_THROWS_WITH(combine_one_message(team, add, 4003, grain), "combine fails on the receiver");
    CHECK(add.helper_calls.load() == 0);
    SharedAdd again;
    CHECK(sums_right(combine_one_message(team, again, 4003, grain)));
  }
}

namespace {

/// Which threads ran a reduction operator: an operator without data members records into
/// these (so it is stateless as far as concurrent_operator_v can tell).
std::atomic<int> root_thread_calls{0}, other_thread_calls{0};
std::atomic<std::thread::id> root_thread{};
std::atomic<bool> root_paused{false};

void note_caller()
{
  const bool on_root = std::this_thread::get_id() == root_thread.load();
  (on_root ? root_thread_calls : other_thread_calls).fetch_add(1, std::memory_order_relaxed);
  // The root pauses at its first element, so a waiting sender surely finds chunks to take.
  if (on_root && !root_paused.exchange(true)) std::this_thread::sleep_for(std::chrono::milliseconds(50));
}

struct NotingPlus {
  double operator()(double a, double b) const
  {
    note_caller();
    return a + b;
  }
};

struct NotingPlusWithState {
  int unused = 0;
  double operator()(double a, double b) const
  {
    note_caller();
    return a + b;
  }
};

struct NotingPlusDeclaredSerial {
  double operator()(double a, double b) const
  {
    note_caller();
    return a + b;
  }
};

} // namespace

template <>
inline constexpr bool collectives::concurrent_operator_v<NotingPlusDeclaredSerial> = false;

TEST_CASE("threads: a reduce's waiting sender combines half, for operators that allow it", "[threads][share]")
{
  STATIC_REQUIRE(concurrent_operator_v<std::plus<>>);
  STATIC_REQUIRE(concurrent_operator_v<decltype(commutative(std::plus<>{}))>);
  STATIC_REQUIRE(concurrent_operator_v<NotingPlus>);
  STATIC_REQUIRE(!concurrent_operator_v<NotingPlusWithState>);
  STATIC_REQUIRE(!concurrent_operator_v<NotingPlusDeclaredSerial>);
  // 40 000 doubles, 320 000 bytes: 5 chunks of 64 KiB. Rank 1 only sends, so it helps.
  constexpr std::size_t n = 40000;
  auto reduce_with = [&](auto op) {
    root_thread_calls = 0;
    other_thread_calls = 0;
    root_paused = false;
    std::vector<double> got(n);
    threads::Team team{2, threads::Options{.spin = 1u << 30}};
    team.run([&](threads::Endpoint& ep) {
      if (ep.rank() == 0) root_thread.store(std::this_thread::get_id());
      Communicator comm(ep, Ring<2>{});
      std::vector<double> mine(n);
      for (std::size_t i = 0; i < n; ++i) mine[i] = static_cast<double>(ep.rank() * 1000 + i % 101);
      collectives::reduce(comm, std::span<const double>(mine), std::span<double>(got), op, 0,
                          reduce_algorithm::binomial);
    });
    bool right = true;
    for (std::size_t i = 0; i < n; ++i) right = right && got[i] == static_cast<double>(1000 + 2 * (i % 101));
    return right;
  };
  CHECK(reduce_with(NotingPlus{}));
  CHECK(root_thread_calls.load() > 0);
  CHECK(other_thread_calls.load() > 0); // the sender combined some
  CHECK(reduce_with(NotingPlusWithState{}));
  CHECK(other_thread_calls.load() == 0);
  CHECK(reduce_with(NotingPlusDeclaredSerial{}));
  CHECK(other_thread_calls.load() == 0);
}

TEST_CASE("threads: 64 ranks on 2 cores complete many small exchanges", "[threads]")
{
  // Ranks sleep and wake all the time here: a lost wake-up would be a false Deadlock (or
  // RankFailed) in the notes. Both ways of fencing (see threads.hpp).
  const bool membarrier = GENERATE(true, false);
  constexpr std::size_t p = 64;
  threads::Team team{p, threads::Options{.membarrier = membarrier}};
  if (!membarrier) CHECK_FALSE(team.uses_membarrier());
  std::vector<Notes> notes;
  run_noting(team, notes, [&](threads::Endpoint& ep, Notes& n) {
    for (std::size_t round = 0; round < 150; ++round) shift_round(ep, 1 + (round * 7) % (p - 1), round, n);
  });
  check_no_errors(notes);
}

TEST_CASE("threads: a rank that waits long sleeps instead of spinning", "[threads][wait]")
{
  // Issue 12: waiting with more ranks than cores must not burn the core a partner needs.
  // Rank 0 arrives at a barrier 300 ms late; the others wait for it, spinning briefly,
  // yielding, then blocking: each spends a small part of the wait on its CPU (its thread's
  // CPU time, not the wall clock). With more ranks than cores and with a core per rank.
  const std::size_t p = GENERATE(std::size_t{2}, std::size_t{6});
  INFO("p = " << p);
  const auto cpu_now = [] {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec);
  };
  constexpr auto late = std::chrono::milliseconds(300);
  std::vector<std::chrono::nanoseconds> cpu(p), wall(p);
  threads::Team team{p};
  team.run([&](threads::Endpoint& ep) {
    Communicator comm{ep, Ring<>{p}};
    barrier(comm); // every rank started
    if (ep.rank() == 0) std::this_thread::sleep_for(late);
    const auto c0 = cpu_now();
    const auto w0 = std::chrono::steady_clock::now();
    barrier(comm);
    cpu[ep.rank()] = cpu_now() - c0;
    wall[ep.rank()] = std::chrono::steady_clock::now() - w0;
  });
  for (std::size_t r = 1; r < p; ++r) {
    INFO("rank " << r << ": " << cpu[r].count() / 1000 << " us of CPU in " << wall[r].count() / 1000 << " us");
    CHECK(wall[r] >= late / 2);      // it did wait
    CHECK(cpu[r] * 5 < wall[r]);     // asleep for most of it
  }
}

namespace {
/// The calling thread's CPUs, and the first of them alone (as a taskset or cpuset would
/// narrow it).
struct CallerCpus {
  cpu_set_t all;
  cpu_set_t one;
};
CallerCpus caller_cpus()
{
  CallerCpus c;
  CPU_ZERO(&c.all);
  REQUIRE(sched_getaffinity(0, sizeof c.all, &c.all) == 0);
  int first = 0;
  while (!CPU_ISSET(first, &c.all)) ++first;
  CPU_ZERO(&c.one);
  CPU_SET(first, &c.one);
  return c;
}
} // namespace

TEST_CASE("threads: a team counts the CPUs its creator may run on, not the machine's", "[threads][cpus]")
{
  // Narrowed to one CPU (as a cpuset or taskset would leave it), two ranks share a core:
  // the team is oversubscribed (eager up to 4 KiB, one lane in its model) whatever the
  // machine has; with the creator's own CPUs back, as many as it may use.
  const CallerCpus caller = caller_cpus(); // (not a structured binding: clang 14's lambdas cannot capture one)
  const cpu_set_t& before = caller.all;
  const cpu_set_t& one = caller.one;
  REQUIRE(sched_setaffinity(0, sizeof one, &one) == 0);
  const threads::Team narrowed{2};
  REQUIRE(sched_setaffinity(0, sizeof before, &before) == 0);
  CHECK(narrowed.eager_bytes() == 4096);
  CHECK(narrowed.cost_model().lanes == 1);
  const threads::Team wide{2};
  const bool two = CPU_COUNT(&before) >= 2;
  CHECK(wide.eager_bytes() == (two ? 512u : 4096u));
  CHECK(wide.cost_model().lanes == (two ? 0u : 1u));
}

namespace {
/// What a rank saw of its placement inside run(): the CPUs its thread may run on.
struct Placement {
  cpu_set_t mask;
  int count = 0;
};

/// Each rank's mask inside one run() of `team` (recorded there, checked by the caller:
/// Catch's assertions are not thread-safe).
std::vector<Placement> placements(threads::Team& team)
{
  std::vector<Placement> seen(team.size());
  team.run([&](threads::Endpoint& ep) {
    Placement& mine = seen[ep.rank()];
    CPU_ZERO(&mine.mask);
    if (sched_getaffinity(0, sizeof mine.mask, &mine.mask) == 0) mine.count = CPU_COUNT(&mine.mask);
    if (ep.size() == 1) return;
    // One message around the ring, so the ranks overlap in time.
    std::byte b{}, got{};
    const ConstBytes out[] = {{&b, 1}};
    const MutableBytes in[] = {{&got, 1}};
    ep.exchange(std::array{SendRequest{(ep.rank() + 1) % ep.size(), out}},
                std::array{RecvRequest{(ep.rank() + ep.size() - 1) % ep.size(), in}});
  });
  return seen;
}
} // namespace

TEST_CASE("threads: run() gives each rank a CPU of its own when the caller may use enough, and gives the caller "
          "its mask back",
          "[threads][cpus]")
{
  cpu_set_t before;
  CPU_ZERO(&before);
  REQUIRE(sched_getaffinity(0, sizeof before, &before) == 0);
  const auto cpus = static_cast<std::size_t>(CPU_COUNT(&before));
  auto caller_mask_is_back = [&] {
    cpu_set_t now;
    CPU_ZERO(&now);
    return sched_getaffinity(0, sizeof now, &now) == 0 && CPU_EQUAL(&now, &before);
  };
  // Every team size up to the caller's CPUs (at most 4), and one more than it has.
  for (std::size_t p = 1; p <= std::min<std::size_t>(cpus, 4) + 1; ++p) {
    INFO("p = " << p << ", " << cpus << " CPUs");
    for (const bool pin : {true, false}) {
      INFO("Options::pin " << pin);
      threads::Team team{p, threads::Options{.pin = pin}};
      const std::vector<Placement> seen = placements(team);
      CHECK(caller_mask_is_back());
      if (pin && p >= 2 && p <= cpus) {
        // One CPU each, all different, all of the caller's.
        cpu_set_t taken;
        CPU_ZERO(&taken);
        for (const Placement& r : seen) {
          REQUIRE(r.count == 1);
          cpu_set_t both;
          CPU_AND(&both, &r.mask, &before);
          CHECK(CPU_COUNT(&both) == 1);
          CPU_OR(&taken, &taken, &r.mask);
        }
        CHECK(static_cast<std::size_t>(CPU_COUNT(&taken)) == p);
      } else {
        // Not placed (a rank alone has no partner to keep apart from): every rank may run
        // on every CPU the caller may.
        for (const Placement& r : seen) CHECK(CPU_EQUAL(&r.mask, &before));
      }
    }
  }
  // A rank that throws: run() rethrows, and the caller's mask is back all the same.
  threads::Team team{std::min<std::size_t>(cpus, 2)};
  CHECK_THROWS_AS(team.run([](threads::Endpoint& ep) {
    if (ep.rank() == 0) throw std::runtime_error("rank 0 fails");
  }),
                  std::runtime_error);
  CHECK(caller_mask_is_back());
}

namespace {
/// Counts the threads whose thread_local copy has been destroyed (their thread ended).
std::atomic<int> threads_ended{0};
struct EndOfThread {
  bool used = false;
  ~EndOfThread()
  {
    if (used) ++threads_ended;
  }
};
thread_local EndOfThread end_of_thread;
thread_local int runs_on_this_thread = 0;
} // namespace

TEST_CASE("threads: a team keeps its ranks' threads from run to run, and joins them when it goes", "[threads][pool]")
{
  constexpr std::size_t p = 3;
  constexpr int runs = 4;
  threads_ended = 0;
  {
    threads::Team team{p};
    std::vector<std::vector<std::thread::id>> ids(runs, std::vector<std::thread::id>(p));
    std::vector<int> count(p);
    for (int k = 0; k < runs; ++k)
      team.run([&](threads::Endpoint& ep) {
        ids[k][ep.rank()] = std::this_thread::get_id();
        end_of_thread.used = true;
        count[ep.rank()] = ++runs_on_this_thread;
      });
    for (int k = 0; k < runs; ++k) {
      CHECK(ids[k][0] == std::this_thread::get_id()); // rank 0: the caller
      CHECK(ids[k][1] != ids[k][0]);
      CHECK(ids[k][2] != ids[k][0]);
      CHECK(ids[k][1] != ids[k][2]);
      CHECK(ids[k][1] == ids[0][1]); // the same threads every run
      CHECK(ids[k][2] == ids[0][2]);
    }
    // A rank's thread_local state lasts from run to run.
    CHECK(count[1] == runs);
    CHECK(count[2] == runs);
    CHECK(threads_ended == 0);
  }
  // The team's destructor has joined ranks 1 and 2's threads (their thread_locals are gone).
  CHECK(threads_ended == 2);
  end_of_thread.used = false; // the caller's own thread does not end here
}

TEST_CASE("threads: a kept rank's thread runs where each run's caller may", "[threads][pool][cpus]")
{
  const CallerCpus caller = caller_cpus(); // (not a structured binding: clang 14's lambdas cannot capture one)
  const cpu_set_t& before = caller.all;
  const cpu_set_t& one = caller.one;
  const bool two = CPU_COUNT(&before) >= 2;
  auto all_on = [](const std::vector<Placement>& seen, const cpu_set_t& mask) {
    return std::all_of(seen.begin(), seen.end(), [&](const Placement& r) { return CPU_EQUAL(&r.mask, &mask); });
  };
  auto apart = [](const std::vector<Placement>& seen) {
    cpu_set_t taken;
    CPU_ZERO(&taken);
    for (const Placement& r : seen) {
      if (r.count != 1) return false;
      CPU_OR(&taken, &taken, &r.mask);
    }
    return static_cast<std::size_t>(CPU_COUNT(&taken)) == seen.size();
  };
  for (const bool pin : {true, false}) {
    INFO("Options::pin " << pin);
    threads::Team team{2, threads::Options{.pin = pin}};
    // The caller's whole mask: pinned a CPU each (given two), or both on the mask.
    std::vector<Placement> seen = placements(team);
    CHECK((pin && two ? apart(seen) : all_on(seen, before)));
    // The caller narrowed to one CPU: two ranks do not fit, so nothing is pinned and rank
    // 1's kept thread leaves its CPU for the caller's new mask.
    REQUIRE(sched_setaffinity(0, sizeof one, &one) == 0);
    seen = placements(team);
    cpu_set_t now;
    CPU_ZERO(&now);
    REQUIRE(sched_getaffinity(0, sizeof now, &now) == 0);
    REQUIRE(sched_setaffinity(0, sizeof before, &before) == 0);
    CHECK(CPU_EQUAL(&now, &one));
    CHECK(all_on(seen, one));
    // The whole mask again.
    seen = placements(team);
    CHECK((pin && two ? apart(seen) : all_on(seen, before)));
    // A rank that moves its own thread (to the caller's first CPU) gets the team's place
    // back at the next run.
    team.run([&](threads::Endpoint& ep) {
      if (ep.rank() == 1) (void)sched_setaffinity(0, sizeof one, &one);
    });
    seen = placements(team);
    CHECK((pin && two ? apart(seen) : all_on(seen, before)));
  }
}

TEST_CASE("threads: a kept team runs correctly after runs in which a rank failed", "[threads][pool]")
{
  constexpr std::size_t p = 3;
  threads::Team team{p};
  int rethrown = 0, right = 0;
  constexpr int runs = 300;
  for (int k = 0; k < runs; ++k) {
    const std::size_t culprit = static_cast<std::size_t>(k) % p;
    std::vector<long> sums(p, -1);
    try {
      team.run([&](threads::Endpoint& ep) {
        // Odd runs: one rank throws before the call, and the others wait for it inside.
        if (k % 2 == 1 && ep.rank() == culprit) throw std::runtime_error("rank fails");
        Communicator comm{ep, Ring<>{p}};
        const long mine = static_cast<long>(ep.rank()) + k;
        long sum = 0;
        allreduce(comm, std::span<const long>(&mine, 1), std::span<long>(&sum, 1), std::plus<>{});
        sums[ep.rank()] = sum;
      });
      const long expected = static_cast<long>(p * (p - 1) / 2) + static_cast<long>(p) * k;
      if (k % 2 == 0 && std::all_of(sums.begin(), sums.end(), [&](long x) { return x == expected; })) ++right;
    } catch (const std::runtime_error& e) {
      if (k % 2 == 1 && std::string(e.what()) == "rank fails") ++rethrown;
    }
  }
  CHECK(right == runs / 2);
  CHECK(rethrown == runs / 2);
}

TEST_CASE("threads: run() on a team that is running throws std::logic_error and runs nothing", "[threads][pool]")
{
  threads::Team team{2};
  // From one of its own ranks.
  std::vector<int> rejected(2, 0), nested_ran(2, 0);
  team.run([&](threads::Endpoint& ep) {
    try {
      team.run([&](threads::Endpoint& inner) { nested_ran[inner.rank()] = 1; });
    } catch (const std::logic_error& e) {
      rejected[ep.rank()] = std::string(e.what()).find("already running") != std::string::npos ? 1 : 2;
    }
  });
  CHECK(rejected == std::vector<int>{1, 1});
  CHECK(nested_ran == std::vector<int>{0, 0});
  // From another thread while the first run is on.
  std::atomic<int> stage{0};
  bool other_rejected = false;
  std::thread other([&] {
    while (stage.load() == 0) std::this_thread::yield();
    try {
      team.run([](threads::Endpoint&) {});
    } catch (const std::logic_error&) {
      other_rejected = true;
    }
    stage = 2;
  });
  team.run([&](threads::Endpoint& ep) {
    if (ep.rank() != 0) return;
    stage = 1;
    while (stage.load() != 2) std::this_thread::yield();
  });
  other.join();
  CHECK(other_rejected);
  // And the team runs as before.
  std::vector<std::size_t> got(2, 99);
  team.run([&](threads::Endpoint& ep) {
    std::size_t mine = ep.rank(), theirs = 99;
    const ConstBytes out[] = {{reinterpret_cast<const std::byte*>(&mine), sizeof mine}};
    const MutableBytes in[] = {{reinterpret_cast<std::byte*>(&theirs), sizeof theirs}};
    ep.exchange(std::array{SendRequest{1 - ep.rank(), out}}, std::array{RecvRequest{1 - ep.rank(), in}});
    got[ep.rank()] = theirs;
  });
  CHECK(got == std::vector<std::size_t>{1, 0});
}

TEST_CASE("threads: a team gives its rings and staging back on request and keeps running", "[threads][pool][memory]")
{
  constexpr std::size_t p = 4, m = 3;
  threads::Team team{p};
  CHECK(team.bytes_held() == 0); // nothing before a first message
  // An all-to-all (the channels its algorithm uses), and an in-place all-reduce by
  // recursive doubling of 32 KiB: single-copy messages whose combining receives land in
  // memory the step still sends from (staged when the partner has not yet taken the send);
  // results checked each time.
  const auto all_to_all = [&](std::size_t round, bool reduce) {
    std::vector<int> right(p, 0);
    team.run([&](threads::Endpoint& ep) {
      Communicator comm{ep, Ring<>{p}};
      const std::size_t r = ep.rank();
      std::vector<long> send(p * m), recv(p * m, -1), sums(4096, static_cast<long>(r + round));
      for (std::size_t i = 0; i < p * m; ++i) send[i] = static_cast<long>(1000 * round + 100 * r + i);
      alltoall(comm, send, recv);
      if (reduce) allreduce(comm, std::span<long>(sums), std::plus<>{}, allreduce_algorithm::recursive_doubling);
      bool ok = true;
      for (long x : sums) ok = ok && x == static_cast<long>(reduce ? p * (p - 1) / 2 + p * round : r + round);
      for (std::size_t q = 0; q < p; ++q)
        for (std::size_t i = 0; i < m; ++i)
          ok = ok && recv[q * m + i] == static_cast<long>(1000 * round + 100 * q + r * m + i);
      right[r] = ok ? 1 : 0;
    });
    return right == std::vector<int>(p, 1);
  };
  CHECK(all_to_all(0, false));
  const std::size_t rings = team.bytes_held();
  CHECK(rings > 0);
  CHECK(all_to_all(1, true));
  // With staging when a rank combined before its partner had taken its send (timing).
  const std::size_t held = team.bytes_held();
  CHECK(held >= rings);
  team.release_memory();
  CHECK(team.bytes_held() == 0);
  CHECK(all_to_all(2, false)); // the rings made again, positions going on
  CHECK(team.bytes_held() == rings);
  CHECK(all_to_all(3, true));
  CHECK(team.bytes_held() >= rings);

  // Not while the team runs: nothing freed, and the run goes on.
  std::vector<int> refused(p, 0);
  bool measured = false;
  team.run([&](threads::Endpoint& ep) {
    if (ep.rank() == 0) {
      try {
        team.release_memory();
      } catch (const std::logic_error& e) {
        refused[0] = std::string(e.what()).find("release_memory: the team is running") != std::string::npos ? 1 : 2;
      }
      try {
        (void)team.bytes_held();
      } catch (const std::logic_error&) {
        measured = true;
      }
    }
    Communicator comm{ep, Ring<>{p}};
    barrier(comm);
  });
  CHECK(refused[0] == 1);
  CHECK(measured);
  CHECK(team.bytes_held() >= rings);

  // After a run that left a message nobody received (run() throws CallMismatch), the
  // memory goes back with the message, and the next run is not disturbed by it.
  CHECK_THROWS_AS(team.run([&](threads::Endpoint& ep) {
    if (ep.rank() != 1) return;
    const long x = 7;
    const ConstBytes out[] = {{reinterpret_cast<const std::byte*>(&x), sizeof x}};
    ep.exchange(std::array{SendRequest{2, out}}, std::span<const RecvRequest>{});
  }), CallMismatch);
  team.release_memory();
  CHECK(team.bytes_held() == 0);
  CHECK(all_to_all(4, true));
}

TEST_CASE("threads: ranks take a core each before any core's second hardware thread", "[threads][cpus]")
{
  using detail::spread_cpus;
  using V = std::vector<std::size_t>;
  const V eight{0, 1, 2, 3, 4, 5, 6, 7};
  // No SMT (every CPU its own core): the caller's CPU, then the rest in order.
  auto own = [](std::size_t c) { return std::uint64_t{c}; };
  CHECK(spread_cpus(eight, 2, 3, own) == V{2, 0, 1});
  CHECK(spread_cpus(eight, 0, 8, own) == eight);
  // Siblings numbered side by side (CPUs 2k and 2k + 1 share core k).
  auto pairs = [](std::size_t c) { return std::uint64_t{c / 2}; };
  CHECK(spread_cpus(eight, 0, 4, pairs) == V{0, 2, 4, 6});
  CHECK(spread_cpus(eight, 3, 3, pairs) == V{3, 0, 4});
  CHECK(spread_cpus(eight, 0, 6, pairs) == V{0, 2, 4, 6, 1, 3});
  // Siblings numbered a half apart (CPUs k and k + 4 share core k), the caller on a second
  // thread: its core's other thread comes last.
  auto halves = [](std::size_t c) { return std::uint64_t{c % 4}; };
  CHECK(spread_cpus(eight, 5, 3, halves) == V{5, 0, 2});
  CHECK(spread_cpus(eight, 5, 5, halves) == V{5, 0, 2, 3, 1});
  // A mask that skips CPUs; fewer CPUs than ranks, or a caller outside the mask: none.
  CHECK(spread_cpus(V{1, 3, 6}, 6, 3, pairs) == V{6, 1, 3});
  CHECK(spread_cpus(V{1, 3}, 1, 3, own).empty());
  CHECK(spread_cpus(V{1, 3}, 2, 2, own).empty());
  // The machine's own cores: a CPU is always on its own core; one the system does not know
  // is a core of its own.
  CHECK(detail::core_of(0) == detail::core_of(0));
  CHECK(detail::core_of(100000) != detail::core_of(100001));
}

TEST_CASE("threads: sleepers fence with membarrier where the kernel offers it", "[threads]")
{
#if defined(__linux__) && __has_include(<linux/membarrier.h>)
  const long commands = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
  const bool offered = commands > 0 && (commands & MEMBARRIER_CMD_PRIVATE_EXPEDITED) != 0;
#else
  const bool offered = false;
#endif
  CHECK(threads::Team{2}.uses_membarrier() == offered);
  CHECK_FALSE(threads::Team{2, threads::Options{.membarrier = false}}.uses_membarrier());
  // Two ranks that block after two polls (spin 1, yields 1), so they sleep often, either
  // way.
  for (bool membarrier : {true, false}) {
    threads::Team team{2, threads::Options{.spin = 1, .yields = 1, .membarrier = membarrier}};
    std::vector<Notes> notes;
    run_noting(team, notes, [&](threads::Endpoint& ep, Notes& n) {
      for (std::size_t round = 0; round < 2000; ++round) shift_round(ep, 1, round, n);
    });
    INFO("membarrier " << membarrier);
    check_no_errors(notes);
  }
}

TEST_CASE("threads: Communicator rejects a topology of another size", "[threads][communicator]")
{
  threads::Team team{4};
  CHECK_THROWS_MATCHES(team.run([](threads::Endpoint& ep) { Communicator comm(ep, Ring<>{5}); }),
                       std::invalid_argument,
                       Catch::Matchers::Message("collectives::Communicator: the transport has 4 ranks but the "
                                                "topology has 5 nodes"));
  CHECK_THROWS_WITH(team.run([](threads::Endpoint& ep) { Communicator comm(ep, Mesh<2, 3>{}); }),
                    Contains("4 ranks") && Contains("6 nodes"));
  // A static topology named by its type alone is checked the same way.
  CHECK_THROWS_WITH(team.run([](threads::Endpoint& ep) { Communicator<threads::Endpoint, Hypercube<3>> comm(ep); }),
                    Contains("4 ranks") && Contains("8 nodes"));
  // The right size binds, statically or not.
  std::vector<std::size_t> sizes(4);
  team.run([&](threads::Endpoint& ep) {
    Communicator a(ep, Mesh<2, 2>{});
    Communicator b(ep);
    Communicator<threads::Endpoint, Ring<4>> c(ep);
    Communicator<threads::Endpoint, Mesh<2, 2>> d(ep);
    sizes[ep.rank()] = a.size() + b.size() + c.size() + d.size();
  });
  CHECK(sizes == std::vector<std::size_t>(4, 16));
  // A run-time topology the endpoint's size decides takes it (issue 6): a hypercube, a
  // torus with one run-time extent, a fully connected network.
  std::vector<std::size_t> shapes(4);
  team.run([&](threads::Endpoint& ep) {
    Communicator<threads::Endpoint, Hypercube<>> h(ep);
    Communicator<threads::Endpoint, Mesh<2>> m(ep);
    Communicator<threads::Endpoint, Torus<dynamic_extent, 2, 1>> t(ep);
    Communicator<threads::Endpoint, FullyConnected<>> f(ep);
    shapes[ep.rank()] = h.topology().ndims() * 1000 + m.topology().extent(1) * 100 + t.topology().extent(0) * 10 +
                        f.size();
  });
  CHECK(shapes == std::vector<std::size_t>(4, 2000 + 200 + 20 + 4));
  threads::Team six{6};
  CHECK_THROWS_MATCHES(six.run([](threads::Endpoint& ep) { Communicator<threads::Endpoint, Hypercube<>> c(ep); }),
                       std::invalid_argument,
                       Catch::Matchers::Message("collectives::Communicator: the endpoint has 6 ranks, which the "
                                                "topology cannot have (collectives::Hypercube::of_size: p must be a "
                                                "power of two)"));
  CHECK_THROWS_WITH(six.run([](threads::Endpoint& ep) { Communicator<threads::Endpoint, Mesh<4>> c(ep); }),
                    Contains("the endpoint has 6 ranks") && Contains("6 nodes are not a positive multiple of the static "
                                                                     "extents' product 4"));
  // Several run-time extents: the shape must be given.
  STATIC_REQUIRE(!std::is_constructible_v<Communicator<threads::Endpoint, Mesh<>>, threads::Endpoint&>);
  STATIC_REQUIRE(std::is_constructible_v<Communicator<threads::Endpoint, Torus<2, 2>>, threads::Endpoint&>);
}

// ---------------------------------------------------------------------------------------
// alltoall and alltoallv over the threads transport: send and receive the same buffer, an
// element type that is not default-constructible, and the default algorithm on static
// topologies. (Their families' other tests: tests/unit/alltoall*.cpp.)
// ---------------------------------------------------------------------------------------

namespace {

using namespace collectives::testing;

/// Block counts of alltoallv: rank i sends c(i, j) elements to rank j. Symmetric
/// (c(i, j) == c(j, i)), so a rank sends as many elements as it receives and one buffer
/// can serve as both; zero-sized blocks included.
std::size_t v_count(std::size_t i, std::size_t j) { return (i + j) % 3 + (i == j ? 1 : 0); }

std::vector<std::size_t> v_counts(std::size_t p, std::size_t me)
{
  std::vector<std::size_t> c(p);
  for (std::size_t j = 0; j < p; ++j) c[j] = v_count(me, j);
  return c;
}

/// Rank i's send buffer: its blocks to j = 0..p-1 packed, elements make_value(i, 1000 j + e).
template <class T>
std::vector<T> v_send(std::size_t p, std::size_t i)
{
  std::vector<T> v;
  for (std::size_t j = 0; j < p; ++j)
    for (std::size_t e = 0; e < v_count(i, j); ++e) v.push_back(make_value<T>(i, 1000 * j + e));
  return v;
}

/// Serial reference: what rank j receives, its blocks from i = 0..p-1 packed.
template <class T>
std::vector<T> v_reference(std::size_t p, std::size_t j)
{
  std::vector<T> v;
  for (std::size_t i = 0; i < p; ++i)
    for (std::size_t e = 0; e < v_count(i, j); ++e) v.push_back(make_value<T>(i, 1000 * j + e));
  return v;
}

/// NoDefault values for alltoall: rank r's p*m elements.
std::vector<NoDefault> nd_alltoall_input(std::size_t p, std::size_t m, std::size_t r)
{
  return no_default_values(r, p * m);
}

std::vector<NoDefault> nd_alltoall_reference(std::size_t p, std::size_t m, std::size_t r)
{
  std::vector<NoDefault> v;
  for (std::size_t i = 0; i < p; ++i) {
    const auto from = no_default_values(i, p * m);
    v.insert(v.end(), from.begin() + static_cast<std::ptrdiff_t>(r * m),
             from.begin() + static_cast<std::ptrdiff_t>((r + 1) * m));
  }
  return v;
}

} // namespace

TEST_CASE("alltoall and alltoallv: send and receive the same buffer", "[threads][alltoall][alias]")
{
  std::size_t ran = 0;
  for (std::size_t p : {1, 2, 3, 4, 6, 8, 9}) {
    INFO("p = " << p);
    const auto [rows, cols] = mesh_shape(p);
    const Mesh<> mesh{rows, cols};
    report(run_on(mesh, [&](auto& comm) {
      Failures bad;
      const std::size_t r = comm.rank();
      for_each_fitting_and_default<Collective::alltoall>(mesh, Problem{}, [&](auto alg) {
        for (std::size_t m : {1, 5}) {
          auto buf = alltoall_input<Particle>(p, m, r);
          call_with(alltoall, alg, comm, buf, buf);
          if (buf != alltoall_reference<Particle>(p, m, r))
            bad.push_back("alltoall(" + name_of(alg) + ") aliased, m = " + std::to_string(m) + ", rank " + std::to_string(r));
        }
      });
      for_each_fitting_and_default<Collective::alltoallv>(mesh, Problem{}, [&](auto alg) {
        auto buf = v_send<double>(p, r);
        const auto counts = v_counts(p, r);
        call_with(alltoallv, alg, comm, buf, counts, buf, counts);
        if (buf != v_reference<double>(p, r))
          bad.push_back("alltoallv(" + name_of(alg) + ") aliased, rank " + std::to_string(r));
      });
      return bad;
    }));
    ran += fitting_count<Collective::alltoall>(mesh) + fitting_count<Collective::alltoallv>(mesh);
  }
  CHECK(ran > 14);
}

TEST_CASE("alltoall: an element type that is not default-constructible", "[threads][alltoall][nodefault]")
{
  for (std::size_t p : {1, 2, 3, 4, 8}) {
    INFO("p = " << p);
    const auto [rows, cols] = mesh_shape(p);
    const Mesh<> mesh{rows, cols};
    report(run_on(mesh, [&](auto& comm) {
      Failures bad;
      const std::size_t r = comm.rank();
      for_each_fitting_and_default<Collective::alltoall>(mesh, Problem{}, [&](auto alg) {
        for (std::size_t m : {1, 3, 600}) {
          const auto send = nd_alltoall_input(p, m, r);
          std::vector<NoDefault> recv(p * m, NoDefault{-1, -1.0});
          call_with(alltoall, alg, comm, send, recv);
          if (recv != nd_alltoall_reference(p, m, r))
            bad.push_back("alltoall(" + name_of(alg) + ") of NoDefault, m = " + std::to_string(m) + ", rank " +
                          std::to_string(r));
        }
      });
      return bad;
    }));
  }
}

TEST_CASE("alltoall and alltoallv: the default on static Ring<5>, Mesh<2,3> and Mesh<3,3>", "[threads][alltoall][default]")
{
  // No algorithm named: the cheapest of what the static type allows (p not a power of two).
  const auto check = [](auto topo) {
    const std::size_t p = topo.size();
    INFO("p = " << p);
    report(run_on(topo, [&](auto& comm) {
      Failures bad;
      const std::size_t r = comm.rank();
      for (std::size_t m : {1, 7, 4096}) {
        const auto send = alltoall_input<double>(p, m, r);
        std::vector<double> recv(p * m, poison<double>());
        alltoall(comm, send, recv);
        if (recv != alltoall_reference<double>(p, m, r)) bad.push_back("alltoall(), m = " + std::to_string(m));
      }
      const auto send = v_send<Particle>(p, r);
      const auto counts = v_counts(p, r);
      std::vector<Particle> recv(send.size(), poison<Particle>());
      alltoallv(comm, send, counts, recv, counts);
      if (recv != v_reference<Particle>(p, r)) bad.push_back("alltoallv() on rank " + std::to_string(r));
      return bad;
    }));
  };
  check(Ring<5>{});
  check(Mesh<2, 3>{});
  check(Mesh<3, 3>{});
}

namespace {

/// The parts every probe schedule below shares: p ranks, its steps and scratch blocks, a
/// mode that picks its variant, no operation of the library's.
template <std::size_t P, std::size_t Steps, std::size_t Scratch>
struct Probe {
  int mode = 0;
  struct Op {};
  constexpr std::size_t size() const { return P; }
  constexpr std::size_t num_steps() const { return Steps; }
  constexpr std::size_t scratch_blocks() const { return Scratch; }
  constexpr Op operation() const { return {}; }
};

/// A one-step schedule of p = 2 for the fused receive (executor.hpp, FusedCombine): rank r
/// sends input block 0 to its peer and receives it into output block 0, around local ops
/// that combine into those blocks. mode: 0, 1: then in[1] is combined into out[0] on the
/// left / right (fused: nothing else touches either buffer); 2: in[1] is first copied to
/// scratch, which is then combined into out[0] on the right (not fused: an earlier local
/// op writes the operand); 3: out[0] is first copied to out[1], then in[1] combined into
/// out[0] on the left (not fused: an earlier local op reads the received blocks); 4: out[1]
/// (as it was) is combined into out[0] on the left (fused: other blocks of the same buffer,
/// which nothing else touches); 5: as 4, with in[1] also sent and received into out[1]
/// (not fused: a receive of the step writes the operand).
struct FuseProbe : Probe<2, 1, 1> {
  template <class V>
  constexpr void visit(std::size_t r, std::size_t, V& v) const
  {
    v.send({1 - r, contiguous(Buffer::input, 0, 1)});
    if (mode == 5) v.send({1 - r, contiguous(Buffer::input, 1, 1)});
    v.recv({1 - r, contiguous(Buffer::output, 0, 1)});
    if (mode == 5) v.recv({1 - r, contiguous(Buffer::output, 1, 1)});
    if (mode == 2) v.local({contiguous(Buffer::input, 1, 1), contiguous(Buffer::scratch, 0, 1)});
    if (mode == 3) v.local({contiguous(Buffer::output, 0, 1), contiguous(Buffer::output, 1, 1)});
    const Pattern other = mode == 2   ? contiguous(Buffer::scratch, 0, 1)
                          : mode >= 4 ? contiguous(Buffer::output, 1, 1)
                                      : contiguous(Buffer::input, 1, 1);
    v.local({other, contiguous(Buffer::output, 0, 1), mode == 1 || mode == 2 ? Combine::right : Combine::left});
  }
};

} // namespace

TEST_CASE("executor: a copying receive and the combine into the same blocks fuse only when no one can tell",
          "[threads][executor][fused]")
{
  // Not commutative, so the operand order shows: a op b = 3a + b.
  const auto op = [](std::uint64_t a, std::uint64_t b) { return 3 * a + b; };
  const auto in = [](std::size_t r, std::size_t b, std::size_t k) { return std::uint64_t(1000 * r + 100 * b + k); };
  const auto before = [](std::size_t k) { return std::uint64_t(7000 + k); }; // out[1] before the call
  for (std::size_t m : {1, 700}) // eager, and single copy (5600 bytes)
    for (int mode : {0, 1, 2, 3, 4, 5}) {
      INFO("m = " << m << ", mode " << mode);
      threads::Team team(2);
      std::vector<std::vector<std::uint64_t>> out(2, std::vector<std::uint64_t>(2 * m, 0));
      for (auto& o : out)
        for (std::size_t k = 0; k < m; ++k) o[m + k] = before(k);
      team.run([&](threads::Endpoint& ep) {
        const std::size_t r = ep.rank();
        std::vector<std::uint64_t> x(2 * m);
        for (std::size_t b = 0; b < 2; ++b)
          for (std::size_t k = 0; k < m; ++k) x[b * m + k] = in(r, b, k);
        execute(FuseProbe{mode}, ep, x.data(), BlockLayout{m}, out[r].data(), BlockLayout{m}, m, op);
      });
      for (std::size_t r = 0; r < 2; ++r)
        for (std::size_t k = 0; k < m; ++k) {
          const std::uint64_t got = in(1 - r, 0, k), own = in(r, 1, k);
          const std::uint64_t want = mode == 4   ? op(before(k), got)
                                     : mode == 5 ? op(in(1 - r, 1, k), got)
                                     : mode == 0 || mode == 3 ? op(own, got)
                                                              : op(got, own);
          CHECK(out[r][k] == want);
          if (mode == 3) CHECK(out[r][m + k] == got);
          if (mode == 4) CHECK(out[r][m + k] == before(k));
        }
    }
}

TEST_CASE("threads: a step's work runs once, while the rank would wait", "[threads][work]")
{
  // Rank 0 only sends; rank 1 takes the message only once rank 0's work has run, so a
  // transport that ran the work after the step would keep rank 1 waiting (bounded here).
  for (std::size_t bytes : {std::size_t{8}, std::size_t{1} << 16}) { // eager, and single copy
    INFO(bytes << " bytes");
    threads::Team team(2);
    std::atomic<int> runs{0};
    bool seen_in_time = false;
    Bytes got(bytes, 0);
    team.run([&](threads::Endpoint& ep) {
      const std::size_t r = ep.rank();
      const Bytes data(bytes, 7);
      if (r == 0) {
        const ConstBytes piece{reinterpret_cast<const std::byte*>(data.data()), bytes};
        const SendRequest s{1, std::span<const ConstBytes>(&piece, 1)};
        StepWork work{[](void* c) { static_cast<std::atomic<int>*>(c)->fetch_add(1); }, &runs};
        ep.exchange(std::span<const SendRequest>(&s, 1), {}, StepInfo{}, work);
      } else {
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (runs.load() == 0 && std::chrono::steady_clock::now() < until) std::this_thread::yield();
        seen_in_time = runs.load() == 1;
        const MutableBytes piece{reinterpret_cast<std::byte*>(got.data()), bytes};
        const RecvRequest q{0, std::span<const MutableBytes>(&piece, 1)};
        ep.exchange({}, std::span<const RecvRequest>(&q, 1));
      }
    });
    CHECK(seen_in_time);
    CHECK(runs.load() == 1);
    CHECK(got == Bytes(bytes, 7));
  }
  // A step with no messages still runs its work, once.
  threads::Team team(1);
  std::atomic<int> runs{0};
  team.run([&](threads::Endpoint& ep) {
    ep.exchange({}, {}, StepInfo{}, StepWork{[](void* c) { static_cast<std::atomic<int>*>(c)->fetch_add(1); }, &runs});
  });
  CHECK(runs.load() == 1);
}

TEST_CASE("threads: a step's work that throws fails the team, never hangs it", "[threads][work]")
{
  threads::Team team(2);
  std::vector<Notes> notes;
  try {
    run_noting(team, notes, [&](threads::Endpoint& ep, Notes&) {
      const std::size_t r = ep.rank();
      Bytes out(1 << 16, 1), in(1 << 16, 0);
      const ConstBytes send_piece{reinterpret_cast<const std::byte*>(out.data()), out.size()};
      const MutableBytes recv_piece{reinterpret_cast<std::byte*>(in.data()), in.size()};
      const SendRequest s{1 - r, std::span<const ConstBytes>(&send_piece, 1)};
      const RecvRequest q{1 - r, std::span<const MutableBytes>(&recv_piece, 1)};
      StepWork work{[](void*) { throw std::domain_error("work of rank 0"); }, nullptr};
      if (r == 0) ep.exchange(std::span<const SendRequest>(&s, 1), {}, StepInfo{}, work);
      else ep.exchange({}, std::span<const RecvRequest>(&q, 1));
      ep.exchange(std::span<const SendRequest>(&s, 1), std::span<const RecvRequest>(&q, 1));
    });
    FAIL_CHECK("run() returned normally");
  } catch (const std::domain_error& e) {
    CHECK(std::string(e.what()) == "work of rank 0");
  }
  INFO(notes[1].message);
  CHECK(notes[1].released);
  CHECK(notes[1].failed_rank == 0);
}

namespace {

/// A threads endpoint that counts the steps whose local work the executor handed to the
/// transport, and on rank 1 takes each step's messages only after rank 0's work has run
/// (or after a bounded wait): so a copy wrongly run early on rank 0 is surely seen.
class WorkProbe {
public:
  static constexpr bool combines_on_receive = true;
  WorkProbe(threads::Endpoint& ep, std::atomic<int>& rank0_works) : ep_(&ep), rank0_works_(&rank0_works) {}
  std::size_t rank() const { return ep_->rank(); }
  std::size_t size() const { return ep_->size(); }
  std::uint64_t begin_call() { return ep_->begin_call(); }
  void exchange(std::span<const SendRequest> s, std::span<const RecvRequest> r) { exchange(s, r, StepInfo{}); }
  void exchange(std::span<const SendRequest> s, std::span<const RecvRequest> r, const StepInfo& info)
  {
    wait_for_rank0(r);
    ep_->exchange(s, r, info);
  }
  void exchange(std::span<const SendRequest> s, std::span<const RecvRequest> r, const StepInfo& info,
                const StepWork& work)
  {
    ++works;
    wait_for_rank0(r);
    struct Then {
      const StepWork* work;
      std::atomic<int>* done;
    } then{&work, rank() == 0 ? rank0_works_ : nullptr};
    ep_->exchange(s, r, info, StepWork{[](void* c) {
                                         auto& t = *static_cast<Then*>(c);
                                         (*t.work)();
                                         if (t.done != nullptr) t.done->fetch_add(1);
                                       },
                                       &then});
  }
  /// The steps whose work it takes: those that move at least min_work_bytes.
  bool takes_step_work(std::size_t bytes) const { return bytes >= min_work_bytes; }
  int works = 0;
  std::size_t min_work_bytes = 0;

private:
  void wait_for_rank0(std::span<const RecvRequest> r)
  {
    if (rank() != 1 || r.empty()) return;
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(200);
    while (rank0_works_->load() == 0 && std::chrono::steady_clock::now() < until) std::this_thread::yield();
  }
  threads::Endpoint* ep_;
  std::atomic<int>* rank0_works_;
};

/// Rank 0 sends block 0 of `from` to rank 1 and copies; rank 1 receives into output block 0
/// and copies. Modes: 0, rank 0 copies input block 1 to output block 1 (touches nothing
/// the message does: may run early); 1, rank 0 copies input block 1 over output block 0,
/// which it sends (must not); 2, rank 1 copies output block 0, which it receives, to
/// scratch, and in a second step to output block 1 (must not).
struct EarlyProbe : Probe<2, 2, 1> {
  template <class V>
  constexpr void visit(std::size_t r, std::size_t step, V& v) const
  {
    if (step == 1) {
      if (r == 1 && mode == 2) v.local({contiguous(Buffer::scratch, 0, 1), contiguous(Buffer::output, 1, 1)});
      return;
    }
    if (r == 0) {
      v.send({1, contiguous(mode == 1 ? Buffer::output : Buffer::input, 0, 1)});
      v.local({contiguous(Buffer::input, 1, 1), contiguous(Buffer::output, mode == 1 ? 0 : 1, 1)});
    } else {
      v.recv({0, contiguous(Buffer::output, 0, 1)});
      if (mode == 2) v.local({contiguous(Buffer::output, 0, 1), contiguous(Buffer::scratch, 0, 1)});
    }
  }
};

} // namespace

TEST_CASE("executor: a step's local copies run while its messages move only when no one can tell",
          "[threads][executor][work]")
{
  const auto in = [](std::size_t r, std::size_t b, std::size_t k) { return std::uint64_t(1000 * r + 100 * b + k); };
  const std::uint64_t before = 5; // the caller's output, before the call
  for (std::size_t m : {1, 700}) // eager, and single copy (5600 bytes)
    for (int mode : {0, 1, 2}) {
      INFO("m = " << m << ", mode " << mode);
      threads::Team team(2);
      std::atomic<int> rank0_works{0};
      std::vector<std::vector<std::uint64_t>> out(2, std::vector<std::uint64_t>(2 * m, before));
      std::vector<int> works(2, -1);
      team.run([&](threads::Endpoint& raw) {
        const std::size_t r = raw.rank();
        WorkProbe ep(raw, rank0_works);
        std::vector<std::uint64_t> x(2 * m);
        for (std::size_t b = 0; b < 2; ++b)
          for (std::size_t k = 0; k < m; ++k) x[b * m + k] = in(r, b, k);
        execute(EarlyProbe{mode}, ep, x.data(), BlockLayout{m}, out[r].data(), BlockLayout{m}, m);
        works[r] = ep.works;
      });
      CHECK(works[0] == (mode == 1 ? 0 : 1)); // rank 0's copy clashes in mode 1 only
      CHECK(works[1] == 0);                  // rank 1's copy reads what it receives
      for (std::size_t k = 0; k < m; ++k) {
        INFO("k = " << k);
        // What rank 1 received: rank 0's block as it was when the step began.
        CHECK(out[1][k] == (mode == 1 ? before : in(0, 0, k)));
        CHECK(out[0][(mode == 1 ? 0 : m) + k] == in(0, 1, k));
        CHECK(out[1][m + k] == (mode == 2 ? in(0, 0, k) : before));
      }
    }
}

TEST_CASE("executor: a step's work goes to the endpoint only for the steps it takes (takes_step_work)",
          "[threads][executor][work]")
{
  // Rank 0 sends m words and copies a block no message touches (EarlyProbe mode 0); its
  // endpoint takes the work of steps of 1000 bytes or more. Either way the result is right.
  for (std::size_t m : {1, 700}) {
    INFO("m = " << m);
    threads::Team team(2);
    std::atomic<int> rank0_works{1}; // nobody waits for rank 0's work here
    std::vector<std::vector<std::uint64_t>> out(2, std::vector<std::uint64_t>(2 * m, 5));
    std::vector<int> works(2, -1);
    team.run([&](threads::Endpoint& raw) {
      const std::size_t r = raw.rank();
      WorkProbe ep(raw, rank0_works);
      ep.min_work_bytes = 1000;
      std::vector<std::uint64_t> x(2 * m);
      for (std::size_t k = 0; k < 2 * m; ++k) x[k] = 1000 * r + k;
      execute(EarlyProbe{0}, ep, x.data(), BlockLayout{m}, out[r].data(), BlockLayout{m}, m);
      works[r] = ep.works;
    });
    CHECK(works[0] == (m * 8 >= 1000 ? 1 : 0));
    CHECK(works[1] == 0);
    for (std::size_t k = 0; k < m; ++k) {
      INFO("k = " << k);
      CHECK(out[1][k] == k);          // rank 0's block 0
      CHECK(out[0][m + k] == m + k);  // rank 0's own copy of its block 1
    }
  }
}

namespace {

/// One rank, one step, local ops only, each a parallel assignment within one buffer (mode
/// 0: output blocks 0, 1 swapped; 1: output blocks 1, 2 combined with blocks 0, 1; 2:
/// scratch block 1 combined into scratch block 0, which then goes to output block 0).
struct LocalShuffle : Probe<1, 1, 2> {
  template <class V>
  constexpr void visit(std::size_t, std::size_t, V& v) const
  {
    if (mode == 0) {
      v.local({contiguous(Buffer::output, 0, 2), cyclic(Buffer::output, 1, 2, 2) /* blocks 1, 0 */});
    } else if (mode == 1) {
      v.local({contiguous(Buffer::output, 0, 2), contiguous(Buffer::output, 1, 2), Combine::left});
    } else {
      v.local({contiguous(Buffer::input, 0, 2), contiguous(Buffer::scratch, 0, 2)});
      v.local({contiguous(Buffer::scratch, 1, 1), contiguous(Buffer::scratch, 0, 1), Combine::left});
      v.local({contiguous(Buffer::scratch, 0, 1), contiguous(Buffer::output, 0, 1)});
    }
  }
};

} // namespace

TEST_CASE("executor: a local op within one buffer is a parallel assignment, with or without a temporary",
          "[threads][executor][local]")
{
  // Not commutative, so the operand order shows: a op b = 3a + b.
  const auto op = [](std::uint64_t a, std::uint64_t b) { return 3 * a + b; };
  for (std::size_t m : {1, 700})
    for (int mode : {0, 1, 2}) {
      INFO("m = " << m << ", mode " << mode);
      threads::Team team(1);
      std::vector<std::uint64_t> x(2 * m), out(3 * m);
      for (std::size_t k = 0; k < 2 * m; ++k) x[k] = 10000 + k;
      for (std::size_t k = 0; k < 3 * m; ++k) out[k] = 20000 + k;
      const std::vector<std::uint64_t> before = out;
      team.run([&](threads::Endpoint& ep) {
        execute(LocalShuffle{mode}, ep, x.data(), BlockLayout{m}, out.data(), BlockLayout{m}, m, op);
      });
      for (std::size_t k = 0; k < m; ++k) {
        INFO("k = " << k);
        if (mode == 0) {
          CHECK(out[k] == before[m + k]);
          CHECK(out[m + k] == before[k]);
        } else if (mode == 1) {
          // Both new blocks read the old blocks 0 and 1: block 1 is read before it is written.
          CHECK(out[k] == before[k]);
          CHECK(out[m + k] == op(before[k], before[m + k]));
          CHECK(out[2 * m + k] == op(before[m + k], before[2 * m + k]));
        } else {
          CHECK(out[k] == op(x[m + k], x[k]));
        }
      }
    }
}
