/* test-alloc-logic.c: stream-ordered allocation, 2D memsets and attaching
 * managed memory without a GPU, against fake-cuda-streams, whose
 * stream-ordered allocator hands out host memory (so memsets can be read
 * back) and frees in stream order, with pools that count used and reserved
 * bytes as CUDA's do. */
#include "config.h"

#include <string.h>
#include <gmodule.h>

#include "cugi-private.h"
#include "cugi-memory-private.h"
#include "cugi-stream-private.h"
#include "cugi-test-utils.h"

static CugiStreamOrderedPool *
default_pool (void)
{
  g_autoptr(GError) error = NULL;
  CugiStreamOrderedPool *pool = cugi_stream_ordered_pool_get_default (NULL, &error);

  g_assert_no_error (error);
  g_assert_true (cugi_stream_ordered_pool_is_default (pool));
  return pool;
}

static void
assert_figures (CugiStreamOrderedPool *pool,
                guint64                used,
                guint64                reserved)
{
  g_autoptr(GError) error = NULL;

  g_assert_cmpuint (cugi_stream_ordered_pool_get_used_current (pool, &error), ==, used);
  g_assert_no_error (error);
  g_assert_cmpuint (cugi_stream_ordered_pool_get_reserved_current (pool, &error), ==, reserved);
  g_assert_no_error (error);
}

/* The default pool serves cugi_buffer_new_on_stream(); a drop frees on the
 * stream, the memory stays reserved until a trim. */
