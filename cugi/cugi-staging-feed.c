/* cugi-staging-feed.c: asynchronous copies of pageable memory through the
 * pipeline: on the caller's stream, or, when more than its queue holds or
 * where the staging pool holds no memory for them, on a stream of their own
 * fed from a thread */
#include "config.h"

#include <string.h>
#include <glib/gi18n-lib.h>

#include "cugi-context-private.h"
#include "cugi-stream-private.h"
#include "cugi-private.h"
#include "cugi-staging-private.h"

/* The pipelines of one asynchronous copy of @size bytes of @data (which
 * @bytes holds), in staging memory that the pool holds: NULL, without an
 * error, where it holds too little, for the copy to be fed from a thread,
 * which pins it. */
static GPtrArray *
held_pipelines_new (CugiContext        *context,
                    CugiCopyDirection   direction,
                    guint8             *data,
                    gsize               size,
                    GBytes             *bytes,
                    GError            **error)
{
  g_autoptr(GPtrArray) pipelines = g_ptr_array_new_with_free_func (cugi_pipeline_unref);
  gsize max_bytes = cugi_pipeline_max_bytes ();

  for (gsize done = 0; done < size; done += max_bytes)
    {
      g_autoptr(CugiHostBuffer) staging = NULL;
      CugiPipeline *pipeline = cugi_pipeline_new (context, direction, data + done, bytes,
                                                  MIN (size - done, max_bytes), FALSE, &staging, error);

      if (pipeline == NULL)
        return NULL;
      g_ptr_array_add (pipelines, pipeline);
    }
  return g_steal_pointer (&pipelines);
}

/* Enqueues @pipelines, those of held_pipelines_new() for an asynchronous
 * copy between @bytes and @address of @self, one after another on @target
 * until one is not; the stream keeps each one's staging, and @bytes, until
 * it is past it. A download's stream then waits for the host's side of them
 * all (for its completion and the staging's release), at the end rather
 * than after each, so that the device copies the next pipeline's chunks
 * while the workers finish the one before. CUGI_ENQUEUE_UNSUPPORTED only
 * where nothing was enqueued. */
static CugiEnqueueResult
enqueue_pipelines_on (CugiBuffer         *self,
                      GPtrArray          *pipelines,
                      CugiCopyDirection   direction,
                      CUdeviceptr         address,
                      GBytes             *bytes,
                      CugiStream         *target,
                      GError            **error)
{
  CUstream handle = cugi_stream_get_handle (target);
  CugiEnqueueResult result = CUGI_ENQUEUED;
  guint n_enqueued;

  for (n_enqueued = 0; n_enqueued < pipelines->len && result == CUGI_ENQUEUED; n_enqueued++)
    {
      CugiPipeline *pipeline = g_ptr_array_index (pipelines, n_enqueued);

      result = cugi_pipeline_enqueue (pipeline, address + n_enqueued * cugi_pipeline_max_bytes (), handle, error);
      if (result == CUGI_ENQUEUE_UNSUPPORTED)
        break;
      /* Even after an error, what was enqueued must run, and waits for the
       * workers' side; they let go of the staging once done, so the stream
       * takes it first. */
      cugi_buffer_track_work (target, self, NULL, pipeline->staging, bytes);
      cugi_pipeline_start (pipeline, cugi_staging_get_threads ());
    }
  if (result == CUGI_ENQUEUE_UNSUPPORTED && n_enqueued > 0)
    {
      cugi_staging_set_stopped_waiting_error (error);
      result = CUGI_ENQUEUE_FAILED;
    }
  for (guint i = 0; direction == CUGI_COPY_TO_HOST && i < n_enqueued; i++)
    if (!cugi_pipeline_enqueue_host_waits (g_ptr_array_index (pipelines, i), handle,
                                           result == CUGI_ENQUEUED ? error : NULL))
      {
        result = CUGI_ENQUEUE_FAILED;
        break;
      }
  return result;
}

/* ---- gates ------------------------------------------------------------------ */

/* A fed copy's gate is a word of pinned memory that the caller's stream
 * waits on in the copy's place and that the copy's stream writes at its
 * end. Gates come GATES_PER_PAGE to a page of staging memory kept for
 * them, so that starting a fed copy pins nothing on the calling thread
 * either (a copy is fed where the pool holds no staging for it so that the
 * caller need not pin it): the process's first fed copy pins a page, and
 * one that finds all the pages' gates in use. */
#define GATES_PER_PAGE 64
/* gints between gates: one a cache line. */
#define GATE_STRIDE 16

