/* cugi-communicator-nccl.c: what the parts of communicators take of NCCL
 * alone: its results as GErrors, and the unique ids that name
 * communicators, made by one rank and handed to the others as bytes or
 * text */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "cugi-communicator-private.h"

G_STATIC_ASSERT (sizeof (ncclUniqueId) == CUGI_NCCL_UNIQUE_ID_BYTES);

/* ---- NCCL's results --------------------------------------------------------- */

static CugiError
error_code_from_result (ncclResult_t result)
{
  switch (result)
    {
    case ncclUnhandledCudaError:
      return CUGI_ERROR_DRIVER;
    case ncclInvalidArgument:
      return CUGI_ERROR_INVALID_ARGUMENT;
    case ncclInvalidUsage:
      return CUGI_ERROR_INVALID_STATE;
    default:
      return CUGI_ERROR_FAILED;
    }
}

/* The error for @result of @operation, with what NCCL last said about
 * @comm (nullable) where it said anything. */
void
cugi_communicator_set_error_from_result (GError       **error,
                                         ncclResult_t   result,
                                         const char    *operation,
                                         ncclComm_t     comm)
{
  const char *detail = cugi_nccl.ncclGetLastError (comm);

  if (detail != NULL && *detail != '\0')
    g_set_error (error, CUGI_ERROR, error_code_from_result (result),
                 /* Translators: the first %s is an NCCL function, the second NCCL's name for
                  * the error, the third what NCCL said about it. */
                 _("NCCL’s %s failed: %s (%s)"), operation, cugi_nccl.ncclGetErrorString (result), detail);
  else
    g_set_error (error, CUGI_ERROR, error_code_from_result (result),
                 _("NCCL’s %s failed: %s"), operation, cugi_nccl.ncclGetErrorString (result));
}

/* ---- unique ids ---------------------------------------------------------------- */

gboolean
cugi_communicator_check_unique_id (GBytes  *unique_id,
                                   GError **error)
{
  gsize size = unique_id != NULL ? g_bytes_get_size (unique_id) : 0;

  if (size == CUGI_NCCL_UNIQUE_ID_BYTES)
    return TRUE;
  g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
               _("A unique id of %d bytes, from cugi_communicator_new_unique_id(), is needed; got %zu"),
               CUGI_NCCL_UNIQUE_ID_BYTES, size);
  return FALSE;
}

/**
 * cugi_communicator_new_unique_id:
 * @error: return location for a #GError
 *
 * Makes the unique id that names a new communicator (`ncclGetUniqueId`):
 * one rank makes it and hands it to the others, which make their
 * communicators with it. It holds the address where that rank listens for
 * the others.
 *
 * Returns: (transfer full): 128 bytes, or %NULL with @error set
 *   (%CUGI_ERROR_NOT_AVAILABLE where NCCL is missing)
 *
 * Since: 0.1
 */
GBytes *
cugi_communicator_new_unique_id (GError **error)
{
  ncclUniqueId unique_id;
  ncclResult_t result;

  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!cugi_loader_load_nccl (error))
    return NULL;
  result = cugi_nccl.ncclGetUniqueId (&unique_id);
  if (result != ncclSuccess)
    {
      cugi_communicator_set_error_from_result (error, result, "ncclGetUniqueId", NULL);
      return NULL;
    }
  return g_bytes_new (&unique_id, sizeof unique_id);
}

/**
 * cugi_communicator_unique_id_to_string:
 * @unique_id: a unique id of cugi_communicator_new_unique_id()
 * @error: return location for a #GError
 *
 * The unique id as text, for a command line, an environment variable or a
 * message: 256 lowercase hexadecimal digits, which
 * cugi_communicator_unique_id_from_string() reads back.
 *
 * Returns: (transfer full): the text, or %NULL with
 *   %CUGI_ERROR_INVALID_ARGUMENT when @unique_id is not 128 bytes
 *
 * Since: 0.1
 */
char *
cugi_communicator_unique_id_to_string (GBytes  *unique_id,
                                       GError **error)
{
  const guint8 *data;
  gsize size;
  GString *text;

  g_return_val_if_fail (unique_id != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!cugi_communicator_check_unique_id (unique_id, error))
    return NULL;
  data = g_bytes_get_data (unique_id, &size);
  text = g_string_sized_new (2 * size + 1);
  for (gsize i = 0; i < size; i++)
    g_string_append_printf (text, "%02x", data[i]);
  return g_string_free (text, FALSE);
}

/**
 * cugi_communicator_unique_id_from_string:
 * @text: the text of cugi_communicator_unique_id_to_string()
 * @error: return location for a #GError
 *
 * Reads a unique id written as text.
 *
 * Returns: (transfer full): the 128 bytes, or %NULL with
 *   %CUGI_ERROR_INVALID_ARGUMENT when @text is not 256 hexadecimal digits
 *
 * Since: 0.1
 */
GBytes *
cugi_communicator_unique_id_from_string (const char  *text,
                                         GError     **error)
{
  guint8 data[CUGI_NCCL_UNIQUE_ID_BYTES];

  g_return_val_if_fail (text != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  for (gsize i = 0; i < sizeof data; i++)
    {
      int high = text[2 * i] != '\0' ? g_ascii_xdigit_value (text[2 * i]) : -1;
      int low = high >= 0 ? g_ascii_xdigit_value (text[2 * i + 1]) : -1;

      if (low < 0)
        {
          g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                       _("“%.20s…” is not a unique id: one is %d hexadecimal digits"), text,
                       2 * CUGI_NCCL_UNIQUE_ID_BYTES);
          return NULL;
        }
      data[i] = (guint8) (high << 4 | low);
    }
  if (text[2 * sizeof data] != '\0')
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("“%.20s…” is not a unique id: one is %d hexadecimal digits"), text,
                   2 * CUGI_NCCL_UNIQUE_ID_BYTES);
      return NULL;
    }
  return g_bytes_new (data, sizeof data);
}
