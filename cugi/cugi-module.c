/* cugi-module.c: placeholder until the class lands */
#include "config.h"

#include "cugi-private.h"

struct _CugiModule
{
  GObject parent_instance;
};

G_DEFINE_FINAL_TYPE (CugiModule, cugi_module, G_TYPE_OBJECT)

static void
cugi_module_class_init (CugiModuleClass *klass)
{
}

static void
cugi_module_init (CugiModule *self)
{
}
