/* test-stream.c: CugiStream on a GPU */
#include "config.h"

#include <string.h>

#include "cugi-stream-private.h"
#include "gpu-work.h"

static void
test_flags_and_properties (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiContext) context = cugi_test_default_context ();
  g_autoptr(CugiStream) blocking = cugi_test_stream_new (CUGI_STREAM_FLAGS_NONE);
  g_autoptr(CugiStream) non_blocking = cugi_stream_new (context, CUGI_STREAM_FLAGS_NON_BLOCKING, 0, &error);
  g_autoptr(CugiContext) property_context = NULL;
  CugiStreamFlags flags = 0;
  guint64 handle = 0;
  gint priority = -1;

  g_assert_no_error (error);
  g_assert_cmpint (cugi_stream_get_flags (blocking), ==, CUGI_STREAM_FLAGS_NONE);
  g_assert_cmpint (cugi_stream_get_flags (non_blocking), ==, CUGI_STREAM_FLAGS_NON_BLOCKING);
  /* NULL means the default context. */
  g_assert_true (cugi_stream_get_context (blocking) == context);

  g_object_get (non_blocking, "flags", &flags, "handle", &handle, "priority", &priority,
                "context", &property_context, NULL);
  g_assert_cmpint (flags, ==, CUGI_STREAM_FLAGS_NON_BLOCKING);
  g_assert_cmpuint (handle, !=, 0);
  g_assert_cmpuint (handle, ==, (guint64) (guintptr) cugi_stream_get_handle (non_blocking));
  g_assert_cmpint (priority, ==, 0);
  g_assert_true (property_context == context);

  /* The driver agrees on the flags. */
  {
    unsigned int driver_flags = 0;

    g_assert_cmpint (cugi_cuda.cuStreamGetFlags (cugi_stream_get_handle (non_blocking), &driver_flags),
                     ==, CUDA_SUCCESS);
    g_assert_cmpuint (driver_flags & CU_STREAM_NON_BLOCKING, ==, CU_STREAM_NON_BLOCKING);
  }

  g_assert_null (cugi_stream_new (NULL, 1 << 5, 0, &error));
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT);
}

static void
test_priority_range (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiContext) context = cugi_test_default_context ();
  g_autoptr(CugiStream) most_urgent = NULL;
  g_autoptr(CugiStream) least_urgent = NULL;
  g_autofree char *least_text = NULL;
  g_autofree char *greatest_text = NULL;
  gint least;
  gint greatest = 0;

  least = cugi_context_get_stream_priority_range (context, &greatest, &error);
  g_assert_no_error (error);
  g_assert_cmpint (greatest, <=, least);

  most_urgent = cugi_stream_new (context, CUGI_STREAM_FLAGS_NONE, greatest, &error);
  g_assert_no_error (error);
  g_assert_cmpint (cugi_stream_get_priority (most_urgent), ==, greatest);
  least_urgent = cugi_stream_new (context, CUGI_STREAM_FLAGS_NONE, least, &error);
  g_assert_no_error (error);
  g_assert_cmpint (cugi_stream_get_priority (least_urgent), ==, least);

  least_text = g_strdup_printf ("%d", least);
  greatest_text = g_strdup_printf ("%d", greatest);
  for (gint priority = greatest - 1; priority <= least + 1; priority += least - greatest + 2)
    {
      g_assert_null (cugi_stream_new (context, CUGI_STREAM_FLAGS_NONE, priority, &error));
      g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT);
      /* The message names the valid range. */
      g_assert_nonnull (strstr (error->message, least_text));
      g_assert_nonnull (strstr (error->message, greatest_text));
      g_clear_error (&error);
    }
}

static void
test_query_synchronize (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);

  cugi_test_assert_query (stream, TRUE);

  spin (spinner (), stream, 300);
  /* 300 ms of work cannot be done yet: FALSE, and no error. */
  cugi_test_assert_query (stream, FALSE);

  cugi_test_synchronize (stream);
  cugi_test_assert_query (stream, TRUE);
}

/* Work on stream B that waits for an event of stream A sees A's results,
 * although A is slow and B could have run first. */
