/* cugi-program-cache-key.c: the cache key of a compile, a hash of its
 * inputs and of every file from disk that its sources may include */
#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "cugi-program-cache.h"

/* ---- keys ----------------------------------------------------------------- */

/* Every field is preceded by its length, so "ab" + "c" and "a" + "bc" differ;
 * NULL has a length no string can have. */
static void
hash_bytes (GChecksum  *checksum,
            const void *data,
            guint64     length)
{
  guint64 framed = GUINT64_TO_LE (length);

  g_checksum_update (checksum, (const guchar *) &framed, sizeof framed);
  if (data != NULL)
    g_checksum_update (checksum, data, length);
}

static void
hash_string (GChecksum  *checksum,
             const char *string)
{
  if (string == NULL)
    hash_bytes (checksum, NULL, G_MAXUINT64);
  else
    hash_bytes (checksum, string, strlen (string));
}

static void
hash_count (GChecksum *checksum,
            guint64    count)
{
  hash_bytes (checksum, NULL, count);
}

static void
hash_strv (GChecksum          *checksum,
           const char * const *strv)
{
  guint64 count = strv != NULL ? g_strv_length ((char **) strv) : 0;

  hash_count (checksum, count);
  for (guint64 i = 0; i < count; i++)
    hash_string (checksum, strv[i]);
}

/* ---- files the source includes -------------------------------------------- */

/* NVRTC reads files from disk that the inputs only name: `#include "/abs.h"`,
 * `#include "inc.h"` beside the program's name (the working directory when
 * the name has no directory part), nested includes beside the file that
 * includes them, and `__has_include` probes. The key covers each file it may
 * read: its absolute path and its content, or that it is absent, found by
 * scanning the text of every source for those directives, conservatively
 * (text in comments and `#if 0` counts too). A directive it cannot follow
 * (`#include MACRO`) or a file it cannot read makes the compile uncacheable.
 * Computed at every lookup, the key changes when such a file does. */

#define MAX_INCLUDED_FILES 1024
#define MAX_INCLUDED_FILE_SIZE (64 * 1024 * 1024)

typedef struct
{
  GChecksum                       *checksum;
  const CugiProgramCacheKeyInputs *inputs;
  const char                      *source_dir;  /* absolute */
  GHashTable                      *seen;        /* paths hashed already */
} IncludeScan;

static gboolean
scan_file (IncludeScan        *scan,
           const char         *text,
           gsize               length,
           const char * const *dirs);

static gboolean
is_supplied_header (IncludeScan *scan,
                    const char  *name)
{
  for (gsize i = 0; i < scan->inputs->n_headers; i++)
    if (strcmp (scan->inputs->header_names[i], name) == 0)
      return TRUE;
  return FALSE;
}

/* Hashes @path as NVRTC may find it: absent, or its content, whose own
 * includes are then followed. */
static gboolean
hash_candidate (IncludeScan *scan,
                const char  *path)
{
  g_autoptr(GError) error = NULL;
  g_autofree guint8 *data = NULL;
  g_autofree char *dir = NULL;
  GStatBuf info;
  gboolean read;
  int fd;

  if (!g_hash_table_add (scan->seen, g_strdup (path)))
    return TRUE;
  if (g_hash_table_size (scan->seen) > MAX_INCLUDED_FILES)
    {
      g_debug ("Not caching: more than %d included files", MAX_INCLUDED_FILES);
      return FALSE;
    }
  hash_string (scan->checksum, path);
  fd = cugi_program_cache_open_regular_file (path, TRUE, &info, &error);
  if (fd < 0)
    {
      if (g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOENT) ||
          g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOTDIR))
        {
          hash_string (scan->checksum, NULL);
          return TRUE;
        }
      g_debug ("Not caching: %s", error->message);
      return FALSE;
    }
  if (info.st_size > MAX_INCLUDED_FILE_SIZE)
    {
      g_close (fd, NULL);
      g_debug ("Not caching: the included file %s is larger than %d bytes", path, MAX_INCLUDED_FILE_SIZE);
      return FALSE;
    }
  data = g_malloc (info.st_size + 1);
  read = cugi_program_cache_read_exactly (fd, data, info.st_size, path, &error);
  g_close (fd, NULL);
  if (!read)
    {
      g_debug ("Not caching: %s", error->message);
      return FALSE;
    }
  data[info.st_size] = '\0';
  hash_bytes (scan->checksum, data, info.st_size);
  dir = g_path_get_dirname (path);
  {
    const char * const dirs[] = { dir, scan->source_dir, NULL };

    return scan_file (scan, (const char *) data, info.st_size, dirs);
  }
}

