/* cugi-communicator-ops.c: the work enqueued on NCCL communicators:
 * collectives, sends and receives, groups of them, and the memory NCCL
 * registers or allocates for them */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "cugi-buffer-private.h"
#include "cugi-communicator-private.h"
#include "cugi-stream-private.h"

G_STATIC_ASSERT (CUGI_DATA_TYPE_BFLOAT16 == 9);
G_STATIC_ASSERT (CUGI_REDUCE_OP_AVG == 4);

/* ---- groups ------------------------------------------------------------- */

/* Work enqueued inside a group runs only at the group's end: what it uses
 * is tracked then, on the stream it went to. */
typedef struct
{
  CugiStream *stream;     /* owned */
  GPtrArray  *resources;
} GroupedWork;

typedef struct
{
  int        depth;
  GPtrArray *communicators;  /* (element-type CugiCommunicator), owned */
  GArray    *work;           /* (element-type GroupedWork) */
} Group;

static void
grouped_work_clear (gpointer data)
{
  GroupedWork *work = data;

  g_clear_pointer (&work->resources, g_ptr_array_unref);
  g_clear_object (&work->stream);
}

static void
group_free (gpointer data)
{
  Group *group = data;

  g_ptr_array_unref (group->communicators);
  g_array_unref (group->work);
  g_free (group);
}

/* NCCL's groups are per thread, as is what cugi keeps of them. */
static GPrivate group_key = G_PRIVATE_INIT (group_free);

static Group *
get_group (void)
{
  Group *group = g_private_get (&group_key);

  if (group == NULL)
    {
      group = g_new0 (Group, 1);
      group->communicators = g_ptr_array_new_with_free_func (g_object_unref);
      group->work = g_array_new (FALSE, TRUE, sizeof (GroupedWork));
      g_array_set_clear_func (group->work, grouped_work_clear);
      g_private_set (&group_key, group);
    }
  return group;
}

/**
 * cugi_communicator_group_start:
 * @error: return location for a #GError
 *
 * Starts a group (`ncclGroupStart`): the collectives, sends and receives
 * this thread enqueues until cugi_communicator_group_end() are launched
 * together there, on one communicator or many (one per GPU, where a thread
 * drives several). A send and the receive it meets must be in one group.
 * Groups nest; only the outermost end launches.
 *
 * Returns: %TRUE if the group was started; else %FALSE with @error set
 *   (%CUGI_ERROR_NOT_AVAILABLE where NCCL is missing)
 *
 * Since: 0.1
 */
gboolean
cugi_communicator_group_start (GError **error)
{
  ncclResult_t result;

  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!cugi_loader_load_nccl (error))
    return FALSE;
  result = cugi_nccl.ncclGroupStart ();
  if (result != ncclSuccess)
    {
      cugi_communicator_set_error_from_result (error, result, "ncclGroupStart", NULL);
      return FALSE;
    }
  get_group ()->depth++;
  return TRUE;
}

/**
 * cugi_communicator_group_end:
 * @error: return location for a #GError
 *
 * Ends the group of cugi_communicator_group_start() (`ncclGroupEnd`): at
 * the outermost end, what the group holds is launched, and this returns
 * once it is enqueued on its streams.
 *
 * Returns: %TRUE if the group's work was enqueued; else %FALSE with @error
 *   set (%CUGI_ERROR_INVALID_STATE without a group started)
 *
 * Since: 0.1
 */
gboolean
cugi_communicator_group_end (GError **error)
{
  Group *group = g_private_get (&group_key);
  ncclResult_t result;
  gboolean ok = TRUE;

  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (group == NULL || group->depth == 0)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE,
                   _("No group was started: call cugi_communicator_group_start() first"));
      return FALSE;
    }
  result = cugi_nccl.ncclGroupEnd ();
  if (--group->depth > 0)
    {
      if (result != ncclSuccess)
        cugi_communicator_set_error_from_result (error, result, "ncclGroupEnd", NULL);
      return result == ncclSuccess;
    }

  /* Non-blocking communicators launch the group in the background: each
   * is done with it once its state is no longer in progress. */
  if (result == ncclInProgress)
    for (guint i = 0; i < group->communicators->len && ok; i++)
      ok = cugi_communicator_finish_call (group->communicators->pdata[i], ncclInProgress, "ncclGroupEnd",
                                          error);
  else if (result != ncclSuccess)
    {
      cugi_communicator_set_error_from_result (error, result, "ncclGroupEnd", NULL);
      ok = FALSE;
    }
  for (guint i = 0; i < group->work->len && ok; i++)
    {
      GroupedWork *work = &g_array_index (group->work, GroupedWork, i);

      cugi_work_track (work->stream, NULL, g_steal_pointer (&work->resources));
    }
  g_array_set_size (group->work, 0);
  g_ptr_array_set_size (group->communicators, 0);
  return ok;
}

