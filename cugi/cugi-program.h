/* cugi-program.h */
#pragma once

#if !defined(__CUGI_INSIDE__) && !defined(CUGI_COMPILATION)
#error "Only <cugi/cugi.h> can be included directly."
#endif

#include <gio/gio.h>
#include "cugi-version.h"
#include "cugi-types.h"

G_BEGIN_DECLS

#define CUGI_TYPE_PROGRAM (cugi_program_get_type ())
CUGI_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (CugiProgram, cugi_program, CUGI, PROGRAM, GObject)

G_END_DECLS
