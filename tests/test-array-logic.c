/* test-array-logic.c: arrays, textures and surfaces without a GPU, against
 * the stand-in driver (fake-cuda-streams with fake-cuda-arrays): shapes,
 * regions and their errors, the data copies move, what textures and
 * surfaces are made with, what keeps arrays alive, and textures passed to
 * kernels. */
#include "config.h"

#include <string.h>

#include <gmodule.h>

#include "cugi-context-private.h"
#include "cugi-private.h"
#include "cugi-launch-private.h"
#include "cugi-test-utils.h"

/* The stand-in has no pitched allocations: rows 64 bytes apart, in its
 * memory. */
static CUresult CUDAAPI
fake_mem_alloc_pitch (CUdeviceptr  *address,
                      size_t       *pitch,
                      size_t        width,
                      size_t        height,
                      unsigned int  element_size)
{
  *pitch = (width + 63) / 64 * 64;
  return cugi_cuda.cuMemAlloc (address, *pitch * height);
}

/* The stand-in's own functions (fake-cuda-arrays.c, fake-cuda-streams.c). */
static void (*get_counts) (int *arrays, int *textures, int *surfaces);
static void (*get_last_texture) (CUDA_RESOURCE_DESC *resource, CUDA_TEXTURE_DESC *texture);
static size_t (*last_params) (void *out, size_t capacity);

static void
assert_counts (int arrays,
               int textures,
               int surfaces)
{
  int live_arrays, live_textures, live_surfaces;

  get_counts (&live_arrays, &live_textures, &live_surfaces);
  g_assert_cmpint (live_arrays, ==, arrays);
  g_assert_cmpint (live_textures, ==, textures);
  g_assert_cmpint (live_surfaces, ==, surfaces);
}

static CugiTexture *
texture_new (CugiArray              *array,
             CugiTextureDescription *description)
{
  g_autoptr(GError) error = NULL;
  CugiTexture *texture = cugi_texture_new_for_array (array, description, &error);

  g_assert_no_error (error);
  return texture;
}

/* Element i of a packed box of floats is i + 0.5. */
static GBytes *
floats_new (gsize n)
{
  float *data = g_new (float, n);

  for (gsize i = 0; i < n; i++)
    data[i] = i + 0.5f;
  return g_bytes_new_take (data, n * sizeof (float));
}

