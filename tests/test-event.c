/* test-event.c: CugiEvent on a GPU */
#include "config.h"

#include <string.h>

#include "cugi-stream-private.h"
#include "gpu-work.h"

#define IPC_HANDLE_VARIABLE "CUGI_TEST_EVENT_IPC_HANDLE"

static void
test_flags (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiContext) context = cugi_test_default_context ();
  g_autoptr(CugiEvent) event = cugi_test_event_new (CUGI_EVENT_FLAGS_BLOCKING_SYNC |
                                                    CUGI_EVENT_FLAGS_DISABLE_TIMING);
  g_autoptr(CugiContext) property_context = NULL;
  CugiEventFlags flags = 0;
  guint64 handle = 0;

  g_object_get (event, "flags", &flags, "handle", &handle, "context", &property_context, NULL);
  g_assert_cmpint (flags, ==, CUGI_EVENT_FLAGS_BLOCKING_SYNC | CUGI_EVENT_FLAGS_DISABLE_TIMING);
  g_assert_cmpint (cugi_event_get_flags (event), ==, flags);
  g_assert_cmpuint (handle, ==, (guint64) (guintptr) cugi_event_get_handle (event));
  g_assert_cmpuint (handle, !=, 0);
  g_assert_true (property_context == context);
  g_assert_true (cugi_event_get_context (event) == context);

  g_assert_null (cugi_event_new (NULL, 1 << 6, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, NULL);
  /* CUDA requires interprocess events to record no timing. */
  g_assert_null (cugi_event_new (NULL, CUGI_EVENT_FLAGS_INTERPROCESS, &error));
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT);
}

static void
test_query_synchronize (void)
{
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  g_autoptr(CugiEvent) event = cugi_test_event_new (CUGI_EVENT_FLAGS_BLOCKING_SYNC);

  /* Never recorded: nothing to wait for. */
  cugi_test_assert_event_query (event, TRUE);

  spin (spinner (), stream, 300);
  cugi_test_record (event, stream);
  cugi_test_assert_event_query (event, FALSE);

  cugi_test_event_synchronize (event);
  cugi_test_assert_event_query (event, TRUE);
  /* The event stands after the spin, so the stream is done too. */
  cugi_test_assert_query (stream, TRUE);
}

static void
spin_for (CugiStream *stream,
          guint       ms)
{
  spin (spinner (), stream, ms);
}

/* The refusals of cugi_event_elapsed_time() (see
 * cugi_test_check_elapsed_time()), around a spin of 300 ms. */
static void
test_elapsed_time_errors (void)
{
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);

  g_assert_cmpfloat (cugi_test_check_elapsed_time (stream, spin_for, 300), >, 0);
}

/* What recordings of @start and @end on @stream around a spin of @ms
 * milliseconds at the nominal clock measure. */
static gdouble
time_spin (CugiStream *stream,
           CugiEvent  *start,
           CugiEvent  *end,
           double      ms)
{
  g_autoptr(GError) error = NULL;
  gdouble elapsed;

  cugi_test_record (start, stream);
  spin (spinner (), stream, ms);
  cugi_test_record (end, stream);
  cugi_test_event_synchronize (end);
  elapsed = cugi_event_elapsed_time (start, end, &error);
  g_assert_no_error (error);
  return elapsed;
}

/* Two recordings around a spin of about 50 ms time it. */
static void
test_elapsed_time_spin (void)
{
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  g_autoptr(CugiEvent) start = cugi_test_event_new (CUGI_EVENT_FLAGS_NONE);
  g_autoptr(CugiEvent) end = cugi_test_event_new (CUGI_EVENT_FLAGS_NONE);
  gdouble short_ms = time_spin (stream, start, end, 5);
  gdouble long_ms = time_spin (stream, start, end, 50);

  g_test_message ("spins of 5 and 50 ms at the nominal clock took %.3f and %.3f ms", short_ms, long_ms);
  g_assert_cmpfloat (short_ms, >, 0);
  /* The clock may run faster or slower than nominal, not tenfold. */
  g_assert_cmpfloat (long_ms, >, 5);
  g_assert_cmpfloat (long_ms, <, 500);
  g_assert_cmpfloat (long_ms, >, short_ms * 4);
}

/* What cugi_event_elapsed_time_async() gave, for the test to check. */
typedef struct
{
  guint   calls;
  gdouble milliseconds;
  GError *error;
} Timing;

static void
on_timed (GObject      *source,
          GAsyncResult *result,
          gpointer      data)
{
  Timing *timing = data;

  timing->calls++;
  g_clear_error (&timing->error);
  timing->milliseconds = cugi_event_elapsed_time_finish (CUGI_EVENT (source), result, &timing->error);
}

