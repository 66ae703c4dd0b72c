#pragma once
// The library's compiled part, for programs built with COLLECTIVES_SEPARATE_COMPILATION
// (detail/config.hpp): include this header in exactly one source file of the program, or
// link the CMake target collectives::compiled, which is that file. It holds the threads
// transport, the error texts, calibrate()'s clock and fitting, the executor core (every
// transport's: it reaches the endpoint through detail::EndpointRef), the visits of the
// library's schedules and the run-time estimate's walks (cost/compiled_once.hpp), and the
// combine kernels of the common element types and operators (COLLECTIVES_LIBRARY_KERNELS,
// execution/executor.hpp). The
// templates over the caller's types stay in the headers, and the MPI transport's part is
// separate_compilation_mpi.hpp, so that this one needs no MPI.
//
// The library's own test builds compile its first part alone, the non-template code, with
// COLLECTIVES_DETAIL_LINKED_CORE (detail/config.hpp, tests/support/linked_core.cpp).

#if !defined(COLLECTIVES_SEPARATE_COMPILATION) && !defined(COLLECTIVES_DETAIL_LINKED_CORE)
#error "collectives/separate_compilation.hpp: define COLLECTIVES_SEPARATE_COMPILATION in every translation unit (without it the headers already define everything)"
#endif

#include <collectives/collective/chosen.hpp>
#include <collectives/cost/compiled_once.hpp>
#include <collectives/detail/require.hpp>
#include <collectives/execution/executor.hpp>
#include <collectives/transport/errors.hpp>
#include <collectives/transport/threads.hpp>
#include <collectives/tuning/calibrate.hpp>

#include <collectives/detail/impl/require.ipp>
#include <collectives/execution/impl/executor.ipp>
#include <collectives/transport/impl/errors.ipp>
#include <collectives/transport/impl/threads.ipp>
#include <collectives/tuning/impl/calibrate.ipp>

#if defined(COLLECTIVES_SEPARATE_COMPILATION)
#include <collectives/collective/impl/chosen.ipp>

// Every library schedule's visit and the walks on the library's dynamic topologies,
// compiled here once (cost/compiled_once.hpp declares them), and the common kernels
// (execution/executor.hpp declares them).
#define COLLECTIVES_DETAIL_DEFINE_VISIT(...)                                                              \
  template void detail::visit_thunk<__VA_ARGS__>(const void*, std::size_t, std::size_t, StepOps&);
#define COLLECTIVES_DETAIL_DEFINE_WALK(...)                                                               \
  template CostReport detail::walk_every_rank_at_run_time<__VA_ARGS__>(                                   \
    const detail::WalkScheduleRef<__VA_ARGS__>&, const __VA_ARGS__&, const CostModel&, double, double);  \
  template CostReport detail::estimate_by_classes_at_run_time<__VA_ARGS__>(                               \
    const detail::WalkScheduleRef<__VA_ARGS__>&, const __VA_ARGS__&, const CostModel&, double, double);
#define COLLECTIVES_DETAIL_DEFINE_KERNELS(T, Op)                                                          \
  template void detail::combine_kernel<T, Op>(const void*, std::byte*, const std::byte*, std::size_t, Combine); \
  template void detail::combine3_kernel<T, Op>(const void*, std::byte*, const std::byte*, const std::byte*,     \
                                               std::size_t);
namespace collectives {
COLLECTIVES_LIBRARY_SCHEDULES(COLLECTIVES_DETAIL_DEFINE_VISIT)
COLLECTIVES_LIBRARY_WALK_TOPOLOGIES(COLLECTIVES_DETAIL_DEFINE_WALK)
COLLECTIVES_LIBRARY_KERNELS(COLLECTIVES_DETAIL_DEFINE_KERNELS)
} // namespace collectives
#undef COLLECTIVES_DETAIL_DEFINE_KERNELS
#undef COLLECTIVES_DETAIL_DEFINE_VISIT
#undef COLLECTIVES_DETAIL_DEFINE_WALK
#endif
