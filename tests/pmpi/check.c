/* check.c: every collective the MPI shim defines, compared with Open MPI's own.
 *
 * A plain MPI program (no header of the shim): each test calls MPI_X, which the shim
 * serves when it is preloaded or linked first, and PMPI_X, which is always Open MPI's, on
 * the same input, and compares the results byte for byte (by value where a type has
 * padding bytes MPI leaves alone). Without the shim both are Open MPI's and the program
 * checks itself. Inputs are small integers (also as floating-point and complex numbers),
 * so sums and products are exact in any order and results must be identical.
 *
 * Covered: every call at counts 0, small and long, several roots; MPI_IN_PLACE wherever
 * the standard allows it; derived datatypes (strided vectors, structs, resized types,
 * different send and receive types); every predefined operator on every predefined type
 * it is defined on (and pairs Open MPI accepts beyond the standard, which the shim
 * forwards); user operators, commutative and not (2x2 matrix products, which must come
 * out in rank order); Cartesian communicators (rings, meshes, tori, with and without
 * wraparound); MPI_Comm_split sub-communicators, duplicates freed and re-made, an
 * inter-communicator (forwarded), MPI_COMM_SELF.
 *
 * Exit status 0 on every rank when everything matched; failures are printed with the
 * test's name. Usage: check [--quick | --brief]: --quick runs the operator/type matrix
 * through MPI_Allreduce only; --brief runs no matrix (a few types through every reduction),
 * shorter long messages and no Cartesian communicators (for runs that force algorithms or
 * topologies). */

#include <mpi.h>

#include <complex.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;
static int failures;
static char context[160];

static void note(const char* fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(context, sizeof context, fmt, ap);
  va_end(ap);
  if (getenv("CHECK_TRACE") != NULL) fprintf(stderr, "check: rank %d: %s\n", rank, context);
}

static void fail(const char* fmt, ...)
{
  if (++failures > 30) return;
  char what[200];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  fprintf(stderr, "check: rank %d of %d: %s: %s\n", rank, size, context, what);
}

