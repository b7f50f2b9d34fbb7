/* cugi-kernel-args.c: the arguments of a kernel launch */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "cugi-private.h"
#include "cugi-memory-private.h"
#include "cugi-launch-private.h"
#include "cugi-stream-private.h"

/**
 * CugiKernelArgs:
 *
 * A builder for the arguments of a kernel launch, in the order of the
 * kernel's parameters. Each argument keeps its type and size, which
 * cugi_kernel_launch() checks against the kernel's parameters before the
 * driver sees them.
 *
 * A buffer argument holds a reference to its #CugiBuffer and passes the
 * buffer's device address; a launch keeps the buffers, and their memory,
 * until the kernel has run, whatever the caller drops or frees. A list that
 * was launched also keeps its buffers' memory in use for the launches to
 * come, but not past a cugi_buffer_free(): the memory then goes back once
 * the launches made so far have run, and the list's next launch fails with
 * %CUGI_ERROR_INVALID_STATE naming the argument. Scalars and #GBytes are
 * copied when added.
 *
 * An argument list may be reused for any number of launches, changed with
 * cugi_kernel_args_clear() and the adders in between; launches already made
 * are not affected. It is not meant to be changed from several threads at
 * once.
 *
 * Since: 0.1
 */

/* What every launch reads of the list is its first line. */
G_STATIC_ASSERT (G_STRUCT_OFFSET (CugiKernelArgs, inline_params) == CUGI_KERNEL_ARGS_ALIGNMENT);

G_DEFINE_BOXED_TYPE (CugiKernelArgs, cugi_kernel_args,
                     cugi_kernel_args_ref, cugi_kernel_args_unref)

/**
 * cugi_kernel_args_new:
 *
 * Returns: (transfer full): an empty argument list
 *
 * Since: 0.1
 */
CugiKernelArgs *
cugi_kernel_args_new (void)
{
  CugiKernelArgs *self = g_aligned_alloc0 (1, sizeof (CugiKernelArgs), CUGI_KERNEL_ARGS_ALIGNMENT);

  g_atomic_ref_count_init (&self->ref_count);
  g_mutex_init (&self->pin_lock);
  self->capacity = CUGI_KERNEL_ARGS_INLINE;
  self->args = self->inline_args;
  self->params = self->inline_params;
  self->values = self->inline_values;
  return self;
}

/**
 * cugi_kernel_args_ref:
 * @self: an argument list
 *
 * Returns: (transfer full): @self, with one more reference
 *
 * Since: 0.1
 */
