/* cugi-private.h: internals shared between cugi's source files. Not installed. */
#pragma once

#include "cugi.h"
#include "cugi-loader.h"

G_BEGIN_DECLS

/* ---- errors (cugi-error.c) ------------------------------------------------ */

/* Calls a driver entry point through the loader's table and turns a failure
 * into a GError naming it:  CUGI_CALL (cuMemAlloc, (&ptr, size), error)  */
#define CUGI_CALL(entry_point, args, error) \
  cugi_check_result (cugi_cuda.entry_point args, #entry_point, (error))

gboolean  cugi_check_result            (CUresult     result,
                                        const char  *operation,
                                        GError     **error);
void      cugi_set_error_from_result   (GError     **error,
                                        CUresult     result,
                                        const char  *operation);
CugiError cugi_error_code_from_result  (CUresult     result);
/* FALSE when @result is missing from cugi's table (tested against cuda.h). */
gboolean  cugi_error_lookup_result     (CUresult     result,
                                        CugiError   *code,
                                        const char **name);
void      cugi_set_nvrtc_error         (GError     **error,
                                        nvrtcResult  result,
                                        const char  *operation);

/* ---- library state (cugi-init.c) ------------------------------------------ */

/* TRUE once the driver is loaded and initialized; the error otherwise. Every
 * public constructor calls this first. */
gboolean  cugi_ensure_driver           (GError **error);
/* The same for NVRTC, which needs no driver. */
gboolean  cugi_ensure_nvrtc            (GError **error);

/* ---- devices (cugi-device.c) ---------------------------------------------- */

CUdevice  cugi_device_get_handle       (CugiDevice *self);

/* ---- contexts (cugi-context.c) -------------------------------------------- */

/* Makes a context current for the duration of a call and restores the caller's
 * afterwards; nothing is pushed when it is current already.
 *
 *   g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
 *   if (!cugi_context_enter (ctx, &scope, error))
 *     return FALSE;
 */
typedef struct
{
  gboolean pushed;
} CugiContextScope;

#define CUGI_CONTEXT_SCOPE_INIT { FALSE }

gboolean  cugi_context_enter           (CugiContext      *self,
                                        CugiContextScope *scope,
                                        GError          **error);
void      cugi_context_leave           (CugiContextScope *scope);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (CugiContextScope, cugi_context_leave)

CUcontext cugi_context_get_handle      (CugiContext *self);
/* @context_or_null, or the default context: a new reference, NULL on error. */
CugiContext *cugi_context_resolve      (CugiContext *context_or_null,
                                        GError     **error);
/* The legacy default stream of @self as a CugiStream (owned by @self),
 * made by @make on first use: the streams layer, above this one, passes its
 * constructor, so that a context need not call up into it. */
CugiStream  *cugi_context_get_null_stream (CugiContext *self,
                                           CugiStream *(*make) (CugiContext *context));

/* ---- buffers (cugi-buffer.c) ---------------------------------------------- */

/* The device address of @self, or an INVALID_STATE error after free(). */
gboolean  cugi_buffer_get_address      (CugiBuffer  *self,
                                        CUdeviceptr *address,
                                        GError     **error);
/* A buffer over memory cugi does not own (a module's global, an IPC mapping
 * is not this): @owner (may be NULL) is kept alive as long as the buffer. */
CugiBuffer  *cugi_buffer_new_wrapping  (CugiContext *context,
                                        CUdeviceptr  address,
                                        gsize        size,
                                        GObject     *owner);

/* ---- modules and kernels (cugi-module.c, cugi-kernel.c) ------------------ */

/* Wraps a function of @module (which the kernel keeps alive). @name is what
 * the user asked for (a name expression or an extern "C" name), @mangled_name
 * the symbol's own name, from which C++ parameter types are read. */
CugiKernel *cugi_kernel_new_for_function (CugiModule *module,
                                          CUfunction  function,
                                          const char *name,
                                          const char *mangled_name);
/* The module for @source compiled for @context's device with @options, through
 * the disk cache, and loaded once per context (later calls return the same
 * module). @name_expressions (may be NULL) are registered before compiling. */
CugiModule  *cugi_module_new_from_source_cached (CugiContext        *context,
                                                 const char         *source,
                                                 const char * const *options,
                                                 const char * const *name_expressions,
                                                 GError            **error);

/* ---- utilities (cugi-utils.c) --------------------------------------------- */

/* The GMainContext that was thread-default when an object was made (a new
 * reference, never NULL: the global default when none was pushed). */
GMainContext *cugi_capture_main_context (void);

/* Each area adds its further internals in a section of its own below. */

/* ---- more: devices and contexts ------------------------------------------- */

/* Parses a device alias: "cuda" (the default device, *ordinal = -1) or
 * "cuda:N". Syntax only: cugi_device_get() says whether device N exists. */
gboolean  cugi_device_parse_alias      (const char *alias,
                                        int        *ordinal,
                                        GError    **error);
/* FALSE with CUGI_ERROR_INVALID_STATE for a device a binding made with
 * g_object_new() instead of cugi_device_get(): it stands for no GPU. */
gboolean  cugi_device_check            (CugiDevice *self,
                                        GError    **error);
/* FALSE with CUGI_ERROR_INVALID_ARGUMENT when @value is none of the values
 * of the enum type @enum_type: checked before the driver sees it, so a
 * binding's stray integer gets a clear message. */
gboolean  cugi_check_enum_value        (GType       enum_type,
                                        int         value,
                                        GError    **error);

/* Retains @device's primary context and wraps it; for
 * cugi_device_get_primary_context(), which keeps the one wrapper. */
CugiContext *cugi_context_new_primary  (CugiDevice *device,
                                        GError    **error);

/* Counts cugi_context_reset() calls on @self. Objects made in the context
 * remember it; when it has changed, their CUDA handles are gone and using
 * them must be an error (CUGI_ERROR_INVALID_STATE), never a driver call. */
guint     cugi_context_get_generation  (CugiContext *self);

/* ---- more: memory --------------------------------------------------------- */

/* Range checks (cugi-memory-core.c). Overflow-safe; INVALID_ARGUMENT naming
 * the numbers and @what (a translated noun such as _("source buffer")). */
gboolean  cugi_memory_check_range      (gsize        buffer_size,
                                        gsize        offset,
                                        gsize        size,
                                        const char  *what,
                                        GError     **error);
/* A region of @depth slices of @height rows of @width bytes, rows @pitch bytes
 * apart and slices @slice_height rows apart, starting at @offset. */
gboolean  cugi_memory_check_pitched_range (gsize        buffer_size,
                                           gsize        offset,
                                           gsize        pitch,
                                           gsize        slice_height,
                                           gsize        width,
                                           gsize        height,
                                           gsize        depth,
                                           const char  *what,
                                           GError     **error);
/* The bytes of a packed @width x @height x @depth region, FALSE on overflow. */
gboolean  cugi_memory_region_size      (gsize        width,
                                        gsize        height,
                                        gsize        depth,
                                        gsize       *size);

/* Memory that an object owns, released exactly once: when the user frees it
 * or the object is finalized, but never while work in flight still uses it
 * (cugi_memory_lifetime_free() then only marks it freed, and the last
 * cugi_memory_lifetime_end_use() releases). Thread-safe. */
typedef gboolean (*CugiMemoryReleaseFunc) (gpointer   owner,
                                           GError   **error);
typedef struct
{
  GMutex                lock;
  guint                 uses;
  gboolean              freed;     /* atomic: written under the lock, read without */
  gboolean              released;
  CugiMemoryReleaseFunc release;   /* NULL: nothing to release */
  gpointer              owner;
} CugiMemoryLifetime;

void      cugi_memory_lifetime_init    (CugiMemoryLifetime   *self,
                                        CugiMemoryReleaseFunc release,
                                        gpointer              owner);
gboolean  cugi_memory_lifetime_is_freed (CugiMemoryLifetime  *self);
/* INVALID_STATE with @freed_message when freed before; otherwise releases
 * now (reporting the release's error) or when the last use ends. */
gboolean  cugi_memory_lifetime_free    (CugiMemoryLifetime   *self,
                                        const char           *freed_message,
                                        GError              **error);
void      cugi_memory_lifetime_begin_use (CugiMemoryLifetime *self);
void      cugi_memory_lifetime_end_use (CugiMemoryLifetime   *self);
/* From finalize: releases unless that happened already. */
void      cugi_memory_lifetime_clear   (CugiMemoryLifetime   *self);

/* Changes whenever an address cugi handed out may have stopped being usable
 * (memory freed, a context reset), never otherwise: what was checked usable
 * in one epoch stays so while the epoch lasts, so repeated launches check
 * their buffers once. Read it before checking. Never 0. */
gsize     cugi_memory_get_address_epoch (void);
void      cugi_memory_invalidate_addresses (void);

/* The size class a pool serves @size from (bins of a quarter octave, at least
 * 256 bytes); FALSE when @size is too large to round up. */
gboolean  cugi_memory_pool_bin_size    (gsize  size,
                                        gsize *bin_size);

/* The bookkeeping both memory pools share: held blocks by bin, counts, the
 * retry after OUT_OF_MEMORY. Blocks are addresses (device or host). @epoch
 * is the context's generation now: blocks from an earlier one went with a
 * reset and are counted off, never reused or freed. The functions run
 * without the pool's lock held; @changed reports which counts moved (never
 * from cugi_block_pool_destroy()). */
typedef gboolean (*CugiBlockAllocFunc)   (gpointer   user_data,
                                          gsize      size,
                                          guint64   *block,
                                          GError   **error);
typedef gboolean (*CugiBlockFreeFunc)    (gpointer   user_data,
                                          guint64    block,
                                          gsize      size,
                                          GError   **error);
typedef void     (*CugiBlockChangedFunc) (gpointer   user_data,
                                          gboolean   held_changed,
                                          gboolean   active_changed);
typedef struct _CugiBlockPool CugiBlockPool;

CugiBlockPool *cugi_block_pool_new     (CugiBlockAllocFunc   alloc,
                                        CugiBlockFreeFunc    free,
                                        CugiBlockChangedFunc changed,
                                        gpointer             user_data,
                                        guint                epoch);
/* Frees the held blocks (errors are dropped); no block may be active. */
void      cugi_block_pool_destroy      (CugiBlockPool  *self,
                                        guint           epoch);
/* From now on, a block given back is freed instead of held when holding it
 * would take the held blocks beyond @max_held_bytes (their bin sizes). No
 * limit until this is called. */
void      cugi_block_pool_set_max_held_bytes (CugiBlockPool *self,
                                              gsize          max_held_bytes);
gboolean  cugi_block_pool_take         (CugiBlockPool  *self,
                                        guint           epoch,
                                        gsize           size,
                                        guint64        *block,
                                        GError        **error);
/* @block of a take() of @size in @block_epoch comes back: held, or freed
 * once the pool stopped holding or when it holds its limit. */
gboolean  cugi_block_pool_give_back    (CugiBlockPool  *self,
                                        guint           epoch,
                                        guint64         block,
                                        gsize           size,
                                        guint           block_epoch,
                                        GError        **error);
gboolean  cugi_block_pool_free_held    (CugiBlockPool  *self,
                                        guint           epoch,
                                        GError        **error);
gboolean  cugi_block_pool_stop_holding (CugiBlockPool  *self,
                                        guint           epoch,
                                        GError        **error);
guint     cugi_block_pool_get_held     (CugiBlockPool  *self);
guint     cugi_block_pool_get_active   (CugiBlockPool  *self);

/* The GObject side both pool classes share over their CugiBlockPool: the
 * held-blocks and active-blocks properties and their notification, and the
 * methods' bodies. @blocks is NULL in a pool made with g_object_new() (no
 * context): such a pool holds nothing. */
typedef struct
{
  GObject        *object;            /* the pool (not a reference) */
  GParamSpec    **count_properties;  /* the class's held-blocks, active-blocks */
  CugiContext    *context;           /* (owned) */
  CugiBlockPool  *blocks;            /* (owned) (nullable) */
} CugiPoolCore;

/* From class_init: the held-blocks and active-blocks properties, into
 * @count_properties[0] and [1]. */
void      cugi_pool_core_make_count_properties (GParamSpec **count_properties);
/* Takes @context (transfer full) and makes @self's blocks; the block
 * functions get @self as user data. */
void      cugi_pool_core_init          (CugiPoolCore        *self,
                                        GObject             *object,
                                        GParamSpec         **count_properties,
                                        CugiContext         *context,
                                        CugiBlockAllocFunc   alloc,
                                        CugiBlockFreeFunc    free);
/* From finalize. */
void      cugi_pool_core_clear         (CugiPoolCore  *self);
guint     cugi_pool_core_get_generation (CugiPoolCore *self);
/* From get_property: TRUE when @pspec is a count property, set in @value. */
gboolean  cugi_pool_core_get_property  (CugiPoolCore  *self,
                                        GParamSpec    *pspec,
                                        GValue        *value);
guint     cugi_pool_core_get_held      (CugiPoolCore  *self);
guint     cugi_pool_core_get_active    (CugiPoolCore  *self);
gboolean  cugi_pool_core_free_held     (CugiPoolCore  *self,
                                        GError       **error);
gboolean  cugi_pool_core_stop_holding  (CugiPoolCore  *self,
                                        GError       **error);

/* Resources for cugi_stream_track_work(): each element is released with its
 * own function, so one array holds buffers, host buffers and GBytes. */
GPtrArray *cugi_work_resources_new     (void);
void       cugi_work_resources_add     (GPtrArray      *resources,
                                        gpointer        data,
                                        GDestroyNotify  release);

/* Work in flight on a buffer: keeps it alive, and holds back the release of
 * its memory by cugi_buffer_free() until cugi_buffer_end_work(). Returns
 * @self, for cugi_work_resources_add (res, cugi_buffer_begin_work (b),
 * cugi_buffer_end_work). The same for host buffers. */
gpointer  cugi_buffer_begin_work       (CugiBuffer     *self);
void      cugi_buffer_end_work         (gpointer        buffer);
gpointer  cugi_host_buffer_begin_work  (CugiHostBuffer *self);
void      cugi_host_buffer_end_work    (gpointer        host_buffer);

/* A buffer over @address, which @release_data (may be NULL) keeps valid:
 * @release_notify runs once the buffer is freed or finalized and no work is
 * in flight. cugi_buffer_new_wrapping() is this with a reference to @owner. */
CugiBuffer *cugi_buffer_new_holding    (CugiContext    *context,
                                        CUdeviceptr     address,
                                        gsize           size,
                                        gpointer        release_data,
                                        GDestroyNotify  release_notify);
/* The worker threads that stage pageable uploads (see cugi-buffer.c), for
 * tests that hold them back to see what the calling thread does alone. */
GThreadPool *cugi_buffer_get_staging_threads (void);
/* The host address of @self, or an INVALID_STATE error after free(). */
gboolean  cugi_host_buffer_get_address (CugiHostBuffer *self,
                                        gpointer       *address,
                                        GError        **error);
/* INVALID_ARGUMENT naming the flags of @flags beyond @allowed, if any. */
#define CUGI_HOST_BUFFER_FLAGS_ALL (CUGI_HOST_BUFFER_FLAGS_PORTABLE | CUGI_HOST_BUFFER_FLAGS_MAPPED | \
                                    CUGI_HOST_BUFFER_FLAGS_WRITE_COMBINED)
