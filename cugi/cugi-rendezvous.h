/* cugi-rendezvous.h: a communicator's unique id served by one rank and
 * fetched by the others over a TCP socket */
#pragma once

#if !defined(__CUGI_INSIDE__) && !defined(CUGI_COMPILATION)
#error "Only <cugi/cugi.h> can be included directly."
#endif

#include <gio/gio.h>
#include "cugi-version.h"

G_BEGIN_DECLS

#define CUGI_TYPE_RENDEZVOUS (cugi_rendezvous_get_type ())
CUGI_AVAILABLE_IN_0_1
G_DECLARE_FINAL_TYPE (CugiRendezvous, cugi_rendezvous, CUGI, RENDEZVOUS, GObject)

CUGI_AVAILABLE_IN_0_1
CugiRendezvous *cugi_rendezvous_new           (GBytes              *unique_id,
                                               int                  n_ranks,
                                               GError             **error);
CUGI_AVAILABLE_IN_0_1
gboolean        cugi_rendezvous_listen        (CugiRendezvous      *self,
                                               const char          *address,
                                               GError             **error);
CUGI_AVAILABLE_IN_0_1
void            cugi_rendezvous_stop          (CugiRendezvous      *self);

CUGI_AVAILABLE_IN_0_1
const char     *cugi_rendezvous_get_address   (CugiRendezvous      *self);
CUGI_AVAILABLE_IN_0_1
guint           cugi_rendezvous_get_port      (CugiRendezvous      *self);
CUGI_AVAILABLE_IN_0_1
guint           cugi_rendezvous_get_n_served  (CugiRendezvous      *self);

CUGI_AVAILABLE_IN_0_1
void            cugi_rendezvous_fetch_async   (const char          *address,
                                               guint                timeout_ms,
                                               GCancellable        *cancellable,
                                               GAsyncReadyCallback  callback,
                                               gpointer             user_data);
CUGI_AVAILABLE_IN_0_1
GBytes         *cugi_rendezvous_fetch_finish  (GAsyncResult        *result,
                                               GError             **error);
CUGI_AVAILABLE_IN_0_1
GBytes         *cugi_rendezvous_fetch         (const char          *address,
                                               guint                timeout_ms,
                                               GCancellable        *cancellable,
                                               GError             **error);

G_END_DECLS
