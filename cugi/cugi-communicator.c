/* cugi-communicator.c: NCCL communicators: collectives and point-to-point
 * transfers between the GPUs of one or many processes, in stream order */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "cugi-buffer-private.h"
#include "cugi-communicator-private.h"
#include "cugi-context-private.h"
#include "cugi-private.h"
#include "cugi-stream-private.h"

/**
 * CugiCommunicator:
 *
 * One rank of an NCCL communicator: the GPU of a #CugiContext joined with
 * the GPUs of other ranks, in this process or others, for collectives
 * (cugi_communicator_all_reduce(), cugi_communicator_broadcast(),
 * cugi_communicator_reduce(), cugi_communicator_all_gather(),
 * cugi_communicator_reduce_scatter()) and transfers between two ranks
 * (cugi_communicator_send(), cugi_communicator_recv()), enqueued on cugi
 * streams like copies and kernels.
 *
 * cugi starts no processes: the program does (#GSubprocess, MPI, a
 * cluster's launcher), makes a unique id on one rank with
 * cugi_communicator_new_unique_id(), hands it to the others (as bytes, or
 * as text with cugi_communicator_unique_id_to_string()), and every rank
 * makes its communicator with the same id and number of ranks and its own
 * rank. cugi_communicator_new_async() does that without blocking the main
 * loop: NCCL connects the ranks in the background while cugi polls it from
 * the thread-default main context, and cancelling the #GCancellable aborts
 * the connection. cugi_communicator_new() waits, and takes a cancellable
 * too. NCCL's configuration (#CugiCommunicator:min-ctas, …) is given as
 * construction properties, through g_initable_new() or
 * g_async_initable_new_async().
 *
 * Counts are in elements of a #CugiDataType; every buffer is checked
 * against them, and against the communicator's context, before NCCL is
 * called, and every bad argument is a %CUGI_ERROR_INVALID_ARGUMENT. The
 * buffers, and the communicator, stay alive until the transfer is done,
 * whatever the caller drops. Between cugi_communicator_group_start() and
 * cugi_communicator_group_end() the calls of one thread are fused into one
 * launch, as NCCL's groups are: sends and receives between ranks need them.
 *
 * A communicator fails when a peer fails or leaves (NCCL's asynchronous
 * errors): cugi polls for that from the main context while it is ready and
 * emits #CugiCommunicator::failed, after which it can only be aborted or
 * dropped. cugi_communicator_close() flushes and destroys it; dropping it
 * does the same.
 *
 * NCCL (`libnccl.so.2`, 2.18 or later) is loaded at run time: where it is
 * missing, the constructors fail with %CUGI_ERROR_NOT_AVAILABLE saying so.
 *
 * Since: 0.1
 */

/* How often cugi asks NCCL whether a background connection or flush is
 * done, and whether a ready communicator failed. */
#define PROGRESS_POLL_MS 2
#define FAILURE_POLL_MS 100
/* A call that waits for NCCL's background work asks again at once this
 * many times, then after pauses that double from PROGRESS_FIRST_PAUSE_US
 * to PROGRESS_POLL_MS: an enqueue is done within microseconds, a
 * connection or a flush takes milliseconds and more. */
#define PROGRESS_SPINS 64
#define PROGRESS_FIRST_PAUSE_US 5

struct _CugiCommunicator
{
  GObject                 parent_instance;

  CugiContextBinding      binding;
  GBytes                 *unique_id;
  int                     n_ranks;
  int                     rank;
  /* NCCL's configuration; 0 (FALSE, NULL) leaves NCCL's default */
  int                     cga_cluster_size;
  int                     min_ctas;
  int                     max_ctas;
  char                   *net_name;
  gboolean                split_share;

  ncclComm_t              comm;
  CugiCommunicatorState   state;
  GMainContext           *main_context;  /* thread-default when made: ::failed goes there */
  GSource                *failure_watch;
  GHashTable             *registrations; /* (CugiBuffer *, owned) → NCCL's handle */
};

static void initable_iface_init (GInitableIface *iface);
static void async_initable_iface_init (GAsyncInitableIface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (CugiCommunicator, cugi_communicator, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_INITABLE, initable_iface_init)
                               G_IMPLEMENT_INTERFACE (G_TYPE_ASYNC_INITABLE, async_initable_iface_init))

