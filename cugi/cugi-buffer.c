/* cugi-buffer.c: device memory: the object, what memory it owns and how it
 * releases it, its constructors and properties */
#include "config.h"

#include <string.h>
#include <glib/gi18n-lib.h>

#include "cugi-context-private.h"
#include "cugi-private.h"
#include "cugi-memory-private.h"
#include "cugi-buffer-private.h"
#include "cugi-stream-private.h"

/**
 * CugiBuffer:
 *
 * A range of device memory: linear (cugi_buffer_new()), pitched for 2D data
 * (cugi_buffer_new_pitched()), managed (cugi_buffer_new_managed()), taken
 * from a #CugiMemoryPool, allocated in stream order
 * (cugi_buffer_new_on_stream(), a #CugiStreamOrderedPool), opened from
 * another process's IPC handle
 * (cugi_buffer_new_from_ipc_handle()), or a view over part of another buffer
 * (cugi_buffer_new_view()).
 *
 * Every call makes the buffer's context current for its duration. Offsets
 * and sizes are in bytes and checked before the driver is called: a range
 * that does not fit, including one whose end would overflow, fails with
 * %CUGI_ERROR_INVALID_ARGUMENT naming the offset, the size and the buffer's
 * size.
 *
 * ## Streams and lifetimes
 *
 * Methods that take a #CugiStream enqueue their work on it and return before
 * it runs; %NULL means the context's legacy default stream, which orders the
 * work with everything else enqueued there. The stream must belong to the
 * buffer's context (for copies, the destination's), or the call fails with
 * %CUGI_ERROR_INVALID_CONTEXT. Work in flight keeps every
 * buffer, host buffer and #GBytes it uses alive, whatever the caller drops:
 * even cugi_buffer_free() only gives the memory back once that work has
 * completed. Methods without a stream argument (cugi_buffer_upload(),
 * cugi_buffer_download() and their 2D and 3D forms) return once the host
 * memory they read or write is no longer needed.
 *
 * ## Freeing early
 *
 * The memory is released when the last reference goes, or earlier with
 * cugi_buffer_free(), once the work in flight that uses it has completed,
 * whatever else still holds the buffer: references, views, argument lists
 * kept for launches to come. After that every method fails with
 * %CUGI_ERROR_INVALID_STATE ("the buffer was freed"), freeing again
 * included, and so does the next launch of a list that holds it;
 * #CugiBuffer:device-pointer reads 0. Views keep their parent alive, but
 * freeing the parent makes its views unusable in the same way, and freeing
 * a host buffer its device buffers (cugi_host_buffer_get_device_buffer()).
 * After cugi_context_reset() the memory is gone and every method fails with
 * %CUGI_ERROR_INVALID_CONTEXT.
 *
 * ## Zero-size buffers
 *
 * A buffer may have 0 bytes: cugi_buffer_new() then allocates nothing and
 * #CugiBuffer:device-pointer is 0. Transfers, copies and memsets of 0 bytes
 * succeed without calling the driver, as long as their offset is within the
 * buffer (for a zero-size buffer, offset 0), and views of 0 bytes may be made
 * at any offset up to the size. A zero-size buffer has no IPC handle.
 *
 * Since: 0.1
 */

G_DEFINE_FINAL_TYPE (CugiBuffer, cugi_buffer, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_CONTEXT,
  PROP_SIZE,
  PROP_DEVICE_POINTER,
  PROP_PITCH,
  PROP_MANAGED,
  PROP_FREED,
  PROP_PARENT,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* ---- memory and its release ----------------------------------------------- */

/* cuMemFreeAsync on the stream it is to be freed on; then lets go of that
 * stream and of the pool the memory came from. */
static gboolean
release_stream_ordered (CugiBuffer  *self,
                        GError     **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  g_autoptr(CugiStream) stream = g_steal_pointer (&self->free_stream);
  gboolean ok = TRUE;

  /* A reset context took the memory with it. */
  if (cugi_context_binding_is_current (&self->ownership.binding))
    ok = cugi_context_enter (self->ownership.binding.context, &scope, error) &&
         CUGI_CALL (cuMemFreeAsync, (self->address, cugi_stream_get_handle (stream)), error);
  if (self->release_notify != NULL)
    self->release_notify (self->release_data);
  self->release_data = NULL;
  self->release_notify = NULL;
  return ok;
}

static gboolean
release_memory (gpointer   owner,
                GError   **error)
{
  CugiBuffer *self = owner;
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;

  switch (self->memory)
    {
    case BUFFER_MEMORY_NONE:
    case BUFFER_MEMORY_VIEW:
    case BUFFER_MEMORY_MAPPED_HOST:
      return TRUE;

    case BUFFER_MEMORY_HELD:
      if (self->release_notify != NULL)
        self->release_notify (self->release_data);
      self->release_data = NULL;
      self->release_notify = NULL;
      return TRUE;

    case BUFFER_MEMORY_POOLED:
      return cugi_memory_ownership_give_back (&self->ownership, self->address, self->size, error);

    case BUFFER_MEMORY_STREAM_ORDERED:
      return release_stream_ordered (self, error);

    case BUFFER_MEMORY_DEVICE:
    case BUFFER_MEMORY_IPC:
      /* A reset context took the memory with it. */
      if (!cugi_context_binding_is_current (&self->ownership.binding))
        return TRUE;
      if (!cugi_context_enter (self->ownership.binding.context, &scope, error))
        return FALSE;
      return cugi_synchronizing_release (self->ownership.binding.context,
                                         self->memory == BUFFER_MEMORY_IPC ? CUGI_RELEASE_IPC_MAPPING
                                                                           : CUGI_RELEASE_DEVICE_MEMORY,
                                         self->address, error);
    }
  g_assert_not_reached ();
}

CugiBuffer *
cugi_buffer_new_owning (CugiContext  *context,
                        CUdeviceptr   address,
                        gsize         size,
                        BufferMemory  memory)
{
  CugiBuffer *self = g_object_new (CUGI_TYPE_BUFFER, NULL);

  cugi_memory_ownership_set_context (&self->ownership, context);
  self->address = address;
  self->size = size;
  self->memory = memory;
  return self;
}

void
cugi_buffer_set_size (CugiBuffer *self,
                      gsize       size)
{
  self->size = size;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SIZE]);
}

