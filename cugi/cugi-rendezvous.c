/* cugi-rendezvous.c: a communicator's unique id served by one rank and
 * fetched by the others over a TCP socket */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "cugi-communicator-private.h"
#include "cugi-private.h"
#include "cugi-rendezvous-private.h"

/**
 * CugiRendezvous:
 *
 * Gets a communicator's unique id from the rank that made it to the others
 * over TCP, without blocking a main loop: plumbing for programs that start
 * their ranks themselves and have no other way to hand the id on (an
 * environment variable, a file, D-Bus, MPI). It starts and schedules
 * nothing.
 *
 * Rank 0 makes the id with cugi_communicator_new_unique_id(), makes a
 * rendezvous for it with cugi_rendezvous_new() and calls
 * cugi_rendezvous_listen(); the other ranks call
 * cugi_rendezvous_fetch_async() (or cugi_rendezvous_fetch(), which waits)
 * with the address it listens on (#CugiRendezvous:address, or an address
 * agreed on beforehand, as `MASTER_ADDR` and `MASTER_PORT` are for
 * PyTorch). A fetch tries to connect again until its timeout, so the other
 * ranks may start first. Once #CugiRendezvous:n-ranks − 1 fetches got the
 * id, the rendezvous stops listening (#CugiRendezvous:n-served says how
 * many did, notified as it grows); cugi_rendezvous_stop() stops it before,
 * and so does dropping it. Connections are answered in the main context
 * that was thread-default when the rendezvous was made.
 *
 * ```python
 * unique_id = Cugi.Communicator.new_unique_id()        # rank 0
 * rendezvous = Cugi.Rendezvous.new(unique_id, n_ranks)
 * rendezvous.listen(':29500')                         # every interface
 *
 * def fetched(_source, result, _data):                 # the other ranks
 *     unique_id = Cugi.Rendezvous.fetch_finish(result)
 *     Cugi.Communicator.new_async(None, unique_id, n_ranks, rank, None, connected, None)
 *
 * Cugi.Rendezvous.fetch_async('node0:29500', 60000, None, fetched, None)
 * ```
 *
 * The exchange is versioned and checked: the fetcher sends a request, the
 * rendezvous answers with a header and the 128 bytes of the id, and the
 * fetcher acknowledges them, so that only fetches that got the id count
 * as served. Each message starts with a 12-byte header: the 8 bytes
 * `CUGI-RDV`, the protocol's version (1), the kind of message (1 for the
 * request, 2 for the id, 3 for the acknowledgement) and the length of what
 * follows in 2 bytes, most significant first (128 for the id, else 0). A
 * rendezvous answers a request of another version with a header of its own
 * version and nothing after it. A fetch from something that is not a
 * rendezvous, or whose answer is cut short, fails with %CUGI_ERROR_FAILED;
 * from a rendezvous of another version, %CUGI_ERROR_NOT_SUPPORTED: never
 * with a wrong id.
 *
 * Nothing is authenticated or encrypted: whoever reaches the port gets the
 * id (and with it the address where rank 0's NCCL waits for the ranks), and
 * whoever answers at an address gives the id the fetcher uses. Use it on
 * trusted networks only, such as a cluster's own, or the loopback
 * interface.
 *
 * Since: 0.1
 */

/* How long a rendezvous waits for a fetcher's next message before it drops
 * the connection. */
#define PEER_TIMEOUT_S 10
/* The listening socket's backlog: the ranks that may wait to be accepted. */
#define MOST_BACKLOG 1024

/* The answer to a request of another version: this one's, and no id. */
static const guint8 version_header[CUGI_RENDEZVOUS_HEADER_SIZE] =
  CUGI_RENDEZVOUS_HEADER (CUGI_RENDEZVOUS_ID, 0);
static const guint8 id_header[CUGI_RENDEZVOUS_HEADER_SIZE] =
  CUGI_RENDEZVOUS_HEADER (CUGI_RENDEZVOUS_ID, CUGI_NCCL_UNIQUE_ID_BYTES);

struct _CugiRendezvous
{
  GObject          parent_instance;

