/* test-tensor-map-logic.c: tensor-map descriptors without a GPU, against
 * the stand-in driver (fake-cuda-streams with fake-cuda-tensor-maps): what
 * cugi passes cuTensorMapEncodeTiled, each rule it checks before the driver
 * sees the arguments, what keeps the buffer alive, and tensor maps passed
 * to kernels at the offsets their parameters have. */
#include "config.h"

#include <string.h>

#include "cugi-private.h"
#include "cugi-launch-private.h"
#include "cugi-test-utils.h"
#include "fake-cuda-tensor-maps.h"

/* The stand-in's own functions (fake-cuda-tensor-maps.c, fake-cuda-streams.c). */
static void (*last_encoding) (FakeTensorMapEncoding *encoding);
static size_t (*last_params) (void *out, size_t capacity);

/* A 2D tensor of 100 × 60 floats, rows 512 bytes apart, in boxes of 32 × 8:
 * what the tests change one argument of at a time. */
#define ROWS 60
#define PITCH 512

static const guint64 dims_2d[] = { 100, ROWS };
static const guint64 strides_2d[] = { PITCH };
static const guint32 box_2d[] = { 32, 8 };

static int
encodings_so_far (void)
{
  FakeTensorMapEncoding encoding;

  last_encoding (&encoding);
  return encoding.calls;
}

static CugiTensorMap *
tensor_map_new (CugiBuffer *buffer)
{
  g_autoptr(GError) error = NULL;
  CugiTensorMap *map = cugi_tensor_map_new_tiled (buffer, CUGI_TENSOR_DATA_TYPE_FLOAT32, dims_2d, 2,
                                                  strides_2d, 1, box_2d, 2, &error);

  g_assert_no_error (error);
  g_assert_nonnull (map);
  return map;
}

static void
flag_released (gpointer data)
{
  gboolean *released = data;

  g_assert_false (*released);
  *released = TRUE;
}

/* A buffer over made-up memory of the default context (the stand-in's
 * encoding never reads it): *@released becomes TRUE when cugi lets go of
 * it. */
static CugiBuffer *
holding_buffer_new (gboolean *released)
{
  g_autoptr(CugiContext) context = cugi_test_default_context ();

  *released = FALSE;
  return cugi_buffer_new_holding (context, 0x200000, ROWS * PITCH, released, flag_released);
}

/* The arguments reach the driver as they were given, the descriptor is
 * the driver's, at an address aligned as it must be. */