gboolean
cugi_buffer_check_usable (CugiBuffer  *self,
                          GError     **error)
{
  /* The buffer's own free comes first; then the memory's owner's, a view's
   * parent or a mapping's host buffer, whose context the buffer has. */
  if (!cugi_memory_lifetime_is_freed (&self->ownership.lifetime))
    {
      const char *owner_freed = NULL;

      if (self->parent != NULL && cugi_memory_lifetime_is_freed (&self->parent->ownership.lifetime))
        owner_freed = _("The buffer was freed: it is a view of a buffer that was freed");
      else if (self->host != NULL && cugi_memory_lifetime_is_freed (cugi_host_buffer_get_lifetime (self->host)))
        owner_freed = _("The buffer was freed: it is the device's mapping of a host buffer that was freed");
      if (owner_freed != NULL)
        {
          g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE, owner_freed);
          return FALSE;
        }
    }
  return cugi_memory_ownership_check (&self->ownership, N_("The buffer was freed"),
                                      N_("The buffer was freed: its context was reset"), error);
}

gboolean
cugi_buffer_check_usable_range (CugiBuffer  *self,
                                gsize        offset,
                                gsize        size,
                                const char  *what,
                                GError     **error)
{
  return cugi_buffer_check_usable (self, error) &&
         cugi_memory_check_range (self->size, offset, size, what, error);
}

/* A use of @self's memory, which is its parent's for a view and its host
 * buffer's for a mapping: by work in flight, or by @hold. */
static void
begin_use (CugiBuffer     *self,
           CugiMemoryHold *hold)
{
  g_object_ref (self);
  cugi_memory_lifetime_begin_hold (&self->ownership.lifetime, hold);
  if (self->parent != NULL)
    cugi_memory_lifetime_begin_hold (&self->parent->ownership.lifetime, hold);
  if (self->host != NULL)
    cugi_memory_lifetime_begin_hold (cugi_host_buffer_get_lifetime (self->host), hold);
}

static void
end_use (gpointer        buffer,
         CugiMemoryHold *hold)
{
  CugiBuffer *self = buffer;

  if (self->host != NULL)
    cugi_memory_lifetime_end_hold (cugi_host_buffer_get_lifetime (self->host), hold);
  if (self->parent != NULL)
    cugi_memory_lifetime_end_hold (&self->parent->ownership.lifetime, hold);
  cugi_memory_lifetime_end_hold (&self->ownership.lifetime, hold);
  g_object_unref (self);
}

gpointer
cugi_buffer_begin_work (CugiBuffer *self)
{
  begin_use (self, NULL);
  return self;
}

void
cugi_buffer_end_work (gpointer buffer)
{
  end_use (buffer, NULL);
}

CugiMemoryHold *
cugi_buffer_hold_new (CugiMemoryLetGoFunc let_go,
                      gpointer            owner,
                      guint               max_buffers)
{
  return cugi_memory_hold_new (end_use, let_go, owner, max_buffers);
}

void
cugi_buffer_hold (CugiBuffer     *self,
                  CugiMemoryHold *hold)
{
  begin_use (self, hold);
  cugi_memory_hold_add (hold, self);
}

