/* cugi-utils.c: small helpers shared by the classes */
#include "config.h"

#include "cugi-private.h"

GMainContext *
cugi_capture_main_context (void)
{
  return g_main_context_ref_thread_default ();
}
