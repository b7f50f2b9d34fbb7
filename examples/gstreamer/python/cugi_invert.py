#!/usr/bin/python3
"""pycugiinvert: a GStreamer element in Python that inverts RGBA and BGRA
frames with a cugi kernel. CugiGst.Filter does the rest: the CUDA context
shared with the neighbours, CUDA memory without copies, system memory
through pinned staging, the pools and the stream, errors as element errors.

    python3 cugi_invert.py [N]     # videotestsrc ! cudaupload ! pycugiinvert !
                                   # cudadownload ! fakesink, N frames

Or `import cugi_invert; cugi_invert.register()` and use `pycugiinvert` in
any pipeline of the process.
"""
import sys

import gi
gi.require_version('Gst', '1.0')
gi.require_version('Cugi', '1.0')
gi.require_version('CugiGst', '1.0')
from gi.repository import Gst, Cugi, CugiGst  # noqa: E402

Gst.init(None)   # CugiGst.Filter makes pad templates, which need it

SOURCE = r'''
extern "C" __global__ void
invert (const unsigned char *src, int src_pitch, unsigned char *dst, int dst_pitch,
        int width, int height)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height)
    return;
  const unsigned char *in = src + (size_t) y * src_pitch + x * 4;
  unsigned char *out = dst + (size_t) y * dst_pitch + x * 4;
  for (int c = 0; c < 3; c++)
    out[c] = 255 - in[c];
  out[3] = in[3];   /* alpha, last in RGBA and BGRA */
}
'''


class CugiInvert(CugiGst.Filter):
    __gstmetadata__ = ('cugi invert (Python)', 'Filter/Effect/Video/Hardware',
                       'Inverts RGBA frames with a cugi kernel, written in Python',
                       'The cugi developers')

    def do_set_info(self, in_info, out_info):
        # Through cugi's kernel cache: a restart loads the compiled kernel.
        self.kernel = Cugi.Kernel.new_from_source(self.get_cugi_context(), SOURCE, 'invert', None)
        return True

    def do_transform_frame(self, src, dst, stream):
        width, height = src.get_width(), src.get_height()
        self.kernel(src.get_plane(0), src.get_plane_pitch(0), dst.get_plane(0), dst.get_plane_pitch(0),
                    width, height, grid=((width + 15) // 16, (height + 15) // 16), block=(16, 16),
                    stream=stream)
        return True


CugiInvert.set_formats(['RGBA', 'BGRA'])


def register():
    """Makes `pycugiinvert` available to pipelines of this process."""
    return Gst.Element.register(None, 'pycugiinvert', Gst.Rank.NONE, CugiInvert)


def main(frames=100):
    register()
    # nvcodec registers cudaupload only where a driver is; elsewhere the
    # element runs on system memory and reports the missing driver itself.
    upload, download = ('cudaupload !', '! cudadownload') \
        if Gst.ElementFactory.find('cudaupload') else ('', '')
    pipeline = Gst.parse_launch(
        f'videotestsrc num-buffers={frames} ! video/x-raw,format=RGBA,width=1280,height=720 ! '
        f'{upload} pycugiinvert {download} ! fakesink')
    pipeline.set_state(Gst.State.PLAYING)
    message = pipeline.get_bus().timed_pop_filtered(
        Gst.CLOCK_TIME_NONE, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    pipeline.set_state(Gst.State.NULL)
    if message.type == Gst.MessageType.ERROR:
        error, debug = message.parse_error()
        print(f'error: {error.message} ({debug})', file=sys.stderr)
        return 1
    print(f'{frames} frames inverted on the GPU in Python')
    return 0


if __name__ == '__main__':
    sys.exit(main(*(int(a) for a in sys.argv[1:2])))