  GBytes          *unique_id;
  int              n_ranks;
  guint            n_served;
  GMainContext    *main_context;  /* thread-default when made: connections are answered there */
  GSocketService  *service;       /* while listening */
  GCancellable    *cancellable;   /* the connections being answered; cancelled by stopping */
  GBytes          *answer;        /* the id's header and the id */
  char            *address;
  guint            port;
  gboolean         stopped;
};

G_DEFINE_FINAL_TYPE (CugiRendezvous, cugi_rendezvous, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_UNIQUE_ID,
  PROP_N_RANKS,
  PROP_N_SERVED,
  PROP_ADDRESS,
  PROP_PORT,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* INVALID_ARGUMENT unless a rendezvous can serve @unique_id to @n_ranks. */
static gboolean
check_arguments (GBytes  *unique_id,
                 int      n_ranks,
                 GError **error)
{
  if (!cugi_communicator_check_unique_id (unique_id, error))
    return FALSE;
  if (n_ranks < 1)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("A rendezvous is for 1 rank or more, not %d"), n_ranks);
      return FALSE;
    }
  return TRUE;
}

/* ---- answering a fetch -------------------------------------------------- */

/* One connection being answered. The rendezvous may go meanwhile: what
 * the answer needs is its own. */
typedef struct
{
  GWeakRef           rendezvous;
  GSocketConnection *connection;
  GCancellable      *cancellable;
  GBytes            *answer;
  guint8             header[CUGI_RENDEZVOUS_HEADER_SIZE];
} Answer;

static void
answer_free (Answer *answer)
{
  g_weak_ref_clear (&answer->rendezvous);
  g_object_unref (answer->connection);
  g_object_unref (answer->cancellable);
  g_bytes_unref (answer->answer);
  g_free (answer);
}

/* Ends the connection without counting it: a fetcher that went, timed out
 * or is not one (why, for G_MESSAGES_DEBUG). */
static void
answer_drop (Answer       *answer,
             const GError *error,
             const char   *why)
{
  g_debug ("A rendezvous drops a connection: %s", error != NULL ? error->message : why);
  answer_free (answer);
}

/* The header of the fetcher's next message, into answer->header. */
static void
answer_read_header (Answer              *answer,
                    GAsyncReadyCallback  callback)
{
  g_input_stream_read_all_async (g_io_stream_get_input_stream (G_IO_STREAM (answer->connection)),
                                 answer->header, sizeof answer->header, G_PRIORITY_DEFAULT, answer->cancellable,
                                 callback, answer);
}

/* FALSE, with the connection dropped, unless the header of kind @kind was
 * read whole; its version in *@version. */
static gboolean
answer_finish_header (Answer       *answer,
                      GAsyncResult *result,
                      guint         kind,
                      guint        *version)
{
  g_autoptr(GError) error = NULL;
  gsize n_read = 0;
  CugiRendezvousHeader header;

  if (!g_input_stream_read_all_finish (g_io_stream_get_input_stream (G_IO_STREAM (answer->connection)),
                                       result, &n_read, &error))
    answer_drop (answer, error, NULL);
  else if (n_read < sizeof answer->header || !cugi_rendezvous_parse_header (answer->header, &header) ||
           header.kind != kind || header.length != 0)
    answer_drop (answer, NULL, "not a fetcher's message");
  else
    {
      *version = header.version;
      return TRUE;
    }
  return FALSE;
}

static void
count_served (CugiRendezvous *self)
{
  if (self->stopped)
    return;
  self->n_served++;
  /* Stopped first: when n-served says all were served, nothing listens. */
  if (self->n_served >= (guint) self->n_ranks - 1)
    cugi_rendezvous_stop (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_SERVED]);
}

static void
receipt_read (GObject      *stream,
              GAsyncResult *result,
              gpointer      data)
{
  Answer *answer = data;
  g_autoptr(CugiRendezvous) self = NULL;
  guint version;

  if (!answer_finish_header (answer, result, CUGI_RENDEZVOUS_RECEIVED, &version))
    return;
  self = g_weak_ref_get (&answer->rendezvous);
  answer_free (answer);
  if (self != NULL && version == CUGI_RENDEZVOUS_VERSION)
    count_served (self);
}

