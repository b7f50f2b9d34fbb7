/* cugi-module.c: PTX, CUBIN and fatbinaries loaded into a context */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "cugi-context-private.h"
#include "cugi-private.h"
#include "cugi-program-private.h"
#include "cugi-memory-private.h"

/**
 * CugiModule:
 *
 * Device code loaded into a #CugiContext: a CUBIN, a fatbinary, or PTX that
 * the driver compiles for the context's device when loading it. Its kernels
 * come out with cugi_module_get_kernel(), its `__device__` and `__constant__`
 * variables as buffers with cugi_module_get_global().
 *
 * A module loaded from a #CugiProgram also knows the program's name
 * expressions, so a kernel template instance can be asked for as
 * `scale<float>` rather than by its mangled name.
 *
 * The module keeps its context alive, and kernels and globals keep the
 * module alive; it is unloaded when the last of them goes.
 *
 * Since: 0.1
 */

struct _CugiModule
{
  GObject parent_instance;

  CugiContextBinding binding;  /* to the generation the load began in */
  CUmodule     handle;         /* NULL in a module made with g_object_new() */
  GHashTable  *lowered_names;  /* name expression -> lowered name, or NULL */
  GHashTable  *param_counts;   /* kernel symbol -> parameter count, or NULL */
  char        *cache_key;      /* set while in the table of loaded modules */
  char        *info_log;       /* what the JIT compiler or linker logged, or NULL */
};

G_DEFINE_FINAL_TYPE (CugiModule, cugi_module, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_CONTEXT,
  PROP_INFO_LOG,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* ---- modules loaded from source, once per context ------------------------- */

/* What cugi_module_new_from_source_cached() loaded: CugiContext * ->
 * (cache key -> GWeakRef to a CugiModule).
 *
 * The references are weak. A module holds its context, so a strong one would
 * keep every context with a cached module alive forever. A weak one keeps a
 * module in the table as long as anyone (a kernel) uses it; loading it again
 * afterwards is an in-memory cache hit and one cuModuleLoadData. A module
 * leaves the table when it is finalized, and a context's table goes with its
 * last module, so the table never holds the address of a dead context. */
G_LOCK_DEFINE_STATIC (loaded_modules);
static GHashTable *loaded_modules;

static void
weak_ref_free (gpointer data)
{
  g_weak_ref_clear (data);
  g_free (data);
}

/* A live module for @key loaded into @context since its last reset. */
static CugiModule *
loaded_modules_lookup (CugiContext *context,
                       const char  *key)
{
  GHashTable *per_context;
  GWeakRef *ref = NULL;
  CugiModule *module = NULL;

  G_LOCK (loaded_modules);
  per_context = loaded_modules != NULL ? g_hash_table_lookup (loaded_modules, context) : NULL;
  if (per_context != NULL)
    ref = g_hash_table_lookup (per_context, key);
  if (ref != NULL)
    module = g_weak_ref_get (ref);
  G_UNLOCK (loaded_modules);

  /* Unreferenced outside the lock: finalizing takes it. */
  if (module != NULL && !cugi_context_binding_is_current (&module->binding))
    g_clear_object (&module);
  return module;
}

/* Enters @module (transfer full) under @key, unless another thread entered
 * a module for @key meanwhile: the one in the table is returned. */
static CugiModule *
loaded_modules_add (CugiContext *context,
                    const char  *key,
                    CugiModule  *module)
{
  GHashTable *per_context;
  GWeakRef *ref;
  CugiModule *existing = NULL;
  CugiModule *kept;
  CugiModule *dropped;

  G_LOCK (loaded_modules);
  if (loaded_modules == NULL)
    loaded_modules = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL,
                                            (GDestroyNotify) g_hash_table_unref);
  per_context = g_hash_table_lookup (loaded_modules, context);
  if (per_context == NULL)
    {
      per_context = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, weak_ref_free);
      g_hash_table_insert (loaded_modules, context, per_context);
    }
  ref = g_hash_table_lookup (per_context, key);
  if (ref != NULL)
    existing = g_weak_ref_get (ref);
  if (existing != NULL && existing->binding.generation == module->binding.generation)
    {
      kept = existing;
      dropped = module;
    }
  else
    {
      ref = g_new0 (GWeakRef, 1);
      g_weak_ref_init (ref, module);
      g_hash_table_replace (per_context, g_strdup (key), ref);
      module->cache_key = g_strdup (key);
      kept = module;
      dropped = existing;
    }
  G_UNLOCK (loaded_modules);

  g_clear_object (&dropped);
  return kept;
}

