/* cugi-occupancy-model.c: how many blocks of a kernel a multiprocessor
 * holds, worked out from the device's limits and the kernel's needs alone.
 *
 * PyCUDA's OccupancyRecord takes the smallest of four bounds: warp slots,
 * registers, shared memory and the block limit. To agree with the driver
 * (cuOccupancyMaxActiveBlocksPerMultiprocessor) it counts resources the way
 * the hardware hands them out:
 *  - a block takes whole warps;
 *  - registers go to warps in allocation units (256 registers), and the
 *    register file is split evenly among the multiprocessor's partitions
 *    (warp schedulers): a warp's registers must fit in one partition;
 *  - shared memory goes to blocks in allocation units (128 bytes since
 *    compute capability 8.0), plus a reserve the driver keeps per block.
 */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "cugi-launch-private.h"

static guint
round_up (guint value,
          guint unit)
{
  return unit > 0 ? (value + unit - 1) / unit * unit : value;
}

static guint
blocks_by_warps (const CugiOccupancyDevice *device,
                 const CugiOccupancyKernel *kernel,
                 guint                      warps_per_block)
{
  if (kernel->threads_per_block == 0 ||
      kernel->threads_per_block > device->max_threads_per_block)
    return 0;
  return device->max_threads_per_multiprocessor / device->warp_size / warps_per_block;
}

static guint
blocks_by_registers (const CugiOccupancyDevice *device,
                     const CugiOccupancyKernel *kernel,
                     guint                      warps_per_block)
{
  guint registers_per_warp = round_up (kernel->registers_per_thread * device->warp_size,
                                       device->register_allocation_unit);
  guint partitions = MAX (device->register_partitions, 1);
  guint warps_per_partition;

  /* The launch is refused when a block, its warps spread over every
   * partition, needs more registers than a block may have. */
  if (kernel->registers_per_thread > device->max_registers_per_thread ||
      (guint64) registers_per_warp * round_up (warps_per_block, partitions) > device->max_registers_per_block)
    return 0;
  if (registers_per_warp == 0)
    return G_MAXUINT;
  warps_per_partition = device->registers_per_multiprocessor / partitions / registers_per_warp;
  return warps_per_partition * partitions / warps_per_block;
}

static guint
blocks_by_shared_memory (const CugiOccupancyDevice *device,
                         const CugiOccupancyKernel *kernel)
{
  guint64 used = (guint64) kernel->static_shared_memory + kernel->dynamic_shared_memory;
  guint64 allocated = round_up (used + device->reserved_shared_memory_per_block,
                                device->shared_memory_allocation_unit);

  if (kernel->dynamic_shared_memory > kernel->max_dynamic_shared_memory ||
      used > device->max_shared_memory_per_block ||
      allocated > device->shared_memory_per_multiprocessor)
    return 0;
  if (allocated == 0)
    return G_MAXUINT;
  return device->shared_memory_per_multiprocessor / allocated;
}

/* cugi_occupancy_model_compute():
 * @device: the limits of a multiprocessor
 * @kernel: what a block of the kernel needs
 * @result: (out caller-allocates): the blocks and warps a multiprocessor
 *   holds, and what bounds them
 *
 * A block that cannot run at all (too many threads, registers or shared
 * memory) gives 0 blocks, limited by the resource it exceeds.
 */
void
cugi_occupancy_model_compute (const CugiOccupancyDevice *device,
                              const CugiOccupancyKernel *kernel,
                              CugiOccupancyResult       *result)
{
  guint warps_per_block;
  guint max_warps;
  guint bounds[4];

  g_return_if_fail (device != NULL && device->warp_size > 0);
  g_return_if_fail (kernel != NULL);
  g_return_if_fail (result != NULL);

  warps_per_block = MAX ((kernel->threads_per_block + device->warp_size - 1) / device->warp_size, 1);
  max_warps = device->max_threads_per_multiprocessor / device->warp_size;

  /* In the order of CugiOccupancyLimit, which settles ties. */
  bounds[CUGI_OCCUPANCY_LIMIT_WARPS] = blocks_by_warps (device, kernel, warps_per_block);
  bounds[CUGI_OCCUPANCY_LIMIT_REGISTERS] = blocks_by_registers (device, kernel, warps_per_block);
  bounds[CUGI_OCCUPANCY_LIMIT_SHARED_MEMORY] = blocks_by_shared_memory (device, kernel);
  bounds[CUGI_OCCUPANCY_LIMIT_BLOCKS] = device->max_blocks_per_multiprocessor;

  result->limited_by = CUGI_OCCUPANCY_LIMIT_WARPS;
  for (guint limit = 1; limit < G_N_ELEMENTS (bounds); limit++)
    if (bounds[limit] < bounds[result->limited_by])
      result->limited_by = limit;

  result->blocks_per_multiprocessor = bounds[result->limited_by];
  result->warps_per_multiprocessor = result->blocks_per_multiprocessor * warps_per_block;
  result->occupancy = max_warps > 0 ? (gdouble) result->warps_per_multiprocessor / max_warps : 0.0;
}

/* cugi_occupancy_device_set_architecture():
 * @device: limits to complete
 * @major: the compute capability's major number
 * @minor: the compute capability's minor number
 * @error: return location for a #GError
 *
 * Fills in the allocation units, register partitions and per-thread
 * register limit, which the driver does not report: they are fixed per
 * architecture (NVIDIA's occupancy calculator, cuda_occupancy.h).
 *
 * Returns: %TRUE, or %FALSE for an architecture older than Kepler
 */
gboolean
cugi_occupancy_device_set_architecture (CugiOccupancyDevice *device,
                                        int                  major,
                                        int                  minor,
                                        GError             **error)
{
  if (major < 3)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_NOT_SUPPORTED,
                   _("The occupancy of devices of compute capability %d.%d is not modelled"),
                   major, minor);
      return FALSE;
    }
  device->register_allocation_unit = 256;
  /* GP100 (6.0) has two partitions; every other architecture four. */
  device->register_partitions = (major == 6 && minor == 0) ? 2 : 4;
  device->max_registers_per_thread = 255;
  device->shared_memory_allocation_unit = major >= 8 ? 128 : 256;
  return TRUE;
}
