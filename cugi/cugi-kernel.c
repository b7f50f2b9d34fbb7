/* cugi-kernel.c: a kernel of a module, and its launches */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "cugi-context-private.h"
#include "cugi-private.h"
#include "cugi-program-private.h"
#include "cugi-kernel-private.h"
#include "cugi-stream-private.h"

/**
 * CugiKernel:
 *
 * A `__global__` function of a #CugiModule, ready to launch.
 *
 * Get one from cugi_module_get_kernel(), or compile and load in one step
 * with cugi_kernel_new_from_source(), which goes through the compilation
 * cache and loads each source once per context.
 *
 * Launches are checked before the driver sees them. The configuration is
 * checked against the device and the kernel (zero dimensions, block and
 * grid limits, dynamic shared memory), and the arguments against the
 * kernel's parameters: their number, as the module's PTX or CUBIN image
 * tells it (or else the driver), their sizes as the driver reports them
 * (`cuFuncGetParamInfo`, CUDA 12.4 and later; older drivers skip this
 * check), and for C++ kernels (not `extern "C"`) their types too, read from
 * the kernel's mangled name: a float cannot go where an int is expected, nor
 * a scalar where a pointer is. A mismatch is a %CUGI_ERROR_INVALID_ARGUMENT
 * error naming the parameter.
 *
 * ## Faults and recovery
 *
 * A kernel that faults (an illegal address, a trap) makes its launch fail
 * asynchronously: the next synchronization (cugi_stream_synchronize(),
 * cugi_context_synchronize(), a download) reports %CUGI_ERROR_LAUNCH_FAILED.
 * Such an error is sticky: every later call in the context fails too. To go
 * on, call cugi_context_reset() on the context, then create again the
 * modules, kernels and buffers the context held (the old ones refuse to
 * work); the rest of the process is unaffected.
 *
 * Since: 0.1
 */

