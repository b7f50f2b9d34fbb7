/* cugi-virtual-range.c: reserved ranges of device addresses
 * (cuMemAddressReserve), physical memory mapped into them and the access
 * devices have to it */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "cugi-context-private.h"
#include "cugi-private.h"
#include "cugi-memory-private.h"
#include "cugi-virtual-memory-private.h"

/**
 * CugiVirtualRange:
 *
 * A range of device addresses reserved without memory behind it
 * (`cuMemAddressReserve`): #CugiPhysicalMemory mapped at offsets of it
 * (cugi_virtual_range_map()) gives the range memory piece by piece, so
 * that a data structure can grow without moving (see #CugiGrowableBuffer,
 * which does this for one buffer) or memory of several allocations, other
 * devices' or other processes', lies at consecutive addresses.
 *
 * Mapping memory gives its own device read and write access; other devices
 * are given access, and access taken away, with
 * cugi_virtual_range_set_access(). Mapped bytes are reached as
 * #CugiBuffer (cugi_virtual_range_get_buffer()), which copies, memsets and
 * kernels take as any other buffer; memory under a buffer that is alive
 * cannot be unmapped (%CUGI_ERROR_INVALID_STATE), and the buffer keeps the
 * range alive.
 *
 * The size, offsets and sizes are multiples of the granularity of the
 * context's device (#CugiVirtualRange:granularity); other values fail with
 * %CUGI_ERROR_INVALID_ARGUMENT naming it. Whatever is still mapped is
 * unmapped, and the addresses released, once the range and its buffers
 * are gone.
 *
 * |[<!-- language="C" -->
 * gsize page = cugi_physical_memory_get_granularity (NULL, 0, FALSE, &error);
 * g_autoptr(CugiVirtualRange) range = cugi_virtual_range_new (NULL, 16 * page, &error);
 * g_autoptr(CugiPhysicalMemory) first = cugi_physical_memory_new (NULL, page, 0, &error);
 * g_autoptr(CugiPhysicalMemory) second = cugi_physical_memory_new (NULL, page, 0, &error);
 * cugi_virtual_range_map (range, 0, first, &error);
 * cugi_virtual_range_map (range, page, second, &error);
 * g_autoptr(CugiBuffer) both = cugi_virtual_range_get_buffer (range, 0, 2 * page, &error);
 * ]|
 *
 * Since: 0.1
 */

G_STATIC_ASSERT ((int) CUGI_MEMORY_ACCESS_NONE == (int) CU_MEM_ACCESS_FLAGS_PROT_NONE);
G_STATIC_ASSERT ((int) CUGI_MEMORY_ACCESS_READ == (int) CU_MEM_ACCESS_FLAGS_PROT_READ);
G_STATIC_ASSERT ((int) CUGI_MEMORY_ACCESS_READ_WRITE == (int) CU_MEM_ACCESS_FLAGS_PROT_READWRITE);

typedef struct
{
  gsize               offset;
  gsize               size;
  CugiPhysicalMemory *memory;  /* (owned) */
} Mapping;

/* A buffer over the range: the release data of cugi_buffer_new_holding(). */
typedef struct
{
  CugiVirtualRange *range;   /* (owned) */
  gsize             offset;
  CugiBuffer       *buffer;  /* (unowned): valid until the use is released */
} BufferUse;

struct _CugiVirtualRange
{
  GObject             parent_instance;

  CugiContextBinding  binding;
  CUdeviceptr         address;      /* 0 in an object of g_object_new() */
  gsize               size;
  gsize               granularity;

  GMutex              lock;         /* the mappings and uses: buffers are released on any thread */
  GArray             *mappings;     /* of Mapping */
  GPtrArray          *uses;         /* of BufferUse (unowned) */
};

