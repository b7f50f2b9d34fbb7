/* cugi-gst-frame.h: the planes of a video frame in a GstBuffer as CugiBuffers */
#pragma once

#if !defined(__CUGI_GST_INSIDE__) && !defined(CUGI_GST_COMPILATION)
#error "Only <cugi/gst/cugi-gst.h> can be included directly."
#endif

#include <cugi/cugi.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include "cugi-gst-version-macros.h"

G_BEGIN_DECLS

/**
 * CugiGstMapFlags:
 * @CUGI_GST_MAP_FLAGS_READ: the planes are read: for system memory, the
 *   frame's contents are copied to the device when it is mapped
 * @CUGI_GST_MAP_FLAGS_WRITE: the planes are written: for system memory, the
 *   planes are copied back into the frame when it is unmapped
 *
 * How a frame is used while it is mapped with cugi_gst_frame_map(), as
 * %GST_MAP_READ and %GST_MAP_WRITE.
 *
 * Since: 0.1
 */
typedef enum {
  CUGI_GST_MAP_FLAGS_READ  = 1 << 0,
  CUGI_GST_MAP_FLAGS_WRITE = 1 << 1,
} CugiGstMapFlags;

/**
 * CugiGstMemoryKind:
 * @CUGI_GST_MEMORY_KIND_CUDA: the frame is in CUDA memory (`GstCudaMemory`):
 *   its planes are that memory itself, without a copy
 * @CUGI_GST_MEMORY_KIND_SYSTEM: the frame is in system memory: its planes are
 *   device memory that cugi copies it into (and back, for
 *   %CUGI_GST_MAP_FLAGS_WRITE) through its pinned staging
 * @CUGI_GST_MEMORY_KIND_GL: the frame is in GL memory (`GstGLMemory`, a
 *   texture a plane), as #CugiGstFilter takes it: its planes are device
 *   memory that cugi copies the textures into (and back) on the GPU
 *
 * Where the frame of a #CugiGstFrame lives.
 *
 * Since: 0.1
 */
typedef enum {
  CUGI_GST_MEMORY_KIND_CUDA,
  CUGI_GST_MEMORY_KIND_SYSTEM,
  CUGI_GST_MEMORY_KIND_GL,
} CugiGstMemoryKind;

#define CUGI_GST_TYPE_FRAME (cugi_gst_frame_get_type ())
CUGI_GST_AVAILABLE_IN_0_1
G_DECLARE_FINAL_TYPE (CugiGstFrame, cugi_gst_frame, CUGI_GST, FRAME, GObject)

CUGI_GST_AVAILABLE_IN_0_1
CugiGstFrame      *cugi_gst_frame_map              (GstBuffer          *buffer,
                                                    const GstVideoInfo *info,
                                                    CugiGstMapFlags     flags,
                                                    CugiContext        *context,
                                                    CugiStream         *stream,
                                                    GError            **error);
CUGI_GST_AVAILABLE_IN_0_1
gboolean           cugi_gst_frame_unmap            (CugiGstFrame       *self,
                                                    GError            **error);
CUGI_GST_AVAILABLE_IN_0_1
gboolean           cugi_gst_frame_is_mapped        (CugiGstFrame       *self);

CUGI_GST_AVAILABLE_IN_0_1
GstBuffer         *cugi_gst_frame_get_buffer       (CugiGstFrame       *self);
CUGI_GST_AVAILABLE_IN_0_1
CugiContext       *cugi_gst_frame_get_context      (CugiGstFrame       *self);
CUGI_GST_AVAILABLE_IN_0_1
CugiStream        *cugi_gst_frame_get_stream       (CugiGstFrame       *self);
CUGI_GST_AVAILABLE_IN_0_1
CugiGstMapFlags    cugi_gst_frame_get_flags        (CugiGstFrame       *self);
CUGI_GST_AVAILABLE_IN_0_1
CugiGstMemoryKind  cugi_gst_frame_get_memory_kind  (CugiGstFrame       *self);
CUGI_GST_AVAILABLE_IN_0_1
GstVideoFormat     cugi_gst_frame_get_format       (CugiGstFrame       *self);
CUGI_GST_AVAILABLE_IN_0_1
guint              cugi_gst_frame_get_width        (CugiGstFrame       *self);
CUGI_GST_AVAILABLE_IN_0_1
guint              cugi_gst_frame_get_height       (CugiGstFrame       *self);
CUGI_GST_AVAILABLE_IN_0_1
guint              cugi_gst_frame_get_n_planes     (CugiGstFrame       *self);

CUGI_GST_AVAILABLE_IN_0_1
CugiBuffer        *cugi_gst_frame_get_plane        (CugiGstFrame       *self,
                                                    guint               plane);
CUGI_GST_AVAILABLE_IN_0_1
gsize              cugi_gst_frame_get_plane_pitch  (CugiGstFrame       *self,
                                                    guint               plane);
CUGI_GST_AVAILABLE_IN_0_1
guint              cugi_gst_frame_get_plane_width  (CugiGstFrame       *self,
                                                    guint               plane);
CUGI_GST_AVAILABLE_IN_0_1
guint              cugi_gst_frame_get_plane_height (CugiGstFrame       *self,
                                                    guint               plane);
CUGI_GST_AVAILABLE_IN_0_1
gsize              cugi_gst_frame_get_plane_row_size (CugiGstFrame     *self,
                                                    guint               plane);
CUGI_GST_AVAILABLE_IN_0_1
gsize              cugi_gst_frame_get_plane_size   (CugiGstFrame       *self,
                                                    guint               plane);
CUGI_GST_AVAILABLE_IN_0_1
guint              cugi_gst_frame_get_plane_pixel_stride (CugiGstFrame *self,
                                                    guint               plane);

G_END_DECLS
