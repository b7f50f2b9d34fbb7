/* test-communicator-logic.c: NCCL communicators over the stand-in NCCL
 * (fake-nccl.c) and driver: connecting ranks without blocking the main
 * loop, collectives against CPU references, groups of sends and receives,
 * splits, registrations, failures, cancellation and bad input. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "cugi-test-utils.h"

#define N_RANKS 3
#define COUNT 6

typedef struct
{
  CugiCommunicator *ranks[N_RANKS];
  CugiStream       *streams[N_RANKS];
} Clique;

static gpointer
nccl_symbol (const char *name)
{
  GModule *nccl = g_module_open (g_getenv ("CUGI_LIBNCCL"), G_MODULE_BIND_LOCAL);
  gpointer symbol = NULL;

  g_assert_nonnull (nccl);
  g_assert_true (g_module_symbol (nccl, name, &symbol));
  /* Stays open: cugi holds it open as long as the process runs anyway. */
  return symbol;
}

static int
count_communicators (void)
{
  int (*count) (void) = nccl_symbol ("fake_nccl_count_communicators");

  return count ();
}

static GBytes *
new_unique_id (void)
{
  g_autoptr(GError) error = NULL;
  GBytes *id = cugi_communicator_new_unique_id (&error);

  g_assert_no_error (error);
  g_assert_cmpuint (g_bytes_get_size (id), ==, 128);
  return id;
}

/* All ranks connected from this thread, without blocking: each connection
 * completes only once every rank has joined. */
static void
clique_connect (Clique *clique,
                int     n_ranks)
{
  g_autoptr(GBytes) id = new_unique_id ();
  GAsyncResult *results[N_RANKS] = { NULL, };

  for (int r = 0; r < n_ranks; r++)
    {
      cugi_communicator_new_async (NULL, id, n_ranks, r, NULL, cugi_test_store_result, &results[r]);
      /* Until the last rank is there, nothing completes. */
      g_main_context_iteration (NULL, FALSE);
      if (r < n_ranks - 1)
        g_assert_null (results[0]);
    }
  for (int r = 0; r < n_ranks; r++)
    {
      g_autoptr(GError) error = NULL;

      while (results[r] == NULL)
        g_main_context_iteration (NULL, TRUE);
      clique->ranks[r] = cugi_communicator_new_finish (results[r], &error);
      g_assert_no_error (error);
      g_object_unref (results[r]);
      g_assert_cmpint (cugi_communicator_get_state (clique->ranks[r]), ==, CUGI_COMMUNICATOR_STATE_READY);
      g_assert_cmpint (cugi_communicator_get_rank (clique->ranks[r]), ==, r);
      g_assert_cmpint (cugi_communicator_get_n_ranks (clique->ranks[r]), ==, n_ranks);
      /* A stream each: the stand-in's ranks meet on their streams' threads. */
      clique->streams[r] = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
    }
}

static void
clique_clear (Clique *clique)
{
  for (int r = 0; r < N_RANKS; r++)
    {
      /* The work done lets go of what it used: the communicators too. */
      if (clique->streams[r] != NULL)
        cugi_test_settle (clique->streams[r]);
      g_clear_object (&clique->ranks[r]);
      g_clear_object (&clique->streams[r]);
    }
}

/* Rank @rank's values: i * 10 + rank + 1, as @type. */
static CugiBuffer *
rank_values (int    rank,
             gsize  count,
             gboolean as_float)
{
  g_autoptr(GBytes) bytes = NULL;
  gint32 values[COUNT * N_RANKS];

  g_assert_cmpuint (count, <=, G_N_ELEMENTS (values));
  for (gsize i = 0; i < count; i++)
    {
      if (as_float)
        ((float *) values)[i] = (float) (i * 10 + rank + 1);
      else
        values[i] = (gint32) (i * 10 + rank + 1);
    }
  bytes = g_bytes_new (values, count * sizeof values[0]);
  return cugi_test_buffer_new_with (bytes);
}

static void
assert_values (CugiBuffer   *buffer,
               CugiStream   *stream,
               const gint32 *expected,
               gsize         count)
{
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GBytes) wanted = g_bytes_new (expected, count * sizeof expected[0]);

  cugi_test_synchronize (stream);
  bytes = cugi_test_download (buffer, 0, count * sizeof expected[0]);
  cugi_test_assert_bytes_equal (bytes, wanted);
}

