/* cugi-gtk-paintable.c: a GdkPaintable showing images kernels wrote
 *
 * Each image shown becomes a GdkTexture, the paintable's current image, by
 * one of two paths. Zero copies through the host: a GL texture of a GL
 * context of the paintable's display (shared with GTK's, so GTK draws it
 * as it is), registered with CUDA, mapped, filled with a device-to-array
 * copy and unmapped on the caller's stream; a GL fence makes GTK's drawing
 * wait for the copy. Where the display has no GL or its GL is not on the
 * CUDA device (CUDA refuses to register the texture: Mesa's, another GPU's,
 * no display at all), a download into pinned host memory that becomes a
 * GdkMemoryTexture. The textures GTK still draws are never written: each
 * image gets a texture (GL) or host memory (download) that GTK has let go
 * of, or a new one, and GTK's release gives it back to a pool. */
#include <glib/gi18n-lib.h>

#include <epoxy/gl.h>

#include "cugi-gtk.h"

/* What the pools of a paintable share with the textures GTK holds, which
 * may outlive the paintable: a pool is freed with its last texture. */
typedef struct
{
  gatomicrefcount ref_count;
  GdkGLContext   *gl_context;
  gsize           width;
  gsize           height;
  /* GlSlot (GL path) or CugiHostBuffer (download path), free for reuse */
  GQueue          free;
} Pool;

/* A GL texture registered with CUDA. */
typedef struct
{
  Pool                 *pool;
  guint                 texture;
  CugiGraphicsResource *resource;
  GLsync                sync;
} GlSlot;

/* Pinned host memory GTK draws from, back to its pool when released. */
typedef struct
{
  Pool           *pool;
  CugiHostBuffer *host;
} HostSlot;

struct _CugiGtkPaintable
{
  GObject              parent_instance;

  GdkDisplay          *display;
  /* the GL path's, made at the first image; NULL once it is ruled out */
  GdkGLContext        *gl_context;
  gboolean             gl_ruled_out;
  Pool                *gl_pool;
  Pool                *host_pool;
  GdkTexture          *texture;
  CugiGtkPaintablePath path;
  guint64              frames;
  guint64              host_copies;
  /* images asked for, and the newest of them shown: an older download that
   * completes after a newer image is dropped */
  guint64              requested;
  guint64              shown;
};

enum
{
  PROP_0,
  PROP_DISPLAY,
  PROP_PATH,
  PROP_FRAMES,
  PROP_HOST_COPIES,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void cugi_gtk_paintable_paintable_init (GdkPaintableInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (CugiGtkPaintable, cugi_gtk_paintable, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (GDK_TYPE_PAINTABLE, cugi_gtk_paintable_paintable_init))

/* ---- pools ---------------------------------------------------------------- */

static Pool *
pool_new (GdkGLContext *gl_context,
          gsize         width,
          gsize         height)
{
  Pool *pool = g_new0 (Pool, 1);

  g_atomic_ref_count_init (&pool->ref_count);
  pool->gl_context = gl_context != NULL ? g_object_ref (gl_context) : NULL;
  pool->width = width;
  pool->height = height;
  g_queue_init (&pool->free);
  return pool;
}

static void
gl_slot_free (GlSlot *slot)
{
  /* CUDA unregisters with the GL context current, then GL deletes. */
  gdk_gl_context_make_current (slot->pool->gl_context);
  g_clear_object (&slot->resource);
  if (slot->sync != NULL)
    glDeleteSync (slot->sync);
  glDeleteTextures (1, &slot->texture);
  g_free (slot);
}

static void
pool_unref (Pool *pool)
{
  if (!g_atomic_ref_count_dec (&pool->ref_count))
    return;
  if (pool->gl_context != NULL)
    g_queue_clear_full (&pool->free, (GDestroyNotify) gl_slot_free);
  else
    g_queue_clear_full (&pool->free, g_object_unref);
  g_clear_object (&pool->gl_context);
  g_free (pool);
}

/* A pool for images of @width × @height in *@pool, a new one where it has
 * another size. */
static Pool *
pool_for_size (Pool         **pool,
               GdkGLContext  *gl_context,
               gsize          width,
               gsize          height)
{
  if (*pool != NULL && ((*pool)->width != width || (*pool)->height != height))
    g_clear_pointer (pool, pool_unref);
  if (*pool == NULL)
    *pool = pool_new (gl_context, width, height);
  return *pool;
}

/* ---- the GL path ---------------------------------------------------------- */

static void
gl_slot_release (gpointer data)
{
  GlSlot *slot = data;
  Pool *pool = slot->pool;

  /* The texture's reference to the pool goes; the slot stays in it. */
  g_queue_push_tail (&pool->free, slot);
  pool_unref (pool);
}

static void
rule_out_gl (CugiGtkPaintable *self,
             const char       *reason)
{
  g_debug ("CugiGtk.Paintable: no GL path, downloading: %s", reason);
  self->gl_ruled_out = TRUE;
  g_clear_pointer (&self->gl_pool, pool_unref);
  g_clear_object (&self->gl_context);
}

/* The GL context of the GL path, made at the first image. */
static gboolean
ensure_gl_context (CugiGtkPaintable *self)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GdkGLContext) gl_context = NULL;

