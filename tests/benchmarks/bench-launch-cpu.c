/* bench-launch-cpu.c: what cugi_kernel_launch() adds to cuLaunchKernel, on
 * the CPU alone. It runs against the stand-in driver of the tests
 * (fake-cuda-streams), whose launches do nothing, so what is left is cugi's
 * own work: the same 4-argument launch as bench-launch, made through the
 * driver's table directly and through cugi, timed per launch.
 *
 * A third run launches with a handler of the stream's ::idle connected; as
 * in all three, the main context runs after each synchronization, so that
 * each run of SYNC_EVERY launches is a burst.
 *
 * For instruction counts, run it under callgrind and read the inclusive
 * cost of launch_pair_raw(), launch_pair_cugi() and launch_pair_cugi_idle()
 * (each called LAUNCHES times per round):
 *   valgrind --tool=callgrind --callgrind-out-file=cg.out bench-launch-cpu 1
 *   callgrind_annotate --inclusive=yes cg.out | grep launch_pair
 * The optional argument is the number of rounds (default 7).
 *
 * The cache lines a launch touches, which cost more than its instructions
 * where the driver's own work evicts them between launches: add
 *   --cache-sim=yes --D1=1024,16,64
 * so that the simulated D1 holds fewer lines than a launch of cugi touches
 * (the raw launch fits): each launch then misses once on each line it
 * touches, and the D1mr of launch_pair_cugi() per call counts them.
 * callgrind_annotate --auto=yes --show=D1mr,Ir says which reads they are.
 * The stand-in driver reads no parameters: the lines of the argument
 * values that a real driver reads are not counted.
 *
 * Then a graph of one captured launch is replayed through cuGraphLaunch and
 * through cugi_graph_exec_launch(): graph_pair_raw() and graph_pair_cugi()
 * in callgrind's output, GRAPH_LAUNCHES calls each per round. */
#include "config.h"

#include <locale.h>
#include <stdlib.h>

#include "launch-pair.h"
#include "cugi-graph-private.h"

#define LAUNCHES 200000
#define SYNC_EVERY 1024
#define N_ELEMENTS 32
#define GRAPH_LAUNCHES 20000
#define GRAPH_SYNC_EVERY 16

/* The stand-in driver's module format: a kernel and its parameters' sizes. */
static const char image[] = "axpy4 4 8 8 4\n";

/* Nanoseconds per launch, synchronizing every @sync_every as bench-launch. */
static double
time_some_launches (LaunchPair *pair,
                    void      (*launch) (LaunchPair *),
                    guint       launches,
                    guint       sync_every)
{
  gint64 start = g_get_monotonic_time ();

  for (guint i = 1; i <= launches; i++)
    {
      launch (pair);
      if (i % sync_every == 0)
        launch_pair_synchronize (pair);
    }
  launch_pair_synchronize (pair);
  return (g_get_monotonic_time () - start) * 1e3 / launches;
}

static double
time_launches (LaunchPair *pair,
               void      (*launch) (LaunchPair *))
{
  return time_some_launches (pair, launch, LAUNCHES, SYNC_EVERY);
}

/* The graph both sides replay: one captured launch of the pair's. */
static CugiGraphExec *graph_exec;
static CUgraphExec raw_graph_exec;

static G_GNUC_NO_INLINE void
graph_pair_raw (LaunchPair *pair)
{
  check (cugi_cuda.cuGraphLaunch (raw_graph_exec, pair->handle), "cuGraphLaunch");
}

static G_GNUC_NO_INLINE void
graph_pair_cugi (LaunchPair *pair)
{
  GError *error = NULL;
  gboolean launched = cugi_graph_exec_launch (graph_exec, pair->stream, &error);

  check_error (launched, error);
}

static void
set_up_graph (LaunchPair *pair)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiGraph) graph = NULL;

  check_error (cugi_graph_capture_begin (pair->stream, CUGI_CAPTURE_MODE_GLOBAL, &error), error);
  launch_pair_cugi (pair);
  graph = cugi_graph_capture_end (pair->stream, &error);
  check_error (graph != NULL, error);
  graph_exec = cugi_graph_instantiate (graph, &error);
  check_error (graph_exec != NULL, error);
  check (cugi_cuda.cuGraphInstantiateWithFlags (&raw_graph_exec, cugi_graph_get_handle (graph), 0),
         "cuGraphInstantiateWithFlags");
}

