/* cugi-graph-exec.h: an executable CUDA graph */
#pragma once

#if !defined(__CUGI_INSIDE__) && !defined(CUGI_COMPILATION)
#error "Only <cugi/cugi.h> can be included directly."
#endif

#include <gio/gio.h>
#include "cugi-version.h"
#include "cugi-types.h"

G_BEGIN_DECLS

#define CUGI_TYPE_GRAPH_EXEC (cugi_graph_exec_get_type ())
CUGI_AVAILABLE_IN_0_1
G_DECLARE_FINAL_TYPE (CugiGraphExec, cugi_graph_exec, CUGI, GRAPH_EXEC, GObject)

CUGI_AVAILABLE_IN_0_1
CugiGraph *cugi_graph_exec_get_graph       (CugiGraphExec  *self);

CUGI_AVAILABLE_IN_0_1
gboolean   cugi_graph_exec_launch          (CugiGraphExec  *self,
                                            CugiStream     *stream,
                                            GError        **error);
CUGI_AVAILABLE_IN_0_1
gboolean   cugi_graph_exec_upload          (CugiGraphExec  *self,
                                            CugiStream     *stream,
                                            GError        **error);
CUGI_AVAILABLE_IN_0_1
gboolean   cugi_graph_exec_set_kernel_args (CugiGraphExec  *self,
                                            guint           kernel_node_index,
                                            CugiKernelArgs *args,
                                            GError        **error);
CUGI_AVAILABLE_IN_0_1
gboolean   cugi_graph_exec_set_kernel_node_args (CugiGraphExec  *self,
                                                 CugiGraphNode  *node,
                                                 CugiKernelArgs *args,
                                                 GError        **error);
CUGI_AVAILABLE_IN_0_1
gboolean   cugi_graph_exec_set_node_enabled (CugiGraphExec  *self,
                                             CugiGraphNode  *node,
                                             gboolean        enabled,
                                             GError        **error);
CUGI_AVAILABLE_IN_0_1
gboolean   cugi_graph_exec_get_node_enabled (CugiGraphExec  *self,
                                             CugiGraphNode  *node,
                                             GError        **error);
CUGI_AVAILABLE_IN_0_1
gboolean   cugi_graph_exec_update          (CugiGraphExec  *self,
                                            CugiGraph      *graph,
                                            GError        **error);

G_END_DECLS