/* From finalize: removes @self's entry, unless a newer module took it. */
static void
loaded_modules_forget (CugiModule *self)
{
  GHashTable *per_context;
  GWeakRef *ref = NULL;
  CugiModule *current = NULL;

  G_LOCK (loaded_modules);
  per_context = g_hash_table_lookup (loaded_modules, self->binding.context);
  if (per_context != NULL)
    ref = g_hash_table_lookup (per_context, self->cache_key);
  if (ref != NULL)
    {
      current = g_weak_ref_get (ref);
      if (current == NULL)
        g_hash_table_remove (per_context, self->cache_key);
    }
  if (per_context != NULL && g_hash_table_size (per_context) == 0)
    g_hash_table_remove (loaded_modules, self->binding.context);
  G_UNLOCK (loaded_modules);

  g_clear_object (&current);
}

/* ---- loading -------------------------------------------------------------- */

static gboolean
is_binary_image (const guint8 *data,
                 gsize         size)
{
  static const guint8 elf_magic[] = { 0x7f, 'E', 'L', 'F' };
  /* A fatbinary's magic number, 0xba55ed50, little-endian. */
  static const guint8 fatbin_magic[] = { 0x50, 0xed, 0x55, 0xba };

  return size >= 4 && (memcmp (data, elf_magic, 4) == 0 || memcmp (data, fatbin_magic, 4) == 0);
}

/* The driver reads PTX up to a NUL, which a GBytes of text need not have. */
static GBytes *
terminated_image (GBytes *image)
{
  gsize size = 0;
  const guint8 *data = g_bytes_get_data (image, &size);
  guint8 *copy;

  if (is_binary_image (data, size) || data[size - 1] == '\0')
    return g_bytes_ref (image);
  copy = g_malloc (size + 1);
  memcpy (copy, data, size);
  copy[size] = '\0';
  return g_bytes_new_take (copy, size + 1);
}

/* Loads @image with @options (may be NULL); the JIT's info log goes to
 * @info_log (NULL when empty), its error log into @error. */
static CUmodule
load_image (CugiContext     *context,
            GBytes          *image,
            CugiJitOptions  *options,
            char           **info_log,
            GError         **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  g_autoptr(GBytes) terminated = NULL;
  g_autoptr(GError) failure = NULL;
  g_autofree CugiJitArrays *arrays = NULL;
  CUmodule module = NULL;
  CUresult result;

  if (g_bytes_get_size (image) == 0)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_IMAGE,
                           _("The module image is empty"));
      return NULL;
    }
  arrays = cugi_jit_arrays_new (options, error);
  if (arrays == NULL || !cugi_context_enter (context, &scope, error))
    return NULL;

  terminated = terminated_image (image);
  result = cugi_cuda.cuModuleLoadDataEx (&module, g_bytes_get_data (terminated, NULL),
                                         arrays->n, arrays->options, arrays->values);
  if (!cugi_check_result (result, "cuModuleLoadDataEx", &failure))
    {
      cugi_jit_arrays_propagate_error (arrays, g_steal_pointer (&failure), error);
      return NULL;
    }
  *info_log = cugi_jit_arrays_dup_info_log (arrays);
  return module;
}

/* Joins what the linker and the loader logged, either of which may be NULL. */
static char *
join_logs (const char *first,
           char       *second)
{
  g_autofree char *owned = second;

  if (first == NULL)
    return g_steal_pointer (&owned);
  if (owned == NULL)
    return g_strdup (first);
  return g_strconcat (first, "\n", owned, NULL);
}

