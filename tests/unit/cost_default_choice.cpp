// A collective called without an algorithm runs the one select() names for the
// communicator's topology, cost model and problem: recorded message logs of the default
// call equal those of the named pick, the pick follows the model, operators that do not
// commute and in-place calls never get an algorithm that cannot serve them, and a
// communicator remembers its picks per problem.

#include <catch2/catch.hpp>
#include <boost/hana/for_each.hpp>

#include <collectives/collectives.hpp>

#include "../support/harness.hpp"
#include "../support/matrix.hpp"
#include "../support/recording.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

using namespace collectives;
using collectives::testing::record_on;

namespace {

/// Start-ups dominate: few steps win.
constexpr CostModel latency_bound{.t_s = 1e-4, .t_w = 1e-10};
/// Words dominate: few words per rank, no congestion win.
constexpr CostModel bandwidth_bound{.t_s = 1e-9, .t_w = 1e-6};

/// The collectives default_runs_selected has checked (so that a test can tell that every
/// collective of all_collectives was).
std::set<Collective>& covered()
{
  static std::set<Collective> seen;
  return seen;
}

/// Runs call(comm, tag) on topo over recording transports twice under `model`: with tag a
/// nullptr (the call must use the default) and with a pointer to the algorithm that
/// with_selected() hands over for `problem`; checks that it is the one select() names and
/// that the logs are equal, and returns the name of the pick.
template <Collective C, class Topo, class Call>
std::string default_runs_selected(const Topo& topo, const CostModel& model, const Problem& problem, Call call)
{
  covered().insert(C);
  const Selection pick = select<C>(topo, model, problem);
  const auto by_default = record_on(topo, [&](auto& comm) {
    comm.set_cost_model(model);
    call(comm, nullptr);
  });
  std::vector<testing::Recorded> named;
  std::string ran;
  with_selected<C>(topo, model, problem, [&](auto tag) {
    ran = decltype(tag)::name;
    named = record_on(topo, [&](auto& comm) {
      comm.set_cost_model(model);
      call(comm, &tag);
    });
  });
  INFO(collective_name(C) << " p = " << topo.size() << " m = " << problem.m << " pick " << pick.name);
  CHECK(ran == pick.name);
  REQUIRE(named.size() == topo.size());
  for (std::size_t r = 0; r < topo.size(); ++r) {
    INFO("rank " << r);
    CHECK(by_default[r].log == named[r].log);
  }
  return std::string(pick.name);
}

template <class Topo>
void check_every_collective(const Topo& topo, const CostModel& model, std::size_t m)
{
  const std::size_t p = topo.size();
  const double words = static_cast<double>(m * sizeof(double)) / 8;
  const std::size_t root = p - 1;
  auto sum = std::plus<>{};

  default_runs_selected<Collective::alltoall>(topo, model, Problem{.m = words}, [&](auto& comm, auto tag) {
    std::vector<double> s(p * m, 1.0), r(p * m);
    if constexpr (std::is_null_pointer_v<decltype(tag)>) alltoall(comm, s, r);
    else alltoall(comm, s, r, *tag);
  });
  default_runs_selected<Collective::allgather>(topo, model, Problem{.m = words}, [&](auto& comm, auto tag) {
    std::vector<double> s(m, 1.0), r(p * m);
    if constexpr (std::is_null_pointer_v<decltype(tag)>) allgather(comm, s, r);
    else allgather(comm, s, r, *tag);
  });
  default_runs_selected<Collective::allreduce>(topo, model, Problem{.m = words}, [&](auto& comm, auto tag) {
    std::vector<double> s(m, 1.0), r(m);
    if constexpr (std::is_null_pointer_v<decltype(tag)>) allreduce(comm, s, r, sum);
    else allreduce(comm, s, r, sum, *tag);
  });
  default_runs_selected<Collective::reduce_scatter>(topo, model, Problem{.m = words}, [&](auto& comm, auto tag) {
    std::vector<double> s(p * m, 1.0), r(m);
    if constexpr (std::is_null_pointer_v<decltype(tag)>) reduce_scatter(comm, s, r, sum);
    else reduce_scatter(comm, s, r, sum, *tag);
  });
  default_runs_selected<Collective::broadcast>(topo, model, Problem{.m = words, .root = root},
                                               [&](auto& comm, auto tag) {
                                                 std::vector<double> b(m, 1.0);
                                                 if constexpr (std::is_null_pointer_v<decltype(tag)>) broadcast(comm, b, root);
                                                 else broadcast(comm, b, root, *tag);
                                               });
  default_runs_selected<Collective::reduce>(topo, model, Problem{.m = words, .root = root},
                                            [&](auto& comm, auto tag) {
                                              std::vector<double> s(m, 1.0), r(m);
                                              if constexpr (std::is_null_pointer_v<decltype(tag)>) reduce(comm, s, r, sum, root);
                                              else reduce(comm, s, r, sum, root, *tag);
                                            });
  default_runs_selected<Collective::scatter>(topo, model, Problem{.m = words, .root = root},
                                             [&](auto& comm, auto tag) {
                                               std::vector<double> s(p * m, 1.0), r(m);
                                               if constexpr (std::is_null_pointer_v<decltype(tag)>) scatter(comm, s, r, root);
                                               else scatter(comm, s, r, root, *tag);
                                             });
  default_runs_selected<Collective::gather>(topo, model, Problem{.m = words, .root = root},
                                            [&](auto& comm, auto tag) {
                                              std::vector<double> s(m, 1.0), r(p * m);
                                              if constexpr (std::is_null_pointer_v<decltype(tag)>) gather(comm, s, r, root);
                                              else gather(comm, s, r, root, *tag);
                                            });
  default_runs_selected<Collective::scan>(topo, model, Problem{.m = words}, [&](auto& comm, auto tag) {
    std::vector<double> s(m, 1.0), r(m);
    if constexpr (std::is_null_pointer_v<decltype(tag)>) scan(comm, s, r, sum);
    else scan(comm, s, r, sum, *tag);
  });
  default_runs_selected<Collective::shift>(topo, model, Problem{.m = words, .q = 3}, [&](auto& comm, auto tag) {
    std::vector<double> s(m, 1.0), r(m);
    if constexpr (std::is_null_pointer_v<decltype(tag)>) shift(comm, s, r, 3);
    else shift(comm, s, r, 3, *tag);
  });
  // alltoallv picks for m = 0 (block sizes differ from rank to rank; every rank knows 0).
  default_runs_selected<Collective::alltoallv>(topo, model, Problem{.m = 0}, [&](auto& comm, auto tag) {
    std::vector<std::size_t> counts(p);
    for (std::size_t i = 0; i < p; ++i) counts[i] = (i + comm.rank()) % 3 == 0 ? m : 1;
    std::vector<std::size_t> from(p);
    for (std::size_t i = 0; i < p; ++i) from[i] = (comm.rank() + i) % 3 == 0 ? m : 1;
    std::vector<double> s(p * m, 1.0), r(p * m);
    if constexpr (std::is_null_pointer_v<decltype(tag)>) alltoallv(comm, s, counts, r, from);
    else alltoallv(comm, s, counts, r, from, *tag);
  });
  default_runs_selected<Collective::barrier>(topo, model, Problem{}, [&](auto& comm, auto tag) {
    if constexpr (std::is_null_pointer_v<decltype(tag)>) barrier(comm);
    else barrier(comm, *tag);
  });
}

} // namespace

