/* test-rendezvous-logic.c: unique ids served by a CugiRendezvous and
 * fetched over the loopback interface, without a GPU or NCCL: serving
 * n_ranks − 1 fetchers then stopping, fetches that start before the
 * rendezvous listens, timeouts, cancellation, servers that are not
 * rendezvous, fetchers that are not cugi's, and bad input. */
#include "config.h"

#include <string.h>

#include "cugi-test-utils.h"

#define ID_SIZE 128
#define HEADER_SIZE 12
/* Long enough never to pass in a test that expects an answer (under
 * valgrind too); short where a test expects the timeout. */
#define PATIENT_MS 60000
#define SHORT_MS 200

static GBytes *
fetch_and_wait (const char    *address,
                guint          timeout_ms,
                GCancellable  *cancellable,
                GError       **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  cugi_rendezvous_fetch_async (address, timeout_ms, cancellable, cugi_test_store_result, &result);
  cugi_test_wait_for_result (&result);
  return cugi_rendezvous_fetch_finish (result, error);
}

/* The fetcher returns once its acknowledgement is sent: the rendezvous
 * counts it when it has read it. */
static void
wait_until_served (CugiRendezvous *rendezvous,
                   guint           n_served)
{
  while (cugi_rendezvous_get_n_served (rendezvous) < n_served)
    g_main_context_iteration (NULL, TRUE);
}

/* Fetches @id from @address, and waits until @rendezvous counted it as its
 * @n_served-th. */
static void
assert_fetch_gets (const char     *address,
                   GBytes         *id,
                   CugiRendezvous *rendezvous,
                   guint           n_served)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) fetched = fetch_and_wait (address, PATIENT_MS, NULL, &error);

  g_assert_no_error (error);
  cugi_test_assert_bytes_equal (fetched, id);
  wait_until_served (rendezvous, n_served);
}

/* What is left in the main context (the services' cancelled accepts) ends. */
static void
drain (void)
{
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

static CugiRendezvous *
listening_rendezvous (GBytes     *id,
                      int         n_ranks,
                      const char *address)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiRendezvous) rendezvous = cugi_rendezvous_new (id, n_ranks, &error);

  g_assert_no_error (error);
  g_assert_true (cugi_rendezvous_listen (rendezvous, address, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (cugi_rendezvous_get_port (rendezvous), !=, 0);
  return g_steal_pointer (&rendezvous);
}

/* A loopback port that nothing listens on (a moment ago). */
static char *
free_address (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GSocketListener) listener = g_socket_listener_new ();
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) address = g_inet_socket_address_new (loopback, 0);
  g_autoptr(GSocketAddress) bound = NULL;

  g_assert_true (g_socket_listener_add_address (listener, address, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP,
                                                NULL, &bound, &error));
  g_assert_no_error (error);
  g_socket_listener_close (listener);
  return g_strdup_printf ("127.0.0.1:%u", g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound)));
}

static void
assert_fetch_times_out (const char *address)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) id = fetch_and_wait (address, SHORT_MS, NULL, &error);

  g_assert_null (id);
  cugi_test_assert_error (&error, CUGI_ERROR_TIMED_OUT, address);
}

/* ---- serving ------------------------------------------------------------ */

/* Three ranks: two fetchers at once get the id, then the rendezvous
 * stops, and a third fetch finds nothing listening. */
static void
test_serve (void)
{
  g_autoptr(GBytes) id = cugi_test_pattern_new (ID_SIZE, 1);
  g_autoptr(CugiRendezvous) rendezvous = listening_rendezvous (id, 3, "127.0.0.1:0");
  g_autofree char *expected = g_strdup_printf ("127.0.0.1:%u", cugi_rendezvous_get_port (rendezvous));
  const char *address = cugi_rendezvous_get_address (rendezvous);
  GAsyncResult *results[2] = { NULL, NULL };
  guint n_notified = 0;
  guint port = 0, n_served = 0;
  int n_ranks = 0;

  g_assert_cmpstr (address, ==, expected);
  g_object_get (rendezvous, "port", &port, "n-ranks", &n_ranks, "n-served", &n_served, NULL);
  g_assert_cmpuint (port, ==, cugi_rendezvous_get_port (rendezvous));
  g_assert_cmpint (n_ranks, ==, 3);
  g_assert_cmpuint (n_served, ==, 0);
  g_signal_connect (rendezvous, "notify::n-served", G_CALLBACK (cugi_test_count_notify), &n_notified);

  for (int i = 0; i < 2; i++)
    cugi_rendezvous_fetch_async (address, PATIENT_MS, NULL, cugi_test_store_result, &results[i]);
  for (int i = 0; i < 2; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GBytes) fetched = NULL;

      cugi_test_wait_for_result (&results[i]);
      fetched = cugi_rendezvous_fetch_finish (results[i], &error);
      g_assert_no_error (error);
      cugi_test_assert_bytes_equal (fetched, id);
      g_object_unref (results[i]);
    }
  wait_until_served (rendezvous, 2);
  g_assert_cmpuint (n_notified, ==, 2);

  /* Served all: the listener is closed, so a third fetch is refused until
   * its timeout. */
  assert_fetch_times_out (address);
  g_assert_cmpuint (cugi_rendezvous_get_n_served (rendezvous), ==, 2);
  g_assert_cmpuint (n_notified, ==, 2);
  g_clear_object (&rendezvous);
  drain ();
}

