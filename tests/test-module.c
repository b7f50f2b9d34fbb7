/* test-module.c: loading device code, kernels and globals (needs a GPU) */
#include "config.h"

#include <unistd.h>

#include <glib/gstdio.h>

#include "cugi-context-private.h"
#include "cugi-private.h"
#include "cugi-program-private.h"
#include "cugi-memory-private.h"
#include "cugi-test-utils.h"

static const char module_source[] =
  "__constant__ float coefficients[4];\n"
  "__device__ int counter;\n"
  "extern \"C\" __global__ void read_coefficients (float *out)\n"
  "{\n"
  "  out[threadIdx.x] = coefficients[threadIdx.x] * 2.0f;\n"
  "}\n"
  "template <typename T>\n"
  "__global__ void twice (T *data, int n)\n"
  "{\n"
  "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)\n"
  "    data[i] *= 2;\n"
  "}\n";

/* @module_source with twice<float> and &counter registered, compiled for
 * @context's device with @options. */
static CugiProgram *
compile_module_source (CugiContext        *context,
                       const char * const *options)
{
  CugiProgram *program = cugi_program_new (module_source, "module.cu");
  g_autoptr(GError) error = NULL;

  g_assert_true (cugi_program_add_name_expression (program, "twice<float>", &error));
  g_assert_true (cugi_program_add_name_expression (program, "&counter", &error));
  g_assert_true (cugi_program_compile_for_device (program, cugi_context_get_device (context), options, &error));
  g_assert_no_error (error);
  return program;
}

static void
assert_has_kernels (CugiModule *module)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiKernel) by_c_name = cugi_module_get_kernel (module, "read_coefficients", &error);
  g_autoptr(CugiKernel) by_mangled_name = NULL;

  g_assert_no_error (error);
  g_assert_true (CUGI_IS_KERNEL (by_c_name));
  by_mangled_name = cugi_module_get_kernel (module, "_Z5twiceIfEvPT_i", &error);
  g_assert_no_error (error);
  g_assert_true (CUGI_IS_KERNEL (by_mangled_name));
}

static void
test_from_program (void)
{
  g_autoptr(CugiContext) context = cugi_test_default_context ();
  g_autoptr(CugiProgram) program = compile_module_source (context, NULL);
  g_autoptr(CugiProgram) uncompiled = cugi_program_new (module_source, NULL);
  g_autoptr(CugiModule) module = NULL;
  g_autoptr(CugiModule) not_loaded = NULL;
  g_autoptr(CugiKernel) by_expression = NULL;
  g_autoptr(CugiContext) property_context = NULL;
  g_autoptr(GBytes) cubin = cugi_program_get_cubin (program);
  g_autoptr(GError) error = NULL;

  /* NVRTC knows every current GPU, so the device gets CUBIN. */
  g_assert_nonnull (cubin);
  module = cugi_module_new_from_program (context, program, &error);
  g_assert_no_error (error);
  g_assert_true (cugi_module_get_context (module) == context);
  g_object_get (module, "context", &property_context, NULL);
  g_assert_true (property_context == context);
  assert_has_kernels (module);
  by_expression = cugi_module_get_kernel (module, "twice<float>", &error);
  g_assert_no_error (error);
  g_assert_true (CUGI_IS_KERNEL (by_expression));

  not_loaded = cugi_module_new_from_program (context, uncompiled, &error);
  g_assert_null (not_loaded);
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE);
}

static void
test_from_ptx (void)
{
  g_autoptr(CugiContext) context = cugi_test_default_context ();
  const char *options[] = { "-arch=compute_75", NULL };
  g_autoptr(CugiProgram) program = compile_module_source (context, options);
  g_autoptr(GBytes) ptx = cugi_program_get_ptx (program);
  g_autoptr(GBytes) terminated = NULL;
  g_autoptr(CugiModule) module = NULL;
  g_autoptr(CugiModule) from_terminated = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *with_nul = NULL;

  /* Virtual architecture: PTX only, which the driver compiles on loading. */
  g_assert_null (cugi_program_get_cubin (program));
  g_assert_nonnull (ptx);

  /* The PTX has no NUL: the module adds one. */
  module = cugi_module_new_from_data (NULL, ptx, &error);
  g_assert_no_error (error);
  assert_has_kernels (module);

  with_nul = g_strndup (g_bytes_get_data (ptx, NULL), g_bytes_get_size (ptx));
  terminated = g_bytes_new (with_nul, g_bytes_get_size (ptx) + 1);
  from_terminated = cugi_module_new_from_data (context, terminated, &error);
  g_assert_no_error (error);
  assert_has_kernels (from_terminated);
}

