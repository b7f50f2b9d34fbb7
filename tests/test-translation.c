/* test-translation.c: cugi's messages in German, from the catalogue the
 * build makes in po/ (build/po/de/LC_MESSAGES/cugi-1.0.mo). No GPU needed. */
#include <locale.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "cugi-test-utils.h"

#define BAD_ALIAS_GERMAN \
  "„gpu7“ ist kein Gerätealias: Verwenden Sie „cuda“ für das Standardgerät " \
  "oder „cuda:N“ für Gerät N"
#define BAD_ALIAS_ENGLISH \
  "\"gpu7\" is not a device alias: use \"cuda\" for the default device or " \
  "\"cuda:N\" for device N"

static char *build_locale_dir;

static char *
bad_alias_message (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiDevice) device = cugi_device_get_by_alias ("gpu7", &error);

  g_assert_null (device);
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT);
  return g_strdup (error->message);
}

/* main() bound the domain before the first cugi call, as an application
 * with a locale tree of its own would: cugi, binding its domain to the
 * install directory, must leave that binding alone, also once cugi_init()
 * has run. */
static void
test_earlier_binding_kept (void)
{
  g_autofree char *message = NULL;

  cugi_init (NULL);  /* fails without a GPU: only its side effects matter */
  message = bad_alias_message ();
  g_assert_cmpstr (message, ==, BAD_ALIAS_GERMAN);
}

/* An application that binds the domain after cugi has is obeyed too. */
static void
test_later_binding_obeyed (void)
{
  g_autofree char *in_empty_tree = NULL;
  g_autofree char *in_build_tree = NULL;
  g_autofree char *empty_dir = g_dir_make_tmp ("cugi-no-locale-XXXXXX", NULL);

  g_assert_nonnull (empty_dir);
  cugi_init (NULL);
  bindtextdomain (GETTEXT_PACKAGE, empty_dir);
  in_empty_tree = bad_alias_message ();
  bindtextdomain (GETTEXT_PACKAGE, build_locale_dir);
  in_build_tree = bad_alias_message ();

  g_assert_cmpstr (in_empty_tree, ==, BAD_ALIAS_ENGLISH);
  g_assert_cmpstr (in_build_tree, ==, BAD_ALIAS_GERMAN);
  g_rmdir (empty_dir);
}

/* The catalogue's plural rule (German: one, other) reaches the program. */
static void
test_plural_forms (void)
{
  g_assert_cmpstr (g_dngettext (GETTEXT_PACKAGE, "%u device\n", "%u devices\n", 1), ==, "%u Gerät\n");
  g_assert_cmpstr (g_dngettext (GETTEXT_PACKAGE, "%u device\n", "%u devices\n", 2), ==, "%u Geräte\n");
  g_assert_cmpstr (g_dngettext (GETTEXT_PACKAGE, "%u device\n", "%u devices\n", 0), ==, "%u Geräte\n");
}

int
main (int    argc,
      char **argv)
{
  int status;

  /* glibc ignores LANGUAGE where the messages locale is "C" or "POSIX",
   * and newer ones (Ubuntu 24.04's 2.39) for their built-in C.UTF-8 too:
   * the messages of a real locale where there is one, else C.UTF-8 (which
   * cugi_test_init() selects, and for which Debian 12's glibc obeys
   * LANGUAGE). No German locale needs to be installed. */
  g_setenv ("LANGUAGE", "de", TRUE);
  cugi_test_init (&argc, &argv);
  setlocale (LC_MESSAGES, "en_US.UTF-8");

  build_locale_dir = g_test_build_filename (G_TEST_BUILT, "..", "po", NULL);
  bindtextdomain (GETTEXT_PACKAGE, build_locale_dir);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");

  g_test_add_func ("/translation/earlier-binding-kept", test_earlier_binding_kept);
  g_test_add_func ("/translation/later-binding-obeyed", test_later_binding_obeyed);
  g_test_add_func ("/translation/plural-forms", test_plural_forms);
  status = g_test_run ();
  g_free (build_locale_dir);
  return status;
}
