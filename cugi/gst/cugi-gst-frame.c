/* cugi-gst-frame.c: the planes of a video frame in a GstBuffer as CugiBuffers
 *
 * A frame in CUDA memory (one GstCudaMemory) is mapped with GST_MAP_CUDA and
 * its planes are views of that memory, without a copy. From GStreamer 1.24,
 * the memory carries the stream its last writer used: the frame's stream
 * waits for it on the device when the frame is mapped, and the memory's
 * stream waits for the frame's work when it is unmapped. Before 1.24, CUDA
 * elements hand on memory whose contents are complete, so unmapping waits
 * for the frame's stream on the host.
 *
 * A frame in system memory gets device planes of its own, with the frame's
 * strides as pitches, filled through cugi's pinned staging when mapped for
 * reading and copied back when unmapped after writing. */
#include <glib/gi18n-lib.h>

#include "cugi-gst-private.h"

typedef struct
{
  CugiBuffer *buffer;
  gsize       pitch;
  gsize       row_size;
  gsize       size;
  guint       width;
  guint       height;
  guint       pixel_stride;
} Plane;

struct _CugiGstFrame
{
  GObject            parent_instance;

  GstVideoFrame      frame;
  gboolean           mapped;
  /* Made by a filter over planes it keeps (cugi_gst_frame_new_borrowed()):
   * no GstVideoFrame of its own. */
  gboolean           borrowed;
  GstBuffer         *buffer;
  CugiContext       *context;
  CugiStream        *stream;
  CugiGstMapFlags    flags;
  CugiGstMemoryKind  memory_kind;
  GstVideoFormat     format;
  guint              width;
  guint              height;
  guint              n_planes;
  Plane              planes[GST_VIDEO_MAX_PLANES];
  /* CUDA memory: the whole memory, which the planes are views of. */
  CugiBuffer        *memory;
#if CUGI_GST_HAVE_MEMORY_STREAM
  /* CUDA memory: the memory's stream, if it has one, and cugi's for it. */
  GstCudaStream     *gst_stream;
  CugiStream        *memory_stream;
#endif
};

G_DEFINE_FINAL_TYPE (CugiGstFrame, cugi_gst_frame, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_BUFFER,
  PROP_CONTEXT,
  PROP_STREAM,
  PROP_FLAGS,
  PROP_MEMORY_KIND,
  PROP_FORMAT,
  PROP_WIDTH,
  PROP_HEIGHT,
  PROP_N_PLANES,
  PROP_MAPPED,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* ---- the plane layout ----------------------------------------------------- */

/* Reads the size of each plane of @info into @self, or fails for a format
 * whose planes are no rows of whole pixels (tiled, or packed with no pixel
 * stride, as v210). */
static gboolean
frame_read_layout (CugiGstFrame        *self,
                   const GstVideoInfo  *info,
                   GError             **error)
{
  const GstVideoFormatInfo *finfo = info->finfo;

  if (finfo == NULL || GST_VIDEO_INFO_FORMAT (info) == GST_VIDEO_FORMAT_UNKNOWN ||
      GST_VIDEO_INFO_FORMAT (info) == GST_VIDEO_FORMAT_ENCODED ||
      GST_VIDEO_INFO_WIDTH (info) <= 0 || GST_VIDEO_INFO_HEIGHT (info) <= 0)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                           _("the video info describes no raw video format and size"));
      return FALSE;
    }
  if (GST_VIDEO_FORMAT_INFO_IS_TILED (finfo))
    goto unsupported;

  self->format = GST_VIDEO_INFO_FORMAT (info);
  self->width = GST_VIDEO_INFO_WIDTH (info);
  self->height = GST_VIDEO_INFO_HEIGHT (info);
  self->n_planes = GST_VIDEO_INFO_N_PLANES (info);
  for (guint i = 0; i < self->n_planes; i++)
    {
      Plane *plane = &self->planes[i];
      gint components[GST_VIDEO_MAX_COMPONENTS];
      gint pixel_stride;

      /* The first component of the plane tells its size. */
      gst_video_format_info_component (finfo, i, components);
      pixel_stride = GST_VIDEO_INFO_COMP_PSTRIDE (info, components[0]);
      if (components[0] < 0 || pixel_stride <= 0)
        goto unsupported;
      plane->width = GST_VIDEO_INFO_COMP_WIDTH (info, components[0]);
      plane->height = GST_VIDEO_INFO_COMP_HEIGHT (info, components[0]);
      plane->pixel_stride = pixel_stride;
      plane->row_size = (gsize) plane->width * (gsize) pixel_stride;
    }
  return TRUE;

