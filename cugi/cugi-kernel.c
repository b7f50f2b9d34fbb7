/* cugi-kernel.c: a kernel of a module, and its launches */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "cugi-private.h"
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
 * kernel's parameters: their number and sizes as the driver reports them
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

struct _CugiKernel
{
  GObject      parent_instance;

  /* What every launch reads comes first, in as few cache lines as can be. */
  CugiContext *context;
  CUfunction   function;
  guint        generation;  /* the context's, when the function was found */

  /* Why the kernel could not be queried; returned by every operation. */
  GError      *setup_error;

  /* Read once: launches check against them without calling the driver.
   * Settable attributes are updated by cugi_kernel_set_attribute(). */
  CugiKernelSignature *signature;
  guint        max_block[3];
  guint        max_grid[3];
  gint         attributes[CU_FUNC_ATTRIBUTE_MAX];
  int          compute_major;
  gboolean     cooperative_launch;

  CugiModule  *module;
  char        *name;
  char        *mangled_name;
};

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
  g_clear_object (&self->context);
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

static void
cugi_kernel_class_init (CugiKernelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

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
   * How many parameters the kernel takes, or -1 when neither the driver nor
   * the kernel's name tells.
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
 * fails, which users' compute-sanitizer runs then report as an API error. */
static void
read_signature (CugiKernel *self)
{
  g_autoptr(GArray) sizes = g_array_new (FALSE, FALSE, sizeof (gsize));
  gboolean have_sizes = FALSE;

  if (cugi_cuda.cuFuncGetParamInfo != NULL)
    {
      gint known_count = cugi_module_get_param_count (self->module, self->mangled_name);

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
  self->signature = cugi_kernel_signature_new (self->name, self->mangled_name,
                                               (const gsize *) sizes->data,
                                               have_sizes ? (gint) sizes->len : -1);
  self->signature->context = self->context;
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

  if (!cugi_context_enter (self->context, &scope, error))
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

/* cugi_kernel_new_for_function():
 * @module: the module @function belongs to
 * @function: a function of @module
 * @name: what the user asked for
 * @mangled_name: the function's symbol
 *
 * Internal: wraps a function of a module. A kernel the driver cannot
 * describe is still returned; its operations then fail with the reason.
 *
 * Returns: (transfer full): a new kernel
 */
CugiKernel *
cugi_kernel_new_for_function (CugiModule *module,
                              CUfunction  function,
                              const char *name,
                              const char *mangled_name)
{
  CugiKernel *self;
  g_autoptr(GError) error = NULL;

  g_return_val_if_fail (CUGI_IS_MODULE (module), NULL);
  g_return_val_if_fail (function != NULL, NULL);
  g_return_val_if_fail (name != NULL, NULL);

  self = g_object_new (CUGI_TYPE_KERNEL, NULL);
  self->module = g_object_ref (module);
  self->context = g_object_ref (cugi_module_get_context (module));
  self->function = function;
  self->name = g_strdup (name);
  self->mangled_name = g_strdup (mangled_name != NULL ? mangled_name : name);
  self->generation = cugi_context_get_generation (self->context);
  if (!query_kernel (self, &error))
    self->setup_error = g_steal_pointer (&error);
  return self;
}

CUfunction
cugi_kernel_get_function (CugiKernel *self)
{
  return self->function;
}

CugiContext *
cugi_kernel_get_context (CugiKernel *self)
{
  return self->context;
}

/* The common case of check_usable(), without its error messages: what the
 * launch path runs. */
static inline gboolean
is_usable (CugiKernel *self)
{
  return self->function != NULL && self->setup_error == NULL &&
         cugi_context_get_generation (self->context) == self->generation;
}

static G_GNUC_NO_INLINE gboolean
check_usable (CugiKernel *self,
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
  if (G_UNLIKELY (cugi_context_get_generation (self->context) != self->generation))
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE,
                   _("Kernel “%s” is gone: its context was reset since; load its module again"),
                   self->name);
      return FALSE;
    }
  return TRUE;
}

/* Checks that the kernel is usable and makes its context current. Inline:
 * launches run it. */
static G_ALWAYS_INLINE inline gboolean
enter (CugiKernel       *self,
       CugiContextScope *scope,
       GError          **error)
{
  return (G_LIKELY (is_usable (self)) || check_usable (self, error)) &&
         cugi_context_enter (self->context, scope, error);
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

  if (!check_attribute (attribute, error) || !enter (self, &scope, error) ||
      !CUGI_CALL (cuFuncGetAttribute, (&value, (CUfunction_attribute) attribute, self->function), error))
    return -1;
  return value;
}

/* Stores a value the driver reported and tells property watchers. */
static void
update_attribute (CugiKernel           *self,
                  CUfunction_attribute  attribute,
                  gint                  value)
{
  if (g_atomic_int_get (&self->attributes[attribute]) == value)
    return;
  g_atomic_int_set (&self->attributes[attribute], value);
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

  if (!check_attribute (attribute, error) || !enter (self, &scope, error) ||
      !CUGI_CALL (cuFuncSetAttribute, (self->function, (CUfunction_attribute) attribute, value), error))
    return FALSE;
  /* The driver may round the value: keep what it reports. */
  if (cugi_cuda.cuFuncGetAttribute (&reported, (CUfunction_attribute) attribute, self->function) != CUDA_SUCCESS)
    reported = value;
  update_attribute (self, (CUfunction_attribute) attribute, reported);
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
  return enter (self, &scope, error) &&
         CUGI_CALL (cuFuncSetCacheConfig, (self->function, (CUfunc_cache) config), error);
}

/* ---- checks --------------------------------------------------------------- */

static gboolean
config_error (GError    **error,
              CugiError   code,
              const char *format,
              ...) G_GNUC_PRINTF (3, 4);

static gboolean
config_error (GError    **error,
              CugiError   code,
              const char *format,
              ...)
{
  g_autofree char *message = NULL;
  va_list ap;

  va_start (ap, format);
  message = g_strdup_vprintf (format, ap);
  va_end (ap);
  g_set_error (error, CUGI_ERROR, code, _("Bad launch configuration: %s"), message);
  return FALSE;
}

static const char axes[] = "xyz";

/* Every check of check_config(), one by one, for the error that says what
 * is wrong. */
static G_GNUC_NO_INLINE gboolean
check_config_fully (CugiKernel             *self,
                    const CugiLaunchConfig *config,
                    GError                **error)
{
  guint64 threads = (guint64) config->block[0] * config->block[1] * config->block[2];
  gint max_threads = g_atomic_int_get (&self->attributes[CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK]);
  gint max_shared = g_atomic_int_get (&self->attributes[CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES]);
  gboolean clustered = config->cluster[0] != 0 || config->cluster[1] != 0 || config->cluster[2] != 0;

  for (guint i = 0; i < 3; i++)
    {
      if (config->grid[i] == 0 || config->block[i] == 0)
        return config_error (error, CUGI_ERROR_INVALID_ARGUMENT,
                             _("every dimension must be at least 1, but the grid is %u×%u×%u blocks "
                               "of %u×%u×%u threads"),
                             config->grid[0], config->grid[1], config->grid[2],
                             config->block[0], config->block[1], config->block[2]);
      if (config->block[i] > self->max_block[i])
        return config_error (error, CUGI_ERROR_INVALID_ARGUMENT,
                             _("the block is %u threads along %c, and the device allows at most %u"),
                             config->block[i], axes[i], self->max_block[i]);
      if (config->grid[i] > self->max_grid[i])
        return config_error (error, CUGI_ERROR_INVALID_ARGUMENT,
                             _("the grid is %u blocks along %c, and the device allows at most %u"),
                             config->grid[i], axes[i], self->max_grid[i]);
    }
  if (threads > (guint64) max_threads)
    return config_error (error, CUGI_ERROR_INVALID_ARGUMENT,
                         _("a block of %llu threads is more than kernel “%s” allows "
                           "(max-threads-per-block is %d)"),
                         (unsigned long long) threads, self->name, max_threads);
  if (config->shared_memory > (guint) max_shared)
    {
      int current = max_shared;

      /* Another kernel object, or code outside cugi, may have raised it. */
      if (cugi_cuda.cuFuncGetAttribute (&current, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                        self->function) == CUDA_SUCCESS && current != max_shared)
        update_attribute (self, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, current);
      if (config->shared_memory > (guint) current)
        return config_error (error, CUGI_ERROR_INVALID_ARGUMENT,
                             _("%u bytes of dynamic shared memory is more than kernel “%s” allows (%d); "
                               "raise CUGI_FUNCTION_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES with "
                               "cugi_kernel_set_attribute(), up to the device's opt-in limit"),
                             config->shared_memory, self->name, current);
    }
  if (clustered)
    {
      if (self->compute_major < 9)
        return config_error (error, CUGI_ERROR_NOT_SUPPORTED,
                             _("thread block clusters need a device of compute capability 9.0 or later"));
      for (guint i = 0; i < 3; i++)
        if (config->cluster[i] == 0 || config->grid[i] % config->cluster[i] != 0)
          return config_error (error, CUGI_ERROR_INVALID_ARGUMENT,
                               _("the grid (%u×%u×%u blocks) must be a whole number of clusters "
                                 "of %u×%u×%u blocks"),
                               config->grid[0], config->grid[1], config->grid[2],
                               config->cluster[0], config->cluster[1], config->cluster[2]);
    }
  if (config->cooperative && !self->cooperative_launch)
    return config_error (error, CUGI_ERROR_NOT_SUPPORTED,
                         _("the device does not support cooperative launches"));
  if (config->stream != NULL)
    {
      if (!cugi_stream_check (config->stream, error))
        return FALSE;
      if (cugi_stream_get_context (config->stream) != self->context)
        return config_error (error, CUGI_ERROR_INVALID_CONTEXT,
                             _("the stream belongs to another context than kernel “%s”"), self->name);
    }
  return TRUE;
}

/* The common case of check_config(), in few instructions: TRUE when @config
 * certainly fits @self; FALSE when it may not, for check_config_fully() to
 * tell (cooperative and cluster launches always go there). */
static inline gboolean
config_fits (CugiKernel             *self,
             const CugiLaunchConfig *config)
{
  guint64 threads = (guint64) config->block[0] * config->block[1] * config->block[2];
  gint max_threads = g_atomic_int_get (&self->attributes[CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK]);
  gint max_shared = g_atomic_int_get (&self->attributes[CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES]);
  gboolean fits = TRUE;

  /* A 0 wraps around to G_MAXUINT: "at least 1 and at most max" in one. */
  for (guint i = 0; i < 3; i++)
    fits &= config->grid[i] - 1 < self->max_grid[i] && config->block[i] - 1 < self->max_block[i];
  return fits &&
         threads <= (guint64) max_threads &&
         config->shared_memory <= (guint) max_shared &&
         (config->cluster[0] | config->cluster[1] | config->cluster[2]) == 0 &&
         !config->cooperative &&
         (config->stream == NULL || cugi_stream_is_usable_in (config->stream, self->context));
}

static gboolean
check_config (CugiKernel             *self,
              const CugiLaunchConfig *config,
              GError                **error)
{
  return G_LIKELY (config_fits (self, config)) || check_config_fully (self, config, error);
}

gboolean
cugi_kernel_check_args (CugiKernel     *self,
                        CugiKernelArgs *args,
                        GError        **error)
{
  return cugi_kernel_signature_check (self->signature, args, error);
}

/* ---- launches ------------------------------------------------------------- */

/* Cooperative and cluster launches, through cuLaunchKernelEx. Out of line:
 * the code of common launches stays compact. */
static G_GNUC_NO_INLINE gboolean
enqueue_extended (CugiKernel             *self,
                  const CugiLaunchConfig *config,
                  void                  **params,
                  CUstream                stream,
                  GError                **error)
{
  CUlaunchAttribute attributes[2];
  CUlaunchConfig launch = {
    config->grid[0], config->grid[1], config->grid[2],
    config->block[0], config->block[1], config->block[2],
    config->shared_memory, stream, attributes, 0
  };

  if (cugi_cuda.cuLaunchKernelEx == NULL)
    {
      if (config->cluster[0] != 0)
        {
          g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_NOT_SUPPORTED,
                               _("This NVIDIA driver cannot launch clusters (no cuLaunchKernelEx)"));
          return FALSE;
        }
      return CUGI_CALL (cuLaunchCooperativeKernel,
                        (self->function, config->grid[0], config->grid[1], config->grid[2],
                         config->block[0], config->block[1], config->block[2],
                         config->shared_memory, stream, params), error);
    }

  memset (attributes, 0, sizeof attributes);
  if (config->cluster[0] != 0)
    {
      CUlaunchAttribute *cluster = &attributes[launch.numAttrs++];
      cluster->id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
      cluster->value.clusterDim.x = config->cluster[0];
      cluster->value.clusterDim.y = config->cluster[1];
      cluster->value.clusterDim.z = config->cluster[2];
    }
  if (config->cooperative)
    {
      CUlaunchAttribute *cooperative = &attributes[launch.numAttrs++];
      cooperative->id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
      cooperative->value.cooperative = 1;
    }
  return CUGI_CALL (cuLaunchKernelEx, (&launch, self->function, params, NULL), error);
}

