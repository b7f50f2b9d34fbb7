/* cugi-memory-core.c: the logic the memory classes share: range checks, the
 * lifetime of owned memory, pool bins and bookkeeping, the common parts of
 * the two pools and of the two buffers. What
 * needs no driver is tested without a GPU in tests/test-memory-core.c. */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "cugi-context-private.h"
#include "cugi-private.h"
#include "cugi-memory-private.h"

/* ---- range checks --------------------------------------------------------- */

gboolean
cugi_memory_check_range (gsize        buffer_size,
                         gsize        offset,
                         gsize        size,
                         const char  *what,
                         GError     **error)
{
  /* Written so that no sum can wrap: offset=G_MAXSIZE must fail, not pass. */
  if (offset <= buffer_size && size <= buffer_size - offset)
    return TRUE;
  g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
               _("Out of range: offset %zu and size %zu do not fit in the %zu bytes of the %s"),
               offset, size, buffer_size, what);
  return FALSE;
}

gboolean
cugi_memory_region_size (gsize  width,
                         gsize  height,
                         gsize  depth,
                         gsize *size)
{
  gsize rows;

  return g_size_checked_mul (&rows, height, depth) &&
         g_size_checked_mul (size, rows, width);
}

gboolean
cugi_memory_check_pitched_range (gsize        buffer_size,
                                 gsize        offset,
                                 gsize        pitch,
                                 gsize        slice_height,
                                 gsize        width,
                                 gsize        height,
                                 gsize        depth,
                                 const char  *what,
                                 GError     **error)
{
  gsize last_row, last_row_start, extent;

  if (width > pitch)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("Width %zu is larger than the pitch %zu of the %s"), width, pitch, what);
      return FALSE;
    }
  if (depth > 1 && height > slice_height)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("Height %zu is larger than the %zu rows per slice of the %s"),
                   height, slice_height, what);
      return FALSE;
    }
  if (width == 0 || height == 0 || depth == 0)
    return cugi_memory_check_range (buffer_size, offset, 0, what, error);

  /* The region ends with the last row of the last slice. */
  if (g_size_checked_mul (&last_row, depth - 1, slice_height) &&
      g_size_checked_add (&last_row, last_row, height - 1) &&
      g_size_checked_mul (&last_row_start, last_row, pitch) &&
      g_size_checked_add (&extent, last_row_start, width) &&
      offset <= buffer_size && extent <= buffer_size - offset)
    return TRUE;

  g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
               _("Out of range: %zu slices of %zu rows of %zu bytes with pitch %zu at offset %zu "
                 "do not fit in the %zu bytes of the %s"),
               depth, height, width, pitch, offset, buffer_size, what);
  return FALSE;
}

/* ---- lifetime of owned memory --------------------------------------------- */

void
cugi_memory_lifetime_init (CugiMemoryLifetime   *self,
                           CugiMemoryReleaseFunc release,
                           gpointer              owner)
{
  g_mutex_init (&self->lock);
  self->uses = 0;
  self->freed = FALSE;
  self->released = FALSE;
  self->release = release;
  self->owner = owner;
  self->holds = NULL;
}

gboolean
cugi_memory_lifetime_is_freed (CugiMemoryLifetime *self)
{
  /* No lock: every use of a buffer asks, and a free racing with a use is
   * the caller's race whatever this returns. */
  return g_atomic_int_get (&self->freed);
}

/* Called with the lock held; TRUE when the caller must release now. */
static gboolean
claim_release (CugiMemoryLifetime *self)
{
  if (self->released || !self->freed || self->uses > 0)
    return FALSE;
  self->released = TRUE;
  return TRUE;
}

static gboolean
run_release (CugiMemoryLifetime  *self,
             GError             **error)
{
  return self->release == NULL || self->release (self->owner, error);
}

/* Deferred releases have nobody to report to; the memory is lost either way. */
static void
run_release_unreported (CugiMemoryLifetime *self)
{
  g_autoptr(GError) error = NULL;

  if (!run_release (self, &error))
    g_debug ("Releasing memory failed: %s", error->message);
}

