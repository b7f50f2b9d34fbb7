/* cugi-init.h: library initialization and versions */
#pragma once

#if !defined(__CUGI_INSIDE__) && !defined(CUGI_COMPILATION)
#error "Only <cugi/cugi.h> can be included directly."
#endif

#include <glib.h>
#include "cugi-version.h"

G_BEGIN_DECLS

CUGI_AVAILABLE_IN_0_1
gboolean cugi_init                 (GError **error);
CUGI_AVAILABLE_IN_0_1
gboolean cugi_is_available         (void);
CUGI_AVAILABLE_IN_0_1
gint     cugi_get_driver_version   (GError **error);
CUGI_AVAILABLE_IN_0_1
gint     cugi_get_nvrtc_version    (GError **error);
CUGI_AVAILABLE_IN_0_1
const gchar *cugi_get_version      (void);
CUGI_AVAILABLE_IN_0_1
guint    cugi_get_major_version    (void);
CUGI_AVAILABLE_IN_0_1
guint    cugi_get_minor_version    (void);
CUGI_AVAILABLE_IN_0_1
guint    cugi_get_micro_version    (void);
CUGI_AVAILABLE_IN_0_1
const gchar *cugi_check_version    (guint required_major,
                                    guint required_minor,
                                    guint required_micro);

G_END_DECLS
