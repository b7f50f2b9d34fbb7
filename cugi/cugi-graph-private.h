/* cugi-graph-private.h: what executable graphs (cugi-graph-exec.c) read of
 * the graphs they are made from (cugi-graph.c), and what the files that
 * build graphs node by node (cugi-graph-node.c, cugi-graph-builder.c,
 * cugi-graph-conditional.c) share. Not installed. */
#pragma once

#include "cugi-private.h"
#include "cugi-context-private.h"

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

/* ---- building (cugi-graph.c) ---------------------------------------------- */

/* NOT_SUPPORTED naming @name when @entry_point is NULL (an older driver). */
gboolean     cugi_graph_require             (gpointer        entry_point,
                                             const char     *name,
                                             GError        **error);
/* The graph that owns what @self's nodes use: @self, or for a body of a
 * conditional node the graph that node is part of (borrowed). */
CugiGraph   *cugi_graph_get_root            (CugiGraph      *self);
/* A body of a conditional node of @parent, whose handle the driver owns. */
CugiGraph   *cugi_graph_new_body            (CugiGraph      *parent,
                                             CUgraph         handle);
/* Keeps @resources (transfer full; see cugi_work_resources_new()) for the
 * launches of @self, as long as it and its executable graphs live. */
void         cugi_graph_keep                (CugiGraph      *self,
                                             GPtrArray      *resources);
/* Remembers @kernel, for the argument checks of executable graphs. */
void         cugi_graph_keep_kernel         (CugiGraph      *self,
                                             CugiKernel     *kernel);
/* Counts a node just added to @self. */
void         cugi_graph_note_node           (CugiGraph      *self,
                                             CUgraphNode     node,
                                             CUgraphNodeType type);

/* ---- nodes (cugi-graph-node.c) ----------------------------------------------- */

CugiGraphNode *cugi_graph_node_new          (CugiGraph      *graph,
                                             CUgraphNode     handle,
                                             CugiGraphNodeType type);
CUgraphNode  cugi_graph_node_get_handle     (CugiGraphNode  *self);
/* The kernel of a kernel node, NULL for others (borrowed). */
CugiKernel  *cugi_graph_node_get_kernel     (CugiGraphNode  *self);
void         cugi_graph_node_set_kernel     (CugiGraphNode  *self,
                                             CugiKernel     *kernel);
void         cugi_graph_node_set_device_pointer (CugiGraphNode *self,
                                                 CUdeviceptr    address);
/* The bodies of a conditional node, which the driver made with it. */
void         cugi_graph_node_set_bodies     (CugiGraphNode  *self,
                                             const CUgraph  *bodies,
                                             guint           n_bodies);
/* The driver's handles of @dependencies (g_free() them), each checked to be
 * a node of @graph: INVALID_ARGUMENT naming the one that is not. */
gboolean     cugi_graph_node_collect        (CugiGraph      *graph,
                                             CugiGraphNode **dependencies,
                                             guint           n_dependencies,
                                             CUgraphNode   **handles,
                                             GError        **error);
/* The common start of the cugi_graph_add_*_node() functions: @graph usable,
 * @entry_point there, the context current, the dependencies collected. */
gboolean     cugi_graph_node_begin_add      (CugiGraph        *graph,
                                             gpointer          entry_point,
                                             const char       *name,
                                             CugiGraphNode   **dependencies,
                                             guint             n_dependencies,
                                             CugiContextScope *scope,
                                             CUgraphNode     **handles,
                                             GError          **error);

G_END_DECLS
