/* cugi-program-cache.c: NVRTC results kept on disk and in memory
 *
 * An entry file is a fixed header followed by the payload:
 *
 *   offset  size  field
 *        0     8  magic "CUGINVRT"
 *        8     4  format version (ENTRY_FORMAT_VERSION)
 *       12     4  header size (HEADER_SIZE)
 *       16    32  SHA-256 of every byte from offset 48 to the end
 *       48    64  the cache key (hex), so a misplaced entry is not used
 *      112     4  number of lowered names
 *      116     4  flags (ENTRY_HAS_PTX, ENTRY_HAS_CUBIN)
 *      120  4 x 8 lengths of the log, PTX, CUBIN and lowered names
 *      152        log, PTX, CUBIN, then "expression\0lowered\0" pairs
 *
 * Integers are little-endian. An entry whose hash, sizes or structure do not
 * check out is deleted and counts as a miss; the compile that follows
 * rewrites it. Writers put the whole file in a temporary file of the same
 * directory and rename it over the entry, so readers see either the old or
 * the new file, and two processes storing the same key at once both succeed.
 * Entries' modification times record their last use, to the nanosecond, and
 * eviction deletes the oldest first.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "cugi-program-cache.h"

/* ---- results -------------------------------------------------------------- */

static void
program_result_clear (CugiProgramResult *self)
{
  g_free (self->log);
  g_clear_pointer (&self->ptx, g_bytes_unref);
  g_clear_pointer (&self->cubin, g_bytes_unref);
  g_hash_table_unref (self->lowered_names);
}

/* @lowered_names is shared, not copied: callers must not change it after. */
CugiProgramResult *
cugi_program_result_new (const char *log,
                         GBytes     *ptx,
                         GBytes     *cubin,
                         GHashTable *lowered_names)
{
  CugiProgramResult *self = g_atomic_rc_box_new0 (CugiProgramResult);

  self->log = g_strdup (log != NULL ? log : "");
  self->ptx = ptx != NULL ? g_bytes_ref (ptx) : NULL;
  self->cubin = cubin != NULL ? g_bytes_ref (cubin) : NULL;
  self->lowered_names = lowered_names != NULL
    ? g_hash_table_ref (lowered_names)
    : g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  return self;
}

CugiProgramResult *
cugi_program_result_ref (CugiProgramResult *self)
{
  return g_atomic_rc_box_acquire (self);
}

void
cugi_program_result_unref (CugiProgramResult *self)
{
  g_atomic_rc_box_release_full (self, (GDestroyNotify) program_result_clear);
}

static gsize
program_result_size (CugiProgramResult *self)
{
  gsize size = strlen (self->log);
  GHashTableIter iter;
  gpointer expression, lowered;

  size += self->ptx != NULL ? g_bytes_get_size (self->ptx) : 0;
  size += self->cubin != NULL ? g_bytes_get_size (self->cubin) : 0;
  g_hash_table_iter_init (&iter, self->lowered_names);
  while (g_hash_table_iter_next (&iter, &expression, &lowered))
    size += strlen (expression) + strlen (lowered) + 2;
  return size;
}

/* ---- settings and the directory ------------------------------------------- */

/* Warns about a setting once per value: settings are read at every compile,
 * and one bad value should not flood the log. */
static void
warn_about_setting (const char *variable,
                    const char *value,
                    const char *consequence)
{
  static GMutex lock;
  static GHashTable *warned;  /* "VARIABLE=value" */
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&lock);
  char *setting = g_strconcat (variable, "=", value, NULL);

  if (warned == NULL)
    warned = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  if (g_hash_table_add (warned, setting))
    g_warning ("Ignoring %s=“%s”: %s", variable, value, consequence);
}

static gboolean
setting_is (const char         *value,
            const char * const *spellings)
{
  for (gsize i = 0; spellings[i] != NULL; i++)
    if (g_ascii_strcasecmp (value, spellings[i]) == 0)
      return TRUE;
  return FALSE;
}

