/* cugi-program.c: CUDA C++ source compiled at run time by NVRTC */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "cugi-private.h"
#include "cugi-program-cache.h"
#include "cugi-program-private.h"

/**
 * CugiProgram:
 *
 * CUDA C++ source and what NVRTC, the CUDA runtime compiler, makes of it:
 * PTX, CUBIN for a real architecture, the compiler's log, and the lowered
 * (mangled) names of the name expressions registered before compiling.
 *
 * Headers that the source includes can be supplied with
 * cugi_program_add_header(). cugi_program_compile_for_device() picks the
 * architecture: CUBIN for the device itself when NVRTC knows it, else PTX for
 * the newest architecture NVRTC knows below it, which the driver finishes.
 *
 * Results are cached, in memory and in a disk cache shared by processes
 * (`$CUGI_CACHE_DIR`, else `$XDG_CACHE_HOME/cugi`): compiling the same source,
 * headers, name expressions and options again with the same NVRTC takes a
 * file read. Files the source includes from disk (by an absolute path, or
 * beside the program's name, relative to the working directory) are part of
 * what is compared, so changing one compiles again. The cache is refused when
 * its directory belongs to another user or others may write to it, and is
 * bypassed when the options name include directories or files (`-I`,
 * `-include`), or when an `#include` names a macro. `CUGI_DISABLE_CACHE` set
 * to `1`, `true` or `yes` turns it off; `CUGI_CACHE_MAX_SIZE` caps the
 * directory (in bytes, 256 MiB by default), the least recently used entries
 * going first.
 *
 * A program compiles once at a time: starting a compile while another runs
 * fails with %CUGI_ERROR_INVALID_STATE. Headers added while a compile runs
 * apply to the next one.
 *
 * Since: 0.1
 */

struct _CugiProgram
{
  GObject parent_instance;

  char                *source;
  char                *name;
  GPtrArray           *header_names;      /* NULL-terminated */
  GPtrArray           *header_sources;    /* parallel to header_names */
  GPtrArray           *name_expressions;  /* NULL-terminated */

  gint                 compiling;         /* atomic */
  char                *log;
  CugiProgramResult   *result;            /* NULL until a compile succeeds */
  CugiProgramCacheHit  cache_hit;
};

G_DEFINE_FINAL_TYPE (CugiProgram, cugi_program, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_SOURCE,
  PROP_NAME,
  PROP_LOG,
  PROP_COMPILED,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static const char *
display_name (CugiProgram *self)
{
  return self->name != NULL ? self->name : CUGI_PROGRAM_DEFAULT_NAME;
}

/* ---- one compile (cugi-program-compile.c runs it) ------------------------- */

static GStrv
copy_strings (GPtrArray *strings)
{
  /* An empty array may have no storage yet. */
  return strings->pdata != NULL ? g_strdupv ((char **) strings->pdata) : g_new0 (char *, 1);
}

static CugiCompileJob *
compile_job_new (CugiProgram        *self,
                 const char * const *options,
                 const char         *target)
{
  CugiCompileJob *job = g_new0 (CugiCompileJob, 1);
  g_autoptr(GStrvBuilder) all_options = g_strv_builder_new ();

  if (options != NULL)
    g_strv_builder_addv (all_options, (const char **) options);
  if (*target != '\0')
    {
      g_autofree char *arch = g_strconcat ("-arch=", target, NULL);

      g_strv_builder_add (all_options, arch);
    }
  job->source = g_strdup (self->source);
  job->name = g_strdup (self->name);
  job->header_names = copy_strings (self->header_names);
  job->header_sources = copy_strings (self->header_sources);
  job->name_expressions = copy_strings (self->name_expressions);
  job->options = g_strv_builder_end (all_options);
  job->target = g_strdup (target);
  return job;
}

/* Claims the program for one compile. */
static CugiCompileJob *
compile_job_start (CugiProgram        *self,
                   const char * const *options,
                   const char         *target,
                   GError            **error)
{
  /* NVRTC itself is loaded only when the cache has no result for the job. */
  if (cugi_loader_get_nvrtc_identity (error) == NULL)
    return NULL;
  if (self->source == NULL)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE,
                   _("The program “%s” has no source"), display_name (self));
      return NULL;
    }
  if (!g_atomic_int_compare_and_exchange (&self->compiling, FALSE, TRUE))
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE,
                   _("The program “%s” is being compiled already: wait for that compile to finish"),
                   display_name (self));
      return NULL;
    }
  return compile_job_new (self, options, target);
}