static gboolean
listen_later (gpointer data)
{
  void **args = data;
  CugiRendezvous *rendezvous = args[0];
  GAsyncResult **result = args[1];
  g_autoptr(GError) error = NULL;

  /* The fetch has been trying all along. */
  g_assert_null (*result);
  g_assert_true (cugi_rendezvous_listen (rendezvous, args[2], &error));
  g_assert_no_error (error);
  return G_SOURCE_REMOVE;
}

/* A fetch that starts before rank 0 listens tries until it does. */
static void
test_fetch_before_listen (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) id = cugi_test_pattern_new (ID_SIZE, 2);
  g_autoptr(CugiRendezvous) rendezvous = cugi_rendezvous_new (id, 2, &error);
  g_autofree char *address = free_address ();
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GBytes) fetched = NULL;
  void *args[] = { rendezvous, &result, address };

  g_assert_no_error (error);
  cugi_rendezvous_fetch_async (address, PATIENT_MS, NULL, cugi_test_store_result, &result);
  g_timeout_add (100, listen_later, args);
  cugi_test_wait_for_result (&result);
  fetched = cugi_rendezvous_fetch_finish (result, &error);
  g_assert_no_error (error);
  cugi_test_assert_bytes_equal (fetched, id);
  g_assert_cmpstr (cugi_rendezvous_get_address (rendezvous), ==, address);
  wait_until_served (rendezvous, 1);
  g_clear_object (&rendezvous);
  drain ();
}

/* Listening on every interface publishes the host's name; the loopback
 * interface is one of them. */
static void
test_all_interfaces (void)
{
  g_autoptr(GBytes) id = cugi_test_pattern_new (ID_SIZE, 3);
  g_autoptr(CugiRendezvous) rendezvous = listening_rendezvous (id, 2, NULL);
  guint port = cugi_rendezvous_get_port (rendezvous);
  g_autofree char *expected = g_strdup_printf ("%s:%u", g_get_host_name (), port);
  g_autofree char *loopback = g_strdup_printf ("127.0.0.1:%u", port);

  g_assert_cmpstr (cugi_rendezvous_get_address (rendezvous), ==, expected);
  assert_fetch_gets (loopback, id, rendezvous, 1);
  g_clear_object (&rendezvous);
  drain ();
}

/* A rendezvous of one rank has nobody to serve. */
static void
test_one_rank (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) id = cugi_test_pattern_new (ID_SIZE, 4);
  g_autoptr(CugiRendezvous) rendezvous = cugi_rendezvous_new (id, 1, &error);

  g_assert_no_error (error);
  g_assert_true (cugi_rendezvous_listen (rendezvous, NULL, &error));
  g_assert_no_error (error);
  g_assert_null (cugi_rendezvous_get_address (rendezvous));
  g_assert_cmpuint (cugi_rendezvous_get_port (rendezvous), ==, 0);
  g_assert_false (cugi_rendezvous_listen (rendezvous, NULL, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_STATE, NULL);
}

static gpointer
fetch_in_thread (gpointer data)
{
  g_autoptr(GError) error = NULL;
  GBytes *fetched = cugi_rendezvous_fetch (data, PATIENT_MS, NULL, &error);

  g_assert_no_error (error);
  return fetched;
}

