/* cugi-buffer.c: device memory */
#include "config.h"

#include <stdatomic.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "cugi-private.h"
#include "cugi-stream-private.h"

/**
 * CugiBuffer:
 *
 * A range of device memory: linear (cugi_buffer_new()), pitched for 2D data
 * (cugi_buffer_new_pitched()), managed (cugi_buffer_new_managed()), taken
 * from a #CugiMemoryPool, opened from another process's IPC handle
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
 * cugi_buffer_free(). After that every method fails with
 * %CUGI_ERROR_INVALID_STATE ("the buffer was freed"), freeing again included,
 * and #CugiBuffer:device-pointer reads 0. Views keep their parent alive, but
 * freeing the parent makes its views unusable in the same way. After
 * cugi_context_reset() the memory is gone and the buffer fails the same way.
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

typedef enum
{
  BUFFER_MEMORY_NONE,     /* zero-size */
  BUFFER_MEMORY_DEVICE,   /* cuMemAlloc, cuMemAllocPitch, cuMemAllocManaged */
  BUFFER_MEMORY_IPC,      /* cuIpcOpenMemHandle */
  BUFFER_MEMORY_POOLED,   /* a block of a CugiMemoryPool */
  BUFFER_MEMORY_HELD,     /* someone else's, kept valid by release_data */
  BUFFER_MEMORY_VIEW,     /* part of parent's */
} BufferMemory;

struct _CugiBuffer
{
  GObject             parent_instance;

  CugiContext        *context;
  guint               generation;    /* the context's when the memory was made */
  CUdeviceptr         address;
  gsize               size;
  gsize               pitch;
  gboolean            managed;
  BufferMemory        memory;
  CugiMemoryLifetime  lifetime;

  CugiBuffer         *parent;        /* VIEW: the buffer owning the memory */
  CugiMemoryPool     *pool;          /* POOLED */
  gpointer            release_data;  /* HELD */
  GDestroyNotify      release_notify;
};

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

static gboolean
context_was_reset (CugiBuffer *self)
{
  return self->context != NULL &&
         cugi_context_get_generation (self->context) != self->generation;
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
      return TRUE;

    case BUFFER_MEMORY_HELD:
      if (self->release_notify != NULL)
        self->release_notify (self->release_data);
      self->release_data = NULL;
      self->release_notify = NULL;
      return TRUE;

    case BUFFER_MEMORY_POOLED:
      return cugi_memory_pool_return_block (self->pool, self->address, self->size,
                                            self->generation, error);

    case BUFFER_MEMORY_DEVICE:
    case BUFFER_MEMORY_IPC:
      /* A reset context took the memory with it. */
      if (context_was_reset (self))
        return TRUE;
      if (!cugi_context_enter (self->context, &scope, error))
        return FALSE;
      if (self->memory == BUFFER_MEMORY_IPC)
        return CUGI_CALL (cuIpcCloseMemHandle, (self->address), error);
      return CUGI_CALL (cuMemFree, (self->address), error);
    }
  g_assert_not_reached ();
}

static CugiBuffer *
buffer_new (CugiContext  *context,
            CUdeviceptr   address,
            gsize         size,
            BufferMemory  memory)
{
  CugiBuffer *self = g_object_new (CUGI_TYPE_BUFFER, NULL);

  self->context = g_object_ref (context);
  self->generation = cugi_context_get_generation (context);
  self->address = address;
  self->size = size;
  self->memory = memory;
  return self;
}

/* The error for a buffer that cannot be used any more, if it cannot. */
static gboolean
check_usable (CugiBuffer  *self,
              GError     **error)
{
  if (cugi_memory_lifetime_is_freed (&self->lifetime))
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE,
                           _("The buffer was freed"));
      return FALSE;
    }
  if (self->parent != NULL && cugi_memory_lifetime_is_freed (&self->parent->lifetime))
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE,
                           _("The buffer was freed: it is a view of a buffer that was freed"));
      return FALSE;
    }
  if (context_was_reset (self))
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE,
                           _("The buffer was freed: its context was reset"));
      return FALSE;
    }
  return TRUE;
}

static gboolean
check_usable_range (CugiBuffer  *self,
                    gsize        offset,
                    gsize        size,
                    const char  *what,
                    GError     **error)
{
  return check_usable (self, error) &&
         cugi_memory_check_range (self->size, offset, size, what, error);
}

gpointer
cugi_buffer_begin_work (CugiBuffer *self)
{
  g_object_ref (self);
  cugi_memory_lifetime_begin_use (&self->lifetime);
  if (self->parent != NULL)
    cugi_memory_lifetime_begin_use (&self->parent->lifetime);
  return self;
}

void
cugi_buffer_end_work (gpointer buffer)
{
  CugiBuffer *self = buffer;

  if (self->parent != NULL)
    cugi_memory_lifetime_end_use (&self->parent->lifetime);
  cugi_memory_lifetime_end_use (&self->lifetime);
  g_object_unref (self);
}

/* Keeps what enqueued work uses alive until it completes on @stream, or,
 * while @stream is captured, for as long as the graph lives. */
static void
track_work (CugiStream     *stream,
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

/* Makes @context current for work enqueued on @stream, which must belong to
 * it; *@target is where the work goes (@stream, or the default stream). */
static gboolean
enter_for_stream (CugiContext       *context,
                  CugiStream        *stream,
                  CugiContextScope  *scope,
                  CugiStream       **target,
                  GError           **error)
{
  CugiContext *stream_context = stream != NULL ? cugi_stream_get_context (stream) : context;

  if (stream_context == NULL ||
      cugi_context_get_handle (stream_context) != cugi_context_get_handle (context))
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_CONTEXT,
                           _("The stream belongs to another context than the buffer"));
      return FALSE;
    }
  if (!cugi_context_enter (context, scope, error))
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
  CugiBuffer *self = buffer_new (context, address, size, BUFFER_MEMORY_HELD);

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
cugi_buffer_new_pooled (CugiMemoryPool *pool,
                        CugiContext    *context,
                        CUdeviceptr     address,
                        gsize           size)
{
  CugiBuffer *self = buffer_new (context, address, size, BUFFER_MEMORY_POOLED);

  self->pool = g_object_ref (pool);
  return self;
}

gboolean
cugi_buffer_get_address (CugiBuffer   *self,
                         CUdeviceptr  *address,
                         GError      **error)
{
  g_return_val_if_fail (CUGI_IS_BUFFER (self), FALSE);

  if (!check_usable (self, error))
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

  return self->context;
}

/* ---- GObject -------------------------------------------------------------- */

static void
cugi_buffer_finalize (GObject *object)
{
  CugiBuffer *self = CUGI_BUFFER (object);

  cugi_memory_lifetime_clear (&self->lifetime);
  g_clear_object (&self->parent);
  g_clear_object (&self->pool);
  g_clear_object (&self->context);

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
      g_value_set_object (value, self->context);
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
   *
   * Since: 0.1
   */
  properties[PROP_SIZE] =
    g_param_spec_uint64 ("size", NULL, NULL, 0, G_MAXUINT64, 0,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

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
   * more. (A view is also unusable once its parent is freed.)
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
  cugi_memory_lifetime_init (&self->lifetime, release_memory, self);
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
    return buffer_new (resolved, 0, 0, BUFFER_MEMORY_NONE);
  if (!cugi_context_enter (resolved, &scope, error) ||
      !CUGI_CALL (cuMemAlloc, (&address, size), error))
    return NULL;
  return buffer_new (resolved, address, size, BUFFER_MEMORY_DEVICE);
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
    self = buffer_new (resolved, 0, 0, BUFFER_MEMORY_NONE);
  else
    {
      if (!cugi_context_enter (resolved, &scope, error) ||
          !CUGI_CALL (cuMemAllocPitch, (&address, &row_pitch, width, height, element_size), error))
        return NULL;
      self = buffer_new (resolved, address, row_pitch * height, BUFFER_MEMORY_DEVICE);
    }

  self->pitch = row_pitch;
  return self;
}

/**
 * cugi_buffer_new_managed:
 * @context: (nullable): the context to allocate in, or %NULL for the default
 *   context
 * @size: the size in bytes (0 allocates nothing)
 * @attach: where the memory is visible at first
 * @error: return location for a #GError
 *
 * Allocates managed ("unified") memory (`cuMemAllocManaged`), which the
 * driver migrates between host and device on demand: #CugiBuffer:device-pointer
 * is valid on both. The host must not touch it while a kernel runs unless the
 * device reports concurrent managed access. See cugi_buffer_prefetch() and
 * cugi_buffer_advise().
 *
 * Returns: (transfer full): the new buffer, or %NULL with @error set
 *   (%CUGI_ERROR_NOT_SUPPORTED where the device has no managed memory)
 *
 * Since: 0.1
 */
CugiBuffer *
cugi_buffer_new_managed (CugiContext    *context,
                         gsize           size,
                         CugiMemAttach   attach,
                         GError        **error)
{
  g_autoptr(CugiContext) resolved = NULL;
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CugiBuffer *self;
  CUdeviceptr address = 0;

  g_return_val_if_fail (context == NULL || CUGI_IS_CONTEXT (context), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (attach != CUGI_MEM_ATTACH_GLOBAL && attach != CUGI_MEM_ATTACH_HOST &&
      attach != CUGI_MEM_ATTACH_SINGLE)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("%d is not a CugiMemAttach value"), (int) attach);
      return NULL;
    }
  if (!cugi_ensure_driver (error) ||
      (resolved = cugi_context_resolve (context, error)) == NULL)
    return NULL;
  if (size == 0)
    self = buffer_new (resolved, 0, 0, BUFFER_MEMORY_NONE);
  else
    {
      if (!cugi_context_enter (resolved, &scope, error) ||
          !CUGI_CALL (cuMemAllocManaged, (&address, size, attach), error))
        return NULL;
      self = buffer_new (resolved, address, size, BUFFER_MEMORY_DEVICE);
    }

  self->managed = TRUE;
  return self;
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

  if (!check_usable_range (self, offset, size, _("buffer"), error))
    return NULL;

  view = g_object_new (CUGI_TYPE_BUFFER, NULL);
  view->context = self->context != NULL ? g_object_ref (self->context) : NULL;
  view->generation = self->generation;
  view->address = self->address + offset;
  view->size = size;
  view->pitch = self->pitch;
  view->managed = self->managed;
  view->memory = BUFFER_MEMORY_VIEW;
  view->parent = g_object_ref (self->parent != NULL ? self->parent : self);
  return view;
}

