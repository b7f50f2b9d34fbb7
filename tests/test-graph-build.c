/* test-graph-build.c: graphs built node by node on a GPU, against CPU
 * references: kernel, memset and copy nodes with dependencies, a host node
 * in the main context, an if/else on a condition, and a while loop that runs
 * until its kernel clears its condition (needs a GPU and CUDA 12.4+). */
#include "config.h"

#include <string.h>

#include "cugi-private.h"
#include "cugi-test-utils.h"

#define N 1024
#define LOOPS 37

static const char source[] =
  "extern \"C\" __device__ void cudaGraphSetConditional (unsigned long long handle, unsigned int value);\n"
  "extern \"C\" __global__ void add_one (int *data, unsigned int n)\n"
  "{\n"
  "  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (i < n)\n"
  "    data[i] += 1;\n"
  "}\n"
  /* One step of the loop: counts, and clears the condition at @limit. */
  "extern \"C\" __global__ void step (unsigned long long condition, int *counter, int limit)\n"
  "{\n"
  "  if (threadIdx.x == 0 && ++*counter >= limit)\n"
  "    cudaGraphSetConditional (condition, 0);\n"
  "}\n";

static CugiModule *
build_module (void)
{
  const char *options[] = { "-rdc=true", NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiProgram) program = cugi_program_new (source, "graph-build.cu");
  g_autoptr(CugiLinker) linker = NULL;
  CugiModule *module;

  g_assert_true (cugi_program_compile (program, options, &error));
  g_assert_no_error (error);
  linker = cugi_linker_new (NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (cugi_linker_add_program (linker, program, &error));
  g_assert_true (cugi_linker_add_device_runtime (linker, &error));
  g_assert_no_error (error);
  module = cugi_linker_complete (linker, &error);
  g_assert_no_error (error);
  return module;
}

static CugiKernel *
get_kernel (CugiModule *module,
            const char *name)
{
  g_autoptr(GError) error = NULL;
  CugiKernel *kernel = cugi_module_get_kernel (module, name, &error);

  g_assert_no_error (error);
  return kernel;
}

static void
assert_ints (CugiBuffer *buffer,
             const int  *expected,
             guint       n)
{
  g_autoptr(GBytes) bytes = cugi_test_download (buffer, 0, n * sizeof (int));

  g_assert_cmpmem (g_bytes_get_data (bytes, NULL), n * sizeof (int), expected, n * sizeof (int));
}

static void
count_run (gpointer user_data)
{
  (*(guint *) user_data)++;
}

/* memset a to 0 → add_one (a) → copy a into b → host node; launched 3
 * times, then with add_one switched off. */
static void
test_kernel_memset_copy_host (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiModule) module = build_module ();
  g_autoptr(CugiKernel) add_one = get_kernel (module, "add_one");
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  g_autoptr(CugiBuffer) a = cugi_test_buffer_new (N * sizeof (int));
  g_autoptr(CugiBuffer) b = cugi_test_buffer_new (N * sizeof (int));
  g_autoptr(CugiLaunchConfig) config = cugi_launch_config_new (N / 256, 256);
  g_autoptr(CugiKernelArgs) args = cugi_kernel_args_new ();
  g_autoptr(CugiGraph) graph = cugi_graph_new (NULL, &error);
  g_autoptr(CugiGraphNode) zero = NULL, kernel = NULL, copy = NULL, host = NULL;
  g_autoptr(CugiGraphExec) exec = NULL;
  int expected[N];
  guint runs = 0;

  cugi_kernel_args_add_buffer (args, a);
  cugi_kernel_args_add_uint32 (args, N);
  zero = cugi_graph_add_memset_node (graph, NULL, 0, a, 0, 0, N * sizeof (int), &error);
  g_assert_no_error (error);
  kernel = cugi_graph_add_kernel_node (graph, &zero, 1, add_one, config, args, &error);
  g_assert_no_error (error);
  copy = cugi_graph_add_copy_node (graph, &kernel, 1, b, 0, a, 0, N * sizeof (int), &error);
  g_assert_no_error (error);
  host = cugi_graph_add_host_node (graph, &copy, 1, count_run, &runs, NULL, &error);
  g_assert_no_error (error);
  exec = cugi_graph_instantiate (graph, &error);
  g_assert_no_error (error);

  for (guint i = 0; i < 3; i++)
    g_assert_true (cugi_graph_exec_launch (exec, stream, &error));
  g_assert_no_error (error);
  cugi_test_synchronize (stream);
  while (runs < 3)
    g_main_context_iteration (NULL, TRUE);
  for (guint i = 0; i < N; i++)
    expected[i] = 1;
  assert_ints (b, expected, N);

  g_assert_true (cugi_graph_exec_set_node_enabled (exec, kernel, FALSE, &error));
  g_assert_true (cugi_graph_exec_launch (exec, stream, &error));
  g_assert_no_error (error);
  cugi_test_synchronize (stream);
  memset (expected, 0, sizeof expected);
  assert_ints (b, expected, N);
  cugi_test_settle (stream);
}

