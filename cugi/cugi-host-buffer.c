/* cugi-host-buffer.c: placeholder until the class lands */
#include "config.h"

#include "cugi-private.h"

struct _CugiHostBuffer
{
  GObject parent_instance;
};

G_DEFINE_FINAL_TYPE (CugiHostBuffer, cugi_host_buffer, G_TYPE_OBJECT)

static void
cugi_host_buffer_class_init (CugiHostBufferClass *klass)
{
}

static void
cugi_host_buffer_init (CugiHostBuffer *self)
{
}