void
cugi_buffer_track_work (CugiStream     *stream,
                        CugiBuffer     *buffer,
                        CugiBuffer     *other_buffer,
                        CugiHostBuffer *host_buffer,
                        GBytes         *bytes)
{
  GPtrArray *resources = cugi_work_resources_new ();

  cugi_work_resources_add (resources, cugi_buffer_begin_work (buffer), cugi_buffer_end_work);
  if (other_buffer != NULL)
    cugi_work_resources_add (resources, cugi_buffer_begin_work (other_buffer), cugi_buffer_end_work);
  if (host_buffer != NULL)
    cugi_work_resources_add (resources, cugi_host_buffer_begin_work (host_buffer),
                             cugi_host_buffer_end_work);
  if (bytes != NULL)
    cugi_work_resources_add (resources, g_bytes_ref (bytes), (GDestroyNotify) g_bytes_unref);
  cugi_work_track (stream, NULL, resources);
}

gboolean
cugi_buffer_enter_for_stream (CugiBuffer        *self,
                              CugiStream        *stream,
                              CugiContextScope  *scope,
                              CugiStream       **target,
                              GError           **error)
{
  CugiContext *context = self->ownership.binding.context;

  if (!cugi_context_binding_check_same_context (&self->ownership.binding,
                                                stream != NULL ? cugi_stream_get_context (stream) : context,
                                                N_("The stream belongs to another context than the buffer"),
                                                error) ||
      !cugi_context_enter (context, scope, error))
    return FALSE;
  *target = cugi_stream_resolve (stream, context);
  return TRUE;
}

/* ---- private constructors ------------------------------------------------- */

CugiBuffer *
cugi_buffer_new_holding (CugiContext    *context,
                         CUdeviceptr     address,
                         gsize           size,
                         gpointer        release_data,
                         GDestroyNotify  release_notify)
{
  CugiBuffer *self = cugi_buffer_new_owning (context, address, size, BUFFER_MEMORY_HELD);

  self->release_data = release_data;
  self->release_notify = release_notify;
  return self;
}

CugiBuffer *
cugi_buffer_new_wrapping (CugiContext *context,
                          CUdeviceptr  address,
                          gsize        size,
                          GObject     *owner)
{
  return cugi_buffer_new_holding (context, address, size,
                                  owner != NULL ? g_object_ref (owner) : NULL,
                                  owner != NULL ? g_object_unref : NULL);
}

CugiBuffer *
cugi_buffer_new_pooled (CugiPoolCore *pool,
                        CUdeviceptr   address,
                        gsize         size)
{
  CugiBuffer *self = cugi_buffer_new_owning (pool->context, address, size, BUFFER_MEMORY_POOLED);

  cugi_memory_ownership_set_pool (&self->ownership, pool);
  return self;
}

CugiBuffer *
cugi_buffer_new_stream_ordered (CugiStream     *stream,
                                CUdeviceptr     address,
                                gsize           size,
                                gpointer        pool,
                                GDestroyNotify  pool_notify)
{
  CugiBuffer *self = cugi_buffer_new_owning (cugi_stream_get_context (stream), address, size,
                                             BUFFER_MEMORY_STREAM_ORDERED);

  self->free_stream = g_object_ref (stream);
  self->release_data = pool;
  self->release_notify = pool_notify;
  return self;
}

gboolean
cugi_buffer_get_address (CugiBuffer   *self,
                         CUdeviceptr  *address,
                         GError      **error)
{
  g_return_val_if_fail (CUGI_IS_BUFFER (self), FALSE);

  if (!cugi_buffer_check_usable (self, error))
    return FALSE;
  *address = self->address;
  return TRUE;
}

/**
 * cugi_buffer_get_context:
 * @self: a #CugiBuffer
 *
 * The context whose memory this is, and so the device it lives on. Work on
 * the buffer goes to a stream of this context.
 *
 * Returns: (transfer none): the value of #CugiBuffer:context
 *
 * Since: 0.1
 */
CugiContext *
cugi_buffer_get_context (CugiBuffer *self)
{
  g_return_val_if_fail (CUGI_IS_BUFFER (self), NULL);

  return self->ownership.binding.context;
}

/* ---- GObject -------------------------------------------------------------- */

static void
cugi_buffer_finalize (GObject *object)
{
  CugiBuffer *self = CUGI_BUFFER (object);

  cugi_memory_ownership_clear (&self->ownership);
  g_clear_object (&self->parent);
  g_clear_object (&self->host);

  G_OBJECT_CLASS (cugi_buffer_parent_class)->finalize (object);
}