static gboolean
enqueue (CugiKernel             *self,
         const CugiLaunchConfig *config,
         void                  **params,
         CUstream                stream,
         GError                **error)
{
  CUresult result;

  if (G_UNLIKELY (config->cooperative || config->cluster[0] != 0))
    return enqueue_extended (self, config, params, stream, error);
  result = cugi_cuda.cuLaunchKernel (self->function, config->grid[0], config->grid[1], config->grid[2],
                                     config->block[0], config->block[1], config->block[2],
                                     config->shared_memory, stream, params, NULL);
  /* cugi_check_result() for failures only: its code is away from the rest
   * of the launch path (see CUGI_LAUNCH_PATH). */
  return G_LIKELY (result == CUDA_SUCCESS) || cugi_check_result (result, "cuLaunchKernel", error);
}

/* What a launch uses must outlive it. Outside captures, an argument list
 * with buffers keeps them itself, at almost no cost when it is launched
 * again and again on one stream; otherwise cugi_work_track()
 * decides where they go. */
static void
track_launch (CugiKernel     *self,
              CugiStream     *stream,
              CugiKernelArgs *args)
{
  if (G_LIKELY (!cugi_work_has_captures ()) && cugi_kernel_args_track_launch (args, stream))
    return;
  cugi_work_track (stream, self, cugi_kernel_args_share_buffers (args));
}

