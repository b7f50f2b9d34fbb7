#!/usr/bin/python3
"""Registering Python's own memory as pinned host memory, without a GPU:
against the stand-in driver of the tests (fake-cuda-streams), which records
what cuMemHostRegister pinned, with which flags, so that each way in
(Cugi.HostBuffer.register() for NumPy arrays and other writable buffers,
new_registered_address() and new_registered_bytes() of the typelib) is
checked, and that the memory stays alive and registered as long as the host
buffer."""

import ctypes
import gc
import os
import unittest
import weakref

import gi

gi.require_version('Cugi', '1.0')
from gi.repository import Cugi, GLib  # noqa: E402

import numpy  # noqa: E402

CU_MEMHOSTREGISTER_PORTABLE = 0x01
CU_MEMHOSTREGISTER_DEVICEMAP = 0x02
CU_MEMHOSTREGISTER_READ_ONLY = 0x08


class OwnedArray(numpy.ndarray):
    """An ndarray subclass, so that a weak reference tells when it is gone."""


class HostRegisterTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        driver = ctypes.CDLL(os.environ['CUGI_LIBCUDA'])
        cls.registration_of = driver.fake_cuda_streams_registration
        cls.registration_of.restype = ctypes.c_int
        cls.registration_of.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t),
                                        ctypes.POINTER(ctypes.c_uint)]

    def registration(self, address):
        """(size, driver flags) of the registration at @address, or None."""
        size = ctypes.c_size_t()
        flags = ctypes.c_uint()
        if not self.registration_of(address, ctypes.byref(size), ctypes.byref(flags)):
            return None
        return size.value, flags.value

    def test_numpy_array(self):
        array = numpy.arange(1024, dtype=numpy.float32).reshape(32, 32)
        address = array.ctypes.data
        host = Cugi.HostBuffer.register(array, flags=Cugi.HostBufferFlags.MAPPED)
        self.assertIsInstance(host, Cugi.HostBuffer)
        self.assertEqual(self.registration(address), (array.nbytes, CU_MEMHOSTREGISTER_DEVICEMAP))
        self.assertEqual(host.props.size, array.nbytes)
        self.assertEqual(host.get_host_address(), address)
        self.assertEqual(host.props.device_pointer, address)
        # Writes through the host buffer land in the array.
        host.write(0, bytes(4))
        self.assertEqual(array[0, 0], 0.0)
        self.assertEqual(array[0, 1], 1.0)
        host.free()
        self.assertIsNone(self.registration(address))

    def test_keeps_the_array_alive(self):
        array = numpy.zeros(4096, dtype=numpy.uint8).view(OwnedArray)
        address = array.ctypes.data
        gone = weakref.ref(array)
        host = Cugi.HostBuffer.register(array, flags=Cugi.HostBufferFlags.PORTABLE)
        del array
        gc.collect()
        self.assertIsNotNone(gone())
        self.assertEqual(self.registration(address), (4096, CU_MEMHOSTREGISTER_PORTABLE))
        del host
        gc.collect()
        self.assertIsNone(gone())
        self.assertIsNone(self.registration(address))

    def test_bytearray_cannot_move(self):
        data = bytearray(b'x' * 100)
        host = Cugi.HostBuffer.register(data)
        with self.assertRaises(BufferError):
            data.extend(b'more')
        self.assertEqual(host.props.size, 100)
        host.free()
        del host
        gc.collect()
        data.extend(b'more')

    def test_refusals(self):
        with self.assertRaises(TypeError):
            Cugi.HostBuffer.register(b'immutable')
        with self.assertRaises(ValueError):
            Cugi.HostBuffer.register(numpy.zeros((8, 8))[:, 1])
        with self.assertRaises(GLib.Error) as caught:
            Cugi.HostBuffer.register(bytearray(16), flags=Cugi.HostBufferFlags.WRITE_COMBINED)
        self.assertTrue(caught.exception.matches(Cugi.error_quark(), Cugi.Error.INVALID_ARGUMENT))
        with self.assertRaises(GLib.Error) as caught:
            Cugi.HostBuffer.new_registered_address(None, 0, 64, Cugi.HostBufferFlags.NONE)
        self.assertTrue(caught.exception.matches(Cugi.error_quark(), Cugi.Error.INVALID_ARGUMENT))
        # Registered twice: the driver's refusal, and the library goes on.
        array = numpy.ones(256, dtype=numpy.uint8)
        host = Cugi.HostBuffer.register(array)
        with self.assertRaises(GLib.Error) as caught:
            Cugi.HostBuffer.register(array[16:])
        self.assertTrue(caught.exception.matches(Cugi.error_quark(), Cugi.Error.INVALID_STATE))
        host.free()
        Cugi.HostBuffer.register(array[16:]).free()

    def test_empty(self):
        host = Cugi.HostBuffer.register(numpy.zeros(0))
        self.assertEqual(host.props.size, 0)

    def test_bytes(self):
        data = GLib.Bytes.new(bytes(range(256)) * 16)
        host = Cugi.HostBuffer.new_registered_bytes(None, data, Cugi.HostBufferFlags.NONE)
        address = host.get_host_address()
        self.assertEqual(self.registration(address), (4096, CU_MEMHOSTREGISTER_READ_ONLY))
        self.assertEqual(host.get_bytes().get_data()[:4], bytes([0, 1, 2, 3]))
        with self.assertRaises(GLib.Error) as caught:
            host.write(0, b'\x00')
        self.assertTrue(caught.exception.matches(Cugi.error_quark(), Cugi.Error.INVALID_STATE))
        del data
        gc.collect()
        self.assertEqual(host.get_bytes().get_data()[255], 255)
        del host
        gc.collect()
        self.assertIsNone(self.registration(address))

    def test_bytes_refuse_downloads(self):
        # Immutable bytes are uploaded from, never downloaded into.
        data = GLib.Bytes.new(b'x' * 4096)
        host = Cugi.HostBuffer.new_registered_bytes(None, data, Cugi.HostBufferFlags.NONE)
        buffer = Cugi.Buffer.new(None, 4096)
        buffer.memset_d8(0, ord('A'), 4096, None)
        array = Cugi.Array.new(None, Cugi.ArrayFormat.UINT8, 1, 64, 64, 0, Cugi.ArrayFlags.NONE)
        array.upload(0, 0, 0, b'A' * 4096, 64, 64, 1)
        for download in (lambda: buffer.download_to_host(0, host, 0, 4096, None),
                         lambda: array.download_to_host(0, 0, 0, host, 0, 0, 0, 64, 64, 1, None)):
            with self.assertRaises(GLib.Error) as caught:
                download()
            self.assertTrue(caught.exception.matches(Cugi.error_quark(), Cugi.Error.INVALID_STATE))
            self.assertIn('immutable', caught.exception.message)
        self.assertEqual(data.get_data(), b'x' * 4096)
        buffer.upload_from_host(0, host, 0, 4096, None)
        self.assertEqual(buffer.download(0, 4).get_data(), b'xxxx')


if __name__ == '__main__':
    unittest.main()
