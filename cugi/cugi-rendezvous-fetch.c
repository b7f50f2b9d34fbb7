/* cugi-rendezvous-fetch.c: fetching a communicator's unique id from the
 * CugiRendezvous of another rank (cugi-rendezvous.c serves it) */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "cugi-private.h"
#include "cugi-rendezvous-private.h"

/* How long a fetch waits between tries to connect: at first, then doubled
 * up to the most. */
#define FIRST_RETRY_MS 20
#define MOST_RETRY_MS 500

static const guint8 request_header[CUGI_RENDEZVOUS_HEADER_SIZE] =
  CUGI_RENDEZVOUS_HEADER (CUGI_RENDEZVOUS_REQUEST, 0);
static const guint8 received_header[CUGI_RENDEZVOUS_HEADER_SIZE] =
  CUGI_RENDEZVOUS_HEADER (CUGI_RENDEZVOUS_RECEIVED, 0);

/* The exchange once connected, in this order. */
typedef enum
{
  SENDING_REQUEST,
  READING_HEADER,
  READING_ID,
  SENDING_RECEIPT,
} Step;

/* A fetch, which goes through connecting (again until it connects), then
 * the steps of the exchange; one of them in flight at a time, under
 * @operation. */
typedef struct
{
  GSocketConnectable *address;
  char               *address_text;
  guint               timeout_ms;
  GSocketClient      *client;
  GCancellable       *operation;     /* cancelled at the deadline, or with the task */
  GSource            *deadline;      /* NULL without a timeout */
  GSource            *cancel_watch;  /* on the task's cancellable, where it has one */
  GSocketConnection  *connection;
  GError             *connect_error; /* why the last try to connect failed */
  guint               retry_ms;
  gboolean            timed_out;
  Step                step;
  gsize               expected;      /* the bytes the step reads */
  guint8              header[CUGI_RENDEZVOUS_HEADER_SIZE];
  guint8              id[CUGI_NCCL_UNIQUE_ID_BYTES];
} Fetch;

static void
fetch_unwatch (Fetch *fetch)
{
  if (fetch->deadline != NULL)
    g_source_destroy (fetch->deadline);
  g_clear_pointer (&fetch->deadline, g_source_unref);
  if (fetch->cancel_watch != NULL)
    g_source_destroy (fetch->cancel_watch);
  g_clear_pointer (&fetch->cancel_watch, g_source_unref);
}

static void
fetch_free (Fetch *fetch)
{
  fetch_unwatch (fetch);
  g_object_unref (fetch->address);
  g_free (fetch->address_text);
  g_object_unref (fetch->client);
  g_object_unref (fetch->operation);
  g_clear_object (&fetch->connection);
  g_clear_error (&fetch->connect_error);
  g_free (fetch);
}

/* Ends the task with @error (owned; NULL where the operation was
 * cancelled), or with why it was cancelled. */
static void
fetch_return_error (GTask  *task,
                    GError *error)
{
  Fetch *fetch = g_task_get_task_data (task);
  GError *reported = NULL;

  fetch_unwatch (fetch);
  if (g_cancellable_set_error_if_cancelled (g_task_get_cancellable (task), &reported))
    g_clear_error (&error);
  else if (fetch->timed_out)
    {
      if (fetch->connect_error != NULL)
        reported = g_error_new (CUGI_ERROR, CUGI_ERROR_TIMED_OUT,
                                /* Translators: the last %s is why connecting failed. */
                                _("No rendezvous answered at %s within %u ms (%s)"), fetch->address_text,
                                fetch->timeout_ms, fetch->connect_error->message);
      else
        reported = g_error_new (CUGI_ERROR, CUGI_ERROR_TIMED_OUT,
                                _("The rendezvous at %s did not answer within %u ms"), fetch->address_text,
                                fetch->timeout_ms);
      g_clear_error (&error);
    }
  else
    reported = error;
  g_assert (reported != NULL);
  g_task_return_error (task, reported);
}

/* Ends the task after an I/O error of the exchange. */
static void
fetch_return_io_error (GTask  *task,
                       GError *error)
{
  Fetch *fetch = g_task_get_task_data (task);
  GError *reported;

  if (g_cancellable_is_cancelled (fetch->operation))
    {
      fetch_return_error (task, error);
      return;
    }
  reported = g_error_new (CUGI_ERROR, CUGI_ERROR_FAILED, _("Cannot fetch the unique id from %s: %s"),
                          fetch->address_text, error->message);
  g_error_free (error);
  fetch_return_error (task, reported);
}