/* Applies @job's outcome to the program and releases it. */
static gboolean
compile_job_finish (CugiProgram *self,
                    CugiCompileJob  *job,
                    GError     **error)
{
  gboolean was_compiled = self->result != NULL;

  if (job->ran)
    {
      g_free (self->log);
      self->log = g_steal_pointer (&job->log);
      g_clear_pointer (&self->result, cugi_program_result_unref);
      self->result = g_steal_pointer (&job->result);
      self->cache_hit = job->cache_hit;
    }
  g_atomic_int_set (&self->compiling, FALSE);

  if (job->ran)
    {
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LOG]);
      if (was_compiled != (self->result != NULL))
        g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_COMPILED]);
    }
  if (job->error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&job->error));
      return FALSE;
    }
  return TRUE;
}

static gboolean
compile_now (CugiProgram        *self,
             const char * const *options,
             const char         *target,
             GError            **error)
{
  g_autoptr(CugiCompileJob) job = compile_job_start (self, options, target, error);

  if (job == NULL)
    return FALSE;
  cugi_compile_job_run (job, NULL);
  return compile_job_finish (self, job, error);
}

static void
compile_in_thread (GTask        *worker,
                   gpointer      source_object,
                   gpointer      task_data,
                   GCancellable *cancellable)
{
  cugi_compile_job_run (task_data, cancellable);
  g_task_return_boolean (worker, TRUE);
}

/* Back in the caller's main context: the outcome goes to the program, then
 * to the caller's task. */