G_DEFINE_FINAL_TYPE (CugiVirtualRange, cugi_virtual_range, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_CONTEXT,
  PROP_SIZE,
  PROP_ADDRESS,
  PROP_GRANULARITY,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
clear_mapping (gpointer data)
{
  Mapping *mapping = data;

  g_clear_object (&mapping->memory);
}

static void
cugi_virtual_range_finalize (GObject *object)
{
  CugiVirtualRange *self = CUGI_VIRTUAL_RANGE (object);
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;

  /* Buffers keep the range alive, so none is left. A reset context took
   * the reservation with it; failures of a release have no one to go to. */
  if (self->address != 0 && cugi_context_binding_is_current (&self->binding) &&
      cugi_context_enter (self->binding.context, &scope, NULL))
    {
      for (guint i = 0; i < self->mappings->len; i++)
        {
          Mapping *mapping = &g_array_index (self->mappings, Mapping, i);

          cugi_cuda.cuMemUnmap (self->address + mapping->offset, mapping->size);
        }
      cugi_cuda.cuMemAddressFree (self->address, self->size);
    }
  g_array_unref (self->mappings);
  g_ptr_array_unref (self->uses);
  g_mutex_clear (&self->lock);
  cugi_context_binding_clear (&self->binding);

  G_OBJECT_CLASS (cugi_virtual_range_parent_class)->finalize (object);
}

static void
cugi_virtual_range_get_property (GObject    *object,
                                 guint       prop_id,
                                 GValue     *value,
                                 GParamSpec *pspec)
{
  CugiVirtualRange *self = CUGI_VIRTUAL_RANGE (object);

  switch (prop_id)
    {
    case PROP_CONTEXT:
      g_value_set_object (value, self->binding.context);
      break;
    case PROP_SIZE:
      g_value_set_uint64 (value, self->size);
      break;
    case PROP_ADDRESS:
      g_value_set_uint64 (value, self->address);
      break;
    case PROP_GRANULARITY:
      g_value_set_uint64 (value, self->granularity);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cugi_virtual_range_class_init (CugiVirtualRangeClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = cugi_virtual_range_finalize;
  object_class->get_property = cugi_virtual_range_get_property;

  /**
   * CugiVirtualRange:context:
   *
   * The context whose buffers the range's buffers are.
   *
   * Since: 0.1
   */
  properties[PROP_CONTEXT] =
    g_param_spec_object ("context", NULL, NULL, CUGI_TYPE_CONTEXT,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * CugiVirtualRange:size:
   *
   * The size of the reserved range in bytes.
   *
   * Since: 0.1
   */
  properties[PROP_SIZE] =
    g_param_spec_uint64 ("size", NULL, NULL, 0, G_MAXUINT64, 0,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * CugiVirtualRange:address:
   *
   * The device address the range starts at, which never changes.
   *
   * Since: 0.1
   */
  properties[PROP_ADDRESS] =
    g_param_spec_uint64 ("address", NULL, NULL, 0, G_MAXUINT64, 0,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * CugiVirtualRange:granularity:
   *
   * What offsets and sizes in the range are multiples of: the minimum
   * granularity of the context's device.
   *
   * Since: 0.1
   */
  properties[PROP_GRANULARITY] =
    g_param_spec_uint64 ("granularity", NULL, NULL, 0, G_MAXUINT64, 0,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
cugi_virtual_range_init (CugiVirtualRange *self)
{
  g_mutex_init (&self->lock);
  self->mappings = g_array_new (FALSE, FALSE, sizeof (Mapping));
  g_array_set_clear_func (self->mappings, clear_mapping);
  self->uses = g_ptr_array_new ();
}

/**
 * cugi_virtual_range_new:
 * @context: (nullable): the context whose buffers the range's are, or %NULL
 *   for the default context
 * @size: the size in bytes, a non-zero multiple of the granularity of the
 *   context's device (cugi_physical_memory_get_granularity())
 * @error: return location for a #GError
 *
 * Reserves @size bytes of device addresses (`cuMemAddressReserve`), with
 * no memory behind them yet.
 *
 * Returns: (transfer full): the range, or %NULL with @error set
 *   (%CUGI_ERROR_INVALID_ARGUMENT for a size that is no multiple of the
 *   granularity, %CUGI_ERROR_NOT_SUPPORTED without virtual memory
 *   management)
 *
 * Since: 0.1
 */
CugiVirtualRange *
cugi_virtual_range_new (CugiContext  *context,
                        gsize         size,
                        GError      **error)
{
  g_autoptr(CugiContext) resolved = NULL;
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CugiVirtualRange *self;
  CUdeviceptr address = 0;
  gsize granularity;

  g_return_val_if_fail (context == NULL || CUGI_IS_CONTEXT (context), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!cugi_ensure_driver (error) ||
      (resolved = cugi_context_resolve (context, error)) == NULL ||
      (granularity = cugi_physical_memory_get_granularity (cugi_context_get_device (resolved), 0, FALSE,
                                                           error)) == 0 ||
      !cugi_virtual_memory_check_size (size, granularity, _("reserved range"), error) ||
      !CUGI_REQUIRE_ENTRY_POINT (cuMemAddressFree, error) ||
      !CUGI_REQUIRE_ENTRY_POINT (cuMemUnmap, error) ||
      !cugi_context_enter (resolved, &scope, error) ||
      !CUGI_CALL (cuMemAddressReserve, (&address, size, 0, 0, 0), error))
    return NULL;

  self = g_object_new (CUGI_TYPE_VIRTUAL_RANGE, NULL);
  cugi_context_binding_init (&self->binding, resolved, CUGI_CONTEXT_BINDING_NONE);
  self->address = address;
  self->size = size;
  self->granularity = granularity;
  return self;
}

/* Makes the context current for a call on @self, checking that it has
 * addresses and was not reset. */
static gboolean
enter (CugiVirtualRange  *self,
       CugiContextScope  *scope,
       GError           **error)
{
  if (self->address == 0)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE,
                           _("The range reserves no addresses: make it with cugi_virtual_range_new()"));
      return FALSE;
    }
  return cugi_context_binding_enter (&self->binding, scope,
                                     N_("The reserved range is gone: its context was reset"), error);
}

/* @size bytes from @offset within the range, at multiples of the granularity. */
static gboolean
check_pages (CugiVirtualRange  *self,
             gsize              offset,
             gsize              size,
             GError           **error)
{
  return cugi_memory_check_range (self->size, offset, size, _("reserved range"), error) &&
         (offset % self->granularity == 0 ||
          cugi_virtual_memory_check_size (offset, self->granularity, _("offset"), error)) &&
         cugi_virtual_memory_check_size (size, self->granularity, _("size"), error);
}

/* Called with the lock held: how many of @size bytes from @offset are
 * mapped, and whether a mapping reaches beyond them. */
static gsize
count_mapped (CugiVirtualRange *self,
              gsize             offset,
              gsize             size,
              gboolean         *partly)
{
  gsize mapped = 0;

  *partly = FALSE;
  for (guint i = 0; i < self->mappings->len; i++)
    {
      Mapping *mapping = &g_array_index (self->mappings, Mapping, i);
      gsize start = MAX (mapping->offset, offset);
      gsize end = MIN (mapping->offset + mapping->size, offset + size);

      if (start >= end)
        continue;
      mapped += end - start;
      *partly |= mapping->offset < offset || mapping->offset + mapping->size > offset + size;
    }
  return mapped;
}

/* Called with the lock held: INVALID_ARGUMENT unless every byte of @size
 * from @offset is mapped. */
static gboolean
check_mapped (CugiVirtualRange  *self,
              gsize              offset,
              gsize              size,
              GError           **error)
{
  gboolean partly;

  if (count_mapped (self, offset, size, &partly) == size)
    return TRUE;
  g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
               _("Not all of the %zu bytes from offset %zu of the range are mapped"), size, offset);
  return FALSE;
}

/**
 * cugi_virtual_range_map:
 * @self: a #CugiVirtualRange
 * @offset: where in the range the memory goes, a multiple of the
 *   granularity
 * @memory: the physical memory to map, all of it
 * @error: return location for a #GError
 *
 * Maps @memory at @offset (`cuMemMap`) and gives its device read and write
 * access to it (`cuMemSetAccess`). The range keeps @memory alive while it
 * is mapped; the same memory may be mapped in several places.
 *
 * Returns: %TRUE on success
 *   (%CUGI_ERROR_INVALID_ARGUMENT where @memory does not fit or something
 *   is mapped there already)
 *
 * Since: 0.1
 */
gboolean
cugi_virtual_range_map (CugiVirtualRange    *self,
                        gsize                offset,
                        CugiPhysicalMemory  *memory,
                        GError             **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  g_autoptr(GMutexLocker) locker = NULL;
  gsize size;
  CUmemAccessDesc access = {
    .location.type = CU_MEM_LOCATION_TYPE_DEVICE,
    .flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
  };
  Mapping mapping;
  gboolean partly;

  g_return_val_if_fail (CUGI_IS_VIRTUAL_RANGE (self), FALSE);
  g_return_val_if_fail (CUGI_IS_PHYSICAL_MEMORY (memory), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  size = cugi_physical_memory_get_size (memory);
  if (cugi_physical_memory_get_handle (memory) == 0)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                           _("The physical memory was not allocated: make it with cugi_physical_memory_new()"));
      return FALSE;
    }
  if (!enter (self, &scope, error) || !check_pages (self, offset, size, error))
    return FALSE;
  locker = g_mutex_locker_new (&self->lock);
  if (count_mapped (self, offset, size, &partly) > 0)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("Memory is mapped within the %zu bytes from offset %zu of the range already: "
                     "unmap it first"), size, offset);
      return FALSE;
    }
  if (!CUGI_CALL (cuMemMap, (self->address + offset, size, 0, cugi_physical_memory_get_handle (memory), 0),
                  error))
    return FALSE;
  access.location.id = cugi_device_get_handle (cugi_physical_memory_get_device (memory));
  if (!CUGI_CALL (cuMemSetAccess, (self->address + offset, size, &access, 1), error))
    {
      cugi_cuda.cuMemUnmap (self->address + offset, size);
      return FALSE;
    }
  mapping.offset = offset;
  mapping.size = size;
  mapping.memory = g_object_ref (memory);
  g_array_append_val (self->mappings, mapping);
  return TRUE;
}

/**
 * cugi_virtual_range_unmap:
 * @self: a #CugiVirtualRange
 * @offset: where the memory to unmap starts in the range
 * @size: how many bytes to unmap: whole mappings, one or several, and
 *   nothing unmapped between them
 * @error: return location for a #GError
 *
 * Unmaps the memory mapped within @size bytes from @offset (`cuMemUnmap`),
 * which the range then lets go of. Memory under a buffer that is alive
 * (cugi_virtual_range_get_buffer(), a #CugiGrowableBuffer's) stays mapped:
 * that fails with %CUGI_ERROR_INVALID_STATE.
 *
 * Returns: %TRUE on success
 *   (%CUGI_ERROR_INVALID_ARGUMENT for a part of a mapping or a range with
 *   bytes that are not mapped)
 *
 * Since: 0.1
 */
gboolean
cugi_virtual_range_unmap (CugiVirtualRange  *self,
                          gsize              offset,
                          gsize              size,
                          GError           **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  g_autoptr(GMutexLocker) locker = NULL;
  gboolean partly;

  g_return_val_if_fail (CUGI_IS_VIRTUAL_RANGE (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!enter (self, &scope, error) || !check_pages (self, offset, size, error))
    return FALSE;
  locker = g_mutex_locker_new (&self->lock);
  if (count_mapped (self, offset, size, &partly) != size || partly)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("The %zu bytes from offset %zu of the range are not whole mappings"), size, offset);
      return FALSE;
    }
  for (guint i = 0; i < self->uses->len; i++)
    {
      BufferUse *use = g_ptr_array_index (self->uses, i);
      gsize buffer_size = cugi_buffer_get_size (use->buffer);

      if (buffer_size > 0 && use->offset < offset + size && offset < use->offset + buffer_size)
        {
          g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE,
                       _("A buffer over the %zu bytes from offset %zu of the range is alive: "
                         "free it before unmapping its memory"), size, offset);
          return FALSE;
        }
    }
  if (!CUGI_CALL (cuMemUnmap, (self->address + offset, size), error))
    return FALSE;
  for (guint i = self->mappings->len; i-- > 0;)
    if (g_array_index (self->mappings, Mapping, i).offset >= offset &&
        g_array_index (self->mappings, Mapping, i).offset < offset + size)
      g_array_remove_index_fast (self->mappings, i);
  return TRUE;
}

