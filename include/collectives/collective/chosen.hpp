#pragma once
// A collective called without an algorithm, in the compiled mode
// (COLLECTIVES_SEPARATE_COMPILATION), on one of the library's tori or hypercubes: the
// selection over the collective's list and the building of the picked schedule are
// compiled once, in the compiled library, for the topology's all-dynamic twin
// (walk_topology_t: the same network, so the same estimates and the same schedule
// values). The caller's front end is then instantiated once, for a ChosenAlgorithm whose
// facts are values, not once per candidate: a translation unit that calls three
// collectives by default compiled 1.0 s more than one naming their algorithms, most of it
// every candidate's front end and schedule (issue 12's compile-time budget).
//
// Header-only, or on any other topology, run_algorithm visits the candidates as before.

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/cost/model.hpp>
#include <collectives/cost/policy.hpp>
#include <collectives/cost/schedule_cost.hpp>
#include <collectives/cost/select.hpp>
#include <collectives/execution/executor.hpp>
#include <collectives/topology/hypercube.hpp>
#include <collectives/topology/torus.hpp>

#include <boost/hana/length.hpp>
#include <boost/hana/unpack.hpp>

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace collectives::detail {

/// The library's all-dynamic topologies that the compiled library selects and builds on
/// (the walks' list, COLLECTIVES_LIBRARY_WALK_TOPOLOGIES).
#define COLLECTIVES_DETAIL_IS_CHOICE_TOPOLOGY(...) std::same_as<W, __VA_ARGS__> ||
template <class W>
inline constexpr bool compiled_choice_topology = COLLECTIVES_LIBRARY_WALK_TOPOLOGIES(COLLECTIVES_DETAIL_IS_CHOICE_TOPOLOGY) false;
#undef COLLECTIVES_DETAIL_IS_CHOICE_TOPOLOGY

#if defined(COLLECTIVES_SEPARATE_COMPILATION)
#define COLLECTIVES_DETAIL_DECLARE_CHOICE(...)                                                            \
  std::size_t compiled_select(Collective c, const __VA_ARGS__& topo, const CostModel& model,              \
                              const Problem& problem, std::uint64_t allowed);                             \
  std::size_t compiled_pick(SelectionPolicy& policy, Collective c, const __VA_ARGS__& topo,               \
                            const Problem& problem, std::uint64_t allowed);                               \
  const ErasedSchedule& compiled_schedule(Collective c, std::size_t index, const __VA_ARGS__& topo,       \
                                         const Problem& problem, BuiltSchedule& kept);
/// compiled_select: the index, in algorithms<c>, of the cheapest algorithm whose bit is set
/// in `allowed` and that fits `topo` and `problem` (select_among<false>: the same
/// estimates, ties to the earlier). compiled_pick: the pick `policy` remembers for the
/// call, else compiled_select's under its model, remembered (the policy's look-up and
/// bookkeeping compiled once too, not at every default call). compiled_schedule: that
/// algorithm's schedule, the one `kept` holds when it was built for the same call, else
/// built into it. Defined in the compiled library (collective/impl/chosen.ipp).
COLLECTIVES_LIBRARY_WALK_TOPOLOGIES(COLLECTIVES_DETAIL_DECLARE_CHOICE)
#undef COLLECTIVES_DETAIL_DECLARE_CHOICE
inline constexpr bool compiled_choices = true;
#else
inline constexpr bool compiled_choices = false;
#endif

/// What a default call of C on topology type T may select among, as bits over
/// algorithms<C> (bit j: the j-th algorithm; the operator commutes or not: Commutative; in
/// place or not: InPlace), and whether the compiled library can select it on T's
/// all-dynamic twin W: W is one of its topologies, the list has at most 64 algorithms,
/// and W's type allows every algorithm T's does (checked, not assumed). Bits, not a
/// filtered tuple: a default call compiles no candidate list of its own.
template <Collective C, class T, bool Commutative, bool InPlace>
struct ChoiceMask {
  using W = walk_topology_t<T>;
  static constexpr std::size_t size = decltype(boost::hana::length(algorithms<C>))::value;
  static constexpr std::uint64_t allowed = boost::hana::unpack(algorithms<C>, [](auto... a) {
    std::uint64_t mask = 0, bit = 1;
    ((void(mask |= algorithm_for<decltype(a), C, T, Commutative, InPlace> ? bit : 0), void(bit <<= 1)), ...);
    return mask;
  });
  static constexpr bool usable =
    compiled_choices && compiled_choice_topology<W> && size <= 64 && twin_allows_all<C, T, Commutative, InPlace>;
};

/// Whether a default call of C on T goes through the compiled library's choice.
template <Collective C, class T, bool Commutative, bool InPlace>
inline constexpr bool use_compiled_choice = ChoiceMask<C, T, Commutative, InPlace>::usable;

/// The facts of C's algorithms that a front end reads, as values (algorithms<C> order).
struct ChoiceFacts {
  std::string_view name;
  std::size_t (*pieces)(std::size_t p);
  bool output_everywhere;
  bool input_may_alias_output;
};
template <Collective C>
inline constexpr auto choice_facts = boost::hana::unpack(algorithms<C>, [](auto... a) {
  return std::array<ChoiceFacts, sizeof...(a)>{ChoiceFacts{decltype(a)::name, &decltype(a)::pieces,
                                                           decltype(a)::output_everywhere,
                                                           decltype(a)::input_may_alias_output}...};
});

#if defined(COLLECTIVES_SEPARATE_COMPILATION)
/// The algorithm a default call picked, as a front end sees a named one (a.name,
/// a.pieces(p), a.schedule(topo, problem), ...) but with values: one instantiation of the
/// front end serves every candidate. Its schedule is built by the compiled library, on W.
template <Collective C, class W>
struct ChosenAlgorithm {
  static constexpr Collective collective = C;
  std::size_t index = 0; // in algorithms<C>
  std::string_view name{};
  bool output_everywhere = false;
  bool input_may_alias_output = false;

  /// Algorithm i of algorithms<C>, its schedules kept in `built` (the communicator's).
  ChosenAlgorithm(std::size_t i, BuiltSchedule& built)
      : index(i), name(choice_facts<C>[i].name), output_everywhere(choice_facts<C>[i].output_everywhere),
        input_may_alias_output(choice_facts<C>[i].input_may_alias_output), built_(&built)
  {
  }
  std::size_t pieces(std::size_t p) const { return choice_facts<C>[index].pieces(p); }

  /// The schedule: the one kept when the latest default call of C built it for the same
  /// topology and problem, else the one the compiled library builds in its place.
  template <class T>
  const ErasedSchedule& schedule(const T& topo, const Problem& problem) const
  {
    return compiled_schedule(C, index, W(topo), problem, *built_);
  }

private:
  BuiltSchedule* built_;
};
#endif

} // namespace collectives::detail
