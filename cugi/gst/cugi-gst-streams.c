/* cugi-gst-streams.c: the CUDA stream of a cugi element and GStreamer 1.24's
 * stream semantics
 *
 * Since GStreamer 1.24 a GstCudaMemory carries the GstCudaStream its pending
 * work was enqueued on (gst_cuda_memory_get_stream()), and its flag
 * GST_CUDA_MEMORY_TRANSFER_NEED_SYNC says that work may not be done: mapping
 * it with GST_MAP_CUDA waits for nothing, so ordering reads after that work
 * is the consumer's job. GStreamer's own CUDA elements (nvcodec's
 * cudaconvertscale, nvdec, the encoders) share one stream along a chain:
 * each takes the stream of the pool that downstream proposed, or sets its
 * own on the pool it uses; it proposes upstream a pool with that stream; and
 * it waits with gst_cuda_memory_sync(), on the host, for input on another
 * stream. A cugi element does the same with a CugiGstStreams, except that it
 * waits for input on another stream on the device: it records an event on
 * the producer's stream and makes its own stream wait for it.
 *
 * Where the element's streaming thread still waits for the frame's work is
 * the element's decision (cugi-gst-filter.c, transform()), taken from
 * cugi_gst_streams_wait_for_input() and cugi_gst_streams_carries_work().
 *
 * Built against GStreamer 1.22, whose CUDA memory carries no stream, the
 * element works on a stream cugi makes, the pools carry none, and nothing
 * here waits or marks anything.
 *
 * cugi lets go of what a stream's work holds (the frames' planes, pinned
 * staging) in the main context that was the thread's default when the
 * stream was made, and no main loop runs on a streaming thread, nor need
 * one run anywhere in a pipeline's process. So the streams are made in a
 * main context of their own that the element iterates itself, every
 * DISPATCH_INTERVAL frames (cugi_gst_streams_frame_done()): without it
 * every frame's holds, and the streams and CUDA context with them, stayed
 * until that main context ran, which in a process without a main loop was
 * never. Not after every frame: each iteration that follows work left on
 * the stream ends the stream's burst with a marker (an event, a wait and a
 * host function), and the next one handles its completion, which together
 * cost a 4K frame's streaming thread more than its kernel launch. The work
 * of the frames in between shares one marker; what they hold (views of the
 * frames' planes, which the element's cache of wrapped planes keeps anyway)
 * is let go of some frames later.
 */
#include "cugi-gst-private.h"

#include <gst/cuda/gstcudamemory.h>
#if GST_CHECK_VERSION (1, 24, 0)
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudastream.h>
#endif

GST_DEBUG_CATEGORY_STATIC (cugi_gst_streams_debug);
#define GST_CAT_DEFAULT cugi_gst_streams_debug

/* Frames between two iterations of the streams' main context. */
#define DISPATCH_INTERVAL 16

struct _CugiGstStreams
{
  CugiContext    *context;
  GstCudaContext *cuda_context;
  GMainContext   *main_context;   /* the streams', iterated by the element */
  CugiStream     *work;           /* where the element enqueues its work */
  guint           undispatched;   /* frames done since the last iteration */
  CugiEvent      *uploaded;       /* recorded on work after an input's upload */
#if GST_CHECK_VERSION (1, 24, 0)
  GstCudaStream  *work_gst;       /* work's GstCudaStream; NULL: a stream of cugi's */
  GstCudaStream  *producer_gst;   /* the input stream last waited for */
  CugiStream     *producer;       /* producer_gst, wrapped */
  CugiEvent      *event;          /* recorded on producer, waited for on work */
#endif
};

#if GST_CHECK_VERSION (1, 24, 0)

static gboolean
same_stream (GstCudaStream *a,
             GstCudaStream *b)
{
  return a != NULL && b != NULL && gst_cuda_stream_get_handle (a) == gst_cuda_stream_get_handle (b);
}

/* Whether @stream is a stream of the element's very CUcontext. */
static gboolean
in_context (CugiGstStreams *self,
            GstCudaStream  *stream)
{
  return gst_cuda_context_get_handle (stream->context) ==
         gst_cuda_context_get_handle (self->cuda_context);
}

/* A CugiStream for @stream, which cugi borrows. The wrapper keeps a
 * reference on @stream, dropped after its own finalize: cugi's transfers
 * and holds may keep the wrapper after the element let go of it (the
 * staging of system memory does), and a CUstream destroyed under them
 * crashed the driver when the pipeline stopped. */
