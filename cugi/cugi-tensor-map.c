/* cugi-tensor-map.c: tensor-map descriptors of device buffers, for the
 * tensor memory accelerator (TMA) */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "cugi-context-private.h"
#include "cugi-private.h"
#include "cugi-memory-private.h"

G_STATIC_ASSERT ((int) CUGI_TENSOR_DATA_TYPE_UINT8 == (int) CU_TENSOR_MAP_DATA_TYPE_UINT8);
G_STATIC_ASSERT ((int) CUGI_TENSOR_DATA_TYPE_BFLOAT16 == (int) CU_TENSOR_MAP_DATA_TYPE_BFLOAT16);
G_STATIC_ASSERT ((int) CUGI_TENSOR_DATA_TYPE_TFLOAT32_FTZ == (int) CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ);
G_STATIC_ASSERT ((int) CUGI_TENSOR_INTERLEAVE_CHUNKS_32B == (int) CU_TENSOR_MAP_INTERLEAVE_32B);
G_STATIC_ASSERT ((int) CUGI_TENSOR_SWIZZLE_SPAN_128B == (int) CU_TENSOR_MAP_SWIZZLE_128B);
G_STATIC_ASSERT ((int) CUGI_TENSOR_SWIZZLE_SPAN_128B_ATOM_64B == (int) CU_TENSOR_MAP_SWIZZLE_128B_ATOM_64B);
G_STATIC_ASSERT ((int) CUGI_TENSOR_L2_PROMOTION_FETCH_256B == (int) CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
G_STATIC_ASSERT ((int) CUGI_TENSOR_OOB_FILL_NAN_REQUEST_ZERO_FMA ==
                 (int) CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA);
/* The driver writes descriptors at 64-byte boundaries, kernels take them so. */
G_STATIC_ASSERT (sizeof (CUtensorMap) == 128 && G_ALIGNOF (CUtensorMap) >= 64);

/* cuTensorMapEncodeTiled's limits. */
#define MAX_RANK 5
#define MAX_DIM (G_GUINT64_CONSTANT (1) << 32)
#define STRIDE_LIMIT (G_GUINT64_CONSTANT (1) << 40)
#define MAX_BOX 256
#define MAX_ELEMENT_STRIDE 8

/**
 * CugiTensorMap:
 *
 * A tensor-map descriptor (`CUtensorMap`, made by `cuTensorMapEncodeTiled`):
 * how the tensor memory accelerator of GPUs of compute capability 9.0 and
 * later (`sm_90`) copies boxes of a tensor of 1 to 5 dimensions in a
 * #CugiBuffer to and from shared memory (`cp.async.bulk.tensor`). Kernels
 * take it by value, as a `const __grid_constant__ CUtensorMap` parameter of
 * 128 bytes: pass it with cugi_kernel_args_add_tensor_map(), as
 * %CUGI_ARG_TENSOR_MAP to cugi_kernel_launch_with(), or as the object
 * itself to cugi_kernel_launch_values().
 *
 * Everything cuTensorMapEncodeTiled documents is checked before the driver
 * sees it: each mistake is a %CUGI_ERROR_INVALID_ARGUMENT error naming the
 * argument. cugi checks too that the tensor lies within the buffer.
 *
 * A tensor map holds its buffer's address: it keeps the buffer, and its
 * memory, alive; cugi_buffer_free() releases the memory only once the
 * map is gone (and with it every launch that used it).
 *
 * Since: 0.1
 */

struct _CugiTensorMap
{
  GObject             parent_instance;

  CugiBuffer         *buffer;       /* (owned): work on it, as long as the map lives */
  CugiTensorDataType  data_type;
  guint               rank;
  /* GObject instances are not aligned as a descriptor must be: this is
   * allocated at its own alignment. */
  CUtensorMap        *descriptor;
};

G_DEFINE_FINAL_TYPE (CugiTensorMap, cugi_tensor_map, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_BUFFER,
  PROP_CONTEXT,
  PROP_DATA_TYPE,
  PROP_RANK,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
cugi_tensor_map_finalize (GObject *object)
{
  CugiTensorMap *self = CUGI_TENSOR_MAP (object);

  g_clear_pointer (&self->buffer, cugi_buffer_end_work);
  g_aligned_free (self->descriptor);

  G_OBJECT_CLASS (cugi_tensor_map_parent_class)->finalize (object);
}

static void
cugi_tensor_map_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  CugiTensorMap *self = CUGI_TENSOR_MAP (object);

  switch (prop_id)
    {
    case PROP_BUFFER:
      g_value_set_object (value, self->buffer);
      break;
    case PROP_CONTEXT:
      g_value_set_object (value, cugi_tensor_map_get_context (self));
      break;
    case PROP_DATA_TYPE:
      g_value_set_enum (value, self->data_type);
      break;
    case PROP_RANK:
      g_value_set_uint (value, self->rank);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cugi_tensor_map_class_init (CugiTensorMapClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamFlags flags = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  object_class->finalize = cugi_tensor_map_finalize;
  object_class->get_property = cugi_tensor_map_get_property;

  /**
   * CugiTensorMap:buffer:
   *
   * The buffer the tensor lies in, which the map keeps alive; %NULL for a
   * map of g_object_new().
   *
   * Since: 0.1
   */
  properties[PROP_BUFFER] = g_param_spec_object ("buffer", NULL, NULL, CUGI_TYPE_BUFFER, flags);

  /**
   * CugiTensorMap:context:
   *
   * The context of the buffer, the one kernels taking the map run in.
   *
   * Since: 0.1
   */
  properties[PROP_CONTEXT] = g_param_spec_object ("context", NULL, NULL, CUGI_TYPE_CONTEXT, flags);

  /**
   * CugiTensorMap:data-type:
   *
   * The type of the tensor's elements.
   *
   * Since: 0.1
   */
  properties[PROP_DATA_TYPE] = g_param_spec_enum ("data-type", NULL, NULL, CUGI_TYPE_TENSOR_DATA_TYPE,
                                                  CUGI_TENSOR_DATA_TYPE_UINT8, flags);

  /**
   * CugiTensorMap:rank:
   *
   * The number of dimensions of the tensor, 1 to 5; 0 for a map of
   * g_object_new().
   *
   * Since: 0.1
   */
  properties[PROP_RANK] = g_param_spec_uint ("rank", NULL, NULL, 0, MAX_RANK, 0, flags);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
cugi_tensor_map_init (CugiTensorMap *self)
{
  self->descriptor = g_aligned_alloc0 (1, sizeof (CUtensorMap), G_ALIGNOF (CUtensorMap));
}

static guint
element_size (CugiTensorDataType data_type)
{
  switch (data_type)
    {
    case CUGI_TENSOR_DATA_TYPE_UINT8:
      return 1;
    case CUGI_TENSOR_DATA_TYPE_UINT16:
    case CUGI_TENSOR_DATA_TYPE_FLOAT16:
    case CUGI_TENSOR_DATA_TYPE_BFLOAT16:
      return 2;
    case CUGI_TENSOR_DATA_TYPE_UINT32:
    case CUGI_TENSOR_DATA_TYPE_INT32:
    case CUGI_TENSOR_DATA_TYPE_FLOAT32:
    case CUGI_TENSOR_DATA_TYPE_FLOAT32_FTZ:
    case CUGI_TENSOR_DATA_TYPE_TFLOAT32:
    case CUGI_TENSOR_DATA_TYPE_TFLOAT32_FTZ:
      return 4;
    case CUGI_TENSOR_DATA_TYPE_UINT64:
    case CUGI_TENSOR_DATA_TYPE_INT64:
    case CUGI_TENSOR_DATA_TYPE_FLOAT64:
      return 8;
    default:
      return 0;
    }
}

static gboolean
is_floating_point (CugiTensorDataType data_type)
{
  /* The floating-point types follow the integers. */
  return data_type >= CUGI_TENSOR_DATA_TYPE_FLOAT16;
}

/* The bytes a swizzle shuffles its chunks within. */
static guint
swizzle_span (CugiTensorSwizzle swizzle)
{
  switch (swizzle)
    {
    case CUGI_TENSOR_SWIZZLE_SPAN_32B:
      return 32;
    case CUGI_TENSOR_SWIZZLE_SPAN_64B:
      return 64;
    case CUGI_TENSOR_SWIZZLE_NONE:
      return 0;
    default:
      return 128;
    }
}

/* An array of @rank values takes one per dimension. */
static gboolean
check_count (const char  *name,
             guint        count,
             guint        expected,
             GError     **error)
{
  if (count == expected)
    return TRUE;
  g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
               g_dngettext (GETTEXT_PACKAGE, "%s: the tensor needs %u value, not %u",
                            "%s: the tensor needs %u values, not %u", expected),
               name, expected, count);
  return FALSE;
}

/* What a tiled tensor map is made of, checked before the driver sees it. */
typedef struct
{
  CugiTensorDataType     data_type;
  guint                  rank;
  guint64                dims[MAX_RANK];
  guint64                strides[MAX_RANK - 1];
  guint32                box[MAX_RANK];
  guint32                element_strides[MAX_RANK];
  CugiTensorInterleave   interleave;
  CugiTensorSwizzle      swizzle;
  CugiTensorL2Promotion  l2_promotion;
  CugiTensorOobFill      oob_fill;
} Tiling;

/* The numbers and arrays of the constructor, in @tiling. Packed strides
 * where none are given; past 2^64 they saturate, which check_tiling()
 * then refuses. */
static gboolean
take_arrays (Tiling          *tiling,
             const guint64   *dims,
             guint            rank,
             const guint64   *strides,
             guint            n_strides,
             const guint32   *box,
             guint            n_box,
             const guint32   *element_strides,
             guint            n_element_strides,
             GError         **error)
{
  if (rank == 0 || rank > MAX_RANK)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("rank: a tensor map has 1 to %d dimensions, not %u"), MAX_RANK, rank);
      return FALSE;
    }
  if ((strides != NULL && !check_count ("strides", n_strides, rank - 1, error)) ||
      !check_count ("box", n_box, rank, error) ||
      (element_strides != NULL && !check_count ("element_strides", n_element_strides, rank, error)))
    return FALSE;

  tiling->rank = rank;
  memcpy (tiling->dims, dims, rank * sizeof *dims);
  memcpy (tiling->box, box, rank * sizeof *box);
  for (guint i = 0; i < rank; i++)
    tiling->element_strides[i] = element_strides != NULL ? element_strides[i] : 1;
  for (guint i = 0; i + 1 < rank; i++)
    {
      guint64 inner = i == 0 ? element_size (tiling->data_type) : tiling->strides[i - 1];

      if (strides != NULL)
        tiling->strides[i] = strides[i];
      else if (!g_uint64_checked_mul (&tiling->strides[i], inner, dims[i]))
        tiling->strides[i] = G_MAXUINT64;
    }
  return TRUE;
}

static gboolean
check_dimensions (const Tiling  *tiling,
                  GError       **error)
{
  guint size = element_size (tiling->data_type);
  guint stride_unit = tiling->interleave == CUGI_TENSOR_INTERLEAVE_CHUNKS_32B ? 32 : 16;

  for (guint i = 0; i < tiling->rank; i++)
    if (tiling->dims[i] == 0 || tiling->dims[i] > MAX_DIM)
      {
        g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                     _("dims[%u] is %llu: each dimension has 1 to 2^32 elements"),
                     i, (unsigned long long) tiling->dims[i]);
        return FALSE;
      }
  for (guint i = 0; i + 1 < tiling->rank; i++)
    if (tiling->strides[i] % stride_unit != 0 || tiling->strides[i] >= STRIDE_LIMIT)
      {
        g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                     _("strides[%u] is %llu bytes: each stride is a multiple of %u bytes, below 2^40"),
                     i, (unsigned long long) tiling->strides[i], stride_unit);
        return FALSE;
      }
  for (guint i = 0; i < tiling->rank; i++)
    {
      if (tiling->box[i] == 0 || tiling->box[i] > MAX_BOX)
        {
          g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                       _("box[%u] is %u: each dimension of a box has 1 to %d elements"),
                       i, tiling->box[i], MAX_BOX);
          return FALSE;
        }
      if (tiling->element_strides[i] == 0 || tiling->element_strides[i] > MAX_ELEMENT_STRIDE)
        {
          g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                       _("element_strides[%u] is %u: each element stride is 1 to %d"),
                       i, tiling->element_strides[i], MAX_ELEMENT_STRIDE);
          return FALSE;
        }
    }
  if (tiling->interleave == CUGI_TENSOR_INTERLEAVE_NONE && tiling->box[0] * size % 16 != 0)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("box[0] is %u elements of %u bytes: without interleaving, the rows of a box are "
                     "multiples of 16 bytes"),
                   tiling->box[0], size);
      return FALSE;
    }
  return TRUE;
}

