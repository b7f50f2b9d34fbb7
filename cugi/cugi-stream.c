/* cugi-stream.c: CUDA streams, markers, bursts and CugiStream::idle */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "cugi-context-private.h"
#include "cugi-private.h"
#include "cugi-stream-private.h"

/**
 * CugiStream:
 *
 * A queue of GPU work (a `CUstream`): work enqueued on one stream runs in
 * order, work on different streams may overlap.
 *
 * Functions that take a stream accept %NULL for the legacy default stream of
 * the context. A stream belongs to one #CugiContext, which it keeps alive, and
 * every call makes that context current for its duration.
 *
 * ## Completion in the main loop
 *
 * cugi learns that GPU work has completed without blocking and without a
 * polling thread: it enqueues a marker (`cuLaunchHostFunc()`) behind the work,
 * and when the GPU reaches it, the #GMainContext concerned is woken up and
 * runs what waited for the work: a #GTask of cugi_stream_synchronize_async(),
 * the #CugiStream::idle signal, the release of resources.
 *
 * #CugiStream::idle is emitted in the #GMainContext that was the thread-default
 * one when the stream was made, once all work that cugi enqueued on the stream
 * has completed. Work enqueued in one main-loop iteration is a burst, and a
 * burst costs one marker, enqueued when the iteration is over; with no handler
 * connected, it costs none, and a launch only reads whether its burst is
 * known already.
 *
 * ## Lifetimes
 *
 * What work enqueued through cugi uses (buffers, #GBytes, host memory) stays
 * referenced until that work has completed, whatever the caller drops. Those
 * references ride on the burst's marker and are dropped in the stream's
 * #GMainContext once it ran, or as soon as cugi sees the stream idle anyway
 * (cugi_stream_synchronize(), cugi_stream_query(), or a check cugi makes
 * every few dozen pieces of work), so a program that never runs a main loop
 * gets its memory back too. A #CugiKernelArgs launched again and again holds
 * its buffers itself, and hands them to the stream when it lets go of them.
 * A stream with work in flight is itself kept alive by its markers, so
 * dropping the last reference to it never loses a completion.
 *
 * If a kernel faults, the context is unusable from then on and CUDA drops the
 * markers still pending: the asynchronous waits under way (the `_async()`
 * calls) learn of it within a second or so and fail with the fault as their
 * error, while #CugiStream::idle and #CugiEvent::completed are not emitted
 * for work that did not complete. Calls such as cugi_stream_query() report
 * the error too.
 *
 * Since: 0.1
 */

/* Each time this many resources arrays were tracked without a flush taking
 * them (their main context does not run, or runs a long burst), cugi checks
 * which of them belong to completed work. */
#define RELEASE_CHECK_INTERVAL 64

G_DEFINE_FINAL_TYPE (CugiStream, cugi_stream, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_CONTEXT,
  PROP_FLAGS,
  PROP_PRIORITY,
  PROP_HANDLE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum
{
  SIGNAL_IDLE,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

gboolean
cugi_stream_check (CugiStream *self,
                   GError    **error)
{
  if (G_UNLIKELY (self->binding.context == NULL))
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE,
                           _("This CugiStream has no CUDA stream: make streams with cugi_stream_new()"));
      return FALSE;
    }
  return cugi_context_binding_check (&self->binding,
                                     N_("This stream's context was reset since the stream was made, which "
                                        "destroyed it: make a new stream"),
                                     error);
}

static gboolean
stream_enter (CugiStream       *self,
              CugiContextScope *scope,
              GError          **error)
{
  return cugi_stream_check (self, error) && cugi_context_enter (self->binding.context, scope, error);
}

/* A reference on @self that also keeps its context alive, for what outlives
 * the call that made it (markers, flushes): the null stream only points at
 * its context, which may otherwise go first. */
static CugiStream *
stream_ref_with_context (CugiStream *self)
{
  g_object_ref (self->binding.context);
  return g_object_ref (self);
}

static void
stream_unref_with_context (gpointer data)
{
  CugiStream *self = data;
  CugiContext *context = self->binding.context;

  g_object_unref (self);
  g_object_unref (context);
}

/* ---- markers -------------------------------------------------------------- */

static gboolean
stream_is_capturing (CugiStream *self,
                     GError    **error)
{
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  CUresult result = cugi_cuda.cuStreamIsCapturing (self->handle, &status);

  /* Asking about the legacy stream while a blocking stream captures is an
   * error of its own kind: a marker there would end that capture. */
  if (result == CUDA_ERROR_STREAM_CAPTURE_IMPLICIT || status != CU_STREAM_CAPTURE_STATUS_NONE)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE,
                           _("The stream is being captured into a graph: cugi cannot wait for "
                             "its work until the capture has ended"));
      return TRUE;
    }
  return FALSE;
}

/* Enqueues the marker of a completion on @handle: @self's own stream, or
 * the stream its flushes wait on. The context is entered. */
