/* cugi-external-semaphore.h: semaphores of other APIs (Vulkan) imported
 * into CUDA, signalled and waited on in stream order */
#pragma once

#if !defined(__CUGI_INSIDE__) && !defined(CUGI_COMPILATION)
#error "Only <cugi/cugi.h> can be included directly."
#endif

#include <gio/gio.h>
#include "cugi-version.h"
#include "cugi-types.h"

G_BEGIN_DECLS

/**
 * CugiExternalSemaphoreType:
 * @CUGI_EXTERNAL_SEMAPHORE_TYPE_OPAQUE_FD: a binary semaphore as an opaque
 *   file descriptor (Vulkan's `VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT`)
 * @CUGI_EXTERNAL_SEMAPHORE_TYPE_TIMELINE_FD: a timeline semaphore as an
 *   opaque file descriptor (Vulkan's `VK_SEMAPHORE_TYPE_TIMELINE` exported
 *   with `VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT`), whose signals
 *   and waits carry values
 *
 * What the file descriptor given to cugi_external_semaphore_new_from_fd()
 * is, as `CUexternalSemaphoreHandleType`. CUDA imports no sync fds
 * (`VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_SYNC_FD_BIT`): export such semaphores
 * as opaque file descriptors.
 *
 * Since: 0.1
 */
typedef enum
{
  CUGI_EXTERNAL_SEMAPHORE_TYPE_OPAQUE_FD = 1,
  CUGI_EXTERNAL_SEMAPHORE_TYPE_TIMELINE_FD = 9,
} CugiExternalSemaphoreType;

#define CUGI_TYPE_EXTERNAL_SEMAPHORE (cugi_external_semaphore_get_type ())
CUGI_AVAILABLE_IN_0_1
G_DECLARE_FINAL_TYPE (CugiExternalSemaphore, cugi_external_semaphore, CUGI, EXTERNAL_SEMAPHORE, GObject)

CUGI_AVAILABLE_IN_0_1
CugiExternalSemaphore *cugi_external_semaphore_new_from_fd (CugiContext               *context,
                                                            CugiExternalSemaphoreType  type,
                                                            gint                       fd,
                                                            GError                   **error);

CUGI_AVAILABLE_IN_0_1
gboolean     cugi_external_semaphore_signal      (CugiExternalSemaphore  *self,
                                                  guint64                 value,
                                                  CugiStream             *stream,
                                                  GError                **error);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_external_semaphore_wait        (CugiExternalSemaphore  *self,
                                                  guint64                 value,
                                                  CugiStream             *stream,
                                                  GError                **error);

CUGI_AVAILABLE_IN_0_1
CugiContext *cugi_external_semaphore_get_context (CugiExternalSemaphore  *self);
CUGI_AVAILABLE_IN_0_1
CugiExternalSemaphoreType cugi_external_semaphore_get_semaphore_type (CugiExternalSemaphore *self);

G_END_DECLS