enum
{
  PROP_0,
  PROP_CONTEXT,
  PROP_UNIQUE_ID,
  PROP_N_RANKS,
  PROP_RANK,
  PROP_CGA_CLUSTER_SIZE,
  PROP_MIN_CTAS,
  PROP_MAX_CTAS,
  PROP_NET_NAME,
  PROP_SPLIT_SHARE,
  PROP_STATE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum
{
  SIGNAL_FAILED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* ---- waiting for NCCL --------------------------------------------------------- */

/* Polls @comm until NCCL's background work on it (a connection, a flush,
 * an enqueue) is over: its result. A cancelled @cancellable stops the wait
 * with ncclInProgress still, for the caller to abort. */
static ncclResult_t
wait_while_in_progress (ncclComm_t    comm,
                        GCancellable *cancellable)
{
  ncclResult_t state = ncclInProgress;
  gulong pause_us = PROGRESS_FIRST_PAUSE_US;

  for (guint polls = 0;; polls++)
    {
      ncclResult_t result = cugi_nccl.ncclCommGetAsyncError (comm, &state);

      if (result != ncclSuccess)
        return result;
      if (state != ncclInProgress || g_cancellable_is_cancelled (cancellable))
        return state;
      if (polls < PROGRESS_SPINS)
        g_thread_yield ();
      else
        {
          g_usleep (pause_us);
          pause_us = MIN (pause_us * 2, PROGRESS_POLL_MS * 1000);
        }
    }
}

/* Ends a call that may have gone on in the background (communicators are
 * non-blocking, so that connecting can be cancelled): TRUE once it is
 * done, else the error, G_IO_ERROR_CANCELLED when @cancellable was. */
static gboolean
finish_call (ncclComm_t     comm,
             ncclResult_t   result,
             const char    *operation,
             GCancellable  *cancellable,
             GError       **error)
{
  if (result == ncclInProgress)
    result = wait_while_in_progress (comm, cancellable);
  if (result == ncclInProgress)
    return !g_cancellable_set_error_if_cancelled (cancellable, error);
  if (result != ncclSuccess)
    {
      cugi_communicator_set_error_from_result (error, result, operation, comm);
      return FALSE;
    }
  return TRUE;
}

/* ---- the state and its watch ------------------------------------------------ */

static void
set_state (CugiCommunicator      *self,
           CugiCommunicatorState  state)
{
  if (self->state == state)
    return;
  self->state = state;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STATE]);
}

static void
stop_failure_watch (CugiCommunicator *self)
{
  if (self->failure_watch == NULL)
    return;
  g_source_destroy (self->failure_watch);
  g_clear_pointer (&self->failure_watch, g_source_unref);
}

static gboolean
check_async_error (CugiCommunicator  *self,
                   GError           **error)
{
  ncclResult_t state = ncclSuccess;
  ncclResult_t result = cugi_nccl.ncclCommGetAsyncError (self->comm, &state);

  if (result == ncclSuccess && (state == ncclSuccess || state == ncclInProgress))
    return TRUE;
  cugi_communicator_set_error_from_result (error, result != ncclSuccess ? result : state, "ncclCommGetAsyncError",
                                           self->comm);
  return FALSE;
}

static void
fail (CugiCommunicator *self,
      const GError     *error)
{
  stop_failure_watch (self);
  set_state (self, CUGI_COMMUNICATOR_STATE_FAILED);
  g_signal_emit (self, signals[SIGNAL_FAILED], 0, error);
}

static gboolean
failure_watch_poll (gpointer data)
{
  g_autoptr(CugiCommunicator) self = g_weak_ref_get (data);
  g_autoptr(GError) error = NULL;

  if (self == NULL || self->state != CUGI_COMMUNICATOR_STATE_READY)
    return G_SOURCE_REMOVE;
  if (check_async_error (self, &error))
    return G_SOURCE_CONTINUE;
  /* fail() destroys this source: keep it alive until it returns. */
  g_source_ref (g_main_current_source ());
  fail (self, error);
  g_source_unref (g_main_current_source ());
  return G_SOURCE_REMOVE;
}

static void
weak_ref_free (gpointer data)
{
  g_weak_ref_clear (data);
  g_free (data);
}

/* Called once the communicator is ready: polls NCCL for a failure. */
static void
become_ready (CugiCommunicator *self)
{
  GWeakRef *ref = g_new0 (GWeakRef, 1);

  g_weak_ref_init (ref, self);
  set_state (self, CUGI_COMMUNICATOR_STATE_READY);
  self->failure_watch = g_timeout_source_new (FAILURE_POLL_MS);
  g_source_set_static_name (self->failure_watch, "[cugi] communicator failure watch");
  g_source_set_callback (self->failure_watch, failure_watch_poll, ref, weak_ref_free);
  g_source_attach (self->failure_watch, self->main_context);
}

/* FALSE with INVALID_STATE unless @self can take work. */
static gboolean
check_ready (CugiCommunicator  *self,
             GError           **error)
{
  switch (self->state)
    {
    case CUGI_COMMUNICATOR_STATE_READY:
      return cugi_context_binding_check (&self->binding,
                                         N_("The communicator’s context was reset since it was made"),
                                         error);
    case CUGI_COMMUNICATOR_STATE_NEW:
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE,
                   _("The communicator is not connected yet: make it with cugi_communicator_new() or "
                     "initialize it with g_initable_init() first"));
      return FALSE;
    case CUGI_COMMUNICATOR_STATE_FAILED:
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE,
                   _("The communicator failed (a rank failed or left): abort it and make another"));
      return FALSE;
    case CUGI_COMMUNICATOR_STATE_CLOSED:
    case CUGI_COMMUNICATOR_STATE_ABORTED:
    default:
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE,
                   _("The communicator is closed"));
      return FALSE;
    }
}

/* ---- connecting --------------------------------------------------------- */

