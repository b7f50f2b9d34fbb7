/* gstcugikernel.c: a GStreamer element running a CUDA C++ kernel on frames
 *
 * cugikernel compiles a user's kernel with cugi (NVRTC, through cugi's disk
 * cache) when caps are set, and launches it once per frame:
 *
 * - in the CUDA context that its neighbours use, found through GStreamer's
 *   CUDA context negotiation and wrapped with
 *   cugi_context_new_for_handle_full(), which keeps the GstCudaContext alive;
 * - on CUDA memory (video/x-raw(memory:CUDAMemory)) without a copy: the
 *   device pointers of the input and output GstCudaMemory are wrapped as
 *   CugiBuffers, and the output comes from a GstCudaBufferPool;
 * - on system memory through pinned memory: upstream is offered a pool of
 *   pinned buffers (gstcugihostallocator.c), which reach the GPU by DMA;
 *   frames in other memory are first copied into pinned staging.
 *
 * Where the streaming thread waits for the frame's GPU work depends on
 * GStreamer's version. In 1.22, CUDA memory carries no stream or fence, so
 * every CUDA element hands on memory whose contents are complete: the thread
 * waits (cugi_stream_synchronize()) before pushing each frame. Since 1.24 a
 * GstCudaMemory carries a CUDA stream, and consumers synchronize with it
 * (gstcugistreams.c): the element works on the stream its pools share with
 * its neighbours, waits on the device for input on other streams, and
 * pushes CUDA memory on that stream without waiting. It still waits where
 * the input is system memory or CUDA memory on another stream or on none
 * (its producer may write that memory again once it is released), and
 * where the output is not CUDA memory on the work stream.
 * The wait also lets cugi drop what the finished work held; where there is
 * none, cugi checks every few dozen launches. No main loop is needed.
 *
 * See docs/gstreamer.md for the kernel signature and a walk-through.
 */
#include "gstcugikernel.h"

#include <cugi/cugi.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>
#include <gst/video/video.h>

#include "gstcugihostallocator.h"
#include "gstcugisourcefile.h"
#include "gstcugistreams.h"

GST_DEBUG_CATEGORY_STATIC (gst_cugi_kernel_debug);
#define GST_CAT_DEFAULT gst_cugi_kernel_debug

/* The formats of the kernel signatures (docs/gstreamer.md), in system memory. */
#define FORMATS "{ RGBA, BGRA, GRAY8, NV12 }"
/* Those of them offered in CUDA memory: the ones GstCudaAllocator can lay
 * out. Its switch (gst_cuda_allocator_alloc_internal() in 1.22,
 * gst_cuda_allocator_update_info() in 1.24 to 1.28) lists RGBA, BGRA and
 * NV12 in every version, GRAY8 in none: a GstCudaBufferPool for GRAY8 aborts
 * the process in 1.22 (g_assert_not_reached) and fails each allocation
 * later. nvcodec's cudaupload and cudadownload take no GRAY8 either. */
#define CUDA_FORMATS "{ RGBA, BGRA, NV12 }"
#define MAX_PLANES 2
#define BLOCK_SIZE 16
/* src, src_stride, dst, dst_stride per plane; then width, height, pts. */
#define PARAMS_PER_PLANE 4
#define FRAME_PARAMS 3

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
  GST_PAD_SINK, GST_PAD_ALWAYS,
  GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE_WITH_FEATURES (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, CUDA_FORMATS) ";"
                   GST_VIDEO_CAPS_MAKE (FORMATS)));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
  GST_PAD_SRC, GST_PAD_ALWAYS,
  GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE_WITH_FEATURES (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, CUDA_FORMATS) ";"
                   GST_VIDEO_CAPS_MAKE (FORMATS)));

/* One side (input or output) of the element for the current caps: where its
 * frames live and, for system memory, the device planes and pinned staging
 * they go through. */
typedef struct
{
  GstVideoInfo    info;
  gboolean        cuda_memory;                   /* caps say CUDA memory */
  guint           n_planes;
  gsize           row_bytes[MAX_PLANES];
  gsize           rows[MAX_PLANES];
  CugiBuffer     *scratch[MAX_PLANES];           /* device planes for system memory */
  CugiHostBuffer *staging[MAX_PLANES];           /* packed rows, for memory not pinned */
} Side;

/* One mapped frame and the device planes the kernel uses for it. */
typedef struct
{
  GstVideoFrame   frame;
  gboolean        mapped;
  gboolean        on_device;                     /* the frame's memory is CUDA memory */
  CugiHostBuffer *pinned;                        /* the frame's memory is ours, pinned */
  CugiBuffer     *planes[MAX_PLANES];
  gsize           pitches[MAX_PLANES];
} Frame;

struct _GstCugiKernel
{
  GstBaseTransform parent_instance;

  /* Properties, under the object lock. */
  gchar          *source;
  gchar          *location;
  gchar          *kernel_name;
  GArray         *parameters;                    /* of gfloat */
  gint            device_id;

