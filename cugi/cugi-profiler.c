/* cugi-profiler.c: profiler control and NVTX annotations
 *
 * NVTX is header-only (NVTX3): each call is a no-op until a profiler such as
 * Nsight Systems injects its library, so nothing is linked and nothing costs
 * more than a test of a function pointer when no profiler runs.
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <nvtx3/nvToolsExt.h>

#include "cugi-context-private.h"
#include "cugi-private.h"

/* cuProfilerStart/Stop act on the current context: the caller's when it
 * made one current, else the default context. */
static gboolean
profiler_call (gboolean  start,
               GError  **error)
{
  g_autoptr(CugiContext) context = NULL;
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  const char *entry_point = start ? "cuProfilerStart" : "cuProfilerStop";
  CUcontext current = NULL;

  if (!cugi_ensure_driver (error))
    return FALSE;
  if ((start ? (void *) cugi_cuda.cuProfilerStart : (void *) cugi_cuda.cuProfilerStop) == NULL)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_NOT_SUPPORTED,
                   _("This NVIDIA driver has no %s"), entry_point);
      return FALSE;
    }
  if (!CUGI_CALL (cuCtxGetCurrent, (&current), error))
    return FALSE;
  if (current == NULL &&
      ((context = cugi_context_resolve (NULL, error)) == NULL ||
       !cugi_context_enter (context, &scope, error)))
    return FALSE;
  return cugi_check_result (start ? cugi_cuda.cuProfilerStart () : cugi_cuda.cuProfilerStop (),
                            entry_point, error);
}

/**
 * cugi_profiler_start:
 * @error: return location for a #GError
 *
 * Starts collecting profile data, for a profiler that was told to wait for
 * the application (Nsight Systems' `--capture-range=cudaProfilerApi`, Nsight
 * Compute's `--profile-from-start off`). It acts on the context current on
 * the calling thread, or on the default context when none is. Without a
 * profiler attached it does nothing.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
cugi_profiler_start (GError **error)
{
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return profiler_call (TRUE, error);
}

/**
 * cugi_profiler_stop:
 * @error: return location for a #GError
 *
 * Stops collecting profile data that cugi_profiler_start() began, for the
 * same context; the profiler flushes what it gathered.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
cugi_profiler_stop (GError **error)
{
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return profiler_call (FALSE, error);
}

/**
 * cugi_nvtx_range_push:
 * @message: the name of the range, shown on the profiler's timeline
 *
 * Opens a nested range of the calling thread, shown by NVTX-aware profilers
 * (Nsight Systems) on the CPU timeline; cugi_nvtx_range_pop() closes it.
 * Costs next to nothing when no profiler is attached.
 *
 * Returns: the nesting level of the new range (from 0), or a negative value
 *   when no profiler records ranges
 *
 * Since: 0.1
 */
gint
cugi_nvtx_range_push (const gchar *message)
{
  g_return_val_if_fail (message != NULL, -1);

  return nvtxRangePushA (message);
}

/**
 * cugi_nvtx_range_pop:
 *
 * Closes the innermost range that cugi_nvtx_range_push() opened on the
 * calling thread.
 *
 * Returns: the nesting level of the closed range, or a negative value when
 *   no profiler records ranges or no range was open
 *
 * Since: 0.1
 */
gint
cugi_nvtx_range_pop (void)
{
  return nvtxRangePop ();
}

/**
 * cugi_nvtx_mark:
 * @message: what happened
 *
 * Marks an instant on the calling thread's profiler timeline.
 *
 * Since: 0.1
 */
void
cugi_nvtx_mark (const gchar *message)
{
  g_return_if_fail (message != NULL);

  nvtxMarkA (message);
}
