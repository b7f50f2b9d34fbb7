/* test-tensor-map.c: tensor maps on a GPU of compute capability 9.0 or later:
 * a kernel copies every tile of a matrix into shared memory with the
 * tensor memory accelerator (cp.async.bulk.tensor, waited for on an
 * mbarrier), then out, and each element is checked against the CPU's
 * reading of the matrix, the tiles past its right and bottom edges read as
 * zeros. */
#include "config.h"

#include <string.h>

#include "cugi-test-utils.h"

/* A matrix whose edges cut tiles: 100 columns (3 tiles and 4 columns), 60
 * rows (7 tiles and 4 rows), in tiles of 32 × 8 of 4-byte elements: rows of
 * 128 bytes, a tile of 1 KiB. */
#define WIDTH 100
#define HEIGHT 60
#define BOX_WIDTH 32
#define BOX_HEIGHT 8
#define TILES_ACROSS ((WIDTH + BOX_WIDTH - 1) / BOX_WIDTH)
#define TILES_DOWN ((HEIGHT + BOX_HEIGHT - 1) / BOX_HEIGHT)
#define OUT_ELEMENTS (TILES_ACROSS * TILES_DOWN * BOX_WIDTH * BOX_HEIGHT)

/* NVRTC has no cuda.h: the kernel declares the descriptor as the driver
 * lays it out. A C++ kernel, so that cugi reads the parameter's type from
 * its name. Thread 0 sets up the mbarrier and starts the copy of the
 * block's tile; every thread waits for the copy's bytes to land (phase 0),
 * then writes its element. The whole box goes out, the part past the
 * matrix included. */
static const char tile_copy_source[] =
  "struct alignas(64) CUtensorMap { unsigned long long opaque[16]; };\n"
  "\n"
  "#define BOX_WIDTH " G_STRINGIFY (BOX_WIDTH) "\n"
  "#define BOX_HEIGHT " G_STRINGIFY (BOX_HEIGHT) "\n"
  "\n"
  "static __device__ unsigned shared_address (const void *pointer)\n"
  "{\n"
  "  unsigned address;\n"
  "  asm volatile (\"{ .reg .u64 a; cvta.to.shared.u64 a, %1; cvt.u32.u64 %0, a; }\"\n"
  "                : \"=r\" (address) : \"l\" (pointer));\n"
  "  return address;\n"
  "}\n"
  "\n"
  "__global__ void tile_copy (const __grid_constant__ CUtensorMap map, unsigned *out)\n"
  "{\n"
  "  __shared__ alignas (128) unsigned tile[BOX_HEIGHT][BOX_WIDTH];\n"
  "  __shared__ alignas (8) unsigned long long barrier;\n"
  "  unsigned tile_at = shared_address (tile), barrier_at = shared_address (&barrier);\n"
  "  unsigned ready = 0;\n"
  "  int x = blockIdx.x * BOX_WIDTH, y = blockIdx.y * BOX_HEIGHT;\n"
  "  unsigned t = threadIdx.x;\n"
  "\n"
  "  if (t == 0)\n"
  "    {\n"
  "      asm volatile (\"mbarrier.init.shared::cta.b64 [%0], 1;\" :: \"r\" (barrier_at) : \"memory\");\n"
  "      /* The copy engine, the async proxy, sees the barrier initialized. */\n"
  "      asm volatile (\"fence.proxy.async.shared::cta;\" ::: \"memory\");\n"
  "    }\n"
  "  __syncthreads ();\n"
  "  if (t == 0)\n"
  "    {\n"
  "      asm volatile (\"mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\"\n"
  "                    :: \"r\" (barrier_at), \"r\" ((unsigned) sizeof tile) : \"memory\");\n"
  "      asm volatile (\"cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes\"\n"
  "                    \" [%0], [%1, {%2, %3}], [%4];\"\n"
  "                    :: \"r\" (tile_at), \"l\" (&map), \"r\" (x), \"r\" (y), \"r\" (barrier_at)\n"
  "                    : \"memory\");\n"
  "    }\n"
  "  while (!ready)\n"
  "    asm volatile (\"{ .reg .pred done; mbarrier.try_wait.parity.shared::cta.b64 done, [%1], 0;\"\n"
  "                  \" selp.u32 %0, 1, 0, done; }\"\n"
  "                  : \"=r\" (ready) : \"r\" (barrier_at) : \"memory\");\n"
  "\n"
  "  unsigned row = t / BOX_WIDTH, column = t % BOX_WIDTH;\n"
  "  unsigned block = blockIdx.y * gridDim.x + blockIdx.x;\n"
  "  out[(block * BOX_HEIGHT + row) * BOX_WIDTH + column] = tile[row][column];\n"
  "}\n";

static CugiKernel *tile_copy;

/* Element (x, y) of the matrix: never 0, which the tiles' parts past the
 * edges are; as a float for FLOAT32, whose bits are compared. */
static guint32
element (CugiTensorDataType data_type,
         guint              x,
         guint              y)
{
  guint32 value = y * 1000 + x + 1;
  gfloat real = value;

  if (data_type != CUGI_TENSOR_DATA_TYPE_FLOAT32)
    return value;
  memcpy (&value, &real, sizeof value);
  return value;
}

/* The matrix of @data_type with rows @pitch bytes apart, on the device. */
static CugiBuffer *
matrix_new (CugiTensorDataType data_type,
            gsize              pitch)
{
  guint32 *host = g_malloc0 (pitch * HEIGHT);
  g_autoptr(GBytes) bytes = NULL;

  for (guint y = 0; y < HEIGHT; y++)
    for (guint x = 0; x < WIDTH; x++)
      host[y * (pitch / sizeof *host) + x] = element (data_type, x, y);
  bytes = g_bytes_new_take (host, pitch * HEIGHT);
  return cugi_test_buffer_new_with (bytes);
}

