/* bench-gstreamer: what cugikernel costs the host per 4K RGBA frame in a
 * pipeline, beside identity and beside the raw driver API doing the same
 * work in the same pipelines and run (a benchmark: it asserts nothing about
 * time).
 *
 * Sides, each `videotestsrc ! cudaupload ! SIDE ! fakesink` on CUDA memory:
 * - identity: the element that does nothing;
 * - raw: identity with a pad probe that does what a CUDA filter must: maps
 *   the frame and an output frame from a GstCudaBufferPool for CUDA,
 *   launches the copy kernel with cuLaunchKernel, waits with
 *   cuStreamSynchronize, unmaps and hands the output on;
 * - cugikernel running the same copy kernel (examples/gstreamer/kernels).
 * One more, `videotestsrc ! cugikernel ! fakesink`, takes system memory and
 * uploads it: its time beyond the CUDA-memory side's is the upload, as
 * bandwidth against cugi's pinned upload of a frame in the same process.
 *
 * The sides take turns, round after round, so that drift cancels out. Each
 * frame's times are read in the streaming thread by C pad probes on the
 * element's pads: wall time, and the thread's CPU time less the element's
 * waits for the GPU (the raw side's own, cugikernel's from its `stats`): the
 * host's own work. Caches are cold for every frame (videotestsrc and
 * cudaupload have just written and copied 33 MB), as in a real pipeline.
 *
 *   bench-gstreamer [--frames N] [--rounds N]
 *
 * Run it with GST_PLUGIN_PATH on the built plugin (meson devenv does) and
 * CUGI_GST_KERNELS on the kernels' folder.
 */

#ifndef GST_USE_UNSTABLE_API
#define GST_USE_UNSTABLE_API
#endif
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>

#include "cugi-kernel-private.h"
#include "bench-util.h"
#include "gst/cugi-gst.h"

#define WIDTH 3840
#define HEIGHT 2160
#define FRAME_BYTES ((gsize) WIDTH * HEIGHT * 4)
#define WARMUP 20
#define RGBA_CAPS "video/x-raw,format=RGBA,width=3840,height=2160,framerate=0/1"
#define CUDA_CAPS "video/x-raw(memory:CUDAMemory)"

typedef enum { SIDE_IDENTITY, SIDE_RAW, SIDE_CUGI, SIDE_CUGI_SYSTEM, N_SIDES } SideKind;

static const char *side_names[N_SIDES] = {
  "identity", "raw driver (map, launch, sync)", "cugikernel copy", "cugikernel, system memory in",
};

/* The raw side's state, made on its first frame in the frame's context. */
typedef struct
{
  GstCudaContext *cuda_context;
  CugiKernel     *kernel;       /* cugi compiles it; raw launches its CUfunction */
  CUstream        stream;
  GstBufferPool  *pool;
  GstVideoInfo    info;
  gint64          waited_ns;    /* this frame's */
} Raw;

/* One run of a side: per-frame samples after warm-up. */
typedef struct
{
  SideKind    kind;
  GstElement *element;
  Raw        *raw;
  gint64      entered_wall, entered_cpu;
  guint64     waited_before;  /* cugikernel's stats after the last frame (0 at start) */
  guint       frames;
  GArray     *wall, *host;    /* µs, doubles */
} Run;

static char *kernel_source;

/* cugikernel's gpu-wait-time so far (ns), 0 for other elements. */
static guint64
filter_waited (GstElement *element)
{
  g_autoptr(GstStructure) stats = NULL;
  guint64 waited = 0;

  if (g_object_class_find_property (G_OBJECT_GET_CLASS (element), "stats") == NULL)
    return 0;
  g_object_get (element, "stats", &stats, NULL);
  gst_structure_get_uint64 (stats, "gpu-wait-time", &waited);
  return waited;
}

static void
raw_set_up (Raw           *raw,
            GstPad        *pad,
            GstCudaMemory *memory)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GstCaps) caps = gst_pad_get_current_caps (pad);
  g_autoptr(CugiContext) context = NULL;
  GstStructure *config;

  raw->cuda_context = gst_object_ref (memory->context);
  context = cugi_gst_context_new_for_cuda_context (raw->cuda_context, &error);
  check_error (context != NULL, error);
  raw->kernel = cugi_kernel_new_from_source (context, kernel_source, "copy", NULL, &error);
  check_error (raw->kernel != NULL, error);
  gst_video_info_from_caps (&raw->info, caps);
  g_assert (gst_cuda_context_push (raw->cuda_context));
  check (cugi_cuda.cuStreamCreateWithPriority (&raw->stream, CU_STREAM_NON_BLOCKING, 0), "cuStreamCreateWithPriority");
  gst_cuda_context_pop (NULL);

  raw->pool = gst_cuda_buffer_pool_new (raw->cuda_context);
  config = gst_buffer_pool_get_config (raw->pool);
  gst_buffer_pool_config_set_params (config, caps, GST_VIDEO_INFO_SIZE (&raw->info), 0, 0);
  g_assert (gst_buffer_pool_set_config (raw->pool, config));
  g_assert (gst_buffer_pool_set_active (raw->pool, TRUE));
}

