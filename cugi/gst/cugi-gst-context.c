/* cugi-gst-context.c: an element's CUDA context, negotiated as GStreamer's
 * CUDA elements do, as a CugiContext
 *
 * GStreamer's helpers (gst_cuda_ensure_element_context(),
 * gst_cuda_handle_set_context()) keep the element's GstCudaContext in a
 * pointer the element passes in and out. Here the element's context lives in
 * a record that libcugi-gst keeps on the element itself (qdata), so that
 * every call takes and returns plain values and is the same from C and from
 * any GObject-introspection language: during negotiation, a neighbour's
 * answer reaches the record through the element's set_context() and
 * cugi_gst_context_handle_set_context(), as GStreamer's helpers expect. */
#include <glib/gi18n-lib.h>

#include "cugi-gst-private.h"

/* The CUDA context of one element. */
typedef struct
{
  GstCudaContext *cuda_context;
  /* The CugiContext of cuda_context, made on first use. */
  CugiContext    *context;
  GstCudaContext *wrapped;
} ElementContext;

/* Held while an element's record is read or written: recursive, because
 * negotiation calls the element's set_context() from within
 * gst_cuda_ensure_element_context(), on the same thread. */
static GRecMutex element_lock;

static G_DEFINE_QUARK (cugi-gst-element-context, element_context)
/* What a CugiContext made by cugi_gst_context_new_for_cuda_context() came from. */
static G_DEFINE_QUARK (cugi-gst-cuda-context, cuda_context)

static void
element_context_free (gpointer data)
{
  ElementContext *record = data;

  g_clear_object (&record->context);
  gst_clear_object (&record->cuda_context);
  g_free (record);
}

/* The record of @element, made when @create. Call with element_lock held. */
static ElementContext *
element_context_get (GstElement *element,
                     gboolean    create)
{
  ElementContext *record = g_object_get_qdata (G_OBJECT (element), element_context_quark ());

  if (record == NULL && create)
    {
      record = g_new0 (ElementContext, 1);
      g_object_set_qdata_full (G_OBJECT (element), element_context_quark (), record,
                               element_context_free);
    }
  return record;
}

/* The record of @element if it has a CUDA context, else %NULL. Call with
 * element_lock held. */
static ElementContext *
element_context_with_cuda (GstElement *element)
{
  ElementContext *record = element_context_get (element, FALSE);

  return record != NULL && record->cuda_context != NULL ? record : NULL;
}

gboolean
cugi_gst_ensure_cuda_library (GError **error)
{
  if (!gst_cuda_load_library ())
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_NOT_AVAILABLE,
                           _("GStreamer's CUDA library could not load the CUDA driver"));
      return FALSE;
    }
  gst_cuda_memory_init_once ();
  return TRUE;
}

guint64
cugi_gst_context_handle (CugiContext *context)
{
  guint64 handle = 0;

  g_object_get (context, "handle", &handle, NULL);
  return handle;
}

/**
 * cugi_gst_context_new_for_cuda_context:
 * @cuda_context: a `GstCudaContext`
 * @error: return location for a #GError
 *
 * The #CugiContext of GStreamer's CUDA context @cuda_context, without a new
 * CUDA context: cugi's buffers, streams and kernels made in it share memory
 * with GStreamer's CUDA elements. The #CugiContext keeps @cuda_context alive
 * for as long as it needs it, and cugi_gst_context_get_cuda_context() gives
 * it back. A context cugi has already (the device's primary context, or one
 * wrapped before) gives the same object.
 *
 * Returns: (transfer full): the context, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiContext *
cugi_gst_context_new_for_cuda_context (GstCudaContext  *cuda_context,
                                       GError         **error)
{
  CugiContext *context;
  gpointer handle;

  g_return_val_if_fail (GST_IS_CUDA_CONTEXT (cuda_context), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  /* Loaded, since @cuda_context exists: this registers GStreamer's CUDA
   * memory types, for the frames of the context. */
  if (!cugi_gst_ensure_cuda_library (error))
    return NULL;
  handle = gst_cuda_context_get_handle (cuda_context);
  context = cugi_context_new_for_handle_full ((guint64) (guintptr) handle,
                                              gst_object_ref (cuda_context),
                                              gst_object_unref, error);
  /* A reference of its own: @context may be one cugi had already (a primary
   * context), which let go of the reference given above at once. */
  if (context != NULL)
    g_object_set_qdata_full (G_OBJECT (context), cuda_context_quark (),
                             gst_object_ref (cuda_context), gst_object_unref);
  return context;
}

