#pragma once
// What the compiled mode (COLLECTIVES_SEPARATE_COMPILATION, collectives::compiled) compiles
// once, in the compiled library (separate_compilation.hpp), of the library's templates:
// - the visit that runs and prices each of the library's schedules (detail::visit_thunk),
//   for every schedule type its algorithms build;
// - the run-time estimate's walk (detail::walk_every_rank_at_run_time) and its evaluation
//   by classes (detail::estimate_by_classes_at_run_time) on the library's dynamic
//   topologies, which every torus and hypercube walks as (walk_topology_t).
// Every translation unit that includes this header (the umbrella and <collectives/cost.hpp>
// do) only declares them. A collective called without an algorithm can run and must price
// every candidate of its list, so a translation unit that calls one would otherwise
// compile every candidate's visit and the walk. Header-only, nothing changes.
//
// A schedule type missing here is still correct, only compiled in every translation unit
// that runs it; tests/separate checks that a compiled-mode TU running every algorithm and
// selecting on every kind of topology defines none of these visits and walks itself.

#include <collectives/algorithm/allgather.hpp>
#include <collectives/algorithm/allreduce.hpp>
#include <collectives/algorithm/alltoall.hpp>
#include <collectives/algorithm/alltoallv.hpp>
#include <collectives/algorithm/barrier.hpp>
#include <collectives/algorithm/broadcast.hpp>
#include <collectives/algorithm/gather.hpp>
#include <collectives/algorithm/reduce.hpp>
#include <collectives/algorithm/reduce_scatter.hpp>
#include <collectives/algorithm/scan.hpp>
#include <collectives/algorithm/scatter.hpp>
#include <collectives/algorithm/shift.hpp>
#include <collectives/cost/model.hpp>
#include <collectives/cost/schedule_cost.hpp>
#include <collectives/schedule/concat.hpp>
#include <collectives/schedule/either.hpp>
#include <collectives/schedule/fold.hpp>
#include <collectives/schedule/schedule.hpp>
#include <collectives/topology/hypercube.hpp>
#include <collectives/topology/torus.hpp>

#include <cstddef>

/// X(S) for every schedule type an algorithm of the library builds (X is variadic: some
/// types are templates of several arguments).
#define COLLECTIVES_LIBRARY_SCHEDULES(X)                                                                  \
  X(AllPortSchedule)                                                                                      \
  X(AllgatherBruckSchedule)                                                                               \
  X(AllgatherDimensionalSchedule)                                                                         \
  X(AllgatherLinearSchedule)                                                                              \
  X(AllgatherRecursiveDoublingSchedule)                                                                   \
  X(AllgatherRingSchedule)                                                                                \
  X(AlltoallLinearSchedule)                                                                               \
  X(BroadcastLinearSchedule)                                                                              \
  X(BroadcastRingSchedule)                                                                                \
  X(BroadcastStaggeredSchedule)                                                                           \
  X(BroadcastTreeSchedule)                                                                                \
  X(BruckSchedule)                                                                                        \
  X(Concat<ReduceScatterHalvingSchedule, GatherTreeSchedule, ReduceOp>)                                   \
  X(Concat<ReduceScatterPairwiseSchedule, GatherTreeSchedule, ReduceOp>)                                  \
  X(Concat<ReduceScatterRingSchedule, AllgatherRingSchedule, AllreduceOp>)                                \
  X(Concat<ReduceLinearSchedule, BroadcastLinearSchedule, AllreduceOp>)                                   \
  X(Concat<ReduceTreeSchedule, BroadcastTreeSchedule, AllreduceOp>)                                       \
  X(Concat<ScatterTreeSchedule, AllgatherRecursiveDoublingSchedule, BroadcastOp>)                         \
  X(Concat<ScatterTreeSchedule, AllgatherRingSchedule, BroadcastOp>)                                      \
  X(DimensionalSchedule)                                                                                  \
  X(Either<Concat<ReduceScatterHalvingSchedule, GatherTreeSchedule, ReduceOp>,                            \
           Concat<ReduceScatterPairwiseSchedule, GatherTreeSchedule, ReduceOp>>)                          \
  X(Folded<AllreduceDoublingCore, AllreduceOp>)                                                           \
  X(Folded<AllreduceRabenseifnerCore, AllreduceOp>)                                                       \
  X(GatherLinearSchedule)                                                                                 \
  X(GatherPipelineSchedule)                                                                               \
  X(GatherRingSchedule)                                                                                   \
  X(GatherTreeSchedule)                                                                                   \
  X(PairwiseSchedule)                                                                                     \
  X(PairwiseXorSchedule)                                                                                  \
  X(ReduceLinearSchedule)                                                                                 \
  X(ReduceRingSchedule)                                                                                   \
  X(ReduceScatterDimensionalSchedule)                                                                     \
  X(ReduceScatterHalvingSchedule)                                                                         \
  X(ReduceScatterLinearSchedule)                                                                          \
  X(ReduceScatterPairwiseSchedule)                                                                        \
  X(ReduceScatterRingSchedule)                                                                            \
  X(ReduceStaggeredSchedule)                                                                              \
  X(ReduceTreeSchedule)                                                                                   \
  X(RingSchedule)                                                                                         \
  X(RingTwoWaySchedule)                                                                                   \
  X(ScanDoublingSchedule)                                                                                 \
  X(ScanHypercubeSchedule)                                                                                \
  X(ScanLinearSchedule)                                                                                   \
  X(ScanRingSchedule)                                                                                     \
  X(ScatterLinearSchedule)                                                                                \
  X(ScatterPipelineSchedule)                                                                              \
  X(ScatterRingSchedule)                                                                                  \
  X(ScatterTreeSchedule)                                                                                  \
  X(ShiftDirectSchedule)                                                                                  \
  X(ShiftHypercubeSfSchedule)                                                                             \
  X(ShiftMeshSchedule)                                                                                    \
  X(ShiftRingSchedule)                                                                                    \
  X(StandardExchangeSchedule)

// (COLLECTIVES_LIBRARY_WALK_TOPOLOGIES, the walks' topologies: cost/schedule_cost.hpp.)

#if defined(COLLECTIVES_SEPARATE_COMPILATION)
// The declarations that stop a translation unit from compiling them itself.
#define COLLECTIVES_DETAIL_EXTERN_VISIT(...)                                                              \
  extern template void detail::visit_thunk<__VA_ARGS__>(const void*, std::size_t, std::size_t, StepOps&);
#define COLLECTIVES_DETAIL_EXTERN_WALK(...)                                                               \
  extern template CostReport detail::walk_every_rank_at_run_time<__VA_ARGS__>(                            \
    const detail::WalkScheduleRef<__VA_ARGS__>&, const __VA_ARGS__&, const CostModel&, double, double); \
  extern template CostReport detail::estimate_by_classes_at_run_time<__VA_ARGS__>(                        \
    const detail::WalkScheduleRef<__VA_ARGS__>&, const __VA_ARGS__&, const CostModel&, double, double);
namespace collectives {
COLLECTIVES_LIBRARY_SCHEDULES(COLLECTIVES_DETAIL_EXTERN_VISIT)
COLLECTIVES_LIBRARY_WALK_TOPOLOGIES(COLLECTIVES_DETAIL_EXTERN_WALK)
} // namespace collectives
#undef COLLECTIVES_DETAIL_EXTERN_VISIT
#undef COLLECTIVES_DETAIL_EXTERN_WALK
#endif
