/* cugi-context-settings.c: what a context has and may be set to: free
 * memory, limits, the cache configuration, stream priorities, peer access */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "cugi-context-private.h"
#include "cugi-private.h"

G_STATIC_ASSERT ((int) CUGI_LIMIT_STACK_SIZE == CU_LIMIT_STACK_SIZE);
G_STATIC_ASSERT ((int) CUGI_LIMIT_PRINTF_FIFO_SIZE == CU_LIMIT_PRINTF_FIFO_SIZE);
G_STATIC_ASSERT ((int) CUGI_LIMIT_MALLOC_HEAP_SIZE == CU_LIMIT_MALLOC_HEAP_SIZE);
G_STATIC_ASSERT ((int) CUGI_LIMIT_DEV_RUNTIME_SYNC_DEPTH == CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH);
G_STATIC_ASSERT ((int) CUGI_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT == CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT);
G_STATIC_ASSERT ((int) CUGI_LIMIT_MAX_L2_FETCH_GRANULARITY == CU_LIMIT_MAX_L2_FETCH_GRANULARITY);
G_STATIC_ASSERT ((int) CUGI_LIMIT_PERSISTING_L2_CACHE_SIZE == CU_LIMIT_PERSISTING_L2_CACHE_SIZE);
G_STATIC_ASSERT ((int) CUGI_CACHE_CONFIG_PREFER_NONE == CU_FUNC_CACHE_PREFER_NONE);
G_STATIC_ASSERT ((int) CUGI_CACHE_CONFIG_PREFER_SHARED == CU_FUNC_CACHE_PREFER_SHARED);
G_STATIC_ASSERT ((int) CUGI_CACHE_CONFIG_PREFER_L1 == CU_FUNC_CACHE_PREFER_L1);
G_STATIC_ASSERT ((int) CUGI_CACHE_CONFIG_PREFER_EQUAL == CU_FUNC_CACHE_PREFER_EQUAL);

/**
 * cugi_context_get_memory_info:
 * @self: a #CugiContext
 * @total_bytes: (out) (optional): return location for the memory of the
 *   device in bytes
 * @error: return location for a #GError
 *
 * How much memory of the context's device is free, and how much it has.
 * Memory used by other contexts and other processes counts as used.
 * Bindings return both, `(free_bytes, total_bytes)`.
 *
 * Returns: the free memory of the device in bytes; 0, and 0 in
 *   @total_bytes, with @error set
 *
 * Since: 0.1
 */
guint64
cugi_context_get_memory_info (CugiContext *self,
                              guint64     *total_bytes,
                              GError     **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  size_t free_memory = 0;
  size_t total_memory = 0;

  g_return_val_if_fail (CUGI_IS_CONTEXT (self), 0);
  g_return_val_if_fail (error == NULL || *error == NULL, 0);

  if (!cugi_context_enter (self, &scope, error) ||
      !CUGI_CALL (cuMemGetInfo, (&free_memory, &total_memory), error))
    free_memory = total_memory = 0;
  if (total_bytes != NULL)
    *total_bytes = total_memory;
  return free_memory;
}

/**
 * cugi_device_get_memory_info:
 * @self: a #CugiDevice
 * @total_bytes: (out) (optional): return location for the device memory in
 *   bytes
 * @error: return location for a #GError
 *
 * How much of the device's memory is free, as seen from its primary context
 * (which this makes, if nothing did before), and how much it has. Other
 * processes' allocations count as used. Bindings return both,
 * `(free_bytes, total_bytes)`.
 *
 * Returns: the free device memory in bytes; 0, and 0 in @total_bytes, with
 *   @error set
 *
 * Since: 0.1
 */
