/* cugi-host-buffer.h: page-locked (pinned) host memory */
#pragma once

#if !defined(__CUGI_INSIDE__) && !defined(CUGI_COMPILATION)
#error "Only <cugi/cugi.h> can be included directly."
#endif

#include <gio/gio.h>
#include "cugi-version.h"
#include "cugi-types.h"

G_BEGIN_DECLS

/**
 * CugiHostBufferFlags:
 * @CUGI_HOST_BUFFER_FLAGS_NONE: pinned memory for the buffer's context
 * @CUGI_HOST_BUFFER_FLAGS_PORTABLE: the memory counts as pinned for every
 *   context, not only the one that allocated it (`CU_MEMHOSTALLOC_PORTABLE`)
 * @CUGI_HOST_BUFFER_FLAGS_MAPPED: the memory is also mapped into the device's
 *   address space: #CugiHostBuffer:device-pointer is where kernels and copies
 *   reach it (`CU_MEMHOSTALLOC_DEVICEMAP`; for registered memory
 *   `CU_MEMHOSTREGISTER_DEVICEMAP`, the same bit with the same meaning, so
 *   this one flag is the "device-map" flag of both)
 * @CUGI_HOST_BUFFER_FLAGS_WRITE_COMBINED: write-combined memory, faster for the
 *   host to write and for the device to read across PCI Express, but very
 *   slow for the host to read (`CU_MEMHOSTALLOC_WRITECOMBINED`); not for
 *   cugi_host_buffer_new_registered()
 *
 * How a #CugiHostBuffer's memory is allocated or registered.
 *
 * Since: 0.1
 */
typedef enum /*< flags >*/ {
  CUGI_HOST_BUFFER_FLAGS_NONE = 0,
  CUGI_HOST_BUFFER_FLAGS_PORTABLE = 1 << 0,
  CUGI_HOST_BUFFER_FLAGS_MAPPED = 1 << 1,
  CUGI_HOST_BUFFER_FLAGS_WRITE_COMBINED = 1 << 2,
} CugiHostBufferFlags;

#define CUGI_TYPE_HOST_BUFFER (cugi_host_buffer_get_type ())
CUGI_AVAILABLE_IN_0_1
G_DECLARE_FINAL_TYPE (CugiHostBuffer, cugi_host_buffer, CUGI, HOST_BUFFER, GObject)

CUGI_AVAILABLE_IN_0_1
CugiHostBuffer     *cugi_host_buffer_new               (CugiContext         *context,
                                                        gsize                size,
                                                        CugiHostBufferFlags  flags,
                                                        GError             **error);
CUGI_AVAILABLE_IN_0_1
CugiHostBuffer     *cugi_host_buffer_new_registered    (CugiContext         *context,
                                                        gpointer             data,
                                                        gsize                size,
                                                        CugiHostBufferFlags  flags,
                                                        GError             **error);
CUGI_AVAILABLE_IN_0_1
CugiHostBuffer     *cugi_host_buffer_new_registered_address (CugiContext    *context,
                                                             guint64         address,
                                                             gsize           size,
                                                             CugiHostBufferFlags flags,
                                                             GError        **error);
CUGI_AVAILABLE_IN_0_1
CugiHostBuffer     *cugi_host_buffer_new_registered_bytes (CugiContext      *context,
                                                           GBytes           *bytes,
                                                           CugiHostBufferFlags flags,
                                                           GError          **error);

/* Pinned staging memory, shared with cugi's own transfers (cugi-staging-pool.c). */
CUGI_AVAILABLE_IN_0_1
CugiHostBuffer     *cugi_host_buffer_new_staging       (CugiContext         *context,
                                                        gsize                size,
                                                        GError             **error);
CUGI_AVAILABLE_IN_0_1
gboolean            cugi_free_staging_memory           (GError             **error);

CUGI_AVAILABLE_IN_0_1
gsize               cugi_host_buffer_get_size          (CugiHostBuffer      *self);
CUGI_AVAILABLE_IN_0_1
CugiHostBufferFlags cugi_host_buffer_get_flags         (CugiHostBuffer      *self);
CUGI_AVAILABLE_IN_0_1
guint64             cugi_host_buffer_get_device_pointer (CugiHostBuffer     *self);
CUGI_AVAILABLE_IN_0_1
gboolean            cugi_host_buffer_is_freed          (CugiHostBuffer      *self);

CUGI_AVAILABLE_IN_0_1
guint8             *cugi_host_buffer_get_data          (CugiHostBuffer      *self,
                                                        gsize               *size,
                                                        GError             **error);
CUGI_AVAILABLE_IN_0_1
guint64             cugi_host_buffer_get_host_address (CugiHostBuffer  *self,
                                                       GError         **error);
CUGI_AVAILABLE_IN_0_1
GBytes             *cugi_host_buffer_get_bytes         (CugiHostBuffer      *self,
                                                        GError             **error);
CUGI_AVAILABLE_IN_0_1
gboolean            cugi_host_buffer_write             (CugiHostBuffer      *self,
                                                        gsize                offset,
                                                        const guint8        *data,
                                                        gsize                len,
                                                        GError             **error);
CUGI_AVAILABLE_IN_0_1
gboolean            cugi_host_buffer_write_from_address (CugiHostBuffer     *self,
                                                        gsize                offset,
                                                        guint64              address,
                                                        gsize                size,
                                                        GError             **error);
CUGI_AVAILABLE_IN_0_1
CugiBuffer         *cugi_host_buffer_get_device_buffer (CugiHostBuffer      *self,
                                                        GError             **error);
CUGI_AVAILABLE_IN_0_1
gboolean            cugi_host_buffer_free              (CugiHostBuffer      *self,
                                                        GError             **error);

G_END_DECLS