/**
 * cugi_virtual_range_set_access:
 * @self: a #CugiVirtualRange
 * @offset: where the memory starts in the range, a multiple of the
 *   granularity
 * @size: how many bytes, all of them mapped
 * @device: the device whose access to set
 * @access: what @device may do with the memory
 * @error: return location for a #GError
 *
 * Sets what @device may do with @size bytes of mapped memory from @offset
 * (`cuMemSetAccess`): another device reads memory mapped here once given
 * %CUGI_MEMORY_ACCESS_READ, where peer access between the two is possible.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
cugi_virtual_range_set_access (CugiVirtualRange  *self,
                               gsize              offset,
                               gsize              size,
                               CugiDevice        *device,
                               CugiMemoryAccess   access,
                               GError           **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  g_autoptr(GMutexLocker) locker = NULL;
  CUmemAccessDesc desc = {
    .location.type = CU_MEM_LOCATION_TYPE_DEVICE,
    .flags = (CUmemAccess_flags) access,
  };

  g_return_val_if_fail (CUGI_IS_VIRTUAL_RANGE (self), FALSE);
  g_return_val_if_fail (CUGI_IS_DEVICE (device), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!cugi_check_enum_value (CUGI_TYPE_MEMORY_ACCESS, access, error) ||
      !cugi_device_check (device, error) ||
      !enter (self, &scope, error) || !check_pages (self, offset, size, error))
    return FALSE;
  locker = g_mutex_locker_new (&self->lock);
  desc.location.id = cugi_device_get_handle (device);
  return check_mapped (self, offset, size, error) &&
         CUGI_CALL (cuMemSetAccess, (self->address + offset, size, &desc, 1), error);
}

/**
 * cugi_virtual_range_get_access:
 * @self: a #CugiVirtualRange
 * @offset: an offset of mapped memory in the range
 * @device: the device whose access to tell
 * @error: return location for a #GError
 *
 * What @device may do with the memory mapped at @offset (`cuMemGetAccess`).
 *
 * Returns: the access, or %CUGI_MEMORY_ACCESS_NONE with @error set
 *   (%CUGI_ERROR_INVALID_ARGUMENT where nothing is mapped at @offset)
 *
 * Since: 0.1
 */
