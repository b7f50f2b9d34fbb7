/* test-program-cache.c: the NVRTC disk cache, for real and without a GPU:
 * hits, keys, corrupt entries, directory permissions, eviction, and several
 * processes compiling into one directory at once. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "cugi-private.h"
#include "cugi-program-cache.h"
#include "cugi-test-utils.h"

#define WORKER_ARGUMENT "--compile-worker"
#define N_WORKERS 3

static const char kernel_source[] =
  "template <typename T>\n"
  "__global__ void axpy (T a, const T *x, T *y, int n)\n"
  "{\n"
  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (i < n)\n"
  "    y[i] += a * x[i];\n"
  "}\n";
static const char kernel_expression[] = "axpy<float>";

/* Another source with the same name expression. */
static const char other_source[] =
  "template <typename T>\n"
  "__global__ void axpy (T a, const T *x, T *y, int n)\n"
  "{\n"
  "  for (int i = threadIdx.x; i < n; i += blockDim.x)\n"
  "    y[i] -= a * x[i];\n"
  "}\n";

typedef struct
{
  char *root;       /* a temporary directory, removed afterwards */
  char *cache_dir;  /* $CUGI_CACHE_DIR, inside root, not created yet */
} Fixture;

static void
fixture_set_up (Fixture       *fixture,
                gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  fixture->root = g_dir_make_tmp ("cugi-cache-XXXXXX", &error);
  g_assert_no_error (error);
  fixture->cache_dir = g_build_filename (fixture->root, "cache", NULL);
  g_setenv ("CUGI_CACHE_DIR", fixture->cache_dir, TRUE);
  g_unsetenv ("CUGI_DISABLE_CACHE");
  g_unsetenv ("CUGI_CACHE_MAX_SIZE");
  /* Each test starts as a new process would: only the disk remembers. */
  cugi_program_cache_clear_memory ();
}

static void
remove_tree (const char *path)
{
  GDir *dir = g_dir_open (path, 0, NULL);
  const char *name;

  if (dir != NULL)
    {
      while ((name = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *child = g_build_filename (path, name, NULL);

          remove_tree (child);
        }
      g_dir_close (dir);
      g_assert_cmpint (g_rmdir (path), ==, 0);
    }
  else
    g_assert_cmpint (g_unlink (path), ==, 0);
}

static void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  data)
{
  g_unsetenv ("CUGI_CACHE_DIR");
  g_unsetenv ("CUGI_DISABLE_CACHE");
  g_unsetenv ("CUGI_CACHE_MAX_SIZE");
  remove_tree (fixture->root);
  g_free (fixture->root);
  g_free (fixture->cache_dir);
}

static CugiProgram *
new_kernel_program (const char *source)
{
  CugiProgram *program = cugi_program_new (source, "axpy.cu");
  g_autoptr(GError) error = NULL;

  g_assert_true (cugi_program_add_name_expression (program, kernel_expression, &error));
  g_assert_no_error (error);
  return program;
}

/* Compiles @program for sm_90 and says where the result came from. */
static CugiProgramCacheHit
compile_for_sm90 (CugiProgram        *program,
                  const char * const *options)
{
  g_autoptr(GError) error = NULL;

  gboolean compiled = cugi_program_compile_for_arch (program, 9, 0, options, &error);

  g_assert_no_error (error);
  g_assert_true (compiled);
  return cugi_program_get_cache_hit (program);
}

static char *
entry_path_of (Fixture     *fixture,
               CugiProgram *program)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *key = cugi_program_dup_cache_key_for_arch (program, 9, 0, NULL, &error);

  g_assert_no_error (error);
  return cugi_program_cache_get_entry_path (fixture->cache_dir, key);
}

/* The names in @dir, or none when it does not exist. */
static GPtrArray *
list_dir (const char *path)
{
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  return names;
}

/* The names in @dir of entries with compiled code: a compile also keeps
 * the architectures its NVRTC supports, in an entry without any. */
static GPtrArray *
list_compile_entries (const char *path)
{
  g_autoptr(GPtrArray) names = list_dir (path);
  GPtrArray *compiled = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < names->len; i++)
    {
      const char *name = g_ptr_array_index (names, i);
      g_autofree char *entry_path = g_build_filename (path, name, NULL);
      g_autofree char *key = g_strndup (name, strcspn (name, "."));
      g_autoptr(GBytes) contents = NULL;
      g_autoptr(CugiProgramResult) result = NULL;
      g_autofree char *data = NULL;
      const char *reason = NULL;
      gsize length = 0;

      if (g_file_get_contents (entry_path, &data, &length, NULL))
        {
          contents = g_bytes_new_take (g_steal_pointer (&data), length);
          result = cugi_program_cache_parse_entry (contents, key, &reason);
        }
      if (result == NULL || result->ptx != NULL || result->cubin != NULL)
        g_ptr_array_add (compiled, g_strdup (name));
    }
  return compiled;
}

static void
assert_same_bytes (GBytes *a,
                   GBytes *b)
{
  g_assert_nonnull (a);
  g_assert_nonnull (b);
  g_assert_true (g_bytes_equal (a, b));
}

/* Same outputs, whichever way each program got them. */
static void
assert_same_results (CugiProgram *a,
                     CugiProgram *b)
{
  g_autoptr(GBytes) cubin_a = cugi_program_get_cubin (a);
  g_autoptr(GBytes) cubin_b = cugi_program_get_cubin (b);
  g_autoptr(GBytes) ptx_a = cugi_program_get_ptx (a);
  g_autoptr(GBytes) ptx_b = cugi_program_get_ptx (b);

  assert_same_bytes (cubin_a, cubin_b);
  assert_same_bytes (ptx_a, ptx_b);
  g_assert_cmpstr (cugi_program_get_log (a), ==, cugi_program_get_log (b));
  g_assert_cmpstr (cugi_program_get_lowered_name (a, kernel_expression, NULL), ==,
                   cugi_program_get_lowered_name (b, kernel_expression, NULL));
  g_assert_cmpstr (cugi_program_get_lowered_name (b, kernel_expression, NULL), ==, "_Z4axpyIfEvT_PKS0_PS0_i");
}

static int
compare_gint64 (gconstpointer a,
                gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return (x > y) - (x < y);
}

static void
test_hit (Fixture       *fixture,
          gconstpointer  data)
{
  g_autoptr(CugiProgram) warm_up = cugi_program_new (other_source, NULL);
  g_autoptr(CugiProgram) cold = new_kernel_program (kernel_source);
  g_autoptr(CugiProgram) from_memory = new_kernel_program (kernel_source);
  g_autofree char *path = entry_path_of (fixture, cold);
  gint64 warm_us[7];
  gint64 cold_us;
  GStatBuf info;

  /* NVRTC's first compile in a process pays for its start-up: the cold
   * compile measured is an ordinary one. */
  compile_for_sm90 (warm_up, NULL);

  cold_us = g_get_monotonic_time ();
  g_assert_cmpint (compile_for_sm90 (cold, NULL), ==, CUGI_PROGRAM_CACHE_MISS);
  cold_us = g_get_monotonic_time () - cold_us;

  g_assert_cmpint (g_stat (fixture->cache_dir, &info), ==, 0);
  g_assert_cmpint (info.st_mode & 0777, ==, 0700);
  g_assert_cmpint (g_stat (path, &info), ==, 0);
  g_assert_cmpint (info.st_mode & 0777, ==, 0600);

  for (guint i = 0; i < G_N_ELEMENTS (warm_us); i++)
    {
      g_autoptr(CugiProgram) warm = new_kernel_program (kernel_source);

      cugi_program_cache_clear_memory ();
      warm_us[i] = g_get_monotonic_time ();
      g_assert_cmpint (compile_for_sm90 (warm, NULL), ==, CUGI_PROGRAM_CACHE_HIT_DISK);
      warm_us[i] = g_get_monotonic_time () - warm_us[i];
      assert_same_results (cold, warm);
    }
  qsort (warm_us, G_N_ELEMENTS (warm_us), sizeof (gint64), compare_gint64);

  g_assert_cmpint (compile_for_sm90 (from_memory, NULL), ==, CUGI_PROGRAM_CACHE_HIT_MEMORY);
  assert_same_results (cold, from_memory);

  /* Reported, not asserted: timings belong in benchmarks. */
  g_test_message ("cold compile %" G_GINT64_FORMAT " us, disk hit %" G_GINT64_FORMAT " us (median)",
                  cold_us, warm_us[G_N_ELEMENTS (warm_us) / 2]);
}

