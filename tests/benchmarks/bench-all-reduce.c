/* bench-all-reduce.c: all-reduce bandwidth by size, cugi beside NCCL called
 * directly, in one run on the same ranks and GPUs:
 *  - raw: ncclAllReduce() on a communicator of NCCL's first, blocking
 *    interface (ncclCommInitRank; NCCL opened here with GModule, as
 *    CUGI_LIBNCCL or libnccl.so.2), on a stream of cuStreamCreateWithPriority()
 *    and memory of cuMemAlloc() (the driver's entry points that cugi
 *    loaded, called straight, as bench-launch does);
 *  - cugi: cugi_communicator_all_reduce() on a communicator of
 *    cugi_communicator_new_async(), a CugiStream and a CugiBuffer, waited
 *    for with cugi_stream_synchronize().
 * For each size from 8 B to 1 GiB (powers of 4, and the largest), float32
 * sums in place: each side is checked once (every rank's elements are its
 * rank + 1, the sum n(n + 1)/2), warmed up with a run, then timed in
 * REPETITIONS runs, the sides interleaved and taking turns going first; a
 * run is one all-reduce that lines the ranks up, then enough all-reduces
 * to move RUN_BYTES (from MIN_ITERATIONS to MAX_ITERATIONS), timed by the
 * wall clock until the stream is synchronized, so that what the host
 * spends enqueuing counts where it is the bound. Prints, per size and
 * side, the median time of an all-reduce, its algorithm bandwidth (bytes /
 * time) and bus bandwidth (algorithm bandwidth × 2(n − 1)/n, what each
 * rank's links carry in a ring, comparable across numbers of ranks; 0 for
 * one rank), and the ratio cugi/raw of the bandwidths. Never fails on
 * speed.
 *
 *   bench-all-reduce [--ranks N] [--min-size BYTES] [--max-size BYTES]
 *                    [--smoke] [--json FILE]
 *
 * --ranks N: this process is rank 0, on GPU 0, and starts N − 1 more,
 * rank r on GPU r (examples/c/launch-ranks.c), handing out both
 * communicators' unique ids in their environment. --smoke: sizes up to
 * 64 KiB, one short run each (the stand-in driver and NCCL's test, which
 * runs the code and checks the sums). --json FILE writes a record per size
 * and side: {"bench": "all-reduce", "impl": "raw|cugi", "ranks", "size",
 * "iterations", "us", "algbw_gbps", "busbw_gbps"} (GB/s are 1e9 bytes a
 * second). Exits 77 without a GPU or NCCL. */
#include "config.h"

#include <locale.h>
#include <string.h>

#include <gmodule.h>

#include "cugi-context-private.h"
#include "cugi-private.h"
#include "bench-json.h"
#include "bench-util.h"
#include "launch-ranks.h"

#define REPETITIONS 5
#define MIN_SIZE ((gsize) 8)
#define MAX_SIZE ((gsize) 1 << 30)
#define SMOKE_MAX_SIZE ((gsize) 64 << 10)
#define RUN_BYTES ((gsize) 1 << 30)
#define MIN_ITERATIONS 10
#define MAX_ITERATIONS 1000
#define SMOKE_ITERATIONS 2
/* What the check downloads of each size, at most. */
#define CHECK_BYTES ((gsize) 4 << 20)
#define UNIQUE_ID_VARIABLE "CUGI_UNIQUE_ID"
#define RAW_UNIQUE_ID_VARIABLE "CUGI_BENCH_RAW_UNIQUE_ID"

/* ncclDataType_t and ncclRedOp_t have CugiDataType's and CugiReduceOp's
 * values (cugi-communicator-ops.c asserts it). */
#define RAW_FLOAT32 ((ncclDataType_t) CUGI_DATA_TYPE_FLOAT32)
#define RAW_SUM ((ncclRedOp_t) CUGI_REDUCE_OP_SUM)

