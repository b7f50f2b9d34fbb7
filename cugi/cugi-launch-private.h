/* cugi-launch-private.h: the internals of kernels and their launches, for
 * the files of the kernels layer and for graphs, which launch too: the
 * layouts of launch configurations and argument lists, kernel signatures,
 * the mangled-name reader and the occupancy model. Not installed. */
#pragma once

#include "cugi-private.h"
#include "cugi-memory-private.h"
#include "cugi-stream-private.h"

G_BEGIN_DECLS

/* Launch configurations and argument lists are read directly by the launch
 * path (cugi-kernel.c, cugi-graph-exec.c), which must stay cheap. */
/* Allocated on a cache line (CUGI_LAUNCH_CONFIG_ALIGNMENT), which it
 * fills: a launch reads one line of its configuration. */
#define CUGI_LAUNCH_CONFIG_ALIGNMENT 64

struct _CugiLaunchConfig
{
  gatomicrefcount ref_count;
  guint           shared_memory;
  /* Names these settings: every change gives a new one, never 0 and never
   * another configuration's (cugi_launch_config_next_serial()), stored
   * after the settings, so that a kernel remembers which configuration
   * passed its checks by the serial alone. Atomic. */
  gsize           serial;
  CugiStream     *stream;        /* (owned) (nullable) */
  guint           grid[3];
  guint           block[3];
  guint           cluster[3];    /* all 0: no cluster */
  gboolean        cooperative;
};

/* A new value of the counter of launch configurations' serials. */
gsize       cugi_launch_config_next_serial  (void);

/* An argument's value, where the driver reads it from (but for GBytes,
 * whose own data it reads). */
typedef union
{
  gint32      i32;
  guint32     u32;
  gint64      i64;
  guint64     u64;
  gfloat      f;
  gdouble     d;
  CUdeviceptr address;
} CugiKernelValue;

/* What an argument is; its value is the list's values[] of the same index. */
typedef struct
{
  CugiArgType type;
  guint32     size;
  gpointer    object;            /* (owned): the CugiBuffer, CugiTexture, CugiSurface, CugiTensorMap or GBytes */
} CugiKernelArg;

/* Most kernels take few arguments: those need no allocation of their own. */
#define CUGI_KERNEL_ARGS_INLINE 8

/* Allocated on a cache line (CUGI_KERNEL_ARGS_ALIGNMENT): a launch of up to
 * CUGI_KERNEL_ARGS_INLINE arguments reads three lines of the list, the
 * first here, then the two the driver reads, the pointers to the values and
 * the values. */
#define CUGI_KERNEL_ARGS_ALIGNMENT 64

struct _CugiKernelArgs
{
  /* What every launch reads. */
  gatomicrefcount ref_count;
  guint           n_args;
  guint           n_buffers;     /* and textures, surfaces, tensor maps: what launches keep alive */
  guint           capacity;
  CugiKernelArg  *args;          /* inline_args, or the heap beyond INLINE */
  void          **params;        /* what cuLaunchKernel reads: into values (or a GBytes' data, a tensor map's descriptor) */
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
  CugiKernelValue *values;       /* inline_values, or the heap beyond INLINE */

  void           *inline_params[CUGI_KERNEL_ARGS_INLINE];
  CugiKernelValue inline_values[CUGI_KERNEL_ARGS_INLINE];

  /* What launches keep alive (cugi_work_resources_new(): the buffers, with
   * their memory in use through hold), made by the first launch and kept
   * until the buffers change or one is freed. Immutable; NULL until
   * needed. */
  GPtrArray      *resources;
  CugiMemoryHold *hold;          /* resources' (NULL without buffers): see ensure_resources_locked() */
  GMutex          pin_lock;      /* guards changes of pinned_stream, resources and hold */
  CugiKernelArg   inline_args[CUGI_KERNEL_ARGS_INLINE];
};

/* cugi_kernel_args_resolve() when the addresses were not resolved in
 * @epoch, the current address epoch. */
gboolean    cugi_kernel_args_resolve_addresses (CugiKernelArgs *self,
                                                gsize           epoch,
                                                GError        **error);

/* Writes each buffer's current address into @self; an INVALID_STATE error
 * naming the argument when one was freed. @epoch is the address epoch, read
 * before the checks: a free while they run ends it, and the next launch
 * checks again. Inline: every launch runs it, and the common case,
 * addresses resolved in this epoch already, is a comparison. */
static inline gboolean
cugi_kernel_args_resolve_in_epoch (CugiKernelArgs *self,
                                   gsize           epoch,
                                   GError        **error)
{
  return self->n_buffers == 0 || G_LIKELY (g_atomic_pointer_get (&self->resolved_epoch) == epoch) ||
         cugi_kernel_args_resolve_addresses (self, epoch, error);
}

/* cugi_kernel_args_resolve_in_epoch() in the current epoch. */
static inline gboolean
cugi_kernel_args_resolve (CugiKernelArgs *self,
                          GError        **error)
{
  return self->n_buffers == 0 ||
         cugi_kernel_args_resolve_in_epoch (self, cugi_memory_get_address_epoch (), error);
}

/* The buffers of @self as resources for cugi_stream_track_work(): a new
 * reference, NULL when there are none. Parameter values themselves need not
 * stay alive: the driver copies them when the launch is enqueued. */
GPtrArray  *cugi_kernel_args_share_buffers  (CugiKernelArgs *self);
/* Hands the resources of the launches of @self so far to the stream they
 * went to, for that work to complete, and pins @stream for those to come. */
void        cugi_kernel_args_move_pin       (CugiKernelArgs *self,
                                             CugiStream     *stream);

/* Keeps the buffers of @self alive for a launch just enqueued on @stream (not
 * being captured) by pinning @stream (see cugi_stream_pin()): nearly free
 * when the previous launch went there too, and free of writes when its burst
 * has a flush already. Drives ::idle for launches without buffers too. */
static inline void
cugi_kernel_args_track_launch (CugiKernelArgs *self,
                               CugiStream     *stream)
{
  /* The launch is enqueued: if another thread moves the pin away after this
   * read, the stream it hands the resources to has this launch to do. */
  if (G_UNLIKELY (self->n_buffers != 0 && g_atomic_pointer_get (&self->pinned_stream) != stream))
    cugi_kernel_args_move_pin (self, stream);
  cugi_stream_track_pinned_work (stream);
}
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
  CUGI_PARAM_TYPE_TENSOR_MAP,    /* CUtensorMap (CUtensorMap_st), 128 bytes */
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

/* From the number of parameters (@count, -1 when unknown), the sizes the
 * driver reports (NULL when it cannot) and the types @mangled_name tells
 * (for a C++ kernel). */
CugiKernelSignature *cugi_kernel_signature_new (const char  *name,
                                                const char  *mangled_name,
                                                const gsize *sizes,
                                                gint         count);
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
/* A packed value for parameter @index, at @value, that a launch may take
 * bit for bit: INVALID_ARGUMENT naming the parameter for a byte of a bool
 * that is neither 0 nor 1, which the kernel would read as undefined
 * behaviour. */
gboolean cugi_kernel_signature_check_packed (const CugiKernelSignature *self,
                                             guint                      index,
                                             const guint8              *value,
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
/* cugi-kernel-launch.c: every check of a launch of @self with @config and
 * @args, as cugi_kernel_launch() makes them, and the buffers' addresses
 * resolved in @args, for work that launches later (a graph's kernel node). */
gboolean     cugi_kernel_check_launch       (CugiKernel       *self,
                                             CugiLaunchConfig *config,
                                             CugiKernelArgs   *args,
                                             GError          **error);

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