gboolean  cugi_host_buffer_check_flags (CugiHostBufferFlags   flags,
                                        CugiHostBufferFlags   allowed,
                                        GError              **error);

/* Pools take their blocks back through these when a pooled buffer is freed
 * or finalized; @generation is the context's when the block was taken (a
 * reset since then means the memory is gone and is only counted off). */
gboolean  cugi_memory_pool_return_block      (CugiMemoryPool     *self,
                                              CUdeviceptr         address,
                                              gsize               size,
                                              guint               generation,
                                              GError            **error);
gboolean  cugi_host_memory_pool_return_block (CugiHostMemoryPool *self,
                                              gpointer            address,
                                              gsize               size,
                                              guint               generation,
                                              GError            **error);
/* The limit of cugi_block_pool_set_max_held_bytes() for @self's blocks. */
void      cugi_host_memory_pool_set_max_held_bytes (CugiHostMemoryPool *self,
                                                    gsize               max_held_bytes);
/* Buffers over a block of @pool, which they keep alive and give it back to. */
CugiBuffer     *cugi_buffer_new_pooled       (CugiMemoryPool     *pool,
                                              CugiContext        *context,
                                              CUdeviceptr         address,
                                              gsize               size);
CugiHostBuffer *cugi_host_buffer_new_pooled  (CugiHostMemoryPool *pool,
                                              CugiContext        *context,
                                              gpointer            address,
                                              gsize               size,
                                              CugiHostBufferFlags flags,
                                              GError            **error);

