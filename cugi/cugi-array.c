/* cugi-array.c: CUDA arrays: the object, its memory and what textures and
 * surfaces share */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "cugi-context-private.h"
#include "cugi-private.h"
#include "cugi-memory-private.h"
#include "cugi-array-private.h"

/**
 * CugiArray:
 *
 * A CUDA array: device memory laid out for textures and surfaces, in one,
 * two or three dimensions of elements of one to four channels
 * (#CugiArrayFormat), which kernels read through a #CugiTexture (filtered,
 * with addressing modes) and read and write through a #CugiSurface. The
 * layout is the driver's own: data goes in and out through the copies of
 * this class, never through an address.
 *
 * An array of width W, height H and depth D is 1D when H and D are 0, 2D
 * when D is 0, 3D otherwise; with %CUGI_ARRAY_FLAGS_LAYERED, D counts the
 * layers of a 1D or 2D array. Copies address a box of elements at (x, y, z)
 * and of @width × @height × @depth elements, where a 1D array has one row
 * and a 2D array one slice: copies of 2D data pass a depth of 1.
 *
 * Copies to and from the host (cugi_array_upload(), cugi_array_download()
 * and their `_address` forms for bindings) return once done. Copies with
 * device buffers or other arrays are enqueued on a stream (%NULL: the
 * context's default stream) and keep every array and buffer they use alive
 * until they complete; copies with a pinned #CugiHostBuffer are asynchronous
 * on a stream and done on return without one. Every region is checked
 * first: one that does not fit, arrays of different element sizes, or data
 * of the wrong size fail with %CUGI_ERROR_INVALID_ARGUMENT.
 *
 * The memory is released when the last reference goes, or earlier with
 * cugi_array_free(), but never while work in flight, a #CugiTexture or a
 * #CugiSurface still uses it: those keep the array alive. After a free,
 * every method fails with %CUGI_ERROR_INVALID_STATE, and so does making a
 * texture or a surface of it; after cugi_context_reset() with
 * %CUGI_ERROR_INVALID_CONTEXT.
 *
 * Since: 0.1
 */

G_DEFINE_FINAL_TYPE (CugiArray, cugi_array, G_TYPE_OBJECT)

G_STATIC_ASSERT ((int) CUGI_ARRAY_FORMAT_UINT8 == (int) CU_AD_FORMAT_UNSIGNED_INT8);
G_STATIC_ASSERT ((int) CUGI_ARRAY_FORMAT_UINT16 == (int) CU_AD_FORMAT_UNSIGNED_INT16);
G_STATIC_ASSERT ((int) CUGI_ARRAY_FORMAT_UINT32 == (int) CU_AD_FORMAT_UNSIGNED_INT32);
G_STATIC_ASSERT ((int) CUGI_ARRAY_FORMAT_INT8 == (int) CU_AD_FORMAT_SIGNED_INT8);
G_STATIC_ASSERT ((int) CUGI_ARRAY_FORMAT_INT16 == (int) CU_AD_FORMAT_SIGNED_INT16);
G_STATIC_ASSERT ((int) CUGI_ARRAY_FORMAT_INT32 == (int) CU_AD_FORMAT_SIGNED_INT32);
G_STATIC_ASSERT ((int) CUGI_ARRAY_FORMAT_HALF == (int) CU_AD_FORMAT_HALF);
G_STATIC_ASSERT ((int) CUGI_ARRAY_FORMAT_FLOAT == (int) CU_AD_FORMAT_FLOAT);
G_STATIC_ASSERT (CUGI_ARRAY_FLAGS_LAYERED == CUDA_ARRAY3D_LAYERED);
G_STATIC_ASSERT (CUGI_ARRAY_FLAGS_SURFACE_LDST == CUDA_ARRAY3D_SURFACE_LDST);
G_STATIC_ASSERT (CUGI_ARRAY_FLAGS_CUBEMAP == CUDA_ARRAY3D_CUBEMAP);
G_STATIC_ASSERT (CUGI_ARRAY_FLAGS_TEXTURE_GATHER == CUDA_ARRAY3D_TEXTURE_GATHER);
G_STATIC_ASSERT (CUGI_ARRAY_FLAGS_COLOR_ATTACHMENT == CUDA_ARRAY3D_COLOR_ATTACHMENT);

