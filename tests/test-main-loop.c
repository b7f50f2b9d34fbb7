/* test-main-loop.c: GPU completion in the GLib main loop: CugiEvent::completed,
 * CugiStream::idle, _async/_finish pairs, cancellation and lifetimes */
#include "config.h"

#include "cugi-private.h"
#include "gpu-work.h"

static CugiKernel *spinner;

/* Counts the markers cugi enqueues, by wrapping the loader's entry point. */
static int n_markers;
static __typeof__ (cugi_cuda.cuLaunchHostFunc) real_launch_host_func;

static CUresult CUDAAPI
counting_launch_host_func (CUstream hStream,
                           CUhostFn fn,
                           void    *userData)
{
  g_atomic_int_inc (&n_markers);
  return real_launch_host_func (hStream, fn, userData);
}

/* What a handler or callback checks about where it runs. */
typedef struct
{
  GThread      *thread;
  GMainContext *main_context;
  guint         count;
} Delivery;

static void
delivery_init (Delivery *delivery)
{
  delivery->thread = g_thread_self ();
  delivery->main_context = g_main_context_ref_thread_default ();
  delivery->count = 0;
}

static void
delivery_clear (Delivery *delivery)
{
  g_main_context_unref (delivery->main_context);
}

static void
delivery_check (Delivery *delivery)
{
  g_assert_true (g_thread_self () == delivery->thread);
  g_assert_true (g_main_context_is_owner (delivery->main_context));
}

static void
on_completed (CugiEvent *event,
              Delivery  *delivery)
{
  /* (The event may stand at a later recording by now: no query here.) */
  delivery_check (delivery);
  delivery->count++;
}

/* One ::completed for each recording made with a handler connected; none for
 * those made before, even when their work completes after connecting. */
static void
test_completed_once_per_record (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GMainContext) main_context = g_main_context_new ();
  g_autoptr(CugiStream) stream = NULL;
  g_autoptr(CugiEvent) event = NULL;
  Delivery delivery;
  gulong handler;

  g_main_context_push_thread_default (main_context);
  delivery_init (&delivery);
  stream = cugi_stream_new (NULL, CUGI_STREAM_FLAGS_NON_BLOCKING, 0, &error);
  g_assert_no_error (error);
  event = cugi_event_new (NULL, CUGI_EVENT_FLAGS_DISABLE_TIMING, &error);
  g_assert_no_error (error);

  spin (spinner, stream, 200);
  cugi_event_record (event, stream, &error);
  g_assert_no_error (error);
  cugi_event_record (event, stream, &error);
  g_assert_no_error (error);

  handler = g_signal_connect (event, "completed", G_CALLBACK (on_completed), &delivery);
  for (guint i = 0; i < 5; i++)
    {
      spin (spinner, stream, 10);
      cugi_event_record (event, stream, &error);
      g_assert_no_error (error);
    }

  iterate_until (&delivery.count, 5, 10000);
  cugi_stream_synchronize (stream, &error);
  g_assert_no_error (error);
  iterate_for (200);
  g_assert_cmpuint (delivery.count, ==, 5);

  /* Without a handler, recordings emit nothing and cost no marker. */
  g_signal_handler_disconnect (event, handler);
  {
    int markers_before = g_atomic_int_get (&n_markers);

    cugi_event_record (event, stream, &error);
    g_assert_no_error (error);
    g_assert_cmpint (g_atomic_int_get (&n_markers), ==, markers_before);
  }
  cugi_stream_synchronize (stream, &error);
  g_assert_no_error (error);
  iterate_for (100);
  g_assert_cmpuint (delivery.count, ==, 5);

  delivery_clear (&delivery);
  g_main_context_pop_thread_default (main_context);
}

/* (No cugi_stream_query() here: the marker's host function, which counts as
 * work of the stream, may still be returning when its completion runs.) */
static void
on_idle (CugiStream *stream,
         Delivery   *delivery)
{
  delivery_check (delivery);
  delivery->count++;
}

/* 100 launches in one iteration are one burst: one marker, one ::idle; two
 * bursts with a wait between them give two. */