TEST_CASE("default algorithm: every collective runs what select() names", "[cost][select][default]")
{
  covered().clear();
  for (const CostModel& model : {latency_bound, bandwidth_bound, default_cost_model}) {
    for (std::size_t m : {std::size_t{1}, std::size_t{300}}) {
      check_every_collective(Ring<>{5}, model, m);
      check_every_collective(Ring<>{8}, model, m);
      check_every_collective(Hypercube<3>{}, model, m);
      check_every_collective(Mesh<2, 3>{}, model, m); // (selected on Mesh<>, whose type allows more)
    }
  }
  // A collective added to all_collectives must be added to check_every_collective.
  CHECK(covered().size() == all_collectives.size());
}

TEST_CASE("default algorithm: the pick follows the cost model", "[cost][select][default]")
{
  // On a ring of 8, Bruck's log p steps win when start-ups dominate; when words do, an
  // algorithm that sends each block once and without congestion wins.
  auto call = [](auto& comm, auto tag) {
    std::vector<double> s(8 * 64, 1.0), r(8 * 64);
    if constexpr (std::is_null_pointer_v<decltype(tag)>) alltoall(comm, s, r);
    else alltoall(comm, s, r, *tag);
  };
  const std::string fast_start = default_runs_selected<Collective::alltoall>(Ring<>{8}, latency_bound, Problem{64}, call);
  const std::string fast_words = default_runs_selected<Collective::alltoall>(Ring<>{8}, bandwidth_bound, Problem{64}, call);
  CHECK(fast_start == "bruck");
  CHECK(fast_words != "bruck");

  // Broadcast of a long vector: scatter + all-gather when words dominate, a tree when
  // start-ups do.
  auto bcast = [](auto& comm, auto tag) {
    std::vector<double> b(4096, 1.0);
    if constexpr (std::is_null_pointer_v<decltype(tag)>) broadcast(comm, b, 0);
    else broadcast(comm, b, 0, *tag);
  };
  CHECK(default_runs_selected<Collective::broadcast>(Ring<>{8}, bandwidth_bound, Problem{4096}, bcast) ==
        "scatter_allgather");
  CHECK(default_runs_selected<Collective::broadcast>(Ring<>{8}, latency_bound, Problem{4096}, bcast) != "scatter_allgather");
}

