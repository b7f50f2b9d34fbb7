/* test-transfer-logic.c: the asynchronous downloads and uploads without a
 * GPU, against fake-cuda-streams and a stand-in for the driver's memory
 * functions installed in the loader's table: staging memory is pinned once
 * and reused, pageable data is staged off the calling thread while the
 * copies keep their place on the stream, cancellation ends the wait and not
 * the copies, and what the copies use lives until they are done (for work
 * captured into a graph, as long as the graph); bindings borrow from the
 * same staging pool.
 *
 * In the stand-in, device memory is host memory, a copy on a stream is a
 * host function on the stream's thread, and cuStreamWaitValue32 is one that
 * polls the memory. Pinning and unpinning sleep about as long as the driver
 * takes, so that the figures the steady-state case prints compare. */
#include "config.h"

#include <string.h>

#include "cugi-private.h"
#include "cugi-memory-private.h"
#include "cugi-staging-private.h"
#include "cugi-stream-private.h"
#include "gpu-work.h"

/* About what pinning or unpinning a MiB costs the driver. */
#define PIN_US_PER_MIB 100

/* ---- the stand-in memory functions ---------------------------------------- */

typedef struct
{
  guint8  *start;
  gsize    size;
  gboolean pinned;   /* host memory, else device memory */
} Allocation;

static GMutex allocations_lock;
static GPtrArray *allocations;
static gint n_pins;
/* Those made on the thread that runs the tests, where asynchronous calls
 * are made (in a program, a main loop's): see test_async_calls_pin_nothing(). */
static GThread *test_thread;
static gint n_pins_here;
static gint n_unpins;
static gint n_waits;
static gint n_driver_staged;  /* copies of pageable memory the driver staged */
static gint n_pageable_downloads;  /* copies the driver made to pageable memory */
static gint writes_until_failure = -1;  /* cuStreamWriteValue32 calls, if they fail */

static guint8 *
allocate (gsize    size,
          gboolean pinned)
{
  Allocation *allocation = g_new (Allocation, 1);

  /* Written, so that its pages exist from now on, as the driver's do. */
  allocation->start = memset (g_malloc (MAX (size, 1)), 0, MAX (size, 1));
  allocation->size = size;
  allocation->pinned = pinned;
  g_mutex_lock (&allocations_lock);
  g_ptr_array_add (allocations, allocation);
  g_mutex_unlock (&allocations_lock);
  return allocation->start;
}

static gboolean
release (const void *start,
         gboolean    pinned)
{
  gboolean found = FALSE;

  g_mutex_lock (&allocations_lock);
  for (guint i = 0; i < allocations->len && !found; i++)
    {
      Allocation *allocation = g_ptr_array_index (allocations, i);

      if (allocation->start == start && allocation->pinned == pinned)
        {
          g_ptr_array_remove_index_fast (allocations, i);
          g_free (allocation->start);
          g_free (allocation);
          found = TRUE;
        }
    }
  g_mutex_unlock (&allocations_lock);
  return found;
}

/* Whether [@start, @start + @size) lies in one allocation of the kind. */
static gboolean
lies_in (const void *start,
         gsize       size,
         gboolean    pinned)
{
  const guint8 *first = start;
  gboolean found = FALSE;

  g_mutex_lock (&allocations_lock);
  for (guint i = 0; i < allocations->len && !found; i++)
    {
      Allocation *allocation = g_ptr_array_index (allocations, i);

      found = allocation->pinned == pinned && first >= allocation->start &&
              first < allocation->start + allocation->size &&
              size <= (gsize) (allocation->start + allocation->size - first);
    }
  g_mutex_unlock (&allocations_lock);
  return found;
}

static void
pinning_cost (gsize size)
{
  g_usleep (PIN_US_PER_MIB * (size >> 20) + 10);
}

static CUresult CUDAAPI
fake_mem_alloc (CUdeviceptr *address,
                size_t       size)
{
  *address = (CUdeviceptr) (guintptr) allocate (size, FALSE);
  return CUDA_SUCCESS;
}

/* When set, cuMemFree behaves as the driver's does: it takes a lock that
 * every enqueuing call takes too, and waits, holding it, for the streams'
 * waits for memory to be over (the driver waits for the whole device). A
 * free that waited longer than FREE_STALL_MS stalled: with the driver's, it
 * would have waited for ever. */
#define FREE_STALL_MS 10000
static gboolean device_wide_frees;
static GRWLock driver_lock;
static gint n_waits_pending;
static gint n_stalled_frees;
static gint n_device_frees;

static void
enter_enqueuing_call (void)
{
  if (g_atomic_int_get (&device_wide_frees))
    g_rw_lock_reader_lock (&driver_lock);
}

static void
leave_enqueuing_call (void)
{
  if (g_atomic_int_get (&device_wide_frees))
    g_rw_lock_reader_unlock (&driver_lock);
}

