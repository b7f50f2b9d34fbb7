/* test-launch-config.c: launch configurations, argument lists, and how
 * launches check and convert arguments against a kernel's parameters,
 * without a GPU */
#include "config.h"

#include <string.h>

#include "cugi-launch-private.h"
#include "cugi-test-utils.h"

static void
assert_dims (void (*get) (CugiLaunchConfig *, guint *, guint *, guint *),
             CugiLaunchConfig *config,
             guint             x,
             guint             y,
             guint             z)
{
  guint got_x = 0, got_y = 0, got_z = 0;

  get (config, &got_x, &got_y, &got_z);
  g_assert_cmpuint (got_x, ==, x);
  g_assert_cmpuint (got_y, ==, y);
  g_assert_cmpuint (got_z, ==, z);
}

static void
test_config_defaults (void)
{
  g_autoptr(CugiLaunchConfig) config = cugi_launch_config_new (40, 256);

  assert_dims (cugi_launch_config_get_grid, config, 40, 1, 1);
  assert_dims (cugi_launch_config_get_block, config, 256, 1, 1);
  assert_dims (cugi_launch_config_get_cluster, config, 0, 0, 0);
  g_assert_cmpuint (cugi_launch_config_get_shared_memory (config), ==, 0);
  g_assert_null (cugi_launch_config_get_stream (config));
  g_assert_false (cugi_launch_config_get_cooperative (config));
}

static void
test_config_setters (void)
{
  g_autoptr(CugiLaunchConfig) config = cugi_launch_config_new (1, 1);
  guint x = 0;

  cugi_launch_config_set_grid (config, 3, 4, 5);
  cugi_launch_config_set_block (config, 8, 16, 2);
  cugi_launch_config_set_cluster (config, 2, 1, 1);
  cugi_launch_config_set_shared_memory (config, 65536);
  cugi_launch_config_set_cooperative (config, 42);

  assert_dims (cugi_launch_config_get_grid, config, 3, 4, 5);
  assert_dims (cugi_launch_config_get_block, config, 8, 16, 2);
  assert_dims (cugi_launch_config_get_cluster, config, 2, 1, 1);
  g_assert_cmpuint (cugi_launch_config_get_shared_memory (config), ==, 65536);
  /* Any true value reads back as TRUE. */
  g_assert_cmpint (cugi_launch_config_get_cooperative (config), ==, TRUE);

  /* Every output is optional. */
  cugi_launch_config_get_grid (config, &x, NULL, NULL);
  g_assert_cmpuint (x, ==, 3);
  cugi_launch_config_get_block (config, NULL, NULL, NULL);

  /* Bad dimensions are taken here and refused by the launch, which knows
   * the device's limits. */
  cugi_launch_config_set_grid (config, 0, 1, 1);
  assert_dims (cugi_launch_config_get_grid, config, 0, 1, 1);
}

static void
test_config_copy (void)
{
  g_autoptr(CugiLaunchConfig) config = cugi_launch_config_new (10, 128);
  g_autoptr(CugiLaunchConfig) copy = NULL;
  g_autoptr(CugiLaunchConfig) boxed = NULL;
  CugiLaunchConfig *shared;

  cugi_launch_config_set_shared_memory (config, 1024);
  copy = cugi_launch_config_copy (config);
  cugi_launch_config_set_grid (config, 20, 1, 1);
  cugi_launch_config_set_shared_memory (copy, 2048);

  /* A copy is independent of its original. */
  assert_dims (cugi_launch_config_get_grid, copy, 10, 1, 1);
  g_assert_cmpuint (cugi_launch_config_get_shared_memory (config), ==, 1024);
  g_assert_cmpuint (cugi_launch_config_get_shared_memory (copy), ==, 2048);

  /* A reference is the same configuration; the boxed type shares too. */
  shared = cugi_launch_config_ref (config);
  g_assert_true (shared == config);
  cugi_launch_config_unref (shared);
  boxed = g_boxed_copy (CUGI_TYPE_LAUNCH_CONFIG, config);
  g_assert_true (boxed == config);
  g_assert_true (G_TYPE_IS_BOXED (CUGI_TYPE_LAUNCH_CONFIG));
}