static ncclConfig_t
make_config (CugiCommunicator *self)
{
  ncclConfig_t config = {
    .size = sizeof (ncclConfig_t),
    .magic = CUGI_NCCL_CONFIG_MAGIC,
    .version = CUGI_NCCL_CONFIG_VERSION,
    /* Non-blocking, so that a connection or a flush can be cancelled, and
     * polled for from the main loop. */
    .blocking = 0,
    .cgaClusterSize = self->cga_cluster_size > 0 ? self->cga_cluster_size : CUGI_NCCL_CONFIG_UNDEF_INT,
    .minCTAs = self->min_ctas > 0 ? self->min_ctas : CUGI_NCCL_CONFIG_UNDEF_INT,
    .maxCTAs = self->max_ctas > 0 ? self->max_ctas : CUGI_NCCL_CONFIG_UNDEF_INT,
    .netName = self->net_name,
    .splitShare = self->split_share ? 1 : CUGI_NCCL_CONFIG_UNDEF_INT,
  };
  return config;
}

/* Everything checked before NCCL is called: INVALID_ARGUMENT naming what. */
static gboolean
check_construction (CugiCommunicator  *self,
                    GError           **error)
{
  if (self->state != CUGI_COMMUNICATOR_STATE_NEW)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE,
                   _("The communicator is initialized already"));
      return FALSE;
    }
  if (!cugi_communicator_check_unique_id (self->unique_id, error))
    return FALSE;
  if (self->n_ranks < 1 || self->rank < 0 || self->rank >= self->n_ranks)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("Rank %d is not one of the %d ranks of the communicator (0 to %d)"),
                   self->rank, self->n_ranks, self->n_ranks - 1);
      return FALSE;
    }
  if (self->min_ctas > 0 && self->max_ctas > 0 && self->min_ctas > self->max_ctas)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("min-ctas (%d) is more than max-ctas (%d)"), self->min_ctas, self->max_ctas);
      return FALSE;
    }
  return TRUE;
}

/* Checks, loads NCCL and starts connecting: the rest goes on in the
 * background until NCCL's state is no longer in progress. */
static gboolean
start_connecting (CugiCommunicator  *self,
                  GError           **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  g_autoptr(CugiContext) context = NULL;
  ncclUniqueId unique_id;
  ncclConfig_t config;
  ncclResult_t result;

  if (!check_construction (self, error) || !cugi_ensure_driver (error) ||
      !cugi_loader_load_nccl (error) ||
      (context = cugi_context_resolve (self->binding.context, error)) == NULL)
    return FALSE;
  if (self->binding.context == NULL)
    cugi_context_binding_init (&self->binding, context, 0);
  if (!cugi_context_binding_enter (&self->binding, &scope,
                                   N_("The communicator’s context was reset since it was made"), error))
    return FALSE;

  memcpy (&unique_id, g_bytes_get_data (self->unique_id, NULL), sizeof unique_id);
  config = make_config (self);
  result = cugi_nccl.ncclCommInitRankConfig (&self->comm, self->n_ranks, unique_id, self->rank, &config);
  if (result != ncclSuccess && result != ncclInProgress)
    {
      cugi_communicator_set_error_from_result (error, result, "ncclCommInitRankConfig", self->comm);
      if (self->comm != NULL)
        cugi_nccl.ncclCommAbort (self->comm);
      self->comm = NULL;
      return FALSE;
    }
  return TRUE;
}

/* After a connection that failed or was cancelled: the communicator is
 * aborted, and may be dropped. */
static void
abandon_connection (CugiCommunicator *self)
{
  if (self->comm != NULL)
    cugi_nccl.ncclCommAbort (self->comm);
  self->comm = NULL;
  set_state (self, CUGI_COMMUNICATOR_STATE_ABORTED);
}

static gboolean
cugi_communicator_initable_init (GInitable     *initable,
                                 GCancellable  *cancellable,
                                 GError       **error)
{
  CugiCommunicator *self = CUGI_COMMUNICATOR (initable);

  if (!start_connecting (self, error))
    return FALSE;
  if (!finish_call (self->comm, ncclInProgress, "ncclCommInitRankConfig", cancellable, error))
    {
      abandon_connection (self);
      return FALSE;
    }
  become_ready (self);
  return TRUE;
}

static void
initable_iface_init (GInitableIface *iface)
{
  iface->init = cugi_communicator_initable_init;
}

/* What a task waits for NCCL to do in the background: connecting, or
 * closing; then what to do once it is done, or when it failed or the task
 * was cancelled. */
typedef struct
{
  const char *operation;
  const char *source_name;
  void      (*done)    (CugiCommunicator *self);
  void      (*abandon) (CugiCommunicator *self);
} Progress;

static void close_finished (CugiCommunicator *self);

static const Progress connecting = {
  "ncclCommInitRankConfig", "[cugi] communicator connection", become_ready, abandon_connection
};
static const Progress closing = {
  "ncclCommFinalize", "[cugi] communicator close", close_finished, cugi_communicator_abort
};

/* Polls, in the task's context, until NCCL is done. */
static gboolean
progress_poll (gpointer data)
{
  GTask *task = data;
  CugiCommunicator *self = g_task_get_source_object (task);
  const Progress *progress = g_task_get_task_data (task);
  GCancellable *cancellable = g_task_get_cancellable (task);
  g_autoptr(GError) error = NULL;
  ncclResult_t state = ncclInProgress;
  ncclResult_t result = cugi_nccl.ncclCommGetAsyncError (self->comm, &state);

  if (result == ncclSuccess && state == ncclInProgress && !g_cancellable_is_cancelled (cancellable))
    return G_SOURCE_CONTINUE;
  if (result == ncclSuccess && state == ncclSuccess)
    {
      progress->done (self);
      g_task_return_boolean (task, TRUE);
      return G_SOURCE_REMOVE;
    }
  if (!g_cancellable_set_error_if_cancelled (cancellable, &error))
    cugi_communicator_set_error_from_result (&error, result != ncclSuccess ? result : state, progress->operation,
                                             self->comm);
  progress->abandon (self);
  g_task_return_error (task, g_steal_pointer (&error));
  return G_SOURCE_REMOVE;
}

