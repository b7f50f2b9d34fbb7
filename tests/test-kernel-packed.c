/* test-kernel-packed.c: launches from a block of packed values into an
 * argument list the caller keeps (cugi_kernel_launch_update()), as
 * bindings make them, against the stand-in driver (fake-cuda-streams),
 * which records the parameters of the last launch: the list is filled
 * once with its buffers, then takes new values alone, launches what it
 * holds byte for byte, and refuses a block that does not fit it without
 * launching anything. */
#include "config.h"

#include <string.h>

#include "cugi-test-utils.h"

/* The stand-in driver's module format: a kernel and its parameters' sizes:
 * axpy4 (float a, const float *x, float *y, unsigned int n), one that
 * takes a 4-byte struct and a float, and the C++ kernel flag (float *,
 * bool). */
static const char image[] = "axpy4 4 8 8 4\nwith_struct 4 4\n_Z4flagPfb 8 1\n";

static size_t (*last_params) (void *out, size_t capacity);

typedef struct
{
  CugiKernel       *axpy;
  CugiKernel       *with_struct;
  CugiKernel       *flag;
  CugiLaunchConfig *config;
  CugiBuffer       *x;
  CugiBuffer       *y;
} Fixture;

static CugiKernel *
kernel_new (CugiModule *module,
            const char *name)
{
  g_autoptr(GError) error = NULL;
  CugiKernel *kernel = cugi_module_get_kernel (module, name, &error);

  g_assert_no_error (error);
  return kernel;
}

static void
fixture_set_up (Fixture      *f,
                gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = g_bytes_new_static (image, sizeof image);
  g_autoptr(CugiModule) module = cugi_module_new_from_data (NULL, bytes, &error);
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);

  g_assert_no_error (error);
  f->axpy = kernel_new (module, "axpy4");
  f->with_struct = kernel_new (module, "with_struct");
  f->flag = kernel_new (module, "_Z4flagPfb");
  f->config = cugi_launch_config_new (1, 32);
  cugi_launch_config_set_stream (f->config, stream);
  f->x = cugi_test_buffer_new (128);
  f->y = cugi_test_buffer_new (128);
}

static void
fixture_tear_down (Fixture      *f,
                   gconstpointer data)
{
  cugi_test_synchronize (NULL);
  g_clear_object (&f->axpy);
  g_clear_object (&f->with_struct);
  g_clear_object (&f->flag);
  g_clear_pointer (&f->config, cugi_launch_config_unref);
  g_clear_object (&f->x);
  g_clear_object (&f->y);
}

/* axpy4's block: a, then n. */
typedef struct __attribute__ ((packed))
{
  gfloat  a;
  guint32 n;
} AxpyBlock;

/* What the driver must have been given for axpy4 (a, x, y, n). */
static void
assert_axpy_launched (gfloat      a,
                      CugiBuffer *x,
                      CugiBuffer *y,
                      guint32     n)
{
  guint8 expected[24], got[64];
  guint64 x_address = cugi_buffer_get_device_pointer (x), y_address = cugi_buffer_get_device_pointer (y);

  memcpy (expected, &a, 4);
  memcpy (expected + 4, &x_address, 8);
  memcpy (expected + 12, &y_address, 8);
  memcpy (expected + 20, &n, 4);
  g_assert_cmpmem (got, last_params (got, sizeof got), expected, sizeof expected);
}

/* Fills @args for axpy4 from @block and the fixture's buffers, x then y,
 * and launches it. */
static void
fill_axpy_args (Fixture        *f,
                CugiKernelArgs *args,
                AxpyBlock       block)
{
  g_autoptr(GError) error = NULL;
  CugiBuffer *buffers[] = { NULL, f->x, f->y, NULL };

  g_assert_true (cugi_kernel_launch_update (f->axpy, f->config, args, (const guint8 *) &block, sizeof block,
                                            buffers, G_N_ELEMENTS (buffers), &error));
  g_assert_no_error (error);
  g_assert_cmpuint (cugi_kernel_args_get_n_args (args), ==, 4);
  assert_axpy_launched (block.a, f->x, f->y, block.n);
}

