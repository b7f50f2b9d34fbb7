#!/usr/bin/python3
"""cugi's Python overrides on a GPU: to_device/copy_to_host, kernel calls,
`with ctx:`, the CUDA array interface and lifetimes of work in flight.
Exits 77 (skipped) when no GPU can be used."""

import array
import gc
import os
import tempfile
import textwrap
import unittest

from cugi_gpu_test import init_or_skip
from gi.repository import Cugi, GLib  # noqa: E402

init_or_skip()

import numpy  # noqa: E402

SAXPY = textwrap.dedent('''\
    extern "C" __global__ void saxpy(float a, const float *x, float *y, unsigned int n)
    {
        unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n)
            y[i] = a * x[i] + y[i];
    }
''')

# One parameter of each scalar kind the override converts, written to out[].
SCALARS = textwrap.dedent('''\
    extern "C" __global__ void scalars(int i32, unsigned int u32, long long i64,
                                       unsigned long long u64, float f32, double f64,
                                       double *out)
    {
        out[0] = i32; out[1] = u32; out[2] = (double) i64;
        out[3] = (double) u64; out[4] = f32; out[5] = f64;
    }
''')

# A C++ kernel (not extern "C"): its parameters' types are known.
WIDE = textwrap.dedent('''\
    __global__ void wide(long long i64, unsigned long long u64, float f, const int *in,
                         unsigned long long *out)
    {
        out[0] = (unsigned long long) i64; out[1] = u64; out[2] = (unsigned long long) (f * 4.0f);
        out[3] = (unsigned long long) in[0];
    }
''')

# Slow enough that a buffer dropped after the launch is still in use.
SPIN_THEN_FILL = textwrap.dedent('''\
    extern "C" __global__ void spin_then_fill(int *out, int n, long long cycles)
    {
        long long start = clock64();
        while (clock64() - start < cycles)
            ;
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n)
            out[i] = i * 3;
    }
''')


FILL = textwrap.dedent('''\
    extern "C" __global__ void fill(int *out, int n)
    {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n)
            out[i] = i;
    }
''')


def setUpModule():
    global CACHE
    CACHE = tempfile.TemporaryDirectory(prefix='cugi-test-cache-')
    os.environ['CUGI_CACHE_DIR'] = CACHE.name


def tearDownModule():
    CACHE.cleanup()


