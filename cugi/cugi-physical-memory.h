/* cugi-physical-memory.h: physical device memory for virtual address
 * ranges, which other processes may map through a file descriptor */
#pragma once

#if !defined(__CUGI_INSIDE__) && !defined(CUGI_COMPILATION)
#error "Only <cugi/cugi.h> can be included directly."
#endif

#include <gio/gio.h>
#include "cugi-version.h"
#include "cugi-types.h"

G_BEGIN_DECLS

/**
 * CugiPhysicalMemoryFlags:
 * @CUGI_PHYSICAL_MEMORY_FLAGS_NONE: plain memory of its device
 * @CUGI_PHYSICAL_MEMORY_FLAGS_EXPORTABLE: the memory can be exported as a
 *   POSIX file descriptor (cugi_physical_memory_export_fd()) for another
 *   process to map (`CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR`)
 * @CUGI_PHYSICAL_MEMORY_FLAGS_COMPRESSIBLE: compressible memory
 *   (`CU_MEM_ALLOCATION_COMP_GENERIC`), where the device compresses data
 * @CUGI_PHYSICAL_MEMORY_FLAGS_GPU_DIRECT_RDMA: memory that network
 *   adapters and other PCIe devices may reach with GPUDirect RDMA
 *
 * What a #CugiPhysicalMemory is made for. Which of them a device supports
 * cugi_physical_memory_get_supported_flags() tells.
 *
 * Since: 0.1
 */
typedef enum /*< flags >*/
{
  CUGI_PHYSICAL_MEMORY_FLAGS_NONE = 0,
  CUGI_PHYSICAL_MEMORY_FLAGS_EXPORTABLE = 1 << 0,
  CUGI_PHYSICAL_MEMORY_FLAGS_COMPRESSIBLE = 1 << 1,
  CUGI_PHYSICAL_MEMORY_FLAGS_GPU_DIRECT_RDMA = 1 << 2,
} CugiPhysicalMemoryFlags;

#define CUGI_TYPE_PHYSICAL_MEMORY (cugi_physical_memory_get_type ())
CUGI_AVAILABLE_IN_0_1
G_DECLARE_FINAL_TYPE (CugiPhysicalMemory, cugi_physical_memory, CUGI, PHYSICAL_MEMORY, GObject)

CUGI_AVAILABLE_IN_0_1
CugiPhysicalMemoryFlags cugi_physical_memory_get_supported_flags (CugiDevice              *device,
                                                                  GError                 **error);
CUGI_AVAILABLE_IN_0_1
gsize        cugi_physical_memory_get_granularity (CugiDevice              *device,
                                                   CugiPhysicalMemoryFlags  flags,
                                                   gboolean                 recommended,
                                                   GError                 **error);
CUGI_AVAILABLE_IN_0_1
CugiPhysicalMemory *cugi_physical_memory_new      (CugiDevice              *device,
                                                   gsize                    size,
                                                   CugiPhysicalMemoryFlags  flags,
                                                   GError                 **error);
CUGI_AVAILABLE_IN_0_1
CugiPhysicalMemory *cugi_physical_memory_new_from_fd (CugiDevice           *device,
                                                   gint                     fd,
                                                   gsize                    size,
                                                   GError                 **error);
CUGI_AVAILABLE_IN_0_1
gint         cugi_physical_memory_export_fd       (CugiPhysicalMemory      *self,
                                                   GError                 **error);
CUGI_AVAILABLE_IN_0_1
CugiDevice  *cugi_physical_memory_get_device      (CugiPhysicalMemory      *self);
CUGI_AVAILABLE_IN_0_1
gsize        cugi_physical_memory_get_size        (CugiPhysicalMemory      *self);
CUGI_AVAILABLE_IN_0_1
CugiPhysicalMemoryFlags cugi_physical_memory_get_flags (CugiPhysicalMemory *self);

G_END_DECLS