static gboolean
stream_enqueue_marker (CugiStream        *self,
                       CUstream           handle,
                       GMainContext      *main_context,
                       CugiCompletionFunc func,
                       gpointer           user_data,
                       GDestroyNotify     notify,
                       GError           **error)
{
  CugiCompletion *completion;

  completion = cugi_completion_new (main_context != NULL ? main_context : self->main_context,
                                    func, user_data, notify);
  /* The stream with its context lives as long as work on it is followed. */
  cugi_completion_keep_alive (completion, stream_ref_with_context (self), stream_unref_with_context);

  /* Under COUNTER, one lane for the stream's markers, flushes' included:
   * theirs wait for all that came before on the stream, so its counter
   * passing a flush's number still means that work is done. */
  return cugi_completion_enqueue (completion, G_OBJECT (self), self->binding.context, handle, error);
}

gboolean
cugi_stream_add_completion (CugiStream        *self,
                            GMainContext      *main_context,
                            CugiCompletionFunc func,
                            gpointer           user_data,
                            GDestroyNotify     notify,
                            GError           **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;

  g_return_val_if_fail (CUGI_IS_STREAM (self), FALSE);
  g_return_val_if_fail (func != NULL, FALSE);

  /* A host function enqueued during a capture would become a node of the
   * graph, and run (with freed data) at each of its launches. */
  if (!stream_enter (self, &scope, error) || stream_is_capturing (self, error))
    {
      if (notify != NULL)
        notify (user_data);
      return FALSE;
    }
  return stream_enqueue_marker (self, self->handle, main_context, func, user_data, notify, error);
}

/* ---- bursts and ::idle ----------------------------------------------------- */

static CugiPendingMark
stream_mark_pending (CugiStream *self)
{
  CugiPendingMark mark;

  g_mutex_lock (&self->lock);
  mark.pending_serial = self->pending_serial;
  mark.length = self->pending->len;
  g_mutex_unlock (&self->lock);
  return mark;
}

/* Drops the resources that were pending at @mark, whose work is known to
 * have completed. Those tracked since stay. If resources left pending since
 * @mark (a flush took them for its marker, or another release), pending no
 * longer starts where @mark saw it: nothing is dropped. */
static void
stream_release_pending (CugiStream *self,
                        CugiPendingMark mark)
{
  gpointer *released = NULL;
  guint n_released = 0;

  g_mutex_lock (&self->lock);
  if (mark.pending_serial == self->pending_serial && mark.length > 0)
    {
      gsize n_pending = 0;

      released = g_ptr_array_steal (self->pending, &n_pending);
      n_released = mark.length;
      for (gsize i = n_released; i < n_pending; i++)
        g_ptr_array_add (self->pending, released[i]);
      self->pending_serial++;
    }
  g_mutex_unlock (&self->lock);

  /* Outside the lock: dropping a buffer may enqueue work on this stream. */
  for (guint i = 0; i < n_released; i++)
    g_ptr_array_unref (released[i]);
  g_free (released);
}

/* Drops the resources of completed work when no flush comes to do it: the
 * stream's main context does not run (a script without a main loop), or
 * runs one long burst. Each check records an event behind the work tracked
 * so far; the next check drops what was pending then if the event completed.
 * So memory comes back one check late, at the cost of an event query and
 * record every RELEASE_CHECK_INTERVAL launches. */
static void
stream_check_released (CugiStream *self)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;

  /* Another thread checking is as good. */
  if (!g_mutex_trylock (&self->check_lock))
    return;

  if (stream_enter (self, &scope, NULL) && !stream_is_capturing (self, NULL))
    {
      guint generation = cugi_context_get_generation (self->binding.context);

      /* A reset of the context (which the null stream survives) destroyed
       * the event, and the work it stood behind. */
      if (self->check_event != NULL && self->check_generation != generation)
        {
          self->check_event = NULL;
          self->check_recorded = FALSE;
        }

      if (self->check_recorded && cugi_cuda.cuEventQuery (self->check_event) == CUDA_SUCCESS)
        stream_release_pending (self, self->check_mark);

      /* Marked before recording: what is tracked in between is left for
       * the next check, never released early. */
      self->check_mark = stream_mark_pending (self);
      if (self->check_event == NULL)
        {
          cugi_cuda.cuEventCreate (&self->check_event, CU_EVENT_DISABLE_TIMING);
          self->check_generation = generation;
        }
      self->check_recorded = self->check_event != NULL &&
                             cugi_cuda.cuEventRecord (self->check_event, self->handle) == CUDA_SUCCESS;
    }
  g_mutex_unlock (&self->check_lock);
}

typedef struct
{
  CugiStream *stream;           /* borrowed: the completion keeps it alive */
  int         work_generation;  /* when the marker was enqueued */
  GPtrArray  *resources;        /* of GPtrArray, may be NULL */
} Burst;

static void
burst_completed (gpointer data)
{
  Burst *burst = data;

  /* Newer work has its own burst, whose marker emits ::idle in its turn. */
  if (burst->work_generation == g_atomic_int_get (&burst->stream->work_generation))
    g_signal_emit (burst->stream, signals[SIGNAL_IDLE], 0);
}

static void
burst_free (gpointer data)
{
  Burst *burst = data;

  g_clear_pointer (&burst->resources, g_ptr_array_unref);
  g_free (burst);
}

static void stream_flush (CugiStream *self);

