/* cugi-staging-feed.c: asynchronous copies of pageable memory through the
 * pipeline: on the caller's stream, or, when more than its queue holds, on
 * a stream of their own fed from a thread */
#include "config.h"

#include <string.h>
#include <glib/gi18n-lib.h>

#include "cugi-context-private.h"
#include "cugi-stream-private.h"
#include "cugi-private.h"
#include "cugi-staging-private.h"

/* Enqueues one pipeline of an asynchronous copy of @size bytes between
 * @data (which @bytes holds) and @address on @handle, and starts its
 * workers; the pipeline in *@made (it holds the staging, which the stream
 * needs until it is past the copy). */
static CugiEnqueueResult
enqueue_pipeline (CugiContext        *context,
                  CugiCopyDirection   direction,
                  CUdeviceptr         address,
                  guint8             *data,
                  gsize               size,
                  GBytes             *bytes,
                  CUstream            handle,
                  CugiPipeline      **made,
                  GError            **error)
{
  g_autoptr(CugiHostBuffer) staging = NULL;
  g_autoptr(CugiPipeline) pipeline = NULL;
  CugiEnqueueResult result;

  pipeline = cugi_pipeline_new (context, direction, data, size, &staging, error);
  if (pipeline == NULL)
    return CUGI_ENQUEUE_FAILED;
  pipeline->host_bytes = g_bytes_ref (bytes);
  result = cugi_pipeline_enqueue (pipeline, address, handle, error);
  /* Even after an error, what was enqueued must run, and waits for the
   * workers' side. */
  if (result != CUGI_ENQUEUE_UNSUPPORTED)
    {
      cugi_pipeline_start (pipeline, cugi_staging_get_threads ());
      *made = g_steal_pointer (&pipeline);
    }
  return result;
}

/* The pipelines of one asynchronous copy, @size bytes between @data (which
 * @bytes holds) and @address of @self, enqueued one after another on
 * @target until one is not; the stream keeps each one's staging, and
 * @bytes, until it is past it. A download's stream then waits for the
 * host's side of them all (for its completion and the staging's release),
 * at the end rather than after each, so that the device copies the next
 * pipeline's chunks while the workers finish the one before.
 * CUGI_ENQUEUE_UNSUPPORTED only where nothing was enqueued. */
static CugiEnqueueResult
enqueue_pipelines_on (CugiBuffer         *self,
                      CugiCopyDirection   direction,
                      CUdeviceptr         address,
                      guint8             *data,
                      gsize               size,
                      GBytes             *bytes,
                      CugiStream         *target,
                      GError            **error)
{
  g_autoptr(GPtrArray) enqueued = g_ptr_array_new_with_free_func (cugi_pipeline_unref);
  CUstream handle = cugi_stream_get_handle (target);
  CugiEnqueueResult result = CUGI_ENQUEUED;
  gsize done, piece = 0;

  for (done = 0; done < size && result == CUGI_ENQUEUED; done += piece)
    {
      CugiPipeline *pipeline = NULL;

      piece = MIN (size - done, cugi_pipeline_max_bytes ());
      result = enqueue_pipeline (self->ownership.binding.context, direction, address + done, data + done,
                                 piece, bytes, handle, &pipeline, error);
      if (pipeline != NULL)
        {
          cugi_buffer_track_work (target, self, NULL, pipeline->staging, bytes);
          g_ptr_array_add (enqueued, pipeline);
        }
    }
  if (result == CUGI_ENQUEUE_UNSUPPORTED && done > piece)
    {
      cugi_staging_set_stopped_waiting_error (error);
      result = CUGI_ENQUEUE_FAILED;
    }
  for (guint i = 0; direction == CUGI_COPY_TO_HOST && i < enqueued->len; i++)
    if (!cugi_pipeline_enqueue_host_waits (g_ptr_array_index (enqueued, i), handle,
                                           result == CUGI_ENQUEUED ? error : NULL))
      {
        result = CUGI_ENQUEUE_FAILED;
        break;
      }
  return result;
}

/* ---- copies too large for a stream's queue: fed from a thread ------------- */

/* A stream's queue holds some 700 operations (three a chunk, up to 64
 * chunks a pipeline), and enqueuing beyond waits until the device gets
 * through some: an asynchronous copy of more pipelines than this would
 * hold up its caller (a 1 GiB download, 27 ms of the main loop on the
 * H200). Such a copy runs on a stream of its own, fed by a thread of
 * cugi's that keeps at most this many of its pipelines on it at a time
 * (feed_copy()); the caller's stream waits, in its place, for a gate in
 * pinned memory that the copy's stream opens at its end. */
