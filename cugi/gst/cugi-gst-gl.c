/* cugi-gst-gl.c: GL memory (video/x-raw(memory:GLMemory)) in cugi's filters
 *
 * A frame in GL memory is one GstGLMemory, a 2D texture, a plane. Its
 * planes reach the filter's device planes, and come back, by copies on the
 * GPU between the texture, registered with CUDA, and the device planes: no
 * frame crosses the host. The copies run in the thread of the textures' GL
 * context, as registering, mapping and unmapping want that context current;
 * mapping orders the GL work before them, unmapping orders them before the
 * GL work after. Registrations are kept on the memory (GStreamer's GL pools
 * hand the same few round) and unregistered in that thread when it goes.
 *
 * The GL display and context are negotiated as GstGL elements do: the
 * application's or a neighbour's through GstContext, else a context of our
 * own, shared with the application's.
 */
#include <glib/gi18n-lib.h>

#include "cugi-gst-private.h"

GST_DEBUG_CATEGORY_STATIC (cugi_gst_gl_debug);
#define GST_CAT_DEFAULT cugi_gst_gl_debug

/* GL_TEXTURE_2D, the target of every texture GstGLMemory has in 2D. */
#define TEXTURE_2D 0x0DE1

struct _CugiGstGl
{
  GstGLDisplay *display;
  GstGLContext *context;         /* the one the filter's pools are in */
  GstGLContext *other_context;   /* the application's, which ours shares */
};

CugiGstGl *
cugi_gst_gl_new (void)
{
  static gsize debug_once = 0;

  if (g_once_init_enter (&debug_once))
    {
      GST_DEBUG_CATEGORY_INIT (cugi_gst_gl_debug, "cugigstgl", 0, "GL memory in cugi filters");
      g_once_init_leave (&debug_once, 1);
    }
  return g_new0 (CugiGstGl, 1);
}

void
cugi_gst_gl_free (CugiGstGl *self)
{
  gst_clear_object (&self->context);
  gst_clear_object (&self->other_context);
  gst_clear_object (&self->display);
  g_free (self);
}

void
cugi_gst_gl_set_context (CugiGstGl  *self,
                         GstElement *element,
                         GstContext *context)
{
  gst_gl_handle_set_context (element, context, &self->display, &self->other_context);
}

gboolean
cugi_gst_gl_handle_query (CugiGstGl  *self,
                          GstElement *element,
                          GstQuery   *query)
{
  return gst_gl_handle_context_query (element, query, self->display, self->context,
                                      self->other_context);
}

/* The GL context a neighbour has, else the display's for this thread, else
 * a new one, sharing the application's. */
gboolean
cugi_gst_gl_ensure (CugiGstGl  *self,
                    GstElement *element,
                    GError    **error)
{
  g_autoptr(GError) gl_error = NULL;

  if (self->context != NULL)
    return TRUE;
  if (!gst_gl_ensure_element_data (element, &self->display, &self->other_context))
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_NOT_AVAILABLE,
                   _("%s found no GL display for frames in GL memory"), GST_ELEMENT_NAME (element));
      return FALSE;
    }
  if (gst_gl_query_local_gl_context (element, GST_PAD_SRC, &self->context) ||
      gst_gl_query_local_gl_context (element, GST_PAD_SINK, &self->context))
    return TRUE;

  GST_OBJECT_LOCK (self->display);
  do
    {
      gst_clear_object (&self->context);
      self->context = gst_gl_display_get_gl_context_for_thread (self->display, NULL);
      if (self->context == NULL &&
          !gst_gl_display_create_context (self->display, self->other_context, &self->context, &gl_error))
        break;
    }
  while (!gst_gl_display_add_context (self->display, self->context));
  GST_OBJECT_UNLOCK (self->display);
  if (self->context == NULL)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_NOT_AVAILABLE,
                   _("%s could not make a GL context for frames in GL memory: %s"),
                   GST_ELEMENT_NAME (element), gl_error != NULL ? gl_error->message : "");
      return FALSE;
    }
  return TRUE;
}

