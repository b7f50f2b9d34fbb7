/* test-launch-logic.c: the launch path without a GPU, against the stand-in
 * driver (fake-cuda-streams, whose kernels do nothing). Launching one
 * argument list again skips the checks it passed before, and keeps its
 * buffers without tracking each launch: what is skipped must still be
 * caught when it matters (a freed buffer, changed arguments, a reset
 * context), the buffers must outlive every launch cugi has not seen
 * complete, on whichever stream it went, and the launches must still drive
 * CugiStream::idle. */
#include "config.h"

#include <string.h>

#include "cugi-context-private.h"
#include "cugi-private.h"
#include "cugi-memory-private.h"
#include "cugi-launch-private.h"
#include "cugi-stream-private.h"
#include "gpu-work.h"

/* The stand-in driver's module format: a kernel and its parameters' sizes,
 * those of axpy4 (float a, const float *x, float *y, unsigned int n). */
static const char image[] = "axpy4 4 8 8 4\n";
/* The same with its PTX entry, which the stand-in skips and cugi reads the
 * parameter count from. */
static const char ptx_image[] =
  ".version 8.0\n"
  ".visible .entry axpy4 (.param .f32 a, .param .u64 x, .param .u64 y, .param .u32 n)\n"
  "axpy4 4 8 8 4\n";

#define N_ELEMENTS 32

static CugiKernel *
kernel_new_from_image (CugiContext *context,
                       const char  *text)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = g_bytes_new_static (text, strlen (text) + 1);
  g_autoptr(CugiModule) module = cugi_module_new_from_data (context, bytes, &error);
  CugiKernel *kernel;

  g_assert_no_error (error);
  kernel = cugi_module_get_kernel (module, "axpy4", &error);
  g_assert_no_error (error);
  return kernel;
}

static CugiKernel *
kernel_new (CugiContext *context)
{
  return kernel_new_from_image (context, image);
}

static CugiStream *
stream_new (void)
{
  g_autoptr(GError) error = NULL;
  CugiStream *stream = cugi_stream_new (NULL, CUGI_STREAM_FLAGS_NON_BLOCKING, 0, &error);

  g_assert_no_error (error);
  return stream;
}

static void
flag_released (gpointer data)
{
  gboolean *released = data;

  g_assert_false (*released);
  *released = TRUE;
}

/* A buffer over made-up memory (the stand-in driver has none) of @context
 * (NULL: the default one): *@released becomes TRUE when cugi lets go of
 * the memory, once the buffer is freed and no launch uses it. */
static CugiBuffer *
buffer_new (CugiContext *context,
            gboolean    *released)
{
  static CUdeviceptr next_address = 0x100000;
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiContext) resolved = cugi_context_resolve (context, &error);

  g_assert_no_error (error);
  *released = FALSE;
  next_address += 0x1000;
  return cugi_buffer_new_holding (resolved, next_address, N_ELEMENTS * sizeof (float),
                                  released, flag_released);
}

static CugiKernelArgs *
axpy_args (CugiBuffer *x,
           CugiBuffer *y)
{
  CugiKernelArgs *args = cugi_kernel_args_new ();

  cugi_kernel_args_add_float (args, 2.0f);
  cugi_kernel_args_add_buffer (args, x);
  cugi_kernel_args_add_buffer (args, y);
  cugi_kernel_args_add_uint32 (args, N_ELEMENTS);
  return args;
}

static CugiLaunchConfig *
config_new (CugiStream *stream)
{
  CugiLaunchConfig *config = cugi_launch_config_new (1, N_ELEMENTS);

  cugi_launch_config_set_stream (config, stream);
  return config;
}

static void
launch (CugiKernel       *kernel,
        CugiLaunchConfig *config,
        CugiKernelArgs   *args)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (cugi_kernel_launch (kernel, config, args, &error));
  g_assert_no_error (error);
}

static void
synchronize (CugiStream *stream)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (cugi_stream_synchronize (stream, &error));
  g_assert_no_error (error);
}

/* Runs what the tests left for @main_context (the flushes of bursts, which
 * hold their streams), pops it and drops it. */
