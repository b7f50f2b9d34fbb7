/* cugi-event.c: CUDA events, CugiEvent::completed and event sources */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "cugi-context-private.h"
#include "cugi-private.h"
#include "cugi-stream-private.h"

/**
 * CugiEvent:
 *
 * A point in a stream's work (a `CUevent`): cugi_event_record() places it
 * behind the work enqueued so far, and the event completes when that work
 * has. Events order work across streams (cugi_stream_wait_event()), time it
 * (cugi_event_elapsed_time()), and tell the main loop that it completed:
 * through #CugiEvent::completed, cugi_event_synchronize_async() or a
 * #GSource from cugi_event_create_source(). An event made with
 * %CUGI_EVENT_FLAGS_INTERPROCESS can be shared with another process.
 *
 * An event belongs to one #CugiContext, which it keeps alive; every call
 * makes that context current for its duration.
 *
 * Since: 0.1
 */

#define EVENT_FLAGS_ALL (CUGI_EVENT_FLAGS_BLOCKING_SYNC | CUGI_EVENT_FLAGS_DISABLE_TIMING | \
                         CUGI_EVENT_FLAGS_INTERPROCESS)
#define EVENT_FLAGS_IPC (CUGI_EVENT_FLAGS_INTERPROCESS | CUGI_EVENT_FLAGS_DISABLE_TIMING)

struct _CugiEvent
{
  GObject         parent_instance;

  CugiContextBinding binding;
  CUevent         handle;
  CugiEventFlags  flags;
  GMainContext   *main_context;        /* where ::completed is emitted */
  int             recorded;            /* atomic boolean: recorded at least once */

  /* Asynchronous waits: the watch stream waits for the event, then a marker
   * follows. The event has a stream of its own, rather than sharing one per
   * context, because a stream runs its waits in order: a shared one would
   * hold back a wait for a completed event behind one for a pending event. */
  GMutex          watch_lock;          /* guards watch_stream and its wait-marker pairs */
  CugiStream     *watch_stream;        /* made on first use */
};

G_DEFINE_FINAL_TYPE (CugiEvent, cugi_event, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_CONTEXT,
  PROP_FLAGS,
  PROP_HANDLE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum
{
  SIGNAL_COMPLETED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static gboolean
event_check (CugiEvent *self,
             GError   **error)
{
  if (G_UNLIKELY (self->binding.context == NULL))
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE,
                           _("This CugiEvent has no CUDA event: make events with cugi_event_new()"));
      return FALSE;
    }
  return cugi_context_binding_check (&self->binding,
                                     N_("This event's context was reset since the event was made, which "
                                        "destroyed it: make a new event"),
                                     error);
}

static gboolean
event_enter (CugiEvent        *self,
             CugiContextScope *scope,
             GError          **error)
{
  return event_check (self, error) && cugi_context_enter (self->binding.context, scope, error);
}

CUevent
cugi_event_get_handle (CugiEvent *self)
{
  g_return_val_if_fail (CUGI_IS_EVENT (self), NULL);

  return self->handle;
}

static CugiEvent *
event_new (CugiContext   *context,
           CUevent        handle,
           CugiEventFlags flags)
{
  CugiEvent *self = g_object_new (CUGI_TYPE_EVENT, NULL);

  cugi_context_binding_init (&self->binding, context, CUGI_CONTEXT_BINDING_NONE);
  self->handle = handle;
  self->flags = flags;
  self->main_context = cugi_capture_main_context ();
  return self;
}