  /* From start() to stop(). */
  GstCudaContext *cuda_context;
  CugiContext    *context;
  GstCugiStreams *streams;
  gchar          *kernel_source;
  GstAllocator   *host_allocator;

  /* From set_caps(). */
  GHashTable       *wrapped;   /* device address -> Wrapped */
  CugiKernel       *kernel;
  CugiLaunchConfig *config;
  CugiKernelArgs   *args;
  Side              in;
  Side              out;
};

G_DEFINE_FINAL_TYPE_WITH_CODE (GstCugiKernel, gst_cugi_kernel, GST_TYPE_BASE_TRANSFORM,
  GST_DEBUG_CATEGORY_INIT (gst_cugi_kernel_debug, "cugikernel", 0, "cugi kernel on frames"))

GST_ELEMENT_REGISTER_DEFINE (cugikernel, "cugikernel", GST_RANK_NONE, GST_TYPE_CUGI_KERNEL);

enum
{
  PROP_0,
  PROP_SOURCE,
  PROP_LOCATION,
  PROP_KERNEL_NAME,
  PROP_PARAMETERS,
  PROP_DEVICE_ID,
  PROP_CUGI_CONTEXT,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* ---- errors ---------------------------------------------------------------- */

/* An element error carrying cugi's message (which, for a compile error,
 * holds NVRTC's log), with what the element was doing as debug text. */
#define POST_CUGI_ERROR(self, error, doing) \
  GST_ELEMENT_ERROR ((self), LIBRARY, FAILED, ("%s", (error)->message), ("%s", (doing)))

/* ---- sides and frames ------------------------------------------------------ */

static void
side_clear (Side *side)
{
  for (guint i = 0; i < MAX_PLANES; i++)
    {
      g_clear_object (&side->scratch[i]);
      g_clear_object (&side->staging[i]);
    }
  memset (side, 0, sizeof *side);
}

/* Reads the caps of one side and, for system memory, makes its device
 * planes and pinned staging. */
static gboolean
side_setup (GstCugiKernel *self,
            Side          *side,
            GstCaps       *caps,
            GError       **error)
{
  GstCapsFeatures *features = gst_caps_get_features (caps, 0);

  side_clear (side);
  if (!gst_video_info_from_caps (&side->info, caps))
    {
      g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
                   "cugikernel cannot read the caps %" GST_PTR_FORMAT, caps);
      return FALSE;
    }
  side->cuda_memory = features != NULL &&
                      gst_caps_features_contains (features, GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);
  side->n_planes = GST_VIDEO_INFO_N_PLANES (&side->info);
  for (guint plane = 0; plane < side->n_planes; plane++)
    {
      /* In these formats, plane N starts with component N. */
      side->row_bytes[plane] = (gsize) GST_VIDEO_INFO_COMP_WIDTH (&side->info, plane) *
                               GST_VIDEO_INFO_COMP_PSTRIDE (&side->info, plane);
      side->rows[plane] = GST_VIDEO_INFO_COMP_HEIGHT (&side->info, plane);
      if (side->cuda_memory)
        continue;
      side->scratch[plane] = cugi_buffer_new_pitched (self->context, side->row_bytes[plane],
                                                      side->rows[plane], 4, error);
      if (side->scratch[plane] == NULL)
        return FALSE;
      side->staging[plane] = cugi_host_buffer_new (self->context,
                                                   side->row_bytes[plane] * side->rows[plane],
                                                   CUGI_HOST_BUFFER_FLAGS_NONE, error);
      if (side->staging[plane] == NULL)
        return FALSE;
    }
  return TRUE;
}

static void
frame_close (Frame *frame)
{
  for (guint i = 0; i < MAX_PLANES; i++)
    g_clear_object (&frame->planes[i]);
  if (frame->mapped)
    gst_video_frame_unmap (&frame->frame);
  frame->mapped = FALSE;
}

/* The device address of plane @plane of a frame mapped with GST_MAP_CUDA. */
static guint64
frame_plane_address (Frame *frame,
                     guint  plane)
{
  return (guint64) (guintptr) GST_VIDEO_FRAME_PLANE_DATA (&frame->frame, plane);
}

/* The CugiBuffers of one CUDA memory's planes. Pools hand the same few
 * memories round and round, so the element keeps these, by the memory's
 * device address: wrapping checks the memory with the driver, which is not
 * free, and a wrapper is a range of addresses, valid whenever the memory
 * behind it is mapped. */
typedef struct
{
  gsize       size;
  guint       n_planes;
  gsize       offsets[MAX_PLANES];
  gsize       pitches[MAX_PLANES];
  CugiBuffer *planes[MAX_PLANES];
} Wrapped;

/* Pools rarely hold more; past this the table starts afresh. */
#define MAX_WRAPPED 64

