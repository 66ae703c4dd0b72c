#pragma once
// A schedule as the executor takes it: through a function pointer (ScheduleRef), whether
// its plan may be kept (a value the plan can copy and compare), and a library schedule
// kept by value where it was built (ErasedSchedule, BuiltSchedule: the compiled mode's
// default calls, collective/chosen.hpp).

#include <collectives/algorithm/collective.hpp>
#include <collectives/detail/dependent.hpp>
#include <collectives/schedule/schedule.hpp>

#include <array>
#include <concepts>
#include <cstddef>
#include <cstring>
#include <memory>
#include <new>
#include <type_traits>

namespace collectives::detail {

/// A schedule seen through a function pointer. `same` set: the schedule's steps are a
/// function of its value alone (the library's schedules: values without pointers), so a
/// plan made for it may be kept and run again for an equal schedule (detail::Plan); `same`
/// compares a kept copy (value_bytes bytes) with `object`.
struct ScheduleRef {
  const void* object = nullptr;
  std::size_t steps = 0;
  std::size_t scratch_blocks = 0;
  void (*visit)(const void*, std::size_t rank, std::size_t step, StepOps&) = nullptr;
  std::size_t value_bytes = 0;
  bool (*same)(const void* kept, const void* object) = nullptr;
  /// The operation's root, for a rooted schedule (0 otherwise): part of a plan's tag, so
  /// the plans of a rooted call whose root moves are told apart without comparing each.
  std::size_t root = 0;
};

/// Room for a kept schedule's copy in a Plan.
inline constexpr std::size_t plan_key_bytes = 1024;
inline constexpr std::size_t plan_key_align = 16;

/// A schedule whose copy a Plan can keep and compare: trivially copyable, small enough,
/// and compared by its operator== or, when it has no padding, by its bytes (an empty one
/// equals every other).
template <class S>
inline constexpr bool keepable_schedule =
  std::is_trivially_copyable_v<S> && sizeof(S) <= plan_key_bytes && alignof(S) <= plan_key_align &&
  (std::equality_comparable<S> || std::has_unique_object_representations_v<S> || std::is_empty_v<S>);

template <class S>
bool same_thunk(const void* kept, const void* object)
{
  if constexpr (std::is_empty_v<S>)
    return true;
  else if constexpr (std::equality_comparable<S>)
    return *std::launder(reinterpret_cast<const S*>(kept)) == *static_cast<const S*>(object);
  else
    return std::memcmp(kept, object, sizeof(S)) == 0;
}

/// s as a ScheduleRef (s must outlive it). `keep_plan`: the caller vouches that s's steps
/// depend on its value alone (true of every schedule of the library; not assumed of a
/// user's schedule run through execute()); honoured for a keepable_schedule.
template <schedule S>
ScheduleRef schedule_ref(const S& s, bool keep_plan = false)
{
  ScheduleRef ref{&s, s.num_steps(), s.scratch_blocks(), &visit_thunk<S>};
  if constexpr (keepable_schedule<S>)
    if (keep_plan) {
      ref.value_bytes = sizeof(S);
      ref.same = &same_thunk<S>;
      if constexpr (requires { { s.operation().root } -> std::convertible_to<std::size_t>; })
        ref.root = s.operation().root;
    }
  return ref;
}

/// A library schedule kept by value where it was built (the compiled library builds it),
/// seen through its ScheduleRef. Neither copied nor moved: the reference points into it.
class ErasedSchedule {
public:
  ErasedSchedule() = default;
  ErasedSchedule(const ErasedSchedule&) = delete;
  ErasedSchedule& operator=(const ErasedSchedule&) = delete;

  const ScheduleRef& ref() const { return ref_; }

  /// Keeps a copy of s, in place of the one kept before (a keepable_schedule: trivially
  /// copyable, so never destroyed).
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

/// The schedule built for a collective's latest default call on a communicator in the
/// compiled mode, with what it was built for (the topology, the algorithm's index in the
/// collective's list, the problem). A default call in a loop runs it again instead of
/// having the compiled library build it again (callgrind, an 8-byte all-reduce on an
/// endpoint that moves nothing: about 110 of a call's 930 instructions). The
/// communicator's ExecContext keeps one per collective; the compiled library looks in it
/// (compiled_schedule), so a caller's translation unit compiles none of this.
class BuiltSchedule {
public:
  /// The schedule of algorithm `index` of collective c's list on `topo` for `problem`: the
  /// kept one when it was built for the same, else the one build(schedule) builds in its
  /// place. W: a topology that is a value of at most 32 bytes without padding (the
  /// library's dynamic ones).
  template <class W, class Build>
  const ErasedSchedule& get(Collective c, std::size_t index, const W& topo, const Problem& problem, Build&& build)
  {
    static_assert(std::is_trivially_copyable_v<W> && std::has_unique_object_representations_v<W> &&
                    sizeof(W) <= sizeof(topology_),
                  "collectives::detail::BuiltSchedule: the topology must be a small value without padding");
    if (type_ != &type_tag<W> || index_ != index || collective_ != c || !(problem_ == problem) ||
        std::memcmp(topology_.data(), &topo, sizeof(W)) != 0) {
      type_ = nullptr; // nothing is kept while the schedule is built (it may throw)
      build(schedule_);
      std::memcpy(topology_.data(), &topo, sizeof(W));
      collective_ = c;
      index_ = index;
      problem_ = problem;
      type_ = &type_tag<W>;
    }
    return schedule_;
  }

private:
  template <class W>
  static constexpr char type_tag = 0; // its address tells the topology types apart
  const char* type_ = nullptr;        // null: nothing kept
  std::array<std::byte, 32> topology_{};
  Collective collective_{};
  std::size_t index_ = 0;
  Problem problem_{};
  ErasedSchedule schedule_;
};

/// A BuiltSchedule per collective (all_collectives order), made by the first call that
/// asks; ExecContext holds them. A copy starts empty, as the context's plans do (a kept
/// schedule's reference points into its own storage); a move takes them along.
class BuiltSchedules {
public:
  BuiltSchedules() = default;
  BuiltSchedules(const BuiltSchedules&) : BuiltSchedules() {}
  BuiltSchedules& operator=(const BuiltSchedules&) { return *this; }
  BuiltSchedules(BuiltSchedules&&) noexcept = default;
  BuiltSchedules& operator=(BuiltSchedules&&) noexcept = default;
  ~BuiltSchedules() = default;

  /// Collective c's.
  template <class Later = int>
  BuiltSchedule& of(Collective c)
  {
    // (Named through Later: a translation unit that never asks does not compile it.)
    if (!kept_) kept_ = std::make_unique<dependent_on<Later, BuiltSchedule>[]>(all_collectives.size());
    return kept_[static_cast<std::size_t>(c)];
  }
  /// Bytes held.
  std::size_t bytes() const { return kept_ ? all_collectives.size() * sizeof(BuiltSchedule) : 0; }

private:
  std::unique_ptr<BuiltSchedule[]> kept_;
};

} // namespace collectives::detail