  if (self->gl_context != NULL)
    return TRUE;
  if (self->gl_ruled_out)
    return FALSE;
  if (self->display == NULL)
    {
      rule_out_gl (self, "no display");
      return FALSE;
    }
  gl_context = gdk_display_create_gl_context (self->display, &error);
  if (gl_context == NULL || !gdk_gl_context_realize (gl_context, &error))
    {
      rule_out_gl (self, error->message);
      return FALSE;
    }
  self->gl_context = g_steal_pointer (&gl_context);
  return TRUE;
}

/* A texture of the pool's size registered with CUDA, or NULL where CUDA
 * refuses it: the display's GL is not on the CUDA device. */
static GlSlot *
gl_slot_new (Pool        *pool,
             CugiContext *context,
             GError     **error)
{
  g_autofree GlSlot *slot = g_new0 (GlSlot, 1);

  glGenTextures (1, &slot->texture);
  glBindTexture (GL_TEXTURE_2D, slot->texture);
  glTexStorage2D (GL_TEXTURE_2D, 1, GL_RGBA8, (GLsizei) pool->width, (GLsizei) pool->height);
  glBindTexture (GL_TEXTURE_2D, 0);
  slot->resource = cugi_graphics_resource_new_for_gl_texture (context, slot->texture, GL_TEXTURE_2D,
                                                              CUGI_GRAPHICS_REGISTER_FLAGS_WRITE_DISCARD,
                                                              error);
  if (slot->resource == NULL)
    {
      glDeleteTextures (1, &slot->texture);
      return NULL;
    }
  slot->pool = pool;
  return g_steal_pointer (&slot);
}

/* @buffer's image copied into a GL texture on @stream, as a GdkGLTexture;
 * NULL with @error unset where the GL path is ruled out. */
