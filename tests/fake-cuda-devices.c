/* fake-cuda-devices.c: a stand-in libcuda with devices and contexts, so that
 * the device and context tests, and cugi-info, also run without a GPU.
 *
 * It models what cugi's device and context code relies on: device queries,
 * primary contexts with a retain count, created contexts, a per-thread
 * context stack, limits, cache configuration and peer access. Device handles
 * are ordinal + 100, so that code mixing the two up fails. Everything else
 * answers CUDA_ERROR_NOT_SUPPORTED. FAKE_CUDA_DEVICE_COUNT sets the number of
 * devices (2 unless set). Green contexts are contexts with a share of the
 * 132 SMs, split off in multiples of 8 as on Hopper; their CUgreenCtx and
 * converted CUcontext are the same pointer. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>

#define EXPORT __attribute__((visibility ("default")))
#define MAX_CONTEXTS 256
#define MAX_DEVICES 8
#define MAX_STACK 64
#define MAX_PEERS 8
#define HANDLE_BASE 100
#define SM_COUNT 132
#define SM_GRANULARITY 8
#define MAX_DESCRIPTIONS 256

typedef struct
{
  CUdevice     device;
  int          primary;
  int          destroyed;  /* created: cuCtxDestroy'd; never freed, so stale handles are caught */
  unsigned int flags;
  size_t       limits[CU_LIMIT_PERSISTING_L2_CACHE_SIZE + 1];
  CUfunc_cache cache_config;
  CUcontext    peers[MAX_PEERS];
  unsigned int sm_count;   /* a green context's share, else SM_COUNT */
  int          green;
} FakeContext;

typedef struct
{
  FakeContext *primary;
  int          retains;
} FakeDevice;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static FakeContext *contexts[MAX_CONTEXTS];
static int n_contexts;
static FakeDevice devices[MAX_DEVICES];
static __thread CUcontext stack[MAX_STACK];
static __thread int depth;

static const size_t default_limits[] = { 1024, 1 << 20, 8 << 20, 2, 2048, 32, 0 };

static int
device_count (void)
{
  const char *value = getenv ("FAKE_CUDA_DEVICE_COUNT");
  int count = value != NULL ? atoi (value) : 2;

  return count < 0 ? 0 : count > MAX_DEVICES ? MAX_DEVICES : count;
}

static int
ordinal_of (CUdevice device)
{
  int ordinal = device - HANDLE_BASE;

  return ordinal >= 0 && ordinal < device_count () ? ordinal : -1;
}

static FakeContext *
context_new (CUdevice device, int primary, unsigned int flags)
{
  FakeContext *context = calloc (1, sizeof *context);

  context->device = device;
  context->primary = primary;
  context->flags = flags;
  context->sm_count = SM_COUNT;
  memcpy (context->limits, default_limits, sizeof default_limits);
  pthread_mutex_lock (&lock);
  contexts[n_contexts++] = context;
  pthread_mutex_unlock (&lock);
  return context;
}

/* The state of a context handle: CUDA_SUCCESS when usable. */
static CUresult
check_context (CUcontext handle)
{
  FakeContext *context = (FakeContext *) handle;
  CUresult result = CUDA_ERROR_INVALID_CONTEXT;

  pthread_mutex_lock (&lock);
  for (int i = 0; i < n_contexts; i++)
    if (contexts[i] == context)
      {
        if (context->destroyed)
          result = CUDA_ERROR_CONTEXT_IS_DESTROYED;
        else if (context->primary && devices[ordinal_of (context->device)].retains == 0)
          result = CUDA_ERROR_INVALID_CONTEXT;
        else
          result = CUDA_SUCCESS;
      }
  pthread_mutex_unlock (&lock);
  return result;
}

static CUresult
current (FakeContext **context)
{
  CUresult result;

  if (depth == 0)
    return CUDA_ERROR_INVALID_CONTEXT;
  result = check_context (stack[depth - 1]);
  *context = (FakeContext *) stack[depth - 1];
  return result;
}

static CUresult
fake_cuDeviceGetCount (int *count)
{
  *count = device_count ();
  return CUDA_SUCCESS;
}

