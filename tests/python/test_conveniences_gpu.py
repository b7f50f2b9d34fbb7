#!/usr/bin/python3
"""The numba-, PyCUDA- and Warp-style conveniences of cugi's overrides on a
GPU, with kernels compiled by NVRTC and results checked against NumPy:
device_array(_like), slices and reshape() of device buffers, pinned_array,
mapped_array, Cugi.pinned()/mapped(), Cugi.In/Out/InOut, time_kernel,
`with stream:`, stream.auto_synchronize(), ScopedDevice and
ScopedPeerAccess (tests/python/test_conveniences.py checks them against the
stand-in driver). Exits 77 (skipped) when no GPU or no NVRTC can be used."""

import math
import sys
import textwrap
import unittest

from cugi_gpu_test import init_or_skip
from gi.repository import Cugi, GLib  # noqa: E402

init_or_skip()

import numpy  # noqa: E402

SOURCE = textwrap.dedent('''\
    extern "C" __global__ void scale(float *x, float a, int n)
    {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) x[i] *= a;
    }
    extern "C" __global__ void affine(const float *x, float *y, float a, float b, int n)
    {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) y[i] = a * x[i] + b;
    }

    // Runs until the host sets *flag (mapped memory), so that its stream is
    // busy for as long as the test wants; gives up after @limit cycles, so
    // that a failing test cannot hang. *done: 1 if the flag came, 2 if not.
    extern "C" __global__ void wait_for_flag(volatile int *flag, int *done, long long limit)
    {
        long long start = clock64();
        while (*flag == 0 && clock64() - start < limit)
            ;
        *done = *flag ? 1 : 2;
    }
''')

N = 1 << 20
BLOCK = 256
LIMIT = 1 << 33  # cycles: seconds at GPU clocks, long past any host round trip


def grid(n):
    return (n + BLOCK - 1) // BLOCK


def load(device=None):
    """SOURCE compiled for @device and loaded into the default context."""
    program = Cugi.Program.new(SOURCE, 'conveniences.cu')
    program.compile_for_device(device, None)
    return Cugi.Module.new_from_program(None, program)


try:
    MODULE = load()
except GLib.Error as error:
    if error.code != int(Cugi.Error.NOT_AVAILABLE):
        raise
    print(f'1..0 # SKIP no NVRTC: {error.message}')
    sys.exit(77)

scale = MODULE.get_kernel('scale')
affine = MODULE.get_kernel('affine')
wait_for_flag = MODULE.get_kernel('wait_for_flag')


def values(n=N):
    return numpy.arange(n, dtype=numpy.float32)


class DeviceArrayTest(unittest.TestCase):
    def test_device_array_and_copies(self):
        host = values().reshape(1024, -1)
        buffer = Cugi.device_array_like(host)
        self.assertEqual((buffer.dtype, buffer.shape, buffer.props.size),
                         (host.dtype, host.shape, host.nbytes))
        buffer.upload(0, host)
        scale(buffer, 2.5, N, grid=grid(N), block=BLOCK)
        numpy.testing.assert_array_equal(buffer.copy_to_host(), host * 2.5)
        into = buffer.download_into(numpy.empty_like(host))
        numpy.testing.assert_array_equal(into, host * 2.5)

    def test_kernel_on_a_slice_changes_that_part_only(self):
        host = values(1000)
        buffer = Cugi.to_device(host)
        part = buffer[200:300]
        self.assertEqual(part.props.device_pointer, buffer.props.device_pointer + 200 * 4)
        scale(part, -1.0, len(part), grid=grid(100), block=BLOCK)
        expected = host.copy()
        expected[200:300] *= -1
        numpy.testing.assert_array_equal(buffer.copy_to_host(), expected)
        # Rows of a buffer of two dimensions.
        rows = Cugi.to_device(host.reshape(10, 100))
        scale(rows[3:5], 0.0, 200, grid=1, block=BLOCK)
        expected = host.reshape(10, 100).copy()
        expected[3:5] = 0
        numpy.testing.assert_array_equal(rows.copy_to_host(), expected)

    def test_reshape_shares_memory(self):
        host = values(4096).reshape(64, 64)
        buffer = Cugi.to_device(host)
        flat = buffer.reshape(-1)
        self.assertEqual((flat.shape, flat.props.device_pointer), ((4096,), buffer.props.device_pointer))
        scale(flat, 3.0, 4096, grid=grid(4096), block=BLOCK)
        numpy.testing.assert_array_equal(buffer.copy_to_host(), host * 3)  # still 64 x 64
        numpy.testing.assert_array_equal(buffer.reshape(16, 256).copy_to_host(), (host * 3).reshape(16, 256))


