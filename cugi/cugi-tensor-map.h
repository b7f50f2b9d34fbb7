/* cugi-tensor-map.h: tensor-map descriptors of device buffers, for the
 * tensor memory accelerator (TMA) */
#pragma once

#if !defined(__CUGI_INSIDE__) && !defined(CUGI_COMPILATION)
#error "Only <cugi/cugi.h> can be included directly."
#endif

#include <glib-object.h>
#include "cugi-version.h"
#include "cugi-types.h"

G_BEGIN_DECLS

/**
 * CugiTensorDataType:
 * @CUGI_TENSOR_DATA_TYPE_UINT8: 8-bit unsigned integers
 * @CUGI_TENSOR_DATA_TYPE_UINT16: 16-bit unsigned integers
 * @CUGI_TENSOR_DATA_TYPE_UINT32: 32-bit unsigned integers
 * @CUGI_TENSOR_DATA_TYPE_INT32: 32-bit signed integers
 * @CUGI_TENSOR_DATA_TYPE_UINT64: 64-bit unsigned integers
 * @CUGI_TENSOR_DATA_TYPE_INT64: 64-bit signed integers
 * @CUGI_TENSOR_DATA_TYPE_FLOAT16: half-precision floats
 * @CUGI_TENSOR_DATA_TYPE_FLOAT32: single-precision floats
 * @CUGI_TENSOR_DATA_TYPE_FLOAT64: double-precision floats
 * @CUGI_TENSOR_DATA_TYPE_BFLOAT16: bfloat16 floats
 * @CUGI_TENSOR_DATA_TYPE_FLOAT32_FTZ: single-precision floats, denormals
 *   flushed to zero
 * @CUGI_TENSOR_DATA_TYPE_TFLOAT32: single-precision floats read as
 *   TensorFloat-32
 * @CUGI_TENSOR_DATA_TYPE_TFLOAT32_FTZ: TensorFloat-32, denormals flushed to
 *   zero
 *
 * The type of the elements a #CugiTensorMap describes, as
 * `CUtensorMapDataType` (the packed types of fewer than 8 bits aside).
 *
 * Since: 0.1
 */
typedef enum
{
  CUGI_TENSOR_DATA_TYPE_UINT8 = 0,
  CUGI_TENSOR_DATA_TYPE_UINT16 = 1,
  CUGI_TENSOR_DATA_TYPE_UINT32 = 2,
  CUGI_TENSOR_DATA_TYPE_INT32 = 3,
  CUGI_TENSOR_DATA_TYPE_UINT64 = 4,
  CUGI_TENSOR_DATA_TYPE_INT64 = 5,
  CUGI_TENSOR_DATA_TYPE_FLOAT16 = 6,
  CUGI_TENSOR_DATA_TYPE_FLOAT32 = 7,
  CUGI_TENSOR_DATA_TYPE_FLOAT64 = 8,
  CUGI_TENSOR_DATA_TYPE_BFLOAT16 = 9,
  CUGI_TENSOR_DATA_TYPE_FLOAT32_FTZ = 10,
  CUGI_TENSOR_DATA_TYPE_TFLOAT32 = 11,
  CUGI_TENSOR_DATA_TYPE_TFLOAT32_FTZ = 12,
} CugiTensorDataType;

/**
 * CugiTensorInterleave:
 * @CUGI_TENSOR_INTERLEAVE_NONE: the elements are not interleaved
 * @CUGI_TENSOR_INTERLEAVE_CHUNKS_16B: the innermost dimension is interleaved
 *   in chunks of 16 bytes (NC/8HWC8 of 2-byte elements)
 * @CUGI_TENSOR_INTERLEAVE_CHUNKS_32B: in chunks of 32 bytes (NC/16HWC16 of
 *   2-byte elements)
 *
 * The interleaved layout of a tensor in global memory, as
 * `CUtensorMapInterleave`. Interleaved tensors have 3 dimensions or more.
 *
 * Since: 0.1
 */
typedef enum
{
  CUGI_TENSOR_INTERLEAVE_NONE = 0,
  CUGI_TENSOR_INTERLEAVE_CHUNKS_16B = 1,
  CUGI_TENSOR_INTERLEAVE_CHUNKS_32B = 2,
} CugiTensorInterleave;

/**
 * CugiTensorSwizzle:
 * @CUGI_TENSOR_SWIZZLE_NONE: the box is written to shared memory as it is
 * @CUGI_TENSOR_SWIZZLE_SPAN_32B: 16-byte chunks are swizzled within 32 bytes
 * @CUGI_TENSOR_SWIZZLE_SPAN_64B: 16-byte chunks within 64 bytes
 * @CUGI_TENSOR_SWIZZLE_SPAN_128B: 16-byte chunks within 128 bytes
 * @CUGI_TENSOR_SWIZZLE_SPAN_128B_ATOM_32B: 32-byte chunks within 128 bytes
 * @CUGI_TENSOR_SWIZZLE_SPAN_128B_ATOM_32B_FLIP_8B: 32-byte chunks within
 *   128 bytes, the 8-byte halves of each 16 bytes swapped on every other row
 * @CUGI_TENSOR_SWIZZLE_SPAN_128B_ATOM_64B: 64-byte chunks within 128 bytes
 *
 * How a box is shuffled across shared memory banks, as
 * `CUtensorMapSwizzle`, so that reading it from shared memory avoids bank
 * conflicts. Without interleaving, the inner dimension of the box (its first
 * dimension times the element size) is at most the span.
 *
 * Since: 0.1
 */
