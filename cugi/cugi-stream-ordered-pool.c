/* cugi-stream-ordered-pool.c: the driver's pools of memory allocated in
 * stream order (CUmemoryPool) */
#include "config.h"

#include <string.h>
#include <unistd.h>

#include <glib/gi18n-lib.h>

#include "cugi-context-private.h"
#include "cugi-stream-private.h"
#include "cugi-private.h"
#include "cugi-memory-private.h"
#include "cugi-buffer-private.h"
#include "cugi-stream-ordered-pool.h"

/**
 * CugiStreamOrderedPool:
 *
 * A pool of device memory that the driver allocates from and frees to in
 * stream order (`CUmemoryPool`): an allocation is made by the work of a
 * stream, after what was enqueued before it, and a free returns the memory
 * to the pool once the stream reaches it, so that later allocations on that
 * stream, or on streams ordered after it by an event, reuse it without
 * synchronizing.
 *
 * Each device has a default pool (cugi_stream_ordered_pool_get_default()),
 * which cugi_buffer_new_on_stream() allocates from and which the CUDA
 * runtime's `cudaMallocAsync` shares; cugi_stream_ordered_pool_new() makes
 * a pool of your own. cugi_stream_ordered_pool_allocate() gives a
 * #CugiBuffer, freed in stream order when it is freed or finalized (see
 * cugi_buffer_new_on_stream()); buffers keep their pool alive.
 *
 * Memory the pool reserved beyond its release threshold goes back to the
 * system when a stream, an event or the context is synchronized
 * (cugi_stream_ordered_pool_set_release_threshold(); the default threshold
 * is 0, which releases everything unused at each synchronization);
 * cugi_stream_ordered_pool_trim_to() releases unused memory at once. The
 * used and reserved figures, current and highest, tell what the pool holds.
 *
 * |[<!-- language="C" -->
 * g_autoptr(CugiStreamOrderedPool) pool = cugi_stream_ordered_pool_new (device, &error);
 * cugi_stream_ordered_pool_set_release_threshold (pool, G_MAXUINT64, &error);
 * for (int i = 0; i < n_frames; i++)
 *   {
 *     g_autoptr(CugiBuffer) scratch = cugi_stream_ordered_pool_allocate (pool, stream, size, &error);
 *     // ... kernels on stream using scratch; freed on stream when dropped
 *   }
 * ]|
 *
 * ## Sharing with other processes
 *
 * A pool made with cugi_stream_ordered_pool_new_exportable() gives a file
 * descriptor (cugi_stream_ordered_pool_export_fd()) that another process
 * imports (cugi_stream_ordered_pool_new_from_fd()); each buffer allocated
 * from it gives bytes (cugi_stream_ordered_pool_export_buffer()) that the
 * other process opens from the imported pool as a buffer of the same memory
 * (cugi_stream_ordered_pool_import_buffer()). Work in the two processes is
 * ordered with an event of %CUGI_EVENT_FLAGS_INTERPROCESS
 * (cugi_event_get_ipc_handle()): the exporter records it after writing, the
 * importer's stream waits for it before reading. The importer frees its
 * buffer before the exporter frees the memory: the exporter's buffer must
 * stay alive until the other side is done.
 *
 * Since: 0.1
 */

struct _CugiStreamOrderedPool
{
  GObject       parent_instance;

  CugiDevice   *device;
  CUmemoryPool  handle;
  gboolean      is_default;  /* the device's: never destroyed */
  gboolean      exportable;  /* made for POSIX file descriptors */
  gboolean      imported;    /* another process's: its buffers are imported, never allocated */
};

