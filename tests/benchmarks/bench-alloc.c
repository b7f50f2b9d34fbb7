/* bench-alloc.c: allocating and freeing 1 MiB of device memory, per pair,
 * beside the raw driver API: cuMemAlloc + cuMemFree, cuMemAllocAsync +
 * cuMemFreeAsync, a CugiMemoryPool's allocate and drop, and the
 * stream-ordered allocations (cugi_buffer_new_on_stream() and a
 * CugiStreamOrderedPool's allocate, each dropped). Prints nanoseconds per
 * pair and the ratios to the raw calls; `--json FILE` writes the figures as
 * records {"bench": "alloc", "impl": ..., "us": ...}. Needs a GPU (exits 77
 * without one).
 *
 * Built a second time as bench-alloc-cpu, against the stand-in driver
 * (fake-cuda-streams, and a cuMemAlloc/cuMemFree over malloc installed
 * here), so that cugi's own cost can be measured, and counted under
 * callgrind, without a GPU:
 *   valgrind --tool=callgrind --callgrind-out-file=cg.out bench-alloc-cpu --rounds 1
 *   callgrind_annotate --inclusive=yes cg.out | grep pair_
 * Optional: --rounds N (default 7). */
#include "config.h"

#include <locale.h>
#include <stdlib.h>

#include "cugi-context-private.h"
#include "cugi-stream-private.h"
#include "cugi-private.h"
#include "bench-json.h"
#include "bench-util.h"

#define SIZE ((gsize) 1 << 20)
#define PAIRS 20000
#define SYNC_EVERY 256

typedef struct
{
  CugiContext           *context;
  CugiStream            *stream;
  CugiMemoryPool        *pool;
  CugiStreamOrderedPool *ordered_pool;
} Bench;

static void
pair_raw (Bench *bench)
{
  CUdeviceptr address;

  if (cugi_cuda.cuMemAlloc (&address, SIZE) != CUDA_SUCCESS || cugi_cuda.cuMemFree (address) != CUDA_SUCCESS)
    g_error ("cuMemAlloc or cuMemFree failed");
}

static void
pair_raw_async (Bench *bench)
{
  CUstream stream = cugi_stream_get_handle (bench->stream);
  CUdeviceptr address;

  if (cugi_cuda.cuMemAllocAsync (&address, SIZE, stream) != CUDA_SUCCESS ||
      cugi_cuda.cuMemFreeAsync (address, stream) != CUDA_SUCCESS)
    g_error ("cuMemAllocAsync or cuMemFreeAsync failed");
}

/* The end of each of cugi's pairs: drops the @buffer that its allocation
 * gave, or fails with the *@error it set. */
static void
drop (CugiBuffer  *buffer,
      GError     **error)
{
  check_error (buffer != NULL, *error);
  g_object_unref (buffer);
}

static void
pair_memory_pool (Bench *bench)
{
  g_autoptr(GError) error = NULL;

  drop (cugi_memory_pool_allocate (bench->pool, SIZE, &error), &error);
}

static void
pair_memory_pool_block (Bench *bench)
{
  g_autoptr(GError) error = NULL;
  CugiMemoryBlock *block = cugi_memory_pool_take_block (bench->pool, SIZE, &error);

  check_error (block != NULL, error);
  cugi_memory_block_unref (block);
}

static void
pair_on_stream (Bench *bench)
{
  g_autoptr(GError) error = NULL;

  drop (cugi_buffer_new_on_stream (bench->stream, SIZE, &error), &error);
}

static void
pair_ordered_pool (Bench *bench)
{
  g_autoptr(GError) error = NULL;

  drop (cugi_stream_ordered_pool_allocate (bench->ordered_pool, bench->stream, SIZE, &error), &error);
}

/* Nanoseconds per pair; the stream is synchronized every SYNC_EVERY pairs,
 * so that stream-ordered frees do not pile up. */
static double
time_pairs (Bench  *bench,
            void  (*pair) (Bench *))
{
  g_autoptr(GError) error = NULL;
  gint64 start = g_get_monotonic_time ();

  for (guint i = 1; i <= PAIRS; i++)
    {
      pair (bench);
      if (i % SYNC_EVERY == 0)
        check_error (cugi_stream_synchronize (bench->stream, &error), error);
    }
  check_error (cugi_stream_synchronize (bench->stream, &error), error);
  return (g_get_monotonic_time () - start) * 1e3 / PAIRS;
}

#ifdef BENCH_ALLOC_STAND_IN
/* The stand-in driver has no cuMemAlloc: host memory stands for it. */
static CUresult
stand_in_alloc (CUdeviceptr *address,
                size_t       size)
{
  *address = (CUdeviceptr) (uintptr_t) g_malloc (size);
  return CUDA_SUCCESS;
}