static void
test_new_values_in_a_kept_list (Fixture      *f,
                                gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiKernelArgs) args = cugi_kernel_args_new ();
  CugiBuffer *buffers[] = { NULL, f->y, f->x, NULL };
  AxpyBlock block = { -1.0f, 7 };

  fill_axpy_args (f, args, (AxpyBlock) { 2.5f, 32 });
  /* New values alone: the buffers stay. */
  g_assert_true (cugi_kernel_launch_update (f->axpy, f->config, args, (const guint8 *) &block, sizeof block,
                                            NULL, 0, &error));
  g_assert_no_error (error);
  assert_axpy_launched (-1.0f, f->x, f->y, 7);
  /* The list keeps them: launched as it is, it passes them again. */
  g_assert_true (cugi_kernel_launch (f->axpy, f->config, args, &error));
  g_assert_no_error (error);
  assert_axpy_launched (-1.0f, f->x, f->y, 7);

  /* Other buffers refill it. */
  block = (AxpyBlock) { 3.0f, 9 };
  g_assert_true (cugi_kernel_launch_update (f->axpy, f->config, args, (const guint8 *) &block, sizeof block,
                                            buffers, G_N_ELEMENTS (buffers), &error));
  g_assert_no_error (error);
  assert_axpy_launched (3.0f, f->y, f->x, 9);
}

static void
test_bytes_keep_their_value (Fixture      *f,
                             gconstpointer data)
{
  static const guint8 value[4] = { 1, 2, 3, 4 };
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiKernelArgs) args = cugi_kernel_args_new ();
  g_autoptr(GBytes) bytes = g_bytes_new_static (value, sizeof value);
  gfloat number = 0.5f;
  guint8 expected[8], got[16];

  cugi_kernel_args_add_bytes (args, bytes);
  cugi_kernel_args_add_float (args, 1.0f);
  g_assert_true (cugi_kernel_launch_update (f->with_struct, f->config, args, (const guint8 *) &number,
                                            sizeof number, NULL, 0, &error));
  g_assert_no_error (error);
  memcpy (expected, value, 4);
  memcpy (expected + 4, &number, 4);
  g_assert_cmpmem (got, last_params (got, sizeof got), expected, sizeof expected);
}

static void
test_blocks_that_do_not_fit (Fixture      *f,
                             gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiKernelArgs) args = cugi_kernel_args_new ();
  g_autoptr(CugiKernelArgs) empty = cugi_kernel_args_new ();
  CugiBuffer *buffers[] = { NULL, f->x, f->y, NULL };
  AxpyBlock block = { 2.0f, 32 };

  fill_axpy_args (f, args, block);

  /* Too short, and a list never filled: nothing is launched, and the list
   * keeps its values. */
  cugi_test_assert_fails (cugi_kernel_launch_update (f->axpy, f->config, args, (const guint8 *) &block, 4,
                                                     NULL, 0, &error),
                          &error, CUGI_ERROR_INVALID_ARGUMENT,
                          "has 4 bytes, but the numbers of the argument list take 8");
  cugi_test_assert_fails (cugi_kernel_launch_update (f->axpy, f->config, empty, (const guint8 *) &block,
                                                     sizeof block, NULL, 0, &error),
                          &error, CUGI_ERROR_INVALID_ARGUMENT,
                          "has 8 bytes, but the numbers of the argument list take 0");
  assert_axpy_launched (2.0f, f->x, f->y, 32);
  g_assert_true (cugi_kernel_launch (f->axpy, f->config, args, &error));
  g_assert_no_error (error);
  assert_axpy_launched (2.0f, f->x, f->y, 32);

  /* Buffers that do not fit the kernel: the list is emptied, keeping none. */
  cugi_test_assert_fails (cugi_kernel_launch_update (f->axpy, f->config, args, (const guint8 *) &block,
                                                     sizeof block, buffers, 3, &error),
                          &error, CUGI_ERROR_INVALID_ARGUMENT, "3 buffer slots");
  g_assert_cmpuint (cugi_kernel_args_get_n_args (args), ==, 0);
  assert_axpy_launched (2.0f, f->x, f->y, 32);
}

