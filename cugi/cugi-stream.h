/* cugi-stream.h */
#pragma once

#if !defined(__CUGI_INSIDE__) && !defined(CUGI_COMPILATION)
#error "Only <cugi/cugi.h> can be included directly."
#endif

#include <gio/gio.h>
#include "cugi-version.h"
#include "cugi-types.h"

G_BEGIN_DECLS

#define CUGI_TYPE_STREAM (cugi_stream_get_type ())
CUGI_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (CugiStream, cugi_stream, CUGI, STREAM, GObject)

G_END_DECLS
