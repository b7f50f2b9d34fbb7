/* cugi-external-semaphore.c: semaphores of other APIs imported into CUDA,
 * signalled and waited on in stream order */
#include "config.h"

#include <unistd.h>

#include <glib/gi18n-lib.h>

#include "cugi-context-private.h"
#include "cugi-private.h"
#include "cugi-stream-private.h"

/**
 * CugiExternalSemaphore:
 *
 * A semaphore of another API (Vulkan's `VkSemaphore`, exported with
 * `vkGetSemaphoreFdKHR`) imported into CUDA (`cuImportExternalSemaphore`),
 * which orders CUDA's work with the other API's on the device, without the
 * host waiting: cugi_external_semaphore_signal() enqueues a signal on a
 * stream, after the work enqueued before it, and
 * cugi_external_semaphore_wait() makes the work enqueued on a stream after
 * it wait for a signal of the other side.
 *
 * A binary semaphore (%CUGI_EXTERNAL_SEMAPHORE_TYPE_OPAQUE_FD) is signalled
 * and waited on without values: pass 0. A timeline semaphore
 * (%CUGI_EXTERNAL_SEMAPHORE_TYPE_TIMELINE_FD) carries a 64-bit counter: a
 * signal sets it to the value, a wait waits until it reaches the value.
 *
 * The file descriptor given is not taken: the driver gets a duplicate,
 * which it owns once the import succeeded. Signals and waits in flight keep
 * the semaphore alive; it is destroyed (`cuDestroyExternalSemaphore`) once
 * finalized.
 *
 * Where the driver lacks external semaphores (the entry points above), the
 * constructor fails with %CUGI_ERROR_NOT_SUPPORTED naming what is missing.
 *
 * Since: 0.1
 */

G_STATIC_ASSERT ((int) CUGI_EXTERNAL_SEMAPHORE_TYPE_OPAQUE_FD == (int) CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD);
G_STATIC_ASSERT ((int) CUGI_EXTERNAL_SEMAPHORE_TYPE_TIMELINE_FD == (int) CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD);

struct _CugiExternalSemaphore
{
  GObject                    parent_instance;

  CugiContextBinding         binding;
  CUexternalSemaphore        handle;   /* NULL in an object of g_object_new() */
  CugiExternalSemaphoreType  type;
};

