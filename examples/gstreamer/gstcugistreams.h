/* gstcugistreams.h: the CUDA stream of a cugi element and GStreamer 1.24's
 * stream semantics (the stream that each GstCudaMemory carries) */
#pragma once

#include <gst/gst.h>
#include <gst/cuda/gstcudacontext.h>
#include <cugi/cugi.h>

G_BEGIN_DECLS

typedef struct _GstCugiStreams GstCugiStreams;

GstCugiStreams *gst_cugi_streams_new            (GstCudaContext *cuda_context,
                                                 CugiContext    *context,
                                                 GError        **error);
void            gst_cugi_streams_free           (GstCugiStreams *self);

CugiStream     *gst_cugi_streams_get_work       (GstCugiStreams *self);

void            gst_cugi_streams_share          (GstCugiStreams *self,
                                                 GstStructure   *config);

gboolean        gst_cugi_streams_wait_for_input (GstCugiStreams *self,
                                                 GstMemory      *memory,
                                                 gboolean       *on_work,
                                                 GError        **error);
gboolean        gst_cugi_streams_carries_work   (GstCugiStreams *self,
                                                 GstMemory      *memory);
void            gst_cugi_streams_mark_output    (GstCugiStreams *self,
                                                 GstMemory      *memory,
                                                 gboolean        complete);

G_END_DECLS
