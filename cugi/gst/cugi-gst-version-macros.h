/* cugi-gst-version-macros.h: symbol visibility and availability of libcugi-gst */
#pragma once

#if !defined(__CUGI_GST_INSIDE__) && !defined(CUGI_GST_COMPILATION)
#error "Only <cugi/gst/cugi-gst.h> can be included directly."
#endif

#include <glib.h>

/* Only symbols marked so leave libcugi-gst: it is built with
 * -fvisibility=hidden, as libcugi is. */
#if defined(CUGI_GST_COMPILATION)
# define _CUGI_GST_EXTERN __attribute__((visibility ("default"))) extern
#else
# define _CUGI_GST_EXTERN extern
#endif

/**
 * CUGI_GST_AVAILABLE_IN_0_1:
 *
 * Marks a declaration of libcugi-gst that appeared in cugi 0.1.
 *
 * Since: 0.1
 */
#define CUGI_GST_AVAILABLE_IN_0_1 _CUGI_GST_EXTERN
