/* cugi-context.h: CUDA contexts */
#pragma once

#if !defined(__CUGI_INSIDE__) && !defined(CUGI_COMPILATION)
#error "Only <cugi/cugi.h> can be included directly."
#endif

#include <gio/gio.h>
#include "cugi-version.h"
#include "cugi-types.h"

G_BEGIN_DECLS

/**
 * CugiContextFlags:
 * @CUGI_CONTEXT_FLAGS_NONE: automatic scheduling: the driver spins while it
 *   has fewer active contexts than CPU cores, and yields otherwise
 * @CUGI_CONTEXT_FLAGS_SCHED_SPIN: a thread waiting for the GPU spins, which
 *   lowers latency and costs a CPU core
 * @CUGI_CONTEXT_FLAGS_SCHED_YIELD: a thread waiting for the GPU yields its CPU
 *   to other threads while it waits
 * @CUGI_CONTEXT_FLAGS_SCHED_BLOCKING_SYNC: a thread waiting for the GPU
 *   sleeps on a synchronization primitive until the work completes
 * @CUGI_CONTEXT_FLAGS_MAP_HOST: allow mapped pinned host memory; always on
 *   since CUDA 11, accepted for compatibility
 * @CUGI_CONTEXT_FLAGS_LMEM_RESIZE_TO_MAX: keep local memory allocations after
 *   a launch instead of shrinking them; the default since CUDA 12, accepted
 *   for compatibility
 *
 * Flags of a context, the `CU_CTX_*` flags of the driver with the same
 * values. At most one of the three `SCHED` flags may be given.
 *
 * Since: 0.1
 */
typedef enum /*< flags >*/
{
  CUGI_CONTEXT_FLAGS_NONE               = 0,
  CUGI_CONTEXT_FLAGS_SCHED_SPIN         = 1 << 0,
  CUGI_CONTEXT_FLAGS_SCHED_YIELD        = 1 << 1,
  CUGI_CONTEXT_FLAGS_SCHED_BLOCKING_SYNC = 1 << 2,
  CUGI_CONTEXT_FLAGS_MAP_HOST           = 1 << 3,
  CUGI_CONTEXT_FLAGS_LMEM_RESIZE_TO_MAX = 1 << 4,
} CugiContextFlags;

/**
 * CugiLimit:
 * @CUGI_LIMIT_STACK_SIZE: stack size in bytes of each GPU thread
 * @CUGI_LIMIT_PRINTF_FIFO_SIZE: size in bytes of the FIFO that device-side
 *   `printf()` writes to
 * @CUGI_LIMIT_MALLOC_HEAP_SIZE: size in bytes of the heap of device-side
 *   `malloc()`
 * @CUGI_LIMIT_DEV_RUNTIME_SYNC_DEPTH: deepest nesting at which a kernel
 *   launched from the device may synchronize with its children
 * @CUGI_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT: most outstanding launches
 *   made from the device
 * @CUGI_LIMIT_MAX_L2_FETCH_GRANULARITY: L2 fetch granularity hint in bytes,
 *   between 0 and 128
 * @CUGI_LIMIT_PERSISTING_L2_CACHE_SIZE: size in bytes of the L2 cache set
 *   aside for persisting accesses
 *
 * Limits of a context, read with cugi_context_get_limit() and changed with
 * cugi_context_set_limit(); the `CU_LIMIT_*` values of the driver. A device
 * may not support every limit: that is a %CUGI_ERROR_NOT_SUPPORTED error.
 *
 * Since: 0.1
 */
typedef enum
{
  CUGI_LIMIT_STACK_SIZE                       = 0,
  CUGI_LIMIT_PRINTF_FIFO_SIZE                 = 1,
  CUGI_LIMIT_MALLOC_HEAP_SIZE                 = 2,
  CUGI_LIMIT_DEV_RUNTIME_SYNC_DEPTH           = 3,
  CUGI_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT = 4,
  CUGI_LIMIT_MAX_L2_FETCH_GRANULARITY         = 5,
  CUGI_LIMIT_PERSISTING_L2_CACHE_SIZE         = 6,
} CugiLimit;

/**
 * CugiCacheConfig:
 * @CUGI_CACHE_CONFIG_PREFER_NONE: no preference between shared memory and L1
 * @CUGI_CACHE_CONFIG_PREFER_SHARED: prefer more shared memory and less L1
 * @CUGI_CACHE_CONFIG_PREFER_L1: prefer more L1 and less shared memory
 * @CUGI_CACHE_CONFIG_PREFER_EQUAL: prefer L1 and shared memory of equal size
 *
 * How a context prefers to split on-chip memory between L1 cache and shared
 * memory, the driver's `CU_FUNC_CACHE_*` values. Devices with a fixed split
 * ignore the preference.
 *
 * Since: 0.1
 */
