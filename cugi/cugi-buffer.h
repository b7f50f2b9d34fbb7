/* cugi-buffer.h: device memory */
#pragma once

#if !defined(__CUGI_INSIDE__) && !defined(CUGI_COMPILATION)
#error "Only <cugi/cugi.h> can be included directly."
#endif

#include <gio/gio.h>
#include "cugi-version.h"
#include "cugi-types.h"

G_BEGIN_DECLS

/**
 * CugiMemAttach:
 * @CUGI_MEM_ATTACH_GLOBAL: the memory is accessible from any stream on any
 *   device, and from the host
 * @CUGI_MEM_ATTACH_HOST: the memory is accessible from the host only, until a
 *   stream attaches it; kernels must not touch it before that
 * @CUGI_MEM_ATTACH_SINGLE: the memory is accessible from the host and from a
 *   single stream, once one attaches it
 *
 * Where managed memory (cugi_buffer_new_managed()) is visible when it is
 * allocated, as `CUmemAttach_flags`.
 *
 * Since: 0.1
 */
typedef enum {
  CUGI_MEM_ATTACH_GLOBAL = 1,
  CUGI_MEM_ATTACH_HOST = 2,
  CUGI_MEM_ATTACH_SINGLE = 4,
} CugiMemAttach;

/**
 * CugiMemAdvice:
 * @CUGI_MEM_ADVICE_SET_READ_MOSTLY: the memory is mostly read: each processor
 *   that reads it may keep a read-only copy
 * @CUGI_MEM_ADVICE_UNSET_READ_MOSTLY: undoes %CUGI_MEM_ADVICE_SET_READ_MOSTLY
 * @CUGI_MEM_ADVICE_SET_PREFERRED_LOCATION: the memory should live on the
 *   given device (or the host)
 * @CUGI_MEM_ADVICE_UNSET_PREFERRED_LOCATION: undoes
 *   %CUGI_MEM_ADVICE_SET_PREFERRED_LOCATION
 * @CUGI_MEM_ADVICE_SET_ACCESSED_BY: the given device (or the host) will access
 *   the memory, so it stays mapped there
 * @CUGI_MEM_ADVICE_UNSET_ACCESSED_BY: undoes %CUGI_MEM_ADVICE_SET_ACCESSED_BY
 *
 * Hints about the use of managed memory, for cugi_buffer_advise(), as
 * `CUmem_advise`.
 *
 * Since: 0.1
 */
typedef enum {
  CUGI_MEM_ADVICE_SET_READ_MOSTLY = 1,
  CUGI_MEM_ADVICE_UNSET_READ_MOSTLY = 2,
  CUGI_MEM_ADVICE_SET_PREFERRED_LOCATION = 3,
  CUGI_MEM_ADVICE_UNSET_PREFERRED_LOCATION = 4,
  CUGI_MEM_ADVICE_SET_ACCESSED_BY = 5,
  CUGI_MEM_ADVICE_UNSET_ACCESSED_BY = 6,
} CugiMemAdvice;

#define CUGI_TYPE_BUFFER (cugi_buffer_get_type ())
CUGI_AVAILABLE_IN_0_1
G_DECLARE_FINAL_TYPE (CugiBuffer, cugi_buffer, CUGI, BUFFER, GObject)

CUGI_AVAILABLE_IN_0_1
CugiBuffer  *cugi_buffer_new                 (CugiContext    *context,
                                              gsize           size,
                                              GError        **error);
CUGI_AVAILABLE_IN_0_1
CugiBuffer  *cugi_buffer_new_pitched         (CugiContext    *context,
                                              gsize           width,
                                              gsize           height,
                                              guint           element_size,
                                              GError        **error);