/* ---- more: programs, cache, modules --------------------------------------- */

/* What one NVRTC compile produced. Immutable once made, so programs, modules
 * and the in-memory cache share it by reference (cugi-program-cache.c). */
typedef struct
{
  char       *log;            /* never NULL, may be empty */
  GBytes     *ptx;            /* without its NUL; NULL when NVRTC made none */
  GBytes     *cubin;          /* NULL for a virtual (compute_XY) target */
  GHashTable *lowered_names;  /* name expression -> lowered name, never NULL */
} CugiProgramResult;

/* Where the last compile of a program came from. */
typedef enum
{
  CUGI_PROGRAM_CACHE_MISS,        /* NVRTC ran */
  CUGI_PROGRAM_CACHE_HIT_MEMORY,  /* this process compiled it before */
  CUGI_PROGRAM_CACHE_HIT_DISK,    /* a valid entry of the disk cache */
} CugiProgramCacheHit;

CugiProgramResult  *cugi_program_result_new   (const char *log,
                                               GBytes     *ptx,
                                               GBytes     *cubin,
                                               GHashTable *lowered_names);
CugiProgramResult  *cugi_program_result_ref   (CugiProgramResult *self);
void                cugi_program_result_unref (CugiProgramResult *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CugiProgramResult, cugi_program_result_unref)

