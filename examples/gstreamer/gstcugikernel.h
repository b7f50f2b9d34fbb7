/* gstcugikernel.h: a GStreamer element running a CUDA C++ kernel on frames */
#pragma once

#include <cugi/gst/cugi-gst.h>

G_BEGIN_DECLS

#define GST_TYPE_CUGI_KERNEL (gst_cugi_kernel_get_type ())
G_DECLARE_FINAL_TYPE (GstCugiKernel, gst_cugi_kernel, GST, CUGI_KERNEL, CugiGstFilter)

GST_ELEMENT_REGISTER_DECLARE (cugikernel);

G_END_DECLS