CugiKernelArgs *
cugi_kernel_args_ref (CugiKernelArgs *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

/* What a list lets go of: the resources of its launches so far (with the
 * stream they are pinned to, if any), which go to that stream. */
typedef struct
{
  CugiStream *stream;
  GPtrArray  *resources;
} Handover;

/* Called with pin_lock held: takes the resources out of @self. */
static Handover
take_resources_locked (CugiKernelArgs *self)
{
  Handover handover = { g_atomic_pointer_exchange (&self->pinned_stream, NULL),
                        g_steal_pointer (&self->resources) };

  self->hold = NULL;
  return handover;
}

/* Launches made keep the resources until they complete, through the pinned
 * stream or their own reference. */
static void
hand_over (Handover handover)
{
  if (handover.stream != NULL)
    cugi_stream_unpin (handover.stream, handover.resources);
  else if (handover.resources != NULL)
    g_ptr_array_unref (handover.resources);
}

static void
hand_over_later (gpointer data)
{
  hand_over (*(Handover *) data);
  g_free (data);
}

/* A buffer of @self was freed (CugiMemoryLetGoFunc): its memory goes once
 * the launches so far are done, and the list's next launch finds the
 * buffer freed (the free ended the address epoch). */
static void
let_go (gpointer         owner,
        CugiMemoryHold  *hold,
        GDestroyNotify  *drop,
        gpointer        *drop_data)
{
  CugiKernelArgs *self = owner;

  g_mutex_lock (&self->pin_lock);
  /* Not when the list is letting go of this hold itself. */
  if (self->hold == hold)
    {
      Handover *handover = g_new (Handover, 1);

      *handover = take_resources_locked (self);
      *drop = hand_over_later;
      *drop_data = handover;
    }
  g_mutex_unlock (&self->pin_lock);
}

/* Lets go of the buffers. */
static void
drop_resources (CugiKernelArgs *self)
{
  CugiMemoryHold *hold;
  Handover handover;

  g_mutex_lock (&self->pin_lock);
  hold = self->hold;
  handover = take_resources_locked (self);
  g_mutex_unlock (&self->pin_lock);

  /* Before the resources, which own the hold, may go. */
  if (hold != NULL)
    cugi_memory_hold_disown (hold);
  hand_over (handover);
}

/* The arguments changed: what launches checked must be checked again. */
static void
forget_checks (CugiKernelArgs *self)
{
  g_atomic_pointer_set (&self->checked_signature, 0);
  g_atomic_pointer_set (&self->resolved_epoch, 0);
}

/* Buffers, textures, surfaces and tensor maps: a reference in the list,
 * and kept alive for launches (counted in n_buffers). */
static inline gboolean
arg_holds_object (CugiArgType type)
{
  return type == CUGI_ARG_BUFFER || type == CUGI_ARG_TEXTURE || type == CUGI_ARG_SURFACE ||
         type == CUGI_ARG_TENSOR_MAP;
}

static void
release_objects (CugiKernelArgs *self)
{
  for (guint i = 0; i < self->n_args; i++)
    {
      CugiKernelArg *arg = &self->args[i];

      if (arg_holds_object (arg->type))
        g_object_unref (arg->object);
      else if (arg->type == CUGI_ARG_BYTES)
        g_bytes_unref (arg->object);
      arg->object = NULL;
    }
  self->n_buffers = 0;
  drop_resources (self);
  forget_checks (self);
}

/**
 * cugi_kernel_args_unref:
 * @self: (transfer full): an argument list
 *
 * Drops a reference; the last one frees @self and drops its references to
 * buffers.
 *
 * Since: 0.1
 */
void
cugi_kernel_args_unref (CugiKernelArgs *self)
{
  g_return_if_fail (self != NULL);

  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;
  release_objects (self);
  if (self->args != self->inline_args)
    {
      g_free (self->args);
      g_free (self->params);
      g_free (self->values);
    }
  g_mutex_clear (&self->pin_lock);
  g_aligned_free (self);
}

/**
 * cugi_kernel_args_clear:
 * @self: an argument list
 *
 * Removes every argument, so that @self can be filled again.
 *
 * Since: 0.1
 */
void
cugi_kernel_args_clear (CugiKernelArgs *self)
{
  g_return_if_fail (self != NULL);

  release_objects (self);
  self->n_args = 0;
}

/* The value of @arg, an argument of @self. */
static inline CugiKernelValue *
value_of (CugiKernelArgs      *self,
          const CugiKernelArg *arg)
{
  return &self->values[arg - self->args];
}

/* Where the driver reads the value of @arg, an argument of @self, from. */
static void *
param_pointer (CugiKernelArgs *self,
               CugiKernelArg  *arg)
{
  if (arg->type == CUGI_ARG_BYTES)
    return (void *) g_bytes_get_data (arg->object, NULL);
  /* The descriptor itself, which the map the list holds keeps in place. */
  if (arg->type == CUGI_ARG_TENSOR_MAP)
    return (void *) cugi_tensor_map_get_encoded (arg->object);
  return value_of (self, arg);
}

/* @size bytes on the heap, beginning with the @inline_size of @inline_data. */
static gpointer
move_inline (gconstpointer inline_data,
             gsize         inline_size,
             gsize         size)
{
  gpointer data = g_malloc (size);

  memcpy (data, inline_data, inline_size);
  return data;
}

static CugiKernelArg *
append (CugiKernelArgs *self,
        CugiArgType     type,
        gsize           size)
{
  CugiKernelArg *arg;

  forget_checks (self);
  if (self->n_args == self->capacity)
    {
      guint capacity = self->capacity * 2;

      if (self->args == self->inline_args)
        {
          self->args = move_inline (self->inline_args, sizeof self->inline_args,
                                    capacity * sizeof (CugiKernelArg));
          self->params = g_new (void *, capacity);
          self->values = move_inline (self->inline_values, sizeof self->inline_values,
                                      capacity * sizeof (CugiKernelValue));
        }
      else
        {
          self->args = g_renew (CugiKernelArg, self->args, capacity);
          self->params = g_renew (void *, self->params, capacity);
          self->values = g_renew (CugiKernelValue, self->values, capacity);
        }
      self->capacity = capacity;
      /* The values moved: point the driver at their new places. */
      for (guint i = 0; i < self->n_args; i++)
        self->params[i] = param_pointer (self, &self->args[i]);
    }

  arg = &self->args[self->n_args];
  memset (arg, 0, sizeof *arg);
  memset (value_of (self, arg), 0, sizeof (CugiKernelValue));
  arg->type = type;
  /* Saturated, not cut short: a size beyond 32 bits stays beyond what any
   * kernel takes, so that the launch refuses it. */
  arg->size = MIN (size, G_MAXUINT32);
  return arg;
}

static void
commit (CugiKernelArgs *self,
        CugiKernelArg  *arg)
{
  self->params[self->n_args++] = param_pointer (self, arg);
}

/**
 * cugi_kernel_args_add_buffer:
 * @self: an argument list
 * @buffer: a buffer
 *
 * Adds the device address of @buffer, for a pointer parameter. @self keeps
 * a reference to @buffer; a buffer freed with cugi_buffer_free() before the
 * launch makes the launch fail.
 *
 * Since: 0.1
 */
void
cugi_kernel_args_add_buffer (CugiKernelArgs *self,
                             CugiBuffer     *buffer)
{
  CugiKernelArg *arg;

  g_return_if_fail (self != NULL);
  g_return_if_fail (CUGI_IS_BUFFER (buffer));

  arg = append (self, CUGI_ARG_BUFFER, sizeof (CUdeviceptr));
  arg->object = g_object_ref (buffer);
  self->n_buffers++;
  drop_resources (self);
  commit (self, arg);
}

/**
 * cugi_kernel_args_add_int32:
 * @self: an argument list
 * @value: the value
 *
 * Adds a 32-bit signed integer, for an `int` parameter (or an `unsigned
 * int` one, which takes the same bits).
 *
 * Since: 0.1
 */
void
cugi_kernel_args_add_int32 (CugiKernelArgs *self,
                            gint32          value)
{
  CugiKernelArg *arg;

  g_return_if_fail (self != NULL);

  arg = append (self, CUGI_ARG_INT32, sizeof value);
  value_of (self, arg)->i32 = value;
  commit (self, arg);
}

/**
 * cugi_kernel_args_add_uint32:
 * @self: an argument list
 * @value: the value
 *
 * Adds a 32-bit unsigned integer, for an `unsigned int` parameter.
 *
 * Since: 0.1
 */
void
cugi_kernel_args_add_uint32 (CugiKernelArgs *self,
                             guint32         value)
{
  CugiKernelArg *arg;

  g_return_if_fail (self != NULL);

  arg = append (self, CUGI_ARG_UINT32, sizeof value);
  value_of (self, arg)->u32 = value;
  commit (self, arg);
}

/**
 * cugi_kernel_args_add_int64:
 * @self: an argument list
 * @value: the value
 *
 * Adds a 64-bit signed integer, for a `long`, `long long` or `ptrdiff_t`
 * parameter.
 *
 * Since: 0.1
 */
void
cugi_kernel_args_add_int64 (CugiKernelArgs *self,
                            gint64          value)
{
  CugiKernelArg *arg;

  g_return_if_fail (self != NULL);

  arg = append (self, CUGI_ARG_INT64, sizeof value);
  value_of (self, arg)->i64 = value;
  commit (self, arg);
}

/**
 * cugi_kernel_args_add_uint64:
 * @self: an argument list
 * @value: the value
 *
 * Adds a 64-bit unsigned integer, for an `unsigned long` or `size_t`
 * parameter.
 *
 * Since: 0.1
 */
void
cugi_kernel_args_add_uint64 (CugiKernelArgs *self,
                             guint64         value)
{
  CugiKernelArg *arg;

  g_return_if_fail (self != NULL);

  arg = append (self, CUGI_ARG_UINT64, sizeof value);
  value_of (self, arg)->u64 = value;
  commit (self, arg);
}

/**
 * cugi_kernel_args_add_float:
 * @self: an argument list
 * @value: the value
 *
 * Adds a single-precision float, for a `float` parameter.
 *
 * Since: 0.1
 */
void
cugi_kernel_args_add_float (CugiKernelArgs *self,
                            gfloat          value)
{
  CugiKernelArg *arg;

  g_return_if_fail (self != NULL);

  arg = append (self, CUGI_ARG_FLOAT, sizeof value);
  value_of (self, arg)->f = value;
  commit (self, arg);
}

/**
 * cugi_kernel_args_add_double:
 * @self: an argument list
 * @value: the value
 *
 * Adds a double-precision float, for a `double` parameter.
 *
 * Since: 0.1
 */
void
cugi_kernel_args_add_double (CugiKernelArgs *self,
                             gdouble         value)
{
  CugiKernelArg *arg;

  g_return_if_fail (self != NULL);

  arg = append (self, CUGI_ARG_DOUBLE, sizeof value);
  value_of (self, arg)->d = value;
  commit (self, arg);
}

/**
 * cugi_kernel_args_add_bytes:
 * @self: an argument list
 * @bytes: the value's bytes, laid out as the kernel expects them
 *
 * Adds a value passed as it is: a struct passed by value, or a parameter
 * type without an adder of its own (`short`, `char`, `bool`, `__half`...).
 * Only its size is checked. A value larger than all the parameters a kernel
 * can have (32764 bytes) makes the launch fail with
 * %CUGI_ERROR_INVALID_ARGUMENT.
 *
 * Since: 0.1
 */
void
cugi_kernel_args_add_bytes (CugiKernelArgs *self,
                            GBytes         *bytes)
{
  CugiKernelArg *arg;

  g_return_if_fail (self != NULL);
  g_return_if_fail (bytes != NULL);

  arg = append (self, CUGI_ARG_BYTES, g_bytes_get_size (bytes));
  arg->object = g_bytes_ref (bytes);
  commit (self, arg);
}

/**
 * cugi_kernel_args_add_pointer:
 * @self: an argument list
 * @device_pointer: a device address
 *
 * Adds a raw device address, for a pointer parameter: memory that another
 * library allocated (PyTorch, CuPy, the CUDA runtime). Unlike a buffer,
 * nothing keeps that memory alive: its owner must.
 *
 * Since: 0.1
 */
void
cugi_kernel_args_add_pointer (CugiKernelArgs *self,
                              guint64         device_pointer)
{
  CugiKernelArg *arg;

  g_return_if_fail (self != NULL);

  arg = append (self, CUGI_ARG_POINTER, sizeof (CUdeviceptr));
  value_of (self, arg)->address = device_pointer;
  commit (self, arg);
}

/**
 * cugi_kernel_args_add_condition:
 * @self: an argument list
 * @condition: a condition made by cugi_graph_create_condition()
 *
 * Adds a graph's condition, for a `cudaGraphConditionalHandle` parameter
 * (an `unsigned long long`), which the kernel sets with
 * `cudaGraphSetConditional()`. Launches check it as they check textures:
 * only a 64-bit integer parameter takes it.
 *
 * Since: 0.1
 */
void
cugi_kernel_args_add_condition (CugiKernelArgs *self,
                                guint64         condition)
{
  CugiKernelArg *arg;

  g_return_if_fail (self != NULL);

  arg = append (self, CUGI_ARG_CONDITION, sizeof (guint64));
  value_of (self, arg)->u64 = condition;
  commit (self, arg);
}

/* A texture, surface or tensor map of @size bytes, and the object kept
 * alive. */
static CugiKernelArg *
append_object (CugiKernelArgs *self,
               CugiArgType     type,
               GObject        *object,
               gsize           size)
{
  CugiKernelArg *arg = append (self, type, size);

  arg->object = g_object_ref (object);
  self->n_buffers++;
  drop_resources (self);
  return arg;
}

/* A texture or surface: its handle. */
static void
add_object_handle (CugiKernelArgs *self,
                   CugiArgType     type,
                   GObject        *object,
                   guint64         handle)
{
  CugiKernelArg *arg = append_object (self, type, object, sizeof (guint64));

  value_of (self, arg)->u64 = handle;
  commit (self, arg);
}

/**
 * cugi_kernel_args_add_texture:
 * @self: an argument list
 * @texture: a texture
 *
 * Adds the handle of @texture, for a `cudaTextureObject_t` parameter (an
 * `unsigned long long`). @self keeps a reference to @texture, and launches
 * keep it until they have run, so the texture and what it reads outlive
 * the kernels that sample it.
 *
 * Since: 0.1
 */
void
cugi_kernel_args_add_texture (CugiKernelArgs *self,
                              CugiTexture    *texture)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (CUGI_IS_TEXTURE (texture));

  add_object_handle (self, CUGI_ARG_TEXTURE, G_OBJECT (texture), cugi_texture_get_handle (texture));
}

