/* cugi-graph-builder.c: adding nodes to a CUDA graph: kernels, copies,
 * memsets, host functions, events, child graphs, allocations */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "cugi-context-private.h"
#include "cugi-private.h"
#include "cugi-launch-private.h"
#include "cugi-kernel-private.h"
#include "cugi-memory-private.h"
#include "cugi-graph-private.h"

/* Every cugi_graph_add_*_node() takes the same first arguments: the graph,
 * then the nodes the new one depends on. */
#define CHECK_ADD_ARGS(self) \
  g_return_val_if_fail (CUGI_IS_GRAPH (self), NULL); \
  g_return_val_if_fail (error == NULL || *error == NULL, NULL)

/* INVALID_CONTEXT unless @context is the graph's. */
static gboolean
check_context (CugiGraph   *self,
               CugiContext *context,
               const char  *what,
               GError     **error)
{
  if (cugi_context_equal (cugi_graph_get_context (self), context))
    return TRUE;
  g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_CONTEXT,
               _("The %s belongs to another context than the graph"), what);
  return FALSE;
}

/* The address of @size bytes at @offset of @buffer, which the graph keeps
 * in use as long as it lives. */
static gboolean
use_buffer (CugiGraph   *self,
            CugiBuffer  *buffer,
            gsize        offset,
            gsize        size,
            GPtrArray   *resources,
            CUdeviceptr *address,
            GError     **error)
{
  if (!cugi_buffer_get_address (buffer, address, error) ||
      !check_context (self, cugi_buffer_get_context (buffer), _("buffer"), error) ||
      !cugi_memory_check_range (cugi_buffer_get_size (buffer), offset, size, _("buffer"), error))
    return FALSE;
  *address += offset;
  cugi_work_resources_add (resources, cugi_buffer_begin_work (buffer), cugi_buffer_end_work);
  return TRUE;
}

