/* cugi-gtk.h: libcugi-gtk, cugi images shown in GTK 4 (namespace CugiGtk) */
#pragma once

#define __CUGI_GTK_INSIDE__

#include <cugi/cugi.h>
#include <gtk/gtk.h>

#include "cugi-gtk-version-macros.h"
#include "cugi-gtk-paintable.h"
#include "cugi-gtk-enums.h"

#undef __CUGI_GTK_INSIDE__
