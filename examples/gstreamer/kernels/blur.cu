// blur: a 3x3 box blur of every channel of RGBA or BGRA, rounded to the
// nearest integer ((sum + 4) / 9), with the edge pixels repeated outside the
// frame. The cugikernel signature for one-plane formats, no parameters.
extern "C" __global__ void
blur (const unsigned char *src, int src_stride,
      unsigned char *dst, int dst_stride,
      int width, int height, unsigned long long timestamp)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height)
    return;

  for (int c = 0; c < 4; c++)
    {
      int sum = 0;
      for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++)
          {
            int sx = min (max (x + dx, 0), width - 1);
            int sy = min (max (y + dy, 0), height - 1);
            sum += src[(size_t) sy * src_stride + sx * 4 + c];
          }
      dst[(size_t) y * dst_stride + x * 4 + c] = (unsigned char) ((sum + 4) / 9);
    }
}