static void* xmalloc(size_t n)
{
  void* p = calloc(n == 0 ? 1 : n, 1);
  if (p == NULL) {
    fprintf(stderr, "check: out of memory\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  return p;
}

static void same_bytes(const void* a, const void* b, size_t n, const char* what)
{
  if (memcmp(a, b, n) == 0) return;
  const unsigned char* x = a;
  const unsigned char* y = b;
  size_t i = 0;
  while (x[i] == y[i]) ++i;
  fail("%s differs from Open MPI's at byte %zu of %zu (%u, expected %u)", what, i, n, x[i], y[i]);
}

/* The same call twice: MPI_F(...) with X standing for `a` (the shim's, when it is loaded),
 * then PMPI_F(...) with X standing for `b` (Open MPI's). */
#define BOTH(a, b, F, ...)    \
  do {                        \
    void* X = (a);            \
    MPI_##F(__VA_ARGS__);     \
    X = (b);                  \
    PMPI_##F(__VA_ARGS__);    \
    (void)X;                  \
  } while (0)

/* ------------------------------------------------------------------------------------ */
/* Predefined types and their values                                                    */
/* ------------------------------------------------------------------------------------ */

enum kind {
  I8, I16, I32, I64, U8, U16, U32, U64, F32, F64, F80, C32, C64, C80, BOOLEAN, BYTE,
  FLOAT_INT, DOUBLE_INT, LONG_INT, TWO_INT, SHORT_INT, LONG_DOUBLE_INT, TWO_FLOAT, TWO_DOUBLE
};
/* The MPI standard's groups of basic types (MPI 3.1, 5.9.2). */
enum group { C_INTEGER, F_INTEGER, FLOATING, COMPLEX, LOGICAL, BYTE_GROUP, MULTI, PAIR, OTHER };

struct float_int { float v; int i; };
struct double_int { double v; int i; };
struct long_int { long v; int i; };
struct two_int { int v; int i; };
struct short_int { short v; int i; };
struct long_double_int { long double v; int i; };
struct two_float { float v; float i; };
struct two_double { double v; double i; };

static size_t kind_size(enum kind k)
{
  switch (k) {
  case I8: case U8: case BOOLEAN: case BYTE: return 1;
  case I16: case U16: return 2;
  case I32: case U32: case F32: return 4;
  case I64: case U64: case F64: return 8;
  case F80: return sizeof(long double);
  case C32: return sizeof(float _Complex);
  case C64: return sizeof(double _Complex);
  case C80: return sizeof(long double _Complex);
  case FLOAT_INT: return sizeof(struct float_int);
  case DOUBLE_INT: return sizeof(struct double_int);
  case LONG_INT: return sizeof(struct long_int);
  case TWO_INT: return sizeof(struct two_int);
  case SHORT_INT: return sizeof(struct short_int);
  case LONG_DOUBLE_INT: return sizeof(struct long_double_int);
  case TWO_FLOAT: return sizeof(struct two_float);
  case TWO_DOUBLE: return sizeof(struct two_double);
  }
  return 1;
}

/* Element i of rank r's input: small values (1..3 for products, so that p of them
 * multiply exactly; -1..2 otherwise, with zeros for the logical operators and ties for
 * MINLOC/MAXLOC). The buffer is zeroed first, so padding bytes are zero everywhere. */
static void set_value(enum kind k, void* buf, size_t i, int r, int seed, bool product)
{
  const long base = (long)((r * 5 + (int)i * 3 + seed) % 4);
  const long v = product ? 1 + base % 3 : base - 1;
  const long u = product ? v : base;
  char* e = (char*)buf + i * kind_size(k);
  switch (k) {
  case I8: *(int8_t*)e = (int8_t)v; break;
  case I16: *(int16_t*)e = (int16_t)v; break;
  case I32: *(int32_t*)e = (int32_t)v; break;
  case I64: *(int64_t*)e = (int64_t)v; break;
  case U8: *(uint8_t*)e = (uint8_t)u; break;
  case U16: *(uint16_t*)e = (uint16_t)u; break;
  case U32: *(uint32_t*)e = (uint32_t)u; break;
  case U64: *(uint64_t*)e = (uint64_t)u; break;
  case F32: *(float*)e = (float)v; break;
  case F64: *(double*)e = (double)v; break;
  case F80: *(long double*)e = (long double)v; break;
  case C32: *(float _Complex*)e = (float)v + (float)(u % 2) * I; break;
  case C64: *(double _Complex*)e = (double)v + (double)(u % 2) * I; break;
  case C80: *(long double _Complex*)e = (long double)v + (long double)(u % 2) * I; break;
  case BOOLEAN: *(bool*)e = u % 2 != 0; break;
  case BYTE: *(unsigned char*)e = (unsigned char)((r * 37 + (int)i * 11 + seed) & 0xff); break;
  case FLOAT_INT: ((struct float_int*)e)->v = (float)(base % 3); ((struct float_int*)e)->i = (r * 7 + (int)i) % 5; break;
  case DOUBLE_INT: ((struct double_int*)e)->v = (double)(base % 3); ((struct double_int*)e)->i = (r * 7 + (int)i) % 5; break;
  case LONG_INT: ((struct long_int*)e)->v = base % 3; ((struct long_int*)e)->i = (r * 7 + (int)i) % 5; break;
  case TWO_INT: ((struct two_int*)e)->v = (int)(base % 3); ((struct two_int*)e)->i = (r * 7 + (int)i) % 5; break;
  case SHORT_INT: ((struct short_int*)e)->v = (short)(base % 3); ((struct short_int*)e)->i = (r * 7 + (int)i) % 5; break;
  case LONG_DOUBLE_INT:
    ((struct long_double_int*)e)->v = (long double)(base % 3);
    ((struct long_double_int*)e)->i = (r * 7 + (int)i) % 5;
    break;
  case TWO_FLOAT: ((struct two_float*)e)->v = (float)(base % 3); ((struct two_float*)e)->i = (float)((r * 7 + (int)i) % 5); break;
  case TWO_DOUBLE: ((struct two_double*)e)->v = (double)(base % 3); ((struct two_double*)e)->i = (double)((r * 7 + (int)i) % 5); break;
  }
}

/* Equal results: by value for the long double kinds (their padding bytes are not data),
 * byte for byte otherwise. */
static void same_values(enum kind k, const void* a, const void* b, size_t n, const char* what)
{
  if (k != F80 && k != C80 && k != LONG_DOUBLE_INT) {
    same_bytes(a, b, n * kind_size(k), what);
    return;
  }
  for (size_t i = 0; i < n; ++i) {
    bool eq = true;
    if (k == F80) eq = ((const long double*)a)[i] == ((const long double*)b)[i];
    else if (k == C80) eq = ((const long double _Complex*)a)[i] == ((const long double _Complex*)b)[i];
    else eq = ((const struct long_double_int*)a)[i].v == ((const struct long_double_int*)b)[i].v &&
              ((const struct long_double_int*)a)[i].i == ((const struct long_double_int*)b)[i].i;
    if (!eq) {
      fail("%s differs from Open MPI's at element %zu of %zu", what, i, n);
      return;
    }
  }
}

struct type {
  MPI_Datatype type;
  const char* name;
  enum kind kind;
  enum group group;
};

#define T(t, k, g) {t, #t, k, g}
static struct type types[64];
static int ntypes;

static void add_type(struct type t)
{
  int s = 0;
  MPI_Aint lb = 0, extent = 0;
  MPI_Type_size(t.type, &s);
  MPI_Type_get_extent(t.type, &lb, &extent);
  if (s <= 0 || (size_t)extent != kind_size(t.kind)) return; /* laid out otherwise here */
  types[ntypes++] = t;
}

static void init_types(void)
{
  const struct type all[] = {
    T(MPI_SIGNED_CHAR, I8, C_INTEGER), T(MPI_UNSIGNED_CHAR, U8, C_INTEGER), T(MPI_SHORT, I16, C_INTEGER),
    T(MPI_UNSIGNED_SHORT, U16, C_INTEGER), T(MPI_INT, I32, C_INTEGER), T(MPI_UNSIGNED, U32, C_INTEGER),
    T(MPI_LONG, I64, C_INTEGER), T(MPI_UNSIGNED_LONG, U64, C_INTEGER), T(MPI_LONG_LONG, I64, C_INTEGER),
    T(MPI_UNSIGNED_LONG_LONG, U64, C_INTEGER), T(MPI_INT8_T, I8, C_INTEGER), T(MPI_INT16_T, I16, C_INTEGER),
    T(MPI_INT32_T, I32, C_INTEGER), T(MPI_INT64_T, I64, C_INTEGER), T(MPI_UINT8_T, U8, C_INTEGER),
    T(MPI_UINT16_T, U16, C_INTEGER), T(MPI_UINT32_T, U32, C_INTEGER), T(MPI_UINT64_T, U64, C_INTEGER),
    T(MPI_INTEGER, I32, F_INTEGER), T(MPI_INTEGER1, I8, F_INTEGER), T(MPI_INTEGER2, I16, F_INTEGER),
    T(MPI_INTEGER4, I32, F_INTEGER), T(MPI_INTEGER8, I64, F_INTEGER),
    T(MPI_FLOAT, F32, FLOATING), T(MPI_DOUBLE, F64, FLOATING), T(MPI_LONG_DOUBLE, F80, FLOATING),
    T(MPI_REAL, F32, FLOATING), T(MPI_DOUBLE_PRECISION, F64, FLOATING), T(MPI_REAL4, F32, FLOATING),
    T(MPI_REAL8, F64, FLOATING),
    T(MPI_C_FLOAT_COMPLEX, C32, COMPLEX), T(MPI_C_DOUBLE_COMPLEX, C64, COMPLEX),
    T(MPI_C_LONG_DOUBLE_COMPLEX, C80, COMPLEX), T(MPI_CXX_FLOAT_COMPLEX, C32, COMPLEX),
    T(MPI_CXX_DOUBLE_COMPLEX, C64, COMPLEX), T(MPI_CXX_LONG_DOUBLE_COMPLEX, C80, COMPLEX),
    T(MPI_COMPLEX, C32, COMPLEX), T(MPI_DOUBLE_COMPLEX, C64, COMPLEX),
    T(MPI_C_BOOL, BOOLEAN, LOGICAL), T(MPI_CXX_BOOL, BOOLEAN, LOGICAL),
    T(MPI_BYTE, BYTE, BYTE_GROUP),
    T(MPI_AINT, I64, MULTI), T(MPI_OFFSET, I64, MULTI), T(MPI_COUNT, I64, MULTI),
    T(MPI_FLOAT_INT, FLOAT_INT, PAIR), T(MPI_DOUBLE_INT, DOUBLE_INT, PAIR), T(MPI_LONG_INT, LONG_INT, PAIR),
    T(MPI_2INT, TWO_INT, PAIR), T(MPI_SHORT_INT, SHORT_INT, PAIR), T(MPI_LONG_DOUBLE_INT, LONG_DOUBLE_INT, PAIR),
    T(MPI_2REAL, TWO_FLOAT, PAIR), T(MPI_2DOUBLE_PRECISION, TWO_DOUBLE, PAIR), T(MPI_2INTEGER, TWO_INT, PAIR),
    /* Beyond the standard, accepted by Open MPI: the shim forwards them. */
    T(MPI_CHAR, I8, OTHER),
  };
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) add_type(all[i]);
}

struct op {
  MPI_Op op;
  const char* name;
};
static struct op ops[12];

static void init_ops(void)
{
  const struct op all[12] = {{MPI_MAX, "MPI_MAX"},   {MPI_MIN, "MPI_MIN"},      {MPI_SUM, "MPI_SUM"},
                             {MPI_PROD, "MPI_PROD"}, {MPI_LAND, "MPI_LAND"},    {MPI_BAND, "MPI_BAND"},
                             {MPI_LOR, "MPI_LOR"},   {MPI_BOR, "MPI_BOR"},      {MPI_LXOR, "MPI_LXOR"},
                             {MPI_BXOR, "MPI_BXOR"}, {MPI_MAXLOC, "MPI_MAXLOC"}, {MPI_MINLOC, "MPI_MINLOC"}};
  memcpy(ops, all, sizeof all);
}

/* Whether the standard defines op on the group (MPI 3.1, 5.9.2); OTHER: Open MPI's extras
 * (MIN/MAX/SUM on MPI_CHAR). */
static bool defined(int op, enum group g)
{
  switch (op) {
  case 0: case 1: return g == C_INTEGER || g == F_INTEGER || g == FLOATING || g == MULTI || g == OTHER;
  case 2: case 3: return g == C_INTEGER || g == F_INTEGER || g == FLOATING || g == COMPLEX || g == MULTI || g == OTHER;
  case 4: case 6: case 8: return g == C_INTEGER || g == LOGICAL;
  case 5: case 7: case 9: return g == C_INTEGER || g == F_INTEGER || g == BYTE_GROUP || g == MULTI;
  default: return g == PAIR;
  }
}

/* ------------------------------------------------------------------------------------ */
/* Reductions                                                                            */
/* ------------------------------------------------------------------------------------ */

/* The reductions of n elements of `type` with op, each through the shim and natively. */
static void reductions(MPI_Comm comm, const struct type* t, MPI_Op op, const char* op_name, size_t n, bool product,
                       bool all)
{
  int r, p;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &p);
  const size_t e = kind_size(t->kind);
  const int count = (int)n;
  char* in = xmalloc(n * p * e);
  char* a = xmalloc(n * p * e);
  char* b = xmalloc(n * p * e);
  for (size_t i = 0; i < n * (size_t)p; ++i) set_value(t->kind, in, i, r, 1, product);
  note("%s %s n=%zu p=%d", t->name, op_name, n, p);

  BOTH(a, b, Allreduce, in, X, count, t->type, op, comm);
  same_values(t->kind, a, b, n, "MPI_Allreduce");
  if (!all) goto done;

  memcpy(a, in, n * e);
  memcpy(b, in, n * e);
  BOTH(a, b, Allreduce, MPI_IN_PLACE, X, count, t->type, op, comm);
  same_values(t->kind, a, b, n, "MPI_Allreduce in place");

  for (int root = 0; root < p; root += p > 2 ? p - 1 : 1) {
    memset(a, 0, n * e);
    memset(b, 0, n * e);
    BOTH(a, b, Reduce, in, X, count, t->type, op, root, comm);
    if (r == root) same_values(t->kind, a, b, n, "MPI_Reduce");
    /* In place at the root. */
    memcpy(a, in, n * e);
    memcpy(b, in, n * e);
    BOTH(a, b, Reduce, r == root ? MPI_IN_PLACE : in, X, count, t->type, op, root, comm);
    if (r == root) same_values(t->kind, a, b, n, "MPI_Reduce in place");
  }

  BOTH(a, b, Scan, in, X, count, t->type, op, comm);
  same_values(t->kind, a, b, n, "MPI_Scan");
  memcpy(a, in, n * e);
  memcpy(b, in, n * e);
  BOTH(a, b, Scan, MPI_IN_PLACE, X, count, t->type, op, comm);
  same_values(t->kind, a, b, n, "MPI_Scan in place");

  BOTH(a, b, Exscan, in, X, count, t->type, op, comm);
  if (r > 0) same_values(t->kind, a, b, n, "MPI_Exscan"); /* rank 0's is undefined */
  memcpy(a, in, n * e);
  memcpy(b, in, n * e);
  BOTH(a, b, Exscan, MPI_IN_PLACE, X, count, t->type, op, comm);
  if (r > 0) same_values(t->kind, a, b, n, "MPI_Exscan in place");

  /* n elements per block. */
  BOTH(a, b, Reduce_scatter_block, in, X, count, t->type, op, comm);
  same_values(t->kind, a, b, n, "MPI_Reduce_scatter_block");
  memcpy(a, in, n * p * e);
  memcpy(b, in, n * p * e);
  BOTH(a, b, Reduce_scatter_block, MPI_IN_PLACE, X, count, t->type, op, comm);
  same_values(t->kind, a, b, n, "MPI_Reduce_scatter_block in place");

  {
    int* counts = xmalloc(sizeof(int) * (size_t)p);
    for (int j = 0; j < p; ++j) counts[j] = count;
    BOTH(a, b, Reduce_scatter, in, X, counts, t->type, op, comm);
    same_values(t->kind, a, b, n, "MPI_Reduce_scatter");
    /* Blocks of different sizes (forwarded by the shim). */
    size_t total = 0;
    for (int j = 0; j < p; ++j) total += (size_t)(counts[j] = (int)((n + (size_t)j) % (n + 1)));
    if (total <= n * (size_t)p) {
      BOTH(a, b, Reduce_scatter, in, X, counts, t->type, op, comm);
      same_values(t->kind, a, b, (size_t)counts[r], "MPI_Reduce_scatter, blocks of different sizes");
    }
    free(counts);
  }
done:
  free(in);
  free(a);
  free(b);
}