static CUresult CUDAAPI
fake_mem_free (CUdeviceptr address)
{
  if (g_atomic_int_get (&device_wide_frees))
    {
      gint64 deadline = g_get_monotonic_time () + FREE_STALL_MS * G_TIME_SPAN_MILLISECOND;

      g_rw_lock_writer_lock (&driver_lock);
      while (g_atomic_int_get (&n_waits_pending) > 0 && g_get_monotonic_time () < deadline)
        g_usleep (100);
      if (g_atomic_int_get (&n_waits_pending) > 0)
        g_atomic_int_inc (&n_stalled_frees);
      g_rw_lock_writer_unlock (&driver_lock);
    }
  g_atomic_int_inc (&n_device_frees);
  return release ((void *) (guintptr) address, FALSE) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

static CUresult CUDAAPI
fake_mem_host_alloc (void         **data,
                     size_t         size,
                     unsigned int   flags)
{
  pinning_cost (size);
  g_atomic_int_inc (&n_pins);
  if (g_thread_self () == test_thread)
    g_atomic_int_inc (&n_pins_here);
  *data = allocate (size, TRUE);
  return CUDA_SUCCESS;
}

static CUresult CUDAAPI
fake_mem_free_host (void *data)
{
  gsize size = 0;

  g_mutex_lock (&allocations_lock);
  for (guint i = 0; i < allocations->len; i++)
    if (((Allocation *) g_ptr_array_index (allocations, i))->start == data)
      size = ((Allocation *) g_ptr_array_index (allocations, i))->size;
  g_mutex_unlock (&allocations_lock);
  pinning_cost (size);
  g_atomic_int_inc (&n_unpins);
  return release (data, TRUE) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* Unified addressing: pinned memory is where the host sees it. */
static CUresult CUDAAPI
fake_mem_host_get_device_pointer (CUdeviceptr  *address,
                                  void         *data,
                                  unsigned int  flags)
{
  if (flags != 0 || !lies_in (data, 1, TRUE))
    return CUDA_ERROR_INVALID_VALUE;
  *address = (CUdeviceptr) (guintptr) data;
  return CUDA_SUCCESS;
}

static CUresult CUDAAPI
fake_pointer_get_attribute (void               *data,
                            CUpointer_attribute attribute,
                            CUdeviceptr         address)
{
  const void *pointer = (const void *) (guintptr) address;

  if (attribute != CU_POINTER_ATTRIBUTE_MEMORY_TYPE)
    return CUDA_ERROR_NOT_SUPPORTED;
  /* As the driver does: memory it does not know is an invalid value. */
  if (lies_in (pointer, 1, TRUE))
    *(CUmemorytype *) data = CU_MEMORYTYPE_HOST;
  else if (lies_in (pointer, 1, FALSE))
    *(CUmemorytype *) data = CU_MEMORYTYPE_DEVICE;
  else
    return CUDA_ERROR_INVALID_VALUE;
  return CUDA_SUCCESS;
}

/* As the driver does: attributes of memory it does not know keep their
 * defaults (0), and the call succeeds. */
static CUresult CUDAAPI
fake_pointer_get_attributes (unsigned int         n_attributes,
                             CUpointer_attribute *attributes,
                             void               **data,
                             CUdeviceptr          address)
{
  for (unsigned int i = 0; i < n_attributes; i++)
    {
      if (attributes[i] == CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL)
        *(int *) data[i] = 0;
      else if (fake_pointer_get_attribute (data[i], attributes[i], address) != CUDA_SUCCESS)
        *(CUmemorytype *) data[i] = 0;
    }
  return CUDA_SUCCESS;
}

typedef struct
{
  void       *destination;
  const void *source;
  gsize       size;
  gpointer    owned_source;  /* the driver's own copy of pageable data */
} Copy;

/* How long each copy on a stream takes, beyond the memcpy: a device
 * behind the host. */
static guint copy_delay_us;

static void CUDA_CB
run_copy (void *data)
{
  Copy *copy = data;

  if (g_atomic_int_get (&copy_delay_us) > 0)
    g_usleep (g_atomic_int_get (&copy_delay_us));
  memcpy (copy->destination, copy->source, copy->size);
  g_free (copy->owned_source);
  g_free (copy);
}

/* A copy between host and device memory on @stream. From pageable memory,
 * the driver stages the data before the call returns, as CUDA's does,
 * holding the caller up. */
static CUresult
enqueue_copy (void       *destination,
              const void *source,
              gsize       size,
              CUstream    stream,
              gboolean    to_device)
{
  Copy *copy;
  CUresult result;

  if (!lies_in (to_device ? destination : source, size, FALSE))
    return CUDA_ERROR_INVALID_VALUE;
  copy = g_new0 (Copy, 1);
  copy->destination = destination;
  copy->source = source;
  copy->size = size;
  if (!to_device && !lies_in (destination, size, TRUE))
    g_atomic_int_inc (&n_pageable_downloads);
  if (to_device && !lies_in (source, size, TRUE))
    {
      g_atomic_int_inc (&n_driver_staged);
      copy->source = copy->owned_source = g_memdup2 (source, size);
    }
  enter_enqueuing_call ();
  result = cugi_cuda.cuLaunchHostFunc (stream, run_copy, copy);
  leave_enqueuing_call ();
  return result;
}

static CUresult CUDAAPI
fake_memcpy_htod_async (CUdeviceptr  destination,
                        const void  *source,
                        size_t       size,
                        CUstream     stream)
{
  return enqueue_copy ((void *) (guintptr) destination, source, size, stream, TRUE);
}

static CUresult CUDAAPI
fake_memcpy_dtoh_async (void        *destination,
                        CUdeviceptr  source,
                        size_t       size,
                        CUstream     stream)
{
  return enqueue_copy (destination, (const void *) (guintptr) source, size, stream, FALSE);
}

/* The synchronous copies wait for the legacy stream, as CUDA's do. */
static CUresult CUDAAPI
fake_memcpy_htod (CUdeviceptr  destination,
                  const void  *source,
                  size_t       size)
{
  CUresult result = fake_memcpy_htod_async (destination, source, size, CU_STREAM_LEGACY);

  return result != CUDA_SUCCESS ? result : cugi_cuda.cuStreamSynchronize (CU_STREAM_LEGACY);
}

static CUresult CUDAAPI
fake_memcpy_dtoh (void        *destination,
                  CUdeviceptr  source,
                  size_t       size)
{
  CUresult result = fake_memcpy_dtoh_async (destination, source, size, CU_STREAM_LEGACY);

  return result != CUDA_SUCCESS ? result : cugi_cuda.cuStreamSynchronize (CU_STREAM_LEGACY);
}

/* The synchronous 3D copy from the host to the device, row by row. */
static CUresult CUDAAPI
fake_memcpy_3d (const CUDA_MEMCPY3D *copy)
{
  if (copy->srcMemoryType != CU_MEMORYTYPE_HOST || copy->dstMemoryType != CU_MEMORYTYPE_DEVICE)
    return CUDA_ERROR_NOT_SUPPORTED;
  for (gsize z = 0; z < copy->Depth; z++)
    for (gsize y = 0; y < copy->Height; y++)
      {
        const guint8 *from = (const guint8 *) copy->srcHost +
                             (z * copy->srcHeight + y) * copy->srcPitch;
        guint8 *to = (guint8 *) (guintptr) copy->dstDevice +
                     (z * copy->dstHeight + y) * copy->dstPitch;

        if (!lies_in (to, copy->WidthInBytes, FALSE))
          return CUDA_ERROR_INVALID_VALUE;
        memcpy (to, from, copy->WidthInBytes);
      }
  return CUDA_SUCCESS;
}

/* A wait for, or a write of, a value in pinned memory. */
typedef struct
{
  const gint *address;
  gint        value;
} Wait;

static void CUDA_CB
run_wait (void *data)
{
  Wait *wait = data;

  /* The cyclic comparison of CU_STREAM_WAIT_VALUE_GEQ. */
  while ((gint32) ((guint32) g_atomic_int_get (wait->address) - (guint32) wait->value) < 0)
    g_usleep (20);
  g_atomic_int_dec_and_test (&n_waits_pending);
  g_free (wait);
}

/* Enqueues @run of a Wait of @value at @address (pinned memory's device
 * address, checked by the caller). */
static CUresult
enqueue_value_op (CUstream     stream,
                  CUdeviceptr  address,
                  cuuint32_t   value,
                  CUhostFn     run)
{
  Wait *op = g_new (Wait, 1);
  CUresult result;

  op->address = (const gint *) (guintptr) address;
  op->value = (gint) value;
  if (run == run_wait)
    g_atomic_int_inc (&n_waits_pending);
  enter_enqueuing_call ();
  result = cugi_cuda.cuLaunchHostFunc (stream, run, op);
  leave_enqueuing_call ();
  return result;
}

static CUresult CUDAAPI
fake_stream_wait_value32 (CUstream     stream,
                          CUdeviceptr  address,
                          cuuint32_t   value,
                          unsigned int flags)
{
  /* The stream reads pinned memory through its device address. */
  if (flags != CU_STREAM_WAIT_VALUE_GEQ || !lies_in ((void *) (guintptr) address, sizeof (gint), TRUE))
    return CUDA_ERROR_INVALID_VALUE;
  g_atomic_int_inc (&n_waits);
  return enqueue_value_op (stream, address, value, run_wait);
}

static void CUDA_CB
run_write (void *data)
{
  Wait *write = data;

  g_atomic_int_set ((gint *) write->address, write->value);
  g_free (write);
}

static CUresult CUDAAPI
fake_stream_write_value32 (CUstream     stream,
                           CUdeviceptr  address,
                           cuuint32_t   value,
                           unsigned int flags)
{
  if (flags != CU_STREAM_WRITE_VALUE_DEFAULT || !lies_in ((void *) (guintptr) address, sizeof (gint), TRUE))
    return CUDA_ERROR_INVALID_VALUE;
  if (writes_until_failure >= 0 && writes_until_failure-- == 0)
    return CUDA_ERROR_OUT_OF_MEMORY;
  return enqueue_value_op (stream, address, value, run_write);
}

static CUresult CUDAAPI
fake_not_supported (CUstream     stream,
                    CUdeviceptr  address,
                    cuuint32_t   value,
                    unsigned int flags)
{
  return CUDA_ERROR_NOT_SUPPORTED;
}

static void
install_fake_memory (void)
{
  allocations = g_ptr_array_new ();
  cugi_cuda.cuMemAlloc = fake_mem_alloc;
  cugi_cuda.cuMemFree = fake_mem_free;
  cugi_cuda.cuMemHostAlloc = fake_mem_host_alloc;
  cugi_cuda.cuMemFreeHost = fake_mem_free_host;
  cugi_cuda.cuMemHostGetDevicePointer = fake_mem_host_get_device_pointer;
  cugi_cuda.cuPointerGetAttribute = fake_pointer_get_attribute;
  cugi_cuda.cuPointerGetAttributes = fake_pointer_get_attributes;
  cugi_cuda.cuMemcpyHtoDAsync = fake_memcpy_htod_async;
  cugi_cuda.cuMemcpyDtoHAsync = fake_memcpy_dtoh_async;
  cugi_cuda.cuMemcpyHtoD = fake_memcpy_htod;
  cugi_cuda.cuMemcpyDtoH = fake_memcpy_dtoh;
  cugi_cuda.cuStreamWaitValue32 = fake_stream_wait_value32;
  cugi_cuda.cuStreamWriteValue32 = fake_stream_write_value32;
  cugi_cuda.cuMemcpy3D = fake_memcpy_3d;
}

/* ---- work on the stand-in's streams --------------------------------------- */

/* A stand-in for a kernel that reads device memory: what it saw. */
typedef struct
{
  const guint8 *device;
  gsize         size;
  GBytes       *seen;
} Snapshot;

static void CUDA_CB
take_snapshot (void *data)
{
  Snapshot *snapshot = data;

  snapshot->seen = g_bytes_new (snapshot->device, snapshot->size);
}

static void
enqueue_snapshot (Snapshot   *snapshot,
                  CugiBuffer *buffer,
                  CugiStream *stream)
{
  snapshot->device = (const guint8 *) (guintptr) cugi_buffer_get_device_pointer (buffer);
  snapshot->size = cugi_buffer_get_size (buffer);
  g_assert_cmpint (cugi_cuda.cuLaunchHostFunc (cugi_stream_get_handle (stream), take_snapshot, snapshot),
                   ==, CUDA_SUCCESS);
}

static void
assert_device_holds (CugiBuffer *buffer,
                     GBytes     *expected)
{
  const guint8 *device = (const guint8 *) (guintptr) cugi_buffer_get_device_pointer (buffer);

  g_assert_cmpmem (device, cugi_buffer_get_size (buffer),
                   g_bytes_get_data (expected, NULL), g_bytes_get_size (expected));
}

/* Ready for the next transfer, its call count too. */
static void
outcome_reset (CugiTestTransfer *outcome)
{
  cugi_test_transfer_clear (outcome);
  memset (outcome, 0, sizeof *outcome);
}

/* ---- cases ------------------------------------------------------------------ */

static void
test_download (void)
{
  g_autoptr(GBytes) pattern = cugi_test_pattern_new (3 << 20, 1);
  g_autoptr(CugiBuffer) buffer = cugi_test_buffer_new_with (pattern);
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  CugiTestTransfer outcome = { 0 };
  CugiTestGate gate;

  cugi_test_gate_close (&gate, stream);
  cugi_buffer_download_async (buffer, 0, 3 << 20, stream, NULL, cugi_test_on_downloaded, &outcome);
  iterate_for (20);
  g_assert_cmpuint (outcome.calls, ==, 0);

  cugi_test_gate_open (&gate, stream);
  iterate_until (&outcome.calls, 1, 5000);
  g_assert_no_error (outcome.error);
  g_assert_true (outcome.thread == g_thread_self ());
  g_assert_cmpmem (g_bytes_get_data (outcome.bytes, NULL), g_bytes_get_size (outcome.bytes),
                   g_bytes_get_data (pattern, NULL), g_bytes_get_size (pattern));
  /* The bytes are the pinned staging memory itself. */
  g_assert_true (lies_in (g_bytes_get_data (outcome.bytes, NULL), 3 << 20, TRUE));
  outcome_reset (&outcome);
}

/* Asynchronous copies of more pipelines than a stream's queue holds (three
 * here) run on a stream of their own, fed from a thread, while the
 * caller's stream waits for them in their place: an upload from pageable
 * memory, and a download, larger than the staging pool keeps, into
 * ordinary memory; with the device behind the host, and work enqueued
 * after each copy on the same stream that must see its result. After a
 * driver call failed halfway through the feeding, the error comes back,
 * what was enqueued runs to its end, and the next copies work. */
static void
test_large_async_copies (void)
{
  const gsize size = (256 + 3) << 20;
  g_autoptr(GBytes) pattern = cugi_test_pattern_new (size, 27);
  g_autoptr(GBytes) zeros = g_bytes_new_take (g_malloc0 (size), size);
  g_autoptr(CugiBuffer) buffer = cugi_test_buffer_new_with (zeros);
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  CugiTestTransfer outcome = { 0 };
  CugiTestTransfer tail = { 0 };

  g_atomic_int_set (&copy_delay_us, 500);
  cugi_buffer_upload_bytes_async (buffer, 0, pattern, stream, NULL, cugi_test_on_uploaded, &outcome);
  /* In stream order: this download sees the upload's last bytes. */
  cugi_buffer_download_async (buffer, size - 4096, 4096, stream, NULL, cugi_test_on_downloaded, &tail);
  iterate_until (&tail.calls, 1, 60000);
  g_assert_cmpuint (outcome.calls, ==, 1);
  g_assert_no_error (outcome.error);
  g_assert_true (outcome.uploaded);
  g_assert_no_error (tail.error);
  g_assert_cmpmem (g_bytes_get_data (tail.bytes, NULL), 4096,
                   (const guint8 *) g_bytes_get_data (pattern, NULL) + size - 4096, 4096);
  outcome_reset (&outcome);
  outcome_reset (&tail);
  assert_device_holds (buffer, pattern);

  cugi_buffer_download_async (buffer, 0, size, stream, NULL, cugi_test_on_downloaded, &outcome);
  iterate_until (&outcome.calls, 1, 60000);
  g_atomic_int_set (&copy_delay_us, 0);
  g_assert_no_error (outcome.error);
  cugi_test_assert_bytes_equal (outcome.bytes, pattern);
  g_assert_false (lies_in (g_bytes_get_data (outcome.bytes, NULL), size, TRUE));
  outcome_reset (&outcome);

  for (guint upload = 0; upload < 2; upload++)
    {
      writes_until_failure = 70;
      if (upload)
        cugi_buffer_upload_bytes_async (buffer, 0, pattern, stream, NULL, cugi_test_on_uploaded, &outcome);
      else
        cugi_buffer_download_async (buffer, 0, size, stream, NULL, cugi_test_on_downloaded, &outcome);
      iterate_until (&outcome.calls, 1, 60000);
      writes_until_failure = -1;
      g_assert_error (outcome.error, CUGI_ERROR, CUGI_ERROR_OUT_OF_MEMORY);
      g_assert_null (outcome.bytes);
      outcome_reset (&outcome);
    }
  cugi_test_synchronize (stream);

  cugi_buffer_download_async (buffer, 0, size, stream, NULL, cugi_test_on_downloaded, &outcome);
  iterate_until (&outcome.calls, 1, 60000);
  g_assert_no_error (outcome.error);
  cugi_test_assert_bytes_equal (outcome.bytes, pattern);
  outcome_reset (&outcome);
}

/* A buffer freed while a large upload is fed from a thread: the driver's
 * cuMemFree would wait for the caller's stream, which waits for the feeder,
 * which waits for the lock that cuMemFree holds (it hung the Python tests
 * on an H200). cugi frees it once the feeder is done instead, and the copy
 * and the free both complete. */
static void
test_free_while_fed (void)
{
  const gsize size = (256 + 3) << 20;
  g_autoptr(GBytes) pattern = cugi_test_pattern_new (size, 31);
  g_autoptr(GBytes) zeros = g_bytes_new_take (g_malloc0 (size), size);
  g_autoptr(GBytes) small = cugi_test_pattern_new (4096, 32);
  g_autoptr(CugiBuffer) buffer = cugi_test_buffer_new_with (zeros);
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  CugiBuffer *other = cugi_test_buffer_new_with (small);
  CugiTestTransfer outcome = { 0 };
  guint frees_before;

  /* Nothing in flight keeps the other buffer: its finalize frees it. */
  cugi_test_settle (NULL);
  frees_before = (guint) g_atomic_int_get (&n_device_frees);
  g_atomic_int_set (&device_wide_frees, TRUE);
  g_atomic_int_set (&copy_delay_us, 500);
  cugi_buffer_upload_bytes_async (buffer, 0, pattern, stream, NULL, cugi_test_on_uploaded, &outcome);
  g_object_unref (other);
  iterate_until (&outcome.calls, 1, 60000);
  g_atomic_int_set (&copy_delay_us, 0);
  g_assert_no_error (outcome.error);
  g_assert_true (outcome.uploaded);
  cugi_test_synchronize (stream);
  /* The feeder frees it on its thread: nothing wakes this one for it. */
  for (gint64 deadline = g_get_monotonic_time () + 60 * G_TIME_SPAN_SECOND;
       (guint) g_atomic_int_get (&n_device_frees) < frees_before + 1;)
    {
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
  g_atomic_int_set (&device_wide_frees, FALSE);
  g_assert_cmpint (g_atomic_int_get (&n_stalled_frees), ==, 0);
  assert_device_holds (buffer, pattern);
  outcome_reset (&outcome);
}

/* Into a host buffer of the caller's: the callback waits for the copy,
 * which lands where it was asked to, with nothing staged. */
static void
test_download_to_host (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) pattern = cugi_test_pattern_new (1 << 20, 2);
  g_autoptr(CugiBuffer) buffer = cugi_test_buffer_new_with (pattern);
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  g_autoptr(CugiHostBuffer) host = cugi_host_buffer_new (NULL, 2 << 20, CUGI_HOST_BUFFER_FLAGS_NONE, &error);
  CugiTestTransfer outcome = { 0 };
  CugiTestGate gate;
  const guint8 *data;

  g_assert_no_error (error);
  data = cugi_host_buffer_get_data (host, NULL, &error);
  g_assert_no_error (error);
  cugi_test_gate_close (&gate, stream);
  cugi_buffer_download_to_host_async (buffer, 0, host, 1 << 20, 1 << 20, stream, NULL,
                                      cugi_test_on_downloaded_to_host, &outcome);
  iterate_for (20);
  g_assert_cmpuint (outcome.calls, ==, 0);

  cugi_test_gate_open (&gate, stream);
  iterate_until (&outcome.calls, 1, 5000);
  g_assert_no_error (outcome.error);
  g_assert_true (outcome.in_host);
  g_assert_true (outcome.thread == g_thread_self ());
  g_assert_cmpmem (data + (1 << 20), 1 << 20, g_bytes_get_data (pattern, NULL), 1 << 20);

  /* Without a stream: on the default stream, still through the callback. */
  cugi_buffer_download_to_host_async (buffer, 0, host, 0, 1 << 20, NULL, NULL,
                                      cugi_test_on_downloaded_to_host, &outcome);
  iterate_until (&outcome.calls, 2, 5000);
  g_assert_no_error (outcome.error);
  g_assert_cmpmem (data, 1 << 20, g_bytes_get_data (pattern, NULL), 1 << 20);
  outcome_reset (&outcome);
}

static void
test_upload_pageable_in_order (void)
{
  const gsize size = 5 << 20;
  g_autoptr(GBytes) pattern = cugi_test_pattern_new (size, 2);
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  g_autoptr(GError) error = NULL;
  CugiBuffer *buffer = cugi_buffer_new (NULL, size, &error);
  gpointer weak_buffer = buffer;
  GBytes *bytes = cugi_test_pageable_copy (pattern);
  Snapshot after = { 0 };
  CugiTestTransfer outcome = { 0 };
  gint waits_before = g_atomic_int_get (&n_waits);
  gint driver_staged_before = g_atomic_int_get (&n_driver_staged);
  CugiTestGate gate;

  g_assert_no_error (error);
  g_object_add_weak_pointer (G_OBJECT (buffer), &weak_buffer);

  /* Behind busy work, the upload, then work that reads what it wrote; the
   * caller drops its bytes (poisoned once freed) and its buffer at once. */
  cugi_test_gate_close (&gate, stream);
  cugi_buffer_upload_bytes_async (buffer, 0, bytes, stream, NULL, cugi_test_on_uploaded, &outcome);
  enqueue_snapshot (&after, buffer, stream);
  g_bytes_unref (bytes);
  g_object_unref (buffer);
  g_assert_nonnull (weak_buffer);

  cugi_test_gate_open (&gate, stream);
  iterate_until (&outcome.calls, 1, 5000);
  g_assert_no_error (outcome.error);
  g_assert_true (outcome.uploaded);
  g_assert_true (outcome.thread == g_thread_self ());
  g_assert_cmpmem (g_bytes_get_data (after.seen, NULL), g_bytes_get_size (after.seen),
                   g_bytes_get_data (pattern, NULL), size);
  g_bytes_unref (after.seen);

  /* Five chunks of 1 MiB (the tuning main() sets), each behind a wait for
   * its staging; the driver had no pageable memory to stage. */
  g_assert_cmpint (g_atomic_int_get (&n_waits) - waits_before, ==, 5);
  g_assert_cmpint (g_atomic_int_get (&n_driver_staged), ==, driver_staged_before);
  iterate_until_finalized (&weak_buffer, 5000);
  outcome_reset (&outcome);
}

/* The calling thread only enqueues and leaves the staging to a worker: with
 * the workers held back, the call returns, and the stream, waiting for the
 * staged data, has not copied anything; once they run, the data arrives. */
static void
test_upload_leaves_staging (void)
{
  const gsize size = 8 << 20;
  g_autoptr(GBytes) pattern = cugi_test_pattern_new (size, 9);
  g_autoptr(GBytes) zeros = g_bytes_new_take (g_malloc0 (size), size);
  g_autoptr(CugiBuffer) buffer = cugi_test_buffer_new_with (zeros);
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  GThreadPool *workers = cugi_buffer_get_staging_threads ();
  gint max_threads = g_thread_pool_get_max_threads (workers);
  CugiTestTransfer outcome = { 0 };
  g_autoptr(GError) error = NULL;

  /* Such an upload first, whose staging the pool then holds: the call
   * takes it, instead of feeding the copy from a thread that would stage
   * it itself. */
  cugi_buffer_upload_bytes_async (buffer, 0, zeros, stream, NULL, cugi_test_on_uploaded, &outcome);
  iterate_until (&outcome.calls, 1, 5000);
  g_assert_no_error (outcome.error);
  outcome_reset (&outcome);

  /* Held back: no new worker starts, and those waiting for a job leave
   * (GLib lets them wait half a second first). */
  g_assert_true (g_thread_pool_set_max_threads (workers, 0, &error));
  g_assert_no_error (error);
  for (guint i = 0; i < 200 && g_thread_pool_get_num_threads (workers) > 0; i++)
    g_usleep (50 * 1000);
  g_assert_cmpuint (g_thread_pool_get_num_threads (workers), ==, 0);

  cugi_buffer_upload_bytes_async (buffer, 0, pattern, stream, NULL, cugi_test_on_uploaded, &outcome);
  iterate_for (20);
  g_assert_cmpuint (outcome.calls, ==, 0);
  g_assert_false (cugi_stream_query (stream, &error));
  g_assert_no_error (error);
  assert_device_holds (buffer, zeros);

  g_assert_true (g_thread_pool_set_max_threads (workers, max_threads, &error));
  g_assert_no_error (error);
  iterate_until (&outcome.calls, 1, 5000);
  g_assert_no_error (outcome.error);
  assert_device_holds (buffer, pattern);
  outcome_reset (&outcome);
}

static void
test_upload_at_offset (void)
{
  const gsize size = 4 << 20;
  g_autoptr(GBytes) zeros = g_bytes_new_take (g_malloc0 (size), size);
  g_autoptr(GBytes) pattern = cugi_test_pattern_new (size - 1000, 3);
  g_autoptr(CugiBuffer) buffer = cugi_test_buffer_new_with (zeros);
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  CugiTestTransfer outcome = { 0 };
  const guint8 *device = (const guint8 *) (guintptr) cugi_buffer_get_device_pointer (buffer);
  guint8 nothing[1000] = { 0 };

  cugi_buffer_upload_bytes_async (buffer, 1000, pattern, stream, NULL, cugi_test_on_uploaded, &outcome);
  iterate_until (&outcome.calls, 1, 5000);
  g_assert_no_error (outcome.error);
  g_assert_cmpmem (device, 1000, nothing, 1000);
  g_assert_cmpmem (device + 1000, size - 1000, g_bytes_get_data (pattern, NULL), size - 1000);
  outcome_reset (&outcome);
}

static void
test_upload_without_stream_waits (void)
{
  const gsize size = 3 << 20;
  g_autoptr(GBytes) pattern = cugi_test_pattern_new (size, 4);
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiBuffer) buffer = cugi_buffer_new (NULL, size, &error);
  GBytes *bytes = cugi_test_pageable_copy (pattern);
  __typeof__ (cugi_cuda.cuStreamWaitValue32) wait_value = cugi_cuda.cuStreamWaitValue32;
  Snapshot after = { 0 };
  CugiTestTransfer outcome = { 0 };
  gint waits_before = g_atomic_int_get (&n_waits);
  CugiTestGate gate;

  g_assert_no_error (error);
  /* Where streams cannot wait for memory, the data is staged by the caller:
   * slower, but as right and as well ordered. */
  cugi_cuda.cuStreamWaitValue32 = fake_not_supported;
  cugi_test_gate_close (&gate, stream);
  cugi_buffer_upload_bytes_async (buffer, 0, bytes, stream, NULL, cugi_test_on_uploaded, &outcome);
  enqueue_snapshot (&after, buffer, stream);
  g_bytes_unref (bytes);
  cugi_cuda.cuStreamWaitValue32 = wait_value;

  cugi_test_gate_open (&gate, stream);
  iterate_until (&outcome.calls, 1, 5000);
  g_assert_no_error (outcome.error);
  g_assert_true (outcome.uploaded);
  g_assert_cmpmem (g_bytes_get_data (after.seen, NULL), g_bytes_get_size (after.seen),
                   g_bytes_get_data (pattern, NULL), size);
  g_bytes_unref (after.seen);
  g_assert_cmpint (g_atomic_int_get (&n_waits), ==, waits_before);
  outcome_reset (&outcome);
}

static void
test_upload_pinned_bytes_kept (void)
{
  const gsize size = 1 << 20;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) pattern = cugi_test_pattern_new (size, 5);
  g_autoptr(CugiBuffer) buffer = cugi_buffer_new (NULL, size, &error);
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  CugiHostBuffer *host = cugi_host_buffer_new (NULL, size, CUGI_HOST_BUFFER_FLAGS_NONE, &error);
  gpointer weak_host = host;
  gint waits_before = g_atomic_int_get (&n_waits);
  CugiTestTransfer outcome = { 0 };
  GBytes *bytes;
  CugiTestGate gate;

  g_assert_no_error (error);
  g_assert_true (cugi_host_buffer_write (host, 0, g_bytes_get_data (pattern, NULL), size, &error));
  bytes = cugi_host_buffer_get_bytes (host, &error);
  g_assert_no_error (error);
  g_object_add_weak_pointer (G_OBJECT (host), &weak_host);
  g_object_unref (host);

  /* Pinned bytes go as they are, so the copy keeps them until it is done. */
  cugi_test_gate_close (&gate, stream);
  cugi_buffer_upload_bytes_async (buffer, 0, bytes, stream, NULL, cugi_test_on_uploaded, &outcome);
  g_bytes_unref (bytes);
  iterate_for (20);
  g_assert_nonnull (weak_host);
  g_assert_cmpint (g_atomic_int_get (&n_waits), ==, waits_before);

  cugi_test_gate_open (&gate, stream);
  iterate_until (&outcome.calls, 1, 5000);
  g_assert_no_error (outcome.error);
  assert_device_holds (buffer, pattern);
  iterate_until_finalized (&weak_host, 5000);
  outcome_reset (&outcome);
}

