/* test-graph.c: CUDA graphs by stream capture, their launches and updates
 * (needs a GPU) */
#include "config.h"

#include <string.h>

#include "cugi-private.h"
#include "cugi-context-private.h"
#include "cugi-launch-private.h"
#include "cugi-stream-private.h"
#include "cugi-test-utils.h"

#define N_ELEMENTS 4096
#define N_LAUNCHES 10

static const char add_source[] =
  "template <typename T>\n"
  "__global__ void add (T *data, T value, unsigned int n)\n"
  "{\n"
  "  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (i < n)\n"
  "    data[i] += value;\n"
  "}\n";

typedef struct
{
  CugiKernel       *kernel;
  CugiStream       *stream;
  CugiLaunchConfig *config;
  CugiBuffer       *x;
  CugiBuffer       *y;
} Fixture;

static CugiBuffer *
zeroed_buffer (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree float *zeros = g_new0 (float, N_ELEMENTS);
  g_autoptr(CugiBuffer) buffer = cugi_test_buffer_new (N_ELEMENTS * sizeof (float));

  g_assert_true (cugi_buffer_upload (buffer, 0, (const guint8 *) zeros, N_ELEMENTS * sizeof (float), &error));
  g_assert_no_error (error);
  return g_steal_pointer (&buffer);
}

static void
fixture_set_up (Fixture      *fixture,
                gconstpointer user_data)
{
  g_autoptr(GError) error = NULL;

  fixture->kernel = cugi_kernel_new_from_source (NULL, add_source, "add<float>", NULL, &error);
  g_assert_no_error (error);
  fixture->stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  fixture->config = cugi_launch_config_new (N_ELEMENTS / 256, 256);
  cugi_launch_config_set_stream (fixture->config, fixture->stream);
  fixture->x = zeroed_buffer ();
  fixture->y = zeroed_buffer ();
}

static void
fixture_tear_down (Fixture      *fixture,
                   gconstpointer user_data)
{
  g_clear_object (&fixture->kernel);
  g_clear_object (&fixture->stream);
  g_clear_pointer (&fixture->config, cugi_launch_config_unref);
  g_clear_object (&fixture->x);
  g_clear_object (&fixture->y);
}

static CugiKernelArgs *
add_args (CugiBuffer *data,
          float       value)
{
  CugiKernelArgs *args = cugi_kernel_args_new ();

  cugi_kernel_args_add_buffer (args, data);
  cugi_kernel_args_add_float (args, value);
  cugi_kernel_args_add_uint32 (args, N_ELEMENTS);
  return args;
}

/* Captures @n launches of add into @data, the i-th adding @values[i]. */
static CugiGraph *
capture_adds (Fixture     *fixture,
              CugiBuffer  *data,
              const float *values,
              guint        n)
{
  g_autoptr(GError) error = NULL;
  CugiGraph *graph;

  g_assert_true (cugi_graph_capture_begin (fixture->stream, CUGI_CAPTURE_MODE_GLOBAL, &error));
  g_assert_no_error (error);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(CugiKernelArgs) args = add_args (data, values[i]);

      g_assert_true (cugi_kernel_launch (fixture->kernel, fixture->config, args, &error));
      g_assert_no_error (error);
    }
  graph = cugi_graph_capture_end (fixture->stream, &error);
  g_assert_no_error (error);
  g_assert_true (CUGI_IS_GRAPH (graph));
  return graph;
}

static void
assert_all (Fixture    *fixture,
            CugiBuffer *data,
            float       expected)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;
  const float *values;

  cugi_test_synchronize (fixture->stream);
  bytes = cugi_buffer_download (data, 0, N_ELEMENTS * sizeof (float), &error);
  g_assert_no_error (error);
  values = g_bytes_get_data (bytes, NULL);
  for (guint i = 0; i < N_ELEMENTS; i++)
    if (values[i] != expected)
      g_error ("element %u is %g, expected %g", i, values[i], expected);
}