static void
test_encode (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiBuffer) buffer = cugi_test_buffer_new (ROWS * PITCH);
  g_autoptr(CugiTensorMap) map = tensor_map_new (buffer);
  g_autoptr(CugiTensorMap) packed = NULL;
  g_autoptr(CugiTensorMap) full = NULL;
  g_autoptr(CugiContext) context = cugi_test_default_context ();
  g_autoptr(CugiBuffer) buffer_property = NULL;
  g_autoptr(CugiContext) context_property = NULL;
  g_autoptr(GBytes) descriptor = cugi_tensor_map_get_descriptor (map);
  FakeTensorMapEncoding encoding;
  CugiTensorDataType data_type;
  const guint64 *words;
  guint rank;

  last_encoding (&encoding);
  g_assert_true (encoding.tensor_map == cugi_tensor_map_get_encoded (map));
  g_assert_cmpuint ((guintptr) encoding.tensor_map % 64, ==, 0);
  g_assert_cmpint (encoding.data_type, ==, CU_TENSOR_MAP_DATA_TYPE_FLOAT32);
  g_assert_cmpuint (encoding.rank, ==, 2);
  g_assert_cmpuint ((guintptr) encoding.address, ==, cugi_buffer_get_device_pointer (buffer));
  g_assert_cmpmem (encoding.dims, 2 * sizeof (guint64), dims_2d, sizeof dims_2d);
  g_assert_cmpuint (encoding.strides[0], ==, PITCH);
  g_assert_cmpmem (encoding.box, 2 * sizeof (guint32), box_2d, sizeof box_2d);
  g_assert_cmpuint (encoding.element_strides[0], ==, 1);
  g_assert_cmpuint (encoding.element_strides[1], ==, 1);
  g_assert_cmpint (encoding.interleave, ==, CU_TENSOR_MAP_INTERLEAVE_NONE);
  g_assert_cmpint (encoding.swizzle, ==, CU_TENSOR_MAP_SWIZZLE_NONE);
  g_assert_cmpint (encoding.l2_promotion, ==, CU_TENSOR_MAP_L2_PROMOTION_NONE);
  g_assert_cmpint (encoding.oob_fill, ==, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);

  /* The stand-in's descriptor is its arguments: the copy holds them. */
  g_assert_cmpuint (g_bytes_get_size (descriptor), ==, 128);
  g_assert_cmpmem (g_bytes_get_data (descriptor, NULL), 128, cugi_tensor_map_get_encoded (map), 128);
  words = g_bytes_get_data (descriptor, NULL);
  g_assert_cmpuint (words[0], ==, cugi_buffer_get_device_pointer (buffer));
  g_assert_cmpuint (words[3], ==, ROWS);

  g_object_get (map, "buffer", &buffer_property, "context", &context_property, "data-type", &data_type,
                "rank", &rank, NULL);
  g_assert_true (buffer_property == buffer);
  g_assert_true (context_property == context);
  g_assert_cmpint (data_type, ==, CUGI_TENSOR_DATA_TYPE_FLOAT32);
  g_assert_cmpuint (rank, ==, 2);

  /* Without strides, the tensor is packed: 16 × 3 × 2 of 2-byte elements. */
  packed = cugi_tensor_map_new_tiled (buffer, CUGI_TENSOR_DATA_TYPE_BFLOAT16,
                                      (const guint64[]) { 16, 3, 2 }, 3, NULL, 0,
                                      (const guint32[]) { 8, 3, 2 }, 3, &error);
  g_assert_no_error (error);
  last_encoding (&encoding);
  g_assert_cmpuint (encoding.rank, ==, 3);
  g_assert_cmpuint (encoding.strides[0], ==, 32);
  g_assert_cmpuint (encoding.strides[1], ==, 96);

  /* Every enum goes through as the driver's. */
  full = cugi_tensor_map_new_tiled_full (buffer, CUGI_TENSOR_DATA_TYPE_FLOAT16,
                                         (const guint64[]) { 64, 4, 4 }, 3,
                                         (const guint64[]) { 128, 512 }, 2,
                                         (const guint32[]) { 32, 4, 4 }, 3,
                                         (const guint32[]) { 1, 2, 4 }, 3,
                                         CUGI_TENSOR_INTERLEAVE_CHUNKS_16B,
                                         CUGI_TENSOR_SWIZZLE_SPAN_128B_ATOM_32B,
                                         CUGI_TENSOR_L2_PROMOTION_FETCH_256B,
                                         CUGI_TENSOR_OOB_FILL_NAN_REQUEST_ZERO_FMA, &error);
  g_assert_no_error (error);
  last_encoding (&encoding);
  g_assert_cmpint (encoding.data_type, ==, CU_TENSOR_MAP_DATA_TYPE_FLOAT16);
  g_assert_cmpuint (encoding.element_strides[2], ==, 4);
  g_assert_cmpint (encoding.interleave, ==, CU_TENSOR_MAP_INTERLEAVE_16B);
  g_assert_cmpint (encoding.swizzle, ==, CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B);
  g_assert_cmpint (encoding.l2_promotion, ==, CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
  g_assert_cmpint (encoding.oob_fill, ==, CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA);
}

/* One broken rule: what it changes of the 2D tensor, and what the error
 * says. */
typedef struct
{
  const char            *fragment;
  gint                   code;
  CugiTensorDataType     data_type;
  guint                  rank;
  guint64                dims[6];
  const guint64         *strides;   /* NULL: strides_2d */
  guint                  n_strides;
  guint32                box[6];
  guint                  n_box;
  const guint32         *element_strides;
  guint                  n_element_strides;
  CugiTensorInterleave   interleave;
  CugiTensorSwizzle      swizzle;
  CugiTensorL2Promotion  l2_promotion;
  CugiTensorOobFill      oob_fill;
} BadInput;

