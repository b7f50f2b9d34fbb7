/* test-kernel.c: kernels, checked launches and occupancy (needs a GPU) */
#include "config.h"

#include <string.h>

#include "cugi-launch-private.h"
#include "cugi-test-utils.h"

#define N_ELEMENTS 10000
#define BLOCK 256

/* With a grid-stride loop: any grid covers all n elements. */
static const char saxpy_source[] =
  "extern \"C\" __global__ void saxpy (float a, const float *x, float *y, unsigned int n)\n"
  "{\n"
  "  for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)\n"
  "    y[i] = a * x[i] + y[i];\n"
  "}\n";

static const char scale_source[] =
  "template <typename T>\n"
  "__global__ void scale (T *data, T factor, int n)\n"
  "{\n"
  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (i < n)\n"
  "    data[i] *= factor;\n"
  "}\n";

static const char shared_source[] =
  "extern \"C\" __global__ void reverse_through_shared (float *out, unsigned int n)\n"
  "{\n"
  "  extern __shared__ float tile[];\n"
  "  for (unsigned int i = threadIdx.x; i < n; i += blockDim.x)\n"
  "    tile[i] = i * 0.5f;\n"
  "  __syncthreads ();\n"
  "  for (unsigned int i = threadIdx.x; i < n; i += blockDim.x)\n"
  "    out[i] = tile[n - 1 - i];\n"
  "}\n";

/* A grid-wide barrier of its own: it only terminates when every block runs
 * at once, which a cooperative launch guarantees. */
static const char gather_source[] =
  "extern \"C\" __global__ void gather (int *values, unsigned int *arrived, int *out)\n"
  "{\n"
  "  if (threadIdx.x != 0)\n"
  "    return;\n"
  "  values[blockIdx.x] = blockIdx.x + 1;\n"
  "  __threadfence ();\n"
  "  atomicAdd (arrived, 1u);\n"
  "  while (atomicAdd (arrived, 0u) < gridDim.x)\n"
  "    ;\n"
  "  if (blockIdx.x == 0)\n"
  "    {\n"
  "      int sum = 0;\n"
  "      for (unsigned int i = 0; i < gridDim.x; i++)\n"
  "        sum += ((volatile int *) values)[i];\n"
  "      *out = sum;\n"
  "    }\n"
  "}\n";

/* Each block reports its cluster's size and its rank in it. */
static const char cluster_source[] =
  "extern \"C\" __global__ void cluster_rank (unsigned int *out)\n"
  "{\n"
  "  unsigned int rank, size;\n"
  "  asm volatile (\"mov.u32 %0, %%cluster_ctarank;\" : \"=r\" (rank));\n"
  "  asm volatile (\"mov.u32 %0, %%cluster_nctarank;\" : \"=r\" (size));\n"
  "  if (threadIdx.x == 0)\n"
  "    out[blockIdx.x] = size * 100 + rank;\n"
  "}\n";

static const char fault_source[] =
  "extern \"C\" __global__ void fault (int *p)\n"
  "{\n"
  "  *p = 1;\n"
  "}\n";

/* Kernels of different register and shared memory use, for occupancy. */
static const char occupancy_source[] =
  "extern \"C\" __global__ void heavy (float *data, int n)\n"
  "{\n"
  "  float acc[48];\n"
  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "#pragma unroll\n"
  "  for (int k = 0; k < 48; k++)\n"
  "    acc[k] = data[(i + k * 977) % n];\n"
  "  float s = 0.0f;\n"
  "#pragma unroll\n"
  "  for (int k = 0; k < 48; k++)\n"
  "    s += acc[k] * acc[(k * 7) % 48];\n"
  "  data[i % n] = s;\n"
  "}\n"
  "extern \"C\" __global__ void staged (float *data)\n"
  "{\n"
  "  __shared__ float stage[3000];\n"
  "  stage[threadIdx.x] = data[threadIdx.x];\n"
  "  __syncthreads ();\n"
  "  data[threadIdx.x] = stage[(threadIdx.x + 1) % blockDim.x];\n"
  "}\n";

static CugiBuffer *
buffer_new_with (gconstpointer data,
                 gsize         size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiBuffer) buffer = cugi_test_buffer_new (size);

  g_assert_true (cugi_buffer_upload (buffer, 0, data, size, &error));
  g_assert_no_error (error);
  return g_steal_pointer (&buffer);
}

/* Asserts that launching @kernel fails with CUGI_ERROR @code naming
 * @fragment. */
static void
assert_launch_refused (CugiKernel       *kernel,
                       CugiLaunchConfig *config,
                       CugiKernelArgs   *args,
                       gint              code,
                       const char       *fragment)
{
  g_autoptr(GError) error = NULL;

  g_assert_false (cugi_kernel_launch (kernel, config, args, &error));
  cugi_test_assert_error (&error, code, fragment);
}

