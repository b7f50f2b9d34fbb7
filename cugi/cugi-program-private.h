/* cugi-program-private.h: the internals of programs and their compiles
 * (cugi-program*.c). Not installed. */
#pragma once

#include "cugi-private.h"

G_BEGIN_DECLS

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

G_END_DECLS
