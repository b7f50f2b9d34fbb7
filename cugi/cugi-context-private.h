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
 * remember it in their CugiContextBinding; when it has changed, their CUDA
 * handles are gone and using them must be an error, never a driver call. */
guint     cugi_context_get_generation  (CugiContext *self);

/* ---- binding to a context (cugi-context-binding.c) ------------------------ */

typedef enum
{
  CUGI_CONTEXT_BINDING_NONE           = 0,
  /* The object's handle is one of the driver's own (the legacy and
   * per-thread streams): no reset destroys it. */
  CUGI_CONTEXT_BINDING_SURVIVES_RESET = 1 << 0,
  /* The context keeps the object (its null stream): no reference back. */
  CUGI_CONTEXT_BINDING_UNOWNED        = 1 << 1,
} CugiContextBindingFlags;

/* What ties an object to the context its handles belong to, embedded by
 * value in each class that holds such handles (streams, events, buffers,
 * host buffers, modules, kernels, graphs, executable graphs): the context and
 * its generation when the object was made. Using an object whose context was
 * reset since, or with an object of another context, is one condition with
 * one code: CUGI_ERROR_INVALID_CONTEXT. A zeroed binding (an object of
 * g_object_new()) is bound to nothing; each class says itself, with
 * CUGI_ERROR_INVALID_STATE, what such an object lacks. */
typedef struct
{
  CugiContext             *context;     /* (nullable): a reference, unless UNOWNED */
  guint                    generation;  /* the context's when bound */
  CugiContextBindingFlags  flags;
} CugiContextBinding;

/* Binds to @context in its generation now. */
void      cugi_context_binding_init    (CugiContextBinding      *self,
                                        CugiContext             *context,
                                        CugiContextBindingFlags  flags);
/* From finalize: lets go of the context; the binding is zeroed. */
void      cugi_context_binding_clear   (CugiContextBinding      *self);

/* FALSE when the context was reset since the binding was made, which
 * destroyed the object's handles; TRUE for a binding to nothing. Inline: the
 * launch path asks. */
static inline gboolean
cugi_context_binding_is_current (const CugiContextBinding *self)
{
  return self->context == NULL || cugi_context_get_generation (self->context) == self->generation ||
         (self->flags & CUGI_CONTEXT_BINDING_SURVIVES_RESET) != 0;
}

/* Asks the context whether @self is current and, when it is, stores @epoch
 * in @current_epoch (atomic). Out of line: see the function below. */
gboolean  cugi_context_binding_recheck (const CugiContextBinding *self,
                                        gsize                    *current_epoch,
                                        gsize                     epoch);

/* cugi_context_binding_is_current() for launch paths: a comparison while
 * the address epoch (@epoch, read by the caller before this) is still the
 * one in which the binding was last found current, @current_epoch (a field
 * of the bound object's, atomic), else the context is asked. A context reset
 * changes the context's generation before it ends the epoch. */
static G_ALWAYS_INLINE inline gboolean
cugi_context_binding_is_current_in_epoch (const CugiContextBinding *self,
                                          gsize                    *current_epoch,
                                          gsize                     epoch)
{
  return G_LIKELY (g_atomic_pointer_get (current_epoch) == epoch) ||
         cugi_context_binding_recheck (self, current_epoch, epoch);
}

/* FALSE with CUGI_ERROR_INVALID_CONTEXT and the class's own message when
 * the context was reset since. @reset_message is untranslated (marked N_()):
 * every call of the object checks, and only a failure translates. */
gboolean  cugi_context_binding_check   (const CugiContextBinding *self,
                                        const char               *reset_message,
                                        GError                  **error);
/* cugi_context_binding_check(), then makes the context current for the
 * call (see cugi_context_enter()); @self must be bound to a context. */
gboolean  cugi_context_binding_enter   (const CugiContextBinding *self,
                                        CugiContextScope         *scope,
                                        const char               *reset_message,
                                        GError                  **error);
/* Whether @a and @b are one context: the one comparison of contexts, by
 * CUDA context rather than by wrapper. Two NULLs are not. */
gboolean  cugi_context_equal           (CugiContext *a,
                                        CugiContext *b);
/* FALSE with CUGI_ERROR_INVALID_CONTEXT and @mismatch_message (untranslated,
 * marked N_()) unless @other is the bound context (cugi_context_equal()). */
gboolean  cugi_context_binding_check_same_context (const CugiContextBinding *self,
                                                   CugiContext              *other,
                                                   const char               *mismatch_message,
                                                   GError                  **error);

/* ---- frees that wait for the device (cugi-synchronizing-release.c) -------- */

/* What cugi_synchronizing_release() frees: the entry point it calls. */
typedef enum
{
  CUGI_RELEASE_DEVICE_MEMORY,      /* cuMemFree */
  CUGI_RELEASE_IPC_MAPPING,        /* cuIpcCloseMemHandle */
  CUGI_RELEASE_HOST_MEMORY,        /* cuMemFreeHost */
  CUGI_RELEASE_HOST_REGISTRATION,  /* cuMemHostUnregister */
} CugiReleaseKind;

/* Frees @handle of @context (current, where the release runs now) with the
 * entry point of @kind; while a feeder thread has a gate closed, later, when
 * the last one opens (then TRUE at once, and an error is only logged). */
gboolean  cugi_synchronizing_release            (CugiContext      *context,
                                                 CugiReleaseKind   kind,
                                                 guint64           handle,
                                                 GError          **error);
/* Around the time a stream waits for a feeder thread's further calls:
 * closing waits for releases in a call to finish; opening runs those
 * deferred meanwhile, once no gate is closed. */
void      cugi_synchronizing_release_close_gate (void);
void      cugi_synchronizing_release_open_gate  (void);

G_END_DECLS