static void
cugi_buffer_get_property (GObject    *object,
                          guint       prop_id,
                          GValue     *value,
                          GParamSpec *pspec)
{
  CugiBuffer *self = CUGI_BUFFER (object);

  switch (prop_id)
    {
    case PROP_CONTEXT:
      g_value_set_object (value, self->ownership.binding.context);
      break;
    case PROP_SIZE:
      g_value_set_uint64 (value, self->size);
      break;
    case PROP_DEVICE_POINTER:
      g_value_set_uint64 (value, cugi_buffer_get_device_pointer (self));
      break;
    case PROP_PITCH:
      g_value_set_uint64 (value, self->pitch);
      break;
    case PROP_MANAGED:
      g_value_set_boolean (value, self->managed);
      break;
    case PROP_FREED:
      g_value_set_boolean (value, cugi_buffer_is_freed (self));
      break;
    case PROP_PARENT:
      g_value_set_object (value, self->parent);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cugi_buffer_class_init (CugiBufferClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = cugi_buffer_finalize;
  object_class->get_property = cugi_buffer_get_property;

  /**
   * CugiBuffer:context:
   *
   * The context the memory belongs to, which the buffer keeps alive.
   *
   * Since: 0.1
   */
  properties[PROP_CONTEXT] =
    g_param_spec_object ("context", NULL, NULL, CUGI_TYPE_CONTEXT,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * CugiBuffer:size:
   *
   * The size of the buffer in bytes (for a pitched buffer, pitch × height).
   * Only the buffer of a #CugiGrowableBuffer changes size, when it grows,
   * and notifies it then.
   *
   * Since: 0.1
   */
  properties[PROP_SIZE] =
    g_param_spec_uint64 ("size", NULL, NULL, 0, G_MAXUINT64, 0,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * CugiBuffer:device-pointer:
   *
   * The device address of the first byte, for kernels and for other
   * libraries; for managed memory also its host address. 0 for a zero-size
   * buffer, and once the buffer is freed.
   *
   * Since: 0.1
   */
  properties[PROP_DEVICE_POINTER] =
    g_param_spec_uint64 ("device-pointer", NULL, NULL, 0, G_MAXUINT64, 0,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * CugiBuffer:pitch:
   *
   * The distance in bytes between rows of a buffer made by
   * cugi_buffer_new_pitched() (and views of it); 0 for other buffers.
   *
   * Since: 0.1
   */
  properties[PROP_PITCH] =
    g_param_spec_uint64 ("pitch", NULL, NULL, 0, G_MAXUINT64, 0,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * CugiBuffer:is-managed:
   *
   * Whether the memory is managed (cugi_buffer_new_managed()), that is
   * reachable from the host at #CugiBuffer:device-pointer as well.
   *
   * Since: 0.1
   */
  properties[PROP_MANAGED] =
    g_param_spec_boolean ("is-managed", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * CugiBuffer:freed:
   *
   * Whether cugi_buffer_free() was called: the buffer cannot be used any
   * more. (A view is also unusable once its parent is freed, and the
   * device buffer of a host buffer once the host buffer is.)
   *
   * Since: 0.1
   */
  properties[PROP_FREED] =
    g_param_spec_boolean ("freed", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * CugiBuffer:parent:
   *
   * For a view (cugi_buffer_new_view()), the buffer whose memory it is part
   * of, which the view keeps alive; %NULL otherwise.
   *
   * Since: 0.1
   */
  properties[PROP_PARENT] =
    g_param_spec_object ("parent", NULL, NULL, CUGI_TYPE_BUFFER,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
cugi_buffer_init (CugiBuffer *self)
{
  cugi_memory_ownership_init (&self->ownership, release_memory, self);
}

/* ---- constructors --------------------------------------------------------- */

/**
 * cugi_buffer_new:
 * @context: (nullable): the context to allocate in, or %NULL for the default
 *   context
 * @size: the size in bytes; 0 gives a zero-size buffer, which allocates
 *   nothing
 * @error: return location for a #GError
 *
 * Allocates @size bytes of device memory (`cuMemAlloc`), not initialized.
 *
 * Returns: (transfer full): the new buffer, or %NULL with @error set
 *   (%CUGI_ERROR_OUT_OF_MEMORY when the device has too little free memory)
 *
 * Since: 0.1
 */
CugiBuffer *
cugi_buffer_new (CugiContext  *context,
                 gsize         size,
                 GError      **error)
{
  g_autoptr(CugiContext) resolved = NULL;
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CUdeviceptr address = 0;

  g_return_val_if_fail (context == NULL || CUGI_IS_CONTEXT (context), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!cugi_ensure_driver (error) ||
      (resolved = cugi_context_resolve (context, error)) == NULL)
    return NULL;
  if (size == 0)
    return cugi_buffer_new_owning (resolved, 0, 0, BUFFER_MEMORY_NONE);
  if (!cugi_context_enter (resolved, &scope, error) ||
      !CUGI_CALL (cuMemAlloc, (&address, size), error))
    return NULL;
  return cugi_buffer_new_owning (resolved, address, size, BUFFER_MEMORY_DEVICE);
}

/**
 * cugi_buffer_new_pitched:
 * @context: (nullable): the context to allocate in, or %NULL for the default
 *   context
 * @width: the width of a row in bytes
 * @height: the number of rows
 * @element_size: the size in bytes of the elements kernels will read and
 *   write: 4, 8 or 16. The driver pads rows so that such accesses coalesce.
 * @error: return location for a #GError
 *
 * Allocates memory for @height rows of @width bytes, each row padded to the
 * alignment the device accesses best (`cuMemAllocPitch`). The pitch, the
 * distance in bytes between rows (at least @width), is the new buffer's
 * #CugiBuffer:pitch property (cugi_buffer_get_pitch()): use it with
 * cugi_buffer_copy_2d(), cugi_buffer_upload_2d() and
 * cugi_buffer_download_2d(). #CugiBuffer:size is pitch × @height. A @width
 * or @height of 0 gives a zero-size buffer with a pitch of @width.
 *
 * Returns: (transfer full): the new buffer, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiBuffer *
cugi_buffer_new_pitched (CugiContext  *context,
                         gsize         width,
                         gsize         height,
                         guint         element_size,
                         GError      **error)
{
  g_autoptr(CugiContext) resolved = NULL;
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CugiBuffer *self;
  CUdeviceptr address = 0;
  size_t row_pitch = width;

  g_return_val_if_fail (context == NULL || CUGI_IS_CONTEXT (context), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (element_size != 4 && element_size != 8 && element_size != 16)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("The element size of a pitched buffer must be 4, 8 or 16 bytes, not %u"),
                   element_size);
      return NULL;
    }
  if (!cugi_ensure_driver (error) ||
      (resolved = cugi_context_resolve (context, error)) == NULL)
    return NULL;
  if (width == 0 || height == 0)
    self = cugi_buffer_new_owning (resolved, 0, 0, BUFFER_MEMORY_NONE);
  else
    {
      if (!cugi_context_enter (resolved, &scope, error) ||
          !CUGI_CALL (cuMemAllocPitch, (&address, &row_pitch, width, height, element_size), error))
        return NULL;
      self = cugi_buffer_new_owning (resolved, address, row_pitch * height, BUFFER_MEMORY_DEVICE);
    }

  self->pitch = row_pitch;
  return self;
}

/**
 * cugi_buffer_new_on_stream:
 * @stream: (nullable): the stream to allocate on, or %NULL for the legacy
 *   default stream of the default context
 * @size: the size in bytes; 0 gives a zero-size buffer, which allocates
 *   nothing
 * @error: return location for a #GError
 *
 * Allocates @size bytes of device memory in stream order
 * (`cuMemAllocAsync`), from the default #CugiStreamOrderedPool of the
 * stream's device: the memory may be used by work enqueued on @stream
 * after this call (on other streams, after an event recorded on @stream
 * once this returned). It is often memory that work on @stream freed just
 * before, so allocating costs little and needs no synchronization.
 *
 * The buffer belongs to the stream's context. When it is freed
 * (cugi_buffer_free()) or finalized, and the work in flight that uses it has
 * completed, its memory is freed in stream order (`cuMemFreeAsync`) on
 * @stream, or on the stream given to cugi_buffer_free_on_stream().
 * cugi_stream_ordered_pool_allocate() allocates from a pool of your own.
 *
 * Returns: (transfer full): the new buffer, or %NULL with @error set
 *   (%CUGI_ERROR_NOT_SUPPORTED where the driver or device has no
 *   stream-ordered allocator, %CUGI_ERROR_OUT_OF_MEMORY when the device
 *   has too little free memory)
 *
 * Since: 0.1
 */
CugiBuffer *
cugi_buffer_new_on_stream (CugiStream  *stream,
                           gsize        size,
                           GError     **error)
{
  g_autoptr(CugiContext) resolved = NULL;
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CugiStream *target;
  CUdeviceptr address = 0;

  g_return_val_if_fail (stream == NULL || CUGI_IS_STREAM (stream), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!cugi_ensure_driver (error) ||
      (resolved = cugi_context_resolve (stream != NULL ? cugi_stream_get_context (stream) : NULL,
                                        error)) == NULL)
    return NULL;
  if (size == 0)
    return cugi_buffer_new_owning (resolved, 0, 0, BUFFER_MEMORY_NONE);
  if (cugi_cuda.cuMemAllocAsync == NULL || cugi_cuda.cuMemFreeAsync == NULL)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_NOT_SUPPORTED,
                           _("This driver cannot allocate memory in stream order"));
      return NULL;
    }
  target = cugi_stream_resolve (stream, resolved);
  if (!cugi_context_enter (resolved, &scope, error) ||
      !CUGI_CALL (cuMemAllocAsync, (&address, size, cugi_stream_get_handle (target)), error))
    return NULL;
  return cugi_buffer_new_stream_ordered (target, address, size, NULL, NULL);
}

/**
 * cugi_buffer_new_view:
 * @self: a #CugiBuffer
 * @offset: where the view starts in @self, in bytes
 * @size: the size of the view in bytes
 * @error: return location for a #GError
 *
 * Makes a buffer over @size bytes of @self starting at @offset, sharing its
 * memory: writes through one are seen through the other. The view keeps
 * @self alive; once @self is freed with cugi_buffer_free() the view fails
 * with %CUGI_ERROR_INVALID_STATE. A view of a view is a view of the same
 * parent, at the summed offset.
 *
 * Returns: (transfer full): the view, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiBuffer *
cugi_buffer_new_view (CugiBuffer  *self,
                      gsize        offset,
                      gsize        size,
                      GError     **error)
{
  CugiBuffer *view;

  g_return_val_if_fail (CUGI_IS_BUFFER (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!cugi_buffer_check_usable_range (self, offset, size, _("buffer"), error))
    return NULL;

  view = g_object_new (CUGI_TYPE_BUFFER, NULL);
  /* Bound as its parent is, to the generation its memory was made in. */
  view->ownership.binding = self->ownership.binding;
  if (view->ownership.binding.context != NULL)
    g_object_ref (view->ownership.binding.context);
  view->address = self->address + offset;
  view->size = size;
  view->pitch = self->pitch;
  view->managed = self->managed;
  view->memory = BUFFER_MEMORY_VIEW;
  view->parent = g_object_ref (self->parent != NULL ? self->parent : self);
  view->host = self->host != NULL ? g_object_ref (self->host) : NULL;
  return view;
}

/* The memory type of @address and, for device memory, its device's ordinal:
 * 0 and -1 for memory the driver does not know. cuPointerGetAttributes
 * reports such memory with those defaults where cuPointerGetAttribute fails,
 * so that probing shows up as no API error in a user's compute-sanitizer
 * run. */
gboolean
cugi_memory_get_pointer_kind (CUdeviceptr   address,
                              CUmemorytype *type,
                              int          *ordinal,
                              GError      **error)
{
  CUpointer_attribute attributes[] = {
    CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
    CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
  };
  void *values[] = { type, ordinal };

  *type = 0;
  *ordinal = -1;
  return CUGI_CALL (cuPointerGetAttributes, (G_N_ELEMENTS (attributes), attributes, values, address), error);
}

/* INVALID_ARGUMENT unless @size bytes from @address are one allocation's
 * device (or managed) memory on @context's device. The allocation may be
 * another context's on that device: its kernels reach it (seen on an H100). */
static gboolean
check_foreign_memory (CugiContext *context,
                      CUdeviceptr  address,
                      gsize        size,
                      GError     **error)
{
  CugiDevice *device = cugi_context_get_device (context);
  CUmemorytype type = 0;
  int ordinal = -1;
  CUdeviceptr base = 0;
  size_t allocation_size = 0;

  if (!cugi_memory_get_pointer_kind (address, &type, &ordinal, error))
    return FALSE;
  if (type == 0)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("0x%llx is no memory the CUDA driver knows"), (unsigned long long) address);
      return FALSE;
    }
  if (type != CU_MEMORYTYPE_DEVICE && type != CU_MEMORYTYPE_UNIFIED)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("0x%llx is host memory, not device memory: use a CugiHostBuffer for it"),
                   (unsigned long long) address);
      return FALSE;
    }
  if (ordinal != cugi_device_get_ordinal (device))
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("0x%llx is memory of cuda:%d, not of this context’s device cuda:%d: "
                     "wrap it in a context of its own device"),
                   (unsigned long long) address, ordinal, cugi_device_get_ordinal (device));
      return FALSE;
    }
  if (!CUGI_CALL (cuMemGetAddressRange, (&base, &allocation_size, address), error))
    return FALSE;
  if (size > allocation_size - (address - base))
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("Only %zu bytes are allocated from 0x%llx, fewer than the %zu asked for"),
                   (gsize) (allocation_size - (address - base)), (unsigned long long) address, size);
      return FALSE;
    }
  return TRUE;
}

