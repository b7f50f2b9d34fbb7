"""What the stand-in driver of the Python tests (fake-cuda-streams, which
CUGI_LIBCUDA names) records of kernel launches: their parameters, stream
and shape."""

import ctypes
import os


class LaunchRecorder:
    """The parameters of the stand-in's last launch, at their offsets
    (packed unless the module gives alignments): recorded from the moment
    this is made."""

    def __init__(self):
        driver = ctypes.CDLL(os.environ['CUGI_LIBCUDA'])
        self._last_params = driver.fake_cuda_streams_last_params
        self._last_params.restype = ctypes.c_size_t
        self._last_params.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
        self._last_params(ctypes.create_string_buffer(1), 1)  # starts the recording
        self._last_launch = driver.fake_cuda_streams_last_launch
        self._last_launch.restype = ctypes.c_void_p
        self._last_launch.argtypes = [ctypes.c_uint * 7]

    def last_params(self, capacity=256):
        out = ctypes.create_string_buffer(capacity)
        size = self._last_params(out, len(out))
        return out.raw[:size]

    def last_launch(self):
        """The stream (its handle) and the grid, block and shared memory of
        the last launch."""
        shape = (ctypes.c_uint * 7)()
        stream = self._last_launch(shape)
        return stream or 0, tuple(shape)


class GraphicsStandIn:
    """The GL objects, counts and semaphores of the stand-in's graphics part
    (fake-cuda-graphics.c): GL buffers and images made as GL would, read
    back as GL would, and the other side of external semaphores."""

    def __init__(self):
        driver = ctypes.CDLL(os.environ['CUGI_LIBCUDA'])
        self._driver = driver
        driver.fake_cuda_graphics_gl_buffer_new.restype = ctypes.c_uint
        driver.fake_cuda_graphics_gl_buffer_new.argtypes = [ctypes.c_size_t]
        driver.fake_cuda_graphics_gl_image_new.restype = ctypes.c_uint
        driver.fake_cuda_graphics_gl_image_new.argtypes = [ctypes.c_uint, ctypes.c_uint, ctypes.c_uint,
                                                           ctypes.c_size_t, ctypes.c_size_t, ctypes.c_int,
                                                           ctypes.c_uint]
        driver.fake_cuda_graphics_gl_delete.argtypes = [ctypes.c_uint]
        driver.fake_cuda_graphics_gl_buffer_data.restype = ctypes.c_void_p
        driver.fake_cuda_graphics_gl_buffer_data.argtypes = [ctypes.c_uint, ctypes.POINTER(ctypes.c_size_t)]
        driver.fake_cuda_graphics_gl_image_read.argtypes = [ctypes.c_uint, ctypes.c_uint, ctypes.c_uint,
                                                            ctypes.c_void_p, ctypes.c_size_t, ctypes.c_size_t]
        driver.fake_cuda_graphics_egl_image.restype = ctypes.c_void_p
        driver.fake_cuda_graphics_egl_image.argtypes = [ctypes.c_uint]
        driver.fake_cuda_graphics_get_counts.argtypes = [ctypes.POINTER(ctypes.c_int)] * 5
        driver.fake_cuda_graphics_semaphore_signal.argtypes = [ctypes.c_int, ctypes.c_ulonglong]
        driver.fake_cuda_graphics_semaphore_value.restype = ctypes.c_ulonglong
        driver.fake_cuda_graphics_semaphore_value.argtypes = [ctypes.c_int]

    def gl_buffer(self, size):
        return self._driver.fake_cuda_graphics_gl_buffer_new(size)

    def gl_image(self, target, width, height, array_format, channels, layers=1, levels=1):
        return self._driver.fake_cuda_graphics_gl_image_new(target, layers, levels, width, height,
                                                            int(array_format), channels)

    def gl_delete(self, name):
        self._driver.fake_cuda_graphics_gl_delete(name)

    def gl_buffer_data(self, name):
        size = ctypes.c_size_t()
        address = self._driver.fake_cuda_graphics_gl_buffer_data(name, ctypes.byref(size))
        return ctypes.string_at(address, size.value)

    def gl_image_read(self, name, row_bytes, rows, layer=0, level=0):
        out = ctypes.create_string_buffer(row_bytes * rows)
        if self._driver.fake_cuda_graphics_gl_image_read(name, layer, level, out, row_bytes, rows) != 0:
            raise RuntimeError('the stand-in could not read the image')
        return out.raw

    def egl_image(self, name):
        return self._driver.fake_cuda_graphics_egl_image(name)

    def counts(self):
        """Registered resources, mapped ones, imported memories, mipmapped
        arrays and semaphores alive now."""
        values = [ctypes.c_int() for _ in range(5)]
        self._driver.fake_cuda_graphics_get_counts(*[ctypes.byref(v) for v in values])
        return tuple(v.value for v in values)

    def semaphore_signal(self, fd, value=0):
        self._driver.fake_cuda_graphics_semaphore_signal(fd, value)

    def semaphore_value(self, fd):
        return self._driver.fake_cuda_graphics_semaphore_value(fd)
