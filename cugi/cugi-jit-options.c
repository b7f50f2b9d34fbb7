/* cugi-jit-options.c: how the driver's JIT compiler and linker treat device code */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "cugi-context-private.h"
#include "cugi-program-private.h"

/**
 * CugiJitOptions:
 *
 * Options for the driver's JIT compiler and linker, as PyCUDA's
 * `jit_options`: how many registers a thread may use, how hard to optimize,
 * which architecture to compile PTX for, what to take from a fatbinary
 * without an exact match, debug and line information, and a verbose log.
 * Give them to cugi_module_new_from_data_with_options() or
 * cugi_linker_new(); options left unset keep the driver's defaults.
 *
 * Settings are checked when the options are used: an optimization level
 * above 4, more than 255 registers or a target before compute capability 3.0
 * is a %CUGI_ERROR_INVALID_ARGUMENT error there. The info log the driver
 * writes is kept by what was loaded (cugi_module_get_info_log(),
 * cugi_linker_get_info_log()); the error log goes into the #GError of a load
 * or link that fails.
 *
 * It is reference counted and may be reused for any number of loads.
 *
 * Since: 0.1
 */

/* Which options were set, a bit each. */
typedef enum
{
  SET_MAX_REGISTERS      = 1 << 0,
  SET_OPTIMIZATION_LEVEL = 1 << 1,
  SET_TARGET             = 1 << 2,
  SET_FALLBACK           = 1 << 3,
} SetOptions;

struct _CugiJitOptions
{
  gatomicrefcount  ref_count;
  SetOptions       set;
  guint            max_registers;
  guint            optimization_level;
  guint            target_major;
  guint            target_minor;
  CugiJitFallback  fallback;
  gboolean         debug_info;
  gboolean         line_info;
  gboolean         verbose;
};

G_DEFINE_BOXED_TYPE (CugiJitOptions, cugi_jit_options, cugi_jit_options_ref, cugi_jit_options_unref)

/**
 * cugi_jit_options_new:
 *
 * Options that change nothing yet: the setters change them.
 *
 * Returns: (transfer full): new JIT options
 *
 * Since: 0.1
 */
CugiJitOptions *
cugi_jit_options_new (void)
{
  CugiJitOptions *self = g_new0 (CugiJitOptions, 1);

  g_atomic_ref_count_init (&self->ref_count);
  return self;
}

/**
 * cugi_jit_options_ref:
 * @self: JIT options
 *
 * Returns: (transfer full): @self, with one more reference
 *
 * Since: 0.1
 */
CugiJitOptions *
cugi_jit_options_ref (CugiJitOptions *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

/**
 * cugi_jit_options_unref:
 * @self: (transfer full): JIT options
 *
 * Drops a reference; the last one frees @self.
 *
 * Since: 0.1
 */
void
cugi_jit_options_unref (CugiJitOptions *self)
{
  g_return_if_fail (self != NULL);

  if (g_atomic_ref_count_dec (&self->ref_count))
    g_free (self);
}

/**
 * cugi_jit_options_set_max_registers:
 * @self: JIT options
 * @max_registers: the most registers a thread may use, at most 255; 0 for
 *   the compiler's choice
 *
 * Limits the registers of each thread (`CU_JIT_MAX_REGISTERS`), which can
 * let more blocks run at once at the cost of spilling to local memory.
 *
 * Since: 0.1
 */
void
cugi_jit_options_set_max_registers (CugiJitOptions *self,
                                    guint           max_registers)
{
  g_return_if_fail (self != NULL);

  self->max_registers = max_registers;
  if (max_registers > 0)
    self->set |= SET_MAX_REGISTERS;
  else
    self->set &= ~SET_MAX_REGISTERS;
}

/**
 * cugi_jit_options_set_optimization_level:
 * @self: JIT options
 * @level: from 0 (none) to 4 (the most, the driver's default)
 *
 * How hard the JIT compiler optimizes PTX (`CU_JIT_OPTIMIZATION_LEVEL`).
 *
 * Since: 0.1
 */
void
cugi_jit_options_set_optimization_level (CugiJitOptions *self,
                                         guint           level)
{
  g_return_if_fail (self != NULL);

  self->optimization_level = level;
  self->set |= SET_OPTIMIZATION_LEVEL;
}

/**
 * cugi_jit_options_set_target:
 * @self: JIT options
 * @major: the major compute capability, 3 or more
 * @minor: the minor compute capability, below 10
 *
 * Compiles PTX for compute capability @major.@minor (`CU_JIT_TARGET`)
 * instead of the context's device.
 *
 * Since: 0.1
 */
void
cugi_jit_options_set_target (CugiJitOptions *self,
                             guint           major,
                             guint           minor)
{
  g_return_if_fail (self != NULL);

  self->target_major = major;
  self->target_minor = minor;
  self->set |= SET_TARGET;
}

/**
 * cugi_jit_options_set_fallback:
 * @self: JIT options
 * @fallback: what to load where no binary matches the device exactly
 *
 * The fallback strategy (`CU_JIT_FALLBACK_STRATEGY`).
 *
 * Since: 0.1
 */
void
cugi_jit_options_set_fallback (CugiJitOptions  *self,
                               CugiJitFallback  fallback)
{
  g_return_if_fail (self != NULL);

  self->fallback = fallback;
  self->set |= SET_FALLBACK;
}

/**
 * cugi_jit_options_set_generate_debug_info:
 * @self: JIT options
 * @generate: whether to generate debug information
 *
 * Generates debug information for cuda-gdb (`CU_JIT_GENERATE_DEBUG_INFO`),
 * which also turns optimization off.
 *
 * Since: 0.1
 */
void
cugi_jit_options_set_generate_debug_info (CugiJitOptions *self,
                                          gboolean        generate)
{
  g_return_if_fail (self != NULL);

  self->debug_info = !!generate;
}

/**
 * cugi_jit_options_set_generate_line_info:
 * @self: JIT options
 * @generate: whether to generate line information
 *
 * Generates line information, for profilers to relate instructions to
 * source lines (`CU_JIT_GENERATE_LINE_INFO`).
 *
 * Since: 0.1
 */
void
cugi_jit_options_set_generate_line_info (CugiJitOptions *self,
                                         gboolean        generate)
{
  g_return_if_fail (self != NULL);

  self->line_info = !!generate;
}

/**
 * cugi_jit_options_set_verbose:
 * @self: JIT options
 * @verbose: whether the info log says more
 *
 * Makes the JIT compiler and linker write what they did to the info log,
 * registers and memory used by each function included
 * (`CU_JIT_LOG_VERBOSE`).
 *
 * Since: 0.1
 */
void
cugi_jit_options_set_verbose (CugiJitOptions *self,
                              gboolean        verbose)
{
  g_return_if_fail (self != NULL);

  self->verbose = !!verbose;
}

/* ---- the driver's arrays -------------------------------------------------- */

static void
add (CugiJitArrays *arrays,
     CUjit_option   option,
     guintptr       value)
{
  g_assert (arrays->n < G_N_ELEMENTS (arrays->options));
  arrays->options[arrays->n] = option;
  arrays->values[arrays->n] = (void *) value;
  arrays->n++;
}

static gboolean
check (const CugiJitOptions  *self,
       GError               **error)
{
  if ((self->set & SET_OPTIMIZATION_LEVEL) && self->optimization_level > 4)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("JIT optimization level %u is out of range: it goes from 0 to 4"),
                   self->optimization_level);
      return FALSE;
    }
  if ((self->set & SET_MAX_REGISTERS) && self->max_registers > 255)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("A thread cannot be given %u registers: 255 is the most"), self->max_registers);
      return FALSE;
    }
  if ((self->set & SET_TARGET) && (self->target_major < 3 || self->target_minor > 9))
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("Compute capability %u.%u is no JIT target"), self->target_major, self->target_minor);
      return FALSE;
    }
  return !(self->set & SET_FALLBACK) || cugi_check_enum_value (CUGI_TYPE_JIT_FALLBACK, self->fallback, error);
}