/**
 * cugi_buffer_new_for_address:
 * @context: (nullable): the context of the memory's device, or %NULL for
 *   the default context
 * @address: a device address that another library allocated (CuPy,
 *   PyTorch, GStreamer's CUDA memory, cuMemAlloc())
 * @size: the number of bytes from @address
 * @error: return location for a #GError
 *
 * Wraps device memory that cugi did not allocate, without copying it, so
 * that cugi's copies, kernels and main-loop signals work on it. cugi never
 * frees that memory: its owner must keep it allocated as long as the buffer
 * lives, and the buffer lives until the work enqueued on it has completed,
 * whatever the caller drops. From C, cugi_buffer_new_for_address_full()
 * hands the owner to the buffer instead.
 *
 * The memory is checked first: @size bytes from @address must lie in one
 * allocation of device or managed memory on @context's device; another
 * context on that device may have allocated it. A size of 0 gives a
 * zero-size buffer and checks nothing.
 *
 * Returns: (transfer full): the new buffer, or %NULL with @error set
 *   (%CUGI_ERROR_INVALID_ARGUMENT when the memory is not as described)
 *
 * Since: 0.1
 */
CugiBuffer *
cugi_buffer_new_for_address (CugiContext  *context,
                             guint64       address,
                             gsize         size,
                             GError      **error)
{
  return cugi_buffer_new_for_address_full (context, address, size, NULL, NULL, error);
}

