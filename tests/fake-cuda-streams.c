/* fake-cuda-streams.c: a stand-in libcuda with streams, events and host
 * functions, so that streams, events and the main-loop bridge run without a
 * GPU, and with kernels that do nothing, so that the launch path does too.
 * Devices and contexts come from the stand-in that FAKE_CUDA_BASE names
 * (fake-cuda-devices); this one adds what it lacks.
 *
 * Each stream is a queue served by a thread of its own, as CUDA runs host
 * functions on threads of its own. A test stands for a kernel with a host
 * function that sleeps. fake_cuda_streams_fail() makes the context fail as a
 * faulted kernel would: queries and synchronizations report
 * CUDA_ERROR_ILLEGAL_ADDRESS and host functions stop running (CUDA drops
 * them; here they are held back until the failure is lifted, so that a test
 * can end without leaking what they carry; so are the writes of stream
 * memory operations, cuStreamWriteValue32, which cugi's COUNTER completions
 * use). A reset of a primary context
 * destroys the streams and events made so far, as CUDA's does.
 *
 * Stream capture records what is enqueued on a capturing stream into a
 * graph instead of the stream's queue; an executable graph is a copy of
 * those operations, pushed onto a stream at each launch.
 *
 * Memory: device, managed and pinned memory are host memory (calloc), so
 * that a device address is a host address, as with unified addressing, and
 * copies and memsets are memcpy and memset, in stream order where they are
 * asynchronous. Registered host memory and the pointer queries of foreign
 * memory are modelled too, and tests can ask what was registered with which
 * flags. A memset or copy trusts its addresses: a test whose own allocator
 * replaces cuMemAlloc (test-transfer-logic) must hand out host memory too.
 * Module loads and links record their JIT options and write logs; the
 * linker joins text images (see below).
 *
 * Stream-ordered allocation hands out host memory as device memory too: an
 * allocation is made at once, a free is an operation of its stream, which
 * gives the memory back to its pool when the stream reaches it. Pools count
 * used and reserved bytes as CUDA's do (memory freed is kept reserved until
 * a trim), and a 2D memset of bytes writes its rows as memsets do.
 *
 * Exportable pools share as fake_cuMemPoolExportToShareableHandle() says:
 * within this process only. Virtual memory is fake-cuda-vmm.c's.
 *
 * Mapped GL buffers and imported memory are another's memory in the table
 * (fake-cuda-graphics.c adds and removes them), which a free forgets
 * instead of freeing.
 *
 * FAKE_CUDA_MISSING names entry points the stand-in lacks, as an older
 * driver would (see is_missing()). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cuda.h>

#include "fake-cuda-arrays.h"
#include "fake-cuda-tensor-maps.h"
#include "fake-cuda-graphics.h"
#include "fake-cuda-vmm.h"
#include "fake-cuda-streams.h"

#define EXPORT __attribute__((visibility ("default")))

typedef struct FakeStream FakeStream;

struct FakeStream
{
  FakeStream    *next_live;  /* in live_streams until destroyed */
  pthread_t      thread;
  Op            *head;
  Op            *tail;
  int            busy;       /* the thread runs an operation */
  int            destroyed;  /* cuStreamDestroy'd: the thread frees it once drained */
  unsigned int   flags;
  int            priority;
  FakeGraph     *capture;    /* while captured: where its work goes */
  cuuint64_t     capture_id;
  int            host_funcs; /* cuLaunchHostFunc'd on it, ever */
};

/* One lock and condition for all: streams, events and the failure. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static FakeStream *legacy;
static FakeStream *live_streams;
static FakeEvent *live_events;
static int failed;
static CUresult (*base_ctx_get_current) (CUcontext *);
static int host_functions_held;
static cuuint64_t last_capture_id;

static void *base;
static CUresult (*base_get_proc_address) (const char *, void **, int, cuuint64_t,
                                          CUdriverProcAddressQueryResult *);

static double
now_ms (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Called with the lock held. */
static void
event_unref (FakeEvent *event)
{
  if (--event->refs == 0)
    free (event);
}

void
fake_cuda_streams_lock (void)
{
  pthread_mutex_lock (&lock);
}

void
fake_cuda_streams_unlock (void)
{
  pthread_mutex_unlock (&lock);
}

/* Called with the lock held. */
void
graph_append (FakeGraph *graph,
              Op        *op)
{
  if (graph->tail != NULL)
    graph->tail->next = op;
  else
    graph->head = op;
  graph->tail = op;
}

/* Called with the lock held. */
static void
graph_free (FakeGraph *graph)
{
  while (graph != NULL && graph->head != NULL)
    {
      Op *op = graph->head;

      graph->head = op->next;
      if (op->event != NULL)
        event_unref (op->event);
      free (op);
    }
  free (graph);
}

/* ---- stream-ordered memory ---------------------------------------------- */

typedef struct
{
  cuuint64_t threshold;
  cuuint64_t used, used_high;
  cuuint64_t reserved, reserved_high;  /* used, and freed but not trimmed */
  int destroyed;                       /* freed with its last block, as the driver does */
  int exportable;                      /* made for POSIX file descriptors */
  int imported;                        /* cuMemPoolImportFromShareableHandle'd */
  struct FakePoolSource *source;       /* imported: the exporter's, in this process (else NULL) */
} FakePool;

/* What precedes each block's memory. */
typedef struct
{
  FakePool *pool;
  size_t    size;
  size_t    padding[2];  /* keeps the memory 16-byte aligned */
} FakeBlock;

static FakePool default_pool;
static struct
{
  CUstream     stream;
  CUdeviceptr  address;
  size_t       length;
  unsigned int flags;
} last_attach;

/* Called with the lock held. 0 where the memory is not there, which the
 * driver reports as CUDA_ERROR_OUT_OF_MEMORY: beyond PTRDIFF_MAX, which no
 * malloc() gives (and valgrind calls a fishy size), it is not asked. */
static CUdeviceptr
block_alloc (FakePool *pool,
             size_t    size)
{
  FakeBlock *block = size <= PTRDIFF_MAX - sizeof *block ? malloc (sizeof *block + size) : NULL;
  cuuint64_t unused = pool->reserved - pool->used;

  if (block == NULL)
    return 0;
  block->pool = pool;
  block->size = size;
  if (unused < size)
    pool->reserved += size - unused;
  pool->used += size;
  if (pool->used > pool->used_high)
    pool->used_high = pool->used;
  if (pool->reserved > pool->reserved_high)
    pool->reserved_high = pool->reserved;
  return (CUdeviceptr) (uintptr_t) (block + 1);
}

/* Called with the lock held. */
static void
block_free (unsigned char *memory)
{
  FakeBlock *block = (FakeBlock *) memory - 1;
  FakePool *pool = block->pool;

  pool->used -= block->size;
  free (block);
  if (pool->destroyed && pool->used == 0)
    free (pool);
}

static CUresult
fake_cuDeviceGetDefaultMemPool (CUmemoryPool *pool, CUdevice device)
{
  (void) device;
  *pool = (CUmemoryPool) &default_pool;
  return CUDA_SUCCESS;
}

static CUresult
fake_cuMemPoolCreate (CUmemoryPool *pool, const CUmemPoolProps *props)
{
  FakePool *created;

  if (props->allocType != CU_MEM_ALLOCATION_TYPE_PINNED ||
      props->location.type != CU_MEM_LOCATION_TYPE_DEVICE ||
      (props->handleTypes != CU_MEM_HANDLE_TYPE_NONE &&
       props->handleTypes != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR))
    return CUDA_ERROR_INVALID_VALUE;
  created = calloc (1, sizeof (FakePool));
  created->exportable = props->handleTypes == CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  *pool = (CUmemoryPool) created;
  return CUDA_SUCCESS;
}

/* Sharing pools: an exported pool's file descriptor is a memfd that names
 * the pool and this process; an import of it in this process knows the
 * pool, one in another process knows none and imports no pointers (the GPU
 * tests share between processes). An imported pointer is the exporter's
 * address: its free (the first free of that address after the import, as
 * importers free before exporters) forgets it instead of freeing. */
struct FakePoolSource
{
  pid_t     pid;
  FakePool *pool;
};

typedef struct
{
  unsigned int magic;
  FakePool    *pool;
  CUdeviceptr  address;
} FakePointerExport;

#define FAKE_POINTER_MAGIC 0x66616b65u

typedef struct FakeImport FakeImport;
struct FakeImport
{
  FakeImport  *next;
  CUdeviceptr  address;
};

static FakeImport *imported_pointers;