unsupported:
  g_set_error (error, CUGI_ERROR, CUGI_ERROR_NOT_SUPPORTED,
               _("video format %s has planes that are not rows of whole pixels"),
               gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (info)));
  return FALSE;
}

/* Reads the pitches of the mapped frame into its planes. */
static gboolean
frame_read_pitches (CugiGstFrame  *self,
                    GError       **error)
{
  for (guint i = 0; i < self->n_planes; i++)
    {
      Plane *plane = &self->planes[i];
      gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (&self->frame, i);

      if (stride <= 0 || (gsize) stride < plane->row_size)
        {
          g_set_error (error, CUGI_ERROR, CUGI_ERROR_NOT_SUPPORTED,
                       _("plane %u of the frame has a stride of %d bytes, less than the %zu bytes of its rows of pixels"),
                       i, stride, plane->row_size);
          return FALSE;
        }
      plane->pitch = stride;
      plane->size = plane->pitch * (plane->height - 1) + plane->row_size;
    }
  return TRUE;
}

/* ---- CUDA memory ---------------------------------------------------------- */

/* Whether @buffer is one GstCudaMemory, the memory of GStreamer's CUDA
 * elements and pools. */
static gboolean
buffer_is_cuda_memory (GstBuffer *buffer)
{
  return gst_buffer_n_memory (buffer) == 1 && gst_is_cuda_memory (gst_buffer_peek_memory (buffer, 0));
}

/* Makes @waiter wait on the device for the work enqueued so far on
 * @signaller, or, with no @waiter, makes the calling thread wait for it. */
static gboolean
order_streams (CugiContext  *context,
               CugiStream   *waiter,
               CugiStream   *signaller,
               GError      **error)
{
  g_autoptr(CugiEvent) event = cugi_event_new (context, CUGI_EVENT_FLAGS_DISABLE_TIMING, error);

  if (event == NULL || !cugi_event_record (event, signaller, error))
    return FALSE;
  return waiter != NULL ? cugi_stream_wait_event (waiter, event, error)
                        : cugi_event_synchronize (event, error);
}

#if CUGI_GST_HAVE_MEMORY_STREAM
/* Whether @a and @b are the same CUDA stream. */
static gboolean
same_stream (CugiStream *a,
             CugiStream *b)
{
  guint64 handle_a = 0, handle_b = 0;

  if (a == NULL || b == NULL)
    return a == b;
  g_object_get (a, "handle", &handle_a, NULL);
  g_object_get (b, "handle", &handle_b, NULL);
  return handle_a == handle_b;
}
#endif

/* After mapping: the frame's stream waits for the memory's (GStreamer 1.24
 * and later), on the device, or the thread waits where the frame has no
 * stream. */
static gboolean
frame_order_after_memory (CugiGstFrame  *self,
                          GError       **error)
{
#if CUGI_GST_HAVE_MEMORY_STREAM
  GstCudaMemory *memory = (GstCudaMemory *) gst_buffer_peek_memory (self->buffer, 0);

  self->gst_stream = gst_cuda_memory_get_stream (memory);
  if (self->gst_stream == NULL)
    return TRUE;
  gst_cuda_stream_ref (self->gst_stream);
  self->memory_stream = cugi_stream_new_for_handle (self->context,
                                                    (guint64) (guintptr) gst_cuda_stream_get_handle (self->gst_stream),
                                                    error);
  if (self->memory_stream == NULL)
    return FALSE;
  if (self->stream == NULL)
    {
      gst_cuda_memory_sync (memory);
      return TRUE;
    }
  return same_stream (self->stream, self->memory_stream) ||
         order_streams (self->context, self->stream, self->memory_stream, error);
#else
  return TRUE;
#endif
}

/* Before unmapping: the memory's stream waits for the frame's work on the
 * device (GStreamer 1.24 and later); memory without a stream is handed on
 * complete, so the thread waits for it. */
static gboolean
frame_order_memory_after (CugiGstFrame  *self,
                          GError       **error)
{
#if CUGI_GST_HAVE_MEMORY_STREAM
  if (self->memory_stream != NULL)
    return same_stream (self->stream, self->memory_stream) ||
           order_streams (self->context, self->memory_stream, self->stream, error);
#endif
  return self->stream != NULL ? cugi_stream_synchronize (self->stream, error)
                              : order_streams (self->context, NULL, NULL, error);
}

