/* cugi-array-copy.c: copies to, from and between CUDA arrays */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "cugi-context-private.h"
#include "cugi-stream-private.h"
#include "cugi-private.h"
#include "cugi-memory-private.h"
#include "cugi-buffer-private.h"
#include "cugi-array-private.h"

/* One end of a copy: a box of an array, or pitched rows of linear memory
 * (host memory, a pinned host buffer or a device buffer). */
typedef enum
{
  END_ARRAY,
  END_HOST,
  END_HOST_BUFFER,
  END_BUFFER,
} EndKind;

typedef struct
{
  EndKind         kind;
  CugiArray      *array;         /* ARRAY */
  gsize           x, y, z;       /* ARRAY: element, row, slice */
  gpointer        host;          /* HOST */
  gsize           host_len;      /* HOST: the size of the data */
  CugiHostBuffer *host_buffer;   /* HOST_BUFFER */
  CugiBuffer     *buffer;        /* BUFFER */
  gsize           offset;        /* linear ends: bytes to the first row */
  gsize           pitch;         /* bytes between rows; 0: see resolve_pitch() */
  gsize           slice_height;  /* rows between slices; 0: the copy's height */
  const char     *what;          /* for messages (translated) */
} CopyEnd;

/* A box of @width × @height × @depth elements. */
typedef struct
{
  gsize width;
  gsize height;
  gsize depth;
} Extent;

static gboolean
check_box (CugiArray     *array,
           const CopyEnd *end,
           const Extent  *extent,
           GError       **error)
{
  /* A 1D array has one row, a 1D or 2D one one slice. */
  gsize rows = MAX (array->height, 1), slices = MAX (array->depth, 1);

  if (end->x <= array->width && extent->width <= array->width - end->x &&
      end->y <= rows && extent->height <= rows - end->y &&
      end->z <= slices && extent->depth <= slices - end->z)
    return TRUE;
  g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
               _("A box of %zu × %zu × %zu elements at (%zu, %zu, %zu) does not fit in the %s "
                 "of %zu × %zu × %zu elements"),
               extent->width, extent->height, extent->depth, end->x, end->y, end->z, end->what,
               array->width, rows, slices);
  return FALSE;
}

static gboolean
check_array_box (const CopyEnd  *end,
                 const Extent   *extent,
                 GError        **error)
{
  return cugi_array_check_usable (end->array, error) && check_box (end->array, end, extent, error);
}

/* The size of the linear side of @end, checked usable (and writable unless
 * it is the @source). */
static gboolean
linear_size (const CopyEnd *end,
             gboolean       source,
             gsize         *size,
             GError       **error)
{
  switch (end->kind)
    {
    case END_HOST:
      *size = end->host_len;
      return TRUE;
    case END_HOST_BUFFER:
      {
        gpointer address;

        if (!cugi_buffer_get_host_address_for_copy (end->host_buffer,
                                                    source ? CUGI_COPY_TO_DEVICE : CUGI_COPY_TO_HOST,
                                                    &address, error))
          return FALSE;
        *size = cugi_host_buffer_get_size (end->host_buffer);
        return TRUE;
      }
    case END_BUFFER:
      {
        CUdeviceptr address;

        if (!cugi_buffer_get_address (end->buffer, &address, error))
          return FALSE;
        *size = cugi_buffer_get_size (end->buffer);
        return TRUE;
      }
    case END_ARRAY:
    default:
      g_assert_not_reached ();
    }
}

/* A pitch of 0 is a buffer's own pitch (cugi_buffer_new_pitched()), else
 * packed rows. */
static gsize
resolve_pitch (const CopyEnd *end,
               gsize          row_bytes)
{
  if (end->pitch != 0)
    return end->pitch;
  if (end->kind == END_BUFFER && cugi_buffer_get_pitch (end->buffer) != 0)
    return cugi_buffer_get_pitch (end->buffer);
  return row_bytes;
}

