// The executor's plans (detail::Plan): a collective called again with the same schedule over
// the same buffers runs the plan the call before made, without visiting the schedule. What
// must hold: every call computes with its own data and its own operator, a call that differs
// in anything else (root, size, in place, operator type, buffers, transport) never runs
// another call's plan, and a user's schedule run through execute() is never kept.
//
// Catch2's assertions are not thread-safe, so rank functions only record what they saw;
// the checks run on the test's thread after Team::run returns.

#include <catch2/catch.hpp>

#include "../support/harness.hpp"
#include "../support/swap_schedule.hpp"

#include <boost/hana/for_each.hpp>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <numeric>
#include <stdexcept>
#include <span>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

using namespace collectives;

namespace {

/// (a + b) mod `mod`: associative and commutative, and its value decides the result, so a
/// plan that kept an earlier call's operator would be caught.
struct ModAdd {
  std::uint64_t mod = 7;
  std::uint64_t operator()(std::uint64_t a, std::uint64_t b) const { return (a + b) % mod; }
};

/// A threads endpoint, combining on receipt (as it does) or not: then the executor stages
/// combining receives and combines them itself (the path the MPI transport takes).
template <bool Combines>
class Wrapped {
public:
  static constexpr bool combines_on_receive = Combines;
  explicit Wrapped(threads::Endpoint& ep) : ep_(&ep) {}
  std::size_t rank() const { return ep_->rank(); }
  std::size_t size() const { return ep_->size(); }
  CostModel cost_model() const { return ep_->cost_model(); }
  std::uint64_t begin_call() { return ep_->begin_call(); }
  void exchange(std::span<const SendRequest> s, std::span<const RecvRequest> r) { ep_->exchange(s, r); }
  void exchange(std::span<const SendRequest> s, std::span<const RecvRequest> r, const StepInfo& info)
  {
    ep_->exchange(s, r, info);
  }

private:
  threads::Endpoint* ep_;
};

/// Rank r's contribution in round `round`: different every round, so a result computed
/// from an earlier round's data shows.
std::uint64_t contribution(std::size_t r, std::size_t i, std::size_t round)
{
  return 1000 * r + 10 * i + 7 * round + 1;
}

/// Runs a list of different calls on every rank of a team of p bound to Ring<>{p}, each
/// call twice in a row (new data each time), the list `rounds` times over, over the same
/// buffers; returns each rank's mismatches against the serial reference (as text) and the
/// plans it reused.
struct Outcome {
  std::vector<std::string> wrong;
  std::vector<std::uint64_t> reused; // per round: calls that ran a kept plan
};

template <bool Combines>
std::vector<Outcome> run_calls(std::size_t p, std::size_t rounds)
{
  std::vector<Outcome> outcome(p);
  threads::Team team(p);
  team.run([&](threads::Endpoint& raw) {
    Wrapped<Combines> ep(raw);
    Communicator<Wrapped<Combines>, Ring<>> comm(ep, Ring<>{p});
    const std::size_t r = ep.rank();
    std::vector<std::uint64_t> in(7), out(7), inout(7), blocks(7 * p), gathered(7 * p), bcast(5);
    std::size_t seed = 0;
    auto sum = [&](std::size_t i, std::uint64_t mod, std::size_t upto) {
      std::uint64_t s = 0;
      for (std::size_t q = 0; q < upto; ++q) s = mod == 0 ? s + contribution(q, i, seed) : (s + contribution(q, i, seed)) % mod;
      return s;
    };
    // Each call returns whether this rank's result is the serial reference's.
    std::vector<std::pair<std::string, std::function<bool()>>> calls;
    calls.emplace_back("allreduce (+)", [&] {
      allreduce(comm, std::span<const std::uint64_t>(in), std::span<std::uint64_t>(out), std::plus<>{});
      bool ok = true;
      for (std::size_t i = 0; i < 7; ++i) ok = ok && out[i] == sum(i, 0, p);
      return ok;
    });
    // The same operator type with another value: the plan may be kept, the operator not.
    for (std::uint64_t mod : {7u, 11u})
      calls.emplace_back("allreduce (mod " + std::to_string(mod) + ")", [&, mod] {
        allreduce(comm, std::span<const std::uint64_t>(in), std::span<std::uint64_t>(out), ModAdd{mod});
        bool ok = true;
        for (std::size_t i = 0; i < 7; ++i) ok = ok && out[i] == sum(i, mod, p);
        return ok;
      });
    calls.emplace_back("allreduce in place", [&] {
      inout = in;
      allreduce(comm, std::span<const std::uint64_t>(inout), std::span<std::uint64_t>(inout), std::plus<>{});
      bool ok = true;
      for (std::size_t i = 0; i < 7; ++i) ok = ok && inout[i] == sum(i, 0, p);
      return ok;
    });
    calls.emplace_back("allreduce of 3", [&] { // another layout over the same buffers
      allreduce(comm, std::span<const std::uint64_t>(in.data(), 3), std::span<std::uint64_t>(out.data(), 3),
                std::plus<>{});
      bool ok = true;
      for (std::size_t i = 0; i < 3; ++i) ok = ok && out[i] == sum(i, 0, p);
      return ok;
    });
    for (std::size_t root = 0; root < p; ++root) { // schedules that differ by value only
      calls.emplace_back("broadcast from " + std::to_string(root), [&, root] {
        for (std::size_t i = 0; i < bcast.size(); ++i) bcast[i] = r == root ? contribution(root, i, seed) : 0;
        broadcast(comm, std::span<std::uint64_t>(bcast), root);
        bool ok = true;
        for (std::size_t i = 0; i < bcast.size(); ++i) ok = ok && bcast[i] == contribution(root, i, seed);
        return ok;
      });
      calls.emplace_back("reduce to " + std::to_string(root), [&, root] {
        std::fill(out.begin(), out.end(), 0);
        reduce(comm, std::span<const std::uint64_t>(in), std::span<std::uint64_t>(out), std::plus<>{}, root);
        bool ok = true;
        for (std::size_t i = 0; i < 7; ++i) ok = ok && out[i] == (r == root ? sum(i, 0, p) : 0);
        return ok;
      });
    }
    calls.emplace_back("allgather", [&] {
      allgather(comm, std::span<const std::uint64_t>(in), std::span<std::uint64_t>(gathered));
      bool ok = true;
      for (std::size_t q = 0; q < p; ++q)
        for (std::size_t i = 0; i < 7; ++i) ok = ok && gathered[q * 7 + i] == contribution(q, i, seed);
      return ok;
    });
    calls.emplace_back("alltoall", [&] {
      for (std::size_t q = 0; q < p; ++q)
        for (std::size_t i = 0; i < 7; ++i) blocks[q * 7 + i] = contribution(r, q * 7 + i, seed);
      alltoall(comm, std::span<const std::uint64_t>(blocks), std::span<std::uint64_t>(gathered));
      bool ok = true;
      for (std::size_t q = 0; q < p; ++q)
        for (std::size_t i = 0; i < 7; ++i) ok = ok && gathered[q * 7 + i] == contribution(q, r * 7 + i, seed);
      return ok;
    });
    // Two alltoallvs over the same count and displacement arrays with other contents: the
    // plan is keyed by the counts, not their address. Rank a sends rank b count(a, b)
    // elements (symmetric, so b expects as many).
    std::vector<std::size_t> sc(p), sd(p), rc(p), rd(p);
    std::vector<std::uint64_t> vsend(3 * p), vrecv(3 * p);
    for (int kind = 0; kind < 2; ++kind)
      calls.emplace_back("alltoallv " + std::to_string(kind), [&, kind] {
        auto count = [&](std::size_t a, std::size_t b) -> std::size_t {
          return kind == 0 ? 1 + (a + b) % 3 : 3 - (a + b) % 3;
        };
        for (std::size_t q = 0, s_at = 0, r_at = 0; q < p; ++q) {
          sc[q] = count(r, q);
          rc[q] = count(q, r);
          sd[q] = s_at;
          rd[q] = r_at;
          s_at += sc[q];
          r_at += rc[q];
          for (std::size_t i = 0; i < sc[q]; ++i) vsend[sd[q] + i] = contribution(r, 10 * q + i, seed);
        }
        alltoallv(comm, std::span<const std::uint64_t>(vsend), sc, sd, std::span<std::uint64_t>(vrecv), rc, rd);
        bool ok = true;
        for (std::size_t q = 0; q < p; ++q)
          for (std::size_t i = 0; i < rc[q]; ++i) ok = ok && vrecv[rd[q] + i] == contribution(q, 10 * r + i, seed);
        return ok;
      });
    calls.emplace_back("scan", [&] {
      scan(comm, std::span<const std::uint64_t>(in), std::span<std::uint64_t>(out), std::plus<>{});
      bool ok = true;
      for (std::size_t i = 0; i < 7; ++i) ok = ok && out[i] == sum(i, 0, r + 1);
      return ok;
    });

    for (std::size_t round = 0; round < rounds; ++round) {
      const std::uint64_t before = comm.context().plans_reused();
      for (const auto& [name, call] : calls)
        for (int twice = 0; twice < 2; ++twice) {
          ++seed; // new data every call
          for (std::size_t i = 0; i < in.size(); ++i) in[i] = contribution(r, i, seed);
          if (!call()) outcome[r].wrong.push_back(name + ", round " + std::to_string(round));
        }
      outcome[r].reused.push_back(comm.context().plans_reused() - before);
    }
  });
  return outcome;
}


/// Whether every algorithm of collective C that has a schedule on `topo` has one a plan can
/// keep, compared by its operator== (a schedule may hold bytes it never reads: a tree's or
/// a product's rings leave their unused entries unset, which a comparison of bytes would
/// see); the names of those that do not, in `missing`.
template <Collective C, class Topo>
void check_keepable(const Topo& topo, std::vector<std::string>& missing)
{
  boost::hana::for_each(algorithms<C>, [&](auto a) {
    using A = decltype(a);
    if constexpr (requires { A::schedule(topo, Problem{}); }) {
      using S = decltype(A::schedule(topo, Problem{}));
      if (!detail::keepable_schedule<S>) missing.push_back(std::string(collective_name(C)) + " " + A::name);
      else if (!std::equality_comparable<S>)
        missing.push_back(std::string(collective_name(C)) + " " + A::name + " (no operator==: " + typeid(S).name() + ")");
    }
  });
}

/// Checks the calls of each round of run_calls(p, rounds) that ran a kept plan. The second
/// call of every pair runs the first's plan, and so does the first allreduce with
/// ModAdd{11}, the plan of ModAdd{7}'s: 10 + 2p kinds of call a round, 9 + 2p plans, all
/// within the context's detail::plan_slots (loops over more: the tests below), so every
/// call of the third round on runs one (the second round may still make a few again: the
/// first round's later calls grew the scratch memory that earlier plans were made over).
void check_reuse(const std::vector<std::uint64_t>& reused, std::size_t p, std::size_t rounds)
{
  REQUIRE(reused.size() == rounds);
  const std::uint64_t pairs = 10 + 2 * p + 1, plans = 9 + 2 * p;
  REQUIRE(plans <= detail::plan_slots);
  const std::uint64_t later = pairs + plans;
  CHECK(reused[0] == pairs);
  for (std::size_t round = 1; round < rounds; ++round) {
    INFO("round " << round);
    if (round == 1) {
      CHECK(reused[1] >= pairs);
      CHECK(reused[1] <= later);
    } else {
      CHECK(reused[round] == later);
    }
  }
}

template <class Topo>
std::vector<std::string> unkeepable(const Topo& topo)
{
  std::vector<std::string> missing;
  check_keepable<Collective::broadcast>(topo, missing);
  check_keepable<Collective::reduce>(topo, missing);
  check_keepable<Collective::allgather>(topo, missing);
  check_keepable<Collective::reduce_scatter>(topo, missing);
  check_keepable<Collective::allreduce>(topo, missing);
  check_keepable<Collective::scan>(topo, missing);
  check_keepable<Collective::scatter>(topo, missing);
  check_keepable<Collective::gather>(topo, missing);
  check_keepable<Collective::alltoall>(topo, missing);
  check_keepable<Collective::shift>(topo, missing);
  check_keepable<Collective::alltoallv>(topo, missing);
  check_keepable<Collective::barrier>(topo, missing);
  return missing;
}

} // namespace

