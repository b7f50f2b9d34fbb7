/* bench-copy.c: copy bandwidth, cugi beside the raw driver API in one
 * process, by size from 4 KiB to 1 GiB (powers of 4):
 *  - pinned host memory (a CugiHostBuffer): uploads and downloads, sync
 *    (raw cuMemcpyHtoD/DtoH; cugi_buffer_upload_from_host() and
 *    cugi_buffer_download_to_host() without a stream) and async (raw
 *    cuMemcpy*Async and cuStreamSynchronize; cugi_buffer_upload_bytes_async()
 *    of the host buffer's bytes and cugi_buffer_download_to_host_async(),
 *    each waited for in the main loop);
 *  - pageable memory (g_malloc): uploads and downloads, sync (raw
 *    cuMemcpyHtoD/DtoH; cugi_buffer_upload() and cugi_buffer_download()) and
 *    async (raw cuMemcpy*Async and cuStreamSynchronize;
 *    cugi_buffer_upload_bytes_async() and cugi_buffer_download_async(), in
 *    the main loop). Uploads read the same memory, written once, every
 *    time; downloads write fresh memory every time (raw: a new g_malloc();
 *    cugi: the bytes it returns), as a program downloading into new arrays
 *    does, page faults included;
 *  - device to device: raw cuMemcpyDtoDAsync, cugi_buffer_copy(), both on
 *    one stream and synchronized after each copy.
 * Each figure is the median of REPETITIONS runs, raw and cugi interleaved,
 * each run copying at least MIN_RUN_BYTES (small sizes loop, up to MAX_RUN_LOOPS times); GB/s are 1e9
 * bytes a second. Prints a table with the ratios cugi/raw and, for the
 * async rows, the longest time spent inside one cugi *_async() call, which
 * is how long it held up its caller's main loop; then, from 16 MiB,
 * cugi's async pageable copies against its sync ones in alternating runs
 * (the table's rows of the two modes are minutes apart); never fails on
 * speed.
 *
 *   bench-copy [--json FILE] [--sweep] [--min-size BYTES] [--max-size BYTES]
 *              [--memory pinned|pageable|device]
 *
 * --json FILE writes every figure as a list of records {"bench": "copy",
 * "direction": "upload|download|device-to-device", "memory":
 * "pinned|pageable|device", "mode": "sync|async", "size", "impl":
 * "raw|cugi", "gbps"}, and {"bench": "copy-async-vs-sync", "direction",
 * "size", "sync_gbps", "async_gbps"}. --sweep instead measures what the staging
 * pipeline's tuning knobs do (docs/memory.md), each setting in a child
 * process with the environment variables set: 256 MiB pageable sync
 * uploads and downloads for chunks of {1, 2, 4, 8, 16} MiB × {1, 2, 4, 8}
 * threads, and, for the threshold below which copies go straight to the
 * driver, the pipeline beside the driver at sizes from 256 KiB to 16 MiB;
 * its JSON records are {"bench": "copy-sweep", "direction", "size",
 * "chunk_bytes", "threads", "impl": "raw|cugi", "gbps"}, without
 * "chunk_bytes" and "threads" where the defaults applied. Exits 77 without
 * a GPU. */
#include "config.h"

#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include "cugi-context-private.h"
#include "cugi-private.h"
#include "cugi-stream-private.h"
#include "bench-json.h"
#include "bench-util.h"

#define REPETITIONS 3
#define MIN_RUN_BYTES ((gsize) 32 << 20)
/* Small asynchronous copies each wait for the main loop: a run of them is
 * timed long enough at this many. */
#define MAX_RUN_LOOPS 1000
#define MIN_SIZE ((gsize) 4 << 10)
#define MAX_SIZE ((gsize) 1 << 30)
#define SWEEP_SIZE ((gsize) 256 << 20)

typedef enum { UPLOAD, DOWNLOAD, DEVICE_TO_DEVICE } Direction;
typedef enum { PINNED, PAGEABLE, DEVICE } Memory;
typedef enum { SYNC, ASYNC } Mode;

static const char *direction_names[] = { "upload", "download", "device-to-device" };
static const char *memory_names[] = { "pinned", "pageable", "device" };
static const char *mode_names[] = { "sync", "async" };

