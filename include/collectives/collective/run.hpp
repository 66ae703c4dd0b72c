#pragma once
// What every front end does once it has validated its arguments: run the algorithm the
// caller named, or the one its collective's list selects for the call (by the
// communicator's selection policy), with the schedule and layouts that algorithm states.
// Nothing re-enters the front end and nothing is validated twice.

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/collective/chosen.hpp>
#include <collectives/cost/select.hpp>
#include <collectives/execution/communicator.hpp>
#include <collectives/execution/executor.hpp>
#include <collectives/execution/layout.hpp>

#include <boost/hana/length.hpp>

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <type_traits>

namespace collectives::detail {

/// Calls run(tag) with `alg`, or for Automatic with the cheapest of C's algorithms that
/// fit the communicator's topology and the call (only those the topology's type, the
/// operator's commutativity and in-place use allow are instantiated; the pick is
/// remembered per problem). In the compiled mode, on the library's tori and hypercubes,
/// the pick and its schedule come from the compiled library and run gets a
/// ChosenAlgorithm (chosen.hpp): the same pick, one instantiation of run. A named
/// algorithm that does not fit the topology's value (a dynamic size that is not a power
/// of two, ...) throws std::invalid_argument naming it, before anything is written.
template <Collective C, bool Commutative, bool InPlace, class Alg, communicator Comm, class Run>
void run_algorithm(Comm& comm, Alg alg, const Problem& problem, Run&& run)
{
  using Topo = typename Comm::topology_type;
  if constexpr (std::same_as<Alg, Automatic> && use_compiled_choice<C, Topo, Commutative, InPlace>) {
#if defined(COLLECTIVES_SEPARATE_COMPILATION)
    using Mask = ChoiceMask<C, Topo, Commutative, InPlace>;
    using W = typename Mask::W;
    static_assert(Mask::allowed != 0, "collectives: no algorithm of this collective fits the communicator's topology");
    // (The pick is an index into algorithms<C>, remembered per problem like the header path's.)
    const std::size_t index = compiled_pick(comm.policy(), C, W(comm.topology()), problem, Mask::allowed);
    require(index < Mask::size && ((Mask::allowed >> index) & 1) != 0,
            "collectives::visit_algorithm: no candidate at that index");
    run(ChosenAlgorithm<C, W>(index, comm.context().built_schedule(C)));
#endif
  } else if constexpr (std::same_as<Alg, Automatic>) {
    static_assert(decltype(boost::hana::length(candidates_for<C, Topo, Commutative, InPlace>()))::value != 0,
                  "collectives: no algorithm of this collective fits the communicator's topology");
    // (Selected on the topology's all-dynamic twin where it can: one selection for Ring<4>,
    // Ring<8> and Ring<>. The every-rank estimate: the same pick as select(), without
    // instantiating the symmetric estimate for every schedule a default call may run.)
    constexpr auto candidates = default_candidates<C, Topo, Commutative, InPlace>();
    const std::size_t index = comm.policy().pick(C, problem, [&] {
      return select_at_run_time(candidates, comm.topology(), comm.cost_model(), problem).index;
    });
    visit_default_candidate<Topo>(candidates, index, run);
  } else {
    require_fits(alg, comm.topology(), problem);
    run(alg);
  }
}

/// One object per front end's instantiation: its address names the front end in a CallKey
/// (not const: distinct objects that a linker could never fold into one).
template <class Site>
inline char call_site = 0;

/// A call's argument as a word of its CallKey.
template <class X>
std::uintptr_t key_word(X x)
{
  if constexpr (std::is_pointer_v<X>) return reinterpret_cast<std::uintptr_t>(x);
  else return static_cast<std::uintptr_t>(x);
}

/// Runs a front end's call, `run` (its run_algorithm), whose arguments are `args` (its
/// buffers' addresses and sizes, its root or distance: what its schedule and buffers
/// depend on besides the types): or, when this front end's latest call with the same
/// arguments and policy ran one kept plan over the caller's own buffers, runs that plan
/// again (detail::LastCalls), without selecting, building the schedule or looking the plan
/// up. A call that runs again is the call that ran, with the same algorithm on every rank:
/// the pick is a function of the arguments and the policy. An algorithm tag with a value
/// is not in the key: such a call always runs through `run`.
template <class T, class Alg, communicator Comm, class Op, class Run>
void run_or_replay(Comm& comm, const std::array<std::uintptr_t, 5>& args, const Op& op, Run&& run)
{
  if constexpr (!std::is_empty_v<Alg>) {
    run();
  } else {
    ExecContext& x = comm.context();
    const CallKey key{&call_site<std::remove_cvref_t<Run>>, args, comm.policy().epoch()};
    if (const std::size_t entry = x.replayable(key); entry < LastCalls::size) {
      const Reducer red = make_reducer<T>(op);
      StepInfo info = x.replay_info(entry);
      info.call = comm.begin_call();
      replay_at(entry, comm.endpoint(), &red, x, info);
      return;
    }
    x.arm(key);
    run();
    x.commit();
  }
}

/// The problem the default is picked for where ranks may differ in using a collective in
/// place (MPI_IN_PLACE at a reduce's root alone, at any rank of a scan): the call out of
/// place, so that every rank picks the same. C's list must be the same in place (checked).
template <Collective C, class Topo, bool Commutative>
constexpr Problem picked_out_of_place(Problem problem)
{
  static_assert(std::same_as<decltype(default_candidates<C, Topo, Commutative, true>()),
                             decltype(default_candidates<C, Topo, Commutative, false>())>,
                "collectives: an algorithm that does not run in place would make an in-place rank's pick differ");
  problem.in_place = false;
  return problem;
}

/// s as the executor takes it: a schedule the caller keeps (the library's are values),
/// or one the compiled library built (ErasedSchedule).
template <class S>
ScheduleRef kept_schedule_ref(const S& s)
{
  if constexpr (std::same_as<S, ErasedSchedule>)
    return s.ref();
  else
    return schedule_ref(s, true);
}

/// Runs schedule `s` of algorithm `a` (a tag or a ChosenAlgorithm) on comm over typed
/// buffers, as one collective call for `problem`.
template <class A, communicator Comm, class S, class T, class Op = NoCombine>
void execute_call(const A& a, Comm& comm, const Problem& problem, const S& s, const T* in, BlockLayout in_layout,
                  T* out, BlockLayout out_layout, BlockLayout scratch_layout, Op op = {})
{
  auto bufs = call_buffers(in, in_layout, out, out_layout, scratch_layout);
  // The library's schedules are values: a call in a loop runs the plan of the one before.
  const ScheduleRef ref = kept_schedule_ref(s);
  StepInfo info{collective_name(A::collective), a.name, comm.begin_call(), 0, ref.steps};
  info.root = ref.root;
  // What every rank gives alike, for a transport's consistency check: the output's elements
  // (a counted layout's differ between ranks), and a shift's distance modulo p.
  info.count = out_layout.counts == nullptr ? out_layout.n : 0;
  if constexpr (A::collective == Collective::shift) {
    const auto p = static_cast<std::ptrdiff_t>(comm.size());
    info.distance = (problem.q % p + p) % p;
  }
  execute_ref<typename Comm::endpoint_type, T>(ref, comm.endpoint(), comm.context(), bufs, op, info);
}

/// The input a call runs with: `in` itself or, when it overlaps the output (the same buffer
/// passed as both, MPI_IN_PLACE style), a copy of it in the communicator's memory. The
/// schedules may write the output before they have read all of the input, so they must
/// see separate buffers; with the copy, an aliased call gives the result of the same call
/// on separate buffers. Cost: one copy of the input, only when the buffers overlap.
template <communicator Comm, class T>
const T* unaliased_input(Comm& comm, const T* in, std::size_t n_in, const T* out, std::size_t n_out)
{
  if (n_in == 0 || n_out == 0) return in;
  const std::less<const T*> before;
  if (!before(in, out + n_out) || !before(out, in + n_in)) return in; // disjoint
  T* copy = reinterpret_cast<T*>(comm.context().contribution(n_in * sizeof(T)));
  std::memcpy(static_cast<void*>(copy), in, n_in * sizeof(T));
  return copy;
}

/// The input algorithm `a` runs with: `in` itself when it starts where the output starts
/// and `a` runs correctly so (input_may_alias_output: an in-place call with no copy), else
/// unaliased_input().
template <class A, communicator Comm, class T>
const T* input_for(const A& a, Comm& comm, const T* in, std::size_t n_in, const T* out, std::size_t n_out)
{
  if (a.input_may_alias_output && in == out) return in;
  return unaliased_input(comm, in, n_in, out, n_out);
}

/// The layout of a collective's message of n elements as algorithm `a` cuts it for p
/// ranks (a.pieces(p) pieces, long-message algorithms; one block otherwise).
template <class A>
constexpr BlockLayout message_layout(const A& a, std::size_t n, std::size_t p)
{
  return BlockLayout::chunked(n, a.pieces(p));
}

} // namespace collectives::detail