/* Takes the resources of the work tracked so far (NULL if none), for a
 * marker enqueued next to drop once the stream is past it. */
static GPtrArray *
stream_take_pending (CugiStream *self)
{
  GPtrArray *resources = NULL;

  g_mutex_lock (&self->lock);
  if (self->pending->len > 0)
    {
      resources = g_steal_pointer (&self->pending);
      self->pending = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
      self->pending_serial++;
      self->unflushed_tracks = 0;
    }
  g_mutex_unlock (&self->lock);
  return resources;
}

/* The stream that flushes' markers wait on, and the event they wait for,
 * made on first use and again after a reset of the context destroyed them.
 * Called with the context entered, in the stream's main context. */
static gboolean
stream_ensure_marker_stream (CugiStream *self,
                             GError    **error)
{
  guint generation = cugi_context_get_generation (self->binding.context);
  CUstream markers;

  if (self->marker_stream != NULL && self->marker_generation == generation)
    return TRUE;
  if (!CUGI_CALL (cuEventCreate, (&self->marker_event, CU_EVENT_DISABLE_TIMING), error))
    return FALSE;
  /* Non-blocking: the legacy default stream must not wait for it. */
  if (!CUGI_CALL (cuStreamCreateWithPriority, (&markers, CU_STREAM_NON_BLOCKING, 0), error))
    {
      cugi_cuda.cuEventDestroy (self->marker_event);
      self->marker_event = NULL;
      g_atomic_pointer_set (&self->marker_stream, NULL);
      return FALSE;
    }
  self->marker_generation = generation;
  /* Published last: cugi_stream_synchronize() reads it on any thread. */
  g_atomic_pointer_set (&self->marker_stream, markers);
  return TRUE;
}

/* A flush's marker goes on a stream of its own, behind an event recorded on
 * @self: a host function holds up the work enqueued after it on its stream
 * until CUDA's thread has run it (tens of microseconds), which a flush in
 * every main-loop iteration would add to the stream's own work. The marker
 * still comes after all earlier work on @self, markers included, so ::idle
 * and the resources' release keep their order with other completions.
 * Called with the context entered, in the stream's main context. */
static gboolean
stream_add_flush_marker (CugiStream *self,
                         Burst      *burst,
                         GError    **error)
{
  if (!stream_ensure_marker_stream (self, error) ||
      !CUGI_CALL (cuEventRecord, (self->marker_event, self->handle), error) ||
      !CUGI_CALL (cuStreamWaitEvent, (self->marker_stream, self->marker_event, 0), error))
    {
      burst_free (burst);
      return FALSE;
    }
  return stream_enqueue_marker (self, self->marker_stream, self->main_context, burst_completed, burst,
                                burst_free, error);
}

/* The source of a stream's flushes, made once and armed for each burst:
 * cheaper, on the launch path, than a new idle source each time, and than
 * a ready time, whose every change wakes the main context up (a write to
 * its eventfd). An armed flush holds a reference on the stream (and its
 * context); the source itself holds none, the stream owns it. */
typedef struct
{
  GSource     source;
  CugiStream *stream;
  /* atomic: flush_scheduled, as the source sees it. The source's own, as
   * prepare() and check() run without a reference on the stream, which
   * another thread may be finalizing. */
  gint        armed;
} FlushSource;

static gboolean
flush_source_prepare (GSource *source,
                      gint    *timeout)
{
  *timeout = -1;
  return g_atomic_int_get (&((FlushSource *) source)->armed);
}

static gboolean
flush_source_check (GSource *source)
{
  return g_atomic_int_get (&((FlushSource *) source)->armed);
}

static gboolean
flush_source_dispatch (GSource     *source,
                       GSourceFunc  callback,
                       gpointer     user_data)
{
  FlushSource *flush = (FlushSource *) source;
  CugiStream *self = flush->stream;

  /* Disarmed first: a burst that starts during the flush arms it again. */
  g_atomic_int_set (&flush->armed, FALSE);
  stream_flush (self);
  stream_unref_with_context (self);
  return G_SOURCE_CONTINUE;
}

static GSourceFuncs flush_source_funcs = {
  flush_source_prepare, flush_source_check, flush_source_dispatch, NULL, NULL, NULL
};

/* Called with the lock held: makes the current main-loop iteration of the
 * stream's main context end with a flush, if nothing did yet. */
static void
schedule_flush_locked (CugiStream *self)
{
  if (self->flush_scheduled)
    return;
  if (self->flush_source == NULL)
    {
      self->flush_source = g_source_new (&flush_source_funcs, sizeof (FlushSource));
      ((FlushSource *) self->flush_source)->stream = self;
      /* High priority: the marker goes in as soon as the current iteration
       * is over, before other sources can start a new burst. */
      g_source_set_priority (self->flush_source, G_PRIORITY_HIGH);
      g_source_set_static_name (self->flush_source, "[cugi] stream burst flush");
      g_source_attach (self->flush_source, self->main_context);
    }
  stream_ref_with_context (self);
  g_atomic_int_set (&((FlushSource *) self->flush_source)->armed, TRUE);
  g_atomic_int_set (&self->flush_scheduled, TRUE);
  /* A main loop this thread runs, or none, prepares the source before it
   * next polls: only one that another thread runs needs waking. */
  if (g_main_context_acquire (self->main_context))
    g_main_context_release (self->main_context);
  else
    g_main_context_wakeup (self->main_context);
}

