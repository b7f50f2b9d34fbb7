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

static G_GNUC_NO_INLINE void
set_reset_error (GError     **error,
                 const char  *reset_format,
                 va_list      args)
{
  g_autofree char *message = g_strdup_vprintf (_(reset_format), args);

  g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_CONTEXT, message);
}

CUGI_LAUNCH_PATH gboolean
cugi_context_binding_check (const CugiContextBinding *self,
                            GError                  **error,
                            const char               *reset_format,
                            ...)
{
  va_list args;

  if (G_LIKELY (cugi_context_binding_is_current (self)))
    return TRUE;
  va_start (args, reset_format);
  set_reset_error (error, reset_format, args);
  va_end (args);
  return FALSE;
}

CUGI_LAUNCH_PATH gboolean
cugi_context_binding_enter (const CugiContextBinding *self,
                            CugiContextScope         *scope,
                            GError                  **error,
                            const char               *reset_format,
                            ...)
{
  va_list args;

  if (G_LIKELY (cugi_context_binding_is_current (self)))
    return cugi_context_enter (self->context, scope, error);
  va_start (args, reset_format);
  set_reset_error (error, reset_format, args);
  va_end (args);
  return FALSE;
}

CUGI_LAUNCH_PATH gboolean
cugi_context_binding_same_context (const CugiContextBinding *self,
                                   CugiContext              *other)
{
  CUcontext handle;

  /* The common case, one wrapper, before the CUDA contexts. */
  if (self->context == other)
    return self->context != NULL;
  if (self->context == NULL || other == NULL)
    return FALSE;
  handle = cugi_context_get_handle (self->context);
  return handle != NULL && handle == cugi_context_get_handle (other);
}

gboolean
cugi_context_binding_check_same_context (const CugiContextBinding *self,
                                         CugiContext              *other,
                                         const char               *mismatch_message,
                                         GError                  **error)
{
  if (G_LIKELY (cugi_context_binding_same_context (self, other)))
    return TRUE;
  g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_CONTEXT, _(mismatch_message));
  return FALSE;
}
