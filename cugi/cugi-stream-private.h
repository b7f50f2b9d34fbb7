/* cugi-stream-private.h: internals of the streams layer (streams, events,
 * the completion bridge, work tracking), for the files that use them. Not
 * installed. */
#pragma once

#include "cugi-context-private.h"
#include "cugi-private.h"

G_BEGIN_DECLS

/* ---- the completion bridge (cugi-completion.c) --------------------------- */

/* Runs in the GMainContext given to cugi_stream_add_completion(). */
typedef void (*CugiCompletionFunc) (gpointer user_data);

/* The completion bridge knows nothing of streams: a CugiCompletion is made
 * where a marker is enqueued, posted from CUDA's host-function thread (or
 * cugi's counter-watching one), and run by a GSource of its GMainContext. */
typedef struct _CugiCompletion CugiCompletion;

/* A completion that will run @func (@user_data) in @main_context, then
 * @notify (@user_data), both in the thread that iterates @main_context. */
CugiCompletion *cugi_completion_new       (GMainContext      *main_context,
                                           CugiCompletionFunc func,
                                           gpointer           user_data,
                                           GDestroyNotify     notify);
/* What the completion keeps alive besides its user data (the stream a marker
 * is on): @release (@object) runs after @notify, when the completion has run
 * or was discarded. */
void            cugi_completion_keep_alive (CugiCompletion *completion,
                                            gpointer        object,
                                            GDestroyNotify  release);
/* From any thread: queues @completion for its main context and wakes that.
 * Takes only the queue's lock (which nobody holds while calling CUDA) and
 * calls no CUDA API, so it is safe on CUDA's host-function thread. */
void            cugi_completion_post      (CugiCompletion *completion);
/* For a completion that will never be posted (its marker could not be
 * enqueued): frees it and its user data without running its function. */
void            cugi_completion_discard   (CugiCompletion *completion);
/* The CUhostFn of every marker; @completion is a CugiCompletion to post
 * (unless COUNTER's watcher did). */
void CUDA_CB    cugi_completion_host_func (void *completion);
/* Enqueues the marker of @completion on @handle, a stream of @context
 * (current): a host function, and under the COUNTER delivery a counter write
 * before it. The markers of one @owner (the stream, whose handle is
 * @handle) are delivered in the order they were enqueued. When this fails,
 * @completion is discarded. */
gboolean        cugi_completion_enqueue   (CugiCompletion *completion,
                                           GObject        *owner,
                                           CugiContext    *context,
                                           CUstream        handle,
                                           GError        **error);

/* How the GPU's completion reaches its main context, for the benchmark that
 * compares them (bench-completion); COUNTER unless the environment
 * variable CUGI_COMPLETION_DELIVERY (one of the names of
 * cugi_completion_delivery_get_name(), read once) or the benchmark says
 * otherwise.
 * READY_TIME: g_source_set_ready_time(), GLib's cross-thread wake-up.
 * EVENTFD: the host function writes an eventfd the source polls (Linux;
 * elsewhere READY_TIME), once per dispatch, without the context's lock.
 * SPIN: READY_TIME, and before the context sleeps while completions are in
 * flight, it waits for one for up to @spin_us, burning the CPU meanwhile.
 * COUNTER: READY_TIME, and before each host function the stream writes a
 * sequence number to mapped pinned memory that a cugi thread watches;
 * whichever sees the marker first posts the completion. Where the driver
 * has no stream memory operations, READY_TIME. */
typedef enum
{
  CUGI_COMPLETION_DELIVERY_READY_TIME,
  CUGI_COMPLETION_DELIVERY_EVENTFD,
  CUGI_COMPLETION_DELIVERY_SPIN,
  CUGI_COMPLETION_DELIVERY_COUNTER,
  CUGI_COMPLETION_N_DELIVERIES
} CugiCompletionDelivery;

/* For the completion sources made from now on, one per GMainContext on its
 * first completion: a benchmark gives each delivery a new context. */
void            cugi_completion_set_delivery (CugiCompletionDelivery delivery,
                                              guint                  spin_us);
/* "ready-time", "eventfd", "spin" or "counter". */
const char     *cugi_completion_delivery_get_name (CugiCompletionDelivery delivery);

/* Where the time of a completion goes, for benchmarks: HOST_FUNC when the
 * marker is seen, by CUDA's thread calling its host function or (COUNTER)
 * by cugi's thread reading its counter, whichever posts it; QUEUED once that
 * thread queued the completion and woke the context, PREPARE or CHECK when
 * the context finds it queued (before sleeping, or woken), DISPATCH when the
 * source runs. */
typedef enum
{
  CUGI_COMPLETION_STAGE_HOST_FUNC,
  CUGI_COMPLETION_STAGE_QUEUED,
  CUGI_COMPLETION_STAGE_PREPARE,
  CUGI_COMPLETION_STAGE_CHECK,
  CUGI_COMPLETION_STAGE_DISPATCH,
  CUGI_COMPLETION_N_STAGES
} CugiCompletionStage;