static CUresult
fake_cuMemPoolExportToShareableHandle (void *handle, CUmemoryPool pool, CUmemAllocationHandleType type,
                                       unsigned long long flags)
{
  struct FakePoolSource source;
  int fd;

  memset (&source, 0, sizeof source);  /* written whole, padding included */
  source.pid = getpid ();
  source.pool = (FakePool *) pool;
  if (handle == NULL || pool == NULL || !source.pool->exportable || source.pool->imported || flags != 0 ||
      type != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
    return CUDA_ERROR_INVALID_VALUE;
  if ((fd = memfd_create ("fake-cuda-pool", MFD_CLOEXEC)) < 0)
    return CUDA_ERROR_OPERATING_SYSTEM;
  if (write (fd, &source, sizeof source) != (ssize_t) sizeof source)
    {
      close (fd);
      return CUDA_ERROR_OPERATING_SYSTEM;
    }
  *(int *) handle = fd;
  return CUDA_SUCCESS;
}

static CUresult
fake_cuMemPoolImportFromShareableHandle (CUmemoryPool *pool, void *handle, CUmemAllocationHandleType type,
                                         unsigned long long flags)
{
  struct FakePoolSource source;
  FakePool *imported;

  if (pool == NULL || type != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR || flags != 0 ||
      pread ((int) (intptr_t) handle, &source, sizeof source, 0) != (ssize_t) sizeof source)
    return CUDA_ERROR_INVALID_VALUE;
  imported = calloc (1, sizeof *imported);
  imported->imported = 1;
  if (source.pid == getpid ())
    {
      imported->source = malloc (sizeof source);
      *imported->source = source;
    }
  *pool = (CUmemoryPool) imported;
  return CUDA_SUCCESS;
}

static CUresult
fake_cuMemPoolExportPointer (CUmemPoolPtrExportData *data, CUdeviceptr address)
{
  FakePointerExport export = { FAKE_POINTER_MAGIC, NULL, address };
  FakeBlock *block = (FakeBlock *) (uintptr_t) address - 1;

  if (data == NULL || address == 0 || !block->pool->exportable)
    return CUDA_ERROR_INVALID_VALUE;
  export.pool = block->pool;
  memset (data, 0, sizeof *data);
  memcpy (data, &export, sizeof export);
  return CUDA_SUCCESS;
}

static CUresult
fake_cuMemPoolImportPointer (CUdeviceptr *address, CUmemoryPool pool, CUmemPoolPtrExportData *data)
{
  FakePool *imported = (FakePool *) pool;
  FakePointerExport export;
  FakeImport *import;

  if (address == NULL || imported == NULL || data == NULL || !imported->imported)
    return CUDA_ERROR_INVALID_VALUE;
  memcpy (&export, data, sizeof export);
  if (export.magic != FAKE_POINTER_MAGIC)
    return CUDA_ERROR_INVALID_VALUE;
  if (imported->source == NULL || imported->source->pool != export.pool)
    return CUDA_ERROR_NOT_SUPPORTED;
  import = calloc (1, sizeof *import);
  import->address = export.address;
  pthread_mutex_lock (&lock);
  import->next = imported_pointers;
  imported_pointers = import;
  pthread_mutex_unlock (&lock);
  *address = export.address;
  return CUDA_SUCCESS;
}

/* Called with the lock held: forgets an import of @address, if any. */
static int
forget_import (CUdeviceptr address)
{
  for (FakeImport **link = &imported_pointers; *link != NULL; link = &(*link)->next)
    if ((*link)->address == address)
      {
        FakeImport *import = *link;

        *link = import->next;
        free (import);
        return 1;
      }
  return 0;
}

static CUresult
fake_cuMemPoolDestroy (CUmemoryPool pool)
{
  FakePool *fake = (FakePool *) pool;

  if (pool == NULL || pool == (CUmemoryPool) &default_pool)
    return CUDA_ERROR_INVALID_VALUE;
  free (fake->source);
  fake->source = NULL;
  /* Blocks still allocated, or freed on a stream that has not got there,
   * keep it until the last is freed. */
  pthread_mutex_lock (&lock);
  fake->destroyed = 1;
  if (fake->used > 0)
    fake = NULL;
  pthread_mutex_unlock (&lock);
  free (fake);
  return CUDA_SUCCESS;
}

static CUresult
fake_cuMemPoolGetAttribute (CUmemoryPool handle, CUmemPool_attribute attribute, void *value)
{
  FakePool *pool = (FakePool *) handle;
  cuuint64_t *out = value;

  pthread_mutex_lock (&lock);
  switch (attribute)
    {
    case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD: *out = pool->threshold; break;
    case CU_MEMPOOL_ATTR_USED_MEM_CURRENT: *out = pool->used; break;
    case CU_MEMPOOL_ATTR_USED_MEM_HIGH: *out = pool->used_high; break;
    case CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT: *out = pool->reserved; break;
    case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH: *out = pool->reserved_high; break;
    default:
      pthread_mutex_unlock (&lock);
      return CUDA_ERROR_INVALID_VALUE;
    }
  pthread_mutex_unlock (&lock);
  return CUDA_SUCCESS;
}

static CUresult
fake_cuMemPoolSetAttribute (CUmemoryPool handle, CUmemPool_attribute attribute, void *value)
{
  FakePool *pool = (FakePool *) handle;
  cuuint64_t in = *(cuuint64_t *) value;
  CUresult result = CUDA_SUCCESS;

  pthread_mutex_lock (&lock);
  if (attribute == CU_MEMPOOL_ATTR_RELEASE_THRESHOLD)
    pool->threshold = in;
  else if (attribute == CU_MEMPOOL_ATTR_USED_MEM_HIGH && in == 0)
    pool->used_high = pool->used;
  else if (attribute == CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH && in == 0)
    pool->reserved_high = pool->reserved;
  else
    result = CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_unlock (&lock);
  return result;
}

static CUresult
fake_cuMemPoolTrimTo (CUmemoryPool handle, size_t keep)
{
  FakePool *pool = (FakePool *) handle;

  pthread_mutex_lock (&lock);
  if (pool->reserved > keep)
    pool->reserved = keep > pool->used ? keep : pool->used;
  pthread_mutex_unlock (&lock);
  return CUDA_SUCCESS;
}

static CUresult
fake_cuMemAllocFromPoolAsync (CUdeviceptr *address, size_t size, CUmemoryPool pool, CUstream handle)
{
  (void) handle;
  if (failed)
    return CUDA_ERROR_ILLEGAL_ADDRESS;
  if (size == 0)
    return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock (&lock);
  *address = block_alloc ((FakePool *) pool, size);
  pthread_mutex_unlock (&lock);
  return *address != 0 ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

static CUresult
fake_cuMemAllocAsync (CUdeviceptr *address, size_t size, CUstream handle)
{
  return fake_cuMemAllocFromPoolAsync (address, size, (CUmemoryPool) &default_pool, handle);
}

static CUresult
fake_cuStreamAttachMemAsync (CUstream handle, CUdeviceptr address, size_t length, unsigned int flags)
{
  if (failed)
    return CUDA_ERROR_ILLEGAL_ADDRESS;
  pthread_mutex_lock (&lock);
  last_attach.stream = handle;
  last_attach.address = address;
  last_attach.length = length;
  last_attach.flags = flags;
  pthread_mutex_unlock (&lock);
  return CUDA_SUCCESS;
}

/* The last cuStreamAttachMemAsync's arguments, for tests to read. */
EXPORT void
fake_cuda_streams_last_attach (CUstream *stream, CUdeviceptr *address, size_t *length,
                               unsigned int *flags)
{
  pthread_mutex_lock (&lock);
  *stream = last_attach.stream;
  *address = last_attach.address;
  *length = last_attach.length;
  *flags = last_attach.flags;
  pthread_mutex_unlock (&lock);
}

static void *
serve (void *data)
{
  FakeStream *stream = data;

  pthread_mutex_lock (&lock);
  for (;;)
    {
      Op *op = stream->head;

      if (op == NULL && stream->destroyed)
        break;
      if (op == NULL || (failed && (op->kind == OP_HOST_FUNC || op->kind == OP_WRITE_VALUE)) ||
          (host_functions_held && op->kind == OP_HOST_FUNC) ||
          (op->kind == OP_WAIT && op->event->completed < op->recording))
        {
          pthread_cond_wait (&changed, &lock);
          continue;
        }

      stream->busy = 1;
      if (op->kind == OP_HOST_FUNC)
        {
          pthread_mutex_unlock (&lock);
          op->fn (op->data);
          pthread_mutex_lock (&lock);
        }
      else if (op->kind == OP_MEMSET && op->wide)
        for (size_t i = 0; i < op->count; i++)
          memcpy (op->start + i * sizeof op->value32, &op->value32, sizeof op->value32);
      else if (op->kind == OP_MEMSET)
        memset (op->start, op->value, op->count);
      else if (op->kind == OP_COPY)
        memmove (op->start, op->source, op->count);
      else if (op->kind == OP_FREE)
        block_free (op->start);
      else if (op->kind == OP_WRITE_VALUE)
        __atomic_store_n ((uint32_t *) op->start, op->value32, __ATOMIC_RELEASE);
      else if (op->kind == OP_RECORD && op->event->completed < op->recording)
        {
          op->event->completed = op->recording;
          op->event->completed_at_ms = now_ms ();
        }
      stream->busy = 0;

      stream->head = op->next;
      if (stream->head == NULL)
        stream->tail = NULL;
      if (op->event != NULL)
        event_unref (op->event);
      free (op);
      pthread_cond_broadcast (&changed);
    }
  graph_free (stream->capture);
  pthread_mutex_unlock (&lock);
  free (stream);
  return NULL;
}

static FakeStream *
stream_new (unsigned int flags,
            int          priority)
{
  FakeStream *stream = calloc (1, sizeof *stream);

  stream->flags = flags;
  stream->priority = priority;
  pthread_create (&stream->thread, NULL, serve, stream);
  pthread_detach (stream->thread);
  return stream;
}

/* Called with the lock held. */
static FakeStream *
resolve (CUstream handle)
{
  if (handle != NULL && handle != CU_STREAM_LEGACY && handle != CU_STREAM_PER_THREAD)
    return (FakeStream *) handle;
  if (legacy == NULL)
    legacy = stream_new (0, 0);
  return legacy;
}

/* Called with the lock held. */
static void
push (CUstream handle,
      Op      *op)
{
  FakeStream *stream = resolve (handle);

  if (op->event != NULL)
    op->event->refs++;
  if (stream->capture != NULL)
    {
      graph_append (stream->capture, op);
      return;
    }
  if (stream->tail != NULL)
    stream->tail->next = op;
  else
    stream->head = op;
  stream->tail = op;
  pthread_cond_broadcast (&changed);
}

static CUresult
fake_cuStreamCreateWithPriority (CUstream *handle, unsigned int flags, int priority)
{
  if (flags > CU_STREAM_NON_BLOCKING)
    return CUDA_ERROR_INVALID_VALUE;
  FakeStream *stream;

  pthread_mutex_lock (&lock);
  stream = stream_new (flags, priority);
  stream->next_live = live_streams;
  live_streams = stream;
  pthread_mutex_unlock (&lock);
  *handle = (CUstream) stream;
  return CUDA_SUCCESS;
}

/* Called with the lock held. */
static void
stream_destroy (FakeStream *stream)
{
  for (FakeStream **link = &live_streams; *link != NULL; link = &(*link)->next_live)
    if (*link == stream)
      {
        *link = stream->next_live;
        break;
      }
  stream->destroyed = 1;
  pthread_cond_broadcast (&changed);
}

static CUresult
fake_cuStreamDestroy (CUstream handle)
{
  if (handle == NULL)
    return CUDA_ERROR_INVALID_HANDLE;
  pthread_mutex_lock (&lock);
  stream_destroy ((FakeStream *) handle);
  pthread_mutex_unlock (&lock);
  return CUDA_SUCCESS;
}

static CUresult
fake_cuStreamQuery (CUstream handle)
{
  CUresult result;
  FakeStream *stream;

  pthread_mutex_lock (&lock);
  stream = resolve (handle);
  result = failed ? CUDA_ERROR_ILLEGAL_ADDRESS
         : stream->capture != NULL ? CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED
         : stream->head == NULL ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
  pthread_mutex_unlock (&lock);
  return result;
}

static CUresult
fake_cuStreamSynchronize (CUstream handle)
{
  FakeStream *stream;

  pthread_mutex_lock (&lock);
  stream = resolve (handle);
  if (stream->capture != NULL)
    {
      pthread_mutex_unlock (&lock);
      return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    }
  while (stream->head != NULL && !failed)
    pthread_cond_wait (&changed, &lock);
  pthread_mutex_unlock (&lock);
  return failed ? CUDA_ERROR_ILLEGAL_ADDRESS : CUDA_SUCCESS;
}

static CUresult
fake_cuStreamGetFlags (CUstream handle, unsigned int *flags)
{
  pthread_mutex_lock (&lock);
  *flags = resolve (handle)->flags;
  pthread_mutex_unlock (&lock);
  return CUDA_SUCCESS;
}

static CUresult
fake_cuStreamGetPriority (CUstream handle, int *priority)
{
  pthread_mutex_lock (&lock);
  *priority = resolve (handle)->priority;
  pthread_mutex_unlock (&lock);
  return CUDA_SUCCESS;
}

static CUresult
fake_cuStreamIsCapturing (CUstream handle, CUstreamCaptureStatus *status)
{
  pthread_mutex_lock (&lock);
  *status = resolve (handle)->capture != NULL ? CU_STREAM_CAPTURE_STATUS_ACTIVE
                                              : CU_STREAM_CAPTURE_STATUS_NONE;
  pthread_mutex_unlock (&lock);
  return failed ? CUDA_ERROR_ILLEGAL_ADDRESS : CUDA_SUCCESS;
}

/* ---- stream capture and graphs ---- */

static CUresult
fake_cuStreamBeginCapture (CUstream handle, CUstreamCaptureMode mode)
{
  FakeStream *stream;
  CUresult result = CUDA_SUCCESS;

  if (handle == NULL || handle == CU_STREAM_LEGACY || handle == CU_STREAM_PER_THREAD)
    return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  pthread_mutex_lock (&lock);
  stream = resolve (handle);
  if (stream->capture != NULL)
    result = CUDA_ERROR_ILLEGAL_STATE;
  else
    {
      stream->capture = calloc (1, sizeof *stream->capture);
      stream->capture_id = ++last_capture_id;
    }
  pthread_mutex_unlock (&lock);
  return result;
}

static CUresult
fake_cuStreamEndCapture (CUstream handle, CUgraph *graph)
{
  FakeStream *stream;
  CUresult result = CUDA_SUCCESS;

  pthread_mutex_lock (&lock);
  stream = resolve (handle);
  if (stream->capture == NULL)
    result = CUDA_ERROR_ILLEGAL_STATE;
  else
    {
      *graph = (CUgraph) stream->capture;
      stream->capture = NULL;
    }
  pthread_mutex_unlock (&lock);
  return result;
}

static CUresult
fake_cuStreamGetCaptureInfo (CUstream handle, CUstreamCaptureStatus *status, cuuint64_t *id,
                             CUgraph *graph, const CUgraphNode **dependencies,
                             const CUgraphEdgeData **edge_data, size_t *n_dependencies)
{
  FakeStream *stream;

  pthread_mutex_lock (&lock);
  stream = resolve (handle);
  *status = stream->capture != NULL ? CU_STREAM_CAPTURE_STATUS_ACTIVE : CU_STREAM_CAPTURE_STATUS_NONE;
  if (id != NULL)
    *id = stream->capture != NULL ? stream->capture_id : 0;
  if (graph != NULL)
    *graph = (CUgraph) stream->capture;
  if (dependencies != NULL)
    *dependencies = NULL;
  if (edge_data != NULL)
    *edge_data = NULL;
  if (n_dependencies != NULL)
    *n_dependencies = 0;
  pthread_mutex_unlock (&lock);
  return CUDA_SUCCESS;
}

static CUresult
fake_cuGraphDestroy (CUgraph handle)
{
  pthread_mutex_lock (&lock);
  graph_free ((FakeGraph *) handle);
  pthread_mutex_unlock (&lock);
  return CUDA_SUCCESS;
}

/* The nodes are the graph's operations. */
static CUresult
fake_cuGraphGetNodes (CUgraph handle, CUgraphNode *nodes, size_t *count)
{
  size_t n = 0;

  pthread_mutex_lock (&lock);
  for (Op *op = ((FakeGraph *) handle)->head; op != NULL; op = op->next, n++)
    if (nodes != NULL && n < *count)
      nodes[n] = (CUgraphNode) op;
  pthread_mutex_unlock (&lock);
  *count = n;
  return CUDA_SUCCESS;
}

static CUresult
fake_cuGraphNodeGetType (CUgraphNode node, CUgraphNodeType *type)
{
  if (((Op *) node)->kind == OP_NOTHING)
    {
      *type = ((Op *) node)->node_type;
      return CUDA_SUCCESS;
    }
  switch (((Op *) node)->kind)
    {
    case OP_HOST_FUNC: *type = CU_GRAPH_NODE_TYPE_HOST; break;
    case OP_RECORD: *type = CU_GRAPH_NODE_TYPE_EVENT_RECORD; break;
    case OP_WAIT: *type = CU_GRAPH_NODE_TYPE_WAIT_EVENT; break;
    case OP_MEMSET: *type = CU_GRAPH_NODE_TYPE_MEMSET; break;
    case OP_COPY: *type = CU_GRAPH_NODE_TYPE_MEMCPY; break;
    case OP_FREE: *type = CU_GRAPH_NODE_TYPE_MEM_FREE; break;
    case OP_WRITE_VALUE: *type = CU_GRAPH_NODE_TYPE_BATCH_MEM_OP; break;
    case OP_NOTHING: break;
    }
  return CUDA_SUCCESS;
}

/* An unlinked copy of @op, without the reference push() takes. */
static Op *
op_copy (const Op *op)
{
  Op *copy = malloc (sizeof *copy);

  *copy = *op;
  copy->next = NULL;
  return copy;
}

static CUresult
fake_cuGraphInstantiateWithFlags (CUgraphExec *exec, CUgraph graph, unsigned long long flags)
{
  FakeGraph *copy = calloc (1, sizeof *copy);

  pthread_mutex_lock (&lock);
  for (const Op *op = ((FakeGraph *) graph)->head; op != NULL; op = op->next)
    {
      Op *node = op_copy (op);

      node->origin = op;
      if (node->event != NULL)
        node->event->refs++;
      graph_append (copy, node);
    }
  pthread_mutex_unlock (&lock);
  *exec = (CUgraphExec) copy;
  return CUDA_SUCCESS;
}

static CUresult
fake_cuGraphExecDestroy (CUgraphExec exec)
{
  return fake_cuGraphDestroy ((CUgraph) exec);
}

/* See fake_cuda_streams_graphs_need_current(). */
static CUcontext graph_launch_context;
static int graph_launches_refused;

static CUresult
fake_cuGraphLaunch (CUgraphExec exec, CUstream handle)
{
  CUcontext current = NULL;

  if (failed)
    return CUDA_ERROR_ILLEGAL_ADDRESS;
  if (graph_launch_context != NULL &&
      (base_ctx_get_current (&current) != CUDA_SUCCESS || current != graph_launch_context))
    {
      graph_launches_refused++;
      return CUDA_ERROR_INVALID_CONTEXT;
    }
  pthread_mutex_lock (&lock);
  for (const Op *op = ((FakeGraph *) exec)->head; op != NULL; op = op->next)
    if (!op->disabled)
      push (handle, op_copy (op));
  pthread_mutex_unlock (&lock);
  return CUDA_SUCCESS;
}

/* A memset of @count bytes of @value, or (@wide) of @count 32-bit values
 * of @value32. */
static CUresult
push_memset (CUdeviceptr start, unsigned char value, uint32_t value32, int wide, size_t count, CUstream handle)
{
  Op *op;

  if (failed)
    return CUDA_ERROR_ILLEGAL_ADDRESS;
  op = calloc (1, sizeof *op);
  op->kind = OP_MEMSET;
  op->start = (unsigned char *) (uintptr_t) start;
  op->value = value;
  op->value32 = value32;
  op->wide = wide;
  op->count = count;
  pthread_mutex_lock (&lock);
  push (handle, op);
  pthread_mutex_unlock (&lock);
  return CUDA_SUCCESS;
}

static CUresult
fake_cuMemsetD8Async (CUdeviceptr start, unsigned char value, size_t count, CUstream handle)
{
  return push_memset (start, value, 0, 0, count, handle);
}

/* 32-bit values (the examples' gradients of floats). */
static CUresult
fake_cuMemsetD32Async (CUdeviceptr start, unsigned int value, size_t count, CUstream handle)
{
  return push_memset (start, 0, value, 1, count, handle);
}

static CUresult
fake_cuMemFreeAsync (CUdeviceptr address, CUstream handle)
{
  Op *op;

  if (failed)
    return CUDA_ERROR_ILLEGAL_ADDRESS;
  pthread_mutex_lock (&lock);
  if (forget_import (address))
    {
      pthread_mutex_unlock (&lock);
      return CUDA_SUCCESS;
    }
  op = calloc (1, sizeof *op);
  op->kind = OP_FREE;
  op->start = (unsigned char *) (uintptr_t) address;
  push (handle, op);
  pthread_mutex_unlock (&lock);
  return CUDA_SUCCESS;
}

static CUresult
fake_cuMemsetD2D8Async (CUdeviceptr start, size_t pitch, unsigned char value, size_t width, size_t height,
                        CUstream handle)
{
  for (size_t row = 0; row < height; row++)
    {
      CUresult result = fake_cuMemsetD8Async (start + row * pitch, value, width, handle);

      if (result != CUDA_SUCCESS)
        return result;
    }
  return CUDA_SUCCESS;
}

static CUresult
fake_cuLaunchHostFunc (CUstream handle, CUhostFn fn, void *data)
{
  Op *op;

  if (failed)
    return CUDA_ERROR_ILLEGAL_ADDRESS;
  op = calloc (1, sizeof *op);
  op->kind = OP_HOST_FUNC;
  op->fn = fn;
  op->data = data;
  pthread_mutex_lock (&lock);
  resolve (handle)->host_funcs++;
  push (handle, op);
  pthread_mutex_unlock (&lock);
  return CUDA_SUCCESS;
}

/* The write of a stream memory operation, in stream order; held back with
 * host functions while the context fails, since it tells that the work
 * before it completed. */
static CUresult
fake_cuStreamWriteValue32 (CUstream handle, CUdeviceptr address, cuuint32_t value, unsigned int flags)
{
  Op *op;

  if (failed)
    return CUDA_ERROR_ILLEGAL_ADDRESS;
  if (flags & ~CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER)
    return CUDA_ERROR_INVALID_VALUE;
  op = calloc (1, sizeof *op);
  op->kind = OP_WRITE_VALUE;
  op->start = (unsigned char *) (uintptr_t) address;
  op->value32 = value;
  pthread_mutex_lock (&lock);
  push (handle, op);
  pthread_mutex_unlock (&lock);
  return CUDA_SUCCESS;
}

static CUresult
fake_cuEventCreate (CUevent *handle, unsigned int flags)
{
  FakeEvent *event = calloc (1, sizeof *event);

  event->refs = 1;
  event->flags = flags;
  pthread_mutex_lock (&lock);
  event->next_live = live_events;
  live_events = event;
  pthread_mutex_unlock (&lock);
  *handle = (CUevent) event;
  return CUDA_SUCCESS;
}

/* Called with the lock held. */
static void
event_destroy (FakeEvent *event)
{
  for (FakeEvent **link = &live_events; *link != NULL; link = &(*link)->next_live)
    if (*link == event)
      {
        *link = event->next_live;
        break;
      }
  event_unref (event);
}

static CUresult
fake_cuEventDestroy (CUevent handle)
{
  pthread_mutex_lock (&lock);
  event_destroy ((FakeEvent *) handle);
  pthread_mutex_unlock (&lock);
  return CUDA_SUCCESS;
}

static CUresult (*base_primary_ctx_reset) (CUdevice device);

/* The fake has one context's worth of streams and events: all go. */
static CUresult
fake_cuDevicePrimaryCtxReset (CUdevice device)
{
  CUresult result = base_primary_ctx_reset (device);

  if (result != CUDA_SUCCESS)
    return result;
  pthread_mutex_lock (&lock);
  while (live_streams != NULL)
    stream_destroy (live_streams);
  while (live_events != NULL)
    event_destroy (live_events);
  pthread_mutex_unlock (&lock);
  return CUDA_SUCCESS;
}

static CUresult
fake_cuEventRecord (CUevent handle, CUstream stream)
{
  FakeEvent *event = (FakeEvent *) handle;
  Op *op = calloc (1, sizeof *op);

  op->kind = OP_RECORD;
  op->event = event;
  pthread_mutex_lock (&lock);
  op->recording = ++event->recorded;
  push (stream, op);
  pthread_mutex_unlock (&lock);
  return CUDA_SUCCESS;
}

static CUresult
fake_cuEventQuery (CUevent handle)
{
  FakeEvent *event = (FakeEvent *) handle;
  CUresult result;

  pthread_mutex_lock (&lock);
  result = failed ? CUDA_ERROR_ILLEGAL_ADDRESS
                  : event->completed == event->recorded ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
  pthread_mutex_unlock (&lock);
  return result;
}

static CUresult
fake_cuEventSynchronize (CUevent handle)
{
  FakeEvent *event = (FakeEvent *) handle;

  pthread_mutex_lock (&lock);
  while (event->completed < event->recorded && !failed)
    pthread_cond_wait (&changed, &lock);
  pthread_mutex_unlock (&lock);
  return failed ? CUDA_ERROR_ILLEGAL_ADDRESS : CUDA_SUCCESS;
}

static CUresult
fake_cuEventElapsedTime (float *milliseconds, CUevent start_handle, CUevent end_handle)
{
  FakeEvent *start = (FakeEvent *) start_handle;
  FakeEvent *end = (FakeEvent *) end_handle;
  CUresult result = CUDA_SUCCESS;

  pthread_mutex_lock (&lock);
  if (start->recorded == 0 || end->recorded == 0 ||
      ((start->flags | end->flags) & CU_EVENT_DISABLE_TIMING) != 0)
    result = CUDA_ERROR_INVALID_HANDLE;
  else if (start->completed < start->recorded || end->completed < end->recorded)
    result = CUDA_ERROR_NOT_READY;
  else
    *milliseconds = (float) (end->completed_at_ms - start->completed_at_ms);
  pthread_mutex_unlock (&lock);
  return result;
}

static CUresult
fake_cuStreamWaitEvent (CUstream stream, CUevent handle, unsigned int flags)
{
  FakeEvent *event = (FakeEvent *) handle;
  Op *op = calloc (1, sizeof *op);

  op->kind = OP_WAIT;
  op->event = event;
  pthread_mutex_lock (&lock);
  op->recording = event->recorded;
  push (stream, op);
  pthread_mutex_unlock (&lock);
  return CUDA_SUCCESS;
}

/* Memory, as host memory: an allocation table that answers the pointer
 * queries, and copies that are memcpy (in stream order when asynchronous). */
typedef struct Allocation Allocation;

struct Allocation
{
  Allocation    *next;
  unsigned char *start;
  size_t         size;
  CUmemorytype   type;        /* DEVICE, UNIFIED (managed) or HOST */
  int            ordinal;     /* DEVICE and UNIFIED: the device's */
  int            registered;  /* HOST: the caller's memory, pinned */
  unsigned int   register_flags;  /* registered: CU_MEMHOSTREGISTER_* */
  int            external;    /* DEVICE: another's memory (fake-cuda-graphics.c), which a free forgets */
};

static int read_only_unsupported;

static Allocation *allocations;
static CUresult (*base_ctx_get_device) (CUdevice *);

/* Called with the lock held. The allocation that holds @address, or NULL. */
static Allocation *
allocation_find (const void *address)
{
  const unsigned char *byte = address;

  for (Allocation *allocation = allocations; allocation != NULL; allocation = allocation->next)
    if (byte >= allocation->start && byte < allocation->start + allocation->size)
      return allocation;
  return NULL;
}

/* Called with the lock held: takes @allocation out of the table. */
static void
allocation_remove (Allocation *allocation)
{
  for (Allocation **link = &allocations; *link != NULL; link = &(*link)->next)
    if (*link == allocation)
      {
        *link = allocation->next;
        free (allocation);
        return;
      }
}

static CUresult
allocation_add (unsigned char *start, size_t size, CUmemorytype type, int registered, int external)
{
  Allocation *allocation;
  CUdevice device = 0;
  CUresult result;

  if (type != CU_MEMORYTYPE_HOST && (result = base_ctx_get_device (&device)) != CUDA_SUCCESS)
    return result;
  allocation = calloc (1, sizeof *allocation);
  allocation->start = start;
  allocation->size = size;
  allocation->type = type;
  allocation->ordinal = type != CU_MEMORYTYPE_HOST ? device - 100 : -1;  /* fake-cuda-devices' handles */
  allocation->registered = registered;
  allocation->external = external;
  pthread_mutex_lock (&lock);
  allocation->next = allocations;
  allocations = allocation;
  pthread_mutex_unlock (&lock);
  return CUDA_SUCCESS;
}

static CUresult
allocate (void **address, size_t size, CUmemorytype type)
{
  unsigned char *start;
  CUresult result;

  if (size == 0)
    return CUDA_ERROR_INVALID_VALUE;
  if ((start = calloc (1, size)) == NULL)
    return CUDA_ERROR_OUT_OF_MEMORY;
  if ((result = allocation_add (start, size, type, 0, 0)) != CUDA_SUCCESS)
    {
      free (start);
      return result;
    }
  *address = start;
  return CUDA_SUCCESS;
}

/* Frees the allocation that starts at @address if it is of @type; forgets
 * another's memory there. */
static CUresult
release (const void *address, CUmemorytype type)
{
  Allocation *allocation;
  unsigned char *start = NULL;
  int external = 0;

  pthread_mutex_lock (&lock);
  allocation = allocation_find (address);
  if (allocation != NULL && allocation->start == address && allocation->type == type &&
      !allocation->registered)
    {
      start = allocation->start;
      external = allocation->external;
      allocation_remove (allocation);
    }
  pthread_mutex_unlock (&lock);
  if (!external)
    free (start);
  return start != NULL ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult
fake_cuda_streams_add_external (unsigned char *start, size_t size)
{
  return allocation_add (start, size, CU_MEMORYTYPE_DEVICE, 0, 1);
}

void
fake_cuda_streams_remove_external (const void *start)
{
  release (start, CU_MEMORYTYPE_DEVICE);
}

int
fake_cuda_streams_overlaps_device (CUdeviceptr start, size_t size)
{
  const unsigned char *from = (const unsigned char *) (uintptr_t) start;
  int overlaps = 0;

  pthread_mutex_lock (&lock);
  for (Allocation *allocation = allocations; allocation != NULL && !overlaps; allocation = allocation->next)
    overlaps = allocation->type == CU_MEMORYTYPE_DEVICE && allocation->start < from + size &&
               from < allocation->start + allocation->size;
  pthread_mutex_unlock (&lock);
  return overlaps;
}

static CUresult
fake_cuMemAlloc (CUdeviceptr *address, size_t size)
{
  void *start = NULL;
  CUresult result = allocate (&start, size, CU_MEMORYTYPE_DEVICE);

  *address = (CUdeviceptr) (uintptr_t) start;
  return result;
}

static CUresult
fake_cuMemAllocManaged (CUdeviceptr *address, size_t size, unsigned int flags)
{
  void *start = NULL;
  CUresult result = flags == 0 ? CUDA_ERROR_INVALID_VALUE : allocate (&start, size, CU_MEMORYTYPE_UNIFIED);

  *address = (CUdeviceptr) (uintptr_t) start;
  return result;
}

static CUresult
fake_cuMemFree (CUdeviceptr address)
{
  void *start = (void *) (uintptr_t) address;

  return release (start, CU_MEMORYTYPE_DEVICE) == CUDA_SUCCESS ? CUDA_SUCCESS
                                                               : release (start, CU_MEMORYTYPE_UNIFIED);
}

static CUresult
fake_cuMemHostAlloc (void **address, size_t size, unsigned int flags)
{
  (void) flags;
  return allocate (address, size, CU_MEMORYTYPE_HOST);
}

static CUresult
fake_cuMemFreeHost (void *address)
{
  return release (address, CU_MEMORYTYPE_HOST);
}

/* Registered memory keeps its flags, so that tests can see what cugi asked
 * for (fake_cuda_streams_registration()); READ_ONLY is supported unless a
 * test says otherwise (fake_cuda_streams_support_read_only()). */
static CUresult
fake_cuMemHostRegister (void *address, size_t size, unsigned int flags)
{
  const unsigned int known = CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP |
                             CU_MEMHOSTREGISTER_READ_ONLY;
  Allocation *allocation;
  int overlaps;
  CUresult result;

  if (address == NULL || size == 0 || (flags & ~known) != 0)
    return CUDA_ERROR_INVALID_VALUE;
  if ((flags & CU_MEMHOSTREGISTER_READ_ONLY) && __atomic_load_n (&read_only_unsupported, __ATOMIC_ACQUIRE))
    return CUDA_ERROR_NOT_SUPPORTED;
  pthread_mutex_lock (&lock);
  overlaps = allocation_find (address) != NULL ||
             allocation_find ((unsigned char *) address + size - 1) != NULL;
  pthread_mutex_unlock (&lock);
  if (overlaps)
    return CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
  if ((result = allocation_add (address, size, CU_MEMORYTYPE_HOST, 1, 0)) != CUDA_SUCCESS)
    return result;
  pthread_mutex_lock (&lock);
  if ((allocation = allocation_find (address)) != NULL)
    allocation->register_flags = flags;
  pthread_mutex_unlock (&lock);
  return CUDA_SUCCESS;
}

static CUresult
fake_cuMemHostUnregister (void *address)
{
  Allocation *allocation;
  CUresult result = CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;

  pthread_mutex_lock (&lock);
  allocation = allocation_find (address);
  if (allocation != NULL && allocation->start == address && allocation->registered)
    {
      allocation_remove (allocation);
      result = CUDA_SUCCESS;
    }
  pthread_mutex_unlock (&lock);
  return result;
}

/* Pinned memory is mapped at its own address, as with unified addressing. */
static CUresult
fake_cuMemHostGetDevicePointer (CUdeviceptr *device_address, void *address, unsigned int flags)
{
  Allocation *allocation;

  if (flags != 0)
    return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock (&lock);
  allocation = allocation_find (address);
  pthread_mutex_unlock (&lock);
  if (allocation == NULL || allocation->type != CU_MEMORYTYPE_HOST ||
      (allocation->registered && !(allocation->register_flags & CU_MEMHOSTREGISTER_DEVICEMAP)))
    return CUDA_ERROR_INVALID_VALUE;
  *device_address = (CUdeviceptr) (uintptr_t) address;
  return CUDA_SUCCESS;
}

static CUresult
fake_cuMemGetAddressRange (CUdeviceptr *start, size_t *size, CUdeviceptr address)
{
  Allocation *allocation;

  pthread_mutex_lock (&lock);
  allocation = allocation_find ((void *) (uintptr_t) address);
  if (allocation != NULL)
    {
      if (start != NULL)
        *start = (CUdeviceptr) (uintptr_t) allocation->start;
      if (size != NULL)
        *size = allocation->size;
    }
  pthread_mutex_unlock (&lock);
  return allocation != NULL ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}

/* Memory the driver does not know reads as type 0 and ordinal -2, as
 * CUDA's cuPointerGetAttributes reports it. */
static CUresult
fake_cuPointerGetAttributes (unsigned int n_attributes, CUpointer_attribute *attributes, void **data,
                             CUdeviceptr address)
{
  Allocation *allocation;
  CUresult result = CUDA_SUCCESS;

  pthread_mutex_lock (&lock);
  allocation = allocation_find ((void *) (uintptr_t) address);
  for (unsigned int i = 0; i < n_attributes; i++)
    if (attributes[i] == CU_POINTER_ATTRIBUTE_MEMORY_TYPE)
      *(unsigned int *) data[i] = allocation != NULL ? allocation->type : 0;
    else if (attributes[i] == CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL)
      *(int *) data[i] = allocation != NULL ? allocation->ordinal : -2;
    else
      result = CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_unlock (&lock);
  return result;
}

/* CUDA_ERROR_INVALID_VALUE unless @size bytes from @address lie in one
 * allocation (pinned host memory is mapped at its own address), or in
 * allocations one right after the other, as mappings of a reserved range
 * are (fake-cuda-vmm.c). */
static CUresult
check_device_range (CUdeviceptr address, size_t size)
{
  Allocation *allocation;
  unsigned char *start = (unsigned char *) (uintptr_t) address;
  int fits = 0;

  pthread_mutex_lock (&lock);
  while ((allocation = allocation_find (start)) != NULL)
    {
      size_t left = allocation->size - (size_t) (start - allocation->start);

      if ((fits = size <= left))
        break;
      start += left;
      size -= left;
    }
  pthread_mutex_unlock (&lock);
  return fits ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* A copy to or from the device: on @handle's queue, or (@synchronous) once
 * the legacy stream is idle, before returning. */
static CUresult
copy (CUdeviceptr device_address, void *to, const void *from, size_t count, CUstream handle,
      int synchronous)
{
  CUresult result;
  Op *op;

  if (failed)
    return CUDA_ERROR_ILLEGAL_ADDRESS;
  if ((result = check_device_range (device_address, count)) != CUDA_SUCCESS)
    return result;
  if (synchronous)
    {
      if ((result = fake_cuStreamSynchronize (CU_STREAM_LEGACY)) == CUDA_SUCCESS)
        memmove (to, from, count);
      return result;
    }
  op = calloc (1, sizeof *op);
  op->kind = OP_COPY;
  op->start = to;
  op->source = from;
  op->count = count;
  pthread_mutex_lock (&lock);
  push (handle, op);
  pthread_mutex_unlock (&lock);
  return CUDA_SUCCESS;
}

static CUresult
fake_cuMemcpyHtoD (CUdeviceptr to, const void *from, size_t count)
{
  return copy (to, (void *) (uintptr_t) to, from, count, CU_STREAM_LEGACY, 1);
}

static CUresult
fake_cuMemcpyDtoH (void *to, CUdeviceptr from, size_t count)
{
  return copy (from, to, (const void *) (uintptr_t) from, count, CU_STREAM_LEGACY, 1);
}

static CUresult
fake_cuMemcpyHtoDAsync (CUdeviceptr to, const void *from, size_t count, CUstream handle)
{
  return copy (to, (void *) (uintptr_t) to, from, count, handle, 0);
}

static CUresult
fake_cuMemcpyDtoHAsync (void *to, CUdeviceptr from, size_t count, CUstream handle)
{
  return copy (from, to, (const void *) (uintptr_t) from, count, handle, 0);
}

static CUresult
fake_cuMemcpyDtoDAsync (CUdeviceptr to, CUdeviceptr from, size_t count, CUstream handle)
{
  CUresult result = check_device_range (from, count);

  if (result != CUDA_SUCCESS)
    return result;
  return copy (to, (void *) (uintptr_t) to, (const void *) (uintptr_t) from, count, handle, 0);
}

/* Modules and launches, as much as the launch path needs: a module image is
 * text, a line per kernel giving its name and its parameters' sizes
 * ("axpy4 4 8 8 4"), each with its alignment where a parameter is placed
 * at a multiple of one ("copy 8 128@64": a tensor map at offset 64; else
 * the parameters are packed). Lines starting with "." are PTX directives, skipped,
 * so that an image can also tell cugi's PTX reader its kernels' parameter
 * counts (".version 8.0", ".entry axpy4 (.param .f32 a, ...)"). A kernel
 * does nothing, at once: a launch checks its handles and returns. */
#define FAKE_MAX_FUNCTIONS 8
#define FAKE_MAX_PARAMS 16

typedef struct
{
  char   name[64];
  int    n_params;
  size_t sizes[FAKE_MAX_PARAMS];
  size_t offsets[FAKE_MAX_PARAMS];
} FakeFunction;

typedef struct
{
  int          n_functions;
  FakeFunction functions[FAKE_MAX_FUNCTIONS];
} FakeModule;

/* JIT options: those of the last cuModuleLoadDataEx or cuLinkCreate (the
 * logs aside), for tests to read back (fake_cuda_streams_last_jit_option()),
 * and the logs, written where the options say. */
#define FAKE_MAX_OPTIONS 16

static int n_last_options;
static CUjit_option last_options[FAKE_MAX_OPTIONS];
static uintptr_t last_values[FAKE_MAX_OPTIONS];

typedef struct
{
  char   *info;
  size_t  info_size;
  char   *error;
  size_t  error_size;
} FakeLogs;

static FakeLogs
take_jit_options (unsigned int n_options, CUjit_option *options, void **values)
{
  FakeLogs logs = { NULL, 0, NULL, 0 };

  pthread_mutex_lock (&lock);
  n_last_options = 0;
  for (unsigned int i = 0; i < n_options; i++)
    switch (options[i])
      {
      case CU_JIT_INFO_LOG_BUFFER: logs.info = values[i]; break;
      case CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES: logs.info_size = (uintptr_t) values[i]; break;
      case CU_JIT_ERROR_LOG_BUFFER: logs.error = values[i]; break;
      case CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES: logs.error_size = (uintptr_t) values[i]; break;
      default:
        if (n_last_options < FAKE_MAX_OPTIONS)
          {
            last_options[n_last_options] = options[i];
            last_values[n_last_options++] = (uintptr_t) values[i];
          }
      }
  pthread_mutex_unlock (&lock);
  return logs;
}

static void
write_log (char *buffer, size_t size, const char *text)
{
  if (buffer != NULL && size > 0)
    snprintf (buffer, size, "%s", text);
}

/* Whether the last load or link had JIT option @option: 1 with its value. */
EXPORT int
fake_cuda_streams_last_jit_option (int option, uintptr_t *value)
{
  int found = 0;

  pthread_mutex_lock (&lock);
  for (int i = 0; i < n_last_options && !found; i++)
    if ((int) last_options[i] == option)
      {
        *value = last_values[i];
        found = 1;
      }
  pthread_mutex_unlock (&lock);
  return found;
}

static CUresult
fake_cuModuleLoadDataEx (CUmodule *handle, const void *image, unsigned int n_options,
                         CUjit_option *options, void **values)
{
  FakeModule *module = calloc (1, sizeof *module);
  FakeLogs logs = take_jit_options (n_options, options, values);
  const char *line = image;
  char text[64];

  while (*line != '\0' && module->n_functions < FAKE_MAX_FUNCTIONS)
    {
      FakeFunction *function = &module->functions[module->n_functions];
      int used = 0;

      if (*line == '.')
        {
          line += strcspn (line, "\n");
          line += strspn (line, " \n");
          continue;
        }
      if (sscanf (line, "%63s%n", function->name, &used) != 1)
        break;
      for (line += used; function->n_params < FAKE_MAX_PARAMS &&
                         sscanf (line, " %zu%n", &function->sizes[function->n_params], &used) == 1;
           line += used)
        {
          int n = function->n_params++;
          size_t alignment = 1, end = n == 0 ? 0 : function->offsets[n - 1] + function->sizes[n - 1];
          int aligned = 0;

          if (sscanf (line + used, "@%zu%n", &alignment, &aligned) == 1)
            used += aligned;
          function->offsets[n] = (end + alignment - 1) / alignment * alignment;
        }
      module->n_functions++;
      line += strspn (line, " \n");
    }
  if (module->n_functions == 0)
    {
      free (module);
      write_log (logs.error, logs.error_size, "fake JIT: no kernel in the image");
      return CUDA_ERROR_INVALID_IMAGE;
    }
  snprintf (text, sizeof text, "fake JIT: %d kernels loaded", module->n_functions);
  write_log (logs.info, logs.info_size, text);
  *handle = (CUmodule) module;
  return CUDA_SUCCESS;
}

/* The linker: inputs are text in the module format above, whose lines
 * "needs SYMBOL" ask for a kernel line of another input naming SYMBOL; an
 * input whose first word is "error" does not compile. The linked image is
 * the kernel lines of all inputs. What the last link state was given is
 * kept for tests (fake_cuda_streams_link_inputs()). */
typedef struct
{
  FakeLogs  logs;
  char     *kernels;  /* the kernel lines, one after the other */
  char     *needs;    /* " SYMBOL" for each symbol asked for */
  char     *inputs;   /* "TYPE NAME\n" for each input */
  char     *image;    /* once complete */
} FakeLink;

static char last_inputs[4096];

static char *
append (char *string, const char *more, size_t length)
{
  size_t old = string != NULL ? strlen (string) : 0;

  string = realloc (string, old + length + 1);
  memcpy (string + old, more, length);
  string[old + length] = '\0';
  return string;
}

static CUresult
fake_cuLinkCreate (unsigned int n_options, CUjit_option *options, void **values, CUlinkState *state)
{
  FakeLink *link = calloc (1, sizeof *link);

  link->logs = take_jit_options (n_options, options, values);
  link->kernels = append (NULL, "", 0);
  link->needs = append (NULL, "", 0);
  link->inputs = append (NULL, "", 0);
  *state = (CUlinkState) link;
  return CUDA_SUCCESS;
}

static CUresult
fake_cuLinkAddData (CUlinkState state, CUjitInputType type, void *data, size_t size, const char *name,
                    unsigned int n_options, CUjit_option *options, void **values)
{
  FakeLink *link = (FakeLink *) state;
  char *text = strndup (data, size);
  char *record;
  char message[256];

  if (link == NULL || link->image != NULL || (int) type < 0 || type >= CU_JIT_NUM_INPUT_TYPES)
    {
      free (text);
      return CUDA_ERROR_INVALID_VALUE;
    }
  if (strncmp (text, "error", 5) == 0)
    {
      snprintf (message, sizeof message, "fake ptxas: syntax error in %s", name != NULL ? name : "(unnamed)");
      write_log (link->logs.error, link->logs.error_size, message);
      free (text);
      return CUDA_ERROR_INVALID_PTX;
    }
  for (char *line = strtok (text, "\n"); line != NULL; line = strtok (NULL, "\n"))
    if (strncmp (line, "needs ", 6) == 0)
      {
        link->needs = append (link->needs, " ", 1);
        link->needs = append (link->needs, line + 6, strlen (line + 6));
      }
    else
      {
        link->kernels = append (link->kernels, line, strlen (line));
        link->kernels = append (link->kernels, "\n", 1);
      }
  free (text);
  record = malloc (strlen (name != NULL ? name : "") + 16);
  sprintf (record, "%d %s\n", (int) type, name != NULL ? name : "");
  link->inputs = append (link->inputs, record, strlen (record));
  free (record);
  return CUDA_SUCCESS;
}

static CUresult
fake_cuLinkAddFile (CUlinkState state, CUjitInputType type, const char *path, unsigned int n_options,
                    CUjit_option *options, void **values)
{
  FILE *file = fopen (path, "rb");
  char contents[4096];
  size_t size;

  if (file == NULL)
    return CUDA_ERROR_FILE_NOT_FOUND;
  size = fread (contents, 1, sizeof contents, file);
  fclose (file);
  return fake_cuLinkAddData (state, type, contents, size, path, n_options, options, values);
}

static CUresult
fake_cuLinkComplete (CUlinkState state, void **image, size_t *size)
{
  FakeLink *link = (FakeLink *) state;
  char message[256];
  char *needs = strdup (link->needs);
  CUresult result = CUDA_SUCCESS;

  for (char *symbol = strtok (needs, " "); symbol != NULL && result == CUDA_SUCCESS; symbol = strtok (NULL, " "))
    {
      size_t length = strlen (symbol);
      const char *found = NULL;

      for (const char *line = link->kernels; line != NULL && *line != '\0' && found == NULL;
           line = strchr (line, '\n') != NULL ? strchr (line, '\n') + 1 : NULL)
        if (strncmp (line, symbol, length) == 0 && (line[length] == ' ' || line[length] == '\n'))
          found = line;
      if (found == NULL)
        {
          snprintf (message, sizeof message, "error   : Undefined reference to '%s'", symbol);
          write_log (link->logs.error, link->logs.error_size, message);
          result = CUDA_ERROR_INVALID_IMAGE;
        }
    }
  free (needs);
  pthread_mutex_lock (&lock);
  snprintf (last_inputs, sizeof last_inputs, "%s", link->inputs);
  pthread_mutex_unlock (&lock);
  if (result != CUDA_SUCCESS)
    return result;
  link->image = strdup (link->kernels);
  write_log (link->logs.info, link->logs.info_size, "fake nvlink: linked");
  *image = link->image;
  *size = strlen (link->image) + 1;
  return CUDA_SUCCESS;
}

static CUresult
fake_cuLinkDestroy (CUlinkState state)
{
  FakeLink *link = (FakeLink *) state;

  pthread_mutex_lock (&lock);
  snprintf (last_inputs, sizeof last_inputs, "%s", link->inputs);
  pthread_mutex_unlock (&lock);
  /* Overwritten, so that a module still reading the image shows. */
  if (link->image != NULL)
    memset (link->image, 'x', strlen (link->image));
  free (link->image);
  free (link->kernels);
  free (link->needs);
  free (link->inputs);
  free (link);
  return CUDA_SUCCESS;
}

/* The inputs of the last link completed or destroyed, "TYPE NAME" a line. */
EXPORT size_t
fake_cuda_streams_link_inputs (char *out, size_t capacity)
{
  size_t length;

  pthread_mutex_lock (&lock);
  snprintf (out, capacity, "%s", last_inputs);
  length = strlen (last_inputs);
  pthread_mutex_unlock (&lock);
  return length;
}

static CUresult
fake_cuModuleUnload (CUmodule handle)
{
  free (handle);
  return CUDA_SUCCESS;
}

static CUresult
fake_cuModuleGetFunction (CUfunction *handle, CUmodule module_handle, const char *name)
{
  FakeModule *module = (FakeModule *) module_handle;

  for (int i = 0; i < module->n_functions; i++)
    if (strcmp (module->functions[i].name, name) == 0)
      {
        *handle = (CUfunction) &module->functions[i];
        return CUDA_SUCCESS;
      }
  return CUDA_ERROR_NOT_FOUND;
}

static CUresult
fake_cuFuncGetAttribute (int *value, CUfunction_attribute attribute, CUfunction function)
{
  switch (attribute)
    {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *value = 1024; break;
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: *value = 48 << 10; break;
    default: *value = 0;
    }
  return CUDA_SUCCESS;
}

static CUresult
fake_cuFuncGetParamInfo (CUfunction handle, size_t index, size_t *offset, size_t *size)
{
  FakeFunction *function = (FakeFunction *) handle;

  if (index >= (size_t) function->n_params)
    return CUDA_ERROR_INVALID_VALUE;
  *offset = function->offsets[index];
  *size = function->sizes[index];
  return CUDA_SUCCESS;
}

/* The parameters of the last launch, at their offsets, once a test
 * asked for them (fake_cuda_streams_last_params()): until then launches
 * copy nothing, so that bench-launch-cpu times what it always timed. */
static int recording_params;
static unsigned char last_params[FAKE_MAX_PARAMS * 16];
static size_t last_params_size;
/* And its stream, grid and block, shared memory. */
static CUstream last_launch_stream;
static unsigned int last_launch_shape[7];

static CUresult
fake_cuLaunchKernel (CUfunction function, unsigned int grid_x, unsigned int grid_y,
                     unsigned int grid_z, unsigned int block_x, unsigned int block_y,
                     unsigned int block_z, unsigned int shared_memory, CUstream stream,
                     void **params, void **extra)
{
  FakeFunction *fake = (FakeFunction *) function;
  size_t size = 0;

  if (function == NULL || (params == NULL && fake->n_params > 0))
    return CUDA_ERROR_INVALID_VALUE;
  if (!__atomic_load_n (&recording_params, __ATOMIC_ACQUIRE))
    return failed ? CUDA_ERROR_ILLEGAL_ADDRESS : CUDA_SUCCESS;
  pthread_mutex_lock (&lock);
  memset (last_params, 0, sizeof last_params);
  for (int i = 0; i < fake->n_params && fake->offsets[i] + fake->sizes[i] <= sizeof last_params; i++)
    {
      memcpy (last_params + fake->offsets[i], params[i], fake->sizes[i]);
      size = fake->offsets[i] + fake->sizes[i];
    }
  last_params_size = size;
  last_launch_stream = stream;
  last_launch_shape[0] = grid_x;
  last_launch_shape[1] = grid_y;
  last_launch_shape[2] = grid_z;
  last_launch_shape[3] = block_x;
  last_launch_shape[4] = block_y;
  last_launch_shape[5] = block_z;
  last_launch_shape[6] = shared_memory;
  pthread_mutex_unlock (&lock);
  return failed ? CUDA_ERROR_ILLEGAL_ADDRESS : CUDA_SUCCESS;
}

/* The stream of the last launch recorded (see
 * fake_cuda_streams_last_params()), and in @shape its grid, block and
 * shared memory (x, y, z of each, then the bytes). */
EXPORT CUstream
fake_cuda_streams_last_launch (unsigned int shape[7])
{
  CUstream stream;

  pthread_mutex_lock (&lock);
  stream = last_launch_stream;
  memcpy (shape, last_launch_shape, sizeof last_launch_shape);
  pthread_mutex_unlock (&lock);
  return stream;
}

/* Copies the last launch's parameters, at their offsets, to @out (of
 * @capacity bytes) and returns their size, so that tests can read what a
 * launch passed. The first call starts the recording and returns 0. */
EXPORT size_t
fake_cuda_streams_last_params (void *out, size_t capacity)
{
  size_t size;

  __atomic_store_n (&recording_params, 1, __ATOMIC_RELEASE);
  pthread_mutex_lock (&lock);
  size = last_params_size < capacity ? last_params_size : capacity;
  memcpy (out, last_params, size);
  pthread_mutex_unlock (&lock);
  return size;
}

static CUresult (*base_device_get_attribute) (int *, CUdevice_attribute, CUdevice);

static CUresult
fake_cuDeviceGetAttribute (int *value, CUdevice_attribute attribute, CUdevice device)
{
  CUresult result = base_device_get_attribute (value, attribute, device);

  if (result == CUDA_SUCCESS && attribute == CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED)
    *value = !__atomic_load_n (&read_only_unsupported, __ATOMIC_ACQUIRE);
  if (result == CUDA_SUCCESS && attribute == CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED)
    *value = fake_cuda_graphics_dma_buf_supported ();
  if (result == CUDA_SUCCESS)
    fake_cuda_vmm_device_attribute (attribute, value);
  return result;
}

/* Whether the memory at @address is registered: 1 with its size and flags
 * (each optional), else 0. */
EXPORT int
fake_cuda_streams_registration (const void *address, size_t *size, unsigned int *flags)
{
  Allocation *allocation;
  int found;

  pthread_mutex_lock (&lock);
  allocation = allocation_find (address);
  found = allocation != NULL && allocation->registered;
  if (found && size != NULL)
    *size = allocation->size;
  if (found && flags != NULL)
    *flags = allocation->register_flags;
  pthread_mutex_unlock (&lock);
  return found;
}

/* Makes devices support CU_MEMHOSTREGISTER_READ_ONLY (@supported non-zero,
 * the default) or not. */
EXPORT void
fake_cuda_streams_support_read_only (int supported)
{
  __atomic_store_n (&read_only_unsupported, !supported, __ATOMIC_RELEASE);
}

/* How many host functions were enqueued on @handle since it was made. */
EXPORT int
fake_cuda_streams_host_funcs (CUstream handle)
{
  int count;

  pthread_mutex_lock (&lock);
  count = resolve (handle)->host_funcs;
  pthread_mutex_unlock (&lock);
  return count;
}

/* Holds host functions back (@hold non-zero), as a slow CUDA callback
 * thread would, while the rest of each stream's work before them runs, or
 * lets them run again. */
EXPORT void
fake_cuda_streams_hold_host_functions (int hold)
{
  pthread_mutex_lock (&lock);
  host_functions_held = hold;
  pthread_cond_broadcast (&changed);
  pthread_mutex_unlock (&lock);
}

/* Makes cuGraphLaunch refuse, with CUDA_ERROR_INVALID_CONTEXT, every launch
 * made while @context is not current, as a driver might that launched in
 * the current context rather than the stream's; NULL lets every launch be
 * made, as NVIDIA's driver does. Returns how many launches were refused
 * since the previous call. Not thread-safe: for a test's main thread. */
EXPORT int
fake_cuda_streams_graphs_need_current (CUcontext context)
{
  int refused = graph_launches_refused;

  graph_launch_context = context;
  graph_launches_refused = 0;
  return refused;
}

/* Makes the context fail (@fail non-zero) or recover. */
EXPORT void
fake_cuda_streams_fail (int fail)
{
  pthread_mutex_lock (&lock);
  failed = fail;
  pthread_cond_broadcast (&changed);
  pthread_mutex_unlock (&lock);
}

static const struct
{
  const char *name;
  void       *function;
} entry_points[] = {
#define ENTRY(name) { #name, (void *) fake_##name },
  ENTRY (cuStreamCreateWithPriority)
  ENTRY (cuStreamDestroy)
  ENTRY (cuStreamQuery)
  ENTRY (cuStreamSynchronize)
  ENTRY (cuStreamGetFlags)
  ENTRY (cuStreamGetPriority)
  ENTRY (cuStreamIsCapturing)
  ENTRY (cuStreamBeginCapture)
  ENTRY (cuStreamEndCapture)
  ENTRY (cuStreamGetCaptureInfo)
  ENTRY (cuGraphDestroy)
  ENTRY (cuGraphGetNodes)
  ENTRY (cuGraphNodeGetType)
  ENTRY (cuGraphInstantiateWithFlags)
  ENTRY (cuGraphExecDestroy)
  ENTRY (cuGraphLaunch)
  ENTRY (cuMemsetD8Async)
  ENTRY (cuMemsetD32Async)
  ENTRY (cuMemAlloc)
  ENTRY (cuMemAllocManaged)
  ENTRY (cuMemFree)
  ENTRY (cuMemHostAlloc)
  ENTRY (cuMemFreeHost)
  ENTRY (cuMemHostRegister)
  ENTRY (cuMemHostUnregister)
  ENTRY (cuMemHostGetDevicePointer)
  ENTRY (cuMemGetAddressRange)
  ENTRY (cuPointerGetAttributes)
  ENTRY (cuMemcpyHtoD)
  ENTRY (cuMemcpyDtoH)
  ENTRY (cuMemcpyHtoDAsync)
  ENTRY (cuMemcpyDtoHAsync)
  ENTRY (cuMemcpyDtoDAsync)
  ENTRY (cuMemsetD2D8Async)
  ENTRY (cuDeviceGetDefaultMemPool)
  ENTRY (cuMemPoolCreate)
  ENTRY (cuMemPoolDestroy)
  ENTRY (cuMemPoolGetAttribute)
  ENTRY (cuMemPoolSetAttribute)
  ENTRY (cuMemPoolTrimTo)
  ENTRY (cuMemPoolExportToShareableHandle)
  ENTRY (cuMemPoolImportFromShareableHandle)
  ENTRY (cuMemPoolExportPointer)
  ENTRY (cuMemPoolImportPointer)
  ENTRY (cuMemAllocAsync)
  ENTRY (cuMemAllocFromPoolAsync)
  ENTRY (cuMemFreeAsync)
  ENTRY (cuStreamAttachMemAsync)
  ENTRY (cuStreamWaitEvent)
  ENTRY (cuLaunchHostFunc)
  ENTRY (cuStreamWriteValue32)
  ENTRY (cuEventCreate)
  ENTRY (cuEventDestroy)
  ENTRY (cuEventRecord)
  ENTRY (cuEventQuery)
  ENTRY (cuEventSynchronize)
  ENTRY (cuEventElapsedTime)
  ENTRY (cuDevicePrimaryCtxReset)
  ENTRY (cuModuleLoadDataEx)
  ENTRY (cuModuleUnload)
  ENTRY (cuModuleGetFunction)
  ENTRY (cuFuncGetAttribute)
  ENTRY (cuFuncGetParamInfo)
  ENTRY (cuLaunchKernel)
  ENTRY (cuLinkCreate)
  ENTRY (cuLinkAddData)
  ENTRY (cuLinkAddFile)
  ENTRY (cuLinkComplete)
  ENTRY (cuLinkDestroy)
  ENTRY (cuDeviceGetAttribute)
#undef ENTRY
};

EXPORT CUresult
cuInit (unsigned int flags)
{
  CUresult (*base_init) (unsigned int);
  const char *path = getenv ("FAKE_CUDA_BASE");

  if (base == NULL && (path == NULL || (base = dlopen (path, RTLD_NOW | RTLD_LOCAL)) == NULL))
    return CUDA_ERROR_NOT_INITIALIZED;
  base_init = (CUresult (*) (unsigned int)) dlsym (base, "cuInit");
  base_get_proc_address = (__typeof__ (base_get_proc_address)) dlsym (base, "cuGetProcAddress_v2");
  if (base_init == NULL || base_get_proc_address == NULL ||
      base_get_proc_address ("cuDevicePrimaryCtxReset", (void **) &base_primary_ctx_reset,
                             CUDA_VERSION, 0, NULL) != CUDA_SUCCESS ||
      base_get_proc_address ("cuCtxGetDevice", (void **) &base_ctx_get_device,
                             CUDA_VERSION, 0, NULL) != CUDA_SUCCESS ||
      base_get_proc_address ("cuCtxGetCurrent", (void **) &base_ctx_get_current,
                             CUDA_VERSION, 0, NULL) != CUDA_SUCCESS ||
      base_get_proc_address ("cuDeviceGetAttribute", (void **) &base_device_get_attribute,
                             CUDA_VERSION, 0, NULL) != CUDA_SUCCESS)
    return CUDA_ERROR_NOT_INITIALIZED;
  return base_init (flags);
}

EXPORT CUresult
cuDriverGetVersion (int *version)
{
  *version = CUDA_VERSION;
  return CUDA_SUCCESS;
}

/* Whether FAKE_CUDA_MISSING, entry points' names separated by commas, names
 * @symbol: the stand-in then lacks it, as older drivers lack newer entry
 * points (cuFuncGetParamInfo came with CUDA 12.4). */
static int
is_missing (const char *symbol)
{
  const char *missing = getenv ("FAKE_CUDA_MISSING");
  size_t length = strlen (symbol);

  for (const char *name = missing; name != NULL && *name != '\0';)
    {
      size_t name_length = strcspn (name, ",");

      if (name_length == length && strncmp (name, symbol, length) == 0)
        return 1;
      name += name_length;
      name += *name == ',';
    }
  return 0;
}

EXPORT CUresult
cuGetProcAddress_v2 (const char *symbol, void **pfn, int version, cuuint64_t flags,
                     CUdriverProcAddressQueryResult *status)
{
  if (is_missing (symbol))
    {
      *pfn = NULL;
      if (status != NULL)
        *status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
      return CUDA_ERROR_NOT_FOUND;
    }
  for (size_t i = 0; i < sizeof entry_points / sizeof entry_points[0]; i++)
    if (strcmp (entry_points[i].name, symbol) == 0)
      {
        *pfn = entry_points[i].function;
        if (status != NULL)
          *status = CU_GET_PROC_ADDRESS_SUCCESS;
        return CUDA_SUCCESS;
      }
  /* Arrays, textures and surfaces (fake-cuda-arrays.c); graphics
   * interoperability, external memory and semaphores (fake-cuda-graphics.c);
   * virtual memory (fake-cuda-vmm.c); graphs built node by node
   * (fake-cuda-graphs.c); tensor maps (fake-cuda-tensor-maps.c). */
  if ((*pfn = fake_cuda_arrays_lookup (symbol)) != NULL || (*pfn = fake_cuda_graphics_lookup (symbol)) != NULL ||
      (*pfn = fake_cuda_vmm_lookup (symbol)) != NULL || (*pfn = fake_cuda_graphs_lookup (symbol)) != NULL ||
      (*pfn = fake_cuda_tensor_maps_lookup (symbol)) != NULL)
    {
      if (status != NULL)
        *status = CU_GET_PROC_ADDRESS_SUCCESS;
      return CUDA_SUCCESS;
    }
  return base_get_proc_address (symbol, pfn, version, flags, status);
}