class TestMemory(unittest.TestCase):
    def test_round_trip_keeps_dtype_and_shape(self):
        for dtype in (numpy.float32, numpy.float64, numpy.int32, numpy.uint8, numpy.int64):
            array = (numpy.arange(3 * 5 * 7) % 251).astype(dtype).reshape(3, 5, 7)
            buffer = Cugi.to_device(array)
            self.assertIsInstance(buffer, Cugi.Buffer)
            self.assertEqual(buffer.props.size, array.nbytes)
            back = buffer.copy_to_host()
            self.assertEqual(back.dtype, array.dtype)
            self.assertEqual(back.shape, array.shape)
            numpy.testing.assert_array_equal(back, array)
            back[0, 0, 0] = 1  # an ordinary, writable array

    def test_staging_memory_is_borrowed_from_cugi(self):
        host = Cugi.HostBuffer.new_staging(None, 1000)
        self.assertEqual(host.props.size, 1000)
        self.assertEqual(host.props.flags,
                         Cugi.HostBufferFlags.PORTABLE | Cugi.HostBufferFlags.MAPPED)
        address = host.get_host_address()
        del host  # back to the pool, which hands the block out again
        self.assertEqual(Cugi.HostBuffer.new_staging(None, 1000).get_host_address(), address)
        self.assertTrue(Cugi.free_staging_memory())
        array = numpy.arange(1000, dtype=numpy.uint8)
        numpy.testing.assert_array_equal(Cugi.to_device(array).copy_to_host(), array)

    def test_copy_to_host_reinterprets(self):
        array = numpy.arange(16, dtype=numpy.uint32)
        buffer = Cugi.to_device(array)
        numpy.testing.assert_array_equal(buffer.copy_to_host(dtype=numpy.uint32, shape=(4, 4)),
                                         array.reshape(4, 4))
        self.assertEqual(buffer.copy_to_host(dtype=numpy.uint8).shape, (64,))
        with self.assertRaises(ValueError):
            buffer.copy_to_host(dtype=numpy.uint32, shape=(5, 5))

    def test_non_contiguous_input(self):
        array = numpy.arange(100, dtype=numpy.float32).reshape(10, 10)[:, ::2]
        numpy.testing.assert_array_equal(Cugi.to_device(array).copy_to_host(), array)

    def test_plain_buffer_needs_a_dtype_or_gives_bytes(self):
        buffer = Cugi.Buffer.new(None, 8)
        buffer.upload(0, bytes(range(8)))
        numpy.testing.assert_array_equal(buffer.copy_to_host(), numpy.arange(8, dtype=numpy.uint8))

    def test_cuda_array_interface(self):
        array = numpy.ones((4, 6), dtype=numpy.float64)
        buffer = Cugi.to_device(array)
        interface = buffer.__cuda_array_interface__
        self.assertEqual(interface['version'], 3)
        self.assertEqual(interface['shape'], (4, 6))
        self.assertEqual(interface['typestr'], numpy.dtype(numpy.float64).str)
        self.assertEqual(interface['data'], (buffer.props.device_pointer, False))
        self.assertNotEqual(interface['data'][0], 0)
        self.assertFalse(hasattr(Cugi.Buffer.new(None, 8), '__cuda_array_interface__'))

    def test_transfers_in_a_context_of_its_own(self):
        # Staged through the device's pinned pool, which any context uses.
        context = Cugi.Context.new(None, Cugi.ContextFlags.NONE)
        array = numpy.arange(100_000, dtype=numpy.int32)
        buffer = Cugi.to_device(array, context)
        self.assertEqual(buffer.props.context, context)
        numpy.testing.assert_array_equal(buffer.copy_to_host(), array)

    def test_from_cuda_array(self):
        class Exporter:
            """Another library's array: its own memory, its interface."""
            def __init__(self, interface, memory):
                self.__cuda_array_interface__ = interface
                self.memory = memory

        source = numpy.arange(4 * 256, dtype=numpy.float32).reshape(4, 256)
        memory = Cugi.to_device(source)
        exporter = Exporter(dict(memory.__cuda_array_interface__), memory)
        buffer = Cugi.Buffer.from_cuda_array(exporter)
        self.assertEqual(buffer.props.device_pointer, memory.props.device_pointer)
        self.assertEqual((buffer.dtype, buffer.shape), (numpy.dtype(numpy.float32), (4, 256)))
        numpy.testing.assert_array_equal(buffer.copy_to_host(), source)

        # The buffer keeps the exporter, and so its memory, alive.
        del exporter, memory
        gc.collect()
        buffer.memset_d32(0, 0, 256, None)
        expected = source.copy()
        expected[0] = 0
        numpy.testing.assert_array_equal(buffer.copy_to_host(), expected)

        # Strided, not device memory, or not an array at all: refused.
        interface = dict(buffer.__cuda_array_interface__, strides=(8, 4 * 2))
        with self.assertRaisesRegex(ValueError, 'not C-contiguous'):
            Cugi.Buffer.from_cuda_array(Exporter(interface, None))
        interface = dict(buffer.__cuda_array_interface__, data=(0x1000, False))
        with self.assertRaisesRegex(GLib.Error, 'no memory the CUDA driver knows'):
            Cugi.Buffer.from_cuda_array(Exporter(interface, None))
        with self.assertRaisesRegex(TypeError, 'has no __cuda_array_interface__'):
            Cugi.Buffer.from_cuda_array(numpy.zeros(4))
        # A stream named by the exporter is waited for: the kernel on it
        # spins before it writes, and the copy that follows is on another.
        n = 1024
        fill = Cugi.Kernel.new_from_source(None, SPIN_THEN_FILL, 'spin_then_fill', None)
        stream = Cugi.Stream.new(None, Cugi.StreamFlags.NON_BLOCKING, 0)
        filled = Cugi.to_device(numpy.zeros(n, dtype=numpy.int32))
        fill(filled, n, 100_000_000, grid=n // 256, block=256, stream=stream)
        interface = dict(filled.__cuda_array_interface__, stream=stream.props.handle)
        wrapped = Cugi.Buffer.from_cuda_array(Exporter(interface, filled))
        numpy.testing.assert_array_equal(wrapped.copy_to_host(), numpy.arange(n, dtype=numpy.int32) * 3)


class TestUploadsByAddress(unittest.TestCase):
    """Every upload-type entry point takes any buffer-protocol object by its
    address, and download_into() fills one: round trips on real memory,
    pageable (staged by cugi's pipeline, beyond its 8 MiB threshold) and
    pinned (one DMA)."""

    ROW = 4000             # short of a pitch, so that rows are padded
    ROWS = 6 * 1024        # 23.4 MiB

    def setUp(self):
        self.size = self.ROW * self.ROWS
        rng = numpy.random.default_rng(7)
        self.pageable = rng.random(self.size // 4, dtype=numpy.float32).reshape(self.ROWS, -1)
        self.pinned = Cugi.pinned_array(self.pageable.shape, numpy.float32)
        self.pinned[:] = self.pageable[::-1]

    def sources(self):
        """(name, object, its bytes)."""
        raw = self.pageable.tobytes()
        longer = bytes(16) + raw
        return [('pageable float32 2D', self.pageable, raw),
                ('pinned float32 2D', self.pinned, self.pinned.tobytes()),
                ('bytes', raw, raw),
                ('bytearray', bytearray(raw), raw),
                ('memoryview slice', memoryview(longer)[16:], longer[16:]),
                ('array.array', array.array('f', raw), raw)]

    def targets(self):
        return [('pageable', numpy.empty(self.size, numpy.uint8)),
                ('pinned', Cugi.pinned_array(self.size, numpy.uint8))]

    def test_upload_and_download_into(self):
        buffer = Cugi.Buffer.new(None, self.size)
        for name, source, expected in self.sources():
            for target_name, target in self.targets():
                with self.subTest(name, into=target_name):
                    buffer.memset_d8(0, 0, self.size, None)
                    self.assertTrue(buffer.upload(0, source))
                    self.assertIs(buffer.download_into(target), target)
                    self.assertEqual(target.tobytes(), expected)

    def test_upload_2d_and_3d(self):
        buffer = Cugi.Buffer.new_pitched(None, self.ROW, self.ROWS, 4)
        pitch = buffer.props.pitch
        for name, source, expected in self.sources():
            with self.subTest(name, dimensions=2):
                buffer.memset_d8(0, 0, buffer.props.size, None)
                self.assertTrue(buffer.upload_2d(0, pitch, source, self.ROW, self.ROWS))
                self.assertEqual(buffer.download_2d(0, pitch, self.ROW, self.ROWS).get_data(), expected)
            with self.subTest(name, dimensions=3):
                buffer.memset_d8(0, 0, buffer.props.size, None)
                self.assertTrue(buffer.upload_3d(0, pitch, self.ROWS // 4, source,
                                                 self.ROW, self.ROWS // 4, 4))
                self.assertEqual(buffer.download_3d(0, pitch, self.ROWS // 4, self.ROW,
                                                    self.ROWS // 4, 4).get_data(), expected)

    def test_host_buffer_write(self):
        host = Cugi.HostBuffer.new(None, self.size, Cugi.HostBufferFlags.NONE)
        for name, source, expected in self.sources():
            with self.subTest(name):
                self.assertTrue(host.write(0, source))
                self.assertEqual(host.get_bytes().get_data(), expected)

    def test_upload_async_after_the_caller_let_go(self):
        buffer = Cugi.Buffer.new(None, self.size)
        stream = Cugi.Stream.new(None, Cugi.StreamFlags.NON_BLOCKING, 0)
        loop = GLib.MainLoop()
        for name, source, expected in self.sources():
            with self.subTest(name):
                buffer.memset_d8(0, 0, self.size, stream)
                results = []
                buffer.upload_async(0, source, stream, None,
                                    lambda buffer, result: (results.append(result), loop.quit()))
                source = None
                gc.collect()
                loop.run()
                self.assertTrue(buffer.upload_finish(results[0]))
                self.assertEqual(buffer.copy_to_host().tobytes(), expected)


class TestLargeAsyncCopies(unittest.TestCase):
    """Asynchronous copies of pageable memory of more than two pipelines
    (256 MiB), which a cugi thread copies on a stream of its own while the
    caller's stream waits for them: their bytes arrive, in stream order."""

    def test_round_trip(self):
        size = 300 << 20
        pattern = numpy.random.default_rng(5).integers(0, 256, size, dtype=numpy.uint8)
        buffer = Cugi.Buffer.new(None, size)
        stream = Cugi.Stream.new(None, Cugi.StreamFlags.NON_BLOCKING, 0)
        loop = GLib.MainLoop()
        results = []

        def done(buffer, result):
            results.append(result)
            loop.quit()

        buffer.upload_async(0, pattern, stream, None, done)
        loop.run()
        self.assertTrue(buffer.upload_finish(results.pop()))
        buffer.download_async(0, size, stream, None, done)
        loop.run()
        back = buffer.download_finish(results.pop())
        self.assertEqual(back.get_size(), size)
        self.assertTrue(numpy.array_equal(numpy.frombuffer(back.get_data(), dtype=numpy.uint8), pattern))


class TestKernelCall(unittest.TestCase):
    def test_saxpy(self):
        n = 1 << 20
        x = numpy.random.default_rng(1).random(n, dtype=numpy.float32)
        y = numpy.random.default_rng(2).random(n, dtype=numpy.float32)
        kernel = Cugi.Kernel.new_from_source(None, SAXPY, 'saxpy', None)
        x_dev, y_dev = Cugi.to_device(x), Cugi.to_device(y)
        kernel(2.5, x_dev, y_dev, n, grid=(n + 255) // 256, block=256)
        numpy.testing.assert_allclose(y_dev.copy_to_host(), 2.5 * x + y, rtol=1e-6)

    def test_saxpy_on_a_stream_with_a_config(self):
        n = 1000
        x = numpy.arange(n, dtype=numpy.float32)
        y = numpy.ones(n, dtype=numpy.float32)
        kernel = Cugi.Kernel.new_from_source(None, SAXPY, 'saxpy', None)
        stream = Cugi.Stream.new(None, Cugi.StreamFlags.NON_BLOCKING, 0)
        x_dev, y_dev = Cugi.to_device(x), Cugi.to_device(y)
        kernel(numpy.float32(-1), x_dev, y_dev, numpy.uint32(n),
               grid=(4, 1, 1), block=(256,), stream=stream)
        stream.synchronize()
        numpy.testing.assert_array_equal(y_dev.copy_to_host(), 1 - x)

    def test_packed_launches_and_64_bit_values(self):
        # The call's argument plan, launch_packed itself and launch_values
        # with ints beyond 32 bits, all for a C++ kernel's own types.
        kernel = Cugi.Kernel.new_from_source(None, WIDE, 'wide', None)
        self.assertEqual(kernel.get_parameter_kinds(),
                         [Cugi.ParameterKind.INT64, Cugi.ParameterKind.UINT64, Cugi.ParameterKind.FLOAT,
                          Cugi.ParameterKind.POINTER, Cugi.ParameterKind.POINTER])
        source = Cugi.to_device(numpy.array([41], dtype=numpy.int32))
        out = Cugi.to_device(numpy.zeros(4, dtype=numpy.uint64))
        config = Cugi.LaunchConfig.new(1, 1)
        for launch in (lambda: kernel(2**40, 2**63 + 1, 2.5, source, out, grid=1, block=1),
                       lambda: kernel.launch_values(config, [2**40, 2**63 + 1, 2.5, source, out]),
                       lambda: kernel.launch_packed(config, numpy.array([2**40, 2**63 + 1], numpy.uint64).tobytes()
                                                    + numpy.float32(2.5).tobytes(), [None, None, None, source, out])):
            out.memset_d8(0, 0, out.props.size, None)
            launch()
            numpy.testing.assert_array_equal(out.copy_to_host(),
                                             numpy.array([2**40, 2**63 + 1, 10, 41], dtype=numpy.uint64))
        # Many calls with other values and the same buffers write the new
        # values into the argument list of the call before (launch_update).
        for i in range(100):
            kernel(-i, i, 0.25 * i, source, out, grid=1, block=1)
        numpy.testing.assert_array_equal(out.copy_to_host(),
                                         numpy.array([2**64 - 99, 99, 99, 41], dtype=numpy.uint64))

    def test_scalar_conversions(self):
        kernel = Cugi.Kernel.new_from_source(None, SCALARS, 'scalars', None)
        out = Cugi.to_device(numpy.zeros(6, dtype=numpy.float64))
        # Plain Python numbers take the width the kernel declares.
        kernel(-7, 7, -(2**40), 2**40, 0.5, 0.1, out, grid=1, block=1)
        numpy.testing.assert_array_equal(out.copy_to_host(),
                                         [-7, 7, -(2**40), 2**40, 0.5, 0.1])
        kernel(numpy.int32(-1), numpy.uint32(2**32 - 1), numpy.int64(-2),
               numpy.uint64(2**63), numpy.float32(1.5), numpy.float64(2.25), out,
               grid=1, block=1)
        numpy.testing.assert_array_equal(out.copy_to_host(),
                                         [-1, 2**32 - 1, -2, 2.0**63, 1.5, 2.25])

    def test_bad_arguments_are_errors(self):
        kernel = Cugi.Kernel.new_from_source(None, SAXPY, 'saxpy', None)
        y = Cugi.to_device(numpy.zeros(4, dtype=numpy.float32))
        with self.assertRaises((TypeError, GLib.Error)):
            kernel(1.0, y, 4, grid=1, block=4)          # one argument short
        with self.assertRaises((TypeError, GLib.Error)):
            kernel(1.0, 'x', y, 4, grid=1, block=4)     # not a buffer
        with self.assertRaises(GLib.Error) as caught:
            kernel(1.0, y, y, 4, grid=0, block=4)       # empty grid
        self.assertEqual(caught.exception.code, int(Cugi.Error.INVALID_ARGUMENT))

    def test_buffer_dropped_after_async_launch(self):
        n = 1 << 16
        kernel = Cugi.Kernel.new_from_source(None, SPIN_THEN_FILL, 'spin_then_fill', None)
        stream = Cugi.Stream.new(None, Cugi.StreamFlags.NON_BLOCKING, 0)
        scratch = Cugi.to_device(numpy.zeros(n, dtype=numpy.int32))
        target = Cugi.Buffer.new(None, scratch.props.size)
        # The kernel spins for a while before it writes scratch, which is
        # then copied to target, all on the stream; meanwhile the only
        # Python reference to scratch goes away, and fresh allocations are
        # filled with junk: had scratch been freed, they could reuse it.
        kernel(scratch, n, 100_000_000, grid=n // 256, block=256, stream=stream)
        target.copy(0, scratch, 0, scratch.props.size, stream)
        del scratch
        gc.collect()
        junk = [Cugi.to_device(numpy.full(n, -1, dtype=numpy.int32)) for _ in range(4)]
        stream.synchronize()
        numpy.testing.assert_array_equal(target.copy_to_host(dtype=numpy.int32),
                                         numpy.arange(n, dtype=numpy.int32) * 3)
        self.assertEqual(len(junk), 4)


class TestMemoryBlocks(unittest.TestCase):
    """Pool blocks (MemoryPool.take_block()) as kernel arguments: the buffer
    a call makes over a block holds its memory while the kernel runs."""

    def test_saxpy_on_blocks(self):
        n = 4096
        pool = Cugi.MemoryPool.new(None)
        kernel = Cugi.Kernel.new_from_source(None, SAXPY, 'saxpy', None)
        x, y = pool.take_block(4 * n), pool.take_block(4 * n)
        x.buffer.upload(0, numpy.arange(n, dtype=numpy.float32))
        y.buffer.upload(0, numpy.ones(n, dtype=numpy.float32))
        for _ in range(3):
            kernel(2.0, x, y, n, grid=n // 256, block=256)
        numpy.testing.assert_array_equal(y.buffer.copy_to_host(dtype=numpy.float32),
                                         numpy.arange(n, dtype=numpy.float32) * 6 + 1)

    def test_block_dropped_after_async_launch(self):
        # As test_buffer_dropped_after_async_launch, with the scratch memory
        # a pool's block: the pool must not hand it out again while the
        # kernel still writes it.
        n = 1 << 16
        pool = Cugi.MemoryPool.new(None)
        kernel = Cugi.Kernel.new_from_source(None, SPIN_THEN_FILL, 'spin_then_fill', None)
        stream = Cugi.Stream.new(None, Cugi.StreamFlags.NON_BLOCKING, 0)
        scratch = pool.take_block(4 * n)
        address = scratch.address
        target = Cugi.Buffer.new(None, 4 * n)
        kernel(scratch, n, 100_000_000, grid=n // 256, block=256, stream=stream)
        target.copy(0, scratch.buffer, 0, 4 * n, stream)
        del scratch
        gc.collect()
        junk = [pool.take_block(4 * n) for _ in range(4)]
        self.assertNotIn(address, [block.address for block in junk])
        for block in junk:
            block.buffer.memset_d32(0, 0xffffffff, n, None)
        stream.synchronize()
        numpy.testing.assert_array_equal(target.copy_to_host(dtype=numpy.int32),
                                         numpy.arange(n, dtype=numpy.int32) * 3)


class TestContext(unittest.TestCase):
    def test_with_context(self):
        ctx = Cugi.Context.get_default()
        before = Cugi.Context.get_current()
        with ctx as entered:
            self.assertIs(entered, ctx)
            self.assertIs(Cugi.Context.get_current(), ctx)
            buffer = Cugi.to_device(numpy.arange(10, dtype=numpy.int32))
            numpy.testing.assert_array_equal(buffer.copy_to_host(), numpy.arange(10))
        self.assertIs(Cugi.Context.get_current(), before)
        # Popped on the way out, also when the block raises: nothing is left
        # to pop afterwards.
        with self.assertRaises(ZeroDivisionError):
            with ctx:
                1 / 0
        self.assertIs(Cugi.Context.get_current(), before)
        with self.assertRaises(GLib.Error) as caught:
            ctx.pop()
        self.assertEqual(caught.exception.code, int(Cugi.Error.INVALID_STATE))

    def test_to_device_in_a_given_context(self):
        ctx = Cugi.Context.get_default()
        buffer = Cugi.to_device(numpy.ones(3), context=ctx)
        numpy.testing.assert_array_equal(buffer.copy_to_host(), numpy.ones(3))



class TestStreamOrdered(unittest.TestCase):
    def setUp(self):
        self.context = Cugi.Context.get_default()
        device = self.context.get_device()
        if device.get_attribute(Cugi.DeviceAttribute.MEMORY_POOLS_SUPPORTED) != 1:
            self.skipTest('the device has no stream-ordered allocator')
        self.pool = Cugi.StreamOrderedPool.new(device)
        self.pool.set_release_threshold(2**64 - 1)

    def test_reuse_across_streams_with_an_event(self):
        a = Cugi.Stream.new(self.context, Cugi.StreamFlags.NON_BLOCKING, 0)
        b = Cugi.Stream.new(self.context, Cugi.StreamFlags.NON_BLOCKING, 0)
        first = self.pool.allocate(a, 1 << 20)
        address = first.props.device_pointer
        del first                                # no work on it: freed on a now
        freed = Cugi.Event.new(self.context, Cugi.EventFlags.DISABLE_TIMING)
        freed.record(a)
        b.wait_event(freed)
        second = self.pool.allocate(b, 1 << 20)
        self.assertEqual(second.props.device_pointer, address)
        second.memset_d32(0, 0x01020304, (1 << 20) // 4, b)
        b.synchronize()
        words = second.copy_to_host(dtype=numpy.uint32)
        self.assertTrue((words == 0x01020304).all())

    def test_free_after_a_kernel_call_gives_the_memory_back(self):
        # The argument list that the call keeps for the calls to come holds
        # the buffer, but not past free(): the default pool's used figure is
        # back once the launch is done, without a later call of the kernel.
        pool = Cugi.StreamOrderedPool.get_default(self.context.get_device())
        kernel = Cugi.Kernel.new_from_source(None, FILL, 'fill', None)
        stream = Cugi.Stream.new(self.context, Cugi.StreamFlags.NON_BLOCKING, 0)
        n = (8 << 20) // 4
        used = pool.get_used_current()
        buffer = Cugi.Buffer.new_on_stream(stream, 8 << 20)
        self.assertEqual(pool.get_used_current(), used + (8 << 20))
        kernel(buffer, n, grid=n // 256, block=256, stream=stream)
        buffer.free()
        stream.synchronize()
        while GLib.MainContext.default().iteration(False):
            pass
        gc.collect()
        stream.synchronize()
        self.assertEqual(pool.get_used_current(), used)
        with self.assertRaisesRegex(GLib.Error, 'buffer was freed'):
            kernel(buffer, n, grid=n // 256, block=256, stream=stream)

    def test_memset_2d_leaves_the_padding(self):
        buffer = Cugi.Buffer.new_pitched(self.context, 60, 5, 4)
        pitch = buffer.props.pitch
        buffer.memset_d8(0, 0xee, buffer.props.size, None)
        buffer.memset_2d_d16(0, pitch, 0x7777, 30, 5, None)
        rows = buffer.copy_to_host().reshape(5, pitch)
        self.assertTrue((rows[:, :60] == 0x77).all())
        self.assertTrue((rows[:, 60:] == 0xee).all())


SMID = textwrap.dedent('''\
    extern "C" __global__ void record_smid(unsigned int *out, long long spin)
    {
        unsigned int smid;
        long long start = clock64();
        asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
        while (clock64() - start < spin)
            ;
        if (threadIdx.x == 0)
            out[blockIdx.x] = smid;
    }
''')


class TestGreenContext(unittest.TestCase):
    """A kernel in a 16-SM green context runs on at most its SMs (%smid of
    each block), one in the primary context on more."""

    def distinct_smids(self, context):
        kernel = Cugi.Kernel.new_from_source(context, SMID, 'record_smid', None)
        out = Cugi.Buffer.new(context, 2048 * 4)
        stream = Cugi.Stream.new(context, Cugi.StreamFlags.NON_BLOCKING, 0)
        kernel(out, numpy.int64(20000), grid=2048, block=128, stream=stream)
        stream.synchronize()
        return len(set(numpy.frombuffer(out.download(0, 2048 * 4).get_data(), dtype=numpy.uint32)))

    def test_kernels_stay_in_partition(self):
        green = Cugi.Context.new_green(None, 16)
        sm_count = green.get_sm_count()
        self.assertGreaterEqual(sm_count, 16)
        used = self.distinct_smids(green)
        self.assertTrue(1 <= used <= sm_count, (used, sm_count))
        self.assertGreater(self.distinct_smids(Cugi.Context.get_default()), sm_count)


class TestTelemetry(unittest.TestCase):
    """Device 0's telemetry through NVML, and a monitor of it."""

    def test_readings(self):
        dev = Cugi.Device.get(0)
        self.assertTrue(0 < dev.get_temperature() < 120)
        self.assertGreater(dev.get_power_usage(), 0)
        self.assertGreater(dev.get_clock(Cugi.DeviceClock.SM), 0)
        gpu, memory = dev.get_utilization()
        self.assertLessEqual(gpu, 100)
        self.assertLessEqual(memory, 100)
        generation, width, max_generation, max_width = dev.get_pcie_link()
        self.assertTrue(1 <= generation <= max_generation)
        self.assertTrue(1 <= width <= max_width)
        self.assertLessEqual(len(dev.get_nvlink_states()), 18)
        processes = dev.get_process_memory().unpack()
        self.assertIsInstance(processes, dict)

    def test_monitor(self):
        monitor = Cugi.DeviceMonitor.new(Cugi.Device.get(0), 0)
        self.assertGreater(monitor.props.temperature, 0)
        self.assertGreater(monitor.props.memory_clock, 0)
        self.assertTrue(monitor.update())
        self.assertIsNone(monitor.props.error)


if __name__ == '__main__':
    unittest.main(verbosity=2)
