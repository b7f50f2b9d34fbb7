/* cugi-error.c: the CUGI_ERROR domain and the CUresult -> CugiError mapping */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "cugi-private.h"
#include "cugi-result-names.h"

/**
 * cugi_error_quark:
 *
 * The error domain of cugi, as %CUGI_ERROR gives it.
 *
 * Returns: the #GQuark of the domain
 *
 * Since: 0.1
 */
G_DEFINE_QUARK (cugi-error-quark, cugi_error)

typedef struct
{
  CUresult    result;
  const char *name;
  CugiError   code;
} CugiResultMapping;

/* Every CUresult of cuda.h, with the code users branch on. tests/test-error.c
 * checks that each value cuda.h defines is listed here. */
static const CugiResultMapping result_mappings[] = {
#define MAP(result, code) { result, #result, CUGI_ERROR_##code },
  MAP (CUDA_SUCCESS, FAILED)
  MAP (CUDA_ERROR_INVALID_VALUE, INVALID_ARGUMENT)
  MAP (CUDA_ERROR_OUT_OF_MEMORY, OUT_OF_MEMORY)
  MAP (CUDA_ERROR_NOT_INITIALIZED, NOT_AVAILABLE)
  MAP (CUDA_ERROR_DEINITIALIZED, NOT_AVAILABLE)
  MAP (CUDA_ERROR_PROFILER_DISABLED, NOT_SUPPORTED)
  MAP (CUDA_ERROR_PROFILER_NOT_INITIALIZED, INVALID_STATE)
  MAP (CUDA_ERROR_PROFILER_ALREADY_STARTED, INVALID_STATE)
  MAP (CUDA_ERROR_PROFILER_ALREADY_STOPPED, INVALID_STATE)
  MAP (CUDA_ERROR_STUB_LIBRARY, NOT_AVAILABLE)
  MAP (CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER, NOT_SUPPORTED)
  MAP (CUDA_ERROR_DEVICE_UNAVAILABLE, NOT_AVAILABLE)
  MAP (CUDA_ERROR_NO_DEVICE, NOT_AVAILABLE)
  MAP (CUDA_ERROR_INVALID_DEVICE, INVALID_ARGUMENT)
  MAP (CUDA_ERROR_DEVICE_NOT_LICENSED, NOT_AVAILABLE)
  MAP (CUDA_ERROR_INVALID_IMAGE, INVALID_IMAGE)
  MAP (CUDA_ERROR_INVALID_CONTEXT, INVALID_CONTEXT)
  MAP (CUDA_ERROR_CONTEXT_ALREADY_CURRENT, INVALID_CONTEXT)
  MAP (CUDA_ERROR_MAP_FAILED, DRIVER)
  MAP (CUDA_ERROR_UNMAP_FAILED, DRIVER)
  MAP (CUDA_ERROR_ARRAY_IS_MAPPED, INVALID_STATE)
  MAP (CUDA_ERROR_ALREADY_MAPPED, INVALID_STATE)
  MAP (CUDA_ERROR_NO_BINARY_FOR_GPU, INVALID_IMAGE)
  MAP (CUDA_ERROR_ALREADY_ACQUIRED, INVALID_STATE)
  MAP (CUDA_ERROR_NOT_MAPPED, INVALID_STATE)
  MAP (CUDA_ERROR_NOT_MAPPED_AS_ARRAY, INVALID_STATE)
  MAP (CUDA_ERROR_NOT_MAPPED_AS_POINTER, INVALID_STATE)
  MAP (CUDA_ERROR_ECC_UNCORRECTABLE, LAUNCH_FAILED)
  MAP (CUDA_ERROR_UNSUPPORTED_LIMIT, NOT_SUPPORTED)
  MAP (CUDA_ERROR_CONTEXT_ALREADY_IN_USE, INVALID_CONTEXT)
  MAP (CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, PEER_ACCESS)
  MAP (CUDA_ERROR_INVALID_PTX, INVALID_IMAGE)
  MAP (CUDA_ERROR_INVALID_GRAPHICS_CONTEXT, INVALID_CONTEXT)
  MAP (CUDA_ERROR_NVLINK_UNCORRECTABLE, LAUNCH_FAILED)
  MAP (CUDA_ERROR_JIT_COMPILER_NOT_FOUND, NOT_AVAILABLE)
  MAP (CUDA_ERROR_UNSUPPORTED_PTX_VERSION, INVALID_IMAGE)
  MAP (CUDA_ERROR_JIT_COMPILATION_DISABLED, NOT_SUPPORTED)
  MAP (CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY, NOT_SUPPORTED)
  MAP (CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC, NOT_SUPPORTED)
  MAP (CUDA_ERROR_CONTAINED, LAUNCH_FAILED)
  MAP (CUDA_ERROR_INVALID_SOURCE, INVALID_IMAGE)
  MAP (CUDA_ERROR_FILE_NOT_FOUND, NOT_FOUND)
  MAP (CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND, NOT_FOUND)
  MAP (CUDA_ERROR_SHARED_OBJECT_INIT_FAILED, DRIVER)
  MAP (CUDA_ERROR_OPERATING_SYSTEM, DRIVER)
  MAP (CUDA_ERROR_INVALID_HANDLE, INVALID_ARGUMENT)
  MAP (CUDA_ERROR_ILLEGAL_STATE, INVALID_STATE)
  MAP (CUDA_ERROR_LOSSY_QUERY, NOT_SUPPORTED)
  MAP (CUDA_ERROR_NOT_FOUND, NOT_FOUND)
  MAP (CUDA_ERROR_NOT_READY, INVALID_STATE)
  MAP (CUDA_ERROR_ILLEGAL_ADDRESS, LAUNCH_FAILED)
  MAP (CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, INVALID_ARGUMENT)
  MAP (CUDA_ERROR_LAUNCH_TIMEOUT, LAUNCH_FAILED)
  MAP (CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING, INVALID_ARGUMENT)
  MAP (CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED, PEER_ACCESS)
  MAP (CUDA_ERROR_PEER_ACCESS_NOT_ENABLED, PEER_ACCESS)
  MAP (CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE, INVALID_CONTEXT)
  MAP (CUDA_ERROR_CONTEXT_IS_DESTROYED, INVALID_CONTEXT)
  MAP (CUDA_ERROR_ASSERT, LAUNCH_FAILED)
  MAP (CUDA_ERROR_TOO_MANY_PEERS, PEER_ACCESS)
  MAP (CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, INVALID_STATE)
  MAP (CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, INVALID_STATE)
  MAP (CUDA_ERROR_HARDWARE_STACK_ERROR, LAUNCH_FAILED)
  MAP (CUDA_ERROR_ILLEGAL_INSTRUCTION, LAUNCH_FAILED)
  MAP (CUDA_ERROR_MISALIGNED_ADDRESS, LAUNCH_FAILED)
  MAP (CUDA_ERROR_INVALID_ADDRESS_SPACE, LAUNCH_FAILED)
  MAP (CUDA_ERROR_INVALID_PC, LAUNCH_FAILED)
  MAP (CUDA_ERROR_LAUNCH_FAILED, LAUNCH_FAILED)
  MAP (CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, INVALID_ARGUMENT)
  MAP (CUDA_ERROR_TENSOR_MEMORY_LEAK, LAUNCH_FAILED)
  MAP (CUDA_ERROR_NOT_PERMITTED, NOT_SUPPORTED)
  MAP (CUDA_ERROR_NOT_SUPPORTED, NOT_SUPPORTED)
  MAP (CUDA_ERROR_SYSTEM_NOT_READY, NOT_AVAILABLE)
  MAP (CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, NOT_AVAILABLE)
  MAP (CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE, NOT_SUPPORTED)
  MAP (CUDA_ERROR_MPS_CONNECTION_FAILED, NOT_AVAILABLE)
  MAP (CUDA_ERROR_MPS_RPC_FAILURE, DRIVER)
  MAP (CUDA_ERROR_MPS_SERVER_NOT_READY, NOT_AVAILABLE)
  MAP (CUDA_ERROR_MPS_MAX_CLIENTS_REACHED, NOT_AVAILABLE)
  MAP (CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED, NOT_AVAILABLE)
  MAP (CUDA_ERROR_MPS_CLIENT_TERMINATED, LAUNCH_FAILED)
  MAP (CUDA_ERROR_CDP_NOT_SUPPORTED, NOT_SUPPORTED)
  MAP (CUDA_ERROR_CDP_VERSION_MISMATCH, NOT_SUPPORTED)
  MAP (CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, INVALID_STATE)
  MAP (CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, INVALID_STATE)
  MAP (CUDA_ERROR_STREAM_CAPTURE_MERGE, INVALID_STATE)
  MAP (CUDA_ERROR_STREAM_CAPTURE_UNMATCHED, INVALID_STATE)
  MAP (CUDA_ERROR_STREAM_CAPTURE_UNJOINED, INVALID_STATE)
  MAP (CUDA_ERROR_STREAM_CAPTURE_ISOLATION, INVALID_STATE)
  MAP (CUDA_ERROR_STREAM_CAPTURE_IMPLICIT, INVALID_STATE)
  MAP (CUDA_ERROR_CAPTURED_EVENT, INVALID_STATE)
  MAP (CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD, INVALID_STATE)
  MAP (CUDA_ERROR_TIMEOUT, DRIVER)
  MAP (CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE, INVALID_ARGUMENT)
  MAP (CUDA_ERROR_EXTERNAL_DEVICE, LAUNCH_FAILED)
  MAP (CUDA_ERROR_INVALID_CLUSTER_SIZE, INVALID_ARGUMENT)
  MAP (CUDA_ERROR_FUNCTION_NOT_LOADED, INVALID_STATE)
  MAP (CUDA_ERROR_INVALID_RESOURCE_TYPE, INVALID_ARGUMENT)
  MAP (CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION, INVALID_ARGUMENT)
  MAP (CUDA_ERROR_KEY_ROTATION, DRIVER)
  MAP (CUDA_ERROR_UNKNOWN, DRIVER)
#undef MAP
};

