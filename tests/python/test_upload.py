#!/usr/bin/python3
"""Uploads and downloads of Python memory through the overrides, without a
GPU: against the stand-in driver of the tests (fake-cuda-streams over
fake-cuda-devices), whose device memory is host memory. Every upload-type
entry point (Buffer.upload, upload_2d, upload_3d, upload_async and
upload_bytes_async, HostBuffer.write) takes any buffer-protocol object by
its address, and Buffer.download_into() fills one; what arrives is read
back and compared."""

import array
import gc
import mmap
import unittest
import weakref
from unittest import mock

import gi

gi.require_version('Cugi', '1.0')
from gi.repository import Cugi, Gio, GLib  # noqa: E402

import numpy  # noqa: E402

SIZE = 96


class OwnedArray(numpy.ndarray):
    """An ndarray subclass, so that a weak reference tells when it is gone."""


def sources():
    """(name, object, its bytes) for each kind of source, of SIZE bytes."""
    matrix = numpy.arange(SIZE // 4, dtype=numpy.float32).reshape(4, SIZE // 16) * 1.5
    raw = bytes(range(100, 100 + SIZE))
    longer = bytes(range(SIZE + 10))
    words = array.array('i', range(-5, SIZE // 4 - 5))
    return [
        ('float32 2D array', matrix, matrix.tobytes()),
        ('bytes', raw, raw),
        ('bytearray', bytearray(raw[::-1]), raw[::-1]),
        ('memoryview slice', memoryview(longer)[3:3 + SIZE], longer[3:3 + SIZE]),
        ('array.array', words, words.tobytes()),
    ]


def strided():
    """Memory that is not contiguous, one of each kind that can be."""
    return [numpy.arange(2 * SIZE, dtype=numpy.uint8).reshape(SIZE // 8, 16)[:, ::2],
            memoryview(bytes(2 * SIZE))[::2]]


def run_until(loop, done):
    """Runs @loop until done() is true; a guard against a hang, not a
    timing: the test fails if it ever fires."""
    guard = GLib.timeout_add_seconds(30, lambda: loop.quit() or GLib.SOURCE_REMOVE)
    while not done():
        loop.get_context().iteration(True)
    GLib.source_remove(guard)


class UploadTest(unittest.TestCase):
    def setUp(self):
        self.buffer = Cugi.Buffer.new(None, SIZE)
        self.buffer.upload(0, bytes(SIZE))

    def contents(self, size=SIZE):
        return self.buffer.download(0, size).get_data()

    def test_upload(self):
        for name, source, expected in sources():
            with self.subTest(name):
                self.buffer.upload(0, bytes(SIZE))
                self.assertTrue(self.buffer.upload(0, source))
                self.assertEqual(self.contents(), expected)
        self.buffer.upload(SIZE - 2, b'\xfe\xff')
        self.assertEqual(self.contents()[-3:], expected[-3:-2] + b'\xfe\xff')

    def test_upload_2d(self):
        # A pitched buffer: rows of 16 bytes, SIZE // 16 of them, 32 apart.
        pitched = Cugi.Buffer.new(None, 2 * SIZE)
        for name, source, expected in sources():
            with self.subTest(name):
                pitched.upload(0, b'\xee' * 2 * SIZE)
                self.assertTrue(pitched.upload_2d(0, 32, source, 16, SIZE // 16))
                rows = pitched.download(0, 2 * SIZE).get_data()
                for row in range(SIZE // 16):
                    self.assertEqual(rows[32 * row:32 * row + 16], expected[16 * row:16 * row + 16])
                    self.assertEqual(rows[32 * row + 16:32 * row + 32], b'\xee' * 16)

    def test_upload_3d(self):
        # Slices of 2 rows of 16 bytes, rows 24 bytes apart, 3 rows a slice.
        depth = SIZE // 32
        box = Cugi.Buffer.new(None, 24 * 3 * depth)
        for name, source, expected in sources():
            with self.subTest(name):
                box.upload(0, b'\xee' * box.props.size)
                self.assertTrue(box.upload_3d(0, 24, 3, source, 16, 2, depth))
                seen = box.download(0, box.props.size).get_data()
                for z in range(depth):
                    for y in range(2):
                        at = 24 * (3 * z + y)
                        self.assertEqual(seen[at:at + 16], expected[32 * z + 16 * y:][:16])
                        self.assertEqual(seen[at + 16:at + 24], b'\xee' * 8)
                    self.assertEqual(seen[24 * (3 * z + 2):24 * (3 * z + 3)], b'\xee' * 24)

    def test_host_buffer_write(self):
        host = Cugi.HostBuffer.new(None, SIZE + 4, Cugi.HostBufferFlags.NONE)
        for name, source, expected in sources():
            with self.subTest(name):
                self.assertTrue(host.write(4, source))
                self.assertEqual(host.get_bytes().get_data()[4:], expected)
        with self.assertRaisesRegex(GLib.Error, 'do not fit'):
            host.write(5, numpy.zeros(SIZE, numpy.uint8))
        with self.assertRaisesRegex(ValueError, 'not C-contiguous'):
            host.write(0, strided()[0])

    def test_upload_async_keeps_the_source(self):
        loop = GLib.MainLoop()
        for method in ('upload_async', 'upload_bytes_async'):
            for name, source, expected in sources():
                with self.subTest(name, method=method):
                    self.buffer.upload(0, bytes(SIZE))
                    results = []
                    getattr(self.buffer, method)(0, source, None, None,
                                                 lambda *args: results.append(args), 'data')
                    # Only the upload holds the source now.
                    source = None
                    gc.collect()
                    run_until(loop, lambda: results)
                    buffer, result, data = results[0]
                    self.assertIs(buffer, self.buffer)
                    self.assertEqual(data, 'data')
                    self.assertTrue(buffer.upload_finish(result))
                    self.assertTrue(buffer.upload_bytes_finish(result))
                    self.assertEqual(self.contents(), expected)

    def test_upload_async_releases_the_source_once_done(self):
        loop = GLib.MainLoop()
        source = numpy.arange(SIZE, dtype=numpy.uint8).view(OwnedArray)
        gone = weakref.ref(source)
        results = []
        stream = Cugi.Stream.new(None, Cugi.StreamFlags.NON_BLOCKING, 0)
        self.buffer.upload_async(0, source, stream, None, lambda *args: results.append(args))
        del source
        run_until(loop, lambda: results)
        self.buffer.upload_finish(results[0][1])
        gc.collect()
        self.assertIsNone(gone())
        self.assertEqual(self.contents(), bytes(range(SIZE)))

    def test_cancelled_upload_keeps_the_source_until_the_stream_is_done(self):
        loop = GLib.MainLoop()
        source = numpy.arange(SIZE, dtype=numpy.uint8).view(OwnedArray)
        gone = weakref.ref(source)
        cancellable = Gio.Cancellable()
        results = []
        stream = Cugi.Stream.new(None, Cugi.StreamFlags.NON_BLOCKING, 0)
        # The copy is enqueued before the cancel, which completes the call
        # at once: the memory is let go only once the stream is done.
        self.buffer.upload_async(0, source, stream, cancellable, lambda *args: results.append(args))
        cancellable.cancel()
        del source
        run_until(loop, lambda: results)
        with self.assertRaises(GLib.Error) as caught:
            self.buffer.upload_finish(results[0][1])
        self.assertTrue(caught.exception.matches(Gio.io_error_quark(), Gio.IOErrorEnum.CANCELLED))
        run_until(loop, lambda: gc.collect() is not None and gone() is None)
        self.assertEqual(self.contents(), bytes(range(SIZE)))

    def test_upload_async_errors(self):
        loop = GLib.MainLoop()
        results = []
        self.buffer.upload_async(1, bytes(SIZE), None, None, lambda *args: results.append(args))
        run_until(loop, lambda: results)
        with self.assertRaisesRegex(GLib.Error, 'offset 1 and size 96 do not fit in the 96 bytes'):
            self.buffer.upload_finish(results[0][1])
        with self.assertRaisesRegex(ValueError, 'not C-contiguous'):
            self.buffer.upload_async(0, strided()[1], None, None, None)

    def test_glib_bytes_and_lists_as_before(self):
        loop = GLib.MainLoop()
        results = []
        self.buffer.upload_bytes_async(0, GLib.Bytes.new(b'abc'), None, None,
                                       lambda *args: results.append(args))
        run_until(loop, lambda: results)
        self.assertTrue(self.buffer.upload_bytes_finish(results[0][1]))
        self.assertEqual(self.contents(3), b'abc')
        self.buffer.upload(1, [7, 8])
        self.assertEqual(self.contents(3), b'a\x07\x08')
        pitched = Cugi.Buffer.new(None, 8)
        pitched.upload_2d(0, 4, [1, 2, 3, 4], 2, 2)
        self.assertEqual(pitched.download(0, 8).get_data()[:6], b'\x01\x02\x00\x00\x03\x04')

    def test_other_buffers(self):
        # Any dtype, 0 bytes, an mmap, NumPy dtypes with no buffer format.
        stamps = numpy.array(['2024-01-02', '1970-01-01'], dtype='datetime64[s]')
        self.buffer.upload(0, stamps)
        self.assertEqual(self.contents(16), stamps.tobytes())
        self.assertTrue(self.buffer.upload(0, b''))
        with mmap.mmap(-1, SIZE) as mapped:
            mapped.write(bytes(range(SIZE)))
            self.buffer.upload(0, mapped)
            mapped[:] = bytes(SIZE)
            self.buffer.download_into(mapped)
            self.assertEqual(mapped[:], bytes(range(SIZE)))

    def test_not_contiguous(self):
        pitched = Cugi.Buffer.new(None, 2 * SIZE)
        for source in strided():
            with self.subTest(type(source).__name__):
                for upload in (lambda: self.buffer.upload(0, source),
                               lambda: pitched.upload_2d(0, 32, source, 16, 3),
                               lambda: pitched.upload_3d(0, 16, 3, source, 16, 3, 1)):
                    with self.assertRaisesRegex(ValueError, 'not C-contiguous'):
                        upload()
                with self.assertRaisesRegex(ValueError, 'not C-contiguous'):
                    self.buffer.download_into(numpy.zeros((4, 8), numpy.uint8)[:, ::2])

    def test_too_large(self):
        message = 'offset 0 and size 97 do not fit in the 96 bytes of the buffer'
        for source in (bytes(SIZE + 1), numpy.zeros(SIZE + 1, numpy.uint8), bytearray(SIZE + 1)):
            with self.subTest(type(source).__name__):
                with self.assertRaises(GLib.Error) as caught:
                    self.buffer.upload(0, source)
                self.assertIn(message, caught.exception.message)
                self.assertEqual(caught.exception.code, int(Cugi.Error.INVALID_ARGUMENT))
        with self.assertRaisesRegex(GLib.Error, 'do not fit'):
            self.buffer.upload_2d(0, 16, bytes(SIZE + 16), 16, SIZE // 16 + 1)
        with self.assertRaisesRegex(GLib.Error, 'do not fit'):
            self.buffer.download_into(bytearray(SIZE + 1))

    def test_download_into(self):
        self.buffer.upload(0, bytes(range(SIZE)))
        for name, target in (('float32 2D array', numpy.zeros((4, SIZE // 16), numpy.float32)),
                             ('bytearray', bytearray(SIZE)),
                             ('array.array', array.array('i', bytes(SIZE)))):
            with self.subTest(name):
                self.assertIs(self.buffer.download_into(target), target)
                self.assertEqual(bytes(memoryview(target).cast('B')), bytes(range(SIZE)))
        longer = bytearray(SIZE)
        self.buffer.download_into(memoryview(longer)[10:20], offset=50)
        self.assertEqual(longer, bytes(10) + bytes(range(50, 60)) + bytes(SIZE - 20))
        with self.assertRaisesRegex(TypeError, 'read-only'):
            self.buffer.download_into(bytes(4))
        with self.assertRaisesRegex(TypeError, 'no buffer protocol'):
            self.buffer.download_into([0] * 4)

    def spy(self, name):
        """Patches Buffer.@name to record its calls (without self) in a list,
        which it returns, and to do what it did."""
        calls = []
        method = getattr(Cugi.Buffer, name)

        def spy(buffer, *args):
            calls.append(args)
            return method(buffer, *args)

        patch = mock.patch.object(Cugi.Buffer, name, spy)
        patch.start()
        self.addCleanup(patch.stop)
        return calls

    def test_by_address_not_converted(self):
        # 64 MiB of NumPy memory goes by its address, in one call, both ways.
        size = 64 << 20
        source = numpy.random.default_rng(3).integers(0, 256, size, dtype=numpy.uint8)
        big = Cugi.Buffer.new(None, size)
        uploads = self.spy('upload_from_address')
        downloads = self.spy('download_to_address')
        big.upload(0, source)
        self.assertEqual(uploads, [(0, source.ctypes.data, size)])
        back = big.copy_to_host()
        self.assertEqual(downloads, [(0, back.ctypes.data, size)])
        numpy.testing.assert_array_equal(back, source)

    def test_numpy_conveniences(self):
        matrix = numpy.arange(12, dtype=numpy.float64).reshape(3, 4)
        uploads = self.spy('upload_from_address')
        device = Cugi.to_device(matrix)
        self.assertEqual(uploads, [(0, matrix.ctypes.data, matrix.nbytes)])
        numpy.testing.assert_array_equal(device.copy_to_host(), matrix)
        # On the stream of `with stream:`, through a staging block.
        stream = Cugi.Stream.new(None, Cugi.StreamFlags.NON_BLOCKING, 0)
        with stream:
            device = Cugi.to_device(matrix * 2)
            numpy.testing.assert_array_equal(device.copy_to_host(), matrix * 2)
            target = numpy.zeros(4)
            device.download_into(target, offset=32)
            numpy.testing.assert_array_equal(target, matrix[1] * 2)


if __name__ == '__main__':
    unittest.main(verbosity=2)