/* Runs in the stream's main context once per iteration that tracked work:
 * one marker covers all of it. */
static void
stream_flush (CugiStream *self)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  g_autoptr(GError) error = NULL;
  GPtrArray *resources = NULL;
  gboolean keeps_nothing;
  Burst *burst;

  g_mutex_lock (&self->lock);
  g_atomic_int_set (&self->flush_scheduled, FALSE);
  keeps_nothing = self->pending->len == 0;
  g_mutex_unlock (&self->lock);

  /* Nothing to keep and nobody listening (work is tracked whether or not
   * anyone listens): no marker, and no driver query. */
  if (keeps_nothing && !g_signal_has_handler_pending (self, signals[SIGNAL_IDLE], 0, TRUE))
    return;

  /* Work tracked during a capture runs later, as a graph: its resources stay
   * pending until cugi sees the stream idle or a later flush takes them. */
  if (stream_enter (self, &scope, NULL) && stream_is_capturing (self, NULL))
    return;

  resources = stream_take_pending (self);
  burst = g_new0 (Burst, 1);
  burst->stream = self;
  /* Read after clearing flush_scheduled: work tracked from now on schedules
   * a flush of its own, so none is left without a marker. (Pinned work that
   * read it set just before covers no more than what the driver enqueued
   * before this marker.) */
  burst->work_generation = g_atomic_int_get (&self->work_generation);
  burst->resources = resources;
  if (!stream_add_flush_marker (self, burst, &error))
    {
      /* The burst's resources are dropped: the context is broken or was
       * reset, which the caller's next call on the stream reports. */
      g_debug ("Cannot follow the work of stream %p: %s", (gpointer) self, error->message);
    }
}

void
cugi_stream_track_work (CugiStream *self,
                        GPtrArray  *resources)
{
  gboolean check_released = FALSE;

  g_return_if_fail (CUGI_IS_STREAM (self));

  if (resources != NULL && resources->len == 0)
    g_clear_pointer (&resources, g_ptr_array_unref);
  /* Nothing to keep: as cheap as pinned work, in the common case a read. */
  if (resources == NULL)
    {
      cugi_stream_track_pinned_work (self);
      return;
    }

  g_mutex_lock (&self->lock);
  g_atomic_int_inc (&self->work_generation);
  g_ptr_array_add (self->pending, resources);
  check_released = ++self->unflushed_tracks % RELEASE_CHECK_INTERVAL == 0;
  schedule_flush_locked (self);
  g_mutex_unlock (&self->lock);

  if (check_released)
    stream_check_released (self);
}

CugiStream *
cugi_stream_pin (CugiStream *self)
{
  g_return_val_if_fail (CUGI_IS_STREAM (self), NULL);

  return stream_ref_with_context (self);
}

void
cugi_stream_begin_burst (CugiStream *self)
{
  /* The bursts in flight are not the last. */
  g_mutex_lock (&self->lock);
  g_atomic_int_inc (&self->work_generation);
  schedule_flush_locked (self);
  g_mutex_unlock (&self->lock);
}

/* Set by cugi_stream_set_capture_probe(): NULL until a capture began. */
static gboolean (*capture_probe) (void);

void
cugi_stream_set_capture_probe (gboolean (*has_captures) (void))
{
  g_atomic_pointer_set (&capture_probe, has_captures);
}

/* Whether all the work enqueued on @self so far has completed, as the
 * driver tells; FALSE when it cannot tell, or must not be asked: during a
 * capture, a query could break it. */
static gboolean
stream_is_done (CugiStream *self)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  gboolean (*has_captures) (void) = g_atomic_pointer_get (&capture_probe);

  return (has_captures == NULL || !has_captures ()) &&
         stream_enter (self, &scope, NULL) && !stream_is_capturing (self, NULL) &&
         cugi_cuda.cuStreamQuery (self->handle) == CUDA_SUCCESS;
}

void
cugi_stream_unpin (CugiStream *self,
                   GPtrArray  *resources)
{
  /* Asked once, here, rather than tracked at each launch: when the stream is
   * done (after a synchronization, say), the resources can go now. */
  if (stream_is_done (self))
    g_ptr_array_unref (resources);
  else
    cugi_stream_track_work (self, resources);
  stream_unref_with_context (self);
}

/* ---- tasks ----------------------------------------------------------------- */

/* How often a wait asks whether its context failed: see task_wait_check_failure(). */
#define FAILURE_CHECK_SECONDS 1

/* A task waiting for a marker. The marker, the cancellable's source and the
 * failure check each hold a reference, and all run in the task's context, so
 * they never race: whichever comes first returns the task. */
typedef struct
{
  GTask               *task;
  CugiStream          *stream;
  CugiTaskCompleteFunc complete;
  GSource             *cancel_source;   /* NULL without a cancellable */
  GSource             *failure_check;
  GPtrArray           *resources;       /* (nullable): what the work before the marker keeps */
  gboolean             returned;        /* only read and written in the task's context */
} TaskWait;

