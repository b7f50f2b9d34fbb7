/* cugi-event.c: placeholder until the class lands */
#include "config.h"

#include "cugi-private.h"

struct _CugiEvent
{
  GObject parent_instance;
};

G_DEFINE_FINAL_TYPE (CugiEvent, cugi_event, G_TYPE_OBJECT)

static void
cugi_event_class_init (CugiEventClass *klass)
{
}

static void
cugi_event_init (CugiEvent *self)
{
}
