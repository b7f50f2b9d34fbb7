/* test-memory-core.c: the memory logic that needs no GPU: range checks, the
 * lifetime of owned memory, pool bins and pool bookkeeping (with a fake
 * allocator), resources of work in flight. */
#include "config.h"

#include "cugi-private.h"
#include "cugi-memory-private.h"
#include "cugi-stream-private.h"
#include "cugi-test-utils.h"

/* ---- range checks --------------------------------------------------------- */

static void
assert_range_error (GError     *error,
                    const char *fragment)
{
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT);
  if (strstr (error->message, fragment) == NULL)
    g_error ("expected \"%s\" in: %s", fragment, error->message);
}

static void
test_range (void)
{
  const struct { gsize buffer, offset, size; gboolean fits; } cases[] = {
    { 100, 0, 100, TRUE },
    { 100, 100, 0, TRUE },
    { 100, 99, 1, TRUE },
    { 100, 0, 0, TRUE },
    { 0, 0, 0, TRUE },
    { 0, 0, 1, FALSE },
    { 0, 1, 0, FALSE },
    { 100, 101, 0, FALSE },
    { 100, 1, 100, FALSE },
    { 100, 50, 51, FALSE },
    /* Sums that wrap around must not pass. */
    { 100, G_MAXSIZE, 1, FALSE },
    { 100, G_MAXSIZE, 0, FALSE },
    { 100, 1, G_MAXSIZE, FALSE },
    { 100, G_MAXSIZE, G_MAXSIZE, FALSE },
    { G_MAXSIZE, G_MAXSIZE, 0, TRUE },
    { G_MAXSIZE, 1, G_MAXSIZE, FALSE },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      gboolean fits = cugi_memory_check_range (cases[i].buffer, cases[i].offset, cases[i].size,
                                               "test buffer", &error);

      g_test_message ("case %zu: %zu bytes at %zu in %zu", i, cases[i].size, cases[i].offset,
                      cases[i].buffer);
      g_assert_cmpint (fits, ==, cases[i].fits);
      if (fits)
        g_assert_no_error (error);
      else
        assert_range_error (error, "test buffer");
    }
}

static void
test_range_message (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *offset = g_strdup_printf ("%zu", G_MAXSIZE);

  /* The message names the offset, the size and the buffer's size. */
  g_assert_false (cugi_memory_check_range (4096, G_MAXSIZE, 16, "buffer", &error));
  assert_range_error (error, offset);
  assert_range_error (error, "16");
  assert_range_error (error, "4096");
}

