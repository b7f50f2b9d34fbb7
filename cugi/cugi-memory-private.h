/* cugi-memory-private.h: internals of the memory layer (cugi-memory-core.c,
 * buffers, host buffers and their pools) that other files use. Not installed. */
#pragma once

#include "cugi-context-private.h"
#include "cugi-private.h"

G_BEGIN_DECLS

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

/* ---- tensor maps (cugi-tensor-map.c) -------------------------------------- */

/* The descriptor itself, aligned as kernels take it: where a launch reads
 * a tensor-map argument from, as long as @self lives. */
const CUtensorMap *cugi_tensor_map_get_encoded (CugiTensorMap *self);

/* ---- host addresses (cugi-host-buffer.c) ---------------------------------- */

/* The host memory at @address, an integer from a language binding, for
 * @size bytes: NULL for 0 bytes; INVALID_ARGUMENT for address 0 with a size,
 * or a range past the end of the address space. */
gboolean  cugi_memory_host_address_get (guint64        address,
                                        gsize          size,
                                        const guint8 **data,
                                        GError       **error);

/* ---- core, pools, resources of work ----------------------------------------- */

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

/* A hold on memory for work to come, which cugi does not track piece by
 * piece: an argument list keeps its buffers' memory in use from one launch
 * to the next (cugi_kernel_args_track_launch()). A free must not wait for
 * the holder to change: the lifetimes held know the hold, and a free of
 * one asks the hold's owner to let go, which hands what its work in flight
 * uses to that work (its stream) and drops the hold. (cugi-memory-hold.c)
 * Thread-safe. */
typedef struct _CugiMemoryHold CugiMemoryHold;
/* Ends the hold of @object, one added to @hold. */
typedef void (*CugiMemoryHoldEndFunc) (gpointer        object,
                                       CugiMemoryHold *hold);
/* Asks @owner to let go of @hold: once at most, never after
 * cugi_memory_hold_disown() returned, and with the hold's lock held, so
 * that the owner stays alive meanwhile. What it gives up it returns, for
 * *@drop (*@drop_data) to drop after the lock: dropping may release memory,
 * and so run the code of the memory's owners. */
typedef void (*CugiMemoryLetGoFunc)   (gpointer         owner,
                                       CugiMemoryHold  *hold,
                                       GDestroyNotify  *drop,
                                       gpointer        *drop_data);

/* A hold of up to @max_objects objects. */
CugiMemoryHold *cugi_memory_hold_new     (CugiMemoryHoldEndFunc end,
                                          CugiMemoryLetGoFunc   let_go,
                                          gpointer              owner,
                                          guint                 max_objects);
CugiMemoryHold *cugi_memory_hold_ref     (CugiMemoryHold     *self);
void            cugi_memory_hold_unref   (CugiMemoryHold     *self);
/* @object is held until @self is released (@end then), by its creator
 * before it hands @self over. */
void            cugi_memory_hold_add     (CugiMemoryHold     *self,
                                          gpointer            object);
/* From a free of memory that @self holds: the owner's let_go, unless it
 * let go already or disowned @self. */
void            cugi_memory_hold_let_go  (CugiMemoryHold     *self);
/* The owner lets go of @self itself, and is not asked to any more. */
void            cugi_memory_hold_disown  (CugiMemoryHold     *self);
/* Ends the hold of every object added and drops the creator's reference:
 * the release function for cugi_work_resources_add(). */
void            cugi_memory_hold_release (gpointer            hold);

/* Memory that an object owns, released exactly once: when the user frees it
 * or the object is finalized, but never while work in flight still uses it
 * (cugi_memory_lifetime_free() then only marks it freed, and the last
 * cugi_memory_lifetime_end_use() releases). Holds (above) count as uses;
 * a free asks them to let go. Thread-safe. */
typedef gboolean (*CugiMemoryReleaseFunc) (gpointer   owner,
                                           GError   **error);
