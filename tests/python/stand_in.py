"""What the stand-in driver of the Python tests (fake-cuda-streams, which
CUGI_LIBCUDA names) records of kernel launches: their parameters, stream
and shape."""

import ctypes
import os


class LaunchRecorder:
    """The parameters of the stand-in's last launch, packed by their sizes:
    recorded from the moment this is made."""

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
