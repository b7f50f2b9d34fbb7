#!/usr/bin/python3
"""Calling a kernel like a function, without a GPU: against the stand-in
driver of the tests (fake-cuda-streams), which records the parameters of the
last launch, so that each conversion is checked byte for byte. Also what the
getters of kernels, contexts and devices return to Python there, and how
waits end when cancelled."""

import gc
import struct
import threading
import unittest
import weakref

import gi

gi.require_version('Cugi', '1.0')
from gi.repository import Cugi, Gio, GLib, GObject  # noqa: E402

from stand_in import LaunchRecorder  # noqa: E402

import numpy  # noqa: E402

# The stand-in driver's module format: a kernel name and its parameters'
# sizes. mixed(int, float, long long, unsigned long long, float, double,
# unsigned char, bool) is a C++ kernel, so its types are known; plain and
# with_struct are extern "C", known by their sizes alone.
IMAGE = (b'_Z5mixedifxyfdhb 4 4 8 8 4 8 1 1\nplain 4 8 4 8\nwith_struct 12\n'
         b'_Z5saxpyfPKfPfj 4 8 8 4\nsaxpy_c 4 8 8 4\nnarrow_c 1 2 4\n_Z4flagPfb 8 1\n')
MIXED = '<ifqQfdBB'
Kind = Cugi.ParameterKind


class KernelCallTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.recorder = LaunchRecorder()
        context = Cugi.Context.get_default()
        cls.module = Cugi.Module.new_from_data(context, GLib.Bytes.new(IMAGE))
        cls.mixed = cls.module.get_kernel('_Z5mixedifxyfdhb')
        cls.plain = cls.module.get_kernel('plain')
        cls.with_struct = cls.module.get_kernel('with_struct')
        # saxpy(float, const float *, float *, unsigned int), C++ and extern "C"
        cls.saxpy = cls.module.get_kernel('_Z5saxpyfPKfPfj')
        cls.saxpy_c = cls.module.get_kernel('saxpy_c')
        # The stand-in driver's memory is host memory.
        cls.x = Cugi.Buffer.new(context, 128)
        cls.y = Cugi.Buffer.new(context, 128)
        cls.stream = Cugi.Stream.new(context, Cugi.StreamFlags.NON_BLOCKING, 0)

    def last_params(self):
        return self.recorder.last_params()

    def last_launch(self):
        return self.recorder.last_launch()

    def call(self, kernel, *args):
        kernel(*args, grid=1, block=1, stream=self.stream)
        return self.last_params()

    def test_python_numbers_take_the_declared_types(self):
        got = self.call(self.mixed, -7, 2, -(2**40), 2**64 - 1, 0.5, 0.1, 200, True)
        self.assertEqual(got, struct.pack(MIXED, -7, 2.0, -(2**40), 2**64 - 1, 0.5, 0.1, 200, 1))
        # A small int for a 64-bit parameter, a float for a double and back.
        got = self.call(self.mixed, 2**31 - 1, -3, 5, 0, 1, -2.5, 0, False)
        self.assertEqual(got, struct.pack(MIXED, 2**31 - 1, -3.0, 5, 0, 1.0, -2.5, 0, 0))

    def test_both_ways_of_converting_agree(self):
        # Plain ints, floats and bools go to cugi in one call, as GValues;
        # a NumPy scalar or an int beyond 32 bits sends the call through
        # one append per argument. Both must pass the same bytes.
        values = [(-7, 2, 3, 4, 0.5, 0.1, 200, True), (0, -1, -5, 9, -2, 1e300, 0, False)]
        for direct in values:
            through_appends = (numpy.int32(direct[0]),) + direct[1:]
            self.assertEqual(self.call(self.mixed, *direct), self.call(self.mixed, *through_appends))
        self.assertEqual(self.call(self.plain, 1, 2, 3.0, True), self.call(self.plain, 1, 2, 3.0, numpy.bool_(True)))

    def saxpy_params(self, a, n):
        return struct.pack('<fQQI', a, self.x.props.device_pointer, self.y.props.device_pointer, n)

    def test_parameter_kinds_and_sizes(self):
        self.assertEqual(self.mixed.get_parameter_kinds(),
                         [Kind.INT32, Kind.FLOAT, Kind.INT64, Kind.UINT64, Kind.FLOAT, Kind.DOUBLE,
                          Kind.UINT8, Kind.BOOL])
        self.assertEqual(self.mixed.get_parameter_sizes(), [4, 4, 8, 8, 4, 8, 1, 1])
        self.assertEqual(self.saxpy.get_parameter_kinds(), [Kind.FLOAT, Kind.POINTER, Kind.POINTER, Kind.UINT32])
        self.assertEqual(self.plain.get_parameter_kinds(), [Kind.UNKNOWN] * 4)
        self.assertEqual(self.plain.get_parameter_sizes(), [4, 8, 4, 8])
        self.assertEqual(self.with_struct.get_parameter_sizes(), [12])

    def test_launch_packed(self):
        config = Cugi.LaunchConfig.new(1, 1)
        config.set_stream(self.stream)
        for kernel in (self.saxpy, self.saxpy_c):
            kernel.launch_packed(config, struct.pack('=fI', 2.5, 32), [None, self.x, self.y, None])
            self.assertEqual(self.last_params(), self.saxpy_params(2.5, 32))
            # Again with other values, through the list the kernel kept.
            kernel.launch_packed(config, struct.pack('=fI', -1.0, 7), [None, self.x, self.y, None])
            self.assertEqual(self.last_params(), self.saxpy_params(-1.0, 7))
            kernel.launch_packed(config, struct.pack('=fI', 3.0, 9), [None, self.y, self.x, None])
            self.assertEqual(self.last_params(), struct.pack('<fQQI', 3.0, self.y.props.device_pointer,
                                                             self.x.props.device_pointer, 9))
        # Every type of the C++ kernel, its small ones as bytes.
        values = (-7, 2.0, -(2**40), 2**64 - 1, 0.5, 0.1, 200, 1)
        self.mixed.launch_packed(config, struct.pack('=' + MIXED[1:], *values), [None] * 8)
        self.assertEqual(self.last_params(), struct.pack(MIXED, *values))
        value = struct.pack('<iff', 3, 1.5, -2.0)
        self.with_struct.launch_packed(config, value, [None])
        self.assertEqual(self.last_params(), value)

    def test_launch_packed_refuses_what_does_not_fit(self):
        config = Cugi.LaunchConfig.new(1, 1)
        config.set_stream(self.stream)
        block = struct.pack('=fI', 2.0, 32)
        self.saxpy.launch_packed(config, block, [None, self.x, self.y, None])
        for kernel, block_, buffers, message in (
                (self.saxpy, block, [None, self.x, self.y], 'takes 4 parameters, but 3 buffer slots'),
                (self.saxpy, block, [None, None, self.y, None], 'parameter 1 is a pointer'),
                (self.saxpy, block + b'\0', [None, self.x, self.y, None], 'has 9 bytes, but .* take 8'),
                (self.saxpy, block[:7], [None, self.x, self.y, None], 'has 7 bytes, but .* take 8'),
                (self.saxpy, block[4:], [self.x, self.x, self.y, None], 'parameter 0 .*cannot take a CugiBuffer'),
                (self.saxpy_c, block[:4], [None, self.x, self.y, self.x], 'parameter 3 .*takes 4 bytes'),
                (self.plain, bytes(24), [None] * 3, 'takes 4 parameters')):
            with self.assertRaisesRegex(GLib.Error, message) as caught:
                kernel.launch_packed(config, block_, buffers)
            self.assertEqual(caught.exception.code, int(Cugi.Error.INVALID_ARGUMENT))
            # Nothing was launched, and the kernel is still usable.
            self.assertEqual(self.last_params(), self.saxpy_params(2.0, 32))
        self.saxpy.launch_packed(config, struct.pack('=fI', 4.0, 1), [None, self.x, self.y, None])
        self.assertEqual(self.last_params(), self.saxpy_params(4.0, 1))

    def test_launch_update(self):
        config = Cugi.LaunchConfig.new(1, 1)
        config.set_stream(self.stream)
        args = Cugi.KernelArgs.new()
        # Filled once with its buffers, then given new values alone.
        self.saxpy.launch_update(config, args, struct.pack('=fI', 2.5, 32), [None, self.x, self.y, None])
        self.assertEqual(self.last_params(), self.saxpy_params(2.5, 32))
        self.saxpy.launch_update(config, args, struct.pack('=fI', -1.0, 7), None)
        self.assertEqual(self.last_params(), self.saxpy_params(-1.0, 7))
        with self.assertRaisesRegex(GLib.Error, 'has 4 bytes, but the numbers of the argument list take 8'):
            self.saxpy.launch_update(config, args, struct.pack('=f', 3.0), None)
        self.saxpy.launch(config, args)
        self.assertEqual(self.last_params(), self.saxpy_params(-1.0, 7))

    def test_repeated_calls_pass_their_values(self):
        # A thread keeps an argument list with the buffers and values of its
        # last call: the same again launches it as it is, new values are
        # written into it, other buffers fill it again.
        for kernel in (self.saxpy, self.saxpy_c):
            for a, n in ((1.0, 5), (1.0, 5), (-3.5, 5), (-3.5, 6), (-3.5, 6)):
                self.assertEqual(self.call(kernel, a, self.x, self.y, n), self.saxpy_params(a, n))
            self.assertEqual(self.call(kernel, 1.0, self.y, self.y, 2),
                             struct.pack('<fQQI', 1.0, self.y.props.device_pointer, self.y.props.device_pointer, 2))
            self.assertEqual(self.call(kernel, 1.0, self.x, self.y, 2), self.saxpy_params(1.0, 2))

    def test_calls_keep_no_python_object_of_their_buffers(self):
        # The kept argument list holds the buffers, not their Python objects:
        # an object the caller drops goes at once (a device view's host
        # memory, released after a launch, would wait for that kernel), and
        # a new object of another buffer is told from it.
        context = Cugi.Context.get_default()
        for kernel in (self.saxpy, self.saxpy_c):
            temporary = Cugi.Buffer.new(context, 128)
            gone = weakref.ref(temporary)
            address = temporary.props.device_pointer
            self.assertEqual(self.call(kernel, 1.0, temporary, self.y, 4),
                             struct.pack('<fQQI', 1.0, address, self.y.props.device_pointer, 4))
            del temporary
            gc.collect()
            self.assertIsNone(gone())
            other = Cugi.Buffer.new(context, 128)
            self.assertEqual(self.call(kernel, 1.0, other, self.y, 4),
                             struct.pack('<fQQI', 1.0, other.props.device_pointer, self.y.props.device_pointer, 4))

    def test_called_kernels_are_freed(self):
        # The plan that calls of one shape launch by lives in the kernel's
        # wrapper: it held the kernel, a cycle through PyGObject's toggle
        # reference that the collector cannot break, so no kernel called
        # twice from Python was freed, nor its module and context (a
        # GStreamer element in Python kept every pipeline's CUDA context).
        module = Cugi.Module.new_from_data(Cugi.Context.get_default(), GLib.Bytes.new(IMAGE))
        kernel = module.get_kernel('_Z5saxpyfPKfPfj')
        for _ in range(3):
            self.call(kernel, 1.0, self.x, self.y, 4)
        finalized = []
        watch = module.weak_ref(finalized.append, 'module')  # noqa: F841 (GObject's weak reference)
        del kernel, module
        gc.collect()
        self.assertEqual(finalized, ['module'])

    def test_calls_take_pool_blocks_as_buffers(self):
        # A Cugi.MemoryBlock passes its address, through the plan (calls of
        # one shape after the first), the general way (a NumPy scalar) and
        # launch_values; the buffer made over it then holds the block.
        pool = Cugi.MemoryPool.new(Cugi.Context.get_default())
        for kernel in (self.saxpy, self.saxpy_c):
            block = pool.take_block(128)
            address = block.address
            for a in (1.0, 1.0, numpy.float32(2.0)):
                self.assertEqual(self.call(kernel, a, block, self.y, 4),
                                 struct.pack('<fQQI', a, address, self.y.props.device_pointer, 4))
            config = Cugi.LaunchConfig.new(1, 1)
            config.set_stream(self.stream)
            kernel.launch_values(config, [0.5, self.x, block, 3])
            self.assertEqual(self.last_params(),
                             struct.pack('<fQQI', 0.5, self.x.props.device_pointer, address, 3))
            self.assertIs(block.buffer, block.buffer)
            self.assertEqual(block.buffer.props.device_pointer, address)
            # The argument lists kept the buffer: the block goes back all
            # the same, once the launches are done.
            block.free()
            self.stream.synchronize()
            self.assertEqual(pool.get_active_blocks(), 0)
            with self.assertRaisesRegex(GLib.Error, 'block was freed'):
                self.call(kernel, 1.0, block, self.y, 4)

    def test_freed_buffers_go_though_calls_keep_them(self):
        # The argument lists that calls keep (the plan's lists, the kernel's
        # for packed launches, here for its bool) hold their buffers for the
        # calls to come, but not past a free: the memory goes back in stream
        # order once the launches are done, with no later call, and the
        # next call with the buffer raises.
        pool = Cugi.StreamOrderedPool.get_default(None)
        flag = self.module.get_kernel('_Z4flagPfb')
        used = pool.get_used_current()
        for kernel, args in ((self.saxpy, (1.0, None, self.y, 4)), (self.saxpy_c, (1.0, None, self.y, 4)),
                             (flag, (None, True))):
            buffer = Cugi.Buffer.new_on_stream(self.stream, 8 << 20)
            call = [buffer if arg is None else arg for arg in args]
            for _ in range(3):
                self.call(kernel, *call)
            self.assertEqual(pool.get_used_current(), used + (8 << 20))
            buffer.free()
            self.stream.synchronize()
            while GLib.MainContext.default().iteration(False):
                pass
            gc.collect()
            self.stream.synchronize()
            self.assertEqual(pool.get_used_current(), used, kernel.props.name)
            with self.assertRaises(GLib.Error) as raised:
                self.call(kernel, *call)
            self.assertTrue(raised.exception.matches(Cugi.error_quark(), Cugi.Error.INVALID_STATE))
            self.assertIn('buffer was freed', raised.exception.message)

    def test_calls_take_their_shape_and_the_scoped_stream(self):
        # A call of the shape of the one before is made in C; any other
        # grid, block, shared memory or stream is the call's own, and inside
        # `with stream:` a call without a stream takes the scope's, also
        # right after calls of the same shape outside.
        other = Cugi.Stream.new(Cugi.Context.get_default(), Cugi.StreamFlags.NON_BLOCKING, 0)

        def call(**shape):
            self.saxpy(1.0, self.x, self.y, 4, **shape)
            return self.last_launch()

        default, dims = call(grid=2, block=3)
        self.assertNotEqual(default, other.props.handle)
        self.assertEqual(dims, (2, 1, 1, 3, 1, 1, 0))
        self.assertEqual(call(grid=2, block=3), (default, dims))
        self.assertEqual(call(grid=(4, 5), block=3, shared_mem=16), (default, (4, 5, 1, 3, 1, 1, 16)))
        self.assertEqual(call(grid=(4, 5), block=3, stream=other), (other.props.handle, (4, 5, 1, 3, 1, 1, 0)))
        self.assertEqual(call(grid=(4, 5), block=3), (default, (4, 5, 1, 3, 1, 1, 0)))
        with other:
            self.assertEqual(call(grid=(4, 5), block=3), (other.props.handle, (4, 5, 1, 3, 1, 1, 0)))
            self.assertEqual(call(grid=(4, 5), block=3), (other.props.handle, (4, 5, 1, 3, 1, 1, 0)))
        self.assertEqual(call(grid=(4, 5), block=3), (default, (4, 5, 1, 3, 1, 1, 0)))
        self.assertEqual(call(grid=[4, 5], block=(3,)), (default, (4, 5, 1, 3, 1, 1, 0)))

    def test_calls_refuse_what_python_would(self):
        self.call(self.saxpy, 1.0, self.x, self.y, 4)
        with self.assertRaisesRegex(TypeError, "unexpected keyword argument 'threads'"):
            self.saxpy(1.0, self.x, self.y, 4, grid=1, block=1, threads=3)
        with self.assertRaisesRegex(TypeError, "missing 1 required keyword-only argument: 'block'"):
            self.saxpy(1.0, self.x, self.y, 4, grid=1)
        with self.assertRaisesRegex(TypeError, 'grid must be an int or a tuple'):
            self.saxpy(1.0, self.x, self.y, 4, grid='1', block=1)
        # Kernel.launch(), made in C too, checks its arguments' types.
        with self.assertRaisesRegex(TypeError, 'argument config: Expected Cugi.LaunchConfig'):
            self.saxpy.launch(None, Cugi.KernelArgs.new())
        with self.assertRaisesRegex(TypeError, 'argument args: Expected Cugi.KernelArgs'):
            self.saxpy.launch(Cugi.LaunchConfig.new(1, 1), [1.0, self.x, self.y, 4])
        # A plan takes no more parameters than its arrays hold.
        import _cugi
        limit = _cugi.MAX_PLANNED_PARAMS
        with self.assertRaisesRegex(ValueError, f'at most {limit} parameters'):
            _cugi.Plan(self.saxpy, 'i' * (limit + 1), 'i' * (limit + 1))
        with self.assertRaisesRegex(ValueError, '1 formats for 2 values'):
            _cugi.Plan(self.saxpy, 'nppn', 'f')
        # And the kernel is still called.
        self.assertEqual(self.call(self.saxpy, 2.5, self.x, self.y, 3), self.saxpy_params(2.5, 3))

    def test_threads_call_one_kernel(self):
        # Each thread launches from an argument list no other thread uses
        # meanwhile: every call of every thread passes its own buffers.
        context = Cugi.Context.get_default()
        failures = []

        def calls(index):
            x, y = Cugi.Buffer.new(context, 128), Cugi.Buffer.new(context, 128)
            try:
                for n in range(300):
                    self.saxpy_c(float(index), x, y, n, grid=1, block=1, stream=self.stream)
                    self.saxpy_c(float(index), y, x, n, grid=1, block=1, stream=self.stream)
            except Exception as error:     # noqa: BLE001 (reported below)
                failures.append(error)

        threads = [threading.Thread(target=calls, args=(index,)) for index in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.assertEqual(failures, [])
        self.assertEqual(self.call(self.saxpy_c, 2.5, self.x, self.y, 3), self.saxpy_params(2.5, 3))

    def test_calls_pack_as_the_general_way_converts(self):
        # The argument plan (a C++ kernel's kinds, an extern "C" kernel's
        # first call) gives the bytes the general way gives.
        for kernel in (self.saxpy, self.saxpy_c):
            self.assertEqual(self.call(kernel, 2.5, self.x, self.y, 32), self.saxpy_params(2.5, 32))
            self.assertEqual(self.call(kernel, 2.0, self.y, self.x, 7),
                             struct.pack('<fQQI', 2.0, self.y.props.device_pointer,
                                         self.x.props.device_pointer, 7))
            # What the plan does not take goes the general way.
            self.assertEqual(self.call(kernel, numpy.float32(0.5), self.x, self.y, numpy.uint32(3)),
                             self.saxpy_params(0.5, 3))
            self.assertEqual(self.call(kernel, 1.5, self.x, self.y, 2**32 - 1), self.saxpy_params(1.5, 2**32 - 1))
            with self.assertRaisesRegex(TypeError, 'a NoneType cannot'):
                self.call(kernel, 1.5, None, self.y, 1)
        # Where the kernel says what its parameters are, a real for an
        # integer or an int for a pointer is refused.
        with self.assertRaisesRegex(GLib.Error, 'parameter 3'):
            self.call(self.saxpy, 1.5, self.x, self.y, 2.5)
        with self.assertRaisesRegex(GLib.Error, 'parameter 1'):
            self.call(self.saxpy, 1.5, 12, self.y, 2)
        # An int for a float: a float where the kernel says so, an int32
        # (the parameter's size) where it does not.
        self.assertEqual(self.call(self.saxpy, 2, self.x, self.y, 1), self.saxpy_params(2.0, 1))
        self.assertEqual(self.call(self.saxpy_c, 2, self.x, self.y, 1)[:4], struct.pack('<i', 2))
        # An extern "C" kernel's plan is that of its first call: a call of
        # other types (an int for the 8-byte parameter that took a float)
        # goes the general way, as an int64.
        self.assertEqual(self.call(self.plain, 1, 2.5, 3.0, 4.5), struct.pack('<idfd', 1, 2.5, 3.0, 4.5))
        self.assertEqual(self.call(self.plain, 1, 2, 3.0, 4.5), struct.pack('<iqfd', 1, 2, 3.0, 4.5))
        self.assertEqual(self.call(self.plain, 1, 2.5, 3.0, 4.5), struct.pack('<idfd', 1, 2.5, 3.0, 4.5))

    def test_launch_values_takes_64_bit_integers(self):
        config = Cugi.LaunchConfig.new(1, 1)
        config.set_stream(self.stream)
        values = [-7, 2.0, 2**40, 2**63 + 1, 0.5, 0.1, 200, True]
        self.mixed.launch_values(config, values)
        self.assertEqual(self.last_params(), struct.pack(MIXED, -7, 2.0, 2**40, 2**63 + 1, 0.5, 0.1, 200, 1))
        values[2], values[3] = -(2**63), 2**64 - 1
        self.mixed.launch_values(config, values)
        self.assertEqual(self.last_params(), struct.pack(MIXED, -7, 2.0, -(2**63), 2**64 - 1, 0.5, 0.1, 200, 1))
        # extern "C": as wide as the parameter, as the call converts.
        self.plain.launch_values(config, [2**31 + 5, 2**40, 1.0, 2.0])
        self.assertEqual(self.last_params(), struct.pack('<Iqfd', 2**31 + 5, 2**40, 1.0, 2.0))
        with self.assertRaisesRegex(GLib.Error, 'parameter 0 .*out of range'):
            self.mixed.launch_values(config, [2**40] + values[1:])
        with self.assertRaises(OverflowError):
            self.mixed.launch_values(config, [-7, 2.0, 1, 2**64] + values[4:])

    def test_launch_values_refuses_none(self):
        # PyGObject cannot make a GValue of None (it crashes trying).
        config = Cugi.LaunchConfig.new(1, 1)
        with self.assertRaisesRegex(TypeError, 'argument 1: None cannot be passed'):
            self.plain.launch_values(config, [1, None, 1.0, 1.0])

    def test_numpy_scalars_are_converted_to_the_declared_types(self):
        got = self.call(self.mixed, numpy.int64(-7), numpy.float64(2), numpy.int32(-5),
                        numpy.uint8(3), numpy.float32(0.5), numpy.float32(0.25),
                        numpy.uint16(255), numpy.bool_(True))
        self.assertEqual(got, struct.pack(MIXED, -7, 2.0, -5, 3, 0.5, 0.25, 255, 1))

    def test_sizes_decide_for_extern_c_kernels(self):
        got = self.call(self.plain, -1, 2**40, 1.5, 2.5)
        self.assertEqual(got, struct.pack('<iqfd', -1, 2**40, 1.5, 2.5))
        # An int stays an integer: nothing says the 8 bytes are a double.
        got = self.call(self.plain, 2**32 - 1, -1, numpy.float32(0.75), 1)
        self.assertEqual(got, struct.pack('<Iqfq', 2**32 - 1, -1, 0.75, 1))
        # Parameters of 1 and 2 bytes take signed ints of their width, the
        # plan's packing (calls of one shape after the first) included.
        narrow = self.module.get_kernel('narrow_c')
        for values in ((-5, -300, 7), (127, 32767, -2**31), (-128, -32768, 2**31 - 1), (0, 1, -1)):
            self.assertEqual(self.call(narrow, *values), struct.pack('<bhi', *values))

    def test_a_kernel_known_by_its_sizes_alone(self):
        # The GTK example's fractal kernel, extern "C": (uchar4 *image, int
        # width, int height, int first_row, int rows, double centre_re,
        # double centre_im, double pixel_size, int julia, double julia_re,
        # double julia_im, int max_iterations), called as fractal.py calls
        # it: floats for the doubles, ints and a bool for the ints.
        image = GLib.Bytes.new(b'fractal 8 4 4 4 4 8 8 8 4 8 8 4\n')
        fractal = Cugi.Module.new_from_data(Cugi.Context.get_default(), image).get_kernel('fractal')
        # (The stand-in driver allocates nothing: 8 bytes stand for the pointer.)
        pixels = struct.pack('<Q', 0x7f0000001000)
        got = self.call(fractal, GLib.Bytes.new(pixels), 640, 480, 0, 480, -0.6, 0.0, 2.6 / 480, True,
                        0.25, -1.0, 256)
        self.assertEqual(got, pixels + struct.pack('<iiiidddiddi', 640, 480, 0, 480, -0.6, 0.0, 2.6 / 480, 1,
                                                   0.25, -1.0, 256))
        # What the sizes cannot tell: an int for an 8-byte parameter is a
        # 64-bit integer (a double parameter needs a float), and a real for
        # a 4-byte one a float (2.0 as well: a whole real within 32 bits is
        # taken for a real).
        got = self.call(self.plain, 2.0, 3, 0.5, 4)
        self.assertEqual(got, struct.pack('<fqfq', 2.0, 3, 0.5, 4))

    def test_bytes_pass_a_struct_by_value(self):
        value = struct.pack('<iff', 3, 1.5, -2.0)
        self.assertEqual(self.call(self.with_struct, GLib.Bytes.new(value)), value)

    def test_values_that_do_not_fit_are_refused(self):
        good = (-7, 2, -(2**40), 2**64 - 1, 0.5, 0.1, 200, True)
        self.call(self.mixed, *good)
        for index, bad in ((0, 2**31), (0, -(2**31) - 1), (3, -1), (6, 256), (6, -1),
                           (2, 2**63), (0, numpy.int64(2**40))):
            args = list(good)
            args[index] = bad
            with self.assertRaisesRegex(GLib.Error, f'parameter {index} .*out of range'):
                self.call(self.mixed, *args)
        with self.assertRaises(OverflowError):
            self.call(self.mixed, 2**64, *good[1:])
        with self.assertRaises(OverflowError):
            self.call(self.mixed, -(2**63) - 1, *good[1:])
        # A bool is 0 or 1 (another byte is undefined behaviour in the
        # kernel), whichever way the call goes: the plan, the general way (a
        # NumPy scalar), launch_values.
        config = Cugi.LaunchConfig.new(1, 1)
        config.set_stream(self.stream)
        for bad in (2, 255, -1, numpy.int32(2)):
            with self.assertRaisesRegex(GLib.Error, f'parameter 7 \\(bool\\): {int(bad)} is not a bool'):
                self.call(self.mixed, *good[:7], bad)
            with self.assertRaisesRegex(GLib.Error, f'parameter 7 \\(bool\\): {int(bad)} is not a bool'):
                self.mixed.launch_values(config, list(good[:7]) + [int(bad)])
        for flag in (False, True, 0, 1, False):
            self.assertEqual(self.call(self.mixed, *good[:7], flag), struct.pack(MIXED, *good[:7], flag))
        # A refused call launched nothing, and the kernel is still usable.
        self.assertEqual(self.last_params(), struct.pack(MIXED, *good[:7], 0))
        self.assertEqual(self.call(self.mixed, *good), struct.pack(MIXED, *good[:7], 1))

    def test_wrong_kinds_of_argument_are_refused(self):
        with self.assertRaisesRegex(GLib.Error, 'takes 8 arguments|8 parameters|argument'):
            self.call(self.mixed, 1, 2, 3)
        with self.assertRaisesRegex(GLib.Error, 'parameter 0'):
            self.call(self.mixed, 1.5, 2, 3, 4, 5, 6, 7, True)
        for bad, message in (('x', 'a str cannot be passed'), (None, 'a NoneType cannot'),
                             ([1], 'a list cannot'), (numpy.zeros(4), 'lives in host memory'),
                             (numpy.float16(1), 'float16 scalars cannot be passed')):
            with self.assertRaisesRegex(TypeError, message):
                self.call(self.plain, bad, 1, 1.0, 1.0)
        self.assertEqual(self.call(self.plain, 1, 2, 3.0, 4.0), struct.pack('<iqfd', 1, 2, 3.0, 4.0))

    def test_append_methods(self):
        # The C entry points the call uses, as other bindings would.
        args = Cugi.KernelArgs.new()
        self.mixed.append_int(args, -7)
        self.mixed.append_uint(args, 2)
        self.assertEqual(args.get_arg_type(1), Cugi.ArgType.FLOAT)
        self.mixed.append_int(args, 5)
        self.assertEqual(args.get_arg_type(2), Cugi.ArgType.INT64)
        self.mixed.append_uint(args, 2**64 - 1)
        self.mixed.append_double(args, 0.5)
        self.assertEqual(args.get_arg_type(4), Cugi.ArgType.FLOAT)
        self.mixed.append_float(args, 0.25)
        self.assertEqual(args.get_arg_type(5), Cugi.ArgType.DOUBLE)
        with self.assertRaisesRegex(GLib.Error, 'out of range'):
            self.mixed.append_int(args, 256)
        self.assertEqual(args.get_n_args(), 6)
        self.mixed.append_int(args, 255)
        self.mixed.append_uint(args, 1)
        config = Cugi.LaunchConfig.new(1, 1)
        config.set_stream(self.stream)
        self.mixed.launch(config, args)
        self.assertEqual(self.last_params(), struct.pack(MIXED, -7, 2.0, 5, 2**64 - 1, 0.5, 0.25, 255, 1))

    def test_whole_reals_beyond_32_bits_are_refused_where_the_kind_is_unknown(self):
        # GJS passes every number beyond 32 bits as a double: for a
        # parameter of an extern "C" kernel, which may be an integer, its
        # bits as a float or a double would be a wrong value.
        config = Cugi.LaunchConfig.new(1, 1)
        config.set_stream(self.stream)
        hint = 'may be an integer or a real number.*cugi_kernel_args_add_int64'
        for index, bad in ((1, 5000000000.0), (0, 2.0**40), (0, -(2.0**31) - 1), (3, 2.0**63)):
            good = [1, 2, 3.0, 4.0]
            good[index] = bad
            with self.assertRaisesRegex(GLib.Error, f'parameter {index} .*{hint}'):
                self.plain.launch_values(config, good)
            with self.assertRaisesRegex(GLib.Error, f'parameter {index} .*{hint}'):
                self.call(self.plain, numpy.int32(good[0]) if index else good[0], *good[1:])
        args = Cugi.KernelArgs.new()
        self.plain.append_int(args, 1)
        with self.assertRaisesRegex(GLib.Error, hint):
            self.plain.append_double(args, 5000000000.0)
        with self.assertRaisesRegex(GLib.Error, hint):
            self.plain.append_float(args, 2.0**40)
        self.assertEqual(args.get_n_args(), 1)
        # Passed as what they are, they go.
        args.add_int64(5000000000)
        args.add_float(2.0**40)
        args.add_double(5000000000.0)
        self.plain.launch(config, args)
        self.assertEqual(self.last_params(), struct.pack('<iqfd', 1, 5000000000, 2.0**40, 5000000000.0))
        # Reals that no integer parameter could be meant for, and any real
        # for a kernel that says its types, go as reals.
        got = self.call(self.plain, 1, 2, 2.0**31 + 0.5, 2.0**64)
        self.assertEqual(got, struct.pack('<iqfd', 1, 2, 2.0**31 + 0.5, 2.0**64))
        got = self.call(self.plain, 1, 2, 2.0, -0.0)
        self.assertEqual(got, struct.pack('<iqfd', 1, 2, 2.0, -0.0))
        got = self.call(self.mixed, -7, 2.0**40, 5, 0, 0.5, 5000000000.0, 0, False)
        self.assertEqual(got, struct.pack(MIXED, -7, 2.0**40, 5, 0, 0.5, 5000000000.0, 0, 0))

    def test_unset_values_are_named(self):
        config = Cugi.LaunchConfig.new(1, 1)
        # PyGObject cannot pass it (a critical warning, then a crash): the
        # override refuses it, as C does (test-kernel's launch-values).
        with self.assertRaisesRegex(TypeError, 'argument 1 has no value'):
            self.plain.launch_values(config, [1, GObject.Value(), 1.0, 1.0])

    def test_arguments_larger_than_any_kernel_takes_are_refused(self):
        # More than the 32764 bytes of parameters a kernel may have: the
        # launch refuses it, even for a parameter of that size.
        image = GLib.Bytes.new(b'huge 32768\n')
        huge = Cugi.Module.new_from_data(Cugi.Context.get_default(), image).get_kernel('huge')
        args = Cugi.KernelArgs.new()
        args.add_bytes(GLib.Bytes.new(bytes(32768)))
        self.assertEqual(args.get_arg_size(0), 32768)
        config = Cugi.LaunchConfig.new(1, 1)
        config.set_stream(self.stream)
        with self.assertRaisesRegex(GLib.Error, 'argument 0: 32768 bytes is more than'):
            huge.launch(config, args)


class GetterTest(unittest.TestCase):
    """Getters return their values and raise GLib.Error: no (True, value)."""

    @classmethod
    def setUpClass(cls):
        cls.context = Cugi.Context.get_default()
        module = Cugi.Module.new_from_data(cls.context, GLib.Bytes.new(IMAGE))
        cls.kernel = module.get_kernel('plain')

    def test_single_values(self):
        self.assertEqual(self.kernel.get_attribute(Cugi.FunctionAttribute.MAX_THREADS_PER_BLOCK), 1024)
        self.assertEqual(self.context.get_limit(Cugi.Limit.STACK_SIZE), 1024)
        self.context.set_cache_config(Cugi.CacheConfig.PREFER_L1)
        try:
            self.assertEqual(self.context.get_cache_config(), Cugi.CacheConfig.PREFER_L1)
        finally:
            self.context.set_cache_config(Cugi.CacheConfig.PREFER_NONE)

    def test_pairs(self):
        self.assertEqual(self.context.get_memory_info(), (79 << 30, 80 << 30))
        self.assertEqual(self.context.get_device().get_memory_info(), (79 << 30, 80 << 30))
        self.assertEqual(self.context.get_stream_priority_range(), (0, -5))

    def test_failures_raise(self):
        # A context made with GObject's constructor stands for none.
        unbound = Cugi.Context()
        getters = (lambda: unbound.get_limit(Cugi.Limit.STACK_SIZE), unbound.get_cache_config,
                   unbound.get_memory_info, unbound.get_stream_priority_range)
        for getter in getters:
            with self.assertRaises(GLib.Error) as caught:
                getter()
            self.assertEqual(caught.exception.code, int(Cugi.Error.INVALID_STATE))


class CancellationTest(unittest.TestCase):
    """A wait cancelled before its callback runs reports CANCELLED, every
    time, though the work (nothing, here) may have completed by then."""

    def assert_cancelled_at_once(self, start, finish):
        for _ in range(20):
            loop = GLib.MainLoop()
            cancellable = Gio.Cancellable()
            results = []

            def on_done(source, result):
                results.append(result)
                loop.quit()

            start(cancellable, on_done)
            cancellable.cancel()
            loop.run()
            with self.assertRaises(GLib.Error) as caught:
                finish(results[0])
            self.assertTrue(caught.exception.matches(Gio.io_error_quark(), Gio.IOErrorEnum.CANCELLED))

    def test_synchronize_async(self):
        context = Cugi.Context.get_default()
        stream = Cugi.Stream.new(context, Cugi.StreamFlags.NON_BLOCKING, 0)
        event = Cugi.Event.new(context, Cugi.EventFlags.DISABLE_TIMING)
        event.record(stream)
        for waiter in (stream, event, context):
            self.assert_cancelled_at_once(waiter.synchronize_async, waiter.synchronize_finish)


if __name__ == '__main__':
    unittest.main(verbosity=2)
