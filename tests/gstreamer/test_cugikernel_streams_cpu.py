#!/usr/bin/python3
"""How cugikernel and the Python element order their work after the CUDA
stream of their input memory and mark their output's, without a GPU: on the
stand-in driver, which GStreamer's CUDA library loads as libcuda.so.1
(tests/gstreamer/stand-in-libcuda.c) and which records, from both libraries,
every event record, stream wait, stream synchronization and kernel launch
in order. Kernels come from a stand-in NVRTC (stand-in-nvrtc.c).

Since GStreamer 1.24 a GstCudaMemory carries a CUDA stream, and a consumer
orders its work after it (docs/gstreamer.md, "Where the streaming thread
waits"): the element waits for an event recorded on the producer's stream
on the device, works on the stream its pools share with its neighbours,
and pushes CUDA memory on that stream flagged NEED_SYNC without waiting,
unless its input came from another stream (from system memory, it waits
for the upload alone). On
GStreamer 1.22 every frame is waited for before it is pushed.

Run by meson (gstreamer-streams-cpu), whose environment names the
stand-ins. A registry of its own, with GStreamer's core and app plugins and
cugi's alone, keeps nvcodec from registering elements on the stand-in in the
registry of the other tests.
"""
import atexit
import ctypes
import gc
import os
import shutil
import sys
import tempfile
import unittest

from stand_in_gst import INVERT_SOURCE as SOURCE, Ops, use_own_registry, waited_for

_scratch = tempfile.mkdtemp(prefix='cugi-gst-stand-in-')
atexit.register(shutil.rmtree, _scratch, True)
use_own_registry(_scratch, ('libgstcoreelements.so', 'libgstapp.so'))
os.environ['CUGI_CACHE_DIR'] = os.path.join(_scratch, 'cache')
sys.path.insert(0, os.environ['CUGI_GST_PYTHON'])

import gi  # noqa: E402
gi.require_version('Gst', '1.0')
gi.require_version('GstVideo', '1.0')
gi.require_version('GstCuda', '1.0')
from gi.repository import Gst, GstVideo, GstCuda  # noqa: E402

import cuda_memory_probe  # noqa: E402  (initializes GStreamer)
import cugi_invert  # noqa: E402
cugi_invert.register()

STREAMS = Gst.version()[:2] >= (1, 24)
NO_STREAMS = "GStreamer 1.22's CUDA memory carries no stream"
# GST_CUDA_MEMORY_TRANSFER_NEED_SYNC (1.24+)
NEED_SYNC = int(Gst.MemoryFlags.LAST) << 2
WIDTH, HEIGHT = 64, 48
FRAMES = 4
CUDA_CAPS = f'video/x-raw(memory:CUDAMemory),format=RGBA,width={WIDTH},height={HEIGHT},framerate=30/1'
SYSTEM_CAPS = f'video/x-raw,format=RGBA,width={WIDTH},height={HEIGHT},framerate=30/1'
# The Python element's kernel, for the stand-in NVRTC: no timestamp.
cugi_invert.SOURCE = ('//! invert 8 4 8 4 4 4\n'
                      'extern "C" __global__ void invert (const unsigned char *src, int src_pitch, '
                      'unsigned char *dst, int dst_pitch, int width, int height) {}\n')


OPS = Ops()


def handle_of(stream):
    return stream.get_handle() or 0


