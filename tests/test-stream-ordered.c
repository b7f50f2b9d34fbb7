/* test-stream-ordered.c: on a GPU, memory allocated and freed in stream
 * order (cugi_buffer_new_on_stream(), CugiStreamOrderedPool) and reused
 * across streams ordered by an event, 2D memsets of a pitched buffer, and
 * managed memory attached to a stream. Exits 77 without a GPU. */
#include "config.h"

#include <string.h>

#include "cugi-private.h"
#include "cugi-test-utils.h"

#define SIZE ((gsize) 1 << 20)

/* Skips the test where the device has no stream-ordered allocator. */
static gboolean
have_memory_pools (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiDevice) device = cugi_device_get_default (&error);

  g_assert_no_error (error);
  if (cugi_device_get_attribute (device, CUGI_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, &error) == 1)
    return TRUE;
  g_test_skip ("the device has no stream-ordered allocator");
  return FALSE;
}

/* Every 32-bit word of @buffer (after @stream's work) is @value. */
static void
assert_words (CugiBuffer *buffer,
              CugiStream *stream,
              guint32     value)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;
  const guint32 *words;
  gsize size;

  cugi_test_synchronize (stream);
  bytes = cugi_buffer_download (buffer, 0, cugi_buffer_get_size (buffer), &error);
  g_assert_no_error (error);
  words = g_bytes_get_data (bytes, &size);
  for (gsize i = 0; i < size / 4; i++)
    if (words[i] != value)
      g_error ("word %zu is 0x%08x, not 0x%08x", i, words[i], value);
}

/* Freed on stream A, then an event recorded on A and waited for by B: an
 * allocation on B takes the same memory, and reads and writes it right. */
static void
test_reuse_across_streams (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiStream) a = NULL;
  g_autoptr(CugiStream) b = NULL;
  g_autoptr(CugiEvent) freed = NULL;
  g_autoptr(CugiStreamOrderedPool) pool = NULL;
  g_autoptr(CugiBuffer) first = NULL;
  g_autoptr(CugiBuffer) second = NULL;
  guint64 reserved, first_address;

  if (!have_memory_pools ())
    return;
  a = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  b = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  pool = cugi_stream_ordered_pool_new (NULL, &error);
  g_assert_no_error (error);
  g_assert_true (cugi_stream_ordered_pool_set_release_threshold (pool, G_MAXUINT64, &error));

  first = cugi_stream_ordered_pool_allocate (pool, a, SIZE, &error);
  g_assert_no_error (error);
  g_assert_true (cugi_buffer_memset_d32 (first, 0, 0x11111111, SIZE / 4, a, &error));
  assert_words (first, a, 0x11111111);
  g_assert_cmpuint (cugi_stream_ordered_pool_get_used_current (pool, &error), ==, SIZE);
  reserved = cugi_stream_ordered_pool_get_reserved_current (pool, &error);
  g_assert_cmpuint (reserved, >=, SIZE);
  first_address = cugi_buffer_get_device_pointer (first);

  /* The memset and the download have completed: the free goes to A at once. */
  cugi_test_settle (a);
  cugi_test_settle (NULL);
  g_assert_true (cugi_buffer_free (first, &error));
  g_assert_no_error (error);
  freed = cugi_event_new (NULL, CUGI_EVENT_FLAGS_DISABLE_TIMING, &error);
  g_assert_no_error (error);
  g_assert_true (cugi_event_record (freed, a, &error));
  g_assert_true (cugi_stream_wait_event (b, freed, &error));
  g_assert_no_error (error);

  second = cugi_stream_ordered_pool_allocate (pool, b, SIZE, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (cugi_stream_ordered_pool_get_reserved_current (pool, &error), ==, reserved);
  g_assert_cmpuint (cugi_buffer_get_device_pointer (second), ==, first_address);
  g_assert_true (cugi_buffer_memset_d32 (second, 0, 0x22222222, SIZE / 4, b, &error));
  g_assert_no_error (error);
  assert_words (second, b, 0x22222222);

  /* Freed on B; a trim gives everything back. */
  cugi_test_settle (b);
  cugi_test_settle (NULL);
  g_assert_true (cugi_buffer_free_on_stream (second, b, &error));
  cugi_test_synchronize (b);
  g_assert_cmpuint (cugi_stream_ordered_pool_get_used_current (pool, &error), ==, 0);
  g_assert_cmpuint (cugi_stream_ordered_pool_get_used_high (pool, &error), ==, SIZE);
  g_assert_true (cugi_stream_ordered_pool_trim_to (pool, 0, &error));
  g_assert_cmpuint (cugi_stream_ordered_pool_get_reserved_current (pool, &error), ==, 0);
  g_assert_no_error (error);
}

/* The default pool serves cugi_buffer_new_on_stream(); dropping a buffer
 * with work in flight frees it once that work is done. */
static void
test_default_pool (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiStream) stream = NULL;
  g_autoptr(CugiStreamOrderedPool) pool = NULL;
  CugiBuffer *buffer;
  guint64 used;

  if (!have_memory_pools ())
    return;
  stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  pool = cugi_stream_ordered_pool_get_default (NULL, &error);
  g_assert_no_error (error);
  g_assert_true (cugi_stream_ordered_pool_is_default (pool));
  used = cugi_stream_ordered_pool_get_used_current (pool, &error);

  buffer = cugi_buffer_new_on_stream (stream, SIZE, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (cugi_stream_ordered_pool_get_used_current (pool, &error), ==, used + SIZE);
  g_assert_true (cugi_buffer_memset_d8 (buffer, 0, 0x33, SIZE, stream, &error));
  g_object_unref (buffer);
  cugi_test_settle (stream);
  cugi_test_synchronize (stream);
  g_assert_cmpuint (cugi_stream_ordered_pool_get_used_current (pool, &error), ==, used);
  g_assert_no_error (error);
}

