/* cugi-staging.c: the asynchronous transfers, downloads and uploads with
 * GTask, through pinned staging memory */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "cugi-context-private.h"
#include "cugi-stream-private.h"
#include "cugi-private.h"
#include "cugi-staging-private.h"

/* ---- asynchronous transfers ----------------------------------------------- */

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
  g_autoptr(GBytes) result = NULL;
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CugiFeed *fed = NULL;
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
      !cugi_staging_download (self, self->address + offset, size, target, &result, &fed, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  if (fed != NULL)
    {
      g_task_set_task_data (task, fed, cugi_feed_unref);
      cugi_stream_complete_task (target, task, cugi_feed_return);
      return;
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
  CugiFeed *fed = NULL;
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

  if (cugi_staging_is_pinned (data, size))
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
  else if (!cugi_staging_upload_pageable (self, self->address + offset, bytes, target, &fed, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  if (fed != NULL)
    g_task_set_task_data (task, fed, cugi_feed_unref);
  cugi_stream_complete_task (target, task, fed != NULL ? cugi_feed_return : NULL);
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
