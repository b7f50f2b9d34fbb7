/* cugi-linker.h: device code from several inputs linked into one module */
#pragma once

#if !defined(__CUGI_INSIDE__) && !defined(CUGI_COMPILATION)
#error "Only <cugi/cugi.h> can be included directly."
#endif

#include <gio/gio.h>
#include "cugi-version.h"
#include "cugi-types.h"

G_BEGIN_DECLS

/**
 * CugiLinkInput:
 * @CUGI_LINK_INPUT_CUBIN: a CUBIN, relocatable (`-rdc=true`) or not
 *   (`CU_JIT_INPUT_CUBIN`)
 * @CUGI_LINK_INPUT_PTX: PTX text, which the driver compiles first
 *   (`CU_JIT_INPUT_PTX`)
 * @CUGI_LINK_INPUT_FATBINARY: a fatbinary, from which the driver takes the
 *   code for the device (`CU_JIT_INPUT_FATBINARY`)
 * @CUGI_LINK_INPUT_OBJECT: a host object file with embedded device code, as
 *   `nvcc -rdc=true -c` makes (`CU_JIT_INPUT_OBJECT`)
 * @CUGI_LINK_INPUT_LIBRARY: an archive of such objects, such as
 *   `libcudadevrt.a` (`CU_JIT_INPUT_LIBRARY`)
 *
 * What an input of a #CugiLinker is.
 *
 * Since: 0.1
 */
typedef enum
{
  CUGI_LINK_INPUT_CUBIN = 0,
  CUGI_LINK_INPUT_PTX = 1,
  CUGI_LINK_INPUT_FATBINARY = 2,
  CUGI_LINK_INPUT_OBJECT = 3,
  CUGI_LINK_INPUT_LIBRARY = 4,
} CugiLinkInput;

#define CUGI_TYPE_LINKER (cugi_linker_get_type ())
CUGI_AVAILABLE_IN_0_1
G_DECLARE_FINAL_TYPE (CugiLinker, cugi_linker, CUGI, LINKER, GObject)

CUGI_AVAILABLE_IN_0_1
CugiLinker  *cugi_linker_new                (CugiContext     *context,
                                             CugiJitOptions  *options,
                                             GError         **error);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_linker_add_data           (CugiLinker      *self,
                                             CugiLinkInput    type,
                                             GBytes          *data,
                                             const gchar     *name,
                                             GError         **error);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_linker_add_file           (CugiLinker      *self,
                                             CugiLinkInput    type,
                                             const gchar     *path,
                                             GError         **error);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_linker_add_program        (CugiLinker      *self,
                                             CugiProgram     *program,
                                             GError         **error);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_linker_add_device_runtime (CugiLinker      *self,
                                             GError         **error);
CUGI_AVAILABLE_IN_0_1
CugiModule  *cugi_linker_complete           (CugiLinker      *self,
                                             GError         **error);

CUGI_AVAILABLE_IN_0_1
CugiContext *cugi_linker_get_context        (CugiLinker      *self);
CUGI_AVAILABLE_IN_0_1
const gchar *cugi_linker_get_info_log       (CugiLinker      *self);

G_END_DECLS