static void
main_context_finish (GMainContext *main_context)
{
  while (g_main_context_iteration (main_context, FALSE))
    ;
  g_main_context_pop_thread_default (main_context);
  g_main_context_unref (main_context);
}

/* What most cases share: a main context of their own, pushed, and a kernel,
 * a stream and a launch configuration on that stream made under it. */
typedef struct
{
  GMainContext     *main_context;
  CugiKernel       *kernel;
  CugiStream       *stream;
  CugiLaunchConfig *config;
} Launching;

static void
launching_set_up (Launching    *f,
                  gconstpointer data)
{
  f->main_context = g_main_context_new ();
  g_main_context_push_thread_default (f->main_context);
  f->kernel = kernel_new (NULL);
  f->stream = stream_new ();
  f->config = config_new (f->stream);
}

static void
launching_tear_down (Launching    *f,
                     gconstpointer data)
{
  g_clear_object (&f->stream);
  main_context_finish (f->main_context);
  g_clear_pointer (&f->config, cugi_launch_config_unref);
  g_clear_object (&f->kernel);
}

/* A list launched before is checked again once it or its buffers changed. */
static void
test_relaunch_checks_again (Launching    *f,
                            gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiKernelArgs) args = NULL;
  g_autoptr(CugiBuffer) x = NULL;
  g_autoptr(CugiBuffer) y = NULL;
  g_autoptr(CugiBuffer) z = NULL;
  gboolean x_released, y_released, z_released;
  CugiTestGate gate;

  x = buffer_new (NULL, &x_released);
  y = buffer_new (NULL, &y_released);
  z = buffer_new (NULL, &z_released);
  args = axpy_args (x, y);
  cugi_test_gate_close (&gate, f->stream);
  launch (f->kernel, f->config, args);
  launch (f->kernel, f->config, args);

  /* A buffer freed between two launches of the list. */
  g_assert_true (cugi_buffer_free (x, &error));
  g_assert_no_error (error);
  g_assert_false (cugi_kernel_launch (f->kernel, f->config, args, &error));
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE);
  g_assert_nonnull (strstr (error->message, "argument 1"));
  g_clear_error (&error);

  /* The list changed after a launch: a double is not the 4-byte float. */
  cugi_kernel_args_clear (args);
  cugi_kernel_args_add_double (args, 2.0);
  cugi_kernel_args_add_buffer (args, y);
  cugi_kernel_args_add_buffer (args, z);
  cugi_kernel_args_add_uint32 (args, N_ELEMENTS);
  g_assert_false (cugi_kernel_launch (f->kernel, f->config, args, &error));
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "parameter 0"));
  g_clear_error (&error);

  /* Right again, and then one argument too many. */
  cugi_kernel_args_clear (args);
  cugi_kernel_args_add_float (args, 2.0f);
  cugi_kernel_args_add_buffer (args, y);
  cugi_kernel_args_add_buffer (args, z);
  cugi_kernel_args_add_uint32 (args, N_ELEMENTS);
  launch (f->kernel, f->config, args);
  cugi_kernel_args_add_uint32 (args, N_ELEMENTS);
  g_assert_false (cugi_kernel_launch (f->kernel, f->config, args, &error));
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "takes 4 parameters, but 5 arguments"));
  g_clear_error (&error);

  /* Freed, x goes once its launches are seen to complete. */
  g_assert_false (x_released);
  cugi_test_gate_open (&gate, f->stream);
  g_assert_false (x_released);
  synchronize (f->stream);
  g_assert_true (x_released);

  g_clear_pointer (&args, cugi_kernel_args_unref);
}

/* A kernel remembers the configuration it last found to fit: each change of
 * that configuration after a launch must be checked again, and refused when
 * the rules say so; a copy, which starts with the same settings, too. */
