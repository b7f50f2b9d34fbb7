/* cugi-context.c: CUDA contexts, primary and created, and making them current */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "cugi-context-private.h"
#include "cugi-private.h"

/**
 * CugiContext:
 *
 * A CUDA context: the GPU state (memory, modules, streams) of one device that
 * work runs in.
 *
 * cugi uses the device's primary context unless told otherwise
 * (cugi_context_get_default(), cugi_device_get_primary_context()): it is the
 * context the CUDA runtime, PyTorch, CuPy and Warp use, so memory passes
 * between them. cugi_context_new() makes a separate context with its own
 * flags.
 *
 * Every cugi call that uses a context makes it current on the calling thread
 * for the call's duration and then restores what was current before, so
 * callers never manage the driver's context stack. cugi_context_push() and
 * cugi_context_pop() remain for code that calls the driver or the runtime
 * directly and needs a context current around it.
 *
 * A context keeps its #CugiDevice alive, and everything made in a context
 * keeps the context alive, so objects may be released in any order.
 *
 * Since: 0.1
 */

#define CONTEXT_FLAGS_KNOWN (CUGI_CONTEXT_FLAGS_SCHED_SPIN | CUGI_CONTEXT_FLAGS_SCHED_YIELD | \
                             CUGI_CONTEXT_FLAGS_SCHED_BLOCKING_SYNC | CUGI_CONTEXT_FLAGS_MAP_HOST | \
                             CUGI_CONTEXT_FLAGS_LMEM_RESIZE_TO_MAX)

G_STATIC_ASSERT ((int) CUGI_CONTEXT_FLAGS_SCHED_SPIN == CU_CTX_SCHED_SPIN);
G_STATIC_ASSERT ((int) CUGI_CONTEXT_FLAGS_SCHED_YIELD == CU_CTX_SCHED_YIELD);
G_STATIC_ASSERT ((int) CUGI_CONTEXT_FLAGS_SCHED_BLOCKING_SYNC == CU_CTX_SCHED_BLOCKING_SYNC);
G_STATIC_ASSERT ((int) CUGI_CONTEXT_FLAGS_MAP_HOST == CU_CTX_MAP_HOST);
G_STATIC_ASSERT ((int) CUGI_CONTEXT_FLAGS_LMEM_RESIZE_TO_MAX == CU_CTX_LMEM_RESIZE_TO_MAX);

struct _CugiContext
{
  GObject parent_instance;

  CugiDevice      *device;
  CUcontext        handle;      /* NULL: not made by cugi, or lost in a reset */
  gboolean         is_primary;
  gboolean         owns_handle; /* made by cugi_context_new(): destroyed with it */
  gpointer         release_data; /* what keeps a wrapped foreign context alive */
  GDestroyNotify   release;
  CugiContextFlags flags;
  guint            api_version;
  int              generation;  /* atomic: cugi_context_reset() calls */

  GMutex           null_stream_lock;
  CugiStream      *null_stream; /* made on first use; atomic */
};

G_DEFINE_FINAL_TYPE (CugiContext, cugi_context, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_DEVICE,
  PROP_IS_PRIMARY,
  PROP_FLAGS,
  PROP_API_VERSION,
  PROP_HANDLE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* The contexts cugi_context_new() made, by handle, so that
 * cugi_context_get_current() can find the object for a CUcontext. Weak
 * references: the table must not keep a context alive, and a lookup must not
 * revive one that is being finalized. */
static GMutex created_lock;
static GHashTable *created_contexts; /* CUcontext -> GWeakRef * */

static void
weak_ref_free (gpointer data)
{
  g_weak_ref_clear (data);
  g_free (data);
}

static void
register_created (CugiContext *self)
{
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&created_lock);
  GWeakRef *ref = g_new0 (GWeakRef, 1);

  if (created_contexts == NULL)
    created_contexts = g_hash_table_new_full (NULL, NULL, NULL, weak_ref_free);
  g_weak_ref_init (ref, self);
  g_hash_table_insert (created_contexts, self->handle, ref);
}

static void
unregister_created (CUcontext handle)
{
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&created_lock);

  if (created_contexts != NULL)
    g_hash_table_remove (created_contexts, handle);
}

static CugiContext *
lookup_created (CUcontext handle)
{
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&created_lock);
  GWeakRef *ref = created_contexts != NULL ? g_hash_table_lookup (created_contexts, handle) : NULL;

  return ref != NULL ? g_weak_ref_get (ref) : NULL;
}

/* What cugi_context_push() pushed on this thread and cugi_context_pop() has
 * not popped yet, newest last. Each entry holds a reference: a context stays
 * alive while it is current through a push. */
