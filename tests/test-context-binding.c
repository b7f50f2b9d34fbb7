/* test-context-binding.c: one condition, one code, over every class bound
 * to a context, on the stand-in driver (fake-cuda-streams). An object whose
 * context was reset since it was made, and an object used with one of
 * another context, fail with CUGI_ERROR_INVALID_CONTEXT and a message. */
#include "config.h"

#include "cugi-private.h"
#include "cugi-stream-private.h"
#include "cugi-test-utils.h"

/* The stand-in driver's module format: a kernel and its parameters' sizes. */
static const char image[] = "fill 4 8\n";

/* Memory for the stand-in, which has none: device memory is host memory.
 * The stand-in holds each allocation until it is freed, as a driver does: a
 * reset takes a context's memory with it, so cugi frees none of it after
 * one, and what the reset took stays here, where leak checkers see it held
 * (the streams' threads may still be writing it). */
static GHashTable *live_memory;  /* the allocations not freed yet */

static gpointer
allocate (size_t size)
{
  gpointer data = g_malloc0 (size);

  if (live_memory == NULL)
    live_memory = g_hash_table_new_full (NULL, NULL, g_free, NULL);
  g_hash_table_add (live_memory, data);
  return data;
}

static void
release (gpointer data)
{
  g_assert_true (g_hash_table_remove (live_memory, data));
}

static CUresult CUDAAPI
fake_mem_alloc (CUdeviceptr *address,
                size_t       size)
{
  *address = (CUdeviceptr) (guintptr) allocate (size);
  return CUDA_SUCCESS;
}

static CUresult CUDAAPI
fake_mem_free (CUdeviceptr address)
{
  release ((gpointer) (guintptr) address);
  return CUDA_SUCCESS;
}

static CUresult CUDAAPI
fake_mem_host_alloc (void         **data,
                     size_t         size,
                     unsigned int   flags)
{
  *data = allocate (size);
  return CUDA_SUCCESS;
}

static CUresult CUDAAPI
fake_mem_free_host (void *data)
{
  release (data);
  return CUDA_SUCCESS;
}

/* ---- objects -------------------------------------------------------------- */

static CugiContext *
other_device_context (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiDevice) device = cugi_device_get (1, &error);
  CugiContext *context;

  g_assert_no_error (error);
  context = cugi_device_get_primary_context (device, &error);
  g_assert_no_error (error);
  return context;
}

static CugiStream *
stream_new (CugiContext *context)
{
  g_autoptr(GError) error = NULL;
  CugiStream *stream = cugi_stream_new (context, CUGI_STREAM_FLAGS_NON_BLOCKING, 0, &error);

  g_assert_no_error (error);
  return stream;
}

static CugiEvent *
event_new (CugiContext *context)
{
  g_autoptr(GError) error = NULL;
  CugiEvent *event = cugi_event_new (context, CUGI_EVENT_FLAGS_NONE, &error);

  g_assert_no_error (error);
  return event;
}

static CugiBuffer *
buffer_new (CugiContext *context)
{
  g_autoptr(GError) error = NULL;
  CugiBuffer *buffer = cugi_buffer_new (context, 64, &error);

  g_assert_no_error (error);
  return buffer;
}

static CugiModule *
module_new (CugiContext *context)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = g_bytes_new_static (image, sizeof image);
  CugiModule *module = cugi_module_new_from_data (context, bytes, &error);

  g_assert_no_error (error);
  return module;
}

static CugiKernel *
kernel_new (CugiContext *context)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiModule) module = module_new (context);
  CugiKernel *kernel = cugi_module_get_kernel (module, "fill", &error);

  g_assert_no_error (error);
  return kernel;
}

/* Arguments for "fill" (int value, int *data). */
static CugiKernelArgs *
fill_args (CugiBuffer *data)
{
  CugiKernelArgs *args = cugi_kernel_args_new ();

  cugi_kernel_args_add_int32 (args, 7);
  cugi_kernel_args_add_buffer (args, data);
  return args;
}