static void
test_unique_id (void)
{
  g_autoptr(GBytes) id = new_unique_id ();
  g_autoptr(GBytes) other = new_unique_id ();
  g_autoptr(GBytes) short_id = g_bytes_new ("abc", 3);
  g_autoptr(GBytes) back = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  g_autofree char *too_long = NULL;
  g_autofree char *not_hex = NULL;

  g_assert_false (g_bytes_equal (id, other));
  text = cugi_communicator_unique_id_to_string (id, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (strlen (text), ==, 256);
  back = cugi_communicator_unique_id_from_string (text, &error);
  g_assert_no_error (error);
  g_assert_true (g_bytes_equal (back, id));

  g_assert_null (cugi_communicator_unique_id_to_string (short_id, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "128 bytes");
  g_assert_null (cugi_communicator_unique_id_from_string ("", &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "hexadecimal");
  g_assert_null (cugi_communicator_unique_id_from_string ("0a1", &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "hexadecimal");
  too_long = g_strconcat (text, "00", NULL);
  g_assert_null (cugi_communicator_unique_id_from_string (too_long, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "hexadecimal");
  not_hex = g_strdup (text);
  not_hex[100] = 'g';
  g_assert_null (cugi_communicator_unique_id_from_string (not_hex, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "hexadecimal");
}

/* One rank, made blocking: an all-reduce is a copy, in place too. */
static void
test_one_rank (void)
{
  g_autoptr(GBytes) id = new_unique_id ();
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiCommunicator) comm = cugi_communicator_new (NULL, id, 1, 0, NULL, &error);
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NONE);
  g_autoptr(CugiBuffer) send = rank_values (0, COUNT, FALSE);
  g_autoptr(CugiBuffer) recv = cugi_test_buffer_new (COUNT * 4);
  gint32 expected[COUNT];

  g_assert_no_error (error);
  for (int i = 0; i < COUNT; i++)
    expected[i] = i * 10 + 1;
  g_assert_true (cugi_communicator_all_reduce (comm, send, recv, COUNT, CUGI_DATA_TYPE_INT32,
                                               CUGI_REDUCE_OP_SUM, stream, &error));
  g_assert_no_error (error);
  assert_values (recv, stream, expected, COUNT);
  g_assert_true (cugi_communicator_all_reduce (comm, send, send, COUNT, CUGI_DATA_TYPE_INT32,
                                               CUGI_REDUCE_OP_PROD, NULL, &error));
  g_assert_no_error (error);
  assert_values (send, NULL, expected, COUNT);
  g_assert_true (g_type_is_a (CUGI_TYPE_COMMUNICATOR, G_TYPE_INITABLE));
}

static void
test_collectives (void)
{
  Clique clique = { { NULL, }, };
  CugiBuffer *send[N_RANKS], *recv[N_RANKS], *gathered[N_RANKS];
  g_autoptr(GError) error = NULL;

  clique_connect (&clique, N_RANKS);
  for (int r = 0; r < N_RANKS; r++)
    {
      send[r] = rank_values (r, COUNT * N_RANKS, FALSE);
      recv[r] = cugi_test_buffer_new (COUNT * 4);
      gathered[r] = cugi_test_buffer_new (COUNT * N_RANKS * 4);
    }

  /* All-reduce, sum: i * 30 + 6 for three ranks. */
  for (int r = 0; r < N_RANKS; r++)
    {
      g_assert_true (cugi_communicator_all_reduce (clique.ranks[r], send[r], recv[r], COUNT,
                                                   CUGI_DATA_TYPE_INT32, CUGI_REDUCE_OP_SUM,
                                                   clique.streams[r], &error));
      g_assert_no_error (error);
    }
  for (int r = 0; r < N_RANKS; r++)
    {
      gint32 expected[COUNT];

      for (int i = 0; i < COUNT; i++)
        expected[i] = i * 30 + 6;
      assert_values (recv[r], clique.streams[r], expected, COUNT);
    }

  /* Broadcast from rank 1; the other ranks give no send buffer. */
  for (int r = 0; r < N_RANKS; r++)
    {
      g_assert_true (cugi_communicator_broadcast (clique.ranks[r], r == 1 ? send[r] : NULL, recv[r], COUNT,
                                                  CUGI_DATA_TYPE_INT32, 1, clique.streams[r], &error));
      g_assert_no_error (error);
    }
  for (int r = 0; r < N_RANKS; r++)
    {
      gint32 expected[COUNT];

      for (int i = 0; i < COUNT; i++)
        expected[i] = i * 10 + 2;
      assert_values (recv[r], clique.streams[r], expected, COUNT);
    }

  /* All-gather: rank after rank. */
  for (int r = 0; r < N_RANKS; r++)
    {
      g_assert_true (cugi_communicator_all_gather (clique.ranks[r], send[r], gathered[r], COUNT,
                                                   CUGI_DATA_TYPE_INT32, clique.streams[r], &error));
      g_assert_no_error (error);
    }
  for (int r = 0; r < N_RANKS; r++)
    {
      gint32 expected[COUNT * N_RANKS];

      for (int from = 0; from < N_RANKS; from++)
        for (int i = 0; i < COUNT; i++)
          expected[from * COUNT + i] = i * 10 + from + 1;
      assert_values (gathered[r], clique.streams[r], expected, COUNT * N_RANKS);
    }

  /* Reduce-scatter, max: rank r gets elements r * COUNT… of rank 2. */
  for (int r = 0; r < N_RANKS; r++)
    {
      g_assert_true (cugi_communicator_reduce_scatter (clique.ranks[r], send[r], recv[r], COUNT,
                                                       CUGI_DATA_TYPE_INT32, CUGI_REDUCE_OP_MAX,
                                                       clique.streams[r], &error));
      g_assert_no_error (error);
    }
  for (int r = 0; r < N_RANKS; r++)
    {
      gint32 expected[COUNT];

      for (int i = 0; i < COUNT; i++)
        expected[i] = (r * COUNT + i) * 10 + 3;
      assert_values (recv[r], clique.streams[r], expected, COUNT);
    }

  /* Reduce to rank 2, min; the others give no receive buffer. */
  for (int r = 0; r < N_RANKS; r++)
    {
      g_assert_true (cugi_communicator_reduce (clique.ranks[r], send[r], r == 2 ? gathered[r] : NULL, COUNT,
                                               CUGI_DATA_TYPE_INT32, CUGI_REDUCE_OP_MIN, 2,
                                               clique.streams[r], &error));
      g_assert_no_error (error);
    }
  {
    gint32 expected[COUNT];

    for (int i = 0; i < COUNT; i++)
      expected[i] = i * 10 + 1;
    assert_values (gathered[2], clique.streams[2], expected, COUNT);
  }

  for (int r = 0; r < N_RANKS; r++)
    {
      g_object_unref (send[r]);
      g_object_unref (recv[r]);
      g_object_unref (gathered[r]);
    }
  clique_clear (&clique);
  g_assert_cmpint (count_communicators (), ==, 0);
}

/* The mean of floats, in place. */
static void
test_average (void)
{
  Clique clique = { { NULL, }, };
  CugiBuffer *values[2];
  g_autoptr(GError) error = NULL;

  clique_connect (&clique, 2);
  for (int r = 0; r < 2; r++)
    values[r] = rank_values (r, COUNT, TRUE);
  for (int r = 0; r < 2; r++)
    {
      g_assert_true (cugi_communicator_all_reduce (clique.ranks[r], values[r], values[r], COUNT,
                                                   CUGI_DATA_TYPE_FLOAT32, CUGI_REDUCE_OP_AVG,
                                                   clique.streams[r], &error));
      g_assert_no_error (error);
    }
  for (int r = 0; r < 2; r++)
    {
      g_autoptr(GBytes) bytes = NULL;
      const float *mean;

      cugi_test_synchronize (clique.streams[r]);
      bytes = cugi_test_download_all (values[r]);
      mean = g_bytes_get_data (bytes, NULL);
      for (int i = 0; i < COUNT; i++)
        g_assert_cmpfloat (mean[i], ==, i * 10 + 1.5f);
      g_object_unref (values[r]);
    }
  clique_clear (&clique);
}

/* Two ranks swap their values: sends and receives in one group. */
static void
test_send_recv (void)
{
  Clique clique = { { NULL, }, };
  CugiBuffer *mine[2], *theirs[2];
  g_autoptr(GError) error = NULL;

  clique_connect (&clique, 2);
  for (int r = 0; r < 2; r++)
    {
      mine[r] = rank_values (r, COUNT, FALSE);
      theirs[r] = cugi_test_buffer_new (COUNT * 4);
    }
  g_assert_true (cugi_communicator_group_start (&error));
  g_assert_no_error (error);
  for (int r = 0; r < 2; r++)
    {
      g_assert_true (cugi_communicator_send (clique.ranks[r], mine[r], COUNT, CUGI_DATA_TYPE_INT32, 1 - r,
                                             clique.streams[r], &error));
      g_assert_no_error (error);
      g_assert_true (cugi_communicator_recv (clique.ranks[r], theirs[r], COUNT, CUGI_DATA_TYPE_INT32, 1 - r,
                                             clique.streams[r], &error));
      g_assert_no_error (error);
    }
  /* Dropped before the group even launches: the group keeps them. */
  for (int r = 0; r < 2; r++)
    g_clear_object (&mine[r]);
  g_assert_true (cugi_communicator_group_end (&error));
  g_assert_no_error (error);
  for (int r = 0; r < 2; r++)
    {
      gint32 expected[COUNT];

      for (int i = 0; i < COUNT; i++)
        expected[i] = i * 10 + (1 - r) + 1;
      assert_values (theirs[r], clique.streams[r], expected, COUNT);
      g_object_unref (theirs[r]);
    }

  g_assert_false (cugi_communicator_group_end (&error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_STATE, "group_start");
  clique_clear (&clique);
}

/* Every bad argument is refused before NCCL sees it, and the communicator
 * works on. */
static void
test_bad_input (void)
{
  g_autoptr(GBytes) id = new_unique_id ();
  g_autoptr(GBytes) short_id = g_bytes_new ("id", 2);
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiCommunicator) comm = NULL;
  g_autoptr(CugiBuffer) send = rank_values (0, COUNT, FALSE);
  g_autoptr(CugiBuffer) small = cugi_test_buffer_new (COUNT * 4 - 1);
  g_autoptr(CugiBuffer) recv = cugi_test_buffer_new (COUNT * 4);
  g_autoptr(CugiDevice) device = cugi_device_get (1, &error);
  g_autoptr(CugiContext) other_context = NULL;
  g_autoptr(CugiStream) other_stream = NULL;
  g_autoptr(CugiBuffer) other_buffer = NULL;
  gint32 expected[COUNT];
  int before = count_communicators ();

  g_assert_no_error (error);
  g_assert_null (cugi_communicator_new (NULL, id, 2, 2, NULL, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "Rank 2");
  g_assert_null (cugi_communicator_new (NULL, id, 0, 0, NULL, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "0 ranks");
  g_assert_null (cugi_communicator_new (NULL, id, 2, -1, NULL, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "Rank -1");
  g_assert_null (cugi_communicator_new (NULL, short_id, 1, 0, NULL, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "128 bytes");
  g_assert_null (g_initable_new (CUGI_TYPE_COMMUNICATOR, NULL, &error, "unique-id", id, "min-ctas", 8,
                                 "max-ctas", 4, NULL));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "min-ctas");
  g_assert_cmpint (count_communicators (), ==, before);

  comm = cugi_communicator_new (NULL, id, 1, 0, NULL, &error);
  g_assert_no_error (error);
  other_context = cugi_context_new (device, CUGI_CONTEXT_FLAGS_NONE, &error);
  g_assert_no_error (error);
  other_stream = cugi_stream_new (other_context, CUGI_STREAM_FLAGS_NONE, 0, &error);
  g_assert_no_error (error);
  other_buffer = cugi_buffer_new (other_context, COUNT * 4, &error);
  g_assert_no_error (error);

  cugi_test_assert_fails (cugi_communicator_all_reduce (comm, send, small, COUNT, CUGI_DATA_TYPE_INT32,
                                                        CUGI_REDUCE_OP_SUM, NULL, &error),
                          &error, CUGI_ERROR_INVALID_ARGUMENT, "receive buffer holds 23 bytes");
  cugi_test_assert_fails (cugi_communicator_all_reduce (comm, send, recv, COUNT, (CugiDataType) 99,
                                                        CUGI_REDUCE_OP_SUM, NULL, &error),
                          &error, CUGI_ERROR_INVALID_ARGUMENT, "data type");
  cugi_test_assert_fails (cugi_communicator_all_reduce (comm, send, recv, COUNT, CUGI_DATA_TYPE_INT32,
                                                        (CugiReduceOp) 99, NULL, &error),
                          &error, CUGI_ERROR_INVALID_ARGUMENT, "reduction");
  cugi_test_assert_fails (cugi_communicator_all_reduce (comm, send, recv, G_MAXSIZE / 2, CUGI_DATA_TYPE_INT32,
                                                        CUGI_REDUCE_OP_SUM, NULL, &error),
                          &error, CUGI_ERROR_INVALID_ARGUMENT, "too few");
  cugi_test_assert_fails (cugi_communicator_all_reduce (comm, send, recv, COUNT, CUGI_DATA_TYPE_INT32,
                                                        CUGI_REDUCE_OP_SUM, other_stream, &error),
                          &error, CUGI_ERROR_INVALID_CONTEXT, NULL);
  cugi_test_assert_fails (cugi_communicator_all_reduce (comm, send, other_buffer, COUNT, CUGI_DATA_TYPE_INT32,
                                                        CUGI_REDUCE_OP_SUM, NULL, &error),
                          &error, CUGI_ERROR_INVALID_CONTEXT, NULL);
  cugi_test_assert_fails (cugi_communicator_broadcast (comm, send, recv, COUNT, CUGI_DATA_TYPE_INT32, 1, NULL,
                                                       &error),
                          &error, CUGI_ERROR_INVALID_ARGUMENT, "root, rank 1");
  cugi_test_assert_fails (cugi_communicator_broadcast (comm, NULL, recv, COUNT, CUGI_DATA_TYPE_INT32, 0, NULL,
                                                       &error),
                          &error, CUGI_ERROR_INVALID_ARGUMENT, "send buffer is missing");
  cugi_test_assert_fails (cugi_communicator_send (comm, send, COUNT, CUGI_DATA_TYPE_INT32, -1, NULL, &error),
                          &error, CUGI_ERROR_INVALID_ARGUMENT, "peer");
  /* 16-bit elements: 12 of them fit in 24 bytes, 13 do not. */
  cugi_test_assert_fails (cugi_communicator_all_gather (comm, send, recv, 13, CUGI_DATA_TYPE_BFLOAT16, NULL,
                                                        &error),
                          &error, CUGI_ERROR_INVALID_ARGUMENT, "2 bytes");
  g_assert_true (cugi_communicator_all_gather (comm, send, recv, 12, CUGI_DATA_TYPE_FLOAT16, NULL, &error));
  g_assert_no_error (error);

  /* Still usable. */
  for (int i = 0; i < COUNT; i++)
    expected[i] = i * 10 + 1;
  g_assert_true (cugi_communicator_all_reduce (comm, send, recv, COUNT, CUGI_DATA_TYPE_INT32,
                                               CUGI_REDUCE_OP_SUM, NULL, &error));
  g_assert_no_error (error);
  assert_values (recv, NULL, expected, COUNT);

  /* A communicator a binding made without initializing it. */
  {
    g_autoptr(CugiCommunicator) bare = g_object_new (CUGI_TYPE_COMMUNICATOR, NULL);

    cugi_test_assert_fails (cugi_communicator_all_reduce (bare, send, recv, COUNT, CUGI_DATA_TYPE_INT32,
                                                          CUGI_REDUCE_OP_SUM, NULL, &error),
                            &error, CUGI_ERROR_INVALID_STATE, "not connected");
  }
}

static void
test_config (void)
{
  void (*get_last_config) (int *, int *, int *, int *, const char **, int *) =
    nccl_symbol ("fake_nccl_get_last_config");
  g_autoptr(GBytes) id = new_unique_id ();
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiCommunicator) comm = NULL;
  int blocking = -1, cga = 0, min_ctas = 0, max_ctas = 0, split_share = 0;
  const char *net_name = NULL;
  g_autofree char *name_property = NULL;

  comm = g_initable_new (CUGI_TYPE_COMMUNICATOR, NULL, &error, "unique-id", id, "cga-cluster-size", 2,
                         "min-ctas", 4, "max-ctas", 16, "net-name", "Socket", "split-share", TRUE, NULL);
  g_assert_no_error (error);
  get_last_config (&blocking, &cga, &min_ctas, &max_ctas, &net_name, &split_share);
  g_assert_cmpint (blocking, ==, 0);
  g_assert_cmpint (cga, ==, 2);
  g_assert_cmpint (min_ctas, ==, 4);
  g_assert_cmpint (max_ctas, ==, 16);
  g_assert_cmpstr (net_name, ==, "Socket");
  g_assert_cmpint (split_share, ==, 1);
  g_object_get (comm, "net-name", &name_property, NULL);
  g_assert_cmpstr (name_property, ==, "Socket");
  g_assert_true (cugi_communicator_get_context (comm) != NULL);
  g_clear_object (&comm);

  /* Unset: NCCL's defaults (INT_MIN, NULL). */
  comm = cugi_communicator_new (NULL, id, 1, 0, NULL, &error);
  g_assert_no_error (error);
  get_last_config (&blocking, &cga, &min_ctas, &max_ctas, &net_name, &split_share);
  g_assert_cmpint (min_ctas, ==, G_MININT);
  g_assert_cmpint (max_ctas, ==, G_MININT);
  g_assert_null (net_name);
  g_assert_cmpint (split_share, ==, G_MININT);
}

static gboolean
cancel_later (gpointer data)
{
  g_cancellable_cancel (data);
  return G_SOURCE_REMOVE;
}

static gpointer
cancel_from_thread (gpointer data)
{
  g_usleep (20 * 1000);
  g_cancellable_cancel (data);
  return NULL;
}

/* A connection whose other rank never comes is aborted by its cancellable:
 * from the main loop, and from another thread while it blocks. */
static void
test_cancel (void)
{
  g_autoptr(GBytes) id = new_unique_id ();
  g_autoptr(GBytes) other_id = new_unique_id ();
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GCancellable) blocking_cancellable = g_cancellable_new ();
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GThread) thread = NULL;
  int before;

  /* Work done earlier lets go of its communicators. */
  cugi_test_settle (NULL);
  before = count_communicators ();

  cugi_communicator_new_async (NULL, id, 2, 0, cancellable, cugi_test_store_result, &result);
  for (int i = 0; i < 5; i++)
    g_main_context_iteration (NULL, FALSE);
  g_assert_null (result);
  g_assert_cmpint (count_communicators (), ==, before + 1);
  g_timeout_add (10, cancel_later, cancellable);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_null (cugi_communicator_new_finish (result, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&error);
  g_assert_cmpint (count_communicators (), ==, before);

  thread = g_thread_new ("cancel", cancel_from_thread, blocking_cancellable);
  g_assert_null (cugi_communicator_new (NULL, other_id, 2, 1, blocking_cancellable, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_thread_join (g_steal_pointer (&thread));
  g_assert_cmpint (count_communicators (), ==, before);
}

static void
store_error (CugiCommunicator *comm,
             GError           *error,
             gpointer          user_data)
{
  GError **slot = user_data;

  g_assert_null (*slot);
  *slot = g_error_copy (error);
}

/* A failure NCCL reports later (a peer gone) reaches the main loop as
 * ::failed; the communicator then only aborts. */
static void
test_failed (void)
{
  g_autoptr(GBytes) id = new_unique_id ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) failure = NULL;
  g_autoptr(CugiCommunicator) comm = cugi_communicator_new (NULL, id, 1, 0, NULL, &error);
  g_autoptr(CugiBuffer) buffer = cugi_test_buffer_new (COUNT * 4);

  g_assert_no_error (error);
  g_signal_connect (comm, "failed", G_CALLBACK (store_error), &failure);
  g_assert_true (cugi_communicator_check (comm, &error));
  g_assert_no_error (error);

  g_setenv ("FAKE_NCCL_ASYNC_ERROR", "6", TRUE);
  while (failure == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_unsetenv ("FAKE_NCCL_ASYNC_ERROR");
  g_assert_error (failure, CUGI_ERROR, CUGI_ERROR_FAILED);
  g_assert_nonnull (strstr (failure->message, "remote process exited"));
  g_assert_cmpint (cugi_communicator_get_state (comm), ==, CUGI_COMMUNICATOR_STATE_FAILED);
  cugi_test_assert_fails (cugi_communicator_all_reduce (comm, buffer, buffer, COUNT, CUGI_DATA_TYPE_INT32,
                                                        CUGI_REDUCE_OP_SUM, NULL, &error),
                          &error, CUGI_ERROR_INVALID_STATE, "failed");
  g_assert_false (cugi_communicator_check (comm, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_STATE, "abort it");
  cugi_communicator_abort (comm);
  g_assert_cmpint (cugi_communicator_get_state (comm), ==, CUGI_COMMUNICATOR_STATE_ABORTED);
  cugi_test_assert_fails (cugi_communicator_close (comm, NULL, &error), &error, CUGI_ERROR_INVALID_STATE,
                          "closed");
}

static void
test_close (void)
{
  g_autoptr(GBytes) id = new_unique_id ();
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiCommunicator) comm = cugi_communicator_new (NULL, id, 1, 0, NULL, &error);
  g_autoptr(CugiCommunicator) other = NULL;
  g_autoptr(CugiBuffer) buffer = cugi_test_buffer_new (COUNT * 4);
  g_autoptr(GAsyncResult) result = NULL;
  int before;

  g_assert_no_error (error);
  cugi_test_settle (NULL);
  before = count_communicators ();
  g_assert_true (cugi_communicator_all_reduce (comm, buffer, buffer, COUNT, CUGI_DATA_TYPE_INT32,
                                               CUGI_REDUCE_OP_SUM, NULL, &error));
  g_assert_true (cugi_communicator_close (comm, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpint (cugi_communicator_get_state (comm), ==, CUGI_COMMUNICATOR_STATE_CLOSED);
  g_assert_cmpint (count_communicators (), ==, before - 1);
  g_assert_true (cugi_communicator_close (comm, NULL, &error));
  g_assert_no_error (error);
  cugi_test_assert_fails (cugi_communicator_all_reduce (comm, buffer, buffer, COUNT, CUGI_DATA_TYPE_INT32,
                                                        CUGI_REDUCE_OP_SUM, NULL, &error),
                          &error, CUGI_ERROR_INVALID_STATE, "closed");

  other = cugi_communicator_new (NULL, id, 1, 0, NULL, &error);
  g_assert_no_error (error);
  cugi_communicator_close_async (other, NULL, cugi_test_store_result, &result);
  g_assert_cmpint (cugi_communicator_get_state (other), ==, CUGI_COMMUNICATOR_STATE_READY);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_true (cugi_communicator_close_finish (other, result, &error));
  g_assert_no_error (error);
  g_assert_cmpint (cugi_communicator_get_state (other), ==, CUGI_COMMUNICATOR_STATE_CLOSED);
  cugi_test_synchronize (NULL);
}

typedef struct
{
  CugiCommunicator *parent;
  int               color;
  CugiCommunicator *child;
  GError           *error;
} Split;

static gpointer
split_in_thread (gpointer data)
{
  Split *split = data;

  split->child = cugi_communicator_split (split->parent, split->color, 0, &split->error);
  return NULL;
}

/* Ranks 0 and 2 form a communicator; rank 1 joins none. */
static void
test_split (void)
{
  Clique clique = { { NULL, }, };
  Split splits[N_RANKS] = { { NULL, }, };
  GThread *threads[N_RANKS];
  g_autoptr(GError) error = NULL;

  clique_connect (&clique, N_RANKS);
  for (int r = 0; r < N_RANKS; r++)
    {
      splits[r] = (Split) { clique.ranks[r], r == 1 ? CUGI_COMMUNICATOR_NO_COLOR : 7, NULL, NULL };
      threads[r] = g_thread_new ("split", split_in_thread, &splits[r]);
    }
  for (int r = 0; r < N_RANKS; r++)
    {
      g_thread_join (threads[r]);
      g_assert_no_error (splits[r].error);
    }
  g_assert_null (splits[1].child);
  g_assert_cmpint (cugi_communicator_get_rank (splits[0].child), ==, 0);
  g_assert_cmpint (cugi_communicator_get_rank (splits[2].child), ==, 1);
  g_assert_cmpint (cugi_communicator_get_n_ranks (splits[2].child), ==, 2);
  g_assert_cmpint (cugi_communicator_get_state (splits[2].child), ==, CUGI_COMMUNICATOR_STATE_READY);

  g_assert_null (cugi_communicator_split (clique.ranks[0], -5, 0, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "Color -5");
  g_clear_object (&splits[0].child);
  g_clear_object (&splits[2].child);
  clique_clear (&clique);
}

static void
test_memory (void)
{
  int (*count_registrations) (void) = nccl_symbol ("fake_nccl_count_registrations");
  int (*count_allocations) (void) = nccl_symbol ("fake_nccl_count_allocations");
  g_autoptr(GBytes) id = new_unique_id ();
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiCommunicator) comm = cugi_communicator_new (NULL, id, 1, 0, NULL, &error);
  g_autoptr(CugiBuffer) buffer = rank_values (0, COUNT, FALSE);
  g_autoptr(CugiBuffer) nccl_buffer = NULL;
  gint32 expected[COUNT];

  g_assert_no_error (error);
  g_assert_true (cugi_communicator_register_buffer (comm, buffer, &error));
  g_assert_no_error (error);
  g_assert_cmpint (count_registrations (), ==, 1);
  cugi_test_assert_fails (cugi_communicator_register_buffer (comm, buffer, &error), &error,
                          CUGI_ERROR_INVALID_ARGUMENT, "already");
  g_assert_true (cugi_communicator_unregister_buffer (comm, buffer, &error));
  g_assert_no_error (error);
  g_assert_cmpint (count_registrations (), ==, 0);
  cugi_test_assert_fails (cugi_communicator_unregister_buffer (comm, buffer, &error), &error,
                          CUGI_ERROR_INVALID_ARGUMENT, "not registered");
  g_assert_true (cugi_communicator_register_buffer (comm, buffer, &error));
  g_assert_no_error (error);

  g_assert_null (cugi_communicator_alloc_buffer (comm, 0, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "one byte");
  nccl_buffer = cugi_communicator_alloc_buffer (comm, COUNT * 4, &error);
  g_assert_no_error (error);
  g_assert_cmpint (count_allocations (), ==, 1);
  g_assert_cmpuint (cugi_buffer_get_size (nccl_buffer), ==, COUNT * 4);
  g_assert_true (cugi_communicator_all_reduce (comm, buffer, nccl_buffer, COUNT, CUGI_DATA_TYPE_INT32,
                                               CUGI_REDUCE_OP_SUM, NULL, &error));
  g_assert_no_error (error);
  for (int i = 0; i < COUNT; i++)
    expected[i] = i * 10 + 1;
  assert_values (nccl_buffer, NULL, expected, COUNT);
  g_clear_object (&nccl_buffer);
  cugi_test_settle (NULL);
  g_assert_cmpint (count_allocations (), ==, 0);

  /* Closing ends the registrations. */
  g_assert_true (cugi_communicator_close (comm, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpint (count_registrations (), ==, 0);
}

static int
count_exchange_calls (void)
{
  int (*count) (void) = nccl_symbol ("fake_nccl_count_exchange_calls");

  return count ();
}

/* All-to-all, gather to rank 1 and scatter from rank 2 among three ranks,
 * against what each moves where; the other ranks of a gather or a scatter
 * give no buffer for it. */
static void
check_exchanges (void)
{
  Clique clique = { { NULL, }, };
  CugiBuffer *send[N_RANKS], *recv[N_RANKS], *part[N_RANKS];
  g_autoptr(GError) error = NULL;

  clique_connect (&clique, N_RANKS);
  for (int r = 0; r < N_RANKS; r++)
    {
      send[r] = rank_values (r, COUNT * N_RANKS, FALSE);
      recv[r] = cugi_test_buffer_new (COUNT * N_RANKS * 4);
      part[r] = cugi_test_buffer_new (COUNT * 4);
    }

  /* Rank r's elements j * COUNT… go to rank j's r * COUNT…. */
  for (int r = 0; r < N_RANKS; r++)
    {
      g_assert_true (cugi_communicator_all_to_all (clique.ranks[r], send[r], recv[r], COUNT,
                                                   CUGI_DATA_TYPE_INT32, clique.streams[r], &error));
      g_assert_no_error (error);
    }
  for (int r = 0; r < N_RANKS; r++)
    {
      gint32 expected[COUNT * N_RANKS];

      for (int from = 0; from < N_RANKS; from++)
        for (int i = 0; i < COUNT; i++)
          expected[from * COUNT + i] = (r * COUNT + i) * 10 + from + 1;
      assert_values (recv[r], clique.streams[r], expected, COUNT * N_RANKS);
    }

  for (int r = 0; r < N_RANKS; r++)
    {
      g_assert_true (cugi_communicator_gather (clique.ranks[r], send[r], r == 1 ? recv[r] : NULL, COUNT,
                                               CUGI_DATA_TYPE_INT32, 1, clique.streams[r], &error));
      g_assert_no_error (error);
    }
  {
    gint32 expected[COUNT * N_RANKS];

    for (int from = 0; from < N_RANKS; from++)
      for (int i = 0; i < COUNT; i++)
        expected[from * COUNT + i] = i * 10 + from + 1;
    assert_values (recv[1], clique.streams[1], expected, COUNT * N_RANKS);
  }

  for (int r = 0; r < N_RANKS; r++)
    {
      g_assert_true (cugi_communicator_scatter (clique.ranks[r], r == 2 ? send[r] : NULL, part[r], COUNT,
                                                CUGI_DATA_TYPE_INT32, 2, clique.streams[r], &error));
      g_assert_no_error (error);
    }
  for (int r = 0; r < N_RANKS; r++)
    {
      gint32 expected[COUNT];

      for (int i = 0; i < COUNT; i++)
        expected[i] = (r * COUNT + i) * 10 + 3;
      assert_values (part[r], clique.streams[r], expected, COUNT);
    }

  /* The root's buffer of every rank's parts is checked for all of them. */
  cugi_test_assert_fails (cugi_communicator_gather (clique.ranks[0], send[0], part[0], COUNT,
                                                    CUGI_DATA_TYPE_INT32, 0, NULL, &error),
                          &error, CUGI_ERROR_INVALID_ARGUMENT, "receive buffer holds 24 bytes");
  cugi_test_assert_fails (cugi_communicator_scatter (clique.ranks[0], NULL, part[0], COUNT,
                                                     CUGI_DATA_TYPE_INT32, 0, NULL, &error),
                          &error, CUGI_ERROR_INVALID_ARGUMENT, "send buffer is missing");
  cugi_test_assert_fails (cugi_communicator_all_to_all (clique.ranks[0], part[0], recv[0], COUNT,
                                                        CUGI_DATA_TYPE_INT32, NULL, &error),
                          &error, CUGI_ERROR_INVALID_ARGUMENT, "send buffer holds 24 bytes");
  cugi_test_assert_fails (cugi_communicator_gather (clique.ranks[0], send[0], recv[0], COUNT,
                                                    CUGI_DATA_TYPE_INT32, 3, NULL, &error),
                          &error, CUGI_ERROR_INVALID_ARGUMENT, "root, rank 3");

  for (int r = 0; r < N_RANKS; r++)
    {
      g_object_unref (send[r]);
      g_object_unref (recv[r]);
      g_object_unref (part[r]);
    }
  clique_clear (&clique);
}

/* NCCL 2.28's own calls where it has them. */
static void
test_exchanges (void)
{
  int before = count_exchange_calls ();

  check_exchanges ();
  g_assert_cmpint (count_exchange_calls () - before, ==, 3 * N_RANKS);
}

/* Before NCCL 2.28, the same from sends and receives; before 2.24, no
 * 8-bit floats. */
static void
test_older_nccl (void)
{
  g_autoptr(GBytes) id = NULL;
  g_autoptr(CugiCommunicator) comm = NULL;
  g_autoptr(CugiBuffer) buffer = NULL;
  g_autoptr(GError) error = NULL;

  if (!cugi_test_in_subprocess (60))
    return;
  g_setenv ("FAKE_NCCL_VERSION", "22304", TRUE);
  check_exchanges ();
  g_assert_cmpint (count_exchange_calls (), ==, 0);

  id = new_unique_id ();
  comm = cugi_communicator_new (NULL, id, 1, 0, NULL, &error);
  g_assert_no_error (error);
  buffer = cugi_test_buffer_new (COUNT);
  cugi_test_assert_fails (cugi_communicator_all_gather (comm, buffer, buffer, COUNT, CUGI_DATA_TYPE_FLOAT8_E4M3,
                                                        NULL, &error),
                          &error, CUGI_ERROR_NOT_SUPPORTED, "NCCL 2.23");
}

static int
last_factor (guint8 bytes[8])
{
  int (*get) (unsigned char *) = nccl_symbol ("fake_nccl_get_last_factor");

  return get (bytes);
}

static int
count_reduction_ops (void)
{
  int (*count) (void) = nccl_symbol ("fake_nccl_count_reduction_ops");

  return count ();
}

/* The factor of a pre-multiplied sum as NCCL gets it: one element of the
 * data type, rounded to the nearest (ties to even), or an error where the
 * type cannot hold it. The stand-in reduces no narrow floats, so those
 * reductions fail there, once the factor is made (and then destroyed). */
static void
assert_factor (CugiCommunicator *comm,
               CugiBuffer       *buffer,
               CugiDataType      data_type,
               double            factor,
               guint64           expected)
{
  g_autoptr(GError) error = NULL;
  guint8 bytes[8];
  guint64 code = 0;
  gboolean narrow = data_type == CUGI_DATA_TYPE_FLOAT16 || data_type >= CUGI_DATA_TYPE_BFLOAT16;

  g_assert_cmpint (cugi_communicator_all_reduce_scaled (comm, buffer, buffer, 1, data_type, factor, NULL,
                                                        &error), ==, !narrow);
  if (narrow)
    cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, NULL);
  g_assert_no_error (error);
  g_assert_cmpint (last_factor (bytes), ==, data_type);
  memcpy (&code, bytes, sizeof code);
  g_assert_cmphex (code, ==, expected);
  g_assert_cmpint (count_reduction_ops (), ==, 0);
}

static void
test_scaled (void)
{
  Clique clique = { { NULL, }, };
  CugiBuffer *values[2], *parts[2];
  const double factors[2] = { 0.5, 2 };
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiBuffer) one = cugi_test_buffer_new (8);

  clique_connect (&clique, 2);
  for (int r = 0; r < 2; r++)
    {
      values[r] = rank_values (r, COUNT, TRUE);
      parts[r] = cugi_test_buffer_new (COUNT * 4);
    }
  /* Each rank's own factor: 0.5 × rank 0's + 2 × rank 1's. */
  for (int r = 0; r < 2; r++)
    {
      g_assert_true (cugi_communicator_all_reduce_scaled (clique.ranks[r], values[r], values[r], COUNT,
                                                          CUGI_DATA_TYPE_FLOAT32, factors[r],
                                                          clique.streams[r], &error));
      g_assert_no_error (error);
    }
  for (int r = 0; r < 2; r++)
    {
      g_autoptr(GBytes) bytes = NULL;
      const float *sum;

      cugi_test_synchronize (clique.streams[r]);
      bytes = cugi_test_download_all (values[r]);
      sum = g_bytes_get_data (bytes, NULL);
      for (int i = 0; i < COUNT; i++)
        g_assert_cmpfloat (sum[i], ==, 0.5f * (i * 10 + 1) + 2 * (i * 10 + 2));
      g_object_unref (values[r]);
      values[r] = rank_values (r, COUNT * 2, FALSE);
    }
  /* Integers, times 3, scattered: rank r gets 3 × the sum of elements
   * r * COUNT…. */
  for (int r = 0; r < 2; r++)
    {
      g_assert_true (cugi_communicator_reduce_scatter_scaled (clique.ranks[r], values[r], parts[r], COUNT,
                                                              CUGI_DATA_TYPE_INT32, 3, clique.streams[r],
                                                              &error));
      g_assert_no_error (error);
    }
  for (int r = 0; r < 2; r++)
    {
      gint32 expected[COUNT];

      for (int i = 0; i < COUNT; i++)
        expected[i] = 3 * (2 * (r * COUNT + i) * 10 + 3);
      assert_values (parts[r], clique.streams[r], expected, COUNT);
      g_object_unref (values[r]);
      g_object_unref (parts[r]);
    }
  g_assert_cmpint (count_reduction_ops (), ==, 0);
  clique_clear (&clique);

  /* The factor's encoding, on one rank. */
  clique_connect (&clique, 1);
  assert_factor (clique.ranks[0], one, CUGI_DATA_TYPE_INT64, -7, G_GUINT64_CONSTANT (0xfffffffffffffff9));
  assert_factor (clique.ranks[0], one, CUGI_DATA_TYPE_FLOAT16, 0.1, 0x2e66);
  assert_factor (clique.ranks[0], one, CUGI_DATA_TYPE_FLOAT16, -2, 0xc000);
  assert_factor (clique.ranks[0], one, CUGI_DATA_TYPE_FLOAT16, 0x1p-24, 0x0001);   /* subnormal */
  assert_factor (clique.ranks[0], one, CUGI_DATA_TYPE_FLOAT16, 65504, 0x7bff);
  assert_factor (clique.ranks[0], one, CUGI_DATA_TYPE_BFLOAT16, 0.1, 0x3dcd);
  /* Halfway between 1 and the next half: to the even one, 1. */
  assert_factor (clique.ranks[0], one, CUGI_DATA_TYPE_FLOAT16, 1 + 0x1p-11, 0x3c00);
  /* Halfway between 1 + 2^-10 and 1 + 2^-9: to the even one, not down. */
  assert_factor (clique.ranks[0], one, CUGI_DATA_TYPE_FLOAT16, 1 + 3 * 0x1p-11, 0x3c02);
  /* Halfway between 2047 and 2048: to 2048, carrying into the exponent. */
  assert_factor (clique.ranks[0], one, CUGI_DATA_TYPE_FLOAT16, 2047.5, 0x6800);
  /* NCCL has no pre-multiplied sums of 8-bit floats. */
  cugi_test_assert_fails (cugi_communicator_all_reduce_scaled (clique.ranks[0], one, one, 1,
                                                               CUGI_DATA_TYPE_FLOAT8_E4M3, 2, NULL, &error),
                          &error, CUGI_ERROR_NOT_SUPPORTED, "8-bit floats");

  {
    const struct { CugiDataType type; double factor; } bad[] = {
      { CUGI_DATA_TYPE_INT32, 0.5 },
      { CUGI_DATA_TYPE_UINT8, -1 },
      { CUGI_DATA_TYPE_INT64, 0x1p63 },
      { CUGI_DATA_TYPE_FLOAT32, 1e39 },
      { CUGI_DATA_TYPE_FLOAT64, NAN },
      { CUGI_DATA_TYPE_FLOAT16, 65520 },
      { CUGI_DATA_TYPE_BFLOAT16, INFINITY },
    };

    for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
      cugi_test_assert_fails (cugi_communicator_all_reduce_scaled (clique.ranks[0], one, one, 1, bad[i].type,
                                                                   bad[i].factor, NULL, &error),
                              &error, CUGI_ERROR_INVALID_ARGUMENT, "is not a value of the data type");
  }
  g_assert_cmpint (count_reduction_ops (), ==, 0);
  clique_clear (&clique);
}

/* Where NCCL is missing or too old, the error says so; in processes of
 * their own, as the loader keeps its first outcome. */
static void
test_missing (void)
{
  g_autoptr(GError) error = NULL;

  if (!cugi_test_in_subprocess (60))
    return;
  g_setenv ("CUGI_LIBNCCL", "/nonexistent/libnccl.so.2", TRUE);
  g_assert_null (cugi_communicator_new_unique_id (&error));
  cugi_test_assert_error (&error, CUGI_ERROR_NOT_AVAILABLE, "CUGI_LIBNCCL");
  g_assert_false (cugi_communicator_group_start (&error));
  cugi_test_assert_error (&error, CUGI_ERROR_NOT_AVAILABLE, "NCCL");
}

static void
test_too_old (void)
{
  g_autoptr(GError) error = NULL;

  if (!cugi_test_in_subprocess (60))
    return;
  g_setenv ("FAKE_NCCL_VERSION", "21703", TRUE);
  g_assert_null (cugi_communicator_new_unique_id (&error));
  cugi_test_assert_error (&error, CUGI_ERROR_NOT_AVAILABLE, "NCCL 2.17");
}

int
main (int    argc,
      char **argv)
{
  cugi_test_init_stand_in (&argc, &argv);

  g_test_add_func ("/communicator/unique-id", test_unique_id);
  g_test_add_func ("/communicator/one-rank", test_one_rank);
  g_test_add_func ("/communicator/collectives", test_collectives);
  g_test_add_func ("/communicator/average", test_average);
  g_test_add_func ("/communicator/send-recv", test_send_recv);
  g_test_add_func ("/communicator/exchanges", test_exchanges);
  g_test_add_func ("/communicator/older-nccl", test_older_nccl);
  g_test_add_func ("/communicator/scaled", test_scaled);
  g_test_add_func ("/communicator/bad-input", test_bad_input);
  g_test_add_func ("/communicator/config", test_config);
  g_test_add_func ("/communicator/cancel", test_cancel);
  g_test_add_func ("/communicator/failed", test_failed);
  g_test_add_func ("/communicator/close", test_close);
  g_test_add_func ("/communicator/split", test_split);
  g_test_add_func ("/communicator/memory", test_memory);
  g_test_add_func ("/communicator/missing", test_missing);
  g_test_add_func ("/communicator/too-old", test_too_old);
  return g_test_run ();
}