static void
test_key_inputs (void)
{
  const char *header_names[] = { "a.h", "b.h" };
  const char *header_sources[] = { "int a;", "int b;" };
  const char *swapped_names[] = { "b.h", "a.h" };
  const char *shifted_names[] = { "a.hi", "b.h" };
  const char *shifted_sources[] = { "nt a;", "int b;" };
  const char *changed_sources[] = { "int a;", "int c;" };
  const char *expressions[] = { "f<int>", NULL };
  const char *other_expressions[] = { "f<float>", NULL };
  const char *more_expressions[] = { "f<int>", "f<float>", NULL };
  const char *no_strings[] = { NULL };
  const char *options[] = { "ab", "c", NULL };
  const char *shifted_options[] = { "a", "bc", NULL };
  const char *more_options[] = { "ab", "c", "-lineinfo", NULL };
  const CugiProgramCacheKeyInputs base = {
    "source", "name.cu", header_names, header_sources, 2, expressions, options, "sm_90", "an NVRTC",
  };
  CugiProgramCacheKeyInputs variants[18];
  g_autoptr(GHashTable) keys = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autofree char *base_key = cugi_program_cache_compute_key (&base);
  g_autofree char *again = cugi_program_cache_compute_key (&base);
  g_autofree char *empty_expressions = NULL;
  g_autofree char *null_expressions = NULL;
  guint n = 0;

  g_assert_cmpstr (base_key, ==, again);
  g_assert_cmpuint (strlen (base_key), ==, 64);
  for (const char *c = base_key; *c != '\0'; c++)
    g_assert_true (g_ascii_isxdigit (*c));

  for (guint i = 0; i < G_N_ELEMENTS (variants); i++)
    variants[i] = base;
  variants[n++].source = "sourcf";
  variants[n++].source = "source ";
  variants[n++].name = NULL;
  variants[n++].name = "";
  variants[n++].name = "other.cu";
  variants[n++].header_names = swapped_names;
  variants[n].header_names = shifted_names;
  variants[n++].header_sources = shifted_sources;
  variants[n++].header_sources = changed_sources;
  variants[n++].n_headers = 1;
  variants[n++].name_expressions = other_expressions;
  variants[n++].name_expressions = more_expressions;
  variants[n++].name_expressions = NULL;
  variants[n++].options = shifted_options;
  variants[n++].options = more_options;
  variants[n++].options = NULL;
  variants[n++].target = "sm_89";
  variants[n++].target = "";
  variants[n++].nvrtc_identity = "another NVRTC";
  g_assert_cmpuint (n, ==, G_N_ELEMENTS (variants));

  g_hash_table_add (keys, g_steal_pointer (&base_key));
  for (guint i = 0; i < n; i++)
    {
      char *key = cugi_program_cache_compute_key (&variants[i]);

      if (!g_hash_table_add (keys, key))
        g_error ("variant %u hashes as an earlier input", i);
    }

  /* No list and an empty list are the same input. */
  variants[0] = base;
  variants[0].name_expressions = NULL;
  null_expressions = cugi_program_cache_compute_key (&variants[0]);
  variants[0].name_expressions = no_strings;
  empty_expressions = cugi_program_cache_compute_key (&variants[0]);
  g_assert_cmpstr (null_expressions, ==, empty_expressions);
}

