# Cugi.py: PyGObject overrides for cugi.
#
# NumPy in and out of device memory (Cugi.to_device, Buffer.copy_to_host),
# the CUDA array interface for CuPy, Numba and PyTorch, `with ctx:`, and
# kernels called like functions: kernel(a, x, y, n, grid=..., block=...).
# NumPy is imported only when a NumPy feature is used.

import ctypes
import operator
import struct
import sys
import threading

from gi.repository import GLib, GObject

from ..module import get_introspection_module
from ..overrides import override

Cugi = get_introspection_module('Cugi')

__all__ = []


def _numpy():
    import numpy
    return numpy


# ---- contexts ---------------------------------------------------------------

class Context(Cugi.Context):
    """`with ctx:` makes the context current for the block (push on entry,
    pop on exit, also when the block raises)."""

    def __enter__(self):
        self.push()
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        self.pop()
        return False


Context = override(Context)
__all__.append('Context')


# ---- buffers ----------------------------------------------------------------

# ---- pinned staging -----------------------------------------------------------

# NumPy data moves through pinned host memory: a transfer from pinned memory
# is a single DMA at full speed, and NumPy fills or reads the pinned block in
# place (no bytes objects in between). The blocks are borrowed from the pool
# through which cugi stages its own transfers (Cugi.HostBuffer.new_staging):
# one per device, of portable memory in the device's primary context, so
# every context of the device copies through it and no pool keeps a context
# of the caller's alive. Blocks are reused; Cugi.free_staging_memory(), from
# the typelib, gives the idle ones back.


def _staging_view(context, size):
    """A pinned block of at least @size bytes from the staging pool of
    @context's device, and a writable ctypes view of its first @size bytes
    that keeps it alive."""
    host = Cugi.HostBuffer.new_staging(context, size)
    view = (ctypes.c_uint8 * size).from_address(host.get_host_address())
    view.host_buffer = host
    return host, view


