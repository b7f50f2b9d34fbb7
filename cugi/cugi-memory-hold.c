/* cugi-memory-hold.c: holds on memory for work to come, which a free of the
 * memory asks their owner to let go of (see CugiMemoryHold in
 * cugi-memory-private.h). The lifetimes held keep a pointer to the hold;
 * what ends the hold of an object unregisters it there first, so that a
 * free which finds it there may take a reference. */
#include "config.h"

#include "cugi-memory-private.h"

struct _CugiMemoryHold
{
  gatomicrefcount       ref_count;
  GMutex                lock;    /* guards owner; held while let_go runs */
  gpointer              owner;   /* NULL once it let go or disowned */
  CugiMemoryLetGoFunc   let_go;
  CugiMemoryHoldEndFunc end;
  guint                 n_objects;
  guint                 max_objects;
  gpointer              objects[]; /* what @end ends the hold of */
};

CugiMemoryHold *
cugi_memory_hold_new (CugiMemoryHoldEndFunc end,
                      CugiMemoryLetGoFunc   let_go,
                      gpointer              owner,
                      guint                 max_objects)
{
  /* One allocation: holds are made whenever a list's buffers change. */
  CugiMemoryHold *self = g_malloc (sizeof (CugiMemoryHold) + max_objects * sizeof (gpointer));

  g_atomic_ref_count_init (&self->ref_count);
  g_mutex_init (&self->lock);
  self->owner = owner;
  self->let_go = let_go;
  self->end = end;
  self->n_objects = 0;
  self->max_objects = max_objects;
  return self;
}

CugiMemoryHold *
cugi_memory_hold_ref (CugiMemoryHold *self)
{
  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

void
cugi_memory_hold_unref (CugiMemoryHold *self)
{
  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;
  g_mutex_clear (&self->lock);
  g_free (self);
}

void
cugi_memory_hold_add (CugiMemoryHold *self,
                      gpointer        object)
{
  g_assert (self->n_objects < self->max_objects);
  self->objects[self->n_objects++] = object;
}

void
cugi_memory_hold_let_go (CugiMemoryHold *self)
{
  gpointer owner, drop_data = NULL;
  GDestroyNotify drop = NULL;

  g_mutex_lock (&self->lock);
  owner = g_steal_pointer (&self->owner);
  if (owner != NULL)
    self->let_go (owner, self, &drop, &drop_data);
  g_mutex_unlock (&self->lock);
  if (drop != NULL)
    drop (drop_data);
}

void
cugi_memory_hold_disown (CugiMemoryHold *self)
{
  /* Waits for a let_go under way, which may still use the owner. */
  g_mutex_lock (&self->lock);
  self->owner = NULL;
  g_mutex_unlock (&self->lock);
}

void
cugi_memory_hold_release (gpointer hold)
{
  CugiMemoryHold *self = hold;

  for (guint i = 0; i < self->n_objects; i++)
    self->end (self->objects[i], self);
  cugi_memory_hold_unref (self);
}
