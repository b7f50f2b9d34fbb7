/* cugi-virtual-memory-private.h: what the files of virtual memory
 * (cugi-physical-memory.c, cugi-virtual-range.c, cugi-growable-buffer.c)
 * share. Not installed; included by those files only. */
#pragma once

#include "cugi-context-private.h"
#include "cugi-private.h"

G_BEGIN_DECLS

/* ---- cugi-physical-memory.c ----------------------------------------------- */

/* NOT_SUPPORTED unless the driver has virtual memory management and @device
 * supports it; the driver is initialized. */
gboolean  cugi_virtual_memory_check_supported (CugiDevice  *device,
                                               GError     **error);
/* Makes @device's primary context current, for driver calls that need one. */
gboolean  cugi_virtual_memory_enter_device    (CugiDevice        *device,
                                               CugiContextScope  *scope,
                                               GError           **error);
/* INVALID_ARGUMENT naming @what, @size and @granularity unless @size is a
 * non-zero multiple of @granularity. */
gboolean  cugi_virtual_memory_check_size      (gsize        size,
                                               gsize        granularity,
                                               const char  *what,
                                               GError     **error);
/* The allocation's handle, for cuMemMap. */
CUmemGenericAllocationHandle cugi_physical_memory_get_handle (CugiPhysicalMemory *self);

/* ---- cugi-virtual-range.c ------------------------------------------------- */

/* A buffer over @size bytes of @self from @offset, unchecked: the range
 * knows it while it lives and refuses to unmap memory under it, its size
 * read at the time (a growable buffer's grows). The buffer keeps @self
 * alive. */
CugiBuffer *cugi_virtual_range_new_buffer     (CugiVirtualRange *self,
                                               gsize             offset,
                                               gsize             size);

G_END_DECLS
