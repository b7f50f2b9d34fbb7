/* test-memory-pool.c: CugiMemoryPool and CugiHostMemoryPool on a GPU: reuse,
 * counts, free_held, stop_holding, out of memory, lifetimes, context reset;
 * the pool's blocks without buffers (CugiMemoryBlock) */
#include "config.h"

#include <string.h>

#include "cugi-private.h"
#include "gpu-work.h"

typedef struct
{
  guint held;
  guint active;
} Notifications;

static void
count_notify (GObject    *object,
              GParamSpec *pspec,
              gpointer    data)
{
  Notifications *notifications = data;

  if (g_str_equal (pspec->name, "held-blocks"))
    notifications->held++;
  else if (g_str_equal (pspec->name, "active-blocks"))
    notifications->active++;
}

static CugiMemoryPool *
new_pool (void)
{
  g_autoptr(GError) error = NULL;
  CugiMemoryPool *pool = cugi_memory_pool_new (NULL, &error);

  g_assert_no_error (error);
  g_assert_true (CUGI_IS_MEMORY_POOL (pool));
  return pool;
}

static CugiBuffer *
allocate (CugiMemoryPool *pool,
          gsize           size)
{
  g_autoptr(GError) error = NULL;
  CugiBuffer *buffer = cugi_memory_pool_allocate (pool, size, &error);

  g_assert_no_error (error);
  g_assert_true (CUGI_IS_BUFFER (buffer));
  g_assert_cmpuint (cugi_buffer_get_size (buffer), ==, size);
  return buffer;
}

/* The counts of a CugiMemoryPool or a CugiHostMemoryPool, through its
 * getters and its properties. */
static void
assert_blocks (gpointer pool,
               guint    held,
               guint    active)
{
  guint held_property = G_MAXUINT, active_property = G_MAXUINT;

  if (CUGI_IS_MEMORY_POOL (pool))
    {
      g_assert_cmpuint (cugi_memory_pool_get_held_blocks (pool), ==, held);
      g_assert_cmpuint (cugi_memory_pool_get_active_blocks (pool), ==, active);
    }
  else
    {
      g_assert_cmpuint (cugi_host_memory_pool_get_held_blocks (pool), ==, held);
      g_assert_cmpuint (cugi_host_memory_pool_get_active_blocks (pool), ==, active);
    }
  g_object_get (pool, "held-blocks", &held_property, "active-blocks", &active_property, NULL);
  g_assert_cmpuint (held_property, ==, held);
  g_assert_cmpuint (active_property, ==, active);
}

static void
test_properties (void)
{
  g_autoptr(CugiContext) context = cugi_test_default_context ();
  g_autoptr(CugiMemoryPool) pool = new_pool ();
  g_autoptr(CugiContext) property_context = NULL;

  g_object_get (pool, "context", &property_context, NULL);
  g_assert_true (property_context == context);
  assert_blocks (pool, 0, 0);
}