/**
 * cugi_graph_add_kernel_node:
 * @self: a graph
 * @dependencies: (array length=n_dependencies) (nullable): the nodes of
 *   @self that must complete before this one runs
 * @n_dependencies: the length of @dependencies
 * @kernel: a kernel of the graph's context
 * @config: the grid, block and shared memory of the launch (its stream is
 *   not used: the graph's launches say where it runs)
 * @args: the arguments, in the order of the kernel's parameters
 * @error: return location for a #GError
 *
 * Adds a launch of @kernel. The configuration and the arguments are checked
 * as cugi_kernel_launch() checks them; a mismatch is a
 * %CUGI_ERROR_INVALID_ARGUMENT error and nothing is added. The graph keeps
 * the buffers of @args alive; @args may be changed or dropped when this
 * returns. Cooperative and cluster launches cannot be graph nodes here.
 *
 * Returns: (transfer full): the node, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiGraphNode *
cugi_graph_add_kernel_node (CugiGraph        *self,
                            CugiGraphNode   **dependencies,
                            guint             n_dependencies,
                            CugiKernel       *kernel,
                            CugiLaunchConfig *config,
                            CugiKernelArgs   *args,
                            GError          **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  g_autofree CUgraphNode *handles = NULL;
  CUDA_KERNEL_NODE_PARAMS params = { 0 };
  CugiGraphNode *node;
  GPtrArray *buffers;
  CUgraphNode handle;

  CHECK_ADD_ARGS (self);
  g_return_val_if_fail (CUGI_IS_KERNEL (kernel), NULL);
  g_return_val_if_fail (config != NULL, NULL);
  g_return_val_if_fail (args != NULL, NULL);

  if (config->cooperative || config->cluster[0] != 0)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_NOT_SUPPORTED,
                           _("Cooperative and cluster launches cannot be added to a graph as kernel nodes"));
      return NULL;
    }
  if (!cugi_graph_node_begin_add (self, cugi_cuda.cuGraphAddKernelNode, "cuGraphAddKernelNode",
                                  dependencies, n_dependencies, &scope, &handles, error) ||
      !cugi_kernel_check_launch (kernel, config, args, error) ||
      !check_context (self, cugi_kernel_get_context (kernel), _("kernel"), error))
    return NULL;

  params.func = cugi_kernel_get_function (kernel);
  params.gridDimX = config->grid[0];
  params.gridDimY = config->grid[1];
  params.gridDimZ = config->grid[2];
  params.blockDimX = config->block[0];
  params.blockDimY = config->block[1];
  params.blockDimZ = config->block[2];
  params.sharedMemBytes = config->shared_memory;
  params.kernelParams = args->params;
  if (!CUGI_CALL (cuGraphAddKernelNode, (&handle, cugi_graph_get_handle (self), handles, n_dependencies,
                                         &params), error))
    return NULL;

  if ((buffers = cugi_kernel_args_share_buffers (args)) != NULL)
    cugi_graph_keep (self, buffers);
  cugi_graph_keep_kernel (self, kernel);
  node = cugi_graph_node_new (self, handle, CUGI_GRAPH_NODE_TYPE_KERNEL);
  cugi_graph_node_set_kernel (node, kernel);
  return node;
}

/**
 * cugi_graph_add_memset_node:
 * @self: a graph
 * @dependencies: (array length=n_dependencies) (nullable): the nodes of
 *   @self that must complete before this one runs
 * @n_dependencies: the length of @dependencies
 * @buffer: a buffer of the graph's context
 * @offset: where to start, in bytes
 * @value: the byte to write
 * @size: how many bytes to write, not 0
 * @error: return location for a #GError
 *
 * Adds setting @size bytes of @buffer from @offset to @value. The graph
 * keeps @buffer alive.
 *
 * Returns: (transfer full): the node, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiGraphNode *
cugi_graph_add_memset_node (CugiGraph      *self,
                            CugiGraphNode **dependencies,
                            guint           n_dependencies,
                            CugiBuffer     *buffer,
                            gsize           offset,
                            guint8          value,
                            gsize           size,
                            GError        **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  g_autofree CUgraphNode *handles = NULL;
  g_autoptr(GPtrArray) resources = cugi_work_resources_new ();
  CUDA_MEMSET_NODE_PARAMS params = { 0 };
  CUgraphNode handle;

  CHECK_ADD_ARGS (self);
  g_return_val_if_fail (CUGI_IS_BUFFER (buffer), NULL);

  if (size == 0)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                           _("A memset node must write at least one byte"));
      return NULL;
    }
  if (!cugi_graph_node_begin_add (self, cugi_cuda.cuGraphAddMemsetNode, "cuGraphAddMemsetNode",
                                  dependencies, n_dependencies, &scope, &handles, error) ||
      !use_buffer (self, buffer, offset, size, resources, &params.dst, error))
    return NULL;
  params.value = value;
  params.elementSize = 1;
  params.width = size;
  params.height = 1;
  params.pitch = size;
  if (!CUGI_CALL (cuGraphAddMemsetNode, (&handle, cugi_graph_get_handle (self), handles, n_dependencies,
                                         &params, cugi_context_get_handle (cugi_graph_get_context (self))),
                  error))
    return NULL;
  cugi_graph_keep (self, g_steal_pointer (&resources));
  return cugi_graph_node_new (self, handle, CUGI_GRAPH_NODE_TYPE_MEMSET);
}

/**
 * cugi_graph_add_copy_node:
 * @self: a graph
 * @dependencies: (array length=n_dependencies) (nullable): the nodes of
 *   @self that must complete before this one runs
 * @n_dependencies: the length of @dependencies
 * @destination: a buffer of the graph's context
 * @destination_offset: where to write in @destination, in bytes
 * @source: a buffer of the graph's context
 * @source_offset: where to read in @source, in bytes
 * @size: how many bytes to copy, not 0
 * @error: return location for a #GError
 *
 * Adds a device-to-device copy of @size bytes. The graph keeps both buffers
 * alive.
 *
 * Returns: (transfer full): the node, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiGraphNode *
cugi_graph_add_copy_node (CugiGraph      *self,
                          CugiGraphNode **dependencies,
                          guint           n_dependencies,
                          CugiBuffer     *destination,
                          gsize           destination_offset,
                          CugiBuffer     *source,
                          gsize           source_offset,
                          gsize           size,
                          GError        **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  g_autofree CUgraphNode *handles = NULL;
  g_autoptr(GPtrArray) resources = cugi_work_resources_new ();
  CUDA_MEMCPY3D params = { 0 };
  CUgraphNode handle;

  CHECK_ADD_ARGS (self);
  g_return_val_if_fail (CUGI_IS_BUFFER (destination), NULL);
  g_return_val_if_fail (CUGI_IS_BUFFER (source), NULL);

  if (size == 0)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                           _("A copy node must copy at least one byte"));
      return NULL;
    }
  if (!cugi_graph_node_begin_add (self, cugi_cuda.cuGraphAddMemcpyNode, "cuGraphAddMemcpyNode",
                                  dependencies, n_dependencies, &scope, &handles, error) ||
      !use_buffer (self, destination, destination_offset, size, resources, &params.dstDevice, error) ||
      !use_buffer (self, source, source_offset, size, resources, &params.srcDevice, error))
    return NULL;
  params.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  params.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  params.WidthInBytes = size;
  params.Height = 1;
  params.Depth = 1;
  if (!CUGI_CALL (cuGraphAddMemcpyNode, (&handle, cugi_graph_get_handle (self), handles, n_dependencies,
                                         &params, cugi_context_get_handle (cugi_graph_get_context (self))),
                  error))
    return NULL;
  cugi_graph_keep (self, g_steal_pointer (&resources));
  return cugi_graph_node_new (self, handle, CUGI_GRAPH_NODE_TYPE_MEMCPY);
}

/* ---- host functions ------------------------------------------------------- */

