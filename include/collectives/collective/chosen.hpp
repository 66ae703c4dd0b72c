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
#include <collectives/cost/schedule_cost.hpp>
#include <collectives/execution/executor.hpp>
#include <collectives/topology/hypercube.hpp>
#include <collectives/topology/torus.hpp>

#include <boost/hana/length.hpp>
#include <boost/hana/unpack.hpp>

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <new>
#include <string_view>

namespace collectives::detail {

/// A library schedule kept by value where it was built (the compiled library builds it),
/// seen through its ScheduleRef. Neither copied nor moved: the reference points into it.
class ErasedSchedule {
public:
  ErasedSchedule() = default;
  /// Built by build(*this) (the compiled library's compiled_schedule).
  template <std::invocable<ErasedSchedule&> Build>
  explicit ErasedSchedule(Build&& build)
  {
    build(*this);
  }
  ErasedSchedule(const ErasedSchedule&) = delete;
  ErasedSchedule& operator=(const ErasedSchedule&) = delete;

  const ScheduleRef& ref() const { return ref_; }

  /// Keeps a copy of s (a keepable_schedule: trivially copyable, so never destroyed).
  template <class S>
  void emplace(const S& s)
  {
    static_assert(keepable_schedule<S>, "collectives: a library schedule must be keepable to be built once");
    const S* kept = ::new (static_cast<void*>(storage_)) S(s);
    ref_ = schedule_ref(*kept, true);
  }

private:
  alignas(plan_key_align) std::byte storage_[plan_key_bytes];
  ScheduleRef ref_{};
};

/// The library's all-dynamic topologies that the compiled library selects and builds on
/// (the walks' list, cost/compiled_once.hpp).
template <class W>
inline constexpr bool compiled_choice_topology =
  std::same_as<W, Ring<>> || std::same_as<W, Mesh<>> ||
  std::same_as<W, Torus<dynamic_extent, dynamic_extent, dynamic_extent>> || std::same_as<W, Hypercube<>>;

#if defined(COLLECTIVES_SEPARATE_COMPILATION)
#define COLLECTIVES_DETAIL_DECLARE_CHOICE(...)                                                            \
  std::size_t compiled_select(Collective c, const __VA_ARGS__& topo, const CostModel& model,              \
                              const Problem& problem, std::uint64_t allowed);                             \
  void compiled_schedule(Collective c, std::size_t index, const __VA_ARGS__& topo, const Problem& problem, \
                         ErasedSchedule& out);
/// compiled_select: the index, in candidates_for<C, W>(), of the cheapest candidate whose
/// bit is set in `allowed` (select_among<false>: the same estimates, ties to the earlier).
/// compiled_schedule: builds that candidate's schedule into `out`. Defined in the compiled
/// library (collective/impl/chosen.ipp).
COLLECTIVES_DETAIL_DECLARE_CHOICE(Ring<>)
COLLECTIVES_DETAIL_DECLARE_CHOICE(Mesh<>)
COLLECTIVES_DETAIL_DECLARE_CHOICE(Torus<dynamic_extent, dynamic_extent, dynamic_extent>)
COLLECTIVES_DETAIL_DECLARE_CHOICE(Hypercube<>)
#undef COLLECTIVES_DETAIL_DECLARE_CHOICE
inline constexpr bool compiled_choices = true;
#else
inline constexpr bool compiled_choices = false;
#endif

/// What a call on topology type T whose operator commutes or not (Commutative) and which
/// runs in place or not (InPlace) may select among, seen from T's all-dynamic twin W:
/// `allowed` has bit j set for the j-th of candidates_for<C, W>() that T's own candidates
/// hold; `to_w[i]` is where T's i-th candidate stands in W's. `usable`: every one of T's
/// candidates is one of W's (a static type never allows what its dynamic twin rules out;
/// checked, not assumed), and there are at most 64 of them.
template <Collective C, class T, bool Commutative, bool InPlace>
struct ChoiceMap {
  using W = walk_topology_t<T>;
  static constexpr auto mine = candidates_for<C, T, Commutative, InPlace>();
  static constexpr auto theirs = candidates_for<C, W>();
  static constexpr std::size_t count = decltype(boost::hana::length(mine))::value;
  static constexpr std::size_t wide = decltype(boost::hana::length(theirs))::value;

  struct Table {
    std::uint64_t allowed = 0;
    std::array<std::size_t, count> to_w{};
    bool usable = true;
  };
  static constexpr Table table = [] {
    Table t;
    if constexpr (wide > 64) {
      t.usable = false;
    } else {
      const auto names_w = boost::hana::unpack(theirs, [](auto... a) {
        return std::array<std::string_view, sizeof...(a)>{std::string_view(decltype(a)::name)...};
      });
      const auto names_t = boost::hana::unpack(mine, [](auto... a) {
        return std::array<std::string_view, sizeof...(a)>{std::string_view(decltype(a)::name)...};
      });
      for (std::size_t i = 0; i < count; ++i) {
        std::size_t j = 0;
        while (j < wide && names_w[j] != names_t[i]) ++j;
        if (j == wide) {
          t.usable = false;
          return t;
        }
        t.to_w[i] = j;
        t.allowed |= std::uint64_t{1} << j;
      }
    }
    return t;
  }();
};

/// Whether a default call of C on T goes through the compiled library's choice.
template <Collective C, class T, bool Commutative, bool InPlace>
inline constexpr bool use_compiled_choice =
  compiled_choices && compiled_choice_topology<walk_topology_t<T>> && ChoiceMap<C, T, Commutative, InPlace>::table.usable;

/// The facts of W's candidates of C that a front end reads, as values.
template <Collective C, class W>
struct ChoiceFacts {
  std::string_view name;
  std::size_t (*pieces)(std::size_t p);
  bool output_everywhere;
  bool input_may_alias_output;
};
template <Collective C, class W>
inline constexpr auto choice_facts = boost::hana::unpack(candidates_for<C, W>(), [](auto... a) {
  return std::array<ChoiceFacts<C, W>, sizeof...(a)>{
    ChoiceFacts<C, W>{decltype(a)::name, &decltype(a)::pieces, decltype(a)::output_everywhere,
                      decltype(a)::input_may_alias_output}...};
});

#if defined(COLLECTIVES_SEPARATE_COMPILATION)
/// The algorithm a default call picked, as a front end sees a named one (a.name,
/// a.pieces(p), a.schedule(topo, problem), ...) but with values: one instantiation of the
/// front end serves every candidate. Its schedule is built by the compiled library.
template <Collective C, class W>
struct ChosenAlgorithm {
  static constexpr Collective collective = C;
  std::size_t index = 0; // in candidates_for<C, W>()
  std::string_view name{};
  bool output_everywhere = false;
  bool input_may_alias_output = false;

  explicit ChosenAlgorithm(std::size_t i)
      : index(i), name(choice_facts<C, W>[i].name), output_everywhere(choice_facts<C, W>[i].output_everywhere),
        input_may_alias_output(choice_facts<C, W>[i].input_may_alias_output)
  {
  }
  std::size_t pieces(std::size_t p) const { return choice_facts<C, W>[index].pieces(p); }

  /// The schedule, built in place (guaranteed copy elision: ErasedSchedule never moves).
  template <class T>
  ErasedSchedule schedule(const T& topo, const Problem& problem) const
  {
    return ErasedSchedule([&](ErasedSchedule& out) { compiled_schedule(C, index, W(topo), problem, out); });
  }
};
#endif

} // namespace collectives::detail
