/* cugi-host-buffer.c: page-locked (pinned) host memory */
#include "config.h"

#include <stdint.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "cugi-context-private.h"
#include "cugi-private.h"
#include "cugi-memory-private.h"

/**
 * CugiHostBuffer:
 *
 * Page-locked ("pinned") host memory, which the GPU's copy engines reach
 * directly: copies from and to it can run asynchronously on a stream
 * (cugi_buffer_upload_from_host(), cugi_buffer_download_to_host()) and are
 * faster than from pageable memory. Allocate it with cugi_host_buffer_new(),
 * pin existing memory with cugi_host_buffer_new_registered() (C only), or
 * take it from a #CugiHostMemoryPool. Language bindings pin their own memory
 * with cugi_host_buffer_new_registered_address() (Python's overrides have
 * `Cugi.HostBuffer.register()` for NumPy arrays) or
 * cugi_host_buffer_new_registered_bytes(). With
 * %CUGI_HOST_BUFFER_FLAGS_MAPPED the device reaches it too, at
 * #CugiHostBuffer:device-pointer.
 *
 * Reach the memory with cugi_host_buffer_get_data() (C) or without copying
 * through cugi_host_buffer_get_bytes(), and fill it with
 * cugi_host_buffer_write().
 *
 * Freeing works as for #CugiBuffer: cugi_host_buffer_free() releases the
 * memory early, after which every method fails with
 * %CUGI_ERROR_INVALID_STATE, and so do the buffers from
 * cugi_host_buffer_get_device_buffer(); enqueued copies, work on those
 * buffers and #GBytes from cugi_host_buffer_get_bytes() hold the release
 * back until they are done with it. A host buffer may have 0 bytes:
 * nothing is allocated and its data is %NULL.
 *
 * Since: 0.1
 */

typedef enum
{
  HOST_MEMORY_NONE,        /* zero-size */
  HOST_MEMORY_ALLOCATED,   /* cuMemHostAlloc */
  HOST_MEMORY_REGISTERED,  /* cuMemHostRegister */
  HOST_MEMORY_POOLED,      /* a block of a CugiHostMemoryPool */
} HostMemory;

struct _CugiHostBuffer
{
  GObject              parent_instance;

  CugiMemoryOwnership  ownership;      /* its context, lifetime and pool */
  guint8              *data;
  gsize                size;
  CugiHostBufferFlags  flags;
  CUdeviceptr          device_pointer; /* MAPPED only */
  HostMemory           memory;
  GBytes              *registered_bytes; /* (nullable): what REGISTERED memory belongs to */
};

