/* cugi-image-params.c: how many parameters each kernel of a module image has.
 *
 * The driver tells a parameter's size (cuFuncGetParamInfo) but not how many
 * parameters a kernel has: asking past the last one is an error, and every
 * such error shows up in a user's compute-sanitizer run. The image knows the
 * count: a PTX entry lists its .param directives, and a CUBIN's
 * .nv.info.<kernel> section holds one parameter-info attribute per parameter.
 * Both are read here, defensively (images come from users' files); a format
 * this does not know (a fatbinary, possibly compressed) gives no table and the
 * caller falls back to asking the driver.
 */
#include "config.h"

#include <string.h>

#include "cugi-private.h"
#include "cugi-program-private.h"

/* ---- CUBIN (ELF64, little-endian) ---------------------------------------- */

#define ELF_HEADER_SIZE      64
#define ELF_SECTION_SIZE     64
#define NV_INFO_PREFIX       ".nv.info."
/* Attribute formats and the one attribute counted. */
#define NV_INFO_FORMAT_SIZED 0x04  /* a 16-bit size, then that many bytes */
#define NV_INFO_KPARAM_INFO  0x17  /* index (32), ordinal (16), offset (16), flags (32) */
#define KPARAM_INFO_SIZE     12

static guint64
read_u64 (const guint8 *p)
{
  guint64 value = 0;

  for (int i = 7; i >= 0; i--)
    value = (value << 8) | p[i];
  return value;
}

static guint32
read_u32 (const guint8 *p)
{
  return (guint32) p[0] | (guint32) p[1] << 8 | (guint32) p[2] << 16 | (guint32) p[3] << 24;
}

static guint16
read_u16 (const guint8 *p)
{
  return (guint16) (p[0] | p[1] << 8);
}

/* Whether [offset, offset + length) lies inside an image of @size bytes. */
static gboolean
in_image (guint64 offset,
          guint64 length,
          gsize   size)
{
  return offset <= size && length <= size - offset;
}

/* The parameter count an .nv.info.<kernel> section tells, or -1 when its
 * attributes are malformed or their ordinals do not number 0..n-1. */
static gint
count_kernel_params (const guint8 *info,
                     gsize         size)
{
  g_autoptr(GArray) ordinals = g_array_new (FALSE, FALSE, sizeof (guint16));
  gsize position = 0;

  while (position < size)
    {
      guint8 format, attribute;
      gsize value_size = 0;

      if (size - position < 4)
        return -1;
      format = info[position];
      attribute = info[position + 1];
      if (format == NV_INFO_FORMAT_SIZED)
        {
          value_size = read_u16 (info + position + 2);
          if (value_size > size - position - 4)
            return -1;
          if (attribute == NV_INFO_KPARAM_INFO)
            {
              guint16 ordinal;

              if (value_size < KPARAM_INFO_SIZE)
                return -1;
              ordinal = read_u16 (info + position + 4 + 4);
              g_array_append_val (ordinals, ordinal);
            }
        }
      position += 4 + value_size;
    }

  /* Each ordinal once, and all of 0..n-1: anything else is not trusted. */
  {
    g_autofree gboolean *listed = g_new0 (gboolean, ordinals->len + 1);

    for (guint i = 0; i < ordinals->len; i++)
      {
        guint16 ordinal = g_array_index (ordinals, guint16, i);

        if (ordinal >= ordinals->len || listed[ordinal])
          return -1;
        listed[ordinal] = TRUE;
      }
  }
  return (gint) ordinals->len;
}

static gboolean
read_cubin (const guint8 *data,
            gsize         size,
            GHashTable   *counts)
{
  guint64 sections_offset;
  guint16 section_size, n_sections, names_index;
  const guint8 *names_header;
  guint64 names_offset, names_size;

  if (size < ELF_HEADER_SIZE || data[4] != 2 /* ELFCLASS64 */ || data[5] != 1 /* little-endian */)
    return FALSE;
  sections_offset = read_u64 (data + 0x28);
  section_size = read_u16 (data + 0x3a);
  n_sections = read_u16 (data + 0x3c);
  names_index = read_u16 (data + 0x3e);
  if (section_size < ELF_SECTION_SIZE || names_index >= n_sections ||
      !in_image (sections_offset, (guint64) section_size * n_sections, size))
    return FALSE;

  names_header = data + sections_offset + (gsize) names_index * section_size;
  names_offset = read_u64 (names_header + 24);
  names_size = read_u64 (names_header + 32);
  if (!in_image (names_offset, names_size, size))
    return FALSE;

  for (guint16 i = 0; i < n_sections; i++)
    {
      const guint8 *header = data + sections_offset + (gsize) i * section_size;
      guint32 name_offset = read_u32 (header);
      guint64 offset = read_u64 (header + 24);
      guint64 length = read_u64 (header + 32);
      const char *name, *name_end;
      gint count;

      if (name_offset >= names_size)
        continue;
      name = (const char *) data + names_offset + name_offset;
      name_end = memchr (name, '\0', names_size - name_offset);
      if (name_end == NULL || !g_str_has_prefix (name, NV_INFO_PREFIX) ||
          name_end == name + strlen (NV_INFO_PREFIX) || !in_image (offset, length, size))
        continue;
      count = count_kernel_params (data + offset, length);
      if (count >= 0)
        g_hash_table_insert (counts, g_strdup (name + strlen (NV_INFO_PREFIX)), GINT_TO_POINTER (count));
    }
  return TRUE;
}

