/* cugi-external-memory.c: memory of other APIs and processes imported into
 * CUDA, mapped as buffers and (mipmapped) arrays */
#include "config.h"

#include <unistd.h>

#include <glib/gi18n-lib.h>

#include "cugi-context-private.h"
#include "cugi-private.h"
#include "cugi-memory-private.h"
#include "cugi-array-private.h"

/**
 * CugiExternalMemory:
 *
 * Memory that another API or process allocated, imported into CUDA
 * (`cuImportExternalMemory`) from a file descriptor: Vulkan memory exported
 * as an opaque file descriptor (`vkGetMemoryFdKHR`), which another process
 * may have sent over a UNIX socket, or a Linux dma-buf where the driver
 * imports them (cugi_buffer_export_dma_buf() makes one of CUDA memory).
 *
 * Its bytes are reached through buffers
 * (cugi_external_memory_get_buffer()) and arrays
 * (cugi_external_memory_get_array(), and the levels of a mipmapped array:
 * cugi_external_memory_get_mipmapped_array()) laid out as the exporter laid
 * them out: an image's offset, format and extent are the exporter's
 * (`vkGetImageMemoryRequirements`, the image's create info), which CUDA
 * cannot check. Writes through one are seen through the others and by the
 * exporter, once the work is ordered, for example with a
 * #CugiExternalSemaphore.
 *
 * The file descriptor given is not taken: the driver gets a duplicate,
 * which it owns once the import succeeded, so the caller closes its own
 * when it likes. The memory stays imported until the object is finalized,
 * which happens once every buffer and array got from it is gone and the
 * work on them is done (`cuDestroyExternalMemory`).
 *
 * Where the driver lacks external memory (the entry points above), the
 * constructor fails with %CUGI_ERROR_NOT_SUPPORTED naming what is missing.
 *
 * Since: 0.1
 */

G_STATIC_ASSERT ((int) CUGI_EXTERNAL_MEMORY_TYPE_OPAQUE_FD == (int) CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD);
G_STATIC_ASSERT ((int) CUGI_EXTERNAL_MEMORY_TYPE_DMA_BUF == (int) CU_EXTERNAL_MEMORY_HANDLE_TYPE_DMABUF_FD);
G_STATIC_ASSERT (CUGI_EXTERNAL_MEMORY_FLAGS_DEDICATED == CUDA_EXTERNAL_MEMORY_DEDICATED);

struct _CugiExternalMemory
{
  GObject                  parent_instance;

  CugiContextBinding       binding;
  CUexternalMemory         handle;   /* NULL in an object of g_object_new() */
  CugiExternalMemoryType   type;
  guint64                  size;
  CugiExternalMemoryFlags  flags;
};