class Buffer(Cugi.Buffer):
    """Device memory. A buffer made by Cugi.to_device() or
    Buffer.from_cuda_array() remembers the NumPy dtype and shape it was made
    from: copy_to_host() returns that kind of array, and it exposes
    __cuda_array_interface__."""

    @property
    def dtype(self):
        """The NumPy dtype given by Cugi.to_device(), or None."""
        return getattr(self, '_cugi_dtype', None)

    @property
    def shape(self):
        """The shape given by Cugi.to_device(), or None."""
        return getattr(self, '_cugi_shape', None)

    def _remember_layout(self, dtype, shape):
        # Kept on the Python wrapper, which PyGObject then keeps as long as
        # the buffer itself.
        self._cugi_dtype = dtype
        self._cugi_shape = tuple(shape)

    def copy_to_host(self, dtype=None, shape=None):
        """Downloads the whole buffer into a new NumPy array.

        dtype and shape default to those the buffer was made from by
        Cugi.to_device(), else to bytes (uint8) in one dimension. A shape that
        does not cover the buffer exactly raises ValueError."""
        numpy = _numpy()
        if dtype is None:
            dtype = self.dtype if self.dtype is not None else numpy.uint8
        dtype = numpy.dtype(dtype)
        if shape is None:
            shape = self.shape if dtype == self.dtype else (-1,)
        size = self.props.size
        if size % dtype.itemsize:
            raise ValueError(f'a buffer of {size} bytes does not hold whole {dtype} items')
        count = size // dtype.itemsize
        shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
        if -1 not in shape and int(numpy.prod(shape, dtype=numpy.int64)) != count:
            raise ValueError(f'shape {shape} does not match the {count} {dtype} items '
                             f'of a {size}-byte buffer')
        result = numpy.empty(count, dtype=dtype)
        if size:
            self._download_into(result.view(numpy.uint8))
        return result.reshape(shape)

    def _download_into(self, destination):
        """Fills @destination, a writable uint8 NumPy array of the buffer's
        size: one DMA into pinned staging memory, then one copy out of it."""
        host, view = _staging_view(self.props.context, destination.nbytes)
        self.download_to_host(0, host, 0, destination.nbytes, None)
        destination[:] = _numpy().frombuffer(view, dtype=_numpy().uint8)

    def _upload_from(self, source):
        """Uploads @source, a uint8 NumPy array of the buffer's size: one copy
        into pinned staging memory, then one DMA. Done when this returns."""
        host, view = _staging_view(self.props.context, source.nbytes)
        _numpy().frombuffer(view, dtype=_numpy().uint8)[:] = source
        self.upload_from_host(0, host, 0, source.nbytes, None)

    @classmethod
    def from_cuda_array(cls, array, context=None):
        """Wraps the device memory of @array, any object with a
        __cuda_array_interface__ (a CuPy array, a PyTorch CUDA tensor, a
        Numba device array), as a Buffer, without a copy. The buffer keeps
        @array alive, and with it the memory, as long as the buffer or any
        work enqueued on it; it remembers the dtype and shape. The array must
        be C-contiguous and on @context's device (None: the default
        context). Where the interface names a stream, the work on it is
        waited for first, as the interface asks of a consumer."""
        numpy = _numpy()
        try:
            interface = array.__cuda_array_interface__
        except AttributeError:
            raise TypeError(f'a {type(array).__name__} has no __cuda_array_interface__') from None
        address = interface['data'][0]
        dtype = numpy.dtype(interface['typestr'])
        shape = tuple(interface['shape'])
        strides = interface.get('strides')
        if strides is not None:
            expected = dtype.itemsize
            for length, stride in reversed(list(zip(shape, strides))):
                if length > 1 and stride != expected:
                    raise ValueError(f'the array is not C-contiguous (strides {tuple(strides)}); '
                                     'make a contiguous copy first')
                expected *= length
        # In Python ints: NumPy's int64 products wrap around, and a huge
        # shape would make a small buffer that exports the huge shape.
        size = dtype.itemsize
        for length in shape:
            size *= operator.index(length)
        if any(length < 0 for length in shape) or size >= 2**64:
            raise ValueError(f'shape {shape} of {dtype} items is not the size of any memory')
        stream = interface.get('stream')
        if stream is not None:
            Cugi.Stream.new_for_handle(context, stream).synchronize()
        buffer = cls.new_for_address(context, address, size)
        buffer._remember_layout(dtype, shape)
        # On the wrapper, which PyGObject keeps as long as the buffer.
        buffer._cugi_owner = array
        return buffer

    @property
    def __cuda_array_interface__(self):
        """The CUDA array interface (version 3) of a buffer made by
        Cugi.to_device() or Buffer.from_cuda_array(), so CuPy, Numba and
        PyTorch can use its memory
        without a copy. Work that cugi enqueued on a stream is not waited
        for: synchronize it first."""
        if self.dtype is None:
            raise AttributeError('__cuda_array_interface__: this buffer was not made by '
                                 'Cugi.to_device() or Buffer.from_cuda_array(), so its dtype '
                                 'and shape are unknown')
        return {
            'shape': self.shape,
            'typestr': self.dtype.str,
            'descr': self.dtype.descr,
            'data': (self.props.device_pointer, False),
            'strides': None,
            'version': 3,
        }


Buffer = override(Buffer)
__all__.append('Buffer')


def to_device(array, context=None):
    """Copies a NumPy array (or anything numpy.asarray() accepts) to a new
    Cugi.Buffer in @context (None: the default context). The buffer
    remembers the array's dtype and shape; non-contiguous arrays are made
    contiguous (C order) first."""
    numpy = _numpy()
    array = numpy.ascontiguousarray(array)
    buffer = Buffer.new(context, array.nbytes)
    if array.nbytes:
        buffer._upload_from(array.reshape(-1).view(numpy.uint8))
    buffer._remember_layout(array.dtype, array.shape)
    return buffer


__all__.append('to_device')


# ---- kernels ----------------------------------------------------------------

def _dim3(value, what):
    """An int or a tuple of up to three ints, as (x, y, z)."""
    dims = tuple(value) if isinstance(value, (tuple, list)) else (value,)
    try:
        if not 1 <= len(dims) <= 3:
            raise TypeError
        dims = tuple(operator.index(d) for d in dims)
    except TypeError:
        raise TypeError(f'{what} must be an int or a tuple of one to three ints, '
                        f'not {value!r}') from None
    return dims + (1,) * (3 - len(dims))


def _append_int(kernel, args, value):
    """A Python int, converted by cugi to the parameter's type. Where nothing
    is known of the parameter, it takes the narrowest of int32, uint32, int64
    and uint64 that holds it."""
    if -2**63 <= value < 2**31 or 2**32 <= value < 2**63:
        kernel.append_int(args, value)
    elif 0 <= value < 2**64:
        kernel.append_uint(args, value)
    else:
        raise OverflowError(f'{value} does not fit a kernel parameter of 64 bits')


