/* fake-cuda-arrays.h: how fake-cuda-streams.c reaches the array part of the
 * stand-in driver (fake-cuda-arrays.c). */
#pragma once

#include <cuda.h>

/* The stand-in of an array, texture or surface entry point, or NULL. */
void     *fake_cuda_arrays_lookup (const char *symbol);

/* The stand-in driver's own, which the arrays use for cuLaunchHostFunc. */
CUresult  cuGetProcAddress_v2     (const char *symbol, void **pfn, int version, cuuint64_t flags,
                                   CUdriverProcAddressQueryResult *status);
