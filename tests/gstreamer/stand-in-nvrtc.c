/* stand-in-nvrtc.c: an NVRTC for kernels on the tests' stand-in driver.
 *
 * The stand-in driver loads modules in a text format of its own, a kernel a
 * line: its name and its parameters' sizes ("invert 8 4 8 4 4 4 8", see
 * fake-cuda-streams.c), which no real compiler writes. This NVRTC
 * "compiles" a source into the lines of it that start with "//! ", that
 * prefix taken away, as PTX; a source without one does not compile. Name
 * expressions are their own lowered names (extern "C" kernels). It offers
 * every architecture from compute_50 to compute_120, and is version 13.0.
 */
#include <stdlib.h>
#include <string.h>

#include <nvrtc.h>

#define EXPORT __attribute__((visibility ("default")))
#define PREFIX "//! "
#define MAX_NAMES 16

struct _nvrtcProgram
{
  char *source;
  char *ptx;           /* once compiled */
  char *names[MAX_NAMES];
  int   n_names;
};

static const int archs[] = { 50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 89, 90, 100, 120 };

EXPORT const char *
nvrtcGetErrorString (nvrtcResult result)
{
  return result == NVRTC_SUCCESS ? "NVRTC_SUCCESS" : "an error of the stand-in NVRTC";
}

EXPORT nvrtcResult
nvrtcVersion (int *major,
              int *minor)
{
  *major = 13;
  *minor = 0;
  return NVRTC_SUCCESS;
}

EXPORT nvrtcResult
nvrtcGetNumSupportedArchs (int *count)
{
  *count = (int) (sizeof archs / sizeof archs[0]);
  return NVRTC_SUCCESS;
}

EXPORT nvrtcResult
nvrtcGetSupportedArchs (int *supported)
{
  memcpy (supported, archs, sizeof archs);
  return NVRTC_SUCCESS;
}

EXPORT nvrtcResult
nvrtcCreateProgram (nvrtcProgram      *program,
                    const char        *source,
                    const char        *name,
                    int                n_headers,
                    const char * const *headers,
                    const char * const *include_names)
{
  (void) name;
  (void) n_headers;
  (void) headers;
  (void) include_names;
  if (program == NULL || source == NULL)
    return NVRTC_ERROR_INVALID_INPUT;
  *program = calloc (1, sizeof **program);
  (*program)->source = strdup (source);
  return NVRTC_SUCCESS;
}

EXPORT nvrtcResult
nvrtcDestroyProgram (nvrtcProgram *program)
{
  if (program == NULL || *program == NULL)
    return NVRTC_ERROR_INVALID_PROGRAM;
  for (int i = 0; i < (*program)->n_names; i++)
    free ((*program)->names[i]);
  free ((*program)->source);
  free ((*program)->ptx);
  free (*program);
  *program = NULL;
  return NVRTC_SUCCESS;
}

EXPORT nvrtcResult
nvrtcCompileProgram (nvrtcProgram        program,
                     int                 n_options,
                     const char * const *options)
{
  size_t length = 0;

  (void) n_options;
  (void) options;
  free (program->ptx);
  program->ptx = calloc (1, strlen (program->source) + 1);
  for (const char *line = program->source; line != NULL && *line != '\0';)
    {
      const char *end = strchr (line, '\n');
      size_t size = end != NULL ? (size_t) (end - line) : strlen (line);

      if (strncmp (line, PREFIX, strlen (PREFIX)) == 0)
        {
          memcpy (program->ptx + length, line + strlen (PREFIX), size - strlen (PREFIX));
          length += size - strlen (PREFIX);
          program->ptx[length++] = '\n';
        }
      line = end != NULL ? end + 1 : NULL;
    }
  return length > 0 ? NVRTC_SUCCESS : NVRTC_ERROR_COMPILATION;
}

EXPORT nvrtcResult
nvrtcGetPTXSize (nvrtcProgram program,
                 size_t      *size)
{
  if (program->ptx == NULL)
    return NVRTC_ERROR_INVALID_PROGRAM;
  *size = strlen (program->ptx) + 1;
  return NVRTC_SUCCESS;
}

EXPORT nvrtcResult
nvrtcGetPTX (nvrtcProgram program,
             char        *ptx)
{
  if (program->ptx == NULL)
    return NVRTC_ERROR_INVALID_PROGRAM;
  strcpy (ptx, program->ptx);
  return NVRTC_SUCCESS;
}

/* PTX only, as for a virtual architecture. */
EXPORT nvrtcResult
nvrtcGetCUBINSize (nvrtcProgram program,
                   size_t      *size)
{
  (void) program;
  *size = 0;
  return NVRTC_SUCCESS;
}

EXPORT nvrtcResult
nvrtcGetCUBIN (nvrtcProgram program,
               char        *cubin)
{
  (void) program;
  (void) cubin;
  return NVRTC_ERROR_INVALID_PROGRAM;
}

static const char *
log_of (nvrtcProgram program)
{
  return program->ptx == NULL || *program->ptx != '\0' ? "" : "stand-in NVRTC: no \"" PREFIX "\" line";
}

EXPORT nvrtcResult
nvrtcGetProgramLogSize (nvrtcProgram program,
                        size_t      *size)
{
  *size = strlen (log_of (program)) + 1;
  return NVRTC_SUCCESS;
}

EXPORT nvrtcResult
nvrtcGetProgramLog (nvrtcProgram program,
                    char        *log)
{
  strcpy (log, log_of (program));
  return NVRTC_SUCCESS;
}

EXPORT nvrtcResult
nvrtcAddNameExpression (nvrtcProgram      program,
                        const char * const expression)
{
  if (program->n_names == MAX_NAMES)
    return NVRTC_ERROR_OUT_OF_MEMORY;
  program->names[program->n_names++] = strdup (expression);
  return NVRTC_SUCCESS;
}

EXPORT nvrtcResult
nvrtcGetLoweredName (nvrtcProgram      program,
                     const char *const expression,
                     const char      **lowered)
{
  for (int i = 0; i < program->n_names; i++)
    if (strcmp (program->names[i], expression) == 0)
      {
        *lowered = program->names[i];
        return NVRTC_SUCCESS;
      }
  return NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION;
}