static CUresult
stand_in_free (CUdeviceptr address)
{
  g_free ((gpointer) (uintptr_t) address);
  return CUDA_SUCCESS;
}
#endif

static const struct
{
  const char *impl;
  const char *label;
  void      (*pair) (Bench *);
} impls[] = {
  { "raw-cuMemAlloc", "cuMemAlloc + cuMemFree", pair_raw },
  { "raw-cuMemAllocAsync", "cuMemAllocAsync + cuMemFreeAsync", pair_raw_async },
  { "cugi-memory-pool", "CugiMemoryPool allocate + unref", pair_memory_pool },
  { "cugi-memory-pool-block", "CugiMemoryPool take_block + unref", pair_memory_pool_block },
  { "cugi-buffer-new-on-stream", "cugi_buffer_new_on_stream + unref", pair_on_stream },
  { "cugi-stream-ordered-pool", "CugiStreamOrderedPool allocate + unref", pair_ordered_pool },
};

int
main (int    argc,
      char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GOptionContext) options = g_option_context_new (NULL);
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  BenchJson *json = bench_json_new (&argc, argv);
  g_autoptr(CugiStreamOrderedPool) default_pool = NULL;
  gint rounds = 7;
  double medians[G_N_ELEMENTS (impls)];
  Bench bench = { 0 };
  GOptionEntry entries[] = {
    { "rounds", 0, 0, G_OPTION_ARG_INT, &rounds, "Rounds of each measure (default 7)", "N" },
    G_OPTION_ENTRY_NULL
  };

  setlocale (LC_ALL, "C.UTF-8");
  g_option_context_add_main_entries (options, entries, NULL);
  if (!g_option_context_parse (options, &argc, &argv, &error))
    {
      g_printerr ("bench-alloc: %s\n", error->message);
      return 2;
    }
  rounds = MAX (rounds, 1);
  if (!cugi_init (&error) || (bench.context = cugi_context_get_default (&error)) == NULL)
    {
      g_printerr ("bench-alloc: no GPU: %s\n", error->message);
      return 77;
    }
#ifdef BENCH_ALLOC_STAND_IN
  cugi_cuda.cuMemAlloc = stand_in_alloc;
  cugi_cuda.cuMemFree = stand_in_free;
#endif
  /* The raw calls need the context current, as cugi's make it. */
  check_error (cugi_context_enter (bench.context, &scope, &error), error);
  bench.stream = cugi_stream_new (bench.context, CUGI_STREAM_FLAGS_NON_BLOCKING, 0, &error);
  check_error (bench.stream != NULL, error);
  bench.pool = cugi_memory_pool_new (bench.context, &error);
  check_error (bench.pool != NULL, error);
  bench.ordered_pool = cugi_stream_ordered_pool_new (cugi_context_get_device (bench.context), &error);
  check_error (bench.ordered_pool != NULL, error);
  /* Both stream-ordered pools keep what they reserve, as a program that
   * allocates in a loop sets them to; the first pair of each reserves. */
  default_pool = cugi_stream_ordered_pool_get_default (cugi_context_get_device (bench.context), &error);
  check_error (default_pool != NULL &&
               cugi_stream_ordered_pool_set_release_threshold (default_pool, G_MAXUINT64, &error) &&
               cugi_stream_ordered_pool_set_release_threshold (bench.ordered_pool, G_MAXUINT64, &error),
               error);

  for (guint i = 0; i < G_N_ELEMENTS (impls); i++)
    {
      g_autofree double *times = g_new (double, rounds);

      impls[i].pair (&bench);  /* warm: the pools reserve */
      for (gint round = 0; round < rounds; round++)
        times[round] = time_pairs (&bench, impls[i].pair);
      medians[i] = bench_median (times, rounds);
    }

  g_print ("bench-alloc: allocate + free of %zu bytes%s; medians of %d rounds of %u pairs\n",
           SIZE,
#ifdef BENCH_ALLOC_STAND_IN
           " against the stand-in driver",
#else
           "",
#endif
           rounds, PAIRS);
  g_print ("%-42s %10s %12s %14s\n", "", "ns/pair", "÷ cuMemAlloc", "÷ AllocAsync");
  for (guint i = 0; i < G_N_ELEMENTS (impls); i++)
    {
      g_print ("%-42s %10.1f %12.3f %14.3f\n", impls[i].label, medians[i],
               medians[i] / medians[0], medians[i] / medians[1]);
      bench_json_record (json, "alloc", "impl", impls[i].impl, NULL);
      bench_json_number (json, "us", medians[i] / 1e3);
    }
  bench_json_finish (json);

  g_object_unref (bench.ordered_pool);
  g_object_unref (bench.pool);
  g_object_unref (bench.stream);
  g_object_unref (bench.context);
  return 0;
}
