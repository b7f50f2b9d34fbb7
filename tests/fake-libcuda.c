/* fake-libcuda.c: a stand-in libcuda for the loader's failure paths, without
 * a GPU. FAKE_CUDA_INIT_RESULT sets what cuInit returns, FAKE_CUDA_VERSION
 * what cuDriverGetVersion reports. */
#include <stdlib.h>
#include <string.h>

#include <cuda.h>

static int
env_int (const char *name, int fallback)
{
  const char *value = getenv (name);
  return value != NULL ? atoi (value) : fallback;
}

__attribute__((visibility ("default"))) CUresult
cuInit (unsigned int flags)
{
  (void) flags;
  return (CUresult) env_int ("FAKE_CUDA_INIT_RESULT", CUDA_SUCCESS);
}

__attribute__((visibility ("default"))) CUresult
cuDriverGetVersion (int *version)
{
  *version = env_int ("FAKE_CUDA_VERSION", CUDA_VERSION);
  return CUDA_SUCCESS;
}

/* Knows no entry point, as a driver from before cugi's needs would. */
__attribute__((visibility ("default"))) CUresult
cuGetProcAddress_v2 (const char *symbol, void **pfn, int version, cuuint64_t flags,
                     CUdriverProcAddressQueryResult *status)
{
  (void) symbol; (void) version; (void) flags;
  *pfn = NULL;
  if (status != NULL)
    *status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  return CUDA_ERROR_NOT_FOUND;
}
