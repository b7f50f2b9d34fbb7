/* cugi-test-utils.c: shared by cugi's C tests */
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>

#include "cugi-test-utils.h"

void
cugi_test_init (int    *argc,
                char ***argv)
{
  setlocale (LC_ALL, "C.UTF-8");
  g_test_init (argc, argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
}

void
cugi_test_require_gpu (void)
{
  g_autoptr(GError) error = NULL;

  if (cugi_init (&error))
    return;
  printf ("1..0 # SKIP no GPU usable: %s\n", error->message);
  fflush (stdout);
  exit (77);
}

gboolean
cugi_test_have_gpu (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *reason = NULL;

  if (cugi_init (&error))
    return TRUE;
  reason = g_strdup_printf ("no GPU usable: %s", error->message);
  g_test_skip (reason);
  return FALSE;
}
