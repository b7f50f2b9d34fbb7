/* test-cugigst-filter.c: CugiGstFilter under GstHarness, on the stand-in
 * driver that GStreamer's CUDA library and cugi share (stand-in-libcuda.c:
 * its device memory is host memory, so copies are real and launches are
 * not). The subclasses here copy, fill or pass frames through with cugi's
 * copies and memsets on the filter's stream, and the frames that come out
 * are checked byte for byte: system memory, CUDA memory, either to the
 * other, one to four planes, in place, passthrough, errors, formats.
 */
#define GST_USE_UNSTABLE_API
#include <cugi/gst/cugi-gst.h>
#include <gst/check/gstharness.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>

#define WIDTH 64
#define HEIGHT 48

/* ---- the subclasses ---------------------------------------------------------- */

typedef enum
{
  FAIL_NONE,
  FAIL_WITH_ERROR,      /* returns FALSE with an error set */
  FAIL_SILENTLY,        /* returns FALSE with none, as a binding may */
} FailMode;

/* Copies each plane of the input into the output. */
#define TEST_TYPE_COPY (test_copy_get_type ())
G_DECLARE_FINAL_TYPE (TestCopy, test_copy, TEST, COPY, CugiGstFilter)

struct _TestCopy
{
  CugiGstFilter parent_instance;
  FailMode      fail;
  gboolean      passthrough;
  guint         set_info_calls;
  guint         frames;
  /* What each transform was handed, for the test of reused frames. */
  gboolean      keep_frames;          /* a reference on every input frame */
  GPtrArray    *kept;
  gboolean      seen_before[8];       /* the input frame was handed before */
  GstBuffer    *in_buffers[8];        /* what each input frame was over */
};

G_DEFINE_FINAL_TYPE (TestCopy, test_copy, CUGI_GST_TYPE_FILTER)

static gboolean
test_copy_set_info (CugiGstFilter      *filter,
                    const GstVideoInfo *in_info,
                    const GstVideoInfo *out_info,
                    GError            **error)
{
  TestCopy *self = TEST_COPY (filter);

  self->set_info_calls++;
  g_assert_nonnull (cugi_gst_filter_get_cugi_context (filter));
  g_assert_nonnull (cugi_gst_filter_get_stream (filter));
  g_assert_cmpint (GST_VIDEO_INFO_FORMAT (in_info), ==, GST_VIDEO_INFO_FORMAT (out_info));
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (self), self->passthrough);
  return TRUE;
}

static gboolean
test_copy_transform_frame (CugiGstFilter *filter,
                           CugiGstFrame  *in_frame,
                           CugiGstFrame  *out_frame,
                           CugiStream    *stream,
                           GError       **error)
{
  TestCopy *self = TEST_COPY (filter);

  if (self->frames < G_N_ELEMENTS (self->seen_before))
    {
      self->seen_before[self->frames] = g_object_get_data (G_OBJECT (in_frame), "test-seen") != NULL;
      g_object_set_data (G_OBJECT (in_frame), "test-seen", GINT_TO_POINTER (TRUE));
      self->in_buffers[self->frames] = cugi_gst_frame_get_buffer (in_frame);
    }
  if (self->keep_frames)
    g_ptr_array_add (self->kept, g_object_ref (in_frame));
  self->frames++;
  g_assert_true (stream == cugi_gst_filter_get_stream (filter));
  g_assert_true (cugi_gst_frame_is_mapped (in_frame));
  if (self->fail == FAIL_WITH_ERROR)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_LAUNCH_FAILED, "the test's kernel failed");
      return FALSE;
    }
  if (self->fail == FAIL_SILENTLY)
    return FALSE;
  for (guint plane = 0; plane < cugi_gst_frame_get_n_planes (in_frame); plane++)
    if (!cugi_buffer_copy_2d (cugi_gst_frame_get_plane (out_frame, plane), 0,
                              cugi_gst_frame_get_plane_pitch (out_frame, plane),
                              cugi_gst_frame_get_plane (in_frame, plane), 0,
                              cugi_gst_frame_get_plane_pitch (in_frame, plane),
                              cugi_gst_frame_get_plane_row_size (in_frame, plane),
                              cugi_gst_frame_get_plane_height (in_frame, plane), stream, error))
      return FALSE;
  return TRUE;
}

