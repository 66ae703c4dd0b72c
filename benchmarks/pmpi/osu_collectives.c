/* osu_collectives.c: OSU-style latency of MPI's collectives through MPI_* (the shim's
 * when it is preloaded or linked first) against PMPI_* (always Open MPI's own), in the
 * same run. A plain MPI program in C; no header of the shim.
 *
 *   mpirun -n 4 -x LD_PRELOAD=.../libcollectives_pmpi.so ./osu_collectives
 *          [--sizes 8,2K,128K,1M] [--collectives bcast,allreduce,...] [--rounds R] [--scale S]
 *
 * Sizes: the vector of MPI_Bcast, MPI_Reduce, MPI_Allreduce, MPI_Scan (doubles, summed: size/8
 * of them, at least one); one rank's block for MPI_Allgather, MPI_Reduce_scatter_block
 * (doubles), MPI_Scatter, MPI_Gather, MPI_Alltoall (bytes); the mean block of MPI_Alltoallv
 * (rank i sends size/2, size or 3size/2 bytes to rank j by (i + j) mod 3). Root 0.
 * Method (as OSU's and benchmarks/mpi_collectives.cpp's): warm-up calls, then timed calls,
 * each followed by an untimed PMPI_Barrier; a rank's latency is its mean time per call, the
 * table shows the mean over ranks and the ratio shim / native. The two variants run
 * interleaved in `rounds` rounds (default 3) and each keeps its best round, so a burst of
 * noise from other processes hits one round rather than one variant. Every result is
 * compared with Open MPI's once per size. Exit status 0, or 1 if a result differed.
 *
 * Without the shim both columns are Open MPI's: the ratios show the noise (about 1). */

#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

enum coll { BCAST, REDUCE, ALLREDUCE, ALLGATHER, REDUCE_SCATTER, SCAN, SCATTER, GATHER, ALLTOALL, ALLTOALLV, BARRIER, NCOLL };
static const char* const names[NCOLL] = {"bcast",   "reduce",  "allreduce", "allgather", "reduce_scatter", "scan",
                                         "scatter", "gather",  "alltoall",  "alltoallv", "barrier"};

struct buffers {
  char* send;
  char* recv;
  int* scounts;
  int* sdispls;
  int* rcounts;
  int* rdispls;
  size_t bytes; /* the size the row names */
};

