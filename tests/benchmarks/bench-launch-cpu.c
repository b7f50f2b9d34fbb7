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
 * values that a real driver reads are not counted. */
#include "config.h"

#include <locale.h>
#include <stdlib.h>

#include "launch-pair.h"

#define LAUNCHES 200000
#define SYNC_EVERY 1024
#define N_ELEMENTS 32

/* The stand-in driver's module format: a kernel and its parameters' sizes. */
static const char image[] = "axpy4 4 8 8 4\n";

/* Nanoseconds per launch, synchronizing every SYNC_EVERY as bench-launch. */
static double
time_launches (LaunchPair *pair,
               void      (*launch) (LaunchPair *))
{
  gint64 start = g_get_monotonic_time ();

  for (guint i = 1; i <= LAUNCHES; i++)
    {
      launch (pair);
      if (i % SYNC_EVERY == 0)
        launch_pair_synchronize (pair);
    }
  launch_pair_synchronize (pair);
  return (g_get_monotonic_time () - start) * 1e3 / LAUNCHES;
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
  for (guint round = 0; round < rounds; round++)
    {
      raw[round] = time_launches (&pair, launch_pair_raw);
      cugi[round] = time_launches (&pair, launch_pair_cugi);
      launch_pair_watch_idle (&pair, TRUE);
      idle[round] = time_launches (&pair, launch_pair_cugi_idle);
      launch_pair_watch_idle (&pair, FALSE);
    }
  /* One ::idle per burst that the main context saw end. */
  if (pair.n_idle == 0)
    g_error ("bench-launch-cpu: ::idle was never emitted");
  qsort (raw, rounds, sizeof (double), compare_doubles);
  qsort (cugi, rounds, sizeof (double), compare_doubles);
  qsort (idle, rounds, sizeof (double), compare_doubles);
  g_print ("bench-launch-cpu: a 4-argument launch against a driver that does nothing; "
           "medians of %u rounds of %u launches\n", rounds, LAUNCHES);
  g_print ("%-36s %10.1f ns\n", "cuLaunchKernel (stand-in)", raw[rounds / 2]);
  g_print ("%-36s %10.1f ns\n", "cugi_kernel_launch", cugi[rounds / 2]);
  g_print ("%-36s %10.1f ns\n", "cugi's own cost per launch", cugi[rounds / 2] - raw[rounds / 2]);
  g_print ("%-36s %10.1f ns\n", "cugi_kernel_launch, ::idle watched", idle[rounds / 2]);

  launch_pair_clear (&pair);
  return 0;
}