static void
test_copy_finalize (GObject *object)
{
  g_ptr_array_unref (TEST_COPY (object)->kept);
  G_OBJECT_CLASS (test_copy_parent_class)->finalize (object);
}

static void
test_copy_class_init (TestCopyClass *klass)
{
  CugiGstFilterClass *filter_class = CUGI_GST_FILTER_CLASS (klass);
  const gchar *formats[] = { "RGBA", "GRAY8", "NV12", "I420", "P010_10LE", NULL };
  g_autoptr(GError) error = NULL;

  gst_element_class_set_static_metadata (GST_ELEMENT_CLASS (klass), "test copy", "Filter/Video",
                                         "Copies frames", "cugi");
  g_assert_true (cugi_gst_filter_class_set_formats (filter_class, formats, &error));
  g_assert_no_error (error);
  G_OBJECT_CLASS (klass)->finalize = test_copy_finalize;
  filter_class->set_info = test_copy_set_info;
  filter_class->transform_frame = test_copy_transform_frame;
}

static void
test_copy_init (TestCopy *self)
{
  self->kept = g_ptr_array_new_with_free_func (g_object_unref);
}

/* Fills the first plane with FILL, in place only. */
#define FILL 0x5a
#define TEST_TYPE_FILL (test_fill_get_type ())
G_DECLARE_FINAL_TYPE (TestFill, test_fill, TEST, FILL, CugiGstFilter)

struct _TestFill
{
  CugiGstFilter parent_instance;
};

G_DEFINE_FINAL_TYPE (TestFill, test_fill, CUGI_GST_TYPE_FILTER)

static gboolean
test_fill_transform_frame_ip (CugiGstFilter *filter,
                              CugiGstFrame  *frame,
                              CugiStream    *stream,
                              GError       **error)
{
  return cugi_buffer_memset_2d_d8 (cugi_gst_frame_get_plane (frame, 0), 0,
                                cugi_gst_frame_get_plane_pitch (frame, 0), FILL,
                                cugi_gst_frame_get_plane_row_size (frame, 0),
                                cugi_gst_frame_get_plane_height (frame, 0), stream, error);
}

static void
test_fill_class_init (TestFillClass *klass)
{
  const gchar *formats[] = { "RGBA", NULL };

  gst_element_class_set_static_metadata (GST_ELEMENT_CLASS (klass), "test fill", "Filter/Video",
                                         "Fills frames", "cugi");
  g_assert_true (cugi_gst_filter_class_set_formats (CUGI_GST_FILTER_CLASS (klass), formats, NULL));
  CUGI_GST_FILTER_CLASS (klass)->transform_frame_ip = test_fill_transform_frame_ip;
}

static void
test_fill_init (TestFill *self)
{
}

/* Implements no virtual method. */
#define TEST_TYPE_IDLE (test_idle_get_type ())
G_DECLARE_FINAL_TYPE (TestIdle, test_idle, TEST, IDLE, CugiGstFilter)

struct _TestIdle
{
  CugiGstFilter parent_instance;
};

G_DEFINE_FINAL_TYPE (TestIdle, test_idle, CUGI_GST_TYPE_FILTER)

static void
test_idle_class_init (TestIdleClass *klass)
{
  gst_element_class_set_static_metadata (GST_ELEMENT_CLASS (klass), "test idle", "Filter/Video",
                                         "Does nothing", "cugi");
}

static void
test_idle_init (TestIdle *self)
{
}

/* ---- helpers ------------------------------------------------------------------ */

static gchar *
caps_string (const gchar *format,
             gboolean     cuda)
{
  return g_strdup_printf ("video/x-raw%s,format=%s,width=%d,height=%d,framerate=30/1",
                          cuda ? "(memory:CUDAMemory)" : "", format, WIDTH, HEIGHT);
}

/* A harness around a new @factory element with a bus of its own, for the
 * element's errors, and given @cuda_context (if not %NULL) before it
 * starts, as a neighbour would give it. */
static GstStaticPadTemplate harness_src = GST_STATIC_PAD_TEMPLATE ("src", GST_PAD_SRC, GST_PAD_ALWAYS,
                                                                  GST_STATIC_CAPS_ANY);
