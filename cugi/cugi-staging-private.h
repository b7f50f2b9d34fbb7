/* cugi-staging-private.h: internals of the transfers through pinned staging
 * memory, shared by their files, lowest first: the staging pool
 * (cugi-staging-pool.c), the pipeline that copies pageable memory in chunks
 * and the synchronous copies through it (cugi-staging-pipeline.c), the
 * asynchronous copies through it, on the caller's stream or fed from a
 * thread (cugi-staging-feed.c), and the asynchronous transfers
 * (cugi-staging.c). Not installed. */
#pragma once

#include "cugi-memory-private.h"
#include "cugi-buffer-private.h"

G_BEGIN_DECLS

/* ---- the staging pool (cugi-staging-pool.c) ------------------------------- */

/* Beyond this many bytes held for reuse, blocks given back are freed. */
#define CUGI_STAGING_MAX_HELD_BYTES ((gsize) 512 << 20)
/* An asynchronous download of up to this many bytes lands in staging
 * memory, which the pool can hold for the next; a larger one in ordinary
 * memory, through the pipeline. */
#define CUGI_STAGING_MAX_PINNED_DOWNLOAD_BYTES (CUGI_STAGING_MAX_HELD_BYTES / 2)

/* The staging pool of @context's device (borrowed), made on first use. */
CugiHostMemoryPool *cugi_staging_get_pool  (CugiContext  *context,
                                            GError      **error);
/* Pinned memory for @size bytes from the staging pool of @context's device.
 * Unless @may_pin, only memory the pool holds: NULL without an error where
 * it holds none, for the asynchronous calls, whose thread (a main loop's)
 * must not wait the milliseconds that pinning takes. */
CugiHostBuffer *cugi_staging_new           (CugiContext  *context,
                                            gsize         size,
                                            gboolean      may_pin,
                                            GError      **error);
/* cugi_staging_new(), and the memory itself in *@data, for the copies that
 * stage through it. */
CugiHostBuffer *cugi_staging_new_with_data (CugiContext  *context,
                                            gsize         size,
                                            gboolean      may_pin,
                                            guint8      **data,
                                            GError      **error);

/* ---- the pipeline (cugi-staging-pipeline.c) ------------------------------- */

/* A copy through the staging slots, shared by the threads doing the host's
 * side. It holds the staging, and for an asynchronous copy the caller's
 * memory, until its host's side is done, even where the stream got past
 * the copy before (a copy enqueued in part, after an error); its maker
 * holds the staging for as long as it needs more (the slots, the
 * counters), taking it from cugi_pipeline_new() or from here before the
 * workers start. */
typedef struct
{
  CugiCopyDirection direction;
  guint8           *host;          /* the caller's memory */
  GBytes           *host_bytes;    /* what holds it, for an asynchronous copy; else NULL */
  CugiHostBuffer   *staging;       /* holds the slots and counters, until host_done */
  guint8           *slots;         /* n_slots chunks of staging memory */
  gint             *counters;      /* host[s] at 2s, device[s] at 2s + 1, strided */
  CUdeviceptr       counters_device;  /* the device's address of counters, once enqueued */
  gsize             size;
  gsize             chunk_size;
  guint             n_slots;
  guint             n_chunks;      /* those the host must do: all but after an error */
  gint              next;          /* the next chunk to take */
  gint              done;          /* the chunks done */
  GMutex            lock;          /* for a caller waiting for host_done */
  GCond             all_done;
  gboolean          host_done;     /* under lock: all chunks done, staging let go */
} CugiPipeline;

typedef enum
{
  CUGI_ENQUEUED,
  CUGI_ENQUEUE_FAILED,       /* part of it is enqueued: the host must do its side */
  CUGI_ENQUEUE_UNSUPPORTED,  /* nothing is: the stream cannot wait for memory */
} CugiEnqueueResult;

/* The size from which a copy in @direction goes through the pipeline. */
gsize     cugi_staging_direct_bytes     (CugiCopyDirection direction);
/* The threads doing the host's side of a copy (a synchronous copy's calling
 * thread is one). */
guint     cugi_staging_get_threads      (void);
/* Whether the driver can DMA straight from or to @data: pinned host memory
 * (a CugiHostBuffer's bytes, say) needs no staging. */
gboolean  cugi_staging_is_pinned        (const guint8 *data,
                                         gsize         size);
