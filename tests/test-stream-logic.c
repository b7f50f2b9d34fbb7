/* test-stream-logic.c: streams, events and the main-loop bridge without a GPU,
 * against fake-cuda-streams: bursts and ::idle, ::completed, async waits,
 * cancellation, failures, lifetimes and threads. A host function that sleeps
 * stands for a kernel, enqueued and tracked as cugi's launches are. */
#include "config.h"

#include <string.h>

#include <gmodule.h>

#include "cugi-stream-private.h"
#include "gpu-work.h"

static void (*fake_fail) (int fail);
static int (*fake_host_funcs) (CUstream handle);

static void CUDA_CB
sleep_ms (void *data)
{
  g_usleep (GPOINTER_TO_UINT (data) * 1000);
}

/* Work of @ms milliseconds on @stream, enqueued and tracked as a launch is;
 * @resources (transfer full, may be NULL) stay alive until it is done. */
static void
work (CugiStream *stream,
      guint       ms,
      GPtrArray  *resources)
{
  g_assert_cmpint (cugi_cuda.cuLaunchHostFunc (cugi_stream_get_handle (stream), sleep_ms, GUINT_TO_POINTER (ms)),
                   ==, CUDA_SUCCESS);
  cugi_stream_track_work (stream, resources);
}

/* Resources holding a new object, whose weak pointer goes in @alive. */
static GPtrArray *
resources_new (GObject **alive)
{
  GPtrArray *resources = g_ptr_array_new_with_free_func (g_object_unref);

  *alive = g_object_new (G_TYPE_OBJECT, NULL);
  g_object_add_weak_pointer (*alive, (gpointer *) alive);
  g_ptr_array_add (resources, *alive);
  return resources;
}

/* Waits until the driver is done with @stream, without telling cugi. */
static void
wait_for_driver (CugiStream *stream)
{
  while (cugi_cuda.cuStreamQuery (cugi_stream_get_handle (stream)) == CUDA_ERROR_NOT_READY)
    g_usleep (1000);
}

static void
test_priority_and_flags (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiStream) stream = cugi_stream_new (NULL, CUGI_STREAM_FLAGS_NON_BLOCKING, -5, &error);
  g_autoptr(CugiStream) wrapper = NULL;
  guint64 handle = 0;

  g_assert_no_error (error);
  /* The fake context accepts -5 to 0. */
  g_assert_null (cugi_stream_new (NULL, CUGI_STREAM_FLAGS_NONE, 1, &error));
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "-5"));
  g_assert_nonnull (strstr (error->message, "0"));
  g_clear_error (&error);
  g_assert_null (cugi_stream_new (NULL, CUGI_STREAM_FLAGS_NONE, -6, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, NULL);
  g_assert_null (cugi_stream_new (NULL, 1 << 4, 0, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, NULL);

  g_object_get (stream, "handle", &handle, NULL);
  wrapper = cugi_stream_new_for_handle (NULL, handle, &error);
  g_assert_no_error (error);
  g_assert_cmpint (cugi_stream_get_priority (wrapper), ==, -5);
  g_assert_cmpint (cugi_stream_get_flags (wrapper), ==, CUGI_STREAM_FLAGS_NON_BLOCKING);
  g_assert_true (cugi_stream_get_handle (wrapper) == cugi_stream_get_handle (stream));
}

static void
test_query_synchronize (void)
{
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);

  work (stream, 100, NULL);
  cugi_test_assert_query (stream, FALSE);
  cugi_test_synchronize (stream);
  cugi_test_assert_query (stream, TRUE);
}

/* Unwatched, tracking costs no marker (a burst's flush finds nobody
 * listening); watched, a burst costs one marker and gives one ::idle; a
 * burst that newer work followed gives none. */
