/* cugi-event.h: CUDA events */
#pragma once

#if !defined(__CUGI_INSIDE__) && !defined(CUGI_COMPILATION)
#error "Only <cugi/cugi.h> can be included directly."
#endif

#include <gio/gio.h>
#include "cugi-version.h"
#include "cugi-types.h"

G_BEGIN_DECLS

/**
 * CugiEventFlags:
 * @CUGI_EVENT_FLAGS_NONE: an event that records timing, waited for by
 *   spinning (`CU_EVENT_DEFAULT`)
 * @CUGI_EVENT_FLAGS_BLOCKING_SYNC: a thread in cugi_event_synchronize()
 *   sleeps until the event completes instead of spinning
 *   (`CU_EVENT_BLOCKING_SYNC`)
 * @CUGI_EVENT_FLAGS_DISABLE_TIMING: the event records no time, which makes
 *   recording and waiting cheaper; cugi_event_elapsed_time() refuses it
 *   (`CU_EVENT_DISABLE_TIMING`)
 * @CUGI_EVENT_FLAGS_INTERPROCESS: the event can be shared with another
 *   process through cugi_event_get_ipc_handle(); needs
 *   %CUGI_EVENT_FLAGS_DISABLE_TIMING (`CU_EVENT_INTERPROCESS`)
 *
 * Flags of a #CugiEvent, with the values of the driver's `CU_EVENT_*`.
 *
 * Since: 0.1
 */
typedef enum /*< flags >*/
{
  CUGI_EVENT_FLAGS_NONE           = 0,
  CUGI_EVENT_FLAGS_BLOCKING_SYNC  = 1 << 0,
  CUGI_EVENT_FLAGS_DISABLE_TIMING = 1 << 1,
  CUGI_EVENT_FLAGS_INTERPROCESS   = 1 << 2,
} CugiEventFlags;

#define CUGI_TYPE_EVENT (cugi_event_get_type ())
CUGI_AVAILABLE_IN_0_1
G_DECLARE_FINAL_TYPE (CugiEvent, cugi_event, CUGI, EVENT, GObject)

CUGI_AVAILABLE_IN_0_1
CugiEvent      *cugi_event_new                 (CugiContext         *context,
                                                CugiEventFlags       flags,
                                                GError             **error);
CUGI_AVAILABLE_IN_0_1
CugiEvent      *cugi_event_new_from_ipc_handle (CugiContext         *context,
                                                GBytes              *ipc_handle,
                                                GError             **error);

CUGI_AVAILABLE_IN_0_1
CugiContext    *cugi_event_get_context         (CugiEvent           *self);
CUGI_AVAILABLE_IN_0_1
CugiEventFlags  cugi_event_get_flags           (CugiEvent           *self);

CUGI_AVAILABLE_IN_0_1
gboolean        cugi_event_record              (CugiEvent           *self,
                                                CugiStream          *stream,
                                                GError             **error);
CUGI_AVAILABLE_IN_0_1
gboolean        cugi_event_query               (CugiEvent           *self,
                                                GError             **error);
CUGI_AVAILABLE_IN_0_1
gboolean        cugi_event_synchronize         (CugiEvent           *self,
                                                GError             **error);
CUGI_AVAILABLE_IN_0_1
void            cugi_event_synchronize_async   (CugiEvent           *self,
                                                GCancellable        *cancellable,
                                                GAsyncReadyCallback  callback,
                                                gpointer             user_data);
CUGI_AVAILABLE_IN_0_1
gboolean        cugi_event_synchronize_finish  (CugiEvent           *self,
                                                GAsyncResult        *result,
                                                GError             **error);
CUGI_AVAILABLE_IN_0_1
gdouble         cugi_event_elapsed_time        (CugiEvent           *start,
                                                CugiEvent           *end,
                                                GError             **error);
CUGI_AVAILABLE_IN_0_1
void            cugi_event_elapsed_time_async  (CugiEvent           *start,
                                                CugiEvent           *end,
                                                GCancellable        *cancellable,
                                                GAsyncReadyCallback  callback,
                                                gpointer             user_data);
CUGI_AVAILABLE_IN_0_1
gdouble         cugi_event_elapsed_time_finish (CugiEvent           *start,
                                                GAsyncResult        *result,
                                                GError             **error);
CUGI_AVAILABLE_IN_0_1
GSource        *cugi_event_create_source       (CugiEvent           *self);
CUGI_AVAILABLE_IN_0_1
GBytes         *cugi_event_get_ipc_handle      (CugiEvent           *self,
                                                GError             **error);

G_END_DECLS