/* ---- checks -------------------------------------------------------------- */

static gsize
get_element_size (CugiDataType data_type)
{
  switch (data_type)
    {
    case CUGI_DATA_TYPE_INT8:
    case CUGI_DATA_TYPE_UINT8:
      return 1;
    case CUGI_DATA_TYPE_FLOAT16:
    case CUGI_DATA_TYPE_BFLOAT16:
      return 2;
    case CUGI_DATA_TYPE_INT32:
    case CUGI_DATA_TYPE_UINT32:
    case CUGI_DATA_TYPE_FLOAT32:
      return 4;
    case CUGI_DATA_TYPE_INT64:
    case CUGI_DATA_TYPE_UINT64:
    case CUGI_DATA_TYPE_FLOAT64:
      return 8;
    default:
      return 0;
    }
}

/* One operation on a communicator, from its checks to its tracking. */
typedef struct
{
  CugiCommunicator *communicator;
  CugiDataType      data_type;
  gsize             element_size;
  CugiStream       *target;       /* where the work goes */
  CugiContextScope  scope;
  GPtrArray        *resources;    /* the buffers, and the communicator */
} Operation;

static void
operation_clear (Operation *op)
{
  g_clear_pointer (&op->resources, g_ptr_array_unref);
  cugi_context_leave (&op->scope);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Operation, operation_clear)

/* Checks what every operation takes and makes the communicator's context
 * current. */
static gboolean
operation_begin (Operation         *op,
                 CugiCommunicator  *self,
                 CugiDataType       data_type,
                 CugiStream        *stream,
                 GError           **error)
{
  CugiContextBinding *binding = cugi_communicator_get_binding (self);

  op->communicator = self;
  op->data_type = data_type;
  op->element_size = get_element_size (data_type);
  if (!cugi_communicator_check_ready (self, error))
    return FALSE;
  if (op->element_size == 0)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("%d is not a data type (a CugiDataType)"), (int) data_type);
      return FALSE;
    }
  if (stream != NULL &&
      (!cugi_stream_check (stream, error) ||
       !cugi_context_binding_check_same_context (binding, cugi_stream_get_context (stream),
                                                 N_("The stream belongs to another context than the communicator"),
                                                 error)))
    return FALSE;
  if (!cugi_context_enter (binding->context, &op->scope, error))
    return FALSE;
  op->target = cugi_stream_resolve (stream, binding->context);
  op->resources = cugi_work_resources_new ();
  cugi_work_resources_add (op->resources, g_object_ref (self), g_object_unref);
  return TRUE;
}

static gboolean
check_reduce_op (CugiReduceOp   reduce_op,
                 GError       **error)
{
  if ((int) reduce_op >= CUGI_REDUCE_OP_SUM && reduce_op <= CUGI_REDUCE_OP_AVG)
    return TRUE;
  g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
               _("%d is not a reduction (a CugiReduceOp)"), (int) reduce_op);
  return FALSE;
}

static gboolean
check_rank (Operation   *op,
            int          rank,
            const char  *what,
            GError     **error)
{
  int n_ranks = cugi_communicator_get_n_ranks (op->communicator);

  if (rank >= 0 && rank < n_ranks)
    return TRUE;
  g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
               /* Translators: the first %s is "root" or "peer". */
               _("The %s, rank %d, is not one of the %d ranks of the communicator"), what, rank, n_ranks);
  return FALSE;
}

/* FALSE unless @buffer can be used and is of @self's context. */
static gboolean
check_buffer (CugiCommunicator  *self,
              CugiBuffer        *buffer,
              GError           **error)
{
  return cugi_buffer_check_usable (buffer, error) &&
         cugi_context_binding_check_same_context (cugi_communicator_get_binding (self),
                                                  cugi_buffer_get_context (buffer),
                                                  N_("A buffer belongs to another context than the communicator"),
                                                  error);
}

