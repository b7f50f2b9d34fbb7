/* cugi-graph.c: placeholder until the class lands */
#include "config.h"

#include "cugi-private.h"

struct _CugiGraph
{
  GObject parent_instance;
};

G_DEFINE_FINAL_TYPE (CugiGraph, cugi_graph, G_TYPE_OBJECT)

static void
cugi_graph_class_init (CugiGraphClass *klass)
{
}

static void
cugi_graph_init (CugiGraph *self)
{
}