static void
test_pitched_range (void)
{
  const struct {
    gsize buffer, offset, pitch, slice_height, width, height, depth;
    gboolean fits;
    const char *fragment;
  } cases[] = {
    /* 4 rows of 100 bytes, 128 apart: the last row ends at 3 * 128 + 100. */
    { 484, 0, 128, 4, 100, 4, 1, TRUE, NULL },
    { 483, 0, 128, 4, 100, 4, 1, FALSE, "483" },
    { 512, 28, 128, 4, 100, 4, 1, TRUE, NULL },
    { 512, 29, 128, 4, 100, 4, 1, FALSE, "29" },
    /* A row wider than the pitch. */
    { 4096, 0, 64, 4, 65, 1, 1, FALSE, "pitch 64" },
    /* 2 slices of 3 rows, slices 4 rows apart: (1 * 4 + 2) * 16 + 16. */
    { 112, 0, 16, 4, 16, 3, 2, TRUE, NULL },
    { 111, 0, 16, 4, 16, 3, 2, FALSE, "111" },
    /* More rows than a slice holds. */
    { 4096, 0, 16, 2, 16, 3, 2, FALSE, "rows per slice" },
    /* Nothing to copy: only the offset matters. */
    { 100, 100, 16, 4, 0, 3, 2, TRUE, NULL },
    { 100, 100, 16, 4, 16, 0, 1, TRUE, NULL },
    { 100, 100, 16, 4, 16, 3, 0, TRUE, NULL },
    { 100, 101, 16, 4, 0, 3, 2, FALSE, "101" },
    /* Products that overflow. */
    { G_MAXSIZE, 0, G_MAXSIZE / 2, 4, 16, 4, 1, FALSE, "do not fit" },
    { G_MAXSIZE, 0, 16, G_MAXSIZE / 2, 16, 4, 4, FALSE, "do not fit" },
    { 4096, G_MAXSIZE, 16, 1, 16, 1, 1, FALSE, "do not fit" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      gboolean fits = cugi_memory_check_pitched_range (cases[i].buffer, cases[i].offset, cases[i].pitch,
                                                       cases[i].slice_height, cases[i].width,
                                                       cases[i].height, cases[i].depth,
                                                       "test buffer", &error);

      g_test_message ("case %zu", i);
      g_assert_cmpint (fits, ==, cases[i].fits);
      if (fits)
        g_assert_no_error (error);
      else
        assert_range_error (error, cases[i].fragment);
    }
}

static void
test_region_size (void)
{
  gsize size = 0;

  g_assert_true (cugi_memory_region_size (100, 4, 2, &size));
  g_assert_cmpuint (size, ==, 800);
  g_assert_true (cugi_memory_region_size (0, 4, 2, &size));
  g_assert_cmpuint (size, ==, 0);
  g_assert_false (cugi_memory_region_size (G_MAXSIZE / 2, 3, 1, &size));
  g_assert_false (cugi_memory_region_size (2, G_MAXSIZE / 2, 3, &size));
}

/* ---- lifetime of owned memory --------------------------------------------- */

typedef struct
{
  guint    releases;
  gboolean fail;
} ReleaseLog;

static gboolean
record_release (gpointer   owner,
                GError   **error)
{
  ReleaseLog *log = owner;

  log->releases++;
  if (log->fail)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_DRIVER, "release failed");
      return FALSE;
    }
  return TRUE;
}

static void
test_lifetime_free (void)
{
  ReleaseLog log = { 0 };
  CugiMemoryLifetime lifetime;
  g_autoptr(GError) error = NULL;

  cugi_memory_lifetime_init (&lifetime, record_release, &log);
  g_assert_false (cugi_memory_lifetime_is_freed (&lifetime));

  g_assert_true (cugi_memory_lifetime_free (&lifetime, "was freed", &error));
  g_assert_no_error (error);
  g_assert_true (cugi_memory_lifetime_is_freed (&lifetime));
  g_assert_cmpuint (log.releases, ==, 1);

  /* Freeing twice is an error, not a second release. */
  g_assert_false (cugi_memory_lifetime_free (&lifetime, "was freed", &error));
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE);
  g_assert_cmpstr (error->message, ==, "was freed");
  g_assert_cmpuint (log.releases, ==, 1);

  /* Nor does finalizing release again. */
  cugi_memory_lifetime_clear (&lifetime);
  g_assert_cmpuint (log.releases, ==, 1);
}

static void
test_lifetime_clear (void)
{
  ReleaseLog log = { 0 };
  CugiMemoryLifetime lifetime;

  cugi_memory_lifetime_init (&lifetime, record_release, &log);
  cugi_memory_lifetime_clear (&lifetime);
  g_assert_cmpuint (log.releases, ==, 1);
}

static void
test_lifetime_deferred_by_use (void)
{
  ReleaseLog log = { 0 };
  CugiMemoryLifetime lifetime;
  g_autoptr(GError) error = NULL;

  cugi_memory_lifetime_init (&lifetime, record_release, &log);
  cugi_memory_lifetime_begin_use (&lifetime);
  cugi_memory_lifetime_begin_use (&lifetime);

  /* Work in flight holds the release back, though the memory counts as freed. */
  g_assert_true (cugi_memory_lifetime_free (&lifetime, "was freed", &error));
  g_assert_no_error (error);
  g_assert_true (cugi_memory_lifetime_is_freed (&lifetime));
  g_assert_cmpuint (log.releases, ==, 0);

  cugi_memory_lifetime_end_use (&lifetime);
  g_assert_cmpuint (log.releases, ==, 0);
  cugi_memory_lifetime_end_use (&lifetime);
  g_assert_cmpuint (log.releases, ==, 1);

  cugi_memory_lifetime_clear (&lifetime);
  g_assert_cmpuint (log.releases, ==, 1);
}

