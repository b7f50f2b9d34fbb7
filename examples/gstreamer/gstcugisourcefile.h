/* gstcugisourcefile.h: the kernel source that cugikernel's location names */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

/* The largest file location may name (docs/gstreamer.md): kernel sources
 * are kilobytes, and a bound keeps a huge file from filling the memory. */
#define GST_CUGI_MAX_SOURCE_MIB 16

/* The text of the file @location, NUL-terminated; NULL with a
 * GST_RESOURCE_ERROR when it is not a regular file, larger than
 * GST_CUGI_MAX_SOURCE_MIB or cannot be read. Never blocks on a FIFO. */
gchar *gst_cugi_read_source_file (const gchar *location,
                                  GError     **error);

G_END_DECLS