TEST_CASE("executor plans: every algorithm's schedule can be kept", "[threads][executor][plans]")
{
  // Trivially copyable, at most plan_key_bytes, and compared by operator== (a user's
  // schedule may instead be compared by its bytes when it has no padding): otherwise its
  // calls would never reuse a plan.
  CHECK(unkeepable(Ring<>{6}) == std::vector<std::string>{});
  CHECK(unkeepable(Mesh<>{2, 3}) == std::vector<std::string>{});
  CHECK(unkeepable(Hypercube<>::of_dims(3)) == std::vector<std::string>{});
  // A schedule with padding and no operator== is not kept (its padding could differ).
  struct Padded {
    std::size_t p = 2;
    bool flag = false;
    std::size_t more = 0;
  };
  static_assert(!detail::keepable_schedule<Padded>);
  static_assert(detail::keepable_schedule<testing::Swap>);
}

TEST_CASE("executor plans: schedules holding rings or a tree compare equal whatever lies past them",
          "[threads][executor][plans]")
{
  // At run time a Rings or a TreeShape leaves its entries past its rings unset, so a
  // schedule that holds one must be compared by operator==, not by its bytes: a kept plan
  // would otherwise miss (or take a new slot) whenever those bytes differ.
  Rings a = rings_of(Mesh<>{3, 4});
  Rings b = a;
  a.extents[7] = 5;
  b.extents[7] = 6;
  b.strides[30] = 1;
  const auto same = [](const auto& x, const auto& y) {
    using S = std::remove_cvref_t<decltype(x)>;
    static_assert(detail::keepable_schedule<S>);
    return detail::same_thunk<S>(&x, &y);
  };
  CHECK(same(DimensionalSchedule(a), DimensionalSchedule(b)));
  CHECK(same(AllgatherDimensionalSchedule(a), AllgatherDimensionalSchedule(b)));
  CHECK(same(ReduceScatterDimensionalSchedule(a), ReduceScatterDimensionalSchedule(b)));
  CHECK_FALSE(same(DimensionalSchedule(a), DimensionalSchedule(rings_of(Mesh<>{4, 3}))));
  TreeShape s = topology_shape(Mesh<>{3, 4});
  TreeShape t = s;
  s.extent[9] = 3;
  t.stride[12] = 4;
  CHECK(same(BroadcastTreeSchedule(12, s, 1), BroadcastTreeSchedule(12, t, 1)));
  CHECK(same(ScatterTreeSchedule(12, s, 1), ScatterTreeSchedule(12, t, 1)));
  CHECK(same(GatherTreeSchedule(12, s, 1), GatherTreeSchedule(12, t, 1)));
  CHECK(same(ReduceTreeSchedule(12, s, 1, false), ReduceTreeSchedule(12, t, 1, false)));
  CHECK_FALSE(same(BroadcastTreeSchedule(12, s, 1), BroadcastTreeSchedule(12, t, 2)));
}

