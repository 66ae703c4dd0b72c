// A call with the same front end, arguments and policy as one of the latest four runs
// that call's plan again (detail::LastCalls: no selection, no schedule built, no plan
// looked up; ExecContext::calls_replayed counts them). Checked here: every collective in a
// loop over the same buffers, new data each round, against the serial reference, on p
// that are and are not powers of two, by default and named; and every way the latest
// call's plan can stop fitting, where the call must run as a new one: another model or
// an assigned policy, scratch a larger call moved, input that overlaps the output (copied
// every call), a non-root reduce's borrowed result, more calls in turn than remembered, a
// copied communicator.

#include <catch2/catch.hpp>

#include "../support/harness.hpp"

#include <collectives/collectives.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

using namespace collectives;

namespace {

/// Rank r's element i in round k: different every round, so a result computed from an
/// earlier round's data shows.
std::int64_t value(std::size_t r, std::size_t i, std::size_t k)
{
  return static_cast<std::int64_t>(1000 * r + 10 * i + 7 * k + 1);
}

/// What one rank saw: its wrong results (as text) and its replayed calls.
struct Seen {
  std::vector<std::string> wrong;
  std::uint64_t replayed = 0;
};

/// Every collective, `rounds` times in a row each, over the same buffers with new data each
/// round, checked against the serial reference. `Named`: with a named algorithm that runs
/// on any p. Returns each rank's Seen.
template <bool Named>
std::vector<Seen> every_collective(std::size_t p, std::size_t rounds)
{
  return testing::run_on(Ring<>{p}, [&](Communicator<threads::Endpoint, Ring<>>& comm) {
    Seen seen;
    const std::size_t r = comm.rank(), n = 5;
    std::vector<std::int64_t> in(n), out(n), blocks(n * p), all(n * p), one(n);
    auto check = [&](const char* what, std::size_t k, bool ok) {
      if (!ok) seen.wrong.push_back(std::string(what) + " in round " + std::to_string(k));
    };
    auto fill = [&](std::vector<std::int64_t>& v, std::size_t k) {
      for (std::size_t i = 0; i < v.size(); ++i) v[i] = value(r, i, k);
    };
    auto sum = [&](std::size_t i, std::size_t k, std::size_t upto) {
      std::int64_t s = 0;
      for (std::size_t q = 0; q < upto; ++q) s += value(q, i, k);
      return s;
    };
    const std::size_t root = p - 1;
    for (std::size_t k = 0; k < rounds; ++k) {
      fill(in, k);
      if constexpr (Named) allreduce(comm, in, out, std::plus<>{}, allreduce_algorithm::recursive_doubling);
      else allreduce(comm, in, out, std::plus<>{});
      bool ok = true;
      for (std::size_t i = 0; i < n; ++i) ok = ok && out[i] == sum(i, k, p);
      check("allreduce", k, ok);
    }
    for (std::size_t k = 0; k < rounds; ++k) {
      fill(out, k);
      allreduce(comm, out, std::plus<>{}); // in place
      bool ok = true;
      for (std::size_t i = 0; i < n; ++i) ok = ok && out[i] == sum(i, k, p);
      check("allreduce in place", k, ok);
    }
    for (std::size_t k = 0; k < rounds; ++k) {
      for (std::size_t i = 0; i < n; ++i) one[i] = r == root ? value(root, i, k) : -1;
      if constexpr (Named) broadcast(comm, one, root, broadcast_algorithm::binomial);
      else broadcast(comm, one, root);
      bool ok = true;
      for (std::size_t i = 0; i < n; ++i) ok = ok && one[i] == value(root, i, k);
      check("broadcast", k, ok);
    }
    for (std::size_t k = 0; k < rounds; ++k) {
      fill(in, k);
      std::fill(out.begin(), out.end(), -1);
      if constexpr (Named) reduce(comm, in, out, std::plus<>{}, root, reduce_algorithm::binomial);
      else reduce(comm, in, out, std::plus<>{}, root);
      bool ok = true;
      for (std::size_t i = 0; i < n; ++i) ok = ok && (r != root ? out[i] == -1 : out[i] == sum(i, k, p));
      check("reduce", k, ok);
    }
    for (std::size_t k = 0; k < rounds; ++k) {
      fill(in, k);
      scan(comm, in, out, std::plus<>{});
      bool ok = true;
      for (std::size_t i = 0; i < n; ++i) ok = ok && out[i] == sum(i, k, r + 1);
      check("scan", k, ok);
      exscan(comm, in, out, std::plus<>{});
      for (std::size_t i = 0; i < n && r > 0; ++i) ok = ok && out[i] == sum(i, k, r);
      check("exscan", k, ok);
    }
    for (std::size_t k = 0; k < rounds; ++k) {
      fill(in, k);
      if constexpr (Named) allgather(comm, in, all, allgather_algorithm::bruck);
      else allgather(comm, in, all);
      bool ok = true;
      for (std::size_t q = 0; q < p; ++q)
        for (std::size_t i = 0; i < n; ++i) ok = ok && all[q * n + i] == value(q, i, k);
      check("allgather", k, ok);
    }
    for (std::size_t k = 0; k < rounds; ++k) {
      fill(blocks, k);
      if constexpr (Named) alltoall(comm, blocks, all, alltoall_algorithm::pairwise);
      else alltoall(comm, blocks, all);
      bool ok = true; // block q of rank r's result: rank q's block r
      for (std::size_t q = 0; q < p; ++q)
        for (std::size_t i = 0; i < n; ++i) ok = ok && all[q * n + i] == value(q, r * n + i, k);
      check("alltoall", k, ok);
    }
    for (std::size_t k = 0; k < rounds; ++k) {
      fill(blocks, k);
      reduce_scatter(comm, blocks, out, std::plus<>{});
      bool ok = true;
      for (std::size_t i = 0; i < n; ++i) ok = ok && out[i] == sum(r * n + i, k, p);
      check("reduce_scatter", k, ok);
    }
    for (std::size_t k = 0; k < rounds; ++k) {
      fill(in, k);
      std::fill(all.begin(), all.end(), -1);
      gather(comm, in, all, root);
      bool ok = true;
      for (std::size_t q = 0; q < p && r == root; ++q)
        for (std::size_t i = 0; i < n; ++i) ok = ok && all[q * n + i] == value(q, i, k);
      check("gather", k, ok);
      fill(blocks, k);
      scatter(comm, blocks, out, root);
      for (std::size_t i = 0; i < n; ++i) ok = ok && out[i] == value(root, r * n + i, k);
      check("scatter", k, ok);
    }
    for (std::size_t k = 0; k < rounds; ++k) {
      fill(in, k);
      shift(comm, in, out, 1);
      bool ok = true;
      for (std::size_t i = 0; i < n; ++i) ok = ok && out[i] == value((r + p - 1) % p, i, k);
      check("shift", k, ok);
      barrier(comm);
    }
    seen.replayed = comm.context().calls_replayed();
    return seen;
  });
}

void check_seen(const std::vector<Seen>& seen, std::uint64_t at_least)
{
  for (std::size_t r = 0; r < seen.size(); ++r) {
    INFO("rank " << r);
    for (const std::string& w : seen[r].wrong) FAIL_CHECK(w);
    CHECK(seen[r].replayed >= at_least);
  }
}

} // namespace

