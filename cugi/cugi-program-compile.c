/* cugi-program-compile.c: what one compile does, apart from the program it
 * is for: the target it chooses, NVRTC's run, and the cache around it. A
 * CugiCompileJob holds its own copy of the inputs, so this runs in a worker
 * thread while the program may change. */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "cugi-context-private.h"
#include "cugi-private.h"
#include "cugi-program-cache.h"
#include "cugi-program-private.h"

/* ---- choosing the target -------------------------------------------------- */

/* Far beyond any GPU, and small enough that major * 10 + minor, the number
 * NVRTC names architectures by, can neither overflow nor wrap onto a real
 * architecture. */
#define MAX_COMPUTE_CAPABILITY_MAJOR 99

char *
cugi_program_choose_target (const int *supported,
                            gsize      n_supported,
                            gint       major,
                            gint       minor,
                            GError   **error)
{
  int wanted;
  int newest_below = -1;
  int oldest = G_MAXINT;

  if (major < 1 || major > MAX_COMPUTE_CAPABILITY_MAJOR || minor < 0 || minor > 9)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("%d.%d is not a compute capability: its major number must be 1 to %d "
                     "and its minor number 0 to 9"),
                   major, minor, MAX_COMPUTE_CAPABILITY_MAJOR);
      return NULL;
    }
  wanted = major * 10 + minor;
  for (gsize i = 0; i < n_supported; i++)
    {
      if (supported[i] == wanted)
        return g_strdup_printf ("sm_%d", wanted);
      if (supported[i] < wanted && supported[i] > newest_below)
        newest_below = supported[i];
      oldest = MIN (oldest, supported[i]);
    }
  if (newest_below < 0)
    {
      if (n_supported == 0)
        g_set_error (error, CUGI_ERROR, CUGI_ERROR_NOT_SUPPORTED,
                     _("NVRTC cannot compile for compute capability %d.%d: it supports no architecture"),
                     major, minor);
      else
        g_set_error (error, CUGI_ERROR, CUGI_ERROR_NOT_SUPPORTED,
                     _("NVRTC cannot compile for compute capability %d.%d: the oldest it supports is %d.%d"),
                     major, minor, oldest / 10, oldest % 10);
      return NULL;
    }
  return g_strdup_printf ("compute_%d", newest_below);
}

/* The architectures the NVRTC of @identity supports, as a cache entry of
 * their own whose log is their list ("50 52 ..."): a warm start chooses its
 * target without loading NVRTC. */
static char *
supported_archs_key (const char *identity)
{
  g_autofree char *text = g_strconcat ("cugi NVRTC supported architectures 1\n", identity, NULL);

  return g_compute_checksum_for_string (G_CHECKSUM_SHA256, text, -1);
}

static GArray *
lookup_supported_archs (const char *key)
{
  CugiProgramCacheHit hit = CUGI_PROGRAM_CACHE_MISS;
  g_autoptr(CugiProgramResult) entry = cugi_program_cache_lookup (key, &hit);
  g_autoptr(GArray) archs = g_array_new (FALSE, FALSE, sizeof (int));
  g_auto(GStrv) words = NULL;

  if (entry == NULL)
    return NULL;
  words = g_strsplit (entry->log, " ", -1);
  for (gsize i = 0; words[i] != NULL; i++)
    {
      gint64 parsed = 0;
      int arch;

      if (!g_ascii_string_to_signed (words[i], 10, 1, G_MAXINT, &parsed, NULL))
        return NULL;
      arch = (int) parsed;
      g_array_append_val (archs, arch);
    }
  return archs->len > 0 ? g_steal_pointer (&archs) : NULL;
}

