/* test-graph-logic.c: graphs built node by node, against the stand-in driver
 * (fake-cuda-graphs.c): memsets, copies and host functions run at each
 * launch in dependency order; the errors of bad dependencies, wrong node
 * kinds, incompatible kernel arguments and missing entry points. */
#include "config.h"

#include <string.h>

#include "cugi-private.h"
#include "cugi-context-private.h"
#include "cugi-test-utils.h"

#define SIZE 256

/* The stand-in driver's module format: axpy4 (float, float *, float *, unsigned). */
static const char image[] = "axpy4 4 8 8 4\n";

static CugiKernel *
stand_in_kernel (CugiModule **module)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = g_bytes_new_static (image, sizeof image);
  CugiKernel *kernel;

  *module = cugi_module_new_from_data (NULL, bytes, &error);
  g_assert_no_error (error);
  kernel = cugi_module_get_kernel (*module, "axpy4", &error);
  g_assert_no_error (error);
  return kernel;
}

static void
count_run (gpointer user_data)
{
  guint *runs = user_data;

  /* In the main context, never on the CUDA thread. */
  g_assert_true (g_main_context_is_owner (g_main_context_default ()));
  (*runs)++;
}

static void
run_until (guint *runs,
           guint  expected)
{
  while (*runs < expected)
    g_main_context_iteration (NULL, TRUE);
}

/* memset a → copy a into b → host function; twice, then with the memset
 * switched off. */