/* Checks that @buffer (@what: "send buffer", …) holds @count × @factor
 * elements and belongs to the communicator's context, and adds it to what
 * the work keeps alive: its address in *@address. */
static gboolean
operation_add_buffer (Operation    *op,
                      CugiBuffer   *buffer,
                      const char   *what,
                      gsize         count,
                      gsize         factor,
                      CUdeviceptr  *address,
                      GError      **error)
{
  gsize bytes;

  if (buffer == NULL)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   /* Translators: %s is "send buffer" or "receive buffer". */
                   _("The %s is missing"), what);
      return FALSE;
    }
  if (!check_buffer (op->communicator, buffer, error))
    return FALSE;
  if (!g_size_checked_mul (&bytes, count, factor) || !g_size_checked_mul (&bytes, bytes, op->element_size) ||
      bytes > cugi_buffer_get_size (buffer))
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   /* Translators: the first %s is "send buffer" or "receive buffer". */
                   _("The %s holds %zu bytes, too few for %zu × %zu elements of %zu bytes"),
                   what, cugi_buffer_get_size (buffer), count, factor, op->element_size);
      return FALSE;
    }
  if (!cugi_buffer_get_address (buffer, address, error))
    return FALSE;
  cugi_work_resources_add (op->resources, cugi_buffer_begin_work (buffer), cugi_buffer_end_work);
  return TRUE;
}

/* After the NCCL call: waits for a non-blocking enqueue, then tracks the
 * work, at once or, inside a group, at its end. */
static gboolean
operation_end (Operation    *op,
               ncclResult_t  result,
               const char   *operation,
               GError      **error)
{
  Group *group = g_private_get (&group_key);

  if (!cugi_communicator_finish_call (op->communicator, result, operation, error))
    return FALSE;
  if (group != NULL && group->depth > 0)
    {
      GroupedWork work = { g_object_ref (op->target), g_steal_pointer (&op->resources) };

      g_array_append_val (group->work, work);
      if (!g_ptr_array_find (group->communicators, op->communicator, NULL))
        g_ptr_array_add (group->communicators, g_object_ref (op->communicator));
      return TRUE;
    }
  cugi_work_track (op->target, NULL, g_steal_pointer (&op->resources));
  return TRUE;
}

#define CUGI_COMMUNICATOR_PRECONDITIONS(self, stream, error)                 \
  G_STMT_START {                                                             \
    g_return_val_if_fail (CUGI_IS_COMMUNICATOR (self), FALSE);               \
    g_return_val_if_fail (stream == NULL || CUGI_IS_STREAM (stream), FALSE); \
    g_return_val_if_fail (error == NULL || *error == NULL, FALSE);           \
  } G_STMT_END

/* ---- collectives ---------------------------------------------------------- */

/**
 * cugi_communicator_all_reduce:
 * @self: a #CugiCommunicator
 * @send_buffer: this rank's @count elements
 * @recv_buffer: where the reduction of every rank's elements goes, on
 *   every rank; may be @send_buffer (in place)
 * @count: the number of elements
 * @data_type: their type
 * @op: how they are combined
 * @stream: (nullable): the stream to enqueue on, or %NULL for the default
 *   stream
 * @error: return location for a #GError
 *
 * Enqueues an all-reduce (`ncclAllReduce`): element i of @recv_buffer, on
 * every rank, becomes @op over element i of every rank's @send_buffer.
 *
 * Returns: %TRUE if the all-reduce was enqueued; else %FALSE with @error set
 *   (%CUGI_ERROR_INVALID_ARGUMENT for a buffer too small or of another
 *   context, %CUGI_ERROR_INVALID_STATE for a communicator not ready)
 *
 * Since: 0.1
 */