gboolean
cugi_program_cache_is_enabled (void)
{
  static const char * const off[] = { "1", "true", "yes", NULL };
  static const char * const on[] = { "", "0", "false", "no", NULL };
  const char *disable = g_getenv ("CUGI_DISABLE_CACHE");

  if (disable == NULL || setting_is (disable, on))
    return TRUE;
  if (setting_is (disable, off))
    return FALSE;
  warn_about_setting ("CUGI_DISABLE_CACHE", disable,
                      "only 1, true or yes turn the kernel cache off; it stays on");
  return TRUE;
}

guint64
cugi_program_cache_get_max_size (void)
{
  const char *value = g_getenv ("CUGI_CACHE_MAX_SIZE");
  guint64 size;

  if (value == NULL || *value == '\0')
    return CUGI_PROGRAM_CACHE_DEFAULT_MAX_SIZE;
  if (!g_ascii_string_to_unsigned (value, 10, 0, G_MAXUINT64, &size, NULL))
    {
      g_autofree char *consequence =
        g_strdup_printf ("not a number of bytes; the kernel cache keeps its default cap of %llu bytes",
                         (unsigned long long) CUGI_PROGRAM_CACHE_DEFAULT_MAX_SIZE);

      warn_about_setting ("CUGI_CACHE_MAX_SIZE", value, consequence);
      return CUGI_PROGRAM_CACHE_DEFAULT_MAX_SIZE;
    }
  return size;
}

char *
cugi_program_cache_get_dir (GError **error)
{
  const char *configured = g_getenv ("CUGI_CACHE_DIR");
  g_autofree char *dir = NULL;
  GStatBuf info;

  if (configured != NULL && *configured != '\0')
    dir = g_strdup (configured);
  else
    dir = g_build_filename (g_get_user_cache_dir (), "cugi", NULL);

  if (g_mkdir_with_parents (dir, 0700) != 0 || g_stat (dir, &info) != 0)
    {
      int saved_errno = errno;

      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                   _("Cannot create the cache directory %s: %s"), dir, g_strerror (saved_errno));
      return NULL;
    }
  if (!S_ISDIR (info.st_mode))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOTDIR,
                   _("The cache directory %s is not a directory"), dir);
      return NULL;
    }
  /* Another user could plant entries that this process would load. */
  if (info.st_uid != geteuid ())
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_PERM,
                   _("The cache directory %s belongs to another user (uid %u, not %u)"),
                   dir, (guint) info.st_uid, (guint) geteuid ());
      return NULL;
    }
  if ((info.st_mode & (S_IWGRP | S_IWOTH)) != 0)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_PERM,
                   _("Other users may write to the cache directory %s (mode %03o)"),
                   dir, (guint) (info.st_mode & 0777));
      return NULL;
    }
  return g_steal_pointer (&dir);
}

#define ENTRY_SUFFIX ".nvrtc"

char *
cugi_program_cache_get_entry_path (const char *dir,
                                   const char *key)
{
  g_autofree char *name = g_strconcat (key, ENTRY_SUFFIX, NULL);

  return g_build_filename (dir, name, NULL);
}

/* ---- entry files ---------------------------------------------------------- */

#define ENTRY_MAGIC "CUGINVRT"
#define KEY_LENGTH 64  /* hex digits of a SHA-256 */
#define ENTRY_FORMAT_VERSION 1

enum
{
  OFFSET_MAGIC = 0,
  OFFSET_VERSION = 8,
  OFFSET_HEADER_SIZE = 12,
  OFFSET_CONTENT_HASH = 16,
  OFFSET_KEY = 48,
  OFFSET_N_NAMES = 112,
  OFFSET_FLAGS = 116,
  OFFSET_LENGTHS = 120,
  HEADER_SIZE = 152,
};

enum
{
  ENTRY_HAS_PTX = 1 << 0,
  ENTRY_HAS_CUBIN = 1 << 1,
};