static void
test_changed_config_checks_again (Launching    *f,
                                  gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiKernelArgs) args = NULL;
  g_autoptr(CugiBuffer) x = NULL;
  g_autoptr(CugiBuffer) y = NULL;
  g_autoptr(CugiDevice) device = NULL;
  g_autoptr(CugiContext) other_context = NULL;
  g_autoptr(CugiStream) other_stream = NULL;
  g_autoptr(CugiLaunchConfig) copy = NULL;
  gboolean x_released, y_released;

  x = buffer_new (NULL, &x_released);
  y = buffer_new (NULL, &y_released);
  args = axpy_args (x, y);
  launch (f->kernel, f->config, args);
  launch (f->kernel, f->config, args);

  cugi_launch_config_set_grid (f->config, 0, 1, 1);
  cugi_test_assert_fails (cugi_kernel_launch (f->kernel, f->config, args, &error), &error,
                          CUGI_ERROR_INVALID_ARGUMENT, "at least 1");
  cugi_launch_config_set_grid (f->config, 1, 1, 1);
  launch (f->kernel, f->config, args);

  cugi_launch_config_set_block (f->config, 2048, 1, 1);
  cugi_test_assert_fails (cugi_kernel_launch (f->kernel, f->config, args, &error), &error,
                          CUGI_ERROR_INVALID_ARGUMENT, "2048 threads along x");
  cugi_launch_config_set_block (f->config, 32, 32, 2);
  cugi_test_assert_fails (cugi_kernel_launch (f->kernel, f->config, args, &error), &error,
                          CUGI_ERROR_INVALID_ARGUMENT, "max-threads-per-block");
  cugi_launch_config_set_block (f->config, N_ELEMENTS, 1, 1);
  launch (f->kernel, f->config, args);

  cugi_launch_config_set_shared_memory (f->config, 64 << 10);
  cugi_test_assert_fails (cugi_kernel_launch (f->kernel, f->config, args, &error), &error,
                          CUGI_ERROR_INVALID_ARGUMENT, "dynamic shared memory");
  cugi_launch_config_set_shared_memory (f->config, 0);
  launch (f->kernel, f->config, args);

  cugi_launch_config_set_cluster (f->config, 3, 1, 1);
  cugi_test_assert_fails (cugi_kernel_launch (f->kernel, f->config, args, &error), &error,
                          CUGI_ERROR_INVALID_ARGUMENT, "whole number of clusters");
  cugi_launch_config_set_cluster (f->config, 0, 0, 0);
  launch (f->kernel, f->config, args);

  device = cugi_device_get_default (&error);
  g_assert_no_error (error);
  other_context = cugi_context_new (device, CUGI_CONTEXT_FLAGS_NONE, &error);
  g_assert_no_error (error);
  other_stream = cugi_stream_new (other_context, CUGI_STREAM_FLAGS_NONE, 0, &error);
  g_assert_no_error (error);
  cugi_launch_config_set_stream (f->config, other_stream);
  cugi_test_assert_fails (cugi_kernel_launch (f->kernel, f->config, args, &error), &error,
                          CUGI_ERROR_INVALID_CONTEXT, "another context");
  cugi_launch_config_set_stream (f->config, f->stream);
  launch (f->kernel, f->config, args);

  copy = cugi_launch_config_copy (f->config);
  launch (f->kernel, copy, args);
  cugi_launch_config_set_grid (copy, 0, 1, 1);
  cugi_test_assert_fails (cugi_kernel_launch (f->kernel, copy, args, &error), &error,
                          CUGI_ERROR_INVALID_ARGUMENT, "at least 1");
  launch (f->kernel, f->config, args);
  cugi_test_assert_fails (cugi_kernel_launch (f->kernel, copy, args, &error), &error,
                          CUGI_ERROR_INVALID_ARGUMENT, "at least 1");

  synchronize (f->stream);
}

/* The memory of a buffer that a launch uses goes only once cugi has seen the
 * launch complete, and not before the list that holds it lets go. */
