/* cugi-graph-private.h: what executable graphs (cugi-graph-exec.c) read of
 * the graphs they are made from (cugi-graph.c). Not installed. */
#pragma once

#include "cugi-private.h"

G_BEGIN_DECLS

/* INVALID_STATE for a graph made with g_object_new(), INVALID_CONTEXT for
 * one whose context was reset since. */
gboolean     cugi_graph_check               (CugiGraph      *self,
                                             GError        **error);
CUgraph      cugi_graph_get_handle          (CugiGraph      *self);
/* What the graph's launches use (borrowed): arrays of references. */
GPtrArray   *cugi_graph_get_resources       (CugiGraph      *self);
/* The kernel node @index, counting kernel nodes only, in the driver's order. */
gboolean     cugi_graph_get_kernel_node     (CugiGraph      *self,
                                             guint           index,
                                             CUgraphNode    *node,
                                             GError        **error);
/* The cugi kernel a captured launch used, or NULL (borrowed). */
CugiKernel  *cugi_graph_lookup_kernel       (CugiGraph      *self,
                                             CUfunction      function);

G_END_DECLS