/* The blocking fetch, from a thread, while this one serves. */
static void
test_blocking (void)
{
  g_autoptr(GBytes) id = cugi_test_pattern_new (ID_SIZE, 5);
  g_autoptr(CugiRendezvous) rendezvous = listening_rendezvous (id, 2, "127.0.0.1:0");
  GThread *thread = g_thread_new ("fetcher", fetch_in_thread, (gpointer) cugi_rendezvous_get_address (rendezvous));
  g_autoptr(GBytes) fetched = NULL;

  wait_until_served (rendezvous, 1);
  fetched = g_thread_join (thread);
  cugi_test_assert_bytes_equal (fetched, id);
  g_clear_object (&rendezvous);
  drain ();
}

/* ---- timeouts and cancellation ------------------------------------------ */

static void
test_timeout (void)
{
  g_autofree char *address = free_address ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) fetched = NULL;

  assert_fetch_times_out (address);
  fetched = cugi_rendezvous_fetch (address, SHORT_MS, NULL, &error);
  g_assert_null (fetched);
  cugi_test_assert_error (&error, CUGI_ERROR_TIMED_OUT, address);
}

static gboolean
cancel_later (gpointer cancellable)
{
  g_cancellable_cancel (cancellable);
  return G_SOURCE_REMOVE;
}

static gboolean
hold_connection (GSocketService    *service,
                 GSocketConnection *connection,
                 GObject           *source_object,
                 gpointer           data)
{
  void **args = data;

  g_ptr_array_add (args[0], g_object_ref (connection));
  /* Connected, and the fetch waits for an answer that does not come. */
  g_cancellable_cancel (args[1]);
  return TRUE;
}

static gpointer
cancel_in_thread (gpointer cancellable)
{
  g_usleep (50 * G_TIME_SPAN_MILLISECOND);
  g_cancellable_cancel (cancellable);
  return NULL;
}

