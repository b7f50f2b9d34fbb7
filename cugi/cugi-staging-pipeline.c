/* cugi-staging-pipeline.c: the pipeline that copies pageable memory in
 * chunks through pinned staging slots on worker threads, and the
 * synchronous copies through it */
#include "config.h"

#include <stdatomic.h>
#include <string.h>
#ifdef __linux__
#include <sys/mman.h>
#include <unistd.h>
#endif
#include <glib/gi18n-lib.h>

#include "cugi-context-private.h"
#include "cugi-stream-private.h"
#include "cugi-private.h"
#include "cugi-staging-private.h"

/* A copy between pageable host memory and the device goes through a ring of
 * pinned staging slots, one chunk of the copy in each, so that worker
 * threads copying chunks between the caller's memory and the slots overlap
 * the DMA of the others. Beyond the copying itself, what limits it is the
 * page faults of the caller's memory (touched for the first time, often),
 * which is why several threads help.
 *
 * All the device's side is enqueued at once, on the calling thread, and
 * keeps its place on the stream; per slot, two counters in pinned memory
 * hand it over between the host and the device. For chunk i in slot
 * s = i mod n_slots, an upload is
 *
 *   host:   wait device[s] >= i + 1 - n_slots; copy to the slot; host[s] = i + 1
 *   stream: wait host[s] >= i + 1; cuMemcpyHtoDAsync; write device[s] = i + 1
 *
 * and a download the same, the other way round:
 *
 *   stream: wait host[s] >= i + 1 - n_slots; cuMemcpyDtoHAsync; write device[s] = i + 1
 *   host:   wait device[s] >= i + 1; copy from the slot; host[s] = i + 1
 *
 * where the waits compare as cuStreamWaitValue32's CU_STREAM_WAIT_VALUE_GEQ
 * does, cyclically: a wait for a value below 1 is over at once. The workers
 * take chunks in order, and jobs in the order they were enqueued, so that
 * what a worker waits for depends only on work enqueued before.
 *
 * The tuning below is what tests/benchmarks/bench-copy --sweep measured on
 * an H100 (docs/memory.md has the table): of chunks from 1 to 16 MiB and 1
 * to 8 threads, 2 MiB on 8 threads moved 256 MiB of pageable memory fastest
 * both ways. The environment variables CUGI_STAGING_CHUNK_BYTES,
 * CUGI_STAGING_THREADS and CUGI_STAGING_DIRECT_BYTES, read once, override it
 * for measuring. */
#define STAGING_DEFAULT_CHUNK_BYTES ((gsize) 2 << 20)
#define STAGING_DEFAULT_THREADS 8
/* Copies smaller than these go straight to the driver: on the H100 the
 * pipeline beat cuMemcpyHtoD from 16 MiB (at 4 MiB it was slower) and
 * cuMemcpyDtoH from 1 MiB. */
#define STAGING_DEFAULT_DIRECT_UPLOAD_BYTES ((gsize) 8 << 20)
#define STAGING_DEFAULT_DIRECT_DOWNLOAD_BYTES ((gsize) 1 << 20)
/* A copy is cut into at least STAGING_SLOTS_PER_THREAD chunks a thread
 * (where that leaves chunks of STAGING_MIN_CHUNK_BYTES), and has that many
 * slots a thread, to stage ahead of the DMA. */
#define STAGING_SLOTS_PER_THREAD 2
#define STAGING_MIN_CHUNK_BYTES ((gsize) 256 << 10)
/* See cugi_pipeline_max_bytes(). */
#define STAGING_MAX_CHUNKS_PER_PIPELINE 64
#define STAGING_CHUNK_ALIGNMENT ((gsize) 64 << 10)
/* One counter per cache line, so that threads do not share lines. */
#define STAGING_COUNTER_STRIDE 16
/* A worker waiting for the device yields for this long, then sleeps. */
#define STAGING_SPIN_US 500

