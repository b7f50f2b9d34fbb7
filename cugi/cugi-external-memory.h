/* cugi-external-memory.h: memory of other APIs and processes (Vulkan,
 * dma-bufs) imported into CUDA */
#pragma once

#if !defined(__CUGI_INSIDE__) && !defined(CUGI_COMPILATION)
#error "Only <cugi/cugi.h> can be included directly."
#endif

#include <gio/gio.h>
#include "cugi-version.h"
#include "cugi-types.h"
#include "cugi-array.h"

G_BEGIN_DECLS

/**
 * CugiExternalMemoryType:
 * @CUGI_EXTERNAL_MEMORY_TYPE_OPAQUE_FD: an opaque file descriptor, as
 *   Vulkan exports memory (`VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT`)
 * @CUGI_EXTERNAL_MEMORY_TYPE_DMA_BUF: a Linux dma-buf
 *   (`VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT`, DRM's PRIME,
 *   cugi_buffer_export_dma_buf()), where the driver can import them
 *
 * What the file descriptor given to cugi_external_memory_new_from_fd()
 * is, as `CUexternalMemoryHandleType`.
 *
 * Since: 0.1
 */
typedef enum
{
  CUGI_EXTERNAL_MEMORY_TYPE_OPAQUE_FD = 1,
  CUGI_EXTERNAL_MEMORY_TYPE_DMA_BUF = 9,
} CugiExternalMemoryType;

/**
 * CugiExternalMemoryFlags:
 * @CUGI_EXTERNAL_MEMORY_FLAGS_NONE: memory of its own allocation
 * @CUGI_EXTERNAL_MEMORY_FLAGS_DEDICATED: the memory is a dedicated
 *   allocation of its exporter (Vulkan's `VkMemoryDedicatedAllocateInfo`)
 *
 * How the imported memory was allocated, as `CUDA_EXTERNAL_MEMORY_*`.
 *
 * Since: 0.1
 */
typedef enum /*< flags >*/
{
  CUGI_EXTERNAL_MEMORY_FLAGS_NONE = 0,
  CUGI_EXTERNAL_MEMORY_FLAGS_DEDICATED = 1 << 0,
} CugiExternalMemoryFlags;

#define CUGI_TYPE_EXTERNAL_MEMORY (cugi_external_memory_get_type ())
CUGI_AVAILABLE_IN_0_1
G_DECLARE_FINAL_TYPE (CugiExternalMemory, cugi_external_memory, CUGI, EXTERNAL_MEMORY, GObject)

CUGI_AVAILABLE_IN_0_1
CugiExternalMemory *cugi_external_memory_new_from_fd (CugiContext             *context,
                                                      CugiExternalMemoryType   type,
                                                      gint                     fd,
                                                      guint64                  size,
                                                      CugiExternalMemoryFlags  flags,
                                                      GError                 **error);

CUGI_AVAILABLE_IN_0_1
CugiBuffer  *cugi_external_memory_get_buffer   (CugiExternalMemory  *self,
                                                guint64              offset,
                                                guint64              size,
                                                GError             **error);
CUGI_AVAILABLE_IN_0_1
CugiArray   *cugi_external_memory_get_array    (CugiExternalMemory  *self,
                                                guint64              offset,
                                                CugiArrayFormat      format,
                                                guint                channels,
                                                gsize                width,
                                                gsize                height,
                                                gsize                depth,
                                                CugiArrayFlags       flags,
                                                GError             **error);
CUGI_AVAILABLE_IN_0_1
GPtrArray   *cugi_external_memory_get_mipmapped_array (CugiExternalMemory *self,
                                                guint64              offset,
                                                CugiArrayFormat      format,
                                                guint                channels,
                                                gsize                width,
                                                gsize                height,
                                                gsize                depth,
                                                CugiArrayFlags       flags,
                                                guint                levels,
                                                GError             **error);

CUGI_AVAILABLE_IN_0_1
CugiContext *cugi_external_memory_get_context  (CugiExternalMemory  *self);
CUGI_AVAILABLE_IN_0_1
CugiExternalMemoryType cugi_external_memory_get_memory_type (CugiExternalMemory *self);
CUGI_AVAILABLE_IN_0_1
guint64      cugi_external_memory_get_size     (CugiExternalMemory  *self);
CUGI_AVAILABLE_IN_0_1
CugiExternalMemoryFlags cugi_external_memory_get_flags (CugiExternalMemory *self);

G_END_DECLS
