/* cugi-staging.c: asynchronous transfers through pinned staging memory */
#include "config.h"

#include <stdatomic.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "cugi-context-private.h"
#include "cugi-stream-private.h"
#include "cugi-private.h"
#include "cugi-memory-private.h"
#include "cugi-buffer-private.h"

/* ---- asynchronous transfers ----------------------------------------------- */

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

/* Pageable data is staged by worker threads, in chunks of at least
 * STAGING_MIN_CHUNK bytes and at most STAGING_MAX_CHUNKS of them, so that
 * the copy of a chunk to the device overlaps the staging of the next.
 * Chunks start at multiples of STAGING_CHUNK_ALIGNMENT. */
#define STAGING_THREADS 4
#define STAGING_MIN_CHUNK ((gsize) 2 << 20)
#define STAGING_MAX_CHUNKS 8
#define STAGING_CHUNK_ALIGNMENT ((gsize) 64 << 10)

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

static void
return_downloaded_bytes (GTask *task)
{
  g_task_return_pointer (task, g_bytes_ref (g_task_get_task_data (task)),
                         (GDestroyNotify) g_bytes_unref);
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
 * they are the pinned memory itself, not a copy of it. That memory comes
 * from a pool that cugi keeps for each device and returns there when the
 * bytes are freed, so that downloads in a row do not pin memory each time.
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
      (staging = staging_new (self->ownership.binding.context, size, &error)) == NULL ||
      (result = cugi_host_buffer_get_bytes (staging, &error)) == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  if (!CUGI_CALL (cuMemcpyDtoHAsync, ((void *) g_bytes_get_data (result, NULL), self->address + offset,
                                      size, cugi_stream_get_handle (target)), &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  cugi_buffer_track_work (target, self, NULL, NULL, result);
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

/* Whether the driver can DMA straight from @data: pinned host memory
 * (a CugiHostBuffer's bytes, say) needs no staging copy. */
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

/* The staging of pageable data for an upload, by a worker thread. It copies
 * the data into the pinned staging memory chunk by chunk and, after each
 * chunk, raises a counter in pinned memory; on the stream, the copy of each
 * chunk to the device waits for the counter (cuStreamWaitValue32). So the
 * calling thread only enqueues, and the copies keep their place in the
 * stream: after the work enqueued before the call, before the work enqueued
 * after it.
 *
 * The job holds what it touches until it is done, and drops it in the
 * caller's main context: the last reference to the caller's bytes runs
 * their free function there, and that of the staging memory may free it
 * (beyond what the pool holds), a driver call that a worker must not make
 * while the device may be waiting for another job. */
typedef struct
{
  GBytes         *bytes;          /* the caller's pageable data */
  CugiHostBuffer *staging;
  GBytes         *counter_bytes;  /* the counter's memory */
  guint8         *staged;
  gint           *counter;        /* the number of chunks staged */
  gsize           chunk_size;
  guint           n_chunks;
  GMainContext   *main_context;   /* the caller's, until the job is done */
} StagingJob;

static void
staging_job_free (gpointer data)
{
  StagingJob *job = data;

  g_bytes_unref (job->bytes);
  g_object_unref (job->staging);
  g_bytes_unref (job->counter_bytes);
  g_free (job);
}

/* Nothing to do but be dispatched: the source's destroy notify frees the job. */
static gboolean
staging_job_done (gpointer data)
{
  return G_SOURCE_REMOVE;
}

static void
stage_chunks (gpointer data,
              gpointer user_data)
{
  StagingJob *job = data;
  gsize size;
  const guint8 *source = g_bytes_get_data (job->bytes, &size);
  GMainContext *main_context;
  GSource *done;

  for (guint i = 0; i < job->n_chunks; i++)
    {
      gsize start = i * job->chunk_size;

      memcpy (job->staged + start, source + start, MIN (job->chunk_size, size - start));
      /* memcpy may use non-temporal stores, which only a full fence orders
       * before the counter's. */
      atomic_thread_fence (memory_order_seq_cst);
      g_atomic_int_set (job->counter, (gint) i + 1);
    }

  /* The job is freed with the source, after it ran or with its context: it
   * may be gone as soon as the source is attached. */
  main_context = g_steal_pointer (&job->main_context);
  done = g_idle_source_new ();
  g_source_set_priority (done, G_PRIORITY_DEFAULT);
  g_source_set_static_name (done, "[cugi] upload staged");
  g_source_set_callback (done, staging_job_done, job, staging_job_free);
  g_source_attach (done, main_context);
  g_source_unref (done);
  g_main_context_unref (main_context);
}

static gpointer
staging_threads_new (gpointer data)
{
  /* Not exclusive: the threads are GLib's shared ones, made when needed, so
   * making the pool cannot fail. */
  return g_thread_pool_new (stage_chunks, NULL, STAGING_THREADS, FALSE, NULL);
}

GThreadPool *
cugi_buffer_get_staging_threads (void)
{
  static GOnce once = G_ONCE_INIT;

  return g_once (&once, staging_threads_new, NULL);
}

/* Enqueues the copy of pageable @bytes to @address on @target, staged by a
 * worker thread (see StagingJob); where the stream cannot wait for memory,
 * the data is staged here. */
static gboolean
upload_pageable (CugiBuffer   *self,
                 CUdeviceptr   address,
                 GBytes       *bytes,
                 CugiStream   *target,
                 GError      **error)
{
  g_autoptr(CugiHostBuffer) staging = NULL;
  g_autoptr(CugiHostBuffer) counter_memory = NULL;
  g_autoptr(GBytes) counter_bytes = NULL;
  g_autoptr(GError) wait_error = NULL;
  CUstream handle = cugi_stream_get_handle (target);
  CUdeviceptr counter_address = 0;
  StagingJob *job;
  guint8 *staged;
  gint *counter;
  gsize size, chunk_size;
  const guint8 *data = g_bytes_get_data (bytes, &size);
  guint n_chunks;
  gboolean ok = TRUE;

  /* The counter's bytes keep its memory for the stream's waits. */
  if ((staging = staging_new (self->ownership.binding.context, size, error)) == NULL ||
      (staged = cugi_host_buffer_get_data (staging, NULL, error)) == NULL ||
      (counter_memory = staging_new (self->ownership.binding.context, sizeof (gint), error)) == NULL ||
      (counter = (gint *) cugi_host_buffer_get_data (counter_memory, NULL, error)) == NULL ||
      (counter_bytes = cugi_host_buffer_get_bytes (counter_memory, error)) == NULL)
    return FALSE;
  g_atomic_int_set (counter, 0);

  if (cugi_cuda.cuStreamWaitValue32 == NULL ||
      !CUGI_CALL (cuMemHostGetDevicePointer, (&counter_address, counter, 0), &wait_error) ||
      !CUGI_CALL (cuStreamWaitValue32, (handle, counter_address, 1, CU_STREAM_WAIT_VALUE_GEQ), &wait_error))
    {
      g_debug ("Staging an upload on the calling thread: %s",
               wait_error != NULL ? wait_error->message : "the driver lacks cuStreamWaitValue32");
      memcpy (staged, data, size);
      if (!CUGI_CALL (cuMemcpyHtoDAsync, (address, staged, size, handle), error))
        return FALSE;
      cugi_buffer_track_work (target, self, NULL, staging, NULL);
      return TRUE;
    }

  chunk_size = MAX (STAGING_MIN_CHUNK, (size - 1) / STAGING_MAX_CHUNKS + 1);
  chunk_size = (chunk_size + STAGING_CHUNK_ALIGNMENT - 1) & ~(STAGING_CHUNK_ALIGNMENT - 1);
  n_chunks = (size + chunk_size - 1) / chunk_size;
  for (guint i = 0; ok && i < n_chunks; i++)
    {
      gsize start = i * chunk_size;

      /* The wait for the first chunk is enqueued already. */
      ok = (i == 0 || CUGI_CALL (cuStreamWaitValue32, (handle, counter_address, i + 1,
                                                       CU_STREAM_WAIT_VALUE_GEQ), error)) &&
           CUGI_CALL (cuMemcpyHtoDAsync, (address + start, staged + start,
                                          MIN (chunk_size, size - start), handle), error);
    }

  /* Even after an error, what was enqueued waits for the staging: it must
   * run, and the memory stay until the stream is past it. */
  cugi_buffer_track_work (target, self, NULL, staging, counter_bytes);
  job = g_new (StagingJob, 1);
  job->bytes = g_bytes_ref (bytes);
  job->staging = g_steal_pointer (&staging);
  job->counter_bytes = g_steal_pointer (&counter_bytes);
  job->staged = staged;
  job->counter = counter;
  job->chunk_size = chunk_size;
  job->n_chunks = n_chunks;
  job->main_context = cugi_capture_main_context ();
  g_thread_pool_push (cugi_buffer_get_staging_threads (), job, NULL);
  return ok;
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
  else if (!upload_pageable (self, self->address + offset, bytes, target, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  cugi_stream_complete_task (target, task, NULL);
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