typedef struct
{
  CugiHostBuffer *memory;  /* staging, kept until a reset of its context takes it */
  gint           *gates;
  guint64         used;    /* a bit a gate */
} GatePage;

/* Guards the pages and their bits. Never held while pinning or calling
 * CUDA: the gates of fed copies that end are given back under it. */
static GMutex gates_lock;
static GPtrArray *gate_pages;  /* GatePage, made on first use */

static void
gate_page_free (gpointer data)
{
  GatePage *page = data;

  g_object_unref (page->memory);
  g_free (page);
}

/* A free gate, its page in *@taken_from, or NULL; a page whose memory went
 * with a reset of its context goes once none of its gates is in use.
 * Called with gates_lock held. */
static gint *
gate_take_locked (GatePage **taken_from)
{
  for (guint i = gate_pages->len; i-- > 0;)
    {
      GatePage *page = g_ptr_array_index (gate_pages, i);
      guint index = 0;

      if (cugi_host_buffer_get_data (page->memory, NULL, NULL) == NULL)
        {
          if (page->used == 0)
            g_ptr_array_remove_index_fast (gate_pages, i);
          continue;
        }
      if (page->used == G_MAXUINT64)
        continue;
      while (page->used & (G_GUINT64_CONSTANT (1) << index))
        index++;
      page->used |= G_GUINT64_CONSTANT (1) << index;
      *taken_from = page;
      return page->gates + (gsize) index * GATE_STRIDE;
    }
  return NULL;
}

/* A closed gate, its page in *@taken_from (for gate_release()); a page is
 * made from @context's staging when all gates are taken. */
static gint *
gate_take (CugiContext  *context,
           GatePage    **taken_from,
           GError      **error)
{
  GatePage *made = NULL;

  for (;;)
    {
      gint *gate;
      guint8 *data;

      g_mutex_lock (&gates_lock);
      if (gate_pages == NULL)
        gate_pages = g_ptr_array_new_with_free_func (gate_page_free);
      if (made != NULL)
        g_ptr_array_add (gate_pages, g_steal_pointer (&made));
      gate = gate_take_locked (taken_from);
      g_mutex_unlock (&gates_lock);
      if (gate != NULL)
        {
          *gate = 0;
          return gate;
        }

      made = g_new0 (GatePage, 1);
      if ((made->memory = cugi_staging_new_with_data (context, GATES_PER_PAGE * GATE_STRIDE * sizeof (gint),
                                                      TRUE, &data, error)) == NULL)
        {
          g_free (made);
          return NULL;
        }
      made->gates = (gint *) data;
    }
}

static void
gate_release (GatePage *page,
              gint     *gate)
{
  g_mutex_lock (&gates_lock);
  page->used &= ~(G_GUINT64_CONSTANT (1) << ((gate - page->gates) / GATE_STRIDE));
  g_mutex_unlock (&gates_lock);
}

/* ---- copies fed from a thread ------------------------------------------------ */

/* A stream's queue holds some 700 operations (three a chunk, up to 64
 * chunks a pipeline), and enqueuing beyond waits until the device gets
 * through some: an asynchronous copy of more pipelines than this would
 * hold up its caller (a 1 GiB download, 27 ms of the main loop on the
 * H200). Such a copy runs on a stream of its own, fed by a thread of
 * cugi's that keeps at most this many of its pipelines on it at a time
 * (feed_copy()); the caller's stream waits, in its place, for a gate that
 * the copy's stream opens at its end. So does a copy for which the staging
 * pool holds no memory: the feeder pins it, which takes milliseconds
 * (3 ms for the 10 MiB of an 8 MiB upload's pipeline on the H200, a
 * main-loop stall when its caller did it), and gives it to the pool after,
 * for the next copy of that size to take on its calling thread. */
#define STAGING_MAX_QUEUED_PIPELINES 2

struct _CugiFeed
{
  CugiContext       *context;
  CugiCopyDirection  direction;
  CUdeviceptr        address;
  /* The host's side of the copy: for a download into staging, made by the
   * feeder (under lock), of @size bytes. */
  GBytes            *bytes;
  gsize              size;
  gboolean           into_staging;
  CUstream           side;           /* the copy's stream, destroyed by the feeder */
  CUevent            start;          /* where the copy starts on the caller's stream */
  GatePage          *gate_page;      /* holds the gate */
  gint              *gate;
  CUdeviceptr        gate_device;
  GPtrArray         *staging;        /* the last pipelines', until the feed is freed */
  GMutex             lock;
  GError            *error;          /* the feeder's, under lock */
};