static GPrivate pushed_contexts = G_PRIVATE_INIT ((GDestroyNotify) g_ptr_array_unref);

static GPtrArray *
get_pushed_contexts (gboolean create)
{
  GPtrArray *stack = g_private_get (&pushed_contexts);

  if (stack == NULL && create)
    {
      stack = g_ptr_array_new_with_free_func (g_object_unref);
      g_private_set (&pushed_contexts, stack);
    }
  return stack;
}

static void
cugi_context_dispose (GObject *object)
{
  CugiContext *self = CUGI_CONTEXT (object);

  /* The stream points back at its context: drop it while the context is
   * still whole. */
  g_clear_object (&self->null_stream);

  G_OBJECT_CLASS (cugi_context_parent_class)->dispose (object);
}

static void
cugi_context_finalize (GObject *object)
{
  CugiContext *self = CUGI_CONTEXT (object);

  if (self->handle != NULL)
    {
      if (self->is_primary)
        {
          cugi_cuda.cuDevicePrimaryCtxRelease (cugi_device_get_handle (self->device));
        }
      else
        {
          unregister_created (self->handle);
          if (self->owns_handle)
            cugi_cuda.cuCtxDestroy (self->handle);
        }
    }
  if (self->release != NULL)
    self->release (self->release_data);
  g_clear_object (&self->device);
  g_mutex_clear (&self->null_stream_lock);

  G_OBJECT_CLASS (cugi_context_parent_class)->finalize (object);
}