static CugiTensorMap *
bad_input_encode (const BadInput  *bad,
                  CugiBuffer      *buffer,
                  GError         **error)
{
  return cugi_tensor_map_new_tiled_full (buffer, bad->data_type, bad->dims, bad->rank,
                                         bad->strides != NULL ? bad->strides : strides_2d, bad->n_strides,
                                         bad->box, bad->n_box, bad->element_strides, bad->n_element_strides,
                                         bad->interleave, bad->swizzle, bad->l2_promotion, bad->oob_fill,
                                         error);
}

/* Every rule of cuTensorMapEncodeTiled is checked before the driver sees
 * the arguments, with an error naming the argument; after each, cugi goes
 * on working. */
static void
test_bad_input (void)
{
#define DIMS_2D .rank = 2, .dims = { 100, ROWS }, .n_strides = 1, .box = { 32, 8 }, .n_box = 2
  static const guint64 strides_3d[] = { PITCH, PITCH * 4 };
  static const guint64 stride_not_16[] = { 520 };
  static const guint64 stride_too_large[] = { G_GUINT64_CONSTANT (1) << 40 };
  static const guint64 strides_3d_not_32[] = { 16, 64 };
  static const guint64 strides_too_far[] = { PITCH * 2 };
  static const guint32 element_strides_9[] = { 1, 9 };
  const BadInput bad_inputs[] = {
    { "rank: a tensor map has 1 to 5 dimensions, not 0", CUGI_ERROR_INVALID_ARGUMENT,
      CUGI_TENSOR_DATA_TYPE_FLOAT32, .rank = 0, .box = { 1 }, .n_box = 0 },
    { "rank: a tensor map has 1 to 5 dimensions, not 6", CUGI_ERROR_INVALID_ARGUMENT,
      CUGI_TENSOR_DATA_TYPE_FLOAT32, .rank = 6, .dims = { 1, 1, 1, 1, 1, 1 }, .n_strides = 5,
      .strides = (const guint64[]) { 16, 16, 16, 16, 16 }, .box = { 4, 1, 1, 1, 1, 1 }, .n_box = 6 },
    { "strides: the tensor needs 1 value, not 2", CUGI_ERROR_INVALID_ARGUMENT,
      CUGI_TENSOR_DATA_TYPE_FLOAT32, .rank = 2, .dims = { 100, ROWS }, .strides = strides_3d,
      .n_strides = 2, .box = { 32, 8 }, .n_box = 2 },
    { "box: the tensor needs 2 values, not 1", CUGI_ERROR_INVALID_ARGUMENT,
      CUGI_TENSOR_DATA_TYPE_FLOAT32, .rank = 2, .dims = { 100, ROWS }, .n_strides = 1, .box = { 32 }, .n_box = 1 },
    { "element_strides: the tensor needs 2 values, not 1", CUGI_ERROR_INVALID_ARGUMENT,
      CUGI_TENSOR_DATA_TYPE_FLOAT32, DIMS_2D, .element_strides = element_strides_9, .n_element_strides = 1 },
    { "13 is not a value of CugiTensorDataType", CUGI_ERROR_INVALID_ARGUMENT, 13, DIMS_2D },
    { "3 is not a value of CugiTensorInterleave", CUGI_ERROR_INVALID_ARGUMENT,
      CUGI_TENSOR_DATA_TYPE_FLOAT32, DIMS_2D, .interleave = 3 },
    { "7 is not a value of CugiTensorSwizzle", CUGI_ERROR_INVALID_ARGUMENT,
      CUGI_TENSOR_DATA_TYPE_FLOAT32, DIMS_2D, .swizzle = 7 },
    { "4 is not a value of CugiTensorL2Promotion", CUGI_ERROR_INVALID_ARGUMENT,
      CUGI_TENSOR_DATA_TYPE_FLOAT32, DIMS_2D, .l2_promotion = 4 },
    { "2 is not a value of CugiTensorOobFill", CUGI_ERROR_INVALID_ARGUMENT,
      CUGI_TENSOR_DATA_TYPE_FLOAT32, DIMS_2D, .oob_fill = 2 },
    { "dims[1] is 0: each dimension has 1 to 2^32 elements", CUGI_ERROR_INVALID_ARGUMENT,
      CUGI_TENSOR_DATA_TYPE_FLOAT32, .rank = 2, .dims = { 100, 0 }, .n_strides = 1, .box = { 32, 8 }, .n_box = 2 },
    { "dims[0] is 4294967297: each dimension has 1 to 2^32 elements", CUGI_ERROR_INVALID_ARGUMENT,
      CUGI_TENSOR_DATA_TYPE_FLOAT32, .rank = 2, .dims = { (G_GUINT64_CONSTANT (1) << 32) + 1, ROWS },
      .n_strides = 1, .box = { 32, 8 }, .n_box = 2 },
    { "strides[0] is 520 bytes: each stride is a multiple of 16 bytes, below 2^40", CUGI_ERROR_INVALID_ARGUMENT,
      CUGI_TENSOR_DATA_TYPE_FLOAT32, DIMS_2D, .strides = stride_not_16 },
    { "strides[0] is 1099511627776 bytes: each stride is a multiple of 16 bytes, below 2^40",
      CUGI_ERROR_INVALID_ARGUMENT, CUGI_TENSOR_DATA_TYPE_FLOAT32, DIMS_2D, .strides = stride_too_large },
    { "box[1] is 257: each dimension of a box has 1 to 256 elements", CUGI_ERROR_INVALID_ARGUMENT,
      CUGI_TENSOR_DATA_TYPE_FLOAT32, .rank = 2, .dims = { 100, ROWS }, .n_strides = 1, .box = { 32, 257 },
      .n_box = 2 },
    { "box[0] is 0: each dimension of a box has 1 to 256 elements", CUGI_ERROR_INVALID_ARGUMENT,
      CUGI_TENSOR_DATA_TYPE_FLOAT32, .rank = 2, .dims = { 100, ROWS }, .n_strides = 1, .box = { 0, 8 },
      .n_box = 2 },
    { "element_strides[1] is 9: each element stride is 1 to 8", CUGI_ERROR_INVALID_ARGUMENT,
      CUGI_TENSOR_DATA_TYPE_FLOAT32, DIMS_2D, .element_strides = element_strides_9, .n_element_strides = 2 },
    { "box[0] is 6 elements of 4 bytes: without interleaving, the rows of a box are multiples of 16 bytes",
      CUGI_ERROR_INVALID_ARGUMENT, CUGI_TENSOR_DATA_TYPE_FLOAT32, .rank = 2, .dims = { 100, ROWS },
      .n_strides = 1, .box = { 6, 8 }, .n_box = 2 },
    { "interleave: an interleaved tensor has at least 3 dimensions, not 2", CUGI_ERROR_INVALID_ARGUMENT,
      CUGI_TENSOR_DATA_TYPE_FLOAT16, DIMS_2D, .interleave = CUGI_TENSOR_INTERLEAVE_CHUNKS_16B },
    { "strides[0] is 16 bytes: each stride is a multiple of 32 bytes", CUGI_ERROR_INVALID_ARGUMENT,
      CUGI_TENSOR_DATA_TYPE_FLOAT16, .rank = 3, .dims = { 8, 4, 4 }, .strides = strides_3d_not_32,
      .n_strides = 2, .box = { 8, 4, 4 }, .n_box = 3, .interleave = CUGI_TENSOR_INTERLEAVE_CHUNKS_32B,
      .swizzle = CUGI_TENSOR_SWIZZLE_SPAN_32B },
    { "swizzle: interleaving in 32-byte chunks needs CUGI_TENSOR_SWIZZLE_SPAN_32B", CUGI_ERROR_INVALID_ARGUMENT,
      CUGI_TENSOR_DATA_TYPE_FLOAT16, .rank = 3, .dims = { 16, 4, 4 }, .strides = strides_3d, .n_strides = 2,
      .box = { 16, 4, 4 }, .n_box = 3, .interleave = CUGI_TENSOR_INTERLEAVE_CHUNKS_32B },
    { "swizzle: the rows of the box take 128 bytes, more than the 64 bytes it swizzles within",
      CUGI_ERROR_INVALID_ARGUMENT, CUGI_TENSOR_DATA_TYPE_FLOAT32, .rank = 2, .dims = { 100, ROWS },
      .n_strides = 1, .box = { 32, 8 }, .n_box = 2, .swizzle = CUGI_TENSOR_SWIZZLE_SPAN_64B },
    { "oob_fill: CUGI_TENSOR_OOB_FILL_NAN_REQUEST_ZERO_FMA is for floating-point elements",
      CUGI_ERROR_INVALID_ARGUMENT, CUGI_TENSOR_DATA_TYPE_INT32, DIMS_2D,
      .oob_fill = CUGI_TENSOR_OOB_FILL_NAN_REQUEST_ZERO_FMA },
    { "buffer: the tensor ends past its 30720 bytes", CUGI_ERROR_INVALID_ARGUMENT,
      CUGI_TENSOR_DATA_TYPE_FLOAT32, DIMS_2D, .strides = strides_too_far },
    { "buffer: the tensor ends past its 30720 bytes", CUGI_ERROR_INVALID_ARGUMENT,
      CUGI_TENSOR_DATA_TYPE_FLOAT32, .rank = 3, .dims = { 100, 4294967296, 4294967296 },
      .strides = (const guint64[]) { 1099511627760, 1099511627760 }, .n_strides = 2, .box = { 32, 8, 1 },
      .n_box = 3 },
  };
#undef DIMS_2D
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiBuffer) buffer = cugi_test_buffer_new (ROWS * PITCH);
  g_autoptr(CugiBuffer) view = NULL;
  g_autoptr(CugiBuffer) freed = cugi_test_buffer_new (ROWS * PITCH);
  g_autoptr(CugiTensorMap) map = NULL;
  int encodings = encodings_so_far ();

  for (gsize i = 0; i < G_N_ELEMENTS (bad_inputs); i++)
    {
      g_test_message ("%s", bad_inputs[i].fragment);
      g_assert_null (bad_input_encode (&bad_inputs[i], buffer, &error));
      cugi_test_assert_error (&error, bad_inputs[i].code, bad_inputs[i].fragment);
    }
  g_assert_cmpint (encodings_so_far (), ==, encodings);

  /* Where the tensor lies: 8 bytes into the buffer is not 16-aligned. */
  view = cugi_buffer_new_view (buffer, 8, ROWS * PITCH - 8, &error);
  g_assert_no_error (error);
  g_assert_null (cugi_tensor_map_new_tiled (view, CUGI_TENSOR_DATA_TYPE_FLOAT32, dims_2d, 2, strides_2d, 1,
                                            box_2d, 2, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "is not a multiple of 16 bytes");
  g_assert_true (cugi_buffer_free (freed, &error));
  g_assert_no_error (error);
  g_assert_null (cugi_tensor_map_new_tiled (freed, CUGI_TENSOR_DATA_TYPE_FLOAT32, dims_2d, 2, strides_2d, 1,
                                            box_2d, 2, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_STATE, "Cannot make a tensor map of the buffer");
  g_assert_cmpint (encodings_so_far (), ==, encodings);

  /* What the driver refuses (rows longer than their stride) is its error. */
  g_assert_null (cugi_tensor_map_new_tiled (buffer, CUGI_TENSOR_DATA_TYPE_FLOAT32, dims_2d, 2,
                                            (const guint64[]) { 32 }, 1, box_2d, 2, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "cuTensorMapEncodeTiled");

  /* And the library goes on working. */
  map = tensor_map_new (buffer);
  g_assert_cmpint (encodings_so_far (), ==, encodings + 1);
}

/* A driver without tensor maps (before CUDA 12.0) says what it lacks. */
static void
test_old_driver (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiBuffer) buffer = cugi_test_buffer_new (ROWS * PITCH);
  __typeof__ (cugi_cuda.cuTensorMapEncodeTiled) encode = cugi_cuda.cuTensorMapEncodeTiled;

  cugi_cuda.cuTensorMapEncodeTiled = NULL;
  g_assert_null (cugi_tensor_map_new_tiled (buffer, CUGI_TENSOR_DATA_TYPE_FLOAT32, dims_2d, 2, strides_2d, 1,
                                            box_2d, 2, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_NOT_SUPPORTED, "lacks cuTensorMapEncodeTiled");
  cugi_cuda.cuTensorMapEncodeTiled = encode;
  g_object_unref (tensor_map_new (buffer));
}

/* A map keeps its buffer's memory through a free, until it is gone. */
static void
test_keeps_buffer (void)
{
  g_autoptr(GError) error = NULL;
  gboolean released;
  CugiBuffer *buffer = holding_buffer_new (&released);
  CugiTensorMap *map = tensor_map_new (buffer);

  g_assert_true (cugi_buffer_free (buffer, &error));
  g_assert_no_error (error);
  g_object_unref (buffer);
  g_assert_false (released);
  g_assert_true (cugi_tensor_map_get_buffer (map) == buffer);
  g_object_unref (map);
  g_assert_true (released);
}

/* A CUtensorMap parameter, by cuda.h's name or a kernel's own, takes a
 * tensor map and nothing else; a tensor map goes nowhere else. */
static void
test_kernel_signature (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiBuffer) buffer = cugi_test_buffer_new (ROWS * PITCH);
  g_autoptr(CugiTensorMap) map = tensor_map_new (buffer);
  g_autoptr(CugiKernelArgs) args = cugi_kernel_args_new ();
  g_autoptr(CugiKernelArgs) copy = NULL;
  g_auto (GValue) value = G_VALUE_INIT;
  /* copy (CUtensorMap, float *), then with struct CUtensorMap_st */
  const gsize sizes[] = { 128, 8 };
  CugiKernelSignature *signature = cugi_kernel_signature_new ("copy", "_Z4copy11CUtensorMapPf", sizes, 2);
  CugiKernelSignature *st = cugi_kernel_signature_new ("copy", "_Z4copy14CUtensorMap_stPf", sizes, 2);

  g_assert_true (signature->have_types);
  g_assert_cmpint (signature->params[0].type, ==, CUGI_PARAM_TYPE_TENSOR_MAP);
  g_assert_cmpint (st->params[0].type, ==, CUGI_PARAM_TYPE_TENSOR_MAP);
  cugi_kernel_args_add_tensor_map (args, map);
  cugi_kernel_args_add_buffer (args, buffer);
  g_assert_cmpint (cugi_kernel_args_get_arg_type (args, 0), ==, CUGI_ARG_TENSOR_MAP);
  g_assert_cmpuint (cugi_kernel_args_get_arg_size (args, 0), ==, 128);
  g_assert_true (cugi_kernel_signature_check (signature, args, &error));
  g_assert_no_error (error);
  g_assert_true (cugi_kernel_signature_check (st, args, &error));
  g_assert_no_error (error);
  copy = cugi_kernel_args_copy (args);
  g_assert_cmpint (cugi_kernel_args_get_arg_type (copy, 0), ==, CUGI_ARG_TENSOR_MAP);
  g_assert_true (copy->params[0] == cugi_tensor_map_get_encoded (map));

  /* A number for the tensor map; a tensor map for the pointer. */
  cugi_kernel_args_clear (args);
  cugi_kernel_args_add_uint64 (args, 1);
  cugi_kernel_args_add_buffer (args, buffer);
  cugi_test_assert_fails (cugi_kernel_signature_check (signature, args, &error), &error,
                          CUGI_ERROR_INVALID_ARGUMENT, "parameter 0 (CUtensorMap): cannot take a uint64 "
                          "argument; pass a CugiTensorMap");
  cugi_kernel_args_clear (args);
  cugi_kernel_args_add_tensor_map (args, map);
  cugi_kernel_args_add_tensor_map (args, map);
  cugi_test_assert_fails (cugi_kernel_signature_check (signature, args, &error), &error,
                          CUGI_ERROR_INVALID_ARGUMENT, "parameter 1 (float *): cannot take a CugiTensorMap");

  /* Through GValues. */
  cugi_kernel_args_clear (args);
  g_value_init (&value, G_TYPE_OBJECT);
  g_value_set_object (&value, map);
  g_assert_true (cugi_kernel_signature_add_value (signature, args, 0, &value, &error));
  g_assert_no_error (error);
  g_assert_cmpint (cugi_kernel_args_get_arg_type (args, 0), ==, CUGI_ARG_TENSOR_MAP);
  cugi_kernel_signature_free (signature);
  cugi_kernel_signature_free (st);

  /* An extern "C" kernel is known by its sizes: 128 bytes take it, 8 do not. */
  signature = cugi_kernel_signature_new ("copy", "copy", (const gsize[]) { 128, 8 }, 2);
  cugi_kernel_args_clear (args);
  cugi_kernel_args_add_tensor_map (args, map);
  cugi_kernel_args_add_buffer (args, buffer);
  g_assert_true (cugi_kernel_signature_check (signature, args, &error));
  g_assert_no_error (error);
  cugi_kernel_args_clear (args);
  cugi_kernel_args_add_tensor_map (args, map);
  cugi_kernel_args_add_tensor_map (args, map);
  cugi_test_assert_fails (cugi_kernel_signature_check (signature, args, &error), &error,
                          CUGI_ERROR_INVALID_ARGUMENT, "takes 8 bytes, but the CugiTensorMap argument has 128");
  cugi_kernel_signature_free (signature);
}

/* The stand-in's kernel: copy (float *, CUtensorMap), the descriptor at
 * offset 64, where its alignment puts it. */
static const char image[] = "_Z4copyPf11CUtensorMap 8 128@64\n";

static CugiKernel *
copy_kernel_new (CugiContext *context)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = g_bytes_new_static (image, sizeof image);
  g_autoptr(CugiModule) module = cugi_module_new_from_data (context, bytes, &error);
  CugiKernel *kernel;

  g_assert_no_error (error);
  kernel = cugi_module_get_kernel (module, "_Z4copyPf11CUtensorMap", &error);
  g_assert_no_error (error);
  return kernel;
}