static void
task_wait_clear (gpointer data)
{
  TaskWait *wait = data;

  g_object_unref (wait->task);
  g_clear_pointer (&wait->resources, g_ptr_array_unref);
  stream_unref_with_context (wait->stream);
  g_clear_pointer (&wait->cancel_source, g_source_unref);
  g_clear_pointer (&wait->failure_check, g_source_unref);
}

static void
task_wait_release (gpointer data)
{
  g_rc_box_release_full (data, task_wait_clear);
}

/* Returns the task unless it returned already: with @error, or else as done. */
static void
task_wait_return (TaskWait *wait,
                  GError   *error)
{
  if (wait->returned)
    {
      g_clear_error (&error);
      return;
    }
  wait->returned = TRUE;
  if (wait->cancel_source != NULL)
    g_source_destroy (wait->cancel_source);
  if (wait->failure_check != NULL)
    g_source_destroy (wait->failure_check);

  if (error != NULL)
    g_task_return_error (wait->task, error);
  else if (wait->complete != NULL)
    wait->complete (wait->task);
  else
    g_task_return_boolean (wait->task, TRUE);
}

static void
task_wait_done (gpointer data)
{
  TaskWait *wait = data;

  /* The work before the marker is done: what it kept goes first, so that
   * memory it borrowed (staging) is back for the caller's next copy. */
  g_clear_pointer (&wait->resources, g_ptr_array_unref);
  task_wait_return (wait, NULL);
}

static gboolean
task_wait_cancelled (GCancellable *cancellable,
                     gpointer      data)
{
  GError *error = NULL;

  g_cancellable_set_error_if_cancelled (cancellable, &error);
  task_wait_return (data, error);
  return G_SOURCE_REMOVE;
}

/* Once a context has failed (a kernel faulted), CUDA drops its pending host
 * functions: the marker will never come. So while a wait lasts, it asks the
 * stream now and then, which reports such a failure; that also ends waits
 * whose work a reset of the context destroyed. */
static gboolean
task_wait_check_failure (gpointer data)
{
  TaskWait *wait = data;
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  GError *error = NULL;
  CUresult result;

  if (stream_enter (wait->stream, &scope, &error))
    {
      result = cugi_cuda.cuStreamQuery (wait->stream->handle);
      if (result == CUDA_SUCCESS || result == CUDA_ERROR_NOT_READY)
        return G_SOURCE_CONTINUE;
      cugi_set_error_from_result (&error, result, "cuStreamQuery");
    }
  task_wait_return (wait, error);
  return G_SOURCE_REMOVE;
}

static GSource *
task_wait_attach (TaskWait   *wait,
                  GSource    *source,
                  GSourceFunc func,
                  const char *name)
{
  g_source_set_priority (source, g_task_get_priority (wait->task));
  g_source_set_static_name (source, name);
  g_source_set_callback (source, func, g_rc_box_acquire (wait), task_wait_release);
  g_source_attach (source, g_task_get_context (wait->task));
  return source;
}

