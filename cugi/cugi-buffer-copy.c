/* cugi-buffer-copy.c: linear copies of device memory, with the host, with
 * host buffers and between buffers */
#include "config.h"

#include <string.h>
#include <glib/gi18n-lib.h>

#include "cugi-context-private.h"
#include "cugi-stream-private.h"
#include "cugi-private.h"
#include "cugi-memory-private.h"
#include "cugi-buffer-private.h"

/* ---- linear transfers ----------------------------------------------------- */

/**
 * cugi_buffer_upload:
 * @self: a #CugiBuffer
 * @offset: where to write in @self, in bytes
 * @data: (array length=len) (nullable): the bytes to write
 * @len: the number of bytes
 * @error: return location for a #GError
 *
 * Copies @len bytes from the host into @self at @offset (`cuMemcpyHtoD`).
 * The data is on the device when this returns, so work on any stream sees
 * it, and @data may be reused at once.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
cugi_buffer_upload (CugiBuffer    *self,
                    gsize          offset,
                    const guint8  *data,
                    gsize          len,
                    GError       **error)
{
  g_return_val_if_fail (CUGI_IS_BUFFER (self), FALSE);
  g_return_val_if_fail (data != NULL || len == 0, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!cugi_buffer_check_usable_range (self, offset, len, _("buffer"), error))
    return FALSE;
  return len == 0 ||
         cugi_buffer_copy_host_sync (self, offset, (guint8 *) data, len, CUGI_COPY_TO_DEVICE, error);
}

/**
 * cugi_buffer_upload_bytes:
 * @self: a #CugiBuffer
 * @offset: where to write in @self, in bytes
 * @bytes: the bytes to write
 * @error: return location for a #GError
 *
 * Like cugi_buffer_upload(), with the data in a #GBytes.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
cugi_buffer_upload_bytes (CugiBuffer  *self,
                          gsize        offset,
                          GBytes      *bytes,
                          GError     **error)
{
  gsize len;
  const guint8 *data;

  g_return_val_if_fail (bytes != NULL, FALSE);

  data = g_bytes_get_data (bytes, &len);
  return cugi_buffer_upload (self, offset, data, len, error);
}

/**
 * cugi_buffer_upload_from_address:
 * @self: a #CugiBuffer
 * @offset: where to write in @self, in bytes
 * @address: the host address of the bytes to write, as an integer
 * @size: the number of bytes
 * @error: return location for a #GError
 *
 * Like cugi_buffer_upload(), with the data given by its host address: for
 * language bindings that hold the memory of an object of their own (a NumPy
 * array, a `bytearray`, any object exposing Python's buffer protocol) and
 * would otherwise convert it element by element into an array. The memory
 * may be pageable or pinned; the caller keeps it valid for the call. Address
 * 0 with a size, or a range that does not fit in the address space, is
 * %CUGI_ERROR_INVALID_ARGUMENT.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
cugi_buffer_upload_from_address (CugiBuffer  *self,
                                 gsize        offset,
                                 guint64      address,
                                 gsize        size,
                                 GError     **error)
{
  const guint8 *data;

  g_return_val_if_fail (CUGI_IS_BUFFER (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return cugi_memory_host_address_get (address, size, &data, error) &&
         cugi_buffer_upload (self, offset, data, size, error);
}

guint8 *
cugi_buffer_try_alloc_host (gsize    size,
                            GError **error)
{
  guint8 *data = g_try_malloc (size);

  if (data == NULL)
    g_set_error (error, CUGI_ERROR, CUGI_ERROR_OUT_OF_MEMORY,
                 _("Cannot allocate %zu bytes of host memory"), size);
  return data;
}

/**
 * cugi_buffer_download:
 * @self: a #CugiBuffer
 * @offset: where to read in @self, in bytes
 * @size: the number of bytes
 * @error: return location for a #GError
 *
 * Copies @size bytes at @offset of @self to the host (`cuMemcpyDtoH`),
 * waiting for work enqueued before on the context's default stream. See
 * cugi_buffer_download_async() to wait without blocking.
 *
 * Returns: (transfer full): the bytes, or %NULL with @error set
 *
 * Since: 0.1
 */