enum
{
  PART_LOG,
  PART_PTX,
  PART_CUBIN,
  PART_NAMES,
  N_PARTS
};

#define SHA256_SIZE 32

static void
put_u32 (guint8  *at,
         guint32  value)
{
  value = GUINT32_TO_LE (value);
  memcpy (at, &value, sizeof value);
}

static void
put_u64 (guint8  *at,
         guint64  value)
{
  value = GUINT64_TO_LE (value);
  memcpy (at, &value, sizeof value);
}

static guint32
get_u32 (const guint8 *at)
{
  guint32 value;

  memcpy (&value, at, sizeof value);
  return GUINT32_FROM_LE (value);
}

static guint64
get_u64 (const guint8 *at)
{
  guint64 value;

  memcpy (&value, at, sizeof value);
  return GUINT64_FROM_LE (value);
}

static void
sha256 (const guint8 *data,
        gsize         length,
        guint8        digest[SHA256_SIZE])
{
  g_autoptr(GChecksum) checksum = g_checksum_new (G_CHECKSUM_SHA256);
  gsize digest_length = SHA256_SIZE;

  g_checksum_update (checksum, data, length);
  g_checksum_get_digest (checksum, digest, &digest_length);
}

static int
compare_strings_indirect (gconstpointer a,
                          gconstpointer b,
                          gpointer      user_data)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/* "expression\0lowered\0" pairs, sorted so that every writer of one key
 * writes the same bytes. */
static GByteArray *
serialize_lowered_names (GHashTable *lowered_names,
                         guint      *n_names)
{
  g_autofree gpointer *expressions = g_hash_table_get_keys_as_array (lowered_names, n_names);
  GByteArray *out = g_byte_array_new ();

  g_qsort_with_data (expressions, *n_names, sizeof (gpointer), compare_strings_indirect, NULL);
  for (guint i = 0; i < *n_names; i++)
    {
      const char *lowered = g_hash_table_lookup (lowered_names, expressions[i]);

      g_byte_array_append (out, expressions[i], strlen (expressions[i]) + 1);
      g_byte_array_append (out, (const guint8 *) lowered, strlen (lowered) + 1);
    }
  return out;
}

static GBytes *
serialize_entry (const char        *key,
                 CugiProgramResult *result)
{
  guint n_names = 0;
  g_autoptr(GByteArray) names = serialize_lowered_names (result->lowered_names, &n_names);
  GByteArray *out = g_byte_array_sized_new (HEADER_SIZE);
  const guint8 *parts[N_PARTS] = { NULL };
  gsize lengths[N_PARTS] = { 0 };
  guint8 header[HEADER_SIZE] = { 0 };
  guint32 flags = 0;

  parts[PART_LOG] = (const guint8 *) result->log;
  lengths[PART_LOG] = strlen (result->log);
  if (result->ptx != NULL)
    {
      parts[PART_PTX] = g_bytes_get_data (result->ptx, &lengths[PART_PTX]);
      flags |= ENTRY_HAS_PTX;
    }
  if (result->cubin != NULL)
    {
      parts[PART_CUBIN] = g_bytes_get_data (result->cubin, &lengths[PART_CUBIN]);
      flags |= ENTRY_HAS_CUBIN;
    }
  parts[PART_NAMES] = names->data;
  lengths[PART_NAMES] = names->len;

  memcpy (header + OFFSET_MAGIC, ENTRY_MAGIC, strlen (ENTRY_MAGIC));
  put_u32 (header + OFFSET_VERSION, ENTRY_FORMAT_VERSION);
  put_u32 (header + OFFSET_HEADER_SIZE, HEADER_SIZE);
  memcpy (header + OFFSET_KEY, key, KEY_LENGTH);
  put_u32 (header + OFFSET_N_NAMES, n_names);
  put_u32 (header + OFFSET_FLAGS, flags);
  for (guint i = 0; i < N_PARTS; i++)
    put_u64 (header + OFFSET_LENGTHS + 8 * i, lengths[i]);

  g_byte_array_append (out, header, HEADER_SIZE);
  for (guint i = 0; i < N_PARTS; i++)
    if (lengths[i] > 0)
      g_byte_array_append (out, parts[i], lengths[i]);
  sha256 (out->data + OFFSET_KEY, out->len - OFFSET_KEY, out->data + OFFSET_CONTENT_HASH);
  return g_byte_array_free_to_bytes (out);
}

