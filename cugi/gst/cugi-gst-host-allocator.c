/* cugi-gst-host-allocator.c: GstMemory in cugi's pinned host memory
 *
 * A CugiGstFilter offers buffer pools with this allocator to system-memory
 * neighbours (upstream in propose_allocation, and for its own output when
 * downstream has no pool). Frames that a producer writes straight into pinned
 * memory reach the GPU by DMA, with no staging copy on the host: the memory
 * is a CugiHostBuffer, found again from the GstMemory with
 * cugi_gst_host_memory_get_buffer(). The memory is portable, so any context
 * of the process may copy from and to it.
 */
#include "cugi-gst-private.h"

GST_DEBUG_CATEGORY_STATIC (cugi_gst_host_allocator_debug);
#define GST_CAT_DEFAULT cugi_gst_host_allocator_debug

struct _CugiGstHostAllocator
{
  GstAllocator parent_instance;

  CugiContext *context;
};

G_DEFINE_FINAL_TYPE_WITH_CODE (CugiGstHostAllocator, cugi_gst_host_allocator, GST_TYPE_ALLOCATOR,
  GST_DEBUG_CATEGORY_INIT (cugi_gst_host_allocator_debug, "cugihostallocator", 0,
                           "cugi pinned host memory"))

G_DEFINE_QUARK (gst-cugi-host-buffer, host_buffer)

static GstMemory *
cugi_gst_host_allocator_alloc (GstAllocator        *allocator,
                               gsize                size,
                               GstAllocationParams *params)
{
  CugiGstHostAllocator *self = CUGI_GST_HOST_ALLOCATOR (allocator);
  g_autoptr(GError) error = NULL;
  gsize maxsize = size + params->prefix + params->padding;
  CugiHostBuffer *host;
  GstMemory *memory;
  guint8 *data;

  /* Pinned memory is page-aligned, which satisfies any alignment asked. */
  host = cugi_host_buffer_new (self->context, maxsize, CUGI_HOST_BUFFER_FLAGS_PORTABLE, &error);
  if (host == NULL || (data = cugi_host_buffer_get_data (host, NULL, &error)) == NULL)
    {
      GST_ERROR_OBJECT (self, "no pinned memory of %" G_GSIZE_FORMAT " bytes: %s",
                        maxsize, error->message);
      g_clear_object (&host);
      return NULL;
    }

  /* The memory owns the host buffer; the qdata only points at it. */
  memory = gst_memory_new_wrapped (params->flags, data, maxsize, params->prefix, size,
                                   host, g_object_unref);
  gst_mini_object_set_qdata (GST_MINI_OBJECT (memory), host_buffer_quark (), host, NULL);
  return memory;
}

static void
cugi_gst_host_allocator_finalize (GObject *object)
{
  CugiGstHostAllocator *self = CUGI_GST_HOST_ALLOCATOR (object);

  g_clear_object (&self->context);

  G_OBJECT_CLASS (cugi_gst_host_allocator_parent_class)->finalize (object);
}

static void
cugi_gst_host_allocator_class_init (CugiGstHostAllocatorClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GstAllocatorClass *allocator_class = GST_ALLOCATOR_CLASS (klass);

  object_class->finalize = cugi_gst_host_allocator_finalize;
  allocator_class->alloc = cugi_gst_host_allocator_alloc;
}

static void
cugi_gst_host_allocator_init (CugiGstHostAllocator *self)
{
  /* Its memories are the system allocator's wrapped memories, mapped as a
   * plain pointer like any system memory: nothing to set up here. */
}

/**
 * cugi_gst_host_allocator_new:
 * @context: the context whose device the memory is pinned for
 *
 * Returns: (transfer full): an allocator of pinned, portable host memory
 */
GstAllocator *
cugi_gst_host_allocator_new (CugiContext *context)
{
  CugiGstHostAllocator *self = g_object_new (CUGI_GST_TYPE_HOST_ALLOCATOR, NULL);

  self->context = g_object_ref (context);
  gst_object_ref_sink (self);
  return GST_ALLOCATOR (self);
}

/**
 * cugi_gst_host_memory_get_buffer:
 * @memory: a #GstMemory
 *
 * Returns: (transfer none) (nullable): the pinned host buffer that @memory
 *   (or the memory it shares) lies in, or %NULL for any other memory
 */
CugiHostBuffer *
cugi_gst_host_memory_get_buffer (GstMemory *memory)
{
  for (; memory != NULL; memory = memory->parent)
    {
      CugiHostBuffer *host = gst_mini_object_get_qdata (GST_MINI_OBJECT (memory), host_buffer_quark ());

      if (host != NULL)
        return host;
    }
  return NULL;
}