typedef struct
{
  CugiContext    *context;
  CugiStream     *stream;
  CUstream        handle;
  CugiBuffer     *buffer;     /* MAX_SIZE bytes */
  CugiBuffer     *other;      /* the source of device-to-device copies */
  CugiHostBuffer *host;       /* pinned, MAX_SIZE bytes */
  GBytes         *host_bytes;
  guint8         *pageable;   /* MAX_SIZE bytes, written once */
  gboolean        done;       /* an async callback ran */
  gint64          longest_call;  /* us inside one cugi *_async() call, since reset */
} Bench;

typedef void (*CopyFunc) (Bench *bench, gsize size);

/* ---- the copies ----------------------------------------------------------- */

static CUdeviceptr
device_address (CugiBuffer *buffer)
{
  return cugi_buffer_get_device_pointer (buffer);
}

static guint8 *
pinned_data (Bench *bench)
{
  return (guint8 *) g_bytes_get_data (bench->host_bytes, NULL);
}

static void
raw_upload_pinned (Bench *bench, gsize size)
{
  check (cugi_cuda.cuMemcpyHtoD (device_address (bench->buffer), pinned_data (bench), size), "cuMemcpyHtoD");
}

static void
raw_download_pinned (Bench *bench, gsize size)
{
  check (cugi_cuda.cuMemcpyDtoH (pinned_data (bench), device_address (bench->buffer), size), "cuMemcpyDtoH");
}

static void
raw_upload_pinned_async (Bench *bench, gsize size)
{
  check (cugi_cuda.cuMemcpyHtoDAsync (device_address (bench->buffer), pinned_data (bench), size, bench->handle),
         "cuMemcpyHtoDAsync");
  check (cugi_cuda.cuStreamSynchronize (bench->handle), "cuStreamSynchronize");
}

static void
raw_download_pinned_async (Bench *bench, gsize size)
{
  check (cugi_cuda.cuMemcpyDtoHAsync (pinned_data (bench), device_address (bench->buffer), size, bench->handle),
         "cuMemcpyDtoHAsync");
  check (cugi_cuda.cuStreamSynchronize (bench->handle), "cuStreamSynchronize");
}

static void
raw_upload_pageable (Bench *bench, gsize size)
{
  check (cugi_cuda.cuMemcpyHtoD (device_address (bench->buffer), bench->pageable, size), "cuMemcpyHtoD");
}

static void
raw_download_pageable (Bench *bench, gsize size)
{
  g_autofree guint8 *fresh = g_malloc (size);

  check (cugi_cuda.cuMemcpyDtoH (fresh, device_address (bench->buffer), size), "cuMemcpyDtoH");
}

static void
raw_upload_pageable_async (Bench *bench, gsize size)
{
  check (cugi_cuda.cuMemcpyHtoDAsync (device_address (bench->buffer), bench->pageable, size, bench->handle),
         "cuMemcpyHtoDAsync");
  check (cugi_cuda.cuStreamSynchronize (bench->handle), "cuStreamSynchronize");
}

static void
raw_download_pageable_async (Bench *bench, gsize size)
{
  g_autofree guint8 *fresh = g_malloc (size);

  check (cugi_cuda.cuMemcpyDtoHAsync (fresh, device_address (bench->buffer), size, bench->handle),
         "cuMemcpyDtoHAsync");
  check (cugi_cuda.cuStreamSynchronize (bench->handle), "cuStreamSynchronize");
}

static void
raw_device_to_device (Bench *bench, gsize size)
{
  check (cugi_cuda.cuMemcpyDtoDAsync (device_address (bench->buffer), device_address (bench->other), size,
                                      bench->handle), "cuMemcpyDtoDAsync");
  check (cugi_cuda.cuStreamSynchronize (bench->handle), "cuStreamSynchronize");
}

static void
cugi_upload_pinned (Bench *bench, gsize size)
{
  g_autoptr(GError) error = NULL;

  check_error (cugi_buffer_upload_from_host (bench->buffer, 0, bench->host, 0, size, NULL, &error), error);
}

static void
cugi_download_pinned (Bench *bench, gsize size)
{
  g_autoptr(GError) error = NULL;

  check_error (cugi_buffer_download_to_host (bench->buffer, 0, bench->host, 0, size, NULL, &error), error);
}

