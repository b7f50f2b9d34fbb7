/* cugi-buffer-shared.c: device memory shared beyond one context's kernels:
 * managed memory, which the host reaches too, IPC, which other processes
 * do, and dma-bufs, which other devices and APIs do */
#include "config.h"

#include <string.h>
#include <unistd.h>
#include <glib/gi18n-lib.h>

#include "cugi-context-private.h"
#include "cugi-stream-private.h"
#include "cugi-private.h"
#include "cugi-memory-private.h"
#include "cugi-buffer-private.h"

/* ---- managed memory ------------------------------------------------------- */

/**
 * cugi_buffer_new_managed:
 * @context: (nullable): the context to allocate in, or %NULL for the default
 *   context
 * @size: the size in bytes (0 allocates nothing)
 * @attach: where the memory is visible at first
 * @error: return location for a #GError
 *
 * Allocates managed ("unified") memory (`cuMemAllocManaged`), which the
 * driver migrates between host and device on demand: #CugiBuffer:device-pointer
 * is valid on both. The host must not touch it while a kernel runs unless the
 * device reports concurrent managed access. See cugi_buffer_prefetch() and
 * cugi_buffer_advise().
 *
 * Returns: (transfer full): the new buffer, or %NULL with @error set
 *   (%CUGI_ERROR_NOT_SUPPORTED where the device has no managed memory)
 *
 * Since: 0.1
 */
CugiBuffer *
cugi_buffer_new_managed (CugiContext    *context,
                         gsize           size,
                         CugiMemAttach   attach,
                         GError        **error)
{
  g_autoptr(CugiContext) resolved = NULL;
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CugiBuffer *self;
  CUdeviceptr address = 0;

  g_return_val_if_fail (context == NULL || CUGI_IS_CONTEXT (context), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (attach != CUGI_MEM_ATTACH_GLOBAL && attach != CUGI_MEM_ATTACH_HOST &&
      attach != CUGI_MEM_ATTACH_SINGLE)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("%d is not a CugiMemAttach value"), (int) attach);
      return NULL;
    }
  if (!cugi_ensure_driver (error) ||
      (resolved = cugi_context_resolve (context, error)) == NULL)
    return NULL;
  if (size == 0)
    self = cugi_buffer_new_owning (resolved, 0, 0, BUFFER_MEMORY_NONE);
  else
    {
      if (!cugi_context_enter (resolved, &scope, error) ||
          !CUGI_CALL (cuMemAllocManaged, (&address, size, attach), error))
        return NULL;
      self = cugi_buffer_new_owning (resolved, address, size, BUFFER_MEMORY_DEVICE);
    }

  self->managed = TRUE;
  return self;
}

static CUmemLocation
location_of (CugiDevice *device_or_host)
{
  CUmemLocation location = { .type = CU_MEM_LOCATION_TYPE_HOST, .id = 0 };

  if (device_or_host != NULL)
    {
      location.type = CU_MEM_LOCATION_TYPE_DEVICE;
      location.id = cugi_device_get_handle (device_or_host);
    }
  return location;
}

static gboolean
check_managed (CugiBuffer  *self,
               gboolean     available,
               const char  *unavailable_message,
               GError     **error)
{
  if (!cugi_buffer_check_usable (self, error))
    return FALSE;
  if (!self->managed)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                           _("The buffer is not managed memory (see cugi_buffer_new_managed())"));
      return FALSE;
    }
  if (!available)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_NOT_SUPPORTED, unavailable_message);
      return FALSE;
    }
  return TRUE;
}

/**
 * cugi_buffer_prefetch:
 * @self: a managed #CugiBuffer
 * @device: (nullable): the device to move the memory to, or %NULL for the
 *   host
 * @stream: (nullable): the stream to enqueue the prefetch on, or %NULL for
 *   the default stream
 * @error: return location for a #GError
 *
 * Enqueues migrating the pages of @self to @device or to the host
 * (`cuMemPrefetchAsync`), so that later accesses there do not fault. Only for
 * managed memory (%CUGI_ERROR_INVALID_ARGUMENT otherwise); devices without
 * concurrent managed access give %CUGI_ERROR_INVALID_ARGUMENT or
 * %CUGI_ERROR_NOT_SUPPORTED from the driver.
 *
 * Returns: %TRUE if the prefetch was enqueued
 *
 * Since: 0.1
 */
