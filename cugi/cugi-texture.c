/* cugi-texture.c: texture objects over arrays and buffers, and their
 * description */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "cugi-context-private.h"
#include "cugi-private.h"
#include "cugi-memory-private.h"
#include "cugi-array-private.h"

G_STATIC_ASSERT ((int) CUGI_ADDRESS_MODE_WRAP == (int) CU_TR_ADDRESS_MODE_WRAP);
G_STATIC_ASSERT ((int) CUGI_ADDRESS_MODE_CLAMP == (int) CU_TR_ADDRESS_MODE_CLAMP);
G_STATIC_ASSERT ((int) CUGI_ADDRESS_MODE_MIRROR == (int) CU_TR_ADDRESS_MODE_MIRROR);
G_STATIC_ASSERT ((int) CUGI_ADDRESS_MODE_BORDER == (int) CU_TR_ADDRESS_MODE_BORDER);
G_STATIC_ASSERT ((int) CUGI_FILTER_MODE_POINT == (int) CU_TR_FILTER_MODE_POINT);
G_STATIC_ASSERT ((int) CUGI_FILTER_MODE_LINEAR == (int) CU_TR_FILTER_MODE_LINEAR);

/* ---- CugiTextureDescription ----------------------------------------------- */

/* x, y and z */
#define N_DIMENSIONS 3

struct _CugiTextureDescription
{
  CugiAddressMode     address_mode[N_DIMENSIONS];
  CugiFilterMode      filter_mode;
  CugiTextureReadMode read_mode;
  gboolean            normalized_coordinates;
  gfloat              border_color[4];
};

G_DEFINE_BOXED_TYPE (CugiTextureDescription, cugi_texture_description,
                     cugi_texture_description_copy, cugi_texture_description_free)

/**
 * cugi_texture_description_new:
 *
 * A description that clamps in every dimension, reads the nearest element
 * in its own type, takes coordinates in elements, and has a black,
 * transparent border.
 *
 * Returns: (transfer full): a new description
 *
 * Since: 0.1
 */
CugiTextureDescription *
cugi_texture_description_new (void)
{
  CugiTextureDescription *self = g_new0 (CugiTextureDescription, 1);

  for (guint i = 0; i < N_DIMENSIONS; i++)
    self->address_mode[i] = CUGI_ADDRESS_MODE_CLAMP;
  return self;
}

/**
 * cugi_texture_description_copy:
 * @self: a #CugiTextureDescription
 *
 * Returns: (transfer full): a copy of @self
 *
 * Since: 0.1
 */
CugiTextureDescription *
cugi_texture_description_copy (CugiTextureDescription *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return g_memdup2 (self, sizeof *self);
}

/**
 * cugi_texture_description_free:
 * @self: (transfer full): a #CugiTextureDescription
 *
 * Frees @self.
 *
 * Since: 0.1
 */
void
cugi_texture_description_free (CugiTextureDescription *self)
{
  g_free (self);
}

/* A dimension of a texture is 0, 1 or 2; bindings pass any integer. */
static gboolean
check_dimension (guint    dimension,
                 GError **error)
{
  if (dimension < N_DIMENSIONS)
    return TRUE;
  g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
               _("A texture has no dimension %u: its dimensions are 0 (x), 1 (y) and 2 (z)"), dimension);
  return FALSE;
}

/**
 * cugi_texture_description_set_address_mode:
 * @self: a #CugiTextureDescription
 * @dimension: 0 (x), 1 (y) or 2 (z)
 * @mode: what reads outside the texture give in that dimension
 * @error: return location for a #GError
 *
 * Sets the address mode of one dimension. Wrapping and mirroring need
 * normalized coordinates. Any other @dimension is
 * %CUGI_ERROR_INVALID_ARGUMENT, and changes nothing.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
cugi_texture_description_set_address_mode (CugiTextureDescription  *self,
                                           guint                    dimension,
                                           CugiAddressMode          mode,
                                           GError                 **error)
{
  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!check_dimension (dimension, error))
    return FALSE;
  self->address_mode[dimension] = mode;
  return TRUE;
}

/**
 * cugi_texture_description_get_address_mode:
 * @self: a #CugiTextureDescription
 * @dimension: 0 (x), 1 (y) or 2 (z)
 * @error: return location for a #GError
 *
 * Any other @dimension is %CUGI_ERROR_INVALID_ARGUMENT.
 *
 * Returns: the address mode of @dimension, or %CUGI_ADDRESS_MODE_CLAMP
 *   with @error set
 *
 * Since: 0.1
 */
