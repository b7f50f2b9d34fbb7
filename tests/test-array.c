/* test-array.c: arrays, textures and surfaces on the GPU: a texture sampled
 * with linear filtering against a CPU reference, a surface written by a
 * kernel, and round trips between host, buffers and arrays in 2D and 3D. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "cugi-test-utils.h"

#define WIDTH 16
#define HEIGHT 8
#define N_SAMPLES 512

/* cudaTextureObject_t and cudaSurfaceObject_t: C++ kernels, so that their
 * parameters are type-checked as unsigned long long. */
static const char sample_source[] =
  "__global__ void sample (cudaTextureObject_t texture, float *out, const float *coords, int n)\n"
  "{\n"
  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (i < n)\n"
  "    out[i] = tex2D<float> (texture, coords[2 * i], coords[2 * i + 1]);\n"
  "}\n";

static const char fill_source[] =
  "__global__ void fill (cudaSurfaceObject_t surface, int width, int height)\n"
  "{\n"
  "  int x = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  int y = blockIdx.y * blockDim.y + threadIdx.y;\n"
  "  if (x < width && y < height)\n"
  "    surf2Dwrite ((float) (y * 1000 + x), surface, x * (int) sizeof (float), y);\n"
  "}\n";

static float
texel (const float *image,
       int          x,
       int          y)
{
  /* Clamp addressing. */
  x = CLAMP (x, 0, WIDTH - 1);
  y = CLAMP (y, 0, HEIGHT - 1);
  return image[y * WIDTH + x];
}

/* What tex2D<float> gives with linear filtering and unnormalized
 * coordinates: texel centres at i + 0.5, weights of the two nearest in
 * each dimension (in exact arithmetic; the hardware keeps 8 bits of
 * fraction). */
static float
bilinear (const float *image,
          float        x,
          float        y)
{
  float xb = x - 0.5f, yb = y - 0.5f;
  int x0 = (int) floorf (xb), y0 = (int) floorf (yb);
  float a = xb - x0, b = yb - y0;

  return (1 - a) * (1 - b) * texel (image, x0, y0) + a * (1 - b) * texel (image, x0 + 1, y0) +
         (1 - a) * b * texel (image, x0, y0 + 1) + a * b * texel (image, x0 + 1, y0 + 1);
}

static GBytes *
sample (CugiKernel  *kernel,
        CugiTexture *texture,
        const float *coords,
        guint        n)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiBuffer) coords_buffer = cugi_test_buffer_new (n * 2 * sizeof (float));
  g_autoptr(CugiBuffer) out = cugi_test_buffer_new (n * sizeof (float));
  g_autoptr(CugiLaunchConfig) config = cugi_launch_config_new ((n + 127) / 128, 128);
  GValue values[4] = { G_VALUE_INIT, G_VALUE_INIT, G_VALUE_INIT, G_VALUE_INIT };

  g_assert_true (cugi_buffer_upload (coords_buffer, 0, (const guint8 *) coords, n * 2 * sizeof (float), &error));
  g_assert_no_error (error);
  /* Through GValues, as bindings pass it: the texture object itself. */
  g_value_init (&values[0], CUGI_TYPE_TEXTURE);
  g_value_set_object (&values[0], texture);
  g_value_init (&values[1], CUGI_TYPE_BUFFER);
  g_value_set_object (&values[1], out);
  g_value_init (&values[2], CUGI_TYPE_BUFFER);
  g_value_set_object (&values[2], coords_buffer);
  g_value_init (&values[3], G_TYPE_INT);
  g_value_set_int (&values[3], (int) n);
  g_assert_true (cugi_kernel_launch_values (kernel, config, values, 4, &error));
  g_assert_no_error (error);
  for (guint i = 0; i < 4; i++)
    g_value_unset (&values[i]);
  cugi_test_synchronize (NULL);
  return cugi_test_download_all (out);
}

