// invert_nv12: 255 - value for luma and both chroma samples of NV12.
//
// cugikernel's signature for two-plane formats (NV12): the input's luma
// plane and stride, its interleaved chroma plane and stride, the same for the
// output, then width, height, timestamp and the float parameters. One thread
// per luma pixel; the thread of each even (x, y) also does the chroma pair of
// its 2x2 block.
extern "C" __global__ void
invert_nv12 (const unsigned char *src_y, int src_y_stride,
             const unsigned char *src_uv, int src_uv_stride,
             unsigned char *dst_y, int dst_y_stride,
             unsigned char *dst_uv, int dst_uv_stride,
             int width, int height, unsigned long long timestamp)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height)
    return;

  dst_y[(size_t) y * dst_y_stride + x] = 255 - src_y[(size_t) y * src_y_stride + x];
  if ((x & 1) == 0 && (y & 1) == 0)
    {
      size_t in = (size_t) (y / 2) * src_uv_stride + x;
      size_t out = (size_t) (y / 2) * dst_uv_stride + x;
      dst_uv[out] = 255 - src_uv[in];
      dst_uv[out + 1] = 255 - src_uv[in + 1];
    }
}
