// Compile-time select() over a collective's whole list of algorithms on p = 1024 (issue 12,
// "a compile-time budget"), within the default constant-evaluation limits of g++
// (-fconstexpr-ops-limit=2^25: the gcc preset builds and runs this TU in test_cost) and of
// clang++ (-fconstexpr-steps=2^20: the clang preset compiles it). The estimate visits one rank
// per class of each step (the schedules' Symmetry), so a selection costs a few million
// operations instead of steps x p visits. Every collective is selected here on one of
// Hypercube<10>, Ring<1024> and Mesh<32,32>; two more on the topology where they need the
// most, three with other problems, four all-port, seven under other models, two on a
// ring of 1000 and one on a mesh of 31 x 33 (a selection takes 0.5-3 s of the suite's
// compile time);
// benchmarks/compile_time/select_limits.sh runs the whole matrix with both compilers
// (README, "Cost"). The static_asserts prove that the selection runs at compile time and
// finds a candidate; the test case checks that it names what a call without an algorithm
// picks at run time on the dynamic twin (visiting every rank), with the same time.

#include <catch2/catch.hpp>

#include <collectives/cost.hpp>

#include <cstddef>
#include <string_view>

using namespace collectives;

namespace {

constexpr CostModel model{1e-6, 1e-9, 5e-8, 1e-10};
constexpr Problem problem{1024, 0, 3, true, false};

template <Collective C, class T>
constexpr Selection at_compile_time = select<C>(T{}, model, problem);

using H = Hypercube<10>;
using R = Ring<1024>;
using M = Mesh<32, 32>;

static_assert(at_compile_time<Collective::broadcast, R>.found());
static_assert(at_compile_time<Collective::reduce, H>.found());
static_assert(at_compile_time<Collective::allgather, M>.found());
static_assert(at_compile_time<Collective::reduce_scatter, H>.found());
static_assert(at_compile_time<Collective::allreduce, M>.found());
static_assert(at_compile_time<Collective::scan, R>.found());
static_assert(at_compile_time<Collective::scatter, M>.found());
static_assert(at_compile_time<Collective::gather, M>.found());
static_assert(at_compile_time<Collective::alltoall, H>.found());
static_assert(at_compile_time<Collective::shift, R>.found());
static_assert(at_compile_time<Collective::alltoallv, H>.found());
static_assert(at_compile_time<Collective::barrier, R>.found());
// The two that needed the most (recursive doubling's truncated shifts on a torus; the
// all-port alltoall's 512 rounds on a ring).
static_assert(at_compile_time<Collective::scan, M>.found());
static_assert(at_compile_time<Collective::alltoall, R>.found());

// All-port, one word a block, in place: the linear scatter wins on the ring (its one step's
// p - 1 routes, 262 k hops, counted by arcs: cost/routes.hpp, ArcLinkLoad; beyond both
// compilers' limits when they were walked link by link).
constexpr CostModel all_port_model{1e-6, 1e-9, 5e-8, 1e-10, Routing::cut_through, Ports::all};
constexpr Problem one_word{1, 0, 3, true, true};
constexpr Selection linear_scatter = select<Collective::scatter>(R{}, all_port_model, one_word);
static_assert(std::string_view(linear_scatter.name) == "linear");
// And on the mesh, where the linear scatter's step is a star costed from its routes'
// shape (Symmetry::Star; walked, it alone was 0.64 M of clang++'s 1 M steps).
constexpr Selection mesh_scatter = select<Collective::scatter>(M{}, all_port_model, one_word);
static_assert(mesh_scatter.found());
// And the all-to-all there: the all-port hypercube algorithm's 512 rounds each send to ten
// XOR partners, whose loads one line of each ring gives (cost/xor_line.hpp; enumerated
// message by message, a round was 7.3 M clang steps).
constexpr Selection mesh_alltoall = select<Collective::alltoall>(M{}, all_port_model, problem);
static_assert(mesh_alltoall.found());
// And store-and-forward, eight words in place: the dimensional algorithm wins (0.32 ms),
// and the all-port one (2.63 ms) undercuts the two-way ring's 2.67; worked out while that
// was the best so far, its 512 rounds took clang++ past its limit (1-2 M steps),
// so the candidates that promise nothing are worked out cheapest first (select.hpp).
constexpr CostModel all_port_sf{1e-6, 1e-9, 5e-8, 1e-10, Routing::store_and_forward, Ports::all};
constexpr Problem eight_in_place{8, 1023, 3, true, true};
constexpr Selection mesh_alltoall_sf = select<Collective::alltoall>(M{}, all_port_sf, eight_in_place);
static_assert(std::string_view(mesh_alltoall_sf.name) == "dimensional");

// From another root, and with long messages (each within clang++'s limit only since the
// binomial trees' strided senders are known to be apart on a torus, and since the dimensional
// ring pipelines promise a block in every step, which bounds them without a visit).
constexpr Problem last_root{1024, 1023, 3, false, false};
constexpr Problem long_blocks{1e7, 511, 3, true, false};
constexpr Selection broadcast_last_root = select<Collective::broadcast>(M{}, model, last_root);
constexpr Selection scatter_long_blocks = select<Collective::scatter>(R{}, model, long_blocks);
static_assert(broadcast_last_root.found() && scatter_long_blocks.found());

// In place, so the reduce trees keep their partials in scratch and load them in a step of
// their own (within clang++'s limit only since that step states its class: the tree's
// nodes with children).
constexpr Problem in_place_last_root{7, 1023, 3, true, true};
constexpr Selection reduce_in_place = select<Collective::reduce>(M{}, model, in_place_last_root);
static_assert(reduce_in_place.found());

// Other models: time per hop as large as a start-up (the ring pipelines of broadcast and
// reduce, hundreds of steps, are passed over by their message in every step), and
// store-and-forward with a million words a block (the ring scatter's pipeline on the mesh,
// whose steps through a row's end take two hops, passed over once the steps left, each
// bounded, show it cannot win).
constexpr CostModel hop_heavy{.t_s = 1, .t_w = 1, .t_h = 1};
constexpr CostModel store_and_forward{.t_s = 1e-6, .t_w = 1e-9, .t_h = 1e-8, .routing = Routing::store_and_forward};
constexpr Selection broadcast_hop_heavy = select<Collective::broadcast>(R{}, hop_heavy, Problem{1});
// (And the all-to-all there: the all-port algorithm's 512 rounds, alike after the first, are
// passed over after two of them; bounded one by one, the selection was within 1 % of
// clang++'s limit.)
static_assert(select<Collective::alltoall>(R{}, hop_heavy, Problem{1}).found());
constexpr Selection scatter_store_and_forward = select<Collective::scatter>(M{}, store_and_forward, Problem{1 << 20});
static_assert(broadcast_hop_heavy.found() && scatter_store_and_forward.found());
// On the ring there the pipeline wins, and `dimensional_ring`, the same 1023 steps after it
// in the list, ties: its bound (1023 one-block messages) is the winner's time but for
// rounding, which counts as a tie, so it is passed over unvisited (worked out step by step,
// the scatter needed 1.2 M clang steps).
constexpr Selection ring_scatter_store_and_forward =
  select<Collective::scatter>(R{}, store_and_forward, Problem{1 << 20});
constexpr Selection ring_gather_store_and_forward = select<Collective::gather>(R{}, store_and_forward, Problem{1 << 20});
static_assert(std::string_view(ring_scatter_store_and_forward.name) == "ring" &&
              std::string_view(ring_gather_store_and_forward.name) == "ring");
// Broadcast and reduce with a hop as dear as a start-up and no words, and the reduce under
// store-and-forward with a million words: the staggered pipeline wins, and the plain one
// costs 1.002 times as much, its ends being dearer (its root sends both ways in the first
// step, or receives from both sides in the last). Its promise counts those ends, and the pipelines are worked out
// cheapest promise first, so the plain one is passed over unvisited (with both worked out
// to the end, 1.3-1.5 times clang++'s limit; now 0.86-0.94 of it).
constexpr Selection broadcast_no_words = select<Collective::broadcast>(R{}, hop_heavy, Problem{});
constexpr Selection reduce_no_words = select<Collective::reduce>(R{}, hop_heavy, Problem{});
constexpr Selection reduce_store_and_forward = select<Collective::reduce>(R{}, store_and_forward, Problem{1 << 20});
static_assert(std::string_view(broadcast_no_words.name) == "ring_staggered" &&
              std::string_view(reduce_no_words.name) == "ring_staggered" &&
              std::string_view(reduce_store_and_forward.name) == "ring_staggered");

// Off powers of two: a tree's steps along a ring of 1000 are stated (their last sender and
// receiver, whose subtree is cut short, as classes of their own for the scatter), not
// walked rank by rank (both failed clang++'s limit before).
constexpr Selection broadcast_on_1000 = select<Collective::broadcast>(Ring<1000>{}, model, problem);
constexpr Selection scatter_on_1000 = select<Collective::scatter>(Ring<1000>{}, model, problem);
// (And on a mesh of odd rings, whose last step holds each ring's idle last coordinate as a
// class of its own: every rank copies its block in it.)
constexpr Selection scatter_on_31_33 = select<Collective::scatter>(Mesh<31, 33>{}, model, problem);
static_assert(broadcast_on_1000.found() && scatter_on_1000.found() && scatter_on_31_33.found());

/// The compile-time pick of C on T against select() at run time on `dynamic` (which
/// visits every rank, as a collective called without an algorithm does).
template <Collective C, class T, class D>
void check(const D& dynamic)
{
  const Selection run_time = select<C>(dynamic, model, problem);
  INFO(collective_name(C) << " on " << dynamic.size() << " ranks");
  CHECK(std::string_view(at_compile_time<C, T>.name) == std::string_view(run_time.name));
  CHECK(at_compile_time<C, T>.time == run_time.time);
}

const auto hypercube = Hypercube<>::of_dims(10);
const auto ring = Ring<>{1024};
const auto mesh = Mesh<>{32, 32};

} // namespace

