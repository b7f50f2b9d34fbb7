/* cugi-gst-filter.h: a base class for GStreamer video filters that run cugi
 * work on each frame */
#pragma once

#if !defined(__CUGI_GST_INSIDE__) && !defined(CUGI_GST_COMPILATION)
#error "Only <cugi/gst/cugi-gst.h> can be included directly."
#endif

#include <cugi/cugi.h>
#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>

#include "cugi-gst-version-macros.h"
#include "cugi-gst-frame.h"

G_BEGIN_DECLS

#define CUGI_GST_TYPE_FILTER (cugi_gst_filter_get_type ())
CUGI_GST_AVAILABLE_IN_0_1
G_DECLARE_DERIVABLE_TYPE (CugiGstFilter, cugi_gst_filter, CUGI_GST, FILTER, GstBaseTransform)

/**
 * CugiGstFilterClass:
 * @parent_class: the parent class
 * @set_info: called when the caps are set, before the first frame in them,
 *   with the input's and the output's format and size: the place to compile
 *   kernels and allocate what the frames need. The filter's context and
 *   stream are set by then. Optional.
 * @transform_frame: enqueues the work that reads @in_frame and writes
 *   @out_frame on @stream; the filter waits for it as far as its neighbours
 *   need. Needed unless the subclass works in place only.
 * @transform_frame_ip: enqueues the work that changes @frame in place on
 *   @stream. Where a subclass implements it, the filter works in place when
 *   the input and output caps are the same. Optional.
 *
 * The virtual methods of a #CugiGstFilter. Each returns %FALSE with the
 * error set on failure, which the filter posts as an element error carrying
 * the error's message.
 *
 * The frames are mapped for the call only (#CugiGstFrame:mapped turns
 * %FALSE after it). A frame nobody kept may be handed again, over the next
 * buffer, so that frames cost no object each: a subclass that keeps a frame
 * gets new ones after it, and the one it kept stays over its own buffer.
 *
 * Since: 0.1
 */
struct _CugiGstFilterClass
{
  GstBaseTransformClass parent_class;

  gboolean (*set_info)           (CugiGstFilter      *self,
                                  const GstVideoInfo *in_info,
                                  const GstVideoInfo *out_info,
                                  GError            **error);
  gboolean (*transform_frame)    (CugiGstFilter      *self,
                                  CugiGstFrame       *in_frame,
                                  CugiGstFrame       *out_frame,
                                  CugiStream         *stream,
                                  GError            **error);
  gboolean (*transform_frame_ip) (CugiGstFilter      *self,
                                  CugiGstFrame       *frame,
                                  CugiStream         *stream,
                                  GError            **error);

  /*< private >*/
  gpointer padding[12];
};

CUGI_GST_AVAILABLE_IN_0_1
gboolean     cugi_gst_filter_class_set_formats (CugiGstFilterClass  *klass,
                                                const gchar * const *formats,
                                                GError             **error);

CUGI_GST_AVAILABLE_IN_0_1
CugiContext *cugi_gst_filter_get_cugi_context       (CugiGstFilter       *self);
CUGI_GST_AVAILABLE_IN_0_1
CugiStream  *cugi_gst_filter_get_stream        (CugiGstFilter       *self);
CUGI_GST_AVAILABLE_IN_0_1
gint         cugi_gst_filter_get_device_id     (CugiGstFilter       *self);
CUGI_GST_AVAILABLE_IN_0_1
void         cugi_gst_filter_set_device_id     (CugiGstFilter       *self,
                                                gint                 device_id);
CUGI_GST_AVAILABLE_IN_0_1
const GstVideoInfo *cugi_gst_filter_get_in_info  (CugiGstFilter     *self);
CUGI_GST_AVAILABLE_IN_0_1
const GstVideoInfo *cugi_gst_filter_get_out_info (CugiGstFilter     *self);

G_END_DECLS