static void
test_buffers_outlive_launches (Launching    *f,
                               gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiBuffer) y = NULL;
  CugiKernelArgs *args;
  CugiBuffer *x;
  gboolean x_released, y_released;
  CugiTestGate gate;

  y = buffer_new (NULL, &y_released);

  /* Dropped and freed while the launches wait. */
  x = buffer_new (NULL, &x_released);
  args = axpy_args (x, y);
  cugi_test_gate_close (&gate, f->stream);
  launch (f->kernel, f->config, args);
  launch (f->kernel, f->config, args);
  g_assert_true (cugi_buffer_free (x, &error));
  g_assert_no_error (error);
  g_object_unref (x);
  cugi_kernel_args_unref (args);
  g_assert_false (x_released);
  cugi_test_gate_open (&gate, f->stream);
  synchronize (f->stream);
  g_assert_true (x_released);

  /* Done, and still in the list for its next launches: the free gives the
   * memory back at once, and the list's next launch refuses x. */
  x = buffer_new (NULL, &x_released);
  args = axpy_args (x, y);
  launch (f->kernel, f->config, args);
  synchronize (f->stream);
  g_assert_true (cugi_buffer_free (x, &error));
  g_assert_no_error (error);
  g_assert_true (x_released);
  cugi_test_assert_fails (cugi_kernel_launch (f->kernel, f->config, args, &error), &error,
                          CUGI_ERROR_INVALID_STATE, "argument 1");
  cugi_kernel_args_unref (args);
  g_object_unref (x);

  /* In flight, and still in the list: it goes once the launches are done,
   * the list unchanged. */
  x = buffer_new (NULL, &x_released);
  args = axpy_args (x, y);
  cugi_test_gate_close (&gate, f->stream);
  launch (f->kernel, f->config, args);
  launch (f->kernel, f->config, args);
  g_assert_true (cugi_buffer_free (x, &error));
  g_assert_no_error (error);
  g_assert_false (x_released);
  cugi_test_gate_open (&gate, f->stream);
  synchronize (f->stream);
  g_assert_true (x_released);
  cugi_test_assert_fails (cugi_kernel_launch (f->kernel, f->config, args, &error), &error,
                          CUGI_ERROR_INVALID_STATE, "argument 1");
  cugi_kernel_args_unref (args);
  g_object_unref (x);

  /* Launched again after a synchronization: that launch keeps it. */
  x = buffer_new (NULL, &x_released);
  args = axpy_args (x, y);
  launch (f->kernel, f->config, args);
  synchronize (f->stream);
  cugi_test_gate_close (&gate, f->stream);
  launch (f->kernel, f->config, args);
  g_assert_true (cugi_buffer_free (x, &error));
  g_assert_no_error (error);
  g_object_unref (x);
  cugi_kernel_args_unref (args);
  g_assert_false (cugi_stream_query (f->stream, &error));
  g_assert_no_error (error);
  g_assert_false (x_released);
  cugi_test_gate_open (&gate, f->stream);
  g_assert_true (cugi_stream_query (f->stream, &error));
  g_assert_no_error (error);
  g_assert_true (x_released);

  g_assert_false (y_released);
}

/* A list launched on one stream, then on another, keeps its buffers until
 * the launches on both are seen complete. */
static void
test_buffers_outlive_launches_on_two_streams (void)
{
  GMainContext *main_context = g_main_context_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiKernel) kernel = NULL;
  g_autoptr(CugiStream) first = NULL;
  g_autoptr(CugiStream) second = NULL;
  g_autoptr(CugiLaunchConfig) on_first = NULL;
  g_autoptr(CugiLaunchConfig) on_second = NULL;
  g_autoptr(CugiBuffer) x = NULL;
  g_autoptr(CugiBuffer) y = NULL;
  CugiKernelArgs *args;
  gboolean x_released, y_released;
  CugiTestGate first_gate, second_gate;

  g_main_context_push_thread_default (main_context);
  kernel = kernel_new (NULL);
  first = stream_new ();
  second = stream_new ();
  on_first = config_new (first);
  on_second = config_new (second);
  x = buffer_new (NULL, &x_released);
  y = buffer_new (NULL, &y_released);
  args = axpy_args (x, y);

  cugi_test_gate_close (&first_gate, first);
  cugi_test_gate_close (&second_gate, second);
  launch (kernel, on_first, args);
  launch (kernel, on_second, args);
  launch (kernel, on_second, args);
  g_assert_true (cugi_buffer_free (x, &error));
  g_assert_no_error (error);

  /* The list still holds x, which goes all the same. */
  cugi_test_gate_open (&second_gate, second);
  synchronize (second);
  g_assert_false (x_released);
  cugi_test_gate_open (&first_gate, first);
  synchronize (first);
  g_assert_true (x_released);
  cugi_kernel_args_unref (args);

  g_clear_object (&first);
  g_clear_object (&second);
  main_context_finish (main_context);
}

