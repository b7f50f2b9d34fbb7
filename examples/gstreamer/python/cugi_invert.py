#!/usr/bin/python3
"""A GStreamer element written in Python that inverts RGBA frames with a cugi
kernel, on CUDA memory without copies and on system memory through NumPy.

    python3 cugi_invert.py [N]     # runs videotestsrc ! cudaupload !
                                   # pycugiinvert ! cudadownload ! fakesink
                                   # (system memory where there is no cudaupload)

Or `import cugi_invert; cugi_invert.register()` and use `pycugiinvert` in any
pipeline of the process. What it shows:

- A GstBase.BaseTransform subclass registered in-process.
- GStreamer's CUDA context negotiation from Python (GstCuda's typelib), and
  the pipeline's CUcontext wrapped with Cugi.Context.new_for_handle().
- The device pointer of a GstCudaMemory: mapped with GST_MAP_CUDA, which
  gst-python cannot do (its Buffer.map() keeps only the READ and WRITE flags,
  and mapping for the host makes GStreamer download the frame), so this
  element calls gst_buffer_map() through ctypes; Cugi.Buffer.new_for_address()
  then wraps the pointer, checked against the driver. No copy is made.
- GStreamer 1.24's CUDA streams: a GstCudaMemory may carry the CUDA stream
  that its producer's work is still pending on, which a GST_MAP_CUDA mapping
  does not wait for (the handle is read through ctypes: the GstCuda
  typelib's CudaMemory.get_stream() takes no Gst.Memory). The kernel runs on
  the output memory's stream, where its consumer's work on it is, else on
  the input's, and waits on the device for the input's stream where that is
  another one; the element waits for the kernel before pushing the frame,
  as it always did.
- System memory: Cugi.to_device() and copy_to_host(), through cugi's pinned
  staging.
"""
import ctypes
import sys

import gi
gi.require_version('Gst', '1.0')
gi.require_version('GstBase', '1.0')
gi.require_version('GstVideo', '1.0')
gi.require_version('GstCuda', '1.0')
gi.require_version('Cugi', '1.0')
from gi.repository import GLib, GObject, Gst, GstBase, GstVideo, GstCuda, Cugi  # noqa: E402
import numpy  # noqa: E402

Gst.init(None)   # the templates below need it; a second call does nothing

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

CONTEXT_TYPE = 'gst.cuda.context'
CAPS = Gst.Caps.from_string('video/x-raw(memory:CUDAMemory),format=RGBA; video/x-raw,format=RGBA')
BLOCK = 16


class _MapInfo(ctypes.Structure):
    """GstMapInfo, as gst/gstmemory.h lays it out."""
    _fields_ = [('memory', ctypes.c_void_p), ('flags', ctypes.c_int),
                ('data', ctypes.c_void_p), ('size', ctypes.c_size_t),
                ('maxsize', ctypes.c_size_t), ('user_data', ctypes.c_void_p * 4),
                ('_gst_reserved', ctypes.c_void_p * 4)]


_gst = ctypes.CDLL('libgstreamer-1.0.so.0')
_gst.gst_buffer_map.argtypes = (ctypes.c_void_p, ctypes.POINTER(_MapInfo), ctypes.c_int)
_gst.gst_buffer_map.restype = ctypes.c_int
_gst.gst_buffer_unmap.argtypes = (ctypes.c_void_p, ctypes.POINTER(_MapInfo))

# GStreamer 1.24 and later: the stream a GstCudaMemory carries.
_gstcuda = ctypes.CDLL('libgstcuda-1.0.so.0')
try:
    _gstcuda.gst_cuda_memory_get_stream.argtypes = (ctypes.c_void_p,)
    _gstcuda.gst_cuda_memory_get_stream.restype = ctypes.c_void_p
    _gstcuda.gst_cuda_stream_get_handle.argtypes = (ctypes.c_void_p,)
    _gstcuda.gst_cuda_stream_get_handle.restype = ctypes.c_void_p
    HAVE_CUDA_STREAMS = True
except AttributeError:   # GStreamer 1.22
    HAVE_CUDA_STREAMS = False