static void
on_uploaded (GObject *source, GAsyncResult *result, gpointer data)
{
  Bench *bench = data;
  g_autoptr(GError) error = NULL;

  check_error (cugi_buffer_upload_bytes_finish (CUGI_BUFFER (source), result, &error), error);
  bench->done = TRUE;
}

static void
on_downloaded_to_host (GObject *source, GAsyncResult *result, gpointer data)
{
  Bench *bench = data;
  g_autoptr(GError) error = NULL;

  check_error (cugi_buffer_download_to_host_finish (CUGI_BUFFER (source), result, &error), error);
  bench->done = TRUE;
}

static void
on_downloaded (GObject *source, GAsyncResult *result, gpointer data)
{
  Bench *bench = data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = cugi_buffer_download_finish (CUGI_BUFFER (source), result, &error);

  check_error (bytes != NULL, error);
  bench->done = TRUE;
}

/* Runs the main loop until the callback of the copy started at @start
 * (whose call returned just now: what it took counts as a stall of the
 * caller's main loop). */
static void
wait_for_callback (Bench *bench,
                   gint64 start)
{
  bench->longest_call = MAX (bench->longest_call, g_get_monotonic_time () - start);
  while (!bench->done)
    g_main_context_iteration (NULL, TRUE);
  bench->done = FALSE;
}

static void
cugi_upload_pinned_async (Bench *bench, gsize size)
{
  g_autoptr(GBytes) bytes = g_bytes_new_from_bytes (bench->host_bytes, 0, size);
  gint64 start = g_get_monotonic_time ();

  cugi_buffer_upload_bytes_async (bench->buffer, 0, bytes, bench->stream, NULL, on_uploaded, bench);
  wait_for_callback (bench, start);
}

static void
cugi_download_pinned_async (Bench *bench, gsize size)
{
  gint64 start = g_get_monotonic_time ();

  cugi_buffer_download_to_host_async (bench->buffer, 0, bench->host, 0, size, bench->stream, NULL,
                                      on_downloaded_to_host, bench);
  wait_for_callback (bench, start);
}

static void
cugi_upload_pageable (Bench *bench, gsize size)
{
  g_autoptr(GError) error = NULL;

  check_error (cugi_buffer_upload (bench->buffer, 0, bench->pageable, size, &error), error);
}

static void
cugi_download_pageable (Bench *bench, gsize size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = cugi_buffer_download (bench->buffer, 0, size, &error);

  check_error (bytes != NULL, error);
}

static void
cugi_upload_pageable_async (Bench *bench, gsize size)
{
  g_autoptr(GBytes) bytes = g_bytes_new_static (bench->pageable, size);
  gint64 start = g_get_monotonic_time ();

  cugi_buffer_upload_bytes_async (bench->buffer, 0, bytes, bench->stream, NULL, on_uploaded, bench);
  wait_for_callback (bench, start);
}

static void
cugi_download_pageable_async (Bench *bench, gsize size)
{
  gint64 start = g_get_monotonic_time ();

  cugi_buffer_download_async (bench->buffer, 0, size, bench->stream, NULL, on_downloaded, bench);
  wait_for_callback (bench, start);
}

static void
cugi_device_to_device (Bench *bench, gsize size)
{
  g_autoptr(GError) error = NULL;

  check_error (cugi_buffer_copy (bench->buffer, 0, bench->other, 0, size, bench->stream, &error) &&
               cugi_stream_synchronize (bench->stream, &error), error);
}

typedef struct
{
  Direction direction;
  Memory    memory;
  Mode      mode;
  CopyFunc  raw;
  CopyFunc  cugi;
} Row;

static const Row rows[] = {
  { UPLOAD, PINNED, SYNC, raw_upload_pinned, cugi_upload_pinned },
  { DOWNLOAD, PINNED, SYNC, raw_download_pinned, cugi_download_pinned },
  { UPLOAD, PINNED, ASYNC, raw_upload_pinned_async, cugi_upload_pinned_async },
  { DOWNLOAD, PINNED, ASYNC, raw_download_pinned_async, cugi_download_pinned_async },
  { UPLOAD, PAGEABLE, SYNC, raw_upload_pageable, cugi_upload_pageable },
  { DOWNLOAD, PAGEABLE, SYNC, raw_download_pageable, cugi_download_pageable },
  { UPLOAD, PAGEABLE, ASYNC, raw_upload_pageable_async, cugi_upload_pageable_async },
  { DOWNLOAD, PAGEABLE, ASYNC, raw_download_pageable_async, cugi_download_pageable_async },
  { DEVICE_TO_DEVICE, DEVICE, SYNC, raw_device_to_device, cugi_device_to_device },
};

