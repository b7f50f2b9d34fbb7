/* cugi-array.h: CUDA arrays, the memory textures and surfaces read */
#pragma once

#if !defined(__CUGI_INSIDE__) && !defined(CUGI_COMPILATION)
#error "Only <cugi/cugi.h> can be included directly."
#endif

#include <gio/gio.h>
#include "cugi-version.h"
#include "cugi-types.h"

G_BEGIN_DECLS

/**
 * CugiArrayFormat:
 * @CUGI_ARRAY_FORMAT_UINT8: 8-bit unsigned integers (`unsigned char`)
 * @CUGI_ARRAY_FORMAT_UINT16: 16-bit unsigned integers
 * @CUGI_ARRAY_FORMAT_UINT32: 32-bit unsigned integers
 * @CUGI_ARRAY_FORMAT_INT8: 8-bit signed integers (`signed char`)
 * @CUGI_ARRAY_FORMAT_INT16: 16-bit signed integers
 * @CUGI_ARRAY_FORMAT_INT32: 32-bit signed integers
 * @CUGI_ARRAY_FORMAT_HALF: 16-bit floats (`__half`)
 * @CUGI_ARRAY_FORMAT_FLOAT: 32-bit floats
 *
 * The type of each channel of an element of a #CugiArray, or of a texture
 * over a buffer, as `CUarray_format`.
 *
 * Since: 0.1
 */
typedef enum
{
  CUGI_ARRAY_FORMAT_UINT8 = 0x01,
  CUGI_ARRAY_FORMAT_UINT16 = 0x02,
  CUGI_ARRAY_FORMAT_UINT32 = 0x03,
  CUGI_ARRAY_FORMAT_INT8 = 0x08,
  CUGI_ARRAY_FORMAT_INT16 = 0x09,
  CUGI_ARRAY_FORMAT_INT32 = 0x0a,
  CUGI_ARRAY_FORMAT_HALF = 0x10,
  CUGI_ARRAY_FORMAT_FLOAT = 0x20,
} CugiArrayFormat;

/**
 * CugiArrayFlags:
 * @CUGI_ARRAY_FLAGS_NONE: a plain array
 * @CUGI_ARRAY_FLAGS_LAYERED: a layered array: its depth is the number of
 *   layers of a 1D (height 0) or 2D array, which textures filter within one
 *   layer only
 * @CUGI_ARRAY_FLAGS_SURFACE_LDST: kernels may read and write the array
 *   through a #CugiSurface
 * @CUGI_ARRAY_FLAGS_CUBEMAP: six square layers, the faces of a cube
 *   (a depth of 6, or a multiple of 6 when layered too)
 * @CUGI_ARRAY_FLAGS_TEXTURE_GATHER: a 2D array that textures may gather
 *   from (`tex2Dgather()`)
 * @CUGI_ARRAY_FLAGS_COLOR_ATTACHMENT: the array is (or is over memory that
 *   is) a color target of a graphics API, as images imported from Vulkan
 *   that are rendered to must say (cugi_external_memory_get_array())
 *
 * How a #CugiArray may be used, as the `CUDA_ARRAY3D_*` flags.
 *
 * Since: 0.1
 */
typedef enum /*< flags >*/
{
  CUGI_ARRAY_FLAGS_NONE = 0,
  CUGI_ARRAY_FLAGS_LAYERED = 1 << 0,
  CUGI_ARRAY_FLAGS_SURFACE_LDST = 1 << 1,
  CUGI_ARRAY_FLAGS_CUBEMAP = 1 << 2,
  CUGI_ARRAY_FLAGS_TEXTURE_GATHER = 1 << 3,
  CUGI_ARRAY_FLAGS_COLOR_ATTACHMENT = 1 << 5,
} CugiArrayFlags;

#define CUGI_TYPE_ARRAY (cugi_array_get_type ())
CUGI_AVAILABLE_IN_0_1
G_DECLARE_FINAL_TYPE (CugiArray, cugi_array, CUGI, ARRAY, GObject)

CUGI_AVAILABLE_IN_0_1
CugiArray       *cugi_array_new              (CugiContext      *context,
                                              CugiArrayFormat   format,
                                              guint             channels,
                                              gsize             width,
                                              gsize             height,
                                              gsize             depth,
                                              CugiArrayFlags    flags,
                                              GError          **error);

