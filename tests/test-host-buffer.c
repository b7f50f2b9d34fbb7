/* test-host-buffer.c: CugiHostBuffer on a GPU: pinned, mapped and registered
 * memory, zero-copy bytes, copies to and from device buffers, lifetimes */
#include "config.h"

#include <string.h>
#include <unistd.h>

#include "cugi-private.h"
#include "cugi-memory-private.h"
#include "gpu-work.h"

static CugiHostBuffer *
new_host_buffer (gsize               size,
                 CugiHostBufferFlags flags)
{
  g_autoptr(GError) error = NULL;
  CugiHostBuffer *host = cugi_host_buffer_new (NULL, size, flags, &error);

  g_assert_no_error (error);
  g_assert_true (CUGI_IS_HOST_BUFFER (host));
  return host;
}

static guint8 *
data_of (CugiHostBuffer *host)
{
  g_autoptr(GError) error = NULL;
  gsize size = 0;
  guint8 *data = cugi_host_buffer_get_data (host, &size, &error);

  g_assert_no_error (error);
  g_assert_cmpuint (size, ==, cugi_host_buffer_get_size (host));
  return data;
}

static void
test_properties (void)
{
  g_autoptr(CugiContext) context = cugi_test_default_context ();
  g_autoptr(CugiHostBuffer) host = new_host_buffer (4096, CUGI_HOST_BUFFER_FLAGS_NONE);
  g_autoptr(CugiContext) property_context = NULL;
  CugiHostBufferFlags flags = CUGI_HOST_BUFFER_FLAGS_MAPPED;
  guint64 size = 0, device_pointer = 1;
  gboolean freed = TRUE;
  guint8 *data;

  g_object_get (host, "size", &size, "flags", &flags, "device-pointer", &device_pointer,
                "context", &property_context, "freed", &freed, NULL);
  g_assert_cmpuint (size, ==, 4096);
  g_assert_cmpint (flags, ==, CUGI_HOST_BUFFER_FLAGS_NONE);
  g_assert_cmpuint (device_pointer, ==, 0);
  g_assert_true (property_context == context);
  g_assert_false (freed);

  data = data_of (host);
  g_assert_nonnull (data);
  g_assert_true (cugi_test_is_pinned_host_memory (data));
  g_assert_true (cugi_test_is_pinned_host_memory (data + 4095));
  /* The memory is ours to write. */
  memset (data, 0x3c, 4096);
  g_assert_cmpint (data[4095], ==, 0x3c);
}

static void
test_flags (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiHostBuffer) portable = new_host_buffer (4096, CUGI_HOST_BUFFER_FLAGS_PORTABLE |
                                                        CUGI_HOST_BUFFER_FLAGS_WRITE_COMBINED);
  g_autoptr(CugiHostBuffer) mapped = new_host_buffer (4096, CUGI_HOST_BUFFER_FLAGS_MAPPED);

  g_assert_cmpint (cugi_host_buffer_get_flags (portable), ==,
                   CUGI_HOST_BUFFER_FLAGS_PORTABLE | CUGI_HOST_BUFFER_FLAGS_WRITE_COMBINED);
  g_assert_cmpuint (cugi_host_buffer_get_device_pointer (portable), ==, 0);
  g_assert_true (cugi_test_is_pinned_host_memory (data_of (portable)));

  g_assert_cmpint (cugi_host_buffer_get_flags (mapped), ==, CUGI_HOST_BUFFER_FLAGS_MAPPED);
  g_assert_cmpuint (cugi_host_buffer_get_device_pointer (mapped), !=, 0);

  g_assert_null (cugi_host_buffer_new (NULL, 4096, 1 << 5, &error));
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT);
}

