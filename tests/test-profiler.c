/* test-profiler.c: profiler control and NVTX annotations without a profiler
 * (and, on a machine without a GPU, without a driver) */
#include "config.h"

#include <nvtx3/nvToolsExt.h>

#include "cugi-private.h"
#include "cugi-test-utils.h"

/* No tool injected: ranges cost nothing and say that nobody tracks them. */
static void
test_nvtx_without_profiler (void)
{
  g_assert_cmpint (cugi_nvtx_range_push ("outer"), ==, NVTX_NO_PUSH_POP_TRACKING);
  g_assert_cmpint (cugi_nvtx_range_push ("inner"), ==, NVTX_NO_PUSH_POP_TRACKING);
  cugi_nvtx_mark ("a moment");
  g_assert_cmpint (cugi_nvtx_range_pop (), ==, NVTX_NO_PUSH_POP_TRACKING);
  g_assert_cmpint (cugi_nvtx_range_pop (), ==, NVTX_NO_PUSH_POP_TRACKING);
}

/* Without a profiler attached, start and stop succeed and do nothing; without
 * a driver they report why. */
static void
test_profiler_start_stop (void)
{
  g_autoptr(GError) no_driver = NULL;
  g_autoptr(GError) error = NULL;

  if (!cugi_init (&no_driver))
    {
      g_assert_false (cugi_profiler_start (&error));
      g_assert_error (error, CUGI_ERROR, CUGI_ERROR_NOT_AVAILABLE);
      g_clear_error (&error);
      g_assert_false (cugi_profiler_stop (&error));
      g_assert_error (error, CUGI_ERROR, CUGI_ERROR_NOT_AVAILABLE);
      return;
    }
  g_assert_true (cugi_profiler_start (&error));
  g_assert_no_error (error);
  g_assert_true (cugi_profiler_stop (&error));
  g_assert_no_error (error);
}

int
main (int   argc,
      char *argv[])
{
  /* Before any NVTX call: a tool named here would be loaded. */
  g_unsetenv ("NVTX_INJECTION64_PATH");
  cugi_test_init (&argc, &argv);

  g_test_add_func ("/profiler/nvtx-without-profiler", test_nvtx_without_profiler);
  g_test_add_func ("/profiler/start-stop", test_profiler_start_stop);

  return g_test_run ();
}
