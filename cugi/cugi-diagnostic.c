/* cugi-diagnostic.c: NVRTC's errors and warnings, one by one */
#include "config.h"

#include <string.h>

#include "cugi-private.h"

/**
 * CugiDiagnostic:
 *
 * One error, warning, remark or note from NVRTC's log, with where it
 * points: the file (the program's name, a header's include name, or the
 * path of a file included from disk), the line and, where NVRTC marks it,
 * the column.
 * Editors mark the line with it instead of reading the log themselves. Get
 * them from cugi_program_get_diagnostics() after a compile, or from any log
 * with cugi_diagnostic_parse_log().
 *
 * NVRTC writes each as `FILE(LINE): SEVERITY: MESSAGE` (warnings with their
 * number, `warning #177-D:`), then the line of source and a caret under the
 * column, then context such as "detected during instantiation of ...", which
 * becomes further lines of the message. Notes follow the diagnostic they
 * explain, pointing at other places (the candidates of a call that matches
 * no overload). Errors in the options
 * (`nvrtc: error: ...`, `Command-line error: ...`) and from the PTX
 * assembler (`ptxas fatal : ...`) have no file or line.
 *
 * A diagnostic is immutable and reference counted.
 *
 * Since: 0.1
 */
struct _CugiDiagnostic
{
  gatomicrefcount        ref_count;
  CugiDiagnosticSeverity severity;
  char                  *file;     /* nullable */
  guint                  line;     /* 0 when unknown */
  guint                  column;   /* 0 when unknown */
  char                  *code;     /* nullable */
  char                  *message;
};

G_DEFINE_BOXED_TYPE (CugiDiagnostic, cugi_diagnostic, cugi_diagnostic_ref, cugi_diagnostic_unref)

/* NVRTC (and the EDG front end inside) prints the source line it means
 * indented by this much, and the caret line likewise. */
#define ECHO_INDENT 2

/* The first line of a diagnostic: located ones, FILE(LINE): SEVERITY[ #CODE]:
 * MESSAGE, and the others, from NVRTC's option parser, the front end's
 * command line or ptxas, which pads its severities with spaces. */
typedef struct
{
  GRegex *located;
  GRegex *unlocated;
} DiagnosticPatterns;

static const DiagnosticPatterns *
get_patterns (void)
{
  static DiagnosticPatterns patterns;
  static gsize initialized;

  if (g_once_init_enter (&initialized))
    {
      patterns.located =
        g_regex_new ("^(.+)\\(([0-9]+)\\): ((?:[A-Za-z-]+ )?error|warning|remark|note)"
                     "(?: #([0-9]+(?:-[A-Za-z])?))?: (.*)$",
                     G_REGEX_OPTIMIZE, 0, NULL);
      patterns.unlocated =
        g_regex_new ("^(?:nvrtc: |ptxas(?: [^;:]*;)? )?((?:[A-Za-z-]+ )?error|warning|fatal|info) *: (.*)$",
                     G_REGEX_OPTIMIZE, 0, NULL);
      g_assert (patterns.located != NULL && patterns.unlocated != NULL);
      g_once_init_leave (&initialized, 1);
    }
  return &patterns;
}

static CugiDiagnosticSeverity
severity_from_word (const char *word)
{
  if (g_str_has_suffix (word, "error") || strcmp (word, "fatal") == 0)
    return CUGI_DIAGNOSTIC_SEVERITY_ERROR;
  if (strcmp (word, "warning") == 0)
    return CUGI_DIAGNOSTIC_SEVERITY_WARNING;
  if (strcmp (word, "note") == 0)
    return CUGI_DIAGNOSTIC_SEVERITY_NOTE;
  return CUGI_DIAGNOSTIC_SEVERITY_REMARK;
}