typedef struct
{
  GMutex                lock;
  guint                 uses;      /* the holds' among them */
  gboolean              freed;     /* atomic: written under the lock, read without */
  gboolean              released;
  CugiMemoryReleaseFunc release;   /* NULL: nothing to release */
  gpointer              owner;
  GPtrArray            *holds;     /* (nullable): a CugiMemoryHold (unowned) per use by a hold */
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
/* A use by @hold (NULL: by work in flight, as begin_use() and end_use()). */
void      cugi_memory_lifetime_begin_hold (CugiMemoryLifetime *self,
                                           CugiMemoryHold     *hold);
void      cugi_memory_lifetime_end_hold (CugiMemoryLifetime   *self,
                                         CugiMemoryHold       *hold);
/* From finalize: releases unless that happened already. */
void      cugi_memory_lifetime_clear   (CugiMemoryLifetime   *self);

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
/* From now on, the held blocks stay within @max_held_bytes (their bin
 * sizes): a block given back is held where held blocks of other sizes can
 * be freed to make room for it, and freed itself where it is larger than
 * the limit or blocks of its own size fill it. No limit until this is
 * called. */
void      cugi_block_pool_set_max_held_bytes (CugiBlockPool *self,
                                              gsize          max_held_bytes);
gboolean  cugi_block_pool_take         (CugiBlockPool  *self,
                                        guint           epoch,
                                        gsize           size,
                                        guint64        *block,
                                        GError        **error);
/* A held block of @size's bin, or FALSE (no error) where none is: for
 * callers that must not wait for an allocation. */
gboolean  cugi_block_pool_take_held    (CugiBlockPool  *self,
                                        guint           epoch,
                                        gsize           size,
                                        guint64        *block);
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
typedef struct _CugiPoolCore CugiPoolCore;

/* A pool class's own part: allocating and freeing a block, with the pool's
 * context current. */
typedef gboolean (*CugiPoolAllocFunc) (CugiPoolCore  *core,
                                       gsize          size,
                                       guint64       *block,
                                       GError       **error);
typedef gboolean (*CugiPoolFreeFunc)  (CugiPoolCore  *core,
                                       guint64        block,
                                       GError       **error);
/* Makes what the pool hands out (a buffer, a host buffer) over @block of
 * @size bytes, or over nothing when @size is 0. NULL with @error set. */
typedef gpointer (*CugiPoolMakeFunc)  (CugiPoolCore  *core,
                                       guint64        block,
                                       gsize          size,
                                       GError       **error);

struct _CugiPoolCore
{
  GObject           *object;            /* the pool (not a reference) */
  GParamSpec       **count_properties;  /* the class's held-blocks, active-blocks */
  CugiContext       *context;           /* (owned) */
  CugiBlockPool     *blocks;            /* (owned) (nullable) */
  CugiPoolAllocFunc  alloc;
  CugiPoolFreeFunc   free;
};

/* From class_init: the held-blocks and active-blocks properties, into
 * @count_properties[0] and [1]. */
void      cugi_pool_core_make_count_properties (GParamSpec **count_properties);
/* Takes @context (transfer full) and makes @self's blocks with @alloc and
 * @free. */
void      cugi_pool_core_init          (CugiPoolCore        *self,
                                        GObject             *object,
                                        GParamSpec         **count_properties,
                                        CugiContext         *context,
                                        CugiPoolAllocFunc    alloc,
                                        CugiPoolFreeFunc     free);
/* From finalize. */
void      cugi_pool_core_clear         (CugiPoolCore  *self);
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
/* A block of @size bytes for the caller (a held one of its bin, else a new
 * one), with the context's generation now; for 0 bytes, address 0 and
 * nothing counted. A pool made with g_object_new() fails with
 * INVALID_STATE and @no_context_message (untranslated: marked N_()). */
gboolean  cugi_pool_core_take          (CugiPoolCore  *self,
                                        gsize          size,
                                        const char    *no_context_message,
                                        guint64       *block,
                                        guint         *generation,
                                        GError       **error);
/* @block, of a take() of @size bytes in the context's @generation, comes
 * back (a reset since then means the memory is gone and is only counted
 * off). */
gboolean  cugi_pool_core_give_back     (CugiPoolCore  *self,
                                        guint64        block,
                                        gsize          size,
                                        guint          generation,
                                        GError       **error);
/* The pool's allocate(): what @make makes over a block of @size bytes
 * (a held one of its bin, else a new one; with @held_only, a held one or
 * NULL without an error), or over none for 0 bytes. A pool made with
 * g_object_new() fails with INVALID_STATE and @no_context_message
 * (untranslated: marked N_()); a block that @make fails on goes back. */
gpointer  cugi_pool_core_allocate      (CugiPoolCore      *self,
                                        gsize              size,
                                        gboolean           held_only,
                                        CugiPoolMakeFunc   make,
                                        const char        *no_context_message,
                                        GError           **error);

/* What a buffer and a host buffer know of the memory they stand for: the
 * context it belongs to and that context's generation when it was made (a
 * reset since took the memory with it), its lifetime, and for a pool's
 * block the pool it goes back to. Both classes embed one, and check, free
 * and finalize through it. */
typedef struct
{
  CugiContextBinding  binding;     /* unbound in an object of g_object_new() */
  CugiMemoryLifetime  lifetime;
  CugiPoolCore       *pool;        /* (nullable): a pooled block's; its pool is kept alive */
} CugiMemoryOwnership;

/* From instance_init: see cugi_memory_lifetime_init(). */
void      cugi_memory_ownership_init   (CugiMemoryOwnership  *self,
                                        CugiMemoryReleaseFunc release,
                                        gpointer              owner);
/* The memory is @context's (a new reference), in its generation now. */
void      cugi_memory_ownership_set_context (CugiMemoryOwnership *self,
                                             CugiContext         *context);
/* The memory is a block of @pool, for cugi_memory_ownership_give_back(). */
void      cugi_memory_ownership_set_pool (CugiMemoryOwnership *self,
                                          CugiPoolCore        *pool);
/* INVALID_STATE with @freed_message once freed, INVALID_CONTEXT with
 * @reset_message once the context was reset (both untranslated, marked
 * N_(): every use of a buffer checks, and only a failure translates). */
gboolean  cugi_memory_ownership_check  (CugiMemoryOwnership  *self,
                                        const char           *freed_message,
                                        const char           *reset_message,
                                        GError              **error);
/* From a release function: gives @block of @size bytes back to the pool. */
gboolean  cugi_memory_ownership_give_back (CugiMemoryOwnership  *self,
                                           guint64               block,
                                           gsize                 size,
                                           GError              **error);
/* The body of cugi_buffer_free() and cugi_host_buffer_free(): frees through
 * the lifetime and notifies @freed_property of @object; INVALID_STATE with
 * @freed_message (untranslated, marked N_()) when freed before. */
gboolean  cugi_memory_ownership_free   (CugiMemoryOwnership  *self,
                                        GObject              *object,
                                        GParamSpec           *freed_property,
                                        const char           *freed_message,
                                        GError              **error);
/* From finalize: releases unless that happened already, lets go of the
 * pool and the context. */
void      cugi_memory_ownership_clear  (CugiMemoryOwnership  *self);

/* Work in flight on a buffer: keeps it alive, and holds back the release of
 * its memory by cugi_buffer_free() until cugi_buffer_end_work(). Returns
 * @self, for cugi_work_resources_add (res, cugi_buffer_begin_work (b),
 * cugi_buffer_end_work). The same for host buffers. */
gpointer  cugi_buffer_begin_work       (CugiBuffer     *self);
void      cugi_buffer_end_work         (gpointer        buffer);
gpointer  cugi_host_buffer_begin_work  (CugiHostBuffer *self);
void      cugi_host_buffer_end_work    (gpointer        host_buffer);
/* A hold (CugiMemoryHold) of up to @max_buffers buffers for launches to
 * come, whose @owner a free of one asks to let go (@let_go);
 * cugi_buffer_hold() adds @self, whose memory it then keeps in use as work
 * in flight would (a view's parent's, a host buffer's mapping's too), and
 * @self alive. */
CugiMemoryHold *cugi_buffer_hold_new   (CugiMemoryLetGoFunc let_go,
                                        gpointer            owner,
                                        guint               max_buffers);
void      cugi_buffer_hold             (CugiBuffer     *self,
                                        CugiMemoryHold *hold);
/* The lifetime of @self's memory, for the device buffers over it. */
CugiMemoryLifetime *cugi_host_buffer_get_lifetime (CugiHostBuffer *self);

/* A buffer over @address, which @release_data (may be NULL) keeps valid:
 * @release_notify runs once the buffer is freed or finalized and no work is
 * in flight. cugi_buffer_new_wrapping() is this with a reference to @owner. */
CugiBuffer *cugi_buffer_new_holding    (CugiContext    *context,
                                        CUdeviceptr     address,
                                        gsize           size,
                                        gpointer        release_data,
                                        GDestroyNotify  release_notify);
/* The worker threads that stage pageable uploads (see
 * cugi-staging-pipeline.c), for tests that hold them back to see what the
 * calling thread does alone. */
GThreadPool *cugi_buffer_get_staging_threads (void);
/* The context of @self's memory (borrowed). */
CugiContext *cugi_host_buffer_get_context (CugiHostBuffer *self);
/* The host address of @self, or an INVALID_STATE error after free(). */
gboolean  cugi_host_buffer_get_address (CugiHostBuffer *self,
                                        gpointer       *address,
                                        GError        **error);
/* The same for writing into @self: INVALID_STATE too for the memory of
 * immutable bytes (cugi_host_buffer_new_registered_bytes()). Every path
 * that writes into a host buffer takes its address so. */
gboolean  cugi_host_buffer_get_writable_address (CugiHostBuffer *self,
                                                 gpointer       *address,
                                                 GError        **error);
/* INVALID_ARGUMENT naming the flags of @flags beyond @allowed, if any. */
#define CUGI_HOST_BUFFER_FLAGS_ALL (CUGI_HOST_BUFFER_FLAGS_PORTABLE | CUGI_HOST_BUFFER_FLAGS_MAPPED | \
                                    CUGI_HOST_BUFFER_FLAGS_WRITE_COMBINED)
