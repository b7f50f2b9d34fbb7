/* cugi-gst-filter.c: a base class for GStreamer video filters that run cugi
 * work on each frame
 *
 * A subclass names its formats and enqueues its work on frames whose planes
 * are CugiBuffers; the filter does what GStreamer's CUDA elements do around
 * it:
 *
 * - the CUDA context is negotiated with the neighbours (cugi-gst-context.c)
 *   and wrapped as a CugiContext;
 * - CUDA memory (video/x-raw(memory:CUDAMemory)) is used in place: the
 *   planes are views of the frame's GstCudaMemory, kept by the memory's
 *   device address, since pools hand the same few memories round and
 *   wrapping checks each with the driver;
 * - system memory goes through device planes the filter keeps for the caps:
 *   upstream is offered pinned memory (cugi-gst-host-allocator.c), which
 *   reaches the GPU by DMA; other memory is first copied into pinned
 *   staging;
 * - the work is enqueued on one stream shared with the neighbours' pools
 *   (cugi-gst-streams.c).
 *
 * Where the streaming thread waits for the frame's work depends on
 * GStreamer's version. In 1.22, CUDA memory carries no stream, so every CUDA
 * element hands on memory whose contents are complete: the thread waits
 * before pushing each frame. Since 1.24 a GstCudaMemory carries a stream and
 * consumers synchronize with it: the filter waits on the device for input on
 * other streams and pushes CUDA memory on its stream without waiting. It
 * still waits where the input is CUDA memory on another stream or on none
 * (its producer may write that memory again once it is released), and
 * where the output is not CUDA memory on the work stream. For input in
 * system memory and such an output it waits for the upload alone, not for
 * the subclass's work after it.
 */
#include <glib/gi18n-lib.h>

#include "cugi-gst-private.h"

#include <gst/cuda/gstcudabufferpool.h>

GST_DEBUG_CATEGORY_STATIC (cugi_gst_filter_debug);
#define GST_CAT_DEFAULT cugi_gst_filter_debug

/* One side (input or output) of the filter for the current caps: where its
 * frames live and, for system memory, the device planes and pinned staging
 * they go through. */
typedef struct
{
  GstVideoInfo    info;
  CugiGstMemoryKind memory;                           /* the memory the caps say */
  guint           n_planes;
  gsize           row_bytes[GST_VIDEO_MAX_PLANES];
  guint           rows[GST_VIDEO_MAX_PLANES];
  CugiBuffer     *scratch[GST_VIDEO_MAX_PLANES];      /* device planes for system and GL memory */
  CugiHostBuffer *staging[GST_VIDEO_MAX_PLANES];      /* packed rows, for system memory not pinned */
  CugiGstFrame   *spare;                              /* the last frame handed, if nobody kept it */
} Side;

/* One buffer mapped for the subclass, and its planes. */
typedef struct
{
  GstVideoFrame   frame;
  gboolean        mapped;
  CugiGstMemoryKind kind;                             /* where the frame is */
  CugiHostBuffer *pinned;                             /* the memory is ours, pinned */
  CugiBuffer     *planes[GST_VIDEO_MAX_PLANES];
  gsize           pitches[GST_VIDEO_MAX_PLANES];
  CugiGstFrame   *handed;                             /* what the subclass sees */
} Mapping;

/* The CugiBuffers of one CUDA memory's planes, by the memory's address. */
typedef struct
{
  gsize       size;
  guint       n_planes;
  gsize       offsets[GST_VIDEO_MAX_PLANES];
  gsize       pitches[GST_VIDEO_MAX_PLANES];
  CugiBuffer *planes[GST_VIDEO_MAX_PLANES];
} Wrapped;

/* Pools rarely hold more; past this the table starts afresh. */
#define MAX_WRAPPED 64

typedef struct
{
  /* Under the object lock. */
  gint            device_id;
  guint64         frames;             /* since start(), as are the times */
  GstClockTime    processing_time;    /* in transform(), the waits included */
  GstClockTime    gpu_wait_time;      /* blocked there until the GPU was done */

  /* From start() to stop(). */
  CugiContext    *context;
  GstCudaContext *cuda_context;
  CugiGstStreams *streams;
  GstAllocator   *host_allocator;

  /* From init: GL's display and context are negotiated before start(). */
  CugiGstGl      *gl;

  /* From set_caps(). */
  GHashTable     *wrapped;   /* device address -> Wrapped */
  Side            in;
  Side            out;
} CugiGstFilterPrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_CODE (CugiGstFilter, cugi_gst_filter, GST_TYPE_BASE_TRANSFORM,
  G_ADD_PRIVATE (CugiGstFilter)
  GST_DEBUG_CATEGORY_INIT (cugi_gst_filter_debug, "cugigstfilter", 0, "cugi filters"))