CugiAddressMode
cugi_texture_description_get_address_mode (CugiTextureDescription  *self,
                                           guint                    dimension,
                                           GError                 **error)
{
  g_return_val_if_fail (self != NULL, CUGI_ADDRESS_MODE_CLAMP);
  g_return_val_if_fail (error == NULL || *error == NULL, CUGI_ADDRESS_MODE_CLAMP);

  if (!check_dimension (dimension, error))
    return CUGI_ADDRESS_MODE_CLAMP;
  return self->address_mode[dimension];
}

/**
 * cugi_texture_description_set_filter_mode:
 * @self: a #CugiTextureDescription
 * @mode: the filter mode
 *
 * Sets how reads between elements are filtered. Linear filtering needs
 * floating-point results: elements of %CUGI_ARRAY_FORMAT_FLOAT or
 * %CUGI_ARRAY_FORMAT_HALF, or 8- and 16-bit integers read as
 * %CUGI_TEXTURE_READ_MODE_NORMALIZED_FLOAT.
 *
 * Since: 0.1
 */
void
cugi_texture_description_set_filter_mode (CugiTextureDescription *self,
                                          CugiFilterMode          mode)
{
  g_return_if_fail (self != NULL);

  self->filter_mode = mode;
}

/**
 * cugi_texture_description_get_filter_mode:
 * @self: a #CugiTextureDescription
 *
 * Returns: the filter mode
 *
 * Since: 0.1
 */
CugiFilterMode
cugi_texture_description_get_filter_mode (CugiTextureDescription *self)
{
  g_return_val_if_fail (self != NULL, CUGI_FILTER_MODE_POINT);

  return self->filter_mode;
}

/**
 * cugi_texture_description_set_read_mode:
 * @self: a #CugiTextureDescription
 * @mode: the read mode
 *
 * Sets what type reads return.
 *
 * Since: 0.1
 */
void
cugi_texture_description_set_read_mode (CugiTextureDescription *self,
                                        CugiTextureReadMode     mode)
{
  g_return_if_fail (self != NULL);

  self->read_mode = mode;
}

/**
 * cugi_texture_description_get_read_mode:
 * @self: a #CugiTextureDescription
 *
 * Returns: the read mode
 *
 * Since: 0.1
 */
CugiTextureReadMode
cugi_texture_description_get_read_mode (CugiTextureDescription *self)
{
  g_return_val_if_fail (self != NULL, CUGI_TEXTURE_READ_MODE_ELEMENT_TYPE);

  return self->read_mode;
}

/**
 * cugi_texture_description_set_normalized_coordinates:
 * @self: a #CugiTextureDescription
 * @normalized: %TRUE for coordinates in [0, 1) over each dimension, %FALSE
 *   for coordinates in elements
 *
 * Sets whether coordinates are normalized.
 *
 * Since: 0.1
 */
void
cugi_texture_description_set_normalized_coordinates (CugiTextureDescription *self,
                                                     gboolean                normalized)
{
  g_return_if_fail (self != NULL);

  self->normalized_coordinates = !!normalized;
}

/**
 * cugi_texture_description_get_normalized_coordinates:
 * @self: a #CugiTextureDescription
 *
 * Returns: whether coordinates are normalized
 *
 * Since: 0.1
 */
gboolean
cugi_texture_description_get_normalized_coordinates (CugiTextureDescription *self)
{
  g_return_val_if_fail (self != NULL, FALSE);

  return self->normalized_coordinates;
}