G_DEFINE_FINAL_TYPE (CugiStreamOrderedPool, cugi_stream_ordered_pool, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_DEVICE,
  PROP_IS_DEFAULT,
  PROP_IS_EXPORTABLE,
  PROP_IS_IMPORTED,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
cugi_stream_ordered_pool_finalize (GObject *object)
{
  CugiStreamOrderedPool *self = CUGI_STREAM_ORDERED_POOL (object);
  g_autoptr(GError) error = NULL;

  /* Buffers keep their pool alive, so none is left; frees still in flight
   * return their memory once their streams reach them. */
  if (self->handle != NULL && !self->is_default &&
      !CUGI_CALL (cuMemPoolDestroy, (self->handle), &error))
    g_debug ("Destroying a stream-ordered pool failed: %s", error->message);
  g_clear_object (&self->device);

  G_OBJECT_CLASS (cugi_stream_ordered_pool_parent_class)->finalize (object);
}

static void
cugi_stream_ordered_pool_get_property (GObject    *object,
                                       guint       prop_id,
                                       GValue     *value,
                                       GParamSpec *pspec)
{
  CugiStreamOrderedPool *self = CUGI_STREAM_ORDERED_POOL (object);

  switch (prop_id)
    {
    case PROP_DEVICE:
      g_value_set_object (value, self->device);
      break;
    case PROP_IS_DEFAULT:
      g_value_set_boolean (value, self->is_default);
      break;
    case PROP_IS_EXPORTABLE:
      g_value_set_boolean (value, self->exportable);
      break;
    case PROP_IS_IMPORTED:
      g_value_set_boolean (value, self->imported);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cugi_stream_ordered_pool_class_init (CugiStreamOrderedPoolClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = cugi_stream_ordered_pool_finalize;
  object_class->get_property = cugi_stream_ordered_pool_get_property;

  /**
   * CugiStreamOrderedPool:device:
   *
   * The device whose memory the pool holds.
   *
   * Since: 0.1
   */
  properties[PROP_DEVICE] =
    g_param_spec_object ("device", NULL, NULL, CUGI_TYPE_DEVICE,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * CugiStreamOrderedPool:is-default:
   *
   * Whether this is the device's default pool
   * (cugi_stream_ordered_pool_get_default()), which outlives the object,
   * rather than one made by cugi_stream_ordered_pool_new(), which is
   * destroyed with it.
   *
   * Since: 0.1
   */
  properties[PROP_IS_DEFAULT] =
    g_param_spec_boolean ("is-default", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * CugiStreamOrderedPool:is-exportable:
   *
   * Whether the pool can be shared with other processes
   * (cugi_stream_ordered_pool_new_exportable()).
   *
   * Since: 0.1
   */
  properties[PROP_IS_EXPORTABLE] =
    g_param_spec_boolean ("is-exportable", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * CugiStreamOrderedPool:is-imported:
   *
   * Whether the pool is another process's
   * (cugi_stream_ordered_pool_new_from_fd()), which opens that process's
   * buffers and allocates none.
   *
   * Since: 0.1
   */
  properties[PROP_IS_IMPORTED] =
    g_param_spec_boolean ("is-imported", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
cugi_stream_ordered_pool_init (CugiStreamOrderedPool *self)
{
}

/* The device to use (a new reference), once the driver has stream-ordered
 * pools; NULL with @error set otherwise. */
static CugiDevice *
resolve_device (CugiDevice  *device,
                GError     **error)
{
  if (!cugi_ensure_driver (error))
    return NULL;
  if (cugi_cuda.cuMemPoolGetAttribute == NULL || cugi_cuda.cuMemAllocFromPoolAsync == NULL ||
      cugi_cuda.cuMemFreeAsync == NULL)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_NOT_SUPPORTED,
                           _("This driver cannot allocate memory in stream order"));
      return NULL;
    }
  if (device == NULL)
    return cugi_device_get_default (error);
  if (!cugi_device_check (device, error))
    return NULL;
  return g_object_ref (device);
}

static CugiStreamOrderedPool *
pool_new (CugiDevice   *device,
          CUmemoryPool  handle,
          gboolean      is_default)
{
  CugiStreamOrderedPool *self = g_object_new (CUGI_TYPE_STREAM_ORDERED_POOL, NULL);

  self->device = device;
  self->handle = handle;
  self->is_default = is_default;
  return self;
}

/* A pool of @device's memory of its own (cuMemPoolCreate), shared through
 * @handle_types. */
static CugiStreamOrderedPool *
pool_create (CugiDevice                 *device,
             CUmemAllocationHandleType   handle_types,
             GError                    **error)
{
  g_autoptr(CugiDevice) resolved = NULL;
  CugiStreamOrderedPool *self;
  CUmemPoolProps props = { 0 };
  CUmemoryPool handle = NULL;

  if ((resolved = resolve_device (device, error)) == NULL)
    return NULL;
  props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  props.handleTypes = handle_types;
  props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  props.location.id = cugi_device_get_handle (resolved);
  if (!CUGI_CALL (cuMemPoolCreate, (&handle, &props), error))
    return NULL;
  self = pool_new (g_steal_pointer (&resolved), handle, FALSE);
  self->exportable = handle_types != CU_MEM_HANDLE_TYPE_NONE;
  return self;
}

/**
 * cugi_stream_ordered_pool_get_default:
 * @device: (nullable): a device, or %NULL for the default device
 * @error: return location for a #GError
 *
 * The default pool of @device (`cuDeviceGetDefaultMemPool`), which
 * cugi_buffer_new_on_stream() and the CUDA runtime's `cudaMallocAsync`
 * allocate from. Each call gives a new object for the same pool; the pool
 * itself lives as long as the device.
 *
 * Returns: (transfer full): the pool, or %NULL with @error set
 *   (%CUGI_ERROR_NOT_SUPPORTED where the driver or the device has no
 *   stream-ordered allocator)
 *
 * Since: 0.1
 */
CugiStreamOrderedPool *
cugi_stream_ordered_pool_get_default (CugiDevice  *device,
                                      GError     **error)
{
  g_autoptr(CugiDevice) resolved = NULL;
  CUmemoryPool handle = NULL;

  g_return_val_if_fail (device == NULL || CUGI_IS_DEVICE (device), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if ((resolved = resolve_device (device, error)) == NULL ||
      !CUGI_CALL (cuDeviceGetDefaultMemPool, (&handle, cugi_device_get_handle (resolved)), error))
    return NULL;
  return pool_new (g_steal_pointer (&resolved), handle, TRUE);
}

/**
 * cugi_stream_ordered_pool_new:
 * @device: (nullable): the device whose memory the pool holds, or %NULL for
 *   the default device
 * @error: return location for a #GError
 *
 * Makes a pool of @device's memory of its own (`cuMemPoolCreate`), with the
 * driver's defaults: a release threshold of 0, not shared with other
 * processes. It is destroyed when the object is finalized, which buffers
 * allocated from it prevent while they live.
 *
 * Returns: (transfer full): the new pool, or %NULL with @error set
 *   (%CUGI_ERROR_NOT_SUPPORTED where the driver or the device has no
 *   stream-ordered allocator)
 *
 * Since: 0.1
 */
CugiStreamOrderedPool *
cugi_stream_ordered_pool_new (CugiDevice  *device,
                              GError     **error)
{
  g_return_val_if_fail (device == NULL || CUGI_IS_DEVICE (device), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return pool_create (device, CU_MEM_HANDLE_TYPE_NONE, error);
}

/**
 * cugi_stream_ordered_pool_get_device:
 * @self: a #CugiStreamOrderedPool
 *
 * Returns: (transfer none): the device whose memory @self holds
 *   (#CugiStreamOrderedPool:device)
 *
 * Since: 0.1
 */
CugiDevice *
cugi_stream_ordered_pool_get_device (CugiStreamOrderedPool *self)
{
  g_return_val_if_fail (CUGI_IS_STREAM_ORDERED_POOL (self), NULL);

  return self->device;
}

/**
 * cugi_stream_ordered_pool_is_default:
 * @self: a #CugiStreamOrderedPool
 *
 * Returns: whether @self is its device's default pool
 *   (#CugiStreamOrderedPool:is-default)
 *
 * Since: 0.1
 */
gboolean
cugi_stream_ordered_pool_is_default (CugiStreamOrderedPool *self)
{
  g_return_val_if_fail (CUGI_IS_STREAM_ORDERED_POOL (self), FALSE);

  return self->is_default;
}

/**
 * cugi_stream_ordered_pool_is_exportable:
 * @self: a #CugiStreamOrderedPool
 *
 * Returns: whether @self can be shared with other processes
 *   (#CugiStreamOrderedPool:is-exportable)
 *
 * Since: 0.1
 */
gboolean
cugi_stream_ordered_pool_is_exportable (CugiStreamOrderedPool *self)
{
  g_return_val_if_fail (CUGI_IS_STREAM_ORDERED_POOL (self), FALSE);

  return self->exportable;
}

/**
 * cugi_stream_ordered_pool_is_imported:
 * @self: a #CugiStreamOrderedPool
 *
 * Returns: whether @self is another process's pool
 *   (#CugiStreamOrderedPool:is-imported)
 *
 * Since: 0.1
 */
gboolean
cugi_stream_ordered_pool_is_imported (CugiStreamOrderedPool *self)
{
  g_return_val_if_fail (CUGI_IS_STREAM_ORDERED_POOL (self), FALSE);

  return self->imported;
}

/* INVALID_STATE for a pool made with g_object_new(), which has none. */
static gboolean
check_pool (CugiStreamOrderedPool  *self,
            GError                **error)
{
  if (self->handle != NULL)
    return TRUE;
  g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE,
                       _("The pool has no driver pool: make it with cugi_stream_ordered_pool_new() "
                         "or cugi_stream_ordered_pool_get_default()"));
  return FALSE;
}

/* The context of @stream (a new reference), which must be on the pool's
 * device. */
static CugiContext *
resolve_stream_context (CugiStreamOrderedPool  *self,
                        CugiStream             *stream,
                        GError                **error)
{
  g_autoptr(CugiContext) context =
    cugi_context_resolve (stream != NULL ? cugi_stream_get_context (stream) : NULL, error);

  if (context == NULL)
    return NULL;
  if (cugi_device_get_handle (cugi_context_get_device (context)) != cugi_device_get_handle (self->device))
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("The stream is on cuda:%d, the pool holds memory of cuda:%d"),
                   cugi_device_get_ordinal (cugi_context_get_device (context)),
                   cugi_device_get_ordinal (self->device));
      return NULL;
    }
  return g_steal_pointer (&context);
}

/**
 * cugi_stream_ordered_pool_allocate:
 * @self: a #CugiStreamOrderedPool
 * @stream: (nullable): the stream to allocate on, or %NULL for the legacy
 *   default stream of the default context; its context must be on the
 *   pool's device
 * @size: the size in bytes; 0 gives a zero-size buffer, which allocates
 *   nothing
 * @error: return location for a #GError
 *
 * Allocates @size bytes from @self in stream order
 * (`cuMemAllocFromPoolAsync`): as cugi_buffer_new_on_stream() does from the
 * default pool. The buffer belongs to the stream's context, keeps @self
 * alive, and is freed in stream order on @stream (or the stream given to
 * cugi_buffer_free_on_stream()) when it is freed or finalized and the work
 * in flight that uses it has completed.
 *
 * Returns: (transfer full): the new buffer, or %NULL with @error set
 *   (%CUGI_ERROR_INVALID_ARGUMENT for a stream of another device,
 *   %CUGI_ERROR_OUT_OF_MEMORY when the pool cannot grow)
 *
 * Since: 0.1
 */
CugiBuffer *
cugi_stream_ordered_pool_allocate (CugiStreamOrderedPool  *self,
                                   CugiStream             *stream,
                                   gsize                   size,
                                   GError                **error)
{
  g_autoptr(CugiContext) context = NULL;
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CugiStream *target;
  CUdeviceptr address = 0;

  g_return_val_if_fail (CUGI_IS_STREAM_ORDERED_POOL (self), NULL);
  g_return_val_if_fail (stream == NULL || CUGI_IS_STREAM (stream), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (self->imported)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE,
                           _("An imported pool allocates nothing: open the exporter’s buffers with "
                             "cugi_stream_ordered_pool_import_buffer()"));
      return NULL;
    }
  if (!check_pool (self, error) || (context = resolve_stream_context (self, stream, error)) == NULL)
    return NULL;
  if (size == 0)
    return cugi_buffer_new_on_stream (stream, 0, error);
  target = cugi_stream_resolve (stream, context);
  if (!cugi_context_enter (context, &scope, error) ||
      !CUGI_CALL (cuMemAllocFromPoolAsync, (&address, size, self->handle, cugi_stream_get_handle (target)),
                  error))
    return NULL;
  return cugi_buffer_new_stream_ordered (target, address, size, g_object_ref (self), g_object_unref);
}

/* ---- sharing with other processes ----------------------------------------- */

/* What cugi_stream_ordered_pool_export_buffer() gives: the driver's export
 * data, then the buffer's size, which the driver's data does not tell the
 * importer. */
typedef struct
{
  CUmemPoolPtrExportData data;
  guint64                size;
} SharedBuffer;

static gboolean
require_sharing (GError **error)
{
  return CUGI_REQUIRE_ENTRY_POINT (cuMemPoolExportToShareableHandle, error) &&
         CUGI_REQUIRE_ENTRY_POINT (cuMemPoolImportFromShareableHandle, error) &&
         CUGI_REQUIRE_ENTRY_POINT (cuMemPoolExportPointer, error) &&
         CUGI_REQUIRE_ENTRY_POINT (cuMemPoolImportPointer, error);
}

/* INVALID_STATE unless @self is a pool of this process made exportable. */
static gboolean
check_exportable (CugiStreamOrderedPool  *self,
                  GError                **error)
{
  if (!check_pool (self, error))
    return FALSE;
  if (self->exportable && !self->imported)
    return TRUE;
  g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE,
                       _("The pool cannot be exported: make it with "
                         "cugi_stream_ordered_pool_new_exportable()"));
  return FALSE;
}

/**
 * cugi_stream_ordered_pool_new_exportable:
 * @device: (nullable): the device whose memory the pool holds, or %NULL for
 *   the default device
 * @error: return location for a #GError
 *
 * cugi_stream_ordered_pool_new(), with a pool that other processes can
 * share (`cuMemPoolCreate` with POSIX file descriptors as its handle type):
 * see cugi_stream_ordered_pool_export_fd().
 *
 * Returns: (transfer full): the new pool, or %NULL with @error set
 *   (%CUGI_ERROR_NOT_SUPPORTED where the device cannot share pools through
 *   file descriptors)
 *
 * Since: 0.1
 */
CugiStreamOrderedPool *
cugi_stream_ordered_pool_new_exportable (CugiDevice  *device,
                                         GError     **error)
{
  g_autoptr(CugiDevice) resolved = NULL;
  gint handle_types;

  g_return_val_if_fail (device == NULL || CUGI_IS_DEVICE (device), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if ((resolved = resolve_device (device, error)) == NULL || !require_sharing (error) ||
      (handle_types = cugi_device_get_attribute (resolved, CUGI_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES,
                                                 error)) < 0)
    return NULL;
  if (!(handle_types & CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR))
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_NOT_SUPPORTED,
                   _("cuda:%d cannot share stream-ordered pools through file descriptors"),
                   cugi_device_get_ordinal (resolved));
      return NULL;
    }
  return pool_create (resolved, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, error);
}

/**
 * cugi_stream_ordered_pool_export_fd:
 * @self: a pool made with cugi_stream_ordered_pool_new_exportable()
 * @error: return location for a #GError
 *
 * A file descriptor of the pool (`cuMemPoolExportToShareableHandle`), for
 * another process to import with cugi_stream_ordered_pool_new_from_fd().
 * The caller owns it: hand it to a child with
 * g_subprocess_launcher_take_fd(), or send it over a UNIX socket and close
 * it.
 *
 * Returns: the file descriptor, or -1 with @error set
 *   (%CUGI_ERROR_INVALID_STATE for a pool that is not exportable)
 *
 * Since: 0.1
 */
gint
cugi_stream_ordered_pool_export_fd (CugiStreamOrderedPool  *self,
                                    GError                **error)
{
  int fd = -1;

  g_return_val_if_fail (CUGI_IS_STREAM_ORDERED_POOL (self), -1);
  g_return_val_if_fail (error == NULL || *error == NULL, -1);

  if (!check_exportable (self, error))
    return -1;
  if (!CUGI_CALL (cuMemPoolExportToShareableHandle,
                  (&fd, self->handle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0), error))
    return -1;
  return fd;
}

/**
 * cugi_stream_ordered_pool_new_from_fd:
 * @device: (nullable): the device the pool is on, as this process numbers
 *   devices, or %NULL for the default device
 * @fd: a file descriptor from cugi_stream_ordered_pool_export_fd() in
 *   another process; the caller keeps it
 * @error: return location for a #GError
 *
 * Imports another process's pool (`cuMemPoolImportFromShareableHandle`),
 * from which cugi_stream_ordered_pool_import_buffer() opens the buffers
 * that process exports. An imported pool allocates nothing.
 *
 * Returns: (transfer full): the imported pool, or %NULL with @error set
 *   (%CUGI_ERROR_INVALID_ARGUMENT for a negative or closed @fd)
 *
 * Since: 0.1
 */
CugiStreamOrderedPool *
cugi_stream_ordered_pool_new_from_fd (CugiDevice  *device,
                                      gint         fd,
                                      GError     **error)
{
  g_autoptr(CugiDevice) resolved = NULL;
  CugiStreamOrderedPool *self;
  CUmemoryPool handle = NULL;
  gboolean imported;
  int duplicate;

  g_return_val_if_fail (device == NULL || CUGI_IS_DEVICE (device), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if ((resolved = resolve_device (device, error)) == NULL || !require_sharing (error) ||
      (duplicate = cugi_dup_fd (fd, error)) < 0)
    return NULL;
  /* The driver keeps no descriptor: the duplicate only checks @fd. */
  imported = CUGI_CALL (cuMemPoolImportFromShareableHandle,
                        (&handle, GINT_TO_POINTER (duplicate), CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
                        error);
  close (duplicate);
  if (!imported)
    return NULL;
  self = pool_new (g_steal_pointer (&resolved), handle, FALSE);
  self->imported = TRUE;
  return self;
}

/**
 * cugi_stream_ordered_pool_export_buffer:
 * @self: a pool made with cugi_stream_ordered_pool_new_exportable()
 * @buffer: a buffer allocated from @self (not a view of one)
 * @error: return location for a #GError
 *
 * What another process that imported @self needs to open @buffer
 * (`cuMemPoolExportPointer`): bytes to send it any way, for
 * cugi_stream_ordered_pool_import_buffer(). @buffer must stay alive until
 * the other process has freed its buffer.
 *
 * Returns: (transfer full): the bytes, or %NULL with @error set
 *   (%CUGI_ERROR_INVALID_ARGUMENT for a buffer of another pool)
 *
 * Since: 0.1
 */
GBytes *
cugi_stream_ordered_pool_export_buffer (CugiStreamOrderedPool  *self,
                                        CugiBuffer             *buffer,
                                        GError                **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  SharedBuffer shared;

  g_return_val_if_fail (CUGI_IS_STREAM_ORDERED_POOL (self), NULL);
  g_return_val_if_fail (CUGI_IS_BUFFER (buffer), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!check_exportable (self, error) || !cugi_buffer_check_usable (buffer, error))
    return NULL;
  if (buffer->memory != BUFFER_MEMORY_STREAM_ORDERED || buffer->release_data != self || buffer->size == 0)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                           _("The buffer was not allocated from this pool"));
      return NULL;
    }
  memset (&shared, 0, sizeof shared);
  shared.size = buffer->size;
  if (!cugi_context_enter (buffer->ownership.binding.context, &scope, error) ||
      !CUGI_CALL (cuMemPoolExportPointer, (&shared.data, buffer->address), error))
    return NULL;
  return g_bytes_new (&shared, sizeof shared);
}

/**
 * cugi_stream_ordered_pool_import_buffer:
 * @self: a pool imported with cugi_stream_ordered_pool_new_from_fd()
 * @exported: what cugi_stream_ordered_pool_export_buffer() gave the
 *   exporting process
 * @stream: (nullable): the stream to free the buffer on, or %NULL for the
 *   legacy default stream of the default context; its context must be on
 *   the pool's device
 * @error: return location for a #GError
 *
 * Opens a buffer of the exporting process (`cuMemPoolImportPointer`): the
 * same memory, of the same size. Its contents are the exporter's once its
 * work is ordered before this process's (an IPC event the exporter
 * recorded, made to wait for with cugi_stream_wait_event()). The buffer
 * keeps @self alive and is freed in stream order on @stream, which must
 * happen before the exporter frees its own.
 *
 * Returns: (transfer full): the buffer, or %NULL with @error set
 *   (%CUGI_ERROR_INVALID_ARGUMENT for bytes of the wrong size)
 *
 * Since: 0.1
 */
CugiBuffer *
cugi_stream_ordered_pool_import_buffer (CugiStreamOrderedPool  *self,
                                        GBytes                 *exported,
                                        CugiStream             *stream,
                                        GError                **error)
{
  g_autoptr(CugiContext) context = NULL;
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  SharedBuffer shared;
  CUdeviceptr address = 0;
  CugiStream *target;

  g_return_val_if_fail (CUGI_IS_STREAM_ORDERED_POOL (self), NULL);
  g_return_val_if_fail (exported != NULL, NULL);
  g_return_val_if_fail (stream == NULL || CUGI_IS_STREAM (stream), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!check_pool (self, error))
    return NULL;
  if (!self->imported)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE,
                           _("Buffers are imported from a pool of another process: import it with "
                             "cugi_stream_ordered_pool_new_from_fd()"));
      return NULL;
    }
  if (g_bytes_get_size (exported) != sizeof shared)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("The exported buffer is %zu bytes, not %zu"), g_bytes_get_size (exported), sizeof shared);
      return NULL;
    }
  memcpy (&shared, g_bytes_get_data (exported, NULL), sizeof shared);
  if (shared.size == 0 || shared.size > G_MAXSIZE)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                           _("The exported buffer’s size is not one of a buffer"));
      return NULL;
    }
  if ((context = resolve_stream_context (self, stream, error)) == NULL)
    return NULL;
  target = cugi_stream_resolve (stream, context);
  if (!cugi_context_enter (context, &scope, error) ||
      !CUGI_CALL (cuMemPoolImportPointer, (&address, self->handle, &shared.data), error))
    return NULL;
  return cugi_buffer_new_stream_ordered (target, address, shared.size, g_object_ref (self), g_object_unref);
}

