/* cugi-launch-config.c: how a kernel is launched */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "cugi-launch-private.h"

/**
 * CugiLaunchConfig:
 *
 * The shape of a kernel launch: the grid of blocks, the threads of a block,
 * the dynamic shared memory of each block, the stream, and whether the
 * launch is cooperative or grouped in clusters.
 *
 * A configuration is checked when it is used, against the device and the
 * kernel: a zero dimension, a block larger than the kernel or the device
 * allows, a grid beyond the device's limits or too much shared memory is a
 * %CUGI_ERROR_INVALID_ARGUMENT error of cugi_kernel_launch().
 *
 * It is reference counted and may be kept and reused for any number of
 * launches.
 *
 * Since: 0.1
 */

G_STATIC_ASSERT (sizeof (CugiLaunchConfig) <= CUGI_LAUNCH_CONFIG_ALIGNMENT);

G_DEFINE_BOXED_TYPE (CugiLaunchConfig, cugi_launch_config,
                     cugi_launch_config_ref, cugi_launch_config_unref)

/* One counter for all configurations, so that a serial names one state of
 * one configuration; gsize, so that serials are never reused in practice.
 * Kernels take values of it too, which then belong to no configuration. */
gsize
cugi_launch_config_next_serial (void)
{
  static gsize last_serial;

  return (gsize) g_atomic_pointer_add (&last_serial, 1) + 1;
}

/* After every change, once the new settings are written: whoever reads the
 * serial before the settings reads settings at least as new as it names. */
static void
changed (CugiLaunchConfig *self)
{
  g_atomic_pointer_set (&self->serial, cugi_launch_config_next_serial ());
}

/**
 * cugi_launch_config_new:
 * @grid_x: the number of blocks
 * @block_x: the number of threads of each block
 *
 * A one-dimensional launch of @grid_x blocks of @block_x threads, with no
 * dynamic shared memory, on the context's default stream. The other setters
 * change the rest.
 *
 * Returns: (transfer full): a new launch configuration
 *
 * Since: 0.1
 */
CugiLaunchConfig *
cugi_launch_config_new (guint grid_x,
                        guint block_x)
{
  CugiLaunchConfig *self = g_aligned_alloc0 (1, sizeof (CugiLaunchConfig), CUGI_LAUNCH_CONFIG_ALIGNMENT);

  g_atomic_ref_count_init (&self->ref_count);
  cugi_launch_config_set_grid (self, grid_x, 1, 1);
  cugi_launch_config_set_block (self, block_x, 1, 1);
  return self;
}

/**
 * cugi_launch_config_new_2d:
 * @grid_x: blocks along x
 * @grid_y: blocks along y
 * @block_x: threads of each block along x
 * @block_y: threads of each block along y
 *
 * A two-dimensional launch of @grid_x × @grid_y blocks of @block_x × @block_y
 * threads, with no dynamic shared memory, on the context's default stream.
 *
 * Returns: (transfer full): a new launch configuration
 *
 * Since: 0.1
 */
CugiLaunchConfig *
cugi_launch_config_new_2d (guint grid_x,
                           guint grid_y,
                           guint block_x,
                           guint block_y)
{
  CugiLaunchConfig *self = cugi_launch_config_new (grid_x, block_x);

  cugi_launch_config_set_grid (self, grid_x, grid_y, 1);
  cugi_launch_config_set_block (self, block_x, block_y, 1);
  return self;
}

/* The blocks of @block threads that cover @size: the quotient rounded up,
 * computed without the overflow of (size + block - 1) / block. */
static guint
blocks_to_cover (guint size,
                 guint block)
{
  return size / block + (size % block != 0);
}

/**
 * cugi_launch_config_new_for_size_2d:
 * @width: the width to cover, in threads (the pixels of an image's row)
 * @height: the height to cover, in threads
 * @block_x: threads of each block along x
 * @block_y: threads of each block along y
 * @error: return location for a #GError
 *
 * A two-dimensional launch of @block_x × @block_y blocks, as many as cover a
 * @width × @height image with a thread for each pixel: the grid is
 * @width / @block_x by @height / @block_y, each rounded up. The last blocks
 * may reach past the image, so the kernel must check its coordinates.
 *
 * A zero @width, @height, @block_x or @block_y is a
 * %CUGI_ERROR_INVALID_ARGUMENT error.
 *
 * Returns: (transfer full): a new launch configuration, or %NULL with @error
 *   set
 *
 * Since: 0.1
 */
