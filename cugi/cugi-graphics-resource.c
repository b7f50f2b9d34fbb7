/* cugi-graphics-resource.c: GL buffers, textures and renderbuffers and EGL
 * images registered with CUDA, mapped on streams as buffers and arrays */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "cugi-context-private.h"
#include "cugi-private.h"
#include "cugi-memory-private.h"
#include "cugi-array-private.h"
#include "cugi-stream-private.h"

/**
 * CugiGraphicsResource:
 *
 * A GL buffer object, texture or renderbuffer, or an EGL image, registered
 * with CUDA (`cuGraphicsGLRegisterBuffer`, `cuGraphicsGLRegisterImage`,
 * `cuGraphicsEGLRegisterImage`), so that kernels read and write its memory
 * in place. The application makes the object with its own GL or EGL; cugi
 * loads neither and links neither, and only calls the driver.
 *
 * A resource is used by mapping it on a stream
 * (cugi_graphics_resource_map()): the GL work issued before completes
 * before the CUDA work enqueued on that stream after the map. While it is
 * mapped, GL must not use the object, and cugi_graphics_resource_get_buffer()
 * gives its memory as a #CugiBuffer (a GL buffer, an EGL image of linear
 * memory) and cugi_graphics_resource_get_array() as a #CugiArray (a texture
 * or renderbuffer, one per layer and mipmap level), on which every copy,
 * texture, surface and kernel of cugi works. cugi_graphics_resource_unmap()
 * gives the object back to GL, after the CUDA work enqueued before it on its
 * stream: the buffers and arrays got from the mapping are freed then (as by
 * cugi_buffer_free() and cugi_array_free()), and every later use of them
 * fails with %CUGI_ERROR_INVALID_STATE. Work on other streams must be done,
 * or ordered before the unmap with an event, by then.
 *
 * An EGL image is different: the driver gives CUDA its memory from the
 * registration on (`cuGraphicsResourceGetMappedEglFrame`), without a
 * mapping of its own. cugi_graphics_resource_map() then orders nothing
 * itself: finish the graphics work on the image first (`glFinish()`, an
 * EGL sync). cugi_graphics_resource_unmap() waits until the work enqueued
 * on its stream is done, so that the graphics work after it sees CUDA's.
 *
 * Registering, mapping and unmapping need the GL context (or EGL display)
 * that owns the object current on the calling thread, on the GPU of the
 * resource's context; where none is, the driver refuses with an error of
 * code %CUGI_ERROR_INVALID_CONTEXT that says so. The resource is unmapped
 * if need be and unregistered when it is finalized, which happens once
 * every buffer and array got from it is gone and the work on them is done:
 * drop the last references with that GL context current, before it is
 * destroyed.
 *
 * Where the driver lacks graphics interoperability (the entry points
 * above), constructors fail with %CUGI_ERROR_NOT_SUPPORTED naming what is
 * missing.
 *
 * Since: 0.1
 */

/* GL's names of the texture targets CUDA registers (GL/gl.h and
 * GL/glext.h), which cugi builds without. */
#define GL_TEXTURE_2D           0x0DE1
#define GL_TEXTURE_3D           0x806F
#define GL_TEXTURE_RECTANGLE    0x84F5
#define GL_TEXTURE_CUBE_MAP     0x8513
#define GL_TEXTURE_2D_ARRAY     0x8C1A
#define GL_RENDERBUFFER         0x8D41

#define REGISTER_FLAGS_ALL (CUGI_GRAPHICS_REGISTER_FLAGS_READ_ONLY | CUGI_GRAPHICS_REGISTER_FLAGS_WRITE_DISCARD | \
                            CUGI_GRAPHICS_REGISTER_FLAGS_SURFACE_LDST | CUGI_GRAPHICS_REGISTER_FLAGS_TEXTURE_GATHER)
#define REGISTER_FLAGS_IMAGE (CUGI_GRAPHICS_REGISTER_FLAGS_SURFACE_LDST | CUGI_GRAPHICS_REGISTER_FLAGS_TEXTURE_GATHER)

G_STATIC_ASSERT ((int) CUGI_GRAPHICS_REGISTER_FLAGS_READ_ONLY == (int) CU_GRAPHICS_REGISTER_FLAGS_READ_ONLY);
G_STATIC_ASSERT ((int) CUGI_GRAPHICS_REGISTER_FLAGS_WRITE_DISCARD == (int) CU_GRAPHICS_REGISTER_FLAGS_WRITE_DISCARD);
G_STATIC_ASSERT ((int) CUGI_GRAPHICS_REGISTER_FLAGS_SURFACE_LDST == (int) CU_GRAPHICS_REGISTER_FLAGS_SURFACE_LDST);
G_STATIC_ASSERT ((int) CUGI_GRAPHICS_REGISTER_FLAGS_TEXTURE_GATHER == (int) CU_GRAPHICS_REGISTER_FLAGS_TEXTURE_GATHER);

struct _CugiGraphicsResource
{
  GObject                   parent_instance;