enum
{
  PROP_0,
  PROP_DEVICE_ID,
  PROP_CUGI_CONTEXT,
  PROP_STATS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

#define PRIV(self) ((CugiGstFilterPrivate *) cugi_gst_filter_get_instance_private (self))

/* An element error carrying @error's message, with what the filter was
 * doing as debug text. */
static void
post_error (CugiGstFilter *self,
            const GError  *error,
            const gchar   *doing)
{
  GST_ELEMENT_ERROR (self, LIBRARY, FAILED, ("%s", error->message), ("%s", doing));
}

/* A subclass's virtual method failed: with its error, else (a binding that
 * returned FALSE and set none) one naming the method. */
static void
post_subclass_error (CugiGstFilter *self,
                     const GError  *error,
                     const gchar   *method)
{
  g_autoptr(GError) missing = NULL;

  if (error == NULL)
    error = missing = g_error_new (CUGI_ERROR, CUGI_ERROR_FAILED,
                                   _("%s's %s() failed without saying why"),
                                   G_OBJECT_TYPE_NAME (self), method);
  post_error (self, error, method);
}

/* ---- sides ----------------------------------------------------------------- */

static void
side_clear (Side *side)
{
  for (guint i = 0; i < GST_VIDEO_MAX_PLANES; i++)
    {
      g_clear_object (&side->scratch[i]);
      g_clear_object (&side->staging[i]);
    }
  g_clear_object (&side->spare);
  memset (side, 0, sizeof *side);
}

/* Reads the caps of one side and, for system memory, makes its device
 * planes and pinned staging. */
static gboolean
side_setup (CugiGstFilter *self,
            Side          *side,
            GstCaps       *caps,
            GError       **error)
{
  CugiGstFilterPrivate *priv = PRIV (self);
  GstCapsFeatures *features = gst_caps_get_features (caps, 0);

  side_clear (side);
  if (!gst_video_info_from_caps (&side->info, caps))
    {
      g_autofree gchar *description = gst_caps_to_string (caps);

      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("the caps describe no raw video: %s"), description);
      return FALSE;
    }
  if (!cugi_gst_frame_check_layout (&side->info, side->row_bytes, side->rows, error))
    return FALSE;
  side->memory = cugi_gst_caps_memory_kind (features);
  if (side->memory == CUGI_GST_MEMORY_KIND_GL && !cugi_gst_gl_ensure (priv->gl, GST_ELEMENT (self), error))
    return FALSE;
  side->n_planes = GST_VIDEO_INFO_N_PLANES (&side->info);
  for (guint plane = 0; plane < side->n_planes && side->memory != CUGI_GST_MEMORY_KIND_CUDA; plane++)
    {
      side->scratch[plane] = cugi_buffer_new_pitched (priv->context, side->row_bytes[plane],
                                                      side->rows[plane], 4, error);
      if (side->scratch[plane] == NULL)
        return FALSE;
      if (side->memory == CUGI_GST_MEMORY_KIND_GL)
        continue;
      side->staging[plane] = cugi_host_buffer_new (priv->context,
                                                   side->row_bytes[plane] * side->rows[plane],
                                                   CUGI_HOST_BUFFER_FLAGS_NONE, error);
      if (side->staging[plane] == NULL)
        return FALSE;
    }
  return TRUE;
}

/* ---- CUDA memory ----------------------------------------------------------- */

static void
wrapped_free (gpointer data)
{
  Wrapped *wrapped = data;

  for (guint i = 0; i < wrapped->n_planes; i++)
    g_clear_object (&wrapped->planes[i]);
  g_free (wrapped);
}

static guint64
plane_address (Mapping *mapping,
               guint    plane)
{
  return (guint64) (guintptr) GST_VIDEO_FRAME_PLANE_DATA (&mapping->frame, plane);
}

static gboolean
wrapped_matches (const Wrapped *wrapped,
                 gsize          size,
                 Mapping       *mapping,
                 const Side    *side,
                 guint64        base)
{
  if (wrapped == NULL || wrapped->size != size || wrapped->n_planes != side->n_planes)
    return FALSE;
  for (guint plane = 0; plane < side->n_planes; plane++)
    if (wrapped->offsets[plane] != plane_address (mapping, plane) - base ||
        wrapped->pitches[plane] != (gsize) GST_VIDEO_FRAME_PLANE_STRIDE (&mapping->frame, plane))
      return FALSE;
  return TRUE;
}

/* The planes of a frame mapped with GST_MAP_CUDA: views of the whole
 * allocation, checked by cugi. They borrow the memory: the mapping keeps it
 * until mapping_close(), after the stream was synchronized or, where the
 * memory carries the work stream, after the work was enqueued on it, which
 * orders whatever its owner does with the memory next. */