static void
test_config_2d (void)
{
  g_autoptr(CugiLaunchConfig) config = cugi_launch_config_new_2d (40, 30, 16, 8);

  assert_dims (cugi_launch_config_get_grid, config, 40, 30, 1);
  assert_dims (cugi_launch_config_get_block, config, 16, 8, 1);
  assert_dims (cugi_launch_config_get_cluster, config, 0, 0, 0);
  g_assert_cmpuint (cugi_launch_config_get_shared_memory (config), ==, 0);
  g_assert_null (cugi_launch_config_get_stream (config));
}

static void
test_config_for_size_2d (void)
{
  const struct {
    guint width, height, block_x, block_y;
    guint grid_x, grid_y;
  } cases[] = {
    { 1920, 1080, 16, 16, 120, 68 },  /* 1080 = 67.5 blocks: rounded up */
    { 1, 1, 32, 8, 1, 1 },
    { 33, 8, 32, 8, 2, 1 },
    { 640, 480, 1, 1, 640, 480 },
    /* Where (width + block - 1) / block would wrap around to 0. */
    { G_MAXUINT, G_MAXUINT, 16, 2, G_MAXUINT / 16 + 1, G_MAXUINT / 2 + 1 },
    { G_MAXUINT, 5, G_MAXUINT, 1024, 1, 1 },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(CugiLaunchConfig) config =
        cugi_launch_config_new_for_size_2d (cases[i].width, cases[i].height,
                                            cases[i].block_x, cases[i].block_y, &error);

      g_assert_no_error (error);
      assert_dims (cugi_launch_config_get_grid, config, cases[i].grid_x, cases[i].grid_y, 1);
      assert_dims (cugi_launch_config_get_block, config, cases[i].block_x, cases[i].block_y, 1);
    }
}

static void
test_config_for_size_2d_refuses_empty (void)
{
  const guint bad[][4] = {
    { 640, 480, 0, 16 },
    { 640, 480, 16, 0 },
    { 0, 480, 16, 16 },
    { 640, 0, 16, 16 },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(CugiLaunchConfig) config =
        cugi_launch_config_new_for_size_2d (bad[i][0], bad[i][1], bad[i][2], bad[i][3], &error);

      g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT);
      g_assert_null (config);
      g_assert_nonnull (strstr (error->message, "at least 1"));
    }
}

