/* cugi-program-private.h: the internals of programs, their compiles and
 * results, the cache and modules (cugi-program*.c, cugi-module.c,
 * cugi-image-params.c). Not installed. */
#pragma once

#include "cugi-private.h"

G_BEGIN_DECLS

/* What one NVRTC compile produced. Immutable once made, so programs, modules
 * and the in-memory cache share it by reference (cugi-program-cache.c). */
typedef struct
{
  char       *log;            /* never NULL, may be empty */
  GBytes     *ptx;            /* without its NUL; NULL when NVRTC made none */
  GBytes     *cubin;          /* NULL for a virtual (compute_XY) target */
  GHashTable *lowered_names;  /* name expression -> lowered name, never NULL */
} CugiProgramResult;

/* Where the last compile of a program came from. */
typedef enum
{
  CUGI_PROGRAM_CACHE_MISS,        /* NVRTC ran */
  CUGI_PROGRAM_CACHE_HIT_MEMORY,  /* this process compiled it before */
  CUGI_PROGRAM_CACHE_HIT_DISK,    /* a valid entry of the disk cache */
} CugiProgramCacheHit;

CugiProgramResult  *cugi_program_result_new   (const char *log,
                                               GBytes     *ptx,
                                               GBytes     *cubin,
                                               GHashTable *lowered_names);
CugiProgramResult  *cugi_program_result_ref   (CugiProgramResult *self);
void                cugi_program_result_unref (CugiProgramResult *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CugiProgramResult, cugi_program_result_unref)

CugiProgramCacheHit cugi_program_get_cache_hit     (CugiProgram *self);
/* The last successful compile's result (borrowed), NULL before one. */
CugiProgramResult  *cugi_program_get_result        (CugiProgram *self);

/* Pure: the NVRTC target for a device of compute capability @major.@minor
 * when NVRTC supports the architectures @supported (as nvrtcGetSupportedArchs
 * lists them, e.g. 90 for 9.0): "sm_XY" (real, CUBIN) when XY is listed,
 * else "compute_ZW" (virtual, PTX) for the newest listed ZW below XY, which
 * the driver JIT-compiles. NOT_SUPPORTED when the device predates them all. */
char               *cugi_program_choose_target     (const int  *supported,
                                                    gsize       n_supported,
                                                    gint        major,
                                                    gint        minor,
                                                    GError    **error);
/* The cache key cugi_program_compile_for_arch() would use. */
char               *cugi_program_dup_cache_key_for_arch (CugiProgram        *self,
                                                         gint                major,
                                                         gint                minor,
                                                         const char * const *options,
                                                         GError            **error);
/* The compute capability of @device, through the driver. */
gboolean            cugi_program_query_compute_capability (CUdevice device,
                                                           gint    *major,
                                                           gint    *minor,
                                                           GError **error);

/* What @program compiled to (borrowed), for loading or linking: its CUBIN
 * when it has one (*@is_cubin, optional), else its PTX, and its name
 * expressions' lowered names; INVALID_STATE before a compile. */
GBytes             *cugi_module_program_image      (CugiProgram  *program,
                                                    GHashTable  **lowered_names,
                                                    gboolean     *is_cubin,
                                                    GError      **error);
/* A module of @image (a linked CUBIN, say) loaded into @context, which
 * resolves the name expressions in @lowered_names (may be NULL) and reports
 * @info_log (may be NULL) besides what loading @image logs. */
CugiModule         *cugi_module_new_linked         (CugiContext  *context,
                                                    GBytes       *image,
                                                    GHashTable   *lowered_names,
                                                    const char   *info_log,
                                                    GError      **error);
/* The module's handle; NULL for one made with g_object_new(). */
CUmodule            cugi_module_get_handle         (CugiModule *self);
/* How many parameters the kernel @symbol has, as the module's image tells,
 * or -1 when the image does not say (see cugi-image-params.c). */
gint                cugi_module_get_param_count    (CugiModule *self,
                                                    const char *symbol);
/* cugi-image-params.c: kernel symbol -> parameter count of a CUBIN or PTX
 * image, or NULL for another format. */