/**
 * cugi_kernel_args_add_surface:
 * @self: an argument list
 * @surface: a surface
 *
 * Adds the handle of @surface, for a `cudaSurfaceObject_t` parameter (an
 * `unsigned long long`). @self keeps a reference to @surface, and launches
 * keep it until they have run.
 *
 * Since: 0.1
 */
void
cugi_kernel_args_add_surface (CugiKernelArgs *self,
                              CugiSurface    *surface)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (CUGI_IS_SURFACE (surface));

  add_object_handle (self, CUGI_ARG_SURFACE, G_OBJECT (surface), cugi_surface_get_handle (surface));
}

/**
 * cugi_kernel_args_add_tensor_map:
 * @self: an argument list
 * @tensor_map: a tensor map
 *
 * Adds the 128 bytes of @tensor_map's descriptor, for a
 * `const __grid_constant__ CUtensorMap` parameter (which the kernel's
 * `cp.async.bulk.tensor` instructions take the address of). @self keeps a
 * reference to @tensor_map, and launches keep it until they have run, so
 * the map and the buffer it describes outlive the kernels that copy from
 * it.
 *
 * Since: 0.1
 */
void
cugi_kernel_args_add_tensor_map (CugiKernelArgs *self,
                                 CugiTensorMap  *tensor_map)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (CUGI_IS_TENSOR_MAP (tensor_map));

  commit (self, append_object (self, CUGI_ARG_TENSOR_MAP, G_OBJECT (tensor_map), sizeof (CUtensorMap)));
}

