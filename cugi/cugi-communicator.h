/* cugi-communicator.h: NCCL communicators: collectives and point-to-point
 * transfers between the GPUs of one or many processes, in stream order */
#pragma once

#if !defined(__CUGI_INSIDE__) && !defined(CUGI_COMPILATION)
#error "Only <cugi/cugi.h> can be included directly."
#endif

#include <gio/gio.h>
#include "cugi-version.h"
#include "cugi-types.h"

G_BEGIN_DECLS

/**
 * CugiDataType:
 * @CUGI_DATA_TYPE_INT8: signed 8-bit integers
 * @CUGI_DATA_TYPE_UINT8: unsigned 8-bit integers
 * @CUGI_DATA_TYPE_INT32: signed 32-bit integers
 * @CUGI_DATA_TYPE_UINT32: unsigned 32-bit integers
 * @CUGI_DATA_TYPE_INT64: signed 64-bit integers
 * @CUGI_DATA_TYPE_UINT64: unsigned 64-bit integers
 * @CUGI_DATA_TYPE_FLOAT16: IEEE half-precision floats
 * @CUGI_DATA_TYPE_FLOAT32: single-precision floats
 * @CUGI_DATA_TYPE_FLOAT64: double-precision floats
 * @CUGI_DATA_TYPE_BFLOAT16: bfloat16 floats
 * @CUGI_DATA_TYPE_FLOAT8_E4M3: 8-bit floats with a 4-bit exponent and a
 *   3-bit mantissa (no infinities; from NCCL 2.24 on, and reduced on
 *   devices of compute capability 9.0 or later).
 * @CUGI_DATA_TYPE_FLOAT8_E5M2: 8-bit floats with a 5-bit exponent and a
 *   2-bit mantissa (as @CUGI_DATA_TYPE_FLOAT8_E4M3).
 *
 * The type of the elements a #CugiCommunicator transfers and reduces, as
 * NCCL's `ncclDataType_t`: counts are in elements of this type, and the
 * buffers' sizes are checked against them.
 *
 * Since: 0.1
 */
typedef enum
{
  CUGI_DATA_TYPE_INT8 = 0,
  CUGI_DATA_TYPE_UINT8 = 1,
  CUGI_DATA_TYPE_INT32 = 2,
  CUGI_DATA_TYPE_UINT32 = 3,
  CUGI_DATA_TYPE_INT64 = 4,
  CUGI_DATA_TYPE_UINT64 = 5,
  CUGI_DATA_TYPE_FLOAT16 = 6,
  CUGI_DATA_TYPE_FLOAT32 = 7,
  CUGI_DATA_TYPE_FLOAT64 = 8,
  CUGI_DATA_TYPE_BFLOAT16 = 9,
  CUGI_DATA_TYPE_FLOAT8_E4M3 = 10,
  CUGI_DATA_TYPE_FLOAT8_E5M2 = 11,
} CugiDataType;

/**
 * CugiReduceOp:
 * @CUGI_REDUCE_OP_SUM: the sum
 * @CUGI_REDUCE_OP_PROD: the product
 * @CUGI_REDUCE_OP_MAX: the maximum
 * @CUGI_REDUCE_OP_MIN: the minimum
 * @CUGI_REDUCE_OP_AVG: the mean over the ranks (the sum divided by their
 *   number)
 *
 * How a reduction combines the elements of the ranks, as NCCL's
 * `ncclRedOp_t`.
 *
 * Since: 0.1
 */
typedef enum
{
  CUGI_REDUCE_OP_SUM = 0,
  CUGI_REDUCE_OP_PROD = 1,
  CUGI_REDUCE_OP_MAX = 2,
  CUGI_REDUCE_OP_MIN = 3,
  CUGI_REDUCE_OP_AVG = 4,
} CugiReduceOp;

/**
 * CugiCommunicatorState:
 * @CUGI_COMMUNICATOR_STATE_NEW: made with g_object_new() and not
 *   initialized yet, or connecting
 * @CUGI_COMMUNICATOR_STATE_READY: connected: it takes work
 * @CUGI_COMMUNICATOR_STATE_FAILED: NCCL reported a failure (a peer failed
 *   or left): it can only be aborted or dropped
 * @CUGI_COMMUNICATOR_STATE_CLOSED: closed by cugi_communicator_close()
 * @CUGI_COMMUNICATOR_STATE_ABORTED: aborted, by cugi_communicator_abort()
 *   or after a connection that failed or was cancelled
 *
 * Where a #CugiCommunicator is (#CugiCommunicator:state).
 *
 * Since: 0.1
 */
