/* cugi-occupancy.h: how many blocks of a kernel fit on a multiprocessor */
#pragma once

#if !defined(__CUGI_INSIDE__) && !defined(CUGI_COMPILATION)
#error "Only <cugi/cugi.h> can be included directly."
#endif

#include <glib-object.h>
#include "cugi-version.h"
#include "cugi-types.h"

G_BEGIN_DECLS

/**
 * CugiOccupancyLimit:
 * @CUGI_OCCUPANCY_LIMIT_WARPS: the multiprocessor's warp slots (threads)
 * @CUGI_OCCUPANCY_LIMIT_REGISTERS: the multiprocessor's register file
 * @CUGI_OCCUPANCY_LIMIT_SHARED_MEMORY: the multiprocessor's shared memory
 * @CUGI_OCCUPANCY_LIMIT_BLOCKS: the most blocks a multiprocessor holds at once
 *
 * The resource that bounds how many blocks of a kernel a multiprocessor runs
 * at once. When several bound it equally, the first in this order is named.
 *
 * Since: 0.1
 */
typedef enum
{
  CUGI_OCCUPANCY_LIMIT_WARPS,
  CUGI_OCCUPANCY_LIMIT_REGISTERS,
  CUGI_OCCUPANCY_LIMIT_SHARED_MEMORY,
  CUGI_OCCUPANCY_LIMIT_BLOCKS,
} CugiOccupancyLimit;

#define CUGI_TYPE_OCCUPANCY (cugi_occupancy_get_type ())

CUGI_AVAILABLE_IN_0_1
GType              cugi_occupancy_get_type                    (void) G_GNUC_CONST;

CUGI_AVAILABLE_IN_0_1
CugiOccupancy     *cugi_occupancy_new_for_kernel              (CugiKernel    *kernel,
                                                               guint          threads_per_block,
                                                               gsize          dynamic_shared_memory,
                                                               GError       **error);
CUGI_AVAILABLE_IN_0_1
CugiOccupancy     *cugi_occupancy_copy                        (const CugiOccupancy *self);
CUGI_AVAILABLE_IN_0_1
void               cugi_occupancy_free                        (CugiOccupancy *self);

CUGI_AVAILABLE_IN_0_1
guint              cugi_occupancy_get_threads_per_block       (const CugiOccupancy *self);
CUGI_AVAILABLE_IN_0_1
guint              cugi_occupancy_get_blocks_per_multiprocessor (const CugiOccupancy *self);
CUGI_AVAILABLE_IN_0_1
guint              cugi_occupancy_get_warps_per_multiprocessor (const CugiOccupancy *self);
CUGI_AVAILABLE_IN_0_1
CugiOccupancyLimit cugi_occupancy_get_limited_by              (const CugiOccupancy *self);
CUGI_AVAILABLE_IN_0_1
gdouble            cugi_occupancy_get_occupancy               (const CugiOccupancy *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CugiOccupancy, cugi_occupancy_free)

G_END_DECLS
