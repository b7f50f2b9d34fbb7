/* cugi-kernel-plan.c: a kernel's parameters as bindings see them, and
 * launches from one block of packed values: what a binding needs to learn
 * an argument plan once per kernel and then launch in one call. */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "cugi-kernel-private.h"

static CugiParameterKind
kind_of (const CugiKernelSignature *signature,
         const CugiKernelParam     *param)
{
  if (!signature->have_types)
    return CUGI_PARAMETER_KIND_UNKNOWN;
  switch (param->type)
    {
    case CUGI_PARAM_TYPE_POINTER: return CUGI_PARAMETER_KIND_POINTER;
    case CUGI_PARAM_TYPE_BOOL: return CUGI_PARAMETER_KIND_BOOL;
    case CUGI_PARAM_TYPE_INT8: return CUGI_PARAMETER_KIND_INT8;
    case CUGI_PARAM_TYPE_UINT8: return CUGI_PARAMETER_KIND_UINT8;
    case CUGI_PARAM_TYPE_INT16: return CUGI_PARAMETER_KIND_INT16;
    case CUGI_PARAM_TYPE_UINT16: return CUGI_PARAMETER_KIND_UINT16;
    case CUGI_PARAM_TYPE_INT32: return CUGI_PARAMETER_KIND_INT32;
    case CUGI_PARAM_TYPE_UINT32: return CUGI_PARAMETER_KIND_UINT32;
    case CUGI_PARAM_TYPE_INT64: return CUGI_PARAMETER_KIND_INT64;
    case CUGI_PARAM_TYPE_UINT64: return CUGI_PARAMETER_KIND_UINT64;
    case CUGI_PARAM_TYPE_FLOAT: return CUGI_PARAMETER_KIND_FLOAT;
    case CUGI_PARAM_TYPE_DOUBLE: return CUGI_PARAMETER_KIND_DOUBLE;
    case CUGI_PARAM_TYPE_OTHER:
    default:
      return CUGI_PARAMETER_KIND_STRUCT;
    }
}

/* The signature of a kernel whose parameters are known, else NULL with
 * @n_params 0. */
static const CugiKernelSignature *
known_signature (CugiKernel *self,
                 guint      *n_params)
{
  *n_params = 0;
  if (!cugi_kernel_check_usable (self, NULL) || self->signature->n_params < 0)
    return NULL;
  *n_params = (guint) self->signature->n_params;
  return self->signature;
}

/**
 * cugi_kernel_get_parameter_kinds:
 * @self: a kernel
 * @n_params: (out): return location for the number of parameters
 *
 * What each parameter of @self is, for bindings that convert their own
 * values before a launch (see cugi_kernel_launch_packed()): the types a C++
 * kernel's mangled name tells, and %CUGI_PARAMETER_KIND_UNKNOWN for each
 * parameter of an `extern "C"` kernel, whose name tells none (its sizes are
 * still known, from cugi_kernel_get_parameter_sizes()).
 *
 * Where not even the number of parameters is known
 * (cugi_kernel_get_num_params() returns -1), or @self cannot be launched,
 * the array is empty.
 *
 * Returns: (array length=n_params) (transfer full): the kinds, one per
 *   parameter; free with g_free()
 *
 * Since: 0.1
 */
CugiParameterKind *
cugi_kernel_get_parameter_kinds (CugiKernel *self,
                                 guint      *n_params)
{
  const CugiKernelSignature *signature;
  CugiParameterKind *kinds;

  g_return_val_if_fail (CUGI_IS_KERNEL (self), NULL);
  g_return_val_if_fail (n_params != NULL, NULL);

  signature = known_signature (self, n_params);
  kinds = g_new0 (CugiParameterKind, MAX (*n_params, 1));
  for (guint i = 0; i < *n_params; i++)
    kinds[i] = kind_of (signature, &signature->params[i]);
  return kinds;
}