void
cugi_stream_complete_task (CugiStream          *self,
                           GTask               *task,
                           CugiTaskCompleteFunc complete)
{
  GCancellable *cancellable = g_task_get_cancellable (task);
  g_autoptr(GError) error = NULL;
  TaskWait *wait;

  g_return_if_fail (CUGI_IS_STREAM (self));
  g_return_if_fail (G_IS_TASK (task));

  if (g_task_return_error_if_cancelled (task))
    return;
  if (!cugi_stream_check (self, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  wait = g_rc_box_new0 (TaskWait);
  wait->task = g_object_ref (task);
  wait->stream = stream_ref_with_context (self);
  wait->complete = complete;
  if (cancellable != NULL)
    wait->cancel_source = task_wait_attach (wait, g_cancellable_source_new (cancellable),
                                            G_SOURCE_FUNC (task_wait_cancelled),
                                            "[cugi] cancel a GPU wait");
  wait->failure_check = task_wait_attach (wait, g_timeout_source_new_seconds (FAILURE_CHECK_SECONDS),
                                          task_wait_check_failure,
                                          "[cugi] check a GPU wait for failures");

  /* The task's own marker drops what the work tracked so far keeps, rather
   * than a flush's marker coming after the task returned. */
  wait->resources = stream_take_pending (self);
  if (!cugi_stream_add_completion (self, g_task_get_context (task), task_wait_done,
                                   g_rc_box_acquire (wait), task_wait_release, &error))
    {
      /* No marker: the work still needs what it keeps. */
      while (wait->resources != NULL && wait->resources->len > 0)
        cugi_stream_track_work (self, g_ptr_array_steal_index (wait->resources, 0));
      task_wait_return (wait, g_steal_pointer (&error));
    }
  task_wait_release (wait);
}

/* ---- construction ----------------------------------------------------------- */

static CugiStream *
stream_new (CugiContext    *context,
            gboolean        context_unowned,
            CUstream        handle,
            gboolean        owns_handle,
            CugiStreamFlags flags,
            gint            priority,
            GMainContext   *main_context)
{
  CugiStream *self = g_object_new (CUGI_TYPE_STREAM, NULL);
  CugiContextBindingFlags binding_flags = CUGI_CONTEXT_BINDING_NONE;

  if (context_unowned)
    binding_flags |= CUGI_CONTEXT_BINDING_UNOWNED;
  /* The driver's own streams survive a reset. */
  if (handle == NULL || handle == CU_STREAM_LEGACY || handle == CU_STREAM_PER_THREAD)
    binding_flags |= CUGI_CONTEXT_BINDING_SURVIVES_RESET;
  cugi_context_binding_init (&self->binding, context, binding_flags);
  self->handle = handle;
  self->owns_handle = owns_handle;
  self->flags = flags;
  self->priority = priority;
  self->main_context = main_context;
  return self;
}

/**
 * cugi_stream_new:
 * @context: (nullable): the context, or %NULL for the default one
 * @flags: how the stream relates to the legacy default stream
 * @priority: the stream's priority: lower numbers are more urgent; 0 is the
 *   default and valid everywhere, and the context gives the valid range
 *   (`cuCtxGetStreamPriorityRange()`, on current GPUs -5 to 0)
 * @error: return location for a #GError
 *
 * Makes a stream. Its #CugiStream::idle signal and the other completions that
 * belong to it are delivered in the thread-default #GMainContext of the
 * caller.
 *
 * A priority outside the context's range, or unknown @flags, are a
 * %CUGI_ERROR_INVALID_ARGUMENT error whose message gives the valid range.
 *
 * Returns: (transfer full): a new stream, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiStream *
cugi_stream_new (CugiContext    *context,
                 CugiStreamFlags flags,
                 gint            priority,
                 GError        **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  g_autoptr(CugiContext) resolved = NULL;
  int least = 0;
  int greatest = 0;
  CUstream handle = NULL;

  g_return_val_if_fail (context == NULL || CUGI_IS_CONTEXT (context), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if ((flags & ~CUGI_STREAM_FLAGS_NON_BLOCKING) != 0)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("Unknown stream flags 0x%x"), (guint) flags);
      return NULL;
    }

  resolved = cugi_context_resolve (context, error);
  if (resolved == NULL ||
      !cugi_context_enter (resolved, &scope, error) ||
      !CUGI_CALL (cuCtxGetStreamPriorityRange, (&least, &greatest), error))
    return NULL;

  /* The driver clamps a priority out of range instead of failing. */
  if (priority < greatest || priority > least)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("Stream priority %d is out of range: this context accepts %d (most urgent) "
                     "to %d (least urgent)"),
                   priority, greatest, least);
      return NULL;
    }

  if (!CUGI_CALL (cuStreamCreateWithPriority, (&handle, (unsigned int) flags, priority), error))
    return NULL;

  return stream_new (resolved, FALSE, handle, TRUE, flags, priority, cugi_capture_main_context ());
}

/**
 * cugi_stream_new_for_handle:
 * @context: (nullable): the context the stream belongs to, or %NULL for the
 *   default one
 * @handle: a `CUstream` (or `cudaStream_t`) of @context made by other code,
 *   such as `torch.cuda.current_stream().cuda_stream` or CuPy's
 *   `Stream.ptr`; 0 is the legacy default stream
 * @error: return location for a #GError
 *
 * Wraps a stream that other code made, so cugi can enqueue work on it and
 * wait for it. cugi never destroys @handle: its owner must keep it alive as
 * long as the wrapper is used. The wrapper's signals and completions are
 * delivered in the thread-default #GMainContext of the caller.
 *
 * The stream must belong to @context; the driver rejects work on a stream of
 * another context.
 *
 * Returns: (transfer full): a new stream, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiStream *
cugi_stream_new_for_handle (CugiContext *context,
                            guint64      handle,
                            GError     **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  g_autoptr(CugiContext) resolved = NULL;
  CUstream stream = (CUstream) (guintptr) handle;
  unsigned int flags = 0;
  int priority = 0;

  g_return_val_if_fail (context == NULL || CUGI_IS_CONTEXT (context), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  resolved = cugi_context_resolve (context, error);
  if (resolved == NULL ||
      !cugi_context_enter (resolved, &scope, error) ||
      !CUGI_CALL (cuStreamGetFlags, (stream, &flags), error) ||
      !CUGI_CALL (cuStreamGetPriority, (stream, &priority), error))
    return NULL;

  return stream_new (resolved, FALSE, stream, FALSE,
                     (CugiStreamFlags) (flags & CUGI_STREAM_FLAGS_NON_BLOCKING), priority,
                     cugi_capture_main_context ());
}

/* The legacy default stream of @context, which the context makes through
 * this on first use and owns; the stream holds an unowned pointer back (no
 * cycle). */
static CugiStream *
new_null_stream (CugiContext *context)
{
  /* The context is shared by every thread and makes this stream on first
   * use, whichever thread that is: its ::idle goes to the global default
   * main context rather than to that thread's. */
  return stream_new (context, TRUE, NULL, FALSE, CUGI_STREAM_FLAGS_NONE, 0,
                     g_main_context_ref (g_main_context_default ()));
}