/* Ends the task after an answer that was cut short, @n_read of @size bytes. */
static void
fetch_return_short (GTask *task,
                    gsize  n_read,
                    gsize  size)
{
  Fetch *fetch = g_task_get_task_data (task);

  if (n_read == 0)
    fetch_return_error (task, g_error_new (CUGI_ERROR, CUGI_ERROR_FAILED,
                                           _("%s closed the connection without an answer: it is not a cugi "
                                             "rendezvous, or it stopped"), fetch->address_text));
  else
    fetch_return_error (task, g_error_new (CUGI_ERROR, CUGI_ERROR_FAILED,
                                           _("The answer from %s is cut short: %zu of %zu bytes"),
                                           fetch->address_text, n_read, size));
}

/* FALSE, with the task ended, unless the answer's header is this
 * version's, of a unique id. */
static gboolean
check_answer_header (GTask *task)
{
  Fetch *fetch = g_task_get_task_data (task);
  CugiRendezvousHeader header;

  if (!cugi_rendezvous_parse_header (fetch->header, &header))
    fetch_return_error (task, g_error_new (CUGI_ERROR, CUGI_ERROR_FAILED,
                                           _("%s is not a cugi rendezvous: its answer does not start as one "
                                             "does"), fetch->address_text));
  else if (header.version != CUGI_RENDEZVOUS_VERSION)
    fetch_return_error (task, g_error_new (CUGI_ERROR, CUGI_ERROR_NOT_SUPPORTED,
                                           _("The rendezvous at %s speaks version %u of its protocol; this "
                                             "cugi speaks version %u"), fetch->address_text, header.version,
                                           (guint) CUGI_RENDEZVOUS_VERSION));
  else if (header.kind != CUGI_RENDEZVOUS_ID || header.length != sizeof fetch->id)
    fetch_return_error (task, g_error_new (CUGI_ERROR, CUGI_ERROR_FAILED,
                                           _("The answer from %s is not a unique id"), fetch->address_text));
  else
    return TRUE;
  return FALSE;
}

static void exchanged (GObject      *stream,
                       GAsyncResult *result,
                       gpointer      data);

/* Starts @step of the exchange, which gives @task's reference to
 * exchanged(). */
static void
exchange (GTask *task,
          Step   step)
{
  Fetch *fetch = g_task_get_task_data (task);
  GIOStream *connection = G_IO_STREAM (fetch->connection);
  guint8 *buffer = step == READING_HEADER ? fetch->header : fetch->id;

  fetch->step = step;
  fetch->expected = step == READING_HEADER ? sizeof fetch->header : sizeof fetch->id;
  if (step == SENDING_REQUEST || step == SENDING_RECEIPT)
    g_output_stream_write_all_async (g_io_stream_get_output_stream (connection),
                                     step == SENDING_REQUEST ? request_header : received_header,
                                     CUGI_RENDEZVOUS_HEADER_SIZE, G_PRIORITY_DEFAULT, fetch->operation,
                                     exchanged, task);
  else
    g_input_stream_read_all_async (g_io_stream_get_input_stream (connection), buffer, fetch->expected,
                                   G_PRIORITY_DEFAULT, fetch->operation, exchanged, task);
}

/* Where a step of the exchange ends: checks it, then starts the next or
 * returns the id. */
static void
exchanged (GObject      *stream,
           GAsyncResult *result,
           gpointer      data)
{
  g_autoptr(GTask) task = data;
  Fetch *fetch = g_task_get_task_data (task);
  gboolean sent = G_IS_OUTPUT_STREAM (stream);
  GError *error = NULL;
  gsize n_read = 0;

  if (sent ? !g_output_stream_write_all_finish (G_OUTPUT_STREAM (stream), result, NULL, &error)
           : !g_input_stream_read_all_finish (G_INPUT_STREAM (stream), result, &n_read, &error))
    {
      fetch_return_io_error (task, error);
      return;
    }
  if (!sent && n_read < fetch->expected)
    {
      fetch_return_short (task, n_read, fetch->expected);
      return;
    }
  if (fetch->step == READING_HEADER && !check_answer_header (task))
    return;
  if (fetch->step != SENDING_RECEIPT)
    {
      exchange (g_steal_pointer (&task), fetch->step + 1);
      return;
    }
  fetch_unwatch (fetch);
  g_clear_object (&fetch->connection);
  g_task_return_pointer (task, g_bytes_new (fetch->id, sizeof fetch->id), (GDestroyNotify) g_bytes_unref);
}

