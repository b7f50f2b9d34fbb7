/* cugi-graph-node.c: a node of a CUDA graph built node by node */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "cugi-context-private.h"
#include "cugi-private.h"
#include "cugi-graph-private.h"

/**
 * CugiGraphNode:
 *
 * One node of a #CugiGraph built node by node: what
 * cugi_graph_add_kernel_node() and the other `cugi_graph_add_*_node()`
 * functions return, to name as a dependency of the nodes added after it,
 * and in an executable graph made from the graph, to change
 * (cugi_graph_exec_set_kernel_node_args()) or to switch off and on
 * (cugi_graph_exec_set_node_enabled()).
 *
 * A node keeps its graph alive. An allocation node tells the address of
 * the memory it allocates (#CugiGraphNode:device-pointer); a conditional
 * node has bodies, graphs to add the nodes it runs to
 * (cugi_graph_node_get_body()).
 *
 * Since: 0.1
 */

struct _CugiGraphNode
{
  GObject            parent_instance;

  CugiGraph         *graph;
  CUgraphNode        handle;
  CugiGraphNodeType  node_type;
  CugiKernel        *kernel;          /* kernel nodes: for argument checks */
  CUdeviceptr        device_pointer;  /* allocation nodes */
  GPtrArray         *bodies;          /* conditional nodes: CugiGraph */
};

