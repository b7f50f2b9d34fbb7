/* cugi-staging.c: transfers through pinned staging memory: the staging
 * pool, the pipeline that copies pageable memory in chunks, and the
 * asynchronous transfers */
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
#include "cugi-memory-private.h"
#include "cugi-buffer-private.h"

/* ---- the staging pool ----------------------------------------------------- */

/* Asynchronous transfers go through pinned staging memory, which cugi keeps
 * for reuse: pinning memory takes milliseconds and can wait for the device,
 * so in the steady state neither the calls nor their completions allocate or
 * free any, and a download's bytes give their block back when they are
 * freed, from any thread, without a driver call. One pool per device, of
 * portable memory (any context of the process can copy to and from it) made
 * in the device's primary context, which the device keeps for the rest of
 * the process, as cugi keeps the pool. Beyond STAGING_MAX_HELD_BYTES held
 * for reuse, blocks given back are freed. Bindings borrow the same memory
 * (cugi_host_buffer_new_staging()). */
#define STAGING_FLAGS (CUGI_HOST_BUFFER_FLAGS_PORTABLE | CUGI_HOST_BUFFER_FLAGS_MAPPED)
#define STAGING_MAX_HELD_BYTES ((gsize) 512 << 20)
/* An asynchronous download of up to this many bytes lands in staging
 * memory, which the pool can hold for the next; a larger one in ordinary
 * memory, through the pipeline. */
#define STAGING_MAX_PINNED_DOWNLOAD_BYTES (STAGING_MAX_HELD_BYTES / 2)

/* The staging pools made so far: CugiDevice -> CugiHostMemoryPool (owned).
 * Devices live as long as the process, and so do their pools. */
static GMutex staging_pools_lock;
static GHashTable *staging_pools;

/* The staging pool of @context's device (borrowed), made on first use. */
static CugiHostMemoryPool *
get_staging_pool (CugiContext  *context,
                  GError      **error)
{
  CugiDevice *device = cugi_context_get_device (context);
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&staging_pools_lock);
  g_autoptr(CugiContext) primary = NULL;
  CugiHostMemoryPool *pool;

  if (staging_pools == NULL)
    staging_pools = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_object_unref);
  if ((pool = g_hash_table_lookup (staging_pools, device)) != NULL)
    return pool;
  if ((primary = cugi_device_get_primary_context (device, error)) == NULL ||
      (pool = cugi_host_memory_pool_new (primary, STAGING_FLAGS, error)) == NULL)
    return NULL;
  cugi_host_memory_pool_set_max_held_bytes (pool, STAGING_MAX_HELD_BYTES);
  g_hash_table_insert (staging_pools, device, pool);
  return pool;
}

/* Pinned memory for @size bytes from the staging pool of @context's device. */
static CugiHostBuffer *
staging_new (CugiContext  *context,
             gsize         size,
             GError      **error)
{
  CugiHostMemoryPool *pool = get_staging_pool (context, error);

  return pool != NULL ? cugi_host_memory_pool_allocate (pool, size, error) : NULL;
}

/* staging_new(), and the memory itself in *@data, for the copies that
 * stage through it. */
static CugiHostBuffer *
staging_new_with_data (CugiContext  *context,
                       gsize         size,
                       guint8      **data,
                       GError      **error)
{
  g_autoptr(CugiHostBuffer) staging = staging_new (context, size, error);

  if (staging == NULL || (*data = cugi_host_buffer_get_data (staging, NULL, error)) == NULL)
    return NULL;
  return g_steal_pointer (&staging);
}

/**
 * cugi_host_buffer_new_staging:
 * @context: (nullable): a context of the device the memory is to be copied
 *   to or from, or %NULL for the default context
 * @size: the size in bytes
 * @error: return location for a #GError
 *
 * Borrows @size bytes of pinned host memory from the pool through which
 * cugi stages transfers to and from @context's device (the pageable data of
 * cugi_buffer_upload_bytes_async(), the bytes of
 * cugi_buffer_download_async()), so that a language binding moving its own
 * data through pinned memory shares that pool instead of keeping one of its
 * own: fill the memory and copy it with cugi_buffer_upload_from_host(), or
 * copy into it with cugi_buffer_download_to_host() and read it. The memory
 * is not initialized; it is portable and mapped
 * (%CUGI_HOST_BUFFER_FLAGS_PORTABLE | %CUGI_HOST_BUFFER_FLAGS_MAPPED), so
 * every context of the process copies to and from it, and it belongs to the
 * device's primary context, which cugi keeps.
 *
 * When the host buffer is freed or finalized, and the work using it has
 * completed, the memory goes back to the pool for the next transfer; the
 * pool holds up to 512 MiB of it for reuse, and cugi_free_staging_memory()
 * frees what it holds.
 *
 * Returns: (transfer full): the host buffer, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiHostBuffer *
cugi_host_buffer_new_staging (CugiContext  *context,
                              gsize         size,
                              GError      **error)
{
  g_autoptr(CugiContext) resolved = NULL;

  g_return_val_if_fail (context == NULL || CUGI_IS_CONTEXT (context), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!cugi_ensure_driver (error) ||
      (resolved = cugi_context_resolve (context, error)) == NULL)
    return NULL;
  return staging_new (resolved, size, error);
}

/**
 * cugi_free_staging_memory:
 * @error: return location for a #GError
 *
 * Frees the pinned staging memory that cugi holds for reuse, on every
 * device: the memory of transfers that completed, and that of
 * cugi_host_buffer_new_staging() given back. Memory in use now is not
 * affected; it is held again when it comes back. For a program that is done
 * transferring for a while, or that needs the pinned memory elsewhere.
 *
 * Returns: %TRUE on success; on failure the memory is freed as far as
 *   possible and the first error is reported
 *
 * Since: 0.1
 */