/* 2x2 matrices of integers (as int or double): the product is associative but not
 * commutative, so only the rank order gives Open MPI's result. MPI's convention:
 * inout = in * inout, with `in` from the lower ranks. */
#define MAT_MUL(name, T)                                                                         \
  static void name(void* in, void* inout, int* len, MPI_Datatype* type)                          \
  {                                                                                              \
    (void)type;                                                                                  \
    const T* a = in;                                                                             \
    T* b = inout;                                                                                \
    for (int k = 0; k < *len; ++k, a += 4, b += 4) {                                             \
      const T c[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2], \
                      a[2] * b[1] + a[3] * b[3]};                                                \
      memcpy(b, c, sizeof c);                                                                    \
    }                                                                                            \
  }
MAT_MUL(mat_mul_int, int)
MAT_MUL(mat_mul_double, double)

/* A commutative user operator: the sum of 3-int triples (12-byte elements, which the
 * shim is not compiled for: forwarded) or of int pairs. */
static void add_ints(void* in, void* inout, int* len, MPI_Datatype* type)
{
  int s = 0;
  MPI_Type_size(*type, &s);
  const int* a = in;
  int* b = inout;
  for (int k = 0; k < *len * (s / (int)sizeof(int)); ++k) b[k] += a[k];
}

static void user_reduction(MPI_Comm comm, MPI_Datatype type, MPI_Op op, const char* name, size_t n, int ints,
                           bool as_double)
{
  int r, p;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &p);
  const size_t e = (size_t)ints * (as_double ? sizeof(double) : sizeof(int));
  const int count = (int)n;
  char* in = xmalloc(n * p * e);
  char* a = xmalloc(n * p * e);
  char* b = xmalloc(n * p * e);
  for (size_t i = 0; i < n * (size_t)p * (size_t)ints; ++i) {
    const int v = (int)((r * 7 + (int)i * 5) % 5) - 2 + (i % 4 == 0); /* entries -2..3 */
    if (as_double) ((double*)in)[i] = v;
    else ((int*)in)[i] = v;
  }
  note("%s n=%zu p=%d", name, n, p);
  BOTH(a, b, Allreduce, in, X, count, type, op, comm);
  same_bytes(a, b, n * e, "MPI_Allreduce");
  memcpy(a, in, n * e);
  memcpy(b, in, n * e);
  BOTH(a, b, Allreduce, MPI_IN_PLACE, X, count, type, op, comm);
  same_bytes(a, b, n * e, "MPI_Allreduce in place");
  for (int root = 0; root < p; root += p > 1 ? (p + 1) / 2 : 1) {
    BOTH(a, b, Reduce, in, X, count, type, op, root, comm);
    if (r == root) same_bytes(a, b, n * e, "MPI_Reduce");
  }
  BOTH(a, b, Scan, in, X, count, type, op, comm);
  same_bytes(a, b, n * e, "MPI_Scan");
  BOTH(a, b, Exscan, in, X, count, type, op, comm);
  if (r > 0) same_bytes(a, b, n * e, "MPI_Exscan");
  BOTH(a, b, Reduce_scatter_block, in, X, count, type, op, comm);
  same_bytes(a, b, n * e, "MPI_Reduce_scatter_block");
  free(in);
  free(a);
  free(b);
}