  CugiContextBinding        binding;
  CUgraphicsResource        handle;   /* NULL in a resource of g_object_new() */
  CugiGraphicsResourceKind  kind;
  CugiGraphicsRegisterFlags flags;

  GMutex                    lock;     /* guards the two that follow */
  gboolean                  mapped;
  GPtrArray                *views;    /* (element-type GWeakRef): the buffers and arrays of the mapping */
};

G_DEFINE_FINAL_TYPE (CugiGraphicsResource, cugi_graphics_resource, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_CONTEXT,
  PROP_KIND,
  PROP_FLAGS,
  PROP_MAPPED,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* ---- the driver's calls --------------------------------------------------- */

/* The driver's error for @result of @operation, with what to do where it
 * found no graphics context current. */
static gboolean
check_graphics_result (CUresult     result,
                       const char  *operation,
                       GError     **error)
{
  if (!cugi_check_result (result, operation, error))
    {
      if (result == CUDA_ERROR_INVALID_GRAPHICS_CONTEXT)
        g_prefix_error (error, _("Make the GL context or EGL display that owns the object current on this "
                                 "thread, on the GPU of the CUDA context: "));
      return FALSE;
    }
  return TRUE;
}

/* Frees what the mapping handed out, outside the lock: a free may release
 * memory, and so drop the last references to other objects. */
static void
free_views (GPtrArray *views)
{
  for (guint i = 0; i < views->len; i++)
    {
      g_autoptr(GObject) view = g_weak_ref_get (views->pdata[i]);

      if (CUGI_IS_BUFFER (view) && !cugi_buffer_is_freed (CUGI_BUFFER (view)))
        cugi_buffer_free (CUGI_BUFFER (view), NULL);
      else if (CUGI_IS_ARRAY (view) && !cugi_array_is_freed (CUGI_ARRAY (view)))
        cugi_array_free (CUGI_ARRAY (view), NULL);
    }
  g_ptr_array_unref (views);
}

static void
weak_ref_free (gpointer weak_ref)
{
  g_weak_ref_clear (weak_ref);
  g_free (weak_ref);
}

/* With the lock held. */
static void
add_view (CugiGraphicsResource *self,
          GObject              *view)
{
  GWeakRef *weak_ref = g_new0 (GWeakRef, 1);

  g_weak_ref_init (weak_ref, view);
  if (self->views == NULL)
    self->views = g_ptr_array_new_with_free_func (weak_ref_free);
  g_ptr_array_add (self->views, weak_ref);
}

/* ---- GObject -------------------------------------------------------------- */

static void
cugi_graphics_resource_finalize (GObject *object)
{
  CugiGraphicsResource *self = CUGI_GRAPHICS_RESOURCE (object);
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;

  /* Every buffer and array of a mapping kept the resource alive until its
   * memory was released: none is left. A reset context took the handle. */
  if (self->handle != NULL && cugi_context_binding_is_current (&self->binding) &&
      cugi_context_enter (self->binding.context, &scope, NULL))
    {
      if (self->mapped && self->kind != CUGI_GRAPHICS_RESOURCE_KIND_EGL_IMAGE)
        cugi_cuda.cuGraphicsUnmapResources (1, &self->handle, NULL);
      cugi_cuda.cuGraphicsUnregisterResource (self->handle);
    }
  g_clear_pointer (&self->views, g_ptr_array_unref);
  g_mutex_clear (&self->lock);
  cugi_context_binding_clear (&self->binding);

  G_OBJECT_CLASS (cugi_graphics_resource_parent_class)->finalize (object);
}

static void
cugi_graphics_resource_get_property (GObject    *object,
                                     guint       prop_id,
                                     GValue     *value,
                                     GParamSpec *pspec)
{
  CugiGraphicsResource *self = CUGI_GRAPHICS_RESOURCE (object);

  switch (prop_id)
    {
    case PROP_CONTEXT:
      g_value_set_object (value, self->binding.context);
      break;
    case PROP_KIND:
      g_value_set_enum (value, self->kind);
      break;
    case PROP_FLAGS:
      g_value_set_flags (value, self->flags);
      break;
    case PROP_MAPPED:
      g_value_set_boolean (value, cugi_graphics_resource_is_mapped (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cugi_graphics_resource_class_init (CugiGraphicsResourceClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = cugi_graphics_resource_finalize;
  object_class->get_property = cugi_graphics_resource_get_property;

  /**
   * CugiGraphicsResource:context:
   *
   * The CUDA context the resource is registered with, which it keeps alive.
   *
   * Since: 0.1
   */
  properties[PROP_CONTEXT] =
    g_param_spec_object ("context", NULL, NULL, CUGI_TYPE_CONTEXT,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * CugiGraphicsResource:kind:
   *
   * What the resource was registered from.
   *
   * Since: 0.1
   */
  properties[PROP_KIND] =
    g_param_spec_enum ("kind", NULL, NULL, CUGI_TYPE_GRAPHICS_RESOURCE_KIND,
                       CUGI_GRAPHICS_RESOURCE_KIND_GL_BUFFER,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * CugiGraphicsResource:flags:
   *
   * How CUDA uses the resource, as it was registered.
   *
   * Since: 0.1
   */
  properties[PROP_FLAGS] =
    g_param_spec_flags ("flags", NULL, NULL, CUGI_TYPE_GRAPHICS_REGISTER_FLAGS,
                        CUGI_GRAPHICS_REGISTER_FLAGS_NONE,
                        G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * CugiGraphicsResource:mapped:
   *
   * Whether the resource is mapped for CUDA: between
   * cugi_graphics_resource_map() and cugi_graphics_resource_unmap().
   * Notified when it changes.
   *
   * Since: 0.1
   */
  properties[PROP_MAPPED] =
    g_param_spec_boolean ("mapped", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
cugi_graphics_resource_init (CugiGraphicsResource *self)
{
  g_mutex_init (&self->lock);
}

/* ---- registration --------------------------------------------------------- */

/* INVALID_ARGUMENT for flags a resource of @kind cannot have. */
static gboolean
check_flags (CugiGraphicsResourceKind    kind,
             CugiGraphicsRegisterFlags   flags,
             GError                    **error)
{
  const char *problem = NULL;

  if ((flags & ~REGISTER_FLAGS_ALL) != 0)
    problem = _("unknown flags");
  else if ((flags & CUGI_GRAPHICS_REGISTER_FLAGS_READ_ONLY) != 0 &&
           (flags & CUGI_GRAPHICS_REGISTER_FLAGS_WRITE_DISCARD) != 0)
    problem = _("READ_ONLY and WRITE_DISCARD exclude each other");
  else if (kind == CUGI_GRAPHICS_RESOURCE_KIND_GL_BUFFER && (flags & REGISTER_FLAGS_IMAGE) != 0)
    problem = _("SURFACE_LDST and TEXTURE_GATHER are for images, not buffers");
  if (problem == NULL)
    return TRUE;
  g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
               _("Cannot register the graphics resource with flags 0x%x: %s"), (unsigned int) flags, problem);
  return FALSE;
}

/* What a constructor registers. */
typedef struct
{
  CugiGraphicsResourceKind  kind;
  guint                     name;    /* GL's */
  guint                     target;  /* GL's */
  gpointer                  image;   /* EGL's */
  CugiGraphicsRegisterFlags flags;
} Registration;

/* The driver's registration of @reg, through the entry point of its kind. */
static gboolean
register_object (const Registration  *reg,
                 CUgraphicsResource  *handle,
                 GError             **error)
{
  switch (reg->kind)
    {
    case CUGI_GRAPHICS_RESOURCE_KIND_GL_BUFFER:
      return CUGI_REQUIRE_ENTRY_POINT (cuGraphicsGLRegisterBuffer, error) &&
             check_graphics_result (cugi_cuda.cuGraphicsGLRegisterBuffer (handle, reg->name, reg->flags),
                                    "cuGraphicsGLRegisterBuffer", error);
    case CUGI_GRAPHICS_RESOURCE_KIND_GL_TEXTURE:
    case CUGI_GRAPHICS_RESOURCE_KIND_GL_RENDERBUFFER:
      return CUGI_REQUIRE_ENTRY_POINT (cuGraphicsGLRegisterImage, error) &&
             check_graphics_result (cugi_cuda.cuGraphicsGLRegisterImage (handle, reg->name, reg->target,
                                                                         reg->flags),
                                    "cuGraphicsGLRegisterImage", error);
    case CUGI_GRAPHICS_RESOURCE_KIND_EGL_IMAGE:
      return CUGI_REQUIRE_ENTRY_POINT (cuGraphicsEGLRegisterImage, error) &&
             check_graphics_result (cugi_cuda.cuGraphicsEGLRegisterImage (handle, reg->image, reg->flags),
                                    "cuGraphicsEGLRegisterImage", error);
    }
  g_assert_not_reached ();
}

/* What every constructor shares: the checks, then the registration with
 * @context current. */
static CugiGraphicsResource *
register_resource (CugiContext         *context,
                   const Registration  *reg,
                   GError             **error)
{
  g_autoptr(CugiContext) resolved = NULL;
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CUgraphicsResource handle = NULL;
  CugiGraphicsResource *self;

  if (!check_flags (reg->kind, reg->flags, error) ||
      !cugi_ensure_driver (error) ||
      !CUGI_REQUIRE_ENTRY_POINT (cuGraphicsMapResources, error) ||
      !CUGI_REQUIRE_ENTRY_POINT (cuGraphicsUnmapResources, error) ||
      !CUGI_REQUIRE_ENTRY_POINT (cuGraphicsUnregisterResource, error) ||
      (resolved = cugi_context_resolve (context, error)) == NULL ||
      !cugi_context_enter (resolved, &scope, error) ||
      !register_object (reg, &handle, error))
    return NULL;

  self = g_object_new (CUGI_TYPE_GRAPHICS_RESOURCE, NULL);
  cugi_context_binding_init (&self->binding, resolved, CUGI_CONTEXT_BINDING_NONE);
  self->handle = handle;
  self->kind = reg->kind;
  self->flags = reg->flags;
  return self;
}

static gboolean
check_gl_name (guint        name,
               const char  *what,
               GError     **error)
{
  if (name != 0)
    return TRUE;
  /* TRANSLATORS: "%s" is one of "buffer", "texture", "renderbuffer" */
  g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
               _("0 is the name of no GL %s: pass one that glGen*() or glCreate*() made"), what);
  return FALSE;
}

/**
 * cugi_graphics_resource_new_for_gl_buffer:
 * @context: (nullable): the CUDA context to register with, or %NULL for the
 *   default context
 * @buffer: the name of a GL buffer object (`glGenBuffers()`), whose storage
 *   was allocated (`glBufferData()`)
 * @flags: how CUDA will use the buffer: %CUGI_GRAPHICS_REGISTER_FLAGS_NONE,
 *   %CUGI_GRAPHICS_REGISTER_FLAGS_READ_ONLY or
 *   %CUGI_GRAPHICS_REGISTER_FLAGS_WRITE_DISCARD
 * @error: return location for a #GError
 *
 * Registers a GL buffer object with CUDA (`cuGraphicsGLRegisterBuffer`),
 * with its GL context current on this thread. Mapped, it is one
 * #CugiBuffer (cugi_graphics_resource_get_buffer()).
 *
 * Returns: (transfer full): the resource, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiGraphicsResource *
cugi_graphics_resource_new_for_gl_buffer (CugiContext                *context,
                                          guint                       buffer,
                                          CugiGraphicsRegisterFlags   flags,
                                          GError                    **error)
{
  Registration reg = { .kind = CUGI_GRAPHICS_RESOURCE_KIND_GL_BUFFER, .name = buffer, .flags = flags };

  g_return_val_if_fail (context == NULL || CUGI_IS_CONTEXT (context), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!check_gl_name (buffer, _("buffer"), error))
    return NULL;
  return register_resource (context, &reg, error);
}

/**
 * cugi_graphics_resource_new_for_gl_texture:
 * @context: (nullable): the CUDA context to register with, or %NULL for the
 *   default context
 * @texture: the name of a GL texture (`glGenTextures()`), whose storage was
 *   allocated (`glTexStorage2D()`, `glTexImage2D()`)
 * @target: what the texture is: `GL_TEXTURE_2D`, `GL_TEXTURE_RECTANGLE`,
 *   `GL_TEXTURE_CUBE_MAP`, `GL_TEXTURE_3D` or `GL_TEXTURE_2D_ARRAY`
 * @flags: how CUDA will use the texture
 *   (%CUGI_GRAPHICS_REGISTER_FLAGS_SURFACE_LDST for kernels that write it
 *   through a #CugiSurface)
 * @error: return location for a #GError
 *
 * Registers a GL texture with CUDA (`cuGraphicsGLRegisterImage`), with its
 * GL context current on this thread. Mapped, each of its layers (cube
 * faces) and mipmap levels is a #CugiArray
 * (cugi_graphics_resource_get_array()) of the element format the driver
 * gives the texture's internal format (`GL_RGBA8`: 4 channels of
 * %CUGI_ARRAY_FORMAT_UINT8). A @target that is none of the above fails with
 * %CUGI_ERROR_INVALID_ARGUMENT, before the driver is asked.
 *
 * Returns: (transfer full): the resource, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiGraphicsResource *
cugi_graphics_resource_new_for_gl_texture (CugiContext                *context,
                                           guint                       texture,
                                           guint                       target,
                                           CugiGraphicsRegisterFlags   flags,
                                           GError                    **error)
{
  Registration reg = {
    .kind = CUGI_GRAPHICS_RESOURCE_KIND_GL_TEXTURE, .name = texture, .target = target, .flags = flags
  };

  g_return_val_if_fail (context == NULL || CUGI_IS_CONTEXT (context), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!check_gl_name (texture, _("texture"), error))
    return NULL;
  if (target != GL_TEXTURE_2D && target != GL_TEXTURE_RECTANGLE && target != GL_TEXTURE_CUBE_MAP &&
      target != GL_TEXTURE_3D && target != GL_TEXTURE_2D_ARRAY)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("0x%x is not a texture target CUDA registers: GL_TEXTURE_2D, GL_TEXTURE_RECTANGLE, "
                     "GL_TEXTURE_CUBE_MAP, GL_TEXTURE_3D or GL_TEXTURE_2D_ARRAY (renderbuffers: "
                     "cugi_graphics_resource_new_for_gl_renderbuffer())"), target);
      return NULL;
    }
  return register_resource (context, &reg, error);
}

/**
 * cugi_graphics_resource_new_for_gl_renderbuffer:
 * @context: (nullable): the CUDA context to register with, or %NULL for the
 *   default context
 * @renderbuffer: the name of a GL renderbuffer (`glGenRenderbuffers()`),
 *   whose storage was allocated (`glRenderbufferStorage()`)
 * @flags: how CUDA will use the renderbuffer
 * @error: return location for a #GError
 *
 * Registers a GL renderbuffer with CUDA (`cuGraphicsGLRegisterImage` with
 * `GL_RENDERBUFFER`), with its GL context current on this thread. Mapped,
 * it is one #CugiArray (cugi_graphics_resource_get_array() at 0, 0).
 *
 * Returns: (transfer full): the resource, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiGraphicsResource *
cugi_graphics_resource_new_for_gl_renderbuffer (CugiContext                *context,
                                                guint                       renderbuffer,
                                                CugiGraphicsRegisterFlags   flags,
                                                GError                    **error)
{
  Registration reg = {
    .kind = CUGI_GRAPHICS_RESOURCE_KIND_GL_RENDERBUFFER, .name = renderbuffer, .target = GL_RENDERBUFFER,
    .flags = flags
  };

  g_return_val_if_fail (context == NULL || CUGI_IS_CONTEXT (context), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!check_gl_name (renderbuffer, _("renderbuffer"), error))
    return NULL;
  return register_resource (context, &reg, error);
}

/**
 * cugi_graphics_resource_new_for_egl_image:
 * @context: (nullable): the CUDA context to register with, or %NULL for the
 *   default context
 * @image: an `EGLImageKHR` (`eglCreateImageKHR()`), as an address: in
 *   Python the integer that ctypes gives for it
 * @flags: how CUDA will use the image
 * @error: return location for a #GError
 *
 * Registers an EGL image with CUDA (`cuGraphicsEGLRegisterImage`): the
 * image of a GL texture or renderbuffer, of a dma-buf
 * (`EGL_EXT_image_dma_buf_import`), of another process's memory. Mapped,
 * an image of a CUDA array is #CugiArray<!-- -->s
 * (cugi_graphics_resource_get_array()) and one of linear memory a
 * #CugiBuffer (cugi_graphics_resource_get_buffer()), of its first plane
 * (`cuGraphicsResourceGetMappedEglFrame`): the other one fails with
 * %CUGI_ERROR_INVALID_STATE. The driver does not map EGL images: see
 * cugi_graphics_resource_map().
 *
 * Returns: (transfer full): the resource, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiGraphicsResource *
cugi_graphics_resource_new_for_egl_image (CugiContext                *context,
                                          guint64                     image,
                                          CugiGraphicsRegisterFlags   flags,
                                          GError                    **error)
{
  Registration reg = {
    .kind = CUGI_GRAPHICS_RESOURCE_KIND_EGL_IMAGE, .image = (gpointer) (guintptr) image, .flags = flags
  };

  g_return_val_if_fail (context == NULL || CUGI_IS_CONTEXT (context), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (image == 0)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("0x%lx is no EGL image: pass what eglCreateImageKHR() returned"),
                   (unsigned long) image);
      return NULL;
    }
  return register_resource (context, &reg, error);
}

/* ---- mapping -------------------------------------------------------------- */

/* Makes the context current for a call on @self. */
static gboolean
enter (CugiGraphicsResource  *self,
       CugiContextScope      *scope,
       GError               **error)
{
  if (self->handle == NULL)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE,
                           _("The graphics resource was not registered: make resources with "
                             "cugi_graphics_resource_new_for_gl_buffer() and the other constructors"));
      return FALSE;
    }
  return cugi_context_binding_enter (&self->binding, scope,
                                     N_("The graphics resource is gone: its context was reset"), error);
}

/* enter(), for work on @stream (nullable), which must be of the context;
 * *@target: where the work goes. */
static gboolean
enter_for_stream (CugiGraphicsResource  *self,
                  CugiStream            *stream,
                  CugiContextScope      *scope,
                  CugiStream           **target,
                  GError               **error)
{
  if (!enter (self, scope, error) ||
      !cugi_context_binding_check_same_context (&self->binding,
                                                stream != NULL ? cugi_stream_get_context (stream)
                                                               : self->binding.context,
                                                N_("The stream belongs to another context than the graphics resource"),
                                                error))
    return FALSE;
  *target = cugi_stream_resolve (stream, self->binding.context);
  return TRUE;
}

/* INVALID_STATE unless the resource is mapped (@mapped) or not: with the
 * lock held. */
static gboolean
check_mapped (CugiGraphicsResource  *self,
              gboolean               mapped,
              GError               **error)
{
  if (self->mapped == mapped)
    return TRUE;
  g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE,
                       mapped ? _("The graphics resource is not mapped: map it with cugi_graphics_resource_map() first")
                              : _("The graphics resource is mapped already: unmap it first"));
  return FALSE;
}

/**
 * cugi_graphics_resource_map:
 * @self: a #CugiGraphicsResource
 * @stream: (nullable): the stream whose later work uses the resource, or
 *   %NULL for the default stream
 * @error: return location for a #GError
 *
 * Maps the resource for CUDA (`cuGraphicsMapResources`): the graphics work
 * issued before this call completes before the work enqueued on @stream
 * after it. The call does not wait for that work; the driver may make GL
 * flush. Needs the object's GL context current on this thread. An EGL
 * image, which the driver does not map, is only marked mapped: finish the
 * graphics work on it first.
 *
 * A mapped resource cannot be mapped again (%CUGI_ERROR_INVALID_STATE), and
 * @stream must belong to the resource's context
 * (%CUGI_ERROR_INVALID_CONTEXT).
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
cugi_graphics_resource_map (CugiGraphicsResource  *self,
                            CugiStream            *stream,
                            GError               **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CugiStream *target;
  gboolean mapped;

  g_return_val_if_fail (CUGI_IS_GRAPHICS_RESOURCE (self), FALSE);
  g_return_val_if_fail (stream == NULL || CUGI_IS_STREAM (stream), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!enter_for_stream (self, stream, &scope, &target, error))
    return FALSE;
  g_mutex_lock (&self->lock);
  /* An EGL image is CUDA's already: the driver takes no mapping of it
   * (CUDA_ERROR_UNKNOWN, "mapped already"). */
  mapped = check_mapped (self, FALSE, error) &&
           (self->kind == CUGI_GRAPHICS_RESOURCE_KIND_EGL_IMAGE ||
            check_graphics_result (cugi_cuda.cuGraphicsMapResources (1, &self->handle,
                                                                     cugi_stream_get_handle (target)),
                                   "cuGraphicsMapResources", error));
  if (mapped)
    self->mapped = TRUE;
  g_mutex_unlock (&self->lock);
  if (mapped)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MAPPED]);
  return mapped;
}

/**
 * cugi_graphics_resource_map_async:
 * @self: a #CugiGraphicsResource
 * @stream: (nullable): the stream whose later work uses the resource, or
 *   %NULL for the default stream
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called once the mapping is done
 * @user_data: data for @callback
 *
 * Maps the resource as cugi_graphics_resource_map() does, now, from this
 * thread (where the GL context is current), then waits without blocking
 * until @stream has reached the mapping: the graphics work before it and
 * the CUDA work enqueued on @stream before it are done, so that copies to
 * the host from the mapped buffer and arrays do not wait. @callback then
 * runs in the thread-default #GMainContext of the caller; call
 * cugi_graphics_resource_map_finish() from it.
 *
 * A mapping that fails fails the call at once. Cancelling @cancellable ends
 * the wait with %G_IO_ERROR_CANCELLED; the resource stays mapped.
 *
 * Since: 0.1
 */
void
cugi_graphics_resource_map_async (CugiGraphicsResource *self,
                                  CugiStream           *stream,
                                  GCancellable         *cancellable,
                                  GAsyncReadyCallback   callback,
                                  gpointer              user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;

  g_return_if_fail (CUGI_IS_GRAPHICS_RESOURCE (self));
  g_return_if_fail (stream == NULL || CUGI_IS_STREAM (stream));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, cugi_graphics_resource_map_async);
  g_task_set_name (task, "[cugi] cugi_graphics_resource_map_async");
  if (!cugi_graphics_resource_map (self, stream, &error))
    g_task_return_error (task, g_steal_pointer (&error));
  else
    cugi_stream_complete_task (cugi_stream_resolve (stream, self->binding.context), task, NULL);
}

/**
 * cugi_graphics_resource_map_finish:
 * @self: a #CugiGraphicsResource
 * @result: the #GAsyncResult given to the callback
 * @error: return location for a #GError
 *
 * Finishes cugi_graphics_resource_map_async().
 *
 * Returns: %TRUE once the resource is mapped and the stream reached the
 *   mapping; %FALSE with @error set if the mapping failed, the wait was
 *   cancelled or the work before it failed
 *
 * Since: 0.1
 */
gboolean
cugi_graphics_resource_map_finish (CugiGraphicsResource  *self,
                                   GAsyncResult          *result,
                                   GError               **error)
{
  g_return_val_if_fail (CUGI_IS_GRAPHICS_RESOURCE (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == cugi_graphics_resource_map_async, FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/**
 * cugi_graphics_resource_unmap:
 * @self: a mapped #CugiGraphicsResource
 * @stream: (nullable): the stream whose work so far uses the resource, or
 *   %NULL for the default stream
 * @error: return location for a #GError
 *
 * Gives the resource back to the graphics API (`cuGraphicsUnmapResources`):
 * the work enqueued on @stream before this call completes before the
 * graphics work issued after it. The buffers and arrays got from the
 * mapping are freed (cugi_buffer_free(), cugi_array_free()): using them
 * later fails with %CUGI_ERROR_INVALID_STATE. Needs the object's GL context
 * current on this thread. For an EGL image, which the driver does not
 * unmap, this waits until the work enqueued on @stream is done.
 *
 * A resource that is not mapped fails with %CUGI_ERROR_INVALID_STATE.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
cugi_graphics_resource_unmap (CugiGraphicsResource  *self,
                              CugiStream            *stream,
                              GError               **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  GPtrArray *views = NULL;
  CugiStream *target;
  gboolean unmapped;

  g_return_val_if_fail (CUGI_IS_GRAPHICS_RESOURCE (self), FALSE);
  g_return_val_if_fail (stream == NULL || CUGI_IS_STREAM (stream), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!enter_for_stream (self, stream, &scope, &target, error))
    return FALSE;
  g_mutex_lock (&self->lock);
  /* Nor does it unmap one: the graphics API may use the image once the
   * CUDA work on it is done. */
  unmapped = check_mapped (self, TRUE, error) &&
             (self->kind == CUGI_GRAPHICS_RESOURCE_KIND_EGL_IMAGE
                ? CUGI_CALL (cuStreamSynchronize, (cugi_stream_get_handle (target)), error)
                : check_graphics_result (cugi_cuda.cuGraphicsUnmapResources (1, &self->handle,
                                                                             cugi_stream_get_handle (target)),
                                         "cuGraphicsUnmapResources", error));
  if (unmapped)
    {
      self->mapped = FALSE;
      views = g_steal_pointer (&self->views);
    }
  g_mutex_unlock (&self->lock);
  if (views != NULL)
    free_views (views);
  if (unmapped)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MAPPED]);
  return unmapped;
}

/* Plane 0 of layer @index and level @level of a registered EGL image
 * (`cuGraphicsResourceGetMappedEglFrame`), into *@frame; INVALID_STATE,
 * naming @wanted ("arrays" or "linear memory"), when the image is the
 * other kind. With the lock held. */
static gboolean
get_egl_frame (CugiGraphicsResource  *self,
               guint                  index,
               guint                  level,
               int                    frame_type,
               CugiEglFrame          *frame,
               GError               **error)
{
  if (!CUGI_REQUIRE_ENTRY_POINT (cuGraphicsResourceGetMappedEglFrame, error) ||
      !CUGI_CALL (cuGraphicsResourceGetMappedEglFrame, (frame, self->handle, index, level), error))
    return FALSE;
  if (frame->frameType == frame_type)
    return TRUE;
  g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE,
                       frame->frameType == CUGI_EGL_FRAME_TYPE_ARRAY
                         ? _("The EGL image is a CUDA array: use cugi_graphics_resource_get_array()")
                         : _("The EGL image is linear memory: use cugi_graphics_resource_get_buffer()"));
  return FALSE;
}