gboolean  cugi_host_buffer_check_flags (CugiHostBufferFlags   flags,
                                        CugiHostBufferFlags   allowed,
                                        GError              **error);

/* cugi_host_memory_pool_allocate() of a block the pool holds only: NULL
 * without an error where it holds none of @size's bin, for callers that
 * must not wait for memory to be pinned. */
CugiHostBuffer *cugi_host_memory_pool_allocate_held (CugiHostMemoryPool  *self,
                                                     gsize                size,
                                                     GError             **error);
/* The limit of cugi_block_pool_set_max_held_bytes() for @self's blocks. */
void      cugi_host_memory_pool_set_max_held_bytes (CugiHostMemoryPool *self,
                                                    gsize               max_held_bytes);
/* Buffers over a block of @pool, in its context, which they keep the pool
 * alive for and give the block back to. */
CugiBuffer     *cugi_buffer_new_pooled       (CugiPoolCore       *pool,
                                              CUdeviceptr         address,
                                              gsize               size);
/* A buffer over @address, allocated in stream order on @stream (in its
 * context), which cuMemFreeAsync frees on @stream (or the stream given to
 * cugi_buffer_free_on_stream()) once it is freed or finalized and no work is
 * in flight; then @pool_notify (@pool) runs, if not NULL. */
CugiBuffer     *cugi_buffer_new_stream_ordered (CugiStream        *stream,
                                                CUdeviceptr        address,
                                                gsize              size,
                                                gpointer           pool,
                                                GDestroyNotify     pool_notify);
/* A block of @pool for cugi_memory_pool_take_block(): see
 * cugi_pool_core_take() for @size and @no_context_message. */
CugiMemoryBlock *cugi_memory_block_take      (CugiPoolCore       *pool,
                                              gsize               size,
                                              const char         *no_context_message,
                                              GError            **error);
CugiHostBuffer *cugi_host_buffer_new_pooled  (CugiPoolCore       *pool,
                                              gpointer            address,
                                              gsize               size,
                                              CugiHostBufferFlags flags,
                                              GError            **error);

G_END_DECLS