GHashTable         *cugi_image_read_param_counts   (const guint8 *data,
                                                    gsize         size);

/* NVRTC's own name for a program given none. */
#define CUGI_PROGRAM_DEFAULT_NAME "default_program"

/* The target for a device of compute capability @major.@minor, or "" when
 * @options choose it themselves. */
char               *cugi_program_target_for_arch   (const char * const *options,
                                                    gint                major,
                                                    gint                minor,
                                                    GError            **error);
/* The target for @device, or for the default device when it is NULL. */
char               *cugi_program_target_for_device (CugiDevice         *device,
                                                    const char * const *options,
                                                    GError            **error);

/* A compile's inputs, copied so that the program may change while NVRTC runs
 * in another thread, and its outcome, applied to the program afterwards in
 * the thread that asked (cugi-program-compile.c). */
typedef struct
{
  char                *source;
  char                *name;
  GStrv                header_names;
  GStrv                header_sources;
  GStrv                name_expressions;
  GStrv                options;   /* as NVRTC gets them, -arch included */
  char                *target;   /* e.g. "sm_90"; "" when the options choose */

  gboolean             ran;      /* FALSE when cancelled before starting */
  char                *log;
  CugiProgramResult   *result;
  CugiProgramCacheHit  cache_hit;
  GError              *error;
} CugiCompileJob;

void                cugi_compile_job_free          (gpointer            job);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CugiCompileJob, cugi_compile_job_free)
/* The cache key of @job's inputs (see cugi_program_cache_compute_key()). */
char               *cugi_compile_job_compute_key   (CugiCompileJob     *job);
/* From the cache, or NVRTC, which then stores it there: the outcome goes into
 * @job. Nothing runs when @cancellable is cancelled already. */
void                cugi_compile_job_run           (CugiCompileJob     *job,
                                                    GCancellable       *cancellable);

/* ---- JIT options as the driver takes them (cugi-jit-options.c) ------------ */

/* The most bytes of each log the driver may write. */
#define CUGI_JIT_LOG_SIZE (16 * 1024)

/* The option arrays of cuModuleLoadDataEx() and cuLinkCreate(), with the log
 * buffers they point into: the driver writes the logs, so the arrays must
 * live as long as the load or the link state. One byte more than the driver
 * is told, so that the logs stay terminated. */
typedef struct
{
  CUjit_option  options[16];
  void         *values[16];
  unsigned int  n;
  char          info_log[CUGI_JIT_LOG_SIZE + 1];
  char          error_log[CUGI_JIT_LOG_SIZE + 1];
} CugiJitArrays;

/* The arrays for @options (NULL: the driver's defaults, logs only), after
 * checking them (CUGI_ERROR_INVALID_ARGUMENT); free with g_free(). */
CugiJitArrays *cugi_jit_arrays_new            (const CugiJitOptions *options,
                                               GError              **error);
/* The info log so far, stripped; NULL when it is empty. */
char          *cugi_jit_arrays_dup_info_log   (const CugiJitArrays  *arrays);
/* Propagates @failure (transfer full) into @error, with the error log in
 * its message when there is one. */
void           cugi_jit_arrays_propagate_error (const CugiJitArrays *arrays,
                                                GError              *failure,
                                                GError             **error);

/* ---- modules: what kernels need of them (cugi-module.c) ------------------- */

/* The function of @self that @name names (an extern "C" name, a mangled
 * name or a name expression of its program), and its @symbol in @self
 * (owned by @self); NOT_FOUND when @self has none. */
gboolean     cugi_module_find_function  (CugiModule  *self,
                                         const char  *name,
                                         CUfunction  *function,
                                         const char **symbol,
                                         GError     **error);
/* The module for @source compiled for @context's device with @options, through
 * the disk cache, and loaded once per context (later calls return the same
 * module). @name_expressions (may be NULL) are registered before compiling. */
CugiModule  *cugi_module_new_from_source_cached (CugiContext        *context,
                                                 const char         *source,
                                                 const char * const *options,
                                                 const char * const *name_expressions,
                                                 GError            **error);

G_END_DECLS
