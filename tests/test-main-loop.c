/* test-main-loop.c: GPU completion in the GLib main loop: CugiEvent::completed,
 * CugiStream::idle, _async/_finish pairs, cancellation and lifetimes */
#include "config.h"

#include "cugi-stream-private.h"
#include "gpu-work.h"

/* Deliveries of a signal or callback, each checked to arrive in the
 * caller's thread and main context. */
typedef struct
{
  CugiTestCaller caller;
  guint          count;
} Delivery;

/* A ::completed or ::idle handler. No query here: the event may stand at a
 * later recording by now, and the marker's host function, which counts as
 * work of the stream, may still be returning when its completion runs. */
static void
on_delivered (gpointer  instance,
              Delivery *delivery)
{
  cugi_test_caller_check (&delivery->caller);
  delivery->count++;
}

/* Waits for the @n-th delivery, then a while longer: no more come. */
static void
assert_deliveries (Delivery *delivery,
                   guint     n)
{
  iterate_until (&delivery->count, n, 10000);
  iterate_for (200);
  g_assert_cmpuint (delivery->count, ==, n);
}

/* A non-blocking stream made with a main context of the test's own pushed
 * as the thread default, which is where its deliveries go. */
typedef struct
{
  Delivery      delivery;
  GMainContext *main_context;  /* the delivery's */
  CugiStream   *stream;
  int           markers_before;
} Fixture;

static void
fixture_set_up (Fixture      *fixture,
                gconstpointer data)
{
  cugi_test_caller_push (&fixture->delivery.caller);
  fixture->delivery.count = 0;
  fixture->main_context = fixture->delivery.caller.main_context;
  fixture->stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  fixture->markers_before = cugi_test_get_n_markers ();
}

static void
fixture_tear_down (Fixture      *fixture,
                   gconstpointer data)
{
  cugi_test_caller_pop (&fixture->delivery.caller);
  g_clear_object (&fixture->stream);
}

/* Markers enqueued since the fixture was set up. */
static int
markers_since_set_up (Fixture *fixture)
{
  return cugi_test_get_n_markers () - fixture->markers_before;
}

static void
watch_idle (Fixture *fixture)
{
  g_signal_connect (fixture->stream, "idle", G_CALLBACK (on_delivered), &fixture->delivery);
}

/* @n launches of 50 µs in one iteration: one burst. */
static void
spin_burst (CugiStream *stream,
            guint       n)
{
  for (guint i = 0; i < n; i++)
    spin (spinner (), stream, 0.05);
}

/* One ::completed for each recording made with a handler connected; none for
 * those made before, even when their work completes after connecting. */
static void
test_completed_once_per_record (Fixture      *fixture,
                                gconstpointer data)
{
  g_autoptr(CugiEvent) event = cugi_test_event_new (CUGI_EVENT_FLAGS_DISABLE_TIMING);
  gulong handler;
  int markers_before;

  spin (spinner (), fixture->stream, 200);
  cugi_test_record (event, fixture->stream);
  cugi_test_record (event, fixture->stream);

  handler = g_signal_connect (event, "completed", G_CALLBACK (on_delivered), &fixture->delivery);
  for (guint i = 0; i < 5; i++)
    {
      spin (spinner (), fixture->stream, 10);
      cugi_test_record (event, fixture->stream);
    }

  iterate_until (&fixture->delivery.count, 5, 10000);
  cugi_test_synchronize (fixture->stream);
  iterate_for (200);
  g_assert_cmpuint (fixture->delivery.count, ==, 5);

  /* Without a handler, recordings emit nothing and cost no marker. */
  g_signal_handler_disconnect (event, handler);
  markers_before = cugi_test_get_n_markers ();
  cugi_test_record (event, fixture->stream);
  g_assert_cmpint (cugi_test_get_n_markers (), ==, markers_before);
  cugi_test_synchronize (fixture->stream);
  iterate_for (100);
  g_assert_cmpuint (fixture->delivery.count, ==, 5);
}

/* 100 launches in one iteration are one burst: one marker, one ::idle; two
 * bursts with a wait between them give two. */
static void
test_idle_once_per_burst (Fixture      *fixture,
                          gconstpointer data)
{
  watch_idle (fixture);
  spin_burst (fixture->stream, 100);
  /* The marker goes in when the iteration is over, not at each launch. */
  g_assert_cmpint (markers_since_set_up (fixture), ==, 0);
  assert_deliveries (&fixture->delivery, 1);
  g_assert_cmpint (markers_since_set_up (fixture), ==, 1);

  spin_burst (fixture->stream, 10);
  assert_deliveries (&fixture->delivery, 2);
  g_assert_cmpint (markers_since_set_up (fixture), ==, 2);
}

