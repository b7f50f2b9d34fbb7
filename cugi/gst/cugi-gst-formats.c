/* cugi-gst-formats.c: the video formats of cugi's filters, in which memory
 * each is offered
 *
 * A filter offers every format of its subclass in system memory and those
 * that GStreamer's CUDA allocator can lay out in CUDA memory too; a format
 * whose planes are not rows of pixels is refused when the subclass sets it.
 */
#include <glib/gi18n-lib.h>

#include "cugi-gst-private.h"

/* The formats GstCudaAllocator lays out (gst_cuda_allocator_alloc_internal()
 * in 1.22, gst_cuda_allocator_update_info() from 1.24): CUDA memory is
 * offered in these only. A GstCudaBufferPool for another format, GRAY8 say,
 * aborts the process in 1.22 and fails each allocation later. */
static const gchar * const cuda_formats[] = {
  "I420", "YV12", "I420_10LE", "Y42B", "I422_10LE", "I422_12LE", "NV12", "NV21",
  "P010_10LE", "P016_LE", "Y444", "Y444_16LE", "RGBP", "BGRP", "GBR", "GBRA",
  "BGRA", "RGBA", "RGBx", "BGRx", "ARGB", "ABGR", "RGB", "BGR", "BGR10A2_LE",
  "RGB10A2_LE", "YUY2", "UYVY",
#if GST_CHECK_VERSION (1, 24, 0)
  "I420_12LE", "P012_LE", "Y444_10LE", "Y444_12LE", "GBR_10LE", "GBR_12LE", "GBR_16LE",
#endif
  NULL
};

/* Caps of raw video in @formats (a list of names, "{ RGBA, NV12 }"), with
 * @feature's memory, any size and frame rate. */
static GstCaps *
video_caps (const gchar *feature,
            const gchar *formats)
{
  g_autofree gchar *description = g_strdup_printf ("video/x-raw(%s), format=(string)%s, "
                                                   "width=(int)[1, 2147483647], "
                                                   "height=(int)[1, 2147483647], "
                                                   "framerate=(fraction)[0/1, 2147483647/1]",
                                                   feature, formats);

  return gst_caps_from_string (description);
}

/* Whether @format is one GstCudaAllocator lays out. */
static gboolean
is_cuda_format (const gchar *format)
{
  return g_strv_contains (cuda_formats, format);
}

/* Replaces the class's "sink" and "src" templates with ones for @formats,
 * which cugi_gst_formats_check() passed: each in system memory, those
 * GstCudaAllocator lays out in CUDA memory too. */
void
cugi_gst_formats_set_templates (GstElementClass     *element_class,
                                const gchar * const *formats)
{
  g_autoptr(GString) all = g_string_new ("{ ");
  g_autoptr(GString) on_gpu = g_string_new ("{ ");
  g_autoptr(GstCaps) caps = NULL;

  for (guint i = 0; formats[i] != NULL; i++)
    {
      g_string_append_printf (all, "%s%s", all->len > 2 ? ", " : "", formats[i]);
      if (is_cuda_format (formats[i]))
        g_string_append_printf (on_gpu, "%s%s", on_gpu->len > 2 ? ", " : "", formats[i]);
    }
  g_string_append (all, " }");
  g_string_append (on_gpu, " }");
  caps = on_gpu->len > 4 ? video_caps (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, on_gpu->str)
                         : gst_caps_new_empty ();
  gst_caps_append (caps, video_caps (GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY, all->str));
  gst_element_class_add_pad_template (element_class,
                                      gst_pad_template_new ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
  gst_element_class_add_pad_template (element_class,
                                      gst_pad_template_new ("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
}

/* Whether every name in @formats (at least one) is a raw video format whose
 * planes the filter can hand on as rows of pixels. */
gboolean
cugi_gst_formats_check (const gchar * const *formats,
                        GError             **error)
{
  if (formats == NULL || formats[0] == NULL)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                           _("a filter needs at least one video format"));
      return FALSE;
    }
  for (guint i = 0; formats[i] != NULL; i++)
    {
      GstVideoFormat format = gst_video_format_from_string (formats[i]);
      gsize row_sizes[GST_VIDEO_MAX_PLANES];
      guint heights[GST_VIDEO_MAX_PLANES];
      GstVideoInfo info;

      if (format == GST_VIDEO_FORMAT_UNKNOWN || format == GST_VIDEO_FORMAT_ENCODED)
        {
          g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                       _("“%s” is no raw video format GStreamer knows"), formats[i]);
          return FALSE;
        }
      if (!gst_video_info_set_format (&info, format, 64, 64) ||
          !cugi_gst_frame_check_layout (&info, row_sizes, heights, error))
        return FALSE;
    }
  return TRUE;
}

/* Every format GstCudaAllocator lays out: a subclass's formats until it sets
 * its own. */
const gchar * const *
cugi_gst_formats_cuda (void)
{
  return cuda_formats;
}
