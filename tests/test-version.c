/* test-version.c: the version macros and their run-time counterparts */
#include "config.h"

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

int
main (int argc, char **argv)
{
  cugi_test_init (&argc, &argv);
  g_test_add_func ("/version/headers-match-project", test_headers_match_project);
  g_test_add_func ("/version/check-version-macro", test_check_version_macro);
  g_test_add_func ("/version/encoded-versions", test_encoded_versions);
  g_test_add_func ("/version/runtime-version", test_runtime_version);
  g_test_add_func ("/version/runtime-check", test_runtime_check);
  return g_test_run ();
}
