/* bench-json.h: the figures of a benchmark as JSON records, for
 * tests/benchmarks/plot-performance.py (docs/performance.md).
 *
 *   BenchJson *json = bench_json_new (argc, argv);    (NULL without --json FILE)
 *   bench_json_record (json, "launch", "impl", "raw", NULL);
 *   bench_json_number (json, "us_per_launch", 3.9);
 *   bench_json_finish (json);                          (writes FILE)
 *
 * Each record is one object of the file's array: string fields given when it
 * starts, numbers (and arrays of numbers) added to the latest record. */
#pragma once

#include <stdarg.h>
#include <string.h>

#include <glib.h>

typedef struct
{
  char    *path;
  GString *text;
  gboolean record_open;
} BenchJson;

/* Parses and removes `--json FILE` from @argv; NULL when it is absent. */
static inline BenchJson *
bench_json_new (int   *argc,
                char **argv)
{
  BenchJson *json = NULL;
  int kept = 1;

  for (int i = 1; i < *argc; i++)
    {
      if (strcmp (argv[i], "--json") == 0 && i + 1 < *argc && json == NULL)
        {
          json = g_new0 (BenchJson, 1);
          json->path = g_strdup (argv[++i]);
          json->text = g_string_new ("[");
          continue;
        }
      argv[kept++] = argv[i];
    }
  *argc = kept;
  return json;
}

static inline void
bench_json_close_record (BenchJson *json)
{
  if (json->record_open)
    g_string_append_c (json->text, '}');
  json->record_open = FALSE;
}

static inline void
bench_json_append_string (GString    *text,
                          const char *value)
{
  g_string_append_c (text, '"');
  for (const char *c = value; *c != '\0'; c++)
    {
      if (*c == '"' || *c == '\\')
        g_string_append_c (text, '\\');
      g_string_append_c (text, *c);
    }
  g_string_append_c (text, '"');
}

/* Starts a record of @bench, with NULL-terminated pairs of string fields. */
static inline void G_GNUC_NULL_TERMINATED
bench_json_record (BenchJson  *json,
                   const char *bench,
                   ...)
{
  va_list pairs;
  const char *key;

  if (json == NULL)
    return;
  bench_json_close_record (json);
  g_string_append (json->text, json->text->len > 1 ? ",\n{\"bench\":" : "\n{\"bench\":");
  bench_json_append_string (json->text, bench);
  va_start (pairs, bench);
  while ((key = va_arg (pairs, const char *)) != NULL)
    {
      g_string_append_c (json->text, ',');
      bench_json_append_string (json->text, key);
      g_string_append_c (json->text, ':');
      bench_json_append_string (json->text, va_arg (pairs, const char *));
    }
  va_end (pairs);
  json->record_open = TRUE;
}

/* Adds @key: @value to the latest record. */
static inline void
bench_json_number (BenchJson  *json,
                   const char *key,
                   double      value)
{
  if (json == NULL || !json->record_open)
    return;
  g_string_append_c (json->text, ',');
  bench_json_append_string (json->text, key);
  /* Twelve digits: sizes up to 1 TiB stay exact. */
  g_string_append_printf (json->text, ":%.12g", value);
}

/* Adds @key: [@values] to the latest record (raw samples, for plots). */
static inline void
bench_json_numbers (BenchJson    *json,
                    const char   *key,
                    const double *values,
                    gsize         n)
{
  if (json == NULL || !json->record_open)
    return;
  g_string_append_c (json->text, ',');
  bench_json_append_string (json->text, key);
  g_string_append (json->text, ":[");
  for (gsize i = 0; i < n; i++)
    g_string_append_printf (json->text, i ? ",%.6g" : "%.6g", values[i]);
  g_string_append_c (json->text, ']');
}

/* Writes the file and frees @json; exits 1 when it cannot be written. */
static inline void
bench_json_finish (BenchJson *json)
{
  g_autoptr(GError) error = NULL;

  if (json == NULL)
    return;
  bench_json_close_record (json);
  g_string_append (json->text, "\n]\n");
  if (!g_file_set_contents (json->path, json->text->str, (gssize) json->text->len, &error))
    g_error ("the figures cannot be written: %s", error->message);
  g_string_free (json->text, TRUE);
  g_free (json->path);
  g_free (json);
}