/* A memset captured into a graph runs only when the graph does: its buffer
 * lives as long as the graph (or an executable graph made from it), not as
 * long as the work enqueued on the stream, which a synchronization after the
 * capture ended has all done. */
static void
test_captured_memset_kept_by_graph (void)
{
  const gsize size = 4096;
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  g_autofree guint8 *expected = memset (g_malloc (size), 0x5a, size);
  CugiBuffer *buffer = cugi_buffer_new (NULL, size, &error);
  gpointer weak_buffer = buffer;
  const guint8 *device;
  CugiGraphExec *exec;
  CugiGraph *graph;

  g_assert_no_error (error);
  device = (const guint8 *) (guintptr) cugi_buffer_get_device_pointer (buffer);
  g_object_add_weak_pointer (G_OBJECT (buffer), &weak_buffer);

  g_assert_true (cugi_graph_capture_begin (stream, CUGI_CAPTURE_MODE_GLOBAL, &error));
  g_assert_true (cugi_buffer_memset_d8 (buffer, 0, 0x5a, size, stream, &error));
  g_assert_no_error (error);
  g_object_unref (buffer);
  graph = cugi_graph_capture_end (stream, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (cugi_graph_get_node_count (graph), ==, 1);

  /* Nothing ran: the stream is done, and the graph still needs the buffer. */
  g_assert_true (cugi_stream_synchronize (stream, &error));
  g_assert_nonnull (weak_buffer);
  g_assert_true (lies_in (device, size, FALSE));

  exec = cugi_graph_instantiate (graph, &error);
  g_assert_no_error (error);
  g_object_unref (graph);
  g_assert_nonnull (weak_buffer);

  g_assert_true (cugi_graph_exec_launch (exec, stream, &error));
  g_assert_true (cugi_stream_synchronize (stream, &error));
  g_assert_no_error (error);
  g_assert_cmpmem (device, size, expected, size);
  g_assert_nonnull (weak_buffer);

  /* The last holder gone, so is the buffer, and its memory. */
  g_object_unref (exec);
  iterate_until_finalized (&weak_buffer, 5000);
  g_assert_false (lies_in (device, size, FALSE));
}

static void
test_cancelled (void)
{
  const gsize size = 3 << 20;
  g_autoptr(GBytes) pattern = cugi_test_pattern_new (size, 6);
  g_autoptr(GBytes) zeros = g_bytes_new_take (g_malloc0 (size), size);
  g_autoptr(CugiBuffer) buffer = cugi_test_buffer_new_with (zeros);
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  CugiTestTransfer uploaded = { 0 };
  CugiTestTransfer downloaded = { 0 };
  CugiTestGate gate;

  cugi_test_gate_close (&gate, stream);
  cugi_buffer_upload_bytes_async (buffer, 0, pattern, stream, cancellable, cugi_test_on_uploaded, &uploaded);
  cugi_buffer_download_async (buffer, 0, size, stream, cancellable, cugi_test_on_downloaded, &downloaded);
  g_cancellable_cancel (cancellable);
  /* Both end while the stream is still held: the wait ends, not the work. */
  iterate_until (&uploaded.calls, 1, 5000);
  iterate_until (&downloaded.calls, 1, 5000);
  g_assert_error (uploaded.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_error (downloaded.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_null (downloaded.bytes);

  cugi_test_gate_open (&gate, stream);
  iterate_for (50);
  g_assert_cmpuint (uploaded.calls, ==, 1);
  g_assert_cmpuint (downloaded.calls, ==, 1);
  assert_device_holds (buffer, pattern);
  outcome_reset (&uploaded);
  outcome_reset (&downloaded);
}

static gpointer
unref_bytes (gpointer data)
{
  g_bytes_unref (data);
  return NULL;
}

static void
test_bytes_freed_on_another_thread (void)
{
  const gsize size = 6 << 20;
  g_autoptr(GBytes) pattern = cugi_test_pattern_new (size, 7);
  g_autoptr(CugiBuffer) buffer = cugi_test_buffer_new_with (pattern);
  CugiTestTransfer outcome = { 0 };
  gint pins;

  cugi_buffer_download_async (buffer, 0, size, NULL, NULL, cugi_test_on_downloaded, &outcome);
  iterate_until (&outcome.calls, 1, 5000);
  g_assert_no_error (outcome.error);
  g_thread_join (g_thread_new ("unref", unref_bytes, g_steal_pointer (&outcome.bytes)));
  iterate_for (20);

  /* Its block went back to the pool from there; the next download takes it. */
  pins = g_atomic_int_get (&n_pins);
  outcome_reset (&outcome);
  cugi_buffer_download_async (buffer, 0, size, NULL, NULL, cugi_test_on_downloaded, &outcome);
  iterate_until (&outcome.calls, 1, 5000);
  g_assert_no_error (outcome.error);
  g_assert_cmpmem (g_bytes_get_data (outcome.bytes, NULL), size, g_bytes_get_data (pattern, NULL), size);
  g_assert_cmpint (g_atomic_int_get (&n_pins), ==, pins);
  outcome_reset (&outcome);
}

/* Each upload from pageable memory issued from the callback of the one
 * before, as a program copying frame after frame does: the staging of a
 * copy is back in the pool when its callback runs (its task's marker drops
 * it, not a flush's marker that may come later), so the next copy takes
 * it instead of pinning more. */
static void
test_staging_back_before_callback (void)
{
  const gsize size = 16 << 20;
  g_autoptr(GBytes) pattern = cugi_test_pattern_new (size, 28);
  g_autoptr(GBytes) pageable = cugi_test_pageable_copy (pattern);
  g_autoptr(GBytes) zeros = g_bytes_new_take (g_malloc0 (size), size);
  g_autoptr(CugiBuffer) buffer = cugi_test_buffer_new_with (zeros);
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  CugiTestTransfer outcome = { 0 };
  gint pins = 0;

  for (guint i = 0; i < 6; i++)
    {
      cugi_buffer_upload_bytes_async (buffer, 0, pageable, stream, NULL, cugi_test_on_uploaded, &outcome);
      iterate_until (&outcome.calls, 1, 5000);
      g_assert_no_error (outcome.error);
      g_assert_true (outcome.uploaded);
      outcome_reset (&outcome);
      if (i == 0)
        pins = g_atomic_int_get (&n_pins);
    }
  g_assert_cmpint (g_atomic_int_get (&n_pins), ==, pins);
  assert_device_holds (buffer, pattern);
}

/* An asynchronous call pins no memory on its thread, often a main loop's
 * (pinning takes milliseconds: on the H200, an upload that pinned the 10
 * MiB of its pipeline spent 3 ms in the call): where the staging pool holds
 * none for a copy, the copy is fed from a thread, which pins it, while the
 * caller's stream waits in its place, and work enqueued after the copy
 * still sees its result. Uploads from pageable memory through the pipeline
 * and below it, and a download into staging memory. */
static void
test_async_calls_pin_nothing (void)
{
  const gsize upload_sizes[] = { 3 << 20, 512 << 10 };
  const gsize download_size = 2 << 20;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) pattern = cugi_test_pattern_new (3 << 20, 29);
  g_autoptr(GBytes) zeros = g_bytes_new_take (g_malloc0 (3 << 20), 3 << 20);
  g_autoptr(CugiBuffer) buffer = cugi_test_buffer_new_with (zeros);
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  CugiTestTransfer outcome = { 0 };
  gint pins, pins_here;

  /* The process's first fed copy pins a page of gates, which stays; this
   * one's stream takes its completion counter. */
  g_assert_true (cugi_free_staging_memory (&error));
  cugi_buffer_upload_bytes_async (buffer, 0, zeros, stream, NULL, cugi_test_on_uploaded, &outcome);
  iterate_until (&outcome.calls, 1, 5000);
  g_assert_no_error (outcome.error);
  outcome_reset (&outcome);
  cugi_test_settle (stream);

  /* Nothing held from here on. */
  g_assert_true (cugi_free_staging_memory (&error));
  g_assert_no_error (error);
  pins = g_atomic_int_get (&n_pins);
  pins_here = g_atomic_int_get (&n_pins_here);
  for (guint i = 0; i < G_N_ELEMENTS (upload_sizes); i++)
    {
      g_autoptr(GBytes) part = g_bytes_new_from_bytes (pattern, 0, upload_sizes[i]);
      g_autoptr(GBytes) pageable = cugi_test_pageable_copy (part);
      Snapshot after = { 0 };
      CugiTestGate gate;

      cugi_test_gate_close (&gate, stream);
      cugi_buffer_upload_bytes_async (buffer, 0, pageable, stream, NULL, cugi_test_on_uploaded, &outcome);
      enqueue_snapshot (&after, buffer, stream);
      cugi_test_gate_open (&gate, stream);
      iterate_until (&outcome.calls, 1, 5000);
      g_assert_no_error (outcome.error);
      g_assert_true (outcome.uploaded);
      cugi_test_synchronize (stream);
      g_assert_cmpmem (g_bytes_get_data (after.seen, NULL), upload_sizes[i],
                       g_bytes_get_data (part, NULL), upload_sizes[i]);
      g_bytes_unref (after.seen);
      outcome_reset (&outcome);
    }

  cugi_buffer_download_async (buffer, 0, download_size, stream, NULL, cugi_test_on_downloaded, &outcome);
  iterate_until (&outcome.calls, 1, 5000);
  g_assert_no_error (outcome.error);
  g_assert_cmpmem (g_bytes_get_data (outcome.bytes, NULL), g_bytes_get_size (outcome.bytes),
                   g_bytes_get_data (pattern, NULL), download_size);
  /* Still the pinned staging memory itself. */
  g_assert_true (lies_in (g_bytes_get_data (outcome.bytes, NULL), download_size, TRUE));
  outcome_reset (&outcome);

  g_assert_cmpint (g_atomic_int_get (&n_pins_here), ==, pins_here);
  g_assert_cmpint (g_atomic_int_get (&n_pins), >, pins);
}

/* ---- the steady state: the method of bench-completion's part 3 ---------- */

#define STEADY_CHUNK ((gsize) 4 << 20)
#define STEADY_COPIES 96
#define STEADY_WARM_UP 24
#define STEADY_IN_FLIGHT 4

typedef struct
{
  CugiBuffer *buffer;
  CugiStream *stream;
  GBytes     *pageable;
  GBytes     *pinned;      /* the last download */
  guint       n_issued;
  guint       n_done;
  gint        pins_after_warm_up;
  gint        pins_here_after_warm_up;
  gint        unpins_after_warm_up;
  gint64      last_tick;
  gint64      longest_gap;
  gint64      longest_call;
} Steady;

static gboolean
steady_tick (gpointer data)
{
  Steady *steady = data;
  gint64 now = g_get_monotonic_time ();

  if (steady->last_tick != 0 && steady->n_done >= STEADY_WARM_UP)
    steady->longest_gap = MAX (steady->longest_gap, now - steady->last_tick);
  steady->last_tick = now;
  return G_SOURCE_CONTINUE;
}

static void steady_done (GObject *source, GAsyncResult *result, gpointer data);

/* In turn: a download of the first chunk, an upload of the last download
 * (pinned) to the second, an upload of pageable memory to the third. */
static void
steady_issue (Steady *steady)
{
  gsize offset = (steady->n_issued % 3) * STEADY_CHUNK;
  gint64 start = g_get_monotonic_time ();

  if (steady->n_issued % 3 == 0 || steady->pinned == NULL)
    cugi_buffer_download_async (steady->buffer, 0, STEADY_CHUNK, steady->stream, NULL,
                                steady_done, steady);
  else
    cugi_buffer_upload_bytes_async (steady->buffer, offset,
                                    steady->n_issued % 3 == 1 ? steady->pinned : steady->pageable,
                                    steady->stream, NULL, steady_done, steady);
  if (steady->n_done >= STEADY_WARM_UP)
    steady->longest_call = MAX (steady->longest_call, g_get_monotonic_time () - start);
  steady->n_issued++;
}

static void
steady_done (GObject      *source,
             GAsyncResult *result,
             gpointer      data)
{
  Steady *steady = data;
  g_autoptr(GError) error = NULL;

  if (g_task_get_source_tag (G_TASK (result)) == cugi_buffer_download_async)
    {
      GBytes *bytes = cugi_buffer_download_finish (CUGI_BUFFER (source), result, &error);

      g_assert_no_error (error);
      g_clear_pointer (&steady->pinned, g_bytes_unref);
      steady->pinned = bytes;
    }
  else
    {
      g_assert_true (cugi_buffer_upload_bytes_finish (CUGI_BUFFER (source), result, &error));
      g_assert_no_error (error);
    }

  if (++steady->n_done == STEADY_WARM_UP)
    {
      steady->pins_after_warm_up = g_atomic_int_get (&n_pins);
      steady->pins_here_after_warm_up = g_atomic_int_get (&n_pins_here);
      steady->unpins_after_warm_up = g_atomic_int_get (&n_unpins);
    }
  if (steady->n_issued < STEADY_COPIES)
    steady_issue (steady);
}

static void
test_steady_state (void)
{
  g_autoptr(GBytes) pattern = cugi_test_pattern_new (3 * STEADY_CHUNK, 8);
  g_autoptr(GBytes) expected = NULL;
  Steady steady = { 0 };
  GSource *timer = g_timeout_source_new (1);
  gint driver_staged_before;
  const guint8 *device;
  GBytes *first_chunk;

  steady.buffer = cugi_test_buffer_new_with (pattern);
  driver_staged_before = g_atomic_int_get (&n_driver_staged);
  steady.stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  device = (const guint8 *) (guintptr) cugi_buffer_get_device_pointer (steady.buffer);
  first_chunk = g_bytes_new_from_bytes (pattern, 0, STEADY_CHUNK);
  steady.pageable = cugi_test_pageable_copy (first_chunk);
  g_bytes_unref (first_chunk);
  g_source_set_callback (timer, steady_tick, &steady, NULL);
  g_source_attach (timer, NULL);

  for (guint i = 0; i < STEADY_IN_FLIGHT; i++)
    steady_issue (&steady);
  iterate_until (&steady.n_done, STEADY_COPIES, 60000);
  g_source_destroy (timer);
  g_source_unref (timer);

  /* After the warm-up, no unpinning at all, and pinning only where the
   * copies in flight and the blocks on their way back to the pool happen to
   * need one more block than ever before, not once a copy; and never by
   * the calls, whose copies a feeder pins for then. */
  g_assert_cmpint (g_atomic_int_get (&n_unpins), ==, steady.unpins_after_warm_up);
  g_assert_cmpint (g_atomic_int_get (&n_pins) - steady.pins_after_warm_up, <=, STEADY_IN_FLIGHT);
  g_assert_cmpint (g_atomic_int_get (&n_pins_here), ==, steady.pins_here_after_warm_up);
  g_assert_cmpint (g_atomic_int_get (&n_driver_staged), ==, driver_staged_before);
  /* Every chunk of the buffer holds the first chunk of the pattern now. */
  for (guint i = 0; i < 3; i++)
    g_assert_cmpmem (device + i * STEADY_CHUNK, STEADY_CHUNK, g_bytes_get_data (pattern, NULL), STEADY_CHUNK);

  g_test_message ("%u copies of %zu MiB, %u in flight, after %u to warm up: longest *_async() call "
                  "%.3f ms, longest gap between ticks of a 1 ms timer %.3f ms",
                  STEADY_COPIES, STEADY_CHUNK >> 20, STEADY_IN_FLIGHT, STEADY_WARM_UP,
                  steady.longest_call / 1000.0, steady.longest_gap / 1000.0);

  g_clear_pointer (&steady.pinned, g_bytes_unref);
  g_bytes_unref (steady.pageable);
  g_object_unref (steady.buffer);
  g_object_unref (steady.stream);
}

/* What a binding borrows with cugi_host_buffer_new_staging() comes from the
 * pool that cugi's own transfers use: the block a download's bytes gave back
 * serves it without pinning, it is portable and mapped, and
 * cugi_free_staging_memory() unpins what the pool holds. */
static void
test_staging_borrowed (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) pattern = cugi_test_pattern_new (1 << 20, 9);
  g_autoptr(CugiBuffer) buffer = cugi_test_buffer_new_with (pattern);
  g_autoptr(CugiContext) context = cugi_test_default_context ();
  CugiHostMemoryPool *pool = cugi_staging_get_pool (context, &error);
  CugiTestTransfer outcome = { 0 };
  CugiHostBuffer *host;
  const guint8 *downloaded;
  gint pins, unpins;
  guint active;
  gint64 deadline;

  g_assert_no_error (error);
  active = cugi_host_memory_pool_get_active_blocks (pool);
  cugi_buffer_download_async (buffer, 0, 1 << 20, NULL, NULL, cugi_test_on_downloaded, &outcome);
  iterate_until (&outcome.calls, 1, 5000);
  g_assert_no_error (outcome.error);
  downloaded = g_bytes_get_data (outcome.bytes, NULL);
  outcome_reset (&outcome);
  /* The stream lets go of the bytes when its work is flushed, which may
   * come after the callback, and later still on a loaded machine: until
   * the download's block is back in the pool. */
  deadline = g_get_monotonic_time () + 10 * G_TIME_SPAN_SECOND;
  cugi_test_settle (NULL);
  while (cugi_host_memory_pool_get_active_blocks (pool) > active)
    {
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_usleep (1000);
      cugi_test_settle (NULL);
    }

  pins = g_atomic_int_get (&n_pins);
  host = cugi_host_buffer_new_staging (NULL, 1 << 20, &error);
  g_assert_no_error (error);
  g_assert_cmpint (g_atomic_int_get (&n_pins), ==, pins);
  g_assert_true (cugi_host_buffer_get_data (host, NULL, &error) == downloaded);
  g_assert_cmpuint (cugi_host_buffer_get_size (host), ==, 1 << 20);
  g_assert_cmpuint (cugi_host_buffer_get_flags (host), ==,
                    CUGI_HOST_BUFFER_FLAGS_PORTABLE | CUGI_HOST_BUFFER_FLAGS_MAPPED);
  g_object_unref (host);

  unpins = g_atomic_int_get (&n_unpins);
  g_assert_true (cugi_free_staging_memory (&error));
  g_assert_no_error (error);
  g_assert_cmpint (g_atomic_int_get (&n_unpins), >, unpins);

  /* Nothing is held any more: the next borrower pins. */
  pins = g_atomic_int_get (&n_pins);
  host = cugi_host_buffer_new_staging (NULL, 1 << 20, &error);
  g_assert_no_error (error);
  g_assert_cmpint (g_atomic_int_get (&n_pins), ==, pins + 1);
  g_assert_true (lies_in (cugi_host_buffer_get_data (host, NULL, &error), 1 << 20, TRUE));
  g_object_unref (host);
}

/* ---- the synchronous copies through the pipeline -------------------------- */

/* From 1 MiB up (the tuning main() sets), synchronous copies of pageable
 * memory go through the staging in chunks, the stream waiting for each;
 * sizes that split unevenly, and more chunks than slots, arrive whole. */
static void
test_sync_pipelined (void)
{
  const gsize sizes[] = { (1 << 20) + 1, (7 << 20) + 12345 };

  for (gsize i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      const gsize size = sizes[i];
      g_autoptr(GError) error = NULL;
      g_autoptr(GBytes) pattern = cugi_test_pattern_new (size, 20 + i);
      g_autoptr(GBytes) zeros = g_bytes_new_take (g_malloc0 (size + 10), size + 10);
      g_autoptr(CugiBuffer) buffer = cugi_test_buffer_new_with (zeros);
      const guint8 *device = (const guint8 *) (guintptr) cugi_buffer_get_device_pointer (buffer);
      g_autoptr(GBytes) back = NULL;
      gint driver_staged = g_atomic_int_get (&n_driver_staged);
      gint pageable_downloads = g_atomic_int_get (&n_pageable_downloads);
      gint waits = g_atomic_int_get (&n_waits);

      g_assert_true (cugi_buffer_upload_bytes (buffer, 10, pattern, &error));
      g_assert_no_error (error);
      g_assert_cmpmem (device + 10, size, g_bytes_get_data (pattern, NULL), size);
      g_assert_cmpint (g_atomic_int_get (&n_waits) - waits, >=, 4);

      waits = g_atomic_int_get (&n_waits);
      back = cugi_buffer_download (buffer, 10, size, &error);
      g_assert_no_error (error);
      cugi_test_assert_bytes_equal (back, pattern);
      g_assert_cmpint (g_atomic_int_get (&n_waits) - waits, >=, 4);

      g_assert_cmpint (g_atomic_int_get (&n_driver_staged), ==, driver_staged);
      g_assert_cmpint (g_atomic_int_get (&n_pageable_downloads), ==, pageable_downloads);
    }
}

/* Below 1 MiB, and from or to pinned memory, the driver copies straight. */
static void
test_sync_direct (void)
{
  const gsize small = (1 << 20) - 1;
  const gsize large = 3 << 20;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) pattern = cugi_test_pattern_new (large, 23);
  g_autoptr(GBytes) zeros = g_bytes_new_take (g_malloc0 (large), large);
  g_autoptr(CugiBuffer) buffer = cugi_test_buffer_new_with (zeros);
  g_autoptr(CugiHostBuffer) host = cugi_host_buffer_new (NULL, large, CUGI_HOST_BUFFER_FLAGS_NONE, &error);
  const guint8 *device = (const guint8 *) (guintptr) cugi_buffer_get_device_pointer (buffer);
  g_autofree guint8 *out = g_malloc (small);
  gint driver_staged = g_atomic_int_get (&n_driver_staged);
  gint pageable_downloads = g_atomic_int_get (&n_pageable_downloads);
  gint waits = g_atomic_int_get (&n_waits);
  guint8 *pinned;

  g_assert_no_error (error);
  g_assert_true (cugi_buffer_upload (buffer, 0, g_bytes_get_data (pattern, NULL), small, &error));
  g_assert_true (cugi_buffer_download_to_address (buffer, 0, (guintptr) out, small, &error));
  g_assert_no_error (error);
  g_assert_cmpmem (out, small, g_bytes_get_data (pattern, NULL), small);
  g_assert_cmpint (g_atomic_int_get (&n_driver_staged), ==, driver_staged + 1);
  g_assert_cmpint (g_atomic_int_get (&n_pageable_downloads), ==, pageable_downloads + 1);

  pinned = cugi_host_buffer_get_data (host, NULL, &error);
  g_assert_true (cugi_host_buffer_write (host, 0, g_bytes_get_data (pattern, NULL), large, &error));
  g_assert_true (cugi_buffer_upload (buffer, 0, pinned, large, &error));
  g_assert_no_error (error);
  g_assert_cmpmem (device, large, pinned, large);
  memset (pinned, 0, large);
  g_assert_true (cugi_buffer_download_to_address (buffer, 0, (guintptr) pinned, large, &error));
  g_assert_no_error (error);
  g_assert_cmpmem (pinned, large, g_bytes_get_data (pattern, NULL), large);
  g_assert_cmpint (g_atomic_int_get (&n_driver_staged), ==, driver_staged + 1);
  g_assert_cmpint (g_atomic_int_get (&n_waits), ==, waits);
}