CUGI_LAUNCH_PATH CugiStream *
cugi_stream_get_null (CugiContext *context)
{
  return cugi_context_get_null_stream (context, new_null_stream);
}

/* ---- public API ------------------------------------------------------------- */

/**
 * cugi_stream_get_context:
 * @self: a #CugiStream
 *
 * Returns: (transfer none) (nullable): the context the stream belongs to
 *   (%NULL only for a stream not made by cugi's constructors)
 *
 * Since: 0.1
 */
CugiContext *
cugi_stream_get_context (CugiStream *self)
{
  g_return_val_if_fail (CUGI_IS_STREAM (self), NULL);

  return self->binding.context;
}

/**
 * cugi_stream_get_flags:
 * @self: a #CugiStream
 *
 * Returns: the flags the stream was made with
 *
 * Since: 0.1
 */
CugiStreamFlags
cugi_stream_get_flags (CugiStream *self)
{
  g_return_val_if_fail (CUGI_IS_STREAM (self), CUGI_STREAM_FLAGS_NONE);

  return self->flags;
}

/**
 * cugi_stream_get_priority:
 * @self: a #CugiStream
 *
 * Returns: the stream's priority; lower numbers are more urgent
 *
 * Since: 0.1
 */
gint
cugi_stream_get_priority (CugiStream *self)
{
  g_return_val_if_fail (CUGI_IS_STREAM (self), 0);

  return self->priority;
}

/**
 * cugi_stream_query:
 * @self: a #CugiStream
 * @error: return location for a #GError
 *
 * Whether all work enqueued on the stream has completed, without waiting.
 *
 * Returns: %TRUE if it has; %FALSE if work is still running, or with @error
 *   set if the stream cannot be used (for example after a kernel faulted:
 *   such an error stays until the context is reset)
 *
 * Since: 0.1
 */
