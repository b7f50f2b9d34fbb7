/* cugi-gtk-paintable.h: a GdkPaintable showing what kernels write */
#pragma once

#if !defined(__CUGI_GTK_INSIDE__) && !defined(CUGI_GTK_COMPILATION)
#error "Only <cugi/gtk/cugi-gtk.h> can be included directly."
#endif

#include <cugi/cugi.h>
#include <gtk/gtk.h>

#include "cugi-gtk-version-macros.h"

G_BEGIN_DECLS

/**
 * CugiGtkPaintablePath:
 * @CUGI_GTK_PAINTABLE_PATH_NONE: no image shown yet
 * @CUGI_GTK_PAINTABLE_PATH_DOWNLOAD: each image is downloaded into pinned
 *   host memory and shown as a #GdkMemoryTexture, which GTK uploads again:
 *   one host copy a frame
 * @CUGI_GTK_PAINTABLE_PATH_GL_TEXTURE: each image is copied on the GPU into
 *   a GL texture of GTK's display registered with CUDA and shown as a
 *   #GdkGLTexture: no host copy
 *
 * How a #CugiGtkPaintable brought its last image to GTK.
 *
 * Since: 0.1
 */
typedef enum
{
  CUGI_GTK_PAINTABLE_PATH_NONE,
  CUGI_GTK_PAINTABLE_PATH_DOWNLOAD,
  CUGI_GTK_PAINTABLE_PATH_GL_TEXTURE,
} CugiGtkPaintablePath;

#define CUGI_GTK_TYPE_PAINTABLE (cugi_gtk_paintable_get_type ())
CUGI_GTK_AVAILABLE_IN_0_1
G_DECLARE_FINAL_TYPE (CugiGtkPaintable, cugi_gtk_paintable, CUGI_GTK, PAINTABLE, GObject)

CUGI_GTK_AVAILABLE_IN_0_1
CugiGtkPaintable    *cugi_gtk_paintable_new             (GdkDisplay          *display);

CUGI_GTK_AVAILABLE_IN_0_1
void                 cugi_gtk_paintable_show_buffer_async  (CugiGtkPaintable    *self,
                                                            CugiBuffer          *buffer,
                                                            gsize                width,
                                                            gsize                height,
                                                            gsize                stride,
                                                            CugiStream          *stream,
                                                            GCancellable        *cancellable,
                                                            GAsyncReadyCallback  callback,
                                                            gpointer             user_data);
CUGI_GTK_AVAILABLE_IN_0_1
gboolean             cugi_gtk_paintable_show_buffer_finish (CugiGtkPaintable    *self,
                                                            GAsyncResult        *result,
                                                            GError             **error);

CUGI_GTK_AVAILABLE_IN_0_1
GdkDisplay          *cugi_gtk_paintable_get_display     (CugiGtkPaintable    *self);
CUGI_GTK_AVAILABLE_IN_0_1
CugiGtkPaintablePath cugi_gtk_paintable_get_path        (CugiGtkPaintable    *self);
CUGI_GTK_AVAILABLE_IN_0_1
guint64              cugi_gtk_paintable_get_frames      (CugiGtkPaintable    *self);
CUGI_GTK_AVAILABLE_IN_0_1
guint64              cugi_gtk_paintable_get_host_copies (CugiGtkPaintable    *self);

G_END_DECLS