static void
cugi_context_get_property (GObject    *object,
                           guint       prop_id,
                           GValue     *value,
                           GParamSpec *pspec)
{
  CugiContext *self = CUGI_CONTEXT (object);

  switch (prop_id)
    {
    case PROP_DEVICE:
      g_value_set_object (value, self->device);
      break;
    case PROP_IS_PRIMARY:
      g_value_set_boolean (value, self->is_primary);
      break;
    case PROP_FLAGS:
      g_value_set_flags (value, self->flags);
      break;
    case PROP_API_VERSION:
      g_value_set_uint (value, self->api_version);
      break;
    case PROP_HANDLE:
      g_value_set_uint64 (value, (guint64) (guintptr) self->handle);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cugi_context_class_init (CugiContextClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags flags = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  object_class->dispose = cugi_context_dispose;
  object_class->finalize = cugi_context_finalize;
  object_class->get_property = cugi_context_get_property;

  /**
   * CugiContext:device:
   *
   * The device the context belongs to; the context keeps it alive.
   *
   * Since: 0.1
   */
  properties[PROP_DEVICE] = g_param_spec_object ("device", NULL, NULL, CUGI_TYPE_DEVICE, flags);
  /**
   * CugiContext:is-primary:
   *
   * Whether this is its device's primary context, the one shared with the
   * CUDA runtime API, rather than one made with cugi_context_new() or by
   * other code (cugi_context_new_for_handle()).
   *
   * Since: 0.1
   */
  properties[PROP_IS_PRIMARY] = g_param_spec_boolean ("is-primary", NULL, NULL, FALSE, flags);
  /**
   * CugiContext:flags:
   *
   * The flags the context runs with, as the driver reports them. For a
   * primary context they are whatever it was activated with, by cugi or by
   * another library.
   *
   * Since: 0.1
   */
  properties[PROP_FLAGS] = g_param_spec_flags ("flags", NULL, NULL, CUGI_TYPE_CONTEXT_FLAGS,
                                               CUGI_CONTEXT_FLAGS_NONE, flags);
  /**
   * CugiContext:api-version:
   *
   * The version of the driver API the context was made with, as
   * `cuCtxGetApiVersion()` reports it (e.g. 3020).
   *
   * Since: 0.1
   */
  properties[PROP_API_VERSION] = g_param_spec_uint ("api-version", NULL, NULL, 0, G_MAXUINT, 0, flags);
  /**
   * CugiContext:handle:
   *
   * The `CUcontext`, for code that calls the driver API itself (0 while a
   * failed cugi_context_reset() left none). The context keeps ownership.
   *
   * Since: 0.1
   */
  properties[PROP_HANDLE] = g_param_spec_uint64 ("handle", NULL, NULL, 0, G_MAXUINT64, 0, flags);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
cugi_context_init (CugiContext *self)
{
  g_mutex_init (&self->null_stream_lock);
}

gboolean
cugi_context_check (CugiContext *self,
                    GError     **error)
{
  if (G_LIKELY (self->handle != NULL))
    return TRUE;
  g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE,
                       _("this CugiContext has no CUDA context: it was not made by cugi, or "
                         "cugi_context_reset() could not make its primary context again"));
  return FALSE;
}

/* cugi_context_enter() beyond its common case: @self is not current, or
 * cuCtxGetCurrent() failed with @result. */
static G_GNUC_NO_INLINE gboolean
push_context (CugiContext      *self,
              CugiContextScope *scope,
              CUresult          result,
              GError          **error)
{
  if (!cugi_check_result (result, "cuCtxGetCurrent", error) ||
      !CUGI_CALL (cuCtxPushCurrent, (self->handle), error))
    return FALSE;
  scope->pushed = TRUE;
  return TRUE;
}

CUGI_LAUNCH_PATH gboolean
cugi_context_enter (CugiContext      *self,
                    CugiContextScope *scope,
                    GError          **error)
{
  CUcontext current = NULL;
  CUresult result;

  scope->pushed = FALSE;
  if (!cugi_context_check (self, error))
    return FALSE;
  /* Every call of cugi comes here: the common case, the context current
   * already, calls nothing else. */
  result = cugi_cuda.cuCtxGetCurrent (&current);
  if (G_LIKELY (result == CUDA_SUCCESS && current == self->handle))
    return TRUE;
  return push_context (self, scope, result, error);
}

CUGI_LAUNCH_PATH void
cugi_context_leave (CugiContextScope *scope)
{
  CUcontext popped = NULL;

  if (!scope->pushed)
    return;
  scope->pushed = FALSE;
  cugi_cuda.cuCtxPopCurrent (&popped);
}

CUcontext
cugi_context_get_handle (CugiContext *self)
{
  return self->handle;
}

CUGI_LAUNCH_PATH guint
cugi_context_get_generation (CugiContext *self)
{
  return (guint) g_atomic_int_get (&self->generation);
}

CugiContext *
cugi_context_resolve (CugiContext *context_or_null,
                      GError     **error)
{
  if (context_or_null != NULL)
    return g_object_ref (context_or_null);
  return cugi_context_get_default (error);
}

CugiStream *
cugi_context_get_null_stream (CugiContext *self,
                              CugiStream *(*make) (CugiContext *context))
{
  /* Every launch without a stream asks: no lock once it exists. */
  CugiStream *stream = g_atomic_pointer_get (&self->null_stream);
  g_autoptr(GMutexLocker) locker = NULL;

  if (G_LIKELY (stream != NULL))
    return stream;
  locker = g_mutex_locker_new (&self->null_stream_lock);
  if (self->null_stream == NULL)
    g_atomic_pointer_set (&self->null_stream, make (self));
  return self->null_stream;
}

/* Reads what the driver says about a context cugi now holds. */
static gboolean
read_context_state (CugiContext *self,
                    GError     **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  unsigned int flags = 0;
  unsigned int api_version = 0;

  if (!CUGI_CALL (cuCtxGetApiVersion, (self->handle, &api_version), error) ||
      !cugi_context_enter (self, &scope, error) ||
      !CUGI_CALL (cuCtxGetFlags, (&flags), error))
    return FALSE;
  self->api_version = api_version;
  self->flags = flags & CONTEXT_FLAGS_KNOWN;
  return TRUE;
}

/* Retains @device's primary context and wraps it; for
 * cugi_device_keep_primary_context(), which keeps the one wrapper. */
static CugiContext *
new_primary (CugiDevice *device,
             GError    **error)
{
  g_autoptr(CugiContext) self = NULL;
  CUcontext handle = NULL;

  if (!cugi_device_check (device, error) ||
      !CUGI_CALL (cuDevicePrimaryCtxRetain, (&handle, cugi_device_get_handle (device)), error))
    return NULL;

  self = g_object_new (CUGI_TYPE_CONTEXT, NULL);
  self->device = g_object_ref (device);
  self->is_primary = TRUE;
  self->handle = handle;
  if (!read_context_state (self, error))
    return NULL;
  return g_steal_pointer (&self);
}

/**
 * cugi_device_get_primary_context:
 * @self: a #CugiDevice
 * @error: return location for a #GError
 *
 * The device's primary context: the one context per device that the CUDA
 * runtime API, PyTorch, CuPy and Warp share, and that cugi uses unless given
 * another. Memory made in it can be handed to and from those libraries.
 *
 * Every call returns the same #CugiContext. Once made, cugi keeps the
 * primary context retained for the rest of the process, as the CUDA runtime
 * does, so that memory, modules and settings persist from one call to the
 * next.
 *
 * Returns: (transfer full): the primary context, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiContext *
cugi_device_get_primary_context (CugiDevice *self,
                                 GError    **error)
{
  g_return_val_if_fail (CUGI_IS_DEVICE (self), NULL);

  if (!cugi_device_check (self, error))
    return NULL;
  return cugi_device_keep_primary_context (self, new_primary, error);
}

static gboolean
check_flags (CugiContextFlags flags,
             GError         **error)
{
  guint sched = flags & CU_CTX_SCHED_MASK;

  if ((flags & ~CONTEXT_FLAGS_KNOWN) != 0)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("unknown context flags 0x%x"), (guint) (flags & ~CONTEXT_FLAGS_KNOWN));
      return FALSE;
    }
  /* More than one bit of the scheduling field. */
  if ((sched & (sched - 1)) != 0)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                           _("a context takes at most one of the flags SCHED_SPIN, SCHED_YIELD "
                             "and SCHED_BLOCKING_SYNC"));
      return FALSE;
    }
  return TRUE;
}

