/* fake-cuda-vmm.c: virtual memory management of the stand-in libcuda of
 * fake-cuda-streams.c, which looks its entry points up here
 * (fake_cuda_vmm_lookup()).
 *
 * A reserved range is host address space reserved with mmap (PROT_NONE); a
 * physical allocation is a memfd of its size; a mapping maps the memfd over
 * part of a range, shared, so that an allocation exported as a file
 * descriptor (a duplicate of the memfd) and imported elsewhere, in this
 * process or another, shows the same bytes. A mapping is inaccessible until
 * cuMemSetAccess gives a device access: the pages are then protected with
 * what the devices together may do, so that a write without access faults
 * as on a GPU. While mapped, a range is device memory in fake-cuda-streams'
 * table, so that copies and pointer queries see it.
 *
 * The granularity is 64 KiB (minimum) and 2 MiB (recommended); sizes and
 * addresses must be multiples of the minimum, as CUDA's must. Devices
 * support POSIX file descriptors and GPUDirect RDMA, and not compression
 * (fake_cuda_vmm_device_attribute()). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cuda.h>

#include "fake-cuda-graphics.h"
#include "fake-cuda-vmm.h"

#define MINIMUM_GRANULARITY ((size_t) 64 << 10)
#define RECOMMENDED_GRANULARITY ((size_t) 2 << 20)
#define MAX_DEVICES 8

typedef struct
{
  int                 fd;
  size_t              size;
  CUmemAllocationProp prop;
  int                 refs;   /* the handle's, and one per mapping */
} FakeAllocation;

typedef struct FakeReservation FakeReservation;
struct FakeReservation
{
  FakeReservation *next;
  unsigned char   *start;
  size_t           size;
  unsigned char   *raw;       /* what mmap reserved, aligned within */
  size_t           raw_size;
};

