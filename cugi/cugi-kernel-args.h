/* cugi-kernel-args.h: the arguments of a kernel launch */
#pragma once

#if !defined(__CUGI_INSIDE__) && !defined(CUGI_COMPILATION)
#error "Only <cugi/cugi.h> can be included directly."
#endif

#include <glib-object.h>
#include "cugi-version.h"
#include "cugi-types.h"

G_BEGIN_DECLS

/**
 * CugiArgType:
 * @CUGI_ARG_END: ends the list of arguments of cugi_kernel_launch_with()
 * @CUGI_ARG_BUFFER: a #CugiBuffer, passed as its device address
 * @CUGI_ARG_INT32: a 32-bit signed integer (`int`)
 * @CUGI_ARG_UINT32: a 32-bit unsigned integer (`unsigned int`)
 * @CUGI_ARG_INT64: a 64-bit signed integer (`long`, `long long`)
 * @CUGI_ARG_UINT64: a 64-bit unsigned integer
 * @CUGI_ARG_FLOAT: a single-precision float
 * @CUGI_ARG_DOUBLE: a double-precision float
 * @CUGI_ARG_BYTES: a #GBytes copied into the parameter as it is: a struct
 *   passed by value, or a type with no adder of its own
 * @CUGI_ARG_POINTER: a raw device address (a #guint64), for memory that
 *   cugi did not allocate
 * @CUGI_ARG_TEXTURE: a #CugiTexture, passed as its handle to a
 *   `cudaTextureObject_t` parameter
 * @CUGI_ARG_SURFACE: a #CugiSurface, passed as its handle to a
 *   `cudaSurfaceObject_t` parameter
 * @CUGI_ARG_CONDITION: a graph's condition (cugi_graph_create_condition()),
 *   passed to a `cudaGraphConditionalHandle` parameter
 * @CUGI_ARG_TENSOR_MAP: a #CugiTensorMap, passed as its 128 bytes to a
 *   `const __grid_constant__ CUtensorMap` parameter
 *
 * The type of one kernel argument: what a #CugiKernelArgs records for each
 * argument, and the tags of cugi_kernel_launch_with().
 *
 * Since: 0.1
 */
typedef enum
{
  CUGI_ARG_END = 0,
  CUGI_ARG_BUFFER,
  CUGI_ARG_INT32,
  CUGI_ARG_UINT32,
  CUGI_ARG_INT64,
  CUGI_ARG_UINT64,
  CUGI_ARG_FLOAT,
  CUGI_ARG_DOUBLE,
  CUGI_ARG_BYTES,
  CUGI_ARG_POINTER,
  CUGI_ARG_TEXTURE,
  CUGI_ARG_SURFACE,
  CUGI_ARG_CONDITION,
  CUGI_ARG_TENSOR_MAP,
} CugiArgType;

#define CUGI_TYPE_KERNEL_ARGS (cugi_kernel_args_get_type ())

CUGI_AVAILABLE_IN_0_1
GType           cugi_kernel_args_get_type    (void) G_GNUC_CONST;

CUGI_AVAILABLE_IN_0_1
CugiKernelArgs *cugi_kernel_args_new         (void);
CUGI_AVAILABLE_IN_0_1
CugiKernelArgs *cugi_kernel_args_ref         (CugiKernelArgs *self);
CUGI_AVAILABLE_IN_0_1
void            cugi_kernel_args_unref       (CugiKernelArgs *self);
CUGI_AVAILABLE_IN_0_1
CugiKernelArgs *cugi_kernel_args_copy        (CugiKernelArgs *self);
CUGI_AVAILABLE_IN_0_1
void            cugi_kernel_args_clear       (CugiKernelArgs *self);

CUGI_AVAILABLE_IN_0_1
void            cugi_kernel_args_add_buffer  (CugiKernelArgs *self,
                                              CugiBuffer     *buffer);
CUGI_AVAILABLE_IN_0_1
void            cugi_kernel_args_add_int32   (CugiKernelArgs *self,
                                              gint32          value);
CUGI_AVAILABLE_IN_0_1
void            cugi_kernel_args_add_uint32  (CugiKernelArgs *self,
                                              guint32         value);
CUGI_AVAILABLE_IN_0_1
void            cugi_kernel_args_add_int64   (CugiKernelArgs *self,
                                              gint64          value);
CUGI_AVAILABLE_IN_0_1
void            cugi_kernel_args_add_uint64  (CugiKernelArgs *self,
                                              guint64         value);
CUGI_AVAILABLE_IN_0_1
void            cugi_kernel_args_add_float   (CugiKernelArgs *self,
                                              gfloat          value);
CUGI_AVAILABLE_IN_0_1
void            cugi_kernel_args_add_double  (CugiKernelArgs *self,
                                              gdouble         value);
CUGI_AVAILABLE_IN_0_1
void            cugi_kernel_args_add_bytes   (CugiKernelArgs *self,
                                              GBytes         *bytes);
CUGI_AVAILABLE_IN_0_1
void            cugi_kernel_args_add_pointer (CugiKernelArgs *self,
                                              guint64         device_pointer);
CUGI_AVAILABLE_IN_0_1
void            cugi_kernel_args_add_texture (CugiKernelArgs *self,
                                              CugiTexture    *texture);
CUGI_AVAILABLE_IN_0_1
void            cugi_kernel_args_add_surface (CugiKernelArgs *self,
                                              CugiSurface    *surface);
CUGI_AVAILABLE_IN_0_1
void            cugi_kernel_args_add_tensor_map (CugiKernelArgs *self,
                                                 CugiTensorMap  *tensor_map);

CUGI_AVAILABLE_IN_0_1
void            cugi_kernel_args_add_condition (CugiKernelArgs *self,
                                                guint64         condition);

CUGI_AVAILABLE_IN_0_1
guint           cugi_kernel_args_get_n_args  (CugiKernelArgs *self);
CUGI_AVAILABLE_IN_0_1
CugiArgType     cugi_kernel_args_get_arg_type (CugiKernelArgs *self,
                                               guint           index);
CUGI_AVAILABLE_IN_0_1
gsize           cugi_kernel_args_get_arg_size (CugiKernelArgs *self,
                                               guint           index);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CugiKernelArgs, cugi_kernel_args_unref)

G_END_DECLS