CUGI_AVAILABLE_IN_0_1
CugiBuffer  *cugi_buffer_new_on_stream       (CugiStream     *stream,
                                              gsize           size,
                                              GError        **error);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_buffer_free_on_stream      (CugiBuffer     *self,
                                              CugiStream     *stream,
                                              GError        **error);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_buffer_attach              (CugiBuffer     *self,
                                              CugiStream     *stream,
                                              CugiMemAttach   attach,
                                              GError        **error);
CUGI_AVAILABLE_IN_0_1
CugiBuffer  *cugi_buffer_new_managed         (CugiContext    *context,
                                              gsize           size,
                                              CugiMemAttach   attach,
                                              GError        **error);
CUGI_AVAILABLE_IN_0_1
CugiBuffer  *cugi_buffer_new_view            (CugiBuffer     *self,
                                              gsize           offset,
                                              gsize           size,
                                              GError        **error);
CUGI_AVAILABLE_IN_0_1
CugiBuffer  *cugi_buffer_new_from_ipc_handle (CugiContext    *context,
                                              GBytes         *handle,
                                              gsize           size,
                                              GError        **error);

CUGI_AVAILABLE_IN_0_1
CugiBuffer  *cugi_buffer_new_for_address     (CugiContext    *context,
                                              guint64         address,
                                              gsize           size,
                                              GError        **error);
CUGI_AVAILABLE_IN_0_1
CugiBuffer  *cugi_buffer_new_for_address_full (CugiContext   *context,
                                              guint64         address,
                                              gsize           size,
                                              gpointer        release_data,
                                              GDestroyNotify  release,
                                              GError        **error);

CUGI_AVAILABLE_IN_0_1
CugiContext *cugi_buffer_get_context         (CugiBuffer     *self);
CUGI_AVAILABLE_IN_0_1
gsize        cugi_buffer_get_size            (CugiBuffer     *self);
CUGI_AVAILABLE_IN_0_1
guint64      cugi_buffer_get_device_pointer  (CugiBuffer     *self);
CUGI_AVAILABLE_IN_0_1
gsize        cugi_buffer_get_pitch           (CugiBuffer     *self);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_buffer_is_managed          (CugiBuffer     *self);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_buffer_is_freed            (CugiBuffer     *self);
CUGI_AVAILABLE_IN_0_1
CugiBuffer  *cugi_buffer_get_parent          (CugiBuffer     *self);

CUGI_AVAILABLE_IN_0_1
gboolean     cugi_buffer_free                (CugiBuffer     *self,
                                              GError        **error);

CUGI_AVAILABLE_IN_0_1
gboolean     cugi_buffer_upload              (CugiBuffer     *self,
                                              gsize           offset,
                                              const guint8   *data,
                                              gsize           len,
                                              GError        **error);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_buffer_upload_bytes        (CugiBuffer     *self,
                                              gsize           offset,
                                              GBytes         *bytes,
                                              GError        **error);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_buffer_upload_from_address (CugiBuffer     *self,
                                              gsize           offset,
                                              guint64         address,
                                              gsize           size,
                                              GError        **error);
CUGI_AVAILABLE_IN_0_1
GBytes      *cugi_buffer_download            (CugiBuffer     *self,
                                              gsize           offset,
                                              gsize           size,
                                              GError        **error);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_buffer_download_to_address (CugiBuffer     *self,
                                              gsize           offset,
                                              guint64         address,
                                              gsize           size,
                                              GError        **error);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_buffer_copy                (CugiBuffer     *dst,
                                              gsize           dst_offset,
                                              CugiBuffer     *src,
                                              gsize           src_offset,
                                              gsize           size,
                                              CugiStream     *stream,
                                              GError        **error);

CUGI_AVAILABLE_IN_0_1
void         cugi_buffer_download_async      (CugiBuffer         *self,
                                              gsize               offset,
                                              gsize               size,
                                              CugiStream         *stream,
                                              GCancellable       *cancellable,
                                              GAsyncReadyCallback callback,
                                              gpointer            user_data);
