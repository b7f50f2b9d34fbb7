# Cugi.py: PyGObject overrides for cugi.
#
# NumPy in and out of device memory (Cugi.to_device, Buffer.copy_to_host),
# the CUDA array interface for CuPy, Numba and PyTorch, `with ctx:`, and
# kernels called like functions: kernel(a, x, y, n, grid=..., block=...).
# NumPy is imported only when a NumPy feature is used.

import contextlib
import ctypes
import gc
import operator
import sys
import threading

from gi.repository import GLib, GObject

from ..module import get_introspection_module
from ..overrides import override

import _cugi

Cugi = get_introspection_module('Cugi')

__all__ = []


def _numpy():
    import numpy
    return numpy


def _python_api(name, restype, *argtypes):
    """A function of Python's C API, as an object of our own (not
    ctypes.pythonapi's, whose argtypes other code may set)."""
    return ctypes.PYFUNCTYPE(restype, *argtypes)((name, ctypes.pythonapi))


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

def _host_view(host, size):
    """A writable ctypes view of the first @size bytes of @host, a
    Cugi.HostBuffer, that keeps it alive (as view.host_buffer)."""
    view = (ctypes.c_uint8 * size).from_address(host.get_host_address())
    view.host_buffer = host
    return view


def _check_contiguous(shape, strides, itemsize):
    """ValueError unless @strides (in bytes; None: C order) are those of a
    C-contiguous array of @shape."""
    if strides is None:
        return
    expected = itemsize
    for length, stride in reversed(list(zip(shape, strides))):
        if length > 1 and stride != expected:
            raise ValueError(f'the array is not C-contiguous (strides {tuple(strides)}); '
                             'make a contiguous copy first')
        expected *= length


# ---- host memory by its address -------------------------------------------------

# Python's memory (NumPy arrays, bytes, any buffer-protocol object) goes to and
# from the device by its address (the typelib's *_from_address and
# *_to_address methods): the library copies pageable memory through pinned
# staging with several threads, and pinned memory in one DMA, with nothing
# converted or copied in Python. Those take no stream, so a transfer on the
# stream of `with stream:` goes through a pinned block borrowed from the pool
# through which cugi stages its own transfers (Cugi.HostBuffer.new_staging:
# one per device, of portable memory in the device's primary context, so
# that every context of the device copies through it), filled or read with
# one memmove; Cugi.free_staging_memory() gives the idle blocks back.

# Python's Py_buffer (Include/pybuffer.h). Taking a buffer export through the
# C API gives the address of any buffer-protocol object's memory, read-only
# ones (bytes) included, which ctypes' from_buffer() refuses.
class _PyBuffer(ctypes.Structure):
    _fields_ = [('buf', ctypes.c_void_p), ('obj', ctypes.c_void_p), ('len', ctypes.c_ssize_t),
                ('itemsize', ctypes.c_ssize_t), ('readonly', ctypes.c_int), ('ndim', ctypes.c_int),
                ('format', ctypes.c_char_p), ('shape', ctypes.c_void_p),
                ('strides', ctypes.c_void_p), ('suboffsets', ctypes.c_void_p),
                ('internal', ctypes.c_void_p)]


_PYBUF_SIMPLE = 0
_PYBUF_WRITABLE = 0x0001
_get_buffer = _python_api('PyObject_GetBuffer', ctypes.c_int, ctypes.py_object,
                          ctypes.POINTER(_PyBuffer), ctypes.c_int)
_release_buffer = _python_api('PyBuffer_Release', None, ctypes.POINTER(_PyBuffer))


class _HostMemory:
    """The memory of a C-contiguous buffer-protocol object, at .address for
    .size bytes, held by a buffer export until release() (or the end of a
    `with` block): meanwhile the object stays alive and its memory in place
    (a bytearray cannot be resized, an mmap cannot be closed), so that cugi
    can read or write it by its address."""

    def __init__(self, view, writable):
        self._view = view
        self._export = _PyBuffer()
        _get_buffer(view, ctypes.byref(self._export),
                    _PYBUF_WRITABLE if writable else _PYBUF_SIMPLE)
        self.address = self._export.buf or 0
        self.size = self._export.len

    def release(self):
        if self._view is not None:
            _release_buffer(ctypes.byref(self._export))
            self._view.release()
            self._view = None

    # Also when dropped unreleased (an exception on the way): else the export
    # would keep the object for good.
    __del__ = release

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        self.release()
        return False


def _host_memory(obj, writable=False):
    """A _HostMemory of @obj, or None where @obj has no buffer protocol (a
    list of ints, a GLib.Bytes). Raises ValueError where the memory is not
    C-contiguous, and TypeError where @writable and it is read-only."""
    try:
        view = memoryview(obj)
    except TypeError:
        return None
    except ValueError:
        # A NumPy dtype that the buffer protocol has no format for
        # (datetime64): its bytes.
        numpy = sys.modules.get('numpy')
        if numpy is None or not isinstance(obj, numpy.ndarray) or not obj.flags.c_contiguous:
            raise
        view = memoryview(obj.reshape(-1).view(numpy.uint8))
    if not view.c_contiguous:
        view.release()
        raise ValueError(f'the {type(obj).__name__} is not C-contiguous memory; make a '
                         'contiguous copy first (numpy.ascontiguousarray(), bytes())')
    if writable and view.readonly:
        view.release()
        raise TypeError(f'a {type(obj).__name__} is read-only; give writable memory '
                        '(a NumPy array, a bytearray)')
    return _HostMemory(view, writable)


def _by_address(fallback, address_method, data_at, doc):
    """A method that does what @fallback, a method of the typelib, does with
    its data argument (at @data_at in the arguments after self), but sends a
    buffer-protocol object by its address and size, through the method named
    @address_method, at memory speed: PyGObject would convert it element by
    element into a C array. Other data (a list of ints) goes to @fallback."""

    def method(self, *args):
        memory = _host_memory(args[data_at]) if len(args) > data_at else None
        if memory is None:
            return fallback(self, *args)
        with memory:
            return getattr(self, address_method)(*args[:data_at], memory.address, memory.size,
                                                 *args[data_at + 1:])

    method.__name__ = fallback.__name__
    method.__doc__ = doc
    return method


# ---- registered host memory ------------------------------------------------

