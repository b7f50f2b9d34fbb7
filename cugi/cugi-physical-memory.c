/* cugi-physical-memory.c: physical device memory of the driver's virtual
 * memory management (cuMemCreate), exported to and imported from other
 * processes as POSIX file descriptors */
#include "config.h"

#include <string.h>
#include <unistd.h>

#include <glib/gi18n-lib.h>

#include "cugi-context-private.h"
#include "cugi-private.h"
#include "cugi-virtual-memory-private.h"

/**
 * CugiPhysicalMemory:
 *
 * Physical memory of a device without an address (`cuMemCreate`): it is
 * reached once mapped into a #CugiVirtualRange, at any offset, in one range
 * or several, in this process or, exported as a file descriptor, in
 * another.
 *
 * Sizes are multiples of the device's granularity
 * (cugi_physical_memory_get_granularity(); 2 MiB on current GPUs): other
 * sizes fail with %CUGI_ERROR_INVALID_ARGUMENT naming it. What the memory
 * is made for, #CugiPhysicalMemoryFlags, the device must support
 * (cugi_physical_memory_get_supported_flags()), or the constructor fails
 * with %CUGI_ERROR_NOT_SUPPORTED naming the flag.
 *
 * ## Sharing with another process
 *
 * Memory made with %CUGI_PHYSICAL_MEMORY_FLAGS_EXPORTABLE gives a file
 * descriptor (cugi_physical_memory_export_fd()), which a child inherits
 * (g_subprocess_launcher_take_fd()) or a UNIX socket carries; the other
 * process imports it with cugi_physical_memory_new_from_fd() and maps it.
 * Both see the same bytes, ordered as their work is ordered (an IPC event,
 * cugi_event_get_ipc_handle()).
 *
 * |[<!-- language="C" -->
 * // parent
 * g_autoptr(CugiPhysicalMemory) memory =
 *   cugi_physical_memory_new (device, size, CUGI_PHYSICAL_MEMORY_FLAGS_EXPORTABLE, &error);
 * gint fd = cugi_physical_memory_export_fd (memory, &error);
 * g_subprocess_launcher_take_fd (launcher, fd, 3);
 * // child
 * g_autoptr(CugiPhysicalMemory) shared = cugi_physical_memory_new_from_fd (NULL, 3, size, &error);
 * ]|
 *
 * The memory lives while the object or a mapping of it does.
 *
 * Since: 0.1
 */

struct _CugiPhysicalMemory
{
  GObject                       parent_instance;

  CugiDevice                   *device;
  CUmemGenericAllocationHandle  handle;   /* 0 in an object of g_object_new() */
  gsize                         size;
  CugiPhysicalMemoryFlags       flags;
};

G_DEFINE_FINAL_TYPE (CugiPhysicalMemory, cugi_physical_memory, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_DEVICE,
  PROP_SIZE,
  PROP_FLAGS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

#define ALL_FLAGS (CUGI_PHYSICAL_MEMORY_FLAGS_EXPORTABLE | CUGI_PHYSICAL_MEMORY_FLAGS_COMPRESSIBLE | \
                   CUGI_PHYSICAL_MEMORY_FLAGS_GPU_DIRECT_RDMA)

static void
cugi_physical_memory_finalize (GObject *object)
{
  CugiPhysicalMemory *self = CUGI_PHYSICAL_MEMORY (object);
  g_autoptr(GError) error = NULL;

  /* Mappings keep the object alive, so none is left. */
  if (self->handle != 0 && !CUGI_CALL (cuMemRelease, (self->handle), &error))
    g_debug ("Releasing physical memory failed: %s", error->message);
  g_clear_object (&self->device);

  G_OBJECT_CLASS (cugi_physical_memory_parent_class)->finalize (object);
}

