// copy: the frame unchanged, 4 bytes a pixel (RGBA, BGRA); what
// bench-gstreamer runs to measure cugikernel's own cost.
extern "C" __global__ void
copy (const unsigned char *src, int src_stride,
      unsigned char *dst, int dst_stride,
      int width, int height, unsigned long long timestamp)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height)
    return;

  *(unsigned int *) (dst + (size_t) y * dst_stride + x * 4) =
    *(const unsigned int *) (src + (size_t) y * src_stride + x * 4);
}
