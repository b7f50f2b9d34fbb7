/* cugi-kernel.c: placeholder until the class lands */
#include "config.h"

#include "cugi-private.h"

struct _CugiKernel
{
  GObject parent_instance;
};

G_DEFINE_FINAL_TYPE (CugiKernel, cugi_kernel, G_TYPE_OBJECT)

static void
cugi_kernel_class_init (CugiKernelClass *klass)
{
}

static void
cugi_kernel_init (CugiKernel *self)
{
}