static void
test_idle_bursts (void)
{
  GMainContext *main_context = cugi_test_push_main_context ();
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  int markers = cugi_test_get_n_markers ();
  guint n_idle = 0;

  for (guint i = 0; i < 100; i++)
    work (stream, 0, NULL);
  while (g_main_context_iteration (main_context, FALSE))
    ;
  cugi_test_synchronize (stream);
  g_assert_cmpint (cugi_test_get_n_markers (), ==, markers);

  g_signal_connect (stream, "idle", G_CALLBACK (count_emission), &n_idle);
  for (guint i = 0; i < 100; i++)
    work (stream, 1, NULL);
  /* The marker goes in when the iteration is over. */
  g_assert_cmpint (cugi_test_get_n_markers (), ==, markers);
  iterate_until (&n_idle, 1, 10000);
  iterate_for (100);
  g_assert_cmpuint (n_idle, ==, 1);
  g_assert_cmpint (cugi_test_get_n_markers (), ==, markers + 1);
  g_assert_true (cugi_stream_query (stream, &error));

  /* Two bursts, the second enqueued before the first completed. */
  work (stream, 500, NULL);
  g_main_context_iteration (main_context, FALSE);
  g_assert_cmpint (cugi_test_get_n_markers (), ==, markers + 2);
  work (stream, 50, NULL);
  iterate_until (&n_idle, 2, 10000);
  iterate_for (100);
  g_assert_cmpuint (n_idle, ==, 2);
  g_assert_cmpint (cugi_test_get_n_markers (), ==, markers + 3);

  cugi_test_pop_main_context (main_context);
}

/* A burst's flush puts its marker on a stream of its own, behind the
 * burst: the stream's later work never waits for CUDA's callback thread.
 * Still ::idle comes after the burst, and once the stream is synchronized
 * the next iteration releases what the burst used. */
static void
test_flush_marker_beside_stream (void)
{
  GMainContext *main_context = cugi_test_push_main_context ();
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  CUstream handle = cugi_stream_get_handle (stream);
  int markers = cugi_test_get_n_markers ();
  GObject *alive;
  guint n_idle = 0;

  g_signal_connect (stream, "idle", G_CALLBACK (count_emission), &n_idle);
  work (stream, 50, resources_new (&alive));
  g_main_context_iteration (main_context, FALSE);
  /* The flush's marker went in, not on the stream: its only host function
   * is the work's. */
  g_assert_cmpint (cugi_test_get_n_markers (), ==, markers + 1);
  g_assert_cmpint (fake_host_funcs (handle), ==, 1);
  g_assert_cmpuint (n_idle, ==, 0);
  g_assert_nonnull (alive);

  cugi_test_synchronize (stream);
  g_main_context_iteration (main_context, FALSE);
  g_assert_null (alive);
  g_assert_cmpuint (n_idle, ==, 1);
  g_assert_cmpint (fake_host_funcs (handle), ==, 1);

  cugi_test_pop_main_context (main_context);
}

static void
test_idle_after_last_unref (void)
{
  GMainContext *main_context = cugi_test_push_main_context ();
  CugiStream *stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  guint n_idle = 0;

  g_signal_connect (stream, "idle", G_CALLBACK (count_emission), &n_idle);
  work (stream, 50, NULL);
  g_object_add_weak_pointer (G_OBJECT (stream), (gpointer *) &stream);
  g_object_unref (stream);
  g_assert_nonnull (stream);
  iterate_until (&n_idle, 1, 10000);
  iterate_until_finalized ((gpointer *) &stream, 10000);
  cugi_test_pop_main_context (main_context);
}

/* Resources stay alive until their work is done, and go in the stream's
 * main context right after. */
static void
test_resources_in_main_loop (void)
{
  GMainContext *main_context = cugi_test_push_main_context ();
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  GObject *alive = NULL;

  work (stream, 300, resources_new (&alive));
  iterate_for (30);
  g_assert_nonnull (alive);
  iterate_until_finalized ((gpointer *) &alive, 10000);
  cugi_test_pop_main_context (main_context);
}

/* A stream whose main context never runs (a script without a main loop)
 * still gets its resources back: through the check every few dozen
 * launches, and at cugi_stream_synchronize(). */
