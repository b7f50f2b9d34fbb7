/* stand-in-libcuda.c: libcuda.so.1 for GStreamer's CUDA library and cugi
 * on the tests' stand-in driver, recording how work is ordered.
 *
 * GStreamer's CUDA library (libgstcuda) opens "libcuda.so.1" and takes each
 * entry point by its exported name; cugi takes its entry points through
 * cuGetProcAddress_v2. The stand-in driver (fake-cuda-streams, which
 * STAND_IN_LIBCUDA names, on top of fake-cuda-devices) exports
 * cuGetProcAddress_v2 alone. This library exports what libgstcuda 1.22 to
 * 1.26 takes: the entry points the stand-in has, through it; pitched
 * allocations and 2D copies, made here of the stand-in's (its device memory
 * is host memory); and the rest, in stand-in-libcuda-stubs.c, as
 * CUDA_ERROR_NOT_SUPPORTED. cugi's cuGetProcAddress_v2 is the stand-in's.
 *
 * Both libraries then share one driver, whose event records, stream waits,
 * stream synchronizations, kernel launches, host functions and event
 * synchronizations are recorded in order (from either library), for tests to read back (stand_in_gst_ops()).
 *
 * Names are bound with asm labels, so that cuda.h's own declarations of
 * them (other versions of the same entry points) do not get in the way.
 */
#include <dlfcn.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>

#define EXPORT __attribute__((visibility ("default")))
/* Defines the exported entry point @symbol as the C function @name. */
#define ENTRY_POINT(name, symbol, params) \
  EXPORT CUresult name params __asm__ (symbol); \
  EXPORT CUresult name params

typedef CUresult (*ProcAddressFunc) (const char *, void **, int, cuuint64_t,
                                     CUdriverProcAddressQueryResult *);

static pthread_once_t once = PTHREAD_ONCE_INIT;
static void *stand_in;
static ProcAddressFunc stand_in_proc_address;
static CUresult init_result = CUDA_ERROR_NOT_INITIALIZED;

/* Opens the stand-in and initializes it, which its cuGetProcAddress_v2
 * needs before anything. */
static void
load_stand_in (void)
{
  const char *path = getenv ("STAND_IN_LIBCUDA");
  CUresult (*init) (unsigned int);

  if (path == NULL || (stand_in = dlopen (path, RTLD_NOW | RTLD_LOCAL)) == NULL)
    {
      fprintf (stderr, "stand-in-libcuda: STAND_IN_LIBCUDA names no loadable driver (%s)\n",
               path != NULL ? dlerror () : "unset");
      return;
    }
  init = (CUresult (*) (unsigned int)) dlsym (stand_in, "cuInit");
  stand_in_proc_address = (ProcAddressFunc) dlsym (stand_in, "cuGetProcAddress_v2");
  if (init != NULL && stand_in_proc_address != NULL)
    init_result = init (0);
}

/* The stand-in's entry point @name, or NULL. */
static void *
stand_in_entry (const char *name)
{
  void *function = NULL;

  pthread_once (&once, load_stand_in);
  if (init_result != CUDA_SUCCESS ||
      stand_in_proc_address (name, &function, CUDA_VERSION, 0, NULL) != CUDA_SUCCESS)
    return NULL;
  return function;
}

/* Returns what the stand-in's @entry, a function of type @type, returns
 * for @args (CUDA_ERROR_NOT_SUPPORTED where it has none). */
#define FORWARD(type, entry, args) \
  do \
    { \
      __typeof__ (type) function_ = (type) stand_in_entry (entry); \
      return function_ != NULL ? function_ args : CUDA_ERROR_NOT_SUPPORTED; \
    } \
  while (0)

/* ---- the record ----------------------------------------------------------- */

typedef struct
{
  const char *what;   /* "record", "wait", "sync", "launch", "host", "event-sync" */
  uintptr_t   first;  /* the stream; for "record", the event */
  uintptr_t   second; /* the event; for "record", the stream */
} Op;

#define MAX_OPS 16384

static pthread_mutex_t ops_lock = PTHREAD_MUTEX_INITIALIZER;
static Op ops[MAX_OPS];
static size_t n_ops;

static void
note (const char *what,
      const void *first,
      const void *second)
{
  pthread_mutex_lock (&ops_lock);
  if (n_ops < MAX_OPS)
    ops[n_ops++] = (Op) { what, (uintptr_t) first, (uintptr_t) second };
  pthread_mutex_unlock (&ops_lock);
}