#define STAGING_MAX_QUEUED_PIPELINES 2

struct _CugiFeed
{
  CugiContext       *context;
  CugiCopyDirection  direction;
  CUdeviceptr        address;
  GBytes            *bytes;          /* the host's side of the copy */
  CUstream           side;           /* the copy's stream, destroyed by the feeder */
  CUevent            start;          /* where the copy starts on the caller's stream */
  CugiHostBuffer    *gate_staging;   /* holds the gate */
  gint              *gate;
  CUdeviceptr        gate_device;
  GPtrArray         *pipelines;      /* the last ones, with their staging, until the feed is freed */
  GMutex             lock;
  GError            *error;          /* the feeder's, under lock */
};

static void
feed_clear (gpointer data)
{
  CugiFeed *self = data;

  g_clear_object (&self->context);
  g_clear_pointer (&self->bytes, g_bytes_unref);
  g_clear_object (&self->gate_staging);
  g_clear_pointer (&self->pipelines, g_ptr_array_unref);
  g_clear_error (&self->error);
  g_mutex_clear (&self->lock);
}

void
cugi_feed_unref (gpointer data)
{
  g_atomic_rc_box_release_full (data, feed_clear);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CugiFeed, cugi_feed_unref)

/* Called with the context entered. */
static void
feed_destroy_stream (CugiFeed *self)
{
  if (self->side != NULL)
    cugi_cuda.cuStreamDestroy (self->side);
  if (self->start != NULL)
    cugi_cuda.cuEventDestroy (self->start);
  self->side = NULL;
  self->start = NULL;
}

/* The feeder's copy: its pipelines on its stream, at most
 * STAGING_MAX_QUEUED_PIPELINES at a time, so that enqueuing never waits
 * for the stream's queue; the feeder is one of each one's workers. Before
 * it enqueues another, it waits for the oldest to be done, host and
 * device, which gives that one's staging back to the pool for the next to
 * take (its memory still in the caches), as the pipelines of a synchronous
 * copy take it. Then it waits for the host's side of the last ones, which
 * the gate must come after (a download's bytes are copied out of the
 * staging by the host). The feed keeps those, with their staging, until it
 * is freed, after the caller's stream is past the gate. */
static gboolean
feed_copy (CugiFeed  *self,
           GError   **error)
{
  g_autoptr(GPtrArray) in_flight = g_ptr_array_new_with_free_func (cugi_pipeline_unref);
  CugiEnqueueResult result = CUGI_ENQUEUED;
  gsize size, done, piece = 0;
  guint8 *host = (guint8 *) g_bytes_get_data (self->bytes, &size);

  for (done = 0; done < size && result == CUGI_ENQUEUED; done += piece)
    {
      CugiPipeline *pipeline = NULL;

      if (in_flight->len == STAGING_MAX_QUEUED_PIPELINES)
        {
          CugiPipeline *oldest = g_ptr_array_index (in_flight, 0);

          cugi_pipeline_wait (oldest);
          if (self->direction == CUGI_COPY_TO_DEVICE)
            cugi_pipeline_wait_stream_past (oldest);
          g_ptr_array_remove_index (in_flight, 0);
        }
      piece = MIN (size - done, cugi_pipeline_max_bytes ());
      result = enqueue_pipeline (self->context, self->direction, self->address + done, host + done, piece,
                                 self->bytes, self->side, &pipeline, error);
      if (pipeline != NULL)
        {
          g_ptr_array_add (in_flight, pipeline);
          /* Rather than wait, the feeder helps the workers. */
          cugi_pipeline_run (pipeline);
        }
    }
  for (guint i = 0; result == CUGI_ENQUEUED && i < in_flight->len; i++)
    cugi_pipeline_wait (g_ptr_array_index (in_flight, i));
  if (result == CUGI_ENQUEUE_UNSUPPORTED)
    cugi_staging_set_stopped_waiting_error (error);
  /* The stream may still read an upload's staging, or be short of a
   * failed pipeline's end. */
  g_ptr_array_extend_and_steal (self->pipelines, g_steal_pointer (&in_flight));
  return result == CUGI_ENQUEUED;
}