/* Each input of a real compile makes an entry of its own. */
static void
test_key_entries (Fixture       *fixture,
                  gconstpointer  data)
{
  const char *lineinfo[] = { "-lineinfo", NULL };
  g_autoptr(CugiProgram) base = new_kernel_program (kernel_source);
  g_autoptr(CugiProgram) with_option = new_kernel_program (kernel_source);
  g_autoptr(CugiProgram) other_target = new_kernel_program (kernel_source);
  g_autoptr(CugiProgram) with_header = new_kernel_program (kernel_source);
  g_autoptr(CugiProgram) other_header = new_kernel_program (kernel_source);
  g_autoptr(CugiProgram) other_text = new_kernel_program (other_source);
  g_autoptr(CugiProgram) same = new_kernel_program (kernel_source);
  g_autoptr(GPtrArray) names = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (compile_for_sm90 (base, NULL), ==, CUGI_PROGRAM_CACHE_MISS);
  g_assert_cmpint (compile_for_sm90 (with_option, lineinfo), ==, CUGI_PROGRAM_CACHE_MISS);
  g_assert_true (cugi_program_compile_for_arch (other_target, 8, 9, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpint (cugi_program_get_cache_hit (other_target), ==, CUGI_PROGRAM_CACHE_MISS);
  cugi_program_add_header (with_header, "unused.h", "int unused;");
  g_assert_cmpint (compile_for_sm90 (with_header, NULL), ==, CUGI_PROGRAM_CACHE_MISS);
  cugi_program_add_header (other_header, "unused.h", "int unused2;");
  g_assert_cmpint (compile_for_sm90 (other_header, NULL), ==, CUGI_PROGRAM_CACHE_MISS);
  g_assert_cmpint (compile_for_sm90 (other_text, NULL), ==, CUGI_PROGRAM_CACHE_MISS);

  names = list_compile_entries (fixture->cache_dir);
  g_assert_cmpuint (names->len, ==, 6);

  cugi_program_cache_clear_memory ();
  g_assert_cmpint (compile_for_sm90 (same, NULL), ==, CUGI_PROGRAM_CACHE_HIT_DISK);
}

typedef enum
{
  CORRUPT_FLIP_PAYLOAD,
  CORRUPT_FLIP_MAGIC,
  CORRUPT_FLIP_HASH,
  CORRUPT_FLIP_LENGTH,
  CORRUPT_TRUNCATE_HALF,
  CORRUPT_TRUNCATE_LAST_BYTE,
  CORRUPT_GARBAGE,
  CORRUPT_EMPTY,
  CORRUPT_OTHER_KEY,
  /* Entries whose hash and lengths check out (as if a writer made them) but
   * whose parts are not what a compile gives: found by fuzz-cache-entry. */
  CORRUPT_SEALED_PTX_WITH_NUL,
  CORRUPT_SEALED_EMPTY_CUBIN,
  /* Not regular files, or too big to read: each could hang the compile or
   * exhaust memory, so these run in a subprocess of bounded memory. */
  CORRUPT_FIFO,
  CORRUPT_LINK_TO_DEV_ZERO,
  CORRUPT_HUGE,             /* 1 GiB of zeros, over the cap */
  CORRUPT_HUGE_UNDER_CAP,   /* the same, with a cap of 4 GiB */
  /* A link to a good entry: the entry is fine, the link is not followed. */
  CORRUPT_LINK_TO_ENTRY,
} Corruption;

#define HUGE_ENTRY_SIZE (G_GINT64_CONSTANT (1) << 30)

static gboolean
is_hazardous (Corruption corruption)
{
  return corruption == CORRUPT_FIFO || corruption == CORRUPT_LINK_TO_DEV_ZERO ||
         corruption == CORRUPT_HUGE || corruption == CORRUPT_HUGE_UNDER_CAP;
}

/* Puts something at @path that is not a regular file, or not one to read. */
static void
plant_bad_entry (const char *path,
                 const char *link_target,
                 Corruption  corruption)
{
  int fd;

  if (g_unlink (path) != 0)
    g_assert_cmpint (errno, ==, ENOENT);
  switch (corruption)
    {
    case CORRUPT_FIFO:
      g_assert_cmpint (mkfifo (path, 0600), ==, 0);
      break;
    case CORRUPT_LINK_TO_DEV_ZERO:
      g_assert_cmpint (symlink ("/dev/zero", path), ==, 0);
      break;
    case CORRUPT_LINK_TO_ENTRY:
      g_assert_cmpint (symlink (link_target, path), ==, 0);
      break;
    case CORRUPT_HUGE:
    case CORRUPT_HUGE_UNDER_CAP:
      /* Sparse: no disk is used. */
      fd = g_open (path, O_WRONLY | O_CREAT | O_EXCL, 0600);
      g_assert_cmpint (fd, >=, 0);
      g_assert_cmpint (ftruncate (fd, HUGE_ENTRY_SIZE), ==, 0);
      g_assert_true (g_close (fd, NULL));
      break;
    default:
      g_assert_not_reached ();
    }
}

/* Limits this process's address space to what it uses now and @headroom
 * more, so that reading a bad entry in full fails instead of taking the
 * machine's memory; restored by restore_memory_limit(). AddressSanitizer
 * reserves terabytes of address space, so it gets no limit. */
static void
limit_memory (struct rlimit *saved,
              guint64        headroom)
{
#if !defined (__SANITIZE_ADDRESS__)
  g_autofree char *statm = NULL;
  unsigned long long pages = 0;
  struct rlimit limit;

  g_assert_true (g_file_get_contents ("/proc/self/statm", &statm, NULL, NULL));
  g_assert_cmpint (sscanf (statm, "%llu", &pages), ==, 1);
  g_assert_cmpint (getrlimit (RLIMIT_AS, saved), ==, 0);
  limit = *saved;
  limit.rlim_cur = MIN (saved->rlim_max, (rlim_t) (pages * sysconf (_SC_PAGESIZE) + headroom));
  g_assert_cmpint (setrlimit (RLIMIT_AS, &limit), ==, 0);
#endif
}

static void
restore_memory_limit (const struct rlimit *saved)
{
#if !defined (__SANITIZE_ADDRESS__)
  g_assert_cmpint (setrlimit (RLIMIT_AS, saved), ==, 0);
#endif
}

/* Offsets in an entry file, as cugi-program-cache.c describes the format. */
#define ENTRY_CONTENT_HASH 16
#define ENTRY_HASHED_FROM 48
#define ENTRY_LENGTHS 120   /* of the parts below, 8 bytes each */
#define ENTRY_HEADER_SIZE 152
enum { ENTRY_LOG, ENTRY_PTX, ENTRY_CUBIN };

static gsize
entry_part_length (const char *data,
                   guint       part)
{
  guint64 length;

  memcpy (&length, data + ENTRY_LENGTHS + 8 * part, sizeof length);
  return GUINT64_FROM_LE (length);
}

/* Takes the CUBIN out of the @size bytes of entry @data, its flag left set. */
static gsize
empty_cubin (char  *data,
             gsize  size)
{
  gsize cubin_start = ENTRY_HEADER_SIZE + entry_part_length (data, ENTRY_LOG) + entry_part_length (data, ENTRY_PTX);
  gsize cubin_length = entry_part_length (data, ENTRY_CUBIN);
  guint64 zero = 0;

  g_assert_cmpuint (cubin_length, >, 0);
  memmove (data + cubin_start, data + cubin_start + cubin_length, size - cubin_start - cubin_length);
  memcpy (data + ENTRY_LENGTHS + 8 * ENTRY_CUBIN, &zero, sizeof zero);
  return size - cubin_length;
}

/* Makes the content hash of the @size bytes of entry @data right. */
static void
seal_entry (char  *data,
            gsize  size)
{
  g_autoptr(GChecksum) checksum = g_checksum_new (G_CHECKSUM_SHA256);
  gsize digest_size = 32;

  g_checksum_update (checksum, (const guint8 *) data + ENTRY_HASHED_FROM, size - ENTRY_HASHED_FROM);
  g_checksum_get_digest (checksum, (guint8 *) data + ENTRY_CONTENT_HASH, &digest_size);
}

/* Writes @entry (a good one), corrupted, to @path. */
static void
write_corrupted (const char *path,
                 GBytes     *entry,
                 GBytes     *other_entry,
                 Corruption  corruption)
{
  g_autoptr(GError) error = NULL;
  gsize size = 0;
  g_autofree char *data = g_memdup2 (g_bytes_get_data (corruption == CORRUPT_OTHER_KEY ? other_entry : entry, &size),
                                     g_bytes_get_size (corruption == CORRUPT_OTHER_KEY ? other_entry : entry));

  g_assert_cmpuint (size, >, 200);
  switch (corruption)
    {
    case CORRUPT_FLIP_PAYLOAD:
      data[size - 1] ^= 0x01;
      break;
    case CORRUPT_FLIP_MAGIC:
      data[0] ^= 0x20;
      break;
    case CORRUPT_FLIP_HASH:
      data[20] ^= 0x80;
      break;
    case CORRUPT_FLIP_LENGTH:
      data[128] ^= 0x04;   /* the PTX's length */
      break;
    case CORRUPT_TRUNCATE_HALF:
      size /= 2;
      break;
    case CORRUPT_TRUNCATE_LAST_BYTE:
      size -= 1;
      break;
    case CORRUPT_GARBAGE:
      for (gsize i = 0; i < size; i++)
        data[i] = (char) g_test_rand_int_range (0, 256);
      break;
    case CORRUPT_EMPTY:
      size = 0;
      break;
    case CORRUPT_OTHER_KEY:
      break;
    case CORRUPT_SEALED_PTX_WITH_NUL:
      /* PTX's last byte (before the fix, loaded and handed out with it). */
      g_assert_cmpuint (entry_part_length (data, ENTRY_PTX), >, 0);
      data[ENTRY_HEADER_SIZE + entry_part_length (data, ENTRY_LOG) + entry_part_length (data, ENTRY_PTX) - 1] = '\0';
      seal_entry (data, size);
      break;
    case CORRUPT_SEALED_EMPTY_CUBIN:
      /* Before the fix, an empty CUBIN was loaded in place of the PTX. */
      size = empty_cubin (data, size);
      seal_entry (data, size);
      break;
    default:
      g_assert_not_reached ();
    }
  g_assert_true (g_file_set_contents (path, data, size, &error));
  g_assert_no_error (error);
}

static GBytes *
read_file (const char *path)
{
  g_autoptr(GError) error = NULL;
  char *data = NULL;
  gsize size = 0;

  g_assert_true (g_file_get_contents (path, &data, &size, &error));
  g_assert_no_error (error);
  return g_bytes_new_take (data, size);
}

/* Puts the bad entry of @corruption at @path: a corrupted copy of @entry,
 * or a file that is not one to read (a link, when asked, to @good_copy). */
static void
put_bad_entry (const char *path,
               GBytes     *entry,
               GBytes     *other_entry,
               const char *good_copy,
               Corruption  corruption)
{
  if (corruption >= CORRUPT_FIFO)
    plant_bad_entry (path, good_copy, corruption);
  else
    write_corrupted (path, entry, other_entry, corruption);
}

static void
test_corrupt_entry (Fixture       *fixture,
                    gconstpointer  data)
{
  Corruption corruption = GPOINTER_TO_INT (data);
  g_autoptr(CugiProgram) original = NULL;
  g_autoptr(CugiProgram) other = NULL;
  g_autoptr(CugiProgram) recompiled = NULL;
  g_autoptr(CugiProgram) reloaded = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  g_autofree char *key = NULL;
  g_autofree char *good_copy = g_build_filename (fixture->root, "good-copy", NULL);
  g_autoptr(GBytes) entry = NULL;
  g_autoptr(GBytes) other_entry = NULL;
  g_autoptr(GBytes) copied = NULL;
  CugiProgramCacheHit hit = CUGI_PROGRAM_CACHE_HIT_DISK;
  struct rlimit saved_limit;
  GStatBuf info;

  /* Before the fix, a FIFO hung here and /dev/zero took all memory: the
   * subprocess's time limit guards against a hang, not a slow compile. */
  if (is_hazardous (corruption) && !cugi_test_in_subprocess (300))
    return;
  if (corruption == CORRUPT_HUGE_UNDER_CAP)
    g_setenv ("CUGI_CACHE_MAX_SIZE", "4294967296", TRUE);

  original = new_kernel_program (kernel_source);
  other = new_kernel_program (other_source);
  recompiled = new_kernel_program (kernel_source);
  reloaded = new_kernel_program (kernel_source);
  path = entry_path_of (fixture, original);
  key = cugi_program_dup_cache_key_for_arch (original, 9, 0, NULL, &error);
  g_assert_no_error (error);

  g_assert_cmpint (compile_for_sm90 (original, NULL), ==, CUGI_PROGRAM_CACHE_MISS);
  g_assert_cmpint (compile_for_sm90 (other, NULL), ==, CUGI_PROGRAM_CACHE_MISS);
  entry = read_file (path);
  {
    g_autofree char *other_path = entry_path_of (fixture, other);

    other_entry = read_file (other_path);
  }
  g_assert_true (g_file_set_contents (good_copy, g_bytes_get_data (entry, NULL), g_bytes_get_size (entry), NULL));

  /* Looked up, a bad entry is a miss, and gone. */
  put_bad_entry (path, entry, other_entry, good_copy, corruption);
  cugi_program_cache_clear_memory ();
  limit_memory (&saved_limit, 512 * 1024 * 1024);
  g_assert_null (cugi_program_cache_lookup (key, &hit));
  restore_memory_limit (&saved_limit);
  g_assert_cmpint (hit, ==, CUGI_PROGRAM_CACHE_MISS);
  g_assert_cmpint (g_lstat (path, &info), !=, 0);
  /* What a link pointed to is left alone. */
  copied = read_file (good_copy);
  g_assert_true (g_bytes_equal (copied, entry));

  /* A compile finding one compiles, never loads it, and writes a good one. */
  put_bad_entry (path, entry, other_entry, good_copy, corruption);
  cugi_program_cache_clear_memory ();
  g_assert_cmpint (compile_for_sm90 (recompiled, NULL), ==, CUGI_PROGRAM_CACHE_MISS);
  assert_same_results (original, recompiled);
  g_assert_cmpint (g_lstat (path, &info), ==, 0);
  g_assert_true (S_ISREG (info.st_mode));

  cugi_program_cache_clear_memory ();
  g_assert_cmpint (compile_for_sm90 (reloaded, NULL), ==, CUGI_PROGRAM_CACHE_HIT_DISK);
  assert_same_results (original, reloaded);
}

/* Refused: compiles work, and nothing is written there. */
static void
assert_refused (const char *dir,
                const char *reason)
{
  g_autoptr(CugiProgram) first = new_kernel_program (kernel_source);
  g_autoptr(CugiProgram) second = new_kernel_program (kernel_source);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) before = list_dir (dir);
  g_autoptr(GPtrArray) after = NULL;
  g_autofree char *found = cugi_program_cache_get_dir (&error);

  g_assert_null (found);
  g_assert_nonnull (error);
  if (strstr (error->message, reason) == NULL)
    g_error ("expected “%s” in: %s", reason, error->message);

  g_assert_cmpint (compile_for_sm90 (first, NULL), ==, CUGI_PROGRAM_CACHE_MISS);
  cugi_program_cache_clear_memory ();
  g_assert_cmpint (compile_for_sm90 (second, NULL), ==, CUGI_PROGRAM_CACHE_MISS);
  assert_same_results (first, second);
  after = list_dir (dir);
  g_assert_cmpuint (after->len, ==, before->len);
}

static void
test_writable_by_others (Fixture       *fixture,
                         gconstpointer  data)
{
  const int modes[] = { 0777, 0770, 0702 };

  g_assert_cmpint (g_mkdir (fixture->cache_dir, 0700), ==, 0);
  for (gsize i = 0; i < G_N_ELEMENTS (modes); i++)
    {
      g_assert_cmpint (g_chmod (fixture->cache_dir, modes[i]), ==, 0);
      assert_refused (fixture->cache_dir, "Other users may write");
      cugi_program_cache_clear_memory ();
    }
}

static void
test_other_owner (Fixture       *fixture,
                  gconstpointer  data)
{
  const uid_t nobody = 65534;

  if (geteuid () == 0)
    {
      g_assert_cmpint (g_mkdir (fixture->cache_dir, 0700), ==, 0);
      g_assert_cmpint (chown (fixture->cache_dir, nobody, nobody), ==, 0);
      assert_refused (fixture->cache_dir, "belongs to another user");
    }
  else
    {
      GStatBuf info;

      /* The root directory, seen by anyone but root, is another's. */
      g_assert_cmpint (g_stat ("/", &info), ==, 0);
      if (info.st_uid == geteuid ())
        {
          g_test_skip ("no directory of another user to try");
          return;
        }
      g_setenv ("CUGI_CACHE_DIR", "/", TRUE);
      assert_refused ("/", "belongs to another user");
    }
}

static void
test_not_a_directory (Fixture       *fixture,
                      gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (g_file_set_contents (fixture->cache_dir, "not a directory", -1, &error));
  g_assert_no_error (error);
  assert_refused (fixture->root, fixture->cache_dir);
}

static void
test_default_dir (Fixture       *fixture,
                  gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *expected = g_build_filename (g_get_user_cache_dir (), "cugi", NULL);
  g_autofree char *dir = NULL;
  GStatBuf info;

  g_unsetenv ("CUGI_CACHE_DIR");
  g_assert_false (g_file_test (expected, G_FILE_TEST_EXISTS));
  dir = cugi_program_cache_get_dir (&error);
  g_assert_no_error (error);
  g_assert_cmpstr (dir, ==, expected);
  g_assert_cmpint (g_stat (dir, &info), ==, 0);
  g_assert_true (S_ISDIR (info.st_mode));
  g_assert_cmpint (info.st_mode & 0777, ==, 0700);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

static void
test_disabled (Fixture       *fixture,
               gconstpointer  data)
{
  g_autoptr(CugiProgram) first = new_kernel_program (kernel_source);
  g_autoptr(CugiProgram) second = new_kernel_program (kernel_source);
  g_autoptr(CugiProgram) enabled = new_kernel_program (kernel_source);

  g_setenv ("CUGI_DISABLE_CACHE", "1", TRUE);
  g_assert_false (cugi_program_cache_is_enabled ());
  g_assert_cmpint (compile_for_sm90 (first, NULL), ==, CUGI_PROGRAM_CACHE_MISS);
  g_assert_cmpint (compile_for_sm90 (second, NULL), ==, CUGI_PROGRAM_CACHE_MISS);
  g_assert_false (g_file_test (fixture->cache_dir, G_FILE_TEST_EXISTS));

  g_setenv ("CUGI_DISABLE_CACHE", "0", TRUE);
  g_assert_true (cugi_program_cache_is_enabled ());
  g_assert_cmpint (compile_for_sm90 (enabled, NULL), ==, CUGI_PROGRAM_CACHE_MISS);
  g_assert_true (g_file_test (fixture->cache_dir, G_FILE_TEST_IS_DIR));
}

/* Options that read files the key cannot see skip the cache. */
static void
test_include_directories_bypass (Fixture       *fixture,
                                 gconstpointer  data)
{
  g_autofree char *include = g_strconcat ("-I", fixture->root, NULL);
  const char *options[] = { include, NULL };
  g_autoptr(CugiProgram) first = new_kernel_program (kernel_source);
  g_autoptr(CugiProgram) second = new_kernel_program (kernel_source);
  g_autoptr(GPtrArray) names = NULL;

  g_assert_cmpint (compile_for_sm90 (first, options), ==, CUGI_PROGRAM_CACHE_MISS);
  g_assert_cmpint (compile_for_sm90 (second, options), ==, CUGI_PROGRAM_CACHE_MISS);
  names = list_dir (fixture->cache_dir);
  g_assert_cmpuint (names->len, ==, 0);
}

/* Only 1, true and yes turn the cache off; anything else leaves it on, with
 * one warning for a value that is none of the known ones. */
static void
test_disable_setting (void)
{
  const char *off[] = { "1", "true", "yes", "TRUE", "Yes" };
  const char *on[] = { "", "0", "false", "no", "FALSE", "No" };

  for (gsize i = 0; i < G_N_ELEMENTS (off); i++)
    {
      g_setenv ("CUGI_DISABLE_CACHE", off[i], TRUE);
      g_assert_false (cugi_program_cache_is_enabled ());
    }
  for (gsize i = 0; i < G_N_ELEMENTS (on); i++)
    {
      g_setenv ("CUGI_DISABLE_CACHE", on[i], TRUE);
      g_assert_true (cugi_program_cache_is_enabled ());
    }

  g_setenv ("CUGI_DISABLE_CACHE", "maybe", TRUE);
  g_test_expect_message ("Cugi", G_LOG_LEVEL_WARNING, "*CUGI_DISABLE_CACHE*maybe*stays on*");
  g_assert_true (cugi_program_cache_is_enabled ());
  g_test_assert_expected_messages ();
  /* Once: a second warning would be fatal. */
  g_assert_true (cugi_program_cache_is_enabled ());
  g_unsetenv ("CUGI_DISABLE_CACHE");
}

static void
test_max_size_setting (void)
{
  g_unsetenv ("CUGI_CACHE_MAX_SIZE");
  g_assert_cmpuint (cugi_program_cache_get_max_size (), ==, CUGI_PROGRAM_CACHE_DEFAULT_MAX_SIZE);
  g_setenv ("CUGI_CACHE_MAX_SIZE", "4096", TRUE);
  g_assert_cmpuint (cugi_program_cache_get_max_size (), ==, 4096);

  /* Not silently ignored: one warning naming the variable and the value. */
  g_setenv ("CUGI_CACHE_MAX_SIZE", "lots", TRUE);
  g_test_expect_message ("Cugi", G_LOG_LEVEL_WARNING, "*CUGI_CACHE_MAX_SIZE*lots*268435456 bytes*");
  g_assert_cmpuint (cugi_program_cache_get_max_size (), ==, CUGI_PROGRAM_CACHE_DEFAULT_MAX_SIZE);
  g_test_assert_expected_messages ();
  g_assert_cmpuint (cugi_program_cache_get_max_size (), ==, CUGI_PROGRAM_CACHE_DEFAULT_MAX_SIZE);

  g_setenv ("CUGI_CACHE_MAX_SIZE", "-1", TRUE);
  g_test_expect_message ("Cugi", G_LOG_LEVEL_WARNING, "*CUGI_CACHE_MAX_SIZE*-1*");
  g_assert_cmpuint (cugi_program_cache_get_max_size (), ==, CUGI_PROGRAM_CACHE_DEFAULT_MAX_SIZE);
  g_test_assert_expected_messages ();
  g_unsetenv ("CUGI_CACHE_MAX_SIZE");
}

#define SYNTHETIC_LOG_SIZE 1000
#define SYNTHETIC_ENTRY_SIZE (152 + SYNTHETIC_LOG_SIZE)

/* Stores a result with a log of @log_size bytes and no code, without NVRTC. */
static char *
store_synthetic (const char *label,
                 gsize       log_size)
{
  CugiProgramCacheKeyInputs inputs = { .source = label, .target = "", .nvrtc_identity = "an NVRTC" };
  char *key = cugi_program_cache_compute_key (&inputs);
  g_autofree char *log = g_strnfill (log_size, 'x');
  g_autoptr(CugiProgramResult) result = cugi_program_result_new (log, NULL, NULL, NULL);

  cugi_program_cache_store (key, result);
  return key;
}

static gboolean
entry_exists (Fixture    *fixture,
              const char *key)
{
  g_autofree char *path = cugi_program_cache_get_entry_path (fixture->cache_dir, key);
  GStatBuf info;

  if (g_stat (path, &info) != 0)
    return FALSE;
  g_assert_cmpint (info.st_size, >=, SYNTHETIC_ENTRY_SIZE);
  return TRUE;
}

static void
test_eviction (Fixture       *fixture,
               gconstpointer  data)
{
  g_autofree char *max_size = g_strdup_printf ("%d", 2 * SYNTHETIC_ENTRY_SIZE + SYNTHETIC_ENTRY_SIZE / 2);
  g_autofree char *a = NULL, *b = NULL, *c = NULL, *d = NULL, *huge = NULL;
  g_autofree char *stale = NULL, *fresh = NULL;
  g_autoptr(CugiProgramResult) found = NULL;
  struct timespec two_hours_ago[2];
  CugiProgramCacheHit hit;

  g_setenv ("CUGI_CACHE_MAX_SIZE", max_size, TRUE);
  a = store_synthetic ("a", SYNTHETIC_LOG_SIZE);
  b = store_synthetic ("b", SYNTHETIC_LOG_SIZE);
  g_assert_true (entry_exists (fixture, a));
  g_assert_true (entry_exists (fixture, b));

  c = store_synthetic ("c", SYNTHETIC_LOG_SIZE);
  g_assert_false (entry_exists (fixture, a));
  g_assert_true (entry_exists (fixture, b));
  g_assert_true (entry_exists (fixture, c));

  /* A hit makes b the most recently used: c goes next. */
  cugi_program_cache_clear_memory ();
  found = cugi_program_cache_lookup (b, &hit);
  g_assert_nonnull (found);
  g_assert_cmpint (hit, ==, CUGI_PROGRAM_CACHE_HIT_DISK);
  g_assert_cmpuint (strlen (found->log), ==, SYNTHETIC_LOG_SIZE);
  d = store_synthetic ("d", SYNTHETIC_LOG_SIZE);
  g_assert_true (entry_exists (fixture, b));
  g_assert_false (entry_exists (fixture, c));
  g_assert_true (entry_exists (fixture, d));

  /* Bigger than the cap: not written, and nothing evicted for it. */
  huge = store_synthetic ("huge", 4 * SYNTHETIC_ENTRY_SIZE);
  g_assert_false (entry_exists (fixture, huge));
  g_assert_true (entry_exists (fixture, b));
  g_assert_true (entry_exists (fixture, d));

  /* A writer that died left a temporary file: removed once it is old. */
  stale = g_strconcat (fixture->cache_dir, "/", a, ".nvrtc.AB12CD", NULL);
  fresh = g_strconcat (fixture->cache_dir, "/", c, ".nvrtc.EF34GH", NULL);
  g_assert_true (g_file_set_contents (stale, "partial", -1, NULL));
  g_assert_true (g_file_set_contents (fresh, "partial", -1, NULL));
  clock_gettime (CLOCK_REALTIME, &two_hours_ago[0]);
  two_hours_ago[0].tv_sec -= 2 * 3600;
  two_hours_ago[1] = two_hours_ago[0];
  g_assert_cmpint (utimensat (AT_FDCWD, stale, two_hours_ago, 0), ==, 0);
  g_free (store_synthetic ("e", SYNTHETIC_LOG_SIZE));
  g_assert_false (g_file_test (stale, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (fresh, G_FILE_TEST_EXISTS));
}

/* A cap lowered below what the directory holds trims it on the next use,
 * even one that only reads. */
static void
test_lowered_cap (Fixture       *fixture,
                  gconstpointer  data)
{
  g_autofree char *max_size = g_strdup_printf ("%d", SYNTHETIC_ENTRY_SIZE + SYNTHETIC_ENTRY_SIZE / 2);
  g_autofree char *a = store_synthetic ("a", SYNTHETIC_LOG_SIZE);
  g_autofree char *b = store_synthetic ("b", SYNTHETIC_LOG_SIZE);
  g_autofree char *c = store_synthetic ("c", SYNTHETIC_LOG_SIZE);
  g_autoptr(CugiProgramResult) found = NULL;
  CugiProgramCacheHit hit;

  g_assert_true (entry_exists (fixture, a));
  g_assert_true (entry_exists (fixture, b));
  g_assert_true (entry_exists (fixture, c));

  g_setenv ("CUGI_CACHE_MAX_SIZE", max_size, TRUE);
  cugi_program_cache_clear_memory ();
  found = cugi_program_cache_lookup (c, &hit);
  g_assert_nonnull (found);
  g_assert_cmpint (hit, ==, CUGI_PROGRAM_CACHE_HIT_DISK);
  g_assert_false (entry_exists (fixture, a));
  g_assert_false (entry_exists (fixture, b));
  g_assert_true (entry_exists (fixture, c));
}

/* ---- files included from disk ---- */

#define INCLUDE_WORKER_ARGUMENT "--include-worker"

static void
write_header (const char *path,
              int         value)
{
  g_autofree char *text = g_strdup_printf ("#define VALUE %d\n", value);

  g_assert_true (g_file_set_contents (path, text, -1, NULL));
}

/* `__device__ int value = VALUE;` after including @include. */
static char *
value_source (const char *include)
{
  return g_strdup_printf ("#include %s\n__device__ int value = VALUE;\n", include);
}

/* The value the PTX of @program initialises `value` with. */
static int
compiled_value (CugiProgram *program)
{
  g_autoptr(GBytes) ptx = cugi_program_get_ptx (program);
  g_autofree char *text = g_strndup (g_bytes_get_data (ptx, NULL), g_bytes_get_size (ptx));
  const char *at = strstr (text, " value = ");

  g_assert_nonnull (at);
  return atoi (at + strlen (" value = "));
}

/* Compiles @source and gives the value, and where the result came from. */
static int
compile_value (const char         *source,
               const char * const *options,
               CugiProgramCacheHit *hit)
{
  g_autoptr(CugiProgram) program = cugi_program_new (source, "value.cu");

  *hit = compile_for_sm90 (program, options);
  return compiled_value (program);
}

/* Changing an included file compiles again, in memory and on disk; the
 * file unchanged, the cache still serves the result. */
static void
assert_follows_header (const char         *source,
                       const char         *header,
                       const char * const *options,
                       gboolean            cached)
{
  CugiProgramCacheHit hit;

  write_header (header, 1);
  g_assert_cmpint (compile_value (source, options, &hit), ==, 1);
  g_assert_cmpint (hit, ==, CUGI_PROGRAM_CACHE_MISS);
  g_assert_cmpint (compile_value (source, options, &hit), ==, 1);
  g_assert_cmpint (hit, ==, cached ? CUGI_PROGRAM_CACHE_HIT_MEMORY : CUGI_PROGRAM_CACHE_MISS);

  write_header (header, 2);
  g_assert_cmpint (compile_value (source, options, &hit), ==, 2);
  g_assert_cmpint (hit, ==, CUGI_PROGRAM_CACHE_MISS);

  write_header (header, 3);
  cugi_program_cache_clear_memory ();
  g_assert_cmpint (compile_value (source, options, &hit), ==, 3);
  g_assert_cmpint (hit, ==, CUGI_PROGRAM_CACHE_MISS);
  cugi_program_cache_clear_memory ();
  g_assert_cmpint (compile_value (source, options, &hit), ==, 3);
  g_assert_cmpint (hit, ==, cached ? CUGI_PROGRAM_CACHE_HIT_DISK : CUGI_PROGRAM_CACHE_MISS);

  /* Back to an earlier content: its entry is valid again. */
  write_header (header, 1);
  g_assert_cmpint (compile_value (source, options, &hit), ==, 1);
  g_assert_cmpint (hit, ==, cached ? CUGI_PROGRAM_CACHE_HIT_DISK : CUGI_PROGRAM_CACHE_MISS);
}

static void
test_include_absolute (Fixture       *fixture,
                       gconstpointer  data)
{
  g_autofree char *header = g_build_filename (fixture->root, "absolute.h", NULL);
  g_autofree char *quoted = g_strdup_printf ("\"%s\"", header);
  g_autofree char *source = value_source (quoted);

  assert_follows_header (source, header, NULL, TRUE);
}

/* A file included by an included file, beside it. */
static void
test_include_nested (Fixture       *fixture,
                     gconstpointer  data)
{
  g_autofree char *dir = g_build_filename (fixture->root, "nested", NULL);
  g_autofree char *outer = g_build_filename (dir, "outer.h", NULL);
  g_autofree char *inner = g_build_filename (dir, "inner.h", NULL);
  g_autofree char *quoted = g_strdup_printf ("\"%s\"", outer);
  g_autofree char *source = value_source (quoted);

  g_assert_cmpint (g_mkdir (dir, 0700), ==, 0);
  g_assert_true (g_file_set_contents (outer, "#include \"inner.h\"\n", -1, NULL));
  assert_follows_header (source, inner, NULL, TRUE);
}

/* "inc.h" is looked for in the working directory: two directories, two
 * results. */
static void
test_include_relative (Fixture       *fixture,
                       gconstpointer  data)
{
  g_autofree char *saved_cwd = g_get_current_dir ();
  g_autofree char *first = g_build_filename (fixture->root, "first", NULL);
  g_autofree char *second = g_build_filename (fixture->root, "second", NULL);
  g_autofree char *first_header = g_build_filename (first, "inc.h", NULL);
  g_autofree char *second_header = g_build_filename (second, "inc.h", NULL);
  g_autofree char *source = value_source ("\"inc.h\"");
  CugiProgramCacheHit hit;

  g_assert_cmpint (g_mkdir (first, 0700), ==, 0);
  g_assert_cmpint (g_mkdir (second, 0700), ==, 0);
  write_header (second_header, 20);

  g_assert_cmpint (g_chdir (first), ==, 0);
  assert_follows_header (source, first_header, NULL, TRUE);

  g_assert_cmpint (g_chdir (second), ==, 0);
  g_assert_cmpint (compile_value (source, NULL, &hit), ==, 20);
  g_assert_cmpint (hit, ==, CUGI_PROGRAM_CACHE_MISS);
  g_assert_cmpint (g_chdir (first), ==, 0);
  g_assert_cmpint (compile_value (source, NULL, &hit), ==, 1);
  g_assert_cmpint (hit, ==, CUGI_PROGRAM_CACHE_HIT_MEMORY);
  g_assert_cmpint (g_chdir (saved_cwd), ==, 0);
}

static void
test_include_directory (Fixture       *fixture,
                        gconstpointer  data)
{
  g_autofree char *option = g_strconcat ("-I", fixture->root, NULL);
  const char *options[] = { option, NULL };
  g_autofree char *header = g_build_filename (fixture->root, "from-dir.h", NULL);
  g_autofree char *source = value_source ("\"from-dir.h\"");

  assert_follows_header (source, header, options, FALSE);
}

/* `#include MACRO` names a file only the preprocessor knows: not cached. */
static void
test_include_macro (Fixture       *fixture,
                    gconstpointer  data)
{
  g_autofree char *header = g_build_filename (fixture->root, "macro.h", NULL);
  g_autofree char *source = g_strdup_printf ("#define HEADER \"%s\"\n#include HEADER\n"
                                             "__device__ int value = VALUE;\n", header);
  g_autoptr(GPtrArray) names = NULL;

  assert_follows_header (source, header, NULL, FALSE);
  names = list_dir (fixture->cache_dir);
  g_assert_cmpuint (names->len, ==, 0);
}

/* Compiles argv's source in a child of test_include_processes and prints
 * the value and where it came from. */
static int
run_include_worker (const char *source)
{
  CugiProgramCacheHit hit;
  int value = compile_value (source, NULL, &hit);

  g_print ("%d %d\n", value, hit);
  return 0;
}

static void
spawn_include_worker (const char *source,
                      int         expected_value,
                      int         expected_hit)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *self_path = g_file_read_link ("/proc/self/exe", &error);
  g_autoptr(GSubprocess) worker = NULL;
  g_autofree char *output = NULL;
  g_autofree char *expected = g_strdup_printf ("%d %d\n", expected_value, expected_hit);

  g_assert_no_error (error);
  worker = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error,
                             self_path, INCLUDE_WORKER_ARGUMENT, source, NULL);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8 (worker, NULL, NULL, &output, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_if_exited (worker));
  g_assert_cmpint (g_subprocess_get_exit_status (worker), ==, 0);
  g_assert_cmpstr (output, ==, expected);
}

/* Across processes, through the disk cache: relative to each one's working
 * directory. */
static void
test_include_processes (Fixture       *fixture,
                        gconstpointer  data)
{
  g_autofree char *saved_cwd = g_get_current_dir ();
  g_autofree char *header = g_build_filename (fixture->root, "inc.h", NULL);
  g_autofree char *source = value_source ("\"inc.h\"");

  g_assert_cmpint (g_chdir (fixture->root), ==, 0);
  write_header (header, 7);
  spawn_include_worker (source, 7, CUGI_PROGRAM_CACHE_MISS);
  spawn_include_worker (source, 7, CUGI_PROGRAM_CACHE_HIT_DISK);
  write_header (header, 8);
  spawn_include_worker (source, 8, CUGI_PROGRAM_CACHE_MISS);
  spawn_include_worker (source, 8, CUGI_PROGRAM_CACHE_HIT_DISK);
  g_assert_cmpint (g_chdir (saved_cwd), ==, 0);
}

/* Compiles in the child processes of test_concurrent_processes, all at once:
 * each writes the same entry, and reads it back while the others replace it. */
static int
run_compile_worker (void)
{
  g_autoptr(CugiProgram) program = new_kernel_program (kernel_source);
  g_autoptr(GBytes) cubin = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *key = NULL;
  char buffer[64];

  /* The parent closes our stdin to start every worker at once. */
  while (read (STDIN_FILENO, buffer, sizeof buffer) > 0)
    continue;

  if (!cugi_program_compile_for_arch (program, 9, 0, NULL, &error))
    {
      g_printerr ("worker %d: %s\n", (int) getpid (), error->message);
      return 1;
    }
  cubin = cugi_program_get_cubin (program);
  key = cugi_program_dup_cache_key_for_arch (program, 9, 0, NULL, &error);
  for (guint i = 0; i < 50; i++)
    {
      g_autoptr(CugiProgramResult) found = NULL;
      CugiProgramCacheHit hit;

      cugi_program_cache_clear_memory ();
      found = cugi_program_cache_lookup (key, &hit);
      if (found == NULL || hit != CUGI_PROGRAM_CACHE_HIT_DISK || !g_bytes_equal (found->cubin, cubin))
        {
          g_printerr ("worker %d: lookup %u missed while others wrote\n", (int) getpid (), i);
          return 2;
        }
    }
  return 0;
}

static void
test_concurrent_processes (Fixture       *fixture,
                           gconstpointer  data)
{
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDIN_PIPE);
  g_autoptr(GError) error = NULL;
  g_autofree char *self_path = g_file_read_link ("/proc/self/exe", &error);
  g_autoptr(CugiProgram) program = new_kernel_program (kernel_source);
  g_autofree char *path = entry_path_of (fixture, program);
  g_autofree char *entry_name = g_path_get_basename (path);
  g_autoptr(GPtrArray) names = NULL;
  GSubprocess *workers[N_WORKERS];

  g_assert_no_error (error);
  g_subprocess_launcher_setenv (launcher, "CUGI_CACHE_DIR", fixture->cache_dir, TRUE);
  for (guint i = 0; i < N_WORKERS; i++)
    {
      workers[i] = g_subprocess_launcher_spawn (launcher, &error, self_path, WORKER_ARGUMENT, NULL);
      g_assert_no_error (error);
    }
  for (guint i = 0; i < N_WORKERS; i++)
    {
      g_output_stream_close (g_subprocess_get_stdin_pipe (workers[i]), NULL, &error);
      g_assert_no_error (error);
    }
  for (guint i = 0; i < N_WORKERS; i++)
    {
      g_subprocess_wait_check (workers[i], NULL, &error);
      g_assert_no_error (error);
      g_object_unref (workers[i]);
    }

  /* One entry, no temporary file left, and it is valid. */
  names = list_compile_entries (fixture->cache_dir);
  g_assert_cmpuint (names->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (names, 0), ==, entry_name);
  g_assert_cmpint (compile_for_sm90 (program, NULL), ==, CUGI_PROGRAM_CACHE_HIT_DISK);
}