/**
 * cugi_event_new:
 * @context: (nullable): the context, or %NULL for the default one
 * @flags: the kind of event
 * @error: return location for a #GError
 *
 * Makes an event. Its #CugiEvent::completed signal is emitted in the
 * thread-default #GMainContext of the caller.
 *
 * Unknown flags, and %CUGI_EVENT_FLAGS_INTERPROCESS without
 * %CUGI_EVENT_FLAGS_DISABLE_TIMING, are a %CUGI_ERROR_INVALID_ARGUMENT error.
 *
 * Returns: (transfer full): a new event, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiEvent *
cugi_event_new (CugiContext   *context,
                CugiEventFlags flags,
                GError       **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  g_autoptr(CugiContext) resolved = NULL;
  CUevent handle = NULL;

  g_return_val_if_fail (context == NULL || CUGI_IS_CONTEXT (context), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if ((flags & ~EVENT_FLAGS_ALL) != 0)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("Unknown event flags 0x%x"), (guint) flags);
      return NULL;
    }
  if ((flags & CUGI_EVENT_FLAGS_INTERPROCESS) != 0 && (flags & CUGI_EVENT_FLAGS_DISABLE_TIMING) == 0)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                           _("An interprocess event cannot record timing: add "
                             "CUGI_EVENT_FLAGS_DISABLE_TIMING to CUGI_EVENT_FLAGS_INTERPROCESS"));
      return NULL;
    }

  resolved = cugi_context_resolve (context, error);
  if (resolved == NULL ||
      !cugi_context_enter (resolved, &scope, error) ||
      !CUGI_CALL (cuEventCreate, (&handle, (unsigned int) flags), error))
    return NULL;

  return event_new (resolved, handle, flags);
}

/**
 * cugi_event_new_from_ipc_handle:
 * @context: (nullable): the context to open the event in, or %NULL for the
 *   default one; it must be on the device of the event's own context
 * @ipc_handle: what cugi_event_get_ipc_handle() returned in another process
 * @error: return location for a #GError
 *
 * Opens an event that another process shares. The result has the flags
 * %CUGI_EVENT_FLAGS_INTERPROCESS and %CUGI_EVENT_FLAGS_DISABLE_TIMING; this
 * process can wait for it, make streams wait for it, and record it.
 *
 * CUDA does not open an event in the process that made it: that is an error
 * (`CUDA_ERROR_INVALID_CONTEXT` or similar), so share it with another
 * process. A handle of the wrong size is a %CUGI_ERROR_INVALID_ARGUMENT
 * error.
 *
 * Returns: (transfer full): the event, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiEvent *
cugi_event_new_from_ipc_handle (CugiContext *context,
                                GBytes      *ipc_handle,
                                GError     **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  g_autoptr(CugiContext) resolved = NULL;
  CUipcEventHandle ipc = { 0 };
  CUevent handle = NULL;

  g_return_val_if_fail (context == NULL || CUGI_IS_CONTEXT (context), NULL);
  g_return_val_if_fail (ipc_handle != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (g_bytes_get_size (ipc_handle) != sizeof ipc)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("An event IPC handle has %zu bytes; this one has %zu"),
                   sizeof ipc, g_bytes_get_size (ipc_handle));
      return NULL;
    }
  memcpy (&ipc, g_bytes_get_data (ipc_handle, NULL), sizeof ipc);

  resolved = cugi_context_resolve (context, error);
  if (resolved == NULL || !cugi_context_enter (resolved, &scope, error))
    return NULL;
  if (cugi_cuda.cuIpcOpenEventHandle == NULL)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_NOT_SUPPORTED,
                           _("This CUDA driver cannot share events between processes"));
      return NULL;
    }
  if (!CUGI_CALL (cuIpcOpenEventHandle, (&handle, ipc), error))
    return NULL;

  return event_new (resolved, handle, EVENT_FLAGS_IPC);
}

/**
 * cugi_event_get_context:
 * @self: a #CugiEvent
 *
 * Returns: (transfer none) (nullable): the context the event belongs to
 *   (%NULL only for an event not made by cugi's constructors)
 *
 * Since: 0.1
 */
CugiContext *
cugi_event_get_context (CugiEvent *self)
{
  g_return_val_if_fail (CUGI_IS_EVENT (self), NULL);

  return self->binding.context;
}

/**
 * cugi_event_get_flags:
 * @self: a #CugiEvent
 *
 * Returns: the flags the event was made (or opened) with
 *
 * Since: 0.1
 */
CugiEventFlags
cugi_event_get_flags (CugiEvent *self)
{
  g_return_val_if_fail (CUGI_IS_EVENT (self), CUGI_EVENT_FLAGS_NONE);

  return self->flags;
}

static void
event_emit_completed (gpointer data)
{
  g_signal_emit (data, signals[SIGNAL_COMPLETED], 0);
}