/**
 * cugi_kernel_launch:
 * @self: a kernel
 * @config: the grid, block, shared memory and stream of the launch
 * @args: the arguments, in the order of the kernel's parameters
 * @error: return location for a #GError
 *
 * Enqueues a launch of @self on the stream of @config (the context's
 * default stream when it has none) and returns at once. The buffers of
 * @args stay alive until the kernel has run; @args may be changed or
 * dropped as soon as this returns.
 *
 * The configuration and the arguments are checked first (see #CugiKernel);
 * a mismatch is a %CUGI_ERROR_INVALID_ARGUMENT error and nothing is
 * launched. A fault while the kernel runs is reported by the next
 * synchronization, as %CUGI_ERROR_LAUNCH_FAILED.
 *
 * Returns: %TRUE when the launch was enqueued
 *
 * Since: 0.1
 */
CUGI_LAUNCH_PATH gboolean
cugi_kernel_launch (CugiKernel       *self,
                    CugiLaunchConfig *config,
                    CugiKernelArgs   *args,
                    GError          **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CugiStream *stream;

  g_return_val_if_fail (CUGI_IS_KERNEL (self), FALSE);
  g_return_val_if_fail (config != NULL, FALSE);
  g_return_val_if_fail (args != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!enter (self, &scope, error) ||
      !check_config (self, config, error) ||
      !cugi_kernel_signature_check (self->signature, args, error) ||
      !cugi_kernel_args_resolve (args, error))
    return FALSE;

  stream = cugi_stream_resolve (config->stream, self->context);
  if (!enqueue (self, config, args->params, cugi_stream_get_handle (stream), error))
    return FALSE;
  track_launch (self, stream, args);
  return TRUE;
}

