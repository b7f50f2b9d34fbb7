/* test-loader.c: finding the driver and NVRTC, and every way that can fail,
 * without a GPU. Each case runs in a subprocess: the loader's outcome is
 * fixed for the life of a process. */
#include "config.h"

#include <sys/stat.h>

#include <glib/gstdio.h>

#include "cugi-private.h"
#include "cugi-test-utils.h"

static void
run_in_subprocess (const char *test_path)
{
  g_test_trap_subprocess (test_path, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
}

/* Runs @test_path once for each value of @variable that is no library (a
 * device, a directory, a FIFO, nothing), with CUGI_TEST_LIBRARY the value
 * and CUGI_TEST_FRAGMENT what the message must say; the subprocess sets
 * @variable, as the loader reads it once per process. */
static void
assert_library_refused (const char *variable,
                        const char *test_path)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("cugi-loader-XXXXXX", &error);
  g_autofree char *fifo = NULL;
  g_autofree char *fifo_fragment = NULL;
  g_autofree char *empty_fragment = g_strdup_printf ("%s is set but empty", variable);
  struct
  {
    const char *value;
    const char *fragment;
  } cases[] = {
    { "/dev/null", "“/dev/null” is a character device" },
    { "/", "“/” is a directory" },
    { NULL, NULL },  /* the FIFO */
    { "", empty_fragment },
  };

  g_assert_no_error (error);
  fifo = g_build_filename (dir, "libcuda.so.1", NULL);
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  fifo_fragment = g_strdup_printf ("“%s” is a named pipe", fifo);
  cases[2].value = fifo;
  cases[2].fragment = fifo_fragment;

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_setenv ("CUGI_TEST_LIBRARY", cases[i].value, TRUE);
      g_setenv ("CUGI_TEST_FRAGMENT", cases[i].fragment, TRUE);
      g_test_trap_subprocess (test_path, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
      g_test_trap_assert_passed ();
    }
  g_unsetenv ("CUGI_TEST_LIBRARY");
  g_unsetenv ("CUGI_TEST_FRAGMENT");
  g_assert_cmpint (g_unlink (fifo), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

static void
assert_not_available (const char *fragment)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) again = NULL;

  g_assert_false (cugi_init (&error));
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_NOT_AVAILABLE);
  if (strstr (error->message, fragment) == NULL)
    g_error ("expected \"%s\" in: %s", fragment, error->message);
  g_assert_false (cugi_is_available ());
  g_assert_cmpint (cugi_get_driver_version (&again), ==, 0);
  /* The same answer each time, and the library stays usable. */
  g_assert_error (again, CUGI_ERROR, CUGI_ERROR_NOT_AVAILABLE);
  g_assert_cmpstr (again->message, ==, error->message);
}

static void
test_missing_driver (void)
{
  if (g_test_subprocess ())
    {
      g_setenv ("CUGI_LIBCUDA", "/nonexistent/libcuda.so.1", TRUE);
      assert_not_available ("No NVIDIA driver found");
      assert_not_available ("CUGI_LIBCUDA");
      return;
    }
  run_in_subprocess ("/loader/missing-driver");
}

/* CUGI_LIBCUDA naming what is no library: the message names the value
 * given and what it is, not a name the loader made of it (“/dev/null.so”). */
static void
test_driver_not_a_file (void)
{
  if (g_test_subprocess ())
    {
      g_setenv ("CUGI_LIBCUDA", g_getenv ("CUGI_TEST_LIBRARY"), TRUE);
      assert_not_available (g_getenv ("CUGI_TEST_FRAGMENT"));
      return;
    }
  assert_library_refused ("CUGI_LIBCUDA", "/loader/driver-not-a-file");
}