static CUresult
fake_cuDeviceGet (CUdevice *device, int ordinal)
{
  if (ordinal < 0 || ordinal >= device_count ())
    return CUDA_ERROR_INVALID_DEVICE;
  *device = HANDLE_BASE + ordinal;
  return CUDA_SUCCESS;
}

static CUresult
fake_cuDeviceGetName (char *name, int len, CUdevice device)
{
  if (ordinal_of (device) < 0)
    return CUDA_ERROR_INVALID_DEVICE;
  snprintf (name, len, "Fake \"GPU\" %d", ordinal_of (device));
  return CUDA_SUCCESS;
}

static CUresult
fake_cuDeviceGetUuid (CUuuid *uuid, CUdevice device)
{
  if (ordinal_of (device) < 0)
    return CUDA_ERROR_INVALID_DEVICE;
  for (int i = 0; i < 16; i++)
    uuid->bytes[i] = (char) (0xa0 + i + 16 * ordinal_of (device));
  return CUDA_SUCCESS;
}

static CUresult
fake_cuDeviceGetPCIBusId (char *bus_id, int len, CUdevice device)
{
  if (ordinal_of (device) < 0)
    return CUDA_ERROR_INVALID_DEVICE;
  snprintf (bus_id, len, "0000:%02X:00.0", 0x1b + ordinal_of (device));
  return CUDA_SUCCESS;
}

static CUresult
fake_cuDeviceTotalMem (size_t *bytes, CUdevice device)
{
  if (ordinal_of (device) < 0)
    return CUDA_ERROR_INVALID_DEVICE;
  *bytes = (size_t) 80 << 30;
  return CUDA_SUCCESS;
}

static CUresult
fake_cuDeviceGetAttribute (int *value, CUdevice_attribute attribute, CUdevice device)
{
  if (ordinal_of (device) < 0)
    return CUDA_ERROR_INVALID_DEVICE;
  switch (attribute)
    {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *value = 9; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *value = 0; break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *value = 132; break;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE: *value = 32; break;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *value = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X: *value = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: *value = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: *value = 64; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: *value = 2147483647; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y: *value = 65535; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: *value = 65535; break;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: *value = 2048; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: *value = 48 << 10; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: *value = 227 << 10; break;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK: *value = 65536; break;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: *value = 50 << 20; break;
    case CU_DEVICE_ATTRIBUTE_CLOCK_RATE: *value = 1980000; break;
    case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE: *value = 2619000; break;
    case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH: *value = 5120; break;
    case CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT: *value = 3; break;
    case CU_DEVICE_ATTRIBUTE_ECC_ENABLED: *value = 1; break;
    case CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY: *value = 1; break;
    case CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS: *value = 1; break;
    default:
      if (attribute <= 0 || attribute >= CU_DEVICE_ATTRIBUTE_MAX)
        return CUDA_ERROR_INVALID_VALUE;
      *value = 0;
    }
  return CUDA_SUCCESS;
}

static CUresult
fake_cuDeviceCanAccessPeer (int *can_access, CUdevice device, CUdevice peer)
{
  if (ordinal_of (device) < 0 || ordinal_of (peer) < 0)
    return CUDA_ERROR_INVALID_DEVICE;
  *can_access = device != peer;
  return CUDA_SUCCESS;
}

static CUresult
fake_cuDevicePrimaryCtxRetain (CUcontext *handle, CUdevice device)
{
  FakeDevice *fake;

  if (ordinal_of (device) < 0)
    return CUDA_ERROR_INVALID_DEVICE;
  fake = &devices[ordinal_of (device)];
  if (fake->primary == NULL)
    fake->primary = context_new (device, 1, 0);
  pthread_mutex_lock (&lock);
  fake->retains++;
  pthread_mutex_unlock (&lock);
  *handle = (CUcontext) fake->primary;
  return CUDA_SUCCESS;
}

static CUresult
fake_cuDevicePrimaryCtxRelease (CUdevice device)
{
  FakeDevice *fake;
  CUresult result = CUDA_SUCCESS;

  if (ordinal_of (device) < 0)
    return CUDA_ERROR_INVALID_DEVICE;
  fake = &devices[ordinal_of (device)];
  pthread_mutex_lock (&lock);
  if (fake->retains == 0)
    result = CUDA_ERROR_INVALID_CONTEXT;
  else
    fake->retains--;
  pthread_mutex_unlock (&lock);
  return result;
}

