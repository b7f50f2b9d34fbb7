/* cugi-private.h: what every one of cugi's source files needs. Not installed. */
#pragma once

#include "cugi.h"
#include "cugi-loader.h"

G_BEGIN_DECLS

/* ---- errors (cugi-error.c, cugi-result.c) --------------------------------- */

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

/* ---- utilities (cugi-utils.c) --------------------------------------------- */

/* The GMainContext that was thread-default when an object was made (a new
 * reference, never NULL: the global default when none was pushed). */
GMainContext *cugi_capture_main_context (void);

/* Whether @path is a regular file this process may read; else a
 * G_FILE_ERROR whose message names @path and says what it is instead (a
 * directory, a device, ...) or why it cannot be read. */
gboolean  cugi_check_regular_file      (const char  *path,
                                        GError     **error);

/* A duplicate of @fd (close-on-exec) for the driver to take, so that the
 * caller keeps its own: -1 with INVALID_ARGUMENT when @fd is negative or
 * not open. The driver owns the duplicate once an import succeeded; the
 * caller of this closes it when the import failed. */
int       cugi_dup_fd                  (int          fd,
                                        GError     **error);

/* Changes whenever an address cugi handed out may have stopped being usable
 * (memory freed, a context reset), never otherwise: what was checked usable
 * in one epoch stays so while the epoch lasts, so repeated launches check
 * their buffers once. Read it before checking. Never 0. Inline: every launch
 * reads it. */
extern gsize cugi_memory_address_epoch;   /* cugi-utils.c; atomic */

static inline gsize
cugi_memory_get_address_epoch (void)
{
  return g_atomic_pointer_get (&cugi_memory_address_epoch);
}

void      cugi_memory_invalidate_addresses (void);

/* ---- the launch path ------------------------------------------------------ */

/* Each area keeps its internals in a header of its own (cugi-context-private.h,
 * cugi-stream-private.h, cugi-memory-private.h, cugi-program-private.h,
 * cugi-launch-private.h, ...), included only by the files that use them;
 * this one has what every file needs.
 *
 * Marks the functions that every kernel launch runs, in whichever file they
 * are: GCC keeps them together (its hot text section), so that a launch
 * touches few instruction cache lines, which the driver's own work between
 * two launches evicts. */
#if defined(__GNUC__)
#define CUGI_LAUNCH_PATH __attribute__ ((hot))
#else
#define CUGI_LAUNCH_PATH
#endif

/* G_TYPE_CHECK_INSTANCE_TYPE() for a final type, without a call or a read of
 * the class: the instances of a final type have exactly its class, which
 * @klass is (set by the type's class_init, which an instance's existence
 * implies). The launch path checks its objects so, since the lines that
 * get_type() and the class live on are cold when a burst of launches
 * starts. */
static inline gboolean
cugi_is_final_instance (gconstpointer instance,
                        gconstpointer klass)
{
  return instance != NULL && klass != NULL && ((const GTypeInstance *) instance)->g_class == klass;
}

G_END_DECLS