gboolean
cugi_buffer_prefetch (CugiBuffer  *self,
                      CugiDevice  *device,
                      CugiStream  *stream,
                      GError     **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CugiStream *target;

  g_return_val_if_fail (CUGI_IS_BUFFER (self), FALSE);
  g_return_val_if_fail (device == NULL || CUGI_IS_DEVICE (device), FALSE);
  g_return_val_if_fail (stream == NULL || CUGI_IS_STREAM (stream), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!check_managed (self, cugi_cuda.cuMemPrefetchAsync != NULL,
                      _("This driver cannot prefetch or advise managed memory"), error))
    return FALSE;
  if (self->size == 0)
    return TRUE;
  if (!cugi_buffer_enter_for_stream (self, stream, &scope, &target, error))
    return FALSE;
  if (!CUGI_CALL (cuMemPrefetchAsync, (self->address, self->size, location_of (device), 0,
                                       cugi_stream_get_handle (target)), error))
    return FALSE;
  cugi_buffer_track_work (target, self, NULL, NULL, NULL);
  return TRUE;
}

/**
 * cugi_buffer_attach:
 * @self: a managed #CugiBuffer
 * @stream: (nullable): the stream to attach the memory to, or %NULL for the
 *   default stream
 * @attach: where the memory is to be visible: %CUGI_MEM_ATTACH_GLOBAL (from
 *   every stream), %CUGI_MEM_ATTACH_HOST (from the host only) or
 *   %CUGI_MEM_ATTACH_SINGLE (from the host and @stream only)
 * @error: return location for a #GError
 *
 * Enqueues changing which streams may reach the managed memory of @self
 * (`cuStreamAttachMemAsync`), as cugi_buffer_new_managed() set it when it
 * was allocated. Memory attached to a single stream can be read and written
 * by the host while other streams run, once the work on that stream is
 * done; on devices with concurrent managed access this only tunes where
 * pages live. Only for managed memory; %CUGI_MEM_ATTACH_SINGLE needs a
 * stream of its own, not the default one (both
 * %CUGI_ERROR_INVALID_ARGUMENT).
 *
 * Returns: %TRUE if the attachment was enqueued
 *
 * Since: 0.1
 */
gboolean
cugi_buffer_attach (CugiBuffer     *self,
                    CugiStream     *stream,
                    CugiMemAttach   attach,
                    GError        **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CugiStream *target;

  g_return_val_if_fail (CUGI_IS_BUFFER (self), FALSE);
  g_return_val_if_fail (stream == NULL || CUGI_IS_STREAM (stream), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!check_managed (self, cugi_cuda.cuStreamAttachMemAsync != NULL,
                      _("This driver cannot attach managed memory to a stream"), error))
    return FALSE;
  if (!cugi_check_enum_value (CUGI_TYPE_MEM_ATTACH, attach, error))
    return FALSE;
  if (attach == CUGI_MEM_ATTACH_SINGLE && stream == NULL)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                           _("Memory attached to a single stream needs a stream, not the default one"));
      return FALSE;
    }
  if (self->size == 0)
    return TRUE;
  if (!cugi_buffer_enter_for_stream (self, stream, &scope, &target, error) ||
      !CUGI_CALL (cuStreamAttachMemAsync, (cugi_stream_get_handle (target), self->address, 0, attach),
                  error))
    return FALSE;
  cugi_buffer_track_work (target, self, NULL, NULL, NULL);
  return TRUE;
}