/* The calling thread of a synchronous copy does its share: with the workers
 * held back, it does it all. */
static void
test_sync_without_workers (void)
{
  const gsize size = 6 << 20;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) pattern = cugi_test_pattern_new (size, 24);
  g_autoptr(GBytes) zeros = g_bytes_new_take (g_malloc0 (size), size);
  g_autoptr(CugiBuffer) buffer = cugi_test_buffer_new_with (zeros);
  g_autoptr(GBytes) back = NULL;
  GThreadPool *workers = cugi_buffer_get_staging_threads ();
  gint max_threads = g_thread_pool_get_max_threads (workers);

  g_assert_true (g_thread_pool_set_max_threads (workers, 0, &error));
  g_assert_true (cugi_buffer_upload_bytes (buffer, 0, pattern, &error));
  g_assert_no_error (error);
  assert_device_holds (buffer, pattern);
  back = cugi_buffer_download (buffer, 0, size, &error);
  g_assert_no_error (error);
  cugi_test_assert_bytes_equal (back, pattern);
  g_assert_true (g_thread_pool_set_max_threads (workers, max_threads, &error));
  g_assert_no_error (error);
}

/* A synchronous upload larger than one pipeline (64 chunks) runs as
 * several, one after another, through the same staging memory: with the
 * device behind the host, the next pipeline must not take the staging
 * (and zero its counters) while the stream still copies from it. */
