/* test-green-context.c: contexts over part of a device's SMs. Over the
 * stand-in driver (fake-cuda-streams on fake-cuda-devices, whose green
 * contexts take SMs in multiples of 8 of 132) and, as test-green-context,
 * on a GPU, where kernels record the SMs they ran on (%smid). */
#include "config.h"

#include "cugi-test-utils.h"

/* The stand-in's count of green contexts alive; NULL on a GPU. */
static int (*fake_live_green_contexts) (void);

static gboolean
have_gpu (void)
{
  if (fake_live_green_contexts != NULL)
    {
      g_test_skip ("needs a GPU, not the stand-in driver");
      return FALSE;
    }
  return cugi_test_have_gpu ();
}

static CugiContext *
green_new (guint sm_count)
{
  g_autoptr(GError) error = NULL;
  CugiContext *green = cugi_context_new_green (NULL, sm_count, &error);

  g_assert_no_error (error);
  g_assert_true (CUGI_IS_CONTEXT (green));
  return green;
}

static guint
sm_count_of (CugiContext *context)
{
  g_autoptr(GError) error = NULL;
  guint count = cugi_context_get_sm_count (context, &error);

  g_assert_no_error (error);
  return count;
}

/* A green context has the SMs asked for, rounded up to the driver's
 * granularity, and is no primary context; the primary has them all. */
static void
test_sm_count (void)
{
  g_autoptr(CugiContext) primary = cugi_test_default_context ();
  g_autoptr(CugiContext) green = green_new (13);
  guint device_sms = (guint) cugi_device_get_multiprocessor_count (cugi_context_get_device (primary));
  guint green_sms = sm_count_of (green);
  guint64 green_handle = 0, primary_handle = 0;

  g_assert_cmpuint (sm_count_of (primary), ==, device_sms);
  g_assert_cmpuint (green_sms, >=, 13);
  g_assert_cmpuint (green_sms, <, device_sms);
  if (fake_live_green_contexts != NULL)
    g_assert_cmpuint (green_sms, ==, 16);
  g_assert_false (cugi_context_get_is_primary (green));
  g_assert_true (cugi_context_get_device (green) == cugi_context_get_device (primary));
  g_object_get (green, "handle", &green_handle, NULL);
  g_object_get (primary, "handle", &primary_handle, NULL);
  g_assert_cmpuint (green_handle, !=, 0);
  g_assert_cmpuint (green_handle, !=, primary_handle);
}

/* Streams and events are made in it as in any context, and used there. */
static void
test_streams_and_events (void)
{
  g_autoptr(CugiContext) green = green_new (8);
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiStream) stream = NULL;
  g_autoptr(CugiEvent) event = NULL;

  stream = cugi_stream_new (green, CUGI_STREAM_FLAGS_NON_BLOCKING, 0, &error);
  g_assert_no_error (error);
  g_assert_true (cugi_stream_get_context (stream) == green);
  event = cugi_event_new (green, CUGI_EVENT_FLAGS_NONE, &error);
  g_assert_no_error (error);
  g_assert_true (cugi_event_record (event, stream, &error));
  g_assert_no_error (error);
  g_assert_true (cugi_stream_synchronize (stream, &error));
  g_assert_no_error (error);
  g_assert_true (cugi_context_synchronize (green, &error));
  g_assert_no_error (error);
}

/* The green context goes when its last user does: the stream keeps it. */
static void
test_lifetime (void)
{
  CugiContext *green;
  g_autoptr(CugiStream) stream = NULL;
  int live_before;

  if (fake_live_green_contexts == NULL)
    {
      g_test_skip ("counts the stand-in's green contexts");
      return;
    }
  live_before = fake_live_green_contexts ();
  green = green_new (8);
  stream = cugi_stream_new (green, CUGI_STREAM_FLAGS_NON_BLOCKING, 0, NULL);
  g_assert_nonnull (stream);
  g_object_unref (green);
  g_assert_cmpint (fake_live_green_contexts (), ==, live_before + 1);
  g_clear_object (&stream);
  g_assert_cmpint (fake_live_green_contexts (), ==, live_before);
}

/* No SMs, or more than the device has: INVALID_ARGUMENT, and the next
 * green context is made as usual. */
static void
test_bad_sm_count (void)
{
  g_autoptr(CugiContext) primary = cugi_test_default_context ();
  guint device_sms = (guint) cugi_device_get_multiprocessor_count (cugi_context_get_device (primary));
  guint bad[] = { 0, device_sms + 1, G_MAXUINT };

  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(CugiContext) green = cugi_context_new_green (NULL, bad[i], &error);

      g_assert_null (green);
      g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT);
      g_assert_nonnull (strstr (error->message, "cuda:0"));
    }
  {
    g_autoptr(CugiContext) green = green_new (8);

    g_assert_cmpuint (sm_count_of (green), >=, 8);
  }
}

