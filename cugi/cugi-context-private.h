/* cugi-context-private.h: the internals of devices and contexts
 * (cugi-device.c, cugi-context*.c) that other files use. Not installed. */
#pragma once

#include "cugi-private.h"

G_BEGIN_DECLS

/* ---- devices (cugi-device.c) ---------------------------------------------- */

CUdevice  cugi_device_get_handle       (CugiDevice *self);

/* Parses a device alias: "cuda" (the default device, *ordinal = -1) or
 * "cuda:N". Syntax only: cugi_device_get() says whether device N exists. */
gboolean  cugi_device_parse_alias      (const char *alias,
                                        int        *ordinal,
                                        GError    **error);
/* FALSE with CUGI_ERROR_INVALID_STATE for a device a binding made with
 * g_object_new() instead of cugi_device_get(): it stands for no GPU. */
gboolean  cugi_device_check            (CugiDevice *self,
                                        GError    **error);
/* FALSE with CUGI_ERROR_INVALID_ARGUMENT when @value is none of the values
 * of the enum type @enum_type: checked before the driver sees it, so a
 * binding's stray integer gets a clear message. */
gboolean  cugi_check_enum_value        (GType       enum_type,
                                        int         value,
                                        GError    **error);

/* The primary context @self keeps (a new reference), made by @make on first
 * use: the context's side, cugi_device_get_primary_context() in
 * cugi-context.c, passes its constructor, so that a device need not call up
 * into contexts. */
CugiContext *cugi_device_keep_primary_context (CugiDevice *self,
                                               CugiContext *(*make) (CugiDevice *device,
                                                                     GError    **error),
                                               GError    **error);

/* ---- contexts (cugi-context.c) -------------------------------------------- */

/* Makes a context current for the duration of a call and restores the caller's
 * afterwards; nothing is pushed when it is current already.
 *
 *   g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
 *   if (!cugi_context_enter (ctx, &scope, error))
 *     return FALSE;
 */
typedef struct
{
  gboolean pushed;
} CugiContextScope;

#define CUGI_CONTEXT_SCOPE_INIT { FALSE }

gboolean  cugi_context_enter           (CugiContext      *self,
                                        CugiContextScope *scope,
                                        GError          **error);
void      cugi_context_leave           (CugiContextScope *scope);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (CugiContextScope, cugi_context_leave)

CUcontext cugi_context_get_handle      (CugiContext *self);
/* FALSE with CUGI_ERROR_INVALID_STATE for a context without a CUDA context:
 * one a binding made with g_object_new(), or a primary context that
 * cugi_context_reset() could not make again. */
gboolean  cugi_context_check           (CugiContext *self,
                                        GError     **error);
/* @context_or_null, or the default context: a new reference, NULL on error. */
CugiContext *cugi_context_resolve      (CugiContext *context_or_null,
                                        GError     **error);
/* The legacy default stream of @self as a CugiStream (owned by @self),
 * made by @make on first use: the streams layer, above this one, passes its
 * constructor, so that a context need not call up into it. */
CugiStream  *cugi_context_get_null_stream (CugiContext *self,
                                           CugiStream *(*make) (CugiContext *context));

/* Counts cugi_context_reset() calls on @self. Objects made in the context
 * remember it; when it has changed, their CUDA handles are gone and using
 * them must be an error (CUGI_ERROR_INVALID_STATE), never a driver call. */
guint     cugi_context_get_generation  (CugiContext *self);

G_END_DECLS