static void
test_memset_copy_host (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  g_autoptr(CugiBuffer) a = cugi_test_buffer_new (SIZE);
  g_autoptr(CugiBuffer) b = cugi_test_buffer_new (SIZE);
  g_autoptr(CugiGraph) graph = cugi_graph_new (NULL, &error);
  g_autoptr(CugiGraphNode) memset_node = NULL;
  g_autoptr(CugiGraphNode) copy_node = NULL;
  g_autoptr(CugiGraphNode) host_node = NULL;
  g_autoptr(CugiGraphExec) exec = NULL;
  g_autoptr(GBytes) downloaded = NULL;
  guint8 expected[SIZE];
  guint runs = 0;

  g_assert_no_error (error);
  memset_node = cugi_graph_add_memset_node (graph, NULL, 0, a, 16, 0x7b, SIZE - 32, &error);
  g_assert_no_error (error);
  copy_node = cugi_graph_add_copy_node (graph, &memset_node, 1, b, 0, a, 0, SIZE, &error);
  g_assert_no_error (error);
  host_node = cugi_graph_add_host_node (graph, &copy_node, 1, count_run, &runs, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (cugi_graph_get_node_count (graph), ==, 3);
  g_assert_cmpuint (cugi_graph_get_kernel_node_count (graph), ==, 0);
  g_assert_cmpint (cugi_graph_node_get_node_type (copy_node), ==, CUGI_GRAPH_NODE_TYPE_MEMCPY);
  g_assert_true (cugi_graph_node_get_graph (host_node) == graph);

  exec = cugi_graph_instantiate (graph, &error);
  g_assert_no_error (error);
  g_assert_true (cugi_graph_exec_launch (exec, stream, &error));
  g_assert_true (cugi_graph_exec_launch (exec, stream, &error));
  g_assert_no_error (error);
  cugi_test_synchronize (stream);
  run_until (&runs, 2);

  /* The CPU's reference: zeros around the memset's range. */
  memset (expected, 0, sizeof expected);
  memset (expected + 16, 0x7b, SIZE - 32);
  downloaded = cugi_test_download_all (b);
  g_assert_cmpmem (g_bytes_get_data (downloaded, NULL), SIZE, expected, SIZE);

  /* Switched off, the memset leaves a as a copy of b set to 1 finds it. */
  g_assert_true (cugi_graph_exec_get_node_enabled (exec, memset_node, &error));
  g_assert_no_error (error);
  g_assert_true (cugi_graph_exec_set_node_enabled (exec, memset_node, FALSE, &error));
  g_assert_no_error (error);
  g_assert_true (cugi_buffer_memset_d8 (a, 0, 1, SIZE, stream, &error));
  g_assert_true (cugi_graph_exec_launch (exec, stream, &error));
  g_assert_no_error (error);
  cugi_test_synchronize (stream);
  run_until (&runs, 3);
  g_clear_pointer (&downloaded, g_bytes_unref);
  downloaded = cugi_test_download_all (b);
  memset (expected, 1, sizeof expected);
  g_assert_cmpmem (g_bytes_get_data (downloaded, NULL), SIZE, expected, SIZE);
  g_assert_false (cugi_graph_exec_get_node_enabled (exec, memset_node, &error));
  g_assert_no_error (error);
  cugi_test_settle (stream);
}

static void
free_flag (gpointer data)
{
  *(gboolean *) data = TRUE;
}

static void
never_run (gpointer data)
{
  g_assert_not_reached ();
}

static void
test_dependency_errors (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiBuffer) buffer = cugi_test_buffer_new (SIZE);
  g_autoptr(CugiGraph) graph = cugi_graph_new (NULL, &error);
  g_autoptr(CugiGraph) other = cugi_graph_new (NULL, &error);
  g_autoptr(CugiGraphNode) first = cugi_graph_add_empty_node (graph, NULL, 0, &error);
  g_autoptr(CugiGraphNode) foreign = cugi_graph_add_empty_node (other, NULL, 0, &error);
  CugiGraphNode *twice[2];
  gboolean freed = FALSE;

  g_assert_no_error (error);
  cugi_test_assert_fails (cugi_graph_add_empty_node (graph, &foreign, 1, &error) != NULL, &error,
                          CUGI_ERROR_INVALID_ARGUMENT, "another graph");
  twice[0] = twice[1] = first;
  cugi_test_assert_fails (cugi_graph_add_empty_node (graph, twice, 2, &error) != NULL, &error,
                          CUGI_ERROR_INVALID_ARGUMENT, "twice");
  cugi_test_assert_fails (cugi_graph_add_empty_node (graph, NULL, 1, &error) != NULL, &error,
                          CUGI_ERROR_INVALID_ARGUMENT, NULL);
  cugi_test_assert_fails (cugi_graph_add_memset_node (graph, NULL, 0, buffer, SIZE - 1, 0, 2, &error) != NULL,
                          &error, CUGI_ERROR_INVALID_ARGUMENT, "Out of range");
  cugi_test_assert_fails (cugi_graph_add_memset_node (graph, NULL, 0, buffer, 0, 0, 0, &error) != NULL,
                          &error, CUGI_ERROR_INVALID_ARGUMENT, NULL);
  /* A failed host node frees its data at once. */
  cugi_test_assert_fails (cugi_graph_add_host_node (graph, &foreign, 1, never_run, &freed, free_flag,
                                                    &error) != NULL,
                          &error, CUGI_ERROR_INVALID_ARGUMENT, NULL);
  g_assert_true (freed);
  cugi_test_assert_fails (cugi_graph_add_child_graph_node (graph, NULL, 0, graph, &error) != NULL, &error,
                          CUGI_ERROR_INVALID_ARGUMENT, "own child");
  /* Nothing was added by the failures, and the graph is still usable. */
  g_assert_cmpuint (cugi_graph_get_node_count (graph), ==, 1);
  g_clear_object (&foreign);
  foreign = cugi_graph_add_child_graph_node (graph, &first, 1, other, &error);
  g_assert_no_error (error);
  g_assert_cmpint (cugi_graph_node_get_node_type (foreign), ==, CUGI_GRAPH_NODE_TYPE_GRAPH);
}