/**
 * cugi_buffer_new_for_address_full: (skip)
 * @context: (nullable): the context of the memory's device, or %NULL for
 *   the default context
 * @address: a device address that another library allocated
 * @size: the number of bytes from @address
 * @release_data: (nullable): what keeps the memory allocated, such as a
 *   reference to its owner
 * @release: (nullable): called with @release_data once the buffer is freed
 *   or finalized and no work on it is in flight
 * @error: return location for a #GError
 *
 * cugi_buffer_new_for_address(), with the owner of the memory handed to the
 * buffer: a GStreamer element, say, passes a reference to a `GstMemory` and
 * gst_memory_unref(). @release is called in any case, at once when this
 * fails.
 *
 * Returns: (transfer full): the new buffer, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiBuffer *
cugi_buffer_new_for_address_full (CugiContext    *context,
                                  guint64         address,
                                  gsize           size,
                                  gpointer        release_data,
                                  GDestroyNotify  release,
                                  GError        **error)
{
  g_autoptr(CugiContext) resolved = NULL;
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;

  g_return_val_if_fail (context == NULL || CUGI_IS_CONTEXT (context), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!cugi_ensure_driver (error) ||
      (resolved = cugi_context_resolve (context, error)) == NULL ||
      (size > 0 && (!cugi_context_enter (resolved, &scope, error) ||
                    !check_foreign_memory (resolved, address, size, error))))
    {
      if (release != NULL)
        release (release_data);
      return NULL;
    }
  return cugi_buffer_new_holding (resolved, size > 0 ? address : 0, size, release_data, release);
}

/* A host buffer's method, but a buffer constructor: here, so that host
 * buffers need not call up into the buffers (cugi/layers.txt). */