/* Writes the operations recorded since the last stand_in_gst_clear_ops(),
 * one a line ("record EVENT STREAM", "wait STREAM EVENT", "sync STREAM",
 * "launch STREAM", "host STREAM", "event-sync EVENT", handles in hexadecimal), NUL-terminated, to @out (of
 * @capacity bytes) and returns the length of the whole text. */
EXPORT size_t
stand_in_gst_ops (char  *out,
                  size_t capacity)
{
  size_t length = 0;

  pthread_mutex_lock (&ops_lock);
  for (size_t i = 0; i < n_ops; i++)
    {
      char line[96];
      int n = ops[i].second != 0 || strcmp (ops[i].what, "record") == 0 || strcmp (ops[i].what, "wait") == 0
                ? snprintf (line, sizeof line, "%s %#" PRIxPTR " %#" PRIxPTR "\n",
                            ops[i].what, ops[i].first, ops[i].second)
                : snprintf (line, sizeof line, "%s %#" PRIxPTR "\n", ops[i].what, ops[i].first);

      if (length + n < capacity)
        memcpy (out + length, line, n);
      length += n;
    }
  pthread_mutex_unlock (&ops_lock);
  if (capacity > 0)
    out[length < capacity ? length : capacity - 1] = '\0';
  return length;
}

EXPORT void
stand_in_gst_clear_ops (void)
{
  pthread_mutex_lock (&ops_lock);
  n_ops = 0;
  pthread_mutex_unlock (&ops_lock);
}

/* ---- recorded entry points (both libraries') ------------------------------ */

ENTRY_POINT (stand_in_event_record, "cuEventRecord", (CUevent event, CUstream stream))
{
  note ("record", event, stream);
  FORWARD (CUresult (*) (CUevent, CUstream), "cuEventRecord", (event, stream));
}

static CUresult
stand_in_stream_wait_event (CUstream     stream,
                            CUevent      event,
                            unsigned int flags)
{
  note ("wait", stream, event);
  FORWARD (CUresult (*) (CUstream, CUevent, unsigned int), "cuStreamWaitEvent", (stream, event, flags));
}

ENTRY_POINT (stand_in_stream_synchronize, "cuStreamSynchronize", (CUstream stream))
{
  note ("sync", stream, NULL);
  FORWARD (CUresult (*) (CUstream), "cuStreamSynchronize", (stream));
}

ENTRY_POINT (stand_in_launch_kernel, "cuLaunchKernel",
             (CUfunction function, unsigned int grid_x, unsigned int grid_y, unsigned int grid_z,
              unsigned int block_x, unsigned int block_y, unsigned int block_z,
              unsigned int shared_memory, CUstream stream, void **params, void **extra))
{
  note ("launch", stream, NULL);
  FORWARD (CUresult (*) (CUfunction, unsigned int, unsigned int, unsigned int, unsigned int,
                         unsigned int, unsigned int, unsigned int, CUstream, void **, void **),
           "cuLaunchKernel",
           (function, grid_x, grid_y, grid_z, block_x, block_y, block_z, shared_memory, stream,
            params, extra));
}

static CUresult
stand_in_launch_host_func (CUstream stream,
                           CUhostFn function,
                           void    *data)
{
  note ("host", stream, NULL);
  FORWARD (CUresult (*) (CUstream, CUhostFn, void *), "cuLaunchHostFunc", (stream, function, data));
}

/* ---- the stand-in's own, under libgstcuda's names ------------------------- */

ENTRY_POINT (stand_in_init, "cuInit", (unsigned int flags))
{
  (void) flags;
  pthread_once (&once, load_stand_in);
  return init_result;
}

ENTRY_POINT (stand_in_driver_get_version, "cuDriverGetVersion", (int *version))
{
  *version = CUDA_VERSION;
  return CUDA_SUCCESS;
}

ENTRY_POINT (stand_in_get_error_name, "cuGetErrorName", (CUresult result, const char **name))
{
  (void) result;
  *name = "CUDA_ERROR_OF_THE_STAND_IN";
  return CUDA_SUCCESS;
}

ENTRY_POINT (stand_in_get_error_string, "cuGetErrorString", (CUresult result, const char **text))
{
  (void) result;
  *text = "an error of the stand-in driver";
  return CUDA_SUCCESS;
}

/* libgstcuda 1.22 takes a device's handle for its ordinal, as a GPU's
 * driver makes them; the stand-in's are not (fake-cuda-devices.c). So
 * libgstcuda sees ordinals, and this translates. */
