/* test-device-alias.c: parsing device aliases, and the device API's answers
 * without a driver, without a GPU */
#include "config.h"

#include "cugi-context-private.h"
#include "cugi-private.h"
#include "cugi-test-utils.h"

static void
test_valid (void)
{
  const struct { const char *alias; int ordinal; } valid[] = {
    { "cuda", -1 },
    { "cuda:0", 0 },
    { "cuda:1", 1 },
    { "cuda:17", 17 },
    { "cuda:007", 7 },
    { "cuda:2147483647", G_MAXINT },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (valid); i++)
    {
      g_autoptr(GError) error = NULL;
      int ordinal = -42;

      g_test_message ("alias \"%s\"", valid[i].alias);
      g_assert_true (cugi_device_parse_alias (valid[i].alias, &ordinal, &error));
      g_assert_no_error (error);
      g_assert_cmpint (ordinal, ==, valid[i].ordinal);
    }
}

static void
test_invalid (void)
{
  const char *invalid[] = {
    "", "cuda:", "cuda:-1", "cuda:1x", "gpu:0", "cuda:99999999999", "cuda:2147483648",
    "CUDA:0", "cuda0", "cuda:+1", "cuda: 1", "cuda:1 ", " cuda:1", "cuda:0x1", "cpu",
    "cuda:1:2", "cudax", "cuda:\v1", "cuda:\t1", "cuda:\n1",
  };

  for (gsize i = 0; i < G_N_ELEMENTS (invalid); i++)
    {
      g_autoptr(GError) error = NULL;
      int ordinal = -42;

      g_test_message ("alias \"%s\"", invalid[i]);
      g_assert_false (cugi_device_parse_alias (invalid[i], &ordinal, &error));
      g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT);
      /* The message quotes the alias and says what is expected. */
      g_assert_nonnull (strstr (error->message, invalid[i]));
      g_assert_nonnull (strstr (error->message, "cuda:N"));
      g_assert_cmpint (ordinal, ==, -42);
    }

  /* Not UTF-8: refused, and quoted as valid UTF-8. */
  {
    g_autoptr(GError) error = NULL;
    int ordinal = -42;

    g_assert_false (cugi_device_parse_alias ("cuda:\xff" "1", &ordinal, &error));
    g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT);
    g_assert_true (g_utf8_validate (error->message, -1, NULL));
    g_assert_cmpint (ordinal, ==, -42);
  }
}

static void
test_null (void)
{
  g_autoptr(GError) error = NULL;
  int ordinal = -42;

  g_assert_false (cugi_device_parse_alias (NULL, &ordinal, &error));
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT);
  g_assert_cmpint (ordinal, ==, -42);
}

/* Without a driver every entry point answers NOT_AVAILABLE; none crashes or
 * warns. In a subprocess: the loader's outcome is fixed per process. */
static void
test_no_driver (void)
{
  if (g_test_subprocess ())
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(CugiDevice) device = NULL;
      g_autoptr(CugiContext) context = NULL;
      GList *list;

      g_setenv ("CUGI_LIBCUDA", "/nonexistent/libcuda.so.1", TRUE);

      g_assert_cmpint (cugi_device_get_count (&error), ==, 0);
      g_assert_error (error, CUGI_ERROR, CUGI_ERROR_NOT_AVAILABLE);
      g_clear_error (&error);

      device = cugi_device_get (0, &error);
      g_assert_null (device);
      g_assert_error (error, CUGI_ERROR, CUGI_ERROR_NOT_AVAILABLE);
      g_clear_error (&error);

      /* Syntax comes first: a bad alias is a bad alias, driver or not. */
      g_assert_null (cugi_device_get_by_alias ("gpu:0", &error));
      g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT);
      g_clear_error (&error);
      g_assert_null (cugi_device_get_by_alias ("cuda:0", &error));
      g_assert_error (error, CUGI_ERROR, CUGI_ERROR_NOT_AVAILABLE);
      g_clear_error (&error);

      list = cugi_device_list (&error);
      g_assert_null (list);
      g_assert_error (error, CUGI_ERROR, CUGI_ERROR_NOT_AVAILABLE);
      g_clear_error (&error);

      g_assert_null (cugi_device_get_default (&error));
      g_assert_error (error, CUGI_ERROR, CUGI_ERROR_NOT_AVAILABLE);
      g_clear_error (&error);

      context = cugi_context_get_default (&error);
      g_assert_null (context);
      g_assert_error (error, CUGI_ERROR, CUGI_ERROR_NOT_AVAILABLE);
      g_clear_error (&error);

      g_assert_null (cugi_context_new (NULL, CUGI_CONTEXT_FLAGS_NONE, &error));
      g_assert_error (error, CUGI_ERROR, CUGI_ERROR_NOT_AVAILABLE);
      g_clear_error (&error);

      g_assert_null (cugi_context_get_current (&error));
      g_assert_error (error, CUGI_ERROR, CUGI_ERROR_NOT_AVAILABLE);
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
}