static CugiGraphExec *
instantiate (CugiGraph *graph)
{
  g_autoptr(GError) error = NULL;
  CugiGraphExec *exec = cugi_graph_instantiate (graph, &error);

  g_assert_no_error (error);
  g_assert_true (CUGI_IS_GRAPH_EXEC (exec));
  return exec;
}

static void
launch (CugiGraphExec *exec,
        CugiStream    *stream)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (cugi_graph_exec_launch (exec, stream, &error));
  g_assert_no_error (error);
}

static const float one_to_ten[N_LAUNCHES] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };

static void
test_capture_and_launch (Fixture      *fixture,
                         gconstpointer user_data)
{
  g_autoptr(CugiGraph) graph = capture_adds (fixture, fixture->x, one_to_ten, N_LAUNCHES);
  g_autoptr(CugiGraphExec) exec = NULL;
  g_autoptr(GError) error = NULL;
  guint nodes = 0;

  /* Captured, not run. */
  assert_all (fixture, fixture->x, 0.0f);
  g_object_get (graph, "node-count", &nodes, NULL);
  g_assert_cmpuint (nodes, ==, N_LAUNCHES);
  g_assert_cmpuint (cugi_graph_get_kernel_node_count (graph), ==, N_LAUNCHES);
  g_assert_true (cugi_graph_get_context (graph) == cugi_kernel_get_context (fixture->kernel));

  exec = instantiate (graph);
  g_assert_true (cugi_graph_exec_upload (exec, fixture->stream, &error));
  g_assert_no_error (error);

  /* 1 + 2 + ... + 10 = 55 a launch. */
  launch (exec, fixture->stream);
  assert_all (fixture, fixture->x, 55.0f);
  launch (exec, fixture->stream);
  assert_all (fixture, fixture->x, 110.0f);

  /* The default stream works too, and the graph may go: the executable
   * graph keeps what it needs. */
  g_clear_object (&graph);
  launch (exec, NULL);
  assert_all (fixture, fixture->x, 165.0f);
}