static GdkTexture *
gl_texture_new (CugiGtkPaintable *self,
                CugiBuffer       *buffer,
                gsize             width,
                gsize             height,
                gsize             stride,
                CugiStream       *stream,
                GError          **error)
{
  g_autoptr(GError) refused = NULL;
  g_autoptr(CugiArray) array = NULL;
  Pool *pool;
  GlSlot *slot;
  gboolean copied;

  if (!ensure_gl_context (self))
    return NULL;
  gdk_gl_context_make_current (self->gl_context);
  pool = pool_for_size (&self->gl_pool, self->gl_context, width, height);
  slot = g_queue_pop_head (&pool->free);
  if (slot == NULL)
    {
      slot = gl_slot_new (pool, cugi_buffer_get_context (buffer), &refused);
      if (slot == NULL)
        {
          rule_out_gl (self, refused->message);
          return NULL;
        }
    }
  if (slot->sync != NULL)
    g_clear_pointer (&slot->sync, glDeleteSync);

  copied = cugi_graphics_resource_map (slot->resource, stream, error) &&
           (array = cugi_graphics_resource_get_array (slot->resource, 0, 0, error)) != NULL &&
           cugi_array_copy_from_buffer (array, 0, 0, 0, buffer, 0, stride, height, width, height, 1,
                                        stream, error);
  g_clear_object (&array);
  /* Unmapped after a failed copy too, so that the texture stays usable. */
  if (cugi_graphics_resource_is_mapped (slot->resource))
    copied = cugi_graphics_resource_unmap (slot->resource, stream, copied ? error : NULL) && copied;
  if (!copied)
    {
      g_queue_push_head (&pool->free, slot);
      return NULL;
    }
  /* The unmap orders GL's later work after the copy in this context; the
   * fence orders GTK's contexts' too. */
  slot->sync = glFenceSync (GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
  glFlush ();
  g_atomic_ref_count_inc (&pool->ref_count);
#if GTK_CHECK_VERSION(4, 12, 0)
  {
    g_autoptr(GdkGLTextureBuilder) builder = gdk_gl_texture_builder_new ();

    gdk_gl_texture_builder_set_context (builder, self->gl_context);
    gdk_gl_texture_builder_set_id (builder, slot->texture);
    gdk_gl_texture_builder_set_width (builder, (int) width);
    gdk_gl_texture_builder_set_height (builder, (int) height);
    gdk_gl_texture_builder_set_format (builder, GDK_MEMORY_R8G8B8A8);
    gdk_gl_texture_builder_set_sync (builder, slot->sync);
    return gdk_gl_texture_builder_build (builder, gl_slot_release, slot);
  }
#else
  /* GTK before 4.12 takes no fence: the copy is waited for here. */
  glClientWaitSync (slot->sync, GL_SYNC_FLUSH_COMMANDS_BIT, GL_TIMEOUT_IGNORED);
  return gdk_gl_texture_new (self->gl_context, slot->texture, (int) width, (int) height,
                             gl_slot_release, slot);
#endif
}

/* ---- the download path ---------------------------------------------------- */

static void
host_slot_release (gpointer data)
{
  HostSlot *slot = data;

  g_queue_push_tail (&slot->pool->free, slot->host);
  pool_unref (slot->pool);
  g_free (slot);
}

typedef struct
{
  HostSlot *slot;
  gsize     width;
  gsize     height;
  gsize     stride;
  guint64   sequence;
} Download;

static void
download_free (Download *download)
{
  if (download->slot != NULL)
    host_slot_release (download->slot);
  g_free (download);
}

static void show_texture (CugiGtkPaintable     *self,
                          GdkTexture           *texture,
                          CugiGtkPaintablePath  path,
                          guint64               sequence);

static void
on_downloaded (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  CugiGtkPaintable *self = g_task_get_source_object (task);
  Download *download = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  guint8 *data;
  gsize size;

  if (!cugi_buffer_download_to_host_finish (CUGI_BUFFER (source), result, &error) ||
      (data = cugi_host_buffer_get_data (download->slot->host, &size, &error)) == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  bytes = g_bytes_new_with_free_func (data, size, host_slot_release, g_steal_pointer (&download->slot));
  texture = gdk_memory_texture_new ((int) download->width, (int) download->height, GDK_MEMORY_R8G8B8A8,
                                    bytes, download->stride);
  self->host_copies++;
  show_texture (self, texture, CUGI_GTK_PAINTABLE_PATH_DOWNLOAD, download->sequence);
  g_task_return_boolean (task, TRUE);
}

static void
download (CugiGtkPaintable *self,
          CugiBuffer       *buffer,
          gsize             width,
          gsize             height,
          gsize             stride,
          CugiStream       *stream,
          GTask            *task)
{
  g_autoptr(GError) error = NULL;
  Pool *pool = pool_for_size (&self->host_pool, NULL, stride, height);
  Download *download = g_new0 (Download, 1);
  CugiHostBuffer *host = g_queue_pop_head (&pool->free);

  if (host == NULL)
    host = cugi_host_buffer_new (cugi_buffer_get_context (buffer), stride * height,
                                 CUGI_HOST_BUFFER_FLAGS_PORTABLE, &error);
  download->width = width;
  download->height = height;
  download->stride = stride;
  download->sequence = self->requested;
  g_task_set_task_data (task, download, (GDestroyNotify) download_free);
  if (host == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  download->slot = g_new0 (HostSlot, 1);
  download->slot->pool = pool;
  download->slot->host = host;
  g_atomic_ref_count_inc (&pool->ref_count);
  cugi_buffer_download_to_host_async (buffer, 0, host, 0, stride * height, stream,
                                      g_task_get_cancellable (task), on_downloaded, g_object_ref (task));
}

/* ---- showing -------------------------------------------------------------- */

static void
show_texture (CugiGtkPaintable     *self,
              GdkTexture           *texture,
              CugiGtkPaintablePath  path,
              guint64               sequence)
{
  gboolean resized;

  if (sequence <= self->shown)
    return;
  self->shown = sequence;
  resized = self->texture == NULL ||
            gdk_texture_get_width (self->texture) != gdk_texture_get_width (texture) ||
            gdk_texture_get_height (self->texture) != gdk_texture_get_height (texture);
  g_set_object (&self->texture, texture);
  self->frames++;
  g_object_freeze_notify (G_OBJECT (self));
  if (self->path != path)
    {
      self->path = path;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PATH]);
    }
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FRAMES]);
  if (path == CUGI_GTK_PAINTABLE_PATH_DOWNLOAD)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_HOST_COPIES]);
  g_object_thaw_notify (G_OBJECT (self));
  if (resized)
    gdk_paintable_invalidate_size (GDK_PAINTABLE (self));
  gdk_paintable_invalidate_contents (GDK_PAINTABLE (self));
}

