/* fake-cuda-graphs.c: graphs built node by node, for the stand-in driver
 * (fake-cuda-streams.c, whose graphs are lists of operations in order).
 *
 * A node is an operation appended to its graph; as each node comes after
 * the nodes it depends on, the order of the list is one the dependencies
 * allow. Memsets, copies and host functions run at each launch, as captured
 * ones do; kernels, empty nodes, event records and waits and child graphs
 * do nothing. A dependency that is not a node of the graph, or named twice,
 * is CUDA_ERROR_INVALID_VALUE, as is changing the parameters of a node
 * that is not a kernel node or switching off one that cannot be.
 * Conditional nodes and graph memory are not here: cugi reports the entry
 * points missing. */
#include <stdlib.h>
#include <string.h>

#include "fake-cuda-streams.h"

/* Called with the lock held. */
static int
is_node_of (const FakeGraph *graph,
            CUgraphNode      node)
{
  for (const Op *op = graph->head; op != NULL; op = op->next)
    if ((CUgraphNode) op == node)
      return 1;
  return 0;
}

/* Appends @op to @handle after checking @dependencies; frees it on error. */
static CUresult
add_node (CUgraphNode *node, CUgraph handle, const CUgraphNode *dependencies, size_t n_dependencies, Op *op)
{
  FakeGraph *graph = (FakeGraph *) handle;
  CUresult result = CUDA_SUCCESS;

  if (graph == NULL || (n_dependencies > 0 && dependencies == NULL))
    result = CUDA_ERROR_INVALID_VALUE;
  fake_cuda_streams_lock ();
  for (size_t i = 0; result == CUDA_SUCCESS && i < n_dependencies; i++)
    {
      if (!is_node_of (graph, dependencies[i]))
        result = CUDA_ERROR_INVALID_VALUE;
      for (size_t j = 0; j < i; j++)
        if (dependencies[j] == dependencies[i])
          result = CUDA_ERROR_INVALID_VALUE;
    }
  if (result == CUDA_SUCCESS)
    {
      graph_append (graph, op);
      *node = (CUgraphNode) op;
    }
  fake_cuda_streams_unlock ();
  if (result != CUDA_SUCCESS)
    free (op);
  return result;
}

static Op *
nothing (CUgraphNodeType type)
{
  Op *op = calloc (1, sizeof *op);

  op->kind = OP_NOTHING;
  op->node_type = type;
  return op;
}

static CUresult
fake_cuGraphCreate (CUgraph *graph, unsigned int flags)
{
  if (flags != 0)
    return CUDA_ERROR_INVALID_VALUE;
  *graph = (CUgraph) calloc (1, sizeof (FakeGraph));
  return CUDA_SUCCESS;
}

static CUresult
fake_cuGraphAddKernelNode (CUgraphNode *node, CUgraph graph, const CUgraphNode *dependencies,
                           size_t n_dependencies, const CUDA_KERNEL_NODE_PARAMS *params)
{
  Op *op;

  if (params->func == NULL || params->gridDimX == 0 || params->blockDimX == 0)
    return CUDA_ERROR_INVALID_VALUE;
  op = nothing (CU_GRAPH_NODE_TYPE_KERNEL);
  op->function = params->func;
  op->shape[0] = params->gridDimX;
  op->shape[1] = params->gridDimY;
  op->shape[2] = params->gridDimZ;
  op->shape[3] = params->blockDimX;
  op->shape[4] = params->blockDimY;
  op->shape[5] = params->blockDimZ;
  op->shape[6] = params->sharedMemBytes;
  return add_node (node, graph, dependencies, n_dependencies, op);
}

