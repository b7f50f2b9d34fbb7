#!/usr/bin/python3
"""The typelib and cugi's Python overrides, without a GPU: names, enums, the
no-driver error, NVRTC compilation and the boxed launch types."""

import os
import subprocess
import sys
import tempfile
import textwrap
import types
import unittest

import gi
from gi._gi import Direction, TypeTag

gi.require_version('Cugi', '1.0')
from gi.repository import Cugi, GLib  # noqa: E402

SAXPY = textwrap.dedent('''\
    extern "C" __global__ void saxpy(float a, const float *x, float *y, unsigned int n)
    {
        unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n)
            y[i] = a * x[i] + y[i];
    }
''')


def run_in_subprocess(code, libcuda):
    """Runs @code (after importing Cugi and GLib) in a fresh Python whose
    CUGI_LIBCUDA is @libcuda (the driver is loaded once per process) and
    returns the lines it printed."""
    child = textwrap.dedent('''\
        import gi
        gi.require_version('Cugi', '1.0')
        from gi.repository import Cugi, GLib
    ''') + textwrap.dedent(code)
    env = dict(os.environ, CUGI_LIBCUDA=libcuda)
    result = subprocess.run([sys.executable, '-c', child], env=env,
                            capture_output=True, text=True, check=True, timeout=60)
    return result.stdout.splitlines()


def init_in_subprocess(libcuda):
    """Runs Cugi.init() with @libcuda as the driver and returns what it
    raised."""
    return run_in_subprocess('''\
        try:
            Cugi.init()
        except GLib.Error as error:
            print(error.domain)
            print(error.code)
            print(Cugi.is_available())
            print(error.message)
        else:
            print('no error')
    ''', libcuda)


class TestVersion(unittest.TestCase):
    def test_version_through_the_typelib(self):
        version = (Cugi.get_major_version(), Cugi.get_minor_version(), Cugi.get_micro_version())
        self.assertEqual('%d.%d.%d' % version, Cugi.get_version())
        self.assertEqual(version, (Cugi.MAJOR_VERSION, Cugi.MINOR_VERSION, Cugi.MICRO_VERSION))
        self.assertIsNone(Cugi.check_version(*version))
        major, minor, micro = version
        # The message is translated: test-version reads it in C.
        self.assertIsInstance(Cugi.check_version(major, minor + 1, 0), str)
        self.assertIsInstance(Cugi.check_version(major + 1, 0, 0), str)


class TestNames(unittest.TestCase):
    def test_overrides_are_loaded(self):
        self.assertTrue(callable(Cugi.to_device))
        self.assertTrue(hasattr(Cugi.Buffer, 'copy_to_host'))
        self.assertTrue(hasattr(Cugi.Context, '__enter__'))
        self.assertTrue(hasattr(Cugi.Context, '__exit__'))

    def test_enums_match_cuda(self):
        # The values are CUDA's own (cuda.h), so they can be passed through.
        self.assertEqual(int(Cugi.DeviceAttribute.MAX_THREADS_PER_BLOCK), 1)
        self.assertEqual(int(Cugi.DeviceAttribute.WARP_SIZE), 10)
        self.assertEqual(int(Cugi.DeviceAttribute.MULTIPROCESSOR_COUNT), 16)
        self.assertEqual(int(Cugi.StreamFlags.NONE), 0)
        self.assertEqual(int(Cugi.StreamFlags.NON_BLOCKING), 1)
        self.assertEqual(int(Cugi.EventFlags.BLOCKING_SYNC), 1)
        self.assertEqual(int(Cugi.EventFlags.DISABLE_TIMING), 2)
        self.assertEqual(int(Cugi.EventFlags.INTERPROCESS), 4)
        both = Cugi.EventFlags.BLOCKING_SYNC | Cugi.EventFlags.DISABLE_TIMING
        self.assertEqual(both & Cugi.EventFlags.DISABLE_TIMING, Cugi.EventFlags.DISABLE_TIMING)
        self.assertEqual(int(both), 3)

    def test_error_domain(self):
        self.assertEqual(Cugi.error_quark(), GLib.quark_from_string('cugi-error-quark'))
        codes = {Cugi.Error.NOT_AVAILABLE, Cugi.Error.INVALID_ARGUMENT,
                 Cugi.Error.OUT_OF_MEMORY, Cugi.Error.LAUNCH_FAILED,
                 Cugi.Error.COMPILE, Cugi.Error.DRIVER}
        self.assertEqual(len(codes), 6)

    def test_version(self):
        self.assertRegex(Cugi.get_version(), r'^\d+\.\d+\.\d+$')