/* Called with the lock held: a new reference to each hold of the memory. */
static GPtrArray *
ref_holds_locked (CugiMemoryLifetime *self)
{
  GPtrArray *holds;

  if (self->holds == NULL || self->holds->len == 0)
    return NULL;
  holds = g_ptr_array_new_full (self->holds->len, (GDestroyNotify) cugi_memory_hold_unref);
  for (guint i = 0; i < self->holds->len; i++)
    g_ptr_array_add (holds, cugi_memory_hold_ref (g_ptr_array_index (self->holds, i)));
  return holds;
}

gboolean
cugi_memory_lifetime_free (CugiMemoryLifetime  *self,
                           const char          *freed_message,
                           GError             **error)
{
  g_autoptr(GPtrArray) holds = NULL;
  gboolean was_freed, release_now;

  g_mutex_lock (&self->lock);
  was_freed = self->freed;
  g_atomic_int_set (&self->freed, TRUE);
  release_now = claim_release (self);
  if (!was_freed)
    holds = ref_holds_locked (self);
  g_mutex_unlock (&self->lock);

  if (was_freed)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE, freed_message);
      return FALSE;
    }
  /* Before the holders let go: their next launches must check again. */
  cugi_memory_invalidate_addresses ();
  /* Then only the work in flight keeps the memory (its last use releases). */
  for (guint i = 0; holds != NULL && i < holds->len; i++)
    cugi_memory_hold_let_go (g_ptr_array_index (holds, i));
  return !release_now || run_release (self, error);
}

void
cugi_memory_lifetime_begin_hold (CugiMemoryLifetime *self,
                                 CugiMemoryHold     *hold)
{
  g_mutex_lock (&self->lock);
  self->uses++;
  if (hold != NULL)
    {
      if (self->holds == NULL)
        self->holds = g_ptr_array_new ();
      g_ptr_array_add (self->holds, hold);
    }
  g_mutex_unlock (&self->lock);
}

void
cugi_memory_lifetime_end_hold (CugiMemoryLifetime *self,
                               CugiMemoryHold     *hold)
{
  gboolean release_now;

  g_mutex_lock (&self->lock);
  g_assert (self->uses > 0);
  self->uses--;
  if (hold != NULL)
    g_ptr_array_remove_fast (self->holds, hold);
  release_now = claim_release (self);
  g_mutex_unlock (&self->lock);

  if (release_now)
    run_release_unreported (self);
}

void
cugi_memory_lifetime_begin_use (CugiMemoryLifetime *self)
{
  cugi_memory_lifetime_begin_hold (self, NULL);
}

void
cugi_memory_lifetime_end_use (CugiMemoryLifetime *self)
{
  cugi_memory_lifetime_end_hold (self, NULL);
}

void
cugi_memory_lifetime_clear (CugiMemoryLifetime *self)
{
  gboolean release_now;

  g_mutex_lock (&self->lock);
  g_atomic_int_set (&self->freed, TRUE);
  release_now = claim_release (self);
  g_mutex_unlock (&self->lock);

  if (release_now)
    run_release_unreported (self);
  /* Empty: holds keep their objects alive, which own the lifetimes. */
  g_clear_pointer (&self->holds, g_ptr_array_unref);
  g_mutex_clear (&self->lock);
}

/* ---- pool bins ------------------------------------------------------------ */

/* Sizes are rounded up to 256 bytes, then to a quarter of their octave: a
 * request in (2^e, 2^(e+1)] is served by 1.25, 1.5, 1.75 or 2 x 2^e bytes. So
 * each octave has four bins, a block wastes less than a fifth of itself, and
 * blocks of nearby sizes are reused for each other. */
#define POOL_MIN_BIN_SIZE 256
#define POOL_BINS_PER_OCTAVE_LOG2 2

