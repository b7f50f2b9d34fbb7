/* cugi-gst.h: libcugi-gst, GStreamer video frames and CUDA contexts as cugi
 * objects (namespace CugiGst) */
#pragma once

#define __CUGI_GST_INSIDE__

#include <cugi/cugi.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include "cugi-gst-version-macros.h"
#include "cugi-gst-context.h"
#include "cugi-gst-frame.h"
#include "cugi-gst-filter.h"
#include "cugi-gst-enums.h"

#undef __CUGI_GST_INSIDE__
