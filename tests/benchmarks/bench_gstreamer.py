#!/usr/bin/python3
"""bench-gstreamer: what cugikernel costs in a pipeline (a benchmark, not a
test; it asserts nothing about time).

4K RGBA frames. For each element, the time from a buffer entering its sink
pad to its output leaving its src pad, measured by pad probes in the
streaming thread (the probes' own cost is the same for every element), and
the streaming thread's CPU time over the same span:

- the Python element (pycugiinvert, a CugiGst.Filter) against cugikernel
  running the same inversion, after cudaupload: host time beyond the GPU's
  work for each (less identity's), and the ratio (goal <= 3);
- cugikernel's copy on CUDA memory and on system memory
  (videotestsrc ! cugikernel ! fakesink): the second's time beyond the
  first's is the upload it does, as bandwidth against cugi's pinned upload
  (cugi_buffer_upload_from_host) of the same size in the same process;
- H.264 decoded on the GPU (nvh264dec, a 1080p stream made here with
  x264enc) with and without cugikernel inverting each NV12 frame on CUDA
  memory: frames a second and the ratio (goal >= 0.98);
- whole-pipeline frames per second for each.

bench-gstreamer (C, tests/benchmarks/bench-gstreamer.c) measures
cugikernel's own host time beside the raw driver API with probes that cost
next to nothing; Python's probes cost tens of microseconds a frame.

Run on a GPU machine: GST_PLUGIN_PATH=build/examples/gstreamer
  CUGI_GST_KERNELS=examples/gstreamer/kernels python3 bench_gstreamer.py
(meson devenv sets the library paths; bash .gpu/enter does it on the GPU
machine).
"""
import os
import statistics
import sys
import tempfile
import time

import gi
gi.require_version('Gst', '1.0')
gi.require_version('Cugi', '1.0')
from gi.repository import GLib, Gst, Cugi  # noqa: E402

WIDTH, HEIGHT = 3840, 2160
FRAME_BYTES = WIDTH * HEIGHT * 4
FRAMES = int(os.environ.get('BENCH_FRAMES', '300'))
WARMUP = 20
KERNELS = os.environ.get('CUGI_GST_KERNELS', os.path.join(os.path.dirname(__file__), '..', '..',
                                                          'examples', 'gstreamer', 'kernels'))
CAPS = f'video/x-raw,format=RGBA,width={WIDTH},height={HEIGHT},framerate=0/1'
ON_GPU = 'video/x-raw(memory:CUDAMemory)'
COPY = f'cugikernel name=e location={KERNELS}/copy.cu kernel-name=copy'
INVERT = f'cugikernel name=e location={KERNELS}/invert.cu kernel-name=invert'
sys.path.insert(0, os.environ.get('CUGI_GST_PYTHON', os.path.join(os.path.dirname(__file__), '..', '..',
                                                                  'examples', 'gstreamer', 'python')))


class Timed:
    """An element's per-frame times after warm-up: `spent`, sink pad to src
    pad (µs, one per frame); `cpu`, the streaming thread's CPU time over the
    same span (µs, one per frame: what the host did, whatever else ran on
    the machine meanwhile); `waited`, for a CugiGst.Filter, the mean time
    (µs) its streaming thread was blocked until the GPU had done a frame
    (its `stats`), else 0; `fps`, the pipeline's frames a second."""

    def __init__(self, spent, cpu, waited, fps):
        self.spent, self.cpu, self.waited, self.fps = spent, cpu, waited, fps

    def median(self):
        return statistics.median(self.spent)

    def cpu_median(self):
        return statistics.median(self.cpu)

    def host_cpu(self, reference):
        """The host's own time per frame beyond @reference's (an element
        that does nothing, in the same pipeline), from the streaming
        thread's CPU time less the waits for the GPU, which spin
        (GStreamer's contexts leave the driver's scheduling at its default,
        which spins where CPUs outnumber GPUs)."""
        return self.cpu_median() - self.waited - reference.cpu_median()


def filter_stats(element):
    """(frames, µs blocked on the GPU) of a CugiGst.Filter's stats so far;
    (0, 0) for other elements."""
    stats = element.get_property('stats') if element.find_property('stats') else None
    if not isinstance(stats, Gst.Structure):
        return 0, 0.0
    return stats.get_uint64('frames')[1], stats.get_uint64('gpu-wait-time')[1] / 1000


