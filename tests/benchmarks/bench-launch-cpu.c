/* bench-launch-cpu.c: what cugi_kernel_launch() adds to cuLaunchKernel, on
 * the CPU alone. It runs against the stand-in driver of the tests
 * (fake-cuda-streams), whose launches do nothing, so what is left is cugi's
 * own work: the same 4-argument launch as bench-launch, made through the
 * driver's table directly and through cugi, timed per launch.
 *
 * For instruction counts, run it under callgrind and read the inclusive
 * cost of launch_raw() and launch_cugi() (each called LAUNCHES times per
 * round):
 *   valgrind --tool=callgrind --callgrind-out-file=cg.out bench-launch-cpu 1
 *   callgrind_annotate --inclusive=yes cg.out | grep launch_
 * The optional argument is the number of rounds (default 7). */
#include "config.h"

#include <locale.h>
#include <stdlib.h>

#include "cugi-private.h"

#define LAUNCHES 200000
#define SYNC_EVERY 1024
#define N_ELEMENTS 32

/* The stand-in driver's module format: a kernel and its parameters' sizes. */
static const char image[] = "axpy4 4 8 8 4\n";

typedef struct
{
  CugiStream       *stream;
  CUstream          handle;
  CugiKernel       *kernel;
  CugiLaunchConfig *config;
  CugiKernelArgs   *args;

  CUfunction        function;
  float             a;
  CUdeviceptr       x;
  CUdeviceptr       y;
  unsigned int      n;
  void             *params[4];
} Bench;

static void
check (CUresult    result,
       const char *what)
{
  if (G_UNLIKELY (result != CUDA_SUCCESS))
    g_error ("%s failed with CUDA error %d", what, (int) result);
}

static void
check_error (gboolean ok,
             GError  *error)
{
  if (G_UNLIKELY (!ok))
    g_error ("%s", error->message);
}

/* Not inlined, so that callgrind reports each path on its own. */
static G_GNUC_NO_INLINE void
launch_raw (Bench *bench)
{
  check (cugi_cuda.cuLaunchKernel (bench->function, 1, 1, 1, N_ELEMENTS, 1, 1, 0, bench->handle,
                                   bench->params, NULL), "cuLaunchKernel");
}

static G_GNUC_NO_INLINE void
launch_cugi (Bench *bench)
{
  GError *error = NULL;
  /* Apart: the order in which arguments are evaluated is unspecified. */
  gboolean launched = cugi_kernel_launch (bench->kernel, bench->config, bench->args, &error);

  check_error (launched, error);
}

/* Nanoseconds per launch, synchronizing every SYNC_EVERY as bench-launch. */
static double
time_launches (Bench *bench,
               void (*launch) (Bench *))
{
  gint64 start = g_get_monotonic_time ();

  for (guint i = 1; i <= LAUNCHES; i++)
    {
      launch (bench);
      if (i % SYNC_EVERY == 0)
        check (cugi_cuda.cuStreamSynchronize (bench->handle), "cuStreamSynchronize");
    }
  check (cugi_cuda.cuStreamSynchronize (bench->handle), "cuStreamSynchronize");
  return (g_get_monotonic_time () - start) * 1e3 / LAUNCHES;
}

static int
compare_doubles (gconstpointer a,
                 gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

static void
set_up (Bench       *bench,
        CugiContext *context)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) module_image = g_bytes_new_static (image, sizeof image);
  g_autoptr(CugiModule) module = NULL;
  g_autoptr(CugiBuffer) x = NULL;
  g_autoptr(CugiBuffer) y = NULL;

  module = cugi_module_new_from_data (context, module_image, &error);
  check_error (module != NULL, error);
  bench->kernel = cugi_module_get_kernel (module, "axpy4", &error);
  check_error (bench->kernel != NULL, error);
  bench->stream = cugi_stream_new (context, CUGI_STREAM_FLAGS_NON_BLOCKING, 0, &error);
  check_error (bench->stream != NULL, error);
  bench->handle = cugi_stream_get_handle (bench->stream);
  /* The stand-in driver has no memory: buffers over made-up addresses. */
  x = cugi_buffer_new_wrapping (context, 0x10000, N_ELEMENTS * sizeof (float), NULL);
  y = cugi_buffer_new_wrapping (context, 0x20000, N_ELEMENTS * sizeof (float), NULL);

  bench->a = 0.5f;
  bench->n = N_ELEMENTS;
  bench->config = cugi_launch_config_new (1, N_ELEMENTS);
  cugi_launch_config_set_stream (bench->config, bench->stream);
  bench->args = cugi_kernel_args_new ();
  cugi_kernel_args_add_float (bench->args, bench->a);
  cugi_kernel_args_add_buffer (bench->args, x);
  cugi_kernel_args_add_buffer (bench->args, y);
  cugi_kernel_args_add_uint32 (bench->args, bench->n);

  bench->function = cugi_kernel_get_function (bench->kernel);
  check_error (cugi_buffer_get_address (x, &bench->x, &error), error);
  check_error (cugi_buffer_get_address (y, &bench->y, &error), error);
  bench->params[0] = &bench->a;
  bench->params[1] = &bench->x;
  bench->params[2] = &bench->y;
  bench->params[3] = &bench->n;
}

static void
tear_down (Bench *bench)
{
  check (cugi_cuda.cuStreamSynchronize (bench->handle), "cuStreamSynchronize");
  g_clear_pointer (&bench->args, cugi_kernel_args_unref);
  g_clear_pointer (&bench->config, cugi_launch_config_unref);
  g_clear_object (&bench->stream);
  g_clear_object (&bench->kernel);
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiContext) context = NULL;
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  Bench bench = { 0 };
  guint rounds = argc > 1 ? (guint) atoi (argv[1]) : 7;
  g_autofree double *raw = NULL;
  g_autofree double *cugi = NULL;

  setlocale (LC_ALL, "C.UTF-8");
  rounds = MAX (rounds, 1);
  if (!cugi_init (&error) || (context = cugi_context_get_default (&error)) == NULL)
    {
      g_printerr ("bench-launch-cpu: needs the stand-in driver (CUGI_LIBCUDA): %s\n", error->message);
      return 77;
    }
  /* The raw launches need the context current, as cugi's make it. */
  check_error (cugi_context_enter (context, &scope, &error), error);
  set_up (&bench, context);

  raw = g_new (double, rounds);
  cugi = g_new (double, rounds);
  for (guint round = 0; round < rounds; round++)
    {
      raw[round] = time_launches (&bench, launch_raw);
      cugi[round] = time_launches (&bench, launch_cugi);
    }
  qsort (raw, rounds, sizeof (double), compare_doubles);
  qsort (cugi, rounds, sizeof (double), compare_doubles);
  g_print ("bench-launch-cpu: a 4-argument launch against a driver that does nothing; "
           "medians of %u rounds of %u launches\n", rounds, LAUNCHES);
  g_print ("%-36s %10.1f ns\n", "cuLaunchKernel (stand-in)", raw[rounds / 2]);
  g_print ("%-36s %10.1f ns\n", "cugi_kernel_launch", cugi[rounds / 2]);
  g_print ("%-36s %10.1f ns\n", "cugi's own cost per launch", cugi[rounds / 2] - raw[rounds / 2]);

  tear_down (&bench);
  return 0;
}