/* ---- launches with GValues and varargs ------------------------------------ */

/**
 * cugi_kernel_launch_values:
 * @self: a kernel
 * @config: the grid, block, shared memory and stream of the launch
 * @args: (array length=n_args): the arguments
 * @n_args: the number of arguments
 * @error: return location for a #GError
 *
 * Launches @self like cugi_kernel_launch(), with arguments as #GValues,
 * converted by the kernel's parameter types: a #CugiBuffer for a pointer, a
 * #GBytes for a struct, and numbers converted to the parameter's type (an
 * integer that does not fit is an error). For an `extern "C"` kernel,
 * whose types are unknown, integers and floats take the parameter's size;
 * a whole real number beyond 32 bits (5000000000.0, which is what GJS makes
 * of 5000000000) is refused there, since it may be meant for an integer:
 * add it to a #CugiKernelArgs as what it is (cugi_kernel_args_add_int64(),
 * cugi_kernel_args_add_double()...) and use cugi_kernel_launch().
 *
 * Returns: %TRUE when the launch was enqueued
 *
 * Since: 0.1
 */
gboolean
cugi_kernel_launch_values (CugiKernel       *self,
                           CugiLaunchConfig *config,
                           const GValue     *args,
                           guint             n_args,
                           GError          **error)
{
  g_autoptr(CugiKernelArgs) kernel_args = NULL;

  g_return_val_if_fail (CUGI_IS_KERNEL (self), FALSE);
  g_return_val_if_fail (config != NULL, FALSE);
  g_return_val_if_fail (args != NULL || n_args == 0, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!check_usable (self, error))
    return FALSE;
  kernel_args = cugi_kernel_args_new ();
  for (guint i = 0; i < n_args; i++)
    if (!cugi_kernel_signature_add_value (self->signature, kernel_args, i, &args[i], error))
      return FALSE;
  return cugi_kernel_launch (self, config, kernel_args, error);
}

