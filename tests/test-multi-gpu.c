/* test-multi-gpu.c: work across two GPUs
 *
 * Copies between devices each way, a kernel on one device reading the other's
 * memory through peer access, one device's stream waiting on the other's
 * event, and ::completed from both devices in one main loop. Needs two
 * devices: with fewer it is skipped and says why. */
#include "config.h"

#include "gpu-work.h"

#define N_WORDS (1 << 18)
#define N_BYTES (N_WORDS * sizeof (guint32))

static const char add_one_source[] =
  "extern \"C\" __global__ void add_one(const unsigned int *src, unsigned int *dst, unsigned int n)\n"
  "{\n"
  "  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (i < n) dst[i] = src[i] + 1;\n"
  "}\n";

typedef struct
{
  CugiDevice  *device;
  CugiContext *context;
} Gpu;

static Gpu gpus[2];

static CugiBuffer *
buffer_new (Gpu *gpu)
{
  g_autoptr(GError) error = NULL;
  CugiBuffer *buffer = cugi_buffer_new (gpu->context, N_BYTES, &error);

  g_assert_no_error (error);
  g_assert_true (cugi_buffer_get_context (buffer) == gpu->context);
  return buffer;
}

static CugiStream *
stream_new (Gpu *gpu)
{
  g_autoptr(GError) error = NULL;
  CugiStream *stream = cugi_stream_new (gpu->context, CUGI_STREAM_FLAGS_NON_BLOCKING, 0, &error);

  g_assert_no_error (error);
  return stream;
}

static CugiEvent *
event_new (Gpu *gpu)
{
  g_autoptr(GError) error = NULL;
  CugiEvent *event = cugi_event_new (gpu->context, CUGI_EVENT_FLAGS_DISABLE_TIMING, &error);

  g_assert_no_error (error);
  return event;
}

/* Asserts that every word of @buffer is @value. */
static void
assert_words (CugiBuffer *buffer,
              guint32     value)
{
  g_autoptr(GBytes) bytes = cugi_test_download_all (buffer);
  const guint32 *words = g_bytes_get_data (bytes, NULL);

  g_assert_cmpuint (g_bytes_get_size (bytes), ==, N_BYTES);
  for (gsize i = 0; i < N_WORDS; i++)
    if (words[i] != value)
      g_error ("word %zu is 0x%x, not 0x%x", i, words[i], value);
}

static void
test_devices (void)
{
  g_assert_cmpint (cugi_device_get_ordinal (gpus[0].device), ==, 0);
  g_assert_cmpint (cugi_device_get_ordinal (gpus[1].device), ==, 1);
  g_assert_cmpstr (cugi_device_get_pci_bus_id (gpus[0].device), !=,
                   cugi_device_get_pci_bus_id (gpus[1].device));
  g_assert_true (cugi_context_get_device (gpus[0].context) == gpus[0].device);
  g_assert_true (cugi_context_get_device (gpus[1].context) == gpus[1].device);
}

