/* test-communicator.c: one rank of an NCCL communicator on a GPU, with the
 * real NCCL: connecting in the main loop, every collective against a CPU
 * reference, pre-multiplied sums in every float type, a send to itself, a split, NCCL's memory and registrations,
 * closing. Several ranks need several GPUs (test-multi-gpu and the
 * examples); the logic of many ranks runs in test-communicator-logic. */
#include "config.h"

#include <string.h>

#include "cugi-test-utils.h"

#define COUNT (1u << 20)

static CugiCommunicator *comm;
static CugiStream *stream;

static CugiBuffer *
float_buffer (float scale)
{
  g_autofree float *values = g_new (float, COUNT);
  g_autoptr(GBytes) bytes = NULL;

  for (guint i = 0; i < COUNT; i++)
    values[i] = scale * (float) (i % 1000);
  bytes = g_bytes_new_take (g_steal_pointer (&values), COUNT * sizeof (float));
  return cugi_test_buffer_new_with (bytes);
}

/* @buffer holds @count floats from element @first of float_buffer (@scale)
 * times @factor. */
static void
assert_floats (CugiBuffer *buffer,
               gsize       count,
               gsize       first,
               float       scale,
               float       factor)
{
  g_autoptr(GBytes) bytes = NULL;
  const float *values;

  cugi_test_synchronize (stream);
  bytes = cugi_test_download (buffer, 0, count * sizeof (float));
  values = g_bytes_get_data (bytes, NULL);
  for (gsize i = 0; i < count; i++)
    if (values[i] != factor * scale * (float) ((first + i) % 1000))
      g_error ("element %zu is %g, not %g", i, values[i], factor * scale * (float) ((first + i) % 1000));
}

static void
test_connect (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) id = cugi_communicator_new_unique_id (&error);
  g_autoptr(GAsyncResult) result = NULL;
  g_autofree char *text = NULL;

  g_assert_no_error (error);
  text = cugi_communicator_unique_id_to_string (id, &error);
  g_assert_no_error (error);
  g_clear_pointer (&id, g_bytes_unref);
  id = cugi_communicator_unique_id_from_string (text, &error);
  g_assert_no_error (error);
  cugi_communicator_new_async (cugi_test_default_context (), id, 1, 0, NULL, cugi_test_store_result, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  comm = cugi_communicator_new_finish (result, &error);
  g_assert_no_error (error);
  g_assert_cmpint (cugi_communicator_get_state (comm), ==, CUGI_COMMUNICATOR_STATE_READY);
  g_assert_true (cugi_communicator_check (comm, &error));
  g_assert_no_error (error);
  stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
}

static void
test_collectives (void)
{
  g_autoptr(CugiBuffer) send = float_buffer (0.5f);
  g_autoptr(CugiBuffer) recv = cugi_test_buffer_new (COUNT * sizeof (float));
  g_autoptr(GError) error = NULL;

  g_assert_true (cugi_communicator_all_reduce (comm, send, recv, COUNT, CUGI_DATA_TYPE_FLOAT32,
                                               CUGI_REDUCE_OP_SUM, stream, &error));
  g_assert_no_error (error);
  assert_floats (recv, COUNT, 0, 0.5f, 1.0f);
  g_assert_true (cugi_communicator_broadcast (comm, send, recv, COUNT / 2, CUGI_DATA_TYPE_FLOAT32, 0, stream,
                                              &error));
  g_assert_no_error (error);
  assert_floats (recv, COUNT / 2, 0, 0.5f, 1.0f);
  g_assert_true (cugi_communicator_reduce (comm, send, recv, COUNT, CUGI_DATA_TYPE_FLOAT32, CUGI_REDUCE_OP_MAX,
                                           0, stream, &error));
  g_assert_no_error (error);
  assert_floats (recv, COUNT, 0, 0.5f, 1.0f);
  g_assert_true (cugi_communicator_all_gather (comm, send, recv, COUNT, CUGI_DATA_TYPE_FLOAT32, stream, &error));
  g_assert_no_error (error);
  assert_floats (recv, COUNT, 0, 0.5f, 1.0f);
  g_assert_true (cugi_communicator_reduce_scatter (comm, send, recv, COUNT, CUGI_DATA_TYPE_FLOAT32,
                                                   CUGI_REDUCE_OP_AVG, stream, &error));
  g_assert_no_error (error);
  assert_floats (recv, COUNT, 0, 0.5f, 1.0f);

  /* In place. */
  g_assert_true (cugi_communicator_all_reduce (comm, send, send, COUNT, CUGI_DATA_TYPE_FLOAT32,
                                               CUGI_REDUCE_OP_PROD, stream, &error));
  g_assert_no_error (error);
  assert_floats (send, COUNT, 0, 0.5f, 1.0f);

  /* Bad input leaves it usable. */
  cugi_test_assert_fails (cugi_communicator_all_gather (comm, send, recv, COUNT + 1, CUGI_DATA_TYPE_FLOAT32,
                                                        stream, &error),
                          &error, CUGI_ERROR_INVALID_ARGUMENT, "too few");
  g_assert_true (cugi_communicator_check (comm, &error));
  g_assert_no_error (error);
}

