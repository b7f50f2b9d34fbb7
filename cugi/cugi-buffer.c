/* cugi-buffer.c: placeholder until the class lands */
#include "config.h"

#include "cugi-private.h"

struct _CugiBuffer
{
  GObject parent_instance;
};

G_DEFINE_FINAL_TYPE (CugiBuffer, cugi_buffer, G_TYPE_OBJECT)

static void
cugi_buffer_class_init (CugiBufferClass *klass)
{
}

static void
cugi_buffer_init (CugiBuffer *self)
{
}
