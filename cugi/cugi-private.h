/* cugi-private.h: internals shared between cugi's source files. Not installed. */
#pragma once

#include "cugi.h"
#include "cugi-loader.h"

G_BEGIN_DECLS

/* ---- errors (cugi-error.c) ------------------------------------------------ */

/* Calls a driver entry point through the loader's table and turns a failure
 * into a GError naming it:  CUGI_CALL (cuMemAlloc, (&ptr, size), error)  */
#define CUGI_CALL(entry_point, args, error) \
  cugi_check_result (cugi_cuda.entry_point args, #entry_point, (error))

gboolean  cugi_check_result            (CUresult     result,
                                        const char  *operation,
                                        GError     **error);
void      cugi_set_error_from_result   (GError     **error,
                                        CUresult     result,
                                        const char  *operation);
CugiError cugi_error_code_from_result  (CUresult     result);
/* FALSE when @result is missing from cugi's table (tested against cuda.h). */
gboolean  cugi_error_lookup_result     (CUresult     result,
                                        CugiError   *code,
                                        const char **name);
void      cugi_set_nvrtc_error         (GError     **error,
                                        nvrtcResult  result,
                                        const char  *operation);

/* ---- library state (cugi-init.c) ------------------------------------------ */

/* TRUE once the driver is loaded and initialized; the error otherwise. Every
 * public constructor calls this first. */
gboolean  cugi_ensure_driver           (GError **error);
/* The same for NVRTC, which needs no driver. */
gboolean  cugi_ensure_nvrtc            (GError **error);

/* ---- devices (cugi-device.c) ---------------------------------------------- */

CUdevice  cugi_device_get_handle       (CugiDevice *self);

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
/* @context_or_null, or the default context: a new reference, NULL on error. */
CugiContext *cugi_context_resolve      (CugiContext *context_or_null,
                                        GError     **error);
/* The legacy default stream of @self as a CugiStream (owned by @self). */
CugiStream  *cugi_context_get_null_stream (CugiContext *self);

/* ---- streams and the main-loop bridge (cugi-stream.c, cugi-completion.c) --- */

/* NULL for a context's legacy default stream. */
CUstream  cugi_stream_get_handle       (CugiStream *self);
/* @stream_or_null, or the legacy default stream of @context (borrowed). */
CugiStream *cugi_stream_resolve        (CugiStream  *stream_or_null,
                                        CugiContext *context);

/* Runs in the GMainContext given to cugi_stream_add_completion(). */
typedef void (*CugiCompletionFunc) (gpointer user_data);

/* Enqueues a marker (cuLaunchHostFunc) on @self: once the GPU has done all work
 * enqueued before it, @func runs in @main_context (NULL: the stream's own).
 * @notify frees @user_data afterwards, or at once when this fails. */
gboolean  cugi_stream_add_completion   (CugiStream        *self,
                                        GMainContext      *main_context,
                                        CugiCompletionFunc func,
                                        gpointer           user_data,
                                        GDestroyNotify     notify,
                                        GError           **error);

/* Tells the stream that cugi enqueued work on it. @resources (transfer full,
 * with a free function; may be NULL) stay alive until that work completes,
 * whatever the caller drops. Also what drives CugiStream::idle. */
void      cugi_stream_track_work       (CugiStream *self,
                                        GPtrArray  *resources);

/* The legacy default stream of @context, for cugi_context_get_null_stream()
 * only. The context owns it; it holds an unowned pointer back (no cycle). */
CugiStream *cugi_stream_new_null       (CugiContext *context);

/* ---- events (cugi-event.c) ------------------------------------------------ */

CUevent   cugi_event_get_handle        (CugiEvent *self);

/* ---- buffers (cugi-buffer.c) ---------------------------------------------- */

/* The device address of @self, or an INVALID_STATE error after free(). */
gboolean  cugi_buffer_get_address      (CugiBuffer  *self,
                                        CUdeviceptr *address,
                                        GError     **error);
CugiContext *cugi_buffer_get_context   (CugiBuffer *self);
/* A buffer over memory cugi does not own (a module's global, an IPC mapping
 * is not this): @owner (may be NULL) is kept alive as long as the buffer. */
CugiBuffer  *cugi_buffer_new_wrapping  (CugiContext *context,
                                        CUdeviceptr  address,
                                        gsize        size,
                                        GObject     *owner);

/* ---- modules and kernels (cugi-module.c, cugi-kernel.c) ------------------ */

/* Wraps a function of @module (which the kernel keeps alive). @name is what
 * the user asked for (a name expression or an extern "C" name), @mangled_name
 * the symbol's own name, from which C++ parameter types are read. */
CugiKernel *cugi_kernel_new_for_function (CugiModule *module,
                                          CUfunction  function,
                                          const char *name,
                                          const char *mangled_name);
CugiContext *cugi_module_get_context   (CugiModule *self);
/* The module for @source compiled for @context's device with @options, through
 * the disk cache, and loaded once per context (later calls return the same
 * module). @name_expressions (may be NULL) are registered before compiling. */
CugiModule  *cugi_module_new_from_source_cached (CugiContext        *context,
                                                 const char         *source,
                                                 const char * const *options,
                                                 const char * const *name_expressions,
                                                 GError            **error);

/* ---- utilities (cugi-utils.c) --------------------------------------------- */

/* The GMainContext that was thread-default when an object was made (a new
 * reference, never NULL: the global default when none was pushed). */
GMainContext *cugi_capture_main_context (void);

/* Each area adds its further internals in a section of its own below. */

/* ---- more: devices and contexts ------------------------------------------- */

/* ---- more: streams, events, main-loop bridge ------------------------------ */

/* ---- more: memory --------------------------------------------------------- */

/* ---- more: programs, cache, modules --------------------------------------- */

/* ---- more: kernels, launches, occupancy, graphs --------------------------- */

G_END_DECLS