static void
test_idle_once_per_burst (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GMainContext) main_context = g_main_context_new ();
  g_autoptr(CugiStream) stream = NULL;
  Delivery delivery;
  int markers_before;

  g_main_context_push_thread_default (main_context);
  delivery_init (&delivery);
  stream = cugi_stream_new (NULL, CUGI_STREAM_FLAGS_NON_BLOCKING, 0, &error);
  g_assert_no_error (error);
  g_signal_connect (stream, "idle", G_CALLBACK (on_idle), &delivery);

  markers_before = g_atomic_int_get (&n_markers);
  for (guint i = 0; i < 100; i++)
    spin (spinner, stream, 0.05);
  /* The marker goes in when the iteration is over, not at each launch. */
  g_assert_cmpint (g_atomic_int_get (&n_markers), ==, markers_before);

  iterate_until (&delivery.count, 1, 10000);
  iterate_for (200);
  g_assert_cmpuint (delivery.count, ==, 1);
  g_assert_cmpint (g_atomic_int_get (&n_markers), ==, markers_before + 1);

  for (guint i = 0; i < 10; i++)
    spin (spinner, stream, 0.05);
  iterate_until (&delivery.count, 2, 10000);
  iterate_for (200);
  g_assert_cmpuint (delivery.count, ==, 2);
  g_assert_cmpint (g_atomic_int_get (&n_markers), ==, markers_before + 2);

  delivery_clear (&delivery);
  g_main_context_pop_thread_default (main_context);
}

/* A burst followed by newer work before it completed emits nothing of its
 * own: ::idle comes once, when everything is done. */
static void
test_idle_waits_for_newer_work (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GMainContext) main_context = g_main_context_new ();
  g_autoptr(CugiStream) stream = NULL;
  Delivery delivery;
  int markers_before;

  g_main_context_push_thread_default (main_context);
  delivery_init (&delivery);
  stream = cugi_stream_new (NULL, CUGI_STREAM_FLAGS_NON_BLOCKING, 0, &error);
  g_assert_no_error (error);
  g_signal_connect (stream, "idle", G_CALLBACK (on_idle), &delivery);

  markers_before = g_atomic_int_get (&n_markers);
  spin (spinner, stream, 200);
  /* One iteration: the first burst's marker goes in. */
  g_main_context_iteration (main_context, FALSE);
  g_assert_cmpint (g_atomic_int_get (&n_markers), ==, markers_before + 1);
  spin (spinner, stream, 50);

  iterate_until (&delivery.count, 1, 10000);
  iterate_for (200);
  g_assert_cmpuint (delivery.count, ==, 1);
  g_assert_cmpint (g_atomic_int_get (&n_markers), ==, markers_before + 2);

  delivery_clear (&delivery);
  g_main_context_pop_thread_default (main_context);
}

/* With no handler and nothing to keep alive, tracking work schedules
 * nothing and enqueues no marker; connecting a handler makes it count. */
static void
test_idle_costs_nothing_unwatched (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GMainContext) main_context = g_main_context_new ();
  g_autoptr(CugiStream) stream = NULL;
  Delivery delivery;
  int markers_before;

  g_main_context_push_thread_default (main_context);
  delivery_init (&delivery);
  stream = cugi_stream_new (NULL, CUGI_STREAM_FLAGS_NON_BLOCKING, 0, &error);
  g_assert_no_error (error);

  markers_before = g_atomic_int_get (&n_markers);
  for (guint i = 0; i < 100; i++)
    spin (spinner, stream, 0.05);
  for (guint i = 0; i < 100; i++)
    cugi_stream_track_work (stream, NULL);
  /* No flush was scheduled. */
  g_assert_false (g_main_context_pending (main_context));
  cugi_stream_synchronize (stream, &error);
  g_assert_no_error (error);
  iterate_for (50);
  g_assert_cmpint (g_atomic_int_get (&n_markers), ==, markers_before);

  g_signal_connect (stream, "idle", G_CALLBACK (on_idle), &delivery);
  for (guint i = 0; i < 100; i++)
    cugi_stream_track_work (stream, NULL);
  g_assert_true (g_main_context_pending (main_context));
  iterate_until (&delivery.count, 1, 10000);
  g_assert_cmpint (g_atomic_int_get (&n_markers), ==, markers_before + 1);

  delivery_clear (&delivery);
  g_main_context_pop_thread_default (main_context);
}

typedef struct
{
  Delivery    delivery;
  CugiStream *stream;
  CugiEvent  *event;
  CugiBuffer *buffer;
  gsize       size;
} AsyncCheck;

static void
on_stream_synchronized (GObject      *source,
                        GAsyncResult *result,
                        gpointer      data)
{
  AsyncCheck *check = data;
  g_autoptr(GError) error = NULL;

  delivery_check (&check->delivery);
  g_assert_true (cugi_stream_synchronize_finish (CUGI_STREAM (source), result, &error));
  g_assert_no_error (error);
  /* The work before the marker is done. */
  g_assert_true (cugi_event_query (check->event, &error));
  g_assert_no_error (error);
  check->delivery.count++;
}