/**
 * cugi_texture_description_set_border_color:
 * @self: a #CugiTextureDescription
 * @red: the first channel
 * @green: the second channel
 * @blue: the third channel
 * @alpha: the fourth channel
 *
 * Sets what reads outside the texture give in dimensions whose address
 * mode is %CUGI_ADDRESS_MODE_BORDER.
 *
 * Since: 0.1
 */
void
cugi_texture_description_set_border_color (CugiTextureDescription *self,
                                           gfloat                  red,
                                           gfloat                  green,
                                           gfloat                  blue,
                                           gfloat                  alpha)
{
  g_return_if_fail (self != NULL);

  self->border_color[0] = red;
  self->border_color[1] = green;
  self->border_color[2] = blue;
  self->border_color[3] = alpha;
}

/**
 * cugi_texture_description_get_border_color:
 * @self: a #CugiTextureDescription
 * @red: (out) (optional): the first channel
 * @green: (out) (optional): the second channel
 * @blue: (out) (optional): the third channel
 * @alpha: (out) (optional): the fourth channel
 *
 * Gets the border color.
 *
 * Since: 0.1
 */
void
cugi_texture_description_get_border_color (CugiTextureDescription *self,
                                           gfloat                 *red,
                                           gfloat                 *green,
                                           gfloat                 *blue,
                                           gfloat                 *alpha)
{
  g_return_if_fail (self != NULL);

  if (red != NULL)
    *red = self->border_color[0];
  if (green != NULL)
    *green = self->border_color[1];
  if (blue != NULL)
    *blue = self->border_color[2];
  if (alpha != NULL)
    *alpha = self->border_color[3];
}

/* ---- CugiTexture ---------------------------------------------------------- */

/**
 * CugiTexture:
 *
 * A texture object (`CUtexObject`): how kernels read a #CugiArray, or a
 * device buffer as a 1D or pitched 2D texture, through the texture units,
 * with the addressing, filtering and read modes of a
 * #CugiTextureDescription. Kernels take it as a `cudaTextureObject_t`
 * parameter: pass it with cugi_kernel_args_add_texture(), or as the
 * texture object itself to cugi_kernel_launch_values().
 *
 * A texture keeps what it reads alive and usable: freeing its array or
 * buffer with cugi_array_free() or cugi_buffer_free() releases the memory
 * only once the texture is gone (and with it every launch that used it).
 * A texture of an array or buffer that was freed before cannot be made
 * (%CUGI_ERROR_INVALID_STATE).
 *
 * Since: 0.1
 */

struct _CugiTexture
{
  GObject            parent_instance;

  CugiArrayResource  resource;
};