/* A list holding a view: freeing the parent gives its memory back, and the
 * list refuses the view at its next launch. */
static void
test_freed_parent_of_a_view (Launching    *f,
                             gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiKernelArgs) args = NULL;
  g_autoptr(CugiBuffer) parent = NULL;
  g_autoptr(CugiBuffer) view = NULL;
  g_autoptr(CugiBuffer) y = NULL;
  gboolean parent_released, y_released;

  parent = buffer_new (NULL, &parent_released);
  view = cugi_buffer_new_view (parent, 16, 64, &error);
  g_assert_no_error (error);
  y = buffer_new (NULL, &y_released);
  args = axpy_args (view, y);
  launch (f->kernel, f->config, args);
  synchronize (f->stream);

  g_assert_true (cugi_buffer_free (parent, &error));
  g_assert_no_error (error);
  g_assert_true (parent_released);
  cugi_test_assert_fails (cugi_kernel_launch (f->kernel, f->config, args, &error), &error,
                          CUGI_ERROR_INVALID_STATE, "view of a buffer that was freed");
}

/* The device buffer of a mapped host buffer is the host buffer's memory:
 * freeing the host buffer gives it back (here to its pool) once the work
 * on it is done, whatever lists or references hold the device buffer,
 * which can no longer be used. */
