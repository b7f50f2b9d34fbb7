/* cugi-module.h: PTX, CUBIN and fatbinaries loaded into a context */
#pragma once

#if !defined(__CUGI_INSIDE__) && !defined(CUGI_COMPILATION)
#error "Only <cugi/cugi.h> can be included directly."
#endif

#include <gio/gio.h>
#include "cugi-version.h"
#include "cugi-types.h"

G_BEGIN_DECLS

#define CUGI_TYPE_MODULE (cugi_module_get_type ())
CUGI_AVAILABLE_IN_0_1
G_DECLARE_FINAL_TYPE (CugiModule, cugi_module, CUGI, MODULE, GObject)

CUGI_AVAILABLE_IN_0_1
CugiModule  *cugi_module_new_from_data    (CugiContext  *context,
                                           GBytes       *image,
                                           GError      **error);
CUGI_AVAILABLE_IN_0_1
CugiModule  *cugi_module_new_from_data_with_options (CugiContext    *context,
                                                     GBytes         *image,
                                                     CugiJitOptions *options,
                                                     GError        **error);
CUGI_AVAILABLE_IN_0_1
CugiModule  *cugi_module_new_from_file    (CugiContext  *context,
                                           const gchar  *path,
                                           GError      **error);
CUGI_AVAILABLE_IN_0_1
CugiModule  *cugi_module_new_from_program (CugiContext  *context,
                                           CugiProgram  *program,
                                           GError      **error);
CUGI_AVAILABLE_IN_0_1
CugiModule  *cugi_module_new_from_program_with_options (CugiContext    *context,
                                                        CugiProgram    *program,
                                                        CugiJitOptions *options,
                                                        GError        **error);

CUGI_AVAILABLE_IN_0_1
CugiContext *cugi_module_get_context      (CugiModule   *self);
CUGI_AVAILABLE_IN_0_1
const gchar *cugi_module_get_info_log     (CugiModule   *self);
CUGI_AVAILABLE_IN_0_1
CugiKernel  *cugi_module_get_kernel       (CugiModule   *self,
                                           const gchar  *name,
                                           GError      **error);
CUGI_AVAILABLE_IN_0_1
CugiBuffer  *cugi_module_get_global       (CugiModule   *self,
                                           const gchar  *name,
                                           GError      **error);

G_END_DECLS