G_DEFINE_FINAL_TYPE (CugiTexture, cugi_texture, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_CONTEXT,
  PROP_ARRAY,
  PROP_BUFFER,
  PROP_HANDLE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
cugi_texture_finalize (GObject *object)
{
  CugiTexture *self = CUGI_TEXTURE (object);

  cugi_array_resource_clear (&self->resource);

  G_OBJECT_CLASS (cugi_texture_parent_class)->finalize (object);
}

static void
cugi_texture_get_property (GObject    *object,
                           guint       prop_id,
                           GValue     *value,
                           GParamSpec *pspec)
{
  cugi_array_resource_get_property (&CUGI_TEXTURE (object)->resource, object, prop_id, value, pspec);
}

static void
cugi_texture_class_init (CugiTextureClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = cugi_texture_finalize;
  object_class->get_property = cugi_texture_get_property;

  /**
   * CugiTexture:context:
   *
   * The context of the texture and of what it reads.
   *
   * Since: 0.1
   */
  properties[PROP_CONTEXT] = cugi_array_resource_param_spec ("context");

  /**
   * CugiTexture:array:
   *
   * The array the texture reads, which it keeps alive; %NULL for a texture
   * over a buffer.
   *
   * Since: 0.1
   */
  properties[PROP_ARRAY] = cugi_array_resource_param_spec ("array");

  /**
   * CugiTexture:buffer:
   *
   * The buffer the texture reads, which it keeps alive; %NULL for a texture
   * over an array.
   *
   * Since: 0.1
   */
  properties[PROP_BUFFER] = cugi_array_resource_param_spec ("buffer");

  /**
   * CugiTexture:handle:
   *
   * The `CUtexObject`, the value a kernel's `cudaTextureObject_t`
   * parameter takes; 0 for a texture of g_object_new().
   *
   * Since: 0.1
   */
  properties[PROP_HANDLE] = cugi_array_resource_param_spec ("handle");

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
cugi_texture_init (CugiTexture *self)
{
}

/* Linear filtering interpolates floats: 32-bit integers have none, and
 * 8- and 16-bit ones only when read as normalized floats. */
static gboolean
check_filtering (CugiArrayFormat                format,
                 const CugiTextureDescription  *description,
                 GError                       **error)
{
  gboolean floats = format == CUGI_ARRAY_FORMAT_FLOAT || format == CUGI_ARRAY_FORMAT_HALF;
  gboolean normalized = description->read_mode == CUGI_TEXTURE_READ_MODE_NORMALIZED_FLOAT &&
                        cugi_array_format_get_size (format) < 4;

  if (description->filter_mode != CUGI_FILTER_MODE_LINEAR || floats || normalized)
    return TRUE;
  g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                       _("Linear filtering needs floating-point elements, or 8- or 16-bit integers "
                         "read as normalized floats"));
  return FALSE;
}

/* Makes the texture object of @resource in @context, read as
 * @description says, for @array or @buffer (the one that @resource
 * describes). */
static CugiTexture *
texture_new (CugiContext                   *context,
             CugiArray                     *array,
             CugiBuffer                    *buffer,
             CugiArrayFormat                format,
             const CUDA_RESOURCE_DESC      *resource,
             const CugiTextureDescription  *description,
             GError                       **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CUDA_TEXTURE_DESC desc = {
    .filterMode = (CUfilter_mode) description->filter_mode,
    .flags = (description->read_mode == CUGI_TEXTURE_READ_MODE_ELEMENT_TYPE ? CU_TRSF_READ_AS_INTEGER : 0) |
             (description->normalized_coordinates ? CU_TRSF_NORMALIZED_COORDINATES : 0),
  };
  CUtexObject handle = 0;
  CugiTexture *self;

  if (!check_filtering (format, description, error))
    return NULL;
  for (guint i = 0; i < N_DIMENSIONS; i++)
    {
      CugiAddressMode mode = description->address_mode[i];

      if ((mode == CUGI_ADDRESS_MODE_WRAP || mode == CUGI_ADDRESS_MODE_MIRROR) &&
          !description->normalized_coordinates)
        {
          g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                       _("Dimension %u wraps or mirrors, which needs normalized coordinates"), i);
          return NULL;
        }
      desc.addressMode[i] = (CUaddress_mode) mode;
    }
  for (guint i = 0; i < 4; i++)
    desc.borderColor[i] = description->border_color[i];

  if (!cugi_context_enter (context, &scope, error) ||
      !CUGI_CALL (cuTexObjectCreate, (&handle, resource, &desc, NULL), error))
    return NULL;
  self = g_object_new (CUGI_TYPE_TEXTURE, NULL);
  cugi_array_resource_init (&self->resource, context, array, buffer, handle,
                            cugi_cuda.cuTexObjectDestroy);
  return self;
}