gboolean
cugi_memory_pool_bin_size (gsize  size,
                           gsize *bin_size)
{
  guint octave;
  gsize step;

  if (size <= POOL_MIN_BIN_SIZE)
    {
      *bin_size = POOL_MIN_BIN_SIZE;
      return TRUE;
    }
  /* 2^octave <= size - 1 < 2^(octave + 1) */
  octave = g_bit_storage (size - 1) - 1;
  step = (gsize) 1 << (octave - POOL_BINS_PER_OCTAVE_LOG2);
  if (size > G_MAXSIZE - (step - 1))
    return FALSE;
  *bin_size = (size + step - 1) & ~(step - 1);
  return TRUE;
}

/* ---- pool bookkeeping ----------------------------------------------------- */

struct _CugiBlockPool
{
  CugiBlockAllocFunc   alloc;
  CugiBlockFreeFunc    free;
  CugiBlockChangedFunc changed;
  gpointer             user_data;

  GMutex               lock;
  GHashTable          *held;     /* bin size -> GArray of guint64 blocks */
  guint                n_held;
  gsize                held_bytes;
  gsize                max_held_bytes;
  guint                n_active;
  gboolean             holding;
  guint                epoch;    /* of the held blocks */
};

typedef struct
{
  guint64 block;
  gsize   size;
} HeldBlock;

CugiBlockPool *
cugi_block_pool_new (CugiBlockAllocFunc   alloc,
                     CugiBlockFreeFunc    free,
                     CugiBlockChangedFunc changed,
                     gpointer             user_data,
                     guint                epoch)
{
  CugiBlockPool *self = g_new0 (CugiBlockPool, 1);

  self->alloc = alloc;
  self->free = free;
  self->changed = changed;
  self->user_data = user_data;
  g_mutex_init (&self->lock);
  self->held = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL,
                                      (GDestroyNotify) g_array_unref);
  self->holding = TRUE;
  self->max_held_bytes = G_MAXSIZE;
  self->epoch = epoch;
  return self;
}

void
cugi_block_pool_set_max_held_bytes (CugiBlockPool *self,
                                    gsize          max_held_bytes)
{
  g_mutex_lock (&self->lock);
  self->max_held_bytes = max_held_bytes;
  g_mutex_unlock (&self->lock);
}

static void
notify_changed (CugiBlockPool *self,
                gboolean       held_changed,
                gboolean       active_changed)
{
  if (self->changed != NULL && (held_changed || active_changed))
    self->changed (self->user_data, held_changed, active_changed);
}

/* Empties the bins; the caller frees what it gets, if anything. */
static GArray *
steal_held_locked (CugiBlockPool *self)
{
  GArray *stolen = g_array_new (FALSE, FALSE, sizeof (HeldBlock));
  GHashTableIter iter;
  gpointer key, value;

  g_hash_table_iter_init (&iter, self->held);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      GArray *blocks = value;

      for (guint i = 0; i < blocks->len; i++)
        {
          HeldBlock held = { g_array_index (blocks, guint64, i), GPOINTER_TO_SIZE (key) };
          g_array_append_val (stolen, held);
        }
    }
  g_hash_table_remove_all (self->held);
  self->n_held = 0;
  self->held_bytes = 0;
  return stolen;
}

/* Held blocks of an earlier epoch are gone: drops them. TRUE if there were. */
static gboolean
enter_epoch_locked (CugiBlockPool *self,
                    guint          epoch)
{
  g_autoptr(GArray) gone = NULL;

  if (epoch == self->epoch)
    return FALSE;
  self->epoch = epoch;
  gone = steal_held_locked (self);
  return gone->len > 0;
}

/* Frees @blocks, all of them whatever fails; the first failure is reported. */
static gboolean
free_blocks (CugiBlockPool  *self,
             GArray         *blocks,
             GError        **error)
{
  g_autoptr(GError) first_error = NULL;

  for (guint i = 0; i < blocks->len; i++)
    {
      HeldBlock *held = &g_array_index (blocks, HeldBlock, i);
      g_autoptr(GError) local_error = NULL;

      if (!self->free (self->user_data, held->block, held->size, &local_error) && first_error == NULL)
        first_error = g_steal_pointer (&local_error);
    }
  if (first_error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&first_error));
      return FALSE;
    }
  return TRUE;
}

