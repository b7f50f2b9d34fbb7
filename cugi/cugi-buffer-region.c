/* cugi-buffer-region.c: 2D and 3D copies of device memory */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "cugi-context-private.h"
#include "cugi-stream-private.h"
#include "cugi-private.h"
#include "cugi-memory-private.h"
#include "cugi-buffer-private.h"

/* ---- 2D and 3D transfers -------------------------------------------------- */

/* One end of a pitched copy inside a buffer. */
typedef struct
{
  CugiBuffer *buffer;
  gsize       offset;
  gsize       pitch;
  gsize       slice_height;
} PitchedRegion;

static gboolean
check_region (const PitchedRegion  *region,
              gsize                 width,
              gsize                 height,
              gsize                 depth,
              const char           *what,
              GError              **error)
{
  return cugi_buffer_check_usable (region->buffer, error) &&
         cugi_memory_check_pitched_range (region->buffer->size, region->offset, region->pitch,
                                          region->slice_height, width, height, depth, what, error);
}

static void
set_device_source (CUDA_MEMCPY3D       *copy,
                   const PitchedRegion *src)
{
  copy->srcMemoryType = CU_MEMORYTYPE_DEVICE;
  copy->srcDevice = src->buffer->address + src->offset;
  copy->srcPitch = src->pitch;
  copy->srcHeight = src->slice_height;
}

static void
set_device_destination (CUDA_MEMCPY3D       *copy,
                        const PitchedRegion *dst)
{
  copy->dstMemoryType = CU_MEMORYTYPE_DEVICE;
  copy->dstDevice = dst->buffer->address + dst->offset;
  copy->dstPitch = dst->pitch;
  copy->dstHeight = dst->slice_height;
}

/* A CUDA_MEMCPY3D between contexts: the same fields, with the contexts in
 * place of the reserved pointers. */
static CUDA_MEMCPY3D_PEER
peer_copy (const CUDA_MEMCPY3D *copy,
           CUcontext            src_context,
           CUcontext            dst_context)
{
  CUDA_MEMCPY3D_PEER peer = {
    .srcMemoryType = copy->srcMemoryType,
    .srcDevice = copy->srcDevice,
    .srcContext = src_context,
    .srcPitch = copy->srcPitch,
    .srcHeight = copy->srcHeight,
    .dstMemoryType = copy->dstMemoryType,
    .dstDevice = copy->dstDevice,
    .dstContext = dst_context,
    .dstPitch = copy->dstPitch,
    .dstHeight = copy->dstHeight,
    .WidthInBytes = copy->WidthInBytes,
    .Height = copy->Height,
    .Depth = copy->Depth,
  };
  return peer;
}

static gboolean
copy_region (const PitchedRegion  *dst,
             const PitchedRegion  *src,
             gsize                 width,
             gsize                 height,
             gsize                 depth,
             CugiStream           *stream,
             GError              **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CUDA_MEMCPY3D copy = { .WidthInBytes = width, .Height = height, .Depth = depth };
  CugiStream *target;
  CUstream handle;
  gboolean ok;

  if (!check_region (dst, width, height, depth, _("destination buffer"), error) ||
      !check_region (src, width, height, depth, _("source buffer"), error))
    return FALSE;
  if (width == 0 || height == 0 || depth == 0)
    return TRUE;
  if (!cugi_buffer_enter_for_stream (dst->buffer, stream, &scope, &target, error))
    return FALSE;

  set_device_source (&copy, src);
  set_device_destination (&copy, dst);
  handle = cugi_stream_get_handle (target);
  if (cugi_buffer_same_context (dst->buffer, src->buffer))
    ok = CUGI_CALL (cuMemcpy3DAsync, (&copy, handle), error);
  else
    {
      CUDA_MEMCPY3D_PEER peer = peer_copy (&copy, cugi_context_get_handle (src->buffer->ownership.binding.context),
                                           cugi_context_get_handle (dst->buffer->ownership.binding.context));
      ok = CUGI_CALL (cuMemcpy3DPeerAsync, (&peer, handle), error);
    }
  if (ok)
    cugi_buffer_track_work (target, dst->buffer, src->buffer, NULL, NULL);
  return ok;
}

