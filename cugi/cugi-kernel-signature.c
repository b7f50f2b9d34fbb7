/* cugi-kernel-signature.c: what a kernel's parameters are, and whether
 * launch arguments fit them.
 *
 * Pure: a signature is made from the sizes the driver reports
 * (cuFuncGetParamInfo) and the types the mangled name tells, so that the
 * checks and conversions of launches are tested without a GPU.
 */
#include "config.h"

#include <math.h>

#include <glib/gi18n-lib.h>

#include "cugi-context-private.h"
#include "cugi-launch-private.h"

/* The most bytes of parameters a kernel can take (32764 since CUDA 12.1 on
 * Volta and later; 4 KiB before): no argument may be larger. */
#define MAX_PARAMS_SIZE 32764

/* @count is the number of parameters, -1 when unknown; @sizes (@count of
 * them) is NULL when the driver cannot tell them. When both the driver and
 * the mangled name speak and disagree, the driver wins: the name reader
 * misread something, and sizes are all that is checked. */
CugiKernelSignature *
cugi_kernel_signature_new (const char  *name,
                           const char  *mangled_name,
                           const gsize *sizes,
                           gint         count)
{
  /* gsize, so that serials are never reused in practice: an argument list
   * that fits a freed signature must not pass for fitting a new one. */
  static gsize last_serial;
  CugiKernelSignature *self = g_new0 (CugiKernelSignature, 1);
  g_autoptr(GPtrArray) types = mangled_name != NULL ? cugi_mangle_read_parameters (mangled_name) : NULL;
  gboolean have_count = count >= 0;

  /* Sizes come with their count. */
  if (!have_count)
    sizes = NULL;
  self->name = g_strdup (name);
  self->serial = (gsize) g_atomic_pointer_add (&last_serial, 1) + 1;
  self->n_params = -1;

  if (types != NULL && have_count)
    {
      if (types->len != (guint) count)
        g_clear_pointer (&types, g_ptr_array_unref);
      for (guint i = 0; types != NULL && sizes != NULL && i < types->len; i++)
        {
          const CugiMangledParam *param = g_ptr_array_index (types, i);
          gsize type_size = cugi_param_type_get_size (param->type);

          if (type_size != 0 && type_size != sizes[i])
            g_clear_pointer (&types, g_ptr_array_unref);
        }
    }
  if (!have_count && types == NULL)
    return self;

  self->n_params = have_count ? count : (gint) types->len;
  self->params = g_new0 (CugiKernelParam, MAX (self->n_params, 1));
  self->have_types = types != NULL;
  for (gint i = 0; i < self->n_params; i++)
    {
      CugiKernelParam *param = &self->params[i];

      if (types != NULL)
        {
          const CugiMangledParam *mangled = g_ptr_array_index (types, i);
          param->type = mangled->type;
          param->spelling = g_strdup (mangled->spelling);
          param->size = cugi_param_type_get_size (mangled->type);
        }
      if (sizes != NULL)
        param->size = sizes[i];
    }
  return self;
}

void
cugi_kernel_signature_free (CugiKernelSignature *self)
{
  for (gint i = 0; i < self->n_params; i++)
    g_free (self->params[i].spelling);
  g_free (self->params);
  g_free (self->name);
  g_free (self);
}

/* How messages name a parameter: its C++ type, or its size. */
static char *
describe_param (const CugiKernelParam *param)
{
  if (param->spelling != NULL)
    return g_strdup (param->spelling);
  if (param->size != 0)
    return g_strdup_printf (_("%zu bytes"), param->size);
  return g_strdup (_("unknown type"));
}

static gboolean
param_error (const CugiKernelSignature *self,
             guint                      index,
             GError                   **error,
             const char                *format,
             ...) G_GNUC_PRINTF (4, 5);

/* Parameter @index, or NULL when the signature does not know it. */
static const CugiKernelParam *
param_at (const CugiKernelSignature *self,
          guint                      index)
{
  return self->n_params >= 0 && index < (guint) self->n_params ? &self->params[index] : NULL;
}

