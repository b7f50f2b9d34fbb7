# Cugi.py: PyGObject overrides for cugi.
#
# NumPy in and out of device memory (Cugi.to_device, Buffer.copy_to_host),
# the CUDA array interface for CuPy, Numba and PyTorch, `with ctx:`, and
# kernels called like functions: kernel(a, x, y, n, grid=..., block=...).
# NumPy is imported only when a NumPy feature is used.

import ctypes
import operator
import sys

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

# One pool of pinned host memory per context, through which NumPy data moves:
# a transfer from pinned memory is a single DMA at full speed, and NumPy
# fills or reads the pinned block in place (no bytes objects in between).
# Blocks are reused; Cugi.free_staging_memory() gives the idle ones back.
_staging_pools = {}


def _staging_view(context, size):
    """A pinned block of at least @size bytes from @context's pool, and a
    writable ctypes view of its first @size bytes that keeps it alive."""
    pool = _staging_pools.get(context)
    if pool is None:
        pool = Cugi.HostMemoryPool.new(context, Cugi.HostBufferFlags.NONE)
        _staging_pools[context] = pool
    host = pool.allocate(size)
    view = (ctypes.c_uint8 * size).from_address(host.get_host_address())
    view.host_buffer = host
    return host, view


def free_staging_memory():
    """Frees the pinned memory that to_device() and copy_to_host() keep for
    reuse and that no transfer is using now."""
    for pool in _staging_pools.values():
        pool.free_held()


__all__.append('free_staging_memory')


class Buffer(Cugi.Buffer):
    """Device memory. A buffer made by Cugi.to_device() remembers the NumPy
    dtype and shape it was made from: copy_to_host() returns that kind of
    array, and it exposes __cuda_array_interface__."""

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

    @property
    def __cuda_array_interface__(self):
        """The CUDA array interface (version 3) of a buffer made by
        Cugi.to_device(), so CuPy, Numba and PyTorch can use its memory
        without a copy. Work that cugi enqueued on a stream is not waited
        for: synchronize it first."""
        if self.dtype is None:
            raise AttributeError('__cuda_array_interface__: this buffer was not made by '
                                 'Cugi.to_device(), so its dtype and shape are unknown')
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


# The GType each NumPy scalar type is passed as: exactly its own width.
_NUMPY_SCALAR_GTYPES = {
    'int8': GObject.TYPE_INT, 'int16': GObject.TYPE_INT, 'int32': GObject.TYPE_INT,
    'uint8': GObject.TYPE_UINT, 'uint16': GObject.TYPE_UINT, 'uint32': GObject.TYPE_UINT,
    'int64': GObject.TYPE_INT64, 'uint64': GObject.TYPE_UINT64,
    'float32': GObject.TYPE_FLOAT, 'float64': GObject.TYPE_DOUBLE,
    'bool': GObject.TYPE_BOOLEAN,
}


def _int_gtype(value):
    """The narrowest GType that holds a plain Python int: cugi then widens it
    to what the kernel's parameter declares, and checks that it fits."""
    if -2**31 <= value < 2**31:
        return GObject.TYPE_INT
    if 0 <= value < 2**32:
        return GObject.TYPE_UINT
    if -2**63 <= value < 2**63:
        return GObject.TYPE_INT64
    if 0 <= value < 2**64:
        return GObject.TYPE_UINT64
    raise OverflowError(f'{value} does not fit a kernel parameter of 64 bits')


def _kernel_value(value, index):
    """One kernel argument as a GObject.Value for Kernel.launch_values(),
    which converts it to the parameter's own type."""
    if isinstance(value, Cugi.Buffer):
        return GObject.Value(Cugi.Buffer, value)
    if isinstance(value, GLib.Bytes):
        return GObject.Value(GLib.Bytes, value)
    if isinstance(value, bool):
        return GObject.Value(GObject.TYPE_BOOLEAN, value)
    if isinstance(value, int):
        return GObject.Value(_int_gtype(value), value)
    if isinstance(value, float):
        # A double keeps every digit; cugi narrows it for a float parameter.
        return GObject.Value(GObject.TYPE_DOUBLE, value)
    numpy = sys.modules.get('numpy')
    if numpy is not None and isinstance(value, numpy.generic):
        gtype = _NUMPY_SCALAR_GTYPES.get(value.dtype.name)
        if gtype is None:
            raise TypeError(f'kernel argument {index}: NumPy {value.dtype} scalars cannot be '
                            f'passed; use one of {", ".join(_NUMPY_SCALAR_GTYPES)}')
        return GObject.Value(gtype, value.item())
    if numpy is not None and isinstance(value, numpy.ndarray):
        raise TypeError(f'kernel argument {index}: a NumPy array lives in host memory; '
                        'pass Cugi.to_device(array) instead')
    raise TypeError(f'kernel argument {index}: a {type(value).__name__} cannot be passed to '
                    'a kernel (use a Cugi.Buffer, GLib.Bytes, int, float or NumPy scalar)')


# Launch shapes one kernel keeps configs for, before it starts afresh.
_MAX_CACHED_CONFIGS = 16


class Kernel(Cugi.Kernel):
    """A kernel can be called like a function:

        kernel(a, x, y, n, grid=blocks, block=threads, stream=None, shared_mem=0)

    grid and block are an int or a tuple of up to three ints. Arguments are
    Cugi.Buffers (passed as device pointers), GLib.Bytes (a struct by value),
    NumPy scalars (passed as their own type) and Python ints and floats
    (converted to the type the kernel declares for that parameter). The call
    returns once the launch is enqueued."""

    def __call__(self, *args, grid, block, stream=None, shared_mem=0):
        config = self._launch_config(grid, block, stream, shared_mem)
        values = [_kernel_value(value, index) for index, value in enumerate(args)]
        self.launch_values(config, values)

    def _launch_config(self, grid, block, stream, shared_mem):
        """The LaunchConfig for one shape of launch, made once: calls in a
        loop then cost the arguments alone. Kept on the kernel's wrapper, a
        few shapes at most in practice (a stream keeps its configs' entry)."""
        configs = self.__dict__.setdefault('_cugi_configs', {})
        grid = _dim3(grid, 'grid')
        block = _dim3(block, 'block')
        key = (grid, block, stream, shared_mem)
        config = configs.get(key)
        if config is None:
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


Kernel = override(Kernel)
__all__.append('Kernel')
