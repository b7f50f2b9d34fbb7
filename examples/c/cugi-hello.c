/* cugi-hello: the main job. Prints the device report, compiles a SAXPY kernel
 * with NVRTC for the GPU's architecture (sm_90 when there is no GPU, so the
 * compile step runs everywhere) and, where a GPU is, launches it over 2^20
 * elements and checks the result on the host.
 *
 * Exit status: 0 on success, with or without a GPU; 1 on a real failure. */
#include <cugi/cugi.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define N_ELEMENTS (1u << 20)
#define BLOCK_SIZE 256u
#define SAXPY_A    2.5f

/* Without a GPU, the compile step targets this architecture (Hopper). */
#define FALLBACK_MAJOR 9
#define FALLBACK_MINOR 0

static const char saxpy_source[] =
  "extern \"C\" __global__ void saxpy (float a, const float *x, float *y, unsigned int n)\n"
  "{\n"
  "  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (i < n)\n"
  "    y[i] = a * x[i] + y[i];\n"
  "}\n";

static void
print_version (const char *what,
               gint        version)
{
  g_print ("%s: CUDA %d.%d\n", what, version / 1000, (version % 1000) / 10);
}

/* The device report. FALSE with @error set when no GPU can be used. */
static gboolean
report_devices (GError **error)
{
  gint driver_version = cugi_get_driver_version (error);
  g_autoptr(GError) list_error = NULL;
  GList *devices;

  if (driver_version == 0)
    return FALSE;
  print_version ("Driver", driver_version);

  devices = cugi_device_list (&list_error);
  if (list_error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&list_error));
      return FALSE;
    }
  for (GList *l = devices; l != NULL; l = l->next)
    {
      CugiDevice *device = l->data;
      gint major, minor;

      cugi_device_get_compute_capability (device, &major, &minor);
      g_print ("  %-7s %s, sm_%d%d, %.1f GiB, %d SMs, PCI %s\n",
               cugi_device_get_alias (device),
               cugi_device_get_name (device),
               major, minor,
               cugi_device_get_total_memory (device) / (double) (1 << 30),
               cugi_device_get_multiprocessor_count (device),
               cugi_device_get_pci_bus_id (device));
    }
  g_list_free_full (devices, g_object_unref);
  return TRUE;
}

static gsize
bytes_size (GBytes *bytes)
{
  return bytes != NULL ? g_bytes_get_size (bytes) : 0;
}

/* Compiles SAXPY for @major.@minor with NVRTC and says what came out. */
static gboolean
compile_saxpy (gint     major,
               gint     minor,
               GError **error)
{
  g_autoptr(CugiProgram) program = cugi_program_new (saxpy_source, "saxpy.cu");
  gint64 start = g_get_monotonic_time ();
  g_autoptr(GBytes) ptx = NULL;
  g_autoptr(GBytes) cubin = NULL;

  if (!cugi_program_compile_for_arch (program, major, minor, NULL, error))
    return FALSE;
  ptx = cugi_program_get_ptx (program);
  cubin = cugi_program_get_cubin (program);
  g_print ("Compiled saxpy.cu for sm_%d%d: PTX %" G_GSIZE_FORMAT " bytes, "
           "CUBIN %" G_GSIZE_FORMAT " bytes, %.1f ms\n",
           major, minor, bytes_size (ptx), bytes_size (cubin),
           (g_get_monotonic_time () - start) / 1000.0);
  return TRUE;
}

static CugiBuffer *
buffer_new_from_floats (const float *values,
                        gsize        n_values,
                        GError     **error)
{
  gsize size = n_values * sizeof (float);
  g_autoptr(CugiBuffer) buffer = cugi_buffer_new (NULL, size, error);

  if (buffer == NULL || !cugi_buffer_upload (buffer, 0, (const guint8 *) values, size, error))
    return NULL;
  return g_steal_pointer (&buffer);
}