CugiLaunchConfig *
cugi_launch_config_new_for_size_2d (guint    width,
                                    guint    height,
                                    guint    block_x,
                                    guint    block_y,
                                    GError **error)
{
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (block_x == 0 || block_y == 0)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("A block of %u × %u threads has none: each dimension must be at least 1"),
                   block_x, block_y);
      return NULL;
    }
  if (width == 0 || height == 0)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("A size of %u × %u has nothing to cover: each dimension must be at least 1"),
                   width, height);
      return NULL;
    }
  return cugi_launch_config_new_2d (blocks_to_cover (width, block_x), blocks_to_cover (height, block_y),
                                    block_x, block_y);
}

/**
 * cugi_launch_config_ref:
 * @self: a launch configuration
 *
 * Returns: (transfer full): @self, with one more reference
 *
 * Since: 0.1
 */
CugiLaunchConfig *
cugi_launch_config_ref (CugiLaunchConfig *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

/**
 * cugi_launch_config_unref:
 * @self: (transfer full): a launch configuration
 *
 * Drops a reference; the last one frees @self.
 *
 * Since: 0.1
 */
void
cugi_launch_config_unref (CugiLaunchConfig *self)
{
  g_return_if_fail (self != NULL);

  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;
  g_clear_object (&self->stream);
  g_aligned_free (self);
}

/**
 * cugi_launch_config_copy:
 * @self: a launch configuration
 *
 * A new configuration with the settings of @self, which later changes to
 * either leave the other alone.
 *
 * Returns: (transfer full): the copy
 *
 * Since: 0.1
 */
CugiLaunchConfig *
cugi_launch_config_copy (CugiLaunchConfig *self)
{
  CugiLaunchConfig *copy;

  g_return_val_if_fail (self != NULL, NULL);

  /* With the same settings, the copy may share the serial. */
  copy = g_aligned_alloc (1, sizeof *self, CUGI_LAUNCH_CONFIG_ALIGNMENT);
  memcpy (copy, self, sizeof *self);
  g_atomic_ref_count_init (&copy->ref_count);
  if (copy->stream != NULL)
    g_object_ref (copy->stream);
  return copy;
}

static void
set_dims (guint dims[3],
          guint x,
          guint y,
          guint z)
{
  dims[0] = x;
  dims[1] = y;
  dims[2] = z;
}

static void
get_dims (const guint dims[3],
          guint      *x,
          guint      *y,
          guint      *z)
{
  if (x != NULL)
    *x = dims[0];
  if (y != NULL)
    *y = dims[1];
  if (z != NULL)
    *z = dims[2];
}

/**
 * cugi_launch_config_set_grid:
 * @self: a launch configuration
 * @x: blocks along x
 * @y: blocks along y
 * @z: blocks along z
 *
 * Sets the grid of blocks. Each dimension must be at least 1 and within the
 * device's limits (#CUGI_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X and its kin); the
 * launch checks it.
 *
 * Since: 0.1
 */
void
cugi_launch_config_set_grid (CugiLaunchConfig *self,
                             guint             x,
                             guint             y,
                             guint             z)
{
  g_return_if_fail (self != NULL);

  set_dims (self->grid, x, y, z);
  changed (self);
}

/**
 * cugi_launch_config_get_grid:
 * @self: a launch configuration
 * @x: (out) (optional): blocks along x
 * @y: (out) (optional): blocks along y
 * @z: (out) (optional): blocks along z
 *
 * Gets the grid of blocks.
 *
 * Since: 0.1
 */
void
cugi_launch_config_get_grid (CugiLaunchConfig *self,
                             guint            *x,
                             guint            *y,
                             guint            *z)
{
  g_return_if_fail (self != NULL);

  get_dims (self->grid, x, y, z);
}

/**
 * cugi_launch_config_set_block:
 * @self: a launch configuration
 * @x: threads along x
 * @y: threads along y
 * @z: threads along z
 *
 * Sets the threads of each block. Each dimension must be at least 1, within
 * the device's limits, and the product no more than the kernel's
 * #CugiKernel:max-threads-per-block; the launch checks it.
 *
 * Since: 0.1
 */
void
cugi_launch_config_set_block (CugiLaunchConfig *self,
                              guint             x,
                              guint             y,
                              guint             z)
{
  g_return_if_fail (self != NULL);

  set_dims (self->block, x, y, z);
  changed (self);
}

/**
 * cugi_launch_config_get_block:
 * @self: a launch configuration
 * @x: (out) (optional): threads along x
 * @y: (out) (optional): threads along y
 * @z: (out) (optional): threads along z
 *
 * Gets the threads of each block.
 *
 * Since: 0.1
 */
void
cugi_launch_config_get_block (CugiLaunchConfig *self,
                              guint            *x,
                              guint            *y,
                              guint            *z)
{
  g_return_if_fail (self != NULL);

  get_dims (self->block, x, y, z);
}

/**
 * cugi_launch_config_set_shared_memory:
 * @self: a launch configuration
 * @bytes: dynamic shared memory of each block, in bytes
 *
 * Sets the size of each block's `extern __shared__` array. Beyond the
 * kernel's #CugiKernel:max-dynamic-shared-size-bytes (48 KiB less its static
 * shared memory, unless raised with cugi_kernel_set_attribute()) the launch
 * fails.
 *
 * Since: 0.1
 */
void
cugi_launch_config_set_shared_memory (CugiLaunchConfig *self,
                                      guint             bytes)
{
  g_return_if_fail (self != NULL);

  self->shared_memory = bytes;
  changed (self);
}

/**
 * cugi_launch_config_get_shared_memory:
 * @self: a launch configuration
 *
 * Returns: the dynamic shared memory of each block, in bytes
 *
 * Since: 0.1
 */
guint
cugi_launch_config_get_shared_memory (CugiLaunchConfig *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->shared_memory;
}

/**
 * cugi_launch_config_set_stream:
 * @self: a launch configuration
 * @stream: (nullable): a stream of the kernel's context, or %NULL for the
 *   context's default stream
 *
 * Sets the stream the launch is enqueued on.
 *
 * Since: 0.1
 */
void
cugi_launch_config_set_stream (CugiLaunchConfig *self,
                               CugiStream       *stream)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (stream == NULL || CUGI_IS_STREAM (stream));

  g_set_object (&self->stream, stream);
  changed (self);
}

