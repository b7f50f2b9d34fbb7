/* cugi-graph-exec.c: an executable CUDA graph */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "cugi-context-private.h"
#include "cugi-private.h"
#include "cugi-launch-private.h"
#include "cugi-graph-private.h"
#include "cugi-stream-private.h"

/**
 * CugiGraphExec:
 *
 * An executable graph, made from a #CugiGraph by cugi_graph_instantiate():
 * all of its work enqueued by one cugi_graph_exec_launch().
 *
 * The arguments of its kernels can be changed between launches with
 * cugi_graph_exec_set_kernel_args(), and the whole of it replaced by
 * another graph of the same shape with cugi_graph_exec_update(), both much
 * cheaper than instantiating again. Launches already enqueued keep the
 * arguments and buffers they were launched with.
 *
 * Since: 0.1
 */

struct _CugiGraphExec
{
  GObject      parent_instance;

  /* What every launch reads comes first, together: the driver's own work
   * between two launches evicts what a launch touched. */
  CUgraphExec  handle;
  /* The binding's CUDA context, for launches to compare with the current
   * one without a call. */
  CUcontext    context_handle;
  /* The stream of the launches since resources was made (cugi_stream_pin()),
   * as argument lists pin theirs: launches there need no tracking of their
   * own, and resources go to it when they change. Atomic; NULL before a
   * launch. */
  CugiStream  *pinned_stream;
  CugiContextBinding binding;   /* to the generation it was instantiated in */
  /* The address epoch in which the binding was last found current (see
   * cugi_context_binding_is_current_in_epoch()), 0 for none. Atomic. */
  gsize        current_epoch;

  /* The driver names nodes of an executable graph by the nodes of the graph
   * it was instantiated from, even after updates from other graphs. */
  CugiGraph   *instantiated;
  CugiGraph   *graph;           /* the latest: node parameters, kernels */

  GMutex       lock;            /* guards the two below, and pinned_stream's changes */
  GHashTable  *node_resources;  /* kernel CUgraphNode → buffers of its new args */
  /* What a launch must keep alive: the graph's resources and those of
   * changed nodes. Immutable: a change makes a new one. */
  GPtrArray   *resources;
};

G_DEFINE_FINAL_TYPE (CugiGraphExec, cugi_graph_exec, G_TYPE_OBJECT)

/* For the launch's type check: see cugi_is_final_instance(). */
static CugiGraphExecClass *graph_exec_class;

enum
{
  PROP_0,
  PROP_GRAPH,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
cugi_graph_exec_finalize (GObject *object)
{
  CugiGraphExec *self = CUGI_GRAPH_EXEC (object);

  /* After a reset of the context the executable graph is gone already. */
  if (self->handle != NULL && cugi_context_binding_is_current (&self->binding))
    {
      g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;

      /* An executable graph still running is freed when it completes. */
      if (cugi_context_enter (self->binding.context, &scope, NULL))
        cugi_cuda.cuGraphExecDestroy (self->handle);
    }
  g_clear_pointer (&self->node_resources, g_hash_table_unref);
  /* Launches in flight keep what they use until they have completed. */
  if (self->pinned_stream != NULL)
    cugi_stream_unpin (g_steal_pointer (&self->pinned_stream), g_steal_pointer (&self->resources));
  g_clear_pointer (&self->resources, g_ptr_array_unref);
  g_clear_object (&self->graph);
  g_clear_object (&self->instantiated);
  cugi_context_binding_clear (&self->binding);
  g_mutex_clear (&self->lock);

  G_OBJECT_CLASS (cugi_graph_exec_parent_class)->finalize (object);
}

static void
cugi_graph_exec_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  CugiGraphExec *self = CUGI_GRAPH_EXEC (object);