static void
test_sync_pipelines_in_a_row (void)
{
  const gsize size = (64 + 9) << 20;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) pattern = cugi_test_pattern_new (size, 26);
  g_autoptr(GBytes) zeros = g_bytes_new_take (g_malloc0 (size), size);
  g_autoptr(CugiBuffer) buffer = cugi_test_buffer_new_with (zeros);
  g_autoptr(GBytes) back = NULL;

  g_atomic_int_set (&copy_delay_us, 2000);
  g_assert_true (cugi_buffer_upload_bytes (buffer, 0, pattern, &error));
  g_assert_no_error (error);
  g_atomic_int_set (&copy_delay_us, 0);
  assert_device_holds (buffer, pattern);

  g_atomic_int_set (&copy_delay_us, 2000);
  back = cugi_buffer_download (buffer, 0, size, &error);
  g_atomic_int_set (&copy_delay_us, 0);
  g_assert_no_error (error);
  cugi_test_assert_bytes_equal (back, pattern);
}

/* A driver call failing halfway through the enqueuing: the error comes
 * back, what was enqueued runs to its end without waiting for ever, and
 * the next copies work. */
static void
test_sync_enqueue_fails (void)
{
  const gsize size = 8 << 20;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) pattern = cugi_test_pattern_new (size, 25);
  g_autoptr(CugiBuffer) buffer = cugi_test_buffer_new_with (pattern);
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  g_autoptr(GBytes) back = NULL;
  g_autofree guint8 *out = g_malloc (size);
  CugiTestTransfer outcome = { 0 };

  for (gint failing = 0; failing < 7; failing += 3)
    {
      writes_until_failure = failing;
      cugi_test_assert_fails (cugi_buffer_upload_bytes (buffer, 0, pattern, &error),
                              &error, CUGI_ERROR_OUT_OF_MEMORY, NULL);
      writes_until_failure = failing;
      cugi_test_assert_fails (cugi_buffer_download_to_address (buffer, 0, (guintptr) out, size, &error),
                              &error, CUGI_ERROR_OUT_OF_MEMORY, NULL);
      /* The staging of the failed copies, which the default stream kept,
       * back in the pool: the asynchronous upload takes it on this thread
       * rather than being fed from a thread, so that the failing write is
       * its pipeline's. */
      cugi_test_settle (NULL);
      writes_until_failure = failing;
      cugi_buffer_upload_bytes_async (buffer, 0, pattern, stream, NULL, cugi_test_on_uploaded, &outcome);
      iterate_until (&outcome.calls, 1, 5000);
      g_assert_error (outcome.error, CUGI_ERROR, CUGI_ERROR_OUT_OF_MEMORY);
      outcome_reset (&outcome);
    }
  writes_until_failure = -1;

  cugi_test_synchronize (stream);
  back = cugi_buffer_download (buffer, 0, size, &error);
  g_assert_no_error (error);
  cugi_test_assert_bytes_equal (back, pattern);
}