TEST_CASE("replayed calls: every collective in a loop, new data each round", "[threads][executor][replay]")
{
  // Of 5 rounds, the first of each of the 13 calls runs as a new call and the other 4
  // again (8 loops of one call, 3 of two in turn: scan and exscan, gather and scatter,
  // shift and barrier). By default a non-root reduce may run an algorithm that borrows the
  // context's memory for the result, which is never run again: at least 4 * 12 calls.
  const std::size_t rounds = 5;
  for (std::size_t p : {2, 3, 5, 8}) {
    INFO("p = " << p);
    check_seen(every_collective<false>(p, rounds), 4 * 12);
    check_seen(every_collective<true>(p, rounds), 4 * 13);
  }
  check_seen(every_collective<false>(1, rounds), 0);
}

TEST_CASE("replayed calls: what makes a call run as a new one", "[threads][executor][replay]")
{
  const std::size_t p = 3;
  const auto got = testing::run_on(Ring<>{p}, [&](Communicator<threads::Endpoint, Ring<>>& comm) {
    std::vector<std::string> wrong;
    const std::size_t r = comm.rank();
    const ExecContext& x = comm.context();
    std::vector<double> in(4), out(4), big_in(4096), big_out(4096);
    std::size_t round = 0;
    // One all-reduce of `in` into `out`; whether it ran again, and its result is right.
    auto step = [&](const std::string& what, bool replay_expected) {
      ++round;
      for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<double>(100 * r + i + round);
      const std::uint64_t before = x.calls_replayed();
      allreduce(comm, in, out, std::plus<>{});
      const bool replayed = x.calls_replayed() == before + 1;
      for (std::size_t i = 0; i < out.size(); ++i)
        if (out[i] != static_cast<double>(300 + 3 * (i + round))) wrong.push_back(what + ": wrong result");
      if (replayed != replay_expected)
        wrong.push_back(what + (replay_expected ? ": ran as a new call" : ": ran again"));
    };
    step("first call", false);
    step("the same call", true);
    // Another model: the pick may differ, so the call is selected again.
    comm.set_cost_model(CostModel{1e-6, 1e-9, 0, 0});
    step("after set_cost_model", false);
    step("the same call under the new model", true);
    // A policy assigned whole (its epoch moves past both).
    comm.policy() = SelectionPolicy(CostModel{1e-5, 1e-9, 0, 0});
    step("after the policy was assigned", false);
    step("the same call under the assigned policy", true);
    // Other buffers, then these again: the latest four calls are remembered.
    std::vector<double> other(4);
    allreduce(comm, in, other, std::plus<>{});
    step("after a call over other buffers", true);
    // A larger call grows the scratch a plan was made over (Bruck's all-to-all rotates its
    // blocks in scratch): the small call runs as a new one, then again.
    std::vector<double> small(3 * p), small_out(3 * p), large(3000 * p), large_out(3000 * p);
    auto bruck = [&](const std::string& what, bool replay_expected) {
      for (std::size_t i = 0; i < small.size(); ++i) small[i] = static_cast<double>(100 * r + i + round);
      const std::uint64_t before = x.calls_replayed();
      alltoall(comm, small, small_out, alltoall_algorithm::bruck);
      if ((x.calls_replayed() == before + 1) != replay_expected)
        wrong.push_back(what + (replay_expected ? ": ran as a new call" : ": ran again"));
      for (std::size_t q = 0; q < p; ++q)
        for (std::size_t i = 0; i < 3; ++i)
          if (small_out[3 * q + i] != static_cast<double>(100 * q + 3 * r + i + round))
            wrong.push_back(what + ": wrong result");
    };
    bruck("bruck's first call", false);
    bruck("bruck again", true);
    alltoall(comm, large, large_out, alltoall_algorithm::bruck);
    bruck("bruck after a larger call moved the scratch", false);
    bruck("bruck once more", true);
    // Input overlapping the output from another start: copied every call, never run again.
    std::vector<double> both(6);
    for (int k = 0; k < 3; ++k) {
      for (std::size_t i = 0; i < 6; ++i) both[i] = static_cast<double>(10 * r + i + static_cast<std::size_t>(k));
      const std::uint64_t before = x.calls_replayed();
      allreduce(comm, std::span<const double>(both.data(), 4), std::span<double>(both.data() + 2, 4), std::plus<>{});
      if (x.calls_replayed() != before) wrong.push_back("an overlapping call ran again");
      for (std::size_t i = 0; i < 4; ++i)
        if (both[2 + i] != static_cast<double>(30 + 3 * (i + static_cast<std::size_t>(k)))) wrong.push_back("overlapping: wrong result");
    }
    // A reduce's non-root ranks borrow room for the result from the context with the
    // algorithms that leave it everywhere: there the call runs as a new one every time.
    for (std::size_t k = 0; k < 3; ++k) {
      for (std::size_t i = 0; i < 4; ++i) in[i] = static_cast<double>(r + i + k);
      std::fill(out.begin(), out.end(), -1.0);
      const std::uint64_t before = x.calls_replayed();
      reduce(comm, in, out, std::plus<>{}, 0, reduce_algorithm::reduce_scatter_gather);
      if ((x.calls_replayed() == before + 1) != (r == 0 && k > 0))
        wrong.push_back("reduce_scatter_gather reduce, round " + std::to_string(k) + ": replayed " +
                        std::to_string(x.calls_replayed() - before));
      for (std::size_t i = 0; i < 4; ++i)
        if (out[i] != (r == 0 ? static_cast<double>(3 + 3 * (i + k)) : -1.0))
          wrong.push_back("reduce_scatter_gather reduce: wrong result");
    }
    // Up to four calls in turn each run again from their second round; five in turn, none
    // (each takes the entry of the one four calls before it). Every result stays right.
    std::vector<std::vector<double>> four(4, std::vector<double>(4)), five(5, std::vector<double>(4));
    for (auto* outs : {&four, &five}) {
      std::uint64_t replayed = 0;
      for (std::size_t k = 0; k < 4; ++k)
        for (std::vector<double>& o : *outs) {
          for (std::size_t i = 0; i < 4; ++i) in[i] = static_cast<double>(r * i + k);
          const std::uint64_t before = x.calls_replayed();
          allreduce(comm, in, o, std::plus<>{});
          replayed += x.calls_replayed() - before;
          for (std::size_t i = 0; i < 4; ++i)
            if (o[i] != static_cast<double>(3 * i + 3 * k)) wrong.push_back("calls in turn: wrong result");
        }
      // Four in turn: the first round's four calls run as new ones, the other rounds' 12 again.
      if (replayed != (outs == &four ? 12u : 0u))
        wrong.push_back(std::to_string(outs->size()) + " calls in turn: " + std::to_string(replayed) + " ran again");
    }
    // A copy starts empty: its first call is a new one.
    Communicator<threads::Endpoint, Ring<>> copy = comm;
    const std::uint64_t before = copy.context().calls_replayed();
    allreduce(copy, in, out, std::plus<>{});
    if (copy.context().calls_replayed() != before) wrong.push_back("a copy's first call ran again");
    return wrong;
  });
  for (std::size_t r = 0; r < p; ++r) {
    INFO("rank " << r);
    for (const std::string& w : got[r]) FAIL_CHECK(w);
  }
}