/**
 * cugi_kernel_get_parameter_sizes:
 * @self: a kernel
 * @n_params: (out): return location for the number of parameters
 *
 * The size in bytes of each parameter of @self, as the driver reports them
 * (`cuFuncGetParamInfo`, CUDA 12.4 and later) or, with older drivers, as a
 * C++ kernel's types tell; 0 where neither does (on an older driver, a
 * struct of a C++ kernel, or any parameter of an `extern "C"` one).
 *
 * Where not even the number of parameters is known
 * (cugi_kernel_get_num_params() returns -1), or @self cannot be launched,
 * the array is empty.
 *
 * Returns: (array length=n_params) (transfer full): the sizes, one per
 *   parameter; free with g_free()
 *
 * Since: 0.1
 */
gsize *
cugi_kernel_get_parameter_sizes (CugiKernel *self,
                                 guint      *n_params)
{
  const CugiKernelSignature *signature;
  gsize *sizes;

  g_return_val_if_fail (CUGI_IS_KERNEL (self), NULL);
  g_return_val_if_fail (n_params != NULL, NULL);

  signature = known_signature (self, n_params);
  sizes = g_new0 (gsize, MAX (*n_params, 1));
  for (guint i = 0; i < *n_params; i++)
    sizes[i] = signature->params[i].size;
  return sizes;
}

/* The argument list of a kernel's packed launches, kept from one to the
 * next: launched again with the same buffers, it only takes the new values,
 * and its buffers stay pinned to the stream (cugi_kernel_args_track_launch())
 * as a prepared list's do, so that a packed launch costs what launching a
 * prepared list costs. NULL while a launch uses it: another thread
 * launching the kernel then makes a list of its own. */
typedef struct
{
  CugiKernelArgs *args;  /* (owned) (nullable) (atomic) */
} PackedLaunches;

static void
packed_launches_free (gpointer data)
{
  PackedLaunches *launches = data;

  g_clear_pointer (&launches->args, cugi_kernel_args_unref);
  g_free (launches);
}

static PackedLaunches *
get_packed_launches (CugiKernel *self)
{
  static gsize quark;
  PackedLaunches *launches;

  if (g_once_init_enter (&quark))
    g_once_init_leave (&quark, g_quark_from_static_string ("cugi-kernel-packed-launches"));
  launches = g_object_get_qdata (G_OBJECT (self), quark);
  if (G_LIKELY (launches != NULL))
    return launches;
  launches = g_new0 (PackedLaunches, 1);
  /* Another thread may have set one meanwhile: theirs is kept. */
  if (!g_object_replace_qdata (G_OBJECT (self), quark, NULL, launches, packed_launches_free, NULL))
    {
      g_free (launches);
      launches = g_object_get_qdata (G_OBJECT (self), quark);
    }
  return launches;
}

/* Adds the @size bytes at @value as an argument of @type: as what it is for
 * the types that have an adder, as a 32- or 64-bit integer for a parameter
 * of unknown type (checked by its size alone), as bytes otherwise. */
static void
add_packed_value (CugiKernelArgs *args,
                  CugiParamType   type,
                  const guint8   *value,
                  gsize           size)
{
  union { gint32 i32; guint32 u32; gint64 i64; guint64 u64; gfloat f; gdouble d; } number;
  g_autoptr(GBytes) bytes = NULL;

  if (size != 4 && size != 8)
    {
      /* bool, 8 and 16 bits, structs */
      bytes = g_bytes_new (value, size);
      cugi_kernel_args_add_bytes (args, bytes);
      return;
    }
  memcpy (&number, value, size);
  if (type == CUGI_PARAM_TYPE_FLOAT && size == 4)
    cugi_kernel_args_add_float (args, number.f);
  else if (type == CUGI_PARAM_TYPE_DOUBLE && size == 8)
    cugi_kernel_args_add_double (args, number.d);
  else if (type == CUGI_PARAM_TYPE_INT32 && size == 4)
    cugi_kernel_args_add_int32 (args, number.i32);
  else if (type == CUGI_PARAM_TYPE_INT64 && size == 8)
    cugi_kernel_args_add_int64 (args, number.i64);
  else if (size == 4)
    cugi_kernel_args_add_uint32 (args, number.u32);
  else
    cugi_kernel_args_add_uint64 (args, number.u64);
}

