/* cugi-jit-options.h: how the driver's JIT compiler and linker treat device code */
#pragma once

#if !defined(__CUGI_INSIDE__) && !defined(CUGI_COMPILATION)
#error "Only <cugi/cugi.h> can be included directly."
#endif

#include <glib-object.h>
#include "cugi-version.h"
#include "cugi-types.h"

G_BEGIN_DECLS

/**
 * CugiJitFallback:
 * @CUGI_JIT_FALLBACK_PREFER_PTX: where no binary matches the device exactly,
 *   compile the PTX (`CU_PREFER_PTX`, the driver's default)
 * @CUGI_JIT_FALLBACK_PREFER_BINARY: where no binary matches the device
 *   exactly, take a compatible binary over compiling the PTX
 *   (`CU_PREFER_BINARY`)
 *
 * What the driver loads from a fatbinary that has no code for the device's
 * exact architecture (`CU_JIT_FALLBACK_STRATEGY`).
 *
 * Since: 0.1
 */
typedef enum
{
  CUGI_JIT_FALLBACK_PREFER_PTX = 0,
  CUGI_JIT_FALLBACK_PREFER_BINARY = 1,
} CugiJitFallback;

#define CUGI_TYPE_JIT_OPTIONS (cugi_jit_options_get_type ())

CUGI_AVAILABLE_IN_0_1
GType           cugi_jit_options_get_type                (void) G_GNUC_CONST;

CUGI_AVAILABLE_IN_0_1
CugiJitOptions *cugi_jit_options_new                     (void);
CUGI_AVAILABLE_IN_0_1
CugiJitOptions *cugi_jit_options_ref                     (CugiJitOptions  *self);
CUGI_AVAILABLE_IN_0_1
void            cugi_jit_options_unref                   (CugiJitOptions  *self);

CUGI_AVAILABLE_IN_0_1
void            cugi_jit_options_set_max_registers       (CugiJitOptions  *self,
                                                          guint            max_registers);
CUGI_AVAILABLE_IN_0_1
void            cugi_jit_options_set_optimization_level  (CugiJitOptions  *self,
                                                          guint            level);
CUGI_AVAILABLE_IN_0_1
void            cugi_jit_options_set_target              (CugiJitOptions  *self,
                                                          guint            major,
                                                          guint            minor);
CUGI_AVAILABLE_IN_0_1
void            cugi_jit_options_set_fallback            (CugiJitOptions  *self,
                                                          CugiJitFallback  fallback);
CUGI_AVAILABLE_IN_0_1
void            cugi_jit_options_set_generate_debug_info (CugiJitOptions  *self,
                                                          gboolean         generate);
CUGI_AVAILABLE_IN_0_1
void            cugi_jit_options_set_generate_line_info  (CugiJitOptions  *self,
                                                          gboolean         generate);
CUGI_AVAILABLE_IN_0_1
void            cugi_jit_options_set_verbose             (CugiJitOptions  *self,
                                                          gboolean         verbose);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CugiJitOptions, cugi_jit_options_unref)

G_END_DECLS