static void
test_resources_without_main_loop (void)
{
  g_autoptr(GMainContext) idle_context = cugi_test_push_main_context ();
  CugiStream *stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  GObject *first = NULL;
  GObject *last = NULL;
  GObject *other = NULL;

  g_main_context_pop_thread_default (idle_context);

  work (stream, 10, resources_new (&first));
  /* The first check records an event behind all this work... */
  for (guint i = 1; i < 64; i++)
    work (stream, 0, resources_new (&other));
  g_assert_nonnull (first);
  wait_for_driver (stream);
  /* ...which the second finds completed. */
  for (guint i = 0; i < 64; i++)
    work (stream, 0, resources_new (&last));
  g_assert_null (first);
  g_assert_nonnull (last);

  cugi_test_synchronize (stream);
  g_assert_null (last);

  /* The flush waiting in the context that did not run holds the stream,
   * which goes once the context runs. */
  g_object_add_weak_pointer (G_OBJECT (stream), (gpointer *) &stream);
  g_object_unref (stream);
  g_assert_nonnull (stream);
  g_main_context_iteration (idle_context, FALSE);
  g_assert_null (stream);
}

static void
test_completed_once_per_record (void)
{
  GMainContext *main_context = cugi_test_push_main_context ();
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  g_autoptr(CugiEvent) event = cugi_test_event_new (CUGI_EVENT_FLAGS_DISABLE_TIMING);
  int markers;
  guint n_completed = 0;

  work (stream, 100, NULL);
  cugi_test_record (event, stream);
  g_signal_connect (event, "completed", G_CALLBACK (count_emission), &n_completed);
  for (guint i = 0; i < 5; i++)
    {
      work (stream, 10, NULL);
      cugi_test_record (event, stream);
    }
  iterate_until (&n_completed, 5, 10000);
  cugi_test_synchronize (stream);
  iterate_for (100);
  g_assert_cmpuint (n_completed, ==, 5);

  g_signal_handlers_disconnect_by_data (event, &n_completed);
  markers = cugi_test_get_n_markers ();
  cugi_test_record (event, stream);
  g_assert_cmpint (cugi_test_get_n_markers (), ==, markers);

  cugi_test_pop_main_context (main_context);
}

static void
work_for (CugiStream *stream,
          guint       ms)
{
  work (stream, ms, NULL);
}

/* The refusals of cugi_event_elapsed_time() (see
 * cugi_test_check_elapsed_time()), around 50 ms of work. */
static void
test_elapsed_time (void)
{
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);

  g_assert_cmpfloat (cugi_test_check_elapsed_time (stream, work_for, 50), >=, 40);
}

typedef struct
{
  GError *error;
  guint   count;
  gdouble milliseconds;
} AsyncResult;

static void
on_timed (GObject      *source,
          GAsyncResult *result,
          gpointer      data)
{
  AsyncResult *async = data;

  g_clear_error (&async->error);
  async->milliseconds = cugi_event_elapsed_time_finish (CUGI_EVENT (source), result, &async->error);
  async->count++;
}

/* The time between two events arrives once both have completed, whichever
 * completes last: each in turn waits behind a gate on its own stream. */
static void
test_elapsed_time_async (void)
{
  GMainContext *main_context = cugi_test_push_main_context ();
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  g_autoptr(CugiStream) other_stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  g_autoptr(CugiEvent) start = cugi_test_event_new (CUGI_EVENT_FLAGS_NONE);
  g_autoptr(CugiEvent) end = cugi_test_event_new (CUGI_EVENT_FLAGS_NONE);
  CugiStream *held_streams[] = { stream, other_stream };
  AsyncResult async = { 0 };

  for (guint i = 0; i < G_N_ELEMENTS (held_streams); i++)
    {
      CugiTestGate gate;

      cugi_test_gate_close (&gate, held_streams[i]);
      cugi_test_record (start, stream);
      cugi_test_record (end, other_stream);
      cugi_event_elapsed_time_async (start, end, NULL, on_timed, &async);
      iterate_for (20);
      g_assert_cmpuint (async.count, ==, i);

      cugi_test_gate_open (&gate, held_streams[i]);
      iterate_until (&async.count, i + 1, 5000);
      g_assert_no_error (async.error);
      g_assert_cmpfloat (async.milliseconds, ==, cugi_event_elapsed_time (start, end, &error));
      g_assert_no_error (error);
    }
  cugi_test_pop_main_context (main_context);
}