CUGI_AVAILABLE_IN_0_1
GBytes      *cugi_buffer_download_finish     (CugiBuffer     *self,
                                              GAsyncResult   *result,
                                              GError        **error);
CUGI_AVAILABLE_IN_0_1
void         cugi_buffer_upload_bytes_async  (CugiBuffer         *self,
                                              gsize               offset,
                                              GBytes             *bytes,
                                              CugiStream         *stream,
                                              GCancellable       *cancellable,
                                              GAsyncReadyCallback callback,
                                              gpointer            user_data);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_buffer_upload_bytes_finish (CugiBuffer     *self,
                                              GAsyncResult   *result,
                                              GError        **error);

CUGI_AVAILABLE_IN_0_1
void         cugi_buffer_upload_from_address_async  (CugiBuffer         *self,
                                                     gsize               offset,
                                                     guint64             address,
                                                     gsize               size,
                                                     CugiStream         *stream,
                                                     GCancellable       *cancellable,
                                                     GAsyncReadyCallback callback,
                                                     gpointer            user_data);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_buffer_upload_from_address_finish (CugiBuffer     *self,
                                                     GAsyncResult   *result,
                                                     GError        **error);

CUGI_AVAILABLE_IN_0_1
gboolean     cugi_buffer_upload_from_host    (CugiBuffer     *self,
                                              gsize           offset,
                                              CugiHostBuffer *host,
                                              gsize           host_offset,
                                              gsize           size,
                                              CugiStream     *stream,
                                              GError        **error);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_buffer_download_to_host    (CugiBuffer     *self,
                                              gsize           offset,
                                              CugiHostBuffer *host,
                                              gsize           host_offset,
                                              gsize           size,
                                              CugiStream     *stream,
                                              GError        **error);

CUGI_AVAILABLE_IN_0_1
void         cugi_buffer_download_to_host_async  (CugiBuffer         *self,
                                                  gsize               offset,
                                                  CugiHostBuffer     *host,
                                                  gsize               host_offset,
                                                  gsize               size,
                                                  CugiStream         *stream,
                                                  GCancellable       *cancellable,
                                                  GAsyncReadyCallback callback,
                                                  gpointer            user_data);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_buffer_download_to_host_finish (CugiBuffer     *self,
                                                  GAsyncResult   *result,
                                                  GError        **error);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_buffer_memset_d8           (CugiBuffer     *self,
                                              gsize           offset,
                                              guint8          value,
                                              gsize           count,
                                              CugiStream     *stream,
                                              GError        **error);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_buffer_memset_d16          (CugiBuffer     *self,
                                              gsize           offset,
                                              guint16         value,
                                              gsize           count,
                                              CugiStream     *stream,
                                              GError        **error);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_buffer_memset_d32          (CugiBuffer     *self,
                                              gsize           offset,
                                              guint32         value,
                                              gsize           count,
                                              CugiStream     *stream,
                                              GError        **error);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_buffer_memset_2d_d8        (CugiBuffer     *self,
                                              gsize           offset,
                                              gsize           pitch,
                                              guint8          value,
                                              gsize           width,
                                              gsize           height,
                                              CugiStream     *stream,
                                              GError        **error);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_buffer_memset_2d_d16       (CugiBuffer     *self,
                                              gsize           offset,
                                              gsize           pitch,
                                              guint16         value,
                                              gsize           width,
                                              gsize           height,
                                              CugiStream     *stream,
                                              GError        **error);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_buffer_memset_2d_d32       (CugiBuffer     *self,
                                              gsize           offset,
                                              gsize           pitch,
                                              guint32         value,
                                              gsize           width,
                                              gsize           height,
                                              CugiStream     *stream,
                                              GError        **error);

