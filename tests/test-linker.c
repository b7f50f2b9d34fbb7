/* test-linker.c: JIT options on loading and the linker. Built twice: against
 * fake-cuda-streams (suite cpu), which records the JIT options and link
 * inputs it was given and links text images, so that cugi's validation,
 * logs and errors are checked without a GPU; and against the real driver
 * (suite gpu), where NVRTC programs compiled with -rdc=true are linked and
 * launched. Each case runs where its driver is and skips elsewhere. */
#include "config.h"

#include <sys/stat.h>

#include <glib/gstdio.h>
#include <gmodule.h>

#include "cugi-private.h"
#include "cugi-test-utils.h"

/* The stand-in's recordings; NULL against the real driver. */
static int (*fake_last_jit_option) (int option, guintptr *value);
static gsize (*fake_link_inputs) (char *out, gsize capacity);

static gboolean
have_fake (void)
{
  if (fake_last_jit_option != NULL)
    return TRUE;
  g_test_skip ("needs the stand-in driver (fake-cuda-streams)");
  return FALSE;
}

static gboolean
have_gpu (void)
{
  if (fake_last_jit_option != NULL)
    {
      g_test_skip ("needs a GPU, not the stand-in driver");
      return FALSE;
    }
  return cugi_test_have_gpu ();
}

static guintptr
last_jit_option (CUjit_option option)
{
  guintptr value = 0;

  g_assert_true (fake_last_jit_option (option, &value));
  return value;
}

static char *
link_inputs (void)
{
  char out[4096];

  fake_link_inputs (out, sizeof out);
  return g_strdup (out);
}

static GBytes *
text (const char *string)
{
  return g_bytes_new_static (string, strlen (string));
}

/* ---- JIT options (stand-in) ----------------------------------------------- */

static void
test_jit_options (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiJitOptions) options = cugi_jit_options_new ();
  g_autoptr(GBytes) image = text ("first 8\nsecond 4 4\n");
  g_autoptr(CugiModule) plain = NULL;
  g_autoptr(CugiModule) module = NULL;
  g_autofree char *info_log = NULL;
  guintptr value;

  if (!have_fake ())
    return;

  /* Without options: the driver's defaults, and the info log kept. */
  plain = cugi_module_new_from_data (NULL, image, &error);
  g_assert_no_error (error);
  g_assert_false (fake_last_jit_option (CU_JIT_MAX_REGISTERS, &value));
  g_assert_cmpstr (cugi_module_get_info_log (plain), ==, "fake JIT: 2 kernels loaded");

  cugi_jit_options_set_max_registers (options, 32);
  cugi_jit_options_set_optimization_level (options, 2);
  cugi_jit_options_set_target (options, 8, 6);
  cugi_jit_options_set_fallback (options, CUGI_JIT_FALLBACK_PREFER_BINARY);
  cugi_jit_options_set_generate_debug_info (options, TRUE);
  cugi_jit_options_set_generate_line_info (options, TRUE);
  cugi_jit_options_set_verbose (options, TRUE);
  module = cugi_module_new_from_data_with_options (NULL, image, options, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (last_jit_option (CU_JIT_MAX_REGISTERS), ==, 32);
  g_assert_cmpuint (last_jit_option (CU_JIT_OPTIMIZATION_LEVEL), ==, 2);
  g_assert_cmpuint (last_jit_option (CU_JIT_TARGET), ==, CU_TARGET_COMPUTE_86);
  g_assert_cmpuint (last_jit_option (CU_JIT_FALLBACK_STRATEGY), ==, CU_PREFER_BINARY);
  g_assert_cmpuint (last_jit_option (CU_JIT_GENERATE_DEBUG_INFO), ==, 1);
  g_assert_cmpuint (last_jit_option (CU_JIT_GENERATE_LINE_INFO), ==, 1);
  g_assert_cmpuint (last_jit_option (CU_JIT_LOG_VERBOSE), ==, 1);
  g_object_get (module, "info-log", &info_log, NULL);
  g_assert_cmpstr (info_log, ==, "fake JIT: 2 kernels loaded");

  /* Unset again: 0 registers is the compiler's choice. */
  cugi_jit_options_set_max_registers (options, 0);
  cugi_jit_options_set_generate_debug_info (options, FALSE);
  g_clear_object (&module);
  module = cugi_module_new_from_data_with_options (NULL, image, options, &error);
  g_assert_no_error (error);
  g_assert_false (fake_last_jit_option (CU_JIT_MAX_REGISTERS, &value));
  g_assert_false (fake_last_jit_option (CU_JIT_GENERATE_DEBUG_INFO, &value));
  g_assert_true (fake_last_jit_option (CU_JIT_OPTIMIZATION_LEVEL, &value));
}