static void
wrapped_free (gpointer data)
{
  Wrapped *wrapped = data;

  for (guint i = 0; i < wrapped->n_planes; i++)
    g_clear_object (&wrapped->planes[i]);
  g_free (wrapped);
}

static gboolean
wrapped_matches (const Wrapped *wrapped,
                 gsize          size,
                 Frame         *frame,
                 const Side    *side,
                 guint64        base)
{
  if (wrapped == NULL || wrapped->size != size || wrapped->n_planes != side->n_planes)
    return FALSE;
  for (guint plane = 0; plane < side->n_planes; plane++)
    if (wrapped->offsets[plane] != frame_plane_address (frame, plane) - base ||
        wrapped->pitches[plane] != (gsize) GST_VIDEO_FRAME_PLANE_STRIDE (&frame->frame, plane))
      return FALSE;
  return TRUE;
}

/* Wraps the GstCudaMemory of a frame mapped with GST_MAP_CUDA, one
 * CugiBuffer per plane: the whole allocation, checked by cugi, then a view
 * per plane. They borrow the memory: the frame's mapping keeps it until
 * frame_close(), after the stream was synchronized or, where the memory
 * carries the work stream, after the work was enqueued on that stream,
 * which orders whatever its owner does with the memory next. */
static gboolean
frame_wrap_device_planes (GstCugiKernel *self,
                          Frame         *frame,
                          const Side    *side,
                          GError       **error)
{
  GstMemory *memory = gst_buffer_peek_memory (frame->frame.buffer, 0);
  guint64 base = (guint64) (guintptr) frame->frame.map[0].data - memory->offset;
  Wrapped *wrapped = g_hash_table_lookup (self->wrapped, &base);

  if (!wrapped_matches (wrapped, memory->maxsize, frame, side, base))
    {
      g_autoptr(CugiBuffer) whole = cugi_buffer_new_for_address (self->context, base, memory->maxsize, error);

      if (whole == NULL)
        return FALSE;
      wrapped = g_new0 (Wrapped, 1);
      wrapped->size = memory->maxsize;
      for (guint plane = 0; plane < side->n_planes; plane++)
        {
          gsize offset = frame_plane_address (frame, plane) - base;
          gsize pitch = GST_VIDEO_FRAME_PLANE_STRIDE (&frame->frame, plane);
          gsize size = pitch * (side->rows[plane] - 1) + side->row_bytes[plane];

          wrapped->offsets[plane] = offset;
          wrapped->pitches[plane] = pitch;
          wrapped->planes[plane] = offset == 0 && size == memory->maxsize
                                     ? g_object_ref (whole)
                                     : cugi_buffer_new_view (whole, offset, size, error);
          if (wrapped->planes[plane] == NULL)
            {
              wrapped_free (wrapped);
              return FALSE;
            }
          wrapped->n_planes++;
        }
      if (g_hash_table_size (self->wrapped) >= MAX_WRAPPED)
        g_hash_table_remove_all (self->wrapped);
      g_hash_table_insert (self->wrapped, g_memdup2 (&base, sizeof base), wrapped);
    }

  for (guint plane = 0; plane < side->n_planes; plane++)
    {
      frame->planes[plane] = g_object_ref (wrapped->planes[plane]);
      frame->pitches[plane] = wrapped->pitches[plane];
    }
  return TRUE;
}

/* Maps @buffer for the kernel: CUDA memory in place, system memory on the
 * host (the kernel then uses the side's device planes). */
static gboolean
frame_open (GstCugiKernel *self,
            Frame         *frame,
            const Side    *side,
            GstBuffer     *buffer,
            GstMapFlags    flags,
            GError       **error)
{
  GstMemory *first = gst_buffer_peek_memory (buffer, 0);

  memset (frame, 0, sizeof *frame);
  frame->on_device = side->cuda_memory && gst_buffer_n_memory (buffer) == 1 &&
                     gst_is_cuda_memory (first);
  if (frame->on_device)
    flags |= GST_MAP_CUDA;
  if (!gst_video_frame_map (&frame->frame, (GstVideoInfo *) &side->info, buffer, flags))
    {
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_FAILED,
                   "cugikernel could not map a frame of %" G_GSIZE_FORMAT " bytes",
                   gst_buffer_get_size (buffer));
      return FALSE;
    }
  frame->mapped = TRUE;

  if (frame->on_device)
    return frame_wrap_device_planes (self, frame, side, error);

  if (gst_buffer_n_memory (buffer) == 1)
    frame->pinned = gst_cugi_host_memory_get_buffer (first);
  for (guint plane = 0; plane < side->n_planes; plane++)
    {
      frame->planes[plane] = g_object_ref (side->scratch[plane]);
      frame->pitches[plane] = cugi_buffer_get_pitch (side->scratch[plane]);
    }
  return TRUE;
}

/* Where the rows of plane @plane of a system-memory frame are for a DMA:
 * in the frame's own pinned memory, else in the side's staging, packed. */
