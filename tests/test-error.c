/* test-error.c: the CUresult -> CugiError mapping and messages, without a GPU */
#include "config.h"

#include "cugi-private.h"
#include "cugi-result-names.h"
#include "cugi-test-utils.h"

typedef struct
{
  CUresult    result;
  const char *name;
} ResultName;

#define RESULT_NAME(result) { result, #result },
static const ResultName all_results[] = { CUGI_CUDA_RESULTS (RESULT_NAME) };
#undef RESULT_NAME

/* Every CUresult that cuda.h defines is in cugi's table, under its own name. */
static void
test_every_result_is_mapped (void)
{
  g_assert_cmpuint (G_N_ELEMENTS (all_results), >, 90);
  for (gsize i = 0; i < G_N_ELEMENTS (all_results); i++)
    {
      CugiError code = -1;
      const char *name = NULL;

      if (!cugi_error_lookup_result (all_results[i].result, &code, &name))
        g_error ("%s (%d) has no CugiError mapping", all_results[i].name, (int) all_results[i].result);
      g_assert_nonnull (name);
      g_assert_true (g_str_has_prefix (name, "CUDA_"));
      g_assert_cmpint (code, >=, CUGI_ERROR_FAILED);
      /* The codes up to INVALID_IMAGE; TIMED_OUT is cugi's own. */
      g_assert_cmpint (code, <=, CUGI_ERROR_INVALID_IMAGE);
    }
}

static void
test_codes (void)
{
  const struct { CUresult result; CugiError code; } expected[] = {
    { CUDA_ERROR_OUT_OF_MEMORY, CUGI_ERROR_OUT_OF_MEMORY },
    { CUDA_ERROR_INVALID_VALUE, CUGI_ERROR_INVALID_ARGUMENT },
    { CUDA_ERROR_ILLEGAL_ADDRESS, CUGI_ERROR_LAUNCH_FAILED },
    { CUDA_ERROR_LAUNCH_FAILED, CUGI_ERROR_LAUNCH_FAILED },
    { CUDA_ERROR_NO_DEVICE, CUGI_ERROR_NOT_AVAILABLE },
    { CUDA_ERROR_STUB_LIBRARY, CUGI_ERROR_NOT_AVAILABLE },
    { CUDA_ERROR_INVALID_PTX, CUGI_ERROR_INVALID_IMAGE },
    { CUDA_ERROR_NOT_FOUND, CUGI_ERROR_NOT_FOUND },
    { CUDA_ERROR_PEER_ACCESS_NOT_ENABLED, CUGI_ERROR_PEER_ACCESS },
    { CUDA_ERROR_CONTEXT_IS_DESTROYED, CUGI_ERROR_INVALID_CONTEXT },
    { CUDA_ERROR_NOT_SUPPORTED, CUGI_ERROR_NOT_SUPPORTED },
    { CUDA_ERROR_UNKNOWN, CUGI_ERROR_DRIVER },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (expected); i++)
    g_assert_cmpint (cugi_error_code_from_result (expected[i].result), ==, expected[i].code);
  /* A value a future driver may add still gives an error, not a crash. */
  g_assert_cmpint (cugi_error_code_from_result ((CUresult) 123456), ==, CUGI_ERROR_DRIVER);
  g_assert_false (cugi_error_lookup_result ((CUresult) 123456, NULL, NULL));
}

static void
test_message_names_operation_and_error (void)
{
  g_autoptr(GError) error = NULL;

  g_assert_false (cugi_check_result (CUDA_ERROR_OUT_OF_MEMORY, "cuMemAlloc", &error));
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_OUT_OF_MEMORY);
  g_assert_nonnull (strstr (error->message, "cuMemAlloc"));
  g_assert_nonnull (strstr (error->message, "CUDA_ERROR_OUT_OF_MEMORY"));
  g_clear_error (&error);

  g_assert_true (cugi_check_result (CUDA_SUCCESS, "cuMemAlloc", &error));
  g_assert_no_error (error);

  /* Unknown values are named by number. */
  g_assert_false (cugi_check_result ((CUresult) 123456, "cuCtxSynchronize", &error));
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_DRIVER);
  g_assert_nonnull (strstr (error->message, "123456"));
  /* Loaded or not, the driver has no words for it: the message must not
   * blame a driver that may well be loaded. */
  g_assert_null (strstr (error->message, "not loaded"));
  g_clear_error (&error);

  /* Without the driver's description (none loaded here, or a code it does
   * not describe), a known code is named, with its number. */
  g_assert_false (cugi_check_result (CUDA_ERROR_ILLEGAL_ADDRESS, "cuCtxSynchronize", &error));
  g_assert_nonnull (strstr (error->message, "CUDA_ERROR_ILLEGAL_ADDRESS"));
  g_assert_null (strstr (error->message, "not loaded"));
  if (!cugi_is_available ())
    g_assert_nonnull (strstr (error->message, "CUDA error 700"));
}

static void
test_quark (void)
{
  g_assert_cmpstr (g_quark_to_string (CUGI_ERROR), ==, "cugi-error-quark");
  g_assert_true (G_TYPE_IS_ENUM (CUGI_TYPE_ERROR));
  g_assert_true (G_TYPE_IS_ENUM (CUGI_TYPE_DEVICE_ATTRIBUTE));
}

/* The public enum has cuda.h's values, name for name. */
static void
test_device_attribute_values (void)
{
  g_assert_cmpint (CUGI_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, ==, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  g_assert_cmpint (CUGI_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, ==, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  g_assert_cmpint (CUGI_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, ==, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  g_assert_cmpint (CUGI_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, ==, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  g_assert_cmpint (CUGI_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE, ==, CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE);
}

int
main (int argc, char **argv)
{
  cugi_test_init (&argc, &argv);
  g_test_add_func ("/error/every-result-is-mapped", test_every_result_is_mapped);
  g_test_add_func ("/error/codes", test_codes);
  g_test_add_func ("/error/message", test_message_names_operation_and_error);
  g_test_add_func ("/error/quark", test_quark);
  g_test_add_func ("/error/device-attribute-values", test_device_attribute_values);
  return g_test_run ();
}