/* A burst followed by newer work before it completed emits nothing of its
 * own: ::idle comes once, when everything is done. */
static void
test_idle_waits_for_newer_work (Fixture      *fixture,
                                gconstpointer data)
{
  watch_idle (fixture);
  spin (spinner (), fixture->stream, 200);
  /* One iteration: the first burst's marker goes in. */
  g_main_context_iteration (fixture->main_context, FALSE);
  g_assert_cmpint (markers_since_set_up (fixture), ==, 1);
  spin (spinner (), fixture->stream, 50);

  assert_deliveries (&fixture->delivery, 1);
  g_assert_cmpint (markers_since_set_up (fixture), ==, 2);
}

/* With no handler and nothing to keep alive, tracking work enqueues no
 * marker (the burst's flush finds nobody listening); connecting a handler
 * makes it count. */
static void
test_idle_costs_nothing_unwatched (Fixture      *fixture,
                                   gconstpointer data)
{
  spin_burst (fixture->stream, 100);
  for (guint i = 0; i < 100; i++)
    cugi_stream_track_work (fixture->stream, NULL);
  while (g_main_context_iteration (fixture->main_context, FALSE))
    ;
  g_assert_cmpint (markers_since_set_up (fixture), ==, 0);
  cugi_test_synchronize (fixture->stream);
  iterate_for (50);
  g_assert_cmpint (markers_since_set_up (fixture), ==, 0);

  watch_idle (fixture);
  for (guint i = 0; i < 100; i++)
    cugi_stream_track_work (fixture->stream, NULL);
  g_assert_true (g_main_context_pending (fixture->main_context));
  iterate_until (&fixture->delivery.count, 1, 10000);
  g_assert_cmpint (markers_since_set_up (fixture), ==, 1);
}

typedef struct
{
  Delivery    delivery;
  CugiStream *stream;
  CugiEvent  *event;
  CugiBuffer *buffer;
  gsize       size;
} AsyncCheck;

/* For cugi_stream_synchronize_async() and cugi_event_synchronize_async(). */
static void
on_synchronized (GObject      *source,
                 GAsyncResult *result,
                 gpointer      data)
{
  AsyncCheck *check = data;
  g_autoptr(GError) error = NULL;

  cugi_test_caller_check (&check->delivery.caller);
  if (CUGI_IS_STREAM (source))
    g_assert_true (cugi_stream_synchronize_finish (CUGI_STREAM (source), result, &error));
  else
    g_assert_true (cugi_event_synchronize_finish (CUGI_EVENT (source), result, &error));
  g_assert_no_error (error);
  /* The work before the marker is done. */
  cugi_test_assert_event_query (check->event, TRUE);
  check->delivery.count++;
}

static void
on_downloaded (GObject      *source,
               GAsyncResult *result,
               gpointer      data)
{
  AsyncCheck *check = data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;
  const guint8 *downloaded;

  cugi_test_caller_check (&check->delivery.caller);
  bytes = cugi_buffer_download_finish (CUGI_BUFFER (source), result, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_bytes_get_size (bytes), ==, check->size);
  downloaded = g_bytes_get_data (bytes, NULL);
  for (gsize i = 0; i < check->size; i++)
    g_assert_cmpuint (downloaded[i], ==, 0x33);
  check->delivery.count++;
}

static gpointer
run_async_calls (gpointer data)
{
  AsyncCheck *check = data;
  g_autoptr(GError) error = NULL;

  cugi_test_caller_push (&check->delivery.caller);

  spin (spinner (), check->stream, 100);
  cugi_buffer_memset_d8 (check->buffer, 0, 0x33, check->size, check->stream, &error);
  g_assert_no_error (error);
  cugi_test_record (check->event, check->stream);
  cugi_stream_synchronize_async (check->stream, NULL, on_synchronized, check);
  cugi_event_synchronize_async (check->event, NULL, on_synchronized, check);
  cugi_buffer_download_async (check->buffer, 0, check->size, check->stream, NULL, on_downloaded, check);

  iterate_until (&check->delivery.count, 3, 10000);

  cugi_test_caller_pop (&check->delivery.caller);
  return NULL;
}

/* _finish callbacks run in the thread-default context of the caller, in its
 * thread, even for a stream and an event made in another thread. */