static void
test_reuse (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiMemoryPool) pool = new_pool ();
  g_autoptr(GBytes) contents = g_bytes_new_static ("pooled memory works like any other", 35);
  g_autoptr(GBytes) back = NULL;
  Notifications notifications = { 0 };
  CugiBuffer *a, *b, *c, *d;
  guint64 first;

  g_signal_connect (pool, "notify", G_CALLBACK (count_notify), &notifications);

  a = allocate (pool, 1000);
  first = cugi_buffer_get_device_pointer (a);
  g_assert_cmpuint (first, !=, 0);
  assert_blocks (pool, 0, 1);
  g_assert_cmpuint (notifications.active, ==, 1);
  g_assert_cmpuint (notifications.held, ==, 0);
  g_assert_true (cugi_buffer_upload_bytes (a, 0, contents, &error));
  g_assert_no_error (error);
  back = cugi_buffer_download (a, 0, 35, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (g_bytes_get_data (back, NULL), 35, g_bytes_get_data (contents, NULL), 35);

  /* A finalized buffer's block is held, not freed ... */
  g_object_unref (a);
  assert_blocks (pool, 1, 0);
  g_assert_cmpuint (notifications.held, ==, 1);
  g_assert_cmpuint (notifications.active, ==, 2);

  /* ... and comes back for a size of the same bin (1000 and 1001: 1024). */
  b = allocate (pool, 1001);
  g_assert_cmpuint (cugi_buffer_get_device_pointer (b), ==, first);
  assert_blocks (pool, 0, 1);
  g_assert_cmpuint (notifications.held, ==, 2);
  g_assert_cmpuint (notifications.active, ==, 3);

  /* Another bin (1100: 1280) takes another block. */
  c = allocate (pool, 1100);
  g_assert_cmpuint (cugi_buffer_get_device_pointer (c), !=, first);
  assert_blocks (pool, 0, 2);

  /* cugi_buffer_free() gives the block back at once. */
  g_assert_true (cugi_buffer_free (b, &error));
  g_assert_no_error (error);
  assert_blocks (pool, 1, 1);
  g_assert_null (cugi_buffer_download (b, 0, 1, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_STATE, NULL);
  /* Finalizing the freed buffer gives nothing back twice. */
  g_object_unref (b);
  assert_blocks (pool, 1, 1);

  g_assert_true (cugi_memory_pool_free_held (pool, &error));
  g_assert_no_error (error);
  assert_blocks (pool, 0, 1);
  g_assert_cmpuint (notifications.held, ==, 4);
  g_assert_cmpuint (notifications.active, ==, 5);

  /* After stop_holding, blocks go back to the driver. */
  g_object_unref (c);
  assert_blocks (pool, 1, 0);
  g_assert_true (cugi_memory_pool_stop_holding (pool, &error));
  g_assert_no_error (error);
  assert_blocks (pool, 0, 0);
  d = allocate (pool, 1000);
  assert_blocks (pool, 0, 1);
  g_object_unref (d);
  assert_blocks (pool, 0, 0);
  g_assert_cmpuint (notifications.held, ==, 6);
  g_assert_cmpuint (notifications.active, ==, 8);
}

static void
test_buffers_keep_pool_alive (void)
{
  CugiMemoryPool *pool = new_pool ();
  CugiBuffer *buffer = allocate (pool, 4096);
  gpointer weak_pool = pool;

  g_object_add_weak_pointer (G_OBJECT (pool), &weak_pool);
  g_object_unref (pool);
  g_assert_nonnull (weak_pool);
  assert_blocks (pool, 0, 1);

  /* The last buffer goes back to the pool, and the pool goes. */
  g_object_unref (buffer);
  g_assert_null (weak_pool);
}

static void
test_in_flight (void)
{
  const gsize size = 8 << 20;
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiMemoryPool) pool = new_pool ();
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NONE);
  g_autoptr(CugiBuffer) dst = NULL;
  CugiBuffer *src;

  src = allocate (pool, size);
  dst = allocate (pool, size);
  assert_blocks (pool, 0, 2);

  /* A copy that waits behind 50 ms of work still uses the source: freeing
   * and dropping it does not give the block back before the copy is done. */
  spin (spinner (), stream, 50);
  g_assert_true (cugi_buffer_copy (dst, 0, src, 0, size, stream, &error));
  g_assert_no_error (error);
  g_assert_true (cugi_buffer_free (src, &error));
  g_assert_no_error (error);
  g_object_unref (src);
  assert_blocks (pool, 0, 2);

  cugi_test_settle (stream);
  assert_blocks (pool, 1, 1);
}

static void
test_zero_size (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiMemoryPool) pool = new_pool ();
  g_autoptr(CugiBuffer) empty = allocate (pool, 0);

  g_assert_cmpuint (cugi_buffer_get_device_pointer (empty), ==, 0);
  assert_blocks (pool, 0, 0);
  g_assert_true (cugi_buffer_free (empty, &error));
  g_assert_no_error (error);
  assert_blocks (pool, 0, 0);
}

static void
test_out_of_memory (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiDevice) device = cugi_device_get_default (&error);
  g_autoptr(CugiMemoryPool) pool = new_pool ();
  g_autoptr(CugiBuffer) large = NULL;
  CugiBuffer *held;
  guint64 free_bytes, total_bytes = 0;

  g_assert_no_error (error);
  free_bytes = cugi_device_get_memory_info (device, &total_bytes, &error);
  g_assert_no_error (error);

  /* A block of 45 % of the free memory, held ... */
  held = allocate (pool, free_bytes / 100 * 45);
  g_object_unref (held);
  assert_blocks (pool, 1, 0);

  /* ... does not leave room for 70 % in another bin: the pool frees it and
   * tries again. */
  large = allocate (pool, free_bytes / 100 * 70);
  assert_blocks (pool, 0, 1);

  /* With nothing held, running out is an error. */
  g_assert_null (cugi_memory_pool_allocate (pool, total_bytes, &error));
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_OUT_OF_MEMORY);
  assert_blocks (pool, 0, 1);
}