static void
test_new (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiArray) array = cugi_test_array_new (CUGI_ARRAY_FORMAT_HALF, 4, 16, 8, 0,
                                                    CUGI_ARRAY_FLAGS_SURFACE_LDST);
  g_autoptr(CugiContext) context = cugi_test_default_context ();
  CugiArrayFormat format;
  guint channels;
  guint64 width, height, depth;
  CugiArrayFlags flags;
  CugiContext *owner;

  assert_counts (1, 0, 0);
  g_object_get (array, "format", &format, "channels", &channels, "width", &width, "height", &height,
                "depth", &depth, "flags", &flags, NULL);
  g_assert_cmpint (format, ==, CUGI_ARRAY_FORMAT_HALF);
  g_assert_cmpuint (channels, ==, 4);
  g_assert_cmpuint (width, ==, 16);
  g_assert_cmpuint (height, ==, 8);
  g_assert_cmpuint (depth, ==, 0);
  g_assert_cmpint (flags, ==, CUGI_ARRAY_FLAGS_SURFACE_LDST);
  g_assert_cmpuint (cugi_array_get_element_size (array), ==, 8);
  owner = cugi_array_get_context (array);
  g_assert_true (owner == context);
  g_assert_false (cugi_array_is_freed (array));
  g_clear_object (&array);
  assert_counts (0, 0, 0);

  /* Shapes the driver would refuse, each told before it is asked. */
  g_assert_null (cugi_array_new (NULL, CUGI_ARRAY_FORMAT_FLOAT, 3, 4, 4, 0, 0, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "1, 2 or 4 channels");
  g_assert_null (cugi_array_new (NULL, (CugiArrayFormat) 0x7, 1, 4, 4, 0, 0, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "CugiArrayFormat");
  g_assert_null (cugi_array_new (NULL, CUGI_ARRAY_FORMAT_FLOAT, 1, 0, 4, 0, 0, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "width");
  g_assert_null (cugi_array_new (NULL, CUGI_ARRAY_FORMAT_FLOAT, 1, 4, 0, 3, 0, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "needs a height");
  g_assert_null (cugi_array_new (NULL, CUGI_ARRAY_FORMAT_FLOAT, 1, 4, 4, 0, CUGI_ARRAY_FLAGS_LAYERED, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "layers");
  g_assert_null (cugi_array_new (NULL, CUGI_ARRAY_FORMAT_FLOAT, 1, 4, 8, 6, CUGI_ARRAY_FLAGS_CUBEMAP, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "cubemap");
  g_assert_null (cugi_array_new (NULL, CUGI_ARRAY_FORMAT_FLOAT, 1, 4, 4, 2, CUGI_ARRAY_FLAGS_TEXTURE_GATHER,
                                 &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "2D");
  g_assert_null (cugi_array_new (NULL, CUGI_ARRAY_FORMAT_FLOAT, 1, 4, 4, 0, 1 << 7, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "flags");
  assert_counts (0, 0, 0);

  /* What the rules allow: 1D, layered 1D, a cubemap, a layered cubemap. */
  g_clear_object (&array);
  array = cugi_test_array_new (CUGI_ARRAY_FORMAT_UINT8, 1, 64, 0, 0, 0);
  g_clear_object (&array);
  array = cugi_test_array_new (CUGI_ARRAY_FORMAT_UINT8, 1, 64, 0, 5, CUGI_ARRAY_FLAGS_LAYERED);
  g_clear_object (&array);
  array = cugi_test_array_new (CUGI_ARRAY_FORMAT_FLOAT, 1, 8, 8, 6, CUGI_ARRAY_FLAGS_CUBEMAP);
  g_clear_object (&array);
  array = cugi_test_array_new (CUGI_ARRAY_FORMAT_FLOAT, 1, 8, 8, 12,
                               CUGI_ARRAY_FLAGS_CUBEMAP | CUGI_ARRAY_FLAGS_LAYERED);
}

/* Host data in and out, as a whole and as boxes inside, in 2D and 3D. */
static void
test_host_round_trip (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiArray) volume = cugi_test_array_new (CUGI_ARRAY_FORMAT_FLOAT, 1, 5, 4, 3, 0);
  g_autoptr(CugiArray) image = cugi_test_array_new (CUGI_ARRAY_FORMAT_UINT8, 2, 6, 4, 0, 0);
  g_autoptr(GBytes) all = floats_new (5 * 4 * 3);
  g_autoptr(GBytes) back = NULL;
  g_autoptr(GBytes) pattern = cugi_test_pattern_new (6 * 4 * 2, 3);
  const float *values;
  float box[2 * 2 * 2];

  g_assert_true (cugi_array_upload (volume, 0, 0, 0, g_bytes_get_data (all, NULL), g_bytes_get_size (all),
                                    5, 4, 3, &error));
  g_assert_no_error (error);
  back = cugi_array_download (volume, 0, 0, 0, 5, 4, 3, &error);
  g_assert_no_error (error);
  cugi_test_assert_bytes_equal (back, all);
  g_clear_pointer (&back, g_bytes_unref);

  /* The box of 2 × 2 × 2 at (3, 1, 1): element (x, y, z) is x + 5 (y + 4 z). */
  g_assert_true (cugi_array_download_to_address (volume, 3, 1, 1, (guint64) (guintptr) box, sizeof box,
                                                 2, 2, 2, &error));
  g_assert_no_error (error);
  for (guint z = 0; z < 2; z++)
    for (guint y = 0; y < 2; y++)
      for (guint x = 0; x < 2; x++)
        g_assert_cmpfloat (box[(z * 2 + y) * 2 + x], ==, (3 + x) + 5 * ((1 + y) + 4 * (1 + z)) + 0.5f);

  /* And written back elsewhere through an address. */
  g_assert_true (cugi_array_upload_from_address (volume, 0, 0, 0, (guint64) (guintptr) box, sizeof box,
                                                 2, 2, 2, &error));
  g_assert_no_error (error);
  back = cugi_array_download (volume, 0, 0, 0, 5, 4, 3, &error);
  g_assert_no_error (error);
  values = g_bytes_get_data (back, NULL);
  g_assert_cmpfloat (values[0], ==, box[0]);
  g_assert_cmpfloat (values[1], ==, box[1]);
  g_assert_cmpfloat (values[5], ==, box[2]);
  g_assert_cmpfloat (values[20 + 6], ==, box[7]);
  g_assert_cmpfloat (values[2], ==, 2.5f);
  g_clear_pointer (&back, g_bytes_unref);

  /* 2D, two channels of bytes: a depth of 1. */
  g_assert_true (cugi_array_upload (image, 0, 0, 0, g_bytes_get_data (pattern, NULL),
                                    g_bytes_get_size (pattern), 6, 4, 1, &error));
  g_assert_no_error (error);
  back = cugi_array_download (image, 0, 0, 0, 6, 4, 1, &error);
  g_assert_no_error (error);
  cugi_test_assert_bytes_equal (back, pattern);
}

/* Regions that do not fit, data of the wrong size, boxes of nothing. */
static void
test_regions (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiArray) image = cugi_test_array_new (CUGI_ARRAY_FORMAT_FLOAT, 1, 8, 4, 0, 0);
  g_autoptr(CugiArray) line = cugi_test_array_new (CUGI_ARRAY_FORMAT_FLOAT, 2, 16, 0, 0, 0);
  g_autoptr(GBytes) data = floats_new (8 * 4);
  g_autoptr(GBytes) nothing = NULL;
  const guint8 *bytes = g_bytes_get_data (data, NULL);
  const guint64 wrapping[] = { 0, G_MAXUINT64 - 15 };

  cugi_test_assert_fails (cugi_array_upload (image, 1, 0, 0, bytes, 8 * 4 * 4, 8, 4, 1, &error), &error,
                          CUGI_ERROR_INVALID_ARGUMENT, "does not fit in the array of 8 × 4 × 1");
  cugi_test_assert_fails (cugi_array_upload (image, 0, 0, 1, bytes, 8 * 4 * 4, 8, 4, 1, &error), &error,
                          CUGI_ERROR_INVALID_ARGUMENT, "(0, 0, 1)");
  cugi_test_assert_fails (cugi_array_upload (image, G_MAXSIZE, 0, 0, bytes, 4, 1, 1, 1, &error), &error,
                          CUGI_ERROR_INVALID_ARGUMENT, "does not fit");
  cugi_test_assert_fails (cugi_array_upload (image, 0, 0, 0, bytes, 8 * 4 * 4 - 1, 8, 4, 1, &error), &error,
                          CUGI_ERROR_INVALID_ARGUMENT, "The data has 127 bytes");
  g_assert_null (cugi_array_download (image, 0, 3, 0, 8, 2, 1, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "does not fit");
  /* A 1D array has one row. */
  cugi_test_assert_fails (cugi_array_upload (line, 0, 0, 0, bytes, 64, 4, 2, 1, &error), &error,
                          CUGI_ERROR_INVALID_ARGUMENT, "16 × 1 × 1");
  g_assert_true (cugi_array_upload (line, 8, 0, 0, bytes, 64, 8, 1, 1, &error));
  g_assert_no_error (error);

  /* Addresses that cannot hold the data, refused as buffers refuse them:
   * address 0, and a range past the end of the address space. */
  for (gsize i = 0; i < G_N_ELEMENTS (wrapping); i++)
    {
      cugi_test_assert_fails (cugi_array_upload_from_address (image, 0, 0, 0, wrapping[i], 128, 8, 4, 1, &error),
                              &error, CUGI_ERROR_INVALID_ARGUMENT, "cannot hold 128 bytes");
      cugi_test_assert_fails (cugi_array_download_to_address (image, 0, 0, 0, wrapping[i], 128, 8, 4, 1, &error),
                              &error, CUGI_ERROR_INVALID_ARGUMENT, "cannot hold 128 bytes");
    }

  /* Nothing to copy: checked, then done without the driver. */
  g_assert_true (cugi_array_upload (image, 8, 4, 1, NULL, 0, 0, 0, 0, &error));
  g_assert_no_error (error);
  nothing = cugi_array_download (image, 2, 2, 0, 0, 2, 1, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_bytes_get_size (nothing), ==, 0);
}

static CugiBuffer *
pitched_buffer_new (gsize width,
                    gsize height)
{
  g_autoptr(GError) error = NULL;
  CugiBuffer *buffer = cugi_buffer_new_pitched (NULL, width, height, 4, &error);

  g_assert_no_error (error);
  return buffer;
}

/* Buffers to arrays and back, pitched or packed, and arrays to arrays. */
static void
test_buffers_and_arrays (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  g_autoptr(CugiArray) image = cugi_test_array_new (CUGI_ARRAY_FORMAT_FLOAT, 1, 8, 4, 0, 0);
  g_autoptr(CugiArray) other = cugi_test_array_new (CUGI_ARRAY_FORMAT_INT32, 1, 8, 4, 0, 0);
  g_autoptr(CugiArray) small = cugi_test_array_new (CUGI_ARRAY_FORMAT_UINT16, 1, 8, 4, 0, 0);
  g_autoptr(CugiBuffer) pitched = pitched_buffer_new (8 * 4, 4);
  g_autoptr(CugiBuffer) packed = cugi_test_buffer_new (8 * 4 * 4);
  g_autoptr(GBytes) data = floats_new (8 * 4);
  g_autoptr(GBytes) back = NULL;
  const guint8 *rows = (const guint8 *) (guintptr) cugi_buffer_get_device_pointer (pitched);
  gsize pitch = cugi_buffer_get_pitch (pitched);

  g_assert_cmpuint (pitch, ==, 64);
  g_assert_true (cugi_array_upload (image, 0, 0, 0, g_bytes_get_data (data, NULL), g_bytes_get_size (data),
                                    8, 4, 1, &error));
  g_assert_no_error (error);

  /* To a pitched buffer at its own pitch (0), on a stream. */
  g_assert_true (cugi_array_copy_to_buffer (image, 0, 0, 0, pitched, 0, 0, 0, 8, 4, 1, stream, &error));
  g_assert_no_error (error);
  cugi_test_settle (stream);
  for (guint y = 0; y < 4; y++)
    g_assert_cmpmem (rows + y * pitch, 32, (const guint8 *) g_bytes_get_data (data, NULL) + y * 32, 32);

  /* Through another array of the same element size, to a packed buffer on
   * the default stream. */
  g_assert_true (cugi_array_copy (other, 0, 0, 0, image, 0, 0, 0, 8, 4, 1, stream, &error));
  g_assert_no_error (error);
  g_assert_true (cugi_array_copy_to_buffer (other, 0, 0, 0, packed, 0, 0, 0, 8, 4, 1, stream, &error));
  g_assert_no_error (error);
  cugi_test_settle (stream);
  g_assert_cmpmem ((const void *) (guintptr) cugi_buffer_get_device_pointer (packed), 128,
                   g_bytes_get_data (data, NULL), 128);

  /* And back from the pitched buffer, rows 1 to 2 into rows 0 to 1. */
  g_assert_true (cugi_array_copy_from_buffer (other, 0, 0, 0, pitched, pitch, 0, 0, 8, 2, 1, NULL, &error));
  g_assert_no_error (error);
  cugi_test_settle (NULL);
  back = cugi_array_download (other, 0, 0, 0, 8, 1, 1, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (g_bytes_get_data (back, NULL), 32, (const guint8 *) g_bytes_get_data (data, NULL) + 32, 32);

  /* What does not fit, or does not match. */
  cugi_test_assert_fails (cugi_array_copy_to_buffer (image, 0, 0, 0, packed, 4, 0, 0, 8, 4, 1, stream, &error),
                          &error, CUGI_ERROR_INVALID_ARGUMENT, "destination buffer");
  cugi_test_assert_fails (cugi_array_copy_from_buffer (image, 0, 0, 0, pitched, 0, 16, 0, 8, 4, 1, stream,
                                                       &error),
                          &error, CUGI_ERROR_INVALID_ARGUMENT, NULL);
  cugi_test_assert_fails (cugi_array_copy (small, 0, 0, 0, image, 0, 0, 0, 8, 4, 1, stream, &error), &error,
                          CUGI_ERROR_INVALID_ARGUMENT, "2 and 4 bytes");
  cugi_test_assert_fails (cugi_array_copy (other, 1, 0, 0, image, 0, 0, 0, 8, 4, 1, stream, &error), &error,
                          CUGI_ERROR_INVALID_ARGUMENT, "destination array");
}

/* Copies with pinned host buffers: asynchronous on a stream, done at once
 * without one. */
static void
test_host_buffers (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  g_autoptr(CugiArray) volume = cugi_test_array_new (CUGI_ARRAY_FORMAT_UINT8, 4, 4, 2, 2, 0);
  g_autoptr(CugiHostBuffer) host = cugi_host_buffer_new (NULL, 4 * 4 * 2 * 2, CUGI_HOST_BUFFER_FLAGS_NONE,
                                                         &error);
  g_autoptr(CugiHostBuffer) back = NULL;
  g_autoptr(GBytes) pattern = cugi_test_pattern_new (64, 9);
  g_autoptr(GBytes) seen = NULL;
  CugiTestGate gate = { 0 };

  g_assert_no_error (error);
  back = cugi_host_buffer_new (NULL, 64, CUGI_HOST_BUFFER_FLAGS_NONE, &error);
  g_assert_no_error (error);
  memcpy (cugi_host_buffer_get_data (host, NULL, NULL), g_bytes_get_data (pattern, NULL), 64);
  g_assert_true (cugi_array_upload_from_host (volume, 0, 0, 0, host, 0, 0, 0, 4, 2, 2, NULL, &error));
  g_assert_no_error (error);

  /* Held back behind a gate: nothing arrives until the stream gets there. */
  cugi_test_gate_close (&gate, stream);
  g_assert_true (cugi_array_download_to_host (volume, 0, 0, 0, back, 0, 0, 0, 4, 2, 2, stream, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (((guint8 *) cugi_host_buffer_get_data (back, NULL, NULL))[5], ==, 0);
  cugi_test_gate_open (&gate, stream);
  cugi_test_settle (stream);
  seen = g_bytes_new (cugi_host_buffer_get_data (back, NULL, NULL), 64);
  cugi_test_assert_bytes_equal (seen, pattern);

  cugi_test_assert_fails (cugi_array_upload_from_host (volume, 0, 0, 0, host, 1, 0, 0, 4, 2, 2, stream, &error),
                          &error, CUGI_ERROR_INVALID_ARGUMENT, "host buffer");
}

/* A freed array refuses everything, textures and surfaces included. */
static void
test_free (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiArray) array = cugi_test_array_new (CUGI_ARRAY_FORMAT_FLOAT, 1, 8, 8, 0,
                                                    CUGI_ARRAY_FLAGS_SURFACE_LDST);
  g_autoptr(CugiArray) other = cugi_test_array_new (CUGI_ARRAY_FORMAT_FLOAT, 1, 8, 8, 0, 0);
  g_autoptr(CugiBuffer) buffer = cugi_test_buffer_new (256);
  guint notified = 0;
  gboolean freed;

  g_signal_connect (array, "notify::freed", G_CALLBACK (cugi_test_count_notify), &notified);
  g_assert_true (cugi_array_free (array, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (notified, ==, 1);
  g_object_get (array, "freed", &freed, NULL);
  g_assert_true (freed);
  assert_counts (1, 0, 0);

  cugi_test_assert_fails (cugi_array_free (array, &error), &error, CUGI_ERROR_INVALID_STATE, "freed");
  g_assert_null (cugi_array_download (array, 0, 0, 0, 1, 1, 1, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_STATE, "The array was freed");
  cugi_test_assert_fails (cugi_array_copy_to_buffer (array, 0, 0, 0, buffer, 0, 0, 0, 8, 8, 1, NULL, &error),
                          &error, CUGI_ERROR_INVALID_STATE, "freed");
  cugi_test_assert_fails (cugi_array_copy (other, 0, 0, 0, array, 0, 0, 0, 8, 8, 1, NULL, &error), &error,
                          CUGI_ERROR_INVALID_STATE, "freed");
  g_assert_null (cugi_texture_new_for_array (array, NULL, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_STATE, "texture of the array: The array was freed");
  g_assert_null (cugi_surface_new (array, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_STATE, "surface of the array");

  /* A freed buffer gives no texture either. */
  g_assert_true (cugi_buffer_free (buffer, &error));
  g_assert_null (cugi_texture_new_for_buffer (buffer, CUGI_ARRAY_FORMAT_FLOAT, 1, 16, NULL, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_STATE, "texture of the buffer");

  /* The library goes on. */
  g_clear_object (&array);
  array = cugi_test_array_new (CUGI_ARRAY_FORMAT_FLOAT, 1, 8, 8, 0, 0);
  g_assert_false (cugi_array_is_freed (array));
}

/* Work in flight keeps the array, and its memory, until it completes. */
static void
test_work_keeps_array (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  CugiArray *array = cugi_test_array_new (CUGI_ARRAY_FORMAT_FLOAT, 1, 8, 4, 0, 0);
  g_autoptr(CugiBuffer) buffer = cugi_test_buffer_new (8 * 4 * 4);
  CugiTestGate gate = { 0 };

  cugi_test_gate_close (&gate, stream);
  g_assert_true (cugi_array_copy_from_buffer (array, 0, 0, 0, buffer, 0, 0, 0, 8, 4, 1, stream, &error));
  g_assert_no_error (error);
  g_assert_true (cugi_array_free (array, &error));
  g_assert_no_error (error);
  g_object_unref (array);
  cugi_test_settle (NULL);
  assert_counts (1, 0, 0);
  cugi_test_gate_open (&gate, stream);
  cugi_test_settle (stream);
  assert_counts (0, 0, 0);
}

static void
test_texture_description (void)
{
  g_autoptr(CugiTextureDescription) description = cugi_texture_description_new ();
  g_autoptr(CugiTextureDescription) copy = NULL;
  g_autoptr(GError) error = NULL;
  gfloat red, alpha;

  for (guint i = 0; i < 3; i++)
    g_assert_cmpint (cugi_texture_description_get_address_mode (description, i, NULL), ==, CUGI_ADDRESS_MODE_CLAMP);
  /* No other dimension: an error, which changes nothing. */
  cugi_test_assert_fails (cugi_texture_description_set_address_mode (description, 5, CUGI_ADDRESS_MODE_WRAP,
                                                                     &error),
                          &error, CUGI_ERROR_INVALID_ARGUMENT, "no dimension 5");
  g_assert_cmpint (cugi_texture_description_get_address_mode (description, 3, &error), ==,
                   CUGI_ADDRESS_MODE_CLAMP);
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "no dimension 3");
  g_assert_cmpint (cugi_texture_description_get_filter_mode (description), ==, CUGI_FILTER_MODE_POINT);
  g_assert_cmpint (cugi_texture_description_get_read_mode (description), ==,
                   CUGI_TEXTURE_READ_MODE_ELEMENT_TYPE);
  g_assert_false (cugi_texture_description_get_normalized_coordinates (description));

  g_assert_true (cugi_texture_description_set_address_mode (description, 1, CUGI_ADDRESS_MODE_BORDER, NULL));
  cugi_texture_description_set_border_color (description, 0.25f, 0, 0, 1);
  copy = cugi_texture_description_copy (description);
  g_assert_true (cugi_texture_description_set_address_mode (description, 1, CUGI_ADDRESS_MODE_CLAMP, NULL));
  g_assert_cmpint (cugi_texture_description_get_address_mode (copy, 1, NULL), ==, CUGI_ADDRESS_MODE_BORDER);
  cugi_texture_description_get_border_color (copy, &red, NULL, NULL, &alpha);
  g_assert_cmpfloat (red, ==, 0.25f);
  g_assert_cmpfloat (alpha, ==, 1);
}

/* The properties of a texture or surface (@object) are what it was made of;
 * a surface has no "buffer". */
static void
assert_resource_properties (GObject     *object,
                            CugiContext *context,
                            CugiArray   *array,
                            CugiBuffer  *buffer,
                            guint64      handle)
{
  g_autoptr(CugiContext) read_context = NULL;
  g_autoptr(CugiArray) read_array = NULL;
  g_autoptr(CugiBuffer) read_buffer = NULL;
  guint64 read_handle = 0;

  g_object_get (object, "context", &read_context, "array", &read_array, "handle", &read_handle, NULL);
  g_assert_true (read_context == context);
  g_assert_true (read_array == array);
  g_assert_cmpuint (read_handle, ==, handle);
  if (g_object_class_find_property (G_OBJECT_GET_CLASS (object), "buffer") != NULL)
    {
      g_object_get (object, "buffer", &read_buffer, NULL);
      g_assert_true (read_buffer == buffer);
    }
}

/* What the driver is asked for, and what cannot be asked. */
static void
test_texture_of_array (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiArray) array = cugi_test_array_new (CUGI_ARRAY_FORMAT_FLOAT, 1, 8, 8, 0, 0);
  g_autoptr(CugiArray) integers = cugi_test_array_new (CUGI_ARRAY_FORMAT_INT32, 1, 8, 8, 0, 0);
  g_autoptr(CugiArray) bytes = cugi_test_array_new (CUGI_ARRAY_FORMAT_UINT8, 4, 8, 8, 0, 0);
  g_autoptr(CugiTextureDescription) description = cugi_texture_description_new ();
  g_autoptr(CugiTexture) texture = NULL;
  CUDA_RESOURCE_DESC resource;
  CUDA_TEXTURE_DESC desc;
  CugiArray *read;

  cugi_texture_description_set_filter_mode (description, CUGI_FILTER_MODE_LINEAR);
  g_assert_true (cugi_texture_description_set_address_mode (description, 1, CUGI_ADDRESS_MODE_BORDER, NULL));
  cugi_texture_description_set_border_color (description, 1, 2, 3, 4);
  texture = texture_new (array, description);
  assert_counts (3, 1, 0);
  g_assert_cmpuint (cugi_texture_get_handle (texture), !=, 0);
  g_object_get (texture, "array", &read, NULL);
  g_assert_true (read == array);
  g_object_unref (read);
  g_assert_null (cugi_texture_get_buffer (texture));
  assert_resource_properties (G_OBJECT (texture), cugi_array_get_context (array), array, NULL,
                              cugi_texture_get_handle (texture));

  get_last_texture (&resource, &desc);
  g_assert_cmpint (resource.resType, ==, CU_RESOURCE_TYPE_ARRAY);
  g_assert_cmpint (desc.filterMode, ==, CU_TR_FILTER_MODE_LINEAR);
  g_assert_cmpint (desc.addressMode[0], ==, CU_TR_ADDRESS_MODE_CLAMP);
  g_assert_cmpint (desc.addressMode[1], ==, CU_TR_ADDRESS_MODE_BORDER);
  g_assert_cmpuint (desc.flags, ==, CU_TRSF_READ_AS_INTEGER);
  g_assert_cmpfloat (desc.borderColor[3], ==, 4);

  /* Linear filtering of integers read as integers has no meaning. */
  g_assert_null (cugi_texture_new_for_array (integers, description, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "Linear filtering");
  g_assert_null (cugi_texture_new_for_array (bytes, description, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "Linear filtering");
  /* Bytes read as normalized floats filter. */
  cugi_texture_description_set_read_mode (description, CUGI_TEXTURE_READ_MODE_NORMALIZED_FLOAT);
  cugi_texture_description_set_normalized_coordinates (description, TRUE);
  g_clear_object (&texture);
  texture = texture_new (bytes, description);
  get_last_texture (&resource, &desc);
  g_assert_cmpuint (desc.flags, ==, CU_TRSF_NORMALIZED_COORDINATES);
  /* Wrapping needs normalized coordinates. */
  cugi_texture_description_set_normalized_coordinates (description, FALSE);
  g_assert_true (cugi_texture_description_set_address_mode (description, 0, CUGI_ADDRESS_MODE_WRAP, NULL));
  g_assert_null (cugi_texture_new_for_array (bytes, description, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "normalized coordinates");
  assert_counts (3, 1, 0);
}

/* A texture keeps its array: freeing the array waits for the texture. */
static void
test_texture_keeps_array (void)
{
  g_autoptr(GError) error = NULL;
  CugiArray *array = cugi_test_array_new (CUGI_ARRAY_FORMAT_FLOAT, 1, 8, 8, 0, CUGI_ARRAY_FLAGS_SURFACE_LDST);
  CugiTexture *texture = texture_new (array, NULL);
  CugiSurface *surface = cugi_surface_new (array, &error);

  g_assert_no_error (error);
  g_assert_true (cugi_array_free (array, &error));
  g_assert_no_error (error);
  g_object_unref (array);
  assert_counts (1, 1, 1);
  g_object_unref (texture);
  assert_counts (1, 0, 1);
  g_object_unref (surface);
  assert_counts (0, 0, 0);
}

static void
test_texture_of_buffer (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiBuffer) pitched = pitched_buffer_new (8 * 4, 4);
  g_autoptr(CugiBuffer) linear = cugi_test_buffer_new (64);
  g_autoptr(CugiTexture) texture = NULL;
  CUDA_RESOURCE_DESC resource;
  CUDA_TEXTURE_DESC desc;

  texture = cugi_texture_new_for_pitched_buffer (pitched, CUGI_ARRAY_FORMAT_FLOAT, 1, 8, 4, 0, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (cugi_texture_get_buffer (texture) == pitched);
  assert_resource_properties (G_OBJECT (texture), cugi_buffer_get_context (pitched), NULL, pitched,
                              cugi_texture_get_handle (texture));
  get_last_texture (&resource, &desc);
  g_assert_cmpint (resource.resType, ==, CU_RESOURCE_TYPE_PITCH2D);
  g_assert_cmpuint (resource.res.pitch2D.pitchInBytes, ==, 64);
  g_assert_cmpuint (resource.res.pitch2D.width, ==, 8);
  g_assert_cmpuint (resource.res.pitch2D.height, ==, 4);
  g_assert_cmpuint (resource.res.pitch2D.devPtr, ==, cugi_buffer_get_device_pointer (pitched));
  g_clear_object (&texture);

  texture = cugi_texture_new_for_buffer (linear, CUGI_ARRAY_FORMAT_UINT16, 2, 16, NULL, &error);
  g_assert_no_error (error);
  get_last_texture (&resource, &desc);
  g_assert_cmpint (resource.resType, ==, CU_RESOURCE_TYPE_LINEAR);
  g_assert_cmpuint (resource.res.linear.sizeInBytes, ==, 64);
  g_assert_cmpuint (resource.res.linear.numChannels, ==, 2);

  /* Beyond the buffer, and shapes that are none. */
  g_assert_null (cugi_texture_new_for_buffer (linear, CUGI_ARRAY_FORMAT_UINT16, 2, 17, NULL, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "buffer");
  g_assert_null (cugi_texture_new_for_pitched_buffer (pitched, CUGI_ARRAY_FORMAT_FLOAT, 1, 8, 5, 0, NULL,
                                                      &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "buffer");
  g_assert_null (cugi_texture_new_for_pitched_buffer (pitched, CUGI_ARRAY_FORMAT_FLOAT, 1, 8, 0, 0, NULL,
                                                      &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "row");
  g_assert_null (cugi_texture_new_for_buffer (linear, CUGI_ARRAY_FORMAT_FLOAT, 3, 2, NULL, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "channels");
}

static void
test_surface (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiArray) plain = cugi_test_array_new (CUGI_ARRAY_FORMAT_FLOAT, 1, 8, 8, 0, 0);
  g_autoptr(CugiArray) writable = cugi_test_array_new (CUGI_ARRAY_FORMAT_FLOAT, 1, 8, 8, 0,
                                                       CUGI_ARRAY_FLAGS_SURFACE_LDST);
  g_autoptr(CugiSurface) surface = NULL;

  g_assert_null (cugi_surface_new (plain, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "CUGI_ARRAY_FLAGS_SURFACE_LDST");
  surface = cugi_surface_new (writable, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (cugi_surface_get_handle (surface), !=, 0);
  g_assert_true (cugi_surface_get_array (surface) == writable);
  assert_resource_properties (G_OBJECT (surface), cugi_array_get_context (writable), writable, NULL,
                              cugi_surface_get_handle (surface));
  assert_counts (2, 0, 1);
}

/* cudaTextureObject_t is unsigned long long: a texture goes there and
 * nowhere else, through the adders and through GValues. */
static void
test_kernel_signature (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiArray) array = cugi_test_array_new (CUGI_ARRAY_FORMAT_FLOAT, 1, 8, 8, 0,
                                                    CUGI_ARRAY_FLAGS_SURFACE_LDST);
  g_autoptr(CugiTexture) texture = texture_new (array, NULL);
  g_autoptr(CugiSurface) surface = cugi_surface_new (array, &error);
  g_autoptr(CugiKernelArgs) args = cugi_kernel_args_new ();
  g_autoptr(CugiKernelArgs) copy = NULL;
  /* sample (unsigned long long, unsigned long long, float *) */
  const gsize sizes[] = { 8, 8, 8 };
  CugiKernelSignature *signature = cugi_kernel_signature_new ("sample", "_Z6sampleyyPf", sizes, 3);
  g_auto (GValue) value = G_VALUE_INIT;

  g_assert_no_error (error);
  cugi_kernel_args_add_texture (args, texture);
  cugi_kernel_args_add_surface (args, surface);
  cugi_kernel_args_add_pointer (args, 0x1000);
  g_assert_cmpint (cugi_kernel_args_get_arg_type (args, 0), ==, CUGI_ARG_TEXTURE);
  g_assert_cmpint (cugi_kernel_args_get_arg_type (args, 1), ==, CUGI_ARG_SURFACE);
  g_assert_cmpuint (cugi_kernel_args_get_arg_size (args, 0), ==, 8);
  g_assert_true (cugi_kernel_signature_check (signature, args, &error));
  g_assert_no_error (error);
  copy = cugi_kernel_args_copy (args);
  g_assert_cmpint (cugi_kernel_args_get_arg_type (copy, 1), ==, CUGI_ARG_SURFACE);

  /* A texture for the pointer. */
  cugi_kernel_args_clear (args);
  cugi_kernel_args_add_texture (args, texture);
  cugi_kernel_args_add_surface (args, surface);
  cugi_kernel_args_add_texture (args, texture);
  cugi_test_assert_fails (cugi_kernel_signature_check (signature, args, &error), &error,
                          CUGI_ERROR_INVALID_ARGUMENT, "parameter 2 (float *): cannot take a CugiTexture");

  /* Through GValues: an object is a texture, a surface or a buffer. */
  cugi_kernel_args_clear (args);
  g_value_init (&value, G_TYPE_OBJECT);
  g_value_set_object (&value, texture);
  g_assert_true (cugi_kernel_signature_add_value (signature, args, 0, &value, &error));
  g_value_set_object (&value, surface);
  g_assert_true (cugi_kernel_signature_add_value (signature, args, 1, &value, &error));
  g_assert_no_error (error);
  g_assert_cmpint (cugi_kernel_args_get_arg_type (args, 0), ==, CUGI_ARG_TEXTURE);
  g_assert_cmpint (cugi_kernel_args_get_arg_type (args, 1), ==, CUGI_ARG_SURFACE);
  g_value_set_object (&value, array);
  cugi_test_assert_fails (cugi_kernel_signature_add_value (signature, args, 2, &value, &error), &error,
                          CUGI_ERROR_INVALID_ARGUMENT, "a CugiArray cannot be passed");
  cugi_kernel_signature_free (signature);

  /* A float parameter takes no texture either. */
  signature = cugi_kernel_signature_new ("f", "_Z1ff", (const gsize[]) { 4 }, 1);
  cugi_kernel_args_clear (args);
  cugi_kernel_args_add_texture (args, texture);
  cugi_test_assert_fails (cugi_kernel_signature_check (signature, args, &error), &error,
                          CUGI_ERROR_INVALID_ARGUMENT, "pass a float");
  cugi_kernel_signature_free (signature);

  /* An extern "C" kernel is known by its sizes alone (as docs/arrays.md
   * says): a texture goes to any 8-byte parameter, a pointer's included,
   * and to no 4-byte one. */
  signature = cugi_kernel_signature_new ("sample", "sample", (const gsize[]) { 8, 4 }, 2);
  cugi_kernel_args_clear (args);
  cugi_kernel_args_add_texture (args, texture);
  cugi_kernel_args_add_int32 (args, 1);
  g_assert_true (cugi_kernel_signature_check (signature, args, &error));
  g_assert_no_error (error);
  cugi_kernel_args_clear (args);
  cugi_kernel_args_add_texture (args, texture);
  cugi_kernel_args_add_texture (args, texture);
  cugi_test_assert_fails (cugi_kernel_signature_check (signature, args, &error), &error,
                          CUGI_ERROR_INVALID_ARGUMENT, "takes 4 bytes");
  cugi_kernel_signature_free (signature);
}

/* The stand-in's kernel: sample (cudaTextureObject_t, float *). */
static const char image[] = "_Z6sampleyPf 8 8\n";

static CugiKernel *
sample_kernel_new (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiContext) context = cugi_test_default_context ();
  g_autoptr(GBytes) bytes = g_bytes_new_static (image, sizeof image);
  g_autoptr(CugiModule) module = cugi_module_new_from_data (context, bytes, &error);
  CugiKernel *kernel;

  g_assert_no_error (error);
  kernel = cugi_module_get_kernel (module, "_Z6sampleyPf", &error);
  g_assert_no_error (error);
  return kernel;
}

/* A launch passes the handle, and keeps the texture until it has run. */
static void
test_launch (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiContext) context = cugi_test_default_context ();
  g_autoptr(CugiKernel) kernel = sample_kernel_new ();
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  g_autoptr(CugiLaunchConfig) config = cugi_launch_config_new (1, 32);
  g_autoptr(CugiBuffer) out = cugi_test_buffer_new (64);
  CugiArray *array = cugi_test_array_new (CUGI_ARRAY_FORMAT_FLOAT, 1, 4, 4, 0, 0);
  CugiTexture *texture = texture_new (array, NULL);
  CugiKernelArgs *args = cugi_kernel_args_new ();
  guint64 passed[2];
  CugiTestGate gate = { 0 };

  cugi_launch_config_set_stream (config, stream);
  last_params (passed, sizeof passed);

  cugi_kernel_args_add_texture (args, texture);
  cugi_kernel_args_add_buffer (args, out);
  cugi_test_gate_close (&gate, stream);
  g_assert_true (cugi_kernel_launch (kernel, config, args, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (last_params (passed, sizeof passed), ==, sizeof passed);
  g_assert_cmpuint (passed[0], ==, cugi_texture_get_handle (texture));
  g_assert_cmpuint (passed[1], ==, cugi_buffer_get_device_pointer (out));

  g_object_unref (texture);
  g_object_unref (array);
  cugi_kernel_args_unref (args);
  cugi_test_settle (NULL);
  assert_counts (1, 1, 0);
  cugi_test_gate_open (&gate, stream);
  cugi_test_settle (stream);
  assert_counts (0, 0, 0);

  /* A texture of another context: the kernel cannot read it. */
  {
    g_autoptr(CugiContext) created = cugi_context_new (cugi_context_get_device (context),
                                                       CUGI_CONTEXT_FLAGS_NONE, &error);
    g_autoptr(CugiArray) foreign = NULL;
    g_autoptr(CugiTexture) foreign_texture = NULL;
    g_autoptr(CugiKernelArgs) foreign_args = cugi_kernel_args_new ();

    g_assert_no_error (error);
    foreign = cugi_array_new (created, CUGI_ARRAY_FORMAT_FLOAT, 1, 4, 4, 0, 0, &error);
    g_assert_no_error (error);
    foreign_texture = texture_new (foreign, NULL);
    cugi_kernel_args_add_texture (foreign_args, foreign_texture);
    cugi_kernel_args_add_buffer (foreign_args, out);
    cugi_test_assert_fails (cugi_kernel_launch (kernel, config, foreign_args, &error), &error,
                            CUGI_ERROR_INVALID_CONTEXT, "CugiTexture belongs to another context");
    cugi_test_assert_fails (cugi_array_copy_to_buffer (foreign, 0, 0, 0, out, 0, 0, 0, 4, 4, 1, NULL, &error),
                            &error, CUGI_ERROR_INVALID_CONTEXT, "another context");
  }
}

/* cugi_kernel_launch_with() takes textures and surfaces by their tags, as
 * cugi_kernel_launch() does, and refuses another object under either. */
static void
test_launch_with (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiKernel) kernel = sample_kernel_new ();
  g_autoptr(CugiLaunchConfig) config = cugi_launch_config_new (1, 32);
  g_autoptr(CugiBuffer) out = cugi_test_buffer_new (64);
  g_autoptr(CugiArray) array = cugi_test_array_new (CUGI_ARRAY_FORMAT_FLOAT, 1, 4, 4, 0,
                                                    CUGI_ARRAY_FLAGS_SURFACE_LDST);
  g_autoptr(CugiTexture) texture = texture_new (array, NULL);
  g_autoptr(CugiSurface) surface = cugi_surface_new (array, &error);
  guint64 passed[2];

  g_assert_no_error (error);
  last_params (passed, sizeof passed);

  g_assert_true (cugi_kernel_launch_with (kernel, config, &error, CUGI_ARG_TEXTURE, texture,
                                          CUGI_ARG_BUFFER, out, CUGI_ARG_END));
  g_assert_no_error (error);
  g_assert_cmpuint (last_params (passed, sizeof passed), ==, sizeof passed);
  g_assert_cmpuint (passed[0], ==, cugi_texture_get_handle (texture));
  g_assert_cmpuint (passed[1], ==, cugi_buffer_get_device_pointer (out));
  g_assert_true (cugi_kernel_launch_with (kernel, config, &error, CUGI_ARG_SURFACE, surface,
                                          CUGI_ARG_BUFFER, out, CUGI_ARG_END));
  g_assert_no_error (error);
  g_assert_cmpuint (last_params (passed, sizeof passed), ==, sizeof passed);
  g_assert_cmpuint (passed[0], ==, cugi_surface_get_handle (surface));

  cugi_test_assert_fails (cugi_kernel_launch_with (kernel, config, &error, CUGI_ARG_SURFACE, texture,
                                                   CUGI_ARG_BUFFER, out, CUGI_ARG_END),
                          &error, CUGI_ERROR_INVALID_ARGUMENT, "argument 0: CUGI_ARG_SURFACE needs a CugiSurface");
  cugi_test_assert_fails (cugi_kernel_launch_with (kernel, config, &error, CUGI_ARG_TEXTURE, NULL,
                                                   CUGI_ARG_BUFFER, out, CUGI_ARG_END),
                          &error, CUGI_ERROR_INVALID_ARGUMENT, "argument 0: CUGI_ARG_TEXTURE needs a CugiTexture");
  cugi_test_assert_fails (cugi_kernel_launch_with (kernel, config, &error, CUGI_ARG_TEXTURE, texture,
                                                   CUGI_ARG_BUFFER, surface, CUGI_ARG_END),
                          &error, CUGI_ERROR_INVALID_ARGUMENT, "argument 1: CUGI_ARG_BUFFER needs a CugiBuffer");
  cugi_test_settle (NULL);
}

/* A reset takes arrays, textures and surfaces with it (cugi destroys none of
 * them after it; the stand-in does not either, and goes on counting them). */
static void
test_after_reset (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiContext) context = cugi_test_default_context ();
  g_autoptr(CugiArray) array = cugi_test_array_new (CUGI_ARRAY_FORMAT_FLOAT, 1, 4, 4, 0,
                                                    CUGI_ARRAY_FLAGS_SURFACE_LDST);
  g_autoptr(CugiTexture) texture = texture_new (array, NULL);

  g_assert_true (cugi_context_reset (context, &error));
  g_assert_no_error (error);
  g_assert_null (cugi_array_download (array, 0, 0, 0, 1, 1, 1, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_CONTEXT, "context was reset");
  g_assert_null (cugi_surface_new (array, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_CONTEXT, "context was reset");
}

int
main (int argc, char **argv)
{
  cugi_test_init_stand_in (&argc, &argv);
  get_counts = cugi_test_stand_in_symbol ("fake_cuda_arrays_get_counts");
  get_last_texture = cugi_test_stand_in_symbol ("fake_cuda_arrays_get_last_texture");
  last_params = cugi_test_stand_in_symbol ("fake_cuda_streams_last_params");
  cugi_cuda.cuMemAllocPitch = fake_mem_alloc_pitch;

  g_test_add_func ("/array/new", test_new);
  g_test_add_func ("/array/host-round-trip", test_host_round_trip);
  g_test_add_func ("/array/regions", test_regions);
  g_test_add_func ("/array/buffers-and-arrays", test_buffers_and_arrays);
  g_test_add_func ("/array/host-buffers", test_host_buffers);
  g_test_add_func ("/array/free", test_free);
  g_test_add_func ("/array/work-keeps-array", test_work_keeps_array);
  g_test_add_func ("/texture/description", test_texture_description);
  g_test_add_func ("/texture/of-array", test_texture_of_array);
  g_test_add_func ("/texture/keeps-array", test_texture_keeps_array);
  g_test_add_func ("/texture/of-buffer", test_texture_of_buffer);
  g_test_add_func ("/surface/new", test_surface);
  g_test_add_func ("/kernel/signature", test_kernel_signature);
  g_test_add_func ("/kernel/launch", test_launch);
  g_test_add_func ("/kernel/launch-with", test_launch_with);
  /* Last: the stand-in keeps the arrays a reset took, and counts them. */
  g_test_add_func ("/reset/array", test_after_reset);

  return g_test_run ();
}