/* The arguments whose values a block gives: numbers, and raw addresses. */
static inline gboolean
takes_value (CugiArgType type)
{
  return type != CUGI_ARG_BUFFER && type != CUGI_ARG_BYTES && type != CUGI_ARG_TEXTURE &&
         type != CUGI_ARG_SURFACE && type != CUGI_ARG_TENSOR_MAP;
}

/* Whether @args holds @buffers where they are not NULL, and numbers
 * elsewhere (as unpack() left it for the same kernel): then the new values
 * can be written in place. */
static gboolean
can_take_values (CugiKernelArgs *args,
                 CugiBuffer    **buffers,
                 guint           n_buffers)
{
  if (args->n_args != n_buffers)
    return FALSE;
  for (guint i = 0; i < n_buffers; i++)
    {
      const CugiKernelArg *arg = &args->args[i];

      if (buffers[i] != NULL ? arg->type != CUGI_ARG_BUFFER || arg->object != (gpointer) buffers[i]
                             : !takes_value (arg->type))
        return FALSE;
    }
  return TRUE;
}

/* The bytes the numbers of @args take in a block. */
static gsize
values_size (const CugiKernelArgs *args)
{
  gsize size = 0;

  for (guint i = 0; i < args->n_args; i++)
    if (takes_value (args->args[i].type))
      size += args->args[i].size;
  return size;
}

/* Writes the values of @block into the numbers of @args, in order: their
 * types and sizes stay, so what launches checked of @args holds. FALSE,
 * changing nothing, when @block has not the size they take. */
static gboolean
take_values (CugiKernelArgs *args,
             const guint8   *block,
             gsize           block_size)
{
  gsize offset = 0;

  if (values_size (args) != block_size)
    return FALSE;
  for (guint i = 0; i < args->n_args; i++)
    {
      const CugiKernelArg *arg = &args->args[i];

      if (takes_value (arg->type))
        {
          memcpy (&args->values[i], block + offset, arg->size);
          offset += arg->size;
        }
    }
  return TRUE;
}

/* Fills the empty @args from the block and the buffers, checking what
 * only this form of launch can get wrong; the launch checks the rest. */
static gboolean
unpack (CugiKernel          *self,
        const guint8        *block,
        gsize                block_size,
        CugiBuffer         **buffers,
        guint                n_buffers,
        CugiKernelArgs      *args,
        GError             **error)
{
  const CugiKernelSignature *signature = self->signature;
  gsize offset = 0;

  if (signature->n_params < 0)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_NOT_SUPPORTED,
                   _("Kernel “%s”: its parameters are unknown (a driver older than CUDA 12.4 and an "
                     "extern \"C\" kernel), so it cannot take packed arguments; use cugi_kernel_launch()"),
                   self->name);
      return FALSE;
    }
  if (n_buffers != (guint) signature->n_params)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   g_dngettext (GETTEXT_PACKAGE,
                                "Kernel “%s” takes %d parameter, but %u buffer slots were given "
                                "(one per parameter, NULL where it is not a buffer)",
                                "Kernel “%s” takes %d parameters, but %u buffer slots were given "
                                "(one per parameter, NULL where it is not a buffer)",
                                signature->n_params),
                   self->name, signature->n_params, n_buffers);
      return FALSE;
    }

  for (guint i = 0; i < n_buffers; i++)
    {
      const CugiKernelParam *param = &signature->params[i];

      if (buffers[i] != NULL)
        {
          if (!CUGI_IS_BUFFER (buffers[i]))
            {
              g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                           _("Kernel “%s”, parameter %u: not a CugiBuffer"), self->name, i);
              return FALSE;
            }
          /* The launch checks that the parameter takes it. */
          cugi_kernel_args_add_buffer (args, buffers[i]);
          continue;
        }
      if (signature->have_types && param->type == CUGI_PARAM_TYPE_POINTER)
        {
          g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                       _("Kernel “%s”, parameter %u is a pointer: give its CugiBuffer"), self->name, i);
          return FALSE;
        }
      if (param->size == 0)
        {
          g_set_error (error, CUGI_ERROR, CUGI_ERROR_NOT_SUPPORTED,
                       _("Kernel “%s”, parameter %u: its size is unknown (a driver older than CUDA 12.4), "
                         "so it cannot be packed; use cugi_kernel_launch()"),
                       self->name, i);
          return FALSE;
        }
      if (param->size > block_size - offset)
        break;
      if (!cugi_kernel_signature_check_packed (signature, i, block + offset, error))
        return FALSE;
      add_packed_value (args, signature->have_types ? param->type : CUGI_PARAM_TYPE_OTHER,
                        block + offset, param->size);
      offset += param->size;
    }

  if (offset == block_size && args->n_args == n_buffers)
    return TRUE;
  /* The size the block should have had. */
  offset = 0;
  for (guint i = 0; i < n_buffers; i++)
    if (buffers[i] == NULL)
      offset += signature->params[i].size;
  g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
               _("Kernel “%s”: the block of packed values has %zu bytes, but the parameters not given "
                 "as buffers take %zu"),
               self->name, block_size, offset);
  return FALSE;
}

