#!/usr/bin/python3
"""Kernel calls on a driver older than CUDA 12.4, which has no
cuFuncGetParamInfo and so tells no parameter sizes: against the stand-in
driver of the tests (fake-cuda-streams) told to lack it (FAKE_CUDA_MISSING,
set by meson), which records the parameters of the last launch. The count
that the module's PTX tells is still checked, and NumPy scalars keep their
own width where the sizes are unknown. The stand-in lacks GL
interoperability, external memory and semaphores, dma-buf export and
tensor maps too:
each says which entry point is missing, and the rest goes on working."""

import os
import struct
import unittest

import gi

gi.require_version('Cugi', '1.0')
from gi.repository import Cugi, GLib  # noqa: E402

import numpy  # noqa: E402

from stand_in import LaunchRecorder  # noqa: E402

# The stand-in skips the PTX lines, which cugi reads the count from, and
# loads the last: axpy4(float, const float *, float *, long long), extern "C".
IMAGE = (b'.version 8.0\n'
         b'.visible .entry axpy4 (.param .f32 a, .param .u64 x, .param .u64 y, .param .u64 n)\n'
         b'axpy4 4 8 8 8\n')


class OldDriverTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.launches = LaunchRecorder()
        module = Cugi.Module.new_from_data(None, GLib.Bytes.new(IMAGE))
        cls.axpy4 = module.get_kernel('axpy4')
        cls.x = Cugi.Buffer.new(None, 64)
        cls.y = Cugi.Buffer.new(None, 64)

    def test_count_without_sizes(self):
        self.assertEqual(self.axpy4.get_num_params(), 4)
        self.assertEqual(self.axpy4.get_parameter_sizes(), [0, 0, 0, 0])

    def test_too_few_arguments_are_refused(self):
        with self.assertRaises(GLib.Error) as caught:
            self.axpy4(numpy.float32(2), grid=1, block=1)
        self.assertEqual(caught.exception.code, int(Cugi.Error.INVALID_ARGUMENT))
        self.assertIn('takes 4 parameters, but 1 arguments', caught.exception.message)

    def test_numpy_scalars_keep_their_width(self):
        self.axpy4(numpy.float32(2), self.x, self.y, numpy.int64(-5), grid=1, block=1)
        self.assertEqual(self.launches.last_params(),
                         struct.pack('<fQQq', 2, self.x.props.device_pointer,
                                     self.y.props.device_pointer, -5))


class NoInteropTest(unittest.TestCase):
    def assert_lacks(self, entry_point, function, *args):
        with self.assertRaises(GLib.Error) as caught:
            function(*args)
        self.assertEqual(caught.exception.code, int(Cugi.Error.NOT_SUPPORTED))
        self.assertIn(entry_point, caught.exception.message)

    def test_each_names_what_is_missing(self):
        fd = os.memfd_create('cugi-test')
        os.ftruncate(fd, 4096)
        self.assert_lacks('cuGraphicsGLRegisterBuffer', Cugi.GraphicsResource.new_for_gl_buffer, None, 1,
                          Cugi.GraphicsRegisterFlags.NONE)
        self.assert_lacks('cuImportExternalMemory', Cugi.ExternalMemory.new_from_fd, None,
                          Cugi.ExternalMemoryType.OPAQUE_FD, fd, 4096, Cugi.ExternalMemoryFlags.NONE)
        self.assert_lacks('cuImportExternalSemaphore', Cugi.ExternalSemaphore.new_from_fd, None,
                          Cugi.ExternalSemaphoreType.OPAQUE_FD, fd)
        self.assert_lacks('cuMemGetHandleForAddressRange', Cugi.Buffer.new(None, 64).export_dma_buf)
        os.close(fd)
        # Green contexts came with CUDA 12.4; every context still has its SMs.
        self.assert_lacks('cuGreenCtxCreate', Cugi.Context.new_green, None, 8)
        self.assertEqual(Cugi.Context.get_default().get_sm_count(), 132)
        # Tensor maps came with CUDA 12.0.
        self.assert_lacks('cuTensorMapEncodeTiled', Cugi.TensorMap.new_tiled, Cugi.Buffer.new(None, 4096),
                          Cugi.TensorDataType.FLOAT32, [64, 16], [256], [32, 8])
        # What the driver has still works.
        self.assertEqual(Cugi.Buffer.new(None, 64).props.size, 64)


if __name__ == '__main__':
    unittest.main()
