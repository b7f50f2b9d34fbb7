/* cugi-memory-pool.h: reuse of device memory */
#pragma once

#if !defined(__CUGI_INSIDE__) && !defined(CUGI_COMPILATION)
#error "Only <cugi/cugi.h> can be included directly."
#endif

#include <gio/gio.h>
#include "cugi-version.h"
#include "cugi-types.h"

G_BEGIN_DECLS

#define CUGI_TYPE_MEMORY_POOL (cugi_memory_pool_get_type ())
CUGI_AVAILABLE_IN_0_1
G_DECLARE_FINAL_TYPE (CugiMemoryPool, cugi_memory_pool, CUGI, MEMORY_POOL, GObject)

CUGI_AVAILABLE_IN_0_1
CugiMemoryPool *cugi_memory_pool_new               (CugiContext     *context,
                                                    GError         **error);
CUGI_AVAILABLE_IN_0_1
CugiBuffer     *cugi_memory_pool_allocate          (CugiMemoryPool  *self,
                                                    gsize            size,
                                                    GError         **error);
CUGI_AVAILABLE_IN_0_1
CugiMemoryBlock *cugi_memory_pool_take_block       (CugiMemoryPool  *self,
                                                    gsize            size,
                                                    GError         **error);
CUGI_AVAILABLE_IN_0_1
guint           cugi_memory_pool_get_held_blocks   (CugiMemoryPool  *self);
CUGI_AVAILABLE_IN_0_1
guint           cugi_memory_pool_get_active_blocks (CugiMemoryPool  *self);
CUGI_AVAILABLE_IN_0_1
gboolean        cugi_memory_pool_free_held         (CugiMemoryPool  *self,
                                                    GError         **error);
CUGI_AVAILABLE_IN_0_1
gboolean        cugi_memory_pool_stop_holding      (CugiMemoryPool  *self,
                                                    GError         **error);

G_END_DECLS
