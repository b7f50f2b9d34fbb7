/* cugi-calls.c: the Python module _cugi, the part of cugi's PyGObject
 * overrides (Cugi.py) written in C.
 *
 * A Python call of a GI method goes through PyGObject's invoker, which
 * costs about as much as a kernel launch itself. The calls a program makes
 * in loops are written here instead: Kernel.launch() and
 * MemoryPool.allocate() and take_block() (methods the overrides' classes
 * take with add_methods()), and a kernel called like a function
 * (KernelCall, a base of the Kernel override), whose arguments a Plan, made
 * by Cugi.py at the kernel's first call, converts and launches in one C
 * call. They take and return what PyGObject would and raise its
 * GLib.Error, so that users see no difference but the time. take_block()
 * returns a MemoryBlock of this module rather than a GI wrapper: the
 * Python object of a pool's block, which costs a fraction of a buffer's
 * GObject and PyGObject wrapper.
 *
 * Built against Python's stable ABI (3.11), so that one file serves every
 * Python 3 from 3.11 on.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pygobject.h>
#include <math.h>
#include <string.h>

#include <glib/gi18n-lib.h>
#include <cugi/cugi.h>

/* A kernel plan takes up to this many parameters; kernels with more are
 * called the general way. */
#define MAX_PLANNED_PARAMS 64

/* The Python wrapper's GObject when @object wraps an instance of @type,
 * else NULL. */
static gpointer
gobject_of (PyObject *object,
            GType     type)
{
  GObject *instance;

  if (!PyObject_TypeCheck (object, &PyGObject_Type))
    return NULL;
  instance = pygobject_get (object);
  return instance != NULL && G_TYPE_CHECK_INSTANCE_TYPE (instance, type) ? instance : NULL;
}

/* The boxed value @object holds when it is a @type, else NULL. */
static gpointer
boxed_of (PyObject *object,
          GType     type)
{
  return pyg_boxed_check (object, type) ? pyg_boxed_get_ptr (object) : NULL;
}

static PyObject *
refuse_argument (const char *name,
                 const char *expected,
                 PyObject   *given)
{
  PyObject *type_name = PyObject_GetAttrString ((PyObject *) Py_TYPE (given), "__name__");

  PyErr_Format (PyExc_TypeError, "argument %s: Expected %s, but got %S", name, expected,
                type_name != NULL ? type_name : Py_None);
  Py_XDECREF (type_name);
  return NULL;
}

/* Kernel.launch(config, args), a method of Cugi.Kernel's override. */
static PyObject *
kernel_launch (PyObject         *self,
               PyObject *const  *argv,
               Py_ssize_t        argc)
{
  CugiKernel *kernel;
  CugiLaunchConfig *config;
  CugiKernelArgs *args;
  GError *error = NULL;
  gboolean launched;

  if (argc != 2)
    return PyErr_Format (PyExc_TypeError, "launch() takes 2 arguments (%zd given)", argc);
  if ((kernel = gobject_of (self, CUGI_TYPE_KERNEL)) == NULL)
    return refuse_argument ("self", "Cugi.Kernel", self);
  if ((config = boxed_of (argv[0], CUGI_TYPE_LAUNCH_CONFIG)) == NULL)
    return refuse_argument ("config", "Cugi.LaunchConfig", argv[0]);
  if ((args = boxed_of (argv[1], CUGI_TYPE_KERNEL_ARGS)) == NULL)
    return refuse_argument ("args", "Cugi.KernelArgs", argv[1]);

  /* Python's other threads run while the driver takes the launch, which
   * can wait when the device's queue is full. */
  Py_BEGIN_ALLOW_THREADS
  launched = cugi_kernel_launch (kernel, config, args, &error);
  Py_END_ALLOW_THREADS
  /* As PyGObject gives it: True, or GLib.Error. */
  if (!launched)
    {
      pyg_error_check (&error);
      return NULL;
    }
  Py_RETURN_TRUE;
}

/* The pool and the size of a call of MemoryPool.@name(size); FALSE with a
 * Python error set. */
static gboolean
parse_pool_size (PyObject         *self,
                 PyObject *const  *argv,
                 Py_ssize_t        argc,
                 const char       *name,
                 CugiMemoryPool  **pool,
                 gsize            *size)
{
  unsigned long long requested;

  if (argc != 1)
    {
      PyErr_Format (PyExc_TypeError, "%s() takes 1 argument (%zd given)", name, argc);
      return FALSE;
    }
  if ((*pool = gobject_of (self, CUGI_TYPE_MEMORY_POOL)) == NULL)
    {
      refuse_argument ("self", "Cugi.MemoryPool", self);
      return FALSE;
    }
  requested = PyLong_AsUnsignedLongLong (argv[0]);
  if (requested == (unsigned long long) -1 && PyErr_Occurred ())
    return FALSE;
  if (requested > G_MAXSIZE)
    {
      PyErr_Format (PyExc_OverflowError, "%llu is not a size", requested);
      return FALSE;
    }
  *size = requested;
  return TRUE;
}

