/* cugi-graph-node.h: a node of a CUDA graph built node by node */
#pragma once

#if !defined(__CUGI_INSIDE__) && !defined(CUGI_COMPILATION)
#error "Only <cugi/cugi.h> can be included directly."
#endif

#include <gio/gio.h>
#include "cugi-version.h"
#include "cugi-types.h"

G_BEGIN_DECLS

/**
 * CugiGraphNodeType:
 * @CUGI_GRAPH_NODE_TYPE_KERNEL: a kernel launch
 * @CUGI_GRAPH_NODE_TYPE_MEMCPY: a copy
 * @CUGI_GRAPH_NODE_TYPE_MEMSET: a memset
 * @CUGI_GRAPH_NODE_TYPE_HOST: a host function
 * @CUGI_GRAPH_NODE_TYPE_GRAPH: a child graph
 * @CUGI_GRAPH_NODE_TYPE_EMPTY: nothing: a point that joins dependencies
 * @CUGI_GRAPH_NODE_TYPE_WAIT_EVENT: a wait for an event
 * @CUGI_GRAPH_NODE_TYPE_EVENT_RECORD: an event record
 * @CUGI_GRAPH_NODE_TYPE_MEM_ALLOC: an allocation of graph memory
 * @CUGI_GRAPH_NODE_TYPE_MEM_FREE: a free of graph memory
 * @CUGI_GRAPH_NODE_TYPE_CONDITIONAL: bodies run as a condition says
 *
 * What a #CugiGraphNode does, the driver's `CU_GRAPH_NODE_TYPE_*` values.
 *
 * Since: 0.1
 */
typedef enum
{
  CUGI_GRAPH_NODE_TYPE_KERNEL = 0,
  CUGI_GRAPH_NODE_TYPE_MEMCPY = 1,
  CUGI_GRAPH_NODE_TYPE_MEMSET = 2,
  CUGI_GRAPH_NODE_TYPE_HOST = 3,
  CUGI_GRAPH_NODE_TYPE_GRAPH = 4,
  CUGI_GRAPH_NODE_TYPE_EMPTY = 5,
  CUGI_GRAPH_NODE_TYPE_WAIT_EVENT = 6,
  CUGI_GRAPH_NODE_TYPE_EVENT_RECORD = 7,
  CUGI_GRAPH_NODE_TYPE_MEM_ALLOC = 10,
  CUGI_GRAPH_NODE_TYPE_MEM_FREE = 11,
  CUGI_GRAPH_NODE_TYPE_CONDITIONAL = 13,
} CugiGraphNodeType;

#define CUGI_TYPE_GRAPH_NODE (cugi_graph_node_get_type ())
CUGI_AVAILABLE_IN_0_1
G_DECLARE_FINAL_TYPE (CugiGraphNode, cugi_graph_node, CUGI, GRAPH_NODE, GObject)

CUGI_AVAILABLE_IN_0_1
CugiGraph         *cugi_graph_node_get_graph          (CugiGraphNode *self);
CUGI_AVAILABLE_IN_0_1
CugiGraphNodeType  cugi_graph_node_get_node_type      (CugiGraphNode *self);
CUGI_AVAILABLE_IN_0_1
guint64            cugi_graph_node_get_device_pointer (CugiGraphNode *self);
CUGI_AVAILABLE_IN_0_1
guint              cugi_graph_node_get_n_bodies       (CugiGraphNode *self);
CUGI_AVAILABLE_IN_0_1
CugiGraph         *cugi_graph_node_get_body           (CugiGraphNode *self,
                                                       guint          index,
                                                       GError       **error);

G_END_DECLS