static void
test_mapped_device_buffer (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) pattern = cugi_test_pattern_new (4096, 1);
  CugiHostBuffer *mapped = new_host_buffer (4096, CUGI_HOST_BUFFER_FLAGS_MAPPED);
  g_autoptr(CugiHostBuffer) unmapped = new_host_buffer (64, CUGI_HOST_BUFFER_FLAGS_NONE);
  g_autoptr(CugiBuffer) device_view = NULL;
  g_autoptr(CugiBuffer) dst = cugi_test_buffer_new (4096);
  g_autoptr(GBytes) copied = NULL;
  g_autoptr(GBytes) again = NULL;
  gpointer weak_mapped = mapped;
  guint8 *data = data_of (mapped);
  guint8 expected[100];

  memcpy (data, g_bytes_get_data (pattern, NULL), 4096);
  device_view = cugi_host_buffer_get_device_buffer (mapped, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (cugi_buffer_get_size (device_view), ==, 4096);
  g_assert_cmpuint (cugi_buffer_get_device_pointer (device_view), ==,
                    cugi_host_buffer_get_device_pointer (mapped));

  /* The device reads host memory through the mapping ... */
  g_assert_true (cugi_buffer_copy (dst, 0, device_view, 0, 4096, NULL, &error));
  g_assert_no_error (error);
  copied = cugi_test_download_all (dst);
  g_assert_cmpmem (g_bytes_get_data (copied, NULL), 4096, g_bytes_get_data (pattern, NULL), 4096);

  /* ... and writes it. */
  g_assert_true (cugi_buffer_memset_d8 (device_view, 0, 0x42, 100, NULL, &error));
  g_assert_no_error (error);
  cugi_test_settle (NULL);
  memset (expected, 0x42, sizeof expected);
  g_assert_cmpmem (data, 100, expected, 100);

  /* The device buffer keeps the host memory alive. */
  g_object_add_weak_pointer (G_OBJECT (mapped), &weak_mapped);
  g_object_unref (mapped);
  g_assert_nonnull (weak_mapped);
  again = cugi_buffer_download (device_view, 0, 100, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (g_bytes_get_data (again, NULL), 100, expected, 100);
  g_clear_object (&device_view);
  iterate_until_finalized (&weak_mapped, 10000);

  g_assert_null (cugi_host_buffer_get_device_buffer (unmapped, &error));
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT);
}

static void
test_bytes (void)
{
  g_autoptr(GError) error = NULL;
  CugiHostBuffer *host = new_host_buffer (8192, CUGI_HOST_BUFFER_FLAGS_NONE);
  g_autoptr(GBytes) pattern = cugi_test_pattern_new (8192, 2);
  g_autoptr(GBytes) bytes = NULL;
  gpointer weak_host = host;
  guint8 *data = data_of (host);

  memcpy (data, g_bytes_get_data (pattern, NULL), 8192);
  bytes = cugi_host_buffer_get_bytes (host, &error);
  g_assert_no_error (error);
  /* No copy: the bytes are the memory. */
  g_assert_true (g_bytes_get_data (bytes, NULL) == data);
  g_assert_cmpuint (g_bytes_get_size (bytes), ==, 8192);
  data[0] = 0x99;
  g_assert_cmpint (((const guint8 *) g_bytes_get_data (bytes, NULL))[0], ==, 0x99);
  data[0] = ((const guint8 *) g_bytes_get_data (pattern, NULL))[0];

  /* Freed early and dropped, the host buffer lives on in its bytes. */
  g_object_add_weak_pointer (G_OBJECT (host), &weak_host);
  g_assert_true (cugi_host_buffer_free (host, &error));
  g_assert_no_error (error);
  g_assert_true (cugi_host_buffer_is_freed (host));
  g_assert_null (cugi_host_buffer_get_bytes (host, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_STATE, NULL);
  g_object_unref (host);
  g_assert_nonnull (weak_host);
  g_assert_cmpmem (g_bytes_get_data (bytes, NULL), 8192, g_bytes_get_data (pattern, NULL), 8192);

  g_clear_pointer (&bytes, g_bytes_unref);
  g_assert_null (weak_host);
}

static void
test_write (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiHostBuffer) host = new_host_buffer (256, CUGI_HOST_BUFFER_FLAGS_NONE);
  const guint8 data[] = { 1, 2, 3, 4 };
  guint8 *memory = data_of (host);

  g_assert_true (cugi_host_buffer_write (host, 252, data, 4, &error));
  g_assert_no_error (error);
  g_assert_cmpmem (memory + 252, 4, data, 4);
  g_assert_true (cugi_host_buffer_write (host, 256, NULL, 0, &error));
  g_assert_no_error (error);

  g_assert_false (cugi_host_buffer_write (host, 253, data, 4, &error));
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "253"));
  g_assert_nonnull (strstr (error->message, "256"));
  g_clear_error (&error);
  g_assert_false (cugi_host_buffer_write (host, G_MAXSIZE, data, 2, &error));
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT);
}

