/* cugi-surface.h: surface objects over arrays */
#pragma once

#if !defined(__CUGI_INSIDE__) && !defined(CUGI_COMPILATION)
#error "Only <cugi/cugi.h> can be included directly."
#endif

#include <gio/gio.h>
#include "cugi-version.h"
#include "cugi-types.h"

G_BEGIN_DECLS

#define CUGI_TYPE_SURFACE (cugi_surface_get_type ())
CUGI_AVAILABLE_IN_0_1
G_DECLARE_FINAL_TYPE (CugiSurface, cugi_surface, CUGI, SURFACE, GObject)

CUGI_AVAILABLE_IN_0_1
CugiSurface *cugi_surface_new         (CugiArray    *array,
                                       GError      **error);
CUGI_AVAILABLE_IN_0_1
guint64      cugi_surface_get_handle  (CugiSurface  *self);
CUGI_AVAILABLE_IN_0_1
CugiContext *cugi_surface_get_context (CugiSurface  *self);
CUGI_AVAILABLE_IN_0_1
CugiArray   *cugi_surface_get_array   (CugiSurface  *self);

G_END_DECLS