static CUresult
fake_cuDevicePrimaryCtxGetState (CUdevice device, unsigned int *flags, int *active)
{
  FakeDevice *fake;

  if (ordinal_of (device) < 0)
    return CUDA_ERROR_INVALID_DEVICE;
  fake = &devices[ordinal_of (device)];
  pthread_mutex_lock (&lock);
  *active = fake->primary != NULL && fake->retains > 0;
  pthread_mutex_unlock (&lock);
  *flags = 0;
  return CUDA_SUCCESS;
}

static CUresult
fake_cuDevicePrimaryCtxReset (CUdevice device)
{
  FakeContext *primary;

  if (ordinal_of (device) < 0)
    return CUDA_ERROR_INVALID_DEVICE;
  primary = devices[ordinal_of (device)].primary;
  if (primary != NULL)
    {
      memcpy (primary->limits, default_limits, sizeof default_limits);
      primary->cache_config = CU_FUNC_CACHE_PREFER_NONE;
      memset (primary->peers, 0, sizeof primary->peers);
    }
  return CUDA_SUCCESS;
}

static CUresult
fake_cuCtxCreate (CUcontext *handle, CUctxCreateParams *params, unsigned int flags, CUdevice device)
{
  unsigned int sched = flags & CU_CTX_SCHED_MASK;

  if (ordinal_of (device) < 0)
    return CUDA_ERROR_INVALID_DEVICE;
  if ((sched & (sched - 1)) != 0 || (flags & ~0xffu) != 0 || depth == MAX_STACK)
    return CUDA_ERROR_INVALID_VALUE;
  *handle = (CUcontext) context_new (device, 0, flags | CU_CTX_MAP_HOST);
  stack[depth++] = *handle;
  return CUDA_SUCCESS;
}

static CUresult
fake_cuCtxDestroy (CUcontext handle)
{
  FakeContext *context = (FakeContext *) handle;
  CUresult result = check_context (handle);

  if (result != CUDA_SUCCESS)
    return result;
  /* Green contexts go with cuGreenCtxDestroy. */
  if (context->primary || context->green)
    return CUDA_ERROR_INVALID_CONTEXT;
  context->destroyed = 1;
  /* Current on this thread: popped, as the driver does. */
  for (int i = 0; i < depth; i++)
    if (stack[i] == handle)
      {
        memmove (&stack[i], &stack[i + 1], (depth - i - 1) * sizeof stack[0]);
        depth--;
        break;
      }
  return CUDA_SUCCESS;
}

static CUresult
fake_cuCtxPushCurrent (CUcontext handle)
{
  CUresult result = check_context (handle);

  if (result != CUDA_SUCCESS)
    return result;
  if (depth == MAX_STACK)
    return CUDA_ERROR_OUT_OF_MEMORY;
  stack[depth++] = handle;
  return CUDA_SUCCESS;
}

static CUresult
fake_cuCtxPopCurrent (CUcontext *handle)
{
  if (depth == 0)
    return CUDA_ERROR_INVALID_CONTEXT;
  *handle = stack[--depth];
  return CUDA_SUCCESS;
}

static CUresult
fake_cuCtxGetCurrent (CUcontext *handle)
{
  *handle = depth > 0 ? stack[depth - 1] : NULL;
  return CUDA_SUCCESS;
}

static CUresult
fake_cuCtxGetDevice (CUdevice *device)
{
  FakeContext *context;
  CUresult result = current (&context);

  if (result == CUDA_SUCCESS)
    *device = context->device;
  return result;
}

static CUresult
fake_cuCtxGetFlags (unsigned int *flags)
{
  FakeContext *context;
  CUresult result = current (&context);

  if (result == CUDA_SUCCESS)
    *flags = context->flags;
  return result;
}

static CUresult
fake_cuCtxGetApiVersion (CUcontext handle, unsigned int *version)
{
  CUresult result = check_context (handle);

  if (result == CUDA_SUCCESS)
    *version = 3020;
  return result;
}

