/* fake-cuda-tensor-maps.h: the tensor maps of the stand-in libcuda
 * (fake-cuda-tensor-maps.c): how fake-cuda-streams.c finds their entry
 * point, and what tests read back of the last encoding. */
#pragma once

#include <cuda.h>

/* The arguments of the last cuTensorMapEncodeTiled, the descriptor's
 * address among them. */
typedef struct
{
  int                     calls;     /* that succeeded, since the stand-in was loaded */
  const CUtensorMap      *tensor_map;
  CUtensorMapDataType     data_type;
  cuuint32_t              rank;
  void                   *address;
  cuuint64_t              dims[5];
  cuuint64_t              strides[4];
  cuuint32_t              box[5];
  cuuint32_t              element_strides[5];
  CUtensorMapInterleave   interleave;
  CUtensorMapSwizzle      swizzle;
  CUtensorMapL2promotion  l2_promotion;
  CUtensorMapFloatOOBfill oob_fill;
} FakeTensorMapEncoding;

/* The stand-in of a tensor-map entry point, or NULL. */
void *fake_cuda_tensor_maps_lookup (const char *symbol);
