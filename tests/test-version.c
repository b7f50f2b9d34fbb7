/* test-version.c: the version macros and their run-time counterparts */
#include "config.h"

#include <glib/gstdio.h>
#include <unistd.h>

#include "cugi-test-utils.h"

/* The headers' version is the project's: CUGI_VERSION (config.h) is
 * meson.project_version(). */
static void
test_headers_match_project (void)
{
  g_autofree gchar *spelled = g_strdup_printf ("%d.%d.%d", CUGI_MAJOR_VERSION,
                                               CUGI_MINOR_VERSION, CUGI_MICRO_VERSION);

  g_assert_cmpstr (spelled, ==, CUGI_VERSION);
}

static void
test_check_version_macro (void)
{
  /* In #if, where programs use it. */
#if !CUGI_CHECK_VERSION (CUGI_MAJOR_VERSION, CUGI_MINOR_VERSION, CUGI_MICRO_VERSION)
  g_assert_not_reached ();
#endif
#if CUGI_CHECK_VERSION (CUGI_MAJOR_VERSION + 1, 0, 0)
  g_assert_not_reached ();
#endif
  g_assert_true (CUGI_CHECK_VERSION (0, 0, 0));
  g_assert_true (CUGI_CHECK_VERSION (CUGI_MAJOR_VERSION, CUGI_MINOR_VERSION, 0));
  g_assert_false (CUGI_CHECK_VERSION (CUGI_MAJOR_VERSION, CUGI_MINOR_VERSION, CUGI_MICRO_VERSION + 1));
  g_assert_false (CUGI_CHECK_VERSION (CUGI_MAJOR_VERSION, CUGI_MINOR_VERSION + 1, 0));
  g_assert_false (CUGI_CHECK_VERSION (CUGI_MAJOR_VERSION + 1, 0, 0));
  /* A later minor version satisfies any micro version of an earlier one. */
  if (CUGI_MINOR_VERSION > 0)
    g_assert_true (CUGI_CHECK_VERSION (CUGI_MAJOR_VERSION, CUGI_MINOR_VERSION - 1, 999));
}

static void
test_encoded_versions (void)
{
  g_assert_cmpint (CUGI_VERSION_0_1, ==, CUGI_ENCODE_VERSION (0, 1));
  g_assert_cmpint (CUGI_ENCODE_VERSION (0, 2), >, CUGI_VERSION_0_1);
  g_assert_cmpint (CUGI_ENCODE_VERSION (1, 0), >, CUGI_ENCODE_VERSION (0, 255));
  /* Both bounds default to the headers' version. */
  g_assert_cmpint (CUGI_VERSION_MIN_REQUIRED, ==,
                   CUGI_ENCODE_VERSION (CUGI_MAJOR_VERSION, CUGI_MINOR_VERSION));
  g_assert_cmpint (CUGI_VERSION_MAX_ALLOWED, ==, CUGI_VERSION_MIN_REQUIRED);
}

static void
test_runtime_version (void)
{
  g_assert_cmpuint (cugi_get_major_version (), ==, CUGI_MAJOR_VERSION);
  g_assert_cmpuint (cugi_get_minor_version (), ==, CUGI_MINOR_VERSION);
  g_assert_cmpuint (cugi_get_micro_version (), ==, CUGI_MICRO_VERSION);
}

static void
test_runtime_check (void)
{
  const guint major = CUGI_MAJOR_VERSION, minor = CUGI_MINOR_VERSION, micro = CUGI_MICRO_VERSION;

  g_assert_null (cugi_check_version (major, minor, micro));
  g_assert_null (cugi_check_version (major, 0, 0));
  if (micro > 0)
    g_assert_null (cugi_check_version (major, minor, micro - 1));
  if (minor > 0)
    g_assert_null (cugi_check_version (major, minor - 1, 999));

  g_assert_nonnull (strstr (cugi_check_version (major, minor, micro + 1), "micro"));
  g_assert_nonnull (strstr (cugi_check_version (major, minor + 1, 0), "minor"));
  g_assert_nonnull (strstr (cugi_check_version (major + 1, 0, 0), "too old"));
  /* Another major version breaks the API, newer or older. */
  if (major > 0)
    g_assert_nonnull (strstr (cugi_check_version (major - 1, minor, micro), "too new"));
}

/* Compiles @program against the uninstalled headers with @defines and
 * deprecation warnings as errors; returns whether it compiled, with the
 * compiler's messages in @messages. Marks the case skipped and returns FALSE
 * when the build gave no compiler (an installed test). */
static gboolean
compile_program (const char  *program,
                 const char  *defines,
                 gboolean    *compiled,
                 gchar      **messages)
{
  const char *command = g_getenv ("CUGI_TEST_COMPILE");
  g_autoptr(GError) error = NULL;
  g_autofree gchar *path = NULL;
  g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_auto(GStrv) command_args = NULL;
  g_auto(GStrv) define_args = NULL;
  g_autofree gchar *output = NULL;
  gint fd, status;

  if (command == NULL)
    {
      g_test_skip ("CUGI_TEST_COMPILE (the compiler command of the build) is not set");
      return FALSE;
    }
  fd = g_file_open_tmp ("cugi-version-XXXXXX.c", &path, &error);
  g_assert_no_error (error);
  close (fd);
  g_assert_true (g_file_set_contents (path, program, -1, &error));
  g_assert_no_error (error);

  command_args = g_strsplit (command, "\n", -1);
  define_args = g_strsplit (defines, " ", -1);
  for (guint i = 0; command_args[i] != NULL; i++)
    g_ptr_array_add (argv, g_strdup (command_args[i]));
  for (guint i = 0; define_args[i] != NULL; i++)
    if (*define_args[i] != '\0')
      g_ptr_array_add (argv, g_strdup (define_args[i]));
  g_ptr_array_add (argv, g_strdup ("-Werror=deprecated-declarations"));
  g_ptr_array_add (argv, g_strdup (path));
  g_ptr_array_add (argv, NULL);

  g_spawn_sync (NULL, (gchar **) argv->pdata, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL,
                NULL, NULL, NULL, &output, &status, &error);
  g_assert_no_error (error);
  g_unlink (path);
  *compiled = g_spawn_check_wait_status (status, NULL);
  *messages = g_steal_pointer (&output);
  return TRUE;
}