static void
test_use_after_free (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiHostBuffer) host = new_host_buffer (4096, CUGI_HOST_BUFFER_FLAGS_MAPPED);
  g_autoptr(CugiBuffer) buffer = cugi_test_buffer_new (4096);
  const guint8 data[4] = { 0 };
  gboolean freed = FALSE;
  gsize size = 1;
  gpointer address = NULL;

  g_assert_true (cugi_host_buffer_free (host, &error));
  g_assert_no_error (error);
  g_object_get (host, "freed", &freed, NULL);
  g_assert_true (freed);
  g_assert_cmpuint (cugi_host_buffer_get_device_pointer (host), ==, 0);

#define ASSERT_FREED(call) cugi_test_assert_fails ((call), &error, CUGI_ERROR_INVALID_STATE, "freed")

  ASSERT_FREED (cugi_host_buffer_get_data (host, &size, &error) != NULL);
  g_assert_cmpuint (size, ==, 0);
  ASSERT_FREED (cugi_host_buffer_get_address (host, &address, &error));
  ASSERT_FREED (cugi_host_buffer_get_bytes (host, &error) != NULL);
  ASSERT_FREED (cugi_host_buffer_write (host, 0, data, 4, &error));
  ASSERT_FREED (cugi_host_buffer_get_device_buffer (host, &error) != NULL);
  ASSERT_FREED (cugi_buffer_upload_from_host (buffer, 0, host, 0, 4, NULL, &error));
  ASSERT_FREED (cugi_buffer_download_to_host (buffer, 0, host, 0, 4, NULL, &error));
  ASSERT_FREED (cugi_host_buffer_free (host, &error));

#undef ASSERT_FREED
}