/**
 * cugi_texture_new_for_array:
 * @array: the array to read
 * @description: (nullable): how to read it, or %NULL for the defaults of
 *   cugi_texture_description_new()
 * @error: return location for a #GError
 *
 * Makes a texture object over @array (`cuTexObjectCreate`), which it keeps
 * alive. A freed array fails with %CUGI_ERROR_INVALID_STATE, a description
 * the array's elements cannot be read with (linear filtering of 32-bit
 * integers, wrapping without normalized coordinates) with
 * %CUGI_ERROR_INVALID_ARGUMENT.
 *
 * Returns: (transfer full): the new texture, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiTexture *
cugi_texture_new_for_array (CugiArray               *array,
                            CugiTextureDescription  *description,
                            GError                 **error)
{
  g_autoptr(CugiTextureDescription) defaults = NULL;
  g_autoptr(GError) local_error = NULL;
  CUDA_RESOURCE_DESC resource;

  g_return_val_if_fail (CUGI_IS_ARRAY (array), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (description == NULL)
    description = defaults = cugi_texture_description_new ();
  if (!cugi_array_check_usable (array, &local_error))
    {
      g_set_error (error, local_error->domain, local_error->code,
                   _("Cannot make a texture of the array: %s"), local_error->message);
      return NULL;
    }
  cugi_array_resource_describe_array (array, &resource);
  return texture_new (array->ownership.binding.context, array, NULL, array->format, &resource,
                      description, error);
}

/* The resource of @width × @height elements of @buffer (@height 0: a 1D
 * texture), checked against the buffer. */
static CugiTexture *
texture_new_for_buffer (CugiBuffer              *buffer,
                        CugiArrayFormat          format,
                        guint                    channels,
                        gsize                    width,
                        gsize                    height,
                        gsize                    pitch,
                        CugiTextureDescription  *description,
                        GError                 **error)
{
  g_autoptr(CugiTextureDescription) defaults = NULL;
  g_autoptr(GError) local_error = NULL;
  gsize element_size = cugi_array_format_get_size (format) * channels;
  CUDA_RESOURCE_DESC resource = { 0 };
  CUdeviceptr address;

  if (description == NULL)
    description = defaults = cugi_texture_description_new ();
  if (!cugi_buffer_get_address (buffer, &address, &local_error))
    {
      g_set_error (error, local_error->domain, local_error->code,
                   _("Cannot make a texture of the buffer: %s"), local_error->message);
      return NULL;
    }
  if (cugi_array_format_get_size (format) == 0 || (channels != 1 && channels != 2 && channels != 4))
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("A texture element has a CugiArrayFormat and 1, 2 or 4 channels, not %d and %u"),
                   (int) format, channels);
      return NULL;
    }
  if (width == 0 || width > G_MAXSIZE / element_size)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("A texture of %zu elements per row cannot be made"), width);
      return NULL;
    }
  if (height == 0)
    {
      if (!cugi_memory_check_range (cugi_buffer_get_size (buffer), 0, width * element_size,
                                    _("buffer"), error))
        return NULL;
      resource.resType = CU_RESOURCE_TYPE_LINEAR;
      resource.res.linear.devPtr = address;
      resource.res.linear.format = (CUarray_format) format;
      resource.res.linear.numChannels = channels;
      resource.res.linear.sizeInBytes = width * element_size;
    }
  else
    {
      if (pitch == 0)
        pitch = cugi_buffer_get_pitch (buffer) != 0 ? cugi_buffer_get_pitch (buffer) : width * element_size;
      if (!cugi_memory_check_pitched_range (cugi_buffer_get_size (buffer), 0, pitch, height,
                                            width * element_size, height, 1, _("buffer"), error))
        return NULL;
      resource.resType = CU_RESOURCE_TYPE_PITCH2D;
      resource.res.pitch2D.devPtr = address;
      resource.res.pitch2D.format = (CUarray_format) format;
      resource.res.pitch2D.numChannels = channels;
      resource.res.pitch2D.width = width;
      resource.res.pitch2D.height = height;
      resource.res.pitch2D.pitchInBytes = pitch;
    }
  return texture_new (cugi_buffer_get_context (buffer), NULL, buffer, format, &resource,
                      description, error);
}