/* MemoryPool.allocate(size), a method of Cugi.MemoryPool's override. */
static PyObject *
memory_pool_allocate (PyObject         *self,
                      PyObject *const  *argv,
                      Py_ssize_t        argc)
{
  CugiMemoryPool *pool;
  CugiBuffer *buffer;
  GError *error = NULL;
  gsize size;
  PyObject *wrapper;

  if (!parse_pool_size (self, argv, argc, "allocate", &pool, &size))
    return NULL;
  /* Without the GIL, as PyGObject calls it: a block the pool does not hold
   * is allocated by the driver. */
  Py_BEGIN_ALLOW_THREADS
  buffer = cugi_memory_pool_allocate (pool, size, &error);
  Py_END_ALLOW_THREADS
  if (buffer == NULL)
    {
      pyg_error_check (&error);
      return NULL;
    }
  wrapper = pygobject_new_full (G_OBJECT (buffer), TRUE, NULL);
  if (wrapper == NULL)
    g_object_unref (buffer);
  return wrapper;
}

/* ---- pool blocks ---------------------------------------------------------- */

/* Cugi.MemoryBlock in Python: a CugiMemoryBlock, and the buffer over it
 * once one is asked for (by .buffer or a kernel call), which from then on
 * holds the block until its work in flight has completed. */
typedef struct
{
  PyObject_HEAD
  CugiMemoryBlock *block;    /* NULL once freed */
  CugiBuffer      *buffer;   /* (nullable) */
} MemoryBlock;

static PyObject *memory_block_type;

static void
set_block_freed_error (GError **error)
{
  g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE, _("The block was freed"));
}

/* Raises set_block_freed_error()'s GLib.Error. */
static PyObject *
block_freed_error (void)
{
  GError *error = NULL;

  set_block_freed_error (&error);
  pyg_error_check (&error);
  return NULL;
}

/* The buffer over @self's block, made at the first call: borrowed, or
 * NULL with @error set. */
static CugiBuffer *
memory_block_buffer (MemoryBlock  *self,
                     GError      **error)
{
  if (self->block == NULL)
    {
      set_block_freed_error (error);
      return NULL;
    }
  if (self->buffer == NULL)
    self->buffer = cugi_memory_block_new_buffer (self->block, error);
  return self->buffer;
}

/* MemoryPool.take_block(size), a method of Cugi.MemoryPool's override. */
static PyObject *
memory_pool_take_block (PyObject         *self,
                        PyObject *const  *argv,
                        Py_ssize_t        argc)
{
  CugiMemoryPool *pool;
  CugiMemoryBlock *block;
  GError *error = NULL;
  gsize size;
  MemoryBlock *wrapper;

  if (!parse_pool_size (self, argv, argc, "take_block", &pool, &size))
    return NULL;
  /* Without the GIL, as allocate(). */
  Py_BEGIN_ALLOW_THREADS
  block = cugi_memory_pool_take_block (pool, size, &error);
  Py_END_ALLOW_THREADS
  if (block == NULL)
    {
      pyg_error_check (&error);
      return NULL;
    }
  wrapper = (MemoryBlock *) PyType_GenericAlloc ((PyTypeObject *) memory_block_type, 0);
  if (wrapper == NULL)
    {
      cugi_memory_block_unref (block);
      return NULL;
    }
  wrapper->block = block;
  return (PyObject *) wrapper;
}

/* Drops what @self holds: the block goes back to the pool now, or with
 * the buffer once its work has completed. */
static void
memory_block_clear (MemoryBlock *self)
{
  g_clear_object (&self->buffer);
  g_clear_pointer (&self->block, cugi_memory_block_unref);
}

static void
memory_block_dealloc (PyObject *object)
{
  PyTypeObject *type = Py_TYPE (object);
  freefunc free_object = PyType_GetSlot (type, Py_tp_free);

  memory_block_clear ((MemoryBlock *) object);
  free_object (object);
  Py_DECREF (type);
}

/* MemoryBlock.free(): gives the memory back now, or frees the buffer over
 * it, which gives it back once its work in flight has completed. */
static PyObject *
memory_block_free (PyObject *object,
                   PyObject *unused)
{
  MemoryBlock *self = (MemoryBlock *) object;
  GError *error = NULL;

  if (self->block == NULL)
    return block_freed_error ();
  if (self->buffer != NULL && !cugi_buffer_is_freed (self->buffer) &&
      !cugi_buffer_free (self->buffer, &error))
    {
      pyg_error_check (&error);
      return NULL;
    }
  memory_block_clear (self);
  Py_RETURN_NONE;
}

static PyObject *
memory_block_enter (PyObject *object,
                    PyObject *unused)
{
  Py_INCREF (object);
  return object;
}

/* __exit__(type, value, traceback): free(), unless that happened inside. */
static PyObject *
memory_block_exit (PyObject *object,
                   PyObject *args)
{
  if (((MemoryBlock *) object)->block == NULL)
    Py_RETURN_NONE;
  return memory_block_free (object, NULL);
}

static PyObject *
memory_block_get_address (PyObject *object,
                          void     *unused)
{
  MemoryBlock *self = (MemoryBlock *) object;

  if (self->block == NULL)
    return block_freed_error ();
  return PyLong_FromUnsignedLongLong (cugi_memory_block_get_address (self->block));
}