TEST_CASE("select at compile time on p = 1024 names what a default call picks at run time", "[cost][select][static]")
{
  check<Collective::broadcast, R>(ring);
  check<Collective::reduce, H>(hypercube);
  check<Collective::allgather, M>(mesh);
  check<Collective::reduce_scatter, H>(hypercube);
  check<Collective::allreduce, M>(mesh);
  check<Collective::scan, R>(ring);
  check<Collective::scatter, M>(mesh);
  check<Collective::gather, M>(mesh);
  check<Collective::alltoall, H>(hypercube);
  check<Collective::shift, R>(ring);
  check<Collective::alltoallv, H>(hypercube);
  check<Collective::barrier, R>(ring);
  check<Collective::scan, M>(mesh);
  CHECK(std::string_view(broadcast_last_root.name) == select<Collective::broadcast>(mesh, model, last_root).name);
  CHECK(broadcast_last_root.time == select<Collective::broadcast>(mesh, model, last_root).time);
  CHECK(std::string_view(scatter_long_blocks.name) == select<Collective::scatter>(ring, model, long_blocks).name);
  CHECK(scatter_long_blocks.time == select<Collective::scatter>(ring, model, long_blocks).time);
  CHECK(std::string_view(reduce_in_place.name) == select<Collective::reduce>(mesh, model, in_place_last_root).name);
  CHECK(reduce_in_place.time == select<Collective::reduce>(mesh, model, in_place_last_root).time);
  const Selection run_time = select<Collective::scatter>(ring, all_port_model, one_word);
  CHECK(std::string_view(run_time.name) == "linear");
  CHECK(linear_scatter.time == run_time.time);
  const Selection on_mesh = select<Collective::scatter>(mesh, all_port_model, one_word);
  CHECK(std::string_view(mesh_scatter.name) == on_mesh.name);
  CHECK(mesh_scatter.time == on_mesh.time);
  const Selection alltoall_on_mesh = select<Collective::alltoall>(mesh, all_port_model, problem);
  CHECK(std::string_view(mesh_alltoall.name) == alltoall_on_mesh.name);
  CHECK(mesh_alltoall.time == alltoall_on_mesh.time);
  const Selection alltoall_sf_on_mesh = select<Collective::alltoall>(mesh, all_port_sf, eight_in_place);
  CHECK(std::string_view(mesh_alltoall_sf.name) == alltoall_sf_on_mesh.name);
  CHECK(mesh_alltoall_sf.time == alltoall_sf_on_mesh.time);
  CHECK(std::string_view(broadcast_hop_heavy.name) == select<Collective::broadcast>(ring, hop_heavy, Problem{1}).name);
  CHECK(broadcast_hop_heavy.time == select<Collective::broadcast>(ring, hop_heavy, Problem{1}).time);
  const Selection scatter_sf = select<Collective::scatter>(mesh, store_and_forward, Problem{1 << 20});
  CHECK(std::string_view(scatter_store_and_forward.name) == scatter_sf.name);
  CHECK(scatter_store_and_forward.time == scatter_sf.time);
  for (const auto& [at_compile_time, run_time] :
       {std::pair{ring_scatter_store_and_forward, select<Collective::scatter>(ring, store_and_forward, Problem{1 << 20})},
        std::pair{ring_gather_store_and_forward, select<Collective::gather>(ring, store_and_forward, Problem{1 << 20})},
        std::pair{broadcast_no_words, select<Collective::broadcast>(ring, hop_heavy, Problem{})},
        std::pair{reduce_no_words, select<Collective::reduce>(ring, hop_heavy, Problem{})},
        std::pair{reduce_store_and_forward, select<Collective::reduce>(ring, store_and_forward, Problem{1 << 20})},
        std::pair{broadcast_on_1000, select<Collective::broadcast>(Ring<>{1000}, model, problem)},
        std::pair{scatter_on_1000, select<Collective::scatter>(Ring<>{1000}, model, problem)},
        std::pair{scatter_on_31_33, select<Collective::scatter>(Mesh<>{31, 33}, model, problem)}}) {
    CHECK(std::string_view(at_compile_time.name) == run_time.name);
    CHECK(at_compile_time.time == run_time.time);
  }
  // (alltoall on the ring is not repeated at run time: its every-rank walk of the all-port
  // candidate routes 512 x 1024 x 10 messages of up to 512 hops.)
}