static gboolean
frame_map_cuda (CugiGstFrame        *self,
                const GstVideoInfo  *info,
                GstMapFlags          flags,
                GError             **error)
{
  GstCudaMemory *memory = (GstCudaMemory *) gst_buffer_peek_memory (self->buffer, 0);
  GstMemory *gst_memory = GST_MEMORY_CAST (memory);
  guint64 base;

  if (!cugi_gst_ensure_cuda_library (error))
    return FALSE;
  if ((guint64) (guintptr) gst_cuda_context_get_handle (memory->context) !=
      cugi_gst_context_handle (self->context))
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_CONTEXT,
                           _("the frame's CUDA memory belongs to another CUDA context"));
      return FALSE;
    }
  if (!gst_video_frame_map (&self->frame, (GstVideoInfo *) info, self->buffer, flags | GST_MAP_CUDA))
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_FAILED,
                           _("GStreamer could not map the frame's CUDA memory"));
      return FALSE;
    }
  self->mapped = TRUE;
  if (!frame_read_pitches (self, error) || !frame_order_after_memory (self, error))
    return FALSE;

  base = (guint64) (guintptr) self->frame.map[0].data - gst_memory->offset;
  self->memory = cugi_buffer_new_for_address (self->context, base, gst_memory->maxsize, error);
  if (self->memory == NULL)
    return FALSE;
  for (guint i = 0; i < self->n_planes; i++)
    {
      guint64 address = (guint64) (guintptr) GST_VIDEO_FRAME_PLANE_DATA (&self->frame, i);

      self->planes[i].buffer = cugi_buffer_new_view (self->memory, address - base,
                                                     self->planes[i].size, error);
      if (self->planes[i].buffer == NULL)
        return FALSE;
    }
  return TRUE;
}

/* ---- system memory -------------------------------------------------------- */

static gboolean
frame_map_system (CugiGstFrame        *self,
                  const GstVideoInfo  *info,
                  GstMapFlags          flags,
                  GError             **error)
{
  if (!gst_video_frame_map (&self->frame, (GstVideoInfo *) info, self->buffer, flags))
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("the buffer of %zu bytes does not hold a %s frame of %u×%u pixels"),
                   gst_buffer_get_size (self->buffer), gst_video_format_to_string (self->format),
                   self->width, self->height);
      return FALSE;
    }
  self->mapped = TRUE;
  if (!frame_read_pitches (self, error))
    return FALSE;
  for (guint i = 0; i < self->n_planes; i++)
    {
      Plane *plane = &self->planes[i];

      plane->buffer = cugi_buffer_new (self->context, plane->size, error);
      if (plane->buffer == NULL ||
          ((self->flags & CUGI_GST_MAP_FLAGS_READ) &&
           !cugi_buffer_upload (plane->buffer, 0, GST_VIDEO_FRAME_PLANE_DATA (&self->frame, i),
                                plane->size, error)))
        return FALSE;
    }
  return TRUE;
}

/* Copies the planes back into a frame mapped for writing, once the frame's
 * stream has done its work. */
static gboolean
frame_copy_back (CugiGstFrame  *self,
                 GError       **error)
{
  if (!(self->flags & CUGI_GST_MAP_FLAGS_WRITE))
    return TRUE;
  if (self->stream != NULL && !cugi_stream_synchronize (self->stream, error))
    return FALSE;
  for (guint i = 0; i < self->n_planes; i++)
    if (!cugi_buffer_download_to_address (self->planes[i].buffer, 0,
                                          (guint64) (guintptr) GST_VIDEO_FRAME_PLANE_DATA (&self->frame, i),
                                          self->planes[i].size, error))
      return FALSE;
  return TRUE;
}

/* ---- mapping and unmapping ------------------------------------------------ */

/* Lets go of everything the mapping holds; the planes' buffers fail with
 * %CUGI_ERROR_INVALID_STATE from now on, wherever they are still held. */
static void
frame_release (CugiGstFrame *self)
{
  for (guint i = 0; i < self->n_planes; i++)
    if (self->planes[i].buffer != NULL)
      {
        if (self->memory == NULL)
          cugi_buffer_free (self->planes[i].buffer, NULL);
        g_clear_object (&self->planes[i].buffer);
      }
  if (self->memory != NULL)
    cugi_buffer_free (self->memory, NULL);
  g_clear_object (&self->memory);
#if CUGI_GST_HAVE_MEMORY_STREAM
  g_clear_object (&self->memory_stream);
  g_clear_pointer (&self->gst_stream, gst_cuda_stream_unref);
#endif
  if (self->mapped)
    gst_video_frame_unmap (&self->frame);
  self->mapped = FALSE;
}

