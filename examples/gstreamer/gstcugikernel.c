/* gstcugikernel.c: a GStreamer element running a CUDA C++ kernel on frames
 *
 * cugikernel is a CugiGstFilter (libcugi-gst): the filter negotiates the
 * CUDA context with its neighbours, takes CUDA memory in place and system
 * memory through pinned staging, shares a stream with the neighbours' pools
 * and decides where the streaming thread waits (cugi/gst/cugi-gst-filter.c
 * says how). What is left here is the kernel: compiled with cugi (NVRTC,
 * through cugi's disk cache) when caps are set, launched once per frame on
 * the filter's stream with the frame's planes.
 *
 * See docs/gstreamer.md for the kernel signature and a walk-through.
 */
#include "gstcugikernel.h"

#include "gstcugisourcefile.h"

GST_DEBUG_CATEGORY_STATIC (gst_cugi_kernel_debug);
#define GST_CAT_DEFAULT gst_cugi_kernel_debug

/* The formats of the kernel signatures (docs/gstreamer.md): those of
 * cugikernel's neighbours (videotestsrc, cudaupload, nvdec's decoders). The
 * filter offers each in system memory, and those that GStreamer's CUDA
 * allocator lays out (all but GRAY8) in CUDA memory too. */
static const gchar * const formats[] = {
  "RGBA", "BGRA", "RGBx", "BGRx", "ARGB", "ABGR", "GRAY8",
  "NV12", "NV21", "I420", "YV12", "Y42B", "Y444", "P010_10LE", "P016_LE", "Y444_16LE",
  NULL
};
#define BLOCK_SIZE 16
/* src and src_stride per input plane, dst and dst_stride per output plane;
 * then width, height, pts. */
#define PARAMS_PER_PLANE 2
#define FRAME_PARAMS 3

struct _GstCugiKernel
{
  CugiGstFilter parent_instance;

  /* Properties, under the object lock. */
  gchar          *source;
  gchar          *location;
  gchar          *kernel_name;
  GArray         *parameters;                    /* of gfloat */

  /* From start() to stop(). */
  gchar            *kernel_source;
  CugiLaunchConfig *config;
  CugiKernelArgs   *args;

  /* From set_info(). */
  CugiKernel       *kernel;
};

G_DEFINE_FINAL_TYPE_WITH_CODE (GstCugiKernel, gst_cugi_kernel, CUGI_GST_TYPE_FILTER,
  GST_DEBUG_CATEGORY_INIT (gst_cugi_kernel_debug, "cugikernel", 0, "cugi kernel on frames"))

GST_ELEMENT_REGISTER_DEFINE (cugikernel, "cugikernel", GST_RANK_NONE, GST_TYPE_CUGI_KERNEL);