static CugiModule *
module_new (CugiContext    *context_or_null,
            GBytes         *image,
            CugiJitOptions *options,
            GHashTable     *lowered_names,
            const char     *link_log,
            GError        **error)
{
  g_autoptr(CugiContext) context = NULL;
  CugiContextBinding binding;
  CugiModule *self;
  CUmodule handle;
  char *info_log = NULL;

  if (!cugi_ensure_driver (error))
    return NULL;
  context = cugi_context_resolve (context_or_null, error);
  if (context == NULL)
    return NULL;
  /* Bound first: a reset during the load then makes the module stale. */
  cugi_context_binding_init (&binding, context, CUGI_CONTEXT_BINDING_NONE);
  handle = load_image (context, image, options, &info_log, error);
  if (handle == NULL)
    {
      cugi_context_binding_clear (&binding);
      return NULL;
    }

  self = g_object_new (CUGI_TYPE_MODULE, NULL);
  self->binding = binding;
  self->handle = handle;
  self->info_log = join_logs (link_log, info_log);
  self->lowered_names = lowered_names != NULL ? g_hash_table_ref (lowered_names) : NULL;
  self->param_counts = cugi_image_read_param_counts (g_bytes_get_data (image, NULL),
                                                     g_bytes_get_size (image));
  return self;
}

/* Checks that the module is usable and makes its context current. */
static gboolean
module_enter (CugiModule       *self,
              CugiContextScope *scope,
              GError          **error)
{
  if (self->handle == NULL)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE,
                           _("This module holds no code: make modules with cugi_module_new_from_data(), "
                             "cugi_module_new_from_file() or cugi_module_new_from_program()"));
      return FALSE;
    }
  return cugi_context_binding_enter (&self->binding, scope,
                                     N_("This module was unloaded when its context was reset: load it again"),
                                     error);
}

/* The symbol for @name: its lowered name when @name is a name expression of
 * the module's program, else @name itself (an extern "C" or mangled name). */
static const char *
symbol_for (CugiModule *self,
            const char *name)
{
  const char *lowered = self->lowered_names != NULL ? g_hash_table_lookup (self->lowered_names, name) : NULL;

  return lowered != NULL ? lowered : name;
}

/* “name”, or “name” (lowered name “symbol”) when they differ. */
static char *
describe_symbol (const char *name,
                 const char *symbol)
{
  if (strcmp (name, symbol) == 0)
    return g_strdup_printf ("“%s”", name);
  return g_strdup_printf (_("“%s” (lowered name “%s”)"), name, symbol);
}

/* ---- the class ------------------------------------------------------------ */

static void
cugi_module_finalize (GObject *object)
{
  CugiModule *self = CUGI_MODULE (object);

  if (self->cache_key != NULL)
    loaded_modules_forget (self);
  /* After a reset the driver has unloaded it already. */
  if (self->handle != NULL && cugi_context_binding_is_current (&self->binding))
    {
      g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
      g_autoptr(GError) error = NULL;

      if (!cugi_context_enter (self->binding.context, &scope, &error) ||
          !CUGI_CALL (cuModuleUnload, (self->handle), &error))
        g_debug ("Cannot unload a module: %s", error->message);
    }
  g_clear_pointer (&self->lowered_names, g_hash_table_unref);
  g_clear_pointer (&self->param_counts, g_hash_table_unref);
  g_free (self->cache_key);
  g_free (self->info_log);
  cugi_context_binding_clear (&self->binding);

  G_OBJECT_CLASS (cugi_module_parent_class)->finalize (object);
}