/* The layout: interleaving, swizzling and the out-of-bounds fill. */
static gboolean
check_layout (const Tiling  *tiling,
              GError       **error)
{
  guint row = tiling->box[0] * element_size (tiling->data_type);
  guint span = swizzle_span (tiling->swizzle);

  if (tiling->interleave != CUGI_TENSOR_INTERLEAVE_NONE && tiling->rank < 3)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("interleave: an interleaved tensor has at least 3 dimensions, not %u"), tiling->rank);
      return FALSE;
    }
  if (tiling->interleave == CUGI_TENSOR_INTERLEAVE_CHUNKS_32B && tiling->swizzle != CUGI_TENSOR_SWIZZLE_SPAN_32B)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                           _("swizzle: interleaving in 32-byte chunks needs CUGI_TENSOR_SWIZZLE_SPAN_32B"));
      return FALSE;
    }
  if (tiling->interleave == CUGI_TENSOR_INTERLEAVE_NONE && row > span && span != 0)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("swizzle: the rows of the box take %u bytes, more than the %u bytes it swizzles within"),
                   row, span);
      return FALSE;
    }
  if (tiling->oob_fill == CUGI_TENSOR_OOB_FILL_NAN_REQUEST_ZERO_FMA && !is_floating_point (tiling->data_type))
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                           _("oob_fill: CUGI_TENSOR_OOB_FILL_NAN_REQUEST_ZERO_FMA is for floating-point "
                             "elements"));
      return FALSE;
    }
  return TRUE;
}