static void
test_args_types_and_sizes (void)
{
  g_autoptr(CugiKernelArgs) args = cugi_kernel_args_new ();
  g_autoptr(GBytes) bytes = g_bytes_new ("\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c", 12);
  const struct { CugiArgType type; gsize size; } expected[] = {
    { CUGI_ARG_INT32, 4 },
    { CUGI_ARG_UINT32, 4 },
    { CUGI_ARG_INT64, 8 },
    { CUGI_ARG_UINT64, 8 },
    { CUGI_ARG_FLOAT, 4 },
    { CUGI_ARG_DOUBLE, 8 },
    { CUGI_ARG_BYTES, 12 },
    { CUGI_ARG_POINTER, 8 },
  };

  g_assert_cmpuint (cugi_kernel_args_get_n_args (args), ==, 0);
  cugi_kernel_args_add_int32 (args, -7);
  cugi_kernel_args_add_uint32 (args, 4000000000u);
  cugi_kernel_args_add_int64 (args, G_GINT64_CONSTANT (-5000000000));
  cugi_kernel_args_add_uint64 (args, G_GUINT64_CONSTANT (18000000000000000000));
  cugi_kernel_args_add_float (args, 2.5f);
  cugi_kernel_args_add_double (args, -0.125);
  cugi_kernel_args_add_bytes (args, bytes);
  cugi_kernel_args_add_pointer (args, G_GUINT64_CONSTANT (0x7f0000001000));

  g_assert_cmpuint (cugi_kernel_args_get_n_args (args), ==, G_N_ELEMENTS (expected));
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    {
      g_assert_cmpint (cugi_kernel_args_get_arg_type (args, i), ==, expected[i].type);
      g_assert_cmpuint (cugi_kernel_args_get_arg_size (args, i), ==, expected[i].size);
    }
  g_assert_cmpint (cugi_kernel_args_get_arg_type (args, 8), ==, CUGI_ARG_END);
  g_assert_cmpuint (cugi_kernel_args_get_arg_size (args, 8), ==, 0);

  /* What the driver reads: one pointer per argument, to its value. */
  g_assert_cmpint (*(gint32 *) args->params[0], ==, -7);
  g_assert_cmpuint (*(guint32 *) args->params[1], ==, 4000000000u);
  g_assert_cmpint (*(gint64 *) args->params[2], ==, G_GINT64_CONSTANT (-5000000000));
  g_assert_cmpuint (*(guint64 *) args->params[3], ==, G_GUINT64_CONSTANT (18000000000000000000));
  g_assert_cmpfloat (*(gfloat *) args->params[4], ==, 2.5f);
  g_assert_cmpfloat (*(gdouble *) args->params[5], ==, -0.125);
  g_assert_cmpmem (args->params[6], 12, g_bytes_get_data (bytes, NULL), 12);
  g_assert_cmpuint (*(CUdeviceptr *) args->params[7], ==, G_GUINT64_CONSTANT (0x7f0000001000));

  /* No buffers: nothing for a launch to keep alive. */
  g_assert_null (cugi_kernel_args_share_buffers (args));
}

/* Past the inline slots the values move to the heap: the pointers the
 * driver reads must follow them. */
static void
test_args_grow (void)
{
  g_autoptr(CugiKernelArgs) args = cugi_kernel_args_new ();
  const guint n = CUGI_KERNEL_ARGS_INLINE * 4 + 3;

  for (guint i = 0; i < n; i++)
    cugi_kernel_args_add_int64 (args, (gint64) i * 1000003);
  g_assert_cmpuint (cugi_kernel_args_get_n_args (args), ==, n);
  for (guint i = 0; i < n; i++)
    g_assert_cmpint (*(gint64 *) args->params[i], ==, (gint64) i * 1000003);
}

static void
test_args_clear_and_copy (void)
{
  g_autoptr(CugiKernelArgs) args = cugi_kernel_args_new ();
  g_autoptr(CugiKernelArgs) copy = NULL;
  g_autoptr(CugiKernelArgs) boxed = NULL;
  g_autoptr(GBytes) bytes = g_bytes_new_static ("abcd", 4);

  for (guint i = 0; i < CUGI_KERNEL_ARGS_INLINE + 2; i++)
    cugi_kernel_args_add_float (args, (gfloat) i);
  cugi_kernel_args_add_bytes (args, bytes);

  copy = cugi_kernel_args_copy (args);
  cugi_kernel_args_clear (args);
  g_assert_cmpuint (cugi_kernel_args_get_n_args (args), ==, 0);

  /* The copy has its own values, which the clear did not touch. */
  g_assert_cmpuint (cugi_kernel_args_get_n_args (copy), ==, CUGI_KERNEL_ARGS_INLINE + 3);
  for (guint i = 0; i < CUGI_KERNEL_ARGS_INLINE + 2; i++)
    {
      g_assert_cmpint (cugi_kernel_args_get_arg_type (copy, i), ==, CUGI_ARG_FLOAT);
      g_assert_cmpfloat (*(gfloat *) copy->params[i], ==, (gfloat) i);
    }
  g_assert_cmpmem (copy->params[CUGI_KERNEL_ARGS_INLINE + 2], 4, "abcd", 4);

  /* A cleared list is reused from the start. */
  cugi_kernel_args_add_uint32 (args, 9);
  g_assert_cmpuint (cugi_kernel_args_get_n_args (args), ==, 1);
  g_assert_cmpuint (*(guint32 *) args->params[0], ==, 9);

  boxed = g_boxed_copy (CUGI_TYPE_KERNEL_ARGS, args);
  g_assert_true (boxed == args);
}