TEST_CASE("executor plans: repeated calls run the kept plan with their own data and operator",
          "[threads][executor][plans]")
{
  for (std::size_t p : {2, 3, 4, 5}) {
    INFO("p = " << p);
    const auto outcome = run_calls<true>(p, 3);
    for (std::size_t r = 0; r < p; ++r) {
      INFO("rank " << r);
      for (const auto& w : outcome[r].wrong) FAIL_CHECK(w);
      CHECK(outcome[r].wrong.empty());
      check_reuse(outcome[r].reused, p, 3);
    }
  }
}

TEST_CASE("executor plans: a transport that does not combine on receipt stages through the kept plan",
          "[threads][executor][plans]")
{
  for (std::size_t p : {2, 3}) {
    INFO("p = " << p);
    const auto outcome = run_calls<false>(p, 2);
    for (std::size_t r = 0; r < p; ++r) {
      INFO("rank " << r);
      for (const auto& w : outcome[r].wrong) FAIL_CHECK(w);
      CHECK(outcome[r].wrong.empty());
      check_reuse(outcome[r].reused, p, 2);
    }
  }
}

/// Per rank: wrong results (as text) and, per round, the calls that ran a kept plan, of a
/// loop over `sizes` sizes x every root of one rooted collective (`reduce`: reduce, else
/// broadcast) on a team of p: sizes * p different calls a round, each once.
std::vector<Outcome> rooted_loop(std::size_t p, std::size_t sizes, bool reduce_them, std::size_t rounds)
{
  std::vector<Outcome> outcome(p);
  threads::Team team(p);
  team.run([&](threads::Endpoint& ep) {
    Communicator comm{ep, Ring<>{p}};
    const std::size_t r = ep.rank();
    std::vector<std::uint64_t> in(sizes), out(sizes);
    std::size_t seed = 0;
    for (std::size_t round = 0; round < rounds; ++round) {
      const std::uint64_t before = comm.context().plans_reused();
      // The largest first: the memory the plans are made over (scratch, staging) is then
      // sized by the first call and never moves.
      for (std::size_t m = sizes; m >= 1; --m)
        for (std::size_t root = 0; root < p; ++root) {
          ++seed;
          const std::span<std::uint64_t> o(out.data(), m);
          bool ok = true;
          if (reduce_them) {
            for (std::size_t i = 0; i < m; ++i) in[i] = contribution(r, i, seed);
            reduce(comm, std::span<const std::uint64_t>(in.data(), m), o, std::plus<>{}, root);
            for (std::size_t i = 0; r == root && i < m; ++i) {
              std::uint64_t sum = 0;
              for (std::size_t q = 0; q < p; ++q) sum += contribution(q, i, seed);
              ok = ok && o[i] == sum;
            }
          } else {
            for (std::size_t i = 0; i < m; ++i) o[i] = r == root ? contribution(root, i, seed) : 0;
            broadcast(comm, o, root);
            for (std::size_t i = 0; i < m; ++i) ok = ok && o[i] == contribution(root, i, seed);
          }
          if (!ok)
            outcome[r].wrong.push_back("m = " + std::to_string(m) + ", root " + std::to_string(root) + ", round " +
                                       std::to_string(round));
        }
      outcome[r].reused.push_back(comm.context().plans_reused() - before);
    }
  });
  return outcome;
}

