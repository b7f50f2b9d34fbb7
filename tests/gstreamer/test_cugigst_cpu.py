#!/usr/bin/python3
"""libcugi-gst (CugiGst-1.0) through its typelib, without a GPU: against the
stand-in driver of the tests (fake-cuda-streams over fake-cuda-devices, two
devices, whose device memory is host memory), which CUGI_LIBCUDA names.

Frames in system memory are mapped as Cugi.Buffer planes: their layout
(planes, pitches, sizes in bytes and pixels), their contents on the device,
what written planes give back to the GstBuffer (on unmap and when a frame is
dropped), the order of work on a stream, and the errors for bad input. The
context helpers are called as a GStreamer element would call them, and
GStreamer's own CUDA library, which loads the real driver, is what decides
whether a context can be made. No ctypes anywhere."""

import gc
import unittest

import gi

gi.require_version('Cugi', '1.0')
gi.require_version('CugiGst', '1.0')
gi.require_version('Gst', '1.0')
gi.require_version('GstVideo', '1.0')
from gi.repository import Cugi, CugiGst, GLib, Gst, GstVideo  # noqa: E402

Gst.init(None)

WIDTH, HEIGHT = 64, 48
READ = CugiGst.MapFlags.READ
WRITE = CugiGst.MapFlags.WRITE


def video_info(format_name, width=WIDTH, height=HEIGHT):
    info = GstVideo.VideoInfo.new()
    info.set_format(GstVideo.VideoFormat.from_string(format_name), width, height)
    return info


def pattern(size, seed=0):
    return bytes((index * 7 + seed) % 251 for index in range(size))


def new_buffer(info, seed=0):
    return Gst.Buffer.new_wrapped(pattern(info.size, seed))


def contents(buffer):
    return bytes(buffer.extract_dup(0, buffer.get_size()))


def download(plane, size):
    data = plane.download(0, size)
    return bytes(data.get_data() if isinstance(data, GLib.Bytes) else data)


def rows_of(data, offset, stride, row_size, rows):
    return [data[offset + row * stride:offset + row * stride + row_size] for row in range(rows)]