/* ---- attributes ----------------------------------------------------------- */

static gboolean
get_attribute (CugiStreamOrderedPool  *self,
               CUmemPool_attribute     attribute,
               guint64                *value,
               GError                **error)
{
  cuuint64_t read = 0;

  *value = 0;
  if (!check_pool (self, error) ||
      !CUGI_CALL (cuMemPoolGetAttribute, (self->handle, attribute, &read), error))
    return FALSE;
  *value = read;
  return TRUE;
}

static gboolean
set_attribute (CugiStreamOrderedPool  *self,
               CUmemPool_attribute     attribute,
               guint64                 value,
               GError                **error)
{
  cuuint64_t written = value;

  return check_pool (self, error) &&
         CUGI_CALL (cuMemPoolSetAttribute, (self->handle, attribute, &written), error);
}

/* The body of the getters that return a figure, 0 on failure. */
static guint64
read_figure (CugiStreamOrderedPool  *self,
             CUmemPool_attribute     attribute,
             GError                **error)
{
  guint64 value;

  get_attribute (self, attribute, &value, error);
  return value;
}

/**
 * cugi_stream_ordered_pool_get_release_threshold:
 * @self: a #CugiStreamOrderedPool
 * @error: return location for a #GError
 *
 * Returns: how many reserved bytes @self keeps when a stream, an event or
 *   the context is synchronized (`CU_MEMPOOL_ATTR_RELEASE_THRESHOLD`); 0
 *   with @error set on failure
 *
 * Since: 0.1
 */