gboolean
cugi_communicator_all_reduce (CugiCommunicator  *self,
                              CugiBuffer        *send_buffer,
                              CugiBuffer        *recv_buffer,
                              gsize              count,
                              CugiDataType       data_type,
                              CugiReduceOp       op,
                              CugiStream        *stream,
                              GError           **error)
{
  g_auto (Operation) operation = { 0, };
  CUdeviceptr send = 0, recv = 0;

  CUGI_COMMUNICATOR_PRECONDITIONS (self, stream, error);

  if (!operation_begin (&operation, self, data_type, stream, error) || !check_reduce_op (op, error) ||
      !operation_add_buffer (&operation, send_buffer, _("send buffer"), count, 1, &send, error) ||
      !operation_add_buffer (&operation, recv_buffer, _("receive buffer"), count, 1, &recv, error))
    return FALSE;
  return operation_end (&operation,
                        cugi_nccl.ncclAllReduce ((const void *) send, (void *) recv, count, data_type, op,
                                                 cugi_communicator_get_handle (self),
                                                 cugi_stream_get_handle (operation.target)),
                        "ncclAllReduce", error);
}

/**
 * cugi_communicator_broadcast:
 * @self: a #CugiCommunicator
 * @send_buffer: (nullable): on @root, the @count elements to send; on the
 *   other ranks unused, and may be %NULL
 * @recv_buffer: where @root's elements go, on every rank; may be
 *   @send_buffer
 * @count: the number of elements
 * @data_type: their type
 * @root: the rank that sends
 * @stream: (nullable): the stream to enqueue on, or %NULL for the default
 *   stream
 * @error: return location for a #GError
 *
 * Enqueues a broadcast (`ncclBroadcast`) of @root's elements to every rank.
 *
 * Returns: %TRUE if the broadcast was enqueued; else %FALSE with @error set
 *
 * Since: 0.1
 */
gboolean
cugi_communicator_broadcast (CugiCommunicator  *self,
                             CugiBuffer        *send_buffer,
                             CugiBuffer        *recv_buffer,
                             gsize              count,
                             CugiDataType       data_type,
                             int                root,
                             CugiStream        *stream,
                             GError           **error)
{
  g_auto (Operation) operation = { 0, };
  CUdeviceptr send = 0, recv = 0;

  CUGI_COMMUNICATOR_PRECONDITIONS (self, stream, error);

  if (!operation_begin (&operation, self, data_type, stream, error) ||
      !check_rank (&operation, root, _("root"), error) ||
      ((send_buffer != NULL || root == cugi_communicator_get_rank (self)) &&
       !operation_add_buffer (&operation, send_buffer, _("send buffer"), count, 1, &send, error)) ||
      !operation_add_buffer (&operation, recv_buffer, _("receive buffer"), count, 1, &recv, error))
    return FALSE;
  return operation_end (&operation,
                        cugi_nccl.ncclBroadcast ((const void *) send, (void *) recv, count, data_type, root,
                                                 cugi_communicator_get_handle (self),
                                                 cugi_stream_get_handle (operation.target)),
                        "ncclBroadcast", error);
}

/**
 * cugi_communicator_reduce:
 * @self: a #CugiCommunicator
 * @send_buffer: this rank's @count elements
 * @recv_buffer: (nullable): on @root, where the reduction goes; on the
 *   other ranks unused, and may be %NULL
 * @count: the number of elements
 * @data_type: their type
 * @op: how they are combined
 * @root: the rank that receives the reduction
 * @stream: (nullable): the stream to enqueue on, or %NULL for the default
 *   stream
 * @error: return location for a #GError
 *
 * Enqueues a reduction to one rank (`ncclReduce`).
 *
 * Returns: %TRUE if the reduction was enqueued; else %FALSE with @error set
 *
 * Since: 0.1
 */
gboolean
cugi_communicator_reduce (CugiCommunicator  *self,
                          CugiBuffer        *send_buffer,
                          CugiBuffer        *recv_buffer,
                          gsize              count,
                          CugiDataType       data_type,
                          CugiReduceOp       op,
                          int                root,
                          CugiStream        *stream,
                          GError           **error)
{
  g_auto (Operation) operation = { 0, };
  CUdeviceptr send = 0, recv = 0;

  CUGI_COMMUNICATOR_PRECONDITIONS (self, stream, error);

  if (!operation_begin (&operation, self, data_type, stream, error) || !check_reduce_op (op, error) ||
      !check_rank (&operation, root, _("root"), error) ||
      !operation_add_buffer (&operation, send_buffer, _("send buffer"), count, 1, &send, error) ||
      ((recv_buffer != NULL || root == cugi_communicator_get_rank (self)) &&
       !operation_add_buffer (&operation, recv_buffer, _("receive buffer"), count, 1, &recv, error)))
    return FALSE;
  return operation_end (&operation,
                        cugi_nccl.ncclReduce ((const void *) send, (void *) recv, count, data_type, op, root,
                                              cugi_communicator_get_handle (self),
                                              cugi_stream_get_handle (operation.target)),
                        "ncclReduce", error);
}