TEST_CASE("executor plans: a loop over as many different calls as plans kept runs each from its plan",
          "[threads][executor][plans]")
{
  // 12 sizes x 5 roots: 60 plans, within detail::plan_slots, of two schedule types (a
  // broadcast's without padding, a reduce's with): plans that differ by root and size.
  static_assert(12 * 5 <= detail::plan_slots);
  for (bool reduce_them : {false, true}) {
    INFO((reduce_them ? "reduce" : "broadcast"));
    const auto outcome = rooted_loop(5, 12, reduce_them, 3);
    for (std::size_t r = 0; r < 5; ++r) {
      INFO("rank " << r);
      for (const auto& w : outcome[r].wrong) FAIL_CHECK(w);
      CHECK(outcome[r].reused == std::vector<std::uint64_t>{0, 60, 60});
    }
  }
}

/// The calls of a round of `calls` different ones, in a loop of `rounds` rounds, that ran a
/// kept plan, under the slots' rule: the least recently used slot goes, but once
/// detail::plan_churn_after plans in a row were made, the slot of the latest plan made
/// (the serial model of run_steps' choice, which the loops below are checked against).
std::vector<std::uint64_t> reused_by_rule(std::size_t calls, std::size_t rounds)
{
  constexpr std::size_t none = ~std::size_t{0};
  std::vector<std::size_t> key(detail::plan_slots, none), used(detail::plan_slots, 0);
  std::size_t filled = 0, newest = 0, in_a_row = 0, clock = 0;
  std::vector<std::uint64_t> reused;
  for (std::size_t round = 0; round < rounds; ++round) {
    std::uint64_t hits = 0;
    for (std::size_t c = 0; c < calls; ++c) {
      ++clock;
      std::size_t at = none;
      for (std::size_t i = 0; i < filled; ++i)
        if (key[i] == c) at = i;
      if (at != none) {
        ++hits;
        in_a_row = 0;
      } else {
        if (filled < detail::plan_slots) {
          at = filled++;
        } else if (in_a_row >= detail::plan_churn_after) {
          at = newest;
        } else {
          at = 0;
          for (std::size_t i = 1; i < detail::plan_slots; ++i)
            if (used[i] < used[at]) at = i;
        }
        key[at] = c;
        newest = at;
        ++in_a_row;
      }
      used[at] = clock;
    }
    reused.push_back(hits);
  }
  return reused;
}

