/* cugi-context.c: placeholder until the class lands */
#include "config.h"

#include "cugi-private.h"

struct _CugiContext
{
  GObject parent_instance;
};

G_DEFINE_FINAL_TYPE (CugiContext, cugi_context, G_TYPE_OBJECT)

static void
cugi_context_class_init (CugiContextClass *klass)
{
}

static void
cugi_context_init (CugiContext *self)
{
}