static const CugiResultMapping *
lookup (CUresult result)
{
  for (gsize i = 0; i < G_N_ELEMENTS (result_mappings); i++)
    if (result_mappings[i].result == result)
      return &result_mappings[i];
  return NULL;
}

gboolean
cugi_error_lookup_result (CUresult     result,
                          CugiError   *code,
                          const char **name)
{
  const CugiResultMapping *mapping = lookup (result);

  if (mapping == NULL)
    return FALSE;
  if (code != NULL)
    *code = mapping->code;
  if (name != NULL)
    *name = mapping->name;
  return TRUE;
}

CugiError
cugi_error_code_from_result (CUresult result)
{
  const CugiResultMapping *mapping = lookup (result);

  return mapping != NULL ? mapping->code : CUGI_ERROR_DRIVER;
}

void
cugi_set_error_from_result (GError    **error,
                            CUresult    result,
                            const char *operation)
{
  const CugiResultMapping *mapping = lookup (result);
  const char *name = cugi_loader_result_name (result);
  const char *text = cugi_loader_result_string (result);
  CugiError code = cugi_error_code_from_result (result);
  g_autofree char *unknown_name = NULL;

  if (name == NULL && mapping != NULL)
    name = mapping->name;
  /* The driver describes neither the codes of newer drivers nor any code
   * while it is not loaded: the number and the name, where cugi knows it,
   * are what is left to go by. */
  if (text == NULL && name != NULL)
    /* TRANSLATORS: "%1$s failed: %2$s (CUDA error %3$d)": the CUDA
     * operation, the error's name, e.g. CUDA_ERROR_OUT_OF_MEMORY, and its
     * number */
    g_set_error (error, CUGI_ERROR, code, _("%s failed: %s (CUDA error %d)"), operation, name, (int) result);
  else if (text == NULL)
    g_set_error (error, CUGI_ERROR, code, _("%s failed: CUDA error %d, which neither cugi nor the driver knows"),
                 operation, (int) result);
  else
    /* TRANSLATORS: "%1$s failed: %2$s (%3$s)": the CUDA operation, the
     * driver's description of the error, and its name, e.g.
     * CUDA_ERROR_OUT_OF_MEMORY */
    g_set_error (error, CUGI_ERROR, code, _("%s failed: %s (%s)"), operation, text,
                 name != NULL ? name : (unknown_name = g_strdup_printf ("CUresult %d", (int) result)));
}