/* Checks @end for a copy of @extent of @element_size bytes per element and
 * writes its side of @copy (the source's when @source). */
static gboolean
prepare_end (const CopyEnd  *end,
             const Extent   *extent,
             gsize           element_size,
             gboolean        source,
             CUDA_MEMCPY3D  *copy,
             GError        **error)
{
  gsize row_bytes = extent->width * element_size;
  gsize pitch, slice_height, size;
  CUmemorytype type;
  const void *host = NULL;
  CUdeviceptr device = 0;

  if (end->kind == END_ARRAY)
    {
      if (!check_array_box (end, extent, error))
        return FALSE;
      if (source)
        {
          copy->srcMemoryType = CU_MEMORYTYPE_ARRAY;
          copy->srcArray = end->array->handle;
          copy->srcXInBytes = end->x * element_size;
          copy->srcY = end->y;
          copy->srcZ = end->z;
        }
      else
        {
          copy->dstMemoryType = CU_MEMORYTYPE_ARRAY;
          copy->dstArray = end->array->handle;
          copy->dstXInBytes = end->x * element_size;
          copy->dstY = end->y;
          copy->dstZ = end->z;
        }
      return TRUE;
    }

  pitch = resolve_pitch (end, row_bytes);
  slice_height = end->slice_height != 0 ? end->slice_height : extent->height;
  if (!linear_size (end, source, &size, error))
    return FALSE;
  if (end->kind == END_HOST)
    {
      gsize packed = 0;

      if (!cugi_memory_region_size (row_bytes, extent->height, extent->depth, &packed) ||
          packed != size)
        {
          g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                       _("The data has %zu bytes, but %zu slices of %zu rows of %zu bytes were to be copied"),
                       size, extent->depth, extent->height, row_bytes);
          return FALSE;
        }
    }
  else if (!cugi_memory_check_pitched_range (size, end->offset, pitch, slice_height, row_bytes,
                                             extent->height, extent->depth, end->what, error))
    return FALSE;

  if (end->kind == END_BUFFER)
    {
      type = CU_MEMORYTYPE_DEVICE;
      device = cugi_buffer_get_device_pointer (end->buffer) + end->offset;
    }
  else
    {
      gpointer address = end->host;

      type = CU_MEMORYTYPE_HOST;
      if (end->kind == END_HOST_BUFFER)
        cugi_host_buffer_get_address (end->host_buffer, &address, NULL);
      host = (const guint8 *) address + end->offset;
    }
  if (source)
    {
      copy->srcMemoryType = type;
      copy->srcHost = host;
      copy->srcDevice = device;
      copy->srcPitch = pitch;
      copy->srcHeight = slice_height;
    }
  else
    {
      copy->dstMemoryType = type;
      copy->dstHost = (void *) host;
      copy->dstDevice = device;
      copy->dstPitch = pitch;
      copy->dstHeight = slice_height;
    }
  return TRUE;
}

static CugiContext *
end_context (const CopyEnd *end)
{
  switch (end->kind)
    {
    case END_ARRAY:
      return end->array->ownership.binding.context;
    case END_BUFFER:
      return cugi_buffer_get_context (end->buffer);
    case END_HOST_BUFFER:
      return cugi_host_buffer_get_context (end->host_buffer);
    case END_HOST:
    default:
      return NULL;
    }
}

/* What work on @end keeps alive until it completes. */
static void
add_resource (GPtrArray     *resources,
              const CopyEnd *end)
{
  if (end->kind == END_ARRAY)
    cugi_work_resources_add (resources, cugi_array_begin_use (end->array), cugi_array_end_use);
  else if (end->kind == END_BUFFER)
    cugi_work_resources_add (resources, cugi_buffer_begin_work (end->buffer), cugi_buffer_end_work);
  else if (end->kind == END_HOST_BUFFER)
    cugi_work_resources_add (resources, cugi_host_buffer_begin_work (end->host_buffer),
                             cugi_host_buffer_end_work);
}