static GHashTable *
parse_lowered_names (const char  *data,
                     gsize        length,
                     guint32      n_names,
                     const char **reason)
{
  g_autoptr(GHashTable) lowered_names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  const char *end = data + length;
  const char *at = data;

  for (guint32 i = 0; i < n_names; i++)
    {
      const char *expression = at;
      const char *expression_end = memchr (expression, '\0', end - expression);
      const char *lowered = expression_end != NULL ? expression_end + 1 : end;
      const char *lowered_end = lowered < end ? memchr (lowered, '\0', end - lowered) : NULL;

      if (lowered_end == NULL)
        {
          *reason = "its lowered names are cut short";
          return NULL;
        }
      g_hash_table_insert (lowered_names, g_strdup (expression), g_strdup (lowered));
      at = lowered_end + 1;
    }
  if (at != end)
    {
      *reason = "its lowered names have trailing bytes";
      return NULL;
    }
  return g_steal_pointer (&lowered_names);
}

/* Whether @header, the first HEADER_SIZE bytes of an entry file of @size
 * bytes, can be @key's entry, else the @reason why not. Checked before the
 * rest of the file is read, so that junk costs the read of one header. */
static gboolean
check_header (const guint8  header[HEADER_SIZE],
              guint64       size,
              const char   *key,
              const char  **reason)
{
  guint64 payload = 0;

  if (size < HEADER_SIZE)
    {
      *reason = "it is shorter than its header";
      return FALSE;
    }
  if (memcmp (header + OFFSET_MAGIC, ENTRY_MAGIC, strlen (ENTRY_MAGIC)) != 0)
    {
      *reason = "it is not a cugi cache entry";
      return FALSE;
    }
  if (get_u32 (header + OFFSET_VERSION) != ENTRY_FORMAT_VERSION ||
      get_u32 (header + OFFSET_HEADER_SIZE) != HEADER_SIZE)
    {
      *reason = "it has another format version";
      return FALSE;
    }
  if (memcmp (header + OFFSET_KEY, key, KEY_LENGTH) != 0)
    {
      *reason = "it holds another key";
      return FALSE;
    }
  for (guint i = 0; i < N_PARTS; i++)
    {
      guint64 length = get_u64 (header + OFFSET_LENGTHS + 8 * i);

      if (length > size - HEADER_SIZE - payload)
        {
          *reason = "its lengths exceed its size";
          return FALSE;
        }
      payload += length;
    }
  if (HEADER_SIZE + payload != size)
    {
      *reason = "its lengths do not add up to its size";
      return FALSE;
    }
  return TRUE;
}

/* Whether a part is there exactly when its @flag says so. Never empty: a
 * compile gives NULL, not an empty PTX or CUBIN (cugi-private.h), so an
 * empty one would stand in for a missing one (a module loads the CUBIN
 * rather than the PTX when there is one). */
static gboolean
part_is_consistent (guint32 flags,
                    guint32 flag,
                    guint64 length)
{
  return ((flags & flag) != 0) == (length != 0);
}

/* Nothing is read before the content hash and every length check out, and
 * only what a compile gives is taken: parts as above, PTX without its NUL,
 * a log without one. */