/**
 * cugi_gst_context_get_cuda_context:
 * @context: a #CugiContext
 *
 * The `GstCudaContext` that @context was made for by
 * cugi_gst_context_new_for_cuda_context() or
 * cugi_gst_context_ensure_for_element(): the last one, where several share
 * one CUDA context.
 *
 * Returns: (transfer none) (nullable): the `GstCudaContext`, or %NULL for a
 *   context that GStreamer did not make
 *
 * Since: 0.1
 */
GstCudaContext *
cugi_gst_context_get_cuda_context (CugiContext *context)
{
  g_return_val_if_fail (CUGI_IS_CONTEXT (context), NULL);

  return g_object_get_qdata (G_OBJECT (context), cuda_context_quark ());
}

/* The CugiContext of @record's GstCudaContext, made on first use. Call with
 * element_lock held. */
static CugiContext *
element_context_wrap (ElementContext  *record,
                      GError         **error)
{
  if (record->context != NULL && record->wrapped == record->cuda_context)
    return g_object_ref (record->context);
  g_clear_object (&record->context);
  record->wrapped = NULL;
  record->context = cugi_gst_context_new_for_cuda_context (record->cuda_context, error);
  if (record->context == NULL)
    return NULL;
  record->wrapped = record->cuda_context;
  return g_object_ref (record->context);
}

/**
 * cugi_gst_context_ensure_for_element:
 * @element: the element that needs a CUDA context
 * @device_id: the CUDA device to use, or -1 for any
 * @error: return location for a #GError
 *
 * The CUDA context of @element, as GStreamer's CUDA elements find theirs
 * (gst_cuda_ensure_element_context()): the one it has already, else one
 * that a neighbour or the application shares through a context query or a
 * `need-context` message, else a new one for @device_id (device 0 for -1),
 * which is then announced with a `have-context` message. Call it when the
 * element starts, and from its set_context() and query() handlers call
 * cugi_gst_context_handle_set_context() and
 * cugi_gst_context_handle_context_query(); the element keeps its context
 * until cugi_gst_context_clear_for_element() or its finalization.
 *
 * Returns: (transfer full): the element's context, or %NULL with @error set
 *   (%CUGI_ERROR_NOT_AVAILABLE where GStreamer cannot load the CUDA driver,
 *   %CUGI_ERROR_FAILED where it could make no context)
 *
 * Since: 0.1
 */
CugiContext *
cugi_gst_context_ensure_for_element (GstElement  *element,
                                     gint         device_id,
                                     GError     **error)
{
  ElementContext *record;
  CugiContext *context = NULL;

  g_return_val_if_fail (GST_IS_ELEMENT (element), NULL);
  g_return_val_if_fail (device_id >= -1, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!cugi_gst_ensure_cuda_library (error))
    return NULL;
  g_rec_mutex_lock (&element_lock);
  record = element_context_get (element, TRUE);
  if (!gst_cuda_ensure_element_context (element, device_id, &record->cuda_context))
    g_set_error (error, CUGI_ERROR, CUGI_ERROR_FAILED,
                 _("GStreamer could not make a CUDA context for device %d"), MAX (device_id, 0));
  else
    context = element_context_wrap (record, error);
  g_rec_mutex_unlock (&element_lock);
  return context;
}

/**
 * cugi_gst_context_handle_set_context:
 * @element: an element that uses cugi_gst_context_ensure_for_element()
 * @context: (nullable): the context given to the element's set_context()
 * @device_id: the CUDA device the element uses, or -1 for any
 *
 * Takes the CUDA context a `GstContext` shares, as
 * gst_cuda_handle_set_context() does: call it from the element's
 * set_context() (then chain up). An element that has a CUDA context keeps
 * it; one that has none takes the shared one if it is on @device_id.
 *
 * Returns: %TRUE if @context is a CUDA context and @element now has a CUDA
 *   context
 *
 * Since: 0.1
 */