CUGI_AVAILABLE_IN_0_1
CugiContext     *cugi_array_get_context      (CugiArray        *self);
CUGI_AVAILABLE_IN_0_1
CugiArrayFormat  cugi_array_get_format       (CugiArray        *self);
CUGI_AVAILABLE_IN_0_1
guint            cugi_array_get_channels     (CugiArray        *self);
CUGI_AVAILABLE_IN_0_1
gsize            cugi_array_get_element_size (CugiArray        *self);
CUGI_AVAILABLE_IN_0_1
gsize            cugi_array_get_width        (CugiArray        *self);
CUGI_AVAILABLE_IN_0_1
gsize            cugi_array_get_height       (CugiArray        *self);
CUGI_AVAILABLE_IN_0_1
gsize            cugi_array_get_depth        (CugiArray        *self);
CUGI_AVAILABLE_IN_0_1
CugiArrayFlags   cugi_array_get_flags        (CugiArray        *self);
CUGI_AVAILABLE_IN_0_1
gboolean         cugi_array_is_freed         (CugiArray        *self);
CUGI_AVAILABLE_IN_0_1
gboolean         cugi_array_free             (CugiArray        *self,
                                              GError          **error);

CUGI_AVAILABLE_IN_0_1
gsize            cugi_array_format_get_size  (CugiArrayFormat   format);

/* Copies (cugi-array-copy.c) */
CUGI_AVAILABLE_IN_0_1
gboolean         cugi_array_upload           (CugiArray        *self,
                                              gsize             x,
                                              gsize             y,
                                              gsize             z,
                                              const guint8     *data,
                                              gsize             len,
                                              gsize             width,
                                              gsize             height,
                                              gsize             depth,
                                              GError          **error);
CUGI_AVAILABLE_IN_0_1
gboolean         cugi_array_upload_from_address (CugiArray     *self,
                                              gsize             x,
                                              gsize             y,
                                              gsize             z,
                                              guint64           address,
                                              gsize             len,
                                              gsize             width,
                                              gsize             height,
                                              gsize             depth,
                                              GError          **error);
CUGI_AVAILABLE_IN_0_1
GBytes          *cugi_array_download         (CugiArray        *self,
                                              gsize             x,
                                              gsize             y,
                                              gsize             z,
                                              gsize             width,
                                              gsize             height,
                                              gsize             depth,
                                              GError          **error);
CUGI_AVAILABLE_IN_0_1
gboolean         cugi_array_download_to_address (CugiArray     *self,
                                              gsize             x,
                                              gsize             y,
                                              gsize             z,
                                              guint64           address,
                                              gsize             len,
                                              gsize             width,
                                              gsize             height,
                                              gsize             depth,
                                              GError          **error);
CUGI_AVAILABLE_IN_0_1
gboolean         cugi_array_upload_from_host (CugiArray        *self,
                                              gsize             x,
                                              gsize             y,
                                              gsize             z,
                                              CugiHostBuffer   *host,
                                              gsize             host_offset,
                                              gsize             host_pitch,
                                              gsize             host_height,
                                              gsize             width,
                                              gsize             height,
                                              gsize             depth,
                                              CugiStream       *stream,
                                              GError          **error);
CUGI_AVAILABLE_IN_0_1
gboolean         cugi_array_download_to_host (CugiArray        *self,
                                              gsize             x,
                                              gsize             y,
                                              gsize             z,
                                              CugiHostBuffer   *host,
                                              gsize             host_offset,
                                              gsize             host_pitch,
                                              gsize             host_height,
                                              gsize             width,
                                              gsize             height,
                                              gsize             depth,
                                              CugiStream       *stream,
                                              GError          **error);
CUGI_AVAILABLE_IN_0_1
gboolean         cugi_array_copy_from_buffer (CugiArray        *self,
                                              gsize             x,
                                              gsize             y,
                                              gsize             z,
                                              CugiBuffer       *src,
                                              gsize             src_offset,
                                              gsize             src_pitch,
                                              gsize             src_height,
                                              gsize             width,
                                              gsize             height,
                                              gsize             depth,
                                              CugiStream       *stream,
                                              GError          **error);
CUGI_AVAILABLE_IN_0_1
gboolean         cugi_array_copy_to_buffer   (CugiArray        *self,
                                              gsize             x,
                                              gsize             y,
                                              gsize             z,
                                              CugiBuffer       *dst,
                                              gsize             dst_offset,
                                              gsize             dst_pitch,
                                              gsize             dst_height,
                                              gsize             width,
                                              gsize             height,
                                              gsize             depth,
                                              CugiStream       *stream,
                                              GError          **error);
CUGI_AVAILABLE_IN_0_1
gboolean         cugi_array_copy             (CugiArray        *dst,
                                              gsize             dst_x,
                                              gsize             dst_y,
                                              gsize             dst_z,
                                              CugiArray        *src,
                                              gsize             src_x,
                                              gsize             src_y,
                                              gsize             src_z,
                                              gsize             width,
                                              gsize             height,
                                              gsize             depth,
                                              CugiStream       *stream,
                                              GError          **error);

G_END_DECLS