static void
on_event_synchronized (GObject      *source,
                       GAsyncResult *result,
                       gpointer      data)
{
  AsyncCheck *check = data;
  g_autoptr(GError) error = NULL;

  delivery_check (&check->delivery);
  g_assert_true (cugi_event_synchronize_finish (CUGI_EVENT (source), result, &error));
  g_assert_no_error (error);
  g_assert_true (cugi_event_query (check->event, &error));
  g_assert_no_error (error);
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

  delivery_check (&check->delivery);
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
  g_autoptr(GMainContext) main_context = g_main_context_new ();

  g_main_context_push_thread_default (main_context);
  delivery_init (&check->delivery);

  spin (spinner, check->stream, 100);
  cugi_buffer_memset_d8 (check->buffer, 0, 0x33, check->size, check->stream, &error);
  g_assert_no_error (error);
  cugi_event_record (check->event, check->stream, &error);
  g_assert_no_error (error);
  cugi_stream_synchronize_async (check->stream, NULL, on_stream_synchronized, check);
  cugi_event_synchronize_async (check->event, NULL, on_event_synchronized, check);
  cugi_buffer_download_async (check->buffer, 0, check->size, check->stream, NULL, on_downloaded, check);

  iterate_until (&check->delivery.count, 3, 10000);

  delivery_clear (&check->delivery);
  g_main_context_pop_thread_default (main_context);
  return NULL;
}

/* _finish callbacks run in the thread-default context of the caller, in its
 * thread, even for a stream and an event made in another thread. */