static CugiLaunchConfig *
saxpy_config (void)
{
  return cugi_launch_config_new ((N_ELEMENTS + BLOCK - 1) / BLOCK, BLOCK);
}

/* The saxpy kernel, a configuration for N_ELEMENTS, and x and y with
 * products and sums that floats hold exactly. */
typedef struct
{
  CugiKernel       *kernel;
  CugiLaunchConfig *config;
  float             x[N_ELEMENTS];
  float             y[N_ELEMENTS];
  CugiBuffer       *x_buffer;
  CugiBuffer       *y_buffer;
} Saxpy;

static Saxpy *
saxpy_new (void)
{
  Saxpy *saxpy = g_new0 (Saxpy, 1);

  saxpy->kernel = cugi_test_kernel_new (saxpy_source, "saxpy");
  saxpy->config = saxpy_config ();
  for (guint i = 0; i < N_ELEMENTS; i++)
    {
      saxpy->x[i] = (float) (i % 1000) * 0.25f;
      saxpy->y[i] = (float) (i % 7) - 3.0f;
    }
  saxpy->x_buffer = buffer_new_with (saxpy->x, sizeof saxpy->x);
  saxpy->y_buffer = buffer_new_with (saxpy->y, sizeof saxpy->y);
  return saxpy;
}

static void
saxpy_free (Saxpy *saxpy)
{
  g_object_unref (saxpy->kernel);
  cugi_launch_config_unref (saxpy->config);
  g_object_unref (saxpy->x_buffer);
  g_object_unref (saxpy->y_buffer);
  g_free (saxpy);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Saxpy, saxpy_free)

/* y holds a·x + y after @times launches of saxpy with @a. */
static void
saxpy_check (Saxpy *saxpy,
             float  a,
             guint  times)
{
  g_autoptr(GBytes) result = cugi_test_download (saxpy->y_buffer, 0, sizeof saxpy->y);
  const float *y = g_bytes_get_data (result, NULL);

  for (guint i = 0; i < N_ELEMENTS; i++)
    {
      float expected = saxpy->y[i] + times * a * saxpy->x[i];
      if (y[i] != expected)
        g_error ("y[%u] is %g, expected %g", i, y[i], expected);
    }
}

static CugiKernelArgs *
saxpy_args (Saxpy *saxpy,
            float  a)
{
  CugiKernelArgs *args = cugi_kernel_args_new ();

  cugi_kernel_args_add_float (args, a);
  cugi_kernel_args_add_buffer (args, saxpy->x_buffer);
  cugi_kernel_args_add_buffer (args, saxpy->y_buffer);
  cugi_kernel_args_add_uint32 (args, N_ELEMENTS);
  return args;
}

static void
test_launch (void)
{
  g_autoptr(Saxpy) saxpy = saxpy_new ();
  g_autoptr(CugiKernelArgs) args = saxpy_args (saxpy, 2.0f);
  g_autoptr(GError) error = NULL;

  g_assert_true (cugi_kernel_launch (saxpy->kernel, saxpy->config, args, &error));
  g_assert_no_error (error);
  saxpy_check (saxpy, 2.0f, 1);

  /* The same arguments again: the list is reusable. */
  g_assert_true (cugi_kernel_launch (saxpy->kernel, saxpy->config, args, &error));
  g_assert_no_error (error);
  saxpy_check (saxpy, 2.0f, 2);
}