static GstStaticPadTemplate harness_sink = GST_STATIC_PAD_TEMPLATE ("sink", GST_PAD_SINK, GST_PAD_ALWAYS,
                                                                   GST_STATIC_CAPS_ANY);

static GstHarness *
harness_new (const gchar    *factory,
             GstCudaContext *cuda_context,
             GstBus        **bus)
{
  GstHarness *harness = gst_harness_new_empty ();
  GstElement *element = gst_element_factory_make (factory, NULL);

  *bus = gst_bus_new ();
  gst_element_set_bus (element, *bus);
  if (cuda_context != NULL)
    {
      GstContext *context = gst_context_new_cuda_context (cuda_context);

      gst_element_set_context (element, context);
      gst_context_unref (context);
    }
  gst_harness_add_element_full (harness, element, &harness_src, "sink", &harness_sink, "src");
  gst_object_unref (element);
  return harness;
}

/* A frame of @info with every byte a function of its position, in a
 * GstCudaBufferPool's memory of @cuda_context, or in system memory. */
static GstBuffer *
patterned_frame (const GstVideoInfo *info,
                 GstCudaContext     *cuda_context,
                 GstBufferPool     **pool)
{
  GstBuffer *buffer = NULL;
  GstMapInfo map;

  if (cuda_context != NULL)
    {
      g_autoptr(GstCaps) caps = gst_video_info_to_caps (info);
      GstStructure *config;

      gst_caps_set_features_simple (caps, gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, NULL));
      if (*pool == NULL)
        {
          *pool = gst_cuda_buffer_pool_new (cuda_context);
          config = gst_buffer_pool_get_config (*pool);
          gst_buffer_pool_config_set_params (config, caps, GST_VIDEO_INFO_SIZE (info), 0, 0);
          gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
          g_assert_true (gst_buffer_pool_set_config (*pool, config));
          g_assert_true (gst_buffer_pool_set_active (*pool, TRUE));
        }
      g_assert_cmpint (gst_buffer_pool_acquire_buffer (*pool, &buffer, NULL), ==, GST_FLOW_OK);
      g_assert_true (gst_is_cuda_memory (gst_buffer_peek_memory (buffer, 0)));
    }
  else
    {
      buffer = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (info), NULL);
      gst_buffer_add_video_meta_full (buffer, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_INFO_FORMAT (info),
                                      WIDTH, HEIGHT, GST_VIDEO_INFO_N_PLANES (info),
                                      (gsize *) info->offset, (gint *) info->stride);
    }
  g_assert_true (gst_buffer_map (buffer, &map, GST_MAP_WRITE));
  for (gsize i = 0; i < map.size; i++)
    map.data[i] = (guint8) (i * 7 + i / 251);
  gst_buffer_unmap (buffer, &map);
  return buffer;
}

/* Asserts that the pixels of each plane of @got and @want (frames of
 * @info) are the same; padding between rows is not compared. */
static void
assert_same_pixels (GstBuffer          *got,
                    GstBuffer          *want,
                    const GstVideoInfo *info)
{
  GstVideoFrame got_frame, want_frame;

  g_assert_true (gst_video_frame_map (&got_frame, (GstVideoInfo *) info, got, GST_MAP_READ));
  g_assert_true (gst_video_frame_map (&want_frame, (GstVideoInfo *) info, want, GST_MAP_READ));
  for (guint plane = 0; plane < GST_VIDEO_FRAME_N_PLANES (&want_frame); plane++)
    {
      gint component[GST_VIDEO_MAX_COMPONENTS];
      gsize row_size;
      guint rows;

      gst_video_format_info_component (info->finfo, plane, component);
      row_size = (gsize) GST_VIDEO_INFO_COMP_WIDTH (info, component[0]) *
                 GST_VIDEO_INFO_COMP_PSTRIDE (info, component[0]);
      rows = GST_VIDEO_INFO_COMP_HEIGHT (info, component[0]);
      for (guint row = 0; row < rows; row++)
        g_assert_cmpmem ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&got_frame, plane) +
                           row * GST_VIDEO_FRAME_PLANE_STRIDE (&got_frame, plane), row_size,
                         (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&want_frame, plane) +
                           row * GST_VIDEO_FRAME_PLANE_STRIDE (&want_frame, plane), row_size);
    }
  gst_video_frame_unmap (&want_frame);
  gst_video_frame_unmap (&got_frame);
}