G_DEFINE_FINAL_TYPE (CugiKernel, cugi_kernel, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_MODULE,
  PROP_NAME,
  PROP_MANGLED_NAME,
  PROP_NUM_PARAMS,
  PROP_NUM_REGS,
  PROP_SHARED_SIZE_BYTES,
  PROP_LOCAL_SIZE_BYTES,
  PROP_CONST_SIZE_BYTES,
  PROP_MAX_THREADS_PER_BLOCK,
  PROP_PTX_VERSION,
  PROP_BINARY_VERSION,
  PROP_MAX_DYNAMIC_SHARED_SIZE_BYTES,
  PROP_PREFERRED_SHARED_MEMORY_CARVEOUT,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

#define FIRST_ATTRIBUTE_PROP PROP_NUM_REGS

/* The attribute behind each attribute property. */
static const CUfunction_attribute property_attributes[] = {
  [PROP_NUM_REGS - FIRST_ATTRIBUTE_PROP] = CU_FUNC_ATTRIBUTE_NUM_REGS,
  [PROP_SHARED_SIZE_BYTES - FIRST_ATTRIBUTE_PROP] = CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
  [PROP_LOCAL_SIZE_BYTES - FIRST_ATTRIBUTE_PROP] = CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES,
  [PROP_CONST_SIZE_BYTES - FIRST_ATTRIBUTE_PROP] = CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES,
  [PROP_MAX_THREADS_PER_BLOCK - FIRST_ATTRIBUTE_PROP] = CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
  [PROP_PTX_VERSION - FIRST_ATTRIBUTE_PROP] = CU_FUNC_ATTRIBUTE_PTX_VERSION,
  [PROP_BINARY_VERSION - FIRST_ATTRIBUTE_PROP] = CU_FUNC_ATTRIBUTE_BINARY_VERSION,
  [PROP_MAX_DYNAMIC_SHARED_SIZE_BYTES - FIRST_ATTRIBUTE_PROP] = CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
  [PROP_PREFERRED_SHARED_MEMORY_CARVEOUT - FIRST_ATTRIBUTE_PROP] = CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
};
G_STATIC_ASSERT (G_N_ELEMENTS (property_attributes) == N_PROPS - FIRST_ATTRIBUTE_PROP);

#define ASSERT_SAME(cugi, cuda) G_STATIC_ASSERT ((int) (cugi) == (int) (cuda))
ASSERT_SAME (CUGI_FUNCTION_ATTRIBUTE_MAX_THREADS_PER_BLOCK, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
ASSERT_SAME (CUGI_FUNCTION_ATTRIBUTE_SHARED_SIZE_BYTES, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
ASSERT_SAME (CUGI_FUNCTION_ATTRIBUTE_CONST_SIZE_BYTES, CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES);
ASSERT_SAME (CUGI_FUNCTION_ATTRIBUTE_LOCAL_SIZE_BYTES, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES);
ASSERT_SAME (CUGI_FUNCTION_ATTRIBUTE_NUM_REGS, CU_FUNC_ATTRIBUTE_NUM_REGS);
ASSERT_SAME (CUGI_FUNCTION_ATTRIBUTE_PTX_VERSION, CU_FUNC_ATTRIBUTE_PTX_VERSION);
ASSERT_SAME (CUGI_FUNCTION_ATTRIBUTE_BINARY_VERSION, CU_FUNC_ATTRIBUTE_BINARY_VERSION);
ASSERT_SAME (CUGI_FUNCTION_ATTRIBUTE_CACHE_MODE_CA, CU_FUNC_ATTRIBUTE_CACHE_MODE_CA);
ASSERT_SAME (CUGI_FUNCTION_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
ASSERT_SAME (CUGI_FUNCTION_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT);
ASSERT_SAME (CUGI_FUNCTION_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET, CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET);
ASSERT_SAME (CUGI_FUNCTION_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH);
ASSERT_SAME (CUGI_FUNCTION_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT);
ASSERT_SAME (CUGI_FUNCTION_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH);
ASSERT_SAME (CUGI_FUNCTION_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED);
ASSERT_SAME (CUGI_FUNCTION_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE, CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE);
ASSERT_SAME (CUGI_FUNCTION_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE + 1, CU_FUNC_ATTRIBUTE_MAX);
ASSERT_SAME (CUGI_CACHE_CONFIG_PREFER_NONE, CU_FUNC_CACHE_PREFER_NONE);
ASSERT_SAME (CUGI_CACHE_CONFIG_PREFER_SHARED, CU_FUNC_CACHE_PREFER_SHARED);
ASSERT_SAME (CUGI_CACHE_CONFIG_PREFER_L1, CU_FUNC_CACHE_PREFER_L1);
ASSERT_SAME (CUGI_CACHE_CONFIG_PREFER_EQUAL, CU_FUNC_CACHE_PREFER_EQUAL);
#undef ASSERT_SAME

static void
cugi_kernel_finalize (GObject *object)
{
  CugiKernel *self = CUGI_KERNEL (object);

  g_clear_pointer (&self->signature, cugi_kernel_signature_free);
  g_clear_error (&self->setup_error);
  g_free (self->name);
  g_free (self->mangled_name);
  cugi_context_binding_clear (&self->binding);
  g_clear_object (&self->module);

  G_OBJECT_CLASS (cugi_kernel_parent_class)->finalize (object);
}

static void
cugi_kernel_get_property (GObject    *object,
                          guint       prop_id,
                          GValue     *value,
                          GParamSpec *pspec)
{
  CugiKernel *self = CUGI_KERNEL (object);

  switch (prop_id)
    {
    case PROP_MODULE:
      g_value_set_object (value, self->module);
      break;
    case PROP_NAME:
      g_value_set_string (value, self->name);
      break;
    case PROP_MANGLED_NAME:
      g_value_set_string (value, self->mangled_name);
      break;
    case PROP_NUM_PARAMS:
      g_value_set_int (value, cugi_kernel_get_num_params (self));
      break;
    default:
      if (prop_id >= FIRST_ATTRIBUTE_PROP && prop_id < N_PROPS)
        {
          CUfunction_attribute attribute = property_attributes[prop_id - FIRST_ATTRIBUTE_PROP];
          g_value_set_int (value, g_atomic_int_get (&self->attributes[attribute]));
          break;
        }
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
install_attribute_property (guint       prop_id,
                            const char *name,
                            gint        minimum)
{
  properties[prop_id] = g_param_spec_int (name, NULL, NULL, minimum, G_MAXINT, MAX (minimum, 0),
                                          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
}

CugiKernelClass *cugi_kernel_class;

static void
cugi_kernel_class_init (CugiKernelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  cugi_kernel_class = klass;
  object_class->finalize = cugi_kernel_finalize;
  object_class->get_property = cugi_kernel_get_property;

  /**
   * CugiKernel:module:
   *
   * The module the kernel belongs to; the kernel keeps it loaded.
   *
   * Since: 0.1
   */
  properties[PROP_MODULE] =
    g_param_spec_object ("module", NULL, NULL, CUGI_TYPE_MODULE,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * CugiKernel:name:
   *
   * The name the kernel was asked for by: an `extern "C"` name, or a C++
   * name expression such as `scale<float>`.
   *
   * Since: 0.1
   */
  properties[PROP_NAME] =
    g_param_spec_string ("name", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * CugiKernel:mangled-name:
   *
   * The kernel's symbol in its module: the same as #CugiKernel:name for an
   * `extern "C"` kernel, the Itanium-mangled name (`_Z5scaleIfEvPT_S0_i`)
   * for a C++ one.
   *
   * Since: 0.1
   */
  properties[PROP_MANGLED_NAME] =
    g_param_spec_string ("mangled-name", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * CugiKernel:num-params:
   *
   * How many parameters the kernel takes, or -1 when neither the module's
   * image, the driver nor the kernel's name tells.
   *
   * Since: 0.1
   */
  properties[PROP_NUM_PARAMS] =
    g_param_spec_int ("num-params", NULL, NULL, -1, G_MAXINT, -1,
                      G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * CugiKernel:num-regs:
   *
   * The registers each thread uses (%CUGI_FUNCTION_ATTRIBUTE_NUM_REGS).
   *
   * Since: 0.1
   */
  install_attribute_property (PROP_NUM_REGS, "num-regs", 0);

  /**
   * CugiKernel:shared-size-bytes:
   *
   * The static shared memory of a block, in bytes
   * (%CUGI_FUNCTION_ATTRIBUTE_SHARED_SIZE_BYTES).
   *
   * Since: 0.1
   */
  install_attribute_property (PROP_SHARED_SIZE_BYTES, "shared-size-bytes", 0);

  /**
   * CugiKernel:local-size-bytes:
   *
   * The local memory of a thread, in bytes: register spills and arrays
   * indexed at run time (%CUGI_FUNCTION_ATTRIBUTE_LOCAL_SIZE_BYTES).
   *
   * Since: 0.1
   */
  install_attribute_property (PROP_LOCAL_SIZE_BYTES, "local-size-bytes", 0);

  /**
   * CugiKernel:const-size-bytes:
   *
   * The constant memory the kernel uses, in bytes
   * (%CUGI_FUNCTION_ATTRIBUTE_CONST_SIZE_BYTES).
   *
   * Since: 0.1
   */
  install_attribute_property (PROP_CONST_SIZE_BYTES, "const-size-bytes", 0);

  /**
   * CugiKernel:max-threads-per-block:
   *
   * The most threads a block may have: the device's limit, lowered by the
   * kernel's register use and launch bounds
   * (%CUGI_FUNCTION_ATTRIBUTE_MAX_THREADS_PER_BLOCK).
   *
   * Since: 0.1
   */
  install_attribute_property (PROP_MAX_THREADS_PER_BLOCK, "max-threads-per-block", 0);

  /**
   * CugiKernel:ptx-version:
   *
   * The PTX virtual architecture the kernel was compiled for, as
   * major × 10 + minor (%CUGI_FUNCTION_ATTRIBUTE_PTX_VERSION).
   *
   * Since: 0.1
   */
  install_attribute_property (PROP_PTX_VERSION, "ptx-version", 0);

  /**
   * CugiKernel:binary-version:
   *
   * The architecture of the kernel's binary, as major × 10 + minor
   * (%CUGI_FUNCTION_ATTRIBUTE_BINARY_VERSION).
   *
   * Since: 0.1
   */
  install_attribute_property (PROP_BINARY_VERSION, "binary-version", 0);

  /**
   * CugiKernel:max-dynamic-shared-size-bytes:
   *
   * The most dynamic shared memory a launch may ask for, in bytes
   * (%CUGI_FUNCTION_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES): 48 KiB less
   * the static shared memory, unless raised with cugi_kernel_set_attribute()
   * (up to the device's opt-in limit).
   *
   * Since: 0.1
   */
  install_attribute_property (PROP_MAX_DYNAMIC_SHARED_SIZE_BYTES, "max-dynamic-shared-size-bytes", 0);

  /**
   * CugiKernel:preferred-shared-memory-carveout:
   *
   * The share of the combined L1/shared memory to use as shared memory, in
   * percent, or -1 for the driver's choice
   * (%CUGI_FUNCTION_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT).
   *
   * Since: 0.1
   */
  install_attribute_property (PROP_PREFERRED_SHARED_MEMORY_CARVEOUT, "preferred-shared-memory-carveout", -1);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
cugi_kernel_init (CugiKernel *self)
{
}

/* The parameters' sizes as the driver reports them (CUDA 12.4 and later),
 * and their types as the mangled name tells. The count comes from the
 * module's image where it tells; only otherwise is the driver asked until it
 * fails, which users' compute-sanitizer runs then report as an API error.
 * A driver that tells no sizes still gets the image's count checked: it
 * would read as many arguments as the kernel has, past a shorter list. */
static void
read_signature (CugiKernel *self)
{
  g_autoptr(GArray) sizes = g_array_new (FALSE, FALSE, sizeof (gsize));
  gint known_count = cugi_module_get_param_count (self->module, self->mangled_name);
  gboolean have_sizes = FALSE;

  if (cugi_cuda.cuFuncGetParamInfo != NULL)
    {
      for (gsize index = 0; known_count < 0 || index < (gsize) known_count; index++)
        {
          size_t offset, size;
          CUresult result = cugi_cuda.cuFuncGetParamInfo (self->function, index, &offset, &size);

          /* Past the last parameter is INVALID_VALUE; anything else means
           * the driver cannot tell for this kernel. */
          if (result != CUDA_SUCCESS)
            {
              have_sizes = known_count < 0 && result == CUDA_ERROR_INVALID_VALUE;
              break;
            }
          g_array_append_val (sizes, size);
        }
      if (known_count >= 0 && sizes->len == (guint) known_count)
        have_sizes = TRUE;
    }
  if (have_sizes)
    self->signature = cugi_kernel_signature_new (self->name, self->mangled_name,
                                                 (const gsize *) sizes->data, (gint) sizes->len);
  else
    self->signature = cugi_kernel_signature_new (self->name, self->mangled_name, NULL, known_count);
  self->signature->context = self->binding.context;
  self->signature_serial = self->signature->serial;
}

gboolean
cugi_kernel_get_device_attribute (CUdevice           device,
                                  CUdevice_attribute attribute,
                                  guint             *value,
                                  GError           **error)
{
  int result;

  if (!CUGI_CALL (cuDeviceGetAttribute, (&result, attribute, device), error))
    return FALSE;
  *value = MAX (result, 0);
  return TRUE;
}

static gboolean
query_kernel (CugiKernel *self,
              GError    **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CUdevice device;
  guint major, cooperative;

  if (!cugi_context_enter (self->binding.context, &scope, error))
    return FALSE;

  for (int attribute = 0; attribute < CU_FUNC_ATTRIBUTE_MAX; attribute++)
    {
      /* Launches depend on these; the others may be unknown to a driver. */
      if (attribute == CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK ||
          attribute == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)
        {
          if (!CUGI_CALL (cuFuncGetAttribute, (&self->attributes[attribute], attribute, self->function), error))
            return FALSE;
        }
      else if (cugi_cuda.cuFuncGetAttribute (&self->attributes[attribute], attribute,
                                             self->function) != CUDA_SUCCESS)
        self->attributes[attribute] = 0;
    }

  if (!CUGI_CALL (cuCtxGetDevice, (&device), error) ||
      !cugi_kernel_get_device_attribute (device, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, &self->max_block[0], error) ||
      !cugi_kernel_get_device_attribute (device, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, &self->max_block[1], error) ||
      !cugi_kernel_get_device_attribute (device, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, &self->max_block[2], error) ||
      !cugi_kernel_get_device_attribute (device, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, &self->max_grid[0], error) ||
      !cugi_kernel_get_device_attribute (device, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, &self->max_grid[1], error) ||
      !cugi_kernel_get_device_attribute (device, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, &self->max_grid[2], error) ||
      !cugi_kernel_get_device_attribute (device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &major, error) ||
      !cugi_kernel_get_device_attribute (device, CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, &cooperative, error))
    return FALSE;
  self->compute_major = major;
  self->cooperative_launch = cooperative != 0;
  read_signature (self);
  return TRUE;
}

/* Wraps a function of @module (which the kernel keeps alive). @name is what
 * the user asked for (a name expression or an extern "C" name),
 * @mangled_name the symbol's own name, from which C++ parameter types are
 * read. A kernel the driver cannot describe is still returned; its
 * operations then fail with the reason. */
static CugiKernel *
kernel_new_for_function (CugiModule *module,
                         CUfunction  function,
                         const char *name,
                         const char *mangled_name)
{
  CugiKernel *self;
  g_autoptr(GError) error = NULL;

  self = g_object_new (CUGI_TYPE_KERNEL, NULL);
  self->module = g_object_ref (module);
  cugi_context_binding_init (&self->binding, cugi_module_get_context (module), CUGI_CONTEXT_BINDING_NONE);
  self->function = function;
  self->name = g_strdup (name);
  self->mangled_name = g_strdup (mangled_name != NULL ? mangled_name : name);
  if (!query_kernel (self, &error))
    self->setup_error = g_steal_pointer (&error);
  else
    self->context_handle = cugi_context_get_handle (self->binding.context);
  return self;
}

/**
 * cugi_module_get_kernel:
 * @self: a #CugiModule
 * @name: the kernel's name: an `extern "C"` name, a mangled name, or a name
 *   expression of the program the module was loaded from
 * @error: return location for a #GError
 *
 * Finds a kernel. A name the module lacks fails with %CUGI_ERROR_NOT_FOUND.
 *
 * Returns: (transfer full): the kernel, which keeps the module alive
 *
 * Since: 0.1
 */
CugiKernel *
cugi_module_get_kernel (CugiModule  *self,
                        const gchar *name,
                        GError     **error)
{
  CUfunction function = NULL;
  const char *symbol = NULL;

  g_return_val_if_fail (CUGI_IS_MODULE (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  /* A method of modules that lives with kernels: modules, a layer below,
   * know nothing of kernels. */
  if (!cugi_module_find_function (self, name, &function, &symbol, error))
    return NULL;
  return kernel_new_for_function (self, function, name, symbol);
}

CUfunction
cugi_kernel_get_function (CugiKernel *self)
{
  return self->function;
}

CugiContext *
cugi_kernel_get_context (CugiKernel *self)
{
  return self->binding.context;
}

/* Out of line: the launch path runs cugi_kernel_is_usable() alone. */
G_GNUC_NO_INLINE gboolean
cugi_kernel_check_usable (CugiKernel *self,
                          GError    **error)
{
  if (G_UNLIKELY (self->function == NULL))
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE,
                           _("This kernel was not made by cugi: get kernels from a CugiModule"));
      return FALSE;
    }
  if (G_UNLIKELY (self->setup_error != NULL))
    {
      g_set_error (error, self->setup_error->domain, self->setup_error->code,
                   _("Kernel “%s” is unusable: %s"), self->name, self->setup_error->message);
      return FALSE;
    }
  /* After a reset, the function went with the context's old modules. */
  if (G_UNLIKELY (!cugi_context_binding_is_current (&self->binding)))
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_CONTEXT,
                   _("Kernel “%s” is gone: its context was reset since; load its module again"),
                   self->name);
      return FALSE;
    }
  return TRUE;
}

/**
 * cugi_kernel_new_from_source:
 * @context: (nullable): a context, or %NULL for the default one
 * @source: CUDA C++ source
 * @name: the kernel: an `extern "C"` name, or a C++ name expression such as
 *   `scale<float>` (which instantiates the template)
 * @options: (nullable) (array zero-terminated=1): NVRTC options
 * @error: return location for a #GError
 *
 * Compiles @source for the device of @context and loads it, then returns
 * its kernel @name. Compilation goes through the disk cache, and the loaded
 * module is shared: asking again for the same source, options and name in
 * the same context returns a kernel of the same module without compiling or
 * loading anything.
 *
 * Returns: (transfer full): the kernel, or %NULL with @error set
 *   (%CUGI_ERROR_COMPILE with NVRTC's log when the source does not compile)
 *
 * Since: 0.1
 */
CugiKernel *
cugi_kernel_new_from_source (CugiContext         *context,
                             const gchar         *source,
                             const gchar         *name,
                             const gchar * const *options,
                             GError             **error)
{
  g_autoptr(CugiContext) resolved = NULL;
  g_autoptr(CugiModule) module = NULL;
  /* The name is always a name expression: for a C++ kernel that is how its
   * mangled name is found, and for an extern "C" one it changes nothing. */
  const char *name_expressions[] = { name, NULL };

  g_return_val_if_fail (context == NULL || CUGI_IS_CONTEXT (context), NULL);
  g_return_val_if_fail (source != NULL, NULL);
  g_return_val_if_fail (name != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (*name == '\0')
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                           _("The name of a kernel cannot be empty"));
      return NULL;
    }
  if ((resolved = cugi_context_resolve (context, error)) == NULL)
    return NULL;
  module = cugi_module_new_from_source_cached (resolved, source, options, name_expressions, error);
  if (module == NULL)
    return NULL;
  return cugi_module_get_kernel (module, name, error);
}

/**
 * cugi_kernel_get_module:
 * @self: a kernel
 *
 * Returns: (transfer none): the module of @self
 *
 * Since: 0.1
 */
CugiModule *
cugi_kernel_get_module (CugiKernel *self)
{
  g_return_val_if_fail (CUGI_IS_KERNEL (self), NULL);

  return self->module;
}

/**
 * cugi_kernel_get_name:
 * @self: a kernel
 *
 * Returns: the name @self was asked for by (#CugiKernel:name)
 *
 * Since: 0.1
 */
const gchar *
cugi_kernel_get_name (CugiKernel *self)
{
  g_return_val_if_fail (CUGI_IS_KERNEL (self), NULL);

  return self->name;
}

/**
 * cugi_kernel_get_mangled_name:
 * @self: a kernel
 *
 * Returns: the symbol of @self in its module (#CugiKernel:mangled-name)
 *
 * Since: 0.1
 */
const gchar *
cugi_kernel_get_mangled_name (CugiKernel *self)
{
  g_return_val_if_fail (CUGI_IS_KERNEL (self), NULL);

  return self->mangled_name;
}

/**
 * cugi_kernel_get_num_params:
 * @self: a kernel
 *
 * Returns: the number of parameters of @self, or -1 when unknown
 *   (#CugiKernel:num-params)
 *
 * Since: 0.1
 */
gint
cugi_kernel_get_num_params (CugiKernel *self)
{
  g_return_val_if_fail (CUGI_IS_KERNEL (self), -1);

  return self->signature != NULL ? self->signature->n_params : -1;
}

static gboolean
check_attribute (CugiFunctionAttribute attribute,
                 GError              **error)
{
  if ((int) attribute >= 0 && (int) attribute < CU_FUNC_ATTRIBUTE_MAX)
    return TRUE;
  g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
               _("%d is not a CugiFunctionAttribute"), (int) attribute);
  return FALSE;
}

/**
 * cugi_kernel_get_attribute:
 * @self: a kernel
 * @attribute: the attribute
 * @error: return location for a #GError
 *
 * Asks the driver for an attribute of @self. The most used ones are
 * properties as well (#CugiKernel:num-regs...).
 *
 * Returns: the attribute's value, or -1 with @error set (-1 is also the
 *   "no preference" of
 *   %CUGI_FUNCTION_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT: @error tells
 *   them apart)
 *
 * Since: 0.1
 */
gint
cugi_kernel_get_attribute (CugiKernel           *self,
                           CugiFunctionAttribute attribute,
                           GError              **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  int value;

  g_return_val_if_fail (CUGI_IS_KERNEL (self), -1);
  g_return_val_if_fail (error == NULL || *error == NULL, -1);

  if (!check_attribute (attribute, error) || !cugi_kernel_enter (self, &scope, error) ||
      !CUGI_CALL (cuFuncGetAttribute, (&value, (CUfunction_attribute) attribute, self->function), error))
    return -1;
  return value;
}

void
cugi_kernel_update_attribute (CugiKernel           *self,
                              CUfunction_attribute  attribute,
                              gint                  value)
{
  if (g_atomic_int_get (&self->attributes[attribute]) == value)
    return;
  g_atomic_int_set (&self->attributes[attribute], value);
  /* Configurations that fitted the old value may not fit the new one. */
  g_atomic_pointer_set (&self->valid_config, 0);
  for (guint prop_id = FIRST_ATTRIBUTE_PROP; prop_id < N_PROPS; prop_id++)
    if (property_attributes[prop_id - FIRST_ATTRIBUTE_PROP] == attribute)
      g_object_notify_by_pspec (G_OBJECT (self), properties[prop_id]);
}

/**
 * cugi_kernel_set_attribute:
 * @self: a kernel
 * @attribute: a settable attribute
 * @value: its new value
 * @error: return location for a #GError
 *
 * Changes an attribute of @self, for every later launch. The most common:
 * %CUGI_FUNCTION_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, to launch with
 * more than 48 KiB of dynamic shared memory, and
 * %CUGI_FUNCTION_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT. A read-only
 * attribute or an out-of-range value is an error from the driver.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
cugi_kernel_set_attribute (CugiKernel           *self,
                           CugiFunctionAttribute attribute,
                           gint                  value,
                           GError              **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  int reported;

  g_return_val_if_fail (CUGI_IS_KERNEL (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!check_attribute (attribute, error) || !cugi_kernel_enter (self, &scope, error) ||
      !CUGI_CALL (cuFuncSetAttribute, (self->function, (CUfunction_attribute) attribute, value), error))
    return FALSE;
  /* The driver may round the value: keep what it reports. */
  if (cugi_cuda.cuFuncGetAttribute (&reported, (CUfunction_attribute) attribute, self->function) != CUDA_SUCCESS)
    reported = value;
  cugi_kernel_update_attribute (self, (CUfunction_attribute) attribute, reported);
  return TRUE;
}

/**
 * cugi_kernel_set_cache_config:
 * @self: a kernel
 * @config: the preferred split between L1 and shared memory
 * @error: return location for a #GError
 *
 * Sets how @self prefers on-chip memory to be split between L1 cache and
 * shared memory, overriding the context's preference
 * (cugi_context_set_cache_config()). Devices with a fixed split ignore it.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
cugi_kernel_set_cache_config (CugiKernel     *self,
                              CugiCacheConfig config,
                              GError        **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;

  g_return_val_if_fail (CUGI_IS_KERNEL (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if ((int) config < CUGI_CACHE_CONFIG_PREFER_NONE || config > CUGI_CACHE_CONFIG_PREFER_EQUAL)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("%d is not a CugiCacheConfig"), (int) config);
      return FALSE;
    }
  return cugi_kernel_enter (self, &scope, error) &&
         CUGI_CALL (cuFuncSetCacheConfig, (self->function, (CUfunc_cache) config), error);
}

/* ---- occupancy ------------------------------------------------------------ */

/**
 * cugi_kernel_get_max_active_blocks_per_multiprocessor:
 * @self: a kernel
 * @block_size: threads of a block
 * @dynamic_shared_memory: dynamic shared memory of a block, in bytes
 * @error: return location for a #GError
 *
 * Asks the driver how many blocks of @self a multiprocessor runs at once
 * (`cuOccupancyMaxActiveBlocksPerMultiprocessor`). #CugiOccupancy works the
 * same figure out and says what limits it.
 *
 * Returns: the number of blocks (0 when a block does not fit at all), or -1
 *   with @error set
 *
 * Since: 0.1
 */
gint
cugi_kernel_get_max_active_blocks_per_multiprocessor (CugiKernel *self,
                                                      guint       block_size,
                                                      gsize       dynamic_shared_memory,
                                                      GError    **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  int blocks;

  g_return_val_if_fail (CUGI_IS_KERNEL (self), -1);
  g_return_val_if_fail (error == NULL || *error == NULL, -1);

  if (block_size == 0 || block_size > G_MAXINT)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("%u is not a block size"), block_size);
      return -1;
    }
  if (!cugi_kernel_enter (self, &scope, error) ||
      !CUGI_CALL (cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags,
                  (&blocks, self->function, (int) block_size, dynamic_shared_memory, CU_OCCUPANCY_DEFAULT),
                  error))
    return -1;
  return blocks;
}

/**
 * cugi_kernel_suggest_block_size:
 * @self: a kernel
 * @dynamic_shared_memory: dynamic shared memory of a block, in bytes
 * @min_grid_size: (out) (optional): return location for the fewest blocks
 *   that fill the device at the suggested block size
 * @error: return location for a #GError
 *
 * Asks the driver for the block size that lets the most threads of @self
 * run at once (`cuOccupancyMaxPotentialBlockSize`). Bindings return both,
 * `(block_size, min_grid_size)`.
 *
 * Returns: the block size that gives the highest occupancy; -1, and -1 in
 *   @min_grid_size, with @error set
 *
 * Since: 0.1
 */
gint
cugi_kernel_suggest_block_size (CugiKernel *self,
                                gsize       dynamic_shared_memory,
                                gint       *min_grid_size,
                                GError    **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  int grid = -1, block = -1;

  g_return_val_if_fail (CUGI_IS_KERNEL (self), -1);
  g_return_val_if_fail (error == NULL || *error == NULL, -1);

  if (!cugi_kernel_enter (self, &scope, error) ||
      !CUGI_CALL (cuOccupancyMaxPotentialBlockSizeWithFlags,
                  (&grid, &block, self->function, NULL, dynamic_shared_memory, 0, CU_OCCUPANCY_DEFAULT),
                  error))
    grid = block = -1;
  if (min_grid_size != NULL)
    *min_grid_size = grid;
  return block;
}
