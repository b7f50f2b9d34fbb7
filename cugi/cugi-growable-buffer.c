/* cugi-growable-buffer.c: a device buffer that grows in place, physical
 * memory mapped at the end of a reserved range as it grows */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "cugi-context-private.h"
#include "cugi-private.h"
#include "cugi-memory-private.h"
#include "cugi-buffer-private.h"
#include "cugi-virtual-memory-private.h"

/**
 * CugiGrowableBuffer:
 *
 * A device buffer that grows without moving: its #CugiBuffer
 * (cugi_growable_buffer_get_buffer()) keeps its device address while
 * cugi_growable_buffer_grow() maps physical memory after its end, so that
 * the data in it stays where it is, kernels and graphs that were given
 * its address keep working, and nothing is copied, for a growing array, a
 * log or an arena.
 *
 * The buffer is one #CugiBuffer for the object's whole life: copies,
 * memsets, kernels and views take it as any other; its #CugiBuffer:size
 * grows (and is notified) with each grow. Freeing it with
 * cugi_buffer_free() ends the growable buffer too.
 *
 * The addresses for #CugiGrowableBuffer:max-size bytes are reserved at
 * once (a #CugiVirtualRange, which costs no memory) and physical memory is
 * mapped in multiples of the device's granularity, so that
 * #CugiGrowableBuffer:capacity, what is mapped, may exceed the size.
 *
 * |[<!-- language="C" -->
 * g_autoptr(CugiGrowableBuffer) log = cugi_growable_buffer_new (NULL, 1 << 30, &error);
 * CugiBuffer *buffer = cugi_growable_buffer_get_buffer (log);
 * cugi_growable_buffer_grow (log, 4096, &error);
 * // ... kernels write the first 4096 bytes of buffer
 * cugi_growable_buffer_grow (log, 8 << 20, &error);
 * // same address, the first 4096 bytes unchanged, 8 MiB long
 * ]|
 *
 * Since: 0.1
 */

struct _CugiGrowableBuffer
{
  GObject           parent_instance;

  CugiVirtualRange *range;     /* NULL in an object of g_object_new() */
  CugiBuffer       *buffer;
  gsize             capacity;  /* bytes mapped from the start */
};

