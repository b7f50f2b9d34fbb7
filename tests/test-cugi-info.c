/* test-cugi-info.c: cugi-info without a driver, without a GPU */
#include "config.h"

#include "cugi-test-utils.h"

typedef struct
{
  char *out;
  char *err;
  int   status;
} Run;

static void
run_clear (Run *run)
{
  g_clear_pointer (&run->out, g_free);
  g_clear_pointer (&run->err, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Run, run_clear)

/* Runs cugi-info (CUGI_INFO, set by tests/meson.build) with @argument
 * (may be NULL) and CUGI_LIBCUDA set to @libcuda. */
static void
run_cugi_info (const char *libcuda,
               const char *argument,
               Run        *run)
{
  const char *cugi_info = g_getenv ("CUGI_INFO");
  const char *argv[] = { cugi_info, argument, NULL };
  g_auto (GStrv) envp = g_get_environ ();
  g_autoptr(GError) error = NULL;

  if (cugi_info == NULL)
    g_error ("CUGI_INFO is not set: run this test through meson test");
  envp = g_environ_setenv (envp, "CUGI_LIBCUDA", libcuda, TRUE);
  envp = g_environ_setenv (envp, "LC_ALL", "C.UTF-8", TRUE);
  g_spawn_sync (NULL, (char **) argv, envp, G_SPAWN_DEFAULT, NULL, NULL,
                &run->out, &run->err, &run->status, &error);
  g_assert_no_error (error);
  g_test_message ("stdout:\n%s\nstderr:\n%s", run->out, run->err);
}

static void
test_no_driver (void)
{
  g_auto (Run) run = { 0 };
  g_autoptr(GError) error = NULL;

  run_cugi_info ("/nonexistent/libcuda.so.1", NULL, &run);
  g_spawn_check_wait_status (run.status, &error);
  g_assert_error (error, G_SPAWN_EXIT_ERROR, 1);

  /* Plainly on stderr, as the tool's own message. */
  g_assert_true (g_str_has_prefix (run.err, "cugi-info: "));
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
  g_auto (Run) run = { 0 };
  g_autoptr(GError) error = NULL;

  run_cugi_info ("/nonexistent/\"quoted\"\\dir/libcuda.so.1", "--json", &run);
  g_spawn_check_wait_status (run.status, &error);
  g_assert_error (error, G_SPAWN_EXIT_ERROR, 1);

  g_assert_true (g_str_has_prefix (run.out, "{\n"));
  g_assert_true (g_str_has_suffix (run.out, "}\n"));
  g_assert_nonnull (strstr (run.out, "\n  \"cugi_version\": \""));
  g_assert_nonnull (strstr (run.out, "\n  \"driver_version\": null,"));
  g_assert_nonnull (strstr (run.out, "\n  \"error\": \"No NVIDIA driver found"));
  g_assert_nonnull (strstr (run.out, "/nonexistent/\\\"quoted\\\"\\\\dir/libcuda.so.1"));
  g_assert_null (strstr (run.out, "\"devices\""));
  g_assert_true (g_str_has_prefix (run.err, "cugi-info: "));
}

static void
test_bad_option (void)
{
  g_auto (Run) run = { 0 };
  g_autoptr(GError) error = NULL;

  run_cugi_info ("/nonexistent/libcuda.so.1", "--no-such-option", &run);
  g_spawn_check_wait_status (run.status, &error);
  g_assert_error (error, G_SPAWN_EXIT_ERROR, 1);
  g_assert_true (g_str_has_prefix (run.err, "cugi-info: "));
  g_assert_nonnull (strstr (run.err, "--no-such-option"));
  g_assert_cmpstr (run.out, ==, "");
}

int
main (int argc, char **argv)
{
  cugi_test_init (&argc, &argv);
  g_test_add_func ("/cugi-info/no-driver", test_no_driver);
  g_test_add_func ("/cugi-info/no-driver-json", test_no_driver_json);
  g_test_add_func ("/cugi-info/bad-option", test_bad_option);
  return g_test_run ();
}
