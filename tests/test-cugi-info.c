/* test-cugi-info.c: cugi-info without a driver, without a GPU */
#include "config.h"

#include "cugi-test-utils.h"

#define NO_LIBCUDA "/nonexistent/libcuda.so.1"

/* Runs cugi-info with @arguments and CUGI_LIBCUDA set to @libcuda: it
 * fails, saying so on stderr as the tool's own message. */
static void
run_failing (const char         *libcuda,
             const char * const *arguments,
             CugiTestRun        *run)
{
  cugi_test_run_cugi_info (libcuda, arguments, run);
  cugi_test_run_assert_exit (run, 1);
  g_assert_true (g_str_has_prefix (run->err, "cugi-info: "));
}

static void
test_no_driver (void)
{
  const char *arguments[] = { NULL };
  g_auto (CugiTestRun) run = { 0 };

  run_failing (NO_LIBCUDA, arguments, &run);
  /* The reason, and how to point cugi at a driver. */
  g_assert_nonnull (strstr (run.err, "No NVIDIA driver found"));
  g_assert_nonnull (strstr (run.err, "CUGI_LIBCUDA"));
  /* NVRTC needs no GPU: its line comes first, found or not. */
  g_assert_true (g_str_has_prefix (run.out, "cugi "));
  g_assert_nonnull (strstr (run.out, "\nNVRTC: "));
  g_assert_null (strstr (run.out, "Device"));
}

/* --json without a driver still prints an object, with the reason escaped:
 * the path carries a quote and a backslash into the message. */
static void
test_no_driver_json (void)
{
  const char *arguments[] = { "--json", NULL };
  g_auto (CugiTestRun) run = { 0 };

  run_failing ("/nonexistent/\"quoted\"\\dir/libcuda.so.1", arguments, &run);
  g_assert_true (g_str_has_prefix (run.out, "{\n"));
  g_assert_true (g_str_has_suffix (run.out, "}\n"));
  g_assert_nonnull (strstr (run.out, "\n  \"cugi_version\": \""));
  g_assert_nonnull (strstr (run.out, "\n  \"driver_version\": null,"));
  g_assert_nonnull (strstr (run.out, "\n  \"error\": \"No NVIDIA driver found"));
  g_assert_nonnull (strstr (run.out, "/nonexistent/\\\"quoted\\\"\\\\dir/libcuda.so.1"));
  g_assert_null (strstr (run.out, "\"devices\""));
}

/* --version answers without a driver, and says why there is none. */
static void
test_version_no_driver (void)
{
  const char *arguments[] = { "--version", NULL };
  g_auto (CugiTestRun) run = { 0 };
  g_autofree char *first_line = g_strdup_printf ("cugi %s\n", CUGI_VERSION);

  cugi_test_run_cugi_info (NO_LIBCUDA, arguments, &run);
  cugi_test_run_assert_exit (&run, 0);
  g_assert_true (g_str_has_prefix (run.out, first_line));
  g_assert_nonnull (strstr (run.out, "\nNVRTC: "));
  g_assert_nonnull (strstr (run.out, "\nCUDA driver: not available: No NVIDIA driver found"));
  g_assert_null (strstr (run.out, "Device"));
  g_assert_cmpstr (run.err, ==, "");
}

static void
test_bad_option (void)
{
  const char *arguments[] = { "--no-such-option", NULL };
  g_auto (CugiTestRun) run = { 0 };

  run_failing (NO_LIBCUDA, arguments, &run);
  g_assert_nonnull (strstr (run.err, "--no-such-option"));
  g_assert_cmpstr (run.out, ==, "");
}

int
main (int argc, char **argv)
{
  cugi_test_init (&argc, &argv);
  g_test_add_func ("/cugi-info/no-driver", test_no_driver);
  g_test_add_func ("/cugi-info/no-driver-json", test_no_driver_json);
  g_test_add_func ("/cugi-info/version-no-driver", test_version_no_driver);
  g_test_add_func ("/cugi-info/bad-option", test_bad_option);
  return g_test_run ();
}
