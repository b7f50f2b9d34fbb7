/* cugi-program-cache.h: NVRTC results kept on disk and in memory. Private.
 *
 * The disk cache lives in $CUGI_CACHE_DIR, else $XDG_CACHE_HOME/cugi; it is
 * refused (and compiles go on without it) when that directory belongs to
 * another user or others may write to it. Entries are named by the key, carry
 * a SHA-256 of their content that is checked before use, are replaced with an
 * atomic rename, and are evicted least recently used first beyond
 * $CUGI_CACHE_MAX_SIZE bytes. CUGI_DISABLE_CACHE set to 1, true or yes turns
 * both layers off.
 */
#pragma once

#include <glib/gstdio.h>

#include "cugi-program-private.h"

G_BEGIN_DECLS

#define CUGI_PROGRAM_CACHE_DEFAULT_MAX_SIZE (256 * 1024 * 1024)

/* Everything that decides what NVRTC produces. */
typedef struct
{
  const char         *source;
  const char         *name;
  const char * const *header_names;      /* n_headers of them */
  const char * const *header_sources;    /* parallel to header_names */
  gsize               n_headers;
  const char * const *name_expressions;  /* NULL-terminated, may be NULL */
  const char * const *options;           /* NULL-terminated, may be NULL */
  const char         *target;            /* e.g. "sm_90"; "" when the options pick it */
  const char         *nvrtc_identity;    /* cugi_loader_get_nvrtc_identity() */
} CugiProgramCacheKeyInputs;

/* A SHA-256 (64 hex digits) over @inputs, each field framed by its length so
 * that no two different inputs hash the same bytes, and over every file from
 * disk that the sources may include (its absolute path and its content, or
 * its absence), as found in the working directory now. NULL when the sources
 * include files that cannot be followed without preprocessing: such a
 * compile is not cached. */
char               *cugi_program_cache_compute_key (const CugiProgramCacheKeyInputs *inputs);

/* FALSE when CUGI_DISABLE_CACHE is 1, true or yes; other values leave the
 * cache on, unknown ones with one warning. */
gboolean            cugi_program_cache_is_enabled  (void);
/* The disk cache's directory, created if missing; NULL with the reason when
 * it is refused (wrong owner, writable by others, not a directory). */
char               *cugi_program_cache_get_dir     (GError **error);
/* $CUGI_CACHE_MAX_SIZE, or the default when unset, or with one warning when
 * not a number. */
guint64             cugi_program_cache_get_max_size (void);
/* The path of @key's entry in @dir. */
char               *cugi_program_cache_get_entry_path (const char *dir,
                                                       const char *key);

/* Memory first, then disk. A valid disk entry is touched (it becomes the most
 * recently used); an invalid one is deleted and counts as a miss. */
CugiProgramResult  *cugi_program_cache_lookup      (const char          *key,
                                                    CugiProgramCacheHit *hit);
/* Keeps @result under @key in memory and, atomically, on disk; then evicts
 * the least recently used entries while the directory is over the cap. */
void                cugi_program_cache_store       (const char        *key,
                                                    CugiProgramResult *result);
/* Forgets the in-memory layer, as a new process would start. */
void                cugi_program_cache_clear_memory (void);

/* Opens @path for reading if it is a regular file, without following a
 * symbolic link unless @follow_links says so, and without blocking: opening
 * a FIFO would wait for a writer. -1 with @error set otherwise. */
int                 cugi_program_cache_open_regular_file (const char *path,
                                                          gboolean    follow_links,
                                                          GStatBuf   *info,
                                                          GError    **error);
/* Reads @length bytes of @fd, failing on a file cut short. */
gboolean            cugi_program_cache_read_exactly (int          fd,
                                                     guint8      *data,
                                                     gsize        length,
                                                     const char  *path,
                                                     GError     **error);

/* The result in @contents, the bytes of an entry file, when it is @key's
 * and its hash, lengths and structure check out; else NULL and @reason, a
 * static string, says why not. What lookups read from disk (and what
 * tests/fuzz/fuzz-cache-entry.c feeds arbitrary bytes to). */
CugiProgramResult  *cugi_program_cache_parse_entry (GBytes      *contents,
                                                    const char  *key,
                                                    const char **reason);

G_END_DECLS