def _boxed_pointer(boxed):
    # A Gst.Buffer or Gst.Memory is a PyGObject boxed wrapper: the C pointer
    # follows the Python object header (pygobject's PyGBoxed).
    return ctypes.c_void_p.from_address(id(boxed) + object.__basicsize__).value


def _stream_handle(memory):
    """The CUstream that the GstCudaMemory at @memory carries, 0 for none."""
    stream = _gstcuda.gst_cuda_memory_get_stream(memory) if HAVE_CUDA_STREAMS else None
    return (_gstcuda.gst_cuda_stream_get_handle(stream) or 0) if stream else 0


def cuda_stream_of(buffer):
    """The handle of the CUDA stream that the first memory of @buffer
    carries: 0 for none (system memory, or CUDA memory on the default
    stream), None where GStreamer's memory carries no streams (1.22)."""
    if not HAVE_CUDA_STREAMS:
        return None
    memory = buffer.peek_memory(0)
    return _stream_handle(_boxed_pointer(memory)) if GstCuda.is_cuda_memory(memory) else 0


class _CudaMapping:
    """A GstBuffer of CUDA memory mapped for the device: .address, .size,
    and .stream, the handle of the CUDA stream the memory carries (0 for
    none)."""

    def __init__(self, buffer, flags):
        self._buffer = _boxed_pointer(buffer)
        self._info = _MapInfo()
        if not _gst.gst_buffer_map(self._buffer, ctypes.byref(self._info), int(flags | MAP_CUDA)):
            raise GLib.Error('could not map CUDA memory for the device')
        self.address, self.size = self._info.data, self._info.size
        self.stream = _stream_handle(self._info.memory)

    def unmap(self):
        _gst.gst_buffer_unmap(self._buffer, ctypes.byref(self._info))


def _stride(buffer, info):
    meta = GstVideo.buffer_get_video_meta(buffer)
    return meta.stride[0] if meta is not None else info.stride[0]


