/* fake-cuda-graphics.h: how fake-cuda-streams.c and fake-cuda-graphics.c
 * reach each other in the stand-in driver. */
#pragma once

#include <stddef.h>

#include <cuda.h>

/* The stand-in of a graphics, external memory or semaphore entry point, or
 * NULL (fake-cuda-graphics.c). */
void     *fake_cuda_graphics_lookup             (const char *symbol);
/* CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED of every device. */
int       fake_cuda_graphics_dma_buf_supported  (void);

/* Another's memory as device memory in the allocation table, which
 * cuMemFree forgets instead of freeing (fake-cuda-streams.c). */
CUresult  fake_cuda_streams_add_external        (unsigned char *start,
                                                 size_t         size);
void      fake_cuda_streams_remove_external     (const void    *start);
/* Whether device memory overlaps @size bytes from @start. */
int       fake_cuda_streams_overlaps_device     (CUdeviceptr    start,
                                                 size_t         size);

/* What an array is made for: its flags (CUDA_ARRAY3D_*) from now on, as a
 * registration decides them for a GL texture's arrays (fake-cuda-arrays.c). */
void      fake_cuda_arrays_set_flags            (CUarray        array,
                                                 unsigned int   flags);
