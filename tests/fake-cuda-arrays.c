/* fake-cuda-arrays.c: the arrays, texture objects and surface objects of the
 * stand-in libcuda of fake-cuda-streams.c, which looks their entry points
 * up here (fake_cuda_arrays_lookup()).
 *
 * An array is host memory, its elements packed row by row and slice by
 * slice; cuMemcpy3D copies between arrays, host memory and "device" memory,
 * which it takes for host memory as the stand-in allocators of the logic
 * tests hand it out. cuMemcpy3DAsync makes the copy a host function on the
 * stream, so that it runs in stream order. Textures and surfaces record
 * what they were made with, for tests to read back, and every object is
 * counted while it lives (fake_cuda_arrays_get_counts()). */
#include <stdlib.h>
#include <string.h>

#include <cuda.h>

#include "fake-cuda-arrays.h"
#include "fake-cuda-graphics.h"

#define EXPORT __attribute__((visibility ("default")))

typedef struct
{
  CUDA_ARRAY3D_DESCRIPTOR desc;
  size_t                  element_size;
  unsigned char          *data;
} FakeArray;

static int live_arrays;
static int live_textures;
static int live_surfaces;
static unsigned long long last_handle;
static CUDA_RESOURCE_DESC last_resource;
static CUDA_TEXTURE_DESC last_texture;

static size_t
format_size (CUarray_format format)
{
  switch (format)
    {
    case CU_AD_FORMAT_UNSIGNED_INT8:
    case CU_AD_FORMAT_SIGNED_INT8:
      return 1;
    case CU_AD_FORMAT_UNSIGNED_INT16:
    case CU_AD_FORMAT_SIGNED_INT16:
    case CU_AD_FORMAT_HALF:
      return 2;
    case CU_AD_FORMAT_UNSIGNED_INT32:
    case CU_AD_FORMAT_SIGNED_INT32:
    case CU_AD_FORMAT_FLOAT:
      return 4;
    default:
      return 0;
    }
}

static size_t
rows_of (const FakeArray *array)
{
  return array->desc.Height > 0 ? array->desc.Height : 1;
}

static size_t
slices_of (const FakeArray *array)
{
  return array->desc.Depth > 0 ? array->desc.Depth : 1;
}

static CUresult
fake_cuArray3DCreate (CUarray *handle, const CUDA_ARRAY3D_DESCRIPTOR *desc)
{
  FakeArray *array;
  size_t element_size = format_size (desc->Format) * desc->NumChannels;

  if (element_size == 0 || desc->Width == 0 ||
      (desc->NumChannels != 1 && desc->NumChannels != 2 && desc->NumChannels != 4))
    return CUDA_ERROR_INVALID_VALUE;
  array = calloc (1, sizeof *array);
  array->desc = *desc;
  array->element_size = element_size;
  array->data = calloc (desc->Width * rows_of (array) * slices_of (array), element_size);
  __atomic_add_fetch (&live_arrays, 1, __ATOMIC_SEQ_CST);
  *handle = (CUarray) array;
  return CUDA_SUCCESS;
}

static CUresult
fake_cuArrayDestroy (CUarray handle)
{
  FakeArray *array = (FakeArray *) handle;

  if (array == NULL)
    return CUDA_ERROR_INVALID_HANDLE;
  free (array->data);
  free (array);
  __atomic_sub_fetch (&live_arrays, 1, __ATOMIC_SEQ_CST);
  return CUDA_SUCCESS;
}

static CUresult
fake_cuArray3DGetDescriptor (CUDA_ARRAY3D_DESCRIPTOR *desc, CUarray handle)
{
  const FakeArray *array = (const FakeArray *) handle;

  if (array == NULL)
    return CUDA_ERROR_INVALID_HANDLE;
  *desc = array->desc;
  return CUDA_SUCCESS;
}

void
fake_cuda_arrays_set_flags (CUarray handle, unsigned int flags)
{
  ((FakeArray *) handle)->desc.Flags = flags;
}

/* Where row @y of slice @z of one end starts, NULL when outside an array. */
static unsigned char *
row_start (CUmemorytype type, const void *host, CUdeviceptr device, CUarray handle,
           size_t x_bytes, size_t y, size_t z, size_t pitch, size_t height, size_t width_bytes)
{
  const FakeArray *array = (const FakeArray *) handle;
  size_t row_bytes;

  switch (type)
    {
    case CU_MEMORYTYPE_HOST:
      return (unsigned char *) host + (z * height + y) * pitch + x_bytes;
    case CU_MEMORYTYPE_DEVICE:
      return (unsigned char *) (uintptr_t) device + (z * height + y) * pitch + x_bytes;
    case CU_MEMORYTYPE_ARRAY:
      row_bytes = array->desc.Width * array->element_size;
      if (x_bytes + width_bytes > row_bytes || y >= rows_of (array) || z >= slices_of (array))
        return NULL;
      return array->data + (z * rows_of (array) + y) * row_bytes + x_bytes;
    default:
      return NULL;
    }
}