static void
cugi_physical_memory_get_property (GObject    *object,
                                   guint       prop_id,
                                   GValue     *value,
                                   GParamSpec *pspec)
{
  CugiPhysicalMemory *self = CUGI_PHYSICAL_MEMORY (object);

  switch (prop_id)
    {
    case PROP_DEVICE:
      g_value_set_object (value, self->device);
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
cugi_physical_memory_class_init (CugiPhysicalMemoryClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = cugi_physical_memory_finalize;
  object_class->get_property = cugi_physical_memory_get_property;

  /**
   * CugiPhysicalMemory:device:
   *
   * The device whose memory this is.
   *
   * Since: 0.1
   */
  properties[PROP_DEVICE] =
    g_param_spec_object ("device", NULL, NULL, CUGI_TYPE_DEVICE,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * CugiPhysicalMemory:size:
   *
   * The size in bytes, a multiple of the device's granularity.
   *
   * Since: 0.1
   */
  properties[PROP_SIZE] =
    g_param_spec_uint64 ("size", NULL, NULL, 0, G_MAXUINT64, 0,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * CugiPhysicalMemory:flags:
   *
   * What the memory was made for; for imported memory, what the exporter
   * made it for, as the driver tells it.
   *
   * Since: 0.1
   */
  properties[PROP_FLAGS] =
    g_param_spec_flags ("flags", NULL, NULL, CUGI_TYPE_PHYSICAL_MEMORY_FLAGS, CUGI_PHYSICAL_MEMORY_FLAGS_NONE,
                        G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
cugi_physical_memory_init (CugiPhysicalMemory *self)
{
}

/* ---- what the virtual memory files share ----------------------------------- */

gboolean
cugi_virtual_memory_check_supported (CugiDevice  *device,
                                     GError     **error)
{
  gint supported;

  if (!cugi_ensure_driver (error) ||
      !CUGI_REQUIRE_ENTRY_POINT (cuMemCreate, error) ||
      !CUGI_REQUIRE_ENTRY_POINT (cuMemAddressReserve, error) ||
      !CUGI_REQUIRE_ENTRY_POINT (cuMemMap, error) ||
      !CUGI_REQUIRE_ENTRY_POINT (cuMemSetAccess, error) ||
      !CUGI_REQUIRE_ENTRY_POINT (cuMemGetAllocationGranularity, error) ||
      !cugi_device_check (device, error))
    return FALSE;
  supported = cugi_device_get_attribute (device, CUGI_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED,
                                         error);
  if (supported < 0)
    return FALSE;
  if (supported == 0)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_NOT_SUPPORTED,
                   _("cuda:%d has no virtual memory management"), cugi_device_get_ordinal (device));
      return FALSE;
    }
  return TRUE;
}

gboolean
cugi_virtual_memory_enter_device (CugiDevice        *device,
                                  CugiContextScope  *scope,
                                  GError           **error)
{
  g_autoptr(CugiContext) primary = cugi_device_get_primary_context (device, error);

  /* The device keeps its primary context alive: the reference may go. */
  return primary != NULL && cugi_context_enter (primary, scope, error);
}

gboolean
cugi_virtual_memory_check_size (gsize        size,
                                gsize        granularity,
                                const char  *what,
                                GError     **error)
{
  if (size > 0 && size % granularity == 0)
    return TRUE;
  g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
               _("The %s of %zu bytes is not a non-zero multiple of the device’s granularity, %zu bytes"),
               what, size, granularity);
  return FALSE;
}

CUmemGenericAllocationHandle
cugi_physical_memory_get_handle (CugiPhysicalMemory *self)
{
  return self->handle;
}

/* ---- flags and granularity ------------------------------------------------ */

static void
fill_properties (CUmemAllocationProp     *prop,
                 CugiDevice              *device,
                 CugiPhysicalMemoryFlags  flags)
{
  memset (prop, 0, sizeof *prop);
  prop->type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop->location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop->location.id = cugi_device_get_handle (device);
  if (flags & CUGI_PHYSICAL_MEMORY_FLAGS_EXPORTABLE)
    prop->requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  if (flags & CUGI_PHYSICAL_MEMORY_FLAGS_COMPRESSIBLE)
    prop->allocFlags.compressionType = CU_MEM_ALLOCATION_COMP_GENERIC;
  if (flags & CUGI_PHYSICAL_MEMORY_FLAGS_GPU_DIRECT_RDMA)
    prop->allocFlags.gpuDirectRDMACapable = 1;
}

static CugiPhysicalMemoryFlags
flags_of_properties (const CUmemAllocationProp *prop)
{
  return ((prop->requestedHandleTypes & CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) ?
            CUGI_PHYSICAL_MEMORY_FLAGS_EXPORTABLE : 0) |
         (prop->allocFlags.compressionType == CU_MEM_ALLOCATION_COMP_GENERIC ?
            CUGI_PHYSICAL_MEMORY_FLAGS_COMPRESSIBLE : 0) |
         (prop->allocFlags.gpuDirectRDMACapable ? CUGI_PHYSICAL_MEMORY_FLAGS_GPU_DIRECT_RDMA : 0);
}

/* The device to use (a new reference), once it has virtual memory. */
static CugiDevice *
resolve_device (CugiDevice  *device,
                GError     **error)
{
  g_autoptr(CugiDevice) resolved = NULL;

  if (!cugi_ensure_driver (error))
    return NULL;
  resolved = device != NULL ? g_object_ref (device) : cugi_device_get_default (error);
  if (resolved == NULL || !cugi_virtual_memory_check_supported (resolved, error))
    return NULL;
  return g_steal_pointer (&resolved);
}

/**
 * cugi_physical_memory_get_supported_flags:
 * @device: (nullable): a device, or %NULL for the default device
 * @error: return location for a #GError
 *
 * What physical memory of @device can be made for, as its attributes tell
 * (`HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED`,
 * `GENERIC_COMPRESSION_SUPPORTED`, `GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED`).
 *
 * Returns: the flags @device supports, or 0 with @error set
 *   (%CUGI_ERROR_NOT_SUPPORTED where it has no virtual memory management)
 *
 * Since: 0.1
 */
CugiPhysicalMemoryFlags
cugi_physical_memory_get_supported_flags (CugiDevice  *device,
                                          GError     **error)
{
  static const struct
  {
    CugiDeviceAttribute     attribute;
    CugiPhysicalMemoryFlags flag;
  } supports[] = {
    { CUGI_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, CUGI_PHYSICAL_MEMORY_FLAGS_EXPORTABLE },
    { CUGI_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED, CUGI_PHYSICAL_MEMORY_FLAGS_COMPRESSIBLE },
    { CUGI_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED, CUGI_PHYSICAL_MEMORY_FLAGS_GPU_DIRECT_RDMA },
  };
  g_autoptr(CugiDevice) resolved = NULL;
  CugiPhysicalMemoryFlags flags = CUGI_PHYSICAL_MEMORY_FLAGS_NONE;

  g_return_val_if_fail (device == NULL || CUGI_IS_DEVICE (device), 0);
  g_return_val_if_fail (error == NULL || *error == NULL, 0);

  if ((resolved = resolve_device (device, error)) == NULL)
    return 0;
  for (gsize i = 0; i < G_N_ELEMENTS (supports); i++)
    {
      gint value = cugi_device_get_attribute (resolved, supports[i].attribute, error);

      if (value < 0)
        return 0;
      if (value > 0)
        flags |= supports[i].flag;
    }
  return flags;
}

/* INVALID_ARGUMENT for flags cugi does not know, NOT_SUPPORTED naming the
 * first that @device lacks. */
static gboolean
check_flags (CugiDevice              *device,
             CugiPhysicalMemoryFlags  flags,
             GError                 **error)
{
  g_autoptr(GFlagsClass) flags_class = NULL;
  g_autoptr(GError) local_error = NULL;
  CugiPhysicalMemoryFlags missing;
  CugiPhysicalMemoryFlags supported;

  if ((flags & ~ALL_FLAGS) != 0)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("0x%x are no flags of physical memory"), (unsigned int) (flags & ~ALL_FLAGS));
      return FALSE;
    }
  if (flags == 0)
    return TRUE;
  supported = cugi_physical_memory_get_supported_flags (device, &local_error);
  if (local_error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }
  if ((missing = flags & ~supported) == 0)
    return TRUE;
  flags_class = g_type_class_ref (CUGI_TYPE_PHYSICAL_MEMORY_FLAGS);
  g_set_error (error, CUGI_ERROR, CUGI_ERROR_NOT_SUPPORTED,
               _("cuda:%d cannot make physical memory with %s"), cugi_device_get_ordinal (device),
               g_flags_get_first_value (flags_class, missing)->value_nick);
  return FALSE;
}

/**
 * cugi_physical_memory_get_granularity:
 * @device: (nullable): a device, or %NULL for the default device
 * @flags: what the memory is for
 * @recommended: %TRUE for the size the driver recommends for performance,
 *   %FALSE for the smallest it allows
 * @error: return location for a #GError
 *
 * The granularity of physical memory of @device made with @flags
 * (`cuMemGetAllocationGranularity`): sizes of physical memory, and sizes
 * and offsets of reservations and mappings, are multiples of the minimum.
 *
 * Returns: the granularity in bytes, or 0 with @error set
 *
 * Since: 0.1
 */
gsize
cugi_physical_memory_get_granularity (CugiDevice              *device,
                                      CugiPhysicalMemoryFlags  flags,
                                      gboolean                 recommended,
                                      GError                 **error)
{
  g_autoptr(CugiDevice) resolved = NULL;
  CUmemAllocationProp prop;
  size_t granularity = 0;

  g_return_val_if_fail (device == NULL || CUGI_IS_DEVICE (device), 0);
  g_return_val_if_fail (error == NULL || *error == NULL, 0);

  if ((resolved = resolve_device (device, error)) == NULL || !check_flags (resolved, flags, error))
    return 0;
  fill_properties (&prop, resolved, flags);
  if (!CUGI_CALL (cuMemGetAllocationGranularity,
                  (&granularity, &prop,
                   recommended ? CU_MEM_ALLOC_GRANULARITY_RECOMMENDED : CU_MEM_ALLOC_GRANULARITY_MINIMUM),
                  error))
    return 0;
  return granularity;
}

/* ---- constructors --------------------------------------------------------- */

static CugiPhysicalMemory *
physical_memory_new (CugiDevice                   *device,
                     CUmemGenericAllocationHandle  handle,
                     gsize                         size,
                     CugiPhysicalMemoryFlags       flags)
{
  CugiPhysicalMemory *self = g_object_new (CUGI_TYPE_PHYSICAL_MEMORY, NULL);

  self->device = device;
  self->handle = handle;
  self->size = size;
  self->flags = flags;
  return self;
}

/**
 * cugi_physical_memory_new:
 * @device: (nullable): the device whose memory to allocate, or %NULL for
 *   the default device
 * @size: the size in bytes, a non-zero multiple of the minimum granularity
 *   (cugi_physical_memory_get_granularity())
 * @flags: what the memory is for, which @device must support
 * @error: return location for a #GError
 *
 * Allocates @size bytes of physical memory of @device (`cuMemCreate`),
 * reached once mapped into a #CugiVirtualRange.
 *
 * Returns: (transfer full): the memory, or %NULL with @error set
 *   (%CUGI_ERROR_INVALID_ARGUMENT for a size that is no multiple of the
 *   granularity, %CUGI_ERROR_NOT_SUPPORTED for flags @device lacks,
 *   %CUGI_ERROR_OUT_OF_MEMORY)
 *
 * Since: 0.1
 */
CugiPhysicalMemory *
cugi_physical_memory_new (CugiDevice               *device,
                          gsize                     size,
                          CugiPhysicalMemoryFlags   flags,
                          GError                  **error)
{
  g_autoptr(CugiDevice) resolved = NULL;
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CUmemGenericAllocationHandle handle = 0;
  CUmemAllocationProp prop;
  gsize granularity;

  g_return_val_if_fail (device == NULL || CUGI_IS_DEVICE (device), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if ((resolved = resolve_device (device, error)) == NULL ||
      (granularity = cugi_physical_memory_get_granularity (resolved, flags, FALSE, error)) == 0 ||
      !cugi_virtual_memory_check_size (size, granularity, _("physical memory"), error) ||
      !cugi_virtual_memory_enter_device (resolved, &scope, error))
    return NULL;
  fill_properties (&prop, resolved, flags);
  if (!CUGI_CALL (cuMemCreate, (&handle, size, &prop, 0), error))
    return NULL;
  return physical_memory_new (g_steal_pointer (&resolved), handle, size, flags);
}

/**
 * cugi_physical_memory_new_from_fd:
 * @device: (nullable): the device the memory is on, as this process numbers
 *   devices, or %NULL for the default device
 * @fd: a file descriptor from cugi_physical_memory_export_fd(), in this
 *   process or another; the caller keeps it and closes it when it likes
 * @size: the size of the exported memory in bytes, which the file
 *   descriptor does not carry
 * @error: return location for a #GError
 *
 * Imports physical memory that another process exported
 * (`cuMemImportFromShareableHandle`), to map it into a #CugiVirtualRange of
 * this process: both see the same bytes.
 *
 * Returns: (transfer full): the memory, or %NULL with @error set
 *   (%CUGI_ERROR_INVALID_ARGUMENT for a negative or closed @fd and a size
 *   that is no multiple of the granularity)
 *
 * Since: 0.1
 */
CugiPhysicalMemory *
cugi_physical_memory_new_from_fd (CugiDevice  *device,
                                  gint         fd,
                                  gsize        size,
                                  GError     **error)
{
  g_autoptr(CugiDevice) resolved = NULL;
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CUmemGenericAllocationHandle handle = 0;
  CUmemAllocationProp prop = { 0 };
  gsize granularity;
  gboolean imported;
  int duplicate;

  g_return_val_if_fail (device == NULL || CUGI_IS_DEVICE (device), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if ((resolved = resolve_device (device, error)) == NULL ||
      !CUGI_REQUIRE_ENTRY_POINT (cuMemImportFromShareableHandle, error) ||
      !CUGI_REQUIRE_ENTRY_POINT (cuMemGetAllocationPropertiesFromHandle, error) ||
      (granularity = cugi_physical_memory_get_granularity (resolved, 0, FALSE, error)) == 0 ||
      !cugi_virtual_memory_check_size (size, granularity, _("imported memory"), error) ||
      !cugi_virtual_memory_enter_device (resolved, &scope, error) ||
      (duplicate = cugi_dup_fd (fd, error)) < 0)
    return NULL;
  /* The driver keeps no descriptor: the duplicate only checks @fd. */
  imported = CUGI_CALL (cuMemImportFromShareableHandle,
                        (&handle, GINT_TO_POINTER (duplicate), CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR), error);
  close (duplicate);
  if (!imported)
    return NULL;
  if (!CUGI_CALL (cuMemGetAllocationPropertiesFromHandle, (&prop, handle), error))
    {
      cugi_cuda.cuMemRelease (handle);
      return NULL;
    }
  return physical_memory_new (g_steal_pointer (&resolved), handle, size, flags_of_properties (&prop));
}

/* INVALID_STATE for an object of g_object_new(), which has no memory. */
static gboolean
check_memory (CugiPhysicalMemory  *self,
              GError             **error)
{
  if (self->handle != 0)
    return TRUE;
  g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE,
                       _("The physical memory was not allocated: make it with cugi_physical_memory_new()"));
  return FALSE;
}

/**
 * cugi_physical_memory_export_fd:
 * @self: a #CugiPhysicalMemory made with
 *   %CUGI_PHYSICAL_MEMORY_FLAGS_EXPORTABLE
 * @error: return location for a #GError
 *
 * A file descriptor of the memory (`cuMemExportToShareableHandle`) for
 * another process to import with cugi_physical_memory_new_from_fd(). Each
 * call gives a new one, which the caller owns: hand it to a child with
 * g_subprocess_launcher_take_fd(), or send it over a UNIX socket
 * (g_unix_fd_list_append()) and close it.
 *
 * Returns: the file descriptor, or -1 with @error set
 *   (%CUGI_ERROR_INVALID_STATE for memory made without
 *   %CUGI_PHYSICAL_MEMORY_FLAGS_EXPORTABLE)
 *
 * Since: 0.1
 */
gint
cugi_physical_memory_export_fd (CugiPhysicalMemory  *self,
                                GError             **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  int fd = -1;

  g_return_val_if_fail (CUGI_IS_PHYSICAL_MEMORY (self), -1);
  g_return_val_if_fail (error == NULL || *error == NULL, -1);

  if (!check_memory (self, error))
    return -1;
  if (!(self->flags & CUGI_PHYSICAL_MEMORY_FLAGS_EXPORTABLE))
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE,
                           _("The physical memory cannot be exported: make it with "
                             "CUGI_PHYSICAL_MEMORY_FLAGS_EXPORTABLE"));
      return -1;
    }
  if (!CUGI_REQUIRE_ENTRY_POINT (cuMemExportToShareableHandle, error) ||
      !cugi_virtual_memory_enter_device (self->device, &scope, error) ||
      !CUGI_CALL (cuMemExportToShareableHandle,
                  (&fd, self->handle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0), error))
    return -1;
  return fd;
}