static PyObject *
memory_block_int (PyObject *object)
{
  return memory_block_get_address (object, NULL);
}

static PyObject *
memory_block_get_size (PyObject *object,
                       void     *unused)
{
  MemoryBlock *self = (MemoryBlock *) object;

  if (self->block == NULL)
    return block_freed_error ();
  return PyLong_FromSize_t (cugi_memory_block_get_size (self->block));
}

static Py_ssize_t
memory_block_length (PyObject *object)
{
  MemoryBlock *self = (MemoryBlock *) object;

  if (self->block == NULL)
    {
      block_freed_error ();
      return -1;
    }
  return (Py_ssize_t) MIN (cugi_memory_block_get_size (self->block), (gsize) PY_SSIZE_T_MAX);
}

static PyObject *
memory_block_get_buffer (PyObject *object,
                         void     *unused)
{
  GError *error = NULL;
  CugiBuffer *buffer = memory_block_buffer ((MemoryBlock *) object, &error);

  if (buffer == NULL)
    {
      pyg_error_check (&error);
      return NULL;
    }
  return pygobject_new (G_OBJECT (buffer));
}

/* The CUDA array interface (version 3), bytes: CuPy, Numba and PyTorch
 * take the block's memory without a copy. */
static PyObject *
memory_block_get_cuda_array_interface (PyObject *object,
                                       void     *unused)
{
  MemoryBlock *self = (MemoryBlock *) object;

  if (self->block == NULL)
    return block_freed_error ();
  return Py_BuildValue ("{s:(n),s:s,s:[(s,s)],s:(K,O),s:O,s:i}",
                        "shape", (Py_ssize_t) cugi_memory_block_get_size (self->block),
                        "typestr", "|u1",
                        "descr", "", "|u1",
                        "data", (unsigned long long) cugi_memory_block_get_address (self->block), Py_False,
                        "strides", Py_None,
                        "version", 3);
}

static PyObject *
memory_block_repr (PyObject *object)
{
  MemoryBlock *self = (MemoryBlock *) object;
  g_autofree gchar *text = NULL;

  if (self->block == NULL)
    return PyUnicode_FromString ("<Cugi.MemoryBlock, freed>");
  text = g_strdup_printf ("<Cugi.MemoryBlock of %zu bytes at 0x%" G_GINT64_MODIFIER "x>",
                          cugi_memory_block_get_size (self->block),
                          cugi_memory_block_get_address (self->block));
  return PyUnicode_FromString (text);
}

static PyMethodDef memory_block_methods[] = {
  { "free", memory_block_free, METH_NOARGS,
    "free(): the memory back to the pool now, or once the work on the block's buffer has completed." },
  { "__enter__", memory_block_enter, METH_NOARGS, NULL },
  { "__exit__", memory_block_exit, METH_VARARGS, NULL },
  { NULL, NULL, 0, NULL },
};

static PyGetSetDef memory_block_getset[] = {
  { "address", memory_block_get_address, NULL, "The device address (int(block) too).", NULL },
  { "size", memory_block_get_size, NULL, "The size in bytes asked for (len(block) too).", NULL },
  { "buffer", memory_block_get_buffer, NULL,
    "A Cugi.Buffer over the block, made once, which from then on holds the memory until the work "
    "in flight on it has completed.", NULL },
  { "__cuda_array_interface__", memory_block_get_cuda_array_interface, NULL,
    "The CUDA array interface (version 3) of the block's bytes.", NULL },
  { NULL, NULL, NULL, NULL, NULL },
};

static PyType_Slot memory_block_slots[] = {
  { Py_tp_dealloc, memory_block_dealloc },
  { Py_tp_methods, memory_block_methods },
  { Py_tp_getset, memory_block_getset },
  { Py_tp_repr, memory_block_repr },
  { Py_nb_int, memory_block_int },
  { Py_sq_length, memory_block_length },
  { Py_tp_doc,
    "A block of device memory from MemoryPool.take_block(size), without a Cugi.Buffer: its address "
    "(int(block)) and size (len(block)). Kernel calls take it as a buffer. It goes back to the pool "
    "when dropped or freed; once a buffer was made over it (.buffer, or a kernel call), after the "
    "work on that buffer has completed." },
  { 0, NULL },
};

static PyType_Spec memory_block_spec = {
  .name = "Cugi.MemoryBlock",
  .basicsize = sizeof (MemoryBlock),
  /* Made by MemoryPool.take_block() alone. */
  .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION,
  .slots = memory_block_slots,
};

/* ---- argument plans --------------------------------------------------- */

/* How a parameter takes its Python value (Plan's @checks). */
enum
{
  TAKES_BUFFER = 'p',     /* a Cugi.Buffer or Cugi.MemoryBlock */
  TAKES_NUMBER = 'n',     /* an int, float or bool, converted to the kind's format */
  TAKES_INT = 'i',        /* an int alone (an extern "C" kernel's first call passed one) */
  TAKES_REAL = 'r',       /* a float that is not a whole number beyond 32 bits and within 64 */
};

/* An argument list kept for the plan's calls with its values and buffers,
 * used by one call at a time: while a call passes the same buffers, the
 * list is launched as it is, or with new values, and no array of buffers
 * is handed over. The list holds the buffers; @buffers only tells them
 * apart. */