static void
test_from_file (void)
{
  g_autoptr(CugiContext) context = cugi_test_default_context ();
  g_autoptr(CugiProgram) program = compile_module_source (context, NULL);
  g_autoptr(GBytes) cubin = cugi_program_get_cubin (program);
  g_autoptr(CugiModule) module = NULL;
  g_autoptr(CugiModule) missing = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  int fd;

  g_assert_nonnull (cubin);
  fd = g_file_open_tmp ("cugi-module-XXXXXX.cubin", &path, &error);
  g_assert_no_error (error);
  close (fd);
  g_assert_true (g_file_set_contents (path, g_bytes_get_data (cubin, NULL), g_bytes_get_size (cubin), &error));
  g_assert_no_error (error);

  module = cugi_module_new_from_file (context, path, &error);
  g_assert_no_error (error);
  assert_has_kernels (module);
  g_assert_cmpint (g_unlink (path), ==, 0);

  missing = cugi_module_new_from_file (context, path, &error);
  g_assert_null (missing);
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
}

static void
test_invalid_image (void)
{
  const char broken_ptx[] =
    ".version 8.0\n"
    ".target sm_75\n"
    ".address_size 64\n"
    ".visible .entry broken ()\n"
    "{\n"
    "  this is not an instruction;\n"
    "}\n";
  g_autoptr(GBytes) broken = g_bytes_new_static (broken_ptx, strlen (broken_ptx));
  g_autoptr(GBytes) empty = g_bytes_new_static ("", 0);
  g_autoptr(CugiModule) module = NULL;
  g_autoptr(GError) error = NULL;

  module = cugi_module_new_from_data (NULL, broken, &error);
  g_assert_null (module);
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_IMAGE);
  g_assert_nonnull (strstr (error->message, "cuModuleLoadDataEx"));
  /* The JIT compiler's log says what is wrong. */
  if (strstr (error->message, "JIT log") == NULL)
    g_error ("no JIT log in: %s", error->message);
  g_clear_error (&error);

  module = cugi_module_new_from_data (NULL, empty, &error);
  g_assert_null (module);
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_IMAGE);
}

static void
test_not_found (void)
{
  g_autoptr(CugiContext) context = cugi_test_default_context ();
  g_autoptr(CugiProgram) program = compile_module_source (context, NULL);
  g_autoptr(CugiModule) module = cugi_module_new_from_program (context, program, NULL);
  g_autoptr(CugiModule) empty = g_object_new (CUGI_TYPE_MODULE, NULL);
  g_autoptr(CugiKernel) kernel = NULL;
  g_autoptr(CugiBuffer) global = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_nonnull (module);
  kernel = cugi_module_get_kernel (module, "no_such_kernel", &error);
  g_assert_null (kernel);
  cugi_test_assert_error (&error, CUGI_ERROR_NOT_FOUND, "no_such_kernel");

  global = cugi_module_get_global (module, "no_such_global", &error);
  g_assert_null (global);
  cugi_test_assert_error (&error, CUGI_ERROR_NOT_FOUND, "no_such_global");

  /* A module a binding made with g_object_new() holds no code. */
  kernel = cugi_module_get_kernel (empty, "read_coefficients", &error);
  g_assert_null (kernel);
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE);
}