static void
raw_clear (Raw *raw)
{
  if (raw->pool != NULL)
    {
      gst_buffer_pool_set_active (raw->pool, FALSE);
      gst_clear_object (&raw->pool);
      g_assert (gst_cuda_context_push (raw->cuda_context));
      cugi_cuda.cuStreamDestroy (raw->stream);
      gst_cuda_context_pop (NULL);
    }
  g_clear_object (&raw->kernel);
  gst_clear_object (&raw->cuda_context);
}

/* The raw side's work on one frame (see the top of the file). */
static GstPadProbeReturn
raw_copy (GstPad          *pad,
          GstPadProbeInfo *info,
          gpointer         data)
{
  Raw *raw = data;
  GstBuffer *in = GST_PAD_PROBE_INFO_BUFFER (info), *out = NULL;
  GstMemory *memory = gst_buffer_peek_memory (in, 0);
  GstVideoFrame src, dst;
  CUdeviceptr src_address, dst_address;
  int src_stride, dst_stride, width = WIDTH, height = HEIGHT;
  unsigned long long timestamp;
  void *params[] = { &src_address, &src_stride, &dst_address, &dst_stride, &width, &height, &timestamp };
  gint64 wait_begin;

  g_assert (gst_is_cuda_memory (memory));
  if (raw->pool == NULL)
    raw_set_up (raw, pad, GST_CUDA_MEMORY_CAST (memory));
  g_assert (gst_buffer_pool_acquire_buffer (raw->pool, &out, NULL) == GST_FLOW_OK);
  g_assert (gst_video_frame_map (&src, &raw->info, in, GST_MAP_READ | GST_MAP_CUDA));
  g_assert (gst_video_frame_map (&dst, &raw->info, out, GST_MAP_WRITE | GST_MAP_CUDA));
  src_address = (CUdeviceptr) (guintptr) GST_VIDEO_FRAME_PLANE_DATA (&src, 0);
  dst_address = (CUdeviceptr) (guintptr) GST_VIDEO_FRAME_PLANE_DATA (&dst, 0);
  src_stride = GST_VIDEO_FRAME_PLANE_STRIDE (&src, 0);
  dst_stride = GST_VIDEO_FRAME_PLANE_STRIDE (&dst, 0);
  timestamp = GST_BUFFER_PTS (in);

  wait_begin = bench_clock_ns (CLOCK_MONOTONIC);
#if GST_CHECK_VERSION (1, 24, 0)
  /* The input's pending upload, as GStreamer's own elements wait for it. */
  gst_cuda_memory_sync (GST_CUDA_MEMORY_CAST (memory));
#endif
  raw->waited_ns = bench_clock_ns (CLOCK_MONOTONIC) - wait_begin;
  g_assert (gst_cuda_context_push (raw->cuda_context));
  check (cugi_cuda.cuLaunchKernel (raw->kernel->function, (WIDTH + 15) / 16, (HEIGHT + 15) / 16, 1, 16, 16, 1,
                                   0, raw->stream, params, NULL), "cuLaunchKernel");
  wait_begin = bench_clock_ns (CLOCK_MONOTONIC);
  check (cugi_cuda.cuStreamSynchronize (raw->stream), "cuStreamSynchronize");
  raw->waited_ns += bench_clock_ns (CLOCK_MONOTONIC) - wait_begin;
  gst_cuda_context_pop (NULL);
  gst_video_frame_unmap (&dst);
  gst_video_frame_unmap (&src);

  gst_buffer_copy_into (out, in, GST_BUFFER_COPY_METADATA, 0, -1);
  gst_buffer_unref (in);
  GST_PAD_PROBE_INFO_DATA (info) = out;
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
on_enter (GstPad          *pad,
          GstPadProbeInfo *info,
          gpointer         data)
{
  Run *run = data;

  run->entered_cpu = bench_clock_ns (CLOCK_THREAD_CPUTIME_ID);
  run->entered_wall = bench_clock_ns (CLOCK_MONOTONIC);
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
on_leave (GstPad          *pad,
          GstPadProbeInfo *info,
          gpointer         data)
{
  Run *run = data;
  gint64 wall = bench_clock_ns (CLOCK_MONOTONIC) - run->entered_wall;
  gint64 cpu = bench_clock_ns (CLOCK_THREAD_CPUTIME_ID) - run->entered_cpu;
  gint64 waited = 0;
  double wall_us, host_us;

  if (run->kind == SIDE_RAW)
    waited = run->raw->waited_ns;
  else if (run->kind >= SIDE_CUGI)
    {
      guint64 waited_since_start = filter_waited (run->element);

      waited = (gint64) (waited_since_start - run->waited_before);
      run->waited_before = waited_since_start;
    }
  wall_us = wall / 1e3;
  host_us = (cpu - waited) / 1e3;
  if (run->frames++ >= WARMUP)
    {
      g_array_append_val (run->wall, wall_us);
      g_array_append_val (run->host, host_us);
    }
  return GST_PAD_PROBE_OK;
}

/* Plays one side for @frames frames; its samples go into @wall and @host. */
static void
run_side (SideKind kind,
          guint    frames,
          GArray  *wall,
          GArray  *host)
{
  const char *kernels = g_getenv ("CUGI_GST_KERNELS");
  g_autofree char *element = kind >= SIDE_CUGI
                               ? g_strdup_printf ("cugikernel name=e location=%s/copy.cu kernel-name=copy", kernels)
                               : g_strdup ("identity name=e");
  g_autofree char *description =
    g_strdup_printf ("videotestsrc num-buffers=%u pattern=black ! " RGBA_CAPS " ! %s%s ! " CUDA_CAPS
                     " ! fakesink sync=false",
                     frames, kind == SIDE_CUGI_SYSTEM ? "" : "cudaupload ! " CUDA_CAPS " ! ", element);
  g_autoptr(GError) error = NULL;
  g_autoptr(GstElement) pipeline = gst_parse_launch (description, &error);
  g_autoptr(GstBus) bus = NULL;
  g_autoptr(GstMessage) message = NULL;
  g_autoptr(GstPad) sink = NULL, src = NULL;
  Raw raw = { 0 };
  Run run = { kind, NULL, &raw, 0, 0, 0, 0, wall, host };

  check_error (pipeline != NULL, error);
  run.element = gst_bin_get_by_name (GST_BIN (pipeline), "e");
  sink = gst_element_get_static_pad (run.element, "sink");
  src = gst_element_get_static_pad (run.element, "src");
  /* Probes run in the order they were added: the timing one first. */
  gst_pad_add_probe (sink, GST_PAD_PROBE_TYPE_BUFFER, on_enter, &run, NULL);
  if (kind == SIDE_RAW)
    gst_pad_add_probe (sink, GST_PAD_PROBE_TYPE_BUFFER, raw_copy, &raw, NULL);
  gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BUFFER, on_leave, &run, NULL);

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  bus = gst_element_get_bus (pipeline);
  message = gst_bus_timed_pop_filtered (bus, 300 * GST_SECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  if (message == NULL || GST_MESSAGE_TYPE (message) == GST_MESSAGE_ERROR)
    {
      g_autoptr(GError) failure = NULL;

      if (message != NULL)
        gst_message_parse_error (message, &failure, NULL);
      g_error ("%s: %s", side_names[kind], failure != NULL ? failure->message : "no EOS within 300 s");
    }
  raw_clear (&raw);
  gst_object_unref (run.element);
}

/* cugi's pinned upload of one frame on a stream, in GB/s (median of 30). */
static double
pinned_upload_gbps (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiHostBuffer) host = cugi_host_buffer_new (NULL, FRAME_BYTES, CUGI_HOST_BUFFER_FLAGS_PORTABLE, &error);
  g_autoptr(CugiBuffer) device = cugi_buffer_new (NULL, FRAME_BYTES, &error);
  g_autoptr(CugiStream) stream = cugi_stream_new (NULL, CUGI_STREAM_FLAGS_NON_BLOCKING, 0, &error);
  double seconds[30];

  check_error (host != NULL && device != NULL && stream != NULL, error);
  for (guint i = 0; i < G_N_ELEMENTS (seconds); i++)
    {
      gint64 begin = bench_clock_ns (CLOCK_MONOTONIC);

      check_error (cugi_buffer_upload_from_host (device, 0, host, 0, FRAME_BYTES, stream, &error) &&
                   cugi_stream_synchronize (stream, &error), error);
      seconds[i] = (bench_clock_ns (CLOCK_MONOTONIC) - begin) / 1e9;
    }
  return FRAME_BYTES / bench_median (seconds, G_N_ELEMENTS (seconds)) / 1e9;
}

static double
median_of (GArray *samples)
{
  return bench_median ((double *) samples->data, samples->len);
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GOptionContext) options = g_option_context_new ("- cugikernel's host time beside the raw driver API");
  g_autofree char *path = NULL;
  gint frames = 300, rounds = 3;
  GOptionEntry entries[] = {
    { "frames", 0, 0, G_OPTION_ARG_INT, &frames, "Frames a side and round (20 of them warm-up)", "N" },
    { "rounds", 0, 0, G_OPTION_ARG_INT, &rounds, "Rounds of the sides taking turns", "N" },
    { NULL }
  };
  GArray *wall[N_SIDES], *host[N_SIDES];
  double wall_us[N_SIDES], host_us[N_SIDES], upload_gbps, pinned;
  CugiDevice *device;

  g_option_context_add_main_entries (options, entries, NULL);
  g_option_context_add_group (options, gst_init_get_option_group ());
  if (!g_option_context_parse (options, &argc, &argv, &error) || frames <= WARMUP || rounds < 1)
    {
      g_printerr ("bench-gstreamer: %s\n", error != NULL ? error->message : "--frames > 20 and --rounds >= 1");
      return 2;
    }
  if (!cugi_init (&error) || (device = cugi_device_get_default (&error)) == NULL)
    {
      g_print ("bench-gstreamer needs a GPU: %s\n", error->message);
      return 77;
    }
  if (g_getenv ("CUGI_GST_KERNELS") == NULL || gst_element_factory_find ("cudaupload") == NULL ||
      gst_element_factory_find ("cugikernel") == NULL)
    {
      g_print ("bench-gstreamer needs cudaupload (nvcodec), cugikernel (GST_PLUGIN_PATH) and CUGI_GST_KERNELS\n");
      return 77;
    }
  path = g_build_filename (g_getenv ("CUGI_GST_KERNELS"), "copy.cu", NULL);
  check_error (g_file_get_contents (path, &kernel_source, NULL, &error), error);

  for (guint side = 0; side < N_SIDES; side++)
    {
      wall[side] = g_array_new (FALSE, FALSE, sizeof (double));
      host[side] = g_array_new (FALSE, FALSE, sizeof (double));
    }
  /* Round by round, the side that starts rotating. */
  for (gint round = 0; round < rounds; round++)
    for (guint turn = 0; turn < N_SIDES; turn++)
      {
        guint side = (round + turn) % N_SIDES;

        run_side (side, frames, wall[side], host[side]);
      }
  for (guint side = 0; side < N_SIDES; side++)
    {
      wall_us[side] = median_of (wall[side]);
      host_us[side] = median_of (host[side]);
    }
  pinned = pinned_upload_gbps ();
  upload_gbps = FRAME_BYTES / ((wall_us[SIDE_CUGI_SYSTEM] - wall_us[SIDE_CUGI]) * 1e-6) / 1e9;

  g_print ("bench-gstreamer on %s, %s: %ux%u RGBA, %d rounds of %d frames a side (%d warm-up); "
           "medians; host = the streaming thread's CPU time in the element less its waits for the GPU\n",
           cugi_device_get_name (device), gst_version_string (), WIDTH, HEIGHT, rounds, frames, WARMUP);
  g_print ("%-34s %10s %10s\n", "", "wall us", "host us");
  for (guint side = 0; side < N_SIDES; side++)
    g_print ("%-34s %10.1f %10.1f\n", side_names[side], wall_us[side], host_us[side]);
  g_print ("host time beyond the kernel, against identity: raw %.1f us, cugikernel %.1f us (goal <= 10): %s\n",
           host_us[SIDE_RAW] - host_us[SIDE_IDENTITY], host_us[SIDE_CUGI] - host_us[SIDE_IDENTITY],
           host_us[SIDE_CUGI] - host_us[SIDE_IDENTITY] <= 10 ? "ok" : "MISS");
  g_print ("cugikernel's host time beyond the raw driver's: %.1f us a frame (raw/cugikernel %.3f)\n",
           host_us[SIDE_CUGI] - host_us[SIDE_RAW], host_us[SIDE_RAW] / host_us[SIDE_CUGI]);
  g_print ("system memory in: the upload (its wall time beyond the CUDA-memory side's) %.2f GB/s; "
           "cugi's pinned upload %.2f GB/s; ratio %.3f (goal >= 0.95): %s\n",
           upload_gbps, pinned, upload_gbps / pinned, upload_gbps >= 0.95 * pinned ? "ok" : "MISS");
  for (guint side = 0; side < N_SIDES; side++)
    {
      g_array_unref (wall[side]);
      g_array_unref (host[side]);
    }
  g_free (kernel_source);
  return 0;
}