CugiProgramCacheHit cugi_program_get_cache_hit     (CugiProgram *self);
/* The last successful compile's result (borrowed), NULL before one. */
CugiProgramResult  *cugi_program_get_result        (CugiProgram *self);

/* Pure: the NVRTC target for a device of compute capability @major.@minor
 * when NVRTC supports the architectures @supported (as nvrtcGetSupportedArchs
 * lists them, e.g. 90 for 9.0): "sm_XY" (real, CUBIN) when XY is listed,
 * else "compute_ZW" (virtual, PTX) for the newest listed ZW below XY, which
 * the driver JIT-compiles. NOT_SUPPORTED when the device predates them all. */
char               *cugi_program_choose_target     (const int  *supported,
                                                    gsize       n_supported,
                                                    gint        major,
                                                    gint        minor,
                                                    GError    **error);
/* The cache key cugi_program_compile_for_arch() would use. */
char               *cugi_program_dup_cache_key_for_arch (CugiProgram        *self,
                                                         gint                major,
                                                         gint                minor,
                                                         const char * const *options,
                                                         GError            **error);
/* The compute capability of @device, through the driver. */
gboolean            cugi_program_query_compute_capability (CUdevice device,
                                                           gint    *major,
                                                           gint    *minor,
                                                           GError **error);