/* A commutative user operator on MPI_DOUBLE_INT pairs: the sums of values and of indices. */
static void add_double_int(void* in, void* inout, int* len, MPI_Datatype* type)
{
  (void)type;
  const struct double_int* a = in;
  struct double_int* b = inout;
  for (int k = 0; k < *len; ++k) {
    b[k].v += a[k].v;
    b[k].i += a[k].i;
  }
}

/* The MINLOC/MAXLOC pairs with padding (MPI_SHORT_INT between value and index,
 * MPI_DOUBLE_INT after the index): MPI writes only their data, so the padding of every
 * element of a receive buffer keeps what was there (0x5a here), byte for byte as Open MPI
 * leaves it; with MPI_MINLOC and with a user operator. */
static void pair_padding(MPI_Comm comm)
{
  int r, p;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &p);
  MPI_Op add;
  MPI_Op_create(add_double_int, 1, &add);
  const struct {
    MPI_Datatype type;
    MPI_Op op;
    size_t extent;
    const char* name;
  } cases[] = {{MPI_SHORT_INT, MPI_MINLOC, sizeof(struct short_int), "MPI_SHORT_INT MPI_MINLOC"},
               {MPI_DOUBLE_INT, MPI_MAXLOC, sizeof(struct double_int), "MPI_DOUBLE_INT MPI_MAXLOC"},
               {MPI_DOUBLE_INT, add, sizeof(struct double_int), "MPI_DOUBLE_INT user operator"}};
  const int n = 7;
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    const size_t e = cases[c].extent, bytes = (size_t)n * (size_t)p * e;
    char* in = xmalloc(bytes);
    char* a = xmalloc(bytes);
    char* b = xmalloc(bytes);
    for (int i = 0; i < n * p; ++i) {
      if (cases[c].type == MPI_SHORT_INT) {
        struct short_int x = {(short)((i * 7 + r * 3) % 11), r};
        memcpy(in + (size_t)i * e, &x, sizeof x);
      } else {
        struct double_int x = {(double)((i * 5 + r * 3) % 13), r};
        memcpy(in + (size_t)i * e, &x, sizeof x);
      }
    }
    note("%s padding p=%d", cases[c].name, p);