/* The copy of @extent from @src to @dst, at least one of them an array.
 * Between device memory, and with a pinned host buffer on a stream, it is
 * enqueued on @stream (NULL: the default stream) and tracked; with host
 * memory, or a host buffer without a stream, it is done on return. */
static gboolean
run_copy (const CopyEnd  *dst,
          const CopyEnd  *src,
          const Extent   *extent,
          CugiStream     *stream,
          GError        **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CUDA_MEMCPY3D copy = { .Height = extent->height, .Depth = extent->depth };
  const CopyEnd *array_end = dst->kind == END_ARRAY ? dst : src;
  const CopyEnd *other = array_end == dst ? src : dst;
  CugiArray *array = array_end->array;
  CugiContext *context = array->ownership.binding.context;
  CugiContext *other_context = end_context (other);
  gsize element_size = cugi_array_get_element_size (array);
  gboolean sync = other->kind == END_HOST || (other->kind == END_HOST_BUFFER && stream == NULL);
  g_autoptr(GPtrArray) resources = NULL;
  CugiStream *target;

  if (other->kind == END_ARRAY && cugi_array_get_element_size (other->array) != element_size)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("Arrays of elements of %zu and %zu bytes cannot be copied into each other"),
                   cugi_array_get_element_size (dst->array), cugi_array_get_element_size (src->array));
      return FALSE;
    }
  /* The array's box first: once it fits, its size in bytes cannot overflow. */
  if (!prepare_end (array_end, extent, element_size, array_end == src, &copy, error) ||
      !prepare_end (other, extent, element_size, other == src, &copy, error))
    return FALSE;
  if ((other_context != NULL &&
       !cugi_context_binding_check_same_context (&array->ownership.binding, other_context,
                                                 N_("The buffer or array belongs to another context than the array"),
                                                 error)) ||
      (stream != NULL &&
       !cugi_context_binding_check_same_context (&array->ownership.binding, cugi_stream_get_context (stream),
                                                 N_("The stream belongs to another context than the array"),
                                                 error)))
    return FALSE;
  copy.WidthInBytes = extent->width * element_size;
  if (copy.WidthInBytes == 0 || extent->height == 0 || extent->depth == 0)
    return TRUE;
  if (!cugi_context_enter (context, &scope, error))
    return FALSE;

  if (sync)
    /* The legacy stream's synchronization makes an upload from pageable
     * memory complete too, which cuMemcpy3D may return before. */
    return CUGI_CALL (cuMemcpy3D, (&copy), error) &&
           (other->kind != END_HOST || CUGI_CALL (cuStreamSynchronize, (CU_STREAM_LEGACY), error));

  target = cugi_stream_resolve (stream, context);
  if (!CUGI_CALL (cuMemcpy3DAsync, (&copy, cugi_stream_get_handle (target)), error))
    return FALSE;
  resources = cugi_work_resources_new ();
  add_resource (resources, dst);
  add_resource (resources, src);
  cugi_work_track (target, NULL, g_steal_pointer (&resources));
  return TRUE;
}

#define ARRAY_END(array_, x_, y_, z_, what_) \
  { .kind = END_ARRAY, .array = (array_), .x = (x_), .y = (y_), .z = (z_), .what = (what_) }

/* Pitched rows of a pinned host buffer or a device buffer (@kind), @object. */
static CopyEnd
linear_end (EndKind      kind,
            gpointer     object,
            gsize        offset,
            gsize        pitch,
            gsize        slice_height,
            const char  *what)
{
  CopyEnd end = { .kind = kind, .offset = offset, .pitch = pitch, .slice_height = slice_height,
                  .what = what };

  if (kind == END_HOST_BUFFER)
    end.host_buffer = object;
  else
    end.buffer = object;
  return end;
}

/* The copy of a box of @width × @height × @depth elements between @array,
 * from (@x, @y, @z), and @other: into the array when @into_array. */