/**
 * cugi_kernel_args_copy:
 * @self: an argument list
 *
 * A new list with the arguments of @self (buffers are shared, not copied),
 * which later changes to either leave the other alone.
 *
 * Returns: (transfer full): the copy
 *
 * Since: 0.1
 */
CugiKernelArgs *
cugi_kernel_args_copy (CugiKernelArgs *self)
{
  CugiKernelArgs *copy;

  g_return_val_if_fail (self != NULL, NULL);

  copy = cugi_kernel_args_new ();
  for (guint i = 0; i < self->n_args; i++)
    {
      const CugiKernelArg *arg = &self->args[i];
      CugiKernelArg *new_arg = append (copy, arg->type, arg->size);

      *value_of (copy, new_arg) = *value_of (self, arg);
      if (arg_holds_object (arg->type))
        {
          new_arg->object = g_object_ref (arg->object);
          copy->n_buffers++;
        }
      else if (arg->type == CUGI_ARG_BYTES)
        new_arg->object = g_bytes_ref (arg->object);
      commit (copy, new_arg);
    }
  return copy;
}

/**
 * cugi_kernel_args_get_n_args:
 * @self: an argument list
 *
 * Returns: the number of arguments
 *
 * Since: 0.1
 */
guint
cugi_kernel_args_get_n_args (CugiKernelArgs *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->n_args;
}