static CUdevice
device_base (void)
{
  static CUdevice base = -1;
  CUresult (*get) (CUdevice *, int) = (CUresult (*) (CUdevice *, int)) stand_in_entry ("cuDeviceGet");
  CUdevice first;

  if (base < 0 && get != NULL && get (&first, 0) == CUDA_SUCCESS)
    base = first;
  return base < 0 ? 0 : base;
}

ENTRY_POINT (stand_in_device_get, "cuDeviceGet", (CUdevice *device, int ordinal))
{
  CUresult (*get) (CUdevice *, int) = (CUresult (*) (CUdevice *, int)) stand_in_entry ("cuDeviceGet");
  CUresult result = get != NULL ? get (device, ordinal) : CUDA_ERROR_NOT_SUPPORTED;

  if (result == CUDA_SUCCESS)
    *device -= device_base ();
  return result;
}

ENTRY_POINT (stand_in_device_get_count, "cuDeviceGetCount", (int *count))
{
  FORWARD (CUresult (*) (int *), "cuDeviceGetCount", (count));
}

ENTRY_POINT (stand_in_device_get_name, "cuDeviceGetName", (char *name, int length, CUdevice device))
{
  FORWARD (CUresult (*) (char *, int, CUdevice), "cuDeviceGetName", (name, length, device + device_base ()));
}

ENTRY_POINT (stand_in_device_get_attribute, "cuDeviceGetAttribute",
             (int *value, CUdevice_attribute attribute, CUdevice device))
{
  FORWARD (CUresult (*) (int *, CUdevice_attribute, CUdevice), "cuDeviceGetAttribute",
           (value, attribute, device + device_base ()));
}

ENTRY_POINT (stand_in_device_can_access_peer, "cuDeviceCanAccessPeer",
             (int *can, CUdevice device, CUdevice peer))
{
  FORWARD (CUresult (*) (int *, CUdevice, CUdevice), "cuDeviceCanAccessPeer",
           (can, device + device_base (), peer + device_base ()));
}

/* The stand-in's cuCtxCreate is CUDA 13's, with creation parameters. */
ENTRY_POINT (stand_in_ctx_create, "cuCtxCreate_v2", (CUcontext *context, unsigned int flags, CUdevice device))
{
  FORWARD (CUresult (*) (CUcontext *, void *, unsigned int, CUdevice), "cuCtxCreate",
           (context, NULL, flags, device + device_base ()));
}

ENTRY_POINT (stand_in_ctx_destroy, "cuCtxDestroy_v2", (CUcontext context))
{
  FORWARD (CUresult (*) (CUcontext), "cuCtxDestroy", (context));
}

ENTRY_POINT (stand_in_ctx_push, "cuCtxPushCurrent_v2", (CUcontext context))
{
  FORWARD (CUresult (*) (CUcontext), "cuCtxPushCurrent", (context));
}

/* libgstcuda pops without asking what, as the driver allows. */
ENTRY_POINT (stand_in_ctx_pop, "cuCtxPopCurrent_v2", (CUcontext *context))
{
  CUcontext popped;

  FORWARD (CUresult (*) (CUcontext *), "cuCtxPopCurrent", (context != NULL ? context : &popped));
}

ENTRY_POINT (stand_in_ctx_synchronize, "cuCtxSynchronize", (void))
{
  FORWARD (CUresult (*) (void), "cuCtxSynchronize", ());
}

ENTRY_POINT (stand_in_ctx_enable_peer_access, "cuCtxEnablePeerAccess", (CUcontext peer, unsigned int flags))
{
  FORWARD (CUresult (*) (CUcontext, unsigned int), "cuCtxEnablePeerAccess", (peer, flags));
}

ENTRY_POINT (stand_in_ctx_disable_peer_access, "cuCtxDisablePeerAccess", (CUcontext peer))
{
  FORWARD (CUresult (*) (CUcontext), "cuCtxDisablePeerAccess", (peer));
}

ENTRY_POINT (stand_in_ctx_get_limit, "cuCtxGetLimit", (size_t *value, CUlimit limit))
{
  FORWARD (CUresult (*) (size_t *, CUlimit), "cuCtxGetLimit", (value, limit));
}

ENTRY_POINT (stand_in_ctx_set_limit, "cuCtxSetLimit", (CUlimit limit, size_t value))
{
  FORWARD (CUresult (*) (CUlimit, size_t), "cuCtxSetLimit", (limit, value));
}