static gboolean
frame_host_plane (Frame           *frame,
                  const Side      *side,
                  guint            plane,
                  CugiHostBuffer **host,
                  gsize           *offset,
                  gsize           *pitch,
                  GError         **error)
{
  guint8 *base;

  if (frame->pinned == NULL)
    {
      *host = side->staging[plane];
      *offset = 0;
      *pitch = side->row_bytes[plane];
      return TRUE;
    }
  if ((base = cugi_host_buffer_get_data (frame->pinned, NULL, error)) == NULL)
    return FALSE;
  *host = frame->pinned;
  *offset = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame->frame, plane) - base;
  *pitch = GST_VIDEO_FRAME_PLANE_STRIDE (&frame->frame, plane);
  return TRUE;
}

/* Copies the rows of plane @plane between a frame in memory that is not
 * pinned and the side's staging, in the direction of the transfer. */
static gboolean
frame_stage_plane (Frame      *frame,
                   const Side *side,
                   guint       plane,
                   gboolean    to_device,
                   GError    **error)
{
  gsize stride = GST_VIDEO_FRAME_PLANE_STRIDE (&frame->frame, plane);
  gsize row_bytes = side->row_bytes[plane];
  guint8 *rows = GST_VIDEO_FRAME_PLANE_DATA (&frame->frame, plane);
  guint8 *staging = cugi_host_buffer_get_data (side->staging[plane], NULL, error);

  if (staging == NULL)
    return FALSE;
  for (gsize row = 0; row < side->rows[plane]; row++)
    {
      if (to_device)
        memcpy (staging + row * row_bytes, rows + row * stride, row_bytes);
      else
        memcpy (rows + row * stride, staging + row * row_bytes, row_bytes);
    }
  return TRUE;
}

/* Enqueues the copy of a system-memory input frame to the device: by DMA
 * from pinned memory, else through the side's pinned staging. */
static gboolean
frame_upload (GstCugiKernel *self,
              Frame         *frame,
              const Side    *side,
              GError       **error)
{
  for (guint plane = 0; plane < side->n_planes && !frame->on_device; plane++)
    {
      CugiHostBuffer *host;
      gsize host_offset, host_pitch;

      if ((frame->pinned == NULL && !frame_stage_plane (frame, side, plane, TRUE, error)) ||
          !frame_host_plane (frame, side, plane, &host, &host_offset, &host_pitch, error) ||
          !cugi_buffer_upload_2d_from_host (frame->planes[plane], 0, frame->pitches[plane],
                                            host, host_offset, host_pitch,
                                            side->row_bytes[plane], side->rows[plane],
                                            gst_cugi_streams_get_work (self->streams), error))
        return FALSE;
    }
  return TRUE;
}

/* Enqueues the copy of the kernel's output to a system-memory frame: by DMA
 * into pinned memory, else into the side's staging (see frame_finish()). */
static gboolean
frame_download (GstCugiKernel *self,
                Frame         *frame,
                const Side    *side,
                GError       **error)
{
  for (guint plane = 0; plane < side->n_planes && !frame->on_device; plane++)
    {
      CugiHostBuffer *host;
      gsize host_offset, host_pitch;

      if (!frame_host_plane (frame, side, plane, &host, &host_offset, &host_pitch, error) ||
          !cugi_buffer_download_2d_to_host (frame->planes[plane], 0, frame->pitches[plane],
                                            host, host_offset, host_pitch,
                                            side->row_bytes[plane], side->rows[plane],
                                            gst_cugi_streams_get_work (self->streams), error))
        return FALSE;
    }
  return TRUE;
}

/* After the stream was synchronized: rows from the staging into an output
 * frame that is not in pinned memory. */
static gboolean
frame_finish (Frame      *frame,
              const Side *side,
              GError    **error)
{
  if (frame->on_device || frame->pinned != NULL)
    return TRUE;
  for (guint plane = 0; plane < side->n_planes; plane++)
    if (!frame_stage_plane (frame, side, plane, FALSE, error))
      return FALSE;
  return TRUE;
}

/* ---- the kernel ------------------------------------------------------------ */