/**
 * cugi_buffer_new_from_ipc_handle:
 * @context: (nullable): the context to map the memory into, or %NULL for the
 *   default context
 * @handle: an IPC handle from cugi_buffer_get_ipc_handle() in another process
 * @size: the size of the buffer in bytes, at most the size of the exported
 *   allocation
 * @error: return location for a #GError
 *
 * Maps device memory another process exported (`cuIpcOpenMemHandle`, with
 * peer access enabled lazily when the memory is on another device). The
 * mapping is closed (`cuIpcCloseMemHandle`) when the buffer is freed or
 * finalized; the exporting process must keep its buffer until then.
 *
 * A process cannot open its own handles: the driver then fails with
 * %CUGI_ERROR_INVALID_CONTEXT. Use the exported buffer itself instead.
 *
 * Returns: (transfer full): the buffer, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiBuffer *
cugi_buffer_new_from_ipc_handle (CugiContext  *context,
                                 GBytes       *handle,
                                 gsize         size,
                                 GError      **error)
{
  g_autoptr(CugiContext) resolved = NULL;
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CUipcMemHandle ipc_handle;
  CUdeviceptr address = 0, base = 0;
  size_t allocation_size = 0;

  g_return_val_if_fail (context == NULL || CUGI_IS_CONTEXT (context), NULL);
  g_return_val_if_fail (handle != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (g_bytes_get_size (handle) != sizeof ipc_handle)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("An IPC memory handle has %zu bytes, not %zu"),
                   sizeof ipc_handle, g_bytes_get_size (handle));
      return NULL;
    }
  if (!cugi_ensure_driver (error) ||
      (resolved = cugi_context_resolve (context, error)) == NULL)
    return NULL;
  if (cugi_cuda.cuIpcOpenMemHandle == NULL || cugi_cuda.cuIpcCloseMemHandle == NULL)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_NOT_SUPPORTED,
                           _("This driver does not support IPC memory handles"));
      return NULL;
    }

  memcpy (&ipc_handle, g_bytes_get_data (handle, NULL), sizeof ipc_handle);
  if (!cugi_context_enter (resolved, &scope, error) ||
      !CUGI_CALL (cuIpcOpenMemHandle, (&address, ipc_handle, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS), error))
    return NULL;

  /* The size the exporter allocated bounds what may be mapped. */
  if (!CUGI_CALL (cuMemGetAddressRange, (&base, &allocation_size, address), error))
    {
      CUGI_CALL (cuIpcCloseMemHandle, (address), NULL);
      return NULL;
    }
  if (size > allocation_size - (address - base))
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("The exported memory has %zu bytes, fewer than the %zu asked for"),
                   (gsize) (allocation_size - (address - base)), size);
      CUGI_CALL (cuIpcCloseMemHandle, (address), NULL);
      return NULL;
    }
  return buffer_new (resolved, address, size, BUFFER_MEMORY_IPC);
}

/* INVALID_ARGUMENT unless @size bytes from @address are one allocation's
 * device (or managed) memory on @context's device. The allocation may be
 * another context's on that device: its kernels reach it (seen on an H100). */
/* The memory type of @address and, for device memory, its device's ordinal:
 * 0 and -1 for memory the driver does not know. cuPointerGetAttributes
 * reports such memory with those defaults where cuPointerGetAttribute fails,
 * so that probing shows up as no API error in a user's compute-sanitizer
 * run. */