  switch (prop_id)
    {
    case PROP_GRAPH:
      g_value_take_object (value, cugi_graph_exec_get_graph (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cugi_graph_exec_class_init (CugiGraphExecClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  graph_exec_class = klass;
  object_class->finalize = cugi_graph_exec_finalize;
  object_class->get_property = cugi_graph_exec_get_property;

  /**
   * CugiGraphExec:graph:
   *
   * The graph @self was made from, or last updated from with
   * cugi_graph_exec_update().
   *
   * Since: 0.1
   */
  properties[PROP_GRAPH] =
    g_param_spec_object ("graph", NULL, NULL, CUGI_TYPE_GRAPH,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
cugi_graph_exec_init (CugiGraphExec *self)
{
  g_mutex_init (&self->lock);
  self->node_resources = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL,
                                                (GDestroyNotify) g_ptr_array_unref);
}

/* Makes the resources of launches to come; called with the lock held. The
 * launches enqueued so far on the pinned stream may use the old resources
 * or, when they came after the driver took the change, the new ones: what
 * they keep alive (transfer full, for cugi_stream_unpin() on @pinned) is
 * returned, and the pin let go, so that the next launch pins the new ones. */
static GPtrArray *
rebuild_resources (CugiGraphExec *self,
                   CugiStream   **pinned)
{
  GPtrArray *resources = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  GPtrArray *in_flight = NULL;
  GHashTableIter iter;
  gpointer node_resources;

  g_ptr_array_add (resources, g_ptr_array_ref (cugi_graph_get_resources (self->graph)));
  g_hash_table_iter_init (&iter, self->node_resources);
  while (g_hash_table_iter_next (&iter, NULL, &node_resources))
    g_ptr_array_add (resources, g_ptr_array_ref (node_resources));
  *pinned = g_atomic_pointer_exchange (&self->pinned_stream, NULL);
  if (*pinned != NULL)
    {
      in_flight = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
      g_ptr_array_add (in_flight, g_steal_pointer (&self->resources));
      g_ptr_array_add (in_flight, g_ptr_array_ref (resources));
    }
  g_clear_pointer (&self->resources, g_ptr_array_unref);
  self->resources = resources;
  return in_flight;
}

/* Takes the resources of launches to come after a change of nodes, and
 * hands those of the launches so far to their stream. */
static void
change_resources (CugiGraphExec *self)
{
  CugiStream *pinned = NULL;
  GPtrArray *in_flight;

  g_mutex_lock (&self->lock);
  in_flight = rebuild_resources (self, &pinned);
  g_mutex_unlock (&self->lock);
  if (pinned != NULL)
    cugi_stream_unpin (pinned, in_flight);
}

static CugiGraphExec *
graph_exec_new (CugiGraph *graph,
                GError   **error)
{
  g_autoptr(CugiGraphExec) self = NULL;
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CugiContext *context = cugi_graph_get_context (graph);
  CUgraphExec handle = NULL;

  if (!cugi_context_enter (context, &scope, error) ||
      !CUGI_CALL (cuGraphInstantiateWithFlags, (&handle, cugi_graph_get_handle (graph), 0), error))
    return NULL;

  self = g_object_new (CUGI_TYPE_GRAPH_EXEC, NULL);
  cugi_context_binding_init (&self->binding, context, CUGI_CONTEXT_BINDING_NONE);
  self->instantiated = g_object_ref (graph);
  self->graph = g_object_ref (graph);
  self->handle = handle;
  self->context_handle = cugi_context_get_handle (context);
  change_resources (self);
  return g_steal_pointer (&self);
}

/* Here rather than in cugi-graph.c: executable graphs are made from graphs,
 * so this file calls that one, never the other way round. */

/**
 * cugi_graph_instantiate:
 * @self: a graph
 * @error: return location for a #GError
 *
 * Makes an executable graph from @self, which can be launched any number of
 * times. @self may then be changed or dropped: the executable graph keeps
 * what it needs.
 *
 * Returns: (transfer full): the executable graph, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiGraphExec *
cugi_graph_instantiate (CugiGraph *self,
                        GError   **error)
{
  g_return_val_if_fail (CUGI_IS_GRAPH (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!cugi_graph_check (self, error))
    return NULL;
  return graph_exec_new (self, error);
}

/* Makes the context current for a call on @self, which must be usable. */
static gboolean
enter (CugiGraphExec    *self,
       CugiContextScope *scope,
       GError          **error)
{
  if (self->handle == NULL)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE,
                           _("This executable graph was not made by cugi_graph_instantiate()"));
      return FALSE;
    }
  return cugi_context_binding_enter (&self->binding, scope,
                                     N_("The executable graph is gone: its context was reset since"), error);
}

/**
 * cugi_graph_exec_get_graph:
 * @self: an executable graph
 *
 * Returns: (transfer full) (nullable): the graph @self was made or last
 *   updated from; %NULL for an object not made by cugi_graph_instantiate()
 *
 * Since: 0.1
 */
CugiGraph *
cugi_graph_exec_get_graph (CugiGraphExec *self)
{
  CugiGraph *graph;

  g_return_val_if_fail (CUGI_IS_GRAPH_EXEC (self), NULL);

  g_mutex_lock (&self->lock);
  graph = self->graph != NULL ? g_object_ref (self->graph) : NULL;
  g_mutex_unlock (&self->lock);
  return graph;
}

/* The stream a launch or an upload goes to, in the graph's context. */
static CugiStream *
resolve_stream (CugiGraphExec *self,
                CugiStream    *stream,
                GError       **error)
{
  if (stream != NULL &&
      (!cugi_stream_check (stream, error) ||
       !cugi_context_binding_check_same_context (&self->binding, cugi_stream_get_context (stream),
                                                 N_("The stream belongs to another context than the graph"),
                                                 error)))
    return NULL;
  return cugi_stream_resolve (stream, self->binding.context);
}

/* Hands the resources of the launches so far to the stream they went to,
 * for that work to complete, and pins @stream for those to come. */
static void
move_pin (CugiGraphExec *self,
          CugiStream    *stream)
{
  CugiStream *previous = NULL;
  GPtrArray *handed_over = NULL;

  g_mutex_lock (&self->lock);
  if (self->pinned_stream != stream)
    {
      previous = self->pinned_stream;
      if (previous != NULL)
        handed_over = g_ptr_array_ref (self->resources);
      g_atomic_pointer_set (&self->pinned_stream, cugi_stream_pin (stream));
    }
  g_mutex_unlock (&self->lock);

  if (previous != NULL)
    cugi_stream_unpin (previous, handed_over);
}

/* What a launch uses must outlive it. Outside captures, @self keeps its
 * resources itself, pinned to the stream of its launches, so that launching
 * again and again on one stream costs a read or two; otherwise
 * cugi_work_track() decides where they go. The launch is enqueued: if
 * another thread moves the pin away after the read, the stream it hands the
 * resources to has this launch to do. */
static inline void
track_launch (CugiGraphExec *self,
              CugiStream    *stream)
{
  GPtrArray *resources;

  if (G_LIKELY (!cugi_work_has_captures ()))
    {
      if (G_UNLIKELY (g_atomic_pointer_get (&self->pinned_stream) != stream))
        move_pin (self, stream);
      cugi_stream_track_pinned_work (stream);
      return;
    }
  g_mutex_lock (&self->lock);
  resources = g_ptr_array_ref (self->resources);
  g_mutex_unlock (&self->lock);
  cugi_work_track (stream, NULL, resources);
}

/* cuGraphLaunch of @self on @stream, tracked once enqueued. */
static G_ALWAYS_INLINE inline CUresult
enqueue (CugiGraphExec *self,
         CugiStream    *stream)
{
  CUresult result = cugi_cuda.cuGraphLaunch (self->handle, cugi_stream_get_handle (stream));

  if (G_LIKELY (result == CUDA_SUCCESS))
    track_launch (self, stream);
  return result;
}

/* Any other launch: the checks with their messages, and the context pushed
 * for the launch and popped after it when it is not current. */
static G_GNUC_NO_INLINE gboolean
launch_entering (CugiGraphExec *self,
                 CugiStream    *stream,
                 GError       **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CugiStream *target;

  return enter (self, &scope, error) &&
         (target = resolve_stream (self, stream, error)) != NULL &&
         cugi_check_result (enqueue (self, target), "cuGraphLaunch", error);
}

/**
 * cugi_graph_exec_launch:
 * @self: an executable graph
 * @stream: (nullable): a stream of the graph's context, or %NULL for the
 *   context's default stream
 * @error: return location for a #GError
 *
 * Enqueues all the work of @self on @stream and returns at once. What the
 * graph's kernels use stays alive until the work has completed.
 *
 * Returns: %TRUE when the graph was enqueued
 *
 * Since: 0.1
 */
CUGI_LAUNCH_PATH gboolean
cugi_graph_exec_launch (CugiGraphExec *self,
                        CugiStream    *stream,
                        GError       **error)
{
  gsize epoch;

  g_return_val_if_fail (cugi_is_final_instance (self, graph_exec_class), FALSE);
  g_return_val_if_fail (stream == NULL || cugi_stream_is_stream (stream), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  /* The common case needs no context scope, whose cleanup is a call, nor
   * the current context, which costs a call too: a stream of the graph's
   * own context wrapper, neither reset (known without reading the context
   * while the address epoch stays), and a stream of its own rather than the
   * legacy default one, since the driver launches in the stream's context
   * whichever is current (a driver that wants it current says so, and the
   * launch is made again with it current). */
  epoch = cugi_memory_get_address_epoch ();
  if (G_LIKELY (stream != NULL && self->handle != NULL && cugi_stream_get_handle (stream) != NULL &&
                stream->binding.context == self->binding.context &&
                cugi_context_binding_is_current_in_epoch (&self->binding, &self->current_epoch, epoch) &&
                cugi_context_binding_is_current_in_epoch (&stream->binding, &stream->current_epoch, epoch)))
    {
      CUresult result = enqueue (self, stream);

      /* cugi_check_result() for failures only, away from the launch path. */
      if (G_LIKELY (result == CUDA_SUCCESS))
        return TRUE;
      if (result != CUDA_ERROR_INVALID_CONTEXT)
        return cugi_check_result (result, "cuGraphLaunch", error);
    }
  return launch_entering (self, stream, error);
}

/**
 * cugi_graph_exec_upload:
 * @self: an executable graph
 * @stream: (nullable): a stream of the graph's context, or %NULL for the
 *   context's default stream
 * @error: return location for a #GError
 *
 * Prepares @self on the device ahead of its first launch, in the order of
 * @stream, so that the first launch costs no more than the next ones.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
cugi_graph_exec_upload (CugiGraphExec *self,
                        CugiStream    *stream,
                        GError       **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CugiStream *target;

  g_return_val_if_fail (CUGI_IS_GRAPH_EXEC (self), FALSE);
  g_return_val_if_fail (stream == NULL || CUGI_IS_STREAM (stream), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (cugi_cuda.cuGraphUpload == NULL)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_NOT_SUPPORTED,
                           _("This NVIDIA driver cannot upload graphs (no cuGraphUpload)"));
      return FALSE;
    }
  if (!enter (self, &scope, error) ||
      (target = resolve_stream (self, stream, error)) == NULL ||
      !CUGI_CALL (cuGraphUpload, (self->handle, cugi_stream_get_handle (target)), error))
    return FALSE;
  cugi_work_track (target, NULL, NULL);
  return TRUE;
}

/* Takes @args into the kernel node @node (the instantiated graph's) of @self,
 * with the rest of @params, checked against @kernel (nullable: a kernel cugi
 * did not launch is checked by the driver alone). */
static gboolean
set_kernel_params (CugiGraphExec           *self,
                   CUgraphNode              node,
                   CUDA_KERNEL_NODE_PARAMS *params,
                   CugiKernel              *kernel,
                   CugiKernelArgs          *args,
                   GError                 **error)
{
  GPtrArray *buffers;

  if ((kernel != NULL && !cugi_kernel_check_args (kernel, args, error)) ||
      !cugi_kernel_args_resolve (args, error))
    return FALSE;

  params->kernelParams = args->params;
  params->extra = NULL;
  if (!CUGI_CALL (cuGraphExecKernelNodeSetParams, (self->handle, node, params), error))
    return FALSE;

  buffers = cugi_kernel_args_share_buffers (args);
  g_mutex_lock (&self->lock);
  if (buffers != NULL)
    g_hash_table_replace (self->node_resources, node, buffers);
  else
    g_hash_table_remove (self->node_resources, node);
  g_mutex_unlock (&self->lock);
  change_resources (self);
  return TRUE;
}

/**
 * cugi_graph_exec_set_kernel_args:
 * @self: an executable graph
 * @kernel_node_index: which kernel launch of the graph, from 0, in the
 *   order of #CugiGraph:kernel-node-count (for a captured graph, the order
 *   of capture)
 * @args: the new arguments
 * @error: return location for a #GError
 *
 * Gives a kernel launch of @self new arguments, for the launches of @self
 * to come; the grid and block stay. When cugi launched that kernel during
 * the capture, @args are checked against its parameters as
 * cugi_kernel_launch() does.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
cugi_graph_exec_set_kernel_args (CugiGraphExec  *self,
                                 guint           kernel_node_index,
                                 CugiKernelArgs *args,
                                 GError        **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  g_autoptr(CugiGraph) graph = NULL;
  CUDA_KERNEL_NODE_PARAMS params;
  CugiKernel *kernel;
  CUgraphNode node, current_node;

  g_return_val_if_fail (CUGI_IS_GRAPH_EXEC (self), FALSE);
  g_return_val_if_fail (args != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!enter (self, &scope, error))
    return FALSE;
  /* The grid and the function come from the latest graph; the node is
   * named by the graph @self was instantiated from. */
  graph = cugi_graph_exec_get_graph (self);
  if (!cugi_graph_get_kernel_node (self->instantiated, kernel_node_index, &node, error) ||
      !cugi_graph_get_kernel_node (graph, kernel_node_index, &current_node, error) ||
      !CUGI_CALL (cuGraphKernelNodeGetParams, (current_node, &params), error))
    return FALSE;

  kernel = cugi_graph_lookup_kernel (graph, params.func);
  return set_kernel_params (self, node, &params, kernel, args, error);
}

/* INVALID_ARGUMENT unless @node is a node of the graph @self was made from,
 * of @type (any type for -1). */
static gboolean
check_node (CugiGraphExec *self,
            CugiGraphNode *node,
            int            type,
            GError       **error)
{
  CugiGraph *graph = cugi_graph_node_get_graph (node);

  if (graph == NULL || cugi_graph_get_root (graph) != self->instantiated)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                           _("The node is not one of the graph the executable graph was made from"));
      return FALSE;
    }
  if (type >= 0 && cugi_graph_node_get_node_type (node) != (CugiGraphNodeType) type)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                           _("The node is not a kernel node"));
      return FALSE;
    }
  return TRUE;
}