static gboolean
mapping_wrap_device_planes (CugiGstFilter *self,
                            Mapping       *mapping,
                            const Side    *side,
                            GError       **error)
{
  CugiGstFilterPrivate *priv = PRIV (self);
  GstMemory *memory = gst_buffer_peek_memory (mapping->frame.buffer, 0);
  guint64 base = (guint64) (guintptr) mapping->frame.map[0].data - memory->offset;
  Wrapped *wrapped = g_hash_table_lookup (priv->wrapped, &base);

  if (!wrapped_matches (wrapped, memory->maxsize, mapping, side, base))
    {
      g_autoptr(CugiBuffer) whole = cugi_buffer_new_for_address (priv->context, base, memory->maxsize, error);

      if (whole == NULL)
        return FALSE;
      wrapped = g_new0 (Wrapped, 1);
      wrapped->size = memory->maxsize;
      for (guint plane = 0; plane < side->n_planes; plane++)
        {
          gsize offset = plane_address (mapping, plane) - base;
          gsize pitch = GST_VIDEO_FRAME_PLANE_STRIDE (&mapping->frame, plane);
          gsize size = pitch * (side->rows[plane] - 1) + side->row_bytes[plane];

          if (pitch < side->row_bytes[plane])
            {
              g_set_error (error, CUGI_ERROR, CUGI_ERROR_NOT_SUPPORTED,
                           _("plane %u of the frame has a stride of %d bytes, less than the %zu bytes of its rows of pixels"),
                           plane, GST_VIDEO_FRAME_PLANE_STRIDE (&mapping->frame, plane), side->row_bytes[plane]);
              wrapped_free (wrapped);
              return FALSE;
            }
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
      if (g_hash_table_size (priv->wrapped) >= MAX_WRAPPED)
        g_hash_table_remove_all (priv->wrapped);
      g_hash_table_insert (priv->wrapped, g_memdup2 (&base, sizeof base), wrapped);
    }

  for (guint plane = 0; plane < side->n_planes; plane++)
    {
      mapping->planes[plane] = g_object_ref (wrapped->planes[plane]);
      mapping->pitches[plane] = wrapped->pitches[plane];
    }
  return TRUE;
}

/* ---- mappings -------------------------------------------------------------- */

static void
mapping_close (Mapping *mapping,
               Side    *side)
{
  if (mapping->handed != NULL)
    {
      cugi_gst_frame_end_borrowed (mapping->handed);
      /* Bound again for the next frame, unless the subclass kept it. */
      if (side->spare == NULL && cugi_gst_frame_recycle (mapping->handed))
        side->spare = g_steal_pointer (&mapping->handed);
    }
  g_clear_object (&mapping->handed);
  for (guint i = 0; i < GST_VIDEO_MAX_PLANES; i++)
    g_clear_object (&mapping->planes[i]);
  if (mapping->mapped)
    gst_video_frame_unmap (&mapping->frame);
  mapping->mapped = FALSE;
}

/* Maps @buffer for the subclass: CUDA memory in place, GL memory as its
 * textures, system memory on the host (the subclass then sees the side's
 * device planes for both). */
static gboolean
mapping_open (CugiGstFilter   *self,
              Mapping         *mapping,
              Side            *side,
              GstBuffer       *buffer,
              CugiGstMapFlags  flags,
              GError         **error)
{
  CugiGstFilterPrivate *priv = PRIV (self);
  GstMemory *first = gst_buffer_peek_memory (buffer, 0);
  GstMapFlags map_flags = ((flags & CUGI_GST_MAP_FLAGS_READ) ? GST_MAP_READ : 0) |
                          ((flags & CUGI_GST_MAP_FLAGS_WRITE) ? GST_MAP_WRITE : 0);

  memset (mapping, 0, sizeof *mapping);
  if (side->memory == CUGI_GST_MEMORY_KIND_CUDA && gst_buffer_n_memory (buffer) == 1 && gst_is_cuda_memory (first))
    {
      mapping->kind = CUGI_GST_MEMORY_KIND_CUDA;
      map_flags |= GST_MAP_CUDA;
    }
  else if (side->memory == CUGI_GST_MEMORY_KIND_GL)
    {
      mapping->kind = CUGI_GST_MEMORY_KIND_GL;
      map_flags |= GST_MAP_GL;
    }
  else
    mapping->kind = CUGI_GST_MEMORY_KIND_SYSTEM;
  if (!gst_video_frame_map (&mapping->frame, (GstVideoInfo *) &side->info, buffer, map_flags))
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("the buffer of %zu bytes does not hold a %s frame of %u×%u pixels"),
                   gst_buffer_get_size (buffer),
                   gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (&side->info)),
                   (guint) GST_VIDEO_INFO_WIDTH (&side->info), (guint) GST_VIDEO_INFO_HEIGHT (&side->info));
      return FALSE;
    }
  mapping->mapped = TRUE;

  if (mapping->kind == CUGI_GST_MEMORY_KIND_CUDA)
    {
      if (!mapping_wrap_device_planes (self, mapping, side, error))
        return FALSE;
    }
  else
    {
      if (mapping->kind == CUGI_GST_MEMORY_KIND_SYSTEM && gst_buffer_n_memory (buffer) == 1)
        mapping->pinned = cugi_gst_host_memory_get_buffer (first);
      for (guint plane = 0; plane < side->n_planes; plane++)
        {
          mapping->planes[plane] = g_object_ref (side->scratch[plane]);
          mapping->pitches[plane] = cugi_buffer_get_pitch (side->scratch[plane]);
        }
    }
  mapping->handed = cugi_gst_frame_new_borrowed (g_steal_pointer (&side->spare), buffer, &side->info, flags,
                                                 mapping->kind, priv->context, cugi_gst_streams_get_work (priv->streams),
                                                 mapping->planes, mapping->pitches);
  return TRUE;
}

/* Where the rows of plane @plane of a system-memory frame are for a DMA:
 * in the frame's own pinned memory, else in the side's staging, packed. */
static gboolean
mapping_host_plane (Mapping         *mapping,
                    const Side      *side,
                    guint            plane,
                    CugiHostBuffer **host,
                    gsize           *offset,
                    gsize           *pitch,
                    GError         **error)
{
  guint8 *base;

  if (mapping->pinned == NULL)
    {
      *host = side->staging[plane];
      *offset = 0;
      *pitch = side->row_bytes[plane];
      return TRUE;
    }
  if ((base = cugi_host_buffer_get_data (mapping->pinned, NULL, error)) == NULL)
    return FALSE;
  *host = mapping->pinned;
  *offset = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&mapping->frame, plane) - base;
  *pitch = GST_VIDEO_FRAME_PLANE_STRIDE (&mapping->frame, plane);
  return TRUE;
}

/* Copies the rows of plane @plane between a frame in memory that is not
 * pinned and the side's staging, in the direction of the transfer. */