static void
test_freed_host_buffer_of_a_device_buffer (Launching    *f,
                                           gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiHostMemoryPool) pool = NULL;
  g_autoptr(CugiKernelArgs) args = NULL;
  g_autoptr(CugiHostBuffer) host = NULL;
  g_autoptr(CugiBuffer) device = NULL;
  g_autoptr(CugiBuffer) y = NULL;
  gboolean y_released;
  CugiTestGate gate;

  pool = cugi_host_memory_pool_new (NULL, CUGI_HOST_BUFFER_FLAGS_MAPPED, &error);
  g_assert_no_error (error);

  /* Without a list: at once. */
  host = cugi_host_memory_pool_allocate (pool, 4096, &error);
  g_assert_no_error (error);
  device = cugi_host_buffer_get_device_buffer (host, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (cugi_buffer_get_device_pointer (device), !=, 0);
  g_assert_true (cugi_host_buffer_free (host, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (cugi_host_memory_pool_get_active_blocks (pool), ==, 0);
  g_assert_cmpuint (cugi_buffer_get_device_pointer (device), ==, 0);
  cugi_test_assert_fails (cugi_buffer_memset_d8 (device, 0, 0, 16, f->stream, &error), &error,
                          CUGI_ERROR_INVALID_STATE, "host buffer that was freed");
  g_clear_object (&device);
  g_clear_object (&host);

  /* In a list, launched and in flight: once the launches are done. */
  host = cugi_host_memory_pool_allocate (pool, 4096, &error);
  g_assert_no_error (error);
  device = cugi_host_buffer_get_device_buffer (host, &error);
  g_assert_no_error (error);
  y = buffer_new (NULL, &y_released);
  args = axpy_args (device, y);
  cugi_test_gate_close (&gate, f->stream);
  launch (f->kernel, f->config, args);
  g_assert_true (cugi_host_buffer_free (host, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (cugi_host_memory_pool_get_active_blocks (pool), ==, 1);
  cugi_test_gate_open (&gate, f->stream);
  synchronize (f->stream);
  g_assert_cmpuint (cugi_host_memory_pool_get_active_blocks (pool), ==, 0);
  cugi_test_assert_fails (cugi_kernel_launch (f->kernel, f->config, args, &error), &error,
                          CUGI_ERROR_INVALID_STATE, "argument 1");
}

typedef struct
{
  CugiKernel       *kernel;
  CugiKernelArgs   *args;
  CugiLaunchConfig *config;
} Launcher;

#define N_THREAD_LAUNCHES 2000

static gpointer
launch_repeatedly (gpointer data)
{
  Launcher *launcher = data;

  for (guint i = 0; i < N_THREAD_LAUNCHES; i++)
    launch (launcher->kernel, launcher->config, launcher->args);
  return NULL;
}

/* Runs @func in two threads at once, each with a Launcher for @kernel and
 * @args on a new stream of its own, left in @streams; @gates (nullable) are
 * closed on the streams first. */
static void
run_two_launchers (CugiKernel     *kernel,
                   CugiKernelArgs *args,
                   CugiStream     *streams[2],
                   CugiTestGate   *gates,
                   GThreadFunc     func)
{
  Launcher launchers[2];
  GThread *threads[2];

  for (guint i = 0; i < 2; i++)
    {
      streams[i] = stream_new ();
      if (gates != NULL)
        cugi_test_gate_close (&gates[i], streams[i]);
      launchers[i].kernel = kernel;
      launchers[i].args = args;
      launchers[i].config = config_new (streams[i]);
      threads[i] = g_thread_new ("launcher", func, &launchers[i]);
    }
  for (guint i = 0; i < 2; i++)
    {
      g_thread_join (threads[i]);
      cugi_launch_config_unref (launchers[i].config);
    }
}

/* Two threads launching one list at once, each on a stream of its own: the
 * buffers stay until the launches on both streams are seen complete. */
static void
test_two_threads_share_a_list (void)
{
  GMainContext *main_context = g_main_context_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiKernel) kernel = NULL;
  CugiStream *streams[2];
  g_autoptr(CugiBuffer) x = NULL;
  g_autoptr(CugiBuffer) y = NULL;
  CugiKernelArgs *args;
  CugiTestGate gates[2];
  gboolean x_released, y_released;

  g_main_context_push_thread_default (main_context);
  kernel = kernel_new (NULL);
  x = buffer_new (NULL, &x_released);
  y = buffer_new (NULL, &y_released);
  args = axpy_args (x, y);
  run_two_launchers (kernel, args, streams, gates, launch_repeatedly);

  g_assert_true (cugi_buffer_free (x, &error));
  g_assert_no_error (error);
  cugi_kernel_args_unref (args);
  cugi_test_gate_open (&gates[1], streams[1]);
  synchronize (streams[1]);
  g_assert_false (x_released);
  cugi_test_gate_open (&gates[0], streams[0]);
  synchronize (streams[0]);
  g_assert_true (x_released);

  for (guint i = 0; i < 2; i++)
    g_clear_object (&streams[i]);
  main_context_finish (main_context);
}

/* Each thread launches the shared kernel with a configuration of its own,
 * which it makes wrong and right in turn: whatever the other thread's
 * launches leave in the kernel's cache, every wrong launch is refused and
 * every right one goes. */
static gpointer
launch_right_and_wrong (gpointer data)
{
  Launcher *launcher = data;
  g_autoptr(GError) error = NULL;

  for (guint i = 0; i < N_THREAD_LAUNCHES; i++)
    {
      cugi_launch_config_set_block (launcher->config, i % 2 == 0 ? N_ELEMENTS : 2048, 1, 1);
      if (i % 2 == 0)
        launch (launcher->kernel, launcher->config, launcher->args);
      else
        cugi_test_assert_fails (cugi_kernel_launch (launcher->kernel, launcher->config, launcher->args,
                                                    &error),
                                &error, CUGI_ERROR_INVALID_ARGUMENT, "2048 threads along x");
    }
  return NULL;
}

static void
test_two_threads_change_configs (void)
{
  GMainContext *main_context = g_main_context_new ();
  g_autoptr(CugiKernel) kernel = NULL;
  g_autoptr(CugiBuffer) x = NULL;
  g_autoptr(CugiBuffer) y = NULL;
  g_autoptr(CugiKernelArgs) args = NULL;
  CugiStream *streams[2];
  gboolean x_released, y_released;

  g_main_context_push_thread_default (main_context);
  kernel = kernel_new (NULL);
  x = buffer_new (NULL, &x_released);
  y = buffer_new (NULL, &y_released);
  args = axpy_args (x, y);
  run_two_launchers (kernel, args, streams, NULL, launch_right_and_wrong);
  for (guint i = 0; i < 2; i++)
    {
      synchronize (streams[i]);
      g_clear_object (&streams[i]);
    }
  g_clear_pointer (&args, cugi_kernel_args_unref);
  main_context_finish (main_context);
}

/* Repeated launches of one list are bursts as any work is: one ::idle for
 * the launches of an iteration. */
static void
test_idle_after_launches (Launching    *f,
                          gconstpointer data)
{
  g_autoptr(CugiKernelArgs) args = NULL;
  g_autoptr(CugiBuffer) x = NULL;
  g_autoptr(CugiBuffer) y = NULL;
  gboolean x_released, y_released;
  guint n_idle = 0;

  x = buffer_new (NULL, &x_released);
  y = buffer_new (NULL, &y_released);
  args = axpy_args (x, y);
  g_signal_connect (f->stream, "idle", G_CALLBACK (count_emission), &n_idle);

  for (guint i = 0; i < 10; i++)
    launch (f->kernel, f->config, args);
  iterate_until (&n_idle, 1, 10000);
  iterate_for (50);
  g_assert_cmpuint (n_idle, ==, 1);

  for (guint i = 0; i < 10; i++)
    launch (f->kernel, f->config, args);
  iterate_until (&n_idle, 2, 10000);
  iterate_for (50);
  g_assert_cmpuint (n_idle, ==, 2);

  g_clear_pointer (&args, cugi_kernel_args_unref);
}

/* A burst followed by newer launches before it completed emits nothing of
 * its own: ::idle comes once, when all of them are done. */
static void
test_idle_waits_for_newer_launches (Launching    *f,
                                    gconstpointer data)
{
  g_autoptr(CugiKernelArgs) args = NULL;
  g_autoptr(CugiBuffer) x = NULL;
  g_autoptr(CugiBuffer) y = NULL;
  gboolean x_released, y_released;
  guint n_idle = 0;
  CugiTestGate gate;

  x = buffer_new (NULL, &x_released);
  y = buffer_new (NULL, &y_released);
  args = axpy_args (x, y);
  g_signal_connect (f->stream, "idle", G_CALLBACK (count_emission), &n_idle);

  cugi_test_gate_close (&gate, f->stream);
  for (guint i = 0; i < 3; i++)
    launch (f->kernel, f->config, args);
  /* The first burst's marker goes in, behind the gate; then a second burst. */
  g_assert_true (g_main_context_iteration (f->main_context, FALSE));
  launch (f->kernel, f->config, args);
  cugi_test_gate_open (&gate, f->stream);

  iterate_until (&n_idle, 1, 10000);
  iterate_for (100);
  g_assert_cmpuint (n_idle, ==, 1);

  g_clear_pointer (&args, cugi_kernel_args_unref);
}

/* A buffer of a context that was reset since the last launch fails the next
 * one, though its own addresses did not change. Last: the stand-in driver
 * destroys every stream on a reset, so this launches on the legacy stream. */
static void
test_buffer_of_reset_context (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiKernel) kernel = NULL;
  g_autoptr(CugiDevice) device = NULL;
  g_autoptr(CugiContext) other = NULL;
  g_autoptr(CugiLaunchConfig) config = NULL;
  g_autoptr(CugiKernelArgs) args = NULL;
  g_autoptr(CugiBuffer) x = NULL;
  g_autoptr(CugiBuffer) y = NULL;
  gboolean x_released, y_released;

  kernel = kernel_new (NULL);
  device = cugi_device_get (1, &error);
  g_assert_no_error (error);
  other = cugi_device_get_primary_context (device, &error);
  g_assert_no_error (error);
  config = config_new (NULL);
  x = buffer_new (other, &x_released);
  y = buffer_new (NULL, &y_released);
  args = axpy_args (x, y);
  launch (kernel, config, args);

  g_assert_true (cugi_context_reset (other, &error));
  g_assert_no_error (error);
  g_assert_false (cugi_kernel_launch (kernel, config, args, &error));
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_CONTEXT);
  g_assert_nonnull (strstr (error->message, "argument 1"));

  /* What the launch kept goes (once the stream is done), before the flags it
   * sets go out of scope. */
  g_clear_pointer (&args, cugi_kernel_args_unref);
  synchronize (cugi_stream_resolve (NULL, cugi_kernel_get_context (kernel)));
}

/* A driver before CUDA 12.4 has no cuFuncGetParamInfo, and so tells no
 * parameter sizes: the count the image tells still refuses a launch with
 * too few arguments, which the driver would read past the end of. The
 * loader resolves entry points once per process, so a subprocess runs it
 * with a stand-in that lacks cuFuncGetParamInfo. */
static void
test_count_without_param_info (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiKernel) kernel = NULL;
  g_autoptr(CugiLaunchConfig) config = NULL;
  g_autoptr(CugiKernelArgs) args = NULL;
  g_autoptr(CugiBuffer) x = NULL;
  g_autoptr(CugiBuffer) y = NULL;
  gboolean x_released, y_released;

  if (!g_test_subprocess ())
    {
      g_setenv ("FAKE_CUDA_MISSING", "cuFuncGetParamInfo", TRUE);
      g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
      g_unsetenv ("FAKE_CUDA_MISSING");
      g_test_trap_assert_passed ();
      return;
    }

  g_assert_null (cugi_cuda.cuFuncGetParamInfo);
  kernel = kernel_new_from_image (NULL, ptx_image);
  g_assert_cmpint (cugi_kernel_get_num_params (kernel), ==, 4);
  config = config_new (NULL);
  args = cugi_kernel_args_new ();
  cugi_kernel_args_add_float (args, 2.0f);
  g_assert_false (cugi_kernel_launch (kernel, config, args, &error));
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "takes 4 parameters, but 1 arguments"));
  g_clear_error (&error);

  /* All four go, their sizes unchecked. */
  x = buffer_new (NULL, &x_released);
  y = buffer_new (NULL, &y_released);
  g_clear_pointer (&args, cugi_kernel_args_unref);
  args = axpy_args (x, y);
  launch (kernel, config, args);
  g_clear_pointer (&args, cugi_kernel_args_unref);
  synchronize (cugi_stream_resolve (NULL, cugi_kernel_get_context (kernel)));
}

