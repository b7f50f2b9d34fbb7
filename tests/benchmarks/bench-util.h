/* bench-util.h: what the C benchmarks share: failing loudly (a benchmark
 * has nothing to measure after an error) and the summary of samples. */
#pragma once

#include <stdlib.h>

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