/**
 * cugi_context_new:
 * @device: (nullable): the device, or %NULL for the default device (see
 *   cugi_device_get_default())
 * @flags: how the context schedules threads that wait for the GPU, and more
 * @error: return location for a #GError
 *
 * Makes a new context on @device, separate from its primary context: memory,
 * modules and streams made in it are its own, and other libraries do not see
 * them. Most programs want the primary context instead
 * (cugi_context_get_default()); a context of its own is for isolation, or for
 * @flags different from the primary context's.
 *
 * Unlike `cuCtxCreate()`, this leaves the calling thread's current context as
 * it was. The CUDA context is destroyed when the last reference goes.
 *
 * Returns: (transfer full): the new context, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiContext *
cugi_context_new (CugiDevice      *device,
                  CugiContextFlags flags,
                  GError         **error)
{
  g_autoptr(CugiDevice) target = NULL;
  g_autoptr(CugiContext) self = NULL;
  CUcontext handle = NULL;
  CUcontext popped = NULL;

  g_return_val_if_fail (device == NULL || CUGI_IS_DEVICE (device), NULL);

  if (!cugi_ensure_driver (error) || !check_flags (flags, error))
    return NULL;
  target = device != NULL ? g_object_ref (device) : cugi_device_get_default (error);
  if (target == NULL || !cugi_device_check (target, error))
    return NULL;

  if (!CUGI_CALL (cuCtxCreate, (&handle, NULL, (unsigned int) flags, cugi_device_get_handle (target)), error))
    return NULL;
  /* cuCtxCreate() made the new context current; the caller's comes back. */
  if (!CUGI_CALL (cuCtxPopCurrent, (&popped), error))
    {
      cugi_cuda.cuCtxDestroy (handle);
      return NULL;
    }

  self = g_object_new (CUGI_TYPE_CONTEXT, NULL);
  self->device = g_steal_pointer (&target);
  self->handle = handle;
  self->owns_handle = TRUE;
  register_created (self);
  if (!read_context_state (self, error))
    return NULL;
  return g_steal_pointer (&self);
}

static void
thread_defaults_free (gpointer data)
{
  g_queue_free_full (data, g_object_unref);
}

/* Per thread: the contexts pushed as its default, innermost first. */
static GPrivate thread_defaults = G_PRIVATE_INIT (thread_defaults_free);

/**
 * cugi_context_get_default:
 * @error: return location for a #GError
 *
 * The context cugi uses when none is given: the one that
 * cugi_context_push_thread_default() last made the calling thread's
 * default, else the primary context of the default device (see
 * cugi_device_get_default()), as the CUDA runtime uses.
 *
 * Returns: (transfer full): the default context, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiContext *
cugi_context_get_default (GError **error)
{
  GQueue *defaults = g_private_get (&thread_defaults);
  g_autoptr(CugiDevice) device = NULL;

  if (defaults != NULL && !g_queue_is_empty (defaults))
    return g_object_ref (g_queue_peek_head (defaults));
  if ((device = cugi_device_get_default (error)) == NULL)
    return NULL;
  return cugi_device_get_primary_context (device, error);
}

/**
 * cugi_context_push_thread_default:
 * @self: a #CugiContext
 *
 * Makes @self the default context of the calling thread, which cugi calls
 * given no context (%NULL) use, until the matching
 * cugi_context_pop_thread_default(), as g_main_context_push_thread_default()
 * does for main contexts: Python's `with Cugi.ScopedDevice("cuda:1"):` is
 * this. Pushes nest; @self is kept alive until it is popped. Unlike
 * cugi_context_push(), this does not make @self the driver's current
 * context.
 *
 * Since: 0.1
 */