/**
 * cugi_graph_exec_set_kernel_node_args:
 * @self: an executable graph
 * @node: a kernel node of the graph @self was made from
 *   (cugi_graph_add_kernel_node())
 * @args: the new arguments
 * @error: return location for a #GError
 *
 * Gives @node new arguments for the launches of @self to come, checked
 * against the kernel's parameters as cugi_kernel_launch() checks them; the
 * grid and block stay. A node that is not a kernel node, or not one of the
 * graph @self was made from, is a %CUGI_ERROR_INVALID_ARGUMENT error.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
cugi_graph_exec_set_kernel_node_args (CugiGraphExec  *self,
                                      CugiGraphNode  *node,
                                      CugiKernelArgs *args,
                                      GError        **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CUDA_KERNEL_NODE_PARAMS params;

  g_return_val_if_fail (CUGI_IS_GRAPH_EXEC (self), FALSE);
  g_return_val_if_fail (CUGI_IS_GRAPH_NODE (node), FALSE);
  g_return_val_if_fail (args != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!enter (self, &scope, error) ||
      !check_node (self, node, CUGI_GRAPH_NODE_TYPE_KERNEL, error) ||
      !CUGI_CALL (cuGraphKernelNodeGetParams, (cugi_graph_node_get_handle (node), &params), error))
    return FALSE;
  return set_kernel_params (self, cugi_graph_node_get_handle (node), &params,
                            cugi_graph_node_get_kernel (node), args, error);
}

/**
 * cugi_graph_exec_set_node_enabled:
 * @self: an executable graph
 * @node: a kernel, memset or copy node of the graph @self was made from
 * @enabled: whether the launches of @self to come run @node
 * @error: return location for a #GError
 *
 * Switches @node off, so that the launches of @self to come skip it (the
 * nodes after it still wait for those before it), or on again.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
cugi_graph_exec_set_node_enabled (CugiGraphExec *self,
                                  CugiGraphNode *node,
                                  gboolean       enabled,
                                  GError       **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CugiGraphNodeType type;

  g_return_val_if_fail (CUGI_IS_GRAPH_EXEC (self), FALSE);
  g_return_val_if_fail (CUGI_IS_GRAPH_NODE (node), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!cugi_graph_require (cugi_cuda.cuGraphNodeSetEnabled, "cuGraphNodeSetEnabled", error) ||
      !enter (self, &scope, error) || !check_node (self, node, -1, error))
    return FALSE;
  type = cugi_graph_node_get_node_type (node);
  if (type != CUGI_GRAPH_NODE_TYPE_KERNEL && type != CUGI_GRAPH_NODE_TYPE_MEMSET &&
      type != CUGI_GRAPH_NODE_TYPE_MEMCPY)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                           _("Only kernel, memset and copy nodes can be switched off and on"));
      return FALSE;
    }
  return CUGI_CALL (cuGraphNodeSetEnabled, (self->handle, cugi_graph_node_get_handle (node), enabled ? 1 : 0),
                    error);
}

/**
 * cugi_graph_exec_get_node_enabled:
 * @self: an executable graph
 * @node: a kernel, memset or copy node of the graph @self was made from
 * @error: return location for a #GError
 *
 * Returns: whether the launches of @self run @node; %FALSE with @error set
 *   on failure
 *
 * Since: 0.1
 */