def element_times(description):
    """The Timed of the element named e in @description."""
    pipeline = Gst.parse_launch(description)
    element = pipeline.get_by_name('e')
    entered, spent, entered_cpu, cpu = [], [], [], []
    at_warmup = []

    def on_sink(pad, info):
        entered_cpu.append(time.thread_time_ns())
        entered.append(time.perf_counter_ns())
        return Gst.PadProbeReturn.OK

    def on_src(pad, info):
        spent.append((time.perf_counter_ns() - entered[len(spent)]) / 1000)
        cpu.append((time.thread_time_ns() - entered_cpu[len(cpu)]) / 1000)
        if len(spent) == WARMUP:
            at_warmup.append(filter_stats(element))
        return Gst.PadProbeReturn.OK

    element.get_static_pad('sink').add_probe(Gst.PadProbeType.BUFFER, on_sink)
    element.get_static_pad('src').add_probe(Gst.PadProbeType.BUFFER, on_src)
    start = time.perf_counter()
    pipeline.set_state(Gst.State.PLAYING)
    message = pipeline.get_bus().timed_pop_filtered(600 * Gst.SECOND,
                                                    Gst.MessageType.EOS | Gst.MessageType.ERROR)
    elapsed = time.perf_counter() - start
    frames, waited = filter_stats(element)
    pipeline.set_state(Gst.State.NULL)
    if message is None or message.type == Gst.MessageType.ERROR:
        sys.exit(f'bench-gstreamer: {description}: {message.parse_error() if message else "timeout"}')
    if frames > WARMUP:
        waited = (waited - at_warmup[0][1]) / (frames - at_warmup[0][0])
    return Timed(spent[WARMUP:], cpu[WARMUP:], waited, len(spent) / elapsed)