static CugiStream *
wrap (CugiGstStreams *self,
      GstCudaStream  *stream,
      GError        **error)
{
  CugiStream *wrapped;

  g_main_context_push_thread_default (self->main_context);
  wrapped = cugi_stream_new_for_handle (self->context, (guint64) (guintptr) gst_cuda_stream_get_handle (stream),
                                        error);
  g_main_context_pop_thread_default (self->main_context);
  if (wrapped != NULL)
    g_object_set_data_full (G_OBJECT (wrapped), "gst-cugi-cuda-stream", gst_cuda_stream_ref (stream),
                            (GDestroyNotify) gst_cuda_stream_unref);
  return wrapped;
}

/* Makes @stream the work stream, once the work enqueued so far is done. */
static gboolean
work_on (CugiGstStreams *self,
         GstCudaStream  *stream,
         GError        **error)
{
  CugiStream *wrapped;

  if (self->work != NULL && !cugi_stream_synchronize (self->work, error))
    return FALSE;
  if ((wrapped = wrap (self, stream, error)) == NULL)
    return FALSE;
  g_set_object (&self->work, wrapped);
  g_object_unref (wrapped);
  gst_clear_cuda_stream (&self->work_gst);
  self->work_gst = gst_cuda_stream_ref (stream);
  GST_DEBUG ("working on CUDA stream %p", gst_cuda_stream_get_handle (stream));
  return TRUE;
}

#endif

/**
 * cugi_gst_streams_new:
 * @cuda_context: the pipeline's CUDA context
 * @context: (transfer none): the same context, wrapped by cugi
 * @error: return location for a #GError
 *
 * The streams of one element between start and stop. The work stream is a
 * `GstCudaStream` made for the element (GStreamer 1.24 and later), so that
 * memories and pools can carry it, or a stream of cugi's (1.22, or where
 * GStreamer could not make one: its memories then carry no stream, as
 * GStreamer's elements fall back to the default stream).
 *
 * Returns: (transfer full) (nullable): the streams, or %NULL with @error set
 */
CugiGstStreams *
cugi_gst_streams_new (GstCudaContext *cuda_context,
                      CugiContext    *context,
                      GError        **error)
{
  CugiGstStreams *self;

  GST_DEBUG_CATEGORY_INIT (cugi_gst_streams_debug, "cugistreams", 0, "CUDA streams of cugi elements");
  self = g_new0 (CugiGstStreams, 1);
  self->context = g_object_ref (context);
  self->cuda_context = gst_object_ref (cuda_context);
  self->main_context = g_main_context_new ();
  if ((self->uploaded = cugi_event_new (context, CUGI_EVENT_FLAGS_DISABLE_TIMING, error)) == NULL)
    {
      cugi_gst_streams_free (self);
      return NULL;
    }
#if GST_CHECK_VERSION (1, 24, 0)
  {
    GstCudaStream *own = gst_cuda_stream_new (cuda_context);
    gboolean ok = (self->event = cugi_event_new (context, CUGI_EVENT_FLAGS_DISABLE_TIMING, error)) != NULL &&
                  (own == NULL || work_on (self, own, error));

    gst_clear_cuda_stream (&own);
    if (!ok)
      {
        cugi_gst_streams_free (self);
        return NULL;
      }
  }
#endif
  if (self->work == NULL)
    {
      g_main_context_push_thread_default (self->main_context);
      self->work = cugi_stream_new (context, CUGI_STREAM_FLAGS_NON_BLOCKING, 0, error);
      g_main_context_pop_thread_default (self->main_context);
      if (self->work == NULL)
        {
          cugi_gst_streams_free (self);
          return NULL;
        }
    }
  return self;
}

/**
 * cugi_gst_streams_free:
 * @self: (transfer full): the streams
 *
 * Waits for the work enqueued on the work stream, which lets cugi drop what
 * it held, and frees the streams.
 */