TEST_CASE("default algorithm: ranks sharing cores on one node get the one-step algorithms", "[cost][select][default]")
{
  // The model mpi::Endpoint starts with for 8 ranks on 2 cores (threads::Team's is alike):
  // shared memory (half_duplex, crossbar), 2 lanes, and a wait per step of 10 start-ups
  // (a turn of 2.5 start-ups for each of a core's 4 ranks).
  constexpr CostModel node{.t_s = 1e-6, .t_w = 1e-9, .t_r = 5e-10, .half_duplex = true, .lanes = 2, .t_sync = 10e-6,
                           .crossbar = true};
  auto scatter_call = [](auto& comm, auto tag) {
    std::vector<double> s(8 * 300, 1.0), r(300);
    if constexpr (std::is_null_pointer_v<decltype(tag)>) scatter(comm, s, r, 3);
    else scatter(comm, s, r, 3, *tag);
  };
  CHECK(default_runs_selected<Collective::scatter>(Ring<>{8}, node, Problem{300, 3}, scatter_call) == "linear");
  for (double m : {1.0, 300.0, 100000.0}) {
    CAPTURE(m);
    // Every block straight to where it goes, one wait per rank: the measured best at p = 8
    // (README, Benchmarks).
    CHECK(select<Collective::alltoall>(Ring<>{8}, node, Problem{m}).name == "linear");
    CHECK(select<Collective::alltoallv>(Ring<>{8}, node, Problem{m}).name == "linear");
    CHECK(select<Collective::scatter>(Ring<>{8}, node, Problem{m, 5}).name == "linear");
    CHECK(select<Collective::gather>(Ring<>{8}, node, Problem{m, 0}).name == "linear");
    CHECK(select<Collective::broadcast>(Ring<>{8}, node, Problem{m, 6}).name == "linear");
    // A network's model keeps the trees and the pairwise exchange: there the root's p - 1
    // start-ups in a row are what the tree saves, and links are shared.
    CHECK(select<Collective::scatter>(Ring<>{8}, default_cost_model, Problem{m, 5}).name != "linear");
    CHECK(select<Collective::gather>(Ring<>{8}, default_cost_model, Problem{m, 0}).name != "linear");
    CHECK(select<Collective::broadcast>(Ring<>{8}, default_cost_model, Problem{m, 6}).name != "linear");
    CHECK(select<Collective::alltoall>(Ring<>{8}, default_cost_model, Problem{m}).name != "linear");
  }
  // With a core per rank (no lanes, no wait) the trees win again on one node too.
  constexpr CostModel quiet{.t_s = 1e-6, .t_w = 1e-9, .t_r = 5e-10, .half_duplex = true, .crossbar = true};
  CHECK(select<Collective::scatter>(Ring<>{8}, quiet, Problem{1, 0}).name == "binomial");
}