/* A GL pool of the filter's context: textures for the frames, and a sync
 * meta each, by which GL work in other contexts waits for ours. */
GstBufferPool *
cugi_gst_gl_new_pool (CugiGstGl *self)
{
  return gst_gl_buffer_pool_new (self->context);
}

gboolean
cugi_gst_gl_pool_fits (CugiGstGl     *self,
                       GstBufferPool *pool)
{
  return GST_IS_GL_BUFFER_POOL (pool) && GST_GL_BUFFER_POOL (pool)->context == self->context;
}

void
cugi_gst_gl_configure_pool (GstBufferPool *pool,
                            GstStructure  *config)
{
  if (GST_IS_GL_BUFFER_POOL (pool))
    gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_GL_SYNC_META);
}

/* ---- registrations, kept on the memory -------------------------------------- */

typedef struct
{
  CugiGraphicsResource *resource;
  GstGLContext         *context;   /* the texture's, in whose thread it goes */
} Registration;

static void
registration_unref_resource (GstGLContext *context,
                             gpointer      resource)
{
  g_object_unref (resource);
}

static void
registration_free (gpointer data)
{
  Registration *registration = data;

  gst_gl_context_thread_add (registration->context, registration_unref_resource, registration->resource);
  gst_object_unref (registration->context);
  g_free (registration);
}

static GQuark
registration_quark (void)
{
  return g_quark_from_static_string ("cugi-gst-gl-registration");
}

/* The texture of @memory registered with CUDA in @context: once, then kept
 * on the memory. In the GL thread. */
static CugiGraphicsResource *
registration_get (GstGLMemory  *memory,
                  guint         plane,
                  guint         texture,
                  CugiContext  *context,
                  GError      **error)
{
  GstMiniObject *object = GST_MINI_OBJECT_CAST (memory);
  Registration *registration = gst_mini_object_get_qdata (object, registration_quark ());

  if (registration != NULL && cugi_graphics_resource_get_context (registration->resource) == context)
    return registration->resource;

  registration = g_new0 (Registration, 1);
  registration->resource = cugi_graphics_resource_new_for_gl_texture (context, texture, TEXTURE_2D,
                                                                      CUGI_GRAPHICS_REGISTER_FLAGS_NONE,
                                                                      error);
  if (registration->resource == NULL)
    {
      g_prefix_error (error, _("CUDA did not take the GL texture of plane %u (is GL on another device than CUDA?): "),
                      plane);
      g_free (registration);
      return NULL;
    }
  registration->context = gst_object_ref (GST_GL_BASE_MEMORY_CAST (memory)->context);
  gst_mini_object_set_qdata (object, registration_quark (), registration, registration_free);
  return registration->resource;
}

/* ---- copies ----------------------------------------------------------------- */

typedef struct
{
  GstVideoFrame      *frame;
  CugiContext        *context;
  CugiBuffer * const *planes;
  const gsize        *pitches;
  const gsize        *row_bytes;
  const guint        *rows;
  gboolean            to_device;
  CugiStream         *stream;
  gboolean            ok;
  GError             *error;
} Transfer;

/* Copies the rows of one plane between its texture, mapped, and its device
 * plane, refusing a texture whose texels are not the plane's bytes. */
static gboolean
transfer_plane (Transfer  *transfer,
                CugiArray *array,
                guint      plane,
                GError   **error)
{
  gsize element_size = cugi_array_get_element_size (array);
  gsize row_bytes = transfer->row_bytes[plane];
  gsize width = row_bytes / element_size;

  if (width * element_size != row_bytes || cugi_array_get_width (array) < width ||
      cugi_array_get_height (array) < transfer->rows[plane])
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_NOT_SUPPORTED,
                   _("the GL texture of plane %u (%zu×%zu texels of %zu bytes) does not hold its %u rows of %zu bytes"),
                   plane, cugi_array_get_width (array), cugi_array_get_height (array), element_size,
                   transfer->rows[plane], row_bytes);
      return FALSE;
    }
  if (transfer->to_device)
    return cugi_array_copy_to_buffer (array, 0, 0, 0, transfer->planes[plane], 0, transfer->pitches[plane],
                                      transfer->rows[plane], width, transfer->rows[plane], 1,
                                      transfer->stream, error);
  return cugi_array_copy_from_buffer (array, 0, 0, 0, transfer->planes[plane], 0, transfer->pitches[plane],
                                      transfer->rows[plane], width, transfer->rows[plane], 1,
                                      transfer->stream, error);
}