/* A 2D float array sampled with linear filtering, clamped, at fractional
 * coordinates in and around it, against the bilinear reference. */
static void
test_texture_linear (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiKernel) kernel = cugi_test_kernel_new (sample_source, "sample");
  g_autoptr(CugiArray) array = cugi_test_array_new (CUGI_ARRAY_FORMAT_FLOAT, 1, WIDTH, HEIGHT, 0, 0);
  g_autoptr(CugiTextureDescription) description = cugi_texture_description_new ();
  g_autoptr(CugiTexture) texture = NULL;
  g_autoptr(GBytes) seen = NULL;
  g_autoptr(GRand) rand = g_rand_new_with_seed (13);
  float image[WIDTH * HEIGHT];
  float coords[N_SAMPLES * 2];
  const float *values;
  double worst = 0;

  for (guint i = 0; i < G_N_ELEMENTS (image); i++)
    image[i] = (float) g_rand_double (rand);
  g_assert_true (cugi_array_upload (array, 0, 0, 0, (const guint8 *) image, sizeof image, WIDTH, HEIGHT, 1,
                                    &error));
  g_assert_no_error (error);

  cugi_texture_description_set_filter_mode (description, CUGI_FILTER_MODE_LINEAR);
  g_assert_true (cugi_texture_description_set_address_mode (description, 0, CUGI_ADDRESS_MODE_CLAMP, NULL));
  g_assert_true (cugi_texture_description_set_address_mode (description, 1, CUGI_ADDRESS_MODE_CLAMP, NULL));
  texture = cugi_texture_new_for_array (array, description, &error);
  g_assert_no_error (error);

  /* Texel centres first, which read the texel exactly, then anywhere from
   * two texels outside to two beyond. */
  for (guint i = 0; i < N_SAMPLES; i++)
    if (i < WIDTH * HEIGHT)
      {
        coords[2 * i] = (i % WIDTH) + 0.5f;
        coords[2 * i + 1] = (i / WIDTH) + 0.5f;
      }
    else
      {
        coords[2 * i] = (float) g_rand_double_range (rand, -2, WIDTH + 2);
        coords[2 * i + 1] = (float) g_rand_double_range (rand, -2, HEIGHT + 2);
      }
  seen = sample (kernel, texture, coords, N_SAMPLES);
  values = g_bytes_get_data (seen, NULL);
  for (guint i = 0; i < N_SAMPLES; i++)
    {
      float expected = bilinear (image, coords[2 * i], coords[2 * i + 1]);

      if (i < WIDTH * HEIGHT)
        g_assert_cmpfloat (values[i], ==, image[i]);
      /* Values in [0, 1); 9-bit weights: within 1e-2. */
      g_assert_cmpfloat_with_epsilon (values[i], expected, 1e-2);
      worst = MAX (worst, fabs (values[i] - expected));
    }
  g_test_message ("largest difference from the bilinear reference: %g", worst);

  /* The texture keeps the array: freed now, it is still read. */
  g_assert_true (cugi_array_free (array, &error));
  g_assert_no_error (error);
  g_clear_pointer (&seen, g_bytes_unref);
  seen = sample (kernel, texture, coords, WIDTH * HEIGHT);
  g_assert_cmpmem (g_bytes_get_data (seen, NULL), sizeof image, image, sizeof image);
}