static void
test_lifetime_use_without_free (void)
{
  ReleaseLog log = { 0 };
  CugiMemoryLifetime lifetime;

  /* Uses that end while nobody freed release nothing. */
  cugi_memory_lifetime_init (&lifetime, record_release, &log);
  cugi_memory_lifetime_begin_use (&lifetime);
  cugi_memory_lifetime_end_use (&lifetime);
  g_assert_cmpuint (log.releases, ==, 0);
  g_assert_false (cugi_memory_lifetime_is_freed (&lifetime));
  cugi_memory_lifetime_clear (&lifetime);
  g_assert_cmpuint (log.releases, ==, 1);
}

static void
test_lifetime_release_error (void)
{
  ReleaseLog log = { 0, TRUE };
  CugiMemoryLifetime lifetime;
  g_autoptr(GError) error = NULL;

  cugi_memory_lifetime_init (&lifetime, record_release, &log);
  g_assert_false (cugi_memory_lifetime_free (&lifetime, "was freed", &error));
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_DRIVER);
  g_assert_true (cugi_memory_lifetime_is_freed (&lifetime));
  cugi_memory_lifetime_clear (&lifetime);
  g_assert_cmpuint (log.releases, ==, 1);
}

/* A hold's owner, which hands what it holds to work that is done already:
 * the hold goes when it lets go. */
typedef struct
{
  guint           let_gos;
  CugiMemoryHold *hold;
} Holder;

static void
end_lifetime_hold (gpointer        lifetime,
                   CugiMemoryHold *hold)
{
  cugi_memory_lifetime_end_hold (lifetime, hold);
}

static void
holder_let_go (gpointer         owner,
               CugiMemoryHold  *hold,
               GDestroyNotify  *drop,
               gpointer        *drop_data)
{
  Holder *holder = owner;

  g_assert_true (hold == holder->hold);
  holder->let_gos++;
  *drop = cugi_memory_hold_release;
  *drop_data = g_steal_pointer (&holder->hold);
}

/* @holder's hold of @n @lifetimes. */
static void
hold_lifetimes (Holder             *holder,
                CugiMemoryLifetime *lifetimes,
                guint               n)
{
  holder->hold = cugi_memory_hold_new (end_lifetime_hold, holder_let_go, holder, n);
  for (guint i = 0; i < n; i++)
    {
      cugi_memory_lifetime_begin_hold (&lifetimes[i], holder->hold);
      cugi_memory_hold_add (holder->hold, &lifetimes[i]);
    }
}

/* A free does not wait for what holds memory for work to come: it asks the
 * holder to let go, once, and the memory goes with the hold; a hold whose
 * owner disowned it is not asked. */
static void
test_lifetime_holds_let_go (void)
{
  ReleaseLog logs[2] = { { 0 }, { 0 } };
  CugiMemoryLifetime lifetimes[2];
  Holder holder = { 0 };
  g_autoptr(GError) error = NULL;
  CugiMemoryHold *hold;

  for (guint i = 0; i < 2; i++)
    cugi_memory_lifetime_init (&lifetimes[i], record_release, &logs[i]);
  hold_lifetimes (&holder, lifetimes, 2);
  g_assert_true (cugi_memory_lifetime_free (&lifetimes[0], "was freed", &error));
  g_assert_no_error (error);
  g_assert_cmpuint (holder.let_gos, ==, 1);
  g_assert_null (holder.hold);
  g_assert_cmpuint (logs[0].releases, ==, 1);
  /* The other one, no longer held, goes at once. */
  g_assert_cmpuint (logs[1].releases, ==, 0);
  g_assert_true (cugi_memory_lifetime_free (&lifetimes[1], "was freed", &error));
  g_assert_cmpuint (holder.let_gos, ==, 1);
  g_assert_cmpuint (logs[1].releases, ==, 1);
  for (guint i = 0; i < 2; i++)
    cugi_memory_lifetime_clear (&lifetimes[i]);

  logs[0].releases = 0;
  holder.let_gos = 0;
  cugi_memory_lifetime_init (&lifetimes[0], record_release, &logs[0]);
  hold_lifetimes (&holder, lifetimes, 1);
  hold = holder.hold;
  cugi_memory_hold_disown (hold);
  g_assert_true (cugi_memory_lifetime_free (&lifetimes[0], "was freed", &error));
  g_assert_cmpuint (holder.let_gos, ==, 0);
  g_assert_cmpuint (logs[0].releases, ==, 0);
  cugi_memory_hold_release (hold);
  g_assert_cmpuint (logs[0].releases, ==, 1);
  cugi_memory_lifetime_clear (&lifetimes[0]);
  g_assert_no_error (error);
}