G_DEFINE_FINAL_TYPE (CugiExternalSemaphore, cugi_external_semaphore, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_CONTEXT,
  PROP_SEMAPHORE_TYPE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
cugi_external_semaphore_finalize (GObject *object)
{
  CugiExternalSemaphore *self = CUGI_EXTERNAL_SEMAPHORE (object);
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;

  /* Signals and waits in flight kept the semaphore alive: none is left. */
  if (self->handle != NULL && cugi_context_binding_is_current (&self->binding) &&
      cugi_context_enter (self->binding.context, &scope, NULL))
    cugi_cuda.cuDestroyExternalSemaphore (self->handle);
  cugi_context_binding_clear (&self->binding);

  G_OBJECT_CLASS (cugi_external_semaphore_parent_class)->finalize (object);
}

static void
cugi_external_semaphore_get_property (GObject    *object,
                                      guint       prop_id,
                                      GValue     *value,
                                      GParamSpec *pspec)
{
  CugiExternalSemaphore *self = CUGI_EXTERNAL_SEMAPHORE (object);

  switch (prop_id)
    {
    case PROP_CONTEXT:
      g_value_set_object (value, self->binding.context);
      break;
    case PROP_SEMAPHORE_TYPE:
      g_value_set_enum (value, self->type);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cugi_external_semaphore_class_init (CugiExternalSemaphoreClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = cugi_external_semaphore_finalize;
  object_class->get_property = cugi_external_semaphore_get_property;

  /**
   * CugiExternalSemaphore:context:
   *
   * The CUDA context the semaphore is imported into, which it keeps alive.
   *
   * Since: 0.1
   */
  properties[PROP_CONTEXT] =
    g_param_spec_object ("context", NULL, NULL, CUGI_TYPE_CONTEXT,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * CugiExternalSemaphore:semaphore-type:
   *
   * What the semaphore was imported from: a binary or a timeline one.
   *
   * Since: 0.1
   */
  properties[PROP_SEMAPHORE_TYPE] =
    g_param_spec_enum ("semaphore-type", NULL, NULL, CUGI_TYPE_EXTERNAL_SEMAPHORE_TYPE,
                       CUGI_EXTERNAL_SEMAPHORE_TYPE_OPAQUE_FD,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
cugi_external_semaphore_init (CugiExternalSemaphore *self)
{
}

/**
 * cugi_external_semaphore_new_from_fd:
 * @context: (nullable): the CUDA context to import into, or %NULL for the
 *   default context
 * @type: what @fd is
 * @fd: the file descriptor of the semaphore, which the caller keeps (cugi
 *   hands the driver a duplicate)
 * @error: return location for a #GError
 *
 * Imports a semaphore of another API (`cuImportExternalSemaphore`). A
 * negative or closed @fd fails with %CUGI_ERROR_INVALID_ARGUMENT before the
 * driver is asked; the driver refuses what it cannot import.
 *
 * Returns: (transfer full): the semaphore, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiExternalSemaphore *
cugi_external_semaphore_new_from_fd (CugiContext                *context,
                                     CugiExternalSemaphoreType   type,
                                     gint                        fd,
                                     GError                    **error)
{
  g_autoptr(CugiContext) resolved = NULL;
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC desc = { .type = (CUexternalSemaphoreHandleType) type };
  CUexternalSemaphore handle = NULL;
  CugiExternalSemaphore *self;
  int duplicate;

  g_return_val_if_fail (context == NULL || CUGI_IS_CONTEXT (context), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!cugi_check_enum_value (CUGI_TYPE_EXTERNAL_SEMAPHORE_TYPE, type, error) ||
      !cugi_ensure_driver (error) ||
      !CUGI_REQUIRE_ENTRY_POINT (cuImportExternalSemaphore, error) ||
      !CUGI_REQUIRE_ENTRY_POINT (cuSignalExternalSemaphoresAsync, error) ||
      !CUGI_REQUIRE_ENTRY_POINT (cuWaitExternalSemaphoresAsync, error) ||
      !CUGI_REQUIRE_ENTRY_POINT (cuDestroyExternalSemaphore, error) ||
      (resolved = cugi_context_resolve (context, error)) == NULL ||
      (duplicate = cugi_dup_fd (fd, error)) < 0)
    return NULL;
  desc.handle.fd = duplicate;
  if (!cugi_context_enter (resolved, &scope, error) ||
      !CUGI_CALL (cuImportExternalSemaphore, (&handle, &desc), error))
    {
      close (duplicate);
      return NULL;
    }

  self = g_object_new (CUGI_TYPE_EXTERNAL_SEMAPHORE, NULL);
  cugi_context_binding_init (&self->binding, resolved, CUGI_CONTEXT_BINDING_NONE);
  self->handle = handle;
  self->type = type;
  return self;
}

/* What signal() and wait() share: the checks, the context made current for
 * work on @stream (nullable), and *@target, where the work goes. */
static gboolean
enter_for_stream (CugiExternalSemaphore  *self,
                  guint64                 value,
                  CugiStream             *stream,
                  CugiContextScope       *scope,
                  CugiStream            **target,
                  GError                **error)
{
  if (self->handle == NULL)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE,
                           _("The external semaphore was not imported: make it with "
                             "cugi_external_semaphore_new_from_fd()"));
      return FALSE;
    }
  if (value != 0 && self->type != CUGI_EXTERNAL_SEMAPHORE_TYPE_TIMELINE_FD)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("A binary semaphore has no values (%lu was given): pass 0, or import a timeline "
                     "semaphore"), (unsigned long) value);
      return FALSE;
    }
  if (!cugi_context_binding_check_same_context (&self->binding,
                                                stream != NULL ? cugi_stream_get_context (stream)
                                                               : self->binding.context,
                                                N_("The stream belongs to another context than the semaphore"),
                                                error) ||
      !cugi_context_binding_enter (&self->binding, scope,
                                   N_("The external semaphore is gone: its context was reset"), error))
    return FALSE;
  *target = cugi_stream_resolve (stream, self->binding.context);
  return TRUE;
}

/* The body of signal() (@wait FALSE) and wait(): the call enqueued on
 * @stream, and the semaphore kept alive until the work there completes. */
static gboolean
enqueue (CugiExternalSemaphore  *self,
         gboolean                wait,
         guint64                 value,
         CugiStream             *stream,
         GError                **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS signal_params = { .params.fence.value = value };
  CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS wait_params = { .params.fence.value = value };
  GPtrArray *resources;
  CugiStream *target;
  CUstream handle;

  if (!enter_for_stream (self, value, stream, &scope, &target, error))
    return FALSE;
  handle = cugi_stream_get_handle (target);
  if (wait ? !CUGI_CALL (cuWaitExternalSemaphoresAsync, (&self->handle, &wait_params, 1, handle), error)
           : !CUGI_CALL (cuSignalExternalSemaphoresAsync, (&self->handle, &signal_params, 1, handle), error))
    return FALSE;
  resources = cugi_work_resources_new ();
  cugi_work_resources_add (resources, g_object_ref (self), g_object_unref);
  cugi_work_track (target, NULL, resources);
  return TRUE;
}

/**
 * cugi_external_semaphore_signal:
 * @self: a #CugiExternalSemaphore
 * @value: for a timeline semaphore, the value to set; 0 for a binary one
 * @stream: (nullable): the stream to signal on, or %NULL for the default
 *   stream
 * @error: return location for a #GError
 *
 * Enqueues a signal of the semaphore on @stream
 * (`cuSignalExternalSemaphoresAsync`), after the work enqueued before it:
 * the other API's work waiting for it starts once that work is done. A
 * value for a binary semaphore fails with %CUGI_ERROR_INVALID_ARGUMENT, a
 * stream of another context with %CUGI_ERROR_INVALID_CONTEXT.
 *
 * Returns: %TRUE if the signal was enqueued
 *
 * Since: 0.1
 */
gboolean
cugi_external_semaphore_signal (CugiExternalSemaphore  *self,
                                guint64                 value,
                                CugiStream             *stream,
                                GError                **error)
{
  g_return_val_if_fail (CUGI_IS_EXTERNAL_SEMAPHORE (self), FALSE);
  g_return_val_if_fail (stream == NULL || CUGI_IS_STREAM (stream), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return enqueue (self, FALSE, value, stream, error);
}

/**
 * cugi_external_semaphore_wait:
 * @self: a #CugiExternalSemaphore
 * @value: for a timeline semaphore, the value to wait for; 0 for a binary
 *   one
 * @stream: (nullable): the stream to wait on, or %NULL for the default
 *   stream
 * @error: return location for a #GError
 *
 * Makes the work enqueued on @stream after this call wait until the other
 * API signals the semaphore (`cuWaitExternalSemaphoresAsync`); for a
 * timeline semaphore, until its value reaches @value. The host does not
 * wait. A value for a binary semaphore fails with
 * %CUGI_ERROR_INVALID_ARGUMENT, a stream of another context with
 * %CUGI_ERROR_INVALID_CONTEXT.
 *
 * Returns: %TRUE if the wait was enqueued
 *
 * Since: 0.1
 */
gboolean
cugi_external_semaphore_wait (CugiExternalSemaphore  *self,
                              guint64                 value,
                              CugiStream             *stream,
                              GError                **error)
{
  g_return_val_if_fail (CUGI_IS_EXTERNAL_SEMAPHORE (self), FALSE);
  g_return_val_if_fail (stream == NULL || CUGI_IS_STREAM (stream), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return enqueue (self, TRUE, value, stream, error);
}

/**
 * cugi_external_semaphore_get_context:
 * @self: a #CugiExternalSemaphore
 *
 * Returns: (transfer none) (nullable): the value of
 *   #CugiExternalSemaphore:context
 *
 * Since: 0.1
 */
CugiContext *
cugi_external_semaphore_get_context (CugiExternalSemaphore *self)
{
  g_return_val_if_fail (CUGI_IS_EXTERNAL_SEMAPHORE (self), NULL);

  return self->binding.context;
}

/**
 * cugi_external_semaphore_get_semaphore_type:
 * @self: a #CugiExternalSemaphore
 *
 * Returns: the value of #CugiExternalSemaphore:semaphore-type
 *
 * Since: 0.1
 */
CugiExternalSemaphoreType
cugi_external_semaphore_get_semaphore_type (CugiExternalSemaphore *self)
{
  g_return_val_if_fail (CUGI_IS_EXTERNAL_SEMAPHORE (self), CUGI_EXTERNAL_SEMAPHORE_TYPE_OPAQUE_FD);

  return self->type;
}