/* The module's handle; NULL for one made with g_object_new(). */
CUmodule            cugi_module_get_handle         (CugiModule *self);
/* How many parameters the kernel @symbol has, as the module's image tells,
 * or -1 when the image does not say (see cugi-image-params.c). */
gint                cugi_module_get_param_count    (CugiModule *self,
                                                    const char *symbol);
/* cugi-image-params.c: kernel symbol -> parameter count of a CUBIN or PTX
 * image, or NULL for another format. */
GHashTable         *cugi_image_read_param_counts   (const guint8 *data,
                                                    gsize         size);

/* ---- more: kernels, launches, occupancy, graphs --------------------------- */

/* Marks the functions that every kernel launch runs, in whichever file they
 * are: GCC keeps them together (its hot text section), so that a launch
 * touches few instruction cache lines, which the driver's own work between
 * two launches evicts. */
#if defined(__GNUC__)
#define CUGI_LAUNCH_PATH __attribute__ ((hot))
#else
#define CUGI_LAUNCH_PATH
#endif

/* Launch configurations and argument lists are read directly by the launch
 * path (cugi-kernel.c, cugi-graph-exec.c), which must stay cheap. */
struct _CugiLaunchConfig
{
  gatomicrefcount ref_count;
  guint           grid[3];
  guint           block[3];
  guint           cluster[3];    /* all 0: no cluster */
  guint           shared_memory;
  gboolean        cooperative;
  CugiStream     *stream;        /* (owned) (nullable) */
};