/* The diagnostic that @line starts, or NULL when it starts none. */
static CugiDiagnostic *
diagnostic_new_from_first_line (const char *line)
{
  const DiagnosticPatterns *patterns = get_patterns ();
  g_autoptr(GMatchInfo) match = NULL;
  g_autofree char *severity = NULL;
  g_autofree char *line_number = NULL;
  CugiDiagnostic *self;
  guint64 number = 0;

  if (g_regex_match (patterns->located, line, 0, &match))
    {
      self = g_new0 (CugiDiagnostic, 1);
      self->file = g_match_info_fetch (match, 1);
      line_number = g_match_info_fetch (match, 2);
      /* A line beyond G_MAXUINT is no line NVRTC could mean: unknown. */
      if (g_ascii_string_to_unsigned (line_number, 10, 1, G_MAXUINT, &number, NULL))
        self->line = (guint) number;
      severity = g_match_info_fetch (match, 3);
      self->code = g_match_info_fetch (match, 4);
      if (self->code[0] == '\0')
        g_clear_pointer (&self->code, g_free);
      self->message = g_match_info_fetch (match, 5);
    }
  else
    {
      g_clear_pointer (&match, g_match_info_free);
      if (!g_regex_match (patterns->unlocated, line, 0, &match))
        return NULL;
      self = g_new0 (CugiDiagnostic, 1);
      severity = g_match_info_fetch (match, 1);
      self->message = g_match_info_fetch (match, 2);
    }
  g_atomic_ref_count_init (&self->ref_count);
  self->severity = severity_from_word (severity);
  return self;
}

/* Whether @line is the caret NVRTC draws under the column it means. */
static gboolean
is_caret_line (const char *line)
{
  const char *caret = line + strspn (line, " \t");

  return caret[0] == '^' && caret[1 + strspn (caret + 1, " \t")] == '\0';
}

static gboolean
is_first_line (const char *line)
{
  const DiagnosticPatterns *patterns = get_patterns ();

  return g_regex_match (patterns->located, line, 0, NULL) ||
         g_regex_match (patterns->unlocated, line, 0, NULL);
}

/* The index of the first line from @first on that ends a diagnostic's
 * lines of context: a blank line, a caret or the next diagnostic. */
static guint
skip_context (char **lines,
              guint  first)
{
  guint end = first;

  while (lines[end] != NULL && lines[end][0] != '\0' && !is_caret_line (lines[end]) &&
         !is_first_line (lines[end]))
    end++;
  return end;
}

static void
append_context (GString *message,
                char   **lines,
                guint    first,
                guint    end)
{
  for (guint i = first; i < end; i++)
    g_string_append_printf (message, "\n%s", g_strstrip (lines[i]));
}

/* Reads the lines after a diagnostic's first: a caret gives the column (in
 * bytes: the echoed source keeps tabs and UTF-8 as they are) and makes the
 * line above it the echoed source; the other lines up to a blank line or
 * the next diagnostic are context, added to the message. Returns the index
 * of the first line not read. */
static guint
diagnostic_read_details (CugiDiagnostic *self,
                         char          **lines,
                         guint           first)
{
  g_autoptr(GString) message = g_string_new (self->message);
  guint end = skip_context (lines, first);

  if (lines[end] != NULL && is_caret_line (lines[end]))
    {
      gsize caret = strchr (lines[end], '^') - lines[end];
      guint after;

      self->column = (guint) MIN ((caret >= ECHO_INDENT ? caret - ECHO_INDENT : caret) + 1, G_MAXUINT);
      /* The line above the caret is the echoed source, not context. */
      append_context (message, lines, first, end > first ? end - 1 : first);
      after = skip_context (lines, end + 1);
      append_context (message, lines, end + 1, after);
      end = after;
    }
  else
    {
      append_context (message, lines, first, end);
    }
  g_free (self->message);
  self->message = g_string_free (g_steal_pointer (&message), FALSE);
  return end;
}

/**
 * cugi_diagnostic_parse_log:
 * @log: (nullable): a log of NVRTC's, such as cugi_program_get_log() gives
 *
 * Reads the diagnostics in @log, in its order. Lines that are no part of
 * one (NVRTC's count of errors, its hint on suppressing warnings) are left
 * out.
 *
 * Returns: (transfer container) (element-type CugiDiagnostic): the diagnostics,
 *   none for a %NULL or empty log; unreferencing the array frees them
 *
 * Since: 0.1
 */