/**
 * cugi_texture_new_for_buffer:
 * @buffer: the buffer to read
 * @format: the type of each channel of an element
 * @channels: the number of channels of an element: 1, 2 or 4
 * @width: the number of elements, from the start of @buffer
 * @description: (nullable): how to read it, or %NULL for the defaults of
 *   cugi_texture_description_new()
 * @error: return location for a #GError
 *
 * Makes a 1D texture over the first @width elements of @buffer
 * (`cuTexObjectCreate` of linear memory; kernels read it with
 * `tex1Dfetch()`), which it keeps alive. The elements must fit in
 * @buffer (%CUGI_ERROR_INVALID_ARGUMENT); the driver limits the width.
 *
 * Returns: (transfer full): the new texture, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiTexture *
cugi_texture_new_for_buffer (CugiBuffer              *buffer,
                             CugiArrayFormat          format,
                             guint                    channels,
                             gsize                    width,
                             CugiTextureDescription  *description,
                             GError                 **error)
{
  g_return_val_if_fail (CUGI_IS_BUFFER (buffer), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return texture_new_for_buffer (buffer, format, channels, width, 0, 0, description, error);
}

/**
 * cugi_texture_new_for_pitched_buffer:
 * @buffer: the buffer to read, whose rows are @pitch bytes apart
 * @format: the type of each channel of an element
 * @channels: the number of channels of an element: 1, 2 or 4
 * @width: the number of elements of a row
 * @height: the number of rows, at least 1
 * @pitch: the distance between rows in bytes; 0 for the buffer's own
 *   pitch (cugi_buffer_new_pitched()), or packed rows when it has none
 * @description: (nullable): how to read it, or %NULL for the defaults of
 *   cugi_texture_description_new()
 * @error: return location for a #GError
 *
 * Makes a 2D texture over rows of @buffer (`cuTexObjectCreate` of pitched
 * memory), which it keeps alive. The rows must fit in @buffer
 * (%CUGI_ERROR_INVALID_ARGUMENT); the driver wants the pitch aligned as
 * cugi_buffer_new_pitched() aligns it.
 *
 * Returns: (transfer full): the new texture, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiTexture *
cugi_texture_new_for_pitched_buffer (CugiBuffer              *buffer,
                                     CugiArrayFormat          format,
                                     guint                    channels,
                                     gsize                    width,
                                     gsize                    height,
                                     gsize                    pitch,
                                     CugiTextureDescription  *description,
                                     GError                 **error)
{
  g_return_val_if_fail (CUGI_IS_BUFFER (buffer), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (height == 0)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                           _("A 2D texture needs at least one row"));
      return NULL;
    }
  return texture_new_for_buffer (buffer, format, channels, width, height, pitch, description, error);
}

/**
 * cugi_texture_get_handle:
 * @self: a #CugiTexture
 *
 * Returns: the value of #CugiTexture:handle
 *
 * Since: 0.1
 */
guint64
cugi_texture_get_handle (CugiTexture *self)
{
  g_return_val_if_fail (CUGI_IS_TEXTURE (self), 0);

  return self->resource.handle;
}

/**
 * cugi_texture_get_context:
 * @self: a #CugiTexture
 *
 * Returns: (transfer none) (nullable): the value of #CugiTexture:context
 *
 * Since: 0.1
 */
CugiContext *
cugi_texture_get_context (CugiTexture *self)
{
  g_return_val_if_fail (CUGI_IS_TEXTURE (self), NULL);

  return self->resource.binding.context;
}

/**
 * cugi_texture_get_array:
 * @self: a #CugiTexture
 *
 * Returns: (transfer none) (nullable): the value of #CugiTexture:array
 *
 * Since: 0.1
 */
CugiArray *
cugi_texture_get_array (CugiTexture *self)
{
  g_return_val_if_fail (CUGI_IS_TEXTURE (self), NULL);

  return self->resource.array;
}

/**
 * cugi_texture_get_buffer:
 * @self: a #CugiTexture
 *
 * Returns: (transfer none) (nullable): the value of #CugiTexture:buffer
 *
 * Since: 0.1
 */
CugiBuffer *
cugi_texture_get_buffer (CugiTexture *self)
{
  g_return_val_if_fail (CUGI_IS_TEXTURE (self), NULL);

  return self->resource.buffer;
}