static void
on_async_done (GObject      *source,
               GAsyncResult *result,
               gpointer      data)
{
  AsyncResult *async = data;
  gboolean done;

  g_clear_error (&async->error);
  if (CUGI_IS_STREAM (source))
    done = cugi_stream_synchronize_finish (CUGI_STREAM (source), result, &async->error);
  else
    done = cugi_event_synchronize_finish (CUGI_EVENT (source), result, &async->error);
  g_assert_true (done == (async->error == NULL));
  async->count++;
}

static void
test_synchronize_async (void)
{
  GMainContext *main_context = cugi_test_push_main_context ();
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  g_autoptr(CugiEvent) event = cugi_test_event_new (CUGI_EVENT_FLAGS_DISABLE_TIMING);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  AsyncResult async = { 0 };
  gint64 start;

  work (stream, 100, NULL);
  cugi_test_record (event, stream);
  cugi_stream_synchronize_async (stream, NULL, on_async_done, &async);
  iterate_until (&async.count, 1, 10000);
  g_assert_no_error (async.error);
  /* The work before the marker is done (the marker's own host function may
   * still be returning, so the stream itself may not be idle yet). */
  cugi_test_assert_event_query (event, TRUE);

  /* Cancelled: at once, while the work goes on. */
  work (stream, 1000, NULL);
  cugi_stream_synchronize_async (stream, cancellable, on_async_done, &async);
  iterate_for (20);
  start = g_get_monotonic_time ();
  g_cancellable_cancel (cancellable);
  iterate_until (&async.count, 2, 10000);
  g_assert_cmpint (g_get_monotonic_time () - start, <, 500000);
  g_assert_error (async.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  cugi_test_assert_query (stream, FALSE);
  cugi_test_synchronize (stream);
  iterate_for (50);
  g_assert_cmpuint (async.count, ==, 2);

  /* An event waits for its own recording, not for work enqueued later. */
  work (stream, 50, NULL);
  cugi_test_record (event, stream);
  work (stream, 1000, NULL);
  start = g_get_monotonic_time ();
  cugi_event_synchronize_async (event, NULL, on_async_done, &async);
  iterate_until (&async.count, 3, 10000);
  g_assert_no_error (async.error);
  g_assert_cmpint (g_get_monotonic_time () - start, <, 500000);
  g_assert_false (cugi_stream_query (stream, &error));

  cugi_test_synchronize (stream);
  g_clear_error (&async.error);
  cugi_test_pop_main_context (main_context);
}

static gboolean
count_dispatch (gpointer data)
{
  (*(guint *) data)++;
  return G_SOURCE_CONTINUE;
}

static void
test_event_source (void)
{
  GMainContext *main_context = cugi_test_push_main_context ();
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  g_autoptr(CugiEvent) event = cugi_test_event_new (CUGI_EVENT_FLAGS_DISABLE_TIMING);
  GSource *source;
  guint n_dispatched = 0;

  work (stream, 300, NULL);
  cugi_test_record (event, stream);
  source = cugi_event_create_source (event);
  g_source_set_callback (source, count_dispatch, &n_dispatched, NULL);
  g_source_attach (source, main_context);
  iterate_for (30);
  g_assert_cmpuint (n_dispatched, ==, 0);
  iterate_until (&n_dispatched, 1, 10000);
  g_assert_true (cugi_event_query (event, &error));
  iterate_for (50);
  g_assert_cmpuint (n_dispatched, ==, 1);
  g_assert_true (g_source_is_destroyed (source));
  g_source_unref (source);
  cugi_test_pop_main_context (main_context);
}

/* When the context fails, CUDA runs no more markers: waits end anyway, with
 * the failure, and nothing is left behind once it is lifted. */
static void
test_failure_ends_wait (void)
{
  GMainContext *main_context = cugi_test_push_main_context ();
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  g_autoptr(CugiEvent) event = cugi_test_event_new (CUGI_EVENT_FLAGS_DISABLE_TIMING);
  g_autoptr(GError) error = NULL;
  AsyncResult async = { 0 };

  work (stream, 50, NULL);
  cugi_test_record (event, stream);
  cugi_stream_synchronize_async (stream, NULL, on_async_done, &async);
  cugi_event_synchronize_async (event, NULL, on_async_done, &async);
  fake_fail (TRUE);

  iterate_until (&async.count, 2, 10000);
  g_assert_error (async.error, CUGI_ERROR, CUGI_ERROR_LAUNCH_FAILED);
  g_clear_error (&async.error);
  g_assert_false (cugi_stream_query (stream, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_LAUNCH_FAILED, NULL);

  /* Waits that start now fail at once. */
  cugi_stream_synchronize_async (stream, NULL, on_async_done, &async);
  iterate_until (&async.count, 3, 10000);
  g_assert_error (async.error, CUGI_ERROR, CUGI_ERROR_LAUNCH_FAILED);
  g_clear_error (&async.error);

  /* The markers held back run and find their tasks returned. */
  fake_fail (FALSE);
  cugi_test_synchronize (stream);
  iterate_for (50);
  g_assert_cmpuint (async.count, ==, 3);
  cugi_test_pop_main_context (main_context);
}

/* A reset of the context destroys its streams and events: using them is an
 * error; the legacy default stream stays usable. */
static void
test_context_reset (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiContext) context = cugi_context_get_default (&error);
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  g_autoptr(CugiEvent) event = cugi_test_event_new (CUGI_EVENT_FLAGS_NONE);
  CugiStream *null_stream;

  g_assert_no_error (error);
  g_assert_true (cugi_context_reset (context, &error));
  g_assert_no_error (error);

  g_assert_false (cugi_stream_query (stream, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_CONTEXT, NULL);
  g_assert_false (cugi_event_record (event, NULL, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_CONTEXT, NULL);

  null_stream = cugi_stream_resolve (NULL, context);
  work (null_stream, 10, NULL);
  cugi_test_synchronize (null_stream);
}

/* Objects a binding made without the constructors. */
static void
test_bare_objects (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiStream) stream = g_object_new (CUGI_TYPE_STREAM, NULL);
  g_autoptr(CugiEvent) event = g_object_new (CUGI_TYPE_EVENT, NULL);
  g_autoptr(GMainContext) main_context = cugi_test_push_main_context ();
  AsyncResult async = { 0 };
  GSource *source;
  guint n_dispatched = 0;

  g_assert_false (cugi_stream_synchronize (stream, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_STATE, NULL);
  g_assert_false (cugi_event_query (event, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_STATE, NULL);
  cugi_test_assert_no_elapsed_time (event, event);

  cugi_stream_synchronize_async (stream, NULL, on_async_done, &async);
  cugi_event_synchronize_async (event, NULL, on_async_done, &async);
  iterate_until (&async.count, 2, 10000);
  g_assert_error (async.error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE);
  g_clear_error (&async.error);

  /* A source that cannot watch dispatches at once; query says why. */
  source = cugi_event_create_source (event);
  g_source_set_callback (source, count_dispatch, &n_dispatched, NULL);
  g_source_attach (source, main_context);
  iterate_until (&n_dispatched, 1, 10000);
  g_source_unref (source);

  g_main_context_pop_thread_default (main_context);
}

#define N_THREADS 8
#define N_ROUNDS 6

typedef struct
{
  CugiTestCaller caller;
  guint          n_idle;
  guint          n_completed;
  guint          n_synchronized;
} Worker;

static void
worker_on_idle (CugiStream *stream,
                Worker     *worker)
{
  cugi_test_caller_check (&worker->caller);
  worker->n_idle++;
}

static void
worker_on_completed (CugiEvent *event,
                     Worker    *worker)
{
  cugi_test_caller_check (&worker->caller);
  worker->n_completed++;
}

static void
worker_on_synchronized (GObject      *source,
                        GAsyncResult *result,
                        gpointer      data)
{
  Worker *worker = data;

  cugi_test_caller_check (&worker->caller);
  g_assert_true (cugi_stream_synchronize_finish (CUGI_STREAM (source), result, NULL));
  worker->n_synchronized++;
}

static gpointer
run_worker (gpointer data)
{
  Worker *worker = data;
  CugiStream *stream;
  CugiEvent *event;

  cugi_test_caller_push (&worker->caller);
  stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  event = cugi_test_event_new (CUGI_EVENT_FLAGS_DISABLE_TIMING);
  g_signal_connect (stream, "idle", G_CALLBACK (worker_on_idle), worker);
  g_signal_connect (event, "completed", G_CALLBACK (worker_on_completed), worker);

  for (guint round = 0; round < N_ROUNDS; round++)
    {
      for (guint i = 0; i < 20; i++)
        work (stream, 0, NULL);
      work (stream, 2, NULL);
      g_assert_true (cugi_event_record (event, stream, NULL));
      cugi_stream_synchronize_async (stream, NULL, worker_on_synchronized, worker);
      iterate_until (&worker->n_idle, round + 1, 10000);
      iterate_until (&worker->n_completed, round + 1, 10000);
      iterate_until (&worker->n_synchronized, round + 1, 10000);
    }
  iterate_for (50);

  g_signal_handlers_disconnect_by_data (stream, worker);
  g_signal_handlers_disconnect_by_data (event, worker);
  g_object_unref (stream);
  g_object_unref (event);
  iterate_for (10);
  cugi_test_caller_pop (&worker->caller);
  return NULL;
}

static void
test_threads (void)
{
  Worker workers[N_THREADS] = { 0 };

  cugi_test_run_threads (run_worker, workers, sizeof workers[0], N_THREADS);
  for (guint i = 0; i < N_THREADS; i++)
    {
      g_assert_cmpuint (workers[i].n_idle, ==, N_ROUNDS);
      g_assert_cmpuint (workers[i].n_completed, ==, N_ROUNDS);
      g_assert_cmpuint (workers[i].n_synchronized, ==, N_ROUNDS);
    }
}

int
main (int argc, char **argv)
{
  cugi_test_init_stand_in (&argc, &argv);
  fake_fail = cugi_test_stand_in_symbol ("fake_cuda_streams_fail");
  fake_host_funcs = cugi_test_stand_in_symbol ("fake_cuda_streams_host_funcs");
  cugi_test_count_markers ();

  g_test_add_func ("/stream-logic/priority-and-flags", test_priority_and_flags);
  g_test_add_func ("/stream-logic/query-synchronize", test_query_synchronize);
  g_test_add_func ("/stream-logic/idle-bursts", test_idle_bursts);
  g_test_add_func ("/stream-logic/idle-after-last-unref", test_idle_after_last_unref);
  g_test_add_func ("/stream-logic/flush-marker-beside-stream", test_flush_marker_beside_stream);
  g_test_add_func ("/stream-logic/resources-in-main-loop", test_resources_in_main_loop);
  g_test_add_func ("/stream-logic/resources-without-main-loop", test_resources_without_main_loop);
  g_test_add_func ("/stream-logic/completed-once-per-record", test_completed_once_per_record);
  g_test_add_func ("/stream-logic/elapsed-time", test_elapsed_time);
  g_test_add_func ("/stream-logic/synchronize-async", test_synchronize_async);
  g_test_add_func ("/stream-logic/elapsed-time-async", test_elapsed_time_async);
  g_test_add_func ("/stream-logic/event-source", test_event_source);
  g_test_add_func ("/stream-logic/failure-ends-wait", test_failure_ends_wait);
  g_test_add_func ("/stream-logic/threads", test_threads);
  g_test_add_func ("/stream-logic/bare-objects", test_bare_objects);
  /* Last: it destroys every stream and event made before. */
  g_test_add_func ("/stream-logic/context-reset", test_context_reset);

  return g_test_run ();
}