G_DEFINE_FINAL_TYPE (CugiGrowableBuffer, cugi_growable_buffer, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_BUFFER,
  PROP_SIZE,
  PROP_CAPACITY,
  PROP_MAX_SIZE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
cugi_growable_buffer_finalize (GObject *object)
{
  CugiGrowableBuffer *self = CUGI_GROWABLE_BUFFER (object);

  /* The buffer keeps the range, and so the memory, while work uses it. */
  g_clear_object (&self->buffer);
  g_clear_object (&self->range);

  G_OBJECT_CLASS (cugi_growable_buffer_parent_class)->finalize (object);
}

static void
cugi_growable_buffer_get_property (GObject    *object,
                                   guint       prop_id,
                                   GValue     *value,
                                   GParamSpec *pspec)
{
  CugiGrowableBuffer *self = CUGI_GROWABLE_BUFFER (object);

  switch (prop_id)
    {
    case PROP_BUFFER:
      g_value_set_object (value, self->buffer);
      break;
    case PROP_SIZE:
      g_value_set_uint64 (value, cugi_growable_buffer_get_size (self));
      break;
    case PROP_CAPACITY:
      g_value_set_uint64 (value, self->capacity);
      break;
    case PROP_MAX_SIZE:
      g_value_set_uint64 (value, cugi_growable_buffer_get_max_size (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cugi_growable_buffer_class_init (CugiGrowableBufferClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = cugi_growable_buffer_finalize;
  object_class->get_property = cugi_growable_buffer_get_property;

  /**
   * CugiGrowableBuffer:buffer:
   *
   * The buffer that grows, the same object for the growable buffer's whole
   * life.
   *
   * Since: 0.1
   */
  properties[PROP_BUFFER] =
    g_param_spec_object ("buffer", NULL, NULL, CUGI_TYPE_BUFFER,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * CugiGrowableBuffer:size:
   *
   * The size of the buffer in bytes, the largest cugi_growable_buffer_grow()
   * asked for.
   *
   * Since: 0.1
   */
  properties[PROP_SIZE] =
    g_param_spec_uint64 ("size", NULL, NULL, 0, G_MAXUINT64, 0,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * CugiGrowableBuffer:capacity:
   *
   * The bytes mapped from the buffer's start: the size rounded up to the
   * granularity of the device.
   *
   * Since: 0.1
   */
  properties[PROP_CAPACITY] =
    g_param_spec_uint64 ("capacity", NULL, NULL, 0, G_MAXUINT64, 0,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * CugiGrowableBuffer:max-size:
   *
   * The bytes reserved, which the buffer cannot grow beyond.
   *
   * Since: 0.1
   */
  properties[PROP_MAX_SIZE] =
    g_param_spec_uint64 ("max-size", NULL, NULL, 0, G_MAXUINT64, 0,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
cugi_growable_buffer_init (CugiGrowableBuffer *self)
{
}

/**
 * cugi_growable_buffer_new:
 * @context: (nullable): the context of the buffer, or %NULL for the default
 *   context
 * @max_size: the most bytes the buffer may grow to, rounded up to the
 *   device's granularity; at least 1
 * @error: return location for a #GError
 *
 * Reserves addresses for @max_size bytes and makes a buffer of 0 bytes at
 * their start, which cugi_growable_buffer_grow() grows.
 *
 * Returns: (transfer full): the growable buffer, or %NULL with @error set
 *   (%CUGI_ERROR_NOT_SUPPORTED without virtual memory management)
 *
 * Since: 0.1
 */
CugiGrowableBuffer *
cugi_growable_buffer_new (CugiContext  *context,
                          gsize         max_size,
                          GError      **error)
{
  g_autoptr(CugiContext) resolved = NULL;
  CugiGrowableBuffer *self;
  CugiVirtualRange *range;
  gsize granularity;

  g_return_val_if_fail (context == NULL || CUGI_IS_CONTEXT (context), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (max_size == 0)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                           _("A growable buffer needs a maximum size of at least 1 byte"));
      return NULL;
    }
  if (!cugi_ensure_driver (error) ||
      (resolved = cugi_context_resolve (context, error)) == NULL ||
      (granularity = cugi_physical_memory_get_granularity (cugi_context_get_device (resolved), 0, FALSE,
                                                           error)) == 0)
    return NULL;
  if (max_size > G_MAXSIZE - (granularity - 1))
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("A growable buffer of %zu bytes cannot be reserved"), max_size);
      return NULL;
    }
  range = cugi_virtual_range_new (resolved, (max_size + granularity - 1) / granularity * granularity, error);
  if (range == NULL)
    return NULL;
  self = g_object_new (CUGI_TYPE_GROWABLE_BUFFER, NULL);
  self->range = range;
  self->buffer = cugi_virtual_range_new_buffer (range, 0, 0);
  return self;
}

/**
 * cugi_growable_buffer_grow:
 * @self: a #CugiGrowableBuffer
 * @size: the size in bytes the buffer is to have at least
 * @error: return location for a #GError
 *
 * Grows the buffer to @size bytes in place: physical memory is mapped after
 * what is mapped already, as much as the rounding of @size up to the
 * granularity needs, and the buffer's address and contents stay as they
 * are. The new bytes are not cleared. A @size the buffer has already
 * changes nothing: buffers do not shrink.
 *
 * Work in flight on the buffer may go on meanwhile: it uses only memory
 * that stays mapped.
 *
 * Returns: %TRUE on success
 *   (%CUGI_ERROR_INVALID_ARGUMENT beyond #CugiGrowableBuffer:max-size,
 *   %CUGI_ERROR_OUT_OF_MEMORY, %CUGI_ERROR_INVALID_STATE once the buffer was
 *   freed)
 *
 * Since: 0.1
 */
gboolean
cugi_growable_buffer_grow (CugiGrowableBuffer  *self,
                           gsize                size,
                           GError             **error)
{
  g_autoptr(CugiPhysicalMemory) memory = NULL;
  gsize granularity;
  gsize max_size;
  gsize capacity;

  g_return_val_if_fail (CUGI_IS_GROWABLE_BUFFER (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (self->range == NULL)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE,
                           _("The growable buffer reserves no addresses: make it with "
                             "cugi_growable_buffer_new()"));
      return FALSE;
    }
  if (!cugi_buffer_check_usable (self->buffer, error))
    return FALSE;
  max_size = cugi_virtual_range_get_size (self->range);
  if (size > max_size)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("Cannot grow the buffer to %zu bytes: only %zu are reserved"), size, max_size);
      return FALSE;
    }
  if (size <= cugi_buffer_get_size (self->buffer))
    return TRUE;
  granularity = cugi_virtual_range_get_granularity (self->range);
  capacity = (size + granularity - 1) / granularity * granularity;
  if (capacity > self->capacity)
    {
      CugiContext *context = cugi_virtual_range_get_context (self->range);

      memory = cugi_physical_memory_new (cugi_context_get_device (context), capacity - self->capacity,
                                         CUGI_PHYSICAL_MEMORY_FLAGS_NONE, error);
      if (memory == NULL || !cugi_virtual_range_map (self->range, self->capacity, memory, error))
        return FALSE;
      self->capacity = capacity;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CAPACITY]);
    }
  cugi_buffer_set_size (self->buffer, size);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SIZE]);
  return TRUE;
}

/**
 * cugi_growable_buffer_get_buffer:
 * @self: a #CugiGrowableBuffer
 *
 * Returns: (transfer none) (nullable): the buffer that grows
 *   (#CugiGrowableBuffer:buffer), the same for the whole life of @self
 *
 * Since: 0.1
 */
CugiBuffer *
cugi_growable_buffer_get_buffer (CugiGrowableBuffer *self)
{
  g_return_val_if_fail (CUGI_IS_GROWABLE_BUFFER (self), NULL);

  return self->buffer;
}

/**
 * cugi_growable_buffer_get_size:
 * @self: a #CugiGrowableBuffer
 *
 * Returns: the size of the buffer in bytes (#CugiGrowableBuffer:size)
 *
 * Since: 0.1
 */
gsize
cugi_growable_buffer_get_size (CugiGrowableBuffer *self)
{
  g_return_val_if_fail (CUGI_IS_GROWABLE_BUFFER (self), 0);

  return self->buffer != NULL ? cugi_buffer_get_size (self->buffer) : 0;
}

/**
 * cugi_growable_buffer_get_capacity:
 * @self: a #CugiGrowableBuffer
 *
 * Returns: the bytes mapped from the buffer's start
 *   (#CugiGrowableBuffer:capacity)
 *
 * Since: 0.1
 */
gsize
cugi_growable_buffer_get_capacity (CugiGrowableBuffer *self)
{
  g_return_val_if_fail (CUGI_IS_GROWABLE_BUFFER (self), 0);

  return self->capacity;
}

/**
 * cugi_growable_buffer_get_max_size:
 * @self: a #CugiGrowableBuffer
 *
 * Returns: the bytes reserved, which the buffer cannot grow beyond
 *   (#CugiGrowableBuffer:max-size)
 *
 * Since: 0.1
 */
gsize
cugi_growable_buffer_get_max_size (CugiGrowableBuffer *self)
{
  g_return_val_if_fail (CUGI_IS_GROWABLE_BUFFER (self), 0);

  return self->range != NULL ? cugi_virtual_range_get_size (self->range) : 0;
}