#define PADDED(what, call_in_a_b)  \
  memset(a, 0x5a, bytes);            \
  memset(b, 0x5a, bytes);            \
  call_in_a_b;                       \
  same_bytes(a, b, bytes, what)
    PADDED("MPI_Allreduce", BOTH(a, b, Allreduce, in, X, n, cases[c].type, cases[c].op, comm));
    PADDED("MPI_Reduce", BOTH(a, b, Reduce, in, X, n, cases[c].type, cases[c].op, 0, comm));
    PADDED("MPI_Scan", BOTH(a, b, Scan, in, X, n, cases[c].type, cases[c].op, comm));
    PADDED("MPI_Exscan", BOTH(a, b, Exscan, in, X, n, cases[c].type, cases[c].op, comm));
    PADDED("MPI_Reduce_scatter_block", BOTH(a, b, Reduce_scatter_block, in, X, n, cases[c].type, cases[c].op, comm));
#undef PADDED
    free(in);
    free(a);
    free(b);
  }
  MPI_Op_free(&add);
}

static void user_reductions(MPI_Comm comm, bool long_vectors)
{
  MPI_Datatype mat_i, mat_d, triple, pair_i;
  MPI_Type_contiguous(4, MPI_INT, &mat_i);
  MPI_Type_contiguous(4, MPI_DOUBLE, &mat_d);
  MPI_Type_contiguous(3, MPI_INT, &triple);
  MPI_Type_contiguous(2, MPI_INT, &pair_i);
  MPI_Type_commit(&mat_i);
  MPI_Type_commit(&mat_d);
  MPI_Type_commit(&triple);
  MPI_Type_commit(&pair_i);
  MPI_Op mul_i, mul_d, add;
  MPI_Op_create(mat_mul_int, 0, &mul_i);
  MPI_Op_create(mat_mul_double, 0, &mul_d);
  MPI_Op_create(add_ints, 1, &add);
  const size_t sizes[] = {1, 6, 3000};
  for (int s = 0; s < (long_vectors ? 3 : 2); ++s) {
    user_reduction(comm, mat_i, mul_i, "2x2 int matrix product (non-commutative)", sizes[s], 4, false);
    user_reduction(comm, mat_d, mul_d, "2x2 double matrix product (non-commutative)", sizes[s], 4, true);
    user_reduction(comm, pair_i, add, "commutative user sum of int pairs", sizes[s], 2, false);
  }
  user_reduction(comm, triple, add, "commutative user sum of int triples", 5, 3, false);
  MPI_Op_free(&mul_i);
  MPI_Op_free(&mul_d);
  MPI_Op_free(&add);
  MPI_Type_free(&mat_i);
  MPI_Type_free(&mat_d);
  MPI_Type_free(&triple);
  MPI_Type_free(&pair_i);
}

/* ------------------------------------------------------------------------------------ */
/* Data movement                                                                         */
/* ------------------------------------------------------------------------------------ */

/* A send/receive datatype pair with the same type signature (n ints per element pair):
 * plain ints, a strided vector (gaps), a resized struct, or contiguous ints sent and
 * vectors received. */
struct layout {
  const char* name;
  MPI_Datatype send, recv;
  int send_per, recv_per;          /* elements per unit (a unit is two ints) */
  size_t send_extent, recv_extent; /* bytes per element */
};

static struct layout layouts[4];
static int nlayouts;
static MPI_Datatype vector_type, struct_type;

static size_t extent_of(MPI_Datatype t)
{
  MPI_Aint lb, ext;
  MPI_Type_get_extent(t, &lb, &ext);
  return (size_t)ext;
}

