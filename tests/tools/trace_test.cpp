// TracingEndpoint: the Chrome trace JSON of a real run parses, has one track per rank,
// one wait slice per step a rank takes part in, listing exactly the schedule's sends and
// receives of that step, and one flow per message from the sender's slice to the
// receiver's slice of the same schedule step. The executor's hooks are recorded and
// forwarded; gather() merges per-process traces.

#include "../../tools/registry.hpp"
#include "json.hpp"

#include <collectives/collectives.hpp>
#include <collectives/transport/tracing.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace collectives;
namespace json = collectives::testing::json;

/// One rank's steps of a schedule that move anything: for each, its sends and receives
/// as (peer, bytes) with blocks of `block_bytes`.
struct ActiveStep {
  std::size_t step;
  std::vector<std::pair<std::size_t, std::size_t>> sends, recvs;
};

template <class S>
std::vector<std::vector<ActiveStep>> active_steps(const S& s, std::size_t block_bytes)
{
  std::vector<std::vector<ActiveStep>> out(s.size());
  for (std::size_t r = 0; r < s.size(); ++r)
    for (std::size_t k = 0; k < s.num_steps(); ++k) {
      const auto ops = step_ops(s, r, k);
      if (ops.sends.empty() && ops.recvs.empty()) continue;
      ActiveStep a{k, {}, {}};
      for (const auto& o : ops.sends) a.sends.emplace_back(o.peer, o.blocks.count * block_bytes);
      for (const auto& o : ops.recvs) a.recvs.emplace_back(o.peer, o.blocks.count * block_bytes);
      out[r].push_back(a);
    }
  return out;
}

std::vector<std::pair<std::size_t, std::size_t>> pairs(const json::Value& list)
{
  std::vector<std::pair<std::size_t, std::size_t>> out;
  for (const auto& pr : list.array())
    out.emplace_back(static_cast<std::size_t>(pr.array().at(0).number()),
                     static_cast<std::size_t>(pr.array().at(1).number()));
  return out;
}

struct Slice {
  double ts, dur;
  json::Value args;
};

/// Checks the trace of one run of schedule `s` (blocks of block_bytes) against it.
template <class S>
void check_trace(const std::string& text, const S& s, std::size_t block_bytes)
{
  const json::Value doc = json::parse(text);
  const std::size_t p = s.size();
  std::map<std::size_t, std::vector<Slice>> waits; // per rank, in time order
  std::map<std::string, json::Value> starts, ends; // flows by id
  std::map<std::size_t, std::string> thread_names;
  for (const auto& ev : doc["traceEvents"].array()) {
    const std::string ph = ev["ph"].string();
    const auto tid = static_cast<std::size_t>(ev["tid"].number());
    if (ph == "M" && ev["name"].string() == "thread_name") thread_names[tid] = ev["args"]["name"].string();
    if (ph == "X" && ev["name"].string() == "wait") waits[tid].push_back({ev["ts"].number(), ev["dur"].number(), ev["args"]});
    const std::string id = ev.has("id") ? std::to_string(static_cast<long long>(ev["id"].number())) : "";
    if (ph == "s") CHECK(starts.emplace(id, ev).second);
    if (ph == "f") {
      CHECK(ev["bp"].string() == "e");
      CHECK(ends.emplace(id, ev).second);
    }
  }
  REQUIRE(thread_names.size() == p);
  for (std::size_t r = 0; r < p; ++r) CHECK(thread_names[r] == "rank " + std::to_string(r));

  const auto want = active_steps(s, block_bytes);
  std::size_t messages = 0;
  for (std::size_t r = 0; r < p; ++r) {
    auto& w = waits[r];
    std::sort(w.begin(), w.end(), [](const Slice& a, const Slice& b) { return a.ts < b.ts; });
    REQUIRE(w.size() == want[r].size());
    for (std::size_t i = 0; i < w.size(); ++i) {
      CHECK(static_cast<std::size_t>(w[i].args["step"].number()) == i); // the endpoint's own count
      CHECK(pairs(w[i].args["sends"]) == want[r][i].sends);
      CHECK(pairs(w[i].args["recvs"]) == want[r][i].recvs);
      messages += want[r][i].sends.size();
    }
  }
  // Flows: one per message, from inside the sender's slice to inside the receiver's slice
  // of the same schedule step.
  REQUIRE(starts.size() == messages);
  REQUIRE(ends.size() == messages);
  auto slice_at = [&](std::size_t r, double ts) {
    for (std::size_t i = 0; i < waits[r].size(); ++i)
      if (ts >= waits[r][i].ts - 1e-3 && ts <= waits[r][i].ts + waits[r][i].dur + 1e-3) return i;
    FAIL("a flow event lies outside every wait slice of rank " << r);
    return std::size_t{0};
  };
  for (const auto& [id, s_ev] : starts) {
    REQUIRE(ends.count(id) == 1);
    const json::Value& f_ev = ends.at(id);
    const auto from = static_cast<std::size_t>(s_ev["tid"].number()), to = static_cast<std::size_t>(f_ev["tid"].number());
    CHECK(static_cast<std::size_t>(s_ev["args"]["from"].number()) == from);
    CHECK(static_cast<std::size_t>(s_ev["args"]["to"].number()) == to);
    const std::size_t i = slice_at(from, s_ev["ts"].number()), j = slice_at(to, f_ev["ts"].number());
    CHECK(want[from][i].step == want[to][j].step);
    CHECK(f_ev["ts"].number() >= s_ev["ts"].number());
  }
}