/* Names the parameter where the signature knows it, else the argument. */
static gboolean
param_error (const CugiKernelSignature *self,
             guint                      index,
             GError                   **error,
             const char                *format,
             ...)
{
  const CugiKernelParam *known = param_at (self, index);
  g_autofree char *message = NULL;
  g_autofree char *param = NULL;
  va_list ap;

  va_start (ap, format);
  message = g_strdup_vprintf (format, ap);
  va_end (ap);
  if (known == NULL)
    g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                 _("Kernel “%s”, argument %u: %s"), self->name, index, message);
  else
    g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                 _("Kernel “%s”, parameter %u (%s): %s"), self->name, index,
                 (param = describe_param (known)), message);
  return FALSE;
}

static gboolean
is_integer (CugiArgType type)
{
  return type == CUGI_ARG_INT32 || type == CUGI_ARG_UINT32 ||
         type == CUGI_ARG_INT64 || type == CUGI_ARG_UINT64;
}

/* Whether an argument of @arg may go to a parameter of @param, sizes aside:
 * integers of either sign go to integers, floats to floats, addresses to
 * pointers, bytes anywhere. */
static gboolean
param_accepts (CugiParamType param,
               CugiArgType   arg)
{
  if (arg == CUGI_ARG_BYTES || param == CUGI_PARAM_TYPE_OTHER)
    return TRUE;
  /* A descriptor of 128 bytes, which no other argument is. */
  if (arg == CUGI_ARG_TENSOR_MAP || param == CUGI_PARAM_TYPE_TENSOR_MAP)
    return arg == CUGI_ARG_TENSOR_MAP && param == CUGI_PARAM_TYPE_TENSOR_MAP;
  /* cudaTextureObject_t, cudaSurfaceObject_t and cudaGraphConditionalHandle
   * are unsigned long long. */
  if (arg == CUGI_ARG_TEXTURE || arg == CUGI_ARG_SURFACE || arg == CUGI_ARG_CONDITION)
    return param == CUGI_PARAM_TYPE_UINT64 || param == CUGI_PARAM_TYPE_INT64;
  if (param == CUGI_PARAM_TYPE_POINTER)
    return arg == CUGI_ARG_BUFFER || arg == CUGI_ARG_POINTER;
  if (param == CUGI_PARAM_TYPE_FLOAT)
    return arg == CUGI_ARG_FLOAT;
  if (param == CUGI_PARAM_TYPE_DOUBLE)
    return arg == CUGI_ARG_DOUBLE;
  return is_integer (arg);   /* bool and the integer types */
}

static const char *
hint_for (CugiParamType param)
{
  if (param == CUGI_PARAM_TYPE_POINTER)
    return _("pass a CugiBuffer (or a raw device address with cugi_kernel_args_add_pointer())");
  if (param == CUGI_PARAM_TYPE_FLOAT)
    return _("pass a float");
  if (param == CUGI_PARAM_TYPE_DOUBLE)
    return _("pass a double");
  if (param == CUGI_PARAM_TYPE_TENSOR_MAP)
    return _("pass a CugiTensorMap");
  return _("pass an integer of the parameter's size, or its bytes");
}

/* The context of the object @arg passes by value (a texture, surface or
 * tensor map), which a kernel of another cannot use; NULL for others. */
static CugiContext *
object_context (const CugiKernelArg *arg)
{
  switch (arg->type)
    {
    case CUGI_ARG_TEXTURE:
      return cugi_texture_get_context (arg->object);
    case CUGI_ARG_SURFACE:
      return cugi_surface_get_context (arg->object);
    case CUGI_ARG_TENSOR_MAP:
      return cugi_tensor_map_get_context (arg->object);
    default:
      return NULL;
    }
}

/* What no kernel could take, whatever its parameters: an argument larger
 * than all the parameters a kernel may have, or a buffer its context
 * cannot reach. */
