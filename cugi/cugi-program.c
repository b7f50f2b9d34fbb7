/* cugi-program.c: placeholder until the class lands */
#include "config.h"

#include "cugi-private.h"

struct _CugiProgram
{
  GObject parent_instance;
};

G_DEFINE_FINAL_TYPE (CugiProgram, cugi_program, G_TYPE_OBJECT)

static void
cugi_program_class_init (CugiProgramClass *klass)
{
}

static void
cugi_program_init (CugiProgram *self)
{
}
