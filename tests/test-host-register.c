/* test-host-register.c: registering memory the caller owns as a
 * CugiHostBuffer, by address (for bindings) and from GBytes (read-only
 * where the device supports it), without a GPU: fake-cuda-streams records
 * what cuMemHostRegister pinned and with which flags, so the tests see what
 * cugi asked the driver for, and that the memory is unregistered again. */
#include "config.h"

#include <gmodule.h>

#include "cugi-private.h"
#include "cugi-test-utils.h"

#define PAGE 4096

static int (*fake_registration) (const void *address, gsize *size, guint *flags);
static void (*fake_support_read_only) (int supported);

/* Whether @address is registered, and with which driver flags. */
static gboolean
registered (gconstpointer  address,
            guint         *flags)
{
  return fake_registration (address, NULL, flags) != 0;
}

static void
test_address (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiHostBuffer) host = NULL;
  g_autofree guint8 *memory = g_aligned_alloc0 (1, PAGE, PAGE);
  const guint8 pattern[] = { 1, 2, 3, 4 };
  guint flags = 0;
  gsize size = 0;

  host = cugi_host_buffer_new_registered_address (NULL, (guint64) (guintptr) memory, PAGE,
                                                  CUGI_HOST_BUFFER_FLAGS_PORTABLE |
                                                  CUGI_HOST_BUFFER_FLAGS_MAPPED,
                                                  &error);
  g_assert_no_error (error);
  g_assert_true (registered (memory, &flags));
  /* No READ_ONLY: the memory is the caller's to write. */
  g_assert_cmpuint (flags, ==, CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP);
  g_assert_cmpuint (cugi_host_buffer_get_size (host), ==, PAGE);
  g_assert_cmpuint (cugi_host_buffer_get_flags (host), ==,
                    CUGI_HOST_BUFFER_FLAGS_PORTABLE | CUGI_HOST_BUFFER_FLAGS_MAPPED);
  /* The stand-in maps memory at its own address. */
  g_assert_cmpuint (cugi_host_buffer_get_device_pointer (host), ==, (guint64) (guintptr) memory);
  g_assert_true (cugi_host_buffer_get_data (host, &size, &error) == memory);
  g_assert_cmpuint (size, ==, PAGE);
  g_assert_cmpuint (cugi_host_buffer_get_host_address (host, &error), ==, (guint64) (guintptr) memory);

  /* Writes go to the caller's memory. */
  g_assert_true (cugi_host_buffer_write (host, 10, pattern, sizeof pattern, &error));
  g_assert_no_error (error);
  g_assert_cmpmem (memory + 10, sizeof pattern, pattern, sizeof pattern);

  /* Freeing unregisters, and leaves the memory to its owner. */
  g_assert_true (cugi_host_buffer_free (host, &error));
  g_assert_no_error (error);
  g_assert_false (registered (memory, NULL));
  g_assert_cmpuint (memory[10], ==, 1);
}

static void
test_address_finalize (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree guint8 *memory = g_aligned_alloc0 (2, PAGE, PAGE);
  CugiHostBuffer *host;

  host = cugi_host_buffer_new_registered_address (NULL, (guint64) (guintptr) memory, 2 * PAGE,
                                                  CUGI_HOST_BUFFER_FLAGS_NONE, &error);
  g_assert_no_error (error);
  g_assert_true (registered (memory + PAGE, NULL));
  g_assert_cmpuint (cugi_host_buffer_get_device_pointer (host), ==, 0);
  g_object_unref (host);
  g_assert_false (registered (memory, NULL));
}

