/* fuzz-image-params.c: any bytes as a module image (a user's .cubin or .ptx
 * file) give either no table or a table of kernel symbols to parameter
 * counts that a CUBIN's .nv.info attributes could hold: the reader never
 * reads outside the image, whatever its offsets and lengths say. */
#include "config.h"

#include "cugi-private.h"
#include "cugi-program-private.h"

int LLVMFuzzerTestOneInput (const guint8 *data,
                            size_t        size);

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        size_t        size)
{
  g_autoptr(GHashTable) counts = cugi_image_read_param_counts (data, size);
  GHashTableIter iter;
  gpointer symbol, count;

  if (counts == NULL)
    return 0;
  g_hash_table_iter_init (&iter, counts);
  while (g_hash_table_iter_next (&iter, &symbol, &count))
    {
      /* A parameter takes a ".param" (6 bytes) or a 16-byte attribute: no
       * image can list more than that many, nor name a kernel "". */
      g_assert_cmpint (GPOINTER_TO_INT (count), >=, 0);
      g_assert_cmpint (GPOINTER_TO_INT (count), <=, (gint) (size / 6));
      g_assert_cmpstr (symbol, !=, "");
    }
  return 0;
}