void
cugi_block_pool_destroy (CugiBlockPool *self,
                         guint          epoch)
{
  g_autoptr(GArray) blocks = NULL;

  g_warn_if_fail (self->n_active == 0);
  enter_epoch_locked (self, epoch);
  blocks = steal_held_locked (self);
  free_blocks (self, blocks, NULL);
  g_hash_table_unref (self->held);
  g_mutex_clear (&self->lock);
  g_free (self);
}

static gboolean
free_held (CugiBlockPool  *self,
           guint           epoch,
           gboolean        stop_holding,
           GError        **error)
{
  g_autoptr(GArray) blocks = NULL;
  gboolean dropped, ok;

  g_mutex_lock (&self->lock);
  if (stop_holding)
    self->holding = FALSE;
  dropped = enter_epoch_locked (self, epoch);
  blocks = steal_held_locked (self);
  g_mutex_unlock (&self->lock);

  ok = free_blocks (self, blocks, error);
  notify_changed (self, dropped || blocks->len > 0, FALSE);
  return ok;
}

gboolean
cugi_block_pool_free_held (CugiBlockPool  *self,
                           guint           epoch,
                           GError        **error)
{
  return free_held (self, epoch, FALSE, error);
}

gboolean
cugi_block_pool_stop_holding (CugiBlockPool  *self,
                              guint           epoch,
                              GError        **error)
{
  return free_held (self, epoch, TRUE, error);
}

/* Takes a held block of @bin_size, if there is one; says if held blocks of an
 * earlier epoch were dropped. */
static gboolean
take_held (CugiBlockPool *self,
           guint          epoch,
           gsize          bin_size,
           guint64       *block,
           gboolean      *dropped)
{
  GArray *blocks;
  gboolean found = FALSE;

  g_mutex_lock (&self->lock);
  *dropped = enter_epoch_locked (self, epoch);
  blocks = g_hash_table_lookup (self->held, GSIZE_TO_POINTER (bin_size));
  if (blocks != NULL && blocks->len > 0)
    {
      *block = g_array_index (blocks, guint64, blocks->len - 1);
      g_array_set_size (blocks, blocks->len - 1);
      self->n_held--;
      self->held_bytes -= bin_size;
      self->n_active++;
      found = TRUE;
    }
  g_mutex_unlock (&self->lock);
  return found;
}

/* take_held(), and the counts that it moved notified. */
static gboolean
take_held_and_notify (CugiBlockPool *self,
                      guint          epoch,
                      gsize          bin_size,
                      guint64       *block)
{
  gboolean dropped;
  gboolean found = take_held (self, epoch, bin_size, block, &dropped);

  notify_changed (self, dropped || found, found);
  return found;
}

gboolean
cugi_block_pool_take_held (CugiBlockPool *self,
                           guint          epoch,
                           gsize          size,
                           guint64       *block)
{
  gsize bin_size;

  return cugi_memory_pool_bin_size (size, &bin_size) && take_held_and_notify (self, epoch, bin_size, block);
}

gboolean
cugi_block_pool_take (CugiBlockPool  *self,
                      guint           epoch,
                      gsize           size,
                      guint64        *block,
                      GError        **error)
{
  g_autoptr(GError) local_error = NULL;
  gsize bin_size;

  if (!cugi_memory_pool_bin_size (size, &bin_size))
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("Cannot allocate %zu bytes: the size is too large"), size);
      return FALSE;
    }
  if (take_held_and_notify (self, epoch, bin_size, block))
    return TRUE;

  if (!self->alloc (self->user_data, bin_size, block, &local_error))
    {
      /* Memory this pool holds may be what is missing: give it back, once. */
      if (!g_error_matches (local_error, CUGI_ERROR, CUGI_ERROR_OUT_OF_MEMORY) ||
          cugi_block_pool_get_held (self) == 0)
        {
          g_propagate_error (error, g_steal_pointer (&local_error));
          return FALSE;
        }
      g_clear_error (&local_error);
      if (!cugi_block_pool_free_held (self, epoch, error) ||
          !self->alloc (self->user_data, bin_size, block, error))
        return FALSE;
    }

  g_mutex_lock (&self->lock);
  self->n_active++;
  g_mutex_unlock (&self->lock);
  notify_changed (self, FALSE, TRUE);
  return TRUE;
}

