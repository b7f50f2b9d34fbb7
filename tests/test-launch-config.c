/* test-launch-config.c: launch configurations and argument lists, without a
 * GPU */
#include "config.h"

#include "cugi-private.h"
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

int
main (int   argc,
      char *argv[])
{
  cugi_test_init (&argc, &argv);

  g_test_add_func ("/launch-config/defaults", test_config_defaults);
  g_test_add_func ("/launch-config/setters", test_config_setters);
  g_test_add_func ("/launch-config/copy", test_config_copy);
  g_test_add_func ("/kernel-args/types-and-sizes", test_args_types_and_sizes);
  g_test_add_func ("/kernel-args/grow", test_args_grow);
  g_test_add_func ("/kernel-args/clear-and-copy", test_args_clear_and_copy);
  g_test_add_func ("/kernel-args/type-names", test_arg_type_names);

  return g_test_run ();
}