static void
test_arg_type_names (void)
{
  g_assert_cmpstr (cugi_arg_type_to_string (CUGI_ARG_BUFFER), ==, "CugiBuffer");
  g_assert_cmpstr (cugi_arg_type_to_string (CUGI_ARG_FLOAT), ==, "float");
  g_assert_cmpstr (cugi_arg_type_to_string (CUGI_ARG_UINT64), ==, "uint64");
  /* The enum is registered for bindings. */
  g_assert_true (G_TYPE_IS_ENUM (CUGI_TYPE_ARG_TYPE));
  g_assert_true (G_TYPE_IS_ENUM (CUGI_TYPE_FUNCTION_ATTRIBUTE));
  g_assert_true (G_TYPE_IS_ENUM (CUGI_TYPE_OCCUPANCY_LIMIT));
  g_assert_true (G_TYPE_IS_ENUM (CUGI_TYPE_CAPTURE_MODE));
}

/* ---- kernel signatures: the checks and conversions of launches ----------- */

/* A stand-in buffer: the checks look at argument types, not at memory. */
static CugiBuffer *
fake_buffer (void)
{
  return g_object_new (CUGI_TYPE_BUFFER, NULL);
}

static void
assert_check_fails (const CugiKernelSignature *signature,
                    CugiKernelArgs            *args,
                    const char                *fragment)
{
  g_autoptr(GError) error = NULL;

  g_assert_false (cugi_kernel_signature_check (signature, args, &error));
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT);
  if (strstr (error->message, fragment) == NULL)
    g_error ("expected “%s” in: %s", fragment, error->message);
}

static void
assert_check_passes (const CugiKernelSignature *signature,
                     CugiKernelArgs            *args)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (cugi_kernel_signature_check (signature, args, &error));
  g_assert_no_error (error);
}

/* An extern "C" kernel: the driver's sizes are all there is to check. */
static void
test_signature_sizes_only (void)
{
  const gsize sizes[] = { 4, 8, 8, 4 };
  CugiKernelSignature *saxpy = cugi_kernel_signature_new ("saxpy", "saxpy", sizes, 4);
  g_autoptr(CugiBuffer) buffer = fake_buffer ();
  g_autoptr(CugiKernelArgs) args = cugi_kernel_args_new ();

  g_assert_cmpint (saxpy->n_params, ==, 4);
  g_assert_false (saxpy->have_types);

  cugi_kernel_args_add_float (args, 2.0f);
  cugi_kernel_args_add_buffer (args, buffer);
  cugi_kernel_args_add_buffer (args, buffer);
  assert_check_fails (saxpy, args, "takes 4 parameters, but 3 arguments were given");
  cugi_kernel_args_add_uint32 (args, 10);
  assert_check_passes (saxpy, args);

  cugi_kernel_args_clear (args);
  cugi_kernel_args_add_double (args, 2.0);
  cugi_kernel_args_add_buffer (args, buffer);
  cugi_kernel_args_add_buffer (args, buffer);
  cugi_kernel_args_add_uint32 (args, 10);
  assert_check_fails (saxpy, args, "parameter 0 (4 bytes): takes 4 bytes, but the double argument has 8");

  /* Without types, an int32 for the float cannot be told apart. */
  cugi_kernel_args_clear (args);
  cugi_kernel_args_add_int32 (args, 2);
  cugi_kernel_args_add_pointer (args, 4096);
  cugi_kernel_args_add_int64 (args, 8192);
  cugi_kernel_args_add_uint32 (args, 10);
  assert_check_passes (saxpy, args);

  cugi_kernel_signature_free (saxpy);
}