TEST_CASE("default algorithm: word size converts bytes to the model's words", "[cost][select][default]")
{
  // 8 doubles per block are 8 words of 8 bytes but 64 words of 1 byte: with a model
  // whose crossover lies between, the pick changes with word_bytes.
  const CostModel model{.t_s = 1e-6, .t_w = 1e-8};
  const std::size_t p = 8, m = 8;
  const auto a = select<Collective::alltoall>(Ring<>{p}, model, Problem{8});
  const auto b = select<Collective::alltoall>(Ring<>{p}, model, Problem{64});
  REQUIRE(a.name != b.name);
  for (std::size_t word_bytes : {std::size_t{8}, std::size_t{1}}) {
    const auto got = record_on(Ring<>{p}, [&](auto& comm) {
      comm.set_cost_model(model, word_bytes);
      std::vector<double> s(p * m, 1.0), r(p * m);
      alltoall(comm, s, r);
    });
    const Selection& want = word_bytes == 8 ? a : b;
    std::string named;
    std::vector<testing::Recorded> expect;
    with_selected<Collective::alltoall>(Ring<>{p}, model, Problem{word_bytes == 8 ? 8.0 : 64.0}, [&](auto tag) {
      named = decltype(tag)::name;
      expect = record_on(Ring<>{p}, [&](auto& comm) {
        std::vector<double> s(p * m, 1.0), r(p * m);
        alltoall(comm, s, r, tag);
      });
    });
    REQUIRE(named == want.name);
    for (std::size_t r = 0; r < p; ++r) CHECK(got[r].log == expect[r].log);
  }
}

TEST_CASE("default algorithm: operators that do not commute never get a commutative-only algorithm",
          "[cost][select][default]")
{
  // Under this model the ring reduce-scatter is the cheapest for a commutative operator.
  const Problem commuting{.m = 4096, .commutative = true};
  const Problem ordered{.m = 4096, .commutative = false};
  REQUIRE(select<Collective::reduce_scatter>(Ring<>{6}, bandwidth_bound, commuting).name == "ring");
  REQUIRE(select<Collective::reduce_scatter>(Ring<>{6}, bandwidth_bound, ordered).name != "ring");
  // 2x2 matrix products do not commute: the default must multiply in rank order.
  using testing::Mat;
  const std::size_t p = 6, m = 4096;
  auto input = [](std::size_t rank, std::size_t i) {
    const auto r = static_cast<std::uint32_t>(rank), x = static_cast<std::uint32_t>(i % 97);
    return Mat{1 + r, x, 2 * r + 1, x + r};
  };
  const auto got = testing::run_on(Ring<>{p}, [&](auto& comm) {
    comm.set_cost_model(bandwidth_bound);
    std::vector<Mat> send(p * m), recv(m, Mat{7, 7, 7, 7});
    for (std::size_t i = 0; i < send.size(); ++i) send[i] = input(comm.rank(), i);
    reduce_scatter(comm, send, recv, testing::mat_mul);
    return recv;
  });
  for (std::size_t r = 0; r < p; ++r) {
    for (std::size_t i = 0; i < m; i += 511) {
      Mat expect = input(0, r * m + i);
      for (std::size_t k = 1; k < p; ++k) expect = testing::mat_mul(expect, input(k, r * m + i));
      CHECK(got[r][i] == expect);
    }
  }
}