/* Launches SAXPY on the default device and checks y = a·x + y on the host. */
static gboolean
run_saxpy (CugiDevice *device,
           GError    **error)
{
  g_autofree float *x = g_new (float, N_ELEMENTS);
  g_autofree float *y = g_new (float, N_ELEMENTS);
  g_autoptr(CugiKernel) kernel = NULL;
  g_autoptr(CugiBuffer) x_dev = NULL;
  g_autoptr(CugiBuffer) y_dev = NULL;
  g_autoptr(CugiLaunchConfig) config = NULL;
  g_autoptr(CugiKernelArgs) args = NULL;
  g_autoptr(GBytes) result = NULL;
  const float *out;

  for (guint i = 0; i < N_ELEMENTS; i++)
    {
      x[i] = (float) (i % 1000) / 8.0f;
      y[i] = (float) (i % 7) - 3.0f;
    }

  kernel = cugi_kernel_new_from_source (NULL, saxpy_source, "saxpy", NULL, error);
  if (kernel == NULL)
    return FALSE;
  x_dev = buffer_new_from_floats (x, N_ELEMENTS, error);
  if (x_dev == NULL)
    return FALSE;
  y_dev = buffer_new_from_floats (y, N_ELEMENTS, error);
  if (y_dev == NULL)
    return FALSE;

  config = cugi_launch_config_new ((N_ELEMENTS + BLOCK_SIZE - 1) / BLOCK_SIZE, BLOCK_SIZE);
  args = cugi_kernel_args_new ();
  cugi_kernel_args_add_float (args, SAXPY_A);
  cugi_kernel_args_add_buffer (args, x_dev);
  cugi_kernel_args_add_buffer (args, y_dev);
  cugi_kernel_args_add_uint32 (args, N_ELEMENTS);
  if (!cugi_kernel_launch (kernel, config, args, error))
    return FALSE;

  /* The download waits for the launch: both are on the default stream. */
  result = cugi_buffer_download (y_dev, 0, N_ELEMENTS * sizeof (float), error);
  if (result == NULL)
    return FALSE;
  out = g_bytes_get_data (result, NULL);
  for (guint i = 0; i < N_ELEMENTS; i++)
    {
      float expected = SAXPY_A * x[i] + y[i];

      if (fabsf (out[i] - expected) > 1e-5f * fabsf (expected) + 1e-6f)
        {
          g_set_error (error, CUGI_ERROR, CUGI_ERROR_FAILED,
                       "saxpy: y[%u] is %g, expected %g", i, out[i], expected);
          return FALSE;
        }
    }
  g_print ("saxpy on %s: %u elements OK\n", cugi_device_get_name (device), N_ELEMENTS);
  return TRUE;
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) no_gpu = NULL;
  g_autoptr(CugiDevice) device = NULL;
  gint nvrtc_version, major = FALLBACK_MAJOR, minor = FALLBACK_MINOR;

  g_print ("cugi %s\n", cugi_get_version ());
  nvrtc_version = cugi_get_nvrtc_version (&error);
  if (nvrtc_version == 0)
    goto failed;
  print_version ("NVRTC", nvrtc_version);

  if (report_devices (&no_gpu))
    {
      device = cugi_device_get_default (&error);
      if (device == NULL)
        goto failed;
      cugi_device_get_compute_capability (device, &major, &minor);
    }
  else if (g_error_matches (no_gpu, CUGI_ERROR, CUGI_ERROR_NOT_AVAILABLE))
    g_print ("No GPU: %s\n", no_gpu->message);
  else
    {
      g_propagate_error (&error, g_steal_pointer (&no_gpu));
      goto failed;
    }

  if (!compile_saxpy (major, minor, &error))
    goto failed;

  if (device == NULL)
    {
      g_print ("saxpy: compiled only; launching it needs a GPU\n");
      return EXIT_SUCCESS;
    }
  if (!run_saxpy (device, &error))
    goto failed;
  return EXIT_SUCCESS;

failed:
  g_printerr ("cugi-hello: %s\n", error->message);
  return EXIT_FAILURE;
}