/* The tensor at @address lies within @buffer_size bytes, aligned as the
 * driver wants it. */
static gboolean
check_placement (const Tiling  *tiling,
                 CUdeviceptr    address,
                 gsize          buffer_size,
                 GError       **error)
{
  guint alignment = tiling->interleave == CUGI_TENSOR_INTERLEAVE_CHUNKS_32B ? 32 : 16;
  /* The last element's end: dims of at most 2^32 and strides below 2^40
   * may pass 2^64. */
  guint64 extent = tiling->dims[0] * element_size (tiling->data_type);
  gboolean fits = TRUE;

  if (address % alignment != 0)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("buffer: its address 0x%llx is not a multiple of %u bytes, as the tensor's must be"),
                   (unsigned long long) address, alignment);
      return FALSE;
    }
  for (guint i = 1; i < tiling->rank && fits; i++)
    {
      guint64 step;

      fits = g_uint64_checked_mul (&step, tiling->dims[i] - 1, tiling->strides[i - 1]) &&
             g_uint64_checked_add (&extent, extent, step);
    }
  if (fits && extent <= buffer_size)
    return TRUE;
  g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
               _("buffer: the tensor ends past its %zu bytes"), buffer_size);
  return FALSE;
}

/* Tensor maps are for sm_90 and later, which older GPUs do not say
 * clearly (the driver's error is an invalid value). */
