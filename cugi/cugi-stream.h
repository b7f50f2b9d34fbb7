/* cugi-stream.h: CUDA streams */
#pragma once

#if !defined(__CUGI_INSIDE__) && !defined(CUGI_COMPILATION)
#error "Only <cugi/cugi.h> can be included directly."
#endif

#include <gio/gio.h>
#include "cugi-version.h"
#include "cugi-types.h"

G_BEGIN_DECLS

/**
 * CugiStreamFlags:
 * @CUGI_STREAM_FLAGS_NONE: an ordinary stream: work on it also waits for
 *   work on the context's legacy default stream, and the other way round
 *   (`CU_STREAM_DEFAULT`)
 * @CUGI_STREAM_FLAGS_NON_BLOCKING: work on the stream runs concurrently with
 *   the legacy default stream, with no implicit synchronization between them
 *   (`CU_STREAM_NON_BLOCKING`)
 *
 * How a #CugiStream relates to its context's legacy default stream (the
 * stream cugi uses when a function is given %NULL for a stream).
 *
 * Since: 0.1
 */
typedef enum /*< flags >*/
{
  CUGI_STREAM_FLAGS_NONE         = 0,
  CUGI_STREAM_FLAGS_NON_BLOCKING = 1 << 0,
} CugiStreamFlags;

#define CUGI_TYPE_STREAM (cugi_stream_get_type ())
CUGI_AVAILABLE_IN_0_1
G_DECLARE_FINAL_TYPE (CugiStream, cugi_stream, CUGI, STREAM, GObject)

typedef void (*CugiStreamCallback) (CugiStream *stream,
                                    gpointer    user_data);

/* cugi-stream-callback.c */
CUGI_AVAILABLE_IN_0_1
gboolean        cugi_stream_add_callback         (CugiStream          *self,
                                                  CugiStreamCallback   func,
                                                  gpointer             user_data,
                                                  GDestroyNotify       notify,
                                                  GError             **error);

CUGI_AVAILABLE_IN_0_1
CugiStream     *cugi_stream_new                  (CugiContext         *context,
                                                  CugiStreamFlags      flags,
                                                  gint                 priority,
                                                  GError             **error);
CUGI_AVAILABLE_IN_0_1
CugiStream     *cugi_stream_new_for_handle       (CugiContext         *context,
                                                  guint64              handle,
                                                  GError             **error);

CUGI_AVAILABLE_IN_0_1
CugiContext    *cugi_stream_get_context          (CugiStream          *self);
CUGI_AVAILABLE_IN_0_1
CugiStreamFlags cugi_stream_get_flags            (CugiStream          *self);
CUGI_AVAILABLE_IN_0_1
gint            cugi_stream_get_priority         (CugiStream          *self);

CUGI_AVAILABLE_IN_0_1
gboolean        cugi_stream_query                (CugiStream          *self,
                                                  GError             **error);
CUGI_AVAILABLE_IN_0_1
gboolean        cugi_stream_synchronize          (CugiStream          *self,
                                                  GError             **error);
CUGI_AVAILABLE_IN_0_1
void            cugi_stream_synchronize_async    (CugiStream          *self,
                                                  GCancellable        *cancellable,
                                                  GAsyncReadyCallback  callback,
                                                  gpointer             user_data);
CUGI_AVAILABLE_IN_0_1
gboolean        cugi_stream_synchronize_finish   (CugiStream          *self,
                                                  GAsyncResult        *result,
                                                  GError             **error);
CUGI_AVAILABLE_IN_0_1
gboolean        cugi_stream_wait_event           (CugiStream          *self,
                                                  CugiEvent           *event,
                                                  GError             **error);

G_END_DECLS