class TestNoDriver(unittest.TestCase):
    def test_missing_driver_is_not_available(self):
        lines = init_in_subprocess('/nonexistent/libcuda.so.1')
        self.assertNotEqual(lines, ['no error'])
        domain, code, available, message = lines[0], int(lines[1]), lines[2], lines[3]
        self.assertEqual(domain, 'cugi-error-quark')
        self.assertEqual(code, int(Cugi.Error.NOT_AVAILABLE))
        self.assertEqual(available, 'False')
        self.assertIn('CUGI_LIBCUDA', message)

    def test_staging_memory_without_a_driver(self):
        """The staging memory that to_device() and copy_to_host() borrow is
        the C library's: without a driver there is none to borrow, and
        nothing to free."""
        lines = run_in_subprocess('''\
            print(Cugi.free_staging_memory())
            try:
                Cugi.HostBuffer.new_staging(None, 16)
            except GLib.Error as error:
                print(error.code)
        ''', '/nonexistent/libcuda.so.1')
        self.assertEqual(lines, ['True', str(int(Cugi.Error.NOT_AVAILABLE))])

    def test_stub_driver_is_not_available(self):
        stub = os.environ.get('CUGI_STUB_LIBCUDA', '/usr/local/cuda/lib64/stubs/libcuda.so')
        if not os.path.exists(stub):
            self.skipTest('the CUDA toolkit has no stub libcuda.so here')
        lines = init_in_subprocess(stub)
        self.assertEqual(lines[0], 'cugi-error-quark')
        self.assertEqual(int(lines[1]), int(Cugi.Error.NOT_AVAILABLE))
        self.assertIn('stub', lines[3])


class TestProgram(unittest.TestCase):
    """NVRTC needs no driver: these compile for real."""

    def setUp(self):
        # Keep compilations out of the user's cache.
        self.cache = tempfile.TemporaryDirectory(prefix='cugi-test-cache-')
        os.environ['CUGI_CACHE_DIR'] = self.cache.name

    def tearDown(self):
        del os.environ['CUGI_CACHE_DIR']
        self.cache.cleanup()

    def test_ptx(self):
        program = Cugi.Program.new(SAXPY, 'saxpy.cu')
        self.assertTrue(program.compile(['--gpu-architecture=compute_90']))
        ptx = program.get_ptx()
        self.assertIsInstance(ptx, GLib.Bytes)
        text = ptx.get_data().decode('ascii', errors='replace')
        self.assertIn('.entry saxpy', text)
        self.assertIn('.target sm_90', text)

    def test_cubin(self):
        program = Cugi.Program.new(SAXPY, 'saxpy.cu')
        self.assertTrue(program.compile(['--gpu-architecture=sm_90']))
        cubin = program.get_cubin().get_data()
        self.assertEqual(cubin[:4], b'\x7fELF')

    def test_compile_error_carries_the_log(self):
        program = Cugi.Program.new('__global__ void broken() { undeclared(); }', 'broken.cu')
        with self.assertRaises(GLib.Error) as caught:
            program.compile(['--gpu-architecture=compute_90'])
        self.assertEqual(caught.exception.domain, 'cugi-error-quark')
        self.assertEqual(caught.exception.code, int(Cugi.Error.COMPILE))
        self.assertIn('undeclared', program.get_log())

    def test_diagnostics(self):
        program = Cugi.Program.new('#include "colour.cuh"\n__global__ void k() { colour(); }\n', 'k.cu')
        program.add_header('colour.cuh', '__device__ void colour() {\n  int unused;\n  nope();\n}\n')
        self.assertEqual(program.get_diagnostics(), [])
        with self.assertRaises(GLib.Error):
            program.compile(['--gpu-architecture=compute_90'])
        diagnostics = program.get_diagnostics()
        del program
        # The diagnostics outlive the program and the array they came in.
        found = [(d.get_severity(), d.get_file(), d.get_line(), d.get_column(), d.get_code(), d.get_message())
                 for d in diagnostics]
        self.assertEqual(found, [
            (Cugi.DiagnosticSeverity.ERROR, 'colour.cuh', 3, 3, None, 'identifier "nope" is undefined'),
            (Cugi.DiagnosticSeverity.WARNING, 'colour.cuh', 2, 7, '177-D',
             'variable "unused" was declared but never referenced'),
        ])
        self.assertEqual(Cugi.Diagnostic.parse_log(None), [])