/* Orders the frame's work and releases the mapping. */
static gboolean
frame_unmap (CugiGstFrame  *self,
             GError       **error)
{
  gboolean done = self->memory_kind == CUGI_GST_MEMORY_KIND_CUDA
                    ? frame_order_memory_after (self, error)
                    : frame_copy_back (self, error);

  frame_release (self);
  return done;
}

/**
 * cugi_gst_frame_map:
 * @buffer: a buffer holding a video frame
 * @info: the frame's format and size, as from gst_video_info_from_caps()
 * @flags: whether the frame's planes are read, written or both
 * @context: (nullable): the context to use the planes in, or %NULL for the
 *   default context; for CUDA memory, the context the memory belongs to
 *   (see cugi_gst_context_ensure_for_element())
 * @stream: (nullable): the stream of @context on which the planes are used,
 *   or %NULL for the default stream
 * @error: return location for a #GError
 *
 * Maps the frame in @buffer so that each of its planes is a #CugiBuffer that
 * kernels and copies can use (cugi_gst_frame_get_plane()), until
 * cugi_gst_frame_unmap() or the frame's finalization.
 *
 * A frame in CUDA memory (`video/x-raw(memory:CUDAMemory)`, one
 * `GstCudaMemory`) is mapped with `GST_MAP_CUDA` and its planes are that
 * memory, without a copy. On GStreamer 1.24 and later, @stream waits on the
 * device for the memory's own stream now, and the memory's stream waits for
 * @stream when the frame is unmapped; before 1.24, and with no @stream,
 * unmapping waits on the host for the frame's work, so that the memory is
 * complete when it is handed on.
 *
 * A frame in system memory gets device planes with the frame's strides as
 * pitches. With %CUGI_GST_MAP_FLAGS_READ the frame is copied into them now,
 * through cugi's pinned staging, and is on the device when this returns;
 * with %CUGI_GST_MAP_FLAGS_WRITE they are copied back into the frame when it
 * is unmapped, after the work on @stream is done (work on other streams
 * must be done by then). Each mapping allocates its planes.
 *
 * Returns: (transfer full): the mapped frame, or %NULL with @error set
 *   (%CUGI_ERROR_INVALID_ARGUMENT for a buffer too small for @info or not
 *   writable for %CUGI_GST_MAP_FLAGS_WRITE, %CUGI_ERROR_NOT_SUPPORTED for a
 *   format whose planes are not rows of pixels, %CUGI_ERROR_INVALID_CONTEXT
 *   for CUDA memory of another context)
 *
 * Since: 0.1
 */
CugiGstFrame *
cugi_gst_frame_map (GstBuffer           *buffer,
                    const GstVideoInfo  *info,
                    CugiGstMapFlags      flags,
                    CugiContext         *context,
                    CugiStream          *stream,
                    GError             **error)
{
  g_autoptr(CugiGstFrame) self = NULL;
  GstMapFlags map_flags = 0;
  gboolean mapped;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  g_return_val_if_fail (info != NULL, NULL);
  g_return_val_if_fail (context == NULL || CUGI_IS_CONTEXT (context), NULL);
  g_return_val_if_fail (stream == NULL || CUGI_IS_STREAM (stream), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (flags & CUGI_GST_MAP_FLAGS_READ)
    map_flags |= GST_MAP_READ;
  if (flags & CUGI_GST_MAP_FLAGS_WRITE)
    map_flags |= GST_MAP_WRITE;
  if (map_flags == 0 || (flags & ~(CUGI_GST_MAP_FLAGS_READ | CUGI_GST_MAP_FLAGS_WRITE)))
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                           _("a frame is mapped for reading, writing or both"));
      return NULL;
    }
  if ((flags & CUGI_GST_MAP_FLAGS_WRITE) && !gst_buffer_is_writable (buffer))
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                           _("a frame mapped for writing needs a writable buffer"));
      return NULL;
    }

  self = g_object_new (CUGI_GST_TYPE_FRAME, NULL);
  /* Borrowed until it is mapped: a reference of ours would make it
   * unwritable for the mapping. */
  self->buffer = buffer;
  self->flags = flags;
  if (!frame_read_layout (self, info, error) ||
      (self->context = context != NULL ? g_object_ref (context)
                                       : cugi_context_get_default (error)) == NULL)
    {
      self->buffer = NULL;
      return NULL;
    }
  if (stream != NULL && cugi_stream_get_context (stream) != self->context)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_CONTEXT,
                           _("the stream belongs to another context than the frame"));
      self->buffer = NULL;
      return NULL;
    }
  self->stream = stream != NULL ? g_object_ref (stream) : NULL;

  self->memory_kind = buffer_is_cuda_memory (buffer) ? CUGI_GST_MEMORY_KIND_CUDA
                                                     : CUGI_GST_MEMORY_KIND_SYSTEM;
  mapped = self->memory_kind == CUGI_GST_MEMORY_KIND_CUDA
             ? frame_map_cuda (self, info, map_flags, error)
             : frame_map_system (self, info, map_flags, error);
  if (!mapped)
    {
      frame_release (self);
      self->buffer = NULL;
      return NULL;
    }
  gst_buffer_ref (self->buffer);
  return g_steal_pointer (&self);
}

