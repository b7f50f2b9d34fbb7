/* cugi-memory-pool.h */
#pragma once

#if !defined(__CUGI_INSIDE__) && !defined(CUGI_COMPILATION)
#error "Only <cugi/cugi.h> can be included directly."
#endif

#include <gio/gio.h>
#include "cugi-version.h"
#include "cugi-types.h"

G_BEGIN_DECLS

#define CUGI_TYPE_MEMORY_POOL (cugi_memory_pool_get_type ())
CUGI_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (CugiMemoryPool, cugi_memory_pool, CUGI, MEMORY_POOL, GObject)

G_END_DECLS