#define add_fixture_test(path, func, data) \
  g_test_add ((path), Fixture, (data), fixture_set_up, (func), fixture_tear_down)

/* ---- warm starts ----------------------------------------------------------- */

#define WARM_START_WORKER_ARGUMENT "--warm-start-worker"

/* The path of the first mapping of this process whose file name contains
 * @name, or NULL. */
static char *
find_mapped_file (const char *name)
{
  g_autofree char *maps = NULL;
  g_auto(GStrv) lines = NULL;

  g_assert_true (g_file_get_contents ("/proc/self/maps", &maps, NULL, NULL));
  lines = g_strsplit (maps, "\n", -1);
  for (gsize i = 0; lines[i] != NULL; i++)
    {
      const char *path = strchr (lines[i], '/');

      if (path != NULL && strstr (path, name) != NULL)
        return g_strdup (path);
    }
  return NULL;
}

/* Compiles the kernel in a fresh process, as test_warm_start's child, and
 * prints where the result came from and whether any of NVRTC is mapped. */
static int
run_warm_start_worker (void)
{
  g_autoptr(CugiProgram) program = new_kernel_program (kernel_source);
  g_autoptr(GError) error = NULL;
  g_autofree char *nvrtc = NULL;

  if (!cugi_program_compile_for_arch (program, 9, 0, NULL, &error))
    {
      g_printerr ("warm-start worker: %s\n", error->message);
      return 1;
    }
  nvrtc = find_mapped_file ("libnvrtc");
  g_print ("%d %s\n", cugi_program_get_cache_hit (program), nvrtc != NULL ? "nvrtc-mapped" : "nvrtc-unmapped");
  return 0;
}