/* A texture over a pitched buffer, read at texel centres. */
static void
test_texture_of_pitched_buffer (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiKernel) kernel = cugi_test_kernel_new (sample_source, "sample");
  g_autoptr(CugiBuffer) buffer = cugi_buffer_new_pitched (NULL, WIDTH * sizeof (float), HEIGHT, 4, &error);
  g_autoptr(CugiTexture) texture = NULL;
  g_autoptr(GBytes) seen = NULL;
  float image[WIDTH * HEIGHT];
  float coords[WIDTH * HEIGHT * 2];

  g_assert_no_error (error);
  for (guint i = 0; i < G_N_ELEMENTS (image); i++)
    {
      image[i] = i * 0.25f;
      coords[2 * i] = (i % WIDTH) + 0.5f;
      coords[2 * i + 1] = (i / WIDTH) + 0.5f;
    }
  g_assert_true (cugi_buffer_upload_2d (buffer, 0, cugi_buffer_get_pitch (buffer), (const guint8 *) image,
                                        sizeof image, WIDTH * sizeof (float), HEIGHT, &error));
  g_assert_no_error (error);
  texture = cugi_texture_new_for_pitched_buffer (buffer, CUGI_ARRAY_FORMAT_FLOAT, 1, WIDTH, HEIGHT, 0, NULL,
                                                 &error);
  g_assert_no_error (error);
  seen = sample (kernel, texture, coords, WIDTH * HEIGHT);
  g_assert_cmpmem (g_bytes_get_data (seen, NULL), sizeof image, image, sizeof image);
}

/* A kernel writes the array through a surface; a copy brings it back. */
static void
test_surface_write (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiKernel) kernel = cugi_test_kernel_new (fill_source, "fill");
  g_autoptr(CugiArray) array = cugi_test_array_new (CUGI_ARRAY_FORMAT_FLOAT, 1, 40, 20, 0,
                                                    CUGI_ARRAY_FLAGS_SURFACE_LDST);
  g_autoptr(CugiArray) plain = cugi_test_array_new (CUGI_ARRAY_FORMAT_FLOAT, 1, 40, 20, 0, 0);
  g_autoptr(CugiSurface) surface = cugi_surface_new (array, &error);
  g_autoptr(CugiLaunchConfig) config = cugi_launch_config_new_2d (3, 3, 16, 8);
  g_autoptr(CugiKernelArgs) args = cugi_kernel_args_new ();
  g_autoptr(GBytes) back = NULL;
  const float *values;

  g_assert_no_error (error);
  cugi_kernel_args_add_surface (args, surface);
  cugi_kernel_args_add_int32 (args, 40);
  cugi_kernel_args_add_int32 (args, 20);
  g_assert_true (cugi_kernel_launch (kernel, config, args, &error));
  g_assert_no_error (error);
  cugi_test_synchronize (NULL);
  back = cugi_array_download (array, 0, 0, 0, 40, 20, 1, &error);
  g_assert_no_error (error);
  values = g_bytes_get_data (back, NULL);
  for (guint y = 0; y < 20; y++)
    for (guint x = 0; x < 40; x++)
      g_assert_cmpfloat (values[y * 40 + x], ==, y * 1000 + x);

  /* No surface without SURFACE_LDST; a surface goes to no pointer. */
  g_assert_null (cugi_surface_new (plain, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "SURFACE_LDST");
  {
    g_autoptr(CugiKernel) sampler = cugi_test_kernel_new (sample_source, "sample");
    g_autoptr(CugiKernelArgs) wrong = cugi_kernel_args_new ();

    cugi_kernel_args_add_uint64 (wrong, 0);
    cugi_kernel_args_add_surface (wrong, surface);
    cugi_kernel_args_add_pointer (wrong, 0);
    cugi_kernel_args_add_int32 (wrong, 0);
    cugi_test_assert_fails (cugi_kernel_launch (sampler, config, wrong, &error), &error,
                            CUGI_ERROR_INVALID_ARGUMENT, "cannot take a CugiSurface");
  }
}

/* Host -> pitched buffer -> array -> array -> packed buffer -> host, on a
 * stream, in 2D; and a 3D box of two 16-bit channels through an array and
 * a buffer with padded slices. */
