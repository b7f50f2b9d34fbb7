/* cugi-gst-context.h: an element's CUDA context, negotiated as GStreamer's
 * CUDA elements do, as a CugiContext */
#pragma once

#if !defined(__CUGI_GST_INSIDE__) && !defined(CUGI_GST_COMPILATION)
#error "Only <cugi/gst/cugi-gst.h> can be included directly."
#endif

#include <cugi/cugi.h>
#include <gst/gst.h>

#include "cugi-gst-version-macros.h"

G_BEGIN_DECLS

/* GStreamer's CUDA context (gst/cuda/gstcudacontext.h, which needs
 * GST_USE_UNSTABLE_API): named here without including it, but for
 * g-ir-scanner, which takes it from GstCuda-1.0. */
#ifdef __GI_SCANNER__
#include <gst/cuda/gstcudacontext.h>
#else
typedef struct _GstCudaContext GstCudaContext;
#endif

CUGI_GST_AVAILABLE_IN_0_1
CugiContext    *cugi_gst_context_new_for_cuda_context   (GstCudaContext  *cuda_context,
                                                         GError         **error);
CUGI_GST_AVAILABLE_IN_0_1
GstCudaContext *cugi_gst_context_get_cuda_context       (CugiContext     *context);

CUGI_GST_AVAILABLE_IN_0_1
CugiContext    *cugi_gst_context_ensure_for_element     (GstElement      *element,
                                                         gint             device_id,
                                                         GError         **error);
CUGI_GST_AVAILABLE_IN_0_1
gboolean        cugi_gst_context_handle_set_context     (GstElement      *element,
                                                         GstContext      *context,
                                                         gint             device_id);
CUGI_GST_AVAILABLE_IN_0_1
gboolean        cugi_gst_context_handle_context_query   (GstElement      *element,
                                                         GstQuery        *query);
CUGI_GST_AVAILABLE_IN_0_1
CugiContext    *cugi_gst_context_get_for_element        (GstElement      *element);
CUGI_GST_AVAILABLE_IN_0_1
GstCudaContext *cugi_gst_context_get_cuda_context_for_element (GstElement *element);
CUGI_GST_AVAILABLE_IN_0_1
void            cugi_gst_context_clear_for_element      (GstElement      *element);

G_END_DECLS