/* ---- pool bins ------------------------------------------------------------ */

static gsize
bin_of (gsize size)
{
  gsize bin = 0;

  g_assert_true (cugi_memory_pool_bin_size (size, &bin));
  return bin;
}

static void
test_bin_examples (void)
{
  g_assert_cmpuint (bin_of (0), ==, 256);
  g_assert_cmpuint (bin_of (1), ==, 256);
  g_assert_cmpuint (bin_of (256), ==, 256);
  g_assert_cmpuint (bin_of (257), ==, 320);
  g_assert_cmpuint (bin_of (320), ==, 320);
  g_assert_cmpuint (bin_of (321), ==, 384);
  g_assert_cmpuint (bin_of (1000), ==, 1024);
  g_assert_cmpuint (bin_of (1024), ==, 1024);
  g_assert_cmpuint (bin_of (1025), ==, 1280);
  g_assert_cmpuint (bin_of (1100), ==, 1280);
  g_assert_cmpuint (bin_of (3 << 20), ==, 3 << 20);
  g_assert_cmpuint (bin_of ((3 << 20) + 1), ==, 7 << 19);
}

static void
test_bin_properties (void)
{
  gsize previous = 0;
  guint bins = 0;

  /* Every size from 1 byte to 64 KiB, and spot checks above. */
  for (gsize size = 1; size <= 65536; size++)
    {
      gsize bin = bin_of (size);

      g_assert_cmpuint (bin, >=, size);
      g_assert_cmpuint (bin, >=, 256);
      /* Less than a quarter over the request (above the minimum bin). */
      if (size > 256)
        g_assert_cmpuint (bin - size, <, size / 4 + 1);
      /* Monotonic, and a bin serves every size up to itself. */
      g_assert_cmpuint (bin, >=, previous);
      if (bin != previous)
        {
          g_assert_cmpuint (size, ==, previous + 1);
          bins++;
        }
      g_assert_cmpuint (bin_of (bin), ==, bin);
      previous = bin;
    }
  /* 256, then four per octave up to 65536: 8 octaves. */
  g_assert_cmpuint (bins, ==, 1 + 4 * 8);

  for (guint shift = 20; shift < sizeof (gsize) * 8 - 1; shift++)
    {
      gsize power = (gsize) 1 << shift;

      g_assert_cmpuint (bin_of (power), ==, power);
      g_assert_cmpuint (bin_of (power + 1), ==, power + power / 4);
      g_assert_cmpuint (bin_of (power - 1), ==, power);
    }
}

static void
test_bin_overflow (void)
{
  gsize bin = 0;
  gsize top = (gsize) 1 << (sizeof (gsize) * 8 - 1);

  g_assert_true (cugi_memory_pool_bin_size (top, &bin));
  g_assert_cmpuint (bin, ==, top);
  g_assert_true (cugi_memory_pool_bin_size (top + 1, &bin));
  g_assert_cmpuint (bin, ==, top + top / 4);
  g_assert_true (cugi_memory_pool_bin_size (top + top / 4 * 3, &bin));
  g_assert_cmpuint (bin, ==, top + top / 4 * 3);
  /* Rounding up would wrap around. */
  g_assert_false (cugi_memory_pool_bin_size (top + top / 4 * 3 + 1, &bin));
  g_assert_false (cugi_memory_pool_bin_size (G_MAXSIZE, &bin));
}

/* ---- pool bookkeeping with a fake allocator ------------------------------- */

typedef struct
{
  CugiBlockPool *pool;
  gsize          capacity;     /* bytes the fake device has */
  gsize          used;
  guint64        next_address;
  GHashTable    *live;         /* address -> size */
  guint          allocs;
  guint          frees;
  guint          held_notifies;
  guint          active_notifies;
} FakeDevice;