guint64
cugi_stream_ordered_pool_get_release_threshold (CugiStreamOrderedPool  *self,
                                                GError                **error)
{
  g_return_val_if_fail (CUGI_IS_STREAM_ORDERED_POOL (self), 0);
  g_return_val_if_fail (error == NULL || *error == NULL, 0);

  return read_figure (self, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, error);
}

/**
 * cugi_stream_ordered_pool_set_release_threshold:
 * @self: a #CugiStreamOrderedPool
 * @threshold: the number of reserved bytes to keep at a synchronization;
 *   %G_MAXUINT64 keeps everything until cugi_stream_ordered_pool_trim_to()
 * @error: return location for a #GError
 *
 * Sets how much memory @self keeps reserved for reuse when a stream, an
 * event or the context is synchronized; what is reserved beyond it, and
 * unused, goes back to the system then (`CU_MEMPOOL_ATTR_RELEASE_THRESHOLD`).
 * A program that allocates and frees a working set in each frame sets it
 * to at least that set, so that the allocations reuse memory.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
cugi_stream_ordered_pool_set_release_threshold (CugiStreamOrderedPool  *self,
                                                guint64                 threshold,
                                                GError                **error)
{
  g_return_val_if_fail (CUGI_IS_STREAM_ORDERED_POOL (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return set_attribute (self, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, threshold, error);
}

/**
 * cugi_stream_ordered_pool_trim_to:
 * @self: a #CugiStreamOrderedPool
 * @min_bytes_to_keep: how many reserved bytes may stay
 * @error: return location for a #GError
 *
 * Returns unused memory of @self to the system now (`cuMemPoolTrimTo`),
 * until @self reserves at most @min_bytes_to_keep bytes or has no unused
 * memory left. Memory that buffers use, and memory whose free has not yet
 * been reached on its stream, stays.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
cugi_stream_ordered_pool_trim_to (CugiStreamOrderedPool  *self,
                                  guint64                 min_bytes_to_keep,
                                  GError                **error)
{
  g_return_val_if_fail (CUGI_IS_STREAM_ORDERED_POOL (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return check_pool (self, error) &&
         CUGI_CALL (cuMemPoolTrimTo, (self->handle, min_bytes_to_keep), error);
}

/**
 * cugi_stream_ordered_pool_get_used_current:
 * @self: a #CugiStreamOrderedPool
 * @error: return location for a #GError
 *
 * Returns: the bytes of @self that allocations use now
 *   (`CU_MEMPOOL_ATTR_USED_MEM_CURRENT`); 0 with @error set on failure
 *
 * Since: 0.1
 */
