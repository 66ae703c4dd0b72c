// collectives-draw: its SVG is well-formed, and its arrows are exactly the messages the
// schedule sends when it runs (recorded on the threads transport through the front
// end); its labels say what the seeds' figures say; its marked links are the links that
// two or more routes of a step share.

#include "../../tools/draw/drawing.hpp"
#include "xml.hpp"

#include <collectives/collectives.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstddef>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace {

using namespace collectives;
namespace xml = collectives::testing::xml;

/// One arrow of the SVG.
struct Arrow {
  std::size_t step, from, to, blocks, hops, load;
  bool combines;
  std::string label, title;
};

struct Parsed {
  std::vector<Arrow> arrows;
  std::size_t steps = 0;
  std::map<std::tuple<std::size_t, std::size_t, std::size_t>, std::size_t> shared; // (step, from, to) -> load
};

std::size_t num(const xml::Element& e, const char* key) { return std::stoul(e.at(key)); }

Parsed parse_svg(const std::string& svg)
{
  const auto doc = xml::parse(svg); // throws when not well-formed
  REQUIRE(doc->name == "svg");
  Parsed out;
  out.steps = num(*doc, "data-steps");
  std::size_t panels = 0;
  doc->walk([&](const xml::Element& e) {
    if (!e.has("class")) return;
    const std::string& cls = e.at("class");
    if (cls == "step") {
      ++panels;
      // Every arrow and marked link of a panel lies inside it.
      const std::size_t k = num(e, "data-step");
      e.walk([&](const xml::Element& inner) {
        if (inner.has("data-step") && &inner != &e) CHECK(num(inner, "data-step") == k);
        if (inner.has("class") && inner.at("class") == "shared-link")
          out.shared[{k, num(inner, "data-from"), num(inner, "data-to")}] = num(inner, "data-load");
      });
    } else if (cls == "message") {
      Arrow a{num(e, "data-step"), num(e, "data-from"), num(e, "data-to"), num(e, "data-blocks"),
              num(e, "data-hops"), num(e, "data-load"), e.at("data-combines") == "1", "", ""};
      for (const auto& c : e.children) {
        if (c->name == "text") a.label = c->text;
        if (c->name == "title") a.title = c->text;
        if (c->name == "path") CHECK(!c->at("d").empty());
      }
      out.arrows.push_back(a);
    }
  });
  CHECK(panels == out.steps);
  return out;
}

/// What RecordingEndpoints saw on every rank when `body(comm)` ran on topo.
template <class Topo, class Body>
std::vector<std::vector<MessageRecord>> recorded(const Topo& topo, Body body)
{
  using Rec = RecordingEndpoint<threads::Endpoint>;
  std::vector<std::vector<MessageRecord>> logs(topo.size());
  threads::Team team{topo.size()};
  team.run([&](threads::Endpoint& ep) {
    Rec rec(ep);
    Communicator<Rec, Topo> comm(rec, topo);
    body(comm);
    logs[ep.rank()] = rec.log();
  });
  return logs;
}

/// The log each rank's RecordingEndpoint must show if the SVG's arrows are the messages
/// that ran: per rank, the steps it takes part in are its exchange calls, in order; in
/// each, its sends then its receives. Blocks are `block_bytes` each.
std::vector<std::vector<MessageRecord>> expected_from(const Parsed& svg, std::size_t p, std::size_t block_bytes)
{
  std::vector<std::vector<MessageRecord>> logs(p);
  for (std::size_t r = 0; r < p; ++r) {
    std::size_t call = 0;
    for (std::size_t k = 0; k < svg.steps; ++k) {
      std::vector<MessageRecord> mine;
      for (const Arrow& a : svg.arrows)
        if (a.step == k && a.from == r) mine.push_back({r, call, a.to, a.blocks * block_bytes, true});
      for (const Arrow& a : svg.arrows)
        if (a.step == k && a.to == r) mine.push_back({r, call, a.from, a.blocks * block_bytes, false});
      if (mine.empty()) continue;
      logs[r].insert(logs[r].end(), mine.begin(), mine.end());
      ++call;
    }
  }
  return logs;
}