gboolean
cugi_free_staging_memory (GError **error)
{
  g_autoptr(GPtrArray) pools = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GError) first_error = NULL;

  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  /* Freeing calls the driver: not under the lock that transfers take. */
  g_mutex_lock (&staging_pools_lock);
  if (staging_pools != NULL)
    {
      GHashTableIter iter;
      gpointer pool;

      g_hash_table_iter_init (&iter, staging_pools);
      while (g_hash_table_iter_next (&iter, NULL, &pool))
        g_ptr_array_add (pools, g_object_ref (pool));
    }
  g_mutex_unlock (&staging_pools_lock);

  for (guint i = 0; i < pools->len; i++)
    cugi_host_memory_pool_free_held (g_ptr_array_index (pools, i),
                                     first_error == NULL ? &first_error : NULL);
  if (first_error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&first_error));
      return FALSE;
    }
  return TRUE;
}

/* ---- the pipeline: pageable memory through staging slots ------------------ */

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
/* See pipeline_max_bytes(). */
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

/* The size from which a copy in @direction goes through the pipeline. */
static gsize
direct_bytes (CugiCopyDirection direction)
{
  const StagingTuning *tuning = get_tuning ();

  return direction == CUGI_COPY_TO_DEVICE ? tuning->direct_upload_bytes : tuning->direct_download_bytes;
}

/* Whether the driver can DMA straight from or to @data: pinned host memory
 * (a CugiHostBuffer's bytes, say) needs no staging. */
static gboolean
is_pinned (const guint8 *data,
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

/* Whether the driver has the stream memory operations the pipeline needs. */
static gboolean
can_pipeline (void)
{
  return cugi_cuda.cuStreamWaitValue32 != NULL && cugi_cuda.cuStreamWriteValue32 != NULL;
}

/* A copy through the staging slots, shared by the threads doing the host's
 * side. It holds the staging, and for an asynchronous copy the caller's
 * memory, until the last worker is done with it, even where the stream got
 * past the copy before (a copy enqueued in part, after an error). */
typedef struct
{
  CugiCopyDirection direction;
  guint8           *host;          /* the caller's memory */
  GBytes           *host_bytes;    /* what holds it, for an asynchronous copy; else NULL */
  CugiHostBuffer   *staging;       /* holds the slots and counters */
  guint8           *slots;         /* n_slots chunks of staging memory */
  gint             *counters;      /* host[s] at 2s, device[s] at 2s + 1, strided */
  CUdeviceptr       counters_device;  /* the device's address of counters, once enqueued */
  gsize             size;
  gsize             chunk_size;
  guint             n_slots;
  guint             n_chunks;      /* those the host must do: all but after an error */
  gint              next;          /* the next chunk to take */
  gint              done;          /* the chunks done */
  GMutex            lock;          /* for a caller waiting for done == n_chunks */
  GCond             all_done;
} Pipeline;

static gint *
pipeline_counter (Pipeline *self,
                  guint     slot,
                  gboolean  device)
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
  Pipeline *self = data;

  g_clear_pointer (&self->host_bytes, g_bytes_unref);
  g_clear_object (&self->staging);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->all_done);
}

static void
pipeline_unref (gpointer data)
{
  g_atomic_rc_box_release_full (data, pipeline_clear);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Pipeline, pipeline_unref)

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

/* The host's side: takes chunks until none are left. */
static void
pipeline_run (Pipeline *self)
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
        {
          g_mutex_lock (&self->lock);
          g_cond_broadcast (&self->all_done);
          g_mutex_unlock (&self->lock);
        }
    }
}

