/* cugi-work.c: what enqueued work keeps alive, on a stream or in a graph capture
 *
 * Every operation cugi enqueues records what it uses through
 * cugi_work_track(). Work that runs now keeps it on its stream until it has
 * completed (cugi_stream_track_work(): the stream's bursts and ::idle). Work
 * enqueued on a stream being captured into a graph runs only when the graph
 * does, as often as it is launched: what it uses goes to the capture, and
 * the graph made of it keeps that as long as it lives. (Argument lists
 * launched again and again keep their buffers themselves, pinned to their
 * stream: cugi_kernel_args_track_launch(), outside captures only.) The
 * lists of what work uses, with a release function per element, are made
 * here too (cugi_work_resources_new()).
 */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "cugi-stream-private.h"

static GMutex captures_lock;
static GHashTable *captures;  /* &CugiCapturedWork.capture_id → CugiCapturedWork */
/* Read on every launch: while it is 0, no launch needs to look further. */
gint cugi_work_n_captures;

CugiCapturedWork *
cugi_captured_work_new (cuuint64_t capture_id)
{
  CugiCapturedWork *self = g_new0 (CugiCapturedWork, 1);

  self->capture_id = capture_id;
  self->resources = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  self->kernels = g_hash_table_new_full (NULL, NULL, g_object_unref, NULL);
  return self;
}

void
cugi_captured_work_free (CugiCapturedWork *self)
{
  g_ptr_array_unref (self->resources);
  g_hash_table_unref (self->kernels);
  g_free (self);
}

/* The driver's id of the capture under way on @stream. */
static gboolean
get_capture_id (CugiStream *stream,
                cuuint64_t *id,
                GError    **error)
{
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  CUstream handle = cugi_stream_get_handle (stream);

  /* The legacy default stream is never captured, and a driver that cannot
   * report captures cannot make them. */
  if (handle != NULL && cugi_cuda.cuStreamGetCaptureInfo != NULL &&
      !CUGI_CALL (cuStreamGetCaptureInfo, (handle, &status, id, NULL, NULL, NULL, NULL), error))
    return FALSE;
  if (status == CU_STREAM_CAPTURE_STATUS_NONE)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE,
                           _("The stream is not being captured: call cugi_graph_capture_begin() first"));
      return FALSE;
    }
  return TRUE;
}

gboolean
cugi_work_begin_capture (CugiStream *stream,
                         GError    **error)
{
  cuuint64_t id = 0;
  CugiCapturedWork *capture;

  if (!get_capture_id (stream, &id, error))
    return FALSE;

  capture = cugi_captured_work_new (id);
  /* The stream layer cannot call this file's: it asks through the probe. */
  cugi_stream_set_capture_probe (cugi_work_has_captures);
  g_mutex_lock (&captures_lock);
  if (captures == NULL)
    captures = g_hash_table_new (g_int64_hash, g_int64_equal);
  g_hash_table_insert (captures, &capture->capture_id, capture);
  g_atomic_int_inc (&cugi_work_n_captures);
  g_mutex_unlock (&captures_lock);
  return TRUE;
}

CugiCapturedWork *
cugi_work_end_capture (CugiStream *stream,
                       GError    **error)
{
  CugiCapturedWork *capture = NULL;
  cuuint64_t id = 0;

  if (!get_capture_id (stream, &id, error))
    return NULL;

  g_mutex_lock (&captures_lock);
  if (captures != NULL && g_hash_table_steal_extended (captures, &id, NULL, (gpointer *) &capture))
    g_atomic_int_add (&cugi_work_n_captures, -1);
  g_mutex_unlock (&captures_lock);
  return capture != NULL ? capture : cugi_captured_work_new (id);
}

void
cugi_work_track (CugiStream *stream,
                 CugiKernel *kernel,
                 GPtrArray  *resources)
{
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  cuuint64_t id = 0;
  CugiCapturedWork *capture;

  if (G_LIKELY (!cugi_work_has_captures ()) ||
      cugi_cuda.cuStreamGetCaptureInfo (cugi_stream_get_handle (stream), &status, &id,
                                        NULL, NULL, NULL, NULL) != CUDA_SUCCESS ||
      status == CU_STREAM_CAPTURE_STATUS_NONE)
    {
      cugi_stream_track_work (stream, resources);
      return;
    }

  /* Captured: nothing runs now, so nothing is tracked on the stream. A
   * capture begun outside cugi cannot hold references: its owner keeps the
   * memory alive. */
  g_mutex_lock (&captures_lock);
  capture = captures != NULL ? g_hash_table_lookup (captures, &id) : NULL;
  if (capture != NULL)
    {
      if (resources != NULL)
        g_ptr_array_add (capture->resources, g_steal_pointer (&resources));
      if (kernel != NULL && !g_hash_table_contains (capture->kernels, kernel))
        g_hash_table_add (capture->kernels, g_object_ref (kernel));
    }
  g_mutex_unlock (&captures_lock);
  g_clear_pointer (&resources, g_ptr_array_unref);
}

/* ---- resources ------------------------------------------------------------ */

typedef struct
{
  gpointer       data;
  GDestroyNotify release;
} WorkResource;

static void
work_resource_free (gpointer data)
{
  WorkResource *resource = data;

  resource->release (resource->data);
  g_free (resource);
}

GPtrArray *
cugi_work_resources_new (void)
{
  return g_ptr_array_new_with_free_func (work_resource_free);
}

void
cugi_work_resources_add (GPtrArray      *resources,
                         gpointer        data,
                         GDestroyNotify  release)
{
  WorkResource *resource = g_new (WorkResource, 1);

  resource->data = data;
  resource->release = release;
  g_ptr_array_add (resources, resource);
}