/* Runs run_warm_start_worker() in a fresh process, with @libnvrtc as
 * CUGI_LIBNVRTC unless it is NULL, and checks what it printed. */
static void
assert_warm_start_process (Fixture            *fixture,
                           const char         *libnvrtc,
                           CugiProgramCacheHit hit,
                           gboolean            nvrtc_mapped)
{
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE);
  g_autoptr(GSubprocess) worker = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *self_path = g_file_read_link ("/proc/self/exe", &error);
  g_autofree char *expected = g_strdup_printf ("%d %s", hit, nvrtc_mapped ? "nvrtc-mapped" : "nvrtc-unmapped");
  g_autofree char *output = NULL;

  g_assert_no_error (error);
  g_subprocess_launcher_setenv (launcher, "CUGI_CACHE_DIR", fixture->cache_dir, TRUE);
  if (libnvrtc != NULL)
    g_subprocess_launcher_setenv (launcher, "CUGI_LIBNVRTC", libnvrtc, TRUE);
  worker = g_subprocess_launcher_spawn (launcher, &error, self_path, WARM_START_WORKER_ARGUMENT, NULL);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8 (worker, NULL, NULL, &output, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_if_exited (worker));
  g_assert_cmpint (g_subprocess_get_exit_status (worker), ==, 0);
  g_assert_cmpstr (g_strchomp (output), ==, expected);
}