static void
test_wait_event_orders_streams (void)
{
  const gsize size = 1 << 20;
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiStream) a = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  g_autoptr(CugiStream) b = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  g_autoptr(CugiEvent) event = cugi_test_event_new (CUGI_EVENT_FLAGS_DISABLE_TIMING);
  g_autoptr(CugiBuffer) source = cugi_test_buffer_new (size);
  g_autoptr(CugiBuffer) target = cugi_test_buffer_new (size);
  g_autoptr(GBytes) result = NULL;
  const guint8 *data;

  cugi_buffer_memset_d8 (source, 0, 0, size, a, &error);
  g_assert_no_error (error);
  cugi_test_synchronize (a);

  /* A: a long spin, then the data B needs. */
  spin (spinner (), a, 300);
  cugi_buffer_memset_d8 (source, 0, 0x5a, size, a, &error);
  g_assert_no_error (error);
  cugi_test_record (event, a);

  /* B: wait for A, then copy. */
  cugi_stream_wait_event (b, event, &error);
  g_assert_no_error (error);
  cugi_buffer_copy (target, 0, source, 0, size, b, &error);
  g_assert_no_error (error);
  /* B is held back behind A's spin. */
  cugi_test_assert_query (b, FALSE);

  cugi_test_synchronize (b);
  result = cugi_buffer_download (target, 0, size, &error);
  g_assert_no_error (error);
  data = g_bytes_get_data (result, NULL);
  for (gsize i = 0; i < size; i += 4099)
    g_assert_cmpuint (data[i], ==, 0x5a);
  g_assert_cmpuint (data[size - 1], ==, 0x5a);
}

/* A stream made by other code: wrapped, usable, never destroyed by cugi. */
static void
test_for_handle (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiContext) context = cugi_test_default_context ();
  g_autoptr(CugiStream) owner = NULL;
  g_autoptr(CugiStream) legacy = NULL;
  CugiStream *wrapper;
  gint greatest = 0;
  guint64 handle = 0;

  cugi_context_get_stream_priority_range (context, &greatest, &error);
  g_assert_no_error (error);
  owner = cugi_stream_new (context, CUGI_STREAM_FLAGS_NON_BLOCKING, greatest, &error);
  g_assert_no_error (error);
  g_object_get (owner, "handle", &handle, NULL);

  wrapper = cugi_stream_new_for_handle (context, handle, &error);
  g_assert_no_error (error);
  g_assert_cmpint (cugi_stream_get_flags (wrapper), ==, CUGI_STREAM_FLAGS_NON_BLOCKING);
  g_assert_cmpint (cugi_stream_get_priority (wrapper), ==, greatest);
  spin (spinner (), wrapper, 50);
  /* The work went on the owner's stream. */
  cugi_test_assert_query (owner, FALSE);
  cugi_test_synchronize (wrapper);
  g_object_unref (wrapper);

  /* Dropping the wrapper left the stream alone. */
  spin (spinner (), owner, 1);
  cugi_test_synchronize (owner);

  /* 0 is the legacy default stream. */
  legacy = cugi_stream_new_for_handle (context, 0, &error);
  g_assert_no_error (error);
  g_assert_null (cugi_stream_get_handle (legacy));
  cugi_test_synchronize (legacy);
}

/* NULL stands for the legacy default stream of a context. */
static void
test_null_stream (void)
{
  g_autoptr(CugiContext) context = cugi_test_default_context ();
  CugiStream *null_stream;
  guint64 handle = 1;

  null_stream = cugi_stream_resolve (NULL, context);
  g_assert_nonnull (null_stream);
  g_assert_true (cugi_stream_resolve (NULL, context) == null_stream);
  g_assert_null (cugi_stream_get_handle (null_stream));
  g_assert_true (cugi_stream_get_context (null_stream) == context);
  g_object_get (null_stream, "handle", &handle, NULL);
  g_assert_cmpuint (handle, ==, 0);

  spin (spinner (), NULL, 50);
  cugi_test_assert_query (null_stream, FALSE);
  cugi_test_synchronize (null_stream);
}

/* An object a binding made without the constructor is an error, not a crash
 * and not the legacy stream in disguise. */
static void
test_bare_object (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiStream) bare = g_object_new (CUGI_TYPE_STREAM, NULL);
  g_autoptr(CugiEvent) event = cugi_test_event_new (CUGI_EVENT_FLAGS_NONE);

  g_assert_false (cugi_stream_query (bare, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_STATE, NULL);
  g_assert_false (cugi_stream_synchronize (bare, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_STATE, NULL);
  g_assert_false (cugi_event_record (event, bare, &error));
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE);
}

int
main (int argc, char **argv)
{
  cugi_test_init (&argc, &argv);
  require_gpu_with_spinner ();

  g_test_add_func ("/stream/flags-and-properties", test_flags_and_properties);
  g_test_add_func ("/stream/priority-range", test_priority_range);
  g_test_add_func ("/stream/query-synchronize", test_query_synchronize);
  g_test_add_func ("/stream/wait-event-orders-streams", test_wait_event_orders_streams);
  g_test_add_func ("/stream/for-handle", test_for_handle);
  g_test_add_func ("/stream/null-stream", test_null_stream);
  g_test_add_func ("/stream/bare-object", test_bare_object);

  return g_test_run ();
}