/**
 * cugi_communicator_all_gather:
 * @self: a #CugiCommunicator
 * @send_buffer: this rank's @send_count elements
 * @recv_buffer: where every rank's elements go, rank after rank:
 *   @send_count × the number of ranks of them
 * @send_count: the number of elements each rank sends
 * @data_type: their type
 * @stream: (nullable): the stream to enqueue on, or %NULL for the default
 *   stream
 * @error: return location for a #GError
 *
 * Enqueues an all-gather (`ncclAllGather`): rank r's elements land at
 * element r × @send_count of @recv_buffer, on every rank.
 *
 * Returns: %TRUE if the all-gather was enqueued; else %FALSE with @error set
 *
 * Since: 0.1
 */
gboolean
cugi_communicator_all_gather (CugiCommunicator  *self,
                              CugiBuffer        *send_buffer,
                              CugiBuffer        *recv_buffer,
                              gsize              send_count,
                              CugiDataType       data_type,
                              CugiStream        *stream,
                              GError           **error)
{
  g_auto (Operation) operation = { 0, };
  CUdeviceptr send = 0, recv = 0;

  CUGI_COMMUNICATOR_PRECONDITIONS (self, stream, error);

  if (!operation_begin (&operation, self, data_type, stream, error) ||
      !operation_add_buffer (&operation, send_buffer, _("send buffer"), send_count, 1, &send, error) ||
      !operation_add_buffer (&operation, recv_buffer, _("receive buffer"), send_count,
                             cugi_communicator_get_n_ranks (self), &recv, error))
    return FALSE;
  return operation_end (&operation,
                        cugi_nccl.ncclAllGather ((const void *) send, (void *) recv, send_count, data_type,
                                                 cugi_communicator_get_handle (self),
                                                 cugi_stream_get_handle (operation.target)),
                        "ncclAllGather", error);
}

/**
 * cugi_communicator_reduce_scatter:
 * @self: a #CugiCommunicator
 * @send_buffer: this rank's elements: @recv_count × the number of ranks
 * @recv_buffer: where this rank's part of the reduction goes: @recv_count
 *   elements
 * @recv_count: the number of elements each rank receives
 * @data_type: their type
 * @op: how they are combined
 * @stream: (nullable): the stream to enqueue on, or %NULL for the default
 *   stream
 * @error: return location for a #GError
 *
 * Enqueues a reduce-scatter (`ncclReduceScatter`): rank r receives the
 * reduction of the elements from r × @recv_count of every rank.
 *
 * Returns: %TRUE if the reduce-scatter was enqueued; else %FALSE with
 *   @error set
 *
 * Since: 0.1
 */
gboolean
cugi_communicator_reduce_scatter (CugiCommunicator  *self,
                                  CugiBuffer        *send_buffer,
                                  CugiBuffer        *recv_buffer,
                                  gsize              recv_count,
                                  CugiDataType       data_type,
                                  CugiReduceOp       op,
                                  CugiStream        *stream,
                                  GError           **error)
{
  g_auto (Operation) operation = { 0, };
  CUdeviceptr send = 0, recv = 0;

  CUGI_COMMUNICATOR_PRECONDITIONS (self, stream, error);

  if (!operation_begin (&operation, self, data_type, stream, error) || !check_reduce_op (op, error) ||
      !operation_add_buffer (&operation, send_buffer, _("send buffer"), recv_count,
                             cugi_communicator_get_n_ranks (self), &send, error) ||
      !operation_add_buffer (&operation, recv_buffer, _("receive buffer"), recv_count, 1, &recv, error))
    return FALSE;
  return operation_end (&operation,
                        cugi_nccl.ncclReduceScatter ((const void *) send, (void *) recv, recv_count, data_type,
                                                     op, cugi_communicator_get_handle (self),
                                                     cugi_stream_get_handle (operation.target)),
                        "ncclReduceScatter", error);
}

