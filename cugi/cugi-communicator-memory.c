/* cugi-communicator-memory.c: the memory of NCCL communicators: buffers
 * registered with a communicator, and buffers of NCCL's own allocator */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "cugi-buffer-private.h"
#include "cugi-communicator-private.h"

gboolean
cugi_communicator_check_buffer (CugiCommunicator  *self,
                                CugiBuffer        *buffer,
                                GError           **error)
{
  return cugi_buffer_check_usable (buffer, error) &&
         cugi_context_binding_check_same_context (cugi_communicator_get_binding (self),
                                                  cugi_buffer_get_context (buffer),
                                                  N_("A buffer belongs to another context than the communicator"),
                                                  error);
}

static gboolean
enter_with_buffer (CugiCommunicator  *self,
                   CugiBuffer        *buffer,
                   CugiContextScope  *scope,
                   GError           **error)
{
  return cugi_communicator_check_ready (self, error) && cugi_communicator_check_buffer (self, buffer, error) &&
         cugi_context_enter (cugi_communicator_get_binding (self)->context, scope, error);
}

/**
 * cugi_communicator_register_buffer:
 * @self: a #CugiCommunicator
 * @buffer: a buffer that collectives of @self will use
 * @error: return location for a #GError
 *
 * Registers @buffer with the communicator (`ncclCommRegister`), so that
 * NCCL's transfers from and to it skip its internal copies where the
 * network or NVLink allows. The registration, and a reference on @buffer,
 * last until cugi_communicator_unregister_buffer() or until the
 * communicator is closed.
 *
 * Returns: %TRUE if registered; else %FALSE with @error set
 *   (%CUGI_ERROR_INVALID_ARGUMENT for a buffer registered already or of
 *   another context)
 *
 * Since: 0.1
 */
gboolean
cugi_communicator_register_buffer (CugiCommunicator  *self,
                                   CugiBuffer        *buffer,
                                   GError           **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  GHashTable *registrations;
  CUdeviceptr address = 0;
  void *handle = NULL;
  ncclResult_t result;

  g_return_val_if_fail (CUGI_IS_COMMUNICATOR (self), FALSE);
  g_return_val_if_fail (CUGI_IS_BUFFER (buffer), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  registrations = cugi_communicator_get_registrations (self);
  if (!enter_with_buffer (self, buffer, &scope, error) || !cugi_buffer_get_address (buffer, &address, error))
    return FALSE;
  if (g_hash_table_contains (registrations, buffer))
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("The buffer is registered with the communicator already"));
      return FALSE;
    }
  result = cugi_nccl.ncclCommRegister (cugi_communicator_get_handle (self), (void *) address,
                                       cugi_buffer_get_size (buffer), &handle);
  if (!cugi_communicator_finish_call (self, result, "ncclCommRegister", error))
    return FALSE;
  g_hash_table_insert (registrations, g_object_ref (buffer), handle);
  return TRUE;
}

/**
 * cugi_communicator_unregister_buffer:
 * @self: a #CugiCommunicator
 * @buffer: a buffer of cugi_communicator_register_buffer()
 * @error: return location for a #GError
 *
 * Ends the registration of @buffer (`ncclCommDeregister`).
 *
 * Returns: %TRUE if unregistered; else %FALSE with @error set
 *   (%CUGI_ERROR_INVALID_ARGUMENT for a buffer not registered)
 *
 * Since: 0.1
 */
gboolean
cugi_communicator_unregister_buffer (CugiCommunicator  *self,
                                     CugiBuffer        *buffer,
                                     GError           **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  GHashTable *registrations;
  gpointer handle = NULL;

  g_return_val_if_fail (CUGI_IS_COMMUNICATOR (self), FALSE);
  g_return_val_if_fail (CUGI_IS_BUFFER (buffer), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  registrations = cugi_communicator_get_registrations (self);
  if (!cugi_communicator_check_ready (self, error))
    return FALSE;
  if (!g_hash_table_lookup_extended (registrations, buffer, NULL, &handle))
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("The buffer is not registered with the communicator"));
      return FALSE;
    }
  if (!cugi_context_enter (cugi_communicator_get_binding (self)->context, &scope, error) ||
      !cugi_communicator_finish_call (self, cugi_nccl.ncclCommDeregister (cugi_communicator_get_handle (self),
                                                                          handle),
                                      "ncclCommDeregister", error))
    return FALSE;
  g_hash_table_remove (registrations, buffer);
  return TRUE;
}

static void
free_nccl_memory (gpointer address)
{
  cugi_nccl.ncclMemFree (address);
}

/**
 * cugi_communicator_alloc_buffer:
 * @self: a #CugiCommunicator
 * @size: the number of bytes
 * @error: return location for a #GError
 *
 * Allocates device memory as NCCL prefers it for its transfers
 * (`ncclMemAlloc`: memory that NVLink switches and the network can reach
 * directly), on this rank's device, as a #CugiBuffer of the communicator's
 * context. The memory goes back to NCCL (`ncclMemFree`) once the buffer is
 * freed or finalized.
 *
 * Returns: (transfer full): the buffer, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiBuffer *
cugi_communicator_alloc_buffer (CugiCommunicator  *self,
                                gsize              size,
                                GError           **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CugiContext *context;
  void *address = NULL;
  ncclResult_t result;

  g_return_val_if_fail (CUGI_IS_COMMUNICATOR (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  context = cugi_communicator_get_binding (self)->context;
  if (!cugi_communicator_check_ready (self, error) || !cugi_context_enter (context, &scope, error))
    return NULL;
  if (size == 0)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("A buffer of NCCL’s memory needs a size of at least one byte"));
      return NULL;
    }
  result = cugi_nccl.ncclMemAlloc (&address, size);
  if (result != ncclSuccess)
    {
      g_set_error (error, CUGI_ERROR, result == ncclSystemError ? CUGI_ERROR_OUT_OF_MEMORY : CUGI_ERROR_FAILED,
                   _("NCCL’s %s failed: %s"), "ncclMemAlloc", cugi_nccl.ncclGetErrorString (result));
      return NULL;
    }
  return cugi_buffer_new_holding (context, (CUdeviceptr) address, size, address, free_nccl_memory);
}