static gboolean
check_device (CugiContext  *context,
              GError      **error)
{
  gint major, minor;

  cugi_device_get_compute_capability (cugi_context_get_device (context), &major, &minor);
  if (major >= 9)
    return TRUE;
  g_set_error (error, CUGI_ERROR, CUGI_ERROR_NOT_SUPPORTED,
               _("Tensor maps need a GPU of compute capability 9.0 or later, not %d.%d"), major, minor);
  return FALSE;
}

static CugiTensorMap *
tensor_map_new (CugiBuffer     *buffer,
                const Tiling   *tiling,
                GError        **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  g_autoptr(GError) local_error = NULL;
  g_autoptr(CugiTensorMap) self = NULL;
  CugiContext *context = cugi_buffer_get_context (buffer);
  CUdeviceptr address;

  if (!CUGI_REQUIRE_ENTRY_POINT (cuTensorMapEncodeTiled, error))
    return NULL;
  if (!cugi_check_enum_value (CUGI_TYPE_TENSOR_DATA_TYPE, tiling->data_type, error) ||
      !cugi_check_enum_value (CUGI_TYPE_TENSOR_INTERLEAVE, tiling->interleave, error) ||
      !cugi_check_enum_value (CUGI_TYPE_TENSOR_SWIZZLE, tiling->swizzle, error) ||
      !cugi_check_enum_value (CUGI_TYPE_TENSOR_L2_PROMOTION, tiling->l2_promotion, error) ||
      !cugi_check_enum_value (CUGI_TYPE_TENSOR_OOB_FILL, tiling->oob_fill, error) ||
      !check_dimensions (tiling, error) || !check_layout (tiling, error))
    return NULL;
  if (!cugi_buffer_get_address (buffer, &address, &local_error))
    {
      g_set_error (error, local_error->domain, local_error->code,
                   _("Cannot make a tensor map of the buffer: %s"), local_error->message);
      return NULL;
    }
  if (!check_placement (tiling, address, cugi_buffer_get_size (buffer), error) ||
      !check_device (context, error))
    return NULL;

  self = g_object_new (CUGI_TYPE_TENSOR_MAP, NULL);
  if (!cugi_context_enter (context, &scope, error) ||
      !CUGI_CALL (cuTensorMapEncodeTiled,
                  (self->descriptor, (CUtensorMapDataType) tiling->data_type, tiling->rank,
                   (void *) (guintptr) address, tiling->dims, tiling->strides, tiling->box,
                   tiling->element_strides, (CUtensorMapInterleave) tiling->interleave,
                   (CUtensorMapSwizzle) tiling->swizzle, (CUtensorMapL2promotion) tiling->l2_promotion,
                   (CUtensorMapFloatOOBfill) tiling->oob_fill),
                  error))
    return NULL;
  self->buffer = cugi_buffer_begin_work (buffer);
  self->data_type = tiling->data_type;
  self->rank = tiling->rank;
  return g_steal_pointer (&self);
}