/// Sorted within each (call, direction), as a rank may post one step's messages to
/// several peers in any order.
std::vector<std::vector<MessageRecord>> canonical(std::vector<std::vector<MessageRecord>> logs)
{
  for (auto& log : logs)
    std::sort(log.begin(), log.end(), [](const MessageRecord& a, const MessageRecord& b) {
      return std::tie(a.step, a.outgoing, a.peer, a.bytes) < std::tie(b.step, b.outgoing, b.peer, b.bytes);
    });
  return logs;
}

/// The SVG of algorithm `name` of C, parsed.
template <Collective C, class Topo>
Parsed drawn(const char* name, const Topo& topo, const Problem& problem = {})
{
  const auto d = draw::drawing<C>(name, topo, problem, "test topology");
  REQUIRE(d.has_value());
  return parse_svg(d->svg());
}

/// The marked links must be exactly the directed links two or more arrows' routes cross.
template <class Topo>
void check_shared_links(const Parsed& svg, const Topo& topo)
{
  std::map<std::tuple<std::size_t, std::size_t, std::size_t>, std::size_t> load;
  for (const Arrow& a : svg.arrows) {
    std::size_t hops = 0;
    for (const Link& l : route(topo, a.from, a.to)) {
      ++load[{a.step, l.from, l.to}];
      ++hops;
    }
    CHECK(a.hops == hops);
  }
  std::map<std::tuple<std::size_t, std::size_t, std::size_t>, std::size_t> want;
  for (const auto& [key, n] : load)
    if (n >= 2) want[key] = n;
  CHECK(svg.shared == want);
  for (const Arrow& a : svg.arrows) {
    std::size_t most = 0;
    for (const Link& l : route(topo, a.from, a.to)) most = std::max(most, load[{a.step, l.from, l.to}]);
    CHECK(a.load == most);
  }
}

} // namespace

TEST_CASE("draw: binomial broadcast on Hypercube<3> is the seeds' Figure 3.5, and what runs", "[tools][draw]")
{
  const Hypercube<3> topo;
  for (std::size_t root : {0u, 5u}) {
    const Parsed svg = drawn<Collective::broadcast>("binomial", topo, Problem{.root = root});
    REQUIRE(svg.steps == 3);
    const std::size_t n = 5;
    const auto logs = recorded(topo, [&](auto& comm) {
      std::vector<double> buf(n, comm.rank() == root ? 1.0 : 0.0);
      broadcast(comm, buf, root, broadcast_algorithm::binomial);
    });
    CHECK(canonical(logs) == canonical(expected_from(svg, 8, n * sizeof(double))));
    // Step k: 2^k messages of the one block X, each one hop, on disjoint links.
    for (std::size_t k = 0; k < 3; ++k)
      CHECK(std::count_if(svg.arrows.begin(), svg.arrows.end(), [&](const Arrow& a) { return a.step == k; }) == 1 << k);
    for (const Arrow& a : svg.arrows) {
      CHECK(a.label == "X");
      CHECK(!a.combines);
      if (root == 0) CHECK(a.hops == 1); // else virtual ids (r - root) mod p are not neighbours
    }
    check_shared_links(svg, topo);
  }
}

TEST_CASE("draw: ring allgather on Ring<8> is the seeds' Figure 4.9, and what runs", "[tools][draw]")
{
  const Ring<8> topo;
  const Parsed svg = drawn<Collective::allgather>("ring", topo);
  REQUIRE(svg.steps == 7);
  const std::size_t m = 3;
  const auto logs = recorded(topo, [&](auto& comm) {
    std::vector<int> send(m, static_cast<int>(comm.rank())), recv(8 * m);
    allgather(comm, send, recv, allgather_algorithm::ring);
  });
  CHECK(canonical(logs) == canonical(expected_from(svg, 8, m * sizeof(int))));
  // In step k (from 0) node r passes on the block that started at r - k.
  for (const Arrow& a : svg.arrows) {
    CHECK(a.to == (a.from + 1) % 8);
    CHECK(a.label == "(" + std::to_string((a.from + 8 - a.step) % 8) + ")");
  }
  check_shared_links(svg, topo);
}