static void
test_too_large (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiMemoryPool) pool = new_pool ();

  g_assert_null (cugi_memory_pool_allocate (pool, G_MAXSIZE, &error));
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT);
  assert_blocks (pool, 0, 0);
}

static void
test_host_pool (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiHostMemoryPool) pool = cugi_host_memory_pool_new (NULL, CUGI_HOST_BUFFER_FLAGS_NONE, &error);
  g_autoptr(CugiHostMemoryPool) mapped_pool = NULL;
  g_autoptr(CugiHostBuffer) mapped = NULL;
  Notifications notifications = { 0 };
  CugiHostBuffer *a, *b;
  guint8 *first;
  gsize size = 0;

  g_assert_no_error (error);
  g_assert_cmpint (cugi_host_memory_pool_get_flags (pool), ==, CUGI_HOST_BUFFER_FLAGS_NONE);
  g_signal_connect (pool, "notify", G_CALLBACK (count_notify), &notifications);
  assert_blocks (pool, 0, 0);

  a = cugi_host_memory_pool_allocate (pool, 5000, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (cugi_host_buffer_get_size (a), ==, 5000);
  first = cugi_host_buffer_get_data (a, &size, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (size, ==, 5000);
  memset (first, 0x5c, 5000);
  assert_blocks (pool, 0, 1);

  g_object_unref (a);
  assert_blocks (pool, 1, 0);

  /* 4500 bytes share the bin of 5000 (5120): the same memory comes back. */
  b = cugi_host_memory_pool_allocate (pool, 4500, &error);
  g_assert_no_error (error);
  g_assert_true (cugi_host_buffer_get_data (b, NULL, &error) == first);
  assert_blocks (pool, 0, 1);

  g_assert_true (cugi_host_buffer_free (b, &error));
  g_assert_no_error (error);
  assert_blocks (pool, 1, 0);
  g_object_unref (b);
  g_assert_true (cugi_host_memory_pool_free_held (pool, &error));
  g_assert_no_error (error);
  assert_blocks (pool, 0, 0);
  g_assert_true (cugi_host_memory_pool_stop_holding (pool, &error));
  g_assert_no_error (error);
  b = cugi_host_memory_pool_allocate (pool, 100, &error);
  g_assert_no_error (error);
  assert_blocks (pool, 0, 1);
  g_object_unref (b);
  assert_blocks (pool, 0, 0);
  g_assert_cmpuint (notifications.held, ==, 4);
  g_assert_cmpuint (notifications.active, ==, 6);

  /* A pool's flags apply to what it hands out. */
  mapped_pool = cugi_host_memory_pool_new (NULL, CUGI_HOST_BUFFER_FLAGS_MAPPED, &error);
  g_assert_no_error (error);
  mapped = cugi_host_memory_pool_allocate (mapped_pool, 1 << 16, &error);
  g_assert_no_error (error);
  g_assert_cmpint (cugi_host_buffer_get_flags (mapped), ==, CUGI_HOST_BUFFER_FLAGS_MAPPED);
  g_assert_cmpuint (cugi_host_buffer_get_device_pointer (mapped), !=, 0);

  g_assert_null (cugi_host_memory_pool_new (NULL, 1 << 6, &error));
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT);
}

/* In a subprocess: resetting the context must not make a pool hand out or
 * free memory that went with it. */