static gboolean
launch (CugiKernel  *kernel,
        CugiStream  *stream,
        CugiBuffer  *data,
        GError     **error)
{
  g_autoptr(CugiLaunchConfig) config = cugi_launch_config_new (1, 32);
  g_autoptr(CugiKernelArgs) args = fill_args (data);

  cugi_launch_config_set_stream (config, stream);
  return cugi_kernel_launch (kernel, config, args, error);
}

/* A graph of one launch of "fill", captured on a stream of @context. */
static CugiGraph *
graph_new (CugiContext *context)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiStream) stream = stream_new (context);
  g_autoptr(CugiKernel) kernel = kernel_new (context);
  g_autoptr(CugiBuffer) data = buffer_new (context);
  CugiGraph *graph;

  g_assert_true (cugi_graph_capture_begin (stream, CUGI_CAPTURE_MODE_GLOBAL, &error));
  g_assert_no_error (error);
  g_assert_true (launch (kernel, stream, data, &error));
  g_assert_no_error (error);
  graph = cugi_graph_capture_end (stream, &error);
  g_assert_no_error (error);
  return graph;
}

static CugiGraphExec *
graph_exec_new (CugiContext *context)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiGraph) graph = graph_new (context);
  CugiGraphExec *exec = cugi_graph_instantiate (graph, &error);

  g_assert_no_error (error);
  return exec;
}

/* ---- after a reset: one row per class ------------------------------------- */

typedef struct
{
  const char *name;
  gpointer  (*make) (CugiContext *context);
  gboolean  (*use)  (gpointer object, GError **error);
} BoundClass;

static gpointer
make_stream (CugiContext *context)
{
  return stream_new (context);
}

static gboolean
use_stream (gpointer object, GError **error)
{
  return cugi_stream_query (object, error) || *error == NULL;
}

static gpointer
make_event (CugiContext *context)
{
  return event_new (context);
}

static gboolean
use_event (gpointer object, GError **error)
{
  return cugi_event_record (object, NULL, error);
}

static gpointer
make_buffer (CugiContext *context)
{
  return buffer_new (context);
}

static gboolean
use_buffer (gpointer object, GError **error)
{
  return cugi_buffer_memset_d8 (object, 0, 1, 16, NULL, error);
}

static gpointer
make_buffer_view (CugiContext *context)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiBuffer) buffer = buffer_new (context);
  CugiBuffer *view = cugi_buffer_new_view (buffer, 16, 16, &error);

  g_assert_no_error (error);
  return view;
}

static gpointer
make_host_buffer (CugiContext *context)
{
  g_autoptr(GError) error = NULL;
  CugiHostBuffer *buffer = cugi_host_buffer_new (context, 64, CUGI_HOST_BUFFER_FLAGS_NONE, &error);

  g_assert_no_error (error);
  return buffer;
}

static gboolean
use_host_buffer (gpointer object, GError **error)
{
  return cugi_host_buffer_get_data (object, NULL, error) != NULL;
}

static gpointer
make_module (CugiContext *context)
{
  return module_new (context);
}

static gboolean
use_module (gpointer object, GError **error)
{
  g_autoptr(CugiKernel) kernel = cugi_module_get_kernel (object, "fill", error);

  return kernel != NULL;
}

static gpointer
make_kernel (CugiContext *context)
{
  return kernel_new (context);
}

/* On a buffer of another device, whose context no reset here touches. */
static gboolean
use_kernel (gpointer object, GError **error)
{
  g_autoptr(CugiContext) other = other_device_context ();
  g_autoptr(CugiBuffer) data = buffer_new (other);

  return launch (object, NULL, data, error);
}

static gpointer
make_graph (CugiContext *context)
{
  return graph_new (context);
}

static gboolean
use_graph (gpointer object, GError **error)
{
  g_autoptr(CugiGraphExec) exec = cugi_graph_instantiate (object, error);

  return exec != NULL;
}

static gpointer
make_graph_exec (CugiContext *context)
{
  return graph_exec_new (context);
}

static gboolean
use_graph_exec (gpointer object, GError **error)
{
  return cugi_graph_exec_launch (object, NULL, error);
}