static void
test_round_trips (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  g_autoptr(CugiBuffer) pitched = cugi_buffer_new_pitched (NULL, 24 * 4, 10, 4, &error);
  g_autoptr(CugiBuffer) packed = cugi_test_buffer_new (24 * 10 * 4);
  g_autoptr(CugiArray) first = cugi_test_array_new (CUGI_ARRAY_FORMAT_UINT8, 4, 24, 10, 0, 0);
  g_autoptr(CugiArray) second = cugi_test_array_new (CUGI_ARRAY_FORMAT_INT32, 1, 24, 10, 0, 0);
  g_autoptr(CugiArray) volume = cugi_test_array_new (CUGI_ARRAY_FORMAT_UINT16, 2, 7, 5, 3, 0);
  g_autoptr(CugiBuffer) slices = cugi_test_buffer_new (7 * 4 * 6 * 3);
  g_autoptr(GBytes) image = cugi_test_pattern_new (24 * 10 * 4, 1);
  g_autoptr(GBytes) box = cugi_test_pattern_new (7 * 4 * 5 * 3, 2);
  g_autoptr(GBytes) back = NULL;

  g_assert_no_error (error);
  g_assert_true (cugi_buffer_upload_2d (pitched, 0, cugi_buffer_get_pitch (pitched),
                                        g_bytes_get_data (image, NULL), g_bytes_get_size (image), 24 * 4, 10,
                                        &error));
  g_assert_no_error (error);
  g_assert_true (cugi_array_copy_from_buffer (first, 0, 0, 0, pitched, 0, 0, 0, 24, 10, 1, stream, &error));
  g_assert_no_error (error);
  g_assert_true (cugi_array_copy (second, 0, 0, 0, first, 0, 0, 0, 24, 10, 1, stream, &error));
  g_assert_no_error (error);
  g_assert_true (cugi_array_copy_to_buffer (second, 0, 0, 0, packed, 0, 0, 0, 24, 10, 1, stream, &error));
  g_assert_no_error (error);
  cugi_test_synchronize (stream);
  back = cugi_test_download_all (packed);
  cugi_test_assert_bytes_equal (back, image);
  g_clear_pointer (&back, g_bytes_unref);

  /* 3D: uploaded from the host, copied to a buffer whose slices have six
   * rows of which five are used, brought back as a box. */
  g_assert_true (cugi_array_upload (volume, 0, 0, 0, g_bytes_get_data (box, NULL), g_bytes_get_size (box),
                                    7, 5, 3, &error));
  g_assert_no_error (error);
  g_assert_true (cugi_array_copy_to_buffer (volume, 0, 0, 0, slices, 0, 7 * 4, 6, 7, 5, 3, NULL, &error));
  g_assert_no_error (error);
  back = cugi_buffer_download_3d (slices, 0, 7 * 4, 6, 7 * 4, 5, 3, &error);
  g_assert_no_error (error);
  cugi_test_assert_bytes_equal (back, box);
  g_clear_pointer (&back, g_bytes_unref);
  back = cugi_array_download (volume, 0, 0, 0, 7, 5, 3, &error);
  g_assert_no_error (error);
  cugi_test_assert_bytes_equal (back, box);
  g_clear_pointer (&back, g_bytes_unref);

  /* A box inside: element (2, 1, 1), 3 × 2 × 2. */
  back = cugi_array_download (volume, 2, 1, 1, 3, 2, 2, &error);
  g_assert_no_error (error);
  for (guint z = 0; z < 2; z++)
    for (guint y = 0; y < 2; y++)
      g_assert_cmpmem ((const guint8 *) g_bytes_get_data (back, NULL) + (z * 2 + y) * 12, 12,
                       (const guint8 *) g_bytes_get_data (box, NULL) + (((1 + z) * 5 + 1 + y) * 7 + 2) * 4, 12);
}

int
main (int   argc,
      char *argv[])
{
  cugi_test_init (&argc, &argv);
  cugi_test_require_gpu ();

  g_test_add_func ("/array/texture-linear", test_texture_linear);
  g_test_add_func ("/array/texture-of-pitched-buffer", test_texture_of_pitched_buffer);
  g_test_add_func ("/array/surface-write", test_surface_write);
  g_test_add_func ("/array/round-trips", test_round_trips);

  return g_test_run ();
}