static void
test_finish_in_caller_context (void)
{
  AsyncCheck check = { 0 };
  GThread *thread;

  check.size = 1 << 20;
  check.stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  check.event = cugi_test_event_new (CUGI_EVENT_FLAGS_DISABLE_TIMING);
  check.buffer = cugi_test_buffer_new (check.size);

  thread = g_thread_new ("async-caller", run_async_calls, &check);
  g_thread_join (thread);
  g_assert_cmpuint (check.delivery.count, ==, 3);

  g_object_unref (check.stream);
  g_object_unref (check.event);
  g_object_unref (check.buffer);
}

typedef struct
{
  GCancellable *cancellable;
  gint64        cancelled_at;
  gint64        returned_at;
  GError       *error;
  guint         count;
} CancelCheck;

static gboolean
cancel_now (gpointer data)
{
  CancelCheck *check = data;

  check->cancelled_at = g_get_monotonic_time ();
  g_cancellable_cancel (check->cancellable);
  return G_SOURCE_REMOVE;
}

static void
on_cancelled_synchronize (GObject      *source,
                          GAsyncResult *result,
                          gpointer      data)
{
  CancelCheck *check = data;

  check->returned_at = g_get_monotonic_time ();
  g_assert_false (cugi_stream_synchronize_finish (CUGI_STREAM (source), result, &check->error));
  check->count++;
}

/* Cancelling ends the wait at once; the GPU work goes on and completes. */
static void
test_cancel (Fixture      *fixture,
             gconstpointer data)
{
  CancelCheck check = { 0 };
  GSource *timeout;

  check.cancellable = g_cancellable_new ();
  spin (spinner (), fixture->stream, 1000);
  cugi_stream_synchronize_async (fixture->stream, check.cancellable, on_cancelled_synchronize, &check);
  timeout = g_timeout_source_new (50);
  g_source_set_callback (timeout, cancel_now, &check, NULL);
  g_source_attach (timeout, fixture->main_context);
  g_source_unref (timeout);
  iterate_until (&check.count, 1, 10000);

  g_assert_error (check.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_test_message ("cancelled wait returned after %" G_GINT64_FORMAT " µs",
                  check.returned_at - check.cancelled_at);
  g_assert_cmpint (check.returned_at - check.cancelled_at, <, 200000);
  /* The spin still runs. */
  cugi_test_assert_query (fixture->stream, FALSE);

  cugi_test_synchronize (fixture->stream);
  /* The marker's completion finds the task returned and leaves it be. */
  iterate_for (100);
  g_assert_cmpuint (check.count, ==, 1);
  g_clear_error (&check.error);

  /* Cancelled before the call: an error at once, no marker needed. */
  cugi_stream_synchronize_async (fixture->stream, check.cancellable, on_cancelled_synchronize, &check);
  iterate_until (&check.count, 2, 10000);
  g_assert_error (check.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&check.error);

  g_object_unref (check.cancellable);
}

static void
count_async (GObject      *source,
             GAsyncResult *result,
             gpointer      data)
{
  g_autoptr(GError) error = NULL;

  if (CUGI_IS_EVENT (source))
    g_assert_true (cugi_event_synchronize_finish (CUGI_EVENT (source), result, &error));
  else
    g_assert_true (cugi_buffer_upload_bytes_finish (CUGI_BUFFER (source), result, &error));
  g_assert_no_error (error);
  (*(guint *) data)++;
}

/* Dropping every reference to a stream, a buffer and a GBytes right after
 * enqueueing work that uses them changes nothing: the work still sees them,
 * and they go once it is done. */
static void
test_nothing_freed_early (void)
{
  const gsize size = 16 << 20;
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiEvent) event = cugi_test_event_new (CUGI_EVENT_FLAGS_DISABLE_TIMING);
  g_autoptr(CugiBuffer) target = cugi_test_buffer_new (size);
  g_autoptr(GBytes) result = NULL;
  g_autofree guint8 *expected = g_malloc (size);
  CugiStream *stream;
  CugiBuffer *source;
  GBytes *bytes;
  guint n_done = 0;

  for (gsize i = 0; i < size; i++)
    expected[i] = (guint8) (i * 7 + i / 4096);

  stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  source = cugi_test_buffer_new (size);
  bytes = g_bytes_new (expected, size);

  /* Everything waits behind a spin, and is enqueued before it ends. */
  spin (spinner (), stream, 300);
  cugi_buffer_upload_bytes_async (source, 0, bytes, stream, NULL, count_async, &n_done);
  g_bytes_unref (bytes);
  cugi_buffer_copy (target, 0, source, 0, size, stream, &error);
  g_assert_no_error (error);
  cugi_test_record (event, stream);

  g_object_add_weak_pointer (G_OBJECT (stream), (gpointer *) &stream);
  g_object_add_weak_pointer (G_OBJECT (source), (gpointer *) &source);
  g_object_unref (stream);
  g_object_unref (source);
  /* Still alive: the work needs them. */
  g_assert_nonnull (stream);
  g_assert_nonnull (source);

  cugi_event_synchronize_async (event, NULL, count_async, &n_done);
  iterate_until (&n_done, 2, 10000);

  result = cugi_test_download_all (target);
  g_assert_cmpmem (g_bytes_get_data (result, NULL), size, expected, size);

  /* And gone once the work's completions ran. */
  iterate_until_finalized ((gpointer *) &stream, 10000);
  iterate_until_finalized ((gpointer *) &source, 10000);
}

