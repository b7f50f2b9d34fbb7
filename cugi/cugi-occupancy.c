/* cugi-occupancy.c: how many blocks of a kernel fit on a multiprocessor */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "cugi-context-private.h"
#include "cugi-private.h"
#include "cugi-launch-private.h"

/**
 * CugiOccupancy:
 *
 * How many blocks of a kernel a multiprocessor of its device runs at once,
 * for a block size and an amount of dynamic shared memory, and what limits
 * that number: the record of PyCUDA's `OccupancyRecord`.
 *
 * It is worked out from the device's limits and the kernel's registers and
 * shared memory, the way the hardware allocates them (warps, register
 * allocation units per partition, shared memory allocation units and the
 * driver's reserve per block), so it agrees with the driver's own answer
 * (cugi_kernel_get_max_active_blocks_per_multiprocessor()) and tells in
 * addition which resource to spare to fit more blocks. A preferred shared
 * memory carveout set on the kernel is not taken into account: the model
 * assumes all of the multiprocessor's shared memory is available.
 *
 * Since: 0.1
 */

struct _CugiOccupancy
{
  guint               threads_per_block;
  CugiOccupancyResult result;
};

G_DEFINE_BOXED_TYPE (CugiOccupancy, cugi_occupancy, cugi_occupancy_copy, cugi_occupancy_free)

static gboolean
get_kernel_attribute (CugiKernel           *kernel,
                      CugiFunctionAttribute attribute,
                      guint                *value,
                      GError              **error)
{
  GError *local_error = NULL;
  gint result = cugi_kernel_get_attribute (kernel, attribute, &local_error);

  if (local_error != NULL)
    {
      g_propagate_error (error, local_error);
      return FALSE;
    }
  *value = MAX (result, 0);
  return TRUE;
}

static gboolean
read_device (CugiDevice          *device,
             CugiOccupancyDevice *limits,
             GError             **error)
{
  CUdevice handle = cugi_device_get_handle (device);
  guint major, minor;

  return cugi_kernel_get_device_attribute (handle, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &major, error) &&
         cugi_kernel_get_device_attribute (handle, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &minor, error) &&
         cugi_occupancy_device_set_architecture (limits, major, minor, error) &&
         cugi_kernel_get_device_attribute (handle, CU_DEVICE_ATTRIBUTE_WARP_SIZE, &limits->warp_size, error) &&
         cugi_kernel_get_device_attribute (handle, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR,
                                           &limits->max_threads_per_multiprocessor, error) &&
         cugi_kernel_get_device_attribute (handle, CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR,
                                           &limits->max_blocks_per_multiprocessor, error) &&
         cugi_kernel_get_device_attribute (handle, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                                           &limits->max_threads_per_block, error) &&
         cugi_kernel_get_device_attribute (handle, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR,
                                           &limits->registers_per_multiprocessor, error) &&
         cugi_kernel_get_device_attribute (handle, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK,
                                           &limits->max_registers_per_block, error) &&
         cugi_kernel_get_device_attribute (handle, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR,
                                           &limits->shared_memory_per_multiprocessor, error) &&
         cugi_kernel_get_device_attribute (handle, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                                           &limits->max_shared_memory_per_block, error) &&
         cugi_kernel_get_device_attribute (handle, CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK,
                                           &limits->reserved_shared_memory_per_block, error);
}