/* A C++ kernel: the types from its mangled name are checked too. */
static void
test_signature_types (void)
{
  const gsize sizes[] = { 8, 4, 4 };
  CugiKernelSignature *scale = cugi_kernel_signature_new ("scale<float>", "_Z5scaleIfEvPT_S0_i", sizes, 3);
  g_autoptr(CugiBuffer) buffer = fake_buffer ();
  g_autoptr(CugiKernelArgs) args = cugi_kernel_args_new ();
  g_autoptr(GBytes) four = g_bytes_new ("\0\0\0\0", 4);
  g_autoptr(GBytes) eight = g_bytes_new ("\0\0\0\0\0\0\0\0", 8);

  g_assert_cmpint (scale->n_params, ==, 3);
  g_assert_true (scale->have_types);
  g_assert_cmpstr (scale->params[0].spelling, ==, "float *");

  cugi_kernel_args_add_buffer (args, buffer);
  cugi_kernel_args_add_float (args, 2.0f);
  cugi_kernel_args_add_int32 (args, 10);
  assert_check_passes (scale, args);

  /* A float where the int is expected. */
  cugi_kernel_args_clear (args);
  cugi_kernel_args_add_buffer (args, buffer);
  cugi_kernel_args_add_float (args, 2.0f);
  cugi_kernel_args_add_float (args, 10.0f);
  assert_check_fails (scale, args, "Kernel “scale<float>”, parameter 2 (int): cannot take a float argument");

  /* A scalar where the pointer is expected, although both take 8 bytes. */
  cugi_kernel_args_clear (args);
  cugi_kernel_args_add_int64 (args, 4096);
  cugi_kernel_args_add_float (args, 2.0f);
  cugi_kernel_args_add_int32 (args, 10);
  assert_check_fails (scale, args, "parameter 0 (float *): cannot take a int64 argument");

  /* A buffer where the float is expected. */
  cugi_kernel_args_clear (args);
  cugi_kernel_args_add_buffer (args, buffer);
  cugi_kernel_args_add_buffer (args, buffer);
  cugi_kernel_args_add_int32 (args, 10);
  assert_check_fails (scale, args, "parameter 1 (float): cannot take a CugiBuffer argument");

  /* A raw address for the pointer, an unsigned int for the int, and bytes
   * of the right size go; bytes of the wrong size do not. */
  cugi_kernel_args_clear (args);
  cugi_kernel_args_add_pointer (args, 4096);
  cugi_kernel_args_add_bytes (args, four);
  cugi_kernel_args_add_uint32 (args, 10);
  assert_check_passes (scale, args);
  cugi_kernel_args_clear (args);
  cugi_kernel_args_add_buffer (args, buffer);
  cugi_kernel_args_add_bytes (args, eight);
  cugi_kernel_args_add_int32 (args, 10);
  assert_check_fails (scale, args, "parameter 1 (float): takes 4 bytes, but the bytes argument has 8");

  cugi_kernel_signature_free (scale);
}

/* Where the driver and the name disagree the driver wins, and what nobody
 * knows is not checked. */
