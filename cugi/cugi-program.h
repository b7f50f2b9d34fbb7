/* cugi-program.h: CUDA C++ source compiled at run time by NVRTC */
#pragma once

#if !defined(__CUGI_INSIDE__) && !defined(CUGI_COMPILATION)
#error "Only <cugi/cugi.h> can be included directly."
#endif

#include <gio/gio.h>
#include "cugi-version.h"
#include "cugi-types.h"

G_BEGIN_DECLS

#define CUGI_TYPE_PROGRAM (cugi_program_get_type ())
CUGI_AVAILABLE_IN_0_1
G_DECLARE_FINAL_TYPE (CugiProgram, cugi_program, CUGI, PROGRAM, GObject)

CUGI_AVAILABLE_IN_0_1
CugiProgram  *cugi_program_new                   (const gchar         *source,
                                                  const gchar         *name);

CUGI_AVAILABLE_IN_0_1
const gchar  *cugi_program_get_source            (CugiProgram         *self);
CUGI_AVAILABLE_IN_0_1
const gchar  *cugi_program_get_name              (CugiProgram         *self);
CUGI_AVAILABLE_IN_0_1
void          cugi_program_add_header            (CugiProgram         *self,
                                                  const gchar         *include_name,
                                                  const gchar         *source);
CUGI_AVAILABLE_IN_0_1
gboolean      cugi_program_add_name_expression   (CugiProgram         *self,
                                                  const gchar         *expression,
                                                  GError             **error);

CUGI_AVAILABLE_IN_0_1
gboolean      cugi_program_compile               (CugiProgram         *self,
                                                  const gchar * const *options,
                                                  GError             **error);
CUGI_AVAILABLE_IN_0_1
void          cugi_program_compile_async         (CugiProgram         *self,
                                                  const gchar * const *options,
                                                  GCancellable        *cancellable,
                                                  GAsyncReadyCallback  callback,
                                                  gpointer             user_data);
CUGI_AVAILABLE_IN_0_1
gboolean      cugi_program_compile_finish        (CugiProgram         *self,
                                                  GAsyncResult        *result,
                                                  GError             **error);
CUGI_AVAILABLE_IN_0_1
gboolean      cugi_program_compile_for_device    (CugiProgram         *self,
                                                  CugiDevice          *device,
                                                  const gchar * const *options,
                                                  GError             **error);
CUGI_AVAILABLE_IN_0_1
void          cugi_program_compile_for_device_async (CugiProgram         *self,
                                                     CugiDevice          *device,
                                                     const gchar * const *options,
                                                     GCancellable        *cancellable,
                                                     GAsyncReadyCallback  callback,
                                                     gpointer             user_data);
CUGI_AVAILABLE_IN_0_1
gboolean      cugi_program_compile_for_device_finish (CugiProgram   *self,
                                                      GAsyncResult  *result,
                                                      GError       **error);
CUGI_AVAILABLE_IN_0_1
gboolean      cugi_program_compile_for_arch      (CugiProgram         *self,
                                                  gint                 major,
                                                  gint                 minor,
                                                  const gchar * const *options,
                                                  GError             **error);

CUGI_AVAILABLE_IN_0_1
gboolean      cugi_program_get_compiled          (CugiProgram         *self);
CUGI_AVAILABLE_IN_0_1
const gchar  *cugi_program_get_log               (CugiProgram         *self);
CUGI_AVAILABLE_IN_0_1
GPtrArray    *cugi_program_get_diagnostics       (CugiProgram         *self);
CUGI_AVAILABLE_IN_0_1
GBytes       *cugi_program_get_ptx               (CugiProgram         *self);
CUGI_AVAILABLE_IN_0_1
gchar        *cugi_program_get_ptx_string        (CugiProgram         *self);
CUGI_AVAILABLE_IN_0_1
GBytes       *cugi_program_get_cubin             (CugiProgram         *self);
CUGI_AVAILABLE_IN_0_1
const gchar  *cugi_program_get_lowered_name      (CugiProgram         *self,
                                                  const gchar         *expression,
                                                  GError             **error);

G_END_DECLS