/**
 * cugi_event_record:
 * @self: a #CugiEvent
 * @stream: (nullable): the stream, or %NULL for the legacy default stream of
 *   the event's context
 * @error: return location for a #GError
 *
 * Places the event behind the work enqueued on @stream so far: the event
 * completes when that work has. Recording again moves the event; waits that
 * started before wait for the earlier recording.
 *
 * When a handler of #CugiEvent::completed is connected, this recording will
 * emit it once its work has completed. That needs a marker behind the
 * recording, which a stream being captured into a graph cannot take: then the
 * event is recorded but this fails with %CUGI_ERROR_INVALID_STATE.
 *
 * A stream of another context is a %CUGI_ERROR_INVALID_CONTEXT error.
 *
 * Returns: %TRUE on success, %FALSE with @error set
 *
 * Since: 0.1
 */
gboolean
cugi_event_record (CugiEvent  *self,
                   CugiStream *stream,
                   GError    **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;

  g_return_val_if_fail (CUGI_IS_EVENT (self), FALSE);
  g_return_val_if_fail (stream == NULL || CUGI_IS_STREAM (stream), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!event_enter (self, &scope, error))
    return FALSE;

  stream = cugi_stream_resolve (stream, self->binding.context);
  if (!cugi_stream_check (stream, error) ||
      !cugi_context_binding_check_same_context (&self->binding, cugi_stream_get_context (stream),
                                                N_("Cannot record an event on a stream of another context"),
                                                error))
    return FALSE;

  if (!CUGI_CALL (cuEventRecord, (self->handle, cugi_stream_get_handle (stream)), error))
    return FALSE;
  g_atomic_int_set (&self->recorded, TRUE);

  if (!g_signal_has_handler_pending (self, signals[SIGNAL_COMPLETED], 0, TRUE))
    return TRUE;
  return cugi_stream_add_completion (stream, self->main_context, event_emit_completed,
                                     g_object_ref (self), g_object_unref, error);
}

/* Here rather than in cugi-stream.c, which knows nothing of events: the
 * events call the streams, never the other way round. */

/**
 * cugi_stream_wait_event:
 * @self: a #CugiStream
 * @event: the event to wait for; it may belong to another context or device
 * @error: return location for a #GError
 *
 * Makes work enqueued on the stream from now on wait until the work that
 * @event last recorded has completed, without blocking the calling thread:
 * this orders work across streams.
 *
 * Returns: %TRUE on success, %FALSE with @error set
 *
 * Since: 0.1
 */
