#!/usr/bin/env python3
"""cugi's buffers shared with CuPy and PyTorch, both ways, without copies.

Needs a Python with PyGObject, NumPy, CuPy and PyTorch and a GPU (on the GPU
machine: bash .gpu/enter .gpu/venv-gi tests/python/test_interop.py); exits
77 (skipped) where any is missing, as in Debian's Python, which has neither
CuPy nor PyTorch.
"""
import gc
import sys
import textwrap
import unittest

try:
    import gi
    gi.require_version('Cugi', '1.0')
    from gi.repository import Cugi, GLib
    import numpy
    import cupy
    import torch
except (ImportError, ValueError) as missing:
    print(f'1..0 # SKIP needs PyGObject, NumPy, CuPy and PyTorch: {missing}')
    sys.exit(77)

if not Cugi.is_available() or not torch.cuda.is_available():
    print('1..0 # SKIP no GPU usable')
    sys.exit(77)

SCALE = textwrap.dedent('''\
    extern "C" __global__ void scale(float *x, float factor, unsigned int n)
    {
        unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n)
            x[i] *= factor;
    }
''')
N = 1 << 16


class InteropTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.scale = Cugi.Kernel.new_from_source(None, SCALE, 'scale', None)

    def test_cupy_array_into_a_cugi_kernel(self):
        array = cupy.arange(N, dtype=cupy.float32)
        buffer = Cugi.Buffer.from_cuda_array(array)
        self.assertEqual(buffer.props.device_pointer, array.data.ptr)
        self.scale(buffer, 2.0, N, grid=N // 256, block=256)
        Cugi.Context.get_default().synchronize()
        cupy.testing.assert_array_equal(array, cupy.arange(N, dtype=cupy.float32) * 2)

    def test_torch_tensor_into_a_cugi_kernel(self):
        tensor = torch.ones(N, dtype=torch.float32, device='cuda')
        buffer = Cugi.Buffer.from_cuda_array(tensor)
        self.assertEqual((buffer.dtype, buffer.shape), (numpy.dtype(numpy.float32), (N,)))
        self.scale(buffer, 3.0, N, grid=N // 256, block=256)
        Cugi.Context.get_default().synchronize()
        self.assertTrue(torch.equal(tensor, torch.full((N,), 3.0, device='cuda')))
        # Dropped by its owner, the tensor lives on in the buffer.
        del tensor
        gc.collect()
        torch.cuda.empty_cache()
        numpy.testing.assert_array_equal(buffer.copy_to_host(), numpy.full(N, 3.0, numpy.float32))

    def test_cugi_buffer_into_cupy_and_torch(self):
        buffer = Cugi.to_device(numpy.arange(N, dtype=numpy.float32))
        view = cupy.asarray(buffer)
        tensor = torch.as_tensor(buffer, device='cuda')
        self.assertEqual(view.data.ptr, buffer.props.device_pointer)
        self.assertEqual(tensor.data_ptr(), buffer.props.device_pointer)
        view *= 2
        cupy.cuda.runtime.deviceSynchronize()
        self.assertEqual(float(tensor[5]), 10.0)
        numpy.testing.assert_array_equal(buffer.copy_to_host(), numpy.arange(N, dtype=numpy.float32) * 2)

    def test_pool_block_into_cupy(self):
        pool = Cugi.MemoryPool.new(None)
        block = pool.take_block(4 * N)
        block.buffer.upload(0, numpy.arange(N, dtype=numpy.float32))
        view = cupy.asarray(block).view(cupy.float32)
        self.assertEqual(view.data.ptr, block.address)
        self.assertEqual(float(view[7]), 7.0)

    def test_context_made_by_cuda_python(self):
        try:
            from cuda.bindings import driver as cu
        except ImportError:
            self.skipTest('no cuda-python')
        error, device = cu.cuDeviceGet(0)
        self.assertEqual(error, cu.CUresult.CUDA_SUCCESS)
        error, handle = cu.cuCtxCreate(None, 0, device)
        self.assertEqual(error, cu.CUresult.CUDA_SUCCESS)
        cu.cuCtxPopCurrent()
        try:
            context = Cugi.Context.new_for_handle(int(handle))
            self.assertFalse(context.props.is_primary)
            self.assertEqual(context.props.handle, int(handle))
            buffer = Cugi.to_device(numpy.arange(N, dtype=numpy.float32), context)
            self.scale_in(context)(buffer, 0.5, N, grid=N // 256, block=256)
            numpy.testing.assert_array_equal(buffer.copy_to_host(), numpy.arange(N, dtype=numpy.float32) * 0.5)
            del buffer, context
            gc.collect()
        finally:
            self.assertEqual(cu.cuCtxDestroy(handle)[0], cu.CUresult.CUDA_SUCCESS)

    @staticmethod
    def scale_in(context):
        return Cugi.Kernel.new_from_source(context, SCALE, 'scale', None)

    def test_refusals(self):
        strided = cupy.arange(2 * N, dtype=cupy.float32)[::2]
        with self.assertRaisesRegex(ValueError, 'not C-contiguous'):
            Cugi.Buffer.from_cuda_array(strided)
        pinned = cupy.cuda.alloc_pinned_memory(4096)
        with self.assertRaisesRegex(GLib.Error, 'host memory'):
            Cugi.Buffer.new_for_address(None, pinned.ptr, 4096)


class DLPackInteropTest(unittest.TestCase):
    """DLPack both ways, without copies; the producer lives on in the
    consumer."""

    def test_cupy_and_torch_into_cugi(self):
        for array in (cupy.arange(N, dtype=cupy.float32), torch.arange(N, dtype=torch.float32, device='cuda')):
            pointer = array.data.ptr if isinstance(array, cupy.ndarray) else array.data_ptr()
            buffer = Cugi.from_dlpack(array)
            self.assertEqual(buffer.props.device_pointer, pointer)
            self.assertEqual((buffer.dtype, buffer.shape), (numpy.dtype(numpy.float32), (N,)))
            del array
            gc.collect()
            numpy.testing.assert_array_equal(buffer.copy_to_host(), numpy.arange(N, dtype=numpy.float32))

    def test_cugi_into_cupy_and_torch(self):
        buffer = Cugi.to_device(numpy.arange(N, dtype=numpy.float32).reshape(256, -1))
        view = cupy.from_dlpack(buffer)
        tensor = torch.from_dlpack(buffer)
        self.assertEqual((view.data.ptr, tensor.data_ptr()), (buffer.props.device_pointer,) * 2)
        self.assertEqual((view.shape, tuple(tensor.shape)), ((256, N // 256),) * 2)
        view *= 2
        cupy.cuda.runtime.deviceSynchronize()
        self.assertEqual(float(tensor[0, 5]), 10.0)
        # The consumers keep the buffer alive.
        del buffer
        gc.collect()
        self.assertEqual(float(tensor[0, 7]), 14.0)

    def test_consumer_stream_waits(self):
        stream = torch.cuda.Stream()
        buffer = Cugi.to_device(numpy.ones(N, dtype=numpy.float32))
        self.scale = Cugi.Kernel.new_from_source(None, SCALE, 'scale', None)
        self.scale(buffer, 3.0, N, grid=N // 256, block=256)
        with torch.cuda.stream(stream):
            tensor = torch.from_dlpack(buffer)
            total = float(tensor.sum())
        self.assertEqual(total, 3.0 * N)

    def test_slices_and_managed_memory(self):
        buffer = Cugi.to_device(numpy.arange(N, dtype=numpy.int32))
        tensor = torch.from_dlpack(buffer[100:200])
        self.assertEqual(tensor.data_ptr(), buffer.props.device_pointer + 400)
        self.assertEqual(int(tensor[0]), 100)
        managed = Cugi.Buffer.new_managed(None, 4 * N, Cugi.MemAttach.GLOBAL)
        self.assertEqual(managed.__dlpack_device__()[0], 13)

    def test_refusals(self):
        strided = cupy.arange(2 * N, dtype=cupy.float32)[::2]
        with self.assertRaisesRegex(ValueError, 'not C-contiguous'):
            Cugi.from_dlpack(strided)
        with self.assertRaisesRegex(BufferError, 'device type 1'):
            Cugi.from_dlpack(torch.arange(4))


if __name__ == '__main__':
    unittest.main(verbosity=2)
