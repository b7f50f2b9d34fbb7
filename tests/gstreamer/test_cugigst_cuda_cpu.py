#!/usr/bin/python3
"""libcugi-gst on CUDA memory, without a GPU: on the stand-in driver that
GStreamer's CUDA library loads as libcuda.so.1 and cugi through
CUGI_LIBCUDA (tests/gstreamer/stand-in-libcuda.c, whose device memory is
host memory and which records every event record, stream wait and stream
synchronization of both libraries in order).

Frames of a GstCudaBufferPool are mapped as views of their GstCudaMemory
(what is written through a plane is what GStreamer reads back); on
GStreamer 1.24 and later the frame's stream waits on the device for the
memory's stream when it is mapped, and the memory's stream waits for the
frame's when it is unmapped; on 1.22, and without a stream, unmapping waits
on the host. GstCudaContexts become Cugi.Contexts and back, and an element
negotiates one. The stand-in is read through ctypes, the library never.

Run by meson (cugigst-cuda-cpu, examples/gstreamer/meson.build) in the
environment of gstreamer-streams-cpu (the stand-ins' paths), with
GI_TYPELIB_PATH and LD_LIBRARY_PATH reaching build/cugi/gst too. The
stand-in's records and the registry come from stand_in_gst.py, as that
test's do.
"""
import atexit
import shutil
import tempfile
import unittest

from stand_in_gst import Ops, use_own_registry, waited_for

# A registry of its own, with no plugins (the test needs none): nvcodec
# would register its elements on the stand-in in the registry of the other
# tests.
_scratch = tempfile.mkdtemp(prefix='cugigst-cuda-')
atexit.register(shutil.rmtree, _scratch, True)
use_own_registry(_scratch)

import gi  # noqa: E402
gi.require_version('Cugi', '1.0')
gi.require_version('CugiGst', '1.0')
gi.require_version('Gst', '1.0')
gi.require_version('GstVideo', '1.0')
gi.require_version('GstCuda', '1.0')
from gi.repository import Cugi, CugiGst, Gst, GstCuda, GstVideo  # noqa: E402

Gst.init(None)

STREAMS = Gst.version()[:2] >= (1, 24)
CAPS = 'video/x-raw(memory:CUDAMemory),format={},width=64,height=48,framerate=30/1'
READ, WRITE = CugiGst.MapFlags.READ, CugiGst.MapFlags.WRITE


OPS = Ops()