static void
assert_cancelled (GBytes *fetched,
                  GError *error)
{
  g_assert_null (fetched);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

static void
test_cancel (void)
{
  g_autofree char *address = free_address ();
  g_autoptr(GSocketService) silent = g_socket_service_new ();
  g_autoptr(GPtrArray) held = g_ptr_array_new_with_free_func (g_object_unref);
  guint16 silent_port;

  /* Already cancelled. */
  {
    g_autoptr(GCancellable) cancellable = g_cancellable_new ();
    g_autoptr(GError) error = NULL;
    g_autoptr(GBytes) fetched = NULL;

    g_cancellable_cancel (cancellable);
    fetched = fetch_and_wait (address, PATIENT_MS, cancellable, &error);
    assert_cancelled (fetched, error);
  }
  /* While it waits to connect again, without a timeout. */
  {
    g_autoptr(GCancellable) cancellable = g_cancellable_new ();
    g_autoptr(GError) error = NULL;
    g_autoptr(GBytes) fetched = NULL;

    g_timeout_add (50, cancel_later, cancellable);
    fetched = fetch_and_wait (address, 0, cancellable, &error);
    assert_cancelled (fetched, error);
  }
  /* Connected, while it waits for an answer. */
  {
    g_autoptr(GCancellable) cancellable = g_cancellable_new ();
    g_autoptr(GError) error = NULL;
    g_autoptr(GBytes) fetched = NULL;
    g_autofree char *silent_address = NULL;
    void *args[] = { held, cancellable };

    silent_port = g_socket_listener_add_any_inet_port (G_SOCKET_LISTENER (silent), NULL, &error);
    g_assert_no_error (error);
    silent_address = g_strdup_printf ("127.0.0.1:%u", silent_port);
    g_signal_connect (silent, "incoming", G_CALLBACK (hold_connection), args);
    fetched = fetch_and_wait (silent_address, PATIENT_MS, cancellable, &error);
    assert_cancelled (fetched, error);
    g_assert_cmpuint (held->len, ==, 1);
    g_signal_handlers_disconnect_by_data (silent, args);
  }
  /* The blocking fetch, from another thread. */
  {
    g_autoptr(GCancellable) cancellable = g_cancellable_new ();
    g_autoptr(GError) error = NULL;
    g_autoptr(GBytes) fetched = NULL;
    GThread *thread = g_thread_new ("canceller", cancel_in_thread, cancellable);

    fetched = cugi_rendezvous_fetch (address, 0, cancellable, &error);
    g_thread_join (thread);
    assert_cancelled (fetched, error);
  }
  g_socket_service_stop (silent);
  g_socket_listener_close (G_SOCKET_LISTENER (silent));
  drain ();
}

/* Stopped before all were served: fetches fail from then on. */
static void
test_stop (void)
{
  g_autoptr(GBytes) id = cugi_test_pattern_new (ID_SIZE, 6);
  g_autoptr(CugiRendezvous) rendezvous = listening_rendezvous (id, 4, "127.0.0.1:0");
  g_autofree char *address = g_strdup (cugi_rendezvous_get_address (rendezvous));
  g_autoptr(GError) error = NULL;

  assert_fetch_gets (address, id, rendezvous, 1);
  cugi_rendezvous_stop (rendezvous);
  cugi_rendezvous_stop (rendezvous);
  assert_fetch_times_out (address);
  g_assert_cmpuint (cugi_rendezvous_get_n_served (rendezvous), ==, 1);
  g_assert_false (cugi_rendezvous_listen (rendezvous, "127.0.0.1:0", &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_STATE, NULL);
  g_clear_object (&rendezvous);
  drain ();
}

/* ---- servers that are not rendezvous, clients that are not fetchers ----- */

/* A server that reads the fetcher's request and answers @reply, then
 * closes the connection. */
typedef struct
{
  GSocketConnection *connection;
  GBytes            *reply;
  guint8             request[HEADER_SIZE];
} FakeAnswer;

static void
fake_replied (GObject      *stream,
              GAsyncResult *result,
              gpointer      data)
{
  FakeAnswer *answer = data;
  g_autoptr(GError) error = NULL;

  g_assert_true (g_output_stream_write_all_finish (G_OUTPUT_STREAM (stream), result, NULL, &error));
  g_assert_no_error (error);
  g_object_unref (answer->connection);
  g_bytes_unref (answer->reply);
  g_free (answer);
}

static void
fake_request_read (GObject      *stream,
                   GAsyncResult *result,
                   gpointer      data)
{
  FakeAnswer *answer = data;
  g_autoptr(GError) error = NULL;
  gsize n_read = 0;

  g_assert_true (g_input_stream_read_all_finish (G_INPUT_STREAM (stream), result, &n_read, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (n_read, ==, HEADER_SIZE);
  g_assert_cmpmem (answer->request, 8, "CUGI-RDV", 8);
  g_output_stream_write_all_async (g_io_stream_get_output_stream (G_IO_STREAM (answer->connection)),
                                   g_bytes_get_data (answer->reply, NULL), g_bytes_get_size (answer->reply),
                                   G_PRIORITY_DEFAULT, NULL, fake_replied, answer);
}

static gboolean
fake_incoming (GSocketService    *service,
               GSocketConnection *connection,
               GObject           *source_object,
               gpointer           reply)
{
  FakeAnswer *answer = g_new0 (FakeAnswer, 1);

  answer->connection = g_object_ref (connection);
  answer->reply = g_bytes_ref (reply);
  g_input_stream_read_all_async (g_io_stream_get_input_stream (G_IO_STREAM (connection)), answer->request,
                                 HEADER_SIZE, G_PRIORITY_DEFAULT, NULL, fake_request_read, answer);
  return TRUE;
}

/* Fetches from a server answering @reply (@size bytes): the error, with
 * @code and @fragment. */
static void
assert_fetch_fails (const void *reply,
                    gsize       size,
                    int         code,
                    const char *fragment)
{
  g_autoptr(GBytes) bytes = g_bytes_new (reply, size);
  g_autoptr(GSocketService) server = g_socket_service_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) fetched = NULL;
  g_autofree char *address = NULL;
  guint16 port;

  port = g_socket_listener_add_any_inet_port (G_SOCKET_LISTENER (server), NULL, &error);
  g_assert_no_error (error);
  address = g_strdup_printf ("127.0.0.1:%u", port);
  g_signal_connect_data (server, "incoming", G_CALLBACK (fake_incoming), g_bytes_ref (bytes),
                         (GClosureNotify) (void (*) (void)) g_bytes_unref, 0);
  fetched = fetch_and_wait (address, PATIENT_MS, NULL, &error);
  g_assert_null (fetched);
  cugi_test_assert_error (&error, code, fragment);
  g_socket_service_stop (server);
  g_socket_listener_close (G_SOCKET_LISTENER (server));
  drain ();
}

static void
test_not_a_rendezvous (void)
{
  static const char junk[] = "HTTP/1.0 400 Bad Request\r\n\r\n";
  guint8 answer[HEADER_SIZE + ID_SIZE] = { 'C', 'U', 'G', 'I', '-', 'R', 'D', 'V', 1, 2, 0, ID_SIZE };

  memset (answer + HEADER_SIZE, 0x5a, ID_SIZE);
  /* Another protocol. */
  assert_fetch_fails (junk, sizeof junk - 1, CUGI_ERROR_FAILED, "is not a cugi rendezvous");
  /* Nothing at all. */
  assert_fetch_fails ("", 0, CUGI_ERROR_FAILED, "closed the connection without an answer");
  /* Cut short: in the header, in the id. */
  assert_fetch_fails (answer, 7, CUGI_ERROR_FAILED, "cut short: 7 of 12 bytes");
  assert_fetch_fails (answer, HEADER_SIZE + 50, CUGI_ERROR_FAILED, "cut short: 50 of 128 bytes");
  /* An id of another size, and an answer of another kind. */
  answer[11] = 64;
  assert_fetch_fails (answer, HEADER_SIZE + 64, CUGI_ERROR_FAILED, "is not a unique id");
  answer[11] = ID_SIZE;
  answer[9] = 3;
  assert_fetch_fails (answer, sizeof answer, CUGI_ERROR_FAILED, "is not a unique id");
  /* A rendezvous of another version. */
  answer[9] = 2;
  answer[8] = 2;
  assert_fetch_fails (answer, sizeof answer, CUGI_ERROR_NOT_SUPPORTED, "version 2 of its protocol");
}

/* Sends @request to @address and reads the answer until the other side
 * closes the connection. */
static GBytes *
exchange (const char   *address,
          const guint8 *request,
          gsize         size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GSocketClient) client = g_socket_client_new ();
  g_autoptr(GSocketConnection) connection = NULL;
  g_autoptr(GByteArray) answer = g_byte_array_new ();
  GInputStream *input;

  g_socket_client_set_enable_proxy (client, FALSE);
  connection = g_socket_client_connect_to_host (client, address, 0, NULL, &error);
  g_assert_no_error (error);
  input = g_io_stream_get_input_stream (G_IO_STREAM (connection));
  /* A few bytes: the system takes them without waiting for the server. */
  g_assert_true (g_output_stream_write_all (g_io_stream_get_output_stream (G_IO_STREAM (connection)), request,
                                            size, NULL, NULL, &error));
  g_assert_no_error (error);
  for (;;)
    {
      g_autoptr(GAsyncResult) result = NULL;
      g_autoptr(GBytes) bytes = NULL;

      g_input_stream_read_bytes_async (input, 4096, G_PRIORITY_DEFAULT, NULL, cugi_test_store_result, &result);
      cugi_test_wait_for_result (&result);
      bytes = g_input_stream_read_bytes_finish (input, result, &error);
      g_assert_no_error (error);
      if (g_bytes_get_size (bytes) == 0)
        return g_byte_array_free_to_bytes (g_steal_pointer (&answer));
      g_byte_array_append (answer, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
    }
}

/* Connections that are not a fetcher's are dropped, not served: they do
 * not take a rank's place. A fetcher of another version is told this
 * rendezvous's version. */
static void
test_not_a_fetcher (void)
{
  static const char junk[] = "GET / HTTP/1.0\r\n";
  static const guint8 newer[HEADER_SIZE] = { 'C', 'U', 'G', 'I', '-', 'R', 'D', 'V', 7, 1, 0, 0 };
  static const guint8 own_version[HEADER_SIZE] = { 'C', 'U', 'G', 'I', '-', 'R', 'D', 'V', 1, 2, 0, 0 };
  g_autoptr(GBytes) id = cugi_test_pattern_new (ID_SIZE, 7);
  g_autoptr(CugiRendezvous) rendezvous = listening_rendezvous (id, 2, "127.0.0.1:0");
  const char *address = cugi_rendezvous_get_address (rendezvous);
  /* A request's size: the rendezvous reads all of it before it closes. */
  g_autoptr(GBytes) dropped = exchange (address, (const guint8 *) junk, HEADER_SIZE);
  g_autoptr(GBytes) told = exchange (address, newer, sizeof newer);

  g_assert_cmpuint (g_bytes_get_size (dropped), ==, 0);
  g_assert_cmpmem (g_bytes_get_data (told, NULL), g_bytes_get_size (told), own_version, sizeof own_version);
  g_assert_cmpuint (cugi_rendezvous_get_n_served (rendezvous), ==, 0);
  /* The one rank to serve is served still. */
  assert_fetch_gets (address, id, rendezvous, 1);
  g_clear_object (&rendezvous);
  drain ();
}

/* ---- bad input ---------------------------------------------------------- */

static void
assert_bad_listen_address (CugiRendezvous *rendezvous,
                           const char     *address)
{
  g_autoptr(GError) error = NULL;

  g_assert_false (cugi_rendezvous_listen (rendezvous, address, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, address);
  g_assert_null (cugi_rendezvous_get_address (rendezvous));
}

static void
assert_bad_fetch_address (const char *address)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) fetched = fetch_and_wait (address, PATIENT_MS, NULL, &error);

  g_assert_null (fetched);
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "is not the address of a rendezvous");
  fetched = cugi_rendezvous_fetch (address, PATIENT_MS, NULL, &error);
  g_assert_null (fetched);
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "is not the address of a rendezvous");
}