typedef struct
{
  gsize chunk_bytes;
  guint threads;
  gsize direct_upload_bytes;
  gsize direct_download_bytes;
} StagingTuning;

/* A tuning knob from the environment, or @fallback with a warning when it
 * is set to something else than a number in [@min, @max]. */
static guint64
read_knob (const char *variable,
           guint64     min,
           guint64     max,
           guint64     fallback)
{
  const char *value = g_getenv (variable);
  guint64 number;

  if (value == NULL || *value == '\0')
    return fallback;
  if (!g_ascii_string_to_unsigned (value, 10, min, max, &number, NULL))
    {
      g_warning ("%s=%s is not a number from %" G_GUINT64_FORMAT " to %" G_GUINT64_FORMAT
                 ": using %" G_GUINT64_FORMAT, variable, value, min, max, fallback);
      return fallback;
    }
  return number;
}

static gpointer
read_tuning (gpointer data)
{
  StagingTuning *tuning = g_new (StagingTuning, 1);

  tuning->chunk_bytes = read_knob ("CUGI_STAGING_CHUNK_BYTES", STAGING_MIN_CHUNK_BYTES,
                                   (guint64) 1 << 30, STAGING_DEFAULT_CHUNK_BYTES);
  tuning->chunk_bytes = (tuning->chunk_bytes + STAGING_CHUNK_ALIGNMENT - 1) & ~(STAGING_CHUNK_ALIGNMENT - 1);
  tuning->threads = read_knob ("CUGI_STAGING_THREADS", 1, 64, STAGING_DEFAULT_THREADS);
  /* One variable sets both. */
  tuning->direct_upload_bytes = read_knob ("CUGI_STAGING_DIRECT_BYTES", 0, G_MAXSIZE,
                                           STAGING_DEFAULT_DIRECT_UPLOAD_BYTES);
  tuning->direct_download_bytes = read_knob ("CUGI_STAGING_DIRECT_BYTES", 0, G_MAXSIZE,
                                             STAGING_DEFAULT_DIRECT_DOWNLOAD_BYTES);
  return tuning;
}

static const StagingTuning *
get_tuning (void)
{
  static GOnce once = G_ONCE_INIT;

  return g_once (&once, read_tuning, NULL);
}

guint
cugi_staging_get_threads (void)
{
  return get_tuning ()->threads;
}

gsize
cugi_staging_direct_bytes (CugiCopyDirection direction)
{
  const StagingTuning *tuning = get_tuning ();

  return direction == CUGI_COPY_TO_DEVICE ? tuning->direct_upload_bytes : tuning->direct_download_bytes;
}

gboolean
cugi_staging_is_pinned (const guint8 *data,
                        gsize         size)
{
  const guint8 *ends[] = { data, data + size - 1 };

  for (gsize i = 0; i < G_N_ELEMENTS (ends); i++)
    {
      CUmemorytype type;
      int ordinal;

      /* Pageable memory is no error, only not pinned: nothing to report. */
      if (!cugi_memory_get_pointer_kind ((CUdeviceptr) (guintptr) ends[i], &type, &ordinal, NULL) ||
          type != CU_MEMORYTYPE_HOST)
        return FALSE;
    }
  return TRUE;
}

gboolean
cugi_staging_can_pipeline (void)
{
  return cugi_cuda.cuStreamWaitValue32 != NULL && cugi_cuda.cuStreamWriteValue32 != NULL;
}

static gint *
pipeline_counter (CugiPipeline *self,
                  guint         slot,
                  gboolean      device)
{
  return self->counters + (2 * slot + (device ? 1 : 0)) * STAGING_COUNTER_STRIDE;
}

/* The bytes of staging a copy of @size bytes needs, and the shape of it:
 * chunks of at most the tuned size, at least STAGING_SLOTS_PER_THREAD of
 * them a thread where they can be STAGING_MIN_CHUNK_BYTES or more. */
