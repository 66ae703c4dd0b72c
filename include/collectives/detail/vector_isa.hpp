#pragma once
// The vector instructions the combine kernels run with. A build for the baseline x86-64
// (no -march: SSE2) vectorises an element-wise c = a op b 16 bytes at a time; most x86
// machines since 2013 run AVX2's 32. Where the build's flags do not already allow AVX2,
// each element-wise kernel is compiled twice, for the baseline and for AVX2, and the CPU
// picks one at run time (as Open MPI's op/avx component does for MPI_SUM and the rest).
// Only AVX2: not FMA (an operator's a * b + c contracted into one rounding on some ranks
// and not on others would break the identical bits every rank gets), nor AVX-512 (slower
// clocks on some Intel CPUs). Element-wise results do not depend on the vector width.
// COLLECTIVES_NO_ISA_DISPATCH turns it off.

#if !defined(COLLECTIVES_NO_ISA_DISPATCH) && defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && \
  !defined(__AVX2__)
#define COLLECTIVES_DETAIL_AVX2_DISPATCH 1
/// On a wrapper whose body is a kernel's element loop: compiled for AVX2, with every call
/// in it inlined (flatten), so that the loop and the operator are vectorised for AVX2.
#define COLLECTIVES_DETAIL_AVX2_FUNCTION [[gnu::target("avx2"), gnu::flatten]]
#else
#define COLLECTIVES_DETAIL_AVX2_DISPATCH 0
#endif

#include <cstddef>

namespace collectives::detail {

/// The elements of one block of an element loop written to vectorise: two cache lines'
/// worth, a constant count, then the rest one by one. g++ 12 at -O2 vectorises only a loop
/// that needs no run-time checks or epilogue, so a plain loop stayed scalar there (at
/// 256 KiB, c[i] += b[i] took 2.2x memcpy's time for double and 4.9x for int; blocked,
/// 1.1-1.2x, as at -O3 and with clang++). The library's combine kernels
/// (execution/executor.hpp) and the MPI shim's operators (pmpi/element_op.cpp) loop so, and
/// run their AVX2 copies from one block on.
template <class T>
inline constexpr std::size_t combine_block = sizeof(T) >= 64 ? 1 : 128 / sizeof(T);

/// Whether the combine kernels run their AVX2 copies on this CPU (asked once).
inline bool combines_with_avx2() noexcept
{
#if COLLECTIVES_DETAIL_AVX2_DISPATCH
  static const bool yes = [] {
    __builtin_cpu_init(); // (needed only before static constructors have run)
    return __builtin_cpu_supports("avx2") != 0;
  }();
  return yes;
#else
  return false;
#endif
}

} // namespace collectives::detail