def cuda_context_of(context):
    """The GstCuda.Context that @context carries, or None."""
    if context is None or context.get_context_type() != CONTEXT_TYPE:
        return None
    structure = context.get_structure()
    if hasattr(structure, '__enter__'):     # gst-python 1.24+ lends it through a wrapper
        with structure as lent:
            return lent.get_value(CONTEXT_TYPE)
    return structure.get_value(CONTEXT_TYPE)


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
        self.event = None
        self.kernel = None
        self.info = None

    def _error(self, error, debug):
        self.post_message(Gst.Message.new_error(self, error, debug))

    # -- context negotiation, as GStreamer's own CUDA elements do it --------
    # GstCuda's helpers take the context as a non-nullable in-out argument,
    # which Python cannot pass before there is one, so the steps are spelled
    # out: a context set on the element, else a neighbour's, else a new one
    # announced to the pipeline. (Answering neighbours' queries would need a
    # do_query override, which PyGObject refuses as ambiguous between
    # Gst.Element and GstBase.BaseTransform.)


    def do_set_context(self, context):
        if self.cuda_context is None:
            self.cuda_context = cuda_context_of(context)
        Gst.Element.do_set_context(self, context)

    def _ensure_cuda_context(self):
        for pad in (self.get_static_pad('src'), self.get_static_pad('sink')):
            if self.cuda_context is not None:
                return
            query = Gst.Query.new_context(CONTEXT_TYPE)
            if pad.peer_query(query):
                self.cuda_context = cuda_context_of(query.parse_context())
        if self.cuda_context is None:
            self.cuda_context = GstCuda.CudaContext.new(0)
            self.post_message(Gst.Message.new_have_context(
                self, GstCuda.context_new_cuda_context(self.cuda_context)))

    def do_start(self):
        try:
            Cugi.init()   # first: GstCuda aborts where no driver loaded
        except GLib.Error as error:
            self._error(error, 'initializing cugi')
            return False
        if not GstCuda.cuda_load_library():
            self._error(GLib.Error('GStreamer could not load the CUDA driver'), 'gst_cuda_load_library')
            return False
        try:
            self._ensure_cuda_context()
            self.context = Cugi.Context.new_for_handle(self.cuda_context.get_handle())
            self.stream = Cugi.Stream.new(self.context, Cugi.StreamFlags.NON_BLOCKING, 0)
            self.event = Cugi.Event.new(self.context, Cugi.EventFlags.DISABLE_TIMING)
            self.kernel = Cugi.Kernel.new_from_source(self.context, SOURCE, 'invert', None)
        except GLib.Error as error:
            self._error(error, 'setting up cugi')
            return False
        return True

    def do_stop(self):
        self.kernel = self.event = self.stream = self.context = self.cuda_context = None
        return True

    def do_set_caps(self, incaps, outcaps):
        self.info = GstVideo.VideoInfo.new_from_caps(incaps)
        return self.info is not None

    # -- frames -------------------------------------------------------------

    def _device_side(self, buffer, flags):
        """(cugi buffer, stride, mapping) for CUDA memory, else None."""
        if buffer.n_memory() != 1 or not GstCuda.is_cuda_memory(buffer.peek_memory(0)):
            return None
        mapping = _CudaMapping(buffer, flags)
        try:
            wrapped = Cugi.Buffer.new_for_address(self.context, mapping.address, mapping.size)
        except GLib.Error:
            mapping.unmap()
            raise
        return wrapped, _stride(buffer, self.info), mapping

    def _work_stream(self, source, target):
        """The stream for a frame whose CUDA mappings are @source and
        @target (None for system memory): the one the output memory
        carries, else the input's, else the element's own; it waits for the
        input's stream where that is another one (GStreamer 1.24+)."""
        handles = [m.stream for m in (target, source) if m is not None and m.stream]
        if not handles:
            return self.stream
        stream = Cugi.Stream.new_for_handle(self.context, handles[0])
        if len(handles) == 2 and handles[1] != handles[0]:
            self.event.record(Cugi.Stream.new_for_handle(self.context, handles[1]))
            stream.wait_event(self.event)
        return stream

    def do_transform(self, inbuf, outbuf):
        width, height = self.info.width, self.info.height
        mappings = []   # (buffer, Gst.MapInfo) or (None, _CudaMapping)
        try:
            source = self._device_side(inbuf, Gst.MapFlags.READ)
            if source is None:
                ok, mapinfo = inbuf.map(Gst.MapFlags.READ)
                mappings.append((inbuf, mapinfo))
                stride = _stride(inbuf, self.info)
                rows = numpy.frombuffer(mapinfo.data, numpy.uint8)[:stride * height]
                source = (Cugi.to_device(rows, self.context), stride, None)
            else:
                mappings.append((None, source[2]))

            target = self._device_side(outbuf, Gst.MapFlags.WRITE)
            if target is None:
                out_stride = _stride(outbuf, self.info)
                target = (Cugi.Buffer.new(self.context, out_stride * height), out_stride, None)
            else:
                mappings.append((None, target[2]))

            stream = self._work_stream(source[2], target[2])
            pts = inbuf.pts if inbuf.pts != Gst.CLOCK_TIME_NONE else (1 << 64) - 1
            self.kernel(source[0], source[1], target[0], target[1], width, height, pts,
                        grid=((width + BLOCK - 1) // BLOCK, (height + BLOCK - 1) // BLOCK),
                        block=(BLOCK, BLOCK), stream=stream)
            # Before pushing: the output is complete, and the input may go
            # back to its producer.
            stream.synchronize()

            if target[2] is None:
                ok, mapinfo = outbuf.map(Gst.MapFlags.WRITE)
                mappings.append((outbuf, mapinfo))
                view = numpy.frombuffer(mapinfo.data, numpy.uint8)
                view[:target[1] * height] = target[0].copy_to_host(numpy.uint8)
        except GLib.Error as error:
            self._error(error, 'running the kernel on a frame')
            return Gst.FlowReturn.ERROR
        finally:
            for buffer, mapping in reversed(mappings):
                if buffer is None:
                    mapping.unmap()
                else:
                    buffer.unmap(mapping)
        return Gst.FlowReturn.OK


GObject.type_register(CugiInvert)


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