class HostBuffer(Cugi.HostBuffer):
    """Pinned host memory."""

    @classmethod
    def register(cls, obj, flags=Cugi.HostBufferFlags.NONE, context=None):
        """Pins the memory of @obj, any writable, C-contiguous object with the
        buffer protocol (a NumPy array, a bytearray, an mmap), without a copy,
        and returns it as a HostBuffer: copies from and to it then run
        asynchronously on streams (Buffer.upload_from_host(),
        Buffer.download_to_host()). @flags may be PORTABLE and MAPPED (the
        device-map flag: the device reaches the memory at
        props.device_pointer). The host buffer keeps @obj alive, and its
        memory in place (a bytearray cannot be resized), until it is freed
        or finalized; the registration ends then
        (Cugi.HostBuffer.new_registered_address() underneath)."""
        view = memoryview(obj)
        if view.readonly:
            raise TypeError('Cugi.HostBuffer.register() needs writable memory; '
                            'for immutable data, use Cugi.HostBuffer.new_registered_bytes()')
        if not view.c_contiguous:
            raise ValueError('Cugi.HostBuffer.register() needs C-contiguous memory')
        size = view.nbytes
        # A ctypes array over the memory holds the buffer export, which keeps
        # @obj alive and unmoved; its address is the memory's.
        pinned = (ctypes.c_uint8 * size).from_buffer(view.cast('B')) if size else None
        address = ctypes.addressof(pinned) if size else 0
        host = Cugi.HostBuffer.new_registered_address(context, address, size, flags)
        # Kept on the Python wrapper, which PyGObject keeps as long as the
        # host buffer itself.
        host._cugi_registered = pinned
        return host

    write = _by_address(
        Cugi.HostBuffer.write, 'write_from_address', 1,
        """write(offset, data): copies @data into the host memory at
        @offset. @data is any C-contiguous object with the buffer protocol
        (a NumPy array of any dtype, bytes, a bytearray, a memoryview or a
        slice of one, an array.array, an mmap), read by its address
        (HostBuffer.write_from_address()) at memory speed, or a list of
        ints. ValueError for memory that is not contiguous.""")


HostBuffer = override(HostBuffer)
__all__.append('HostBuffer')


def _release_after_stream(buffer, stream, memory):
    """Releases @memory, the source of an asynchronous upload into @buffer
    that failed, once the work enqueued so far on @stream (None: on any
    stream of the buffer's context) has run: a cancelled upload completes at
    once, while the copy it enqueued may still read the memory."""
    waiter = stream if stream is not None else buffer.props.context
    waiter.synchronize_async(None, lambda source, result: memory.release())


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

    def download_into(self, destination, offset=0):
        """Fills @destination, any writable, C-contiguous object with the
        buffer protocol (a NumPy array of any dtype, a bytearray, a
        memoryview or a slice of one, an array.array, a writable mmap),
        with as many bytes of the buffer, from @offset, and returns it:
        straight into its memory (Buffer.download_to_address()). Waits for
        the work enqueued before on the context's default stream, or runs
        on the stream of `with stream:` and waits for it. ValueError for
        memory that is not contiguous, TypeError for read-only memory,
        GLib.Error for a range beyond the buffer."""
        self._download_into(destination, offset=offset)
        return destination

    def _download_into(self, destination, stream=None, offset=0):
        """download_into(), on @stream if given."""
        memory = _host_memory(destination, writable=True)
        if memory is None:
            raise TypeError(f'a {type(destination).__name__} has no buffer protocol: download '
                            'into a NumPy array, a bytearray or other writable memory')
        stream = stream or _scoped_stream()
        with memory:
            if stream is None or not memory.size:
                self.download_to_address(offset, memory.address, memory.size)
                return
            host = Cugi.HostBuffer.new_staging(self.props.context, memory.size)
            self.download_to_host(offset, host, 0, memory.size, stream)
            stream.synchronize()
            ctypes.memmove(memory.address, host.get_host_address(), memory.size)

    def _upload_from(self, source):
        """Uploads @source, a C-contiguous NumPy array of the buffer's size,
        at once, or on the scoped stream of `with stream:` and waits for it."""
        stream = _scoped_stream()
        with _host_memory(source) as memory:
            if stream is None or not memory.size:
                self.upload_from_address(0, memory.address, memory.size)
                return
            host = Cugi.HostBuffer.new_staging(self.props.context, memory.size)
            ctypes.memmove(host.get_host_address(), memory.address, memory.size)
            self.upload_from_host(0, host, 0, memory.size, stream)
            stream.synchronize()

    upload = _by_address(
        Cugi.Buffer.upload, 'upload_from_address', 1,
        """upload(offset, data): writes @data at @offset, done when this
        returns. @data is any C-contiguous object with the buffer protocol
        (a NumPy array of any dtype, bytes, a bytearray, a memoryview or a
        slice of one, an array.array, an mmap), sent by its address
        (Buffer.upload_from_address()) at memory speed, or a list of ints.
        ValueError for memory that is not contiguous.""")

    upload_2d = _by_address(
        Cugi.Buffer.upload_2d, 'upload_2d_from_address', 2,
        """upload_2d(offset, pitch, data, width, height): writes @height
        packed rows of @width bytes from @data, @pitch bytes apart, from
        @offset. @data as for upload(), sent by its address
        (Buffer.upload_2d_from_address()).""")

    upload_3d = _by_address(
        Cugi.Buffer.upload_3d, 'upload_3d_from_address', 3,
        """upload_3d(offset, pitch, slice_height, data, width, height,
        depth): writes a packed box of @data (@depth slices of @height rows
        of @width bytes) from @offset. @data as for upload(), sent by its
        address (Buffer.upload_3d_from_address()).""")

    def upload_bytes_async(self, offset, data, stream=None, cancellable=None, callback=None,
                           *user_data):
        """Enqueues an upload of @data at @offset on @stream (None: the
        default stream) and returns at once; callback(buffer, result,
        *user_data) runs in the thread-default main context once the data
        is on the device, and upload_bytes_finish(result) (or
        upload_finish()) then returns True or raises the GLib.Error. @data is
        a GLib.Bytes or any C-contiguous object with the buffer protocol,
        sent from its own memory by its address
        (Buffer.upload_from_address_async()): it is kept, and must not be
        changed, until the callback has run; the caller may drop it at
        once. Also Buffer.upload_async()."""
        memory = _host_memory(data)
        if memory is None:
            return Cugi.Buffer.upload_bytes_async(self, offset, data, stream, cancellable,
                                                  callback, *user_data)

        def done(buffer, result):
            try:
                buffer.upload_from_address_finish(result)
                result._cugi_upload_error = None
                memory.release()
            except GLib.Error as error:
                result._cugi_upload_error = error
                _release_after_stream(buffer, stream, memory)
            if callback is not None:
                callback(buffer, result, *user_data)

        try:
            self.upload_from_address_async(offset, memory.address, memory.size, stream,
                                           cancellable, done)
        except BaseException:
            memory.release()
            raise

    def upload_bytes_finish(self, result):
        """Finishes upload_bytes_async() (and upload_async()): True, or
        raises its GLib.Error."""
        try:
            error = result._cugi_upload_error
        except AttributeError:  # the typelib's own, for a GLib.Bytes
            return Cugi.Buffer.upload_bytes_finish(self, result)
        if error is not None:
            raise error
        return True

    upload_async = upload_bytes_async
    upload_finish = upload_bytes_finish

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
        _check_contiguous(shape, interface.get('strides'), dtype.itemsize)
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
            'data': (_usable_pointer(self), False),
            'strides': None,
            'version': 3,
        }