static void
test_wrong_node_kinds (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  g_autoptr(CugiBuffer) buffer = cugi_test_buffer_new (SIZE);
  g_autoptr(CugiGraph) graph = cugi_graph_new (NULL, &error);
  g_autoptr(CugiGraph) other = cugi_graph_new (NULL, &error);
  g_autoptr(CugiKernelArgs) args = cugi_kernel_args_new ();
  g_autoptr(CugiGraphNode) memset_node = cugi_graph_add_memset_node (graph, NULL, 0, buffer, 0, 1, SIZE, &error);
  g_autoptr(CugiGraphNode) empty = cugi_graph_add_empty_node (graph, NULL, 0, &error);
  g_autoptr(CugiGraphNode) foreign = cugi_graph_add_empty_node (other, NULL, 0, &error);
  g_autoptr(CugiGraphExec) exec = cugi_graph_instantiate (graph, &error);

  g_assert_no_error (error);
  cugi_test_assert_fails (cugi_graph_exec_set_kernel_node_args (exec, memset_node, args, &error), &error,
                          CUGI_ERROR_INVALID_ARGUMENT, "kernel node");
  cugi_test_assert_fails (cugi_graph_exec_set_node_enabled (exec, empty, FALSE, &error), &error,
                          CUGI_ERROR_INVALID_ARGUMENT, NULL);
  cugi_test_assert_fails (cugi_graph_exec_set_node_enabled (exec, foreign, FALSE, &error), &error,
                          CUGI_ERROR_INVALID_ARGUMENT, "not one of the graph");
  cugi_test_assert_fails (cugi_graph_add_free_node (graph, NULL, 0, empty, &error) != NULL, &error,
                          CUGI_ERROR_INVALID_ARGUMENT, "allocation node");
  cugi_test_assert_fails (cugi_graph_node_get_body (memset_node, 0, &error) != NULL, &error,
                          CUGI_ERROR_INVALID_ARGUMENT, NULL);
  g_assert_cmpuint (cugi_graph_node_get_n_bodies (memset_node), ==, 0);
  /* Still launchable after all that. */
  g_assert_true (cugi_graph_exec_launch (exec, stream, &error));
  g_assert_no_error (error);
  cugi_test_settle (stream);
}

static void
test_kernel_node_args (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiModule) module = NULL;
  g_autoptr(CugiKernel) kernel = stand_in_kernel (&module);
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  g_autoptr(CugiBuffer) x = cugi_test_buffer_new (SIZE);
  g_autoptr(CugiBuffer) y = cugi_test_buffer_new (SIZE);
  g_autoptr(CugiLaunchConfig) config = cugi_launch_config_new (1, 64);
  g_autoptr(CugiKernelArgs) args = cugi_kernel_args_new ();
  g_autoptr(CugiKernelArgs) short_args = cugi_kernel_args_new ();
  g_autoptr(CugiGraph) graph = cugi_graph_new (NULL, &error);
  g_autoptr(CugiGraphNode) node = NULL;
  g_autoptr(CugiGraphExec) exec = NULL;

  cugi_kernel_args_add_float (args, 2.0f);
  cugi_kernel_args_add_buffer (args, x);
  cugi_kernel_args_add_buffer (args, y);
  cugi_kernel_args_add_uint32 (args, 64);
  cugi_kernel_args_add_float (short_args, 2.0f);

  /* Checked as launches are. */
  cugi_test_assert_fails (cugi_graph_add_kernel_node (graph, NULL, 0, kernel, config, short_args, &error) != NULL,
                          &error, CUGI_ERROR_INVALID_ARGUMENT, "axpy4");
  node = cugi_graph_add_kernel_node (graph, NULL, 0, kernel, config, args, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (cugi_graph_get_kernel_node_count (graph), ==, 1);

  exec = cugi_graph_instantiate (graph, &error);
  g_assert_no_error (error);
  cugi_test_assert_fails (cugi_graph_exec_set_kernel_node_args (exec, node, short_args, &error), &error,
                          CUGI_ERROR_INVALID_ARGUMENT, "axpy4");
  g_assert_true (cugi_graph_exec_set_kernel_node_args (exec, node, args, &error));
  g_assert_no_error (error);
  /* By index too, as for captured graphs. */
  g_assert_true (cugi_graph_exec_set_kernel_args (exec, 0, args, &error));
  g_assert_true (cugi_graph_exec_launch (exec, stream, &error));
  g_assert_no_error (error);
  cugi_test_settle (stream);
}

/* Updating an executable graph while it is pinned to a stream hands the
 * buffers of the old arguments to that stream: they outlive the args. */
