/* cugi-buffer-memset.c: setting device memory to a value: linear ranges
 * (cuMemsetD8/16/32Async) and rows of pitched memory (cuMemsetD2D8/16/32Async) */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "cugi-context-private.h"
#include "cugi-stream-private.h"
#include "cugi-private.h"
#include "cugi-memory-private.h"
#include "cugi-buffer-private.h"

/* Enqueues setting @height rows of @width values of @element_size bytes,
 * rows @pitch bytes apart from @offset (a linear memset when !@two_d: one row,
 * @pitch unused). Everything is checked before the driver is called. */
static gboolean
memset_region (CugiBuffer  *self,
               gsize        offset,
               gsize        pitch,
               guint32      value,
               gsize        width,
               gsize        height,
               guint        element_size,
               gboolean     two_d,
               CugiStream  *stream,
               GError     **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CugiStream *target;
  CUdeviceptr address;
  CUstream handle;
  gsize row_bytes;
  gboolean ok = FALSE;

  if (!cugi_buffer_check_usable (self, error))
    return FALSE;
  if (!g_size_checked_mul (&row_bytes, width, element_size))
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("Out of range: %zu elements of %u bytes do not fit in the %zu bytes of the buffer"),
                   width, element_size, self->size);
      return FALSE;
    }
  if (two_d)
    {
      if (pitch % element_size != 0)
        {
          g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                       _("Pitch %zu is misaligned: a memset of %u-byte values needs a pitch that is "
                         "a multiple of %u"),
                       pitch, element_size, element_size);
          return FALSE;
        }
      if (!cugi_memory_check_pitched_range (self->size, offset, pitch, height, row_bytes, height, 1,
                                            _("buffer"), error))
        return FALSE;
    }
  else if (!cugi_memory_check_range (self->size, offset, row_bytes, _("buffer"), error))
    return FALSE;
  address = self->address + offset;
  if (address % element_size != 0)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("Offset %zu is misaligned: a memset of %u-byte values needs an address that is "
                     "a multiple of %u"),
                   offset, element_size, element_size);
      return FALSE;
    }
  if (width == 0 || height == 0)
    return TRUE;
  if (!cugi_buffer_enter_for_stream (self, stream, &scope, &target, error))
    return FALSE;

  handle = cugi_stream_get_handle (target);
  switch (element_size | (two_d ? 0x100 : 0))
    {
    case 1:
      ok = CUGI_CALL (cuMemsetD8Async, (address, (unsigned char) value, width, handle), error);
      break;
    case 2:
      ok = CUGI_CALL (cuMemsetD16Async, (address, (unsigned short) value, width, handle), error);
      break;
    case 4:
      ok = CUGI_CALL (cuMemsetD32Async, (address, value, width, handle), error);
      break;
    case 0x101:
      ok = CUGI_CALL (cuMemsetD2D8Async, (address, pitch, (unsigned char) value, width, height, handle),
                      error);
      break;
    case 0x102:
      ok = CUGI_CALL (cuMemsetD2D16Async, (address, pitch, (unsigned short) value, width, height, handle),
                      error);
      break;
    case 0x104:
      ok = CUGI_CALL (cuMemsetD2D32Async, (address, pitch, value, width, height, handle), error);
      break;
    default:
      g_assert_not_reached ();
    }
  if (ok)
    cugi_buffer_track_work (target, self, NULL, NULL, NULL);
  return ok;
}

/**
 * cugi_buffer_memset_d8:
 * @self: a #CugiBuffer
 * @offset: where to start in @self, in bytes
 * @value: the byte to store
 * @count: the number of bytes to set
 * @stream: (nullable): the stream to enqueue the memset on, or %NULL for the
 *   default stream
 * @error: return location for a #GError
 *
 * Enqueues setting @count bytes from @offset to @value (`cuMemsetD8Async`).
 *
 * Returns: %TRUE if the memset was enqueued
 *
 * Since: 0.1
 */
