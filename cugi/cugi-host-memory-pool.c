/* cugi-host-memory-pool.c: reuse of pinned host memory */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "cugi-private.h"

/**
 * CugiHostMemoryPool:
 *
 * Hands out pinned host memory and takes it back for reuse, as
 * #CugiMemoryPool does for device memory (and PyCUDA's
 * `PageLockedMemoryPool`): pinning memory is expensive, reusing it is not.
 *
 * cugi_host_memory_pool_allocate() returns an ordinary #CugiHostBuffer,
 * allocated with the pool's #CugiHostMemoryPool:flags. When it is finalized
 * or freed (and copies, #GBytes and device buffers using it are done), its
 * memory goes back to the pool. Bins, counts, the retry when memory runs out
 * and the lifetimes are those of #CugiMemoryPool.
 */

struct _CugiHostMemoryPool
{
  GObject              parent_instance;

  CugiContext         *context;
  CugiHostBufferFlags  flags;
  CugiBlockPool       *blocks;
};

G_DEFINE_FINAL_TYPE (CugiHostMemoryPool, cugi_host_memory_pool, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_CONTEXT,
  PROP_FLAGS,
  PROP_HELD_BLOCKS,
  PROP_ACTIVE_BLOCKS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static guint
current_generation (CugiHostMemoryPool *self)
{
  return cugi_context_get_generation (self->context);
}

static gboolean
allocate_block (gpointer   user_data,
                gsize      size,
                guint64   *block,
                GError   **error)
{
  CugiHostMemoryPool *self = user_data;
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  void *data = NULL;

  if (!cugi_context_enter (self->context, &scope, error) ||
      !CUGI_CALL (cuMemHostAlloc, (&data, size, self->flags), error))
    return FALSE;
  *block = (guintptr) data;
  return TRUE;
}

static gboolean
free_block (gpointer   user_data,
            guint64    block,
            gsize      size,
            GError   **error)
{
  CugiHostMemoryPool *self = user_data;
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;

  return cugi_context_enter (self->context, &scope, error) &&
         CUGI_CALL (cuMemFreeHost, ((void *) (guintptr) block), error);
}

static void
blocks_changed (gpointer user_data,
                gboolean held_changed,
                gboolean active_changed)
{
  GObject *object = user_data;

  g_object_freeze_notify (object);
  if (held_changed)
    g_object_notify_by_pspec (object, properties[PROP_HELD_BLOCKS]);
  if (active_changed)
    g_object_notify_by_pspec (object, properties[PROP_ACTIVE_BLOCKS]);
  g_object_thaw_notify (object);
}

gboolean
cugi_host_memory_pool_return_block (CugiHostMemoryPool  *self,
                                    gpointer             address,
                                    gsize                size,
                                    guint                generation,
                                    GError             **error)
{
  return cugi_block_pool_give_back (self->blocks, current_generation (self),
                                    (guintptr) address, size, generation, error);
}

void
cugi_host_memory_pool_set_max_held_bytes (CugiHostMemoryPool *self,
                                          gsize               max_held_bytes)
{
  g_return_if_fail (CUGI_IS_HOST_MEMORY_POOL (self) && self->blocks != NULL);

  cugi_block_pool_set_max_held_bytes (self->blocks, max_held_bytes);
}

static void
cugi_host_memory_pool_finalize (GObject *object)
{
  CugiHostMemoryPool *self = CUGI_HOST_MEMORY_POOL (object);

  if (self->blocks != NULL)
    cugi_block_pool_destroy (self->blocks, current_generation (self));
  g_clear_object (&self->context);

  G_OBJECT_CLASS (cugi_host_memory_pool_parent_class)->finalize (object);
}

static void
cugi_host_memory_pool_get_property (GObject    *object,
                                    guint       prop_id,
                                    GValue     *value,
                                    GParamSpec *pspec)
{
  CugiHostMemoryPool *self = CUGI_HOST_MEMORY_POOL (object);

  switch (prop_id)
    {
    case PROP_CONTEXT:
      g_value_set_object (value, self->context);
      break;
    case PROP_FLAGS:
      g_value_set_flags (value, self->flags);
      break;
    case PROP_HELD_BLOCKS:
      g_value_set_uint (value, cugi_host_memory_pool_get_held_blocks (self));
      break;
    case PROP_ACTIVE_BLOCKS:
      g_value_set_uint (value, cugi_host_memory_pool_get_active_blocks (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cugi_host_memory_pool_class_init (CugiHostMemoryPoolClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = cugi_host_memory_pool_finalize;
  object_class->get_property = cugi_host_memory_pool_get_property;

  /**
   * CugiHostMemoryPool:context:
   *
   * The context the pool allocates in, which it keeps alive.
   */
  properties[PROP_CONTEXT] =
    g_param_spec_object ("context", NULL, NULL, CUGI_TYPE_CONTEXT,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * CugiHostMemoryPool:flags:
   *
   * How the pool allocates its memory, for every host buffer it hands out.
   */
  properties[PROP_FLAGS] =
    g_param_spec_flags ("flags", NULL, NULL, CUGI_TYPE_HOST_BUFFER_FLAGS,
                        CUGI_HOST_BUFFER_FLAGS_NONE,
                        G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * CugiHostMemoryPool:held-blocks:
   *
   * The number of blocks the pool holds for reuse: allocated, used by no
   * host buffer.
   */
  properties[PROP_HELD_BLOCKS] =
    g_param_spec_uint ("held-blocks", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * CugiHostMemoryPool:active-blocks:
   *
   * The number of blocks that host buffers from the pool use now.
   */
  properties[PROP_ACTIVE_BLOCKS] =
    g_param_spec_uint ("active-blocks", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
cugi_host_memory_pool_init (CugiHostMemoryPool *self)
{
}

/**
 * cugi_host_memory_pool_new:
 * @context: (nullable): the context to allocate in, or %NULL for the default
 *   context
 * @flags: how to allocate the pool's memory (see cugi_host_buffer_new())
 * @error: return location for a #GError
 *
 * Makes an empty pool of pinned host memory.
 *
 * Returns: (transfer full): the new pool, or %NULL with @error set
 */
CugiHostMemoryPool *
cugi_host_memory_pool_new (CugiContext          *context,
                           CugiHostBufferFlags   flags,
                           GError              **error)
{
  g_autoptr(CugiContext) resolved = NULL;
  CugiHostMemoryPool *self;

  g_return_val_if_fail (context == NULL || CUGI_IS_CONTEXT (context), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!cugi_host_buffer_check_flags (flags, CUGI_HOST_BUFFER_FLAGS_ALL, error) ||
      !cugi_ensure_driver (error) ||
      (resolved = cugi_context_resolve (context, error)) == NULL)
    return NULL;
  self = g_object_new (CUGI_TYPE_HOST_MEMORY_POOL, NULL);
  self->context = g_steal_pointer (&resolved);
  self->flags = flags;
  self->blocks = cugi_block_pool_new (allocate_block, free_block, blocks_changed, self,
                                      current_generation (self));
  return self;
}

/**
 * cugi_host_memory_pool_allocate:
 * @self: a #CugiHostMemoryPool
 * @size: the size in bytes
 * @error: return location for a #GError
 *
 * A pinned host buffer of @size bytes, on a block the pool held if it has
 * one of the right bin, else on a new one. Its memory returns to @self when
 * the host buffer is finalized or freed. If memory runs out, the pool frees
 * the blocks it holds and tries again.
 *
 * Returns: (transfer full): the host buffer, or %NULL with @error set
 */
CugiHostBuffer *
cugi_host_memory_pool_allocate (CugiHostMemoryPool  *self,
                                gsize                size,
                                GError             **error)
{
  CugiHostBuffer *host_buffer;
  guint64 block;
  guint generation;

  g_return_val_if_fail (CUGI_IS_HOST_MEMORY_POOL (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (self->blocks == NULL)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE,
                           _("The pool has no context: make it with cugi_host_memory_pool_new()"));
      return NULL;
    }
  if (size == 0)
    return cugi_host_buffer_new (self->context, 0, self->flags, error);
  generation = current_generation (self);
  if (!cugi_block_pool_take (self->blocks, generation, size, &block, error))
    return NULL;
  host_buffer = cugi_host_buffer_new_pooled (self, self->context, (gpointer) (guintptr) block,
                                             size, self->flags, error);
  if (host_buffer == NULL)
    cugi_block_pool_give_back (self->blocks, generation, block, size, generation, NULL);
  return host_buffer;
}

/**
 * cugi_host_memory_pool_get_flags:
 * @self: a #CugiHostMemoryPool
 *
 * Returns: how the pool allocates (#CugiHostMemoryPool:flags)
 */
CugiHostBufferFlags
cugi_host_memory_pool_get_flags (CugiHostMemoryPool *self)
{
  g_return_val_if_fail (CUGI_IS_HOST_MEMORY_POOL (self), CUGI_HOST_BUFFER_FLAGS_NONE);

  return self->flags;
}

/**
 * cugi_host_memory_pool_get_held_blocks:
 * @self: a #CugiHostMemoryPool
 *
 * Returns: the number of blocks held for reuse
 *   (#CugiHostMemoryPool:held-blocks)
 */
guint
cugi_host_memory_pool_get_held_blocks (CugiHostMemoryPool *self)
{
  g_return_val_if_fail (CUGI_IS_HOST_MEMORY_POOL (self), 0);

  return self->blocks != NULL ? cugi_block_pool_get_held (self->blocks) : 0;
}

/**
 * cugi_host_memory_pool_get_active_blocks:
 * @self: a #CugiHostMemoryPool
 *
 * Returns: the number of blocks host buffers use
 *   (#CugiHostMemoryPool:active-blocks)
 */
guint
cugi_host_memory_pool_get_active_blocks (CugiHostMemoryPool *self)
{
  g_return_val_if_fail (CUGI_IS_HOST_MEMORY_POOL (self), 0);

  return self->blocks != NULL ? cugi_block_pool_get_active (self->blocks) : 0;
}

/**
 * cugi_host_memory_pool_free_held:
 * @self: a #CugiHostMemoryPool
 * @error: return location for a #GError
 *
 * Frees every block the pool holds; #CugiHostMemoryPool:held-blocks drops
 * to 0. Host buffers in use are not affected.
 *
 * Returns: %TRUE on success; on failure the blocks are freed as far as
 *   possible and the first error is reported
 */
gboolean
cugi_host_memory_pool_free_held (CugiHostMemoryPool  *self,
                                 GError             **error)
{
  g_return_val_if_fail (CUGI_IS_HOST_MEMORY_POOL (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return self->blocks == NULL ||
         cugi_block_pool_free_held (self->blocks, current_generation (self), error);
}

/**
 * cugi_host_memory_pool_stop_holding:
 * @self: a #CugiHostMemoryPool
 * @error: return location for a #GError
 *
 * Frees the held blocks, and from now on frees the memory of released host
 * buffers instead of holding it.
 *
 * Returns: %TRUE on success
 */
gboolean
cugi_host_memory_pool_stop_holding (CugiHostMemoryPool  *self,
                                    GError             **error)
{
  g_return_val_if_fail (CUGI_IS_HOST_MEMORY_POOL (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return self->blocks == NULL ||
         cugi_block_pool_stop_holding (self->blocks, current_generation (self), error);
}