/* Follows the include of @name, searched for in @dirs when relative. */
static gboolean
follow_include (IncludeScan        *scan,
                const char         *name,
                const char * const *dirs)
{
  if (g_path_is_absolute (name))
    return hash_candidate (scan, name);
  /* NVRTC takes the headers given to it before any file. */
  if (is_supplied_header (scan, name))
    return TRUE;
  for (gsize i = 0; dirs[i] != NULL; i++)
    {
      g_autofree char *path = g_build_filename (dirs[i], name, NULL);

      if (!hash_candidate (scan, path))
        return FALSE;
    }
  return TRUE;
}

static const char *
skip_blanks (const char *at,
             const char *end)
{
  for (;;)
    {
      while (at < end && (*at == ' ' || *at == '\t' || *at == '\v' || *at == '\f' || *at == '\r'))
        at++;
      if (end - at >= 2 && at[0] == '/' && at[1] == '*')
        {
          const char *close = g_strstr_len (at + 2, end - at - 2, "*/");

          at = close != NULL ? close + 2 : end;
          continue;
        }
      return at;
    }
}

static const char *
skip_identifier (const char *at,
                 const char *end)
{
  while (at < end && (g_ascii_isalnum (*at) || *at == '_'))
    at++;
  return at;
}

/* The header name at @at, "name" or <name>, or NULL: a macro, which only
 * the preprocessor could expand. */
static char *
parse_header_name (const char *at,
                   const char *end)
{
  const char *close;
  char closing;

  if (at >= end || (*at != '"' && *at != '<'))
    return NULL;
  closing = *at == '"' ? '"' : '>';
  for (close = at + 1; close < end && *close != closing && *close != '\n'; close++)
    ;
  if (close >= end || *close != closing || close == at + 1)
    return NULL;
  return g_strndup (at + 1, close - at - 1);
}

static gboolean
is_file_directive (const char *name,
                   gsize       length)
{
  static const char * const directives[] = { "include", "include_next", "import", "embed", NULL };

  for (gsize i = 0; directives[i] != NULL; i++)
    if (strlen (directives[i]) == length && memcmp (directives[i], name, length) == 0)
      return TRUE;
  return FALSE;
}

/* Follows the operand at @at of a directive or probe; FALSE when it cannot. */
static gboolean
follow_operand (IncludeScan        *scan,
                const char         *at,
                const char         *end,
                const char * const *dirs)
{
  g_autofree char *name = parse_header_name (skip_blanks (at, end), end);

  if (name == NULL)
    {
      g_debug ("Not caching: an include whose file cannot be told without preprocessing");
      return FALSE;
    }
  return follow_include (scan, name, dirs);
}

/* Follows every `#include`-like directive and `__has_include`-like probe of
 * @text, whose relative names NVRTC looks for in @dirs. */