CugiProgramResult *
cugi_program_cache_parse_entry (GBytes      *contents,
                                const char  *key,
                                const char **reason)
{
  gsize size = 0;
  const guint8 *data = g_bytes_get_data (contents, &size);
  guint8 digest[SHA256_SIZE];
  gsize offsets[N_PARTS];
  gsize lengths[N_PARTS];
  gsize offset = HEADER_SIZE;
  guint32 flags;
  g_autoptr(GHashTable) lowered_names = NULL;
  g_autofree char *log = NULL;
  g_autoptr(GBytes) ptx = NULL;
  g_autoptr(GBytes) cubin = NULL;

  if (!check_header (data, size, key, reason))
    return NULL;
  sha256 (data + OFFSET_KEY, size - OFFSET_KEY, digest);
  if (memcmp (digest, data + OFFSET_CONTENT_HASH, SHA256_SIZE) != 0)
    {
      *reason = "its content does not match its hash";
      return NULL;
    }
  for (guint i = 0; i < N_PARTS; i++)
    {
      offsets[i] = offset;
      lengths[i] = get_u64 (data + OFFSET_LENGTHS + 8 * i);
      offset += lengths[i];
    }
  flags = get_u32 (data + OFFSET_FLAGS);
  if (!part_is_consistent (flags, ENTRY_HAS_PTX, lengths[PART_PTX]) ||
      !part_is_consistent (flags, ENTRY_HAS_CUBIN, lengths[PART_CUBIN]) ||
      (lengths[PART_PTX] != 0 && data[offsets[PART_PTX] + lengths[PART_PTX] - 1] == '\0') ||
      memchr (data + offsets[PART_LOG], '\0', lengths[PART_LOG]) != NULL)
    {
      *reason = "its parts are inconsistent";
      return NULL;
    }
  lowered_names = parse_lowered_names ((const char *) data + offsets[PART_NAMES], lengths[PART_NAMES],
                                       get_u32 (data + OFFSET_N_NAMES), reason);
  if (lowered_names == NULL)
    return NULL;

  log = g_strndup ((const char *) data + offsets[PART_LOG], lengths[PART_LOG]);
  if ((flags & ENTRY_HAS_PTX) != 0)
    ptx = g_bytes_new_from_bytes (contents, offsets[PART_PTX], lengths[PART_PTX]);
  if ((flags & ENTRY_HAS_CUBIN) != 0)
    cubin = g_bytes_new_from_bytes (contents, offsets[PART_CUBIN], lengths[PART_CUBIN]);
  return cugi_program_result_new (log, ptx, cubin, lowered_names);
}

/* Marks @path as just used. The time is set explicitly, because the
 * kernel's own timestamps are coarse enough for two entries written in a row
 * to tie. */
static void
touch (const char *path)
{
  struct timespec now[2];

  clock_gettime (CLOCK_REALTIME, &now[0]);
  now[1] = now[0];
  if (utimensat (AT_FDCWD, path, now, AT_SYMLINK_NOFOLLOW) != 0)
    g_debug ("Cannot update the time of %s: %s", path, g_strerror (errno));
}

int
cugi_program_cache_open_regular_file (const char *path,
                                      gboolean    follow_links,
                                      GStatBuf   *info,
                                      GError    **error)
{
  int fd = g_open (path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (follow_links ? 0 : O_NOFOLLOW), 0);
  int saved_errno = errno;

  if (fd < 0 || fstat (fd, info) != 0)
    {
      saved_errno = errno;
      if (fd >= 0)
        g_close (fd, NULL);
      /* O_NOFOLLOW fails on a symbolic link with ELOOP. */
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                   _("Cannot open %s: %s"), path,
                   saved_errno == ELOOP && !follow_links ? _("it is a symbolic link") : g_strerror (saved_errno));
      return -1;
    }
  if (!S_ISREG (info->st_mode))
    {
      g_close (fd, NULL);
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                   _("Cannot read %s: it is not a regular file"), path);
      return -1;
    }
  return fd;
}

