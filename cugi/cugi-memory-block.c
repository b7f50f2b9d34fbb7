/* cugi-memory-block.c: a pool's block of device memory, without a buffer */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "cugi-context-private.h"
#include "cugi-private.h"
#include "cugi-memory-private.h"

/**
 * CugiMemoryBlock:
 *
 * A block of device memory lent by a #CugiMemoryPool with no #CugiBuffer
 * around it, from cugi_memory_pool_take_block(): an address and a size,
 * for code that tracks the memory's use itself, such as a `GstAllocator`
 * or a language binding's own objects (the Python overrides' pool blocks).
 * It saves the buffer's construction and finalization, the larger part of
 * an allocation served from held memory.
 *
 * The block goes back to its pool with its last reference, at once: cugi
 * does not know of work that uses the address, so drop it once that work
 * has completed, as with memory from `cuMemAlloc`. Where cugi should track
 * the work, cugi_memory_block_new_buffer() makes a buffer over the block,
 * which holds it until the buffer is finalized or freed and its work in
 * flight has completed. A block keeps its pool alive.
 *
 * Since: 0.1
 */

struct _CugiMemoryBlock
{
  gatomicrefcount ref_count;
  CugiPoolCore   *pool;        /* its pool object is referenced */
  guint64         address;
  gsize           size;
  guint           generation;  /* the context's when the block was taken */
};

G_DEFINE_BOXED_TYPE (CugiMemoryBlock, cugi_memory_block, cugi_memory_block_ref, cugi_memory_block_unref)

CugiMemoryBlock *
cugi_memory_block_take (CugiPoolCore  *pool,
                        gsize          size,
                        const char    *no_context_message,
                        GError       **error)
{
  guint64 address;
  guint generation;
  CugiMemoryBlock *self;

  if (!cugi_pool_core_take (pool, size, no_context_message, &address, &generation, error))
    return NULL;
  self = g_new (CugiMemoryBlock, 1);
  g_atomic_ref_count_init (&self->ref_count);
  self->pool = pool;
  g_object_ref (pool->object);
  self->address = address;
  self->size = size;
  self->generation = generation;
  return self;
}

/**
 * cugi_memory_block_ref:
 * @self: a #CugiMemoryBlock
 *
 * Returns: (transfer full): @self, with one more reference
 *
 * Since: 0.1
 */
CugiMemoryBlock *
cugi_memory_block_ref (CugiMemoryBlock *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

/**
 * cugi_memory_block_unref:
 * @self: (transfer full): a #CugiMemoryBlock
 *
 * Drops a reference to @self. With the last, the block goes back to its
 * pool, which holds it for reuse or frees it (a driver error there is not
 * reported, as in a buffer's finalization).
 *
 * Since: 0.1
 */
void
cugi_memory_block_unref (CugiMemoryBlock *self)
{
  GObject *pool_object;

  g_return_if_fail (self != NULL);

  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;
  pool_object = self->pool->object;
  cugi_pool_core_give_back (self->pool, self->address, self->size, self->generation, NULL);
  g_free (self);
  g_object_unref (pool_object);
}

/**
 * cugi_memory_block_get_address:
 * @self: a #CugiMemoryBlock
 *
 * Returns: the device address of the block (0 for a block of 0 bytes)
 *
 * Since: 0.1
 */
guint64
cugi_memory_block_get_address (CugiMemoryBlock *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->address;
}

/**
 * cugi_memory_block_get_size:
 * @self: a #CugiMemoryBlock
 *
 * Returns: the size in bytes asked of cugi_memory_pool_take_block() (the
 *   pool's bin may be larger)
 *
 * Since: 0.1
 */
gsize
cugi_memory_block_get_size (CugiMemoryBlock *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->size;
}

/**
 * cugi_memory_block_new_buffer:
 * @self: a #CugiMemoryBlock
 * @error: return location for a #GError
 *
 * A buffer over the block's memory, in the pool's context, that holds a
 * reference to @self until it is finalized or freed and the work in flight
 * on it has completed: from then on, dropping the block's other references
 * leaves the memory with the buffer. Fails with %CUGI_ERROR_INVALID_CONTEXT
 * when the context was reset since the block was taken, which took the
 * memory with it.
 *
 * Returns: (transfer full): the buffer, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiBuffer *
cugi_memory_block_new_buffer (CugiMemoryBlock  *self,
                              GError          **error)
{
  CugiContext *context;

  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  context = self->pool->context;
  if (cugi_context_get_generation (context) != self->generation)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_CONTEXT,
                           _("The context was reset since the block was taken, and its memory with it"));
      return NULL;
    }
  if (self->size == 0)
    return cugi_buffer_new (context, 0, error);
  return cugi_buffer_new_holding (context, self->address, self->size,
                                  cugi_memory_block_ref (self),
                                  (GDestroyNotify) cugi_memory_block_unref);
}