/* ---- measuring ------------------------------------------------------------ */

/* GB/s of @copy of @size bytes, looped to move at least MIN_RUN_BYTES. */
static double
run_once (Bench *bench, CopyFunc copy, gsize size)
{
  guint loops = CLAMP (MIN_RUN_BYTES / size, 1, MAX_RUN_LOOPS);
  gint64 start = g_get_monotonic_time ();

  for (guint i = 0; i < loops; i++)
    copy (bench, size);
  return (double) size * loops / MAX (1, g_get_monotonic_time () - start) / 1e3;
}

/* The medians of REPETITIONS runs of @raw and @cugi, taking turns to go
 * first, after one run of each to warm up (the staging pool pins then, and
 * its calls do not count in bench->longest_call). */
static void
measure (Bench *bench, CopyFunc raw, CopyFunc cugi, gsize size, double *raw_gbps, double *cugi_gbps)
{
  double raws[REPETITIONS], cugis[REPETITIONS];

  raw (bench, size);
  cugi (bench, size);
  bench->longest_call = 0;
  for (guint i = 0; i < REPETITIONS; i++)
    {
      if (i % 2 == 0)
        {
          raws[i] = run_once (bench, raw, size);
          cugis[i] = run_once (bench, cugi, size);
        }
      else
        {
          cugis[i] = run_once (bench, cugi, size);
          raws[i] = run_once (bench, raw, size);
        }
    }
  *raw_gbps = bench_median (raws, REPETITIONS);
  *cugi_gbps = bench_median (cugis, REPETITIONS);
}

static char *
format_size (gsize size)
{
  return size >= (1 << 20) ? g_strdup_printf ("%zu MiB", size >> 20) : g_strdup_printf ("%zu KiB", size >> 10);
}

static void
bench_set_up (Bench *bench, gsize max_size)
{
  g_autoptr(GError) error = NULL;

  bench->context = cugi_context_get_default (&error);
  check_error (bench->context != NULL, error);
  bench->stream = cugi_stream_new (bench->context, CUGI_STREAM_FLAGS_NON_BLOCKING, 0, &error);
  check_error (bench->stream != NULL, error);
  bench->handle = cugi_stream_get_handle (bench->stream);
  bench->buffer = cugi_buffer_new (bench->context, max_size, &error);
  check_error (bench->buffer != NULL, error);
  bench->other = cugi_buffer_new (bench->context, max_size, &error);
  check_error (bench->other != NULL, error);
  bench->host = cugi_host_buffer_new (bench->context, max_size, CUGI_HOST_BUFFER_FLAGS_NONE, &error);
  check_error (bench->host != NULL, error);
  bench->host_bytes = cugi_host_buffer_get_bytes (bench->host, &error);
  check_error (bench->host_bytes != NULL, error);
  memset (pinned_data (bench), 0x5a, max_size);
  bench->pageable = memset (g_malloc (max_size), 0xa5, max_size);
}

static void
bench_clear (Bench *bench)
{
  g_autoptr(GError) error = NULL;

  check_error (cugi_stream_synchronize (bench->stream, &error), error);
  g_clear_pointer (&bench->pageable, g_free);
  g_clear_pointer (&bench->host_bytes, g_bytes_unref);
  g_clear_object (&bench->host);
  g_clear_object (&bench->other);
  g_clear_object (&bench->buffer);
  g_clear_object (&bench->stream);
  g_clear_object (&bench->context);
}

/* ---- the table ------------------------------------------------------------ */

/* cugi's asynchronous pageable copies against its synchronous ones, in
 * runs taking turns as measure() has them, from 16 MiB, where copies go
 * through the pipeline: the table's rows of the two modes are minutes
 * apart, over which the machine's bandwidth moves. */