/* Launches axpy4 with buffers x and y by a packed launch (the kernel's own
 * list) or into @args. */
static gboolean
launch_axpy_with (Fixture         *f,
                  CugiKernelArgs  *args,
                  CugiBuffer      *x,
                  CugiBuffer      *y,
                  GError         **error)
{
  AxpyBlock block = { 2.0f, 32 };
  CugiBuffer *buffers[] = { NULL, x, y, NULL };

  if (args == NULL)
    return cugi_kernel_launch_packed (f->axpy, f->config, (const guint8 *) &block, sizeof block,
                                      buffers, G_N_ELEMENTS (buffers), error);
  return cugi_kernel_launch_update (f->axpy, f->config, args, (const guint8 *) &block, sizeof block,
                                    buffers, G_N_ELEMENTS (buffers), error);
}

/* The lists of packed launches, the kernel's own and the caller's, hold
 * their buffers for the launches to come, but a freed buffer's memory goes
 * back all the same once their launches are done, though neither list
 * changes: to the default stream-ordered pool, whose used figure drops,
 * and to a pool of blocks. The next launch of a list holding it refuses
 * it. */
static void
test_freed_buffers_leave_the_lists (Fixture      *f,
                                    gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiKernelArgs) args = cugi_kernel_args_new ();
  g_autoptr(CugiStreamOrderedPool) ordered = cugi_stream_ordered_pool_get_default (NULL, &error);
  g_autoptr(CugiMemoryPool) blocks = cugi_memory_pool_new (NULL, &error);
  g_autoptr(CugiBuffer) x = NULL;
  g_autoptr(CugiBuffer) block = NULL;
  CugiStream *stream = cugi_launch_config_get_stream (f->config);
  guint64 used;

  g_assert_no_error (error);
  used = cugi_stream_ordered_pool_get_used_current (ordered, &error);
  x = cugi_buffer_new_on_stream (stream, 1 << 20, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < 2; i++)
    {
      g_assert_true (launch_axpy_with (f, NULL, x, f->y, &error));
      g_assert_true (launch_axpy_with (f, args, x, f->y, &error));
      g_assert_no_error (error);
    }
  g_assert_cmpuint (cugi_stream_ordered_pool_get_used_current (ordered, &error), ==, used + (1 << 20));
  g_assert_true (cugi_buffer_free (x, &error));
  g_assert_no_error (error);
  cugi_test_settle (stream);
  g_assert_cmpuint (cugi_stream_ordered_pool_get_used_current (ordered, &error), ==, used);
  g_assert_no_error (error);
  cugi_test_assert_fails (launch_axpy_with (f, NULL, x, f->y, &error), &error,
                          CUGI_ERROR_INVALID_STATE, "argument 1");
  cugi_test_assert_fails (launch_axpy_with (f, args, x, f->y, &error), &error,
                          CUGI_ERROR_INVALID_STATE, "argument 1");

  block = cugi_memory_pool_allocate (blocks, 256, &error);
  g_assert_no_error (error);
  g_assert_true (launch_axpy_with (f, NULL, f->x, block, &error));
  g_assert_true (launch_axpy_with (f, args, f->x, block, &error));
  g_assert_no_error (error);
  g_assert_true (cugi_buffer_free (block, &error));
  g_assert_no_error (error);
  cugi_test_settle (stream);
  g_assert_cmpuint (cugi_memory_pool_get_active_blocks (blocks), ==, 0);
}