static void
feed_clear (gpointer data)
{
  CugiFeed *self = data;

  g_clear_object (&self->context);
  g_clear_pointer (&self->bytes, g_bytes_unref);
  if (self->gate_page != NULL)
    gate_release (self->gate_page, self->gate);
  g_clear_pointer (&self->staging, g_ptr_array_unref);
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
 * staging by the host). The feed keeps their staging until it is freed,
 * after the caller's stream is past the gate. */
static gboolean
feed_copy (CugiFeed  *self,
           GError   **error)
{
  g_autoptr(GPtrArray) in_flight = g_ptr_array_new_with_free_func (cugi_pipeline_unref);
  /* Their staging, held here: the workers let go of it once done. */
  g_autoptr(GPtrArray) in_flight_staging = g_ptr_array_new_with_free_func (g_object_unref);
  CugiEnqueueResult result = CUGI_ENQUEUED;
  gsize done, piece = 0;
  guint8 *host = (guint8 *) g_bytes_get_data (self->bytes, NULL);

  for (done = 0; done < self->size && result == CUGI_ENQUEUED; done += piece)
    {
      CugiHostBuffer *staging = NULL;
      CugiPipeline *pipeline;

      if (in_flight->len == STAGING_MAX_QUEUED_PIPELINES)
        {
          CugiPipeline *oldest = g_ptr_array_index (in_flight, 0);

          cugi_pipeline_wait (oldest);
          if (self->direction == CUGI_COPY_TO_DEVICE)
            cugi_pipeline_wait_stream_past (oldest);
          g_ptr_array_remove_index (in_flight, 0);
          g_ptr_array_remove_index (in_flight_staging, 0);
        }
      piece = MIN (self->size - done, cugi_pipeline_max_bytes ());
      pipeline = cugi_pipeline_new (self->context, self->direction, host + done, self->bytes, piece, TRUE, &staging,
                                    error);
      if (pipeline == NULL)
        {
          result = CUGI_ENQUEUE_FAILED;
          break;
        }
      g_ptr_array_add (in_flight, pipeline);
      g_ptr_array_add (in_flight_staging, staging);
      result = cugi_pipeline_enqueue (pipeline, self->address + done, self->side, error);
      if (result == CUGI_ENQUEUE_UNSUPPORTED)
        {
          g_ptr_array_set_size (in_flight, in_flight->len - 1);
          g_ptr_array_set_size (in_flight_staging, in_flight_staging->len - 1);
          break;
        }
      /* Even after an error, what was enqueued must run, and waits for the
       * workers' side. Rather than wait, the feeder helps them. */
      cugi_pipeline_start (pipeline, cugi_staging_get_threads ());
      cugi_pipeline_run (pipeline);
    }
  for (guint i = 0; result == CUGI_ENQUEUED && i < in_flight->len; i++)
    cugi_pipeline_wait (g_ptr_array_index (in_flight, i));
  if (result == CUGI_ENQUEUE_UNSUPPORTED)
    cugi_staging_set_stopped_waiting_error (error);
  /* The stream may still read an upload's staging, or be short of a
   * failed pipeline's end. */
  g_ptr_array_extend_and_steal (self->staging, g_steal_pointer (&in_flight_staging));
  return result == CUGI_ENQUEUED;
}

/* The feeder's copy of a download into staging memory, which it pins where
 * the pool holds none: the feed's bytes from then on. */
static gboolean
feed_land (CugiFeed  *self,
           GError   **error)
{
  g_autoptr(CugiHostBuffer) staging = cugi_staging_new (self->context, self->size, TRUE, error);
  g_autoptr(GBytes) landing = NULL;

  if (staging == NULL || (landing = cugi_host_buffer_get_bytes (staging, error)) == NULL ||
      !CUGI_CALL (cuMemcpyDtoHAsync, ((void *) g_bytes_get_data (landing, NULL), self->address, self->size,
                                      self->side), error))
    return FALSE;
  g_mutex_lock (&self->lock);
  self->bytes = g_steal_pointer (&landing);
  g_mutex_unlock (&self->lock);
  return TRUE;
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
      if (!(self->into_staging ? feed_land (self, &error) : feed_copy (self, &error)))
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
  cugi_synchronizing_release_open_gate ();
}

static gpointer
feeders_new (gpointer data)
{
  return g_thread_pool_new (feed_run, NULL, -1, FALSE, NULL);
}