static guint
expected_param_count (GstCugiKernel *self,
                      guint          n_parameters)
{
  return self->in.n_planes * PARAMS_PER_PLANE + FRAME_PARAMS + n_parameters;
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
prepare_kernel (GstCugiKernel *self,
                GError       **error)
{
  GstVideoFormat format = GST_VIDEO_INFO_FORMAT (&self->in.info);
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
  self->kernel = cugi_kernel_new_from_source (self->context, self->kernel_source, kernel_name,
                                              options, error);
  if (self->kernel == NULL)
    return FALSE;

  /* cugi checks each launch's arguments against the kernel too; checking the
   * count here turns a wrong signature into an error before the first frame. */
  n_params = cugi_kernel_get_num_params (self->kernel);
  expected = expected_param_count (self, n_parameters);
  if (n_params >= 0 && (guint) n_params != expected)
    {
      g_set_error (error, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS,
                   "Kernel “%s” takes %d parameters, but for %s frames cugikernel passes %u: "
                   "%u for the planes, width, height and timestamp, then the %u of the "
                   "parameters property (see the kernel signature in docs/gstreamer.md)",
                   kernel_name, n_params, gst_video_format_to_string (format), expected,
                   expected - n_parameters, n_parameters);
      return FALSE;
    }

  cugi_launch_config_set_grid (self->config,
                               (GST_VIDEO_INFO_WIDTH (&self->in.info) + BLOCK_SIZE - 1) / BLOCK_SIZE,
                               (GST_VIDEO_INFO_HEIGHT (&self->in.info) + BLOCK_SIZE - 1) / BLOCK_SIZE, 1);
  return TRUE;
}

static gboolean
launch (GstCugiKernel *self,
        Frame         *in,
        Frame         *out,
        GstClockTime   timestamp,
        GError       **error)
{
  CugiKernelArgs *args = self->args;
  CugiStream *stream = gst_cugi_streams_get_work (self->streams);

  /* The work stream changes only where a new pool brought one. */
  if (cugi_launch_config_get_stream (self->config) != stream)
    cugi_launch_config_set_stream (self->config, stream);
  cugi_kernel_args_clear (args);
  for (guint plane = 0; plane < self->in.n_planes; plane++)
    {
      cugi_kernel_args_add_buffer (args, in->planes[plane]);
      cugi_kernel_args_add_int32 (args, in->pitches[plane]);
    }
  for (guint plane = 0; plane < self->out.n_planes; plane++)
    {
      cugi_kernel_args_add_buffer (args, out->planes[plane]);
      cugi_kernel_args_add_int32 (args, out->pitches[plane]);
    }
  cugi_kernel_args_add_int32 (args, GST_VIDEO_INFO_WIDTH (&self->in.info));
  cugi_kernel_args_add_int32 (args, GST_VIDEO_INFO_HEIGHT (&self->in.info));
  cugi_kernel_args_add_uint64 (args, timestamp);

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
  GstElement *element = GST_ELEMENT (trans);
  g_autoptr(GError) error = NULL;
  gint device_id;
  CUcontext handle;

  if (!read_kernel_source (self, &error))
    {
      /* What GST_ELEMENT_ERROR posts, in the error's own domain and code:
       * LIBRARY SETTINGS, or RESOURCE for the file location names. */
      gst_element_message_full (element, GST_MESSAGE_ERROR, error->domain, error->code,
                                g_strdup (error->message), g_strdup ("reading the kernel's properties"),
                                __FILE__, GST_FUNCTION, __LINE__);
      return FALSE;
    }

  /* cugi first: it reports a missing driver as an error, where GstCuda's
   * functions would abort in a process whose driver did not load. */
  if (!cugi_init (&error))
    {
      POST_CUGI_ERROR (self, error, "initializing cugi");
      return FALSE;
    }
  if (!gst_cuda_load_library ())
    {
      GST_ELEMENT_ERROR (self, LIBRARY, INIT,
                         ("GStreamer's CUDA library could not load the CUDA driver"),
                         ("gst_cuda_load_library() failed"));
      return FALSE;
    }
  gst_cuda_memory_init_once ();

  GST_OBJECT_LOCK (self);
  device_id = self->device_id;
  GST_OBJECT_UNLOCK (self);
  if (!gst_cuda_ensure_element_context (element, device_id, &self->cuda_context))
    {
      GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
                         ("No CUDA context for device %d", device_id),
                         ("gst_cuda_ensure_element_context() failed"));
      return FALSE;
    }

  /* The very CUcontext of the neighbours; the wrapper holds the
   * GstCudaContext until cugi no longer needs the handle. */
  handle = gst_cuda_context_get_handle (self->cuda_context);
  self->context = cugi_context_new_for_handle_full ((guint64) (guintptr) handle,
                                                    gst_object_ref (self->cuda_context),
                                                    gst_object_unref, &error);
  if (self->context == NULL ||
      (self->streams = gst_cugi_streams_new (self->cuda_context, self->context, &error)) == NULL)
    {
      POST_CUGI_ERROR (self, error, "wrapping the pipeline's CUDA context");
      return FALSE;
    }
  self->host_allocator = gst_cugi_host_allocator_new (self->context);
  self->config = cugi_launch_config_new (1, BLOCK_SIZE);
  cugi_launch_config_set_block (self->config, BLOCK_SIZE, BLOCK_SIZE, 1);
  self->args = cugi_kernel_args_new ();
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CUGI_CONTEXT]);
  return TRUE;
}

