/* cugi-gst-private.h: what libcugi-gst's files share, not for its users */
#pragma once

#ifndef GST_USE_UNSTABLE_API
#define GST_USE_UNSTABLE_API
#endif
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>
#include <gst/gl/gl.h>
#if GST_CHECK_VERSION (1, 24, 0)
#include <gst/cuda/gstcudastream.h>
#endif

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

/* ---- cugi-gst-formats.c: a filter's formats and their memory, its caps ---- */

G_GNUC_INTERNAL gboolean             cugi_gst_formats_check         (const gchar * const *formats,
                                                                     GError             **error);
G_GNUC_INTERNAL void                 cugi_gst_formats_set_templates (GstElementClass     *element_class,
                                                                     const gchar * const *formats);
G_GNUC_INTERNAL const gchar * const *cugi_gst_formats_cuda          (void);
/* The memory caps features say, and caps between memories: see there. */
G_GNUC_INTERNAL CugiGstMemoryKind    cugi_gst_caps_memory_kind      (GstCapsFeatures     *features);
G_GNUC_INTERNAL GstCaps             *cugi_gst_caps_in_other_memory  (GstCaps             *caps,
                                                                     GstCaps             *filter,
                                                                     gboolean             same_memory);
G_GNUC_INTERNAL GstCaps             *cugi_gst_caps_keep_on_gpu      (GstCaps             *othercaps);

/* ---- cugi-gst-host-allocator.c: GstMemory in cugi's pinned host memory ---- */

#define CUGI_GST_TYPE_HOST_ALLOCATOR (cugi_gst_host_allocator_get_type ())
G_GNUC_INTERNAL
G_DECLARE_FINAL_TYPE (CugiGstHostAllocator, cugi_gst_host_allocator, CUGI_GST, HOST_ALLOCATOR, GstAllocator)

G_GNUC_INTERNAL GstAllocator   *cugi_gst_host_allocator_new     (CugiContext *context);
G_GNUC_INTERNAL CugiHostBuffer *cugi_gst_host_memory_get_buffer (GstMemory   *memory);

/* ---- cugi-gst-streams.c: a filter's CUDA stream and GStreamer 1.24's
 * stream semantics ---- */

typedef struct _CugiGstStreams CugiGstStreams;

G_GNUC_INTERNAL CugiGstStreams *cugi_gst_streams_new            (GstCudaContext *cuda_context,
                                                                 CugiContext    *context,
                                                                 GError        **error);
G_GNUC_INTERNAL void            cugi_gst_streams_free           (CugiGstStreams *self);
G_GNUC_INTERNAL void            cugi_gst_streams_dispatch       (CugiGstStreams *self);
G_GNUC_INTERNAL void            cugi_gst_streams_frame_done     (CugiGstStreams *self);
G_GNUC_INTERNAL CugiStream     *cugi_gst_streams_get_work       (CugiGstStreams *self);
G_GNUC_INTERNAL void            cugi_gst_streams_share          (CugiGstStreams *self,
                                                                 GstStructure   *config);
G_GNUC_INTERNAL gboolean        cugi_gst_streams_wait_for_input (CugiGstStreams *self,
                                                                 GstMemory      *memory,
                                                                 gboolean       *on_work,
                                                                 GError        **error);
G_GNUC_INTERNAL gboolean        cugi_gst_streams_mark_uploaded  (CugiGstStreams *self,
                                                                 GError        **error);
G_GNUC_INTERNAL gboolean        cugi_gst_streams_wait_for_upload (CugiGstStreams *self,
                                                                  GError        **error);
G_GNUC_INTERNAL gboolean        cugi_gst_streams_carries_work   (CugiGstStreams *self,
                                                                 GstMemory      *memory);
G_GNUC_INTERNAL void            cugi_gst_streams_mark_output    (CugiGstStreams *self,
                                                                 GstMemory      *memory,
                                                                 gboolean        complete);

/* ---- cugi-gst-gl.c: GL memory through GstGL ---- */

typedef struct _CugiGstGl CugiGstGl;

G_GNUC_INTERNAL CugiGstGl     *cugi_gst_gl_new            (void);
G_GNUC_INTERNAL void           cugi_gst_gl_free           (CugiGstGl          *self);
G_GNUC_INTERNAL void           cugi_gst_gl_set_context    (CugiGstGl          *self,
                                                           GstElement         *element,
                                                           GstContext         *context);
G_GNUC_INTERNAL gboolean       cugi_gst_gl_handle_query   (CugiGstGl          *self,
                                                           GstElement         *element,
                                                           GstQuery           *query);
G_GNUC_INTERNAL gboolean       cugi_gst_gl_ensure         (CugiGstGl          *self,
                                                           GstElement         *element,
                                                           GError            **error);
G_GNUC_INTERNAL GstBufferPool *cugi_gst_gl_new_pool       (CugiGstGl          *self);
G_GNUC_INTERNAL gboolean       cugi_gst_gl_pool_fits      (CugiGstGl          *self,
                                                           GstBufferPool      *pool);
G_GNUC_INTERNAL void           cugi_gst_gl_configure_pool (GstBufferPool      *pool,
                                                           GstStructure       *config);
G_GNUC_INTERNAL gboolean       cugi_gst_gl_transfer       (CugiGstGl          *self,
                                                           GstVideoFrame      *frame,
                                                           CugiContext        *context,
                                                           CugiBuffer * const *planes,
                                                           const gsize        *pitches,
                                                           const gsize        *row_bytes,
                                                           const guint        *rows,
                                                           gboolean            to_device,
                                                           CugiStream         *stream,
                                                           GError            **error);

/* ---- cugi-gst-frame.c: frames whose planes a filter made ---- */

/* A frame over planes that @buffer's mapping (held by the filter) and the
 * filter's own device memory provide: nothing is mapped or copied here, and
 * cugi_gst_frame_end_borrowed() ends it without freeing the planes, which
 * the filter keeps for the next frames. @reuse (transfer full, nullable): a
 * frame of the same @info that cugi_gst_frame_recycle() ended, bound again
 * instead of a new one made: a filter's frames then cost no object each. */
G_GNUC_INTERNAL CugiGstFrame *cugi_gst_frame_new_borrowed (CugiGstFrame       *reuse,
                                                           GstBuffer          *buffer,
                                                           const GstVideoInfo *info,
                                                           CugiGstMapFlags     flags,
                                                           CugiGstMemoryKind   memory_kind,
                                                           CugiContext        *context,
                                                           CugiStream         *stream,
                                                           CugiBuffer * const *planes,
                                                           const gsize        *pitches);
G_GNUC_INTERNAL void          cugi_gst_frame_end_borrowed (CugiGstFrame       *self);
/* Whether @self, ended, is held by nobody but the caller, who may then bind
 * it again (new_borrowed's @reuse): if so, its buffer is dropped, which it no
 * longer keeps from its pool or from being written downstream. */
G_GNUC_INTERNAL gboolean      cugi_gst_frame_recycle      (CugiGstFrame       *self);
/* Whether frames of @info can be mapped (their planes are rows of pixels),
 * and the bytes of pixels in a row and the rows of each plane. */
G_GNUC_INTERNAL gboolean      cugi_gst_frame_check_layout (const GstVideoInfo *info,
                                                           gsize              *row_sizes,
                                                           guint              *heights,
                                                           GError            **error);

G_END_DECLS