static gboolean
pointer_get_kind (CUdeviceptr   address,
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

  if (!pointer_get_kind (address, &type, &ordinal, error))
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

  return check_usable (self, NULL) ? self->address : 0;
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

  return cugi_memory_lifetime_is_freed (&self->lifetime);
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
 * Releases the memory now instead of when the last reference goes: device
 * memory goes back to the driver, a pool's block to its pool, an IPC mapping
 * is closed, and a view lets go of nothing but itself. If enqueued work still
 * uses the memory, it is released as soon as that work completes.
 *
 * Every later call on @self fails with %CUGI_ERROR_INVALID_STATE, a second
 * cugi_buffer_free() included, and so does every call on views of @self.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
cugi_buffer_free (CugiBuffer  *self,
                  GError     **error)
{
  gboolean ok;

  g_return_val_if_fail (CUGI_IS_BUFFER (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (cugi_memory_lifetime_is_freed (&self->lifetime))
    return check_usable (self, error);
  ok = cugi_memory_lifetime_free (&self->lifetime, _("The buffer was freed"), error);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FREED]);
  return ok;
}

/* ---- linear transfers ----------------------------------------------------- */

/* A synchronous copy from pageable memory returns once the data is staged,
 * possibly before its DMA lands: work on a non-blocking stream could then
 * read old data. Waiting for the legacy stream, where the copy ran, makes
 * the synchronous uploads complete when they return. */
static gboolean
wait_for_pageable_upload (GError **error)
{
  return CUGI_CALL (cuStreamSynchronize, (CU_STREAM_LEGACY), error);
}

/**
 * cugi_buffer_upload:
 * @self: a #CugiBuffer
 * @offset: where to write in @self, in bytes
 * @data: (array length=len) (nullable): the bytes to write
 * @len: the number of bytes
 * @error: return location for a #GError
 *
 * Copies @len bytes from the host into @self at @offset (`cuMemcpyHtoD`).
 * The data is on the device when this returns, so work on any stream sees
 * it, and @data may be reused at once.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
cugi_buffer_upload (CugiBuffer    *self,
                    gsize          offset,
                    const guint8  *data,
                    gsize          len,
                    GError       **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;

  g_return_val_if_fail (CUGI_IS_BUFFER (self), FALSE);
  g_return_val_if_fail (data != NULL || len == 0, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!check_usable_range (self, offset, len, _("buffer"), error))
    return FALSE;
  if (len == 0)
    return TRUE;
  return cugi_context_enter (self->context, &scope, error) &&
         CUGI_CALL (cuMemcpyHtoD, (self->address + offset, data, len), error) &&
         wait_for_pageable_upload (error);
}

/**
 * cugi_buffer_upload_bytes:
 * @self: a #CugiBuffer
 * @offset: where to write in @self, in bytes
 * @bytes: the bytes to write
 * @error: return location for a #GError
 *
 * Like cugi_buffer_upload(), with the data in a #GBytes.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
cugi_buffer_upload_bytes (CugiBuffer  *self,
                          gsize        offset,
                          GBytes      *bytes,
                          GError     **error)
{
  gsize len;
  const guint8 *data;

  g_return_val_if_fail (bytes != NULL, FALSE);

  data = g_bytes_get_data (bytes, &len);
  return cugi_buffer_upload (self, offset, data, len, error);
}

/* Host memory for @size bytes, or an OUT_OF_MEMORY error instead of abort(). */
static guint8 *
try_alloc_host (gsize    size,
                GError **error)
{
  guint8 *data = g_try_malloc (size);

  if (data == NULL)
    g_set_error (error, CUGI_ERROR, CUGI_ERROR_OUT_OF_MEMORY,
                 _("Cannot allocate %zu bytes of host memory"), size);
  return data;
}

/**
 * cugi_buffer_download:
 * @self: a #CugiBuffer
 * @offset: where to read in @self, in bytes
 * @size: the number of bytes
 * @error: return location for a #GError
 *
 * Copies @size bytes at @offset of @self to the host (`cuMemcpyDtoH`),
 * waiting for work enqueued before on the context's default stream. See
 * cugi_buffer_download_async() to wait without blocking.
 *
 * Returns: (transfer full): the bytes, or %NULL with @error set
 *
 * Since: 0.1
 */
GBytes *
cugi_buffer_download (CugiBuffer  *self,
                      gsize        offset,
                      gsize        size,
                      GError     **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  g_autofree guint8 *data = NULL;

  g_return_val_if_fail (CUGI_IS_BUFFER (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!check_usable_range (self, offset, size, _("buffer"), error))
    return NULL;
  if (size == 0)
    return g_bytes_new (NULL, 0);
  if ((data = try_alloc_host (size, error)) == NULL ||
      !cugi_context_enter (self->context, &scope, error) ||
      !CUGI_CALL (cuMemcpyDtoH, (data, self->address + offset, size), error))
    return NULL;
  return g_bytes_new_take (g_steal_pointer (&data), size);
}

static gboolean
same_context (CugiBuffer *a,
              CugiBuffer *b)
{
  return cugi_context_get_handle (a->context) == cugi_context_get_handle (b->context);
}

/**
 * cugi_buffer_copy:
 * @dst: the buffer to copy to
 * @dst_offset: where to write in @dst, in bytes
 * @src: the buffer to copy from (may be @dst, if the ranges do not overlap)
 * @src_offset: where to read in @src, in bytes
 * @size: the number of bytes
 * @stream: (nullable): the stream to enqueue the copy on (of @dst's
 *   context), or %NULL for the default stream
 * @error: return location for a #GError
 *
 * Enqueues a device-to-device copy (`cuMemcpyDtoDAsync`). When the buffers
 * belong to different contexts (on different devices, say) it is a peer copy
 * (`cuMemcpyPeerAsync`), which the driver stages through the host where the
 * devices cannot reach each other. Returns once the copy is enqueued; both
 * buffers stay alive until it completes.
 *
 * Returns: %TRUE if the copy was enqueued
 *
 * Since: 0.1
 */
gboolean
cugi_buffer_copy (CugiBuffer  *dst,
                  gsize        dst_offset,
                  CugiBuffer  *src,
                  gsize        src_offset,
                  gsize        size,
                  CugiStream  *stream,
                  GError     **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CugiStream *target;
  CUdeviceptr to, from;
  gboolean ok;

  g_return_val_if_fail (CUGI_IS_BUFFER (dst), FALSE);
  g_return_val_if_fail (CUGI_IS_BUFFER (src), FALSE);
  g_return_val_if_fail (stream == NULL || CUGI_IS_STREAM (stream), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!check_usable_range (dst, dst_offset, size, _("destination buffer"), error) ||
      !check_usable_range (src, src_offset, size, _("source buffer"), error))
    return FALSE;
  if (size == 0)
    return TRUE;
  if (!enter_for_stream (dst->context, stream, &scope, &target, error))
    return FALSE;

  to = dst->address + dst_offset;
  from = src->address + src_offset;
  if (same_context (dst, src))
    ok = CUGI_CALL (cuMemcpyDtoDAsync, (to, from, size, cugi_stream_get_handle (target)), error);
  else
    ok = CUGI_CALL (cuMemcpyPeerAsync, (to, cugi_context_get_handle (dst->context),
                                        from, cugi_context_get_handle (src->context),
                                        size, cugi_stream_get_handle (target)), error);
  if (ok)
    track_work (target, dst, src, NULL, NULL);
  return ok;
}

/* ---- transfers with host buffers ------------------------------------------ */

typedef enum
{
  TO_DEVICE,
  TO_HOST,
} Direction;

static gboolean
copy_with_host_buffer (CugiBuffer      *self,
                       gsize            offset,
                       CugiHostBuffer  *host,
                       gsize            host_offset,
                       gsize            size,
                       CugiStream      *stream,
                       Direction        direction,
                       GError         **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CugiStream *target;
  gpointer host_address;
  guint8 *host_data;
  CUdeviceptr device_data;
  CUstream handle;
  gboolean ok;

  if (!check_usable_range (self, offset, size, _("buffer"), error) ||
      !cugi_host_buffer_get_address (host, &host_address, error) ||
      !cugi_memory_check_range (cugi_host_buffer_get_size (host), host_offset, size,
                                _("host buffer"), error))
    return FALSE;
  if (size == 0)
    return TRUE;
  if (!enter_for_stream (self->context, stream, &scope, &target, error))
    return FALSE;

  host_data = (guint8 *) host_address + host_offset;
  device_data = self->address + offset;
  /* Without a stream, the synchronous copies: from and to pinned memory they
   * return once the copy is done. */
  if (stream == NULL)
    return direction == TO_DEVICE
             ? CUGI_CALL (cuMemcpyHtoD, (device_data, host_data, size), error)
             : CUGI_CALL (cuMemcpyDtoH, (host_data, device_data, size), error);

  handle = cugi_stream_get_handle (target);
  ok = direction == TO_DEVICE
         ? CUGI_CALL (cuMemcpyHtoDAsync, (device_data, host_data, size, handle), error)
         : CUGI_CALL (cuMemcpyDtoHAsync, (host_data, device_data, size, handle), error);
  if (ok)
    track_work (target, self, NULL, host, NULL);
  return ok;
}

/**
 * cugi_buffer_upload_from_host:
 * @self: a #CugiBuffer
 * @offset: where to write in @self, in bytes
 * @host: the pinned host buffer to read
 * @host_offset: where to read in @host, in bytes
 * @size: the number of bytes
 * @stream: (nullable): the stream to enqueue the copy on, or %NULL to copy
 *   at once
 * @error: return location for a #GError
 *
 * Copies @size bytes of @host into @self. On a stream the copy is truly
 * asynchronous (`cuMemcpyHtoDAsync`: the host goes on while the DMA engine
 * reads @host), and both buffers stay alive until it completes; do not
 * write to that part of @host before then. Without a stream it returns once
 * the copy is done.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
cugi_buffer_upload_from_host (CugiBuffer      *self,
                              gsize            offset,
                              CugiHostBuffer  *host,
                              gsize            host_offset,
                              gsize            size,
                              CugiStream      *stream,
                              GError         **error)
{
  g_return_val_if_fail (CUGI_IS_BUFFER (self), FALSE);
  g_return_val_if_fail (CUGI_IS_HOST_BUFFER (host), FALSE);
  g_return_val_if_fail (stream == NULL || CUGI_IS_STREAM (stream), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return copy_with_host_buffer (self, offset, host, host_offset, size, stream, TO_DEVICE, error);
}

/**
 * cugi_buffer_download_to_host:
 * @self: a #CugiBuffer
 * @offset: where to read in @self, in bytes
 * @host: the pinned host buffer to write
 * @host_offset: where to write in @host, in bytes
 * @size: the number of bytes
 * @stream: (nullable): the stream to enqueue the copy on, or %NULL to copy
 *   at once
 * @error: return location for a #GError
 *
 * Copies @size bytes of @self into @host. On a stream the copy is
 * asynchronous (`cuMemcpyDtoHAsync`) and both buffers stay alive until it
 * completes; read @host only after that (cugi_stream_synchronize(), or an
 * event). Without a stream it returns once the copy is done.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
cugi_buffer_download_to_host (CugiBuffer      *self,
                              gsize            offset,
                              CugiHostBuffer  *host,
                              gsize            host_offset,
                              gsize            size,
                              CugiStream      *stream,
                              GError         **error)
{
  g_return_val_if_fail (CUGI_IS_BUFFER (self), FALSE);
  g_return_val_if_fail (CUGI_IS_HOST_BUFFER (host), FALSE);
  g_return_val_if_fail (stream == NULL || CUGI_IS_STREAM (stream), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return copy_with_host_buffer (self, offset, host, host_offset, size, stream, TO_HOST, error);
}

/**
 * cugi_buffer_download_to_host_async:
 * @self: a #CugiBuffer
 * @offset: where to read in @self, in bytes
 * @host: the pinned host buffer to write
 * @host_offset: where to write in @host, in bytes
 * @size: the number of bytes
 * @stream: (nullable): the stream to enqueue the copy on, or %NULL for the
 *   default stream
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called in the thread-default main context of the
 *   caller once the bytes are in @host
 * @user_data: data for @callback
 *
 * Enqueues a copy of @size bytes of @self into @host, as
 * cugi_buffer_download_to_host() does on a stream, and returns at once;
 * @callback runs once the copy (and all the work enqueued on the stream
 * before it) has completed. Finish with
 * cugi_buffer_download_to_host_finish().
 *
 * Unlike cugi_buffer_download_async(), which gives each download pinned
 * memory of its own, this writes where the caller says: one host buffer can
 * take a frame after another, or an image band by band. Read @host only once
 * @callback has run: through cugi_host_buffer_get_data() or, without a
 * copy, cugi_host_buffer_get_bytes(). Both buffers stay alive until the copy
 * completes. Cancelling @cancellable completes the call at once with
 * %G_IO_ERROR_CANCELLED, but does not stop the copy already enqueued: do
 * not read @host, or enqueue another copy into it, expecting it to be done.
 *
 * Since: 0.1
 */
void
cugi_buffer_download_to_host_async (CugiBuffer          *self,
                                    gsize                offset,
                                    CugiHostBuffer      *host,
                                    gsize                host_offset,
                                    gsize                size,
                                    CugiStream          *stream,
                                    GCancellable        *cancellable,
                                    GAsyncReadyCallback  callback,
                                    gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  CugiStream *target;

  g_return_if_fail (CUGI_IS_BUFFER (self));
  g_return_if_fail (CUGI_IS_HOST_BUFFER (host));
  g_return_if_fail (stream == NULL || CUGI_IS_STREAM (stream));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, cugi_buffer_download_to_host_async);
  if (g_task_return_error_if_cancelled (task))
    return;
  /* Without a stream, the default one: copy_with_host_buffer() would copy at
   * once, blocking, where it is given none. */
  target = cugi_stream_resolve (stream, self->context);
  if (!copy_with_host_buffer (self, offset, host, host_offset, size, target, TO_HOST, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  cugi_stream_complete_task (target, task, NULL);
}

/**
 * cugi_buffer_download_to_host_finish:
 * @self: a #CugiBuffer
 * @result: the #GAsyncResult given to the callback
 * @error: return location for a #GError
 *
 * Finishes cugi_buffer_download_to_host_async().
 *
 * Returns: %TRUE once the bytes are in the host buffer; %FALSE with @error
 *   set (%G_IO_ERROR_CANCELLED when cancelled)
 *
 * Since: 0.1
 */
gboolean
cugi_buffer_download_to_host_finish (CugiBuffer    *self,
                                     GAsyncResult  *result,
                                     GError       **error)
{
  g_return_val_if_fail (CUGI_IS_BUFFER (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == cugi_buffer_download_to_host_async, FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/* ---- asynchronous transfers ----------------------------------------------- */

/* Asynchronous transfers go through pinned staging memory, which cugi keeps
 * for reuse: pinning memory takes milliseconds and can wait for the device,
 * so in the steady state neither the calls nor their completions allocate or
 * free any, and a download's bytes give their block back when they are
 * freed, from any thread, without a driver call. One pool per device, of
 * portable memory (any context of the process can copy to and from it) made
 * in the device's primary context, which the device keeps for the rest of
 * the process, and so the pool. Beyond STAGING_MAX_HELD_BYTES held for
 * reuse, blocks given back are freed. */
#define STAGING_FLAGS (CUGI_HOST_BUFFER_FLAGS_PORTABLE | CUGI_HOST_BUFFER_FLAGS_MAPPED)
#define STAGING_MAX_HELD_BYTES ((gsize) 512 << 20)

/* Pageable data is staged by worker threads, in chunks of at least
 * STAGING_MIN_CHUNK bytes and at most STAGING_MAX_CHUNKS of them, so that
 * the copy of a chunk to the device overlaps the staging of the next.
 * Chunks start at multiples of STAGING_CHUNK_ALIGNMENT. */
#define STAGING_THREADS 4
#define STAGING_MIN_CHUNK ((gsize) 2 << 20)
#define STAGING_MAX_CHUNKS 8
#define STAGING_CHUNK_ALIGNMENT ((gsize) 64 << 10)

G_DEFINE_QUARK (cugi-staging-pool, staging_pool)

/* The staging pool of @context's device (borrowed: the device keeps it),
 * made on first use. */
static CugiHostMemoryPool *
get_staging_pool (CugiContext  *context,
                  GError      **error)
{
  static GMutex lock;
  CugiDevice *device = cugi_context_get_device (context);
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&lock);
  g_autoptr(CugiContext) primary = NULL;
  CugiHostMemoryPool *pool = g_object_get_qdata (G_OBJECT (device), staging_pool_quark ());

  if (pool != NULL)
    return pool;
  if ((primary = cugi_device_get_primary_context (device, error)) == NULL ||
      (pool = cugi_host_memory_pool_new (primary, STAGING_FLAGS, error)) == NULL)
    return NULL;
  cugi_host_memory_pool_set_max_held_bytes (pool, STAGING_MAX_HELD_BYTES);
  g_object_set_qdata_full (G_OBJECT (device), staging_pool_quark (), pool, g_object_unref);
  return pool;
}

/* Pinned memory for @size bytes from the staging pool of @context's device. */
static CugiHostBuffer *
staging_new (CugiContext  *context,
             gsize         size,
             GError      **error)
{
  CugiHostMemoryPool *pool = get_staging_pool (context, error);

  return pool != NULL ? cugi_host_memory_pool_allocate (pool, size, error) : NULL;
}

static void
return_downloaded_bytes (GTask *task)
{
  g_task_return_pointer (task, g_bytes_ref (g_task_get_task_data (task)),
                         (GDestroyNotify) g_bytes_unref);
}

/**
 * cugi_buffer_download_async:
 * @self: a #CugiBuffer
 * @offset: where to read in @self, in bytes
 * @size: the number of bytes
 * @stream: (nullable): the stream to enqueue the copy on, or %NULL for the
 *   default stream
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called in the thread-default main context of the
 *   caller once the bytes are on the host
 * @user_data: data for @callback
 *
 * Enqueues a copy of @size bytes at @offset of @self into pinned host memory
 * (`cuMemcpyDtoHAsync`) and returns at once; the main loop keeps running
 * while the copy is done. Get the bytes with cugi_buffer_download_finish():
 * they are the pinned memory itself, not a copy of it. That memory comes
 * from a pool that cugi keeps for each device and returns there when the
 * bytes are freed, so that downloads in a row do not pin memory each time.
 *
 * @self stays alive until the copy completes, whatever the caller drops.
 * Cancelling @cancellable completes the call at once with
 * %G_IO_ERROR_CANCELLED, but does not stop the copy already enqueued.
 *
 * Since: 0.1
 */
void
cugi_buffer_download_async (CugiBuffer          *self,
                            gsize                offset,
                            gsize                size,
                            CugiStream          *stream,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiHostBuffer) staging = NULL;
  g_autoptr(GBytes) result = NULL;
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CugiStream *target;

  g_return_if_fail (CUGI_IS_BUFFER (self));
  g_return_if_fail (stream == NULL || CUGI_IS_STREAM (stream));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, cugi_buffer_download_async);
  if (g_task_return_error_if_cancelled (task))
    return;
  if (!check_usable_range (self, offset, size, _("buffer"), &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  if (size == 0)
    {
      g_task_return_pointer (task, g_bytes_new (NULL, 0), (GDestroyNotify) g_bytes_unref);
      return;
    }

  if (!enter_for_stream (self->context, stream, &scope, &target, &error) ||
      (staging = staging_new (self->context, size, &error)) == NULL ||
      (result = cugi_host_buffer_get_bytes (staging, &error)) == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  if (!CUGI_CALL (cuMemcpyDtoHAsync, ((void *) g_bytes_get_data (result, NULL), self->address + offset,
                                      size, cugi_stream_get_handle (target)), &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  track_work (target, self, NULL, NULL, result);
  g_task_set_task_data (task, g_steal_pointer (&result), (GDestroyNotify) g_bytes_unref);
  cugi_stream_complete_task (target, task, return_downloaded_bytes);
}

/**
 * cugi_buffer_download_finish:
 * @self: a #CugiBuffer
 * @result: the #GAsyncResult given to the callback
 * @error: return location for a #GError
 *
 * Finishes cugi_buffer_download_async().
 *
 * Returns: (transfer full): the downloaded bytes, or %NULL with @error set
 *   (%G_IO_ERROR_CANCELLED when cancelled)
 *
 * Since: 0.1
 */
GBytes *
cugi_buffer_download_finish (CugiBuffer    *self,
                             GAsyncResult  *result,
                             GError       **error)
{
  g_return_val_if_fail (CUGI_IS_BUFFER (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == cugi_buffer_download_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* Whether the driver can DMA straight from @data: pinned host memory
 * (a CugiHostBuffer's bytes, say) needs no staging copy. */
static gboolean
is_pinned (const guint8 *data,
           gsize         size)
{
  const guint8 *ends[] = { data, data + size - 1 };

  for (gsize i = 0; i < G_N_ELEMENTS (ends); i++)
    {
      CUmemorytype type;
      int ordinal;

      /* Pageable memory is no error, only not pinned: nothing to report. */
      if (!pointer_get_kind ((CUdeviceptr) (guintptr) ends[i], &type, &ordinal, NULL) ||
          type != CU_MEMORYTYPE_HOST)
        return FALSE;
    }
  return TRUE;
}

/* The staging of pageable data for an upload, by a worker thread. It copies
 * the data into the pinned staging memory chunk by chunk and, after each
 * chunk, raises a counter in pinned memory; on the stream, the copy of each
 * chunk to the device waits for the counter (cuStreamWaitValue32). So the
 * calling thread only enqueues, and the copies keep their place in the
 * stream: after the work enqueued before the call, before the work enqueued
 * after it.
 *
 * The job holds what it touches until it is done, and drops it in the
 * caller's main context: the last reference to the caller's bytes runs
 * their free function there, and that of the staging memory may free it
 * (beyond what the pool holds), a driver call that a worker must not make
 * while the device may be waiting for another job. */
typedef struct
{
  GBytes         *bytes;          /* the caller's pageable data */
  CugiHostBuffer *staging;
  GBytes         *counter_bytes;  /* the counter's memory */
  guint8         *staged;
  gint           *counter;        /* the number of chunks staged */
  gsize           chunk_size;
  guint           n_chunks;
  GMainContext   *main_context;   /* the caller's, until the job is done */
} StagingJob;

static void
staging_job_free (gpointer data)
{
  StagingJob *job = data;

  g_bytes_unref (job->bytes);
  g_object_unref (job->staging);
  g_bytes_unref (job->counter_bytes);
  g_free (job);
}

/* Nothing to do but be dispatched: the source's destroy notify frees the job. */
static gboolean
staging_job_done (gpointer data)
{
  return G_SOURCE_REMOVE;
}

static void
stage_chunks (gpointer data,
              gpointer user_data)
{
  StagingJob *job = data;
  gsize size;
  const guint8 *source = g_bytes_get_data (job->bytes, &size);
  GMainContext *main_context;
  GSource *done;

  for (guint i = 0; i < job->n_chunks; i++)
    {
      gsize start = i * job->chunk_size;

      memcpy (job->staged + start, source + start, MIN (job->chunk_size, size - start));
      /* memcpy may use non-temporal stores, which only a full fence orders
       * before the counter's. */
      atomic_thread_fence (memory_order_seq_cst);
      g_atomic_int_set (job->counter, (gint) i + 1);
    }

  /* The job is freed with the source, after it ran or with its context: it
   * may be gone as soon as the source is attached. */
  main_context = g_steal_pointer (&job->main_context);
  done = g_idle_source_new ();
  g_source_set_priority (done, G_PRIORITY_DEFAULT);
  g_source_set_static_name (done, "[cugi] upload staged");
  g_source_set_callback (done, staging_job_done, job, staging_job_free);
  g_source_attach (done, main_context);
  g_source_unref (done);
  g_main_context_unref (main_context);
}

static gpointer
staging_threads_new (gpointer data)
{
  /* Not exclusive: the threads are GLib's shared ones, made when needed, so
   * making the pool cannot fail. */
  return g_thread_pool_new (stage_chunks, NULL, STAGING_THREADS, FALSE, NULL);
}

GThreadPool *
cugi_buffer_get_staging_threads (void)
{
  static GOnce once = G_ONCE_INIT;

  return g_once (&once, staging_threads_new, NULL);
}

/* Enqueues the copy of pageable @bytes to @address on @target, staged by a
 * worker thread (see StagingJob); where the stream cannot wait for memory,
 * the data is staged here. */
static gboolean
upload_pageable (CugiBuffer   *self,
                 CUdeviceptr   address,
                 GBytes       *bytes,
                 CugiStream   *target,
                 GError      **error)
{
  g_autoptr(CugiHostBuffer) staging = NULL;
  g_autoptr(CugiHostBuffer) counter_memory = NULL;
  g_autoptr(GBytes) counter_bytes = NULL;
  g_autoptr(GError) wait_error = NULL;
  CUstream handle = cugi_stream_get_handle (target);
  CUdeviceptr counter_address = 0;
  StagingJob *job;
  guint8 *staged;
  gint *counter;
  gsize size, chunk_size;
  const guint8 *data = g_bytes_get_data (bytes, &size);
  guint n_chunks;
  gboolean ok = TRUE;

  /* The counter's bytes keep its memory for the stream's waits. */
  if ((staging = staging_new (self->context, size, error)) == NULL ||
      (staged = cugi_host_buffer_get_data (staging, NULL, error)) == NULL ||
      (counter_memory = staging_new (self->context, sizeof (gint), error)) == NULL ||
      (counter = (gint *) cugi_host_buffer_get_data (counter_memory, NULL, error)) == NULL ||
      (counter_bytes = cugi_host_buffer_get_bytes (counter_memory, error)) == NULL)
    return FALSE;
  g_atomic_int_set (counter, 0);

  if (cugi_cuda.cuStreamWaitValue32 == NULL ||
      !CUGI_CALL (cuMemHostGetDevicePointer, (&counter_address, counter, 0), &wait_error) ||
      !CUGI_CALL (cuStreamWaitValue32, (handle, counter_address, 1, CU_STREAM_WAIT_VALUE_GEQ), &wait_error))
    {
      g_debug ("Staging an upload on the calling thread: %s",
               wait_error != NULL ? wait_error->message : "the driver lacks cuStreamWaitValue32");
      memcpy (staged, data, size);
      if (!CUGI_CALL (cuMemcpyHtoDAsync, (address, staged, size, handle), error))
        return FALSE;
      track_work (target, self, NULL, staging, NULL);
      return TRUE;
    }

  chunk_size = MAX (STAGING_MIN_CHUNK, (size - 1) / STAGING_MAX_CHUNKS + 1);
  chunk_size = (chunk_size + STAGING_CHUNK_ALIGNMENT - 1) & ~(STAGING_CHUNK_ALIGNMENT - 1);
  n_chunks = (size + chunk_size - 1) / chunk_size;
  for (guint i = 0; ok && i < n_chunks; i++)
    {
      gsize start = i * chunk_size;

      /* The wait for the first chunk is enqueued already. */
      ok = (i == 0 || CUGI_CALL (cuStreamWaitValue32, (handle, counter_address, i + 1,
                                                       CU_STREAM_WAIT_VALUE_GEQ), error)) &&
           CUGI_CALL (cuMemcpyHtoDAsync, (address + start, staged + start,
                                          MIN (chunk_size, size - start), handle), error);
    }

  /* Even after an error, what was enqueued waits for the staging: it must
   * run, and the memory stay until the stream is past it. */
  track_work (target, self, NULL, staging, counter_bytes);
  job = g_new (StagingJob, 1);
  job->bytes = g_bytes_ref (bytes);
  job->staging = g_steal_pointer (&staging);
  job->counter_bytes = g_steal_pointer (&counter_bytes);
  job->staged = staged;
  job->counter = counter;
  job->chunk_size = chunk_size;
  job->n_chunks = n_chunks;
  job->main_context = cugi_capture_main_context ();
  g_thread_pool_push (cugi_buffer_get_staging_threads (), job, NULL);
  return ok;
}

/**
 * cugi_buffer_upload_bytes_async:
 * @self: a #CugiBuffer
 * @offset: where to write in @self, in bytes
 * @bytes: the bytes to write
 * @stream: (nullable): the stream to enqueue the copy on, or %NULL for the
 *   default stream
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called in the thread-default main context of the
 *   caller once the bytes are on the device
 * @user_data: data for @callback
 *
 * Enqueues a copy of @bytes into @self at @offset (`cuMemcpyHtoDAsync`) and
 * returns at once; the copy keeps its place on the stream, after the work
 * enqueued before the call and before the work enqueued after it. Pageable
 * data is first copied into pinned staging memory (by a worker thread, where
 * the stream can wait for it), so that the transfer itself does not hold up
 * the host; bytes that already are pinned memory
 * (cugi_host_buffer_get_bytes(), or those of cugi_buffer_download_finish())
 * are sent as they are. @self and @bytes stay alive until the copy
 * completes, whatever the caller drops. Cancelling @cancellable completes
 * the call at once with %G_IO_ERROR_CANCELLED, but does not stop the copy
 * already enqueued.
 *
 * Since: 0.1
 */
void
cugi_buffer_upload_bytes_async (CugiBuffer          *self,
                                gsize                offset,
                                GBytes              *bytes,
                                CugiStream          *stream,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CugiStream *target;
  const guint8 *data;
  gsize size;

  g_return_if_fail (CUGI_IS_BUFFER (self));
  g_return_if_fail (bytes != NULL);
  g_return_if_fail (stream == NULL || CUGI_IS_STREAM (stream));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, cugi_buffer_upload_bytes_async);
  data = g_bytes_get_data (bytes, &size);
  if (g_task_return_error_if_cancelled (task))
    return;
  if (!check_usable_range (self, offset, size, _("buffer"), &error) ||
      (size > 0 && !enter_for_stream (self->context, stream, &scope, &target, &error)))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  if (size == 0)
    {
      g_task_return_boolean (task, TRUE);
      return;
    }

  if (is_pinned (data, size))
    {
      if (!CUGI_CALL (cuMemcpyHtoDAsync, (self->address + offset, data, size,
                                          cugi_stream_get_handle (target)), &error))
        {
          g_task_return_error (task, g_steal_pointer (&error));
          return;
        }
      /* The caller's pinned bytes, until the DMA is done. */
      track_work (target, self, NULL, NULL, bytes);
    }
  else if (!upload_pageable (self, self->address + offset, bytes, target, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  cugi_stream_complete_task (target, task, NULL);
}

/**
 * cugi_buffer_upload_bytes_finish:
 * @self: a #CugiBuffer
 * @result: the #GAsyncResult given to the callback
 * @error: return location for a #GError
 *
 * Finishes cugi_buffer_upload_bytes_async().
 *
 * Returns: %TRUE once the bytes are on the device, %FALSE with @error set
 *   (%G_IO_ERROR_CANCELLED when cancelled)
 *
 * Since: 0.1
 */
gboolean
cugi_buffer_upload_bytes_finish (CugiBuffer    *self,
                                 GAsyncResult  *result,
                                 GError       **error)
{
  g_return_val_if_fail (CUGI_IS_BUFFER (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == cugi_buffer_upload_bytes_async, FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/* ---- memsets -------------------------------------------------------------- */

static gboolean
buffer_memset (CugiBuffer  *self,
               gsize        offset,
               guint32      value,
               gsize        count,
               guint        element_size,
               CugiStream  *stream,
               GError     **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CugiStream *target;
  CUdeviceptr address;
  CUstream handle;
  gsize size;
  gboolean ok;

  if (!check_usable (self, error))
    return FALSE;
  if (!g_size_checked_mul (&size, count, element_size))
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("Out of range: %zu elements of %u bytes do not fit in the %zu bytes of the buffer"),
                   count, element_size, self->size);
      return FALSE;
    }
  if (!cugi_memory_check_range (self->size, offset, size, _("buffer"), error))
    return FALSE;
  address = self->address + offset;
  if (address % element_size != 0)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("Offset %zu is misaligned: a memset of %u-byte values needs an address that is "
                     "a multiple of %u"),
                   offset, element_size, element_size);
      return FALSE;
    }
  if (count == 0)
    return TRUE;
  if (!enter_for_stream (self->context, stream, &scope, &target, error))
    return FALSE;

  handle = cugi_stream_get_handle (target);
  switch (element_size)
    {
    case 1:
      ok = CUGI_CALL (cuMemsetD8Async, (address, (unsigned char) value, count, handle), error);
      break;
    case 2:
      ok = CUGI_CALL (cuMemsetD16Async, (address, (unsigned short) value, count, handle), error);
      break;
    case 4:
      ok = CUGI_CALL (cuMemsetD32Async, (address, value, count, handle), error);
      break;
    default:
      g_assert_not_reached ();
    }
  if (ok)
    track_work (target, self, NULL, NULL, NULL);
  return ok;
}

/**
 * cugi_buffer_memset_d8:
 * @self: a #CugiBuffer
 * @offset: where to start in @self, in bytes
 * @value: the byte to store
 * @count: the number of bytes to set
 * @stream: (nullable): the stream to enqueue the memset on, or %NULL for the
 *   default stream
 * @error: return location for a #GError
 *
 * Enqueues setting @count bytes from @offset to @value (`cuMemsetD8Async`).
 *
 * Returns: %TRUE if the memset was enqueued
 *
 * Since: 0.1
 */
gboolean
cugi_buffer_memset_d8 (CugiBuffer  *self,
                       gsize        offset,
                       guint8       value,
                       gsize        count,
                       CugiStream  *stream,
                       GError     **error)
{
  g_return_val_if_fail (CUGI_IS_BUFFER (self), FALSE);
  g_return_val_if_fail (stream == NULL || CUGI_IS_STREAM (stream), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return buffer_memset (self, offset, value, count, 1, stream, error);
}

/**
 * cugi_buffer_memset_d16:
 * @self: a #CugiBuffer
 * @offset: where to start in @self, in bytes; the address must be 2-byte
 *   aligned
 * @value: the 16-bit value to store
 * @count: the number of 16-bit values to set
 * @stream: (nullable): the stream to enqueue the memset on, or %NULL for the
 *   default stream
 * @error: return location for a #GError
 *
 * Enqueues setting @count 16-bit values from @offset to @value
 * (`cuMemsetD16Async`). A misaligned start is %CUGI_ERROR_INVALID_ARGUMENT.
 *
 * Returns: %TRUE if the memset was enqueued
 *
 * Since: 0.1
 */
gboolean
cugi_buffer_memset_d16 (CugiBuffer  *self,
                        gsize        offset,
                        guint16      value,
                        gsize        count,
                        CugiStream  *stream,
                        GError     **error)
{
  g_return_val_if_fail (CUGI_IS_BUFFER (self), FALSE);
  g_return_val_if_fail (stream == NULL || CUGI_IS_STREAM (stream), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return buffer_memset (self, offset, value, count, 2, stream, error);
}

/**
 * cugi_buffer_memset_d32:
 * @self: a #CugiBuffer
 * @offset: where to start in @self, in bytes; the address must be 4-byte
 *   aligned
 * @value: the 32-bit value to store
 * @count: the number of 32-bit values to set
 * @stream: (nullable): the stream to enqueue the memset on, or %NULL for the
 *   default stream
 * @error: return location for a #GError
 *
 * Enqueues setting @count 32-bit values from @offset to @value
 * (`cuMemsetD32Async`). A misaligned start is %CUGI_ERROR_INVALID_ARGUMENT.
 *
 * Returns: %TRUE if the memset was enqueued
 *
 * Since: 0.1
 */
gboolean
cugi_buffer_memset_d32 (CugiBuffer  *self,
                        gsize        offset,
                        guint32      value,
                        gsize        count,
                        CugiStream  *stream,
                        GError     **error)
{
  g_return_val_if_fail (CUGI_IS_BUFFER (self), FALSE);
  g_return_val_if_fail (stream == NULL || CUGI_IS_STREAM (stream), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return buffer_memset (self, offset, value, count, 4, stream, error);
}

/* ---- 2D and 3D transfers -------------------------------------------------- */

/* One end of a pitched copy inside a buffer. */
typedef struct
{
  CugiBuffer *buffer;
  gsize       offset;
  gsize       pitch;
  gsize       slice_height;
} PitchedRegion;

static gboolean
check_region (const PitchedRegion  *region,
              gsize                 width,
              gsize                 height,
              gsize                 depth,
              const char           *what,
              GError              **error)
{
  return check_usable (region->buffer, error) &&
         cugi_memory_check_pitched_range (region->buffer->size, region->offset, region->pitch,
                                          region->slice_height, width, height, depth, what, error);
}

static void
set_device_source (CUDA_MEMCPY3D       *copy,
                   const PitchedRegion *src)
{
  copy->srcMemoryType = CU_MEMORYTYPE_DEVICE;
  copy->srcDevice = src->buffer->address + src->offset;
  copy->srcPitch = src->pitch;
  copy->srcHeight = src->slice_height;
}

static void
set_device_destination (CUDA_MEMCPY3D       *copy,
                        const PitchedRegion *dst)
{
  copy->dstMemoryType = CU_MEMORYTYPE_DEVICE;
  copy->dstDevice = dst->buffer->address + dst->offset;
  copy->dstPitch = dst->pitch;
  copy->dstHeight = dst->slice_height;
}

/* A CUDA_MEMCPY3D between contexts: the same fields, with the contexts in
 * place of the reserved pointers. */
static CUDA_MEMCPY3D_PEER
peer_copy (const CUDA_MEMCPY3D *copy,
           CUcontext            src_context,
           CUcontext            dst_context)
{
  CUDA_MEMCPY3D_PEER peer = {
    .srcMemoryType = copy->srcMemoryType,
    .srcDevice = copy->srcDevice,
    .srcContext = src_context,
    .srcPitch = copy->srcPitch,
    .srcHeight = copy->srcHeight,
    .dstMemoryType = copy->dstMemoryType,
    .dstDevice = copy->dstDevice,
    .dstContext = dst_context,
    .dstPitch = copy->dstPitch,
    .dstHeight = copy->dstHeight,
    .WidthInBytes = copy->WidthInBytes,
    .Height = copy->Height,
    .Depth = copy->Depth,
  };
  return peer;
}

static gboolean
copy_region (const PitchedRegion  *dst,
             const PitchedRegion  *src,
             gsize                 width,
             gsize                 height,
             gsize                 depth,
             CugiStream           *stream,
             GError              **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CUDA_MEMCPY3D copy = { .WidthInBytes = width, .Height = height, .Depth = depth };
  CugiStream *target;
  CUstream handle;
  gboolean ok;

  if (!check_region (dst, width, height, depth, _("destination buffer"), error) ||
      !check_region (src, width, height, depth, _("source buffer"), error))
    return FALSE;
  if (width == 0 || height == 0 || depth == 0)
    return TRUE;
  if (!enter_for_stream (dst->buffer->context, stream, &scope, &target, error))
    return FALSE;

  set_device_source (&copy, src);
  set_device_destination (&copy, dst);
  handle = cugi_stream_get_handle (target);
  if (same_context (dst->buffer, src->buffer))
    ok = CUGI_CALL (cuMemcpy3DAsync, (&copy, handle), error);
  else
    {
      CUDA_MEMCPY3D_PEER peer = peer_copy (&copy, cugi_context_get_handle (src->buffer->context),
                                           cugi_context_get_handle (dst->buffer->context));
      ok = CUGI_CALL (cuMemcpy3DPeerAsync, (&peer, handle), error);
    }
  if (ok)
    track_work (target, dst->buffer, src->buffer, NULL, NULL);
  return ok;
}

/* The packed host side of a 2D or 3D transfer must hold exactly the region. */
static gboolean
check_packed_size (gsize        len,
                   gsize        width,
                   gsize        height,
                   gsize        depth,
                   GError     **error)
{
  gsize size;

  if (cugi_memory_region_size (width, height, depth, &size) && size == len)
    return TRUE;
  g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
               _("The data has %zu bytes, but %zu slices of %zu rows of %zu bytes were to be copied"),
               len, depth, height, width);
  return FALSE;
}

static gboolean
upload_region (const PitchedRegion  *dst,
               const guint8         *data,
               gsize                 len,
               gsize                 width,
               gsize                 height,
               gsize                 depth,
               GError              **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CUDA_MEMCPY3D copy = {
    .srcMemoryType = CU_MEMORYTYPE_HOST,
    .srcHost = data,
    .srcPitch = width,
    .srcHeight = height,
    .WidthInBytes = width,
    .Height = height,
    .Depth = depth,
  };

  if (!check_region (dst, width, height, depth, _("buffer"), error) ||
      !check_packed_size (len, width, height, depth, error))
    return FALSE;
  if (len == 0)
    return TRUE;
  set_device_destination (&copy, dst);
  return cugi_context_enter (dst->buffer->context, &scope, error) &&
         CUGI_CALL (cuMemcpy3D, (&copy), error) &&
         wait_for_pageable_upload (error);
}

static GBytes *
download_region (const PitchedRegion  *src,
                 gsize                 width,
                 gsize                 height,
                 gsize                 depth,
                 GError              **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  g_autofree guint8 *data = NULL;
  CUDA_MEMCPY3D copy = {
    .dstMemoryType = CU_MEMORYTYPE_HOST,
    .dstPitch = width,
    .dstHeight = height,
    .WidthInBytes = width,
    .Height = height,
    .Depth = depth,
  };
  gsize size = 0;

  if (!check_region (src, width, height, depth, _("buffer"), error))
    return NULL;
  /* The region fits in the buffer, so its packed size cannot overflow. */
  cugi_memory_region_size (width, height, depth, &size);
  if (size == 0)
    return g_bytes_new (NULL, 0);
  if ((data = try_alloc_host (size, error)) == NULL)
    return NULL;
  copy.dstHost = data;
  set_device_source (&copy, src);
  if (!cugi_context_enter (src->buffer->context, &scope, error) ||
      !CUGI_CALL (cuMemcpy3D, (&copy), error))
    return NULL;
  return g_bytes_new_take (g_steal_pointer (&data), size);
}

/**
 * cugi_buffer_copy_2d:
 * @dst: the buffer to copy to
 * @dst_offset: where the first row starts in @dst, in bytes
 * @dst_pitch: the distance between rows in @dst, in bytes, at least @width
 * @src: the buffer to copy from
 * @src_offset: where the first row starts in @src, in bytes
 * @src_pitch: the distance between rows in @src, in bytes, at least @width
 * @width: the number of bytes of each row to copy
 * @height: the number of rows
 * @stream: (nullable): the stream to enqueue the copy on (of @dst's
 *   context), or %NULL for the default stream
 * @error: return location for a #GError
 *
 * Enqueues a copy of a @width × @height rectangle between device buffers
 * whose rows are laid out with different pitches (`cuMemcpy3DAsync`, or its
 * peer form between contexts). Both regions are checked against their
 * buffers. Both buffers stay alive until the copy completes.
 *
 * Returns: %TRUE if the copy was enqueued
 *
 * Since: 0.1
 */
gboolean
cugi_buffer_copy_2d (CugiBuffer  *dst,
                     gsize        dst_offset,
                     gsize        dst_pitch,
                     CugiBuffer  *src,
                     gsize        src_offset,
                     gsize        src_pitch,
                     gsize        width,
                     gsize        height,
                     CugiStream  *stream,
                     GError     **error)
{
  PitchedRegion to = { dst, dst_offset, dst_pitch, height };
  PitchedRegion from = { src, src_offset, src_pitch, height };

  g_return_val_if_fail (CUGI_IS_BUFFER (dst), FALSE);
  g_return_val_if_fail (CUGI_IS_BUFFER (src), FALSE);
  g_return_val_if_fail (stream == NULL || CUGI_IS_STREAM (stream), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return copy_region (&to, &from, width, height, 1, stream, error);
}

/**
 * cugi_buffer_upload_2d:
 * @self: a #CugiBuffer
 * @offset: where the first row starts in @self, in bytes
 * @pitch: the distance between rows in @self, in bytes, at least @width
 * @data: (array length=len): @height packed rows of @width bytes
 * @len: the size of @data: @width × @height
 * @width: the number of bytes of each row
 * @height: the number of rows
 * @error: return location for a #GError
 *
 * Copies packed rows from the host into rows @pitch bytes apart in @self
 * (`cuMemcpy3D`), for instance into a buffer from cugi_buffer_new_pitched().
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
cugi_buffer_upload_2d (CugiBuffer    *self,
                       gsize          offset,
                       gsize          pitch,
                       const guint8  *data,
                       gsize          len,
                       gsize          width,
                       gsize          height,
                       GError       **error)
{
  PitchedRegion to = { self, offset, pitch, height };

  g_return_val_if_fail (CUGI_IS_BUFFER (self), FALSE);
  g_return_val_if_fail (data != NULL || len == 0, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return upload_region (&to, data, len, width, height, 1, error);
}

/**
 * cugi_buffer_download_2d:
 * @self: a #CugiBuffer
 * @offset: where the first row starts in @self, in bytes
 * @pitch: the distance between rows in @self, in bytes, at least @width
 * @width: the number of bytes of each row
 * @height: the number of rows
 * @error: return location for a #GError
 *
 * Copies @height rows of @width bytes, @pitch bytes apart in @self, to the
 * host (`cuMemcpy3D`).
 *
 * Returns: (transfer full): the rows, packed (@width × @height bytes), or
 *   %NULL with @error set
 *
 * Since: 0.1
 */
GBytes *
cugi_buffer_download_2d (CugiBuffer  *self,
                         gsize        offset,
                         gsize        pitch,
                         gsize        width,
                         gsize        height,
                         GError     **error)
{
  PitchedRegion from = { self, offset, pitch, height };

  g_return_val_if_fail (CUGI_IS_BUFFER (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return download_region (&from, width, height, 1, error);
}

/**
 * cugi_buffer_copy_3d:
 * @dst: the buffer to copy to
 * @dst_offset: where the first row starts in @dst, in bytes
 * @dst_pitch: the distance between rows in @dst, in bytes, at least @width
 * @dst_height: the number of rows between slices in @dst, at least @height
 * @src: the buffer to copy from
 * @src_offset: where the first row starts in @src, in bytes
 * @src_pitch: the distance between rows in @src, in bytes, at least @width
 * @src_height: the number of rows between slices in @src, at least @height
 * @width: the number of bytes of each row to copy
 * @height: the number of rows of each slice to copy
 * @depth: the number of slices
 * @stream: (nullable): the stream to enqueue the copy on (of @dst's
 *   context), or %NULL for the default stream
 * @error: return location for a #GError
 *
 * Enqueues a copy of a @width × @height × @depth box between device
 * buffers (`cuMemcpy3DAsync`, or its peer form between contexts). Both
 * buffers stay alive until the copy completes.
 *
 * Returns: %TRUE if the copy was enqueued
 *
 * Since: 0.1
 */
gboolean
cugi_buffer_copy_3d (CugiBuffer  *dst,
                     gsize        dst_offset,
                     gsize        dst_pitch,
                     gsize        dst_height,
                     CugiBuffer  *src,
                     gsize        src_offset,
                     gsize        src_pitch,
                     gsize        src_height,
                     gsize        width,
                     gsize        height,
                     gsize        depth,
                     CugiStream  *stream,
                     GError     **error)
{
  PitchedRegion to = { dst, dst_offset, dst_pitch, dst_height };
  PitchedRegion from = { src, src_offset, src_pitch, src_height };

  g_return_val_if_fail (CUGI_IS_BUFFER (dst), FALSE);
  g_return_val_if_fail (CUGI_IS_BUFFER (src), FALSE);
  g_return_val_if_fail (stream == NULL || CUGI_IS_STREAM (stream), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return copy_region (&to, &from, width, height, depth, stream, error);
}

/**
 * cugi_buffer_upload_3d:
 * @self: a #CugiBuffer
 * @offset: where the first row starts in @self, in bytes
 * @pitch: the distance between rows in @self, in bytes, at least @width
 * @slice_height: the number of rows between slices in @self, at least @height
 * @data: (array length=len): @depth packed slices of @height packed rows of
 *   @width bytes
 * @len: the size of @data: @width × @height × @depth
 * @width: the number of bytes of each row
 * @height: the number of rows of each slice
 * @depth: the number of slices
 * @error: return location for a #GError
 *
 * Copies a packed box from the host into @self (`cuMemcpy3D`).
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
cugi_buffer_upload_3d (CugiBuffer    *self,
                       gsize          offset,
                       gsize          pitch,
                       gsize          slice_height,
                       const guint8  *data,
                       gsize          len,
                       gsize          width,
                       gsize          height,
                       gsize          depth,
                       GError       **error)
{
  PitchedRegion to = { self, offset, pitch, slice_height };

  g_return_val_if_fail (CUGI_IS_BUFFER (self), FALSE);
  g_return_val_if_fail (data != NULL || len == 0, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return upload_region (&to, data, len, width, height, depth, error);
}

/**
 * cugi_buffer_download_3d:
 * @self: a #CugiBuffer
 * @offset: where the first row starts in @self, in bytes
 * @pitch: the distance between rows in @self, in bytes, at least @width
 * @slice_height: the number of rows between slices in @self, at least @height
 * @width: the number of bytes of each row
 * @height: the number of rows of each slice
 * @depth: the number of slices
 * @error: return location for a #GError
 *
 * Copies a box of @self to the host (`cuMemcpy3D`).
 *
 * Returns: (transfer full): the box, packed (@width × @height × @depth
 *   bytes), or %NULL with @error set
 *
 * Since: 0.1
 */
GBytes *
cugi_buffer_download_3d (CugiBuffer  *self,
                         gsize        offset,
                         gsize        pitch,
                         gsize        slice_height,
                         gsize        width,
                         gsize        height,
                         gsize        depth,
                         GError     **error)
{
  PitchedRegion from = { self, offset, pitch, slice_height };

  g_return_val_if_fail (CUGI_IS_BUFFER (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return download_region (&from, width, height, depth, error);
}

/* A 2D copy between @self and a pinned host buffer, both regions checked. */
static gboolean
copy_2d_with_host_buffer (const PitchedRegion  *device,
                          CugiHostBuffer       *host,
                          gsize                 host_offset,
                          gsize                 host_pitch,
                          gsize                 width,
                          gsize                 height,
                          CugiStream           *stream,
                          Direction             direction,
                          GError              **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CUDA_MEMCPY3D copy = { .WidthInBytes = width, .Height = height, .Depth = 1 };
  CugiBuffer *self = device->buffer;
  CugiStream *target;
  gpointer host_address;
  guint8 *host_data;

  if (!check_region (device, width, height, 1, _("buffer"), error) ||
      !cugi_host_buffer_get_address (host, &host_address, error) ||
      !cugi_memory_check_pitched_range (cugi_host_buffer_get_size (host), host_offset, host_pitch,
                                        height, width, height, 1, _("host buffer"), error))
    return FALSE;
  if (width == 0 || height == 0)
    return TRUE;
  if (!enter_for_stream (self->context, stream, &scope, &target, error))
    return FALSE;

  host_data = (guint8 *) host_address + host_offset;
  if (direction == TO_DEVICE)
    {
      copy.srcMemoryType = CU_MEMORYTYPE_HOST;
      copy.srcHost = host_data;
      copy.srcPitch = host_pitch;
      copy.srcHeight = height;
      set_device_destination (&copy, device);
    }
  else
    {
      set_device_source (&copy, device);
      copy.dstMemoryType = CU_MEMORYTYPE_HOST;
      copy.dstHost = host_data;
      copy.dstPitch = host_pitch;
      copy.dstHeight = height;
    }

  /* As in 1D: without a stream, the copy is done on return. */
  if (stream == NULL)
    return CUGI_CALL (cuMemcpy3D, (&copy), error);
  if (!CUGI_CALL (cuMemcpy3DAsync, (&copy, cugi_stream_get_handle (target)), error))
    return FALSE;
  track_work (target, self, NULL, host, NULL);
  return TRUE;
}

/**
 * cugi_buffer_upload_2d_from_host:
 * @self: a #CugiBuffer
 * @offset: where the first row starts in @self, in bytes
 * @pitch: the distance between rows in @self, in bytes, at least @width
 * @host: the pinned host buffer to read
 * @host_offset: where the first row starts in @host, in bytes
 * @host_pitch: the distance between rows in @host, in bytes, at least @width
 * @width: the number of bytes of each row
 * @height: the number of rows
 * @stream: (nullable): the stream to enqueue the copy on, or %NULL to copy
 *   at once
 * @error: return location for a #GError
 *
 * Copies a @width × @height rectangle from pinned host memory into @self,
 * each side with its own pitch: a video plane whose rows are padded, say,
 * from a #CugiHostBuffer into a buffer from cugi_buffer_new_pitched(). Both
 * regions are checked against their buffers.
 *
 * On a stream the copy is asynchronous (`cuMemcpy3DAsync`: the DMA engine
 * reads @host while the host goes on), and both buffers stay alive until it
 * completes; do not write to that part of @host before then. Without a
 * stream it returns once the copy is done.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
cugi_buffer_upload_2d_from_host (CugiBuffer      *self,
                                 gsize            offset,
                                 gsize            pitch,
                                 CugiHostBuffer  *host,
                                 gsize            host_offset,
                                 gsize            host_pitch,
                                 gsize            width,
                                 gsize            height,
                                 CugiStream      *stream,
                                 GError         **error)
{
  PitchedRegion to = { self, offset, pitch, height };

  g_return_val_if_fail (CUGI_IS_BUFFER (self), FALSE);
  g_return_val_if_fail (CUGI_IS_HOST_BUFFER (host), FALSE);
  g_return_val_if_fail (stream == NULL || CUGI_IS_STREAM (stream), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return copy_2d_with_host_buffer (&to, host, host_offset, host_pitch, width, height,
                                   stream, TO_DEVICE, error);
}

/**
 * cugi_buffer_download_2d_to_host:
 * @self: a #CugiBuffer
 * @offset: where the first row starts in @self, in bytes
 * @pitch: the distance between rows in @self, in bytes, at least @width
 * @host: the pinned host buffer to write
 * @host_offset: where the first row starts in @host, in bytes
 * @host_pitch: the distance between rows in @host, in bytes, at least @width
 * @width: the number of bytes of each row
 * @height: the number of rows
 * @stream: (nullable): the stream to enqueue the copy on, or %NULL to copy
 *   at once
 * @error: return location for a #GError
 *
 * Copies a @width × @height rectangle of @self into pinned host memory, each
 * side with its own pitch: the counterpart of
 * cugi_buffer_upload_2d_from_host(). On a stream the copy is asynchronous
 * (`cuMemcpy3DAsync`) and both buffers stay alive until it completes; read
 * @host only after that (cugi_stream_synchronize(), or an event). Without a
 * stream it returns once the copy is done.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
cugi_buffer_download_2d_to_host (CugiBuffer      *self,
                                 gsize            offset,
                                 gsize            pitch,
                                 CugiHostBuffer  *host,
                                 gsize            host_offset,
                                 gsize            host_pitch,
                                 gsize            width,
                                 gsize            height,
                                 CugiStream      *stream,
                                 GError         **error)
{
  PitchedRegion from = { self, offset, pitch, height };

  g_return_val_if_fail (CUGI_IS_BUFFER (self), FALSE);
  g_return_val_if_fail (CUGI_IS_HOST_BUFFER (host), FALSE);
  g_return_val_if_fail (stream == NULL || CUGI_IS_STREAM (stream), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return copy_2d_with_host_buffer (&from, host, host_offset, host_pitch, width, height,
                                   stream, TO_HOST, error);
}

/* ---- managed memory ------------------------------------------------------- */

static CUmemLocation
location_of (CugiDevice *device_or_host)
{
  CUmemLocation location = { .type = CU_MEM_LOCATION_TYPE_HOST, .id = 0 };

  if (device_or_host != NULL)
    {
      location.type = CU_MEM_LOCATION_TYPE_DEVICE;
      location.id = cugi_device_get_handle (device_or_host);
    }
  return location;
}

static gboolean
check_managed (CugiBuffer  *self,
               gboolean     available,
               GError     **error)
{
  if (!check_usable (self, error))
    return FALSE;
  if (!self->managed)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                           _("The buffer is not managed memory (see cugi_buffer_new_managed())"));
      return FALSE;
    }
  if (!available)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_NOT_SUPPORTED,
                           _("This driver cannot prefetch or advise managed memory"));
      return FALSE;
    }
  return TRUE;
}

/**
 * cugi_buffer_prefetch:
 * @self: a managed #CugiBuffer
 * @device: (nullable): the device to move the memory to, or %NULL for the
 *   host
 * @stream: (nullable): the stream to enqueue the prefetch on, or %NULL for
 *   the default stream
 * @error: return location for a #GError
 *
 * Enqueues migrating the pages of @self to @device or to the host
 * (`cuMemPrefetchAsync`), so that later accesses there do not fault. Only for
 * managed memory (%CUGI_ERROR_INVALID_ARGUMENT otherwise); devices without
 * concurrent managed access give %CUGI_ERROR_INVALID_ARGUMENT or
 * %CUGI_ERROR_NOT_SUPPORTED from the driver.
 *
 * Returns: %TRUE if the prefetch was enqueued
 *
 * Since: 0.1
 */
gboolean
cugi_buffer_prefetch (CugiBuffer  *self,
                      CugiDevice  *device,
                      CugiStream  *stream,
                      GError     **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CugiStream *target;

  g_return_val_if_fail (CUGI_IS_BUFFER (self), FALSE);
  g_return_val_if_fail (device == NULL || CUGI_IS_DEVICE (device), FALSE);
  g_return_val_if_fail (stream == NULL || CUGI_IS_STREAM (stream), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!check_managed (self, cugi_cuda.cuMemPrefetchAsync != NULL, error))
    return FALSE;
  if (self->size == 0)
    return TRUE;
  if (!enter_for_stream (self->context, stream, &scope, &target, error))
    return FALSE;
  if (!CUGI_CALL (cuMemPrefetchAsync, (self->address, self->size, location_of (device), 0,
                                       cugi_stream_get_handle (target)), error))
    return FALSE;
  track_work (target, self, NULL, NULL, NULL);
  return TRUE;
}

/**
 * cugi_buffer_advise:
 * @self: a managed #CugiBuffer
 * @advice: the hint
 * @device: (nullable): the device the hint is about, or %NULL for the host
 *   (ignored for %CUGI_MEM_ADVICE_SET_READ_MOSTLY and
 *   %CUGI_MEM_ADVICE_UNSET_READ_MOSTLY)
 * @error: return location for a #GError
 *
 * Tells the driver how @self will be used (`cuMemAdvise`), so that it places
 * and migrates the pages well. Only for managed memory.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
cugi_buffer_advise (CugiBuffer     *self,
                    CugiMemAdvice   advice,
                    CugiDevice     *device,
                    GError        **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;

  g_return_val_if_fail (CUGI_IS_BUFFER (self), FALSE);
  g_return_val_if_fail (device == NULL || CUGI_IS_DEVICE (device), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (advice < CUGI_MEM_ADVICE_SET_READ_MOSTLY || advice > CUGI_MEM_ADVICE_UNSET_ACCESSED_BY)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("%d is not a CugiMemAdvice value"), (int) advice);
      return FALSE;
    }
  if (!check_managed (self, cugi_cuda.cuMemAdvise != NULL, error))
    return FALSE;
  if (self->size == 0)
    return TRUE;
  return cugi_context_enter (self->context, &scope, error) &&
         CUGI_CALL (cuMemAdvise, (self->address, self->size, (CUmem_advise) advice,
                                  location_of (device)), error);
}

/* ---- IPC ------------------------------------------------------------------ */

/**
 * cugi_buffer_get_ipc_handle:
 * @self: a #CugiBuffer
 * @error: return location for a #GError
 *
 * Exports @self to other processes (`cuIpcGetMemHandle`): send the handle
 * to one, which opens it with cugi_buffer_new_from_ipc_handle(). Only whole
 * allocations have handles: buffers from cugi_buffer_new(),
 * cugi_buffer_new_pitched() and memory pools. Views, managed, zero-size and
 * imported buffers give %CUGI_ERROR_INVALID_ARGUMENT. Keep @self until every
 * other process has closed its mapping.
 *
 * Returns: (transfer full): the 64-byte handle, or %NULL with @error set
 *
 * Since: 0.1
 */
GBytes *
cugi_buffer_get_ipc_handle (CugiBuffer  *self,
                            GError     **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CUipcMemHandle handle;

  g_return_val_if_fail (CUGI_IS_BUFFER (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!check_usable (self, error))
    return NULL;
  if ((self->memory != BUFFER_MEMORY_DEVICE && self->memory != BUFFER_MEMORY_POOLED) || self->managed)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                           _("Only whole device allocations have IPC handles, not views, managed, "
                             "zero-size or imported buffers"));
      return NULL;
    }
  if (cugi_cuda.cuIpcGetMemHandle == NULL)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_NOT_SUPPORTED,
                           _("This driver does not support IPC memory handles"));
      return NULL;
    }
  if (!cugi_context_enter (self->context, &scope, error) ||
      !CUGI_CALL (cuIpcGetMemHandle, (&handle, self->address), error))
    return NULL;
  return g_bytes_new (&handle, sizeof handle);
}
