#!/usr/bin/python3
"""Stream-ordered allocation, its pools, 2D memsets and attaching managed
memory through the typelib, without a GPU: against the stand-in driver of
the tests (fake-cuda-streams), whose stream-ordered allocator hands out host
memory, so that what a memset wrote is read back with ctypes."""

import ctypes
import unittest

import gi

gi.require_version('Cugi', '1.0')
from gi.repository import Cugi, GLib  # noqa: E402

MAX_UINT64 = 2**64 - 1


class MemoryPoolTest(unittest.TestCase):
    """MemoryPool.allocate() from Python, which the overrides make in C
    (_cugi), not through PyGObject's invoker: the same results and errors."""

    def test_blocks_come_back_to_the_pool(self):
        pool = Cugi.MemoryPool.new(Cugi.Context.get_default())
        buffer = pool.allocate(1 << 20)
        self.assertIsInstance(buffer, Cugi.Buffer)
        self.assertEqual(buffer.props.size, 1 << 20)
        address = buffer.props.device_pointer
        self.assertEqual((pool.get_active_blocks(), pool.get_held_blocks()), (1, 0))
        del buffer
        self.assertEqual((pool.get_active_blocks(), pool.get_held_blocks()), (0, 1))
        again = pool.allocate(1 << 20)
        self.assertEqual(again.props.device_pointer, address)
        self.assertEqual(pool.allocate(0).props.size, 0)

    def test_bad_requests_raise(self):
        pool = Cugi.MemoryPool.new(Cugi.Context.get_default())
        with self.assertRaises(OverflowError):
            pool.allocate(-1)
        with self.assertRaises(OverflowError):
            pool.allocate(2**64)
        with self.assertRaises(TypeError):
            pool.allocate('1 MiB')
        with self.assertRaisesRegex(TypeError, "doesn't apply to a 'Context' object"):
            Cugi.MemoryPool.allocate(Cugi.Context.get_default(), 4096)
        # A pool made without a context says so, as a GLib.Error.
        with self.assertRaisesRegex(GLib.Error, 'no context'):
            Cugi.MemoryPool().allocate(4096)
        self.assertEqual(pool.allocate(4096).props.size, 4096)


class StreamOrderedTest(unittest.TestCase):
    def setUp(self):
        self.context = Cugi.Context.get_default()
        self.stream = Cugi.Stream.new(self.context, Cugi.StreamFlags.NON_BLOCKING, 0)
        # The buffers a test drops are freed on its stream: done before the
        # next test, whose high-water marks they would be part of.
        self.addCleanup(self.stream.synchronize)

    def test_own_pool(self):
        pool = Cugi.StreamOrderedPool.new(self.context.get_device())
        self.assertFalse(pool.props.is_default)
        self.assertEqual(pool.props.device, self.context.get_device())
        pool.set_release_threshold(MAX_UINT64)
        self.assertEqual(pool.get_release_threshold(), MAX_UINT64)

        buffer = pool.allocate(self.stream, 4096)
        self.assertIsInstance(buffer, Cugi.Buffer)
        self.assertEqual(buffer.props.size, 4096)
        self.assertEqual(pool.get_used_current(), 4096)
        self.assertEqual(pool.get_reserved_current(), 4096)
        del pool                                  # the buffer keeps it alive
        buffer.free_on_stream(self.stream)
        self.stream.synchronize()
        with self.assertRaises(GLib.Error) as raised:
            buffer.free_on_stream(None)
        self.assertTrue(raised.exception.matches(Cugi.error_quark(), Cugi.Error.INVALID_STATE))

    def test_default_pool_and_trim(self):
        pool = Cugi.StreamOrderedPool.get_default(None)
        self.assertTrue(pool.is_default())
        pool.trim_to(0)
        pool.reset_high()
        buffer = Cugi.Buffer.new_on_stream(self.stream, 1 << 20)
        self.assertEqual(pool.get_used_current(), 1 << 20)
        del buffer
        self.stream.synchronize()
        self.assertEqual(pool.get_used_current(), 0)
        self.assertEqual(pool.get_used_high(), 1 << 20)
        self.assertEqual(pool.get_reserved_high(), 1 << 20)
        pool.trim_to(0)
        self.assertEqual(pool.get_reserved_current(), 0)

    def test_memset_2d(self):
        buffer = Cugi.Buffer.new_on_stream(self.stream, 64)
        buffer.memset_d8(0, 0, 64, self.stream)
        buffer.memset_2d_d8(4, 16, 0xab, 10, 3, self.stream)
        self.stream.synchronize()
        data = ctypes.string_at(buffer.props.device_pointer, 64)
        expected = bytearray(64)
        for row in range(3):
            expected[4 + row * 16:4 + row * 16 + 10] = b'\xab' * 10
        self.assertEqual(data, bytes(expected))
        with self.assertRaisesRegex(GLib.Error, 'pitch'):
            buffer.memset_2d_d32(0, 8, 1, 4, 2, None)

    def test_attach_needs_managed_memory(self):
        buffer = Cugi.Buffer.new_on_stream(self.stream, 64)
        with self.assertRaisesRegex(GLib.Error, 'not managed'):
            buffer.attach(self.stream, Cugi.MemAttach.SINGLE)


if __name__ == '__main__':
    unittest.main()
