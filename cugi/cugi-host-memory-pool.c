/* cugi-host-memory-pool.c: reuse of pinned host memory */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "cugi-context-private.h"
#include "cugi-private.h"
#include "cugi-memory-private.h"

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
 *
 * Since: 0.1
 */

struct _CugiHostMemoryPool
{
  GObject              parent_instance;

  CugiPoolCore         core;
  CugiHostBufferFlags  flags;
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

#define NO_CONTEXT_MESSAGE N_("The pool has no context: make it with cugi_host_memory_pool_new()")

static gboolean
allocate_block (CugiPoolCore  *core,
                gsize          size,
                guint64       *block,
                GError       **error)
{
  CugiHostMemoryPool *self = (CugiHostMemoryPool *) core->object;
  void *data = NULL;

  /* Pinning takes milliseconds: a pool doing it in a steady state (seen
   * with G_MESSAGES_DEBUG=Cugi) holds too little. */
  g_debug ("A host memory pool pins %zu bytes", size);
  if (!CUGI_CALL (cuMemHostAlloc, (&data, size, self->flags), error))
    return FALSE;
  *block = (guintptr) data;
  return TRUE;
}

static gboolean
free_block (CugiPoolCore  *core,
            guint64        block,
            GError       **error)
{
  g_debug ("A host memory pool unpins a block");
  return cugi_synchronizing_release (core->context, CUGI_RELEASE_HOST_MEMORY, block, error);
}

static gpointer
make_host_buffer (CugiPoolCore  *core,
                  guint64        block,
                  gsize          size,
                  GError       **error)
{
  CugiHostMemoryPool *self = (CugiHostMemoryPool *) core->object;

  if (size == 0)
    return cugi_host_buffer_new (core->context, 0, self->flags, error);
  return cugi_host_buffer_new_pooled (core, (gpointer) (guintptr) block, size, self->flags, error);
}

void
cugi_host_memory_pool_set_max_held_bytes (CugiHostMemoryPool *self,
                                          gsize               max_held_bytes)
{
  g_return_if_fail (CUGI_IS_HOST_MEMORY_POOL (self) && self->core.blocks != NULL);

  cugi_block_pool_set_max_held_bytes (self->core.blocks, max_held_bytes);
}

static void
cugi_host_memory_pool_finalize (GObject *object)
{
  CugiHostMemoryPool *self = CUGI_HOST_MEMORY_POOL (object);

  cugi_pool_core_clear (&self->core);

  G_OBJECT_CLASS (cugi_host_memory_pool_parent_class)->finalize (object);
}

static void
cugi_host_memory_pool_get_property (GObject    *object,
                                    guint       prop_id,
                                    GValue     *value,
                                    GParamSpec *pspec)
{
  CugiHostMemoryPool *self = CUGI_HOST_MEMORY_POOL (object);

  if (cugi_pool_core_get_property (&self->core, pspec, value))
    return;
  switch (prop_id)
    {
    case PROP_CONTEXT:
      g_value_set_object (value, self->core.context);
      break;
    case PROP_FLAGS:
      g_value_set_flags (value, self->flags);
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
   *
   * Since: 0.1
   */
  properties[PROP_CONTEXT] =
    g_param_spec_object ("context", NULL, NULL, CUGI_TYPE_CONTEXT,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * CugiHostMemoryPool:flags:
   *
   * How the pool allocates its memory, for every host buffer it hands out.
   *
   * Since: 0.1
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
   *
   * Since: 0.1
   */

  /**
   * CugiHostMemoryPool:active-blocks:
   *
   * The number of blocks that host buffers from the pool use now.
   *
   * Since: 0.1
   */
  cugi_pool_core_make_count_properties (&properties[PROP_HELD_BLOCKS]);

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
 *
 * Since: 0.1
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
  self->flags = flags;
  cugi_pool_core_init (&self->core, G_OBJECT (self), &properties[PROP_HELD_BLOCKS],
                       g_steal_pointer (&resolved), allocate_block, free_block);
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
 *
 * Since: 0.1
 */
CugiHostBuffer *
cugi_host_memory_pool_allocate (CugiHostMemoryPool  *self,
                                gsize                size,
                                GError             **error)
{
  g_return_val_if_fail (CUGI_IS_HOST_MEMORY_POOL (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return cugi_pool_core_allocate (&self->core, size, FALSE, make_host_buffer, NO_CONTEXT_MESSAGE, error);
}

CugiHostBuffer *
cugi_host_memory_pool_allocate_held (CugiHostMemoryPool  *self,
                                     gsize                size,
                                     GError             **error)
{
  return cugi_pool_core_allocate (&self->core, size, TRUE, make_host_buffer, NO_CONTEXT_MESSAGE, error);
}

/**
 * cugi_host_memory_pool_get_flags:
 * @self: a #CugiHostMemoryPool
 *
 * Returns: how the pool allocates (#CugiHostMemoryPool:flags)
 *
 * Since: 0.1
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
 *
 * Since: 0.1
 */
guint
cugi_host_memory_pool_get_held_blocks (CugiHostMemoryPool *self)
{
  g_return_val_if_fail (CUGI_IS_HOST_MEMORY_POOL (self), 0);

  return cugi_pool_core_get_held (&self->core);
}

/**
 * cugi_host_memory_pool_get_active_blocks:
 * @self: a #CugiHostMemoryPool
 *
 * Returns: the number of blocks host buffers use
 *   (#CugiHostMemoryPool:active-blocks)
 *
 * Since: 0.1
 */
guint
cugi_host_memory_pool_get_active_blocks (CugiHostMemoryPool *self)
{
  g_return_val_if_fail (CUGI_IS_HOST_MEMORY_POOL (self), 0);

  return cugi_pool_core_get_active (&self->core);
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
 *
 * Since: 0.1
 */
gboolean
cugi_host_memory_pool_free_held (CugiHostMemoryPool  *self,
                                 GError             **error)
{
  g_return_val_if_fail (CUGI_IS_HOST_MEMORY_POOL (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return cugi_pool_core_free_held (&self->core, error);
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
 *
 * Since: 0.1
 */
gboolean
cugi_host_memory_pool_stop_holding (CugiHostMemoryPool  *self,
                                    GError             **error)
{
  g_return_val_if_fail (CUGI_IS_HOST_MEMORY_POOL (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return cugi_pool_core_stop_holding (&self->core, error);
}
