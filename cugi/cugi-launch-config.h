/* cugi-launch-config.h: how a kernel is launched */
#pragma once

#if !defined(__CUGI_INSIDE__) && !defined(CUGI_COMPILATION)
#error "Only <cugi/cugi.h> can be included directly."
#endif

#include <glib-object.h>
#include "cugi-version.h"
#include "cugi-types.h"

G_BEGIN_DECLS

#define CUGI_TYPE_LAUNCH_CONFIG (cugi_launch_config_get_type ())

CUGI_AVAILABLE_IN_0_1
GType             cugi_launch_config_get_type          (void) G_GNUC_CONST;

CUGI_AVAILABLE_IN_0_1
CugiLaunchConfig *cugi_launch_config_new               (guint             grid_x,
                                                        guint             block_x);
CUGI_AVAILABLE_IN_0_1
CugiLaunchConfig *cugi_launch_config_new_2d            (guint             grid_x,
                                                        guint             grid_y,
                                                        guint             block_x,
                                                        guint             block_y);
CUGI_AVAILABLE_IN_0_1
CugiLaunchConfig *cugi_launch_config_new_for_size_2d   (guint             width,
                                                        guint             height,
                                                        guint             block_x,
                                                        guint             block_y,
                                                        GError          **error);
CUGI_AVAILABLE_IN_0_1
CugiLaunchConfig *cugi_launch_config_ref               (CugiLaunchConfig *self);
CUGI_AVAILABLE_IN_0_1
void              cugi_launch_config_unref             (CugiLaunchConfig *self);
CUGI_AVAILABLE_IN_0_1
CugiLaunchConfig *cugi_launch_config_copy              (CugiLaunchConfig *self);

CUGI_AVAILABLE_IN_0_1
void              cugi_launch_config_set_grid          (CugiLaunchConfig *self,
                                                        guint             x,
                                                        guint             y,
                                                        guint             z);
CUGI_AVAILABLE_IN_0_1
void              cugi_launch_config_get_grid          (CugiLaunchConfig *self,
                                                        guint            *x,
                                                        guint            *y,
                                                        guint            *z);
CUGI_AVAILABLE_IN_0_1
void              cugi_launch_config_set_block         (CugiLaunchConfig *self,
                                                        guint             x,
                                                        guint             y,
                                                        guint             z);
CUGI_AVAILABLE_IN_0_1
void              cugi_launch_config_get_block         (CugiLaunchConfig *self,
                                                        guint            *x,
                                                        guint            *y,
                                                        guint            *z);
CUGI_AVAILABLE_IN_0_1
void              cugi_launch_config_set_shared_memory (CugiLaunchConfig *self,
                                                        guint             bytes);
CUGI_AVAILABLE_IN_0_1
guint             cugi_launch_config_get_shared_memory (CugiLaunchConfig *self);
CUGI_AVAILABLE_IN_0_1
void              cugi_launch_config_set_stream        (CugiLaunchConfig *self,
                                                        CugiStream       *stream);
CUGI_AVAILABLE_IN_0_1
CugiStream       *cugi_launch_config_get_stream        (CugiLaunchConfig *self);
CUGI_AVAILABLE_IN_0_1
void              cugi_launch_config_set_cooperative   (CugiLaunchConfig *self,
                                                        gboolean          cooperative);
CUGI_AVAILABLE_IN_0_1
gboolean          cugi_launch_config_get_cooperative   (CugiLaunchConfig *self);
CUGI_AVAILABLE_IN_0_1
void              cugi_launch_config_set_cluster       (CugiLaunchConfig *self,
                                                        guint             x,
                                                        guint             y,
                                                        guint             z);
CUGI_AVAILABLE_IN_0_1
void              cugi_launch_config_get_cluster       (CugiLaunchConfig *self,
                                                        guint            *x,
                                                        guint            *y,
                                                        guint            *z);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CugiLaunchConfig, cugi_launch_config_unref)

G_END_DECLS
