#pragma once
// Header-only or separately compiled (as Asio and {fmt} offer).
//
// By default every translation unit compiles the library's non-template code that it
// uses: the threads transport, the executor core (run_schedule_core) and the error texts. A
// program that defines COLLECTIVES_SEPARATE_COMPILATION in every translation unit (the
// CMake target collectives::compiled does) sees only their declarations and links them
// from one compiled copy: the library collectives::compiled, or one source file of the
// program's own that includes <collectives/separate_compilation.hpp>. That saves each
// translation unit the code generation every call would otherwise repeat.

/// `inline` when the headers hold the definitions (header-only), nothing when they are
/// compiled once (COLLECTIVES_SEPARATE_COMPILATION): on every out-of-line definition
/// that mode moves.
#if defined(COLLECTIVES_SEPARATE_COMPILATION)
#define COLLECTIVES_DECL
#else
#define COLLECTIVES_DECL inline
#endif