def _usable_pointer(buffer):
    """The device pointer of @buffer for an export, which must not hand out
    the 0 that a buffer that cannot be used any more (freed, a view of a
    freed buffer, its context reset) reads with its old shape: raises that
    buffer's GLib.Error instead, as any other use would."""
    pointer = buffer.props.device_pointer
    if pointer == 0 and buffer.props.size > 0:
        buffer.new_view(0, 0)  # raises what is wrong with the buffer
    return pointer


Buffer = override(Buffer)
__all__.append('Buffer')


class MemoryPool(Cugi.MemoryPool):
    # allocate() and take_block() are written in C (_cugi.add_methods(),
    # below Kernel): a pool serves allocations in loops, where PyGObject's
    # invoker would cost as much as the allocation.
    pass


MemoryPool = override(MemoryPool)
__all__.append('MemoryPool')

# A pool's block without a buffer (MemoryPool.take_block()), a type of
# _cugi rather than GI's boxed wrapper: the block's address and size,
# free(), a context manager, __cuda_array_interface__, and .buffer, a
# Cugi.Buffer over it made at the first use, which kernel calls pass and
# which holds the memory until its work has completed.
MemoryBlock = _cugi.MemoryBlock
__all__.append('MemoryBlock')


def to_device(array, context=None):
    """Copies a NumPy array (or anything numpy.asarray() accepts) to a new
    Cugi.Buffer in @context (None: the default context). The buffer
    remembers the array's dtype and shape; non-contiguous arrays are made
    contiguous (C order) first."""
    numpy = _numpy()
    array = numpy.ascontiguousarray(array)
    buffer = Buffer.new(_scoped_context(context), array.nbytes)
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


def _append_block(kernel, args, value):
    args.add_buffer(value.buffer)


def _append_bytes(kernel, args, value):
    args.add_bytes(value)


# For the Python types passed most, the appender, found by exact type.
_APPENDERS = {int: _append_int, float: _append_double, bool: _append_bool,
              Buffer: _append_buffer, Cugi.Buffer: _append_buffer, MemoryBlock: _append_block,
              GLib.Bytes: _append_bytes}

# The types that PyGObject turns into GValues as cugi expects them, in C: an
# int into a gint (wider ones made GValues of their own by
# Kernel.launch_values), a float into a gdouble, a bool into a gboolean,
# buffers, textures, surfaces, tensor maps and bytes as themselves.
_DIRECT_TYPES = frozenset((int, float, bool, Buffer, Cugi.Buffer, GLib.Bytes, Cugi.Texture,
                           Cugi.Surface, Cugi.TensorMap))

# NumPy scalars, by dtype name: where the parameter's size is known, the
# value is converted to it as a Python number would be; where it is not (a
# driver before CUDA 12.4), it is passed in its own width (8 and 16 bits as
# 32).
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
    if isinstance(value, Cugi.Texture):
        return args.add_texture(value)
    if isinstance(value, Cugi.Surface):
        return args.add_surface(value)
    if isinstance(value, Cugi.TensorMap):
        return args.add_tensor_map(value)
    if isinstance(value, GLib.Bytes):
        return args.add_bytes(value)
    if isinstance(value, bool):
        return _append_bool(kernel, args, value)
    if isinstance(value, int):
        return _append_int(kernel, args, int(value))
    if isinstance(value, float):
        return _append_double(kernel, args, float(value))
    if isinstance(value, _HostArgument):
        return value._pass(kernel, args)
    numpy = sys.modules.get('numpy')
    if numpy is not None and isinstance(value, numpy.generic):
        name = value.dtype.name
        if name not in _NUMPY_CONVERTED:
            raise TypeError(f'kernel argument {index}: NumPy {value.dtype} scalars cannot be '
                            f'passed; use one of {", ".join(_NUMPY_CONVERTED)}')
        sizes = kernel.get_parameter_sizes()
        if index >= len(sizes) or sizes[index] == 0:
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
# of packed values and its buffers: from the parameter kinds cugi reads in a
# C++ kernel's mangled name, and for an extern "C" kernel, whose name tells
# only the sizes, from the Python types of that first call. The plan is a
# _cugi.Plan (cugi/python/cugi-calls.c), told for each parameter what it
# takes (_TAKES_*) and for each value its struct format; its launch()
# converts a call's arguments as struct.pack() would and launches them in
# one C call, without PyGObject's invoker, whose cost is that of a launch.
# It keeps argument lists, one per thread calling at once: while a call
# passes the buffers of the list's last launch, the list is launched as it
# is, or takes the new values (Kernel.launch_update()), and no array of
# buffers is handed over. Where a parameter is smaller than 4 bytes (a
# bool, 8 and 16 bits), which an argument list holds as bytes that take no
# new values, it packs afresh every time (Kernel.launch_packed()). The
# lists hold the buffers, not their Python objects: an object the caller
# drops goes at once. Whatever the plan does not take as the rest of the
# call would (a value out of range, another type than the first call's for
# an extern "C" kernel, a struct, a wrong count, a failed launch), launch()
# returns None for, and the call goes the general way below, which
# converts as before and raises its errors.

_TAKES_BUFFER = 'p'     # a Cugi.Buffer or MemoryBlock
_TAKES_NUMBER = 'n'     # an int, float or bool (exact types: NumPy scalars go the general way)
_TAKES_INT = 'i'        # an int alone
_TAKES_REAL = 'r'       # a float, unless a whole number beyond 32 bits and within 64

# struct formats (standard sizes, host order) of the kinds C++ names tell;
# a bool's packs 0 and 1 alone.
_KIND_FORMATS = {
    Cugi.ParameterKind.BOOL: '?', Cugi.ParameterKind.INT8: 'b', Cugi.ParameterKind.UINT8: 'B',
    Cugi.ParameterKind.INT16: 'h', Cugi.ParameterKind.UINT16: 'H',
    Cugi.ParameterKind.INT32: 'i', Cugi.ParameterKind.UINT32: 'I',
    Cugi.ParameterKind.INT64: 'q', Cugi.ParameterKind.UINT64: 'Q',
    Cugi.ParameterKind.FLOAT: 'f', Cugi.ParameterKind.DOUBLE: 'd',
}
# For an extern "C" kernel, by the parameter's size: what cugi makes of a
# Python int (signed, as wide as the parameter) and float. A float for a
# parameter of unknown kind goes packed unless it is a whole number beyond
# 32 bits and within 64, which cugi refuses there (it may be meant for an
# integer).
_SIZED_INT_FORMATS = {1: 'b', 2: 'h', 4: 'i', 8: 'q'}
_SIZED_REAL_FORMATS = {4: 'f', 8: 'd'}