TEST_CASE("default algorithm: in place never gets an algorithm that cannot work in place", "[cost][select][default]")
{
  const Problem apart{.m = 1 << 16, .in_place = false};
  const Problem in_place{.m = 1 << 16, .in_place = true};
  REQUIRE(select<Collective::allreduce>(Ring<>{6}, bandwidth_bound, apart).name == "ring");
  REQUIRE(select<Collective::allreduce>(Ring<>{6}, bandwidth_bound, in_place).name != "ring");
  const std::size_t p = 6, n = 1 << 16;
  const auto got = testing::run_on(Ring<>{p}, [&](auto& comm) {
    comm.set_cost_model(bandwidth_bound);
    std::vector<double> buf(n);
    for (std::size_t i = 0; i < n; ++i) buf[i] = static_cast<double>(comm.rank() + i % 13);
    allreduce(comm, buf, std::plus<>{}); // would throw if the ring were picked
    return buf;
  });
  for (std::size_t r = 0; r < p; ++r)
    for (std::size_t i = 0; i < n; i += 4093) CHECK(got[r][i] == static_cast<double>(15 + 6 * (i % 13)));
}

TEST_CASE("default algorithm: a communicator remembers its picks per problem", "[cost][select][default]")
{
  const auto sizes = testing::run_on(Ring<>{4}, [&](auto& comm) {
    std::vector<std::size_t> seen;
    std::vector<double> s(4 * 10, 1.0), r(4 * 10);
    seen.push_back(comm.policy().remembered());
    alltoall(comm, s, r);
    seen.push_back(comm.policy().remembered());
    alltoall(comm, s, r); // the same problem: no new entry
    seen.push_back(comm.policy().remembered());
    alltoall(comm, std::span(s).first(8), std::span(r).first(8)); // another block size
    seen.push_back(comm.policy().remembered());
    broadcast(comm, s, 1);
    broadcast(comm, s, 2); // another root
    seen.push_back(comm.policy().remembered());
    comm.set_cost_model(latency_bound); // a new model forgets the old picks
    seen.push_back(comm.policy().remembered());
    return seen;
  });
  for (const auto& seen : sizes) CHECK(seen == std::vector<std::size_t>{0, 1, 1, 2, 4, 0});
}

TEST_CASE("default algorithm: picks are kept per problem and root and the least recently used goes",
          "[cost][select][default]")
{
  SelectionPolicy policy;
  std::size_t chosen = 0; // how often a pick was worked out
  auto pick = [&](Collective c, Problem problem, std::size_t answer) {
    return policy.pick(c, problem, [&] {
      ++chosen;
      return answer;
    });
  };
  // A root that moves from rank to rank, for more problems than the policy keeps: each
  // (problem, root) is worked out once, and every pick is the one first made for it.
  const std::size_t p = 40, sizes = SelectionPolicy::capacity;
  for (int round = 0; round < 3; ++round)
    for (std::size_t m = 0; m < sizes; ++m)
      for (std::size_t root = 0; root < p; ++root)
        CHECK(pick(Collective::broadcast, Problem{.m = static_cast<double>(m), .root = root}, (m + root) % 7) ==
              (m + root) % 7);
  CHECK(chosen == sizes * p);
  CHECK(policy.remembered() == sizes * p);
  // Another collective, the same problems: its own picks.
  CHECK(pick(Collective::reduce, Problem{.m = 0, .root = 3}, 5) == 5);
  CHECK(chosen == sizes * p + 1);
  // One problem used between every other call stays; the least recently used goes.
  chosen = 0;
  policy.clear();
  CHECK(policy.remembered() == 0);
  for (int round = 0; round < 3; ++round)
    for (std::size_t m = 0; m < 2 * SelectionPolicy::capacity; ++m) {
      CHECK(pick(Collective::allreduce, Problem{.m = 1e6}, 1) == 1);
      CHECK(pick(Collective::alltoall, Problem{.m = static_cast<double>(m)}, 2) == 2);
    }
  // The hot problem once; the 2 capacity others every round, since capacity - 1 slots
  // cannot hold them.
  CHECK(chosen == 1 + 3 * 2 * SelectionPolicy::capacity);
  CHECK(policy.remembered() == SelectionPolicy::capacity);
  // A problem that differs in anything but the root is another problem.
  chosen = 0;
  policy.clear();
  pick(Collective::scan, Problem{.m = 4}, 0);
  pick(Collective::scan, Problem{.m = 4, .in_place = true}, 1);
  pick(Collective::scan, Problem{.m = 4, .exclusive = true}, 2);
  pick(Collective::scan, Problem{.m = 4, .commutative = false}, 0);
  pick(Collective::shift, Problem{.m = 4, .q = 2}, 0);
  pick(Collective::shift, Problem{.m = 4, .q = 3}, 1);
  CHECK(chosen == 6);
  CHECK(pick(Collective::scan, Problem{.m = 4, .in_place = true}, 9) == 1);
  CHECK(chosen == 6);
}