/**
 * cugi_gst_frame_unmap:
 * @self: a #CugiGstFrame
 * @error: return location for a #GError
 *
 * Ends the mapping: a frame in system memory mapped for writing gets its
 * planes back, and the planes' buffers fail with %CUGI_ERROR_INVALID_STATE
 * from now on, wherever they are still held (see cugi_gst_frame_map() for
 * how the frame's work is ordered). The buffer is unmapped even when this
 * fails; a frame that is not mapped is left as it is.
 *
 * Returns: %TRUE on success, %FALSE with @error set where the frame's work
 *   or its copy back failed, or %CUGI_ERROR_INVALID_STATE for a frame that a
 *   #CugiGstFilter handed to its subclass, which the filter unmaps itself
 *
 * Since: 0.1
 */
gboolean
cugi_gst_frame_unmap (CugiGstFrame  *self,
                      GError       **error)
{
  gboolean done;

  g_return_val_if_fail (CUGI_GST_IS_FRAME (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!self->mapped)
    return TRUE;
  if (self->borrowed)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE,
                           _("a filter's frame is unmapped by the filter, once transform_frame() returns"));
      return FALSE;
    }
  done = frame_unmap (self, error);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MAPPED]);
  return done;
}

/**
 * cugi_gst_frame_is_mapped: (get-property mapped)
 * @self: a #CugiGstFrame
 *
 * Returns: the value of #CugiGstFrame:mapped
 *
 * Since: 0.1
 */
gboolean
cugi_gst_frame_is_mapped (CugiGstFrame *self)
{
  g_return_val_if_fail (CUGI_GST_IS_FRAME (self), FALSE);

  return self->mapped;
}

/**
 * cugi_gst_frame_get_buffer: (get-property buffer)
 * @self: a #CugiGstFrame
 *
 * Returns: (transfer none): the value of #CugiGstFrame:buffer
 *
 * Since: 0.1
 */
GstBuffer *
cugi_gst_frame_get_buffer (CugiGstFrame *self)
{
  g_return_val_if_fail (CUGI_GST_IS_FRAME (self), NULL);

  return self->buffer;
}

/**
 * cugi_gst_frame_get_context: (get-property context)
 * @self: a #CugiGstFrame
 *
 * Returns: (transfer none): the value of #CugiGstFrame:context
 *
 * Since: 0.1
 */
CugiContext *
cugi_gst_frame_get_context (CugiGstFrame *self)
{
  g_return_val_if_fail (CUGI_GST_IS_FRAME (self), NULL);

  return self->context;
}

/**
 * cugi_gst_frame_get_stream: (get-property stream)
 * @self: a #CugiGstFrame
 *
 * Returns: (transfer none) (nullable): the value of #CugiGstFrame:stream
 *
 * Since: 0.1
 */
CugiStream *
cugi_gst_frame_get_stream (CugiGstFrame *self)
{
  g_return_val_if_fail (CUGI_GST_IS_FRAME (self), NULL);

  return self->stream;
}

/**
 * cugi_gst_frame_get_flags: (get-property flags)
 * @self: a #CugiGstFrame
 *
 * Returns: the value of #CugiGstFrame:flags
 *
 * Since: 0.1
 */
CugiGstMapFlags
cugi_gst_frame_get_flags (CugiGstFrame *self)
{
  g_return_val_if_fail (CUGI_GST_IS_FRAME (self), 0);

  return self->flags;
}

/**
 * cugi_gst_frame_get_memory_kind: (get-property memory-kind)
 * @self: a #CugiGstFrame
 *
 * Returns: the value of #CugiGstFrame:memory-kind
 *
 * Since: 0.1
 */
CugiGstMemoryKind
cugi_gst_frame_get_memory_kind (CugiGstFrame *self)
{
  g_return_val_if_fail (CUGI_GST_IS_FRAME (self), CUGI_GST_MEMORY_KIND_SYSTEM);

  return self->memory_kind;
}

/**
 * cugi_gst_frame_get_format: (get-property format)
 * @self: a #CugiGstFrame
 *
 * Returns: the value of #CugiGstFrame:format
 *
 * Since: 0.1
 */