static GstCudaContext *
stand_in_cuda_context (void)
{
  g_assert_true (gst_cuda_load_library ());
  return gst_cuda_context_new (0);
}

/* Asserts that CugiGstFilter:stats of @element counts @frames frames, and
 * time for them where there were any, the GPU's share within it. */
static void
assert_stats (GstElement *element,
              guint64     frames)
{
  g_autoptr(GstStructure) stats = NULL;
  guint64 counted = 0, processing = 0, waiting = 0;

  g_object_get (element, "stats", &stats, NULL);
  g_assert_cmpstr (gst_structure_get_name (stats), ==, "application/x-cugi-filter-stats");
  g_assert_true (gst_structure_get_uint64 (stats, "frames", &counted));
  g_assert_true (gst_structure_get_uint64 (stats, "processing-time", &processing));
  g_assert_true (gst_structure_get_uint64 (stats, "gpu-wait-time", &waiting));
  g_assert_cmpuint (counted, ==, frames);
  g_assert_cmpuint (waiting, <=, processing);
  if (frames == 0)
    g_assert_cmpuint (processing, ==, 0);
  else
    g_assert_cmpuint (processing, >, 0);
}

/* ---- tests -------------------------------------------------------------------- */

typedef struct
{
  const gchar *format;
  gboolean     in_cuda;
  gboolean     out_cuda;
} CopyCase;

/* Frames copied by the filter come out as they went in, for each format
 * and memory on each side; the output is CUDA memory exactly where its caps
 * say so, and the filter works in the context it was given. */
static void
test_copy_frames (gconstpointer data)
{
  const CopyCase *copy = data;
  g_autofree gchar *in_caps = caps_string (copy->format, copy->in_cuda);
  g_autofree gchar *out_caps = caps_string (copy->format, copy->out_cuda);
  g_autoptr(GstObject) cuda_context_object = GST_OBJECT (stand_in_cuda_context ());
  GstCudaContext *cuda_context = GST_CUDA_CONTEXT (cuda_context_object);
  g_autoptr(GstCaps) caps = gst_caps_from_string (in_caps);
  g_autoptr(GstBufferPool) pool = NULL;
  g_autoptr(GstBus) bus = NULL;
  GstHarness *harness = harness_new ("testcopy", cuda_context, &bus);
  TestCopy *element = TEST_COPY (harness->element);
  CugiContext *context;
  GstVideoInfo info;

  g_assert_true (gst_video_info_from_caps (&info, caps));
  gst_harness_set_caps_str (harness, in_caps, out_caps);
  context = cugi_gst_filter_get_cugi_context (CUGI_GST_FILTER (element));
  g_assert_nonnull (context);
  g_assert_true (cugi_gst_context_get_cuda_context (context) == cuda_context);

  for (guint i = 0; i < 3; i++)
    {
      GstBuffer *input = patterned_frame (&info, copy->in_cuda ? cuda_context : NULL, &pool);
      g_autoptr(GstBuffer) expected = gst_buffer_copy_deep (input);
      g_autoptr(GstBuffer) output = NULL;

      g_assert_cmpint (gst_harness_push (harness, input), ==, GST_FLOW_OK);
      output = gst_harness_pull (harness);
      g_assert_nonnull (output);
      g_assert_cmpint (gst_is_cuda_memory (gst_buffer_peek_memory (output, 0)), ==, copy->out_cuda);
      assert_same_pixels (output, expected, &info);
    }
  g_assert_cmpuint (element->set_info_calls, ==, 1);
  g_assert_cmpuint (element->frames, ==, 3);
  g_assert_null (gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR));
  assert_stats (harness->element, 3);

  gst_harness_teardown (harness);
  if (pool != NULL)
    gst_buffer_pool_set_active (pool, FALSE);
}

/* The filter hands a subclass the same frame object for frame after frame
 * while nobody keeps it, each time over the right buffer, and holds no
 * buffer between frames (an output pushed on is writable downstream); a
 * frame the subclass keeps stays over its own buffer, unmapped, and the
 * next frames get new objects. */