static void
on_compile_job_done (GObject      *source_object,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  CugiCompileJob *job = g_task_get_task_data (G_TASK (result));
  GError *error = NULL;

  if (compile_job_finish (CUGI_PROGRAM (source_object), job, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

static GTask *
compile_task_new (CugiProgram         *self,
                  GCancellable        *cancellable,
                  GAsyncReadyCallback  callback,
                  gpointer             user_data,
                  gpointer             source_tag)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);

  /* GTask's cancellable check stays on: a cancel before the finish function
   * gives G_IO_ERROR_CANCELLED even when NVRTC had already finished. */
  g_task_set_source_tag (task, source_tag);
  return task;
}

static void
compile_in_background (CugiProgram        *self,
                       const char * const *options,
                       const char         *target,
                       GTask              *task)
{
  GError *error = NULL;
  CugiCompileJob *job = compile_job_start (self, options, target, &error);
  g_autoptr(GTask) worker = NULL;

  if (job == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  worker = g_task_new (self, g_task_get_cancellable (task), on_compile_job_done, g_object_ref (task));
  g_task_set_source_tag (worker, compile_in_background);
  g_task_set_task_data (worker, job, cugi_compile_job_free);
  g_task_run_in_thread (worker, compile_in_thread);
}

static gboolean
compile_task_finish (CugiProgram  *self,
                     GAsyncResult *result,
                     gpointer      source_tag,
                     GError      **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == source_tag, FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/* ---- the class ------------------------------------------------------------ */

static void
cugi_program_finalize (GObject *object)
{
  CugiProgram *self = CUGI_PROGRAM (object);

  g_free (self->source);
  g_free (self->name);
  g_ptr_array_unref (self->header_names);
  g_ptr_array_unref (self->header_sources);
  g_ptr_array_unref (self->name_expressions);
  g_free (self->log);
  g_clear_pointer (&self->result, cugi_program_result_unref);

  G_OBJECT_CLASS (cugi_program_parent_class)->finalize (object);
}

static void
cugi_program_get_property (GObject    *object,
                           guint       prop_id,
                           GValue     *value,
                           GParamSpec *pspec)
{
  CugiProgram *self = CUGI_PROGRAM (object);

  switch (prop_id)
    {
    case PROP_SOURCE:
      g_value_set_string (value, self->source);
      break;
    case PROP_NAME:
      g_value_set_string (value, self->name);
      break;
    case PROP_LOG:
      g_value_set_string (value, self->log);
      break;
    case PROP_COMPILED:
      g_value_set_boolean (value, self->result != NULL);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cugi_program_set_property (GObject      *object,
                           guint         prop_id,
                           const GValue *value,
                           GParamSpec   *pspec)
{
  CugiProgram *self = CUGI_PROGRAM (object);

  switch (prop_id)
    {
    case PROP_SOURCE:
      self->source = g_value_dup_string (value);
      break;
    case PROP_NAME:
      self->name = g_value_dup_string (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cugi_program_class_init (CugiProgramClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = cugi_program_finalize;
  object_class->get_property = cugi_program_get_property;
  object_class->set_property = cugi_program_set_property;

  /**
   * CugiProgram:source:
   *
   * The CUDA C++ source.
   *
   * Since: 0.1
   */
  properties[PROP_SOURCE] =
    g_param_spec_string ("source", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  /**
   * CugiProgram:name:
   *
   * The program's file name, as NVRTC's messages and debug information give
   * it; %NULL for NVRTC's default, "default_program".
   *
   * Since: 0.1
   */
  properties[PROP_NAME] =
    g_param_spec_string ("name", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  /**
   * CugiProgram:log:
   *
   * NVRTC's log of the last compile (warnings, or the errors of a failed
   * one); %NULL before any. Notified after each compile.
   *
   * Since: 0.1
   */
  properties[PROP_LOG] =
    g_param_spec_string ("log", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * CugiProgram:compiled:
   *
   * Whether the last compile succeeded, so that PTX, CUBIN and lowered names
   * are available.
   *
   * Since: 0.1
   */
  properties[PROP_COMPILED] =
    g_param_spec_boolean ("compiled", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
cugi_program_init (CugiProgram *self)
{
  self->header_names = g_ptr_array_new_null_terminated (0, g_free, TRUE);
  self->header_sources = g_ptr_array_new_null_terminated (0, g_free, TRUE);
  self->name_expressions = g_ptr_array_new_null_terminated (0, g_free, TRUE);
}

/* ---- public API ----------------------------------------------------------- */

/**
 * cugi_program_new:
 * @source: CUDA C++ source
 * @name: (nullable): the program's file name, for NVRTC's messages, or
 *   %NULL for "default_program"
 *
 * Creates a program. Nothing is compiled until cugi_program_compile() or
 * cugi_program_compile_for_device().
 *
 * Returns: (transfer full): a new #CugiProgram
 *
 * Since: 0.1
 */
CugiProgram *
cugi_program_new (const gchar *source,
                  const gchar *name)
{
  g_return_val_if_fail (source != NULL, NULL);

  return g_object_new (CUGI_TYPE_PROGRAM, "source", source, "name", name, NULL);
}

/**
 * cugi_program_get_source:
 * @self: a #CugiProgram
 *
 * Returns: (nullable): the program's source
 *
 * Since: 0.1
 */
const gchar *
cugi_program_get_source (CugiProgram *self)
{
  g_return_val_if_fail (CUGI_IS_PROGRAM (self), NULL);

  return self->source;
}

/**
 * cugi_program_get_name:
 * @self: a #CugiProgram
 *
 * Returns: (nullable): the program's file name, %NULL for NVRTC's default
 *
 * Since: 0.1
 */
const gchar *
cugi_program_get_name (CugiProgram *self)
{
  g_return_val_if_fail (CUGI_IS_PROGRAM (self), NULL);

  return self->name;
}

/**
 * cugi_program_add_header:
 * @self: a #CugiProgram
 * @include_name: the name the source includes, as in `#include "my.h"`
 * @source: the header's source
 *
 * Supplies a header, so that `#include "@include_name"` needs no file.
 * Adding a name again replaces its source. Headers are part of the cache key;
 * they apply from the next compile on.
 *
 * Since: 0.1
 */
void
cugi_program_add_header (CugiProgram *self,
                         const gchar *include_name,
                         const gchar *source)
{
  g_return_if_fail (CUGI_IS_PROGRAM (self));
  g_return_if_fail (include_name != NULL);
  g_return_if_fail (source != NULL);

  for (guint i = 0; i < self->header_names->len; i++)
    if (strcmp (g_ptr_array_index (self->header_names, i), include_name) == 0)
      {
        g_free (g_ptr_array_index (self->header_sources, i));
        g_ptr_array_index (self->header_sources, i) = g_strdup (source);
        return;
      }
  g_ptr_array_add (self->header_names, g_strdup (include_name));
  g_ptr_array_add (self->header_sources, g_strdup (source));
}

/**
 * cugi_program_add_name_expression:
 * @self: a #CugiProgram
 * @expression: a C++ name expression, such as `scale<float>` or `&my_global`
 * @error: return location for a #GError
 *
 * Registers an expression naming a kernel or a `__device__` variable, so
 * that NVRTC instantiates it and cugi_program_get_lowered_name() can give its
 * mangled name after compiling. cugi_module_get_kernel() and
 * cugi_module_get_global() accept registered expressions as names.
 *
 * Fails with %CUGI_ERROR_INVALID_STATE once the program has been compiled.
 *
 * Returns: %TRUE if the expression was registered
 *
 * Since: 0.1
 */
gboolean
cugi_program_add_name_expression (CugiProgram *self,
                                  const gchar *expression,
                                  GError     **error)
{
  g_return_val_if_fail (CUGI_IS_PROGRAM (self), FALSE);
  g_return_val_if_fail (expression != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (*expression == '\0')
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                           _("A name expression cannot be empty"));
      return FALSE;
    }
  if (self->result != NULL || g_atomic_int_get (&self->compiling))
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE,
                   _("Cannot add the name expression “%s”: the program “%s” is compiled already; "
                     "add name expressions before compiling"),
                   expression, display_name (self));
      return FALSE;
    }
  if (!g_ptr_array_find_with_equal_func (self->name_expressions, expression, g_str_equal, NULL))
    g_ptr_array_add (self->name_expressions, g_strdup (expression));
  return TRUE;
}

/**
 * cugi_program_compile:
 * @self: a #CugiProgram
 * @options: (array zero-terminated=1) (nullable): NVRTC options, such as
 *   `-arch=sm_90`, `-std=c++17` or `--use_fast_math`
 * @error: return location for a #GError
 *
 * Compiles the program with NVRTC, in the calling thread, or takes the
 * result from the cache. NVRTC picks the architecture unless @options do:
 * cugi_program_compile_for_device() picks the device's.
 *
 * A program NVRTC rejects fails with %CUGI_ERROR_COMPILE, whose message holds
 * NVRTC's log (also in #CugiProgram:log). Compiling while another compile of
 * the program runs fails with %CUGI_ERROR_INVALID_STATE.
 *
 * Returns: %TRUE if the program compiled
 *
 * Since: 0.1
 */
gboolean
cugi_program_compile (CugiProgram        *self,
                      const gchar * const *options,
                      GError            **error)
{
  g_return_val_if_fail (CUGI_IS_PROGRAM (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return compile_now (self, options, "", error);
}

/**
 * cugi_program_compile_async:
 * @self: a #CugiProgram
 * @options: (array zero-terminated=1) (nullable): NVRTC options
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when the compile is done
 * @user_data: data for @callback
 *
 * Compiles as cugi_program_compile() does, NVRTC running in a worker thread
 * while the thread-default main context goes on; @callback runs there, after
 * the program's properties are updated.
 *
 * Cancelling @cancellable before @callback runs makes
 * cugi_program_compile_finish() report %G_IO_ERROR_CANCELLED, always. It
 * stops a compile that has not started yet; NVRTC cannot be interrupted, so
 * a compile already running finishes in its thread, and the program keeps
 * its outcome (#CugiProgram:compiled and #CugiProgram:log tell it).
 *
 * Since: 0.1
 */
void
cugi_program_compile_async (CugiProgram         *self,
                            const gchar * const *options,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (CUGI_IS_PROGRAM (self));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = compile_task_new (self, cancellable, callback, user_data, cugi_program_compile_async);
  compile_in_background (self, options, "", task);
}

/**
 * cugi_program_compile_finish:
 * @self: a #CugiProgram
 * @result: the #GAsyncResult given to the callback
 * @error: return location for a #GError
 *
 * Finishes cugi_program_compile_async().
 *
 * Returns: %TRUE if the program compiled
 *
 * Since: 0.1
 */
gboolean
cugi_program_compile_finish (CugiProgram  *self,
                             GAsyncResult *result,
                             GError      **error)
{
  return compile_task_finish (self, result, cugi_program_compile_async, error);
}

/**
 * cugi_program_compile_for_arch:
 * @self: a #CugiProgram
 * @major: the compute capability's major number, 9 for an H100
 * @minor: the compute capability's minor number
 * @options: (array zero-terminated=1) (nullable): further NVRTC options
 * @error: return location for a #GError
 *
 * Compiles for devices of compute capability @major.@minor, without needing
 * one: CUBIN for `sm_XY` when this NVRTC supports it, else PTX for the newest
 * architecture it supports below, which the driver compiles when loading.
 * An architecture in @options (`-arch`, `--gpu-architecture`) is respected.
 *
 * Fails with %CUGI_ERROR_INVALID_ARGUMENT when @major.@minor is not a
 * compute capability (a major number from 1 to 99, a minor one from 0 to 9),
 * with %CUGI_ERROR_NOT_SUPPORTED when NVRTC supports no architecture up to
 * @major.@minor, and otherwise as cugi_program_compile() does.
 *
 * Returns: %TRUE if the program compiled
 *
 * Since: 0.1
 */
gboolean
cugi_program_compile_for_arch (CugiProgram         *self,
                               gint                 major,
                               gint                 minor,
                               const gchar * const *options,
                               GError             **error)
{
  g_autofree char *target = NULL;

  g_return_val_if_fail (CUGI_IS_PROGRAM (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  target = cugi_program_target_for_arch (options, major, minor, error);
  return target != NULL && compile_now (self, options, target, error);
}

/**
 * cugi_program_compile_for_device:
 * @self: a #CugiProgram
 * @device: (nullable): the device the code is for, or %NULL for the default
 *   device (`CUGI_DEVICE`, else device 0)
 * @options: (array zero-terminated=1) (nullable): further NVRTC options
 * @error: return location for a #GError
 *
 * Compiles for @device's compute capability, as
 * cugi_program_compile_for_arch() does: CUBIN for the device itself when
 * NVRTC supports it, so that an NVRTC newer than the driver still gives code
 * the driver loads, and PTX otherwise. Without a @device and without a
 * driver or a GPU, this fails with the error of cugi_device_get_default()
 * (%CUGI_ERROR_NOT_AVAILABLE): cugi_program_compile_for_arch() compiles for
 * a GPU that is not there.
 *
 * Returns: %TRUE if the program compiled
 *
 * Since: 0.1
 */
gboolean
cugi_program_compile_for_device (CugiProgram         *self,
                                 CugiDevice          *device,
                                 const gchar * const *options,
                                 GError             **error)
{
  g_autofree char *target = NULL;

  g_return_val_if_fail (CUGI_IS_PROGRAM (self), FALSE);
  g_return_val_if_fail (device == NULL || CUGI_IS_DEVICE (device), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  target = cugi_program_target_for_device (device, options, error);
  return target != NULL && compile_now (self, options, target, error);
}

/**
 * cugi_program_compile_for_device_async:
 * @self: a #CugiProgram
 * @device: (nullable): the device the code is for, or %NULL for the default
 *   device (without one, @callback gets the error)
 * @options: (array zero-terminated=1) (nullable): further NVRTC options
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when the compile is done
 * @user_data: data for @callback
 *
 * Compiles as cugi_program_compile_for_device() does, NVRTC running in a
 * worker thread as in cugi_program_compile_async(), and cancelled as that
 * is.
 *
 * Since: 0.1
 */
void
cugi_program_compile_for_device_async (CugiProgram         *self,
                                       CugiDevice          *device,
                                       const gchar * const *options,
                                       GCancellable        *cancellable,
                                       GAsyncReadyCallback  callback,
                                       gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autofree char *target = NULL;
  GError *error = NULL;

  g_return_if_fail (CUGI_IS_PROGRAM (self));
  g_return_if_fail (device == NULL || CUGI_IS_DEVICE (device));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = compile_task_new (self, cancellable, callback, user_data, cugi_program_compile_for_device_async);
  target = cugi_program_target_for_device (device, options, &error);
  if (target == NULL)
    g_task_return_error (task, error);
  else
    compile_in_background (self, options, target, task);
}

/**
 * cugi_program_compile_for_device_finish:
 * @self: a #CugiProgram
 * @result: the #GAsyncResult given to the callback
 * @error: return location for a #GError
 *
 * Finishes cugi_program_compile_for_device_async().
 *
 * Returns: %TRUE if the program compiled
 *
 * Since: 0.1
 */
gboolean
cugi_program_compile_for_device_finish (CugiProgram  *self,
                                        GAsyncResult *result,
                                        GError      **error)
{
  return compile_task_finish (self, result, cugi_program_compile_for_device_async, error);
}

/**
 * cugi_program_get_compiled:
 * @self: a #CugiProgram
 *
 * Returns: whether the last compile succeeded
 *
 * Since: 0.1
 */
gboolean
cugi_program_get_compiled (CugiProgram *self)
{
  g_return_val_if_fail (CUGI_IS_PROGRAM (self), FALSE);

  return self->result != NULL;
}

/**
 * cugi_program_get_log:
 * @self: a #CugiProgram
 *
 * NVRTC's log of the last compile: its warnings, or the errors that made it
 * fail. A result from the cache comes with the log of the compile that made
 * it.
 *
 * Returns: (nullable): the log, empty when NVRTC had nothing to say; %NULL
 *   before the first compile
 *
 * Since: 0.1
 */
const gchar *
cugi_program_get_log (CugiProgram *self)
{
  g_return_val_if_fail (CUGI_IS_PROGRAM (self), NULL);

  return self->log;
}

/**
 * cugi_program_get_diagnostics:
 * @self: a #CugiProgram
 *
 * NVRTC's errors and warnings from the last compile's log
 * (cugi_program_get_log()), each with its file, line and column: what an
 * editor marks in the source. A failed compile's %CUGI_ERROR_COMPILE error
 * holds the same log as text.
 *
 * Returns: (transfer container) (element-type CugiDiagnostic): the diagnostics,
 *   in NVRTC's order; none before the first compile, or when NVRTC had
 *   nothing to say. Unreferencing the array frees them.
 *
 * Since: 0.1
 */
GPtrArray *
cugi_program_get_diagnostics (CugiProgram *self)
{
  g_return_val_if_fail (CUGI_IS_PROGRAM (self), NULL);

  return cugi_diagnostic_parse_log (self->log);
}

/**
 * cugi_program_get_ptx:
 * @self: a #CugiProgram
 *
 * The PTX of the last successful compile, as text without a terminating NUL.
 *
 * Returns: (transfer full) (nullable): the PTX, or %NULL when the program is
 *   not compiled
 *
 * Since: 0.1
 */
GBytes *
cugi_program_get_ptx (CugiProgram *self)
{
  g_return_val_if_fail (CUGI_IS_PROGRAM (self), NULL);

  if (self->result == NULL || self->result->ptx == NULL)
    return NULL;
  return g_bytes_ref (self->result->ptx);
}

/**
 * cugi_program_get_ptx_string:
 * @self: a #CugiProgram
 *
 * The PTX of the last successful compile as a NUL-terminated string, for
 * languages and C code that want text rather than the #GBytes of
 * cugi_program_get_ptx().
 *
 * Returns: (transfer full) (nullable): the PTX, or %NULL when the program is
 *   not compiled
 *
 * Since: 0.1
 */
gchar *
cugi_program_get_ptx_string (CugiProgram *self)
{
  gsize size = 0;
  const char *ptx;

  g_return_val_if_fail (CUGI_IS_PROGRAM (self), NULL);

  if (self->result == NULL || self->result->ptx == NULL)
    return NULL;
  ptx = g_bytes_get_data (self->result->ptx, &size);
  return g_strndup (ptx, size);
}

/**
 * cugi_program_get_cubin:
 * @self: a #CugiProgram
 *
 * The CUBIN of the last successful compile. NVRTC makes one only for a real
 * architecture (`sm_XY`), not for a virtual one (`compute_XY`).
 *
 * Returns: (transfer full) (nullable): the CUBIN, or %NULL when the program
 *   is not compiled or was compiled to PTX only
 *
 * Since: 0.1
 */
GBytes *
cugi_program_get_cubin (CugiProgram *self)
{
  g_return_val_if_fail (CUGI_IS_PROGRAM (self), NULL);

  if (self->result == NULL || self->result->cubin == NULL)
    return NULL;
  return g_bytes_ref (self->result->cubin);
}

/**
 * cugi_program_get_lowered_name:
 * @self: a #CugiProgram
 * @expression: a name expression given to cugi_program_add_name_expression()
 * @error: return location for a #GError
 *
 * The mangled name NVRTC gave @expression, such as `_Z5scaleIfEvPT_i` for
 * `scale<float>`. Fails with %CUGI_ERROR_INVALID_STATE before the program is
 * compiled and with %CUGI_ERROR_NOT_FOUND for an expression not registered.
 *
 * Returns: (nullable): the lowered name, valid until the next compile
 *
 * Since: 0.1
 */
const gchar *
cugi_program_get_lowered_name (CugiProgram *self,
                               const gchar *expression,
                               GError     **error)
{
  const char *lowered;

  g_return_val_if_fail (CUGI_IS_PROGRAM (self), NULL);
  g_return_val_if_fail (expression != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (self->result == NULL)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE,
                   _("The program “%s” is not compiled: lowered names come from compiling"),
                   display_name (self));
      return NULL;
    }
  lowered = g_hash_table_lookup (self->result->lowered_names, expression);
  if (lowered == NULL)
    g_set_error (error, CUGI_ERROR, CUGI_ERROR_NOT_FOUND,
                 _("“%s” is not a name expression of the program “%s”: "
                   "register it with cugi_program_add_name_expression() before compiling"),
                 expression, display_name (self));
  return lowered;
}

/* ---- private API ---------------------------------------------------------- */

CugiProgramCacheHit
cugi_program_get_cache_hit (CugiProgram *self)
{
  return self->cache_hit;
}

CugiProgramResult *
cugi_program_get_result (CugiProgram *self)
{
  return self->result;
}

char *
cugi_program_dup_cache_key_for_arch (CugiProgram        *self,
                                     gint                major,
                                     gint                minor,
                                     const char * const *options,
                                     GError            **error)
{
  g_autofree char *target = cugi_program_target_for_arch (options, major, minor, error);
  g_autoptr(CugiCompileJob) job = NULL;

  if (target == NULL)
    return NULL;
  job = compile_job_new (self, options, target);
  return cugi_compile_job_compute_key (job);
}
