/* test-buffer.c: CugiBuffer on a GPU: transfers, views, copies, memsets,
 * pitched and managed memory, IPC, lifetimes and the async transfers */
#include "config.h"

#include <string.h>

#include "cugi-context-private.h"
#include "cugi-private.h"
#include "cugi-memory-private.h"
#include "cugi-stream-private.h"
#include "gpu-work.h"

/* ---- helpers -------------------------------------------------------------- */

/* Part of @bytes, for comparisons. */
static GBytes *
slice (GBytes *bytes,
       gsize   offset,
       gsize   size)
{
  return g_bytes_new_from_bytes (bytes, offset, size);
}

/* Waits for the @calls-th callback of @outcome's transfer, which succeeded
 * and ran in this thread. */
static void
wait_for_success (CugiTestTransfer *outcome,
                  guint             calls)
{
  iterate_until (&outcome->calls, calls, 10000);
  g_assert_no_error (outcome->error);
  g_assert_true (outcome->thread == g_thread_self ());
}

/* ---- basics --------------------------------------------------------------- */

static void
test_properties (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiContext) context = cugi_test_default_context ();
  g_autoptr(CugiBuffer) buffer = cugi_test_buffer_new (1024);
  g_autoptr(CugiContext) property_context = NULL;
  g_autoptr(CugiBuffer) parent = NULL;
  guint64 size = 0, device_pointer = 0, pitch = 1;
  gboolean managed = TRUE, freed = TRUE;
  CUdeviceptr address = 0;

  g_object_get (buffer, "size", &size, "device-pointer", &device_pointer, "context", &property_context,
                "pitch", &pitch, "is-managed", &managed, "freed", &freed, "parent", &parent, NULL);
  g_assert_cmpuint (size, ==, 1024);
  g_assert_cmpuint (device_pointer, !=, 0);
  g_assert_true (property_context == context);
  g_assert_cmpuint (pitch, ==, 0);
  g_assert_false (managed);
  g_assert_false (freed);
  g_assert_null (parent);

  g_assert_cmpuint (cugi_buffer_get_size (buffer), ==, 1024);
  g_assert_cmpuint (cugi_buffer_get_device_pointer (buffer), ==, device_pointer);
  g_assert_true (cugi_buffer_get_context (buffer) == context);
  g_assert_true (cugi_buffer_get_address (buffer, &address, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (address, ==, device_pointer);

  /* The driver knows the allocation. */
  {
    g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
    CUdeviceptr base = 0;
    size_t range = 0;

    g_assert_true (cugi_context_enter (context, &scope, &error));
    g_assert_cmpint (cugi_cuda.cuMemGetAddressRange (&base, &range, address), ==, CUDA_SUCCESS);
    g_assert_cmpuint (base, ==, address);
    g_assert_cmpuint (range, >=, 1024);
  }
}

static void
test_round_trip (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) pattern = cugi_test_pattern_new (1 << 20, 1);
  g_autoptr(GBytes) patch = cugi_test_pattern_new (100, 2);
  g_autoptr(CugiBuffer) buffer = cugi_test_buffer_new_with (pattern);
  g_autoptr(GBytes) whole = cugi_test_download_all (buffer);
  g_autoptr(GBytes) patched = NULL;
  g_autoptr(GBytes) before = NULL;
  g_autoptr(GBytes) after = NULL;
  g_autoptr(GBytes) expected_before = slice (pattern, 0, 1000);
  g_autoptr(GBytes) expected_after = slice (pattern, 1100, (1 << 20) - 1100);

  cugi_test_assert_bytes_equal (whole, pattern);

  /* Writing at an offset changes those bytes only. */
  g_assert_true (cugi_buffer_upload (buffer, 1000, g_bytes_get_data (patch, NULL), 100, &error));
  g_assert_no_error (error);
  patched = cugi_test_download (buffer, 1000, 100);
  cugi_test_assert_bytes_equal (patched, patch);
  before = cugi_test_download (buffer, 0, 1000);
  cugi_test_assert_bytes_equal (before, expected_before);
  after = cugi_test_download (buffer, 1100, (1 << 20) - 1100);
  cugi_test_assert_bytes_equal (after, expected_after);

  /* The last byte, and a download of nothing at the end. */
  {
    g_autoptr(GBytes) last = cugi_test_download (buffer, (1 << 20) - 1, 1);
    g_autoptr(GBytes) nothing = cugi_test_download (buffer, 1 << 20, 0);

    g_assert_cmpint (((const guint8 *) g_bytes_get_data (last, NULL))[0], ==,
                     ((const guint8 *) g_bytes_get_data (pattern, NULL))[(1 << 20) - 1]);
    g_assert_cmpuint (g_bytes_get_size (nothing), ==, 0);
  }
}