static gboolean
mapping_stage_plane (Mapping    *mapping,
                     const Side *side,
                     guint       plane,
                     gboolean    to_device,
                     GError    **error)
{
  gsize stride = GST_VIDEO_FRAME_PLANE_STRIDE (&mapping->frame, plane);
  gsize row_bytes = side->row_bytes[plane];
  guint8 *rows = GST_VIDEO_FRAME_PLANE_DATA (&mapping->frame, plane);
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

/* Enqueues the copy of a frame in system or GL memory between where it is
 * and its device planes: for GL memory on the GPU from or into its
 * textures (cugi-gst-gl.c); for system memory by DMA from or into pinned
 * memory, else through the side's pinned staging (filled now for an upload,
 * emptied by mapping_finish() after a download). */
static gboolean
mapping_transfer (CugiGstFilter *self,
                  Mapping       *mapping,
                  const Side    *side,
                  gboolean       to_device,
                  GError       **error)
{
  CugiGstFilterPrivate *priv = PRIV (self);
  CugiStream *stream = cugi_gst_streams_get_work (priv->streams);

  if (mapping->kind == CUGI_GST_MEMORY_KIND_GL)
    return cugi_gst_gl_transfer (priv->gl, &mapping->frame, priv->context, mapping->planes, mapping->pitches,
                                 side->row_bytes, side->rows, to_device, stream, error);
  for (guint plane = 0; plane < side->n_planes && mapping->kind == CUGI_GST_MEMORY_KIND_SYSTEM; plane++)
    {
      CugiHostBuffer *host;
      gsize host_offset, host_pitch;

      if (to_device && mapping->pinned == NULL &&
          !mapping_stage_plane (mapping, side, plane, TRUE, error))
        return FALSE;
      if (!mapping_host_plane (mapping, side, plane, &host, &host_offset, &host_pitch, error))
        return FALSE;
      if (!(to_device
              ? cugi_buffer_upload_2d_from_host (mapping->planes[plane], 0, mapping->pitches[plane],
                                                 host, host_offset, host_pitch,
                                                 side->row_bytes[plane], side->rows[plane], stream, error)
              : cugi_buffer_download_2d_to_host (mapping->planes[plane], 0, mapping->pitches[plane],
                                                 host, host_offset, host_pitch,
                                                 side->row_bytes[plane], side->rows[plane], stream, error)))
        return FALSE;
    }
  return TRUE;
}

/* After the stream was synchronized: rows from the staging into an output
 * frame that is not in pinned memory. */
static gboolean
mapping_finish (Mapping    *mapping,
                const Side *side,
                GError    **error)
{
  if (mapping->kind != CUGI_GST_MEMORY_KIND_SYSTEM || mapping->pinned != NULL)
    return TRUE;
  for (guint plane = 0; plane < side->n_planes; plane++)
    if (!mapping_stage_plane (mapping, side, plane, FALSE, error))
      return FALSE;
  return TRUE;
}

/* ---- frames ---------------------------------------------------------------- */

/* Runs the subclass's work on one frame or a pair, with the transfers and
 * waits around it (see the top of this file). @out is NULL in place. */
static GstFlowReturn
transform_mappings (CugiGstFilter *self,
                    GstBuffer     *inbuf,
                    GstBuffer     *outbuf)
{
  CugiGstFilterClass *klass = CUGI_GST_FILTER_GET_CLASS (self);
  CugiGstFilterPrivate *priv = PRIV (self);
  CugiStream *stream = cugi_gst_streams_get_work (priv->streams);
  gboolean in_place = outbuf == NULL;
  g_autoptr(GError) error = NULL;
  Mapping in = { 0 }, out = { 0 };
  Mapping *written = in_place ? &in : &out;
  const Side *written_side = in_place ? &priv->in : &priv->out;
  GstMemory *out_memory = NULL;
  gboolean ok, in_on_work = FALSE, must_wait, upload_only = FALSE;
  GstClockTime begin = gst_util_get_timestamp (), waited = 0;

  /* Each step logged (GST_DEBUG=cugigstfilter:6), so that where a frame's
   * time goes can be read off the log's timestamps. */
  ok = mapping_open (self, &in, &priv->in, inbuf,
                     in_place ? CUGI_GST_MAP_FLAGS_READ | CUGI_GST_MAP_FLAGS_WRITE : CUGI_GST_MAP_FLAGS_READ,
                     &error) &&
       (in_place || mapping_open (self, &out, &priv->out, outbuf, CUGI_GST_MAP_FLAGS_WRITE, &error));
  GST_LOG_OBJECT (self, "frames mapped");
  if (ok && written->kind == CUGI_GST_MEMORY_KIND_CUDA)
    out_memory = gst_buffer_peek_memory (in_place ? inbuf : outbuf, 0);
  /* Output that carries the work stream tells its consumers to wait. */
  if (out_memory != NULL && cugi_gst_streams_carries_work (priv->streams, out_memory))
    upload_only = in.kind == CUGI_GST_MEMORY_KIND_SYSTEM;
  ok = ok && cugi_gst_streams_wait_for_input (priv->streams,
                                              in.kind == CUGI_GST_MEMORY_KIND_CUDA ? gst_buffer_peek_memory (inbuf, 0)
                                                                                   : NULL,
                                              &in_on_work, &error) &&
       mapping_transfer (self, &in, &priv->in, TRUE, &error) &&
       (!upload_only || cugi_gst_streams_mark_uploaded (priv->streams, &error));
  GST_LOG_OBJECT (self, "input ordered");
  ok = ok && (in_place ? klass->transform_frame_ip (self, in.handed, stream, &error)
                        : klass->transform_frame (self, in.handed, out.handed, stream, &error));
  GST_LOG_OBJECT (self, "subclass done");
  ok = ok && mapping_transfer (self, written, written_side, FALSE, &error);
  GST_LOG_OBJECT (self, "work enqueued");
  /* Here the streaming thread may wait: see the top of this file. */
  must_wait = !(in_on_work || upload_only) || out_memory == NULL ||
              !cugi_gst_streams_carries_work (priv->streams, out_memory);
  if (ok && (must_wait || upload_only))
    {
      GstClockTime wait_begin = gst_util_get_timestamp ();

      ok = must_wait ? cugi_stream_synchronize (stream, &error)
                     : cugi_gst_streams_wait_for_upload (priv->streams, &error);
      waited = gst_util_get_timestamp () - wait_begin;
    }
  GST_LOG_OBJECT (self, must_wait ? "work done" : "work left on the stream");
  if (ok && out_memory != NULL)
    cugi_gst_streams_mark_output (priv->streams, out_memory, must_wait);
  ok = ok && mapping_finish (written, written_side, &error);

  mapping_close (&out, &priv->out);
  mapping_close (&in, &priv->in);
  cugi_gst_streams_frame_done (priv->streams);
  GST_LOG_OBJECT (self, "frames unmapped");
  GST_OBJECT_LOCK (self);
  priv->frames++;
  priv->processing_time += gst_util_get_timestamp () - begin;
  priv->gpu_wait_time += waited;
  GST_OBJECT_UNLOCK (self);
  if (!ok)
    {
      /* Only the subclass fails without an error. */
      post_subclass_error (self, error, in_place ? "transform_frame_ip" : "transform_frame");
      return GST_FLOW_ERROR;
    }
  return GST_FLOW_OK;
}

static GstFlowReturn
cugi_gst_filter_transform (GstBaseTransform *trans,
                           GstBuffer        *inbuf,
                           GstBuffer        *outbuf)
{
  return transform_mappings (CUGI_GST_FILTER (trans), inbuf, outbuf);
}

static GstFlowReturn
cugi_gst_filter_transform_ip (GstBaseTransform *trans,
                              GstBuffer        *buffer)
{
  return transform_mappings (CUGI_GST_FILTER (trans), buffer, NULL);
}

/* ---- GstBaseTransform ------------------------------------------------------ */

static gboolean
cugi_gst_filter_start (GstBaseTransform *trans)
{
  CugiGstFilter *self = CUGI_GST_FILTER (trans);
  CugiGstFilterClass *klass = CUGI_GST_FILTER_GET_CLASS (self);
  CugiGstFilterPrivate *priv = PRIV (self);
  g_autoptr(GError) error = NULL;
  gint device_id;

  if (klass->transform_frame == NULL && klass->transform_frame_ip == NULL)
    {
      error = g_error_new (CUGI_ERROR, CUGI_ERROR_NOT_SUPPORTED,
                           _("%s implements neither transform_frame() nor transform_frame_ip()"),
                           G_OBJECT_TYPE_NAME (self));
      post_error (self, error, "starting");
      return FALSE;
    }

  GST_OBJECT_LOCK (self);
  device_id = priv->device_id;
  priv->frames = 0;
  priv->processing_time = priv->gpu_wait_time = 0;
  GST_OBJECT_UNLOCK (self);
  /* cugi first: it reports a missing driver as an error, where GstCuda's
   * functions would abort in a process whose driver did not load. */
  if (!cugi_init (&error))
    {
      post_error (self, error, "initializing cugi");
      return FALSE;
    }
  priv->context = cugi_gst_context_ensure_for_element (GST_ELEMENT (self), device_id, &error);
  if (priv->context == NULL)
    {
      post_error (self, error, "finding the pipeline's CUDA context");
      return FALSE;
    }
  priv->cuda_context = gst_object_ref (cugi_gst_context_get_cuda_context (priv->context));
  if ((priv->streams = cugi_gst_streams_new (priv->cuda_context, priv->context, &error)) == NULL)
    {
      post_error (self, error, "making the filter's CUDA stream");
      return FALSE;
    }
  priv->host_allocator = cugi_gst_host_allocator_new (priv->context);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CUGI_CONTEXT]);
  return TRUE;
}