/**
 * cugi_kernel_launch_packed:
 * @self: a kernel
 * @config: the grid, block, shared memory and stream of the launch
 * @block: (array length=block_size) (nullable): the values of the
 *   parameters that are not buffers, in order, each in the parameter's size
 *   and in the host's byte order, without padding
 * @block_size: the size of @block in bytes
 * @buffers: (array length=n_buffers) (nullable): one entry per parameter:
 *   the #CugiBuffer of each pointer parameter, %NULL for the others
 * @n_buffers: the number of entries in @buffers, which is the number of
 *   parameters of @self
 * @error: return location for a #GError
 *
 * Launches @self like cugi_kernel_launch(), with the arguments given in one
 * block of bytes and one array of buffers: what a binding that learned how
 * to convert its values for @self (from cugi_kernel_get_parameter_kinds()
 * and cugi_kernel_get_parameter_sizes()) passes in a single call. For the
 * kernel `saxpy (float a, const float *x, float *y, unsigned n)`, @block
 * holds `a` then `n` (8 bytes), and @buffers is `{ NULL, x, y, NULL }`.
 *
 * The values are taken as they are, bit for bit, as the parameters'
 * types: the binding converts and range-checks its own values, but for
 * the byte of a C++ `bool`, which must be 0 or 1. cugi checks the rest, as
 * for cugi_kernel_launch(): the number of parameters, that
 * @block has the size the parameters not given buffers take, that a buffer
 * goes to a pointer parameter (for a C++ kernel; to one of 8 bytes
 * otherwise) and every pointer parameter has one, and that each buffer is
 * usable and reachable from @self's context. Any mismatch is a
 * %CUGI_ERROR_INVALID_ARGUMENT error and nothing is launched. The buffers
 * stay alive until the kernel has run.
 *
 * The parameters must be known: a kernel whose parameter count or sizes
 * are unknown (an `extern "C"` kernel on a driver older than CUDA 12.4)
 * fails with %CUGI_ERROR_NOT_SUPPORTED.
 *
 * Returns: %TRUE when the launch was enqueued
 *
 * Since: 0.1
 */