static gboolean
gst_cugi_kernel_stop (GstBaseTransform *trans)
{
  GstCugiKernel *self = GST_CUGI_KERNEL (trans);

  /* First the work in flight, which what follows may still serve. */
  g_clear_pointer (&self->streams, gst_cugi_streams_free);
  g_hash_table_remove_all (self->wrapped);
  side_clear (&self->in);
  side_clear (&self->out);
  g_clear_object (&self->kernel);
  g_clear_pointer (&self->args, cugi_kernel_args_unref);
  g_clear_pointer (&self->config, cugi_launch_config_unref);
  g_clear_pointer (&self->kernel_source, g_free);
  gst_clear_object (&self->host_allocator);
  g_clear_object (&self->context);
  gst_clear_object (&self->cuda_context);
  return TRUE;
}

static void
gst_cugi_kernel_set_context (GstElement *element,
                             GstContext *context)
{
  GstCugiKernel *self = GST_CUGI_KERNEL (element);
  gint device_id;

  GST_OBJECT_LOCK (self);
  device_id = self->device_id;
  GST_OBJECT_UNLOCK (self);
  gst_cuda_handle_set_context (element, context, device_id, &self->cuda_context);

  GST_ELEMENT_CLASS (gst_cugi_kernel_parent_class)->set_context (element, context);
}

static gboolean
gst_cugi_kernel_query (GstBaseTransform *trans,
                       GstPadDirection   direction,
                       GstQuery         *query)
{
  GstCugiKernel *self = GST_CUGI_KERNEL (trans);

  if (GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT &&
      gst_cuda_handle_context_query (GST_ELEMENT (self), query, self->cuda_context))
    return TRUE;

  return GST_BASE_TRANSFORM_CLASS (gst_cugi_kernel_parent_class)->query (trans, direction, query);
}

/* The same formats and sizes on the other side, in CUDA or system memory:
 * the kernel may also move frames between the two. CUDA memory comes first,
 * so that neighbours that offer both (cudaupload, cudadownload) pick it and
 * frames stay on the GPU. GstBaseTransform keeps of these what the pad
 * templates allow: GRAY8, say, only in system memory. */
static GstCaps *
gst_cugi_kernel_transform_caps (GstBaseTransform *trans,
                                GstPadDirection   direction,
                                GstCaps          *caps,
                                GstCaps          *filter)
{
  GstCaps *result = gst_caps_new_empty ();

  for (guint i = 0; i < gst_caps_get_size (caps); i++)
    {
      GstStructure *structure = gst_caps_get_structure (caps, i);
      GstCapsFeatures *features = gst_caps_get_features (caps, i);
      const gchar *order[] = { GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY };

      if (!gst_caps_features_contains (features, GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY) &&
          !gst_caps_features_is_equal (features, GST_CAPS_FEATURES_MEMORY_SYSTEM_MEMORY))
        continue;
      for (guint j = 0; j < G_N_ELEMENTS (order); j++)
        result = gst_caps_merge_structure_full (result, gst_structure_copy (structure),
                                                gst_caps_features_new (order[j], NULL));
    }

  if (filter != NULL)
    {
      GstCaps *filtered = gst_caps_intersect_full (filter, result, GST_CAPS_INTERSECT_FIRST);

      gst_caps_unref (result);
      result = filtered;
    }
  GST_DEBUG_OBJECT (trans, "%" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT, caps, result);
  return result;
}

/* Frames stay on the GPU where the other side takes CUDA memory too:
 * cudadownload, say, which would otherwise pass system memory through and
 * leave the download to this element. */
static GstCaps *
gst_cugi_kernel_fixate_caps (GstBaseTransform *trans,
                             GstPadDirection   direction,
                             GstCaps          *caps,
                             GstCaps          *othercaps)
{
  GstCaps *on_gpu = gst_caps_new_empty ();

  for (guint i = 0; i < gst_caps_get_size (othercaps); i++)
    if (gst_caps_features_contains (gst_caps_get_features (othercaps, i), GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY))
      on_gpu = gst_caps_merge_structure_full (on_gpu, gst_structure_copy (gst_caps_get_structure (othercaps, i)),
                                              gst_caps_features_copy (gst_caps_get_features (othercaps, i)));
  if (gst_caps_is_empty (on_gpu))
    gst_caps_unref (on_gpu);
  else
    gst_caps_take (&othercaps, on_gpu);

  return GST_BASE_TRANSFORM_CLASS (gst_cugi_kernel_parent_class)->fixate_caps (trans, direction, caps, othercaps);
}

static gboolean
gst_cugi_kernel_set_caps (GstBaseTransform *trans,
                          GstCaps          *incaps,
                          GstCaps          *outcaps)
{
  GstCugiKernel *self = GST_CUGI_KERNEL (trans);
  g_autoptr(GError) error = NULL;

  g_hash_table_remove_all (self->wrapped);
  if (!side_setup (self, &self->in, incaps, &error) ||
      !side_setup (self, &self->out, outcaps, &error))
    {
      POST_CUGI_ERROR (self, error, "setting up for the caps");
      return FALSE;
    }
  if (!prepare_kernel (self, &error))
    {
      POST_CUGI_ERROR (self, error, "compiling and loading the kernel");
      return FALSE;
    }
  return TRUE;
}