static void
test_registered (void)
{
  const gsize page = sysconf (_SC_PAGESIZE);
  const gsize size = 4 * page;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) pattern = cugi_test_pattern_new (size, 3);
  g_autoptr(CugiBuffer) buffer = cugi_test_buffer_new (size);
  g_autoptr(CugiHostBuffer) registered = NULL;
  g_autoptr(CugiHostBuffer) mapped = NULL;
  g_autoptr(GBytes) uploaded = NULL;
  guint8 *memory = g_aligned_alloc (4, page, page);
  guint8 *other = g_aligned_alloc (1, page, page);
  gsize registered_size = 0;

  memcpy (memory, g_bytes_get_data (pattern, NULL), size);

  registered = cugi_host_buffer_new_registered (NULL, memory, size, CUGI_HOST_BUFFER_FLAGS_NONE, &error);
  g_assert_no_error (error);
  g_assert_true (cugi_host_buffer_get_data (registered, &registered_size, &error) == memory);
  g_assert_cmpuint (registered_size, ==, size);
  g_assert_true (cugi_test_is_pinned_host_memory (memory));

  /* It works as pinned memory in both directions. */
  g_assert_true (cugi_buffer_upload_from_host (buffer, 0, registered, 0, size, NULL, &error));
  g_assert_no_error (error);
  uploaded = cugi_test_download_all (buffer);
  g_assert_cmpmem (g_bytes_get_data (uploaded, NULL), size, memory, size);
  g_assert_true (cugi_buffer_memset_d8 (buffer, 0, 0x21, page, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (cugi_buffer_download_to_host (buffer, 0, registered, page, page, NULL, &error));
  g_assert_no_error (error);
  for (gsize i = 0; i < page; i++)
    g_assert_cmpint (memory[page + i], ==, 0x21);

  /* Freeing unregisters; the memory stays the caller's. */
  g_assert_true (cugi_host_buffer_free (registered, &error));
  g_assert_no_error (error);
  memory[0] = 1;

  mapped = cugi_host_buffer_new_registered (NULL, other, page, CUGI_HOST_BUFFER_FLAGS_MAPPED, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (cugi_host_buffer_get_device_pointer (mapped), !=, 0);
  g_clear_object (&mapped);

  /* Write-combining is for allocations only. */
  g_assert_null (cugi_host_buffer_new_registered (NULL, other, page, CUGI_HOST_BUFFER_FLAGS_WRITE_COMBINED,
                                                  &error));
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT);

  g_aligned_free (memory);
  g_aligned_free (other);
}

static void
test_copies (void)
{
  const gsize size = 4 << 20;
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NONE);
  g_autoptr(GBytes) pattern = cugi_test_pattern_new (size, 4);
  g_autoptr(CugiBuffer) buffer = cugi_test_buffer_new (size);
  g_autoptr(CugiHostBuffer) back = new_host_buffer (size, CUGI_HOST_BUFFER_FLAGS_NONE);
  g_autoptr(GBytes) on_device = NULL;
  CugiHostBuffer *source = new_host_buffer (size, CUGI_HOST_BUFFER_FLAGS_NONE);
  gpointer weak_source = source;

  g_assert_true (cugi_host_buffer_write (source, 0, g_bytes_get_data (pattern, NULL), size, &error));
  g_assert_no_error (error);

  /* On a stream, behind 50 ms of work: the host buffer is dropped at once
   * and kept until the copy is done. */
  spin (spinner (), stream, 50);
  g_assert_true (cugi_buffer_upload_from_host (buffer, 0, source, 0, size, stream, &error));
  g_assert_no_error (error);
  g_object_add_weak_pointer (G_OBJECT (source), &weak_source);
  g_object_unref (source);
  g_assert_nonnull (weak_source);
  cugi_test_settle (stream);
  iterate_until_finalized (&weak_source, 10000);
  on_device = cugi_test_download_all (buffer);
  g_assert_cmpmem (g_bytes_get_data (on_device, NULL), size, g_bytes_get_data (pattern, NULL), size);

  /* Without a stream, done when it returns; at offsets on both sides. */
  g_assert_true (cugi_buffer_download_to_host (buffer, 1000, back, 10, 5000, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpmem (data_of (back) + 10, 5000, (const guint8 *) g_bytes_get_data (pattern, NULL) + 1000, 5000);

  /* On a stream, once synchronized. */
  g_assert_true (cugi_buffer_download_to_host (buffer, 0, back, 0, size, stream, &error));
  g_assert_no_error (error);
  cugi_test_settle (stream);
  g_assert_cmpmem (data_of (back), size, g_bytes_get_data (pattern, NULL), size);

  /* Both ranges are checked. */
  g_assert_false (cugi_buffer_download_to_host (buffer, 0, back, size - 10, 11, NULL, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "host buffer");
  g_assert_false (cugi_buffer_upload_from_host (buffer, size - 10, back, 0, 11, stream, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, NULL);
  g_assert_false (cugi_buffer_upload_from_host (buffer, 0, back, G_MAXSIZE, 2, stream, &error));
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT);
}

static void
test_zero_size (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiHostBuffer) empty = new_host_buffer (0, CUGI_HOST_BUFFER_FLAGS_MAPPED);
  g_autoptr(CugiBuffer) buffer = cugi_test_buffer_new (16);
  g_autoptr(GBytes) bytes = NULL;
  gsize size = 1;

  g_assert_cmpuint (cugi_host_buffer_get_size (empty), ==, 0);
  g_assert_null (cugi_host_buffer_get_data (empty, &size, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (size, ==, 0);
  g_assert_cmpuint (cugi_host_buffer_get_device_pointer (empty), ==, 0);
  bytes = cugi_host_buffer_get_bytes (empty, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_bytes_get_size (bytes), ==, 0);
  g_assert_true (cugi_host_buffer_write (empty, 0, NULL, 0, &error));
  g_assert_no_error (error);
  g_assert_true (cugi_buffer_upload_from_host (buffer, 16, empty, 0, 0, NULL, &error));
  g_assert_no_error (error);
  g_assert_false (cugi_buffer_upload_from_host (buffer, 0, empty, 0, 1, NULL, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, NULL);
  g_assert_true (cugi_host_buffer_free (empty, &error));
  g_assert_no_error (error);
}

int
main (int   argc,
      char *argv[])
{
  cugi_test_init (&argc, &argv);
  cugi_test_require_gpu ();

  g_test_add_func ("/host-buffer/properties", test_properties);
  g_test_add_func ("/host-buffer/flags", test_flags);
  g_test_add_func ("/host-buffer/mapped-device-buffer", test_mapped_device_buffer);
  g_test_add_func ("/host-buffer/bytes", test_bytes);
  g_test_add_func ("/host-buffer/write", test_write);
  g_test_add_func ("/host-buffer/use-after-free", test_use_after_free);
  g_test_add_func ("/host-buffer/registered", test_registered);
  g_test_add_func ("/host-buffer/copies", test_copies);
  g_test_add_func ("/host-buffer/zero-size", test_zero_size);

  return g_test_run ();
}