/* NCCL's entry points the raw side calls, with cugi-nccl.h's types. */
typedef struct
{
  GModule      *module;
  ncclResult_t (*get_version)      (int *version);
  ncclResult_t (*get_unique_id)    (ncclUniqueId *unique_id);
  ncclResult_t (*comm_init_rank)   (ncclComm_t *comm, int n_ranks, ncclUniqueId unique_id, int rank);
  ncclResult_t (*comm_destroy)     (ncclComm_t comm);
  ncclResult_t (*all_reduce)       (const void *send, void *recv, size_t count, ncclDataType_t type,
                                    ncclRedOp_t op, ncclComm_t comm, CUstream stream);
  const char  *(*get_error_string) (ncclResult_t result);
} RawNccl;

static RawNccl raw_nccl;

static gboolean
raw_nccl_open (GError **error)
{
  const char *path = g_getenv ("CUGI_LIBNCCL");
  const struct
  {
    const char *name;
    gpointer   *function;
  } symbols[] = {
    { "ncclGetVersion", (gpointer *) &raw_nccl.get_version },
    { "ncclGetUniqueId", (gpointer *) &raw_nccl.get_unique_id },
    { "ncclCommInitRank", (gpointer *) &raw_nccl.comm_init_rank },
    { "ncclCommDestroy", (gpointer *) &raw_nccl.comm_destroy },
    { "ncclAllReduce", (gpointer *) &raw_nccl.all_reduce },
    { "ncclGetErrorString", (gpointer *) &raw_nccl.get_error_string },
  };

  raw_nccl.module = g_module_open (path != NULL ? path : "libnccl.so.2", G_MODULE_BIND_LAZY | G_MODULE_BIND_LOCAL);
  if (raw_nccl.module == NULL)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_NOT_AVAILABLE, "NCCL cannot be opened: %s", g_module_error ());
      return FALSE;
    }
  for (gsize i = 0; i < G_N_ELEMENTS (symbols); i++)
    if (!g_module_symbol (raw_nccl.module, symbols[i].name, symbols[i].function))
      {
        g_set_error (error, CUGI_ERROR, CUGI_ERROR_NOT_AVAILABLE, "NCCL has no %s", symbols[i].name);
        return FALSE;
      }
  return TRUE;
}

static void
check_nccl (ncclResult_t result,
            const char  *what)
{
  if (G_UNLIKELY (result != ncclSuccess))
    g_error ("%s failed: %s (NCCL error %d)", what, raw_nccl.get_error_string (result), (int) result);
}

typedef enum { RAW, CUGI, N_SIDES } Side;

static const char *side_names[] = { "raw", "cugi" };

typedef struct
{
  int         n_ranks;
  gint64      min_size;
  gint64      max_size;
  gboolean    smoke;
} Options;

typedef struct
{
  int               rank;
  int               n_ranks;
  CugiDevice       *device;
  CugiContext      *context;
  CugiContextScope  scope;
  /* cugi's side */
  CugiCommunicator *communicator;
  CugiStream       *stream;
  CugiBuffer       *buffer;
  /* the raw side */
  ncclComm_t        raw_comm;
  CUstream          raw_stream;
  CUdeviceptr       raw_buffer;
} Bench;

static void
all_reduce (Bench *bench,
            Side   side,
            gsize  count)
{
  GError *error = NULL;

  if (side == RAW)
    check_nccl (raw_nccl.all_reduce ((const void *) bench->raw_buffer, (void *) bench->raw_buffer, count,
                                     RAW_FLOAT32, RAW_SUM, bench->raw_comm, bench->raw_stream),
                "ncclAllReduce");
  else
    check_error (cugi_communicator_all_reduce (bench->communicator, bench->buffer, bench->buffer, count,
                                               CUGI_DATA_TYPE_FLOAT32, CUGI_REDUCE_OP_SUM, bench->stream, &error),
                 error);
}

static void
synchronize (Bench *bench,
             Side   side)
{
  GError *error = NULL;

  if (side == RAW)
    check (cugi_cuda.cuStreamSynchronize (bench->raw_stream), "cuStreamSynchronize");
  else
    check_error (cugi_stream_synchronize (bench->stream, &error), error);
}