static gboolean
check_each_arg (const CugiKernelSignature *self,
                CugiKernelArgs            *args,
                GError                   **error)
{
  for (guint i = 0; i < args->n_args; i++)
    {
      const CugiKernelArg *arg = &args->args[i];
      CugiContext *owner = object_context (arg);

      /* Sizes are saturated at G_MAXUINT32: the GBytes has the true one. */
      if (G_UNLIKELY (arg->size > MAX_PARAMS_SIZE))
        {
          g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                       _("Kernel “%s”, argument %u: %zu bytes is more than a kernel's parameters "
                         "can take (%d bytes in all)"),
                       self->name, i, cugi_kernel_args_get_arg_size (args, i), MAX_PARAMS_SIZE);
          return FALSE;
        }
      if (owner != NULL && self->context != NULL && !cugi_context_equal (owner, self->context))
        {
          g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_CONTEXT,
                       _("Kernel “%s”, argument %u: the %s belongs to another context than the kernel"),
                       self->name, i, cugi_arg_type_to_string (arg->type));
          return FALSE;
        }
      if (arg->type != CUGI_ARG_BUFFER || self->context == NULL)
        continue;
      owner = cugi_buffer_get_context (arg->object);
      if (cugi_context_equal (owner, self->context))
        continue;
      /* Another device's memory is there with peer access
       * (cugi_context_enable_peer_access()), and managed memory everywhere;
       * another context of the same device never reaches it. */
      if (cugi_device_get_ordinal (cugi_context_get_device (owner)) ==
          cugi_device_get_ordinal (cugi_context_get_device (self->context)) &&
          !cugi_buffer_is_managed (arg->object))
        {
          g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_CONTEXT,
                       _("Kernel “%s”, argument %u: the buffer belongs to another context of the "
                         "same device, whose memory the kernel's context cannot use"),
                       self->name, i);
          return FALSE;
        }
    }
  return TRUE;
}

/* The arguments against the parameters the signature knows. */
static gboolean
check_params (const CugiKernelSignature *self,
              CugiKernelArgs            *args,
              GError                   **error)
{
  if (G_UNLIKELY (args->n_args != (guint) self->n_params))
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   g_dngettext (GETTEXT_PACKAGE,
                                "Kernel “%s” takes %d parameter, but %u arguments were given",
                                "Kernel “%s” takes %d parameters, but %u arguments were given",
                                self->n_params),
                   self->name, self->n_params, args->n_args);
      return FALSE;
    }
  for (guint i = 0; i < args->n_args; i++)
    {
      const CugiKernelParam *param = &self->params[i];
      const CugiKernelArg *arg = &args->args[i];

      if (self->have_types && G_UNLIKELY (!param_accepts (param->type, arg->type)))
        return param_error (self, i, error, _("cannot take a %s argument; %s"),
                            cugi_arg_type_to_string (arg->type), hint_for (param->type));
      if (param->size != 0 && G_UNLIKELY (param->size != arg->size))
        return param_error (self, i, error, _("takes %zu bytes, but the %s argument has %u"),
                            param->size, cugi_arg_type_to_string (arg->type), arg->size);
    }
  return TRUE;
}

/* Kept apart from cugi_kernel_signature_check(), whose common case then
 * stays a few instructions. */
static G_GNUC_NO_INLINE gboolean
check_args (const CugiKernelSignature *self,
            CugiKernelArgs            *args,
            GError                   **error)
{
  if (!check_each_arg (self, args, error) ||
      (self->n_params >= 0 && !check_params (self, args, error)))
    return FALSE;
  g_atomic_pointer_set (&args->checked_signature, self->serial);
  return TRUE;
}

CUGI_LAUNCH_PATH gboolean
cugi_kernel_signature_check (const CugiKernelSignature *self,
                             CugiKernelArgs            *args,
                             GError                   **error)
{
  /* Kernels of unknown parameters too: their arguments are checked once
   * for what no kernel could take. */
  if (G_LIKELY (g_atomic_pointer_get (&args->checked_signature) == self->serial))
    return TRUE;
  return check_args (self, args, error);
}

/* ---- launches with GValues ------------------------------------------------ */

static void
add_small_integer (CugiKernelArgs *args,
                   gint64          value,
                   gsize           size)
{
  g_autoptr(GBytes) bytes = NULL;
  union { gint8 i8; gint16 i16; } small;

  if (size == 1)
    small.i8 = (gint8) value;
  else
    small.i16 = (gint16) value;
  bytes = g_bytes_new (&small, size);
  cugi_kernel_args_add_bytes (args, bytes);
}