static void init_layouts(void)
{
  /* Two ints with a gap of one: size 8 bytes, extent 12. */
  MPI_Type_vector(2, 1, 2, MPI_INT, &vector_type);
  MPI_Type_commit(&vector_type);
  /* A struct {int; 4-byte gap; int} resized to 16 bytes. */
  int blocks[2] = {1, 1};
  MPI_Aint displs[2] = {0, 8};
  MPI_Datatype members[2] = {MPI_INT, MPI_INT}, s;
  MPI_Type_create_struct(2, blocks, displs, members, &s);
  MPI_Type_create_resized(s, 0, 16, &struct_type);
  MPI_Type_commit(&struct_type);
  MPI_Type_free(&s);
  const size_t v = extent_of(vector_type), st = extent_of(struct_type);
  layouts[nlayouts++] = (struct layout){"MPI_INT", MPI_INT, MPI_INT, 2, 2, sizeof(int), sizeof(int)};
  layouts[nlayouts++] = (struct layout){"strided vector", vector_type, vector_type, 1, 1, v, v};
  layouts[nlayouts++] = (struct layout){"resized struct", struct_type, struct_type, 1, 1, st, st};
  layouts[nlayouts++] = (struct layout){"MPI_INT sent, vectors received", MPI_INT, vector_type, 2, 1, sizeof(int), v};
}

/* A buffer of `bytes` bytes holding rank r's pattern. */
static char* pattern(size_t bytes, int r, int seed)
{
  char* p = xmalloc(bytes);
  for (size_t i = 0; i < bytes; ++i) p[i] = (char)((r * 31 + (int)i * 7 + seed) & 0x7f);
  return p;
}

/* Two equal receive buffers, a and b, filled with the same poison: what a collective
 * must not touch (gaps of a datatype, bytes between blocks) has to stay equal. */
struct pair {
  char* a;
  char* b;
  size_t bytes;
};

static struct pair pair_of(size_t bytes, int seed)
{
  struct pair q = {pattern(bytes, 99, seed), pattern(bytes, 99, seed), bytes};
  return q;
}

static void free_pair(struct pair q)
{
  free(q.a);
  free(q.b);
}

/* Sets both buffers to `from` (or the poison when null). */
static void reset(struct pair q, const char* from, size_t n)
{
  char* poison = pattern(q.bytes, 99, 1);
  memcpy(q.a, poison, q.bytes);
  if (from != NULL) memcpy(q.a, from, n);
  memcpy(q.b, q.a, q.bytes);
  free(poison);
}

static void data_movement(MPI_Comm comm, const struct layout* l, size_t units)
{
  int r, p;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &p);
  const size_t P = (size_t)p;
  const int sc = (int)units * l->send_per, rc = (int)units * l->recv_per;
  const size_t sbytes = (size_t)sc * l->send_extent, rbytes = (size_t)rc * l->recv_extent;
  const size_t bytes = (sbytes > rbytes ? sbytes : rbytes) * P;
  char* in = pattern(sbytes * P, r, 0);
  struct pair q = pair_of(bytes, 1);
  note("%s, %zu units, p=%d", l->name, units, p);

  for (int root = 0; root < p; root += p > 2 ? p / 2 : 1) {
    reset(q, r == root ? in : NULL, sbytes);
    BOTH(q.a, q.b, Bcast, X, r == root ? sc : rc, r == root ? l->send : l->recv, root, comm);
    same_bytes(q.a, q.b, bytes, "MPI_Bcast");

    reset(q, NULL, 0);
    BOTH(q.a, q.b, Scatter, in, sc, l->send, X, rc, l->recv, root, comm);
    same_bytes(q.a, q.b, bytes, "MPI_Scatter");
    /* In place: the root keeps its block in its send buffer. */
    reset(q, in, sbytes * P);
    const bool me = r == root;
    BOTH(q.a, q.b, Scatter, me ? X : NULL, sc, l->send, me ? MPI_IN_PLACE : X, rc, l->recv, root, comm);
    same_bytes(q.a, q.b, bytes, "MPI_Scatter in place");

    reset(q, NULL, 0);
    BOTH(q.a, q.b, Gather, in, sc, l->send, X, rc, l->recv, root, comm);
    same_bytes(q.a, q.b, bytes, "MPI_Gather");
    /* In place: the root's block is already in its receive buffer. */
    reset(q, in, sbytes * P);
    BOTH(q.a, q.b, Gather, me ? MPI_IN_PLACE : in, sc, l->send, X, rc, l->recv, root, comm);
    same_bytes(q.a, q.b, bytes, "MPI_Gather in place");
  }

  reset(q, NULL, 0);
  BOTH(q.a, q.b, Allgather, in, sc, l->send, X, rc, l->recv, comm);
  same_bytes(q.a, q.b, bytes, "MPI_Allgather");
  reset(q, in, sbytes * P);
  BOTH(q.a, q.b, Allgather, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, X, rc, l->recv, comm);
  same_bytes(q.a, q.b, bytes, "MPI_Allgather in place");

  reset(q, NULL, 0);
  BOTH(q.a, q.b, Alltoall, in, sc, l->send, X, rc, l->recv, comm);
  same_bytes(q.a, q.b, bytes, "MPI_Alltoall");
  reset(q, in, sbytes * P);
  BOTH(q.a, q.b, Alltoall, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, X, rc, l->recv, comm);
  same_bytes(q.a, q.b, bytes, "MPI_Alltoall in place");
  free_pair(q);
  free(in);

  /* The v-variants. Blocks of 0 to 2 units, in an order and with gaps (one element)
   * that differ from the plain ones. */
  int* scounts = xmalloc(sizeof(int) * P);
  int* sdispls = xmalloc(sizeof(int) * P);
  int* rcounts = xmalloc(sizeof(int) * P);
  int* rdispls = xmalloc(sizeof(int) * P);
  const size_t vsend = (size_t)(2 * (int)units + 1) * (size_t)l->send_per * l->send_extent * P;
  const size_t vrecv = (size_t)(2 * (int)units + 1) * (size_t)l->recv_per * l->recv_extent * P;
  char* vin = pattern(vsend, r, 3);
  struct pair v = pair_of(vrecv, 2);