/* Device to device and back, synchronously and on a stream of each side. */
static void
test_copy_between_devices (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) pattern = cugi_test_pattern_new (N_BYTES, 21);
  g_autoptr(CugiBuffer) on_0 = buffer_new (&gpus[0]);
  g_autoptr(CugiBuffer) on_1 = buffer_new (&gpus[1]);
  g_autoptr(CugiBuffer) back = buffer_new (&gpus[0]);
  g_autoptr(CugiStream) stream_1 = stream_new (&gpus[1]);
  g_autoptr(CugiStream) stream_0 = stream_new (&gpus[0]);
  g_autoptr(GBytes) got = NULL;

  g_assert_true (cugi_buffer_upload_bytes (on_0, 0, pattern, &error));
  g_assert_no_error (error);

  g_assert_true (cugi_buffer_copy (on_1, 0, on_0, 0, N_BYTES, NULL, &error));
  g_assert_no_error (error);
  got = cugi_test_download_all (on_1);
  cugi_test_assert_bytes_equal (got, pattern);
  g_clear_pointer (&got, g_bytes_unref);

  /* On a stream, which must be the destination's. */
  g_assert_true (cugi_buffer_memset_d8 (back, 0, 0, N_BYTES, NULL, &error));
  g_assert_no_error (error);
  g_assert_false (cugi_buffer_copy (back, 0, on_1, 0, N_BYTES, stream_1, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_CONTEXT, NULL);
  g_assert_true (cugi_buffer_copy (back, 0, on_1, 0, N_BYTES, stream_0, &error));
  g_assert_no_error (error);
  cugi_test_synchronize (stream_0);
  got = cugi_test_download_all (back);
  cugi_test_assert_bytes_equal (got, pattern);
  g_clear_pointer (&got, g_bytes_unref);

  /* Part of a buffer, at offsets, the other way. */
  g_assert_true (cugi_buffer_memset_d8 (on_1, 0, 0, N_BYTES, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (cugi_buffer_copy (on_1, 4096, back, 8192, 65536, stream_1, &error));
  g_assert_no_error (error);
  cugi_test_synchronize (stream_1);
  got = cugi_test_download (on_1, 4096, 65536);
  g_assert_cmpmem (g_bytes_get_data (got, NULL), 65536,
                   (const guint8 *) g_bytes_get_data (pattern, NULL) + 8192, 65536);
}

/* With peer access, a kernel on device 1 reads device 0's memory in place. */
static void
test_kernel_reads_peer_memory (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiBuffer) source = buffer_new (&gpus[0]);
  g_autoptr(CugiBuffer) result = buffer_new (&gpus[1]);
  g_autoptr(CugiKernel) add_one = NULL;
  g_autoptr(CugiLaunchConfig) config = cugi_launch_config_new (N_WORDS / 256, 256);
  g_autoptr(CugiKernelArgs) args = cugi_kernel_args_new ();
  gboolean can_access;

  can_access = cugi_device_can_access_peer (gpus[1].device, gpus[0].device, &error);
  g_assert_no_error (error);
  if (!can_access)
    {
      g_assert_false (cugi_context_enable_peer_access (gpus[1].context, gpus[0].context, &error));
      cugi_test_assert_error (&error, CUGI_ERROR_PEER_ACCESS, NULL);
      g_test_skip ("device 1 cannot access device 0's memory (no peer access between them)");
      return;
    }

  add_one = cugi_kernel_new_from_source (gpus[1].context, add_one_source, "add_one", NULL, &error);
  g_assert_no_error (error);
  g_assert_true (cugi_buffer_memset_d32 (source, 0, 41, N_WORDS, NULL, &error));
  g_assert_no_error (error);
  cugi_kernel_args_add_buffer (args, source);
  cugi_kernel_args_add_buffer (args, result);
  cugi_kernel_args_add_uint32 (args, N_WORDS);

  g_assert_true (cugi_context_enable_peer_access (gpus[1].context, gpus[0].context, &error));
  g_assert_no_error (error);
  g_assert_true (cugi_kernel_launch (add_one, config, args, &error));
  g_assert_no_error (error);
  g_assert_true (cugi_context_synchronize (gpus[1].context, &error));
  g_assert_no_error (error);
  assert_words (result, 42);
  g_assert_true (cugi_context_disable_peer_access (gpus[1].context, gpus[0].context, &error));
  g_assert_no_error (error);
}

/* Device 1's stream waits for device 0's event: its copy must see what
 * device 0 wrote after 50 ms of other work, not what was there before. */
static void
test_stream_waits_for_other_device (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiBuffer) written = buffer_new (&gpus[0]);
  g_autoptr(CugiBuffer) copied = buffer_new (&gpus[1]);
  g_autoptr(CugiStream) stream_0 = stream_new (&gpus[0]);
  g_autoptr(CugiStream) stream_1 = stream_new (&gpus[1]);
  g_autoptr(CugiEvent) written_event = event_new (&gpus[0]);

  g_assert_true (cugi_buffer_memset_d32 (written, 0, 0x1111, N_WORDS, NULL, &error));
  g_assert_no_error (error);
  spin (spinner (), stream_0, 50);
  g_assert_true (cugi_buffer_memset_d32 (written, 0, 0xabcd, N_WORDS, stream_0, &error));
  g_assert_no_error (error);
  cugi_test_record (written_event, stream_0);

  /* The event is device 0's; the stream that waits for it, device 1's. */
  g_assert_true (cugi_stream_wait_event (stream_1, written_event, &error));
  g_assert_no_error (error);
  g_assert_true (cugi_buffer_copy (copied, 0, written, 0, N_BYTES, stream_1, &error));
  g_assert_no_error (error);
  cugi_test_synchronize (stream_1);
  cugi_test_assert_event_query (written_event, TRUE);
  assert_words (copied, 0xabcd);
}