static void
answer_written (GObject      *stream,
                GAsyncResult *result,
                gpointer      data)
{
  Answer *answer = data;
  g_autoptr(GError) error = NULL;

  if (!g_output_stream_write_all_finish (G_OUTPUT_STREAM (stream), result, NULL, &error))
    answer_drop (answer, error, NULL);
  else
    answer_read_header (answer, receipt_read);
}

/* After the answer to another version: nothing more to say. */
static void
version_written (GObject      *stream,
                 GAsyncResult *result,
                 gpointer      data)
{
  answer_drop (data, NULL, "a fetcher of another version");
}

static void
request_read (GObject      *stream,
              GAsyncResult *result,
              gpointer      data)
{
  Answer *answer = data;
  GOutputStream *output = g_io_stream_get_output_stream (G_IO_STREAM (answer->connection));
  guint version;

  if (!answer_finish_header (answer, result, CUGI_RENDEZVOUS_REQUEST, &version))
    return;
  if (version != CUGI_RENDEZVOUS_VERSION)
    g_output_stream_write_all_async (output, version_header, CUGI_RENDEZVOUS_HEADER_SIZE, G_PRIORITY_DEFAULT,
                                     answer->cancellable, version_written, answer);
  else
    g_output_stream_write_all_async (output, g_bytes_get_data (answer->answer, NULL),
                                     g_bytes_get_size (answer->answer), G_PRIORITY_DEFAULT,
                                     answer->cancellable, answer_written, answer);
}

static gboolean
incoming (GSocketService    *service,
          GSocketConnection *connection,
          GObject           *source_object,
          gpointer           data)
{
  CugiRendezvous *self = data;
  Answer *answer = g_new0 (Answer, 1);

  g_weak_ref_init (&answer->rendezvous, self);
  answer->connection = g_object_ref (connection);
  answer->cancellable = g_object_ref (self->cancellable);
  answer->answer = g_bytes_ref (self->answer);
  /* A fetcher that stops talking is dropped. */
  g_socket_set_timeout (g_socket_connection_get_socket (connection), PEER_TIMEOUT_S);
  answer_read_header (answer, request_read);
  return TRUE;
}

/* ---- listening ---------------------------------------------------------- */

/* Reads "HOST:PORT" ("[HOST]:PORT" for IPv6): *@host NULL for all
 * interfaces (an empty HOST, or "*"). */
static gboolean
parse_listen_address (const char    *text,
                      GInetAddress **host,
                      guint16       *port,
                      GError       **error)
{
  const char *colon = strrchr (text, ':');
  g_autofree char *name = NULL;
  guint64 number = 0;

  if (colon != NULL && g_ascii_string_to_unsigned (colon + 1, 10, 0, G_MAXUINT16, &number, NULL))
    {
      gsize length = colon - text;

      if (length >= 2 && text[0] == '[' && text[length - 1] == ']')
        name = g_strndup (text + 1, length - 2);
      else
        name = g_strndup (text, length);
      *port = (guint16) number;
      if (name[0] == '\0' || strcmp (name, "*") == 0)
        return TRUE;
      *host = g_inet_address_new_from_string (name);
      if (*host != NULL)
        return TRUE;
    }
  g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
               /* Translators: HOST and PORT are placeholders, not to be translated. */
               _("“%s” is not an address to listen on: one is HOST:PORT, HOST an IP address of this "
                 "machine (empty or * for all of them), PORT 0 for any free one"), text);
  return FALSE;
}

/* Listens on @host (NULL: every interface) and @port (0: any free one): the
 * port it listens on, or 0 with @error set. */
static guint16
add_socket (GSocketListener  *listener,
            GInetAddress     *host,
            guint16           port,
            GError          **error)
{
  g_autoptr(GSocketAddress) address = NULL;
  g_autoptr(GSocketAddress) bound = NULL;

  if (host == NULL && port == 0)
    return g_socket_listener_add_any_inet_port (listener, NULL, error);
  if (host == NULL)
    return g_socket_listener_add_inet_port (listener, port, NULL, error) ? port : 0;
  address = g_inet_socket_address_new (host, port);
  if (!g_socket_listener_add_address (listener, address, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, NULL,
                                      &bound, error))
    return 0;
  return g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
}