/* What every append needs: a kernel that can take arguments. */
static gboolean
check_append (CugiKernel     *self,
              CugiKernelArgs *args,
              GError        **error)
{
  g_return_val_if_fail (CUGI_IS_KERNEL (self), FALSE);
  g_return_val_if_fail (args != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return check_usable (self, error);
}

static gboolean
append_real (CugiKernel     *self,
             CugiKernelArgs *args,
             gdouble         value,
             gboolean        single,
             GError        **error)
{
  return check_append (self, args, error) &&
         cugi_kernel_signature_add_real (self->signature, args, cugi_kernel_args_get_n_args (args), value,
                                         single, error);
}

/**
 * cugi_kernel_append_int:
 * @self: a kernel
 * @args: an argument list being built for @self
 * @value: an integer
 * @error: return location for a #GError
 *
 * Adds @value to @args as the argument for @self's next parameter, the one
 * numbered cugi_kernel_args_get_n_args() of @args, converted to that
 * parameter's type as cugi_kernel_launch_values() converts numbers. Where
 * nothing is known of the parameter, the value takes 32 bits if it fits
 * them and 64 otherwise.
 *
 * This is how bindings pass their own numbers without making a #GValue of
 * each: one call per argument, then cugi_kernel_launch().
 *
 * Returns: %TRUE, or %FALSE with %CUGI_ERROR_INVALID_ARGUMENT when @value
 *   does not fit the parameter (@args is then unchanged)
 *
 * Since: 0.1
 */
gboolean
cugi_kernel_append_int (CugiKernel     *self,
                        CugiKernelArgs *args,
                        gint64          value,
                        GError        **error)
{
  return check_append (self, args, error) &&
         cugi_kernel_signature_add_integer (self->signature, args, cugi_kernel_args_get_n_args (args),
                                            TRUE, value, 0, value < G_MININT32 || value > G_MAXINT32,
                                            error);
}

/**
 * cugi_kernel_append_uint:
 * @self: a kernel
 * @args: an argument list being built for @self
 * @value: an unsigned integer
 * @error: return location for a #GError
 *
 * Like cugi_kernel_append_int(), for the unsigned integers up to
 * %G_MAXUINT64.
 *
 * Returns: %TRUE, or %FALSE with %CUGI_ERROR_INVALID_ARGUMENT when @value
 *   does not fit the parameter (@args is then unchanged)
 *
 * Since: 0.1
 */
gboolean
cugi_kernel_append_uint (CugiKernel     *self,
                         CugiKernelArgs *args,
                         guint64         value,
                         GError        **error)
{
  return check_append (self, args, error) &&
         cugi_kernel_signature_add_integer (self->signature, args, cugi_kernel_args_get_n_args (args),
                                            FALSE, 0, value, value > G_MAXUINT32, error);
}

/**
 * cugi_kernel_append_float:
 * @self: a kernel
 * @args: an argument list being built for @self
 * @value: a real number
 * @error: return location for a #GError
 *
 * Adds @value to @args as the argument for @self's next parameter: a float
 * or a double as the parameter is, and a float where nothing is known of it.
 * A parameter of another type refuses it at launch. Where the parameter's
 * kind is unknown (an `extern "C"` kernel), a whole number beyond 32 bits is
 * refused, as cugi_kernel_launch_values() refuses it.
 *
 * Returns: %TRUE, or %FALSE when @self cannot be launched or @value is
 *   refused
 *
 * Since: 0.1
 */
gboolean
cugi_kernel_append_float (CugiKernel     *self,
                          CugiKernelArgs *args,
                          gfloat          value,
                          GError        **error)
{
  return append_real (self, args, value, TRUE, error);
}

/**
 * cugi_kernel_append_double:
 * @self: a kernel
 * @args: an argument list being built for @self
 * @value: a real number
 * @error: return location for a #GError
 *
 * Like cugi_kernel_append_float(), but a double where nothing is known of
 * the parameter, so that no digit is lost.
 *
 * Returns: %TRUE unless @self cannot be launched
 *
 * Since: 0.1
 */
gboolean
cugi_kernel_append_double (CugiKernel     *self,
                           CugiKernelArgs *args,
                           gdouble         value,
                           GError        **error)
{
  return append_real (self, args, value, FALSE, error);
}

/**
 * cugi_kernel_launch_with_valist: (skip)
 * @self: a kernel
 * @config: the grid, block, shared memory and stream of the launch
 * @error: return location for a #GError
 * @args: the arguments, as for cugi_kernel_launch_with()
 *
 * The `va_list` form of cugi_kernel_launch_with().
 *
 * Returns: %TRUE when the launch was enqueued
 *
 * Since: 0.1
 */
gboolean
cugi_kernel_launch_with_valist (CugiKernel       *self,
                                CugiLaunchConfig *config,
                                GError          **error,
                                va_list           args)
{
  g_autoptr(CugiKernelArgs) kernel_args = NULL;
  int tag;

  g_return_val_if_fail (CUGI_IS_KERNEL (self), FALSE);
  g_return_val_if_fail (config != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  kernel_args = cugi_kernel_args_new ();
  for (guint i = 0; (tag = va_arg (args, int)) != CUGI_ARG_END; i++)
    {
      switch ((CugiArgType) tag)
        {
        case CUGI_ARG_BUFFER:
          {
            CugiBuffer *buffer = va_arg (args, CugiBuffer *);
            if (!CUGI_IS_BUFFER (buffer))
              {
                g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                             _("Kernel “%s”, argument %u: CUGI_ARG_BUFFER needs a CugiBuffer"),
                             self->name, i);
                return FALSE;
              }
            cugi_kernel_args_add_buffer (kernel_args, buffer);
          }
          break;
        case CUGI_ARG_INT32:
          cugi_kernel_args_add_int32 (kernel_args, va_arg (args, gint32));
          break;
        case CUGI_ARG_UINT32:
          cugi_kernel_args_add_uint32 (kernel_args, va_arg (args, guint32));
          break;
        case CUGI_ARG_INT64:
          cugi_kernel_args_add_int64 (kernel_args, va_arg (args, gint64));
          break;
        case CUGI_ARG_UINT64:
          cugi_kernel_args_add_uint64 (kernel_args, va_arg (args, guint64));
          break;
        case CUGI_ARG_FLOAT:
          /* Variadic floats arrive as doubles. */
          cugi_kernel_args_add_float (kernel_args, (gfloat) va_arg (args, gdouble));
          break;
        case CUGI_ARG_DOUBLE:
          cugi_kernel_args_add_double (kernel_args, va_arg (args, gdouble));
          break;
        case CUGI_ARG_BYTES:
          {
            GBytes *bytes = va_arg (args, GBytes *);
            if (bytes == NULL)
              {
                g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                             _("Kernel “%s”, argument %u: CUGI_ARG_BYTES needs a GBytes"),
                             self->name, i);
                return FALSE;
              }
            cugi_kernel_args_add_bytes (kernel_args, bytes);
          }
          break;
        case CUGI_ARG_POINTER:
          cugi_kernel_args_add_pointer (kernel_args, va_arg (args, guint64));
          break;
        case CUGI_ARG_END:
        default:
          /* The rest of the list cannot be read without knowing this type. */
          g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                       _("Kernel “%s”, argument %u: %d is not a CugiArgType (is CUGI_ARG_END missing?)"),
                       self->name, i, tag);
          return FALSE;
        }
    }
  return cugi_kernel_launch (self, config, kernel_args, error);
}