/* Times @start to @end through the main loop: the @calls-th callback. */
static void
time_async (CugiEvent    *start,
            CugiEvent    *end,
            GCancellable *cancellable,
            Timing       *timing,
            guint         calls)
{
  cugi_event_elapsed_time_async (start, end, cancellable, on_timed, timing);
  iterate_until (&timing->calls, calls, 10000);
}

static void
test_elapsed_time_async (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GCancellable) cancelled = g_cancellable_new ();
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  g_autoptr(CugiStream) other_stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  g_autoptr(CugiEvent) start = cugi_test_event_new (CUGI_EVENT_FLAGS_NONE);
  g_autoptr(CugiEvent) end = cugi_test_event_new (CUGI_EVENT_FLAGS_NONE);
  g_autoptr(CugiEvent) never_recorded = cugi_test_event_new (CUGI_EVENT_FLAGS_NONE);
  g_autoptr(CugiEvent) untimed = cugi_test_event_new (CUGI_EVENT_FLAGS_DISABLE_TIMING);
  Timing timing = { 0 };

  /* Called while the work is still running: the callback comes once it is
   * done, with what the blocking call then says. */
  cugi_test_record (start, stream);
  spin_for (stream, 20);
  cugi_test_record (end, stream);
  time_async (start, end, NULL, &timing, 1);
  g_assert_no_error (timing.error);
  cugi_test_assert_event_query (end, TRUE);
  g_assert_cmpfloat (timing.milliseconds, >, 0);
  g_assert_cmpfloat (timing.milliseconds, ==, cugi_event_elapsed_time (start, end, &error));
  g_assert_no_error (error);

  /* @start completes last, behind 100 ms of work on another stream: the
   * wait covers both recordings, so the time is there, not NOT_READY. */
  spin_for (other_stream, 100);
  cugi_test_record (start, other_stream);
  cugi_test_record (end, stream);
  time_async (start, end, NULL, &timing, 2);
  g_assert_no_error (timing.error);
  cugi_test_assert_event_query (start, TRUE);

  /* What the blocking call refuses, refused through the callback. */
  time_async (never_recorded, end, NULL, &timing, 3);
  cugi_test_assert_error (&timing.error, CUGI_ERROR_INVALID_STATE, "never recorded");
  cugi_test_record (untimed, stream);
  time_async (start, untimed, NULL, &timing, 4);
  cugi_test_assert_error (&timing.error, CUGI_ERROR_INVALID_STATE, "DISABLE_TIMING");
  g_cancellable_cancel (cancelled);
  time_async (start, end, cancelled, &timing, 5);
  g_assert_error (timing.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&timing.error);

  /* No callback comes twice. */
  cugi_test_synchronize (stream);
  iterate_for (50);
  g_assert_cmpuint (timing.calls, ==, 5);
}

static void
test_different_contexts (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiDevice) device = cugi_device_get_default (&error);
  g_autoptr(CugiContext) other_context = NULL;
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NONE);
  g_autoptr(CugiStream) other_stream = NULL;
  g_autoptr(CugiEvent) event = cugi_test_event_new (CUGI_EVENT_FLAGS_NONE);
  g_autoptr(CugiEvent) other_event = NULL;

  g_assert_no_error (error);
  other_context = cugi_context_new (device, CUGI_CONTEXT_FLAGS_NONE, &error);
  g_assert_no_error (error);
  other_event = cugi_event_new (other_context, CUGI_EVENT_FLAGS_NONE, &error);
  g_assert_no_error (error);
  other_stream = cugi_stream_new (other_context, CUGI_STREAM_FLAGS_NONE, 0, &error);
  g_assert_no_error (error);

  /* Recording on a stream of another context. */
  g_assert_false (cugi_event_record (other_event, stream, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_CONTEXT, NULL);

  cugi_test_record (event, stream);
  cugi_test_record (other_event, other_stream);
  cugi_test_event_synchronize (event);
  cugi_test_event_synchronize (other_event);
  g_assert_cmpfloat (cugi_event_elapsed_time (event, other_event, &error), ==, 0);
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_CONTEXT, NULL);

  /* A stream may wait for an event of another context. */
  g_assert_true (cugi_stream_wait_event (stream, other_event, &error));
  g_assert_no_error (error);
  cugi_test_synchronize (stream);
}

static gboolean
count_dispatch (gpointer data)
{
  CugiEvent *event = g_object_get_data (data, "event");

  /* The recorded work has completed when the source dispatches. */
  cugi_test_assert_event_query (event, TRUE);
  (*(guint *) g_object_get_data (data, "count"))++;
  /* Asks for more: the source is one-shot all the same. */
  return G_SOURCE_CONTINUE;
}

