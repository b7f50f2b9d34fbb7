/* cugi-graph-exec.c: placeholder until the class lands */
#include "config.h"

#include "cugi-private.h"

struct _CugiGraphExec
{
  GObject parent_instance;
};

G_DEFINE_FINAL_TYPE (CugiGraphExec, cugi_graph_exec, G_TYPE_OBJECT)

static void
cugi_graph_exec_class_init (CugiGraphExecClass *klass)
{
}

static void
cugi_graph_exec_init (CugiGraphExec *self)
{
}