/**
 * cugi_kernel_args_get_arg_type:
 * @self: an argument list
 * @index: an argument's position, from 0
 *
 * Returns: the type of the argument, or %CUGI_ARG_END past the last one
 *
 * Since: 0.1
 */
CugiArgType
cugi_kernel_args_get_arg_type (CugiKernelArgs *self,
                               guint           index)
{
  g_return_val_if_fail (self != NULL, CUGI_ARG_END);

  return index < self->n_args ? self->args[index].type : CUGI_ARG_END;
}

/**
 * cugi_kernel_args_get_arg_size:
 * @self: an argument list
 * @index: an argument's position, from 0
 *
 * Returns: the size in bytes the argument takes in the kernel's parameters,
 *   or 0 past the last one
 *
 * Since: 0.1
 */
gsize
cugi_kernel_args_get_arg_size (CugiKernelArgs *self,
                               guint           index)
{
  g_return_val_if_fail (self != NULL, 0);

  if (index >= self->n_args)
    return 0;
  /* The recorded size of bytes may be saturated. */
  if (self->args[index].type == CUGI_ARG_BYTES)
    return g_bytes_get_size (self->args[index].object);
  return self->args[index].size;
}

/* Kept apart from cugi_kernel_args_resolve(), whose common case then stays
 * a few instructions, inline. */