static gboolean
cugi_gst_filter_stop (GstBaseTransform *trans)
{
  CugiGstFilter *self = CUGI_GST_FILTER (trans);
  CugiGstFilterPrivate *priv = PRIV (self);
  gboolean had_context = priv->context != NULL;

  /* First the work in flight, which what follows may still serve. */
  g_clear_pointer (&priv->streams, cugi_gst_streams_free);
  g_hash_table_remove_all (priv->wrapped);
  side_clear (&priv->in);
  side_clear (&priv->out);
  gst_clear_object (&priv->host_allocator);
  g_clear_object (&priv->context);
  gst_clear_object (&priv->cuda_context);
  cugi_gst_context_clear_for_element (GST_ELEMENT (self));
  if (had_context)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CUGI_CONTEXT]);
  return TRUE;
}

static void
cugi_gst_filter_set_context (GstElement *element,
                             GstContext *context)
{
  cugi_gst_context_handle_set_context (element, context,
                                       cugi_gst_filter_get_device_id (CUGI_GST_FILTER (element)));
  cugi_gst_gl_set_context (PRIV (CUGI_GST_FILTER (element))->gl, element, context);

  GST_ELEMENT_CLASS (cugi_gst_filter_parent_class)->set_context (element, context);
}

static gboolean
cugi_gst_filter_query (GstBaseTransform *trans,
                       GstPadDirection   direction,
                       GstQuery         *query)
{
  if (GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT &&
      (cugi_gst_context_handle_context_query (GST_ELEMENT (trans), query) ||
       cugi_gst_gl_handle_query (PRIV (CUGI_GST_FILTER (trans))->gl, GST_ELEMENT (trans), query)))
    return TRUE;

  return GST_BASE_TRANSFORM_CLASS (cugi_gst_filter_parent_class)->query (trans, direction, query);
}

/* Whether the subclass works in place only, so that the memory stays the
 * same kind on both sides. */
static gboolean
in_place_only (GstBaseTransform *trans)
{
  CugiGstFilterClass *klass = CUGI_GST_FILTER_GET_CLASS (trans);

  return klass->transform_frame == NULL;
}

static GstCaps *
cugi_gst_filter_transform_caps (GstBaseTransform *trans,
                                GstPadDirection   direction,
                                GstCaps          *caps,
                                GstCaps          *filter)
{
  GstCaps *result = cugi_gst_caps_in_other_memory (caps, filter, in_place_only (trans));

  GST_DEBUG_OBJECT (trans, "%" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT, caps, result);
  return result;
}

static GstCaps *
cugi_gst_filter_fixate_caps (GstBaseTransform *trans,
                             GstPadDirection   direction,
                             GstCaps          *caps,
                             GstCaps          *othercaps)
{
  othercaps = cugi_gst_caps_keep_on_gpu (othercaps);

  return GST_BASE_TRANSFORM_CLASS (cugi_gst_filter_parent_class)->fixate_caps (trans, direction, caps, othercaps);
}