/**
 * cugi_buffer_advise:
 * @self: a managed #CugiBuffer
 * @advice: the hint
 * @device: (nullable): the device the hint is about, or %NULL for the host
 *   (ignored for %CUGI_MEM_ADVICE_SET_READ_MOSTLY and
 *   %CUGI_MEM_ADVICE_UNSET_READ_MOSTLY)
 * @error: return location for a #GError
 *
 * Tells the driver how @self will be used (`cuMemAdvise`), so that it places
 * and migrates the pages well. Only for managed memory.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
cugi_buffer_advise (CugiBuffer     *self,
                    CugiMemAdvice   advice,
                    CugiDevice     *device,
                    GError        **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;

  g_return_val_if_fail (CUGI_IS_BUFFER (self), FALSE);
  g_return_val_if_fail (device == NULL || CUGI_IS_DEVICE (device), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (advice < CUGI_MEM_ADVICE_SET_READ_MOSTLY || advice > CUGI_MEM_ADVICE_UNSET_ACCESSED_BY)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("%d is not a CugiMemAdvice value"), (int) advice);
      return FALSE;
    }
  if (!check_managed (self, cugi_cuda.cuMemAdvise != NULL,
                      _("This driver cannot prefetch or advise managed memory"), error))
    return FALSE;
  if (self->size == 0)
    return TRUE;
  return cugi_context_enter (self->ownership.binding.context, &scope, error) &&
         CUGI_CALL (cuMemAdvise, (self->address, self->size, (CUmem_advise) advice,
                                  location_of (device)), error);
}

/* ---- IPC ------------------------------------------------------------------ */

/**
 * cugi_buffer_new_from_ipc_handle:
 * @context: (nullable): the context to map the memory into, or %NULL for the
 *   default context
 * @handle: an IPC handle from cugi_buffer_get_ipc_handle() in another process
 * @size: the size of the buffer in bytes, at most the size of the exported
 *   allocation
 * @error: return location for a #GError
 *
 * Maps device memory another process exported (`cuIpcOpenMemHandle`, with
 * peer access enabled lazily when the memory is on another device). The
 * mapping is closed (`cuIpcCloseMemHandle`) when the buffer is freed or
 * finalized; the exporting process must keep its buffer until then.
 *
 * A process cannot open its own handles: the driver then fails with
 * %CUGI_ERROR_INVALID_CONTEXT. Use the exported buffer itself instead.
 *
 * Returns: (transfer full): the buffer, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiBuffer *
cugi_buffer_new_from_ipc_handle (CugiContext  *context,
                                 GBytes       *handle,
                                 gsize         size,
                                 GError      **error)
{
  g_autoptr(CugiContext) resolved = NULL;
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CUipcMemHandle ipc_handle;
  CUdeviceptr address = 0, base = 0;
  size_t allocation_size = 0;

  g_return_val_if_fail (context == NULL || CUGI_IS_CONTEXT (context), NULL);
  g_return_val_if_fail (handle != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (g_bytes_get_size (handle) != sizeof ipc_handle)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("An IPC memory handle has %zu bytes, not %zu"),
                   sizeof ipc_handle, g_bytes_get_size (handle));
      return NULL;
    }
  if (!cugi_ensure_driver (error) ||
      (resolved = cugi_context_resolve (context, error)) == NULL)
    return NULL;
  if (cugi_cuda.cuIpcOpenMemHandle == NULL || cugi_cuda.cuIpcCloseMemHandle == NULL)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_NOT_SUPPORTED,
                           _("This driver does not support IPC memory handles"));
      return NULL;
    }

  memcpy (&ipc_handle, g_bytes_get_data (handle, NULL), sizeof ipc_handle);
  if (!cugi_context_enter (resolved, &scope, error) ||
      !CUGI_CALL (cuIpcOpenMemHandle, (&address, ipc_handle, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS), error))
    return NULL;

  /* The size the exporter allocated bounds what may be mapped. */
  if (!CUGI_CALL (cuMemGetAddressRange, (&base, &allocation_size, address), error))
    {
      CUGI_CALL (cuIpcCloseMemHandle, (address), NULL);
      return NULL;
    }
  if (size > allocation_size - (address - base))
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("The exported memory has %zu bytes, fewer than the %zu asked for"),
                   (gsize) (allocation_size - (address - base)), size);
      CUGI_CALL (cuIpcCloseMemHandle, (address), NULL);
      return NULL;
    }
  return cugi_buffer_new_owning (resolved, address, size, BUFFER_MEMORY_IPC);
}

/**
 * cugi_buffer_get_ipc_handle:
 * @self: a #CugiBuffer
 * @error: return location for a #GError
 *
 * Exports @self to other processes (`cuIpcGetMemHandle`): send the handle
 * to one, which opens it with cugi_buffer_new_from_ipc_handle(). Only whole
 * allocations have handles: buffers from cugi_buffer_new(),
 * cugi_buffer_new_pitched() and memory pools. Views, managed, zero-size and
 * imported buffers give %CUGI_ERROR_INVALID_ARGUMENT. Keep @self until every
 * other process has closed its mapping.
 *
 * Returns: (transfer full): the 64-byte handle, or %NULL with @error set
 *
 * Since: 0.1
 */