/* An integer, converted to the parameter's type: FALSE when it does not fit.
 * Without a known type, the parameter's size and the value's sign decide. */
static gboolean
convert_integer (const CugiKernelSignature *self,
             CugiKernelArgs            *args,
             guint                      index,
             gboolean                   is_signed,
             gint64                     signed_value,
             guint64                    unsigned_value,
             gboolean                   wide)
{
  const CugiKernelParam *param = param_at (self, index);
  CugiParamType type = (param != NULL && self->have_types) ? param->type : CUGI_PARAM_TYPE_OTHER;
  gsize size = param != NULL ? param->size : 0;
  gboolean negative = is_signed && signed_value < 0;
  gint64 low = G_MININT64;
  guint64 high = G_MAXUINT64;
  gint64 value;

  if (type == CUGI_PARAM_TYPE_OTHER && size == 1)
    type = is_signed ? CUGI_PARAM_TYPE_INT8 : CUGI_PARAM_TYPE_UINT8;
  else if (type == CUGI_PARAM_TYPE_OTHER && size == 2)
    type = is_signed ? CUGI_PARAM_TYPE_INT16 : CUGI_PARAM_TYPE_UINT16;
  else if (type == CUGI_PARAM_TYPE_OTHER && (size == 4 || (size == 0 && !wide)))
    type = is_signed ? CUGI_PARAM_TYPE_INT32 : CUGI_PARAM_TYPE_UINT32;
  else if (type == CUGI_PARAM_TYPE_OTHER && (size == 8 || size == 0))
    type = is_signed ? CUGI_PARAM_TYPE_INT64 : CUGI_PARAM_TYPE_UINT64;

  switch (type)
    {
    /* Any other byte than 0 and 1 is undefined behaviour in the kernel. */
    case CUGI_PARAM_TYPE_BOOL: low = 0; high = 1; break;
    case CUGI_PARAM_TYPE_UINT8: low = 0; high = G_MAXUINT8; break;
    case CUGI_PARAM_TYPE_INT8: low = G_MININT8; high = G_MAXINT8; break;
    case CUGI_PARAM_TYPE_UINT16: low = 0; high = G_MAXUINT16; break;
    case CUGI_PARAM_TYPE_INT16: low = G_MININT16; high = G_MAXINT16; break;
    case CUGI_PARAM_TYPE_INT32: low = G_MININT32; high = G_MAXINT32; break;
    case CUGI_PARAM_TYPE_UINT32: low = 0; high = G_MAXUINT32; break;
    case CUGI_PARAM_TYPE_INT64: high = G_MAXINT64; break;
    case CUGI_PARAM_TYPE_UINT64: low = 0; break;
    case CUGI_PARAM_TYPE_FLOAT:
      /* An integer literal for a float is what Python callers write. */
      cugi_kernel_args_add_float (args, negative ? (gfloat) signed_value : (gfloat) unsigned_value);
      return TRUE;
    case CUGI_PARAM_TYPE_DOUBLE:
      cugi_kernel_args_add_double (args, negative ? (gdouble) signed_value : (gdouble) unsigned_value);
      return TRUE;
    case CUGI_PARAM_TYPE_POINTER:
    case CUGI_PARAM_TYPE_OTHER:
    default:
      /* Passed as it is: the checks say what is wrong with it. */
      if (is_signed)
        cugi_kernel_args_add_int64 (args, signed_value);
      else
        cugi_kernel_args_add_uint64 (args, unsigned_value);
      return TRUE;
    }

  if (negative ? signed_value < low : unsigned_value > high)
    return FALSE;
  /* In range: below G_MAXINT64 unless the parameter is a uint64. */
  value = negative ? signed_value : (gint64) unsigned_value;

  switch (type)
    {
    case CUGI_PARAM_TYPE_BOOL:
    case CUGI_PARAM_TYPE_UINT8:
    case CUGI_PARAM_TYPE_INT8:
      add_small_integer (args, value, 1);
      break;
    case CUGI_PARAM_TYPE_UINT16:
    case CUGI_PARAM_TYPE_INT16:
      add_small_integer (args, value, 2);
      break;
    case CUGI_PARAM_TYPE_INT32:
      cugi_kernel_args_add_int32 (args, (gint32) value);
      break;
    case CUGI_PARAM_TYPE_UINT32:
      cugi_kernel_args_add_uint32 (args, (guint32) value);
      break;
    case CUGI_PARAM_TYPE_INT64:
      cugi_kernel_args_add_int64 (args, value);
      break;
    case CUGI_PARAM_TYPE_UINT64:
    default:
      cugi_kernel_args_add_uint64 (args, unsigned_value);
      break;
    }
  return TRUE;
}

