/* test-occupancy-model.c: the occupancy model against figures worked out by
 * hand for an H100 (sm_90), without a GPU. */
#include "config.h"

#include "cugi-launch-private.h"
#include "cugi-test-utils.h"

/* An H100 SXM multiprocessor, as the driver reports it (and the fixed
 * figures of its architecture):
 *   warps of 32 threads, 2048 threads = 64 warps and 32 blocks per SM,
 *   1024 threads per block, 65536 registers per SM and per block,
 *   255 registers per thread, registers allocated per warp in units of
 *   256 in each of 4 partitions (16384 registers each),
 *   228 KiB = 233472 bytes of shared memory per SM, at most 227 KiB =
 *   232448 bytes per block, 1 KiB reserved per block by the driver,
 *   allocated in units of 128 bytes. */
static CugiOccupancyDevice
h100 (void)
{
  CugiOccupancyDevice device = {
    .warp_size = 32,
    .max_threads_per_multiprocessor = 2048,
    .max_blocks_per_multiprocessor = 32,
    .max_threads_per_block = 1024,
    .registers_per_multiprocessor = 65536,
    .max_registers_per_block = 65536,
    .shared_memory_per_multiprocessor = 228 * 1024,
    .max_shared_memory_per_block = 227 * 1024,
    .reserved_shared_memory_per_block = 1024,
  };
  g_autoptr(GError) error = NULL;

  g_assert_true (cugi_occupancy_device_set_architecture (&device, 9, 0, &error));
  g_assert_no_error (error);
  return device;
}

typedef struct
{
  const char        *what;
  guint              threads;
  guint              registers;
  guint              static_shared;
  guint              dynamic_shared;
  guint              max_dynamic_shared;
  guint              blocks;
  guint              warps;
  CugiOccupancyLimit limited_by;
  gdouble            occupancy;
} Case;

/* The arithmetic of each case, by hand. "warps: 64 / w" is the warp-slot
 * bound for blocks of w warps; "regs" the register bound, from the warps
 * one 16384-register partition holds; "smem" the shared memory bound, from
 * what a block is allocated (its use plus the 1 KiB reserve, rounded up to
 * 128 bytes); "blocks" is always 32. The smallest bound wins, ties going to
 * the first of warps, registers, shared memory, blocks. */
static const Case cases[] = {
  /* 1024 threads = 32 warps. warps: 64/32 = 2. regs: 64×32 = 2048 a warp,
   * 16384/2048 = 8 warps a partition, 32 an SM: 32/32 = 1 block.
   * smem: 1024 a block, 233472/1024 = 228. → 1 block, 32 warps, 0.5. */
  { "1024 threads × 64 registers", 1024, 64, 0, 0, 48 * 1024,
    1, 32, CUGI_OCCUPANCY_LIMIT_REGISTERS, 0.5 },

  /* 256 threads = 8 warps. warps: 64/8 = 8. regs: 32×32 = 1024 a warp,
   * 16 a partition, 64 an SM: 64/8 = 8. A tie: warps come first.
   * → 8 blocks, 64 warps, full occupancy. */
  { "256 threads × 32 registers", 256, 32, 0, 0, 48 * 1024,
    8, 64, CUGI_OCCUPANCY_LIMIT_WARPS, 1.0 },

  /* 128 threads = 4 warps. warps: 16. regs: 255×32 = 8160, rounded up to
   * 8192 a warp; 16384/8192 = 2 a partition, 8 an SM: 8/4 = 2 blocks.
   * → 2 blocks, 8 warps, 8/64 = 0.125. */
  { "128 threads × 255 registers", 128, 255, 0, 0, 48 * 1024,
    2, 8, CUGI_OCCUPANCY_LIMIT_REGISTERS, 0.125 },

  /* 256 threads = 8 warps, 32 registers: warps and regs allow 8.
   * smem: 102400 + 1024 = 103424 (a multiple of 128) a block,
   * 233472/103424 = 2.26 → 2. → 2 blocks, 16 warps, 0.25. */
  { "256 threads with 100 KiB of shared memory", 256, 32, 0, 100 * 1024, 227 * 1024,
    2, 16, CUGI_OCCUPANCY_LIMIT_SHARED_MEMORY, 0.25 },

  /* 32 threads = 1 warp. warps: 64. regs: 32×32 = 1024 a warp, 64 an SM:
   * 64. smem: 228. blocks: 32. → 32 blocks, 32 warps, 0.5. */
  { "32-thread blocks", 32, 32, 0, 0, 48 * 1024,
    32, 32, CUGI_OCCUPANCY_LIMIT_BLOCKS, 0.5 },

  /* 100 threads round up to 4 warps. warps: 16. regs: 40×32 = 1280 a warp
   * (5 units); 16384/1280 = 12.8 → 12 a partition, 48 an SM: 48/4 = 12.
   * → 12 blocks, 48 warps, 0.75. */
  { "100 threads (not a multiple of 32) × 40 registers", 100, 40, 0, 0, 48 * 1024,
    12, 48, CUGI_OCCUPANCY_LIMIT_REGISTERS, 0.75 },

  /* 80 threads = 3 warps. warps: 64/3 = 21. regs: 1280 a warp, 48 an SM
   * because each partition holds 12: 48/3 = 16 (the register file as a
   * whole, 65536/1280 = 51 warps, would wrongly give 17). → 16 blocks,
   * 48 warps, 0.75. */
  { "80 threads × 40 registers: partitions matter", 80, 40, 0, 0, 48 * 1024,
    16, 48, CUGI_OCCUPANCY_LIMIT_REGISTERS, 0.75 },

  /* 256 threads × 33 registers: 33×32 = 1056, rounded up to 1280 a warp;
   * 48 warps an SM: 48/8 = 6. → 6 blocks, 48 warps, 0.75. */
  { "33 registers round up to 40", 256, 33, 0, 0, 48 * 1024,
    6, 48, CUGI_OCCUPANCY_LIMIT_REGISTERS, 0.75 },

  /* 64 threads = 2 warps, 16 registers: warps 32, regs 128/2 = 64.
   * smem: 32329 + 1024 = 33353, rounded up to 33408 a block:
   * 233472/33408 = 6.99 → 6 (unrounded, 233472/33353 = 7.0). → 6 blocks,
   * 12 warps, 12/64 = 0.1875. */
  { "shared memory rounds up to 128 bytes", 64, 16, 0, 32329, 48 * 1024,
    6, 12, CUGI_OCCUPANCY_LIMIT_SHARED_MEMORY, 0.1875 },

  /* Static and dynamic shared memory add up: 16384 + 16384 + 1024 = 33792
   * a block, 233472/33792 = 6.9 → 6; 128 threads = 4 warps, 16 regs.
   * → 6 blocks, 24 warps, 0.375. */
  { "static and dynamic shared memory", 128, 16, 16384, 16384, 32768,
    6, 24, CUGI_OCCUPANCY_LIMIT_SHARED_MEMORY, 0.375 },

  /* No block fits: 2048 threads is over the 1024 a block may have. */
  { "too many threads", 2048, 16, 0, 0, 48 * 1024,
    0, 0, CUGI_OCCUPANCY_LIMIT_WARPS, 0.0 },

  /* No block fits: 72×32 = 2304 a warp, × 32 warps = 73728 registers, over
   * the 65536 a block may have. */
  { "too many registers for a block", 1024, 72, 0, 0, 48 * 1024,
    0, 0, CUGI_OCCUPANCY_LIMIT_REGISTERS, 0.0 },

  /* No block fits: 64 KiB of dynamic shared memory, and the kernel allows
   * 48 KiB (it did not opt in to more). */
  { "more dynamic shared memory than the kernel allows", 128, 16, 0, 64 * 1024, 48 * 1024,
    0, 0, CUGI_OCCUPANCY_LIMIT_SHARED_MEMORY, 0.0 },
};