guint64
cugi_stream_ordered_pool_get_used_current (CugiStreamOrderedPool  *self,
                                           GError                **error)
{
  g_return_val_if_fail (CUGI_IS_STREAM_ORDERED_POOL (self), 0);
  g_return_val_if_fail (error == NULL || *error == NULL, 0);

  return read_figure (self, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, error);
}

/**
 * cugi_stream_ordered_pool_get_used_high:
 * @self: a #CugiStreamOrderedPool
 * @error: return location for a #GError
 *
 * Returns: the most bytes of @self that allocations used at once since the
 *   pool was made or cugi_stream_ordered_pool_reset_high()
 *   (`CU_MEMPOOL_ATTR_USED_MEM_HIGH`); 0 with @error set on failure
 *
 * Since: 0.1
 */
guint64
cugi_stream_ordered_pool_get_used_high (CugiStreamOrderedPool  *self,
                                        GError                **error)
{
  g_return_val_if_fail (CUGI_IS_STREAM_ORDERED_POOL (self), 0);
  g_return_val_if_fail (error == NULL || *error == NULL, 0);

  return read_figure (self, CU_MEMPOOL_ATTR_USED_MEM_HIGH, error);
}

/**
 * cugi_stream_ordered_pool_get_reserved_current:
 * @self: a #CugiStreamOrderedPool
 * @error: return location for a #GError
 *
 * Returns: the bytes of device memory @self holds now, used or kept for
 *   reuse (`CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT`); 0 with @error set on
 *   failure
 *
 * Since: 0.1
 */