int
main (int argc, char **argv)
{
  cugi_test_init_stand_in (&argc, &argv);

  g_test_add ("/launch-logic/relaunch-checks-again", Launching, NULL,
              launching_set_up, test_relaunch_checks_again, launching_tear_down);
  g_test_add ("/launch-logic/buffers-outlive-launches", Launching, NULL,
              launching_set_up, test_buffers_outlive_launches, launching_tear_down);
  g_test_add_func ("/launch-logic/buffers-outlive-launches-on-two-streams",
                   test_buffers_outlive_launches_on_two_streams);
  g_test_add ("/launch-logic/freed-parent-of-a-view", Launching, NULL,
              launching_set_up, test_freed_parent_of_a_view, launching_tear_down);
  g_test_add ("/launch-logic/freed-host-buffer-of-a-device-buffer", Launching, NULL,
              launching_set_up, test_freed_host_buffer_of_a_device_buffer, launching_tear_down);
  g_test_add ("/launch-logic/changed-config-checks-again", Launching, NULL,
              launching_set_up, test_changed_config_checks_again, launching_tear_down);
  g_test_add_func ("/launch-logic/two-threads-share-a-list", test_two_threads_share_a_list);
  g_test_add_func ("/launch-logic/two-threads-change-configs", test_two_threads_change_configs);
  g_test_add ("/launch-logic/idle-after-launches", Launching, NULL,
              launching_set_up, test_idle_after_launches, launching_tear_down);
  g_test_add ("/launch-logic/idle-waits-for-newer-launches", Launching, NULL,
              launching_set_up, test_idle_waits_for_newer_launches, launching_tear_down);
  g_test_add_func ("/launch-logic/count-without-param-info", test_count_without_param_info);
  /* Last: it destroys every stream made before. */
  g_test_add_func ("/launch-logic/buffer-of-reset-context", test_buffer_of_reset_context);

  return g_test_run ();
}
