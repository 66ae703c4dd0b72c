// The MPI transport's non-template code (separate_compilation_mpi.hpp), compiled once per
// build tree for the MPI test executables that define COLLECTIVES_DETAIL_LINKED_CORE (see
// linked_core.cpp, which this one's target links).

#if !defined(COLLECTIVES_DETAIL_LINKED_CORE) || defined(COLLECTIVES_SEPARATE_COMPILATION)
#error "tests/support/linked_core_mpi.cpp: built with COLLECTIVES_DETAIL_LINKED_CORE only"
#endif

#include <collectives/separate_compilation_mpi.hpp>