static void
test_signature_sources (void)
{
  const gsize four_sizes[] = { 8, 4, 4, 4 };
  const gsize wrong_size[] = { 8, 8, 4 };
  CugiKernelSignature *signature;
  g_autoptr(CugiKernelArgs) args = cugi_kernel_args_new ();

  signature = cugi_kernel_signature_new ("scale<float>", "_Z5scaleIfEvPT_S0_i", four_sizes, 4);
  g_assert_cmpint (signature->n_params, ==, 4);
  g_assert_false (signature->have_types);
  cugi_kernel_signature_free (signature);

  signature = cugi_kernel_signature_new ("scale<float>", "_Z5scaleIfEvPT_S0_i", wrong_size, 3);
  g_assert_cmpint (signature->n_params, ==, 3);
  g_assert_false (signature->have_types);
  g_assert_cmpuint (signature->params[1].size, ==, 8);
  cugi_kernel_signature_free (signature);

  /* A driver without cuFuncGetParamInfo: the name gives count and sizes. */
  signature = cugi_kernel_signature_new ("f", "_Z1fPfN2ns6ParamsE", NULL, -1);
  g_assert_cmpint (signature->n_params, ==, 2);
  g_assert_true (signature->have_types);
  g_assert_cmpuint (signature->params[0].size, ==, 8);
  g_assert_cmpuint (signature->params[1].size, ==, 0);
  cugi_kernel_args_add_pointer (args, 4096);
  cugi_kernel_args_add_double (args, 1.0);
  assert_check_passes (signature, args);
  cugi_kernel_signature_free (signature);

  /* The image's count without sizes: the count is checked, and a C++
   * kernel's types with it where the counts agree. */
  signature = cugi_kernel_signature_new ("f", "_Z1fPfN2ns6ParamsE", NULL, 2);
  g_assert_true (signature->have_types);
  g_assert_cmpuint (signature->params[0].size, ==, 8);
  assert_check_passes (signature, args);
  cugi_kernel_signature_free (signature);
  signature = cugi_kernel_signature_new ("f", "_Z1fPfN2ns6ParamsE", NULL, 3);
  g_assert_false (signature->have_types);
  g_assert_cmpuint (signature->params[0].size, ==, 0);
  assert_check_fails (signature, args, "takes 3 parameters, but 2 arguments");
  cugi_kernel_signature_free (signature);

  /* Nothing known: anything goes. */
  signature = cugi_kernel_signature_new ("saxpy", "saxpy", NULL, -1);
  g_assert_cmpint (signature->n_params, ==, -1);
  assert_check_passes (signature, args);
  cugi_kernel_signature_free (signature);

  /* A kernel without parameters. */
  signature = cugi_kernel_signature_new ("tick", "tick", NULL, 0);
  g_assert_cmpint (signature->n_params, ==, 0);
  assert_check_fails (signature, args, "takes 0 parameters, but 2 arguments");
  cugi_kernel_signature_free (signature);
}

/* Adds @value as argument @index; the argument's type and its bytes. */
static void
assert_converts (const CugiKernelSignature *signature,
                 guint                      index,
                 const GValue              *value,
                 CugiArgType                type,
                 gconstpointer              bytes,
                 gsize                      size)
{
  g_autoptr(CugiKernelArgs) args = cugi_kernel_args_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *contents = g_strdup_value_contents (value);

  for (guint i = 0; i < index; i++)
    cugi_kernel_args_add_int32 (args, 0);
  if (!cugi_kernel_signature_add_value (signature, args, index, value, &error))
    g_error ("%s: %s", contents, error->message);
  g_assert_cmpint (cugi_kernel_args_get_arg_type (args, index), ==, type);
  g_assert_cmpuint (cugi_kernel_args_get_arg_size (args, index), ==, size);
  g_assert_cmpmem (args->params[index], size, bytes, size);
}

static void
assert_refused (const CugiKernelSignature *signature,
                guint                      index,
                const GValue              *value,
                const char                *fragment)
{
  g_autoptr(CugiKernelArgs) args = cugi_kernel_args_new ();
  g_autoptr(GError) error = NULL;

  g_assert_false (cugi_kernel_signature_add_value (signature, args, index, value, &error));
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT);
  if (strstr (error->message, fragment) == NULL)
    g_error ("expected “%s” in: %s", fragment, error->message);
}