/**
 * cugi_graphics_resource_get_buffer:
 * @self: a mapped #CugiGraphicsResource of a GL buffer or of an EGL image
 *   of linear memory
 * @error: return location for a #GError
 *
 * The mapped memory as a #CugiBuffer
 * (`cuGraphicsResourceGetMappedPointer`), for copies and kernels, valid
 * until cugi_graphics_resource_unmap() frees it. It keeps the resource
 * alive. Each call gives a new buffer over the same memory.
 *
 * A resource that is not mapped fails with %CUGI_ERROR_INVALID_STATE, a
 * texture or renderbuffer (which maps as arrays) with
 * %CUGI_ERROR_INVALID_ARGUMENT.
 *
 * Returns: (transfer full): the buffer, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiBuffer *
cugi_graphics_resource_get_buffer (CugiGraphicsResource  *self,
                                   GError               **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CugiBuffer *buffer = NULL;
  CUdeviceptr address = 0;
  size_t size = 0;

  g_return_val_if_fail (CUGI_IS_GRAPHICS_RESOURCE (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (self->kind == CUGI_GRAPHICS_RESOURCE_KIND_GL_TEXTURE ||
      self->kind == CUGI_GRAPHICS_RESOURCE_KIND_GL_RENDERBUFFER)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                           _("A GL texture or renderbuffer maps as arrays, not as a buffer: use "
                             "cugi_graphics_resource_get_array()"));
      return NULL;
    }
  if ((self->kind != CUGI_GRAPHICS_RESOURCE_KIND_EGL_IMAGE &&
       !CUGI_REQUIRE_ENTRY_POINT (cuGraphicsResourceGetMappedPointer, error)) ||
      !enter (self, &scope, error))
    return NULL;
  g_mutex_lock (&self->lock);
  if (check_mapped (self, TRUE, error) && self->kind == CUGI_GRAPHICS_RESOURCE_KIND_EGL_IMAGE)
    {
      CugiEglFrame frame = { 0, };

      if (get_egl_frame (self, 0, 0, CUGI_EGL_FRAME_TYPE_PITCH, &frame, error))
        {
          address = (CUdeviceptr) frame.frame.pPitch[0];
          size = (size_t) frame.pitch * frame.height * MAX (frame.depth, 1);
        }
    }
  else if (self->mapped)
    CUGI_CALL (cuGraphicsResourceGetMappedPointer, (&address, &size, self->handle), error);
  if (address != 0)
    {
      buffer = cugi_buffer_new_wrapping (self->binding.context, address, size, G_OBJECT (self));
      add_view (self, G_OBJECT (buffer));
    }
  g_mutex_unlock (&self->lock);
  return buffer;
}

/**
 * cugi_graphics_resource_get_array:
 * @self: a mapped #CugiGraphicsResource of a GL texture or renderbuffer, or
 *   of an EGL image of a CUDA array
 * @index: the layer of a layered texture, or the face of a cube map
 *   (`CUarray_cubemap_face` order: +X, -X, +Y, -Y, +Z, -Z); 0 otherwise
 * @level: the mipmap level; 0 for the base level
 * @error: return location for a #GError
 *
 * One layer and level of the mapped image as a #CugiArray
 * (`cuGraphicsSubResourceGetMappedArray`), for copies, textures and
 * surfaces (with %CUGI_GRAPHICS_REGISTER_FLAGS_SURFACE_LDST), valid until
 * cugi_graphics_resource_unmap() frees it. Its format, channels and shape
 * are the driver's for the image. It keeps the resource alive.
 *
 * A resource that is not mapped fails with %CUGI_ERROR_INVALID_STATE, a GL
 * buffer (which maps as a buffer) with %CUGI_ERROR_INVALID_ARGUMENT, and
 * an @index or @level the image lacks with the driver's error.
 *
 * Returns: (transfer full): the array, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiArray *
cugi_graphics_resource_get_array (CugiGraphicsResource  *self,
                                  guint                  index,
                                  guint                  level,
                                  GError               **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CugiArrayFlags known_flags = CUGI_ARRAY_FLAGS_NONE;
  CugiArray *array = NULL;
  CUarray handle = NULL;

  g_return_val_if_fail (CUGI_IS_GRAPHICS_RESOURCE (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (self->kind == CUGI_GRAPHICS_RESOURCE_KIND_GL_BUFFER)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                           _("A GL buffer maps as a buffer, not as arrays: use cugi_graphics_resource_get_buffer()"));
      return NULL;
    }
  if ((self->kind != CUGI_GRAPHICS_RESOURCE_KIND_EGL_IMAGE &&
       !CUGI_REQUIRE_ENTRY_POINT (cuGraphicsSubResourceGetMappedArray, error)) ||
      !enter (self, &scope, error))
    return NULL;
  /* What the registration promised the arrays can do. */
  if (self->flags & CUGI_GRAPHICS_REGISTER_FLAGS_SURFACE_LDST)
    known_flags |= CUGI_ARRAY_FLAGS_SURFACE_LDST;
  if (self->flags & CUGI_GRAPHICS_REGISTER_FLAGS_TEXTURE_GATHER)
    known_flags |= CUGI_ARRAY_FLAGS_TEXTURE_GATHER;
  g_mutex_lock (&self->lock);
  if (check_mapped (self, TRUE, error) && self->kind == CUGI_GRAPHICS_RESOURCE_KIND_EGL_IMAGE)
    {
      CugiEglFrame frame = { 0, };

      if (get_egl_frame (self, index, level, CUGI_EGL_FRAME_TYPE_ARRAY, &frame, error))
        handle = frame.frame.pArray[0];
    }
  else if (self->mapped)
    CUGI_CALL (cuGraphicsSubResourceGetMappedArray, (&handle, self->handle, index, level), error);
  if (handle != NULL)
    array = cugi_array_new_borrowed (self->binding.context, handle, known_flags, g_object_ref (self),
                                     g_object_unref, error);
  if (array != NULL)
    add_view (self, G_OBJECT (array));
  g_mutex_unlock (&self->lock);
  return array;
}

