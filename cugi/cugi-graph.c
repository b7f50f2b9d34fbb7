/* cugi-graph.c: CUDA graphs recorded by stream capture */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "cugi-context-private.h"
#include "cugi-private.h"
#include "cugi-launch-private.h"
#include "cugi-graph-private.h"
#include "cugi-stream-private.h"

/**
 * CugiGraph:
 *
 * A CUDA graph: work recorded once and replayed at the cost of a single
 * launch. cugi records graphs by stream capture, or builds them node by
 * node (cugi_graph_new(), then cugi_graph_add_kernel_node() and the other
 * `cugi_graph_add_*_node()` functions; see #CugiGraphNode). By capture:
 *
 * |[<!-- language="C" -->
 * cugi_graph_capture_begin (stream, CUGI_CAPTURE_MODE_GLOBAL, &error);
 * for (guint i = 0; i < 10; i++)
 *   cugi_kernel_launch (kernel, config_on_stream, args, &error);
 * graph = cugi_graph_capture_end (stream, &error);
 * exec = cugi_graph_instantiate (graph, &error);
 * cugi_graph_exec_launch (exec, stream, &error);
 * ]|
 *
 * While a stream is captured, work enqueued on it (launches, asynchronous
 * copies, memsets, event waits) is recorded instead of run. The buffers,
 * host buffers and bytes that captured work uses are kept alive by the
 * graph, and by the executable graphs made from it.
 *
 * The stream must be one made with cugi_stream_new(): the legacy default
 * stream cannot be captured.
 *
 * Since: 0.1
 */

struct _CugiGraph
{
  GObject      parent_instance;

  CugiContextBinding binding;
  CUgraph      handle;
  guint        node_count;
  GArray      *kernel_nodes;  /* CUgraphNode, in the driver's order */
  CugiCapturedWork *work;     /* what the launches use, and the kernels */
  /* For a body of a conditional node, which the driver owns: the graph it
   * is part of, which keeps what the body's nodes use (owned); NULL for a
   * graph of its own. */
  CugiGraph   *root;
};

