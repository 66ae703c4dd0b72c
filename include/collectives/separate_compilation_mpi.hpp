#pragma once
// The MPI transport's compiled part, for programs built with
// COLLECTIVES_SEPARATE_COMPILATION that use collectives::mpi::Endpoint: include this header
// in exactly one source file (beside separate_compilation.hpp), or link the CMake target
// collectives::compiled_mpi, which is that file and links collectives::compiled. Apart
// from collectives::compiled so that the rest of the library never needs MPI. (The
// library's own test builds compile it with COLLECTIVES_DETAIL_LINKED_CORE instead.)

#if !defined(COLLECTIVES_SEPARATE_COMPILATION) && !defined(COLLECTIVES_DETAIL_LINKED_CORE)
#error "collectives/separate_compilation_mpi.hpp: define COLLECTIVES_SEPARATE_COMPILATION in every translation unit (without it the headers already define everything)"
#endif

#include <collectives/transport/mpi.hpp>

#include <collectives/transport/impl/mpi.ipp>
