/* cugi-stream-ordered-pool.h: the driver's pools of memory allocated in
 * stream order */
#pragma once

#if !defined(__CUGI_INSIDE__) && !defined(CUGI_COMPILATION)
#error "Only <cugi/cugi.h> can be included directly."
#endif

#include <gio/gio.h>
#include "cugi-version.h"
#include "cugi-types.h"

G_BEGIN_DECLS

#define CUGI_TYPE_STREAM_ORDERED_POOL (cugi_stream_ordered_pool_get_type ())
CUGI_AVAILABLE_IN_0_1
G_DECLARE_FINAL_TYPE (CugiStreamOrderedPool, cugi_stream_ordered_pool, CUGI, STREAM_ORDERED_POOL, GObject)

CUGI_AVAILABLE_IN_0_1
CugiStreamOrderedPool *cugi_stream_ordered_pool_get_default (CugiDevice             *device,
                                                             GError                **error);
CUGI_AVAILABLE_IN_0_1
CugiStreamOrderedPool *cugi_stream_ordered_pool_new         (CugiDevice             *device,
                                                             GError                **error);
CUGI_AVAILABLE_IN_0_1
CugiStreamOrderedPool *cugi_stream_ordered_pool_new_exportable (CugiDevice          *device,
                                                                GError             **error);
CUGI_AVAILABLE_IN_0_1
CugiStreamOrderedPool *cugi_stream_ordered_pool_new_from_fd  (CugiDevice            *device,
                                                              gint                   fd,
                                                              GError               **error);
CUGI_AVAILABLE_IN_0_1
gint         cugi_stream_ordered_pool_export_fd             (CugiStreamOrderedPool  *self,
                                                             GError                **error);
CUGI_AVAILABLE_IN_0_1
GBytes      *cugi_stream_ordered_pool_export_buffer         (CugiStreamOrderedPool  *self,
                                                             CugiBuffer             *buffer,
                                                             GError                **error);
CUGI_AVAILABLE_IN_0_1
CugiBuffer  *cugi_stream_ordered_pool_import_buffer         (CugiStreamOrderedPool  *self,
                                                             GBytes                 *exported,
                                                             CugiStream             *stream,
                                                             GError                **error);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_stream_ordered_pool_is_exportable         (CugiStreamOrderedPool  *self);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_stream_ordered_pool_is_imported           (CugiStreamOrderedPool  *self);
CUGI_AVAILABLE_IN_0_1
CugiDevice  *cugi_stream_ordered_pool_get_device            (CugiStreamOrderedPool  *self);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_stream_ordered_pool_is_default            (CugiStreamOrderedPool  *self);
CUGI_AVAILABLE_IN_0_1
CugiBuffer  *cugi_stream_ordered_pool_allocate              (CugiStreamOrderedPool  *self,
                                                             CugiStream             *stream,
                                                             gsize                   size,
                                                             GError                **error);
CUGI_AVAILABLE_IN_0_1
guint64      cugi_stream_ordered_pool_get_release_threshold (CugiStreamOrderedPool  *self,
                                                             GError                **error);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_stream_ordered_pool_set_release_threshold (CugiStreamOrderedPool  *self,
                                                             guint64                 threshold,
                                                             GError                **error);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_stream_ordered_pool_trim_to               (CugiStreamOrderedPool  *self,
                                                             guint64                 min_bytes_to_keep,
                                                             GError                **error);
CUGI_AVAILABLE_IN_0_1
guint64      cugi_stream_ordered_pool_get_used_current      (CugiStreamOrderedPool  *self,
                                                             GError                **error);
CUGI_AVAILABLE_IN_0_1
guint64      cugi_stream_ordered_pool_get_used_high         (CugiStreamOrderedPool  *self,
                                                             GError                **error);
CUGI_AVAILABLE_IN_0_1
guint64      cugi_stream_ordered_pool_get_reserved_current  (CugiStreamOrderedPool  *self,
                                                             GError                **error);
CUGI_AVAILABLE_IN_0_1
guint64      cugi_stream_ordered_pool_get_reserved_high     (CugiStreamOrderedPool  *self,
                                                             GError                **error);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_stream_ordered_pool_reset_high            (CugiStreamOrderedPool  *self,
                                                             GError                **error);

G_END_DECLS