/* One rank's all-to-all, gather and scatter are copies; a pre-multiplied
 * sum is its factor times the elements, in the 16-bit float types too, as
 * NCCL reads the factor cugi encoded for it; NCCL takes 8-bit floats. */
static void
test_exchanges_and_scaled (void)
{
  g_autoptr(CugiBuffer) send = float_buffer (0.5f);
  g_autoptr(CugiBuffer) recv = cugi_test_buffer_new (COUNT * sizeof (float));
  g_autoptr(GError) error = NULL;
  const struct { CugiDataType type; double factor; guint16 one, expected; gsize size; } narrow[] = {
    { CUGI_DATA_TYPE_FLOAT16, 0.1, 0x3c00, 0x2e66, 2 },
    { CUGI_DATA_TYPE_BFLOAT16, 0.1, 0x3f80, 0x3dcd, 2 },
  };
  const guint8 e4m3_ones[4] = { 0x38, 0x38, 0x38, 0x38 };

  g_assert_true (cugi_communicator_all_to_all (comm, send, recv, COUNT, CUGI_DATA_TYPE_FLOAT32, stream, &error));
  g_assert_no_error (error);
  assert_floats (recv, COUNT, 0, 0.5f, 1.0f);
  g_assert_true (cugi_communicator_gather (comm, send, recv, COUNT / 2, CUGI_DATA_TYPE_FLOAT32, 0, stream,
                                           &error));
  g_assert_no_error (error);
  assert_floats (recv, COUNT / 2, 0, 0.5f, 1.0f);
  g_assert_true (cugi_communicator_scatter (comm, send, recv, COUNT, CUGI_DATA_TYPE_FLOAT32, 0, stream, &error));
  g_assert_no_error (error);
  assert_floats (recv, COUNT, 0, 0.5f, 1.0f);

  g_assert_true (cugi_communicator_all_reduce_scaled (comm, send, recv, COUNT, CUGI_DATA_TYPE_FLOAT32, 0.25,
                                                      stream, &error));
  g_assert_no_error (error);
  assert_floats (recv, COUNT, 0, 0.5f, 0.25f);
  g_assert_true (cugi_communicator_reduce_scatter_scaled (comm, send, recv, COUNT, CUGI_DATA_TYPE_FLOAT32, 3,
                                                          stream, &error));
  g_assert_no_error (error);
  assert_floats (recv, COUNT, 0, 0.5f, 3.0f);

  /* 1.0 in E4M3, summed over the one rank. */
  {
    g_autoptr(GBytes) ones = g_bytes_new (e4m3_ones, sizeof e4m3_ones);
    g_autoptr(CugiBuffer) values = cugi_test_buffer_new_with (ones);
    g_autoptr(CugiBuffer) sums = cugi_test_buffer_new (sizeof e4m3_ones);
    g_autoptr(GBytes) result = NULL;

    g_assert_true (cugi_communicator_all_reduce (comm, values, sums, sizeof e4m3_ones, CUGI_DATA_TYPE_FLOAT8_E4M3,
                                                 CUGI_REDUCE_OP_SUM, stream, &error));
    g_assert_no_error (error);
    cugi_test_synchronize (stream);
    result = cugi_test_download_all (sums);
    cugi_test_assert_bytes_equal (result, ones);
  }

  for (gsize t = 0; t < G_N_ELEMENTS (narrow); t++)
    {
      g_autofree guint8 *ones = g_malloc (1024 * narrow[t].size);
      g_autoptr(GBytes) bytes = NULL;
      g_autoptr(CugiBuffer) values = NULL;
      const guint8 *result;

      g_test_message ("data type %d", narrow[t].type);
      for (gsize i = 0; i < 1024; i++)
        memcpy (ones + i * narrow[t].size, &narrow[t].one, narrow[t].size);
      bytes = g_bytes_new (ones, 1024 * narrow[t].size);
      values = cugi_test_buffer_new_with (bytes);
      /* The error first, so that a failure says which. */
      cugi_communicator_all_reduce_scaled (comm, values, values, 1024, narrow[t].type, narrow[t].factor, stream,
                                           &error);
      g_assert_no_error (error);
      cugi_test_synchronize (stream);
      g_clear_pointer (&bytes, g_bytes_unref);
      bytes = cugi_test_download_all (values);
      result = g_bytes_get_data (bytes, NULL);
      for (gsize i = 0; i < 1024; i++)
        {
          guint16 code = 0;

          memcpy (&code, result + i * narrow[t].size, narrow[t].size);
          if (code != narrow[t].expected)
            g_error ("type %d: element %zu is 0x%x, not 0x%x", narrow[t].type, i, code, narrow[t].expected);
        }
    }
}

