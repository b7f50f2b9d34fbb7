#!/usr/bin/python3
"""cugikernel and the Python element on a GPU, in real pipelines with
nvcodec's cudaupload and cudadownload: every format cugikernel advertises in
each memory it is offered in, in and out, to caps and to fakesink. Every
output frame is checked byte for byte against a CPU reference computed from
the same videotestsrc frames. On GStreamer 1.24 and later (Streams), frames
whose producer or whose element is held up on its CUDA stream.
Exits 77 (skipped) without a driver or without nvcodec's CUDA elements.
"""
import atexit
import glob
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import gi
gi.require_version('Gst', '1.0')
gi.require_version('GstVideo', '1.0')
gi.require_version('GstCuda', '1.0')
gi.require_version('Cugi', '1.0')
from gi.repository import GLib, Gst, GstVideo, GstCuda, Cugi  # noqa: E402
import numpy  # noqa: E402

KERNELS = os.environ['CUGI_GST_KERNELS']
sys.path.insert(0, os.environ['CUGI_GST_PYTHON'])


def point_gstreamer_at_nvrtc():
    """nvcodec registers its CUDA filters (cudaconvertscale, which Streams
    needs) only where GStreamer's CUDA library opens NVRTC, and it opens
    just `libnvrtc.so` on the loader's path or GST_CUDA_NVRTC_LIBNAME
    (gstcudanvrtc.cpp): a toolkit in /usr/local/cuda, as on the GPU machine,
    is on neither. Where unset, the toolkit's NVRTC, in a registry of this
    run's own, so that nvcodec is scanned with it."""
    if 'GST_CUDA_NVRTC_LIBNAME' in os.environ:
        return
    toolkit = os.environ.get('CUDA_HOME', '/usr/local/cuda')
    found = sorted(glob.glob(os.path.join(toolkit, 'lib64', 'libnvrtc.so*')), key=len)
    if found:
        os.environ['GST_CUDA_NVRTC_LIBNAME'] = found[0]
        scratch = tempfile.mkdtemp(prefix='cugi-gst-registry-')
        atexit.register(shutil.rmtree, scratch, True)
        os.environ['GST_REGISTRY'] = os.path.join(scratch, 'registry.bin')


point_gstreamer_at_nvrtc()
Gst.init(None)
try:
    Cugi.init()
except GLib.Error as error:
    print(f'SKIP: no GPU: {error.message}')
    sys.exit(77)
if Gst.ElementFactory.find('cudaupload') is None:
    print("SKIP: GStreamer's nvcodec plugin has no cudaupload here")
    sys.exit(77)

import cuda_memory_probe  # noqa: E402
import cugi_invert  # noqa: E402
cugi_invert.register()

WIDTH, HEIGHT = 1920, 1080
FRAMES = 4
SOURCE = f'videotestsrc num-buffers={FRAMES} pattern=ball'


def rgba(width=WIDTH, height=HEIGHT, fmt='RGBA'):
    return f'video/x-raw,format={fmt},width={width},height={height}'


# The planes of each format cugikernel takes: (horizontal and vertical
# subsampling, bytes a pixel of the plane).
PLANES = {
    **{fmt: [(1, 1, 4)] for fmt in ('RGBA', 'BGRA', 'RGBx', 'BGRx', 'ARGB', 'ABGR')},
    'GRAY8': [(1, 1, 1)],
    **{fmt: [(1, 1, 1), (2, 2, 2)] for fmt in ('NV12', 'NV21')},
    **{fmt: [(1, 1, 1), (2, 2, 1), (2, 2, 1)] for fmt in ('I420', 'YV12')},
    'Y42B': [(1, 1, 1), (2, 1, 1), (2, 1, 1)],
    'Y444': [(1, 1, 1)] * 3,
    **{fmt: [(1, 1, 2), (2, 2, 4)] for fmt in ('P010_10LE', 'P016_LE')},
    'Y444_16LE': [(1, 1, 2)] * 3,
}