class CudaFrames(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        assert GstCuda.cuda_load_library(), 'libgstcuda could not load the stand-in driver'
        cls.cuda_context = GstCuda.CudaContext.new(0)
        cls.context = CugiGst.context_new_for_cuda_context(cls.cuda_context)

    def new_buffer(self, format_name='RGBA', gst_stream=None):
        caps = Gst.Caps.from_string(CAPS.format(format_name))
        info = GstVideo.VideoInfo.new_from_caps(caps)
        pool = GstCuda.CudaBufferPool.new(self.cuda_context)
        config = pool.get_config()
        Gst.BufferPool.config_set_params(config, caps, info.size, 0, 0)
        if gst_stream is not None:
            GstCuda.buffer_pool_config_set_cuda_stream(config, gst_stream)
        self.assertTrue(pool.set_config(config))
        self.assertTrue(pool.set_active(True))
        self.addCleanup(pool.set_active, False)
        result, buffer = pool.acquire_buffer(None)
        self.assertEqual(result, Gst.FlowReturn.OK)
        return buffer, info

    def test_contexts_both_ways(self):
        self.assertIsInstance(self.context, Cugi.Context)
        self.assertEqual(CugiGst.context_get_cuda_context(self.context), self.cuda_context)
        self.assertEqual(self.context.props.handle, self.cuda_context.get_handle())
        # The same CUcontext gives the same object.
        self.assertEqual(CugiGst.context_new_for_cuda_context(self.cuda_context), self.context)

    def test_planes_are_the_memory(self):
        buffer, info = self.new_buffer('NV12')
        frame = CugiGst.Frame.map(buffer, info, WRITE, self.context, None)
        self.assertEqual(frame.get_memory_kind(), CugiGst.MemoryKind.CUDA)
        self.assertEqual(frame.get_n_planes(), 2)
        written = []
        for index in range(2):
            plane = frame.get_plane(index)
            pitch = frame.get_plane_pitch(index)
            self.assertGreaterEqual(pitch, frame.get_plane_row_size(index))
            self.assertEqual(plane.props.size, frame.get_plane_size(index))
            # A view of the memory, which the frame frees when unmapped.
            self.assertIsNotNone(plane.get_parent())
            data = bytes((index * 50 + i) % 256 for i in range(frame.get_plane_size(index)))
            plane.upload(0, data)
            written.append((pitch, frame.get_plane_row_size(index), frame.get_plane_height(index), data))
        self.assertTrue(frame.unmap())
        # GStreamer reads the device memory back (its own download of the
        # rows' pixels), laid out as the buffer's video meta says.
        meta = GstVideo.buffer_get_video_meta(buffer)
        host = bytes(buffer.extract_dup(0, buffer.get_size()))
        for index, (pitch, row_size, rows, data) in enumerate(written):
            self.assertEqual(meta.stride[index], pitch)
            for row in range(rows):
                start = meta.offset[index] + row * pitch
                self.assertEqual(host[start:start + row_size], data[row * pitch:row * pitch + row_size])

    def test_other_context_is_refused(self):
        buffer, info = self.new_buffer()
        other = Cugi.Context.new(Cugi.Device.get(1), Cugi.ContextFlags.NONE)
        with self.assertRaises(gi.repository.GLib.Error) as raised:
            CugiGst.Frame.map(buffer, info, READ, other, None)
        self.assertTrue(raised.exception.matches(Cugi.Error.quark(), Cugi.Error.INVALID_CONTEXT))

    @unittest.skipUnless(STREAMS, "GStreamer 1.22's CUDA memory carries no stream")
    def test_frame_stream_waits_for_memory_and_back(self):
        gst_stream = GstCuda.CudaStream.new(self.cuda_context)
        buffer, info = self.new_buffer(gst_stream=gst_stream)
        memory_stream = gst_stream.get_handle()
        stream = Cugi.Stream.new(self.context, Cugi.StreamFlags.NON_BLOCKING, 0)
        mine = stream.props.handle
        OPS.clear()
        frame = CugiGst.Frame.map(buffer, info, READ | WRITE, self.context, stream)
        self.assert_waited_on_device(OPS.read(), mine, memory_stream)
        OPS.clear()
        self.assertTrue(frame.unmap())
        self.assert_waited_on_device(OPS.read(), memory_stream, mine)

    def assert_waited_on_device(self, ops, stream, producer):
        """@stream last waited for an event recorded on @producer, and
        nothing waited on the host."""
        self.assertEqual(waited_for(ops, len(ops), stream), producer, ops)
        self.assertFalse([op for op in ops if op[0] == 'sync'], ops)

    def test_memory_without_stream_waits_on_the_host(self):
        buffer, info = self.new_buffer()
        stream = Cugi.Stream.new(self.context, Cugi.StreamFlags.NON_BLOCKING, 0)
        frame = CugiGst.Frame.map(buffer, info, WRITE, self.context, stream)
        OPS.clear()
        self.assertTrue(frame.unmap())
        self.assertIn(('sync', stream.props.handle), OPS.read())


class ElementContext(unittest.TestCase):
    def test_ensure_makes_and_shares_a_context(self):
        element = Gst.Pipeline.new(None)
        context = CugiGst.context_ensure_for_element(element, -1)
        self.assertIsInstance(context, Cugi.Context)
        cuda_context = CugiGst.context_get_cuda_context_for_element(element)
        self.assertIsInstance(cuda_context, GstCuda.CudaContext)
        self.assertEqual(CugiGst.context_get_cuda_context(context), cuda_context)
        self.assertEqual(CugiGst.context_get_for_element(element), context)
        # Asked again: the same context, not a new one.
        self.assertEqual(CugiGst.context_ensure_for_element(element, -1), context)
        query = Gst.Query.new_context('gst.cuda.context')
        self.assertTrue(CugiGst.context_handle_context_query(element, query))
        # Another element takes it from the answer.
        other = Gst.Pipeline.new(None)
        self.assertTrue(CugiGst.context_handle_set_context(other, query.parse_context(), -1))
        self.assertEqual(CugiGst.context_get_for_element(other), context)
        CugiGst.context_clear_for_element(element)
        self.assertIsNone(CugiGst.context_get_for_element(element))


if __name__ == '__main__':
    unittest.main()