static const BoundClass bound_classes[] = {
  { "stream",      make_stream,      use_stream },
  { "event",       make_event,       use_event },
  { "buffer",      make_buffer,      use_buffer },
  { "buffer-view", make_buffer_view, use_buffer },
  { "host-buffer", make_host_buffer, use_host_buffer },
  { "module",      make_module,      use_module },
  { "kernel",      make_kernel,      use_kernel },
  { "graph",       make_graph,       use_graph },
  { "graph-exec",  make_graph_exec,  use_graph_exec },
};

/* In a subprocess, as the stand-in's reset destroys every stream and event
 * made before it. */
static void
test_after_reset (gconstpointer data)
{
  const BoundClass *row = data;
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiContext) context = NULL;
  g_autoptr(GObject) object = NULL;

  if (!cugi_test_in_subprocess (60))
    return;

  context = cugi_test_default_context ();
  object = row->make (context);
  g_assert_true (row->use (object, &error));
  g_assert_no_error (error);

  g_assert_true (cugi_context_reset (context, &error));
  g_assert_no_error (error);
  g_assert_false (row->use (object, &error));
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_CONTEXT);
  g_assert_cmpstr (error->message, !=, "");
}

/* The legacy default stream is the driver's own: no reset destroys it. */
static void
test_null_stream_survives_reset (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiContext) context = NULL;

  if (!cugi_test_in_subprocess (60))
    return;

  context = cugi_test_default_context ();
  g_assert_true (cugi_context_reset (context, &error));
  g_assert_no_error (error);
  g_assert_true (cugi_stream_synchronize (cugi_stream_resolve (NULL, context), &error));
  g_assert_no_error (error);
}

/* Graph launches on a stream remember the address epoch in which the graph
 * and the stream were found current: a reset must end what they remember,
 * for the graph and for a stream made before it alike. */
static void
test_graph_launch_on_stream_after_reset (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiContext) context = NULL;
  g_autoptr(CugiGraphExec) exec = NULL, made_after = NULL;
  g_autoptr(CugiStream) stream = NULL, stream_after = NULL;

  if (!cugi_test_in_subprocess (60))
    return;

  context = cugi_test_default_context ();
  exec = graph_exec_new (context);
  stream = stream_new (context);
  for (guint i = 0; i < 3; i++)
    {
      g_assert_true (cugi_graph_exec_launch (exec, stream, &error));
      g_assert_no_error (error);
    }

  g_assert_true (cugi_context_reset (context, &error));
  g_assert_no_error (error);
  cugi_test_assert_fails (cugi_graph_exec_launch (exec, stream, &error), &error, CUGI_ERROR_INVALID_CONTEXT,
                          "executable graph is gone");
  /* A graph of the new generation on the old stream, and the old graph on a
   * new stream. */
  made_after = graph_exec_new (context);
  stream_after = stream_new (context);
  /* Current, so that the launches take their fast path. */
  g_assert_true (cugi_context_push (context, &error));
  g_assert_no_error (error);
  cugi_test_assert_fails (cugi_graph_exec_launch (made_after, stream, &error), &error,
                          CUGI_ERROR_INVALID_CONTEXT, "stream's context was reset");
  cugi_test_assert_fails (cugi_graph_exec_launch (exec, stream_after, &error), &error,
                          CUGI_ERROR_INVALID_CONTEXT, "executable graph is gone");
  /* The new ones work together. */
  g_assert_true (cugi_graph_exec_launch (made_after, stream_after, &error));
  g_assert_no_error (error);
  g_assert_true (cugi_stream_synchronize (stream_after, &error));
  g_assert_no_error (error);
  g_assert_true (cugi_context_pop (context, &error));
  g_assert_no_error (error);
}

/* ---- two objects of two contexts ------------------------------------------ */

static void
test_launch_on_stream_of_another_context (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiContext) other = other_device_context ();
  g_autoptr(CugiKernel) kernel = kernel_new (NULL);
  g_autoptr(CugiStream) stream = stream_new (other);
  g_autoptr(CugiBuffer) data = buffer_new (NULL);

  cugi_test_assert_fails (launch (kernel, stream, data, &error), &error, CUGI_ERROR_INVALID_CONTEXT, "stream");
}

static void
test_record_on_stream_of_another_context (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiContext) other = other_device_context ();
  g_autoptr(CugiEvent) event = event_new (NULL);
  g_autoptr(CugiStream) stream = stream_new (other);

  cugi_test_assert_fails (cugi_event_record (event, stream, &error), &error, CUGI_ERROR_INVALID_CONTEXT, NULL);
}