static void
test_constant_global (void)
{
  const float coefficients[4] = { 1.5f, -2.0f, 0.25f, 8.0f };
  g_autoptr(CugiContext) context = cugi_test_default_context ();
  g_autoptr(CugiProgram) program = compile_module_source (context, NULL);
  g_autoptr(CugiModule) module = cugi_module_new_from_program (context, program, NULL);
  g_autoptr(CugiBuffer) constants = NULL;
  g_autoptr(CugiBuffer) counter = NULL;
  g_autoptr(CugiBuffer) out = NULL;
  g_autoptr(GBytes) read_back = NULL;
  g_autoptr(GBytes) result = NULL;
  g_autoptr(GError) error = NULL;
  CUdeviceptr out_address = 0;
  CUfunction function = NULL;
  const float *values;

  g_assert_nonnull (module);
  constants = cugi_module_get_global (module, "coefficients", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (cugi_buffer_get_size (constants), ==, sizeof coefficients);
  g_assert_true (cugi_buffer_upload (constants, 0, (const guint8 *) coefficients, sizeof coefficients, &error));
  g_assert_no_error (error);
  read_back = cugi_buffer_download (constants, 0, sizeof coefficients, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (g_bytes_get_data (read_back, NULL), g_bytes_get_size (read_back),
                   coefficients, sizeof coefficients);

  /* A name expression of the program works for globals too. */
  counter = cugi_module_get_global (module, "&counter", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (cugi_buffer_get_size (counter), ==, sizeof (int));

  /* The kernel sees the uploaded constants (launched through the driver, so
   * that this tests the module alone). */
  out = cugi_buffer_new (context, sizeof coefficients, &error);
  g_assert_no_error (error);
  g_assert_true (cugi_buffer_get_address (out, &out_address, &error));
  {
    g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
    void *params[] = { &out_address };

    g_assert_true (cugi_context_enter (context, &scope, &error));
    g_assert_true (CUGI_CALL (cuModuleGetFunction, (&function, cugi_module_get_handle (module), "read_coefficients"), &error));
    g_assert_true (CUGI_CALL (cuLaunchKernel, (function, 1, 1, 1, 4, 1, 1, 0, NULL, params, NULL), &error));
    g_assert_true (CUGI_CALL (cuCtxSynchronize, (), &error));
    g_assert_no_error (error);
  }
  result = cugi_buffer_download (out, 0, sizeof coefficients, &error);
  g_assert_no_error (error);
  values = g_bytes_get_data (result, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (coefficients); i++)
    g_assert_cmpfloat (values[i], ==, 2.0f * coefficients[i]);
}

static void
on_compiled_for_device (GObject      *source_object,
                        GAsyncResult *result,
                        gpointer      user_data)
{
  GAsyncResult **result_out = user_data;

  *result_out = g_object_ref (result);
}

static void
test_compile_for_device_async (void)
{
  g_autoptr(CugiContext) context = cugi_test_default_context ();
  g_autoptr(CugiProgram) program = cugi_program_new (module_source, "module.cu");
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(CugiModule) module = NULL;
  g_autoptr(GError) error = NULL;
  gint major = 0, minor = 0;
  int n_supported = 0;
  g_autofree int *supported = NULL;
  g_autofree char *target = NULL;
  g_autofree char *target_line = NULL;
  g_autoptr(GBytes) ptx = NULL;

  g_assert_true (cugi_program_add_name_expression (program, "twice<float>", &error));
  cugi_program_compile_for_device_async (program, cugi_context_get_device (context), NULL, NULL,
                                         on_compiled_for_device, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_true (cugi_program_compile_for_device_finish (program, result, &error));
  g_assert_no_error (error);

  /* Compiled for the target chosen from the device and NVRTC's list. */
  g_assert_true (cugi_program_query_compute_capability (cugi_device_get_handle (cugi_context_get_device (context)),
                                                        &major, &minor, &error));
  g_assert_cmpint (cugi_nvrtc.nvrtcGetNumSupportedArchs (&n_supported), ==, NVRTC_SUCCESS);
  supported = g_new0 (int, n_supported);
  g_assert_cmpint (cugi_nvrtc.nvrtcGetSupportedArchs (supported), ==, NVRTC_SUCCESS);
  target = cugi_program_choose_target (supported, n_supported, major, minor, &error);
  g_assert_no_error (error);
  target_line = g_strdup_printf (".target sm_%s", strchr (target, '_') + 1);
  ptx = cugi_program_get_ptx (program);
  g_assert_nonnull (g_strstr_len (g_bytes_get_data (ptx, NULL), g_bytes_get_size (ptx), target_line));
  if (g_str_has_prefix (target, "sm_"))
    g_assert_nonnull (cugi_program_get_cubin (program));
  else
    g_assert_null (cugi_program_get_cubin (program));

  module = cugi_module_new_from_program (context, program, &error);
  g_assert_no_error (error);
  assert_has_kernels (module);
}

static void
test_source_cached (void)
{
  const char *expressions[] = { "twice<float>", NULL };
  const char *lineinfo[] = { "-lineinfo", NULL };
  g_autoptr(CugiContext) context = cugi_test_default_context ();
  g_autoptr(GError) error = NULL;
  CugiModule *first, *again, *through_default, *other_options, *reloaded;
  CugiKernel *kernel;
  gpointer first_alive;

  first = cugi_module_new_from_source_cached (context, module_source, NULL, expressions, &error);
  g_assert_no_error (error);
  again = cugi_module_new_from_source_cached (context, module_source, NULL, expressions, &error);
  g_assert_no_error (error);
  g_assert_true (first == again);
  through_default = cugi_module_new_from_source_cached (NULL, module_source, NULL, expressions, &error);
  g_assert_no_error (error);
  g_assert_true (through_default == first);
  other_options = cugi_module_new_from_source_cached (context, module_source, lineinfo, expressions, &error);
  g_assert_no_error (error);
  g_assert_true (other_options != first);

  kernel = cugi_module_get_kernel (first, "twice<float>", &error);
  g_assert_no_error (error);

  /* The table holds the module weakly: once its users are gone, it goes. */
  first_alive = first;
  g_object_add_weak_pointer (G_OBJECT (first), &first_alive);
  g_object_unref (again);
  g_object_unref (through_default);
  g_object_unref (first);
  g_assert_nonnull (first_alive);   /* the kernel still holds it */
  g_object_unref (kernel);
  g_assert_null (first_alive);
  g_object_unref (other_options);

  reloaded = cugi_module_new_from_source_cached (context, module_source, NULL, expressions, &error);
  g_assert_no_error (error);
  kernel = cugi_module_get_kernel (reloaded, "twice<float>", &error);
  g_assert_no_error (error);
  g_object_unref (kernel);
  g_object_unref (reloaded);
}

int
main (int argc, char **argv)
{
  cugi_test_init (&argc, &argv);
  cugi_test_require_gpu ();

  g_test_add_func ("/module/from-program", test_from_program);
  g_test_add_func ("/module/from-ptx", test_from_ptx);
  g_test_add_func ("/module/from-file", test_from_file);
  g_test_add_func ("/module/invalid-image", test_invalid_image);
  g_test_add_func ("/module/not-found", test_not_found);
  g_test_add_func ("/module/constant-global", test_constant_global);
  g_test_add_func ("/module/compile-for-device-async", test_compile_for_device_async);
  g_test_add_func ("/module/source-cached", test_source_cached);
  return g_test_run ();
}