static void
pipeline_work (gpointer data,
               gpointer user_data)
{
  g_autoptr(Pipeline) self = data;

  pipeline_run (self);
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

/* Hands @self to @n_threads workers of the pool. */
static void
pipeline_start (Pipeline *self,
                guint     n_threads)
{
  GThreadPool *workers = cugi_buffer_get_staging_threads ();

  for (guint i = 0; i < MIN (n_threads, self->n_chunks); i++)
    g_thread_pool_push (workers, g_atomic_rc_box_acquire (self), NULL);
}

/* Waits until the host's side of @self is done. */
static void
pipeline_wait (Pipeline *self)
{
  g_mutex_lock (&self->lock);
  while ((guint) g_atomic_int_get (&self->done) < self->n_chunks)
    g_cond_wait (&self->all_done, &self->lock);
  g_mutex_unlock (&self->lock);
}

typedef enum
{
  ENQUEUED,
  ENQUEUE_FAILED,       /* part of it is enqueued: the host must do its side */
  ENQUEUE_UNSUPPORTED,  /* nothing is: the stream cannot wait for memory */
} EnqueueResult;

/* A pipeline for @size bytes of @host, the counters zeroed, in staging
 * memory of @context's device that it returns in *@staging (which the
 * pipeline's work needs until it is done); NULL with @error set. */
static Pipeline *
pipeline_new (CugiContext        *context,
              CugiCopyDirection   direction,
              guint8             *host,
              gsize               size,
              CugiHostBuffer    **staging,
              GError            **error)
{
  gsize chunk_size;
  guint n_chunks, n_slots;
  guint8 *staged;
  Pipeline *self;

  if ((*staging = staging_new_with_data (context, pipeline_plan (size, &chunk_size, &n_chunks, &n_slots),
                                         &staged, error)) == NULL)
    return NULL;
  self = g_atomic_rc_box_new0 (Pipeline);
  self->direction = direction;
  self->host = host;
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
pipeline_last_chunk (Pipeline *self,
                     guint     slot)
{
  return slot + (self->n_chunks - 1 - slot) / self->n_slots * self->n_slots;
}

/* Has the stream @handle wait until the host's side of the download @self,
 * enqueued on it (as far as self->n_chunks says), is done: the last chunk
 * of each slot copied out. */
static gboolean
pipeline_enqueue_host_waits (Pipeline  *self,
                             CUstream   handle,
                             GError   **error)
{
  for (guint slot = 0; slot < MIN (self->n_slots, self->n_chunks); slot++)
    if (!CUGI_CALL (cuStreamWaitValue32, (handle, self->counters_device +
                                          (2 * slot) * STAGING_COUNTER_STRIDE * sizeof (gint),
                                          pipeline_last_chunk (self, slot) + 1, CU_STREAM_WAIT_VALUE_GEQ),
                    error))
      return FALSE;
  return TRUE;
}

/* Enqueues the device's side of @self, to or from @address, on @handle.
 * After ENQUEUE_FAILED, self->n_chunks is cut to the chunks that the
 * stream, as far as it was enqueued, waits for the host to do. */
static EnqueueResult
pipeline_enqueue (Pipeline    *self,
                  CUdeviceptr  address,
                  CUstream     handle,
                  GError     **error)
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
    return ENQUEUED;
  self->n_chunks = needed;
  g_propagate_error (error, g_steal_pointer (&first_error));
  return ENQUEUE_FAILED;

unsupported:
  g_debug ("Copying pageable memory without the pipeline: %s", first_error->message);
  return ENQUEUE_UNSUPPORTED;
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

/* The largest piece of a copy that one pipeline moves. A pipeline's device
 * side is enqueued whole before its workers start, and a stream's queue
 * holds a limited number of operations: on the H100, 256 chunks (768
 * operations) filled it, and enqueuing waited for workers that had not
 * started. Larger copies run as several pipelines, one after another. */
static gsize
pipeline_max_bytes (void)
{
  return (gsize) STAGING_MAX_CHUNKS_PER_PIPELINE * get_tuning ()->chunk_bytes;
}

/* A stream that waited for memory in a copy's first pipeline refused to in
 * a later one: the copy is cut short. */
static void
set_stopped_waiting_error (GError **error)
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
  g_autoptr(Pipeline) pipeline = NULL;
  g_autoptr(GError) enqueue_error = NULL;

  pipeline = pipeline_new (self->ownership.binding.context, direction, host, size, &staging, error);
  if (pipeline == NULL)
    return FALSE;
  switch (pipeline_enqueue (pipeline, address, cugi_stream_get_handle (target), &enqueue_error))
    {
    case ENQUEUE_UNSUPPORTED:
      *unsupported = TRUE;
      return FALSE;
    case ENQUEUE_FAILED:
      /* What was enqueued runs, and needs the staging until it is done. */
      cugi_buffer_track_work (target, self, NULL, staging, NULL);
      break;
    case ENQUEUED:
      break;
    }

  /* This thread is one of the threads doing the host's side. */
  pipeline_start (pipeline, get_tuning ()->threads - 1);
  pipeline_run (pipeline);
  pipeline_wait (pipeline);
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
  if (size < direct_bytes (direction) || !can_pipeline () || (pinned = is_pinned (host, size)))
    return copy_direct (address, host, size, direction, pinned, error);

  /* On the default stream, where the driver's synchronous copies run. */
  target = cugi_stream_resolve (NULL, self->ownership.binding.context);
  for (gsize done = 0; done < size; done += piece)
    {
      piece = MIN (size - done, pipeline_max_bytes ());
      if (copy_pipelined_sync (self, target, address + done, host + done, piece, direction,
                               &unsupported, error))
        continue;
      if (!unsupported)
        return FALSE;
      if (done == 0)
        return copy_direct (address, host, size, direction, FALSE, error);
      set_stopped_waiting_error (error);
      return FALSE;
    }
  return TRUE;
}

/* Enqueues one pipeline of an asynchronous copy of @size bytes between
 * @data (which @bytes holds) and @address on @handle, and starts its
 * workers; the pipeline in *@made (it holds the staging, which the stream
 * needs until it is past the copy). */
static EnqueueResult
enqueue_pipeline (CugiContext        *context,
                  CugiCopyDirection   direction,
                  CUdeviceptr         address,
                  guint8             *data,
                  gsize               size,
                  GBytes             *bytes,
                  CUstream            handle,
                  Pipeline          **made,
                  GError            **error)
{
  g_autoptr(CugiHostBuffer) staging = NULL;
  g_autoptr(Pipeline) pipeline = NULL;
  EnqueueResult result;

  pipeline = pipeline_new (context, direction, data, size, &staging, error);
  if (pipeline == NULL)
    return ENQUEUE_FAILED;
  pipeline->host_bytes = g_bytes_ref (bytes);
  result = pipeline_enqueue (pipeline, address, handle, error);
  /* Even after an error, what was enqueued must run, and waits for the
   * workers' side. */
  if (result != ENQUEUE_UNSUPPORTED)
    {
      pipeline_start (pipeline, get_tuning ()->threads);
      *made = g_steal_pointer (&pipeline);
    }
  return result;
}

/* The pipelines of one asynchronous copy, @size bytes between @data (which
 * @bytes holds) and @address of @self, enqueued one after another on
 * @target until one is not; the stream keeps each one's staging, and
 * @bytes, until it is past it. A download's stream then waits for the
 * host's side of them all (for its completion and the staging's release),
 * at the end rather than after each, so that the device copies the next
 * pipeline's chunks while the workers finish the one before.
 * ENQUEUE_UNSUPPORTED only where nothing was enqueued. */
static EnqueueResult
enqueue_pipelines_on (CugiBuffer        *self,
                      CugiCopyDirection  direction,
                      CUdeviceptr        address,
                      guint8            *data,
                      gsize              size,
                      GBytes            *bytes,
                      CugiStream        *target,
                      GError           **error)
{
  g_autoptr(GPtrArray) enqueued = g_ptr_array_new_with_free_func (pipeline_unref);
  CUstream handle = cugi_stream_get_handle (target);
  EnqueueResult result = ENQUEUED;
  gsize done, piece = 0;

  for (done = 0; done < size && result == ENQUEUED; done += piece)
    {
      Pipeline *pipeline = NULL;

      piece = MIN (size - done, pipeline_max_bytes ());
      result = enqueue_pipeline (self->ownership.binding.context, direction, address + done, data + done,
                                 piece, bytes, handle, &pipeline, error);
      if (pipeline != NULL)
        {
          cugi_buffer_track_work (target, self, NULL, pipeline->staging, bytes);
          g_ptr_array_add (enqueued, pipeline);
        }
    }
  if (result == ENQUEUE_UNSUPPORTED && done > piece)
    {
      set_stopped_waiting_error (error);
      result = ENQUEUE_FAILED;
    }
  for (guint i = 0; direction == CUGI_COPY_TO_HOST && i < enqueued->len; i++)
    if (!pipeline_enqueue_host_waits (g_ptr_array_index (enqueued, i), handle,
                                      result == ENQUEUED ? error : NULL))
      {
        result = ENQUEUE_FAILED;
        break;
      }
  return result;
}

/* ---- copies too large for a stream's queue: fed from a thread ------------- */

/* A stream's queue holds some 700 operations (three a chunk, up to 64
 * chunks a pipeline), and enqueuing beyond waits until the device gets
 * through some: an asynchronous copy of more pipelines than this would
 * hold up its caller (a 1 GiB download, 27 ms of the main loop on the
 * H200). Such a copy runs on a stream of its own, fed by a thread of
 * cugi's that keeps at most this many of its pipelines on it at a time
 * (feed_copy()); the caller's stream waits, in its place, for a gate in
 * pinned memory that the copy's stream opens at its end. */
#define STAGING_MAX_QUEUED_PIPELINES 2

typedef struct
{
  CugiContext       *context;
  CugiCopyDirection  direction;
  CUdeviceptr        address;
  GBytes            *bytes;          /* the host's side of the copy */
  CUstream           side;           /* the copy's stream, destroyed by the feeder */
  CUevent            start;          /* where the copy starts on the caller's stream */
  CugiHostBuffer    *gate_staging;   /* holds the gate */
  gint              *gate;
  CUdeviceptr        gate_device;
  GPtrArray         *pipelines;      /* the last ones, with their staging, until the feed is freed */
  GMutex             lock;
  GError            *error;          /* the feeder's, under lock */
} Feed;

static void
feed_clear (gpointer data)
{
  Feed *self = data;

  g_clear_object (&self->context);
  g_clear_pointer (&self->bytes, g_bytes_unref);
  g_clear_object (&self->gate_staging);
  g_clear_pointer (&self->pipelines, g_ptr_array_unref);
  g_clear_error (&self->error);
  g_mutex_clear (&self->lock);
}

static void
feed_unref (gpointer data)
{
  g_atomic_rc_box_release_full (data, feed_clear);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Feed, feed_unref)

/* Called with the context entered. */
static void
feed_destroy_stream (Feed *self)
{
  if (self->side != NULL)
    cugi_cuda.cuStreamDestroy (self->side);
  if (self->start != NULL)
    cugi_cuda.cuEventDestroy (self->start);
  self->side = NULL;
  self->start = NULL;
}

/* Waits until @self, an upload, is behind its stream: the last chunk of
 * each slot copied to the device, after which the stream no longer reads
 * the staging or its counters. */
static void
pipeline_wait_stream_past (Pipeline *self)
{
  for (guint slot = 0; slot < MIN (self->n_slots, self->n_chunks); slot++)
    wait_for_counter (pipeline_counter (self, slot, TRUE), pipeline_last_chunk (self, slot) + 1);
}

/* The feeder's copy: its pipelines on its stream, at most
 * STAGING_MAX_QUEUED_PIPELINES at a time, so that enqueuing never waits
 * for the stream's queue; the feeder is one of each one's workers. Before
 * it enqueues another, it waits for the oldest to be done, host and
 * device, which gives that one's staging back to the pool for the next to
 * take (its memory still in the caches), as the pipelines of a synchronous
 * copy take it. Then it waits for the host's side of the last ones, which
 * the gate must come after (a download's bytes are copied out of the
 * staging by the host). The feed keeps those, with their staging, until it
 * is freed, after the caller's stream is past the gate. */
static gboolean
feed_copy (Feed      *self,
           GError   **error)
{
  g_autoptr(GPtrArray) in_flight = g_ptr_array_new_with_free_func (pipeline_unref);
  EnqueueResult result = ENQUEUED;
  gsize size, done, piece = 0;
  guint8 *host = (guint8 *) g_bytes_get_data (self->bytes, &size);

  for (done = 0; done < size && result == ENQUEUED; done += piece)
    {
      Pipeline *pipeline = NULL;

      if (in_flight->len == STAGING_MAX_QUEUED_PIPELINES)
        {
          Pipeline *oldest = g_ptr_array_index (in_flight, 0);

          pipeline_wait (oldest);
          if (self->direction == CUGI_COPY_TO_DEVICE)
            pipeline_wait_stream_past (oldest);
          g_ptr_array_remove_index (in_flight, 0);
        }
      piece = MIN (size - done, pipeline_max_bytes ());
      result = enqueue_pipeline (self->context, self->direction, self->address + done, host + done, piece,
                                 self->bytes, self->side, &pipeline, error);
      if (pipeline != NULL)
        {
          g_ptr_array_add (in_flight, pipeline);
          /* Rather than wait, the feeder helps the workers. */
          pipeline_run (pipeline);
        }
    }
  for (guint i = 0; result == ENQUEUED && i < in_flight->len; i++)
    pipeline_wait (g_ptr_array_index (in_flight, i));
  if (result == ENQUEUE_UNSUPPORTED)
    set_stopped_waiting_error (error);
  /* The stream may still read an upload's staging, or be short of a
   * failed pipeline's end. */
  g_ptr_array_extend_and_steal (self->pipelines, g_steal_pointer (&in_flight));
  return result == ENQUEUED;
}

/* Takes @error as the feed's, unless it has one. */
static void
feed_keep_error (Feed   *self,
                 GError *error)
{
  g_mutex_lock (&self->lock);
  if (self->error == NULL)
    self->error = error;
  else
    g_error_free (error);
  g_mutex_unlock (&self->lock);
}

/* The feeder: copies on its stream, then opens the gate behind whatever
 * the stream got. An error is the feed's before the gate opens: the copy's
 * task reads it once the caller's stream is past the gate. */
static void
feed_run (gpointer data,
          gpointer user_data)
{
  g_autoptr(Feed) self = data;
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  GError *error = NULL;
  gboolean opened = FALSE;

  if (cugi_context_enter (self->context, &scope, &error))
    {
      if (!feed_copy (self, &error))
        feed_keep_error (self, g_steal_pointer (&error));
      opened = CUGI_CALL (cuStreamWriteValue32, (self->side, self->gate_device, 1, CU_STREAM_WRITE_VALUE_DEFAULT),
                          &error);
      feed_destroy_stream (self);
    }
  if (error != NULL)
    feed_keep_error (self, error);
  /* The caller's stream must not wait for ever: opened from here, it may
   * go on before what the copy's stream got is done, which the error
   * reports. */
  if (!opened)
    g_atomic_int_set (self->gate, 1);
}

static gpointer
feeders_new (gpointer data)
{
  return g_thread_pool_new (feed_run, NULL, -1, FALSE, NULL);
}

/* The feeder's error, if any (transfer full). */
static GError *
feed_dup_error (Feed *self)
{
  GError *error;

  g_mutex_lock (&self->lock);
  error = self->error != NULL ? g_error_copy (self->error) : NULL;
  g_mutex_unlock (&self->lock);
  return error;
}

/* Starts an asynchronous copy fed from a thread (see
 * STAGING_MAX_QUEUED_PIPELINES): what the caller's stream @target gets now
 * is an event and the wait for the gate. ENQUEUE_UNSUPPORTED, with nothing
 * that matters enqueued, where the stream cannot wait for memory. */
static EnqueueResult
feed_start (CugiBuffer         *buffer,
            CugiCopyDirection   direction,
            CUdeviceptr         address,
            GBytes             *bytes,
            CugiStream         *target,
            Feed              **fed,
            GError            **error)
{
  static GOnce feeders = G_ONCE_INIT;
  CugiContext *context = buffer->ownership.binding.context;
  CUstream handle = cugi_stream_get_handle (target);
  g_autoptr(GError) wait_error = NULL;
  g_autoptr(Feed) self = g_atomic_rc_box_new0 (Feed);
  GPtrArray *resources;
  guint8 *gate;

  g_mutex_init (&self->lock);
  self->context = g_object_ref (context);
  self->direction = direction;
  self->address = address;
  self->bytes = g_bytes_ref (bytes);
  self->pipelines = g_ptr_array_new_with_free_func (pipeline_unref);
  if ((self->gate_staging = staging_new_with_data (context, sizeof (gint), &gate, error)) == NULL)
    return ENQUEUE_FAILED;
  self->gate = (gint *) gate;
  *self->gate = 0;
  if (!CUGI_CALL (cuMemHostGetDevicePointer, (&self->gate_device, gate, 0), error) ||
      !CUGI_CALL (cuStreamCreateWithPriority, (&self->side, CU_STREAM_NON_BLOCKING, 0), error) ||
      !CUGI_CALL (cuEventCreate, (&self->start, CU_EVENT_DISABLE_TIMING), error) ||
      !CUGI_CALL (cuEventRecord, (self->start, handle), error) ||
      !CUGI_CALL (cuStreamWaitEvent, (self->side, self->start, 0), error))
    {
      feed_destroy_stream (self);
      return ENQUEUE_FAILED;
    }
  if (!CUGI_CALL (cuStreamWaitValue32, (handle, self->gate_device, 1, CU_STREAM_WAIT_VALUE_GEQ), &wait_error))
    {
      g_debug ("Copying pageable memory without the pipeline: %s", wait_error->message);
      feed_destroy_stream (self);
      return ENQUEUE_UNSUPPORTED;
    }

  /* The caller's stream, past the gate, is past the copy: it keeps what
   * the copy needs until then. */
  resources = cugi_work_resources_new ();
  cugi_work_resources_add (resources, cugi_buffer_begin_work (buffer), cugi_buffer_end_work);
  cugi_work_resources_add (resources, g_atomic_rc_box_acquire (self), feed_unref);
  cugi_work_track (target, NULL, resources);
  g_thread_pool_push (g_once (&feeders, feeders_new, NULL), g_atomic_rc_box_acquire (self), NULL);
  *fed = g_steal_pointer (&self);
  return ENQUEUED;
}

/* Enqueues an asynchronous copy of @size bytes between @data (which @bytes
 * holds) and @address on @target: as pipelines one after another, or, when
 * more than the stream's queue holds, fed from a thread (in *@fed, whose
 * error the copy's task reports). ENQUEUE_UNSUPPORTED, with nothing
 * enqueued, where the stream cannot wait for memory. */
static EnqueueResult
enqueue_pipelines (CugiBuffer         *self,
                   CugiCopyDirection   direction,
                   CUdeviceptr         address,
                   guint8             *data,
                   gsize               size,
                   GBytes             *bytes,
                   CugiStream         *target,
                   Feed              **fed,
                   GError            **error)
{
  *fed = NULL;
  if ((size - 1) / pipeline_max_bytes () + 1 > STAGING_MAX_QUEUED_PIPELINES)
    return feed_start (self, direction, address, bytes, target, fed, error);
  return enqueue_pipelines_on (self, direction, address, data, size, bytes, target, error);
}

/* Enqueues the copy of pageable @bytes to @address on @target. Small copies,
 * and all where the stream cannot wait for memory, are staged here, on the
 * calling thread; others by the workers, through the pipeline (*@fed set
 * where it is fed from a thread). */
static gboolean
upload_pageable (CugiBuffer   *self,
                 CUdeviceptr   address,
                 GBytes       *bytes,
                 CugiStream   *target,
                 Feed        **fed,
                 GError      **error)
{
  g_autoptr(CugiHostBuffer) staging = NULL;
  CUstream handle = cugi_stream_get_handle (target);
  CugiContext *context = self->ownership.binding.context;
  gsize size;
  guint8 *data = (guint8 *) g_bytes_get_data (bytes, &size);
  guint8 *staged;

  if (size >= direct_bytes (CUGI_COPY_TO_DEVICE) && can_pipeline ())
    switch (enqueue_pipelines (self, CUGI_COPY_TO_DEVICE, address, data, size, bytes, target, fed, error))
      {
      case ENQUEUED:
        return TRUE;
      case ENQUEUE_FAILED:
        return FALSE;
      case ENQUEUE_UNSUPPORTED:
        /* Staged here, on this thread. */
        break;
      }

  if ((staging = staging_new_with_data (context, size, &staged, error)) == NULL)
    return FALSE;
  memcpy (staged, data, size);
  if (!CUGI_CALL (cuMemcpyHtoDAsync, (address, staged, size, handle), error))
    return FALSE;
  cugi_buffer_track_work (target, self, NULL, staging, NULL);
  return TRUE;
}

/* Enqueues, for an asynchronous download of @size bytes from @address on
 * @target larger than the staging pool keeps, their copy into ordinary
 * memory through the pipeline: pinning that much memory for each download,
 * to be freed after, costs more than copying it out of staging. The bytes
 * are in *@downloaded, or NULL with nothing enqueued where the stream
 * cannot wait for memory; *@fed is set where the copy is fed from a
 * thread. */
static gboolean
download_pipelined (CugiBuffer   *self,
                    CUdeviceptr   address,
                    gsize         size,
                    CugiStream   *target,
                    GBytes      **downloaded,
                    Feed        **fed,
                    GError      **error)
{
  g_autoptr(GBytes) landing = NULL;
  guint8 *data;

  *downloaded = NULL;
  if ((data = g_try_malloc (size)) == NULL)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_OUT_OF_MEMORY,
                   _("Cannot allocate %zu bytes of host memory"), size);
      return FALSE;
    }
  landing = g_bytes_new_take (data, size);
  switch (enqueue_pipelines (self, CUGI_COPY_TO_HOST, address, data, size, landing, target, fed, error))
    {
    case ENQUEUED:
      *downloaded = g_steal_pointer (&landing);
      return TRUE;
    case ENQUEUE_FAILED:
      return FALSE;
    case ENQUEUE_UNSUPPORTED:
      break;
    }
  return TRUE;
}