static void
test_launch_values (void)
{
  g_autoptr(CugiKernel) scale = cugi_test_kernel_new (scale_source, "scale<float>");
  g_autoptr(Saxpy) saxpy = saxpy_new ();
  g_autoptr(GError) error = NULL;
  GValue values[4] = { G_VALUE_INIT, G_VALUE_INIT, G_VALUE_INIT, G_VALUE_INIT };
  g_autoptr(GBytes) result = NULL;
  const float *y;

  /* What Python passes: a double for the float, an int64 for the count. */
  g_value_init (&values[0], G_TYPE_DOUBLE);
  g_value_set_double (&values[0], 4.0);
  g_value_init (&values[1], CUGI_TYPE_BUFFER);
  g_value_set_object (&values[1], saxpy->x_buffer);
  g_value_init (&values[2], CUGI_TYPE_BUFFER);
  g_value_set_object (&values[2], saxpy->y_buffer);
  g_value_init (&values[3], G_TYPE_INT64);
  g_value_set_int64 (&values[3], N_ELEMENTS);
  g_assert_true (cugi_kernel_launch_values (saxpy->kernel, saxpy->config, values, 4, &error));
  g_assert_no_error (error);
  saxpy_check (saxpy, 4.0f, 1);

  /* Too few values. */
  g_assert_false (cugi_kernel_launch_values (scale, saxpy->config, values, 1, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "takes 3 parameters");

  /* saxpy is extern "C": its unsigned n is known by its size alone, and a
   * whole double beyond 32 bits (what GJS makes of 5000000000) may be an
   * integer as well as a real. */
  g_value_unset (&values[3]);
  g_value_init (&values[3], G_TYPE_DOUBLE);
  g_value_set_double (&values[3], 5000000000.0);
  g_assert_false (cugi_kernel_launch_values (saxpy->kernel, saxpy->config, values, 4, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "cugi_kernel_args_add_int64()");

  /* A GValue that holds nothing. */
  g_value_unset (&values[3]);
  g_assert_false (cugi_kernel_launch_values (saxpy->kernel, saxpy->config, values, 4, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "argument 3 has no value");

  /* A C++ kernel converts by its parameter types: the double becomes the
   * float T, the int64 the int. y becomes 0.5 · (y + 4x). */
  {
    GValue scale_values[3] = { G_VALUE_INIT, G_VALUE_INIT, G_VALUE_INIT };

    g_value_init (&scale_values[0], CUGI_TYPE_BUFFER);
    g_value_set_object (&scale_values[0], saxpy->y_buffer);
    g_value_init (&scale_values[1], G_TYPE_DOUBLE);
    g_value_set_double (&scale_values[1], 0.5);
    g_value_init (&scale_values[2], G_TYPE_INT64);
    g_value_set_int64 (&scale_values[2], N_ELEMENTS);
    g_assert_true (cugi_kernel_launch_values (scale, saxpy->config, scale_values, 3, &error));
    g_assert_no_error (error);

    /* An integer that the int parameter cannot hold. */
    g_value_set_int64 (&scale_values[2], G_GINT64_CONSTANT (1) << 40);
    g_assert_false (cugi_kernel_launch_values (scale, saxpy->config, scale_values, 3, &error));
    g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT);
    g_assert_nonnull (strstr (error->message, "parameter 2 (int)"));
    cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "out of range");

    /* A float for the int parameter. */
    g_value_unset (&scale_values[2]);
    g_value_init (&scale_values[2], G_TYPE_DOUBLE);
    g_value_set_double (&scale_values[2], 3.0);
    g_assert_false (cugi_kernel_launch_values (scale, saxpy->config, scale_values, 3, &error));
    cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "parameter 2 (int)");

    for (guint i = 0; i < 3; i++)
      g_value_unset (&scale_values[i]);
  }

  result = cugi_test_download (saxpy->y_buffer, 0, sizeof saxpy->y);
  y = g_bytes_get_data (result, NULL);
  for (guint i = 0; i < N_ELEMENTS; i++)
    {
      float expected = 0.5f * (saxpy->y[i] + 4.0f * saxpy->x[i]);
      if (y[i] != expected)
        g_error ("y[%u] is %g, expected %g", i, y[i], expected);
    }

  for (guint i = 0; i < 4; i++)
    g_value_unset (&values[i]);
}

/* A buffer of another context of the same device is refused, as a stream
 * of another context is: the kernel's context cannot reach its memory. */
static void
test_buffer_of_another_context (void)
{
  g_autoptr(Saxpy) saxpy = saxpy_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiDevice) device = cugi_device_get_default (&error);
  g_autoptr(CugiContext) other = NULL;
  g_autoptr(CugiBuffer) foreign = NULL;
  g_autoptr(CugiKernelArgs) args = cugi_kernel_args_new ();

  g_assert_no_error (error);
  other = cugi_context_new (device, 0, &error);
  g_assert_no_error (error);
  foreign = cugi_buffer_new (other, sizeof saxpy->y, &error);
  g_assert_no_error (error);
  cugi_kernel_args_add_float (args, 2.0f);
  cugi_kernel_args_add_buffer (args, saxpy->x_buffer);
  cugi_kernel_args_add_buffer (args, foreign);
  cugi_kernel_args_add_uint32 (args, N_ELEMENTS);
  g_assert_false (cugi_kernel_launch (saxpy->kernel, saxpy->config, args, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_CONTEXT, "argument 2");
}