CugiMemoryAccess
cugi_virtual_range_get_access (CugiVirtualRange  *self,
                               gsize              offset,
                               CugiDevice        *device,
                               GError           **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  g_autoptr(GMutexLocker) locker = NULL;
  CUmemLocation location = { .type = CU_MEM_LOCATION_TYPE_DEVICE };
  unsigned long long flags = 0;

  g_return_val_if_fail (CUGI_IS_VIRTUAL_RANGE (self), CUGI_MEMORY_ACCESS_NONE);
  g_return_val_if_fail (CUGI_IS_DEVICE (device), CUGI_MEMORY_ACCESS_NONE);
  g_return_val_if_fail (error == NULL || *error == NULL, CUGI_MEMORY_ACCESS_NONE);

  if (!CUGI_REQUIRE_ENTRY_POINT (cuMemGetAccess, error) ||
      !cugi_device_check (device, error) ||
      !enter (self, &scope, error) ||
      !cugi_memory_check_range (self->size, offset, 1, _("reserved range"), error))
    return CUGI_MEMORY_ACCESS_NONE;
  locker = g_mutex_locker_new (&self->lock);
  location.id = cugi_device_get_handle (device);
  if (!check_mapped (self, offset, 1, error) ||
      !CUGI_CALL (cuMemGetAccess, (&flags, &location, self->address + offset), error))
    return CUGI_MEMORY_ACCESS_NONE;
  return (CugiMemoryAccess) flags;
}