static CUresult
fake_cuGraphKernelNodeGetParams (CUgraphNode node, CUDA_KERNEL_NODE_PARAMS *params)
{
  const Op *op = (const Op *) node;

  if (op->kind != OP_NOTHING || op->node_type != CU_GRAPH_NODE_TYPE_KERNEL)
    return CUDA_ERROR_INVALID_VALUE;
  memset (params, 0, sizeof *params);
  params->func = op->function;
  params->gridDimX = op->shape[0];
  params->gridDimY = op->shape[1];
  params->gridDimZ = op->shape[2];
  params->blockDimX = op->shape[3];
  params->blockDimY = op->shape[4];
  params->blockDimZ = op->shape[5];
  params->sharedMemBytes = op->shape[6];
  return CUDA_SUCCESS;
}

/* The node of @exec copied from @node, or NULL. Called with the lock held. */
static Op *
exec_node (CUgraphExec exec, CUgraphNode node)
{
  for (Op *op = ((FakeGraph *) exec)->head; op != NULL; op = op->next)
    if (op->origin == (const Op *) node)
      return op;
  return NULL;
}

static CUresult
fake_cuGraphExecKernelNodeSetParams (CUgraphExec exec, CUgraphNode node, const CUDA_KERNEL_NODE_PARAMS *params)
{
  CUresult result = CUDA_ERROR_INVALID_VALUE;
  Op *op;

  fake_cuda_streams_lock ();
  op = exec_node (exec, node);
  if (op != NULL && op->kind == OP_NOTHING && op->node_type == CU_GRAPH_NODE_TYPE_KERNEL &&
      params->func == op->function)
    result = CUDA_SUCCESS;
  fake_cuda_streams_unlock ();
  return result;
}

static CUresult
fake_cuGraphAddMemsetNode (CUgraphNode *node, CUgraph graph, const CUgraphNode *dependencies,
                           size_t n_dependencies, const CUDA_MEMSET_NODE_PARAMS *params, CUcontext context)
{
  Op *op;

  (void) context;
  if (params->elementSize != 1 || params->height != 1 || params->width == 0)
    return CUDA_ERROR_INVALID_VALUE;
  op = calloc (1, sizeof *op);
  op->kind = OP_MEMSET;
  op->start = (unsigned char *) (uintptr_t) params->dst;
  op->value = (unsigned char) params->value;
  op->count = params->width;
  return add_node (node, graph, dependencies, n_dependencies, op);
}

static CUresult
fake_cuGraphAddMemcpyNode (CUgraphNode *node, CUgraph graph, const CUgraphNode *dependencies,
                           size_t n_dependencies, const CUDA_MEMCPY3D *params, CUcontext context)
{
  Op *op;

  (void) context;
  if (params->srcMemoryType != CU_MEMORYTYPE_DEVICE || params->dstMemoryType != CU_MEMORYTYPE_DEVICE ||
      params->Height != 1 || params->Depth != 1)
    return CUDA_ERROR_INVALID_VALUE;
  op = calloc (1, sizeof *op);
  op->kind = OP_COPY;
  op->start = (unsigned char *) (uintptr_t) params->dstDevice;
  op->source = (const unsigned char *) (uintptr_t) params->srcDevice;
  op->count = params->WidthInBytes;
  return add_node (node, graph, dependencies, n_dependencies, op);
}

static CUresult
fake_cuGraphAddHostNode (CUgraphNode *node, CUgraph graph, const CUgraphNode *dependencies,
                         size_t n_dependencies, const CUDA_HOST_NODE_PARAMS *params)
{
  Op *op;

  if (params->fn == NULL)
    return CUDA_ERROR_INVALID_VALUE;
  op = calloc (1, sizeof *op);
  op->kind = OP_HOST_FUNC;
  op->fn = params->fn;
  op->data = params->userData;
  return add_node (node, graph, dependencies, n_dependencies, op);
}

static CUresult
fake_cuGraphAddEmptyNode (CUgraphNode *node, CUgraph graph, const CUgraphNode *dependencies,
                          size_t n_dependencies)
{
  return add_node (node, graph, dependencies, n_dependencies, nothing (CU_GRAPH_NODE_TYPE_EMPTY));
}