class StandInPipeline(unittest.TestCase):
    """`appsrc ! ELEMENT ! fakesink` in the pipeline's CUDA context, which
    the test made; frames from pools of the test, their memory written
    (mapped for the device) as a producer would."""

    @classmethod
    def setUpClass(cls):
        assert GstCuda.cuda_load_library(), 'libgstcuda could not load the stand-in driver'
        cls.cuda_context = GstCuda.CudaContext.new(0)
        assert cls.cuda_context is not None

    def setUp(self):
        self.outputs = []   # (stream handle of the memory, NEED_SYNC set) per frame
        self.pipeline = None

    def tearDown(self):
        if self.pipeline is not None:
            self.pipeline.set_state(Gst.State.NULL)

    def new_stream(self):
        stream = GstCuda.CudaStream.new(self.cuda_context)
        self.assertIsNotNone(stream)
        return stream

    def new_pool(self, caps, stream=None):
        """A GstCudaBufferPool of the context for @caps, its memories
        carrying @stream (GStreamer 1.24+) where given."""
        pool = GstCuda.CudaBufferPool.new(self.cuda_context)
        config = pool.get_config()
        Gst.BufferPool.config_set_params(config, Gst.Caps.from_string(caps),
                                         GstVideo.VideoInfo.new_from_caps(Gst.Caps.from_string(caps)).size,
                                         0, 0)
        if stream is not None:
            GstCuda.buffer_pool_config_set_cuda_stream(config, stream)
        self.assertTrue(pool.set_config(config))
        self.assertTrue(pool.set_active(True))
        self.addCleanup(pool.set_active, False)
        return pool

    def start(self, elements, in_caps=CUDA_CAPS, shared_context=True):
        """Plays `appsrc ! @elements ! fakesink`, where each cugikernel runs
        SOURCE, in the test's CUDA context where @shared_context, else in
        one the elements make."""
        self.pipeline = Gst.parse_launch(
            f'appsrc name=src format=time caps="{in_caps}" ! {elements} ! fakesink name=out')
        for element in self.pipeline.iterate_elements():
            if element.get_factory().get_name() == 'cugikernel':
                element.set_property('source', SOURCE)
                element.set_property('kernel-name', 'invert')
        self.made_contexts = []
        if shared_context:
            self.pipeline.set_context(GstCuda.context_new_cuda_context(self.cuda_context))
        else:
            self.pipeline.get_bus().set_sync_handler(self.keep_cuda_context, self.made_contexts)
        sink = self.pipeline.get_by_name('out')
        sink.set_property('signal-handoffs', True)
        sink.set_property('sync', False)
        sink.connect('handoff', self.on_output)
        if self.pipeline.set_state(Gst.State.PLAYING) == Gst.StateChangeReturn.FAILURE:
            self.fail_with_error()
        self.source = self.pipeline.get_by_name('src')
        self.pushed = 0

    def on_output(self, sink, buffer, pad):
        memory = buffer.peek_memory(0)
        self.outputs.append((cuda_memory_probe.cuda_stream_of(buffer),
                             bool(memory.mini_object.flags & NEED_SYNC)))

    def push(self, pool=None):
        """Pushes a frame from @pool, written for the device, or in system
        memory where there is no pool."""
        if pool is None:
            buffer = Gst.Buffer.new_allocate(None, WIDTH * HEIGHT * 4, None)
        else:
            ok, buffer = pool.acquire_buffer(None)
            self.assertEqual(ok, Gst.FlowReturn.OK)
            cuda_memory_probe.CudaMapping(buffer, Gst.MapFlags.WRITE).unmap()
        buffer.pts = self.pushed * Gst.SECOND // 30
        self.pushed += 1
        self.assertEqual(self.source.emit('push-buffer', buffer), Gst.FlowReturn.OK)

    def fail_with_error(self, message=None):
        message = message or self.pipeline.get_bus().pop_filtered(Gst.MessageType.ERROR)
        if message is None:
            self.fail('the pipeline failed without an error message')
        error, debug = message.parse_error()
        self.fail(f'{message.src.get_name()}: {error.message} ({debug})')

    def wait_for_outputs(self, count):
        """Waits until @count frames reached fakesink; an error fails."""
        bus = self.pipeline.get_bus()
        for _ in range(200):
            if len(self.outputs) >= count:
                return
            message = bus.timed_pop_filtered(50 * Gst.MSECOND, Gst.MessageType.ERROR)
            if message is not None:
                self.fail_with_error(message)
        self.fail(f'{len(self.outputs)} of {count} frames came out')

    def run_frames(self, pool=None, count=FRAMES):
        """Pushes @count frames from @pool (see push()), waits for them and
        returns what the stand-in recorded meanwhile."""
        OPS.clear()
        before = len(self.outputs)
        for _ in range(count):
            self.push(pool)
        self.wait_for_outputs(before + count)
        return OPS.read()

    def launches(self, ops):
        return [op[1] for op in ops if op[0] == 'launch']

    def assert_waited_for(self, ops, stream, producer, every=1):
        """Before each launch (every @every-th), @stream waited on the
        device for an event recorded on @producer."""
        for index in [i for i, op in enumerate(ops) if op[0] == 'launch'][::every]:
            self.assertEqual(waited_for(ops, index, stream), producer, ops)

    @staticmethod
    def syncs_from_first_launch(ops, stream):
        """How often @stream was synchronized from its first launch on
        (before, setting pools up synchronizes their streams)."""
        return ops[ops.index(('launch', stream)):].count(('sync', stream))

    def assert_waited_after_each_launch(self, ops, stream):
        """Each launch on @stream is followed by a synchronization of it
        before the next launch."""
        launches = [i for i, op in enumerate(ops) if op == ('launch', stream)]
        self.assertTrue(launches, ops)
        for start, end in zip(launches, launches[1:] + [len(ops)]):
            self.assertIn(('sync', stream), ops[start:end], ops)