GBytes *
cugi_buffer_get_ipc_handle (CugiBuffer  *self,
                            GError     **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CUipcMemHandle handle;

  g_return_val_if_fail (CUGI_IS_BUFFER (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!cugi_buffer_check_usable (self, error))
    return NULL;
  if ((self->memory != BUFFER_MEMORY_DEVICE && self->memory != BUFFER_MEMORY_POOLED) || self->managed)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                           _("Only whole device allocations have IPC handles, not views, managed, "
                             "zero-size or imported buffers"));
      return NULL;
    }
  if (cugi_cuda.cuIpcGetMemHandle == NULL)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_NOT_SUPPORTED,
                           _("This driver does not support IPC memory handles"));
      return NULL;
    }
  if (!cugi_context_enter (self->ownership.binding.context, &scope, error) ||
      !CUGI_CALL (cuIpcGetMemHandle, (&handle, self->address), error))
    return NULL;
  return g_bytes_new (&handle, sizeof handle);
}

/* ---- dma-buf -------------------------------------------------------------- */

/**
 * cugi_buffer_export_dma_buf:
 * @self: a #CugiBuffer of device memory
 * @offset: (out) (optional): where to store the offset of @self's first
 *   byte in the dma-buf
 * @size: (out) (optional): where to store the size of the dma-buf in bytes
 * @error: return location for a #GError
 *
 * Exports the memory of @self as a Linux dma-buf
 * (`cuMemGetHandleForAddressRange`), which other devices and APIs import:
 * EGL (`EGL_EXT_image_dma_buf_import`), Vulkan
 * (`VK_EXT_external_memory_dma_buf`), V4L2, DRM, or CUDA itself
 * (cugi_external_memory_new_from_fd()). A dma-buf covers whole pages: the
 * range exported is @self's, widened to the host's page size, and @offset
 * tells where @self starts in it. The memory must stay allocated while the
 * dma-buf is in use: keep @self until every importer is done.
 *
 * Devices and drivers without dma-buf export
 * (`CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED`) fail with
 * %CUGI_ERROR_NOT_SUPPORTED, zero-size buffers with
 * %CUGI_ERROR_INVALID_ARGUMENT; the driver refuses memory it cannot
 * export, such as host memory or managed memory.
 *
 * Returns: the dma-buf's file descriptor, which the caller owns and
 *   closes, or -1 with @error set
 *
 * Since: 0.1
 */
gint
cugi_buffer_export_dma_buf (CugiBuffer  *self,
                            guint64     *offset,
                            guint64     *size,
                            GError     **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CugiDevice *device;
  CUdeviceptr start, end;
  gsize page = sysconf (_SC_PAGESIZE);
  int supported = 0;
  int handle = -1;

  g_return_val_if_fail (CUGI_IS_BUFFER (self), -1);
  g_return_val_if_fail (error == NULL || *error == NULL, -1);

  if (!cugi_buffer_check_usable (self, error))
    return -1;
  if (self->size == 0)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                           _("A zero-size buffer has no memory to export"));
      return -1;
    }
  device = cugi_context_get_device (self->ownership.binding.context);
  if (!CUGI_REQUIRE_ENTRY_POINT (cuMemGetHandleForAddressRange, error) ||
      !CUGI_CALL (cuDeviceGetAttribute, (&supported, CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED,
                                         cugi_device_get_handle (device)), error))
    return -1;
  if (!supported)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_NOT_SUPPORTED,
                   _("cuda:%d cannot export dma-bufs with this driver (CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED is 0)"),
                   cugi_device_get_ordinal (device));
      return -1;
    }
  start = self->address / page * page;
  end = (self->address + self->size + page - 1) / page * page;
  if (!cugi_context_enter (self->ownership.binding.context, &scope, error) ||
      !CUGI_CALL (cuMemGetHandleForAddressRange, (&handle, start, end - start,
                                                  CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0), error))
    return -1;
  if (offset != NULL)
    *offset = self->address - start;
  if (size != NULL)
    *size = end - start;
  return handle;
}
