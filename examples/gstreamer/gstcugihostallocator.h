/* gstcugihostallocator.h: GstMemory in cugi's pinned host memory */
#pragma once

#include <gst/gst.h>
#include <cugi/cugi.h>

G_BEGIN_DECLS

#define GST_TYPE_CUGI_HOST_ALLOCATOR (gst_cugi_host_allocator_get_type ())
G_DECLARE_FINAL_TYPE (GstCugiHostAllocator, gst_cugi_host_allocator, GST, CUGI_HOST_ALLOCATOR, GstAllocator)

GstAllocator   *gst_cugi_host_allocator_new        (CugiContext *context);
CugiHostBuffer *gst_cugi_host_memory_get_buffer    (GstMemory   *memory);

G_END_DECLS
