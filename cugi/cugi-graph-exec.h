/* cugi-graph-exec.h */
#pragma once

#if !defined(__CUGI_INSIDE__) && !defined(CUGI_COMPILATION)
#error "Only <cugi/cugi.h> can be included directly."
#endif

#include <gio/gio.h>
#include "cugi-version.h"
#include "cugi-types.h"

G_BEGIN_DECLS

#define CUGI_TYPE_GRAPH_EXEC (cugi_graph_exec_get_type ())
CUGI_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (CugiGraphExec, cugi_graph_exec, CUGI, GRAPH_EXEC, GObject)

G_END_DECLS