TEST_CASE("executor plans: a loop over more different calls than plans kept still reuses most of them",
          "[threads][executor][plans]")
{
  // Under the least recently used rule alone, the slot a loop over more calls than slots
  // evicts is always the one it needs next: no call would reuse a plan (so it was until the
  // fifty-second session). The model's figures for the loops below, which the runs must match:
  static_assert(14 * 5 > detail::plan_slots);
  CHECK(reused_by_rule(70, 4) == std::vector<std::uint64_t>{0, 63, 55, 48});
  CHECK(reused_by_rule(100, 4) == std::vector<std::uint64_t>{0, 63, 63, 63});
  CHECK(reused_by_rule(200, 3) == std::vector<std::uint64_t>{0, 63, 63});
  // 14 sizes x 5 roots: 70 plans, and 40 sizes x 5 roots: 200; each call computes right.
  for (std::size_t sizes : {14, 40}) {
    INFO(sizes << " sizes");
    const std::size_t rounds = sizes == 14 ? 4 : 3;
    const auto want = reused_by_rule(sizes * 5, rounds);
    const auto outcome = rooted_loop(5, sizes, false, rounds);
    for (std::size_t r = 0; r < 5; ++r) {
      INFO("rank " << r);
      for (const auto& w : outcome[r].wrong) FAIL_CHECK(w);
      const auto& got = outcome[r].reused;
      REQUIRE(got.size() == rounds);
      CHECK(got[0] == 0);
      // The second round makes again the few plans whose lists were given room for the
      // largest plan when the slots filled (run_steps); from the third on, the rule's count.
      CHECK(got[1] <= want[1]);
      CHECK(got[1] + 8 >= want[1]);
      CHECK(std::vector<std::uint64_t>(got.begin() + 2, got.end()) == std::vector<std::uint64_t>(want.begin() + 2, want.end()));
    }
  }
}