static void
cugi_module_get_property (GObject    *object,
                          guint       prop_id,
                          GValue     *value,
                          GParamSpec *pspec)
{
  CugiModule *self = CUGI_MODULE (object);

  switch (prop_id)
    {
    case PROP_CONTEXT:
      g_value_set_object (value, self->binding.context);
      break;
    case PROP_INFO_LOG:
      g_value_set_string (value, self->info_log);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cugi_module_class_init (CugiModuleClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = cugi_module_finalize;
  object_class->get_property = cugi_module_get_property;

  /**
   * CugiModule:context:
   *
   * The context the module is loaded into; %NULL only for a module made
   * with g_object_new(), which holds no code.
   *
   * Since: 0.1
   */
  properties[PROP_CONTEXT] =
    g_param_spec_object ("context", NULL, NULL, CUGI_TYPE_CONTEXT,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * CugiModule:info-log:
   *
   * What the driver's JIT compiler (and, for a module of a #CugiLinker, the
   * linker) wrote to its info log while loading the module: the registers
   * and memory of each function with cugi_jit_options_set_verbose(),
   * warnings otherwise; %NULL when it wrote nothing.
   *
   * Since: 0.1
   */
  properties[PROP_INFO_LOG] =
    g_param_spec_string ("info-log", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
cugi_module_init (CugiModule *self)
{
}

/* ---- public API ----------------------------------------------------------- */

/**
 * cugi_module_new_from_data:
 * @context: (nullable): the context to load into, or %NULL for the default
 * @image: a CUBIN, a fatbinary, or PTX text (with or without a terminating
 *   NUL)
 * @error: return location for a #GError
 *
 * Loads device code into @context. PTX is compiled by the driver for the
 * context's device, which needs a driver at least as new as the PTX.
 *
 * Data the driver cannot load fails with %CUGI_ERROR_INVALID_IMAGE (or the
 * driver's own error), whose message holds the JIT compiler's log.
 *
 * Returns: (transfer full): the module, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiModule *
cugi_module_new_from_data (CugiContext *context,
                           GBytes      *image,
                           GError     **error)
{
  g_return_val_if_fail (context == NULL || CUGI_IS_CONTEXT (context), NULL);
  g_return_val_if_fail (image != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return module_new (context, image, NULL, NULL, NULL, error);
}

/**
 * cugi_module_new_from_data_with_options:
 * @context: (nullable): the context to load into, or %NULL for the default
 * @image: a CUBIN, a fatbinary, or PTX text (with or without a terminating
 *   NUL)
 * @options: (nullable): how the driver compiles and loads @image, or %NULL
 *   for its defaults
 * @error: return location for a #GError
 *
 * cugi_module_new_from_data() with JIT options (`cuModuleLoadDataEx`): the
 * register limit, optimization level, target and fallback strategy apply to
 * PTX the driver compiles and to the choice it makes in a fatbinary. What
 * the JIT compiler logs is #CugiModule:info-log; its error log is in the
 * message of @error when loading fails. Options out of range fail with
 * %CUGI_ERROR_INVALID_ARGUMENT.
 *
 * Returns: (transfer full): the module, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiModule *
cugi_module_new_from_data_with_options (CugiContext    *context,
                                        GBytes         *image,
                                        CugiJitOptions *options,
                                        GError        **error)
{
  g_return_val_if_fail (context == NULL || CUGI_IS_CONTEXT (context), NULL);
  g_return_val_if_fail (image != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return module_new (context, image, options, NULL, NULL, error);
}

/**
 * cugi_module_new_from_file:
 * @context: (nullable): the context to load into, or %NULL for the default
 * @path: (type filename): a `.cubin`, `.fatbin` or `.ptx` file
 * @error: return location for a #GError
 *
 * Reads @path and loads it as cugi_module_new_from_data() does. A file that
 * cannot be read fails with a #GFileError.
 *
 * Returns: (transfer full): the module, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiModule *
cugi_module_new_from_file (CugiContext *context,
                           const gchar *path,
                           GError     **error)
{
  g_autoptr(GBytes) image = NULL;
  char *contents = NULL;
  gsize size = 0;

  g_return_val_if_fail (context == NULL || CUGI_IS_CONTEXT (context), NULL);
  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!g_file_get_contents (path, &contents, &size, error))
    return NULL;
  image = g_bytes_new_take (contents, size);
  return module_new (context, image, NULL, NULL, NULL, error);
}

/**
 * cugi_module_new_from_program:
 * @context: (nullable): the context to load into, or %NULL for the default
 * @program: a compiled #CugiProgram
 * @error: return location for a #GError
 *
 * Loads what @program compiled to: its CUBIN when it has one, else its PTX.
 * The module takes the program's name expressions, which
 * cugi_module_get_kernel() and cugi_module_get_global() then accept as names.
 * An uncompiled program fails with %CUGI_ERROR_INVALID_STATE.
 *
 * Returns: (transfer full): the module, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiModule *
cugi_module_new_from_program (CugiContext *context,
                              CugiProgram *program,
                              GError     **error)
{
  g_return_val_if_fail (context == NULL || CUGI_IS_CONTEXT (context), NULL);
  g_return_val_if_fail (CUGI_IS_PROGRAM (program), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return cugi_module_new_from_program_with_options (context, program, NULL, error);
}

/**
 * cugi_module_new_from_program_with_options:
 * @context: (nullable): the context to load into, or %NULL for the default
 * @program: a compiled #CugiProgram
 * @options: (nullable): how the driver compiles and loads the program's
 *   code, or %NULL for its defaults
 * @error: return location for a #GError
 *
 * cugi_module_new_from_program() with JIT options, as
 * cugi_module_new_from_data_with_options() takes them; they matter for a
 * program compiled to PTX only (for a virtual `compute_XY` target).
 *
 * Returns: (transfer full): the module, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiModule *
cugi_module_new_from_program_with_options (CugiContext    *context,
                                           CugiProgram    *program,
                                           CugiJitOptions *options,
                                           GError        **error)
{
  GHashTable *lowered_names = NULL;
  GBytes *image;

  g_return_val_if_fail (context == NULL || CUGI_IS_CONTEXT (context), NULL);
  g_return_val_if_fail (CUGI_IS_PROGRAM (program), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  image = cugi_module_program_image (program, &lowered_names, NULL, error);
  if (image == NULL)
    return NULL;
  return module_new (context, image, options, lowered_names, NULL, error);
}

/**
 * cugi_module_get_context:
 * @self: a #CugiModule
 *
 * Returns: (transfer none) (nullable): the value of #CugiModule:context
 *
 * Since: 0.1
 */
CugiContext *
cugi_module_get_context (CugiModule *self)
{
  g_return_val_if_fail (CUGI_IS_MODULE (self), NULL);

  return self->binding.context;
}

/**
 * cugi_module_get_info_log:
 * @self: a #CugiModule
 *
 * Returns: (nullable): the value of #CugiModule:info-log
 *
 * Since: 0.1
 */
const gchar *
cugi_module_get_info_log (CugiModule *self)
{
  g_return_val_if_fail (CUGI_IS_MODULE (self), NULL);

  return self->info_log;
}

/* The function of @self that cugi_module_get_kernel() (in the kernels
 * layer, which makes the kernel) asks for by @name; @symbol is its name in
 * the module, owned by @self. */
gboolean
cugi_module_find_function (CugiModule  *self,
                           const char  *name,
                           CUfunction  *function,
                           const char **symbol,
                           GError     **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CUresult result;

  if (!module_enter (self, &scope, error))
    return FALSE;
  *symbol = symbol_for (self, name);
  result = cugi_cuda.cuModuleGetFunction (function, self->handle, *symbol);
  if (result == CUDA_ERROR_NOT_FOUND)
    {
      g_autofree char *described = describe_symbol (name, *symbol);

      g_set_error (error, CUGI_ERROR, CUGI_ERROR_NOT_FOUND,
                   _("The module has no kernel %s"), described);
      return FALSE;
    }
  return cugi_check_result (result, "cuModuleGetFunction", error);
}

/**
 * cugi_module_get_global:
 * @self: a #CugiModule
 * @name: the name of a `__device__` or `__constant__` variable, or a name
 *   expression of the program the module was loaded from
 * @error: return location for a #GError
 *
 * The variable's memory as a buffer, through which `__constant__` data can
 * be uploaded with cugi_buffer_upload() before launching the kernels that
 * read it. The buffer keeps the module alive. A name the module lacks fails
 * with %CUGI_ERROR_NOT_FOUND.
 *
 * Returns: (transfer full): a buffer over the variable
 *
 * Since: 0.1
 */
CugiBuffer *
cugi_module_get_global (CugiModule  *self,
                        const gchar *name,
                        GError     **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CUdeviceptr address = 0;
  size_t size = 0;
  const char *symbol;
  CUresult result;

  g_return_val_if_fail (CUGI_IS_MODULE (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!module_enter (self, &scope, error))
    return NULL;
  symbol = symbol_for (self, name);
  result = cugi_cuda.cuModuleGetGlobal (&address, &size, self->handle, symbol);
  if (result == CUDA_ERROR_NOT_FOUND)
    {
      g_autofree char *described = describe_symbol (name, symbol);

      g_set_error (error, CUGI_ERROR, CUGI_ERROR_NOT_FOUND,
                   _("The module has no global variable %s"), described);
      return NULL;
    }
  if (!cugi_check_result (result, "cuModuleGetGlobal", error))
    return NULL;
  return cugi_buffer_new_wrapping (self->binding.context, address, size, G_OBJECT (self));
}

/* ---- private API ---------------------------------------------------------- */

GBytes *
cugi_module_program_image (CugiProgram  *program,
                           GHashTable  **lowered_names,
                           gboolean     *is_cubin,
                           GError      **error)
{
  CugiProgramResult *compiled = cugi_program_get_result (program);

  if (compiled == NULL)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE,
                           _("The program is not compiled: compile it before loading it"));
      return NULL;
    }
  if (compiled->cubin == NULL && compiled->ptx == NULL)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE,
                           _("NVRTC produced neither CUBIN nor PTX for the program"));
      return NULL;
    }
  *lowered_names = compiled->lowered_names;
  if (is_cubin != NULL)
    *is_cubin = compiled->cubin != NULL;
  return compiled->cubin != NULL ? compiled->cubin : compiled->ptx;
}

CugiModule *
cugi_module_new_linked (CugiContext  *context,
                        GBytes       *image,
                        GHashTable   *lowered_names,
                        const char   *info_log,
                        GError      **error)
{
  return module_new (context, image, NULL, lowered_names, info_log, error);
}

CUmodule
cugi_module_get_handle (CugiModule *self)
{
  return self->handle;
}

gint
cugi_module_get_param_count (CugiModule *self,
                             const char *symbol)
{
  gpointer count;

  if (self->param_counts == NULL ||
      !g_hash_table_lookup_extended (self->param_counts, symbol, NULL, &count))
    return -1;
  return GPOINTER_TO_INT (count);
}

/* The compute capability of @context's device. */
static gboolean
query_context_compute_capability (CugiContext *context,
                                  gint        *major,
                                  gint        *minor,
                                  GError     **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CUdevice device = 0;

  return cugi_context_enter (context, &scope, error) &&
         CUGI_CALL (cuCtxGetDevice, (&device), error) &&
         cugi_program_query_compute_capability (device, major, minor, error);
}

CugiModule *
cugi_module_new_from_source_cached (CugiContext        *context,
                                    const char         *source,
                                    const char * const *options,
                                    const char * const *name_expressions,
                                    GError            **error)
{
  g_autoptr(CugiContext) resolved = NULL;
  g_autoptr(CugiProgram) program = NULL;
  g_autofree char *key = NULL;
  CugiModule *module;
  gint major = 0, minor = 0;

  if (!cugi_ensure_driver (error))
    return NULL;
  resolved = cugi_context_resolve (context, error);
  if (resolved == NULL ||
      !query_context_compute_capability (resolved, &major, &minor, error))
    return NULL;

  program = cugi_program_new (source, NULL);
  for (gsize i = 0; name_expressions != NULL && name_expressions[i] != NULL; i++)
    if (!cugi_program_add_name_expression (program, name_expressions[i], error))
      return NULL;
  key = cugi_program_dup_cache_key_for_arch (program, major, minor, options, error);
  if (key == NULL)
    return NULL;

  module = loaded_modules_lookup (resolved, key);
  if (module != NULL)
    return module;
  if (!cugi_program_compile_for_arch (program, major, minor, options, error))
    return NULL;
  module = cugi_module_new_from_program (resolved, program, error);
  if (module == NULL)
    return NULL;
  return loaded_modules_add (resolved, key, module);
}