class HostMemoryTest(unittest.TestCase):
    def test_pinned_array(self):
        array = Cugi.pinned_array(N, numpy.float32)
        self.assertIsNotNone(Cugi.host_buffer_of(array))
        array[:] = values()
        buffer = Cugi.to_device(array)
        scale(buffer, 0.5, N, grid=grid(N), block=BLOCK)
        buffer.download_into(array)
        numpy.testing.assert_array_equal(array, values() * 0.5)

    def test_kernel_writes_through_a_mapped_array(self):
        array = Cugi.mapped_array(N, numpy.float32)
        array[:] = values()
        scale(Cugi.device_view(array), 3.0, N, grid=grid(N), block=BLOCK)
        Cugi.Context.get_default().synchronize()
        numpy.testing.assert_array_equal(array, values() * 3)

    def test_pinned_registers_an_array_for_the_block(self):
        array = values()
        buffer = Cugi.device_array_like(array)
        stream = Cugi.Stream.new(None, Cugi.StreamFlags.NON_BLOCKING, 0)
        with Cugi.pinned(array) as host:
            self.assertEqual(host.get_host_address(), array.ctypes.data)
            buffer.upload_from_host(0, host, 0, array.nbytes, stream)
            scale(buffer, -2.0, N, grid=grid(N), block=BLOCK, stream=stream)
            buffer.download_to_host(0, host, 0, array.nbytes, stream)
            stream.synchronize()
        self.assertTrue(host.props.freed)
        numpy.testing.assert_array_equal(array, values() * -2)

    def test_mapped_registers_and_maps_an_array_for_the_block(self):
        array = values().reshape(256, -1)
        with Cugi.mapped(array) as view:
            self.assertEqual((view.dtype, view.shape), (array.dtype, array.shape))
            scale(view, 4.0, N, grid=grid(N), block=BLOCK)
            Cugi.Context.get_default().synchronize()
        numpy.testing.assert_array_equal(array, values().reshape(256, -1) * 4)


class PyCudaStyleTest(unittest.TestCase):
    def test_in_out_inout(self):
        x = values()
        y = numpy.zeros_like(x)
        affine(Cugi.In(x), Cugi.Out(y), 2.0, 1.0, N, grid=grid(N), block=BLOCK)
        numpy.testing.assert_array_equal(y, x * 2 + 1)  # filled when the call returns
        numpy.testing.assert_array_equal(x, values())
        both = values()
        scale(Cugi.InOut(both), -3.0, N, grid=grid(N), block=BLOCK)
        numpy.testing.assert_array_equal(both, values() * -3)

    def test_time_kernel(self):
        buffer = Cugi.to_device(values())
        elapsed = Cugi.time_kernel(scale, buffer, 2.0, N, grid=grid(N), block=BLOCK)
        # How long it took is the benchmarks' business: here, that it is a
        # reading of the events' clock at all, and that the kernel ran.
        self.assertIsInstance(elapsed, float)
        self.assertTrue(math.isfinite(elapsed) and elapsed >= 0.0, elapsed)
        numpy.testing.assert_array_equal(buffer.copy_to_host(), values() * 2)


