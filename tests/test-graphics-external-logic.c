/* test-graphics-external-logic.c: external memory and semaphores and
 * dma-buf export without a GPU, against the stand-in driver
 * (fake-cuda-streams with fake-cuda-graphics): memfds stand for Vulkan's
 * opaque file descriptors, and the test holding another descriptor of the
 * same file is the other side, which writes the memory and signals the
 * semaphores. What an import maps, what each side sees of the other's
 * writes and signals, what keeps imports alive, the descriptors cugi
 * leaves open, and the errors of bad input, after which the library goes on
 * working. */
#define _GNU_SOURCE
#include "config.h"

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cugi-test-utils.h"

/* The stand-in's own functions (fake-cuda-graphics.c). */
static void (*get_counts) (int *resources, int *mapped, int *memories, int *mipmaps, int *semaphores);
static void (*support_dma_buf) (int supported);
static void (*semaphore_signal) (int fd, guint64 value);
static guint64 (*semaphore_value) (int fd);

static void
assert_imports (int memories,
                int mipmaps,
                int semaphores)
{
  int resources, mapped, live_memories, live_mipmaps, live_semaphores;

  get_counts (&resources, &mapped, &live_memories, &live_mipmaps, &live_semaphores);
  g_assert_cmpint (live_memories, ==, memories);
  g_assert_cmpint (live_mipmaps, ==, mipmaps);
  g_assert_cmpint (live_semaphores, ==, semaphores);
}

/* How many file descriptors the process has open. */
static guint
count_open_fds (void)
{
  g_autoptr(GDir) dir = g_dir_open ("/proc/self/fd", 0, NULL);
  guint count = 0;

  g_assert_nonnull (dir);
  while (g_dir_read_name (dir) != NULL)
    count++;
  return count;
}

/* A memfd of @size bytes, the exporter's memory or semaphore. */
static int
memfd_new (gsize size)
{
  int fd = memfd_create ("cugi-test-export", MFD_CLOEXEC);

  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (ftruncate (fd, size), ==, 0);
  return fd;
}

static CugiExternalMemory *
import (CugiExternalMemoryType type,
        int                    fd,
        guint64                size)
{
  g_autoptr(GError) error = NULL;
  CugiExternalMemory *memory = cugi_external_memory_new_from_fd (NULL, type, fd, size,
                                                                 CUGI_EXTERNAL_MEMORY_FLAGS_DEDICATED, &error);

  g_assert_no_error (error);
  return memory;
}

/* Memory of an opaque file descriptor, mapped as buffers: each side sees
 * the other's writes; the caller's descriptor stays its own. */