static gboolean
check_layout (CugiBuffer *buffer,
              gsize       width,
              gsize       height,
              gsize       stride,
              CugiStream *stream,
              GError    **error)
{
  gsize size = cugi_buffer_get_size (buffer);

  if (width == 0 || height == 0 || width > G_MAXINT / 4 || height > G_MAXINT)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("An image of %zu × %zu pixels cannot be shown: each side must be 1 to %d pixels"),
                   width, height, G_MAXINT / 4);
      return FALSE;
    }
  if (stride < width * 4 || stride > size / height)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("Rows of %zu bytes every %zu bytes do not fit an image of %zu × %zu RGBA pixels "
                     "in a buffer of %zu bytes"),
                   width * 4, stride, width, height, size);
      return FALSE;
    }
  if (stream != NULL && cugi_stream_get_context (stream) != cugi_buffer_get_context (buffer))
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_CONTEXT,
                           _("The stream belongs to another CUDA context than the buffer"));
      return FALSE;
    }
  return TRUE;
}

/**
 * cugi_gtk_paintable_show_buffer_async:
 * @self: a #CugiGtkPaintable
 * @buffer: a device buffer holding an image of 8-bit RGBA pixels (straight
 *   alpha, `GDK_MEMORY_R8G8B8A8`)
 * @width: the image's width in pixels
 * @height: the image's height in pixels
 * @stride: the distance between its rows in @buffer, in bytes (at least
 *   @width × 4)
 * @stream: (nullable): the stream whose work so far writes the image, or
 *   %NULL for the default stream
 * @cancellable: (nullable): a #GCancellable
 * @callback: called in the thread-default main context of the call once
 *   the image is the paintable's current one
 * @user_data: data for @callback
 *
 * Shows the image that @buffer holds after the work enqueued on @stream
 * so far: the copy is enqueued on @stream, and the paintable's contents
 * change (#GdkPaintable::invalidate-contents) once it is done. The caller
 * may write @buffer again with later work on @stream at once.
 *
 * Where the display has GL on the CUDA device, the image is copied on the
 * GPU into a GL texture (#CugiGtkPaintable:path is
 * %CUGI_GTK_PAINTABLE_PATH_GL_TEXTURE) and the call completes at once;
 * elsewhere it is downloaded into pinned host memory
 * (%CUGI_GTK_PAINTABLE_PATH_DOWNLOAD) and the call completes when the
 * download has. A download that completes after a later image was shown is
 * dropped.
 *
 * A size of 0, a @stride of less than a row or more than @buffer holds and
 * a @stream of another context fail with %CUGI_ERROR_INVALID_ARGUMENT or
 * %CUGI_ERROR_INVALID_CONTEXT, and the paintable keeps its image.
 *
 * Since: 0.1
 */
