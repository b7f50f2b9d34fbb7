/* cugi-utils.c: small helpers shared by the classes */
#include "config.h"

#include "cugi-private.h"

GMainContext *
cugi_capture_main_context (void)
{
  return g_main_context_ref_thread_default ();
}

/* The epoch of device addresses: memory freed and contexts reset move it on,
 * and what caches addresses (kernel arguments) compares it. It lives in the
 * lowest layer because both a context (devices layer) and memory (a layer
 * above) move it. gsize, so that it never wraps around in practice. */
static gsize address_epoch = 1;

CUGI_LAUNCH_PATH gsize
cugi_memory_get_address_epoch (void)
{
  return g_atomic_pointer_get (&address_epoch);
}

void
cugi_memory_invalidate_addresses (void)
{
  g_atomic_pointer_add (&address_epoch, 1);
}