/* A cached compile in a fresh process leaves NVRTC unloaded; another NVRTC
 * file, with another name, misses the entries of the first. */
static void
test_warm_start (Fixture       *fixture,
                 gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *installed = NULL;
  g_autofree char *renamed = g_build_filename (fixture->root, "libnvrtc.so.99.9.1", NULL);

  g_assert_true (cugi_ensure_nvrtc (&error));
  g_assert_no_error (error);
  installed = find_mapped_file ("/libnvrtc.so");
  g_assert_nonnull (installed);

  assert_warm_start_process (fixture, NULL, CUGI_PROGRAM_CACHE_MISS, TRUE);
  assert_warm_start_process (fixture, NULL, CUGI_PROGRAM_CACHE_HIT_DISK, FALSE);

  /* A hard link where the file system allows one, a copy elsewhere. */
  if (link (installed, renamed) != 0)
    {
      g_autoptr(GFile) source = g_file_new_for_path (installed);
      g_autoptr(GFile) copy = g_file_new_for_path (renamed);

      g_assert_true (g_file_copy (source, copy, G_FILE_COPY_NONE, NULL, NULL, NULL, &error));
      g_assert_no_error (error);
    }
  assert_warm_start_process (fixture, renamed, CUGI_PROGRAM_CACHE_MISS, TRUE);
  assert_warm_start_process (fixture, renamed, CUGI_PROGRAM_CACHE_HIT_DISK, FALSE);
}