static void
set_up (LaunchPair  *pair,
        CugiContext *context)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) module_image = g_bytes_new_static (image, sizeof image);
  g_autoptr(CugiModule) module = NULL;
  g_autoptr(CugiBuffer) x = NULL;
  g_autoptr(CugiBuffer) y = NULL;
  CugiKernel *kernel;
  CugiStream *stream;

  module = cugi_module_new_from_data (context, module_image, &error);
  check_error (module != NULL, error);
  kernel = cugi_module_get_kernel (module, "axpy4", &error);
  check_error (kernel != NULL, error);
  stream = cugi_stream_new (context, CUGI_STREAM_FLAGS_NON_BLOCKING, 0, &error);
  check_error (stream != NULL, error);
  /* The stand-in driver has no memory: buffers over made-up addresses. */
  x = cugi_buffer_new_wrapping (context, 0x10000, N_ELEMENTS * sizeof (float), NULL);
  y = cugi_buffer_new_wrapping (context, 0x20000, N_ELEMENTS * sizeof (float), NULL);
  launch_pair_set_up (pair, kernel, stream, x, y, N_ELEMENTS);
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiContext) context = NULL;
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  LaunchPair pair = { 0 };
  guint rounds = argc > 1 ? (guint) atoi (argv[1]) : 7;
  g_autofree double *raw = NULL;
  g_autofree double *cugi = NULL;
  g_autofree double *idle = NULL;
  g_autofree double *graph_raw = NULL;
  g_autofree double *graph_cugi = NULL;

  setlocale (LC_ALL, "C.UTF-8");
  rounds = MAX (rounds, 1);
  if (!cugi_init (&error) || (context = cugi_context_get_default (&error)) == NULL)
    {
      g_printerr ("bench-launch-cpu: needs the stand-in driver (CUGI_LIBCUDA): %s\n", error->message);
      return 77;
    }
  /* The raw launches need the context current, as cugi's make it. */
  check_error (cugi_context_enter (context, &scope, &error), error);
  set_up (&pair, context);

  raw = g_new (double, rounds);
  cugi = g_new (double, rounds);
  idle = g_new (double, rounds);
  graph_raw = g_new (double, rounds);
  graph_cugi = g_new (double, rounds);
  for (guint round = 0; round < rounds; round++)
    {
      raw[round] = time_launches (&pair, launch_pair_raw);
      cugi[round] = time_launches (&pair, launch_pair_cugi);
      launch_pair_watch_idle (&pair, TRUE);
      idle[round] = time_launches (&pair, launch_pair_cugi_idle);
      launch_pair_watch_idle (&pair, FALSE);
    }
  set_up_graph (&pair);
  for (guint round = 0; round < rounds; round++)
    {
      graph_raw[round] = time_some_launches (&pair, graph_pair_raw, GRAPH_LAUNCHES, GRAPH_SYNC_EVERY);
      graph_cugi[round] = time_some_launches (&pair, graph_pair_cugi, GRAPH_LAUNCHES, GRAPH_SYNC_EVERY);
    }
  /* One ::idle per burst that the main context saw end. */
  if (pair.n_idle == 0)
    g_error ("bench-launch-cpu: ::idle was never emitted");
  qsort (raw, rounds, sizeof (double), compare_doubles);
  qsort (cugi, rounds, sizeof (double), compare_doubles);
  qsort (idle, rounds, sizeof (double), compare_doubles);
  qsort (graph_raw, rounds, sizeof (double), compare_doubles);
  qsort (graph_cugi, rounds, sizeof (double), compare_doubles);
  g_print ("bench-launch-cpu: a 4-argument launch against a driver that does nothing; "
           "medians of %u rounds of %u launches\n", rounds, LAUNCHES);
  g_print ("%-36s %10.1f ns\n", "cuLaunchKernel (stand-in)", raw[rounds / 2]);
  g_print ("%-36s %10.1f ns\n", "cugi_kernel_launch", cugi[rounds / 2]);
  g_print ("%-36s %10.1f ns\n", "cugi's own cost per launch", cugi[rounds / 2] - raw[rounds / 2]);
  g_print ("%-36s %10.1f ns\n", "cugi_kernel_launch, ::idle watched", idle[rounds / 2]);
  g_print ("%-36s %10.1f ns\n", "cuGraphLaunch (stand-in)", graph_raw[rounds / 2]);
  g_print ("%-36s %10.1f ns\n", "cugi_graph_exec_launch", graph_cugi[rounds / 2]);
  g_print ("%-36s %10.1f ns\n", "cugi's own cost per graph launch", graph_cugi[rounds / 2] - graph_raw[rounds / 2]);

  check (cugi_cuda.cuGraphExecDestroy (raw_graph_exec), "cuGraphExecDestroy");
  g_clear_object (&graph_exec);
  launch_pair_clear (&pair);
  return 0;
}