/* Whether parameter @index is known to be a bool. */
static gboolean
is_bool (const CugiKernelSignature *self,
         guint                      index)
{
  const CugiKernelParam *param = param_at (self, index);

  return self->have_types && param != NULL && param->type == CUGI_PARAM_TYPE_BOOL;
}

static gboolean
refuse_bool (const CugiKernelSignature *self,
             guint                      index,
             const char                *number,
             GError                   **error)
{
  return param_error (self, index, error, _("%s is not a bool: pass 0 or 1 (false or true)"), number);
}

gboolean
cugi_kernel_signature_check_packed (const CugiKernelSignature *self,
                                    guint                      index,
                                    const guint8              *value,
                                    GError                   **error)
{
  g_autofree char *number = NULL;

  if (!is_bool (self, index) || *value <= 1)
    return TRUE;
  number = g_strdup_printf ("%u", *value);
  return refuse_bool (self, index, number, error);
}

gboolean
cugi_kernel_signature_add_integer (const CugiKernelSignature *self,
                                   CugiKernelArgs            *args,
                                   guint                      index,
                                   gboolean                   is_signed,
                                   gint64                     signed_value,
                                   guint64                    unsigned_value,
                                   gboolean                   wide,
                                   GError                   **error)
{
  g_autofree char *number = NULL;

  if (is_signed && signed_value >= 0)
    unsigned_value = (guint64) signed_value;
  if (convert_integer (self, args, index, is_signed, signed_value, unsigned_value, wide))
    return TRUE;

  number = is_signed && signed_value < 0 ? g_strdup_printf ("%" G_GINT64_FORMAT, signed_value)
                                         : g_strdup_printf ("%" G_GUINT64_FORMAT, unsigned_value);
  if (is_bool (self, index))
    return refuse_bool (self, index, number, error);
  return param_error (self, index, error, _("%s is out of range"), number);
}

gboolean
cugi_kernel_signature_add_real (const CugiKernelSignature *self,
                                CugiKernelArgs            *args,
                                guint                      index,
                                gdouble                    number,
                                gboolean                   single,
                                GError                   **error)
{
  const CugiKernelParam *param = param_at (self, index);
  CugiParamType type = (param != NULL && self->have_types) ? param->type : CUGI_PARAM_TYPE_OTHER;
  gsize size = param != NULL ? param->size : 0;

  /* Where the kernel does not say what the parameter is, a whole number
   * beyond 32 bits may be meant for an integer parameter, which its bits as
   * a float or a double would give a wrong value: GJS, which has one kind
   * of number, passes every one beyond 32 bits as a double. Within 32 bits
   * GJS passes most integers as integers (not all: Math.sqrt(4) is a
   * double), and a whole real there is taken for a real (2.0 for a float,
   * from Python); beyond 64 bits no integer parameter could take it. */
  if (type == CUGI_PARAM_TYPE_OTHER && isfinite (number) && number == trunc (number) &&
      (number < G_MININT32 || number > G_MAXINT32) && fabs (number) < 0x1p64)
    return param_error (self, index, error,
                        _("%.0f may be an integer or a real number, and the kernel does not say which "
                          "the parameter takes (an extern \"C\" kernel): pass an integer with "
                          "cugi_kernel_append_int() or cugi_kernel_args_add_int64(), a real number with "
                          "cugi_kernel_args_add_float() or cugi_kernel_args_add_double(), "
                          "then launch with cugi_kernel_launch()"),
                        number);

  if (type == CUGI_PARAM_TYPE_FLOAT || (type == CUGI_PARAM_TYPE_OTHER && size == 4) ||
      (type == CUGI_PARAM_TYPE_OTHER && size == 0 && single))
    cugi_kernel_args_add_float (args, (gfloat) number);
  else
    /* A double, or a real number where something else is expected: the
     * checks then say what. */
    cugi_kernel_args_add_double (args, number);
  return TRUE;
}