int
main (int argc, char **argv)
{
  const struct { const char *name; Corruption corruption; } corruptions[] = {
    { "flipped-payload-byte", CORRUPT_FLIP_PAYLOAD },
    { "flipped-magic", CORRUPT_FLIP_MAGIC },
    { "flipped-hash", CORRUPT_FLIP_HASH },
    { "flipped-length", CORRUPT_FLIP_LENGTH },
    { "truncated-half", CORRUPT_TRUNCATE_HALF },
    { "truncated-last-byte", CORRUPT_TRUNCATE_LAST_BYTE },
    { "garbage", CORRUPT_GARBAGE },
    { "empty", CORRUPT_EMPTY },
    { "other-key", CORRUPT_OTHER_KEY },
    { "sealed-ptx-with-nul", CORRUPT_SEALED_PTX_WITH_NUL },
    { "sealed-empty-cubin", CORRUPT_SEALED_EMPTY_CUBIN },
    { "fifo", CORRUPT_FIFO },
    { "link-to-dev-zero", CORRUPT_LINK_TO_DEV_ZERO },
    { "huge", CORRUPT_HUGE },
    { "huge-under-cap", CORRUPT_HUGE_UNDER_CAP },
    { "link-to-entry", CORRUPT_LINK_TO_ENTRY },
  };

  if (argc == 2 && strcmp (argv[1], WORKER_ARGUMENT) == 0)
    return run_compile_worker ();
  if (argc == 3 && strcmp (argv[1], INCLUDE_WORKER_ARGUMENT) == 0)
    return run_include_worker (argv[2]);
  if (argc == 2 && strcmp (argv[1], WARM_START_WORKER_ARGUMENT) == 0)
    return run_warm_start_worker ();

  cugi_test_init (&argc, &argv);
  add_fixture_test ("/program-cache/hit", test_hit, NULL);
  g_test_add_func ("/program-cache/key/inputs", test_key_inputs);
  add_fixture_test ("/program-cache/key/entries", test_key_entries, NULL);
  for (gsize i = 0; i < G_N_ELEMENTS (corruptions); i++)
    {
      g_autofree char *path = g_strconcat ("/program-cache/corrupt/", corruptions[i].name, NULL);

      add_fixture_test (path, test_corrupt_entry, GINT_TO_POINTER (corruptions[i].corruption));
    }
  add_fixture_test ("/program-cache/refused/writable-by-others", test_writable_by_others, NULL);
  add_fixture_test ("/program-cache/refused/other-owner", test_other_owner, NULL);
  add_fixture_test ("/program-cache/refused/not-a-directory", test_not_a_directory, NULL);
  add_fixture_test ("/program-cache/default-dir", test_default_dir, NULL);
  add_fixture_test ("/program-cache/disabled", test_disabled, NULL);
  add_fixture_test ("/program-cache/include-directories", test_include_directories_bypass, NULL);
  g_test_add_func ("/program-cache/disable-setting", test_disable_setting);
  g_test_add_func ("/program-cache/max-size-setting", test_max_size_setting);
  add_fixture_test ("/program-cache/lowered-cap", test_lowered_cap, NULL);
  add_fixture_test ("/program-cache/eviction", test_eviction, NULL);
  add_fixture_test ("/program-cache/concurrent-processes", test_concurrent_processes, NULL);
  add_fixture_test ("/program-cache/include/absolute", test_include_absolute, NULL);
  add_fixture_test ("/program-cache/include/nested", test_include_nested, NULL);
  add_fixture_test ("/program-cache/include/relative", test_include_relative, NULL);
  add_fixture_test ("/program-cache/include/directory", test_include_directory, NULL);
  add_fixture_test ("/program-cache/include/macro", test_include_macro, NULL);
  add_fixture_test ("/program-cache/include/processes", test_include_processes, NULL);
  add_fixture_test ("/program-cache/warm-start", test_warm_start, NULL);
  return g_test_run ();
}