void
cugi_context_push_thread_default (CugiContext *self)
{
  GQueue *defaults;

  g_return_if_fail (CUGI_IS_CONTEXT (self));

  if ((defaults = g_private_get (&thread_defaults)) == NULL)
    g_private_set (&thread_defaults, (defaults = g_queue_new ()));
  g_queue_push_head (defaults, g_object_ref (self));
}

/**
 * cugi_context_pop_thread_default:
 * @self: the #CugiContext that the last cugi_context_push_thread_default()
 *   of the calling thread pushed
 *
 * Undoes that push: the thread's default is the one before it again.
 *
 * Since: 0.1
 */
void
cugi_context_pop_thread_default (CugiContext *self)
{
  GQueue *defaults = g_private_get (&thread_defaults);

  g_return_if_fail (CUGI_IS_CONTEXT (self));
  g_return_if_fail (defaults != NULL && g_queue_peek_head (defaults) == self);

  g_object_unref (g_queue_pop_head (defaults));
}

/* The device whose driver handle is @device_handle. */
static CugiDevice *
device_for_handle (CUdevice device_handle,
                   GError **error)
{
  int count = cugi_device_get_count (error);

  for (int ordinal = 0; ordinal < count; ordinal++)
    {
      g_autoptr(CugiDevice) device = cugi_device_get (ordinal, error);

      if (device == NULL)
        return NULL;
      if (cugi_device_get_handle (device) == device_handle)
        return g_steal_pointer (&device);
    }
  if (count >= 0)
    g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_NOT_FOUND,
                         _("the CUDA context belongs to no device the driver lists"));
  return NULL;
}

/* The primary context wrapper of @device, if @handle is that context;
 * else %NULL, without an error. An inactive primary context is not
 * @handle, and is left inactive: activating it would take device memory. */
static CugiContext *
lookup_primary (CugiDevice *device,
                CUcontext   handle,
                GError    **error)
{
  g_autoptr(CugiContext) primary = NULL;
  unsigned int flags = 0;
  int active = 0;

  if (!CUGI_CALL (cuDevicePrimaryCtxGetState, (cugi_device_get_handle (device), &flags, &active), error) ||
      !active)
    return NULL;
  primary = cugi_device_get_primary_context (device, error);
  return primary != NULL && primary->handle == handle ? g_steal_pointer (&primary) : NULL;
}

/* The #CugiContext cugi has for @handle: one of cugi_context_new() or
 * cugi_context_new_for_handle() still alive, or its device's primary
 * context. Else %NULL: with @error set when the driver refused @handle,
 * otherwise with *@device set to the device @handle belongs to. */
static CugiContext *
lookup_context (CUcontext    handle,
                CugiDevice **device,
                GError     **error)
{
  CugiContext *context = lookup_created (handle);
  CUdevice device_handle = 0;
  CUcontext popped = NULL;
  gboolean have_device;

  if (context != NULL)
    return context;
  /* The device: asked of the context while it is current. */
  if (!CUGI_CALL (cuCtxPushCurrent, (handle), error))
    return NULL;
  have_device = CUGI_CALL (cuCtxGetDevice, (&device_handle), error);
  cugi_cuda.cuCtxPopCurrent (&popped);
  if (!have_device || (*device = device_for_handle (device_handle, error)) == NULL)
    return NULL;
  return lookup_primary (*device, handle, error);
}

/**
 * cugi_context_get_current:
 * @error: return location for a #GError
 *
 * The #CugiContext of the calling thread's current CUDA context, whoever made
 * it current: the device's primary context (the same object as
 * cugi_device_get_primary_context() returns) or a context of
 * cugi_context_new() or cugi_context_new_for_handle(). A context another
 * library created with `cuCtxCreate()` has no #CugiContext until it is
 * wrapped: that is a %CUGI_ERROR_NOT_SUPPORTED error.
 *
 * Returns: (transfer full) (nullable): the current context, or %NULL without
 *   an error when none is current, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiContext *
cugi_context_get_current (GError **error)
{
  g_autoptr(CugiDevice) device = NULL;
  g_autoptr(GError) local_error = NULL;
  CUcontext current = NULL;
  CugiContext *context;

  if (!cugi_ensure_driver (error) || !CUGI_CALL (cuCtxGetCurrent, (&current), error))
    return NULL;
  if (current == NULL)
    return NULL;
  context = lookup_context (current, &device, &local_error);
  if (context == NULL && local_error == NULL)
    g_set_error_literal (&local_error, CUGI_ERROR, CUGI_ERROR_NOT_SUPPORTED,
                         _("the calling thread's current CUDA context was made outside cugi: "
                           "wrap it with cugi_context_new_for_handle() first"));
  if (local_error != NULL)
    g_propagate_error (error, g_steal_pointer (&local_error));
  return context;
}

/**
 * cugi_context_new_for_handle:
 * @handle: a `CUcontext` that other code made, such as the one of a
 *   GStreamer `GstCudaContext` (gst_cuda_context_get_handle())
 * @error: return location for a #GError
 *
 * The #CugiContext of a CUDA context made outside cugi, so that cugi's
 * buffers, kernels, streams and signals work in it, with the memory and
 * modules of the code that made it. cugi never destroys @handle: its maker
 * must keep it alive as long as the #CugiContext and everything made in it
 * live; cugi_context_new_for_handle_full() hands that job to the context.
 *
 * A primary context gives the same object as
 * cugi_device_get_primary_context(), and a context that cugi already has a
 * #CugiContext for gives that one. While the returned context lives,
 * cugi_context_get_current() finds it.
 *
 * Returns: (transfer full): the context, or %NULL with @error set
 *   (%CUGI_ERROR_INVALID_ARGUMENT for 0, or a CUDA error for a handle the
 *   driver refuses)
 *
 * Since: 0.1
 */