static void
test_context_reset (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiContext) context = NULL;
  g_autoptr(CugiMemoryPool) pool = NULL;
  g_autoptr(CugiHostMemoryPool) host_pool = NULL;
  g_autoptr(CugiHostBuffer) host = NULL;
  g_autoptr(CugiBuffer) plain = NULL;
  CugiBuffer *held, *active, *fresh;

  if (!cugi_test_in_subprocess (60))
    return;

  context = cugi_test_default_context ();
  pool = new_pool ();
  host_pool = cugi_host_memory_pool_new (NULL, CUGI_HOST_BUFFER_FLAGS_NONE, &error);
  g_assert_no_error (error);
  plain = cugi_test_buffer_new (4096);
  host = cugi_host_memory_pool_allocate (host_pool, 4096, &error);
  g_assert_no_error (error);

  held = allocate (pool, 4096);
  g_object_unref (held);
  active = allocate (pool, 8192);
  assert_blocks (pool, 1, 1);

  g_assert_true (cugi_context_reset (context, &error));
  g_assert_no_error (error);

  /* Memory made before is gone. */
  g_assert_null (cugi_buffer_download (plain, 0, 16, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_CONTEXT, NULL);
  g_assert_null (cugi_buffer_download (active, 0, 16, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_CONTEXT, NULL);
  g_assert_null (cugi_host_buffer_get_data (host, NULL, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_CONTEXT, NULL);

  /* The pool drops what it held instead of handing it out, and works. */
  fresh = allocate (pool, 4096);
  assert_blocks (pool, 0, 2);
  g_assert_true (cugi_buffer_upload (fresh, 0, (const guint8 *) "after reset", 11, &error));
  g_assert_no_error (error);

  /* The old active block is counted off, the new one held. */
  g_object_unref (active);
  assert_blocks (pool, 0, 1);
  g_object_unref (fresh);
  assert_blocks (pool, 1, 0);
  g_assert_true (cugi_memory_pool_free_held (pool, &error));
  g_assert_no_error (error);
  assert_blocks (pool, 0, 0);

  /* Releasing the old objects frees nothing and fails nothing. */
  g_assert_true (cugi_buffer_free (plain, &error));
  g_assert_no_error (error);
  g_clear_object (&host);
  assert_blocks (host_pool, 0, 0);
}

static CugiMemoryBlock *
take_block (CugiMemoryPool *pool,
            gsize           size)
{
  g_autoptr(GError) error = NULL;
  CugiMemoryBlock *block = cugi_memory_pool_take_block (pool, size, &error);

  g_assert_no_error (error);
  g_assert_nonnull (block);
  g_assert_cmpuint (cugi_memory_block_get_size (block), ==, size);
  return block;
}

/* Blocks come from the held blocks buffers use, count as active while
 * referenced, and go back with their last reference. */
static void
test_blocks (void)
{
  g_autoptr(CugiMemoryPool) pool = new_pool ();
  Notifications notifications = { 0 };
  g_autoptr(CugiBuffer) buffer = allocate (pool, 1000);
  guint64 address = cugi_buffer_get_device_pointer (buffer);
  CugiMemoryBlock *block, *second;

  g_signal_connect (pool, "notify", G_CALLBACK (count_notify), &notifications);
  g_clear_object (&buffer);
  assert_blocks (pool, 1, 0);

  /* 1000 and 1024 bytes share a bin: the buffer's block serves. */
  block = take_block (pool, 1024);
  g_assert_cmpuint (cugi_memory_block_get_address (block), ==, address);
  assert_blocks (pool, 0, 1);
  second = take_block (pool, 1024);
  g_assert_cmpuint (cugi_memory_block_get_address (second), !=, address);
  assert_blocks (pool, 0, 2);

  g_assert_true (cugi_memory_block_ref (block) == block);
  cugi_memory_block_unref (block);
  assert_blocks (pool, 0, 2);
  cugi_memory_block_unref (block);
  assert_blocks (pool, 1, 1);
  cugi_memory_block_unref (second);
  assert_blocks (pool, 2, 0);
  g_assert_cmpuint (notifications.active, >=, 4);
  g_assert_cmpuint (notifications.held, >=, 4);

  /* And a buffer takes a block given back. */
  buffer = allocate (pool, 1000);
  assert_blocks (pool, 1, 1);
}

/* A block keeps its pool, as buffers do. */
static void
test_blocks_keep_pool_alive (void)
{
  CugiMemoryPool *pool = new_pool ();
  CugiMemoryBlock *block = take_block (pool, 4096);
  gpointer weak_pool = pool;

  g_object_add_weak_pointer (G_OBJECT (pool), &weak_pool);
  g_object_unref (pool);
  g_assert_nonnull (weak_pool);
  assert_blocks (pool, 0, 1);
  cugi_memory_block_unref (block);
  g_assert_null (weak_pool);
}

/* A buffer over a block holds it while work in flight uses it: the block's
 * own reference going does not give it back early. */
static void
test_block_buffer_in_flight (void)
{
  const gsize size = 8 << 20;
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiMemoryPool) pool = new_pool ();
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NONE);
  g_autoptr(CugiBuffer) dst = allocate (pool, size);
  g_autoptr(GBytes) contents = g_bytes_new_static ("a block's buffer", 17);
  g_autoptr(GBytes) back = NULL;
  CugiMemoryBlock *block = take_block (pool, size);
  CugiBuffer *src = cugi_memory_block_new_buffer (block, &error);

  g_assert_no_error (error);
  g_assert_cmpuint (cugi_buffer_get_device_pointer (src), ==, cugi_memory_block_get_address (block));
  g_assert_cmpuint (cugi_buffer_get_size (src), ==, size);
  g_assert_true (cugi_buffer_upload_bytes (src, 0, contents, &error));
  g_assert_no_error (error);

  spin (spinner (), stream, 50);
  g_assert_true (cugi_buffer_copy (dst, 0, src, 0, size, stream, &error));
  g_assert_no_error (error);
  cugi_memory_block_unref (block);
  g_object_unref (src);
  assert_blocks (pool, 0, 2);

  cugi_test_settle (stream);
  assert_blocks (pool, 1, 1);
  back = cugi_buffer_download (dst, 0, 17, &error);
  g_assert_no_error (error);
  g_assert_true (g_bytes_equal (back, contents));
}