/* ---- PTX ------------------------------------------------------------------ */

static gboolean
starts_comment (const char *p,
                const char *end)
{
  return end - p >= 2 && p[0] == '/' && (p[1] == '/' || p[1] == '*');
}

/* Skips blanks and comments from @p; never past @end. */
static const char *
skip_blanks (const char *p,
             const char *end)
{
  while (p < end)
    {
      if (g_ascii_isspace (*p))
        p++;
      else if (end - p >= 2 && p[0] == '/' && p[1] == '/')
        {
          const char *line_end = memchr (p, '\n', end - p);
          p = line_end != NULL ? line_end + 1 : end;
        }
      else if (end - p >= 2 && p[0] == '/' && p[1] == '*')
        {
          const char *comment_end = g_strstr_len (p + 2, end - p - 2, "*/");
          p = comment_end != NULL ? comment_end + 2 : end;
        }
      else
        break;
    }
  return p;
}

static gboolean
is_identifier_char (char c)
{
  return g_ascii_isalnum (c) || c == '_' || c == '$' || c == '%' || c == '.';
}

/* Counts the .param directives of the entry whose name starts at @p, and adds
 * the entry to @counts; returns where reading stopped. */
static const char *
read_ptx_entry (const char *p,
                const char *end,
                GHashTable *counts)
{
  const char *name = p;
  gint count = 0;
  gboolean expect_param = TRUE;

  while (p < end && is_identifier_char (*p))
    p++;
  if (p == name)
    return p;
  {
    g_autofree char *entry_name = g_strndup (name, p - name);

    p = skip_blanks (p, end);
    if (p == end || *p != '(')
      return p;  /* a declaration without a parameter list is not a kernel's */
    p++;
    for (;;)
      {
        p = skip_blanks (p, end);
        if (p == end)
          return p;
        if (*p == ')')
          break;
        if (*p == ',')
          {
            expect_param = TRUE;
            p++;
            continue;
          }
        if (expect_param && end - p >= 6 && memcmp (p, ".param", 6) == 0 &&
            (end - p == 6 || !is_identifier_char (p[6])))
          {
            count++;
            expect_param = FALSE;
          }
        /* The rest of a directive: types, alignment, the name, an array size. */
        while (p < end && *p != ',' && *p != ')' && !starts_comment (p, end))
          p++;
      }
    g_hash_table_insert (counts, g_steal_pointer (&entry_name), GINT_TO_POINTER (count));
  }
  return p + 1;
}

static gboolean
read_ptx (const char *text,
          gsize       size,
          GHashTable *counts)
{
  static const char entry[] = ".entry";
  const gsize entry_length = strlen (entry);
  const char *end = text + size;
  const char *p = text;

  /* PTX is text that declares its version before anything else. */
  if (g_strstr_len (text, MIN (size, 4096), ".version") == NULL)
    return FALSE;
  /* Comments and strings (a .file's path) may say ".entry" too. */
  while (p < end && *p != '\0')
    {
      if (starts_comment (p, end))
        p = skip_blanks (p, end);
      else if (*p == '"')
        {
          const char *closing = memchr (p + 1, '"', end - p - 1);
          p = closing != NULL ? closing + 1 : end;
        }
      else if ((gsize) (end - p) > entry_length && memcmp (p, entry, entry_length) == 0 &&
               (p == text || !is_identifier_char (p[-1])) && g_ascii_isspace (p[entry_length]))
        p = read_ptx_entry (skip_blanks (p + entry_length, end), end, counts);
      else
        p++;
    }
  return TRUE;
}

/**
 * cugi_image_read_param_counts:
 * @data: a module image
 * @size: its size in bytes
 *
 * Internal: reads how many parameters each kernel of a CUBIN or PTX image
 * has, for asking the driver about each one without asking past the last.
 *
 * Returns: (transfer full) (nullable): kernel symbol -> count (GINT_TO_POINTER),
 *   or %NULL for a format that is not read (a fatbinary); a kernel whose
 *   description is malformed is left out
 */
GHashTable *
cugi_image_read_param_counts (const guint8 *data,
                              gsize         size)
{
  g_autoptr(GHashTable) counts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  static const guint8 elf_magic[] = { 0x7f, 'E', 'L', 'F' };

  if (size >= 4 && memcmp (data, elf_magic, 4) == 0)
    return read_cubin (data, size, counts) ? g_steal_pointer (&counts) : NULL;
  return read_ptx ((const char *) data, size, counts) ? g_steal_pointer (&counts) : NULL;
}