typedef struct
{
  CugiArgType type;
  guint32     size;
  union
  {
    gint32      i32;
    guint32     u32;
    gint64      i64;
    guint64     u64;
    gfloat      f;
    gdouble     d;
    CUdeviceptr address;
  } value;
  gpointer    object;            /* (owned): the CugiBuffer or GBytes */
} CugiKernelArg;

/* Most kernels take few arguments: those need no allocation of their own. */
#define CUGI_KERNEL_ARGS_INLINE 8

struct _CugiKernelArgs
{
  /* What every launch reads comes first, in as few cache lines as can be. */
  gatomicrefcount ref_count;
  guint           n_args;
  guint           n_buffers;
  guint           capacity;
  CugiKernelArg  *args;          /* inline_args, or the heap beyond INLINE */
  void          **params;        /* what cuLaunchKernel reads: into args */
  /* What launches checked already, so that launching the list again skips
   * it: the serial of the signature the arguments fit, and the address epoch
   * in which the buffers' addresses were resolved. 0: not yet; any change of
   * the arguments clears them. Atomic. */
  gsize           checked_signature;
  gsize           resolved_epoch;
  /* The stream of the launches since resources was made (cugi_stream_pin()):
   * resources go to it when let go, so that those launches need no tracking
   * of their own (cugi_kernel_args_track_launch()). Atomic; NULL before a
   * launch. */
  CugiStream     *pinned_stream;
  /* What launches keep alive (cugi_work_resources_new(): the buffers, with
   * their memory in use), made by the first launch and kept until the
   * buffers change. Immutable; NULL until needed. */
  GPtrArray      *resources;
  GMutex          pin_lock;      /* guards changes of the two above */
  CugiKernelArg   inline_args[CUGI_KERNEL_ARGS_INLINE];
  void           *inline_params[CUGI_KERNEL_ARGS_INLINE];
};

/* Writes each buffer's current address into @self; an INVALID_STATE error
 * naming the argument when one was freed. */