/* A while node whose body counts in a kernel that clears the condition at
 * LOOPS: the counter ends at LOOPS, at every launch (the default value 1
 * is set again each time). Then an if/else on a condition of default 0
 * runs the else body. */
static void
test_while_and_if_else (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiModule) module = build_module ();
  g_autoptr(CugiKernel) step = get_kernel (module, "step");
  g_autoptr(CugiKernel) add_one = get_kernel (module, "add_one");
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  g_autoptr(CugiBuffer) counter = cugi_test_buffer_new (2 * sizeof (int));
  g_autoptr(CugiLaunchConfig) one = cugi_launch_config_new (1, 32);
  g_autoptr(CugiKernelArgs) step_args = cugi_kernel_args_new ();
  g_autoptr(CugiKernelArgs) else_args = cugi_kernel_args_new ();
  g_autoptr(CugiGraph) graph = cugi_graph_new (NULL, &error);
  g_autoptr(CugiGraph) body = NULL, else_body = NULL;
  g_autoptr(CugiGraphNode) reset = NULL, loop = NULL, branch = NULL, body_node = NULL, else_node = NULL;
  g_autoptr(CugiGraphExec) exec = NULL;
  guint64 loop_condition, branch_condition;
  int expected[2];

  reset = cugi_graph_add_memset_node (graph, NULL, 0, counter, 0, 0, 2 * sizeof (int), &error);
  g_assert_no_error (error);
  loop_condition = cugi_graph_create_condition (graph, 1, TRUE, &error);
  g_assert_no_error (error);
  loop = cugi_graph_add_conditional_node (graph, &reset, 1, CUGI_CONDITIONAL_TYPE_WHILE, loop_condition, 1,
                                          &error);
  g_assert_no_error (error);
  body = cugi_graph_node_get_body (loop, 0, &error);
  g_assert_no_error (error);
  cugi_kernel_args_add_condition (step_args, loop_condition);
  cugi_kernel_args_add_buffer (step_args, counter);
  cugi_kernel_args_add_int32 (step_args, LOOPS);
  body_node = cugi_graph_add_kernel_node (body, NULL, 0, step, one, step_args, &error);
  g_assert_no_error (error);

  /* If/else on a condition of 0: the else body adds one to both ints. */
  branch_condition = cugi_graph_create_condition (graph, 0, TRUE, &error);
  g_assert_no_error (error);
  branch = cugi_graph_add_conditional_node (graph, &loop, 1, CUGI_CONDITIONAL_TYPE_IF, branch_condition, 2,
                                            &error);
  g_assert_no_error (error);
  else_body = cugi_graph_node_get_body (branch, 1, &error);
  g_assert_no_error (error);
  cugi_kernel_args_add_buffer (else_args, counter);
  cugi_kernel_args_add_uint32 (else_args, 2);
  else_node = cugi_graph_add_kernel_node (else_body, NULL, 0, add_one, one, else_args, &error);
  g_assert_no_error (error);

  exec = cugi_graph_instantiate (graph, &error);
  g_assert_no_error (error);
  for (guint launch = 0; launch < 2; launch++)
    {
      g_assert_true (cugi_graph_exec_launch (exec, stream, &error));
      g_assert_no_error (error);
      cugi_test_synchronize (stream);
      /* CPU reference: LOOPS steps, then the else body's +1 on both. */
      expected[0] = LOOPS + 1;
      expected[1] = 1;
      assert_ints (counter, expected, 2);
    }
  cugi_test_settle (stream);
}

int
main (int   argc,
      char *argv[])
{
  cugi_test_init (&argc, &argv);
  cugi_test_require_gpu ();

  g_test_add_func ("/graph-build/kernel-memset-copy-host", test_kernel_memset_copy_host);
  g_test_add_func ("/graph-build/while-and-if-else", test_while_and_if_else);
  return g_test_run ();
}
