#!/usr/bin/python3
"""DLPack and the Python conveniences of cugi's overrides, without a GPU:
against the stand-in driver of the tests (fake-cuda-streams over
fake-cuda-devices), whose device memory is host memory, so that what goes
in and out of buffers is checked for real."""

import ctypes
import gc
import os
import textwrap
import unittest
import weakref

import gi

gi.require_version('Cugi', '1.0')
from gi.repository import Cugi, GLib  # noqa: E402

import numpy  # noqa: E402

# The stand-in driver's module format: a kernel name and its parameters'
# sizes. Its kernels do nothing.
IMAGE = b'touch 8 4\n'


class CapsuleReader:
    """Reads a DLPack capsule as a consumer would, through ctypes."""

    def __init__(self):
        self.get_name = ctypes.PYFUNCTYPE(ctypes.c_char_p, ctypes.py_object)(
            ('PyCapsule_GetName', ctypes.pythonapi))
        self.get_pointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(
            ('PyCapsule_GetPointer', ctypes.pythonapi))

    def name(self, capsule):
        return self.get_name(capsule)

    def tensor(self, capsule):
        """(device, ndim, (code, bits, lanes), shape, strides, data) of the
        capsule's tensor, and, for a versioned one, ((major, minor), flags)."""
        name = self.name(capsule)
        address = self.get_pointer(capsule, name)
        words = ctypes.cast(address, ctypes.POINTER(ctypes.c_uint64))
        versioned = name == b'dltensor_versioned'
        # DLManagedTensorVersioned: version (8 bytes), manager_ctx, deleter,
        # flags, then the DLTensor.
        start = address + (32 if versioned else 0)
        data = ctypes.c_uint64.from_address(start).value
        device = tuple((ctypes.c_int32 * 2).from_address(start + 8))
        ndim = ctypes.c_int32.from_address(start + 16).value
        dtype = (ctypes.c_uint8.from_address(start + 20).value,
                 ctypes.c_uint8.from_address(start + 21).value,
                 ctypes.c_uint16.from_address(start + 22).value)
        shape_at = ctypes.c_uint64.from_address(start + 24).value
        strides_at = ctypes.c_uint64.from_address(start + 32).value
        shape = tuple((ctypes.c_int64 * ndim).from_address(shape_at))
        strides = tuple((ctypes.c_int64 * ndim).from_address(strides_at)) if strides_at else None
        extra = None
        if versioned:
            extra = ((words[0] & 0xffffffff, words[0] >> 32), words[3])
        return (device, ndim, dtype, shape, strides, data), extra