/* A host node's function, shared by the graph and each run in flight. */
typedef struct
{
  GMainContext      *main_context;
  CugiGraphHostFunc  func;
  gpointer           user_data;
  GDestroyNotify     notify;
} HostCall;

static void
host_call_clear (gpointer data)
{
  HostCall *call = data;

  if (call->notify != NULL)
    call->notify (call->user_data);
  g_main_context_unref (call->main_context);
}

static void
host_call_release (gpointer data)
{
  g_atomic_rc_box_release_full (data, host_call_clear);
}

static gboolean
host_call_run (gpointer data)
{
  HostCall *call = data;

  call->func (call->user_data);
  return G_SOURCE_REMOVE;
}

/* Runs on a CUDA thread, which must not call CUDA: only hands the call to
 * its main context. Not g_main_context_invoke(), which would run it here
 * when no thread owns that context. */
static void CUDA_CB
host_call_trampoline (void *data)
{
  GSource *source = g_idle_source_new ();

  g_source_set_priority (source, G_PRIORITY_DEFAULT);
  g_source_set_static_name (source, "[cugi] graph host node");
  g_source_set_callback (source, host_call_run, g_atomic_rc_box_acquire (data), host_call_release);
  g_source_attach (source, ((HostCall *) data)->main_context);
  g_source_unref (source);
}

/**
 * CugiGraphHostFunc:
 * @user_data: the data given to cugi_graph_add_host_node()
 *
 * What a host node runs, in the #GMainContext that was the thread-default
 * when the node was added, once for each launch of the graph that gets
 * there. It may call any cugi function.
 *
 * Since: 0.1
 */