gboolean
cugi_buffer_memset_d8 (CugiBuffer  *self,
                       gsize        offset,
                       guint8       value,
                       gsize        count,
                       CugiStream  *stream,
                       GError     **error)
{
  g_return_val_if_fail (CUGI_IS_BUFFER (self), FALSE);
  g_return_val_if_fail (stream == NULL || CUGI_IS_STREAM (stream), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return memset_region (self, offset, 0, value, count, 1, 1, FALSE, stream, error);
}

/**
 * cugi_buffer_memset_d16:
 * @self: a #CugiBuffer
 * @offset: where to start in @self, in bytes; the address must be 2-byte
 *   aligned
 * @value: the 16-bit value to store
 * @count: the number of 16-bit values to set
 * @stream: (nullable): the stream to enqueue the memset on, or %NULL for the
 *   default stream
 * @error: return location for a #GError
 *
 * Enqueues setting @count 16-bit values from @offset to @value
 * (`cuMemsetD16Async`). A misaligned start is %CUGI_ERROR_INVALID_ARGUMENT.
 *
 * Returns: %TRUE if the memset was enqueued
 *
 * Since: 0.1
 */
gboolean
cugi_buffer_memset_d16 (CugiBuffer  *self,
                        gsize        offset,
                        guint16      value,
                        gsize        count,
                        CugiStream  *stream,
                        GError     **error)
{
  g_return_val_if_fail (CUGI_IS_BUFFER (self), FALSE);
  g_return_val_if_fail (stream == NULL || CUGI_IS_STREAM (stream), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return memset_region (self, offset, 0, value, count, 1, 2, FALSE, stream, error);
}

/**
 * cugi_buffer_memset_d32:
 * @self: a #CugiBuffer
 * @offset: where to start in @self, in bytes; the address must be 4-byte
 *   aligned
 * @value: the 32-bit value to store
 * @count: the number of 32-bit values to set
 * @stream: (nullable): the stream to enqueue the memset on, or %NULL for the
 *   default stream
 * @error: return location for a #GError
 *
 * Enqueues setting @count 32-bit values from @offset to @value
 * (`cuMemsetD32Async`). A misaligned start is %CUGI_ERROR_INVALID_ARGUMENT.
 *
 * Returns: %TRUE if the memset was enqueued
 *
 * Since: 0.1
 */
gboolean
cugi_buffer_memset_d32 (CugiBuffer  *self,
                        gsize        offset,
                        guint32      value,
                        gsize        count,
                        CugiStream  *stream,
                        GError     **error)
{
  g_return_val_if_fail (CUGI_IS_BUFFER (self), FALSE);
  g_return_val_if_fail (stream == NULL || CUGI_IS_STREAM (stream), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return memset_region (self, offset, 0, value, count, 1, 4, FALSE, stream, error);
}

/**
 * cugi_buffer_memset_2d_d8:
 * @self: a #CugiBuffer, typically pitched (cugi_buffer_new_pitched())
 * @offset: where the first row starts in @self, in bytes
 * @pitch: the distance in bytes between the starts of rows, at least
 *   @width × 1: for a pitched buffer, #CugiBuffer:pitch
 * @value: the byte to store
 * @width: the number of 8-bit values to set in each row
 * @height: the number of rows
 * @stream: (nullable): the stream to enqueue the memset on, or %NULL for the
 *   default stream
 * @error: return location for a #GError
 *
 * Enqueues setting @width 8-bit values at the start of each of @height
 * rows to @value (`cuMemsetD2D8Async`); the bytes between the end of a
 * row's @width values and the next row are left as they are. Like
 * cugi_buffer_memset_d8(), it is ordered on @stream and returns before it
 * runs. A region that does not fit in @self, or a @pitch smaller than a
 * row, is %CUGI_ERROR_INVALID_ARGUMENT.
 *
 * Returns: %TRUE if the memset was enqueued
 *
 * Since: 0.1
 */
gboolean
cugi_buffer_memset_2d_d8 (CugiBuffer  *self,
                          gsize        offset,
                          gsize        pitch,
                          guint8       value,
                          gsize        width,
                          gsize        height,
                          CugiStream  *stream,
                          GError     **error)
{
  g_return_val_if_fail (CUGI_IS_BUFFER (self), FALSE);
  g_return_val_if_fail (stream == NULL || CUGI_IS_STREAM (stream), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return memset_region (self, offset, pitch, value, width, height, 1, TRUE, stream, error);
}

/**
 * cugi_buffer_memset_2d_d16:
 * @self: a #CugiBuffer, typically pitched (cugi_buffer_new_pitched())
 * @offset: where the first row starts in @self, in bytes
 * @pitch: the distance in bytes between the starts of rows, at least
 *   @width × 2: for a pitched buffer, #CugiBuffer:pitch
 * @value: the 16-bit value to store
 * @width: the number of 16-bit values to set in each row
 * @height: the number of rows
 * @stream: (nullable): the stream to enqueue the memset on, or %NULL for the
 *   default stream
 * @error: return location for a #GError
 *
 * Enqueues setting @width 16-bit values at the start of each of @height
 * rows to @value (`cuMemsetD2D16Async`); the bytes between the end of a
 * row's @width values and the next row are left as they are. Like
 * cugi_buffer_memset_d16(), it is ordered on @stream and returns before it
 * runs. The start address and @pitch must be multiples of 2 bytes. A
 * region that does not fit in @self, or a @pitch smaller than a row, is
 * %CUGI_ERROR_INVALID_ARGUMENT.
 *
 * Returns: %TRUE if the memset was enqueued
 *
 * Since: 0.1
 */
gboolean
cugi_buffer_memset_2d_d16 (CugiBuffer  *self,
                           gsize        offset,
                           gsize        pitch,
                           guint16      value,
                           gsize        width,
                           gsize        height,
                           CugiStream  *stream,
                           GError     **error)
{
  g_return_val_if_fail (CUGI_IS_BUFFER (self), FALSE);
  g_return_val_if_fail (stream == NULL || CUGI_IS_STREAM (stream), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return memset_region (self, offset, pitch, value, width, height, 2, TRUE, stream, error);
}

/**
 * cugi_buffer_memset_2d_d32:
 * @self: a #CugiBuffer, typically pitched (cugi_buffer_new_pitched())
 * @offset: where the first row starts in @self, in bytes
 * @pitch: the distance in bytes between the starts of rows, at least
 *   @width × 4: for a pitched buffer, #CugiBuffer:pitch
 * @value: the 32-bit value to store
 * @width: the number of 32-bit values to set in each row
 * @height: the number of rows
 * @stream: (nullable): the stream to enqueue the memset on, or %NULL for the
 *   default stream
 * @error: return location for a #GError
 *
 * Enqueues setting @width 32-bit values at the start of each of @height
 * rows to @value (`cuMemsetD2D32Async`); the bytes between the end of a
 * row's @width values and the next row are left as they are. Like
 * cugi_buffer_memset_d32(), it is ordered on @stream and returns before it
 * runs. The start address and @pitch must be multiples of 4 bytes. A
 * region that does not fit in @self, or a @pitch smaller than a row, is
 * %CUGI_ERROR_INVALID_ARGUMENT.
 *
 * Returns: %TRUE if the memset was enqueued
 *
 * Since: 0.1
 */
gboolean
cugi_buffer_memset_2d_d32 (CugiBuffer  *self,
                           gsize        offset,
                           gsize        pitch,
                           guint32      value,
                           gsize        width,
                           gsize        height,
                           CugiStream  *stream,
                           GError     **error)
{
  g_return_val_if_fail (CUGI_IS_BUFFER (self), FALSE);
  g_return_val_if_fail (stream == NULL || CUGI_IS_STREAM (stream), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return memset_region (self, offset, pitch, value, width, height, 4, TRUE, stream, error);
}