static gsize
pipeline_plan (gsize  size,
               gsize *chunk_size,
               guint *n_chunks,
               guint *n_slots)
{
  const StagingTuning *tuning = get_tuning ();
  guint ring = tuning->threads * STAGING_SLOTS_PER_THREAD;
  gsize chunk = (size - 1) / ring + 1;

  chunk = CLAMP (chunk, STAGING_MIN_CHUNK_BYTES, tuning->chunk_bytes);
  chunk = (chunk + STAGING_CHUNK_ALIGNMENT - 1) & ~(STAGING_CHUNK_ALIGNMENT - 1);
  *chunk_size = chunk;
  *n_chunks = (size - 1) / chunk + 1;
  *n_slots = MIN (ring, *n_chunks);
  return *n_slots * chunk + 2 * *n_slots * STAGING_COUNTER_STRIDE * sizeof (gint);
}

static void
pipeline_clear (gpointer data)
{
  CugiPipeline *self = data;

  g_clear_pointer (&self->host_bytes, g_bytes_unref);
  g_clear_object (&self->staging);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->all_done);
}

void
cugi_pipeline_unref (gpointer data)
{
  g_atomic_rc_box_release_full (data, pipeline_clear);
}

/* Waits until @counter reaches @value (cyclically, as the device does). */
static void
wait_for_counter (const gint *counter,
                  guint       value)
{
  gint64 deadline = 0;

  while ((gint32) ((guint32) g_atomic_int_get (counter) - value) < 0)
    {
      gint64 now = g_get_monotonic_time ();

      if (deadline == 0)
        deadline = now + STAGING_SPIN_US;
      if (now < deadline)
        g_thread_yield ();
      else
        g_usleep (50);
    }
}

/* A download's destination is often fresh memory (numpy.empty()), each of
 * whose pages faults on its first touch: one thread faults in about 1.4 GB/s
 * that way. Populating a chunk's pages with one call, before waiting for the
 * device to fill its slot, costs less and overlaps the DMA. Linux before
 * 5.14 refuses the advice, and so does memory that cannot be populated:
 * memcpy() then faults the pages in as before. */
static void
populate_for_writing (guint8 *start,
                      gsize   length)
{
#if defined (__linux__) && defined (MADV_POPULATE_WRITE)
  static gsize page_size;
  guintptr first, end;

  if (g_once_init_enter (&page_size))
    g_once_init_leave (&page_size, (gsize) sysconf (_SC_PAGESIZE));
  first = ((guintptr) start + page_size - 1) & ~(guintptr) (page_size - 1);
  end = ((guintptr) start + length) & ~(guintptr) (page_size - 1);
  if (end > first)
    (void) madvise ((void *) first, end - first, MADV_POPULATE_WRITE);
#endif
}

/* The host's side of @self is done: what only its workers need goes first
 * (the staging back to the pool where nothing else holds it, rather than
 * once the last of the workers' jobs has run, which can be after the copy
 * completed and its callback asked for staging again), then a caller
 * waiting for it is told. */
static void
pipeline_host_done (CugiPipeline *self)
{
  g_clear_object (&self->staging);
  g_clear_pointer (&self->host_bytes, g_bytes_unref);
  g_mutex_lock (&self->lock);
  self->host_done = TRUE;
  g_cond_broadcast (&self->all_done);
  g_mutex_unlock (&self->lock);
}