typedef struct
{
  CugiKernelArgs *args;
  gboolean holds_buffers;
  CugiBuffer **buffers;   /* one per parameter, NULL for values */
  guint8 *block;
} KeptList;

/* What a kernel call gives besides its arguments, in this order. */
enum { SHAPE_GRID, SHAPE_BLOCK, SHAPE_STREAM, SHAPE_SHARED_MEM, N_SHAPE };

/* Cugi.py's list of open `with stream:` blocks (set_open_scopes()). */
static PyObject *open_scopes;

typedef struct
{
  PyObject_HEAD
  /* Not a reference: the plan lives in the kernel wrapper's dictionary, and
   * one of its own made a cycle through PyGObject's toggle reference that
   * Python's garbage collector cannot see, so that no kernel called from
   * Python was ever freed, nor its module and context. A weak pointer: a
   * plan that outlives its kernel launches nothing. */
  CugiKernel *kernel;
  guint n_params;
  gchar *checks;        /* one of TAKES_* per parameter */
  gchar *formats;       /* a struct format character per value */
  gsize block_size;
  gboolean keeps_lists; /* every value is a number an argument list can update */
  GPtrArray *spares;    /* KeptList, taken and given back with the GIL held */
  /* The shape of the kernel's last call through Python (remember()), and
   * its LaunchConfig: plan_call() launches calls of that shape. */
  PyObject *shape[N_SHAPE];
  PyObject *config;
} Plan;

static void
kept_list_free (gpointer data)
{
  KeptList *kept = data;

  cugi_kernel_args_unref (kept->args);
  g_free (kept);
}

static KeptList *
kept_list_new (Plan *plan)
{
  KeptList *kept = g_malloc0 (sizeof (KeptList) + plan->n_params * sizeof (CugiBuffer *) +
                              plan->block_size);

  kept->args = cugi_kernel_args_new ();
  kept->buffers = (CugiBuffer **) (kept + 1);
  kept->block = (guint8 *) (kept->buffers + plan->n_params);
  return kept;
}

static gsize
format_size (gchar format)
{
  switch (format)
    {
    case 'b': case 'B': case '?': return 1;
    case 'h': case 'H': return 2;
    case 'i': case 'I': case 'f': return 4;
    case 'q': case 'Q': case 'd': return 8;
    default: return 0;
    }
}

/* Stores the low @size bytes of @bits at @out, in the host's order. */
static void
store_bits (guint64  bits,
            gsize    size,
            guint8  *out)
{
  guint32 four = (guint32) bits;
  guint16 two = (guint16) bits;

  switch (size)
    {
    case 8: memcpy (out, &bits, 8); break;
    case 4: memcpy (out, &four, 4); break;
    case 2: memcpy (out, &two, 2); break;
    default: *out = (guint8) bits; break;
    }
}

/* Packs @value as struct.pack('=' + @format) would, into @out; FALSE where
 * struct would refuse it (the call then goes the general way, which says
 * why in its own words), and for a bool ('?') where it is no int 0 or 1:
 * any other byte is undefined behaviour in the kernel. */
static gboolean
pack_value (gchar     format,
            PyObject *value,
            guint8   *out)
{
  gsize size;

  if (format == 'f' || format == 'd')
    {
      gdouble real = PyFloat_AsDouble (value);
      gfloat narrow;

      if (real == -1.0 && PyErr_Occurred ())
        {
          PyErr_Clear ();
          return FALSE;
        }
      if (format == 'd')
        {
          memcpy (out, &real, sizeof real);
          return TRUE;
        }
      narrow = (gfloat) real;
      if (isinf (narrow) && !isinf (real))
        return FALSE;
      memcpy (out, &narrow, sizeof narrow);
      return TRUE;
    }

  /* Integers: struct takes ints (bools among them), not floats. */
  if (!PyLong_Check (value))
    return FALSE;
  if (format == '?')
    {
      int overflow;
      long long number = PyLong_AsLongLongAndOverflow (value, &overflow);

      if (overflow != 0 || (number != 0 && number != 1))
        return FALSE;
      *out = (guint8) number;
      return TRUE;
    }
  size = format_size (format);
  if (g_ascii_isupper (format))
    {
      unsigned long long number = PyLong_AsUnsignedLongLong (value);

      if ((number == (unsigned long long) -1 && PyErr_Occurred ()) ||
          (size < 8 && number >> (8 * size) != 0))
        {
          PyErr_Clear ();
          return FALSE;
        }
      store_bits (number, size, out);
    }
  else
    {
      int overflow;
      long long number = PyLong_AsLongLongAndOverflow (value, &overflow);
      long long high = size < 8 ? (1LL << (8 * size - 1)) - 1 : G_MAXINT64;

      if (overflow != 0 || (number == -1 && PyErr_Occurred ()) || number < -high - 1 || number > high)
        {
          PyErr_Clear ();
          return FALSE;
        }
      /* Two's complement: the low bytes of the number are its own. */
      store_bits ((guint64) number, size, out);
    }
  return TRUE;
}