static void
transfer_in_gl_thread (GstGLContext *gl_context,
                       gpointer      data)
{
  Transfer *transfer = data;
  GstVideoFrame *frame = transfer->frame;
  GstGLSyncMeta *sync = gst_buffer_get_gl_sync_meta (frame->buffer);

  /* The producer's GL work on the textures first, in whichever context. */
  if (transfer->to_device && sync != NULL)
    gst_gl_sync_meta_wait (sync, gl_context);

  transfer->ok = TRUE;
  for (guint plane = 0; plane < GST_VIDEO_FRAME_N_PLANES (frame) && transfer->ok; plane++)
    {
      GstMemory *memory = gst_buffer_peek_memory (frame->buffer, plane);
      g_autoptr(CugiArray) array = NULL;
      CugiGraphicsResource *resource;

      if (!gst_is_gl_memory (memory) ||
          GST_GL_MEMORY_CAST (memory)->tex_target != GST_GL_TEXTURE_TARGET_2D)
        {
          g_set_error (&transfer->error, CUGI_ERROR, CUGI_ERROR_NOT_SUPPORTED,
                       _("plane %u of the frame is not a 2D texture in GL memory"), plane);
          transfer->ok = FALSE;
          break;
        }
      /* Mapped with GST_MAP_GL, a plane's data is its texture's name. */
      resource = registration_get (GST_GL_MEMORY_CAST (memory), plane, *(guint *) frame->data[plane],
                                   transfer->context,
                                   &transfer->error);
      transfer->ok = resource != NULL &&
                     cugi_graphics_resource_map (resource, transfer->stream, &transfer->error) &&
                     (array = cugi_graphics_resource_get_array (resource, 0, 0, &transfer->error)) != NULL &&
                     transfer_plane (transfer, array, plane, &transfer->error);
      g_clear_object (&array);
      /* Unmapped after a failed copy too, so that the texture stays usable. */
      if (resource != NULL && cugi_graphics_resource_is_mapped (resource) &&
          !cugi_graphics_resource_unmap (resource, transfer->stream, transfer->ok ? &transfer->error : NULL))
        transfer->ok = FALSE;
    }

  /* GL work in other contexts waits for ours: the unmaps ordered it after
   * the copies. */
  if (!transfer->to_device && transfer->ok && sync != NULL)
    gst_gl_sync_meta_set_sync_point (sync, gl_context);
}

/* Enqueues on @stream the copies between the textures of @frame (mapped
 * with GST_MAP_GL) and @planes: into them where @to_device, else out of
 * them. Blocks the caller until the GL thread has enqueued them. */
gboolean
cugi_gst_gl_transfer (CugiGstGl          *self,
                      GstVideoFrame      *frame,
                      CugiContext        *context,
                      CugiBuffer * const *planes,
                      const gsize        *pitches,
                      const gsize        *row_bytes,
                      const guint        *rows,
                      gboolean            to_device,
                      CugiStream         *stream,
                      GError            **error)
{
  Transfer transfer = {
    .frame = frame, .context = context, .planes = planes, .pitches = pitches,
    .row_bytes = row_bytes, .rows = rows, .to_device = to_device, .stream = stream,
  };
  GstMemory *first = gst_buffer_peek_memory (frame->buffer, 0);
  GstGLContext *gl_context = gst_is_gl_base_memory (first) ? GST_GL_BASE_MEMORY_CAST (first)->context
                                                           : self->context;

  if (gl_context == NULL)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_NOT_SUPPORTED,
                           _("the frame is not in GL memory"));
      return FALSE;
    }
  gst_gl_context_thread_add (gl_context, transfer_in_gl_thread, &transfer);
  if (!transfer.ok)
    g_propagate_error (error, transfer.error);
  return transfer.ok;
}