void
cugi_pipeline_run (CugiPipeline *self)
{
  gboolean upload = self->direction == CUGI_COPY_TO_DEVICE;
  guint i;

  while ((i = (guint) g_atomic_int_add (&self->next, 1)) < self->n_chunks)
    {
      guint slot = i % self->n_slots;
      gsize start = (gsize) i * self->chunk_size;
      gsize length = MIN (self->chunk_size, self->size - start);
      guint8 *staged = self->slots + (gsize) slot * self->chunk_size;

      if (!upload)
        populate_for_writing (self->host + start, length);
      wait_for_counter (pipeline_counter (self, slot, TRUE), upload ? i + 1 - self->n_slots : i + 1);
      if (upload)
        memcpy (staged, self->host + start, length);
      else
        memcpy (self->host + start, staged, length);
      /* memcpy may use non-temporal stores, which only a full fence orders
       * before the counter's. */
      atomic_thread_fence (memory_order_seq_cst);
      g_atomic_int_set (pipeline_counter (self, slot, FALSE), (gint) i + 1);

      if ((guint) g_atomic_int_add (&self->done, 1) + 1 == self->n_chunks)
        pipeline_host_done (self);
    }
}

static void
pipeline_work (gpointer data,
               gpointer user_data)
{
  g_autoptr(CugiPipeline) self = data;

  cugi_pipeline_run (self);
}

static gpointer
staging_threads_new (gpointer data)
{
  /* Not exclusive: the threads are GLib's shared ones, made when needed, so
   * making the pool cannot fail. */
  return g_thread_pool_new (pipeline_work, NULL, get_tuning ()->threads, FALSE, NULL);
}

GThreadPool *
cugi_buffer_get_staging_threads (void)
{
  static GOnce once = G_ONCE_INIT;

  return g_once (&once, staging_threads_new, NULL);
}

void
cugi_pipeline_start (CugiPipeline *self,
                     guint         n_threads)
{
  GThreadPool *workers = cugi_buffer_get_staging_threads ();

  /* Nothing to do after an error: done already. */
  if (self->n_chunks == 0)
    pipeline_host_done (self);
  for (guint i = 0; i < MIN (n_threads, self->n_chunks); i++)
    g_thread_pool_push (workers, g_atomic_rc_box_acquire (self), NULL);
}

void
cugi_pipeline_wait (CugiPipeline *self)
{
  g_mutex_lock (&self->lock);
  while (!self->host_done)
    g_cond_wait (&self->all_done, &self->lock);
  g_mutex_unlock (&self->lock);
}

CugiPipeline *
cugi_pipeline_new (CugiContext        *context,
                   CugiCopyDirection   direction,
                   guint8             *host,
                   GBytes             *host_bytes,
                   gsize               size,
                   gboolean            may_pin,
                   CugiHostBuffer    **staging,
                   GError            **error)
{
  gsize chunk_size;
  guint n_chunks, n_slots;
  guint8 *staged;
  CugiPipeline *self;

  if ((*staging = cugi_staging_new_with_data (context, pipeline_plan (size, &chunk_size, &n_chunks, &n_slots),
                                              may_pin, &staged, error)) == NULL)
    return NULL;
  self = g_atomic_rc_box_new0 (CugiPipeline);
  self->direction = direction;
  self->host = host;
  self->host_bytes = host_bytes != NULL ? g_bytes_ref (host_bytes) : NULL;
  self->staging = g_object_ref (*staging);
  self->size = size;
  self->chunk_size = chunk_size;
  self->n_chunks = n_chunks;
  self->n_slots = n_slots;
  self->slots = staged;
  self->counters = (gint *) (staged + (gsize) self->n_slots * self->chunk_size);
  memset (self->counters, 0, 2 * self->n_slots * STAGING_COUNTER_STRIDE * sizeof (gint));
  g_mutex_init (&self->lock);
  g_cond_init (&self->all_done);
  return self;
}

/* The last chunk of @self that goes through @slot. */
static guint
pipeline_last_chunk (CugiPipeline *self,
                     guint         slot)
{
  return slot + (self->n_chunks - 1 - slot) / self->n_slots * self->n_slots;
}