/* Whether a block of @bin_size may be held within the limit, making room
 * for it where blocks of other sizes take it: those go into *@evicted (made
 * when needed), for the caller to free. The block given back last is the
 * likeliest to be taken next (a program moving frames of one size, then of
 * another), so it wins over held blocks of another size; against blocks of
 * its own size it loses, as they would serve the same takes. */
static gboolean
make_room_locked (CugiBlockPool  *self,
                  gsize           bin_size,
                  GArray        **evicted)
{
  GArray *same = g_hash_table_lookup (self->held, GSIZE_TO_POINTER (bin_size));
  gsize same_bytes = same != NULL ? same->len * bin_size : 0;
  GHashTableIter iter;
  gpointer key, value;

  if (bin_size > self->max_held_bytes || same_bytes > self->max_held_bytes - bin_size)
    return FALSE;
  g_hash_table_iter_init (&iter, self->held);
  while (self->held_bytes > self->max_held_bytes - bin_size && g_hash_table_iter_next (&iter, &key, &value))
    {
      GArray *blocks = value;
      gsize other_size = GPOINTER_TO_SIZE (key);

      if (other_size == bin_size)
        continue;
      if (*evicted == NULL)
        *evicted = g_array_new (FALSE, FALSE, sizeof (HeldBlock));
      while (blocks->len > 0 && self->held_bytes > self->max_held_bytes - bin_size)
        {
          HeldBlock held = { g_array_index (blocks, guint64, blocks->len - 1), other_size };

          g_array_append_val (*evicted, held);
          g_array_set_size (blocks, blocks->len - 1);
          self->n_held--;
          self->held_bytes -= other_size;
        }
    }
  return TRUE;
}

gboolean
cugi_block_pool_give_back (CugiBlockPool  *self,
                           guint           epoch,
                           guint64         block,
                           gsize           size,
                           guint           block_epoch,
                           GError        **error)
{
  g_autoptr(GArray) evicted = NULL;
  gsize bin_size;
  gboolean dropped, hold, gone, freed;

  /* take() succeeded for this size, so it has a bin. */
  if (!cugi_memory_pool_bin_size (size, &bin_size))
    g_assert_not_reached ();

  g_mutex_lock (&self->lock);
  g_assert (self->n_active > 0);
  self->n_active--;
  dropped = enter_epoch_locked (self, epoch);
  gone = block_epoch != epoch;
  hold = self->holding && !gone && make_room_locked (self, bin_size, &evicted);
  if (hold)
    {
      GArray *blocks = g_hash_table_lookup (self->held, GSIZE_TO_POINTER (bin_size));

      if (blocks == NULL)
        {
          blocks = g_array_new (FALSE, FALSE, sizeof (guint64));
          g_hash_table_insert (self->held, GSIZE_TO_POINTER (bin_size), blocks);
        }
      g_array_append_val (blocks, block);
      self->n_held++;
      self->held_bytes += bin_size;
    }
  g_mutex_unlock (&self->lock);

  notify_changed (self, dropped || hold, TRUE);
  freed = evicted == NULL || free_blocks (self, evicted, error);
  if (hold || gone)
    return freed;
  return self->free (self->user_data, block, bin_size, freed ? error : NULL) && freed;
}

guint
cugi_block_pool_get_held (CugiBlockPool *self)
{
  guint n;

  g_mutex_lock (&self->lock);
  n = self->n_held;
  g_mutex_unlock (&self->lock);
  return n;
}

guint
cugi_block_pool_get_active (CugiBlockPool *self)
{
  guint n;

  g_mutex_lock (&self->lock);
  n = self->n_active;
  g_mutex_unlock (&self->lock);
  return n;
}

/* ---- the pool classes' shared GObject side ------------------------------- */