/* Asserts that @program compiles with @defines (no warning about what it
 * uses): the harness works, so the failures below mean something. */
static void
assert_compiles (const char *program,
                 const char *defines)
{
  g_autofree gchar *messages = NULL;
  gboolean compiled;

  if (!compile_program (program, defines, &compiled, &messages))
    return;
  if (!compiled)
    {
      g_test_message ("%s", messages);
      g_test_fail_printf ("expected to compile with \"%s\"", defines);
    }
}

/* Asserts that @program does not compile with @defines, and that the
 * compiler said @reason. */
static void
assert_refused (const char *program,
                const char *defines,
                const char *reason)
{
  g_autofree gchar *messages = NULL;
  gboolean compiled;

  if (!compile_program (program, defines, &compiled, &messages))
    return;
  if (compiled || strstr (messages, reason) == NULL)
    {
      g_test_message ("%s", messages);
      g_test_fail_printf ("expected a failure saying \"%s\" with \"%s\", got %s", reason, defines,
                          compiled ? "none" : "another");
    }
}

/* Uses a function of 0.1 (declared in cugi-init.h, as any other). */
static const char uses_0_1[] =
  "#include <cugi/cugi.h>\n"
  "int main (void) { return (int) cugi_get_major_version (); }\n";

static void
test_max_allowed (void)
{
  assert_compiles (uses_0_1, "");
  assert_compiles (uses_0_1, "-DCUGI_VERSION_MAX_ALLOWED=CUGI_VERSION_0_1");
  /* A program that must build with a cugi older than 0.1 is warned. */
  assert_refused (uses_0_1,
                  "-DCUGI_VERSION_MIN_REQUIRED=CUGI_ENCODE_VERSION(0,0) "
                  "-DCUGI_VERSION_MAX_ALLOWED=CUGI_ENCODE_VERSION(0,0)",
                  "Not available before 0.1");
  assert_compiles (uses_0_1,
                   "-DCUGI_VERSION_MIN_REQUIRED=CUGI_ENCODE_VERSION(0,0) "
                   "-DCUGI_VERSION_MAX_ALLOWED=CUGI_ENCODE_VERSION(0,0) "
                   "-DCUGI_DISABLE_DEPRECATION_WARNINGS");
}

/* No function is deprecated yet: the program declares one as cugi would. */
static const char uses_deprecated_in_0_1[] =
  "#include <cugi/cugi.h>\n"
  "CUGI_DEPRECATED_IN_0_1_FOR (cugi_get_major_version) int cugi_old_major (void);\n"
  "int main (void) { return cugi_old_major (); }\n";

static void
test_min_required (void)
{
  /* Deprecated in the version required or an older one: warned. */
  assert_refused (uses_deprecated_in_0_1, "", "cugi_get_major_version");
  assert_refused (uses_deprecated_in_0_1, "-DCUGI_VERSION_MIN_REQUIRED=CUGI_VERSION_0_1",
                  "cugi_old_major");
  /* Still supports a version where it was not deprecated: quiet. */
  assert_compiles (uses_deprecated_in_0_1, "-DCUGI_VERSION_MIN_REQUIRED=CUGI_ENCODE_VERSION(0,0)");
  assert_compiles (uses_deprecated_in_0_1, "-DCUGI_DISABLE_DEPRECATION_WARNINGS");
}

static void
test_inconsistent_bounds (void)
{
  assert_refused (uses_0_1, "-DCUGI_VERSION_MIN_REQUIRED=CUGI_ENCODE_VERSION(99,0)",
                  "CUGI_VERSION_MIN_REQUIRED must not be newer");
  assert_refused (uses_0_1,
                  "-DCUGI_VERSION_MIN_REQUIRED=CUGI_VERSION_0_1 "
                  "-DCUGI_VERSION_MAX_ALLOWED=CUGI_ENCODE_VERSION(0,0)",
                  "CUGI_VERSION_MAX_ALLOWED must not be older");
}

int
main (int argc, char **argv)
{
  cugi_test_init (&argc, &argv);
  g_test_add_func ("/version/headers-match-project", test_headers_match_project);
  g_test_add_func ("/version/check-version-macro", test_check_version_macro);
  g_test_add_func ("/version/encoded-versions", test_encoded_versions);
  g_test_add_func ("/version/runtime-version", test_runtime_version);
  g_test_add_func ("/version/runtime-check", test_runtime_check);
  g_test_add_func ("/version/max-allowed", test_max_allowed);
  g_test_add_func ("/version/min-required", test_min_required);
  g_test_add_func ("/version/inconsistent-bounds", test_inconsistent_bounds);
  return g_test_run ();
}