/* A stream dropped with work in flight still emits ::idle, then goes. */
static void
test_idle_after_last_unref (void)
{
  Delivery delivery = { 0 };
  CugiStream *stream;

  cugi_test_caller_init (&delivery.caller);
  stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  g_signal_connect (stream, "idle", G_CALLBACK (on_delivered), &delivery);
  spin (spinner (), stream, 100);
  g_object_add_weak_pointer (G_OBJECT (stream), (gpointer *) &stream);
  g_object_unref (stream);
  g_assert_nonnull (stream);

  iterate_until (&delivery.count, 1, 10000);
  iterate_until_finalized ((gpointer *) &stream, 10000);
  cugi_test_caller_clear (&delivery.caller);
}

static void
on_failed_synchronize (GObject      *source,
                       GAsyncResult *result,
                       gpointer      data)
{
  GError **error = data;

  g_assert_false (cugi_stream_synchronize_finish (CUGI_STREAM (source), result, error));
  g_assert_nonnull (*error);
}

/* CUDA drops the markers of a context whose kernel faulted: a wait for such
 * work still ends, with the fault as its error. In a child process, as the
 * fault ruins its context for good. */
static void
test_fault_ends_wait (void)
{
  static const char fault_source[] =
    "extern \"C\" __global__ void fault(int *p) { *p = 1; }\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiKernel) fault = NULL;
  g_autoptr(CugiStream) stream = NULL;
  g_autoptr(CugiLaunchConfig) config = NULL;
  g_autoptr(CugiKernelArgs) args = NULL;
  GError *wait_error = NULL;
  gint64 start;

  if (!cugi_test_in_subprocess (120))
    return;

  fault = cugi_kernel_new_from_source (NULL, fault_source, "fault", NULL, &error);
  g_assert_no_error (error);
  stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  config = cugi_launch_config_new (1, 1);
  cugi_launch_config_set_stream (config, stream);
  args = cugi_kernel_args_new ();
  cugi_kernel_args_add_pointer (args, 0);

  spin (spinner (), stream, 50);
  g_assert_true (cugi_kernel_launch (fault, config, args, &error));
  g_assert_no_error (error);
  start = g_get_monotonic_time ();
  cugi_stream_synchronize_async (stream, NULL, on_failed_synchronize, &wait_error);
  while (wait_error == NULL)
    g_main_context_iteration (NULL, TRUE);

  g_test_message ("the wait failed after %" G_GINT64_FORMAT " ms: %s",
                  (g_get_monotonic_time () - start) / 1000, wait_error->message);
  g_assert_error (wait_error, CUGI_ERROR, CUGI_ERROR_LAUNCH_FAILED);
  g_assert_cmpint (g_get_monotonic_time () - start, <, 10 * G_USEC_PER_SEC);
  g_clear_error (&wait_error);
}

static void
add_test (const char *path,
          void      (*test) (Fixture *, gconstpointer))
{
  g_test_add (path, Fixture, NULL, fixture_set_up, test, fixture_tear_down);
}

int
main (int argc, char **argv)
{
  cugi_test_init (&argc, &argv);
  require_gpu_with_spinner ();
  cugi_test_count_markers ();

  add_test ("/main-loop/completed-once-per-record", test_completed_once_per_record);
  add_test ("/main-loop/idle-once-per-burst", test_idle_once_per_burst);
  add_test ("/main-loop/idle-waits-for-newer-work", test_idle_waits_for_newer_work);
  add_test ("/main-loop/idle-costs-nothing-unwatched", test_idle_costs_nothing_unwatched);
  g_test_add_func ("/main-loop/finish-in-caller-context", test_finish_in_caller_context);
  add_test ("/main-loop/cancel", test_cancel);
  g_test_add_func ("/main-loop/nothing-freed-early", test_nothing_freed_early);
  g_test_add_func ("/main-loop/idle-after-last-unref", test_idle_after_last_unref);
  g_test_add_func ("/main-loop/fault-ends-wait", test_fault_ends_wait);

  return g_test_run ();
}