/* Whether @value passes @check (TAKES_NUMBER, TAKES_INT, TAKES_REAL). */
static gboolean
value_passes (gchar     check,
              PyObject *value)
{
  gdouble real;

  switch (check)
    {
    case TAKES_NUMBER:
      /* Exact types: NumPy scalars and other numbers go the general way,
       * which converts them alike without struct's warnings. */
      return PyLong_CheckExact (value) || PyFloat_CheckExact (value) || PyBool_Check (value);
    case TAKES_INT:
      return PyLong_CheckExact (value);
    case TAKES_REAL:
      /* A whole number beyond 32 bits and within 64 may be meant for an
       * integer parameter of unknown kind, which cugi refuses there. */
      if (!PyFloat_CheckExact (value))
        return FALSE;
      real = PyFloat_AsDouble (value);
      return (real >= -2147483648.0 && real <= 2147483647.0) || fmod (real, 1.0) != 0.0 ||
             !(real > -18446744073709551616.0 && real < 18446744073709551616.0);
    default:
      return FALSE;
    }
}

/* Converts the arguments of a call, @args (a tuple), into @block and
 * @buffers; FALSE where the plan does not take them. */
static gboolean
plan_convert (Plan         *self,
              PyObject     *args,
              guint8       *block,
              CugiBuffer  **buffers)
{
  const gchar *format = self->formats;
  gsize offset = 0;

  if (PyTuple_Size (args) != (Py_ssize_t) self->n_params)
    return FALSE;
  for (guint i = 0; i < self->n_params; i++)
    {
      PyObject *value = PyTuple_GetItem (args, i);

      if (self->checks[i] == TAKES_BUFFER)
        {
          /* A block the plan cannot pass goes the general way, which
           * raises its error. */
          if (Py_IS_TYPE (value, (PyTypeObject *) memory_block_type))
            buffers[i] = memory_block_buffer ((MemoryBlock *) value, NULL);
          else
            buffers[i] = gobject_of (value, CUGI_TYPE_BUFFER);
          if (buffers[i] == NULL)
            return FALSE;
          continue;
        }
      buffers[i] = NULL;
      if (!value_passes (self->checks[i], value) || !pack_value (*format, value, block + offset))
        return FALSE;
      offset += format_size (*format++);
    }
  return TRUE;
}

/* Launches with a kept list (see KeptList). */
static gboolean
plan_launch_kept (Plan              *self,
                  CugiLaunchConfig  *config,
                  const guint8      *block,
                  CugiBuffer       **buffers,
                  GError           **error)
{
  KeptList *kept = self->spares->len > 0
                   ? g_ptr_array_steal_index_fast (self->spares, self->spares->len - 1) : NULL;
  gboolean same_buffers = kept != NULL && kept->holds_buffers &&
                          memcmp (kept->buffers, buffers, self->n_params * sizeof *buffers) == 0;
  gboolean same_values = same_buffers && memcmp (kept->block, block, self->block_size) == 0;
  gboolean launched;

  if (kept == NULL)
    kept = kept_list_new (self);
  Py_BEGIN_ALLOW_THREADS
  if (same_values)
    launched = cugi_kernel_launch (self->kernel, config, kept->args, error);
  else
    launched = cugi_kernel_launch_update (self->kernel, config, kept->args, block, self->block_size,
                                          same_buffers ? NULL : buffers, self->n_params, error);
  Py_END_ALLOW_THREADS
  /* After a failure the list is filled afresh next time. */
  kept->holds_buffers = launched;
  memcpy (kept->buffers, buffers, self->n_params * sizeof *buffers);
  memcpy (kept->block, block, self->block_size);
  g_ptr_array_add (self->spares, kept);
  return launched;
}

/* Launches the call of @args (a tuple): FALSE where the plan does not
 * take them or the launch failed (the call then goes the general way,
 * which converts as before and raises its errors). */
static gboolean
plan_launch_args (Plan              *self,
                  CugiLaunchConfig  *config,
                  PyObject          *args)
{
  CugiBuffer *buffers[MAX_PLANNED_PARAMS];
  guint8 block[MAX_PLANNED_PARAMS * 8];
  GError *error = NULL;
  gboolean launched;

  if (self->kernel == NULL || !plan_convert (self, args, block, buffers))
    return FALSE;
  /* The buffers stay alive during the launch without the GIL: the caller's
   * arguments hold their wrappers, or the blocks that hold them. */
  if (self->keeps_lists)
    launched = plan_launch_kept (self, config, block, buffers, &error);
  else
    {
      Py_BEGIN_ALLOW_THREADS
      launched = cugi_kernel_launch_packed (self->kernel, config, block, self->block_size,
                                            buffers, self->n_params, &error);
      Py_END_ALLOW_THREADS
    }
  g_clear_error (&error);
  return launched;
}

/* Plan.launch(config, args): True once launched, None where the call goes
 * the general way (see plan_launch_args()). */
static PyObject *
plan_launch (PyObject         *object,
             PyObject *const  *argv,
             Py_ssize_t        argc)
{
  CugiLaunchConfig *config;

  if (argc != 2)
    return PyErr_Format (PyExc_TypeError, "launch() takes 2 arguments (%zd given)", argc);
  if ((config = boxed_of (argv[0], CUGI_TYPE_LAUNCH_CONFIG)) == NULL)
    return refuse_argument ("config", "Cugi.LaunchConfig", argv[0]);
  if (PyTuple_Check (argv[1]) && plan_launch_args ((Plan *) object, config, argv[1]))
    Py_RETURN_TRUE;
  Py_RETURN_NONE;
}

