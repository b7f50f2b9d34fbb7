/* fuzz-cache-entry.c: any bytes as an entry file of the NVRTC disk cache,
 * read by the parser that lookups use: it is refused with a reason, or it
 * gives a result of the shape a compile gives (cugi-private.h), made of the
 * entry's own bytes.
 *
 * Each input is looked up under the key it holds (a lookup of that key
 * would read it), twice: as it is, and with its content hash made right
 * (its SHA-256 at offset 16 over the bytes from offset 48 on, as in the
 * format cugi-program-cache.c describes), so that the checks behind the hash
 * see mutated lengths, flags and names too. The corpus holds real entries,
 * written by the cache. */
#include "config.h"

#include <string.h>

#include "cugi-program-cache.h"

int LLVMFuzzerTestOneInput (const guint8 *data,
                            size_t        size);

#define CONTENT_HASH_OFFSET 16
#define KEY_OFFSET 48           /* where the hashed bytes start, too */
#define KEY_LENGTH 64
#define HEADER_SIZE 152

static void
check_part (GBytes  *part,
            gsize   *total,
            gboolean is_text)
{
  gsize size = 0;
  const guint8 *bytes;

  if (part == NULL)
    return;
  bytes = g_bytes_get_data (part, &size);
  /* A compile gives NULL rather than an empty part, and PTX without its NUL. */
  g_assert_cmpuint (size, >, 0);
  if (is_text)
    g_assert_cmpint (bytes[size - 1], !=, '\0');
  *total += size;
}

static void
read_entry (const guint8 *data,
            gsize         size)
{
  g_autoptr(GBytes) contents = g_bytes_new (data, size);
  /* Shorter inputs hold no key; any will do. */
  g_autofree char *key = size >= KEY_OFFSET + KEY_LENGTH
    ? g_strndup ((const char *) data + KEY_OFFSET, KEY_LENGTH)
    : g_strnfill (KEY_LENGTH, '0');
  const char *reason = NULL;
  g_autoptr(CugiProgramResult) result = cugi_program_cache_parse_entry (contents, key, &reason);
  GHashTableIter iter;
  gpointer expression, lowered;
  gsize total;

  if (result == NULL)
    {
      g_assert_nonnull (reason);
      g_assert_true (g_utf8_validate (reason, -1, NULL));
      return;
    }
  g_assert_cmpuint (size, >=, HEADER_SIZE);
  total = strlen (result->log);
  check_part (result->ptx, &total, TRUE);
  check_part (result->cubin, &total, FALSE);
  g_hash_table_iter_init (&iter, result->lowered_names);
  while (g_hash_table_iter_next (&iter, &expression, &lowered))
    total += strlen (expression) + strlen (lowered) + 2;
  /* Every byte of the result comes from the entry's payload. */
  g_assert_cmpuint (total, <=, size - HEADER_SIZE);
}

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        size_t        size)
{
  g_autofree guint8 *sealed = NULL;
  g_autoptr(GChecksum) checksum = NULL;
  gsize digest_size = 32;

  read_entry (data, size);
  if (size < KEY_OFFSET)
    return 0;
  sealed = g_memdup2 (data, size);
  checksum = g_checksum_new (G_CHECKSUM_SHA256);
  g_checksum_update (checksum, sealed + KEY_OFFSET, size - KEY_OFFSET);
  g_checksum_get_digest (checksum, sealed + CONTENT_HASH_OFFSET, &digest_size);
  read_entry (sealed, size);
  return 0;
}
