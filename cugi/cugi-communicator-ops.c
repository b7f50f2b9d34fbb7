/* cugi-communicator-ops.c: the work enqueued on NCCL communicators:
 * collectives, sends and receives, groups of them, and the memory NCCL
 * registers or allocates for them */
#include "config.h"

#include <math.h>

#include <glib/gi18n-lib.h>

#include "cugi-buffer-private.h"
#include "cugi-communicator-private.h"
#include "cugi-stream-private.h"

G_STATIC_ASSERT (CUGI_DATA_TYPE_FLOAT8_E5M2 == 11);
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
    case CUGI_DATA_TYPE_FLOAT8_E4M3:
    case CUGI_DATA_TYPE_FLOAT8_E5M2:
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

static gboolean
is_float8 (CugiDataType data_type)
{
  return data_type == CUGI_DATA_TYPE_FLOAT8_E4M3 || data_type == CUGI_DATA_TYPE_FLOAT8_E5M2;
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
  gboolean          made_reduction;
  ncclRedOp_t       reduction;    /* a pre-multiplied sum made for it */
} Operation;

static void
operation_clear (Operation *op)
{
  /* NCCL reads an operator when the call that takes it is made: it may
   * go once that returned, in a group too. */
  if (op->made_reduction)
    cugi_communicator_finish_call (op->communicator,
                                   cugi_nccl.ncclRedOpDestroy (op->reduction,
                                                               cugi_communicator_get_handle (op->communicator)),
                                   "ncclRedOpDestroy", NULL);
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
  if (is_float8 (data_type) && cugi_loader_get_nccl_version () < CUGI_NCCL_VERSION_FLOAT8)
    {
      int version = cugi_loader_get_nccl_version ();

      g_set_error (error, CUGI_ERROR, CUGI_ERROR_NOT_SUPPORTED,
                   _("8-bit floats need NCCL 2.24 or later; this is NCCL %d.%d"),
                   version / 10000, version / 100 % 100);
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

/* @value (finite) in a binary float format of @exponent_bits and
 * @mantissa_bits (IEEE half, bfloat16), rounded to the nearest (even) as a
 * conversion on the device would; FALSE beyond its largest finite value,
 * whose code is @largest. */
static gboolean
encode_narrow_float (double   value,
                     int      exponent_bits,
                     int      mantissa_bits,
                     guint32  largest,
                     guint32 *code)
{
  int bias = (1 << (exponent_bits - 1)) - 1;
  guint32 sign = signbit (value) ? 1u << (exponent_bits + mantissa_bits) : 0;
  double magnitude = fabs (value);
  guint64 bits;
  int exponent;

  if (magnitude == 0)
    {
      *code = sign;
      return TRUE;
    }
  frexp (magnitude, &exponent);
  /* Subnormals have the smallest normal exponent, without the implicit
   * bit; counting the exponent field from one below lets the implicit bit
   * (and a mantissa rounded up past it) carry into it. */
  exponent = MAX (exponent - 1, 1 - bias);
  bits = ((guint64) (exponent + bias - 1) << mantissa_bits) +
         (guint64) nearbyint (ldexp (magnitude, mantissa_bits - exponent));
  if (bits > largest)
    return FALSE;
  *code = sign | (guint32) bits;
  return TRUE;
}

/* @factor as one element of @data_type, in @scalar, as NCCL reads the
 * factor of a pre-multiplied sum. */
static gboolean
encode_factor (double        factor,
               CugiDataType  data_type,
               guint8        scalar[8],
               GError      **error)
{
  gboolean fits = isfinite (factor);
  guint32 code = 0;

#define ENCODE_INTEGER(c_type, min, max)                              \
  G_STMT_START {                                                      \
    fits = fits && factor == nearbyint (factor) && factor >= (min) && \
           factor <= (max);                                           \
    if (fits)                                                         \
      {                                                               \
        c_type value = (c_type) factor;                               \
        memcpy (scalar, &value, sizeof value);                        \
      }                                                               \
  } G_STMT_END

  switch (data_type)
    {
    case CUGI_DATA_TYPE_INT8: ENCODE_INTEGER (gint8, G_MININT8, G_MAXINT8); break;
    case CUGI_DATA_TYPE_UINT8: ENCODE_INTEGER (guint8, 0, G_MAXUINT8); break;
    case CUGI_DATA_TYPE_INT32: ENCODE_INTEGER (gint32, G_MININT32, G_MAXINT32); break;
    case CUGI_DATA_TYPE_UINT32: ENCODE_INTEGER (guint32, 0, G_MAXUINT32); break;
    /* Doubles reach ±2^63 exactly, which int64 does not hold. */
    case CUGI_DATA_TYPE_INT64: ENCODE_INTEGER (gint64, -0x1p63, 0x1p63 - 1024); break;
    case CUGI_DATA_TYPE_UINT64: ENCODE_INTEGER (guint64, 0, 0x1p64 - 2048); break;
    case CUGI_DATA_TYPE_FLOAT32:
      {
        float value = (float) factor;

        fits = fits && isfinite (value);
        memcpy (scalar, &value, sizeof value);
        break;
      }
    case CUGI_DATA_TYPE_FLOAT64:
      memcpy (scalar, &factor, sizeof factor);
      break;
    case CUGI_DATA_TYPE_FLOAT16:
      fits = fits && encode_narrow_float (factor, 5, 10, 0x7bff, &code);
      break;
    case CUGI_DATA_TYPE_BFLOAT16:
      fits = fits && encode_narrow_float (factor, 8, 7, 0x7f7f, &code);
      break;
    default:
      g_assert_not_reached ();
    }
#undef ENCODE_INTEGER

  if (get_element_size (data_type) == 2)
    {
      guint16 value = code;

      memcpy (scalar, &value, sizeof value);
    }
  if (!fits)
    {
      g_autoptr(GEnumClass) types = g_type_class_ref (CUGI_TYPE_DATA_TYPE);

      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   /* Translators: %s is a data type: "float16", "int32", … */
                   _("The factor %g is not a value of the data type %s"), factor,
                   g_enum_get_value (types, data_type)->value_nick);
      return FALSE;
    }
  return TRUE;
}

/* The reduction of @op: @reduce_op, or, with @factor, a sum of each
 * rank's elements multiplied by it first, made for @op's communicator and
 * data type (`ncclRedOpCreatePreMulSum`) and destroyed with @op. */
static gboolean
operation_set_reduction (Operation     *op,
                         CugiReduceOp   reduce_op,
                         const double  *factor,
                         ncclRedOp_t   *reduction,
                         GError       **error)
{
  guint8 scalar[8] = { 0, };

  if (factor == NULL)
    {
      if ((int) reduce_op < CUGI_REDUCE_OP_SUM || reduce_op > CUGI_REDUCE_OP_AVG)
        {
          g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                       _("%d is not a reduction (a CugiReduceOp)"), (int) reduce_op);
          return FALSE;
        }
      *reduction = reduce_op;
      return TRUE;
    }
  /* NCCL 2.28 refuses them (ncclInvalidArgument), on an H200 too. */
  if (is_float8 (op->data_type))
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_NOT_SUPPORTED,
                           _("NCCL has no pre-multiplied sums of 8-bit floats: scale them in a kernel, or sum "
                             "them as 16-bit floats"));
      return FALSE;
    }
  if (!encode_factor (*factor, op->data_type, scalar, error) ||
      !cugi_communicator_finish_call (op->communicator,
                                      cugi_nccl.ncclRedOpCreatePreMulSum (&op->reduction, scalar, op->data_type,
                                                                          ncclScalarHostImmediate,
                                                                          cugi_communicator_get_handle (op->communicator)),
                                      "ncclRedOpCreatePreMulSum", error))
    return FALSE;
  op->made_reduction = TRUE;
  *reduction = op->reduction;
  return TRUE;
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
  if (!cugi_communicator_check_buffer (op->communicator, buffer, error))
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

