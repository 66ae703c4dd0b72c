// Unit tests of the MPI shim's parts that need no MPI job: the Grid topology (non-periodic
// Cartesian dimensions), the shim's type-erased topology, the choice of a communicator's
// topology, the configuration from the environment, and the adapter to the library's
// algorithm lists.

#include <catch2/catch.hpp>

#include "algorithms.hpp"
#include "config.hpp"
#include "topology.hpp"
#include "topology_choice.hpp"

#include "../support/markdown.hpp"

#include <collectives/algorithm/allgather.hpp>
#include <collectives/algorithm/alltoall.hpp>
#include <collectives/algorithm/reduce_scatter.hpp>
#include <collectives/cost/schedule_cost.hpp>
#include <collectives/schedule/verify.hpp>
#include <collectives/topology/grid.hpp>

#include <cctype>
#include <cstdio>
#include <fstream>
#include <set>
#include <string>
#include <vector>

using namespace collectives;
using collectives::pmpi::Coll;
using collectives::pmpi::ShimTopology;

namespace {

// Grid --------------------------------------------------------------------------------

constexpr Grid line_ring{{4, 3}, {false, true}};
static_assert(topology<Grid> && product_topology<Grid>);
static_assert(line_ring.size() == 12 && line_ring.ndims() == 2 && line_ring.stride(0) == 3);
// Along the line (dimension 0) no wraparound: from row 0 to row 3 is three hops.
static_assert(line_ring.distance(0, 9) == 3 && line_ring.next_hop(0, 9) == 3);
// Along the ring (dimension 1) the shorter way round: column 0 to 2 is one hop back.
static_assert(line_ring.distance(0, 2) == 1 && line_ring.next_hop(0, 2) == 2);
// The algorithms' logical rings wrap on lines too.
static_assert(line_ring.shift_along(9, 0, 1) == 0);
static_assert(line_ring.diameter() == 3 + 1);

/// Every law a topology's routing must keep, for every pair of nodes.
template <class T>
void check_routing_laws(const T& t)
{
  std::size_t links = 0, diameter = 0;
  for (std::size_t a = 0; a < t.size(); ++a) {
    CHECK(t.next_hop(a, a) == a);
    for (std::size_t b = 0; b < t.size(); ++b) {
      if (a == b) continue;
      links += t.is_link(a, b) ? 1 : 0;
      CHECK(t.is_link(a, b) == t.is_link(b, a));
      diameter = std::max(diameter, t.distance(a, b));
      // The route reaches b in distance(a, b) hops, each over a link and one closer.
      std::size_t at = a, hops = 0;
      while (at != b && hops <= t.size()) {
        const std::size_t next = t.next_hop(at, b);
        REQUIRE(t.is_link(at, next));
        REQUIRE(t.distance(next, b) + 1 == t.distance(at, b));
        at = next;
        ++hops;
      }
      CHECK(hops == t.distance(a, b));
    }
  }
  CHECK(links == t.num_links());
  CHECK(diameter == t.diameter());
}

TEST_CASE("pmpi: Grid routes along its links only", "[pmpi][grid]")
{
  const std::vector<Grid> grids{
    Grid({5}, {false}),           Grid({5}, {true}),           Grid({2}, {false}),
    Grid({4, 3}, {false, true}),  Grid({3, 4}, {false, false}), Grid({2, 3, 2}, {true, false, false}),
    Grid({1, 4}, {false, false}), Grid({3, 3, 3}, {false, true, false})};
  for (const Grid& g : grids) {
    INFO("grid of " << g.size() << " nodes, " << g.ndims() << " dimensions");
    check_routing_laws(g);
    // A line never wraps: a route between its ends crosses every node between.
    for (std::size_t d = 0; d < g.ndims(); ++d)
      if (!g.periodic(d) && g.extent(d) > 2) {
        const std::size_t last = (g.extent(d) - 1) * g.stride(d);
        CHECK(g.distance(0, last) == g.extent(d) - 1);
        CHECK(g.next_hop(0, last) == g.stride(d));
      }
  }
}

TEST_CASE("pmpi: an all-periodic Grid routes as the Torus", "[pmpi][grid]")
{
  const Grid g({3, 4, 2}, {true, true, true});
  const Torus<dynamic_extent, dynamic_extent, dynamic_extent> t(3, 4, 2);
  for (std::size_t a = 0; a < g.size(); ++a)
    for (std::size_t b = 0; b < g.size(); ++b) {
      CHECK(g.distance(a, b) == t.distance(a, b));
      CHECK(g.next_hop(a, b) == t.next_hop(a, b));
    }
  CHECK(g.num_links() == t.num_links());
}

TEST_CASE("pmpi: Grid rejects bad shapes", "[pmpi][grid]")
{
  CHECK_THROWS_AS(Grid({}, {}), std::invalid_argument);
  CHECK_THROWS_AS(Grid({3, 0}, {false, false}), std::invalid_argument);
  CHECK_THROWS_AS(Grid({3, 2}, {false}), std::invalid_argument);
  const std::vector<std::size_t> many(max_grid_dims + 1, 2);
  const bool flags[max_grid_dims + 1] = {};
  CHECK_THROWS_AS(Grid(std::span<const std::size_t>(many), std::span<const bool>(flags)), std::invalid_argument);
  const Grid g({3, 4}, {false, false});
  const std::size_t c[2] = {2, 3}, bad[2] = {3, 0};
  CHECK(g.rank_of(c) == 11);
  CHECK_THROWS_AS(g.rank_of(bad), std::invalid_argument);
}

TEST_CASE("pmpi: the dimensional schedules are correct on Grids, and wraparound costs more on lines",
          "[pmpi][grid]")
{
  for (const Grid& g : {Grid({4, 3}, {false, true}), Grid({2, 3, 2}, {false, false, false}), Grid({6}, {false})}) {
    CHECK(verify(AllgatherDimensionalSchedule(rings_of(g), false)).ok);
    CHECK(verify(AllgatherDimensionalSchedule(rings_of(g), true)).ok);
    CHECK(verify(ReduceScatterDimensionalSchedule(rings_of(g))).ok);
    if (g.ndims() >= 2) CHECK(verify(DimensionalSchedule(rings_of(g))).ok);
  }
  // A ring all-gather's wraparound message crosses the whole line.
  const CostModel model{.t_s = 1e-6, .t_w = 1e-9, .t_h = 1e-7};
  const double line = estimate(AllgatherRingSchedule(8, false), Grid({8}, {false}), model, 64).time;
  const double ring = estimate(AllgatherRingSchedule(8, false), Ring<>{8}, model, 64).time;
  CHECK(line > ring);
}

// ShimTopology -------------------------------------------------------------------------

std::vector<ShimTopology> shim_topologies()
{
  return {ShimTopology(FullyConnected<>{6}),       ShimTopology(Ring<>{6}),
          ShimTopology(Mesh<>{2, 3}),              ShimTopology(ShimTopology::Torus3{2, 2, 2}),
          ShimTopology(Hypercube<>::of_dims(3)),            ShimTopology(Grid({3, 2}, {false, true}))};
}

TEST_CASE("pmpi: the shim's topology answers as the topology it holds", "[pmpi][topology]")
{
  static_assert(product_topology<ShimTopology>);
  for (const ShimTopology& s : shim_topologies()) {
    INFO(s.describe());
    std::visit(
      [&](const auto& t) {
        using T = std::remove_cvref_t<decltype(t)>;
        REQUIRE(s.size() == t.size());
        for (std::size_t a = 0; a < t.size(); ++a)
          for (std::size_t b = 0; b < t.size(); ++b) {
            CHECK(s.next_hop(a, b) == t.next_hop(a, b));
            CHECK(s.distance(a, b) == t.distance(a, b));
          }
        if constexpr (std::is_same_v<T, FullyConnected<>>) {
          // One dimension of p nodes.
          CHECK(s.ndims() == 1);
          CHECK(s.extent(0) == t.size());
          CHECK(s.shift_along(5, 0, 2) == 1);
        } else {
          REQUIRE(s.ndims() == t.ndims());
          for (std::size_t d = 0; d < t.ndims(); ++d) {
            CHECK(s.extent(d) == t.extent(d));
            CHECK(s.stride(d) == t.stride(d));
            CHECK(s.route_dim(d) == t.route_dim(d));
            for (std::size_t r = 0; r < t.size(); ++r) {
              CHECK(s.coord(r, d) == t.coord(r, d));
              CHECK(s.shift_along(r, d, 1) == t.shift_along(r, d, 1));
            }
          }
          // The same schedule, so the same cost.
          const CostModel model{.t_s = 1e-6, .t_w = 1e-9, .t_h = 1e-7};
          CHECK(estimate(AllgatherDimensionalSchedule(rings_of(s)), s, model, 100).time ==
                Approx(estimate(AllgatherDimensionalSchedule(rings_of(t)), t, model, 100).time));
        }
      },
      s.held());
    CHECK(verify(AllgatherDimensionalSchedule(rings_of(s))).ok);
    CHECK(verify(ReduceScatterDimensionalSchedule(rings_of(s))).ok);
  }
}

// Choosing a communicator's topology ---------------------------------------------------

std::string chosen(std::size_t p, const pmpi::CartesianInfo* cart, std::string_view spec)
{
  return pmpi::choose_topology(p, cart, pmpi::parse_topology_spec(spec)).topology.describe();
}

TEST_CASE("pmpi: a Cartesian communicator runs on its torus, or on a grid where it has lines", "[pmpi][topology]")
{
  pmpi::CartesianInfo cart{{2, 3}, {true, true}};
  CHECK(chosen(6, &cart, "") == "mesh 2x3");
  CHECK(chosen(6, &cart, "hypercube") == "mesh 2x3"); // the Cartesian topology wins
  cart = {{4}, {false}};
  CHECK(chosen(4, &cart, "") == "grid 4 (line)");
  cart = {{8}, {true}};
  CHECK(chosen(8, &cart, "") == "ring 8");
  cart = {{2, 2, 2}, {true, true, true}};
  CHECK(chosen(8, &cart, "") == "torus 2x2x2");
  // Extent 1 dropped; a line of two has a ring's links.
  cart = {{2, 1, 4}, {false, true, false}};
  CHECK(chosen(8, &cart, "") == "grid 2x4 (ring x line)");
  cart = {{2, 2}, {false, false}};
  CHECK(chosen(4, &cart, "") == "mesh 2x2");
  cart = {{1, 1}, {false, false}};
  CHECK(chosen(1, &cart, "") == "ring 1");
}

TEST_CASE("pmpi: COLLECTIVES_TOPOLOGY, where it fits the communicator", "[pmpi][topology]")
{
  CHECK(chosen(6, nullptr, "") == "fully connected 6");
  CHECK(chosen(6, nullptr, "ring") == "ring 6");
  CHECK(chosen(8, nullptr, "hypercube") == "hypercube 3");
  CHECK(chosen(8, nullptr, "hypercube:3") == "hypercube 3");
  CHECK(chosen(6, nullptr, "hypercube") == "fully connected 6");
  CHECK(chosen(4, nullptr, "hypercube:3") == "fully connected 4");
  CHECK(chosen(12, nullptr, "mesh") == "mesh 4x3");
  CHECK(chosen(16, nullptr, "mesh:2x8") == "mesh 2x8");
  CHECK(chosen(8, nullptr, "mesh:4x4") == "fully connected 8");
  CHECK(chosen(8, nullptr, "torus") == "torus 2x2x2");
  CHECK(chosen(12, nullptr, "grid:3x4") == "grid 3x4 (line x line)");
  CHECK(chosen(6, nullptr, "fully_connected") == "fully connected 6");
  CHECK(pmpi::choose_topology(8, nullptr, pmpi::parse_topology_spec("mesh:4x4")).source ==
        "default: COLLECTIVES_TOPOLOGY does not fit this size");
  for (const char* bad : {"blob", "mesh:4", "mesh:4x0", "ring:4", "hypercube:2x2", "torus:x"}) {
    INFO(bad);
    CHECK_THROWS_AS(pmpi::parse_topology_spec(bad), std::invalid_argument);
  }
  CHECK(pmpi::balanced_extents(12, 2) == std::vector<std::size_t>{4, 3});
  CHECK(pmpi::balanced_extents(8, 3) == std::vector<std::size_t>{2, 2, 2});
  CHECK(pmpi::balanced_extents(7, 2) == std::vector<std::size_t>{7, 1});
}

// Configuration ------------------------------------------------------------------------

std::string error_of(const std::string& text)
{
  try {
    pmpi::parse_config(text);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST_CASE("pmpi: the configuration from the environment", "[pmpi][config]")
{
  const pmpi::Config c = pmpi::parse_config("COLLECTIVES_ALLREDUCE_ALGORITHM=ring\n"
                                            "COLLECTIVES_BROADCAST_ALGORITHM=default\n"
                                            "COLLECTIVES_PMPI_VERBOSE=2\n"
                                            "COLLECTIVES_MODEL=2e-6,3e-9,1e-8\n"
                                            "COLLECTIVES_TOPOLOGY=mesh:2x3\n"
                                            "COLLECTIVES_PMPI_MAX_MESSAGE_BYTES=1000\n"
                                            "COLLECTIVES_PMPI_ROUND=3\n"
                                            "COLLECTIVES_SOMETHING_ELSE=ignored\n");
  CHECK(c.forced[static_cast<std::size_t>(Coll::allreduce)] == pmpi::algorithms::index_of(Coll::allreduce, "ring"));
  CHECK(c.forced[static_cast<std::size_t>(Coll::broadcast)] == pmpi::algorithms::npos);
  CHECK(c.verbose == 2);
  CHECK(c.model.t_s == 2e-6);
  CHECK(c.model.t_w == 3e-9);
  CHECK(c.model.t_h == 1e-8);
  CHECK(c.model.t_r == default_cost_model.t_r);
  CHECK(c.topology.kind == pmpi::TopologySpec::Kind::mesh);
  CHECK(c.transport.max_message_bytes == 1000);
  CHECK(c.round == 3);
  CHECK(c.enabled);
  CHECK(!pmpi::parse_config("COLLECTIVES_PMPI_DISABLE=1\n").enabled);
  // Variables nobody reads (a misspelling) are kept for a warning; the transport's are read.
  CHECK(c.unknown == std::vector<std::string>{"COLLECTIVES_SOMETHING_ELSE"});
  CHECK(pmpi::parse_config("COLLECTIVES_TOPOLGY=ring\nCOLLECTIVES_MPI_CHECK=1\nCOLLECTIVES_MPI_TIMEOUT=9\n").unknown ==
        std::vector<std::string>{"COLLECTIVES_TOPOLGY"});

  // An unknown algorithm lists the valid ones.
  const std::string e = error_of("COLLECTIVES_ALLREDUCE_ALGORITHM=bogus\n");
  CHECK(e.find("not an algorithm of allreduce") != std::string::npos);
  CHECK(e.find("valid: default, " + pmpi::algorithms::names_text(Coll::allreduce)) != std::string::npos);
  CHECK(error_of("COLLECTIVES_BCAST_ALGORITHM=binomial\n").find("valid: BROADCAST, REDUCE") != std::string::npos);
  CHECK(error_of("COLLECTIVES_PMPI_VERBOSE=7\n") != "");
  CHECK(error_of("COLLECTIVES_PMPI_VERBOSITY=1\n").find("unknown variable") != std::string::npos);
  CHECK(error_of("COLLECTIVES_MODEL=fast\n") != "");
  CHECK(error_of("COLLECTIVES_MODEL=-1,2\n") != "");
  CHECK(error_of("COLLECTIVES_PMPI_MAX_MESSAGE_BYTES=0\n") != "");
  CHECK(error_of("COLLECTIVES_TOPOLOGY=blob\n").find("unknown topology") != std::string::npos);
}

TEST_CASE("pmpi: a model file is read on the rank that has it", "[pmpi][config]")
{
  const std::string path = "pmpi_unit_model.txt";
  {
    std::ofstream out(path);
    out << pmpi::model_file_text(CostModel{.t_s = 4e-6, .t_w = 5e-10, .t_h = 0, .t_r = 1e-10}, 8);
  }
  std::string model = "COLLECTIVES_MODEL=" + path, missing = "COLLECTIVES_MODEL=/nonexistent/model";
  char* env[] = {model.data(), nullptr};
  const pmpi::Config c = pmpi::parse_config(pmpi::config_text(env));
  CHECK(c.model.t_s == 4e-6);
  CHECK(c.model.t_w == 5e-10);
  CHECK(c.model.t_r == 1e-10);
  CHECK(c.model_source == "file " + path);
  char* env2[] = {missing.data(), nullptr};
  CHECK(error_of(pmpi::config_text(env2)).find("cannot read the model file") != std::string::npos);
  // A value that is neither numbers nor a file (one number) says what the variable takes.
  std::string one_number = "COLLECTIVES_MODEL=1e-6";
  char* env3[] = {one_number.data(), nullptr};
  CHECK(error_of(pmpi::config_text(env3)).find("expected t_s,t_w[,t_h[,t_r]]") != std::string::npos);

  // One node's terms survive the round trip (a calibrated model keeps the endpoint's).
  const CostModel node{.t_s = 1e-6, .t_w = 2e-10, .t_h = 3e-8, .t_r = 4e-11, .half_duplex = true, .lanes = 2,
                       .t_sync = 3e-6, .crossbar = true, .t_fresh = 5e-10};
  {
    std::ofstream out(path);
    out << pmpi::model_file_text(node, 4);
  }
  const pmpi::Config n = pmpi::parse_config(pmpi::config_text(env));
  CHECK(n.model.t_s == node.t_s);
  CHECK(n.model.t_w == node.t_w);
  CHECK(n.model.t_h == node.t_h);
  CHECK(n.model.t_r == node.t_r);
  CHECK(n.model.t_sync == node.t_sync);
  CHECK(n.model.lanes == 2);
  CHECK(n.model.half_duplex);
  CHECK(n.model.crossbar);
  CHECK(n.model.t_fresh == node.t_fresh);
  CHECK(n.word_bytes == 4);
  // Bad values name the line and the key.
  for (const char* bad : {"crossbar 2", "half_duplex yes", "lanes -1", "lanes 1.5", "t_sync -1e-6", "t_fresh inf"}) {
    {
      std::ofstream out(path);
      out << "t_s 1e-6\n" << bad << "\n";
    }
    const std::string e = error_of(pmpi::config_text(env));
    CAPTURE(bad, e);
    CHECK(e.find(path + ":2: ") != std::string::npos);
    CHECK(e.find(std::string(bad).substr(0, std::string(bad).find(' '))) != std::string::npos);
  }
  std::remove(path.c_str());
  // The numbers' form: 2, 3, 4 or 9 of them.
  const CostModel nine = pmpi::parse_config("COLLECTIVES_MODEL=1e-6,1e-9,0,0,2e-6,2,1,1,3e-10\n").model;
  CHECK(nine.lanes == 2);
  CHECK(nine.t_fresh == 3e-10);
  CHECK(error_of("COLLECTIVES_MODEL=1e-6,1e-9,0,0,2e-6\n") != "");
  // The message names both forms of the numbers.
  CHECK_THAT(error_of("COLLECTIVES_MODEL=1e-6,1e-9,0,0,2e-6\n"),
             Catch::Matchers::Contains("t_s,t_w[,t_h[,t_r]]") &&
               Catch::Matchers::Contains("t_sync,lanes,half_duplex,crossbar,t_fresh"));
  CHECK(error_of("COLLECTIVES_MODEL=1e-6,1e-9,0,0,2e-6,2,1,1\n") != "");
  CHECK(error_of("COLLECTIVES_MODEL=1e-6,1e-9,0,0,2e-6,2,1,3,0\n") != "");
}

// The adapter --------------------------------------------------------------------------

TEST_CASE("pmpi: the adapter names every algorithm once and picks ones that fit", "[pmpi][algorithms]")
{
  namespace A = pmpi::algorithms;
  for (std::size_t i = 0; i < pmpi::num_colls; ++i) {
    const Coll c = static_cast<Coll>(i);
    INFO(pmpi::coll_name(c));
    const auto names = A::names(c);
    REQUIRE(!names.empty());
    CHECK(std::set<std::string_view>(names.begin(), names.end()).size() == names.size());
    for (std::size_t k = 0; k < names.size(); ++k) CHECK(A::index_of(c, names[k]) == k);
    CHECK(A::index_of(c, "no such algorithm") == A::npos);
    for (const ShimTopology& t : shim_topologies())
      for (const double m : {1.0, 1e3, 1e6}) {
        const Problem pr{.m = m, .root = 1, .commutative = m < 1e5};
        const std::size_t pick = A::cheapest(c, t, default_cost_model, pr);
        REQUIRE(pick < names.size());
        CHECK(A::fits(c, pick, t, pr));
      }
  }
  // Power-of-two algorithms do not fit six ranks; commutative-only ones not a
  // non-commutative operator.
  const ShimTopology six(Ring<>{6});
  CHECK_FALSE(A::fits(Coll::alltoall, A::index_of(Coll::alltoall, "pairwise_xor"), six, Problem{}));
  CHECK_FALSE(A::fits(Coll::alltoallv, A::index_of(Coll::alltoallv, "pairwise_xor"), six, Problem{}));
  CHECK(A::fits(Coll::alltoall, A::index_of(Coll::alltoall, "bruck"), six, Problem{}));
  CHECK_FALSE(A::fits(Coll::allreduce, A::index_of(Coll::allreduce, "ring"), six, Problem{.commutative = false}));
  CHECK_FALSE(A::fits(Coll::allreduce, A::index_of(Coll::allreduce, "ring"), six, Problem{.in_place = true}));
  CHECK(A::fits(Coll::allreduce, A::index_of(Coll::allreduce, "ring"), six, Problem{}));
  // The dimensional alltoall needs two dimensions: not on a ring or a fully connected network.
  CHECK_FALSE(A::fits(Coll::alltoall, A::index_of(Coll::alltoall, "dimensional"), six, Problem{}));
  CHECK(A::fits(Coll::alltoall, A::index_of(Coll::alltoall, "dimensional"), ShimTopology(Mesh<>{2, 3}), Problem{}));
}


TEST_CASE("pmpi: docs/pmpi.md lists each collective's algorithms as its list does", "[pmpi][algorithms]")
{
  // A row: | `NAME`[, `NAME`] | MPI calls | `alg` (note), `alg`, ... |. The names are the
  // list's, in its order; a note in parentheses may follow a name.
  std::ifstream doc(COLLECTIVES_PMPI_DOC);
  REQUIRE(doc.good());
  std::set<std::string> seen;
  for (std::string line; std::getline(doc, line);) {
    if (line.rfind("| `", 0) != 0) continue;
    const std::vector<std::string> cells = collectives::testing::table_cells(line);
    if (cells.size() != 3) continue;
    for (const std::string& upper : collectives::testing::ticked_names(cells[0])) {
      for (std::size_t i = 0; i < pmpi::num_colls; ++i) {
        const Coll c = static_cast<Coll>(i);
        std::string name(pmpi::coll_name(c));
        for (char& ch : name) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
        if (name != upper) continue;
        INFO(name);
        const auto names = pmpi::algorithms::names(c);
        CHECK(collectives::testing::ticked_names(cells[2]) == std::vector<std::string>(names.begin(), names.end()));
        seen.insert(name);
      }
    }
  }
  CHECK(seen.size() == pmpi::num_colls);
}

} // namespace