/* ---- asynchronous transfers ----------------------------------------------- */

static void
return_downloaded_bytes (GTask *task)
{
  g_task_return_pointer (task, g_bytes_ref (g_task_get_task_data (task)),
                         (GDestroyNotify) g_bytes_unref);
}

/* For a copy fed from a thread, whose task data is the feed: its error,
 * else the downloaded bytes or TRUE. */
static void
return_fed (GTask *task)
{
  Feed *feed = g_task_get_task_data (task);
  GError *error = feed_dup_error (feed);

  if (error != NULL)
    g_task_return_error (task, error);
  else if (feed->direction == CUGI_COPY_TO_HOST)
    g_task_return_pointer (task, g_bytes_ref (feed->bytes), (GDestroyNotify) g_bytes_unref);
  else
    g_task_return_boolean (task, TRUE);
}

/**
 * cugi_buffer_download_async:
 * @self: a #CugiBuffer
 * @offset: where to read in @self, in bytes
 * @size: the number of bytes
 * @stream: (nullable): the stream to enqueue the copy on, or %NULL for the
 *   default stream
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called in the thread-default main context of the
 *   caller once the bytes are on the host
 * @user_data: data for @callback
 *
 * Enqueues a copy of @size bytes at @offset of @self into pinned host memory
 * (`cuMemcpyDtoHAsync`) and returns at once; the main loop keeps running
 * while the copy is done. Get the bytes with cugi_buffer_download_finish():
 * up to 256 MiB, they are the pinned memory itself, not a copy of it. That
 * memory comes from a pool that cugi keeps for each device and returns there
 * when the bytes are freed, so that downloads in a row do not pin memory
 * each time. Larger downloads, more than the pool keeps, land in ordinary
 * memory, copied out of pinned staging memory by worker threads while the
 * rest of the download is in flight (where the driver lets the stream wait
 * for them), since pinning that much memory for each download would cost
 * more than the copy.
 *
 * @self stays alive until the copy completes, whatever the caller drops.
 * Cancelling @cancellable completes the call at once with
 * %G_IO_ERROR_CANCELLED, but does not stop the copy already enqueued.
 *
 * Since: 0.1
 */