#define UNITS(n, per) ((n) * (int)units * (per))

  /* Allgatherv: rank j contributes (j % 3) units, received in reverse rank order. */
  for (int j = p - 1, at = 0; j >= 0; --j) {
    rcounts[j] = UNITS(j % 3, l->recv_per);
    rdispls[j] = at;
    at += rcounts[j] + 1;
  }
  BOTH(v.a, v.b, Allgatherv, vin, UNITS(r % 3, l->send_per), l->send, X, rcounts, rdispls, l->recv, comm);
  same_bytes(v.a, v.b, vrecv, "MPI_Allgatherv");
  BOTH(v.a, v.b, Allgatherv, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, X, rcounts, rdispls, l->recv, comm);
  same_bytes(v.a, v.b, vrecv, "MPI_Allgatherv in place");
  /* Equal counts: the allgather schedules (in rank order, then reversed). */
  for (int order = 0; order < 2; ++order) {
    for (int j = 0; j < p; ++j) {
      rcounts[j] = UNITS(1, l->recv_per);
      rdispls[j] = (order == 0 ? j : p - 1 - j) * rcounts[j];
    }
    BOTH(v.a, v.b, Allgatherv, vin, UNITS(1, l->send_per), l->send, X, rcounts, rdispls, l->recv, comm);
    same_bytes(v.a, v.b, vrecv, order == 0 ? "MPI_Allgatherv, equal counts" : "MPI_Allgatherv, equal counts reversed");
  }

  /* Alltoallv: r sends (r + j) % 3 units to j (symmetric, as in place needs). */
  for (int j = 0, at = 0; j < p; ++j) {
    scounts[j] = UNITS((r + j) % 3, l->send_per);
    sdispls[j] = at;
    at += scounts[j] + 1;
  }
  for (int j = p - 1, at = 0; j >= 0; --j) {
    rcounts[j] = UNITS((r + j) % 3, l->recv_per);
    rdispls[j] = at;
    at += rcounts[j] + 1;
  }
  BOTH(v.a, v.b, Alltoallv, vin, scounts, sdispls, l->send, X, rcounts, rdispls, l->recv, comm);
  same_bytes(v.a, v.b, vrecv, "MPI_Alltoallv");
  BOTH(v.a, v.b, Alltoallv, MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, X, rcounts, rdispls, l->recv, comm);
  same_bytes(v.a, v.b, vrecv, "MPI_Alltoallv in place");

  /* Gatherv and Scatterv (forwarded by the shim): rank j's block is 1 + j % 2 units. */
  for (int j = 0; j < p; ++j) {
    rcounts[j] = UNITS(1 + j % 2, l->recv_per);
    rdispls[j] = UNITS(2 * j, l->recv_per);
    scounts[j] = UNITS(1 + j % 2, l->send_per);
    sdispls[j] = UNITS(2 * j, l->send_per);
  }
  BOTH(v.a, v.b, Gatherv, vin, scounts[r], l->send, X, rcounts, rdispls, l->recv, p - 1, comm);
  same_bytes(v.a, v.b, vrecv, "MPI_Gatherv");
  BOTH(v.a, v.b, Scatterv, vin, scounts, sdispls, l->send, X, rcounts[r], l->recv, 0, comm);
  same_bytes(v.a, v.b, vrecv, "MPI_Scatterv");
#undef UNITS
  free_pair(v);
  free(vin);
  free(scounts);
  free(sdispls);
  free(rcounts);
  free(rdispls);
}

/* Every call with nothing to move: must return at once on every rank, touching nothing. */
static void zero_counts(MPI_Comm comm)
{
  int p;
  MPI_Comm_size(comm, &p);
  note("zero counts, p=%d", p);
  int x = 7, y = 7;
  int* zeros = xmalloc(sizeof(int) * (size_t)p);
  MPI_Bcast(&x, 0, MPI_INT, 0, comm);
  MPI_Allreduce(&x, &y, 0, MPI_INT, MPI_SUM, comm);
  MPI_Reduce(&x, &y, 0, MPI_INT, MPI_SUM, 0, comm);
  MPI_Scan(&x, &y, 0, MPI_INT, MPI_SUM, comm);
  MPI_Exscan(&x, &y, 0, MPI_INT, MPI_SUM, comm);
  MPI_Reduce_scatter_block(&x, &y, 0, MPI_INT, MPI_SUM, comm);
  MPI_Reduce_scatter(&x, &y, zeros, MPI_INT, MPI_SUM, comm);
  MPI_Allgather(&x, 0, MPI_INT, &y, 0, MPI_INT, comm);
  MPI_Allgatherv(&x, 0, MPI_INT, &y, zeros, zeros, MPI_INT, comm);
  MPI_Alltoall(&x, 0, MPI_INT, &y, 0, MPI_INT, comm);
  MPI_Alltoallv(&x, zeros, zeros, MPI_INT, &y, zeros, zeros, MPI_INT, comm);
  MPI_Gather(&x, 0, MPI_INT, &y, 0, MPI_INT, 0, comm);
  MPI_Scatter(&x, 0, MPI_INT, &y, 0, MPI_INT, 0, comm);
  if (x != 7 || y != 7) fail("a call with count 0 wrote into a buffer");
  free(zeros);
}

/* Long messages: the algorithms' long-message paths and the transport's chunking (run
 * with COLLECTIVES_PMPI_MAX_MESSAGE_BYTES small). */