/**
 * cugi_occupancy_new_for_kernel:
 * @kernel: a kernel
 * @threads_per_block: the threads of a block
 * @dynamic_shared_memory: the dynamic shared memory of a block, in bytes
 * @error: return location for a #GError
 *
 * Works out the occupancy of @kernel on its device for blocks of
 * @threads_per_block threads. A block that cannot run at all (more threads
 * than the kernel allows, more shared memory than it may have) gives 0
 * blocks per multiprocessor, limited by that resource.
 *
 * Returns: (transfer full): the occupancy, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiOccupancy *
cugi_occupancy_new_for_kernel (CugiKernel *kernel,
                               guint       threads_per_block,
                               gsize       dynamic_shared_memory,
                               GError    **error)
{
  CugiOccupancyDevice limits = { 0 };
  CugiOccupancyKernel usage = { 0 };
  CugiDevice *device;
  guint kernel_max_threads;
  CugiOccupancy *self;

  g_return_val_if_fail (CUGI_IS_KERNEL (kernel), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (threads_per_block == 0)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                           _("A block has at least one thread"));
      return NULL;
    }
  if (dynamic_shared_memory > G_MAXUINT)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("%zu bytes of shared memory is more than any device has"),
                   dynamic_shared_memory);
      return NULL;
    }
  usage.threads_per_block = threads_per_block;
  usage.dynamic_shared_memory = dynamic_shared_memory;
  /* The kernel first: it reports a kernel that is unusable. */
  if (!get_kernel_attribute (kernel, CUGI_FUNCTION_ATTRIBUTE_NUM_REGS, &usage.registers_per_thread, error) ||
      !get_kernel_attribute (kernel, CUGI_FUNCTION_ATTRIBUTE_SHARED_SIZE_BYTES, &usage.static_shared_memory, error) ||
      !get_kernel_attribute (kernel, CUGI_FUNCTION_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                             &usage.max_dynamic_shared_memory, error) ||
      !get_kernel_attribute (kernel, CUGI_FUNCTION_ATTRIBUTE_MAX_THREADS_PER_BLOCK, &kernel_max_threads, error))
    return NULL;
  device = cugi_context_get_device (cugi_kernel_get_context (kernel));
  if (device == NULL)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_CONTEXT,
                           _("The kernel's context has no device"));
      return NULL;
    }
  if (!read_device (device, &limits, error))
    return NULL;
  /* The kernel's register use and launch bounds may allow fewer threads. */
  limits.max_threads_per_block = MIN (limits.max_threads_per_block, kernel_max_threads);

  self = g_new0 (CugiOccupancy, 1);
  self->threads_per_block = threads_per_block;
  cugi_occupancy_model_compute (&limits, &usage, &self->result);
  return self;
}

/**
 * cugi_occupancy_copy:
 * @self: an occupancy
 *
 * Returns: (transfer full): a copy of @self
 *
 * Since: 0.1
 */
CugiOccupancy *
cugi_occupancy_copy (const CugiOccupancy *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return g_memdup2 (self, sizeof *self);
}

/**
 * cugi_occupancy_free:
 * @self: (transfer full): an occupancy
 *
 * Frees @self.
 *
 * Since: 0.1
 */
void
cugi_occupancy_free (CugiOccupancy *self)
{
  g_free (self);
}

/**
 * cugi_occupancy_get_threads_per_block:
 * @self: an occupancy
 *
 * Returns: the block size @self was worked out for
 *
 * Since: 0.1
 */
guint
cugi_occupancy_get_threads_per_block (const CugiOccupancy *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->threads_per_block;
}

/**
 * cugi_occupancy_get_blocks_per_multiprocessor:
 * @self: an occupancy
 *
 * Returns: how many blocks a multiprocessor runs at once (PyCUDA's
 *   `tb_per_mp`)
 *
 * Since: 0.1
 */
guint
cugi_occupancy_get_blocks_per_multiprocessor (const CugiOccupancy *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->result.blocks_per_multiprocessor;
}

/**
 * cugi_occupancy_get_warps_per_multiprocessor:
 * @self: an occupancy
 *
 * Returns: how many warps a multiprocessor runs at once (PyCUDA's
 *   `warps_per_mp`)
 *
 * Since: 0.1
 */
guint
cugi_occupancy_get_warps_per_multiprocessor (const CugiOccupancy *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->result.warps_per_multiprocessor;
}

/**
 * cugi_occupancy_get_limited_by:
 * @self: an occupancy
 *
 * Returns: the resource that bounds the number of blocks (PyCUDA's
 *   `limited_by`)
 *
 * Since: 0.1
 */
CugiOccupancyLimit
cugi_occupancy_get_limited_by (const CugiOccupancy *self)
{
  g_return_val_if_fail (self != NULL, CUGI_OCCUPANCY_LIMIT_WARPS);

  return self->result.limited_by;
}

/**
 * cugi_occupancy_get_occupancy:
 * @self: an occupancy
 *
 * Returns: the warps that run at once over the most a multiprocessor can
 *   run, between 0 and 1 (PyCUDA's `occupancy`)
 *
 * Since: 0.1
 */
gdouble
cugi_occupancy_get_occupancy (const CugiOccupancy *self)
{
  g_return_val_if_fail (self != NULL, 0.0);

  return self->result.occupancy;
}