/* Sets @count elements of the side's buffer to @value, in stream order. */
static void
fill (Bench *bench,
      Side   side,
      float  value,
      gsize  count)
{
  GError *error = NULL;
  guint32 bits;

  memcpy (&bits, &value, sizeof bits);
  if (side == RAW)
    check (cugi_cuda.cuMemsetD32Async (bench->raw_buffer, bits, count, bench->raw_stream), "cuMemsetD32Async");
  else
    check_error (cugi_buffer_memset_d32 (bench->buffer, 0, bits, count, bench->stream, &error), error);
}

/* All-reduces every rank's rank + 1 and checks the sum in the first
 * CHECK_BYTES; then zeroes the elements, which the timed sums keep. */
static gboolean
check_side (Bench *bench,
            Side   side,
            gsize  count)
{
  gsize checked = MIN (count, CHECK_BYTES / sizeof (float));
  g_autofree float *sums = g_new (float, checked);
  float expected = bench->n_ranks * (bench->n_ranks + 1) / 2.0f;
  GError *error = NULL;

  fill (bench, side, bench->rank + 1.0f, count);
  all_reduce (bench, side, count);
  synchronize (bench, side);
  if (side == RAW)
    check (cugi_cuda.cuMemcpyDtoH (sums, bench->raw_buffer, checked * sizeof (float)), "cuMemcpyDtoH");
  else
    check_error (cugi_buffer_download_to_address (bench->buffer, 0, (guint64) (guintptr) sums,
                                                  checked * sizeof (float), &error),
                 error);
  for (gsize i = 0; i < checked; i++)
    if (sums[i] != expected)
      {
        g_printerr ("bench-all-reduce: rank %d, %s, %" G_GSIZE_FORMAT " elements: element %" G_GSIZE_FORMAT
                    " is %g, not %g\n", bench->rank, side_names[side], count, i, sums[i], expected);
        return FALSE;
      }
  fill (bench, side, 0.0f, count);
  synchronize (bench, side);
  return TRUE;
}

/* Microseconds per all-reduce of @count elements over @iterations. */
static double
run_us (Bench *bench,
        Side   side,
        gsize  count,
        guint  iterations)
{
  gint64 start;

  /* The first waits for the slowest rank: the clock starts once all are
   * there. */
  all_reduce (bench, side, count);
  synchronize (bench, side);
  start = g_get_monotonic_time ();
  for (guint i = 0; i < iterations; i++)
    all_reduce (bench, side, count);
  synchronize (bench, side);
  return (double) MAX (g_get_monotonic_time () - start, 1) / iterations;
}

static guint
iterations_for (gsize           size,
                const Options  *options)
{
  if (options->smoke)
    return SMOKE_ITERATIONS;
  return (guint) CLAMP (RUN_BYTES / size, (gsize) MIN_ITERATIONS, (gsize) MAX_ITERATIONS);
}

static void
print_row (gsize        size,
           guint        iterations,
           int          n_ranks,
           const double us[N_SIDES])
{
  g_autofree char *size_text = g_format_size_full (size, G_FORMAT_SIZE_IEC_UNITS);
  double bus_factor = 2.0 * (n_ranks - 1) / n_ranks;

  g_print ("%10s %6u", size_text, iterations);
  for (int side = 0; side < N_SIDES; side++)
    {
      double algbw = size / (us[side] * 1e3);

      g_print (" | %10.2f %8.2f %8.2f", us[side], algbw, algbw * bus_factor);
    }
  g_print (" | %8.3f\n", us[RAW] / us[CUGI]);
}

static void
record (BenchJson   *json,
        Side         side,
        gsize        size,
        guint        iterations,
        int          n_ranks,
        double       us)
{
  double algbw = size / (us * 1e3);

  bench_json_record (json, "all-reduce", "impl", side_names[side], NULL);
  bench_json_number (json, "ranks", n_ranks);
  bench_json_number (json, "size", size);
  bench_json_number (json, "iterations", iterations);
  bench_json_number (json, "us", us);
  bench_json_number (json, "algbw_gbps", algbw);
  bench_json_number (json, "busbw_gbps", algbw * 2.0 * (n_ranks - 1) / n_ranks);
}

/* Checks and times both sides at every size; FALSE when a sum was wrong
 * (the run goes on all the same: the other ranks wait for this one). */