/**
 * cugi_communicator_send:
 * @self: a #CugiCommunicator
 * @buffer: the @count elements to send
 * @count: the number of elements
 * @data_type: their type
 * @peer: the rank that receives them, with cugi_communicator_recv()
 * @stream: (nullable): the stream to enqueue on, or %NULL for the default
 *   stream
 * @error: return location for a #GError
 *
 * Enqueues sending elements to another rank (`ncclSend`). The peer's
 * receive must be enqueued too before either completes: where ranks send
 * to each other, put the sends and receives in one group
 * (cugi_communicator_group_start()).
 *
 * Returns: %TRUE if the send was enqueued; else %FALSE with @error set
 *
 * Since: 0.1
 */
gboolean
cugi_communicator_send (CugiCommunicator  *self,
                        CugiBuffer        *buffer,
                        gsize              count,
                        CugiDataType       data_type,
                        int                peer,
                        CugiStream        *stream,
                        GError           **error)
{
  g_auto (Operation) operation = { 0, };
  CUdeviceptr send = 0;

  CUGI_COMMUNICATOR_PRECONDITIONS (self, stream, error);

  if (!operation_begin (&operation, self, data_type, stream, error) ||
      !check_rank (&operation, peer, _("peer"), error) ||
      !operation_add_buffer (&operation, buffer, _("send buffer"), count, 1, &send, error))
    return FALSE;
  return operation_end (&operation,
                        cugi_nccl.ncclSend ((const void *) send, count, data_type, peer,
                                            cugi_communicator_get_handle (self),
                                            cugi_stream_get_handle (operation.target)),
                        "ncclSend", error);
}

/**
 * cugi_communicator_recv:
 * @self: a #CugiCommunicator
 * @buffer: where the @count elements go
 * @count: the number of elements
 * @data_type: their type
 * @peer: the rank that sends them, with cugi_communicator_send()
 * @stream: (nullable): the stream to enqueue on, or %NULL for the default
 *   stream
 * @error: return location for a #GError
 *
 * Enqueues receiving elements from another rank (`ncclRecv`).
 *
 * Returns: %TRUE if the receive was enqueued; else %FALSE with @error set
 *
 * Since: 0.1
 */
gboolean
cugi_communicator_recv (CugiCommunicator  *self,
                        CugiBuffer        *buffer,
                        gsize              count,
                        CugiDataType       data_type,
                        int                peer,
                        CugiStream        *stream,
                        GError           **error)
{
  g_auto (Operation) operation = { 0, };
  CUdeviceptr recv = 0;

  CUGI_COMMUNICATOR_PRECONDITIONS (self, stream, error);

  if (!operation_begin (&operation, self, data_type, stream, error) ||
      !check_rank (&operation, peer, _("peer"), error) ||
      !operation_add_buffer (&operation, buffer, _("receive buffer"), count, 1, &recv, error))
    return FALSE;
  return operation_end (&operation,
                        cugi_nccl.ncclRecv ((void *) recv, count, data_type, peer,
                                            cugi_communicator_get_handle (self),
                                            cugi_stream_get_handle (operation.target)),
                        "ncclRecv", error);
}

/* ---- memory --------------------------------------------------------------- */

static gboolean
enter_with_buffer (CugiCommunicator  *self,
                   CugiBuffer        *buffer,
                   CugiContextScope  *scope,
                   GError           **error)
{
  return cugi_communicator_check_ready (self, error) && check_buffer (self, buffer, error) &&
         cugi_context_enter (cugi_communicator_get_binding (self)->context, scope, error);
}

/**
 * cugi_communicator_register_buffer:
 * @self: a #CugiCommunicator
 * @buffer: a buffer that collectives of @self will use
 * @error: return location for a #GError
 *
 * Registers @buffer with the communicator (`ncclCommRegister`), so that
 * NCCL's transfers from and to it skip its internal copies where the
 * network or NVLink allows. The registration, and a reference on @buffer,
 * last until cugi_communicator_unregister_buffer() or until the
 * communicator is closed.
 *
 * Returns: %TRUE if registered; else %FALSE with @error set
 *   (%CUGI_ERROR_INVALID_ARGUMENT for a buffer registered already or of
 *   another context)
 *
 * Since: 0.1
 */