gboolean
cugi_stream_query (CugiStream *self,
                   GError    **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CugiPendingMark mark;
  CUresult result;

  g_return_val_if_fail (CUGI_IS_STREAM (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!stream_enter (self, &scope, error))
    return FALSE;

  mark = stream_mark_pending (self);
  result = cugi_cuda.cuStreamQuery (self->handle);
  if (result == CUDA_ERROR_NOT_READY)
    return FALSE;
  if (!cugi_check_result (result, "cuStreamQuery", error))
    return FALSE;

  stream_release_pending (self, mark);
  return TRUE;
}

/* Waits for the flush markers behind the work @self completed, as it did
 * when they were on @self itself: once the stream is synchronized, the next
 * main-loop iteration releases its work's resources and emits ::idle. */
static gboolean
stream_synchronize_markers (CugiStream *self,
                            GError    **error)
{
  CUstream markers = g_atomic_pointer_get (&self->marker_stream);

  return markers == NULL ||
         self->marker_generation != cugi_context_get_generation (self->binding.context) ||
         CUGI_CALL (cuStreamSynchronize, (markers), error);
}

/**
 * cugi_stream_synchronize:
 * @self: a #CugiStream
 * @error: return location for a #GError
 *
 * Blocks the calling thread until all work enqueued on the stream has
 * completed. In a program with a main loop, prefer
 * cugi_stream_synchronize_async().
 *
 * Returns: %TRUE once the work has completed; %FALSE with @error set if it
 *   failed
 *
 * Since: 0.1
 */
gboolean
cugi_stream_synchronize (CugiStream *self,
                         GError    **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CugiPendingMark mark;

  g_return_val_if_fail (CUGI_IS_STREAM (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!stream_enter (self, &scope, error))
    return FALSE;

  mark = stream_mark_pending (self);
  if (!CUGI_CALL (cuStreamSynchronize, (self->handle), error) ||
      !stream_synchronize_markers (self, error))
    return FALSE;

  stream_release_pending (self, mark);
  return TRUE;
}

/**
 * cugi_stream_synchronize_async:
 * @self: a #CugiStream
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when the work has completed
 * @user_data: data for @callback
 *
 * Waits without blocking until all work enqueued on the stream so far has
 * completed; @callback then runs in the thread-default #GMainContext of the
 * caller. Call cugi_stream_synchronize_finish() from it.
 *
 * Cancelling @cancellable ends the wait at once with %G_IO_ERROR_CANCELLED;
 * it does not stop the GPU work, which goes on and completes. If the work
 * fails instead (a kernel faults), the wait ends with that error within a
 * second or so.
 *
 * Since: 0.1
 */
void
cugi_stream_synchronize_async (CugiStream         *self,
                               GCancellable       *cancellable,
                               GAsyncReadyCallback callback,
                               gpointer            user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (CUGI_IS_STREAM (self));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, cugi_stream_synchronize_async);
  g_task_set_name (task, "[cugi] cugi_stream_synchronize_async");
  cugi_stream_complete_task (self, task, NULL);
}

/**
 * cugi_stream_synchronize_finish:
 * @self: a #CugiStream
 * @result: the #GAsyncResult given to the callback
 * @error: return location for a #GError
 *
 * Finishes cugi_stream_synchronize_async().
 *
 * Returns: %TRUE if the work has completed; %FALSE with @error set if the
 *   wait was cancelled, the work failed, or the wait could not start
 *
 * Since: 0.1
 */
gboolean
cugi_stream_synchronize_finish (CugiStream   *self,
                                GAsyncResult *result,
                                GError      **error)
{
  g_return_val_if_fail (CUGI_IS_STREAM (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == cugi_stream_synchronize_async, FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/* ---- GObject ----------------------------------------------------------------- */

static void
cugi_stream_finalize (GObject *object)
{
  CugiStream *self = CUGI_STREAM (object);

  if (self->binding.context != NULL)
    {
      g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
      gboolean entered = stream_enter (self, &scope, NULL);

      /* Flushes and markers hold references, so resources left pending
       * belong to work whose flush could never run (its main context went
       * away): they may only go once that work has completed. */
      if (entered && self->pending->len > 0)
        cugi_cuda.cuStreamSynchronize (self->handle);
      if (entered && self->check_event != NULL &&
          self->check_generation == cugi_context_get_generation (self->binding.context))
        cugi_cuda.cuEventDestroy (self->check_event);
      /* Every flush marker held a reference: none is left in flight. */
      if (entered && self->marker_stream != NULL &&
          self->marker_generation == cugi_context_get_generation (self->binding.context))
        {
          cugi_cuda.cuStreamDestroy (self->marker_stream);
          cugi_cuda.cuEventDestroy (self->marker_event);
        }
      /* Work still in flight completes before the driver frees the stream. */
      if (entered && self->owns_handle)
        cugi_cuda.cuStreamDestroy (self->handle);
    }

  /* No flush is armed: each holds a reference. */
  if (self->flush_source != NULL)
    {
      g_source_destroy (self->flush_source);
      g_source_unref (self->flush_source);
    }
  g_ptr_array_unref (self->pending);
  g_clear_pointer (&self->main_context, g_main_context_unref);
  g_mutex_clear (&self->lock);
  g_mutex_clear (&self->check_lock);
  cugi_context_binding_clear (&self->binding);

  G_OBJECT_CLASS (cugi_stream_parent_class)->finalize (object);
}

static void
cugi_stream_get_property (GObject    *object,
                          guint       prop_id,
                          GValue     *value,
                          GParamSpec *pspec)
{
  CugiStream *self = CUGI_STREAM (object);

  switch (prop_id)
    {
    case PROP_CONTEXT:
      g_value_set_object (value, self->binding.context);
      break;
    case PROP_FLAGS:
      g_value_set_flags (value, self->flags);
      break;
    case PROP_PRIORITY:
      g_value_set_int (value, self->priority);
      break;
    case PROP_HANDLE:
      g_value_set_uint64 (value, (guint64) (guintptr) self->handle);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

CugiStreamClass *cugi_stream_class;

static void
cugi_stream_class_init (CugiStreamClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  cugi_stream_class = klass;
  object_class->finalize = cugi_stream_finalize;
  object_class->get_property = cugi_stream_get_property;

  /**
   * CugiStream:context:
   *
   * The context the stream belongs to.
   *
   * Since: 0.1
   */
  properties[PROP_CONTEXT] =
    g_param_spec_object ("context", NULL, NULL, CUGI_TYPE_CONTEXT,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * CugiStream:flags:
   *
   * How the stream relates to the context's legacy default stream.
   *
   * Since: 0.1
   */
  properties[PROP_FLAGS] =
    g_param_spec_flags ("flags", NULL, NULL, CUGI_TYPE_STREAM_FLAGS, CUGI_STREAM_FLAGS_NONE,
                        G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * CugiStream:priority:
   *
   * The stream's priority: lower numbers are more urgent.
   *
   * Since: 0.1
   */
  properties[PROP_PRIORITY] =
    g_param_spec_int ("priority", NULL, NULL, G_MININT, G_MAXINT, 0,
                      G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * CugiStream:handle:
   *
   * The `CUstream`, as an integer, for other CUDA libraries: for example
   * `torch.cuda.ExternalStream(stream.props.handle)` or
   * `cupy.cuda.ExternalStream(stream.props.handle)`. 0 is the legacy default
   * stream.
   *
   * Since: 0.1
   */
  properties[PROP_HANDLE] =
    g_param_spec_uint64 ("handle", NULL, NULL, 0, G_MAXUINT64, 0,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * CugiStream::idle:
   * @self: the stream
   *
   * Emitted when all work that cugi enqueued on the stream has completed,
   * once per burst of work: work enqueued within one main-loop iteration is
   * one burst, and the signal comes once after the last burst that has
   * completed, not for bursts that newer work followed. It is emitted in the
   * thread-default #GMainContext of the thread that made the stream (the
   * global default one for a context's legacy default stream).
   *
   * Only work enqueued through cugi counts: work that other libraries
   * enqueue on a wrapped stream does not emit the signal, though a burst's
   * marker waits for it too. With no handler connected, watching costs
   * no marker.
   *
   * Since: 0.1
   */
  signals[SIGNAL_IDLE] =
    g_signal_new ("idle", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
cugi_stream_init (CugiStream *self)
{
  g_mutex_init (&self->lock);
  g_mutex_init (&self->check_lock);
  self->pending = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
}