static gboolean
fake_alloc (gpointer   user_data,
            gsize      size,
            guint64   *block,
            GError   **error)
{
  FakeDevice *device = user_data;

  if (size > device->capacity - device->used)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_OUT_OF_MEMORY, "fake device is full");
      return FALSE;
    }
  device->used += size;
  device->allocs++;
  *block = device->next_address;
  device->next_address += 0x100000;
  g_hash_table_insert (device->live, GSIZE_TO_POINTER ((gsize) *block), GSIZE_TO_POINTER (size));
  return TRUE;
}

static gboolean
fake_free (gpointer   user_data,
           guint64    block,
           gsize      size,
           GError   **error)
{
  FakeDevice *device = user_data;
  gpointer allocated;

  g_assert_true (g_hash_table_lookup_extended (device->live, GSIZE_TO_POINTER ((gsize) block),
                                               NULL, &allocated));
  g_assert_cmpuint (GPOINTER_TO_SIZE (allocated), ==, size);
  g_hash_table_remove (device->live, GSIZE_TO_POINTER ((gsize) block));
  device->used -= size;
  device->frees++;
  return TRUE;
}

static void
fake_changed (gpointer user_data,
              gboolean held_changed,
              gboolean active_changed)
{
  FakeDevice *device = user_data;

  device->held_notifies += held_changed;
  device->active_notifies += active_changed;
}

static void
fake_device_init (FakeDevice *device,
                  gsize       capacity)
{
  memset (device, 0, sizeof *device);
  device->capacity = capacity;
  device->next_address = 0x7000000000;
  device->live = g_hash_table_new (g_direct_hash, g_direct_equal);
  device->pool = cugi_block_pool_new (fake_alloc, fake_free, fake_changed, device, 1);
}

static void
fake_device_clear (FakeDevice *device)
{
  cugi_block_pool_destroy (device->pool, 1);
  /* Destroying frees what the pool held: nothing leaks. */
  g_assert_cmpuint (g_hash_table_size (device->live), ==, 0);
  g_assert_cmpuint (device->used, ==, 0);
  g_hash_table_unref (device->live);
}

static void
assert_counts (FakeDevice *device,
               guint       held,
               guint       active)
{
  g_assert_cmpuint (cugi_block_pool_get_held (device->pool), ==, held);
  g_assert_cmpuint (cugi_block_pool_get_active (device->pool), ==, active);
}

static guint64
take (FakeDevice *device,
      gsize       size)
{
  g_autoptr(GError) error = NULL;
  guint64 block = 0;

  g_assert_true (cugi_block_pool_take (device->pool, 1, size, &block, &error));
  g_assert_no_error (error);
  return block;
}

static void
give_back (FakeDevice *device,
           guint64     block,
           gsize       size)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (cugi_block_pool_give_back (device->pool, 1, block, size, 1, &error));
  g_assert_no_error (error);
}

static void
test_pool_reuse (void)
{
  FakeDevice device;
  guint64 a, b, c;

  fake_device_init (&device, 1 << 20);
  assert_counts (&device, 0, 0);

  a = take (&device, 1000);
  assert_counts (&device, 0, 1);
  g_assert_cmpuint (device.used, ==, 1024);
  g_assert_cmpuint (device.active_notifies, ==, 1);

  give_back (&device, a, 1000);
  assert_counts (&device, 1, 0);
  g_assert_cmpuint (device.frees, ==, 0);

  /* The same bin comes back: 1001 bytes also take a 1024-byte block. */
  b = take (&device, 1001);
  g_assert_cmpuint (b, ==, a);
  assert_counts (&device, 0, 1);
  g_assert_cmpuint (device.allocs, ==, 1);

  /* Another bin needs another block. */
  c = take (&device, 1100);
  g_assert_cmpuint (c, !=, a);
  g_assert_cmpuint (device.allocs, ==, 2);
  assert_counts (&device, 0, 2);

  give_back (&device, b, 1001);
  give_back (&device, c, 1100);
  assert_counts (&device, 2, 0);
  g_assert_cmpuint (device.used, ==, 1024 + 1280);

  fake_device_clear (&device);
}