/* Whether @a and @b are equal; FALSE also where comparing them fails
 * (NumPy arrays for dimensions). */
static gboolean
same_value (PyObject *a,
            PyObject *b)
{
  int equal;

  if (a == b)
    return TRUE;
  equal = PyObject_RichCompareBool (a, b, Py_EQ);
  if (equal < 0)
    PyErr_Clear ();
  return equal == 1;
}

/* Launches a call of @args (a tuple) and @shape by @self, where @shape is
 * the one remember() was told last; FALSE for every other call, which
 * Python then makes: another shape, one inside `with stream:` without a
 * stream of its own (its stream is the scope's, which Python finds), or
 * arguments the plan does not take. */
static gboolean
plan_call (Plan             *self,
           PyObject         *args,
           PyObject *const  *shape)
{
  PyObject *config_object;
  gboolean launched;

  if (self->config == NULL ||
      (shape[SHAPE_STREAM] == Py_None && (open_scopes == NULL || PyList_Size (open_scopes) > 0)))
    return FALSE;
  for (int i = 0; i < N_SHAPE; i++)
    if (!same_value (self->shape[i], shape[i]))
      return FALSE;
  /* Kept through the launch, which another thread's remember() may replace
   * meanwhile. */
  config_object = self->config;
  Py_INCREF (config_object);
  launched = plan_launch_args (self, boxed_of (config_object, CUGI_TYPE_LAUNCH_CONFIG), args);
  Py_DECREF (config_object);
  return launched;
}

/* Plan.remember(grid, block, stream, shared_mem, config): the shape of the
 * kernel's last call, and the LaunchConfig it made of it, for plan_call(). */
static PyObject *
plan_remember (PyObject         *object,
               PyObject *const  *argv,
               Py_ssize_t        argc)
{
  Plan *self = (Plan *) object;
  PyObject *previous[N_SHAPE + 1];

  if (argc != N_SHAPE + 1 || boxed_of (argv[N_SHAPE], CUGI_TYPE_LAUNCH_CONFIG) == NULL)
    return PyErr_Format (PyExc_TypeError, "remember() takes a call's shape and its LaunchConfig");
  /* Replaced whole before anything is released, whose finalizers may run
   * Python code. */
  memcpy (previous, self->shape, sizeof self->shape);
  previous[N_SHAPE] = self->config;
  for (int i = 0; i < N_SHAPE; i++)
    {
      Py_INCREF (argv[i]);
      self->shape[i] = argv[i];
    }
  Py_INCREF (argv[N_SHAPE]);
  self->config = argv[N_SHAPE];
  for (int i = 0; i <= N_SHAPE; i++)
    Py_XDECREF (previous[i]);
  Py_RETURN_NONE;
}

/* _cugi.Plan(kernel, checks, formats) */
static PyObject *
plan_new (PyTypeObject *type,
          PyObject     *args,
          PyObject     *kwargs)
{
  PyObject *kernel_object;
  const char *checks, *formats;
  CugiKernel *kernel;
  gsize n_values = 0, block_size = 0;
  gboolean keeps_lists = TRUE;
  Plan *self;

  if (!PyArg_ParseTuple (args, "Oss:Plan", &kernel_object, &checks, &formats))
    return NULL;
  if ((kernel = gobject_of (kernel_object, CUGI_TYPE_KERNEL)) == NULL)
    return refuse_argument ("kernel", "Cugi.Kernel", kernel_object);
  if (strlen (checks) > MAX_PLANNED_PARAMS)
    return PyErr_Format (PyExc_ValueError, "a plan takes at most %d parameters", MAX_PLANNED_PARAMS);
  for (const gchar *check = checks; *check != '\0'; check++)
    {
      if (*check == TAKES_BUFFER)
        continue;
      if (strchr ("nir", *check) == NULL)
        return PyErr_Format (PyExc_ValueError, "unknown check '%c'", *check);
      n_values++;
    }
  if (strlen (formats) != n_values)
    return PyErr_Format (PyExc_ValueError, "%zu formats for %zu values", strlen (formats), n_values);
  for (const gchar *format = formats; *format != '\0'; format++)
    {
      if (format_size (*format) == 0)
        return PyErr_Format (PyExc_ValueError, "unknown format '%c'", *format);
      block_size += format_size (*format);
      /* Values smaller than 4 bytes are bytes in an argument list, which
       * takes no new values: those launches pack afresh each time. */
      keeps_lists = keeps_lists && strchr ("iIqQfd", *format) != NULL;
    }

  self = (Plan *) PyType_GenericAlloc (type, 0);
  if (self == NULL)
    return NULL;
  self->kernel = kernel;
  g_object_add_weak_pointer (G_OBJECT (kernel), (gpointer *) &self->kernel);
  self->n_params = strlen (checks);
  self->checks = g_strdup (checks);
  self->formats = g_strdup (formats);
  self->block_size = block_size;
  self->keeps_lists = keeps_lists;
  self->spares = g_ptr_array_new_with_free_func (kept_list_free);
  return (PyObject *) self;
}

