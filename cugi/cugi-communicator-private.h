/* cugi-communicator-private.h: what cugi-communicator.c (the object, its
 * connection and its state) shares with cugi-communicator-ops.c (the work
 * enqueued on it), cugi-communicator-memory.c (registered and NCCL's own
 * memory), cugi-communicator-nccl.c (NCCL's results, unique ids) and the
 * rendezvous. Not installed. */
#pragma once

#include "cugi-context-private.h"
#include "cugi-private.h"

G_BEGIN_DECLS

/* NULL unless connected. */
ncclComm_t          cugi_communicator_get_handle        (CugiCommunicator *self);
CugiContextBinding *cugi_communicator_get_binding       (CugiCommunicator *self);
/* (CugiBuffer *, owned) → NCCL's registration handle */
GHashTable         *cugi_communicator_get_registrations (CugiCommunicator *self);
/* INVALID_STATE unless the communicator is connected and not failed. */
gboolean            cugi_communicator_check_ready       (CugiCommunicator  *self,
                                                         GError           **error);
/* FALSE unless @buffer can be used and is of @self's context. */
gboolean            cugi_communicator_check_buffer      (CugiCommunicator  *self,
                                                         CugiBuffer        *buffer,
                                                         GError           **error);
/* INVALID_ARGUMENT unless @unique_id (nullable) has the size of NCCL's
 * unique ids: what every user of an id checks it with. */
gboolean            cugi_communicator_check_unique_id   (GBytes  *unique_id,
                                                         GError **error);
/* The error for @result (an ncclResult_t) of NCCL's @operation, with what
 * NCCL last said about @comm (NULL: about the thread's last call). */
void                cugi_communicator_set_error_from_result (GError       **error,
                                                             ncclResult_t   result,
                                                             const char    *operation,
                                                             ncclComm_t     comm);
/* Ends an NCCL call on @self that may go on in the background (an
 * ncclResult_t of ncclInProgress): waits for it; the error naming
 * @operation if it failed. */
gboolean            cugi_communicator_finish_call       (CugiCommunicator  *self,
                                                         int                result,
                                                         const char        *operation,
                                                         GError           **error);

G_END_DECLS