static void
test_bad_input (void)
{
  g_autoptr(GBytes) id = cugi_test_pattern_new (ID_SIZE, 8);
  g_autoptr(GBytes) short_id = cugi_test_pattern_new (ID_SIZE - 1, 8);
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiRendezvous) rendezvous = NULL;
  g_autoptr(CugiRendezvous) unchecked = NULL;
  g_autoptr(CugiRendezvous) taken = NULL;

  /* Ids and ranks, checked as the communicator checks them. */
  g_assert_null (cugi_rendezvous_new (short_id, 2, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "got 127");
  g_assert_null (cugi_rendezvous_new (id, 0, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "not 0");
  /* Made without an id, it does not listen. */
  unchecked = g_object_new (CUGI_TYPE_RENDEZVOUS, "n-ranks", 2, NULL);
  g_assert_false (cugi_rendezvous_listen (unchecked, NULL, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "got 0");

  /* Addresses to listen on. */
  rendezvous = cugi_rendezvous_new (id, 2, &error);
  g_assert_no_error (error);
  assert_bad_listen_address (rendezvous, "");
  assert_bad_listen_address (rendezvous, "127.0.0.1");
  assert_bad_listen_address (rendezvous, "127.0.0.1:65536");
  assert_bad_listen_address (rendezvous, "127.0.0.1:-1");
  assert_bad_listen_address (rendezvous, "localhost:0");
  assert_bad_listen_address (rendezvous, "::1");
  /* Listening twice; on a port that is taken. */
  g_assert_true (cugi_rendezvous_listen (rendezvous, "127.0.0.1:0", &error));
  g_assert_no_error (error);
  g_assert_false (cugi_rendezvous_listen (rendezvous, "127.0.0.1:0", &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_STATE, NULL);
  taken = listening_rendezvous (id, 2, "127.0.0.1:0");
  {
    g_autoptr(CugiRendezvous) second = cugi_rendezvous_new (id, 2, &error);

    g_assert_false (cugi_rendezvous_listen (second, cugi_rendezvous_get_address (taken), &error));
    cugi_test_assert_error (&error, CUGI_ERROR_FAILED, cugi_rendezvous_get_address (taken));
    g_assert_cmpuint (cugi_rendezvous_get_port (second), ==, 0);
  }

  /* Addresses to fetch from. */
  assert_bad_fetch_address ("");
  assert_bad_fetch_address ("127.0.0.1");
  assert_bad_fetch_address ("127.0.0.1:0");
  assert_bad_fetch_address ("127.0.0.1:70000");

  /* And all still works. */
  assert_fetch_gets (cugi_rendezvous_get_address (taken), id, taken, 1);
  g_clear_object (&rendezvous);
  g_clear_object (&taken);
  drain ();
}

int
main (int    argc,
      char **argv)
{
  cugi_test_init (&argc, &argv);

  g_test_add_func ("/rendezvous/serve", test_serve);
  g_test_add_func ("/rendezvous/fetch-before-listen", test_fetch_before_listen);
  g_test_add_func ("/rendezvous/all-interfaces", test_all_interfaces);
  g_test_add_func ("/rendezvous/one-rank", test_one_rank);
  g_test_add_func ("/rendezvous/blocking", test_blocking);
  g_test_add_func ("/rendezvous/timeout", test_timeout);
  g_test_add_func ("/rendezvous/cancel", test_cancel);
  g_test_add_func ("/rendezvous/stop", test_stop);
  g_test_add_func ("/rendezvous/not-a-rendezvous", test_not_a_rendezvous);
  g_test_add_func ("/rendezvous/not-a-fetcher", test_not_a_fetcher);
  g_test_add_func ("/rendezvous/bad-input", test_bad_input);
  return g_test_run ();
}