static void
test_h100 (void)
{
  const CugiOccupancyDevice device = h100 ();

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const Case *c = &cases[i];
      CugiOccupancyKernel kernel = {
        .threads_per_block = c->threads,
        .registers_per_thread = c->registers,
        .static_shared_memory = c->static_shared,
        .dynamic_shared_memory = c->dynamic_shared,
        .max_dynamic_shared_memory = c->max_dynamic_shared,
      };
      CugiOccupancyResult result = { 0 };

      cugi_occupancy_model_compute (&device, &kernel, &result);
      g_test_message ("%s: %u blocks, %u warps, limited by %d, occupancy %g", c->what,
                      result.blocks_per_multiprocessor, result.warps_per_multiprocessor,
                      result.limited_by, result.occupancy);
      g_assert_cmpuint (result.blocks_per_multiprocessor, ==, c->blocks);
      g_assert_cmpuint (result.warps_per_multiprocessor, ==, c->warps);
      g_assert_cmpint (result.limited_by, ==, c->limited_by);
      g_assert_cmpfloat_with_epsilon (result.occupancy, c->occupancy, 1e-12);
    }
}

/* The architecture's fixed figures, and a refusal for what is not modelled. */
static void
test_architectures (void)
{
  CugiOccupancyDevice device = { 0 };
  g_autoptr(GError) error = NULL;

  g_assert_true (cugi_occupancy_device_set_architecture (&device, 7, 0, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (device.shared_memory_allocation_unit, ==, 256);
  g_assert_cmpuint (device.register_partitions, ==, 4);

  g_assert_true (cugi_occupancy_device_set_architecture (&device, 6, 0, &error));
  g_assert_cmpuint (device.register_partitions, ==, 2);

  g_assert_true (cugi_occupancy_device_set_architecture (&device, 8, 6, &error));
  g_assert_cmpuint (device.shared_memory_allocation_unit, ==, 128);
  g_assert_cmpuint (device.register_allocation_unit, ==, 256);
  g_assert_cmpuint (device.max_registers_per_thread, ==, 255);

  g_assert_false (cugi_occupancy_device_set_architecture (&device, 2, 1, &error));
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_NOT_SUPPORTED);
}

int
main (int   argc,
      char *argv[])
{
  cugi_test_init (&argc, &argv);

  g_test_add_func ("/occupancy-model/h100", test_h100);
  g_test_add_func ("/occupancy-model/architectures", test_architectures);

  return g_test_run ();
}