/* flag (x, @value) launched by each way of converting an integer: an
 * append, a GValue of @type and a packed block. TRUE where all three
 * launched it, FALSE where all three refused it with one error naming the
 * parameter and the value. */
static gboolean
launch_flag (Fixture *f,
             GType    type,
             gint     value)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiKernelArgs) args = cugi_kernel_args_new ();
  GValue values[2] = { G_VALUE_INIT, G_VALUE_INIT };
  g_autofree char *message = g_strdup_printf ("parameter 1 (bool): %d is not a bool", value);
  CugiBuffer *buffers[] = { f->x, NULL };
  guint8 byte = (guint8) value, got[16];
  gboolean appended, launched;

  cugi_kernel_args_add_buffer (args, f->x);
  appended = value < 0 ? cugi_kernel_append_int (f->flag, args, value, &error)
                       : cugi_kernel_append_uint (f->flag, args, value, &error);
  if (!appended)
    cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, message);

  g_value_init (&values[0], CUGI_TYPE_BUFFER);
  g_value_set_object (&values[0], f->x);
  g_value_init (&values[1], type);
  if (type == G_TYPE_BOOLEAN)
    g_value_set_boolean (&values[1], value);
  else
    g_value_set_int (&values[1], value);
  launched = cugi_kernel_launch_values (f->flag, f->config, values, 2, &error);
  g_value_unset (&values[0]);
  g_value_unset (&values[1]);
  g_assert_cmpint (launched, ==, appended);
  if (!launched)
    cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, message);

  /* The packed block holds the byte the kernel would read. */
  if (value >= 0 && value <= G_MAXUINT8)
    {
      launched = cugi_kernel_launch_packed (f->flag, f->config, &byte, 1, buffers, 2, &error);
      g_assert_cmpint (launched, ==, appended);
      if (!launched)
        cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, message);
      else
        g_assert_cmpuint (got[last_params (got, sizeof got) - 1], ==, value);
    }
  return appended;
}

/* A C++ bool holds 0 or 1, any other byte being undefined behaviour in the
 * kernel: 2, 255 and -1 are refused, by every way of converting. */
static void
test_bools_are_0_or_1 (Fixture      *f,
                       gconstpointer data)
{
  g_assert_true (launch_flag (f, G_TYPE_INT, 0));
  g_assert_true (launch_flag (f, G_TYPE_INT, 1));
  g_assert_true (launch_flag (f, G_TYPE_BOOLEAN, TRUE));
  g_assert_false (launch_flag (f, G_TYPE_INT, 2));
  g_assert_false (launch_flag (f, G_TYPE_INT, 255));
  g_assert_false (launch_flag (f, G_TYPE_INT, -1));
}

int
main (int argc, char **argv)
{
  guint8 unused;

  cugi_test_init_stand_in (&argc, &argv);
  last_params = cugi_test_stand_in_symbol ("fake_cuda_streams_last_params");
  /* Starts the recording. */
  last_params (&unused, 0);

  g_test_add ("/kernel-packed/new-values-in-a-kept-list", Fixture, NULL,
              fixture_set_up, test_new_values_in_a_kept_list, fixture_tear_down);
  g_test_add ("/kernel-packed/bytes-keep-their-value", Fixture, NULL,
              fixture_set_up, test_bytes_keep_their_value, fixture_tear_down);
  g_test_add ("/kernel-packed/blocks-that-do-not-fit", Fixture, NULL,
              fixture_set_up, test_blocks_that_do_not_fit, fixture_tear_down);
  g_test_add ("/kernel-packed/freed-buffers-leave-the-lists", Fixture, NULL,
              fixture_set_up, test_freed_buffers_leave_the_lists, fixture_tear_down);
  g_test_add ("/kernel-packed/bools-are-0-or-1", Fixture, NULL,
              fixture_set_up, test_bools_are_0_or_1, fixture_tear_down);
  return g_test_run ();
}