ENTRY_POINT (stand_in_stream_create, "cuStreamCreate", (CUstream *stream, unsigned int flags))
{
  FORWARD (CUresult (*) (CUstream *, unsigned int, int), "cuStreamCreateWithPriority", (stream, flags, 0));
}

ENTRY_POINT (stand_in_stream_destroy, "cuStreamDestroy", (CUstream stream))
{
  FORWARD (CUresult (*) (CUstream), "cuStreamDestroy", (stream));
}

ENTRY_POINT (stand_in_stream_destroy_v2, "cuStreamDestroy_v2", (CUstream stream))
{
  FORWARD (CUresult (*) (CUstream), "cuStreamDestroy", (stream));
}

ENTRY_POINT (stand_in_event_create, "cuEventCreate", (CUevent *event, unsigned int flags))
{
  FORWARD (CUresult (*) (CUevent *, unsigned int), "cuEventCreate", (event, flags));
}

ENTRY_POINT (stand_in_event_destroy, "cuEventDestroy_v2", (CUevent event))
{
  FORWARD (CUresult (*) (CUevent), "cuEventDestroy", (event));
}

ENTRY_POINT (stand_in_event_synchronize, "cuEventSynchronize", (CUevent event))
{
  note ("event-sync", event, NULL);
  FORWARD (CUresult (*) (CUevent), "cuEventSynchronize", (event));
}

ENTRY_POINT (stand_in_mem_alloc, "cuMemAlloc_v2", (CUdeviceptr *address, size_t size))
{
  FORWARD (CUresult (*) (CUdeviceptr *, size_t), "cuMemAlloc", (address, size));
}

/* Rows padded to 512 bytes, as a GPU's pitch often is. */
ENTRY_POINT (stand_in_mem_alloc_pitch, "cuMemAllocPitch_v2",
             (CUdeviceptr *address, size_t *pitch, size_t width, size_t height, unsigned int element_size))
{
  (void) element_size;
  *pitch = (width + 511) & ~(size_t) 511;
  FORWARD (CUresult (*) (CUdeviceptr *, size_t), "cuMemAlloc", (address, *pitch * height));
}

ENTRY_POINT (stand_in_mem_free, "cuMemFree_v2", (CUdeviceptr address))
{
  FORWARD (CUresult (*) (CUdeviceptr), "cuMemFree", (address));
}

ENTRY_POINT (stand_in_mem_alloc_host, "cuMemAllocHost_v2", (void **address, size_t size))
{
  FORWARD (CUresult (*) (void **, size_t, unsigned int), "cuMemHostAlloc", (address, size, 0));
}

ENTRY_POINT (stand_in_mem_free_host, "cuMemFreeHost", (void *address))
{
  FORWARD (CUresult (*) (void *), "cuMemFreeHost", (address));
}

/* Device memory is host memory: a 2D copy is a memcpy a row. */
static CUresult
copy_2d (const CUDA_MEMCPY2D *copy)
{
  const unsigned char *source = copy->srcMemoryType == CU_MEMORYTYPE_HOST
                                  ? copy->srcHost : (const void *) (uintptr_t) copy->srcDevice;
  unsigned char *target = copy->dstMemoryType == CU_MEMORYTYPE_HOST
                            ? copy->dstHost : (void *) (uintptr_t) copy->dstDevice;

  if (copy->srcMemoryType == CU_MEMORYTYPE_ARRAY || copy->dstMemoryType == CU_MEMORYTYPE_ARRAY)
    return CUDA_ERROR_NOT_SUPPORTED;
  source += copy->srcY * copy->srcPitch + copy->srcXInBytes;
  target += copy->dstY * copy->dstPitch + copy->dstXInBytes;
  for (size_t row = 0; row < copy->Height; row++)
    memcpy (target + row * copy->dstPitch, source + row * copy->srcPitch, copy->WidthInBytes);
  return CUDA_SUCCESS;
}

ENTRY_POINT (stand_in_memcpy_2d, "cuMemcpy2D_v2", (const CUDA_MEMCPY2D *copy))
{
  return copy_2d (copy);
}

/* In stream order: once what came before on @stream is done. */
ENTRY_POINT (stand_in_memcpy_2d_async, "cuMemcpy2DAsync_v2", (const CUDA_MEMCPY2D *copy, CUstream stream))
{
  CUresult (*synchronize) (CUstream) = (CUresult (*) (CUstream)) stand_in_entry ("cuStreamSynchronize");
  CUresult result = synchronize != NULL ? synchronize (stream) : CUDA_ERROR_NOT_SUPPORTED;

  return result == CUDA_SUCCESS ? copy_2d (copy) : result;
}