/* The parameters of the last launch: the pointer, then the descriptor. */
typedef struct
{
  guint64 out;
  guint8  padding[56];
  guint8  descriptor[128];
} CopyParams;

static void
assert_passed (CugiBuffer    *out,
               CugiTensorMap *map)
{
  CopyParams passed;

  g_assert_cmpuint (last_params (&passed, sizeof passed), ==, sizeof passed);
  g_assert_cmpuint (passed.out, ==, cugi_buffer_get_device_pointer (out));
  g_assert_cmpmem (passed.descriptor, 128, cugi_tensor_map_get_encoded (map), 128);
}

/* A launch passes the 128 bytes at the parameter's offset, and keeps the
 * map, and with it the buffer's memory, until it has run. */
static void
test_launch (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiContext) context = cugi_test_default_context ();
  g_autoptr(CugiKernel) kernel = copy_kernel_new (context);
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  g_autoptr(CugiLaunchConfig) config = cugi_launch_config_new (1, 32);
  g_autoptr(CugiBuffer) out = cugi_test_buffer_new (64);
  gboolean released;
  CugiBuffer *buffer = holding_buffer_new (&released);
  CugiTensorMap *map = tensor_map_new (buffer);
  CugiKernelArgs *args = cugi_kernel_args_new ();
  CugiTestGate gate = { 0 };
  CopyParams passed;

  G_STATIC_ASSERT (G_STRUCT_OFFSET (CopyParams, descriptor) == 64);
  cugi_launch_config_set_stream (config, stream);
  last_params (&passed, sizeof passed);

  cugi_kernel_args_add_buffer (args, out);
  cugi_kernel_args_add_tensor_map (args, map);
  cugi_test_gate_close (&gate, stream);
  g_assert_true (cugi_kernel_launch (kernel, config, args, &error));
  g_assert_no_error (error);
  assert_passed (out, map);

  g_assert_true (cugi_buffer_free (buffer, &error));
  g_assert_no_error (error);
  g_object_unref (buffer);
  g_object_unref (map);
  cugi_kernel_args_unref (args);
  cugi_test_settle (NULL);
  g_assert_false (released);
  cugi_test_gate_open (&gate, stream);
  cugi_test_settle (stream);
  g_assert_true (released);
}

