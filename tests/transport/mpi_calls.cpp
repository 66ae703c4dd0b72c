// The MPI transport keeps collective calls apart (issue 13 §3): a message left over from a
// call whose ranks disagreed is never consumed by a later call and is reported as a
// CallMismatch naming both calls; mismatches name the collective, algorithm and step.
// Run under mpiexec at 2 and 4 ranks (tests/transport/CMakeLists.txt).

#include <collectives/transport/mpi.hpp>

#include <collectives/collectives.hpp>

#include "support.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using namespace collectives;
using namespace collectives::transport_tests;

namespace {

std::size_t world(int (*what)(MPI_Comm, int*))
{
  int n = 0;
  what(MPI_COMM_WORLD, &n);
  return static_cast<std::size_t>(n);
}

/// Whether `ok` holds on every rank (every rank takes the same path afterwards).
bool all_ranks(bool ok)
{
  int mine = ok ? 1 : 0, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all == 1;
}

int count_ranks(bool yes)
{
  int mine = yes ? 1 : 0, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  return all;
}

/// Lets the messages already sent on the endpoint's communicator arrive: a barrier on
/// another communicator orders nothing on this one, so poll a little.
void settle()
{
  MPI_Barrier(MPI_COMM_WORLD);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  MPI_Barrier(MPI_COMM_WORLD);
}

/// Receives every message waiting on the endpoint's communicator (the leftovers a test
/// made on purpose), so the endpoint's destructor has nothing to report.
void drain(mpi::Endpoint& ep)
{
  for (int flag = 1; flag;) {
    MPI_Status st;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, ep.native_handle(), &flag, &st);
    if (flag) {
      int n = 0;
      MPI_Get_count(&st, MPI_BYTE, &n);
      std::vector<char> sink(static_cast<std::size_t>(n) + 1);
      MPI_Recv(sink.data(), n, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, ep.native_handle(), MPI_STATUS_IGNORE);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/// The text of the CallMismatch that call() throws; empty when it throws none.
template <class F>
std::string mismatch_text(F&& call)
{
  try {
    call();
  } catch (const CallMismatch& e) {
    return e.what();
  }
  return {};
}

} // namespace

TEST_CASE("mpi: a leftover of a call with mismatched roots never reaches a later call", "[mpi][calls]")
{
  // Issue 13's reproducer: rank 0 says root 0, the others root 1 (binomial); then a
  // correct broadcast of 7 from rank 0.
  const std::size_t p = world(MPI_Comm_size), me = world(MPI_Comm_rank);
  mpi::Endpoint ep(MPI_COMM_WORLD);
  Communicator comm{ep, Ring<>{p}};
  std::vector<int> b(1, me == 0 ? 100 : (me == 1 ? 100 : 0));
  std::string first, second, check;
  try {
    broadcast(comm, b, me == 0 ? 0 : 1, broadcast_algorithm::binomial);
  } catch (const CallMismatch& e) {
    first = e.what();
  }
  settle();
  b[0] = me == 0 ? 7 : -1;
  try {
    broadcast(comm, b, 0, broadcast_algorithm::binomial);
  } catch (const CallMismatch& e) {
    second = e.what();
  }
  settle();
  try {
    ep.check_leftovers();
  } catch (const CallMismatch& e) {
    check = e.what();
  }
  INFO("rank " << me << ": " << first << " | " << second << " | " << check);
  // The stale 100 is never delivered: every rank has 7, or was told of the leftover.
  CHECK(all_ranks(b[0] == 7 || !second.empty()));
  // Somebody was told, naming both calls.
  CHECK(count_ranks(!first.empty() || !second.empty() || !check.empty()) > 0);
  const std::string& said = !second.empty() ? second : !check.empty() ? check : first;
  CHECK(all_ranks(said.empty() || (contains(said, "broadcast (binomial), call 1") && contains(said, "Likely cause"))));
  drain(ep);
}

TEST_CASE("mpi: a message of an earlier call found while a receive waits is a CallMismatch", "[mpi][calls]")
{
  // Rank 1 sends rank 0 a message in call 1 and none in call 2; rank 0 receives only in
  // call 2, so it ends its wait only by finding the call-1 message (the watchdog ends the
  // job if it never looks). Had rank 1 sent its call-2 message after a delay, a loaded
  // machine could let it arrive before rank 0 looked, and the test would race.
  const std::size_t me = world(MPI_Comm_rank);
  mpi::Endpoint ep(MPI_COMM_WORLD, mpi::Options{.timeout_seconds = 60});
  std::vector<int> b(2, int(me));
  const ConstBytes out{reinterpret_cast<const std::byte*>(b.data()), sizeof(int) * 2};
  const MutableBytes in{reinterpret_cast<std::byte*>(b.data()), sizeof(int) * 2};
  std::string what;
  if (me == 0) {
    ep.begin_call();
    const std::uint64_t call = ep.begin_call();
    const RecvRequest r{1, {&in, 1}};
    try {
      ep.exchange({}, {&r, 1}, StepInfo{"broadcast", "binomial", call, 0, 1});
    } catch (const CallMismatch& e) {
      what = e.what();
    }
  } else if (me == 1) {
    const SendRequest s{0, {&out, 1}};
    ep.exchange({&s, 1}, {}, StepInfo{"broadcast", "binomial", ep.begin_call(), 0, 1});
    ep.begin_call();
  }
  INFO("rank 0 says: " << what);
  CHECK(all_ranks(me != 0 || (contains(what, "rank 0, in broadcast (binomial), call 2, step") &&
                              contains(what, "message from rank 1 of a collective, call 1, step 0"))));
  settle();
  drain(ep);
}

TEST_CASE("mpi: size mismatches name the collective, the step and the likely cause", "[mpi][calls]")
{
  const std::size_t p = world(MPI_Comm_size), me = world(MPI_Comm_rank);
  mpi::Endpoint ep(MPI_COMM_WORLD);
  Communicator comm{ep, Ring<>{p}};
  // Rank 1 expects 1000 ints where rank 0 sends 4000 (and a longer message is truncated).
  std::vector<int> b(me == 0 ? 4000 : 1000, 3);
  std::string what;
  if (me <= 1) {
    try {
      std::vector<int> two(me == 0 ? 4000 : 1000);
      Communicator pair{ep, Ring<>{p}};
      if (me == 0) {
        const ConstBytes g{reinterpret_cast<const std::byte*>(two.data()), two.size() * sizeof(int)};
        const SendRequest s{1, {&g, 1}};
        ep.exchange({&s, 1}, {}, StepInfo{"broadcast", "binomial", 5, 0, 1});
      } else {
        const MutableBytes l{reinterpret_cast<std::byte*>(two.data()), two.size() * sizeof(int)};
        const RecvRequest r{0, {&l, 1}};
        ep.exchange({}, {&r, 1}, StepInfo{"broadcast", "binomial", 5, 0, 1});
      }
    } catch (const std::length_error& e) {
      what = e.what();
    }
  }
  INFO("rank 1 says: " << what);
  CHECK(all_ranks(me != 1 || (contains(what, "rank 1 expects 4000 bytes from rank 0") &&
                              contains(what, "in broadcast (binomial), call 5, step 0 of 1") &&
                              contains(what, "cost model"))));
  MPI_Barrier(MPI_COMM_WORLD);
  // Through a collective, the element counts too: the root sends 2 ints where the others
  // expect 4, then 8 (more: MPI truncates, so the receiver knows only what it expected).
  for (const int sent : {2, 8}) {
    std::vector<int> v(me == 0 ? std::size_t(sent) : 4, 1);
    std::string said;
    try {
      broadcast(comm, v, 0, broadcast_algorithm::linear);
    } catch (const std::length_error& e) {
      said = e.what();
    }
    INFO("rank " << me << ", the root sends " << sent << " ints: " << said);
    const std::string counts = sent == 2 ? "received 8 (4 and 2 elements of 4 bytes)"
                                         : "which sent more (expects 4 elements of 4 bytes)";
    CHECK(all_ranks(me == 0 || (contains(said, "expects 16 bytes from rank 0") && contains(said, counts) &&
                                contains(said, "in broadcast (linear)"))));
    MPI_Barrier(MPI_COMM_WORLD);
  }
}

TEST_CASE("mpi: every collective still matches across many calls", "[mpi][calls]")
{
  // Past the 64-call leftover checks, with every rank agreeing: nothing is reported.
  const std::size_t p = world(MPI_Comm_size), me = world(MPI_Comm_rank);
  mpi::Endpoint ep(MPI_COMM_WORLD);
  Communicator comm{ep, Ring<>{p}};
  bool ok = true;
  for (std::size_t i = 0; i < 150; ++i) {
    std::vector<double> x(1 + i % 5 * 3000, double(me + i)), r(x.size());
    allreduce(comm, x, r, std::plus<>{});
    ok = ok && r[0] == double(p * (p - 1) / 2 + p * i);
    std::vector<std::uint64_t> s(p * 3), t(p * 3);
    for (std::size_t j = 0; j < s.size(); ++j) s[j] = tag(me, j / 3, j % 3);
    alltoall(comm, s, t);
    for (std::size_t j = 0; j < t.size(); ++j) ok = ok && t[j] == tag(j / 3, me, j % 3);
    barrier(comm);
  }
  CHECK(all_ranks(ok));
}

TEST_CASE("mpi: messages carry the documented tag across the call window", "[mpi][calls]")
{
  // A message's tag carries its call modulo a window of calls (2^21 - 1 with Open MPI's
  // MPI_TAG_UB). Rank 0 sends one message in each call around the window's end and around
  // twice its length; each must carry the tag the documented layout gives
  // (transport/mpi.hpp: call field << step bits | step, the field 1 + (call - 1) mod
  // window), and be received by rank 1's exchange of the same call and step.
  const std::size_t p = world(MPI_Comm_size), me = world(MPI_Comm_rank);
  if (p < 2) return;
  mpi::Endpoint ep(MPI_COMM_WORLD);
  int* ub = nullptr;
  int found = 0;
  MPI_Comm_get_attr(ep.native_handle(), MPI_TAG_UB, &ub, &found);
  const long long tag_ub = found && ub != nullptr ? *ub : 32767;
  int bits = 0;
  while (bits < 31 && (1LL << (bits + 1)) - 1 <= tag_ub) ++bits;
  const int step_bits = std::min(11, bits / 3);
  const std::uint64_t window = (std::uint64_t{1} << (bits - step_bits)) - 1;
  const auto expected_tag = [&](std::uint64_t call, std::size_t step) {
    return static_cast<int>((1 + (call - 1) % window) << step_bits | step);
  };
  const auto info = [](std::uint64_t call, std::size_t step) { return StepInfo{"test", "window", call, step, 4, 8}; };

  bool ok = true;
  const std::uint64_t first = window - 2, last = 2 * window + 2;
  std::vector<std::uint64_t> calls;
  for (std::uint64_t c = first; c <= window + 2; ++c) calls.push_back(c);
  for (std::uint64_t c = 2 * window - 1; c <= last; ++c) calls.push_back(c);
  if (me == 0) {
    for (std::size_t k = 0; k < calls.size(); ++k) {
      const ConstBytes piece{reinterpret_cast<const std::byte*>(&calls[k]), sizeof(std::uint64_t)};
      const SendRequest send{1, {&piece, 1}};
      ep.exchange({&send, 1}, {}, info(calls[k], k % 3));
    }
  } else if (me == 1) {
    for (std::size_t k = 0; k < calls.size(); ++k) {
      // The message, by the tag computed here (it waits at most ten seconds for it).
      int flag = 0;
      MPI_Status st;
      const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (!flag && std::chrono::steady_clock::now() < until)
        MPI_Iprobe(0, expected_tag(calls[k], k % 3), ep.native_handle(), &flag, &st);
      INFO("call " << calls[k] << ", step " << k % 3 << ", window " << window);
      CHECK(flag == 1);
      if (!flag) {
        ok = false;
        break;
      }
      std::uint64_t got = 0;
      const MutableBytes piece{reinterpret_cast<std::byte*>(&got), sizeof got};
      const RecvRequest recv{0, {&piece, 1}};
      ep.exchange({}, {&recv, 1}, info(calls[k], k % 3));
      ok = ok && got == calls[k];
    }
  }
  const bool everywhere = all_ranks(ok);
  CHECK(everywhere);
  if (!everywhere) drain(ep); // collective: every rank drains
}

TEST_CASE("mpi: with check_calls, ranks that disagree on a call all get a CallMismatch before anything moves",
          "[mpi][calls][check]")
{
  // Issue 13's ranks that disagree on a root finish over MPI with their own results (the
  // first test case); the opt-in check turns that, and any other disagreement on the
  // collective, algorithm, root, shift distance, steps, element count or element size,
  // into an error on every rank.
  const std::size_t p = world(MPI_Comm_size), me = world(MPI_Comm_rank);
  mpi::Endpoint ep(MPI_COMM_WORLD, mpi::Options{.timeout_seconds = 60, .check_calls = true});
  REQUIRE(ep.checks_calls());
  Communicator comm{ep, Ring<>{p}};
  auto outcome = [](auto&& call) { return mismatch_text(call); };
  // The twin: the same calls everywhere run as without the check.
  std::vector<int> b(3, me == 0 ? 5 : -1);
  CHECK(outcome([&] { broadcast(comm, b, 0, broadcast_algorithm::binomial); }).empty());
  CHECK(all_ranks(b == std::vector<int>(3, 5)));
  std::vector<double> x(4, double(me) + 1), sum(4, 0.0);
  CHECK(outcome([&] { allreduce(comm, x, sum, std::plus<>{}); }).empty());
  CHECK(all_ranks(sum[3] == double(p * (p + 1) / 2)));
  // Roots that differ: every rank is told, and its buffer is as it was.
  std::fill(b.begin(), b.end(), int(me) + 10);
  const std::string roots = outcome([&] { broadcast(comm, b, me == 0 ? 0 : 1, broadcast_algorithm::binomial); });
  INFO("rank " << me << ": " << roots);
  CHECK(all_ranks(contains(roots, "do not make the same call") && contains(roots, "broadcast (binomial, root ") &&
                  contains(roots, "Likely cause")));
  CHECK(all_ranks(b == std::vector<int>(3, int(me) + 10)));
  // Algorithms that differ, and element types that differ.
  const std::string algorithms = outcome([&] {
    if (me == 0) broadcast(comm, b, 0, broadcast_algorithm::linear);
    else broadcast(comm, b, 0, broadcast_algorithm::binomial);
  });
  CHECK(all_ranks(contains(algorithms, "do not make the same call")));
  std::vector<double> f(3, 1.0);
  const std::string types = outcome([&] {
    if (me == 0) broadcast(comm, f, 0, broadcast_algorithm::binomial);
    else broadcast(comm, b, 0, broadcast_algorithm::binomial);
  });
  CHECK(all_ranks(contains(types, "do not make the same call")));
  // Element counts that differ (MPI's count mismatch), and shift distances (p > 2: at p = 2
  // every distance is 0 or 1, and a shift by 0 has no step to check).
  std::vector<double> in(5, 2.0), out(5, -1.0);
  const std::size_t n = me == 0 ? 4 : 5;
  const std::string counts = outcome([&] {
    allreduce(comm, std::span(in).first(n), std::span(out).first(n), std::plus<>{},
              allreduce_algorithm::ring);
  });
  INFO("rank " << me << ": " << counts);
  CHECK(all_ranks(contains(counts, "do not make the same call") &&
                  contains(counts, std::to_string(n) + " elements of 8 bytes")));
  CHECK(all_ranks(out == std::vector<double>(5, -1.0)));
  if (p > 2) {
    const std::string distances = outcome([&] { shift(comm, in, out, me == 0 ? 1 : 2, shift_algorithm::direct); });
    CHECK(all_ranks(contains(distances, "do not make the same call") &&
                    contains(distances, me == 0 ? "distance 1," : "distance 2,")));
    CHECK(all_ranks(out == std::vector<double>(5, -1.0)));
    // A distance that differs by p is the same shift: no mismatch.
    CHECK(all_ranks(outcome([&] {
                      shift(comm, in, out, me == 0 ? 1 : 1 + std::ptrdiff_t(p), shift_algorithm::direct);
                    }).empty()));
    CHECK(all_ranks(out == in));
  }
  // An endpoint that wraps the MPI endpoint passes the check on.
  {
    RecordingEndpoint<mpi::Endpoint> recording(ep);
    Communicator wrapped{recording, Ring<>{p}};
    const std::string through = outcome([&] { broadcast(wrapped, b, me == 0 ? 0 : 1, broadcast_algorithm::binomial); });
    CHECK(all_ranks(contains(through, "do not make the same call")));
  }
  // Nothing was left over, and the communicator goes on.
  b.assign(3, me == 0 ? 7 : -1);
  CHECK(outcome([&] { broadcast(comm, b, 0, broadcast_algorithm::binomial); }).empty());
  CHECK(all_ranks(b == std::vector<int>(3, 7)));
  CHECK(outcome([&] { ep.check_leftovers(); }).empty());
}

TEST_CASE("mpi: COLLECTIVES_MPI_CHECK turns the consistency check on; other values are rejected", "[mpi][calls][check]")
{
  ::setenv("COLLECTIVES_MPI_CHECK", "1", 1);
  {
    mpi::Endpoint on(MPI_COMM_WORLD);
    CHECK(on.checks_calls());
  }
  ::setenv("COLLECTIVES_MPI_CHECK", "yes", 1);
  try {
    mpi::Endpoint bad(MPI_COMM_WORLD);
    FAIL("COLLECTIVES_MPI_CHECK=yes was taken");
  } catch (const std::invalid_argument& e) {
    CHECK(contains(e.what(), "COLLECTIVES_MPI_CHECK must be 0 or 1, not 'yes'"));
  }
  ::unsetenv("COLLECTIVES_MPI_CHECK");
  mpi::Endpoint off(MPI_COMM_WORLD);
  CHECK_FALSE(off.checks_calls());
}

TEST_CASE("mpi: check_none_left finds a message of the latest call and of a call this rank never made",
          "[mpi][calls]")
{
  const std::size_t p = world(MPI_Comm_size), me = world(MPI_Comm_rank);
  mpi::Endpoint ep(MPI_COMM_WORLD);
  Communicator comm{ep, Ring<>{p}};
  auto outcome = [&] { return mismatch_text([&] { ep.check_none_left(); }); };
  // Every rank a root (linear): each sends to all, none receives; what is left is of the
  // latest call on every rank.
  std::vector<int> b(2, int(me));
  broadcast(comm, b, me, broadcast_algorithm::linear);
  settle();
  const std::string latest = outcome();
  INFO("rank " << me << ": " << latest);
  CHECK(all_ranks(contains(latest, "this rank's latest call, broadcast (linear), call 1") &&
                  contains(latest, "which no receive of it took")));
  drain(ep);
  // Rank 0 makes one call more than the others (its receivers see it as theirs: the same
  // call), and its last call's message is of a call the others never made.
  std::vector<int> c(2, me == 0 ? 9 : -1);
  broadcast(comm, c, 0, broadcast_algorithm::linear);
  if (me == 0) broadcast(comm, c, 0, broadcast_algorithm::linear);
  settle();
  const std::string extra = outcome();
  INFO("rank " << me << ": " << extra);
  CHECK(all_ranks(me == 0 ? extra.empty()
                          : contains(extra, "a call this rank has not made: rank 0 made more collective calls")));
  drain(ep);
}
