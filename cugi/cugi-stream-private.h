/* cugi-stream-private.h: internals of the streams layer (streams, events,
 * the completion bridge, work tracking), for the files that use them. Not
 * installed. */
#pragma once

#include "cugi-private.h"

G_BEGIN_DECLS

/* ---- work lifetimes (cugi-work.c) ----------------------------------------- */

/* What work just enqueued on @stream (a launch, a copy, a memset, a graph
 * launch) uses must outlive it; every such operation records it here.
 * On a stream that is being captured the work runs only when the graph
 * does, so @resources (transfer full, nullable) go to the capture, and so
 * does @kernel (nullable: the kernel a launch ran, for the argument checks
 * of the executable graphs); otherwise they go to cugi_stream_track_work(). */
void      cugi_work_track              (CugiStream  *stream,
                                        CugiKernel  *kernel,
                                        GPtrArray   *resources);
/* TRUE while a capture registered with cugi_work_begin_capture() is under
 * way, on any stream; until then a launch whose arguments pin their stream
 * (cugi_kernel_args_track_launch()) needs no cugi_work_track(). */
gboolean  cugi_work_has_captures       (void);

/* What captured work uses, which the graph made of it keeps. */
typedef struct
{
  cuuint64_t  capture_id;  /* the driver's */
  GPtrArray  *resources;   /* (element-type GPtrArray) */
  GHashTable *kernels;     /* (element-type CugiKernel): a set, owning them */
} CugiCapturedWork;

/* Registers the capture just begun on @stream, so that the work enqueued
 * in it is recorded there. Keyed by the driver's capture id rather than by
 * stream: work on another stream that joined the capture (through an event
 * wait) lands in the same graph. INVALID_STATE when @stream is not being
 * captured. */
gboolean  cugi_work_begin_capture      (CugiStream  *stream,
                                        GError     **error);
/* Unregisters the capture of @stream before it ends, so that no work can be
 * added to it after: what it recorded (transfer full; empty for a capture
 * begun outside cugi, whose owner keeps its memory alive), or NULL with
 * INVALID_STATE when @stream is not being captured. */
CugiCapturedWork *cugi_work_end_capture (CugiStream *stream,
                                         GError    **error);
void      cugi_captured_work_free      (CugiCapturedWork *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CugiCapturedWork, cugi_captured_work_free)

/* ---- streams (cugi-stream.c) ---------------------------------------------- */

/* Whether any capture is under way, on any stream: a driver query then
 * could break it. cugi-work.c, which knows, sets @has_captures before it
 * registers its first capture; until then there is none. */
void      cugi_stream_set_capture_probe (gboolean (*has_captures) (void));

G_END_DECLS