/* ---- the address-taking entry points of bindings -------------------------- */

static guint64
address_of (gconstpointer data)
{
  return (guint64) (guintptr) data;
}

/* Each takes host memory by its address, pageable or pinned, and copies
 * what is there, where the array-taking entry point would. */
static void
test_address_copies (void)
{
  const gsize size = 3 << 20;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) pattern = cugi_test_pattern_new (size, 10);
  g_autoptr(GBytes) zeros = g_bytes_new_take (g_malloc0 (size), size);
  g_autoptr(CugiBuffer) buffer = cugi_test_buffer_new_with (zeros);
  g_autoptr(CugiHostBuffer) host = cugi_host_buffer_new (NULL, size, CUGI_HOST_BUFFER_FLAGS_NONE, &error);
  g_autofree guint8 *back = g_malloc0 (size);
  const guint8 *source = g_bytes_get_data (pattern, NULL);
  const guint8 *device = (const guint8 *) (guintptr) cugi_buffer_get_device_pointer (buffer);
  const guint8 *pinned;

  g_assert_no_error (error);
  g_assert_true (cugi_buffer_upload_from_address (buffer, 0, address_of (source), size, &error));
  g_assert_no_error (error);
  assert_device_holds (buffer, pattern);

  g_assert_true (cugi_buffer_download_to_address (buffer, 1000, address_of (back + 24), size - 1000, &error));
  g_assert_no_error (error);
  g_assert_cmpmem (back + 24, size - 1000, source + 1000, size - 1000);

  /* Into a host buffer, and from it by its address: pinned memory. */
  g_assert_true (cugi_host_buffer_write_from_address (host, 16, address_of (source), size - 16, &error));
  g_assert_no_error (error);
  pinned = cugi_host_buffer_get_data (host, NULL, &error);
  g_assert_cmpmem (pinned + 16, size - 16, source, size - 16);
  g_assert_true (cugi_buffer_upload_from_address (buffer, 0, address_of (pinned), size, &error));
  g_assert_no_error (error);
  g_assert_cmpmem (device + 16, size - 16, source, size - 16);

  /* Rows of 1000 bytes into rows 1024 apart; a box of 2 slices of 3 rows
   * of 100 bytes into slices of 4 rows. */
  g_assert_true (cugi_buffer_upload_2d_from_address (buffer, 0, 1024, address_of (source), 1000 * 5,
                                                     1000, 5, &error));
  g_assert_no_error (error);
  for (guint y = 0; y < 5; y++)
    g_assert_cmpmem (device + y * 1024, 1000, source + y * 1000, 1000);
  g_assert_true (cugi_buffer_upload_3d_from_address (buffer, 64, 128, 4, address_of (source), 100 * 3 * 2,
                                                     100, 3, 2, &error));
  g_assert_no_error (error);
  for (guint z = 0; z < 2; z++)
    for (guint y = 0; y < 3; y++)
      g_assert_cmpmem (device + 64 + (z * 4 + y) * 128, 100, source + (z * 3 + y) * 100, 100);

  /* Nothing to copy: any address, 0 included. */
  g_assert_true (cugi_buffer_upload_from_address (buffer, size, 0, 0, &error));
  g_assert_true (cugi_buffer_download_to_address (buffer, 0, 0, 0, &error));
  g_assert_true (cugi_host_buffer_write_from_address (host, 0, 0, 0, &error));
  g_assert_no_error (error);
}