def _plan_launch(kernel, args):
    """The plan of @kernel for calls like this one, or None where its calls
    all go the general way."""
    kinds = kernel.get_parameter_kinds()
    sizes = kernel.get_parameter_sizes()
    if (kernel.get_num_params() != len(args) or len(kinds) != len(args) or 0 in sizes
            or len(args) > _cugi.MAX_PLANNED_PARAMS):
        return None
    checks, formats = [], []
    for kind, size, value in zip(kinds, sizes, args):
        if kind == Cugi.ParameterKind.POINTER or (kind == Cugi.ParameterKind.UNKNOWN and
                                                   isinstance(value, (Cugi.Buffer, MemoryBlock))):
            checks.append(_TAKES_BUFFER)
            continue
        if kind != Cugi.ParameterKind.UNKNOWN:
            form, check = _KIND_FORMATS.get(kind), _TAKES_NUMBER
        elif type(value) is int:
            form, check = _SIZED_INT_FORMATS.get(size), _TAKES_INT
        elif type(value) is float:
            form, check = _SIZED_REAL_FORMATS.get(size), _TAKES_REAL
        else:
            form = None     # bools, NumPy scalars, bytes: their own rules
        if form is None:
            return None
        checks.append(check)
        formats.append(form)
    return _cugi.Plan(kernel, ''.join(checks), ''.join(formats))


class Kernel(Cugi.Kernel, _cugi.KernelCall):
    """A kernel can be called like a function:

        kernel(a, x, y, n, grid=blocks, block=threads, stream=None, shared_mem=0)

    grid and block are an int or a tuple of up to three ints. Arguments are
    Cugi.Buffers and MemoryBlocks (passed as device pointers), GLib.Bytes (a
    struct by value), Cugi.Textures, Cugi.Surfaces and Cugi.TensorMaps,
    NumPy scalars (passed as their own type) and Python
    ints and floats (converted to the type the kernel declares for that
    parameter). The call returns once the launch is enqueued."""

    # launch() is written in C (_cugi.add_methods(), below), rather than
    # PyGObject's invoker, whose cost is that of a launch. The call itself
    # is _cugi.KernelCall's, in C too: a call of the shape of the one
    # before (the same grid, block, stream and shared memory) goes by the
    # kernel's plan, once it has one (_new_shape()); the others, and those
    # inside `with stream:` without a stream, come here.
    _cugi_plan = None

    def _call_slowly(self, *args, grid, block, stream=None, shared_mem=0):
        if stream is None and _open_scopes:
            stream = _scoped_stream()
        try:
            shape, config, plan, configs = self._cugi_call
            same = shape == (grid, block, stream, shared_mem)
        except (AttributeError, ValueError):
            # The first call, or dimensions that do not compare (NumPy
            # arrays), which _launch_config() refuses.
            same = False
        if not same:
            config, plan = self._new_shape(args, grid, block, stream, shared_mem)
        if plan is not None and plan.launch(config, args):
            return True
        return self._call_generally(config, stream, args)

    def _call_generally(self, config, stream, args):
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
            _copy_out_host_arguments(stream)
        finally:
            # Emptied, so that it keeps no buffer alive; the launch keeps what
            # it needs.
            kernel_args.clear()
            _this_thread.spare_args = kernel_args
            _this_thread.copies_out = None

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
            elif type(value) is MemoryBlock:
                values[index] = value.buffer
            elif isinstance(value, GObject.Value) and value.g_type == GObject.TYPE_INVALID:
                raise TypeError(f'kernel argument {index} has no value (the GObject.Value is unset)')
        return Cugi.Kernel.launch_values(self, config, values)

    def _new_shape(self, args, grid, block, stream, shared_mem):
        """The config and the plan of a call of another shape than the
        previous one (or of the first call), remembered as the shape of the
        kernel's calls, in one tuple that threads replace whole, and by the
        plan, for the calls KernelCall makes."""
        state = self.__dict__.get('_cugi_call')
        if state is None:
            configs, plan = {}, _plan_launch(self, args)
            if plan is not None:
                self._cugi_plan = plan
        else:
            plan, configs = state[2:]
        config = self._launch_config(configs, grid, block, stream, shared_mem)
        self._cugi_call = ((grid, block, stream, shared_mem), config, plan, configs)
        if plan is not None:
            plan.remember(grid, block, stream, shared_mem, config)
        return config, plan

    @staticmethod
    def _launch_config(configs, grid, block, stream, shared_mem):
        """The LaunchConfig for one shape of launch, made once: calls in a
        loop then cost the arguments alone. Kept in @configs, on the
        kernel's wrapper, a few shapes at most in practice (a stream keeps
        its configs' entry), and found by the shape as the caller wrote it,
        so that a repeated call does not read its dimensions again."""
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
_cugi.add_methods(Kernel, MemoryPool)


# ---- scoped streams, devices and peer access ---------------------------------

class _Scopes(threading.local):
    """What `with stream:` made the default, per thread: a stack of
    streams, there from the thread's first look (while any block is open,
    every kernel call without a stream looks, and a getattr() default costs
    a caught AttributeError)."""

    def __init__(self):
        self.streams = []


_scopes = _Scopes()

# One entry per `with stream:` block open in any thread: while it is empty,
# as in most programs all the time, there is no scoped stream to look up,
# and a kernel call reads no thread-local state.
_open_scopes = []
_cugi.set_open_scopes(_open_scopes)


def _scoped_stream():
    """The stream of the innermost `with stream:` block of this thread, or
    None."""
    if not _open_scopes:
        return None
    streams = _scopes.streams
    return streams[-1] if streams else None


def _scoped_context(context):
    """@context, else the context of the scoped stream, else None (cugi's
    default context)."""
    if context is not None:
        return context
    stream = _scoped_stream()
    return stream.props.context if stream is not None else None


class Stream(Cugi.Stream):
    """`with stream:` makes the stream the default, in this thread, for
    kernel calls, Cugi.to_device(), copy_to_host() and download_into() made
    through these overrides in the block (Warp's ScopedStream); blocks nest.
    stream.auto_synchronize() synchronizes it at the end of a block
    (numba's)."""

    def __enter__(self):
        _open_scopes.append(None)
        _scopes.streams.append(self)
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        _scopes.streams.pop()
        _open_scopes.pop()
        return False

    @contextlib.contextmanager
    def auto_synchronize(self):
        """A context manager that waits for the stream's work when the block
        ends, also when it raises:

            with stream.auto_synchronize():
                kernel(x, n, grid=..., block=..., stream=stream)
        """
        try:
            yield self
        finally:
            self.synchronize()


Stream = override(Stream)
__all__.append('Stream')