/* The packed host side of a 2D or 3D transfer must hold exactly the region. */
static gboolean
check_packed_size (gsize        len,
                   gsize        width,
                   gsize        height,
                   gsize        depth,
                   GError     **error)
{
  gsize size;

  if (cugi_memory_region_size (width, height, depth, &size) && size == len)
    return TRUE;
  g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
               _("The data has %zu bytes, but %zu slices of %zu rows of %zu bytes were to be copied"),
               len, depth, height, width);
  return FALSE;
}

static gboolean
upload_region (const PitchedRegion  *dst,
               const guint8         *data,
               gsize                 len,
               gsize                 width,
               gsize                 height,
               gsize                 depth,
               GError              **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CUDA_MEMCPY3D copy = {
    .srcMemoryType = CU_MEMORYTYPE_HOST,
    .srcHost = data,
    .srcPitch = width,
    .srcHeight = height,
    .WidthInBytes = width,
    .Height = height,
    .Depth = depth,
  };

  if (!check_region (dst, width, height, depth, _("buffer"), error) ||
      !check_packed_size (len, width, height, depth, error))
    return FALSE;
  if (len == 0)
    return TRUE;
  set_device_destination (&copy, dst);
  return cugi_context_enter (dst->buffer->ownership.binding.context, &scope, error) &&
         CUGI_CALL (cuMemcpy3D, (&copy), error) &&
         cugi_buffer_wait_for_pageable_upload (error);
}

static GBytes *
download_region (const PitchedRegion  *src,
                 gsize                 width,
                 gsize                 height,
                 gsize                 depth,
                 GError              **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  g_autofree guint8 *data = NULL;
  CUDA_MEMCPY3D copy = {
    .dstMemoryType = CU_MEMORYTYPE_HOST,
    .dstPitch = width,
    .dstHeight = height,
    .WidthInBytes = width,
    .Height = height,
    .Depth = depth,
  };
  gsize size = 0;

  if (!check_region (src, width, height, depth, _("buffer"), error))
    return NULL;
  /* The region fits in the buffer, so its packed size cannot overflow. */
  cugi_memory_region_size (width, height, depth, &size);
  if (size == 0)
    return g_bytes_new (NULL, 0);
  if ((data = cugi_buffer_try_alloc_host (size, error)) == NULL)
    return NULL;
  copy.dstHost = data;
  set_device_source (&copy, src);
  if (!cugi_context_enter (src->buffer->ownership.binding.context, &scope, error) ||
      !CUGI_CALL (cuMemcpy3D, (&copy), error))
    return NULL;
  return g_bytes_new_take (g_steal_pointer (&data), size);
}

/**
 * cugi_buffer_copy_2d:
 * @dst: the buffer to copy to
 * @dst_offset: where the first row starts in @dst, in bytes
 * @dst_pitch: the distance between rows in @dst, in bytes, at least @width
 * @src: the buffer to copy from
 * @src_offset: where the first row starts in @src, in bytes
 * @src_pitch: the distance between rows in @src, in bytes, at least @width
 * @width: the number of bytes of each row to copy
 * @height: the number of rows
 * @stream: (nullable): the stream to enqueue the copy on (of @dst's
 *   context), or %NULL for the default stream
 * @error: return location for a #GError
 *
 * Enqueues a copy of a @width × @height rectangle between device buffers
 * whose rows are laid out with different pitches (`cuMemcpy3DAsync`, or its
 * peer form between contexts). Both regions are checked against their
 * buffers. Both buffers stay alive until the copy completes.
 *
 * Returns: %TRUE if the copy was enqueued
 *
 * Since: 0.1
 */