gboolean
cugi_program_cache_read_exactly (int          fd,
                                 guint8      *data,
                                 gsize        length,
                                 const char  *path,
                                 GError     **error)
{
  while (length > 0)
    {
      gssize n = read (fd, data, MIN (length, G_MAXSSIZE));

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          int saved_errno = n < 0 ? errno : 0;

          g_set_error (error, G_FILE_ERROR, n < 0 ? g_file_error_from_errno (saved_errno) : G_FILE_ERROR_IO,
                       _("Cannot read %s: %s"), path,
                       n < 0 ? g_strerror (saved_errno) : _("it became shorter while being read"));
          return FALSE;
        }
      data += n;
      length -= n;
    }
  return TRUE;
}

/* Never loaded; the compile that follows writes a good entry in its place.
 * Unlinking removes the directory entry only: a symbolic link goes, not what
 * it points to. */
static void
discard_entry (const char *path,
               const char *reason)
{
  g_debug ("Deleting cache entry %s: %s", path, reason);
  if (g_unlink (path) != 0 && errno != ENOENT)
    g_debug ("Cannot delete %s: %s", path, g_strerror (errno));
}

/* @key's entry at @path, or NULL. Only a regular file is read, and only when
 * it fits in @max_size and its header checks out, so a FIFO, a link to a
 * device or a huge file planted there costs nothing but its removal. */
static CugiProgramResult *
read_entry (const char *path,
            const char *key,
            guint64     max_size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) contents = NULL;
  guint8 header[HEADER_SIZE] = { 0 };
  const char *reason = NULL;
  CugiProgramResult *result = NULL;
  GStatBuf info;
  guint64 size;
  int fd;

  fd = cugi_program_cache_open_regular_file (path, FALSE, &info, &error);
  if (fd < 0)
    {
      if (!g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        discard_entry (path, error->message);
      return NULL;
    }
  size = (guint64) info.st_size;
  if (size > max_size)
    reason = "it is larger than CUGI_CACHE_MAX_SIZE";
  else if (!cugi_program_cache_read_exactly (fd, header, MIN (size, HEADER_SIZE), path, &error))
    reason = error->message;
  else if (check_header (header, size, key, &reason))
    {
      guint8 *data = g_malloc (size);

      memcpy (data, header, HEADER_SIZE);
      contents = g_bytes_new_take (data, size);
      if (!cugi_program_cache_read_exactly (fd, data + HEADER_SIZE, size - HEADER_SIZE, path, &error))
        reason = error->message;
      else
        result = cugi_program_cache_parse_entry (contents, key, &reason);
    }
  g_close (fd, NULL);
  if (result == NULL)
    {
      discard_entry (path, reason);
      return NULL;
    }
  touch (path);
  return result;
}

/* ---- eviction ------------------------------------------------------------- */

/* A temporary file older than this was left by a writer that died. */
#define STALE_TEMPORARY_AGE_US (G_TIME_SPAN_HOUR)

typedef struct
{
  char   *name;
  gint64  used_ns;
  guint64 size;
} DiskEntry;

static void
disk_entry_clear (gpointer data)
{
  g_free (((DiskEntry *) data)->name);
}

static int
compare_least_recently_used (gconstpointer a,
                             gconstpointer b)
{
  const DiskEntry *first = a, *second = b;

  return (first->used_ns > second->used_ns) - (first->used_ns < second->used_ns);
}

static gboolean
has_key_prefix (const char *name)
{
  for (guint i = 0; i < KEY_LENGTH; i++)
    if (!g_ascii_isxdigit (name[i]))
      return FALSE;
  return TRUE;
}

/* Deletes the least recently used entries of @dir while they add up to more
 * than @max_size, sparing @kept_name (the entry just written) unless it is
 * NULL. */