/* cugi_kernel_launch_with() takes tensor maps by their tag, and refuses
 * another object under it, and a map of another context. */
static void
test_launch_with (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiContext) context = cugi_test_default_context ();
  g_autoptr(CugiKernel) kernel = copy_kernel_new (context);
  g_autoptr(CugiLaunchConfig) config = cugi_launch_config_new (1, 32);
  g_autoptr(CugiBuffer) out = cugi_test_buffer_new (64);
  g_autoptr(CugiBuffer) buffer = cugi_test_buffer_new (ROWS * PITCH);
  g_autoptr(CugiTensorMap) map = tensor_map_new (buffer);
  g_autoptr(CugiContext) created = NULL;
  g_autoptr(CugiBuffer) foreign = NULL;
  g_autoptr(CugiTensorMap) foreign_map = NULL;
  CopyParams passed;

  last_params (&passed, sizeof passed);
  g_assert_true (cugi_kernel_launch_with (kernel, config, &error, CUGI_ARG_BUFFER, out,
                                          CUGI_ARG_TENSOR_MAP, map, CUGI_ARG_END));
  g_assert_no_error (error);
  assert_passed (out, map);

  cugi_test_assert_fails (cugi_kernel_launch_with (kernel, config, &error, CUGI_ARG_BUFFER, out,
                                                   CUGI_ARG_TENSOR_MAP, buffer, CUGI_ARG_END),
                          &error, CUGI_ERROR_INVALID_ARGUMENT,
                          "argument 1: CUGI_ARG_TENSOR_MAP needs a CugiTensorMap");
  cugi_test_assert_fails (cugi_kernel_launch_with (kernel, config, &error, CUGI_ARG_BUFFER, out,
                                                   CUGI_ARG_TENSOR_MAP, NULL, CUGI_ARG_END),
                          &error, CUGI_ERROR_INVALID_ARGUMENT,
                          "argument 1: CUGI_ARG_TENSOR_MAP needs a CugiTensorMap");
  cugi_test_assert_fails (cugi_kernel_launch_with (kernel, config, &error, CUGI_ARG_TENSOR_MAP, map,
                                                   CUGI_ARG_BUFFER, out, CUGI_ARG_END),
                          &error, CUGI_ERROR_INVALID_ARGUMENT, "cannot take a CugiTensorMap");

  /* A map of another context: the kernel cannot read it. */
  created = cugi_context_new (cugi_context_get_device (context), CUGI_CONTEXT_FLAGS_NONE, &error);
  g_assert_no_error (error);
  foreign = cugi_buffer_new (created, ROWS * PITCH, &error);
  g_assert_no_error (error);
  foreign_map = tensor_map_new (foreign);
  cugi_test_assert_fails (cugi_kernel_launch_with (kernel, config, &error, CUGI_ARG_BUFFER, out,
                                                   CUGI_ARG_TENSOR_MAP, foreign_map, CUGI_ARG_END),
                          &error, CUGI_ERROR_INVALID_CONTEXT, "CugiTensorMap belongs to another context");
  cugi_test_settle (NULL);
}

int
main (int argc, char **argv)
{
  cugi_test_init_stand_in (&argc, &argv);
  last_encoding = cugi_test_stand_in_symbol ("fake_cuda_tensor_maps_last_encoding");
  last_params = cugi_test_stand_in_symbol ("fake_cuda_streams_last_params");

  g_test_add_func ("/tensor-map/encode", test_encode);
  g_test_add_func ("/tensor-map/bad-input", test_bad_input);
  g_test_add_func ("/tensor-map/old-driver", test_old_driver);
  g_test_add_func ("/tensor-map/keeps-buffer", test_keeps_buffer);
  g_test_add_func ("/kernel/signature", test_kernel_signature);
  g_test_add_func ("/kernel/launch", test_launch);
  g_test_add_func ("/kernel/launch-with", test_launch_with);

  return g_test_run ();
}