/**
 * cugi_launch_config_get_stream:
 * @self: a launch configuration
 *
 * Returns: (transfer none) (nullable): the stream, or %NULL for the default
 *   stream
 *
 * Since: 0.1
 */
CugiStream *
cugi_launch_config_get_stream (CugiLaunchConfig *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->stream;
}

/**
 * cugi_launch_config_set_cooperative:
 * @self: a launch configuration
 * @cooperative: whether the blocks may synchronize with each other
 *
 * A cooperative launch guarantees that all blocks run at once, so that they
 * can synchronize through cooperative groups (`grid.sync()`). The grid must
 * then fit on the device at once: see
 * cugi_kernel_get_max_active_blocks_per_multiprocessor().
 *
 * Since: 0.1
 */
void
cugi_launch_config_set_cooperative (CugiLaunchConfig *self,
                                    gboolean          cooperative)
{
  g_return_if_fail (self != NULL);

  self->cooperative = !!cooperative;
  changed (self);
}

/**
 * cugi_launch_config_get_cooperative:
 * @self: a launch configuration
 *
 * Returns: whether the launch is cooperative
 *
 * Since: 0.1
 */
gboolean
cugi_launch_config_get_cooperative (CugiLaunchConfig *self)
{
  g_return_val_if_fail (self != NULL, FALSE);

  return self->cooperative;
}

/**
 * cugi_launch_config_set_cluster:
 * @self: a launch configuration
 * @x: blocks of a cluster along x
 * @y: blocks of a cluster along y
 * @z: blocks of a cluster along z
 *
 * Groups the blocks in clusters of @x × @y × @z blocks, which are scheduled
 * together and share distributed shared memory. Clusters need a device of
 * compute capability 9.0 or later (%CUGI_ERROR_NOT_SUPPORTED otherwise) and a
 * grid that is a whole number of clusters. 0, 0, 0 (the default) launches
 * without clusters.
 *
 * Since: 0.1
 */
void
cugi_launch_config_set_cluster (CugiLaunchConfig *self,
                                guint             x,
                                guint             y,
                                guint             z)
{
  g_return_if_fail (self != NULL);

  set_dims (self->cluster, x, y, z);
  changed (self);
}

/**
 * cugi_launch_config_get_cluster:
 * @self: a launch configuration
 * @x: (out) (optional): blocks of a cluster along x
 * @y: (out) (optional): blocks of a cluster along y
 * @z: (out) (optional): blocks of a cluster along z
 *
 * Gets the cluster dimensions; all 0 when the launch uses no clusters.
 *
 * Since: 0.1
 */
void
cugi_launch_config_get_cluster (CugiLaunchConfig *self,
                                guint            *x,
                                guint            *y,
                                guint            *z)
{
  g_return_if_fail (self != NULL);

  get_dims (self->cluster, x, y, z);
}