enum
{
  PROP_0,
  PROP_SOURCE,
  PROP_LOCATION,
  PROP_KERNEL_NAME,
  PROP_PARAMETERS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* ---- the kernel ------------------------------------------------------------ */

static guint
expected_param_count (const GstVideoInfo *in_info,
                      const GstVideoInfo *out_info,
                      guint               n_parameters)
{
  return (GST_VIDEO_INFO_N_PLANES (in_info) + GST_VIDEO_INFO_N_PLANES (out_info)) * PARAMS_PER_PLANE +
         FRAME_PARAMS + n_parameters;
}

/* The kernel source: the source property, else the file location names. */
static gboolean
read_kernel_source (GstCugiKernel *self,
                    GError       **error)
{
  g_autofree gchar *source = NULL;
  g_autofree gchar *location = NULL;
  g_autofree gchar *kernel_name = NULL;

  GST_OBJECT_LOCK (self);
  source = g_strdup (self->source);
  location = g_strdup (self->location);
  kernel_name = g_strdup (self->kernel_name);
  GST_OBJECT_UNLOCK (self);

  if (kernel_name == NULL || *kernel_name == '\0')
    {
      g_set_error_literal (error, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS,
                           "cugikernel has no kernel-name: set it to the __global__ function to run");
      return FALSE;
    }
  if (source != NULL && location != NULL)
    {
      g_set_error_literal (error, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS,
                           "cugikernel has both a source and a location: set only one");
      return FALSE;
    }
  if (location != NULL && (source = gst_cugi_read_source_file (location, error)) == NULL)
    return FALSE;
  if (source == NULL)
    {
      g_set_error_literal (error, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS,
                           "cugikernel has no kernel: set source (CUDA C++) or location (a .cu file)");
      return FALSE;
    }
  g_free (self->kernel_source);
  self->kernel_source = g_steal_pointer (&source);
  return TRUE;
}

/* Compiles (through cugi's cache: a hit costs microseconds) the kernel for
 * the input format and checks its parameter count against the signature. */
static gboolean
gst_cugi_kernel_set_info (CugiGstFilter      *filter,
                          const GstVideoInfo *in_info,
                          const GstVideoInfo *out_info,
                          GError            **error)
{
  GstCugiKernel *self = GST_CUGI_KERNEL (filter);
  GstVideoFormat format = GST_VIDEO_INFO_FORMAT (in_info);
  g_autofree gchar *format_define = g_strdup_printf ("-DCUGIKERNEL_FORMAT_%s=1",
                                                     gst_video_format_to_string (format));
  const gchar *options[] = { format_define, NULL };
  g_autofree gchar *kernel_name = NULL;
  guint n_parameters, expected;
  gint n_params;

  GST_OBJECT_LOCK (self);
  kernel_name = g_strdup (self->kernel_name);
  n_parameters = self->parameters->len;
  GST_OBJECT_UNLOCK (self);

  g_clear_object (&self->kernel);
  self->kernel = cugi_kernel_new_from_source (cugi_gst_filter_get_cugi_context (filter), self->kernel_source,
                                              kernel_name, options, error);
  if (self->kernel == NULL)
    return FALSE;

  /* cugi checks each launch's arguments against the kernel too; checking the
   * count here turns a wrong signature into an error before the first frame. */
  n_params = cugi_kernel_get_num_params (self->kernel);
  expected = expected_param_count (in_info, out_info, n_parameters);
  if (n_params >= 0 && (guint) n_params != expected)
    {
      g_set_error (error, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS,
                   "Kernel “%s” takes %d parameters, but for %s frames cugikernel passes %u: "
                   "%u for the planes, width, height and timestamp, then the %u of the "
                   "parameters property (see the kernel signature in docs/gstreamer.md)",
                   kernel_name, n_params, gst_video_format_to_string (format), expected,
                   expected - n_parameters, n_parameters);
      g_clear_object (&self->kernel);
      return FALSE;
    }

  cugi_launch_config_set_grid (self->config,
                               (GST_VIDEO_INFO_WIDTH (in_info) + BLOCK_SIZE - 1) / BLOCK_SIZE,
                               (GST_VIDEO_INFO_HEIGHT (in_info) + BLOCK_SIZE - 1) / BLOCK_SIZE, 1);
  return TRUE;
}

static void
add_planes (CugiKernelArgs *args,
            CugiGstFrame   *frame)
{
  for (guint plane = 0; plane < cugi_gst_frame_get_n_planes (frame); plane++)
    {
      cugi_kernel_args_add_buffer (args, cugi_gst_frame_get_plane (frame, plane));
      cugi_kernel_args_add_int32 (args, cugi_gst_frame_get_plane_pitch (frame, plane));
    }
}

static gboolean
gst_cugi_kernel_transform_frame (CugiGstFilter *filter,
                                 CugiGstFrame  *in_frame,
                                 CugiGstFrame  *out_frame,
                                 CugiStream    *stream,
                                 GError       **error)
{
  GstCugiKernel *self = GST_CUGI_KERNEL (filter);
  CugiKernelArgs *args = self->args;

  /* The filter's stream changes only where a new pool brought one. */
  if (cugi_launch_config_get_stream (self->config) != stream)
    cugi_launch_config_set_stream (self->config, stream);
  cugi_kernel_args_clear (args);
  add_planes (args, in_frame);
  add_planes (args, out_frame);
  cugi_kernel_args_add_int32 (args, cugi_gst_frame_get_width (in_frame));
  cugi_kernel_args_add_int32 (args, cugi_gst_frame_get_height (in_frame));
  cugi_kernel_args_add_uint64 (args, GST_BUFFER_PTS (cugi_gst_frame_get_buffer (in_frame)));

  GST_OBJECT_LOCK (self);
  for (guint i = 0; i < self->parameters->len; i++)
    cugi_kernel_args_add_float (args, g_array_index (self->parameters, gfloat, i));
  GST_OBJECT_UNLOCK (self);

  return cugi_kernel_launch (self->kernel, self->config, args, error);
}

/* ---- GstBaseTransform ------------------------------------------------------ */

static gboolean
gst_cugi_kernel_start (GstBaseTransform *trans)
{
  GstCugiKernel *self = GST_CUGI_KERNEL (trans);
  g_autoptr(GError) error = NULL;

  if (!read_kernel_source (self, &error))
    {
      /* What GST_ELEMENT_ERROR posts, in the error's own domain and code:
       * LIBRARY SETTINGS, or RESOURCE for the file location names. */
      gst_element_message_full (GST_ELEMENT (self), GST_MESSAGE_ERROR, error->domain, error->code,
                                g_strdup (error->message), g_strdup ("reading the kernel's properties"),
                                __FILE__, GST_FUNCTION, __LINE__);
      return FALSE;
    }
  self->config = cugi_launch_config_new (1, BLOCK_SIZE);
  cugi_launch_config_set_block (self->config, BLOCK_SIZE, BLOCK_SIZE, 1);
  self->args = cugi_kernel_args_new ();
  return GST_BASE_TRANSFORM_CLASS (gst_cugi_kernel_parent_class)->start (trans);
}

static gboolean
gst_cugi_kernel_stop (GstBaseTransform *trans)
{
  GstCugiKernel *self = GST_CUGI_KERNEL (trans);
  /* The filter first: it waits for the work in flight. */
  gboolean stopped = GST_BASE_TRANSFORM_CLASS (gst_cugi_kernel_parent_class)->stop (trans);

  g_clear_object (&self->kernel);
  g_clear_pointer (&self->args, cugi_kernel_args_unref);
  g_clear_pointer (&self->config, cugi_launch_config_unref);
  g_clear_pointer (&self->kernel_source, g_free);
  return stopped;
}

/* ---- GObject --------------------------------------------------------------- */

static void
set_string (GstCugiKernel *self,
            gchar        **field,
            const GValue  *value)
{
  GST_OBJECT_LOCK (self);
  g_free (*field);
  *field = g_value_dup_string (value);
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cugi_kernel_set_property (GObject      *object,
                              guint         prop_id,
                              const GValue *value,
                              GParamSpec   *pspec)
{
  GstCugiKernel *self = GST_CUGI_KERNEL (object);

  switch (prop_id)
    {
    case PROP_SOURCE:
      set_string (self, &self->source, value);
      break;
    case PROP_LOCATION:
      set_string (self, &self->location, value);
      break;
    case PROP_KERNEL_NAME:
      set_string (self, &self->kernel_name, value);
      break;
    case PROP_PARAMETERS:
      GST_OBJECT_LOCK (self);
      g_array_set_size (self->parameters, 0);
      for (guint i = 0; i < gst_value_array_get_size (value); i++)
        {
          gfloat parameter = g_value_get_float (gst_value_array_get_value (value, i));

          g_array_append_val (self->parameters, parameter);
        }
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
gst_cugi_kernel_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  GstCugiKernel *self = GST_CUGI_KERNEL (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id)
    {
    case PROP_SOURCE:
      g_value_set_string (value, self->source);
      break;
    case PROP_LOCATION:
      g_value_set_string (value, self->location);
      break;
    case PROP_KERNEL_NAME:
      g_value_set_string (value, self->kernel_name);
      break;
    case PROP_PARAMETERS:
      for (guint i = 0; i < self->parameters->len; i++)
        {
          GValue parameter = G_VALUE_INIT;

          g_value_init (&parameter, G_TYPE_FLOAT);
          g_value_set_float (&parameter, g_array_index (self->parameters, gfloat, i));
          gst_value_array_append_and_take_value (value, &parameter);
        }
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cugi_kernel_finalize (GObject *object)
{
  GstCugiKernel *self = GST_CUGI_KERNEL (object);

  g_free (self->source);
  g_free (self->location);
  g_free (self->kernel_name);
  g_array_unref (self->parameters);

  G_OBJECT_CLASS (gst_cugi_kernel_parent_class)->finalize (object);
}

static void
gst_cugi_kernel_class_init (GstCugiKernelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  CugiGstFilterClass *filter_class = CUGI_GST_FILTER_CLASS (klass);
  gboolean formats_set;
  GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY;

  object_class->set_property = gst_cugi_kernel_set_property;
  object_class->get_property = gst_cugi_kernel_get_property;
  object_class->finalize = gst_cugi_kernel_finalize;

  properties[PROP_SOURCE] =
    g_param_spec_string ("source", "Source",
                         "The kernel's CUDA C++ source (or set location)",
                         NULL, flags);
  properties[PROP_LOCATION] =
    g_param_spec_string ("location", "Location",
                         "A .cu file with the kernel's CUDA C++ source (or set source): "
                         "a regular file of at most " G_STRINGIFY (GST_CUGI_MAX_SOURCE_MIB) " MiB",
                         NULL, flags);
  properties[PROP_KERNEL_NAME] =
    g_param_spec_string ("kernel-name", "Kernel name",
                         "The __global__ function to run on each frame (extern \"C\")",
                         NULL, flags);
  properties[PROP_PARAMETERS] =
    gst_param_spec_array ("parameters", "Parameters",
                          "Floats appended to each launch after the timestamp, e.g. \"<0.5, 2.0>\"",
                          g_param_spec_float ("parameter", "Parameter", "A float parameter",
                                              -G_MAXFLOAT, G_MAXFLOAT, 0.0f,
                                              G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS),
                          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gst_element_class_set_static_metadata (element_class, "cugi kernel", "Filter/Effect/Video/Hardware",
                                         "Runs a CUDA C++ kernel on each video frame, through cugi",
                                         "The cugi developers");
  formats_set = cugi_gst_filter_class_set_formats (filter_class, formats, NULL);
  g_assert (formats_set);

  trans_class->start = GST_DEBUG_FUNCPTR (gst_cugi_kernel_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_cugi_kernel_stop);
  filter_class->set_info = GST_DEBUG_FUNCPTR (gst_cugi_kernel_set_info);
  filter_class->transform_frame = GST_DEBUG_FUNCPTR (gst_cugi_kernel_transform_frame);
}

static void
gst_cugi_kernel_init (GstCugiKernel *self)
{
  self->parameters = g_array_new (FALSE, FALSE, sizeof (gfloat));
}
