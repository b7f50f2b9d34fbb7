/* cugi-linker.c: device code from several inputs linked into one module */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "cugi-context-private.h"
#include "cugi-private.h"
#include "cugi-program-private.h"

/**
 * CugiLinker:
 *
 * The driver's linker (`cuLink*`): PTX, CUBIN, fatbinary, object and library
 * inputs linked into one #CugiModule, as PyCUDA's `Linker` and cuda.core's
 * `Linker` do. It is what relocatable device code needs: NVRTC programs
 * compiled with `-rdc=true` whose kernels call `__device__` functions of
 * other programs (declared `extern __device__`), and kernels that launch
 * kernels themselves (dynamic parallelism), which also need the device
 * runtime library (cugi_linker_add_device_runtime()).
 *
 * |[<!-- language="C" -->
 * g_autoptr(CugiLinker) linker = cugi_linker_new (NULL, NULL, &error);
 * if (linker == NULL ||
 *     !cugi_linker_add_program (linker, helpers, &error) ||   // -rdc=true
 *     !cugi_linker_add_program (linker, kernels, &error))     // -rdc=true
 *   return FALSE;
 * module = cugi_linker_complete (linker, &error);
 * ]|
 *
 * Inputs are added in any order; cugi_linker_complete() resolves the
 * symbols and loads the result. A failure (an undefined symbol, PTX that
 * does not compile) is a #GError whose message holds the linker's error
 * log; what the linker reports besides is #CugiLinker:info-log. The module
 * is loaded from a copy of the linked image, so the linker can be dropped
 * once it is complete, which it cannot be twice.
 *
 * Since: 0.1
 */

struct _CugiLinker
{
  GObject             parent_instance;

  CugiContextBinding  binding;
  CUlinkState         state;         /* NULL before a link state, and once complete */
  CugiJitArrays      *arrays;        /* the state's options and logs, which the driver writes */
  GHashTable         *lowered_names; /* of the programs added: name expression -> lowered name */
  char               *info_log;
  gboolean            completed;
};

G_DEFINE_FINAL_TYPE (CugiLinker, cugi_linker, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_CONTEXT,
  PROP_INFO_LOG,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_STATIC_ASSERT ((int) CUGI_LINK_INPUT_CUBIN == CU_JIT_INPUT_CUBIN);
G_STATIC_ASSERT ((int) CUGI_LINK_INPUT_PTX == CU_JIT_INPUT_PTX);
G_STATIC_ASSERT ((int) CUGI_LINK_INPUT_FATBINARY == CU_JIT_INPUT_FATBINARY);
G_STATIC_ASSERT ((int) CUGI_LINK_INPUT_OBJECT == CU_JIT_INPUT_OBJECT);
G_STATIC_ASSERT ((int) CUGI_LINK_INPUT_LIBRARY == CU_JIT_INPUT_LIBRARY);

#define DEVICE_RUNTIME "libcudadevrt.a"

/* ---- the class ------------------------------------------------------------ */

/* The link state's resources; @self's context is current or gone. */
static void
destroy_state (CugiLinker *self)
{
  g_autoptr(GError) error = NULL;

  if (self->state != NULL && !CUGI_CALL (cuLinkDestroy, (self->state), &error))
    g_debug ("Cannot destroy a link state: %s", error->message);
  self->state = NULL;
}

static void
cugi_linker_finalize (GObject *object)
{
  CugiLinker *self = CUGI_LINKER (object);

  /* After a reset the driver has destroyed it already. */
  if (self->state != NULL && cugi_context_binding_is_current (&self->binding))
    {
      g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;

      if (cugi_context_enter (self->binding.context, &scope, NULL))
        destroy_state (self);
    }
  g_free (self->arrays);
  g_clear_pointer (&self->lowered_names, g_hash_table_unref);
  g_free (self->info_log);
  cugi_context_binding_clear (&self->binding);

  G_OBJECT_CLASS (cugi_linker_parent_class)->finalize (object);
}

static void
cugi_linker_get_property (GObject    *object,
                          guint       prop_id,
                          GValue     *value,
                          GParamSpec *pspec)
{
  CugiLinker *self = CUGI_LINKER (object);

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
cugi_linker_class_init (CugiLinkerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = cugi_linker_finalize;
  object_class->get_property = cugi_linker_get_property;

  /**
   * CugiLinker:context:
   *
   * The context the linker links for, and loads the module into; %NULL only
   * for a linker made with g_object_new(), which cannot link.
   *
   * Since: 0.1
   */
  properties[PROP_CONTEXT] =
    g_param_spec_object ("context", NULL, NULL, CUGI_TYPE_CONTEXT,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * CugiLinker:info-log:
   *
   * What the linker (and the JIT compiler, for PTX inputs) wrote to its
   * info log so far, %NULL while it wrote nothing; updated after each input
   * and by cugi_linker_complete(). With cugi_jit_options_set_verbose() it
   * lists the registers and memory of each function.
   *
   * Since: 0.1
   */
  properties[PROP_INFO_LOG] =
    g_param_spec_string ("info-log", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
cugi_linker_init (CugiLinker *self)
{
  self->lowered_names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
}

/* ---- linking -------------------------------------------------------------- */

/* Takes the info log as the driver left it, and tells when it changed. */
static void
update_info_log (CugiLinker *self)
{
  g_autofree char *log = cugi_jit_arrays_dup_info_log (self->arrays);

  if (g_strcmp0 (log, self->info_log) == 0)
    return;
  g_free (self->info_log);
  self->info_log = g_steal_pointer (&log);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_INFO_LOG]);
}

/* Checks that inputs can be added, and makes the context current. */
static gboolean
linker_enter (CugiLinker       *self,
              CugiContextScope *scope,
              GError          **error)
{
  if (self->binding.context == NULL)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE,
                           _("This CugiLinker cannot link: make linkers with cugi_linker_new()"));
      return FALSE;
    }
  if (self->completed)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE,
                           _("The linker is complete already: make another one to link again"));
      return FALSE;
    }
  return cugi_context_binding_enter (&self->binding, scope,
                                     N_("The linker's context was reset since the linker was made, "
                                        "which destroyed what it linked: make a new linker"),
                                     error);
}

