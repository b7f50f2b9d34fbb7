/* cugi-host-memory-pool.c: placeholder until the class lands */
#include "config.h"

#include "cugi-private.h"

struct _CugiHostMemoryPool
{
  GObject parent_instance;
};

G_DEFINE_FINAL_TYPE (CugiHostMemoryPool, cugi_host_memory_pool, G_TYPE_OBJECT)

static void
cugi_host_memory_pool_class_init (CugiHostMemoryPoolClass *klass)
{
}

static void
cugi_host_memory_pool_init (CugiHostMemoryPool *self)
{
}
