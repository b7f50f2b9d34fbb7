/* cugi-buffer-private.h: the layout of CugiBuffer and the helpers that the
 * files implementing it share: cugi-buffer.c (the object, its ownership and
 * constructors), cugi-buffer-shared.c (managed and IPC memory),
 * the cugi-staging*.c files (the staging pool and pipeline, asynchronous
 * transfers: see cugi-staging-private.h),
 * cugi-buffer-copy.c (linear copies and memsets) and cugi-buffer-region.c
 * (2D and 3D copies). Not installed; included by those files only. */
#pragma once

#include "cugi-context-private.h"
#include "cugi-private.h"
#include "cugi-memory-private.h"

G_BEGIN_DECLS

typedef enum
{
  BUFFER_MEMORY_NONE,     /* zero-size */
  BUFFER_MEMORY_DEVICE,   /* cuMemAlloc, cuMemAllocPitch, cuMemAllocManaged */
  BUFFER_MEMORY_IPC,      /* cuIpcOpenMemHandle */
  BUFFER_MEMORY_POOLED,   /* a block of a CugiMemoryPool */
  BUFFER_MEMORY_HELD,     /* someone else's, kept valid by release_data */
  BUFFER_MEMORY_VIEW,     /* part of parent's */
  BUFFER_MEMORY_MAPPED_HOST, /* host's, mapped into the device */
  BUFFER_MEMORY_STREAM_ORDERED, /* cuMemAllocAsync, cuMemAllocFromPoolAsync: freed on free_stream */
} BufferMemory;

struct _CugiBuffer
{
  GObject             parent_instance;

  CugiMemoryOwnership ownership;     /* its context, lifetime and pool */
  CUdeviceptr         address;
  gsize               size;
  gsize               pitch;
  gboolean            managed;
  BufferMemory        memory;

  CugiBuffer         *parent;        /* VIEW: the buffer owning the memory */
  CugiHostBuffer     *host;          /* MAPPED_HOST and its views: the host buffer owning it */
  gpointer            release_data;  /* HELD; STREAM_ORDERED: its pool, if any */
  GDestroyNotify      release_notify;
  CugiStream         *free_stream;   /* STREAM_ORDERED: where cuMemFreeAsync goes (owned) */
};

/* ---- cugi-buffer.c -------------------------------------------------------- */

/* A buffer over @address in @context, whose memory it releases as @memory
 * says once freed or finalized. */
CugiBuffer *cugi_buffer_new_owning       (CugiContext  *context,
                                          CUdeviceptr   address,
                                          gsize         size,
                                          BufferMemory  memory);
/* Grows (or shrinks) @self over memory that its owner mapped in place (a
 * CugiGrowableBuffer's), and notifies CugiBuffer:size. */
void        cugi_buffer_set_size         (CugiBuffer   *self,
                                          gsize         size);
/* The error for a buffer that cannot be used any more, if it cannot. */
gboolean    cugi_buffer_check_usable     (CugiBuffer  *self,
                                          GError     **error);
/* The same, and a range of @self checked (cugi_memory_check_range()). */
gboolean    cugi_buffer_check_usable_range (CugiBuffer  *self,
                                            gsize        offset,
                                            gsize        size,
                                            const char  *what,
                                            GError     **error);
/* Keeps what enqueued work uses alive until it completes on @stream, or,
 * while @stream is captured, for as long as the graph lives. Every argument
 * but @stream and @buffer may be NULL. */
void        cugi_buffer_track_work       (CugiStream     *stream,
                                          CugiBuffer     *buffer,
                                          CugiBuffer     *other_buffer,
                                          CugiHostBuffer *host_buffer,
                                          GBytes         *bytes);
/* Makes @self's context current for work enqueued on @stream, which must
 * belong to it; *@target is where the work goes (@stream, or the default
 * stream). */
gboolean    cugi_buffer_enter_for_stream (CugiBuffer        *self,
                                          CugiStream        *stream,
                                          CugiContextScope  *scope,
                                          CugiStream       **target,
                                          GError           **error);
/* The memory type of @address and, for device memory, its device's ordinal:
 * 0 and -1 for memory the driver does not know. */
gboolean    cugi_memory_get_pointer_kind (CUdeviceptr   address,
                                          CUmemorytype *type,
                                          int          *ordinal,
                                          GError      **error);

/* ---- cugi-staging-pipeline.c ---------------------------------------------- */

typedef enum
{
  CUGI_COPY_TO_DEVICE,
  CUGI_COPY_TO_HOST,
} CugiCopyDirection;

/* Makes a synchronous upload from pageable memory complete on return. */
gboolean    cugi_buffer_wait_for_pageable_upload (GError **error);
/* The synchronous copy of @size bytes (not 0) between @host, pageable or
 * pinned, and @self at @offset (a range checked before), done on return:
 * small copies and pinned memory straight through the driver, others
 * through the staging pipeline on the default stream. */
gboolean    cugi_buffer_copy_host_sync   (CugiBuffer         *self,
                                          gsize               offset,
                                          guint8             *host,
                                          gsize               size,
                                          CugiCopyDirection   direction,
                                          GError            **error);

/* ---- cugi-buffer-copy.c --------------------------------------------------- */
/* Host memory for @size bytes, or an OUT_OF_MEMORY error instead of abort(). */
guint8     *cugi_buffer_try_alloc_host   (gsize    size,
                                          GError **error);
/* Whether @a and @b are memory of one context (else copies are peer copies). */
gboolean    cugi_buffer_same_context     (CugiBuffer *a,
                                          CugiBuffer *b);
/* The address of @host for a copy from it (CUGI_COPY_TO_DEVICE) or into it
 * (CUGI_COPY_TO_HOST), as cugi_host_buffer_get_address() and
 * cugi_host_buffer_get_writable_address() tell it. */
gboolean    cugi_buffer_get_host_address_for_copy (CugiHostBuffer     *host,
                                                   CugiCopyDirection   direction,
                                                   gpointer           *address,
                                                   GError            **error);

G_END_DECLS
