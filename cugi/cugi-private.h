/* cugi-private.h: internals shared between cugi's source files. Not installed. */
#pragma once

#include "cugi.h"
#include "cugi-loader.h"

G_BEGIN_DECLS

/* ---- errors (cugi-error.c, cugi-result.c) --------------------------------- */

/* Calls a driver entry point through the loader's table and turns a failure
 * into a GError naming it:  CUGI_CALL (cuMemAlloc, (&ptr, size), error)  */
#define CUGI_CALL(entry_point, args, error) \
  cugi_check_result (cugi_cuda.entry_point args, #entry_point, (error))

gboolean  cugi_check_result            (CUresult     result,
                                        const char  *operation,
                                        GError     **error);
void      cugi_set_error_from_result   (GError     **error,
                                        CUresult     result,
                                        const char  *operation);
CugiError cugi_error_code_from_result  (CUresult     result);
/* FALSE when @result is missing from cugi's table (tested against cuda.h). */
gboolean  cugi_error_lookup_result     (CUresult     result,
                                        CugiError   *code,
                                        const char **name);
void      cugi_set_nvrtc_error         (GError     **error,
                                        nvrtcResult  result,
                                        const char  *operation);

/* ---- library state (cugi-init.c) ------------------------------------------ */

/* TRUE once the driver is loaded and initialized; the error otherwise. Every
 * public constructor calls this first. */
gboolean  cugi_ensure_driver           (GError **error);
/* The same for NVRTC, which needs no driver. */
gboolean  cugi_ensure_nvrtc            (GError **error);

/* ---- streams and the main-loop bridge (cugi-stream.c, cugi-completion.c) --- */

/* NULL for a context's legacy default stream. */
CUstream  cugi_stream_get_handle       (CugiStream *self);
/* @stream_or_null, or the legacy default stream of @context (borrowed). */
CugiStream *cugi_stream_resolve        (CugiStream  *stream_or_null,
                                        CugiContext *context);

/* Runs in the GMainContext given to cugi_stream_add_completion(). */
typedef void (*CugiCompletionFunc) (gpointer user_data);

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
 * may have been captured into a graph goes through cugi_graph_track_work(),
 * which calls this one only for a stream that is not being captured. */
void      cugi_stream_track_work       (CugiStream *self,
                                        GPtrArray  *resources);

/* ---- events (cugi-event.c) ------------------------------------------------ */

CUevent   cugi_event_get_handle        (CugiEvent *self);

/* ---- modules and kernels (cugi-module.c, cugi-kernel.c) ------------------ */

/* The function of @self that @name names (an extern "C" name, a mangled
 * name or a name expression of its program), and its @symbol in @self
 * (owned by @self); NOT_FOUND when @self has none. */
gboolean     cugi_module_find_function  (CugiModule  *self,
                                         const char  *name,
                                         CUfunction  *function,
                                         const char **symbol,
                                         GError     **error);
/* The module for @source compiled for @context's device with @options, through
 * the disk cache, and loaded once per context (later calls return the same
 * module). @name_expressions (may be NULL) are registered before compiling. */
CugiModule  *cugi_module_new_from_source_cached (CugiContext        *context,
                                                 const char         *source,
                                                 const char * const *options,
                                                 const char * const *name_expressions,
                                                 GError            **error);

/* ---- utilities (cugi-utils.c) --------------------------------------------- */

/* The GMainContext that was thread-default when an object was made (a new
 * reference, never NULL: the global default when none was pushed). */
GMainContext *cugi_capture_main_context (void);

/* Changes whenever an address cugi handed out may have stopped being usable
 * (memory freed, a context reset), never otherwise: what was checked usable
 * in one epoch stays so while the epoch lasts, so repeated launches check
 * their buffers once. Read it before checking. Never 0. */
gsize     cugi_memory_get_address_epoch (void);
void      cugi_memory_invalidate_addresses (void);

/* Each area adds its further internals in a section of its own below. */

/* ---- more: streams, events, main-loop bridge ------------------------------ */

/* The completion bridge (cugi-completion.c) knows nothing of streams: a
 * CugiCompletion is made where a marker is enqueued, posted from CUDA's
 * host-function thread, and run by a GSource of its GMainContext. */
typedef struct _CugiCompletion CugiCompletion;

/* A completion that will run @func (@user_data) in @main_context, then
 * @notify (@user_data), both in the thread that iterates @main_context. */
CugiCompletion *cugi_completion_new       (GMainContext      *main_context,
                                           CugiCompletionFunc func,
                                           gpointer           user_data,
                                           GDestroyNotify     notify);
/* From any thread: queues @completion for its main context and wakes that.
 * Takes only the queue's lock (which nobody holds while calling CUDA) and
 * calls no CUDA API, so it is safe on CUDA's host-function thread. */
void            cugi_completion_post      (CugiCompletion *completion);
/* For a completion that will never be posted (its marker could not be
 * enqueued): frees it and its user data without running its function. */
void            cugi_completion_discard   (CugiCompletion *completion);
/* The CUhostFn of every marker; @completion is a CugiCompletion to post. */
void CUDA_CB    cugi_completion_host_func (void *completion);

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
void        cugi_stream_track_pinned_work (CugiStream *self);
void        cugi_stream_unpin             (CugiStream *self,
                                           GPtrArray  *resources);

/* FALSE with CUGI_ERROR_INVALID_STATE for an object a binding made with
 * g_object_new() instead of a constructor, or one whose context was reset
 * since (its CUDA handle is gone). */
gboolean    cugi_stream_check             (CugiStream *self,
                                           GError    **error);
/* Without an error, for the common case of launches: TRUE when
 * cugi_stream_check() passes and @self belongs to @context (not NULL). */
gboolean    cugi_stream_is_usable_in      (CugiStream  *self,
                                           CugiContext *context);
gboolean    cugi_event_check              (CugiEvent  *self,
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

/* ---- more: kernels, launches, occupancy, graphs --------------------------- */

/* Marks the functions that every kernel launch runs, in whichever file they
 * are: GCC keeps them together (its hot text section), so that a launch
 * touches few instruction cache lines, which the driver's own work between
 * two launches evicts. */
#if defined(__GNUC__)
#define CUGI_LAUNCH_PATH __attribute__ ((hot))
#else
#define CUGI_LAUNCH_PATH
#endif

/* cugi-graph.c: what work just enqueued on @stream (a launch, a copy, a
 * memset) uses must outlive it; every such operation records it here. On a
 * stream that is being captured the work runs only when the graph does, so
 * @resources (transfer full, nullable) go to the graph being captured (and
 * @kernel, nullable, is recorded for its argument checks); otherwise they
 * go to cugi_stream_track_work(). */
void         cugi_graph_track_work          (CugiStream     *stream,
                                             CugiKernel     *kernel,
                                             GPtrArray      *resources);
/* TRUE while a capture begun with cugi_graph_capture_begin() is under way,
 * on any stream; until then a launch whose arguments pin their stream
 * (cugi_kernel_args_track_launch()) needs no cugi_graph_track_work(). */
gboolean     cugi_graph_has_captures        (void);
/* INVALID_STATE for a graph made with g_object_new() or one whose context
 * was reset since. */
gboolean     cugi_graph_check               (CugiGraph      *self,
                                             GError        **error);
CUgraph      cugi_graph_get_handle          (CugiGraph      *self);
/* What the graph's launches use (borrowed): arrays of references. */
GPtrArray   *cugi_graph_get_resources       (CugiGraph      *self);
/* The kernel node @index, counting kernel nodes only, in the driver's order. */
gboolean     cugi_graph_get_kernel_node     (CugiGraph      *self,
                                             guint           index,
                                             CUgraphNode    *node,
                                             GError        **error);
/* The cugi kernel a captured launch used, or NULL (borrowed). */
CugiKernel  *cugi_graph_lookup_kernel       (CugiGraph      *self,
                                             CUfunction      function);
/* cugi-graph-exec.c */
CugiGraphExec *cugi_graph_exec_new_for_graph (CugiGraph     *graph,
                                              GError       **error);

G_END_DECLS