#define ARRAY_FLAGS_ALL (CUGI_ARRAY_FLAGS_LAYERED | CUGI_ARRAY_FLAGS_SURFACE_LDST | \
                         CUGI_ARRAY_FLAGS_CUBEMAP | CUGI_ARRAY_FLAGS_TEXTURE_GATHER | \
                         CUGI_ARRAY_FLAGS_COLOR_ATTACHMENT)

enum
{
  PROP_0,
  PROP_CONTEXT,
  PROP_FORMAT,
  PROP_CHANNELS,
  PROP_WIDTH,
  PROP_HEIGHT,
  PROP_DEPTH,
  PROP_FLAGS,
  PROP_FREED,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* ---- memory and its release ----------------------------------------------- */

static gboolean
release_array (gpointer   owner,
               GError   **error)
{
  CugiArray *self = owner;
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;

  /* Another's (cugi_array_new_borrowed()): its owner lets go of it. */
  if (self->release_notify != NULL)
    {
      GDestroyNotify release = g_steal_pointer (&self->release_notify);

      release (g_steal_pointer (&self->release_data));
      return TRUE;
    }
  /* None (an array of g_object_new()), or a reset context took it. */
  if (self->handle == NULL || !cugi_context_binding_is_current (&self->ownership.binding))
    return TRUE;
  return cugi_context_enter (self->ownership.binding.context, &scope, error) &&
         CUGI_CALL (cuArrayDestroy, (self->handle), error);
}

gboolean
cugi_array_check_usable (CugiArray  *self,
                         GError    **error)
{
  if (self->handle == NULL && !cugi_memory_lifetime_is_freed (&self->ownership.lifetime))
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE,
                           _("The array has no memory: make arrays with cugi_array_new()"));
      return FALSE;
    }
  return cugi_memory_ownership_check (&self->ownership, N_("The array was freed"),
                                      N_("The array was freed: its context was reset"), error);
}

gpointer
cugi_array_begin_use (CugiArray *self)
{
  g_object_ref (self);
  cugi_memory_lifetime_begin_use (&self->ownership.lifetime);
  return self;
}

void
cugi_array_end_use (gpointer array)
{
  CugiArray *self = array;

  cugi_memory_lifetime_end_use (&self->ownership.lifetime);
  g_object_unref (self);
}

/* ---- what textures and surfaces share ------------------------------------- */

void
cugi_array_resource_describe_array (CugiArray          *array,
                                    CUDA_RESOURCE_DESC *desc)
{
  *desc = (CUDA_RESOURCE_DESC) { .resType = CU_RESOURCE_TYPE_ARRAY };
  desc->res.array.hArray = array->handle;
}

void
cugi_array_resource_init (CugiArrayResource       *self,
                          CugiContext             *context,
                          CugiArray               *array,
                          CugiBuffer              *buffer,
                          unsigned long long       handle,
                          CugiResourceDestroyFunc  destroy)
{
  cugi_context_binding_init (&self->binding, context, CUGI_CONTEXT_BINDING_NONE);
  self->array = array != NULL ? cugi_array_begin_use (array) : NULL;
  self->buffer = buffer != NULL ? cugi_buffer_begin_work (buffer) : NULL;
  self->handle = handle;
  self->destroy = destroy;
}

void
cugi_array_resource_clear (CugiArrayResource *self)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;

  /* A reset context destroyed the handle with everything else; failures
   * of a destroy have no one to go to. */
  if (self->handle != 0 && cugi_context_binding_is_current (&self->binding) &&
      cugi_context_enter (self->binding.context, &scope, NULL))
    self->destroy (self->handle);
  self->handle = 0;
  g_clear_pointer (&self->array, cugi_array_end_use);
  g_clear_pointer (&self->buffer, cugi_buffer_end_work);
  cugi_context_binding_clear (&self->binding);
}