static void
run_async_against_sync (Bench     *bench,
                        gsize      min_size,
                        gsize      max_size,
                        BenchJson *json)
{
  static const struct
  {
    Direction direction;
    CopyFunc  sync;
    CopyFunc  async;
  } pairs[] = {
    { UPLOAD, cugi_upload_pageable, cugi_upload_pageable_async },
    { DOWNLOAD, cugi_download_pageable, cugi_download_pageable_async },
  };

  g_print ("cugi, pageable, async against sync in alternating runs:\n");
  g_print ("%-18s %9s %10s %10s %7s\n", "direction", "size", "sync GB/s", "async GB/s", "ratio");
  for (gsize p = 0; p < G_N_ELEMENTS (pairs); p++)
    for (gsize size = 16 << 20; size <= max_size; size *= 4)
      {
        g_autofree char *shown = format_size (size);
        double sync, async;

        if (size < min_size)
          continue;
        measure (bench, pairs[p].sync, pairs[p].async, size, &sync, &async);
        g_print ("%-18s %9s %10.2f %10.2f %7.3f\n", direction_names[pairs[p].direction], shown, sync, async,
                 async / sync);
        bench_json_record (json, "copy-async-vs-sync", "direction", direction_names[pairs[p].direction], NULL);
        bench_json_number (json, "size", size);
        bench_json_number (json, "sync_gbps", sync);
        bench_json_number (json, "async_gbps", async);
      }
  g_print ("\n");
}

static void
run_table (gsize       min_size,
           gsize       max_size,
           const char *only_memory,
           BenchJson  *json)
{
  Bench bench = { 0 };

  bench_set_up (&bench, max_size);
  g_print ("%-18s %-9s %-6s %9s %10s %10s %7s %11s\n", "direction", "memory", "mode", "size", "raw GB/s",
           "cugi GB/s", "ratio", "longest call");
  for (gsize r = 0; r < G_N_ELEMENTS (rows); r++)
    {
      const Row *row = &rows[r];

      if (only_memory != NULL && g_strcmp0 (only_memory, memory_names[row->memory]) != 0)
        continue;
      for (gsize size = MIN_SIZE; size <= max_size; size *= 4)
        {
          g_autofree char *shown = format_size (size);
          double raw, cugi;

          if (size < min_size)
            continue;
          measure (&bench, row->raw, row->cugi, size, &raw, &cugi);
          g_print ("%-18s %-9s %-6s %9s %10.2f %10.2f %7.3f", direction_names[row->direction],
                   memory_names[row->memory], mode_names[row->mode], shown, raw, cugi, cugi / raw);
          /* What an async call held its caller's main loop up. */
          if (row->mode == ASYNC)
            g_print (" %8.3f ms", bench.longest_call / 1000.0);
          g_print ("\n");
          for (guint i = 0; i < 2; i++)
            {
              bench_json_record (json, "copy", "direction", direction_names[row->direction],
                                 "memory", memory_names[row->memory], "mode", mode_names[row->mode],
                                 "impl", i == 0 ? "raw" : "cugi", NULL);
              bench_json_number (json, "size", size);
              bench_json_number (json, "gbps", i == 0 ? raw : cugi);
            }
        }
      g_print ("\n");
    }
  if (only_memory == NULL || g_strcmp0 (only_memory, memory_names[PAGEABLE]) == 0)
    run_async_against_sync (&bench, min_size, max_size, json);
  bench_clear (&bench);
}

/* ---- the sweep of the tuning knobs ---------------------------------------- */

/* In a child process, with the knobs in its environment: for each size, the
 * pageable sync upload and download, cugi's and raw, as one line
 * "SIZE UP_CUGI DOWN_CUGI UP_RAW DOWN_RAW". */
static void
run_child (const char *sizes)
{
  g_auto (GStrv) list = g_strsplit (sizes, ",", -1);
  gsize max_size = 0;
  Bench bench = { 0 };

  for (guint i = 0; list[i] != NULL; i++)
    max_size = MAX (max_size, g_ascii_strtoull (list[i], NULL, 10));
  bench_set_up (&bench, max_size);
  for (guint i = 0; list[i] != NULL; i++)
    {
      gsize size = g_ascii_strtoull (list[i], NULL, 10);
      double up_raw, up_cugi, down_raw, down_cugi;

      measure (&bench, raw_upload_pageable, cugi_upload_pageable, size, &up_raw, &up_cugi);
      measure (&bench, raw_download_pageable, cugi_download_pageable, size, &down_raw, &down_cugi);
      g_print ("%zu %.3f %.3f %.3f %.3f\n", size, up_cugi, down_cugi, up_raw, down_raw);
    }
  bench_clear (&bench);
}