/* ncclAllReduce and ncclReduceScatter take the same arguments: @count
 * elements go to each rank's receive buffer, from send buffers of
 * @send_factor × @count. */
typedef __typeof__ (ncclAllReduce) ReductionCall;

static gboolean
enqueue_reduction (CugiCommunicator  *self,
                   ReductionCall     *call,
                   const char        *call_name,
                   gsize              send_factor,
                   CugiBuffer        *send_buffer,
                   CugiBuffer        *recv_buffer,
                   gsize              count,
                   CugiDataType       data_type,
                   CugiReduceOp       op,
                   const double      *factor,
                   CugiStream        *stream,
                   GError           **error)
{
  g_auto (Operation) operation = { 0, };
  CUdeviceptr send = 0, recv = 0;
  ncclRedOp_t reduction;

  if (!operation_begin (&operation, self, data_type, stream, error) ||
      !operation_set_reduction (&operation, op, factor, &reduction, error) ||
      !operation_add_buffer (&operation, send_buffer, _("send buffer"), count, send_factor, &send, error) ||
      !operation_add_buffer (&operation, recv_buffer, _("receive buffer"), count, 1, &recv, error))
    return FALSE;
  return operation_end (&operation,
                        call ((const void *) send, (void *) recv, count, data_type, reduction,
                              cugi_communicator_get_handle (self), cugi_stream_get_handle (operation.target)),
                        call_name, error);
}

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
  CUGI_COMMUNICATOR_PRECONDITIONS (self, stream, error);

  return enqueue_reduction (self, cugi_nccl.ncclAllReduce, "ncclAllReduce", 1, send_buffer, recv_buffer, count,
                            data_type, op, NULL, stream, error);
}

