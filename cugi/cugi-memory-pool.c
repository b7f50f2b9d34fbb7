/* cugi-memory-pool.c: reuse of device memory */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "cugi-context-private.h"
#include "cugi-private.h"
#include "cugi-memory-private.h"

/**
 * CugiMemoryPool:
 *
 * Hands out device memory and takes it back for reuse, so that programs
 * that allocate and drop many buffers of similar sizes do not pay for
 * `cuMemAlloc` and `cuMemFree` each time (like PyCUDA's `DeviceMemoryPool`).
 *
 * cugi_memory_pool_allocate() returns an ordinary #CugiBuffer. When it is
 * finalized or freed with cugi_buffer_free() (and enqueued work using it has
 * completed), its memory goes back to the pool, which holds it for the next
 * allocation of a similar size instead of returning it to the driver. Sizes
 * are served in bins of a quarter octave (at least 256 bytes: a request of
 * 1000 bytes takes a block of 1024, one of 1100 a block of 1280), so a block
 * serves every request of its bin and wastes less than a fifth of itself.
 *
 * #CugiMemoryPool:active-blocks counts the blocks in use by buffers,
 * #CugiMemoryPool:held-blocks those kept for reuse. When the device runs out
 * of memory, the pool frees what it holds and tries once more. Buffers keep
 * their pool alive. Buffers of 0 bytes come from cugi_buffer_new() and count
 * in neither property.
 *
 * The properties change, and notify, in whichever thread allocates or
 * releases a buffer.
 *
 * Since: 0.1
 */

struct _CugiMemoryPool
{
  GObject      parent_instance;

  CugiPoolCore core;
};