/* Every element of every tile the kernel wrote, against the matrix. */
static void
check_tiles (CugiBuffer         *out,
             CugiTensorDataType  data_type)
{
  g_autoptr(GBytes) bytes = cugi_test_download_all (out);
  const guint32 *tiles = g_bytes_get_data (bytes, NULL);

  for (guint ty = 0; ty < TILES_DOWN; ty++)
    for (guint tx = 0; tx < TILES_ACROSS; tx++)
      for (guint row = 0; row < BOX_HEIGHT; row++)
        for (guint column = 0; column < BOX_WIDTH; column++)
          {
            guint x = tx * BOX_WIDTH + column, y = ty * BOX_HEIGHT + row;
            guint32 expected = x < WIDTH && y < HEIGHT ? element (data_type, x, y) : 0;
            guint32 got = tiles[((ty * TILES_ACROSS + tx) * BOX_HEIGHT + row) * BOX_WIDTH + column];

            if (got != expected)
              g_error ("tile (%u, %u), element (%u, %u): 0x%08x, not 0x%08x", tx, ty, column, row, got,
                       expected);
          }
}

static CugiTensorMap *
matrix_map_new (CugiBuffer         *matrix,
                CugiTensorDataType  data_type,
                gsize               pitch)
{
  g_autoptr(GError) error = NULL;
  const guint64 dims[] = { WIDTH, HEIGHT };
  const guint64 strides[] = { pitch };
  const guint32 box[] = { BOX_WIDTH, BOX_HEIGHT };
  CugiTensorMap *map = cugi_tensor_map_new_tiled (matrix, data_type, dims, 2, strides, 1, box, 2, &error);

  g_assert_no_error (error);
  return map;
}

static CugiLaunchConfig *
tiles_config_new (void)
{
  CugiLaunchConfig *config = cugi_launch_config_new (1, BOX_WIDTH * BOX_HEIGHT);

  cugi_launch_config_set_grid (config, TILES_ACROSS, TILES_DOWN, 1);
  return config;
}

/* Packed rows of 32-bit integers, through cugi_kernel_launch_with(). */
static void
test_packed_uint32 (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiBuffer) matrix = matrix_new (CUGI_TENSOR_DATA_TYPE_UINT32, WIDTH * sizeof (guint32));
  g_autoptr(CugiTensorMap) map = matrix_map_new (matrix, CUGI_TENSOR_DATA_TYPE_UINT32, WIDTH * sizeof (guint32));
  g_autoptr(CugiBuffer) out = cugi_test_buffer_new (OUT_ELEMENTS * sizeof (guint32));
  g_autoptr(CugiLaunchConfig) config = tiles_config_new ();

  g_assert_true (cugi_kernel_launch_with (tile_copy, config, &error, CUGI_ARG_TENSOR_MAP, map,
                                          CUGI_ARG_BUFFER, out, CUGI_ARG_END));
  g_assert_no_error (error);
  /* Dropped while the copy may still run: the launch keeps them. */
  g_clear_object (&map);
  g_clear_object (&matrix);
  cugi_test_synchronize (NULL);
  check_tiles (out, CUGI_TENSOR_DATA_TYPE_UINT32);
}

/* Rows of floats 512 bytes apart, through GValues as bindings pass them. */
static void
test_pitched_float32 (void)
{
  g_autoptr(GError) error = NULL;
  const gsize pitch = 512;
  g_autoptr(CugiBuffer) matrix = matrix_new (CUGI_TENSOR_DATA_TYPE_FLOAT32, pitch);
  g_autoptr(CugiTensorMap) map = matrix_map_new (matrix, CUGI_TENSOR_DATA_TYPE_FLOAT32, pitch);
  g_autoptr(CugiBuffer) out = cugi_test_buffer_new (OUT_ELEMENTS * sizeof (guint32));
  g_autoptr(CugiLaunchConfig) config = tiles_config_new ();
  GValue values[2] = { G_VALUE_INIT, G_VALUE_INIT };

  g_value_init (&values[0], CUGI_TYPE_TENSOR_MAP);
  g_value_set_object (&values[0], map);
  g_value_init (&values[1], CUGI_TYPE_BUFFER);
  g_value_set_object (&values[1], out);
  g_assert_true (cugi_kernel_launch_values (tile_copy, config, values, G_N_ELEMENTS (values), &error));
  g_assert_no_error (error);
  g_value_unset (&values[0]);
  g_value_unset (&values[1]);
  cugi_test_synchronize (NULL);
  check_tiles (out, CUGI_TENSOR_DATA_TYPE_FLOAT32);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiContext) context = NULL;
  gint major, minor;
  int status;

  cugi_test_init (&argc, &argv);
  cugi_test_require_gpu ();
  context = cugi_test_default_context ();
  cugi_device_get_compute_capability (cugi_context_get_device (context), &major, &minor);
  if (major < 9)
    cugi_test_skip_all ("tensor maps need compute capability 9.0 or later; the GPU has %d.%d", major, minor);
  tile_copy = cugi_test_kernel_new (tile_copy_source, "tile_copy");

  g_test_add_func ("/tensor-map/packed-uint32", test_packed_uint32);
  g_test_add_func ("/tensor-map/pitched-float32", test_pitched_float32);

  status = g_test_run ();
  g_clear_object (&tile_copy);
  return status;
}
