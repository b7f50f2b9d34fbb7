#!/usr/bin/python3
"""A GStreamer element written in Python that inverts RGBA frames with a cugi
kernel, on CUDA memory without copies and on system memory through NumPy.

    python3 cugi_invert.py [N]     # runs videotestsrc ! cudaupload !
                                   # pycugiinvert ! cudadownload ! fakesink

Or `import cugi_invert; cugi_invert.register()` and use `pycugiinvert` in any
pipeline of the process. What it shows:

- A GstBase.BaseTransform subclass registered in-process.
- GStreamer's CUDA context negotiation from Python (GstCuda's typelib), and
  the pipeline's CUcontext wrapped with Cugi.Context.new_for_handle().
- The device pointer of a GstCudaMemory: map the buffer with GST_MAP_CUDA
  (not in the typelib: Gst.MapFlags.FLAG_LAST << 1). gst-python hands back a
  memoryview over the mapped pointer; numpy.frombuffer() gives its address
  without reading it (reading it on the host would crash), and
  Cugi.Buffer.new_for_address() wraps it, checked against the driver.
- System memory: Cugi.to_device() and copy_to_host(), through cugi's pinned
  staging.
"""
import sys

import gi
gi.require_version('Gst', '1.0')
gi.require_version('GstBase', '1.0')
gi.require_version('GstVideo', '1.0')
gi.require_version('GstCuda', '1.0')
gi.require_version('Cugi', '1.0')
from gi.repository import GLib, GObject, Gst, GstBase, GstVideo, GstCuda, Cugi  # noqa: E402
import numpy  # noqa: E402

# GST_MAP_CUDA from gst/cuda/gstcudamemory.h: map for device access.
MAP_CUDA = Gst.MapFlags.FLAG_LAST << 1

SOURCE = r'''
extern "C" __global__ void
invert (const unsigned char *src, int src_stride, unsigned char *dst, int dst_stride,
        int width, int height, unsigned long long timestamp)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height)
    return;
  const unsigned char *in = src + (size_t) y * src_stride + x * 4;
  unsigned char *out = dst + (size_t) y * dst_stride + x * 4;
  out[0] = 255 - in[0];
  out[1] = 255 - in[1];
  out[2] = 255 - in[2];
  out[3] = in[3];
}
'''

CAPS = Gst.Caps.from_string('video/x-raw(memory:CUDAMemory),format=RGBA; video/x-raw,format=RGBA')
BLOCK = 16


def _address(mapinfo):
    """The address a mapping points at, without reading through it."""
    return numpy.frombuffer(mapinfo.data, numpy.uint8).ctypes.data


def _stride(buffer, info):
    meta = GstVideo.buffer_get_video_meta(buffer)
    return meta.stride[0] if meta is not None else info.stride[0]