TEST_CASE("default algorithm: the picks kept match a least-recently-used reference", "[cost][select][default]")
{
  // A long random sequence over more problems than kept, with roots: the policy works a
  // pick out exactly when a plain least-recently-used list of `capacity` problems would
  // not hold it, and always returns the pick made for its (problem, root). This checks
  // the hash table the look-up probes, and its deletions when a problem makes room.
  constexpr std::size_t capacity = SelectionPolicy::capacity;
  SelectionPolicy policy;
  struct Kept {
    std::uint64_t last_use = 0;
    std::set<std::size_t> roots;
  };
  std::map<std::pair<int, std::size_t>, Kept> reference; // (collective, m) -> roots known
  std::uint64_t clock = 0;
  std::size_t chosen = 0, expected_chosen = 0, wrong = 0;
  std::uint64_t state = 12345;
  auto next = [&](std::uint64_t bound) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return (state >> 33) % bound;
  };
  for (int i = 0; i < 40000; ++i) {
    // Mostly a working set smaller than the capacity, sometimes any of three times more.
    const std::size_t m = next(4) != 0 ? next(capacity * 3 / 4) : next(3 * capacity);
    const std::size_t root = next(3);
    const int c = static_cast<int>(next(2));
    const Collective coll = c == 0 ? Collective::broadcast : Collective::reduce;
    const std::size_t answer = (m * 7 + root + static_cast<std::size_t>(c)) % 251;
    ++clock;
    auto it = reference.find({c, m});
    if (it == reference.end() || !it->second.roots.contains(root)) {
      ++expected_chosen;
      if (it == reference.end()) {
        if (reference.size() == capacity) {
          auto oldest = reference.begin();
          for (auto j = reference.begin(); j != reference.end(); ++j)
            if (j->second.last_use < oldest->second.last_use) oldest = j;
          reference.erase(oldest);
        }
        it = reference.emplace(std::pair{c, m}, Kept{}).first;
      }
      it->second.roots.insert(root);
    }
    it->second.last_use = clock;
    const std::size_t got = policy.pick(coll, Problem{.m = static_cast<double>(m), .root = root}, [&] {
      ++chosen;
      return answer;
    });
    wrong += got != answer;
  }
  CHECK(wrong == 0);
  CHECK(chosen == expected_chosen);
  CHECK(chosen > capacity); // problems did make room for others
  std::size_t picks = 0;
  for (const auto& [key, kept] : reference) picks += kept.roots.size();
  CHECK(policy.remembered() == picks);
}