static void
evict (const char *dir,
       const char *kept_name,
       guint64     max_size)
{
  g_autoptr(GDir) listing = g_dir_open (dir, 0, NULL);
  g_autoptr(GArray) entries = g_array_new (FALSE, FALSE, sizeof (DiskEntry));
  gint64 now_us = g_get_real_time ();
  guint64 total = 0;
  const char *name;

  if (listing == NULL)
    return;
  g_array_set_clear_func (entries, disk_entry_clear);
  while ((name = g_dir_read_name (listing)) != NULL)
    {
      g_autofree char *path = NULL;
      const char *suffix = name + KEY_LENGTH;
      GStatBuf info;
      gint64 used_ns;

      if (strlen (name) < KEY_LENGTH || !has_key_prefix (name) || !g_str_has_prefix (suffix, ENTRY_SUFFIX))
        continue;
      path = g_build_filename (dir, name, NULL);
      if (g_lstat (path, &info) != 0 || !S_ISREG (info.st_mode))
        continue;
      used_ns = (gint64) info.st_mtim.tv_sec * G_GINT64_CONSTANT (1000000000) + info.st_mtim.tv_nsec;
      if (strcmp (suffix, ENTRY_SUFFIX) == 0)
        {
          DiskEntry entry = { g_strdup (name), used_ns, (guint64) info.st_size };

          g_array_append_val (entries, entry);
          total += entry.size;
        }
      else if (now_us - used_ns / 1000 > STALE_TEMPORARY_AGE_US)
        {
          g_debug ("Deleting stale temporary file %s", path);
          g_unlink (path);
        }
    }
  if (total <= max_size)
    return;

  g_array_sort (entries, compare_least_recently_used);
  for (guint i = 0; i < entries->len && total > max_size; i++)
    {
      const DiskEntry *entry = &g_array_index (entries, DiskEntry, i);
      g_autofree char *path = NULL;

      if (g_strcmp0 (entry->name, kept_name) == 0)
        continue;
      path = g_build_filename (dir, entry->name, NULL);
      /* Gone already: another process evicted it. */
      if (g_unlink (path) == 0 || errno == ENOENT)
        total -= entry->size;
    }
}

/* ---- the in-memory layer -------------------------------------------------- */

/* Results this process compiled or read, so that one source is compiled
 * once per process; bounded, least recently used dropped first. */
#define MEMORY_CACHE_MAX_SIZE (64 * 1024 * 1024)

typedef struct
{
  char              *key;
  CugiProgramResult *result;
  gsize              size;
} MemoryEntry;

static GMutex memory_lock;
static GHashTable *memory_index;               /* key -> GList link in memory_order */
static GQueue memory_order = G_QUEUE_INIT;     /* of MemoryEntry, most recent first */
static gsize memory_size;

static void
memory_entry_free (MemoryEntry *entry)
{
  g_free (entry->key);
  cugi_program_result_unref (entry->result);
  g_free (entry);
}

/* With memory_lock held. */
static void
memory_remove_link (GList *link)
{
  MemoryEntry *entry = link->data;

  g_hash_table_remove (memory_index, entry->key);
  g_queue_delete_link (&memory_order, link);
  memory_size -= entry->size;
  memory_entry_free (entry);
}

static CugiProgramResult *
memory_lookup (const char *key)
{
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&memory_lock);
  GList *link = memory_index != NULL ? g_hash_table_lookup (memory_index, key) : NULL;

  if (link == NULL)
    return NULL;
  g_queue_unlink (&memory_order, link);
  g_queue_push_head_link (&memory_order, link);
  return cugi_program_result_ref (((MemoryEntry *) link->data)->result);
}