static void
test_signature_values (void)
{
  const gsize scale_sizes[] = { 8, 4, 4 };
  const gsize small_sizes[] = { 1, 2, 1 };
  const gsize c_sizes[] = { 4, 8, 4 };
  CugiKernelSignature *scale = cugi_kernel_signature_new ("scale<float>", "_Z5scaleIfEvPT_S0_i", scale_sizes, 3);
  CugiKernelSignature *small = cugi_kernel_signature_new ("f", "_Z1fbsh", small_sizes, 3);
  CugiKernelSignature *c_kernel = cugi_kernel_signature_new ("c", "c", c_sizes, 3);
  CugiKernelSignature *unknown = cugi_kernel_signature_new ("u", "u", NULL, -1);
  g_autoptr(CugiBuffer) buffer = fake_buffer ();
  g_autoptr(GBytes) bytes = g_bytes_new ("abc", 3);
  g_autoptr(GObject) not_a_buffer = g_object_new (G_TYPE_OBJECT, NULL);
  g_autoptr(CugiKernelArgs) args = cugi_kernel_args_new ();
  g_autoptr(GError) error = NULL;
  GValue value = G_VALUE_INIT;
  const float half = 0.5f, three = 3.0f;
  const gint32 seven = 7, five = 5;
  const gint64 five_wide = 5;
  const double one = 1.0;
  const gint16 minus_three = -3;
  const guint8 true_byte = 1;

  /* Numbers take the parameter's type. */
  g_value_init (&value, G_TYPE_DOUBLE);
  g_value_set_double (&value, 0.5);
  assert_converts (scale, 1, &value, CUGI_ARG_FLOAT, &half, 4);
  g_value_unset (&value);
  g_value_init (&value, G_TYPE_INT64);
  g_value_set_int64 (&value, 7);
  assert_converts (scale, 2, &value, CUGI_ARG_INT32, &seven, 4);
  g_value_set_int64 (&value, G_GINT64_CONSTANT (1) << 40);
  assert_refused (scale, 2, &value, "parameter 2 (int): 1099511627776 is out of range");
  g_value_unset (&value);
  g_value_init (&value, G_TYPE_UINT);
  g_value_set_uint (&value, 5);
  assert_converts (scale, 2, &value, CUGI_ARG_INT32, &five, 4);
  g_value_unset (&value);
  g_value_init (&value, G_TYPE_INT);
  g_value_set_int (&value, 3);
  assert_converts (scale, 1, &value, CUGI_ARG_FLOAT, &three, 4);
  g_value_unset (&value);

  /* A float where the int is expected goes in as it is: the check says. */
  g_value_init (&value, G_TYPE_DOUBLE);
  g_value_set_double (&value, 1.0);
  assert_converts (scale, 2, &value, CUGI_ARG_DOUBLE, &one, 8);
  cugi_kernel_args_add_buffer (args, buffer);
  cugi_kernel_args_add_float (args, 1.0f);
  g_assert_true (cugi_kernel_signature_add_value (scale, args, 2, &value, &error));
  assert_check_fails (scale, args, "parameter 2 (int)");
  g_value_unset (&value);

  /* Objects: buffers only. */
  g_value_init (&value, G_TYPE_OBJECT);
  g_value_set_object (&value, buffer);
  g_clear_pointer (&args, cugi_kernel_args_unref);
  args = cugi_kernel_args_new ();
  g_assert_true (cugi_kernel_signature_add_value (scale, args, 0, &value, &error));
  g_assert_cmpint (cugi_kernel_args_get_arg_type (args, 0), ==, CUGI_ARG_BUFFER);
  g_value_set_object (&value, not_a_buffer);
  assert_refused (scale, 0, &value, "a GObject cannot be passed to a kernel");
  g_value_set_object (&value, NULL);
  assert_refused (scale, 0, &value, "a NULL cannot be passed");
  g_value_unset (&value);
  g_value_init (&value, G_TYPE_BYTES);
  g_value_set_boxed (&value, bytes);
  assert_converts (scale, 1, &value, CUGI_ARG_BYTES, "abc", 3);
  g_value_unset (&value);
  g_value_init (&value, G_TYPE_STRING);
  g_value_set_static_string (&value, "5");
  assert_refused (scale, 2, &value, "a gchararray cannot be passed");
  g_value_unset (&value);

  /* bool, short and unsigned char go as bytes of their size. */
  g_value_init (&value, G_TYPE_BOOLEAN);
  g_value_set_boolean (&value, TRUE);
  assert_converts (small, 0, &value, CUGI_ARG_BYTES, &true_byte, 1);
  g_value_unset (&value);
  g_value_init (&value, G_TYPE_INT);
  g_value_set_int (&value, -3);
  assert_converts (small, 1, &value, CUGI_ARG_BYTES, &minus_three, 2);
  g_value_set_int (&value, 300);
  assert_refused (small, 2, &value, "parameter 2 (unsigned char): 300 is out of range");
  g_value_set_int (&value, -1);
  assert_refused (small, 2, &value, "out of range");
  g_value_unset (&value);

  /* An extern "C" kernel: by size. */
  g_value_init (&value, G_TYPE_INT64);
  g_value_set_int64 (&value, 5);
  assert_converts (c_kernel, 0, &value, CUGI_ARG_INT32, &five, 4);
  assert_converts (c_kernel, 1, &value, CUGI_ARG_INT64, &five_wide, 8);
  g_value_unset (&value);
  g_value_init (&value, G_TYPE_DOUBLE);
  g_value_set_double (&value, 3.0);
  assert_converts (c_kernel, 2, &value, CUGI_ARG_FLOAT, &three, 4);
  g_value_unset (&value);

  /* Nothing known: by the value's own type. */
  g_value_init (&value, G_TYPE_INT);
  g_value_set_int (&value, 5);
  assert_converts (unknown, 0, &value, CUGI_ARG_INT32, &five, 4);
  g_value_unset (&value);
  g_value_init (&value, G_TYPE_INT64);
  g_value_set_int64 (&value, 5);
  assert_converts (unknown, 0, &value, CUGI_ARG_INT64, &five_wide, 8);
  g_value_unset (&value);
  g_value_init (&value, G_TYPE_FLOAT);
  g_value_set_float (&value, 3.0f);
  assert_converts (unknown, 0, &value, CUGI_ARG_FLOAT, &three, 4);
  g_value_unset (&value);
  g_value_init (&value, G_TYPE_DOUBLE);
  g_value_set_double (&value, 1.0);
  assert_converts (unknown, 0, &value, CUGI_ARG_DOUBLE, &one, 8);
  g_value_unset (&value);

  cugi_kernel_signature_free (scale);
  cugi_kernel_signature_free (small);
  cugi_kernel_signature_free (c_kernel);
  cugi_kernel_signature_free (unknown);
}

int
main (int   argc,
      char *argv[])
{
  cugi_test_init (&argc, &argv);

  g_test_add_func ("/launch-config/defaults", test_config_defaults);
  g_test_add_func ("/launch-config/setters", test_config_setters);
  g_test_add_func ("/launch-config/copy", test_config_copy);
  g_test_add_func ("/launch-config/2d", test_config_2d);
  g_test_add_func ("/launch-config/for-size-2d", test_config_for_size_2d);
  g_test_add_func ("/launch-config/for-size-2d-refuses-empty", test_config_for_size_2d_refuses_empty);
  g_test_add_func ("/kernel-args/types-and-sizes", test_args_types_and_sizes);
  g_test_add_func ("/kernel-args/grow", test_args_grow);
  g_test_add_func ("/kernel-args/clear-and-copy", test_args_clear_and_copy);
  g_test_add_func ("/kernel-args/type-names", test_arg_type_names);
  g_test_add_func ("/kernel-signature/sizes-only", test_signature_sizes_only);
  g_test_add_func ("/kernel-signature/types", test_signature_types);
  g_test_add_func ("/kernel-signature/sources", test_signature_sources);
  g_test_add_func ("/kernel-signature/values", test_signature_values);

  return g_test_run ();
}