G_DEFINE_FINAL_TYPE (CugiExternalMemory, cugi_external_memory, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_CONTEXT,
  PROP_MEMORY_TYPE,
  PROP_SIZE,
  PROP_FLAGS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* ---- what the mappings hold ------------------------------------------------ */

/* A buffer's memory (cuExternalMemoryGetMappedBuffer), which cuMemFree
 * unmaps, and a mipmapped array (cuExternalMemoryGetMappedMipmappedArray),
 * which cuMipmappedArrayDestroy does once its last level is released: each
 * keeps the imported memory alive until then. */
typedef struct
{
  gatomicrefcount     refs;       /* a mipmap's: one per level's array */
  CugiContextBinding  binding;
  CugiExternalMemory *memory;     /* (owned) */
  CUdeviceptr         address;    /* a buffer's */
  CUmipmappedArray    mipmap;     /* a mipmapped array's */
} Mapping;

static Mapping *
mapping_new (CugiExternalMemory *memory)
{
  Mapping *self = g_new0 (Mapping, 1);

  g_atomic_ref_count_init (&self->refs);
  cugi_context_binding_init (&self->binding, memory->binding.context, CUGI_CONTEXT_BINDING_NONE);
  self->memory = g_object_ref (memory);
  return self;
}

static gpointer
mapping_ref (Mapping *self)
{
  g_atomic_ref_count_inc (&self->refs);
  return self;
}

/* The release of a mapped buffer or of a level's array. */
static void
mapping_unref (gpointer mapping)
{
  Mapping *self = mapping;
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;

  if (!g_atomic_ref_count_dec (&self->refs))
    return;
  /* A reset context took the mapping with it; failures of a release have
   * no one to go to. */
  if (cugi_context_binding_is_current (&self->binding) &&
      cugi_context_enter (self->binding.context, &scope, NULL))
    {
      if (self->address != 0)
        cugi_cuda.cuMemFree (self->address);
      if (self->mipmap != NULL)
        cugi_cuda.cuMipmappedArrayDestroy (self->mipmap);
    }
  cugi_context_binding_clear (&self->binding);
  g_object_unref (self->memory);
  g_free (self);
}

/* ---- GObject -------------------------------------------------------------- */

static void
cugi_external_memory_finalize (GObject *object)
{
  CugiExternalMemory *self = CUGI_EXTERNAL_MEMORY (object);
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;

  /* Every mapping kept the memory alive: none is left. */
  if (self->handle != NULL && cugi_context_binding_is_current (&self->binding) &&
      cugi_context_enter (self->binding.context, &scope, NULL))
    cugi_cuda.cuDestroyExternalMemory (self->handle);
  cugi_context_binding_clear (&self->binding);

  G_OBJECT_CLASS (cugi_external_memory_parent_class)->finalize (object);
}

static void
cugi_external_memory_get_property (GObject    *object,
                                   guint       prop_id,
                                   GValue     *value,
                                   GParamSpec *pspec)
{
  CugiExternalMemory *self = CUGI_EXTERNAL_MEMORY (object);

  switch (prop_id)
    {
    case PROP_CONTEXT:
      g_value_set_object (value, self->binding.context);
      break;
    case PROP_MEMORY_TYPE:
      g_value_set_enum (value, self->type);
      break;
    case PROP_SIZE:
      g_value_set_uint64 (value, self->size);
      break;
    case PROP_FLAGS:
      g_value_set_flags (value, self->flags);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cugi_external_memory_class_init (CugiExternalMemoryClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = cugi_external_memory_finalize;
  object_class->get_property = cugi_external_memory_get_property;

  /**
   * CugiExternalMemory:context:
   *
   * The CUDA context the memory is imported into, which it keeps alive.
   *
   * Since: 0.1
   */
  properties[PROP_CONTEXT] =
    g_param_spec_object ("context", NULL, NULL, CUGI_TYPE_CONTEXT,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * CugiExternalMemory:memory-type:
   *
   * What the memory was imported from.
   *
   * Since: 0.1
   */
  properties[PROP_MEMORY_TYPE] =
    g_param_spec_enum ("memory-type", NULL, NULL, CUGI_TYPE_EXTERNAL_MEMORY_TYPE,
                       CUGI_EXTERNAL_MEMORY_TYPE_OPAQUE_FD,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * CugiExternalMemory:size:
   *
   * The size of the imported memory in bytes, which bounds every mapping.
   *
   * Since: 0.1
   */
  properties[PROP_SIZE] =
    g_param_spec_uint64 ("size", NULL, NULL, 0, G_MAXUINT64, 0,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * CugiExternalMemory:flags:
   *
   * How the memory was allocated, as it was imported.
   *
   * Since: 0.1
   */
  properties[PROP_FLAGS] =
    g_param_spec_flags ("flags", NULL, NULL, CUGI_TYPE_EXTERNAL_MEMORY_FLAGS,
                        CUGI_EXTERNAL_MEMORY_FLAGS_NONE,
                        G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
cugi_external_memory_init (CugiExternalMemory *self)
{
}

/* ---- import --------------------------------------------------------------- */

/* INVALID_ARGUMENT when @fd is a dma-buf smaller than @size: a dma-buf
 * tells its size (lseek to its end). */
static gboolean
check_dma_buf_size (int       fd,
                    guint64   size,
                    GError  **error)
{
  off_t end = lseek (fd, 0, SEEK_END);

  lseek (fd, 0, SEEK_SET);
  if (end <= 0 || (guint64) end >= size)
    return TRUE;
  g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
               _("The dma-buf has %lu bytes, fewer than the %lu asked for"),
               (unsigned long) end, (unsigned long) size);
  return FALSE;
}

/**
 * cugi_external_memory_new_from_fd:
 * @context: (nullable): the CUDA context to import into, or %NULL for the
 *   default context
 * @type: what @fd is
 * @fd: the file descriptor of the memory, which the caller keeps (cugi
 *   hands the driver a duplicate)
 * @size: the size of the memory in bytes, as the exporter allocated it
 *   (Vulkan: `VkMemoryAllocateInfo.allocationSize`)
 * @flags: %CUGI_EXTERNAL_MEMORY_FLAGS_DEDICATED for a dedicated allocation
 * @error: return location for a #GError
 *
 * Imports memory of another API or process (`cuImportExternalMemory`).
 * What can be told before the driver is asked is checked first, with
 * %CUGI_ERROR_INVALID_ARGUMENT: a negative or closed @fd, a @size of 0, a
 * dma-buf smaller than @size. The driver refuses what it cannot import
 * (memory of another GPU, an fd of the wrong type).
 *
 * Returns: (transfer full): the imported memory, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiExternalMemory *
cugi_external_memory_new_from_fd (CugiContext             *context,
                                  CugiExternalMemoryType   type,
                                  gint                     fd,
                                  guint64                  size,
                                  CugiExternalMemoryFlags  flags,
                                  GError                 **error)
{
  g_autoptr(CugiContext) resolved = NULL;
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CUDA_EXTERNAL_MEMORY_HANDLE_DESC desc = {
    .type = (CUexternalMemoryHandleType) type,
    .size = size,
    .flags = flags,
  };
  CUexternalMemory handle = NULL;
  CugiExternalMemory *self;
  int duplicate;

  g_return_val_if_fail (context == NULL || CUGI_IS_CONTEXT (context), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!cugi_check_enum_value (CUGI_TYPE_EXTERNAL_MEMORY_TYPE, type, error))
    return NULL;
  if ((flags & ~CUGI_EXTERNAL_MEMORY_FLAGS_DEDICATED) != 0 || size == 0)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("Cannot import %lu bytes with flags 0x%x: the size must be at least 1 and the "
                     "only flag is DEDICATED"), (unsigned long) size, (unsigned int) flags);
      return NULL;
    }
  if (!cugi_ensure_driver (error) ||
      !CUGI_REQUIRE_ENTRY_POINT (cuImportExternalMemory, error) ||
      !CUGI_REQUIRE_ENTRY_POINT (cuDestroyExternalMemory, error) ||
      (resolved = cugi_context_resolve (context, error)) == NULL ||
      (duplicate = cugi_dup_fd (fd, error)) < 0)
    return NULL;
  desc.handle.fd = duplicate;
  if ((type == CUGI_EXTERNAL_MEMORY_TYPE_DMA_BUF && !check_dma_buf_size (duplicate, size, error)) ||
      !cugi_context_enter (resolved, &scope, error) ||
      !CUGI_CALL (cuImportExternalMemory, (&handle, &desc), error))
    {
      close (duplicate);
      return NULL;
    }

  self = g_object_new (CUGI_TYPE_EXTERNAL_MEMORY, NULL);
  cugi_context_binding_init (&self->binding, resolved, CUGI_CONTEXT_BINDING_NONE);
  self->handle = handle;
  self->type = type;
  self->size = size;
  self->flags = flags;
  return self;
}

/* ---- mappings ------------------------------------------------------------- */

/* Makes the context current for a mapping of @self. */
static gboolean
enter (CugiExternalMemory  *self,
       CugiContextScope    *scope,
       GError             **error)
{
  if (self->handle == NULL)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE,
                           _("The external memory was not imported: make it with "
                             "cugi_external_memory_new_from_fd()"));
      return FALSE;
    }
  return cugi_context_binding_enter (&self->binding, scope,
                                     N_("The external memory is gone: its context was reset"), error);
}

/**
 * cugi_external_memory_get_buffer:
 * @self: a #CugiExternalMemory
 * @offset: where the buffer starts in the memory, in bytes
 * @size: the size of the buffer in bytes, at least 1
 * @error: return location for a #GError
 *
 * Maps @size bytes of the memory from @offset as a #CugiBuffer
 * (`cuExternalMemoryGetMappedBuffer`), which keeps @self alive and is
 * unmapped when it is freed or finalized and no work on it is in flight.
 * A range beyond #CugiExternalMemory:size fails with
 * %CUGI_ERROR_INVALID_ARGUMENT; the driver may want @offset aligned as the
 * exporter aligned the memory.
 *
 * Returns: (transfer full): the buffer, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiBuffer *
cugi_external_memory_get_buffer (CugiExternalMemory  *self,
                                 guint64              offset,
                                 guint64              size,
                                 GError             **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CUDA_EXTERNAL_MEMORY_BUFFER_DESC desc = { .offset = offset, .size = size };
  CUdeviceptr address = 0;
  Mapping *mapping;

  g_return_val_if_fail (CUGI_IS_EXTERNAL_MEMORY (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!enter (self, &scope, error))
    return NULL;
  if (size == 0)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                           _("A buffer of external memory has at least 1 byte"));
      return NULL;
    }
  if (!cugi_memory_check_range (self->size, offset, size, _("external memory"), error) ||
      !CUGI_REQUIRE_ENTRY_POINT (cuExternalMemoryGetMappedBuffer, error) ||
      !CUGI_CALL (cuExternalMemoryGetMappedBuffer, (&address, self->handle, &desc), error))
    return NULL;
  mapping = mapping_new (self);
  mapping->address = address;
  return cugi_buffer_new_holding (self->binding.context, address, size, mapping, mapping_unref);
}

/**
 * cugi_external_memory_get_mipmapped_array:
 * @self: a #CugiExternalMemory
 * @offset: where the base level starts in the memory, in bytes
 * @format: the type of each channel
 * @channels: the number of channels of an element: 1, 2 or 4
 * @width: the width of the base level, at least 1
 * @height: its height; 0 for a 1D array
 * @depth: its depth (layers, for a layered array); 0 for a 1D or 2D array
 * @flags: how the arrays will be used; %CUGI_ARRAY_FLAGS_COLOR_ATTACHMENT
 *   for an image the exporter renders to
 * @levels: the number of mipmap levels, at least 1
 * @error: return location for a #GError
 *
 * Maps the memory from @offset as a mipmapped array of @levels levels
 * (`cuExternalMemoryGetMappedMipmappedArray`), laid out as the exporter's
 * image of that format, shape and levels is, and gives each level as a
 * #CugiArray: level L has the base level's extent halved L times (at least
 * 1). The arrays keep @self alive; the mipmapped array is released with the
 * last of them. The shape rules of cugi_array_new() are checked first
 * (%CUGI_ERROR_INVALID_ARGUMENT), and so are @levels and @offset against
 * #CugiExternalMemory:size.
 *
 * Returns: (transfer container) (element-type CugiArray): the levels, the
 *   base level first, or %NULL with @error set
 *
 * Since: 0.1
 */
GPtrArray *
cugi_external_memory_get_mipmapped_array (CugiExternalMemory  *self,
                                          guint64              offset,
                                          CugiArrayFormat      format,
                                          guint                channels,
                                          gsize                width,
                                          gsize                height,
                                          gsize                depth,
                                          CugiArrayFlags       flags,
                                          guint                levels,
                                          GError             **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC desc = {
    .offset = offset,
    .arrayDesc = {
      .Width = width,
      .Height = height,
      .Depth = depth,
      .Format = (CUarray_format) format,
      .NumChannels = channels,
      .Flags = flags,
    },
    .numLevels = levels,
  };
  g_autoptr(GPtrArray) arrays = NULL;
  Mapping *mapping;
  CUmipmappedArray mipmap = NULL;

  g_return_val_if_fail (CUGI_IS_EXTERNAL_MEMORY (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!enter (self, &scope, error) ||
      !cugi_array_check_description (format, channels, width, height, depth, flags, error))
    return NULL;
  if (levels == 0 || offset >= self->size)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("Cannot map %u levels at offset %lu of %lu bytes of external memory: there is at "
                     "least one level, within the memory"),
                   levels, (unsigned long) offset, (unsigned long) self->size);
      return NULL;
    }
  if (!CUGI_REQUIRE_ENTRY_POINT (cuExternalMemoryGetMappedMipmappedArray, error) ||
      !CUGI_REQUIRE_ENTRY_POINT (cuMipmappedArrayGetLevel, error) ||
      !CUGI_REQUIRE_ENTRY_POINT (cuMipmappedArrayDestroy, error) ||
      !CUGI_CALL (cuExternalMemoryGetMappedMipmappedArray, (&mipmap, self->handle, &desc), error))
    return NULL;

  /* The mapping's own reference goes last: the arrays each take one. */
  mapping = mapping_new (self);
  mapping->mipmap = mipmap;
  arrays = g_ptr_array_new_full (levels, g_object_unref);
  for (guint level = 0; level < levels; level++)
    {
      CUarray handle = NULL;
      CugiArray *array;

      if (!CUGI_CALL (cuMipmappedArrayGetLevel, (&handle, mipmap, level), error) ||
          (array = cugi_array_new_borrowed (self->binding.context, handle, flags, mapping_ref (mapping),
                                            mapping_unref, error)) == NULL)
        {
          g_clear_pointer (&arrays, g_ptr_array_unref);
          break;
        }
      g_ptr_array_add (arrays, array);
    }
  mapping_unref (mapping);
  return g_steal_pointer (&arrays);
}

/**
 * cugi_external_memory_get_array:
 * @self: a #CugiExternalMemory
 * @offset: where the array starts in the memory, in bytes
 * @format: the type of each channel
 * @channels: the number of channels of an element: 1, 2 or 4
 * @width: the number of elements of a row, at least 1
 * @height: the number of rows; 0 for a 1D array
 * @depth: the number of slices (layers, for a layered array); 0 for a 1D
 *   or 2D array
 * @flags: how the array will be used; %CUGI_ARRAY_FLAGS_COLOR_ATTACHMENT
 *   for an image the exporter renders to
 * @error: return location for a #GError
 *
 * cugi_external_memory_get_mipmapped_array() of one level: the memory from
 * @offset as one #CugiArray, laid out as the exporter's image of that
 * format and shape (a Vulkan image of optimal tiling) is.
 *
 * Returns: (transfer full): the array, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiArray *
cugi_external_memory_get_array (CugiExternalMemory  *self,
                                guint64              offset,
                                CugiArrayFormat      format,
                                guint                channels,
                                gsize                width,
                                gsize                height,
                                gsize                depth,
                                CugiArrayFlags       flags,
                                GError             **error)
{
  g_autoptr(GPtrArray) levels = NULL;

  g_return_val_if_fail (CUGI_IS_EXTERNAL_MEMORY (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  levels = cugi_external_memory_get_mipmapped_array (self, offset, format, channels, width, height, depth,
                                                     flags, 1, error);
  return levels != NULL ? g_object_ref (levels->pdata[0]) : NULL;
}

/* ---- properties ----------------------------------------------------------- */

/**
 * cugi_external_memory_get_context:
 * @self: a #CugiExternalMemory
 *
 * Returns: (transfer none) (nullable): the value of
 *   #CugiExternalMemory:context
 *
 * Since: 0.1
 */
CugiContext *
cugi_external_memory_get_context (CugiExternalMemory *self)
{
  g_return_val_if_fail (CUGI_IS_EXTERNAL_MEMORY (self), NULL);

  return self->binding.context;
}

/**
 * cugi_external_memory_get_memory_type:
 * @self: a #CugiExternalMemory
 *
 * Returns: the value of #CugiExternalMemory:memory-type
 *
 * Since: 0.1
 */
CugiExternalMemoryType
cugi_external_memory_get_memory_type (CugiExternalMemory *self)
{
  g_return_val_if_fail (CUGI_IS_EXTERNAL_MEMORY (self), CUGI_EXTERNAL_MEMORY_TYPE_OPAQUE_FD);

  return self->type;
}

/**
 * cugi_external_memory_get_size:
 * @self: a #CugiExternalMemory
 *
 * Returns: the value of #CugiExternalMemory:size
 *
 * Since: 0.1
 */
guint64
cugi_external_memory_get_size (CugiExternalMemory *self)
{
  g_return_val_if_fail (CUGI_IS_EXTERNAL_MEMORY (self), 0);

  return self->size;
}

/**
 * cugi_external_memory_get_flags:
 * @self: a #CugiExternalMemory
 *
 * Returns: the value of #CugiExternalMemory:flags
 *
 * Since: 0.1
 */
CugiExternalMemoryFlags
cugi_external_memory_get_flags (CugiExternalMemory *self)
{
  g_return_val_if_fail (CUGI_IS_EXTERNAL_MEMORY (self), CUGI_EXTERNAL_MEMORY_FLAGS_NONE);

  return self->flags;
}
