/* cugi-kernel-launch.c: the launches of a kernel, and the checks before
 * them: the launch configuration against the rules (once per configuration
 * serial), the arguments against the kernel's signature. */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "cugi-kernel-private.h"
#include "cugi-stream-private.h"

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

/* The rules a launch configuration must follow, one by one, for the error
 * that says what is wrong. What they read of @self does not change while
 * @self is usable, but for its attributes, whose changes forget the
 * configuration found to fit (cugi_kernel_update_attribute()). */
static gboolean
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
        cugi_kernel_update_attribute (self, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, current);
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
      if (!cugi_context_equal (cugi_stream_get_context (config->stream), self->binding.context))
        return config_error (error, CUGI_ERROR_INVALID_CONTEXT,
                             _("the stream belongs to another context than kernel “%s”"), self->name);
    }
  return TRUE;
}

/* Checks @config (whose serial was @serial when the caller read it, before
 * any setting) and remembers it when it fits. First the cache is claimed
 * with a value no configuration has, then the rules are read, and the
 * serial is stored only if nobody wrote the cache meanwhile: a change of
 * the kernel's attributes, or another thread's check, makes this one
 * remember nothing, so that no thread ever finds a configuration cached
 * that was checked against limits older than the cache. */
static G_GNUC_NO_INLINE gboolean
validate_config (CugiKernel             *self,
                 CugiLaunchConfig       *config,
                 gsize                   serial,
                 GError                **error)
{
  gsize claim = cugi_launch_config_next_serial ();

  g_atomic_pointer_set (&self->valid_config, claim);
  if (!check_config_fully (self, config, error))
    return FALSE;
  g_atomic_pointer_compare_and_exchange (&self->valid_config, claim, serial);
  return TRUE;
}

/* The serial is read before the settings, which may change after it
 * (another thread's setter): then the cache names a serial older than the
 * configuration's, and the next launch checks again. */
static inline gboolean
check_config (CugiKernel             *self,
              CugiLaunchConfig       *config,
              GError                **error)
{
  gsize serial = g_atomic_pointer_get (&config->serial);

  return G_LIKELY (serial == g_atomic_pointer_get (&self->valid_config)) ||
         validate_config (self, config, serial, error);
}

gboolean
cugi_kernel_check_args (CugiKernel     *self,
                        CugiKernelArgs *args,
                        GError        **error)
{
  return cugi_kernel_signature_check (self->signature, args, error);
}

