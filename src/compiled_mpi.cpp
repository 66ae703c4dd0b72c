// collectives::compiled_mpi: the MPI transport's non-template code, compiled once for
// programs built with COLLECTIVES_SEPARATE_COMPILATION (the target defines it for them).
#include <collectives/separate_compilation_mpi.hpp>