TEST_CASE("draw: two-phase alltoall on Mesh<3,3> (Figure 3.19) and seed 002's all-port table on Hypercube<3>",
          "[tools][draw]")
{
  const std::size_t m = 2;
  auto run_alltoall = [&](const auto& topo, auto alg) {
    return recorded(topo, [&](auto& comm) {
      const std::size_t p = comm.size();
      std::vector<double> send(p * m, 1.0), recv(p * m);
      alltoall(comm, send, recv, alg);
    });
  };
  {
    const Mesh<3, 3> topo;
    const Parsed svg = drawn<Collective::alltoall>("dimensional", topo);
    CHECK(canonical(run_alltoall(topo, alltoall_algorithm::dimensional)) ==
          canonical(expected_from(svg, 9, m * sizeof(double))));
    check_shared_links(svg, topo);
    // Every block {s,d} crosses the network: the arrows' titles name all 72 of them.
    std::set<std::string> seen;
    for (const Arrow& a : svg.arrows)
      for (std::size_t s = 0; s < 9; ++s)
        for (std::size_t d = 0; d < 9; ++d)
          if (a.title.find("{" + std::to_string(s) + "," + std::to_string(d) + "}") != std::string::npos)
            seen.insert(std::to_string(s) + "," + std::to_string(d));
    CHECK(seen.size() == 72);
  }
  {
    const Hypercube<3> topo;
    const Parsed svg = drawn<Collective::alltoall>("all_port", topo);
    REQUIRE(svg.steps == 4); // 2^(n-1) rounds
    CHECK(canonical(run_alltoall(topo, alltoall_algorithm::all_port)) ==
          canonical(expected_from(svg, 8, m * sizeof(double))));
    check_shared_links(svg, topo);
    CHECK(svg.shared.empty()); // every arc used once per round
    CHECK(svg.arrows.size() == 4 * 8 * 3);
  }
}

TEST_CASE("draw: reductions are labelled with the partial sums they carry", "[tools][draw]")
{
  const Ring<4> topo;
  const Parsed svg = drawn<Collective::reduce_scatter>("ring", topo);
  REQUIRE(svg.steps == 3);
  const std::size_t m = 2;
  const auto logs = recorded(topo, [&](auto& comm) {
    std::vector<long> send(4 * m, 1), recv(m);
    reduce_scatter(comm, send, recv, std::plus<>{}, reduce_scatter_algorithm::ring);
  });
  CHECK(canonical(logs) == canonical(expected_from(svg, 4, m * sizeof(long))));
  for (const Arrow& a : svg.arrows) {
    // Step k carries the sum of k + 1 contributions.
    const std::string& l = a.label;
    REQUIRE(l.rfind("Σ", 0) == 0);
    const std::string ranks = l.substr(std::string("Σ").size(), l.find('[') - std::string("Σ").size());
    std::size_t count = 0;
    for (std::size_t i = 0; i < ranks.size();) {
      const std::size_t comma = ranks.find(',', i), dash = ranks.find('-', i);
      const std::size_t end = std::min(comma, ranks.size());
      if (dash < end) count += std::stoul(ranks.substr(dash + 1, end - dash - 1)) - std::stoul(ranks.substr(i, dash - i)) + 1;
      else ++count;
      i = end + 1;
    }
    CHECK(count == a.step + 1);
  }
}

TEST_CASE("draw: links carrying two messages in one step are marked", "[tools][draw]")
{
  // Pairwise alltoall on a ring: step k sends k hops (or p - k the other way), so routes overlap.
  const Ring<6> topo;
  const Parsed svg = drawn<Collective::alltoall>("pairwise", topo);
  check_shared_links(svg, topo);
  CHECK(!svg.shared.empty());
  const auto logs = recorded(topo, [&](auto& comm) {
    std::vector<float> send(6, 1.0f), recv(6);
    alltoall(comm, send, recv, alltoall_algorithm::pairwise);
  });
  CHECK(canonical(logs) == canonical(expected_from(svg, 6, sizeof(float))));
}