gboolean
cugi_communicator_register_buffer (CugiCommunicator  *self,
                                   CugiBuffer        *buffer,
                                   GError           **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  GHashTable *registrations;
  CUdeviceptr address = 0;
  void *handle = NULL;
  ncclResult_t result;

  g_return_val_if_fail (CUGI_IS_COMMUNICATOR (self), FALSE);
  g_return_val_if_fail (CUGI_IS_BUFFER (buffer), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  registrations = cugi_communicator_get_registrations (self);
  if (!enter_with_buffer (self, buffer, &scope, error) || !cugi_buffer_get_address (buffer, &address, error))
    return FALSE;
  if (g_hash_table_contains (registrations, buffer))
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("The buffer is registered with the communicator already"));
      return FALSE;
    }
  result = cugi_nccl.ncclCommRegister (cugi_communicator_get_handle (self), (void *) address,
                                       cugi_buffer_get_size (buffer), &handle);
  if (!cugi_communicator_finish_call (self, result, "ncclCommRegister", error))
    return FALSE;
  g_hash_table_insert (registrations, g_object_ref (buffer), handle);
  return TRUE;
}

/**
 * cugi_communicator_unregister_buffer:
 * @self: a #CugiCommunicator
 * @buffer: a buffer of cugi_communicator_register_buffer()
 * @error: return location for a #GError
 *
 * Ends the registration of @buffer (`ncclCommDeregister`).
 *
 * Returns: %TRUE if unregistered; else %FALSE with @error set
 *   (%CUGI_ERROR_INVALID_ARGUMENT for a buffer not registered)
 *
 * Since: 0.1
 */
gboolean
cugi_communicator_unregister_buffer (CugiCommunicator  *self,
                                     CugiBuffer        *buffer,
                                     GError           **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  GHashTable *registrations;
  gpointer handle = NULL;

  g_return_val_if_fail (CUGI_IS_COMMUNICATOR (self), FALSE);
  g_return_val_if_fail (CUGI_IS_BUFFER (buffer), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  registrations = cugi_communicator_get_registrations (self);
  if (!cugi_communicator_check_ready (self, error))
    return FALSE;
  if (!g_hash_table_lookup_extended (registrations, buffer, NULL, &handle))
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("The buffer is not registered with the communicator"));
      return FALSE;
    }
  if (!cugi_context_enter (cugi_communicator_get_binding (self)->context, &scope, error) ||
      !cugi_communicator_finish_call (self, cugi_nccl.ncclCommDeregister (cugi_communicator_get_handle (self),
                                                                          handle),
                                      "ncclCommDeregister", error))
    return FALSE;
  g_hash_table_remove (registrations, buffer);
  return TRUE;
}

static void
free_nccl_memory (gpointer address)
{
  cugi_nccl.ncclMemFree (address);
}

/**
 * cugi_communicator_alloc_buffer:
 * @self: a #CugiCommunicator
 * @size: the number of bytes
 * @error: return location for a #GError
 *
 * Allocates device memory as NCCL prefers it for its transfers
 * (`ncclMemAlloc`: memory that NVLink switches and the network can reach
 * directly), on this rank's device, as a #CugiBuffer of the communicator's
 * context. The memory goes back to NCCL (`ncclMemFree`) once the buffer is
 * freed or finalized.
 *
 * Returns: (transfer full): the buffer, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiBuffer *
cugi_communicator_alloc_buffer (CugiCommunicator  *self,
                                gsize              size,
                                GError           **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CugiContext *context;
  void *address = NULL;
  ncclResult_t result;

  g_return_val_if_fail (CUGI_IS_COMMUNICATOR (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  context = cugi_communicator_get_binding (self)->context;
  if (!cugi_communicator_check_ready (self, error) || !cugi_context_enter (context, &scope, error))
    return NULL;
  if (size == 0)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("A buffer of NCCL’s memory needs a size of at least one byte"));
      return NULL;
    }
  result = cugi_nccl.ncclMemAlloc (&address, size);
  if (result != ncclSuccess)
    {
      g_set_error (error, CUGI_ERROR, result == ncclSystemError ? CUGI_ERROR_OUT_OF_MEMORY : CUGI_ERROR_FAILED,
                   _("NCCL’s %s failed: %s"), "ncclMemAlloc", cugi_nccl.ncclGetErrorString (result));
      return NULL;
    }
  return cugi_buffer_new_holding (context, (CUdeviceptr) address, size, address, free_nccl_memory);
}