class ScopedDevice:
    """`with Cugi.ScopedDevice('cuda:1'):` makes the primary context of that
    device the default context in this thread for the block: cugi calls
    given no context (None) use it, in C as from Python (Warp's
    ScopedDevice). The device is an alias ('cuda', 'cuda:N'), an ordinal or
    a Cugi.Device; blocks nest."""

    def __init__(self, device):
        if isinstance(device, Cugi.Device):
            self.device = device
        elif isinstance(device, str):
            self.device = Cugi.Device.get_by_alias(device)
        else:
            self.device = Cugi.Device.get(operator.index(device))
        self.context = self.device.get_primary_context()

    def __enter__(self):
        self.context.push_thread_default()
        return self.device

    def __exit__(self, exc_type, exc_value, traceback):
        self.context.pop_thread_default()
        return False


__all__.append('ScopedDevice')


def _primary_context(device):
    if isinstance(device, Cugi.Context):
        return device
    if isinstance(device, str):
        device = Cugi.Device.get_by_alias(device)
    elif not isinstance(device, Cugi.Device):
        device = Cugi.Device.get(operator.index(device))
    return device.get_primary_context()


class ScopedPeerAccess:
    """`with Cugi.ScopedPeerAccess(a, b):` lets kernels and copies of @a
    reach the memory of @b for the block (Warp's ScopedPeerAccess), where
    the devices can be peers; both are devices (or aliases, ordinals) or
    contexts (a device stands for its primary context). Access that was
    already enabled stays as it was, and is not disabled on the way out.
    Access is one-way: nest a second block for the other way."""

    def __init__(self, a, b):
        self.context = _primary_context(a)
        self.peer = _primary_context(b)
        self.enabled = False

    def __enter__(self):
        try:
            self.context.enable_peer_access(self.peer)
            self.enabled = True
        except GLib.Error as error:
            if error.code != Cugi.Error.PEER_ACCESS or not _peer_access_is_enabled(error):
                raise
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        if self.enabled:
            self.enabled = False
            self.context.disable_peer_access(self.peer)
        return False


def _peer_access_is_enabled(error):
    """Whether a CUGI_ERROR_PEER_ACCESS error says that access was enabled
    already (CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED, which cugi names)."""
    return 'ALREADY_ENABLED' in error.message


__all__.append('ScopedPeerAccess')


# ---- device arrays, as numba has them ------------------------------------------

def _layout(shape, dtype):
    """(shape as a tuple of ints, NumPy dtype, size in bytes)."""
    numpy = _numpy()
    dtype = numpy.dtype(dtype)
    shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
    shape = tuple(operator.index(length) for length in shape)
    size = dtype.itemsize
    for length in shape:
        if length < 0:
            raise ValueError(f'shape {shape} has a negative length')
        size *= length
    return shape, dtype, size


def device_array(shape, dtype=float, context=None):
    """A new Cugi.Buffer of @shape and @dtype (numba's
    cuda.device_array()), not initialized, in @context (None: the scoped or
    default context). C order."""
    shape, dtype, size = _layout(shape, dtype)
    buffer = Buffer.new(_scoped_context(context), size)
    buffer._remember_layout(dtype, shape)
    return buffer


def device_array_like(array, context=None):
    """A new, uninitialized Cugi.Buffer of @array's shape and dtype (numba's
    cuda.device_array_like())."""
    return device_array(array.shape, array.dtype, context)


__all__ += ['device_array', 'device_array_like']


def _buffer_length(buffer):
    shape = buffer.shape
    if shape is None:
        return buffer.props.size
    if not shape:
        raise TypeError('a buffer of shape () has no length')
    return shape[0]


def _buffer_layout(buffer):
    """The buffer's dtype and shape, bytes in one dimension if unknown."""
    numpy = _numpy()
    if buffer.dtype is None:
        return numpy.dtype(numpy.uint8), (buffer.props.size,)
    return buffer.dtype, buffer.shape


def _buffer_getitem(self, key):
    """buffer[i:j] is a view of rows i to j (a Cugi.Buffer sharing the
    memory, as numba's device arrays slice); buffer[i] is row i of a buffer
    of two dimensions or more, and the value of item i (copied to the host)
    of one of one dimension. Only the first axis, and steps of 1."""
    dtype, shape = _buffer_layout(self)
    if isinstance(key, tuple) and len(key) == 1:
        key = key[0]
    if not shape:
        raise TypeError('a buffer of shape () cannot be indexed')
    row_size = dtype.itemsize
    for length in shape[1:]:
        row_size *= length
    if isinstance(key, slice):
        start, stop, step = key.indices(shape[0])
        if step != 1:
            raise ValueError(f'a slice with step {step} is not contiguous memory: '
                             'only steps of 1 make views of device memory')
        count = max(stop - start, 0)
        view = self.new_view(start * row_size, count * row_size)
        view._remember_layout(dtype, (count,) + shape[1:])
        return view
    try:
        index = operator.index(key)
    except TypeError:
        raise TypeError('device buffers take an int or a slice of the first axis, '
                        f'not {key!r}') from None
    if not -shape[0] <= index < shape[0]:
        raise IndexError(f'index {index} is out of range for a first axis of {shape[0]}')
    row = self[index % shape[0]:index % shape[0] + 1]
    if len(shape) == 1:
        return row.copy_to_host()[0]
    row._remember_layout(dtype, shape[1:])
    return row


