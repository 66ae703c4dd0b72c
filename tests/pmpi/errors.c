/* errors.c: errors reach the program as MPI says, with and without the shim.
 *
 *   errors           invalid arguments (a negative count, a bad root, MPI_DATATYPE_NULL,
 *                    MPI_OP_NULL, MPI_COMM_NULL, an all-reduce's send buffer passed as its
 *                    receive buffer, MPI_IN_PLACE where MPI does not allow it, a derived
 *                    datatype never committed): MPI_X returns the same error class as
 *                    Open MPI's PMPI_X, through the communicator's error handler
 *                    (MPI_ERRORS_RETURN here), and the program goes on; where Open MPI
 *                    fails only the rank that passed the argument (a root's receive buffer)
 *                    the other ranks succeed, as without the shim;
 *   errors --shim    also errors the shim finds itself: every rank sends 8 bytes per block
 *                    but receives 4 (type signatures that do not match) gives
 *                    MPI_ERR_TRUNCATE on every rank before any message moves, and a user's
 *                    error handler on the communicator is called with it;
 *   errors --fatal   that mismatch on MPI_COMM_WORLD under MPI_ERRORS_ARE_FATAL: the job
 *                    must end (mpirun exits non-zero) instead of hanging;
 *   errors --check   under COLLECTIVES_MPI_CHECK=1: an MPI_Bcast whose ranks name different
 *                    roots, and an MPI_Allreduce whose ranks give different counts, are
 *                    MPI_ERR_ARG on every rank, buffers untouched, and the next broadcast
 *                    is right, also where the counts differ but the type signatures match.
 * Exit status 0 when every check held. */

#include <mpi.h>

#include <stdio.h>
#include <string.h>

static int rank, size, failures;

static int error_class(int code)
{
  int c = code;
  if (code != MPI_SUCCESS) MPI_Error_class(code, &c);
  return c;
}

/* MPI_X and PMPI_X, both erroneous in the same way, fail with the same error class. */
static void same_error(const char* what, int shim, int native)
{
  if (shim == MPI_SUCCESS || error_class(shim) != error_class(native)) {
    ++failures;
    fprintf(stderr, "errors: rank %d: %s: error class %d, Open MPI's %d\n", rank, what, error_class(shim),
            error_class(native));
  }
}

/* The same outcome on this rank, success included (errors Open MPI reports on one rank). */
static void same_class(const char* what, int shim, int native)
{
  if (error_class(shim) != error_class(native)) {
    ++failures;
    fprintf(stderr, "errors: rank %d: %s: error class %d, Open MPI's %d\n", rank, what, error_class(shim),
            error_class(native));
  }
}

static int handled = -1;
static void record(MPI_Comm* comm, int* code, ...)
{
  (void)comm;
  handled = error_class(*code);
}