static void
test_frames_reused (void)
{
  g_autoptr(GstObject) cuda_context_object = GST_OBJECT (stand_in_cuda_context ());
  GstCudaContext *cuda_context = GST_CUDA_CONTEXT (cuda_context_object);

  for (gboolean keep = FALSE; keep <= TRUE; keep++)
    {
      g_autofree gchar *caps = caps_string ("RGBA", TRUE);
      g_autoptr(GstCaps) parsed = gst_caps_from_string (caps);
      g_autoptr(GstBufferPool) pool = NULL;
      g_autoptr(GstBus) bus = NULL;
      GstHarness *harness = harness_new ("testcopy", cuda_context, &bus);
      TestCopy *element = TEST_COPY (harness->element);
      GstBuffer *inputs[4];
      GstVideoInfo info;

      g_assert_true (gst_video_info_from_caps (&info, parsed));
      element->keep_frames = keep;
      gst_harness_set_caps_str (harness, caps, caps);
      for (guint i = 0; i < G_N_ELEMENTS (inputs); i++)
        {
          g_autoptr(GstBuffer) output = NULL;

          inputs[i] = patterned_frame (&info, cuda_context, &pool);
          g_assert_cmpint (gst_harness_push (harness, gst_buffer_ref (inputs[i])), ==, GST_FLOW_OK);
          output = gst_harness_pull (harness);
          g_assert_true (gst_buffer_is_writable (output));
          g_assert_true (element->in_buffers[i] == inputs[i]);
        }
      g_assert_cmpuint (element->frames, ==, G_N_ELEMENTS (inputs));
      g_assert_false (element->seen_before[0]);
      for (guint i = 1; i < G_N_ELEMENTS (inputs); i++)
        g_assert_cmpint (element->seen_before[i], ==, !keep);
      for (guint i = 0; i < element->kept->len; i++)
        {
          CugiGstFrame *kept = g_ptr_array_index (element->kept, i);

          g_assert_false (cugi_gst_frame_is_mapped (kept));
          g_assert_true (cugi_gst_frame_get_buffer (kept) == inputs[i]);
        }
      /* The filter let go of every input: each is ours alone, but for the
       * frames the subclass kept. */
      for (guint i = 0; i < G_N_ELEMENTS (inputs); i++)
        {
          g_assert_cmpint (GST_MINI_OBJECT_REFCOUNT_VALUE (inputs[i]), ==, keep ? 2 : 1);
          gst_buffer_unref (inputs[i]);
        }
      g_assert_null (gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR));
      gst_harness_teardown (harness);
      if (pool != NULL)
        gst_buffer_pool_set_active (pool, FALSE);
    }
}

/* A subclass that only works in place changes the very buffer it is
 * given, in either memory, and the memory stays what it was. */
static void
test_in_place (void)
{
  g_autoptr(GstObject) cuda_context_object = GST_OBJECT (stand_in_cuda_context ());
  GstCudaContext *cuda_context = GST_CUDA_CONTEXT (cuda_context_object);

  for (gboolean cuda = FALSE; cuda <= TRUE; cuda++)
    {
      g_autofree gchar *caps = caps_string ("RGBA", cuda);
      g_autoptr(GstCaps) parsed = gst_caps_from_string (caps);
      g_autoptr(GstBufferPool) pool = NULL;
      g_autoptr(GstBus) bus = NULL;
      GstHarness *harness = harness_new ("testfill", cuda_context, &bus);
      g_autoptr(GstBuffer) output = NULL;
      GstVideoFrame frame;
      GstBuffer *input;
      GstVideoInfo info;

      g_assert_true (gst_video_info_from_caps (&info, parsed));
      gst_harness_set_caps_str (harness, caps, caps);
      input = patterned_frame (&info, cuda ? cuda_context : NULL, &pool);
      g_assert_cmpint (gst_harness_push (harness, input), ==, GST_FLOW_OK);
      output = gst_harness_pull (harness);
      g_assert_true (gst_base_transform_is_in_place (GST_BASE_TRANSFORM (harness->element)));
      g_assert_true (output == input);
      g_assert_cmpint (gst_is_cuda_memory (gst_buffer_peek_memory (output, 0)), ==, cuda);
      g_assert_true (gst_video_frame_map (&frame, &info, output, GST_MAP_READ));
      for (guint row = 0; row < HEIGHT; row++)
        for (guint x = 0; x < WIDTH * 4; x++)
          g_assert_cmpuint (((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0))
                              [row * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0) + x], ==, FILL);
      gst_video_frame_unmap (&frame);
      g_clear_pointer (&output, gst_buffer_unref);
      gst_harness_teardown (harness);
      if (pool != NULL)
        gst_buffer_pool_set_active (pool, FALSE);
    }
}

