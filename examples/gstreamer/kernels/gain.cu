// gain: each colour channel times a gain and plus an offset, both from the
// element's `parameters` ("<gain, offset>"), clamped to 0..255 and truncated;
// alpha kept. The cugikernel signature for RGBA or BGRA, then two floats.
extern "C" __global__ void
gain (const unsigned char *src, int src_stride,
      unsigned char *dst, int dst_stride,
      int width, int height, unsigned long long timestamp,
      float gain, float offset)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height)
    return;

  const unsigned char *in = src + (size_t) y * src_stride + x * 4;
  unsigned char *out = dst + (size_t) y * dst_stride + x * 4;
  for (int c = 0; c < 3; c++)
    out[c] = (unsigned char) fminf (fmaxf (in[c] * gain + offset, 0.0f), 255.0f);
  out[3] = in[3];
}
