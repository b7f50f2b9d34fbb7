/* cugi-stream.c: placeholder until the class lands */
#include "config.h"

#include "cugi-private.h"

struct _CugiStream
{
  GObject parent_instance;
};

G_DEFINE_FINAL_TYPE (CugiStream, cugi_stream, G_TYPE_OBJECT)

static void
cugi_stream_class_init (CugiStreamClass *klass)
{
}

static void
cugi_stream_init (CugiStream *self)
{
}