G_DEFINE_FINAL_TYPE (CugiGraphNode, cugi_graph_node, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_GRAPH,
  PROP_NODE_TYPE,
  PROP_DEVICE_POINTER,
  PROP_N_BODIES,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
cugi_graph_node_finalize (GObject *object)
{
  CugiGraphNode *self = CUGI_GRAPH_NODE (object);

  g_clear_pointer (&self->bodies, g_ptr_array_unref);
  g_clear_object (&self->kernel);
  g_clear_object (&self->graph);

  G_OBJECT_CLASS (cugi_graph_node_parent_class)->finalize (object);
}

static void
cugi_graph_node_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  CugiGraphNode *self = CUGI_GRAPH_NODE (object);

  switch (prop_id)
    {
    case PROP_GRAPH:
      g_value_set_object (value, self->graph);
      break;
    case PROP_NODE_TYPE:
      g_value_set_enum (value, self->node_type);
      break;
    case PROP_DEVICE_POINTER:
      g_value_set_uint64 (value, self->device_pointer);
      break;
    case PROP_N_BODIES:
      g_value_set_uint (value, cugi_graph_node_get_n_bodies (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cugi_graph_node_class_init (CugiGraphNodeClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = cugi_graph_node_finalize;
  object_class->get_property = cugi_graph_node_get_property;

  /**
   * CugiGraphNode:graph:
   *
   * The graph the node is part of (a conditional node's body, for the
   * nodes added to one).
   *
   * Since: 0.1
   */
  properties[PROP_GRAPH] =
    g_param_spec_object ("graph", NULL, NULL, CUGI_TYPE_GRAPH,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  /**
   * CugiGraphNode:node-type:
   *
   * What the node does.
   *
   * Since: 0.1
   */
  properties[PROP_NODE_TYPE] =
    g_param_spec_enum ("node-type", NULL, NULL, CUGI_TYPE_GRAPH_NODE_TYPE, CUGI_GRAPH_NODE_TYPE_EMPTY,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  /**
   * CugiGraphNode:device-pointer:
   *
   * For an allocation node, the device address of the memory it
   * allocates, which the nodes after it (and before the free node that
   * frees it) use: pass it to kernels with cugi_kernel_args_add_pointer().
   * 0 for other nodes.
   *
   * Since: 0.1
   */
  properties[PROP_DEVICE_POINTER] =
    g_param_spec_uint64 ("device-pointer", NULL, NULL, 0, G_MAXUINT64, 0,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  /**
   * CugiGraphNode:n-bodies:
   *
   * For a conditional node, the number of its bodies; 0 for other nodes.
   *
   * Since: 0.1
   */
  properties[PROP_N_BODIES] =
    g_param_spec_uint ("n-bodies", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
cugi_graph_node_init (CugiGraphNode *self)
{
  self->node_type = CUGI_GRAPH_NODE_TYPE_EMPTY;
}

CugiGraphNode *
cugi_graph_node_new (CugiGraph        *graph,
                     CUgraphNode       handle,
                     CugiGraphNodeType type)
{
  CugiGraphNode *self = g_object_new (CUGI_TYPE_GRAPH_NODE, NULL);

  self->graph = g_object_ref (graph);
  self->handle = handle;
  self->node_type = type;
  cugi_graph_note_node (graph, handle, (CUgraphNodeType) type);
  return self;
}

/**
 * cugi_graph_node_get_graph:
 * @self: a node
 *
 * Returns: (transfer none) (nullable): the graph @self is part of; %NULL
 *   for an object not made by a `cugi_graph_add_*_node()` function
 *
 * Since: 0.1
 */
CugiGraph *
cugi_graph_node_get_graph (CugiGraphNode *self)
{
  g_return_val_if_fail (CUGI_IS_GRAPH_NODE (self), NULL);

  return self->graph;
}

/**
 * cugi_graph_node_get_node_type:
 * @self: a node
 *
 * Returns: what @self does (#CugiGraphNode:node-type)
 *
 * Since: 0.1
 */
CugiGraphNodeType
cugi_graph_node_get_node_type (CugiGraphNode *self)
{
  g_return_val_if_fail (CUGI_IS_GRAPH_NODE (self), CUGI_GRAPH_NODE_TYPE_EMPTY);

  return self->node_type;
}

/**
 * cugi_graph_node_get_device_pointer:
 * @self: a node
 *
 * Returns: for an allocation node, the address of its memory
 *   (#CugiGraphNode:device-pointer); 0 otherwise
 *
 * Since: 0.1
 */
guint64
cugi_graph_node_get_device_pointer (CugiGraphNode *self)
{
  g_return_val_if_fail (CUGI_IS_GRAPH_NODE (self), 0);

  return self->device_pointer;
}

/**
 * cugi_graph_node_get_n_bodies:
 * @self: a node
 *
 * Returns: for a conditional node, the number of its bodies
 *   (#CugiGraphNode:n-bodies); 0 otherwise
 *
 * Since: 0.1
 */
guint
cugi_graph_node_get_n_bodies (CugiGraphNode *self)
{
  g_return_val_if_fail (CUGI_IS_GRAPH_NODE (self), 0);

  return self->bodies != NULL ? self->bodies->len : 0;
}

/**
 * cugi_graph_node_get_body:
 * @self: a conditional node
 * @index: which body, from 0: for an if node, 0 runs when the condition is
 *   not 0 and 1 (with two bodies) when it is; for a while node, 0; for a
 *   switch node, the body of the condition's value
 * @error: return location for a #GError
 *
 * Returns a body of @self, a graph to add the nodes it runs to with the
 * `cugi_graph_add_*_node()` functions. The driver allows kernels, memsets,
 * copies, empty nodes, child graphs and conditional nodes in bodies.
 *
 * Returns: (transfer full): the body, or %NULL with @error set
 *   (%CUGI_ERROR_INVALID_ARGUMENT: @self is no conditional node, or has
 *   fewer bodies)
 *
 * Since: 0.1
 */
CugiGraph *
cugi_graph_node_get_body (CugiGraphNode *self,
                          guint          index,
                          GError       **error)
{
  guint n_bodies;

  g_return_val_if_fail (CUGI_IS_GRAPH_NODE (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  n_bodies = cugi_graph_node_get_n_bodies (self);
  if (index >= n_bodies)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   g_dngettext (GETTEXT_PACKAGE,
                                "There is no body %u: the node has %u body",
                                "There is no body %u: the node has %u bodies",
                                n_bodies),
                   index, n_bodies);
      return NULL;
    }
  return g_object_ref (g_ptr_array_index (self->bodies, index));
}

CUgraphNode
cugi_graph_node_get_handle (CugiGraphNode *self)
{
  return self->handle;
}

CugiKernel *
cugi_graph_node_get_kernel (CugiGraphNode *self)
{
  return self->kernel;
}

void
cugi_graph_node_set_kernel (CugiGraphNode *self,
                            CugiKernel    *kernel)
{
  g_set_object (&self->kernel, kernel);
}

void
cugi_graph_node_set_device_pointer (CugiGraphNode *self,
                                    CUdeviceptr    address)
{
  self->device_pointer = address;
}

void
cugi_graph_node_set_bodies (CugiGraphNode *self,
                            const CUgraph *bodies,
                            guint          n_bodies)
{
  self->bodies = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < n_bodies; i++)
    g_ptr_array_add (self->bodies, cugi_graph_new_body (self->graph, bodies[i]));
}

gboolean
cugi_graph_node_collect (CugiGraph      *graph,
                         CugiGraphNode **dependencies,
                         guint           n_dependencies,
                         CUgraphNode   **handles,
                         GError        **error)
{
  g_autofree CUgraphNode *collected = g_new0 (CUgraphNode, MAX (n_dependencies, 1));

  if (n_dependencies > 0 && dependencies == NULL)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("%u dependencies were announced but none given"), n_dependencies);
      return FALSE;
    }
  for (guint i = 0; i < n_dependencies; i++)
    {
      CugiGraphNode *dependency = dependencies[i];

      if (!CUGI_IS_GRAPH_NODE (dependency) || dependency->graph == NULL)
        {
          g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                       _("Dependency %u is not a node made by a cugi_graph_add_*_node() function"), i);
          return FALSE;
        }
      if (dependency->graph != graph)
        {
          g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                       _("Dependency %u is a node of another graph: a node can depend only on nodes "
                         "of its own graph"), i);
          return FALSE;
        }
      for (guint j = 0; j < i; j++)
        if (collected[j] == dependency->handle)
          {
            g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                         _("Dependency %u is named twice (also as dependency %u)"), i, j);
            return FALSE;
          }
      collected[i] = dependency->handle;
    }
  *handles = g_steal_pointer (&collected);
  return TRUE;
}

gboolean
cugi_graph_node_begin_add (CugiGraph        *graph,
                           gpointer          entry_point,
                           const char       *name,
                           CugiGraphNode   **dependencies,
                           guint             n_dependencies,
                           CugiContextScope *scope,
                           CUgraphNode     **handles,
                           GError          **error)
{
  return cugi_graph_check (graph, error) &&
         cugi_graph_require (entry_point, name, error) &&
         cugi_graph_node_collect (graph, dependencies, n_dependencies, handles, error) &&
         cugi_context_enter (cugi_graph_get_context (graph), scope, error);
}