static gboolean
copy_with_array (CugiArray      *array,
                 gsize           x,
                 gsize           y,
                 gsize           z,
                 const CopyEnd  *other,
                 gboolean        into_array,
                 gsize           width,
                 gsize           height,
                 gsize           depth,
                 CugiStream     *stream,
                 GError        **error)
{
  CopyEnd array_end = ARRAY_END (array, x, y, z, _("array"));
  Extent extent = { width, height, depth };

  return into_array ? run_copy (&array_end, other, &extent, stream, error)
                    : run_copy (other, &array_end, &extent, stream, error);
}

/**
 * cugi_array_upload:
 * @self: a #CugiArray
 * @x: the first element of each row to write
 * @y: the first row to write
 * @z: the first slice (or layer) to write
 * @data: (array length=len): @depth packed slices of @height packed rows
 *   of @width elements
 * @len: the size of @data in bytes: @width × @height × @depth ×
 *   cugi_array_get_element_size()
 * @width: the number of elements of each row
 * @height: the number of rows (1 for a 1D array)
 * @depth: the number of slices (1 for a 1D or 2D array)
 * @error: return location for a #GError
 *
 * Copies packed elements from the host into a box of @self (`cuMemcpy3D`).
 * The data is in the array when this returns, and @data may be reused.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
cugi_array_upload (CugiArray     *self,
                   gsize          x,
                   gsize          y,
                   gsize          z,
                   const guint8  *data,
                   gsize          len,
                   gsize          width,
                   gsize          height,
                   gsize          depth,
                   GError       **error)
{
  CopyEnd src = { .kind = END_HOST, .host = (gpointer) data, .host_len = len };

  g_return_val_if_fail (CUGI_IS_ARRAY (self), FALSE);
  g_return_val_if_fail (data != NULL || len == 0, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return copy_with_array (self, x, y, z, &src, TRUE, width, height, depth, NULL, error);
}

/**
 * cugi_array_upload_from_address:
 * @self: a #CugiArray
 * @x: the first element of each row to write
 * @y: the first row to write
 * @z: the first slice (or layer) to write
 * @address: the host address of the packed elements, as cugi_array_upload()
 *   takes them: from bindings, a NumPy array's `ctypes.data`, say
 * @len: the number of bytes at @address
 * @width: the number of elements of each row
 * @height: the number of rows (1 for a 1D array)
 * @depth: the number of slices (1 for a 1D or 2D array)
 * @error: return location for a #GError
 *
 * cugi_array_upload() from memory that bindings hold by address, without a
 * copy into a byte array first. The caller keeps @len bytes at @address
 * readable until this returns. Address 0 with a length, or a range that
 * does not fit in the address space, is %CUGI_ERROR_INVALID_ARGUMENT.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
cugi_array_upload_from_address (CugiArray  *self,
                                gsize       x,
                                gsize       y,
                                gsize       z,
                                guint64     address,
                                gsize       len,
                                gsize       width,
                                gsize       height,
                                gsize       depth,
                                GError    **error)
{
  const guint8 *data;

  g_return_val_if_fail (CUGI_IS_ARRAY (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return cugi_memory_host_address_get (address, len, &data, error) &&
         cugi_array_upload (self, x, y, z, data, len, width, height, depth, error);
}

/**
 * cugi_array_download:
 * @self: a #CugiArray
 * @x: the first element of each row to read
 * @y: the first row to read
 * @z: the first slice (or layer) to read
 * @width: the number of elements of each row
 * @height: the number of rows (1 for a 1D array)
 * @depth: the number of slices (1 for a 1D or 2D array)
 * @error: return location for a #GError
 *
 * Copies a box of @self to the host (`cuMemcpy3D`).
 *
 * Returns: (transfer full): the elements, packed, or %NULL with @error set
 *
 * Since: 0.1
 */
