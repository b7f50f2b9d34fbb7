/* cugi-graph.h: CUDA graphs recorded by stream capture */
#pragma once

#if !defined(__CUGI_INSIDE__) && !defined(CUGI_COMPILATION)
#error "Only <cugi/cugi.h> can be included directly."
#endif

#include <gio/gio.h>
#include "cugi-version.h"
#include "cugi-types.h"

G_BEGIN_DECLS

/**
 * CugiCaptureMode:
 * @CUGI_CAPTURE_MODE_GLOBAL: while the capture lasts, any thread's unsafe
 *   call (one that would synchronize with the captured work, such as a
 *   synchronous copy or cugi_context_synchronize()) fails instead of
 *   breaking the capture
 * @CUGI_CAPTURE_MODE_THREAD_LOCAL: only the capturing thread's unsafe calls
 *   fail
 * @CUGI_CAPTURE_MODE_RELAXED: no call is refused; the caller takes care
 *
 * How a stream capture guards against calls that would disturb it, the
 * driver's `CU_STREAM_CAPTURE_MODE_*` values.
 *
 * Since: 0.1
 */
typedef enum
{
  CUGI_CAPTURE_MODE_GLOBAL = 0,
  CUGI_CAPTURE_MODE_THREAD_LOCAL = 1,
  CUGI_CAPTURE_MODE_RELAXED = 2,
} CugiCaptureMode;

#define CUGI_TYPE_GRAPH (cugi_graph_get_type ())
CUGI_AVAILABLE_IN_0_1
G_DECLARE_FINAL_TYPE (CugiGraph, cugi_graph, CUGI, GRAPH, GObject)

CUGI_AVAILABLE_IN_0_1
gboolean       cugi_graph_capture_begin         (CugiStream      *stream,
                                                 CugiCaptureMode  mode,
                                                 GError         **error);
CUGI_AVAILABLE_IN_0_1
CugiGraph     *cugi_graph_capture_end           (CugiStream      *stream,
                                                 GError         **error);

CUGI_AVAILABLE_IN_0_1
CugiContext   *cugi_graph_get_context           (CugiGraph       *self);
CUGI_AVAILABLE_IN_0_1
guint          cugi_graph_get_node_count        (CugiGraph       *self);
CUGI_AVAILABLE_IN_0_1
guint          cugi_graph_get_kernel_node_count (CugiGraph       *self);

CUGI_AVAILABLE_IN_0_1
CugiGraphExec *cugi_graph_instantiate           (CugiGraph       *self,
                                                 GError         **error);

G_END_DECLS
