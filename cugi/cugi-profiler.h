/* cugi-profiler.h: profiler control and NVTX annotations */
#pragma once

#if !defined(__CUGI_INSIDE__) && !defined(CUGI_COMPILATION)
#error "Only <cugi/cugi.h> can be included directly."
#endif

#include <glib.h>
#include "cugi-version.h"
#include "cugi-types.h"

G_BEGIN_DECLS

CUGI_AVAILABLE_IN_0_1
gboolean cugi_profiler_start   (GError      **error);
CUGI_AVAILABLE_IN_0_1
gboolean cugi_profiler_stop    (GError      **error);

CUGI_AVAILABLE_IN_0_1
gint     cugi_nvtx_range_push  (const gchar  *message);
CUGI_AVAILABLE_IN_0_1
gint     cugi_nvtx_range_pop   (void);
CUGI_AVAILABLE_IN_0_1
void     cugi_nvtx_mark        (const gchar  *message);

G_END_DECLS