/**
 * cugi_graph_add_host_node:
 * @self: a graph
 * @dependencies: (array length=n_dependencies) (nullable): the nodes of
 *   @self that must complete before this one runs
 * @n_dependencies: the length of @dependencies
 * @func: (scope notified) (closure user_data) (destroy notify): the function
 * @user_data: data for @func
 * @notify: (nullable): frees @user_data once the graph, its executable
 *   graphs and their runs in flight are gone, or at once when this fails
 * @error: return location for a #GError
 *
 * Adds a host function, which runs as cugi_stream_add_callback()'s do: in
 * the thread-default #GMainContext of the caller, never on the CUDA thread,
 * so that @func may call CUDA through cugi. The nodes after it wait only
 * until it is handed to the main context, not until @func has run (as with
 * stream callbacks, record an event to know when the work before it is
 * done).
 *
 * Returns: (transfer full): the node, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiGraphNode *
cugi_graph_add_host_node (CugiGraph          *self,
                          CugiGraphNode     **dependencies,
                          guint               n_dependencies,
                          CugiGraphHostFunc   func,
                          gpointer            user_data,
                          GDestroyNotify      notify,
                          GError            **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  g_autofree CUgraphNode *handles = NULL;
  g_autoptr(GPtrArray) resources = cugi_work_resources_new ();
  CUDA_HOST_NODE_PARAMS params = { 0 };
  HostCall *call;
  CUgraphNode handle;

  if (!CUGI_IS_GRAPH (self) || func == NULL || (error != NULL && *error != NULL))
    {
      if (notify != NULL)
        notify (user_data);
      g_return_val_if_fail (CUGI_IS_GRAPH (self), NULL);
      g_return_val_if_fail (func != NULL, NULL);
      g_return_val_if_fail (error == NULL || *error == NULL, NULL);
    }

  call = g_atomic_rc_box_new0 (HostCall);
  call->main_context = g_main_context_ref_thread_default ();
  call->func = func;
  call->user_data = user_data;
  call->notify = notify;
  cugi_work_resources_add (resources, call, host_call_release);
  if (!cugi_graph_node_begin_add (self, cugi_cuda.cuGraphAddHostNode, "cuGraphAddHostNode",
                                  dependencies, n_dependencies, &scope, &handles, error))
    return NULL;
  params.fn = host_call_trampoline;
  params.userData = call;
  if (!CUGI_CALL (cuGraphAddHostNode, (&handle, cugi_graph_get_handle (self), handles, n_dependencies,
                                       &params), error))
    return NULL;
  cugi_graph_keep (self, g_steal_pointer (&resources));
  return cugi_graph_node_new (self, handle, CUGI_GRAPH_NODE_TYPE_HOST);
}

/* ---- events, child graphs, empty nodes --------------------------------------- */

static CugiGraphNode *
add_event_node (CugiGraph         *self,
                CugiGraphNode    **dependencies,
                guint              n_dependencies,
                CugiEvent         *event,
                gboolean           wait,
                GError           **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  g_autofree CUgraphNode *handles = NULL;
  g_autoptr(GPtrArray) resources = cugi_work_resources_new ();
  CUgraphNode handle;
  CUresult result;

  if (!cugi_graph_node_begin_add (self, wait ? (gpointer) cugi_cuda.cuGraphAddEventWaitNode
                                             : (gpointer) cugi_cuda.cuGraphAddEventRecordNode,
                                  wait ? "cuGraphAddEventWaitNode" : "cuGraphAddEventRecordNode",
                                  dependencies, n_dependencies, &scope, &handles, error))
    return NULL;
  if (cugi_event_get_handle (event) == NULL)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE,
                           _("This CugiEvent has no CUDA event: make events with cugi_event_new()"));
      return NULL;
    }
  if (!check_context (self, cugi_event_get_context (event), _("event"), error))
    return NULL;
  result = wait ? cugi_cuda.cuGraphAddEventWaitNode (&handle, cugi_graph_get_handle (self), handles,
                                                      n_dependencies, cugi_event_get_handle (event))
                : cugi_cuda.cuGraphAddEventRecordNode (&handle, cugi_graph_get_handle (self), handles,
                                                        n_dependencies, cugi_event_get_handle (event));
  if (!cugi_check_result (result, wait ? "cuGraphAddEventWaitNode" : "cuGraphAddEventRecordNode", error))
    return NULL;
  cugi_work_resources_add (resources, g_object_ref (event), g_object_unref);
  cugi_graph_keep (self, g_steal_pointer (&resources));
  return cugi_graph_node_new (self, handle, wait ? CUGI_GRAPH_NODE_TYPE_WAIT_EVENT
                                                 : CUGI_GRAPH_NODE_TYPE_EVENT_RECORD);
}