def kernel_gpu_us(source, name, timestamp=True):
    """A one-plane RGBA kernel's GPU time on one 4K frame, by events
    (median of 50)."""
    kernel = Cugi.Kernel.new_from_source(None, source, name, None)
    stream = Cugi.Stream.new(None, Cugi.StreamFlags.NON_BLOCKING, 0)
    src = Cugi.Buffer.new_pitched(None, WIDTH * 4, HEIGHT, 4)
    dst = Cugi.Buffer.new_pitched(None, WIDTH * 4, HEIGHT, 4)
    pitch = src.props.pitch
    start, end = Cugi.Event.new(None, 0), Cugi.Event.new(None, 0)
    times = []
    for _ in range(50):
        start.record(stream)
        kernel(src, pitch, dst, pitch, WIDTH, HEIGHT, *((0,) if timestamp else ()),
               grid=((WIDTH + 15) // 16, (HEIGHT + 15) // 16), block=(16, 16), stream=stream)
        end.record(stream)
        end.synchronize()
        times.append(Cugi.Event.elapsed_time(start, end) * 1000)
    return statistics.median(times)


def kernel_file(name):
    with open(os.path.join(KERNELS, name)) as source:
        return source.read()


def decode_fps():
    """(frames/s of nvh264dec alone, with cugikernel after it), decoding a
    1080p H.264 stream made here; None where x264enc or nvh264dec is
    missing."""
    if Gst.ElementFactory.find('x264enc') is None or Gst.ElementFactory.find('nvh264dec') is None:
        return None
    with tempfile.TemporaryDirectory() as scratch:
        path = os.path.join(scratch, 'stream.h264')
        encode = Gst.parse_launch(
            'videotestsrc num-buffers=900 pattern=ball ! video/x-raw,format=I420,width=1920,height=1080,'
            'framerate=60/1 ! x264enc speed-preset=ultrafast key-int-max=60 ! '
            f'video/x-h264,stream-format=byte-stream ! filesink location={path}')
        run_to_eos(encode, 'encoding')
        decode = (f'filesrc location={path} ! h264parse ! nvh264dec ! '
                  'video/x-raw(memory:CUDAMemory),format=NV12')
        rates = []
        for tail in ('', f' ! cugikernel location={KERNELS}/invert-yuv.cu kernel-name=invert_yuv'):
            pipeline = Gst.parse_launch(f'{decode}{tail} ! fakesink sync=false')
            begin = time.perf_counter()
            frames = run_to_eos(pipeline, 'decoding')
            rates.append(frames / (time.perf_counter() - begin))
        return tuple(rates)


def run_to_eos(pipeline, doing):
    """Plays @pipeline to EOS; the frames its sink received."""
    count = [0]
    for element in pipeline.iterate_sinks():
        element.get_static_pad('sink').add_probe(
            Gst.PadProbeType.BUFFER, lambda pad, info: count.__setitem__(0, count[0] + 1) or Gst.PadProbeReturn.OK)
    pipeline.set_state(Gst.State.PLAYING)
    message = pipeline.get_bus().timed_pop_filtered(600 * Gst.SECOND,
                                                    Gst.MessageType.EOS | Gst.MessageType.ERROR)
    pipeline.set_state(Gst.State.NULL)
    if message is None or message.type == Gst.MessageType.ERROR:
        sys.exit(f'bench-gstreamer: {doing}: {message.parse_error() if message else "timeout"}')
    return count[0]


def pinned_upload_gbps():
    """cugi's pinned upload of one 4K frame on a stream (median of 30)."""
    host = Cugi.HostBuffer.new(None, FRAME_BYTES, Cugi.HostBufferFlags.PORTABLE)
    device = Cugi.Buffer.new(None, FRAME_BYTES)
    stream = Cugi.Stream.new(None, Cugi.StreamFlags.NON_BLOCKING, 0)
    times = []
    for _ in range(30):
        begin = time.perf_counter()
        device.upload_from_host(0, host, 0, FRAME_BYTES, stream)
        stream.synchronize()
        times.append(time.perf_counter() - begin)
    return FRAME_BYTES / statistics.median(times) / 1e9


def main():
    Gst.init(None)
    try:
        Cugi.init()
    except GLib.Error as error:
        sys.exit(f'bench-gstreamer needs a GPU: {error.message}')

    import cugi_invert
    cugi_invert.register()

    source = f'videotestsrc num-buffers={FRAMES} pattern=black ! {CAPS}'
    upload = f'{source} ! cudaupload ! {ON_GPU}'
    identity = element_times(f'{upload} ! identity name=e ! {ON_GPU} ! fakesink')
    cuda = element_times(f'{upload} ! {COPY} ! {ON_GPU} ! fakesink')
    system = element_times(f'{source} ! {COPY} ! {ON_GPU} ! fakesink')
    c_invert = element_times(f'{upload} ! {INVERT} ! {ON_GPU} ! fakesink')
    py_invert = element_times(f'{upload} ! pycugiinvert name=e ! {ON_GPU} ! fakesink')
    kernel_us = kernel_gpu_us(kernel_file('copy.cu'), 'copy')
    pinned = pinned_upload_gbps()
    decoded = decode_fps()

    c_host, py_host = c_invert.host_cpu(identity), py_invert.host_cpu(identity)
    # The system-memory path's time beyond the CUDA-memory path's, which
    # has the same kernel and the same work around it: the upload.
    upload_us = system.median() - cuda.median()
    upload_gbps = FRAME_BYTES / (upload_us * 1e-6) / 1e9

    print(f'bench-gstreamer: {WIDTH}x{HEIGHT} RGBA, {FRAMES} frames ({WARMUP} warm-up), '
          f'element time = sink pad to src pad, median; GStreamer {Gst.version_string()}')
    print(f'  identity on CUDA memory      {identity.median():9.1f} us/frame   pipeline {identity.fps:6.1f} frames/s')
    print(f'  cugikernel copy, CUDA memory {cuda.median():9.1f} us/frame   pipeline {cuda.fps:6.1f} frames/s'
          f'   (blocked on the GPU {cuda.waited:.1f}; the copy kernel alone: {kernel_us:.1f} us by events)')
    print(f'  invert, host CPU time beyond the GPU and identity: cugikernel {c_host:.1f} us, pycugiinvert '
          f'{py_host:.1f} us; ratio {py_host / max(c_host, 0.1):.2f} (goal <= 3): '
          f'{"ok" if py_host <= 3 * max(c_host, 0.1) else "MISS"}')
    print(f'  cugikernel, system -> CUDA   {system.median():9.1f} us/frame   pipeline {system.fps:6.1f} frames/s'
          f'   (blocked on the GPU {system.waited:.1f})')
    print(f'  its upload                   {upload_gbps:9.2f} GB/s; cugi pinned upload {pinned:.2f} GB/s; '
          f'ratio {upload_gbps / pinned:.3f} (goal >= 0.95): {"ok" if upload_gbps >= 0.95 * pinned else "MISS"}')
    if decoded is None:
        print('  nvh264dec: skipped (no x264enc or nvh264dec here)')
    else:
        alone, with_kernel = decoded
        print(f'  nvh264dec 1080p alone {alone:.1f} frames/s, ! cugikernel invert_yuv {with_kernel:.1f} frames/s; '
              f'ratio {with_kernel / alone:.3f} (goal >= 0.98): {"ok" if with_kernel >= 0.98 * alone else "MISS"}')


if __name__ == '__main__':
    main()