/* After a cuLink* call: the error with the linker's log, and the info log. */
static gboolean
check_link_result (CugiLinker  *self,
                   CUresult     result,
                   const char  *function,
                   GError     **error)
{
  GError *failure = NULL;
  gboolean ok = cugi_check_result (result, function, &failure);

  update_info_log (self);
  if (!ok)
    cugi_jit_arrays_propagate_error (self->arrays, failure, error);
  return ok;
}

static gboolean
check_input_type (CugiLinkInput   type,
                  GError        **error)
{
  return cugi_check_enum_value (CUGI_TYPE_LINK_INPUT, type, error);
}

/**
 * cugi_linker_new:
 * @context: (nullable): the context to link for, or %NULL for the default
 *   context
 * @options: (nullable): JIT options for the PTX inputs and the link, or
 *   %NULL for the driver's defaults
 * @error: return location for a #GError
 *
 * Starts a link (`cuLinkCreate`) for @context's device. Options out of
 * range fail with %CUGI_ERROR_INVALID_ARGUMENT.
 *
 * Returns: (transfer full): the linker, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiLinker *
cugi_linker_new (CugiContext     *context,
                 CugiJitOptions  *options,
                 GError         **error)
{
  g_autoptr(CugiContext) resolved = NULL;
  g_autoptr(CugiLinker) self = NULL;
  g_autofree CugiJitArrays *arrays = NULL;
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;

  g_return_val_if_fail (context == NULL || CUGI_IS_CONTEXT (context), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!cugi_ensure_driver (error) ||
      (resolved = cugi_context_resolve (context, error)) == NULL ||
      (arrays = cugi_jit_arrays_new (options, error)) == NULL ||
      !cugi_context_enter (resolved, &scope, error))
    return NULL;

  self = g_object_new (CUGI_TYPE_LINKER, NULL);
  cugi_context_binding_init (&self->binding, resolved, CUGI_CONTEXT_BINDING_NONE);
  self->arrays = g_steal_pointer (&arrays);
  if (!check_link_result (self, cugi_cuda.cuLinkCreate (self->arrays->n, self->arrays->options,
                                                        self->arrays->values, &self->state),
                          "cuLinkCreate", error))
    return NULL;
  return g_steal_pointer (&self);
}

/**
 * cugi_linker_add_data:
 * @self: a #CugiLinker
 * @type: what @data is
 * @data: the input
 * @name: (nullable): a name for @data in the linker's logs, or %NULL
 * @error: return location for a #GError
 *
 * Adds an input from memory (`cuLinkAddData`). PTX is compiled now, so
 * PTX with errors fails here, with the compiler's log in @error. Unknown
 * types and empty data fail with %CUGI_ERROR_INVALID_ARGUMENT, and so does
 * every call once the linker is complete (%CUGI_ERROR_INVALID_STATE).
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
cugi_linker_add_data (CugiLinker     *self,
                      CugiLinkInput   type,
                      GBytes         *data,
                      const gchar    *name,
                      GError        **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  g_autoptr(GBytes) terminated = NULL;
  gsize size = 0;
  const guint8 *bytes;

  g_return_val_if_fail (CUGI_IS_LINKER (self), FALSE);
  g_return_val_if_fail (data != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!check_input_type (type, error))
    return FALSE;
  bytes = g_bytes_get_data (data, &size);
  if (size == 0)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("The linker input “%s” is empty"), name != NULL ? name : "");
      return FALSE;
    }
  if (!linker_enter (self, &scope, error))
    return FALSE;
  /* PTX is text the driver reads up to a NUL, which GBytes need not have. */
  if (type == CUGI_LINK_INPUT_PTX && bytes[size - 1] != '\0')
    {
      guint8 *copy = g_malloc (size + 1);

      memcpy (copy, bytes, size);
      copy[size] = '\0';
      terminated = g_bytes_new_take (copy, size + 1);
      bytes = g_bytes_get_data (terminated, &size);
    }
  return check_link_result (self, cugi_cuda.cuLinkAddData (self->state, (CUjitInputType) type, (void *) bytes,
                                                           size, name, 0, NULL, NULL),
                            "cuLinkAddData", error);
}