/* Bad addresses and ranges are errors, which leave the buffer usable. */
static void
test_address_bad_input (void)
{
  const gsize size = 4096;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) pattern = cugi_test_pattern_new (size, 11);
  g_autoptr(CugiBuffer) buffer = cugi_test_buffer_new_with (pattern);
  g_autoptr(CugiHostBuffer) host = cugi_host_buffer_new (NULL, size, CUGI_HOST_BUFFER_FLAGS_NONE, &error);
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  g_autofree guint8 *memory = g_malloc0 (2 * size);
  guint64 address = address_of (memory);
  const guint64 wrapping[] = { 0, G_MAXUINT64 - 100 };
  CugiTestTransfer outcome = { 0 };

  g_assert_no_error (error);
  for (gsize i = 0; i < G_N_ELEMENTS (wrapping); i++)
    {
      cugi_test_assert_fails (cugi_buffer_upload_from_address (buffer, 0, wrapping[i], 200, &error),
                              &error, CUGI_ERROR_INVALID_ARGUMENT, "cannot hold");
      cugi_test_assert_fails (cugi_buffer_download_to_address (buffer, 0, wrapping[i], 200, &error),
                              &error, CUGI_ERROR_INVALID_ARGUMENT, "cannot hold");
      cugi_test_assert_fails (cugi_buffer_upload_2d_from_address (buffer, 0, 20, wrapping[i], 200, 10, 20,
                                                                  &error),
                              &error, CUGI_ERROR_INVALID_ARGUMENT, "cannot hold");
      cugi_test_assert_fails (cugi_buffer_upload_3d_from_address (buffer, 0, 20, 10, wrapping[i], 200, 10, 10, 2,
                                                                  &error),
                              &error, CUGI_ERROR_INVALID_ARGUMENT, "cannot hold");
      cugi_test_assert_fails (cugi_host_buffer_write_from_address (host, 0, wrapping[i], 200, &error),
                              &error, CUGI_ERROR_INVALID_ARGUMENT, "cannot hold");
      cugi_buffer_upload_from_address_async (buffer, 0, wrapping[i], 200, stream, NULL,
                                             cugi_test_on_uploaded_from_address, &outcome);
      iterate_until (&outcome.calls, 1, 5000);
      g_assert_error (outcome.error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT);
      outcome_reset (&outcome);
    }

  /* Good memory, out of the buffer's range or the host buffer's. */
  cugi_test_assert_fails (cugi_buffer_upload_from_address (buffer, 1, address, size, &error),
                          &error, CUGI_ERROR_INVALID_ARGUMENT, "Out of range");
  cugi_test_assert_fails (cugi_buffer_download_to_address (buffer, size + 1, address, 0, &error),
                          &error, CUGI_ERROR_INVALID_ARGUMENT, "Out of range");
  cugi_test_assert_fails (cugi_buffer_download_to_address (buffer, G_MAXSIZE, address, 2, &error),
                          &error, CUGI_ERROR_INVALID_ARGUMENT, "Out of range");
  cugi_test_assert_fails (cugi_buffer_upload_2d_from_address (buffer, 0, 1000, address, 1000 * 5, 1000, 5,
                                                              &error),
                          &error, CUGI_ERROR_INVALID_ARGUMENT, "Out of range");
  /* The size must be that of the region. */
  cugi_test_assert_fails (cugi_buffer_upload_2d_from_address (buffer, 0, 100, address, 999, 100, 10, &error),
                          &error, CUGI_ERROR_INVALID_ARGUMENT, "999 bytes");
  cugi_test_assert_fails (cugi_host_buffer_write_from_address (host, size, address, 1, &error),
                          &error, CUGI_ERROR_INVALID_ARGUMENT, "Out of range");
  cugi_buffer_upload_from_address_async (buffer, size, address, 1, stream, NULL,
                                         cugi_test_on_uploaded_from_address, &outcome);
  iterate_until (&outcome.calls, 1, 5000);
  g_assert_error (outcome.error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT);
  outcome_reset (&outcome);

  /* Nothing was written, and the buffer still works. */
  assert_device_holds (buffer, pattern);
  g_assert_true (cugi_buffer_download_to_address (buffer, 0, address, size, &error));
  g_assert_no_error (error);
  g_assert_cmpmem (memory, size, g_bytes_get_data (pattern, NULL), size);
}