static void
test_launch_with (void)
{
  g_autoptr(Saxpy) saxpy = saxpy_new ();
  g_autoptr(CugiStream) stream = NULL;
  g_autoptr(GError) error = NULL;

  /* On a stream of its own this time. */
  stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  cugi_launch_config_set_stream (saxpy->config, stream);
  g_assert_true (cugi_kernel_launch_with (saxpy->kernel, saxpy->config, &error,
                                          CUGI_ARG_FLOAT, 3.0,
                                          CUGI_ARG_BUFFER, saxpy->x_buffer,
                                          CUGI_ARG_BUFFER, saxpy->y_buffer,
                                          CUGI_ARG_UINT32, (guint32) N_ELEMENTS,
                                          CUGI_ARG_END));
  g_assert_no_error (error);
  cugi_test_synchronize (stream);
  saxpy_check (saxpy, 3.0f, 1);

  /* A wrong count is refused before anything runs. */
  g_assert_false (cugi_kernel_launch_with (saxpy->kernel, saxpy->config, &error,
                                           CUGI_ARG_FLOAT, 3.0,
                                           CUGI_ARG_BUFFER, saxpy->x_buffer,
                                           CUGI_ARG_END));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "takes 4 parameters");
  g_assert_true (cugi_stream_synchronize (stream, &error));
  saxpy_check (saxpy, 3.0f, 1);
}

static void
test_mismatches (void)
{
  g_autoptr(CugiKernel) scale = cugi_test_kernel_new (scale_source, "scale<float>");
  g_autoptr(Saxpy) saxpy = saxpy_new ();
  g_autoptr(CugiKernelArgs) args = cugi_kernel_args_new ();
  g_autoptr(CugiBuffer) freed = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (cugi_kernel_get_num_params (saxpy->kernel), ==, 4);
  g_assert_cmpint (cugi_kernel_get_num_params (scale), ==, 3);

  /* Too few arguments. */
  cugi_kernel_args_add_float (args, 1.0f);
  cugi_kernel_args_add_buffer (args, saxpy->x_buffer);
  cugi_kernel_args_add_buffer (args, saxpy->y_buffer);
  assert_launch_refused (saxpy->kernel, saxpy->config, args, CUGI_ERROR_INVALID_ARGUMENT,
                         "takes 4 parameters, but 3 arguments");

  /* An extern "C" kernel checks sizes: a double is not the 4-byte float. */
  cugi_kernel_args_clear (args);
  cugi_kernel_args_add_double (args, 1.0);
  cugi_kernel_args_add_buffer (args, saxpy->x_buffer);
  cugi_kernel_args_add_buffer (args, saxpy->y_buffer);
  cugi_kernel_args_add_uint32 (args, N_ELEMENTS);
  assert_launch_refused (saxpy->kernel, saxpy->config, args, CUGI_ERROR_INVALID_ARGUMENT, "parameter 0");

  /* A C++ kernel checks types: a float where the int n is expected... */
  cugi_kernel_args_clear (args);
  cugi_kernel_args_add_buffer (args, saxpy->y_buffer);
  cugi_kernel_args_add_float (args, 2.0f);
  cugi_kernel_args_add_float (args, 100.0f);
  assert_launch_refused (scale, saxpy->config, args, CUGI_ERROR_INVALID_ARGUMENT, "parameter 2 (int)");

  /* ... a scalar where the pointer is expected (both 8 bytes)... */
  cugi_kernel_args_clear (args);
  cugi_kernel_args_add_int64 (args, 4096);
  cugi_kernel_args_add_float (args, 2.0f);
  cugi_kernel_args_add_int32 (args, N_ELEMENTS);
  assert_launch_refused (scale, saxpy->config, args, CUGI_ERROR_INVALID_ARGUMENT, "parameter 0 (float *)");

  /* ... and a buffer where the float is expected. */
  cugi_kernel_args_clear (args);
  cugi_kernel_args_add_buffer (args, saxpy->y_buffer);
  cugi_kernel_args_add_buffer (args, saxpy->x_buffer);
  cugi_kernel_args_add_int32 (args, N_ELEMENTS);
  g_assert_false (cugi_kernel_launch (scale, saxpy->config, args, &error));
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "parameter 1 (float)"));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "CugiBuffer");

  /* A buffer freed before the launch. */
  freed = buffer_new_with (saxpy->x, sizeof saxpy->x);
  g_assert_true (cugi_buffer_free (freed, &error));
  g_assert_no_error (error);
  cugi_kernel_args_clear (args);
  cugi_kernel_args_add_float (args, 1.0f);
  cugi_kernel_args_add_buffer (args, freed);
  cugi_kernel_args_add_buffer (args, saxpy->y_buffer);
  cugi_kernel_args_add_uint32 (args, N_ELEMENTS);
  assert_launch_refused (saxpy->kernel, saxpy->config, args, CUGI_ERROR_INVALID_STATE, "argument 1");

  /* Nothing ran: y is as it was. */
  saxpy_check (saxpy, 0.0f, 0);
}