/**
 * cugi_host_buffer_get_device_buffer:
 * @self: a #CugiHostBuffer with %CUGI_HOST_BUFFER_FLAGS_MAPPED
 * @error: return location for a #GError
 *
 * A #CugiBuffer over the device's mapping of @self, for kernels and copies
 * that read or write host memory directly: both see the same bytes. It
 * keeps @self alive, and its memory while work on the buffer is in flight;
 * once @self is freed with cugi_host_buffer_free(), the buffer fails with
 * %CUGI_ERROR_INVALID_STATE, as a view of a freed buffer does. Memory
 * without %CUGI_HOST_BUFFER_FLAGS_MAPPED has no mapping
 * (%CUGI_ERROR_INVALID_ARGUMENT).
 *
 * Returns: (transfer full): the device buffer, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiBuffer *
cugi_host_buffer_get_device_buffer (CugiHostBuffer  *self,
                                    GError         **error)
{
  CugiBuffer *buffer;
  gpointer data;

  g_return_val_if_fail (CUGI_IS_HOST_BUFFER (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!cugi_host_buffer_get_address (self, &data, error))
    return NULL;
  if (!(cugi_host_buffer_get_flags (self) & CUGI_HOST_BUFFER_FLAGS_MAPPED))
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                           _("The host buffer is not mapped into the device (see CUGI_HOST_BUFFER_FLAGS_MAPPED)"));
      return NULL;
    }
  buffer = cugi_buffer_new_owning (cugi_host_buffer_get_context (self),
                                   cugi_host_buffer_get_device_pointer (self),
                                   cugi_host_buffer_get_size (self), BUFFER_MEMORY_MAPPED_HOST);
  buffer->host = g_object_ref (self);
  return buffer;
}

/* ---- properties ----------------------------------------------------------- */

/**
 * cugi_buffer_get_size:
 * @self: a #CugiBuffer
 *
 * Returns: the size of @self in bytes (#CugiBuffer:size)
 *
 * Since: 0.1
 */
gsize
cugi_buffer_get_size (CugiBuffer *self)
{
  g_return_val_if_fail (CUGI_IS_BUFFER (self), 0);

  return self->size;
}

/**
 * cugi_buffer_get_device_pointer:
 * @self: a #CugiBuffer
 *
 * Returns: the device address of @self (#CugiBuffer:device-pointer), or 0
 *   for a zero-size buffer and once @self was freed
 *
 * Since: 0.1
 */