/* Runs this program as a child with @sizes and the knobs set (NULL: not
 * set); its lines, each split into numbers. */
static GPtrArray *
spawn_child (const char *sizes,
             const char *chunk_bytes,
             const char *threads,
             const char *direct_bytes)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *self = g_file_read_link ("/proc/self/exe", &error);
  g_auto (GStrv) env = g_get_environ ();
  g_autofree char *out = NULL;
  g_auto (GStrv) lines = NULL;
  char *argv[] = { self, (char *) "--child", (char *) sizes, NULL };
  GPtrArray *results = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  int status;

  check_error (self != NULL, error);
  if (chunk_bytes != NULL)
    env = g_environ_setenv (env, "CUGI_STAGING_CHUNK_BYTES", chunk_bytes, TRUE);
  if (threads != NULL)
    env = g_environ_setenv (env, "CUGI_STAGING_THREADS", threads, TRUE);
  if (direct_bytes != NULL)
    env = g_environ_setenv (env, "CUGI_STAGING_DIRECT_BYTES", direct_bytes, TRUE);
  check_error (g_spawn_sync (NULL, argv, env, G_SPAWN_DEFAULT, NULL, NULL, &out, NULL, &status, &error) &&
               g_spawn_check_wait_status (status, &error), error);
  lines = g_strsplit (out, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (*lines[i] != '\0')
      g_ptr_array_add (results, g_strsplit (lines[i], " ", -1));
  return results;
}

/* Records a figure of the sweep, @gbps as the child printed it; @chunk and
 * @threads NULL for the defaults. */
static void
record_sweep (BenchJson  *json,
              guint       direction,
              gsize       size,
              const char *chunk,
              const char *threads,
              const char *impl,
              const char *gbps)
{
  bench_json_record (json, "copy-sweep", "direction", direction_names[direction], "impl", impl, NULL);
  bench_json_number (json, "size", size);
  if (chunk != NULL)
    bench_json_number (json, "chunk_bytes", g_ascii_strtod (chunk, NULL));
  if (threads != NULL)
    bench_json_number (json, "threads", g_ascii_strtod (threads, NULL));
  bench_json_number (json, "gbps", g_ascii_strtod (gbps, NULL));
}