CugiContext *
cugi_context_new_for_handle (guint64   handle,
                             GError  **error)
{
  return cugi_context_new_for_handle_full (handle, NULL, NULL, error);
}

/**
 * cugi_context_new_for_handle_full: (skip)
 * @handle: a `CUcontext` that other code made
 * @release_data: (nullable): what keeps @handle alive, such as a reference
 *   to a `GstCudaContext`
 * @release: (nullable): called with @release_data once the returned context
 *   no longer needs @handle
 * @error: return location for a #GError
 *
 * cugi_context_new_for_handle(), with what keeps @handle alive handed over.
 * @release is called in any case: when the #CugiContext made here is
 * finalized, or at once when this fails or returns a #CugiContext that
 * existed already (which has what it needs).
 *
 * Returns: (transfer full): the context, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiContext *
cugi_context_new_for_handle_full (guint64         handle,
                                  gpointer        release_data,
                                  GDestroyNotify  release,
                                  GError        **error)
{
  CUcontext context_handle = (CUcontext) (guintptr) handle;
  g_autoptr(CugiDevice) device = NULL;
  g_autoptr(GError) local_error = NULL;
  CugiContext *self = NULL;

  if (!cugi_ensure_driver (error))
    goto out;
  if (context_handle == NULL)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                           _("0 is no CUDA context"));
      goto out;
    }
  self = lookup_context (context_handle, &device, &local_error);
  if (local_error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      goto out;
    }
  if (self != NULL)
    goto out;

  self = g_object_new (CUGI_TYPE_CONTEXT, NULL);
  self->device = g_steal_pointer (&device);
  self->handle = context_handle;
  self->release_data = release_data;
  self->release = g_steal_pointer (&release);
  register_created (self);
  if (!read_context_state (self, error))
    g_clear_object (&self);

out:
  if (release != NULL)
    release (release_data);
  return self;
}

/**
 * cugi_context_get_device: (get-property device)
 * @self: a #CugiContext
 *
 * Returns: (transfer none) (nullable): the value of #CugiContext:device
 *
 * Since: 0.1
 */
CugiDevice *
cugi_context_get_device (CugiContext *self)
{
  g_return_val_if_fail (CUGI_IS_CONTEXT (self), NULL);
  return self->device;
}

/**
 * cugi_context_get_is_primary: (get-property is-primary)
 * @self: a #CugiContext
 *
 * Returns: the value of #CugiContext:is-primary
 *
 * Since: 0.1
 */
gboolean
cugi_context_get_is_primary (CugiContext *self)
{
  g_return_val_if_fail (CUGI_IS_CONTEXT (self), FALSE);
  return self->is_primary;
}

/**
 * cugi_context_get_flags: (get-property flags)
 * @self: a #CugiContext
 *
 * Returns: the value of #CugiContext:flags
 *
 * Since: 0.1
 */
CugiContextFlags
cugi_context_get_flags (CugiContext *self)
{
  g_return_val_if_fail (CUGI_IS_CONTEXT (self), CUGI_CONTEXT_FLAGS_NONE);
  return self->flags;
}

/**
 * cugi_context_get_api_version: (get-property api-version)
 * @self: a #CugiContext
 *
 * Returns: the value of #CugiContext:api-version
 *
 * Since: 0.1
 */
guint
cugi_context_get_api_version (CugiContext *self)
{
  g_return_val_if_fail (CUGI_IS_CONTEXT (self), 0);
  return self->api_version;
}