static CUresult
fake_cuMemcpy3D (const CUDA_MEMCPY3D *copy)
{
  for (size_t z = 0; z < copy->Depth; z++)
    for (size_t y = 0; y < copy->Height; y++)
      {
        unsigned char *from = row_start (copy->srcMemoryType, copy->srcHost, copy->srcDevice,
                                         copy->srcArray, copy->srcXInBytes, copy->srcY + y,
                                         copy->srcZ + z, copy->srcPitch, copy->srcHeight,
                                         copy->WidthInBytes);
        unsigned char *to = row_start (copy->dstMemoryType, copy->dstHost, copy->dstDevice,
                                       copy->dstArray, copy->dstXInBytes, copy->dstY + y,
                                       copy->dstZ + z, copy->dstPitch, copy->dstHeight,
                                       copy->WidthInBytes);

        if (from == NULL || to == NULL)
          return CUDA_ERROR_INVALID_VALUE;
        memmove (to, from, copy->WidthInBytes);
      }
  return CUDA_SUCCESS;
}

static void CUDA_CB
run_copy (void *data)
{
  fake_cuMemcpy3D (data);
  free (data);
}

static CUresult
fake_cuMemcpy3DAsync (const CUDA_MEMCPY3D *copy, CUstream stream)
{
  CUresult (*launch_host_func) (CUstream, CUhostFn, void *) = NULL;
  CUDA_MEMCPY3D *queued;
  CUresult result;

  if (cuGetProcAddress_v2 ("cuLaunchHostFunc", (void **) &launch_host_func, CUDA_VERSION, 0, NULL) !=
      CUDA_SUCCESS)
    return CUDA_ERROR_NOT_SUPPORTED;
  queued = malloc (sizeof *queued);
  *queued = *copy;
  result = launch_host_func (stream, run_copy, queued);
  if (result != CUDA_SUCCESS)
    free (queued);
  return result;
}

/* A new texture or surface handle, counted in *@live. */
static unsigned long long
object_new (int *live)
{
  __atomic_add_fetch (live, 1, __ATOMIC_SEQ_CST);
  return __atomic_add_fetch (&last_handle, 1, __ATOMIC_SEQ_CST);
}

static CUresult
object_destroy (unsigned long long  handle,
                int                *live)
{
  if (handle == 0)
    return CUDA_ERROR_INVALID_HANDLE;
  __atomic_sub_fetch (live, 1, __ATOMIC_SEQ_CST);
  return CUDA_SUCCESS;
}

static CUresult
fake_cuTexObjectCreate (CUtexObject *handle, const CUDA_RESOURCE_DESC *resource,
                        const CUDA_TEXTURE_DESC *texture, const CUDA_RESOURCE_VIEW_DESC *view)
{
  if (resource == NULL || texture == NULL || view != NULL ||
      (resource->resType == CU_RESOURCE_TYPE_ARRAY && resource->res.array.hArray == NULL))
    return CUDA_ERROR_INVALID_VALUE;
  last_resource = *resource;
  last_texture = *texture;
  *handle = object_new (&live_textures);
  return CUDA_SUCCESS;
}

static CUresult
fake_cuTexObjectDestroy (CUtexObject handle)
{
  return object_destroy (handle, &live_textures);
}

static CUresult
fake_cuSurfObjectCreate (CUsurfObject *handle, const CUDA_RESOURCE_DESC *resource)
{
  const FakeArray *array;

  if (resource == NULL || resource->resType != CU_RESOURCE_TYPE_ARRAY ||
      (array = (const FakeArray *) resource->res.array.hArray) == NULL ||
      (array->desc.Flags & CUDA_ARRAY3D_SURFACE_LDST) == 0)
    return CUDA_ERROR_INVALID_VALUE;
  last_resource = *resource;
  *handle = object_new (&live_surfaces);
  return CUDA_SUCCESS;
}

static CUresult
fake_cuSurfObjectDestroy (CUsurfObject handle)
{
  return object_destroy (handle, &live_surfaces);
}

void *
fake_cuda_arrays_lookup (const char *symbol)
{
  static const struct
  {
    const char *name;
    void       *function;
  } entry_points[] = {
#define ENTRY(name) { #name, (void *) fake_##name },
    ENTRY (cuArray3DCreate)
    ENTRY (cuArray3DGetDescriptor)
    ENTRY (cuArrayDestroy)
    ENTRY (cuMemcpy3D)
    ENTRY (cuMemcpy3DAsync)
    ENTRY (cuTexObjectCreate)
    ENTRY (cuTexObjectDestroy)
    ENTRY (cuSurfObjectCreate)
    ENTRY (cuSurfObjectDestroy)
#undef ENTRY
  };

  for (size_t i = 0; i < sizeof entry_points / sizeof entry_points[0]; i++)
    if (strcmp (entry_points[i].name, symbol) == 0)
      return entry_points[i].function;
  return NULL;
}

/* How many arrays, texture objects and surface objects live now. */
EXPORT void
fake_cuda_arrays_get_counts (int *arrays, int *textures, int *surfaces)
{
  *arrays = __atomic_load_n (&live_arrays, __ATOMIC_SEQ_CST);
  *textures = __atomic_load_n (&live_textures, __ATOMIC_SEQ_CST);
  *surfaces = __atomic_load_n (&live_surfaces, __ATOMIC_SEQ_CST);
}

/* What the last texture object was made with (the resource: of the last
 * texture or surface). */
EXPORT void
fake_cuda_arrays_get_last_texture (CUDA_RESOURCE_DESC *resource, CUDA_TEXTURE_DESC *texture)
{
  *resource = last_resource;
  *texture = last_texture;
}