void
cugi_gtk_paintable_show_buffer_async (CugiGtkPaintable    *self,
                                      CugiBuffer          *buffer,
                                      gsize                width,
                                      gsize                height,
                                      gsize                stride,
                                      CugiStream          *stream,
                                      GCancellable        *cancellable,
                                      GAsyncReadyCallback  callback,
                                      gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GdkTexture) texture = NULL;

  g_return_if_fail (CUGI_GTK_IS_PAINTABLE (self));
  g_return_if_fail (CUGI_IS_BUFFER (buffer));
  g_return_if_fail (stream == NULL || CUGI_IS_STREAM (stream));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, cugi_gtk_paintable_show_buffer_async);
  if (!check_layout (buffer, width, height, stride, stream, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  self->requested++;
  texture = gl_texture_new (self, buffer, width, height, stride, stream, &error);
  if (texture != NULL)
    {
      show_texture (self, texture, CUGI_GTK_PAINTABLE_PATH_GL_TEXTURE, self->requested);
      g_task_return_boolean (task, TRUE);
    }
  else if (error != NULL)
    g_task_return_error (task, g_steal_pointer (&error));
  else
    download (self, buffer, width, height, stride, stream, task);
}

/**
 * cugi_gtk_paintable_show_buffer_finish:
 * @self: a #CugiGtkPaintable
 * @result: the #GAsyncResult given to the callback
 * @error: return location for a #GError
 *
 * Finishes cugi_gtk_paintable_show_buffer_async().
 *
 * Returns: %TRUE if the image was shown (or dropped for a later one)
 *
 * Since: 0.1
 */
gboolean
cugi_gtk_paintable_show_buffer_finish (CugiGtkPaintable *self,
                                       GAsyncResult     *result,
                                       GError          **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/* ---- GdkPaintable --------------------------------------------------------- */

static void
cugi_gtk_paintable_snapshot (GdkPaintable *paintable,
                             GdkSnapshot  *snapshot,
                             double        width,
                             double        height)
{
  CugiGtkPaintable *self = CUGI_GTK_PAINTABLE (paintable);

  if (self->texture != NULL)
    gdk_paintable_snapshot (GDK_PAINTABLE (self->texture), snapshot, width, height);
}

static GdkPaintable *
cugi_gtk_paintable_get_current_image (GdkPaintable *paintable)
{
  CugiGtkPaintable *self = CUGI_GTK_PAINTABLE (paintable);

  if (self->texture != NULL)
    return g_object_ref (GDK_PAINTABLE (self->texture));
  return gdk_paintable_new_empty (0, 0);
}

static int
cugi_gtk_paintable_get_intrinsic_width (GdkPaintable *paintable)
{
  CugiGtkPaintable *self = CUGI_GTK_PAINTABLE (paintable);

  return self->texture != NULL ? gdk_texture_get_width (self->texture) : 0;
}

static int
cugi_gtk_paintable_get_intrinsic_height (GdkPaintable *paintable)
{
  CugiGtkPaintable *self = CUGI_GTK_PAINTABLE (paintable);

  return self->texture != NULL ? gdk_texture_get_height (self->texture) : 0;
}

static void
cugi_gtk_paintable_paintable_init (GdkPaintableInterface *iface)
{
  iface->snapshot = cugi_gtk_paintable_snapshot;
  iface->get_current_image = cugi_gtk_paintable_get_current_image;
  iface->get_intrinsic_width = cugi_gtk_paintable_get_intrinsic_width;
  iface->get_intrinsic_height = cugi_gtk_paintable_get_intrinsic_height;
}

/* ---- GObject -------------------------------------------------------------- */

static void
cugi_gtk_paintable_finalize (GObject *object)
{
  CugiGtkPaintable *self = CUGI_GTK_PAINTABLE (object);

  g_clear_object (&self->texture);
  g_clear_pointer (&self->gl_pool, pool_unref);
  g_clear_pointer (&self->host_pool, pool_unref);
  g_clear_object (&self->gl_context);
  g_clear_object (&self->display);
  G_OBJECT_CLASS (cugi_gtk_paintable_parent_class)->finalize (object);
}

static void
cugi_gtk_paintable_get_property (GObject    *object,
                                 guint       prop_id,
                                 GValue     *value,
                                 GParamSpec *pspec)
{
  CugiGtkPaintable *self = CUGI_GTK_PAINTABLE (object);

  switch (prop_id)
    {
    case PROP_DISPLAY:
      g_value_set_object (value, self->display);
      break;
    case PROP_PATH:
      g_value_set_enum (value, self->path);
      break;
    case PROP_FRAMES:
      g_value_set_uint64 (value, self->frames);
      break;
    case PROP_HOST_COPIES:
      g_value_set_uint64 (value, self->host_copies);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cugi_gtk_paintable_set_property (GObject      *object,
                                 guint         prop_id,
                                 const GValue *value,
                                 GParamSpec   *pspec)
{
  CugiGtkPaintable *self = CUGI_GTK_PAINTABLE (object);

  switch (prop_id)
    {
    case PROP_DISPLAY:
      self->display = g_value_dup_object (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cugi_gtk_paintable_class_init (CugiGtkPaintableClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamFlags read_only = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY;

  object_class->finalize = cugi_gtk_paintable_finalize;
  object_class->get_property = cugi_gtk_paintable_get_property;
  object_class->set_property = cugi_gtk_paintable_set_property;

  /**
   * CugiGtkPaintable:display: (getter get_display)
   *
   * The display whose GL the zero-copy path uses, or %NULL for none: every
   * image is then downloaded.
   *
   * Since: 0.1
   */
  properties[PROP_DISPLAY] = g_param_spec_object ("display", NULL, NULL, GDK_TYPE_DISPLAY,
                                                  G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY |
                                                  G_PARAM_STATIC_STRINGS);
  /**
   * CugiGtkPaintable:path: (getter get_path)
   *
   * How the image shown now came to GTK.
   *
   * Since: 0.1
   */
  properties[PROP_PATH] = g_param_spec_enum ("path", NULL, NULL, CUGI_GTK_TYPE_PAINTABLE_PATH,
                                             CUGI_GTK_PAINTABLE_PATH_NONE, read_only);
  /**
   * CugiGtkPaintable:frames: (getter get_frames)
   *
   * How many images the paintable has shown.
   *
   * Since: 0.1
   */
  properties[PROP_FRAMES] = g_param_spec_uint64 ("frames", NULL, NULL, 0, G_MAXUINT64, 0, read_only);
  /**
   * CugiGtkPaintable:host-copies: (getter get_host_copies)
   *
   * How many of the images shown crossed the host (downloaded): 0 on the
   * zero-copy path.
   *
   * Since: 0.1
   */
  properties[PROP_HOST_COPIES] = g_param_spec_uint64 ("host-copies", NULL, NULL, 0, G_MAXUINT64, 0,
                                                      read_only);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
cugi_gtk_paintable_init (CugiGtkPaintable *self)
{
}

/**
 * cugi_gtk_paintable_new:
 * @display: (nullable): the display the paintable is shown on, whose GL
 *   the zero-copy path uses (gtk_widget_get_display() of the
 *   #GtkPicture), or %NULL to download every image
 *
 * Makes a paintable that shows images from device buffers, for a
 * #GtkPicture (gtk_picture_set_paintable()) or any widget that draws a
 * #GdkPaintable. It shows nothing until
 * cugi_gtk_paintable_show_buffer_async().
 *
 * Returns: (transfer full): a new #CugiGtkPaintable
 *
 * Since: 0.1
 */
CugiGtkPaintable *
cugi_gtk_paintable_new (GdkDisplay *display)
{
  g_return_val_if_fail (display == NULL || GDK_IS_DISPLAY (display), NULL);

  return g_object_new (CUGI_GTK_TYPE_PAINTABLE, "display", display, NULL);
}

/**
 * cugi_gtk_paintable_get_display: (get-property display)
 * @self: a #CugiGtkPaintable
 *
 * Returns: (transfer none) (nullable): the value of #CugiGtkPaintable:display
 *
 * Since: 0.1
 */
GdkDisplay *
cugi_gtk_paintable_get_display (CugiGtkPaintable *self)
{
  g_return_val_if_fail (CUGI_GTK_IS_PAINTABLE (self), NULL);

  return self->display;
}

/**
 * cugi_gtk_paintable_get_path: (get-property path)
 * @self: a #CugiGtkPaintable
 *
 * Returns: the value of #CugiGtkPaintable:path
 *
 * Since: 0.1
 */
CugiGtkPaintablePath
cugi_gtk_paintable_get_path (CugiGtkPaintable *self)
{
  g_return_val_if_fail (CUGI_GTK_IS_PAINTABLE (self), CUGI_GTK_PAINTABLE_PATH_NONE);

  return self->path;
}

/**
 * cugi_gtk_paintable_get_frames: (get-property frames)
 * @self: a #CugiGtkPaintable
 *
 * Returns: the value of #CugiGtkPaintable:frames
 *
 * Since: 0.1
 */
guint64
cugi_gtk_paintable_get_frames (CugiGtkPaintable *self)
{
  g_return_val_if_fail (CUGI_GTK_IS_PAINTABLE (self), 0);

  return self->frames;
}

/**
 * cugi_gtk_paintable_get_host_copies: (get-property host-copies)
 * @self: a #CugiGtkPaintable
 *
 * Returns: the value of #CugiGtkPaintable:host-copies
 *
 * Since: 0.1
 */
guint64
cugi_gtk_paintable_get_host_copies (CugiGtkPaintable *self)
{
  g_return_val_if_fail (CUGI_GTK_IS_PAINTABLE (self), 0);

  return self->host_copies;
}