G_DEFINE_FINAL_TYPE (CugiHostBuffer, cugi_host_buffer, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_CONTEXT,
  PROP_SIZE,
  PROP_FLAGS,
  PROP_DEVICE_POINTER,
  PROP_FREED,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* cugi's flags are the driver's, so they pass through unchanged. */
G_STATIC_ASSERT ((int) CUGI_HOST_BUFFER_FLAGS_PORTABLE == CU_MEMHOSTALLOC_PORTABLE);
G_STATIC_ASSERT ((int) CUGI_HOST_BUFFER_FLAGS_MAPPED == CU_MEMHOSTALLOC_DEVICEMAP);
G_STATIC_ASSERT ((int) CUGI_HOST_BUFFER_FLAGS_WRITE_COMBINED == CU_MEMHOSTALLOC_WRITECOMBINED);
G_STATIC_ASSERT ((int) CUGI_HOST_BUFFER_FLAGS_PORTABLE == CU_MEMHOSTREGISTER_PORTABLE);
G_STATIC_ASSERT ((int) CUGI_HOST_BUFFER_FLAGS_MAPPED == CU_MEMHOSTREGISTER_DEVICEMAP);

/* ---- memory and its release ----------------------------------------------- */

static gboolean
release_memory (gpointer   owner,
                GError   **error)
{
  CugiHostBuffer *self = owner;
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;

  switch (self->memory)
    {
    case HOST_MEMORY_NONE:
      return TRUE;

    case HOST_MEMORY_POOLED:
      return cugi_memory_ownership_give_back (&self->ownership, (guintptr) self->data, self->size, error);

    case HOST_MEMORY_ALLOCATED:
    case HOST_MEMORY_REGISTERED:
      /* A reset context took the allocation (or the registration) with it. */
      if (!cugi_context_binding_is_current (&self->ownership.binding))
        return TRUE;
      if (!cugi_context_enter (self->ownership.binding.context, &scope, error))
        return FALSE;
      return cugi_synchronizing_release (self->ownership.binding.context,
                                         self->memory == HOST_MEMORY_REGISTERED ? CUGI_RELEASE_HOST_REGISTRATION
                                                                                : CUGI_RELEASE_HOST_MEMORY,
                                         (guintptr) self->data, error);
    }
  g_assert_not_reached ();
}

static CugiHostBuffer *
host_buffer_new (CugiContext         *context,
                 gpointer             data,
                 gsize                size,
                 CugiHostBufferFlags  flags,
                 HostMemory           memory)
{
  CugiHostBuffer *self = g_object_new (CUGI_TYPE_HOST_BUFFER, NULL);

  cugi_memory_ownership_set_context (&self->ownership, context);
  self->data = data;
  self->size = size;
  self->flags = flags;
  self->memory = memory;
  return self;
}

/* For mapped memory, where the device sees it; @self's context is current. */
static gboolean
find_device_pointer (CugiHostBuffer  *self,
                     GError         **error)
{
  if (!(self->flags & CUGI_HOST_BUFFER_FLAGS_MAPPED) || self->size == 0)
    return TRUE;
  return CUGI_CALL (cuMemHostGetDevicePointer, (&self->device_pointer, self->data, 0), error);
}

static gboolean
check_usable (CugiHostBuffer  *self,
              GError         **error)
{
  return cugi_memory_ownership_check (&self->ownership, N_("The host buffer was freed"),
                                      N_("The host buffer was freed: its context was reset"), error);
}

gboolean
cugi_host_buffer_check_flags (CugiHostBufferFlags   flags,
                              CugiHostBufferFlags   allowed,
                              GError              **error)
{
  if ((flags & ~allowed) == 0)
    return TRUE;
  g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
               _("Host buffer flags 0x%x are not allowed here"), (guint) (flags & ~allowed));
  return FALSE;
}

gpointer
cugi_host_buffer_begin_work (CugiHostBuffer *self)
{
  g_object_ref (self);
  cugi_memory_lifetime_begin_use (&self->ownership.lifetime);
  return self;
}

void
cugi_host_buffer_end_work (gpointer host_buffer)
{
  CugiHostBuffer *self = host_buffer;

  cugi_memory_lifetime_end_use (&self->ownership.lifetime);
  g_object_unref (self);
}

CugiContext *
cugi_host_buffer_get_context (CugiHostBuffer *self)
{
  return self->ownership.binding.context;
}

CugiMemoryLifetime *
cugi_host_buffer_get_lifetime (CugiHostBuffer *self)
{
  return &self->ownership.lifetime;
}

gboolean
cugi_host_buffer_get_address (CugiHostBuffer  *self,
                              gpointer        *address,
                              GError         **error)
{
  g_return_val_if_fail (CUGI_IS_HOST_BUFFER (self), FALSE);

  if (!check_usable (self, error))
    return FALSE;
  *address = self->data;
  return TRUE;
}

gboolean
cugi_host_buffer_get_writable_address (CugiHostBuffer  *self,
                                       gpointer        *address,
                                       GError         **error)
{
  if (!cugi_host_buffer_get_address (self, address, error))
    return FALSE;
  if (self->registered_bytes == NULL)
    return TRUE;
  g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE,
                       _("The host buffer holds immutable bytes: it cannot be written"));
  return FALSE;
}

CugiHostBuffer *
cugi_host_buffer_new_pooled (CugiPoolCore         *pool,
                             gpointer              address,
                             gsize                 size,
                             CugiHostBufferFlags   flags,
                             GError              **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  g_autoptr(CugiHostBuffer) self = NULL;

  if ((flags & CUGI_HOST_BUFFER_FLAGS_MAPPED) && !cugi_context_enter (pool->context, &scope, error))
    return NULL;
  self = host_buffer_new (pool->context, address, size, flags, HOST_MEMORY_NONE);
  if (!find_device_pointer (self, error))
    return NULL;
  /* Only now is the block the buffer's to give back. */
  self->memory = HOST_MEMORY_POOLED;
  cugi_memory_ownership_set_pool (&self->ownership, pool);
  return g_steal_pointer (&self);
}