static void
run_sweep (BenchJson *json)
{
  const guint chunks_mib[] = { 1, 2, 4, 8, 16 };
  const guint threads[] = { 1, 2, 4, 8 };
  const gsize threshold_sizes[] = { 256 << 10, 512 << 10, 1 << 20, 2 << 20, 4 << 20, 8 << 20, 16 << 20 };
  g_autofree char *sweep_size = g_strdup_printf ("%zu", SWEEP_SIZE);
  g_autoptr(GString) sizes = g_string_new (NULL);
  g_autoptr(GPtrArray) lines = NULL;

  g_print ("256 MiB pageable sync copies through the staging pipeline, GB/s up / down,\n"
           "by chunk size (CUGI_STAGING_CHUNK_BYTES) and threads (CUGI_STAGING_THREADS):\n");
  g_print ("%-8s", "chunk");
  for (gsize t = 0; t < G_N_ELEMENTS (threads); t++)
    g_print (" %8u thread%s", threads[t], threads[t] == 1 ? " " : "s");
  g_print ("\n");
  for (gsize c = 0; c < G_N_ELEMENTS (chunks_mib); c++)
    {
      g_autofree char *chunk = g_strdup_printf ("%zu", (gsize) chunks_mib[c] << 20);

      g_print ("%3u MiB ", chunks_mib[c]);
      for (gsize t = 0; t < G_N_ELEMENTS (threads); t++)
        {
          g_autofree char *thread_count = g_strdup_printf ("%u", threads[t]);
          g_autoptr(GPtrArray) results = spawn_child (sweep_size, chunk, thread_count, "0");
          char **line = g_ptr_array_index (results, 0);

          g_print ("  %6.2f / %6.2f", g_ascii_strtod (line[1], NULL), g_ascii_strtod (line[2], NULL));
          for (guint d = 0; d < 2; d++)
            record_sweep (json, d, SWEEP_SIZE, chunk, thread_count, "cugi", line[1 + d]);
        }
      g_print ("\n");
    }

  /* The pipeline at every size (threshold 0), beside the driver. */
  for (gsize i = 0; i < G_N_ELEMENTS (threshold_sizes); i++)
    g_string_append_printf (sizes, "%s%zu", i == 0 ? "" : ",", threshold_sizes[i]);
  lines = spawn_child (sizes->str, NULL, NULL, "0");
  g_print ("\nwhere the pipeline (default chunks and threads) beats the driver, for "
           "CUGI_STAGING_DIRECT_BYTES:\n%9s %12s %12s %12s %12s\n",
           "size", "up raw", "up pipeline", "down raw", "down pipeline");
  for (guint i = 0; i < lines->len; i++)
    {
      char **line = g_ptr_array_index (lines, i);
      gsize size = g_ascii_strtoull (line[0], NULL, 10);
      g_autofree char *shown = format_size (size);

      g_print ("%9s %12s %12s %12s %12s\n", shown, line[3], line[1], line[4], line[2]);
      for (guint d = 0; d < 2; d++)
        {
          record_sweep (json, d, size, NULL, NULL, "raw", line[3 + d]);
          record_sweep (json, d, size, NULL, NULL, "cugi", line[1 + d]);
        }
    }
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiDevice) device = NULL;
  g_autoptr(CugiContext) context = NULL;
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  g_autoptr(GOptionContext) options = g_option_context_new (NULL);
  BenchJson *json = bench_json_new (&argc, argv);
  g_autofree char *child_sizes = NULL;
  gboolean sweep = FALSE;
  gint64 max_size = MAX_SIZE;
  gint64 min_size = MIN_SIZE;
  g_autofree char *only_memory = NULL;
  GOptionEntry entries[] = {
    { "sweep", 0, 0, G_OPTION_ARG_NONE, &sweep, "Sweep the staging pipeline's tuning knobs", NULL },
    { "max-size", 0, 0, G_OPTION_ARG_INT64, &max_size, "The largest size measured (default 1 GiB)", "BYTES" },
    { "min-size", 0, 0, G_OPTION_ARG_INT64, &min_size, "The smallest size measured (default 4 KiB)", "BYTES" },
    { "memory", 0, 0, G_OPTION_ARG_STRING, &only_memory, "Only the rows of this memory", "pinned|pageable|device" },
    { "child", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_STRING, &child_sizes, NULL, NULL },
    G_OPTION_ENTRY_NULL
  };

  setlocale (LC_ALL, "C.UTF-8");
  g_option_context_add_main_entries (options, entries, NULL);
  if (!g_option_context_parse (options, &argc, &argv, &error))
    {
      g_printerr ("bench-copy: %s\n", error->message);
      return 2;
    }
  if (!cugi_init (&error) || (device = cugi_device_get_default (&error)) == NULL)
    {
      g_printerr ("bench-copy: no GPU usable: %s\n", error->message);
      return 77;
    }
  /* The raw calls need the context current, as cugi's make it. */
  context = cugi_context_get_default (&error);
  check_error (context != NULL, error);
  check_error (cugi_context_enter (context, &scope, &error), error);

  if (child_sizes != NULL)
    {
      run_child (child_sizes);
      return 0;
    }
  if (sweep)
    {
      g_print ("bench-copy --sweep on %s; medians of %u runs\n\n", cugi_device_get_name (device), REPETITIONS);
      run_sweep (json);
    }
  else
    {
      g_print ("bench-copy on %s: GB/s, medians of %u runs; pageable downloads into fresh memory\n\n",
               cugi_device_get_name (device), REPETITIONS);
      run_table (CLAMP (min_size, (gint64) MIN_SIZE, (gint64) MAX_SIZE),
                 CLAMP (max_size, (gint64) MIN_SIZE, (gint64) MAX_SIZE), only_memory, json);
    }
  bench_json_finish (json);
  return 0;
}