def _append_bool(kernel, args, value):
    kernel.append_int(args, int(value))


def _append_double(kernel, args, value):
    # A double keeps every digit; cugi narrows it for a float parameter.
    kernel.append_double(args, value)


def _append_buffer(kernel, args, value):
    args.add_buffer(value)


def _append_bytes(kernel, args, value):
    args.add_bytes(value)


# For the Python types passed most, the appender, found by exact type.
_APPENDERS = {int: _append_int, float: _append_double, bool: _append_bool,
              Buffer: _append_buffer, Cugi.Buffer: _append_buffer, GLib.Bytes: _append_bytes}

# The types that PyGObject turns into GValues as cugi expects them, in C: an
# int into a gint (wider ones made GValues of their own by
# Kernel.launch_values), a float into a gdouble, a bool into a gboolean,
# buffers and bytes as themselves.
_DIRECT_TYPES = frozenset((int, float, bool, Buffer, Cugi.Buffer, GLib.Bytes))

# NumPy scalars, by dtype name: where the kernel's parameters are known, the
# value is converted to them as a Python number would be; where nothing is
# known of them, it is passed in its own width (8 and 16 bits as 32).
_NUMPY_CONVERTED = {
    'bool': _append_bool,
    'int8': _append_int, 'int16': _append_int, 'int32': _append_int, 'int64': _append_int,
    'uint8': _append_int, 'uint16': _append_int, 'uint32': _append_int, 'uint64': _append_int,
    'float32': lambda kernel, args, value: kernel.append_float(args, value),
    'float64': _append_double,
}
_NUMPY_OWN_WIDTH = {
    'bool': 'add_int32',
    'int8': 'add_int32', 'int16': 'add_int32', 'int32': 'add_int32', 'int64': 'add_int64',
    'uint8': 'add_uint32', 'uint16': 'add_uint32', 'uint32': 'add_uint32', 'uint64': 'add_uint64',
    'float32': 'add_float', 'float64': 'add_double',
}


def _append_other(kernel, args, value, index):
    """Any argument that _APPENDERS does not know by its exact type."""
    if isinstance(value, Cugi.Buffer):
        return args.add_buffer(value)
    if isinstance(value, GLib.Bytes):
        return args.add_bytes(value)
    if isinstance(value, bool):
        return _append_bool(kernel, args, value)
    if isinstance(value, int):
        return _append_int(kernel, args, int(value))
    if isinstance(value, float):
        return _append_double(kernel, args, float(value))
    numpy = sys.modules.get('numpy')
    if numpy is not None and isinstance(value, numpy.generic):
        name = value.dtype.name
        if name not in _NUMPY_CONVERTED:
            raise TypeError(f'kernel argument {index}: NumPy {value.dtype} scalars cannot be '
                            f'passed; use one of {", ".join(_NUMPY_CONVERTED)}')
        if kernel.get_num_params() < 0:
            return getattr(args, _NUMPY_OWN_WIDTH[name])(value.item())
        return _NUMPY_CONVERTED[name](kernel, args, value.item())
    if numpy is not None and isinstance(value, numpy.ndarray):
        raise TypeError(f'kernel argument {index}: a NumPy array lives in host memory; '
                        'pass Cugi.to_device(array) instead')
    raise TypeError(f'kernel argument {index}: a {type(value).__name__} cannot be passed to '
                    'a kernel (use a Cugi.Buffer, GLib.Bytes, int, float or NumPy scalar)')


# One argument list per thread, reused by its kernel calls.
_this_thread = threading.local()

# Launch shapes one kernel keeps configs for, before it starts afresh.
_MAX_CACHED_CONFIGS = 16


# ---- argument plans -----------------------------------------------------------
#
# A kernel learns at its first call how to turn its arguments into one block
# of packed values and one tuple of buffers (Kernel.launch_packed): from the
# parameter kinds cugi reads in a C++ kernel's mangled name, and for an
# extern "C" kernel, whose name tells only the sizes, from the Python types
# of that first call. The plan is a small function made for the kernel,
#
#     def launch(kernel, config, a0, a1, a2, a3):
#         return launch_packed(kernel, config, pack(a0, a3), (None, a1, a2, None))
#
# with pack() a struct.Struct's, so that a call costs one Python function
# and one call into C. Whatever the plan does not take as the rest of the
# call would (a value out of range, another type than the first call's for
# an extern "C" kernel, a struct, a wrong count) goes the general way below,
# which converts as before and raises its errors.

