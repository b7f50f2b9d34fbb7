/* fake-cuda-vmm.h: how fake-cuda-streams.c reaches the virtual memory
 * management of the stand-in driver (fake-cuda-vmm.c). */
#pragma once

#include <cuda.h>

/* The stand-in of a virtual memory entry point, or NULL. */
void *fake_cuda_vmm_lookup           (const char         *symbol);
/* 1 with *@value set for the attributes of virtual memory and pool
 * sharing that every device has, else 0. */
int   fake_cuda_vmm_device_attribute (CUdevice_attribute  attribute,
                                      int                *value);