def plane_shapes(info):
    """(rows, bytes a row) of each plane of the formats cugikernel takes."""
    fmt = info.finfo.name
    return [(-(-info.height // sub_y), -(-info.width // sub_x) * size)
            for sub_x, sub_y, size in PLANES[fmt]]


def frame_planes(caps, buffer):
    """The planes of a frame as 2D uint8 arrays, padding removed."""
    info = GstVideo.VideoInfo.new_from_caps(caps)
    meta = GstVideo.buffer_get_video_meta(buffer)
    layout = meta if meta is not None else info
    ok, mapinfo = buffer.map(Gst.MapFlags.READ)
    assert ok
    try:
        data = numpy.frombuffer(mapinfo.data, numpy.uint8).copy()
    finally:
        buffer.unmap(mapinfo)
    planes = []
    for plane, (rows, row_bytes) in enumerate(plane_shapes(info)):
        start, stride = layout.offset[plane], layout.stride[plane]
        planes.append(data[start:start + stride * rows].reshape(rows, stride)[:, :row_bytes])
    return planes


# For each cugikernel and pycugiinvert of the last pipeline run: whether its
# sink and src pads negotiated CUDA memory, in pipeline order.
NEGOTIATED = []
CUDA = 'memory:CUDAMemory'
# cudaupload passes system memory through unless its output is pinned to
# CUDA memory.
UPLOAD = 'cudaupload ! video/x-raw(memory:CUDAMemory)'


def record_negotiated(pipeline):
    NEGOTIATED.clear()
    elements = []
    iterator = pipeline.iterate_sorted()
    while True:
        result, element = iterator.next()
        if result != Gst.IteratorResult.OK:
            break
        if element.get_factory().get_name() in ('cugikernel', 'pycugiinvert'):
            elements.insert(0, element)   # sorted is sinks first
    for element in elements:
        NEGOTIATED.append(tuple(
            element.get_static_pad(pad).get_current_caps().get_features(0).contains(CUDA)
            for pad in ('sink', 'src')))


def collect_frames(sink, frames):
    """Appends the planes of each frame that @sink, an appsink or a
    fakesink, receives to @frames."""
    sink.set_property('sync', False)
    if sink.get_factory().get_name() == 'fakesink':
        sink.set_property('signal-handoffs', True)
        sink.connect('handoff', lambda s, buffer, pad: frames.append(
            frame_planes(pad.get_current_caps(), buffer)))
        return
    sink.set_property('emit-signals', True)

    def on_sample(appsink):
        sample = appsink.emit('pull-sample')
        frames.append(frame_planes(sample.get_caps(), sample.get_buffer()))
        return Gst.FlowReturn.OK
    sink.connect('new-sample', on_sample)


def run(description, sinks=('out',), timeout_s=120, setup=None, before_stop=None):
    """Runs a pipeline to EOS; returns {sink name: [planes of each frame]}
    for its appsinks and fakesinks named in @sinks. @setup(pipeline) runs
    before it plays, @before_stop() once it has ended, before it stops. A
    pipeline error raises, with the element's message."""
    pipeline = Gst.parse_launch(description)
    frames = {name: [] for name in sinks}
    for name in sinks:
        collect_frames(pipeline.get_by_name(name), frames[name])
    if setup is not None:
        setup(pipeline)
    pipeline.set_state(Gst.State.PLAYING)
    message = pipeline.get_bus().timed_pop_filtered(
        timeout_s * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    if message is not None and message.type == Gst.MessageType.EOS:
        record_negotiated(pipeline)
    if before_stop is not None:
        before_stop()
    pipeline.set_state(Gst.State.NULL)
    if message is None:
        raise TimeoutError(description)
    if message.type == Gst.MessageType.ERROR:
        error, debug = message.parse_error()
        raise RuntimeError(f'{message.src.get_name()}: {error.message} ({debug})')
    return frames


def reference_inputs(caps=None, source=SOURCE):
    return run(f'{source} ! {caps or rgba()} ! appsink name=out')['out']


def invert(planes, alpha=True):
    out = [255 - p for p in planes]
    if alpha:
        out[0] = out[0].reshape(out[0].shape[0], -1, 4).copy()
        out[0][:, :, 3] = planes[0].reshape(planes[0].shape[0], -1, 4)[:, :, 3]
        out[0] = out[0].reshape(planes[0].shape)
    return out


def blur(planes):
    image = planes[0].reshape(planes[0].shape[0], -1, 4).astype(numpy.int32)
    padded = numpy.pad(image, ((1, 1), (1, 1), (0, 0)), mode='edge')
    total = sum(padded[1 + dy:1 + dy + image.shape[0], 1 + dx:1 + dx + image.shape[1]]
                for dy in (-1, 0, 1) for dx in (-1, 0, 1))
    return [((total + 4) // 9).astype(numpy.uint8).reshape(planes[0].shape)]


def gain(planes, factor, offset):
    image = planes[0].reshape(planes[0].shape[0], -1, 4)
    out = image.copy()
    scaled = image[:, :, :3].astype(numpy.float32) * numpy.float32(factor) + numpy.float32(offset)
    out[:, :, :3] = numpy.clip(scaled, 0, 255).astype(numpy.uint8)
    return [out.reshape(planes[0].shape)]


def kernel(name, file=None, extra=''):
    return f'cugikernel location={KERNELS}/{file or name + ".cu"} kernel-name={name} {extra}'


class FrameChecks(unittest.TestCase):
    def assert_memory(self, *expected):
        """(sink in CUDA memory, src in CUDA memory) of each element."""
        self.assertEqual(NEGOTIATED, list(expected))

    def assert_frames(self, actual, expected):
        self.assertEqual(len(actual), len(expected))
        for index, (got, want) in enumerate(zip(actual, expected)):
            for plane, (g, w) in enumerate(zip(got, want)):
                self.assertEqual(g.shape, w.shape, f'frame {index} plane {plane}')
                mismatches = numpy.count_nonzero(g != w)
                self.assertEqual(mismatches, 0, f'frame {index} plane {plane}: {mismatches} bytes differ')


class Frames(FrameChecks):
    @classmethod
    def setUpClass(cls):
        cls.inputs = reference_inputs()
        assert len(cls.inputs) == FRAMES

    def test_invert_cuda_memory(self):
        out = run(f'{SOURCE} ! {rgba()} ! {UPLOAD} ! {kernel("invert")} ! cudadownload ! '
                  f'{rgba()} ! appsink name=out')['out']
        self.assert_memory((True, True))
        self.assert_frames(out, [invert(f) for f in self.inputs])

    def test_blur_cuda_memory(self):
        out = run(f'{SOURCE} ! {rgba()} ! {UPLOAD} ! {kernel("blur")} ! cudadownload ! '
                  f'{rgba()} ! appsink name=out')['out']
        self.assert_memory((True, True))
        self.assert_frames(out, [blur(f) for f in self.inputs])

    def test_system_memory(self):
        # Upstream takes cugikernel's pool of pinned memory: DMA both ways.
        out = run(f'{SOURCE} ! {rgba()} ! {kernel("invert")} ! {rgba()} ! appsink name=out')['out']
        self.assert_memory((False, False))
        self.assert_frames(out, [invert(f) for f in self.inputs])

    def test_system_memory_not_pinned(self):
        # A tee in between: frames in videotestsrc's own memory, staged.
        out = run(f'{SOURCE} ! {rgba()} ! tee ! queue ! {kernel("blur")} ! queue ! '
                  f'{rgba()} ! appsink name=out')['out']
        self.assert_memory((False, False))
        self.assert_frames(out, [blur(f) for f in self.inputs])

    def test_system_to_cuda_and_back(self):
        out = run(f'{SOURCE} ! {rgba()} ! {kernel("invert")} ! '
                  f'video/x-raw(memory:CUDAMemory) ! {kernel("blur")} ! video/x-raw ! '
                  f'appsink name=out')['out']
        self.assert_memory((False, True), (True, False))
        self.assert_frames(out, [blur(invert(f)) for f in self.inputs])

    def test_two_kernels_chained_on_cuda_memory(self):
        out = run(f'{SOURCE} ! {rgba()} ! {UPLOAD} ! {kernel("invert")} ! '
                  f'{kernel("blur")} ! cudadownload ! {rgba()} ! appsink name=out')['out']
        self.assert_memory((True, True), (True, True))
        self.assert_frames(out, [blur(invert(f)) for f in self.inputs])

    def test_parameters(self):
        out = run(f'{SOURCE} ! {rgba()} ! {UPLOAD} ! '
                  f'{kernel("gain", extra="parameters=<0.5,10.25>")} ! cudadownload ! '
                  f'{rgba()} ! appsink name=out')['out']
        self.assert_memory((True, True))
        self.assert_frames(out, [gain(f, 0.5, 10.25) for f in self.inputs])

    def test_python_element(self):
        out = run(f'{SOURCE} ! {rgba()} ! {UPLOAD} ! pycugiinvert ! video/x-raw(memory:CUDAMemory) ! '
                  'cudadownload ! '
                  f'{rgba()} ! appsink name=out')['out']
        self.assert_memory((True, True))
        self.assert_frames(out, [invert(f) for f in self.inputs])
        out = run(f'{SOURCE} ! {rgba()} ! pycugiinvert ! {rgba()} ! appsink name=out')['out']
        self.assert_memory((False, False))
        self.assert_frames(out, [invert(f) for f in self.inputs])


# Each format cugikernel advertises: a size that its 16x16 blocks do not
# divide, and the kernel that inverts it.
FORMATS = {
    **{fmt: (333, 197, kernel('invert')) for fmt in ('RGBA', 'BGRA', 'RGBx', 'BGRx', 'ARGB', 'ABGR')},
    'GRAY8': (301, 77, kernel('invert')),
    **{fmt: (642, 362, kernel('invert_yuv', 'invert-yuv.cu'))
       for fmt in ('NV12', 'NV21', 'I420', 'YV12', 'Y42B', 'Y444', 'P010_10LE', 'P016_LE', 'Y444_16LE')},
}
# Those it offers in CUDA memory: GStreamer's CUDA allocator (1.22 to 1.28)
# cannot allocate GRAY8, nor do cudaupload and cudadownload take it.
CUDA_FORMATS = tuple(fmt for fmt in FORMATS if fmt != 'GRAY8')


def invert_format(fmt, planes):
    """What the invert kernels make of @planes, frames of format @fmt."""
    if fmt in ('RGBA', 'BGRA', 'RGBx', 'BGRx'):
        return invert(planes)
    if fmt in ('ARGB', 'ABGR'):
        image = planes[0].reshape(planes[0].shape[0], -1, 4)
        out = 255 - image
        out[:, :, 0] = image[:, :, 0]
        return [out.reshape(planes[0].shape)]
    if PLANES[fmt][0][2] == 2:   # 16-bit samples
        words = [p.copy().view('<u2') for p in planes]
        mask = 0xffc0 if fmt == 'P010_10LE' else 0xffff
        return [(~w & mask).astype('<u2').view(numpy.uint8) for w in words]
    return [255 - p for p in planes]


# Where the element's output goes: caps asking for system or CUDA memory, or
# fakesink, which takes anything (the element then picks).
DOWNSTREAM = {
    'system': '{caps} ! appsink name=out',
    'cuda': 'video/x-raw(memory:CUDAMemory) ! cudadownload ! {caps} ! appsink name=out',
    'any': 'fakesink name=out',
}


class Formats(FrameChecks):
    """Every advertised format, in system or CUDA memory in and out, one
    element and two chained. A format not offered in CUDA memory fails to
    negotiate there, cleanly: GStreamer 1.22 used to abort the process."""

    @classmethod
    def setUpClass(cls):
        cls.expected = {}
        for fmt in FORMATS:
            inputs = reference_inputs(cls.caps(fmt))
            assert len(inputs) == FRAMES
            cls.expected[fmt] = [invert_format(fmt, f) for f in inputs]
            cls.expected[fmt, 'twice'] = inputs

    @staticmethod
    def caps(fmt):
        width, height, _kernel = FORMATS[fmt]
        return rgba(width, height, fmt)

    def pipeline(self, fmt, in_cuda, elements, out):
        upstream = f'{SOURCE} ! {self.caps(fmt)}' + (f' ! {UPLOAD}' if in_cuda else '')
        return f'{upstream} ! {" ! ".join(elements)} ! {DOWNSTREAM[out].format(caps=self.caps(fmt))}'

    def assert_not_negotiated(self, description):
        """A pipeline that asks for a format in memory where it cannot be is
        refused: when it is linked (gst_parse_launch() finds no caps that
        both pads take) or when it runs (not-negotiated), never an abort."""
        with self.assertRaises(RuntimeError) as raised:
            run(description)
        self.assertRegex(str(raised.exception), "not-negotiated|can't handle caps")

    def test_one_element(self):
        for fmt, (_width, _height, element) in FORMATS.items():
            on_gpu = fmt in CUDA_FORMATS
            for in_cuda in (False, True):
                for out in DOWNSTREAM:
                    with self.subTest(fmt=fmt, in_cuda=in_cuda, out=out):
                        description = self.pipeline(fmt, in_cuda, [element], out)
                        if not on_gpu and (in_cuda or out == 'cuda'):
                            self.assert_not_negotiated(description)
                            continue
                        frames = run(description)['out']
                        self.assert_memory((in_cuda, on_gpu if out == 'any' else out == 'cuda'))
                        self.assert_frames(frames, self.expected[fmt])

    def test_two_elements_chained(self):
        for fmt, (_width, _height, element) in FORMATS.items():
            on_gpu = fmt in CUDA_FORMATS
            for in_cuda in (False, True) if on_gpu else (False,):
                for out in ('system', 'any'):
                    with self.subTest(fmt=fmt, in_cuda=in_cuda, out=out):
                        frames = run(self.pipeline(fmt, in_cuda, [element, element], out))['out']
                        # Between the two, frames stay on the GPU where they can.
                        self.assert_memory((in_cuda, on_gpu), (on_gpu, on_gpu and out == 'any'))
                        self.assert_frames(frames, self.expected[fmt, 'twice'])

    def test_gray8_to_fakesink_with_gst_launch(self):
        # The pipelines of the report, in processes of their own: an abort
        # shows as exit status 134 here instead of ending this test run.
        element = FORMATS['GRAY8'][2]
        for elements in ([element], [element, element]):
            with self.subTest(elements=len(elements)):
                result = subprocess.run(
                    ['gst-launch-1.0', '-q', 'videotestsrc', 'num-buffers=5', '!',
                     'video/x-raw,format=GRAY8,width=64,height=64', '!',
                     *' ! '.join(elements).split(), '!', 'fakesink'],
                    capture_output=True, text=True, timeout=120)
                self.assertEqual(result.returncode, 0, result.stdout + result.stderr)


class Pipeline(unittest.TestCase):
    def test_context_shared_with_cudaupload(self):
        handles = {}

        def setup(pipeline):
            def on_buffer(pad, info):
                if 'cugi' not in handles:
                    query = Gst.Query.new_context('gst.cuda.context')
                    self.assertTrue(pipeline.get_by_name('up').query(query))
                    shared = cuda_memory_probe.cuda_context_of(query.parse_context())
                    handles['upload'] = shared.get_handle()
                    handles['cugi'] = pipeline.get_by_name('k').props.cugi_context.props.handle
                return Gst.PadProbeReturn.OK
            pipeline.get_by_name('k').get_static_pad('src').add_probe(Gst.PadProbeType.BUFFER, on_buffer)

        run(f'{SOURCE} ! {rgba(320, 240)} ! cudaupload name=up ! video/x-raw(memory:CUDAMemory) ! cugikernel name=k '
            f'location={KERNELS}/invert.cu kernel-name=invert ! cudadownload ! fakesink', sinks=(),
            setup=setup)
        self.assertNotEqual(handles['cugi'], 0)
        self.assertEqual(handles['cugi'], handles['upload'])

    def test_five_thousand_frames_flat_memory(self):
        """Host RSS and device memory sampled every 500 frames of a 1080p
        cudaupload ! cugikernel ! cudadownload ! fakesink: flat once warmed
        up (the first 1,000 frames fill pools, caches and the allocator's
        arenas)."""
        device = Cugi.Device.get_default()
        samples = {}

        def memory():
            free, _total = device.get_memory_info()
            with open('/proc/self/statm') as statm:
                resident = int(statm.read().split()[1]) * os.sysconf('SC_PAGE_SIZE')
            return free, resident

        def setup(pipeline):
            count = [0]

            def on_buffer(pad, info):
                count[0] += 1
                if count[0] % 500 == 0:
                    samples[count[0]] = memory()
                return Gst.PadProbeReturn.OK
            pipeline.get_by_name('k').get_static_pad('src').add_probe(Gst.PadProbeType.BUFFER, on_buffer)

        run(f'videotestsrc num-buffers=5000 pattern=blue ! {rgba()} ! {UPLOAD} ! '
            f'cugikernel name=k location={KERNELS}/invert.cu kernel-name=invert ! cudadownload ! '
            'fakesink', sinks=(), setup=setup, timeout_s=500)
        self.assertEqual(NEGOTIATED, [(True, True)])
        print('# frame: device free MiB, host resident MiB: ' +
              ', '.join(f'{n}: {free / 2**20:.1f}, {resident / 2**20:.1f}'
                        for n, (free, resident) in sorted(samples.items())))
        (free_1000, resident_1000), (free_5000, resident_5000) = samples[1000], samples[5000]
        # One 1080p RGBA frame is 7.9 MiB: no frame's worth may have leaked
        # in 4,000 frames.
        self.assertLess(free_1000 - free_5000, 4 * 2**20)
        self.assertLess(resident_5000 - resident_1000, 4 * 2**20)


# A kernel that holds a stream up for SPIN_NS nanoseconds of the GPU's
# global timer, from one thread.
SPIN = r'''
extern "C" __global__ void
spin (unsigned long long ns)
{
  unsigned long long start, now;
  asm volatile ("mov.u64 %0, %%globaltimer;" : "=l" (start));
  do
    asm volatile ("mov.u64 %0, %%globaltimer;" : "=l" (now));
  while (now - start < ns);
}
'''
SPIN_NS = 30_000_000
# GST_CUDA_MEMORY_TRANSFER_NEED_SYNC (gst/cuda/gstcudamemory.h, 1.24): the
# memory's work is pending on its stream.
NEED_SYNC = Gst.MemoryFlags.LAST << 2
STREAM_FRAMES = 8
STREAM_SOURCE = f'videotestsrc num-buffers={STREAM_FRAMES} pattern=ball'
# cudaconvertscale, the producer: a scale, so that it is no passthrough.
SCALED = 'video/x-raw(memory:CUDAMemory),width=1280,height=720'
PRODUCER = f'{STREAM_SOURCE} ! {rgba()} ! {UPLOAD} ! cudaconvertscale name=producer ! {SCALED}'
DOWNLOAD = f'cudadownload ! {rgba(1280, 720)} ! appsink name=out'


class Spinner:
    """SPIN, compiled for the GstCudaContext @cuda_context, launched on the
    CUDA stream @handle of that context (a stream cugi borrows)."""

    def __init__(self, cuda_context, handle):
        self.context = Cugi.Context.new_for_handle(cuda_context.get_handle())
        self.stream = Cugi.Stream.new_for_handle(self.context, handle)
        self.kernel = Cugi.Kernel.new_from_source(self.context, SPIN, 'spin', None)

    def hold_up(self):
        """Enqueues SPIN_NS of spinning on the stream."""
        self.kernel(numpy.uint64(SPIN_NS), grid=1, block=1, stream=self.stream)


class Hold:
    """Holds up the CUDA stream of the memory that the element named @name
    pushes, for each frame after the first, before @name's work on the
    frame: a probe on its sink pad enqueues SPIN on that stream, which a
    probe on its src pad learns from the first frame. Records, per frame
    held up, whether the memory pushed was marked as pending on that stream
    (GST_CUDA_MEMORY_TRANSFER_NEED_SYNC, on the stream held up), and the
    time from the sink probe to the src probe (printed, never asserted)."""

    def __init__(self, name):
        self.name = name
        self.stream = 0        # its handle, once learned
        self.spinner = None
        self.entered = {}
        self.spent = []
        self.marked = []

    def setup(self, pipeline):
        self.element = pipeline.get_by_name(self.name)
        self.element.get_static_pad('sink').add_probe(Gst.PadProbeType.BUFFER, self.on_input)
        self.element.get_static_pad('src').add_probe(Gst.PadProbeType.BUFFER, self.on_output)

    def on_input(self, pad, info):
        if self.spinner is not None:
            self.spinner.hold_up()
        self.entered[info.get_buffer().pts] = GLib.get_monotonic_time()
        return Gst.PadProbeReturn.OK

    def on_output(self, pad, info):
        buffer = info.get_buffer()
        if self.spinner is not None:
            self.spent.append(GLib.get_monotonic_time() - self.entered[buffer.pts])
            flags = buffer.peek_memory(0).mini_object.flags
            self.marked.append(bool(flags & NEED_SYNC) and cuda_memory_probe.cuda_stream_of(buffer) == self.stream)
        elif not self.stream and (handle := cuda_memory_probe.cuda_stream_of(buffer)):
            # The stream belongs to the pipeline's CUDA context: so must
            # the kernel and the wrapper.
            query = Gst.Query.new_context('gst.cuda.context')
            if self.element.query(query):
                self.spinner = Spinner(cuda_memory_probe.cuda_context_of(query.parse_context()), handle)
                self.stream = handle
        return Gst.PadProbeReturn.OK

    def finish(self):
        """Once the pipeline has ended: the last SPIN done, before the
        stream goes with the pipeline."""
        if self.spinner is not None:
            self.spinner.stream.synchronize()


@unittest.skipUnless(cuda_memory_probe.HAVE_CUDA_STREAMS,
                     "GStreamer before 1.24: CUDA memory carries no stream")
@unittest.skipIf(Gst.ElementFactory.find('cudaconvertscale') is None,
                 "no cudaconvertscale: nvcodec registers it only where GStreamer's CUDA library "
                 "compiles its test kernel with NVRTC (1.26.2 cannot with NVRTC 13: "
                 "invalid value for --gpu-architecture)")
class Streams(FrameChecks):
    """GStreamer 1.24 and later: CUDA memory carries the stream its work is
    pending on. cudaconvertscale pushes each frame as soon as its kernel is
    enqueued on the stream of its output memory, without waiting
    (gstcudaconvertscale.c, transform), and each frame here is held up on
    that stream by SPIN before cudaconvertscale's work. An element that
    reads its input without ordering its work after that stream (as 1.22's
    cugikernel and pycugiinvert did: a GST_MAP_CUDA mapping waits for
    nothing, and their kernels ran at once on a stream of their own) reads
    the frame before cudaconvertscale has written it: the pool's previous
    frame, and these tests fail. (cudaupload, by contrast, synchronizes
    after each copy, gstcudautils.cpp, gst_cuda_buffer_copy(): holding its
    stream up delays its push, never lets anyone read early.)"""

    @classmethod
    def setUpClass(cls):
        # What cudaconvertscale makes of the frames, undisturbed.
        cls.scaled = run(f'{PRODUCER} ! {DOWNLOAD}')['out']
        assert len(cls.scaled) == STREAM_FRAMES

    def held_run(self, description, name):
        hold = Hold(name)
        frames = run(description, setup=hold.setup, before_stop=hold.finish)['out']
        if not hold.stream:
            self.skipTest(f'the memory that {name} pushes carries no CUDA stream')
        return frames, hold

    def test_producer_held_up(self):
        # On cudaconvertscale's own stream where the element proposes no
        # pool (pycugiinvert) or none reaches the producer (identity drops
        # the query): the element waits for it on the device. On the
        # stream the element proposes otherwise (cugikernel): in order.
        expected = [invert(f) for f in self.scaled]
        for element in (kernel('invert'), f'identity drop-allocation=true ! {kernel("invert")}',
                        'pycugiinvert'):
            with self.subTest(element=element):
                frames, _hold = self.held_run(f'{PRODUCER} ! {element} ! {DOWNLOAD}', 'producer')
                self.assert_frames(frames, expected)

    def test_element_held_up(self):
        # The output side: the stream cugikernel works on (cudaconvertscale's,
        # which it takes from the pool proposed to it) held up before its
        # kernel. It pushes each frame without waiting (its input, from
        # cudaupload, is on that stream too), so cudaconvertscale must find
        # the frame on the stream its memory carries to read it in order.
        # (1.22's element passes too: it waited for every frame, and its
        # kernel ran on a stream of its own, which nothing held up.)
        description = (f'{STREAM_SOURCE} ! {rgba()} ! {UPLOAD} ! {kernel("invert")} name=k ! '
                       f'cudaconvertscale ! {SCALED} ! {DOWNLOAD}')
        expected = run(description)['out']
        frames, hold = self.held_run(description, 'k')
        self.assert_frames(frames, expected)
        # Each frame pushed with its work pending is marked so, on the
        # stream it is pending on: what a 1.24 consumer syncs with.
        self.assertEqual(hold.marked, [True] * (STREAM_FRAMES - 1))
        waited = sorted(hold.spent)[len(hold.spent) // 2]
        print(f'# cugikernel held up by {SPIN_NS / 1e6:.0f} ms a frame: '
              f'{waited / 1000:.2f} ms from its sink pad to its src pad (median)')


class HeldUpProducer:
    """A producer on a CUDA stream of its own, as cudaconvertscale and nvdec
    are on GStreamer 1.24 and later, that needs none of GStreamer's NVRTC:
    an appsrc pushing CUDA memory of a GstCudaBufferPool that carries the
    stream, each frame written by a copy enqueued on it behind SPIN (all but
    the first) and pushed at once, its copy pending and the memory flagged
    NEED_SYNC by its mapping for writing. cugi_invert's mapping is the
    ctypes one the Python element uses."""

    def __init__(self, frames, width, height):
        self.frames, self.width, self.height = frames, width, height
        # GStreamer's CUDA library aborts where it was not loaded first.
        assert GstCuda.cuda_load_library()
        self.cuda_context = GstCuda.CudaContext.new(0)
        self.stream = GstCuda.CudaStream.new(self.cuda_context)
        self.spinner = Spinner(self.cuda_context, self.stream.get_handle())
        self.caps = Gst.Caps.from_string(f'video/x-raw(memory:CUDAMemory),format=RGBA,'
                                         f'width={width},height={height},framerate=30/1')
        self.pool = GstCuda.CudaBufferPool.new(self.cuda_context)
        config = self.pool.get_config()
        Gst.BufferPool.config_set_params(config, self.caps,
                                         GstVideo.VideoInfo.new_from_caps(self.caps).size, len(frames), 0)
        GstCuda.buffer_pool_config_set_cuda_stream(config, self.stream)
        assert self.pool.set_config(config)
        self.pool.set_active(True)
        self.hosts = []        # (buffer, its registered host memory, bytes), until the copies are done
        self.carried = []      # whether each frame's memory carried the stream

    def setup(self, pipeline):
        pipeline.set_context(GstCuda.context_new_cuda_context(self.cuda_context))
        source = pipeline.get_by_name('src')
        source.set_property('caps', self.caps)
        source.set_property('format', Gst.Format.TIME)
        source.set_property('max-buffers', 1)
        # Each frame's host memory registered beforehand: what is enqueued
        # when appsrc asks for the frame is only SPIN and the copy, and the
        # frame reaches the element while SPIN still runs.
        for planes in self.frames:
            _flow, buffer = self.pool.acquire_buffer(None)
            meta = GstVideo.buffer_get_video_meta(buffer)
            stride = meta.stride[0] if meta is not None else self.width * 4
            padded = numpy.zeros((self.height, stride), numpy.uint8)
            padded[:, :self.width * 4] = planes[0].reshape(self.height, -1)
            self.hosts.append((buffer, Cugi.HostBuffer.new_registered_bytes(
                None, GLib.Bytes.new(padded.tobytes()), Cugi.HostBufferFlags.NONE), padded.nbytes))
        source.connect('need-data', self.on_need_data)

    def on_need_data(self, source, _length):
        index = len(self.carried)
        if index == len(self.hosts):
            source.emit('end-of-stream')
            return
        buffer, host, size = self.hosts[index]
        self.carried.append(cuda_memory_probe.cuda_stream_of(buffer) == self.stream.get_handle())
        mapping = cuda_memory_probe.CudaMapping(buffer, Gst.MapFlags.WRITE)
        try:
            assert mapping.size >= size
            device = Cugi.Buffer.new_for_address(self.spinner.context, mapping.address, mapping.size)
            if index > 0:
                self.spinner.hold_up()
            device.upload_from_host(0, host, 0, size, self.spinner.stream)
        finally:
            mapping.unmap()
        buffer.pts = index * Gst.SECOND // 30
        buffer.duration = Gst.SECOND // 30
        source.emit('push-buffer', buffer)

    def finish(self):
        self.spinner.stream.synchronize()
        self.hosts.clear()


@unittest.skipUnless(cuda_memory_probe.HAVE_CUDA_STREAMS,
                     "GStreamer before 1.24: CUDA memory carries no stream")
class ProducerStream(FrameChecks):
    """GStreamer 1.24 and later, with a producer of the test's own (runs
    where nvcodec's CUDA filters do not register, as with NVRTC 13): every
    frame but the first is pushed before its copy on the producer's stream
    has run, behind SPIN. An element that does not order its work after the
    input memory's stream (1.22's cugikernel and pycugiinvert: their kernels
    ran at once on a stream of their own) reads frames 1 to 7 before they
    are written, and the comparison fails."""

    def test_held_up_producer(self):
        inputs = reference_inputs(rgba(1280, 720), STREAM_SOURCE)
        expected = [invert(frame) for frame in inputs]
        for element in (kernel('invert'), 'pycugiinvert'):
            with self.subTest(element=element):
                producer = HeldUpProducer(inputs, 1280, 720)
                frames = run(f'appsrc name=src ! {element} ! {DOWNLOAD}',
                             setup=producer.setup, before_stop=producer.finish)['out']
                self.assertEqual(producer.carried, [True] * len(inputs))
                self.assert_frames(frames, expected)


class Errors(unittest.TestCase):
    def assert_fails(self, element, *fragments):
        with self.assertRaises(RuntimeError) as raised:
            run(f'{SOURCE} ! {rgba(64, 48)} ! {UPLOAD} ! {element} ! cudadownload ! '
                f'fakesink', sinks=())
        message = str(raised.exception)
        for fragment in fragments:
            self.assertIn(fragment, message)

    def test_compile_error_carries_nvrtc_log(self):
        self.assert_fails('cugikernel kernel-name=k source="extern \\"C\\" __global__ void k( { }"',
                          'NVRTC could not compile', 'error')

    def test_missing_kernel(self):
        self.assert_fails(f'cugikernel location={KERNELS}/invert.cu kernel-name=nothing_here',
                          'nothing_here')

    def test_parameter_count(self):
        self.assert_fails(f'cugikernel location={KERNELS}/gain.cu kernel-name=gain',
                          'takes 9 parameters', 'passes 7')
        self.assert_fails(f'cugikernel location={KERNELS}/invert.cu kernel-name=invert parameters=<1.0>',
                          'takes 7 parameters', 'passes 8')

    def test_device_out_of_range(self):
        with self.assertRaises(RuntimeError) as raised:
            run(f'{SOURCE} ! {rgba(64, 48)} ! cugikernel device-id=99 '
                f'location={KERNELS}/invert.cu kernel-name=invert ! fakesink', sinks=())
        self.assertIn('device 99', str(raised.exception))


if __name__ == '__main__':
    unittest.main(verbosity=2)