/* A subclass that passes frames through gets them pushed on untouched. */
static void
test_passthrough (void)
{
  g_autofree gchar *caps = caps_string ("RGBA", FALSE);
  g_autoptr(GstCaps) parsed = gst_caps_from_string (caps);
  g_autoptr(GstBus) bus = NULL;
  GstHarness *harness = harness_new ("testcopy", NULL, &bus);
  g_autoptr(GstBuffer) output = NULL;
  GstBufferPool *no_pool = NULL;
  GstBuffer *input;
  GstVideoInfo info;

  TEST_COPY (harness->element)->passthrough = TRUE;
  g_assert_true (gst_video_info_from_caps (&info, parsed));
  gst_harness_set_caps_str (harness, caps, caps);
  input = patterned_frame (&info, NULL, &no_pool);
  g_assert_cmpint (gst_harness_push (harness, input), ==, GST_FLOW_OK);
  output = gst_harness_pull (harness);
  g_assert_true (output == input);
  g_assert_cmpuint (TEST_COPY (harness->element)->frames, ==, 0);
  assert_stats (harness->element, 0);
  g_clear_pointer (&output, gst_buffer_unref);
  gst_harness_teardown (harness);
}

/* A failing frame is an element error carrying the subclass's message (or
 * one naming the method, where it gave none), and the next frame goes
 * through. */
static void
test_errors (void)
{
  g_autofree gchar *caps = caps_string ("RGBA", FALSE);
  g_autoptr(GstCaps) parsed = gst_caps_from_string (caps);
  g_autoptr(GstBus) bus = NULL;
  GstHarness *harness = harness_new ("testcopy", NULL, &bus);
  TestCopy *element = TEST_COPY (harness->element);
  const struct { FailMode mode; const gchar *message; } cases[] = {
    { FAIL_WITH_ERROR, "the test's kernel failed" },
    { FAIL_SILENTLY, "TestCopy's transform_frame() failed without saying why" },
  };
  GstBufferPool *no_pool = NULL;
  GstVideoInfo info;

  g_assert_true (gst_video_info_from_caps (&info, parsed));
  gst_harness_set_caps_str (harness, caps, caps);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GstMessage) message = NULL;
      g_autoptr(GError) error = NULL;
      g_autoptr(GstBuffer) output = NULL;
      g_autofree gchar *debug = NULL;

      element->fail = cases[i].mode;
      g_assert_cmpint (gst_harness_push (harness, patterned_frame (&info, NULL, &no_pool)), ==, GST_FLOW_ERROR);
      message = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
      g_assert_nonnull (message);
      gst_message_parse_error (message, &error, &debug);
      g_assert_error (error, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_FAILED);
      g_assert_cmpstr (error->message, ==, cases[i].message);

      element->fail = FAIL_NONE;
      g_assert_cmpint (gst_harness_push (harness, patterned_frame (&info, NULL, &no_pool)), ==, GST_FLOW_OK);
      output = gst_harness_pull (harness);
      g_assert_nonnull (output);
    }
  gst_harness_teardown (harness);
}

/* A subclass with no transform is refused when it starts, with an error
 * naming it. */
static void
test_no_transform (void)
{
  g_autoptr(GstBus) bus = gst_bus_new ();
  GstElement *element = gst_element_factory_make ("testidle", NULL);
  g_autoptr(GstMessage) message = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree gchar *debug = NULL;

  gst_element_set_bus (element, bus);
  g_assert_cmpint (gst_element_set_state (element, GST_STATE_PAUSED), ==, GST_STATE_CHANGE_FAILURE);
  message = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  g_assert_nonnull (message);
  gst_message_parse_error (message, &error, &debug);
  g_assert_cmpstr (error->message, ==, "TestIdle implements neither transform_frame() nor transform_frame_ip()");
  gst_element_set_state (element, GST_STATE_NULL);
  gst_object_unref (element);
}