static void
test_update_keeps_buffers (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiModule) module = NULL;
  g_autoptr(CugiKernel) kernel = stand_in_kernel (&module);
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  g_autoptr(CugiStream) other_stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  g_autoptr(CugiLaunchConfig) config = cugi_launch_config_new (1, 64);
  g_autoptr(CugiGraph) graph = cugi_graph_new (NULL, &error);
  g_autoptr(CugiGraphNode) node = NULL;
  g_autoptr(CugiGraphExec) exec = NULL;
  CugiBuffer *buffers[3];
  gpointer weak[3];

  for (guint i = 0; i < 3; i++)
    {
      g_autoptr(CugiKernelArgs) args = cugi_kernel_args_new ();

      buffers[i] = cugi_test_buffer_new (SIZE);
      weak[i] = buffers[i];
      g_object_add_weak_pointer (G_OBJECT (buffers[i]), &weak[i]);
      cugi_kernel_args_add_float (args, 1.0f);
      cugi_kernel_args_add_buffer (args, buffers[i]);
      cugi_kernel_args_add_buffer (args, buffers[i]);
      cugi_kernel_args_add_uint32 (args, 64);
      if (i == 0)
        node = cugi_graph_add_kernel_node (graph, NULL, 0, kernel, config, args, &error);
      else
        {
          if (i == 1)
            exec = cugi_graph_instantiate (graph, &error);
          g_assert_true (cugi_graph_exec_launch (exec, i == 1 ? stream : other_stream, &error));
          g_assert_true (cugi_graph_exec_set_kernel_node_args (exec, node, args, &error));
        }
      g_assert_no_error (error);
      g_object_unref (buffers[i]);
    }
  g_assert_true (cugi_graph_exec_launch (exec, stream, &error));
  g_assert_no_error (error);
  /* The graph keeps the first; the executable graph the last. */
  g_assert_nonnull (weak[0]);
  g_assert_nonnull (weak[2]);
  g_clear_object (&exec);
  g_clear_object (&node);
  g_clear_object (&graph);
  cugi_test_settle (stream);
  cugi_test_settle (other_stream);
  for (guint i = 0; i < 3; i++)
    {
      while (weak[i] != NULL)
        g_main_context_iteration (NULL, TRUE);
    }
}

static void
test_conditional_errors (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiGraph) graph = cugi_graph_new (NULL, &error);

  g_assert_no_error (error);
  cugi_test_assert_fails (cugi_graph_add_conditional_node (graph, NULL, 0, CUGI_CONDITIONAL_TYPE_WHILE, 0, 2,
                                                           &error) != NULL,
                          &error, CUGI_ERROR_INVALID_ARGUMENT, "while");
  cugi_test_assert_fails (cugi_graph_add_conditional_node (graph, NULL, 0, CUGI_CONDITIONAL_TYPE_IF, 0, 3,
                                                           &error) != NULL,
                          &error, CUGI_ERROR_INVALID_ARGUMENT, NULL);
  cugi_test_assert_fails (cugi_graph_add_conditional_node (graph, NULL, 0, CUGI_CONDITIONAL_TYPE_SWITCH, 0, 0,
                                                           &error) != NULL,
                          &error, CUGI_ERROR_INVALID_ARGUMENT, NULL);
  cugi_test_assert_fails (cugi_graph_add_conditional_node (graph, NULL, 0, (CugiConditionalType) 9, 0, 1,
                                                           &error) != NULL,
                          &error, CUGI_ERROR_INVALID_ARGUMENT, "CugiConditionalType");
  /* The stand-in lacks them, as drivers before CUDA 12.3 do. */
  cugi_test_assert_fails (cugi_graph_create_condition (graph, 1, TRUE, &error) != 0, &error,
                          CUGI_ERROR_NOT_SUPPORTED, "cuGraphConditionalHandleCreate");
  cugi_test_assert_fails (cugi_graph_add_conditional_node (graph, NULL, 0, CUGI_CONDITIONAL_TYPE_IF, 0, 2,
                                                           &error) != NULL,
                          &error, CUGI_ERROR_NOT_SUPPORTED, "cuGraphAddNode");
  cugi_test_assert_fails (cugi_graph_add_alloc_node (graph, NULL, 0, 64, &error) != NULL, &error,
                          CUGI_ERROR_NOT_SUPPORTED, "cuGraphAddMemAllocNode");
}