static void fetch_connect (GTask *task);

static gboolean
retry (GCancellable *operation,
       gpointer      data)
{
  GTask *task = data;

  if (g_cancellable_is_cancelled (operation))
    fetch_return_error (task, NULL);
  else
    fetch_connect (task);
  return G_SOURCE_REMOVE;
}

/* Tries again after a while: rank 0 may not listen yet. The wait ends early
 * when the operation is cancelled. */
static void
retry_later (GTask *task)
{
  Fetch *fetch = g_task_get_task_data (task);
  g_autoptr(GSource) source = g_cancellable_source_new (fetch->operation);

  /* Only this thread cancels the operation: it is not cancelled meanwhile,
   * and where it was, the source is ready already. */
  if (!g_cancellable_is_cancelled (fetch->operation))
    g_source_set_ready_time (source, g_get_monotonic_time () + (gint64) fetch->retry_ms * G_TIME_SPAN_MILLISECOND);
  fetch->retry_ms = MIN (fetch->retry_ms * 2, MOST_RETRY_MS);
  g_source_set_static_name (source, "[cugi] rendezvous fetch retry");
  g_source_set_callback (source, G_SOURCE_FUNC (retry), g_object_ref (task), g_object_unref);
  g_source_attach (source, g_task_get_context (task));
}

static void
connected (GObject      *client,
           GAsyncResult *result,
           gpointer      data)
{
  g_autoptr(GTask) task = data;
  Fetch *fetch = g_task_get_task_data (task);
  GError *error = NULL;

  fetch->connection = g_socket_client_connect_finish (G_SOCKET_CLIENT (client), result, &error);
  if (fetch->connection == NULL)
    {
      if (g_cancellable_is_cancelled (fetch->operation))
        {
          fetch_return_error (task, error);
          return;
        }
      g_clear_error (&fetch->connect_error);
      fetch->connect_error = error;
      retry_later (task);
      return;
    }
  g_clear_error (&fetch->connect_error);
  exchange (g_steal_pointer (&task), SENDING_REQUEST);
}

static void
fetch_connect (GTask *task)
{
  Fetch *fetch = g_task_get_task_data (task);

  g_socket_client_connect_async (fetch->client, fetch->address, fetch->operation, connected,
                                 g_object_ref (task));
}

static gboolean
deadline_passed (gpointer data)
{
  Fetch *fetch = data;

  fetch->timed_out = TRUE;
  g_cancellable_cancel (fetch->operation);
  return G_SOURCE_REMOVE;
}

static gboolean
task_cancelled (GCancellable *cancellable,
                gpointer      data)
{
  Fetch *fetch = data;

  g_cancellable_cancel (fetch->operation);
  return G_SOURCE_REMOVE;
}

/* The source of @fetch's, calling @callback with @fetch, in @task's context. */
static GSource *
fetch_watch (GTask       *task,
             GSource     *source,
             const char  *name,
             GSourceFunc  callback)
{
  g_source_set_static_name (source, name);
  g_source_set_callback (source, callback, g_task_get_task_data (task), NULL);
  g_source_attach (source, g_task_get_context (task));
  return source;
}

/* The address a fetch connects to: INVALID_ARGUMENT unless @text is
 * HOST:PORT. */
static GSocketConnectable *
parse_fetch_address (const char  *text,
                     GError     **error)
{
  g_autoptr(GSocketConnectable) address = g_network_address_parse (text, 0, NULL);

  if (address != NULL && g_network_address_get_port (G_NETWORK_ADDRESS (address)) != 0)
    return g_steal_pointer (&address);
  g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
               /* Translators: HOST and PORT are placeholders, not to be translated. */
               _("“%s” is not the address of a rendezvous: one is HOST:PORT, as the rendezvous’s "
                 "address property gives it"), text);
  return NULL;
}

/**
 * cugi_rendezvous_fetch_async:
 * @address: the address of the rendezvous, "HOST:PORT" (HOST a name or an
 *   IP address, "[HOST]:PORT" for IPv6), as #CugiRendezvous:address gives it
 * @timeout_ms: how long to try, in milliseconds, from now until the id
 *   came; 0 to try until @cancellable is cancelled
 * @cancellable: (nullable): a #GCancellable to stop trying
 * @callback: called in the thread-default main context once the id came,
 *   or the fetch failed
 * @user_data: data for @callback
 *
 * Fetches a unique id from the rendezvous at @address, without blocking:
 * connecting again and again (rank 0 may not listen yet) until it answers
 * or @timeout_ms passed. Connections that fail are tried again; an answer
 * that is not a rendezvous's is not.
 *
 * Since: 0.1
 */