static gboolean
cugi_gst_filter_set_caps (GstBaseTransform *trans,
                          GstCaps          *incaps,
                          GstCaps          *outcaps)
{
  CugiGstFilter *self = CUGI_GST_FILTER (trans);
  CugiGstFilterClass *klass = CUGI_GST_FILTER_GET_CLASS (self);
  CugiGstFilterPrivate *priv = PRIV (self);
  g_autoptr(GError) error = NULL;

  g_hash_table_remove_all (priv->wrapped);
  if (priv->context == NULL)
    return FALSE;
  if (!side_setup (self, &priv->in, incaps, &error) ||
      !side_setup (self, &priv->out, outcaps, &error))
    {
      post_error (self, error, "setting up for the caps");
      return FALSE;
    }
  gst_base_transform_set_in_place (trans, klass->transform_frame_ip != NULL &&
                                          (klass->transform_frame == NULL ||
                                           gst_caps_is_equal (incaps, outcaps)));
  if (klass->set_info != NULL && !klass->set_info (self, &priv->in.info, &priv->out.info, &error))
    {
      post_subclass_error (self, error, "set_info");
      return FALSE;
    }
  return TRUE;
}

/* Sets @pool up for @caps, in @allocator's memory if given; a
 * GstCudaBufferPool shares a stream with the filter (cugi-gst-streams.c), a
 * GL pool's buffers carry sync metas (cugi-gst-gl.c). FALSE if the pool
 * refuses (it is in use, say). */
static gboolean
configure_pool (CugiGstFilter *self,
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
    cugi_gst_streams_share (PRIV (self)->streams, config);
  cugi_gst_gl_configure_pool (pool, config);
  return gst_buffer_pool_set_config (pool, config);
}

/* A pool for @caps: a GstCudaBufferPool in the filter's context for CUDA
 * memory, a GL pool in the filter's GL context for GL memory, else a video
 * pool of pinned memory. */