gboolean
cugi_kernel_args_resolve_addresses (CugiKernelArgs *self,
                                    gsize           epoch,
                                    GError        **error)
{
  for (guint i = 0; i < self->n_args; i++)
    {
      CugiKernelArg *arg = &self->args[i];
      g_autoptr(GError) local_error = NULL;

      if (arg->type != CUGI_ARG_BUFFER ||
          cugi_buffer_get_address (arg->object, &value_of (self, arg)->address, &local_error))
        continue;
      g_set_error (error, local_error->domain, local_error->code,
                   _("Kernel argument %u: %s"), i, local_error->message);
      return FALSE;
    }
  g_atomic_pointer_set (&self->resolved_epoch, epoch);
  return TRUE;
}

/* Called with pin_lock held. The buffers' memory is held for the launches
 * to come, by a hold that a free asks to let go (let_go()). */
static GPtrArray *
ensure_resources_locked (CugiKernelArgs *self)
{
  if (self->resources == NULL)
    {
      self->resources = cugi_work_resources_new ();
      for (guint i = 0; i < self->n_args; i++)
        if (self->args[i].type == CUGI_ARG_BUFFER)
          {
            if (self->hold == NULL)
              self->hold = cugi_buffer_hold_new (let_go, self, self->n_buffers);
            cugi_buffer_hold (self->args[i].object, self->hold);
          }
        else if (arg_holds_object (self->args[i].type))
          cugi_work_resources_add (self->resources, g_object_ref (self->args[i].object), g_object_unref);
      if (self->hold != NULL)
        cugi_work_resources_add (self->resources, self->hold, cugi_memory_hold_release);
    }
  return self->resources;
}

GPtrArray *
cugi_kernel_args_share_buffers (CugiKernelArgs *self)
{
  GPtrArray *resources;

  if (self->n_buffers == 0)
    return NULL;
  /* Two threads may launch the same list at once. */
  g_mutex_lock (&self->pin_lock);
  resources = g_ptr_array_ref (ensure_resources_locked (self));
  g_mutex_unlock (&self->pin_lock);
  return resources;
}

/* Out of line: the launch path's code stays compact. */
void
cugi_kernel_args_move_pin (CugiKernelArgs *self,
                           CugiStream     *stream)
{
  CugiStream *previous = NULL;
  GPtrArray *handed_over = NULL;

  g_mutex_lock (&self->pin_lock);
  if (self->pinned_stream != stream)
    {
      ensure_resources_locked (self);
      previous = self->pinned_stream;
      if (previous != NULL)
        handed_over = g_ptr_array_ref (self->resources);
      g_atomic_pointer_set (&self->pinned_stream, cugi_stream_pin (stream));
    }
  g_mutex_unlock (&self->pin_lock);

  if (previous != NULL)
    cugi_stream_unpin (previous, handed_over);
}

const char *
cugi_arg_type_to_string (CugiArgType type)
{
  switch (type)
    {
    case CUGI_ARG_BUFFER:
      return "CugiBuffer";
    case CUGI_ARG_INT32:
      return "int32";
    case CUGI_ARG_UINT32:
      return "uint32";
    case CUGI_ARG_INT64:
      return "int64";
    case CUGI_ARG_UINT64:
      return "uint64";
    case CUGI_ARG_FLOAT:
      return "float";
    case CUGI_ARG_DOUBLE:
      return "double";
    case CUGI_ARG_BYTES:
      return "bytes";
    case CUGI_ARG_POINTER:
      return "raw pointer";
    case CUGI_ARG_TEXTURE:
      return "CugiTexture";
    case CUGI_ARG_SURFACE:
      return "CugiSurface";
    case CUGI_ARG_CONDITION:
      return "graph condition";
    case CUGI_ARG_TENSOR_MAP:
      return "CugiTensorMap";
    case CUGI_ARG_END:
    default:
      return "nothing";
    }
}