CugiJitArrays *
cugi_jit_arrays_new (const CugiJitOptions  *options,
                     GError               **error)
{
  g_autofree CugiJitArrays *arrays = g_new0 (CugiJitArrays, 1);

  if (options != NULL && !check (options, error))
    return NULL;
  add (arrays, CU_JIT_INFO_LOG_BUFFER, (guintptr) arrays->info_log);
  add (arrays, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CUGI_JIT_LOG_SIZE);
  add (arrays, CU_JIT_ERROR_LOG_BUFFER, (guintptr) arrays->error_log);
  add (arrays, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, CUGI_JIT_LOG_SIZE);
  if (options == NULL)
    return g_steal_pointer (&arrays);
  if (options->set & SET_MAX_REGISTERS)
    add (arrays, CU_JIT_MAX_REGISTERS, options->max_registers);
  if (options->set & SET_OPTIMIZATION_LEVEL)
    add (arrays, CU_JIT_OPTIMIZATION_LEVEL, options->optimization_level);
  if (options->set & SET_TARGET)
    add (arrays, CU_JIT_TARGET, options->target_major * 10 + options->target_minor);
  if (options->set & SET_FALLBACK)
    add (arrays, CU_JIT_FALLBACK_STRATEGY,
         options->fallback == CUGI_JIT_FALLBACK_PREFER_BINARY ? CU_PREFER_BINARY : CU_PREFER_PTX);
  if (options->debug_info)
    add (arrays, CU_JIT_GENERATE_DEBUG_INFO, 1);
  if (options->line_info)
    add (arrays, CU_JIT_GENERATE_LINE_INFO, 1);
  if (options->verbose)
    add (arrays, CU_JIT_LOG_VERBOSE, 1);
  return g_steal_pointer (&arrays);
}

/* The log in @buffer, of at most CUGI_JIT_LOG_SIZE bytes, without the
 * whitespace around it; NULL when there is none. */
static char *
dup_log (const char *buffer)
{
  g_autofree char *log = g_strndup (buffer, CUGI_JIT_LOG_SIZE);

  return *g_strstrip (log) != '\0' ? g_steal_pointer (&log) : NULL;
}

char *
cugi_jit_arrays_dup_info_log (const CugiJitArrays *arrays)
{
  return dup_log (arrays->info_log);
}

void
cugi_jit_arrays_propagate_error (const CugiJitArrays  *arrays,
                                 GError               *failure,
                                 GError              **error)
{
  g_autofree char *log = dup_log (arrays->error_log);

  if (log != NULL)
    {
      g_set_error (error, failure->domain, failure->code, _("%s\nJIT log:\n%s"), failure->message, log);
      g_error_free (failure);
    }
  else
    g_propagate_error (error, failure);
}