gboolean
cugi_stream_wait_event (CugiStream *self,
                        CugiEvent  *event,
                        GError    **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;

  g_return_val_if_fail (CUGI_IS_STREAM (self), FALSE);
  g_return_val_if_fail (CUGI_IS_EVENT (event), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return event_check (event, error) &&
         cugi_stream_check (self, error) &&
         cugi_context_enter (cugi_stream_get_context (self), &scope, error) &&
         CUGI_CALL (cuStreamWaitEvent, (cugi_stream_get_handle (self), event->handle, 0), error);
}

/**
 * cugi_event_query:
 * @self: a #CugiEvent
 * @error: return location for a #GError
 *
 * Whether the work the event recorded has completed, without waiting. An
 * event never recorded counts as completed.
 *
 * Returns: %TRUE if it has; %FALSE if it is still running, or with @error
 *   set if the event cannot be used (for example after a kernel faulted)
 *
 * Since: 0.1
 */
gboolean
cugi_event_query (CugiEvent *self,
                  GError   **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CUresult result;

  g_return_val_if_fail (CUGI_IS_EVENT (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!event_enter (self, &scope, error))
    return FALSE;

  result = cugi_cuda.cuEventQuery (self->handle);
  if (result == CUDA_ERROR_NOT_READY)
    return FALSE;
  return cugi_check_result (result, "cuEventQuery", error);
}

/**
 * cugi_event_synchronize:
 * @self: a #CugiEvent
 * @error: return location for a #GError
 *
 * Blocks the calling thread until the work the event recorded has completed
 * (sleeping if the event was made with %CUGI_EVENT_FLAGS_BLOCKING_SYNC,
 * spinning otherwise). In a program with a main loop, prefer
 * cugi_event_synchronize_async().
 *
 * Returns: %TRUE once the work has completed; %FALSE with @error set
 *
 * Since: 0.1
 */
gboolean
cugi_event_synchronize (CugiEvent *self,
                        GError   **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;

  g_return_val_if_fail (CUGI_IS_EVENT (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return event_enter (self, &scope, error) &&
         CUGI_CALL (cuEventSynchronize, (self->handle), error);
}

/* Makes the watch stream wait for the event's current recording; the caller
 * holds watch_lock and enqueues its marker on the stream returned
 * (borrowed) before releasing it. */
static CugiStream *
event_watch_locked (CugiEvent *self,
                    GError   **error)
{
  if (self->watch_stream == NULL)
    self->watch_stream = cugi_stream_new (self->binding.context, CUGI_STREAM_FLAGS_NON_BLOCKING, 0, error);
  if (self->watch_stream == NULL ||
      !CUGI_CALL (cuStreamWaitEvent, (cugi_stream_get_handle (self->watch_stream), self->handle, 0), error))
    return NULL;
  return self->watch_stream;
}

/* Completes @task, through @complete (see cugi_stream_complete_task()), once
 * the current recordings of @self and of @other (nullable; of the same
 * context) have completed: one marker on @self's watch stream, which waits
 * for both. */
static void
complete_after_recordings (CugiEvent           *self,
                           CugiEvent           *other,
                           GTask               *task,
                           CugiTaskCompleteFunc complete)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  g_autoptr(GError) error = NULL;
  CugiStream *watch = NULL;

  if (event_enter (self, &scope, &error))
    {
      g_mutex_lock (&self->watch_lock);
      watch = event_watch_locked (self, &error);
      if (watch != NULL && other != NULL &&
          !CUGI_CALL (cuStreamWaitEvent, (cugi_stream_get_handle (watch), other->handle, 0), &error))
        watch = NULL;
      if (watch != NULL)
        cugi_stream_complete_task (watch, task, complete);
      g_mutex_unlock (&self->watch_lock);
    }
  if (watch == NULL)
    g_task_return_error (task, g_steal_pointer (&error));
}

/**
 * cugi_event_synchronize_async:
 * @self: a #CugiEvent
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when the recorded work has completed
 * @user_data: data for @callback
 *
 * Waits without blocking until the work the event recorded so far has
 * completed; @callback then runs in the thread-default #GMainContext of the
 * caller. Call cugi_event_synchronize_finish() from it. This also works for
 * events recorded by other code, such as one opened with
 * cugi_event_new_from_ipc_handle().
 *
 * Cancelling @cancellable ends the wait at once with %G_IO_ERROR_CANCELLED;
 * it does not stop the GPU work, which goes on and completes. If the work
 * fails instead (a kernel faults), the wait ends with that error within a
 * second or so.
 *
 * Since: 0.1
 */
void
cugi_event_synchronize_async (CugiEvent          *self,
                              GCancellable       *cancellable,
                              GAsyncReadyCallback callback,
                              gpointer            user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (CUGI_IS_EVENT (self));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, cugi_event_synchronize_async);
  g_task_set_name (task, "[cugi] cugi_event_synchronize_async");
  complete_after_recordings (self, NULL, task, NULL);
}

/**
 * cugi_event_synchronize_finish:
 * @self: a #CugiEvent
 * @result: the #GAsyncResult given to the callback
 * @error: return location for a #GError
 *
 * Finishes cugi_event_synchronize_async().
 *
 * Returns: %TRUE if the recorded work has completed; %FALSE with @error set
 *   if the wait was cancelled, the work failed, or the wait could not start
 *
 * Since: 0.1
 */
gboolean
cugi_event_synchronize_finish (CugiEvent    *self,
                               GAsyncResult *result,
                               GError      **error)
{
  g_return_val_if_fail (CUGI_IS_EVENT (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == cugi_event_synchronize_async, FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/* Whether the time between @start and @end can be asked for: both recorded,
 * both timing, in one context. */
static gboolean
check_timeable (CugiEvent *start,
                CugiEvent *end,
                GError   **error)
{
  if (!event_check (start, error) || !event_check (end, error))
    return FALSE;
  if (!g_atomic_int_get (&start->recorded) || !g_atomic_int_get (&end->recorded))
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE,
                           _("Cannot time events that were never recorded: record both with "
                             "cugi_event_record() first"));
      return FALSE;
    }
  if (((start->flags | end->flags) & CUGI_EVENT_FLAGS_DISABLE_TIMING) != 0)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE,
                           _("Cannot time events made with CUGI_EVENT_FLAGS_DISABLE_TIMING"));
      return FALSE;
    }
  return cugi_context_binding_check_same_context (&start->binding, end->binding.context,
                                                  N_("Cannot time events of two different contexts"), error);
}

/**
 * cugi_event_elapsed_time:
 * @start: an event recorded before @end
 * @end: an event recorded after @start
 * @error: return location for a #GError
 *
 * The GPU time between two recordings, in milliseconds (with a resolution
 * of about half a microsecond).
 *
 * Both events must have been recorded, must record timing (no
 * %CUGI_EVENT_FLAGS_DISABLE_TIMING) and must have completed; otherwise this
 * is a %CUGI_ERROR_INVALID_STATE error, never a meaningless number. Events
 * of two contexts are a %CUGI_ERROR_INVALID_CONTEXT error. Where the recordings may not have completed,
 * cugi_event_elapsed_time_async() waits for them without blocking; where a
 * wait already covers them (a download_async() enqueued after @end on the
 * same stream has finished), this returns at once.
 *
 * Returns: the time from @start to @end in milliseconds, or 0 with @error set
 *
 * Since: 0.1
 */
gdouble
cugi_event_elapsed_time (CugiEvent *start,
                         CugiEvent *end,
                         GError   **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  float milliseconds = 0;
  CUresult result;

  g_return_val_if_fail (CUGI_IS_EVENT (start), 0);
  g_return_val_if_fail (CUGI_IS_EVENT (end), 0);
  g_return_val_if_fail (error == NULL || *error == NULL, 0);

  if (!check_timeable (start, end, error) || !cugi_context_enter (start->binding.context, &scope, error))
    return 0;
  result = cugi_cuda.cuEventElapsedTime (&milliseconds, start->handle, end->handle);
  if (result == CUDA_ERROR_NOT_READY)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE,
                           _("Cannot time events whose work has not yet completed: wait for "
                             "the later one first"));
      return 0;
    }
  if (!cugi_check_result (result, "cuEventElapsedTime", error))
    return 0;
  return milliseconds;
}