/* Runs progress_poll() in the task's context until it returned the task. */
static void
poll_for_task (GTask          *task,
               const Progress *progress)
{
  g_autoptr(GSource) source = g_timeout_source_new (PROGRESS_POLL_MS);

  g_task_set_task_data (task, (gpointer) progress, NULL);
  g_source_set_static_name (source, progress->source_name);
  g_source_set_callback (source, progress_poll, g_object_ref (task), g_object_unref);
  g_source_attach (source, g_task_get_context (task));
}

static void
cugi_communicator_init_async (GAsyncInitable      *initable,
                              int                  io_priority,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  CugiCommunicator *self = CUGI_COMMUNICATOR (initable);
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  g_autoptr(GError) error = NULL;

  g_task_set_source_tag (task, cugi_communicator_init_async);
  g_task_set_priority (task, io_priority);
  if (!start_connecting (self, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  poll_for_task (task, &connecting);
}

static gboolean
cugi_communicator_init_finish (GAsyncInitable  *initable,
                               GAsyncResult    *result,
                               GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, initable), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

static void
async_initable_iface_init (GAsyncInitableIface *iface)
{
  iface->init_async = cugi_communicator_init_async;
  iface->init_finish = cugi_communicator_init_finish;
}

/* ---- the object ------------------------------------------------------------ */

static void
deregister_all (CugiCommunicator *self)
{
  GHashTableIter iter;
  gpointer handle;

  g_hash_table_iter_init (&iter, self->registrations);
  while (g_hash_table_iter_next (&iter, NULL, &handle))
    cugi_nccl.ncclCommDeregister (self->comm, handle);
  g_hash_table_remove_all (self->registrations);
}

/* Flushes and destroys the communicator, or aborts it where it cannot be
 * flushed: what dropping it does. */
static void
destroy_communicator (CugiCommunicator *self)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;

  if (self->comm == NULL)
    return;
  if (!cugi_context_binding_is_current (&self->binding) ||
      !cugi_context_enter (self->binding.context, &scope, NULL))
    {
      cugi_nccl.ncclCommAbort (self->comm);
      self->comm = NULL;
      return;
    }
  deregister_all (self);
  if (self->state == CUGI_COMMUNICATOR_STATE_READY &&
      finish_call (self->comm, cugi_nccl.ncclCommFinalize (self->comm), "ncclCommFinalize", NULL, NULL))
    cugi_nccl.ncclCommDestroy (self->comm);
  else
    cugi_nccl.ncclCommAbort (self->comm);
  self->comm = NULL;
}

static void
cugi_communicator_dispose (GObject *object)
{
  CugiCommunicator *self = CUGI_COMMUNICATOR (object);

  stop_failure_watch (self);
  G_OBJECT_CLASS (cugi_communicator_parent_class)->dispose (object);
}

static void
cugi_communicator_finalize (GObject *object)
{
  CugiCommunicator *self = CUGI_COMMUNICATOR (object);

  destroy_communicator (self);
  g_hash_table_unref (self->registrations);
  g_clear_pointer (&self->unique_id, g_bytes_unref);
  g_free (self->net_name);
  g_main_context_unref (self->main_context);
  cugi_context_binding_clear (&self->binding);

  G_OBJECT_CLASS (cugi_communicator_parent_class)->finalize (object);
}

static void
cugi_communicator_get_property (GObject    *object,
                                guint       prop_id,
                                GValue     *value,
                                GParamSpec *pspec)
{
  CugiCommunicator *self = CUGI_COMMUNICATOR (object);

  switch (prop_id)
    {
    case PROP_CONTEXT:
      g_value_set_object (value, self->binding.context);
      break;
    case PROP_UNIQUE_ID:
      g_value_set_boxed (value, self->unique_id);
      break;
    case PROP_N_RANKS:
      g_value_set_int (value, self->n_ranks);
      break;
    case PROP_RANK:
      g_value_set_int (value, self->rank);
      break;
    case PROP_CGA_CLUSTER_SIZE:
      g_value_set_int (value, self->cga_cluster_size);
      break;
    case PROP_MIN_CTAS:
      g_value_set_int (value, self->min_ctas);
      break;
    case PROP_MAX_CTAS:
      g_value_set_int (value, self->max_ctas);
      break;
    case PROP_NET_NAME:
      g_value_set_string (value, self->net_name);
      break;
    case PROP_SPLIT_SHARE:
      g_value_set_boolean (value, self->split_share);
      break;
    case PROP_STATE:
      g_value_set_enum (value, self->state);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cugi_communicator_set_property (GObject      *object,
                                guint         prop_id,
                                const GValue *value,
                                GParamSpec   *pspec)
{
  CugiCommunicator *self = CUGI_COMMUNICATOR (object);

  switch (prop_id)
    {
    case PROP_CONTEXT:
      if (g_value_get_object (value) != NULL)
        cugi_context_binding_init (&self->binding, g_value_get_object (value), 0);
      break;
    case PROP_UNIQUE_ID:
      self->unique_id = g_value_dup_boxed (value);
      break;
    case PROP_N_RANKS:
      self->n_ranks = g_value_get_int (value);
      break;
    case PROP_RANK:
      self->rank = g_value_get_int (value);
      break;
    case PROP_CGA_CLUSTER_SIZE:
      self->cga_cluster_size = g_value_get_int (value);
      break;
    case PROP_MIN_CTAS:
      self->min_ctas = g_value_get_int (value);
      break;
    case PROP_MAX_CTAS:
      self->max_ctas = g_value_get_int (value);
      break;
    case PROP_NET_NAME:
      self->net_name = g_value_dup_string (value);
      break;
    case PROP_SPLIT_SHARE:
      self->split_share = g_value_get_boolean (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cugi_communicator_class_init (CugiCommunicatorClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags construct_only = G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS;

  object_class->dispose = cugi_communicator_dispose;
  object_class->finalize = cugi_communicator_finalize;
  object_class->get_property = cugi_communicator_get_property;
  object_class->set_property = cugi_communicator_set_property;

  /**
   * CugiCommunicator:context:
   *
   * The context whose device is this rank's GPU; %NULL at construction
   * takes the default context.
   *
   * Since: 0.1
   */
  properties[PROP_CONTEXT] =
    g_param_spec_object ("context", NULL, NULL, CUGI_TYPE_CONTEXT, construct_only);

  /**
   * CugiCommunicator:unique-id:
   *
   * The 128 bytes of cugi_communicator_new_unique_id() that every rank of
   * the communicator is made with.
   *
   * Since: 0.1
   */
  properties[PROP_UNIQUE_ID] =
    g_param_spec_boxed ("unique-id", NULL, NULL, G_TYPE_BYTES, construct_only);

  /**
   * CugiCommunicator:n-ranks:
   *
   * How many ranks the communicator joins.
   *
   * Since: 0.1
   */
  properties[PROP_N_RANKS] =
    g_param_spec_int ("n-ranks", NULL, NULL, 0, G_MAXINT, 1, construct_only);

  /**
   * CugiCommunicator:rank:
   *
   * This rank's place among them, from 0 to #CugiCommunicator:n-ranks − 1.
   *
   * Since: 0.1
   */
  properties[PROP_RANK] =
    g_param_spec_int ("rank", NULL, NULL, G_MININT, G_MAXINT, 0, construct_only);

  /**
   * CugiCommunicator:cga-cluster-size:
   *
   * The thread-block cluster size of NCCL's kernels (`cgaClusterSize`), 0
   * for NCCL's choice.
   *
   * Since: 0.1
   */
  properties[PROP_CGA_CLUSTER_SIZE] =
    g_param_spec_int ("cga-cluster-size", NULL, NULL, 0, 8, 0, construct_only);

  /**
   * CugiCommunicator:min-ctas:
   *
   * The fewest thread blocks (channels) NCCL's kernels use (`minCTAs`), 0
   * for NCCL's choice.
   *
   * Since: 0.1
   */
  properties[PROP_MIN_CTAS] =
    g_param_spec_int ("min-ctas", NULL, NULL, 0, G_MAXINT, 0, construct_only);

  /**
   * CugiCommunicator:max-ctas:
   *
   * The most thread blocks NCCL's kernels use (`maxCTAs`), 0 for NCCL's
   * choice: fewer leaves more SMs to the application's kernels.
   *
   * Since: 0.1
   */
  properties[PROP_MAX_CTAS] =
    g_param_spec_int ("max-ctas", NULL, NULL, 0, G_MAXINT, 0, construct_only);

  /**
   * CugiCommunicator:net-name:
   *
   * The network NCCL uses between nodes (`netName`, "IB" or "Socket"), or
   * %NULL for NCCL's choice.
   *
   * Since: 0.1
   */
  properties[PROP_NET_NAME] =
    g_param_spec_string ("net-name", NULL, NULL, NULL, construct_only);

  /**
   * CugiCommunicator:split-share:
   *
   * Whether communicators split from this one share its resources
   * (`splitShare`).
   *
   * Since: 0.1
   */
  properties[PROP_SPLIT_SHARE] =
    g_param_spec_boolean ("split-share", NULL, NULL, FALSE, construct_only);

  /**
   * CugiCommunicator:state:
   *
   * Where the communicator is: connecting, ready, failed, closed or
   * aborted; notified as it changes.
   *
   * Since: 0.1
   */
  properties[PROP_STATE] =
    g_param_spec_enum ("state", NULL, NULL, CUGI_TYPE_COMMUNICATOR_STATE, CUGI_COMMUNICATOR_STATE_NEW,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * CugiCommunicator::failed:
   * @self: the communicator
   * @error: what NCCL reported
   *
   * Emitted, in the main context that was thread-default when the
   * communicator was made, when NCCL reports that it failed (a peer failed
   * or left, a network error): work enqueued on it will not complete, and
   * it can only be aborted (cugi_communicator_abort()) or dropped.
   *
   * Since: 0.1
   */
  signals[SIGNAL_FAILED] =
    g_signal_new ("failed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_ERROR);
}

static void
cugi_communicator_init (CugiCommunicator *self)
{
  self->n_ranks = 1;
  self->main_context = g_main_context_ref_thread_default ();
  self->registrations = g_hash_table_new_full (NULL, NULL, g_object_unref, NULL);
}

/* ---- public ------------------------------------------------------------- */

/**
 * cugi_communicator_new:
 * @context: (nullable): the context whose device is this rank's GPU, or
 *   %NULL for the default context
 * @unique_id: the unique id of cugi_communicator_new_unique_id() that every
 *   rank is made with
 * @n_ranks: how many ranks the communicator joins
 * @rank: this rank, from 0 to @n_ranks − 1
 * @cancellable: (nullable): a #GCancellable that aborts the connection
 * @error: return location for a #GError
 *
 * Makes this rank's communicator (`ncclCommInitRankConfig`), waiting until
 * all @n_ranks ranks have joined: use cugi_communicator_new_async() in a
 * main loop. For NCCL's configuration, use g_initable_new() with the
 * construction properties.
 *
 * Returns: (transfer full): the communicator, or %NULL with @error set
 *   (%CUGI_ERROR_INVALID_ARGUMENT for a bad rank or id,
 *   %CUGI_ERROR_NOT_AVAILABLE where NCCL is missing, %G_IO_ERROR_CANCELLED)
 *
 * Since: 0.1
 */
CugiCommunicator *
cugi_communicator_new (CugiContext   *context,
                       GBytes        *unique_id,
                       int            n_ranks,
                       int            rank,
                       GCancellable  *cancellable,
                       GError       **error)
{
  g_return_val_if_fail (context == NULL || CUGI_IS_CONTEXT (context), NULL);
  g_return_val_if_fail (unique_id != NULL, NULL);
  g_return_val_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return g_initable_new (CUGI_TYPE_COMMUNICATOR, cancellable, error, "context", context, "unique-id", unique_id,
                         "n-ranks", n_ranks, "rank", rank, NULL);
}

/**
 * cugi_communicator_new_async:
 * @context: (nullable): the context whose device is this rank's GPU, or
 *   %NULL for the default context
 * @unique_id: the unique id that every rank is made with
 * @n_ranks: how many ranks the communicator joins
 * @rank: this rank, from 0 to @n_ranks − 1
 * @cancellable: (nullable): a #GCancellable that aborts the connection
 * @callback: called in the thread-default main context once all ranks
 *   have joined, or the connection failed
 * @user_data: data for @callback
 *
 * cugi_communicator_new() without blocking: NCCL connects the ranks in the
 * background, and cugi polls it from the thread-default main context.
 *
 * Since: 0.1
 */
void
cugi_communicator_new_async (CugiContext         *context,
                             GBytes              *unique_id,
                             int                  n_ranks,
                             int                  rank,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  g_return_if_fail (context == NULL || CUGI_IS_CONTEXT (context));
  g_return_if_fail (unique_id != NULL);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  g_async_initable_new_async (CUGI_TYPE_COMMUNICATOR, G_PRIORITY_DEFAULT, cancellable, callback, user_data,
                              "context", context, "unique-id", unique_id, "n-ranks", n_ranks, "rank", rank,
                              NULL);
}

/**
 * cugi_communicator_new_finish:
 * @result: the result given to the callback
 * @error: return location for a #GError
 *
 * Finishes cugi_communicator_new_async().
 *
 * Returns: (transfer full): the communicator, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiCommunicator *
cugi_communicator_new_finish (GAsyncResult  *result,
                              GError       **error)
{
  g_autoptr(GObject) source = g_async_result_get_source_object (result);

  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return CUGI_COMMUNICATOR (g_async_initable_new_finish (G_ASYNC_INITABLE (source), result, error));
}

/* Slots NCCL may still write into, kept for the process (8 bytes for each
 * split that left a rank out). */
static void
keep_for_nccl (ncclComm_t *slot)
{
  static GMutex lock;
  static GPtrArray *slots;

  g_mutex_lock (&lock);
  if (slots == NULL)
    slots = g_ptr_array_new ();
  g_ptr_array_add (slots, slot);
  g_mutex_unlock (&lock);
}

/**
 * cugi_communicator_split:
 * @self: a #CugiCommunicator
 * @color: the group of this rank (ranks of one color form a communicator),
 *   or %CUGI_COMMUNICATOR_NO_COLOR to join none
 * @key: the order of this rank in its group (ties go by rank)
 * @error: return location for a #GError
 *
 * Splits the communicator by color (`ncclCommSplit`): every rank of @self
 * must call this, and waits until all have. The new communicator has the
 * configuration of @self.
 *
 * Returns: (transfer full) (nullable): this rank's communicator of its
 *   color, %NULL without an error for %CUGI_COMMUNICATOR_NO_COLOR, or
 *   %NULL with @error set
 *
 * Since: 0.1
 */
CugiCommunicator *
cugi_communicator_split (CugiCommunicator  *self,
                         int                color,
                         int                key,
                         GError           **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  g_autoptr(CugiCommunicator) split = NULL;
  ncclConfig_t config;
  ncclComm_t comm = NULL;
  ncclComm_t *slot;
  ncclResult_t result;
  int n_ranks = 0, rank = 0;

  g_return_val_if_fail (CUGI_IS_COMMUNICATOR (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!check_ready (self, error))
    return NULL;
  if (color < 0 && color != CUGI_COMMUNICATOR_NO_COLOR)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("Color %d is negative: colors are 0 or more, or CUGI_COMMUNICATOR_NO_COLOR"), color);
      return NULL;
    }
  if (!cugi_context_enter (self->binding.context, &scope, error))
    return NULL;
  /* NCCL's split runs in the background of the non-blocking parent and
   * stores the new communicator (NULL for no color) into *slot once it is
   * connected, or failed: after this returns, for all cugi knows (even
   * when it returns ncclSuccess), so the slot is the heap's, and for no
   * color, where nothing says when NCCL is done with it, left to NCCL. */
  slot = g_new0 (ncclComm_t, 1);
  config = make_config (self);
  result = cugi_nccl.ncclCommSplit (self->comm, color == CUGI_COMMUNICATOR_NO_COLOR ?
                                    CUGI_NCCL_SPLIT_NOCOLOR : color, key, slot, &config);
  if (result != ncclSuccess && result != ncclInProgress)
    {
      cugi_communicator_set_error_from_result (error, result, "ncclCommSplit", self->comm);
      g_free (slot);
      return NULL;
    }
  if (color == CUGI_COMMUNICATOR_NO_COLOR)
    {
      keep_for_nccl (slot);
      return NULL;
    }
  while ((comm = g_atomic_pointer_get (slot)) == NULL)
    {
      if (!check_async_error (self, error))
        {
          keep_for_nccl (slot);
          return NULL;
        }
      g_usleep (PROGRESS_POLL_MS * 1000);
    }
  g_free (slot);
  if (!finish_call (comm, ncclInProgress, "ncclCommSplit", NULL, error))
    {
      cugi_nccl.ncclCommAbort (comm);
      return NULL;
    }
  cugi_nccl.ncclCommCount (comm, &n_ranks);
  cugi_nccl.ncclCommUserRank (comm, &rank);
  split = g_object_new (CUGI_TYPE_COMMUNICATOR, "context", self->binding.context, "unique-id", self->unique_id,
                        "n-ranks", n_ranks, "rank", rank, "cga-cluster-size", self->cga_cluster_size,
                        "min-ctas", self->min_ctas, "max-ctas", self->max_ctas, "net-name", self->net_name,
                        "split-share", self->split_share, NULL);
  split->comm = comm;
  become_ready (split);
  return g_steal_pointer (&split);
}

/**
 * cugi_communicator_check:
 * @self: a #CugiCommunicator
 * @error: return location for a #GError
 *
 * Asks NCCL now whether the communicator failed (`ncclCommGetAsyncError`),
 * as the poll behind #CugiCommunicator::failed does, and emits that signal
 * if it did.
 *
 * Returns: %TRUE if the communicator is ready; else %FALSE with @error set
 *
 * Since: 0.1
 */
gboolean
cugi_communicator_check (CugiCommunicator  *self,
                         GError           **error)
{
  g_autoptr(GError) failure = NULL;

  g_return_val_if_fail (CUGI_IS_COMMUNICATOR (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!check_ready (self, error))
    return FALSE;
  if (check_async_error (self, &failure))
    return TRUE;
  fail (self, failure);
  g_propagate_error (error, g_steal_pointer (&failure));
  return FALSE;
}

/**
 * cugi_communicator_abort:
 * @self: a #CugiCommunicator
 *
 * Aborts the communicator (`ncclCommAbort`) at once, whatever it is doing:
 * work in flight on it stops, other ranks see it fail. After a failure,
 * this is what is left to do.
 *
 * Since: 0.1
 */
void
cugi_communicator_abort (CugiCommunicator *self)
{
  g_return_if_fail (CUGI_IS_COMMUNICATOR (self));

  stop_failure_watch (self);
  if (self->comm != NULL)
    {
      g_hash_table_remove_all (self->registrations);
      cugi_nccl.ncclCommAbort (self->comm);
      self->comm = NULL;
    }
  if (self->state != CUGI_COMMUNICATOR_STATE_CLOSED)
    set_state (self, CUGI_COMMUNICATOR_STATE_ABORTED);
}

/**
 * cugi_communicator_get_context:
 * @self: a #CugiCommunicator
 *
 * Returns: (transfer none) (nullable): the context whose device is this
 *   rank's GPU
 *
 * Since: 0.1
 */
CugiContext *
cugi_communicator_get_context (CugiCommunicator *self)
{
  g_return_val_if_fail (CUGI_IS_COMMUNICATOR (self), NULL);

  return self->binding.context;
}

/**
 * cugi_communicator_get_rank:
 * @self: a #CugiCommunicator
 *
 * Returns: this rank, from 0 to cugi_communicator_get_n_ranks() − 1
 *
 * Since: 0.1
 */
int
cugi_communicator_get_rank (CugiCommunicator *self)
{
  g_return_val_if_fail (CUGI_IS_COMMUNICATOR (self), -1);

  return self->rank;
}

/**
 * cugi_communicator_get_n_ranks:
 * @self: a #CugiCommunicator
 *
 * Returns: how many ranks the communicator joins
 *
 * Since: 0.1
 */
int
cugi_communicator_get_n_ranks (CugiCommunicator *self)
{
  g_return_val_if_fail (CUGI_IS_COMMUNICATOR (self), 0);

  return self->n_ranks;
}

/**
 * cugi_communicator_get_state:
 * @self: a #CugiCommunicator
 *
 * Returns: where the communicator is (#CugiCommunicator:state)
 *
 * Since: 0.1
 */
CugiCommunicatorState
cugi_communicator_get_state (CugiCommunicator *self)
{
  g_return_val_if_fail (CUGI_IS_COMMUNICATOR (self), CUGI_COMMUNICATOR_STATE_NEW);

  return self->state;
}

/* ---- for cugi-communicator-ops.c ------------------------------------------ */

ncclComm_t
cugi_communicator_get_handle (CugiCommunicator *self)
{
  return self->comm;
}

gboolean
cugi_communicator_check_ready (CugiCommunicator  *self,
                               GError           **error)
{
  return check_ready (self, error);
}

gboolean
cugi_communicator_finish_call (CugiCommunicator  *self,
                               int                result,
                               const char        *operation,
                               GError           **error)
{
  return finish_call (self->comm, result, operation, NULL, error);
}

CugiContextBinding *
cugi_communicator_get_binding (CugiCommunicator *self)
{
  return &self->binding;
}

GHashTable *
cugi_communicator_get_registrations (CugiCommunicator *self)
{
  return self->registrations;
}

/* Closing: flushes, then destroys. */
static void
close_finished (CugiCommunicator *self)
{
  cugi_nccl.ncclCommDestroy (self->comm);
  self->comm = NULL;
  set_state (self, CUGI_COMMUNICATOR_STATE_CLOSED);
}

static gboolean
start_closing (CugiCommunicator  *self,
               CugiContextScope  *scope,
               ncclResult_t      *result,
               GError           **error)
{
  if (self->state == CUGI_COMMUNICATOR_STATE_CLOSED)
    return TRUE;
  if (!check_ready (self, error) || !cugi_context_enter (self->binding.context, scope, error))
    return FALSE;
  stop_failure_watch (self);
  deregister_all (self);
  *result = cugi_nccl.ncclCommFinalize (self->comm);
  return TRUE;
}

/**
 * cugi_communicator_close:
 * @self: a #CugiCommunicator
 * @cancellable: (nullable): a #GCancellable that aborts the communicator
 *   instead
 * @error: return location for a #GError
 *
 * Waits until the work enqueued on the communicator is done on every rank
 * (`ncclCommFinalize`), then destroys it (`ncclCommDestroy`). Every rank
 * closes its own. Closing a closed communicator does nothing.
 *
 * Returns: %TRUE once closed; else %FALSE with @error set, and the
 *   communicator aborted
 *
 * Since: 0.1
 */
gboolean
cugi_communicator_close (CugiCommunicator  *self,
                         GCancellable      *cancellable,
                         GError           **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  ncclResult_t result = ncclSuccess;

  g_return_val_if_fail (CUGI_IS_COMMUNICATOR (self), FALSE);
  g_return_val_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!start_closing (self, &scope, &result, error))
    return FALSE;
  if (self->comm == NULL)
    return TRUE;
  if (!finish_call (self->comm, result, "ncclCommFinalize", cancellable, error))
    {
      cugi_communicator_abort (self);
      return FALSE;
    }
  close_finished (self);
  return TRUE;
}

/**
 * cugi_communicator_close_async:
 * @self: a #CugiCommunicator
 * @cancellable: (nullable): a #GCancellable that aborts the communicator
 *   instead
 * @callback: called in the thread-default main context once closed
 * @user_data: data for @callback
 *
 * cugi_communicator_close() without blocking: cugi polls NCCL's flush from
 * the thread-default main context.
 *
 * Since: 0.1
 */
void
cugi_communicator_close_async (CugiCommunicator    *self,
                               GCancellable        *cancellable,
                               GAsyncReadyCallback  callback,
                               gpointer             user_data)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  ncclResult_t result = ncclSuccess;

  g_return_if_fail (CUGI_IS_COMMUNICATOR (self));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, cugi_communicator_close_async);
  if (!start_closing (self, &scope, &result, &error))
    g_task_return_error (task, g_steal_pointer (&error));
  else if (self->comm == NULL)
    g_task_return_boolean (task, TRUE);
  else if (result != ncclSuccess && result != ncclInProgress)
    {
      cugi_communicator_set_error_from_result (&error, result, "ncclCommFinalize", self->comm);
      cugi_communicator_abort (self);
      g_task_return_error (task, g_steal_pointer (&error));
    }
  else
    poll_for_task (task, &closing);
}

/**
 * cugi_communicator_close_finish:
 * @self: a #CugiCommunicator
 * @result: the result given to the callback
 * @error: return location for a #GError
 *
 * Finishes cugi_communicator_close_async().
 *
 * Returns: %TRUE once closed; else %FALSE with @error set
 *
 * Since: 0.1
 */
gboolean
cugi_communicator_close_finish (CugiCommunicator  *self,
                                GAsyncResult      *result,
                                GError           **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}