typedef enum
{
  CUGI_TENSOR_SWIZZLE_NONE = 0,
  CUGI_TENSOR_SWIZZLE_SPAN_32B = 1,
  CUGI_TENSOR_SWIZZLE_SPAN_64B = 2,
  CUGI_TENSOR_SWIZZLE_SPAN_128B = 3,
  CUGI_TENSOR_SWIZZLE_SPAN_128B_ATOM_32B = 4,
  CUGI_TENSOR_SWIZZLE_SPAN_128B_ATOM_32B_FLIP_8B = 5,
  CUGI_TENSOR_SWIZZLE_SPAN_128B_ATOM_64B = 6,
} CugiTensorSwizzle;

/**
 * CugiTensorL2Promotion:
 * @CUGI_TENSOR_L2_PROMOTION_NONE: L2 is filled as the requests come
 * @CUGI_TENSOR_L2_PROMOTION_FETCH_64B: in 64-byte requests
 * @CUGI_TENSOR_L2_PROMOTION_FETCH_128B: in 128-byte requests
 * @CUGI_TENSOR_L2_PROMOTION_FETCH_256B: in 256-byte requests
 *
 * The size of the requests that fill L2 from global memory for a tensor
 * map's copies, as `CUtensorMapL2promotion`.
 *
 * Since: 0.1
 */
typedef enum
{
  CUGI_TENSOR_L2_PROMOTION_NONE = 0,
  CUGI_TENSOR_L2_PROMOTION_FETCH_64B = 1,
  CUGI_TENSOR_L2_PROMOTION_FETCH_128B = 2,
  CUGI_TENSOR_L2_PROMOTION_FETCH_256B = 3,
} CugiTensorL2Promotion;

/**
 * CugiTensorOobFill:
 * @CUGI_TENSOR_OOB_FILL_ZERO: elements outside the tensor read as zero
 * @CUGI_TENSOR_OOB_FILL_NAN_REQUEST_ZERO_FMA: as a NaN that fused
 *   multiply-adds take for zero (floating-point types only)
 *
 * What the elements of a box outside the tensor read as, as
 * `CUtensorMapFloatOOBfill`.
 *
 * Since: 0.1
 */
typedef enum
{
  CUGI_TENSOR_OOB_FILL_ZERO = 0,
  CUGI_TENSOR_OOB_FILL_NAN_REQUEST_ZERO_FMA = 1,
} CugiTensorOobFill;

#define CUGI_TYPE_TENSOR_MAP (cugi_tensor_map_get_type ())
CUGI_AVAILABLE_IN_0_1
G_DECLARE_FINAL_TYPE (CugiTensorMap, cugi_tensor_map, CUGI, TENSOR_MAP, GObject)

CUGI_AVAILABLE_IN_0_1
CugiTensorMap      *cugi_tensor_map_new_tiled      (CugiBuffer             *buffer,
                                                    CugiTensorDataType      data_type,
                                                    const guint64          *dims,
                                                    guint                   rank,
                                                    const guint64          *strides,
                                                    guint                   n_strides,
                                                    const guint32          *box,
                                                    guint                   n_box,
                                                    GError                **error);
CUGI_AVAILABLE_IN_0_1
CugiTensorMap      *cugi_tensor_map_new_tiled_full (CugiBuffer             *buffer,
                                                    CugiTensorDataType      data_type,
                                                    const guint64          *dims,
                                                    guint                   rank,
                                                    const guint64          *strides,
                                                    guint                   n_strides,
                                                    const guint32          *box,
                                                    guint                   n_box,
                                                    const guint32          *element_strides,
                                                    guint                   n_element_strides,
                                                    CugiTensorInterleave    interleave,
                                                    CugiTensorSwizzle       swizzle,
                                                    CugiTensorL2Promotion   l2_promotion,
                                                    CugiTensorOobFill       oob_fill,
                                                    GError                **error);

CUGI_AVAILABLE_IN_0_1
CugiBuffer         *cugi_tensor_map_get_buffer     (CugiTensorMap          *self);
CUGI_AVAILABLE_IN_0_1
CugiContext        *cugi_tensor_map_get_context    (CugiTensorMap          *self);
CUGI_AVAILABLE_IN_0_1
CugiTensorDataType  cugi_tensor_map_get_data_type  (CugiTensorMap          *self);
CUGI_AVAILABLE_IN_0_1
guint               cugi_tensor_map_get_rank       (CugiTensorMap          *self);
CUGI_AVAILABLE_IN_0_1
GBytes             *cugi_tensor_map_get_descriptor (CugiTensorMap          *self);

G_END_DECLS