class StreamTest(unittest.TestCase):
    def setUp(self):
        self.stream = Cugi.Stream.new(None, Cugi.StreamFlags.NON_BLOCKING, 0)
        self.flag = Cugi.mapped_array(1, numpy.int32)
        self.done = Cugi.mapped_array(1, numpy.int32)
        self.flag[0] = self.done[0] = 0

    def tearDown(self):
        self.flag[0] = 1  # lets a kernel still waiting go, whatever failed
        self.stream.synchronize()

    def wait_for_flag(self, **stream):
        wait_for_flag(Cugi.device_view(self.flag), Cugi.device_view(self.done), LIMIT,
                      grid=1, block=1, **stream)

    def test_scoped_stream_takes_kernels_and_copies(self):
        with self.stream:
            buffer = Cugi.to_device(values())
            scale(buffer, 2.0, N, grid=grid(N), block=BLOCK)
            numpy.testing.assert_array_equal(buffer.copy_to_host(), values() * 2)
            result = numpy.zeros(N, numpy.float32)
            affine(Cugi.In(values()), Cugi.Out(result), 1.0, 5.0, N, grid=grid(N), block=BLOCK)
            numpy.testing.assert_array_equal(result, values() + 5)
            # A kernel called without stream= that waits for the host keeps
            # this stream busy (not the legacy default stream).
            self.assertTrue(self.stream.query())
            self.wait_for_flag()
            self.assertFalse(self.stream.query())
            self.flag[0] = 1
            self.stream.synchronize()
        self.assertTrue(self.stream.query())
        self.assertEqual(self.done[0], 1)

    def test_auto_synchronize_waits(self):
        with self.stream.auto_synchronize() as stream:
            self.assertIs(stream, self.stream)
            self.wait_for_flag(stream=stream)
            self.assertFalse(stream.query())
            self.flag[0] = 1
        self.assertTrue(self.stream.query())
        self.assertEqual(self.done[0], 1)


class ScopedTest(unittest.TestCase):
    def test_scoped_device(self):
        primary = Cugi.Device.get(0).get_primary_context()
        with Cugi.ScopedDevice('cuda:0') as device:
            self.assertEqual(device.props.ordinal, 0)
            self.assertEqual(Cugi.Context.get_default(), primary)
            buffer = Cugi.device_array(N, numpy.float32)
            self.assertEqual(buffer.props.context, primary)
            buffer.upload(0, values())
            load(device).get_kernel('scale')(buffer, 2.0, N, grid=grid(N), block=BLOCK)
            numpy.testing.assert_array_equal(buffer.copy_to_host(), values() * 2)
        if Cugi.Device.get_count() < 2:
            return
        with Cugi.ScopedDevice(1) as device:
            buffer = Cugi.to_device(values())
            self.assertEqual(buffer.props.context, device.get_primary_context())
            load(device).get_kernel('scale')(buffer, 2.0, N, grid=grid(N), block=BLOCK)
            numpy.testing.assert_array_equal(buffer.copy_to_host(), values() * 2)
        self.assertEqual(Cugi.device_array(1).props.context.props.device.props.ordinal, 0)

    def test_scoped_peer_access_refusals(self):
        with self.assertRaises(GLib.Error) as caught:
            with Cugi.ScopedPeerAccess(0, 'cuda:0'):
                pass
        self.assertEqual(caught.exception.code, int(Cugi.Error.INVALID_ARGUMENT))
        if Cugi.Device.get_count() < 2:
            # No second GPU to be a peer: refused as the device is made.
            with self.assertRaises(GLib.Error) as caught:
                Cugi.ScopedPeerAccess(0, 'cuda:1')
            self.assertEqual(caught.exception.code, int(Cugi.Error.INVALID_ARGUMENT))

    def test_scoped_peer_access_between_two_gpus(self):
        if Cugi.Device.get_count() < 2:
            self.skipTest('one GPU: no peer to access')
        if not Cugi.Device.get(0).can_access_peer(Cugi.Device.get(1)):
            self.skipTest('cuda:0 cannot access the memory of cuda:1')
        zero, one = (Cugi.Device.get(i).get_primary_context() for i in (0, 1))
        remote = Cugi.to_device(values(), one)
        with Cugi.ScopedPeerAccess('cuda:0', Cugi.Device.get(1)):
            with self.assertRaises(GLib.Error) as caught:
                zero.enable_peer_access(one)
            self.assertEqual(caught.exception.code, int(Cugi.Error.PEER_ACCESS))
            # A kernel of cuda:0 writes the memory of cuda:1.
            scale(remote, -1.0, N, grid=grid(N), block=BLOCK)
            zero.synchronize()
        numpy.testing.assert_array_equal(remote.copy_to_host(), -values())
        # Disabled on the way out: enabling it again succeeds.
        zero.enable_peer_access(one)
        zero.disable_peer_access(one)


if __name__ == '__main__':
    unittest.main(verbosity=2)
