// invert: 255 - value for each colour channel, alpha kept.
//
// cugikernel's signature for one-plane formats (RGBA, BGRA, GRAY8): the input
// and output planes with their strides in bytes, the frame's size in pixels
// and its timestamp in nanoseconds (~0ull when it has none), then one float
// per entry of the element's `parameters` (none here). One thread per pixel,
// in 16x16 blocks. cugikernel defines CUGIKERNEL_FORMAT_<format> when it
// compiles, so one source serves several formats.
#if defined(CUGIKERNEL_FORMAT_GRAY8)
#define CHANNELS 1
#define COLOURS 1
#else
#define CHANNELS 4
#define COLOURS 3   // RGBA and BGRA both keep alpha last
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
    out[c] = c < COLOURS ? 255 - in[c] : in[c];
}