static void
test_pool_free_held (void)
{
  FakeDevice device;
  g_autoptr(GError) error = NULL;
  guint64 a, b, c;

  fake_device_init (&device, 1 << 20);
  a = take (&device, 300);
  b = take (&device, 300);
  c = take (&device, 5000);
  give_back (&device, a, 300);
  give_back (&device, b, 300);
  assert_counts (&device, 2, 1);

  g_assert_true (cugi_block_pool_free_held (device.pool, 1, &error));
  g_assert_no_error (error);
  assert_counts (&device, 0, 1);
  g_assert_cmpuint (device.frees, ==, 2);
  g_assert_cmpuint (device.used, ==, 5120);

  /* Still holding: a block given back is kept. */
  give_back (&device, c, 5000);
  assert_counts (&device, 1, 0);
  fake_device_clear (&device);
}

static void
test_pool_stop_holding (void)
{
  FakeDevice device;
  g_autoptr(GError) error = NULL;
  guint64 a, b;

  fake_device_init (&device, 1 << 20);
  a = take (&device, 4096);
  b = take (&device, 4096);
  give_back (&device, a, 4096);
  assert_counts (&device, 1, 1);

  g_assert_true (cugi_block_pool_stop_holding (device.pool, 1, &error));
  g_assert_no_error (error);
  assert_counts (&device, 0, 1);
  g_assert_cmpuint (device.frees, ==, 1);

  /* From now on blocks go back to the driver at once. */
  give_back (&device, b, 4096);
  assert_counts (&device, 0, 0);
  g_assert_cmpuint (device.frees, ==, 2);
  g_assert_cmpuint (device.used, ==, 0);

  /* Allocation still works. */
  a = take (&device, 4096);
  assert_counts (&device, 0, 1);
  give_back (&device, a, 4096);
  assert_counts (&device, 0, 0);
  fake_device_clear (&device);
}

static void
test_pool_out_of_memory_retry (void)
{
  FakeDevice device;
  g_autoptr(GError) error = NULL;
  guint64 a, b, block = 0;

  fake_device_init (&device, 3000);
  a = take (&device, 1024);
  give_back (&device, a, 1024);
  assert_counts (&device, 1, 0);

  /* 2048 does not fit beside the held 1024: the pool frees it and retries. */
  b = take (&device, 2048);
  assert_counts (&device, 0, 1);
  g_assert_cmpuint (device.frees, ==, 1);
  g_assert_cmpuint (device.used, ==, 2048);

  /* With nothing held, out of memory is reported as such. */
  g_assert_false (cugi_block_pool_take (device.pool, 1, 2048, &block, &error));
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_OUT_OF_MEMORY);
  assert_counts (&device, 0, 1);

  give_back (&device, b, 2048);
  fake_device_clear (&device);
}

static void
test_pool_too_large (void)
{
  FakeDevice device;
  g_autoptr(GError) error = NULL;
  guint64 block = 0;

  fake_device_init (&device, 1 << 20);
  g_assert_false (cugi_block_pool_take (device.pool, 1, G_MAXSIZE, &block, &error));
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT);
  assert_counts (&device, 0, 0);
  g_assert_cmpuint (device.allocs, ==, 0);
  fake_device_clear (&device);
}