gboolean
cugi_kernel_launch_packed (CugiKernel        *self,
                           CugiLaunchConfig  *config,
                           const guint8      *block,
                           gsize              block_size,
                           CugiBuffer       **buffers,
                           guint              n_buffers,
                           GError           **error)
{
  static CugiBuffer *no_buffers[1];
  PackedLaunches *launches;
  CugiKernelArgs *args;
  gboolean launched;

  g_return_val_if_fail (CUGI_IS_KERNEL (self), FALSE);
  g_return_val_if_fail (config != NULL, FALSE);
  g_return_val_if_fail (block != NULL || block_size == 0, FALSE);
  g_return_val_if_fail (buffers != NULL || n_buffers == 0, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!cugi_kernel_is_usable (self) && !cugi_kernel_check_usable (self, error))
    return FALSE;
  launches = get_packed_launches (self);
  args = g_atomic_pointer_exchange (&launches->args, NULL);
  if (args == NULL)
    args = cugi_kernel_args_new ();
  /* An empty array, not NULL, where no buffers are given (a kernel without
   * parameters): the list is then filled for @self, or refused, where NULL
   * would launch it as it was. */
  launched = cugi_kernel_launch_update (self, config, args, block, block_size,
                                        buffers != NULL ? buffers : no_buffers, n_buffers, error);
  if (!g_atomic_pointer_compare_and_exchange (&launches->args, NULL, args))
    cugi_kernel_args_unref (args);
  return launched;
}

/**
 * cugi_kernel_launch_update:
 * @self: a kernel
 * @config: the grid, block, shared memory and stream of the launch
 * @args: an argument list that the caller keeps for these launches of @self
 * @block: (array length=block_size) (nullable): the values of the
 *   parameters that are not buffers, as for cugi_kernel_launch_packed()
 * @block_size: the size of @block in bytes
 * @buffers: (array length=n_buffers) (nullable): one entry per parameter,
 *   as for cugi_kernel_launch_packed(); %NULL to keep the buffers of @args
 * @n_buffers: the number of entries in @buffers
 * @error: return location for a #GError
 *
 * Launches @self with packed values, like cugi_kernel_launch_packed(), in
 * an argument list of the caller's rather than the kernel's: a binding
 * keeps one list per thread (or per call site), and while the buffers stay
 * those of its previous launch it passes %NULL for them, so that the launch
 * does what launching a prepared list with cugi_kernel_launch() does plus
 * the copy of @block, and no array of buffers is handed over.
 *
 * With @buffers, @args is filled from @block and @buffers as
 * cugi_kernel_launch_packed() fills its list (in place when @args holds the
 * same buffers), and emptied when they do not fit @self. Without, the
 * arguments of @args that are numbers (integers, reals and raw addresses)
 * take the values of @block, in order, each in its own size, and the
 * others (buffers, bytes, textures, surfaces and tensor maps) keep theirs;
 * @block must have the size those numbers take, or nothing is launched and
 * @args is unchanged (%CUGI_ERROR_INVALID_ARGUMENT). Either way the launch then
 * checks @args and the configuration as cugi_kernel_launch() does, and
 * @args keeps its new values, and its buffers, after the launch.
 *
 * @args must not be changed or launched by another thread meanwhile.
 *
 * Returns: %TRUE when the launch was enqueued
 *
 * Since: 0.1
 */
gboolean
cugi_kernel_launch_update (CugiKernel        *self,
                           CugiLaunchConfig  *config,
                           CugiKernelArgs    *args,
                           const guint8      *block,
                           gsize              block_size,
                           CugiBuffer       **buffers,
                           guint              n_buffers,
                           GError           **error)
{
  g_return_val_if_fail (cugi_kernel_is_kernel (self), FALSE);
  g_return_val_if_fail (config != NULL, FALSE);
  g_return_val_if_fail (args != NULL, FALSE);
  g_return_val_if_fail (block != NULL || block_size == 0, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (buffers == NULL)
    {
      if (!take_values (args, block, block_size))
        {
          g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                       _("Kernel “%s”: the block of packed values has %zu bytes, but the numbers of the "
                         "argument list take %zu"),
                       self->name, block_size, values_size (args));
          return FALSE;
        }
    }
  else if (!can_take_values (args, buffers, n_buffers) || !take_values (args, block, block_size))
    {
      cugi_kernel_args_clear (args);
      if (!(cugi_kernel_is_usable (self) || cugi_kernel_check_usable (self, error)) ||
          !unpack (self, block, block_size, buffers, n_buffers, args, error))
        {
          /* Keeps no buffer of a launch that did not happen. */
          cugi_kernel_args_clear (args);
          return FALSE;
        }
    }
  return cugi_kernel_launch (self, config, args, error);
}
