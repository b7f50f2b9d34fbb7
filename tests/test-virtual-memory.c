/* test-virtual-memory.c: physical memory, reserved ranges, growable buffers
 * and pools shared between processes, against the stand-in driver
 * (fake-cuda-streams with fake-cuda-vmm: suite cpu) and a GPU (suite gpu).
 * Each case runs where its driver is and skips elsewhere; the child
 * processes are this program again, run with --child-read-fd or
 * --child-read-pool. */
#include "config.h"

#include <string.h>
#include <unistd.h>

#include <gio/gio.h>

#include "cugi-test-utils.h"

#define MIB ((gsize) 1 << 20)

static gboolean on_stand_in;
static const char *program;

static gboolean
have_fake (void)
{
  if (on_stand_in)
    return TRUE;
  g_test_skip ("needs the stand-in driver (fake-cuda-streams)");
  return FALSE;
}

static gboolean
have_gpu (void)
{
  if (on_stand_in)
    {
      g_test_skip ("needs a GPU, not the stand-in driver");
      return FALSE;
    }
  return cugi_test_have_gpu ();
}

/* A driver: the stand-in, or a GPU (else the case is skipped). */
static gboolean
have_driver (void)
{
  return on_stand_in || cugi_test_have_gpu ();
}

static gsize
granularity (void)
{
  g_autoptr(GError) error = NULL;
  gsize value = cugi_physical_memory_get_granularity (NULL, 0, FALSE, &error);

  g_assert_no_error (error);
  g_assert_cmpuint (value, >, 0);
  return value;
}

static CugiPhysicalMemory *
physical_memory_new (gsize                   size,
                     CugiPhysicalMemoryFlags flags)
{
  g_autoptr(GError) error = NULL;
  CugiPhysicalMemory *memory = cugi_physical_memory_new (NULL, size, flags, &error);

  g_assert_no_error (error);
  return memory;
}

static CugiVirtualRange *
range_new (gsize size)
{
  g_autoptr(GError) error = NULL;
  CugiVirtualRange *range = cugi_virtual_range_new (NULL, size, &error);

  g_assert_no_error (error);
  return range;
}

static void
upload (CugiBuffer *buffer,
        gsize       offset,
        GBytes     *bytes)
{
  g_autoptr(GError) error = NULL;

  cugi_buffer_upload (buffer, offset, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes), &error);
  g_assert_no_error (error);
}

static void
assert_downloads (CugiBuffer *buffer,
                  gsize       offset,
                  GBytes     *expected)
{
  g_autoptr(GBytes) actual = cugi_test_download (buffer, offset, g_bytes_get_size (expected));

  cugi_test_assert_bytes_equal (actual, expected);
}

/* ---- physical memory ------------------------------------------------------ */