/**
 * cugi_context_push:
 * @self: a #CugiContext
 * @error: return location for a #GError
 *
 * Makes @self the calling thread's current context until the matching
 * cugi_context_pop(), for code that calls the CUDA driver or runtime API
 * directly. cugi's own calls need no push: each makes its context current
 * for its duration. Pushes nest; a pushed context is kept alive until it is
 * popped.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
cugi_context_push (CugiContext *self,
                   GError     **error)
{
  g_return_val_if_fail (CUGI_IS_CONTEXT (self), FALSE);

  if (!cugi_context_check (self, error) ||
      !CUGI_CALL (cuCtxPushCurrent, (self->handle), error))
    return FALSE;
  g_ptr_array_add (get_pushed_contexts (TRUE), g_object_ref (self));
  return TRUE;
}

/**
 * cugi_context_pop:
 * @self: the #CugiContext to pop
 * @error: return location for a #GError
 *
 * Undoes the latest cugi_context_push() of @self on the calling thread,
 * making current again what was current before it.
 *
 * Popping is checked: when this thread did not push @self with
 * cugi_context_push() ("pop without push"), or when something else was made
 * current on top of it and is still there ("not the current context"), this
 * fails with %CUGI_ERROR_INVALID_STATE and changes nothing.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
cugi_context_pop (CugiContext *self,
                  GError     **error)
{
  GPtrArray *stack = get_pushed_contexts (FALSE);
  CUcontext current = NULL;
  CUcontext popped = NULL;

  g_return_val_if_fail (CUGI_IS_CONTEXT (self), FALSE);

  if (stack == NULL || !g_ptr_array_find (stack, self, NULL))
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE,
                           _("pop without push: this thread did not make the context current "
                             "with cugi_context_push()"));
      return FALSE;
    }
  if (!CUGI_CALL (cuCtxGetCurrent, (&current), error))
    return FALSE;
  if (g_ptr_array_index (stack, stack->len - 1) != self || current != self->handle)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE,
                           _("not the current context: another context was made current after "
                             "this one was pushed, and must be popped first"));
      return FALSE;
    }
  if (!CUGI_CALL (cuCtxPopCurrent, (&popped), error))
    return FALSE;
  g_ptr_array_remove_index (stack, stack->len - 1);
  return TRUE;
}

/**
 * cugi_context_synchronize:
 * @self: a #CugiContext
 * @error: return location for a #GError
 *
 * Waits until the GPU has finished all work queued in @self, on every
 * stream. An error from that work (a kernel that faulted) is reported here.
 *
 * Returns: %TRUE when the work completed without error
 *
 * Since: 0.1
 */
gboolean
cugi_context_synchronize (CugiContext *self,
                          GError     **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;

  g_return_val_if_fail (CUGI_IS_CONTEXT (self), FALSE);

  return cugi_context_enter (self, &scope, error) &&
         CUGI_CALL (cuCtxSynchronize, (), error);
}

