// invert: 255 - value for each colour channel, alpha (or x) kept.
//
// cugikernel's signature for one-plane formats (RGBA, BGRA, RGBx, BGRx,
// ARGB, ABGR, GRAY8): the input and output planes with their strides in
// bytes, the frame's size in pixels and its timestamp in nanoseconds (~0ull
// when it has none), then one float per entry of the element's `parameters`
// (none here). One thread per pixel, in 16x16 blocks. cugikernel defines
// CUGIKERNEL_FORMAT_<format> when it compiles, so one source serves several
// formats.
#if defined(CUGIKERNEL_FORMAT_GRAY8)
#define CHANNELS 1
#define FIRST_COLOUR 0
#define COLOURS 1
#elif defined(CUGIKERNEL_FORMAT_ARGB) || defined(CUGIKERNEL_FORMAT_ABGR)
#define CHANNELS 4
#define FIRST_COLOUR 1   // alpha first
#define COLOURS 3
#else
#define CHANNELS 4
#define FIRST_COLOUR 0   // RGBA, BGRA, RGBx, BGRx: alpha or padding last
#define COLOURS 3
#endif

extern "C" __global__ void
invert (const unsigned char *src, int src_stride,
        unsigned char *dst, int dst_stride,
        int width, int height, unsigned long long timestamp)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height)
    return;

  const unsigned char *in = src + (size_t) y * src_stride + x * CHANNELS;
  unsigned char *out = dst + (size_t) y * dst_stride + x * CHANNELS;
  for (int c = 0; c < CHANNELS; c++)
    out[c] = c >= FIRST_COLOUR && c < FIRST_COLOUR + COLOURS ? 255 - in[c] : in[c];
}
