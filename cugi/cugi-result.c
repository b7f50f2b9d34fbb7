/* cugi-result.c: GErrors for failed driver and NVRTC calls, in those
 * libraries' own words where they are loaded.
 *
 * Apart from cugi-error.c, which the loader's own errors use: the loader
 * sits between the error domain below it and these messages above it. */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "cugi-private.h"

void
cugi_set_error_from_result (GError    **error,
                            CUresult    result,
                            const char *operation)
{
  const char *name = cugi_loader_result_name (result);
  const char *text = cugi_loader_result_string (result);
  CugiError code = cugi_error_code_from_result (result);
  g_autofree char *unknown_name = NULL;

  if (name == NULL)
    cugi_error_lookup_result (result, NULL, &name);
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
