/* cugi-green-context.c: contexts over a part of a device's multiprocessors
 * (CUDA's green contexts).
 *
 * A green context is made from an SM resource split off the device's, and
 * used through the CUcontext the driver converts it to: wrapped as a foreign
 * context (cugi_context_new_for_handle_full()) whose release destroys the
 * green context, it is a CugiContext like any other, so streams, events,
 * buffers and kernels made in it need nothing of their own.
 */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "cugi-context-private.h"
#include "cugi-private.h"

static void
destroy_green_context (gpointer green)
{
  cugi_cuda.cuGreenCtxDestroy (green);
}

/* The entry points of green contexts, which drivers before CUDA 12.4 lack. */
static gboolean
require_green_contexts (GError **error)
{
  return CUGI_REQUIRE_ENTRY_POINT (cuDeviceGetDevResource, error) &&
         CUGI_REQUIRE_ENTRY_POINT (cuDevSmResourceSplitByCount, error) &&
         CUGI_REQUIRE_ENTRY_POINT (cuDevResourceGenerateDesc, error) &&
         CUGI_REQUIRE_ENTRY_POINT (cuGreenCtxCreate, error) &&
         CUGI_REQUIRE_ENTRY_POINT (cuGreenCtxDestroy, error) &&
         CUGI_REQUIRE_ENTRY_POINT (cuCtxFromGreenCtx, error);
}

/**
 * cugi_context_new_green:
 * @device: (nullable): the device, or %NULL for the default device
 * @sm_count: the number of streaming multiprocessors (SMs) to run on
 * @error: return location for a #GError
 *
 * Makes a green context: a context whose kernels run on @sm_count of the
 * device's SMs only, leaving the others to other contexts (a latency-bound
 * stream beside a bulk one, say). The driver rounds @sm_count up to its
 * partition granularity (a multiple of 8 SMs on Hopper);
 * cugi_context_get_sm_count() says how many the context got.
 *
 * The context shares the device's memory with its primary context (buffers
 * of either work in both), and everything made in it (streams, events,
 * kernels, the launches on its default stream) runs on its SMs. A green
 * context may be current to one thread at a time only: use it, and what is
 * made in it, from one thread at a time.
 *
 * @sm_count must be at least 1 and at most the device's
 * #CugiDevice:multiprocessor-count, else %CUGI_ERROR_INVALID_ARGUMENT; a
 * driver without green contexts (before CUDA 12.4) fails with
 * %CUGI_ERROR_NOT_SUPPORTED.
 *
 * Returns: (transfer full): a new #CugiContext, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiContext *
cugi_context_new_green (CugiDevice *device,
                        guint       sm_count,
                        GError    **error)
{
  g_autoptr(CugiDevice) target = NULL;
  CUdevResource all = { 0 }, part = { 0 }, rest = { 0 };
  CUdevResourceDesc description = NULL;
  CUgreenCtx green = NULL;
  CUcontext handle = NULL;
  unsigned int n_groups = 1;

  g_return_val_if_fail (device == NULL || CUGI_IS_DEVICE (device), NULL);

  if (!cugi_ensure_driver (error) || !require_green_contexts (error))
    return NULL;
  target = device != NULL ? g_object_ref (device) : cugi_device_get_default (error);
  if (target == NULL || !cugi_device_check (target, error))
    return NULL;
  if (sm_count == 0 || sm_count > (guint) cugi_device_get_multiprocessor_count (target))
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("A green context needs between 1 and %d multiprocessors of %s, not %u"),
                   cugi_device_get_multiprocessor_count (target), cugi_device_get_alias (target), sm_count);
      return NULL;
    }

  if (!CUGI_CALL (cuDeviceGetDevResource, (cugi_device_get_handle (target), &all, CU_DEV_RESOURCE_TYPE_SM),
                  error) ||
      !CUGI_CALL (cuDevSmResourceSplitByCount, (&part, &n_groups, &all, &rest, 0, sm_count), error) ||
      !CUGI_CALL (cuDevResourceGenerateDesc, (&description, &part, 1), error) ||
      /* With its own default stream, so that launches on it run in the
       * partition too. */
      !CUGI_CALL (cuGreenCtxCreate, (&green, description, cugi_device_get_handle (target),
                                     CU_GREEN_CTX_DEFAULT_STREAM), error))
    return NULL;
  if (!CUGI_CALL (cuCtxFromGreenCtx, (&handle, green), error))
    {
      destroy_green_context (green);
      return NULL;
    }
  /* Takes the green context: destroyed with the CugiContext, or at once
   * when wrapping fails. */
  return cugi_context_new_for_handle_full ((guint64) (guintptr) handle, green, destroy_green_context, error);
}

/**
 * cugi_context_get_sm_count:
 * @self: a #CugiContext
 * @error: return location for a #GError
 *
 * The number of streaming multiprocessors the context's kernels may run on:
 * a green context's share (cugi_context_new_green()), every SM of the
 * device for other contexts.
 *
 * Returns: the number of SMs, or 0 with @error set
 *
 * Since: 0.1
 */
guint
cugi_context_get_sm_count (CugiContext *self,
                           GError     **error)
{
  CUdevResource resource = { 0 };

  g_return_val_if_fail (CUGI_IS_CONTEXT (self), 0);

  if (!cugi_context_check (self, error))
    return 0;
  /* Drivers without resource queries have no green contexts either. */
  if (cugi_cuda.cuCtxGetDevResource == NULL)
    return (guint) cugi_device_get_multiprocessor_count (cugi_context_get_device (self));
  if (!CUGI_CALL (cuCtxGetDevResource, (cugi_context_get_handle (self), &resource, CU_DEV_RESOURCE_TYPE_SM),
                  error))
    return 0;
  return resource.sm.smCount;
}