/* ---- buffers -------------------------------------------------------------- */

static void
release_use (gpointer data)
{
  BufferUse *use = data;
  CugiVirtualRange *self = use->range;

  g_mutex_lock (&self->lock);
  g_ptr_array_remove_fast (self->uses, use);
  g_mutex_unlock (&self->lock);
  g_object_unref (self);
  g_free (use);
}

CugiBuffer *
cugi_virtual_range_new_buffer (CugiVirtualRange *self,
                               gsize             offset,
                               gsize             size)
{
  BufferUse *use = g_new0 (BufferUse, 1);
  CugiBuffer *buffer;

  use->range = g_object_ref (self);
  use->offset = offset;
  buffer = cugi_buffer_new_holding (self->binding.context, self->address + offset, size, use, release_use);
  g_mutex_lock (&self->lock);
  use->buffer = buffer;
  g_ptr_array_add (self->uses, use);
  g_mutex_unlock (&self->lock);
  return buffer;
}

/**
 * cugi_virtual_range_get_buffer:
 * @self: a #CugiVirtualRange
 * @offset: where the buffer starts in the range, in bytes (any offset)
 * @size: the size of the buffer in bytes, all of them mapped
 * @error: return location for a #GError
 *
 * A buffer over @size bytes of mapped memory from @offset, for copies,
 * memsets and kernels of the range's context. The memory under it stays
 * mapped while it lives (cugi_virtual_range_unmap() refuses), and it keeps
 * @self alive.
 *
 * Returns: (transfer full): the buffer, or %NULL with @error set
 *   (%CUGI_ERROR_INVALID_ARGUMENT where not all of the bytes are mapped)
 *
 * Since: 0.1
 */