guint64
cugi_stream_ordered_pool_get_reserved_current (CugiStreamOrderedPool  *self,
                                               GError                **error)
{
  g_return_val_if_fail (CUGI_IS_STREAM_ORDERED_POOL (self), 0);
  g_return_val_if_fail (error == NULL || *error == NULL, 0);

  return read_figure (self, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, error);
}

/**
 * cugi_stream_ordered_pool_get_reserved_high:
 * @self: a #CugiStreamOrderedPool
 * @error: return location for a #GError
 *
 * Returns: the most bytes of device memory @self held at once since the
 *   pool was made or cugi_stream_ordered_pool_reset_high()
 *   (`CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH`); 0 with @error set on failure
 *
 * Since: 0.1
 */
guint64
cugi_stream_ordered_pool_get_reserved_high (CugiStreamOrderedPool  *self,
                                            GError                **error)
{
  g_return_val_if_fail (CUGI_IS_STREAM_ORDERED_POOL (self), 0);
  g_return_val_if_fail (error == NULL || *error == NULL, 0);

  return read_figure (self, CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH, error);
}

/**
 * cugi_stream_ordered_pool_reset_high:
 * @self: a #CugiStreamOrderedPool
 * @error: return location for a #GError
 *
 * Starts both high figures (cugi_stream_ordered_pool_get_used_high(),
 * cugi_stream_ordered_pool_get_reserved_high()) again from the current
 * ones.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
cugi_stream_ordered_pool_reset_high (CugiStreamOrderedPool  *self,
                                     GError                **error)
{
  g_return_val_if_fail (CUGI_IS_STREAM_ORDERED_POOL (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  /* The driver takes only 0 for these two. */
  return set_attribute (self, CU_MEMPOOL_ATTR_USED_MEM_HIGH, 0, error) &&
         set_attribute (self, CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH, 0, error);
}