class TestBoxed(unittest.TestCase):
    def test_launch_config(self):
        n = 1 << 20
        config = Cugi.LaunchConfig.new(n // 256, 256)
        self.assertEqual(config.get_grid(), (4096, 1, 1))
        self.assertEqual(config.get_block(), (256, 1, 1))
        self.assertEqual(config.get_shared_memory(), 0)
        self.assertIsNone(config.get_stream())
        config.set_grid(8, 4, 2)
        config.set_block(32, 8, 1)
        config.set_shared_memory(1024)
        copy = config.copy()
        self.assertEqual(copy.get_grid(), (8, 4, 2))
        self.assertEqual(copy.get_block(), (32, 8, 1))
        self.assertEqual(copy.get_shared_memory(), 1024)

    def test_launch_config_2d(self):
        config = Cugi.LaunchConfig.new_2d(40, 30, 16, 8)
        self.assertEqual((config.get_grid(), config.get_block()), ((40, 30, 1), (16, 8, 1)))
        config = Cugi.LaunchConfig.new_for_size_2d(1920, 1080, 16, 16)
        self.assertEqual((config.get_grid(), config.get_block()), ((120, 68, 1), (16, 16, 1)))
        with self.assertRaisesRegex(GLib.Error, 'at least 1'):
            Cugi.LaunchConfig.new_for_size_2d(0, 1080, 16, 16)

    def test_kernel_args(self):
        args = Cugi.KernelArgs.new()
        args.add_int32(-1)
        args.add_uint32(2**32 - 1)
        args.add_int64(-2**40)
        args.add_uint64(2**64 - 1)
        args.add_float(0.5)
        args.add_double(0.25)
        args.add_bytes(GLib.Bytes.new(b'\x01\x02\x03'))
        expected = [(Cugi.ArgType.INT32, 4), (Cugi.ArgType.UINT32, 4),
                    (Cugi.ArgType.INT64, 8), (Cugi.ArgType.UINT64, 8),
                    (Cugi.ArgType.FLOAT, 4), (Cugi.ArgType.DOUBLE, 8),
                    (Cugi.ArgType.BYTES, 3)]
        for copy in (args, args.copy()):
            self.assertEqual(copy.get_n_args(), len(expected))
            self.assertEqual([(copy.get_arg_type(i), copy.get_arg_size(i))
                              for i in range(len(expected))], expected)
        with self.assertRaises(OverflowError):
            args.add_int32(2**31)


class FakeBuffer:
    """Host bytes behind the interface of a Cugi.Buffer, so the overrides'
    own logic (layouts, the CUDA array interface) runs without a GPU."""

    copy_to_host = Cugi.Buffer.copy_to_host
    __cuda_array_interface__ = Cugi.Buffer.__cuda_array_interface__

    def __init__(self, data, dtype=None, shape=None):
        self.data, self.dtype, self.shape = data, dtype, shape
        self.props = types.SimpleNamespace(size=len(data), device_pointer=0x7f0000001000)

    def _download_into(self, destination):
        import numpy
        destination[:] = numpy.frombuffer(self.data, dtype=numpy.uint8)


class TestBufferLayouts(unittest.TestCase):
    def setUp(self):
        import numpy
        self.numpy = numpy
        self.array = numpy.arange(24, dtype=numpy.float32).reshape(2, 3, 4)
        self.buffer = FakeBuffer(self.array.tobytes(), self.array.dtype, self.array.shape)

    def test_remembered_layout(self):
        back = self.buffer.copy_to_host()
        self.assertEqual((back.dtype, back.shape), (self.array.dtype, self.array.shape))
        self.numpy.testing.assert_array_equal(back, self.array)
        back[0, 0, 0] = -1  # writable, and a copy
        self.assertEqual(self.buffer.copy_to_host()[0, 0, 0], 0)

    def test_other_layouts(self):
        numpy = self.numpy
        self.assertEqual(self.buffer.copy_to_host(dtype=numpy.uint8).shape, (96,))
        self.assertEqual(self.buffer.copy_to_host(dtype=numpy.float32, shape=(6, 4)).shape, (6, 4))
        self.assertEqual(self.buffer.copy_to_host(shape=(4, -1)).shape, (4, 6))
        self.assertEqual(self.buffer.copy_to_host(dtype=numpy.float64).shape, (12,))
        with self.assertRaises(ValueError):
            self.buffer.copy_to_host(shape=(5, 5))
        with self.assertRaises(ValueError):
            FakeBuffer(b'12345').copy_to_host(dtype=numpy.int32)

    def test_plain_buffers_are_bytes(self):
        plain = FakeBuffer(bytes(range(10)))
        back = plain.copy_to_host()
        self.assertEqual(back.dtype, self.numpy.uint8)
        self.assertEqual(back.tolist(), list(range(10)))
        self.assertEqual(FakeBuffer(b'').copy_to_host().shape, (0,))

    def test_cuda_array_interface(self):
        interface = self.buffer.__cuda_array_interface__
        self.assertEqual(interface['version'], 3)
        self.assertEqual(interface['shape'], (2, 3, 4))
        self.assertEqual(interface['typestr'], '<f4')
        self.assertEqual(interface['data'], (0x7f0000001000, False))
        self.assertIsNone(interface['strides'])
        self.assertFalse(hasattr(FakeBuffer(b'1234'), '__cuda_array_interface__'))


class TestKernelCallShapes(unittest.TestCase):
    """How the kernel-call override reads grid and block shapes (the
    arguments: test_kernel_call.py; launches on a GPU: test_gpu.py)."""

    def setUp(self):
        from gi.overrides import Cugi as overrides
        self.overrides = overrides

    def test_grid_and_block_dimensions(self):
        dim3 = self.overrides._dim3
        self.assertEqual(dim3(5, 'grid'), (5, 1, 1))
        self.assertEqual(dim3((5, 6), 'grid'), (5, 6, 1))
        self.assertEqual(dim3([5, 6, 7], 'grid'), (5, 6, 7))
        for bad in ((), (1, 2, 3, 4), 1.5, ('a',), None):
            with self.assertRaises(TypeError):
                dim3(bad, 'block')


class TestFromCudaArray(unittest.TestCase):
    def test_sizes_that_wrap_around_are_refused(self):
        # (2**62, 8) float32 items are 2**67 bytes: in NumPy's int64 that
        # wrapped around to 0, a buffer of 0 bytes exporting the huge shape.
        class Huge:
            __cuda_array_interface__ = {'shape': (2**62, 8), 'typestr': '<f4',
                                        'data': (0x7f0000000000, False), 'version': 3}
        with self.assertRaisesRegex(ValueError, r'shape \(4611686018427387904, 8\) .*not the size'):
            Cugi.Buffer.from_cuda_array(Huge())


def type_name(type_info):
    interface = type_info.get_interface() if type_info.get_tag() == TypeTag.INTERFACE else None
    return interface.get_name() if interface is not None else type_info.get_tag_as_string()


def binding_signature(function):
    """What a binding makes of @function (a gi.FunctionInfo): the names of
    the arguments it takes, and the (name, type) of each value it returns:
    the return value unless void or annotated (skip), then the out
    arguments (an array's length argument is hidden: none here has one)."""
    arguments = function.get_arguments()
    inputs = [a.get_name() for a in arguments if a.get_direction() != Direction.OUT]
    outputs = []
    returned = function.get_return_type()
    if not function.skip_return() and returned.get_tag() != TypeTag.VOID:
        outputs.append(('return', type_name(returned)))
    outputs += [(a.get_name(), type_name(a.get_type()))
                for a in arguments if a.get_direction() == Direction.OUT]
    return inputs, outputs


def cugi_callables():
    for info in gi.Repository.get_default().get_infos('Cugi'):
        if isinstance(info, gi._gi.FunctionInfo):
            yield info
        elif hasattr(info, 'get_methods'):
            yield from info.get_methods()


class TestBindingShapes(unittest.TestCase):
    """Getters give bindings their values and raise on failure: Python sees
    `value` or `(a, b)`, never `(True, value)`. (GJS ignores (skip) on a
    return value, so a getter of two values returns one and has the other as
    an out argument.)"""

    def assert_signature(self, function, inputs, outputs):
        self.assertTrue(function.can_throw_gerror(), function.get_symbol())
        self.assertEqual(binding_signature(function), (inputs, outputs), function.get_symbol())

    def test_single_values_are_returned(self):
        self.assert_signature(Cugi.Kernel.get_attribute, ['attribute'], [('return', 'gint32')])
        self.assert_signature(Cugi.Context.get_limit, ['limit'], [('return', 'guint64')])
        self.assert_signature(Cugi.Context.get_cache_config, [], [('return', 'CacheConfig')])

    def test_pairs_are_returned_without_a_boolean(self):
        self.assert_signature(Cugi.Context.get_memory_info, [],
                              [('return', 'guint64'), ('total_bytes', 'guint64')])
        self.assert_signature(Cugi.Device.get_memory_info, [],
                              [('return', 'guint64'), ('total_bytes', 'guint64')])
        self.assert_signature(Cugi.Context.get_stream_priority_range, [],
                              [('return', 'gint32'), ('greatest', 'gint32')])
        self.assert_signature(Cugi.Kernel.suggest_block_size, ['dynamic_shared_memory'],
                              [('return', 'gint32'), ('min_grid_size', 'gint32')])

    def test_the_pitch_is_reported_once(self):
        # By the new buffer's pitch property, not as a second return value.
        self.assert_signature(Cugi.Buffer.new_pitched, ['context', 'width', 'height', 'element_size'],
                              [('return', 'Buffer')])
        self.assertEqual(Cugi.Buffer.find_property('pitch').value_type.name, 'guint64')

    def test_no_success_flag_beside_out_values(self):
        # A boolean that only says "no error" comes back to bindings as
        # (True, value...), in GJS even when annotated (skip).
        offenders = [function.get_symbol() for function in cugi_callables()
                     if function.can_throw_gerror() and
                     function.get_return_type().get_tag() == TypeTag.BOOLEAN and
                     any(a.get_direction() == Direction.OUT for a in function.get_arguments())]
        self.assertEqual(offenders, [])


if __name__ == '__main__':
    unittest.main(verbosity=2)