class DLPackTest(unittest.TestCase):
    reader = CapsuleReader()

    def test_capsule_of_a_buffer(self):
        buffer = Cugi.to_device(numpy.arange(12, dtype=numpy.float32).reshape(3, 4))
        self.assertEqual(buffer.__dlpack_device__(), (2, 0))
        capsule = buffer.__dlpack__()
        self.assertEqual(self.reader.name(capsule), b'dltensor')
        tensor, extra = self.reader.tensor(capsule)
        self.assertEqual(tensor, ((2, 0), 2, (2, 32, 1), (3, 4), (4, 1), buffer.props.device_pointer))
        self.assertIsNone(extra)

    def test_versioned_capsule(self):
        buffer = Cugi.to_device(numpy.zeros(5, dtype=numpy.int16))
        capsule = buffer.__dlpack__(max_version=(1, 1))
        self.assertEqual(self.reader.name(capsule), b'dltensor_versioned')
        tensor, (version, flags) = self.reader.tensor(capsule)
        self.assertEqual(tensor[:5], ((2, 0), 1, (0, 16, 1), (5,), (1,)))
        self.assertEqual((version, flags), ((1, 0), 0))
        # A consumer of DLPack before 1.0 gets the old capsule.
        self.assertEqual(self.reader.name(buffer.__dlpack__(max_version=(0, 8))), b'dltensor')

    def test_buffers_of_unknown_layout_are_bytes(self):
        buffer = Cugi.Buffer.new(None, 10)
        tensor, _ = self.reader.tensor(buffer.__dlpack__())
        self.assertEqual(tensor[1:4], (1, (1, 8, 1), (10,)))

    def test_managed_memory_is_its_own_device_type(self):
        buffer = Cugi.Buffer.new_managed(None, 64, Cugi.MemAttach.GLOBAL)
        self.assertEqual(buffer.__dlpack_device__(), (13, 0))

    def test_unconsumed_capsule_lets_the_buffer_go(self):
        buffer = Cugi.to_device(numpy.ones(4))
        alive = weakref.ref(buffer)
        capsule = buffer.__dlpack__()
        del buffer
        gc.collect()
        self.assertIsNotNone(alive(), 'the capsule keeps the buffer')
        del capsule
        gc.collect()
        self.assertIsNone(alive(), 'the capsule freed its tensor')

    def test_round_trip_shares_memory_and_keeps_the_producer(self):
        original = Cugi.to_device(numpy.arange(6, dtype=numpy.int64).reshape(2, 3))
        alive = weakref.ref(original)
        wrapped = Cugi.from_dlpack(original)
        self.assertEqual(wrapped.props.device_pointer, original.props.device_pointer)
        self.assertEqual((wrapped.dtype, wrapped.shape), (numpy.dtype(numpy.int64), (2, 3)))
        del original
        gc.collect()
        self.assertIsNotNone(alive(), 'the consumer keeps the producer')
        wrapped.upload(0, numpy.full(6, 7, numpy.int64).tobytes())
        numpy.testing.assert_array_equal(alive().copy_to_host(), numpy.full((2, 3), 7))
        del wrapped
        gc.collect()
        self.assertIsNone(alive(), 'the deleter released the producer')

    def test_consumer_stream_waits_for_the_producer(self):
        # On a stream of cugi's, given by handle as a consumer would.
        stream = Cugi.Stream.new(None, Cugi.StreamFlags.NON_BLOCKING, 0)
        buffer = Cugi.to_device(numpy.arange(3, dtype=numpy.uint8))
        capsule = buffer.__dlpack__(stream=stream.props.handle)
        stream.synchronize()
        self.assertEqual(self.reader.name(capsule), b'dltensor')
        with self.assertRaisesRegex(ValueError, 'never 0'):
            buffer.__dlpack__(stream=0)
        self.assertEqual(self.reader.name(buffer.__dlpack__(stream=-1)), b'dltensor')

    def test_copy_on_request(self):
        buffer = Cugi.to_device(numpy.arange(4, dtype=numpy.float64))
        capsule = buffer.__dlpack__(copy=True, max_version=(1, 0))
        tensor, (_, flags) = self.reader.tensor(capsule)
        self.assertNotEqual(tensor[5], buffer.props.device_pointer)
        self.assertEqual(flags, 2)  # DLPACK_FLAG_BITMASK_IS_COPIED
        copy = Cugi.from_dlpack(_Exporter(capsule, (2, 0)))
        numpy.testing.assert_array_equal(copy.copy_to_host(), numpy.arange(4))

    def test_refusals(self):
        buffer = Cugi.to_device(numpy.arange(4, dtype=numpy.float32))
        with self.assertRaisesRegex(BufferError, 'not \\(1, 0\\)'):
            buffer.__dlpack__(dl_device=(1, 0))
        structured = Cugi.to_device(numpy.zeros(2, dtype=[('a', 'i4'), ('b', 'f4')]))
        with self.assertRaisesRegex(BufferError, 'no type'):
            structured.__dlpack__()
        with self.assertRaisesRegex(BufferError, 'device type 1'):
            Cugi.from_dlpack(numpy.arange(4))
        with self.assertRaisesRegex(TypeError, 'does not support DLPack'):
            Cugi.from_dlpack([1, 2, 3])
        with self.assertRaisesRegex(ValueError, 'on cuda:0, the context on cuda:1'):
            Cugi.from_dlpack(buffer, Cugi.Device.get(1).get_primary_context())

    def test_freed_buffers_are_not_exported(self):
        # A freed buffer's device pointer reads 0: no export hands that out
        # with the old shape, which a consumer would dereference. Its views
        # go with it; its DLPack device is still what it was.
        for freed in (Cugi.to_device(numpy.arange(4, dtype=numpy.float32)),
                      Cugi.Buffer.new(None, 16)):
            view = freed[1:3]
            freed.free()
            for buffer in (freed, view):
                for export in (lambda: buffer.__dlpack__(), lambda: buffer.__dlpack__(max_version=(1, 0)),
                               lambda: buffer.__dlpack__(copy=True)):
                    with self.assertRaisesRegex(GLib.Error, 'buffer was freed') as raised:
                        export()
                    self.assertTrue(raised.exception.matches(Cugi.error_quark(), Cugi.Error.INVALID_STATE))
            self.assertEqual(freed.__dlpack_device__(), (2, 0))
        typed = Cugi.to_device(numpy.arange(4, dtype=numpy.float32))
        view = typed[1:3]
        typed.free()
        for buffer in (typed, view):
            with self.assertRaisesRegex(GLib.Error, 'buffer was freed'):
                buffer.__cuda_array_interface__
        # A zero-size buffer has no memory to free, and exports its 0 bytes.
        empty = Cugi.to_device(numpy.zeros(0, dtype=numpy.float32))
        self.assertEqual(self.reader.tensor(empty.__dlpack__())[0][3], (0,))
        self.assertEqual(empty.__cuda_array_interface__['shape'], (0,))

    def test_numpy_refuses_cuda_memory(self):
        """NumPy takes host memory only, and says so with its own error; the
        capsule it dropped unconsumed lets its buffer go at the next garbage
        collection."""
        buffer = Cugi.to_device(numpy.arange(4, dtype=numpy.float32))
        alive = weakref.ref(buffer)
        with self.assertRaises((BufferError, RuntimeError)) as refusal:
            numpy.from_dlpack(buffer)
        self.assertNotIsInstance(refusal.exception, SystemError)
        numpy.testing.assert_array_equal(buffer.copy_to_host(), numpy.arange(4))
        del buffer, refusal
        gc.collect()
        self.assertIsNone(alive(), 'the refused tensor was deleted')

    def test_malformed_tensors_are_refused_naming_the_field(self):
        # What a producer may get wrong in a tensor (float32, 2 x 4), each
        # refused with the field, its value and what cugi takes: a field at
        # an offset of the DLTensor, or a length in its shape array.
        def field(offset, ctype):
            return lambda start, value: setattr(ctype.from_address(start + offset), 'value', value)

        def length(index):
            def poke(start, value):
                shape_at = ctypes.c_uint64.from_address(start + 24).value
                ctypes.c_int64.from_address(shape_at + 8 * index).value = value
            return poke

        cases = ((field(16, ctypes.c_int32), -1, r'ndim is -1; .*0 or more'),
                 (length(1), -16, r'shape\[1\] is -16; .*0 or more'),
                 (field(24, ctypes.c_uint64), 0, r'shape is NULL for 2 dimensions'),
                 (field(21, ctypes.c_uint8), 0, r'dtype.bits is 0 .*float.*16, 32 or 64'),
                 (field(21, ctypes.c_uint8), 24, r'dtype.bits is 24 .*float.*16, 32 or 64'),
                 (field(22, ctypes.c_uint16), 4, r'dtype.lanes is 4; .*1'),
                 (field(20, ctypes.c_uint8), 4, r'dtype.code is 4; .*0 \(int\), 1 \(uint\), 2 \(float\)'))
        for poke, value, message in cases:
            buffer = Cugi.to_device(numpy.zeros((2, 4), dtype=numpy.float32))
            alive = weakref.ref(buffer)
            capsule = buffer.__dlpack__()
            poke(self.reader.get_pointer(capsule, b'dltensor'), value)
            with self.assertRaisesRegex(BufferError, message):
                Cugi.from_dlpack(_Exporter(capsule, (2, 0)))
            del buffer, capsule
            gc.collect()
            self.assertIsNone(alive(), 'the refused tensor was deleted')

    def test_strided_tensors_are_refused_and_released(self):
        buffer = Cugi.to_device(numpy.arange(8, dtype=numpy.float32).reshape(2, 4))
        alive = weakref.ref(buffer)
        capsule = buffer.__dlpack__()
        strides_at = ctypes.c_uint64.from_address(self.reader.get_pointer(capsule, b'dltensor') + 32)
        (ctypes.c_int64 * 2).from_address(strides_at.value)[0] = 8  # every other row
        with self.assertRaisesRegex(ValueError, 'not C-contiguous'):
            Cugi.from_dlpack(_Exporter(capsule, (2, 0)))
        del buffer, capsule
        gc.collect()
        self.assertIsNone(alive(), 'the refused tensor was deleted')