static gboolean
scan_file (IncludeScan        *scan,
           const char         *text,
           gsize               length,
           const char * const *dirs)
{
  g_autoptr(GString) spliced = g_string_new_len (text, length);
  const char *at, *end;

  /* Lines ending in a backslash continue on the next, before directives
   * are recognised. */
  g_string_replace (spliced, "\\\r\n", "", 0);
  g_string_replace (spliced, "\\\n", "", 0);
  end = spliced->str + spliced->len;

  for (at = spliced->str; at < end; at = memchr (at, '\n', end - at), at = at != NULL ? at + 1 : end)
    {
      const char *directive;
      const char *directive_end;

      at = skip_blanks (at, end);
      if (end - at >= 1 && *at == '#')
        at += 1;
      else if (end - at >= 2 && memcmp (at, "%:", 2) == 0)
        at += 2;
      else if (end - at >= 3 && memcmp (at, "?\?=", 3) == 0)
        at += 3;
      else
        continue;
      directive = skip_blanks (at, end);
      directive_end = skip_identifier (directive, end);
      if (is_file_directive (directive, directive_end - directive) &&
          !follow_operand (scan, directive_end, end, dirs))
        return FALSE;
      at = directive_end;
    }

  /* __has_include, __has_include_next and __has_embed, wherever they are. */
  for (at = spliced->str; (at = g_strstr_len (at, end - at, "__has_")) != NULL; )
    {
      const char *name_end = skip_identifier (at, end);
      gsize name_length = name_end - at;

      if ((name_length >= strlen ("__has_include") && g_str_has_prefix (at, "__has_include")) ||
          (name_length >= strlen ("__has_embed") && g_str_has_prefix (at, "__has_embed")))
        {
          const char *open = skip_blanks (name_end, end);

          if (open >= end || *open != '(' || !follow_operand (scan, open + 1, end, dirs))
            return FALSE;
        }
      at = name_end;
    }
  return TRUE;
}

/* Hashes every file @inputs may make NVRTC read; FALSE when one cannot be
 * followed. */
static gboolean
hash_included_files (GChecksum                       *checksum,
                     const CugiProgramCacheKeyInputs *inputs)
{
  g_autofree char *cwd = g_get_current_dir ();
  g_autofree char *name_dir = g_path_get_dirname (inputs->name != NULL ? inputs->name : "");
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  /* NVRTC looks beside the program's name, relative to the working
   * directory. */
  g_autofree char *source_dir = g_path_is_absolute (name_dir)
    ? g_strdup (name_dir)
    : g_build_filename (cwd, name_dir, NULL);
  const char * const source_dirs[] = { source_dir, NULL };
  IncludeScan scan = { checksum, inputs, source_dir, seen };
  gboolean followed;

  followed = scan_file (&scan, inputs->source, strlen (inputs->source), source_dirs);
  for (gsize i = 0; followed && i < inputs->n_headers; i++)
    {
      g_autofree char *header_dir = g_path_get_dirname (inputs->header_names[i]);
      g_autofree char *beside = g_build_filename (scan.source_dir, header_dir, NULL);
      const char * const dirs[] = { scan.source_dir, beside, NULL };

      followed = scan_file (&scan, inputs->header_sources[i], strlen (inputs->header_sources[i]), dirs);
    }
  hash_count (checksum, g_hash_table_size (seen));
  return followed;
}

char *
cugi_program_cache_compute_key (const CugiProgramCacheKeyInputs *inputs)
{
  g_autoptr(GChecksum) checksum = g_checksum_new (G_CHECKSUM_SHA256);

  /* Names the scheme, so a future change of it cannot reuse old keys. */
  hash_string (checksum, "cugi NVRTC cache key 3");
  hash_string (checksum, inputs->source);
  hash_string (checksum, inputs->name);
  hash_count (checksum, inputs->n_headers);
  for (gsize i = 0; i < inputs->n_headers; i++)
    {
      hash_string (checksum, inputs->header_names[i]);
      hash_string (checksum, inputs->header_sources[i]);
    }
  hash_strv (checksum, inputs->name_expressions);
  hash_strv (checksum, inputs->options);
  hash_string (checksum, inputs->target);
  hash_string (checksum, inputs->nvrtc_identity);
  if (!hash_included_files (checksum, inputs))
    return NULL;
  return g_strdup (g_checksum_get_string (checksum));
}