/**
 * cugi_kernel_launch_with: (skip)
 * @self: a kernel
 * @config: the grid, block, shared memory and stream of the launch
 * @error: return location for a #GError
 * @...: pairs of a #CugiArgType and a value, ended by %CUGI_ARG_END
 *
 * Launches @self like cugi_kernel_launch(), with the arguments given in
 * place, for C:
 *
 * |[<!-- language="C" -->
 * cugi_kernel_launch_with (saxpy, config, &error,
 *                          CUGI_ARG_FLOAT, 2.0f,
 *                          CUGI_ARG_BUFFER, x,
 *                          CUGI_ARG_BUFFER, y,
 *                          CUGI_ARG_UINT32, n,
 *                          CUGI_ARG_END);
 * ]|
 *
 * Each value must have the C type of its tag: a #CugiBuffer pointer, a
 * #gint32, #guint32, #gint64 or #guint64 (cast literals of 64-bit tags:
 * `G_GINT64_CONSTANT (1)`), a float or double, a #GBytes pointer, or a
 * #guint64 device address.
 *
 * Returns: %TRUE when the launch was enqueued
 *
 * Since: 0.1
 */
gboolean
cugi_kernel_launch_with (CugiKernel       *self,
                         CugiLaunchConfig *config,
                         GError          **error,
                         ...)
{
  va_list args;
  gboolean launched;

  va_start (args, error);
  launched = cugi_kernel_launch_with_valist (self, config, error, args);
  va_end (args);
  return launched;
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
  if (!enter (self, &scope, error) ||
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

  if (!enter (self, &scope, error) ||
      !CUGI_CALL (cuOccupancyMaxPotentialBlockSizeWithFlags,
                  (&grid, &block, self->function, NULL, dynamic_shared_memory, 0, CU_OCCUPANCY_DEFAULT),
                  error))
    grid = block = -1;
  if (min_grid_size != NULL)
    *min_grid_size = grid;
  return block;
}