gboolean
cugi_kernel_check_launch (CugiKernel       *self,
                          CugiLaunchConfig *config,
                          CugiKernelArgs   *args,
                          GError          **error)
{
  return cugi_kernel_check_usable (self, error) && check_config (self, config, error) &&
         cugi_kernel_check_args (self, args, error) && cugi_kernel_args_resolve (args, error);
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

static G_ALWAYS_INLINE inline gboolean
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
static inline void
track_launch (CugiKernel     *self,
              CugiStream     *stream,
              CugiKernelArgs *args)
{
  if (G_LIKELY (!cugi_work_has_captures ()))
    cugi_kernel_args_track_launch (args, stream);
  else
    cugi_work_track (stream, self, cugi_kernel_args_share_buffers (args));
}

/* A launch once the kernel's context is current: the checks, each a
 * comparison when the configuration and the arguments passed them before,
 * then the launch and its tracking. @epoch: the address epoch, read before
 * them. */
static G_ALWAYS_INLINE inline gboolean
launch_current (CugiKernel       *self,
                CugiLaunchConfig *config,
                CugiKernelArgs   *args,
                gsize             epoch,
                GError          **error)
{
  CugiStream *stream;

  if (!check_config (self, config, error) ||
      !(G_LIKELY (g_atomic_pointer_get (&args->checked_signature) == self->signature_serial) ||
        cugi_kernel_signature_check (self->signature, args, error)) ||
      !cugi_kernel_args_resolve_in_epoch (args, epoch, error))
    return FALSE;

  stream = cugi_stream_resolve (config->stream, self->binding.context);
  if (!enqueue (self, config, args->params, cugi_stream_get_handle (stream), error))
    return FALSE;
  track_launch (self, stream, args);
  return TRUE;
}

/* A launch whose kernel's context is not current, or that fails: the
 * context is pushed for the launch and popped after it. */
static G_GNUC_NO_INLINE gboolean
launch_entering (CugiKernel       *self,
                 CugiLaunchConfig *config,
                 CugiKernelArgs   *args,
                 gsize             epoch,
                 GError          **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;

  return cugi_kernel_enter (self, &scope, error) && launch_current (self, config, args, epoch, error);
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
  gsize epoch;

  g_return_val_if_fail (cugi_kernel_is_kernel (self), FALSE);
  g_return_val_if_fail (config != NULL, FALSE);
  g_return_val_if_fail (args != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  epoch = cugi_memory_get_address_epoch ();
  /* The common case needs no context scope, whose cleanup is a call. */
  if (G_LIKELY (cugi_kernel_is_current (self, epoch)))
    return launch_current (self, config, args, epoch, error);
  return launch_entering (self, config, args, epoch, error);
}

CUGI_LAUNCH_PATH gboolean
cugi_kernel_launch_params (CugiKernel       *self,
                           CugiLaunchConfig *config,
                           void            **params,
                           GPtrArray        *resources,
                           GError          **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  g_autoptr(GPtrArray) kept = resources;
  CugiStream *stream;

  if (!(G_LIKELY (cugi_kernel_is_current (self, cugi_memory_get_address_epoch ())) ||
        cugi_kernel_enter (self, &scope, error)) ||
      !check_config (self, config, error))
    return FALSE;

  stream = cugi_stream_resolve (config->stream, self->binding.context);
  if (!enqueue (self, config, params, cugi_stream_get_handle (stream), error))
    return FALSE;
  cugi_work_track (stream, self, g_steal_pointer (&kept));
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

  if (!cugi_kernel_check_usable (self, error))
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

  return cugi_kernel_check_usable (self, error);
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
/* Whether @object, argument @index of a cugi_kernel_launch_with() list
 * tagged @tag, is the #GType the tag names. */
static gboolean
check_object_arg (CugiKernel  *self,
                  guint        index,
                  gpointer     object,
                  GType        type,
                  const char  *tag,
                  GError     **error)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (object, type))
    return TRUE;
  g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
               _("Kernel “%s”, argument %u: %s needs a %s"), self->name, index, tag, g_type_name (type));
  return FALSE;
}

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
            if (!check_object_arg (self, i, buffer, CUGI_TYPE_BUFFER, "CUGI_ARG_BUFFER", error))
              return FALSE;
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
        case CUGI_ARG_TEXTURE:
          {
            CugiTexture *texture = va_arg (args, CugiTexture *);
            if (!check_object_arg (self, i, texture, CUGI_TYPE_TEXTURE, "CUGI_ARG_TEXTURE", error))
              return FALSE;
            cugi_kernel_args_add_texture (kernel_args, texture);
          }
          break;
        case CUGI_ARG_SURFACE:
          {
            CugiSurface *surface = va_arg (args, CugiSurface *);
            if (!check_object_arg (self, i, surface, CUGI_TYPE_SURFACE, "CUGI_ARG_SURFACE", error))
              return FALSE;
            cugi_kernel_args_add_surface (kernel_args, surface);
          }
          break;
        case CUGI_ARG_CONDITION:
          cugi_kernel_args_add_condition (kernel_args, va_arg (args, guint64));
          break;
        case CUGI_ARG_TENSOR_MAP:
          {
            CugiTensorMap *tensor_map = va_arg (args, CugiTensorMap *);
            if (!check_object_arg (self, i, tensor_map, CUGI_TYPE_TENSOR_MAP, "CUGI_ARG_TENSOR_MAP", error))
              return FALSE;
            cugi_kernel_args_add_tensor_map (kernel_args, tensor_map);
          }
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
 * `G_GINT64_CONSTANT (1)`), a float or double, a #GBytes pointer, a
 * #guint64 device address, or a #CugiTexture, #CugiSurface or
 * #CugiTensorMap pointer.
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
