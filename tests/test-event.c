/* test-event.c: CugiEvent on a GPU */
#include "config.h"

#include <string.h>

#include "cugi-private.h"
#include "gpu-work.h"

#define IPC_HANDLE_VARIABLE "CUGI_TEST_EVENT_IPC_HANDLE"

static CugiKernel *spinner;

static void
test_flags (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiContext) context = cugi_context_get_default (&error);
  g_autoptr(CugiEvent) event = NULL;
  g_autoptr(CugiContext) property_context = NULL;
  CugiEventFlags flags = 0;
  guint64 handle = 0;

  g_assert_no_error (error);
  event = cugi_event_new (NULL, CUGI_EVENT_FLAGS_BLOCKING_SYNC | CUGI_EVENT_FLAGS_DISABLE_TIMING, &error);
  g_assert_no_error (error);
  g_object_get (event, "flags", &flags, "handle", &handle, "context", &property_context, NULL);
  g_assert_cmpint (flags, ==, CUGI_EVENT_FLAGS_BLOCKING_SYNC | CUGI_EVENT_FLAGS_DISABLE_TIMING);
  g_assert_cmpint (cugi_event_get_flags (event), ==, flags);
  g_assert_cmpuint (handle, ==, (guint64) (guintptr) cugi_event_get_handle (event));
  g_assert_cmpuint (handle, !=, 0);
  g_assert_true (property_context == context);
  g_assert_true (cugi_event_get_context (event) == context);

  g_assert_null (cugi_event_new (NULL, 1 << 6, &error));
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  /* CUDA requires interprocess events to record no timing. */
  g_assert_null (cugi_event_new (NULL, CUGI_EVENT_FLAGS_INTERPROCESS, &error));
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT);
}

static void
test_query_synchronize (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiStream) stream = cugi_stream_new (NULL, CUGI_STREAM_FLAGS_NON_BLOCKING, 0, &error);
  g_autoptr(CugiEvent) event = cugi_event_new (NULL, CUGI_EVENT_FLAGS_BLOCKING_SYNC, &error);

  g_assert_no_error (error);
  /* Never recorded: nothing to wait for. */
  g_assert_true (cugi_event_query (event, &error));
  g_assert_no_error (error);

  spin (spinner, stream, 300);
  g_assert_true (cugi_event_record (event, stream, &error));
  g_assert_no_error (error);
  g_assert_false (cugi_event_query (event, &error));
  g_assert_no_error (error);

  g_assert_true (cugi_event_synchronize (event, &error));
  g_assert_no_error (error);
  g_assert_true (cugi_event_query (event, &error));
  g_assert_no_error (error);
  /* The event stands after the spin, so the stream is done too. */
  g_assert_true (cugi_stream_query (stream, &error));
  g_assert_no_error (error);
}

static void
test_elapsed_time_errors (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiStream) stream = cugi_stream_new (NULL, CUGI_STREAM_FLAGS_NON_BLOCKING, 0, &error);
  g_autoptr(CugiEvent) start = cugi_event_new (NULL, CUGI_EVENT_FLAGS_NONE, &error);
  g_autoptr(CugiEvent) end = cugi_event_new (NULL, CUGI_EVENT_FLAGS_NONE, &error);
  g_autoptr(CugiEvent) untimed = cugi_event_new (NULL, CUGI_EVENT_FLAGS_DISABLE_TIMING, &error);

  g_assert_no_error (error);

  /* Neither recorded. */
  g_assert_cmpfloat (cugi_event_elapsed_time (start, end, &error), ==, 0);
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE);
  g_clear_error (&error);

  /* One recorded. */
  cugi_event_record (start, stream, &error);
  g_assert_no_error (error);
  cugi_event_elapsed_time (start, end, &error);
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE);
  g_clear_error (&error);

  /* Timing disabled. */
  cugi_event_record (untimed, stream, &error);
  g_assert_no_error (error);
  cugi_event_elapsed_time (start, untimed, &error);
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE);
  g_clear_error (&error);

  /* Not yet completed. */
  spin (spinner, stream, 300);
  cugi_event_record (end, stream, &error);
  g_assert_no_error (error);
  cugi_event_elapsed_time (start, end, &error);
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE);
  g_clear_error (&error);

  /* Once completed, the same pair gives a time. */
  cugi_event_synchronize (end, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (cugi_event_elapsed_time (start, end, &error), >, 0);
  g_assert_no_error (error);
}