static void
synchronize_in_thread (GTask        *task,
                       gpointer      source_object,
                       gpointer      task_data,
                       GCancellable *cancellable)
{
  GError *error = NULL;

  if (cugi_context_synchronize (source_object, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

/**
 * cugi_context_synchronize_async:
 * @self: a #CugiContext
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when the work has completed
 * @user_data: data for @callback
 *
 * Waits, without blocking the calling thread, until the GPU has finished all
 * work queued in @self; like cugi_context_synchronize(), whose wait runs in
 * a worker thread with @self current there. @callback runs in the
 * thread-default main context of the caller; get the result with
 * cugi_context_synchronize_finish().
 *
 * Cancelling @cancellable ends the wait at once with %G_IO_ERROR_CANCELLED;
 * it does not cancel the work on the GPU, which runs to its end.
 *
 * Since: 0.1
 */
void
cugi_context_synchronize_async (CugiContext        *self,
                                GCancellable       *cancellable,
                                GAsyncReadyCallback callback,
                                gpointer            user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (CUGI_IS_CONTEXT (self));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, cugi_context_synchronize_async);
  g_task_set_return_on_cancel (task, TRUE);
  g_task_run_in_thread (task, synchronize_in_thread);
}

/**
 * cugi_context_synchronize_finish:
 * @self: a #CugiContext
 * @result: the #GAsyncResult given to the callback
 * @error: return location for a #GError
 *
 * Finishes cugi_context_synchronize_async().
 *
 * Returns: %TRUE when the work completed without error
 *
 * Since: 0.1
 */
gboolean
cugi_context_synchronize_finish (CugiContext  *self,
                                 GAsyncResult *result,
                                 GError      **error)
{
  g_return_val_if_fail (CUGI_IS_CONTEXT (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/**
 * cugi_context_reset:
 * @self: a primary #CugiContext
 * @error: return location for a #GError
 *
 * Destroys everything the primary context holds and makes it anew, so that
 * @self, the same object, is usable again with the same flags: this waits
 * for the work still queued (ignoring any fault it reports), destroys the
 * primary context with `cuDevicePrimaryCtxReset()` and retains it again.
 *
 * It does not recover from a kernel fault such as an illegal address, a
 * trap or a failed device-side assertion (%CUGI_ERROR_LAUNCH_FAILED): CUDA
 * keeps those for the life of the process, and every later CUDA call in it
 * fails, a reset included. This then fails with %CUGI_ERROR_LAUNCH_FAILED
 * saying so, and @self stays unusable without crashing. The recovery from
 * such a fault is a new process: run kernels that may fault in a helper
 * process (a #GSubprocess, say) and start a new one when it reports
 * %CUGI_ERROR_LAUNCH_FAILED; cugi's own test of it does exactly that.
 * Since the primary context is shared, other libraries that use it in this
 * process (the CUDA runtime, PyTorch, CuPy) lose their state too.
 *
 * Everything made in the context before the reset is gone on the GPU:
 * - device memory (#CugiBuffer, #CugiMemoryPool) and pinned host memory
 *   (#CugiHostBuffer): the contents are lost and using the objects is a
 *   %CUGI_ERROR_INVALID_CONTEXT error;
 * - modules and kernels (#CugiModule, #CugiKernel): load and look them up
 *   again; using the old ones is a %CUGI_ERROR_INVALID_CONTEXT error;
 * - streams, events and graphs made with cugi_stream_new() and the like:
 *   make new ones; the old ones give %CUGI_ERROR_INVALID_CONTEXT errors. The
 *   context's default stream (the %NULL stream) stays usable.
 *
 * The old objects never crash and can be released at any time; releasing
 * them frees nothing on the GPU any more. Limits and the cache configuration
 * return to their defaults.
 *
 * A context made with cugi_context_new() or by other code
 * (cugi_context_new_for_handle()) cannot be reset: this fails with
 * %CUGI_ERROR_NOT_SUPPORTED; release it and make a new one.
 *
 * No other thread may use @self while it is being reset.
 *
 * Returns: %TRUE when @self is usable again; %FALSE with @error set when the
 *   reset failed (if the context could not be made again, @self stays
 *   unusable and its calls fail with %CUGI_ERROR_INVALID_STATE)
 *
 * Since: 0.1
 */
gboolean
cugi_context_reset (CugiContext *self,
                    GError     **error)
{
  CUdevice device;
  CUcontext handle = NULL;
  CUresult result;

  g_return_val_if_fail (CUGI_IS_CONTEXT (self), FALSE);

  if (!self->is_primary)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_NOT_SUPPORTED,
                           self->owns_handle
                             ? _("only a primary context can be reset: release this context made with "
                                 "cugi_context_new() and make a new one")
                             : _("only a primary context can be reset: this one belongs to the code "
                                 "that made it"));
      return FALSE;
    }
  if (!cugi_context_check (self, error))
    return FALSE;

  /* The fault being recovered from is what this reports: it is the reason
   * for the reset, not a reason to stop. */
  cugi_context_synchronize (self, NULL);

  device = cugi_device_get_handle (self->device);
  if (!CUGI_CALL (cuDevicePrimaryCtxReset, (device), error))
    return FALSE;
  /* Everything made so far is gone: objects compare this to refuse use.
   * The address epoch ends after it, in this order: a kernel that found its
   * binding current in the epoch still running skips this comparison
   * (cugi_kernel_is_current()). */
  g_atomic_int_inc (&self->generation);
  cugi_memory_invalidate_addresses ();

  /* Resetting keeps the retain cugi holds; release it and retain again,
   * which activates the primary context afresh whatever other holders do. */
  cugi_cuda.cuDevicePrimaryCtxRelease (device);
  self->handle = NULL;
  result = cugi_cuda.cuDevicePrimaryCtxRetain (&handle, device);
  if (cugi_error_code_from_result (result) == CUGI_ERROR_LAUNCH_FAILED)
    {
      g_autoptr(GError) fault = NULL;

      cugi_set_error_from_result (&fault, result, "cuDevicePrimaryCtxRetain");
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_LAUNCH_FAILED,
                   _("The GPU fault cannot be recovered from in this process (%s): CUDA keeps it "
                     "until the process exits. Restart the process, or run kernels that may fault "
                     "in a helper process."),
                   fault->message);
      return FALSE;
    }
  if (!cugi_check_result (result, "cuDevicePrimaryCtxRetain", error))
    return FALSE;
  self->handle = handle;
  return read_context_state (self, error);
}