/// Runs body(comm) on a team over TracingEndpoints sharing one Trace; returns its JSON.
template <class Topo, class Body>
std::string traced_run(const Topo& topo, Body body)
{
  Trace trace(topo.size(), "test");
  threads::Team team{topo.size()};
  team.run([&](threads::Endpoint& ep) {
    TracingEndpoint traced(ep, trace);
    Communicator<TracingEndpoint<threads::Endpoint>, Topo> comm(traced, topo);
    body(comm);
  });
  return trace.chrome_json();
}

template <class E>
concept says_combines_on_receive = requires { E::combines_on_receive; };

/// An endpoint with none of the optional members: the wrapper must not invent them.
struct PlainEndpoint {
  threads::Endpoint* inner;
  std::size_t rank() const { return inner->rank(); }
  std::size_t size() const { return inner->size(); }
  void exchange(std::span<const SendRequest> s, std::span<const RecvRequest> r) { inner->exchange(s, r); }
};

/// An endpoint with the executor's optional hooks, counting what reaches it.
struct HookedEndpoint {
  static constexpr bool combines_on_receive = true;
  threads::Endpoint* inner;
  int* phases;
  int* described_exchanges;
  std::size_t rank() const { return inner->rank(); }
  std::size_t size() const { return inner->size(); }
  void exchange(std::span<const SendRequest> s, std::span<const RecvRequest> r) { inner->exchange(s, r); }
  void exchange(std::span<const SendRequest> s, std::span<const RecvRequest> r, const StepInfo&)
  {
    ++*described_exchanges;
    inner->exchange(s, r);
  }
  void phase(Phase, bool, const StepInfo&) { ++*phases; }
};

} // namespace

TEST_CASE("trace: an alltoall's events are the schedule's messages", "[tools][trace]")
{
  const Ring<>topo{5};
  const std::size_t m = 3;
  const std::string text = traced_run(topo, [&](auto& comm) {
    std::vector<double> send(5 * m, 1.0), recv(5 * m);
    alltoall(comm, send, recv, alltoall_algorithm::pairwise);
  });
  tools::with_schedule_of<Collective::alltoall>(alltoall_algorithm::pairwise, topo, Problem{},
                                                [&](const auto& s) { check_trace(text, s, m * sizeof(double)); });
}

TEST_CASE("trace: a hypercube allgather and a ring reduce-scatter", "[tools][trace]")
{
  {
    const auto topo = Hypercube<>::of_dims(3);
    const std::string text = traced_run(topo, [&](auto& comm) {
      std::vector<int> send(2, 1), recv(16);
      allgather(comm, send, recv, allgather_algorithm::recursive_doubling);
    });
    tools::with_schedule_of<Collective::allgather>(allgather_algorithm::recursive_doubling, topo, Problem{},
                                                   [&](const auto& s) { check_trace(text, s, 2 * sizeof(int)); });
  }
  {
    const Ring<>topo{4};
    const std::string text = traced_run(topo, [&](auto& comm) {
      std::vector<long> send(8, 1), recv(2);
      reduce_scatter(comm, send, recv, std::plus<>{}, reduce_scatter_algorithm::ring);
    });
    tools::with_schedule_of<Collective::reduce_scatter>(reduce_scatter_algorithm::ring, topo, Problem{},
                                                        [&](const auto& s) { check_trace(text, s, 2 * sizeof(long)); });
  }
}