/* ---- GObject -------------------------------------------------------------- */

static void
cugi_host_buffer_finalize (GObject *object)
{
  CugiHostBuffer *self = CUGI_HOST_BUFFER (object);

  cugi_memory_ownership_clear (&self->ownership);
  /* Unregistered by now: the bytes may go. */
  g_clear_pointer (&self->registered_bytes, g_bytes_unref);

  G_OBJECT_CLASS (cugi_host_buffer_parent_class)->finalize (object);
}

static void
cugi_host_buffer_get_property (GObject    *object,
                               guint       prop_id,
                               GValue     *value,
                               GParamSpec *pspec)
{
  CugiHostBuffer *self = CUGI_HOST_BUFFER (object);

  switch (prop_id)
    {
    case PROP_CONTEXT:
      g_value_set_object (value, self->ownership.binding.context);
      break;
    case PROP_SIZE:
      g_value_set_uint64 (value, self->size);
      break;
    case PROP_FLAGS:
      g_value_set_flags (value, self->flags);
      break;
    case PROP_DEVICE_POINTER:
      g_value_set_uint64 (value, cugi_host_buffer_get_device_pointer (self));
      break;
    case PROP_FREED:
      g_value_set_boolean (value, cugi_host_buffer_is_freed (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cugi_host_buffer_class_init (CugiHostBufferClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = cugi_host_buffer_finalize;
  object_class->get_property = cugi_host_buffer_get_property;

  /**
   * CugiHostBuffer:context:
   *
   * The context the memory was allocated or registered in, which the host
   * buffer keeps alive.
   *
   * Since: 0.1
   */
  properties[PROP_CONTEXT] =
    g_param_spec_object ("context", NULL, NULL, CUGI_TYPE_CONTEXT,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * CugiHostBuffer:size:
   *
   * The size of the host buffer in bytes.
   *
   * Since: 0.1
   */
  properties[PROP_SIZE] =
    g_param_spec_uint64 ("size", NULL, NULL, 0, G_MAXUINT64, 0,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * CugiHostBuffer:flags:
   *
   * How the memory was allocated or registered.
   *
   * Since: 0.1
   */
  properties[PROP_FLAGS] =
    g_param_spec_flags ("flags", NULL, NULL, CUGI_TYPE_HOST_BUFFER_FLAGS,
                        CUGI_HOST_BUFFER_FLAGS_NONE,
                        G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * CugiHostBuffer:device-pointer:
   *
   * For memory with %CUGI_HOST_BUFFER_FLAGS_MAPPED, the address at which
   * the device reaches it (`cuMemHostGetDevicePointer`); 0 for other memory,
   * for zero-size buffers and once the buffer is freed.
   *
   * Since: 0.1
   */
  properties[PROP_DEVICE_POINTER] =
    g_param_spec_uint64 ("device-pointer", NULL, NULL, 0, G_MAXUINT64, 0,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * CugiHostBuffer:freed:
   *
   * Whether cugi_host_buffer_free() was called: the host buffer cannot be
   * used any more.
   *
   * Since: 0.1
   */
  properties[PROP_FREED] =
    g_param_spec_boolean ("freed", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
cugi_host_buffer_init (CugiHostBuffer *self)
{
  cugi_memory_ownership_init (&self->ownership, release_memory, self);
}

/* ---- constructors --------------------------------------------------------- */

/**
 * cugi_host_buffer_new:
 * @context: (nullable): the context to allocate in, or %NULL for the default
 *   context
 * @size: the size in bytes; 0 allocates nothing
 * @flags: how to allocate the memory
 * @error: return location for a #GError
 *
 * Allocates @size bytes of pinned host memory (`cuMemHostAlloc`), not
 * initialized. Pinned memory is a scarce system resource: prefer a
 * #CugiHostMemoryPool for frequent allocations.
 *
 * Returns: (transfer full): the new host buffer, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiHostBuffer *
cugi_host_buffer_new (CugiContext          *context,
                      gsize                 size,
                      CugiHostBufferFlags   flags,
                      GError              **error)
{
  g_autoptr(CugiContext) resolved = NULL;
  g_autoptr(CugiHostBuffer) self = NULL;
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  void *data = NULL;

  g_return_val_if_fail (context == NULL || CUGI_IS_CONTEXT (context), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!cugi_host_buffer_check_flags (flags, CUGI_HOST_BUFFER_FLAGS_ALL, error) ||
      !cugi_ensure_driver (error) ||
      (resolved = cugi_context_resolve (context, error)) == NULL)
    return NULL;
  if (size == 0)
    return host_buffer_new (resolved, NULL, 0, flags, HOST_MEMORY_NONE);
  if (!cugi_context_enter (resolved, &scope, error) ||
      !CUGI_CALL (cuMemHostAlloc, (&data, size, flags), error))
    return NULL;
  self = host_buffer_new (resolved, data, size, flags, HOST_MEMORY_ALLOCATED);
  if (!find_device_pointer (self, error))
    return NULL;
  return g_steal_pointer (&self);
}

/* Pins @data with cuMemHostRegister: the constructors' common part, after
 * their own checks. @read_only asks the driver to map the memory read-only
 * (CU_MEMHOSTREGISTER_READ_ONLY) where the device supports it. */
static CugiHostBuffer *
register_memory (CugiContext          *context,
                 gpointer              data,
                 gsize                 size,
                 CugiHostBufferFlags   flags,
                 gboolean              read_only,
                 GError              **error)
{
  g_autoptr(CugiContext) resolved = NULL;
  g_autoptr(CugiHostBuffer) self = NULL;
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  unsigned int driver_flags = flags;

  if (!cugi_host_buffer_check_flags (flags, CUGI_HOST_BUFFER_FLAGS_PORTABLE | CUGI_HOST_BUFFER_FLAGS_MAPPED,
                                     error) ||
      !cugi_ensure_driver (error) ||
      (resolved = cugi_context_resolve (context, error)) == NULL)
    return NULL;
  if (size == 0)
    return host_buffer_new (resolved, NULL, 0, flags, HOST_MEMORY_NONE);
  if (!cugi_context_enter (resolved, &scope, error))
    return NULL;
  /* A usable context has its device. */
  if (read_only &&
      cugi_device_get_attribute (cugi_context_get_device (resolved),
                                 CUGI_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED, NULL) > 0)
    driver_flags |= CU_MEMHOSTREGISTER_READ_ONLY;
  if (!CUGI_CALL (cuMemHostRegister, (data, size, driver_flags), error))
    return NULL;
  self = host_buffer_new (resolved, data, size, flags, HOST_MEMORY_REGISTERED);
  if (!find_device_pointer (self, error))
    return NULL;
  return g_steal_pointer (&self);
}

/**
 * cugi_host_buffer_new_registered: (skip)
 * @context: (nullable): the context to register in, or %NULL for the default
 *   context
 * @data: (array length=size): the memory to pin; page-aligned memory works on
 *   every driver
 * @size: the size of @data in bytes
 * @flags: %CUGI_HOST_BUFFER_FLAGS_PORTABLE and %CUGI_HOST_BUFFER_FLAGS_MAPPED
 *   are allowed
 * @error: return location for a #GError
 *
 * Pins memory the caller allocated (`cuMemHostRegister`), so that it can be
 * used like a #CugiHostBuffer's. The registration ends
 * (`cuMemHostUnregister`) when the host buffer is freed or finalized; @data
 * must stay valid until then and is not freed by cugi. Bindings have
 * cugi_host_buffer_new_registered_address() and
 * cugi_host_buffer_new_registered_bytes().
 *
 * Returns: (transfer full): the host buffer, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiHostBuffer *
cugi_host_buffer_new_registered (CugiContext          *context,
                                 gpointer              data,
                                 gsize                 size,
                                 CugiHostBufferFlags   flags,
                                 GError              **error)
{
  g_return_val_if_fail (context == NULL || CUGI_IS_CONTEXT (context), NULL);
  g_return_val_if_fail (data != NULL || size == 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return register_memory (context, data, size, flags, FALSE, error);
}

/**
 * cugi_host_buffer_new_registered_address: (constructor)
 * @context: (nullable): the context to register in, or %NULL for the default
 *   context
 * @address: the host address of the memory to pin, as an integer
 * @size: the size of the memory in bytes; 0 registers nothing
 * @flags: %CUGI_HOST_BUFFER_FLAGS_PORTABLE and %CUGI_HOST_BUFFER_FLAGS_MAPPED
 *   are allowed
 * @error: return location for a #GError
 *
 * cugi_host_buffer_new_registered() for language bindings, which know
 * their memory by its address: a NumPy array's (`array.ctypes.data`), a
 * GJS `ArrayBuffer`'s through a native helper, or memory from a C library.
 * The @size bytes at @address are pinned (`cuMemHostRegister`) until the
 * host buffer is freed or finalized (`cuMemHostUnregister`), and must stay
 * allocated until then: the caller keeps their owner alive for as long as
 * the host buffer (Python's `Cugi.HostBuffer.register()` does this for
 * you). Page-aligned memory works on every driver; memory registered
 * already, by cugi or anyone else, fails with the driver's
 * `CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED`.
 *
 * Returns: (transfer full): the host buffer, or %NULL with @error set
 *   (%CUGI_ERROR_INVALID_ARGUMENT for address 0 with a size, or an address
 *   that the range wraps around from)
 *
 * Since: 0.1
 */
CugiHostBuffer *
cugi_host_buffer_new_registered_address (CugiContext          *context,
                                         guint64               address,
                                         gsize                 size,
                                         CugiHostBufferFlags   flags,
                                         GError              **error)
{
  g_return_val_if_fail (context == NULL || CUGI_IS_CONTEXT (context), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (size > 0 && (address == 0 || (guint64) (guintptr) address != address ||
                   (guintptr) address > UINTPTR_MAX - size))
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("Cannot register %zu bytes of host memory at address 0x%llx"),
                   size, (unsigned long long) address);
      return NULL;
    }
  return register_memory (context, (gpointer) (guintptr) address, size, flags, FALSE, error);
}

/**
 * cugi_host_buffer_new_registered_bytes: (constructor)
 * @context: (nullable): the context to register in, or %NULL for the default
 *   context
 * @bytes: the memory to pin
 * @flags: %CUGI_HOST_BUFFER_FLAGS_PORTABLE and %CUGI_HOST_BUFFER_FLAGS_MAPPED
 *   are allowed
 * @error: return location for a #GError
 *
 * Pins the memory of @bytes (`cuMemHostRegister`) without copying it, so
 * that uploads from it run asynchronously at full speed. The host buffer
 * keeps @bytes alive until it is finalized; the registration ends when it is
 * freed or finalized. A #GBytes is immutable, so the memory is registered
 * read-only (`CU_MEMHOSTREGISTER_READ_ONLY`) on devices that support it
 * (%CUGI_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED), and
 * cugi_host_buffer_write() and every download into the host buffer
 * (cugi_buffer_download_to_host(), cugi_array_download_to_host(), …) fail
 * with %CUGI_ERROR_INVALID_STATE: upload from it, never download into it
 * or write to its device pointer (which cugi cannot check).
 *
 * Bytes that are pinned already (cugi_host_buffer_get_bytes() of another
 * host buffer) fail with the driver's
 * `CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED`, as do two registrations of
 * bytes that share a page on drivers that register whole pages; bytes of
 * page-aligned memory (g_bytes_new_take() of a `posix_memalign()` block,
 * say) work everywhere.
 *
 * Returns: (transfer full): the host buffer, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiHostBuffer *
cugi_host_buffer_new_registered_bytes (CugiContext          *context,
                                       GBytes               *bytes,
                                       CugiHostBufferFlags   flags,
                                       GError              **error)
{
  CugiHostBuffer *self;
  gsize size = 0;
  gconstpointer data;

  g_return_val_if_fail (context == NULL || CUGI_IS_CONTEXT (context), NULL);
  g_return_val_if_fail (bytes != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  data = g_bytes_get_data (bytes, &size);
  /* The driver takes a mutable pointer; READ_ONLY keeps the device from writing. */
  self = register_memory (context, (gpointer) data, size, flags, TRUE, error);
  if (self != NULL)
    self->registered_bytes = g_bytes_ref (bytes);
  return self;
}

/* ---- properties ----------------------------------------------------------- */

/**
 * cugi_host_buffer_get_size:
 * @self: a #CugiHostBuffer
 *
 * Returns: the size of @self in bytes (#CugiHostBuffer:size)
 *
 * Since: 0.1
 */
gsize
cugi_host_buffer_get_size (CugiHostBuffer *self)
{
  g_return_val_if_fail (CUGI_IS_HOST_BUFFER (self), 0);

  return self->size;
}

/**
 * cugi_host_buffer_get_flags:
 * @self: a #CugiHostBuffer
 *
 * Returns: how @self was allocated (#CugiHostBuffer:flags)
 *
 * Since: 0.1
 */
CugiHostBufferFlags
cugi_host_buffer_get_flags (CugiHostBuffer *self)
{
  g_return_val_if_fail (CUGI_IS_HOST_BUFFER (self), CUGI_HOST_BUFFER_FLAGS_NONE);

  return self->flags;
}

/**
 * cugi_host_buffer_get_device_pointer:
 * @self: a #CugiHostBuffer
 *
 * Returns: the device address of mapped memory
 *   (#CugiHostBuffer:device-pointer), or 0
 *
 * Since: 0.1
 */
guint64
cugi_host_buffer_get_device_pointer (CugiHostBuffer *self)
{
  g_return_val_if_fail (CUGI_IS_HOST_BUFFER (self), 0);

  return check_usable (self, NULL) ? self->device_pointer : 0;
}

/**
 * cugi_host_buffer_is_freed:
 * @self: a #CugiHostBuffer
 *
 * Returns: whether cugi_host_buffer_free() was called on @self
 *   (#CugiHostBuffer:freed)
 *
 * Since: 0.1
 */
gboolean
cugi_host_buffer_is_freed (CugiHostBuffer *self)
{
  g_return_val_if_fail (CUGI_IS_HOST_BUFFER (self), FALSE);

  return cugi_memory_lifetime_is_freed (&self->ownership.lifetime);
}

/* ---- access --------------------------------------------------------------- */

/**
 * cugi_host_buffer_get_data:
 * @self: a #CugiHostBuffer
 * @size: (out) (optional): return location for the size in bytes
 * @error: return location for a #GError
 *
 * The memory itself, to read and write from C while no enqueued copy uses
 * it. It stays valid while @self is alive and not freed. (Bindings get a
 * copy; they write with cugi_host_buffer_write() and read without copying
 * through cugi_host_buffer_get_bytes().)
 *
 * Returns: (array length=size) (transfer none) (nullable): the memory; %NULL
 *   for a zero-size buffer, and with @error set once @self was freed
 *
 * Since: 0.1
 */
guint8 *
cugi_host_buffer_get_data (CugiHostBuffer  *self,
                           gsize           *size,
                           GError         **error)
{
  g_return_val_if_fail (CUGI_IS_HOST_BUFFER (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (size != NULL)
    *size = 0;
  if (!check_usable (self, error))
    return NULL;
  if (size != NULL)
    *size = self->size;
  return self->data;
}

/**
 * cugi_host_buffer_get_host_address:
 * @self: a #CugiHostBuffer
 * @error: return location for a #GError
 *
 * The host address of the memory as an integer, for language bindings that
 * view it without copying (Python's overrides give it to NumPy through
 * ctypes). It is valid while @self is alive and not freed; C code has
 * cugi_host_buffer_get_data().
 *
 * Returns: the address, or 0 with @error set when @self cannot be used
 *
 * Since: 0.1
 */
guint64
cugi_host_buffer_get_host_address (CugiHostBuffer  *self,
                                   GError         **error)
{
  g_return_val_if_fail (CUGI_IS_HOST_BUFFER (self), 0);
  g_return_val_if_fail (error == NULL || *error == NULL, 0);

  if (!check_usable (self, error))
    return 0;
  return (guint64) (guintptr) self->data;
}

/**
 * cugi_host_buffer_get_bytes:
 * @self: a #CugiHostBuffer
 * @error: return location for a #GError
 *
 * The memory as a #GBytes, without copying it: the bytes keep @self alive,
 * and its memory too, even past cugi_host_buffer_free(), until they are
 * unreferenced. Being pinned, they upload without staging in
 * cugi_buffer_upload_bytes_async(). They change when the memory does, so a
 * texture made of them (`Gdk.MemoryTexture`, which takes its bytes for
 * immutable) shows the memory without a copy only while nothing writes it:
 * until the next cugi_buffer_download_to_host_async() into @self, say, take
 * turns between two host buffers, or copy the bytes.
 *
 * Returns: (transfer full): the bytes, or %NULL with @error set
 *
 * Since: 0.1
 */
GBytes *
cugi_host_buffer_get_bytes (CugiHostBuffer  *self,
                            GError         **error)
{
  g_return_val_if_fail (CUGI_IS_HOST_BUFFER (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!check_usable (self, error))
    return NULL;
  return g_bytes_new_with_free_func (self->data, self->size, cugi_host_buffer_end_work,
                                     cugi_host_buffer_begin_work (self));
}

/**
 * cugi_host_buffer_write:
 * @self: a #CugiHostBuffer
 * @offset: where to write in @self, in bytes
 * @data: (array length=len) (nullable): the bytes to write
 * @len: the number of bytes
 * @error: return location for a #GError
 *
 * Copies @len bytes into @self at @offset, for languages that cannot write
 * to cugi_host_buffer_get_data() in place. A host buffer of
 * cugi_host_buffer_new_registered_bytes() cannot be written: that fails with
 * %CUGI_ERROR_INVALID_STATE.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
cugi_host_buffer_write (CugiHostBuffer  *self,
                        gsize            offset,
                        const guint8    *data,
                        gsize            len,
                        GError         **error)
{
  gpointer address;

  g_return_val_if_fail (CUGI_IS_HOST_BUFFER (self), FALSE);
  g_return_val_if_fail (data != NULL || len == 0, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!cugi_host_buffer_get_writable_address (self, &address, error) ||
      !cugi_memory_check_range (self->size, offset, len, _("host buffer"), error))
    return FALSE;
  if (len > 0)
    memcpy ((guint8 *) address + offset, data, len);
  return TRUE;
}

gboolean
cugi_memory_host_address_get (guint64        address,
                              gsize          size,
                              const guint8 **data,
                              GError       **error)
{
  *data = NULL;
  if (size == 0)
    return TRUE;
  /* Written so that no sum can wrap: the last byte must be addressable. */
  if (address == 0 || address > UINTPTR_MAX || size - 1 > UINTPTR_MAX - address)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("Host address 0x%llx cannot hold %zu bytes"),
                   (unsigned long long) address, size);
      return FALSE;
    }
  *data = (const guint8 *) (guintptr) address;
  return TRUE;
}

/**
 * cugi_host_buffer_write_from_address:
 * @self: a #CugiHostBuffer
 * @offset: where to write in @self, in bytes
 * @address: the host address of the bytes to write, as an integer
 * @size: the number of bytes
 * @error: return location for a #GError
 *
 * Like cugi_host_buffer_write(), with the data given by its address: for
 * language bindings that hold the memory of an object of their own (a NumPy
 * array, a `bytearray`, any object exposing Python's buffer protocol) and
 * would otherwise convert it element by element into an array. The caller
 * keeps the memory valid for the call. Address 0 with a size, or a range
 * that does not fit in the address space, is %CUGI_ERROR_INVALID_ARGUMENT.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
cugi_host_buffer_write_from_address (CugiHostBuffer  *self,
                                     gsize            offset,
                                     guint64          address,
                                     gsize            size,
                                     GError         **error)
{
  const guint8 *data;

  g_return_val_if_fail (CUGI_IS_HOST_BUFFER (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return cugi_memory_host_address_get (address, size, &data, error) &&
         cugi_host_buffer_write (self, offset, data, size, error);
}

/**
 * cugi_host_buffer_free:
 * @self: a #CugiHostBuffer
 * @error: return location for a #GError
 *
 * Releases the memory now instead of when the last reference goes (back to
 * the driver, to the pool, or unregistered), or as soon as the enqueued
 * copies, the work on its device buffers and the #GBytes that use it are
 * done; the device buffers themselves, and argument lists holding them, do
 * not hold it back. Every later call on @self fails with
 * %CUGI_ERROR_INVALID_STATE, a second cugi_host_buffer_free() included, and
 * so does every call on its device buffers
 * (cugi_host_buffer_get_device_buffer()).
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
cugi_host_buffer_free (CugiHostBuffer  *self,
                       GError         **error)
{
  g_return_val_if_fail (CUGI_IS_HOST_BUFFER (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return cugi_memory_ownership_free (&self->ownership, G_OBJECT (self), properties[PROP_FREED],
                                     N_("The host buffer was freed"), error);
}