static void
test_stub_driver (void)
{
  const char *stub = g_getenv ("CUGI_STUB_LIBCUDA");

  if (stub == NULL || !g_file_test (stub, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("the CUDA toolkit's stub libcuda.so is not installed");
      return;
    }
  if (g_test_subprocess ())
    {
      g_setenv ("CUGI_LIBCUDA", stub, TRUE);
      assert_not_available ("stub library");
      return;
    }
  run_in_subprocess ("/loader/stub-driver");
}

static void
with_fake_driver (const char *init_result,
                  const char *version)
{
  g_autofree char *fake = g_test_build_filename (G_TEST_BUILT, "libfake-cuda.so", NULL);

  g_setenv ("CUGI_LIBCUDA", fake, TRUE);
  g_setenv ("FAKE_CUDA_INIT_RESULT", init_result, TRUE);
  g_setenv ("FAKE_CUDA_VERSION", version, TRUE);
}

static void
test_no_device (void)
{
  if (g_test_subprocess ())
    {
      with_fake_driver ("100" /* CUDA_ERROR_NO_DEVICE */, "13000");
      assert_not_available ("reports no CUDA device");
      return;
    }
  run_in_subprocess ("/loader/no-device");
}

static void
test_old_driver (void)
{
  if (g_test_subprocess ())
    {
      with_fake_driver ("0", "11080");
      assert_not_available ("supports CUDA 11.8 but cugi needs CUDA 12.0");
      return;
    }
  run_in_subprocess ("/loader/old-driver");
}

static void
test_driver_missing_entry_points (void)
{
  if (g_test_subprocess ())
    {
      g_autofree char *version = g_strdup_printf ("%d", CUDA_VERSION);

      with_fake_driver ("0", version);
      assert_not_available ("lacks cuInit");
      return;
    }
  run_in_subprocess ("/loader/missing-entry-points");
}

static void
test_init_failure (void)
{
  if (g_test_subprocess ())
    {
      with_fake_driver ("999" /* CUDA_ERROR_UNKNOWN */, "13000");
      assert_not_available ("failed to initialize with error 999");
      return;
    }
  run_in_subprocess ("/loader/init-failure");
}

/* The same for CUGI_LIBNVRTC. */
static void
test_nvrtc_not_a_file (void)
{
  if (g_test_subprocess ())
    {
      g_autoptr(GError) error = NULL;
      const char *fragment = g_getenv ("CUGI_TEST_FRAGMENT");

      g_setenv ("CUGI_LIBNVRTC", g_getenv ("CUGI_TEST_LIBRARY"), TRUE);
      g_assert_cmpint (cugi_get_nvrtc_version (&error), ==, 0);
      g_assert_error (error, CUGI_ERROR, CUGI_ERROR_NOT_AVAILABLE);
      if (strstr (error->message, fragment) == NULL)
        g_error ("expected \"%s\" in: %s", fragment, error->message);
      return;
    }
  assert_library_refused ("CUGI_LIBNVRTC", "/loader/nvrtc-not-a-file");
}

static void
test_nvrtc_missing (void)
{
  if (g_test_subprocess ())
    {
      g_autoptr(GError) error = NULL;

      g_setenv ("CUGI_LIBNVRTC", "/nonexistent/libnvrtc.so", TRUE);
      g_assert_cmpint (cugi_get_nvrtc_version (&error), ==, 0);
      g_assert_error (error, CUGI_ERROR, CUGI_ERROR_NOT_AVAILABLE);
      g_assert_nonnull (strstr (error->message, "CUGI_LIBNVRTC"));
      return;
    }
  run_in_subprocess ("/loader/nvrtc-missing");
}

/* NVRTC needs no GPU: the toolkit's copy loads on any machine with it. */
static void
test_nvrtc_found (void)
{
  g_autoptr(GError) error = NULL;
  int version = cugi_get_nvrtc_version (&error);

  g_assert_no_error (error);
  g_assert_cmpint (version, >=, 11000);
  g_assert_nonnull (cugi_loader_get_nvrtc_path ());
}

static void
test_library_version (void)
{
  g_assert_cmpstr (cugi_get_version (), ==, CUGI_VERSION);
}

int
main (int argc, char **argv)
{
  cugi_test_init (&argc, &argv);
  g_test_add_func ("/loader/missing-driver", test_missing_driver);
  g_test_add_func ("/loader/driver-not-a-file", test_driver_not_a_file);
  g_test_add_func ("/loader/stub-driver", test_stub_driver);
  g_test_add_func ("/loader/no-device", test_no_device);
  g_test_add_func ("/loader/old-driver", test_old_driver);
  g_test_add_func ("/loader/missing-entry-points", test_driver_missing_entry_points);
  g_test_add_func ("/loader/init-failure", test_init_failure);
  g_test_add_func ("/loader/nvrtc-missing", test_nvrtc_missing);
  g_test_add_func ("/loader/nvrtc-not-a-file", test_nvrtc_not_a_file);
  g_test_add_func ("/loader/nvrtc-found", test_nvrtc_found);
  g_test_add_func ("/loader/library-version", test_library_version);
  return g_test_run ();
}