class Layout(unittest.TestCase):
    def check_layout(self, format_name, planes):
        """@planes: (width in pixels, height, pixel stride) of each plane."""
        info = video_info(format_name)
        frame = CugiGst.Frame.map(new_buffer(info), info, READ, None, None)
        self.assertEqual(frame.get_memory_kind(), CugiGst.MemoryKind.SYSTEM)
        self.assertEqual(frame.props.memory_kind, CugiGst.MemoryKind.SYSTEM)
        self.assertEqual(frame.get_format(), info.finfo.format)
        self.assertEqual((frame.props.width, frame.props.height), (WIDTH, HEIGHT))
        self.assertEqual(frame.get_n_planes(), len(planes))
        self.assertEqual(frame.props.n_planes, len(planes))
        self.assertEqual(frame.get_flags(), READ)
        for index, (width, height, pixel_stride) in enumerate(planes):
            row_size = width * pixel_stride
            pitch = frame.get_plane_pitch(index)
            self.assertEqual(pitch, info.stride[index])
            self.assertEqual(frame.get_plane_width(index), width)
            self.assertEqual(frame.get_plane_height(index), height)
            self.assertEqual(frame.get_plane_pixel_stride(index), pixel_stride)
            self.assertEqual(frame.get_plane_row_size(index), row_size)
            self.assertEqual(frame.get_plane_size(index), pitch * (height - 1) + row_size)
            plane = frame.get_plane(index)
            self.assertIsInstance(plane, Cugi.Buffer)
            self.assertEqual(plane.props.size, frame.get_plane_size(index))
            self.assertEqual(plane.get_context(), frame.get_context())
        self.assertTrue(frame.unmap())

    def test_rgba(self):
        self.check_layout('RGBA', [(WIDTH, HEIGHT, 4)])

    def test_nv12(self):
        # The chroma plane: U and V pairs, half as wide and high.
        self.check_layout('NV12', [(WIDTH, HEIGHT, 1), (WIDTH // 2, HEIGHT // 2, 2)])

    def test_i420(self):
        self.check_layout('I420', [(WIDTH, HEIGHT, 1), (WIDTH // 2, HEIGHT // 2, 1),
                                   (WIDTH // 2, HEIGHT // 2, 1)])

    def test_gray8_padded_rows(self):
        # 62 pixels of GRAY8 are padded to rows of 64 bytes.
        info = video_info('GRAY8', 62, 5)
        frame = CugiGst.Frame.map(new_buffer(info), info, READ, None, None)
        self.assertEqual(frame.get_plane_pitch(0), 64)
        self.assertEqual(frame.get_plane_row_size(0), 62)
        self.assertEqual(frame.get_plane_size(0), 64 * 4 + 62)


class SystemMemory(unittest.TestCase):
    def test_read_puts_frame_on_device(self):
        for format_name in ('RGBA', 'NV12', 'I420'):
            with self.subTest(format=format_name):
                info = video_info(format_name)
                buffer = new_buffer(info, seed=3)
                host = contents(buffer)
                frame = CugiGst.Frame.map(buffer, info, READ, None, None)
                for index in range(frame.get_n_planes()):
                    size = frame.get_plane_size(index)
                    device = download(frame.get_plane(index), size)
                    offset = info.offset[index]
                    self.assertEqual(device, host[offset:offset + size])
                frame.unmap()
                self.assertEqual(contents(buffer), host, 'a frame read is not written back')

    def test_write_copies_planes_back_on_unmap(self):
        info = video_info('NV12')
        buffer = new_buffer(info)
        frame = CugiGst.Frame.map(buffer, info, WRITE, None, None)
        notified = []
        frame.connect('notify::mapped', lambda *args: notified.append(frame.props.mapped))
        written = []
        for index in range(frame.get_n_planes()):
            data = pattern(frame.get_plane_size(index), seed=100 + index)
            frame.get_plane(index).upload(0, data)
            written.append(data)
        self.assertTrue(frame.is_mapped())
        self.assertTrue(frame.unmap())
        self.assertEqual(notified, [False])
        self.assertFalse(frame.props.mapped)
        host = contents(buffer)
        for index, data in enumerate(written):
            stride, row_size = info.stride[index], frame.get_plane_row_size(index)
            rows = frame.get_plane_height(index)
            self.assertEqual(rows_of(host, info.offset[index], stride, row_size, rows),
                             rows_of(data, 0, stride, row_size, rows))
        # A second unmap does nothing.
        self.assertTrue(frame.unmap())
        self.assertEqual(notified, [False])

    def test_planes_fail_after_unmap(self):
        info = video_info('RGBA')
        frame = CugiGst.Frame.map(new_buffer(info), info, READ, None, None)
        plane = frame.get_plane(0)
        frame.unmap()
        self.assertIsNone(frame.get_plane(0))
        with self.assertRaises(GLib.Error) as raised:
            plane.download(0, 4)
        self.assertTrue(raised.exception.matches(Cugi.Error.quark(), Cugi.Error.INVALID_STATE))

    def test_dropped_frame_is_written_back(self):
        info = video_info('RGBA')
        buffer = new_buffer(info)
        frame = CugiGst.Frame.map(buffer, info, READ | WRITE, None, None)
        size = frame.get_plane_size(0)
        data = pattern(size, seed=42)
        frame.get_plane(0).upload(0, data)
        del frame
        gc.collect()
        self.assertEqual(contents(buffer)[:size], data)

    def test_write_waits_for_the_stream(self):
        """Work enqueued on the frame's stream (a device-to-device copy from
        another buffer) is in the GstBuffer once the frame is unmapped."""
        context = Cugi.Context.get_default()
        stream = Cugi.Stream.new(context, Cugi.StreamFlags.NON_BLOCKING, 0)
        info = video_info('RGBA')
        buffer = new_buffer(info)
        frame = CugiGst.Frame.map(buffer, info, WRITE, context, stream)
        self.assertEqual(frame.get_stream(), stream)
        size = frame.get_plane_size(0)
        source = Cugi.Buffer.new(context, size)
        data = pattern(size, seed=9)
        source.upload(0, data)
        frame.get_plane(0).copy(0, source, 0, size, stream)
        self.assertTrue(frame.unmap())
        self.assertEqual(contents(buffer)[:size], data)

    def test_buffer_with_video_meta_strides(self):
        # Strides larger than the default ones, given by a GstVideoMeta.
        info = video_info('GRAY8', 16, 4)
        buffer = Gst.Buffer.new_wrapped(pattern(32 * 4))
        GstVideo.buffer_add_video_meta_full(buffer, GstVideo.VideoFrameFlags.NONE,
                                            GstVideo.VideoFormat.GRAY8, 16, 4, 1, [0, 0, 0, 0],
                                            [32, 0, 0, 0])
        frame = CugiGst.Frame.map(buffer, info, READ, None, None)
        self.assertEqual(frame.get_plane_pitch(0), 32)
        self.assertEqual(download(frame.get_plane(0), 32 * 3 + 16), pattern(32 * 4)[:32 * 3 + 16])


class Errors(unittest.TestCase):
    def assert_error(self, code, call, *args):
        with self.assertRaises(GLib.Error) as raised:
            call(*args)
        self.assertTrue(raised.exception.matches(Cugi.Error.quark(), code), raised.exception.message)
        return raised.exception.message

    def test_no_flags(self):
        info = video_info('RGBA')
        self.assert_error(Cugi.Error.INVALID_ARGUMENT, CugiGst.Frame.map, new_buffer(info), info,
                          0, None, None)

    def test_buffer_too_small(self):
        info = video_info('RGBA')
        message = self.assert_error(Cugi.Error.INVALID_ARGUMENT, CugiGst.Frame.map,
                                    Gst.Buffer.new_wrapped(bytes(100)), info, READ, None, None)
        self.assertIn('RGBA', message)

    def test_no_format(self):
        self.assert_error(Cugi.Error.INVALID_ARGUMENT, CugiGst.Frame.map,
                          Gst.Buffer.new_wrapped(bytes(100)), GstVideo.VideoInfo.new(), READ,
                          None, None)

    def test_format_without_pixel_rows(self):
        # v210 packs 6 pixels in 16 bytes: no pixel stride.
        info = video_info('v210', 48, 2)
        message = self.assert_error(Cugi.Error.NOT_SUPPORTED, CugiGst.Frame.map, new_buffer(info),
                                    info, READ, None, None)
        self.assertIn('v210', message)

    def test_write_needs_writable_buffer(self):
        info = video_info('RGBA')
        buffer = new_buffer(info)
        reading = CugiGst.Frame.map(buffer, info, READ, None, None)   # holds a reference
        self.assert_error(Cugi.Error.INVALID_ARGUMENT, CugiGst.Frame.map, buffer, info, WRITE,
                          None, None)
        reading.unmap()

    def test_stream_of_another_context(self):
        other = Cugi.Context.new(Cugi.Device.get(1), Cugi.ContextFlags.NONE)
        stream = Cugi.Stream.new(other, Cugi.StreamFlags.NONE, 0)
        info = video_info('RGBA')
        self.assert_error(Cugi.Error.INVALID_CONTEXT, CugiGst.Frame.map, new_buffer(info), info,
                          READ, Cugi.Context.get_default(), stream)


class Contexts(unittest.TestCase):
    """The context helpers as an element calls them."""

    def setUp(self):
        self.element = Gst.ElementFactory.make('identity', None)

    def test_no_context_before_negotiation(self):
        self.assertIsNone(CugiGst.context_get_for_element(self.element))
        self.assertIsNone(CugiGst.context_get_cuda_context_for_element(self.element))
        query = Gst.Query.new_context('gst.cuda.context')
        self.assertFalse(CugiGst.context_handle_context_query(self.element, query))
        self.assertFalse(CugiGst.context_handle_context_query(self.element, Gst.Query.new_position(Gst.Format.TIME)))

    def test_set_context_takes_only_cuda_contexts(self):
        self.assertFalse(CugiGst.context_handle_set_context(self.element, None, -1))
        other = Gst.Context.new('gst.gl.GLDisplay', True)
        self.assertFalse(CugiGst.context_handle_set_context(self.element, other, -1))
        # A CUDA context type whose structure holds no context.
        empty = Gst.Context.new('gst.cuda.context', True)
        self.assertFalse(CugiGst.context_handle_set_context(self.element, empty, -1))
        self.assertIsNone(CugiGst.context_get_for_element(self.element))

    def test_ensure_without_driver(self):
        # GStreamer's CUDA library loads the real driver, not the stand-in;
        # nvcodec registers cudaupload where it can.
        if Gst.ElementFactory.find('cudaupload') is not None:
            self.skipTest('GStreamer found a CUDA driver: contexts are made on a GPU')
        with self.assertRaises(GLib.Error) as raised:
            CugiGst.context_ensure_for_element(self.element, -1)
        self.assertTrue(raised.exception.matches(Cugi.Error.quark(), Cugi.Error.NOT_AVAILABLE))
        self.assertIsNone(CugiGst.context_get_for_element(self.element))

    def test_cugi_contexts_have_no_gstreamer_context(self):
        self.assertIsNone(CugiGst.context_get_cuda_context(Cugi.Context.get_default()))


if __name__ == '__main__':
    unittest.main()