static void
test_time_events_of_two_contexts (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiContext) other = other_device_context ();
  g_autoptr(CugiEvent) start = event_new (NULL);
  g_autoptr(CugiEvent) end = event_new (other);

  cugi_test_record (start, NULL);
  cugi_test_record (end, NULL);
  cugi_test_event_synchronize (start);
  cugi_test_event_synchronize (end);
  g_assert_cmpfloat (cugi_event_elapsed_time (start, end, &error), ==, 0);
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_CONTEXT, NULL);
}

/* A copy between two contexts is a peer copy; the stream must be the
 * destination's. */
static void
test_copy_on_stream_of_another_context (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiContext) other = other_device_context ();
  g_autoptr(CugiBuffer) dst = buffer_new (NULL);
  g_autoptr(CugiBuffer) src = buffer_new (other);
  g_autoptr(CugiStream) stream = stream_new (other);

  cugi_test_assert_fails (cugi_buffer_copy (dst, 0, src, 0, 64, stream, &error), &error,
                          CUGI_ERROR_INVALID_CONTEXT, "stream");
}

static void
test_graph_on_stream_of_another_context (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiContext) other = other_device_context ();
  g_autoptr(CugiGraphExec) exec = graph_exec_new (NULL);
  g_autoptr(CugiGraph) graph = graph_new (other);
  g_autoptr(CugiStream) stream = stream_new (other);

  cugi_test_assert_fails (cugi_graph_exec_launch (exec, stream, &error), &error, CUGI_ERROR_INVALID_CONTEXT, NULL);
  cugi_test_assert_fails (cugi_graph_exec_update (exec, graph, &error), &error, CUGI_ERROR_INVALID_CONTEXT, NULL);
}

/* Memory of another context of the same device: the kernel cannot reach it. */
static void
test_buffer_of_another_context (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiContext) context = cugi_test_default_context ();
  g_autoptr(CugiContext) created = NULL;
  g_autoptr(CugiKernel) kernel = kernel_new (context);
  g_autoptr(CugiBuffer) data = NULL;

  created = cugi_context_new (cugi_context_get_device (context), CUGI_CONTEXT_FLAGS_NONE, &error);
  g_assert_no_error (error);
  data = buffer_new (created);
  cugi_test_assert_fails (launch (kernel, NULL, data, &error), &error, CUGI_ERROR_INVALID_CONTEXT, "argument 1");
}

int
main (int argc, char **argv)
{
  cugi_test_init_stand_in (&argc, &argv);
  cugi_cuda.cuMemAlloc = fake_mem_alloc;
  cugi_cuda.cuMemFree = fake_mem_free;
  cugi_cuda.cuMemHostAlloc = fake_mem_host_alloc;
  cugi_cuda.cuMemFreeHost = fake_mem_free_host;

  for (gsize i = 0; i < G_N_ELEMENTS (bound_classes); i++)
    {
      g_autofree char *path = g_strdup_printf ("/context-binding/after-reset/%s", bound_classes[i].name);

      g_test_add_data_func (path, &bound_classes[i], test_after_reset);
    }
  g_test_add_func ("/context-binding/after-reset/null-stream-survives", test_null_stream_survives_reset);
  g_test_add_func ("/context-binding/after-reset/graph-launch-on-stream", test_graph_launch_on_stream_after_reset);
  g_test_add_func ("/context-binding/launch-on-stream-of-another-context",
                   test_launch_on_stream_of_another_context);
  g_test_add_func ("/context-binding/record-on-stream-of-another-context",
                   test_record_on_stream_of_another_context);
  g_test_add_func ("/context-binding/time-events-of-two-contexts", test_time_events_of_two_contexts);
  g_test_add_func ("/context-binding/copy-on-stream-of-another-context", test_copy_on_stream_of_another_context);
  g_test_add_func ("/context-binding/graph-on-stream-of-another-context",
                   test_graph_on_stream_of_another_context);
  g_test_add_func ("/context-binding/buffer-of-another-context", test_buffer_of_another_context);

  return g_test_run ();
}