/* Once both recordings have completed: the time between them. */
static void
return_elapsed_time (GTask *task)
{
  CugiEvent *start = g_task_get_source_object (task);
  CugiEvent *end = g_task_get_task_data (task);
  g_auto (GValue) value = G_VALUE_INIT;
  GError *error = NULL;
  gdouble milliseconds = cugi_event_elapsed_time (start, end, &error);

  if (error != NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  g_value_init (&value, G_TYPE_DOUBLE);
  g_value_set_double (&value, milliseconds);
  g_task_return_value (task, &value);
}

/**
 * cugi_event_elapsed_time_async:
 * @start: an event recorded before @end
 * @end: an event recorded after @start
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called once both recordings have completed
 * @user_data: data for @callback
 *
 * Waits without blocking until the current recordings of @start and @end
 * have completed, then gets the time between them as
 * cugi_event_elapsed_time() does: @callback runs in the thread-default
 * #GMainContext of the caller, and cugi_event_elapsed_time_finish() gives
 * the milliseconds. This is how a main loop learns how long a kernel ran on
 * the GPU, with no other wait to lean on.
 *
 * What cugi_event_elapsed_time() refuses (an event never recorded, without
 * timing, or of another context) fails the same way, through @callback.
 * Record neither event again before @callback has run: the time is taken
 * of the recordings the events have then. Cancelling @cancellable ends the
 * wait at once with %G_IO_ERROR_CANCELLED.
 *
 * Since: 0.1
 */
void
cugi_event_elapsed_time_async (CugiEvent          *start,
                               CugiEvent          *end,
                               GCancellable       *cancellable,
                               GAsyncReadyCallback callback,
                               gpointer            user_data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (CUGI_IS_EVENT (start));
  g_return_if_fail (CUGI_IS_EVENT (end));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (start, cancellable, callback, user_data);
  g_task_set_source_tag (task, cugi_event_elapsed_time_async);
  g_task_set_name (task, "[cugi] cugi_event_elapsed_time_async");
  g_task_set_task_data (task, g_object_ref (end), g_object_unref);

  /* check_timeable() vouches that the events share a context. */
  if (!check_timeable (start, end, &error))
    g_task_return_error (task, g_steal_pointer (&error));
  else
    complete_after_recordings (start, end, task, return_elapsed_time);
}

/**
 * cugi_event_elapsed_time_finish:
 * @start: the @start given to cugi_event_elapsed_time_async()
 * @result: the #GAsyncResult given to the callback
 * @error: return location for a #GError
 *
 * Finishes cugi_event_elapsed_time_async().
 *
 * Returns: the time from @start to @end in milliseconds, or 0 with @error
 *   set
 *
 * Since: 0.1
 */
gdouble
cugi_event_elapsed_time_finish (CugiEvent    *start,
                                GAsyncResult *result,
                                GError      **error)
{
  g_auto (GValue) value = G_VALUE_INIT;

  g_return_val_if_fail (CUGI_IS_EVENT (start), 0);
  g_return_val_if_fail (g_task_is_valid (result, start), 0);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == cugi_event_elapsed_time_async, 0);

  if (!g_task_propagate_value (G_TASK (result), &value, error))
    return 0;
  return g_value_get_double (&value);
}

