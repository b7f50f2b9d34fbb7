/* fuzz-kernel-signature.c: a kernel's signature made from any parameter
 * sizes and any mangled name, then arguments added through its conversions
 * and checked: each step succeeds or fails with an INVALID_ARGUMENT error
 * whose message is UTF-8, and arguments that pass fit the parameters.
 *
 * Input: one byte, the number of sizes the driver reports (255: it cannot
 * tell), those sizes a byte each, the mangled name up to a NUL, then
 * operations: a byte saying which, eight bytes of value. */
#include "config.h"

#include <string.h>

#include "cugi-launch-private.h"

int LLVMFuzzerTestOneInput (const guint8 *data,
                            size_t        size);

typedef struct
{
  const guint8 *p;
  const guint8 *end;
} Input;

static guint8
take_byte (Input *input)
{
  return input->p < input->end ? *input->p++ : 0;
}

static guint64
take_u64 (Input *input)
{
  guint64 value = 0;

  for (guint i = 0; i < 8; i++)
    value = value << 8 | take_byte (input);
  return value;
}

static void
assert_refused (GError *error)
{
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT);
  g_assert_true (g_utf8_validate (error->message, -1, NULL));
}

/* Adds one argument as a launch from a language binding would. */
static void
add_argument (const CugiKernelSignature *signature,
              CugiKernelArgs            *args,
              guint8                     op,
              guint64                    bits)
{
  g_autoptr(GError) error = NULL;
  guint index = args->n_args;
  gboolean added;

  switch (op % 5)
    {
    case 0:
      added = cugi_kernel_signature_add_integer (signature, args, index, TRUE, (gint64) bits, 0,
                                                 op & 0x10, &error);
      break;
    case 1:
      added = cugi_kernel_signature_add_integer (signature, args, index, FALSE, 0, bits,
                                                 op & 0x10, &error);
      break;
    case 2:
      {
        gdouble real;
        memcpy (&real, &bits, sizeof real);
        added = cugi_kernel_signature_add_real (signature, args, index, real, op & 0x10, &error);
      }
      break;
    case 3:
      {
        g_auto(GValue) value = G_VALUE_INIT;

        switch ((op >> 3) % 5)
          {
          case 0: g_value_set_boolean (g_value_init (&value, G_TYPE_BOOLEAN), bits & 1); break;
          case 1: g_value_set_int (g_value_init (&value, G_TYPE_INT), (gint) bits); break;
          case 2: g_value_set_uint (g_value_init (&value, G_TYPE_UINT), (guint) bits); break;
          case 3: g_value_set_int64 (g_value_init (&value, G_TYPE_INT64), (gint64) bits); break;
          default: g_value_set_float (g_value_init (&value, G_TYPE_FLOAT), (gfloat) (gint64) bits); break;
          }
        added = cugi_kernel_signature_add_value (signature, args, index, &value, &error);
      }
      break;
    default:
      {
        g_autoptr(GBytes) bytes = g_bytes_new (&bits, 1 + bits % sizeof bits);
        cugi_kernel_args_add_bytes (args, bytes);
        added = TRUE;
      }
      break;
    }
  if (added)
    g_assert_no_error (error);
  else
    assert_refused (error);
}

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        size_t        size)
{
  Input input = { data, data + size };
  guint8 count = take_byte (&input);
  gint n_sizes = count == 255 ? -1 : count % 9;
  gsize sizes[8];
  const guint8 *name_end;
  g_autofree char *mangled_name = NULL;
  g_autoptr(CugiKernelArgs) args = cugi_kernel_args_new ();
  g_autoptr(GError) error = NULL;
  CugiKernelSignature *signature;

  for (gint i = 0; i < n_sizes; i++)
    sizes[i] = take_byte (&input);
  name_end = memchr (input.p, '\0', input.end - input.p);
  if (name_end == NULL)
    name_end = input.end;
  mangled_name = g_strndup ((const char *) input.p, name_end - input.p);
  input.p = name_end < input.end ? name_end + 1 : name_end;

  signature = cugi_kernel_signature_new ("k", mangled_name, sizes, n_sizes);
  /* The driver's count and sizes win over the name's. */
  if (n_sizes >= 0)
    {
      g_assert_cmpint (signature->n_params, ==, n_sizes);
      for (gint i = 0; i < n_sizes; i++)
        g_assert_cmpuint (signature->params[i].size, ==, sizes[i]);
    }
  for (gint i = 0; i < signature->n_params; i++)
    g_assert_true (signature->params[i].spelling == NULL ||
                   g_utf8_validate (signature->params[i].spelling, -1, NULL));

  while (input.p < input.end && args->n_args < 16)
    {
      guint8 op = take_byte (&input);
      add_argument (signature, args, op, take_u64 (&input));
    }

  if (cugi_kernel_signature_check (signature, args, &error))
    {
      g_assert_no_error (error);
      g_assert_true (signature->n_params < 0 || args->n_args == (guint) signature->n_params);
      for (gint i = 0; i < signature->n_params; i++)
        g_assert_true (signature->params[i].size == 0 ||
                       signature->params[i].size == cugi_kernel_args_get_arg_size (args, i));
      /* Checked once: the same arguments pass again. */
      g_assert_true (cugi_kernel_signature_check (signature, args, NULL));
    }
  else
    assert_refused (error);
  cugi_kernel_signature_free (signature);
  return 0;
}