static void
store_supported_archs (const char   *key,
                       const GArray *archs)
{
  g_autoptr(GString) list = g_string_new (NULL);
  g_autoptr(CugiProgramResult) entry = NULL;

  for (guint i = 0; i < archs->len; i++)
    g_string_append_printf (list, "%s%d", i > 0 ? " " : "", g_array_index (archs, int, i));
  entry = cugi_program_result_new (list->str, NULL, NULL, NULL);
  cugi_program_cache_store (key, entry);
}

static GArray *
query_supported_archs (GError **error)
{
  g_autoptr(GArray) archs = g_array_new (FALSE, TRUE, sizeof (int));
  nvrtcResult failure;
  int count = 0;

  failure = cugi_nvrtc.nvrtcGetNumSupportedArchs (&count);
  if (failure == NVRTC_SUCCESS)
    {
      g_array_set_size (archs, count);
      failure = cugi_nvrtc.nvrtcGetSupportedArchs ((int *) archs->data);
    }
  if (failure != NVRTC_SUCCESS)
    {
      cugi_set_nvrtc_error (error, failure, "nvrtcGetSupportedArchs");
      return NULL;
    }
  return g_steal_pointer (&archs);
}

/* Found once per process: in the cache, else asked of NVRTC, which is
 * loaded for it. */
static gboolean
get_supported_archs (const char *identity,
                     const int **archs,
                     gsize      *n_archs,
                     GError    **error)
{
  static gsize found;
  static GArray *supported;
  static GError *failure;

  if (g_once_init_enter (&found))
    {
      g_autofree char *key = supported_archs_key (identity);

      supported = lookup_supported_archs (key);
      if (supported == NULL && cugi_ensure_nvrtc (&failure) &&
          (supported = query_supported_archs (&failure)) != NULL)
        {
          /* Under the loaded NVRTC's identity, should it not be the one
           * found without loading it. */
          g_autofree char *loaded_key = supported_archs_key (cugi_loader_get_nvrtc_identity (NULL));

          store_supported_archs (loaded_key, supported);
        }
      g_once_init_leave (&found, 1);
    }
  if (supported == NULL)
    {
      g_propagate_error (error, g_error_copy (failure));
      return FALSE;
    }
  *archs = (const int *) supported->data;
  *n_archs = supported->len;
  return TRUE;
}

static gboolean
has_option_prefix (const char * const *options,
                   const char * const *prefixes)
{
  for (gsize i = 0; options != NULL && options[i] != NULL; i++)
    for (gsize j = 0; prefixes[j] != NULL; j++)
      if (g_str_has_prefix (options[i], prefixes[j]))
        return TRUE;
  return FALSE;
}

static gboolean
chooses_architecture (const char * const *options)
{
  static const char * const prefixes[] = { "-arch", "--gpu-architecture", NULL };

  return has_option_prefix (options, prefixes);
}

/* Include directories bring in files the cache key cannot cover. */
static gboolean
reads_include_directories (const char * const *options)
{
  static const char * const prefixes[] = { "-I", "--include-path", "-include", "--pre-include", NULL };

  return has_option_prefix (options, prefixes);
}

char *
cugi_program_target_for_arch (const char * const *options,
                              gint                major,
                              gint                minor,
                              GError            **error)
{
  const int *supported = NULL;
  gsize n_supported = 0;
  const char *identity = cugi_loader_get_nvrtc_identity (error);

  if (identity == NULL)
    return NULL;
  if (chooses_architecture (options))
    return g_strdup ("");
  if (!get_supported_archs (identity, &supported, &n_supported, error))
    return NULL;
  return cugi_program_choose_target (supported, n_supported, major, minor, error);
}

gboolean
cugi_program_query_compute_capability (CUdevice device,
                                       gint    *major,
                                       gint    *minor,
                                       GError **error)
{
  return CUGI_CALL (cuDeviceGetAttribute, (major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device), error) &&
         CUGI_CALL (cuDeviceGetAttribute, (minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device), error);
}