/* ---- event sources ----------------------------------------------------------- */

static gboolean
event_source_dispatch (GSource    *source,
                       GSourceFunc callback,
                       gpointer    user_data)
{
  if (callback == NULL)
    {
      g_warning ("A CugiEvent source dispatched without a callback: call g_source_set_callback()");
      return G_SOURCE_REMOVE;
    }
  callback (user_data);
  /* The recording completed once and for all: dispatching again could only
   * repeat the news. */
  return G_SOURCE_REMOVE;
}

static GSourceFuncs event_source_funcs = {
  .dispatch = event_source_dispatch,
};

static void
event_source_ready (gpointer source)
{
  g_source_set_ready_time (source, 0);
}

/**
 * cugi_event_create_source:
 * @self: a #CugiEvent
 *
 * Makes a #GSource that dispatches once the work the event recorded so far
 * has completed, for code that prefers a #GSourceFunc to
 * #CugiEvent::completed. Set its callback with g_source_set_callback() (a
 * #GSourceFunc; its return value does not matter: the source is removed after
 * it ran once) and attach it with g_source_attach().
 *
 * cugi learns of the completion in the thread-default #GMainContext of the
 * caller and wakes the source from there: attach the source to that context,
 * as is usual, or keep that context running too.
 *
 * If cugi cannot watch the event (its context failed or was reset), the
 * source dispatches at once; cugi_event_query() then reports the error.
 *
 * Returns: (transfer full): a new #GSource
 *
 * Since: 0.1
 */
GSource *
cugi_event_create_source (CugiEvent *self)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  g_autoptr(GMainContext) main_context = NULL;
  g_autoptr(GError) error = NULL;
  CugiStream *watch = NULL;
  GSource *source;

  g_return_val_if_fail (CUGI_IS_EVENT (self), NULL);

  source = g_source_new (&event_source_funcs, sizeof (GSource));
  g_source_set_static_name (source, "[cugi] event completed");

  main_context = cugi_capture_main_context ();
  if (event_enter (self, &scope, &error))
    {
      g_mutex_lock (&self->watch_lock);
      watch = event_watch_locked (self, &error);
      if (watch != NULL &&
          !cugi_stream_add_completion (watch, main_context, event_source_ready,
                                       g_source_ref (source), (GDestroyNotify) g_source_unref, &error))
        watch = NULL;
      g_mutex_unlock (&self->watch_lock);
    }

  if (watch == NULL)
    {
      g_debug ("Cannot watch event %p: %s", (gpointer) self, error->message);
      g_source_set_ready_time (source, 0);
    }
  return source;
}