gboolean
cugi_check_result (CUresult    result,
                   const char *operation,
                   GError    **error)
{
  if (G_LIKELY (result == CUDA_SUCCESS))
    return TRUE;
  cugi_set_error_from_result (error, result, operation);
  return FALSE;
}

void
cugi_set_nvrtc_error (GError    **error,
                      nvrtcResult result,
                      const char *operation)
{
  const char *text = cugi_nvrtc.nvrtcGetErrorString != NULL ? cugi_nvrtc.nvrtcGetErrorString (result) : NULL;
  CugiError code;

  switch (result)
    {
    case NVRTC_ERROR_OUT_OF_MEMORY:
      code = CUGI_ERROR_OUT_OF_MEMORY;
      break;
    case NVRTC_ERROR_INVALID_INPUT:
    case NVRTC_ERROR_INVALID_PROGRAM:
    case NVRTC_ERROR_INVALID_OPTION:
    case NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION:
    case NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION:
    case NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID:
      code = CUGI_ERROR_INVALID_ARGUMENT;
      break;
    case NVRTC_ERROR_COMPILATION:
      code = CUGI_ERROR_COMPILE;
      break;
    default:
      code = CUGI_ERROR_FAILED;
      break;
    }
  g_set_error (error, CUGI_ERROR, code, _("%s failed: %s (NVRTC error %d)"),
               operation, text != NULL ? text : "?", (int) result);
}
