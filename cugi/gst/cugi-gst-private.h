/* cugi-gst-private.h: what libcugi-gst's files share, not for its users */
#pragma once

#ifndef GST_USE_UNSTABLE_API
#define GST_USE_UNSTABLE_API
#endif
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>

#include "cugi-gst.h"

G_BEGIN_DECLS

/* GStreamer 1.24 gave GstCudaMemory a stream (gst_cuda_memory_get_stream()). */
#define CUGI_GST_HAVE_MEMORY_STREAM GST_CHECK_VERSION (1, 24, 0)

/* Loads GStreamer's CUDA library (gst_cuda_load_library(), without which
 * GstCuda aborts the process) and registers its memory types; a library that
 * will not load is a CUGI_ERROR_NOT_AVAILABLE error. cugi-gst-context.c. */
gboolean cugi_gst_ensure_cuda_library (GError **error);

/* The CUcontext of @context, as the integer cugi hands out. */
guint64  cugi_gst_context_handle (CugiContext *context);

G_END_DECLS