gboolean    cugi_kernel_args_resolve        (CugiKernelArgs *self,
                                             GError        **error);
/* The buffers of @self as resources for cugi_stream_track_work(): a new
 * reference, NULL when there are none. Parameter values themselves need not
 * stay alive: the driver copies them when the launch is enqueued. */
GPtrArray  *cugi_kernel_args_share_buffers  (CugiKernelArgs *self);
/* Keeps the buffers of @self alive for a launch just enqueued on @stream (not
 * being captured) by pinning @stream (see cugi_stream_pin()): nearly free
 * when the previous launch went there too. FALSE, doing nothing, when @self
 * has no buffers. */
gboolean    cugi_kernel_args_track_launch   (CugiKernelArgs *self,
                                             CugiStream     *stream);
const char *cugi_arg_type_to_string         (CugiArgType     type);

/* What a kernel parameter is, as far as launches check it. */
typedef enum
{
  CUGI_PARAM_TYPE_OTHER,         /* by value, checked by size only */
  CUGI_PARAM_TYPE_POINTER,
  CUGI_PARAM_TYPE_BOOL,
  CUGI_PARAM_TYPE_INT8,
  CUGI_PARAM_TYPE_UINT8,
  CUGI_PARAM_TYPE_INT16,
  CUGI_PARAM_TYPE_UINT16,
  CUGI_PARAM_TYPE_INT32,
  CUGI_PARAM_TYPE_UINT32,
  CUGI_PARAM_TYPE_INT64,
  CUGI_PARAM_TYPE_UINT64,
  CUGI_PARAM_TYPE_FLOAT,
  CUGI_PARAM_TYPE_DOUBLE,
} CugiParamType;

typedef struct
{
  CugiParamType type;
  char         *spelling;        /* C++, for messages: "const float *" */
} CugiMangledParam;

/* What the mangled-name reader may spell: substitutions let a short name
 * spell a type whose length doubles at each step, so a name needing more
 * is not read (its kernel's launches check sizes only). The longest
 * spelling of one type, the bytes spelled for the whole name, and the
 * substitution candidates it may make. */
#define CUGI_MANGLE_MAX_SPELLING      (16 * 1024)
#define CUGI_MANGLE_MAX_SPELLED       (1024 * 1024)
#define CUGI_MANGLE_MAX_SUBSTITUTIONS 4096

/* cugi-mangle.c: (element-type CugiMangledParam), NULL for a name that is
 * not a mangled function name, that the reader does not understand, or
 * that is past the limits above. */
GPtrArray  *cugi_mangle_read_parameters     (const char     *mangled_name);
gsize       cugi_param_type_get_size        (CugiParamType   type);

/* cugi-kernel-signature.c: a kernel's parameters, for the checks and
 * conversions of launches. */
typedef struct
{
  gsize         size;            /* 0 when unknown */
  CugiParamType type;            /* CUGI_PARAM_TYPE_OTHER when unknown */
  char         *spelling;        /* (nullable): the C++ type */
} CugiKernelParam;

typedef struct
{
  char            *name;         /* the kernel's, for messages */
  gsize            serial;       /* unique to this signature, never 0 */
  gint             n_params;     /* -1 when unknown */
  gboolean         have_types;
  CugiKernelParam *params;
  CugiContext     *context;      /* (unowned) (nullable): the kernel's, for its buffers */
} CugiKernelSignature;

/* From the sizes the driver reports (@n_sizes -1 when it cannot) and the
 * types @mangled_name tells (for a C++ kernel). */
CugiKernelSignature *cugi_kernel_signature_new (const char  *name,
                                                const char  *mangled_name,
                                                const gsize *sizes,
                                                gint         n_sizes);
void     cugi_kernel_signature_free      (CugiKernelSignature       *self);
/* INVALID_ARGUMENT naming the parameter when @args do not fit. Remembered in
 * @args: checking the same arguments again costs nothing. */