/**
 * cugi_graph_add_event_record_node:
 * @self: a graph
 * @dependencies: (array length=n_dependencies) (nullable): the nodes of
 *   @self that must complete before this one runs
 * @n_dependencies: the length of @dependencies
 * @event: an event of the graph's context
 * @error: return location for a #GError
 *
 * Adds a record of @event: each launch of the graph records it when the
 * nodes before it have completed, for streams and other graphs to wait
 * for. (#CugiEvent::completed is not emitted for these records.)
 *
 * Returns: (transfer full): the node, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiGraphNode *
cugi_graph_add_event_record_node (CugiGraph      *self,
                                  CugiGraphNode **dependencies,
                                  guint           n_dependencies,
                                  CugiEvent      *event,
                                  GError        **error)
{
  CHECK_ADD_ARGS (self);
  g_return_val_if_fail (CUGI_IS_EVENT (event), NULL);

  return add_event_node (self, dependencies, n_dependencies, event, FALSE, error);
}

/**
 * cugi_graph_add_event_wait_node:
 * @self: a graph
 * @dependencies: (array length=n_dependencies) (nullable): the nodes of
 *   @self that must complete before this one runs
 * @n_dependencies: the length of @dependencies
 * @event: an event of the graph's context
 * @error: return location for a #GError
 *
 * Adds a wait for the latest record of @event at the time each launch gets
 * there: the nodes after it run once that work has completed.
 *
 * Returns: (transfer full): the node, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiGraphNode *
cugi_graph_add_event_wait_node (CugiGraph      *self,
                                CugiGraphNode **dependencies,
                                guint           n_dependencies,
                                CugiEvent      *event,
                                GError        **error)
{
  CHECK_ADD_ARGS (self);
  g_return_val_if_fail (CUGI_IS_EVENT (event), NULL);

  return add_event_node (self, dependencies, n_dependencies, event, TRUE, error);
}

/**
 * cugi_graph_add_child_graph_node:
 * @self: a graph
 * @dependencies: (array length=n_dependencies) (nullable): the nodes of
 *   @self that must complete before this one runs
 * @n_dependencies: the length of @dependencies
 * @child: a graph of the same context
 * @error: return location for a #GError
 *
 * Adds all of @child as one node. The driver copies @child: changing it
 * later changes nothing of @self. @self keeps what @child's nodes use.
 *
 * Returns: (transfer full): the node, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiGraphNode *
cugi_graph_add_child_graph_node (CugiGraph      *self,
                                 CugiGraphNode **dependencies,
                                 guint           n_dependencies,
                                 CugiGraph      *child,
                                 GError        **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  g_autofree CUgraphNode *handles = NULL;
  g_autoptr(GPtrArray) resources = cugi_work_resources_new ();
  CUgraphNode handle;

  CHECK_ADD_ARGS (self);
  g_return_val_if_fail (CUGI_IS_GRAPH (child), NULL);

  if (cugi_graph_get_root (child) == cugi_graph_get_root (self))
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                           _("A graph cannot be its own child, nor a child of one of its bodies"));
      return NULL;
    }
  if (!cugi_graph_node_begin_add (self, cugi_cuda.cuGraphAddChildGraphNode, "cuGraphAddChildGraphNode",
                                  dependencies, n_dependencies, &scope, &handles, error) ||
      !cugi_graph_check (child, error) ||
      !check_context (self, cugi_graph_get_context (child), _("child graph"), error) ||
      !CUGI_CALL (cuGraphAddChildGraphNode, (&handle, cugi_graph_get_handle (self), handles,
                                             n_dependencies, cugi_graph_get_handle (child)), error))
    return NULL;
  /* What the child's nodes use, and the kernels they launch: a reference
   * to the child's root keeps both. */
  cugi_work_resources_add (resources, g_object_ref (cugi_graph_get_root (child)), g_object_unref);
  cugi_graph_keep (self, g_steal_pointer (&resources));
  return cugi_graph_node_new (self, handle, CUGI_GRAPH_NODE_TYPE_GRAPH);
}

/**
 * cugi_graph_add_empty_node:
 * @self: a graph
 * @dependencies: (array length=n_dependencies) (nullable): the nodes of
 *   @self that must complete before this one runs
 * @n_dependencies: the length of @dependencies
 * @error: return location for a #GError
 *
 * Adds a node that does nothing: one dependency for the nodes after it
 * that stands for all of @dependencies.
 *
 * Returns: (transfer full): the node, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiGraphNode *
cugi_graph_add_empty_node (CugiGraph      *self,
                           CugiGraphNode **dependencies,
                           guint           n_dependencies,
                           GError        **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  g_autofree CUgraphNode *handles = NULL;
  CUgraphNode handle;

  CHECK_ADD_ARGS (self);

  if (!cugi_graph_node_begin_add (self, cugi_cuda.cuGraphAddEmptyNode, "cuGraphAddEmptyNode",
                                  dependencies, n_dependencies, &scope, &handles, error) ||
      !CUGI_CALL (cuGraphAddEmptyNode, (&handle, cugi_graph_get_handle (self), handles, n_dependencies),
                  error))
    return NULL;
  return cugi_graph_node_new (self, handle, CUGI_GRAPH_NODE_TYPE_EMPTY);
}

/* ---- graph memory ------------------------------------------------------------ */

