/* cugi-host-memory-pool.h: reuse of pinned host memory */
#pragma once

#if !defined(__CUGI_INSIDE__) && !defined(CUGI_COMPILATION)
#error "Only <cugi/cugi.h> can be included directly."
#endif

#include <gio/gio.h>
#include "cugi-version.h"
#include "cugi-types.h"
#include "cugi-host-buffer.h"

G_BEGIN_DECLS

#define CUGI_TYPE_HOST_MEMORY_POOL (cugi_host_memory_pool_get_type ())
CUGI_AVAILABLE_IN_0_1
G_DECLARE_FINAL_TYPE (CugiHostMemoryPool, cugi_host_memory_pool, CUGI, HOST_MEMORY_POOL, GObject)

CUGI_AVAILABLE_IN_0_1
CugiHostMemoryPool *cugi_host_memory_pool_new               (CugiContext          *context,
                                                             CugiHostBufferFlags   flags,
                                                             GError              **error);
CUGI_AVAILABLE_IN_0_1
CugiHostBuffer     *cugi_host_memory_pool_allocate          (CugiHostMemoryPool   *self,
                                                             gsize                 size,
                                                             GError              **error);
CUGI_AVAILABLE_IN_0_1
CugiHostBufferFlags cugi_host_memory_pool_get_flags         (CugiHostMemoryPool   *self);
CUGI_AVAILABLE_IN_0_1
guint               cugi_host_memory_pool_get_held_blocks   (CugiHostMemoryPool   *self);
CUGI_AVAILABLE_IN_0_1
guint               cugi_host_memory_pool_get_active_blocks (CugiHostMemoryPool   *self);
CUGI_AVAILABLE_IN_0_1
gboolean            cugi_host_memory_pool_free_held         (CugiHostMemoryPool   *self,
                                                             GError              **error);
CUGI_AVAILABLE_IN_0_1
gboolean            cugi_host_memory_pool_stop_holding      (CugiHostMemoryPool   *self,
                                                             GError              **error);

G_END_DECLS