GstVideoFormat
cugi_gst_frame_get_format (CugiGstFrame *self)
{
  g_return_val_if_fail (CUGI_GST_IS_FRAME (self), GST_VIDEO_FORMAT_UNKNOWN);

  return self->format;
}

/**
 * cugi_gst_frame_get_width: (get-property width)
 * @self: a #CugiGstFrame
 *
 * Returns: the value of #CugiGstFrame:width
 *
 * Since: 0.1
 */
guint
cugi_gst_frame_get_width (CugiGstFrame *self)
{
  g_return_val_if_fail (CUGI_GST_IS_FRAME (self), 0);

  return self->width;
}

/**
 * cugi_gst_frame_get_height: (get-property height)
 * @self: a #CugiGstFrame
 *
 * Returns: the value of #CugiGstFrame:height
 *
 * Since: 0.1
 */
guint
cugi_gst_frame_get_height (CugiGstFrame *self)
{
  g_return_val_if_fail (CUGI_GST_IS_FRAME (self), 0);

  return self->height;
}

/**
 * cugi_gst_frame_get_n_planes: (get-property n-planes)
 * @self: a #CugiGstFrame
 *
 * Returns: the value of #CugiGstFrame:n-planes
 *
 * Since: 0.1
 */
guint
cugi_gst_frame_get_n_planes (CugiGstFrame *self)
{
  g_return_val_if_fail (CUGI_GST_IS_FRAME (self), 0);

  return self->n_planes;
}

/* The plane @index of @self, or %NULL (with a critical) past the last. */
static const Plane *
frame_plane (CugiGstFrame *self,
             guint         index)
{
  g_return_val_if_fail (CUGI_GST_IS_FRAME (self), NULL);
  g_return_val_if_fail (index < self->n_planes, NULL);

  return &self->planes[index];
}

/**
 * cugi_gst_frame_get_plane:
 * @self: a #CugiGstFrame
 * @plane: the plane, from 0 to #CugiGstFrame:n-planes - 1
 *
 * The device memory of plane @plane: cugi_gst_frame_get_plane_size() bytes,
 * its rows cugi_gst_frame_get_plane_pitch() bytes apart. It is valid while
 * the frame is mapped: after cugi_gst_frame_unmap(), every call on it fails
 * with %CUGI_ERROR_INVALID_STATE.
 *
 * Returns: (transfer none) (nullable): the plane, or %NULL once the frame is
 *   unmapped
 *
 * Since: 0.1
 */
CugiBuffer *
cugi_gst_frame_get_plane (CugiGstFrame *self,
                          guint         plane)
{
  const Plane *found = frame_plane (self, plane);

  return found != NULL ? found->buffer : NULL;
}

/**
 * cugi_gst_frame_get_plane_pitch:
 * @self: a #CugiGstFrame
 * @plane: the plane
 *
 * Returns: the distance between the starts of two rows of @plane, in bytes
 *
 * Since: 0.1
 */
gsize
cugi_gst_frame_get_plane_pitch (CugiGstFrame *self,
                                guint         plane)
{
  const Plane *found = frame_plane (self, plane);

  return found != NULL ? found->pitch : 0;
}

/**
 * cugi_gst_frame_get_plane_width:
 * @self: a #CugiGstFrame
 * @plane: the plane
 *
 * The width of @plane in pixels of the plane, e.g. half the frame's for the
 * chroma plane of NV12, whose pixels are U and V pairs.
 *
 * Returns: the number of pixels in a row of @plane
 *
 * Since: 0.1
 */
guint
cugi_gst_frame_get_plane_width (CugiGstFrame *self,
                                guint         plane)
{
  const Plane *found = frame_plane (self, plane);

  return found != NULL ? found->width : 0;
}

/**
 * cugi_gst_frame_get_plane_height:
 * @self: a #CugiGstFrame
 * @plane: the plane
 *
 * Returns: the number of rows of @plane
 *
 * Since: 0.1
 */
guint
cugi_gst_frame_get_plane_height (CugiGstFrame *self,
                                 guint         plane)
{
  const Plane *found = frame_plane (self, plane);

  return found != NULL ? found->height : 0;
}

/**
 * cugi_gst_frame_get_plane_pixel_stride:
 * @self: a #CugiGstFrame
 * @plane: the plane
 *
 * Returns: the size of a pixel of @plane in bytes (4 for RGBA, 2 for the
 *   chroma plane of NV12)
 *
 * Since: 0.1
 */
guint
cugi_gst_frame_get_plane_pixel_stride (CugiGstFrame *self,
                                       guint         plane)
{
  const Plane *found = frame_plane (self, plane);

  return found != NULL ? found->pixel_stride : 0;
}