gboolean cugi_kernel_signature_check     (const CugiKernelSignature *self,
                                          CugiKernelArgs            *args,
                                          GError                   **error);
/* Adds an integer as argument @index, converted to the parameter's type:
 * INVALID_ARGUMENT when it does not fit. @wide: when nothing is known of
 * the parameter, 64 bits rather than 32. */
gboolean cugi_kernel_signature_add_integer (const CugiKernelSignature *self,
                                            CugiKernelArgs            *args,
                                            guint                      index,
                                            gboolean                   is_signed,
                                            gint64                     signed_value,
                                            guint64                    unsigned_value,
                                            gboolean                   wide,
                                            GError                   **error);
/* Adds a real number as argument @index: a float or a double as the
 * parameter is (@single: a float when nothing is known of it).
 * INVALID_ARGUMENT when the parameter's kind is unknown and @number may be
 * an integer (whole, beyond 32 bits). */
gboolean cugi_kernel_signature_add_real  (const CugiKernelSignature *self,
                                          CugiKernelArgs            *args,
                                          guint                      index,
                                          gdouble                    number,
                                          gboolean                   single,
                                          GError                   **error);
/* Adds @value as argument @index, converted to the parameter's type. */
gboolean cugi_kernel_signature_add_value (const CugiKernelSignature *self,
                                          CugiKernelArgs            *args,
                                          guint                      index,
                                          const GValue              *value,
                                          GError                   **error);

/* cugi-kernel.c */
/* A device attribute, negative values read as 0. */
gboolean     cugi_kernel_get_device_attribute (CUdevice           device,
                                               CUdevice_attribute attribute,
                                               guint             *value,
                                               GError           **error);
CUfunction   cugi_kernel_get_function       (CugiKernel     *self);
CugiContext *cugi_kernel_get_context        (CugiKernel     *self);
/* INVALID_ARGUMENT naming the parameter when @args do not fit @self. */
gboolean     cugi_kernel_check_args         (CugiKernel     *self,
                                             CugiKernelArgs *args,
                                             GError        **error);

/* cugi-occupancy-model.c: PyCUDA's OccupancyRecord calculation, refined to
 * match the driver's (per-partition register files, allocation units). */
typedef struct
{
  guint warp_size;
  guint max_threads_per_multiprocessor;
  guint max_blocks_per_multiprocessor;
  guint max_threads_per_block;
  guint registers_per_multiprocessor;
  guint max_registers_per_block;
  guint max_registers_per_thread;
  guint register_allocation_unit;      /* registers, allocated per warp */
  guint register_partitions;           /* the file is split evenly among them */
  guint shared_memory_per_multiprocessor;
  guint max_shared_memory_per_block;   /* opt-in limit, reserve excluded */
  guint reserved_shared_memory_per_block;
  guint shared_memory_allocation_unit;
} CugiOccupancyDevice;

typedef struct
{
  guint threads_per_block;
  guint registers_per_thread;
  guint static_shared_memory;
  guint dynamic_shared_memory;
  guint max_dynamic_shared_memory;     /* what the kernel allows (its attribute) */
} CugiOccupancyKernel;

typedef struct
{
  guint              blocks_per_multiprocessor;
  guint              warps_per_multiprocessor;
  CugiOccupancyLimit limited_by;
  gdouble            occupancy;
} CugiOccupancyResult;

void     cugi_occupancy_model_compute        (const CugiOccupancyDevice *device,
                                              const CugiOccupancyKernel *kernel,
                                              CugiOccupancyResult       *result);
/* Fills the architectural figures (allocation units, partitions) that the
 * driver does not report, from the compute capability. */
gboolean cugi_occupancy_device_set_architecture (CugiOccupancyDevice *device,
                                                 int                  major,
                                                 int                  minor,
                                                 GError             **error);

G_END_DECLS