static void
test_bad_configs (void)
{
  g_autoptr(Saxpy) saxpy = saxpy_new ();
  g_autoptr(CugiKernelArgs) args = saxpy_args (saxpy, 1.0f);
  g_autoptr(CugiLaunchConfig) zero = cugi_launch_config_new (0, BLOCK);
  g_autoptr(CugiLaunchConfig) big_block = cugi_launch_config_new (1, 2048);
  g_autoptr(CugiLaunchConfig) zero_block_y = cugi_launch_config_new (1, 32);
  g_autoptr(CugiLaunchConfig) big_grid = cugi_launch_config_new (1, 32);
  g_autoptr(CugiLaunchConfig) big_shared = saxpy_config ();

  assert_launch_refused (saxpy->kernel, zero, args, CUGI_ERROR_INVALID_ARGUMENT, "at least 1");
  assert_launch_refused (saxpy->kernel, big_block, args, CUGI_ERROR_INVALID_ARGUMENT, "2048");
  cugi_launch_config_set_block (zero_block_y, 32, 0, 1);
  assert_launch_refused (saxpy->kernel, zero_block_y, args, CUGI_ERROR_INVALID_ARGUMENT, "at least 1");
  cugi_launch_config_set_grid (big_grid, 1, 70000, 1);
  assert_launch_refused (saxpy->kernel, big_grid, args, CUGI_ERROR_INVALID_ARGUMENT, "70000");
  /* 100 KiB of dynamic shared memory: over the 48 KiB a kernel has unless
   * it opts in to more. */
  cugi_launch_config_set_shared_memory (big_shared, 100 * 1024);
  assert_launch_refused (saxpy->kernel, big_shared, args, CUGI_ERROR_INVALID_ARGUMENT, "shared memory");

  /* None of them ran. */
  saxpy_check (saxpy, 0.0f, 0);
}

static void
test_attributes (void)
{
  g_autoptr(CugiKernel) kernel = cugi_test_kernel_new (saxpy_source, "saxpy");
  g_autoptr(CugiKernel) scale = cugi_test_kernel_new (scale_source, "scale<float>");
  g_autoptr(CugiDevice) device = NULL;
  g_autoptr(CugiModule) module = NULL;
  g_autofree char *name = NULL;
  g_autofree char *mangled = NULL;
  g_autoptr(GError) error = NULL;
  gint max_threads = 0, num_regs = 0, ptx = 0, binary = 0, shared = -1, local = -1, num_params = 0;
  gint major = 0, minor = 0;

  g_object_get (kernel,
                "max-threads-per-block", &max_threads,
                "num-regs", &num_regs,
                "ptx-version", &ptx,
                "binary-version", &binary,
                "shared-size-bytes", &shared,
                "local-size-bytes", &local,
                "num-params", &num_params,
                "name", &name,
                "mangled-name", &mangled,
                "module", &module,
                NULL);
  g_assert_cmpint (max_threads, >, 0);
  g_assert_cmpint (max_threads, <=, 1024);
  g_assert_cmpint (num_regs, >, 0);
  g_assert_cmpint (ptx, >, 0);
  g_assert_cmpint (shared, ==, 0);
  g_assert_cmpint (local, >=, 0);
  g_assert_cmpint (num_params, ==, 4);
  g_assert_cmpstr (name, ==, "saxpy");
  g_assert_cmpstr (mangled, ==, "saxpy");
  g_assert_true (module == cugi_kernel_get_module (kernel));

  /* The binary is for this device. */
  device = cugi_device_get_default (&error);
  g_assert_no_error (error);
  cugi_device_get_compute_capability (device, &major, &minor);
  g_assert_cmpint (binary, ==, major * 10 + minor);

  /* The properties are the driver's answers. */
  g_assert_cmpint (cugi_kernel_get_attribute (kernel, CUGI_FUNCTION_ATTRIBUTE_NUM_REGS, &error), ==, num_regs);
  g_assert_no_error (error);
  g_assert_cmpint (cugi_kernel_get_attribute (kernel, (CugiFunctionAttribute) 999, &error), ==, -1);
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, NULL);

  g_assert_true (cugi_kernel_set_cache_config (kernel, CUGI_CACHE_CONFIG_PREFER_SHARED, &error));
  g_assert_no_error (error);

  /* A C++ kernel by name expression: its symbol is mangled. */
  g_assert_cmpstr (cugi_kernel_get_name (scale), ==, "scale<float>");
  g_assert_true (g_str_has_prefix (cugi_kernel_get_mangled_name (scale), "_Z5scaleIfE"));
}

