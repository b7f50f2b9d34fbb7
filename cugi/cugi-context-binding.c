/* cugi-context-binding.c: what ties an object to its context (see
 * CugiContextBinding in cugi-context-private.h): the one check that a
 * reset left the object usable, and the one comparison of contexts. */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "cugi-context-private.h"
#include "cugi-private.h"

void
cugi_context_binding_init (CugiContextBinding      *self,
                           CugiContext             *context,
                           CugiContextBindingFlags  flags)
{
  self->context = (flags & CUGI_CONTEXT_BINDING_UNOWNED) != 0 ? context : g_object_ref (context);
  self->generation = cugi_context_get_generation (context);
  self->flags = flags;
}

void
cugi_context_binding_clear (CugiContextBinding *self)
{
  if ((self->flags & CUGI_CONTEXT_BINDING_UNOWNED) == 0)
    g_clear_object (&self->context);
  *self = (CugiContextBinding) { NULL, 0, CUGI_CONTEXT_BINDING_NONE };
}

/* Out of line: the common case, no reset, stays compact. */
static G_GNUC_NO_INLINE gboolean
reset_error (GError     **error,
             const char  *reset_message)
{
  g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_CONTEXT, _(reset_message));
  return FALSE;
}

/* Out of line: launch paths ask only when the address epoch changed since
 * the binding was last found current, after a reset or a free. */
G_GNUC_NO_INLINE gboolean
cugi_context_binding_recheck (const CugiContextBinding *self,
                              gsize                    *current_epoch,
                              gsize                     epoch)
{
  if (!cugi_context_binding_is_current (self))
    return FALSE;
  g_atomic_pointer_set (current_epoch, epoch);
  return TRUE;
}

CUGI_LAUNCH_PATH gboolean
cugi_context_binding_check (const CugiContextBinding *self,
                            const char               *reset_message,
                            GError                  **error)
{
  return G_LIKELY (cugi_context_binding_is_current (self)) || reset_error (error, reset_message);
}

CUGI_LAUNCH_PATH gboolean
cugi_context_binding_enter (const CugiContextBinding *self,
                            CugiContextScope         *scope,
                            const char               *reset_message,
                            GError                  **error)
{
  return cugi_context_binding_check (self, reset_message, error) &&
         cugi_context_enter (self->context, scope, error);
}

CUGI_LAUNCH_PATH gboolean
cugi_context_equal (CugiContext *a,
                    CugiContext *b)
{
  CUcontext handle;

  /* The common case, one wrapper, before the CUDA contexts. */
  if (a == b)
    return a != NULL;
  if (a == NULL || b == NULL)
    return FALSE;
  handle = cugi_context_get_handle (a);
  return handle != NULL && handle == cugi_context_get_handle (b);
}

gboolean
cugi_context_binding_check_same_context (const CugiContextBinding *self,
                                         CugiContext              *other,
                                         const char               *mismatch_message,
                                         GError                  **error)
{
  if (G_LIKELY (cugi_context_equal (self->context, other)))
    return TRUE;
  g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_CONTEXT, _(mismatch_message));
  return FALSE;
}