gboolean
cugi_kernel_signature_add_value (const CugiKernelSignature *self,
                                 CugiKernelArgs            *args,
                                 guint                      index,
                                 const GValue              *value,
                                 GError                   **error)
{
  gboolean is_signed = TRUE, wide = FALSE;
  gint64 signed_value = 0;
  guint64 unsigned_value = 0;

  if (!G_IS_VALUE (value))
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("Kernel “%s”, argument %u has no value (its GValue is unset)"), self->name, index);
      return FALSE;
    }
  if (G_VALUE_HOLDS_OBJECT (value))
    {
      /* The value's type may be GObject itself: what counts is the object. */
      GObject *object = g_value_get_object (value);
      if (CUGI_IS_TEXTURE (object))
        cugi_kernel_args_add_texture (args, CUGI_TEXTURE (object));
      else if (CUGI_IS_SURFACE (object))
        cugi_kernel_args_add_surface (args, CUGI_SURFACE (object));
      else if (CUGI_IS_BUFFER (object))
        cugi_kernel_args_add_buffer (args, CUGI_BUFFER (object));
      else if (CUGI_IS_TENSOR_MAP (object))
        cugi_kernel_args_add_tensor_map (args, CUGI_TENSOR_MAP (object));
      else
        {
          g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                       _("Kernel “%s”, argument %u: a %s cannot be passed to a kernel, only a CugiBuffer, "
                         "a CugiTexture, a CugiSurface or a CugiTensorMap"),
                       self->name, index, object != NULL ? G_OBJECT_TYPE_NAME (object) : "NULL");
          return FALSE;
        }
      return TRUE;
    }
  if (G_VALUE_HOLDS (value, G_TYPE_BYTES))
    {
      GBytes *bytes = g_value_get_boxed (value);
      if (bytes == NULL)
        {
          g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                       _("Kernel “%s”, argument %u: the bytes are NULL"), self->name, index);
          return FALSE;
        }
      cugi_kernel_args_add_bytes (args, bytes);
      return TRUE;
    }
  if (G_VALUE_HOLDS_FLOAT (value))
    return cugi_kernel_signature_add_real (self, args, index, g_value_get_float (value), TRUE, error);
  if (G_VALUE_HOLDS_DOUBLE (value))
    return cugi_kernel_signature_add_real (self, args, index, g_value_get_double (value), FALSE, error);

  switch (G_TYPE_FUNDAMENTAL (G_VALUE_TYPE (value)))
    {
    case G_TYPE_BOOLEAN: signed_value = g_value_get_boolean (value); break;
    case G_TYPE_CHAR: signed_value = g_value_get_schar (value); break;
    case G_TYPE_UCHAR: is_signed = FALSE; unsigned_value = g_value_get_uchar (value); break;
    case G_TYPE_INT: signed_value = g_value_get_int (value); break;
    case G_TYPE_UINT: is_signed = FALSE; unsigned_value = g_value_get_uint (value); break;
    case G_TYPE_LONG: wide = TRUE; signed_value = g_value_get_long (value); break;
    case G_TYPE_ULONG: wide = TRUE; is_signed = FALSE; unsigned_value = g_value_get_ulong (value); break;
    case G_TYPE_INT64: wide = TRUE; signed_value = g_value_get_int64 (value); break;
    case G_TYPE_UINT64: wide = TRUE; is_signed = FALSE; unsigned_value = g_value_get_uint64 (value); break;
    case G_TYPE_ENUM: signed_value = g_value_get_enum (value); break;
    case G_TYPE_FLAGS: is_signed = FALSE; unsigned_value = g_value_get_flags (value); break;
    default:
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("Kernel “%s”, argument %u: a %s cannot be passed to a kernel"),
                   self->name, index, G_VALUE_TYPE_NAME (value));
      return FALSE;
    }
  return cugi_kernel_signature_add_integer (self, args, index, is_signed, signed_value, unsigned_value,
                                            wide, error);
}