static void
test_create_source (void)
{
  GMainContext *main_context = cugi_test_push_main_context ();
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  g_autoptr(CugiEvent) event = cugi_test_event_new (CUGI_EVENT_FLAGS_DISABLE_TIMING);
  g_autoptr(GObject) holder = g_object_new (G_TYPE_OBJECT, NULL);
  GSource *source;
  guint count = 0;

  g_object_set_data (holder, "event", event);
  g_object_set_data (holder, "count", &count);

  spin (spinner (), stream, 200);
  cugi_test_record (event, stream);
  source = cugi_event_create_source (event);
  g_source_set_callback (source, count_dispatch, holder, NULL);
  g_source_attach (source, main_context);

  /* Not before the work completed (count_dispatch checks), and once. */
  iterate_until (&count, 1, 10000);
  iterate_for (100);
  g_assert_cmpuint (count, ==, 1);
  g_assert_true (g_source_is_destroyed (source));
  g_source_unref (source);

  cugi_test_pop_main_context (main_context);
}

static char *
hex_encode (GBytes *bytes)
{
  gsize size = 0;
  const guint8 *data = g_bytes_get_data (bytes, &size);
  GString *hex = g_string_sized_new (2 * size);

  for (gsize i = 0; i < size; i++)
    g_string_append_printf (hex, "%02x", data[i]);
  return g_string_free (hex, FALSE);
}

static GBytes *
hex_decode (const char *hex)
{
  gsize size = strlen (hex) / 2;
  guint8 *data = g_malloc (size);

  for (gsize i = 0; i < size; i++)
    data[i] = (g_ascii_xdigit_value (hex[2 * i]) << 4) | g_ascii_xdigit_value (hex[2 * i + 1]);
  return g_bytes_new_take (data, size);
}

/* In the child process: opens the parent's event and waits for it. */
static void
ipc_child (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) ipc_handle = hex_decode (g_getenv (IPC_HANDLE_VARIABLE));
  g_autoptr(CugiEvent) event = cugi_event_new_from_ipc_handle (NULL, ipc_handle, &error);
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NONE);

  g_assert_no_error (error);
  g_assert_cmpint (cugi_event_get_flags (event), ==,
                   CUGI_EVENT_FLAGS_INTERPROCESS | CUGI_EVENT_FLAGS_DISABLE_TIMING);
  g_assert_true (cugi_stream_wait_event (stream, event, &error));
  g_assert_no_error (error);
  cugi_test_event_synchronize (event);
  cugi_test_assert_event_query (event, TRUE);
  cugi_test_synchronize (stream);
}

static void
test_ipc (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiEvent) local = NULL;
  g_autoptr(CugiEvent) shared = NULL;
  g_autoptr(CugiStream) stream = NULL;
  g_autoptr(GBytes) ipc_handle = NULL;
  g_autoptr(GBytes) truncated = NULL;
  g_autofree char *hex = NULL;

  if (g_test_subprocess ())
    {
      ipc_child ();
      return;
    }

  /* Only interprocess events have a handle. */
  local = cugi_test_event_new (CUGI_EVENT_FLAGS_DISABLE_TIMING);
  g_assert_null (cugi_event_get_ipc_handle (local, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, NULL);

  shared = cugi_test_event_new (CUGI_EVENT_FLAGS_INTERPROCESS | CUGI_EVENT_FLAGS_DISABLE_TIMING);
  stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  spin (spinner (), stream, 500);
  cugi_test_record (shared, stream);
  ipc_handle = cugi_event_get_ipc_handle (shared, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_bytes_get_size (ipc_handle), ==, sizeof (CUipcEventHandle));

  /* A handle of the wrong size. */
  truncated = g_bytes_new_from_bytes (ipc_handle, 0, 10);
  g_assert_null (cugi_event_new_from_ipc_handle (NULL, truncated, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, NULL);

  /* Another process opens it and waits for it. */
  hex = hex_encode (ipc_handle);
  g_setenv (IPC_HANDLE_VARIABLE, hex, TRUE);
  cugi_test_trap_subprocess (120);
  g_unsetenv (IPC_HANDLE_VARIABLE);

  cugi_test_assert_event_query (shared, TRUE);
}

int
main (int argc, char **argv)
{
  cugi_test_init (&argc, &argv);
  require_gpu_with_spinner ();

  g_test_add_func ("/event/flags", test_flags);
  g_test_add_func ("/event/query-synchronize", test_query_synchronize);
  g_test_add_func ("/event/elapsed-time-errors", test_elapsed_time_errors);
  g_test_add_func ("/event/elapsed-time-spin", test_elapsed_time_spin);
  g_test_add_func ("/event/elapsed-time-async", test_elapsed_time_async);
  g_test_add_func ("/event/different-contexts", test_different_contexts);
  g_test_add_func ("/event/create-source", test_create_source);
  g_test_add_func ("/event/ipc", test_ipc);

  return g_test_run ();
}
