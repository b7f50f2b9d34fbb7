/* cugi-init.h: library initialization and versions */
#pragma once

#if !defined(__CUGI_INSIDE__) && !defined(CUGI_COMPILATION)
#error "Only <cugi/cugi.h> can be included directly."
#endif

#include <glib.h>
#include "cugi-version.h"

G_BEGIN_DECLS

CUGI_AVAILABLE_IN_ALL
gboolean cugi_init                 (GError **error);
CUGI_AVAILABLE_IN_ALL
gboolean cugi_is_available         (void);
CUGI_AVAILABLE_IN_ALL
gint     cugi_get_driver_version   (GError **error);
CUGI_AVAILABLE_IN_ALL
gint     cugi_get_nvrtc_version    (GError **error);
CUGI_AVAILABLE_IN_ALL
const gchar *cugi_get_version      (void);

G_END_DECLS