TEST_CASE("default algorithm: a loop whose root moves selects once per root", "[cost][select][default]")
{
  // p = 8, four rooted collectives from every root: 32 (problem, root) pairs, more than
  // the 16 problems kept; they are 4 problems, each with 8 roots.
  const auto remembered = testing::run_on(Ring<>{8}, [&](auto& comm) {
    std::vector<double> x(8 * 3, 1.0), y(8 * 3), z(3);
    std::vector<std::size_t> seen;
    for (int round = 0; round < 3; ++round) {
      for (std::size_t root = 0; root < 8; ++root) {
        broadcast(comm, y, root);
        reduce(comm, x, y, std::plus<>{}, root);
        scatter(comm, x, z, root);
        gather(comm, z, y, root);
      }
      seen.push_back(comm.policy().remembered());
    }
    return seen;
  });
  for (const auto& seen : remembered) CHECK(seen == std::vector<std::size_t>{32, 32, 32});
}

TEST_CASE("default algorithm: a bad model is rejected by name", "[cost][select][default]")
{
  const auto errors = testing::run_on(Ring<>{2}, [&](auto& comm) {
    std::vector<std::string> what;
    // The communicator starts with the model its endpoint suggests (the threads team's),
    // not necessarily default_cost_model: the old model is that one.
    const CostModel before = comm.cost_model();
    const std::size_t word_bytes = comm.policy().word_bytes();
    for (const CostModel& bad : {CostModel{.t_s = -1}, CostModel{.t_w = std::numeric_limits<double>::infinity()}}) {
      try {
        comm.set_cost_model(bad);
      } catch (const std::invalid_argument& e) {
        what.emplace_back(e.what());
      }
    }
    try {
      comm.set_cost_model(latency_bound, 0);
    } catch (const std::invalid_argument& e) {
      what.emplace_back(e.what());
    }
    // The old model stays.
    const CostModel& after = comm.cost_model();
    what.push_back(after.t_s == before.t_s && after.t_w == before.t_w && after.t_h == before.t_h &&
                       after.t_r == before.t_r && comm.policy().word_bytes() == word_bytes
                     ? "kept"
                     : "replaced");
    return what;
  });
  for (const auto& what : errors) {
    REQUIRE(what.size() == 4);
    CHECK(what[0] == "collectives::CostModel: t_s must be finite and non-negative");
    CHECK(what[1] == "collectives::CostModel: t_w must be finite and non-negative");
    CHECK(what[2] == "collectives::SelectionPolicy: word_bytes must be at least 1");
    CHECK(what[3] == "kept");
  }
}

TEST_CASE("default algorithm: a pick's index reaches that candidate and no other", "[cost][select][default]")
{
  // visit_default_candidate calls through a table: index i is candidate i of the list, for
  // every collective's list on a ring (whose twin selects) and on a static hypercube.
  auto names_of = [](auto candidates) {
    std::vector<std::string> out;
    boost::hana::for_each(candidates, [&](auto tag) { out.emplace_back(decltype(tag)::name); });
    return out;
  };
  auto check_list = [&](auto candidates, auto topo) {
    using T = decltype(topo);
    const std::vector<std::string> names = names_of(candidates);
    REQUIRE(!names.empty());
    for (std::size_t i = 0; i < names.size(); ++i) {
      std::string seen;
      int calls = 0;
      detail::visit_default_candidate<T>(candidates, i, [&](auto tag) {
        seen = decltype(tag)::name;
        ++calls;
      });
      CHECK(seen == names[i]);
      CHECK(calls == 1);
    }
    int calls = 0;
    CHECK_THROWS_WITH(detail::visit_default_candidate<T>(candidates, names.size(), [&](auto) { ++calls; }),
                      "collectives::visit_algorithm: no candidate at that index");
    CHECK(calls == 0);
  };
  check_list(detail::default_candidates<Collective::alltoall, Ring<>>(), Ring<>{8});
  check_list(detail::default_candidates<Collective::broadcast, Ring<>>(), Ring<>{8});
  check_list(detail::default_candidates<Collective::allreduce, Ring<>, false>(), Ring<>{8});
  check_list(detail::default_candidates<Collective::reduce, Hypercube<3>>(), Hypercube<3>{});
  check_list(detail::default_candidates<Collective::scan, Hypercube<3>, true, true>(), Hypercube<3>{});
}
