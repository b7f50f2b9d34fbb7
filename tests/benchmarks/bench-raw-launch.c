/* bench-raw-launch.c: prepared launches straight through the driver, from
 * C, for bench_peers.py (through ctypes): the raw C reference for Python's
 * launches, measured in the same process and the same rounds as they are.
 *
 * The driver is the one cugi loads (CUGI_LIBCUDA, else libcuda.so.1),
 * opened here with GModule: this file is a benchmark's helper, outside the
 * library and its loader.
 */

#include <gmodule.h>
#include <cuda.h>

typedef CUresult (*LaunchKernelFunc) (CUfunction, unsigned int, unsigned int, unsigned int,
                                      unsigned int, unsigned int, unsigned int, unsigned int,
                                      CUstream, void **, void **);
typedef CUresult (*CtxSynchronizeFunc) (void);

G_MODULE_EXPORT double bench_raw_launch_seconds (guint64 function, guint64 params, guint threads,
                                                 guint launches, guint sync_every);

/* Launches @function (a CUfunction) @launches times with @params (its
 * kernelParams array) as one block of @threads threads on the legacy
 * stream of the current context, synchronizing after every @sync_every,
 * and returns the seconds taken; -1 where the driver or a launch fails. */
G_MODULE_EXPORT double
bench_raw_launch_seconds (guint64 function,
                          guint64 params,
                          guint   threads,
                          guint   launches,
                          guint   sync_every)
{
  static GModule *driver;
  static LaunchKernelFunc launch_kernel;
  static CtxSynchronizeFunc synchronize;
  gint64 start;

  if (driver == NULL)
    {
      const char *path = g_getenv ("CUGI_LIBCUDA");

      driver = g_module_open (path != NULL ? path : "libcuda.so.1", G_MODULE_BIND_LAZY);
      if (driver == NULL ||
          !g_module_symbol (driver, "cuLaunchKernel", (gpointer *) &launch_kernel) ||
          !g_module_symbol (driver, "cuCtxSynchronize", (gpointer *) &synchronize))
        return -1;
    }
  start = g_get_monotonic_time ();
  for (guint i = 1; i <= launches; i++)
    {
      if (launch_kernel ((CUfunction) (guintptr) function, 1, 1, 1, threads, 1, 1, 0, NULL,
                         (void **) (guintptr) params, NULL) != CUDA_SUCCESS)
        return -1;
      if (i % sync_every == 0 && synchronize () != CUDA_SUCCESS)
        return -1;
    }
  if (synchronize () != CUDA_SUCCESS)
    return -1;
  return (g_get_monotonic_time () - start) / 1e6;
}