gboolean
cugi_pipeline_enqueue_host_waits (CugiPipeline  *self,
                                  CUstream       handle,
                                  GError       **error)
{
  for (guint slot = 0; slot < MIN (self->n_slots, self->n_chunks); slot++)
    if (!CUGI_CALL (cuStreamWaitValue32, (handle, self->counters_device +
                                          (2 * slot) * STAGING_COUNTER_STRIDE * sizeof (gint),
                                          pipeline_last_chunk (self, slot) + 1, CU_STREAM_WAIT_VALUE_GEQ),
                    error))
      return FALSE;
  return TRUE;
}

CugiEnqueueResult
cugi_pipeline_enqueue (CugiPipeline  *self,
                       CUdeviceptr    address,
                       CUstream       handle,
                       GError       **error)
{
  g_autoptr(GError) first_error = NULL;
  gboolean upload = self->direction == CUGI_COPY_TO_DEVICE;
  CUdeviceptr counters;
  guint needed = 0;

  /* The device address of the staging block, where the counters follow
   * the slots. */
  if (!CUGI_CALL (cuMemHostGetDevicePointer, (&counters, self->slots, 0), &first_error))
    goto unsupported;
  counters += (guint8 *) self->counters - self->slots;
  self->counters_device = counters;

  for (guint i = 0; i < self->n_chunks; i++)
    {
      guint slot = i % self->n_slots;
      CUdeviceptr host_counter = counters + (2 * slot) * STAGING_COUNTER_STRIDE * sizeof (gint);
      CUdeviceptr device_counter = host_counter + STAGING_COUNTER_STRIDE * sizeof (gint);
      gsize start = (gsize) i * self->chunk_size;
      gsize length = MIN (self->chunk_size, self->size - start);
      guint8 *staged = self->slots + (gsize) slot * self->chunk_size;

      if (!CUGI_CALL (cuStreamWaitValue32, (handle, host_counter, upload ? i + 1 : i + 1 - self->n_slots,
                                            CU_STREAM_WAIT_VALUE_GEQ), &first_error))
        {
          if (i == 0)
            goto unsupported;
          break;
        }
      if (upload)
        needed = i + 1;
      if (!(upload ? CUGI_CALL (cuMemcpyHtoDAsync, (address + start, staged, length, handle), &first_error)
                   : CUGI_CALL (cuMemcpyDtoHAsync, (staged, address + start, length, handle), &first_error)) ||
          !CUGI_CALL (cuStreamWriteValue32, (handle, device_counter, i + 1, CU_STREAM_WRITE_VALUE_DEFAULT),
                      &first_error))
        break;
      needed = i + 1;
    }
  if (first_error == NULL)
    return CUGI_ENQUEUED;
  self->n_chunks = needed;
  g_propagate_error (error, g_steal_pointer (&first_error));
  return CUGI_ENQUEUE_FAILED;

unsupported:
  g_debug ("Copying pageable memory without the pipeline: %s", first_error->message);
  return CUGI_ENQUEUE_UNSUPPORTED;
}

/* The straight copy of the driver, complete on return. */
static gboolean
copy_direct (CUdeviceptr         address,
             guint8             *host,
             gsize               size,
             CugiCopyDirection   direction,
             gboolean            pinned,
             GError            **error)
{
  if (direction == CUGI_COPY_TO_HOST)
    return CUGI_CALL (cuMemcpyDtoH, (host, address, size), error);
  /* From pinned memory the copy is done when it returns; from pageable
   * memory once staged by the driver, possibly before its DMA lands. */
  return CUGI_CALL (cuMemcpyHtoD, (address, host, size), error) &&
         (pinned || cugi_buffer_wait_for_pageable_upload (error));
}

gboolean
cugi_buffer_wait_for_pageable_upload (GError **error)
{
  return CUGI_CALL (cuStreamSynchronize, (CU_STREAM_LEGACY), error);
}

gsize
cugi_pipeline_max_bytes (void)
{
  return (gsize) STAGING_MAX_CHUNKS_PER_PIPELINE * get_tuning ()->chunk_bytes;
}