TEST_CASE("trace: the executor's hooks are recorded and forwarded", "[tools][trace]")
{
  static_assert(TracingEndpoint<HookedEndpoint>::combines_on_receive);
  static_assert(TracingEndpoint<threads::Endpoint>::combines_on_receive == threads::Endpoint::combines_on_receive);
  static_assert(!says_combines_on_receive<TracingEndpoint<PlainEndpoint>>);
  static_assert(endpoint<TracingEndpoint<HookedEndpoint>>);
  Trace trace(2, "hooks");
  int phases[2] = {0, 0}, described[2] = {0, 0};
  double received[2] = {-1, -1}; // checked after the run: Catch's assertions are not thread-safe
  threads::Team team{2};
  team.run([&](threads::Endpoint& ep) {
    const std::size_t r = ep.rank();
    HookedEndpoint hooked{&ep, &phases[r], &described[r]};
    TracingEndpoint traced(hooked, trace);
    const StepInfo info{"alltoall", "pairwise", 7, 1, 3};
    double out = static_cast<double>(r), in = -1;
    const ConstBytes piece{reinterpret_cast<const std::byte*>(&out), sizeof out};
    const MutableBytes landing{reinterpret_cast<std::byte*>(&in), sizeof in};
    const SendRequest send{1 - r, std::span<const ConstBytes>(&piece, 1)};
    const RecvRequest recv{1 - r, std::span<const MutableBytes>(&landing, 1)};
    traced.phase(Phase::post, true, info);
    traced.phase(Phase::post, false, info);
    traced.exchange(std::span<const SendRequest>(&send, 1), std::span<const RecvRequest>(&recv, 1), info);
    traced.phase(Phase::combine, true, info);
    traced.phase(Phase::combine, false, info);
    received[r] = in;
  });
  CHECK(received[0] == 1.0);
  CHECK(received[1] == 0.0);
  CHECK(phases[0] == 4);
  CHECK(described[1] == 1);
  const json::Value doc = json::parse(trace.chrome_json());
  std::map<std::string, int> slices;
  for (const auto& ev : doc["traceEvents"].array()) {
    if (ev["ph"].string() != "X") continue;
    ++slices[ev["name"].string()];
    CHECK(ev["args"]["collective"].string() == "alltoall");
    CHECK(ev["args"]["algorithm"].string() == "pairwise");
    CHECK(ev["args"]["call"].number() == 7);
    CHECK(ev["args"]["step"].number() == 1);
    CHECK(ev["args"]["steps"].number() == 3);
  }
  CHECK(slices == std::map<std::string, int>{{"post", 2}, {"wait", 2}, {"combine", 2}});
}

template <class E>
concept suggests_model = requires(const E& e) { e.cost_model(); };

TEST_CASE("trace: the inner endpoint's model and call numbers are passed on", "[tools][trace]")
{
  static_assert(!suggests_model<TracingEndpoint<PlainEndpoint>>);
  static_assert(suggests_model<TracingEndpoint<threads::Endpoint>>);
  Trace trace(2, "model");
  CostModel seen[2]{};
  std::uint64_t calls[2][2]{};
  threads::Team team{2};
  team.run([&](threads::Endpoint& ep) {
    const std::size_t r = ep.rank();
    TracingEndpoint traced(ep, trace);
    seen[r] = traced.cost_model();
    calls[r][0] = traced.begin_call();
    calls[r][1] = ep.begin_call(); // one count: the inner endpoint's
  });
  for (const CostModel& m : seen) {
    // A Communicator over the traced endpoint picks with the team's model, not the default.
    CHECK(m.t_s == team.cost_model().t_s);
    CHECK(m.half_duplex == team.cost_model().half_duplex);
    CHECK(m.crossbar == team.cost_model().crossbar);
    CHECK(m.t_fresh == team.cost_model().t_fresh);
  }
  CHECK(calls[0][0] == 1);
  CHECK(calls[0][1] == 2);
  CHECK(calls[1][1] == 2);
}

TEST_CASE("trace: per-process traces gather to rank 0; disabled endpoints record nothing", "[tools][trace]")
{
  const std::size_t p = 3;
  std::vector<Trace> traces;
  for (std::size_t r = 0; r < p; ++r) traces.emplace_back(p, "gathered");
  threads::Team team{p};
  team.run([&](threads::Endpoint& ep) {
    Trace& mine = traces[ep.rank()]; // as if each rank were its own process
    TracingEndpoint traced(ep, mine);
    Communicator comm{traced};
    std::vector<int> send(p, 1), recv(p);
    alltoall(comm, send, recv, alltoall_algorithm::ring);
    traced.set_enabled(false);
    alltoall(comm, send, recv, alltoall_algorithm::ring); // not recorded
    gather_trace(mine, ep);
  });
  const std::string text = traces[0].chrome_json();
  tools::with_schedule_of<Collective::alltoall>(alltoall_algorithm::ring, Ring<>{p}, Problem{},
                                                [&](const auto& s) { check_trace(text, s, sizeof(int)); });
  const auto copy = Trace::deserialize(Trace::serialize(traces[0].rank(1)).data(), Trace::serialize(traces[0].rank(1)).size());
  CHECK(copy.events.size() == traces[0].rank(1).events.size());
  CHECK(copy.names == traces[0].rank(1).names);
  const auto bytes = Trace::serialize(traces[0].rank(1));
  CHECK_THROWS(Trace::deserialize(bytes.data(), bytes.size() - 1));
}

TEST_CASE("trace: a trace of the wrong size is refused; the JSON reader is strict", "[tools][trace]")
{
  Trace trace(3);
  threads::Team team{2};
  CHECK_THROWS_AS(team.run([&](threads::Endpoint& ep) { TracingEndpoint traced(ep, trace); }), std::invalid_argument);
  CHECK_NOTHROW(json::parse(R"({"a":[1,-2.5e3,true,null,"x\n"]})"));
  CHECK_THROWS(json::parse(R"({"a":1,})"));
  CHECK_THROWS(json::parse(R"({"a":01})"));
  CHECK_THROWS(json::parse(R"([1] 2)"));
  CHECK_THROWS(json::parse(R"({"a":1,"a":2})"));
}