guint64
cugi_buffer_get_device_pointer (CugiBuffer *self)
{
  g_return_val_if_fail (CUGI_IS_BUFFER (self), 0);

  return cugi_buffer_check_usable (self, NULL) ? self->address : 0;
}

/**
 * cugi_buffer_get_pitch:
 * @self: a #CugiBuffer
 *
 * Returns: the row pitch of a pitched buffer (#CugiBuffer:pitch), or 0
 *
 * Since: 0.1
 */
gsize
cugi_buffer_get_pitch (CugiBuffer *self)
{
  g_return_val_if_fail (CUGI_IS_BUFFER (self), 0);

  return self->pitch;
}

/**
 * cugi_buffer_is_managed:
 * @self: a #CugiBuffer
 *
 * Returns: whether @self is managed memory (#CugiBuffer:managed)
 *
 * Since: 0.1
 */
gboolean
cugi_buffer_is_managed (CugiBuffer *self)
{
  g_return_val_if_fail (CUGI_IS_BUFFER (self), FALSE);

  return self->managed;
}

/**
 * cugi_buffer_is_freed:
 * @self: a #CugiBuffer
 *
 * Returns: whether cugi_buffer_free() was called on @self (#CugiBuffer:freed)
 *
 * Since: 0.1
 */
gboolean
cugi_buffer_is_freed (CugiBuffer *self)
{
  g_return_val_if_fail (CUGI_IS_BUFFER (self), FALSE);

  return cugi_memory_lifetime_is_freed (&self->ownership.lifetime);
}

/**
 * cugi_buffer_get_parent:
 * @self: a #CugiBuffer
 *
 * Returns: (transfer none) (nullable): the buffer @self is a view of
 *   (#CugiBuffer:parent), or %NULL
 *
 * Since: 0.1
 */
CugiBuffer *
cugi_buffer_get_parent (CugiBuffer *self)
{
  g_return_val_if_fail (CUGI_IS_BUFFER (self), NULL);

  return self->parent;
}

/**
 * cugi_buffer_free:
 * @self: a #CugiBuffer
 * @error: return location for a #GError
 *
 * Releases the memory instead of when the last reference goes: device
 * memory goes back to the driver (in stream order for memory allocated in
 * stream order), a pool's block to its pool, an IPC mapping is closed, and
 * a view lets go of nothing but itself. That happens now, or, where
 * enqueued work still uses the memory, as soon as that work completes;
 * whatever else holds @self does not hold the memory back: neither
 * references nor argument lists kept for launches to come (a
 * #CugiKernelArgs, the lists of cugi_kernel_launch_packed() and bindings'
 * lists).
 *
 * Every later call on @self fails with %CUGI_ERROR_INVALID_STATE, a second
 * cugi_buffer_free() included, and so does every call on views of @self and
 * the next launch of a list that holds @self or a view of it.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
cugi_buffer_free (CugiBuffer  *self,
                  GError     **error)
{
  g_return_val_if_fail (CUGI_IS_BUFFER (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return cugi_memory_ownership_free (&self->ownership, G_OBJECT (self), properties[PROP_FREED],
                                     N_("The buffer was freed"), error);
}

/**
 * cugi_buffer_free_on_stream:
 * @self: a #CugiBuffer
 * @stream: (nullable): the stream to free the memory on, or %NULL for the
 *   default stream
 * @error: return location for a #GError
 *
 * cugi_buffer_free(), with the memory of a buffer allocated in stream order
 * (cugi_buffer_new_on_stream(), cugi_stream_ordered_pool_allocate()) freed
 * on @stream (`cuMemFreeAsync`) instead of the stream it was allocated on:
 * after the work enqueued on @stream so far, and after the work in flight
 * that uses the buffer, wherever it was enqueued. Other buffers are freed
 * as cugi_buffer_free() frees them. Work that uses the memory on other
 * streams without cugi knowing (a kernel given its address as a number) must
 * be ordered before @stream's work with an event.
 *
 * @stream must belong to the buffer's context (%CUGI_ERROR_INVALID_CONTEXT
 * otherwise).
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
cugi_buffer_free_on_stream (CugiBuffer  *self,
                            CugiStream  *stream,
                            GError     **error)
{
  CugiContext *context;

  g_return_val_if_fail (CUGI_IS_BUFFER (self), FALSE);
  g_return_val_if_fail (stream == NULL || CUGI_IS_STREAM (stream), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  context = self->ownership.binding.context;
  if (!cugi_buffer_check_usable (self, error) ||
      !cugi_context_binding_check_same_context (&self->ownership.binding,
                                                stream != NULL ? cugi_stream_get_context (stream) : context,
                                                N_("The stream belongs to another context than the buffer"),
                                                error))
    return FALSE;
  if (self->memory == BUFFER_MEMORY_STREAM_ORDERED)
    g_set_object (&self->free_stream, cugi_stream_resolve (stream, context));
  return cugi_buffer_free (self, error);
}