/* Whether the driver has the stream memory operations the pipeline needs. */
gboolean  cugi_staging_can_pipeline     (void);
/* The largest piece of a copy that one pipeline moves. A pipeline's device
 * side is enqueued whole before its workers start, and a stream's queue
 * holds a limited number of operations: on the H100, 256 chunks (768
 * operations) filled it, and enqueuing waited for workers that had not
 * started. Larger copies run as several pipelines, one after another. */
gsize     cugi_pipeline_max_bytes       (void);
/* A stream that waited for memory in a copy's first pipeline refused to in
 * a later one: the copy is cut short. */
void      cugi_staging_set_stopped_waiting_error (GError **error);

/* A pipeline for @size bytes of @host (in @host_bytes for an asynchronous
 * copy, else NULL), the counters zeroed, in staging memory of @context's
 * device that it returns in *@staging (which the pipeline's work needs
 * until it is done); NULL with @error set, or without an error where
 * @may_pin is FALSE and the pool holds no staging for it (see
 * cugi_staging_new()). */
CugiPipeline *cugi_pipeline_new         (CugiContext        *context,
                                         CugiCopyDirection   direction,
                                         guint8             *host,
                                         GBytes             *host_bytes,
                                         gsize               size,
                                         gboolean            may_pin,
                                         CugiHostBuffer    **staging,
                                         GError            **error);
void      cugi_pipeline_unref           (gpointer data);
/* Enqueues the device's side of @self, to or from @address, on @handle.
 * After CUGI_ENQUEUE_FAILED, self->n_chunks is cut to the chunks that the
 * stream, as far as it was enqueued, waits for the host to do. */
CugiEnqueueResult cugi_pipeline_enqueue (CugiPipeline  *self,
                                         CUdeviceptr    address,
                                         CUstream       handle,
                                         GError       **error);
/* Has the stream @handle wait until the host's side of the download @self,
 * enqueued on it (as far as self->n_chunks says), is done: the last chunk
 * of each slot copied out. */
gboolean  cugi_pipeline_enqueue_host_waits (CugiPipeline  *self,
                                            CUstream       handle,
                                            GError       **error);
/* The host's side: takes chunks until none are left. */
void      cugi_pipeline_run             (CugiPipeline *self);
/* Hands @self to @n_threads workers of the pool. */
void      cugi_pipeline_start           (CugiPipeline *self,
                                         guint         n_threads);
/* Waits until the host's side of @self is done. */
void      cugi_pipeline_wait            (CugiPipeline *self);
/* Waits until @self, an upload, is behind its stream: the last chunk of
 * each slot copied to the device, after which the stream no longer reads
 * the staging or its counters. */
void      cugi_pipeline_wait_stream_past (CugiPipeline *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CugiPipeline, cugi_pipeline_unref)

/* ---- asynchronous copies through the pipeline (cugi-staging-feed.c) ------- */

/* An asynchronous copy fed from a thread, which its task keeps as its data. */
typedef struct _CugiFeed CugiFeed;

void      cugi_feed_unref               (gpointer data);
/* For a copy fed from a thread, whose task data is the feed: its error,
 * else the downloaded bytes or TRUE. */
void      cugi_feed_return              (GTask *task);
/* Enqueues the copy of pageable @bytes to @address on @target: through the
 * pipeline from the tuning's size (8 MiB), else, and wherever the stream
 * cannot wait for memory, staged on the calling thread. *@fed is set where
 * the copy is fed from a thread instead. The calling thread of this and of
 * cugi_staging_download() pins no memory (a feeder does, where the pool
 * holds none for the copy) but where the stream cannot wait for memory,
 * when nothing else can, and, once, a page of gates for fed copies. */
gboolean  cugi_staging_upload_pageable  (CugiBuffer   *self,
                                         CUdeviceptr   address,
                                         GBytes       *bytes,
                                         CugiStream   *target,
                                         CugiFeed    **fed,
                                         GError      **error);
/* Enqueues the download of @size bytes (not 0) from @address on @target,
 * into staging memory that the bytes are, up to
 * CUGI_STAGING_MAX_PINNED_DOWNLOAD_BYTES; beyond, into ordinary memory
 * through the pipeline, since pinning that much memory for each download,
 * to be freed after, costs more than copying it out of staging. The bytes
 * are in *@downloaded, or in the feed that *@fed is set to where the copy
 * is fed from a thread. */
gboolean  cugi_staging_download         (CugiBuffer   *self,
                                         CUdeviceptr   address,
                                         gsize         size,
                                         CugiStream   *target,
                                         GBytes      **downloaded,
                                         CugiFeed    **fed,
                                         GError      **error);

G_END_DECLS