static void long_messages(MPI_Comm comm, bool brief)
{
  const size_t n = brief ? 2000 : 20000;
  for (int t = 0; t < ntypes; ++t) {
    if (types[t].type == MPI_DOUBLE) reductions(comm, &types[t], MPI_SUM, "MPI_SUM", n, false, true);
    if (brief) continue;
    if (types[t].type == MPI_INT) reductions(comm, &types[t], MPI_MAX, "MPI_MAX", n, false, false);
    if (types[t].type == MPI_DOUBLE_INT) reductions(comm, &types[t], MPI_MAXLOC, "MPI_MAXLOC", n / 4, false, true);
    if (types[t].type == MPI_C_DOUBLE_COMPLEX) reductions(comm, &types[t], MPI_PROD, "MPI_PROD", n / 8, true, false);
  }
  data_movement(comm, &layouts[0], n / 4);
  data_movement(comm, &layouts[1], n / 30);
}

/* A subset on another communicator: enough to run every collective on its topology. */
static void on_communicator(MPI_Comm comm, const char* what)
{
  int p;
  MPI_Comm_size(comm, &p);
  for (int t = 0; t < ntypes; ++t)
    if (types[t].type == MPI_INT || types[t].type == MPI_DOUBLE_INT)
      for (int o = 0; o < 12; ++o)
        if ((o == 2 || o == 10) && defined(o, types[t].group)) reductions(comm, &types[t], ops[o].op, ops[o].name, 9, false, true);
  user_reductions(comm, false);
  data_movement(comm, &layouts[0], 2);
  data_movement(comm, &layouts[3], 1);
  zero_counts(comm);
  note("%s: MPI_Barrier", what);
  MPI_Barrier(comm);
}

static void cartesian(void)
{
  for (int ndims = 1; ndims <= 3; ++ndims)
    for (int wrap = 0; wrap < 3; ++wrap) { /* none, all, only the first dimension */
      int dims[3] = {0, 0, 0}, periods[3];
      MPI_Dims_create(size, ndims, dims);
      for (int d = 0; d < ndims; ++d) periods[d] = wrap == 1 || (wrap == 2 && d == 0);
      MPI_Comm cart;
      MPI_Cart_create(MPI_COMM_WORLD, ndims, dims, periods, 0, &cart);
      char what[80];
      snprintf(what, sizeof what, "Cartesian %dx%dx%d periods %d%d%d", dims[0], ndims > 1 ? dims[1] : 1,
               ndims > 2 ? dims[2] : 1, periods[0], ndims > 1 ? periods[1] : 1, ndims > 2 ? periods[2] : 1);
      on_communicator(cart, what);
      MPI_Comm_free(&cart);
    }
}

static void split_and_dup(void)
{
  /* Two halves, ranked in reverse order of the world's. */
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &half);
  on_communicator(half, "MPI_Comm_split");
  /* An inter-communicator between the halves: forwarded by the shim. */
  if (size >= 2) {
    MPI_Comm inter;
    /* The other half's leader (its rank 0): its highest world rank, by the split's keys. */
    const int other = 1 - rank % 2;
    const int leader = (size - 1) % 2 == other ? size - 1 : size - 2;
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, leader, 7, &inter);
    int x[3] = {rank, rank * 2, -rank}, a[3], b[3];
    note("inter-communicator");
    BOTH(a, b, Allreduce, x, X, 3, MPI_INT, MPI_SUM, inter);
    same_bytes(a, b, sizeof a, "MPI_Allreduce");
    MPI_Barrier(inter);
    MPI_Comm_free(&inter);
  }
  MPI_Comm_free(&half);
  /* Duplicates freed and made again: each gets the shim's state afresh. */
  for (int i = 0; i < 3; ++i) {
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    double x = rank + i, a = 0, b = 0;
    note("duplicate %d", i);
    BOTH(&a, &b, Allreduce, &x, X, 1, MPI_DOUBLE, MPI_SUM, dup);
    same_bytes(&a, &b, sizeof a, "MPI_Allreduce");
    MPI_Comm_free(&dup);
  }
  on_communicator(MPI_COMM_SELF, "MPI_COMM_SELF");
}

int main(int argc, char** argv)
{
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const bool quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
  const bool brief = argc > 1 && strcmp(argv[1], "--brief") == 0;
  init_types();
  init_ops();
  init_layouts();

  double t0 = MPI_Wtime();
#define SECTION(name)                                                                            \
  if (getenv("CHECK_TIME") != NULL && rank == 0) fprintf(stderr, "check: %-12s %.2f s\n", name, MPI_Wtime() - t0); \
  t0 = MPI_Wtime()
  if (brief)
    on_communicator(MPI_COMM_WORLD, "MPI_COMM_WORLD");
  else
    for (int t = 0; t < ntypes; ++t)
      for (int o = 0; o < 12; ++o)
        if (defined(o, types[t].group))
          reductions(MPI_COMM_WORLD, &types[t], ops[o].op, ops[o].name, 5, o == 3, !quick || o == 2);
  SECTION("matrix");
  pair_padding(MPI_COMM_WORLD);
  user_reductions(MPI_COMM_WORLD, true);
  SECTION("user ops");
  for (int l = 0; l < nlayouts; ++l) {
    data_movement(MPI_COMM_WORLD, &layouts[l], 1);
    data_movement(MPI_COMM_WORLD, &layouts[l], 3);
  }
  SECTION("data");
  zero_counts(MPI_COMM_WORLD);
  long_messages(MPI_COMM_WORLD, brief);
  SECTION("long");
  if (!brief) cartesian();
  SECTION("cartesian");
  split_and_dup();
  SECTION("split");
  MPI_Barrier(MPI_COMM_WORLD);

  MPI_Type_free(&vector_type);
  MPI_Type_free(&struct_type);
  int any = 0;
  PMPI_Allreduce(&failures, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) printf("check: %s (%d ranks)\n", any ? "FAILED" : "every result equals Open MPI's", size);
  MPI_Finalize();
  return any ? 1 : 0;
}
