/* cugi-device.c: placeholder until the class lands */
#include "config.h"

#include "cugi-private.h"

struct _CugiDevice
{
  GObject parent_instance;
};

G_DEFINE_FINAL_TYPE (CugiDevice, cugi_device, G_TYPE_OBJECT)

static void
cugi_device_class_init (CugiDeviceClass *klass)
{
}

static void
cugi_device_init (CugiDevice *self)
{
}