/* Formats: CUDA memory is offered only in those GStreamer's allocator lays
 * out; names that are no format, tiled formats and none are refused, and
 * leave the templates as they were. */
static void
test_formats (void)
{
  CugiGstFilterClass *klass = g_type_class_ref (TEST_TYPE_COPY);
  GstPadTemplate *template = gst_element_class_get_pad_template (GST_ELEMENT_CLASS (klass), "src");
  g_autoptr(GstCaps) before = gst_pad_template_get_caps (template);
  g_autoptr(GstCaps) gray_cuda = gst_caps_from_string ("video/x-raw(memory:CUDAMemory),format=GRAY8");
  g_autoptr(GstCaps) gray = gst_caps_from_string ("video/x-raw,format=GRAY8");
  g_autoptr(GstCaps) nv12_cuda = gst_caps_from_string ("video/x-raw(memory:CUDAMemory),format=NV12");
  const gchar *unknown[] = { "RGBA", "NOPE", NULL };
  const gchar *tiled[] = { "NV12_64Z32", NULL };
  const gchar *none[] = { NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(GstCaps) after = NULL;

  g_assert_false (gst_caps_can_intersect (before, gray_cuda));
  g_assert_true (gst_caps_can_intersect (before, gray));
  g_assert_true (gst_caps_can_intersect (before, nv12_cuda));

  g_assert_false (cugi_gst_filter_class_set_formats (klass, unknown, &error));
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "NOPE"));
  g_clear_error (&error);
  g_assert_false (cugi_gst_filter_class_set_formats (klass, tiled, &error));
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_NOT_SUPPORTED);
  g_clear_error (&error);
  g_assert_false (cugi_gst_filter_class_set_formats (klass, none, &error));
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  template = gst_element_class_get_pad_template (GST_ELEMENT_CLASS (klass), "src");
  after = gst_pad_template_get_caps (template);
  g_assert_true (gst_caps_is_equal (before, after));
  g_type_class_unref (klass);
}

int
main (int    argc,
      char **argv)
{
  static const CopyCase cases[] = {
    { "RGBA", FALSE, FALSE }, { "RGBA", TRUE, TRUE }, { "RGBA", FALSE, TRUE }, { "RGBA", TRUE, FALSE },
    { "GRAY8", FALSE, FALSE },
    { "NV12", FALSE, FALSE }, { "NV12", TRUE, TRUE }, { "NV12", TRUE, FALSE },
    { "I420", FALSE, FALSE }, { "I420", TRUE, TRUE }, { "I420", FALSE, TRUE },
    { "P010_10LE", FALSE, FALSE }, { "P010_10LE", TRUE, TRUE },
  };

  gst_init (&argc, &argv);
  g_test_init (&argc, &argv, NULL);
  gst_element_register (NULL, "testcopy", GST_RANK_NONE, TEST_TYPE_COPY);
  gst_element_register (NULL, "testfill", GST_RANK_NONE, TEST_TYPE_FILL);
  gst_element_register (NULL, "testidle", GST_RANK_NONE, TEST_TYPE_IDLE);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree gchar *path = g_strdup_printf ("/cugigst/filter/copy/%s/%s-to-%s", cases[i].format,
                                                cases[i].in_cuda ? "cuda" : "system",
                                                cases[i].out_cuda ? "cuda" : "system");

      g_test_add_data_func (path, &cases[i], test_copy_frames);
    }
  g_test_add_func ("/cugigst/filter/frames-reused", test_frames_reused);
  g_test_add_func ("/cugigst/filter/in-place", test_in_place);
  g_test_add_func ("/cugigst/filter/passthrough", test_passthrough);
  g_test_add_func ("/cugigst/filter/errors", test_errors);
  g_test_add_func ("/cugigst/filter/no-transform", test_no_transform);
  g_test_add_func ("/cugigst/filter/formats", test_formats);
  return g_test_run ();
}