CugiBuffer *
cugi_virtual_range_get_buffer (CugiVirtualRange  *self,
                               gsize              offset,
                               gsize              size,
                               GError           **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  gboolean mapped;

  g_return_val_if_fail (CUGI_IS_VIRTUAL_RANGE (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!enter (self, &scope, error) ||
      !cugi_memory_check_range (self->size, offset, size, _("reserved range"), error))
    return NULL;
  g_mutex_lock (&self->lock);
  mapped = check_mapped (self, offset, size, error);
  g_mutex_unlock (&self->lock);
  return mapped ? cugi_virtual_range_new_buffer (self, offset, size) : NULL;
}

/* ---- properties ----------------------------------------------------------- */

/**
 * cugi_virtual_range_get_context:
 * @self: a #CugiVirtualRange
 *
 * Returns: (transfer none) (nullable): the context of @self's buffers
 *   (#CugiVirtualRange:context)
 *
 * Since: 0.1
 */
CugiContext *
cugi_virtual_range_get_context (CugiVirtualRange *self)
{
  g_return_val_if_fail (CUGI_IS_VIRTUAL_RANGE (self), NULL);

  return self->binding.context;
}

/**
 * cugi_virtual_range_get_size:
 * @self: a #CugiVirtualRange
 *
 * Returns: the size of the range in bytes (#CugiVirtualRange:size)
 *
 * Since: 0.1
 */
gsize
cugi_virtual_range_get_size (CugiVirtualRange *self)
{
  g_return_val_if_fail (CUGI_IS_VIRTUAL_RANGE (self), 0);

  return self->size;
}

/**
 * cugi_virtual_range_get_address:
 * @self: a #CugiVirtualRange
 *
 * Returns: the device address the range starts at
 *   (#CugiVirtualRange:address)
 *
 * Since: 0.1
 */
guint64
cugi_virtual_range_get_address (CugiVirtualRange *self)
{
  g_return_val_if_fail (CUGI_IS_VIRTUAL_RANGE (self), 0);

  return self->address;
}

/**
 * cugi_virtual_range_get_granularity:
 * @self: a #CugiVirtualRange
 *
 * Returns: what offsets and sizes in @self are multiples of
 *   (#CugiVirtualRange:granularity)
 *
 * Since: 0.1
 */
gsize
cugi_virtual_range_get_granularity (CugiVirtualRange *self)
{
  g_return_val_if_fail (CUGI_IS_VIRTUAL_RANGE (self), 0);

  return self->granularity;
}