static void
memory_insert (const char        *key,
               CugiProgramResult *result)
{
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&memory_lock);
  MemoryEntry *entry;
  GList *existing;

  if (memory_index == NULL)
    memory_index = g_hash_table_new (g_str_hash, g_str_equal);
  existing = g_hash_table_lookup (memory_index, key);
  if (existing != NULL)
    memory_remove_link (existing);

  entry = g_new0 (MemoryEntry, 1);
  entry->key = g_strdup (key);
  entry->result = cugi_program_result_ref (result);
  entry->size = program_result_size (result) + strlen (key);
  if (entry->size > MEMORY_CACHE_MAX_SIZE)
    {
      memory_entry_free (entry);
      return;
    }
  g_queue_push_head (&memory_order, entry);
  g_hash_table_insert (memory_index, entry->key, memory_order.head);
  memory_size += entry->size;
  while (memory_size > MEMORY_CACHE_MAX_SIZE)
    memory_remove_link (memory_order.tail);
}

void
cugi_program_cache_clear_memory (void)
{
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&memory_lock);

  while (memory_order.tail != NULL)
    memory_remove_link (memory_order.tail);
}

/* ---- lookups and stores --------------------------------------------------- */

/* The disk cache's directory, trimmed to @max_size the first time this
 * process uses it with that cap: a cap lowered below what the directory
 * holds takes effect even in processes that only read from it. */
static char *
usable_dir (guint64 max_size)
{
  static GMutex lock;
  static char *trimmed;  /* "dir\ncap" of the last trim */
  g_autoptr(GError) error = NULL;
  char *dir = cugi_program_cache_get_dir (&error);
  g_autofree char *setting = NULL;

  if (dir == NULL)
    {
      g_debug ("Not using the disk cache: %s", error->message);
      return NULL;
    }
  setting = g_strdup_printf ("%s\n%llu", dir, (unsigned long long) max_size);
  g_mutex_lock (&lock);
  if (g_strcmp0 (trimmed, setting) != 0)
    {
      evict (dir, NULL, max_size);
      g_free (trimmed);
      trimmed = g_steal_pointer (&setting);
    }
  g_mutex_unlock (&lock);
  return dir;
}

CugiProgramResult *
cugi_program_cache_lookup (const char          *key,
                           CugiProgramCacheHit *hit)
{
  g_autofree char *dir = NULL;
  g_autofree char *path = NULL;
  CugiProgramResult *result;
  guint64 max_size;

  *hit = CUGI_PROGRAM_CACHE_MISS;
  if (!cugi_program_cache_is_enabled ())
    return NULL;

  result = memory_lookup (key);
  if (result != NULL)
    {
      *hit = CUGI_PROGRAM_CACHE_HIT_MEMORY;
      return result;
    }

  max_size = cugi_program_cache_get_max_size ();
  dir = usable_dir (max_size);
  if (dir == NULL)
    return NULL;
  path = cugi_program_cache_get_entry_path (dir, key);
  result = read_entry (path, key, max_size);
  if (result != NULL)
    {
      memory_insert (key, result);
      *hit = CUGI_PROGRAM_CACHE_HIT_DISK;
    }
  return result;
}

void
cugi_program_cache_store (const char        *key,
                          CugiProgramResult *result)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) contents = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *path = NULL;
  g_autofree char *name = NULL;
  guint64 max_size;

  if (!cugi_program_cache_is_enabled ())
    return;
  memory_insert (key, result);

  max_size = cugi_program_cache_get_max_size ();
  dir = usable_dir (max_size);
  if (dir == NULL)
    return;
  contents = serialize_entry (key, result);
  if (g_bytes_get_size (contents) > max_size)
    {
      g_debug ("Not caching %s: its %" G_GSIZE_FORMAT " bytes exceed CUGI_CACHE_MAX_SIZE",
               key, g_bytes_get_size (contents));
      return;
    }
  path = cugi_program_cache_get_entry_path (dir, key);
  /* A temporary file in the same directory, renamed over the entry. */
  if (!g_file_set_contents_full (path, g_bytes_get_data (contents, NULL), g_bytes_get_size (contents),
                                 G_FILE_SET_CONTENTS_CONSISTENT, 0600, &error))
    {
      g_debug ("Cannot write cache entry: %s", error->message);
      return;
    }
  touch (path);
  name = g_path_get_basename (path);
  evict (dir, name, max_size);
}