/* Objects a binding makes with g_object_new() stand for no GPU: their
 * methods fail cleanly instead of using device 0 or a NULL context. */
static void
test_unbound_objects (void)
{
  g_autoptr(CugiDevice) device = g_object_new (CUGI_TYPE_DEVICE, NULL);
  g_autoptr(CugiContext) context = g_object_new (CUGI_TYPE_CONTEXT, NULL);
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (cugi_device_get_ordinal (device), ==, -1);
  g_assert_null (cugi_device_get_name (device));
  g_assert_null (cugi_device_get_primary_context (device, &error));
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE);
  g_clear_error (&error);
  g_assert_cmpint (cugi_device_get_attribute (device, CUGI_DEVICE_ATTRIBUTE_WARP_SIZE, &error), ==, 0);
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE);
  g_clear_error (&error);

  g_assert_null (cugi_context_get_device (context));
  g_assert_false (cugi_context_synchronize (context, &error));
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE);
  g_clear_error (&error);
  g_assert_cmpuint (cugi_context_get_limit (context, CUGI_LIMIT_STACK_SIZE, &error), ==, 0);
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE);
  g_clear_error (&error);
  g_assert_false (cugi_context_push (context, &error));
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE);
  g_clear_error (&error);
  g_assert_false (cugi_context_pop (context, &error));
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE);
  g_clear_error (&error);
  /* It is not a primary context, so it cannot be reset either. */
  g_assert_false (cugi_context_reset (context, &error));
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_NOT_SUPPORTED);
}

/* Getters return their documented error value along with the error. */
static void
test_unbound_getters (void)
{
  g_autoptr(CugiDevice) device = g_object_new (CUGI_TYPE_DEVICE, NULL);
  g_autoptr(CugiContext) context = g_object_new (CUGI_TYPE_CONTEXT, NULL);
  g_autoptr(CugiKernel) kernel = g_object_new (CUGI_TYPE_KERNEL, NULL);
  g_autoptr(GError) error = NULL;
  guint64 total_bytes = 1;
  gint second = 1;

  g_assert_cmpuint (cugi_device_get_memory_info (device, &total_bytes, &error), ==, 0);
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_STATE, NULL);
  g_assert_cmpuint (total_bytes, ==, 0);

  total_bytes = 1;
  g_assert_cmpuint (cugi_context_get_memory_info (context, &total_bytes, &error), ==, 0);
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_STATE, NULL);
  g_assert_cmpuint (total_bytes, ==, 0);
  g_assert_cmpint (cugi_context_get_stream_priority_range (context, &second, &error), ==, 0);
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_STATE, NULL);
  g_assert_cmpint (second, ==, 0);
  g_assert_cmpint (cugi_context_get_cache_config (context, &error), ==, CUGI_CACHE_CONFIG_PREFER_NONE);
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_STATE, NULL);

  g_assert_cmpint (cugi_kernel_get_attribute (kernel, CUGI_FUNCTION_ATTRIBUTE_NUM_REGS, &error), ==, -1);
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_STATE, NULL);
  g_assert_cmpint (cugi_kernel_get_attribute (kernel, (CugiFunctionAttribute) 999, &error), ==, -1);
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, NULL);
  g_assert_cmpint (cugi_kernel_suggest_block_size (kernel, 0, &second, &error), ==, -1);
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_STATE, NULL);
  g_assert_cmpint (second, ==, -1);
}

static void
test_enum_types (void)
{
  g_autoptr(GFlagsClass) flags = g_type_class_ref (CUGI_TYPE_CONTEXT_FLAGS);
  g_autoptr(GEnumClass) limits = g_type_class_ref (CUGI_TYPE_LIMIT);
  g_autoptr(GEnumClass) cache = g_type_class_ref (CUGI_TYPE_CACHE_CONFIG);

  g_assert_cmpstr (g_flags_get_first_value (flags, CUGI_CONTEXT_FLAGS_SCHED_BLOCKING_SYNC)->value_nick,
                   ==, "sched-blocking-sync");
  g_assert_cmpuint (flags->mask, ==, 0x1f);
  g_assert_cmpint (limits->n_values, ==, 7);
  g_assert_cmpstr (g_enum_get_value (cache, CUGI_CACHE_CONFIG_PREFER_L1)->value_nick, ==, "prefer-l1");
}

int
main (int argc, char **argv)
{
  cugi_test_init (&argc, &argv);
  g_test_add_func ("/device-alias/valid", test_valid);
  g_test_add_func ("/device-alias/invalid", test_invalid);
  g_test_add_func ("/device-alias/null", test_null);
  g_test_add_func ("/device-alias/no-driver", test_no_driver);
  g_test_add_func ("/device-alias/unbound-objects", test_unbound_objects);
  g_test_add_func ("/device-alias/unbound-getters", test_unbound_getters);
  g_test_add_func ("/device-alias/enum-types", test_enum_types);
  return g_test_run ();
}