/* Memory of device 1 is wrapped in a context of device 1, not of device 0. */
static void
test_wrap_memory_of_each_device (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiBuffer) on_1 = buffer_new (&gpus[1]);
  g_autoptr(CugiBuffer) wrapped = NULL;
  guint64 address = cugi_buffer_get_device_pointer (on_1);

  g_assert_null (cugi_buffer_new_for_address (gpus[0].context, address, N_BYTES, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "cuda:1");
  wrapped = cugi_buffer_new_for_address (gpus[1].context, address, N_BYTES, &error);
  g_assert_no_error (error);
  g_assert_true (cugi_buffer_memset_d32 (wrapped, 0, 7, N_WORDS, NULL, &error));
  g_assert_no_error (error);
  assert_words (on_1, 7);
}

typedef struct
{
  CugiTestCaller caller;
  guint          n_completed[2];
} Completions;

static void
on_completed (CugiEvent *event,
              guint     *counter)
{
  Completions *completions = g_object_get_data (G_OBJECT (event), "completions");

  cugi_test_caller_check (&completions->caller);
  (*counter)++;
}

/* Both devices' ::completed arrive once each, in the one main loop. */
static void
test_completed_from_both_devices (void)
{
  Completions completions = { 0 };
  CugiStream *streams[2];
  CugiEvent *events[2];

  cugi_test_caller_push (&completions.caller);
  for (guint i = 0; i < 2; i++)
    {
      streams[i] = stream_new (&gpus[i]);
      events[i] = event_new (&gpus[i]);
      g_object_set_data (G_OBJECT (events[i]), "completions", &completions);
      g_signal_connect (events[i], "completed", G_CALLBACK (on_completed), &completions.n_completed[i]);
    }
  /* Device 1 gets 20 ms of work first, so its event completes second. */
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(CugiKernel) spin_1 = cugi_kernel_new_from_source (gpus[1].context, SPIN_SOURCE, "spin",
                                                                NULL, &error);
    g_assert_no_error (error);
    spin (spin_1, streams[1], 20);
  }
  for (guint i = 0; i < 2; i++)
    cugi_test_record (events[i], streams[i]);

  while (completions.n_completed[0] + completions.n_completed[1] < 2)
    g_main_context_iteration (completions.caller.main_context, TRUE);
  g_assert_cmpuint (completions.n_completed[0], ==, 1);
  g_assert_cmpuint (completions.n_completed[1], ==, 1);

  /* Nothing more comes. */
  for (guint i = 0; i < 2; i++)
    cugi_test_synchronize (streams[i]);
  while (g_main_context_iteration (completions.caller.main_context, FALSE))
    ;
  g_assert_cmpuint (completions.n_completed[0], ==, 1);
  g_assert_cmpuint (completions.n_completed[1], ==, 1);

  for (guint i = 0; i < 2; i++)
    {
      g_object_unref (events[i]);
      g_object_unref (streams[i]);
    }
  cugi_test_caller_pop (&completions.caller);
}

int
main (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  int n_devices;
  int status;

  cugi_test_init (&argc, &argv);
  require_gpu_with_spinner ();
  n_devices = cugi_device_get_count (&error);
  g_assert_no_error (error);
  if (n_devices < 2)
    cugi_test_skip_all ("needs two GPUs; this machine has %d", n_devices);

  for (int i = 0; i < 2; i++)
    {
      gpus[i].device = cugi_device_get (i, &error);
      g_assert_no_error (error);
      gpus[i].context = cugi_device_get_primary_context (gpus[i].device, &error);
      g_assert_no_error (error);
    }
  /* spinner() runs on the default context: device 0's. */
  g_assert_true (cugi_kernel_get_module (spinner ()) != NULL);
  {
    g_autoptr(CugiContext) default_context = cugi_test_default_context ();

    g_assert_true (default_context == gpus[0].context);
  }

  g_test_add_func ("/multi-gpu/devices", test_devices);
  g_test_add_func ("/multi-gpu/copy-between-devices", test_copy_between_devices);
  g_test_add_func ("/multi-gpu/wrap-memory-of-each-device", test_wrap_memory_of_each_device);
  g_test_add_func ("/multi-gpu/kernel-reads-peer-memory", test_kernel_reads_peer_memory);
  g_test_add_func ("/multi-gpu/stream-waits-for-other-device", test_stream_waits_for_other_device);
  g_test_add_func ("/multi-gpu/completed-from-both-devices", test_completed_from_both_devices);
  status = g_test_run ();

  for (int i = 0; i < 2; i++)
    {
      g_object_unref (gpus[i].context);
      g_object_unref (gpus[i].device);
    }
  return status;
}