char *
cugi_program_target_for_device (CugiDevice         *device,
                                const char * const *options,
                                GError            **error)
{
  g_autoptr(CugiDevice) default_device = NULL;
  gint major = 0, minor = 0;

  if (device == NULL && (device = default_device = cugi_device_get_default (error)) == NULL)
    return NULL;
  if (!cugi_device_check (device, error) ||
      !cugi_program_query_compute_capability (cugi_device_get_handle (device), &major, &minor, error))
    return NULL;
  return cugi_program_target_for_arch (options, major, minor, error);
}

/* ---- one compile ---------------------------------------------------------- */

void
cugi_compile_job_free (gpointer data)
{
  CugiCompileJob *job = data;

  g_free (job->source);
  g_free (job->name);
  g_strfreev (job->header_names);
  g_strfreev (job->header_sources);
  g_strfreev (job->name_expressions);
  g_strfreev (job->options);
  g_free (job->target);
  g_free (job->log);
  g_clear_pointer (&job->result, cugi_program_result_unref);
  g_clear_error (&job->error);
  g_free (job);
}

char *
cugi_compile_job_compute_key (CugiCompileJob *job)
{
  CugiProgramCacheKeyInputs inputs = {
    .source = job->source,
    .name = job->name,
    .header_names = (const char * const *) job->header_names,
    .header_sources = (const char * const *) job->header_sources,
    .n_headers = g_strv_length (job->header_names),
    .name_expressions = (const char * const *) job->name_expressions,
    .options = (const char * const *) job->options,
    .target = job->target,
    .nvrtc_identity = cugi_loader_get_nvrtc_identity (NULL),
  };

  return cugi_program_cache_compute_key (&inputs);
}

static char *
read_nvrtc_log (nvrtcProgram program)
{
  size_t size = 0;
  g_autofree char *log = NULL;

  if (cugi_nvrtc.nvrtcGetProgramLogSize (program, &size) != NVRTC_SUCCESS || size == 0)
    return g_strdup ("");
  log = g_malloc0 (size + 1);
  if (cugi_nvrtc.nvrtcGetProgramLog (program, log) != NVRTC_SUCCESS)
    return g_strdup ("");
  return g_strchomp (g_steal_pointer (&log));
}

typedef nvrtcResult (*NvrtcSizeFunc) (nvrtcProgram program, size_t *size);
typedef nvrtcResult (*NvrtcCopyFunc) (nvrtcProgram program, char *data);

/* NULL when NVRTC made no output of this kind (no CUBIN for compute_XY). */
static GBytes *
read_nvrtc_output (nvrtcProgram  program,
                   NvrtcSizeFunc get_size,
                   NvrtcCopyFunc copy,
                   gboolean      is_text)
{
  size_t size = 0;
  g_autofree char *data = NULL;

  if (get_size (program, &size) != NVRTC_SUCCESS || size == 0)
    return NULL;
  data = g_malloc (size);
  if (copy (program, data) != NVRTC_SUCCESS)
    return NULL;
  /* PTX comes with a terminating NUL, which is not part of the text. */
  while (is_text && size > 0 && data[size - 1] == '\0')
    size--;
  if (size == 0)
    return NULL;
  return g_bytes_new_take (g_steal_pointer (&data), size);
}

static void
set_nvrtc_failure (GError    **error,
                   nvrtcResult result,
                   const char *operation,
                   const char *program_name,
                   const char *log)
{
  g_autoptr(GError) failure = NULL;

  if (result == NVRTC_ERROR_COMPILATION)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_COMPILE,
                   _("NVRTC could not compile “%s”:\n%s"), program_name, log);
      return;
    }
  cugi_set_nvrtc_error (&failure, result, operation);
  if (log != NULL && *log != '\0')
    g_set_error (error, failure->domain, failure->code, "%s\n%s", failure->message, log);
  else
    g_propagate_error (error, g_steal_pointer (&failure));
}