/**
 * cugi_tensor_map_new_tiled:
 * @buffer: the buffer the tensor lies in, from its start
 * @data_type: the type of the tensor's elements
 * @dims: (array length=rank): the number of elements of each dimension,
 *   innermost first, each 1 to 2^32
 * @rank: the number of dimensions, 1 to 5
 * @strides: (array length=n_strides) (nullable): the distance in bytes
 *   between consecutive rows, slices... of each dimension but the first
 *   (@rank - 1 of them), each a multiple of 16 below 2^40; %NULL for a
 *   packed tensor
 * @n_strides: the number of @strides
 * @box: (array length=n_box): the number of elements of each dimension of
 *   the box a copy moves, each 1 to 256; its first times the element size
 *   is a multiple of 16 bytes
 * @n_box: the number of dimensions of @box, @rank
 * @error: return location for a #GError
 *
 * Makes the descriptor of a tiled tensor (`cuTensorMapEncodeTiled`) over
 * @buffer, which it keeps alive, as cugi_tensor_map_new_tiled_full() does
 * with every element stride 1, no interleaving, no swizzling, no L2
 * promotion and zeros outside the tensor.
 *
 * |[<!-- language="C" -->
 * // A 1000 × 600 matrix of floats, rows 4096 bytes apart, in 64 × 32 tiles
 * guint64 dims[] = { 1000, 600 }, strides[] = { 4096 };
 * guint32 box[] = { 64, 32 };
 * g_autoptr(CugiTensorMap) map =
 *   cugi_tensor_map_new_tiled (buffer, CUGI_TENSOR_DATA_TYPE_FLOAT32,
 *                              dims, 2, strides, 1, box, 2, &error);
 * ]|
 *
 * Returns: (transfer full): the new tensor map, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiTensorMap *
cugi_tensor_map_new_tiled (CugiBuffer          *buffer,
                           CugiTensorDataType   data_type,
                           const guint64       *dims,
                           guint                rank,
                           const guint64       *strides,
                           guint                n_strides,
                           const guint32       *box,
                           guint                n_box,
                           GError             **error)
{
  return cugi_tensor_map_new_tiled_full (buffer, data_type, dims, rank, strides, n_strides, box, n_box,
                                         NULL, 0, CUGI_TENSOR_INTERLEAVE_NONE, CUGI_TENSOR_SWIZZLE_NONE,
                                         CUGI_TENSOR_L2_PROMOTION_NONE, CUGI_TENSOR_OOB_FILL_ZERO, error);
}

/**
 * cugi_tensor_map_new_tiled_full:
 * @buffer: the buffer the tensor lies in, from its start
 * @data_type: the type of the tensor's elements
 * @dims: (array length=rank): the number of elements of each dimension,
 *   innermost first, each 1 to 2^32
 * @rank: the number of dimensions, 1 to 5 (3 to 5 when interleaved)
 * @strides: (array length=n_strides) (nullable): the distance in bytes
 *   between consecutive rows, slices... of each dimension but the first
 *   (@rank - 1 of them), each a multiple of 16 (32 when interleaved in
 *   32-byte chunks) below 2^40; %NULL for a packed tensor
 * @n_strides: the number of @strides
 * @box: (array length=n_box): the number of elements of each dimension of
 *   the box a copy moves, each 1 to 256; without interleaving, its first
 *   times the element size is a multiple of 16 bytes
 * @n_box: the number of dimensions of @box, @rank
 * @element_strides: (array length=n_element_strides) (nullable): the step
 *   of a copy in each dimension, each 1 to 8 (the first is ignored without
 *   interleaving); %NULL for steps of 1
 * @n_element_strides: the number of @element_strides, @rank
 * @interleave: the interleaved layout of the tensor
 * @swizzle: how boxes are shuffled across shared memory banks
 * @l2_promotion: the size of the requests that fill L2
 * @oob_fill: what elements outside the tensor read as
 * @error: return location for a #GError
 *
 * Makes the descriptor of a tiled tensor (`cuTensorMapEncodeTiled`) over
 * @buffer, which it keeps alive. Every rule the driver documents is checked
 * first, each broken one a %CUGI_ERROR_INVALID_ARGUMENT error naming the
 * argument: the counts of the arrays, the ranges of their values, the
 * alignment of the buffer's address (16 bytes, 32 when interleaved in
 * 32-byte chunks), and the swizzle's span, which holds the box's rows
 * without interleaving. The tensor must lie within @buffer too. A freed
 * buffer fails with %CUGI_ERROR_INVALID_STATE; a GPU older than compute
 * capability 9.0, or a driver without tensor maps (before CUDA 12.0),
 * with %CUGI_ERROR_NOT_SUPPORTED.
 *
 * Returns: (transfer full): the new tensor map, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiTensorMap *
cugi_tensor_map_new_tiled_full (CugiBuffer             *buffer,
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
                                GError                **error)
{
  Tiling tiling = {
    .data_type = data_type,
    .interleave = interleave,
    .swizzle = swizzle,
    .l2_promotion = l2_promotion,
    .oob_fill = oob_fill,
  };

  g_return_val_if_fail (CUGI_IS_BUFFER (buffer), NULL);
  g_return_val_if_fail (dims != NULL || rank == 0, NULL);
  g_return_val_if_fail (box != NULL || n_box == 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!take_arrays (&tiling, dims, rank, strides, n_strides, box, n_box, element_strides,
                    n_element_strides, error))
    return NULL;
  return tensor_map_new (buffer, &tiling, error);
}

/**
 * cugi_tensor_map_get_buffer:
 * @self: a #CugiTensorMap
 *
 * Returns: (transfer none) (nullable): the value of #CugiTensorMap:buffer
 *
 * Since: 0.1
 */