static void
test_finish_in_caller_context (void)
{
  g_autoptr(GError) error = NULL;
  AsyncCheck check = { 0 };
  GThread *thread;

  check.size = 1 << 20;
  check.stream = cugi_stream_new (NULL, CUGI_STREAM_FLAGS_NON_BLOCKING, 0, &error);
  g_assert_no_error (error);
  check.event = cugi_event_new (NULL, CUGI_EVENT_FLAGS_DISABLE_TIMING, &error);
  g_assert_no_error (error);
  check.buffer = cugi_buffer_new (NULL, check.size, &error);
  g_assert_no_error (error);

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
test_cancel (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GMainContext) main_context = g_main_context_new ();
  g_autoptr(CugiStream) stream = NULL;
  CancelCheck check = { 0 };

  g_main_context_push_thread_default (main_context);
  stream = cugi_stream_new (NULL, CUGI_STREAM_FLAGS_NON_BLOCKING, 0, &error);
  g_assert_no_error (error);

  check.cancellable = g_cancellable_new ();
  spin (spinner, stream, 1000);
  cugi_stream_synchronize_async (stream, check.cancellable, on_cancelled_synchronize, &check);
  {
    GSource *timeout = g_timeout_source_new (50);

    g_source_set_callback (timeout, cancel_now, &check, NULL);
    g_source_attach (timeout, main_context);
    g_source_unref (timeout);
  }
  iterate_until (&check.count, 1, 10000);

  g_assert_error (check.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_test_message ("cancelled wait returned after %" G_GINT64_FORMAT " µs",
                  check.returned_at - check.cancelled_at);
  g_assert_cmpint (check.returned_at - check.cancelled_at, <, 200000);
  /* The spin still runs. */
  g_assert_false (cugi_stream_query (stream, &error));
  g_assert_no_error (error);

  g_assert_true (cugi_stream_synchronize (stream, &error));
  g_assert_no_error (error);
  /* The marker's completion finds the task returned and leaves it be. */
  iterate_for (100);
  g_assert_cmpuint (check.count, ==, 1);
  g_clear_error (&check.error);

  /* Cancelled before the call: an error at once, no marker needed. */
  cugi_stream_synchronize_async (stream, check.cancellable, on_cancelled_synchronize, &check);
  iterate_until (&check.count, 2, 10000);
  g_assert_error (check.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&check.error);

  g_object_unref (check.cancellable);
  g_main_context_pop_thread_default (main_context);
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
  g_autoptr(CugiEvent) event = cugi_event_new (NULL, CUGI_EVENT_FLAGS_DISABLE_TIMING, &error);
  g_autoptr(CugiBuffer) target = cugi_buffer_new (NULL, size, &error);
  g_autoptr(GBytes) result = NULL;
  g_autofree guint8 *expected = g_malloc (size);
  CugiStream *stream;
  CugiBuffer *source;
  GBytes *bytes;
  guint n_done = 0;

  g_assert_no_error (error);
  for (gsize i = 0; i < size; i++)
    expected[i] = (guint8) (i * 7 + i / 4096);

  stream = cugi_stream_new (NULL, CUGI_STREAM_FLAGS_NON_BLOCKING, 0, &error);
  g_assert_no_error (error);
  source = cugi_buffer_new (NULL, size, &error);
  g_assert_no_error (error);
  bytes = g_bytes_new (expected, size);

  /* Everything waits behind a spin, and is enqueued before it ends. */
  spin (spinner, stream, 300);
  cugi_buffer_upload_bytes_async (source, 0, bytes, stream, NULL, count_async, &n_done);
  g_bytes_unref (bytes);
  cugi_buffer_copy (target, 0, source, 0, size, stream, &error);
  g_assert_no_error (error);
  cugi_event_record (event, stream, &error);
  g_assert_no_error (error);

  g_object_add_weak_pointer (G_OBJECT (stream), (gpointer *) &stream);
  g_object_add_weak_pointer (G_OBJECT (source), (gpointer *) &source);
  g_object_unref (stream);
  g_object_unref (source);
  /* Still alive: the work needs them. */
  g_assert_nonnull (stream);
  g_assert_nonnull (source);

  cugi_event_synchronize_async (event, NULL, count_async, &n_done);
  iterate_until (&n_done, 2, 10000);

  result = cugi_buffer_download (target, 0, size, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (g_bytes_get_data (result, NULL), size, expected, size);

  /* And gone once the work's completions ran. */
  iterate_until_finalized ((gpointer *) &stream, 10000);
  iterate_until_finalized ((gpointer *) &source, 10000);
}

/* A stream dropped with work in flight still emits ::idle, then goes. */
static void
test_idle_after_last_unref (void)
{
  g_autoptr(GError) error = NULL;
  CugiStream *stream;
  Delivery delivery;

  delivery_init (&delivery);
  stream = cugi_stream_new (NULL, CUGI_STREAM_FLAGS_NON_BLOCKING, 0, &error);
  g_assert_no_error (error);
  g_signal_connect (stream, "idle", G_CALLBACK (on_idle), &delivery);
  spin (spinner, stream, 100);
  g_object_add_weak_pointer (G_OBJECT (stream), (gpointer *) &stream);
  g_object_unref (stream);
  g_assert_nonnull (stream);

  iterate_until (&delivery.count, 1, 10000);
  iterate_until_finalized ((gpointer *) &stream, 10000);
  delivery_clear (&delivery);
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

  if (!g_test_subprocess ())
    {
      g_test_trap_subprocess (NULL, 120 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_INHERIT_STDERR);
      g_test_trap_assert_passed ();
      return;
    }

  fault = cugi_kernel_new_from_source (NULL, fault_source, "fault", NULL, &error);
  g_assert_no_error (error);
  stream = cugi_stream_new (NULL, CUGI_STREAM_FLAGS_NON_BLOCKING, 0, &error);
  g_assert_no_error (error);
  config = cugi_launch_config_new (1, 1);
  cugi_launch_config_set_stream (config, stream);
  args = cugi_kernel_args_new ();
  cugi_kernel_args_add_pointer (args, 0);

  spin (spinner, stream, 50);
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

int
main (int argc, char **argv)
{
  int result;

  cugi_test_init (&argc, &argv);
  cugi_test_require_gpu ();
  spinner = spin_kernel_new ();
  real_launch_host_func = cugi_cuda.cuLaunchHostFunc;
  cugi_cuda.cuLaunchHostFunc = counting_launch_host_func;

  g_test_add_func ("/main-loop/completed-once-per-record", test_completed_once_per_record);
  g_test_add_func ("/main-loop/idle-once-per-burst", test_idle_once_per_burst);
  g_test_add_func ("/main-loop/idle-waits-for-newer-work", test_idle_waits_for_newer_work);
  g_test_add_func ("/main-loop/idle-costs-nothing-unwatched", test_idle_costs_nothing_unwatched);
  g_test_add_func ("/main-loop/finish-in-caller-context", test_finish_in_caller_context);
  g_test_add_func ("/main-loop/cancel", test_cancel);
  g_test_add_func ("/main-loop/nothing-freed-early", test_nothing_freed_early);
  g_test_add_func ("/main-loop/idle-after-last-unref", test_idle_after_last_unref);
  g_test_add_func ("/main-loop/fault-ends-wait", test_fault_ends_wait);

  result = g_test_run ();
  g_clear_object (&spinner);
  return result;
}
