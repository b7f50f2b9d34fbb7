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


class MemoryBlockTest(unittest.TestCase):
    """MemoryPool.take_block(): a pool's block as a Cugi.MemoryBlock (a type
    of _cugi, not a GObject), which goes back to the pool when dropped or
    freed, or with the buffer made over it."""

    def setUp(self):
        self.pool = Cugi.MemoryPool.new(Cugi.Context.get_default())

    def counts(self):
        return self.pool.get_active_blocks(), self.pool.get_held_blocks()

    def test_blocks_come_back_to_the_pool(self):
        block = self.pool.take_block(1000)
        self.assertIsInstance(block, Cugi.MemoryBlock)
        self.assertEqual((block.size, len(block)), (1000, 1000))
        address = block.address
        self.assertNotEqual(address, 0)
        self.assertEqual(int(block), address)
        self.assertIn(f'1000 bytes at {address:#x}', repr(block))
        self.assertEqual(self.counts(), (1, 0))
        del block
        self.assertEqual(self.counts(), (0, 1))
        # The same bin serves buffers and blocks alike.
        buffer = self.pool.allocate(1024)
        self.assertEqual(buffer.props.device_pointer, address)
        del buffer
        self.assertEqual(self.pool.take_block(1024).address, address)
        self.assertEqual(self.counts(), (0, 1))

    def test_free_and_with(self):
        block = self.pool.take_block(4096)
        block.free()
        self.assertEqual(self.counts(), (0, 1))
        self.assertIn('freed', repr(block))
        for use in (block.free, lambda: block.address, lambda: int(block), lambda: len(block),
                    lambda: block.buffer, lambda: block.__cuda_array_interface__):
            with self.assertRaises(GLib.Error) as raised:
                use()
            self.assertTrue(raised.exception.matches(Cugi.error_quark(), Cugi.Error.INVALID_STATE))
        with self.pool.take_block(4096) as block:
            self.assertEqual(self.counts(), (1, 0))
        self.assertEqual(self.counts(), (0, 1))
        with self.pool.take_block(4096) as block:
            block.free()
        self.assertEqual(self.counts(), (0, 1))

    def test_buffer_holds_the_block(self):
        block = self.pool.take_block(64)
        buffer = block.buffer
        self.assertIs(block.buffer, buffer)
        self.assertEqual((buffer.props.device_pointer, buffer.props.size), (block.address, 64))
        buffer.upload_bytes(0, GLib.Bytes.new(b'pooled, without a GObject'))
        self.assertEqual(buffer.download(0, 25).get_data(), b'pooled, without a GObject')
        # The block's object goes; the buffer still holds the memory.
        del block
        self.assertEqual(self.counts(), (1, 0))
        del buffer
        self.assertEqual(self.counts(), (0, 1))
        # free() frees the buffer, which gives the block back.
        block = self.pool.take_block(64)
        buffer = block.buffer
        block.free()
        self.assertTrue(buffer.props.freed)
        self.assertEqual(self.counts(), (0, 1))
        # A buffer freed by hand leaves free() nothing to fail on.
        block = self.pool.take_block(64)
        block.buffer.free()
        block.free()
        self.assertEqual(self.counts(), (0, 1))

    def test_cuda_array_interface(self):
        block = self.pool.take_block(256)
        self.assertEqual(block.__cuda_array_interface__,
                         {'shape': (256,), 'typestr': '|u1', 'descr': [('', '|u1')],
                          'data': (block.address, False), 'strides': None, 'version': 3})

    def test_zero_bytes(self):
        block = self.pool.take_block(0)
        self.assertEqual((block.address, len(block), block.buffer.props.size), (0, 0, 0))
        self.assertEqual(self.counts(), (0, 0))

    def test_bad_requests_raise(self):
        with self.assertRaises(OverflowError):
            self.pool.take_block(-1)
        with self.assertRaises(TypeError):
            self.pool.take_block('1 MiB')
        with self.assertRaises(TypeError):
            self.pool.take_block()
        with self.assertRaisesRegex(GLib.Error, 'no context'):
            Cugi.MemoryPool().take_block(4096)
        with self.assertRaises(GLib.Error) as raised:
            self.pool.take_block(2**64 - 1)
        self.assertTrue(raised.exception.matches(Cugi.error_quark(), Cugi.Error.INVALID_ARGUMENT))
        with self.assertRaises(TypeError):
            Cugi.MemoryBlock()
        self.assertEqual(self.counts(), (0, 0))


class FreeTest(unittest.TestCase):
    """free() gives the memory back once the work on it is done, though the
    argument lists of kernel calls, or device buffers, still hold it."""

    def setUp(self):
        context = Cugi.Context.get_default()
        self.kernel = Cugi.Module.new_from_data(context, GLib.Bytes.new(b'saxpy_c 4 8 8 4\n')).get_kernel('saxpy_c')
        self.stream = Cugi.Stream.new(context, Cugi.StreamFlags.NON_BLOCKING, 0)
        self.other = Cugi.Buffer.new(context, 128)

    def call(self, buffer):
        for _ in range(3):
            self.kernel(1.0, buffer, self.other, 4, grid=1, block=1, stream=self.stream)

    def test_a_pool_block_passed_to_kernels(self):
        pool = Cugi.MemoryPool.new(Cugi.Context.get_default())
        block = pool.take_block(128)
        self.call(block)
        block.free()
        self.stream.synchronize()
        self.assertEqual((pool.get_active_blocks(), pool.get_held_blocks()), (0, 1))

    def test_a_host_buffer_mapped_into_kernels(self):
        pool = Cugi.HostMemoryPool.new(Cugi.Context.get_default(), Cugi.HostBufferFlags.MAPPED)
        host = pool.allocate(128)
        device = host.get_device_buffer()
        self.call(device)
        host.free()
        self.stream.synchronize()
        self.assertEqual((pool.get_active_blocks(), pool.get_held_blocks()), (0, 1))
        self.assertEqual(device.props.device_pointer, 0)
        for use in (lambda: self.call(device), lambda: device.download(0, 4)):
            with self.assertRaisesRegex(GLib.Error, 'host buffer that was freed') as raised:
                use()
            self.assertTrue(raised.exception.matches(Cugi.error_quark(), Cugi.Error.INVALID_STATE))


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

    def test_out_of_memory(self):
        # The driver's OUT_OF_MEMORY, and the pools go on serving.
        pool = Cugi.StreamOrderedPool.new(self.context.get_device())
        for allocate in (lambda: pool.allocate(self.stream, 2**63),
                         lambda: Cugi.Buffer.new_on_stream(self.stream, 2**63)):
            with self.assertRaises(GLib.Error) as raised:
                allocate()
            self.assertTrue(raised.exception.matches(Cugi.error_quark(), Cugi.Error.OUT_OF_MEMORY))
        self.assertEqual(pool.get_used_current(), 0)
        buffer = pool.allocate(self.stream, 64)
        self.assertEqual(pool.get_used_current(), 64)
        buffer.memset_d8(0, 1, 64, self.stream)
        self.stream.synchronize()
        self.assertEqual(ctypes.string_at(buffer.props.device_pointer, 64), b'\x01' * 64)

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