/* Two recordings around a spin of about 50 ms time it. */
static void
test_elapsed_time_spin (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiStream) stream = cugi_stream_new (NULL, CUGI_STREAM_FLAGS_NON_BLOCKING, 0, &error);
  g_autoptr(CugiEvent) start = cugi_event_new (NULL, CUGI_EVENT_FLAGS_NONE, &error);
  g_autoptr(CugiEvent) end = cugi_event_new (NULL, CUGI_EVENT_FLAGS_NONE, &error);
  gdouble short_ms;
  gdouble long_ms;

  g_assert_no_error (error);

  cugi_event_record (start, stream, &error);
  g_assert_no_error (error);
  spin (spinner, stream, 5);
  cugi_event_record (end, stream, &error);
  g_assert_no_error (error);
  cugi_event_synchronize (end, &error);
  g_assert_no_error (error);
  short_ms = cugi_event_elapsed_time (start, end, &error);
  g_assert_no_error (error);

  cugi_event_record (start, stream, &error);
  g_assert_no_error (error);
  spin (spinner, stream, 50);
  cugi_event_record (end, stream, &error);
  g_assert_no_error (error);
  cugi_event_synchronize (end, &error);
  g_assert_no_error (error);
  long_ms = cugi_event_elapsed_time (start, end, &error);
  g_assert_no_error (error);

  g_test_message ("spins of 5 and 50 ms at the nominal clock took %.3f and %.3f ms", short_ms, long_ms);
  g_assert_cmpfloat (short_ms, >, 0);
  /* The clock may run faster or slower than nominal, not tenfold. */
  g_assert_cmpfloat (long_ms, >, 5);
  g_assert_cmpfloat (long_ms, <, 500);
  g_assert_cmpfloat (long_ms, >, short_ms * 4);
}

static void
test_different_contexts (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiDevice) device = cugi_device_get_default (&error);
  g_autoptr(CugiContext) other_context = NULL;
  g_autoptr(CugiStream) stream = cugi_stream_new (NULL, CUGI_STREAM_FLAGS_NONE, 0, &error);
  g_autoptr(CugiStream) other_stream = NULL;
  g_autoptr(CugiEvent) event = cugi_event_new (NULL, CUGI_EVENT_FLAGS_NONE, &error);
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
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  cugi_event_record (event, stream, &error);
  g_assert_no_error (error);
  cugi_event_record (other_event, other_stream, &error);
  g_assert_no_error (error);
  cugi_event_synchronize (event, &error);
  g_assert_no_error (error);
  cugi_event_synchronize (other_event, &error);
  g_assert_no_error (error);
  cugi_event_elapsed_time (event, other_event, &error);
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE);
  g_clear_error (&error);

  /* A stream may wait for an event of another context. */
  g_assert_true (cugi_stream_wait_event (stream, other_event, &error));
  g_assert_no_error (error);
  g_assert_true (cugi_stream_synchronize (stream, &error));
  g_assert_no_error (error);
}

static gboolean
count_dispatch (gpointer data)
{
  CugiEvent *event = g_object_get_data (data, "event");
  g_autoptr(GError) error = NULL;

  /* The recorded work has completed when the source dispatches. */
  g_assert_true (cugi_event_query (event, &error));
  g_assert_no_error (error);
  (*(guint *) g_object_get_data (data, "count"))++;
  /* Asks for more: the source is one-shot all the same. */
  return G_SOURCE_CONTINUE;
}