static void
plan_dealloc (PyObject *object)
{
  Plan *self = (Plan *) object;
  PyTypeObject *type = Py_TYPE (object);
  freefunc free_object = PyType_GetSlot (type, Py_tp_free);

  for (int i = 0; i < N_SHAPE; i++)
    Py_XDECREF (self->shape[i]);
  Py_XDECREF (self->config);
  g_ptr_array_unref (self->spares);
  g_free (self->checks);
  g_free (self->formats);
  if (self->kernel != NULL)
    g_object_remove_weak_pointer (G_OBJECT (self->kernel), (gpointer *) &self->kernel);
  free_object (object);
  Py_DECREF (type);
}

static PyMethodDef plan_methods[] = {
  { "launch", (PyCFunction) (void (*) (void)) plan_launch, METH_FASTCALL,
    "launch(config, args): True once launched, None where the call goes the general way." },
  { "remember", (PyCFunction) (void (*) (void)) plan_remember, METH_FASTCALL,
    "remember(grid, block, stream, shared_mem, config): the shape KernelCall launches by this plan." },
  { NULL, NULL, 0, NULL },
};

static PyType_Slot plan_slots[] = {
  { Py_tp_new, plan_new },
  { Py_tp_dealloc, plan_dealloc },
  { Py_tp_methods, plan_methods },
  { Py_tp_doc, "Plan(kernel, checks, formats): how a kernel's calls convert and launch their arguments." },
  { 0, NULL },
};

static PyType_Spec plan_spec = {
  .name = "_cugi.Plan",
  .basicsize = sizeof (Plan),
  .flags = Py_TPFLAGS_DEFAULT,
  .slots = plan_slots,
};

/* ---- kernels called like functions ---------------------------------------- */

static PyObject *plan_type;
static PyObject *plan_name;                /* "_cugi_plan" */
static PyObject *call_slowly_name;         /* "_call_slowly" */
static PyObject *shape_names[N_SHAPE];     /* "grid", "block", "stream", "shared_mem" */
static PyObject *zero;

/* KernelCall.__call__(*args, grid, block, stream=None, shared_mem=0): a
 * call of the shape of the kernel's call before by its plan (the
 * `_cugi_plan` of its wrapper), without a Python frame; the others through its
 * _call_slowly(), which takes the same arguments. */
static PyObject *
kernel_call (PyObject *self,
             PyObject *args,
             PyObject *keywords)
{
  PyObject *shape[N_SHAPE] = { NULL, NULL, Py_None, zero };
  Py_ssize_t n_given = 0;
  PyObject *plan, *slowly, *result;
  gboolean launched = FALSE;

  for (int i = 0; keywords != NULL && i < N_SHAPE; i++)
    {
      PyObject *value = PyDict_GetItemWithError (keywords, shape_names[i]);

      if (value != NULL)
        {
          shape[i] = value;
          n_given++;
        }
      else if (PyErr_Occurred ())
        return NULL;
    }
  /* The plan from the wrapper's own dictionary (a getattr() costs as
   * much as the rest of the call), kept through the launch. */
  if (shape[SHAPE_GRID] != NULL && shape[SHAPE_BLOCK] != NULL && n_given == PyDict_Size (keywords) &&
      PyObject_TypeCheck (self, &PyGObject_Type) && ((PyGObject *) self)->inst_dict != NULL &&
      (plan = PyDict_GetItemWithError (((PyGObject *) self)->inst_dict, plan_name)) != NULL &&
      PyObject_TypeCheck (plan, (PyTypeObject *) plan_type))
    {
      Py_INCREF (plan);
      launched = plan_call ((Plan *) plan, args, shape);
      Py_DECREF (plan);
    }
  else if (PyErr_Occurred ())
    return NULL;
  if (launched)
    Py_RETURN_TRUE;
  slowly = PyObject_GetAttr (self, call_slowly_name);
  if (slowly == NULL)
    return NULL;
  result = PyObject_Call (slowly, args, keywords);
  Py_DECREF (slowly);
  return result;
}

static PyType_Slot kernel_call_slots[] = {
  { Py_tp_call, kernel_call },
  { Py_tp_doc, "KernelCall: a base of Cugi.Kernel that calls it like a function, in C." },
  { 0, NULL },
};

/* No fields of its own, so that Cugi.Kernel's override can have it as a
 * second base, whose __call__ Python then calls without a frame. */
static PyType_Spec kernel_call_spec = {
  .name = "_cugi.KernelCall",
  .basicsize = 0,
  .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
  .slots = kernel_call_slots,
};

/* The methods the overrides' classes take from here: written in C, so that
 * a call is neither PyGObject's invoker nor a Python frame. */
static PyMethodDef kernel_methods[] = {
  { "launch", (PyCFunction) (void (*) (void)) kernel_launch, METH_FASTCALL,
    "launch(config, args): Cugi.Kernel.launch(), in C rather than through PyGObject's invoker." },
  { NULL, NULL, 0, NULL },
};