static GstBufferPool *
new_pool (CugiGstFilter *self,
          GstCaps       *caps,
          guint          min,
          guint          max,
          guint         *size)
{
  CugiGstFilterPrivate *priv = PRIV (self);
  CugiGstMemoryKind kind = cugi_gst_caps_memory_kind (gst_caps_get_features (caps, 0));
  GstBufferPool *pool;
  GstStructure *config;
  GstVideoInfo info;

  if (!gst_video_info_from_caps (&info, caps))
    return NULL;
  if (kind == CUGI_GST_MEMORY_KIND_GL && !cugi_gst_gl_ensure (priv->gl, GST_ELEMENT (self), NULL))
    return NULL;
  pool = kind == CUGI_GST_MEMORY_KIND_CUDA ? gst_cuda_buffer_pool_new (priv->cuda_context)
       : kind == CUGI_GST_MEMORY_KIND_GL   ? cugi_gst_gl_new_pool (priv->gl)
                                           : gst_video_buffer_pool_new ();
  if (!configure_pool (self, pool, caps, GST_VIDEO_INFO_SIZE (&info), min, max,
                       kind == CUGI_GST_MEMORY_KIND_SYSTEM ? priv->host_allocator : NULL))
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
cugi_gst_filter_propose_allocation (GstBaseTransform *trans,
                                    GstQuery         *decide_query,
                                    GstQuery         *query)
{
  CugiGstFilter *self = CUGI_GST_FILTER (trans);
  CugiGstFilterPrivate *priv = PRIV (self);
  GstCaps *caps = NULL;
  GstBufferPool *pool;
  guint size = 0;

  /* Passing through, downstream answers. */
  if (gst_base_transform_is_passthrough (trans))
    return GST_BASE_TRANSFORM_CLASS (cugi_gst_filter_parent_class)->propose_allocation (trans, decide_query, query);

  gst_query_parse_allocation (query, &caps, NULL);
  if (caps == NULL || priv->context == NULL)
    return FALSE;

  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  if (gst_query_get_n_allocation_pools (query) > 0)
    return TRUE;
  if ((pool = new_pool (self, caps, 0, 0, &size)) == NULL)
    return FALSE;
  gst_query_add_allocation_pool (query, pool, size, 0, 0);
  switch (cugi_gst_caps_memory_kind (gst_caps_get_features (caps, 0)))
    {
    case CUGI_GST_MEMORY_KIND_SYSTEM:
      gst_query_add_allocation_param (query, priv->host_allocator, NULL);
      break;
    case CUGI_GST_MEMORY_KIND_GL:
      gst_query_add_allocation_meta (query, GST_GL_SYNC_META_API_TYPE, NULL);
      break;
    case CUGI_GST_MEMORY_KIND_CUDA:
      break;
    }
  gst_object_unref (pool);
  return TRUE;
}

/* Whether @pool makes buffers in @kind of memory that the filter can use. */
static gboolean
pool_fits (CugiGstFilter     *self,
           GstBufferPool     *pool,
           CugiGstMemoryKind  kind)
{
  CugiGstFilterPrivate *priv = PRIV (self);

  switch (kind)
    {
    case CUGI_GST_MEMORY_KIND_CUDA:
      return GST_IS_CUDA_BUFFER_POOL (pool) && GST_CUDA_BUFFER_POOL (pool)->context == priv->cuda_context;
    case CUGI_GST_MEMORY_KIND_GL:
      return cugi_gst_gl_pool_fits (priv->gl, pool);
    case CUGI_GST_MEMORY_KIND_SYSTEM:
    default:
      return !GST_IS_CUDA_BUFFER_POOL (pool) && !cugi_gst_gl_pool_fits (priv->gl, pool);
    }
}

/* Downstream's pool where it fits (CUDA memory of our context, GL memory of
 * our GL context, or any system-memory pool), else a pool of ours. Not chained up: GstBaseTransform
 * would give our pinned pool downstream's allocator. */
static gboolean
cugi_gst_filter_decide_allocation (GstBaseTransform *trans,
                                   GstQuery         *query)
{
  CugiGstFilter *self = CUGI_GST_FILTER (trans);
  CugiGstFilterPrivate *priv = PRIV (self);
  GstBufferPool *pool = NULL;
  GstCaps *caps = NULL;
  guint size = 0, min = 0, max = 0;
  gboolean update = gst_query_get_n_allocation_pools (query) > 0;

  gst_query_parse_allocation (query, &caps, NULL);
  if (caps == NULL)
    return FALSE;

  if (update)
    gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min, &max);
  if (pool != NULL && !pool_fits (self, pool, priv->out.memory))
    gst_clear_object (&pool);
  if (pool != NULL && !configure_pool (self, pool, caps, size, min, max, NULL))
    gst_clear_object (&pool);
  if (pool == NULL && (pool = new_pool (self, caps, min, max, &size)) == NULL)
    {
      GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, (_("%s could not set up a buffer pool"),
                                                    GST_OBJECT_NAME (self)),
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

/* ---- formats --------------------------------------------------------------- */

/**
 * cugi_gst_filter_class_set_formats:
 * @klass: the class of a #CugiGstFilter subclass
 * @formats: (array zero-terminated=1): the names of the video formats the
 *   subclass works on, as in caps: "RGBA", "NV12", …
 * @error: return location for a #GError
 *
 * Sets the formats of the filter's pads: each in system memory, and those
 * that GStreamer's CUDA allocator can lay out in CUDA memory too (RGBA,
 * NV12, I420, P010_10LE and most others; not GRAY8). Call it while the class
 * is made: in `class_init` in C, `class construct` in Vala, on the class
 * after its definition in Python. Without it a subclass has every format
 * GStreamer's CUDA allocator lays out.
 *
 * Returns: %TRUE, or %FALSE with @error set (%CUGI_ERROR_INVALID_ARGUMENT
 *   for no formats or a name that is no video format,
 *   %CUGI_ERROR_NOT_SUPPORTED for a format whose planes are not rows of
 *   pixels), leaving the formats as they were
 *
 * Since: 0.1
 */
gboolean
cugi_gst_filter_class_set_formats (CugiGstFilterClass  *klass,
                                   const gchar * const *formats,
                                   GError             **error)
{
  g_return_val_if_fail (CUGI_GST_IS_FILTER_CLASS (klass), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!cugi_gst_formats_check (formats, error))
    return FALSE;
  cugi_gst_formats_set_templates (GST_ELEMENT_CLASS (klass), formats);
  return TRUE;
}

/* ---- accessors ------------------------------------------------------------- */

/**
 * cugi_gst_filter_get_cugi_context: (get-property cugi-context)
 * @self: a #CugiGstFilter
 *
 * Returns: (transfer none) (nullable): the value of
 *   #CugiGstFilter:cugi-context
 *
 * Since: 0.1
 */
CugiContext *
cugi_gst_filter_get_cugi_context (CugiGstFilter *self)
{
  g_return_val_if_fail (CUGI_GST_IS_FILTER (self), NULL);

  return PRIV (self)->context;
}

/**
 * cugi_gst_filter_get_stream:
 * @self: a #CugiGstFilter
 *
 * The stream the filter's work is enqueued on: the one its neighbours'
 * pools share, on GStreamer 1.24 and later. It may change when the caps
 * change; the virtual methods are handed the current one.
 *
 * Returns: (transfer none) (nullable): the stream, or %NULL while the
 *   filter is stopped
 *
 * Since: 0.1
 */
CugiStream *
cugi_gst_filter_get_stream (CugiGstFilter *self)
{
  CugiGstFilterPrivate *priv;

  g_return_val_if_fail (CUGI_GST_IS_FILTER (self), NULL);

  priv = PRIV (self);
  return priv->streams != NULL ? cugi_gst_streams_get_work (priv->streams) : NULL;
}

/**
 * cugi_gst_filter_get_device_id: (get-property device-id)
 * @self: a #CugiGstFilter
 *
 * Returns: the value of #CugiGstFilter:device-id
 *
 * Since: 0.1
 */
gint
cugi_gst_filter_get_device_id (CugiGstFilter *self)
{
  CugiGstFilterPrivate *priv;
  gint device_id;

  g_return_val_if_fail (CUGI_GST_IS_FILTER (self), -1);

  priv = PRIV (self);
  GST_OBJECT_LOCK (self);
  device_id = priv->device_id;
  priv->frames = 0;
  priv->processing_time = priv->gpu_wait_time = 0;
  GST_OBJECT_UNLOCK (self);
  return device_id;
}

/**
 * cugi_gst_filter_set_device_id: (set-property device-id)
 * @self: a #CugiGstFilter
 * @device_id: the CUDA device, or -1 for any
 *
 * Sets #CugiGstFilter:device-id; it counts from the next start.
 *
 * Since: 0.1
 */
void
cugi_gst_filter_set_device_id (CugiGstFilter *self,
                               gint           device_id)
{
  CugiGstFilterPrivate *priv;
  gboolean changed;

  g_return_if_fail (CUGI_GST_IS_FILTER (self));
  g_return_if_fail (device_id >= -1);

  priv = PRIV (self);
  GST_OBJECT_LOCK (self);
  changed = priv->device_id != device_id;
  priv->device_id = device_id;
  GST_OBJECT_UNLOCK (self);
  if (changed)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DEVICE_ID]);
}

/**
 * cugi_gst_filter_get_in_info:
 * @self: a #CugiGstFilter
 *
 * Returns: (transfer none): the input's format and size for the current
 *   caps, as handed to #CugiGstFilterClass.set_info
 *
 * Since: 0.1
 */
const GstVideoInfo *
cugi_gst_filter_get_in_info (CugiGstFilter *self)
{
  g_return_val_if_fail (CUGI_GST_IS_FILTER (self), NULL);

  return &PRIV (self)->in.info;
}

