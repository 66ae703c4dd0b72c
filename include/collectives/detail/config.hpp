#pragma once
// Header-only or separately compiled (as Asio and {fmt} offer).
//
// By default every translation unit compiles the library's non-template code that it
// uses: the threads transport, the executor core (run_steps), the error texts,
// calibrate()'s clock and fitting, and the MPI transport. A program that defines COLLECTIVES_SEPARATE_COMPILATION in every
// translation unit (the CMake targets collectives::compiled and collectives::compiled_mpi
// do) sees only their declarations and links them from one compiled copy: those
// libraries, or one source file of the program's own that includes
// <collectives/separate_compilation.hpp> (and, on MPI, separate_compilation_mpi.hpp). That
// saves each translation unit the code generation every call would otherwise repeat.

/// 1 when the library's non-template code (the impl/*.ipp files) is compiled elsewhere and
/// the headers only declare it: with COLLECTIVES_SEPARATE_COMPILATION, and with
/// COLLECTIVES_DETAIL_LINKED_CORE, which only the library's own test builds define. There
/// that code is compiled once per build tree and linked (cmake/CollectivesTesting.cmake),
/// and everything else stays as header-only: every template, a default call's selection,
/// the schedules' visits and the estimate's walks (unlike collectives::compiled).
#if defined(COLLECTIVES_SEPARATE_COMPILATION) || defined(COLLECTIVES_DETAIL_LINKED_CORE)
#define COLLECTIVES_DETAIL_CORE_APART 1
#else
#define COLLECTIVES_DETAIL_CORE_APART 0
#endif

/// `inline` when the headers hold the definitions (header-only), nothing when they are
/// compiled once (COLLECTIVES_DETAIL_CORE_APART): on every out-of-line definition that
/// mode moves.
#if COLLECTIVES_DETAIL_CORE_APART
#define COLLECTIVES_DECL
#else
#define COLLECTIVES_DECL inline
#endif

/// On the functions that build error texts and throw: compiled for size and kept out of
/// line, so that a header-only translation unit spends less time optimising them, and
/// the hot paths that call them stay small.
#if defined(__GNUC__) || defined(__clang__)
#define COLLECTIVES_COLD [[gnu::cold]]
#else
#define COLLECTIVES_COLD
#endif

/// On a helper shared by hot paths that the compiler would otherwise call out of line
/// (where each caller's inlined copy measured fewer instructions a call).
#if defined(__GNUC__) || defined(__clang__)
#define COLLECTIVES_ALWAYS_INLINE [[gnu::always_inline]] inline
#else
#define COLLECTIVES_ALWAYS_INLINE inline
#endif