/* Sets @pool up for @caps, in @allocator's memory if given; a
 * GstCudaBufferPool shares a stream with the element (gstcugistreams.c).
 * FALSE if the pool refuses (it is in use, say). */
static gboolean
configure_pool (GstCugiKernel *self,
                GstBufferPool *pool,
                GstCaps       *caps,
                guint          size,
                guint          min,
                guint          max,
                GstAllocator  *allocator)
{
  GstStructure *config = gst_buffer_pool_get_config (pool);

  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  gst_buffer_pool_config_set_params (config, caps, size, min, max);
  if (allocator != NULL)
    gst_buffer_pool_config_set_allocator (config, allocator, NULL);
  if (GST_IS_CUDA_BUFFER_POOL (pool))
    gst_cugi_streams_share (self->streams, config);
  return gst_buffer_pool_set_config (pool, config);
}

/* A pool for @caps: a GstCudaBufferPool in the element's context for CUDA
 * memory, else a video pool of pinned memory. */
static GstBufferPool *
new_pool (GstCugiKernel *self,
          GstCaps       *caps,
          guint          min,
          guint          max,
          guint         *size)
{
  GstCapsFeatures *features = gst_caps_get_features (caps, 0);
  gboolean cuda = gst_caps_features_contains (features, GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);
  GstBufferPool *pool;
  GstStructure *config;
  GstVideoInfo info;

  if (!gst_video_info_from_caps (&info, caps))
    return NULL;
  pool = cuda ? gst_cuda_buffer_pool_new (self->cuda_context) : gst_video_buffer_pool_new ();
  if (!configure_pool (self, pool, caps, GST_VIDEO_INFO_SIZE (&info), min, max,
                       cuda ? NULL : self->host_allocator))
    {
      gst_object_unref (pool);
      return NULL;
    }
  /* A GstCudaBufferPool pads rows to the device's pitch: read the size back. */
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_get_params (config, NULL, size, NULL, NULL);
  gst_structure_free (config);
  return pool;
}

static gboolean
gst_cugi_kernel_propose_allocation (GstBaseTransform *trans,
                                    GstQuery         *decide_query,
                                    GstQuery         *query)
{
  GstCugiKernel *self = GST_CUGI_KERNEL (trans);
  GstCaps *caps = NULL;
  GstBufferPool *pool;
  guint size = 0;

  gst_query_parse_allocation (query, &caps, NULL);
  if (caps == NULL || self->context == NULL)
    return FALSE;

  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  if (gst_query_get_n_allocation_pools (query) > 0)
    return TRUE;
  if ((pool = new_pool (self, caps, 0, 0, &size)) == NULL)
    return FALSE;
  gst_query_add_allocation_pool (query, pool, size, 0, 0);
  if (!gst_caps_features_contains (gst_caps_get_features (caps, 0), GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY))
    gst_query_add_allocation_param (query, self->host_allocator, NULL);
  gst_object_unref (pool);
  return TRUE;
}

/* Downstream's pool where it fits (CUDA memory of our context, or any
 * system-memory pool), else a pool of ours. Not chained up: GstBaseTransform
 * would give our pinned pool downstream's allocator. */
static gboolean
gst_cugi_kernel_decide_allocation (GstBaseTransform *trans,
                                   GstQuery         *query)
{
  GstCugiKernel *self = GST_CUGI_KERNEL (trans);
  GstBufferPool *pool = NULL;
  GstCaps *caps = NULL;
  guint size = 0, min = 0, max = 0;
  gboolean update = gst_query_get_n_allocation_pools (query) > 0;

  gst_query_parse_allocation (query, &caps, NULL);
  if (caps == NULL)
    return FALSE;

  if (update)
    gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min, &max);
  if (pool != NULL &&
      (self->out.cuda_memory
         ? !(GST_IS_CUDA_BUFFER_POOL (pool) && GST_CUDA_BUFFER_POOL (pool)->context == self->cuda_context)
         : GST_IS_CUDA_BUFFER_POOL (pool)))
    gst_clear_object (&pool);
  if (pool != NULL && !configure_pool (self, pool, caps, size, min, max, NULL))
    gst_clear_object (&pool);
  if (pool == NULL && (pool = new_pool (self, caps, min, max, &size)) == NULL)
    {
      GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, ("cugikernel could not set up a buffer pool"),
                         ("caps %" GST_PTR_FORMAT, caps));
      return FALSE;
    }

  if (update)
    gst_query_set_nth_allocation_pool (query, 0, pool, size, min, max);
  else
    gst_query_add_allocation_pool (query, pool, size, min, max);
  gst_object_unref (pool);
  return TRUE;
}

