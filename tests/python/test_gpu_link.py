#!/usr/bin/python3
"""Registered NumPy arrays, host callbacks and the linker through the
typelib, on the GPU (issue 13, items 3, 5 and 8). Exits 77 (skipped) when no
GPU can be used."""

import unittest

from cugi_gpu_test import init_or_skip
from gi.repository import Cugi, GLib  # noqa: E402

init_or_skip()

import numpy  # noqa: E402

HELPER = 'extern "C" __device__ float affine (float x) { return 2.0f * x + 1.0f; }\n'
CALLER = '''extern "C" __device__ float affine (float x);
extern "C" __global__ void apply (float *out, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = affine ((float) i);
}
'''


class GpuLinkTest(unittest.TestCase):
    def test_register_and_upload(self):
        array = numpy.arange(1 << 16, dtype=numpy.float32)
        host = Cugi.HostBuffer.register(array, flags=Cugi.HostBufferFlags.PORTABLE)
        buffer = Cugi.Buffer.new(None, array.nbytes)
        stream = Cugi.Stream.new(None, Cugi.StreamFlags.NON_BLOCKING, 0)
        buffer.upload_from_host(0, host, 0, array.nbytes, stream)
        stream.synchronize()
        numpy.testing.assert_array_equal(buffer.copy_to_host(numpy.float32), array)
        # Downloads land in the registered array itself.
        array[:] = 0
        buffer.download_to_host(0, host, 0, array.nbytes, stream)
        stream.synchronize()
        self.assertEqual(array[12345], 12345.0)
        host.free()

    def test_register_mapped(self):
        array = numpy.zeros(4096, dtype=numpy.uint8)
        host = Cugi.HostBuffer.register(array, flags=Cugi.HostBufferFlags.MAPPED)
        self.assertNotEqual(host.props.device_pointer, 0)

    def test_register_bytes(self):
        data = GLib.Bytes.new(bytes(range(256)) * 64)
        host = Cugi.HostBuffer.new_registered_bytes(None, data, Cugi.HostBufferFlags.NONE)
        buffer = Cugi.Buffer.new(None, data.get_size())
        buffer.upload_from_host(0, host, 0, data.get_size(), None)
        Cugi.Context.get_default().synchronize()
        self.assertEqual(bytes(buffer.copy_to_host()), data.get_data())

    def test_callback_after_kernel(self):
        stream = Cugi.Stream.new(None, Cugi.StreamFlags.NON_BLOCKING, 0)
        x = Cugi.to_device(numpy.ones(1 << 20, dtype=numpy.float32))
        kernel = Cugi.Kernel.new_from_source(
            None, 'extern "C" __global__ void twice (float *x, int n)'
            '{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] *= 2; }', 'twice', None)
        kernel(x, 1 << 20, grid=(1 << 20) // 256, block=256, stream=stream)
        # Behind the kernel: done when the kernel is. (stream.query() could
        # still see cugi's own marker of the callback in flight.)
        after_kernel = Cugi.Event.new(None, Cugi.EventFlags.DISABLE_TIMING)
        after_kernel.record(stream)
        seen = []
        stream.add_callback(lambda stream: seen.append(after_kernel.query()))
        context = GLib.MainContext.default()
        deadline = GLib.get_monotonic_time() + 10 * 1000000
        while not seen and GLib.get_monotonic_time() < deadline:
            context.iteration(False)
        self.assertEqual(seen, [True])
        self.assertEqual(x.copy_to_host()[-1], 2.0)

    def test_link_programs(self):
        programs = []
        for source, name in ((HELPER, 'helper.cu'), (CALLER, 'caller.cu')):
            program = Cugi.Program.new(source, name)
            program.compile_for_device(None, ['-rdc=true'])
            programs.append(program)
        linker = Cugi.Linker.new(None, None)
        for program in programs:
            linker.add_program(program)
        module = linker.complete()
        del linker
        out = Cugi.Buffer.new(None, 256 * 4)
        module.get_kernel('apply')(out, 256, grid=1, block=256)
        Cugi.Context.get_default().synchronize()
        numpy.testing.assert_array_equal(out.copy_to_host(numpy.float32),
                                         2.0 * numpy.arange(256, dtype=numpy.float32) + 1.0)


if __name__ == '__main__':
    unittest.main()
