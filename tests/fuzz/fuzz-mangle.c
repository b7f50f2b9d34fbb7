/* fuzz-mangle.c: any bytes, read as a kernel's mangled name (a PTX
 * module's entry can hold anything), give no parameters or parameters
 * spelled in UTF-8 within the caps, without crashing. run-fuzzers.sh bounds the time
 * and memory of each input, which the caps must keep small. */
#include "config.h"

#include <string.h>

#include "cugi-launch-private.h"

int LLVMFuzzerTestOneInput (const guint8 *data,
                            size_t        size);

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        size_t        size)
{
  g_autofree char *name = g_strndup ((const char *) data, size);
  g_autoptr(GPtrArray) params = cugi_mangle_read_parameters (name);
  gsize total = 0;

  for (guint i = 0; params != NULL && i < params->len; i++)
    {
      const CugiMangledParam *param = g_ptr_array_index (params, i);
      gsize length = strlen (param->spelling);

      g_assert_cmpuint (length, <=, CUGI_MANGLE_MAX_SPELLING);
      /* Spellings go into GError messages. */
      g_assert_true (g_utf8_validate (param->spelling, -1, NULL));
      total += length;
    }
  g_assert_cmpuint (total, <=, CUGI_MANGLE_MAX_SPELLED);
  return 0;
}