/* ---- properties ----------------------------------------------------------- */

/**
 * cugi_graphics_resource_get_context:
 * @self: a #CugiGraphicsResource
 *
 * Returns: (transfer none) (nullable): the value of
 *   #CugiGraphicsResource:context
 *
 * Since: 0.1
 */
CugiContext *
cugi_graphics_resource_get_context (CugiGraphicsResource *self)
{
  g_return_val_if_fail (CUGI_IS_GRAPHICS_RESOURCE (self), NULL);

  return self->binding.context;
}

/**
 * cugi_graphics_resource_get_kind:
 * @self: a #CugiGraphicsResource
 *
 * Returns: the value of #CugiGraphicsResource:kind
 *
 * Since: 0.1
 */
CugiGraphicsResourceKind
cugi_graphics_resource_get_kind (CugiGraphicsResource *self)
{
  g_return_val_if_fail (CUGI_IS_GRAPHICS_RESOURCE (self), CUGI_GRAPHICS_RESOURCE_KIND_GL_BUFFER);

  return self->kind;
}

/**
 * cugi_graphics_resource_get_flags:
 * @self: a #CugiGraphicsResource
 *
 * Returns: the value of #CugiGraphicsResource:flags
 *
 * Since: 0.1
 */
CugiGraphicsRegisterFlags
cugi_graphics_resource_get_flags (CugiGraphicsResource *self)
{
  g_return_val_if_fail (CUGI_IS_GRAPHICS_RESOURCE (self), CUGI_GRAPHICS_REGISTER_FLAGS_NONE);

  return self->flags;
}

/**
 * cugi_graphics_resource_is_mapped:
 * @self: a #CugiGraphicsResource
 *
 * Returns: the value of #CugiGraphicsResource:mapped
 *
 * Since: 0.1
 */
gboolean
cugi_graphics_resource_is_mapped (CugiGraphicsResource *self)
{
  gboolean mapped;

  g_return_val_if_fail (CUGI_IS_GRAPHICS_RESOURCE (self), FALSE);

  g_mutex_lock (&self->lock);
  mapped = self->mapped;
  g_mutex_unlock (&self->lock);
  return mapped;
}
