/* fake-cuda-tensor-maps.c: cuTensorMapEncodeTiled for the stand-in libcuda
 * of fake-cuda-streams.c, which looks it up here
 * (fake_cuda_tensor_maps_lookup()).
 *
 * It checks what a driver needs to write a descriptor at all (where to,
 * a rank, an address) and one rule cugi leaves to the driver, that each
 * stride spans the dimension below it, so that tests see a driver's
 * refusal too. The descriptor it writes is its arguments, recognisable in
 * the parameters of a launch: word 0 the address, word 1 the type, rank
 * and enums (a byte each), words 2 to 6 the dimensions, 7 to 10 the
 * strides, 11 to 15 the box (low half) and element strides (high half).
 * The last call's arguments are kept for tests
 * (fake_cuda_tensor_maps_last_encoding()). */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "fake-cuda-tensor-maps.h"

#define EXPORT __attribute__((visibility ("default")))

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static FakeTensorMapEncoding last;

static size_t
element_size (CUtensorMapDataType data_type)
{
  switch (data_type)
    {
    case CU_TENSOR_MAP_DATA_TYPE_UINT8:
      return 1;
    case CU_TENSOR_MAP_DATA_TYPE_UINT16:
    case CU_TENSOR_MAP_DATA_TYPE_FLOAT16:
    case CU_TENSOR_MAP_DATA_TYPE_BFLOAT16:
      return 2;
    case CU_TENSOR_MAP_DATA_TYPE_UINT64:
    case CU_TENSOR_MAP_DATA_TYPE_INT64:
    case CU_TENSOR_MAP_DATA_TYPE_FLOAT64:
      return 8;
    default:
      return 4;
    }
}

static CUresult
fake_cuTensorMapEncodeTiled (CUtensorMap *tensor_map, CUtensorMapDataType data_type, cuuint32_t rank,
                             void *address, const cuuint64_t *dims, const cuuint64_t *strides,
                             const cuuint32_t *box, const cuuint32_t *element_strides,
                             CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
                             CUtensorMapL2promotion l2_promotion, CUtensorMapFloatOOBfill oob_fill)
{
  FakeTensorMapEncoding call = {
    .tensor_map = tensor_map, .data_type = data_type, .rank = rank, .address = address,
    .interleave = interleave, .swizzle = swizzle, .l2_promotion = l2_promotion, .oob_fill = oob_fill,
  };
  cuuint64_t *words;

  if (tensor_map == NULL || (uintptr_t) tensor_map % 64 != 0 || rank == 0 || rank > 5 || address == NULL)
    return CUDA_ERROR_INVALID_VALUE;
  for (cuuint32_t i = 0; i + 1 < rank; i++)
    if (strides[i] < dims[i] * (i == 0 ? element_size (data_type) : strides[i - 1]))
      return CUDA_ERROR_INVALID_VALUE;

  memcpy (call.dims, dims, rank * sizeof *dims);
  memcpy (call.strides, strides, (rank - 1) * sizeof *strides);
  memcpy (call.box, box, rank * sizeof *box);
  memcpy (call.element_strides, element_strides, rank * sizeof *element_strides);

  words = tensor_map->opaque;
  memset (words, 0, sizeof *tensor_map);
  words[0] = (uintptr_t) address;
  words[1] = data_type | rank << 8 | interleave << 16 | (cuuint64_t) swizzle << 24 |
             (cuuint64_t) l2_promotion << 32 | (cuuint64_t) oob_fill << 40;
  for (cuuint32_t i = 0; i < rank; i++)
    {
      words[2 + i] = dims[i];
      words[11 + i] = box[i] | (cuuint64_t) element_strides[i] << 32;
    }
  for (cuuint32_t i = 0; i + 1 < rank; i++)
    words[7 + i] = strides[i];

  pthread_mutex_lock (&lock);
  call.calls = last.calls + 1;
  last = call;
  pthread_mutex_unlock (&lock);
  return CUDA_SUCCESS;
}

void *
fake_cuda_tensor_maps_lookup (const char *symbol)
{
  return strcmp (symbol, "cuTensorMapEncodeTiled") == 0 ? (void *) fake_cuTensorMapEncodeTiled : NULL;
}

/* What the last successful cuTensorMapEncodeTiled was given. */
EXPORT void
fake_cuda_tensor_maps_last_encoding (FakeTensorMapEncoding *encoding)
{
  pthread_mutex_lock (&lock);
  *encoding = last;
  pthread_mutex_unlock (&lock);
}