def _buffer_reshape(self, *shape):
    """A view of the whole buffer in another shape (numba's and NumPy's
    reshape(), one -1 allowed), sharing the memory: nothing is copied."""
    dtype, old_shape = _buffer_layout(self)
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    shape = tuple(operator.index(length) for length in shape)
    count = self.props.size // dtype.itemsize
    known = 1
    for length in shape:
        if length != -1:
            known *= length
    if shape.count(-1) > 1 or any(length < -1 for length in shape):
        raise ValueError(f'cannot reshape to {shape}: one -1 at most, no other negative length')
    if -1 in shape and known and count % known == 0:
        shape = tuple(count // known if length == -1 else length for length in shape)
        known = count
    if known != count:
        raise ValueError(f'cannot reshape {count} {dtype} items of shape {old_shape} to {shape}')
    view = self.new_view(0, self.props.size)
    view._remember_layout(dtype, shape)
    return view


Buffer.__getitem__ = _buffer_getitem
Buffer.__len__ = _buffer_length
Buffer.reshape = _buffer_reshape


# ---- pinned and mapped host arrays ------------------------------------------------

def _host_array(host, shape, dtype):
    """A NumPy array over @host's memory, which it keeps alive (through its
    base, a ctypes view that holds the host buffer)."""
    numpy = _numpy()
    size = host.props.size
    if size == 0:
        return numpy.empty(shape, dtype)
    return numpy.frombuffer(_host_view(host, size), dtype=dtype).reshape(shape)


def pinned_array(shape, dtype=float, context=None):
    """A NumPy array in new pinned (page-locked) host memory, a
    Cugi.HostBuffer that the array keeps alive (numba's
    cuda.pinned_array(), PyCUDA's pagelocked_empty()). Copies between it and
    the device go at full speed; Cugi.host_buffer_of() finds the host
    buffer."""
    shape, dtype, size = _layout(shape, dtype)
    host = Cugi.HostBuffer.new(_scoped_context(context), size, Cugi.HostBufferFlags.NONE)
    return _host_array(host, shape, dtype)


def mapped_array(shape, dtype=float, context=None, portable=False, wc=False):
    """pinned_array(), mapped into the device's address space (numba's
    cuda.mapped_array()): kernels read and write it through
    Cugi.device_view(array). @portable pins it for every context, @wc makes
    it write-combined (fast for the host to write, slow to read)."""
    shape, dtype, size = _layout(shape, dtype)
    flags = Cugi.HostBufferFlags.MAPPED
    if portable:
        flags |= Cugi.HostBufferFlags.PORTABLE
    if wc:
        flags |= Cugi.HostBufferFlags.WRITE_COMBINED
    host = Cugi.HostBuffer.new(_scoped_context(context), size, flags)
    return _host_array(host, shape, dtype)


def host_buffer_of(array):
    """The Cugi.HostBuffer whose memory @array (made by pinned_array() or
    mapped_array(), or a view of one) is, or None."""
    base = array
    while base is not None:
        host = getattr(base, 'host_buffer', None)
        if isinstance(host, Cugi.HostBuffer):
            return host
        base = getattr(base, 'base', None)
    return None


def device_view(array):
    """A Cugi.Buffer over the device's mapping of @array, an array of
    mapped_array() (whole, as made), for kernels: the same bytes, no copy.
    It remembers the array's dtype and shape."""
    host = host_buffer_of(array)
    if host is None:
        raise ValueError('the array is not in a Cugi.HostBuffer: make it with Cugi.mapped_array()')
    if array.nbytes != host.props.size or array.ctypes.data != host.get_host_address():
        raise ValueError('device_view() takes the whole array that mapped_array() made')
    buffer = host.get_device_buffer()
    buffer._remember_layout(array.dtype, array.shape)
    return buffer


__all__ += ['pinned_array', 'mapped_array', 'host_buffer_of', 'device_view']


def _registered(array, flags, context):
    """Registers @array's memory as a Cugi.HostBuffer for a block."""
    numpy = _numpy()
    if not isinstance(array, numpy.ndarray):
        raise TypeError(f'a {type(array).__name__} is not a NumPy array')
    return HostBuffer.register(array, flags, _scoped_context(context))


@contextlib.contextmanager
def pinned(array, context=None):
    """`with Cugi.pinned(array) as host:` pins an existing NumPy array for
    the block (numba's cuda.pinned(), cuMemHostRegister): @host is a
    Cugi.HostBuffer over its memory, for fast copies. The registration
    ends with the block; the block keeps @array alive."""
    host = _registered(array, Cugi.HostBufferFlags.NONE, context)
    try:
        yield host
    finally:
        host.free()


@contextlib.contextmanager
def mapped(array, context=None):
    """`with Cugi.mapped(array) as buffer:` pins an existing NumPy array and
    maps it into the device for the block (numba's cuda.mapped()): @buffer
    is a Cugi.Buffer over the mapping, with the array's dtype and shape,
    that kernels read and write."""
    host = _registered(array, Cugi.HostBufferFlags.MAPPED, context)
    try:
        buffer = host.get_device_buffer()
        buffer._remember_layout(array.dtype, array.shape)
        yield buffer
    finally:
        host.free()


__all__ += ['pinned', 'mapped']


# ---- host arrays as kernel arguments, as PyCUDA has them -------------------------

class _HostArgument:
    """A NumPy array passed to a kernel call through device memory made for
    the call: copied in before the launch (In, InOut), and out after it
    (Out, InOut), once the launch has run."""

    copy_in = False
    copy_out = False

    def __init__(self, array):
        numpy = _numpy()
        if self.copy_out:
            if not isinstance(array, numpy.ndarray):
                raise TypeError(f'{type(self).__name__} takes a NumPy array, not a '
                                f'{type(array).__name__}')
            if not array.flags.c_contiguous or not array.flags.writeable:
                raise ValueError(f'{type(self).__name__} takes a writable, C-contiguous array')
        else:
            array = numpy.ascontiguousarray(array)
        self.array = array

    def _pass(self, kernel, args):
        context = kernel.props.module.props.context
        if self.copy_in:
            buffer = to_device(self.array, context)
        else:
            buffer = device_array(self.array.shape, self.array.dtype, context)
        args.add_buffer(buffer)
        if self.copy_out:
            if getattr(_this_thread, 'copies_out', None) is None:
                _this_thread.copies_out = []
            _this_thread.copies_out.append((self, buffer))


class In(_HostArgument):
    """kernel(Cugi.In(array), ...): @array is copied to the device before
    the launch (PyCUDA's drv.In)."""
    copy_in = True


class Out(_HostArgument):
    """kernel(Cugi.Out(array), ...): the kernel writes device memory of
    @array's size, copied into @array after the launch, when the call
    returns (PyCUDA's drv.Out)."""
    copy_out = True


class InOut(_HostArgument):
    """kernel(Cugi.InOut(array), ...): In and Out (PyCUDA's drv.InOut)."""
    copy_in = True
    copy_out = True


def _copy_out_host_arguments(stream):
    """After a launch on @stream: copies the device memory of its Out and
    InOut arguments into their arrays, once the launch has run."""
    copies = getattr(_this_thread, 'copies_out', None)
    if not copies:
        return
    _this_thread.copies_out = None
    numpy = _numpy()
    for argument, buffer in copies:
        if argument.array.nbytes:
            buffer._download_into(argument.array.reshape(-1).view(numpy.uint8), stream)


__all__ += ['In', 'Out', 'InOut']


def time_kernel(kernel, *args, grid, block, stream=None, shared_mem=0):
    """Launches kernel(*args, grid=..., ...) between two events and returns
    the milliseconds the GPU took, once the launch has run (PyCUDA's
    time_kernel=True, which gives seconds)."""
    context = kernel.props.module.props.context
    stream = stream or _scoped_stream()
    start = Cugi.Event.new(context, Cugi.EventFlags.NONE)
    end = Cugi.Event.new(context, Cugi.EventFlags.NONE)
    start.record(stream)
    kernel(*args, grid=grid, block=block, stream=stream, shared_mem=shared_mem)
    end.record(stream)
    end.synchronize()
    return start.elapsed_time(end)


__all__.append('time_kernel')


# ---- DLPack --------------------------------------------------------------------

# The structures of dlpack.h (version 1.0), to build and read the tensors
# that DLPack's capsules carry.
class _DLDevice(ctypes.Structure):
    _fields_ = [('device_type', ctypes.c_int32), ('device_id', ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [('code', ctypes.c_uint8), ('bits', ctypes.c_uint8), ('lanes', ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [('data', ctypes.c_void_p), ('device', _DLDevice), ('ndim', ctypes.c_int32),
                ('dtype', _DLDataType), ('shape', ctypes.POINTER(ctypes.c_int64)),
                ('strides', ctypes.POINTER(ctypes.c_int64)), ('byte_offset', ctypes.c_uint64)]


class _DLManagedTensor(ctypes.Structure):
    _fields_ = [('dl_tensor', _DLTensor), ('manager_ctx', ctypes.c_void_p),
                ('deleter', ctypes.c_void_p)]


class _DLPackVersion(ctypes.Structure):
    _fields_ = [('major', ctypes.c_uint32), ('minor', ctypes.c_uint32)]


class _DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [('version', _DLPackVersion), ('manager_ctx', ctypes.c_void_p),
                ('deleter', ctypes.c_void_p), ('flags', ctypes.c_uint64),
                ('dl_tensor', _DLTensor)]


_KDL_CUDA = 2
_KDL_CUDA_MANAGED = 13
_DLPACK_READ_ONLY = 1 << 0
_DLPACK_IS_COPIED = 1 << 1
# DLDataTypeCode by NumPy kind, and back.
_DLPACK_CODES = {'i': 0, 'u': 1, 'f': 2, 'c': 5, 'b': 6}
_NUMPY_KINDS = {code: kind for kind, code in _DLPACK_CODES.items()}
# Capsule names: module constants, since a capsule keeps a pointer to its name.
_DLTENSOR = b'dltensor'
_USED_DLTENSOR = b'used_dltensor'
_DLTENSOR_VERSIONED = b'dltensor_versioned'
_USED_DLTENSOR_VERSIONED = b'used_dltensor_versioned'

_DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


_capsule_new = _python_api('PyCapsule_New', ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p,
                           ctypes.c_void_p)
_capsule_is_valid = _python_api('PyCapsule_IsValid', ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p)
_capsule_get_pointer = _python_api('PyCapsule_GetPointer', ctypes.c_void_p, ctypes.c_void_p,
                                   ctypes.c_char_p)
_capsule_set_name = _python_api('PyCapsule_SetName', ctypes.c_int, ctypes.py_object, ctypes.c_char_p)

# The tensors exported and not yet deleted, by address: each with what it
# points to (its shape and strides) and the buffer it keeps alive.
_dlpack_exports = {}


@_DELETER
def _dlpack_deleter(address):
    """The deleter of cugi's tensors, called by their consumer when done,
    from any thread."""
    _dlpack_exports.pop(address, None)


# The capsules handed out and not yet seen consumed or dropped, by tensor
# address. They have no destructor: Python runs a capsule's destructor where
# its consumer drops it, and a consumer that refuses one (NumPy, given CUDA
# memory) drops it with its exception set, where a ctypes destructor cannot
# run. Instead, each export and each garbage collection look them over: a
# capsule renamed used_dltensor belongs to its consumer, which calls the
# deleter; one that only this table still holds was dropped unconsumed, and
# its tensor is deleted here.
_dlpack_unconsumed = {}


def _dlpack_sweep():
    for address in list(_dlpack_unconsumed):
        capsule = _dlpack_unconsumed[address]
        if not (_capsule_is_valid(id(capsule), _DLTENSOR) or
                _capsule_is_valid(id(capsule), _DLTENSOR_VERSIONED)):
            del _dlpack_unconsumed[address]
        elif sys.getrefcount(capsule) <= 3:  # the table, this frame, the call
            del _dlpack_unconsumed[address]
            _dlpack_exports.pop(address, None)


gc.callbacks.append(lambda phase, info: phase == 'stop' and _dlpack_sweep())


def _dlpack_device(self):
    """(kDLCUDA, ordinal), or (kDLCUDAManaged, ordinal) for managed memory:
    the DLPack device of the buffer's memory."""
    kind = _KDL_CUDA_MANAGED if self.is_managed() else _KDL_CUDA
    return kind, self.props.context.props.device.props.ordinal


def _dlpack_wait(self, consumer):
    """Makes the stream whose handle is @consumer (DLPack's numbering)
    wait for the work enqueued so far on the legacy default stream of the
    buffer's context, or on the scoped stream of `with stream:`."""
    if consumer == -1:
        return
    if consumer == 0 or not isinstance(consumer, int):
        raise ValueError(f'stream={consumer!r}: DLPack names CUDA streams by an int, 1 for the '
                         'legacy default stream, 2 for the per-thread one, never 0')
    context = self.props.context
    producer = _scoped_stream()
    if consumer == 1 and producer is None:
        return  # the same stream: in order already
    event = Cugi.Event.new(context, Cugi.EventFlags.DISABLE_TIMING)
    event.record(producer)
    Cugi.Stream.new_for_handle(context, consumer).wait_event(event)


def _dlpack_export(self, stream=None, max_version=None, dl_device=None, copy=None):
    """The buffer's memory as a DLPack capsule, without a copy unless
    @copy is True (the array API's __dlpack__). @stream is the consumer's
    stream (None: the legacy default stream, -1: no synchronization): it
    is made to wait for the buffer's work. The tensor has the buffer's dtype
    and shape (bytes in one dimension where unknown) and keeps the buffer
    alive until the consumer deletes it."""
    _usable_pointer(self)  # raises for a buffer that cannot be used
    device = self.__dlpack_device__()
    if dl_device is not None and tuple(dl_device) != device:
        raise BufferError(f'the buffer is on DLPack device {device}, not {tuple(dl_device)}; '
                          'cugi exports no copies to other devices')
    dtype, shape = _buffer_layout(self)
    code = _DLPACK_CODES.get(dtype.kind)
    if code is None or dtype.fields is not None or dtype.subdtype is not None:
        raise BufferError(f'DLPack has no type for {dtype}')
    source = self
    if copy:
        source = Buffer.new(self.props.context, self.props.size)
        source.copy(0, self, 0, self.props.size, _scoped_stream())
    _dlpack_wait(self, 1 if stream is None else stream)
    versioned = max_version is not None and tuple(max_version) >= (1, 0)
    managed = _DLManagedTensorVersioned() if versioned else _DLManagedTensor()
    if versioned:
        managed.version = _DLPackVersion(1, 0)
        managed.flags = _DLPACK_IS_COPIED if copy else 0
    shape_array = (ctypes.c_int64 * max(len(shape), 1))(*shape)
    strides = [1] * len(shape)
    for i in range(len(shape) - 2, -1, -1):
        strides[i] = strides[i + 1] * shape[i + 1]
    strides_array = (ctypes.c_int64 * max(len(shape), 1))(*strides)
    tensor = managed.dl_tensor
    tensor.data = source.props.device_pointer or None
    tensor.device = _DLDevice(*device)
    tensor.ndim = len(shape)
    tensor.dtype = _DLDataType(code, dtype.itemsize * 8, 1)
    tensor.shape = ctypes.cast(shape_array, ctypes.POINTER(ctypes.c_int64))
    tensor.strides = ctypes.cast(strides_array, ctypes.POINTER(ctypes.c_int64))
    tensor.byte_offset = 0
    managed.deleter = ctypes.cast(_dlpack_deleter, ctypes.c_void_p)
    address = ctypes.addressof(managed)
    _dlpack_sweep()
    _dlpack_exports[address] = (managed, shape_array, strides_array, source)
    capsule = _capsule_new(address, _DLTENSOR_VERSIONED if versioned else _DLTENSOR, None)
    _dlpack_unconsumed[address] = capsule
    return capsule


Buffer.__dlpack__ = _dlpack_export
Buffer.__dlpack_device__ = _dlpack_device


class _DLPackOwner:
    """Holds a consumed DLPack tensor for the buffer that wraps its memory,
    and calls its deleter when the buffer is done with it."""

    def __init__(self, address, deleter):
        self.address = address
        self.deleter = deleter

    def __del__(self):
        if self.deleter:
            _DELETER(self.deleter)(self.address)


# The DLDataTypeCodes cugi takes, by name, and the bits NumPy has for each.
_DLPACK_TYPES = {0: ('int', (8, 16, 32, 64)), 1: ('uint', (8, 16, 32, 64)), 2: ('float', (16, 32, 64)),
                 5: ('complex', (64, 128)), 6: ('bool', (8,))}


def _words(numbers):
    """'1, 2 or 3'."""
    *rest, last = map(str, numbers)
    return f'{", ".join(rest)} or {last}' if rest else last


def _dlpack_layout(tensor):
    """The NumPy dtype, shape and size in bytes of a DLTensor, which must be
    C-contiguous. A field that no tensor of cugi's can have is refused with
    its name, its value and what cugi takes (BufferError)."""
    numpy = _numpy()
    code, bits, lanes = tensor.dtype.code, tensor.dtype.bits, tensor.dtype.lanes
    if code not in _DLPACK_TYPES:
        known = ', '.join(f'{known} ({name})' for known, (name, _) in _DLPACK_TYPES.items())
        raise BufferError(f'DLPack tensor: dtype.code is {code}; cugi takes {known}')
    name, sizes = _DLPACK_TYPES[code]
    if bits not in sizes:
        raise BufferError(f'DLPack tensor: dtype.bits is {bits} for type code {code} ({name}), '
                          f'which takes {_words(sizes)}')
    if lanes != 1:
        raise BufferError(f'DLPack tensor: dtype.lanes is {lanes}; cugi takes 1 (no vector types)')
    if tensor.ndim < 0:
        raise BufferError(f'DLPack tensor: ndim is {tensor.ndim}; a tensor has 0 or more dimensions')
    if tensor.ndim > 0 and not tensor.shape:
        raise BufferError(f'DLPack tensor: shape is NULL for {tensor.ndim} dimensions')
    dtype = numpy.dtype(f'{_NUMPY_KINDS[code]}{bits // 8}')
    shape = tuple(tensor.shape[i] for i in range(tensor.ndim))
    for index, length in enumerate(shape):
        if length < 0:
            raise BufferError(f'DLPack tensor: shape[{index}] is {length}; a length is 0 or more')
    if tensor.strides:
        _check_contiguous(shape, [tensor.strides[i] * dtype.itemsize for i in range(tensor.ndim)],
                          dtype.itemsize)
    size = dtype.itemsize
    for length in shape:
        size *= length
    return dtype, shape, size


def from_dlpack(obj, context=None):
    """Wraps the CUDA memory of @obj, any object with __dlpack__ (a CuPy
    array, a PyTorch CUDA tensor, a Cugi.Buffer), as a Cugi.Buffer, without
    a copy (the array API's from_dlpack). The buffer keeps the memory, and
    @obj's producer, alive until it and the work on it are done, and
    remembers the dtype and shape. The producer's work is ordered before
    work on cugi's stream (the scoped stream of `with stream:`, else the
    legacy default stream). The tensor must be C-contiguous and on a CUDA
    device: that of @context if given, else the primary context of its
    device is used."""
    try:
        device_type, device_id = obj.__dlpack_device__()
    except AttributeError:
        raise TypeError(f'a {type(obj).__name__} does not support DLPack') from None
    if device_type not in (_KDL_CUDA, _KDL_CUDA_MANAGED):
        raise BufferError(f'the {type(obj).__name__} is on DLPack device type {device_type}, '
                          'not in CUDA memory: use Cugi.to_device() to copy host memory')
    context = _scoped_context(context)
    if context is None:
        context = Cugi.Device.get(device_id).get_primary_context()
    elif context.props.device.props.ordinal != device_id:
        raise ValueError(f'the tensor is on cuda:{device_id}, the context on '
                         f'cuda:{context.props.device.props.ordinal}')
    stream = _scoped_stream()
    handle = stream.props.handle if stream is not None else 0
    try:
        capsule = obj.__dlpack__(stream=handle or 1, max_version=(1, 0))
    except TypeError:
        capsule = obj.__dlpack__(stream=handle or 1)  # a producer before DLPack 1.0
    capsule_address = id(capsule)
    if _capsule_is_valid(capsule_address, _DLTENSOR_VERSIONED):
        name, used, structure = _DLTENSOR_VERSIONED, _USED_DLTENSOR_VERSIONED, _DLManagedTensorVersioned
    elif _capsule_is_valid(capsule_address, _DLTENSOR):
        name, used, structure = _DLTENSOR, _USED_DLTENSOR, _DLManagedTensor
    else:
        raise BufferError('__dlpack__ returned no unconsumed DLPack capsule')
    address = _capsule_get_pointer(capsule_address, name)
    managed = structure.from_address(address)
    _capsule_set_name(capsule, used)
    # Consumed: from here the owner deletes the tensor, also on failure.
    owner = _DLPackOwner(address, managed.deleter)
    if structure is _DLManagedTensorVersioned:
        if managed.version.major != 1:
            raise BufferError(f'DLPack {managed.version.major}.{managed.version.minor} is not '
                              'known to cugi (1.x is)')
        if managed.flags & _DLPACK_READ_ONLY:
            raise BufferError('the tensor is read-only, and cugi buffers are writable')
    tensor = managed.dl_tensor
    dtype, shape, size = _dlpack_layout(tensor)
    buffer = Buffer.new_for_address(context, (tensor.data or 0) + tensor.byte_offset, size)
    buffer._remember_layout(dtype, shape)
    # On the wrapper, which PyGObject keeps as long as the buffer.
    buffer._cugi_owner = owner
    return buffer


__all__.append('from_dlpack')