TEST_CASE("executor plans: plans made over scratch a larger call moved are made again in their own slots",
          "[threads][executor][plans]")
{
  // All-reduces of 1..100 elements, smallest first: each call of the first round grows the
  // scratch the earlier plans were made over. The second round finds each call's old plan
  // by its tag (which leaves the scratch's address out), sees it no longer fits and makes it
  // again in its own slot; from the third round on, the slots' rule as in a loop whose
  // memory never moved, one round later. (Until the fifty-second session the old plans took
  // new tags and stayed kept, never to fit again.)
  constexpr std::size_t p = 2, sizes = 100, rounds = 5;
  std::vector<std::uint64_t> want{0};
  for (std::uint64_t r : reused_by_rule(sizes, rounds - 1)) want.push_back(r);
  std::vector<std::vector<std::uint64_t>> reused(p);
  std::vector<std::size_t> wrong(p, 0);
  threads::Team team(p);
  team.run([&](threads::Endpoint& ep) {
    Communicator comm{ep, Ring<>{p}};
    const std::size_t r = ep.rank();
    std::vector<std::uint64_t> in(sizes), out(sizes);
    for (std::size_t round = 0; round < rounds; ++round) {
      const std::uint64_t before = comm.context().plans_reused();
      for (std::size_t m = 1; m <= sizes; ++m) {
        for (std::size_t i = 0; i < m; ++i) in[i] = 1000 * r + 10 * m + i + round;
        allreduce(comm, std::span<const std::uint64_t>(in.data(), m), std::span<std::uint64_t>(out.data(), m),
                  std::plus<>{});
        for (std::size_t i = 0; i < m; ++i)
          wrong[r] += out[i] == 1000 + 2 * (10 * m + i + round) ? 0 : 1;
      }
      reused[r].push_back(comm.context().plans_reused() - before);
    }
  });
  for (std::size_t r = 0; r < p; ++r) {
    INFO("rank " << r);
    CHECK(wrong[r] == 0);
    CHECK(reused[r] == want);
  }
}

TEST_CASE("executor plans: a call over other buffers makes its own plan", "[threads][executor][plans]")
{
  // Two live output buffers used in turn: the plan of one must never write into the other.
  std::vector<std::vector<double>> a(2, std::vector<double>(5, -1.0)), b(2, std::vector<double>(5, -1.0));
  std::vector<std::uint64_t> reused(2);
  threads::Team team(2);
  team.run([&](threads::Endpoint& ep) {
    Communicator<threads::Endpoint, Ring<2>> comm(ep, Ring<2>{});
    const std::size_t r = ep.rank();
    std::vector<double> in(5);
    for (int round = 0; round < 3; ++round) {
      for (std::size_t i = 0; i < 5; ++i) in[i] = static_cast<double>(10 * r + i + round);
      allreduce(comm, std::span<const double>(in), std::span<double>(round % 2 == 0 ? a[r] : b[r]), std::plus<>{});
    }
    reused[r] = comm.context().plans_reused();
  });
  for (std::size_t r = 0; r < 2; ++r)
    for (std::size_t i = 0; i < 5; ++i) {
      // Rounds 0 and 2 wrote a, round 1 wrote b: (10 * 0 + i + round) + (10 * 1 + i + round).
      CHECK(a[r][i] == static_cast<double>(10 + 2 * i + 4));
      CHECK(b[r][i] == static_cast<double>(10 + 2 * i + 2));
    }
  // Round 2 ran round 0's plan (a is its output again); round 1 made its own.
  CHECK(reused == std::vector<std::uint64_t>{1, 1});
}