/**
 * cugi_communicator_all_reduce_scaled:
 * @self: a #CugiCommunicator
 * @send_buffer: this rank's @count elements
 * @recv_buffer: where the sum goes, on every rank; may be @send_buffer
 * @count: the number of elements
 * @data_type: their type
 * @factor: what this rank's elements are multiplied by before the sum,
 *   as an element of @data_type (an integer for the integer types)
 * @stream: (nullable): the stream to enqueue on, or %NULL for the default
 *   stream
 * @error: return location for a #GError
 *
 * Enqueues an all-reduce of a pre-multiplied sum (NCCL's
 * `ncclRedOpCreatePreMulSum`): element i of @recv_buffer becomes the sum
 * over the ranks of @factor × element i of their @send_buffer, each rank
 * with a factor of its own. With 1/n on every one of n ranks it is the
 * mean, as %CUGI_REDUCE_OP_AVG, but scaled before the sum, so that
 * half-precision gradients do not overflow on the way.
 *
 * Returns: %TRUE if the all-reduce was enqueued; else %FALSE with @error
 *   set (%CUGI_ERROR_INVALID_ARGUMENT for a factor that @data_type cannot
 *   hold, %CUGI_ERROR_NOT_SUPPORTED for 8-bit floats, which NCCL does not
 *   pre-multiply)
 *
 * Since: 0.1
 */