void
cugi_gst_streams_free (CugiGstStreams *self)
{
  g_autoptr(GError) error = NULL;

  if (self->work != NULL && !cugi_stream_synchronize (self->work, &error))
    GST_WARNING ("the work left on the stream failed: %s", error->message);
  /* What the streams' main context still has for them (their last flush)
   * runs, and lets go of them. */
  cugi_gst_streams_dispatch (self);
  g_clear_object (&self->work);
  g_clear_object (&self->uploaded);
#if GST_CHECK_VERSION (1, 24, 0)
  g_clear_object (&self->producer);
  g_clear_object (&self->event);
  gst_clear_cuda_stream (&self->producer_gst);
  gst_clear_cuda_stream (&self->work_gst);
#endif
  g_main_context_unref (self->main_context);
  gst_object_unref (self->cuda_context);
  g_object_unref (self->context);
  g_free (self);
}

/**
 * cugi_gst_streams_dispatch:
 * @self: the streams
 *
 * Runs, without blocking, what cugi left for the streams' main context: the
 * flushes and completions that let go of what finished work held.
 */
void
cugi_gst_streams_dispatch (CugiGstStreams *self)
{
  self->undispatched = 0;
  while (g_main_context_iteration (self->main_context, FALSE))
    ;
}

/**
 * cugi_gst_streams_frame_done:
 * @self: the streams
 *
 * Called after each frame, on the streaming thread: every DISPATCH_INTERVAL
 * frames, runs what cugi left for the streams' main context
 * (cugi_gst_streams_dispatch()).
 */
void
cugi_gst_streams_frame_done (CugiGstStreams *self)
{
  if (++self->undispatched >= DISPATCH_INTERVAL)
    cugi_gst_streams_dispatch (self);
}

/**
 * cugi_gst_streams_get_work:
 * @self: the streams
 *
 * Returns: (transfer none): the stream that the element enqueues its work
 *   on; it changes only in cugi_gst_streams_share()
 */
CugiStream *
cugi_gst_streams_get_work (CugiGstStreams *self)
{
  return self->work;
}

/**
 * cugi_gst_streams_share:
 * @self: the streams
 * @config: the configuration of a `GstCudaBufferPool` of the element's context
 *
 * Shares one stream with the pool, as GStreamer's CUDA elements do: where
 * @config carries a stream of the element's context (downstream's, in
 * decide_allocation), the element works on it from now on, once its work so
 * far is done; otherwise @config gets the work stream (for the element's own
 * pools and the one it proposes upstream). Where cugi cannot take the
 * pool's stream, the element keeps its own, and the pool's memories then
 * carry another stream than the work's: the element waits for each frame
 * before pushing it, as on 1.22. Nothing on GStreamer 1.22.
 */
void
cugi_gst_streams_share (CugiGstStreams *self,
                        GstStructure   *config)
{
#if GST_CHECK_VERSION (1, 24, 0)
  GstCudaStream *theirs = gst_buffer_pool_config_get_cuda_stream (config);
  g_autoptr(GError) error = NULL;

  if (theirs != NULL && in_context (self, theirs))
    {
      if (!same_stream (theirs, self->work_gst) && !work_on (self, theirs, &error))
        GST_WARNING ("cannot work on the pool's CUDA stream: %s", error->message);
    }
  else if (self->work_gst != NULL)
    gst_buffer_pool_config_set_cuda_stream (config, self->work_gst);
  gst_clear_cuda_stream (&theirs);
#else
  (void) self;
  (void) config;
#endif
}

/**
 * cugi_gst_streams_wait_for_input:
 * @self: the streams
 * @memory: (nullable): the memory of an input frame, mapped with
 *   `GST_MAP_CUDA` (which may have enqueued an upload on its stream), or
 *   %NULL for a frame in system memory
 * @on_work: (out): whether @memory is on the work stream, so that the work
 *   that its producer enqueues on it later, after reusing it, comes after
 *   the element's
 * @error: return location for a #GError
 *
 * Orders the work enqueued from now on on the work stream after the work
 * that @memory may still wait for: where it carries another stream and is
 * flagged `GST_CUDA_MEMORY_TRANSFER_NEED_SYNC`, the work stream waits, on
 * the device, for an event recorded on that stream. Memory without a stream
 * is complete: GStreamer's producers synchronize the default stream. Memory
 * of another CUcontext is waited for on the host (gst_cuda_memory_sync()).
 * The memory's flags stay as they are: other consumers of it may still need
 * to synchronize. Nothing on GStreamer 1.22.
 *
 * Returns: %TRUE, or %FALSE with @error set
 */