TEST_CASE("executor plans: execute() never keeps the plan of a user's schedule", "[threads][executor][plans]")
{
  std::vector<std::vector<int>> out(2, std::vector<int>(1, -1));
  std::vector<std::uint64_t> reused(2);
  threads::Team team(2);
  team.run([&](threads::Endpoint& ep) {
    const std::size_t r = ep.rank();
    ExecContext ctx;
    for (int round = 0; round < 3; ++round) {
      const std::vector<int> in{static_cast<int>(10 * r) + round};
      execute(testing::Swap{}, ep, ctx, in.data(), BlockLayout{1}, out[r].data(), BlockLayout{1}, BlockLayout{1});
    }
    reused[r] = ctx.plans_reused();
  });
  CHECK(out[0][0] == 12);
  CHECK(out[1][0] == 2);
  CHECK(reused == std::vector<std::uint64_t>{0, 0});
}

TEST_CASE("execute(): input and output that share memory from different starts are std::invalid_argument",
          "[threads][executor][plans]")
{
  // Each rank's memory: input block 0 at buf[0], output block 0 at buf[shift]. Blocks of
  // m elements: apart when shift >= m (adjacent included), sharing memory when shift < m.
  for (std::size_t m : {1, 2, 5})
    for (std::size_t shift : {std::size_t{1}, m, m + 1}) {
      INFO("blocks of " << m << ", output at +" << shift);
      const bool apart = shift >= m;
      std::vector<std::vector<int>> buf(2);
      for (std::size_t r = 0; r < 2; ++r)
        for (std::size_t i = 0; i < shift + m; ++i) buf[r].push_back(static_cast<int>(100 * r + i));
      const auto before = buf;
      std::string what;
      try {
        threads::Team team(2);
        team.run([&](threads::Endpoint& ep) {
          int* mine = buf[ep.rank()].data();
          execute(testing::Swap{}, ep, mine, BlockLayout{m}, mine + shift, BlockLayout{m}, BlockLayout{m});
        });
      } catch (const std::invalid_argument& e) {
        what = e.what();
      }
      if (apart) {
        CHECK(what.empty());
        for (std::size_t r = 0; r < 2; ++r)
          for (std::size_t i = 0; i < m; ++i) CHECK(buf[r][shift + i] == before[1 - r][i]);
      } else {
        CHECK(what.find("collectives::execute: input and output share memory") != std::string::npos);
        CHECK(buf == before); // nothing written
      }
    }
}

TEST_CASE("executor plans: a communicator can be copied, assigned and moved; a copy starts empty",
          "[threads][executor][plans]")
{
  using Comm = Communicator<threads::Endpoint, Ring<>>;
  STATIC_REQUIRE(std::is_copy_constructible_v<Comm>);
  STATIC_REQUIRE(std::is_copy_assignable_v<Comm>);
  STATIC_REQUIRE(std::is_move_constructible_v<Comm>);
  const std::size_t p = 3;
  const std::vector<bool> ok = testing::run_on(Ring<>{p}, [&](Comm& comm) {
    const std::vector<double> x(5, static_cast<double>(comm.rank() + 1)), want(5, 6.0);
    bool good = true;
    const auto sums = [&](Comm& c) {
      std::vector<double> y(5, -1.0);
      allreduce(c, x, y, std::plus<>{});
      return y == want;
    };
    good = sums(comm) && sums(comm);
    Comm copy = comm; // the plans and buffers are the original's own
    good = good && copy.context().bytes_held() == 0 && sums(copy) && sums(comm);
    Comm other(comm.endpoint(), Ring<>{p});
    good = good && sums(other);
    other = comm;
    good = good && sums(other);
    Comm moved = std::move(copy);
    good = good && sums(moved) && sums(comm);
    return good;
  });
  for (std::size_t r = 0; r < p; ++r) CHECK(ok[r]);
}