/* What a fetcher on another machine passes: the host's name where every
 * interface listens, else the address. */
static char *
published_address (GInetAddress *host,
                   guint16       port)
{
  g_autofree char *text = NULL;

  if (host == NULL || g_inet_address_get_is_any (host))
    return g_strdup_printf ("%s:%u", g_get_host_name (), port);
  text = g_inet_address_to_string (host);
  if (g_inet_address_get_family (host) == G_SOCKET_FAMILY_IPV6)
    return g_strdup_printf ("[%s]:%u", text, port);
  return g_strdup_printf ("%s:%u", text, port);
}

static gboolean
check_can_listen (CugiRendezvous  *self,
                  GError         **error)
{
  if (self->service != NULL)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE, _("The rendezvous listens already"));
      return FALSE;
    }
  if (self->stopped)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE,
                   _("The rendezvous has stopped: make another to listen again"));
      return FALSE;
    }
  return check_arguments (self->unique_id, self->n_ranks, error);
}

static GBytes *
make_answer (GBytes *unique_id)
{
  GByteArray *answer = g_byte_array_sized_new (CUGI_RENDEZVOUS_HEADER_SIZE + CUGI_NCCL_UNIQUE_ID_BYTES);

  g_byte_array_append (answer, id_header, CUGI_RENDEZVOUS_HEADER_SIZE);
  g_byte_array_append (answer, g_bytes_get_data (unique_id, NULL), CUGI_NCCL_UNIQUE_ID_BYTES);
  return g_byte_array_free_to_bytes (answer);
}

/* ---- the object --------------------------------------------------------- */

static void
cugi_rendezvous_dispose (GObject *object)
{
  cugi_rendezvous_stop (CUGI_RENDEZVOUS (object));

  G_OBJECT_CLASS (cugi_rendezvous_parent_class)->dispose (object);
}

static void
cugi_rendezvous_finalize (GObject *object)
{
  CugiRendezvous *self = CUGI_RENDEZVOUS (object);

  g_clear_pointer (&self->unique_id, g_bytes_unref);
  g_clear_pointer (&self->answer, g_bytes_unref);
  g_object_unref (self->cancellable);
  g_free (self->address);
  g_main_context_unref (self->main_context);

  G_OBJECT_CLASS (cugi_rendezvous_parent_class)->finalize (object);
}