gboolean
cugi_graph_exec_get_node_enabled (CugiGraphExec *self,
                                  CugiGraphNode *node,
                                  GError       **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  unsigned int value = 0;

  g_return_val_if_fail (CUGI_IS_GRAPH_EXEC (self), FALSE);
  g_return_val_if_fail (CUGI_IS_GRAPH_NODE (node), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!cugi_graph_require (cugi_cuda.cuGraphNodeGetEnabled, "cuGraphNodeGetEnabled", error) ||
      !enter (self, &scope, error) || !check_node (self, node, -1, error) ||
      !CUGI_CALL (cuGraphNodeGetEnabled, (self->handle, cugi_graph_node_get_handle (node), &value), error))
    return FALSE;
  return value != 0;
}

static const char *
describe_update_failure (CUgraphExecUpdateResult result)
{
  switch (result)
    {
    case CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED:
      return _("the nodes or their dependencies differ");
    case CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED:
      return _("a node is of another type");
    case CU_GRAPH_EXEC_UPDATE_ERROR_FUNCTION_CHANGED:
    case CU_GRAPH_EXEC_UPDATE_ERROR_UNSUPPORTED_FUNCTION_CHANGE:
      return _("a kernel node launches another kernel in a way that cannot be updated");
    case CU_GRAPH_EXEC_UPDATE_ERROR_PARAMETERS_CHANGED:
      return _("a node's parameters changed in a way that cannot be updated");
    case CU_GRAPH_EXEC_UPDATE_ERROR_NOT_SUPPORTED:
      return _("a node cannot be updated");
    case CU_GRAPH_EXEC_UPDATE_ERROR_ATTRIBUTES_CHANGED:
      return _("a node's attributes changed in a way that cannot be updated");
    case CU_GRAPH_EXEC_UPDATE_SUCCESS:
    case CU_GRAPH_EXEC_UPDATE_ERROR:
    default:
      return NULL;
    }
}