CUGI_AVAILABLE_IN_0_1
gboolean     cugi_buffer_copy_2d             (CugiBuffer     *dst,
                                              gsize           dst_offset,
                                              gsize           dst_pitch,
                                              CugiBuffer     *src,
                                              gsize           src_offset,
                                              gsize           src_pitch,
                                              gsize           width,
                                              gsize           height,
                                              CugiStream     *stream,
                                              GError        **error);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_buffer_upload_2d           (CugiBuffer     *self,
                                              gsize           offset,
                                              gsize           pitch,
                                              const guint8   *data,
                                              gsize           len,
                                              gsize           width,
                                              gsize           height,
                                              GError        **error);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_buffer_upload_2d_from_address (CugiBuffer  *self,
                                                 gsize        offset,
                                                 gsize        pitch,
                                                 guint64      address,
                                                 gsize        size,
                                                 gsize        width,
                                                 gsize        height,
                                                 GError     **error);
CUGI_AVAILABLE_IN_0_1
GBytes      *cugi_buffer_download_2d         (CugiBuffer     *self,
                                              gsize           offset,
                                              gsize           pitch,
                                              gsize           width,
                                              gsize           height,
                                              GError        **error);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_buffer_upload_2d_from_host (CugiBuffer     *self,
                                              gsize           offset,
                                              gsize           pitch,
                                              CugiHostBuffer *host,
                                              gsize           host_offset,
                                              gsize           host_pitch,
                                              gsize           width,
                                              gsize           height,
                                              CugiStream     *stream,
                                              GError        **error);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_buffer_download_2d_to_host (CugiBuffer     *self,
                                              gsize           offset,
                                              gsize           pitch,
                                              CugiHostBuffer *host,
                                              gsize           host_offset,
                                              gsize           host_pitch,
                                              gsize           width,
                                              gsize           height,
                                              CugiStream     *stream,
                                              GError        **error);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_buffer_copy_3d             (CugiBuffer     *dst,
                                              gsize           dst_offset,
                                              gsize           dst_pitch,
                                              gsize           dst_height,
                                              CugiBuffer     *src,
                                              gsize           src_offset,
                                              gsize           src_pitch,
                                              gsize           src_height,
                                              gsize           width,
                                              gsize           height,
                                              gsize           depth,
                                              CugiStream     *stream,
                                              GError        **error);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_buffer_upload_3d           (CugiBuffer     *self,
                                              gsize           offset,
                                              gsize           pitch,
                                              gsize           slice_height,
                                              const guint8   *data,
                                              gsize           len,
                                              gsize           width,
                                              gsize           height,
                                              gsize           depth,
                                              GError        **error);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_buffer_upload_3d_from_address (CugiBuffer  *self,
                                                 gsize        offset,
                                                 gsize        pitch,
                                                 gsize        slice_height,
                                                 guint64      address,
                                                 gsize        size,
                                                 gsize        width,
                                                 gsize        height,
                                                 gsize        depth,
                                                 GError     **error);
CUGI_AVAILABLE_IN_0_1
GBytes      *cugi_buffer_download_3d         (CugiBuffer     *self,
                                              gsize           offset,
                                              gsize           pitch,
                                              gsize           slice_height,
                                              gsize           width,
                                              gsize           height,
                                              gsize           depth,
                                              GError        **error);

CUGI_AVAILABLE_IN_0_1
gboolean     cugi_buffer_prefetch            (CugiBuffer     *self,
                                              CugiDevice     *device,
                                              CugiStream     *stream,
                                              GError        **error);
CUGI_AVAILABLE_IN_0_1
gboolean     cugi_buffer_advise              (CugiBuffer     *self,
                                              CugiMemAdvice   advice,
                                              CugiDevice     *device,
                                              GError        **error);

CUGI_AVAILABLE_IN_0_1
GBytes      *cugi_buffer_get_ipc_handle      (CugiBuffer     *self,
                                              GError        **error);
CUGI_AVAILABLE_IN_0_1
gint         cugi_buffer_export_dma_buf      (CugiBuffer     *self,
                                              guint64        *offset,
                                              guint64        *size,
                                              GError        **error);

G_END_DECLS
