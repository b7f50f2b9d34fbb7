/* cugi-growable-buffer.h: a device buffer that grows in place */
#pragma once

#if !defined(__CUGI_INSIDE__) && !defined(CUGI_COMPILATION)
#error "Only <cugi/cugi.h> can be included directly."
#endif

#include <gio/gio.h>
#include "cugi-version.h"
#include "cugi-types.h"

G_BEGIN_DECLS

#define CUGI_TYPE_GROWABLE_BUFFER (cugi_growable_buffer_get_type ())
CUGI_AVAILABLE_IN_0_1
G_DECLARE_FINAL_TYPE (CugiGrowableBuffer, cugi_growable_buffer, CUGI, GROWABLE_BUFFER, GObject)

CUGI_AVAILABLE_IN_0_1
CugiGrowableBuffer *cugi_growable_buffer_new     (CugiContext         *context,
                                                  gsize                max_size,
                                                  GError             **error);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_growable_buffer_grow           (CugiGrowableBuffer  *self,
                                                  gsize                size,
                                                  GError             **error);
CUGI_AVAILABLE_IN_0_1
CugiBuffer  *cugi_growable_buffer_get_buffer     (CugiGrowableBuffer  *self);
CUGI_AVAILABLE_IN_0_1
gsize        cugi_growable_buffer_get_size       (CugiGrowableBuffer  *self);
CUGI_AVAILABLE_IN_0_1
gsize        cugi_growable_buffer_get_capacity   (CugiGrowableBuffer  *self);
CUGI_AVAILABLE_IN_0_1
gsize        cugi_growable_buffer_get_max_size   (CugiGrowableBuffer  *self);

G_END_DECLS