/* Starts an asynchronous copy of @size bytes between @bytes and @address
 * (a download into staging memory where @bytes is NULL) fed from a thread
 * (see STAGING_MAX_QUEUED_PIPELINES): what the caller's stream @target
 * gets now is an event and the wait for the gate, and its calling thread
 * pins nothing but, once, a page of gates. CUGI_ENQUEUE_UNSUPPORTED, with
 * nothing that matters enqueued, where the stream cannot wait for memory. */
static CugiEnqueueResult
feed_start (CugiBuffer         *buffer,
            CugiCopyDirection   direction,
            CUdeviceptr         address,
            GBytes             *bytes,
            gsize               size,
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

  g_mutex_init (&self->lock);
  self->context = g_object_ref (context);
  self->direction = direction;
  self->address = address;
  self->bytes = bytes != NULL ? g_bytes_ref (bytes) : NULL;
  self->size = size;
  self->into_staging = bytes == NULL;
  self->staging = g_ptr_array_new_with_free_func (g_object_unref);
  if ((self->gate = gate_take (context, &self->gate_page, error)) == NULL)
    return CUGI_ENQUEUE_FAILED;
  if (!CUGI_CALL (cuMemHostGetDevicePointer, (&self->gate_device, self->gate, 0), error) ||
      !CUGI_CALL (cuStreamCreateWithPriority, (&self->side, CU_STREAM_NON_BLOCKING, 0), error) ||
      !CUGI_CALL (cuEventCreate, (&self->start, CU_EVENT_DISABLE_TIMING), error) ||
      !CUGI_CALL (cuEventRecord, (self->start, handle), error) ||
      !CUGI_CALL (cuStreamWaitEvent, (self->side, self->start, 0), error))
    {
      feed_destroy_stream (self);
      return CUGI_ENQUEUE_FAILED;
    }
  /* From here until the feeder opens the gate, no free may wait for the
   * device (cugi-synchronizing-release.c). */
  cugi_synchronizing_release_close_gate ();
  if (!CUGI_CALL (cuStreamWaitValue32, (handle, self->gate_device, 1, CU_STREAM_WAIT_VALUE_GEQ), &wait_error))
    {
      cugi_synchronizing_release_open_gate ();
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
 * holds) and @address on @target: as pipelines one after another in
 * staging that the pool holds, or, when more than the stream's queue holds
 * or where the pool holds too little, fed from a thread (in *@fed, whose
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
  if ((size - 1) / cugi_pipeline_max_bytes () + 1 <= STAGING_MAX_QUEUED_PIPELINES)
    {
      g_autoptr(GError) staging_error = NULL;
      g_autoptr(GPtrArray) pipelines = held_pipelines_new (self->ownership.binding.context, direction, data, size,
                                                           bytes, &staging_error);

      if (pipelines != NULL)
        return enqueue_pipelines_on (self, pipelines, direction, address, bytes, target, error);
      if (staging_error != NULL)
        {
          g_propagate_error (error, g_steal_pointer (&staging_error));
          return CUGI_ENQUEUE_FAILED;
        }
    }
  return feed_start (self, direction, address, bytes, size, target, fed, error);
}

/* Pinned memory for @size bytes that the staging pool holds, or where it
 * holds none and @may_feed, the copy that needs it fed from a thread
 * (feed_start() of @bytes, with *@fed set); else, where the stream cannot
 * wait for memory, memory pinned here, the only way left. NULL where the
 * copy was fed (*@fed set) or failed (@error set). */
static CugiHostBuffer *
staging_here_or_feed (CugiBuffer         *self,
                      CugiCopyDirection   direction,
                      CUdeviceptr         address,
                      GBytes             *bytes,
                      gsize               size,
                      gboolean            may_feed,
                      CugiStream         *target,
                      CugiFeed          **fed,
                      GError            **error)
{
  CugiContext *context = self->ownership.binding.context;
  g_autoptr(GError) local_error = NULL;
  CugiHostBuffer *staging = cugi_staging_new (context, size, FALSE, &local_error);

  *fed = NULL;
  if (staging != NULL)
    return staging;
  if (local_error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return NULL;
    }
  if (may_feed)
    switch (feed_start (self, direction, address, bytes, size, target, fed, error))
      {
      case CUGI_ENQUEUED:
      case CUGI_ENQUEUE_FAILED:
        return NULL;
      case CUGI_ENQUEUE_UNSUPPORTED:
        break;
      }
  return cugi_staging_new (context, size, TRUE, error);
}

/* Whether enqueue_pipelines()'s @result decides the copy, with @copied
 * telling whether it is on its way (else it failed); FALSE where nothing was
 * enqueued, the stream being unable to wait for memory. */
static gboolean
pipelines_decided (CugiEnqueueResult  result,
                   gboolean          *copied)
{
  *copied = result == CUGI_ENQUEUED;
  return result != CUGI_ENQUEUE_UNSUPPORTED;
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
  gboolean may_feed = cugi_staging_can_pipeline ();
  gboolean copied;
  gsize size;
  guint8 *data = (guint8 *) g_bytes_get_data (bytes, &size);
  guint8 *staged;

  if (size >= cugi_staging_direct_bytes (CUGI_COPY_TO_DEVICE) && may_feed)
    {
      if (pipelines_decided (enqueue_pipelines (self, CUGI_COPY_TO_DEVICE, address, data, size,
                                                bytes, target, fed, error), &copied))
        return copied;
      may_feed = FALSE;
    }

  /* Staged here, on this thread, where the pool holds memory for it. */
  staging = staging_here_or_feed (self, CUGI_COPY_TO_DEVICE, address, bytes, size, may_feed, target, fed, error);
  if (staging == NULL)
    return *fed != NULL;
  if ((staged = cugi_host_buffer_get_data (staging, NULL, error)) == NULL)
    return FALSE;
  memcpy (staged, data, size);
  if (!CUGI_CALL (cuMemcpyHtoDAsync, (address, staged, size, cugi_stream_get_handle (target)), error))
    return FALSE;
  cugi_buffer_track_work (target, self, NULL, staging, NULL);
  return TRUE;
}

gboolean
cugi_staging_download (CugiBuffer   *self,
                       CUdeviceptr   address,
                       gsize         size,
                       CugiStream   *target,
                       GBytes      **downloaded,
                       CugiFeed    **fed,
                       GError      **error)
{
  g_autoptr(CugiHostBuffer) staging = NULL;
  g_autoptr(GBytes) staged = NULL;
  gboolean may_feed = cugi_staging_can_pipeline ();
  gboolean copied;

  *downloaded = NULL;
  *fed = NULL;
  if (size > CUGI_STAGING_MAX_PINNED_DOWNLOAD_BYTES && may_feed)
    {
      g_autoptr(GBytes) landing = NULL;
      guint8 *data;

      if ((data = g_try_malloc (size)) == NULL)
        {
          g_set_error (error, CUGI_ERROR, CUGI_ERROR_OUT_OF_MEMORY,
                       _("Cannot allocate %zu bytes of host memory"), size);
          return FALSE;
        }
      landing = g_bytes_new_take (data, size);
      if (pipelines_decided (enqueue_pipelines (self, CUGI_COPY_TO_HOST, address, data, size,
                                                landing, target, fed, error), &copied))
        {
          if (copied)
            *downloaded = g_steal_pointer (&landing);
          return copied;
        }
      may_feed = FALSE;
    }

  /* Into staging memory, which the bytes are. */
  staging = staging_here_or_feed (self, CUGI_COPY_TO_HOST, address, NULL, size, may_feed, target, fed, error);
  if (staging == NULL)
    return *fed != NULL;
  if ((staged = cugi_host_buffer_get_bytes (staging, error)) == NULL ||
      !CUGI_CALL (cuMemcpyDtoHAsync, ((void *) g_bytes_get_data (staged, NULL), address, size,
                                      cugi_stream_get_handle (target)), error))
    return FALSE;
  cugi_buffer_track_work (target, self, NULL, NULL, staged);
  *downloaded = g_steal_pointer (&staged);
  return TRUE;
}

void
cugi_feed_return (GTask *task)
{
  CugiFeed *feed = g_task_get_task_data (task);
  GError *error;
  GBytes *bytes;

  /* What the feeder left, before it opened the gate. */
  g_mutex_lock (&feed->lock);
  error = feed->error != NULL ? g_error_copy (feed->error) : NULL;
  bytes = feed->bytes != NULL ? g_bytes_ref (feed->bytes) : NULL;
  g_mutex_unlock (&feed->lock);

  if (error != NULL)
    g_task_return_error (task, error);
  else if (feed->direction == CUGI_COPY_TO_HOST)
    g_task_return_pointer (task, g_steal_pointer (&bytes), (GDestroyNotify) g_bytes_unref);
  else
    g_task_return_boolean (task, TRUE);
  g_clear_pointer (&bytes, g_bytes_unref);
}
