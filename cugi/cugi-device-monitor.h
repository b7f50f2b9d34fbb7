/* cugi-device-monitor.h: a device's telemetry, polled in the main loop */
#pragma once

#if !defined(__CUGI_INSIDE__) && !defined(CUGI_COMPILATION)
#error "Only <cugi/cugi.h> can be included directly."
#endif

#include <gio/gio.h>
#include "cugi-version.h"
#include "cugi-types.h"

G_BEGIN_DECLS

#define CUGI_TYPE_DEVICE_MONITOR (cugi_device_monitor_get_type ())
CUGI_AVAILABLE_IN_0_1
G_DECLARE_FINAL_TYPE (CugiDeviceMonitor, cugi_device_monitor, CUGI, DEVICE_MONITOR, GObject)

CUGI_AVAILABLE_IN_0_1
CugiDeviceMonitor *cugi_device_monitor_new          (CugiDevice        *device,
                                                     guint              interval_ms,
                                                     GError           **error);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_device_monitor_update             (CugiDeviceMonitor *self,
                                                     GError           **error);

CUGI_AVAILABLE_IN_0_1
CugiDevice  *cugi_device_monitor_get_device         (CugiDeviceMonitor *self);
CUGI_AVAILABLE_IN_0_1
guint        cugi_device_monitor_get_interval       (CugiDeviceMonitor *self);
CUGI_AVAILABLE_IN_0_1
void         cugi_device_monitor_set_interval       (CugiDeviceMonitor *self,
                                                     guint              interval_ms);
CUGI_AVAILABLE_IN_0_1
guint        cugi_device_monitor_get_temperature    (CugiDeviceMonitor *self);
CUGI_AVAILABLE_IN_0_1
guint        cugi_device_monitor_get_power_usage    (CugiDeviceMonitor *self);
CUGI_AVAILABLE_IN_0_1
guint        cugi_device_monitor_get_sm_clock       (CugiDeviceMonitor *self);
CUGI_AVAILABLE_IN_0_1
guint        cugi_device_monitor_get_memory_clock   (CugiDeviceMonitor *self);
CUGI_AVAILABLE_IN_0_1
guint        cugi_device_monitor_get_gpu_utilization (CugiDeviceMonitor *self);
CUGI_AVAILABLE_IN_0_1
guint        cugi_device_monitor_get_memory_utilization (CugiDeviceMonitor *self);
CUGI_AVAILABLE_IN_0_1
const GError *cugi_device_monitor_get_error         (CugiDeviceMonitor *self);

G_END_DECLS