static void
test_create_source (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GMainContext) main_context = g_main_context_new ();
  g_autoptr(CugiStream) stream = NULL;
  g_autoptr(CugiEvent) event = NULL;
  g_autoptr(GObject) holder = g_object_new (G_TYPE_OBJECT, NULL);
  GSource *source;
  guint count = 0;

  g_main_context_push_thread_default (main_context);
  stream = cugi_stream_new (NULL, CUGI_STREAM_FLAGS_NON_BLOCKING, 0, &error);
  g_assert_no_error (error);
  event = cugi_event_new (NULL, CUGI_EVENT_FLAGS_DISABLE_TIMING, &error);
  g_assert_no_error (error);
  g_object_set_data (holder, "event", event);
  g_object_set_data (holder, "count", &count);

  spin (spinner, stream, 200);
  cugi_event_record (event, stream, &error);
  g_assert_no_error (error);
  source = cugi_event_create_source (event);
  g_source_set_callback (source, count_dispatch, holder, NULL);
  g_source_attach (source, main_context);

  /* Not before the work completed (count_dispatch checks), and once. */
  iterate_until (&count, 1, 10000);
  iterate_for (100);
  g_assert_cmpuint (count, ==, 1);
  g_assert_true (g_source_is_destroyed (source));
  g_source_unref (source);

  g_main_context_pop_thread_default (main_context);
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
  g_autoptr(CugiStream) stream = cugi_stream_new (NULL, CUGI_STREAM_FLAGS_NONE, 0, &error);

  g_assert_no_error (error);
  g_assert_cmpint (cugi_event_get_flags (event), ==,
                   CUGI_EVENT_FLAGS_INTERPROCESS | CUGI_EVENT_FLAGS_DISABLE_TIMING);
  g_assert_true (cugi_stream_wait_event (stream, event, &error));
  g_assert_no_error (error);
  g_assert_true (cugi_event_synchronize (event, &error));
  g_assert_no_error (error);
  g_assert_true (cugi_event_query (event, &error));
  g_assert_no_error (error);
  g_assert_true (cugi_stream_synchronize (stream, &error));
  g_assert_no_error (error);
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
  local = cugi_event_new (NULL, CUGI_EVENT_FLAGS_DISABLE_TIMING, &error);
  g_assert_no_error (error);
  g_assert_null (cugi_event_get_ipc_handle (local, &error));
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  shared = cugi_event_new (NULL, CUGI_EVENT_FLAGS_INTERPROCESS | CUGI_EVENT_FLAGS_DISABLE_TIMING, &error);
  g_assert_no_error (error);
  stream = cugi_stream_new (NULL, CUGI_STREAM_FLAGS_NON_BLOCKING, 0, &error);
  g_assert_no_error (error);
  spin (spinner, stream, 500);
  cugi_event_record (shared, stream, &error);
  g_assert_no_error (error);
  ipc_handle = cugi_event_get_ipc_handle (shared, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_bytes_get_size (ipc_handle), ==, sizeof (CUipcEventHandle));

  /* A handle of the wrong size. */
  truncated = g_bytes_new_from_bytes (ipc_handle, 0, 10);
  g_assert_null (cugi_event_new_from_ipc_handle (NULL, truncated, &error));
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  /* Another process opens it and waits for it. */
  hex = hex_encode (ipc_handle);
  g_setenv (IPC_HANDLE_VARIABLE, hex, TRUE);
  g_test_trap_subprocess (NULL, 120 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
  g_unsetenv (IPC_HANDLE_VARIABLE);

  g_assert_true (cugi_event_query (shared, &error));
  g_assert_no_error (error);
}

int
main (int argc, char **argv)
{
  int result;

  cugi_test_init (&argc, &argv);
  cugi_test_require_gpu ();
  spinner = spin_kernel_new ();

  g_test_add_func ("/event/flags", test_flags);
  g_test_add_func ("/event/query-synchronize", test_query_synchronize);
  g_test_add_func ("/event/elapsed-time-errors", test_elapsed_time_errors);
  g_test_add_func ("/event/elapsed-time-spin", test_elapsed_time_spin);
  g_test_add_func ("/event/different-contexts", test_different_contexts);
  g_test_add_func ("/event/create-source", test_create_source);
  g_test_add_func ("/event/ipc", test_ipc);

  result = g_test_run ();
  g_clear_object (&spinner);
  return result;
}