G_DEFINE_FINAL_TYPE (CugiMemoryPool, cugi_memory_pool, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_CONTEXT,
  PROP_HELD_BLOCKS,
  PROP_ACTIVE_BLOCKS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

#define NO_CONTEXT_MESSAGE N_("The pool has no context: make it with cugi_memory_pool_new()")

static gboolean
allocate_block (CugiPoolCore  *core,
                gsize          size,
                guint64       *block,
                GError       **error)
{
  CUdeviceptr address = 0;

  if (!CUGI_CALL (cuMemAlloc, (&address, size), error))
    return FALSE;
  *block = address;
  return TRUE;
}

static gboolean
free_block (CugiPoolCore  *core,
            guint64        block,
            GError       **error)
{
  return cugi_synchronizing_release (core->context, CUGI_RELEASE_DEVICE_MEMORY, block, error);
}

static gpointer
make_buffer (CugiPoolCore  *core,
             guint64        block,
             gsize          size,
             GError       **error)
{
  if (size == 0)
    return cugi_buffer_new (core->context, 0, error);
  return cugi_buffer_new_pooled (core, block, size);
}

static void
cugi_memory_pool_finalize (GObject *object)
{
  CugiMemoryPool *self = CUGI_MEMORY_POOL (object);

  cugi_pool_core_clear (&self->core);

  G_OBJECT_CLASS (cugi_memory_pool_parent_class)->finalize (object);
}

static void
cugi_memory_pool_get_property (GObject    *object,
                               guint       prop_id,
                               GValue     *value,
                               GParamSpec *pspec)
{
  CugiMemoryPool *self = CUGI_MEMORY_POOL (object);

  if (cugi_pool_core_get_property (&self->core, pspec, value))
    return;
  switch (prop_id)
    {
    case PROP_CONTEXT:
      g_value_set_object (value, self->core.context);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cugi_memory_pool_class_init (CugiMemoryPoolClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = cugi_memory_pool_finalize;
  object_class->get_property = cugi_memory_pool_get_property;

  /**
   * CugiMemoryPool:context:
   *
   * The context the pool allocates in, which it keeps alive.
   *
   * Since: 0.1
   */
  properties[PROP_CONTEXT] =
    g_param_spec_object ("context", NULL, NULL, CUGI_TYPE_CONTEXT,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * CugiMemoryPool:held-blocks:
   *
   * The number of blocks the pool holds for reuse: allocated from the
   * driver, used by no buffer.
   *
   * Since: 0.1
   */

  /**
   * CugiMemoryPool:active-blocks:
   *
   * The number of blocks that buffers from the pool use now.
   *
   * Since: 0.1
   */
  cugi_pool_core_make_count_properties (&properties[PROP_HELD_BLOCKS]);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
cugi_memory_pool_init (CugiMemoryPool *self)
{
}

/**
 * cugi_memory_pool_new:
 * @context: (nullable): the context to allocate in, or %NULL for the default
 *   context
 * @error: return location for a #GError
 *
 * Makes an empty pool of device memory.
 *
 * Returns: (transfer full): the new pool, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiMemoryPool *
cugi_memory_pool_new (CugiContext  *context,
                      GError      **error)
{
  g_autoptr(CugiContext) resolved = NULL;
  CugiMemoryPool *self;

  g_return_val_if_fail (context == NULL || CUGI_IS_CONTEXT (context), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!cugi_ensure_driver (error) ||
      (resolved = cugi_context_resolve (context, error)) == NULL)
    return NULL;
  self = g_object_new (CUGI_TYPE_MEMORY_POOL, NULL);
  cugi_pool_core_init (&self->core, G_OBJECT (self), &properties[PROP_HELD_BLOCKS],
                       g_steal_pointer (&resolved), allocate_block, free_block);
  return self;
}

/**
 * cugi_memory_pool_allocate:
 * @self: a #CugiMemoryPool
 * @size: the size in bytes
 * @error: return location for a #GError
 *
 * A buffer of @size bytes, on a block the pool held if it has one of the
 * right bin, else on a new one from the driver. Its memory returns to @self
 * when the buffer is finalized or freed. If the device is out of memory, the
 * pool frees the blocks it holds and tries again before failing with
 * %CUGI_ERROR_OUT_OF_MEMORY.
 *
 * Returns: (transfer full): the buffer, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiBuffer *
cugi_memory_pool_allocate (CugiMemoryPool  *self,
                           gsize            size,
                           GError         **error)
{
  g_return_val_if_fail (CUGI_IS_MEMORY_POOL (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return cugi_pool_core_allocate (&self->core, size, FALSE, make_buffer, NO_CONTEXT_MESSAGE, error);
}

/**
 * cugi_memory_pool_take_block:
 * @self: a #CugiMemoryPool
 * @size: the size in bytes
 * @error: return location for a #GError
 *
 * A block of @size bytes without a buffer around it (see #CugiMemoryBlock),
 * from the blocks held as cugi_memory_pool_allocate() takes them. It counts
 * in #CugiMemoryPool:active-blocks until its last reference is dropped.
 *
 * Returns: (transfer full): the block, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiMemoryBlock *
cugi_memory_pool_take_block (CugiMemoryPool  *self,
                             gsize            size,
                             GError         **error)
{
  g_return_val_if_fail (CUGI_IS_MEMORY_POOL (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return cugi_memory_block_take (&self->core, size, NO_CONTEXT_MESSAGE, error);
}

/**
 * cugi_memory_pool_get_held_blocks:
 * @self: a #CugiMemoryPool
 *
 * Returns: the number of blocks held for reuse (#CugiMemoryPool:held-blocks)
 *
 * Since: 0.1
 */
guint
cugi_memory_pool_get_held_blocks (CugiMemoryPool *self)
{
  g_return_val_if_fail (CUGI_IS_MEMORY_POOL (self), 0);

  return cugi_pool_core_get_held (&self->core);
}

/**
 * cugi_memory_pool_get_active_blocks:
 * @self: a #CugiMemoryPool
 *
 * Returns: the number of blocks buffers use (#CugiMemoryPool:active-blocks)
 *
 * Since: 0.1
 */
guint
cugi_memory_pool_get_active_blocks (CugiMemoryPool *self)
{
  g_return_val_if_fail (CUGI_IS_MEMORY_POOL (self), 0);

  return cugi_pool_core_get_active (&self->core);
}

/**
 * cugi_memory_pool_free_held:
 * @self: a #CugiMemoryPool
 * @error: return location for a #GError
 *
 * Returns every block the pool holds to the driver; #CugiMemoryPool:held-blocks
 * drops to 0. Buffers in use are not affected.
 *
 * Returns: %TRUE on success; on failure the blocks are freed as far as
 *   possible and the first error is reported
 *
 * Since: 0.1
 */
gboolean
cugi_memory_pool_free_held (CugiMemoryPool  *self,
                            GError         **error)
{
  g_return_val_if_fail (CUGI_IS_MEMORY_POOL (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return cugi_pool_core_free_held (&self->core, error);
}

/**
 * cugi_memory_pool_stop_holding:
 * @self: a #CugiMemoryPool
 * @error: return location for a #GError
 *
 * Frees the held blocks (as cugi_memory_pool_free_held() does), and from now
 * on returns the memory of released buffers to the driver instead of holding
 * it. For winding down: the pool still serves allocations.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
cugi_memory_pool_stop_holding (CugiMemoryPool  *self,
                               GError         **error)
{
  g_return_val_if_fail (CUGI_IS_MEMORY_POOL (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return cugi_pool_core_stop_holding (&self->core, error);
}