static CugiProgramResult *
run_nvrtc (CugiCompileJob *job,
           char          **log,
           GError        **error)
{
  nvrtcProgram program = NULL;
  const char *program_name = job->name != NULL ? job->name : CUGI_PROGRAM_DEFAULT_NAME;
  g_autoptr(GHashTable) lowered_names = NULL;
  g_autoptr(GBytes) ptx = NULL;
  g_autoptr(GBytes) cubin = NULL;
  CugiProgramResult *compiled = NULL;
  nvrtcResult result;

  result = cugi_nvrtc.nvrtcCreateProgram (&program, job->source, job->name,
                                          (int) g_strv_length (job->header_names),
                                          (const char * const *) job->header_sources,
                                          (const char * const *) job->header_names);
  if (result != NVRTC_SUCCESS)
    {
      cugi_set_nvrtc_error (error, result, "nvrtcCreateProgram");
      return NULL;
    }
  for (gsize i = 0; job->name_expressions[i] != NULL; i++)
    {
      result = cugi_nvrtc.nvrtcAddNameExpression (program, job->name_expressions[i]);
      if (result != NVRTC_SUCCESS)
        {
          cugi_set_nvrtc_error (error, result, "nvrtcAddNameExpression");
          g_prefix_error (error, "“%s”: ", job->name_expressions[i]);
          goto out;
        }
    }

  result = cugi_nvrtc.nvrtcCompileProgram (program, (int) g_strv_length (job->options),
                                           (const char * const *) job->options);
  *log = read_nvrtc_log (program);
  if (result != NVRTC_SUCCESS)
    {
      set_nvrtc_failure (error, result, "nvrtcCompileProgram", program_name, *log);
      goto out;
    }

  ptx = read_nvrtc_output (program, cugi_nvrtc.nvrtcGetPTXSize, cugi_nvrtc.nvrtcGetPTX, TRUE);
  cubin = read_nvrtc_output (program, cugi_nvrtc.nvrtcGetCUBINSize, cugi_nvrtc.nvrtcGetCUBIN, FALSE);
  lowered_names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  for (gsize i = 0; job->name_expressions[i] != NULL; i++)
    {
      const char *lowered = NULL;

      result = cugi_nvrtc.nvrtcGetLoweredName (program, job->name_expressions[i], &lowered);
      if (result != NVRTC_SUCCESS)
        {
          cugi_set_nvrtc_error (error, result, "nvrtcGetLoweredName");
          g_prefix_error (error, "“%s”: ", job->name_expressions[i]);
          goto out;
        }
      /* Owned by the NVRTC program, which is destroyed below. */
      g_hash_table_insert (lowered_names, g_strdup (job->name_expressions[i]), g_strdup (lowered));
    }
  compiled = cugi_program_result_new (*log, ptx, cubin, lowered_names);

out:
  cugi_nvrtc.nvrtcDestroyProgram (&program);
  return compiled;
}

void
cugi_compile_job_run (CugiCompileJob *job,
                      GCancellable   *cancellable)
{
  g_autofree char *key = NULL;

  if (g_cancellable_set_error_if_cancelled (cancellable, &job->error))
    return;
  job->ran = TRUE;
  if (!reads_include_directories ((const char * const *) job->options))
    key = cugi_compile_job_compute_key (job);
  if (key != NULL)
    {
      job->result = cugi_program_cache_lookup (key, &job->cache_hit);
      if (job->result != NULL)
        {
          job->log = g_strdup (job->result->log);
          return;
        }
    }
  if (!cugi_ensure_nvrtc (&job->error))
    return;
  job->result = run_nvrtc (job, &job->log, &job->error);
  if (job->result != NULL && key != NULL)
    {
      /* An included file that changed while NVRTC ran may be in the result
       * but not in the key. */
      g_autofree char *key_after = cugi_compile_job_compute_key (job);

      if (g_strcmp0 (key, key_after) == 0)
        cugi_program_cache_store (key, job->result);
    }
}