/* One call of collective c, through the shim (native == 0) or Open MPI (native == 1). */
static int call(enum coll c, const struct buffers* b, int native)
{
  const int doubles = b->bytes / 8 > 0 ? (int)(b->bytes / 8) : 1;
  const int n = (int)b->bytes;
  switch (c) {
  case BCAST:
    return native ? PMPI_Bcast(b->send, doubles, MPI_DOUBLE, 0, MPI_COMM_WORLD)
                  : MPI_Bcast(b->send, doubles, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  case REDUCE:
    return native ? PMPI_Reduce(b->send, b->recv, doubles, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD)
                  : MPI_Reduce(b->send, b->recv, doubles, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  case ALLREDUCE:
    return native ? PMPI_Allreduce(b->send, b->recv, doubles, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD)
                  : MPI_Allreduce(b->send, b->recv, doubles, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  case ALLGATHER:
    return native ? PMPI_Allgather(b->send, n, MPI_BYTE, b->recv, n, MPI_BYTE, MPI_COMM_WORLD)
                  : MPI_Allgather(b->send, n, MPI_BYTE, b->recv, n, MPI_BYTE, MPI_COMM_WORLD);
  case REDUCE_SCATTER:
    return native ? PMPI_Reduce_scatter_block(b->send, b->recv, doubles, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD)
                  : MPI_Reduce_scatter_block(b->send, b->recv, doubles, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  case SCAN:
    return native ? PMPI_Scan(b->send, b->recv, doubles, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD)
                  : MPI_Scan(b->send, b->recv, doubles, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  case SCATTER:
    return native ? PMPI_Scatter(b->send, n, MPI_BYTE, b->recv, n, MPI_BYTE, 0, MPI_COMM_WORLD)
                  : MPI_Scatter(b->send, n, MPI_BYTE, b->recv, n, MPI_BYTE, 0, MPI_COMM_WORLD);
  case GATHER:
    return native ? PMPI_Gather(b->send, n, MPI_BYTE, b->recv, n, MPI_BYTE, 0, MPI_COMM_WORLD)
                  : MPI_Gather(b->send, n, MPI_BYTE, b->recv, n, MPI_BYTE, 0, MPI_COMM_WORLD);
  case ALLTOALL:
    return native ? PMPI_Alltoall(b->send, n, MPI_BYTE, b->recv, n, MPI_BYTE, MPI_COMM_WORLD)
                  : MPI_Alltoall(b->send, n, MPI_BYTE, b->recv, n, MPI_BYTE, MPI_COMM_WORLD);
  case ALLTOALLV:
    return native ? PMPI_Alltoallv(b->send, b->scounts, b->sdispls, MPI_BYTE, b->recv, b->rcounts, b->rdispls,
                                   MPI_BYTE, MPI_COMM_WORLD)
                  : MPI_Alltoallv(b->send, b->scounts, b->sdispls, MPI_BYTE, b->recv, b->rcounts, b->rdispls,
                                  MPI_BYTE, MPI_COMM_WORLD);
  case BARRIER:
    return native ? PMPI_Barrier(MPI_COMM_WORLD) : MPI_Barrier(MPI_COMM_WORLD);
  default:
    return MPI_ERR_OTHER;
  }
}

/* The buffers of collective c at `bytes`, filled with small integers (as doubles where
 * summed, so every order of summing gives the same bits). */
static struct buffers make(enum coll c, size_t bytes)
{
  struct buffers b;
  memset(&b, 0, sizeof b);
  b.bytes = bytes;
  const size_t p = (size_t)size;
  size_t send = bytes, recv = bytes;
  if (c == ALLGATHER || c == GATHER) recv = p * bytes;
  if (c == SCATTER) send = p * bytes;
  if (c == ALLTOALL) send = recv = p * bytes;
  if (c == REDUCE_SCATTER) send = p * (bytes < 8 ? 8 : bytes);
  if (c == ALLTOALLV) {
    b.scounts = malloc(sizeof(int) * p);
    b.sdispls = malloc(sizeof(int) * p);
    b.rcounts = malloc(sizeof(int) * p);
    b.rdispls = malloc(sizeof(int) * p);
    int s = 0, r = 0;
    for (int j = 0; j < size; ++j) {
      b.scounts[j] = (int)(bytes / 2 * (size_t)(1 + (rank + j) % 3));
      b.rcounts[j] = b.scounts[j];
      b.sdispls[j] = s;
      b.rdispls[j] = r;
      s += b.scounts[j];
      r += b.rcounts[j];
    }
    send = (size_t)s;
    recv = (size_t)r;
  }
  if (send < 8) send = 8;
  if (recv < 8) recv = 8;
  b.send = malloc(send);
  b.recv = calloc(recv, 1);
  for (size_t i = 0; i + 8 <= send; i += 8) {
    const double v = (double)((rank * 7 + (int)(i / 8) * 3) % 11);
    memcpy(b.send + i, &v, 8);
  }
  return b;
}

static void release(struct buffers* b)
{
  free(b->send);
  free(b->recv);
  free(b->scounts);
  free(b->sdispls);
  free(b->rcounts);
  free(b->rdispls);
}

/* Bytes of the result of collective c on this rank (0: nothing to compare). */
static size_t result_bytes(enum coll c, const struct buffers* b)
{
  const size_t p = (size_t)size, doubles = b->bytes / 8 > 0 ? b->bytes / 8 : 1;
  switch (c) {
  case BCAST: return doubles * 8;
  case REDUCE: return rank == 0 ? doubles * 8 : 0;
  case ALLREDUCE: case SCAN: case REDUCE_SCATTER: return doubles * 8;
  case ALLGATHER: case ALLTOALL: return p * b->bytes;
  case GATHER: return rank == 0 ? p * b->bytes : 0;
  case SCATTER: return b->bytes;
  case ALLTOALLV: {
    size_t r = 0;
    for (int j = 0; j < size; ++j) r += (size_t)b->rcounts[j];
    return r;
  }
  default: return 0;
  }
}

/* Mean seconds per call over `iterations` timed calls (each followed by an untimed barrier). */
static double timed(enum coll c, const struct buffers* b, int native, int iterations)
{
  double total = 0;
  for (int i = 0; i < iterations; ++i) {
    const double t0 = MPI_Wtime();
    call(c, b, native);
    total += MPI_Wtime() - t0;
    PMPI_Barrier(MPI_COMM_WORLD);
  }
  double mine = total / iterations, sum = 0;
  PMPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return sum / size;
}

/* The machine's load average (Linux), to print beside the figures: they mean little when
 * other processes compete for the cores. */
static void print_load(const char* when)
{
  FILE* f = fopen("/proc/loadavg", "r");
  char text[64] = "unknown";
  if (f != NULL) {
    if (fgets(text, sizeof text, f) == NULL) strcpy(text, "unknown");
    fclose(f);
  }
  text[strcspn(text, "\n")] = 0;
  printf("# load average %s: %s\n", when, text);
}

static size_t parse_size(const char* s)
{
  char* end = NULL;
  size_t v = strtoull(s, &end, 10);
  if (*end == 'K' || *end == 'k') v <<= 10;
  if (*end == 'M' || *end == 'm') v <<= 20;
  return v;
}

int main(int argc, char** argv)
{
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  size_t sizes[16] = {8, 2048, 131072, 1048576};
  int nsizes = 4, rounds = 3, wanted[NCOLL];
  double scale = 1.0;
  for (int c = 0; c < NCOLL; ++c) wanted[c] = 1;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--sizes") == 0 && i + 1 < argc) {
      nsizes = 0;
      for (char* tok = strtok(argv[++i], ","); tok != NULL && nsizes < 16; tok = strtok(NULL, ","))
        sizes[nsizes++] = parse_size(tok);
    } else if (strcmp(argv[i], "--collectives") == 0 && i + 1 < argc) {
      for (int c = 0; c < NCOLL; ++c) wanted[c] = 0;
      for (char* tok = strtok(argv[++i], ","); tok != NULL; tok = strtok(NULL, ","))
        for (int c = 0; c < NCOLL; ++c)
          if (strcmp(tok, names[c]) == 0) wanted[c] = 1;
    } else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) {
      rounds = atoi(argv[++i]);
    } else if (strcmp(argv[i], "--scale") == 0 && i + 1 < argc) {
      scale = atof(argv[++i]);
    } else {
      if (rank == 0)
        fprintf(stderr, "usage: osu_collectives [--sizes 8,2K,128K,1M] [--collectives a,b,...] [--rounds R] "
                        "[--scale S]\n  collectives: bcast reduce allreduce allgather reduce_scatter scan scatter "
                        "gather alltoall alltoallv barrier\n");
      MPI_Finalize();
      return 2;
    }
  }
  if (rank == 0) {
    print_load("at the start");
    printf("# %d ranks; time per call in microseconds (mean over ranks, best of %d rounds)\n", size, rounds);
    printf("# %-15s %10s %12s %12s %8s\n", "collective", "bytes", "native_us", "MPI_us", "ratio");
  }
  int wrong = 0;
  for (int c = 0; c < NCOLL; ++c) {
    if (!wanted[c]) continue;
    for (int s = 0; s < (c == BARRIER ? 1 : nsizes); ++s) {
      struct buffers b = make(c, c == BARRIER ? 0 : sizes[s]);
      /* Check once: the shim's result against Open MPI's. */
      const size_t rb = result_bytes(c, &b);
      char* expect = malloc(rb > 0 ? rb : 1);
      char* got = c == BCAST ? b.send : b.recv;
      call(c, &b, 1);
      memcpy(expect, got, rb);
      if (c != BCAST || rank != 0) memset(got, 0x5a, rb); /* so that a call writing nothing fails */
      call(c, &b, 0);
      if (rb > 0 && memcmp(got, expect, rb) != 0) {
        fprintf(stderr, "osu_collectives: rank %d: %s of %zu bytes differs from Open MPI's\n", rank, names[c],
                b.bytes);
        wrong = 1;
      }
      free(expect);
      /* Iterations: about 20 ms per variant and round (3 to 2000 calls), from a warm-up. */
      for (int w = 0; w < 3; ++w) call(c, &b, 0), call(c, &b, 1);
      double one = timed(c, &b, 1, 3);
      PMPI_Bcast(&one, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
      int iterations = (int)(scale * 0.02 / (one > 1e-7 ? one : 1e-7));
      if (iterations < 3) iterations = 3;
      if (iterations > 2000) iterations = 2000;
      double best[2] = {1e30, 1e30};
      for (int r = 0; r < rounds; ++r)
        for (int v = 0; v < 2; ++v) {
          const double t = timed(c, &b, v == 0, iterations);
          if (t < best[v]) best[v] = t;
        }
      if (rank == 0)
        printf("  %-15s %10zu %12.2f %12.2f %8.2f\n", names[c], b.bytes, best[0] * 1e6, best[1] * 1e6,
               best[1] / best[0]);
      fflush(stdout);
      release(&b);
    }
  }
  int any = 0;
  PMPI_Allreduce(&wrong, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) print_load("at the end");
  MPI_Finalize();
  return any;
}