G_DEFINE_FINAL_TYPE (CugiGraph, cugi_graph, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_CONTEXT,
  PROP_NODE_COUNT,
  PROP_KERNEL_NODE_COUNT,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_STATIC_ASSERT ((int) CUGI_CAPTURE_MODE_GLOBAL == (int) CU_STREAM_CAPTURE_MODE_GLOBAL);
G_STATIC_ASSERT ((int) CUGI_CAPTURE_MODE_THREAD_LOCAL == (int) CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
G_STATIC_ASSERT ((int) CUGI_CAPTURE_MODE_RELAXED == (int) CU_STREAM_CAPTURE_MODE_RELAXED);

/* ---- the graph ------------------------------------------------------------ */

static void
cugi_graph_finalize (GObject *object)
{
  CugiGraph *self = CUGI_GRAPH (object);

  /* After a reset of the context the graph is gone already. */
  if (self->handle != NULL && self->root == NULL && cugi_context_binding_is_current (&self->binding))
    {
      g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;

      /* A graph is independent of its executable graphs: nothing waits. */
      if (cugi_context_enter (self->binding.context, &scope, NULL))
        cugi_cuda.cuGraphDestroy (self->handle);
    }
  g_clear_pointer (&self->kernel_nodes, g_array_unref);
  g_clear_pointer (&self->work, cugi_captured_work_free);
  g_clear_object (&self->root);
  cugi_context_binding_clear (&self->binding);

  G_OBJECT_CLASS (cugi_graph_parent_class)->finalize (object);
}

static void
cugi_graph_get_property (GObject    *object,
                         guint       prop_id,
                         GValue     *value,
                         GParamSpec *pspec)
{
  CugiGraph *self = CUGI_GRAPH (object);

  switch (prop_id)
    {
    case PROP_CONTEXT:
      g_value_set_object (value, self->binding.context);
      break;
    case PROP_NODE_COUNT:
      g_value_set_uint (value, self->node_count);
      break;
    case PROP_KERNEL_NODE_COUNT:
      g_value_set_uint (value, self->kernel_nodes->len);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cugi_graph_class_init (CugiGraphClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = cugi_graph_finalize;
  object_class->get_property = cugi_graph_get_property;

  /**
   * CugiGraph:context:
   *
   * The context the graph was captured or made in.
   *
   * Since: 0.1
   */
  properties[PROP_CONTEXT] =
    g_param_spec_object ("context", NULL, NULL, CUGI_TYPE_CONTEXT,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * CugiGraph:node-count:
   *
   * The number of nodes of the graph: kernel launches, copies, memsets,
   * event records and waits, host functions, child graphs, allocations and
   * frees, conditional nodes. Nodes of child graphs and conditional bodies
   * are counted there.
   *
   * Since: 0.1
   */
  properties[PROP_NODE_COUNT] =
    g_param_spec_uint ("node-count", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  /**
   * CugiGraph:kernel-node-count:
   *
   * The number of kernel launches in the graph: the valid indices of
   * cugi_graph_exec_set_kernel_args() are below it.
   *
   * Since: 0.1
   */
  properties[PROP_KERNEL_NODE_COUNT] =
    g_param_spec_uint ("kernel-node-count", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
cugi_graph_init (CugiGraph *self)
{
  self->kernel_nodes = g_array_new (FALSE, FALSE, sizeof (CUgraphNode));
}

/* Takes @handle and @work. */
static CugiGraph *
graph_new (CugiContext      *context,
           CUgraph           handle,
           CugiCapturedWork *work)
{
  CugiGraph *graph = g_object_new (CUGI_TYPE_GRAPH, NULL);

  cugi_context_binding_init (&graph->binding, context, CUGI_CONTEXT_BINDING_NONE);
  graph->handle = handle;
  graph->work = work;
  return graph;
}

/* Lists the nodes of a captured graph once; nodes added later are noted as
 * they are (cugi_graph_note_node()). */
static gboolean
read_nodes (CugiGraph *self,
            GError   **error)
{
  g_autofree CUgraphNode *nodes = NULL;
  size_t count = 0;

  if (!CUGI_CALL (cuGraphGetNodes, (self->handle, NULL, &count), error))
    return FALSE;
  nodes = g_new0 (CUgraphNode, MAX (count, 1));
  if (!CUGI_CALL (cuGraphGetNodes, (self->handle, nodes, &count), error))
    return FALSE;
  self->node_count = count;
  for (size_t i = 0; i < count; i++)
    {
      CUgraphNodeType type;

      if (!CUGI_CALL (cuGraphNodeGetType, (nodes[i], &type), error))
        return FALSE;
      if (type == CU_GRAPH_NODE_TYPE_KERNEL)
        g_array_append_val (self->kernel_nodes, nodes[i]);
    }
  return TRUE;
}

/**
 * cugi_graph_capture_begin:
 * @stream: a stream made with cugi_stream_new()
 * @mode: which other calls the capture guards against
 * @error: return location for a #GError
 *
 * Starts recording the work enqueued on @stream into a graph, which
 * cugi_graph_capture_end() returns. Until then, that work does not run.
 *
 * Returns: %TRUE when the capture began
 *
 * Since: 0.1
 */
gboolean
cugi_graph_capture_begin (CugiStream      *stream,
                          CugiCaptureMode  mode,
                          GError         **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CUstream handle;

  g_return_val_if_fail (CUGI_IS_STREAM (stream), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if ((int) mode < CUGI_CAPTURE_MODE_GLOBAL || mode > CUGI_CAPTURE_MODE_RELAXED)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("%d is not a CugiCaptureMode"), (int) mode);
      return FALSE;
    }
  if (!cugi_stream_check (stream, error))
    return FALSE;
  if ((handle = cugi_stream_get_handle (stream)) == NULL)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                           _("The legacy default stream cannot be captured: use a stream made with cugi_stream_new()"));
      return FALSE;
    }
  if (cugi_cuda.cuStreamGetCaptureInfo == NULL)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_NOT_SUPPORTED,
                           _("This NVIDIA driver cannot report stream captures (no cuStreamGetCaptureInfo)"));
      return FALSE;
    }
  if (!cugi_context_enter (cugi_stream_get_context (stream), &scope, error) ||
      !CUGI_CALL (cuStreamBeginCapture, (handle, (CUstreamCaptureMode) mode), error))
    return FALSE;

  if (!cugi_work_begin_capture (stream, error))
    {
      CUgraph abandoned = NULL;

      if (cugi_cuda.cuStreamEndCapture (handle, &abandoned) == CUDA_SUCCESS && abandoned != NULL)
        cugi_cuda.cuGraphDestroy (abandoned);
      return FALSE;
    }
  return TRUE;
}

/**
 * cugi_graph_capture_end:
 * @stream: the stream cugi_graph_capture_begin() was called on
 * @error: return location for a #GError
 *
 * Ends the capture of @stream and returns the graph of the work recorded.
 * A capture broken by an unsafe call (see #CugiCaptureMode) fails here.
 *
 * Returns: (transfer full): the graph, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiGraph *
cugi_graph_capture_end (CugiStream *stream,
                        GError    **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  g_autoptr(CugiCapturedWork) work = NULL;
  g_autoptr(CugiGraph) graph = NULL;
  CugiContext *context;
  CUgraph recorded = NULL;

  g_return_val_if_fail (CUGI_IS_STREAM (stream), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!cugi_stream_check (stream, error))
    return NULL;
  context = cugi_stream_get_context (stream);
  /* Unregistered before the capture ends, so no launch can add to it after. */
  if (!cugi_context_enter (context, &scope, error) ||
      (work = cugi_work_end_capture (stream, error)) == NULL ||
      !CUGI_CALL (cuStreamEndCapture, (cugi_stream_get_handle (stream), &recorded), error))
    return NULL;

  graph = graph_new (context, recorded, g_steal_pointer (&work));
  if (!read_nodes (graph, error))
    return NULL;
  return g_steal_pointer (&graph);
}

/**
 * cugi_graph_new:
 * @context: (nullable): a context, or %NULL for the default one
 * @error: return location for a #GError
 *
 * Makes an empty graph, to be built node by node: cugi_graph_add_kernel_node()
 * and the other `cugi_graph_add_*_node()` functions add work to it, each
 * after the nodes it depends on.
 *
 * Returns: (transfer full): the graph, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiGraph *
cugi_graph_new (CugiContext *context,
                GError     **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  g_autoptr(CugiContext) resolved = NULL;
  CUgraph handle = NULL;

  g_return_val_if_fail (context == NULL || CUGI_IS_CONTEXT (context), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  /* Resolved first: that loads the driver, whose table the check reads. */
  if ((resolved = cugi_context_resolve (context, error)) == NULL ||
      !cugi_graph_require (cugi_cuda.cuGraphCreate, "cuGraphCreate", error) ||
      !cugi_context_enter (resolved, &scope, error) ||
      !CUGI_CALL (cuGraphCreate, (&handle, 0), error))
    return NULL;
  return graph_new (resolved, handle, cugi_captured_work_new (0));
}

/**
 * cugi_graph_get_context:
 * @self: a graph
 *
 * Returns: (transfer none): the context @self was captured or made in
 *
 * Since: 0.1
 */
CugiContext *
cugi_graph_get_context (CugiGraph *self)
{
  g_return_val_if_fail (CUGI_IS_GRAPH (self), NULL);

  return self->binding.context;
}

/**
 * cugi_graph_get_node_count:
 * @self: a graph
 *
 * Returns: the number of nodes of @self (#CugiGraph:node-count)
 *
 * Since: 0.1
 */
guint
cugi_graph_get_node_count (CugiGraph *self)
{
  g_return_val_if_fail (CUGI_IS_GRAPH (self), 0);

  return self->node_count;
}

/**
 * cugi_graph_get_kernel_node_count:
 * @self: a graph
 *
 * Returns: the number of kernel launches in @self
 *   (#CugiGraph:kernel-node-count)
 *
 * Since: 0.1
 */
guint
cugi_graph_get_kernel_node_count (CugiGraph *self)
{
  g_return_val_if_fail (CUGI_IS_GRAPH (self), 0);

  return self->kernel_nodes->len;
}

gboolean
cugi_graph_check (CugiGraph *self,
                  GError   **error)
{
  if (self->handle == NULL)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE,
                           _("This graph was not made by cugi_graph_capture_end() or cugi_graph_new()"));
      return FALSE;
    }
  return cugi_context_binding_check (&self->binding, N_("The graph is gone: its context was reset since"), error);
}