GPtrArray *
cugi_diagnostic_parse_log (const gchar *log)
{
  GPtrArray *diagnostics = g_ptr_array_new_with_free_func ((GDestroyNotify) cugi_diagnostic_unref);
  g_auto (GStrv) lines = NULL;
  guint i = 0;

  if (log == NULL)
    return diagnostics;
  lines = g_strsplit (log, "\n", -1);
  while (lines[i] != NULL)
    {
      CugiDiagnostic *diagnostic = diagnostic_new_from_first_line (lines[i]);

      if (diagnostic == NULL)
        {
          i++;
          continue;
        }
      i = diagnostic_read_details (diagnostic, lines, i + 1);
      g_ptr_array_add (diagnostics, diagnostic);
    }
  return diagnostics;
}

/**
 * cugi_diagnostic_ref:
 * @self: a diagnostic
 *
 * Returns: (transfer full): @self, with one more reference
 *
 * Since: 0.1
 */
CugiDiagnostic *
cugi_diagnostic_ref (CugiDiagnostic *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

/**
 * cugi_diagnostic_unref:
 * @self: (transfer full): a diagnostic
 *
 * Drops a reference; the last one frees @self.
 *
 * Since: 0.1
 */
void
cugi_diagnostic_unref (CugiDiagnostic *self)
{
  g_return_if_fail (self != NULL);

  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;
  g_free (self->file);
  g_free (self->code);
  g_free (self->message);
  g_free (self);
}

/**
 * cugi_diagnostic_get_severity:
 * @self: a diagnostic
 *
 * Returns: how serious @self is: an error, a warning, a remark or a note
 *
 * Since: 0.1
 */
CugiDiagnosticSeverity
cugi_diagnostic_get_severity (CugiDiagnostic *self)
{
  g_return_val_if_fail (self != NULL, CUGI_DIAGNOSTIC_SEVERITY_ERROR);

  return self->severity;
}

/**
 * cugi_diagnostic_get_file:
 * @self: a diagnostic
 *
 * The file @self is about, as NVRTC names it: the program's name
 * (cugi_program_new()), a header's include name
 * (cugi_program_add_header()) or the path of a file included from disk.
 *
 * Returns: (nullable): the file, or %NULL for a diagnostic of no file (an
 *   error in the options, or from the PTX assembler)
 *
 * Since: 0.1
 */
const gchar *
cugi_diagnostic_get_file (CugiDiagnostic *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->file;
}

/**
 * cugi_diagnostic_get_line:
 * @self: a diagnostic
 *
 * Returns: the line in cugi_diagnostic_get_file(), counted from 1, or 0
 *   when @self has no file
 *
 * Since: 0.1
 */
guint
cugi_diagnostic_get_line (CugiDiagnostic *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->line;
}

/**
 * cugi_diagnostic_get_column:
 * @self: a diagnostic
 *
 * Where in the line NVRTC points, in bytes counted from 1 (a tab and each
 * byte of a UTF-8 character count one, as `gtk_text_iter_set_line_index()`
 * counts them, less one).
 *
 * Returns: the column, or 0 where NVRTC marks none
 *
 * Since: 0.1
 */
guint
cugi_diagnostic_get_column (CugiDiagnostic *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->column;
}

/**
 * cugi_diagnostic_get_code:
 * @self: a diagnostic
 *
 * The number NVRTC gives a warning, remark or note, such as `177-D` (a variable
 * declared but never referenced), which options such as
 * `-diag-suppress=177` take.
 *
 * Returns: (nullable): the code, or %NULL where NVRTC gives none (errors)
 *
 * Since: 0.1
 */
const gchar *
cugi_diagnostic_get_code (CugiDiagnostic *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->code;
}

/**
 * cugi_diagnostic_get_message:
 * @self: a diagnostic
 *
 * What NVRTC says, without the file, line and severity: the first line, and
 * the context NVRTC adds after it on further lines (such as "detected during
 * instantiation of ..."). The echoed source and the caret are left out. It
 * is in English: NVRTC's messages are not translated.
 *
 * Returns: the message
 *
 * Since: 0.1
 */
const gchar *
cugi_diagnostic_get_message (CugiDiagnostic *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->message;
}