typedef void (*CugiCompletionProbe) (CugiCompletionStage stage);

/* Calls @probe (nullable: none) at each stage, from the thread of the
 * stage; for a benchmark with one completion in flight at a time. */
void            cugi_completion_set_probe (CugiCompletionProbe probe);

/* ---- streams (cugi-stream.c) ---------------------------------------------- */

/* Where the pending resources stood at some point: see stream_release_pending(). */
typedef struct
{
  guint pending_serial;
  guint length;
} CugiPendingMark;

/* Here rather than in cugi-stream.c: every launch reads the handle and
 * whether its burst has a flush already, through the inline functions
 * below, without a call. Only cugi-stream.c writes it. */
struct _CugiStream
{
  GObject          parent_instance;

  /* What every launch reads comes first. */
  CUstream         handle;
  gboolean         flush_scheduled;    /* atomic: also read without the lock */
  CugiContextBinding binding;          /* no reference in the null stream: its context keeps it */
  gsize            current_epoch;      /* atomic: see cugi_context_binding_is_current_in_epoch() */
  gboolean         owns_handle;
  CugiStreamFlags  flags;
  gint             priority;
  GMainContext    *main_context;       /* where ::idle is emitted and bursts are flushed */

  int              work_generation;    /* atomic: bumped when a burst starts */

  GMutex           lock;               /* guards the four that follow, and flush_scheduled's writes */
  GPtrArray       *pending;            /* resources arrays not yet under a marker */
  guint            pending_serial;     /* bumped whenever resources leave pending */
  guint            unflushed_tracks;   /* resources tracked since the last flush */
  GSource         *flush_source;       /* made on the first burst, in main_context */

  /* Releasing without a main loop: see stream_check_released(). */
  GMutex           check_lock;         /* guards the four that follow */
  CUevent          check_event;        /* made on first use */
  guint            check_generation;   /* of the context when check_event was made */
  gboolean         check_recorded;
  CugiPendingMark  check_mark;         /* what was pending when check_event was recorded */

  /* Where the flushes' markers wait: see stream_add_flush_marker(). Made
   * and replaced in the stream's main context; marker_stream is also read,
   * atomically, by cugi_stream_synchronize() on any thread. */
  CUstream         marker_stream;      /* made on first use */
  CUevent          marker_event;
  guint            marker_generation;  /* of the context when the two were made */
};

/* The class of every stream, set by its class_init. */
extern CugiStreamClass *cugi_stream_class;

/* CUGI_IS_STREAM() for the launch path: see cugi_is_final_instance(). */
static inline gboolean
cugi_stream_is_stream (gconstpointer instance)
{
  return cugi_is_final_instance (instance, cugi_stream_class);
}

/* NULL for a context's legacy default stream. No type check: every launch
 * asks, and cugi's own callers pass streams. */
static inline CUstream
cugi_stream_get_handle (CugiStream *self)
{
  return self->handle;
}

/* The legacy default stream of @context (borrowed), made on first use. */
CugiStream *cugi_stream_get_null       (CugiContext *context);

/* @stream_or_null, or the legacy default stream of @context (borrowed). */
static inline CugiStream *
cugi_stream_resolve (CugiStream  *stream_or_null,
                     CugiContext *context)
{
  return G_LIKELY (stream_or_null != NULL) ? stream_or_null : cugi_stream_get_null (context);
}

/* Enqueues a marker (cuLaunchHostFunc) on @self: once the GPU has done all work
 * enqueued before it, @func runs in @main_context (NULL: the stream's own).
 * @notify frees @user_data afterwards, or at once when this fails. */
gboolean  cugi_stream_add_completion   (CugiStream        *self,
                                        GMainContext      *main_context,
                                        CugiCompletionFunc func,
                                        gpointer           user_data,
                                        GDestroyNotify     notify,
                                        GError           **error);

/* Tells the stream that cugi enqueued work on it. @resources (transfer full,
 * with a free function; may be NULL) stay alive until that work completes,
 * whatever the caller drops. Also what drives CugiStream::idle. Work that
 * may have been captured into a graph goes through cugi_work_track(), which
 * calls this one only for a stream that is not being captured. */
void      cugi_stream_track_work       (CugiStream *self,
                                        GPtrArray  *resources);

/* Work whose resources their owner holds anyway (an argument list keeps its
 * buffers in use from launch to launch) need not be tracked piece by piece.
 * The owner pins the stream it enqueues on (a reference on the stream and its
 * context), tracks each piece with cugi_stream_track_pinned_work(), which
 * drives ::idle as tracked work does but in the common case only reads
 * memory, and when it lets go of the resources or moves to another stream,
 * hands them to cugi_stream_unpin() (transfer full, with the pin), which
 * drops them at once if the stream is done, else keeps them until the work
 * enqueued so far has completed. */
CugiStream *cugi_stream_pin               (CugiStream *self);
void        cugi_stream_unpin             (CugiStream *self,
                                           GPtrArray  *resources);
/* The first work of a burst: see cugi_stream_track_pinned_work(). */
void        cugi_stream_begin_burst       (CugiStream *self);

