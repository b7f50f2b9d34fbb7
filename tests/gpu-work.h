/* gpu-work.h: GPU work of a known length, and waiting in a main loop, for the
 * stream, event, main-loop and thread tests and the benchmark */
#pragma once

#include "cugi-test-utils.h"

/* Busy for a given number of SM clock cycles. */
#define SPIN_SOURCE \
  "extern \"C\" __global__ void spin(long long cycles)\n" \
  "{ long long t = clock64(); while (clock64() - t < cycles); }\n"

/* The spin kernel, compiled for the default context. */
static inline CugiKernel *
spin_kernel_new (void)
{
  g_autoptr(GError) error = NULL;
  CugiKernel *kernel = cugi_kernel_new_from_source (NULL, SPIN_SOURCE, "spin", NULL, &error);

  g_assert_no_error (error);
  return kernel;
}

/* The spin kernel of this process: compiled at the first call (threads may
 * race for it) and kept until the process exits. */
static inline CugiKernel *
spinner (void)
{
  static CugiKernel *kernel;

  if (g_once_init_enter (&kernel))
    g_once_init_leave (&kernel, spin_kernel_new ());
  return kernel;
}

/* cugi_test_require_gpu(), then spinner() compiled at once, so that no test
 * case times the compilation. */
static inline void
require_gpu_with_spinner (void)
{
  cugi_test_require_gpu ();
  spinner ();
}

/* SM cycles in @ms milliseconds at the device's nominal clock. */
static inline gint64
spin_cycles (double ms)
{
  static gint clock_khz = 0;

  if (clock_khz == 0)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(CugiDevice) device = cugi_device_get_default (&error);

      g_assert_no_error (error);
      clock_khz = cugi_device_get_attribute (device, CUGI_DEVICE_ATTRIBUTE_CLOCK_RATE, &error);
      g_assert_no_error (error);
      g_assert_cmpint (clock_khz, >, 0);
    }
  return (gint64) (ms * clock_khz);
}

/* Enqueues about @ms milliseconds of GPU work on @stream (NULL: the legacy
 * default stream), in one thread block. */
static inline void
spin (CugiKernel *kernel,
      CugiStream *stream,
      double      ms)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiLaunchConfig) config = cugi_launch_config_new (1, 1);
  g_autoptr(CugiKernelArgs) args = cugi_kernel_args_new ();

  cugi_launch_config_set_stream (config, stream);
  cugi_kernel_args_add_int64 (args, spin_cycles (ms));
  cugi_kernel_launch (kernel, config, args, &error);
  g_assert_no_error (error);
}

static inline gboolean
flag_timeout (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

typedef gboolean (*Condition) (gconstpointer data);

/* Iterates the thread-default main context until @condition (@data) holds,
 * failing the test after @timeout_ms. */
static inline void
iterate_until_condition (Condition     condition,
                         gconstpointer data,
                         guint         timeout_ms)
{
  GMainContext *main_context = g_main_context_get_thread_default ();
  gboolean timed_out = FALSE;
  GSource *timeout = g_timeout_source_new (timeout_ms);

  g_source_set_callback (timeout, flag_timeout, &timed_out, NULL);
  g_source_attach (timeout, main_context);
  while (!condition (data) && !timed_out)
    g_main_context_iteration (main_context, TRUE);
  g_source_destroy (timeout);
  g_source_unref (timeout);
  if (timed_out)
    g_error ("timed out after %u ms", timeout_ms);
}

typedef struct
{
  const guint *counter;
  guint        target;
} CounterTarget;

static inline gboolean
counter_reached (gconstpointer data)
{
  const CounterTarget *target = data;

  return *target->counter >= target->target;
}

/* Iterates the thread-default main context until *@counter reaches @target,
 * failing the test after @timeout_ms. */
static inline void
iterate_until (const guint *counter,
               guint        target,
               guint        timeout_ms)
{
  CounterTarget counter_target = { counter, target };

  iterate_until_condition (counter_reached, &counter_target, timeout_ms);
}

static inline gboolean
pointer_cleared (gconstpointer data)
{
  return *(gconstpointer const *) data == NULL;
}

/* Iterates the thread-default main context until the weak pointer at
 * @pointer is cleared, failing the test after @timeout_ms. */
static inline void
iterate_until_finalized (gpointer *pointer,
                         guint     timeout_ms)
{
  iterate_until_condition (pointer_cleared, pointer, timeout_ms);
}

/* Iterates the thread-default main context for @ms milliseconds. */
static inline void
iterate_for (guint ms)
{
  GMainContext *main_context = g_main_context_get_thread_default ();
  gboolean done = FALSE;
  GSource *timeout = g_timeout_source_new (ms);

  g_source_set_callback (timeout, flag_timeout, &done, NULL);
  g_source_attach (timeout, main_context);
  while (!done)
    g_main_context_iteration (main_context, TRUE);
  g_source_unref (timeout);
}

static inline void
count_emission (gpointer instance,
                gpointer data)
{
  (*(guint *) data)++;
}
