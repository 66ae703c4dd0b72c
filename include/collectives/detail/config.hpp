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

/// `inline` when the headers hold the definitions (header-only), nothing when they are
/// compiled once (COLLECTIVES_SEPARATE_COMPILATION): on every out-of-line definition
/// that mode moves.
#if defined(COLLECTIVES_SEPARATE_COMPILATION)
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