void
cugi_staging_set_stopped_waiting_error (GError **error)
{
  g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_DRIVER,
                       _("The stream stopped waiting for memory in the middle of a copy"));
}

/* One pipeline of a synchronous copy on @target: FALSE with @error set
 * when it failed, with *@unsupported set when the stream cannot wait for
 * memory (nothing was copied). */
static gboolean
copy_pipelined_sync (CugiBuffer         *self,
                     CugiStream         *target,
                     CUdeviceptr         address,
                     guint8             *host,
                     gsize               size,
                     CugiCopyDirection   direction,
                     gboolean           *unsupported,
                     GError            **error)
{
  g_autoptr(CugiHostBuffer) staging = NULL;
  g_autoptr(CugiPipeline) pipeline = NULL;
  g_autoptr(GError) enqueue_error = NULL;

  pipeline = cugi_pipeline_new (self->ownership.binding.context, direction, host, NULL, size, TRUE, &staging,
                                error);
  if (pipeline == NULL)
    return FALSE;
  switch (cugi_pipeline_enqueue (pipeline, address, cugi_stream_get_handle (target), &enqueue_error))
    {
    case CUGI_ENQUEUE_UNSUPPORTED:
      *unsupported = TRUE;
      return FALSE;
    case CUGI_ENQUEUE_FAILED:
      /* What was enqueued runs, and needs the staging until it is done. */
      cugi_buffer_track_work (target, self, NULL, staging, NULL);
      break;
    case CUGI_ENQUEUED:
      break;
    }

  /* This thread is one of the threads doing the host's side. */
  cugi_pipeline_start (pipeline, get_tuning ()->threads - 1);
  cugi_pipeline_run (pipeline);
  cugi_pipeline_wait (pipeline);
  if (enqueue_error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&enqueue_error));
      return FALSE;
    }
  /* A download is done once its last chunk is out of the staging. An
   * upload's last chunks are still on their way from it: the staging goes
   * back to the pool, where the copy's next pipeline takes it and zeroes
   * its counters, only once the stream is past them (else that pipeline
   * and the stream's waits on the old counters wait for each other). */
  return direction == CUGI_COPY_TO_HOST ||
         CUGI_CALL (cuStreamSynchronize, (cugi_stream_get_handle (target)), error);
}

gboolean
cugi_buffer_copy_host_sync (CugiBuffer         *self,
                            gsize               offset,
                            guint8             *host,
                            gsize               size,
                            CugiCopyDirection   direction,
                            GError            **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CUdeviceptr address = self->address + offset;
  CugiStream *target;
  gboolean pinned = FALSE;
  gboolean unsupported = FALSE;
  gsize piece;

  if (!cugi_context_enter (self->ownership.binding.context, &scope, error))
    return FALSE;
  if (size < cugi_staging_direct_bytes (direction) || !cugi_staging_can_pipeline () ||
      (pinned = cugi_staging_is_pinned (host, size)))
    return copy_direct (address, host, size, direction, pinned, error);

  /* On the default stream, where the driver's synchronous copies run. */
  target = cugi_stream_resolve (NULL, self->ownership.binding.context);
  for (gsize done = 0; done < size; done += piece)
    {
      piece = MIN (size - done, cugi_pipeline_max_bytes ());
      if (copy_pipelined_sync (self, target, address + done, host + done, piece, direction,
                               &unsupported, error))
        continue;
      if (!unsupported)
        return FALSE;
      if (done == 0)
        return copy_direct (address, host, size, direction, FALSE, error);
      cugi_staging_set_stopped_waiting_error (error);
      return FALSE;
    }
  return TRUE;
}

void
cugi_pipeline_wait_stream_past (CugiPipeline *self)
{
  for (guint slot = 0; slot < MIN (self->n_slots, self->n_chunks); slot++)
    wait_for_counter (pipeline_counter (self, slot, TRUE), pipeline_last_chunk (self, slot) + 1);
}
