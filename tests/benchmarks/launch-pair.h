/* launch-pair.h: one 4-argument launch of axpy4 prepared twice, for the raw
 * driver API (prepared parameters) and for cugi (a launch config and an
 * argument list), on the same kernel, stream and buffers. Shared by
 * bench-launch (on a GPU) and bench-launch-cpu (against the stand-in driver). */
#pragma once

#include "cugi-context-private.h"
#include "cugi-private.h"
#include "cugi-memory-private.h"
#include "cugi-launch-private.h"
#include "cugi-stream-private.h"
#include "bench-util.h"

typedef struct
{
  CugiStream       *stream;
  CUstream          handle;
  CugiKernel       *kernel;
  CugiLaunchConfig *config;
  CugiKernelArgs   *args;
  guint             threads;

  /* the raw side: the same function and arguments */
  CUfunction        function;
  float             a;
  CUdeviceptr       x;
  CUdeviceptr       y;
  unsigned int      n;
  void             *params[4];

  /* ::idle, when watched */
  gulong            idle_handler;
  guint             n_idle;
} LaunchPair;

/* Takes @kernel and @stream; one block of @threads threads, y = 0.5 x + y
 * over @threads elements of @x and @y. */
static inline void
launch_pair_set_up (LaunchPair *pair,
                    CugiKernel *kernel,
                    CugiStream *stream,
                    CugiBuffer *x,
                    CugiBuffer *y,
                    guint       threads)
{
  g_autoptr(GError) error = NULL;

  pair->kernel = kernel;
  pair->stream = stream;
  pair->handle = cugi_stream_get_handle (stream);
  pair->threads = threads;
  pair->a = 0.5f;
  pair->n = threads;
  pair->config = cugi_launch_config_new (1, threads);
  cugi_launch_config_set_stream (pair->config, stream);
  pair->args = cugi_kernel_args_new ();
  cugi_kernel_args_add_float (pair->args, pair->a);
  cugi_kernel_args_add_buffer (pair->args, x);
  cugi_kernel_args_add_buffer (pair->args, y);
  cugi_kernel_args_add_uint32 (pair->args, pair->n);

  pair->function = cugi_kernel_get_function (kernel);
  check_error (cugi_buffer_get_address (x, &pair->x, &error), error);
  check_error (cugi_buffer_get_address (y, &pair->y, &error), error);
  pair->params[0] = &pair->a;
  pair->params[1] = &pair->x;
  pair->params[2] = &pair->y;
  pair->params[3] = &pair->n;
}

/* Not inlined, so that callgrind reports each path on its own. */
static G_GNUC_NO_INLINE void
launch_pair_raw (LaunchPair *pair)
{
  check (cugi_cuda.cuLaunchKernel (pair->function, 1, 1, 1, pair->threads, 1, 1, 0, pair->handle,
                                   pair->params, NULL), "cuLaunchKernel");
}

static G_GNUC_NO_INLINE void
launch_pair_cugi (LaunchPair *pair)
{
  GError *error = NULL;
  /* Apart: the order in which arguments are evaluated is unspecified. */
  gboolean launched = cugi_kernel_launch (pair->kernel, pair->config, pair->args, &error);

  check_error (launched, error);
}

/* The same launch as launch_pair_cugi(), for runs with a handler of the
 * stream's ::idle connected: apart, so that callgrind reports it apart. */
static G_GNUC_NO_INLINE void
launch_pair_cugi_idle (LaunchPair *pair)
{
  launch_pair_cugi (pair);
}

static void
launch_pair_count_idle (CugiStream *stream,
                        guint      *n_idle)
{
  (*n_idle)++;
}

/* Waits for the stream, then runs what the main loop has to do (a burst's
 * flush and its marker, ::idle), so that each run between two
 * synchronizations is one burst, as in a program with a main loop. */
static inline void
launch_pair_synchronize (LaunchPair *pair)
{
  check (cugi_cuda.cuStreamSynchronize (pair->handle), "cuStreamSynchronize");
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

/* Connects (@watch) or disconnects a handler of the stream's ::idle. */
static inline void
launch_pair_watch_idle (LaunchPair *pair,
                        gboolean    watch)
{
  if (watch)
    pair->idle_handler = g_signal_connect (pair->stream, "idle", G_CALLBACK (launch_pair_count_idle),
                                           &pair->n_idle);
  else
    g_clear_signal_handler (&pair->idle_handler, pair->stream);
}

static inline void
launch_pair_clear (LaunchPair *pair)
{
  launch_pair_synchronize (pair);
  g_clear_pointer (&pair->args, cugi_kernel_args_unref);
  g_clear_pointer (&pair->config, cugi_launch_config_unref);
  g_clear_object (&pair->stream);
  g_clear_object (&pair->kernel);
}