class _Unplanned(Exception):
    """An argument the plan does not take: the call goes the general way."""


# What a call refuses when its arguments do not fit the plan. A GLib.Error
# from launch_packed is among them: the general way then says what is wrong
# in its own words (nothing was launched).
_NOT_PLANNED = (_Unplanned, struct.error, TypeError, OverflowError, GLib.Error)

_NUMBERS = frozenset((int, float, bool))

# struct formats (standard sizes, host order) of the kinds C++ names tell.
_KIND_FORMATS = {
    Cugi.ParameterKind.BOOL: 'B', Cugi.ParameterKind.INT8: 'b', Cugi.ParameterKind.UINT8: 'B',
    Cugi.ParameterKind.INT16: 'h', Cugi.ParameterKind.UINT16: 'H',
    Cugi.ParameterKind.INT32: 'i', Cugi.ParameterKind.UINT32: 'I',
    Cugi.ParameterKind.INT64: 'q', Cugi.ParameterKind.UINT64: 'Q',
    Cugi.ParameterKind.FLOAT: 'f', Cugi.ParameterKind.DOUBLE: 'd',
}
# For an extern "C" kernel, by the parameter's size: what cugi makes of a
# Python int (signed, as wide as the parameter) and float.
_SIZED_INT_FORMATS = {1: 'b', 2: 'h', 4: 'i', 8: 'q'}
_SIZED_REAL_FORMATS = {4: 'f', 8: 'd'}

# A float for a parameter of unknown kind goes packed unless it is a whole
# number beyond 32 bits and within 64, which cugi refuses there (it may be
# meant for an integer): in range, not whole, NaN and infinities pass.
_REAL_CHECK = ('if type({0}) is not float or not (-2147483648.0 <= {0} <= 2147483647.0 or {0} % 1.0 != 0.0 '
               'or not -18446744073709551616.0 < {0} < 18446744073709551616.0): raise _Unplanned')


def _plan_launch(kernel, args):
    """The launcher of @kernel for calls like this one, or None where its
    calls all go the general way."""
    kinds = kernel.get_parameter_kinds()
    sizes = kernel.get_parameter_sizes()
    if kernel.get_num_params() != len(args) or len(kinds) != len(args) or 0 in sizes:
        return None
    names = [f'a{index}' for index in range(len(args))]
    formats, scalars, buffers, checks = [], [], [], []
    for name, kind, size, value in zip(names, kinds, sizes, args):
        if kind == Cugi.ParameterKind.POINTER or (kind == Cugi.ParameterKind.UNKNOWN and
                                                   isinstance(value, Cugi.Buffer)):
            buffers.append(name)
            continue
        if kind != Cugi.ParameterKind.UNKNOWN:
            # NumPy scalars go the general way, which converts them alike
            # without the warnings struct gives for some.
            form = _KIND_FORMATS.get(kind)
            checks.append(f'if type({name}) not in _NUMBERS: raise _Unplanned')
        elif type(value) is int:
            form = _SIZED_INT_FORMATS.get(size)
            checks.append(f'if type({name}) is not int: raise _Unplanned')
        elif type(value) is float:
            form = _SIZED_REAL_FORMATS.get(size)
            checks.append(_REAL_CHECK.format(name))
        else:
            form = None     # bools, NumPy scalars, bytes: their own rules
        if form is None:
            return None
        formats.append(form)
        scalars.append(name)
        buffers.append('None')
    source = f'def launch(kernel, config{"".join(", " + name for name in names)}):\n'
    source += ''.join(f'    {check}\n' for check in checks)
    source += (f'    return launch_packed(kernel, config, pack({", ".join(scalars)}), '
               f'({"".join(buffer + ", " for buffer in buffers)}))\n')
    namespace = {'launch_packed': Cugi.Kernel.launch_packed,
                 'pack': struct.Struct('=' + ''.join(formats)).pack,
                 '_Unplanned': _Unplanned, '_NUMBERS': _NUMBERS}
    exec(compile(source, f'<cugi argument plan of {kernel.get_name()}>', 'exec'), namespace)
    return namespace['launch']