/**
 * cugi_graph_add_alloc_node:
 * @self: a graph
 * @dependencies: (array length=n_dependencies) (nullable): the nodes of
 *   @self that must complete before this one runs
 * @n_dependencies: the length of @dependencies
 * @size: how many bytes to allocate, not 0
 * @error: return location for a #GError
 *
 * Adds an allocation of @size bytes of device memory, which the nodes that
 * depend on it may use, at #CugiGraphNode:device-pointer, until a free
 * node (cugi_graph_add_free_node()) frees it. Memory a launch does not
 * free stays allocated after it, at the same address, until a later
 * launch frees it.
 *
 * Returns: (transfer full): the node, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiGraphNode *
cugi_graph_add_alloc_node (CugiGraph      *self,
                           CugiGraphNode **dependencies,
                           guint           n_dependencies,
                           gsize           size,
                           GError        **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  g_autofree CUgraphNode *handles = NULL;
  CUDA_MEM_ALLOC_NODE_PARAMS params = { 0 };
  CugiGraphNode *node;
  CUgraphNode handle;
  CUdevice device;

  CHECK_ADD_ARGS (self);

  if (size == 0)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                           _("An allocation node must allocate at least one byte"));
      return NULL;
    }
  if (!cugi_graph_node_begin_add (self, cugi_cuda.cuGraphAddMemAllocNode, "cuGraphAddMemAllocNode",
                                  dependencies, n_dependencies, &scope, &handles, error) ||
      !CUGI_CALL (cuCtxGetDevice, (&device), error))
    return NULL;
  params.poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  params.poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  params.poolProps.location.id = device;
  params.bytesize = size;
  if (!CUGI_CALL (cuGraphAddMemAllocNode, (&handle, cugi_graph_get_handle (self), handles, n_dependencies,
                                           &params), error))
    return NULL;
  node = cugi_graph_node_new (self, handle, CUGI_GRAPH_NODE_TYPE_MEM_ALLOC);
  cugi_graph_node_set_device_pointer (node, params.dptr);
  return node;
}

/**
 * cugi_graph_add_free_node:
 * @self: a graph
 * @dependencies: (array length=n_dependencies) (nullable): the nodes of
 *   @self that must complete before this one runs: all that use the memory
 * @n_dependencies: the length of @dependencies
 * @allocation: the allocation node whose memory to free
 * @error: return location for a #GError
 *
 * Adds a free of the memory that @allocation allocates.
 *
 * Returns: (transfer full): the node, or %NULL with @error set
 *   (%CUGI_ERROR_INVALID_ARGUMENT when @allocation is no allocation node)
 *
 * Since: 0.1
 */
CugiGraphNode *
cugi_graph_add_free_node (CugiGraph      *self,
                          CugiGraphNode **dependencies,
                          guint           n_dependencies,
                          CugiGraphNode  *allocation,
                          GError        **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  g_autofree CUgraphNode *handles = NULL;
  CUgraphNode handle;

  CHECK_ADD_ARGS (self);
  g_return_val_if_fail (CUGI_IS_GRAPH_NODE (allocation), NULL);

  if (cugi_graph_node_get_node_type (allocation) != CUGI_GRAPH_NODE_TYPE_MEM_ALLOC)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                           _("A free node frees the memory of an allocation node: this node is of another kind"));
      return NULL;
    }
  if (!cugi_graph_node_begin_add (self, cugi_cuda.cuGraphAddMemFreeNode, "cuGraphAddMemFreeNode",
                                  dependencies, n_dependencies, &scope, &handles, error) ||
      !CUGI_CALL (cuGraphAddMemFreeNode, (&handle, cugi_graph_get_handle (self), handles, n_dependencies,
                                          cugi_graph_node_get_device_pointer (allocation)), error))
    return NULL;
  return cugi_graph_node_new (self, handle, CUGI_GRAPH_NODE_TYPE_MEM_FREE);
}