static PyMethodDef memory_pool_methods[] = {
  { "allocate", (PyCFunction) (void (*) (void)) memory_pool_allocate, METH_FASTCALL,
    "allocate(size): Cugi.MemoryPool.allocate(), in C rather than through PyGObject's invoker." },
  { "take_block", (PyCFunction) (void (*) (void)) memory_pool_take_block, METH_FASTCALL,
    "take_block(size): a Cugi.MemoryBlock of size bytes (Cugi.MemoryPool.take_block())." },
  { NULL, NULL, 0, NULL },
};

static gboolean
add_methods (PyObject    *class,
             PyMethodDef *methods)
{
  for (PyMethodDef *method = methods; method->ml_name != NULL; method++)
    {
      PyObject *descriptor = PyDescr_NewMethod ((PyTypeObject *) class, method);
      int set;

      if (descriptor == NULL)
        return FALSE;
      set = PyObject_SetAttrString (class, method->ml_name, descriptor);
      Py_DECREF (descriptor);
      if (set < 0)
        return FALSE;
    }
  return TRUE;
}

/* _cugi.add_methods(Kernel, MemoryPool): gives the overrides' classes
 * their methods written here. */
static PyObject *
calls_add_methods (PyObject         *module,
                   PyObject *const  *argv,
                   Py_ssize_t        argc)
{
  if (argc != 2 || !PyType_Check (argv[0]) || !PyType_Check (argv[1]))
    return PyErr_Format (PyExc_TypeError, "add_methods() takes the classes Kernel and MemoryPool");
  if (!add_methods (argv[0], kernel_methods) || !add_methods (argv[1], memory_pool_methods))
    return NULL;
  Py_RETURN_NONE;
}

/* _cugi.set_open_scopes(list): Cugi.py's list of open `with stream:`
 * blocks, whose kernel calls KernelCall leaves to Python. */
static PyObject *
calls_set_open_scopes (PyObject *module,
                       PyObject *scopes)
{
  if (!PyList_Check (scopes))
    return PyErr_Format (PyExc_TypeError, "set_open_scopes() takes a list");
  Py_INCREF (scopes);
  Py_XDECREF (open_scopes);
  open_scopes = scopes;
  Py_RETURN_NONE;
}

/* ---- the module ---------------------------------------------------------- */

static PyMethodDef calls_methods[] = {
  { "add_methods", (PyCFunction) (void (*) (void)) calls_add_methods, METH_FASTCALL,
    "add_methods(Kernel, MemoryPool): the methods above, on the overrides' classes." },
  { "set_open_scopes", calls_set_open_scopes, METH_O,
    "set_open_scopes(list): the open `with stream:` blocks, whose calls Python makes." },
  { NULL, NULL, 0, NULL },
};

static int
calls_exec (PyObject *module)
{
  static const char *const shape_keywords[N_SHAPE] = { "grid", "block", "stream", "shared_mem" };
  PyObject *gobject_module = pygobject_init (-1, -1, -1);
  PyObject *kernel_call_type;

  if (gobject_module == NULL)
    return -1;
  Py_DECREF (gobject_module);
  plan_name = PyUnicode_InternFromString ("_cugi_plan");
  call_slowly_name = PyUnicode_InternFromString ("_call_slowly");
  zero = PyLong_FromLong (0);
  if (plan_name == NULL || call_slowly_name == NULL || zero == NULL)
    return -1;
  for (int i = 0; i < N_SHAPE; i++)
    if ((shape_names[i] = PyUnicode_InternFromString (shape_keywords[i])) == NULL)
      return -1;
  plan_type = PyType_FromSpec (&plan_spec);
  kernel_call_type = PyType_FromSpec (&kernel_call_spec);
  memory_block_type = PyType_FromSpec (&memory_block_spec);
  if (plan_type == NULL || kernel_call_type == NULL || memory_block_type == NULL)
    return -1;
  Py_INCREF (memory_block_type);
  if (PyModule_AddObject (module, "MemoryBlock", memory_block_type) < 0)
    {
      Py_DECREF (memory_block_type);
      return -1;
    }
  /* The module's references, beside the ones kept here. */
  Py_INCREF (plan_type);
  Py_INCREF (kernel_call_type);
  if (PyModule_AddObject (module, "Plan", plan_type) < 0)
    {
      Py_DECREF (plan_type);
      return -1;
    }
  if (PyModule_AddObject (module, "KernelCall", kernel_call_type) < 0)
    {
      Py_DECREF (kernel_call_type);
      return -1;
    }
  return PyModule_AddIntConstant (module, "MAX_PLANNED_PARAMS", MAX_PLANNED_PARAMS);
}

static PyModuleDef_Slot calls_slots[] = {
  { Py_mod_exec, calls_exec },
  { 0, NULL },
};

static struct PyModuleDef calls_module = {
  PyModuleDef_HEAD_INIT,
  .m_name = "_cugi",
  .m_doc = "The part of cugi's PyGObject overrides written in C.",
  .m_methods = calls_methods,
  .m_slots = calls_slots,
};

PyMODINIT_FUNC PyInit__cugi (void);

PyMODINIT_FUNC
PyInit__cugi (void)
{
  return PyModuleDef_Init (&calls_module);
}