class Kernel(Cugi.Kernel):
    """A kernel can be called like a function:

        kernel(a, x, y, n, grid=blocks, block=threads, stream=None, shared_mem=0)

    grid and block are an int or a tuple of up to three ints. Arguments are
    Cugi.Buffers (passed as device pointers), GLib.Bytes (a struct by value),
    NumPy scalars (passed as their own type) and Python ints and floats
    (converted to the type the kernel declares for that parameter). The call
    returns once the launch is enqueued."""

    def __call__(self, *args, grid, block, stream=None, shared_mem=0):
        try:
            config = self._cugi_configs[grid, block, stream, shared_mem]
        except (AttributeError, KeyError, TypeError):
            config = self._launch_config(grid, block, stream, shared_mem)
        try:
            launch = self._cugi_launch
        except AttributeError:
            launch = self._cugi_launch = _plan_launch(self, args)
        if launch is not None:
            try:
                return launch(self, config, *args)
            except _NOT_PLANNED:
                pass
        return self._call_generally(config, args)

    def _call_generally(self, config, args):
        """A call that the argument plan does not take: in one call to cugi
        where PyGObject makes the GValues, else one append per argument."""
        for value in args:
            if type(value) not in _DIRECT_TYPES:
                break
        else:
            return self.launch_values(config, args)
        kernel_args = getattr(_this_thread, 'spare_args', None) or Cugi.KernelArgs.new()
        _this_thread.spare_args = None
        try:
            for index, value in enumerate(args):
                append = _APPENDERS.get(type(value))
                if append is not None:
                    append(self, kernel_args, value)
                else:
                    _append_other(self, kernel_args, value, index)
            self.launch(config, kernel_args)
        finally:
            # Emptied, so that it keeps no buffer alive; the launch keeps what
            # it needs.
            kernel_args.clear()
            _this_thread.spare_args = kernel_args

    def launch_values(self, config, values):
        """Kernel.launch_values(), taking Python ints of up to 64 bits (as
        GValues of 64 bits where they need them) and refusing None and unset
        GObject.Values, which PyGObject cannot pass as GValues (it crashes in
        the attempt)."""
        values = list(values)
        for index, value in enumerate(values):
            if value is None:
                raise TypeError(f'kernel argument {index}: None cannot be passed to a kernel')
            if type(value) is int and not -2**31 <= value < 2**31:
                values[index] = _wide_int_value(value)
            elif isinstance(value, GObject.Value) and value.g_type == GObject.TYPE_INVALID:
                raise TypeError(f'kernel argument {index} has no value (the GObject.Value is unset)')
        return Cugi.Kernel.launch_values(self, config, values)

    def _launch_config(self, grid, block, stream, shared_mem):
        """The LaunchConfig for one shape of launch, made once: calls in a
        loop then cost the arguments alone. Kept on the kernel's wrapper, a
        few shapes at most in practice (a stream keeps its configs' entry),
        and found by the shape as the caller wrote it, so that a repeated
        call does not read its dimensions again."""
        configs = self.__dict__.setdefault('_cugi_configs', {})
        key = (grid, block, stream, shared_mem)
        try:
            return configs[key]
        except KeyError:
            pass
        except TypeError:
            # Unhashable (a list): by its dimensions.
            key = (_dim3(grid, 'grid'), _dim3(block, 'block'), stream, shared_mem)
            if key in configs:
                return configs[key]
        grid = _dim3(grid, 'grid')
        block = _dim3(block, 'block')
        config = Cugi.LaunchConfig.new(grid[0], block[0])
        config.set_grid(*grid)
        config.set_block(*block)
        config.set_shared_memory(shared_mem)
        if stream is not None:
            config.set_stream(stream)
        if len(configs) >= _MAX_CACHED_CONFIGS:
            configs.clear()
        configs[key] = config
        return config


def _wide_int_value(value):
    """A Python int beyond 32 bits as the GValue cugi converts as
    Kernel.append_int() and append_uint() would: a guint up to 2**32, then a
    gint64, then a guint64; OverflowError beyond 64 bits."""
    if 2**31 <= value < 2**32:
        return GObject.Value(GObject.TYPE_UINT, value)
    if -2**63 <= value < 2**63:
        return GObject.Value(GObject.TYPE_INT64, value)
    if 0 <= value < 2**64:
        return GObject.Value(GObject.TYPE_UINT64, value)
    raise OverflowError(f'{value} does not fit a kernel parameter of 64 bits')


Kernel = override(Kernel)
__all__.append('Kernel')
