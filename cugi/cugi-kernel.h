/* cugi-kernel.h: a kernel of a module, and its launches */
#pragma once

#if !defined(__CUGI_INSIDE__) && !defined(CUGI_COMPILATION)
#error "Only <cugi/cugi.h> can be included directly."
#endif

#include <gio/gio.h>
#include "cugi-version.h"
#include "cugi-types.h"
#include "cugi-context.h"

G_BEGIN_DECLS

/**
 * CugiFunctionAttribute:
 * @CUGI_FUNCTION_ATTRIBUTE_MAX_THREADS_PER_BLOCK: the most threads a block of
 *   the kernel may have, for its register use and launch bounds
 * @CUGI_FUNCTION_ATTRIBUTE_SHARED_SIZE_BYTES: static shared memory of a
 *   block, in bytes
 * @CUGI_FUNCTION_ATTRIBUTE_CONST_SIZE_BYTES: constant memory the kernel
 *   uses, in bytes
 * @CUGI_FUNCTION_ATTRIBUTE_LOCAL_SIZE_BYTES: local memory of a thread, in bytes
 * @CUGI_FUNCTION_ATTRIBUTE_NUM_REGS: registers of a thread
 * @CUGI_FUNCTION_ATTRIBUTE_PTX_VERSION: the PTX virtual architecture the
 *   kernel was compiled for, as major × 10 + minor
 * @CUGI_FUNCTION_ATTRIBUTE_BINARY_VERSION: the architecture of the binary,
 *   as major × 10 + minor
 * @CUGI_FUNCTION_ATTRIBUTE_CACHE_MODE_CA: 1 when the kernel was compiled
 *   with `-Xptxas --dlcm=ca`
 * @CUGI_FUNCTION_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: the most dynamic
 *   shared memory a launch may ask for; settable, up to the device's opt-in
 *   limit less the static shared memory
 * @CUGI_FUNCTION_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT: the share of
 *   the L1/shared memory that should be shared memory, in percent, or -1
 *   for no preference; settable
 * @CUGI_FUNCTION_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET: 1 when launches must
 *   give cluster dimensions
 * @CUGI_FUNCTION_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH: the cluster width the
 *   kernel was compiled for, or 0; settable before the first launch
 * @CUGI_FUNCTION_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT: the cluster height the
 *   kernel was compiled for, or 0; settable before the first launch
 * @CUGI_FUNCTION_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH: the cluster depth the
 *   kernel was compiled for, or 0; settable before the first launch
 * @CUGI_FUNCTION_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED: whether
 *   clusters larger than the portable 8 blocks are allowed; settable
 * @CUGI_FUNCTION_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE: how the
 *   blocks of a cluster are spread over the GPU; settable
 *
 * Attributes of a kernel, read with cugi_kernel_get_attribute() and, where
 * settable, changed with cugi_kernel_set_attribute(): the driver's
 * `CU_FUNC_ATTRIBUTE_*` values, with the same numbers.
 *
 * Since: 0.1
 */
typedef enum
{
  CUGI_FUNCTION_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0,
  CUGI_FUNCTION_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
  CUGI_FUNCTION_ATTRIBUTE_CONST_SIZE_BYTES = 2,
  CUGI_FUNCTION_ATTRIBUTE_LOCAL_SIZE_BYTES = 3,
  CUGI_FUNCTION_ATTRIBUTE_NUM_REGS = 4,
  CUGI_FUNCTION_ATTRIBUTE_PTX_VERSION = 5,
  CUGI_FUNCTION_ATTRIBUTE_BINARY_VERSION = 6,
  CUGI_FUNCTION_ATTRIBUTE_CACHE_MODE_CA = 7,
  CUGI_FUNCTION_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
  CUGI_FUNCTION_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT = 9,
  CUGI_FUNCTION_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET = 10,
  CUGI_FUNCTION_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH = 11,
  CUGI_FUNCTION_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT = 12,
  CUGI_FUNCTION_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH = 13,
  CUGI_FUNCTION_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED = 14,
  CUGI_FUNCTION_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE = 15,
} CugiFunctionAttribute;

/**
 * CugiParameterKind:
 * @CUGI_PARAMETER_KIND_UNKNOWN: nothing is known of the parameter's type
 *   (an `extern "C"` kernel, whose name tells no types), at most its size
 * @CUGI_PARAMETER_KIND_POINTER: a pointer, to be given a #CugiBuffer
 * @CUGI_PARAMETER_KIND_BOOL: a `bool`, one byte
 * @CUGI_PARAMETER_KIND_INT8: a `signed char` (or `char`)
 * @CUGI_PARAMETER_KIND_UINT8: an `unsigned char`
 * @CUGI_PARAMETER_KIND_INT16: a `short`
 * @CUGI_PARAMETER_KIND_UINT16: an `unsigned short`
 * @CUGI_PARAMETER_KIND_INT32: an `int`
 * @CUGI_PARAMETER_KIND_UINT32: an `unsigned int`
 * @CUGI_PARAMETER_KIND_INT64: a `long` or `long long`
 * @CUGI_PARAMETER_KIND_UINT64: an `unsigned long` or `unsigned long long`
 * @CUGI_PARAMETER_KIND_FLOAT: a `float`
 * @CUGI_PARAMETER_KIND_DOUBLE: a `double`
 * @CUGI_PARAMETER_KIND_STRUCT: another type passed by value, known by its
 *   size alone: a struct, a `__half`, a vector type...
 *
 * What a kernel parameter is, as cugi_kernel_get_parameter_kinds() reports
 * it: for C++ kernels, the type their mangled name tells.
 *
 * Since: 0.1
 */