GBytes *
cugi_array_download (CugiArray  *self,
                     gsize       x,
                     gsize       y,
                     gsize       z,
                     gsize       width,
                     gsize       height,
                     gsize       depth,
                     GError    **error)
{
  CopyEnd src = ARRAY_END (self, x, y, z, _("array"));
  Extent extent = { width, height, depth };
  g_autofree guint8 *data = NULL;
  gsize size = 0;

  g_return_val_if_fail (CUGI_IS_ARRAY (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  /* The box fits in the array, so its size cannot overflow. */
  if (!check_array_box (&src, &extent, error))
    return NULL;
  cugi_memory_region_size (width * cugi_array_get_element_size (self), height, depth, &size);
  /* At least a byte: g_try_malloc (0) gives NULL, which is no failure. */
  if ((data = cugi_buffer_try_alloc_host (MAX (size, 1), error)) == NULL ||
      !cugi_array_download_to_address (self, x, y, z, (guint64) (guintptr) data, size,
                                       width, height, depth, error))
    return NULL;
  return g_bytes_new_take (g_steal_pointer (&data), size);
}

/**
 * cugi_array_download_to_address:
 * @self: a #CugiArray
 * @x: the first element of each row to read
 * @y: the first row to read
 * @z: the first slice (or layer) to read
 * @address: the host address to write the packed elements to
 * @len: the number of bytes at @address: @width × @height × @depth ×
 *   cugi_array_get_element_size()
 * @width: the number of elements of each row
 * @height: the number of rows (1 for a 1D array)
 * @depth: the number of slices (1 for a 1D or 2D array)
 * @error: return location for a #GError
 *
 * cugi_array_download() into memory that bindings hold by address (a
 * writable NumPy array's `ctypes.data`, say). The elements are there when
 * this returns. Address 0 with a length, or a range that does not fit in
 * the address space, is %CUGI_ERROR_INVALID_ARGUMENT.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
cugi_array_download_to_address (CugiArray  *self,
                                gsize       x,
                                gsize       y,
                                gsize       z,
                                guint64     address,
                                gsize       len,
                                gsize       width,
                                gsize       height,
                                gsize       depth,
                                GError    **error)
{
  CopyEnd dst = { .kind = END_HOST, .host_len = len };
  const guint8 *data;

  g_return_val_if_fail (CUGI_IS_ARRAY (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!cugi_memory_host_address_get (address, len, &data, error))
    return FALSE;
  dst.host = (gpointer) data;
  return copy_with_array (self, x, y, z, &dst, FALSE, width, height, depth, NULL, error);
}

/**
 * cugi_array_upload_from_host:
 * @self: a #CugiArray
 * @x: the first element of each row to write
 * @y: the first row to write
 * @z: the first slice (or layer) to write
 * @host: the pinned host buffer to read
 * @host_offset: where the first row starts in @host, in bytes
 * @host_pitch: the distance between rows in @host, in bytes; 0 for packed
 *   rows
 * @host_height: the number of rows between slices in @host; 0 for @height
 * @width: the number of elements of each row
 * @height: the number of rows (1 for a 1D array)
 * @depth: the number of slices (1 for a 1D or 2D array)
 * @stream: (nullable): the stream to enqueue the copy on, or %NULL to copy
 *   at once
 * @error: return location for a #GError
 *
 * Copies a box from pinned host memory into @self. On a stream the copy is
 * asynchronous (`cuMemcpy3DAsync`), and @self and @host stay alive until it
 * completes: do not write to that part of @host before then. Without a
 * stream it returns once the copy is done.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
cugi_array_upload_from_host (CugiArray       *self,
                             gsize            x,
                             gsize            y,
                             gsize            z,
                             CugiHostBuffer  *host,
                             gsize            host_offset,
                             gsize            host_pitch,
                             gsize            host_height,
                             gsize            width,
                             gsize            height,
                             gsize            depth,
                             CugiStream      *stream,
                             GError         **error)
{
  CopyEnd src = linear_end (END_HOST_BUFFER, host, host_offset, host_pitch, host_height, _("host buffer"));

  g_return_val_if_fail (CUGI_IS_ARRAY (self), FALSE);
  g_return_val_if_fail (CUGI_IS_HOST_BUFFER (host), FALSE);
  g_return_val_if_fail (stream == NULL || CUGI_IS_STREAM (stream), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return copy_with_array (self, x, y, z, &src, TRUE, width, height, depth, stream, error);
}

/**
 * cugi_array_download_to_host:
 * @self: a #CugiArray
 * @x: the first element of each row to read
 * @y: the first row to read
 * @z: the first slice (or layer) to read
 * @host: the pinned host buffer to write
 * @host_offset: where the first row starts in @host, in bytes
 * @host_pitch: the distance between rows in @host, in bytes; 0 for packed
 *   rows
 * @host_height: the number of rows between slices in @host; 0 for @height
 * @width: the number of elements of each row
 * @height: the number of rows (1 for a 1D array)
 * @depth: the number of slices (1 for a 1D or 2D array)
 * @stream: (nullable): the stream to enqueue the copy on, or %NULL to copy
 *   at once
 * @error: return location for a #GError
 *
 * Copies a box of @self into pinned host memory: the counterpart of
 * cugi_array_upload_from_host(). On a stream the copy is asynchronous and
 * both stay alive until it completes; read @host only after that.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
cugi_array_download_to_host (CugiArray       *self,
                             gsize            x,
                             gsize            y,
                             gsize            z,
                             CugiHostBuffer  *host,
                             gsize            host_offset,
                             gsize            host_pitch,
                             gsize            host_height,
                             gsize            width,
                             gsize            height,
                             gsize            depth,
                             CugiStream      *stream,
                             GError         **error)
{
  CopyEnd dst = linear_end (END_HOST_BUFFER, host, host_offset, host_pitch, host_height, _("host buffer"));

  g_return_val_if_fail (CUGI_IS_ARRAY (self), FALSE);
  g_return_val_if_fail (CUGI_IS_HOST_BUFFER (host), FALSE);
  g_return_val_if_fail (stream == NULL || CUGI_IS_STREAM (stream), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return copy_with_array (self, x, y, z, &dst, FALSE, width, height, depth, stream, error);
}

/**
 * cugi_array_copy_from_buffer:
 * @self: a #CugiArray
 * @x: the first element of each row to write
 * @y: the first row to write
 * @z: the first slice (or layer) to write
 * @src: the device buffer to read, of @self's context
 * @src_offset: where the first row starts in @src, in bytes
 * @src_pitch: the distance between rows in @src, in bytes; 0 for @src's
 *   own pitch (cugi_buffer_new_pitched()), or packed rows when it has none
 * @src_height: the number of rows between slices in @src; 0 for @height
 * @width: the number of elements of each row
 * @height: the number of rows (1 for a 1D array)
 * @depth: the number of slices (1 for a 1D or 2D array)
 * @stream: (nullable): the stream to enqueue the copy on (of @self's
 *   context), or %NULL for the default stream
 * @error: return location for a #GError
 *
 * Enqueues a copy of a box from a device buffer into @self
 * (`cuMemcpy3DAsync`). Both stay alive until the copy completes.
 *
 * Returns: %TRUE if the copy was enqueued
 *
 * Since: 0.1
 */
gboolean
cugi_array_copy_from_buffer (CugiArray   *self,
                             gsize        x,
                             gsize        y,
                             gsize        z,
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
  CopyEnd from = linear_end (END_BUFFER, src, src_offset, src_pitch, src_height, _("source buffer"));

  g_return_val_if_fail (CUGI_IS_ARRAY (self), FALSE);
  g_return_val_if_fail (CUGI_IS_BUFFER (src), FALSE);
  g_return_val_if_fail (stream == NULL || CUGI_IS_STREAM (stream), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return copy_with_array (self, x, y, z, &from, TRUE, width, height, depth, stream, error);
}

/**
 * cugi_array_copy_to_buffer:
 * @self: a #CugiArray
 * @x: the first element of each row to read
 * @y: the first row to read
 * @z: the first slice (or layer) to read
 * @dst: the device buffer to write, of @self's context
 * @dst_offset: where the first row starts in @dst, in bytes
 * @dst_pitch: the distance between rows in @dst, in bytes; 0 for @dst's
 *   own pitch (cugi_buffer_new_pitched()), or packed rows when it has none
 * @dst_height: the number of rows between slices in @dst; 0 for @height
 * @width: the number of elements of each row
 * @height: the number of rows (1 for a 1D array)
 * @depth: the number of slices (1 for a 1D or 2D array)
 * @stream: (nullable): the stream to enqueue the copy on (of @self's
 *   context), or %NULL for the default stream
 * @error: return location for a #GError
 *
 * Enqueues a copy of a box of @self into a device buffer
 * (`cuMemcpy3DAsync`). Both stay alive until the copy completes.
 *
 * Returns: %TRUE if the copy was enqueued
 *
 * Since: 0.1
 */
gboolean
cugi_array_copy_to_buffer (CugiArray   *self,
                           gsize        x,
                           gsize        y,
                           gsize        z,
                           CugiBuffer  *dst,
                           gsize        dst_offset,
                           gsize        dst_pitch,
                           gsize        dst_height,
                           gsize        width,
                           gsize        height,
                           gsize        depth,
                           CugiStream  *stream,
                           GError     **error)
{
  CopyEnd to = linear_end (END_BUFFER, dst, dst_offset, dst_pitch, dst_height, _("destination buffer"));

  g_return_val_if_fail (CUGI_IS_ARRAY (self), FALSE);
  g_return_val_if_fail (CUGI_IS_BUFFER (dst), FALSE);
  g_return_val_if_fail (stream == NULL || CUGI_IS_STREAM (stream), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return copy_with_array (self, x, y, z, &to, FALSE, width, height, depth, stream, error);
}

/**
 * cugi_array_copy:
 * @dst: the array to write: the one the method is called on
 * @dst_x: the first element of each row to write
 * @dst_y: the first row to write
 * @dst_z: the first slice (or layer) to write
 * @src: the array to read, of @dst's context and element size
 * @src_x: the first element of each row to read
 * @src_y: the first row to read
 * @src_z: the first slice (or layer) to read
 * @width: the number of elements of each row
 * @height: the number of rows (1 for 1D arrays)
 * @depth: the number of slices (1 for 1D or 2D arrays)
 * @stream: (nullable): the stream to enqueue the copy on (of @dst's
 *   context), or %NULL for the default stream
 * @error: return location for a #GError
 *
 * Enqueues a copy of a box of @src into @dst, the array this method is
 * called on (in Python, `dst.copy (dst_x, dst_y, dst_z, src, src_x, ...)`),
 * with `cuMemcpy3DAsync`; their elements must have the same size. Both
 * stay alive until the copy completes.
 *
 * Returns: %TRUE if the copy was enqueued
 *
 * Since: 0.1
 */
gboolean
cugi_array_copy (CugiArray   *dst,
                 gsize        dst_x,
                 gsize        dst_y,
                 gsize        dst_z,
                 CugiArray   *src,
                 gsize        src_x,
                 gsize        src_y,
                 gsize        src_z,
                 gsize        width,
                 gsize        height,
                 gsize        depth,
                 CugiStream  *stream,
                 GError     **error)
{
  CopyEnd to = ARRAY_END (dst, dst_x, dst_y, dst_z, _("destination array"));
  CopyEnd from = ARRAY_END (src, src_x, src_y, src_z, _("source array"));
  Extent extent = { width, height, depth };

  g_return_val_if_fail (CUGI_IS_ARRAY (dst), FALSE);
  g_return_val_if_fail (CUGI_IS_ARRAY (src), FALSE);
  g_return_val_if_fail (stream == NULL || CUGI_IS_STREAM (stream), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return run_copy (&to, &from, &extent, stream, error);
}