/**
 * cugi_linker_add_file:
 * @self: a #CugiLinker
 * @type: what the file holds
 * @path: (type filename): the file
 * @error: return location for a #GError
 *
 * Adds an input from a file (`cuLinkAddFile`), as cugi_linker_add_data()
 * does. A path that is no regular file fails with a #GFileError saying
 * what it is: %G_FILE_ERROR_NOENT where nothing is there,
 * %G_FILE_ERROR_ISDIR for a directory, %G_FILE_ERROR_INVAL for a device, a
 * named pipe or a socket, %G_FILE_ERROR_ACCES for a file this process may
 * not read.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
cugi_linker_add_file (CugiLinker     *self,
                      CugiLinkInput   type,
                      const gchar    *path,
                      GError        **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;

  g_return_val_if_fail (CUGI_IS_LINKER (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!check_input_type (type, error))
    return FALSE;
  if (!cugi_check_regular_file (path, error))
    {
      g_prefix_error (error, _("Cannot link: "));
      return FALSE;
    }
  if (!linker_enter (self, &scope, error))
    return FALSE;
  return check_link_result (self, cugi_cuda.cuLinkAddFile (self->state, (CUjitInputType) type, path,
                                                           0, NULL, NULL),
                            "cuLinkAddFile", error);
}

/**
 * cugi_linker_add_program:
 * @self: a #CugiLinker
 * @program: a compiled #CugiProgram
 * @error: return location for a #GError
 *
 * Adds what @program compiled to: its CUBIN when it has one, else its PTX.
 * Programs that call each other's functions must be compiled with
 * `-rdc=true` (relocatable device code); the functions they share are
 * declared `extern __device__` where they are used. The module that
 * cugi_linker_complete() makes knows the name expressions of the programs
 * added, so a kernel template instance can be asked for by its name
 * expression. An uncompiled program fails with %CUGI_ERROR_INVALID_STATE.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
cugi_linker_add_program (CugiLinker   *self,
                         CugiProgram  *program,
                         GError      **error)
{
  GHashTable *lowered_names = NULL;
  gboolean is_cubin = FALSE;
  const char *name;
  GBytes *image;
  GHashTableIter iter;
  gpointer expression, lowered;

  g_return_val_if_fail (CUGI_IS_LINKER (self), FALSE);
  g_return_val_if_fail (CUGI_IS_PROGRAM (program), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  image = cugi_module_program_image (program, &lowered_names, &is_cubin, error);
  if (image == NULL)
    return FALSE;
  name = cugi_program_get_name (program);
  if (!cugi_linker_add_data (self, is_cubin ? CUGI_LINK_INPUT_CUBIN : CUGI_LINK_INPUT_PTX,
                             image, name != NULL ? name : CUGI_PROGRAM_DEFAULT_NAME, error))
    return FALSE;
  g_hash_table_iter_init (&iter, lowered_names);
  while (g_hash_table_iter_next (&iter, &expression, &lowered))
    g_hash_table_replace (self->lowered_names, g_strdup (expression), g_strdup (lowered));
  return TRUE;
}

/**
 * cugi_linker_add_device_runtime:
 * @self: a #CugiLinker
 * @error: return location for a #GError
 *
 * Adds the CUDA device runtime library, `libcudadevrt.a`, which kernels
 * that launch kernels (`kernel<<<grid, block>>>()` in device code, compiled
 * with `-rdc=true`) need. It is found in the CUDA toolkit where NVRTC is
 * looked for: `lib64/` of `$CUDA_HOME`, of `$CUDA_PATH`, then of
 * `/usr/local/cuda`; without it this fails with
 * %CUGI_ERROR_NOT_AVAILABLE.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
cugi_linker_add_device_runtime (CugiLinker  *self,
                                GError     **error)
{
  g_autofree char *path = NULL;

  g_return_val_if_fail (CUGI_IS_LINKER (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  path = cugi_loader_find_toolkit_file (DEVICE_RUNTIME);
  if (path == NULL)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_NOT_AVAILABLE,
                   _("The CUDA device runtime library (%s) was not found: install the CUDA toolkit, "
                     "or set CUDA_HOME to the directory it is installed in"), DEVICE_RUNTIME);
      return FALSE;
    }
  return cugi_linker_add_file (self, CUGI_LINK_INPUT_LIBRARY, path, error);
}

/**
 * cugi_linker_complete:
 * @self: a #CugiLinker
 * @error: return location for a #GError
 *
 * Links the inputs (`cuLinkComplete`) and loads the result into the
 * linker's context. A symbol that no input defines fails with the linker's
 * log in @error. Once this succeeded the linker is done with: the module
 * has its own copy of the code, and later calls on the linker fail with
 * %CUGI_ERROR_INVALID_STATE.
 *
 * Returns: (transfer full): the module, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiModule *
cugi_linker_complete (CugiLinker  *self,
                      GError     **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  g_autoptr(GBytes) image = NULL;
  CugiModule *module;
  void *cubin = NULL;
  size_t size = 0;

  g_return_val_if_fail (CUGI_IS_LINKER (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!linker_enter (self, &scope, error) ||
      !check_link_result (self, cugi_cuda.cuLinkComplete (self->state, &cubin, &size), "cuLinkComplete", error))
    return NULL;
  /* The driver's image lives as long as the link state. */
  image = g_bytes_new (cubin, size);
  module = cugi_module_new_linked (self->binding.context, image,
                                   g_hash_table_size (self->lowered_names) > 0 ? self->lowered_names : NULL,
                                   self->info_log, error);
  if (module == NULL)
    return NULL;
  destroy_state (self);
  self->completed = TRUE;
  return module;
}

/**
 * cugi_linker_get_context:
 * @self: a #CugiLinker
 *
 * Returns: (transfer none) (nullable): the value of #CugiLinker:context
 *
 * Since: 0.1
 */
CugiContext *
cugi_linker_get_context (CugiLinker *self)
{
  g_return_val_if_fail (CUGI_IS_LINKER (self), NULL);

  return self->binding.context;
}

/**
 * cugi_linker_get_info_log:
 * @self: a #CugiLinker
 *
 * Returns: (nullable): the value of #CugiLinker:info-log, valid until the
 *   next call on @self
 *
 * Since: 0.1
 */
const gchar *
cugi_linker_get_info_log (CugiLinker *self)
{
  g_return_val_if_fail (CUGI_IS_LINKER (self), NULL);

  return self->info_log;
}