typedef enum
{
  CUGI_PARAMETER_KIND_UNKNOWN,
  CUGI_PARAMETER_KIND_POINTER,
  CUGI_PARAMETER_KIND_BOOL,
  CUGI_PARAMETER_KIND_INT8,
  CUGI_PARAMETER_KIND_UINT8,
  CUGI_PARAMETER_KIND_INT16,
  CUGI_PARAMETER_KIND_UINT16,
  CUGI_PARAMETER_KIND_INT32,
  CUGI_PARAMETER_KIND_UINT32,
  CUGI_PARAMETER_KIND_INT64,
  CUGI_PARAMETER_KIND_UINT64,
  CUGI_PARAMETER_KIND_FLOAT,
  CUGI_PARAMETER_KIND_DOUBLE,
  CUGI_PARAMETER_KIND_STRUCT,
} CugiParameterKind;

#define CUGI_TYPE_KERNEL (cugi_kernel_get_type ())
CUGI_AVAILABLE_IN_0_1
G_DECLARE_FINAL_TYPE (CugiKernel, cugi_kernel, CUGI, KERNEL, GObject)

CUGI_AVAILABLE_IN_0_1
CugiKernel  *cugi_kernel_new_from_source    (CugiContext         *context,
                                             const gchar         *source,
                                             const gchar         *name,
                                             const gchar * const *options,
                                             GError             **error);

CUGI_AVAILABLE_IN_0_1
CugiModule  *cugi_kernel_get_module         (CugiKernel          *self);
CUGI_AVAILABLE_IN_0_1
const gchar *cugi_kernel_get_name           (CugiKernel          *self);
CUGI_AVAILABLE_IN_0_1
const gchar *cugi_kernel_get_mangled_name   (CugiKernel          *self);
CUGI_AVAILABLE_IN_0_1
gint         cugi_kernel_get_num_params     (CugiKernel          *self);

CUGI_AVAILABLE_IN_0_1
gint         cugi_kernel_get_attribute      (CugiKernel           *self,
                                             CugiFunctionAttribute attribute,
                                             GError              **error);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_kernel_set_attribute      (CugiKernel           *self,
                                             CugiFunctionAttribute attribute,
                                             gint                  value,
                                             GError              **error);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_kernel_set_cache_config   (CugiKernel          *self,
                                             CugiCacheConfig      config,
                                             GError             **error);

CUGI_AVAILABLE_IN_0_1
gboolean     cugi_kernel_launch             (CugiKernel          *self,
                                             CugiLaunchConfig    *config,
                                             CugiKernelArgs      *args,
                                             GError             **error);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_kernel_launch_values      (CugiKernel          *self,
                                             CugiLaunchConfig    *config,
                                             const GValue        *args,
                                             guint                n_args,
                                             GError             **error);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_kernel_append_int         (CugiKernel          *self,
                                             CugiKernelArgs      *args,
                                             gint64               value,
                                             GError             **error);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_kernel_append_uint        (CugiKernel          *self,
                                             CugiKernelArgs      *args,
                                             guint64              value,
                                             GError             **error);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_kernel_append_float       (CugiKernel          *self,
                                             CugiKernelArgs      *args,
                                             gfloat               value,
                                             GError             **error);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_kernel_append_double      (CugiKernel          *self,
                                             CugiKernelArgs      *args,
                                             gdouble              value,
                                             GError             **error);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_kernel_launch_with        (CugiKernel          *self,
                                             CugiLaunchConfig    *config,
                                             GError             **error,
                                             ...);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_kernel_launch_with_valist (CugiKernel          *self,
                                             CugiLaunchConfig    *config,
                                             GError             **error,
                                             va_list              args);

CUGI_AVAILABLE_IN_0_1
CugiParameterKind *cugi_kernel_get_parameter_kinds (CugiKernel *self,
                                                    guint      *n_params);
CUGI_AVAILABLE_IN_0_1
gsize       *cugi_kernel_get_parameter_sizes (CugiKernel          *self,
                                              guint               *n_params);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_kernel_launch_packed      (CugiKernel          *self,
                                             CugiLaunchConfig    *config,
                                             const guint8        *block,
                                             gsize                block_size,
                                             CugiBuffer         **buffers,
                                             guint                n_buffers,
                                             GError             **error);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_kernel_launch_update      (CugiKernel          *self,
                                             CugiLaunchConfig    *config,
                                             CugiKernelArgs      *args,
                                             const guint8        *block,
                                             gsize                block_size,
                                             CugiBuffer         **buffers,
                                             guint                n_buffers,
                                             GError             **error);

CUGI_AVAILABLE_IN_0_1
gint         cugi_kernel_get_max_active_blocks_per_multiprocessor (CugiKernel *self,
                                                                    guint       block_size,
                                                                    gsize       dynamic_shared_memory,
                                                                    GError    **error);
CUGI_AVAILABLE_IN_0_1
gint         cugi_kernel_suggest_block_size (CugiKernel          *self,
                                             gsize                dynamic_shared_memory,
                                             gint                *min_grid_size,
                                             GError             **error);

G_END_DECLS
