/* cugi-gst-formats.c: the video formats of cugi's filters, in which memory
 * each is offered
 *
 * A filter offers every format of its subclass in system memory, those that
 * GStreamer's CUDA allocator can lay out in CUDA memory too, and those whose
 * GL textures CUDA can register in GL memory; a format whose planes are not
 * rows of pixels is refused when the subclass sets it.
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

/* The formats in GL memory: those whose planes GstGLMemory keeps in
 * textures of 1, 2 or 4 channels of 8 or 16 bits, the kinds CUDA registers
 * (cuGraphicsGLRegisterImage takes no 3-channel textures: no RGB), each
 * texel as many bytes as the plane's pixels (no packed 4:2:2, whose GL
 * textures are half as wide). */
static const gchar * const gl_formats[] = {
  "RGBA", "BGRA", "RGBx", "BGRx", "ARGB", "ABGR", "I420", "YV12", "Y42B", "Y444",
  "NV12", "NV21", "GRAY8", "GRAY16_LE", "P010_10LE",
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

/* Appends to @caps those of @formats that are in @allowed (all if NULL),
 * in @feature's memory, with @extra fields. */
static void
append_video_caps (GstCaps             *caps,
                   const gchar         *feature,
                   const gchar * const *formats,
                   const gchar * const *allowed,
                   const gchar         *extra)
{
  g_autoptr(GString) list = g_string_new ("{ ");
  GstCaps *these;

  for (guint i = 0; formats[i] != NULL; i++)
    if (allowed == NULL || g_strv_contains (allowed, formats[i]))
      g_string_append_printf (list, "%s%s", list->len > 2 ? ", " : "", formats[i]);
  if (list->len == 2)
    return;
  g_string_append (list, " }");
  these = video_caps (feature, list->str);
  if (extra != NULL)
    {
      g_autoptr(GstStructure) fields = gst_structure_from_string (extra, NULL);

      for (gint i = 0; i < gst_structure_n_fields (fields); i++)
        gst_caps_set_value (these, gst_structure_nth_field_name (fields, i),
                            gst_structure_get_value (fields, gst_structure_nth_field_name (fields, i)));
    }
  gst_caps_append (caps, these);
}

/* Replaces the class's "sink" and "src" templates with ones for @formats,
 * which cugi_gst_formats_check() passed: those GstCudaAllocator lays out in
 * CUDA memory, those CUDA registers in GL memory (2D textures), and each in
 * system memory, in the order the filter prefers them. */
void
cugi_gst_formats_set_templates (GstElementClass     *element_class,
                                const gchar * const *formats)
{
  g_autoptr(GstCaps) caps = gst_caps_new_empty ();

  append_video_caps (caps, GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, formats, cuda_formats, NULL);
  append_video_caps (caps, GST_CAPS_FEATURE_MEMORY_GL_MEMORY, formats, gl_formats,
                     "extra, texture-target=(string)2D");
  append_video_caps (caps, GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY, formats, NULL, NULL);
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

/* ---- caps between memories -------------------------------------------------- */

/* The memory of caps with @features: CUDA, GL or (any other) system memory. */
CugiGstMemoryKind
cugi_gst_caps_memory_kind (GstCapsFeatures *features)
{
  if (features != NULL && gst_caps_features_contains (features, GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY))
    return CUGI_GST_MEMORY_KIND_CUDA;
  if (features != NULL && gst_caps_features_contains (features, GST_CAPS_FEATURE_MEMORY_GL_MEMORY))
    return CUGI_GST_MEMORY_KIND_GL;
  return CUGI_GST_MEMORY_KIND_SYSTEM;
}

/* The same formats and sizes as @caps in CUDA, GL and system memory, or in
 * the same memory only where @same_memory: a filter moves frames between
 * them. CUDA memory comes first and system memory last, so that neighbours
 * that offer several (cudaupload, cudadownload, glupload) pick memory on
 * the GPU. A texture target is GL memory's only. GstBaseTransform keeps of
 * these what the pad templates allow: GRAY8, say, not in CUDA memory. */
GstCaps *
cugi_gst_caps_in_other_memory (GstCaps  *caps,
                               GstCaps  *filter,
                               gboolean  same_memory)
{
  static const struct { CugiGstMemoryKind kind; const gchar *feature; } order[] = {
    { CUGI_GST_MEMORY_KIND_CUDA, GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY },
    { CUGI_GST_MEMORY_KIND_GL, GST_CAPS_FEATURE_MEMORY_GL_MEMORY },
    { CUGI_GST_MEMORY_KIND_SYSTEM, GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY },
  };
  GstCaps *result = gst_caps_new_empty ();

  for (guint i = 0; i < gst_caps_get_size (caps); i++)
    {
      GstStructure *structure = gst_caps_get_structure (caps, i);
      GstCapsFeatures *features = gst_caps_get_features (caps, i);
      CugiGstMemoryKind kind = cugi_gst_caps_memory_kind (features);

      /* Other memory, or system memory with metas, is not ours to map. */
      if (kind == CUGI_GST_MEMORY_KIND_SYSTEM &&
          !gst_caps_features_is_equal (features, GST_CAPS_FEATURES_MEMORY_SYSTEM_MEMORY))
        continue;
      for (guint j = 0; j < G_N_ELEMENTS (order); j++)
        if (!same_memory || order[j].kind == kind)
          {
            GstStructure *other = gst_structure_copy (structure);

            if (order[j].kind != CUGI_GST_MEMORY_KIND_GL)
              gst_structure_remove_field (other, "texture-target");
            result = gst_caps_merge_structure_full (result, other,
                                                    gst_caps_features_new (order[j].feature, NULL));
          }
    }

  if (filter != NULL)
    {
      GstCaps *filtered = gst_caps_intersect_full (filter, result, GST_CAPS_INTERSECT_FIRST);

      gst_caps_unref (result);
      result = filtered;
    }
  return result;
}

/* Of @othercaps (transfer full), those in CUDA memory, else those in GL
 * memory, else all: frames stay on the GPU where the other side takes GPU
 * memory too (cudadownload, say, which would otherwise pass system memory
 * through and leave the download to the filter), in CUDA memory first,
 * which needs no copy. */
GstCaps *
cugi_gst_caps_keep_on_gpu (GstCaps *othercaps)
{
  const CugiGstMemoryKind preferred[] = { CUGI_GST_MEMORY_KIND_CUDA, CUGI_GST_MEMORY_KIND_GL };

  for (guint p = 0; p < G_N_ELEMENTS (preferred); p++)
    {
      GstCaps *on_gpu = gst_caps_new_empty ();

      for (guint i = 0; i < gst_caps_get_size (othercaps); i++)
        if (cugi_gst_caps_memory_kind (gst_caps_get_features (othercaps, i)) == preferred[p])
          on_gpu = gst_caps_merge_structure_full (on_gpu,
                                                  gst_structure_copy (gst_caps_get_structure (othercaps, i)),
                                                  gst_caps_features_copy (gst_caps_get_features (othercaps, i)));
      if (!gst_caps_is_empty (on_gpu))
        {
          gst_caps_unref (othercaps);
          return on_gpu;
        }
      gst_caps_unref (on_gpu);
    }
  return othercaps;
}