static GstFlowReturn
gst_cugi_kernel_transform (GstBaseTransform *trans,
                           GstBuffer        *inbuf,
                           GstBuffer        *outbuf)
{
  GstCugiKernel *self = GST_CUGI_KERNEL (trans);
  g_autoptr(GError) error = NULL;
  Frame in = { 0 }, out = { 0 };
  GstMemory *out_memory = NULL;
  gboolean ok, in_on_work = FALSE, must_wait;

  /* Each step logged (GST_DEBUG=cugikernel:6), so that where a frame's time
   * goes can be read off the log's timestamps. */
  ok = frame_open (self, &in, &self->in, inbuf, GST_MAP_READ, &error) &&
       frame_open (self, &out, &self->out, outbuf, GST_MAP_WRITE, &error);
  GST_LOG_OBJECT (self, "frames mapped");
  if (ok && out.on_device)
    out_memory = gst_buffer_peek_memory (outbuf, 0);
  ok = ok && gst_cugi_streams_wait_for_input (self->streams,
                                              in.on_device ? gst_buffer_peek_memory (inbuf, 0) : NULL,
                                              &in_on_work, &error) &&
       frame_upload (self, &in, &self->in, &error) &&
       launch (self, &in, &out, GST_BUFFER_PTS (inbuf), &error) &&
       frame_download (self, &out, &self->out, &error);
  GST_LOG_OBJECT (self, "work enqueued");
  /* Here the streaming thread may wait: see the top of this file. */
  must_wait = !in_on_work || out_memory == NULL ||
              !gst_cugi_streams_carries_work (self->streams, out_memory);
  ok = ok && (!must_wait || cugi_stream_synchronize (gst_cugi_streams_get_work (self->streams), &error));
  GST_LOG_OBJECT (self, must_wait ? "work done" : "work left on the stream");
  if (ok && out_memory != NULL)
    gst_cugi_streams_mark_output (self->streams, out_memory, must_wait);
  ok = ok && frame_finish (&out, &self->out, &error);

  frame_close (&out);
  frame_close (&in);
  GST_LOG_OBJECT (self, "frames unmapped");
  if (!ok)
    {
      POST_CUGI_ERROR (self, error, "running the kernel on a frame");
      return GST_FLOW_ERROR;
    }
  return GST_FLOW_OK;
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
    case PROP_DEVICE_ID:
      GST_OBJECT_LOCK (self);
      self->device_id = g_value_get_int (value);
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
    case PROP_DEVICE_ID:
      g_value_set_int (value, self->device_id);
      break;
    case PROP_CUGI_CONTEXT:
      g_value_set_object (value, self->context);
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
  g_hash_table_unref (self->wrapped);

  G_OBJECT_CLASS (gst_cugi_kernel_parent_class)->finalize (object);
}

static void
gst_cugi_kernel_class_init (GstCugiKernelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
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
  properties[PROP_DEVICE_ID] =
    g_param_spec_int ("device-id", "Device ID",
                      "The CUDA device to run on, as nvcodec's cuda-device-id (-1: any, "
                      "that of the neighbours' context if there is one)",
                      -1, G_MAXINT, -1, flags);
  properties[PROP_CUGI_CONTEXT] =
    g_param_spec_object ("cugi-context", "cugi context",
                         "The CugiContext the kernel runs in: the pipeline's CUDA context, "
                         "wrapped (NULL while stopped)",
                         CUGI_TYPE_CONTEXT, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gst_element_class_set_static_metadata (element_class, "cugi kernel", "Filter/Effect/Video/Hardware",
                                         "Runs a CUDA C++ kernel on each video frame, through cugi",
                                         "The cugi developers");
  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  element_class->set_context = GST_DEBUG_FUNCPTR (gst_cugi_kernel_set_context);

  trans_class->passthrough_on_same_caps = FALSE;
  trans_class->start = GST_DEBUG_FUNCPTR (gst_cugi_kernel_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_cugi_kernel_stop);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_cugi_kernel_query);
  trans_class->transform_caps = GST_DEBUG_FUNCPTR (gst_cugi_kernel_transform_caps);
  trans_class->fixate_caps = GST_DEBUG_FUNCPTR (gst_cugi_kernel_fixate_caps);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_cugi_kernel_set_caps);
  trans_class->propose_allocation = GST_DEBUG_FUNCPTR (gst_cugi_kernel_propose_allocation);
  trans_class->decide_allocation = GST_DEBUG_FUNCPTR (gst_cugi_kernel_decide_allocation);
  trans_class->transform = GST_DEBUG_FUNCPTR (gst_cugi_kernel_transform);
}

static void
gst_cugi_kernel_init (GstCugiKernel *self)
{
  self->parameters = g_array_new (FALSE, FALSE, sizeof (gfloat));
  self->wrapped = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, wrapped_free);
  self->device_id = -1;
}