gboolean
cugi_gst_context_handle_set_context (GstElement *element,
                                     GstContext *context,
                                     gint        device_id)
{
  ElementContext *record;
  gboolean handled;

  g_return_val_if_fail (GST_IS_ELEMENT (element), FALSE);
  g_return_val_if_fail (device_id >= -1, FALSE);

  if (context == NULL)
    return FALSE;
  g_rec_mutex_lock (&element_lock);
  record = element_context_get (element, TRUE);
  handled = gst_cuda_handle_set_context (element, context, device_id, &record->cuda_context);
  g_rec_mutex_unlock (&element_lock);
  return handled;
}

/**
 * cugi_gst_context_handle_context_query:
 * @element: an element that uses cugi_gst_context_ensure_for_element()
 * @query: a query the element received
 *
 * Answers a context query for the CUDA context with the element's, as
 * gst_cuda_handle_context_query() does: call it from the element's query
 * handlers (for GstBaseTransform, query(), in both directions) before
 * chaining up.
 *
 * Returns: %TRUE if @query asked for a CUDA context and was answered
 *
 * Since: 0.1
 */
gboolean
cugi_gst_context_handle_context_query (GstElement *element,
                                       GstQuery   *query)
{
  ElementContext *record;
  gboolean handled = FALSE;

  g_return_val_if_fail (GST_IS_ELEMENT (element), FALSE);
  g_return_val_if_fail (GST_IS_QUERY (query), FALSE);

  if (GST_QUERY_TYPE (query) != GST_QUERY_CONTEXT)
    return FALSE;
  g_rec_mutex_lock (&element_lock);
  if ((record = element_context_with_cuda (element)) != NULL)
    handled = gst_cuda_handle_context_query (element, query, record->cuda_context);
  g_rec_mutex_unlock (&element_lock);
  return handled;
}

/**
 * cugi_gst_context_get_for_element:
 * @element: a #GstElement
 *
 * The CUDA context @element has, from cugi_gst_context_ensure_for_element()
 * or cugi_gst_context_handle_set_context(), as a #CugiContext, without
 * negotiating one.
 *
 * Returns: (transfer full) (nullable): the context, or %NULL if @element
 *   has none (or cugi cannot use it)
 *
 * Since: 0.1
 */
CugiContext *
cugi_gst_context_get_for_element (GstElement *element)
{
  ElementContext *record;
  CugiContext *context = NULL;

  g_return_val_if_fail (GST_IS_ELEMENT (element), NULL);

  g_rec_mutex_lock (&element_lock);
  if ((record = element_context_with_cuda (element)) != NULL)
    context = element_context_wrap (record, NULL);
  g_rec_mutex_unlock (&element_lock);
  return context;
}

/**
 * cugi_gst_context_get_cuda_context_for_element:
 * @element: a #GstElement
 *
 * The `GstCudaContext` @element has, from
 * cugi_gst_context_ensure_for_element() or
 * cugi_gst_context_handle_set_context(), for GStreamer's own CUDA API (such
 * as gst_cuda_buffer_pool_new()).
 *
 * Returns: (transfer full) (nullable): the `GstCudaContext`, or %NULL if
 *   @element has none
 *
 * Since: 0.1
 */
GstCudaContext *
cugi_gst_context_get_cuda_context_for_element (GstElement *element)
{
  ElementContext *record;
  GstCudaContext *cuda_context = NULL;

  g_return_val_if_fail (GST_IS_ELEMENT (element), NULL);

  g_rec_mutex_lock (&element_lock);
  if ((record = element_context_with_cuda (element)) != NULL)
    cuda_context = gst_object_ref (record->cuda_context);
  g_rec_mutex_unlock (&element_lock);
  return cuda_context;
}

/**
 * cugi_gst_context_clear_for_element:
 * @element: a #GstElement
 *
 * Lets go of @element's CUDA context, as an element does when it stops, so
 * that the next cugi_gst_context_ensure_for_element() negotiates afresh.
 *
 * Since: 0.1
 */
void
cugi_gst_context_clear_for_element (GstElement *element)
{
  g_return_if_fail (GST_IS_ELEMENT (element));

  g_rec_mutex_lock (&element_lock);
  g_object_set_qdata (G_OBJECT (element), element_context_quark (), NULL);
  g_rec_mutex_unlock (&element_lock);
}
