/* cugi-gtk-version-macros.h: symbol visibility and availability of libcugi-gtk */
#pragma once

#if !defined(__CUGI_GTK_INSIDE__) && !defined(CUGI_GTK_COMPILATION)
#error "Only <cugi/gtk/cugi-gtk.h> can be included directly."
#endif

#include <glib.h>

/* Only symbols marked so leave libcugi-gtk: it is built with
 * -fvisibility=hidden, as libcugi is. */
#if defined(CUGI_GTK_COMPILATION)
# define _CUGI_GTK_EXTERN __attribute__((visibility ("default"))) extern
#else
# define _CUGI_GTK_EXTERN extern
#endif

/**
 * CUGI_GTK_AVAILABLE_IN_0_1:
 *
 * Marks a declaration of libcugi-gtk that appeared in cugi 0.1.
 *
 * Since: 0.1
 */
#define CUGI_GTK_AVAILABLE_IN_0_1 _CUGI_GTK_EXTERN