TEST_CASE("draw: the text table lists the same messages", "[tools][draw]")
{
  const auto d = draw::drawing<Collective::broadcast>("binomial", Hypercube<3>{}, Problem{}, "hypercube of 8");
  REQUIRE(d.has_value());
  const std::string t = d->text();
  CHECK(t.find("step  from    to  blocks  hops  link load  carries") != std::string::npos);
  std::size_t lines = 0;
  for (char c : t) lines += c == '\n' ? 1 : 0;
  CHECK(lines == 2 + 7); // title, header, 1 + 2 + 4 messages
}

TEST_CASE("draw: the exclusive scan is drawn as exscan runs it", "[tools][draw]")
{
  // exscan is the scan collective with Problem::exclusive (the tools' --op exscan).
  const Hypercube<3> topo;
  const Problem exclusive{.exclusive = true};
  const auto d = draw::drawing<Collective::scan>("recursive_doubling", topo, exclusive, "hypercube of 8");
  REQUIRE(d.has_value());
  CHECK(d->title.rfind("exscan, recursive_doubling", 0) == 0);
  const Parsed svg = drawn<Collective::scan>("recursive_doubling", topo, exclusive);
  const std::size_t m = 3;
  const auto logs = recorded(topo, [&](auto& comm) {
    std::vector<int> send(m, 1), recv(m);
    exscan(comm, send, recv, std::plus<>{}, scan_algorithm::recursive_doubling);
  });
  CHECK(canonical(logs) == canonical(expected_from(svg, 8, m * sizeof(int))));
  CHECK(draw::drawing<Collective::scan>("recursive_doubling", topo, Problem{}, "hypercube of 8")->title.rfind("scan,", 0) == 0);
}

TEST_CASE("draw: unknown or unfitting algorithms give no drawing", "[tools][draw]")
{
  CHECK(!draw::drawing<Collective::broadcast>("no_such", Ring<8>{}, Problem{}, "ring").has_value());
  CHECK(!draw::drawing<Collective::alltoall>("standard_exchange", Ring<6>{}, Problem{}, "ring").has_value());
  CHECK(!draw::drawing<Collective::reduce_scatter>("ring", Ring<4>{}, Problem{.commutative = false}, "ring").has_value());
}

TEST_CASE("xml reader rejects what is not well-formed", "[tools]")
{
  CHECK_NOTHROW(xml::parse("<?xml version=\"1.0\"?>\n<a x=\"1\"><b/>t&amp;<c y='2'>&#931;</c></a>\n"));
  CHECK_THROWS(xml::parse("<a><b></a></b>"));
  CHECK_THROWS(xml::parse("<a x=1/>"));
  CHECK_THROWS(xml::parse("<a x=\"1\" x=\"2\"/>"));
  CHECK_THROWS(xml::parse("<a>&nbsp;</a>"));
  CHECK_THROWS(xml::parse("<a>1 < 2</a>"));
  CHECK_THROWS(xml::parse("<a/><b/>"));
  CHECK_THROWS(xml::parse("<a>"));
}

TEST_CASE("draw: a step where nothing happens is not drawn (binomial reduce on Hypercube<3>: the seeds' 3 steps)",
          "[tools][draw]")
{
  // The schedule's first step has no message and no local move on any rank; the picture's
  // panels are the seed's three steps of the single-node accumulation, 4, 2 and 1 messages,
  // and the cost's count of steps with messages.
  const Hypercube<3> topo;
  const Parsed svg = drawn<Collective::reduce>("binomial", topo, Problem{.m = 1});
  REQUIRE(svg.steps == 3);
  for (std::size_t k = 0; k < 3; ++k)
    CHECK(std::count_if(svg.arrows.begin(), svg.arrows.end(), [&](const Arrow& a) { return a.step == k; }) == 4 >> k);
  const auto report = estimate(reduce_algorithm::binomial.schedule(topo, Problem{.m = 1}), topo, default_cost_model, 1);
  CHECK(report.steps == svg.steps);
  const std::size_t n = 4;
  const auto logs = recorded(topo, [&](auto& comm) {
    std::vector<double> in(n, 1.0), out(n);
    reduce(comm, in, out, std::plus<>{}, 0, reduce_algorithm::binomial);
  });
  CHECK(canonical(logs) == canonical(expected_from(svg, 8, n * sizeof(double))));
}