/* Tracks work that keeps nothing alive, or whose resources their owner
 * holds (pinned, above): it drives ::idle as cugi_stream_track_work() does.
 * Inline: launches run it. When the burst has its flush already, whose
 * marker will follow this work, there is nothing to write, so no atomic
 * operation, which would wait here for the writes of the launch just made
 * to reach the device. A flush is scheduled whether or not a handler of
 * ::idle is connected: asking GObject that at every launch costs more than
 * one idle source per main-loop iteration, and the flush asks instead. */
static inline void
cugi_stream_track_pinned_work (CugiStream *self)
{
  if (G_LIKELY (g_atomic_int_get (&self->flush_scheduled)))
    return;
  cugi_stream_begin_burst (self);
}

/* FALSE with CUGI_ERROR_INVALID_STATE for an object a binding made with
 * g_object_new() instead of a constructor, with CUGI_ERROR_INVALID_CONTEXT
 * for one whose context was reset since (its CUDA handle is gone). */
gboolean    cugi_stream_check             (CugiStream *self,
                                           GError    **error);

/* Called in the task's context, once the work the task waits for completed:
 * it returns @task (g_task_return_*()). */
typedef void (*CugiTaskCompleteFunc) (GTask *task);

/* Completes @task once the work enqueued on @self so far has completed:
 * @complete (NULL: g_task_return_boolean (task, TRUE)) then runs in the
 * task's context. If the task's cancellable is cancelled first, the task
 * returns G_IO_ERROR_CANCELLED at once and @complete never runs; the GPU work
 * goes on. If the context fails (a kernel faults) the task returns that
 * error within about a second. Errors enqueueing the marker return the task
 * at once. Takes its own reference on @task. */
void        cugi_stream_complete_task     (CugiStream          *self,
                                           GTask               *task,
                                           CugiTaskCompleteFunc complete);

/* Whether any capture is under way, on any stream: a driver query then
 * could break it. cugi-work.c, which knows, sets @has_captures before it
 * registers its first capture; until then there is none. */
void      cugi_stream_set_capture_probe (gboolean (*has_captures) (void));

/* ---- events (cugi-event.c) ------------------------------------------------ */

CUevent   cugi_event_get_handle        (CugiEvent *self);

/* ---- work lifetimes (cugi-work.c) ----------------------------------------- */

/* Resources for cugi_work_track(): each element is released with its
 * own function, so one array holds buffers, host buffers and GBytes. */
GPtrArray *cugi_work_resources_new     (void);
void       cugi_work_resources_add     (GPtrArray      *resources,
                                        gpointer        data,
                                        GDestroyNotify  release);

/* What work just enqueued on @stream (a launch, a copy, a memset, a graph
 * launch) uses must outlive it; every such operation records it here.
 * On a stream that is being captured the work runs only when the graph
 * does, so @resources (transfer full, nullable) go to the capture, and so
 * does @kernel (nullable: the kernel a launch ran, for the argument checks
 * of the executable graphs); otherwise they go to cugi_stream_track_work(). */
void      cugi_work_track              (CugiStream  *stream,
                                        CugiKernel  *kernel,
                                        GPtrArray   *resources);
/* TRUE while a capture registered with cugi_work_begin_capture() is under
 * way, on any stream; until then a launch whose arguments pin their stream
 * (cugi_kernel_args_track_launch()) needs no cugi_work_track(). Inline:
 * every launch asks. */
extern gint cugi_work_n_captures;   /* cugi-work.c; atomic */

static inline gboolean
cugi_work_has_captures (void)
{
  return g_atomic_int_get (&cugi_work_n_captures) != 0;
}

/* What captured work uses, which the graph made of it keeps. */
typedef struct
{
  cuuint64_t  capture_id;  /* the driver's */
  GPtrArray  *resources;   /* (element-type GPtrArray) */
  GHashTable *kernels;     /* (element-type CugiKernel): a set, owning them */
} CugiCapturedWork;

/* Empty: for the capture @capture_id, or 0 for a graph built node by node. */
CugiCapturedWork *cugi_captured_work_new (cuuint64_t capture_id);

/* Registers the capture just begun on @stream, so that the work enqueued
 * in it is recorded there. Keyed by the driver's capture id rather than by
 * stream: work on another stream that joined the capture (through an event
 * wait) lands in the same graph. INVALID_STATE when @stream is not being
 * captured. */
gboolean  cugi_work_begin_capture      (CugiStream  *stream,
                                        GError     **error);
/* Unregisters the capture of @stream before it ends, so that no work can be
 * added to it after: what it recorded (transfer full; empty for a capture
 * begun outside cugi, whose owner keeps its memory alive), or NULL with
 * INVALID_STATE when @stream is not being captured. */
CugiCapturedWork *cugi_work_end_capture (CugiStream *stream,
                                         GError    **error);
void      cugi_captured_work_free      (CugiCapturedWork *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CugiCapturedWork, cugi_captured_work_free)

G_END_DECLS