static void
test_address_errors (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiHostBuffer) host = NULL;
  g_autoptr(CugiHostBuffer) empty = NULL;
  g_autofree guint8 *memory = g_aligned_alloc0 (1, PAGE, PAGE);
  guint64 address = (guint64) (guintptr) memory;

  g_assert_null (cugi_host_buffer_new_registered_address (NULL, 0, PAGE, CUGI_HOST_BUFFER_FLAGS_NONE, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "address 0x0");
  g_assert_null (cugi_host_buffer_new_registered_address (NULL, G_MAXUINT64 - 10, PAGE,
                                                          CUGI_HOST_BUFFER_FLAGS_NONE, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, NULL);
  /* Write-combining is for allocation only, and unknown bits are refused. */
  g_assert_null (cugi_host_buffer_new_registered_address (NULL, address, PAGE,
                                                          CUGI_HOST_BUFFER_FLAGS_WRITE_COMBINED, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "0x4");
  g_assert_null (cugi_host_buffer_new_registered_address (NULL, address, PAGE, 1 << 7, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "0x80");
  g_assert_false (registered (memory, NULL));

  /* Memory registered twice: the driver's refusal, and the first registration stands. */
  host = cugi_host_buffer_new_registered_address (NULL, address, PAGE, CUGI_HOST_BUFFER_FLAGS_NONE, &error);
  g_assert_no_error (error);
  g_assert_null (cugi_host_buffer_new_registered_address (NULL, address + 16, 16,
                                                          CUGI_HOST_BUFFER_FLAGS_NONE, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_STATE, "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED");
  g_assert_true (registered (memory, NULL));

  /* Nothing to register: a zero-size host buffer, whatever the address. */
  empty = cugi_host_buffer_new_registered_address (NULL, 0, 0, CUGI_HOST_BUFFER_FLAGS_MAPPED, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (cugi_host_buffer_get_size (empty), ==, 0);
  g_assert_null (cugi_host_buffer_get_data (empty, NULL, &error));
  g_assert_no_error (error);
}

static gboolean bytes_freed;

static void
free_bytes (gpointer data)
{
  g_aligned_free (data);
  bytes_freed = TRUE;
}

static GBytes *
aligned_bytes (gsize size)
{
  guint8 *memory = g_aligned_alloc (1, size, PAGE);

  for (gsize i = 0; i < size; i++)
    memory[i] = (guint8) i;
  bytes_freed = FALSE;
  return g_bytes_new_with_free_func (memory, size, free_bytes, memory);
}

static void
test_bytes (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = aligned_bytes (PAGE);
  gconstpointer data = g_bytes_get_data (bytes, NULL);
  const guint8 one = 1;
  CugiHostBuffer *host;
  GBytes *view;
  guint flags = 0;

  host = cugi_host_buffer_new_registered_bytes (NULL, bytes, CUGI_HOST_BUFFER_FLAGS_MAPPED, &error);
  g_assert_no_error (error);
  g_assert_true (registered (data, &flags));
  /* Immutable bytes: read-only for the device, where it can be. */
  g_assert_cmpuint (flags, ==, CU_MEMHOSTREGISTER_DEVICEMAP | CU_MEMHOSTREGISTER_READ_ONLY);
  g_assert_cmpuint (cugi_host_buffer_get_device_pointer (host), ==, (guint64) (guintptr) data);

  /* The host buffer keeps the bytes alive. */
  g_clear_pointer (&bytes, g_bytes_unref);
  g_assert_false (bytes_freed);
  view = cugi_host_buffer_get_bytes (host, &error);
  g_assert_no_error (error);
  g_assert_true (g_bytes_get_data (view, NULL) == data);
  g_assert_cmpuint (((const guint8 *) g_bytes_get_data (view, NULL))[7], ==, 7);

  /* And no one writes them through it. */
  g_assert_false (cugi_host_buffer_write (host, 0, &one, 1, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_STATE, "immutable");
  g_assert_cmpuint (((const guint8 *) data)[0], ==, 0);

  /* Unregistered when the last user goes, and only then the bytes are freed. */
  g_object_unref (host);
  g_assert_true (registered (data, NULL));
  g_assert_false (bytes_freed);
  g_bytes_unref (view);
  g_assert_true (bytes_freed);
}

static void
on_downloaded_to_host (GObject      *source,
                       GAsyncResult *result,
                       gpointer      data)
{
  GError **error = data;

  g_assert_false (cugi_buffer_download_to_host_finish (CUGI_BUFFER (source), result, error));
  g_assert_nonnull (*error);
}

/* No download writes into immutable bytes, whichever way it goes: each is
 * refused and leaves them as they were; uploads from them still go. */
static void
test_bytes_refuse_downloads (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = aligned_bytes (PAGE);
  g_autoptr(GBytes) before = g_bytes_new (g_bytes_get_data (bytes, NULL), PAGE);
  g_autoptr(GBytes) after = NULL;
  g_autoptr(CugiHostBuffer) host = NULL;
  g_autoptr(CugiBuffer) buffer = cugi_test_buffer_new (PAGE);
  g_autoptr(CugiArray) array = cugi_test_array_new (CUGI_ARRAY_FORMAT_UINT8, 1, 64, 64, 0, 0);
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);

  host = cugi_host_buffer_new_registered_bytes (NULL, bytes, CUGI_HOST_BUFFER_FLAGS_NONE, &error);
  g_assert_no_error (error);
  g_assert_true (cugi_buffer_upload_from_host (buffer, 0, host, 0, PAGE, NULL, &error));
  g_assert_no_error (error);
  /* What a download that went through would write. */
  g_assert_true (cugi_buffer_memset_d8 (buffer, 0, 'A', PAGE, NULL, &error));
  g_assert_no_error (error);
  cugi_test_settle (NULL);
  g_assert_true (cugi_array_upload_from_host (array, 0, 0, 0, host, 0, 0, 0, 64, 64, 1, NULL, &error));
  g_assert_no_error (error);

  cugi_test_assert_fails (cugi_buffer_download_to_host (buffer, 0, host, 0, PAGE, NULL, &error), &error,
                          CUGI_ERROR_INVALID_STATE, "immutable");
  cugi_test_assert_fails (cugi_buffer_download_to_host (buffer, 0, host, 0, PAGE, stream, &error), &error,
                          CUGI_ERROR_INVALID_STATE, "immutable");
  cugi_test_assert_fails (cugi_buffer_download_2d_to_host (buffer, 0, 64, host, 0, 64, 64, 64, NULL, &error),
                          &error, CUGI_ERROR_INVALID_STATE, "immutable");
  cugi_test_assert_fails (cugi_array_download_to_host (array, 0, 0, 0, host, 0, 0, 0, 64, 64, 1, NULL, &error),
                          &error, CUGI_ERROR_INVALID_STATE, "immutable");
  cugi_test_assert_fails (cugi_array_download_to_host (array, 0, 0, 0, host, 0, 0, 0, 64, 64, 1, stream,
                                                       &error),
                          &error, CUGI_ERROR_INVALID_STATE, "immutable");
  cugi_buffer_download_to_host_async (buffer, 0, host, 0, PAGE, stream, NULL, on_downloaded_to_host, &error);
  while (error == NULL)
    g_main_context_iteration (NULL, TRUE);
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_STATE, "immutable");

  cugi_test_settle (stream);
  after = g_bytes_new (g_bytes_get_data (bytes, NULL), PAGE);
  cugi_test_assert_bytes_equal (after, before);
}

static void
test_bytes_without_read_only (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = aligned_bytes (2 * PAGE);
  gconstpointer data = g_bytes_get_data (bytes, NULL);
  g_autoptr(CugiHostBuffer) host = NULL;
  guint flags = 0;

  fake_support_read_only (FALSE);
  host = cugi_host_buffer_new_registered_bytes (NULL, bytes, CUGI_HOST_BUFFER_FLAGS_PORTABLE, &error);
  fake_support_read_only (TRUE);
  g_assert_no_error (error);
  g_assert_true (registered (data, &flags));
  g_assert_cmpuint (flags, ==, CU_MEMHOSTREGISTER_PORTABLE);
  /* Still immutable. */
  g_assert_false (cugi_host_buffer_write (host, 0, data, 1, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_STATE, NULL);

  g_assert_true (cugi_host_buffer_free (host, &error));
  g_assert_false (registered (data, NULL));
  /* Freed, the host buffer still keeps the bytes until it goes. */
  g_clear_pointer (&bytes, g_bytes_unref);
  g_assert_false (bytes_freed);
  g_clear_object (&host);
  g_assert_true (bytes_freed);
}

static void
test_bytes_errors (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = aligned_bytes (PAGE);
  g_autoptr(GBytes) empty = g_bytes_new (NULL, 0);
  g_autoptr(CugiHostBuffer) host = NULL;
  g_autoptr(CugiHostBuffer) nothing = NULL;
  g_autoptr(CugiHostBuffer) pinned = NULL;
  g_autoptr(GBytes) pinned_bytes = NULL;

  g_assert_null (cugi_host_buffer_new_registered_bytes (NULL, bytes, CUGI_HOST_BUFFER_FLAGS_WRITE_COMBINED,
                                                        &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, NULL);

  /* Bytes of a registered host buffer are pinned already. */
  pinned = cugi_host_buffer_new_registered_bytes (NULL, bytes, CUGI_HOST_BUFFER_FLAGS_NONE, &error);
  g_assert_no_error (error);
  pinned_bytes = cugi_host_buffer_get_bytes (pinned, &error);
  g_assert_no_error (error);
  g_assert_null (cugi_host_buffer_new_registered_bytes (NULL, pinned_bytes, CUGI_HOST_BUFFER_FLAGS_NONE, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_STATE, "ALREADY_REGISTERED");

  /* Empty bytes register nothing. */
  nothing = cugi_host_buffer_new_registered_bytes (NULL, empty, CUGI_HOST_BUFFER_FLAGS_NONE, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (cugi_host_buffer_get_size (nothing), ==, 0);

  /* A freed host buffer refuses, as every host buffer does. */
  host = cugi_host_buffer_new_registered_address (NULL, 0, 0, CUGI_HOST_BUFFER_FLAGS_NONE, &error);
  g_assert_true (cugi_host_buffer_free (host, &error));
  g_assert_null (cugi_host_buffer_get_bytes (host, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_STATE, NULL);
}

int
main (int argc, char **argv)
{
  cugi_test_init_stand_in (&argc, &argv);
  fake_registration = cugi_test_stand_in_symbol ("fake_cuda_streams_registration");
  fake_support_read_only = cugi_test_stand_in_symbol ("fake_cuda_streams_support_read_only");

  g_test_add_func ("/host-register/address", test_address);
  g_test_add_func ("/host-register/address-finalize", test_address_finalize);
  g_test_add_func ("/host-register/address-errors", test_address_errors);
  g_test_add_func ("/host-register/bytes", test_bytes);
  g_test_add_func ("/host-register/bytes-refuse-downloads", test_bytes_refuse_downloads);
  g_test_add_func ("/host-register/bytes-without-read-only", test_bytes_without_read_only);
  g_test_add_func ("/host-register/bytes-errors", test_bytes_errors);

  return g_test_run ();
}