static CUresult
add_event_node (CUgraphNode *node, CUgraph graph, const CUgraphNode *dependencies, size_t n_dependencies,
                CUevent event, CUgraphNodeType type)
{
  if (event == NULL)
    return CUDA_ERROR_INVALID_VALUE;
  return add_node (node, graph, dependencies, n_dependencies, nothing (type));
}

static CUresult
fake_cuGraphAddEventRecordNode (CUgraphNode *node, CUgraph graph, const CUgraphNode *dependencies,
                                size_t n_dependencies, CUevent event)
{
  return add_event_node (node, graph, dependencies, n_dependencies, event, CU_GRAPH_NODE_TYPE_EVENT_RECORD);
}

static CUresult
fake_cuGraphAddEventWaitNode (CUgraphNode *node, CUgraph graph, const CUgraphNode *dependencies,
                              size_t n_dependencies, CUevent event)
{
  return add_event_node (node, graph, dependencies, n_dependencies, event, CU_GRAPH_NODE_TYPE_WAIT_EVENT);
}

static CUresult
fake_cuGraphAddChildGraphNode (CUgraphNode *node, CUgraph graph, const CUgraphNode *dependencies,
                               size_t n_dependencies, CUgraph child)
{
  if (child == NULL || child == graph)
    return CUDA_ERROR_INVALID_VALUE;
  return add_node (node, graph, dependencies, n_dependencies, nothing (CU_GRAPH_NODE_TYPE_GRAPH));
}

static int
can_be_disabled (const Op *op)
{
  return op->kind == OP_MEMSET || op->kind == OP_COPY ||
         (op->kind == OP_NOTHING && op->node_type == CU_GRAPH_NODE_TYPE_KERNEL);
}

/* Sets (@set non-NULL) or reads (@get non-NULL) whether @node of @exec runs. */
static CUresult
node_enabled (CUgraphExec exec, CUgraphNode node, const unsigned int *set, unsigned int *get)
{
  CUresult result = CUDA_ERROR_INVALID_VALUE;
  Op *op;

  fake_cuda_streams_lock ();
  op = exec_node (exec, node);
  if (op != NULL && can_be_disabled (op))
    {
      if (set != NULL)
        op->disabled = !*set;
      if (get != NULL)
        *get = !op->disabled;
      result = CUDA_SUCCESS;
    }
  fake_cuda_streams_unlock ();
  return result;
}

static CUresult
fake_cuGraphNodeSetEnabled (CUgraphExec exec, CUgraphNode node, unsigned int enabled)
{
  return node_enabled (exec, node, &enabled, NULL);
}

static CUresult
fake_cuGraphNodeGetEnabled (CUgraphExec exec, CUgraphNode node, unsigned int *enabled)
{
  return node_enabled (exec, node, NULL, enabled);
}

static const struct
{
  const char *name;
  void       *function;
} entry_points[] = {
#define ENTRY(name) { #name, (void *) fake_##name },
  ENTRY (cuGraphCreate)
  ENTRY (cuGraphAddKernelNode)
  ENTRY (cuGraphKernelNodeGetParams)
  ENTRY (cuGraphExecKernelNodeSetParams)
  ENTRY (cuGraphAddMemsetNode)
  ENTRY (cuGraphAddMemcpyNode)
  ENTRY (cuGraphAddHostNode)
  ENTRY (cuGraphAddEmptyNode)
  ENTRY (cuGraphAddEventRecordNode)
  ENTRY (cuGraphAddEventWaitNode)
  ENTRY (cuGraphAddChildGraphNode)
  ENTRY (cuGraphNodeSetEnabled)
  ENTRY (cuGraphNodeGetEnabled)
#undef ENTRY
};

void *
fake_cuda_graphs_lookup (const char *symbol)
{
  for (size_t i = 0; i < sizeof entry_points / sizeof entry_points[0]; i++)
    if (strcmp (entry_points[i].name, symbol) == 0)
      return entry_points[i].function;
  return NULL;
}
