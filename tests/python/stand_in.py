"""What the stand-in driver of the Python tests (fake-cuda-streams, which
CUGI_LIBCUDA names) records of kernel launches."""

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

    def last_params(self, capacity=256):
        out = ctypes.create_string_buffer(capacity)
        size = self._last_params(out, len(out))
        return out.raw[:size]