/* Takes @error as the feed's, unless it has one. */
static void
feed_keep_error (CugiFeed *self,
                 GError   *error)
{
  g_mutex_lock (&self->lock);
  if (self->error == NULL)
    self->error = error;
  else
    g_error_free (error);
  g_mutex_unlock (&self->lock);
}

/* The feeder: copies on its stream, then opens the gate behind whatever
 * the stream got. An error is the feed's before the gate opens: the copy's
 * task reads it once the caller's stream is past the gate. */
static void
feed_run (gpointer data,
          gpointer user_data)
{
  g_autoptr(CugiFeed) self = data;
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  GError *error = NULL;
  gboolean opened = FALSE;

  if (cugi_context_enter (self->context, &scope, &error))
    {
      if (!feed_copy (self, &error))
        feed_keep_error (self, g_steal_pointer (&error));
      opened = CUGI_CALL (cuStreamWriteValue32, (self->side, self->gate_device, 1, CU_STREAM_WRITE_VALUE_DEFAULT),
                          &error);
      feed_destroy_stream (self);
    }
  if (error != NULL)
    feed_keep_error (self, error);
  /* The caller's stream must not wait for ever: opened from here, it may
   * go on before what the copy's stream got is done, which the error
   * reports. */
  if (!opened)
    g_atomic_int_set (self->gate, 1);
}

static gpointer
feeders_new (gpointer data)
{
  return g_thread_pool_new (feed_run, NULL, -1, FALSE, NULL);
}

/* The feeder's error, if any (transfer full). */
static GError *
feed_dup_error (CugiFeed *self)
{
  GError *error;

  g_mutex_lock (&self->lock);
  error = self->error != NULL ? g_error_copy (self->error) : NULL;
  g_mutex_unlock (&self->lock);
  return error;
}

/* Starts an asynchronous copy fed from a thread (see
 * STAGING_MAX_QUEUED_PIPELINES): what the caller's stream @target gets now
 * is an event and the wait for the gate. CUGI_ENQUEUE_UNSUPPORTED, with nothing
 * that matters enqueued, where the stream cannot wait for memory. */
static CugiEnqueueResult
feed_start (CugiBuffer         *buffer,
            CugiCopyDirection   direction,
            CUdeviceptr         address,
            GBytes             *bytes,
            CugiStream         *target,
            CugiFeed          **fed,
            GError            **error)
{
  static GOnce feeders = G_ONCE_INIT;
  CugiContext *context = buffer->ownership.binding.context;
  CUstream handle = cugi_stream_get_handle (target);
  g_autoptr(GError) wait_error = NULL;
  g_autoptr(CugiFeed) self = g_atomic_rc_box_new0 (CugiFeed);
  GPtrArray *resources;
  guint8 *gate;

  g_mutex_init (&self->lock);
  self->context = g_object_ref (context);
  self->direction = direction;
  self->address = address;
  self->bytes = g_bytes_ref (bytes);
  self->pipelines = g_ptr_array_new_with_free_func (cugi_pipeline_unref);
  if ((self->gate_staging = cugi_staging_new_with_data (context, sizeof (gint), &gate, error)) == NULL)
    return CUGI_ENQUEUE_FAILED;
  self->gate = (gint *) gate;
  *self->gate = 0;
  if (!CUGI_CALL (cuMemHostGetDevicePointer, (&self->gate_device, gate, 0), error) ||
      !CUGI_CALL (cuStreamCreateWithPriority, (&self->side, CU_STREAM_NON_BLOCKING, 0), error) ||
      !CUGI_CALL (cuEventCreate, (&self->start, CU_EVENT_DISABLE_TIMING), error) ||
      !CUGI_CALL (cuEventRecord, (self->start, handle), error) ||
      !CUGI_CALL (cuStreamWaitEvent, (self->side, self->start, 0), error))
    {
      feed_destroy_stream (self);
      return CUGI_ENQUEUE_FAILED;
    }
  if (!CUGI_CALL (cuStreamWaitValue32, (handle, self->gate_device, 1, CU_STREAM_WAIT_VALUE_GEQ), &wait_error))
    {
      g_debug ("Copying pageable memory without the pipeline: %s", wait_error->message);
      feed_destroy_stream (self);
      return CUGI_ENQUEUE_UNSUPPORTED;
    }

  /* The caller's stream, past the gate, is past the copy: it keeps what
   * the copy needs until then. */
  resources = cugi_work_resources_new ();
  cugi_work_resources_add (resources, cugi_buffer_begin_work (buffer), cugi_buffer_end_work);
  cugi_work_resources_add (resources, g_atomic_rc_box_acquire (self), cugi_feed_unref);
  cugi_work_track (target, NULL, resources);
  g_thread_pool_push (g_once (&feeders, feeders_new, NULL), g_atomic_rc_box_acquire (self), NULL);
  *fed = g_steal_pointer (&self);
  return CUGI_ENQUEUED;
}