CUgraph
cugi_graph_get_handle (CugiGraph *self)
{
  return self->handle;
}

GPtrArray *
cugi_graph_get_resources (CugiGraph *self)
{
  return cugi_graph_get_root (self)->work->resources;
}

CugiGraph *
cugi_graph_get_root (CugiGraph *self)
{
  return self->root != NULL ? self->root : self;
}

CugiGraph *
cugi_graph_new_body (CugiGraph *parent,
                     CUgraph    handle)
{
  CugiGraph *body = graph_new (parent->binding.context, handle, NULL);

  body->root = g_object_ref (cugi_graph_get_root (parent));
  return body;
}

void
cugi_graph_keep (CugiGraph *self,
                 GPtrArray *resources)
{
  g_ptr_array_add (cugi_graph_get_root (self)->work->resources, resources);
}

void
cugi_graph_keep_kernel (CugiGraph  *self,
                        CugiKernel *kernel)
{
  GHashTable *kernels = cugi_graph_get_root (self)->work->kernels;

  if (!g_hash_table_contains (kernels, kernel))
    g_hash_table_add (kernels, g_object_ref (kernel));
}

void
cugi_graph_note_node (CugiGraph      *self,
                      CUgraphNode     node,
                      CUgraphNodeType type)
{
  self->node_count++;
  if (type == CU_GRAPH_NODE_TYPE_KERNEL)
    g_array_append_val (self->kernel_nodes, node);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_NODE_COUNT]);
  if (type == CU_GRAPH_NODE_TYPE_KERNEL)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_KERNEL_NODE_COUNT]);
}