ENTRY_POINT (stand_in_memcpy_dtod, "cuMemcpyDtoD_v2", (CUdeviceptr target, CUdeviceptr source, size_t size))
{
  memcpy ((void *) (uintptr_t) target, (const void *) (uintptr_t) source, size);
  return CUDA_SUCCESS;
}

ENTRY_POINT (stand_in_memcpy_htod, "cuMemcpyHtoD_v2", (CUdeviceptr target, const void *source, size_t size))
{
  FORWARD (CUresult (*) (CUdeviceptr, const void *, size_t), "cuMemcpyHtoD", (target, source, size));
}

ENTRY_POINT (stand_in_memcpy_dtoh, "cuMemcpyDtoH_v2", (void *target, CUdeviceptr source, size_t size))
{
  FORWARD (CUresult (*) (void *, CUdeviceptr, size_t), "cuMemcpyDtoH", (target, source, size));
}

ENTRY_POINT (stand_in_memcpy_htod_async, "cuMemcpyHtoDAsync_v2",
             (CUdeviceptr target, const void *source, size_t size, CUstream stream))
{
  FORWARD (CUresult (*) (CUdeviceptr, const void *, size_t, CUstream), "cuMemcpyHtoDAsync",
           (target, source, size, stream));
}

ENTRY_POINT (stand_in_memcpy_dtoh_async, "cuMemcpyDtoHAsync_v2",
             (void *target, CUdeviceptr source, size_t size, CUstream stream))
{
  FORWARD (CUresult (*) (void *, CUdeviceptr, size_t, CUstream), "cuMemcpyDtoHAsync",
           (target, source, size, stream));
}

ENTRY_POINT (stand_in_memcpy_dtod_async, "cuMemcpyDtoDAsync_v2",
             (CUdeviceptr target, CUdeviceptr source, size_t size, CUstream stream))
{
  FORWARD (CUresult (*) (CUdeviceptr, CUdeviceptr, size_t, CUstream), "cuMemcpyDtoDAsync",
           (target, source, size, stream));
}

ENTRY_POINT (stand_in_module_load_data, "cuModuleLoadData", (CUmodule *module, const void *image))
{
  FORWARD (CUresult (*) (CUmodule *, const void *, unsigned int, CUjit_option *, void **),
           "cuModuleLoadDataEx", (module, image, 0, NULL, NULL));
}

ENTRY_POINT (stand_in_module_unload, "cuModuleUnload", (CUmodule module))
{
  FORWARD (CUresult (*) (CUmodule), "cuModuleUnload", (module));
}

ENTRY_POINT (stand_in_module_get_function, "cuModuleGetFunction",
             (CUfunction *function, CUmodule module, const char *name))
{
  FORWARD (CUresult (*) (CUfunction *, CUmodule, const char *), "cuModuleGetFunction",
           (function, module, name));
}

/* cugi's way in: the stand-in's entry points, those above recorded, and
 * pitched allocations, which the stand-in lacks. */
ENTRY_POINT (stand_in_get_proc_address, "cuGetProcAddress_v2",
             (const char *symbol, void **function, int version, cuuint64_t flags,
              CUdriverProcAddressQueryResult *status))
{
  static const struct
  {
    const char *name;
    void       *function;
  } served[] = {
    { "cuEventRecord", (void *) stand_in_event_record },
    { "cuStreamWaitEvent", (void *) stand_in_stream_wait_event },
    { "cuStreamSynchronize", (void *) stand_in_stream_synchronize },
    { "cuLaunchKernel", (void *) stand_in_launch_kernel },
    { "cuLaunchHostFunc", (void *) stand_in_launch_host_func },
    { "cuEventSynchronize", (void *) stand_in_event_synchronize },
    { "cuMemAllocPitch", (void *) stand_in_mem_alloc_pitch },
  };

  pthread_once (&once, load_stand_in);
  if (stand_in_proc_address == NULL)
    return CUDA_ERROR_NOT_INITIALIZED;
  for (size_t i = 0; i < sizeof served / sizeof served[0]; i++)
    if (strcmp (symbol, served[i].name) == 0)
      {
        *function = served[i].function;
        if (status != NULL)
          *status = CU_GET_PROC_ADDRESS_SUCCESS;
        return CUDA_SUCCESS;
      }
  return stand_in_proc_address (symbol, function, version, flags, status);
}