static void
test_jit_options_invalid (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) image = text ("first 8\n");
  g_autoptr(CugiModule) module = NULL;
  CugiJitOptions *options;

  if (!have_fake ())
    return;

  options = cugi_jit_options_new ();
  cugi_jit_options_set_optimization_level (options, 5);
  g_assert_null (cugi_module_new_from_data_with_options (NULL, image, options, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "level 5");
  g_assert_null (cugi_linker_new (NULL, options, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "level 5");
  cugi_jit_options_unref (options);

  options = cugi_jit_options_new ();
  cugi_jit_options_set_max_registers (options, 300);
  g_assert_null (cugi_module_new_from_data_with_options (NULL, image, options, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "300 registers");
  cugi_jit_options_unref (options);

  options = cugi_jit_options_new ();
  cugi_jit_options_set_target (options, 2, 0);
  g_assert_null (cugi_module_new_from_data_with_options (NULL, image, options, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "2.0");
  cugi_jit_options_unref (options);

  options = cugi_jit_options_new ();
  cugi_jit_options_set_fallback (options, (CugiJitFallback) 7);
  g_assert_null (cugi_module_new_from_data_with_options (NULL, image, options, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, NULL);

  /* The library goes on, the same options fixed included. */
  cugi_jit_options_set_fallback (options, CUGI_JIT_FALLBACK_PREFER_PTX);
  module = cugi_module_new_from_data_with_options (NULL, image, options, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (last_jit_option (CU_JIT_FALLBACK_STRATEGY), ==, CU_PREFER_PTX);
  cugi_jit_options_unref (options);
}

static void
test_load_error_log (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) image = text ("   \n");

  if (!have_fake ())
    return;
  g_assert_null (cugi_module_new_from_data_with_options (NULL, image, NULL, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_IMAGE, "fake JIT: no kernel in the image");
}

/* ---- the linker (stand-in) ------------------------------------------------ */

static void
test_link (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiJitOptions) options = cugi_jit_options_new ();
  g_autoptr(CugiLinker) linker = NULL;
  g_autoptr(CugiModule) module = NULL;
  g_autoptr(CugiKernel) caller = NULL;
  g_autoptr(CugiKernel) helper = NULL;
  g_autoptr(GBytes) ptx = text ("needs helper\ncaller 8 4");
  g_autoptr(GBytes) cubin = text ("helper 4\n");
  g_autofree char *inputs = NULL;
  guint notified = 0;

  if (!have_fake ())
    return;

  cugi_jit_options_set_optimization_level (options, 3);
  linker = cugi_linker_new (NULL, options, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (last_jit_option (CU_JIT_OPTIMIZATION_LEVEL), ==, 3);
  g_assert_true (cugi_linker_get_context (linker) != NULL);
  g_signal_connect (linker, "notify::info-log", G_CALLBACK (cugi_test_count_notify), &notified);

  g_assert_true (cugi_linker_add_data (linker, CUGI_LINK_INPUT_PTX, ptx, "caller.ptx", &error));
  g_assert_no_error (error);
  g_assert_true (cugi_linker_add_data (linker, CUGI_LINK_INPUT_CUBIN, cubin, "helper.cubin", &error));
  g_assert_no_error (error);
  g_assert_null (cugi_linker_get_info_log (linker));
  module = cugi_linker_complete (linker, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (cugi_linker_get_info_log (linker), ==, "fake nvlink: linked");
  g_assert_cmpuint (notified, ==, 1);
  g_assert_cmpstr (cugi_module_get_info_log (module), ==, "fake nvlink: linked\nfake JIT: 2 kernels loaded");
  inputs = link_inputs ();
  g_assert_cmpstr (inputs, ==, "1 caller.ptx\n0 helper.cubin\n");

  /* Complete once: the linker is done with, and the module stands alone. */
  g_assert_null (cugi_linker_complete (linker, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_STATE, "complete");
  g_assert_false (cugi_linker_add_data (linker, CUGI_LINK_INPUT_CUBIN, cubin, NULL, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_STATE, "complete");
  g_clear_object (&linker);
  caller = cugi_module_get_kernel (module, "caller", &error);
  g_assert_no_error (error);
  helper = cugi_module_get_kernel (module, "helper", &error);
  g_assert_no_error (error);
}

static void
test_link_errors (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiLinker) linker = cugi_linker_new (NULL, NULL, &error);
  g_autoptr(CugiLinker) bare = g_object_new (CUGI_TYPE_LINKER, NULL);
  g_autoptr(CugiModule) module = NULL;
  g_autoptr(GBytes) caller = text ("needs helper\ncaller 8\n");
  g_autoptr(GBytes) broken = text ("error: not PTX\n");
  g_autoptr(GBytes) empty = g_bytes_new (NULL, 0);
  g_autoptr(GBytes) helper = text ("helper 4\n");

  if (!have_fake ())
    return;
  g_assert_no_error (error);

  g_assert_false (cugi_linker_add_data (linker, (CugiLinkInput) 99, caller, "caller.ptx", &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, NULL);
  g_assert_false (cugi_linker_add_data (linker, CUGI_LINK_INPUT_PTX, empty, "empty.ptx", &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "empty.ptx");
  g_assert_false (cugi_linker_add_file (linker, CUGI_LINK_INPUT_PTX, "/nonexistent/caller.ptx", &error));
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
  g_clear_error (&error);

  /* Input that does not compile: the compiler's log. */
  g_assert_false (cugi_linker_add_data (linker, CUGI_LINK_INPUT_PTX, broken, "broken.ptx", &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "fake ptxas: syntax error in broken.ptx"));
  g_clear_error (&error);

  /* An undefined symbol: the linker's log. */
  g_assert_true (cugi_linker_add_data (linker, CUGI_LINK_INPUT_PTX, caller, "caller.ptx", &error));
  g_assert_null (cugi_linker_complete (linker, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_IMAGE, "Undefined reference to 'helper'");

  /* What was missing, added: the linker goes on. */
  g_assert_true (cugi_linker_add_data (linker, CUGI_LINK_INPUT_CUBIN, helper, "helper.cubin", &error));
  g_assert_no_error (error);
  module = cugi_linker_complete (linker, &error);
  g_assert_no_error (error);

  /* A linker of g_object_new() links nothing. */
  g_assert_false (cugi_linker_add_data (bare, CUGI_LINK_INPUT_CUBIN, helper, NULL, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_STATE, "cugi_linker_new");
  g_assert_null (cugi_linker_complete (bare, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_STATE, NULL);
}

/* Paths that exist but are no file to link: each error says what the
 * path is instead, with the code of that. Checked before the driver is
 * asked, so a linker without a link state does. */
static void
assert_not_linked (CugiLinker *linker,
                   const char *path,
                   gint        code,
                   const char *fragment)
{
  g_autoptr(GError) error = NULL;

  g_assert_false (cugi_linker_add_file (linker, CUGI_LINK_INPUT_PTX, path, &error));
  g_assert_error (error, G_FILE_ERROR, code);
  if (strstr (error->message, fragment) == NULL)
    g_error ("expected \"%s\" in: %s", fragment, error->message);
}

static void
test_link_not_files (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiLinker) bare = g_object_new (CUGI_TYPE_LINKER, NULL);
  g_autofree char *dir = g_dir_make_tmp ("cugi-linker-XXXXXX", &error);
  g_autofree char *fifo = NULL;

  g_assert_no_error (error);
  fifo = g_build_filename (dir, "inputs", NULL);
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);

  assert_not_linked (bare, "/", G_FILE_ERROR_ISDIR, "“/” is a directory");
  assert_not_linked (bare, "/dev/zero", G_FILE_ERROR_INVAL, "“/dev/zero” is a character device");
  assert_not_linked (bare, fifo, G_FILE_ERROR_INVAL, "is a named pipe");
  assert_not_linked (bare, "/nonexistent/caller.ptx", G_FILE_ERROR_NOENT, "“/nonexistent/caller.ptx”");

  g_assert_cmpint (g_unlink (fifo), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

static void
test_link_files (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiLinker) linker = NULL;
  g_autoptr(CugiModule) module = NULL;
  g_autoptr(CugiKernel) kernel = NULL;
  g_autofree char *toolkit = g_dir_make_tmp ("cugi-toolkit-XXXXXX", &error);
  g_autofree char *lib64 = g_build_filename (toolkit, "lib64", NULL);
  g_autofree char *devrt = g_build_filename (lib64, "libcudadevrt.a", NULL);
  g_autofree char *object = g_build_filename (toolkit, "kernels.o", NULL);
  g_autofree char *old_home = g_strdup (g_getenv ("CUDA_HOME"));
  g_autofree char *inputs = NULL;
  g_autofree char *expected = NULL;

  if (!have_fake ())
    return;
  g_assert_no_error (error);
  g_assert_cmpint (g_mkdir (lib64, 0700), ==, 0);
  g_assert_true (g_file_set_contents (devrt, "device_runtime 8\n", -1, &error));
  g_assert_true (g_file_set_contents (object, "needs device_runtime\nlauncher 8\n", -1, &error));

  /* The device runtime of the toolkit that CUDA_HOME names, as for NVRTC. */
  g_setenv ("CUDA_HOME", toolkit, TRUE);
  linker = cugi_linker_new (NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (cugi_linker_add_file (linker, CUGI_LINK_INPUT_OBJECT, object, &error));
  g_assert_no_error (error);
  g_assert_true (cugi_linker_add_device_runtime (linker, &error));
  g_assert_no_error (error);
  module = cugi_linker_complete (linker, &error);
  g_assert_no_error (error);
  kernel = cugi_module_get_kernel (module, "launcher", &error);
  g_assert_no_error (error);
  inputs = link_inputs ();
  expected = g_strdup_printf ("3 %s\n4 %s\n", object, devrt);
  g_assert_cmpstr (inputs, ==, expected);

  if (old_home != NULL)
    g_setenv ("CUDA_HOME", old_home, TRUE);
  else
    g_unsetenv ("CUDA_HOME");
  g_remove (devrt);
  g_remove (object);
  g_rmdir (lib64);
  g_rmdir (toolkit);
}

/* NVRTC's output for a program, linked: CUBIN with -rdc=true, the
 * program's name, and its name expressions known to the module. */
static void
test_link_program (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiProgram) program = cugi_program_new ("template <typename T> __global__ void fill (T *p) { *p = 1; }\n",
                                                     "fill.cu");
  g_autoptr(CugiProgram) uncompiled = cugi_program_new ("__global__ void k () {}", NULL);
  g_autoptr(CugiLinker) linker = NULL;
  g_autoptr(CugiModule) module = NULL;
  g_autoptr(GBytes) cubin = NULL;
  g_autofree char *ptx = NULL;
  g_autofree char *inputs = NULL;
  const char *options[] = { "-rdc=true", NULL };

  if (!have_fake ())
    return;
  linker = cugi_linker_new (NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_false (cugi_linker_add_program (linker, uncompiled, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_STATE, "not compiled");

  g_assert_true (cugi_program_add_name_expression (program, "fill<int>", &error));
  if (!cugi_program_compile_for_arch (program, 9, 0, options, &error))
    {
      g_assert_error (error, CUGI_ERROR, CUGI_ERROR_NOT_AVAILABLE);
      g_test_skip ("NVRTC is not available");
      return;
    }
  /* Relocatable device code comes as CUBIN and PTX, through the cache too. */
  cubin = cugi_program_get_cubin (program);
  g_assert_nonnull (cubin);
  ptx = cugi_program_get_ptx_string (program);
  g_assert_nonnull (ptx);
  g_assert_true (cugi_linker_add_program (linker, program, &error));
  g_assert_no_error (error);
  module = cugi_linker_complete (linker, &error);
  g_assert_no_error (error);
  inputs = link_inputs ();
  g_assert_cmpstr (inputs, ==, "0 fill.cu\n");
  /* The stand-in's module holds no real kernel, but the name expression
   * is asked for by its lowered name. */
  g_assert_null (cugi_module_get_kernel (module, "fill<int>", &error));
  cugi_test_assert_error (&error, CUGI_ERROR_NOT_FOUND, "_Z4fillIiEvPT_");
}

/* ---- on the GPU ------------------------------------------------------------ */

static const char helper_source[] =
  "extern \"C\" __device__ float affine (float x)\n"
  "{\n"
  "  return 2.0f * x + 1.0f;\n"
  "}\n";

static const char caller_source[] =
  "extern \"C\" __device__ float affine (float x);\n"
  "template <typename T>\n"
  "__global__ void apply (T *out, int n)\n"
  "{\n"
  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (i < n)\n"
  "    out[i] = affine ((float) i);\n"
  "}\n";

static CugiProgram *
compile_rdc (const char *source,
             const char *name,
             const char *expression)
{
  g_autoptr(GError) error = NULL;
  CugiProgram *program = cugi_program_new (source, name);
  const char *options[] = { "-rdc=true", NULL };

  if (expression != NULL)
    g_assert_true (cugi_program_add_name_expression (program, expression, &error));
  g_assert_true (cugi_program_compile_for_device (program, NULL, options, &error));
  g_assert_no_error (error);
  return program;
}

static GBytes *
launch_and_download (CugiModule *module,
                     const char *name,
                     guint       n,
                     gboolean    with_n)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiKernel) kernel = cugi_module_get_kernel (module, name, &error);
  g_autoptr(CugiBuffer) out = cugi_test_buffer_new (n * 4);
  g_autoptr(CugiKernelArgs) args = cugi_kernel_args_new ();
  g_autoptr(CugiLaunchConfig) config = cugi_launch_config_new (1, n);

  g_assert_no_error (error);
  cugi_kernel_args_add_buffer (args, out);
  if (with_n)
    cugi_kernel_args_add_int32 (args, (gint32) n);
  g_assert_true (cugi_kernel_launch (kernel, config, args, &error));
  g_assert_no_error (error);
  cugi_test_synchronize (NULL);
  return cugi_test_download_all (out);
}

static void
test_gpu_link_programs (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiProgram) helper = NULL;
  g_autoptr(CugiProgram) caller = NULL;
  g_autoptr(CugiLinker) linker = NULL;
  g_autoptr(CugiModule) module = NULL;
  g_autoptr(CugiJitOptions) options = cugi_jit_options_new ();
  g_autoptr(GBytes) result = NULL;
  const float *values;

  if (!have_gpu ())
    return;
  helper = compile_rdc (helper_source, "helper.cu", NULL);
  caller = compile_rdc (caller_source, "caller.cu", "apply<float>");

  /* Alone, the caller does not link: affine is undefined. */
  linker = cugi_linker_new (NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (cugi_linker_add_program (linker, caller, &error));
  g_assert_no_error (error);
  g_assert_null (cugi_linker_complete (linker, &error));
  g_assert_nonnull (error);
  g_assert_true (error->domain == CUGI_ERROR);
  g_assert_nonnull (strstr (error->message, "affine"));
  g_clear_error (&error);
  g_clear_object (&linker);

  cugi_jit_options_set_verbose (options, TRUE);
  linker = cugi_linker_new (NULL, options, &error);
  g_assert_no_error (error);
  g_assert_true (cugi_linker_add_program (linker, caller, &error));
  g_assert_true (cugi_linker_add_program (linker, helper, &error));
  g_assert_no_error (error);
  module = cugi_linker_complete (linker, &error);
  g_assert_no_error (error);
  g_test_message ("linker info log: %s", cugi_module_get_info_log (module));
  g_clear_object (&linker);

  result = launch_and_download (module, "apply<float>", 64, TRUE);
  values = g_bytes_get_data (result, NULL);
  for (guint i = 0; i < 64; i++)
    g_assert_cmpfloat (values[i], ==, 2.0f * i + 1.0f);
}

static const char parent_source[] =
  "extern \"C\" __global__ void child (int *out)\n"
  "{\n"
  "  out[threadIdx.x] = 3 * threadIdx.x;\n"
  "}\n"
  "extern \"C\" __global__ void parent (int *out)\n"
  "{\n"
  "  if (threadIdx.x == 0)\n"
  "    child<<<1, blockDim.x>>> (out);\n"
  "}\n";

static void
test_gpu_device_launch (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiProgram) program = NULL;
  g_autoptr(CugiLinker) linker = NULL;
  g_autoptr(CugiModule) module = NULL;
  g_autoptr(GBytes) result = NULL;
  const gint32 *values;

  if (!have_gpu ())
    return;
  linker = cugi_linker_new (NULL, NULL, &error);
  g_assert_no_error (error);
  if (!cugi_linker_add_device_runtime (linker, &error))
    {
      g_assert_error (error, CUGI_ERROR, CUGI_ERROR_NOT_AVAILABLE);
      g_test_skip (error->message);
      return;
    }
  program = compile_rdc (parent_source, "parent.cu", NULL);
  g_assert_true (cugi_linker_add_program (linker, program, &error));
  g_assert_no_error (error);
  module = cugi_linker_complete (linker, &error);
  g_assert_no_error (error);

  result = launch_and_download (module, "parent", 32, FALSE);
  values = g_bytes_get_data (result, NULL);
  for (gint i = 0; i < 32; i++)
    g_assert_cmpint (values[i], ==, 3 * i);
}

/* PTX for the default device's virtual architecture, which the driver compiles. */
static GBytes *
compile_ptx (const char *source)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiProgram) program = cugi_program_new (source, "ptx.cu");
  g_autoptr(CugiContext) context = cugi_test_default_context ();
  g_autofree char *arch = NULL;
  const char *options[2] = { NULL, NULL };
  gint major = 0, minor = 0;

  cugi_device_get_compute_capability (cugi_context_get_device (context), &major, &minor);
  arch = g_strdup_printf ("-arch=compute_%d%d", major, minor);
  options[0] = arch;
  g_assert_true (cugi_program_compile (program, options, &error));
  g_assert_no_error (error);
  return cugi_program_get_ptx (program);
}

static void
test_gpu_jit_options (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiJitOptions) options = cugi_jit_options_new ();
  g_autoptr(CugiModule) module = NULL;
  g_autoptr(GBytes) ptx = NULL;
  g_autoptr(GBytes) bad_ptx = text (".version 8.0\n.target sm_90\n.address_size 64\nthis is not PTX;\n");
  g_autoptr(GBytes) result = NULL;
  const float *values;

  if (!have_gpu ())
    return;
  ptx = compile_ptx ("extern \"C\" __global__ void square (float *x)\n"
                     "{\n"
                     "  x[threadIdx.x] = (float) threadIdx.x * (float) threadIdx.x;\n"
                     "}\n");
  cugi_jit_options_set_verbose (options, TRUE);
  cugi_jit_options_set_max_registers (options, 16);
  cugi_jit_options_set_optimization_level (options, 3);
  cugi_jit_options_set_generate_line_info (options, TRUE);
  cugi_jit_options_set_fallback (options, CUGI_JIT_FALLBACK_PREFER_PTX);
  module = cugi_module_new_from_data_with_options (NULL, ptx, options, &error);
  g_assert_no_error (error);
  /* ptxas's verbose report names the function it compiled. */
  g_test_message ("JIT info log: %s", cugi_module_get_info_log (module));
  g_assert_nonnull (cugi_module_get_info_log (module));
  g_assert_nonnull (strstr (cugi_module_get_info_log (module), "square"));
  result = launch_and_download (module, "square", 32, FALSE);
  values = g_bytes_get_data (result, NULL);
  for (guint i = 0; i < 32; i++)
    g_assert_cmpfloat (values[i], ==, (float) (i * i));

  /* PTX that does not compile: the JIT's error log in the message. */
  g_assert_null (cugi_module_new_from_data_with_options (NULL, bad_ptx, options, &error));
  g_assert_nonnull (error);
  g_test_message ("bad PTX: %s", error->message);
  g_assert_nonnull (strstr (error->message, "JIT log"));
  g_clear_error (&error);
}

int
main (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  const char *libcuda = g_getenv ("CUGI_LIBCUDA");

  cugi_test_init (&argc, &argv);
  if (libcuda != NULL && strstr (libcuda, "fake-cuda-streams") != NULL)
    {
      GModule *fake;

      if (!cugi_init (&error))
        g_error ("the stand-in driver did not load: %s", error->message);
      fake = g_module_open (libcuda, G_MODULE_BIND_LOCAL);
      if (fake == NULL ||
          !g_module_symbol (fake, "fake_cuda_streams_last_jit_option", (gpointer *) &fake_last_jit_option) ||
          !g_module_symbol (fake, "fake_cuda_streams_link_inputs", (gpointer *) &fake_link_inputs))
        g_error ("CUGI_LIBCUDA is not fake-cuda-streams");
    }

  g_test_add_func ("/linker/jit-options", test_jit_options);
  g_test_add_func ("/linker/jit-options-invalid", test_jit_options_invalid);
  g_test_add_func ("/linker/load-error-log", test_load_error_log);
  g_test_add_func ("/linker/link", test_link);
  g_test_add_func ("/linker/link-errors", test_link_errors);
  g_test_add_func ("/linker/link-files", test_link_files);
  g_test_add_func ("/linker/link-not-files", test_link_not_files);
  g_test_add_func ("/linker/link-program", test_link_program);
  g_test_add_func ("/linker/gpu/link-programs", test_gpu_link_programs);
  g_test_add_func ("/linker/gpu/device-launch", test_gpu_device_launch);
  g_test_add_func ("/linker/gpu/jit-options", test_gpu_jit_options);
  return g_test_run ();
}
