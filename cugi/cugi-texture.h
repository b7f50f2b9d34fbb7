/* cugi-texture.h: texture objects over arrays and buffers */
#pragma once

#if !defined(__CUGI_INSIDE__) && !defined(CUGI_COMPILATION)
#error "Only <cugi/cugi.h> can be included directly."
#endif

#include <gio/gio.h>
#include "cugi-version.h"
#include "cugi-types.h"
#include "cugi-array.h"

G_BEGIN_DECLS

/**
 * CugiAddressMode:
 * @CUGI_ADDRESS_MODE_WRAP: coordinates wrap around (normalized coordinates
 *   only)
 * @CUGI_ADDRESS_MODE_CLAMP: coordinates are clamped to the edge
 * @CUGI_ADDRESS_MODE_MIRROR: coordinates are mirrored at each edge
 *   (normalized coordinates only)
 * @CUGI_ADDRESS_MODE_BORDER: reads outside give the border color
 *
 * What a texture read outside the texture gives, in one dimension, as
 * `CUaddress_mode`.
 *
 * Since: 0.1
 */
typedef enum
{
  CUGI_ADDRESS_MODE_WRAP = 0,
  CUGI_ADDRESS_MODE_CLAMP = 1,
  CUGI_ADDRESS_MODE_MIRROR = 2,
  CUGI_ADDRESS_MODE_BORDER = 3,
} CugiAddressMode;

/**
 * CugiFilterMode:
 * @CUGI_FILTER_MODE_POINT: the nearest element
 * @CUGI_FILTER_MODE_LINEAR: linear (bilinear, trilinear) interpolation of
 *   the nearest elements, for floating-point results only
 *
 * How a texture read between elements is filtered, as `CUfilter_mode`.
 *
 * Since: 0.1
 */
typedef enum
{
  CUGI_FILTER_MODE_POINT = 0,
  CUGI_FILTER_MODE_LINEAR = 1,
} CugiFilterMode;

/**
 * CugiTextureReadMode:
 * @CUGI_TEXTURE_READ_MODE_ELEMENT_TYPE: reads give the elements' own type
 * @CUGI_TEXTURE_READ_MODE_NORMALIZED_FLOAT: reads of 8- and 16-bit integer
 *   elements give floats in [0, 1] (unsigned) or [-1, 1] (signed)
 *
 * What type texture reads return.
 *
 * Since: 0.1
 */
typedef enum
{
  CUGI_TEXTURE_READ_MODE_ELEMENT_TYPE = 0,
  CUGI_TEXTURE_READ_MODE_NORMALIZED_FLOAT = 1,
} CugiTextureReadMode;

/**
 * CugiTextureDescription:
 *
 * How a texture reads: the address mode of each dimension, the filter and
 * read modes, whether coordinates are normalized, and the border color. A
 * new description clamps, reads the nearest element in its own type, and
 * takes coordinates in elements (`tex2D<float>(tex, x + 0.5f, y + 0.5f)`
 * reads the element at (x, y)). Set what differs, then make textures with
 * it; a texture copies what it needs.
 *
 * Since: 0.1
 */
typedef struct _CugiTextureDescription CugiTextureDescription;

#define CUGI_TYPE_TEXTURE_DESCRIPTION (cugi_texture_description_get_type ())
CUGI_AVAILABLE_IN_0_1
GType                   cugi_texture_description_get_type (void) G_GNUC_CONST;

CUGI_AVAILABLE_IN_0_1
CugiTextureDescription *cugi_texture_description_new      (void);
CUGI_AVAILABLE_IN_0_1
CugiTextureDescription *cugi_texture_description_copy     (CugiTextureDescription *self);
CUGI_AVAILABLE_IN_0_1
void                    cugi_texture_description_free     (CugiTextureDescription *self);
CUGI_AVAILABLE_IN_0_1
gboolean                cugi_texture_description_set_address_mode (CugiTextureDescription  *self,
                                                                   guint                    dimension,
                                                                   CugiAddressMode          mode,
                                                                   GError                 **error);
CUGI_AVAILABLE_IN_0_1
CugiAddressMode         cugi_texture_description_get_address_mode (CugiTextureDescription  *self,
                                                                   guint                    dimension,
                                                                   GError                 **error);
CUGI_AVAILABLE_IN_0_1
void                    cugi_texture_description_set_filter_mode (CugiTextureDescription *self,
                                                                  CugiFilterMode          mode);
CUGI_AVAILABLE_IN_0_1
CugiFilterMode          cugi_texture_description_get_filter_mode (CugiTextureDescription *self);
CUGI_AVAILABLE_IN_0_1
void                    cugi_texture_description_set_read_mode (CugiTextureDescription *self,
                                                                CugiTextureReadMode     mode);
CUGI_AVAILABLE_IN_0_1
CugiTextureReadMode     cugi_texture_description_get_read_mode (CugiTextureDescription *self);
CUGI_AVAILABLE_IN_0_1
void                    cugi_texture_description_set_normalized_coordinates (CugiTextureDescription *self,
                                                                             gboolean                normalized);
CUGI_AVAILABLE_IN_0_1
gboolean                cugi_texture_description_get_normalized_coordinates (CugiTextureDescription *self);
CUGI_AVAILABLE_IN_0_1
void                    cugi_texture_description_set_border_color (CugiTextureDescription *self,
                                                                   gfloat                  red,
                                                                   gfloat                  green,
                                                                   gfloat                  blue,
                                                                   gfloat                  alpha);
CUGI_AVAILABLE_IN_0_1
void                    cugi_texture_description_get_border_color (CugiTextureDescription *self,
                                                                   gfloat                 *red,
                                                                   gfloat                 *green,
                                                                   gfloat                 *blue,
                                                                   gfloat                 *alpha);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CugiTextureDescription, cugi_texture_description_free)

#define CUGI_TYPE_TEXTURE (cugi_texture_get_type ())
CUGI_AVAILABLE_IN_0_1
G_DECLARE_FINAL_TYPE (CugiTexture, cugi_texture, CUGI, TEXTURE, GObject)

CUGI_AVAILABLE_IN_0_1
CugiTexture *cugi_texture_new_for_array  (CugiArray              *array,
                                          CugiTextureDescription *description,
                                          GError                **error);
CUGI_AVAILABLE_IN_0_1
CugiTexture *cugi_texture_new_for_buffer (CugiBuffer             *buffer,
                                          CugiArrayFormat         format,
                                          guint                   channels,
                                          gsize                   width,
                                          CugiTextureDescription *description,
                                          GError                **error);
CUGI_AVAILABLE_IN_0_1
CugiTexture *cugi_texture_new_for_pitched_buffer (CugiBuffer             *buffer,
                                                  CugiArrayFormat         format,
                                                  guint                   channels,
                                                  gsize                   width,
                                                  gsize                   height,
                                                  gsize                   pitch,
                                                  CugiTextureDescription *description,
                                                  GError                **error);

CUGI_AVAILABLE_IN_0_1
guint64      cugi_texture_get_handle     (CugiTexture            *self);
CUGI_AVAILABLE_IN_0_1
CugiContext *cugi_texture_get_context    (CugiTexture            *self);
CUGI_AVAILABLE_IN_0_1
CugiArray   *cugi_texture_get_array      (CugiTexture            *self);
CUGI_AVAILABLE_IN_0_1
CugiBuffer  *cugi_texture_get_buffer     (CugiTexture            *self);

G_END_DECLS