static void
test_block_zero_size (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiMemoryPool) pool = new_pool ();
  g_autoptr(CugiMemoryBlock) block = take_block (pool, 0);
  g_autoptr(CugiBuffer) buffer = NULL;

  g_assert_cmpuint (cugi_memory_block_get_address (block), ==, 0);
  assert_blocks (pool, 0, 0);
  buffer = cugi_memory_block_new_buffer (block, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (cugi_buffer_get_size (buffer), ==, 0);
  g_clear_pointer (&block, cugi_memory_block_unref);
  assert_blocks (pool, 0, 0);
}

static void
test_block_errors (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiMemoryPool) pool = new_pool ();
  g_autoptr(CugiMemoryPool) unmade = g_object_new (CUGI_TYPE_MEMORY_POOL, NULL);

  g_assert_null (cugi_memory_pool_take_block (pool, G_MAXSIZE, &error));
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_null (cugi_memory_pool_take_block (unmade, 64, &error));
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE);
  assert_blocks (pool, 0, 0);
}

/* In a subprocess: a block taken before a reset is counted off, not held,
 * and makes no buffer. */
static void
test_block_context_reset (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiContext) context = NULL;
  g_autoptr(CugiMemoryPool) pool = NULL;
  CugiMemoryBlock *block;

  if (!cugi_test_in_subprocess (60))
    return;

  context = cugi_test_default_context ();
  pool = new_pool ();
  block = take_block (pool, 4096);
  g_assert_true (cugi_context_reset (context, &error));
  g_assert_no_error (error);

  g_assert_null (cugi_memory_block_new_buffer (block, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_CONTEXT, NULL);
  cugi_memory_block_unref (block);
  assert_blocks (pool, 0, 0);
}

int
main (int   argc,
      char *argv[])
{
  cugi_test_init (&argc, &argv);
  cugi_test_require_gpu ();

  g_test_add_func ("/memory-pool/properties", test_properties);
  g_test_add_func ("/memory-pool/reuse", test_reuse);
  g_test_add_func ("/memory-pool/buffers-keep-pool-alive", test_buffers_keep_pool_alive);
  g_test_add_func ("/memory-pool/in-flight", test_in_flight);
  g_test_add_func ("/memory-pool/zero-size", test_zero_size);
  g_test_add_func ("/memory-pool/out-of-memory", test_out_of_memory);
  g_test_add_func ("/memory-pool/too-large", test_too_large);
  g_test_add_func ("/memory-pool/host", test_host_pool);
  g_test_add_func ("/memory-pool/context-reset", test_context_reset);
  g_test_add_func ("/memory-pool/blocks", test_blocks);
  g_test_add_func ("/memory-pool/blocks-keep-pool-alive", test_blocks_keep_pool_alive);
  g_test_add_func ("/memory-pool/block-buffer-in-flight", test_block_buffer_in_flight);
  g_test_add_func ("/memory-pool/block-zero-size", test_block_zero_size);
  g_test_add_func ("/memory-pool/block-errors", test_block_errors);
  g_test_add_func ("/memory-pool/block-context-reset", test_block_context_reset);

  return g_test_run ();
}
