#!/usr/bin/python3
"""Virtual memory and pools shared between processes through the typelib,
without a GPU: against the stand-in driver (fake-cuda-streams with
fake-cuda-vmm), whose physical memory is memfds mapped into reserved host
addresses, so that a child process maps an exported one for real."""

import ctypes
import os
import unittest

import gi

gi.require_version('Cugi', '1.0')
from gi.repository import Cugi, GLib  # noqa: E402

from virtual_memory_share import run_child  # noqa: E402

Cugi.init()
UNIT = Cugi.PhysicalMemory.get_granularity(None, Cugi.PhysicalMemoryFlags.NONE, False)


class PhysicalMemoryTest(unittest.TestCase):
    def test_granularity_and_flags(self):
        self.assertEqual(UNIT, 64 << 10)
        self.assertEqual(Cugi.PhysicalMemory.get_granularity(None, 0, True), 2 << 20)
        supported = Cugi.PhysicalMemory.get_supported_flags(None)
        self.assertTrue(supported & Cugi.PhysicalMemoryFlags.EXPORTABLE)
        self.assertFalse(supported & Cugi.PhysicalMemoryFlags.COMPRESSIBLE)
        with self.assertRaisesRegex(GLib.Error, 'compressible') as raised:
            Cugi.PhysicalMemory.new(None, UNIT, Cugi.PhysicalMemoryFlags.COMPRESSIBLE)
        self.assertEqual(raised.exception.code, int(Cugi.Error.NOT_SUPPORTED))

    def test_sizes_are_multiples_of_the_granularity(self):
        with self.assertRaisesRegex(GLib.Error, 'granularity') as raised:
            Cugi.PhysicalMemory.new(None, UNIT + 1, 0)
        self.assertEqual(raised.exception.code, int(Cugi.Error.INVALID_ARGUMENT))
        with self.assertRaisesRegex(GLib.Error, 'granularity'):
            Cugi.VirtualRange.new(None, UNIT // 2)

    def test_fd_errors(self):
        with self.assertRaisesRegex(GLib.Error, 'EXPORTABLE'):
            Cugi.PhysicalMemory.new(None, UNIT, 0).export_fd()
        with self.assertRaisesRegex(GLib.Error, '-1') as raised:
            Cugi.PhysicalMemory.new_from_fd(None, -1, UNIT)
        self.assertEqual(raised.exception.code, int(Cugi.Error.INVALID_ARGUMENT))

    def test_child_maps_the_fd(self):
        memory = Cugi.PhysicalMemory.new(None, UNIT, Cugi.PhysicalMemoryFlags.EXPORTABLE)
        reserved = Cugi.VirtualRange.new(None, UNIT)
        reserved.map(0, memory)
        reserved.get_buffer(0, UNIT).upload(0, b'from Python\0')
        status, out = run_child(memory.export_fd(), 'fd', UNIT)
        self.assertEqual((status, out), (0, 'from Python'))


class VirtualRangeTest(unittest.TestCase):
    def test_map_buffer_unmap(self):
        reserved = Cugi.VirtualRange.new(None, 4 * UNIT)
        reserved.map(0, Cugi.PhysicalMemory.new(None, UNIT, 0))
        reserved.map(UNIT, Cugi.PhysicalMemory.new(None, UNIT, 0))
        buffer = reserved.get_buffer(0, 2 * UNIT)
        self.assertIsInstance(buffer, Cugi.Buffer)
        self.assertEqual(buffer.props.device_pointer, reserved.props.address)
        data = os.urandom(2 * UNIT)
        buffer.upload(0, data)
        self.assertEqual(buffer.download(0, 2 * UNIT).get_data(), data)
        device = Cugi.Device.get(0)
        self.assertEqual(reserved.get_access(UNIT, device), Cugi.MemoryAccess.READ_WRITE)
        with self.assertRaisesRegex(GLib.Error, 'alive') as raised:
            reserved.unmap(0, UNIT)
        self.assertEqual(raised.exception.code, int(Cugi.Error.INVALID_STATE))
        del buffer
        reserved.unmap(0, 2 * UNIT)
        with self.assertRaisesRegex(GLib.Error, 'mapped'):
            reserved.get_buffer(0, 1)


class GrowableBufferTest(unittest.TestCase):
    def test_grows_in_place(self):
        growable = Cugi.GrowableBuffer.new(None, 8 * UNIT)
        buffer = growable.get_buffer()
        sizes = []
        buffer.connect('notify::size', lambda buffer, _: sizes.append(buffer.props.size))
        growable.grow(10)
        address = buffer.props.device_pointer
        buffer.upload(0, b'0123456789')
        growable.grow(3 * UNIT)
        self.assertIs(growable.props.buffer, buffer)
        self.assertEqual((buffer.props.device_pointer, buffer.props.size), (address, 3 * UNIT))
        self.assertEqual(sizes, [10, 3 * UNIT])
        self.assertEqual(growable.props.capacity, 3 * UNIT)
        self.assertEqual(buffer.download(0, 10).get_data(), b'0123456789')
        # The stand-in's device memory is host memory: the end is writable.
        ctypes.memset(address + 3 * UNIT - 1, 0x5a, 1)
        with self.assertRaisesRegex(GLib.Error, 'reserved') as raised:
            growable.grow(8 * UNIT + 1)
        self.assertEqual(raised.exception.code, int(Cugi.Error.INVALID_ARGUMENT))


class PoolSharingTest(unittest.TestCase):
    def test_errors(self):
        plain = Cugi.StreamOrderedPool.new(None)
        with self.assertRaisesRegex(GLib.Error, 'new_exportable'):
            plain.export_fd()
        pool = Cugi.StreamOrderedPool.new_exportable(None)
        self.assertTrue(pool.props.is_exportable)
        fd = pool.export_fd()
        imported = Cugi.StreamOrderedPool.new_from_fd(None, fd)
        os.close(fd)
        self.assertTrue(imported.props.is_imported)
        with self.assertRaisesRegex(GLib.Error, 'this pool'):
            pool.export_buffer(plain.allocate(None, 256))
        with self.assertRaisesRegex(GLib.Error, '5 bytes'):
            imported.import_buffer(GLib.Bytes.new(b'short'), None)
        with self.assertRaisesRegex(GLib.Error, 'imported'):
            imported.allocate(None, 256)

    def test_same_process(self):
        pool = Cugi.StreamOrderedPool.new_exportable(None)
        fd = pool.export_fd()
        imported = Cugi.StreamOrderedPool.new_from_fd(None, fd)
        os.close(fd)
        stream = Cugi.Stream.new(None, Cugi.StreamFlags.NONE, 0)
        own = pool.allocate(stream, 4096)
        exported = pool.export_buffer(own)
        self.assertIsInstance(exported, GLib.Bytes)
        opened = imported.import_buffer(exported, stream)
        self.assertEqual(opened.props.size, 4096)
        opened.memset_d8(0, 0x33, 4096, stream)
        stream.synchronize()
        self.assertEqual(ctypes.string_at(own.props.device_pointer, 4), b'3333')
        del opened
        stream.synchronize()


if __name__ == '__main__':
    unittest.main()