GParamSpec *
cugi_array_resource_param_spec (const char *name)
{
  GParamFlags flags = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  if (g_str_equal (name, "context"))
    return g_param_spec_object ("context", NULL, NULL, CUGI_TYPE_CONTEXT, flags);
  if (g_str_equal (name, "array"))
    return g_param_spec_object ("array", NULL, NULL, CUGI_TYPE_ARRAY, flags);
  if (g_str_equal (name, "buffer"))
    return g_param_spec_object ("buffer", NULL, NULL, CUGI_TYPE_BUFFER, flags);
  g_assert (g_str_equal (name, "handle"));
  return g_param_spec_uint64 ("handle", NULL, NULL, 0, G_MAXUINT64, 0, flags);
}

void
cugi_array_resource_get_property (const CugiArrayResource *self,
                                  GObject                 *object,
                                  guint                    prop_id,
                                  GValue                  *value,
                                  GParamSpec              *pspec)
{
  /* By name: each class numbers its properties its own way. */
  if (g_str_equal (pspec->name, "context"))
    g_value_set_object (value, self->binding.context);
  else if (g_str_equal (pspec->name, "array"))
    g_value_set_object (value, self->array);
  else if (g_str_equal (pspec->name, "buffer"))
    g_value_set_object (value, self->buffer);
  else if (g_str_equal (pspec->name, "handle"))
    g_value_set_uint64 (value, self->handle);
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

/* ---- GObject -------------------------------------------------------------- */

static void
cugi_array_finalize (GObject *object)
{
  CugiArray *self = CUGI_ARRAY (object);

  cugi_memory_ownership_clear (&self->ownership);

  G_OBJECT_CLASS (cugi_array_parent_class)->finalize (object);
}

static void
cugi_array_get_property (GObject    *object,
                         guint       prop_id,
                         GValue     *value,
                         GParamSpec *pspec)
{
  CugiArray *self = CUGI_ARRAY (object);

  switch (prop_id)
    {
    case PROP_CONTEXT:
      g_value_set_object (value, self->ownership.binding.context);
      break;
    case PROP_FORMAT:
      g_value_set_enum (value, self->format);
      break;
    case PROP_CHANNELS:
      g_value_set_uint (value, self->channels);
      break;
    case PROP_WIDTH:
      g_value_set_uint64 (value, self->width);
      break;
    case PROP_HEIGHT:
      g_value_set_uint64 (value, self->height);
      break;
    case PROP_DEPTH:
      g_value_set_uint64 (value, self->depth);
      break;
    case PROP_FLAGS:
      g_value_set_flags (value, self->flags);
      break;
    case PROP_FREED:
      g_value_set_boolean (value, cugi_array_is_freed (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cugi_array_class_init (CugiArrayClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = cugi_array_finalize;
  object_class->get_property = cugi_array_get_property;

  /**
   * CugiArray:context:
   *
   * The context the array belongs to, which it keeps alive.
   *
   * Since: 0.1
   */
  properties[PROP_CONTEXT] =
    g_param_spec_object ("context", NULL, NULL, CUGI_TYPE_CONTEXT,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * CugiArray:format:
   *
   * The type of each channel of an element.
   *
   * Since: 0.1
   */
  properties[PROP_FORMAT] =
    g_param_spec_enum ("format", NULL, NULL, CUGI_TYPE_ARRAY_FORMAT, CUGI_ARRAY_FORMAT_UINT8,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * CugiArray:channels:
   *
   * The number of channels of an element: 1, 2 or 4 (0 in an array of
   * g_object_new(), which has no memory).
   *
   * Since: 0.1
   */
  properties[PROP_CHANNELS] =
    g_param_spec_uint ("channels", NULL, NULL, 0, 4, 0,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * CugiArray:width:
   *
   * The number of elements of a row.
   *
   * Since: 0.1
   */
  properties[PROP_WIDTH] =
    g_param_spec_uint64 ("width", NULL, NULL, 0, G_MAXUINT64, 0,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * CugiArray:height:
   *
   * The number of rows; 0 for a 1D array (layered or not).
   *
   * Since: 0.1
   */
  properties[PROP_HEIGHT] =
    g_param_spec_uint64 ("height", NULL, NULL, 0, G_MAXUINT64, 0,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * CugiArray:depth:
   *
   * The number of slices, or of layers of a layered array; 0 for a 1D or 2D
   * array.
   *
   * Since: 0.1
   */
  properties[PROP_DEPTH] =
    g_param_spec_uint64 ("depth", NULL, NULL, 0, G_MAXUINT64, 0,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * CugiArray:flags:
   *
   * How the array may be used.
   *
   * Since: 0.1
   */
  properties[PROP_FLAGS] =
    g_param_spec_flags ("flags", NULL, NULL, CUGI_TYPE_ARRAY_FLAGS, CUGI_ARRAY_FLAGS_NONE,
                        G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * CugiArray:freed:
   *
   * Whether cugi_array_free() was called: the array cannot be used any more.
   *
   * Since: 0.1
   */
  properties[PROP_FREED] =
    g_param_spec_boolean ("freed", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
cugi_array_init (CugiArray *self)
{
  cugi_memory_ownership_init (&self->ownership, release_array, self);
  self->format = CUGI_ARRAY_FORMAT_UINT8;
}

/* ---- construction --------------------------------------------------------- */

/**
 * cugi_array_format_get_size:
 * @format: a #CugiArrayFormat
 *
 * Returns: the size in bytes of one channel of @format, or 0 for a value
 *   that is not a #CugiArrayFormat
 *
 * Since: 0.1
 */
gsize
cugi_array_format_get_size (CugiArrayFormat format)
{
  switch (format)
    {
    case CUGI_ARRAY_FORMAT_UINT8:
    case CUGI_ARRAY_FORMAT_INT8:
      return 1;
    case CUGI_ARRAY_FORMAT_UINT16:
    case CUGI_ARRAY_FORMAT_INT16:
    case CUGI_ARRAY_FORMAT_HALF:
      return 2;
    case CUGI_ARRAY_FORMAT_UINT32:
    case CUGI_ARRAY_FORMAT_INT32:
    case CUGI_ARRAY_FORMAT_FLOAT:
      return 4;
    default:
      return 0;
    }
}

/* The shape rules the driver has, told in the caller's terms before it is
 * asked. */
static gboolean
check_shape (gsize            width,
             gsize            height,
             gsize            depth,
             CugiArrayFlags   flags,
             GError         **error)
{
  const char *problem = NULL;

  if ((flags & ~ARRAY_FLAGS_ALL) != 0)
    problem = _("unknown flags");
  else if (width == 0)
    problem = _("the width must be at least 1");
  else if (height == 0 && depth != 0 && (flags & CUGI_ARRAY_FLAGS_LAYERED) == 0)
    problem = _("an array with a depth needs a height, unless it is layered");
  else if ((flags & CUGI_ARRAY_FLAGS_LAYERED) != 0 && depth == 0)
    problem = _("a layered array needs a depth: its number of layers");
  else if ((flags & CUGI_ARRAY_FLAGS_CUBEMAP) != 0 &&
           (width != height || depth == 0 || depth % 6 != 0 ||
            ((flags & CUGI_ARRAY_FLAGS_LAYERED) == 0 && depth != 6)))
    problem = _("a cubemap has square faces and a depth of 6 (a multiple of 6 when layered)");
  else if ((flags & CUGI_ARRAY_FLAGS_TEXTURE_GATHER) != 0 && (height == 0 || depth != 0))
    problem = _("only 2D arrays can be gathered from");
  if (problem == NULL)
    return TRUE;
  g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
               _("Cannot make an array of %zu × %zu × %zu elements: %s"), width, height, depth, problem);
  return FALSE;
}

gboolean
cugi_array_check_description (CugiArrayFormat   format,
                              guint             channels,
                              gsize             width,
                              gsize             height,
                              gsize             depth,
                              CugiArrayFlags    flags,
                              GError          **error)
{
  if (cugi_array_format_get_size (format) == 0)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("%d is not a value of %s"), (int) format, "CugiArrayFormat");
      return FALSE;
    }
  if (channels != 1 && channels != 2 && channels != 4)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("An array element has 1, 2 or 4 channels, not %u"), channels);
      return FALSE;
    }
  return check_shape (width, height, depth, flags, error);
}

/**
 * cugi_array_new:
 * @context: (nullable): the context to allocate in, or %NULL for the default
 *   context
 * @format: the type of each channel
 * @channels: the number of channels of an element: 1, 2 or 4
 * @width: the number of elements of a row, at least 1
 * @height: the number of rows; 0 for a 1D array
 * @depth: the number of slices (layers, for a layered array); 0 for a 1D
 *   or 2D array
 * @flags: how the array will be used
 * @error: return location for a #GError
 *
 * Allocates a CUDA array (`cuArray3DCreate`), not initialized. The shape
 * rules are checked first (%CUGI_ERROR_INVALID_ARGUMENT): a layered array
 * needs a depth, a cubemap six square faces, a gather array two
 * dimensions; the device's limits on each dimension are the driver's.
 *
 * Returns: (transfer full): the new array, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiArray *
cugi_array_new (CugiContext     *context,
                CugiArrayFormat  format,
                guint            channels,
                gsize            width,
                gsize            height,
                gsize            depth,
                CugiArrayFlags   flags,
                GError         **error)
{
  g_autoptr(CugiContext) resolved = NULL;
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CUDA_ARRAY3D_DESCRIPTOR desc = {
    .Width = width,
    .Height = height,
    .Depth = depth,
    .Format = (CUarray_format) format,
    .NumChannels = channels,
    .Flags = flags,
  };
  CUarray handle = NULL;
  CugiArray *self;

  g_return_val_if_fail (context == NULL || CUGI_IS_CONTEXT (context), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!cugi_array_check_description (format, channels, width, height, depth, flags, error) ||
      !cugi_ensure_driver (error) ||
      (resolved = cugi_context_resolve (context, error)) == NULL ||
      !cugi_context_enter (resolved, &scope, error) ||
      !CUGI_CALL (cuArray3DCreate, (&handle, &desc), error))
    return NULL;

  self = g_object_new (CUGI_TYPE_ARRAY, NULL);
  cugi_memory_ownership_set_context (&self->ownership, resolved);
  self->handle = handle;
  self->format = format;
  self->channels = channels;
  self->width = width;
  self->height = height;
  self->depth = depth;
  self->flags = flags;
  return self;
}

CugiArray *
cugi_array_new_borrowed (CugiContext     *context,
                         CUarray          handle,
                         CugiArrayFlags   known_flags,
                         gpointer         release_data,
                         GDestroyNotify   release,
                         GError         **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CUDA_ARRAY3D_DESCRIPTOR desc = { 0 };
  CugiArray *self;

  if (!cugi_context_enter (context, &scope, error) ||
      !CUGI_CALL (cuArray3DGetDescriptor, (&desc, handle), error))
    {
      release (release_data);
      return NULL;
    }
  if (cugi_array_format_get_size ((CugiArrayFormat) desc.Format) == 0)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_NOT_SUPPORTED,
                   _("The array's elements are of a format cugi does not know (CUarray_format 0x%x)"),
                   (unsigned int) desc.Format);
      release (release_data);
      return NULL;
    }
  self = g_object_new (CUGI_TYPE_ARRAY, NULL);
  cugi_memory_ownership_set_context (&self->ownership, context);
  self->handle = handle;
  self->format = (CugiArrayFormat) desc.Format;
  self->channels = desc.NumChannels;
  self->width = desc.Width;
  self->height = desc.Height;
  self->depth = desc.Depth;
  self->flags = (desc.Flags & ARRAY_FLAGS_ALL) | known_flags;
  self->release_data = release_data;
  self->release_notify = release;
  return self;
}

/* ---- properties and free -------------------------------------------------- */

/**
 * cugi_array_get_context:
 * @self: a #CugiArray
 *
 * Returns: (transfer none) (nullable): the value of #CugiArray:context
 *
 * Since: 0.1
 */
CugiContext *
cugi_array_get_context (CugiArray *self)
{
  g_return_val_if_fail (CUGI_IS_ARRAY (self), NULL);

  return self->ownership.binding.context;
}

/**
 * cugi_array_get_format:
 * @self: a #CugiArray
 *
 * Returns: the value of #CugiArray:format
 *
 * Since: 0.1
 */
CugiArrayFormat
cugi_array_get_format (CugiArray *self)
{
  g_return_val_if_fail (CUGI_IS_ARRAY (self), CUGI_ARRAY_FORMAT_UINT8);

  return self->format;
}

/**
 * cugi_array_get_channels:
 * @self: a #CugiArray
 *
 * Returns: the value of #CugiArray:channels
 *
 * Since: 0.1
 */
guint
cugi_array_get_channels (CugiArray *self)
{
  g_return_val_if_fail (CUGI_IS_ARRAY (self), 0);

  return self->channels;
}

/**
 * cugi_array_get_element_size:
 * @self: a #CugiArray
 *
 * The size of one element in bytes: the size of its format times its
 * channels. Rows of host data and buffers copied to and from the array hold
 * width × this many bytes.
 *
 * Returns: the size of an element in bytes
 *
 * Since: 0.1
 */
gsize
cugi_array_get_element_size (CugiArray *self)
{
  g_return_val_if_fail (CUGI_IS_ARRAY (self), 0);

  return cugi_array_format_get_size (self->format) * self->channels;
}

/**
 * cugi_array_get_width:
 * @self: a #CugiArray
 *
 * Returns: the value of #CugiArray:width
 *
 * Since: 0.1
 */
gsize
cugi_array_get_width (CugiArray *self)
{
  g_return_val_if_fail (CUGI_IS_ARRAY (self), 0);

  return self->width;
}

/**
 * cugi_array_get_height:
 * @self: a #CugiArray
 *
 * Returns: the value of #CugiArray:height
 *
 * Since: 0.1
 */
gsize
cugi_array_get_height (CugiArray *self)
{
  g_return_val_if_fail (CUGI_IS_ARRAY (self), 0);

  return self->height;
}

/**
 * cugi_array_get_depth:
 * @self: a #CugiArray
 *
 * Returns: the value of #CugiArray:depth
 *
 * Since: 0.1
 */
gsize
cugi_array_get_depth (CugiArray *self)
{
  g_return_val_if_fail (CUGI_IS_ARRAY (self), 0);

  return self->depth;
}

/**
 * cugi_array_get_flags:
 * @self: a #CugiArray
 *
 * Returns: the value of #CugiArray:flags
 *
 * Since: 0.1
 */
CugiArrayFlags
cugi_array_get_flags (CugiArray *self)
{
  g_return_val_if_fail (CUGI_IS_ARRAY (self), CUGI_ARRAY_FLAGS_NONE);

  return self->flags;
}

/**
 * cugi_array_is_freed:
 * @self: a #CugiArray
 *
 * Returns: the value of #CugiArray:freed
 *
 * Since: 0.1
 */
gboolean
cugi_array_is_freed (CugiArray *self)
{
  g_return_val_if_fail (CUGI_IS_ARRAY (self), FALSE);

  return cugi_memory_lifetime_is_freed (&self->ownership.lifetime);
}

/**
 * cugi_array_free:
 * @self: a #CugiArray
 * @error: return location for a #GError
 *
 * Releases the array's memory now instead of with the last reference
 * (`cuArrayDestroy`); work in flight, textures and surfaces that use it
 * hold the release back until they are done. Every later use of @self
 * fails with %CUGI_ERROR_INVALID_STATE, as does freeing it again.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
cugi_array_free (CugiArray  *self,
                 GError    **error)
{
  g_return_val_if_fail (CUGI_IS_ARRAY (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return cugi_memory_ownership_free (&self->ownership, G_OBJECT (self), properties[PROP_FREED],
                                     N_("The array was freed"), error);
}