static void
test_pool_epochs (void)
{
  FakeDevice device;
  g_autoptr(GError) error = NULL;
  guint64 a, b, c, block = 0;

  fake_device_init (&device, 1 << 20);
  a = take (&device, 512);
  b = take (&device, 512);
  give_back (&device, a, 512);
  assert_counts (&device, 1, 1);

  /* The context was reset (epoch 2): the held block is gone, not reused,
   * and never freed; nor is the active one when it comes back. */
  g_assert_true (cugi_block_pool_take (device.pool, 2, 512, &block, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (block, !=, a);
  assert_counts (&device, 0, 2);
  g_assert_true (cugi_block_pool_give_back (device.pool, 2, b, 512, 1, &error));
  g_assert_no_error (error);
  assert_counts (&device, 0, 1);
  g_assert_cmpuint (device.frees, ==, 0);

  c = block;
  g_assert_true (cugi_block_pool_give_back (device.pool, 2, c, 512, 2, &error));
  assert_counts (&device, 1, 0);
  g_assert_cmpuint (device.frees, ==, 0);

  /* The fake device does not know about resets: forget the two gone blocks. */
  g_hash_table_remove (device.live, GSIZE_TO_POINTER ((gsize) a));
  g_hash_table_remove (device.live, GSIZE_TO_POINTER ((gsize) b));
  device.used -= 1024;
  cugi_block_pool_destroy (device.pool, 2);
  g_assert_cmpuint (device.frees, ==, 1);
  g_assert_cmpuint (g_hash_table_size (device.live), ==, 0);
  g_hash_table_unref (device.live);
}

static void
test_pool_max_held_bytes (void)
{
  FakeDevice device;
  guint64 a, b, c, d;

  fake_device_init (&device, 1 << 20);
  cugi_block_pool_set_max_held_bytes (device.pool, 3000);
  a = take (&device, 1024);
  b = take (&device, 1024);
  c = take (&device, 1024);
  d = take (&device, 900);

  /* Two blocks of 1024 fit in 3000 bytes; the third is freed. */
  give_back (&device, a, 1024);
  give_back (&device, b, 1024);
  g_assert_cmpuint (device.frees, ==, 0);
  give_back (&device, c, 1024);
  assert_counts (&device, 2, 1);
  g_assert_cmpuint (device.frees, ==, 1);
  /* The limit counts bins, not the sizes asked for: 900 bytes take 1024. */
  give_back (&device, d, 900);
  assert_counts (&device, 2, 0);
  g_assert_cmpuint (device.frees, ==, 2);

  /* Taking a held block makes room for one again. */
  a = take (&device, 1000);
  assert_counts (&device, 1, 1);
  g_assert_cmpuint (device.allocs, ==, 4);
  give_back (&device, a, 1000);
  assert_counts (&device, 2, 0);
  g_assert_cmpuint (device.frees, ==, 2);

  /* Below the limit, a block larger than it is never held, and evicts
   * nothing (the held block it came from is freed with it). */
  cugi_block_pool_set_max_held_bytes (device.pool, 1000);
  a = take (&device, 1024);
  give_back (&device, a, 1024);
  assert_counts (&device, 1, 0);
  g_assert_cmpuint (device.frees, ==, 3);

  /* A block of another size given back is held: the block of 1024, beyond
   * the limit now, makes room for it. */
  a = take (&device, 256);
  give_back (&device, a, 256);
  assert_counts (&device, 1, 0);
  g_assert_cmpuint (device.frees, ==, 4);

  /* Freeing what is held starts the count again. */
  g_assert_true (cugi_block_pool_free_held (device.pool, 1, NULL));
  g_assert_cmpuint (device.frees, ==, 5);
  a = take (&device, 256);
  give_back (&device, a, 256);
  assert_counts (&device, 1, 0);
  fake_device_clear (&device);
}

/* A pool full of blocks of one size, as after a run of transfers of that
 * size, holds the block of another size given back last, freeing as few of
 * the older blocks as make room, so that transfers of the new size stop
 * allocating each time. */
static void
test_pool_max_held_bytes_evicts_other_sizes (void)
{
  FakeDevice device;
  guint64 small[4], large;

  fake_device_init (&device, 1 << 20);
  cugi_block_pool_set_max_held_bytes (device.pool, 4096);
  for (guint i = 0; i < G_N_ELEMENTS (small); i++)
    small[i] = take (&device, 1024);
  for (guint i = 0; i < G_N_ELEMENTS (small); i++)
    give_back (&device, small[i], 1024);
  assert_counts (&device, 4, 0);

  large = take (&device, 2048);
  give_back (&device, large, 2048);
  assert_counts (&device, 3, 0);
  g_assert_cmpuint (device.frees, ==, 2);
  g_assert_cmpuint (device.used, ==, 2 * 1024 + 2048);

  /* Taken again from the pool, not allocated. */
  large = take (&device, 2048);
  g_assert_cmpuint (device.allocs, ==, 5);
  give_back (&device, large, 2048);
  assert_counts (&device, 3, 0);
  fake_device_clear (&device);
}

static void
test_pool_notifications (void)
{
  FakeDevice device;
  g_autoptr(GError) error = NULL;
  guint64 a;

  fake_device_init (&device, 1 << 20);
  a = take (&device, 100);
  g_assert_cmpuint (device.held_notifies, ==, 0);
  g_assert_cmpuint (device.active_notifies, ==, 1);
  give_back (&device, a, 100);
  g_assert_cmpuint (device.held_notifies, ==, 1);
  g_assert_cmpuint (device.active_notifies, ==, 2);
  a = take (&device, 100);
  g_assert_cmpuint (device.held_notifies, ==, 2);
  g_assert_cmpuint (device.active_notifies, ==, 3);

  /* Freeing nothing changes nothing. */
  g_assert_true (cugi_block_pool_free_held (device.pool, 1, &error));
  g_assert_cmpuint (device.held_notifies, ==, 2);

  give_back (&device, a, 100);
  g_assert_true (cugi_block_pool_free_held (device.pool, 1, &error));
  g_assert_cmpuint (device.held_notifies, ==, 4);
  fake_device_clear (&device);
}

/* ---- resources of work in flight ------------------------------------------ */

static void
count_release (gpointer data)
{
  guint *count = data;

  (*count)++;
}

static void
test_work_resources (void)
{
  GPtrArray *resources = cugi_work_resources_new ();
  g_autoptr(GBytes) bytes = g_bytes_new_static ("abc", 3);
  guint released = 0;

  cugi_work_resources_add (resources, &released, count_release);
  cugi_work_resources_add (resources, &released, count_release);
  cugi_work_resources_add (resources, g_bytes_ref (bytes), (GDestroyNotify) g_bytes_unref);
  g_assert_cmpuint (resources->len, ==, 3);
  g_assert_cmpuint (released, ==, 0);

  g_ptr_array_unref (resources);
  g_assert_cmpuint (released, ==, 2);
  /* Only the test's own reference is left. */
  g_assert_cmpuint (g_bytes_get_size (bytes), ==, 3);
}

int
main (int   argc,
      char *argv[])
{
  cugi_test_init (&argc, &argv);

  g_test_add_func ("/memory-core/range", test_range);
  g_test_add_func ("/memory-core/range-message", test_range_message);
  g_test_add_func ("/memory-core/pitched-range", test_pitched_range);
  g_test_add_func ("/memory-core/region-size", test_region_size);
  g_test_add_func ("/memory-core/lifetime/free", test_lifetime_free);
  g_test_add_func ("/memory-core/lifetime/clear", test_lifetime_clear);
  g_test_add_func ("/memory-core/lifetime/deferred-by-use", test_lifetime_deferred_by_use);
  g_test_add_func ("/memory-core/lifetime/use-without-free", test_lifetime_use_without_free);
  g_test_add_func ("/memory-core/lifetime/release-error", test_lifetime_release_error);
  g_test_add_func ("/memory-core/lifetime/holds-let-go", test_lifetime_holds_let_go);
  g_test_add_func ("/memory-core/bins/examples", test_bin_examples);
  g_test_add_func ("/memory-core/bins/properties", test_bin_properties);
  g_test_add_func ("/memory-core/bins/overflow", test_bin_overflow);
  g_test_add_func ("/memory-core/pool/reuse", test_pool_reuse);
  g_test_add_func ("/memory-core/pool/free-held", test_pool_free_held);
  g_test_add_func ("/memory-core/pool/stop-holding", test_pool_stop_holding);
  g_test_add_func ("/memory-core/pool/out-of-memory-retry", test_pool_out_of_memory_retry);
  g_test_add_func ("/memory-core/pool/too-large", test_pool_too_large);
  g_test_add_func ("/memory-core/pool/epochs", test_pool_epochs);
  g_test_add_func ("/memory-core/pool/max-held-bytes", test_pool_max_held_bytes);
  g_test_add_func ("/memory-core/pool/max-held-bytes-evicts-other-sizes",
                   test_pool_max_held_bytes_evicts_other_sizes);
  g_test_add_func ("/memory-core/pool/notifications", test_pool_notifications);
  g_test_add_func ("/memory-core/work-resources", test_work_resources);

  return g_test_run ();
}