gboolean
cugi_communicator_all_reduce_scaled (CugiCommunicator  *self,
                                     CugiBuffer        *send_buffer,
                                     CugiBuffer        *recv_buffer,
                                     gsize              count,
                                     CugiDataType       data_type,
                                     double             factor,
                                     CugiStream        *stream,
                                     GError           **error)
{
  CUGI_COMMUNICATOR_PRECONDITIONS (self, stream, error);

  return enqueue_reduction (self, cugi_nccl.ncclAllReduce, "ncclAllReduce", 1, send_buffer, recv_buffer, count,
                            data_type, CUGI_REDUCE_OP_SUM, &factor, stream, error);
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
  ncclRedOp_t reduction;

  CUGI_COMMUNICATOR_PRECONDITIONS (self, stream, error);

  if (!operation_begin (&operation, self, data_type, stream, error) ||
      !operation_set_reduction (&operation, op, NULL, &reduction, error) ||
      !check_rank (&operation, root, _("root"), error) ||
      !operation_add_buffer (&operation, send_buffer, _("send buffer"), count, 1, &send, error) ||
      ((recv_buffer != NULL || root == cugi_communicator_get_rank (self)) &&
       !operation_add_buffer (&operation, recv_buffer, _("receive buffer"), count, 1, &recv, error)))
    return FALSE;
  return operation_end (&operation,
                        cugi_nccl.ncclReduce ((const void *) send, (void *) recv, count, data_type, reduction, root,
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
  CUGI_COMMUNICATOR_PRECONDITIONS (self, stream, error);

  return enqueue_reduction (self, cugi_nccl.ncclReduceScatter, "ncclReduceScatter",
                            cugi_communicator_get_n_ranks (self), send_buffer, recv_buffer, recv_count, data_type,
                            op, NULL, stream, error);
}

/**
 * cugi_communicator_reduce_scatter_scaled:
 * @self: a #CugiCommunicator
 * @send_buffer: this rank's elements: @recv_count × the number of ranks
 * @recv_buffer: where this rank's part of the sum goes: @recv_count
 *   elements
 * @recv_count: the number of elements each rank receives
 * @data_type: their type
 * @factor: what this rank's elements are multiplied by before the sum
 * @stream: (nullable): the stream to enqueue on, or %NULL for the default
 *   stream
 * @error: return location for a #GError
 *
 * Enqueues a reduce-scatter of a pre-multiplied sum: as
 * cugi_communicator_reduce_scatter() with %CUGI_REDUCE_OP_SUM, each
 * rank's elements multiplied by its @factor first, as in
 * cugi_communicator_all_reduce_scaled().
 *
 * Returns: %TRUE if the reduce-scatter was enqueued; else %FALSE with
 *   @error set
 *
 * Since: 0.1
 */
gboolean
cugi_communicator_reduce_scatter_scaled (CugiCommunicator  *self,
                                         CugiBuffer        *send_buffer,
                                         CugiBuffer        *recv_buffer,
                                         gsize              recv_count,
                                         CugiDataType       data_type,
                                         double             factor,
                                         CugiStream        *stream,
                                         GError           **error)
{
  CUGI_COMMUNICATOR_PRECONDITIONS (self, stream, error);

  return enqueue_reduction (self, cugi_nccl.ncclReduceScatter, "ncclReduceScatter",
                            cugi_communicator_get_n_ranks (self), send_buffer, recv_buffer, recv_count, data_type,
                            CUGI_REDUCE_OP_SUM, &factor, stream, error);
}

/* ---- exchanges ------------------------------------------------------------- */

typedef enum
{
  EXCHANGE_ALL_TO_ALL,
  EXCHANGE_GATHER,
  EXCHANGE_SCATTER,
} Exchange;

/* An all-to-all, a gather or a scatter as the sends and receives it is
 * made of, in a group of their own, where NCCL lacks the call (before
 * 2.28): rank r's part of a buffer that holds every rank's is at element
 * r × @count. */
static ncclResult_t
exchange_pairwise (Operation   *op,
                   Exchange     exchange,
                   CUdeviceptr  send,
                   CUdeviceptr  recv,
                   gsize        count,
                   int          root)
{
  ncclComm_t comm = cugi_communicator_get_handle (op->communicator);
  CUstream stream = cugi_stream_get_handle (op->target);
  int me = cugi_communicator_get_rank (op->communicator);
  gsize part = count * op->element_size;
  ncclResult_t result = cugi_nccl.ncclGroupStart (), end;

  if (result != ncclSuccess)
    return result;
  for (int peer = 0; peer < cugi_communicator_get_n_ranks (op->communicator) && result == ncclSuccess; peer++)
    {
      gboolean sends = exchange == EXCHANGE_ALL_TO_ALL ||
                       (exchange == EXCHANGE_GATHER ? peer == root : me == root);
      gboolean receives = exchange == EXCHANGE_ALL_TO_ALL ||
                          (exchange == EXCHANGE_GATHER ? me == root : peer == root);
      CUdeviceptr from = exchange == EXCHANGE_GATHER ? send : send + peer * part;
      CUdeviceptr to = exchange == EXCHANGE_SCATTER ? recv : recv + peer * part;

      if (sends)
        result = cugi_nccl.ncclSend ((const void *) from, count, op->data_type, peer, comm, stream);
      if (receives && result == ncclSuccess)
        result = cugi_nccl.ncclRecv ((void *) to, count, op->data_type, peer, comm, stream);
    }
  end = cugi_nccl.ncclGroupEnd ();
  return result != ncclSuccess ? result : end;
}

/* Checks the buffers of @exchange, then enqueues it, as NCCL's own call
 * where there is one. The buffer of every rank's parts holds @count × the
 * number of ranks; on a gather's or a scatter's other ranks it is unused,
 * and may be NULL. */
static gboolean
enqueue_exchange (CugiCommunicator  *self,
                  Exchange           exchange,
                  CugiBuffer        *send_buffer,
                  CugiBuffer        *recv_buffer,
                  gsize              count,
                  CugiDataType       data_type,
                  int                root,
                  CugiStream        *stream,
                  GError           **error)
{
  static const char *const calls[] = { "ncclAlltoAll", "ncclGather", "ncclScatter" };
  g_auto (Operation) operation = { 0, };
  CUdeviceptr send = 0, recv = 0;
  gsize n_ranks = cugi_communicator_get_n_ranks (self);
  gboolean is_root = root == cugi_communicator_get_rank (self);
  gsize send_parts = exchange == EXCHANGE_GATHER ? 1 : n_ranks;
  gsize recv_parts = exchange == EXCHANGE_SCATTER ? 1 : n_ranks;
  gboolean needs_send = exchange != EXCHANGE_SCATTER || is_root || send_buffer != NULL;
  gboolean needs_recv = exchange != EXCHANGE_GATHER || is_root || recv_buffer != NULL;
  ncclComm_t comm = cugi_communicator_get_handle (self);
  __typeof__ (ncclGather) *rooted;
  ncclResult_t result;

  if (!operation_begin (&operation, self, data_type, stream, error) ||
      (exchange != EXCHANGE_ALL_TO_ALL && !check_rank (&operation, root, _("root"), error)) ||
      (needs_send &&
       !operation_add_buffer (&operation, send_buffer, _("send buffer"), count, send_parts, &send, error)) ||
      (needs_recv &&
       !operation_add_buffer (&operation, recv_buffer, _("receive buffer"), count, recv_parts, &recv, error)))
    return FALSE;

  /* ncclGather and ncclScatter take the same arguments. */
  rooted = exchange == EXCHANGE_GATHER ? cugi_nccl.ncclGather : cugi_nccl.ncclScatter;
  if (exchange == EXCHANGE_ALL_TO_ALL && cugi_nccl.ncclAlltoAll != NULL)
    result = cugi_nccl.ncclAlltoAll ((const void *) send, (void *) recv, count, data_type, comm,
                                     cugi_stream_get_handle (operation.target));
  else if (exchange != EXCHANGE_ALL_TO_ALL && rooted != NULL)
    result = rooted ((const void *) send, (void *) recv, count, data_type, root, comm,
                     cugi_stream_get_handle (operation.target));
  else
    result = exchange_pairwise (&operation, exchange, send, recv, count, root);
  return operation_end (&operation, result, calls[exchange], error);
}

/**
 * cugi_communicator_all_to_all:
 * @self: a #CugiCommunicator
 * @send_buffer: this rank's elements for every rank, rank after rank:
 *   @count × the number of ranks of them
 * @recv_buffer: where every rank's elements for this rank go, rank after
 *   rank: @count × the number of ranks
 * @count: the number of elements each rank sends to each rank
 * @data_type: their type
 * @stream: (nullable): the stream to enqueue on, or %NULL for the default
 *   stream
 * @error: return location for a #GError
 *
 * Enqueues an all-to-all: the @count elements at element j × @count of
 * rank i's @send_buffer land at element i × @count of rank j's
 * @recv_buffer. With NCCL 2.28 or later this is `ncclAlltoAll`; before,
 * a send to and a receive from every rank in a group.
 *
 * Returns: %TRUE if the all-to-all was enqueued; else %FALSE with @error
 *   set
 *
 * Since: 0.1
 */
gboolean
cugi_communicator_all_to_all (CugiCommunicator  *self,
                              CugiBuffer        *send_buffer,
                              CugiBuffer        *recv_buffer,
                              gsize              count,
                              CugiDataType       data_type,
                              CugiStream        *stream,
                              GError           **error)
{
  CUGI_COMMUNICATOR_PRECONDITIONS (self, stream, error);

  return enqueue_exchange (self, EXCHANGE_ALL_TO_ALL, send_buffer, recv_buffer, count, data_type, 0, stream,
                           error);
}

/**
 * cugi_communicator_gather:
 * @self: a #CugiCommunicator
 * @send_buffer: this rank's @count elements
 * @recv_buffer: (nullable): on @root, where every rank's elements go, rank
 *   after rank: @count × the number of ranks; on the other ranks unused,
 *   and may be %NULL
 * @count: the number of elements each rank sends
 * @data_type: their type
 * @root: the rank that receives
 * @stream: (nullable): the stream to enqueue on, or %NULL for the default
 *   stream
 * @error: return location for a #GError
 *
 * Enqueues a gather to @root: rank r's elements land at element
 * r × @count of @root's @recv_buffer (`ncclGather` with NCCL 2.28 or
 * later; before, sends to @root in a group).
 *
 * Returns: %TRUE if the gather was enqueued; else %FALSE with @error set
 *
 * Since: 0.1
 */
gboolean
cugi_communicator_gather (CugiCommunicator  *self,
                          CugiBuffer        *send_buffer,
                          CugiBuffer        *recv_buffer,
                          gsize              count,
                          CugiDataType       data_type,
                          int                root,
                          CugiStream        *stream,
                          GError           **error)
{
  CUGI_COMMUNICATOR_PRECONDITIONS (self, stream, error);

  return enqueue_exchange (self, EXCHANGE_GATHER, send_buffer, recv_buffer, count, data_type, root, stream,
                           error);
}

/**
 * cugi_communicator_scatter:
 * @self: a #CugiCommunicator
 * @send_buffer: (nullable): on @root, the elements for every rank, rank
 *   after rank: @count × the number of ranks; on the other ranks unused,
 *   and may be %NULL
 * @recv_buffer: where this rank's @count elements go
 * @count: the number of elements each rank receives
 * @data_type: their type
 * @root: the rank that sends
 * @stream: (nullable): the stream to enqueue on, or %NULL for the default
 *   stream
 * @error: return location for a #GError
 *
 * Enqueues a scatter from @root: the elements at element r × @count of
 * @root's @send_buffer land in rank r's @recv_buffer (`ncclScatter` with
 * NCCL 2.28 or later; before, sends from @root in a group).
 *
 * Returns: %TRUE if the scatter was enqueued; else %FALSE with @error set
 *
 * Since: 0.1
 */
gboolean
cugi_communicator_scatter (CugiCommunicator  *self,
                           CugiBuffer        *send_buffer,
                           CugiBuffer        *recv_buffer,
                           gsize              count,
                           CugiDataType       data_type,
                           int                root,
                           CugiStream        *stream,
                           GError           **error)
{
  CUGI_COMMUNICATOR_PRECONDITIONS (self, stream, error);

  return enqueue_exchange (self, EXCHANGE_SCATTER, send_buffer, recv_buffer, count, data_type, root, stream,
                           error);
}

/* ---- sends and receives ------------------------------------------------------ */

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