CugiBuffer *
cugi_tensor_map_get_buffer (CugiTensorMap *self)
{
  g_return_val_if_fail (CUGI_IS_TENSOR_MAP (self), NULL);

  return self->buffer;
}

/**
 * cugi_tensor_map_get_context:
 * @self: a #CugiTensorMap
 *
 * Returns: (transfer none) (nullable): the value of #CugiTensorMap:context
 *
 * Since: 0.1
 */
CugiContext *
cugi_tensor_map_get_context (CugiTensorMap *self)
{
  g_return_val_if_fail (CUGI_IS_TENSOR_MAP (self), NULL);

  return self->buffer != NULL ? cugi_buffer_get_context (self->buffer) : NULL;
}

/**
 * cugi_tensor_map_get_data_type:
 * @self: a #CugiTensorMap
 *
 * Returns: the value of #CugiTensorMap:data-type
 *
 * Since: 0.1
 */
CugiTensorDataType
cugi_tensor_map_get_data_type (CugiTensorMap *self)
{
  g_return_val_if_fail (CUGI_IS_TENSOR_MAP (self), CUGI_TENSOR_DATA_TYPE_UINT8);

  return self->data_type;
}

/**
 * cugi_tensor_map_get_rank:
 * @self: a #CugiTensorMap
 *
 * Returns: the value of #CugiTensorMap:rank
 *
 * Since: 0.1
 */
guint
cugi_tensor_map_get_rank (CugiTensorMap *self)
{
  g_return_val_if_fail (CUGI_IS_TENSOR_MAP (self), 0);

  return self->rank;
}

/**
 * cugi_tensor_map_get_descriptor:
 * @self: a #CugiTensorMap
 *
 * A copy of the 128 bytes of the descriptor, for kernels launched by other
 * libraries. Nothing keeps the buffer alive for those: its owner must.
 *
 * Returns: (transfer full): the descriptor's bytes
 *
 * Since: 0.1
 */
GBytes *
cugi_tensor_map_get_descriptor (CugiTensorMap *self)
{
  g_return_val_if_fail (CUGI_IS_TENSOR_MAP (self), NULL);

  return g_bytes_new (self->descriptor, sizeof *self->descriptor);
}

const CUtensorMap *
cugi_tensor_map_get_encoded (CugiTensorMap *self)
{
  return self->descriptor;
}
