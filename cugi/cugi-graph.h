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

/**
 * CugiConditionalType:
 * @CUGI_CONDITIONAL_TYPE_IF: runs body 0 once when the condition is not 0
 *   (and body 1, if there is one, when it is 0)
 * @CUGI_CONDITIONAL_TYPE_WHILE: runs body 0 as long as the condition is not 0
 * @CUGI_CONDITIONAL_TYPE_SWITCH: runs body n when the condition is n
 *
 * What a conditional node does (cugi_graph_add_conditional_node()), the
 * driver's `CU_GRAPH_COND_TYPE_*` values.
 *
 * Since: 0.1
 */
typedef enum
{
  CUGI_CONDITIONAL_TYPE_IF = 0,
  CUGI_CONDITIONAL_TYPE_WHILE = 1,
  CUGI_CONDITIONAL_TYPE_SWITCH = 2,
} CugiConditionalType;

typedef void (*CugiGraphHostFunc) (gpointer user_data);

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
CugiGraph     *cugi_graph_new                   (CugiContext     *context,
                                                 GError         **error);

CUGI_AVAILABLE_IN_0_1
CugiGraphNode *cugi_graph_add_kernel_node       (CugiGraph         *self,
                                                 CugiGraphNode    **dependencies,
                                                 guint              n_dependencies,
                                                 CugiKernel        *kernel,
                                                 CugiLaunchConfig  *config,
                                                 CugiKernelArgs    *args,
                                                 GError           **error);
CUGI_AVAILABLE_IN_0_1
CugiGraphNode *cugi_graph_add_memset_node       (CugiGraph         *self,
                                                 CugiGraphNode    **dependencies,
                                                 guint              n_dependencies,
                                                 CugiBuffer        *buffer,
                                                 gsize              offset,
                                                 guint8             value,
                                                 gsize              size,
                                                 GError           **error);
CUGI_AVAILABLE_IN_0_1
CugiGraphNode *cugi_graph_add_copy_node         (CugiGraph         *self,
                                                 CugiGraphNode    **dependencies,
                                                 guint              n_dependencies,
                                                 CugiBuffer        *destination,
                                                 gsize              destination_offset,
                                                 CugiBuffer        *source,
                                                 gsize              source_offset,
                                                 gsize              size,
                                                 GError           **error);
CUGI_AVAILABLE_IN_0_1
CugiGraphNode *cugi_graph_add_host_node         (CugiGraph         *self,
                                                 CugiGraphNode    **dependencies,
                                                 guint              n_dependencies,
                                                 CugiGraphHostFunc  func,
                                                 gpointer           user_data,
                                                 GDestroyNotify     notify,
                                                 GError           **error);
CUGI_AVAILABLE_IN_0_1
CugiGraphNode *cugi_graph_add_event_record_node (CugiGraph         *self,
                                                 CugiGraphNode    **dependencies,
                                                 guint              n_dependencies,
                                                 CugiEvent         *event,
                                                 GError           **error);
CUGI_AVAILABLE_IN_0_1
CugiGraphNode *cugi_graph_add_event_wait_node   (CugiGraph         *self,
                                                 CugiGraphNode    **dependencies,
                                                 guint              n_dependencies,
                                                 CugiEvent         *event,
                                                 GError           **error);
CUGI_AVAILABLE_IN_0_1
CugiGraphNode *cugi_graph_add_child_graph_node  (CugiGraph         *self,
                                                 CugiGraphNode    **dependencies,
                                                 guint              n_dependencies,
                                                 CugiGraph         *child,
                                                 GError           **error);
CUGI_AVAILABLE_IN_0_1
CugiGraphNode *cugi_graph_add_empty_node        (CugiGraph         *self,
                                                 CugiGraphNode    **dependencies,
                                                 guint              n_dependencies,
                                                 GError           **error);
CUGI_AVAILABLE_IN_0_1
CugiGraphNode *cugi_graph_add_alloc_node        (CugiGraph         *self,
                                                 CugiGraphNode    **dependencies,
                                                 guint              n_dependencies,
                                                 gsize              size,
                                                 GError           **error);
CUGI_AVAILABLE_IN_0_1
CugiGraphNode *cugi_graph_add_free_node         (CugiGraph         *self,
                                                 CugiGraphNode    **dependencies,
                                                 guint              n_dependencies,
                                                 CugiGraphNode     *allocation,
                                                 GError           **error);
CUGI_AVAILABLE_IN_0_1
guint64        cugi_graph_create_condition      (CugiGraph         *self,
                                                 guint              default_value,
                                                 gboolean           set_default,
                                                 GError           **error);
CUGI_AVAILABLE_IN_0_1
CugiGraphNode *cugi_graph_add_conditional_node  (CugiGraph         *self,
                                                 CugiGraphNode    **dependencies,
                                                 guint              n_dependencies,
                                                 CugiConditionalType type,
                                                 guint64            condition,
                                                 guint              n_bodies,
                                                 GError           **error);

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
