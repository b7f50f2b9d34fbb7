/* cugi-virtual-range.h: reserved ranges of device addresses, into which
 * physical memory is mapped */
#pragma once

#if !defined(__CUGI_INSIDE__) && !defined(CUGI_COMPILATION)
#error "Only <cugi/cugi.h> can be included directly."
#endif

#include <gio/gio.h>
#include "cugi-version.h"
#include "cugi-types.h"

G_BEGIN_DECLS

/**
 * CugiMemoryAccess:
 * @CUGI_MEMORY_ACCESS_NONE: the device cannot reach the memory
 * @CUGI_MEMORY_ACCESS_READ: the device may read the memory
 * @CUGI_MEMORY_ACCESS_READ_WRITE: the device may read and write it
 *
 * What a device may do with mapped memory, as `CUmemAccess_flags`.
 *
 * Since: 0.1
 */
typedef enum
{
  CUGI_MEMORY_ACCESS_NONE = 0,
  CUGI_MEMORY_ACCESS_READ = 1,
  CUGI_MEMORY_ACCESS_READ_WRITE = 3,
} CugiMemoryAccess;

#define CUGI_TYPE_VIRTUAL_RANGE (cugi_virtual_range_get_type ())
CUGI_AVAILABLE_IN_0_1
G_DECLARE_FINAL_TYPE (CugiVirtualRange, cugi_virtual_range, CUGI, VIRTUAL_RANGE, GObject)

CUGI_AVAILABLE_IN_0_1
CugiVirtualRange *cugi_virtual_range_new       (CugiContext         *context,
                                                gsize                size,
                                                GError             **error);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_virtual_range_map            (CugiVirtualRange    *self,
                                                gsize                offset,
                                                CugiPhysicalMemory  *memory,
                                                GError             **error);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_virtual_range_unmap          (CugiVirtualRange    *self,
                                                gsize                offset,
                                                gsize                size,
                                                GError             **error);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_virtual_range_set_access     (CugiVirtualRange    *self,
                                                gsize                offset,
                                                gsize                size,
                                                CugiDevice          *device,
                                                CugiMemoryAccess     access,
                                                GError             **error);
CUGI_AVAILABLE_IN_0_1
CugiMemoryAccess cugi_virtual_range_get_access (CugiVirtualRange    *self,
                                                gsize                offset,
                                                CugiDevice          *device,
                                                GError             **error);
CUGI_AVAILABLE_IN_0_1
CugiBuffer  *cugi_virtual_range_get_buffer     (CugiVirtualRange    *self,
                                                gsize                offset,
                                                gsize                size,
                                                GError             **error);
CUGI_AVAILABLE_IN_0_1
CugiContext *cugi_virtual_range_get_context    (CugiVirtualRange    *self);
CUGI_AVAILABLE_IN_0_1
gsize        cugi_virtual_range_get_size       (CugiVirtualRange    *self);
CUGI_AVAILABLE_IN_0_1
guint64      cugi_virtual_range_get_address    (CugiVirtualRange    *self);
CUGI_AVAILABLE_IN_0_1
gsize        cugi_virtual_range_get_granularity (CugiVirtualRange   *self);

G_END_DECLS