class AllVersions(StandInPipeline):
    """What holds on GStreamer 1.22 as on 1.24 and later."""

    def test_cuda_memory_on_the_default_stream(self):
        # No stream on the input (1.22's memory, or a 1.24 producer that
        # synchronized the default stream): nothing to wait for on the
        # device, and the frame is waited for before it is pushed, since
        # the producer may write the memory again once it is released.
        self.start('cugikernel')
        ops = self.run_frames(self.new_pool(CUDA_CAPS))
        self.assertFalse([op for op in ops if op[0] in ('record', 'wait')], ops)
        work = self.launches(ops)[0]
        self.assertEqual(len(self.launches(ops)), FRAMES)
        self.assert_waited_after_each_launch(ops, work)

    def stop(self):
        self.pipeline.set_state(Gst.State.NULL)
        self.pipeline = self.source = None
        gc.collect()

    def test_stopped_elements_let_go_of_the_context(self):
        # No main loop runs in this process, as in many that run pipelines:
        # a stopped element kept the CUDA context it made (and its streams)
        # then, and a GPU test ran out of contexts after some 185 pipelines.
        for element in ('cugikernel', 'pycugiinvert'):
            self.start(element, in_caps=SYSTEM_CAPS, shared_context=False)
            self.run_frames()
            self.pipeline.get_bus().set_sync_handler(None)
            made = self.made_contexts
            self.stop()
            self.assertEqual(len(made), 1, f'{element} made no CUDA context of its own')
            self.assertEqual(cuda_memory_probe.reference_count(made[0]), 1,
                             f'{element} kept its CUDA context after it stopped')

    @staticmethod
    def keep_cuda_context(bus, message, made):
        if message.type == Gst.MessageType.HAVE_CONTEXT:
            cuda_context = cuda_memory_probe.cuda_context_of(message.parse_have_context())
            if cuda_context is not None:
                made.append(cuda_context)
        return Gst.BusSyncReply.PASS

    def test_python_element_waits_for_each_frame(self):
        self.start('pycugiinvert')
        ops = self.run_frames(self.new_pool(CUDA_CAPS))
        self.assertEqual(len(self.launches(ops)), FRAMES, ops)
        self.assert_waited_after_each_launch(ops, self.launches(ops)[0])