gboolean
cugi_graph_require (gpointer    entry_point,
                    const char *name,
                    GError    **error)
{
  if (entry_point != NULL)
    return TRUE;
  g_set_error (error, CUGI_ERROR, CUGI_ERROR_NOT_SUPPORTED,
               _("This NVIDIA driver cannot build graphs node by node (no %s)"), name);
  return FALSE;
}

gboolean
cugi_graph_get_kernel_node (CugiGraph   *self,
                            guint        index,
                            CUgraphNode *node,
                            GError     **error)
{
  if (index >= self->kernel_nodes->len)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   g_dngettext (GETTEXT_PACKAGE,
                                "There is no kernel node %u: the graph has %u kernel node",
                                "There is no kernel node %u: the graph has %u kernel nodes",
                                self->kernel_nodes->len),
                   index, self->kernel_nodes->len);
      return FALSE;
    }
  *node = g_array_index (self->kernel_nodes, CUgraphNode, index);
  return TRUE;
}

CugiKernel *
cugi_graph_lookup_kernel (CugiGraph  *self,
                          CUfunction  function)
{
  GHashTableIter iter;
  gpointer kernel;

  /* Few kernels, looked up only when arguments change. */
  g_hash_table_iter_init (&iter, cugi_graph_get_root (self)->work->kernels);
  while (g_hash_table_iter_next (&iter, &kernel, NULL))
    if (cugi_kernel_get_function (kernel) == function)
      return kernel;
  return NULL;
}
