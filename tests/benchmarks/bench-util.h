/* bench-util.h: what the C benchmarks share: failing loudly (a benchmark
 * has nothing to measure after an error) and the summary of samples. */
#pragma once

#include <stdlib.h>
#include <time.h>

#include <glib.h>

#include "cugi-private.h"

static inline void
check (CUresult    result,
       const char *what)
{
  if (G_UNLIKELY (result != CUDA_SUCCESS))
    g_error ("%s failed with CUDA error %d", what, (int) result);
}

static inline void
check_error (gboolean ok,
             GError  *error)
{
  if (G_UNLIKELY (!ok))
    g_error ("%s", error->message);
}

/* @clock now, in nanoseconds: the launches and frames timed are a few
 * microseconds, which g_get_monotonic_time()'s microseconds cut too
 * coarsely; CLOCK_THREAD_CPUTIME_ID for a thread's own CPU time. */
static inline gint64
bench_clock_ns (clockid_t clock)
{
  struct timespec now;

  clock_gettime (clock, &now);
  return (gint64) now.tv_sec * G_GINT64_CONSTANT (1000000000) + now.tv_nsec;
}

static inline int
compare_doubles (gconstpointer a,
                 gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

/* Sorts @samples (@n of them, at least one) and returns the middle one. */
static inline double
bench_median (double *samples,
              gsize   n)
{
  qsort (samples, n, sizeof (double), compare_doubles);
  return samples[n / 2];
}