static CUresult
fake_cuCtxSynchronize (void)
{
  FakeContext *context;

  return current (&context);
}

static CUresult
fake_cuCtxGetLimit (size_t *value, CUlimit limit)
{
  FakeContext *context;
  CUresult result = current (&context);

  if (result != CUDA_SUCCESS)
    return result;
  if (limit > CU_LIMIT_PERSISTING_L2_CACHE_SIZE)
    return CUDA_ERROR_UNSUPPORTED_LIMIT;
  *value = context->limits[limit];
  return CUDA_SUCCESS;
}

static CUresult
fake_cuCtxSetLimit (CUlimit limit, size_t value)
{
  FakeContext *context;
  CUresult result = current (&context);

  if (result != CUDA_SUCCESS)
    return result;
  if (limit > CU_LIMIT_PERSISTING_L2_CACHE_SIZE)
    return CUDA_ERROR_UNSUPPORTED_LIMIT;
  /* The driver rounds the stack size up. */
  context->limits[limit] = limit == CU_LIMIT_STACK_SIZE ? (value + 15) & ~(size_t) 15 : value;
  return CUDA_SUCCESS;
}

static CUresult
fake_cuCtxGetCacheConfig (CUfunc_cache *config)
{
  FakeContext *context;
  CUresult result = current (&context);

  if (result == CUDA_SUCCESS)
    *config = context->cache_config;
  return result;
}

static CUresult
fake_cuCtxSetCacheConfig (CUfunc_cache config)
{
  FakeContext *context;
  CUresult result = current (&context);

  if (result != CUDA_SUCCESS)
    return result;
  if (config > CU_FUNC_CACHE_PREFER_EQUAL)
    return CUDA_ERROR_INVALID_VALUE;
  context->cache_config = config;
  return CUDA_SUCCESS;
}

static CUresult
fake_cuCtxGetStreamPriorityRange (int *least, int *greatest)
{
  FakeContext *context;
  CUresult result = current (&context);

  if (result != CUDA_SUCCESS)
    return result;
  if (least != NULL)
    *least = 0;
  if (greatest != NULL)
    *greatest = -5;
  return CUDA_SUCCESS;
}

static CUresult
fake_cuCtxEnablePeerAccess (CUcontext peer, unsigned int flags)
{
  FakeContext *context;
  CUresult result = current (&context);

  if (result != CUDA_SUCCESS || (result = check_context (peer)) != CUDA_SUCCESS)
    return result;
  if (flags != 0)
    return CUDA_ERROR_INVALID_VALUE;
  if (((FakeContext *) peer)->device == context->device)
    return CUDA_ERROR_INVALID_DEVICE;
  for (int i = 0; i < MAX_PEERS; i++)
    if (context->peers[i] == peer)
      return CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED;
  for (int i = 0; i < MAX_PEERS; i++)
    if (context->peers[i] == NULL)
      {
        context->peers[i] = peer;
        return CUDA_SUCCESS;
      }
  return CUDA_ERROR_TOO_MANY_PEERS;
}

static CUresult
fake_cuCtxDisablePeerAccess (CUcontext peer)
{
  FakeContext *context;
  CUresult result = current (&context);

  if (result != CUDA_SUCCESS)
    return result;
  for (int i = 0; i < MAX_PEERS; i++)
    if (context->peers[i] == peer)
      {
        context->peers[i] = NULL;
        return CUDA_SUCCESS;
      }
  return CUDA_ERROR_PEER_ACCESS_NOT_ENABLED;
}

static CUresult
fake_cuMemGetInfo (size_t *free_bytes, size_t *total_bytes)
{
  FakeContext *context;
  CUresult result = current (&context);

  if (result != CUDA_SUCCESS)
    return result;
  *free_bytes = (size_t) 79 << 30;
  *total_bytes = (size_t) 80 << 30;
  return CUDA_SUCCESS;
}

/* ---- green contexts ------------------------------------------------------ */

/* The SM counts of the resource descriptions made, which live as long as the
 * process (the driver's are not freed either). */