void
cugi_buffer_download_async (CugiBuffer          *self,
                            gsize                offset,
                            gsize                size,
                            CugiStream          *stream,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiHostBuffer) staging = NULL;
  g_autoptr(GBytes) result = NULL;
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  Feed *fed = NULL;
  CugiStream *target;

  g_return_if_fail (CUGI_IS_BUFFER (self));
  g_return_if_fail (stream == NULL || CUGI_IS_STREAM (stream));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, cugi_buffer_download_async);
  if (g_task_return_error_if_cancelled (task))
    return;
  if (!cugi_buffer_check_usable_range (self, offset, size, _("buffer"), &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  if (size == 0)
    {
      g_task_return_pointer (task, g_bytes_new (NULL, 0), (GDestroyNotify) g_bytes_unref);
      return;
    }

  if (!cugi_buffer_enter_for_stream (self, stream, &scope, &target, &error) ||
      (size > STAGING_MAX_PINNED_DOWNLOAD_BYTES && can_pipeline () &&
       !download_pipelined (self, self->address + offset, size, target, &result, &fed, &error)))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  if (fed != NULL)
    {
      g_task_set_task_data (task, fed, feed_unref);
      cugi_stream_complete_task (target, task, return_fed);
      return;
    }
  if (result == NULL)
    {
      if ((staging = staging_new (self->ownership.binding.context, size, &error)) == NULL ||
          (result = cugi_host_buffer_get_bytes (staging, &error)) == NULL ||
          !CUGI_CALL (cuMemcpyDtoHAsync, ((void *) g_bytes_get_data (result, NULL), self->address + offset,
                                          size, cugi_stream_get_handle (target)), &error))
        {
          g_task_return_error (task, g_steal_pointer (&error));
          return;
        }
      cugi_buffer_track_work (target, self, NULL, NULL, result);
    }
  g_task_set_task_data (task, g_steal_pointer (&result), (GDestroyNotify) g_bytes_unref);
  cugi_stream_complete_task (target, task, return_downloaded_bytes);
}

/**
 * cugi_buffer_download_finish:
 * @self: a #CugiBuffer
 * @result: the #GAsyncResult given to the callback
 * @error: return location for a #GError
 *
 * Finishes cugi_buffer_download_async().
 *
 * Returns: (transfer full): the downloaded bytes, or %NULL with @error set
 *   (%G_IO_ERROR_CANCELLED when cancelled)
 *
 * Since: 0.1
 */
GBytes *
cugi_buffer_download_finish (CugiBuffer    *self,
                             GAsyncResult  *result,
                             GError       **error)
{
  g_return_val_if_fail (CUGI_IS_BUFFER (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == cugi_buffer_download_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* The body of the asynchronous uploads: enqueues the copy of @bytes into
 * @self at @offset on @stream, and completes @task when it is done. */
static void
upload_async (CugiBuffer *self,
              gsize       offset,
              GBytes     *bytes,
              CugiStream *stream,
              GTask      *task)
{
  g_autoptr(GError) error = NULL;
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  Feed *fed = NULL;
  CugiStream *target;
  const guint8 *data;
  gsize size;

  data = g_bytes_get_data (bytes, &size);
  if (g_task_return_error_if_cancelled (task))
    return;
  if (!cugi_buffer_check_usable_range (self, offset, size, _("buffer"), &error) ||
      (size > 0 && !cugi_buffer_enter_for_stream (self, stream, &scope, &target, &error)))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  if (size == 0)
    {
      g_task_return_boolean (task, TRUE);
      return;
    }

  if (is_pinned (data, size))
    {
      if (!CUGI_CALL (cuMemcpyHtoDAsync, (self->address + offset, data, size,
                                          cugi_stream_get_handle (target)), &error))
        {
          g_task_return_error (task, g_steal_pointer (&error));
          return;
        }
      /* The caller's pinned bytes, until the DMA is done. */
      cugi_buffer_track_work (target, self, NULL, NULL, bytes);
    }
  else if (!upload_pageable (self, self->address + offset, bytes, target, &fed, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  if (fed != NULL)
    g_task_set_task_data (task, fed, feed_unref);
  cugi_stream_complete_task (target, task, fed != NULL ? return_fed : NULL);
}

/**
 * cugi_buffer_upload_bytes_async:
 * @self: a #CugiBuffer
 * @offset: where to write in @self, in bytes
 * @bytes: the bytes to write
 * @stream: (nullable): the stream to enqueue the copy on, or %NULL for the
 *   default stream
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called in the thread-default main context of the
 *   caller once the bytes are on the device
 * @user_data: data for @callback
 *
 * Enqueues a copy of @bytes into @self at @offset (`cuMemcpyHtoDAsync`) and
 * returns at once; the copy keeps its place on the stream, after the work
 * enqueued before the call and before the work enqueued after it. Pageable
 * data is first copied into pinned staging memory (by a worker thread, where
 * the stream can wait for it), so that the transfer itself does not hold up
 * the host; bytes that already are pinned memory
 * (cugi_host_buffer_get_bytes(), or those of cugi_buffer_download_finish())
 * are sent as they are. @self and @bytes stay alive until the copy
 * completes, whatever the caller drops. Cancelling @cancellable completes
 * the call at once with %G_IO_ERROR_CANCELLED, but does not stop the copy
 * already enqueued.
 *
 * Since: 0.1
 */
void
cugi_buffer_upload_bytes_async (CugiBuffer          *self,
                                gsize                offset,
                                GBytes              *bytes,
                                CugiStream          *stream,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (CUGI_IS_BUFFER (self));
  g_return_if_fail (bytes != NULL);
  g_return_if_fail (stream == NULL || CUGI_IS_STREAM (stream));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, cugi_buffer_upload_bytes_async);
  upload_async (self, offset, bytes, stream, task);
}

/**
 * cugi_buffer_upload_bytes_finish:
 * @self: a #CugiBuffer
 * @result: the #GAsyncResult given to the callback
 * @error: return location for a #GError
 *
 * Finishes cugi_buffer_upload_bytes_async().
 *
 * Returns: %TRUE once the bytes are on the device, %FALSE with @error set
 *   (%G_IO_ERROR_CANCELLED when cancelled)
 *
 * Since: 0.1
 */
gboolean
cugi_buffer_upload_bytes_finish (CugiBuffer    *self,
                                 GAsyncResult  *result,
                                 GError       **error)
{
  g_return_val_if_fail (CUGI_IS_BUFFER (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == cugi_buffer_upload_bytes_async, FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/**
 * cugi_buffer_upload_from_address_async:
 * @self: a #CugiBuffer
 * @offset: where to write in @self, in bytes
 * @address: the host address of the bytes to write, as an integer
 * @size: the number of bytes
 * @stream: (nullable): the stream to enqueue the copy on, or %NULL for the
 *   default stream
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called in the thread-default main context of the
 *   caller once the bytes are on the device
 * @user_data: data for @callback
 *
 * Like cugi_buffer_upload_bytes_async(), with the data given by its host
 * address: for language bindings that upload the memory of an object of
 * their own (a NumPy array, any object exposing Python's buffer protocol)
 * without converting or copying it first. Pageable memory is staged as for
 * cugi_buffer_upload_bytes_async(), pinned memory is sent as it is.
 *
 * cugi does not own that memory: the caller keeps it valid, and does not
 * change it, until @callback has run (a binding keeps the source object
 * referenced until then). Cancelling @cancellable completes the call at once
 * with %G_IO_ERROR_CANCELLED, but does not stop the copy already enqueued,
 * which may still read the memory: a caller that cancels waits for the
 * stream (cugi_stream_synchronize()) before releasing it. Address 0 with a
 * size, or a range that does not fit in the address space, is
 * %CUGI_ERROR_INVALID_ARGUMENT.
 *
 * Since: 0.1
 */
void
cugi_buffer_upload_from_address_async (CugiBuffer          *self,
                                       gsize                offset,
                                       guint64              address,
                                       gsize                size,
                                       CugiStream          *stream,
                                       GCancellable        *cancellable,
                                       GAsyncReadyCallback  callback,
                                       gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;
  const guint8 *data;

  g_return_if_fail (CUGI_IS_BUFFER (self));
  g_return_if_fail (stream == NULL || CUGI_IS_STREAM (stream));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, cugi_buffer_upload_from_address_async);
  if (!cugi_memory_host_address_get (address, size, &data, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  /* The caller's memory, which it keeps until the callback. */
  bytes = g_bytes_new_static (data, size);
  upload_async (self, offset, bytes, stream, task);
}

/**
 * cugi_buffer_upload_from_address_finish:
 * @self: a #CugiBuffer
 * @result: the #GAsyncResult given to the callback
 * @error: return location for a #GError
 *
 * Finishes cugi_buffer_upload_from_address_async().
 *
 * Returns: %TRUE once the bytes are on the device, %FALSE with @error set
 *   (%G_IO_ERROR_CANCELLED when cancelled)
 *
 * Since: 0.1
 */
gboolean
cugi_buffer_upload_from_address_finish (CugiBuffer    *self,
                                        GAsyncResult  *result,
                                        GError       **error)
{
  g_return_val_if_fail (CUGI_IS_BUFFER (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == cugi_buffer_upload_from_address_async,
                        FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}