typedef enum
{
  CUGI_COMMUNICATOR_STATE_NEW,
  CUGI_COMMUNICATOR_STATE_READY,
  CUGI_COMMUNICATOR_STATE_FAILED,
  CUGI_COMMUNICATOR_STATE_CLOSED,
  CUGI_COMMUNICATOR_STATE_ABORTED,
} CugiCommunicatorState;

/**
 * CUGI_COMMUNICATOR_NO_COLOR:
 *
 * The color that leaves a rank out of the communicators
 * cugi_communicator_split() makes.
 *
 * Since: 0.1
 */
#define CUGI_COMMUNICATOR_NO_COLOR (-1)

#define CUGI_TYPE_COMMUNICATOR (cugi_communicator_get_type ())
CUGI_AVAILABLE_IN_0_1
G_DECLARE_FINAL_TYPE (CugiCommunicator, cugi_communicator, CUGI, COMMUNICATOR, GObject)

CUGI_AVAILABLE_IN_0_1
GBytes           *cugi_communicator_new_unique_id        (GError **error);
CUGI_AVAILABLE_IN_0_1
char             *cugi_communicator_unique_id_to_string  (GBytes      *unique_id,
                                                          GError     **error);
CUGI_AVAILABLE_IN_0_1
GBytes           *cugi_communicator_unique_id_from_string (const char *text,
                                                           GError    **error);

CUGI_AVAILABLE_IN_0_1
CugiCommunicator *cugi_communicator_new                  (CugiContext         *context,
                                                          GBytes              *unique_id,
                                                          int                  n_ranks,
                                                          int                  rank,
                                                          GCancellable        *cancellable,
                                                          GError             **error);
CUGI_AVAILABLE_IN_0_1
void              cugi_communicator_new_async            (CugiContext         *context,
                                                          GBytes              *unique_id,
                                                          int                  n_ranks,
                                                          int                  rank,
                                                          GCancellable        *cancellable,
                                                          GAsyncReadyCallback  callback,
                                                          gpointer             user_data);
CUGI_AVAILABLE_IN_0_1
CugiCommunicator *cugi_communicator_new_finish           (GAsyncResult        *result,
                                                          GError             **error);

CUGI_AVAILABLE_IN_0_1
CugiCommunicator *cugi_communicator_split                (CugiCommunicator    *self,
                                                          int                  color,
                                                          int                  key,
                                                          GError             **error);