GBytes *
cugi_buffer_download (CugiBuffer  *self,
                      gsize        offset,
                      gsize        size,
                      GError     **error)
{
  g_autofree guint8 *data = NULL;

  g_return_val_if_fail (CUGI_IS_BUFFER (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!cugi_buffer_check_usable_range (self, offset, size, _("buffer"), error))
    return NULL;
  if (size == 0)
    return g_bytes_new (NULL, 0);
  if ((data = cugi_buffer_try_alloc_host (size, error)) == NULL ||
      !cugi_buffer_copy_host_sync (self, offset, data, size, CUGI_COPY_TO_HOST, error))
    return NULL;
  return g_bytes_new_take (g_steal_pointer (&data), size);
}

/**
 * cugi_buffer_download_to_address:
 * @self: a #CugiBuffer
 * @offset: where to read in @self, in bytes
 * @address: the host address to write the bytes to, as an integer
 * @size: the number of bytes
 * @error: return location for a #GError
 *
 * Like cugi_buffer_download(), into host memory given by its address
 * instead of new bytes: for language bindings that download into an object
 * of their own (a NumPy array, a `bytearray`, any writable object exposing
 * Python's buffer protocol) without a copy. The memory may be pageable or
 * pinned; the caller keeps it valid and writable for the call. Address 0
 * with a size, or a range that does not fit in the address space, is
 * %CUGI_ERROR_INVALID_ARGUMENT.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
cugi_buffer_download_to_address (CugiBuffer  *self,
                                 gsize        offset,
                                 guint64      address,
                                 gsize        size,
                                 GError     **error)
{
  const guint8 *data;

  g_return_val_if_fail (CUGI_IS_BUFFER (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!cugi_memory_host_address_get (address, size, &data, error) ||
      !cugi_buffer_check_usable_range (self, offset, size, _("buffer"), error))
    return FALSE;
  return size == 0 || cugi_buffer_copy_host_sync (self, offset, (guint8 *) data, size, CUGI_COPY_TO_HOST, error);
}

gboolean
cugi_buffer_get_host_address_for_copy (CugiHostBuffer     *host,
                                       CugiCopyDirection   direction,
                                       gpointer           *address,
                                       GError            **error)
{
  return direction == CUGI_COPY_TO_HOST ? cugi_host_buffer_get_writable_address (host, address, error)
                                        : cugi_host_buffer_get_address (host, address, error);
}

gboolean
cugi_buffer_same_context (CugiBuffer *a,
                          CugiBuffer *b)
{
  return cugi_context_equal (a->ownership.binding.context, b->ownership.binding.context);
}

/**
 * cugi_buffer_copy:
 * @dst: the buffer to copy to: the one the method is called on
 * @dst_offset: where to write in @dst, in bytes
 * @src: the buffer to copy from (may be @dst, if the ranges do not overlap)
 * @src_offset: where to read in @src, in bytes
 * @size: the number of bytes
 * @stream: (nullable): the stream to enqueue the copy on (of @dst's
 *   context), or %NULL for the default stream
 * @error: return location for a #GError
 *
 * Enqueues a device-to-device copy of @size bytes of @src into @dst, the
 * buffer this method is called on (in Python,
 * `dst.copy (dst_offset, src, src_offset, size, stream)`), with
 * `cuMemcpyDtoDAsync`. When the buffers
 * belong to different contexts (on different devices, say) it is a peer copy
 * (`cuMemcpyPeerAsync`), which the driver stages through the host where the
 * devices cannot reach each other. Returns once the copy is enqueued; both
 * buffers stay alive until it completes.
 *
 * Returns: %TRUE if the copy was enqueued
 *
 * Since: 0.1
 */
gboolean
cugi_buffer_copy (CugiBuffer  *dst,
                  gsize        dst_offset,
                  CugiBuffer  *src,
                  gsize        src_offset,
                  gsize        size,
                  CugiStream  *stream,
                  GError     **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CugiStream *target;
  CUdeviceptr to, from;
  gboolean ok;

  g_return_val_if_fail (CUGI_IS_BUFFER (dst), FALSE);
  g_return_val_if_fail (CUGI_IS_BUFFER (src), FALSE);
  g_return_val_if_fail (stream == NULL || CUGI_IS_STREAM (stream), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!cugi_buffer_check_usable_range (dst, dst_offset, size, _("destination buffer"), error) ||
      !cugi_buffer_check_usable_range (src, src_offset, size, _("source buffer"), error))
    return FALSE;
  if (size == 0)
    return TRUE;
  if (!cugi_buffer_enter_for_stream (dst, stream, &scope, &target, error))
    return FALSE;

  to = dst->address + dst_offset;
  from = src->address + src_offset;
  if (cugi_buffer_same_context (dst, src))
    ok = CUGI_CALL (cuMemcpyDtoDAsync, (to, from, size, cugi_stream_get_handle (target)), error);
  else
    ok = CUGI_CALL (cuMemcpyPeerAsync, (to, cugi_context_get_handle (dst->ownership.binding.context),
                                        from, cugi_context_get_handle (src->ownership.binding.context),
                                        size, cugi_stream_get_handle (target)), error);
  if (ok)
    cugi_buffer_track_work (target, dst, src, NULL, NULL);
  return ok;
}

/* ---- transfers with host buffers ------------------------------------------ */

static gboolean
copy_with_host_buffer (CugiBuffer         *self,
                       gsize               offset,
                       CugiHostBuffer     *host,
                       gsize               host_offset,
                       gsize               size,
                       CugiStream         *stream,
                       CugiCopyDirection   direction,
                       GError            **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CugiStream *target;
  gpointer host_address;
  guint8 *host_data;
  CUdeviceptr device_data;
  CUstream handle;
  gboolean ok;

  if (!cugi_buffer_check_usable_range (self, offset, size, _("buffer"), error) ||
      !cugi_buffer_get_host_address_for_copy (host, direction, &host_address, error) ||
      !cugi_memory_check_range (cugi_host_buffer_get_size (host), host_offset, size,
                                _("host buffer"), error))
    return FALSE;
  if (size == 0)
    return TRUE;
  if (!cugi_buffer_enter_for_stream (self, stream, &scope, &target, error))
    return FALSE;

  host_data = (guint8 *) host_address + host_offset;
  device_data = self->address + offset;
  /* Without a stream, the synchronous copies: from and to pinned memory they
   * return once the copy is done. */
  if (stream == NULL)
    return direction == CUGI_COPY_TO_DEVICE
             ? CUGI_CALL (cuMemcpyHtoD, (device_data, host_data, size), error)
             : CUGI_CALL (cuMemcpyDtoH, (host_data, device_data, size), error);

  handle = cugi_stream_get_handle (target);
  ok = direction == CUGI_COPY_TO_DEVICE
         ? CUGI_CALL (cuMemcpyHtoDAsync, (device_data, host_data, size, handle), error)
         : CUGI_CALL (cuMemcpyDtoHAsync, (host_data, device_data, size, handle), error);
  if (ok)
    cugi_buffer_track_work (target, self, NULL, host, NULL);
  return ok;
}

/**
 * cugi_buffer_upload_from_host:
 * @self: a #CugiBuffer
 * @offset: where to write in @self, in bytes
 * @host: the pinned host buffer to read
 * @host_offset: where to read in @host, in bytes
 * @size: the number of bytes
 * @stream: (nullable): the stream to enqueue the copy on, or %NULL to copy
 *   at once
 * @error: return location for a #GError
 *
 * Copies @size bytes of @host into @self. On a stream the copy is truly
 * asynchronous (`cuMemcpyHtoDAsync`: the host goes on while the DMA engine
 * reads @host), and both buffers stay alive until it completes; do not
 * write to that part of @host before then. Without a stream it returns once
 * the copy is done.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
cugi_buffer_upload_from_host (CugiBuffer      *self,
                              gsize            offset,
                              CugiHostBuffer  *host,
                              gsize            host_offset,
                              gsize            size,
                              CugiStream      *stream,
                              GError         **error)
{
  g_return_val_if_fail (CUGI_IS_BUFFER (self), FALSE);
  g_return_val_if_fail (CUGI_IS_HOST_BUFFER (host), FALSE);
  g_return_val_if_fail (stream == NULL || CUGI_IS_STREAM (stream), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return copy_with_host_buffer (self, offset, host, host_offset, size, stream, CUGI_COPY_TO_DEVICE, error);
}

/**
 * cugi_buffer_download_to_host:
 * @self: a #CugiBuffer
 * @offset: where to read in @self, in bytes
 * @host: the pinned host buffer to write
 * @host_offset: where to write in @host, in bytes
 * @size: the number of bytes
 * @stream: (nullable): the stream to enqueue the copy on, or %NULL to copy
 *   at once
 * @error: return location for a #GError
 *
 * Copies @size bytes of @self into @host. On a stream the copy is
 * asynchronous (`cuMemcpyDtoHAsync`) and both buffers stay alive until it
 * completes; read @host only after that (cugi_stream_synchronize(), or an
 * event). Without a stream it returns once the copy is done.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
cugi_buffer_download_to_host (CugiBuffer      *self,
                              gsize            offset,
                              CugiHostBuffer  *host,
                              gsize            host_offset,
                              gsize            size,
                              CugiStream      *stream,
                              GError         **error)
{
  g_return_val_if_fail (CUGI_IS_BUFFER (self), FALSE);
  g_return_val_if_fail (CUGI_IS_HOST_BUFFER (host), FALSE);
  g_return_val_if_fail (stream == NULL || CUGI_IS_STREAM (stream), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return copy_with_host_buffer (self, offset, host, host_offset, size, stream, CUGI_COPY_TO_HOST, error);
}

/**
 * cugi_buffer_download_to_host_async:
 * @self: a #CugiBuffer
 * @offset: where to read in @self, in bytes
 * @host: the pinned host buffer to write
 * @host_offset: where to write in @host, in bytes
 * @size: the number of bytes
 * @stream: (nullable): the stream to enqueue the copy on, or %NULL for the
 *   default stream
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called in the thread-default main context of the
 *   caller once the bytes are in @host
 * @user_data: data for @callback
 *
 * Enqueues a copy of @size bytes of @self into @host, as
 * cugi_buffer_download_to_host() does on a stream, and returns at once;
 * @callback runs once the copy (and all the work enqueued on the stream
 * before it) has completed. Finish with
 * cugi_buffer_download_to_host_finish().
 *
 * Unlike cugi_buffer_download_async(), which gives each download pinned
 * memory of its own, this writes where the caller says: one host buffer can
 * take a frame after another, or an image band by band. Read @host only once
 * @callback has run: through cugi_host_buffer_get_data() or, without a
 * copy, cugi_host_buffer_get_bytes(). Both buffers stay alive until the copy
 * completes. Cancelling @cancellable completes the call at once with
 * %G_IO_ERROR_CANCELLED, but does not stop the copy already enqueued: do
 * not read @host, or enqueue another copy into it, expecting it to be done.
 *
 * Since: 0.1
 */
void
cugi_buffer_download_to_host_async (CugiBuffer          *self,
                                    gsize                offset,
                                    CugiHostBuffer      *host,
                                    gsize                host_offset,
                                    gsize                size,
                                    CugiStream          *stream,
                                    GCancellable        *cancellable,
                                    GAsyncReadyCallback  callback,
                                    gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  CugiStream *target;

  g_return_if_fail (CUGI_IS_BUFFER (self));
  g_return_if_fail (CUGI_IS_HOST_BUFFER (host));
  g_return_if_fail (stream == NULL || CUGI_IS_STREAM (stream));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, cugi_buffer_download_to_host_async);
  if (g_task_return_error_if_cancelled (task))
    return;
  /* Without a stream, the default one: copy_with_host_buffer() would copy at
   * once, blocking, where it is given none. */
  target = cugi_stream_resolve (stream, self->ownership.binding.context);
  if (!copy_with_host_buffer (self, offset, host, host_offset, size, target, CUGI_COPY_TO_HOST, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  cugi_stream_complete_task (target, task, NULL);
}

/**
 * cugi_buffer_download_to_host_finish:
 * @self: a #CugiBuffer
 * @result: the #GAsyncResult given to the callback
 * @error: return location for a #GError
 *
 * Finishes cugi_buffer_download_to_host_async().
 *
 * Returns: %TRUE once the bytes are in the host buffer; %FALSE with @error
 *   set (%G_IO_ERROR_CANCELLED when cancelled)
 *
 * Since: 0.1
 */
gboolean
cugi_buffer_download_to_host_finish (CugiBuffer    *self,
                                     GAsyncResult  *result,
                                     GError       **error)
{
  g_return_val_if_fail (CUGI_IS_BUFFER (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == cugi_buffer_download_to_host_async, FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}