namespace {

/// A threads endpoint that counts, per step, the receives that combine on receipt: in a step
/// whose receives the schedule copies, those the executor fused with a local combine.
class FusionCounter : public Wrapped<true> {
public:
  FusionCounter(threads::Endpoint& ep, std::vector<std::size_t>& fused) : Wrapped<true>(ep), fused_(&fused) {}
  using Wrapped<true>::exchange;
  void exchange(std::span<const SendRequest> s, std::span<const RecvRequest> r, const StepInfo& info)
  {
    if (fused_->size() <= info.step) fused_->resize(info.step + 1);
    for (const RecvRequest& q : r)
      if (q.combine != nullptr) ++(*fused_)[info.step];
    Wrapped<true>::exchange(s, r, info);
  }

private:
  std::vector<std::size_t>* fused_;
};

/// Per rank: the receives combined on receipt in each step of one call on `topo` (a
/// reduce-scatter, or an all-reduce), and whether its result is the serial reference's.
template <bool scatter, class Topo, class Alg>
std::vector<std::pair<std::vector<std::size_t>, bool>> fused_receives(const Topo& topo, std::size_t m, Alg alg)
{
  const std::size_t p = topo.size();
  std::vector<std::pair<std::vector<std::size_t>, bool>> out(p);
  threads::Team team(p);
  team.run([&](threads::Endpoint& raw) {
    const std::size_t r = raw.rank();
    FusionCounter ep(raw, out[r].first);
    Communicator<FusionCounter, Topo> comm(ep, topo);
    const std::size_t n = scatter ? m * p : m;
    std::vector<std::uint64_t> in(n), got(m);
    for (std::size_t i = 0; i < n; ++i) in[i] = contribution(r, i, 0);
    if constexpr (scatter)
      reduce_scatter(comm, std::span<const std::uint64_t>(in), std::span<std::uint64_t>(got), std::plus<>{}, alg);
    else
      allreduce(comm, std::span<const std::uint64_t>(in), std::span<std::uint64_t>(got), std::plus<>{}, alg);
    bool ok = true;
    for (std::size_t i = 0; i < m; ++i) {
      std::uint64_t want = 0;
      for (std::size_t q = 0; q < p; ++q) want += contribution(q, scatter ? r * m + i : i, 0);
      ok = ok && got[i] == want;
    }
    out[r].second = ok;
  });
  return out;
}

/// Whether every rank's result is right and `want` of its receives combined on receipt.
void check_fused(const std::vector<std::pair<std::vector<std::size_t>, bool>>& got, std::size_t want)
{
  for (const auto& [per_step, right] : got) {
    CHECK(right);
    CHECK(std::accumulate(per_step.begin(), per_step.end(), std::size_t{0}) == want);
  }
}

} // namespace

TEST_CASE("executor plans: a copying receive and its combine run as one pass, strided or within one buffer",
          "[threads][executor][plans]")
{
  // Recursive halving's first step receives every other block and folds the rank's own
  // blocks into them (reduce_scatter's and Rabenseifner's): one pass where the blocks of
  // both buffers lie alike, even when they are not one piece (p >= 4). The schedules copy
  // in that step and combine on receipt in the others.
  for (std::size_t p : {2, 4, 8})
    for (std::size_t m : {1, 5, 64}) {
      INFO("p = " << p << ", m = " << m);
      // Every step of the recursive halving combines on receipt: log2 p receives a rank.
      const auto halvings = static_cast<std::size_t>(std::countr_zero(p));
      check_fused(fused_receives<true>(Ring<>{p}, m, reduce_scatter_algorithm::recursive_halving), halvings);
      // m * p + 3 elements: p blocks, not all of one length.
      check_fused(fused_receives<false>(Ring<>{p}, m * p + 3, allreduce_algorithm::rabenseifner), halvings);
    }
  // The dimensional reduce-scatter's later phases fold the last phase's partials into this
  // phase's, other blocks of the same scratch: one pass too, so every step combines on
  // receipt (a step a ring position: z - 1 a dimension).
  for (const auto& [rows, cols] : {std::pair<std::size_t, std::size_t>{2, 4}, {3, 3}, {4, 2}})
    for (std::size_t m : {1, 6}) {
      INFO("mesh " << rows << " x " << cols << ", m = " << m);
      check_fused(fused_receives<true>(Mesh<>{rows, cols}, m, reduce_scatter_algorithm::dimensional),
                  rows - 1 + cols - 1);
    }
}