/* GObject's ::notify, looked up once by cugi_pool_core_make_count_properties(). */
static guint notify_signal;

static void
pool_core_blocks_changed (gpointer user_data,
                          gboolean held_changed,
                          gboolean active_changed)
{
  CugiPoolCore *self = user_data;

  /* Each allocation changes the counts: without a handler to tell (the
   * common case), notifying would cost more than the allocation itself. */
  if (!g_signal_has_handler_pending (self->object, notify_signal, 0, TRUE))
    return;
  g_object_freeze_notify (self->object);
  if (held_changed)
    g_object_notify_by_pspec (self->object, self->count_properties[0]);
  if (active_changed)
    g_object_notify_by_pspec (self->object, self->count_properties[1]);
  g_object_thaw_notify (self->object);
}

void
cugi_pool_core_make_count_properties (GParamSpec **count_properties)
{
  notify_signal = g_signal_lookup ("notify", G_TYPE_OBJECT);
  count_properties[0] =
    g_param_spec_uint ("held-blocks", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  count_properties[1] =
    g_param_spec_uint ("active-blocks", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
}

/* The pool's own functions run with its context current. */
static gboolean
pool_core_alloc_block (gpointer   user_data,
                       gsize      size,
                       guint64   *block,
                       GError   **error)
{
  CugiPoolCore *self = user_data;
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;

  return cugi_context_enter (self->context, &scope, error) &&
         self->alloc (self, size, block, error);
}

static gboolean
pool_core_free_block (gpointer   user_data,
                      guint64    block,
                      gsize      size,
                      GError   **error)
{
  CugiPoolCore *self = user_data;
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;

  return cugi_context_enter (self->context, &scope, error) &&
         self->free (self, block, error);
}

static guint
pool_core_get_generation (CugiPoolCore *self)
{
  return cugi_context_get_generation (self->context);
}

void
cugi_pool_core_init (CugiPoolCore          *self,
                     GObject               *object,
                     GParamSpec           **count_properties,
                     CugiContext           *context,
                     CugiPoolAllocFunc      alloc,
                     CugiPoolFreeFunc       free)
{
  self->object = object;
  self->count_properties = count_properties;
  self->context = context;
  self->alloc = alloc;
  self->free = free;
  self->blocks = cugi_block_pool_new (pool_core_alloc_block, pool_core_free_block,
                                      pool_core_blocks_changed, self,
                                      pool_core_get_generation (self));
}

void
cugi_pool_core_clear (CugiPoolCore *self)
{
  if (self->blocks != NULL)
    cugi_block_pool_destroy (self->blocks, pool_core_get_generation (self));
  self->blocks = NULL;
  g_clear_object (&self->context);
}

gboolean
cugi_pool_core_get_property (CugiPoolCore *self,
                             GParamSpec   *pspec,
                             GValue       *value)
{
  if (pspec == self->count_properties[0])
    g_value_set_uint (value, cugi_pool_core_get_held (self));
  else if (pspec == self->count_properties[1])
    g_value_set_uint (value, cugi_pool_core_get_active (self));
  else
    return FALSE;
  return TRUE;
}

/* cugi_pool_core_take(), of a held block only where @held_only is TRUE:
 * FALSE without an error where the pool holds none of @size's bin. */
static gboolean
pool_core_take (CugiPoolCore  *self,
                gsize          size,
                gboolean       held_only,
                const char    *no_context_message,
                guint64       *block,
                guint         *generation,
                GError       **error)
{
  if (self->blocks == NULL)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE, _(no_context_message));
      return FALSE;
    }
  *block = 0;
  *generation = pool_core_get_generation (self);
  if (size == 0)
    return TRUE;
  return held_only ? cugi_block_pool_take_held (self->blocks, *generation, size, block)
                   : cugi_block_pool_take (self->blocks, *generation, size, block, error);
}

gboolean
cugi_pool_core_take (CugiPoolCore  *self,
                     gsize          size,
                     const char    *no_context_message,
                     guint64       *block,
                     guint         *generation,
                     GError       **error)
{
  return pool_core_take (self, size, FALSE, no_context_message, block, generation, error);
}