/**
 * cugi_gst_filter_get_out_info:
 * @self: a #CugiGstFilter
 *
 * Returns: (transfer none): the output's format and size for the current
 *   caps, as handed to #CugiGstFilterClass.set_info
 *
 * Since: 0.1
 */
const GstVideoInfo *
cugi_gst_filter_get_out_info (CugiGstFilter *self)
{
  g_return_val_if_fail (CUGI_GST_IS_FILTER (self), NULL);

  return &PRIV (self)->out.info;
}

/* ---- GObject --------------------------------------------------------------- */

/* The CugiGstFilter:stats structure. */
static GstStructure *
stats_new (CugiGstFilter *self)
{
  CugiGstFilterPrivate *priv = PRIV (self);
  GstStructure *stats;

  GST_OBJECT_LOCK (self);
  stats = gst_structure_new ("application/x-cugi-filter-stats",
                             "frames", G_TYPE_UINT64, priv->frames,
                             "processing-time", G_TYPE_UINT64, priv->processing_time,
                             "gpu-wait-time", G_TYPE_UINT64, priv->gpu_wait_time,
                             NULL);
  GST_OBJECT_UNLOCK (self);
  return stats;
}

static void
cugi_gst_filter_set_property (GObject      *object,
                              guint         prop_id,
                              const GValue *value,
                              GParamSpec   *pspec)
{
  CugiGstFilter *self = CUGI_GST_FILTER (object);

  switch (prop_id)
    {
    case PROP_DEVICE_ID:
      cugi_gst_filter_set_device_id (self, g_value_get_int (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cugi_gst_filter_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  CugiGstFilter *self = CUGI_GST_FILTER (object);

  switch (prop_id)
    {
    case PROP_DEVICE_ID:
      g_value_set_int (value, cugi_gst_filter_get_device_id (self));
      break;
    case PROP_CUGI_CONTEXT:
      g_value_set_object (value, cugi_gst_filter_get_cugi_context (self));
      break;
    case PROP_STATS:
      g_value_take_boxed (value, stats_new (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cugi_gst_filter_finalize (GObject *object)
{
  CugiGstFilterPrivate *priv = PRIV (CUGI_GST_FILTER (object));

  g_hash_table_unref (priv->wrapped);
  cugi_gst_gl_free (priv->gl);

  G_OBJECT_CLASS (cugi_gst_filter_parent_class)->finalize (object);
}

static void
cugi_gst_filter_class_init (CugiGstFilterClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  object_class->set_property = cugi_gst_filter_set_property;
  object_class->get_property = cugi_gst_filter_get_property;
  object_class->finalize = cugi_gst_filter_finalize;

  /**
   * CugiGstFilter:device-id:
   *
   * The CUDA device to run on, as nvcodec's `cuda-device-id`: -1 for any,
   * that of the neighbours' context if there is one.
   *
   * Since: 0.1
   */
  properties[PROP_DEVICE_ID] =
    g_param_spec_int ("device-id", NULL, NULL, -1, G_MAXINT, -1,
                      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY |
                      GST_PARAM_MUTABLE_READY);
  /**
   * CugiGstFilter:cugi-context:
   *
   * The context the filter works in: the pipeline's CUDA context, wrapped;
   * %NULL while the filter is stopped.
   *
   * Since: 0.1
   */
  properties[PROP_CUGI_CONTEXT] =
    g_param_spec_object ("cugi-context", NULL, NULL, CUGI_TYPE_CONTEXT,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * CugiGstFilter:stats:
   *
   * What the filter did since it last started, as a `GstStructure` named
   * `application/x-cugi-filter-stats`: `frames` (#guint64), the frames it
   * transformed; `processing-time` (#guint64, nanoseconds), the time the
   * streaming thread spent transforming them, mapping and copies included;
   * `gpu-wait-time` (#guint64, nanoseconds), the part of it spent blocked
   * until the GPU had done a frame's work (see "Where the streaming thread
   * waits" in the GStreamer guide). Their difference is the host's own time:
   * what the filter costs the streaming thread beyond the GPU's work.
   *
   * Since: 0.1
   */
  properties[PROP_STATS] =
    g_param_spec_boxed ("stats", NULL, NULL, GST_TYPE_STRUCTURE,
                        G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  element_class->set_context = GST_DEBUG_FUNCPTR (cugi_gst_filter_set_context);

  trans_class->passthrough_on_same_caps = FALSE;
  trans_class->transform_ip_on_passthrough = FALSE;
  trans_class->start = GST_DEBUG_FUNCPTR (cugi_gst_filter_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (cugi_gst_filter_stop);
  trans_class->query = GST_DEBUG_FUNCPTR (cugi_gst_filter_query);
  trans_class->transform_caps = GST_DEBUG_FUNCPTR (cugi_gst_filter_transform_caps);
  trans_class->fixate_caps = GST_DEBUG_FUNCPTR (cugi_gst_filter_fixate_caps);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (cugi_gst_filter_set_caps);
  trans_class->propose_allocation = GST_DEBUG_FUNCPTR (cugi_gst_filter_propose_allocation);
  trans_class->decide_allocation = GST_DEBUG_FUNCPTR (cugi_gst_filter_decide_allocation);
  trans_class->transform = GST_DEBUG_FUNCPTR (cugi_gst_filter_transform);
  trans_class->transform_ip = GST_DEBUG_FUNCPTR (cugi_gst_filter_transform_ip);

  /* Subclasses inherit these until they set their own formats. */
  cugi_gst_formats_set_templates (element_class, cugi_gst_formats_cuda ());
}

static void
cugi_gst_filter_init (CugiGstFilter *self)
{
  CugiGstFilterPrivate *priv = PRIV (self);

  priv->device_id = -1;
  priv->wrapped = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, wrapped_free);
  priv->gl = cugi_gst_gl_new ();
}