gboolean
cugi_buffer_copy_2d (CugiBuffer  *dst,
                     gsize        dst_offset,
                     gsize        dst_pitch,
                     CugiBuffer  *src,
                     gsize        src_offset,
                     gsize        src_pitch,
                     gsize        width,
                     gsize        height,
                     CugiStream  *stream,
                     GError     **error)
{
  PitchedRegion to = { dst, dst_offset, dst_pitch, height };
  PitchedRegion from = { src, src_offset, src_pitch, height };

  g_return_val_if_fail (CUGI_IS_BUFFER (dst), FALSE);
  g_return_val_if_fail (CUGI_IS_BUFFER (src), FALSE);
  g_return_val_if_fail (stream == NULL || CUGI_IS_STREAM (stream), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return copy_region (&to, &from, width, height, 1, stream, error);
}

/**
 * cugi_buffer_upload_2d:
 * @self: a #CugiBuffer
 * @offset: where the first row starts in @self, in bytes
 * @pitch: the distance between rows in @self, in bytes, at least @width
 * @data: (array length=len): @height packed rows of @width bytes
 * @len: the size of @data: @width × @height
 * @width: the number of bytes of each row
 * @height: the number of rows
 * @error: return location for a #GError
 *
 * Copies packed rows from the host into rows @pitch bytes apart in @self
 * (`cuMemcpy3D`), for instance into a buffer from cugi_buffer_new_pitched().
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
cugi_buffer_upload_2d (CugiBuffer    *self,
                       gsize          offset,
                       gsize          pitch,
                       const guint8  *data,
                       gsize          len,
                       gsize          width,
                       gsize          height,
                       GError       **error)
{
  PitchedRegion to = { self, offset, pitch, height };

  g_return_val_if_fail (CUGI_IS_BUFFER (self), FALSE);
  g_return_val_if_fail (data != NULL || len == 0, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return upload_region (&to, data, len, width, height, 1, error);
}

/**
 * cugi_buffer_upload_2d_from_address:
 * @self: a #CugiBuffer
 * @offset: where the first row starts in @self, in bytes
 * @pitch: the distance between rows in @self, in bytes, at least @width
 * @address: the host address of @height packed rows of @width bytes, as an
 *   integer
 * @size: the number of bytes at @address: @width × @height
 * @width: the number of bytes of each row
 * @height: the number of rows
 * @error: return location for a #GError
 *
 * Like cugi_buffer_upload_2d(), with the rows given by their host address,
 * for language bindings (see cugi_buffer_upload_from_address()). The caller
 * keeps the memory valid for the call.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
cugi_buffer_upload_2d_from_address (CugiBuffer  *self,
                                    gsize        offset,
                                    gsize        pitch,
                                    guint64      address,
                                    gsize        size,
                                    gsize        width,
                                    gsize        height,
                                    GError     **error)
{
  PitchedRegion to = { self, offset, pitch, height };
  const guint8 *data;

  g_return_val_if_fail (CUGI_IS_BUFFER (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return cugi_memory_host_address_get (address, size, &data, error) &&
         upload_region (&to, data, size, width, height, 1, error);
}

/**
 * cugi_buffer_download_2d:
 * @self: a #CugiBuffer
 * @offset: where the first row starts in @self, in bytes
 * @pitch: the distance between rows in @self, in bytes, at least @width
 * @width: the number of bytes of each row
 * @height: the number of rows
 * @error: return location for a #GError
 *
 * Copies @height rows of @width bytes, @pitch bytes apart in @self, to the
 * host (`cuMemcpy3D`).
 *
 * Returns: (transfer full): the rows, packed (@width × @height bytes), or
 *   %NULL with @error set
 *
 * Since: 0.1
 */
GBytes *
cugi_buffer_download_2d (CugiBuffer  *self,
                         gsize        offset,
                         gsize        pitch,
                         gsize        width,
                         gsize        height,
                         GError     **error)
{
  PitchedRegion from = { self, offset, pitch, height };

  g_return_val_if_fail (CUGI_IS_BUFFER (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return download_region (&from, width, height, 1, error);
}

/**
 * cugi_buffer_copy_3d:
 * @dst: the buffer to copy to
 * @dst_offset: where the first row starts in @dst, in bytes
 * @dst_pitch: the distance between rows in @dst, in bytes, at least @width
 * @dst_height: the number of rows between slices in @dst, at least @height
 * @src: the buffer to copy from
 * @src_offset: where the first row starts in @src, in bytes
 * @src_pitch: the distance between rows in @src, in bytes, at least @width
 * @src_height: the number of rows between slices in @src, at least @height
 * @width: the number of bytes of each row to copy
 * @height: the number of rows of each slice to copy
 * @depth: the number of slices
 * @stream: (nullable): the stream to enqueue the copy on (of @dst's
 *   context), or %NULL for the default stream
 * @error: return location for a #GError
 *
 * Enqueues a copy of a @width × @height × @depth box between device
 * buffers (`cuMemcpy3DAsync`, or its peer form between contexts). Both
 * buffers stay alive until the copy completes.
 *
 * Returns: %TRUE if the copy was enqueued
 *
 * Since: 0.1
 */
gboolean
cugi_buffer_copy_3d (CugiBuffer  *dst,
                     gsize        dst_offset,
                     gsize        dst_pitch,
                     gsize        dst_height,
                     CugiBuffer  *src,
                     gsize        src_offset,
                     gsize        src_pitch,
                     gsize        src_height,
                     gsize        width,
                     gsize        height,
                     gsize        depth,
                     CugiStream  *stream,
                     GError     **error)
{
  PitchedRegion to = { dst, dst_offset, dst_pitch, dst_height };
  PitchedRegion from = { src, src_offset, src_pitch, src_height };

  g_return_val_if_fail (CUGI_IS_BUFFER (dst), FALSE);
  g_return_val_if_fail (CUGI_IS_BUFFER (src), FALSE);
  g_return_val_if_fail (stream == NULL || CUGI_IS_STREAM (stream), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return copy_region (&to, &from, width, height, depth, stream, error);
}

/**
 * cugi_buffer_upload_3d:
 * @self: a #CugiBuffer
 * @offset: where the first row starts in @self, in bytes
 * @pitch: the distance between rows in @self, in bytes, at least @width
 * @slice_height: the number of rows between slices in @self, at least @height
 * @data: (array length=len): @depth packed slices of @height packed rows of
 *   @width bytes
 * @len: the size of @data: @width × @height × @depth
 * @width: the number of bytes of each row
 * @height: the number of rows of each slice
 * @depth: the number of slices
 * @error: return location for a #GError
 *
 * Copies a packed box from the host into @self (`cuMemcpy3D`).
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
cugi_buffer_upload_3d (CugiBuffer    *self,
                       gsize          offset,
                       gsize          pitch,
                       gsize          slice_height,
                       const guint8  *data,
                       gsize          len,
                       gsize          width,
                       gsize          height,
                       gsize          depth,
                       GError       **error)
{
  PitchedRegion to = { self, offset, pitch, slice_height };

  g_return_val_if_fail (CUGI_IS_BUFFER (self), FALSE);
  g_return_val_if_fail (data != NULL || len == 0, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return upload_region (&to, data, len, width, height, depth, error);
}

/**
 * cugi_buffer_upload_3d_from_address:
 * @self: a #CugiBuffer
 * @offset: where the first row starts in @self, in bytes
 * @pitch: the distance between rows in @self, in bytes, at least @width
 * @slice_height: the number of rows between slices in @self, at least @height
 * @address: the host address of @depth packed slices of @height packed rows
 *   of @width bytes, as an integer
 * @size: the number of bytes at @address: @width × @height × @depth
 * @width: the number of bytes of each row
 * @height: the number of rows of each slice
 * @depth: the number of slices
 * @error: return location for a #GError
 *
 * Like cugi_buffer_upload_3d(), with the box given by its host address, for
 * language bindings (see cugi_buffer_upload_from_address()). The caller
 * keeps the memory valid for the call.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
cugi_buffer_upload_3d_from_address (CugiBuffer  *self,
                                    gsize        offset,
                                    gsize        pitch,
                                    gsize        slice_height,
                                    guint64      address,
                                    gsize        size,
                                    gsize        width,
                                    gsize        height,
                                    gsize        depth,
                                    GError     **error)
{
  PitchedRegion to = { self, offset, pitch, slice_height };
  const guint8 *data;

  g_return_val_if_fail (CUGI_IS_BUFFER (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return cugi_memory_host_address_get (address, size, &data, error) &&
         upload_region (&to, data, size, width, height, depth, error);
}

/**
 * cugi_buffer_download_3d:
 * @self: a #CugiBuffer
 * @offset: where the first row starts in @self, in bytes
 * @pitch: the distance between rows in @self, in bytes, at least @width
 * @slice_height: the number of rows between slices in @self, at least @height
 * @width: the number of bytes of each row
 * @height: the number of rows of each slice
 * @depth: the number of slices
 * @error: return location for a #GError
 *
 * Copies a box of @self to the host (`cuMemcpy3D`).
 *
 * Returns: (transfer full): the box, packed (@width × @height × @depth
 *   bytes), or %NULL with @error set
 *
 * Since: 0.1
 */
GBytes *
cugi_buffer_download_3d (CugiBuffer  *self,
                         gsize        offset,
                         gsize        pitch,
                         gsize        slice_height,
                         gsize        width,
                         gsize        height,
                         gsize        depth,
                         GError     **error)
{
  PitchedRegion from = { self, offset, pitch, slice_height };

  g_return_val_if_fail (CUGI_IS_BUFFER (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return download_region (&from, width, height, depth, error);
}

/* A 2D copy between @self and a pinned host buffer, both regions checked. */
static gboolean
copy_2d_with_host_buffer (const PitchedRegion  *device,
                          CugiHostBuffer       *host,
                          gsize                 host_offset,
                          gsize                 host_pitch,
                          gsize                 width,
                          gsize                 height,
                          CugiStream           *stream,
                          CugiCopyDirection     direction,
                          GError              **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CUDA_MEMCPY3D copy = { .WidthInBytes = width, .Height = height, .Depth = 1 };
  CugiBuffer *self = device->buffer;
  CugiStream *target;
  gpointer host_address;
  guint8 *host_data;

  if (!check_region (device, width, height, 1, _("buffer"), error) ||
      !cugi_buffer_get_host_address_for_copy (host, direction, &host_address, error) ||
      !cugi_memory_check_pitched_range (cugi_host_buffer_get_size (host), host_offset, host_pitch,
                                        height, width, height, 1, _("host buffer"), error))
    return FALSE;
  if (width == 0 || height == 0)
    return TRUE;
  if (!cugi_buffer_enter_for_stream (self, stream, &scope, &target, error))
    return FALSE;

  host_data = (guint8 *) host_address + host_offset;
  if (direction == CUGI_COPY_TO_DEVICE)
    {
      copy.srcMemoryType = CU_MEMORYTYPE_HOST;
      copy.srcHost = host_data;
      copy.srcPitch = host_pitch;
      copy.srcHeight = height;
      set_device_destination (&copy, device);
    }
  else
    {
      set_device_source (&copy, device);
      copy.dstMemoryType = CU_MEMORYTYPE_HOST;
      copy.dstHost = host_data;
      copy.dstPitch = host_pitch;
      copy.dstHeight = height;
    }

  /* As in 1D: without a stream, the copy is done on return. */
  if (stream == NULL)
    return CUGI_CALL (cuMemcpy3D, (&copy), error);
  if (!CUGI_CALL (cuMemcpy3DAsync, (&copy, cugi_stream_get_handle (target)), error))
    return FALSE;
  cugi_buffer_track_work (target, self, NULL, host, NULL);
  return TRUE;
}

/**
 * cugi_buffer_upload_2d_from_host:
 * @self: a #CugiBuffer
 * @offset: where the first row starts in @self, in bytes
 * @pitch: the distance between rows in @self, in bytes, at least @width
 * @host: the pinned host buffer to read
 * @host_offset: where the first row starts in @host, in bytes
 * @host_pitch: the distance between rows in @host, in bytes, at least @width
 * @width: the number of bytes of each row
 * @height: the number of rows
 * @stream: (nullable): the stream to enqueue the copy on, or %NULL to copy
 *   at once
 * @error: return location for a #GError
 *
 * Copies a @width × @height rectangle from pinned host memory into @self,
 * each side with its own pitch: a video plane whose rows are padded, say,
 * from a #CugiHostBuffer into a buffer from cugi_buffer_new_pitched(). Both
 * regions are checked against their buffers.
 *
 * On a stream the copy is asynchronous (`cuMemcpy3DAsync`: the DMA engine
 * reads @host while the host goes on), and both buffers stay alive until it
 * completes; do not write to that part of @host before then. Without a
 * stream it returns once the copy is done.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
cugi_buffer_upload_2d_from_host (CugiBuffer      *self,
                                 gsize            offset,
                                 gsize            pitch,
                                 CugiHostBuffer  *host,
                                 gsize            host_offset,
                                 gsize            host_pitch,
                                 gsize            width,
                                 gsize            height,
                                 CugiStream      *stream,
                                 GError         **error)
{
  PitchedRegion to = { self, offset, pitch, height };

  g_return_val_if_fail (CUGI_IS_BUFFER (self), FALSE);
  g_return_val_if_fail (CUGI_IS_HOST_BUFFER (host), FALSE);
  g_return_val_if_fail (stream == NULL || CUGI_IS_STREAM (stream), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return copy_2d_with_host_buffer (&to, host, host_offset, host_pitch, width, height,
                                   stream, CUGI_COPY_TO_DEVICE, error);
}

/**
 * cugi_buffer_download_2d_to_host:
 * @self: a #CugiBuffer
 * @offset: where the first row starts in @self, in bytes
 * @pitch: the distance between rows in @self, in bytes, at least @width
 * @host: the pinned host buffer to write
 * @host_offset: where the first row starts in @host, in bytes
 * @host_pitch: the distance between rows in @host, in bytes, at least @width
 * @width: the number of bytes of each row
 * @height: the number of rows
 * @stream: (nullable): the stream to enqueue the copy on, or %NULL to copy
 *   at once
 * @error: return location for a #GError
 *
 * Copies a @width × @height rectangle of @self into pinned host memory, each
 * side with its own pitch: the counterpart of
 * cugi_buffer_upload_2d_from_host(). On a stream the copy is asynchronous
 * (`cuMemcpy3DAsync`) and both buffers stay alive until it completes; read
 * @host only after that (cugi_stream_synchronize(), or an event). Without a
 * stream it returns once the copy is done.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
cugi_buffer_download_2d_to_host (CugiBuffer      *self,
                                 gsize            offset,
                                 gsize            pitch,
                                 CugiHostBuffer  *host,
                                 gsize            host_offset,
                                 gsize            host_pitch,
                                 gsize            width,
                                 gsize            height,
                                 CugiStream      *stream,
                                 GError         **error)
{
  PitchedRegion from = { self, offset, pitch, height };

  g_return_val_if_fail (CUGI_IS_BUFFER (self), FALSE);
  g_return_val_if_fail (CUGI_IS_HOST_BUFFER (host), FALSE);
  g_return_val_if_fail (stream == NULL || CUGI_IS_STREAM (stream), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return copy_2d_with_host_buffer (&from, host, host_offset, host_pitch, width, height,
                                   stream, CUGI_COPY_TO_HOST, error);
}