CUGI_AVAILABLE_IN_0_1
gboolean     cugi_communicator_all_reduce     (CugiCommunicator *self,
                                               CugiBuffer       *send_buffer,
                                               CugiBuffer       *recv_buffer,
                                               gsize             count,
                                               CugiDataType      data_type,
                                               CugiReduceOp      op,
                                               CugiStream       *stream,
                                               GError          **error);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_communicator_broadcast      (CugiCommunicator *self,
                                               CugiBuffer       *send_buffer,
                                               CugiBuffer       *recv_buffer,
                                               gsize             count,
                                               CugiDataType      data_type,
                                               int               root,
                                               CugiStream       *stream,
                                               GError          **error);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_communicator_reduce         (CugiCommunicator *self,
                                               CugiBuffer       *send_buffer,
                                               CugiBuffer       *recv_buffer,
                                               gsize             count,
                                               CugiDataType      data_type,
                                               CugiReduceOp      op,
                                               int               root,
                                               CugiStream       *stream,
                                               GError          **error);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_communicator_all_gather     (CugiCommunicator *self,
                                               CugiBuffer       *send_buffer,
                                               CugiBuffer       *recv_buffer,
                                               gsize             send_count,
                                               CugiDataType      data_type,
                                               CugiStream       *stream,
                                               GError          **error);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_communicator_reduce_scatter (CugiCommunicator *self,
                                               CugiBuffer       *send_buffer,
                                               CugiBuffer       *recv_buffer,
                                               gsize             recv_count,
                                               CugiDataType      data_type,
                                               CugiReduceOp      op,
                                               CugiStream       *stream,
                                               GError          **error);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_communicator_all_reduce_scaled     (CugiCommunicator *self,
                                                      CugiBuffer       *send_buffer,
                                                      CugiBuffer       *recv_buffer,
                                                      gsize             count,
                                                      CugiDataType      data_type,
                                                      double            factor,
                                                      CugiStream       *stream,
                                                      GError          **error);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_communicator_reduce_scatter_scaled (CugiCommunicator *self,
                                                      CugiBuffer       *send_buffer,
                                                      CugiBuffer       *recv_buffer,
                                                      gsize             recv_count,
                                                      CugiDataType      data_type,
                                                      double            factor,
                                                      CugiStream       *stream,
                                                      GError          **error);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_communicator_all_to_all     (CugiCommunicator *self,
                                               CugiBuffer       *send_buffer,
                                               CugiBuffer       *recv_buffer,
                                               gsize             count,
                                               CugiDataType      data_type,
                                               CugiStream       *stream,
                                               GError          **error);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_communicator_gather         (CugiCommunicator *self,
                                               CugiBuffer       *send_buffer,
                                               CugiBuffer       *recv_buffer,
                                               gsize             count,
                                               CugiDataType      data_type,
                                               int               root,
                                               CugiStream       *stream,
                                               GError          **error);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_communicator_scatter        (CugiCommunicator *self,
                                               CugiBuffer       *send_buffer,
                                               CugiBuffer       *recv_buffer,
                                               gsize             count,
                                               CugiDataType      data_type,
                                               int               root,
                                               CugiStream       *stream,
                                               GError          **error);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_communicator_send           (CugiCommunicator *self,
                                               CugiBuffer       *buffer,
                                               gsize             count,
                                               CugiDataType      data_type,
                                               int               peer,
                                               CugiStream       *stream,
                                               GError          **error);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_communicator_recv           (CugiCommunicator *self,
                                               CugiBuffer       *buffer,
                                               gsize             count,
                                               CugiDataType      data_type,
                                               int               peer,
                                               CugiStream       *stream,
                                               GError          **error);

CUGI_AVAILABLE_IN_0_1
gboolean     cugi_communicator_group_start    (GError          **error);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_communicator_group_end      (GError          **error);

CUGI_AVAILABLE_IN_0_1
gboolean     cugi_communicator_register_buffer   (CugiCommunicator *self,
                                                  CugiBuffer       *buffer,
                                                  GError          **error);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_communicator_unregister_buffer (CugiCommunicator *self,
                                                  CugiBuffer       *buffer,
                                                  GError          **error);
CUGI_AVAILABLE_IN_0_1
CugiBuffer  *cugi_communicator_alloc_buffer      (CugiCommunicator *self,
                                                  gsize             size,
                                                  GError          **error);

CUGI_AVAILABLE_IN_0_1
gboolean     cugi_communicator_check          (CugiCommunicator *self,
                                               GError          **error);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_communicator_close          (CugiCommunicator *self,
                                               GCancellable     *cancellable,
                                               GError          **error);
CUGI_AVAILABLE_IN_0_1
void         cugi_communicator_close_async    (CugiCommunicator    *self,
                                               GCancellable        *cancellable,
                                               GAsyncReadyCallback  callback,
                                               gpointer             user_data);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_communicator_close_finish   (CugiCommunicator    *self,
                                               GAsyncResult        *result,
                                               GError             **error);
CUGI_AVAILABLE_IN_0_1
void         cugi_communicator_abort          (CugiCommunicator *self);

CUGI_AVAILABLE_IN_0_1
CugiContext *cugi_communicator_get_context    (CugiCommunicator *self);
CUGI_AVAILABLE_IN_0_1
int          cugi_communicator_get_rank       (CugiCommunicator *self);
CUGI_AVAILABLE_IN_0_1
int          cugi_communicator_get_n_ranks    (CugiCommunicator *self);
CUGI_AVAILABLE_IN_0_1
CugiCommunicatorState cugi_communicator_get_state (CugiCommunicator *self);

G_END_DECLS