/* Enqueues an asynchronous copy of @size bytes between @data (which @bytes
 * holds) and @address on @target: as pipelines one after another, or, when
 * more than the stream's queue holds, fed from a thread (in *@fed, whose
 * error the copy's task reports). CUGI_ENQUEUE_UNSUPPORTED, with nothing
 * enqueued, where the stream cannot wait for memory. */
static CugiEnqueueResult
enqueue_pipelines (CugiBuffer         *self,
                   CugiCopyDirection   direction,
                   CUdeviceptr         address,
                   guint8             *data,
                   gsize               size,
                   GBytes             *bytes,
                   CugiStream         *target,
                   CugiFeed          **fed,
                   GError            **error)
{
  *fed = NULL;
  if ((size - 1) / cugi_pipeline_max_bytes () + 1 > STAGING_MAX_QUEUED_PIPELINES)
    return feed_start (self, direction, address, bytes, target, fed, error);
  return enqueue_pipelines_on (self, direction, address, data, size, bytes, target, error);
}

gboolean
cugi_staging_upload_pageable (CugiBuffer   *self,
                              CUdeviceptr   address,
                              GBytes       *bytes,
                              CugiStream   *target,
                              CugiFeed    **fed,
                              GError      **error)
{
  g_autoptr(CugiHostBuffer) staging = NULL;
  CUstream handle = cugi_stream_get_handle (target);
  CugiContext *context = self->ownership.binding.context;
  gsize size;
  guint8 *data = (guint8 *) g_bytes_get_data (bytes, &size);
  guint8 *staged;

  if (size >= cugi_staging_direct_bytes (CUGI_COPY_TO_DEVICE) && cugi_staging_can_pipeline ())
    switch (enqueue_pipelines (self, CUGI_COPY_TO_DEVICE, address, data, size, bytes, target, fed, error))
      {
      case CUGI_ENQUEUED:
        return TRUE;
      case CUGI_ENQUEUE_FAILED:
        return FALSE;
      case CUGI_ENQUEUE_UNSUPPORTED:
        /* Staged here, on this thread. */
        break;
      }

  if ((staging = cugi_staging_new_with_data (context, size, &staged, error)) == NULL)
    return FALSE;
  memcpy (staged, data, size);
  if (!CUGI_CALL (cuMemcpyHtoDAsync, (address, staged, size, handle), error))
    return FALSE;
  cugi_buffer_track_work (target, self, NULL, staging, NULL);
  return TRUE;
}

gboolean
cugi_staging_download_pipelined (CugiBuffer   *self,
                                 CUdeviceptr   address,
                                 gsize         size,
                                 CugiStream   *target,
                                 GBytes      **downloaded,
                                 CugiFeed    **fed,
                                 GError      **error)
{
  g_autoptr(GBytes) landing = NULL;
  guint8 *data;

  *downloaded = NULL;
  if ((data = g_try_malloc (size)) == NULL)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_OUT_OF_MEMORY,
                   _("Cannot allocate %zu bytes of host memory"), size);
      return FALSE;
    }
  landing = g_bytes_new_take (data, size);
  switch (enqueue_pipelines (self, CUGI_COPY_TO_HOST, address, data, size, landing, target, fed, error))
    {
    case CUGI_ENQUEUED:
      *downloaded = g_steal_pointer (&landing);
      return TRUE;
    case CUGI_ENQUEUE_FAILED:
      return FALSE;
    case CUGI_ENQUEUE_UNSUPPORTED:
      break;
    }
  return TRUE;
}

void
cugi_feed_return (GTask *task)
{
  CugiFeed *feed = g_task_get_task_data (task);
  GError *error = feed_dup_error (feed);

  if (error != NULL)
    g_task_return_error (task, error);
  else if (feed->direction == CUGI_COPY_TO_HOST)
    g_task_return_pointer (task, g_bytes_ref (feed->bytes), (GDestroyNotify) g_bytes_unref);
  else
    g_task_return_boolean (task, TRUE);
}