/* ---- properties ----------------------------------------------------------- */

/**
 * cugi_physical_memory_get_device:
 * @self: a #CugiPhysicalMemory
 *
 * Returns: (transfer none) (nullable): the device whose memory @self is
 *   (#CugiPhysicalMemory:device)
 *
 * Since: 0.1
 */
CugiDevice *
cugi_physical_memory_get_device (CugiPhysicalMemory *self)
{
  g_return_val_if_fail (CUGI_IS_PHYSICAL_MEMORY (self), NULL);

  return self->device;
}

/**
 * cugi_physical_memory_get_size:
 * @self: a #CugiPhysicalMemory
 *
 * Returns: the size of @self in bytes (#CugiPhysicalMemory:size)
 *
 * Since: 0.1
 */
gsize
cugi_physical_memory_get_size (CugiPhysicalMemory *self)
{
  g_return_val_if_fail (CUGI_IS_PHYSICAL_MEMORY (self), 0);

  return self->size;
}

/**
 * cugi_physical_memory_get_flags:
 * @self: a #CugiPhysicalMemory
 *
 * Returns: what @self was made for (#CugiPhysicalMemory:flags)
 *
 * Since: 0.1
 */
CugiPhysicalMemoryFlags
cugi_physical_memory_get_flags (CugiPhysicalMemory *self)
{
  g_return_val_if_fail (CUGI_IS_PHYSICAL_MEMORY (self), 0);

  return self->flags;
}