static gboolean
measure (Bench         *bench,
         const Options *options,
         BenchJson     *json)
{
  guint repetitions = options->smoke ? 1 : REPETITIONS;
  gboolean right = TRUE;

  for (gsize size = options->min_size;; size = MIN (size * 4, (gsize) options->max_size))
    {
      gsize count = size / sizeof (float);
      guint iterations = iterations_for (size, options);
      double samples[N_SIDES][REPETITIONS];
      double us[N_SIDES];

      for (int side = 0; side < N_SIDES; side++)
        {
          right &= check_side (bench, side, count);
          run_us (bench, side, count, iterations);
        }
      for (guint rep = 0; rep < repetitions; rep++)
        for (int i = 0; i < N_SIDES; i++)
          {
            /* Each repetition starts with another side. */
            int side = (i + rep) % N_SIDES;

            samples[side][rep] = run_us (bench, side, count, iterations);
          }
      for (int side = 0; side < N_SIDES; side++)
        {
          us[side] = bench_median (samples[side], repetitions);
          if (bench->rank == 0)
            record (json, side, size, iterations, bench->n_ranks, us[side]);
        }
      if (bench->rank == 0)
        print_row (size, iterations, bench->n_ranks, us);
      if (size == (gsize) options->max_size)
        return right;
    }
}

typedef struct
{
  Bench   *bench;
  gboolean done;
  GError  *error;
} Connection;

static void
connected (GObject      *source,
           GAsyncResult *result,
           gpointer      data)
{
  Connection *connection = data;

  connection->bench->communicator = cugi_communicator_new_finish (result, &connection->error);
  connection->done = TRUE;
}

/* Both communicators, cugi's first (from the main loop, where the ranks
 * are watched: cancelled when another fails), then the raw one (blocking
 * until all joined). */
static gboolean
connect_ranks (Bench         *bench,
               GBytes        *unique_id,
               ncclUniqueId  *raw_unique_id,
               GCancellable  *cancellable,
               GError       **error)
{
  Connection connection = { bench, FALSE, NULL };

  cugi_communicator_new_async (bench->context, unique_id, bench->n_ranks, bench->rank, cancellable, connected,
                               &connection);
  while (!connection.done)
    g_main_context_iteration (NULL, TRUE);
  if (bench->communicator == NULL)
    {
      g_propagate_prefixed_error (error, connection.error, "rank %d, connecting: ", bench->rank);
      return FALSE;
    }
  check_nccl (raw_nccl.comm_init_rank (&bench->raw_comm, bench->n_ranks, *raw_unique_id, bench->rank),
              "ncclCommInitRank");
  return TRUE;
}

static gboolean
set_up (Bench    *bench,
        gsize     size,
        GError  **error)
{
  if ((bench->device = cugi_device_get (bench->rank, error)) == NULL ||
      (bench->context = cugi_device_get_primary_context (bench->device, error)) == NULL ||
      /* The raw calls need the context current, as cugi's make it. */
      !cugi_context_enter (bench->context, &bench->scope, error) ||
      (bench->stream = cugi_stream_new (bench->context, CUGI_STREAM_FLAGS_NON_BLOCKING, 0, error)) == NULL ||
      (bench->buffer = cugi_buffer_new (bench->context, size, error)) == NULL)
    return FALSE;
  check (cugi_cuda.cuStreamCreateWithPriority (&bench->raw_stream, CU_STREAM_NON_BLOCKING, 0),
         "cuStreamCreateWithPriority");
  check (cugi_cuda.cuMemAlloc (&bench->raw_buffer, size), "cuMemAlloc");
  return TRUE;
}

static void
tear_down (Bench *bench)
{
  g_autoptr(GError) error = NULL;

  if (bench->communicator != NULL && !cugi_communicator_close (bench->communicator, NULL, &error))
    g_printerr ("bench-all-reduce: rank %d: %s\n", bench->rank, error->message);
  g_clear_object (&bench->communicator);
  if (bench->raw_comm != NULL)
    check_nccl (raw_nccl.comm_destroy (bench->raw_comm), "ncclCommDestroy");
  if (bench->raw_buffer != 0)
    check (cugi_cuda.cuMemFree (bench->raw_buffer), "cuMemFree");
  if (bench->raw_stream != NULL)
    check (cugi_cuda.cuStreamDestroy (bench->raw_stream), "cuStreamDestroy");
  g_clear_object (&bench->buffer);
  g_clear_object (&bench->stream);
  cugi_context_leave (&bench->scope);
  g_clear_object (&bench->context);
  g_clear_object (&bench->device);
}