static unsigned int descriptions[MAX_DESCRIPTIONS];
static int n_descriptions;

static void
set_sm_resource (CUdevResource *resource, unsigned int sm_count)
{
  memset (resource, 0, sizeof *resource);
  resource->type = CU_DEV_RESOURCE_TYPE_SM;
  resource->sm.smCount = sm_count;
  resource->sm.minSmPartitionSize = SM_GRANULARITY;
  resource->sm.smCoscheduledAlignment = 2;
}

static CUresult
fake_cuDeviceGetDevResource (CUdevice device, CUdevResource *resource, CUdevResourceType type)
{
  if (ordinal_of (device) < 0)
    return CUDA_ERROR_INVALID_DEVICE;
  if (resource == NULL || type != CU_DEV_RESOURCE_TYPE_SM)
    return CUDA_ERROR_INVALID_VALUE;
  set_sm_resource (resource, SM_COUNT);
  return CUDA_SUCCESS;
}

static CUresult
fake_cuDevSmResourceSplitByCount (CUdevResource *result, unsigned int *n_groups, const CUdevResource *input,
                                  CUdevResource *remaining, unsigned int flags, unsigned int min_count)
{
  unsigned int count = (min_count + SM_GRANULARITY - 1) / SM_GRANULARITY * SM_GRANULARITY;

  if (result == NULL || n_groups == NULL || *n_groups != 1 || input == NULL ||
      input->type != CU_DEV_RESOURCE_TYPE_SM || flags != 0)
    return CUDA_ERROR_INVALID_VALUE;
  if (count == 0)
    count = SM_GRANULARITY;
  if (count > input->sm.smCount)
    return CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION;
  set_sm_resource (result, count);
  if (remaining != NULL)
    set_sm_resource (remaining, input->sm.smCount - count);
  return CUDA_SUCCESS;
}

static CUresult
fake_cuDevResourceGenerateDesc (CUdevResourceDesc *description, CUdevResource *resources, unsigned int n)
{
  CUresult result = CUDA_SUCCESS;

  if (description == NULL || resources == NULL || n != 1 || resources[0].type != CU_DEV_RESOURCE_TYPE_SM)
    return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock (&lock);
  if (n_descriptions == MAX_DESCRIPTIONS)
    result = CUDA_ERROR_OUT_OF_MEMORY;
  else
    {
      descriptions[n_descriptions] = resources[0].sm.smCount;
      *description = (CUdevResourceDesc) &descriptions[n_descriptions++];
    }
  pthread_mutex_unlock (&lock);
  return result;
}

static CUresult
fake_cuGreenCtxCreate (CUgreenCtx *green, CUdevResourceDesc description, CUdevice device, unsigned int flags)
{
  unsigned int *sm_count = (unsigned int *) description;
  FakeContext *context;

  if (ordinal_of (device) < 0)
    return CUDA_ERROR_INVALID_DEVICE;
  if (green == NULL || sm_count < descriptions || sm_count >= descriptions + n_descriptions ||
      flags & ~CU_GREEN_CTX_DEFAULT_STREAM)
    return CUDA_ERROR_INVALID_VALUE;
  context = context_new (device, 0, CU_CTX_MAP_HOST);
  context->sm_count = *sm_count;
  context->green = 1;
  *green = (CUgreenCtx) context;
  return CUDA_SUCCESS;
}

static CUresult
fake_cuCtxFromGreenCtx (CUcontext *handle, CUgreenCtx green)
{
  CUresult result = check_context ((CUcontext) green);

  if (result != CUDA_SUCCESS)
    return result;
  if (!((FakeContext *) green)->green)
    return CUDA_ERROR_INVALID_VALUE;
  *handle = (CUcontext) green;
  return CUDA_SUCCESS;
}

static CUresult
fake_cuGreenCtxDestroy (CUgreenCtx green)
{
  FakeContext *context = (FakeContext *) green;
  CUresult result = check_context ((CUcontext) green);

  if (result != CUDA_SUCCESS)
    return result;
  if (!context->green)
    return CUDA_ERROR_INVALID_VALUE;
  /* What cuCtxDestroy does to a context made with cuCtxCreate. */
  context->green = 0;
  return fake_cuCtxDestroy ((CUcontext) green);
}