/* Writes, for each block, the SM it ran on, having kept it busy for a
 * while so that the blocks spread over every SM they may use. */
static const char smid_source[] =
  "extern \"C\" __global__ void record_smid (unsigned int *out, long long spin)\n"
  "{\n"
  "  unsigned int smid;\n"
  "  long long start = clock64 ();\n"
  "  asm volatile (\"mov.u32 %0, %%smid;\" : \"=r\" (smid));\n"
  "  while (clock64 () - start < spin)\n"
  "    ;\n"
  "  if (threadIdx.x == 0)\n"
  "    out[blockIdx.x] = smid;\n"
  "}\n";

#define SMID_BLOCKS 2048

/* The number of distinct SMs the blocks of one launch in @context ran on. */
static guint
count_smids (CugiContext *context)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiKernel) kernel = cugi_kernel_new_from_source (context, smid_source, "record_smid", NULL, &error);
  g_autoptr(CugiBuffer) out = NULL;
  g_autoptr(CugiStream) stream = NULL;
  g_autoptr(CugiLaunchConfig) config = cugi_launch_config_new (SMID_BLOCKS, 128);
  g_autoptr(CugiKernelArgs) args = cugi_kernel_args_new ();
  g_autoptr(GBytes) smids = NULL;
  g_autoptr(GHashTable) seen = g_hash_table_new (NULL, NULL);
  const guint32 *ids;

  g_assert_no_error (error);
  out = cugi_buffer_new (context, SMID_BLOCKS * sizeof (guint32), &error);
  g_assert_no_error (error);
  stream = cugi_stream_new (context, CUGI_STREAM_FLAGS_NON_BLOCKING, 0, &error);
  g_assert_no_error (error);
  cugi_launch_config_set_stream (config, stream);
  cugi_kernel_args_add_buffer (args, out);
  cugi_kernel_args_add_int64 (args, 20000);
  g_assert_true (cugi_kernel_launch (kernel, config, args, &error));
  g_assert_no_error (error);
  cugi_test_synchronize (stream);
  smids = cugi_buffer_download (out, 0, SMID_BLOCKS * sizeof (guint32), &error);
  g_assert_no_error (error);
  ids = g_bytes_get_data (smids, NULL);
  for (guint i = 0; i < SMID_BLOCKS; i++)
    g_hash_table_add (seen, GUINT_TO_POINTER (ids[i] + 1));
  return g_hash_table_size (seen);
}

/* Kernels of a green context run on no more SMs than it has, on its own
 * streams and on its default stream; the primary context's on more. */
static void
test_kernels_stay_in_partition (void)
{
  g_autoptr(CugiContext) green = NULL;
  g_autoptr(CugiContext) primary = NULL;
  guint green_sms, used_green, used_primary;

  if (!have_gpu ())
    return;
  green = green_new (16);
  primary = cugi_test_default_context ();
  green_sms = sm_count_of (green);
  used_green = count_smids (green);
  used_primary = count_smids (primary);
  g_test_message ("green context: %u SMs, its kernel ran on %u; the primary context's on %u",
                  green_sms, used_green, used_primary);
  g_assert_cmpuint (used_green, >=, 1);
  g_assert_cmpuint (used_green, <=, green_sms);
  g_assert_cmpuint (used_primary, >, green_sms);
}

int
main (int argc, char **argv)
{
  const char *libcuda = g_getenv ("CUGI_LIBCUDA");
  const char *base = g_getenv ("FAKE_CUDA_BASE");

  cugi_test_init (&argc, &argv);
  if (libcuda != NULL && strstr (libcuda, "fake-cuda-streams") != NULL)
    {
      GModule *fake = base != NULL ? g_module_open (base, G_MODULE_BIND_LOCAL) : NULL;

      if (fake == NULL ||
          !g_module_symbol (fake, "fake_cuda_devices_live_green_contexts", (gpointer *) &fake_live_green_contexts))
        g_error ("FAKE_CUDA_BASE is not fake-cuda-devices");
    }
  cugi_test_require_gpu ();

  g_test_add_func ("/green-context/sm-count", test_sm_count);
  g_test_add_func ("/green-context/streams-and-events", test_streams_and_events);
  g_test_add_func ("/green-context/lifetime", test_lifetime);
  g_test_add_func ("/green-context/bad-sm-count", test_bad_sm_count);
  g_test_add_func ("/green-context/kernels-stay-in-partition", test_kernels_stay_in_partition);
  return g_test_run ();
}
