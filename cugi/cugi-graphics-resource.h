/* cugi-graphics-resource.h: GL buffers, textures and renderbuffers and EGL
 * images registered with CUDA */
#pragma once

#if !defined(__CUGI_INSIDE__) && !defined(CUGI_COMPILATION)
#error "Only <cugi/cugi.h> can be included directly."
#endif

#include <gio/gio.h>
#include "cugi-version.h"
#include "cugi-types.h"

G_BEGIN_DECLS

/**
 * CugiGraphicsRegisterFlags:
 * @CUGI_GRAPHICS_REGISTER_FLAGS_NONE: CUDA reads and writes the resource
 * @CUGI_GRAPHICS_REGISTER_FLAGS_READ_ONLY: CUDA only reads it
 * @CUGI_GRAPHICS_REGISTER_FLAGS_WRITE_DISCARD: CUDA writes all of it and
 *   does not read what was there: the contents are undefined when mapped
 * @CUGI_GRAPHICS_REGISTER_FLAGS_SURFACE_LDST: kernels write the mapped
 *   arrays through a #CugiSurface (textures and renderbuffers)
 * @CUGI_GRAPHICS_REGISTER_FLAGS_TEXTURE_GATHER: textures may gather from
 *   the mapped arrays (`tex2Dgather()`)
 *
 * How CUDA will use a registered graphics resource, as the
 * `CU_GRAPHICS_REGISTER_FLAGS_*` flags. %CUGI_GRAPHICS_REGISTER_FLAGS_READ_ONLY
 * and %CUGI_GRAPHICS_REGISTER_FLAGS_WRITE_DISCARD exclude each other; the
 * last two are for images only.
 *
 * Since: 0.1
 */
typedef enum /*< flags >*/
{
  CUGI_GRAPHICS_REGISTER_FLAGS_NONE = 0,
  CUGI_GRAPHICS_REGISTER_FLAGS_READ_ONLY = 1 << 0,
  CUGI_GRAPHICS_REGISTER_FLAGS_WRITE_DISCARD = 1 << 1,
  CUGI_GRAPHICS_REGISTER_FLAGS_SURFACE_LDST = 1 << 2,
  CUGI_GRAPHICS_REGISTER_FLAGS_TEXTURE_GATHER = 1 << 3,
} CugiGraphicsRegisterFlags;

/**
 * CugiGraphicsResourceKind:
 * @CUGI_GRAPHICS_RESOURCE_KIND_GL_BUFFER: a GL buffer object, mapped as a
 *   #CugiBuffer
 * @CUGI_GRAPHICS_RESOURCE_KIND_GL_TEXTURE: a GL texture, mapped as
 *   #CugiArray<!-- -->s
 * @CUGI_GRAPHICS_RESOURCE_KIND_GL_RENDERBUFFER: a GL renderbuffer, mapped as
 *   a #CugiArray
 * @CUGI_GRAPHICS_RESOURCE_KIND_EGL_IMAGE: an `EGLImageKHR`, mapped as
 *   #CugiArray<!-- -->s or as a #CugiBuffer, as the image's memory is laid
 *   out
 *
 * What a #CugiGraphicsResource was registered from.
 *
 * Since: 0.1
 */
typedef enum
{
  CUGI_GRAPHICS_RESOURCE_KIND_GL_BUFFER,
  CUGI_GRAPHICS_RESOURCE_KIND_GL_TEXTURE,
  CUGI_GRAPHICS_RESOURCE_KIND_GL_RENDERBUFFER,
  CUGI_GRAPHICS_RESOURCE_KIND_EGL_IMAGE,
} CugiGraphicsResourceKind;

#define CUGI_TYPE_GRAPHICS_RESOURCE (cugi_graphics_resource_get_type ())
CUGI_AVAILABLE_IN_0_1
G_DECLARE_FINAL_TYPE (CugiGraphicsResource, cugi_graphics_resource, CUGI, GRAPHICS_RESOURCE, GObject)

CUGI_AVAILABLE_IN_0_1
CugiGraphicsResource *cugi_graphics_resource_new_for_gl_buffer  (CugiContext                *context,
                                                                 guint                       buffer,
                                                                 CugiGraphicsRegisterFlags   flags,
                                                                 GError                    **error);
CUGI_AVAILABLE_IN_0_1
CugiGraphicsResource *cugi_graphics_resource_new_for_gl_texture (CugiContext                *context,
                                                                 guint                       texture,
                                                                 guint                       target,
                                                                 CugiGraphicsRegisterFlags   flags,
                                                                 GError                    **error);
CUGI_AVAILABLE_IN_0_1
CugiGraphicsResource *cugi_graphics_resource_new_for_gl_renderbuffer (CugiContext           *context,
                                                                 guint                       renderbuffer,
                                                                 CugiGraphicsRegisterFlags   flags,
                                                                 GError                    **error);
CUGI_AVAILABLE_IN_0_1
CugiGraphicsResource *cugi_graphics_resource_new_for_egl_image  (CugiContext                *context,
                                                                 guint64                     image,
                                                                 CugiGraphicsRegisterFlags   flags,
                                                                 GError                    **error);

CUGI_AVAILABLE_IN_0_1
gboolean     cugi_graphics_resource_map         (CugiGraphicsResource  *self,
                                                 CugiStream            *stream,
                                                 GError               **error);
CUGI_AVAILABLE_IN_0_1
void         cugi_graphics_resource_map_async   (CugiGraphicsResource  *self,
                                                 CugiStream            *stream,
                                                 GCancellable          *cancellable,
                                                 GAsyncReadyCallback    callback,
                                                 gpointer               user_data);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_graphics_resource_map_finish  (CugiGraphicsResource  *self,
                                                 GAsyncResult          *result,
                                                 GError               **error);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_graphics_resource_unmap       (CugiGraphicsResource  *self,
                                                 CugiStream            *stream,
                                                 GError               **error);
CUGI_AVAILABLE_IN_0_1
CugiBuffer  *cugi_graphics_resource_get_buffer  (CugiGraphicsResource  *self,
                                                 GError               **error);
CUGI_AVAILABLE_IN_0_1
CugiArray   *cugi_graphics_resource_get_array   (CugiGraphicsResource  *self,
                                                 guint                  index,
                                                 guint                  level,
                                                 GError               **error);

CUGI_AVAILABLE_IN_0_1
CugiContext *cugi_graphics_resource_get_context (CugiGraphicsResource  *self);
CUGI_AVAILABLE_IN_0_1
CugiGraphicsResourceKind cugi_graphics_resource_get_kind (CugiGraphicsResource *self);
CUGI_AVAILABLE_IN_0_1
CugiGraphicsRegisterFlags cugi_graphics_resource_get_flags (CugiGraphicsResource *self);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_graphics_resource_is_mapped   (CugiGraphicsResource  *self);

G_END_DECLS
