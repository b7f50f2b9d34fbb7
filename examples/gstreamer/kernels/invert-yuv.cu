// invert_yuv: every sample of every plane inverted, for the planar and
// semi-planar YUV formats that nvdec and cudaupload produce: NV12, NV21,
// I420, YV12, Y42B, Y444 (8 bits), P010_10LE (10 bits in the high bits of 16),
// P016_LE and Y444_16LE (16 bits).
//
// cugikernel's signature gives each plane with its stride, inputs first,
// so the parameter list follows the format's plane count (cugikernel
// defines CUGIKERNEL_FORMAT_<format>). One thread per luma pixel; the
// threads within a chroma plane's size do that plane's samples too.
#if defined(CUGIKERNEL_FORMAT_NV12) || defined(CUGIKERNEL_FORMAT_NV21) || \
    defined(CUGIKERNEL_FORMAT_P010_10LE) || defined(CUGIKERNEL_FORMAT_P016_LE)
#define PLANES 2
#else
#define PLANES 3
#endif

#if defined(CUGIKERNEL_FORMAT_P010_10LE) || defined(CUGIKERNEL_FORMAT_P016_LE) || \
    defined(CUGIKERNEL_FORMAT_Y444_16LE)
typedef unsigned short sample;
#else
typedef unsigned char sample;
#endif

// Chroma subsampling: horizontal and vertical shift of the chroma planes.
#if defined(CUGIKERNEL_FORMAT_Y444) || defined(CUGIKERNEL_FORMAT_Y444_16LE)
#define SHIFT_X 0
#define SHIFT_Y 0
#elif defined(CUGIKERNEL_FORMAT_Y42B)
#define SHIFT_X 1
#define SHIFT_Y 0
#else
#define SHIFT_X 1
#define SHIFT_Y 1
#endif
// Semi-planar chroma interleaves U and V: two samples a chroma pixel.
#define CHROMA_SAMPLES (PLANES == 2 ? 2 : 1)

__device__ static sample
inverted (sample value)
{
#if defined(CUGIKERNEL_FORMAT_P010_10LE)
  return (sample) (~value & 0xffc0);   // 10 bits, the low 6 stay zero
#else
  return (sample) ~value;
#endif
}

__device__ static void
invert_at (const unsigned char *src, int src_stride, unsigned char *dst, int dst_stride,
           int x, int y, int samples)
{
  const sample *in = (const sample *) (src + (size_t) y * src_stride) + x * samples;
  sample *out = (sample *) (dst + (size_t) y * dst_stride) + x * samples;
  for (int i = 0; i < samples; i++)
    out[i] = inverted (in[i]);
}

extern "C" __global__ void
invert_yuv (const unsigned char *src_y, int src_y_stride,
            const unsigned char *src_u, int src_u_stride,
#if PLANES == 3
            const unsigned char *src_v, int src_v_stride,
#endif
            unsigned char *dst_y, int dst_y_stride,
            unsigned char *dst_u, int dst_u_stride,
#if PLANES == 3
            unsigned char *dst_v, int dst_v_stride,
#endif
            int width, int height, unsigned long long timestamp)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int chroma_width = (width + (1 << SHIFT_X) - 1) >> SHIFT_X;
  int chroma_height = (height + (1 << SHIFT_Y) - 1) >> SHIFT_Y;
  if (x >= width || y >= height)
    return;

  invert_at (src_y, src_y_stride, dst_y, dst_y_stride, x, y, 1);
  if (x >= chroma_width || y >= chroma_height)
    return;
  invert_at (src_u, src_u_stride, dst_u, dst_u_stride, x, y, CHROMA_SAMPLES);
#if PLANES == 3
  invert_at (src_v, src_v_stride, dst_v, dst_v_stride, x, y, 1);
#endif
}