/**
 * cugi_gst_frame_get_plane_row_size:
 * @self: a #CugiGstFrame
 * @plane: the plane
 *
 * Returns: the number of bytes of pixels in a row of @plane: its width
 *   times its pixel stride, at most its pitch
 *
 * Since: 0.1
 */
gsize
cugi_gst_frame_get_plane_row_size (CugiGstFrame *self,
                                   guint         plane)
{
  const Plane *found = frame_plane (self, plane);

  return found != NULL ? found->row_size : 0;
}

/**
 * cugi_gst_frame_get_plane_size:
 * @self: a #CugiGstFrame
 * @plane: the plane
 *
 * Returns: the size of the plane's buffer in bytes: from the start of its
 *   first row to the end of the pixels of its last
 *
 * Since: 0.1
 */
gsize
cugi_gst_frame_get_plane_size (CugiGstFrame *self,
                               guint         plane)
{
  const Plane *found = frame_plane (self, plane);

  return found != NULL ? found->size : 0;
}

/* ---- frames of a filter --------------------------------------------------- */

CugiGstFrame *
cugi_gst_frame_new_borrowed (CugiGstFrame       *reuse,
                             GstBuffer          *buffer,
                             const GstVideoInfo *info,
                             CugiGstMapFlags     flags,
                             CugiGstMemoryKind   memory_kind,
                             CugiContext        *context,
                             CugiStream         *stream,
                             CugiBuffer * const *planes,
                             const gsize        *pitches)
{
  CugiGstFrame *self = reuse;

  if (self == NULL)
    {
      gboolean laid_out;

      self = g_object_new (CUGI_GST_TYPE_FRAME, NULL);
      laid_out = frame_read_layout (self, info, NULL);
      /* The filter checked the layout when it took the caps. */
      g_assert (laid_out);
      self->borrowed = TRUE;
    }
  g_assert (self->borrowed && !self->mapped && self->buffer == NULL);
  self->buffer = gst_buffer_ref (buffer);
  self->flags = flags;
  self->memory_kind = memory_kind;
  g_set_object (&self->context, context);
  g_set_object (&self->stream, stream);
  for (guint i = 0; i < self->n_planes; i++)
    {
      Plane *plane = &self->planes[i];

      plane->buffer = g_object_ref (planes[i]);
      plane->pitch = pitches[i];
      plane->size = plane->pitch * (plane->height - 1) + plane->row_size;
    }
  self->mapped = TRUE;
  return self;
}

void
cugi_gst_frame_end_borrowed (CugiGstFrame *self)
{
  for (guint i = 0; i < self->n_planes; i++)
    g_clear_object (&self->planes[i].buffer);
  self->mapped = FALSE;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MAPPED]);
}

gboolean
cugi_gst_frame_recycle (CugiGstFrame *self)
{
  g_assert (self->borrowed && !self->mapped);
  if (g_atomic_int_get (&G_OBJECT (self)->ref_count) != 1)
    return FALSE;
  gst_clear_buffer (&self->buffer);
  return TRUE;
}

gboolean
cugi_gst_frame_check_layout (const GstVideoInfo  *info,
                             gsize               *row_sizes,
                             guint               *heights,
                             GError             **error)
{
  g_autoptr(CugiGstFrame) probe = g_object_new (CUGI_GST_TYPE_FRAME, NULL);

  if (!frame_read_layout (probe, info, error))
    return FALSE;
  for (guint i = 0; i < probe->n_planes; i++)
    {
      row_sizes[i] = probe->planes[i].row_size;
      heights[i] = probe->planes[i].height;
    }
  return TRUE;
}

/* ---- the object ----------------------------------------------------------- */

static void
cugi_gst_frame_finalize (GObject *object)
{
  CugiGstFrame *self = CUGI_GST_FRAME (object);

  /* Dropped without cugi_gst_frame_unmap(): the work is ordered as there,
   * but a failure can only be logged. */
  if (self->borrowed)
    for (guint i = 0; i < self->n_planes; i++)
      g_clear_object (&self->planes[i].buffer);
  else if (self->mapped)
    {
      g_autoptr(GError) error = NULL;

      if (!frame_unmap (self, &error))
        g_warning ("unmapping a dropped frame failed: %s", error->message);
    }
  g_clear_object (&self->stream);
  g_clear_object (&self->context);
  gst_clear_buffer (&self->buffer);

  G_OBJECT_CLASS (cugi_gst_frame_parent_class)->finalize (object);
}