class _Exporter:
    """Hands out a capsule made beforehand, as a producer would."""

    def __init__(self, capsule, device):
        self.capsule = capsule
        self.device = device

    def __dlpack_device__(self):
        return self.device

    def __dlpack__(self, stream=None, max_version=None):
        return self.capsule


class DeviceArrayTest(unittest.TestCase):
    def test_device_array(self):
        buffer = Cugi.device_array((3, 4), numpy.int32)
        self.assertEqual((buffer.dtype, buffer.shape, buffer.props.size), (numpy.dtype(numpy.int32), (3, 4), 48))
        self.assertEqual(Cugi.device_array(5).dtype, numpy.dtype(numpy.float64))
        like = Cugi.device_array_like(numpy.zeros((2, 2), numpy.uint8))
        self.assertEqual((like.dtype, like.shape), (numpy.dtype(numpy.uint8), (2, 2)))
        with self.assertRaisesRegex(ValueError, 'negative'):
            Cugi.device_array((2, -1))

    def test_slices_are_views(self):
        host = numpy.arange(20, dtype=numpy.float32)
        buffer = Cugi.to_device(host)
        part = buffer[10:20]
        self.assertEqual(part.props.device_pointer, buffer.props.device_pointer + 40)
        self.assertEqual((part.shape, len(part)), ((10,), 10))
        numpy.testing.assert_array_equal(part.copy_to_host(), host[10:20])
        numpy.testing.assert_array_equal(buffer[-3:].copy_to_host(), host[-3:])
        self.assertEqual(buffer[3], 3.0)
        self.assertEqual(buffer[-1], 19.0)
        part.upload(0, numpy.zeros(10, numpy.float32).tobytes())
        numpy.testing.assert_array_equal(buffer.copy_to_host()[10:], numpy.zeros(10))
        with self.assertRaisesRegex(ValueError, 'step 2'):
            buffer[::2]
        with self.assertRaises(IndexError):
            buffer[20]
        with self.assertRaisesRegex(TypeError, 'an int or a slice'):
            buffer[1, 2]

    def test_rows_and_reshape(self):
        host = numpy.arange(24, dtype=numpy.int16).reshape(4, 6)
        buffer = Cugi.to_device(host)
        numpy.testing.assert_array_equal(buffer[1:3].copy_to_host(), host[1:3])
        numpy.testing.assert_array_equal(buffer[2].copy_to_host(), host[2])
        flat = buffer.reshape(-1)
        self.assertEqual((flat.shape, flat.props.device_pointer), ((24,), buffer.props.device_pointer))
        numpy.testing.assert_array_equal(buffer.reshape(2, 3, 4).copy_to_host(), host.reshape(2, 3, 4))
        numpy.testing.assert_array_equal(buffer.reshape((3, -1)).copy_to_host(), host.reshape(3, -1))
        self.assertEqual(buffer.shape, (4, 6), 'the original keeps its shape')
        with self.assertRaisesRegex(ValueError, 'cannot reshape'):
            buffer.reshape(5, 5)
        with self.assertRaisesRegex(ValueError, 'one -1'):
            buffer.reshape(-1, -1)

    def test_pinned_and_mapped_arrays(self):
        array = Cugi.pinned_array((2, 3), numpy.float32)
        self.assertEqual((array.shape, array.dtype), ((2, 3), numpy.dtype(numpy.float32)))
        host = Cugi.host_buffer_of(array)
        self.assertEqual(host.get_host_address(), array.ctypes.data)
        array[:] = 5
        numpy.testing.assert_array_equal(Cugi.to_device(array).copy_to_host(), array)
        del host
        mapped = Cugi.mapped_array(8, numpy.int32)
        mapped[:] = numpy.arange(8)
        self.assertTrue(Cugi.host_buffer_of(mapped).props.flags & Cugi.HostBufferFlags.MAPPED)
        view = Cugi.device_view(mapped)
        self.assertEqual((view.dtype, view.shape), (numpy.dtype(numpy.int32), (8,)))
        numpy.testing.assert_array_equal(view.copy_to_host(), numpy.arange(8))
        with self.assertRaisesRegex(ValueError, 'mapped_array'):
            Cugi.device_view(numpy.zeros(8))
        with self.assertRaisesRegex(ValueError, 'whole array'):
            Cugi.device_view(mapped[2:])
        self.assertIsNone(Cugi.host_buffer_of(numpy.zeros(2)))

    @unittest.skipUnless(hasattr(Cugi.HostBuffer, 'new_registered_address'),
                         'needs Cugi.HostBuffer.new_registered_address (branch s13-link)')
    def test_pinned_and_mapped_registration(self):
        array = numpy.arange(1024, dtype=numpy.float64)
        with Cugi.pinned(array) as host:
            self.assertEqual(host.get_host_address(), array.ctypes.data)
        self.assertTrue(host.props.freed)
        with Cugi.mapped(array) as buffer:
            self.assertEqual(buffer.shape, (1024,))
            numpy.testing.assert_array_equal(buffer.copy_to_host(), array)
        with self.assertRaisesRegex(ValueError, 'C-contiguous'):
            with Cugi.pinned(array[::2]):
                pass
        with self.assertRaisesRegex(TypeError, 'not a NumPy array'):
            with Cugi.pinned(b'bytes'):
                pass


class StreamsAndKernelsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.module = Cugi.Module.new_from_data(Cugi.Context.get_default(), GLib.Bytes.new(IMAGE))
        cls.touch = cls.module.get_kernel('touch')

    def test_auto_synchronize(self):
        stream = Cugi.Stream.new(None, Cugi.StreamFlags.NON_BLOCKING, 0)
        with stream.auto_synchronize() as same:
            self.assertIs(same, stream)
            buffer = Cugi.to_device(numpy.arange(3))
        self.assertTrue(stream.query())
        with self.assertRaises(RuntimeError):
            with stream.auto_synchronize():
                raise RuntimeError('the stream is synchronized anyway')

    def test_scoped_stream(self):
        stream = Cugi.Stream.new(None, Cugi.StreamFlags.NON_BLOCKING, 0)
        with stream:
            buffer = Cugi.to_device(numpy.arange(5, dtype=numpy.int32))
            numpy.testing.assert_array_equal(buffer.copy_to_host(), numpy.arange(5))
            self.touch(buffer, 5, grid=1, block=1)
        # A stream of another context: a launch in its block goes to it,
        # which the driver refuses for this kernel.
        other = Cugi.Stream.new(Cugi.Device.get(1).get_primary_context(), Cugi.StreamFlags.NONE, 0)
        with other:
            with self.assertRaises(GLib.Error) as caught:
                self.touch(buffer, 5, grid=1, block=1)
            self.assertEqual(caught.exception.code, int(Cugi.Error.INVALID_CONTEXT))
            self.assertEqual(Cugi.device_array(2).props.context.props.device.props.ordinal, 1)
        self.touch(buffer, 5, grid=1, block=1)

    def test_scoped_device(self):
        default = Cugi.Context.get_default()
        with Cugi.ScopedDevice('cuda:1') as device:
            self.assertEqual(device.props.ordinal, 1)
            self.assertEqual(Cugi.Buffer.new(None, 16).props.context.props.device.props.ordinal, 1)
            with Cugi.ScopedDevice(0):
                self.assertEqual(Cugi.Context.get_default(), default)
            self.assertEqual(Cugi.to_device(numpy.ones(2)).props.context.props.device.props.ordinal, 1)
        self.assertEqual(Cugi.Context.get_default(), default)
        with self.assertRaises(GLib.Error):
            Cugi.ScopedDevice('cuda:7')

    def test_scoped_peer_access(self):
        zero = Cugi.Device.get(0).get_primary_context()
        one = Cugi.Device.get(1).get_primary_context()
        with Cugi.ScopedPeerAccess(Cugi.Device.get(0), 'cuda:1'):
            with self.assertRaises(GLib.Error) as caught:
                zero.enable_peer_access(one)
            self.assertEqual(caught.exception.code, int(Cugi.Error.PEER_ACCESS))
            # Already enabled: left as it is.
            with Cugi.ScopedPeerAccess(0, 1):
                pass
            zero.disable_peer_access(one)
            zero.enable_peer_access(one)
        with self.assertRaises(GLib.Error):
            zero.disable_peer_access(one)
        with self.assertRaises(GLib.Error):
            with Cugi.ScopedPeerAccess(0, 0):
                pass

    def test_in_out_inout(self):
        source = numpy.arange(4, dtype=numpy.float32)
        result = numpy.zeros(4, dtype=numpy.float32)
        both = numpy.arange(4, dtype=numpy.int32)
        # The stand-in kernel writes nothing: Out brings back what the
        # device memory held, InOut what went in.
        self.touch(Cugi.In(source), 4, grid=1, block=1)
        self.touch(Cugi.InOut(both), 4, grid=1, block=1)
        numpy.testing.assert_array_equal(both, numpy.arange(4))
        self.touch(Cugi.Out(result), 4, grid=1, block=1)
        with self.assertRaisesRegex(ValueError, 'writable, C-contiguous'):
            Cugi.Out(numpy.zeros(8)[::2])
        with self.assertRaisesRegex(TypeError, 'takes a NumPy array'):
            Cugi.InOut([1, 2])

    def test_time_kernel(self):
        buffer = Cugi.device_array(4, numpy.float32)
        elapsed = Cugi.time_kernel(self.touch, buffer, 4, grid=1, block=1)
        self.assertIsInstance(elapsed, float)
        self.assertGreaterEqual(elapsed, 0.0)


if __name__ == '__main__':
    unittest.main(verbosity=2)