static void
test_set_kernel_args (Fixture      *fixture,
                      gconstpointer user_data)
{
  g_autoptr(CugiGraph) graph = capture_adds (fixture, fixture->x, one_to_ten, N_LAUNCHES);
  g_autoptr(CugiGraphExec) exec = NULL;
  g_autoptr(CugiKernelArgs) args = NULL;
  g_autoptr(GError) error = NULL;

  exec = instantiate (graph);

  /* Node 3 adds 4: make it add 100, so a launch adds 55 - 4 + 100. */
  args = add_args (fixture->x, 100.0f);
  g_assert_true (cugi_graph_exec_set_kernel_args (exec, 3, args, &error));
  g_assert_no_error (error);
  launch (exec, fixture->stream);
  assert_all (fixture, fixture->x, 151.0f);

  /* Node 0 now adds 1000 to y instead of 1 to x. */
  g_clear_pointer (&args, cugi_kernel_args_unref);
  args = add_args (fixture->y, 1000.0f);
  g_assert_true (cugi_graph_exec_set_kernel_args (exec, 0, args, &error));
  g_assert_no_error (error);
  g_clear_pointer (&args, cugi_kernel_args_unref);
  launch (exec, fixture->stream);
  assert_all (fixture, fixture->x, 151.0f + 150.0f);
  assert_all (fixture, fixture->y, 1000.0f);

  /* Arguments are checked against the kernel that was captured... */
  args = cugi_kernel_args_new ();
  cugi_kernel_args_add_buffer (args, fixture->x);
  cugi_kernel_args_add_int32 (args, 5);
  cugi_kernel_args_add_uint32 (args, N_ELEMENTS);
  g_assert_false (cugi_graph_exec_set_kernel_args (exec, 1, args, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "parameter 1 (float)");

  /* ... and the node must exist. */
  g_clear_pointer (&args, cugi_kernel_args_unref);
  args = add_args (fixture->x, 1.0f);
  g_assert_false (cugi_graph_exec_set_kernel_args (exec, N_LAUNCHES, args, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, NULL);

  /* The refused changes changed nothing. */
  launch (exec, fixture->stream);
  assert_all (fixture, fixture->x, 301.0f + 150.0f);
  assert_all (fixture, fixture->y, 2000.0f);
}

static void
test_update (Fixture      *fixture,
             gconstpointer user_data)
{
  const float twos[N_LAUNCHES] = { 2, 2, 2, 2, 2, 2, 2, 2, 2, 2 };
  g_autoptr(CugiGraph) graph = capture_adds (fixture, fixture->x, one_to_ten, N_LAUNCHES);
  g_autoptr(CugiGraph) same_shape = capture_adds (fixture, fixture->y, twos, N_LAUNCHES);
  g_autoptr(CugiGraph) other_shape = capture_adds (fixture, fixture->y, twos, 5);
  g_autoptr(CugiGraphExec) exec = NULL;
  g_autoptr(CugiGraph) current = NULL;
  g_autoptr(CugiKernelArgs) args = NULL;
  g_autoptr(GError) error = NULL;

  exec = instantiate (graph);
  launch (exec, fixture->stream);
  assert_all (fixture, fixture->x, 55.0f);

  /* The same ten launches with other arguments: now y gets 10 × 2. */
  g_assert_true (cugi_graph_exec_update (exec, same_shape, &error));
  g_assert_no_error (error);
  current = cugi_graph_exec_get_graph (exec);
  g_assert_true (current == same_shape);
  g_clear_object (&same_shape);
  launch (exec, fixture->stream);
  assert_all (fixture, fixture->x, 55.0f);
  assert_all (fixture, fixture->y, 20.0f);

  /* Five launches are not the shape of ten: refused, nothing changes. */
  g_assert_false (cugi_graph_exec_update (exec, other_shape, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, NULL);
  launch (exec, fixture->stream);
  assert_all (fixture, fixture->y, 40.0f);

  /* Kernel arguments still change after an update: node 0 adds 5, so a
   * launch adds 9 × 2 + 5 to y. */
  args = add_args (fixture->y, 5.0f);
  g_assert_true (cugi_graph_exec_set_kernel_args (exec, 0, args, &error));
  g_assert_no_error (error);
  launch (exec, fixture->stream);
  assert_all (fixture, fixture->y, 63.0f);
  assert_all (fixture, fixture->x, 55.0f);
}

static void
test_misuse (Fixture      *fixture,
             gconstpointer user_data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiGraph) graph = NULL;
  g_autoptr(CugiGraph) unmade = g_object_new (CUGI_TYPE_GRAPH, NULL);

  /* Ending a capture that never began. */
  graph = cugi_graph_capture_end (fixture->stream, &error);
  g_assert_null (graph);
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_STATE, NULL);

  /* The legacy default stream cannot be captured. */
  g_assert_false (cugi_graph_capture_begin (cugi_stream_resolve (NULL, cugi_kernel_get_context (fixture->kernel)),
                                            CUGI_CAPTURE_MODE_GLOBAL, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, NULL);

  /* A graph a binding made with g_object_new() stands for nothing. */
  g_assert_null (cugi_graph_instantiate (unmade, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_STATE, NULL);

  /* Ordinary launches go on after a capture. */
  {
    g_autoptr(CugiKernelArgs) args = add_args (fixture->x, 7.0f);

    g_assert_true (cugi_kernel_launch (fixture->kernel, fixture->config, args, &error));
    g_assert_no_error (error);
    assert_all (fixture, fixture->x, 7.0f);
  }
}

/* Copies and memsets captured into a graph keep their buffers alive as long
 * as the graph does: a synchronization of the stream after the capture must
 * not drop a buffer only the graph still uses. */
static void
test_captured_copy_keeps_buffer (Fixture      *fixture,
                                 gconstpointer user_data)
{
  const float three = 3.0f;
  g_autoptr(GError) error = NULL;
  CugiBuffer *filled = cugi_test_buffer_new (N_ELEMENTS * sizeof (float));
  gpointer weak_filled = filled;
  CugiGraphExec *exec;
  CugiGraph *graph;
  guint32 three_bits;

  memcpy (&three_bits, &three, sizeof three_bits);
  g_object_add_weak_pointer (G_OBJECT (filled), &weak_filled);
  g_assert_true (cugi_graph_capture_begin (fixture->stream, CUGI_CAPTURE_MODE_GLOBAL, &error));
  g_assert_true (cugi_buffer_memset_d32 (filled, 0, three_bits, N_ELEMENTS, fixture->stream, &error));
  g_assert_true (cugi_buffer_copy (fixture->x, 0, filled, 0, N_ELEMENTS * sizeof (float),
                                   fixture->stream, &error));
  g_assert_no_error (error);
  g_object_unref (filled);
  graph = cugi_graph_capture_end (fixture->stream, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (cugi_graph_get_node_count (graph), ==, 2);

  /* Captured, not run: the stream is done, the graph is not. */
  assert_all (fixture, fixture->x, 0.0f);
  g_assert_nonnull (weak_filled);

  exec = instantiate (graph);
  g_object_unref (graph);
  g_assert_nonnull (weak_filled);
  launch (exec, fixture->stream);
  assert_all (fixture, fixture->x, 3.0f);

  /* Synchronized, and the executable graph gone: nothing holds it. */
  g_object_unref (exec);
  g_assert_null (weak_filled);
}

/* The driver launches a graph in its stream's context whichever is current
 * (none, another on the same device): cugi's launch, which asks none, adds
 * each time, and leaves the caller's current context as it was. */
static void
test_launch_any_current (Fixture      *fixture,
                         gconstpointer user_data)
{
  static const float two = 2;
  CugiContext *own = cugi_stream_get_context (fixture->stream);
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiContext) other = cugi_context_new (cugi_context_get_device (own), CUGI_CONTEXT_FLAGS_NONE, &error);
  g_autoptr(CugiGraph) graph = capture_adds (fixture, fixture->x, &two, 1);
  g_autoptr(CugiGraphExec) exec = instantiate (graph);
  CUcontext current = NULL;

  g_assert_no_error (error);
  g_assert_cmpint (cugi_cuda.cuCtxGetCurrent (&current), ==, CUDA_SUCCESS);
  g_assert_null (current);
  launch (exec, fixture->stream);
  assert_all (fixture, fixture->x, 2.0f);

  g_assert_true (cugi_context_push (other, &error));
  g_assert_no_error (error);
  launch (exec, fixture->stream);
  g_assert_cmpint (cugi_cuda.cuCtxGetCurrent (&current), ==, CUDA_SUCCESS);
  g_assert_true (current == cugi_context_get_handle (other));
  g_assert_true (cugi_context_pop (other, &error));
  g_assert_no_error (error);
  assert_all (fixture, fixture->x, 4.0f);
}

static void
add_test (const char *path,
          void      (*test) (Fixture *, gconstpointer))
{
  g_test_add (path, Fixture, NULL, fixture_set_up, test, fixture_tear_down);
}

int
main (int   argc,
      char *argv[])
{
  cugi_test_init (&argc, &argv);
  cugi_test_require_gpu ();

  add_test ("/graph/capture-and-launch", test_capture_and_launch);
  add_test ("/graph/set-kernel-args", test_set_kernel_args);
  add_test ("/graph/update", test_update);
  add_test ("/graph/misuse", test_misuse);
  add_test ("/graph/captured-copy-keeps-buffer", test_captured_copy_keeps_buffer);
  add_test ("/graph/launch-any-current", test_launch_any_current);

  return g_test_run ();
}