static void
test_on_stream (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  g_autoptr(CugiStreamOrderedPool) pool = default_pool ();
  g_autoptr(CugiBuffer) empty = NULL;
  CugiBuffer *buffer;
  guint8 *memory;

  g_assert_true (cugi_stream_ordered_pool_trim_to (pool, 0, &error));
  g_assert_true (cugi_stream_ordered_pool_reset_high (pool, &error));
  assert_figures (pool, 0, 0);

  buffer = cugi_buffer_new_on_stream (stream, 1024, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (cugi_buffer_get_size (buffer), ==, 1024);
  g_assert_true (cugi_buffer_get_context (buffer) == cugi_stream_get_context (stream));
  assert_figures (pool, 1024, 1024);
  /* The stand-in's device memory is host memory. */
  memory = GSIZE_TO_POINTER (cugi_buffer_get_device_pointer (buffer));
  g_assert_true (cugi_buffer_memset_d8 (buffer, 0, 0x5a, 1024, stream, &error));
  cugi_test_synchronize (stream);
  g_assert_cmpuint (memory[1023], ==, 0x5a);

  g_object_unref (buffer);
  cugi_test_synchronize (stream);
  assert_figures (pool, 0, 1024);
  g_assert_cmpuint (cugi_stream_ordered_pool_get_used_high (pool, &error), ==, 1024);
  g_assert_cmpuint (cugi_stream_ordered_pool_get_reserved_high (pool, &error), ==, 1024);
  g_assert_true (cugi_stream_ordered_pool_trim_to (pool, 0, &error));
  g_assert_no_error (error);
  assert_figures (pool, 0, 0);
  g_assert_true (cugi_stream_ordered_pool_reset_high (pool, &error));
  g_assert_cmpuint (cugi_stream_ordered_pool_get_used_high (pool, &error), ==, 0);
  g_assert_no_error (error);

  /* Zero bytes allocate nothing. */
  empty = cugi_buffer_new_on_stream (stream, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (cugi_buffer_get_device_pointer (empty), ==, 0);
  assert_figures (pool, 0, 0);
}

/* A pool of one's own: kept alive by its buffers, freed on the stream
 * given to cugi_buffer_free_on_stream(), once that stream gets there. */
static void
test_own_pool (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiStream) a = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  g_autoptr(CugiStream) b = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  g_autoptr(CugiBuffer) buffer = NULL;
  CugiStreamOrderedPool *pool = cugi_stream_ordered_pool_new (NULL, &error);
  GWeakRef weak;
  CugiTestGate gate;

  g_assert_no_error (error);
  g_assert_false (cugi_stream_ordered_pool_is_default (pool));
  g_assert_true (cugi_stream_ordered_pool_get_device (pool) != NULL);
  g_assert_true (cugi_stream_ordered_pool_set_release_threshold (pool, G_MAXUINT64, &error));
  g_assert_cmpuint (cugi_stream_ordered_pool_get_release_threshold (pool, &error), ==, G_MAXUINT64);
  g_assert_no_error (error);

  buffer = cugi_stream_ordered_pool_allocate (pool, a, 4096, &error);
  g_assert_no_error (error);
  assert_figures (pool, 4096, 4096);
  g_weak_ref_init (&weak, pool);
  g_object_unref (pool);
  pool = g_weak_ref_get (&weak);
  g_assert_nonnull (pool);

  cugi_test_gate_close (&gate, b);
  g_assert_true (cugi_buffer_free_on_stream (buffer, b, &error));
  g_assert_no_error (error);
  cugi_test_synchronize (a);
  assert_figures (pool, 4096, 4096);
  cugi_test_gate_open (&gate, b);
  cugi_test_synchronize (b);
  assert_figures (pool, 0, 4096);

  cugi_test_assert_fails (cugi_buffer_free_on_stream (buffer, b, &error), &error,
                          CUGI_ERROR_INVALID_STATE, "freed");
  g_clear_object (&buffer);
  g_object_unref (pool);
  pool = g_weak_ref_get (&weak);
  g_assert_null (pool);
  g_weak_ref_clear (&weak);
}

/* Work in flight holds the free back until it has completed. */
static void
test_free_waits_for_work (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  g_autoptr(CugiStreamOrderedPool) pool = default_pool ();
  g_autoptr(CugiBuffer) buffer = NULL;
  CugiTestGate gate;

  g_assert_true (cugi_stream_ordered_pool_trim_to (pool, 0, &error));
  buffer = cugi_buffer_new_on_stream (stream, 512, &error);
  g_assert_no_error (error);
  cugi_test_gate_close (&gate, stream);
  g_assert_true (cugi_buffer_memset_d8 (buffer, 0, 1, 512, stream, &error));
  g_assert_true (cugi_buffer_free (buffer, &error));
  g_assert_no_error (error);
  g_clear_object (&buffer);
  assert_figures (pool, 512, 512);
  cugi_test_gate_open (&gate, stream);
  cugi_test_settle (stream);
  cugi_test_synchronize (stream);
  assert_figures (pool, 0, 512);
  g_assert_true (cugi_stream_ordered_pool_trim_to (pool, 0, &error));
}

static void
test_pool_errors (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiStreamOrderedPool) bare = g_object_new (CUGI_TYPE_STREAM_ORDERED_POOL, NULL);
  g_autoptr(CugiStreamOrderedPool) pool = default_pool ();
  g_autoptr(CugiBuffer) empty = NULL;

  g_assert_null (cugi_stream_ordered_pool_allocate (bare, NULL, 16, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_STATE, "cugi_stream_ordered_pool_new");
  g_assert_cmpuint (cugi_stream_ordered_pool_get_used_current (bare, &error), ==, 0);
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_STATE, NULL);
  cugi_test_assert_fails (cugi_stream_ordered_pool_trim_to (bare, 0, &error), &error,
                          CUGI_ERROR_INVALID_STATE, NULL);
  empty = cugi_stream_ordered_pool_allocate (pool, NULL, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (cugi_buffer_get_size (empty), ==, 0);
}

/* More than the device has is the driver's OUT_OF_MEMORY, from the default
 * pool and one's own, which count nothing of it and go on serving. */
static void
test_out_of_memory (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  g_autoptr(CugiStreamOrderedPool) pool = cugi_stream_ordered_pool_new (NULL, &error);
  g_autoptr(CugiStreamOrderedPool) fallback = default_pool ();
  g_autoptr(CugiBuffer) buffer = NULL;
  const gsize too_much = (gsize) 1 << 63;

  g_assert_no_error (error);
  g_assert_null (cugi_stream_ordered_pool_allocate (pool, stream, too_much, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_OUT_OF_MEMORY, NULL);
  g_assert_null (cugi_stream_ordered_pool_allocate (pool, stream, G_MAXSIZE, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_OUT_OF_MEMORY, NULL);
  assert_figures (pool, 0, 0);
  buffer = cugi_stream_ordered_pool_allocate (pool, stream, 256, &error);
  g_assert_no_error (error);
  assert_figures (pool, 256, 256);
  g_clear_object (&buffer);

  g_assert_true (cugi_stream_ordered_pool_trim_to (fallback, 0, &error));
  g_assert_null (cugi_buffer_new_on_stream (stream, too_much, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_OUT_OF_MEMORY, NULL);
  assert_figures (fallback, 0, 0);
  buffer = cugi_buffer_new_on_stream (stream, 256, &error);
  g_assert_no_error (error);
  g_assert_true (cugi_buffer_memset_d8 (buffer, 0, 7, 256, stream, &error));
  g_assert_no_error (error);
  g_clear_object (&buffer);
  /* The frees, enqueued once the main context has seen the memset done. */
  cugi_test_settle (stream);
  cugi_test_synchronize (stream);
  assert_figures (pool, 0, 256);
  assert_figures (fallback, 0, 256);
  g_assert_true (cugi_stream_ordered_pool_trim_to (fallback, 0, &error));
}

/* Rows of a pitched region are set and the bytes between them are not. */
static void
test_memset_2d (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  g_autoptr(CugiBuffer) buffer = cugi_buffer_new_on_stream (stream, 64, &error);
  guint8 *memory;

  g_assert_no_error (error);
  memory = GSIZE_TO_POINTER (cugi_buffer_get_device_pointer (buffer));
  g_assert_true (cugi_buffer_memset_d8 (buffer, 0, 0, 64, stream, &error));
  /* 3 rows of 10 bytes, 16 apart, from byte 4. */
  g_assert_true (cugi_buffer_memset_2d_d8 (buffer, 4, 16, 0xab, 10, 3, stream, &error));
  g_assert_no_error (error);
  cugi_test_synchronize (stream);
  for (guint i = 0; i < 64; i++)
    {
      gboolean inside = i >= 4 && i < 4 + 3 * 16 && (i - 4) % 16 < 10;

      g_assert_cmpuint (memory[i], ==, inside ? 0xab : 0);
    }

  /* Empty regions succeed without the driver. */
  g_assert_true (cugi_buffer_memset_2d_d32 (buffer, 64, 16, 7, 0, 3, stream, &error));
  g_assert_true (cugi_buffer_memset_2d_d16 (buffer, 0, 16, 7, 8, 0, stream, &error));
  g_assert_no_error (error);

  /* A row wider than the pitch, a region past the end, misalignment. */
  cugi_test_assert_fails (cugi_buffer_memset_2d_d8 (buffer, 0, 8, 1, 10, 2, stream, &error), &error,
                          CUGI_ERROR_INVALID_ARGUMENT, "pitch");
  cugi_test_assert_fails (cugi_buffer_memset_2d_d32 (buffer, 0, 16, 1, 4, 5, stream, &error), &error,
                          CUGI_ERROR_INVALID_ARGUMENT, "Out of range");
  cugi_test_assert_fails (cugi_buffer_memset_2d_d8 (buffer, G_MAXSIZE, 16, 1, 1, 1, stream, &error), &error,
                          CUGI_ERROR_INVALID_ARGUMENT, "Out of range");
  cugi_test_assert_fails (cugi_buffer_memset_2d_d16 (buffer, 0, 15, 1, 4, 2, stream, &error), &error,
                          CUGI_ERROR_INVALID_ARGUMENT, "Pitch 15 is misaligned");
  cugi_test_assert_fails (cugi_buffer_memset_2d_d32 (buffer, 2, 16, 1, 2, 2, stream, &error), &error,
                          CUGI_ERROR_INVALID_ARGUMENT, "misaligned");
  cugi_test_assert_fails (cugi_buffer_memset_2d_d16 (buffer, 0, G_MAXSIZE, 1, G_MAXSIZE, 1, stream, &error),
                          &error, CUGI_ERROR_INVALID_ARGUMENT, NULL);
  g_assert_true (cugi_buffer_free (buffer, &error));
  cugi_test_assert_fails (cugi_buffer_memset_2d_d8 (buffer, 0, 16, 1, 1, 1, stream, &error), &error,
                          CUGI_ERROR_INVALID_STATE, "freed");
}

/* ---- attaching managed memory --------------------------------------------- */

static void
test_attach (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  g_autoptr(CugiBuffer) plain = cugi_buffer_new_on_stream (stream, 64, &error);
  g_autoptr(CugiBuffer) managed = NULL;
  void (*last_attach) (CUstream *, CUdeviceptr *, size_t *, unsigned int *) =
    cugi_test_stand_in_symbol ("fake_cuda_streams_last_attach");
  CUstream attached_stream = NULL;
  CUdeviceptr attached = 0;
  size_t length = 1;
  unsigned int flags = 0;

  managed = cugi_buffer_new_managed (NULL, 256, CUGI_MEM_ATTACH_GLOBAL, &error);
  g_assert_no_error (error);

  cugi_test_assert_fails (cugi_buffer_attach (plain, stream, CUGI_MEM_ATTACH_HOST, &error), &error,
                          CUGI_ERROR_INVALID_ARGUMENT, "not managed");
  cugi_test_assert_fails (cugi_buffer_attach (managed, NULL, CUGI_MEM_ATTACH_SINGLE, &error), &error,
                          CUGI_ERROR_INVALID_ARGUMENT, "single stream");
  cugi_test_assert_fails (cugi_buffer_attach (managed, stream, 3, &error), &error,
                          CUGI_ERROR_INVALID_ARGUMENT, NULL);

  g_assert_true (cugi_buffer_attach (managed, stream, CUGI_MEM_ATTACH_SINGLE, &error));
  g_assert_no_error (error);
  last_attach (&attached_stream, &attached, &length, &flags);
  g_assert_true (attached_stream == cugi_stream_get_handle (stream));
  g_assert_cmpuint (attached, ==, cugi_buffer_get_device_pointer (managed));
  g_assert_cmpuint (length, ==, 0);
  g_assert_cmpuint (flags, ==, CU_MEM_ATTACH_SINGLE);
  g_assert_true (cugi_buffer_attach (managed, NULL, CUGI_MEM_ATTACH_GLOBAL, &error));
  last_attach (&attached_stream, &attached, &length, &flags);
  g_assert_cmpuint (flags, ==, CU_MEM_ATTACH_GLOBAL);
  cugi_test_synchronize (stream);
  g_clear_object (&managed);
}

int
main (int argc, char **argv)
{
  cugi_test_init_stand_in (&argc, &argv);

  g_test_add_func ("/alloc-logic/on-stream", test_on_stream);
  g_test_add_func ("/alloc-logic/own-pool", test_own_pool);
  g_test_add_func ("/alloc-logic/free-waits-for-work", test_free_waits_for_work);
  g_test_add_func ("/alloc-logic/pool-errors", test_pool_errors);
  g_test_add_func ("/alloc-logic/out-of-memory", test_out_of_memory);
  g_test_add_func ("/alloc-logic/memset-2d", test_memset_2d);
  g_test_add_func ("/alloc-logic/attach", test_attach);

  return g_test_run ();
}