static void
test_views (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) pattern = cugi_test_pattern_new (4096, 3);
  g_autoptr(GBytes) patch = cugi_test_pattern_new (512, 4);
  CugiBuffer *parent = cugi_test_buffer_new_with (pattern);
  g_autoptr(CugiBuffer) view = NULL;
  g_autoptr(CugiBuffer) inner = NULL;
  g_autoptr(GBytes) through_parent = NULL;
  g_autoptr(GBytes) through_view = NULL;
  g_autoptr(GBytes) through_inner = NULL;
  g_autoptr(GBytes) expected_inner = slice (patch, 256, 256);
  gpointer weak_parent = parent;

  view = cugi_buffer_new_view (parent, 1024, 512, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (cugi_buffer_get_size (view), ==, 512);
  g_assert_cmpuint (cugi_buffer_get_device_pointer (view), ==, cugi_buffer_get_device_pointer (parent) + 1024);
  g_assert_true (cugi_buffer_get_parent (view) == parent);
  g_assert_true (cugi_buffer_get_context (view) == cugi_buffer_get_context (parent));

  /* Writes through the view land in the parent. */
  g_assert_true (cugi_buffer_upload_bytes (view, 0, patch, &error));
  g_assert_no_error (error);
  through_parent = cugi_test_download (parent, 1024, 512);
  cugi_test_assert_bytes_equal (through_parent, patch);
  through_view = cugi_test_download_all (view);
  cugi_test_assert_bytes_equal (through_view, patch);

  /* A view of a view is a view of the parent. */
  inner = cugi_buffer_new_view (view, 256, 256, &error);
  g_assert_no_error (error);
  g_assert_true (cugi_buffer_get_parent (inner) == parent);
  g_assert_cmpuint (cugi_buffer_get_device_pointer (inner), ==, cugi_buffer_get_device_pointer (parent) + 1280);
  through_inner = cugi_test_download_all (inner);
  cugi_test_assert_bytes_equal (through_inner, expected_inner);

  /* Views are checked against their own size. */
  g_assert_null (cugi_buffer_new_view (view, 256, 257, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, NULL);
  g_assert_null (cugi_buffer_download (view, 500, 13, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, NULL);

  /* A view keeps its parent alive. */
  g_object_add_weak_pointer (G_OBJECT (parent), &weak_parent);
  g_object_unref (parent);
  g_assert_nonnull (weak_parent);
  g_clear_pointer (&through_view, g_bytes_unref);
  through_view = cugi_test_download_all (view);
  cugi_test_assert_bytes_equal (through_view, patch);
  g_clear_object (&view);
  g_assert_nonnull (weak_parent);
  g_clear_object (&inner);
  g_assert_null (weak_parent);
}

static void
test_view_of_freed_parent (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiBuffer) parent = cugi_test_buffer_new (4096);
  g_autoptr(CugiBuffer) view = cugi_buffer_new_view (parent, 16, 64, &error);

  g_assert_no_error (error);
  g_assert_true (cugi_buffer_free (parent, &error));
  g_assert_no_error (error);

  g_assert_null (cugi_buffer_download (view, 0, 64, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_STATE, NULL);
  g_assert_false (cugi_buffer_memset_d8 (view, 0, 1, 64, NULL, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_STATE, NULL);
  g_assert_null (cugi_buffer_new_view (view, 0, 8, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_STATE, NULL);
  g_assert_cmpuint (cugi_buffer_get_device_pointer (view), ==, 0);
}

static void
test_copy (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) pattern = cugi_test_pattern_new (4096, 5);
  g_autoptr(CugiBuffer) src = cugi_test_buffer_new_with (pattern);
  g_autoptr(CugiBuffer) dst = cugi_test_buffer_new (4096);
  g_autoptr(GBytes) copied = NULL;
  g_autoptr(GBytes) untouched = NULL;
  g_autoptr(GBytes) expected = slice (pattern, 200, 1000);
  guint8 zeros[100] = { 0 };

  g_assert_true (cugi_buffer_memset_d8 (dst, 0, 0, 4096, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (cugi_buffer_copy (dst, 100, src, 200, 1000, NULL, &error));
  g_assert_no_error (error);

  copied = cugi_test_download (dst, 100, 1000);
  cugi_test_assert_bytes_equal (copied, expected);
  untouched = cugi_test_download (dst, 0, 100);
  g_assert_cmpmem (g_bytes_get_data (untouched, NULL), 100, zeros, 100);

  /* Within one buffer, between ranges that do not overlap. */
  g_assert_true (cugi_buffer_copy (src, 3000, src, 0, 1000, NULL, &error));
  g_assert_no_error (error);
  {
    g_autoptr(GBytes) moved = cugi_test_download (src, 3000, 1000);
    g_autoptr(GBytes) head = slice (pattern, 0, 1000);

    cugi_test_assert_bytes_equal (moved, head);
  }
  cugi_test_settle (NULL);
}

static void
test_copy_on_stream (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NONE);
  g_autoptr(GBytes) pattern = cugi_test_pattern_new (8 << 20, 6);
  CugiBuffer *src = cugi_test_buffer_new_with (pattern);
  g_autoptr(CugiBuffer) dst = cugi_test_buffer_new (8 << 20);
  g_autoptr(GBytes) copied = NULL;
  gpointer weak_src = src;

  g_object_add_weak_pointer (G_OBJECT (src), &weak_src);

  /* The copy waits behind 50 ms of work; the source is dropped meanwhile. */
  spin (spinner (), stream, 50);
  g_assert_true (cugi_buffer_copy (dst, 0, src, 0, 8 << 20, stream, &error));
  g_assert_no_error (error);
  g_object_unref (src);
  g_assert_nonnull (weak_src);

  cugi_test_settle (stream);
  iterate_until_finalized (&weak_src, 10000);
  copied = cugi_test_download_all (dst);
  cugi_test_assert_bytes_equal (copied, pattern);
}

static void
test_free_during_copy (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NONE);
  g_autoptr(GBytes) pattern = cugi_test_pattern_new (8 << 20, 7);
  g_autoptr(CugiBuffer) src = cugi_test_buffer_new_with (pattern);
  g_autoptr(CugiBuffer) dst = cugi_test_buffer_new (8 << 20);
  g_autoptr(GBytes) copied = NULL;

  spin (spinner (), stream, 50);
  g_assert_true (cugi_buffer_copy (dst, 0, src, 0, 8 << 20, stream, &error));
  g_assert_no_error (error);

  /* Freed at once for the caller; the memory stays until the copy is done. */
  g_assert_true (cugi_buffer_free (src, &error));
  g_assert_no_error (error);
  g_assert_true (cugi_buffer_is_freed (src));

  cugi_test_settle (stream);
  copied = cugi_test_download_all (dst);
  cugi_test_assert_bytes_equal (copied, pattern);
}

static void
test_peer_copy (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiContext) other = cugi_context_new (NULL, CUGI_CONTEXT_FLAGS_NONE, &error);
  g_autoptr(GBytes) pattern = cugi_test_pattern_new (1 << 20, 8);
  g_autoptr(CugiBuffer) here = cugi_test_buffer_new_with (pattern);
  g_autoptr(CugiBuffer) there = NULL;
  g_autoptr(CugiBuffer) back = cugi_test_buffer_new (1 << 20);
  g_autoptr(GBytes) in_other = NULL;
  g_autoptr(GBytes) round_trip = NULL;

  g_assert_no_error (error);
  g_assert_true (cugi_context_get_handle (other) != cugi_context_get_handle (cugi_buffer_get_context (here)));
  there = cugi_buffer_new (other, 1 << 20, &error);
  g_assert_no_error (error);
  g_assert_true (cugi_buffer_get_context (there) == other);

  /* Contexts differ: a peer copy each way. */
  g_assert_true (cugi_buffer_copy (there, 0, here, 0, 1 << 20, NULL, &error));
  g_assert_no_error (error);
  in_other = cugi_test_download_all (there);
  cugi_test_assert_bytes_equal (in_other, pattern);

  g_assert_true (cugi_buffer_copy (back, 0, there, 0, 1 << 20, NULL, &error));
  g_assert_no_error (error);
  round_trip = cugi_test_download_all (back);
  cugi_test_assert_bytes_equal (round_trip, pattern);
  g_assert_true (cugi_stream_synchronize (cugi_stream_resolve (NULL, other), &error));
  g_assert_no_error (error);

  /* Work on a buffer goes to a stream of its own context. */
  {
    g_autoptr(CugiStream) foreign = cugi_stream_new (other, CUGI_STREAM_FLAGS_NONE, 0, &error);

    g_assert_no_error (error);
    g_assert_false (cugi_buffer_copy (back, 0, here, 0, 64, foreign, &error));
    cugi_test_assert_error (&error, CUGI_ERROR_INVALID_CONTEXT, NULL);
    g_assert_false (cugi_buffer_memset_d8 (here, 0, 0, 64, foreign, &error));
    cugi_test_assert_error (&error, CUGI_ERROR_INVALID_CONTEXT, NULL);
    /* The destination's context decides, even for a peer copy. */
    g_assert_true (cugi_buffer_copy (there, 0, here, 0, 64, foreign, &error));
    g_assert_no_error (error);
    cugi_test_synchronize (foreign);
  }

  /* And a 2D copy between contexts: 16 rows of 64 bytes, 128 apart. */
  g_assert_true (cugi_buffer_memset_d8 (back, 0, 0, 1 << 20, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (cugi_buffer_copy_2d (back, 0, 64, there, 0, 128, 64, 16, NULL, &error));
  g_assert_no_error (error);
  {
    g_autoptr(GBytes) rows = cugi_test_download (back, 0, 64 * 16);
    const guint8 *got = g_bytes_get_data (rows, NULL);
    const guint8 *want = g_bytes_get_data (pattern, NULL);

    for (gsize row = 0; row < 16; row++)
      g_assert_cmpmem (got + row * 64, 64, want + row * 128, 64);
  }
  cugi_test_settle (NULL);
}

/* ---- errors --------------------------------------------------------------- */

static void
assert_invalid_argument (GError    **error,
                         const char *fragment)
{
  cugi_test_assert_error (error, CUGI_ERROR_INVALID_ARGUMENT, fragment);
}

static void
test_out_of_range (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiBuffer) buffer = cugi_test_buffer_new (1024);
  g_autoptr(CugiBuffer) other = cugi_test_buffer_new (1024);
  guint8 data[100] = { 0 };

  g_assert_false (cugi_buffer_upload (buffer, 1000, data, 100, &error));
  /* The message names the offset, the size and the buffer's size. */
  assert_invalid_argument (&error, "1000");
  g_assert_false (cugi_buffer_upload (buffer, 1000, data, 100, &error));
  assert_invalid_argument (&error, "1024");
  g_assert_false (cugi_buffer_upload (buffer, G_MAXSIZE, data, 1, &error));
  assert_invalid_argument (&error, NULL);
  g_assert_false (cugi_buffer_upload (buffer, 1025, data, 0, &error));
  assert_invalid_argument (&error, NULL);

  g_assert_null (cugi_buffer_download (buffer, 1024, 1, &error));
  assert_invalid_argument (&error, NULL);
  g_assert_null (cugi_buffer_download (buffer, G_MAXSIZE, 2, &error));
  assert_invalid_argument (&error, NULL);
  g_assert_null (cugi_buffer_download (buffer, 1, G_MAXSIZE, &error));
  assert_invalid_argument (&error, NULL);

  g_assert_false (cugi_buffer_copy (buffer, 1000, other, 0, 100, NULL, &error));
  assert_invalid_argument (&error, "destination");
  g_assert_false (cugi_buffer_copy (buffer, 0, other, G_MAXSIZE, 100, NULL, &error));
  assert_invalid_argument (&error, "source");
  g_assert_false (cugi_buffer_copy (buffer, 0, other, 0, G_MAXSIZE, NULL, &error));
  assert_invalid_argument (&error, NULL);

  g_assert_null (cugi_buffer_new_view (buffer, G_MAXSIZE, 2, &error));
  assert_invalid_argument (&error, NULL);
  g_assert_false (cugi_buffer_memset_d8 (buffer, 1000, 0, 25, NULL, &error));
  assert_invalid_argument (&error, NULL);
  g_assert_false (cugi_buffer_memset_d32 (buffer, 0, 0, G_MAXSIZE / 2, NULL, &error));
  assert_invalid_argument (&error, NULL);
  g_assert_false (cugi_buffer_copy_2d (buffer, 0, 128, other, 0, 128, 128, 9, NULL, &error));
  assert_invalid_argument (&error, NULL);
  g_assert_false (cugi_buffer_copy_2d (buffer, 0, G_MAXSIZE, other, 0, 128, 128, 3, NULL, &error));
  assert_invalid_argument (&error, NULL);
}

static void
test_use_after_free (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiBuffer) buffer = cugi_test_buffer_new (4096);
  g_autoptr(CugiBuffer) other = cugi_test_buffer_new (4096);
  g_autoptr(CugiHostBuffer) host = cugi_host_buffer_new (NULL, 4096, CUGI_HOST_BUFFER_FLAGS_NONE, &error);
  guint8 data[16] = { 0 };
  guint notifications = 0;
  CUdeviceptr address = 0;

  g_assert_no_error (error);
  g_signal_connect (buffer, "notify::freed", G_CALLBACK (cugi_test_count_notify), &notifications);
  g_assert_true (cugi_buffer_free (buffer, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (notifications, ==, 1);
  g_assert_true (cugi_buffer_is_freed (buffer));
  g_assert_cmpuint (cugi_buffer_get_device_pointer (buffer), ==, 0);
  /* The size is still what it was. */
  g_assert_cmpuint (cugi_buffer_get_size (buffer), ==, 4096);

#define ASSERT_FREED(call) cugi_test_assert_fails ((call), &error, CUGI_ERROR_INVALID_STATE, "freed")

  ASSERT_FREED (cugi_buffer_get_address (buffer, &address, &error));
  ASSERT_FREED (cugi_buffer_upload (buffer, 0, data, 16, &error));
  ASSERT_FREED (cugi_buffer_upload (buffer, 0, NULL, 0, &error));
  {
    g_autoptr(GBytes) bytes = g_bytes_new (data, 16);

    ASSERT_FREED (cugi_buffer_upload_bytes (buffer, 0, bytes, &error));
  }
  ASSERT_FREED (cugi_buffer_download (buffer, 0, 16, &error) != NULL);
  ASSERT_FREED (cugi_buffer_download (buffer, 0, 0, &error) != NULL);
  ASSERT_FREED (cugi_buffer_copy (buffer, 0, other, 0, 16, NULL, &error));
  ASSERT_FREED (cugi_buffer_copy (other, 0, buffer, 0, 16, NULL, &error));
  ASSERT_FREED (cugi_buffer_new_view (buffer, 0, 16, &error) != NULL);
  ASSERT_FREED (cugi_buffer_memset_d8 (buffer, 0, 1, 16, NULL, &error));
  ASSERT_FREED (cugi_buffer_memset_d16 (buffer, 0, 1, 8, NULL, &error));
  ASSERT_FREED (cugi_buffer_memset_d32 (buffer, 0, 1, 4, NULL, &error));
  ASSERT_FREED (cugi_buffer_copy_2d (buffer, 0, 16, other, 0, 16, 16, 1, NULL, &error));
  ASSERT_FREED (cugi_buffer_copy_2d (other, 0, 16, buffer, 0, 16, 16, 1, NULL, &error));
  ASSERT_FREED (cugi_buffer_upload_2d (buffer, 0, 16, data, 16, 16, 1, &error));
  ASSERT_FREED (cugi_buffer_download_2d (buffer, 0, 16, 16, 1, &error) != NULL);
  ASSERT_FREED (cugi_buffer_copy_3d (buffer, 0, 16, 1, other, 0, 16, 1, 16, 1, 1, NULL, &error));
  ASSERT_FREED (cugi_buffer_upload_3d (buffer, 0, 16, 1, data, 16, 16, 1, 1, &error));
  ASSERT_FREED (cugi_buffer_download_3d (buffer, 0, 16, 1, 16, 1, 1, &error) != NULL);
  ASSERT_FREED (cugi_buffer_upload_from_host (buffer, 0, host, 0, 16, NULL, &error));
  ASSERT_FREED (cugi_buffer_download_to_host (buffer, 0, host, 0, 16, NULL, &error));
  ASSERT_FREED (cugi_buffer_prefetch (buffer, NULL, NULL, &error));
  ASSERT_FREED (cugi_buffer_advise (buffer, CUGI_MEM_ADVICE_SET_READ_MOSTLY, NULL, &error));
  ASSERT_FREED (cugi_buffer_get_ipc_handle (buffer, &error) != NULL);
  /* Freeing twice is the same error, not a crash. */
  ASSERT_FREED (cugi_buffer_free (buffer, &error));
  g_assert_cmpuint (notifications, ==, 1);

#undef ASSERT_FREED
}

static void
test_async_after_free (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiBuffer) buffer = cugi_test_buffer_new (4096);
  g_autoptr(GBytes) bytes = cugi_test_pattern_new (16, 9);
  CugiTestTransfer downloaded = { 0 };
  CugiTestTransfer uploaded = { 0 };

  g_assert_true (cugi_buffer_free (buffer, &error));
  cugi_buffer_download_async (buffer, 0, 16, NULL, NULL, cugi_test_on_downloaded, &downloaded);
  cugi_buffer_upload_bytes_async (buffer, 0, bytes, NULL, NULL, cugi_test_on_uploaded, &uploaded);
  iterate_until (&downloaded.calls, 1, 5000);
  iterate_until (&uploaded.calls, 1, 5000);
  g_assert_error (downloaded.error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE);
  g_assert_null (downloaded.bytes);
  g_assert_error (uploaded.error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE);
  g_assert_false (uploaded.uploaded);
  cugi_test_transfer_clear (&downloaded);
  cugi_test_transfer_clear (&uploaded);
}

static void
test_zero_size (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiBuffer) empty = cugi_test_buffer_new (0);
  g_autoptr(CugiBuffer) other = cugi_test_buffer_new (64);
  g_autoptr(CugiBuffer) view = NULL;
  g_autoptr(GBytes) nothing = NULL;
  CugiTestTransfer downloaded = { 0 };

  g_assert_cmpuint (cugi_buffer_get_size (empty), ==, 0);
  g_assert_cmpuint (cugi_buffer_get_device_pointer (empty), ==, 0);
  g_assert_false (cugi_buffer_is_freed (empty));

  /* Every transfer of 0 bytes at offset 0 succeeds. */
  g_assert_true (cugi_buffer_upload (empty, 0, NULL, 0, &error));
  g_assert_no_error (error);
  nothing = cugi_buffer_download (empty, 0, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_bytes_get_size (nothing), ==, 0);
  g_assert_true (cugi_buffer_copy (empty, 0, other, 10, 0, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (cugi_buffer_copy (other, 64, empty, 0, 0, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (cugi_buffer_memset_d32 (empty, 0, 7, 0, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (cugi_buffer_copy_2d (empty, 0, 16, other, 0, 16, 16, 0, NULL, &error));
  g_assert_no_error (error);
  view = cugi_buffer_new_view (empty, 0, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (cugi_buffer_get_size (view), ==, 0);

  /* But not beyond the end. */
  g_assert_null (cugi_buffer_download (empty, 1, 0, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, NULL);
  g_assert_false (cugi_buffer_upload (empty, 0, (const guint8 *) "x", 1, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, NULL);

  /* Nothing to export. */
  g_assert_null (cugi_buffer_get_ipc_handle (empty, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, NULL);

  cugi_buffer_download_async (empty, 0, 0, NULL, NULL, cugi_test_on_downloaded, &downloaded);
  wait_for_success (&downloaded, 1);
  g_assert_cmpuint (g_bytes_get_size (downloaded.bytes), ==, 0);
  cugi_test_transfer_clear (&downloaded);

  /* Views of 0 bytes fit anywhere up to the end of a buffer. */
  g_clear_object (&view);
  view = cugi_buffer_new_view (other, 64, 0, &error);
  g_assert_no_error (error);

  /* Freeing works as for any buffer. */
  g_assert_true (cugi_buffer_free (empty, &error));
  g_assert_no_error (error);
  g_assert_false (cugi_buffer_free (empty, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_STATE, NULL);
  g_assert_false (cugi_buffer_upload (empty, 0, NULL, 0, &error));
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE);
}

/* ---- memsets -------------------------------------------------------------- */

static void
test_memset (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiBuffer) buffer = cugi_test_buffer_new (4096);
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NONE);
  g_autoptr(GBytes) result = NULL;
  guint8 expected[4096];
  const guint16 half = 0x1234;
  const guint32 word = 0xdeadbeef;

  g_assert_true (cugi_buffer_memset_d8 (buffer, 0, 0xab, 4096, NULL, &error));
  g_assert_no_error (error);
  memset (expected, 0xab, sizeof expected);

  g_assert_true (cugi_buffer_memset_d16 (buffer, 2, half, 10, NULL, &error));
  g_assert_no_error (error);
  for (gsize i = 0; i < 10; i++)
    memcpy (expected + 2 + 2 * i, &half, 2);

  g_assert_true (cugi_buffer_memset_d32 (buffer, 40, word, 4, NULL, &error));
  g_assert_no_error (error);
  for (gsize i = 0; i < 4; i++)
    memcpy (expected + 40 + 4 * i, &word, 4);

  /* On a stream, too. */
  g_assert_true (cugi_buffer_memset_d8 (buffer, 4000, 0x11, 96, stream, &error));
  g_assert_no_error (error);
  memset (expected + 4000, 0x11, 96);
  cugi_test_settle (stream);

  result = cugi_test_download_all (buffer);
  g_assert_cmpmem (g_bytes_get_data (result, NULL), 4096, expected, 4096);

  /* Misaligned starts. */
  g_assert_false (cugi_buffer_memset_d16 (buffer, 1, half, 4, NULL, &error));
  assert_invalid_argument (&error, "1");
  g_assert_false (cugi_buffer_memset_d32 (buffer, 2, word, 4, NULL, &error));
  assert_invalid_argument (&error, NULL);
  g_assert_false (cugi_buffer_memset_d32 (buffer, 4093, word, 0, NULL, &error));
  assert_invalid_argument (&error, NULL);
  /* Past the end, in elements. */
  g_assert_false (cugi_buffer_memset_d32 (buffer, 4088, word, 3, NULL, &error));
  assert_invalid_argument (&error, NULL);
  g_assert_false (cugi_buffer_memset_d16 (buffer, 0, half, G_MAXSIZE, NULL, &error));
  assert_invalid_argument (&error, NULL);

  /* A view at an odd offset is misaligned at its own offset 0. */
  {
    g_autoptr(CugiBuffer) odd = cugi_buffer_new_view (buffer, 1, 64, &error);

    g_assert_no_error (error);
    g_assert_false (cugi_buffer_memset_d16 (odd, 0, half, 2, NULL, &error));
    assert_invalid_argument (&error, NULL);
    g_assert_true (cugi_buffer_memset_d16 (odd, 1, half, 2, NULL, &error));
    g_assert_no_error (error);
  }
  cugi_test_settle (NULL);

  /* Nothing changed by the failed calls; the last one wrote bytes 2..5. */
  memcpy (expected + 2, &half, 2);
  memcpy (expected + 4, &half, 2);
  g_clear_pointer (&result, g_bytes_unref);
  result = cugi_test_download_all (buffer);
  g_assert_cmpmem (g_bytes_get_data (result, NULL), 4096, expected, 4096);
}

/* ---- pitched, 2D and 3D --------------------------------------------------- */

static void
test_pitched_2d (void)
{
  const gsize width = 100, height = 8;
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiBuffer) pitched = NULL;
  g_autoptr(CugiBuffer) packed = cugi_test_buffer_new (width * height);
  g_autoptr(CugiBuffer) rectangle = cugi_test_buffer_new (50 * 4);
  g_autoptr(GBytes) rows = cugi_test_pattern_new (width * height, 10);
  g_autoptr(GBytes) back = NULL;
  g_autoptr(GBytes) whole = NULL;
  g_autoptr(GBytes) repacked = NULL;
  g_autoptr(GBytes) part = NULL;
  const guint8 *expected = g_bytes_get_data (rows, NULL);
  guint64 pitch_property = 0;
  gsize pitch;

  /* The pitch is a property of the buffer, and only that. */
  pitched = cugi_buffer_new_pitched (NULL, width, height, 4, &error);
  g_assert_no_error (error);
  pitch = cugi_buffer_get_pitch (pitched);
  g_assert_cmpuint (pitch, >=, width);
  g_assert_cmpuint (pitch % 4, ==, 0);
  g_object_get (pitched, "pitch", &pitch_property, NULL);
  g_assert_cmpuint (pitch_property, ==, pitch);
  g_assert_cmpuint (cugi_buffer_get_size (pitched), ==, pitch * height);

  /* Packed rows in, the same rows out. */
  g_assert_true (cugi_buffer_upload_2d (pitched, 0, pitch, expected, width * height, width, height, &error));
  g_assert_no_error (error);
  back = cugi_buffer_download_2d (pitched, 0, pitch, width, height, &error);
  g_assert_no_error (error);
  cugi_test_assert_bytes_equal (back, rows);

  /* In the buffer, each row starts at a multiple of the pitch. */
  whole = cugi_test_download_all (pitched);
  for (gsize row = 0; row < height; row++)
    g_assert_cmpmem ((const guint8 *) g_bytes_get_data (whole, NULL) + row * pitch, width,
                     expected + row * width, width);

  /* Device to device: pitched to packed. */
  g_assert_true (cugi_buffer_copy_2d (packed, 0, width, pitched, 0, pitch, width, height, NULL, &error));
  g_assert_no_error (error);
  repacked = cugi_test_download_all (packed);
  cugi_test_assert_bytes_equal (repacked, rows);

  /* A 50 x 4 rectangle from row 2, column 10. */
  g_assert_true (cugi_buffer_copy_2d (rectangle, 0, 50, pitched, 2 * pitch + 10, pitch, 50, 4, NULL, &error));
  g_assert_no_error (error);
  part = cugi_test_download_all (rectangle);
  for (gsize row = 0; row < 4; row++)
    g_assert_cmpmem ((const guint8 *) g_bytes_get_data (part, NULL) + row * 50, 50,
                     expected + (row + 2) * width + 10, 50);

  /* Errors: data of the wrong size, rows wider than the pitch, too many rows,
   * a bad element size. */
  g_assert_false (cugi_buffer_upload_2d (pitched, 0, pitch, expected, width * height - 1, width, height, &error));
  assert_invalid_argument (&error, NULL);
  g_assert_null (cugi_buffer_download_2d (pitched, 0, pitch, pitch + 1, 1, &error));
  assert_invalid_argument (&error, "pitch");
  g_assert_null (cugi_buffer_download_2d (pitched, 0, pitch, width, height + 1, &error));
  assert_invalid_argument (&error, NULL);
  g_assert_null (cugi_buffer_download_2d (pitched, 1, pitch, pitch, height, &error));
  assert_invalid_argument (&error, NULL);
  g_assert_null (cugi_buffer_new_pitched (NULL, width, height, 3, &error));
  assert_invalid_argument (&error, "3");
  cugi_test_settle (NULL);
}

/* Video planes: rows padded differently on the host and on the device,
 * copied on a stream from and to pinned memory. */
static void
test_pitched_2d_host (void)
{
  const gsize width = 100, height = 8, host_pitch = 128, out_pitch = 112;
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  g_autoptr(CugiBuffer) pitched = NULL;
  g_autoptr(CugiHostBuffer) in = NULL;
  g_autoptr(CugiHostBuffer) out = NULL;
  g_autoptr(GBytes) rows = cugi_test_pattern_new (width * height, 3);
  g_autoptr(GBytes) back = NULL;
  const guint8 *expected = g_bytes_get_data (rows, NULL);
  guint8 *in_data, *out_data;
  gsize pitch;

  pitched = cugi_buffer_new_pitched (NULL, width, height, 4, &error);
  g_assert_no_error (error);
  pitch = cugi_buffer_get_pitch (pitched);
  in = cugi_host_buffer_new (NULL, host_pitch * height, CUGI_HOST_BUFFER_FLAGS_NONE, &error);
  g_assert_no_error (error);
  out = cugi_host_buffer_new (NULL, out_pitch * height, CUGI_HOST_BUFFER_FLAGS_NONE, &error);
  g_assert_no_error (error);
  in_data = cugi_host_buffer_get_data (in, NULL, &error);
  out_data = cugi_host_buffer_get_data (out, NULL, &error);
  g_assert_no_error (error);
  memset (in_data, 0xee, host_pitch * height);
  memset (out_data, 0x55, out_pitch * height);
  for (gsize row = 0; row < height; row++)
    memcpy (in_data + row * host_pitch, expected + row * width, width);

  /* Host pitch 128 -> device pitch -> host pitch 112, on one stream. */
  g_assert_true (cugi_buffer_upload_2d_from_host (pitched, 0, pitch, in, 0, host_pitch,
                                                  width, height, stream, &error));
  g_assert_no_error (error);
  g_assert_true (cugi_buffer_download_2d_to_host (pitched, 0, pitch, out, 0, out_pitch,
                                                  width, height, stream, &error));
  g_assert_no_error (error);
  cugi_test_synchronize (stream);

  back = cugi_buffer_download_2d (pitched, 0, pitch, width, height, &error);
  g_assert_no_error (error);
  cugi_test_assert_bytes_equal (back, rows);
  for (gsize row = 0; row < height; row++)
    {
      const guint8 *padding = out_data + row * out_pitch + width;

      g_assert_cmpmem (out_data + row * out_pitch, width, expected + row * width, width);
      for (gsize i = 0; i < out_pitch - width; i++)
        g_assert_cmpuint (padding[i], ==, 0x55);
    }

  /* Without a stream: done on return. Two rows from row 3, into row 0. */
  memset (out_data, 0, out_pitch * height);
  g_assert_true (cugi_buffer_download_2d_to_host (pitched, 3 * pitch, pitch, out, 0, out_pitch,
                                                  width, 2, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpmem (out_data, width, expected + 3 * width, width);
  g_assert_cmpmem (out_data + out_pitch, width, expected + 4 * width, width);

  /* Errors name the side that does not fit: host rows past its end, a host
   * pitch narrower than a row, device rows past the buffer. */
  g_assert_false (cugi_buffer_upload_2d_from_host (pitched, 0, pitch, in, host_pitch, host_pitch,
                                                   width, height, stream, &error));
  assert_invalid_argument (&error, "host buffer");
  g_assert_false (cugi_buffer_download_2d_to_host (pitched, 0, pitch, out, 0, width - 1,
                                                   width, 2, stream, &error));
  assert_invalid_argument (&error, "pitch");
  g_assert_false (cugi_buffer_upload_2d_from_host (pitched, 0, pitch, in, 0, host_pitch,
                                                   width, height + 1, NULL, &error));
  assert_invalid_argument (&error, NULL);
  cugi_test_settle (stream);
}

static void
test_3d (void)
{
  const gsize width = 32, height = 3, depth = 3, pitch = 64, slice_height = 4;
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiBuffer) box = cugi_test_buffer_new (pitch * slice_height * depth);
  g_autoptr(CugiBuffer) packed = cugi_test_buffer_new (width * height * depth);
  g_autoptr(GBytes) contents = cugi_test_pattern_new (width * height * depth, 11);
  g_autoptr(GBytes) back = NULL;
  g_autoptr(GBytes) whole = NULL;
  g_autoptr(GBytes) repacked = NULL;
  const guint8 *expected = g_bytes_get_data (contents, NULL);

  g_assert_true (cugi_buffer_upload_3d (box, 0, pitch, slice_height, expected, width * height * depth,
                                        width, height, depth, &error));
  g_assert_no_error (error);
  back = cugi_buffer_download_3d (box, 0, pitch, slice_height, width, height, depth, &error);
  g_assert_no_error (error);
  cugi_test_assert_bytes_equal (back, contents);

  /* Row y of slice z lies at (z * slice_height + y) * pitch. */
  whole = cugi_test_download_all (box);
  for (gsize z = 0; z < depth; z++)
    for (gsize y = 0; y < height; y++)
      g_assert_cmpmem ((const guint8 *) g_bytes_get_data (whole, NULL) + (z * slice_height + y) * pitch, width,
                       expected + (z * height + y) * width, width);

  g_assert_true (cugi_buffer_copy_3d (packed, 0, width, height, box, 0, pitch, slice_height,
                                      width, height, depth, NULL, &error));
  g_assert_no_error (error);
  repacked = cugi_test_download_all (packed);
  cugi_test_assert_bytes_equal (repacked, contents);

  /* More rows than a slice has. */
  g_assert_false (cugi_buffer_copy_3d (packed, 0, width, height, box, 0, pitch, 2,
                                       width, height, depth, NULL, &error));
  assert_invalid_argument (&error, NULL);
  cugi_test_settle (NULL);
}

/* ---- managed memory ------------------------------------------------------- */

static void
count_release (gpointer counter)
{
  g_atomic_int_inc ((gint *) counter);
}

/* Memory that other code allocated: wrapped without a copy, checked first,
 * and its owner released only once the work on it has completed. */
static void
test_new_for_address (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) pattern = cugi_test_pattern_new (1 << 20, 13);
  g_autoptr(CugiBuffer) owner = cugi_test_buffer_new_with (pattern);
  g_autoptr(CugiBuffer) wrapped = NULL;
  g_autoptr(CugiBuffer) empty = NULL;
  g_autoptr(CugiHostBuffer) host = NULL;
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  g_autoptr(GBytes) got = NULL;
  guint64 address = cugi_buffer_get_device_pointer (owner);
  gint released = 0;

  /* 64 KiB from 4 KiB in: the same bytes, both ways. */
  wrapped = cugi_buffer_new_for_address (NULL, address + 4096, 65536, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (cugi_buffer_get_device_pointer (wrapped), ==, address + 4096);
  g_assert_cmpuint (cugi_buffer_get_size (wrapped), ==, 65536);
  got = cugi_test_download_all (wrapped);
  g_assert_cmpmem (g_bytes_get_data (got, NULL), 65536,
                   (const guint8 *) g_bytes_get_data (pattern, NULL) + 4096, 65536);
  g_clear_pointer (&got, g_bytes_unref);
  g_assert_true (cugi_buffer_memset_d8 (wrapped, 0, 0x5a, 16, NULL, &error));
  g_assert_no_error (error);
  got = cugi_test_download (owner, 4096, 16);
  for (gsize i = 0; i < 16; i++)
    g_assert_cmpuint (((const guint8 *) g_bytes_get_data (got, NULL))[i], ==, 0x5a);
  g_clear_object (&wrapped);

  /* Not as described: refused, and the owner handed over is released. */
  g_assert_null (cugi_buffer_new_for_address_full (NULL, address + 4096, 1 << 20, &released,
                                                   count_release, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "fewer than");
  g_assert_cmpint (released, ==, 1);
  g_assert_null (cugi_buffer_new_for_address (NULL, 0x1000, 16, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "no memory the CUDA driver knows");
  host = cugi_host_buffer_new (NULL, 4096, CUGI_HOST_BUFFER_FLAGS_MAPPED, &error);
  g_assert_no_error (error);
  g_assert_null (cugi_buffer_new_for_address (NULL, cugi_host_buffer_get_device_pointer (host), 4096, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "host memory");
  empty = cugi_buffer_new_for_address (NULL, 0x1000, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (cugi_buffer_get_device_pointer (empty), ==, 0);

  /* Released once the buffer is gone and the work on it has run, not before. */
  released = 0;
  wrapped = cugi_buffer_new_for_address_full (NULL, address, 1 << 20, &released, count_release, &error);
  g_assert_no_error (error);
  spin (spinner (), stream, 100);
  g_assert_true (cugi_buffer_memset_d8 (wrapped, 0, 0x77, 1 << 20, stream, &error));
  g_assert_no_error (error);
  g_clear_object (&wrapped);
  g_assert_cmpint (g_atomic_int_get (&released), ==, 0);
  cugi_test_settle (stream);
  g_assert_cmpint (g_atomic_int_get (&released), ==, 1);
  got = cugi_test_download (owner, (1 << 20) - 16, 16);
  for (gsize i = 0; i < 16; i++)
    g_assert_cmpuint (((const guint8 *) g_bytes_get_data (got, NULL))[i], ==, 0x77);
}

static void
count_completed (CugiEvent *event,
                 guint     *counter)
{
  (*counter)++;
}

/* Work in a context that other code made (as GStreamer's GstCudaContext
 * is): memory, a kernel and a ::completed signal, all through the wrapper. */
static void
test_in_foreign_context (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiDevice) device = cugi_device_get_default (&error);
  g_autoptr(GBytes) pattern = cugi_test_pattern_new (1 << 16, 14);
  CugiContext *context;
  CugiBuffer *buffer;
  CugiKernel *spin_here;
  CugiStream *stream;
  CugiEvent *event;
  CUcontext foreign = NULL;
  CUcontext popped = NULL;
  guint n_completed = 0;
  gint released = 0;

  g_assert_no_error (error);
  g_assert_cmpint (cugi_cuda.cuCtxCreate (&foreign, NULL, 0, cugi_device_get_handle (device)), ==, CUDA_SUCCESS);
  g_assert_cmpint (cugi_cuda.cuCtxPopCurrent (&popped), ==, CUDA_SUCCESS);
  context = cugi_context_new_for_handle_full ((guint64) (guintptr) foreign, &released, count_release, &error);
  g_assert_no_error (error);

  buffer = cugi_buffer_new (context, 1 << 16, &error);
  g_assert_no_error (error);
  g_assert_true (cugi_buffer_upload_bytes (buffer, 0, pattern, &error));
  g_assert_no_error (error);
  stream = cugi_stream_new (context, CUGI_STREAM_FLAGS_NON_BLOCKING, 0, &error);
  g_assert_no_error (error);
  spin_here = cugi_kernel_new_from_source (context, SPIN_SOURCE, "spin", NULL, &error);
  g_assert_no_error (error);
  event = cugi_event_new (context, CUGI_EVENT_FLAGS_DISABLE_TIMING, &error);
  g_assert_no_error (error);
  g_signal_connect (event, "completed", G_CALLBACK (count_completed), &n_completed);
  spin (spin_here, stream, 20);
  cugi_test_record (event, stream);
  while (n_completed == 0)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpuint (n_completed, ==, 1);
  {
    g_autoptr(GBytes) back = cugi_test_download_all (buffer);

    cugi_test_assert_bytes_equal (back, pattern);
  }

  /* Another context on the device may wrap the memory and work on it. */
  {
    g_autoptr(CugiBuffer) in_default = cugi_buffer_new_for_address (NULL, cugi_buffer_get_device_pointer (buffer),
                                                                     1 << 16, &error);
    g_autoptr(GBytes) back = NULL;

    g_assert_no_error (error);
    g_assert_true (cugi_buffer_memset_d8 (in_default, 0, 0x3c, 1 << 16, NULL, &error));
    g_assert_no_error (error);
    g_assert_true (cugi_context_synchronize (cugi_buffer_get_context (in_default), &error));
    g_assert_no_error (error);
    back = cugi_test_download (buffer, 0, 64);
    for (gsize i = 0; i < 64; i++)
      g_assert_cmpuint (((const guint8 *) g_bytes_get_data (back, NULL))[i], ==, 0x3c);
  }

  g_object_unref (event);
  g_object_unref (spin_here);
  g_object_unref (stream);
  g_object_unref (buffer);
  g_assert_cmpint (released, ==, 0);
  g_object_unref (context);
  g_assert_cmpint (released, ==, 1);
  g_assert_cmpint (cugi_cuda.cuCtxDestroy (foreign), ==, CUDA_SUCCESS);
}

static void
test_managed (void)
{
  const gsize size = 1 << 20;
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiDevice) device = cugi_device_get_default (&error);
  g_autoptr(CugiContext) context = cugi_test_default_context ();
  g_autoptr(CugiBuffer) managed = NULL;
  g_autoptr(CugiBuffer) plain = cugi_test_buffer_new (64);
  g_autoptr(GBytes) pattern = cugi_test_pattern_new (size, 12);
  g_autoptr(GBytes) back = NULL;
  gboolean concurrent;
  guint8 *host;

  g_assert_no_error (error);
  if (cugi_device_get_attribute (device, CUGI_DEVICE_ATTRIBUTE_MANAGED_MEMORY, &error) == 0)
    {
      g_test_skip ("the device has no managed memory");
      return;
    }
  concurrent = cugi_device_get_attribute (device, CUGI_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS, &error);
  g_assert_no_error (error);

  managed = cugi_buffer_new_managed (NULL, size, CUGI_MEM_ATTACH_GLOBAL, &error);
  g_assert_no_error (error);
  g_assert_true (cugi_buffer_is_managed (managed));
  g_assert_cmpuint (cugi_buffer_get_size (managed), ==, size);

  /* Written by the host at the device pointer, read by the device. */
  host = (guint8 *) (guintptr) cugi_buffer_get_device_pointer (managed);
  g_assert_nonnull (host);
  memcpy (host, g_bytes_get_data (pattern, NULL), size);
  if (concurrent)
    {
      g_assert_true (cugi_buffer_prefetch (managed, device, NULL, &error));
      g_assert_no_error (error);
      g_assert_true (cugi_buffer_advise (managed, CUGI_MEM_ADVICE_SET_PREFERRED_LOCATION, device, &error));
      g_assert_no_error (error);
    }
  back = cugi_test_download_all (managed);
  cugi_test_assert_bytes_equal (back, pattern);

  /* Written by the device, read by the host. */
  g_assert_true (cugi_buffer_memset_d8 (managed, 0, 0x5a, size, NULL, &error));
  g_assert_no_error (error);
  if (concurrent)
    {
      g_assert_true (cugi_buffer_prefetch (managed, NULL, NULL, &error));
      g_assert_no_error (error);
    }
  g_assert_true (cugi_context_synchronize (context, &error));
  g_assert_no_error (error);
  for (gsize i = 0; i < size; i += 4093)
    g_assert_cmpint (host[i], ==, 0x5a);
  g_assert_cmpint (host[size - 1], ==, 0x5a);

  g_assert_true (cugi_buffer_advise (managed, CUGI_MEM_ADVICE_SET_READ_MOSTLY, NULL, &error));
  g_assert_no_error (error);

  /* Only managed memory prefetches; only real values are advice. */
  g_assert_false (cugi_buffer_prefetch (plain, device, NULL, &error));
  assert_invalid_argument (&error, "managed");
  g_assert_false (cugi_buffer_advise (managed, (CugiMemAdvice) 99, NULL, &error));
  assert_invalid_argument (&error, "99");
  g_assert_null (cugi_buffer_new_managed (NULL, 64, (CugiMemAttach) 3, &error));
  assert_invalid_argument (&error, NULL);
  cugi_test_settle (NULL);
}

/* ---- IPC ------------------------------------------------------------------ */

#define IPC_SIZE (1 << 20)
#define IPC_HANDLE_VARIABLE "CUGI_TEST_IPC_HANDLE"

/* In a child process: open the parent's buffer, check it, write to it. */
static void
ipc_child (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) pattern = cugi_test_pattern_new (IPC_SIZE, 13);
  g_autoptr(GBytes) handle = NULL;
  g_autoptr(CugiBuffer) imported = NULL;
  g_autoptr(GBytes) contents = NULL;
  guchar *decoded;
  gsize decoded_size = 0;

  decoded = g_base64_decode (g_getenv (IPC_HANDLE_VARIABLE), &decoded_size);
  handle = g_bytes_new_take (decoded, decoded_size);

  /* More than was exported is refused. */
  g_assert_null (cugi_buffer_new_from_ipc_handle (NULL, handle, (gsize) 1 << 40, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, NULL);

  imported = cugi_buffer_new_from_ipc_handle (NULL, handle, IPC_SIZE, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (cugi_buffer_get_size (imported), ==, IPC_SIZE);
  contents = cugi_test_download_all (imported);
  cugi_test_assert_bytes_equal (contents, pattern);

  /* Imported memory has no handle of its own to give. */
  g_assert_null (cugi_buffer_get_ipc_handle (imported, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, NULL);

  g_assert_true (cugi_buffer_memset_d8 (imported, 0, 0x77, 16, NULL, &error));
  g_assert_no_error (error);
  cugi_test_settle (NULL);
  g_assert_true (cugi_buffer_free (imported, &error));
  g_assert_no_error (error);
}

static void
test_ipc (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) pattern = NULL;
  g_autoptr(CugiBuffer) exported = NULL;
  g_autoptr(GBytes) handle = NULL;
  g_autoptr(GBytes) written = NULL;
  g_autoptr(GBytes) short_handle = g_bytes_new ("short", 5);
  g_autofree char *encoded = NULL;
  guint8 sevens[16];

  if (g_test_subprocess ())
    {
      ipc_child ();
      return;
    }

  pattern = cugi_test_pattern_new (IPC_SIZE, 13);
  exported = cugi_test_buffer_new_with (pattern);
  handle = cugi_buffer_get_ipc_handle (exported, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_bytes_get_size (handle), ==, 64);

  /* A process cannot open its own handle: the driver's rule. */
  g_assert_null (cugi_buffer_new_from_ipc_handle (NULL, handle, IPC_SIZE, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_CONTEXT, NULL);
  g_assert_null (cugi_buffer_new_from_ipc_handle (NULL, short_handle, IPC_SIZE, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, NULL);

  /* Views have no handle. */
  {
    g_autoptr(CugiBuffer) view = cugi_buffer_new_view (exported, 64, 64, &error);

    g_assert_no_error (error);
    g_assert_null (cugi_buffer_get_ipc_handle (view, &error));
    cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, NULL);
  }

  /* Another process opens it, reads it and writes to it. */
  encoded = g_base64_encode (g_bytes_get_data (handle, NULL), g_bytes_get_size (handle));
  g_setenv (IPC_HANDLE_VARIABLE, encoded, TRUE);
  cugi_test_trap_subprocess (60);

  written = cugi_test_download (exported, 0, 16);
  memset (sevens, 0x77, sizeof sevens);
  g_assert_cmpmem (g_bytes_get_data (written, NULL), 16, sevens, 16);
}

/* ---- asynchronous transfers ----------------------------------------------- */

static void
test_download_async (void)
{
  const gsize size = 32 << 20;
  g_autoptr(GBytes) pattern = cugi_test_pattern_new (size, 14);
  CugiBuffer *buffer = cugi_test_buffer_new_with (pattern);
  gpointer weak_buffer = buffer;
  CugiTestTransfer outcome = { 0 };

  g_object_add_weak_pointer (G_OBJECT (buffer), &weak_buffer);

  /* The copy waits behind 50 ms of work, and the caller drops the buffer. */
  spin (spinner (), NULL, 50);
  cugi_buffer_download_async (buffer, 0, size, NULL, NULL, cugi_test_on_downloaded, &outcome);
  g_object_unref (buffer);
  g_assert_nonnull (weak_buffer);
  g_assert_cmpuint (outcome.calls, ==, 0);

  wait_for_success (&outcome, 1);
  cugi_test_assert_bytes_equal (outcome.bytes, pattern);
  /* The bytes are the pinned staging memory itself, not a copy. */
  g_assert_true (cugi_test_is_pinned_host_memory (g_bytes_get_data (outcome.bytes, NULL)));
  cugi_test_transfer_clear (&outcome);

  iterate_until_finalized (&weak_buffer, 10000);
}

static void
test_download_async_range (void)
{
  g_autoptr(GBytes) pattern = cugi_test_pattern_new (8192, 15);
  g_autoptr(CugiBuffer) buffer = cugi_test_buffer_new_with (pattern);
  g_autoptr(GBytes) expected = slice (pattern, 1000, 3000);
  CugiTestTransfer outcome = { 0 };

  cugi_buffer_download_async (buffer, 1000, 3000, NULL, NULL, cugi_test_on_downloaded, &outcome);
  wait_for_success (&outcome, 1);
  cugi_test_assert_bytes_equal (outcome.bytes, expected);
  cugi_test_transfer_clear (&outcome);

  cugi_buffer_download_async (buffer, 8000, 193, NULL, NULL, cugi_test_on_downloaded, &outcome);
  iterate_until (&outcome.calls, 2, 10000);
  g_assert_error (outcome.error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT);
  g_assert_null (outcome.bytes);
  cugi_test_transfer_clear (&outcome);
}

/* Downloads into the host buffer the caller gives, there and at the
 * offsets it says, and a view of that host buffer reads them in place. */
static void
test_download_to_host_async (void)
{
  const gsize size = 4 << 20;
  g_autoptr(GError) error = NULL;
  g_autoptr(GCancellable) cancelled = g_cancellable_new ();
  g_autoptr(GBytes) pattern = cugi_test_pattern_new (size, 23);
  g_autoptr(GBytes) other_pattern = cugi_test_pattern_new (size, 24);
  g_autoptr(CugiBuffer) buffer = cugi_test_buffer_new_with (pattern);
  g_autoptr(CugiBuffer) other_buffer = cugi_test_buffer_new_with (other_pattern);
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  CugiHostBuffer *host = cugi_host_buffer_new (NULL, size, CUGI_HOST_BUFFER_FLAGS_NONE, &error);
  g_autoptr(GBytes) view = NULL;
  g_autoptr(GBytes) expected = NULL;
  CugiTestTransfer download = { 0 };

  g_assert_no_error (error);
  view = cugi_host_buffer_get_bytes (host, &error);
  g_assert_no_error (error);
  g_assert_true (g_bytes_get_data (view, NULL) == cugi_host_buffer_get_data (host, NULL, NULL));

  /* The second half first, behind 50 ms of work on the stream, then the
   * first on the default stream: each callback comes once its half is in. */
  spin (spinner (), stream, 50);
  cugi_buffer_download_to_host_async (buffer, size / 2, host, size / 2, size / 2, stream, NULL,
                                      cugi_test_on_downloaded_to_host, &download);
  iterate_until (&download.calls, 1, 10000);
  g_assert_no_error (download.error);
  g_assert_true (download.in_host);
  expected = slice (pattern, size / 2, size / 2);
  g_assert_cmpmem ((const guint8 *) g_bytes_get_data (view, NULL) + size / 2, size / 2,
                   g_bytes_get_data (expected, NULL), size / 2);
  cugi_buffer_download_to_host_async (buffer, 0, host, 0, size / 2, NULL, NULL, cugi_test_on_downloaded_to_host, &download);
  iterate_until (&download.calls, 2, 10000);
  g_assert_true (download.in_host);
  cugi_test_assert_bytes_equal (view, pattern);

  /* The same host buffer takes the next frame. */
  cugi_buffer_download_to_host_async (other_buffer, 0, host, 0, size, stream, NULL, cugi_test_on_downloaded_to_host, &download);
  iterate_until (&download.calls, 3, 10000);
  g_assert_true (download.in_host);
  cugi_test_assert_bytes_equal (view, other_pattern);

  /* Past the host buffer's end, and cancelled before the call: errors
   * through the callback, nothing copied. */
  cugi_buffer_download_to_host_async (buffer, 0, host, 1, size, stream, NULL, cugi_test_on_downloaded_to_host, &download);
  iterate_until (&download.calls, 4, 10000);
  g_assert_false (download.in_host);
  cugi_test_assert_error (&download.error, CUGI_ERROR_INVALID_ARGUMENT, "host buffer");
  g_cancellable_cancel (cancelled);
  cugi_buffer_download_to_host_async (buffer, 0, host, 0, size, stream, cancelled, cugi_test_on_downloaded_to_host, &download);
  iterate_until (&download.calls, 5, 10000);
  g_assert_false (download.in_host);
  g_assert_error (download.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&download.error);

  /* The view keeps the pinned memory, and what is in it, past the host
   * buffer's last reference. */
  cugi_test_settle (stream);
  g_object_unref (host);
  cugi_test_assert_bytes_equal (view, other_pattern);
  g_assert_cmpuint (download.calls, ==, 5);
}

static void
test_upload_async_pageable (void)
{
  const gsize size = 16 << 20;
  g_autoptr(GBytes) pattern = cugi_test_pattern_new (size, 16);
  g_autoptr(GBytes) back = NULL;
  CugiBuffer *buffer = cugi_test_buffer_new (size);
  CugiBuffer *kept = g_object_ref (buffer);
  gpointer weak_buffer = buffer;
  GBytes *bytes = cugi_test_pageable_copy (pattern);
  CugiTestTransfer outcome = { 0 };

  g_object_add_weak_pointer (G_OBJECT (buffer), &weak_buffer);

  /* The caller drops its bytes (poisoned and freed at once) and its
   * reference to the buffer while the copy waits behind 50 ms of work. */
  spin (spinner (), NULL, 50);
  cugi_buffer_upload_bytes_async (buffer, 0, bytes, NULL, NULL, cugi_test_on_uploaded, &outcome);
  g_bytes_unref (bytes);
  g_object_unref (buffer);

  wait_for_success (&outcome, 1);
  g_assert_true (outcome.uploaded);
  back = cugi_test_download_all (kept);
  cugi_test_assert_bytes_equal (back, pattern);

  g_object_unref (kept);
  iterate_until_finalized (&weak_buffer, 10000);
}

static void
test_upload_async_pinned (void)
{
  const gsize size = 16 << 20;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) pattern = cugi_test_pattern_new (size, 17);
  g_autoptr(CugiBuffer) buffer = cugi_test_buffer_new (size);
  g_autoptr(GBytes) back = NULL;
  CugiHostBuffer *host = cugi_host_buffer_new (NULL, size, CUGI_HOST_BUFFER_FLAGS_NONE, &error);
  gpointer weak_host = host;
  GBytes *bytes;
  CugiTestTransfer outcome = { 0 };

  g_assert_no_error (error);
  g_assert_true (cugi_host_buffer_write (host, 0, g_bytes_get_data (pattern, NULL), size, &error));
  g_assert_no_error (error);
  bytes = cugi_host_buffer_get_bytes (host, &error);
  g_assert_no_error (error);
  g_object_add_weak_pointer (G_OBJECT (host), &weak_host);
  g_object_unref (host);

  /* Pinned bytes are sent as they are, so they must outlive the copy. */
  spin (spinner (), NULL, 50);
  cugi_buffer_upload_bytes_async (buffer, 0, bytes, NULL, NULL, cugi_test_on_uploaded, &outcome);
  g_bytes_unref (bytes);
  g_assert_nonnull (weak_host);

  wait_for_success (&outcome, 1);
  g_assert_true (outcome.uploaded);
  back = cugi_test_download_all (buffer);
  cugi_test_assert_bytes_equal (back, pattern);
  iterate_until_finalized (&weak_host, 10000);
}

static void
test_upload_async_on_stream (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  g_autoptr(GBytes) pattern = cugi_test_pattern_new (1 << 20, 18);
  g_autoptr(CugiBuffer) buffer = cugi_test_buffer_new (2 << 20);
  g_autoptr(GBytes) back = NULL;
  CugiTestTransfer uploaded = { 0 };
  CugiTestTransfer downloaded = { 0 };

  /* Ordered on one stream: the upload, then the download of what it wrote. */
  cugi_buffer_upload_bytes_async (buffer, 1 << 20, pattern, stream, NULL, cugi_test_on_uploaded, &uploaded);
  cugi_buffer_download_async (buffer, 1 << 20, 1 << 20, stream, NULL, cugi_test_on_downloaded, &downloaded);
  wait_for_success (&uploaded, 1);
  wait_for_success (&downloaded, 1);
  cugi_test_assert_bytes_equal (downloaded.bytes, pattern);
  cugi_test_transfer_clear (&uploaded);
  cugi_test_transfer_clear (&downloaded);

  back = cugi_test_download (buffer, 1 << 20, 1 << 20);
  cugi_test_assert_bytes_equal (back, pattern);
  cugi_test_settle (stream);
}

static void
test_async_cancelled (void)
{
  const gsize size = 16 << 20;
  g_autoptr(GError) error = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GCancellable) cancelled = g_cancellable_new ();
  g_autoptr(GBytes) pattern = cugi_test_pattern_new (size, 19);
  g_autoptr(CugiBuffer) buffer = cugi_test_buffer_new (size);
  g_autoptr(GBytes) back = NULL;
  CugiTestTransfer downloaded = { 0 };
  CugiTestTransfer uploaded = { 0 };
  gint64 start;

  /* Cancelled before the call: nothing is enqueued. */
  g_cancellable_cancel (cancelled);
  cugi_buffer_download_async (buffer, 0, size, NULL, cancelled, cugi_test_on_downloaded, &downloaded);
  iterate_until (&downloaded.calls, 1, 5000);
  g_assert_error (downloaded.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_null (downloaded.bytes);
  cugi_test_transfer_clear (&downloaded);

  /* Cancelled while the GPU is busy for 500 ms: the call completes at once,
   * the copies go on. */
  spin (spinner (), NULL, 500);
  cugi_buffer_upload_bytes_async (buffer, 0, pattern, NULL, cancellable, cugi_test_on_uploaded, &uploaded);
  cugi_buffer_download_async (buffer, 0, size, NULL, cancellable, cugi_test_on_downloaded, &downloaded);
  start = g_get_monotonic_time ();
  g_cancellable_cancel (cancellable);
  iterate_until (&uploaded.calls, 1, 5000);
  iterate_until (&downloaded.calls, 2, 5000);
  g_assert_cmpint (g_get_monotonic_time () - start, <, 250 * 1000);
  g_assert_error (uploaded.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_false (uploaded.uploaded);
  g_assert_error (downloaded.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_null (downloaded.bytes);

  /* The upload still happened, and no callback comes twice. */
  cugi_test_settle (NULL);
  iterate_for (50);
  g_assert_cmpuint (uploaded.calls, ==, 1);
  g_assert_cmpuint (downloaded.calls, ==, 2);
  back = cugi_test_download_all (buffer);
  cugi_test_assert_bytes_equal (back, pattern);
  cugi_test_transfer_clear (&downloaded);
  cugi_test_transfer_clear (&uploaded);
}

/* The address-taking entry points, on sizes that go straight to the driver
 * and on sizes that are staged in chunks, at offsets that split no chunk
 * evenly: every byte arrives, sync and async, both ways. */
static void
test_from_address (void)
{
  const gsize sizes[] = { 1, 4096, (40 << 20) + 4097 };

  for (gsize i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      const gsize size = sizes[i];
      g_autoptr(GError) error = NULL;
      g_autoptr(GBytes) pattern = cugi_test_pattern_new (size, 30 + i);
      g_autoptr(GBytes) other = cugi_test_pattern_new (size, 40 + i);
      g_autoptr(CugiBuffer) buffer = cugi_test_buffer_new (size + 3);
      g_autoptr(GBytes) back = NULL;
      g_autofree guint8 *host = g_malloc0 (size + 5);
      CugiTestTransfer outcome = { 0 };

      g_assert_true (cugi_buffer_upload_from_address (buffer, 3, (guintptr) g_bytes_get_data (pattern, NULL),
                                                      size, &error));
      g_assert_no_error (error);
      back = cugi_test_download (buffer, 3, size);
      cugi_test_assert_bytes_equal (back, pattern);

      g_assert_true (cugi_buffer_download_to_address (buffer, 3, (guintptr) (host + 5), size, &error));
      g_assert_no_error (error);
      g_assert_cmpmem (host + 5, size, g_bytes_get_data (pattern, NULL), size);

      cugi_buffer_upload_from_address_async (buffer, 3, (guintptr) g_bytes_get_data (other, NULL), size,
                                             NULL, NULL, cugi_test_on_uploaded_from_address, &outcome);
      wait_for_success (&outcome, 1);
      g_assert_true (outcome.uploaded);
      g_clear_pointer (&back, g_bytes_unref);
      back = cugi_test_download (buffer, 3, size);
      cugi_test_assert_bytes_equal (back, other);
      cugi_test_transfer_clear (&outcome);
    }
}

int
main (int   argc,
      char *argv[])
{
  cugi_test_init (&argc, &argv);
  cugi_test_require_gpu ();

  g_test_add_func ("/buffer/properties", test_properties);
  g_test_add_func ("/buffer/round-trip", test_round_trip);
  g_test_add_func ("/buffer/views", test_views);
  g_test_add_func ("/buffer/view-of-freed-parent", test_view_of_freed_parent);
  g_test_add_func ("/buffer/copy", test_copy);
  g_test_add_func ("/buffer/copy-on-stream", test_copy_on_stream);
  g_test_add_func ("/buffer/free-during-copy", test_free_during_copy);
  g_test_add_func ("/buffer/peer-copy", test_peer_copy);
  g_test_add_func ("/buffer/out-of-range", test_out_of_range);
  g_test_add_func ("/buffer/use-after-free", test_use_after_free);
  g_test_add_func ("/buffer/async-after-free", test_async_after_free);
  g_test_add_func ("/buffer/zero-size", test_zero_size);
  g_test_add_func ("/buffer/memset", test_memset);
  g_test_add_func ("/buffer/pitched-2d", test_pitched_2d);
  g_test_add_func ("/buffer/pitched-2d-host", test_pitched_2d_host);
  g_test_add_func ("/buffer/3d", test_3d);
  g_test_add_func ("/buffer/new-for-address", test_new_for_address);
  g_test_add_func ("/buffer/in-foreign-context", test_in_foreign_context);
  g_test_add_func ("/buffer/managed", test_managed);
  g_test_add_func ("/buffer/ipc", test_ipc);
  g_test_add_func ("/buffer/async/download", test_download_async);
  g_test_add_func ("/buffer/async/download-range", test_download_async_range);
  g_test_add_func ("/buffer/async/download-to-host", test_download_to_host_async);
  g_test_add_func ("/buffer/async/upload-pageable", test_upload_async_pageable);
  g_test_add_func ("/buffer/async/upload-pinned", test_upload_async_pinned);
  g_test_add_func ("/buffer/async/on-stream", test_upload_async_on_stream);
  g_test_add_func ("/buffer/async/cancelled", test_async_cancelled);
  g_test_add_func ("/buffer/from-address", test_from_address);

  return g_test_run ();
}