@unittest.skipUnless(STREAMS, NO_STREAMS)
class Streams(StandInPipeline):
    """GStreamer 1.24 and later: the stream of each GstCudaMemory."""

    def proposed(self, name='k'):
        """The pool the element @name proposes upstream, and the handle of
        the stream it carries: the element's work stream."""
        pad = self.pipeline.get_by_name(name).get_static_pad('sink')
        query = Gst.Query.new_allocation(Gst.Caps.from_string(CUDA_CAPS), True)
        self.assertTrue(pad.query(query))
        self.assertGreater(query.get_n_allocation_pools(), 0)
        pool, _size, _min, _max = query.parse_nth_allocation_pool(0)
        stream = GstCuda.buffer_pool_config_get_cuda_stream(pool.get_config())
        self.assertIsNotNone(stream, 'the pool proposed upstream carries no stream')
        return pool, handle_of(stream)

    def start_on_proposed_pool(self):
        """Starts `cugikernel name=k`, negotiated by a first frame, and
        returns the pool it proposes upstream, active, and its work
        stream's handle (see proposed())."""
        self.start('cugikernel name=k')
        self.push(self.new_pool(CUDA_CAPS, self.new_stream()))
        self.wait_for_outputs(1)
        pool, work = self.proposed()
        pool.set_active(True)
        self.addCleanup(pool.set_active, False)
        return pool, work

    def test_holds_stay_bounded_without_a_main_loop(self):
        # Frames pushed without waiting for their kernels, no main loop
        # running: what cugi holds of the context for each frame's work is
        # let go of some frames later (measured: 19 to 115 references over
        # 2,800 frames, up and down), never kept for every frame.
        gi.require_version('CugiGst', '1.0')
        from gi.repository import CugiGst
        pool, _work = self.start_on_proposed_pool()
        context = CugiGst.context_new_for_cuda_context(self.cuda_context)
        frames = 2048
        self.run_frames(pool, count=frames)
        self.assertLess(cuda_memory_probe.reference_count(context), frames // 4)

    def test_one_marker_for_many_frames_left_on_the_stream(self):
        # Frames pushed without waiting, while the work stream is busy (a
        # host function of the test's held back before them): each frame's
        # holds are tracked, and the streams' main context ran after every
        # frame, which ended a burst and enqueued a marker (an event, a wait
        # and a host function) for each. Now one marker covers many frames.
        gi.require_version('Cugi', '1.0')
        gi.require_version('CugiGst', '1.0')
        from gi.repository import Cugi, CugiGst
        pool, work = self.start_on_proposed_pool()
        context = CugiGst.context_new_for_cuda_context(self.cuda_context)
        busy = Cugi.Stream.new_for_handle(context, work)
        stand_in = ctypes.CDLL(os.environ['STAND_IN_LIBCUDA'])
        stand_in.fake_cuda_streams_hold_host_functions(1)
        try:
            busy.add_callback(lambda *args: None, None)
            frames = 64
            ops = self.run_frames(pool, count=frames)
        finally:
            stand_in.fake_cuda_streams_hold_host_functions(0)
        self.assertEqual(self.launches(ops), [work] * frames)
        markers = [op for op in ops if op[0] == 'host' and op[1] != work]
        self.assertGreater(len(markers), 0, ops)
        self.assertLessEqual(len(markers), frames // 8, ops)

    def test_waits_for_the_producers_stream_on_the_device(self):
        self.assert_waits_for_the_producers_stream('cugikernel')

    def assert_waits_for_the_producers_stream(self, element):
        # Before: the kernel read the frame at once, whatever was pending on
        # the producer's stream.
        producer = self.new_stream()
        self.start(element)
        ops = self.run_frames(self.new_pool(CUDA_CAPS, producer))
        work = self.launches(ops)[0]
        self.assertNotEqual(work, handle_of(producer))
        self.assertEqual(self.launches(ops), [work] * FRAMES)
        self.assert_waited_for(ops, work, handle_of(producer))
        # The producer may write its memory again once it is released: the
        # streaming thread waits for the kernel that reads it.
        self.assert_waited_after_each_launch(ops, work)
        # The output carries the work stream, complete.
        self.assertEqual(self.outputs, [(work, False)] * FRAMES)

    def test_input_on_its_own_stream_is_not_waited_for(self):
        pool, work = self.start_on_proposed_pool()
        ops = self.run_frames(pool)
        self.assertEqual(self.launches(ops), [work] * FRAMES)
        self.assertFalse([op for op in ops if op[0] in ('record', 'wait', 'sync')], ops)
        # Pushed at once, on the work stream, flagged for consumers.
        self.assertEqual(self.outputs[1:], [(work, True)] * FRAMES)

    def test_shares_the_stream_of_the_element_downstream(self):
        # As GStreamer's CUDA elements do: the first element takes the
        # stream of the pool that the second proposes, and both work on it.
        producer = self.new_stream()
        self.start('cugikernel name=k ! cugikernel name=k2')
        ops = self.run_frames(self.new_pool(CUDA_CAPS, producer))
        _pool, shared = self.proposed('k2')
        self.assertEqual(self.proposed('k')[1], shared)
        self.assertNotEqual(shared, handle_of(producer))
        self.assertEqual(self.launches(ops), [shared] * (2 * FRAMES))
        # The first waits for each frame (its input came from another
        # stream), the second for none: its output goes on at once.
        self.assertEqual(self.syncs_from_first_launch(ops, shared), FRAMES, ops)
        self.assertEqual(self.outputs, [(shared, True)] * FRAMES)

    def test_system_memory_input_waits_for_its_upload_alone(self):
        # Uploaded from the producer's memory, which it may reuse once the
        # frame is released: the streaming thread waits for an event
        # recorded on the work stream before the kernel (after the upload),
        # not for the kernel, and the output goes on flagged for consumers.
        # Before, it synchronized the stream, kernel and all.
        self.start('cugikernel', in_caps=SYSTEM_CAPS)
        ops = self.run_frames()
        work = self.launches(ops)[0]
        self.assertEqual(self.launches(ops), [work] * FRAMES)
        self.assertEqual(self.syncs_from_first_launch(ops, work), 0, ops)
        launches = [i for i, op in enumerate(ops) if op == ('launch', work)]
        for start, end in zip(launches, launches[1:] + [len(ops)]):
            recorded = [op[1] for op in ops[:start] if op[0] == 'record' and op[2] == work]
            self.assertTrue(recorded, ops)
            self.assertIn(('event-sync', recorded[-1]), ops[start:end], ops)
        self.assertEqual(self.outputs, [(work, True)] * FRAMES)

    def test_python_element_waits_for_the_producers_stream_on_the_device(self):
        # A CugiGst.Filter in Python orders its work as cugikernel does.
        self.assert_waits_for_the_producers_stream('pycugiinvert')

    def test_python_element_works_on_the_stream_of_its_output(self):
        # Its output comes from the pool cugikernel proposes: the kernel
        # runs on that pool's stream, after an event of the producer's.
        producer = self.new_stream()
        self.start('pycugiinvert ! cugikernel name=k2')
        ops = self.run_frames(self.new_pool(CUDA_CAPS, producer))
        _pool, downstream = self.proposed('k2')
        self.assertEqual(self.launches(ops), [downstream] * (2 * FRAMES), ops)
        self.assert_waited_for(ops, downstream, handle_of(producer), every=2)
        self.assertEqual(self.syncs_from_first_launch(ops, downstream), FRAMES, ops)


if __name__ == '__main__':
    unittest.main(verbosity=2)