static void
test_granularity_and_flags (void)
{
  g_autoptr(GError) error = NULL;
  CugiPhysicalMemoryFlags supported;

  if (!have_fake ())
    return;
  g_assert_cmpuint (granularity (), ==, 64 << 10);
  g_assert_cmpuint (cugi_physical_memory_get_granularity (NULL, 0, TRUE, &error), ==, 2 * MIB);
  g_assert_no_error (error);
  supported = cugi_physical_memory_get_supported_flags (NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (supported, ==, CUGI_PHYSICAL_MEMORY_FLAGS_EXPORTABLE | CUGI_PHYSICAL_MEMORY_FLAGS_GPU_DIRECT_RDMA);

  /* What the device lacks, and what is no flag at all. */
  g_assert_null (cugi_physical_memory_new (NULL, granularity (), CUGI_PHYSICAL_MEMORY_FLAGS_COMPRESSIBLE, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_NOT_SUPPORTED, "compressible");
  g_assert_null (cugi_physical_memory_new (NULL, granularity (), 1 << 7, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "0x80");

  {
    g_autoptr(CugiPhysicalMemory) rdma =
      physical_memory_new (granularity (), CUGI_PHYSICAL_MEMORY_FLAGS_GPU_DIRECT_RDMA);

    g_assert_cmpint (cugi_physical_memory_get_flags (rdma), ==, CUGI_PHYSICAL_MEMORY_FLAGS_GPU_DIRECT_RDMA);
    g_assert_cmpuint (cugi_physical_memory_get_size (rdma), ==, granularity ());
  }
}

static void
test_sizes (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiVirtualRange) range = NULL;
  g_autoptr(CugiPhysicalMemory) page = NULL;
  g_autoptr(CugiBuffer) buffer = NULL;
  gsize unit;

  if (!have_driver ())
    return;
  unit = granularity ();
  g_assert_null (cugi_physical_memory_new (NULL, unit + 1, 0, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "granularity");
  g_assert_null (cugi_physical_memory_new (NULL, 0, 0, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "granularity");
  g_assert_null (cugi_virtual_range_new (NULL, unit / 2, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "granularity");

  range = range_new (4 * unit);
  page = physical_memory_new (unit, 0);
  g_assert_cmpuint (cugi_virtual_range_get_granularity (range), ==, unit);
  g_assert_false (cugi_virtual_range_map (range, unit / 2, page, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "granularity");
  g_assert_false (cugi_virtual_range_map (range, 4 * unit, page, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, NULL);
  g_assert_true (cugi_virtual_range_map (range, unit, page, &error));
  g_assert_no_error (error);
  g_assert_false (cugi_virtual_range_map (range, unit, page, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "mapped");

  /* Buffers only over what is mapped; no unmapping under them, nor of
   * what is not whole mappings. */
  g_assert_null (cugi_virtual_range_get_buffer (range, 0, 2 * unit, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "mapped");
  buffer = cugi_virtual_range_get_buffer (range, unit + 16, 32, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (cugi_buffer_get_device_pointer (buffer), ==, cugi_virtual_range_get_address (range) + unit + 16);
  g_assert_false (cugi_virtual_range_unmap (range, unit, unit, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_STATE, "alive");
  g_assert_false (cugi_virtual_range_unmap (range, 0, 2 * unit, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "whole mappings");
  g_clear_object (&buffer);
  g_assert_true (cugi_virtual_range_unmap (range, unit, unit, &error));
  g_assert_no_error (error);
  g_assert_false (cugi_virtual_range_unmap (range, unit, unit, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "whole mappings");
}

static void
test_range_map (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiVirtualRange) range = NULL;
  g_autoptr(CugiPhysicalMemory) first = NULL;
  g_autoptr(CugiPhysicalMemory) second = NULL;
  g_autoptr(CugiBuffer) both = NULL;
  g_autoptr(GBytes) pattern = NULL;
  g_autoptr(CugiDevice) device = NULL;
  g_autoptr(CugiDevice) other = NULL;
  gsize unit;

  if (!have_driver ())
    return;
  unit = granularity ();
  range = range_new (8 * unit);
  first = physical_memory_new (unit, 0);
  second = physical_memory_new (2 * unit, 0);
  g_assert_true (cugi_virtual_range_map (range, 0, first, &error));
  g_assert_no_error (error);
  g_assert_true (cugi_virtual_range_map (range, unit, second, &error));
  g_assert_no_error (error);

  /* One buffer across two allocations. */
  both = cugi_virtual_range_get_buffer (range, 0, 3 * unit, &error);
  g_assert_no_error (error);
  pattern = cugi_test_pattern_new (3 * unit, 7);
  upload (both, 0, pattern);
  assert_downloads (both, 0, pattern);

  /* The memory's own device may read and write it. */
  device = cugi_device_get (0, &error);
  g_assert_no_error (error);
  g_assert_cmpint (cugi_virtual_range_get_access (range, unit, device, &error), ==, CUGI_MEMORY_ACCESS_READ_WRITE);
  g_assert_no_error (error);
  g_assert_cmpint (cugi_virtual_range_get_access (range, 4 * unit, device, &error), ==, CUGI_MEMORY_ACCESS_NONE);
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "mapped");
  g_assert_false (cugi_virtual_range_set_access (range, 0, 4 * unit, device, CUGI_MEMORY_ACCESS_READ, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "mapped");
  g_assert_false (cugi_virtual_range_set_access (range, 0, unit, device, 2, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, NULL);

  /* A peer given read access (the stand-in has two devices). */
  if (cugi_device_get_count (NULL) > 1 && on_stand_in)
    {
      other = cugi_device_get (1, &error);
      g_assert_no_error (error);
      g_assert_cmpint (cugi_virtual_range_get_access (range, 0, other, &error), ==, CUGI_MEMORY_ACCESS_NONE);
      g_assert_true (cugi_virtual_range_set_access (range, 0, 3 * unit, other, CUGI_MEMORY_ACCESS_READ, &error));
      g_assert_no_error (error);
      g_assert_cmpint (cugi_virtual_range_get_access (range, 2 * unit, other, &error), ==, CUGI_MEMORY_ACCESS_READ);
      g_assert_no_error (error);
    }
}

/* ---- growable buffers ----------------------------------------------------- */

static void
test_growable (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiGrowableBuffer) growable = NULL;
  g_autoptr(GBytes) head = NULL;
  g_autoptr(GBytes) tail = NULL;
  CugiBuffer *buffer;
  guint64 address;
  guint notified = 0;
  gsize unit;

  if (!have_driver ())
    return;
  unit = granularity ();
  g_assert_null (cugi_growable_buffer_new (NULL, 0, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, NULL);

  growable = cugi_growable_buffer_new (NULL, 3 * unit + 1, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (cugi_growable_buffer_get_max_size (growable), ==, 4 * unit);
  buffer = cugi_growable_buffer_get_buffer (growable);
  g_assert_cmpuint (cugi_buffer_get_size (buffer), ==, 0);
  g_signal_connect (buffer, "notify::size", G_CALLBACK (cugi_test_count_notify), &notified);
  address = cugi_buffer_get_device_pointer (buffer);

  g_assert_true (cugi_growable_buffer_grow (growable, 100, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (cugi_growable_buffer_get_size (growable), ==, 100);
  g_assert_cmpuint (cugi_growable_buffer_get_capacity (growable), ==, unit);
  head = cugi_test_pattern_new (100, 1);
  upload (buffer, 0, head);

  /* In place: the same buffer, at the same address, with its data. */
  g_assert_true (cugi_growable_buffer_grow (growable, 2 * unit + 5, &error));
  g_assert_no_error (error);
  g_assert_true (cugi_growable_buffer_get_buffer (growable) == buffer);
  g_assert_cmpuint (cugi_buffer_get_device_pointer (buffer), ==, address);
  g_assert_cmpuint (cugi_buffer_get_size (buffer), ==, 2 * unit + 5);
  g_assert_cmpuint (cugi_growable_buffer_get_capacity (growable), ==, 3 * unit);
  g_assert_cmpuint (notified, ==, 2);
  assert_downloads (buffer, 0, head);
  tail = cugi_test_pattern_new (2 * unit + 5 - 100, 2);
  upload (buffer, 100, tail);
  assert_downloads (buffer, 0, head);
  assert_downloads (buffer, 100, tail);

  /* Smaller sizes change nothing; beyond the reservation is an error. */
  g_assert_true (cugi_growable_buffer_grow (growable, 10, &error));
  g_assert_cmpuint (cugi_buffer_get_size (buffer), ==, 2 * unit + 5);
  g_assert_false (cugi_growable_buffer_grow (growable, 4 * unit + 1, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "reserved");
  g_assert_cmpuint (cugi_buffer_get_size (buffer), ==, 2 * unit + 5);
  g_assert_true (cugi_growable_buffer_grow (growable, 4 * unit, &error));
  g_assert_no_error (error);

  /* Freed, it grows no more. */
  g_assert_true (cugi_buffer_free (buffer, &error));
  g_assert_no_error (error);
  g_assert_false (cugi_growable_buffer_grow (growable, 4 * unit, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_STATE, "freed");
}

/* Its buffer is a buffer of its context: another context's stream is refused. */
static void
test_growable_wrong_context (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiGrowableBuffer) growable = NULL;
  g_autoptr(CugiDevice) other = NULL;
  g_autoptr(CugiContext) other_context = NULL;
  g_autoptr(CugiStream) other_stream = NULL;
  g_autoptr(CugiBuffer) plain = NULL;

  if (!have_driver ())
    return;
  if (cugi_device_get_count (NULL) < 2)
    {
      g_test_skip ("needs a second device");
      return;
    }
  growable = cugi_growable_buffer_new (NULL, granularity (), &error);
  g_assert_no_error (error);
  g_assert_true (cugi_growable_buffer_grow (growable, 64, &error));
  other = cugi_device_get (1, &error);
  g_assert_no_error (error);
  other_context = cugi_device_get_primary_context (other, &error);
  g_assert_no_error (error);
  other_stream = cugi_stream_new (other_context, CUGI_STREAM_FLAGS_NONE, 0, &error);
  g_assert_no_error (error);
  plain = cugi_test_buffer_new (64);
  g_assert_false (cugi_buffer_copy (cugi_growable_buffer_get_buffer (growable), 0, plain, 0, 64, other_stream,
                                    &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_CONTEXT, NULL);
}

/* ---- file descriptors ----------------------------------------------------- */

static void
test_fd_errors (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiPhysicalMemory) plain = NULL;

  if (!have_driver ())
    return;
  plain = physical_memory_new (granularity (), 0);
  g_assert_cmpint (cugi_physical_memory_export_fd (plain, &error), ==, -1);
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_STATE, "EXPORTABLE");
  g_assert_null (cugi_physical_memory_new_from_fd (NULL, -1, granularity (), &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "-1");
  g_assert_null (cugi_physical_memory_new_from_fd (NULL, 0, granularity () - 1, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "granularity");
}

/* Writes @memory's first bytes, shares it with a child that maps it and
 * prints what it reads, and compares. */
static void
test_fd_child (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiPhysicalMemory) memory = NULL;
  g_autoptr(CugiVirtualRange) range = NULL;
  g_autoptr(CugiBuffer) buffer = NULL;
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GSubprocess) child = NULL;
  g_autofree char *size_arg = NULL;
  g_autofree char *out = NULL;
  const char message[] = "written by the parent";
  gsize unit;
  gint fd;

  if (!have_driver ())
    return;
  unit = granularity ();
  memory = physical_memory_new (unit, CUGI_PHYSICAL_MEMORY_FLAGS_EXPORTABLE);
  range = range_new (unit);
  g_assert_true (cugi_virtual_range_map (range, 0, memory, &error));
  g_assert_no_error (error);
  buffer = cugi_virtual_range_get_buffer (range, 0, unit, &error);
  g_assert_no_error (error);
  g_assert_true (cugi_buffer_upload (buffer, 0, (const guint8 *) message, sizeof message, &error));
  g_assert_no_error (error);

  fd = cugi_physical_memory_export_fd (memory, &error);
  g_assert_no_error (error);
  g_assert_cmpint (fd, >=, 0);
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE);
  g_subprocess_launcher_take_fd (launcher, fd, 3);
  size_arg = g_strdup_printf ("%zu", unit);
  child = g_subprocess_launcher_spawn (launcher, &error, program, "--child-read-fd", size_arg, NULL);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_communicate_utf8 (child, NULL, NULL, &out, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_if_exited (child));
  g_assert_cmpint (g_subprocess_get_exit_status (child), ==, 0);
  g_assert_cmpstr (out, ==, message);
}

/* The child of test_fd_child(): imports fd 3 and prints its first string. */
static int
child_read_fd (gsize size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiPhysicalMemory) memory = NULL;
  g_autoptr(CugiVirtualRange) range = NULL;
  g_autoptr(CugiBuffer) buffer = NULL;
  g_autoptr(GBytes) bytes = NULL;

  if (!cugi_init (&error) ||
      (memory = cugi_physical_memory_new_from_fd (NULL, 3, size, &error)) == NULL ||
      (range = cugi_virtual_range_new (NULL, size, &error)) == NULL ||
      !cugi_virtual_range_map (range, 0, memory, &error) ||
      (buffer = cugi_virtual_range_get_buffer (range, 0, size, &error)) == NULL ||
      (bytes = cugi_buffer_download (buffer, 0, 64, &error)) == NULL)
    {
      g_printerr ("child: %s\n", error->message);
      return 1;
    }
  close (3);
  g_print ("%s", (const char *) g_bytes_get_data (bytes, NULL));
  return 0;
}

/* ---- pools shared between processes --------------------------------------- */

static CugiStreamOrderedPool *
exportable_pool_new (void)
{
  g_autoptr(GError) error = NULL;
  CugiStreamOrderedPool *pool = cugi_stream_ordered_pool_new_exportable (NULL, &error);

  g_assert_no_error (error);
  g_assert_true (cugi_stream_ordered_pool_is_exportable (pool));
  return pool;
}

static CugiStreamOrderedPool *
import_pool (CugiStreamOrderedPool *pool)
{
  g_autoptr(GError) error = NULL;
  CugiStreamOrderedPool *imported;
  gint fd = cugi_stream_ordered_pool_export_fd (pool, &error);

  g_assert_no_error (error);
  imported = cugi_stream_ordered_pool_new_from_fd (NULL, fd, &error);
  g_assert_no_error (error);
  close (fd);
  g_assert_true (cugi_stream_ordered_pool_is_imported (imported));
  return imported;
}

static void
test_pool_sharing_errors (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiStreamOrderedPool) plain = NULL;
  g_autoptr(CugiStreamOrderedPool) pool = NULL;
  g_autoptr(CugiStreamOrderedPool) imported = NULL;
  g_autoptr(CugiBuffer) foreign = NULL;
  g_autoptr(CugiBuffer) own = NULL;
  g_autoptr(CugiBuffer) view = NULL;
  g_autoptr(GBytes) exported = NULL;
  g_autoptr(GBytes) short_bytes = g_bytes_new_static ("short", 5);

  if (!on_stand_in)
    {
      g_test_skip ("the same-process import needs the stand-in driver");
      return;
    }
  plain = cugi_stream_ordered_pool_new (NULL, &error);
  g_assert_no_error (error);
  g_assert_false (cugi_stream_ordered_pool_is_exportable (plain));
  g_assert_cmpint (cugi_stream_ordered_pool_export_fd (plain, &error), ==, -1);
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_STATE, "new_exportable");
  g_assert_null (cugi_stream_ordered_pool_new_from_fd (NULL, -1, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "-1");

  pool = exportable_pool_new ();
  imported = import_pool (pool);
  foreign = cugi_stream_ordered_pool_allocate (plain, NULL, 256, &error);
  g_assert_no_error (error);
  g_assert_null (cugi_stream_ordered_pool_export_buffer (pool, foreign, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "this pool");
  own = cugi_stream_ordered_pool_allocate (pool, NULL, 256, &error);
  g_assert_no_error (error);
  view = cugi_buffer_new_view (own, 0, 16, &error);
  g_assert_no_error (error);
  g_assert_null (cugi_stream_ordered_pool_export_buffer (pool, view, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "this pool");
  exported = cugi_stream_ordered_pool_export_buffer (pool, own, &error);
  g_assert_no_error (error);

  g_assert_null (cugi_stream_ordered_pool_import_buffer (pool, exported, NULL, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_STATE, "new_from_fd");
  g_assert_null (cugi_stream_ordered_pool_import_buffer (imported, short_bytes, NULL, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "5 bytes");
  g_assert_null (cugi_stream_ordered_pool_allocate (imported, NULL, 256, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_STATE, "imported");
  g_assert_cmpint (cugi_stream_ordered_pool_export_fd (imported, &error), ==, -1);
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_STATE, NULL);
}

/* The stand-in shares within its process: the imported buffer is the
 * exporter's memory (host memory in the stand-in, read as such). */
static void
test_pool_sharing_same_process (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiStreamOrderedPool) pool = NULL;
  g_autoptr(CugiStreamOrderedPool) imported = NULL;
  g_autoptr(CugiStream) stream = NULL;
  g_autoptr(CugiBuffer) own = NULL;
  g_autoptr(CugiBuffer) opened = NULL;
  g_autoptr(GBytes) exported = NULL;
  const guint8 *memory;

  if (!have_fake ())
    return;
  pool = exportable_pool_new ();
  imported = import_pool (pool);
  stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NONE);
  own = cugi_stream_ordered_pool_allocate (pool, stream, 4096, &error);
  g_assert_no_error (error);
  exported = cugi_stream_ordered_pool_export_buffer (pool, own, &error);
  g_assert_no_error (error);
  opened = cugi_stream_ordered_pool_import_buffer (imported, exported, stream, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (cugi_buffer_get_size (opened), ==, 4096);
  g_assert_true (cugi_buffer_memset_d8 (opened, 0, 0x5a, 4096, stream, &error));
  g_assert_no_error (error);
  cugi_test_synchronize (stream);
  memory = GSIZE_TO_POINTER (cugi_buffer_get_device_pointer (own));
  g_assert_cmpuint (memory[0], ==, 0x5a);
  g_assert_cmpuint (memory[4095], ==, 0x5a);
  /* The importer frees first, as it must. */
  g_clear_object (&opened);
  g_clear_object (&own);
  cugi_test_synchronize (stream);
  g_assert_cmpuint (cugi_stream_ordered_pool_get_used_current (pool, &error), ==, 0);
  g_assert_no_error (error);
}

/* ---- GPU: kernels ---------------------------------------------------------- */

static const char fill_source[] =
  "extern \"C\" __global__ void fill (unsigned int *out, unsigned int from, unsigned int n)\n"
  "{\n"
  "  unsigned int i = from + blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (i < n) out[i] = i * 3u + 1u;\n"
  "}\n";

static void
fill (CugiKernel *kernel,
      CugiBuffer *buffer,
      guint       from,
      guint       n)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiLaunchConfig) config = cugi_launch_config_new ((n - from + 255) / 256, 256);
  g_autoptr(CugiKernelArgs) args = cugi_kernel_args_new ();

  cugi_kernel_args_add_buffer (args, buffer);
  cugi_kernel_args_add_uint32 (args, from);
  cugi_kernel_args_add_uint32 (args, n);
  g_assert_true (cugi_kernel_launch (kernel, config, args, &error));
  g_assert_no_error (error);
}

static void
assert_filled (CugiBuffer *buffer,
               guint       n)
{
  g_autoptr(GBytes) bytes = cugi_test_download (buffer, 0, n * sizeof (guint32));
  const guint32 *values = g_bytes_get_data (bytes, NULL);

  for (guint i = 0; i < n; i++)
    if (values[i] != i * 3u + 1u)
      g_error ("element %u is %u, not %u", i, values[i], i * 3u + 1u);
}

/* A kernel's data kept while its buffer grows: written, grown (the address
 * kept), checked, the new part written by the same kernel, all checked. */
static void
test_gpu_growable_kernel (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiGrowableBuffer) growable = NULL;
  g_autoptr(CugiKernel) kernel = NULL;
  CugiBuffer *buffer;
  guint64 address;
  guint first = 1000;
  guint all;

  if (!have_gpu ())
    return;
  kernel = cugi_test_kernel_new (fill_source, "fill");
  growable = cugi_growable_buffer_new (NULL, 64 * MIB, &error);
  g_assert_no_error (error);
  buffer = cugi_growable_buffer_get_buffer (growable);
  g_assert_true (cugi_growable_buffer_grow (growable, first * sizeof (guint32), &error));
  g_assert_no_error (error);
  address = cugi_buffer_get_device_pointer (buffer);
  fill (kernel, buffer, 0, first);

  /* Well past the first allocation (2 MiB on an H200). */
  all = (guint) (10 * MIB / sizeof (guint32));
  g_assert_true (cugi_growable_buffer_grow (growable, all * sizeof (guint32), &error));
  g_assert_no_error (error);
  g_assert_cmpuint (cugi_buffer_get_device_pointer (buffer), ==, address);
  assert_filled (buffer, first);
  fill (kernel, buffer, first, all);
  assert_filled (buffer, all);
}

/* Two processes share a pool: the parent fills a buffer with a kernel on its
 * stream and records an IPC event; the child imports pool, buffer and
 * event, waits for the event on its stream and prints a checksum. */
static void
test_gpu_pool_two_processes (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiStreamOrderedPool) pool = NULL;
  g_autoptr(CugiStream) stream = NULL;
  g_autoptr(CugiEvent) event = NULL;
  g_autoptr(CugiBuffer) buffer = NULL;
  g_autoptr(CugiKernel) kernel = NULL;
  g_autoptr(GBytes) exported = NULL;
  g_autoptr(GBytes) event_handle = NULL;
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GSubprocess) child = NULL;
  g_autofree char *exported_hex = NULL;
  g_autofree char *event_hex = NULL;
  g_autofree char *out = NULL;
  g_autofree char *expected = NULL;
  guint n = 1 << 20;
  guint64 sum = 0;
  gint fd;

  if (!have_gpu ())
    return;
  pool = exportable_pool_new ();
  stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  event = cugi_test_event_new (CUGI_EVENT_FLAGS_INTERPROCESS | CUGI_EVENT_FLAGS_DISABLE_TIMING);
  kernel = cugi_test_kernel_new (fill_source, "fill");
  /* The pool is shared before its allocations are. */
  fd = cugi_stream_ordered_pool_export_fd (pool, &error);
  g_assert_no_error (error);
  buffer = cugi_stream_ordered_pool_allocate (pool, stream, n * sizeof (guint32), &error);
  g_assert_no_error (error);
  {
    g_autoptr(CugiLaunchConfig) config = cugi_launch_config_new (n / 256, 256);
    g_autoptr(CugiKernelArgs) args = cugi_kernel_args_new ();

    cugi_launch_config_set_stream (config, stream);
    cugi_kernel_args_add_buffer (args, buffer);
    cugi_kernel_args_add_uint32 (args, 0);
    cugi_kernel_args_add_uint32 (args, n);
    g_assert_true (cugi_kernel_launch (kernel, config, args, &error));
    g_assert_no_error (error);
  }
  cugi_test_record (event, stream);
  exported = cugi_stream_ordered_pool_export_buffer (pool, buffer, &error);
  g_assert_no_error (error);
  event_handle = cugi_event_get_ipc_handle (event, &error);
  g_assert_no_error (error);
  exported_hex = g_base64_encode (g_bytes_get_data (exported, NULL), g_bytes_get_size (exported));
  event_hex = g_base64_encode (g_bytes_get_data (event_handle, NULL), g_bytes_get_size (event_handle));

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE);
  g_subprocess_launcher_take_fd (launcher, fd, 3);
  child = g_subprocess_launcher_spawn (launcher, &error, program, "--child-read-pool", exported_hex, event_hex,
                                       NULL);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_communicate_utf8 (child, NULL, NULL, &out, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_if_exited (child));
  g_assert_cmpint (g_subprocess_get_exit_status (child), ==, 0);
  for (guint i = 0; i < n; i++)
    sum += i * 3u + 1u;
  expected = g_strdup_printf ("%u %" G_GUINT64_FORMAT, n, sum);
  g_assert_cmpstr (out, ==, expected);
  /* The child freed its buffer and exited: the memory may go now. */
  cugi_test_synchronize (stream);
}

/* The child of test_gpu_pool_two_processes(). */
static int
child_read_pool (const char *exported_base64,
                 const char *event_base64)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiStreamOrderedPool) pool = NULL;
  g_autoptr(CugiStream) stream = NULL;
  g_autoptr(CugiEvent) event = NULL;
  g_autoptr(CugiBuffer) buffer = NULL;
  g_autoptr(GBytes) exported = NULL;
  g_autoptr(GBytes) event_handle = NULL;
  g_autoptr(GBytes) contents = NULL;
  const guint32 *values;
  guint64 sum = 0;
  gsize length;
  guchar *data;
  gsize n;

  data = g_base64_decode (exported_base64, &length);
  exported = g_bytes_new_take (data, length);
  data = g_base64_decode (event_base64, &length);
  event_handle = g_bytes_new_take (data, length);
  if (!cugi_init (&error) ||
      (pool = cugi_stream_ordered_pool_new_from_fd (NULL, 3, &error)) == NULL ||
      (stream = cugi_stream_new (NULL, CUGI_STREAM_FLAGS_NON_BLOCKING, 0, &error)) == NULL ||
      (event = cugi_event_new_from_ipc_handle (NULL, event_handle, &error)) == NULL ||
      !cugi_stream_wait_event (stream, event, &error) ||
      (buffer = cugi_stream_ordered_pool_import_buffer (pool, exported, stream, &error)) == NULL ||
      (contents = cugi_buffer_download (buffer, 0, cugi_buffer_get_size (buffer), &error)) == NULL ||
      !cugi_buffer_free_on_stream (buffer, stream, &error) ||
      !cugi_stream_synchronize (stream, &error))
    {
      g_printerr ("child: %s\n", error->message);
      return 1;
    }
  close (3);
  values = g_bytes_get_data (contents, &length);
  n = length / sizeof (guint32);
  for (gsize i = 0; i < n; i++)
    sum += values[i];
  g_print ("%zu %" G_GUINT64_FORMAT, n, sum);
  return 0;
}

int
main (int argc, char **argv)
{
  const char *libcuda = g_getenv ("CUGI_LIBCUDA");

  if (argc == 3 && g_str_equal (argv[1], "--child-read-fd"))
    return child_read_fd (g_ascii_strtoull (argv[2], NULL, 10));
  if (argc == 4 && g_str_equal (argv[1], "--child-read-pool"))
    return child_read_pool (argv[2], argv[3]);

  program = argv[0];
  on_stand_in = libcuda != NULL && strstr (libcuda, "fake-cuda-streams") != NULL;
  if (on_stand_in)
    cugi_test_init_stand_in (&argc, &argv);
  else
    cugi_test_init (&argc, &argv);

  g_test_add_func ("/virtual-memory/granularity-and-flags", test_granularity_and_flags);
  g_test_add_func ("/virtual-memory/sizes", test_sizes);
  g_test_add_func ("/virtual-memory/range-map", test_range_map);
  g_test_add_func ("/virtual-memory/growable", test_growable);
  g_test_add_func ("/virtual-memory/growable-wrong-context", test_growable_wrong_context);
  g_test_add_func ("/virtual-memory/fd-errors", test_fd_errors);
  g_test_add_func ("/virtual-memory/fd-child", test_fd_child);
  g_test_add_func ("/pool-sharing/errors", test_pool_sharing_errors);
  g_test_add_func ("/pool-sharing/same-process", test_pool_sharing_same_process);
  g_test_add_func ("/virtual-memory/gpu/growable-kernel", test_gpu_growable_kernel);
  g_test_add_func ("/pool-sharing/gpu/two-processes", test_gpu_pool_two_processes);
  return g_test_run ();
}
