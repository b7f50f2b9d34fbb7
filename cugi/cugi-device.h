/* cugi-device.h: CUDA devices */
#pragma once

#if !defined(__CUGI_INSIDE__) && !defined(CUGI_COMPILATION)
#error "Only <cugi/cugi.h> can be included directly."
#endif

#include <gio/gio.h>
#include "cugi-version.h"
#include "cugi-types.h"
#include "cugi-device-attribute.h"

G_BEGIN_DECLS

/**
 * CugiDeviceClock:
 * @CUGI_DEVICE_CLOCK_GRAPHICS: the graphics clock
 * @CUGI_DEVICE_CLOCK_SM: the clock of the streaming multiprocessors
 * @CUGI_DEVICE_CLOCK_MEMORY: the memory clock
 * @CUGI_DEVICE_CLOCK_VIDEO: the clock of the video encoders and decoders
 *
 * The clocks cugi_device_get_clock() reads.
 *
 * Since: 0.1
 */
typedef enum
{
  CUGI_DEVICE_CLOCK_GRAPHICS,
  CUGI_DEVICE_CLOCK_SM,
  CUGI_DEVICE_CLOCK_MEMORY,
  CUGI_DEVICE_CLOCK_VIDEO,
} CugiDeviceClock;

#define CUGI_TYPE_DEVICE (cugi_device_get_type ())
CUGI_AVAILABLE_IN_0_1
G_DECLARE_FINAL_TYPE (CugiDevice, cugi_device, CUGI, DEVICE, GObject)

CUGI_AVAILABLE_IN_0_1
gint         cugi_device_get_count           (GError     **error);
CUGI_AVAILABLE_IN_0_1
CugiDevice  *cugi_device_get                 (gint         ordinal,
                                              GError     **error);
CUGI_AVAILABLE_IN_0_1
CugiDevice  *cugi_device_get_default         (GError     **error);
CUGI_AVAILABLE_IN_0_1
CugiDevice  *cugi_device_get_by_alias        (const gchar *alias,
                                              GError     **error);
CUGI_AVAILABLE_IN_0_1
GList       *cugi_device_list                (GError     **error);

CUGI_AVAILABLE_IN_0_1
gint         cugi_device_get_ordinal         (CugiDevice  *self);
CUGI_AVAILABLE_IN_0_1
const gchar *cugi_device_get_name            (CugiDevice  *self);
CUGI_AVAILABLE_IN_0_1
const gchar *cugi_device_get_alias           (CugiDevice  *self);
CUGI_AVAILABLE_IN_0_1
const gchar *cugi_device_get_uuid            (CugiDevice  *self);
CUGI_AVAILABLE_IN_0_1
const gchar *cugi_device_get_pci_bus_id      (CugiDevice  *self);
CUGI_AVAILABLE_IN_0_1
void         cugi_device_get_compute_capability (CugiDevice *self,
                                                 gint       *major,
                                                 gint       *minor);
CUGI_AVAILABLE_IN_0_1
guint64      cugi_device_get_total_memory    (CugiDevice  *self);
CUGI_AVAILABLE_IN_0_1
gint         cugi_device_get_multiprocessor_count (CugiDevice *self);
CUGI_AVAILABLE_IN_0_1
gint         cugi_device_get_warp_size       (CugiDevice  *self);

CUGI_AVAILABLE_IN_0_1
gint         cugi_device_get_attribute       (CugiDevice         *self,
                                              CugiDeviceAttribute attribute,
                                              GError            **error);
CUGI_AVAILABLE_IN_0_1
guint64      cugi_device_get_memory_info     (CugiDevice  *self,
                                              guint64     *total_bytes,
                                              GError     **error);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_device_can_access_peer     (CugiDevice  *self,
                                              CugiDevice  *peer,
                                              GError     **error);
CUGI_AVAILABLE_IN_0_1
CugiContext *cugi_device_get_primary_context (CugiDevice  *self,
                                              GError     **error);

/* Telemetry, through NVML (cugi-device-telemetry.c) */
CUGI_AVAILABLE_IN_0_1
guint        cugi_device_get_temperature     (CugiDevice  *self,
                                              GError     **error);
CUGI_AVAILABLE_IN_0_1
guint        cugi_device_get_power_usage     (CugiDevice  *self,
                                              GError     **error);
CUGI_AVAILABLE_IN_0_1
guint        cugi_device_get_clock           (CugiDevice     *self,
                                              CugiDeviceClock clock,
                                              GError        **error);
CUGI_AVAILABLE_IN_0_1
guint        cugi_device_get_utilization     (CugiDevice  *self,
                                              guint       *memory_percent,
                                              GError     **error);
CUGI_AVAILABLE_IN_0_1
GVariant    *cugi_device_get_process_memory  (CugiDevice  *self,
                                              GError     **error);
CUGI_AVAILABLE_IN_0_1
guint        cugi_device_get_pcie_link       (CugiDevice  *self,
                                              guint       *width,
                                              guint       *max_generation,
                                              guint       *max_width,
                                              GError     **error);
CUGI_AVAILABLE_IN_0_1
guint        cugi_device_get_pcie_throughput (CugiDevice  *self,
                                              guint       *receive_kb_per_second,
                                              GError     **error);
CUGI_AVAILABLE_IN_0_1
gboolean    *cugi_device_get_nvlink_states   (CugiDevice  *self,
                                              guint       *n_links,
                                              GError     **error);

G_END_DECLS