void
cugi_rendezvous_fetch_async (const char          *address,
                             guint                timeout_ms,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GSocketConnectable) connectable = NULL;
  Fetch *fetch;

  g_return_if_fail (address != NULL);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, cugi_rendezvous_fetch_async);
  g_task_set_name (task, "[cugi] rendezvous fetch");
  if (g_task_return_error_if_cancelled (task))
    return;
  connectable = parse_fetch_address (address, &error);
  if (connectable == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  fetch = g_new0 (Fetch, 1);
  fetch->address = g_steal_pointer (&connectable);
  fetch->address_text = g_strdup (address);
  fetch->timeout_ms = timeout_ms;
  fetch->client = g_socket_client_new ();
  /* Straight to the rank: a desktop's proxy is for the web. */
  g_socket_client_set_enable_proxy (fetch->client, FALSE);
  fetch->operation = g_cancellable_new ();
  fetch->retry_ms = FIRST_RETRY_MS;
  g_task_set_task_data (task, fetch, (GDestroyNotify) fetch_free);
  if (timeout_ms > 0)
    fetch->deadline = fetch_watch (task, g_timeout_source_new (timeout_ms), "[cugi] rendezvous fetch deadline",
                                   deadline_passed);
  if (cancellable != NULL)
    fetch->cancel_watch = fetch_watch (task, g_cancellable_source_new (cancellable),
                                       "[cugi] rendezvous fetch cancellation", G_SOURCE_FUNC (task_cancelled));
  fetch_connect (task);
}

/**
 * cugi_rendezvous_fetch_finish:
 * @result: the result given to the callback
 * @error: return location for a #GError
 *
 * Finishes cugi_rendezvous_fetch_async().
 *
 * Returns: (transfer full): the 128 bytes of the unique id, or %NULL with
 *   @error set: %CUGI_ERROR_TIMED_OUT when no rendezvous answered in time,
 *   %CUGI_ERROR_FAILED for an answer that is not a rendezvous's or was cut
 *   short, %CUGI_ERROR_NOT_SUPPORTED from a rendezvous of another version,
 *   %CUGI_ERROR_INVALID_ARGUMENT for an address that is not one,
 *   %G_IO_ERROR_CANCELLED
 *
 * Since: 0.1
 */
GBytes *
cugi_rendezvous_fetch_finish (GAsyncResult  *result,
                              GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == cugi_rendezvous_fetch_async, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
store_result (GObject      *source,
              GAsyncResult *result,
              gpointer      data)
{
  GAsyncResult **slot = data;

  *slot = g_object_ref (result);
}

/**
 * cugi_rendezvous_fetch:
 * @address: the address of the rendezvous, "HOST:PORT", as
 *   #CugiRendezvous:address gives it
 * @timeout_ms: how long to try, in milliseconds; 0 to try until
 *   @cancellable is cancelled
 * @cancellable: (nullable): a #GCancellable to stop trying, from another
 *   thread
 * @error: return location for a #GError
 *
 * cugi_rendezvous_fetch_async(), waiting for the id: for scripts and
 * threads without a main loop. The thread-default main context does not
 * run meanwhile.
 *
 * Returns: (transfer full): the 128 bytes of the unique id, or %NULL with
 *   @error set, as for cugi_rendezvous_fetch_finish()
 *
 * Since: 0.1
 */
GBytes *
cugi_rendezvous_fetch (const char    *address,
                       guint          timeout_ms,
                       GCancellable  *cancellable,
                       GError       **error)
{
  g_autoptr(GMainContext) context = g_main_context_new ();
  g_autoptr(GAsyncResult) result = NULL;

  g_return_val_if_fail (address != NULL, NULL);
  g_return_val_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  g_main_context_push_thread_default (context);
  cugi_rendezvous_fetch_async (address, timeout_ms, cancellable, store_result, &result);
  while (result == NULL)
    g_main_context_iteration (context, TRUE);
  /* What the socket client left behind (attempts it cancelled) ends here. */
  while (g_main_context_iteration (context, FALSE))
    ;
  g_main_context_pop_thread_default (context);
  return cugi_rendezvous_fetch_finish (result, error);
}
