/* cugi-diagnostic.h: NVRTC's errors and warnings, one by one */
#pragma once

#if !defined(__CUGI_INSIDE__) && !defined(CUGI_COMPILATION)
#error "Only <cugi/cugi.h> can be included directly."
#endif

#include <glib-object.h>
#include "cugi-version.h"
#include "cugi-types.h"

G_BEGIN_DECLS

/**
 * CugiDiagnosticSeverity:
 * @CUGI_DIAGNOSTIC_SEVERITY_NOTE: more about the diagnostic before it,
 *   pointing at another place (such as a candidate of a call that matches
 *   no overload)
 * @CUGI_DIAGNOSTIC_SEVERITY_REMARK: a remark, which NVRTC makes only when
 *   asked to, or information from the PTX assembler (`ptxas info`, with
 *   `--ptxas-options=-v`)
 * @CUGI_DIAGNOSTIC_SEVERITY_WARNING: a warning: the program still compiles
 * @CUGI_DIAGNOSTIC_SEVERITY_ERROR: an error (a catastrophic one and an
 *   error in the options included): the program does not compile
 *
 * How serious a #CugiDiagnostic is, least serious first.
 *
 * Since: 0.1
 */
typedef enum
{
  CUGI_DIAGNOSTIC_SEVERITY_NOTE,
  CUGI_DIAGNOSTIC_SEVERITY_REMARK,
  CUGI_DIAGNOSTIC_SEVERITY_WARNING,
  CUGI_DIAGNOSTIC_SEVERITY_ERROR,
} CugiDiagnosticSeverity;

typedef struct _CugiDiagnostic CugiDiagnostic;

#define CUGI_TYPE_DIAGNOSTIC (cugi_diagnostic_get_type ())

CUGI_AVAILABLE_IN_0_1
GType                  cugi_diagnostic_get_type     (void) G_GNUC_CONST;

CUGI_AVAILABLE_IN_0_1
GPtrArray             *cugi_diagnostic_parse_log    (const gchar    *log);

CUGI_AVAILABLE_IN_0_1
CugiDiagnostic        *cugi_diagnostic_ref          (CugiDiagnostic *self);
CUGI_AVAILABLE_IN_0_1
void                   cugi_diagnostic_unref        (CugiDiagnostic *self);

CUGI_AVAILABLE_IN_0_1
CugiDiagnosticSeverity cugi_diagnostic_get_severity (CugiDiagnostic *self);
CUGI_AVAILABLE_IN_0_1
const gchar           *cugi_diagnostic_get_file     (CugiDiagnostic *self);
CUGI_AVAILABLE_IN_0_1
guint                  cugi_diagnostic_get_line     (CugiDiagnostic *self);
CUGI_AVAILABLE_IN_0_1
guint                  cugi_diagnostic_get_column   (CugiDiagnostic *self);
CUGI_AVAILABLE_IN_0_1
const gchar           *cugi_diagnostic_get_code     (CugiDiagnostic *self);
CUGI_AVAILABLE_IN_0_1
const gchar           *cugi_diagnostic_get_message  (CugiDiagnostic *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CugiDiagnostic, cugi_diagnostic_unref)

G_END_DECLS
