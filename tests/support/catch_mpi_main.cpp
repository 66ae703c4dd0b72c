// Catch2 main for the MPI tests (tests/mpi/*.cpp, see collectives_add_mpi_test):
// initialises MPI around the Catch session and makes the run fail on every rank
// as soon as it failed on any rank, so mpiexec's exit status is meaningful.
// (Catch2's implementation: tests/support/catch_impl.cpp, shared with tests/main.cpp.)
#include "catch_run.hpp"

#include <mpi.h>

int main(int argc, char* argv[])
{
    int provided = 0;
    if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
        return 2;
    }

    const int result = collectives_testing_catch_run(argc, argv);

    int failed = result != 0 ? 1 : 0;
    int any_failed = 0;
    MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return any_failed != 0 ? 1 : 0;
}