guint64
cugi_device_get_memory_info (CugiDevice *self,
                             guint64    *total_bytes,
                             GError    **error)
{
  g_autoptr(CugiContext) context = NULL;

  g_return_val_if_fail (CUGI_IS_DEVICE (self), 0);
  g_return_val_if_fail (error == NULL || *error == NULL, 0);

  context = cugi_device_get_primary_context (self, error);
  if (context == NULL)
    {
      if (total_bytes != NULL)
        *total_bytes = 0;
      return 0;
    }
  return cugi_context_get_memory_info (context, total_bytes, error);
}

/**
 * cugi_context_get_limit:
 * @self: a #CugiContext
 * @limit: the limit to read
 * @error: return location for a #GError
 *
 * Reads one of the context's limits. A limit the device does not have is a
 * %CUGI_ERROR_NOT_SUPPORTED error; a value outside #CugiLimit is a
 * %CUGI_ERROR_INVALID_ARGUMENT error.
 *
 * Returns: the limit's value, or 0 with @error set (some limits are 0 by
 *   default: @error tells them apart)
 *
 * Since: 0.1
 */
guint64
cugi_context_get_limit (CugiContext *self,
                        CugiLimit    limit,
                        GError     **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  size_t value = 0;

  g_return_val_if_fail (CUGI_IS_CONTEXT (self), 0);
  g_return_val_if_fail (error == NULL || *error == NULL, 0);

  if (!cugi_check_enum_value (CUGI_TYPE_LIMIT, limit, error) ||
      !cugi_context_enter (self, &scope, error) ||
      !CUGI_CALL (cuCtxGetLimit, (&value, (CUlimit) limit), error))
    return 0;
  return value;
}

/**
 * cugi_context_set_limit:
 * @self: a #CugiContext
 * @limit: the limit to change
 * @value: its new value
 * @error: return location for a #GError
 *
 * Changes one of the context's limits, for the kernels launched after this
 * call. The driver may round @value up to what the device supports: read it
 * back with cugi_context_get_limit(). A limit the device does not have is a
 * %CUGI_ERROR_NOT_SUPPORTED error, a value it cannot take
 * %CUGI_ERROR_INVALID_ARGUMENT.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
cugi_context_set_limit (CugiContext *self,
                        CugiLimit    limit,
                        guint64      value,
                        GError     **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;

  g_return_val_if_fail (CUGI_IS_CONTEXT (self), FALSE);

  return cugi_check_enum_value (CUGI_TYPE_LIMIT, limit, error) &&
         cugi_context_enter (self, &scope, error) &&
         CUGI_CALL (cuCtxSetLimit, ((CUlimit) limit, (size_t) value), error);
}

/**
 * cugi_context_get_cache_config:
 * @self: a #CugiContext
 * @error: return location for a #GError
 *
 * How the context prefers to split on-chip memory between L1 and shared
 * memory for its kernels.
 *
 * Returns: the context's preference, or %CUGI_CACHE_CONFIG_PREFER_NONE with
 *   @error set
 *
 * Since: 0.1
 */
CugiCacheConfig
cugi_context_get_cache_config (CugiContext *self,
                               GError     **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CUfunc_cache cache = CU_FUNC_CACHE_PREFER_NONE;

  g_return_val_if_fail (CUGI_IS_CONTEXT (self), CUGI_CACHE_CONFIG_PREFER_NONE);
  g_return_val_if_fail (error == NULL || *error == NULL, CUGI_CACHE_CONFIG_PREFER_NONE);

  if (!cugi_context_enter (self, &scope, error) ||
      !CUGI_CALL (cuCtxGetCacheConfig, (&cache), error))
    return CUGI_CACHE_CONFIG_PREFER_NONE;
  return (CugiCacheConfig) cache;
}