/* The ids rank 0 hands out, as environment strings (NULL-terminated). */
static char **
make_unique_ids (GBytes        **unique_id,
                 ncclUniqueId   *raw_unique_id,
                 GError        **error)
{
  g_autofree char *text = NULL;
  g_autofree char *raw_text = NULL;
  char **environment;

  if ((*unique_id = cugi_communicator_new_unique_id (error)) == NULL ||
      (text = cugi_communicator_unique_id_to_string (*unique_id, error)) == NULL)
    return NULL;
  check_nccl (raw_nccl.get_unique_id (raw_unique_id), "ncclGetUniqueId");
  raw_text = g_base64_encode ((const guchar *) raw_unique_id, sizeof *raw_unique_id);
  environment = g_new0 (char *, 3);
  environment[0] = g_strconcat (UNIQUE_ID_VARIABLE "=", text, NULL);
  environment[1] = g_strconcat (RAW_UNIQUE_ID_VARIABLE "=", raw_text, NULL);
  return environment;
}

/* The ids of rank 0's make_unique_ids(), in a rank's environment. */
static gboolean
find_unique_ids (GBytes        **unique_id,
                 ncclUniqueId   *raw_unique_id,
                 GError        **error)
{
  const char *text = g_getenv (UNIQUE_ID_VARIABLE);
  const char *raw_text = g_getenv (RAW_UNIQUE_ID_VARIABLE);
  g_autofree guchar *raw = NULL;
  gsize raw_size = 0;

  if (text == NULL || raw_text == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "a rank needs %s and %s", UNIQUE_ID_VARIABLE,
                   RAW_UNIQUE_ID_VARIABLE);
      return FALSE;
    }
  if ((*unique_id = cugi_communicator_unique_id_from_string (text, error)) == NULL)
    return FALSE;
  raw = g_base64_decode (raw_text, &raw_size);
  if (raw_size != sizeof *raw_unique_id)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "%s is not an NCCL unique id in base64",
                   RAW_UNIQUE_ID_VARIABLE);
      return FALSE;
    }
  memcpy (raw_unique_id, raw, sizeof *raw_unique_id);
  return TRUE;
}

/* The arguments every rank runs with: the same sizes as rank 0's. */
static GStrv
rank_arguments (const char    *program,
                const Options *options)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_autofree char *min_size = g_strdup_printf ("%" G_GINT64_FORMAT, options->min_size);
  g_autofree char *max_size = g_strdup_printf ("%" G_GINT64_FORMAT, options->max_size);

  g_strv_builder_add_many (builder, program, "--min-size", min_size, "--max-size", max_size, NULL);
  if (options->smoke)
    g_strv_builder_add (builder, "--smoke");
  return g_strv_builder_end (builder);
}