class CugiInvert(GstBase.BaseTransform):
    __gstmetadata__ = ('cugi invert (Python)', 'Filter/Effect/Video',
                       'Inverts RGBA frames with a cugi kernel, written in Python',
                       'The cugi developers')
    __gsttemplates__ = (
        Gst.PadTemplate.new('sink', Gst.PadDirection.SINK, Gst.PadPresence.ALWAYS, CAPS),
        Gst.PadTemplate.new('src', Gst.PadDirection.SRC, Gst.PadPresence.ALWAYS, CAPS),
    )

    def __init__(self):
        super().__init__()
        self.cuda_context = None
        self.context = None
        self.stream = None
        self.kernel = None
        self.info = None

    def _error(self, error, debug):
        self.post_message(Gst.Message.new_error(self, error, debug))

    # -- context negotiation, as GStreamer's own CUDA elements do it --------

    def do_set_context(self, context):
        found, cuda_context = GstCuda.cuda_handle_set_context(self, context, -1, self.cuda_context)
        if found:
            self.cuda_context = cuda_context
        Gst.Element.do_set_context(self, context)

    def do_query(self, direction, query):
        if query.type == Gst.QueryType.CONTEXT and self.cuda_context is not None and \
           GstCuda.cuda_handle_context_query(self, query, self.cuda_context):
            return True
        return GstBase.BaseTransform.do_query(self, direction, query)

    def do_start(self):
        try:
            Cugi.init()   # first: GstCuda aborts where no driver loaded
        except GLib.Error as error:
            self._error(error, 'initializing cugi')
            return False
        if not GstCuda.cuda_load_library():
            self._error(GLib.Error('GStreamer could not load the CUDA driver'), 'gst_cuda_load_library')
            return False
        found, self.cuda_context = GstCuda.cuda_ensure_element_context(self, -1, self.cuda_context)
        if not found:
            self._error(GLib.Error('No CUDA context'), 'gst_cuda_ensure_element_context')
            return False
        try:
            self.context = Cugi.Context.new_for_handle(self.cuda_context.get_handle())
            self.stream = Cugi.Stream.new(self.context, Cugi.StreamFlags.NON_BLOCKING, 0)
            self.kernel = Cugi.Kernel.new_from_source(self.context, SOURCE, 'invert', None)
        except GLib.Error as error:
            self._error(error, 'setting up cugi')
            return False
        return True

    def do_stop(self):
        self.kernel = self.stream = self.context = self.cuda_context = None
        return True

    def do_set_caps(self, incaps, outcaps):
        self.info = GstVideo.VideoInfo.new_from_caps(incaps)
        return self.info is not None

    # -- frames -------------------------------------------------------------

    def _device_side(self, buffer, flags):
        """(cugi buffer, stride, mapinfo) for CUDA memory, else None."""
        if buffer.n_memory() != 1 or not GstCuda.is_cuda_memory(buffer.peek_memory(0)):
            return None
        ok, mapinfo = buffer.map(flags | MAP_CUDA)
        if not ok:
            raise GLib.Error('could not map CUDA memory')
        wrapped = Cugi.Buffer.new_for_address(self.context, _address(mapinfo), mapinfo.size)
        return wrapped, _stride(buffer, self.info), mapinfo

    def do_transform(self, inbuf, outbuf):
        width, height = self.info.width, self.info.height
        mappings = []
        try:
            source = self._device_side(inbuf, Gst.MapFlags.READ)
            if source is None:
                ok, mapinfo = inbuf.map(Gst.MapFlags.READ)
                mappings.append((inbuf, mapinfo))
                stride = _stride(inbuf, self.info)
                rows = numpy.frombuffer(mapinfo.data, numpy.uint8)[:stride * height]
                source = (Cugi.to_device(rows), stride, None)
            else:
                mappings.append((inbuf, source[2]))

            target = self._device_side(outbuf, Gst.MapFlags.WRITE)
            if target is None:
                out_stride = _stride(outbuf, self.info)
                target = (Cugi.Buffer.new(self.context, out_stride * height), out_stride, None)
            else:
                mappings.append((outbuf, target[2]))

            pts = inbuf.pts if inbuf.pts != Gst.CLOCK_TIME_NONE else (1 << 64) - 1
            self.kernel(source[0], source[1], target[0], target[1], width, height, pts,
                        grid=((width + BLOCK - 1) // BLOCK, (height + BLOCK - 1) // BLOCK),
                        block=(BLOCK, BLOCK), stream=self.stream)
            self.stream.synchronize()

            if target[2] is None:
                ok, mapinfo = outbuf.map(Gst.MapFlags.WRITE)
                mappings.append((outbuf, mapinfo))
                view = numpy.frombuffer(mapinfo.data, numpy.uint8)
                view[:target[1] * height] = target[0].copy_to_host(numpy.uint8)
        except GLib.Error as error:
            self._error(error, 'running the kernel on a frame')
            return Gst.FlowReturn.ERROR
        finally:
            for buffer, mapinfo in reversed(mappings):
                buffer.unmap(mapinfo)
        return Gst.FlowReturn.OK


GObject.type_register(CugiInvert)


def register():
    """Makes `pycugiinvert` available to pipelines of this process."""
    return Gst.Element.register(None, 'pycugiinvert', Gst.Rank.NONE, CugiInvert)


def main(frames=100):
    Gst.init(None)
    register()
    pipeline = Gst.parse_launch(
        f'videotestsrc num-buffers={frames} ! video/x-raw,format=RGBA,width=1280,height=720 ! '
        'cudaupload ! pycugiinvert ! cudadownload ! fakesink')
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