static void
cugi_gst_frame_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  CugiGstFrame *self = CUGI_GST_FRAME (object);

  switch (prop_id)
    {
    case PROP_BUFFER:
      g_value_set_boxed (value, self->buffer);
      break;
    case PROP_CONTEXT:
      g_value_set_object (value, self->context);
      break;
    case PROP_STREAM:
      g_value_set_object (value, self->stream);
      break;
    case PROP_FLAGS:
      g_value_set_flags (value, self->flags);
      break;
    case PROP_MEMORY_KIND:
      g_value_set_enum (value, self->memory_kind);
      break;
    case PROP_FORMAT:
      g_value_set_enum (value, self->format);
      break;
    case PROP_WIDTH:
      g_value_set_uint (value, self->width);
      break;
    case PROP_HEIGHT:
      g_value_set_uint (value, self->height);
      break;
    case PROP_N_PLANES:
      g_value_set_uint (value, self->n_planes);
      break;
    case PROP_MAPPED:
      g_value_set_boolean (value, self->mapped);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cugi_gst_frame_class_init (CugiGstFrameClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamFlags flags = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  object_class->finalize = cugi_gst_frame_finalize;
  object_class->get_property = cugi_gst_frame_get_property;

  /**
   * CugiGstFrame:buffer:
   *
   * The buffer the frame is in.
   *
   * Since: 0.1
   */
  properties[PROP_BUFFER] = g_param_spec_boxed ("buffer", NULL, NULL, gst_buffer_get_type (), flags);
  /**
   * CugiGstFrame:context:
   *
   * The context the planes are in.
   *
   * Since: 0.1
   */
  properties[PROP_CONTEXT] = g_param_spec_object ("context", NULL, NULL, CUGI_TYPE_CONTEXT, flags);
  /**
   * CugiGstFrame:stream:
   *
   * The stream the planes are used on, or %NULL for the default stream.
   *
   * Since: 0.1
   */
  properties[PROP_STREAM] = g_param_spec_object ("stream", NULL, NULL, CUGI_TYPE_STREAM, flags);
  /**
   * CugiGstFrame:flags:
   *
   * Whether the frame was mapped for reading, writing or both.
   *
   * Since: 0.1
   */
  properties[PROP_FLAGS] = g_param_spec_flags ("flags", NULL, NULL, CUGI_GST_TYPE_MAP_FLAGS,
                                               CUGI_GST_MAP_FLAGS_READ, flags);
  /**
   * CugiGstFrame:memory-kind:
   *
   * Where the frame lives: in CUDA memory, whose planes are used in place,
   * or in system memory, which is copied.
   *
   * Since: 0.1
   */
  properties[PROP_MEMORY_KIND] = g_param_spec_enum ("memory-kind", NULL, NULL,
                                                    CUGI_GST_TYPE_MEMORY_KIND,
                                                    CUGI_GST_MEMORY_KIND_SYSTEM, flags);
  /**
   * CugiGstFrame:format:
   *
   * The frame's video format.
   *
   * Since: 0.1
   */
  properties[PROP_FORMAT] = g_param_spec_enum ("format", NULL, NULL, GST_TYPE_VIDEO_FORMAT,
                                               GST_VIDEO_FORMAT_UNKNOWN, flags);
  /**
   * CugiGstFrame:width:
   *
   * The frame's width in pixels.
   *
   * Since: 0.1
   */
  properties[PROP_WIDTH] = g_param_spec_uint ("width", NULL, NULL, 0, G_MAXUINT, 0, flags);
  /**
   * CugiGstFrame:height:
   *
   * The frame's height in pixels.
   *
   * Since: 0.1
   */
  properties[PROP_HEIGHT] = g_param_spec_uint ("height", NULL, NULL, 0, G_MAXUINT, 0, flags);
  /**
   * CugiGstFrame:n-planes:
   *
   * The number of planes of the frame's format (1 for RGBA, 2 for NV12).
   *
   * Since: 0.1
   */
  properties[PROP_N_PLANES] = g_param_spec_uint ("n-planes", NULL, NULL, 0, GST_VIDEO_MAX_PLANES, 0,
                                                 flags);
  /**
   * CugiGstFrame:mapped:
   *
   * Whether the frame is mapped, from cugi_gst_frame_map() to
   * cugi_gst_frame_unmap(). Notified when it is unmapped.
   *
   * Since: 0.1
   */
  properties[PROP_MAPPED] = g_param_spec_boolean ("mapped", NULL, NULL, FALSE,
                                                  flags | G_PARAM_EXPLICIT_NOTIFY);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
cugi_gst_frame_init (CugiGstFrame *self)
{
}
