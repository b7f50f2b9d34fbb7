/* cugi-memory-pool.c: placeholder until the class lands */
#include "config.h"

#include "cugi-private.h"

struct _CugiMemoryPool
{
  GObject parent_instance;
};

G_DEFINE_FINAL_TYPE (CugiMemoryPool, cugi_memory_pool, G_TYPE_OBJECT)

static void
cugi_memory_pool_class_init (CugiMemoryPoolClass *klass)
{
}

static void
cugi_memory_pool_init (CugiMemoryPool *self)
{
}