/* A condition goes only to a 64-bit parameter. */
static void
test_condition_arg (void)
{
  g_autoptr(CugiKernelArgs) args = cugi_kernel_args_new ();

  cugi_kernel_args_add_condition (args, 42);
  g_assert_cmpint (cugi_kernel_args_get_arg_type (args, 0), ==, CUGI_ARG_CONDITION);
  g_assert_cmpuint (cugi_kernel_args_get_arg_size (args, 0), ==, 8);
}

static CUcontext
current_context (void)
{
  CUcontext current = NULL;

  g_assert_cmpint (cugi_cuda.cuCtxGetCurrent (&current), ==, CUDA_SUCCESS);
  return current;
}

/* On a stream of its own a graph is launched whichever context is current
 * (none, another), as the driver launches in the stream's; where a driver
 * refuses that, the launch is made again with the graph's context pushed,
 * and the caller's current context is left as it was. */
static void
test_launch_any_current (void)
{
  int (*need_current) (CUcontext) = cugi_test_stand_in_symbol ("fake_cuda_streams_graphs_need_current");
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  CugiContext *own = cugi_stream_get_context (stream);
  g_autoptr(CugiContext) other = cugi_context_new (cugi_context_get_device (own), CUGI_CONTEXT_FLAGS_NONE, &error);
  g_autoptr(CugiBuffer) buffer = cugi_test_buffer_new (SIZE);
  g_autoptr(CugiGraph) graph = cugi_graph_new (NULL, &error);
  g_autoptr(CugiGraphNode) node = NULL;
  g_autoptr(CugiGraphExec) exec = NULL;
  guint8 expected[SIZE];

  g_assert_no_error (error);
  node = cugi_graph_add_memset_node (graph, NULL, 0, buffer, 0, 0x5a, SIZE, &error);
  g_assert_no_error (error);
  exec = cugi_graph_instantiate (graph, &error);
  g_assert_no_error (error);
  memset (expected, 0x5a, sizeof expected);
  g_assert_null (current_context ());

  for (guint round = 0; round < 4; round++)
    {
      gboolean driver_refuses = round >= 2;
      CugiContext *current = round % 2 == 1 ? other : NULL;
      g_autoptr(GBytes) downloaded = NULL;

      g_test_message ("round %u: %s current, the driver %s", round, current != NULL ? "another context" : "no context",
                      driver_refuses ? "wanting the graph's" : "taking the stream's");
      g_assert_true (cugi_buffer_memset_d8 (buffer, 0, 0xff, SIZE, stream, &error));
      g_assert_no_error (error);
      need_current (driver_refuses ? cugi_context_get_handle (own) : NULL);
      if (current != NULL)
        g_assert_true (cugi_context_push (current, &error));
      g_assert_true (cugi_graph_exec_launch (exec, stream, &error));
      g_assert_no_error (error);
      g_assert_true (current_context () == (current != NULL ? cugi_context_get_handle (current) : NULL));
      if (current != NULL)
        g_assert_true (cugi_context_pop (current, &error));
      g_assert_no_error (error);
      g_assert_cmpint (need_current (NULL), ==, driver_refuses ? 1 : 0);

      cugi_test_synchronize (stream);
      downloaded = cugi_test_download_all (buffer);
      g_assert_cmpmem (g_bytes_get_data (downloaded, NULL), g_bytes_get_size (downloaded), expected, SIZE);
    }
  g_assert_null (current_context ());
  cugi_test_settle (stream);
}

int
main (int argc, char **argv)
{
  cugi_test_init_stand_in (&argc, &argv);

  g_test_add_func ("/graph-logic/memset-copy-host", test_memset_copy_host);
  g_test_add_func ("/graph-logic/dependency-errors", test_dependency_errors);
  g_test_add_func ("/graph-logic/wrong-node-kinds", test_wrong_node_kinds);
  g_test_add_func ("/graph-logic/kernel-node-args", test_kernel_node_args);
  g_test_add_func ("/graph-logic/update-keeps-buffers", test_update_keeps_buffers);
  g_test_add_func ("/graph-logic/conditional-errors", test_conditional_errors);
  g_test_add_func ("/graph-logic/condition-arg", test_condition_arg);
  g_test_add_func ("/graph-logic/launch-any-current", test_launch_any_current);
  return g_test_run ();
}