/* 64 KiB of dynamic shared memory, once the kernel opts in. */
static void
test_large_shared_memory (void)
{
  const guint n = 16384;
  const guint bytes = n * sizeof (float);
  g_autoptr(CugiKernel) kernel = cugi_test_kernel_new (shared_source, "reverse_through_shared");
  g_autoptr(CugiLaunchConfig) config = cugi_launch_config_new (1, 256);
  g_autoptr(CugiKernelArgs) args = cugi_kernel_args_new ();
  g_autoptr(CugiBuffer) out = NULL;
  g_autoptr(GBytes) result = NULL;
  g_autoptr(GError) error = NULL;
  const float *values;
  guint notified = 0;
  gint allowed = 0;

  out = cugi_test_buffer_new (bytes);
  cugi_kernel_args_add_buffer (args, out);
  cugi_kernel_args_add_uint32 (args, n);
  cugi_launch_config_set_shared_memory (config, bytes);

  assert_launch_refused (kernel, config, args, CUGI_ERROR_INVALID_ARGUMENT, "dynamic shared memory");

  g_signal_connect (kernel, "notify::max-dynamic-shared-size-bytes", G_CALLBACK (cugi_test_count_notify), &notified);
  g_assert_true (cugi_kernel_set_attribute (kernel, CUGI_FUNCTION_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                            bytes, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (notified, ==, 1);
  g_object_get (kernel, "max-dynamic-shared-size-bytes", &allowed, NULL);
  g_assert_cmpint (allowed, ==, bytes);

  g_assert_true (cugi_kernel_launch (kernel, config, args, &error));
  g_assert_no_error (error);
  result = cugi_test_download (out, 0, bytes);
  values = g_bytes_get_data (result, NULL);
  for (guint i = 0; i < n; i++)
    g_assert_cmpfloat (values[i], ==, (n - 1 - i) * 0.5f);

  /* Lowered again, the limit refuses the configuration it let through. */
  g_assert_true (cugi_kernel_set_attribute (kernel, CUGI_FUNCTION_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                            bytes / 2, &error));
  g_assert_no_error (error);
  assert_launch_refused (kernel, config, args, CUGI_ERROR_INVALID_ARGUMENT, "dynamic shared memory");
}

static void
test_cooperative (void)
{
  const guint blocks = 8;
  const int zeros[8] = { 0 };
  g_autoptr(CugiKernel) kernel = cugi_test_kernel_new (gather_source, "gather");
  g_autoptr(CugiLaunchConfig) config = cugi_launch_config_new (blocks, 32);
  g_autoptr(CugiKernelArgs) args = cugi_kernel_args_new ();
  g_autoptr(CugiBuffer) values = buffer_new_with (zeros, sizeof zeros);
  g_autoptr(CugiBuffer) arrived = buffer_new_with (zeros, sizeof (guint));
  g_autoptr(CugiBuffer) out = buffer_new_with (zeros, sizeof (int));
  g_autoptr(GBytes) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiDevice) device = cugi_device_get_default (&error);
  gint per_sm;

  g_assert_no_error (error);
  /* The grid must fit on the device at once. */
  per_sm = cugi_kernel_get_max_active_blocks_per_multiprocessor (kernel, 32, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpint ((gint64) per_sm * cugi_device_get_multiprocessor_count (device), >=, blocks);

  cugi_kernel_args_add_buffer (args, values);
  cugi_kernel_args_add_buffer (args, arrived);
  cugi_kernel_args_add_buffer (args, out);
  cugi_launch_config_set_cooperative (config, TRUE);
  g_assert_true (cugi_kernel_launch (kernel, config, args, &error));
  g_assert_no_error (error);

  result = cugi_test_download (out, 0, sizeof (int));
  g_assert_cmpint (*(const int *) g_bytes_get_data (result, NULL), ==, blocks * (blocks + 1) / 2);
}

static void
test_cluster (void)
{
  const guint blocks = 4;
  const guint zeros[4] = { 0 };
  g_autoptr(CugiDevice) device = NULL;
  g_autoptr(CugiKernel) kernel = NULL;
  g_autoptr(CugiLaunchConfig) config = cugi_launch_config_new (blocks, 32);
  g_autoptr(CugiLaunchConfig) uneven = cugi_launch_config_new (3, 32);
  g_autoptr(CugiKernelArgs) args = cugi_kernel_args_new ();
  g_autoptr(CugiBuffer) out = NULL;
  g_autoptr(GBytes) result = NULL;
  g_autoptr(GError) error = NULL;
  const guint *ranks;
  gint major = 0, minor = 0;

  device = cugi_device_get_default (&error);
  g_assert_no_error (error);
  cugi_device_get_compute_capability (device, &major, &minor);
  if (major < 9)
    {
      g_autoptr(Saxpy) saxpy = saxpy_new ();
      g_autoptr(CugiKernelArgs) saxpy_arguments = saxpy_args (saxpy, 1.0f);

      cugi_launch_config_set_cluster (config, 2, 1, 1);
      g_assert_false (cugi_kernel_launch (saxpy->kernel, config, saxpy_arguments, &error));
      g_assert_error (error, CUGI_ERROR, CUGI_ERROR_NOT_SUPPORTED);
      g_test_skip ("clusters need compute capability 9.0");
      return;
    }

  kernel = cugi_test_kernel_new (cluster_source, "cluster_rank");
  out = buffer_new_with (zeros, sizeof zeros);
  cugi_kernel_args_add_buffer (args, out);

  /* Without clusters, each block is a cluster of one. */
  g_assert_true (cugi_kernel_launch (kernel, config, args, &error));
  g_assert_no_error (error);
  result = cugi_test_download (out, 0, sizeof zeros);
  ranks = g_bytes_get_data (result, NULL);
  for (guint i = 0; i < blocks; i++)
    g_assert_cmpuint (ranks[i], ==, 100);
  g_clear_pointer (&result, g_bytes_unref);

  /* Clusters of two: sizes 2, ranks 0 and 1. */
  cugi_launch_config_set_cluster (config, 2, 1, 1);
  g_assert_true (cugi_kernel_launch (kernel, config, args, &error));
  g_assert_no_error (error);
  result = cugi_test_download (out, 0, sizeof zeros);
  ranks = g_bytes_get_data (result, NULL);
  for (guint i = 0; i < blocks; i++)
    g_assert_cmpuint (ranks[i], ==, 200 + i % 2);

  /* A grid that is not a whole number of clusters. */
  cugi_launch_config_set_cluster (uneven, 2, 1, 1);
  assert_launch_refused (kernel, uneven, args, CUGI_ERROR_INVALID_ARGUMENT, "clusters");
}

/* The in-process cache: the same source and name load one module. */
static void
test_same_module (void)
{
  g_autoptr(CugiKernel) first = cugi_test_kernel_new (saxpy_source, "saxpy");
  g_autoptr(CugiKernel) second = cugi_test_kernel_new (saxpy_source, "saxpy");

  g_assert_true (cugi_kernel_get_module (first) == cugi_kernel_get_module (second));
  g_assert_true (cugi_kernel_get_function (first) == cugi_kernel_get_function (second));
}

/* The documented recovery from a fault, in a process of its own so that
 * the other tests keep a healthy context. */
/* A kernel fault is sticky for the whole process, as CUDA documents: the
 * recovery is a new process. The faulting work runs in a child, which sees
 * LAUNCH_FAILED at the next synchronization, a reset that refuses with the
 * reason, and errors (not crashes) afterwards; then this process, untouched
 * by the fault, runs the same work right. */
static void
test_fault_recovery (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiContext) context = cugi_test_default_context ();
  g_autoptr(CugiLaunchConfig) config = NULL;
  g_autoptr(CugiKernelArgs) args = NULL;
  g_autoptr(Saxpy) saxpy = NULL;

  if (cugi_test_in_subprocess (0))
    {
      g_autoptr(CugiKernel) fault = cugi_test_kernel_new (fault_source, "fault");

      config = cugi_launch_config_new (1, 1);
      args = cugi_kernel_args_new ();
      cugi_kernel_args_add_pointer (args, 8);

      /* The launch is enqueued; the fault shows at the next synchronization. */
      g_assert_true (cugi_kernel_launch (fault, config, args, &error));
      g_assert_no_error (error);
      g_assert_false (cugi_context_synchronize (context, &error));
      cugi_test_assert_error (&error, CUGI_ERROR_LAUNCH_FAILED, NULL);

      g_assert_false (cugi_context_reset (context, &error));
      cugi_test_assert_error (&error, CUGI_ERROR_LAUNCH_FAILED, "Restart the process");

      /* Everything after it fails cleanly. */
      g_assert_false (cugi_kernel_launch (fault, config, args, &error));
      g_assert_nonnull (error);
      g_clear_error (&error);
      g_assert_false (cugi_context_synchronize (context, &error));
      g_assert_nonnull (error);
      return;
    }

  saxpy = saxpy_new ();
  args = saxpy_args (saxpy, 2.0f);
  g_assert_true (cugi_kernel_launch (saxpy->kernel, saxpy->config, args, &error));
  g_assert_no_error (error);
  g_assert_true (cugi_context_synchronize (context, &error));
  g_assert_no_error (error);
  saxpy_check (saxpy, 2.0f, 1);
}

/* The model agrees with the driver, block size by block size. */
static void
test_occupancy (void)
{
  const char *names[] = { "heavy", "staged" };
  const guint block_sizes[] = { 32, 64, 96, 100, 128, 192, 256, 320, 384, 512, 640, 768, 1000, 1024 };
  const guint shared_sizes[] = { 0, 1000, 8192, 30000, 45000 };
  g_autoptr(GPtrArray) kernels = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GError) error = NULL;
  guint compared = 0;

  g_ptr_array_add (kernels, cugi_test_kernel_new (saxpy_source, "saxpy"));
  g_ptr_array_add (kernels, cugi_test_kernel_new (scale_source, "scale<double>"));
  g_ptr_array_add (kernels, cugi_test_kernel_new (shared_source, "reverse_through_shared"));
  for (gsize i = 0; i < G_N_ELEMENTS (names); i++)
    g_ptr_array_add (kernels, cugi_test_kernel_new (occupancy_source, names[i]));

  for (guint k = 0; k < kernels->len; k++)
    {
      CugiKernel *kernel = g_ptr_array_index (kernels, k);
      gint max_threads = 0, max_shared = 0, regs = 0, min_grid = 0, suggested;

      g_object_get (kernel, "max-threads-per-block", &max_threads,
                    "max-dynamic-shared-size-bytes", &max_shared, "num-regs", &regs, NULL);
      suggested = cugi_kernel_suggest_block_size (kernel, 0, &min_grid, &error);
      g_assert_no_error (error);
      g_assert_cmpint (suggested, >, 0);
      g_assert_cmpint (suggested, <=, max_threads);
      g_assert_cmpint (min_grid, >, 0);

      for (gsize b = 0; b < G_N_ELEMENTS (block_sizes); b++)
        for (gsize s = 0; s < G_N_ELEMENTS (shared_sizes); s++)
          {
            g_autoptr(CugiOccupancy) occupancy = NULL;
            guint threads = block_sizes[b];
            gint driver;

            if (threads > (guint) max_threads || shared_sizes[s] > (guint) max_shared)
              continue;
            driver = cugi_kernel_get_max_active_blocks_per_multiprocessor (kernel, threads, shared_sizes[s], &error);
            g_assert_no_error (error);
            occupancy = cugi_occupancy_new_for_kernel (kernel, threads, shared_sizes[s], &error);
            g_assert_no_error (error);
            if (cugi_occupancy_get_blocks_per_multiprocessor (occupancy) != (guint) driver)
              g_error ("%s (%d registers), %u threads, %u bytes of shared memory: the model says %u blocks "
                       "(limited by %d), the driver %d",
                       cugi_kernel_get_name (kernel), regs, threads, shared_sizes[s],
                       cugi_occupancy_get_blocks_per_multiprocessor (occupancy),
                       cugi_occupancy_get_limited_by (occupancy), driver);
            g_assert_cmpuint (cugi_occupancy_get_threads_per_block (occupancy), ==, threads);
            g_assert_cmpuint (cugi_occupancy_get_warps_per_multiprocessor (occupancy), ==,
                              (guint) driver * ((threads + 31) / 32));
            g_assert_cmpfloat (cugi_occupancy_get_occupancy (occupancy), >=, 0.0);
            g_assert_cmpfloat (cugi_occupancy_get_occupancy (occupancy), <=, 1.0);
            compared++;
          }
    }
  g_test_message ("the model and the driver agree on %u configurations", compared);
  g_assert_cmpuint (compared, >, 100);

  /* A block too large for the kernel fits nowhere. */
  {
    g_autoptr(CugiOccupancy) too_big = cugi_occupancy_new_for_kernel (g_ptr_array_index (kernels, 0), 2048, 0, &error);

    g_assert_no_error (error);
    g_assert_cmpuint (cugi_occupancy_get_blocks_per_multiprocessor (too_big), ==, 0);
    g_assert_cmpint (cugi_occupancy_get_limited_by (too_big), ==, CUGI_OCCUPANCY_LIMIT_WARPS);
  }
}

int
main (int   argc,
      char *argv[])
{
  cugi_test_init (&argc, &argv);
  cugi_test_require_gpu ();

  g_test_add_func ("/kernel/launch", test_launch);
  g_test_add_func ("/kernel/launch-values", test_launch_values);
  g_test_add_func ("/kernel/buffer-of-another-context", test_buffer_of_another_context);
  g_test_add_func ("/kernel/launch-with", test_launch_with);
  g_test_add_func ("/kernel/mismatches", test_mismatches);
  g_test_add_func ("/kernel/bad-configs", test_bad_configs);
  g_test_add_func ("/kernel/attributes", test_attributes);
  g_test_add_func ("/kernel/large-shared-memory", test_large_shared_memory);
  g_test_add_func ("/kernel/cooperative", test_cooperative);
  g_test_add_func ("/kernel/cluster", test_cluster);
  g_test_add_func ("/kernel/same-module", test_same_module);
  g_test_add_func ("/kernel/fault-recovery", test_fault_recovery);
  g_test_add_func ("/kernel/occupancy", test_occupancy);

  return g_test_run ();
}