static void
cugi_rendezvous_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  CugiRendezvous *self = CUGI_RENDEZVOUS (object);

  switch (prop_id)
    {
    case PROP_UNIQUE_ID:
      g_value_set_boxed (value, self->unique_id);
      break;
    case PROP_N_RANKS:
      g_value_set_int (value, self->n_ranks);
      break;
    case PROP_N_SERVED:
      g_value_set_uint (value, self->n_served);
      break;
    case PROP_ADDRESS:
      g_value_set_string (value, self->address);
      break;
    case PROP_PORT:
      g_value_set_uint (value, self->port);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cugi_rendezvous_set_property (GObject      *object,
                              guint         prop_id,
                              const GValue *value,
                              GParamSpec   *pspec)
{
  CugiRendezvous *self = CUGI_RENDEZVOUS (object);

  switch (prop_id)
    {
    case PROP_UNIQUE_ID:
      self->unique_id = g_value_dup_boxed (value);
      break;
    case PROP_N_RANKS:
      self->n_ranks = g_value_get_int (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cugi_rendezvous_class_init (CugiRendezvousClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags construct_only = G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS;
  const GParamFlags notified = G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  object_class->dispose = cugi_rendezvous_dispose;
  object_class->finalize = cugi_rendezvous_finalize;
  object_class->get_property = cugi_rendezvous_get_property;
  object_class->set_property = cugi_rendezvous_set_property;

  /**
   * CugiRendezvous:unique-id:
   *
   * The 128 bytes of cugi_communicator_new_unique_id() that the rendezvous
   * serves.
   *
   * Since: 0.1
   */
  properties[PROP_UNIQUE_ID] =
    g_param_spec_boxed ("unique-id", NULL, NULL, G_TYPE_BYTES, construct_only);

  /**
   * CugiRendezvous:n-ranks:
   *
   * How many ranks the communicator joins: the rendezvous serves the id to
   * all of them but the one it runs in, then stops listening.
   *
   * Since: 0.1
   */
  properties[PROP_N_RANKS] =
    g_param_spec_int ("n-ranks", NULL, NULL, 1, G_MAXINT, 1, construct_only);

  /**
   * CugiRendezvous:n-served:
   *
   * How many fetches got the id (and said so), notified as it grows: at
   * #CugiRendezvous:n-ranks − 1 the rendezvous has stopped listening.
   *
   * Since: 0.1
   */
  properties[PROP_N_SERVED] =
    g_param_spec_uint ("n-served", NULL, NULL, 0, G_MAXUINT, 0, notified);

  /**
   * CugiRendezvous:address:
   *
   * What the other ranks pass to cugi_rendezvous_fetch_async() once the
   * rendezvous listens ("192.0.2.7:29500", "[::1]:40513"; the host's name,
   * as g_get_host_name() gives it, where it listens on every interface);
   * %NULL before.
   *
   * Since: 0.1
   */
  properties[PROP_ADDRESS] =
    g_param_spec_string ("address", NULL, NULL, NULL, notified);

  /**
   * CugiRendezvous:port:
   *
   * The TCP port the rendezvous listens on (the one the system chose, for
   * port 0), once it listens; 0 before.
   *
   * Since: 0.1
   */
  properties[PROP_PORT] =
    g_param_spec_uint ("port", NULL, NULL, 0, G_MAXUINT16, 0, notified);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
cugi_rendezvous_init (CugiRendezvous *self)
{
  self->n_ranks = 1;
  self->main_context = cugi_capture_main_context ();
  self->cancellable = g_cancellable_new ();
}

/* ---- public: serving ---------------------------------------------------- */

/**
 * cugi_rendezvous_new:
 * @unique_id: the unique id of cugi_communicator_new_unique_id() to serve
 * @n_ranks: how many ranks the communicator joins: the id is served to
 *   @n_ranks − 1 of them
 * @error: return location for a #GError
 *
 * Makes a rendezvous that serves @unique_id, in the rank that made it, to
 * the other ranks, once it listens (cugi_rendezvous_listen()).
 *
 * Returns: (transfer full): the rendezvous, or %NULL with
 *   %CUGI_ERROR_INVALID_ARGUMENT when @unique_id is not 128 bytes or
 *   @n_ranks is less than 1
 *
 * Since: 0.1
 */
CugiRendezvous *
cugi_rendezvous_new (GBytes  *unique_id,
                     int      n_ranks,
                     GError **error)
{
  g_return_val_if_fail (unique_id != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!check_arguments (unique_id, n_ranks, error))
    return NULL;
  return g_object_new (CUGI_TYPE_RENDEZVOUS, "unique-id", unique_id, "n-ranks", n_ranks, NULL);
}

/**
 * cugi_rendezvous_listen:
 * @self: a #CugiRendezvous
 * @address: (nullable): where to listen, as "HOST:PORT": HOST an IP
 *   address of this machine ("[HOST]:PORT" for IPv6; empty or `*` for all
 *   interfaces), PORT 0 for one the system chooses; %NULL for any port on
 *   all interfaces
 * @error: return location for a #GError
 *
 * Starts listening for the other ranks' fetches, which are answered in the
 * main context that was thread-default when @self was made; call this in
 * that context's thread. Where the rendezvous listens is then
 * #CugiRendezvous:address and #CugiRendezvous:port. A rendezvous of one
 * rank has no one to serve: it returns %TRUE and listens nowhere.
 *
 * Returns: %TRUE once listening; else %FALSE with @error set
 *   (%CUGI_ERROR_INVALID_ARGUMENT for an address that is not one,
 *   %CUGI_ERROR_INVALID_STATE when it listened before, %CUGI_ERROR_FAILED
 *   when the system refused, the port being taken for one)
 *
 * Since: 0.1
 */
gboolean
cugi_rendezvous_listen (CugiRendezvous  *self,
                        const char      *address,
                        GError         **error)
{
  g_autoptr(GInetAddress) host = NULL;
  g_autoptr(GSocketService) service = NULL;
  g_autoptr(GError) local_error = NULL;
  guint16 port = 0;

  g_return_val_if_fail (CUGI_IS_RENDEZVOUS (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!check_can_listen (self, error) ||
      (address != NULL && !parse_listen_address (address, &host, &port, error)))
    return FALSE;
  if (self->n_ranks == 1)
    {
      self->stopped = TRUE;
      return TRUE;
    }
  service = g_socket_service_new ();
  g_socket_listener_set_backlog (G_SOCKET_LISTENER (service), CLAMP (self->n_ranks - 1, 16, MOST_BACKLOG));
  /* The service accepts in the context that is thread-default as it starts
   * (as its first socket is added); nothing is accepted before that
   * context runs. */
  g_main_context_push_thread_default (self->main_context);
  port = add_socket (G_SOCKET_LISTENER (service), host, port, &local_error);
  g_main_context_pop_thread_default (self->main_context);
  if (port == 0)
    {
      g_socket_service_stop (service);
      g_socket_listener_close (G_SOCKET_LISTENER (service));
      if (address != NULL)
        g_set_error (error, CUGI_ERROR, CUGI_ERROR_FAILED, _("Cannot listen for ranks on %s: %s"), address,
                     local_error->message);
      else
        g_set_error (error, CUGI_ERROR, CUGI_ERROR_FAILED, _("Cannot listen for ranks: %s"),
                     local_error->message);
      return FALSE;
    }
  self->answer = make_answer (self->unique_id);
  g_signal_connect (service, "incoming", G_CALLBACK (incoming), self);
  self->service = g_steal_pointer (&service);
  self->port = port;
  self->address = published_address (host, port);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PORT]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ADDRESS]);
  return TRUE;
}

/**
 * cugi_rendezvous_stop:
 * @self: a #CugiRendezvous
 *
 * Stops listening, and drops the connections being answered, before all
 * ranks were served: fetches from now on fail or time out. The rendezvous
 * stops by itself once #CugiRendezvous:n-ranks − 1 fetches got the id, and
 * when it is dropped. Stopping a stopped rendezvous does nothing.
 *
 * Since: 0.1
 */
void
cugi_rendezvous_stop (CugiRendezvous *self)
{
  g_return_if_fail (CUGI_IS_RENDEZVOUS (self));

  self->stopped = TRUE;
  g_cancellable_cancel (self->cancellable);
  if (self->service == NULL)
    return;
  g_signal_handlers_disconnect_by_data (self->service, self);
  g_socket_service_stop (self->service);
  /* Closed, so that fetches from now on are refused rather than queued. */
  g_socket_listener_close (G_SOCKET_LISTENER (self->service));
  g_clear_object (&self->service);
}

/**
 * cugi_rendezvous_get_address:
 * @self: a #CugiRendezvous
 *
 * Returns: (nullable): what the other ranks fetch from
 *   (#CugiRendezvous:address), or %NULL before the rendezvous listens
 *
 * Since: 0.1
 */
const char *
cugi_rendezvous_get_address (CugiRendezvous *self)
{
  g_return_val_if_fail (CUGI_IS_RENDEZVOUS (self), NULL);

  return self->address;
}

/**
 * cugi_rendezvous_get_port:
 * @self: a #CugiRendezvous
 *
 * Returns: the TCP port the rendezvous listens on, or 0 before it listens
 *
 * Since: 0.1
 */
guint
cugi_rendezvous_get_port (CugiRendezvous *self)
{
  g_return_val_if_fail (CUGI_IS_RENDEZVOUS (self), 0);

  return self->port;
}

/**
 * cugi_rendezvous_get_n_served:
 * @self: a #CugiRendezvous
 *
 * Returns: how many fetches got the id (#CugiRendezvous:n-served)
 *
 * Since: 0.1
 */
guint
cugi_rendezvous_get_n_served (CugiRendezvous *self)
{
  g_return_val_if_fail (CUGI_IS_RENDEZVOUS (self), 0);

  return self->n_served;
}

