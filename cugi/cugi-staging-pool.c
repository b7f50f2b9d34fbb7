/* cugi-staging-pool.c: the pool of pinned memory that transfers stage
 * through, and what bindings borrow from it */
#include "config.h"

#include "cugi-context-private.h"
#include "cugi-private.h"
#include "cugi-staging-private.h"

/* Asynchronous transfers go through pinned staging memory, which cugi keeps
 * for reuse: pinning memory takes milliseconds and can wait for the device,
 * so in the steady state neither the calls nor their completions allocate or
 * free any, the calls never pin any on their thread (where the pool holds
 * none for a copy, a thread of cugi's pins it: see cugi-staging-feed.c),
 * and a download's bytes give their block back when they are freed, from
 * any thread, without a driver call. One pool per device, of
 * portable memory (any context of the process can copy to and from it) made
 * in the device's primary context, which the device keeps for the rest of
 * the process, as cugi keeps the pool. Beyond CUGI_STAGING_MAX_HELD_BYTES
 * held for reuse, blocks given back are freed. Bindings borrow the same
 * memory (cugi_host_buffer_new_staging()). */
#define STAGING_FLAGS (CUGI_HOST_BUFFER_FLAGS_PORTABLE | CUGI_HOST_BUFFER_FLAGS_MAPPED)

/* The staging pools made so far: CugiDevice -> CugiHostMemoryPool (owned).
 * Devices live as long as the process, and so do their pools. */
static GMutex staging_pools_lock;
static GHashTable *staging_pools;

CugiHostMemoryPool *
cugi_staging_get_pool (CugiContext  *context,
                       GError      **error)
{
  CugiDevice *device = cugi_context_get_device (context);
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&staging_pools_lock);
  g_autoptr(CugiContext) primary = NULL;
  CugiHostMemoryPool *pool;

  if (staging_pools == NULL)
    staging_pools = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_object_unref);
  if ((pool = g_hash_table_lookup (staging_pools, device)) != NULL)
    return pool;
  if ((primary = cugi_device_get_primary_context (device, error)) == NULL ||
      (pool = cugi_host_memory_pool_new (primary, STAGING_FLAGS, error)) == NULL)
    return NULL;
  cugi_host_memory_pool_set_max_held_bytes (pool, CUGI_STAGING_MAX_HELD_BYTES);
  g_hash_table_insert (staging_pools, device, pool);
  return pool;
}

CugiHostBuffer *
cugi_staging_new (CugiContext  *context,
                  gsize         size,
                  gboolean      may_pin,
                  GError      **error)
{
  CugiHostMemoryPool *pool = cugi_staging_get_pool (context, error);

  if (pool == NULL)
    return NULL;
  return may_pin ? cugi_host_memory_pool_allocate (pool, size, error)
                 : cugi_host_memory_pool_allocate_held (pool, size, error);
}

CugiHostBuffer *
cugi_staging_new_with_data (CugiContext  *context,
                            gsize         size,
                            gboolean      may_pin,
                            guint8      **data,
                            GError      **error)
{
  g_autoptr(CugiHostBuffer) staging = cugi_staging_new (context, size, may_pin, error);

  if (staging == NULL || (*data = cugi_host_buffer_get_data (staging, NULL, error)) == NULL)
    return NULL;
  return g_steal_pointer (&staging);
}

/**
 * cugi_host_buffer_new_staging:
 * @context: (nullable): a context of the device the memory is to be copied
 *   to or from, or %NULL for the default context
 * @size: the size in bytes
 * @error: return location for a #GError
 *
 * Borrows @size bytes of pinned host memory from the pool through which
 * cugi stages transfers to and from @context's device (the pageable data of
 * cugi_buffer_upload_bytes_async(), the bytes of
 * cugi_buffer_download_async()), so that a language binding moving its own
 * data through pinned memory shares that pool instead of keeping one of its
 * own: fill the memory and copy it with cugi_buffer_upload_from_host(), or
 * copy into it with cugi_buffer_download_to_host() and read it. The memory
 * is not initialized; it is portable and mapped
 * (%CUGI_HOST_BUFFER_FLAGS_PORTABLE | %CUGI_HOST_BUFFER_FLAGS_MAPPED), so
 * every context of the process copies to and from it, and it belongs to the
 * device's primary context, which cugi keeps.
 *
 * When the host buffer is freed or finalized, and the work using it has
 * completed, the memory goes back to the pool for the next transfer; the
 * pool holds up to 512 MiB of it for reuse, and cugi_free_staging_memory()
 * frees what it holds.
 *
 * Returns: (transfer full): the host buffer, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiHostBuffer *
cugi_host_buffer_new_staging (CugiContext  *context,
                              gsize         size,
                              GError      **error)
{
  g_autoptr(CugiContext) resolved = NULL;

  g_return_val_if_fail (context == NULL || CUGI_IS_CONTEXT (context), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!cugi_ensure_driver (error) ||
      (resolved = cugi_context_resolve (context, error)) == NULL)
    return NULL;
  return cugi_staging_new (resolved, size, TRUE, error);
}

/**
 * cugi_free_staging_memory:
 * @error: return location for a #GError
 *
 * Frees the pinned staging memory that cugi holds for reuse, on every
 * device: the memory of transfers that completed, and that of
 * cugi_host_buffer_new_staging() given back. Memory in use now is not
 * affected; it is held again when it comes back. For a program that is done
 * transferring for a while, or that needs the pinned memory elsewhere.
 *
 * Returns: %TRUE on success; on failure the memory is freed as far as
 *   possible and the first error is reported
 *
 * Since: 0.1
 */
gboolean
cugi_free_staging_memory (GError **error)
{
  g_autoptr(GPtrArray) pools = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GError) first_error = NULL;

  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  /* Freeing calls the driver: not under the lock that transfers take. */
  g_mutex_lock (&staging_pools_lock);
  if (staging_pools != NULL)
    {
      GHashTableIter iter;
      gpointer pool;

      g_hash_table_iter_init (&iter, staging_pools);
      while (g_hash_table_iter_next (&iter, NULL, &pool))
        g_ptr_array_add (pools, g_object_ref (pool));
    }
  g_mutex_unlock (&staging_pools_lock);

  for (guint i = 0; i < pools->len; i++)
    cugi_host_memory_pool_free_held (g_ptr_array_index (pools, i),
                                     first_error == NULL ? &first_error : NULL);
  if (first_error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&first_error));
      return FALSE;
    }
  return TRUE;
}