gboolean
cugi_pool_core_give_back (CugiPoolCore  *self,
                          guint64        block,
                          gsize          size,
                          guint          generation,
                          GError       **error)
{
  return size == 0 ||
         cugi_block_pool_give_back (self->blocks, pool_core_get_generation (self),
                                    block, size, generation, error);
}

gpointer
cugi_pool_core_allocate (CugiPoolCore      *self,
                         gsize              size,
                         gboolean           held_only,
                         CugiPoolMakeFunc   make,
                         const char        *no_context_message,
                         GError           **error)
{
  guint64 block;
  guint generation;
  gpointer made;

  if (!pool_core_take (self, size, held_only, no_context_message, &block, &generation, error))
    return NULL;
  made = make (self, block, size, error);
  if (made == NULL)
    cugi_pool_core_give_back (self, block, size, generation, NULL);
  return made;
}

guint
cugi_pool_core_get_held (CugiPoolCore *self)
{
  return self->blocks != NULL ? cugi_block_pool_get_held (self->blocks) : 0;
}

guint
cugi_pool_core_get_active (CugiPoolCore *self)
{
  return self->blocks != NULL ? cugi_block_pool_get_active (self->blocks) : 0;
}

gboolean
cugi_pool_core_free_held (CugiPoolCore  *self,
                          GError       **error)
{
  return self->blocks == NULL ||
         cugi_block_pool_free_held (self->blocks, pool_core_get_generation (self), error);
}

gboolean
cugi_pool_core_stop_holding (CugiPoolCore  *self,
                             GError       **error)
{
  return self->blocks == NULL ||
         cugi_block_pool_stop_holding (self->blocks, pool_core_get_generation (self), error);
}

/* ---- ownership of memory -------------------------------------------------- */

void
cugi_memory_ownership_init (CugiMemoryOwnership   *self,
                            CugiMemoryReleaseFunc  release,
                            gpointer               owner)
{
  cugi_memory_lifetime_init (&self->lifetime, release, owner);
}

void
cugi_memory_ownership_set_context (CugiMemoryOwnership *self,
                                   CugiContext         *context)
{
  cugi_context_binding_init (&self->binding, context, CUGI_CONTEXT_BINDING_NONE);
}

void
cugi_memory_ownership_set_pool (CugiMemoryOwnership *self,
                                CugiPoolCore        *pool)
{
  g_object_ref (pool->object);
  self->pool = pool;
}

gboolean
cugi_memory_ownership_check (CugiMemoryOwnership  *self,
                             const char           *freed_message,
                             const char           *reset_message,
                             GError              **error)
{
  if (cugi_memory_lifetime_is_freed (&self->lifetime))
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE, _(freed_message));
      return FALSE;
    }
  return cugi_context_binding_check (&self->binding, reset_message, error);
}

gboolean
cugi_memory_ownership_give_back (CugiMemoryOwnership  *self,
                                 guint64               block,
                                 gsize                 size,
                                 GError              **error)
{
  return cugi_pool_core_give_back (self->pool, block, size, self->binding.generation, error);
}

gboolean
cugi_memory_ownership_free (CugiMemoryOwnership  *self,
                            GObject              *object,
                            GParamSpec           *freed_property,
                            const char           *freed_message,
                            GError              **error)
{
  gboolean ok;

  if (cugi_memory_lifetime_is_freed (&self->lifetime))
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE, _(freed_message));
      return FALSE;
    }
  ok = cugi_memory_lifetime_free (&self->lifetime, _(freed_message), error);
  g_object_notify_by_pspec (object, freed_property);
  return ok;
}

void
cugi_memory_ownership_clear (CugiMemoryOwnership *self)
{
  /* Releasing may give a block back to the pool: it goes after. */
  cugi_memory_lifetime_clear (&self->lifetime);
  if (self->pool != NULL)
    g_object_unref (self->pool->object);
  self->pool = NULL;
  cugi_context_binding_clear (&self->binding);
}