/**
 * cugi_event_get_ipc_handle:
 * @self: a #CugiEvent made with %CUGI_EVENT_FLAGS_INTERPROCESS and
 *   %CUGI_EVENT_FLAGS_DISABLE_TIMING
 * @error: return location for a #GError
 *
 * A handle through which another process opens this event with
 * cugi_event_new_from_ipc_handle(). It is plain bytes: pass it by any means.
 * Other events are a %CUGI_ERROR_INVALID_ARGUMENT error.
 *
 * Returns: (transfer full): the handle, or %NULL with @error set
 *
 * Since: 0.1
 */
GBytes *
cugi_event_get_ipc_handle (CugiEvent *self,
                           GError   **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CUipcEventHandle ipc = { 0 };

  g_return_val_if_fail (CUGI_IS_EVENT (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if ((self->flags & EVENT_FLAGS_IPC) != EVENT_FLAGS_IPC)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                           _("Only an event made with CUGI_EVENT_FLAGS_INTERPROCESS and "
                             "CUGI_EVENT_FLAGS_DISABLE_TIMING can be shared with another process"));
      return NULL;
    }
  if (!event_enter (self, &scope, error))
    return NULL;
  if (cugi_cuda.cuIpcGetEventHandle == NULL)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_NOT_SUPPORTED,
                           _("This CUDA driver cannot share events between processes"));
      return NULL;
    }
  if (!CUGI_CALL (cuIpcGetEventHandle, (&ipc, self->handle), error))
    return NULL;
  return g_bytes_new (&ipc, sizeof ipc);
}

/* ---- GObject ------------------------------------------------------------------ */

static void
cugi_event_finalize (GObject *object)
{
  CugiEvent *self = CUGI_EVENT (object);
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;

  g_clear_object (&self->watch_stream);
  /* The driver destroys an event whose work is pending once it completes. */
  if (event_enter (self, &scope, NULL))
    cugi_cuda.cuEventDestroy (self->handle);

  g_clear_pointer (&self->main_context, g_main_context_unref);
  g_mutex_clear (&self->watch_lock);
  cugi_context_binding_clear (&self->binding);

  G_OBJECT_CLASS (cugi_event_parent_class)->finalize (object);
}

static void
cugi_event_get_property (GObject    *object,
                         guint       prop_id,
                         GValue     *value,
                         GParamSpec *pspec)
{
  CugiEvent *self = CUGI_EVENT (object);

  switch (prop_id)
    {
    case PROP_CONTEXT:
      g_value_set_object (value, self->binding.context);
      break;
    case PROP_FLAGS:
      g_value_set_flags (value, self->flags);
      break;
    case PROP_HANDLE:
      g_value_set_uint64 (value, (guint64) (guintptr) self->handle);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cugi_event_class_init (CugiEventClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = cugi_event_finalize;
  object_class->get_property = cugi_event_get_property;

  /**
   * CugiEvent:context:
   *
   * The context the event belongs to.
   *
   * Since: 0.1
   */
  properties[PROP_CONTEXT] =
    g_param_spec_object ("context", NULL, NULL, CUGI_TYPE_CONTEXT,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * CugiEvent:flags:
   *
   * The kind of event.
   *
   * Since: 0.1
   */
  properties[PROP_FLAGS] =
    g_param_spec_flags ("flags", NULL, NULL, CUGI_TYPE_EVENT_FLAGS, CUGI_EVENT_FLAGS_NONE,
                        G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * CugiEvent:handle:
   *
   * The `CUevent`, as an integer, for other CUDA libraries.
   *
   * Since: 0.1
   */
  properties[PROP_HANDLE] =
    g_param_spec_uint64 ("handle", NULL, NULL, 0, G_MAXUINT64, 0,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * CugiEvent::completed:
   * @self: the event
   *
   * Emitted once for each cugi_event_record() made while a handler was
   * connected, after the work that recording placed the event behind has
   * completed. It is emitted in the thread-default #GMainContext of the
   * thread that made the event. Recordings made while no handler was
   * connected cost nothing and emit nothing.
   *
   * Since: 0.1
   */
  signals[SIGNAL_COMPLETED] =
    g_signal_new ("completed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
cugi_event_init (CugiEvent *self)
{
  g_mutex_init (&self->watch_lock);
}