static void
test_opaque_fd (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiExternalMemory) memory = NULL;
  g_autoptr(CugiBuffer) buffer = NULL;
  g_autoptr(GBytes) seen = NULL;
  g_autoptr(GBytes) pattern = cugi_test_pattern_new (4096, 5);
  guint open_before = count_open_fds ();
  int fd = memfd_new (4096);
  guint8 *exporter = mmap (NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

  g_assert_true (exporter != MAP_FAILED);
  memcpy (exporter, g_bytes_get_data (pattern, NULL), 4096);
  memory = import (CUGI_EXTERNAL_MEMORY_TYPE_OPAQUE_FD, fd, 4096);
  assert_imports (1, 0, 0);
  g_assert_cmpuint (cugi_external_memory_get_size (memory), ==, 4096);
  g_assert_cmpint (cugi_external_memory_get_memory_type (memory), ==, CUGI_EXTERNAL_MEMORY_TYPE_OPAQUE_FD);
  g_assert_cmpint (cugi_external_memory_get_flags (memory), ==, CUGI_EXTERNAL_MEMORY_FLAGS_DEDICATED);
  /* The caller may close its descriptor at once. */
  g_assert_cmpint (close (fd), ==, 0);

  buffer = cugi_external_memory_get_buffer (memory, 1024, 2048, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (cugi_buffer_get_size (buffer), ==, 2048);
  seen = cugi_test_download_all (buffer);
  g_assert_cmpmem (g_bytes_get_data (seen, NULL), 2048, exporter + 1024, 2048);
  g_assert_true (cugi_buffer_upload (buffer, 0, (const guint8 *) "written by CUDA", 15, &error));
  g_assert_no_error (error);
  g_assert_cmpmem (exporter + 1024, 15, "written by CUDA", 15);

  /* Ranges beyond the memory. */
  g_assert_null (cugi_external_memory_get_buffer (memory, 4000, 200, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "external memory");
  g_assert_null (cugi_external_memory_get_buffer (memory, G_MAXUINT64, 2, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "external memory");
  g_assert_null (cugi_external_memory_get_buffer (memory, 0, 0, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "at least 1 byte");

  /* The buffer keeps the import alive; the last of them destroys it, and
   * the driver closes the descriptor it was given. */
  g_clear_object (&memory);
  assert_imports (1, 0, 0);
  g_clear_object (&buffer);
  assert_imports (0, 0, 0);
  g_assert_cmpint (munmap (exporter, 4096), ==, 0);
  g_assert_cmpuint (count_open_fds (), ==, open_before);
}

/* Arrays and mipmapped arrays of imported memory: their shapes, what
 * keeps their mipmapped array, and the checks of their descriptions. */
static void
test_arrays (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiExternalMemory) memory = NULL;
  g_autoptr(CugiArray) array = NULL;
  g_autoptr(GPtrArray) levels = NULL;
  g_autoptr(CugiArray) last = NULL;
  int fd = memfd_new (1 << 16);

  memory = import (CUGI_EXTERNAL_MEMORY_TYPE_OPAQUE_FD, fd, 1 << 16);
  array = cugi_external_memory_get_array (memory, 0, CUGI_ARRAY_FORMAT_FLOAT, 4, 16, 8, 0,
                                          CUGI_ARRAY_FLAGS_SURFACE_LDST | CUGI_ARRAY_FLAGS_COLOR_ATTACHMENT,
                                          &error);
  g_assert_no_error (error);
  g_assert_cmpuint (cugi_array_get_width (array), ==, 16);
  g_assert_cmpuint (cugi_array_get_height (array), ==, 8);
  g_assert_cmpuint (cugi_array_get_channels (array), ==, 4);
  g_assert_cmpint (cugi_array_get_flags (array), ==,
                   CUGI_ARRAY_FLAGS_SURFACE_LDST | CUGI_ARRAY_FLAGS_COLOR_ATTACHMENT);
  assert_imports (1, 1, 0);

  levels = cugi_external_memory_get_mipmapped_array (memory, 0, CUGI_ARRAY_FORMAT_UINT8, 1, 8, 8, 0,
                                                     CUGI_ARRAY_FLAGS_NONE, 3, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (levels->len, ==, 3);
  for (guint level = 0; level < 3; level++)
    {
      CugiArray *level_array = levels->pdata[level];

      g_assert_cmpuint (cugi_array_get_width (level_array), ==, 8 >> level);
      g_assert_cmpuint (cugi_array_get_height (level_array), ==, 8 >> level);
    }
  assert_imports (1, 2, 0);
  /* The mipmapped array goes with its last level. */
  last = g_object_ref (levels->pdata[2]);
  g_clear_pointer (&levels, g_ptr_array_unref);
  assert_imports (1, 2, 0);
  g_clear_object (&last);
  assert_imports (1, 1, 0);

  /* What cugi_array_new() refuses, and levels beyond the memory. */
  g_assert_null (cugi_external_memory_get_array (memory, 0, CUGI_ARRAY_FORMAT_FLOAT, 3, 4, 4, 0,
                                                 CUGI_ARRAY_FLAGS_NONE, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "1, 2 or 4 channels");
  g_assert_null (cugi_external_memory_get_mipmapped_array (memory, 0, CUGI_ARRAY_FORMAT_FLOAT, 1, 4, 4, 0,
                                                           CUGI_ARRAY_FLAGS_NONE, 0, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "at least one level");
  g_assert_null (cugi_external_memory_get_array (memory, 1 << 16, CUGI_ARRAY_FORMAT_FLOAT, 1, 4, 4, 0,
                                                 CUGI_ARRAY_FLAGS_NONE, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "within the memory");

  g_clear_object (&memory);
  g_clear_object (&array);
  close (fd);
}

/* Bad descriptors, sizes and types: clear errors, no descriptor left open,
 * and the library goes on importing. */
static void
test_bad_input (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiExternalMemory) memory = NULL;
  guint open_before = count_open_fds ();
  int fd = memfd_new (4096);
  int closed = memfd_new (4096);

  g_assert_cmpint (close (closed), ==, 0);
  g_assert_null (cugi_external_memory_new_from_fd (NULL, CUGI_EXTERNAL_MEMORY_TYPE_OPAQUE_FD, -1, 4096,
                                                   CUGI_EXTERNAL_MEMORY_FLAGS_NONE, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "-1 is not a file descriptor");
  g_assert_null (cugi_external_memory_new_from_fd (NULL, CUGI_EXTERNAL_MEMORY_TYPE_OPAQUE_FD, closed, 4096,
                                                   CUGI_EXTERNAL_MEMORY_FLAGS_NONE, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "cannot be used");
  g_assert_null (cugi_external_memory_new_from_fd (NULL, (CugiExternalMemoryType) 4, fd, 4096,
                                                   CUGI_EXTERNAL_MEMORY_FLAGS_NONE, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "CugiExternalMemoryType");
  g_assert_null (cugi_external_memory_new_from_fd (NULL, CUGI_EXTERNAL_MEMORY_TYPE_OPAQUE_FD, fd, 0,
                                                   CUGI_EXTERNAL_MEMORY_FLAGS_NONE, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "at least 1");
  g_assert_null (cugi_external_memory_new_from_fd (NULL, CUGI_EXTERNAL_MEMORY_TYPE_OPAQUE_FD, fd, 4096,
                                                   1 << 3, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "DEDICATED");
  /* A dma-buf tells its size, so cugi refuses more; the driver refuses
   * more than an opaque descriptor's memory. */
  g_assert_null (cugi_external_memory_new_from_fd (NULL, CUGI_EXTERNAL_MEMORY_TYPE_DMA_BUF, fd, 8192,
                                                   CUGI_EXTERNAL_MEMORY_FLAGS_NONE, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "fewer than the 8192");
  g_assert_null (cugi_external_memory_new_from_fd (NULL, CUGI_EXTERNAL_MEMORY_TYPE_OPAQUE_FD, fd, 8192,
                                                   CUGI_EXTERNAL_MEMORY_FLAGS_NONE, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "cuImportExternalMemory");
  assert_imports (0, 0, 0);

  memory = import (CUGI_EXTERNAL_MEMORY_TYPE_DMA_BUF, fd, 4096);
  g_clear_object (&memory);
  memory = g_object_new (CUGI_TYPE_EXTERNAL_MEMORY, NULL);
  g_assert_null (cugi_external_memory_get_buffer (memory, 0, 1, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_STATE, "not imported");
  g_clear_object (&memory);
  close (fd);
  g_assert_cmpuint (count_open_fds (), ==, open_before);
}

/* A buffer exported as a dma-buf and imported back: the import is the
 * buffer's memory, at the offset the export told. */
static void
test_dma_buf_round_trip (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) pattern = cugi_test_pattern_new (10000, 9);
  g_autoptr(CugiBuffer) buffer = cugi_test_buffer_new_with (pattern);
  g_autoptr(CugiBuffer) empty = cugi_test_buffer_new (0);
  g_autoptr(CugiExternalMemory) memory = NULL;
  g_autoptr(CugiBuffer) imported = NULL;
  g_autoptr(GBytes) seen = NULL;
  gsize page = sysconf (_SC_PAGESIZE);
  guint64 offset = 0, size = 0;
  int fd = -1;

  fd = cugi_buffer_export_dma_buf (buffer, &offset, &size, &error);
  g_assert_no_error (error);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpuint (offset, ==, cugi_buffer_get_device_pointer (buffer) % page);
  g_assert_cmpuint (size % page, ==, 0);
  g_assert_cmpuint (offset + 10000, <=, size);

  memory = import (CUGI_EXTERNAL_MEMORY_TYPE_DMA_BUF, fd, size);
  close (fd);
  imported = cugi_external_memory_get_buffer (memory, offset, 10000, &error);
  g_assert_no_error (error);
  seen = cugi_test_download_all (imported);
  cugi_test_assert_bytes_equal (seen, pattern);
  g_assert_true (cugi_buffer_upload (imported, 0, (const guint8 *) "back", 4, &error));
  g_assert_no_error (error);
  g_clear_pointer (&seen, g_bytes_unref);
  seen = cugi_test_download (buffer, 0, 4);
  g_assert_cmpmem (g_bytes_get_data (seen, NULL), 4, "back", 4);

  /* Nothing to export, or a device that cannot. */
  g_assert_cmpint (cugi_buffer_export_dma_buf (empty, NULL, NULL, &error), ==, -1);
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "zero-size");
  support_dma_buf (FALSE);
  g_assert_cmpint (cugi_buffer_export_dma_buf (buffer, NULL, NULL, &error), ==, -1);
  cugi_test_assert_error (&error, CUGI_ERROR_NOT_SUPPORTED, "DMA_BUF_SUPPORTED");
  support_dma_buf (TRUE);
  g_assert_true (cugi_buffer_free (buffer, &error));
  g_assert_cmpint (cugi_buffer_export_dma_buf (buffer, NULL, NULL, &error), ==, -1);
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_STATE, "freed");
}

static CugiExternalSemaphore *
semaphore_new (CugiExternalSemaphoreType type,
               int                       fd)
{
  g_autoptr(GError) error = NULL;
  CugiExternalSemaphore *semaphore = cugi_external_semaphore_new_from_fd (NULL, type, fd, &error);

  g_assert_no_error (error);
  return semaphore;
}

/* A binary semaphore: CUDA's wait holds its stream until the other side
 * signals, and CUDA's signal reaches the other side in stream order. */
static void
test_binary_semaphore (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  g_autoptr(CugiExternalSemaphore) semaphore = NULL;
  int fd = memfd_new (0);

  semaphore = semaphore_new (CUGI_EXTERNAL_SEMAPHORE_TYPE_OPAQUE_FD, fd);
  g_assert_cmpint (cugi_external_semaphore_get_semaphore_type (semaphore), ==,
                   CUGI_EXTERNAL_SEMAPHORE_TYPE_OPAQUE_FD);
  assert_imports (0, 0, 1);

  g_assert_true (cugi_external_semaphore_wait (semaphore, 0, stream, &error));
  g_assert_no_error (error);
  cugi_test_assert_query (stream, FALSE);
  semaphore_signal (fd, 0);
  cugi_test_synchronize (stream);
  g_assert_cmpuint (semaphore_value (fd), ==, 0);

  g_assert_true (cugi_external_semaphore_signal (semaphore, 0, stream, &error));
  g_assert_no_error (error);
  cugi_test_synchronize (stream);
  g_assert_cmpuint (semaphore_value (fd), ==, 1);

  cugi_test_assert_fails (cugi_external_semaphore_signal (semaphore, 5, stream, &error), &error,
                          CUGI_ERROR_INVALID_ARGUMENT, "no values");
  cugi_test_assert_fails (cugi_external_semaphore_wait (semaphore, 5, stream, &error), &error,
                          CUGI_ERROR_INVALID_ARGUMENT, "no values");

  /* Work in flight keeps the semaphore. */
  g_assert_true (cugi_external_semaphore_signal (semaphore, 0, stream, &error));
  g_clear_object (&semaphore);
  cugi_test_settle (stream);
  assert_imports (0, 0, 0);
  close (fd);
}

/* A timeline semaphore: signals set values, waits wait for them. */
static void
test_timeline_semaphore (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  g_autoptr(CugiExternalSemaphore) semaphore = NULL;
  int fd = memfd_new (0);

  semaphore = semaphore_new (CUGI_EXTERNAL_SEMAPHORE_TYPE_TIMELINE_FD, fd);
  g_assert_true (cugi_external_semaphore_signal (semaphore, 3, stream, &error));
  g_assert_no_error (error);
  cugi_test_synchronize (stream);
  g_assert_cmpuint (semaphore_value (fd), ==, 3);

  g_assert_true (cugi_external_semaphore_wait (semaphore, 5, stream, &error));
  g_assert_no_error (error);
  semaphore_signal (fd, 4);
  cugi_test_assert_query (stream, FALSE);
  semaphore_signal (fd, 5);
  cugi_test_synchronize (stream);
  g_clear_object (&semaphore);
  cugi_test_settle (stream);
  assert_imports (0, 0, 0);
  close (fd);
}

/* Bad descriptors and types, a stream of another context. */
static void
test_semaphore_bad_input (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiDevice) device = cugi_device_get (1, &error);
  g_autoptr(CugiContext) other = NULL;
  g_autoptr(CugiStream) stream = NULL;
  g_autoptr(CugiExternalSemaphore) semaphore = NULL;
  guint open_before = count_open_fds ();
  int fd = memfd_new (0);
  int closed = memfd_new (0);

  g_assert_no_error (error);
  g_assert_cmpint (close (closed), ==, 0);
  g_assert_null (cugi_external_semaphore_new_from_fd (NULL, CUGI_EXTERNAL_SEMAPHORE_TYPE_OPAQUE_FD, -1, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "-1 is not a file descriptor");
  g_assert_null (cugi_external_semaphore_new_from_fd (NULL, CUGI_EXTERNAL_SEMAPHORE_TYPE_TIMELINE_FD, closed,
                                                      &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "cannot be used");
  g_assert_null (cugi_external_semaphore_new_from_fd (NULL, (CugiExternalSemaphoreType) 2, fd, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "CugiExternalSemaphoreType");
  assert_imports (0, 0, 0);

  other = cugi_device_get_primary_context (device, &error);
  g_assert_no_error (error);
  stream = cugi_stream_new (other, CUGI_STREAM_FLAGS_NONE, 0, &error);
  g_assert_no_error (error);
  semaphore = semaphore_new (CUGI_EXTERNAL_SEMAPHORE_TYPE_TIMELINE_FD, fd);
  cugi_test_assert_fails (cugi_external_semaphore_signal (semaphore, 1, stream, &error), &error,
                          CUGI_ERROR_INVALID_CONTEXT, "another context");
  g_assert_true (cugi_external_semaphore_signal (semaphore, 1, NULL, &error));
  g_assert_no_error (error);
  cugi_test_settle (NULL);
  g_clear_object (&semaphore);
  close (fd);
  g_assert_cmpuint (count_open_fds (), ==, open_before);
}

int
main (int argc, char **argv)
{
  cugi_test_init_stand_in (&argc, &argv);
  get_counts = cugi_test_stand_in_symbol ("fake_cuda_graphics_get_counts");
  support_dma_buf = cugi_test_stand_in_symbol ("fake_cuda_graphics_support_dma_buf");
  semaphore_signal = cugi_test_stand_in_symbol ("fake_cuda_graphics_semaphore_signal");
  semaphore_value = cugi_test_stand_in_symbol ("fake_cuda_graphics_semaphore_value");

  g_test_add_func ("/external-memory/opaque-fd", test_opaque_fd);
  g_test_add_func ("/external-memory/arrays", test_arrays);
  g_test_add_func ("/external-memory/bad-input", test_bad_input);
  g_test_add_func ("/external-memory/dma-buf-round-trip", test_dma_buf_round_trip);
  g_test_add_func ("/external-semaphore/binary", test_binary_semaphore);
  g_test_add_func ("/external-semaphore/timeline", test_timeline_semaphore);
  g_test_add_func ("/external-semaphore/bad-input", test_semaphore_bad_input);

  return g_test_run ();
}