/**
 * cugi_graph_exec_update:
 * @self: an executable graph
 * @graph: a graph of the same shape as the one @self was made from: the
 *   same nodes, of the same types, with the same dependencies
 * @error: return location for a #GError
 *
 * Takes the parameters of every node of @graph (kernel arguments, grid
 * sizes, copy addresses) into @self, for the launches of @self to come.
 * Arguments set with cugi_graph_exec_set_kernel_args() are replaced too.
 * When the shapes differ, @self is left as it was and the error says why
 * (%CUGI_ERROR_INVALID_ARGUMENT); instantiate @graph instead.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
cugi_graph_exec_update (CugiGraphExec *self,
                        CugiGraph     *graph,
                        GError       **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CUgraphExecUpdateResultInfo info = { CU_GRAPH_EXEC_UPDATE_SUCCESS, NULL, NULL };
  g_autoptr(GError) local_error = NULL;
  const char *reason;

  g_return_val_if_fail (CUGI_IS_GRAPH_EXEC (self), FALSE);
  g_return_val_if_fail (CUGI_IS_GRAPH (graph), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!enter (self, &scope, error) || !cugi_graph_check (graph, error) ||
      !cugi_context_binding_check_same_context (&self->binding, cugi_graph_get_context (graph),
                                                N_("The graph belongs to another context than the executable graph"),
                                                error))
    return FALSE;
  if (!CUGI_CALL (cuGraphExecUpdate, (self->handle, cugi_graph_get_handle (graph), &info), &local_error))
    {
      if ((reason = describe_update_failure (info.result)) == NULL)
        {
          g_propagate_error (error, g_steal_pointer (&local_error));
          return FALSE;
        }
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("The executable graph cannot take the new graph: %s"), reason);
      return FALSE;
    }

  g_mutex_lock (&self->lock);
  g_set_object (&self->graph, graph);
  g_hash_table_remove_all (self->node_resources);
  g_mutex_unlock (&self->lock);
  change_resources (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_GRAPH]);
  return TRUE;
}