/**
 * cugi_context_set_cache_config:
 * @self: a #CugiContext
 * @config: the preference for the context's kernels
 * @error: return location for a #GError
 *
 * Sets how the context prefers to split on-chip memory between L1 and shared
 * memory. It is a preference: the driver follows it where the device allows
 * and a kernel needs no other split.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
cugi_context_set_cache_config (CugiContext    *self,
                               CugiCacheConfig config,
                               GError        **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;

  g_return_val_if_fail (CUGI_IS_CONTEXT (self), FALSE);

  return cugi_check_enum_value (CUGI_TYPE_CACHE_CONFIG, config, error) &&
         cugi_context_enter (self, &scope, error) &&
         CUGI_CALL (cuCtxSetCacheConfig, ((CUfunc_cache) config), error);
}

/**
 * cugi_context_get_stream_priority_range:
 * @self: a #CugiContext
 * @greatest: (out) (optional): return location for the highest stream
 *   priority
 * @error: return location for a #GError
 *
 * The priorities streams of this context may have, from the lowest (the
 * value returned) to @greatest. Lower numbers mean higher priority, so
 * @greatest is less than or equal to the lowest (for example -5 and 0);
 * both are 0 on a device without stream priorities. Bindings return both,
 * `(least, greatest)`.
 *
 * Returns: the lowest stream priority; 0, and 0 in @greatest, with @error
 *   set (0 is also the usual lowest priority: @error tells them apart)
 *
 * Since: 0.1
 */
gint
cugi_context_get_stream_priority_range (CugiContext *self,
                                        gint        *greatest,
                                        GError     **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  int least_priority = 0;
  int greatest_priority = 0;

  g_return_val_if_fail (CUGI_IS_CONTEXT (self), 0);
  g_return_val_if_fail (error == NULL || *error == NULL, 0);

  if (!cugi_context_enter (self, &scope, error) ||
      !CUGI_CALL (cuCtxGetStreamPriorityRange, (&least_priority, &greatest_priority), error))
    least_priority = greatest_priority = 0;
  if (greatest != NULL)
    *greatest = greatest_priority;
  return least_priority;
}

static gboolean
check_peer (CugiContext *self,
            CugiContext *peer,
            GError     **error)
{
  if (peer == self)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                           _("a context cannot be its own peer"));
      return FALSE;
    }
  return cugi_context_check (peer, error);
}

/**
 * cugi_context_enable_peer_access:
 * @self: the #CugiContext that gains access
 * @peer: the #CugiContext whose memory becomes accessible
 * @error: return location for a #GError
 *
 * Lets kernels and copies running in @self use memory allocated in @peer,
 * a context on another device (see cugi_device_can_access_peer()). Access is
 * one-way: enable it the other way round too where both directions are
 * needed. When the devices cannot be peers, or access is already enabled,
 * this fails with %CUGI_ERROR_PEER_ACCESS.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
cugi_context_enable_peer_access (CugiContext *self,
                                 CugiContext *peer,
                                 GError     **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;

  g_return_val_if_fail (CUGI_IS_CONTEXT (self), FALSE);
  g_return_val_if_fail (CUGI_IS_CONTEXT (peer), FALSE);

  return check_peer (self, peer, error) &&
         cugi_context_enter (self, &scope, error) &&
         CUGI_CALL (cuCtxEnablePeerAccess, (cugi_context_get_handle (peer), 0), error);
}

/**
 * cugi_context_disable_peer_access:
 * @self: the #CugiContext that loses access
 * @peer: the #CugiContext whose memory becomes inaccessible
 * @error: return location for a #GError
 *
 * Undoes cugi_context_enable_peer_access(). When access was not enabled
 * this fails with %CUGI_ERROR_PEER_ACCESS.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
cugi_context_disable_peer_access (CugiContext *self,
                                  CugiContext *peer,
                                  GError     **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;

  g_return_val_if_fail (CUGI_IS_CONTEXT (self), FALSE);
  g_return_val_if_fail (CUGI_IS_CONTEXT (peer), FALSE);

  return check_peer (self, peer, error) &&
         cugi_context_enter (self, &scope, error) &&
         CUGI_CALL (cuCtxDisablePeerAccess, (cugi_context_get_handle (peer)), error);
}