int main(int argc, char** argv)
{
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int shim = argc > 1 && strcmp(argv[1], "--shim") == 0;
  const int fatal = argc > 1 && strcmp(argv[1], "--fatal") == 0;
  const int check = argc > 1 && strcmp(argv[1], "--check") == 0;
  int buf[64] = {0}, out[64] = {0};

  if (fatal) {
    /* Every rank: 2 ints out, 1 in per block. MPI_ERRORS_ARE_FATAL ends the job. */
    MPI_Allgather(buf, 2, MPI_INT, out, 1, MPI_INT, MPI_COMM_WORLD);
    fprintf(stderr, "errors: rank %d: the mismatch did not end the job\n", rank);
    MPI_Finalize();
    return 1;
  }

  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  if (check && size > 1) {
    for (int i = 0; i < 4; ++i) buf[i] = rank + 10;
    const int rc = MPI_Bcast(buf, 4, MPI_INT, rank == 0 ? 0 : 1, MPI_COMM_WORLD);
    if (error_class(rc) != MPI_ERR_ARG || buf[0] != rank + 10 || buf[3] != rank + 10) {
      ++failures;
      fprintf(stderr, "errors: rank %d: roots that differ gave class %d, buffer %d\n", rank, error_class(rc), buf[0]);
    }
    for (int i = 0; i < 4; ++i) buf[i] = rank == 0 ? 7 : -1;
    if (MPI_Bcast(buf, 4, MPI_INT, 0, MPI_COMM_WORLD) != MPI_SUCCESS || buf[3] != 7) {
      ++failures;
      fprintf(stderr, "errors: rank %d: the broadcast after the check's error gave %d\n", rank, buf[3]);
    }
    /* Counts that differ (erroneous: an all-reduce's counts must be equal). */
    for (int i = 0; i < 4; ++i) buf[i] = rank + 1, out[i] = -1;
    const int rc_counts = MPI_Allreduce(buf, out, rank == 0 ? 3 : 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (error_class(rc_counts) != MPI_ERR_ARG || out[0] != -1 || out[2] != -1) {
      ++failures;
      fprintf(stderr, "errors: rank %d: counts that differ gave class %d, out %d\n", rank, error_class(rc_counts),
              out[0]);
    }
    /* The twin, no false alarm: counts differ but the type signatures match (4 MPI_INT at
     * the root, one contiguous type of 4 MPI_INT elsewhere), which MPI allows. */
    MPI_Datatype four;
    MPI_Type_contiguous(4, MPI_INT, &four);
    MPI_Type_commit(&four);
    for (int i = 0; i < 4; ++i) buf[i] = rank == 0 ? 9 : -1;
    const int rc_signature = rank == 0 ? MPI_Bcast(buf, 4, MPI_INT, 0, MPI_COMM_WORLD)
                                       : MPI_Bcast(buf, 1, four, 0, MPI_COMM_WORLD);
    if (rc_signature != MPI_SUCCESS || buf[0] != 9 || buf[3] != 9) {
      ++failures;
      fprintf(stderr, "errors: rank %d: matching signatures with other counts gave class %d, buffer %d\n", rank,
              error_class(rc_signature), buf[3]);
    }
    MPI_Type_free(&four);
    memset(buf, 0, sizeof buf);
    memset(out, 0, sizeof out);
  }
  same_error("MPI_Bcast, count -1", MPI_Bcast(buf, -1, MPI_INT, 0, MPI_COMM_WORLD),
             PMPI_Bcast(buf, -1, MPI_INT, 0, MPI_COMM_WORLD));
  same_error("MPI_Bcast, root = size", MPI_Bcast(buf, 1, MPI_INT, size, MPI_COMM_WORLD),
             PMPI_Bcast(buf, 1, MPI_INT, size, MPI_COMM_WORLD));
  same_error("MPI_Allreduce, MPI_DATATYPE_NULL",
             MPI_Allreduce(buf, out, 1, MPI_DATATYPE_NULL, MPI_SUM, MPI_COMM_WORLD),
             PMPI_Allreduce(buf, out, 1, MPI_DATATYPE_NULL, MPI_SUM, MPI_COMM_WORLD));
  same_error("MPI_Allreduce, one buffer as send and receive buffer (not MPI_IN_PLACE)",
             MPI_Allreduce(buf, buf, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
             PMPI_Allreduce(buf, buf, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  same_error("MPI_Allreduce, MPI_OP_NULL", MPI_Allreduce(buf, out, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD),
             PMPI_Allreduce(buf, out, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD));
  same_error("MPI_Reduce, root -1", MPI_Reduce(buf, out, 1, MPI_INT, MPI_SUM, -1, MPI_COMM_WORLD),
             PMPI_Reduce(buf, out, 1, MPI_INT, MPI_SUM, -1, MPI_COMM_WORLD));
  same_error("MPI_Scan, MPI_OP_NULL", MPI_Scan(buf, out, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD),
             PMPI_Scan(buf, out, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD));
  same_error("MPI_Alltoall, count -1", MPI_Alltoall(buf, -1, MPI_INT, out, -1, MPI_INT, MPI_COMM_WORLD),
             PMPI_Alltoall(buf, -1, MPI_INT, out, -1, MPI_INT, MPI_COMM_WORLD));
  /* (Open MPI 4.1's MPI_Allgather crashes on MPI_COMM_NULL: not tried.) */
  same_error("MPI_Bcast, MPI_COMM_NULL", MPI_Bcast(buf, 1, MPI_INT, 0, MPI_COMM_NULL),
             PMPI_Bcast(buf, 1, MPI_INT, 0, MPI_COMM_NULL));
  same_error("MPI_Barrier, MPI_COMM_NULL", MPI_Barrier(MPI_COMM_NULL), PMPI_Barrier(MPI_COMM_NULL));

  /* MPI_IN_PLACE where MPI does not allow it, on every rank. */
  same_error("MPI_Bcast, MPI_IN_PLACE", MPI_Bcast(MPI_IN_PLACE, 2, MPI_INT, 0, MPI_COMM_WORLD),
             PMPI_Bcast(MPI_IN_PLACE, 2, MPI_INT, 0, MPI_COMM_WORLD));
  same_error("MPI_Allreduce, recvbuf MPI_IN_PLACE", MPI_Allreduce(buf, MPI_IN_PLACE, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
             PMPI_Allreduce(buf, MPI_IN_PLACE, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  same_error("MPI_Scan, recvbuf MPI_IN_PLACE", MPI_Scan(buf, MPI_IN_PLACE, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
             PMPI_Scan(buf, MPI_IN_PLACE, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  same_error("MPI_Reduce_scatter_block, recvbuf MPI_IN_PLACE",
             MPI_Reduce_scatter_block(buf, MPI_IN_PLACE, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
             PMPI_Reduce_scatter_block(buf, MPI_IN_PLACE, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  same_error("MPI_Allgather, recvbuf MPI_IN_PLACE",
             MPI_Allgather(buf, 2, MPI_INT, MPI_IN_PLACE, 2, MPI_INT, MPI_COMM_WORLD),
             PMPI_Allgather(buf, 2, MPI_INT, MPI_IN_PLACE, 2, MPI_INT, MPI_COMM_WORLD));
  same_error("MPI_Alltoall, recvbuf MPI_IN_PLACE",
             MPI_Alltoall(buf, 2, MPI_INT, MPI_IN_PLACE, 2, MPI_INT, MPI_COMM_WORLD),
             PMPI_Alltoall(buf, 2, MPI_INT, MPI_IN_PLACE, 2, MPI_INT, MPI_COMM_WORLD));

  /* Errors of the root alone (or of rank 1 alone): the others succeed. */
  {
    int* const bad = rank == 0 ? MPI_IN_PLACE : out;
    same_class("MPI_Reduce, recvbuf MPI_IN_PLACE at the root", MPI_Reduce(buf, bad, 4, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD),
               PMPI_Reduce(buf, bad, 4, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD));
    same_class("MPI_Reduce, 0 elements, recvbuf MPI_IN_PLACE at the root",
               MPI_Reduce(buf, bad, 0, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD),
               PMPI_Reduce(buf, bad, 0, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD));
    int* const again = rank == 0 ? out : buf;
    same_class("MPI_Reduce, the root's receive buffer as its send buffer",
               MPI_Reduce(again, out, 4, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD),
               PMPI_Reduce(again, out, 4, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD));
    same_class("MPI_Gather, recvbuf MPI_IN_PLACE at the root",
               MPI_Gather(buf, 2, MPI_INT, bad, 2, MPI_INT, 0, MPI_COMM_WORLD),
               PMPI_Gather(buf, 2, MPI_INT, bad, 2, MPI_INT, 0, MPI_COMM_WORLD));
    int* const bad1 = rank == 1 ? MPI_IN_PLACE : out;
    same_class("MPI_Scatter, recvbuf MPI_IN_PLACE off the root",
               MPI_Scatter(buf, 2, MPI_INT, bad1, 2, MPI_INT, 0, MPI_COMM_WORLD),
               PMPI_Scatter(buf, 2, MPI_INT, bad1, 2, MPI_INT, 0, MPI_COMM_WORLD));
  }

  /* A derived datatype never committed (MPI_ERR_TYPE), then committed (served). */
  {
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    same_error("MPI_Bcast, an uncommitted datatype", MPI_Bcast(buf, 2, pair, 0, MPI_COMM_WORLD),
               PMPI_Bcast(buf, 2, pair, 0, MPI_COMM_WORLD));
    same_error("MPI_Alltoall, an uncommitted datatype", MPI_Alltoall(buf, 1, pair, out, 1, pair, MPI_COMM_WORLD),
               PMPI_Alltoall(buf, 1, pair, out, 1, pair, MPI_COMM_WORLD));
    MPI_Type_commit(&pair);
    MPI_Datatype copy;
    MPI_Type_dup(pair, &copy);
    for (int i = 0; i < 4; ++i) buf[i] = rank == 0 ? 7 + i : -1;
    if (MPI_Bcast(buf, 2, copy, 0, MPI_COMM_WORLD) != MPI_SUCCESS || buf[0] != 7 || buf[3] != 10) {
      ++failures;
      fprintf(stderr, "errors: rank %d: MPI_Bcast of a committed type's duplicate failed\n", rank);
    }
    MPI_Type_free(&copy);
    MPI_Type_free(&pair);
    memset(buf, 0, sizeof buf);
  }

  /* The communicator still works afterwards. */
  int one = 1, sum = 0;
  if (MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) != MPI_SUCCESS || sum != size) {
    ++failures;
    fprintf(stderr, "errors: rank %d: MPI_Allreduce after the errors gave %d\n", rank, sum);
  }

  if (shim && size > 1) {
    const int rc = MPI_Allgather(buf, 2, MPI_INT, out, 1, MPI_INT, MPI_COMM_WORLD);
    if (error_class(rc) != MPI_ERR_TRUNCATE) {
      ++failures;
      fprintf(stderr, "errors: rank %d: mismatched MPI_Allgather gave class %d, not MPI_ERR_TRUNCATE\n", rank,
              error_class(rc));
    }
    MPI_Comm dup;
    MPI_Errhandler handler;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_create_errhandler(record, &handler);
    MPI_Comm_set_errhandler(dup, handler);
    const int rc2 = MPI_Alltoall(buf, 2, MPI_INT, out, 1, MPI_INT, dup);
    if (handled != MPI_ERR_TRUNCATE || error_class(rc2) != MPI_ERR_TRUNCATE) {
      ++failures;
      fprintf(stderr, "errors: rank %d: mismatched MPI_Alltoall: handler saw class %d, returned %d\n", rank, handled,
              error_class(rc2));
    }
    if (MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, dup) != MPI_SUCCESS || sum != size) {
      ++failures;
      fprintf(stderr, "errors: rank %d: MPI_Allreduce after the mismatch gave %d\n", rank, sum);
    }
    MPI_Errhandler_free(&handler);
    MPI_Comm_free(&dup);
  }

  int any = 0;
  PMPI_Allreduce(&failures, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) printf("errors: %s\n", any ? "FAILED" : "every error as MPI reports it");
  MPI_Finalize();
  return any ? 1 : 0;
}
