/* cugi-error.h: the CUGI_ERROR domain */
#pragma once

#if !defined(__CUGI_INSIDE__) && !defined(CUGI_COMPILATION)
#error "Only <cugi/cugi.h> can be included directly."
#endif

#include <glib.h>
#include "cugi-version.h"

G_BEGIN_DECLS

/**
 * CUGI_ERROR:
 *
 * The error domain of cugi. Errors in it carry a #CugiError code; errors that
 * come from the CUDA driver or NVRTC name the operation, the CUDA error's name
 * and its description in their message.
 *
 * Since: 0.1
 */
#define CUGI_ERROR (cugi_error_quark ())

/**
 * CugiError:
 * @CUGI_ERROR_FAILED: a failure with no more specific code
 * @CUGI_ERROR_NOT_AVAILABLE: no usable CUDA driver, device or NVRTC on this machine
 * @CUGI_ERROR_INVALID_ARGUMENT: an argument is out of range or of the wrong kind
 * @CUGI_ERROR_OUT_OF_MEMORY: device or pinned host memory is exhausted
 * @CUGI_ERROR_LAUNCH_FAILED: a kernel faulted or could not run; a fault such
 *   as an illegal address lasts for the life of the process (see
 *   cugi_context_reset() for the recovery)
 * @CUGI_ERROR_COMPILE: NVRTC rejected the source; the message holds its log
 * @CUGI_ERROR_DRIVER: any other error reported by the CUDA driver
 * @CUGI_ERROR_INVALID_STATE: the object cannot do this now, for example a
 *   buffer used after cugi_buffer_free(), or an event that was never recorded
 * @CUGI_ERROR_NOT_SUPPORTED: the device, driver or configuration does not
 *   support the operation
 * @CUGI_ERROR_NOT_FOUND: a named kernel, global or device does not exist
 * @CUGI_ERROR_INVALID_CONTEXT: the context is destroyed, not current where
 *   it must be, or does not match
 * @CUGI_ERROR_PEER_ACCESS: peer access between two devices is unavailable,
 *   already enabled or not enabled
 * @CUGI_ERROR_INVALID_IMAGE: PTX, CUBIN or fatbinary data could not be loaded
 * @CUGI_ERROR_TIMED_OUT: what cugi waited for outside the GPU, such as
 *   another process's answer (cugi_rendezvous_fetch()), did not come within
 *   the time given
 *
 * Error codes in the %CUGI_ERROR domain. Every `CUresult` of the driver maps
 * to one of them; %CUGI_ERROR_TIMED_OUT is cugi's own (the driver's
 * `CUDA_ERROR_TIMEOUT` is a %CUGI_ERROR_DRIVER).
 *
 * Since: 0.1
 */
typedef enum {
  CUGI_ERROR_FAILED,
  CUGI_ERROR_NOT_AVAILABLE,
  CUGI_ERROR_INVALID_ARGUMENT,
  CUGI_ERROR_OUT_OF_MEMORY,
  CUGI_ERROR_LAUNCH_FAILED,
  CUGI_ERROR_COMPILE,
  CUGI_ERROR_DRIVER,
  CUGI_ERROR_INVALID_STATE,
  CUGI_ERROR_NOT_SUPPORTED,
  CUGI_ERROR_NOT_FOUND,
  CUGI_ERROR_INVALID_CONTEXT,
  CUGI_ERROR_PEER_ACCESS,
  CUGI_ERROR_INVALID_IMAGE,
  CUGI_ERROR_TIMED_OUT,
} CugiError;

CUGI_AVAILABLE_IN_0_1
GQuark cugi_error_quark (void);

G_END_DECLS