/* A send to itself and its receive, in one group. */
static void
test_send_to_self (void)
{
  g_autoptr(CugiBuffer) send = float_buffer (2.0f);
  g_autoptr(CugiBuffer) recv = cugi_test_buffer_new (COUNT * sizeof (float));
  g_autoptr(GError) error = NULL;

  g_assert_true (cugi_communicator_group_start (&error));
  g_assert_true (cugi_communicator_send (comm, send, COUNT, CUGI_DATA_TYPE_FLOAT32, 0, stream, &error));
  g_assert_no_error (error);
  g_assert_true (cugi_communicator_recv (comm, recv, COUNT, CUGI_DATA_TYPE_FLOAT32, 0, stream, &error));
  g_assert_no_error (error);
  g_assert_true (cugi_communicator_group_end (&error));
  g_assert_no_error (error);
  assert_floats (recv, COUNT, 0, 2.0f, 1.0f);
}

static void
test_split (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiCommunicator) none = cugi_communicator_split (comm, CUGI_COMMUNICATOR_NO_COLOR, 0, &error);
  g_autoptr(CugiCommunicator) split = NULL;
  g_autoptr(CugiBuffer) send = float_buffer (3.0f);
  g_autoptr(CugiBuffer) recv = cugi_test_buffer_new (COUNT * sizeof (float));

  g_assert_no_error (error);
  g_assert_null (none);
  split = cugi_communicator_split (comm, 0, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpint (cugi_communicator_get_n_ranks (split), ==, 1);
  g_assert_true (cugi_communicator_all_reduce (split, send, recv, COUNT, CUGI_DATA_TYPE_FLOAT32,
                                               CUGI_REDUCE_OP_SUM, stream, &error));
  g_assert_no_error (error);
  assert_floats (recv, COUNT, 0, 3.0f, 1.0f);
  g_assert_true (cugi_communicator_close (split, NULL, &error));
  g_assert_no_error (error);
}

static void
test_memory (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiBuffer) send = float_buffer (4.0f);
  g_autoptr(CugiBuffer) nccl_buffer = cugi_communicator_alloc_buffer (comm, COUNT * sizeof (float), &error);

  g_assert_no_error (error);
  g_assert_true (cugi_communicator_register_buffer (comm, send, &error));
  g_assert_no_error (error);
  g_assert_true (cugi_communicator_all_reduce (comm, send, nccl_buffer, COUNT, CUGI_DATA_TYPE_FLOAT32,
                                               CUGI_REDUCE_OP_SUM, stream, &error));
  g_assert_no_error (error);
  assert_floats (nccl_buffer, COUNT, 0, 4.0f, 1.0f);
  g_assert_true (cugi_communicator_unregister_buffer (comm, send, &error));
  g_assert_no_error (error);
}

static void
test_close (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GAsyncResult) result = NULL;

  cugi_communicator_close_async (comm, NULL, cugi_test_store_result, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_true (cugi_communicator_close_finish (comm, result, &error));
  g_assert_no_error (error);
  g_assert_cmpint (cugi_communicator_get_state (comm), ==, CUGI_COMMUNICATOR_STATE_CLOSED);
  g_clear_object (&comm);
  cugi_test_synchronize (stream);
  g_clear_object (&stream);
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) probe = NULL;

  cugi_test_init (&argc, &argv);
  cugi_test_require_gpu ();
  probe = cugi_communicator_new_unique_id (&error);
  if (probe == NULL)
    cugi_test_skip_all ("no NCCL: %s", error->message);

  g_test_add_func ("/communicator-gpu/connect", test_connect);
  g_test_add_func ("/communicator-gpu/collectives", test_collectives);
  g_test_add_func ("/communicator-gpu/exchanges-and-scaled", test_exchanges_and_scaled);
  g_test_add_func ("/communicator-gpu/send-to-self", test_send_to_self);
  g_test_add_func ("/communicator-gpu/split", test_split);
  g_test_add_func ("/communicator-gpu/memory", test_memory);
  g_test_add_func ("/communicator-gpu/close", test_close);
  return g_test_run ();
}