/* The asynchronous upload by address goes the way of upload_bytes_async():
 * pageable memory staged off the calling thread, in its place on the
 * stream; pinned memory as it is. */
static void
test_address_async (void)
{
  const gsize size = 5 << 20;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) pattern = cugi_test_pattern_new (size, 12);
  g_autoptr(GBytes) zeros = g_bytes_new_take (g_malloc0 (size), size);
  g_autoptr(CugiBuffer) buffer = cugi_test_buffer_new_with (zeros);
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  g_autoptr(CugiHostBuffer) host = cugi_host_buffer_new (NULL, size, CUGI_HOST_BUFFER_FLAGS_NONE, &error);
  g_autofree guint8 *pageable = g_memdup2 (g_bytes_get_data (pattern, NULL), size);
  gint driver_staged_before = g_atomic_int_get (&n_driver_staged);
  gint waits_before = g_atomic_int_get (&n_waits);
  CugiTestTransfer outcome = { 0 };
  Snapshot after = { 0 };
  CugiTestGate gate;
  guint8 *pinned;

  g_assert_no_error (error);
  cugi_test_gate_close (&gate, stream);
  cugi_buffer_upload_from_address_async (buffer, 0, address_of (pageable), size, stream, NULL,
                                         cugi_test_on_uploaded_from_address, &outcome);
  enqueue_snapshot (&after, buffer, stream);
  iterate_for (20);
  g_assert_cmpuint (outcome.calls, ==, 0);
  cugi_test_gate_open (&gate, stream);
  iterate_until (&outcome.calls, 1, 5000);
  g_assert_no_error (outcome.error);
  g_assert_true (outcome.uploaded);
  g_assert_true (outcome.thread == g_thread_self ());
  g_assert_cmpmem (g_bytes_get_data (after.seen, NULL), g_bytes_get_size (after.seen),
                   g_bytes_get_data (pattern, NULL), size);
  g_bytes_unref (after.seen);
  g_assert_cmpint (g_atomic_int_get (&n_waits), >, waits_before);
  g_assert_cmpint (g_atomic_int_get (&n_driver_staged), ==, driver_staged_before);
  outcome_reset (&outcome);

  /* Pinned: straight to the driver, no staging and no waits. */
  pinned = cugi_host_buffer_get_data (host, NULL, &error);
  g_assert_no_error (error);
  memset (pinned, 0x77, size);
  waits_before = g_atomic_int_get (&n_waits);
  cugi_buffer_upload_from_address_async (buffer, 0, address_of (pinned), size, NULL, NULL,
                                         cugi_test_on_uploaded_from_address, &outcome);
  iterate_until (&outcome.calls, 1, 5000);
  g_assert_no_error (outcome.error);
  g_assert_cmpmem ((const guint8 *) (guintptr) cugi_buffer_get_device_pointer (buffer), size, pinned, size);
  g_assert_cmpint (g_atomic_int_get (&n_waits), ==, waits_before);
  outcome_reset (&outcome);
}

int
main (int argc, char **argv)
{
  /* The pipeline's tuning, read once: chunks of 1 MiB, 2 threads (so 4
   * slots), and copies from 1 MiB up through it. */
  g_setenv ("CUGI_STAGING_CHUNK_BYTES", "1048576", TRUE);
  g_setenv ("CUGI_STAGING_THREADS", "2", TRUE);
  g_setenv ("CUGI_STAGING_DIRECT_BYTES", "1048576", TRUE);
  cugi_test_init_stand_in (&argc, &argv);
  install_fake_memory ();
  test_thread = g_thread_self ();

  g_test_add_func ("/transfer-logic/download", test_download);
  g_test_add_func ("/transfer-logic/large-async-copies", test_large_async_copies);
  g_test_add_func ("/transfer-logic/free-while-fed", test_free_while_fed);
  g_test_add_func ("/transfer-logic/download-to-host", test_download_to_host);
  g_test_add_func ("/transfer-logic/upload-pageable-in-order", test_upload_pageable_in_order);
  g_test_add_func ("/transfer-logic/upload-leaves-staging", test_upload_leaves_staging);
  g_test_add_func ("/transfer-logic/upload-at-offset", test_upload_at_offset);
  g_test_add_func ("/transfer-logic/upload-without-stream-waits", test_upload_without_stream_waits);
  g_test_add_func ("/transfer-logic/upload-pinned-bytes-kept", test_upload_pinned_bytes_kept);
  g_test_add_func ("/transfer-logic/captured-memset-kept-by-graph", test_captured_memset_kept_by_graph);
  g_test_add_func ("/transfer-logic/cancelled", test_cancelled);
  g_test_add_func ("/transfer-logic/bytes-freed-on-another-thread", test_bytes_freed_on_another_thread);
  g_test_add_func ("/transfer-logic/staging-back-before-callback", test_staging_back_before_callback);
  g_test_add_func ("/transfer-logic/async-calls-pin-nothing", test_async_calls_pin_nothing);
  g_test_add_func ("/transfer-logic/steady-state", test_steady_state);
  g_test_add_func ("/transfer-logic/staging-borrowed", test_staging_borrowed);
  g_test_add_func ("/transfer-logic/sync-pipelined", test_sync_pipelined);
  g_test_add_func ("/transfer-logic/sync-direct", test_sync_direct);
  g_test_add_func ("/transfer-logic/sync-pipelines-in-a-row", test_sync_pipelines_in_a_row);
  g_test_add_func ("/transfer-logic/sync-without-workers", test_sync_without_workers);
  g_test_add_func ("/transfer-logic/sync-enqueue-fails", test_sync_enqueue_fails);
  g_test_add_func ("/transfer-logic/address-copies", test_address_copies);
  g_test_add_func ("/transfer-logic/address-bad-input", test_address_bad_input);
  g_test_add_func ("/transfer-logic/address-async", test_address_async);

  return g_test_run ();
}