gboolean
cugi_gst_streams_wait_for_input (CugiGstStreams *self,
                                 GstMemory      *memory,
                                 gboolean       *on_work,
                                 GError        **error)
{
#if GST_CHECK_VERSION (1, 24, 0)
  GstCudaStream *stream;

  *on_work = FALSE;
  if (memory == NULL || !gst_is_cuda_memory (memory) ||
      (stream = gst_cuda_memory_get_stream (GST_CUDA_MEMORY_CAST (memory))) == NULL)
    return TRUE;
  if (same_stream (stream, self->work_gst))
    {
      *on_work = TRUE;
      return TRUE;
    }
  if (!GST_MEMORY_FLAG_IS_SET (memory, GST_CUDA_MEMORY_TRANSFER_NEED_SYNC))
    return TRUE;
  if (!in_context (self, stream))
    {
      gst_cuda_memory_sync (GST_CUDA_MEMORY_CAST (memory));
      return TRUE;
    }
  if (!same_stream (stream, self->producer_gst))
    {
      CugiStream *wrapped = wrap (self, stream, error);

      if (wrapped == NULL)
        return FALSE;
      g_set_object (&self->producer, wrapped);
      g_object_unref (wrapped);
      gst_clear_cuda_stream (&self->producer_gst);
      self->producer_gst = gst_cuda_stream_ref (stream);
    }
  return cugi_event_record (self->event, self->producer, error) &&
         cugi_stream_wait_event (self->work, self->event, error);
#else
  (void) self;
  (void) memory;
  (void) error;
  *on_work = FALSE;
  return TRUE;
#endif
}

/**
 * cugi_gst_streams_mark_uploaded:
 * @self: the streams
 * @error: return location for a #GError
 *
 * Records the point of the work stream after the upload of an input frame
 * in system memory, which cugi_gst_streams_wait_for_upload() waits for: the
 * producer may write that memory again once the frame is released, but
 * need not wait for the element's kernels on the frame.
 *
 * Returns: %TRUE, or %FALSE with @error set
 */
gboolean
cugi_gst_streams_mark_uploaded (CugiGstStreams *self,
                                GError        **error)
{
  return cugi_event_record (self->uploaded, self->work, error);
}

/**
 * cugi_gst_streams_wait_for_upload:
 * @self: the streams
 * @error: return location for a #GError
 *
 * Waits on the host until the work stream is past the point that
 * cugi_gst_streams_mark_uploaded() last recorded.
 *
 * Returns: %TRUE, or %FALSE with @error set
 */
gboolean
cugi_gst_streams_wait_for_upload (CugiGstStreams *self,
                                  GError        **error)
{
  return cugi_event_synchronize (self->uploaded, error);
}

/**
 * cugi_gst_streams_carries_work:
 * @self: the streams
 * @memory: the memory of an output frame
 *
 * Returns: whether @memory is CUDA memory that carries the work stream, so
 *   that a consumer of GStreamer 1.24 or later waits for the element's work
 *   through it; never on 1.22
 */
gboolean
cugi_gst_streams_carries_work (CugiGstStreams *self,
                               GstMemory      *memory)
{
#if GST_CHECK_VERSION (1, 24, 0)
  return gst_is_cuda_memory (memory) &&
         same_stream (gst_cuda_memory_get_stream (GST_CUDA_MEMORY_CAST (memory)), self->work_gst);
#else
  (void) self;
  (void) memory;
  return FALSE;
#endif
}

/**
 * cugi_gst_streams_mark_output:
 * @self: the streams
 * @memory: the memory of an output frame, its work enqueued
 * @complete: whether the streaming thread waited for the work stream
 *
 * Marks @memory as GStreamer's CUDA elements mark what they write, where it
 * carries the work stream: `GST_CUDA_MEMORY_TRANSFER_NEED_SYNC` while the
 * element's work on it may be pending, so that consumers synchronize, none
 * once the element waited for it. Other memory keeps its flags.
 */
void
cugi_gst_streams_mark_output (CugiGstStreams *self,
                              GstMemory      *memory,
                              gboolean        complete)
{
#if GST_CHECK_VERSION (1, 24, 0)
  if (!cugi_gst_streams_carries_work (self, memory))
    return;
  if (complete)
    GST_MINI_OBJECT_FLAG_UNSET (memory, GST_CUDA_MEMORY_TRANSFER_NEED_SYNC);
  else
    GST_MINI_OBJECT_FLAG_SET (memory, GST_CUDA_MEMORY_TRANSFER_NEED_SYNC);
#else
  (void) self;
  (void) memory;
  (void) complete;
#endif
}