/* A 2D memset sets the rows' widths and leaves the padding of a pitched
 * buffer as it was, for 8, 16 and 32-bit values. */
static void
test_memset_2d (void)
{
  const gsize width = 100, height = 7;
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  g_autoptr(CugiBuffer) buffer = cugi_buffer_new_pitched (NULL, width, height, 4, &error);
  gsize pitch;

  g_assert_no_error (error);
  pitch = cugi_buffer_get_pitch (buffer);
  g_assert_cmpuint (pitch, >, width);

  for (guint element_size = 1; element_size <= 4; element_size *= 2)
    {
      g_autoptr(GBytes) bytes = NULL;
      const guint8 *data;
      /* One row less, from the second row, and all but the last 4 bytes. */
      gsize offset = pitch, count = (width - 4) / element_size;

      g_assert_true (cugi_buffer_memset_d8 (buffer, 0, 0xee, pitch * height, stream, &error));
      switch (element_size)
        {
        case 1:
          g_assert_true (cugi_buffer_memset_2d_d8 (buffer, offset, pitch, 0xa1, count, height - 1, stream, &error));
          break;
        case 2:
          g_assert_true (cugi_buffer_memset_2d_d16 (buffer, offset, pitch, 0xa1a1, count, height - 1, stream, &error));
          break;
        default:
          g_assert_true (cugi_buffer_memset_2d_d32 (buffer, offset, pitch, 0xa1a1a1a1, count, height - 1, stream,
                                                    &error));
        }
      g_assert_no_error (error);
      cugi_test_synchronize (stream);
      bytes = cugi_buffer_download (buffer, 0, pitch * height, &error);
      g_assert_no_error (error);
      data = g_bytes_get_data (bytes, NULL);
      for (gsize row = 0; row < height; row++)
        for (gsize column = 0; column < pitch; column++)
          {
            gboolean set = row >= 1 && column < count * element_size;

            if (data[row * pitch + column] != (set ? 0xa1 : 0xee))
              g_error ("%u-byte memset: byte %zu of row %zu is 0x%02x", element_size, column, row,
                       data[row * pitch + column]);
          }
    }

  cugi_test_assert_fails (cugi_buffer_memset_2d_d32 (buffer, 0, pitch, 0, width / 4, height + 1, stream, &error),
                          &error, CUGI_ERROR_INVALID_ARGUMENT, "Out of range");
}

/* Managed memory attached to one stream, then to the host, then globally;
 * a kernel-free round trip reads what the host wrote. */
static void
test_attach (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiDevice) device = cugi_device_get_default (&error);
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  g_autoptr(CugiBuffer) managed = NULL;
  g_autoptr(CugiBuffer) plain = NULL;
  guint8 *host;

  if (cugi_device_get_attribute (device, CUGI_DEVICE_ATTRIBUTE_MANAGED_MEMORY, &error) != 1)
    {
      g_test_skip ("the device has no managed memory");
      return;
    }
  managed = cugi_buffer_new_managed (NULL, 4096, CUGI_MEM_ATTACH_GLOBAL, &error);
  g_assert_no_error (error);
  g_assert_true (cugi_buffer_attach (managed, stream, CUGI_MEM_ATTACH_SINGLE, &error));
  g_assert_no_error (error);
  cugi_test_synchronize (stream);
  /* Attached to a stream that is idle: the host may touch it. */
  host = GSIZE_TO_POINTER (cugi_buffer_get_device_pointer (managed));
  memset (host, 0x5c, 4096);
  g_assert_true (cugi_buffer_memset_d8 (managed, 0, 0x6d, 16, stream, &error));
  cugi_test_synchronize (stream);
  g_assert_cmpuint (host[0], ==, 0x6d);
  g_assert_cmpuint (host[16], ==, 0x5c);
  g_assert_true (cugi_buffer_attach (managed, stream, CUGI_MEM_ATTACH_HOST, &error));
  g_assert_true (cugi_buffer_attach (managed, NULL, CUGI_MEM_ATTACH_GLOBAL, &error));
  g_assert_no_error (error);
  cugi_test_synchronize (stream);

  plain = cugi_buffer_new (NULL, 64, &error);
  g_assert_no_error (error);
  cugi_test_assert_fails (cugi_buffer_attach (plain, stream, CUGI_MEM_ATTACH_GLOBAL, &error), &error,
                          CUGI_ERROR_INVALID_ARGUMENT, "not managed");
}

int
main (int   argc,
      char *argv[])
{
  cugi_test_init (&argc, &argv);
  cugi_test_require_gpu ();

  g_test_add_func ("/stream-ordered/reuse-across-streams", test_reuse_across_streams);
  g_test_add_func ("/stream-ordered/default-pool", test_default_pool);
  g_test_add_func ("/stream-ordered/memset-2d", test_memset_2d);
  g_test_add_func ("/stream-ordered/attach", test_attach);

  return g_test_run ();
}
