/* cugi-graph-conditional.c: conditional nodes (if, if/else, while, switch)
 * and the conditions device code sets */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "cugi-context-private.h"
#include "cugi-private.h"
#include "cugi-graph-private.h"

G_STATIC_ASSERT ((int) CUGI_CONDITIONAL_TYPE_IF == (int) CU_GRAPH_COND_TYPE_IF);
G_STATIC_ASSERT ((int) CUGI_CONDITIONAL_TYPE_WHILE == (int) CU_GRAPH_COND_TYPE_WHILE);
G_STATIC_ASSERT ((int) CUGI_CONDITIONAL_TYPE_SWITCH == (int) CU_GRAPH_COND_TYPE_SWITCH);
G_STATIC_ASSERT (sizeof (guint64) == sizeof (CUgraphConditionalHandle));

/**
 * cugi_graph_create_condition:
 * @self: the graph that will hold the conditional node using the condition
 * @default_value: the value each launch starts with, when @set_default
 * @set_default: whether each launch of the graph sets the condition to
 *   @default_value first; otherwise it keeps the value the last launch left
 * @error: return location for a #GError
 *
 * Makes a condition for a conditional node of @self
 * (cugi_graph_add_conditional_node()), which kernels of the graph set with
 * `cudaGraphSetConditional (handle, value)`: pass the handle to them with
 * cugi_kernel_args_add_condition(), for a `cudaGraphConditionalHandle` (an
 * `unsigned long long`) parameter. Compile such kernels with `-rdc=true`
 * and link them with the device runtime (cugi_linker_add_device_runtime());
 * with NVRTC, declare the function as
 * `extern "C" __device__ void cudaGraphSetConditional (unsigned long long handle, unsigned int value);`.
 *
 * Returns: the condition's handle, never 0; 0 with @error set on failure
 *
 * Since: 0.1
 */
guint64
cugi_graph_create_condition (CugiGraph *self,
                             guint      default_value,
                             gboolean   set_default,
                             GError   **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CUgraphConditionalHandle handle = 0;

  g_return_val_if_fail (CUGI_IS_GRAPH (self), 0);
  g_return_val_if_fail (error == NULL || *error == NULL, 0);

  if (!cugi_graph_check (self, error) ||
      !cugi_graph_require (cugi_cuda.cuGraphConditionalHandleCreate, "cuGraphConditionalHandleCreate", error) ||
      !cugi_context_enter (cugi_graph_get_context (self), &scope, error) ||
      !CUGI_CALL (cuGraphConditionalHandleCreate,
                  (&handle, cugi_graph_get_handle (self), cugi_context_get_handle (cugi_graph_get_context (self)),
                   default_value, set_default ? CU_GRAPH_COND_ASSIGN_DEFAULT : 0), error))
    return 0;
  return handle;
}

/* INVALID_ARGUMENT unless @n_bodies suits @type. */
static gboolean
check_bodies (CugiConditionalType type,
              guint               n_bodies,
              GError            **error)
{
  switch (type)
    {
    case CUGI_CONDITIONAL_TYPE_IF:
      if (n_bodies == 1 || n_bodies == 2)
        return TRUE;
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("An if node has 1 body, or 2 for if/else, not %u"), n_bodies);
      return FALSE;
    case CUGI_CONDITIONAL_TYPE_WHILE:
      if (n_bodies == 1)
        return TRUE;
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("A while node has 1 body, not %u"), n_bodies);
      return FALSE;
    case CUGI_CONDITIONAL_TYPE_SWITCH:
      if (n_bodies >= 1)
        return TRUE;
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                           _("A switch node needs at least 1 body"));
      return FALSE;
    default:
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("%d is not a CugiConditionalType"), (int) type);
      return FALSE;
    }
}

/**
 * cugi_graph_add_conditional_node:
 * @self: a graph
 * @dependencies: (array length=n_dependencies) (nullable): the nodes of
 *   @self that must complete before this one runs
 * @n_dependencies: the length of @dependencies
 * @type: if, while or switch
 * @condition: a condition made for @self by cugi_graph_create_condition()
 * @n_bodies: how many bodies: 1 for if and while, 2 for if/else (body 1
 *   runs when the condition is 0), any number from 1 for switch (body n
 *   runs when the condition is n, none when it is @n_bodies or more)
 * @error: return location for a #GError
 *
 * Adds a node that runs its bodies as @condition says when the launch gets
 * there: an if node its body once when the condition is not 0, a while
 * node its body again and again as long as the condition is not 0 after
 * it (a kernel of the body clears it to end the loop; the condition is read
 * first, so that a while node whose condition is 0 runs nothing), a switch
 * node the body of the condition's value. Add the nodes of the bodies to
 * the graphs cugi_graph_node_get_body() returns.
 *
 * Returns: (transfer full): the node, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiGraphNode *
cugi_graph_add_conditional_node (CugiGraph           *self,
                                 CugiGraphNode      **dependencies,
                                 guint                n_dependencies,
                                 CugiConditionalType  type,
                                 guint64              condition,
                                 guint                n_bodies,
                                 GError             **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  g_autofree CUgraphNode *handles = NULL;
  CUgraphNodeParams params = { 0 };
  CugiGraphNode *node;
  CUgraphNode handle;

  g_return_val_if_fail (CUGI_IS_GRAPH (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!check_bodies (type, n_bodies, error) ||
      !cugi_graph_node_begin_add (self, cugi_cuda.cuGraphAddNode, "cuGraphAddNode",
                                  dependencies, n_dependencies, &scope, &handles, error))
    return NULL;
  params.type = CU_GRAPH_NODE_TYPE_CONDITIONAL;
  params.conditional.handle = condition;
  params.conditional.type = (CUgraphConditionalNodeType) type;
  params.conditional.size = n_bodies;
  params.conditional.ctx = cugi_context_get_handle (cugi_graph_get_context (self));
  if (!CUGI_CALL (cuGraphAddNode, (&handle, cugi_graph_get_handle (self), handles, NULL, n_dependencies,
                                   &params), error))
    return NULL;
  node = cugi_graph_node_new (self, handle, CUGI_GRAPH_NODE_TYPE_CONDITIONAL);
  cugi_graph_node_set_bodies (node, params.conditional.phGraph_out, n_bodies);
  return node;
}