/* The exit status; @error set where it is a failure to report. */
static int
run (Options     *options,
     const char  *argv0,
     BenchJson   *json,
     GError     **error)
{
  g_autoptr(GBytes) unique_id = NULL;
  g_auto(GStrv) environment = NULL;
  g_autoptr(Ranks) ranks = NULL;
  ncclUniqueId raw_unique_id;
  Bench bench = { 0 };
  int n_devices, version = 0, status;

  if (!cugi_init (error) || (n_devices = cugi_device_get_count (error)) == 0 || !raw_nccl_open (error))
    return -1;
  if (!ranks_find_own (&bench.rank, &bench.n_ranks, error))
    {
      if (*error != NULL)
        return -1;
      bench.n_ranks = options->n_ranks;
      if ((environment = make_unique_ids (&unique_id, &raw_unique_id, error)) == NULL)
        return -1;
    }
  else if (!find_unique_ids (&unique_id, &raw_unique_id, error))
    return -1;
  if (bench.n_ranks > n_devices)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "%d ranks need as many GPUs (one rank a GPU); this machine has %d", bench.n_ranks, n_devices);
      return 2;
    }
  if (environment != NULL && bench.n_ranks > 1)
    {
      g_autofree char *program = ranks_get_program (argv0);
      g_auto(GStrv) arguments = rank_arguments (program, options);

      if ((ranks = ranks_spawn ((const char * const *) arguments, 1, bench.n_ranks,
                                (const char * const *) environment, error)) == NULL)
        return -1;
    }

  if (!set_up (&bench, options->max_size, error) ||
      !connect_ranks (&bench, unique_id, &raw_unique_id, ranks != NULL ? ranks_get_cancellable (ranks) : NULL,
                      error))
    {
      tear_down (&bench);
      return ranks != NULL ? ranks_wait (ranks, 1) : -1;
    }
  if (bench.rank == 0)
    {
      raw_nccl.get_version (&version);
      g_print ("bench-all-reduce on %s, %d rank%s (NCCL %d): float32 sums in place, medians of %d runs;\n"
               "time of an all-reduce (us), algorithm and bus bandwidth (GB/s), cugi/raw of the bandwidths\n",
               cugi_device_get_name (bench.device), bench.n_ranks, bench.n_ranks > 1 ? "s" : "", version,
               options->smoke ? 1 : REPETITIONS);
      g_print ("%10s %6s | %10s %8s %8s | %10s %8s %8s | %8s\n", "size", "iters", "raw us", "algbw", "busbw",
               "cugi us", "algbw", "busbw", "cugi/raw");
    }
  status = measure (&bench, options, json) ? 0 : 1;
  tear_down (&bench);
  return ranks != NULL ? ranks_wait (ranks, status) : status;
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(GError) error = NULL;
  BenchJson *json = bench_json_new (&argc, argv);
  Options options = { .n_ranks = 1, .min_size = MIN_SIZE, .max_size = 0 };
  GOptionEntry entries[] = {
    { "ranks", 0, 0, G_OPTION_ARG_INT, &options.n_ranks, "Run N ranks, one a GPU (default 1)", "N" },
    { "min-size", 0, 0, G_OPTION_ARG_INT64, &options.min_size, "The smallest size (default 8)", "BYTES" },
    { "max-size", 0, 0, G_OPTION_ARG_INT64, &options.max_size, "The largest size (default 1 GiB)", "BYTES" },
    { "smoke", 0, 0, G_OPTION_ARG_NONE, &options.smoke, "Sizes up to 64 KiB, one short run each", NULL },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr(GOptionContext) context = g_option_context_new (NULL);
  int status;

  setlocale (LC_ALL, "C.UTF-8");
  g_option_context_set_summary (context, "All-reduce bandwidth by size, cugi beside NCCL called directly.\n"
                                         "--json FILE writes the figures as JSON records.");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("bench-all-reduce: %s\n", error->message);
      return 2;
    }
  if (options.max_size == 0)
    options.max_size = options.smoke ? SMOKE_MAX_SIZE : MAX_SIZE;
  if (options.n_ranks < 1 || options.min_size < (gint64) sizeof (float) || options.min_size % sizeof (float) ||
      options.max_size < options.min_size || options.max_size % sizeof (float))
    {
      g_printerr ("bench-all-reduce: --ranks takes a number from 1; --min-size and --max-size sizes in bytes, "
                  "multiples of 4 (float32 elements), the largest not below the smallest\n");
      return 2;
    }

  status = run (&options, argv[0], json, &error);
  if (status >= 0 && error == NULL)
    {
      if (status == 0)
        bench_json_finish (json);
      return status;
    }
  if (g_error_matches (error, CUGI_ERROR, CUGI_ERROR_NOT_AVAILABLE))
    {
      g_print ("bench-all-reduce: no GPU or no NCCL usable: %s\n", error->message);
      return RANKS_EXIT_SKIPPED;
    }
  g_printerr ("bench-all-reduce: %s\n", error->message);
  return status >= 0 ? status : 1;
}