typedef enum
{
  /* Nicks keep PREFER_, which mkenums would strip as the common prefix. */
  CUGI_CACHE_CONFIG_PREFER_NONE   = 0, /*< nick=prefer-none >*/
  CUGI_CACHE_CONFIG_PREFER_SHARED = 1, /*< nick=prefer-shared >*/
  CUGI_CACHE_CONFIG_PREFER_L1     = 2, /*< nick=prefer-l1 >*/
  CUGI_CACHE_CONFIG_PREFER_EQUAL  = 3, /*< nick=prefer-equal >*/
} CugiCacheConfig;

#define CUGI_TYPE_CONTEXT (cugi_context_get_type ())
CUGI_AVAILABLE_IN_0_1
G_DECLARE_FINAL_TYPE (CugiContext, cugi_context, CUGI, CONTEXT, GObject)

CUGI_AVAILABLE_IN_0_1
CugiContext     *cugi_context_new_for_handle   (guint64           handle,
                                                GError          **error);
CUGI_AVAILABLE_IN_0_1
CugiContext     *cugi_context_new_for_handle_full (guint64         handle,
                                                gpointer          release_data,
                                                GDestroyNotify    release,
                                                GError          **error);
CUGI_AVAILABLE_IN_0_1
CugiContext     *cugi_context_new              (CugiDevice       *device,
                                                CugiContextFlags  flags,
                                                GError          **error);
CUGI_AVAILABLE_IN_0_1
CugiContext     *cugi_context_new_green        (CugiDevice       *device,
                                                guint             sm_count,
                                                GError          **error);
CUGI_AVAILABLE_IN_0_1
CugiContext     *cugi_context_get_default      (GError          **error);
CUGI_AVAILABLE_IN_0_1
CugiContext     *cugi_context_get_current      (GError          **error);
CUGI_AVAILABLE_IN_0_1
void             cugi_context_push_thread_default (CugiContext *self);
CUGI_AVAILABLE_IN_0_1
void             cugi_context_pop_thread_default  (CugiContext *self);

CUGI_AVAILABLE_IN_0_1
CugiDevice      *cugi_context_get_device       (CugiContext      *self);
CUGI_AVAILABLE_IN_0_1
gboolean         cugi_context_get_is_primary   (CugiContext      *self);
CUGI_AVAILABLE_IN_0_1
CugiContextFlags cugi_context_get_flags        (CugiContext      *self);
CUGI_AVAILABLE_IN_0_1
guint            cugi_context_get_api_version  (CugiContext      *self);
CUGI_AVAILABLE_IN_0_1
guint            cugi_context_get_sm_count     (CugiContext      *self,
                                                GError          **error);

CUGI_AVAILABLE_IN_0_1
gboolean         cugi_context_push             (CugiContext      *self,
                                                GError          **error);
CUGI_AVAILABLE_IN_0_1
gboolean         cugi_context_pop              (CugiContext      *self,
                                                GError          **error);

CUGI_AVAILABLE_IN_0_1
gboolean         cugi_context_synchronize      (CugiContext      *self,
                                                GError          **error);
CUGI_AVAILABLE_IN_0_1
void             cugi_context_synchronize_async (CugiContext        *self,
                                                 GCancellable       *cancellable,
                                                 GAsyncReadyCallback callback,
                                                 gpointer            user_data);
CUGI_AVAILABLE_IN_0_1
gboolean         cugi_context_synchronize_finish (CugiContext  *self,
                                                  GAsyncResult *result,
                                                  GError      **error);

CUGI_AVAILABLE_IN_0_1
guint64          cugi_context_get_memory_info  (CugiContext      *self,
                                                guint64          *total_bytes,
                                                GError          **error);
CUGI_AVAILABLE_IN_0_1
guint64          cugi_context_get_limit        (CugiContext      *self,
                                                CugiLimit         limit,
                                                GError          **error);
CUGI_AVAILABLE_IN_0_1
gboolean         cugi_context_set_limit        (CugiContext      *self,
                                                CugiLimit         limit,
                                                guint64           value,
                                                GError          **error);
CUGI_AVAILABLE_IN_0_1
CugiCacheConfig  cugi_context_get_cache_config (CugiContext      *self,
                                                GError          **error);
CUGI_AVAILABLE_IN_0_1
gboolean         cugi_context_set_cache_config (CugiContext      *self,
                                                CugiCacheConfig   config,
                                                GError          **error);
CUGI_AVAILABLE_IN_0_1
gint             cugi_context_get_stream_priority_range (CugiContext *self,
                                                         gint        *greatest,
                                                         GError     **error);
CUGI_AVAILABLE_IN_0_1
gboolean         cugi_context_enable_peer_access  (CugiContext  *self,
                                                   CugiContext  *peer,
                                                   GError      **error);
CUGI_AVAILABLE_IN_0_1
gboolean         cugi_context_disable_peer_access (CugiContext  *self,
                                                   CugiContext  *peer,
                                                   GError      **error);
CUGI_AVAILABLE_IN_0_1
gboolean         cugi_context_reset            (CugiContext      *self,
                                                GError          **error);

G_END_DECLS