static CUresult
fake_cuCtxGetDevResource (CUcontext handle, CUdevResource *resource, CUdevResourceType type)
{
  CUresult result = check_context (handle);

  if (result != CUDA_SUCCESS)
    return result;
  if (resource == NULL || type != CU_DEV_RESOURCE_TYPE_SM)
    return CUDA_ERROR_INVALID_VALUE;
  set_sm_resource (resource, ((FakeContext *) handle)->sm_count);
  return CUDA_SUCCESS;
}

/* Counts the green contexts not destroyed yet, for tests. */
EXPORT int
fake_cuda_devices_live_green_contexts (void)
{
  int live = 0;

  pthread_mutex_lock (&lock);
  for (int i = 0; i < n_contexts; i++)
    live += contexts[i]->green && !contexts[i]->destroyed;
  pthread_mutex_unlock (&lock);
  return live;
}

static CUresult
fake_not_supported (void)
{
  return CUDA_ERROR_NOT_SUPPORTED;
}

static const struct
{
  const char *name;
  void       *function;
} entry_points[] = {
#define ENTRY(name) { #name, (void *) fake_##name },
  ENTRY (cuDeviceGetCount)
  ENTRY (cuDeviceGet)
  ENTRY (cuDeviceGetName)
  ENTRY (cuDeviceGetUuid)
  ENTRY (cuDeviceGetPCIBusId)
  ENTRY (cuDeviceTotalMem)
  ENTRY (cuDeviceGetAttribute)
  ENTRY (cuDeviceCanAccessPeer)
  ENTRY (cuDevicePrimaryCtxRetain)
  ENTRY (cuDevicePrimaryCtxRelease)
  ENTRY (cuDevicePrimaryCtxReset)
  ENTRY (cuDevicePrimaryCtxGetState)
  ENTRY (cuCtxCreate)
  ENTRY (cuCtxDestroy)
  ENTRY (cuCtxPushCurrent)
  ENTRY (cuCtxPopCurrent)
  ENTRY (cuCtxGetCurrent)
  ENTRY (cuCtxGetDevice)
  ENTRY (cuCtxGetFlags)
  ENTRY (cuCtxGetApiVersion)
  ENTRY (cuCtxSynchronize)
  ENTRY (cuCtxGetLimit)
  ENTRY (cuCtxSetLimit)
  ENTRY (cuCtxGetCacheConfig)
  ENTRY (cuCtxSetCacheConfig)
  ENTRY (cuCtxGetStreamPriorityRange)
  ENTRY (cuCtxEnablePeerAccess)
  ENTRY (cuCtxDisablePeerAccess)
  ENTRY (cuMemGetInfo)
  ENTRY (cuDeviceGetDevResource)
  ENTRY (cuDevSmResourceSplitByCount)
  ENTRY (cuDevResourceGenerateDesc)
  ENTRY (cuGreenCtxCreate)
  ENTRY (cuCtxFromGreenCtx)
  ENTRY (cuGreenCtxDestroy)
  ENTRY (cuCtxGetDevResource)
#undef ENTRY
};

EXPORT CUresult
cuInit (unsigned int flags)
{
  return flags == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

EXPORT CUresult
cuDriverGetVersion (int *version)
{
  *version = CUDA_VERSION;
  return CUDA_SUCCESS;
}

/* Every entry point resolves: those modelled here, and a stand-in that
 * answers CUDA_ERROR_NOT_SUPPORTED (whatever its arguments) for the rest. */
EXPORT CUresult
cuGetProcAddress_v2 (const char *symbol, void **pfn, int version, cuuint64_t flags,
                     CUdriverProcAddressQueryResult *status)
{
  (void) version; (void) flags;
  *pfn = (void *) fake_not_supported;
  for (size_t i = 0; i < sizeof entry_points / sizeof entry_points[0]; i++)
    if (strcmp (entry_points[i].name, symbol) == 0)
      *pfn = entry_points[i].function;
  if (status != NULL)
    *status = CU_GET_PROC_ADDRESS_SUCCESS;
  return CUDA_SUCCESS;
}