typedef struct FakeMapping FakeMapping;
struct FakeMapping
{
  FakeMapping    *next;
  unsigned char  *start;
  size_t          size;
  FakeAllocation *allocation;
  unsigned int    access[MAX_DEVICES];  /* CU_MEM_ACCESS_FLAGS_PROT_*, by ordinal */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static FakeReservation *reservations;
static FakeMapping *mappings;
static int live_allocations;

static void *
driver (const char *symbol)
{
  void *function = NULL;

  cuGetProcAddress_v2 (symbol, &function, CUDA_VERSION, 0, NULL);
  return function;
}

/* fake-cuda-devices' handles are ordinal + 100. */
static int
ordinal_of (int device)
{
  return device >= 100 && device < 100 + MAX_DEVICES ? device - 100 : -1;
}

/* ---- granularity, reservations -------------------------------------------- */

static CUresult
fake_cuMemGetAllocationGranularity (size_t *granularity, const CUmemAllocationProp *prop,
                                    CUmemAllocationGranularity_flags option)
{
  if (granularity == NULL || prop == NULL || prop->type != CU_MEM_ALLOCATION_TYPE_PINNED ||
      prop->location.type != CU_MEM_LOCATION_TYPE_DEVICE || ordinal_of (prop->location.id) < 0)
    return CUDA_ERROR_INVALID_VALUE;
  *granularity = option == CU_MEM_ALLOC_GRANULARITY_RECOMMENDED ? RECOMMENDED_GRANULARITY : MINIMUM_GRANULARITY;
  return CUDA_SUCCESS;
}

static CUresult
fake_cuMemAddressReserve (CUdeviceptr *address, size_t size, size_t alignment, CUdeviceptr fixed,
                          unsigned long long flags)
{
  FakeReservation *reservation;
  size_t align = alignment > MINIMUM_GRANULARITY ? alignment : MINIMUM_GRANULARITY;
  uintptr_t aligned;
  void *raw;

  if (address == NULL || size == 0 || size % MINIMUM_GRANULARITY != 0 || align % MINIMUM_GRANULARITY != 0 ||
      fixed != 0 || flags != 0 || size > SIZE_MAX - align)
    return CUDA_ERROR_INVALID_VALUE;
  raw = mmap (NULL, size + align, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (raw == MAP_FAILED)
    return CUDA_ERROR_OUT_OF_MEMORY;
  aligned = ((uintptr_t) raw + align - 1) / align * align;
  reservation = calloc (1, sizeof *reservation);
  reservation->start = (unsigned char *) aligned;
  reservation->size = size;
  reservation->raw = raw;
  reservation->raw_size = size + align;
  pthread_mutex_lock (&lock);
  reservation->next = reservations;
  reservations = reservation;
  pthread_mutex_unlock (&lock);
  *address = (CUdeviceptr) aligned;
  return CUDA_SUCCESS;
}

/* Called with the lock held: whether a mapping overlaps @size bytes from @start. */
static int
mapped_within (const unsigned char *start, size_t size)
{
  for (FakeMapping *mapping = mappings; mapping != NULL; mapping = mapping->next)
    if (mapping->start < start + size && start < mapping->start + mapping->size)
      return 1;
  return 0;
}

/* A range with mappings left cannot be freed: CUDA leaves them mapped and
 * fails, and so does this. */
static CUresult
fake_cuMemAddressFree (CUdeviceptr address, size_t size)
{
  unsigned char *start = (unsigned char *) (uintptr_t) address;
  FakeReservation *found = NULL;

  pthread_mutex_lock (&lock);
  for (FakeReservation **link = &reservations; *link != NULL; link = &(*link)->next)
    if ((*link)->start == start && (*link)->size == size && !mapped_within (start, size))
      {
        found = *link;
        *link = found->next;
        break;
      }
  pthread_mutex_unlock (&lock);
  if (found == NULL)
    return CUDA_ERROR_INVALID_VALUE;
  munmap (found->raw, found->raw_size);
  free (found);
  return CUDA_SUCCESS;
}

/* ---- physical allocations ------------------------------------------------- */

static void
allocation_unref (FakeAllocation *allocation)
{
  if (__atomic_sub_fetch (&allocation->refs, 1, __ATOMIC_SEQ_CST) > 0)
    return;
  close (allocation->fd);
  free (allocation);
  __atomic_sub_fetch (&live_allocations, 1, __ATOMIC_SEQ_CST);
}

static FakeAllocation *
allocation_new (int fd, size_t size, const CUmemAllocationProp *prop)
{
  FakeAllocation *allocation = calloc (1, sizeof *allocation);

  allocation->fd = fd;
  allocation->size = size;
  allocation->prop = *prop;
  allocation->refs = 1;
  __atomic_add_fetch (&live_allocations, 1, __ATOMIC_SEQ_CST);
  return allocation;
}

static CUresult
fake_cuMemCreate (CUmemGenericAllocationHandle *handle, size_t size, const CUmemAllocationProp *prop,
                  unsigned long long flags)
{
  int fd;

  if (handle == NULL || prop == NULL || flags != 0 || size == 0 || size % MINIMUM_GRANULARITY != 0 ||
      prop->type != CU_MEM_ALLOCATION_TYPE_PINNED || prop->location.type != CU_MEM_LOCATION_TYPE_DEVICE ||
      ordinal_of (prop->location.id) < 0 ||
      (prop->requestedHandleTypes & ~CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) != 0)
    return CUDA_ERROR_INVALID_VALUE;
  if (prop->allocFlags.compressionType != 0)
    return CUDA_ERROR_NOT_SUPPORTED;
  if ((fd = memfd_create ("fake-cuda-vmm", MFD_CLOEXEC)) < 0)
    return CUDA_ERROR_OPERATING_SYSTEM;
  if (ftruncate (fd, size) != 0)
    {
      close (fd);
      return CUDA_ERROR_OUT_OF_MEMORY;
    }
  *handle = (CUmemGenericAllocationHandle) (uintptr_t) allocation_new (fd, size, prop);
  return CUDA_SUCCESS;
}

static CUresult
fake_cuMemRelease (CUmemGenericAllocationHandle handle)
{
  if (handle == 0)
    return CUDA_ERROR_INVALID_VALUE;
  allocation_unref ((FakeAllocation *) (uintptr_t) handle);
  return CUDA_SUCCESS;
}

static CUresult
fake_cuMemGetAllocationPropertiesFromHandle (CUmemAllocationProp *prop, CUmemGenericAllocationHandle handle)
{
  if (prop == NULL || handle == 0)
    return CUDA_ERROR_INVALID_VALUE;
  *prop = ((FakeAllocation *) (uintptr_t) handle)->prop;
  return CUDA_SUCCESS;
}

static CUresult
fake_cuMemExportToShareableHandle (void *shareable, CUmemGenericAllocationHandle handle,
                                   CUmemAllocationHandleType type, unsigned long long flags)
{
  FakeAllocation *allocation = (FakeAllocation *) (uintptr_t) handle;
  int fd;

  if (shareable == NULL || allocation == NULL || flags != 0 || type != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR ||
      !(allocation->prop.requestedHandleTypes & CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR))
    return CUDA_ERROR_INVALID_VALUE;
  if ((fd = fcntl (allocation->fd, F_DUPFD_CLOEXEC, 3)) < 0)
    return CUDA_ERROR_OPERATING_SYSTEM;
  *(int *) shareable = fd;
  return CUDA_SUCCESS;
}

/* The caller keeps its descriptor, as with CUDA; the allocation is on the
 * current context's device, its size the file's. */
static CUresult
fake_cuMemImportFromShareableHandle (CUmemGenericAllocationHandle *handle, void *os_handle,
                                     CUmemAllocationHandleType type)
{
  CUresult (*ctx_get_device) (CUdevice *) = driver ("cuCtxGetDevice");
  CUmemAllocationProp prop = { 0 };
  int fd = (int) (intptr_t) os_handle;
  CUdevice device = 0;
  struct stat info;
  int duplicate;

  if (handle == NULL || type != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR || fcntl (fd, F_GETFD) < 0 ||
      fstat (fd, &info) != 0 || info.st_size <= 0 || (size_t) info.st_size % MINIMUM_GRANULARITY != 0)
    return CUDA_ERROR_INVALID_VALUE;
  if (ctx_get_device (&device) != CUDA_SUCCESS)
    return CUDA_ERROR_INVALID_CONTEXT;
  if ((duplicate = fcntl (fd, F_DUPFD_CLOEXEC, 3)) < 0)
    return CUDA_ERROR_OPERATING_SYSTEM;
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = device;
  *handle = (CUmemGenericAllocationHandle) (uintptr_t) allocation_new (duplicate, info.st_size, &prop);
  return CUDA_SUCCESS;
}

static CUresult fake_cuMemUnmap (CUdeviceptr address, size_t size);

/* ---- mappings and access -------------------------------------------------- */

/* Called with the lock held: whether a reservation holds @size bytes from @start. */
static int
reserved (const unsigned char *start, size_t size)
{
  for (FakeReservation *reservation = reservations; reservation != NULL; reservation = reservation->next)
    if (start >= reservation->start && size <= reservation->size - (size_t) (start - reservation->start))
      return 1;
  return 0;
}

static CUresult
fake_cuMemMap (CUdeviceptr address, size_t size, size_t offset, CUmemGenericAllocationHandle handle,
               unsigned long long flags)
{
  FakeAllocation *allocation = (FakeAllocation *) (uintptr_t) handle;
  unsigned char *start = (unsigned char *) (uintptr_t) address;
  FakeMapping *mapping;
  CUresult result = CUDA_SUCCESS;

  if (allocation == NULL || offset != 0 || flags != 0 || size == 0 || size > allocation->size ||
      size % MINIMUM_GRANULARITY != 0 || address % MINIMUM_GRANULARITY != 0)
    return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock (&lock);
  if (!reserved (start, size) || mapped_within (start, size))
    result = CUDA_ERROR_INVALID_VALUE;
  else if (mmap (start, size, PROT_NONE, MAP_SHARED | MAP_FIXED, allocation->fd, 0) == MAP_FAILED)
    result = CUDA_ERROR_OUT_OF_MEMORY;
  if (result == CUDA_SUCCESS)
    {
      mapping = calloc (1, sizeof *mapping);
      mapping->start = start;
      mapping->size = size;
      mapping->allocation = allocation;
      __atomic_add_fetch (&allocation->refs, 1, __ATOMIC_SEQ_CST);
      mapping->next = mappings;
      mappings = mapping;
    }
  pthread_mutex_unlock (&lock);
  if (result == CUDA_SUCCESS && (result = fake_cuda_streams_add_external (start, size)) != CUDA_SUCCESS)
    fake_cuMemUnmap (address, size);
  return result;
}

/* Called with the lock held: whether the mappings cover @size bytes from
 * @start exactly, each lying within or without. */
static int
covered_by_whole_mappings (const unsigned char *start, size_t size)
{
  size_t covered = 0;

  for (FakeMapping *mapping = mappings; mapping != NULL; mapping = mapping->next)
    if (mapping->start < start + size && start < mapping->start + mapping->size)
      {
        if (mapping->start < start || mapping->start + mapping->size > start + size)
          return 0;
        covered += mapping->size;
      }
  return covered == size;
}

static CUresult
fake_cuMemUnmap (CUdeviceptr address, size_t size)
{
  unsigned char *start = (unsigned char *) (uintptr_t) address;
  FakeMapping *gone = NULL;

  pthread_mutex_lock (&lock);
  if (size == 0 || !covered_by_whole_mappings (start, size))
    {
      pthread_mutex_unlock (&lock);
      return CUDA_ERROR_INVALID_VALUE;
    }
  for (FakeMapping **link = &mappings; *link != NULL;)
    if ((*link)->start >= start && (*link)->start < start + size)
      {
        FakeMapping *mapping = *link;

        *link = mapping->next;
        mapping->next = gone;
        gone = mapping;
      }
    else
      link = &(*link)->next;
  pthread_mutex_unlock (&lock);
  while (gone != NULL)
    {
      FakeMapping *mapping = gone;

      gone = mapping->next;
      fake_cuda_streams_remove_external (mapping->start);
      mmap (mapping->start, mapping->size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
      allocation_unref (mapping->allocation);
      free (mapping);
    }
  return CUDA_SUCCESS;
}

static int
protection_of (const FakeMapping *mapping)
{
  unsigned int access = 0;

  for (int ordinal = 0; ordinal < MAX_DEVICES; ordinal++)
    access |= mapping->access[ordinal];
  return (access & CU_MEM_ACCESS_FLAGS_PROT_READ ? PROT_READ : 0) |
         ((access & CU_MEM_ACCESS_FLAGS_PROT_READWRITE) == CU_MEM_ACCESS_FLAGS_PROT_READWRITE ? PROT_WRITE : 0);
}

static CUresult
fake_cuMemSetAccess (CUdeviceptr address, size_t size, const CUmemAccessDesc *desc, size_t count)
{
  unsigned char *start = (unsigned char *) (uintptr_t) address;

  if (desc == NULL || count == 0)
    return CUDA_ERROR_INVALID_VALUE;
  for (size_t i = 0; i < count; i++)
    if (desc[i].location.type != CU_MEM_LOCATION_TYPE_DEVICE || ordinal_of (desc[i].location.id) < 0 ||
        (desc[i].flags != CU_MEM_ACCESS_FLAGS_PROT_NONE && desc[i].flags != CU_MEM_ACCESS_FLAGS_PROT_READ &&
         desc[i].flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE))
      return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock (&lock);
  if (size == 0 || !covered_by_whole_mappings (start, size))
    {
      pthread_mutex_unlock (&lock);
      return CUDA_ERROR_INVALID_VALUE;
    }
  for (FakeMapping *mapping = mappings; mapping != NULL; mapping = mapping->next)
    if (mapping->start >= start && mapping->start < start + size)
      {
        for (size_t i = 0; i < count; i++)
          mapping->access[ordinal_of (desc[i].location.id)] = desc[i].flags;
        mprotect (mapping->start, mapping->size, protection_of (mapping));
      }
  pthread_mutex_unlock (&lock);
  return CUDA_SUCCESS;
}

static CUresult
fake_cuMemGetAccess (unsigned long long *flags, const CUmemLocation *location, CUdeviceptr address)
{
  const unsigned char *byte = (const unsigned char *) (uintptr_t) address;
  CUresult result = CUDA_ERROR_INVALID_VALUE;

  if (flags == NULL || location == NULL || location->type != CU_MEM_LOCATION_TYPE_DEVICE ||
      ordinal_of (location->id) < 0)
    return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock (&lock);
  for (FakeMapping *mapping = mappings; mapping != NULL; mapping = mapping->next)
    if (byte >= mapping->start && byte < mapping->start + mapping->size)
      {
        *flags = mapping->access[ordinal_of (location->id)];
        result = CUDA_SUCCESS;
      }
  pthread_mutex_unlock (&lock);
  return result;
}

/* ---- what fake-cuda-streams and tests use --------------------------------- */

int
fake_cuda_vmm_device_attribute (CUdevice_attribute attribute, int *value)
{
  switch (attribute)
    {
    case CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED:
      *value = 1;
      return 1;
    case CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED:
      *value = 0;
      return 1;
    case CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES:
      *value = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
      return 1;
    default:
      return 0;
    }
}

/* The physical allocations alive (handles or mappings hold them), for tests
 * that check nothing leaked. */
__attribute__((visibility ("default"))) int
fake_cuda_vmm_live_allocations (void)
{
  return __atomic_load_n (&live_allocations, __ATOMIC_SEQ_CST);
}

void *
fake_cuda_vmm_lookup (const char *symbol)
{
  static const struct
  {
    const char *name;
    void       *function;
  } entry_points[] = {
#define ENTRY(name) { #name, (void *) fake_##name },
    ENTRY (cuMemGetAllocationGranularity)
    ENTRY (cuMemAddressReserve)
    ENTRY (cuMemAddressFree)
    ENTRY (cuMemCreate)
    ENTRY (cuMemRelease)
    ENTRY (cuMemGetAllocationPropertiesFromHandle)
    ENTRY (cuMemExportToShareableHandle)
    ENTRY (cuMemImportFromShareableHandle)
    ENTRY (cuMemMap)
    ENTRY (cuMemUnmap)
    ENTRY (cuMemSetAccess)
    ENTRY (cuMemGetAccess)
#undef ENTRY
  };

  for (size_t i = 0; i < sizeof entry_points / sizeof entry_points[0]; i++)
    if (strcmp (entry_points[i].name, symbol) == 0)
      return entry_points[i].function;
  return NULL;
}
