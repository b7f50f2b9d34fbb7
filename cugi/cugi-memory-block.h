/* cugi-memory-block.h: a pool's block of device memory, without a buffer */
#pragma once

#if !defined(__CUGI_INSIDE__) && !defined(CUGI_COMPILATION)
#error "Only <cugi/cugi.h> can be included directly."
#endif

#include <glib-object.h>
#include "cugi-version.h"
#include "cugi-types.h"

G_BEGIN_DECLS

#define CUGI_TYPE_MEMORY_BLOCK (cugi_memory_block_get_type ())

CUGI_AVAILABLE_IN_0_1
GType            cugi_memory_block_get_type    (void) G_GNUC_CONST;

CUGI_AVAILABLE_IN_0_1
CugiMemoryBlock *cugi_memory_block_ref         (CugiMemoryBlock  *self);
CUGI_AVAILABLE_IN_0_1
void             cugi_memory_block_unref       (CugiMemoryBlock  *self);
CUGI_AVAILABLE_IN_0_1
guint64          cugi_memory_block_get_address (CugiMemoryBlock  *self);
CUGI_AVAILABLE_IN_0_1
gsize            cugi_memory_block_get_size    (CugiMemoryBlock  *self);
CUGI_AVAILABLE_IN_0_1
CugiBuffer      *cugi_memory_block_new_buffer  (CugiMemoryBlock  *self,
                                                GError          **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CugiMemoryBlock, cugi_memory_block_unref)

G_END_DECLS
