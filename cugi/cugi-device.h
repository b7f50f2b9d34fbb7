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

G_END_DECLS
