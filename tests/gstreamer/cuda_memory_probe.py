"""What the GStreamer tests read of GstCudaMemory that no typelib gives
Python: the CUDA stream a memory carries, a device mapping of a buffer
(GST_MAP_CUDA), and the GstCudaContext a GstContext carries. Through ctypes
and PyGObject's object layout, for the tests' own producers and probes only:
the elements themselves (cugikernel, examples/gstreamer/python) use
libcugi-gst's CugiGst.Filter and CugiGst.Frame instead.
"""
import ctypes

import gi
gi.require_version('Gst', '1.0')
gi.require_version('GstCuda', '1.0')
from gi.repository import GLib, Gst, GstCuda  # noqa: E402

Gst.init(None)

# GST_MAP_CUDA from gst/cuda/gstcudamemory.h: map for device access.
MAP_CUDA = Gst.MapFlags.FLAG_LAST << 1


CONTEXT_TYPE = 'gst.cuda.context'


class _MapInfo(ctypes.Structure):
    """GstMapInfo, as gst/gstmemory.h lays it out."""
    _fields_ = [('memory', ctypes.c_void_p), ('flags', ctypes.c_int),
                ('data', ctypes.c_void_p), ('size', ctypes.c_size_t),
                ('maxsize', ctypes.c_size_t), ('user_data', ctypes.c_void_p * 4),
                ('_gst_reserved', ctypes.c_void_p * 4)]


_gst = ctypes.CDLL('libgstreamer-1.0.so.0')
_gst.gst_buffer_map.argtypes = (ctypes.c_void_p, ctypes.POINTER(_MapInfo), ctypes.c_int)
_gst.gst_buffer_map.restype = ctypes.c_int
_gst.gst_buffer_unmap.argtypes = (ctypes.c_void_p, ctypes.POINTER(_MapInfo))

# GStreamer 1.24 and later: the stream a GstCudaMemory carries.
_gstcuda = ctypes.CDLL('libgstcuda-1.0.so.0')
try:
    _gstcuda.gst_cuda_memory_get_stream.argtypes = (ctypes.c_void_p,)
    _gstcuda.gst_cuda_memory_get_stream.restype = ctypes.c_void_p
    _gstcuda.gst_cuda_stream_get_handle.argtypes = (ctypes.c_void_p,)
    _gstcuda.gst_cuda_stream_get_handle.restype = ctypes.c_void_p
    HAVE_CUDA_STREAMS = True
except AttributeError:   # GStreamer 1.22
    HAVE_CUDA_STREAMS = False


def _boxed_pointer(boxed):
    # A Gst.Buffer or Gst.Memory is a PyGObject boxed wrapper: the C pointer
    # follows the Python object header (pygobject's PyGBoxed).
    return ctypes.c_void_p.from_address(id(boxed) + object.__basicsize__).value


def reference_count(gobject):
    """The reference count of the GObject behind the PyGObject wrapper
    @gobject (GObject's ref_count follows its GTypeInstance's class
    pointer): for tests of what an element still holds after it stopped."""
    ctypes.pythonapi.PyCapsule_GetPointer.restype = ctypes.c_void_p
    ctypes.pythonapi.PyCapsule_GetPointer.argtypes = (ctypes.py_object, ctypes.c_char_p)
    address = ctypes.pythonapi.PyCapsule_GetPointer(gobject.__gpointer__, None)
    return ctypes.c_uint.from_address(address + ctypes.sizeof(ctypes.c_void_p)).value


def _stream_handle(memory):
    """The CUstream that the GstCudaMemory at @memory carries, 0 for none."""
    stream = _gstcuda.gst_cuda_memory_get_stream(memory) if HAVE_CUDA_STREAMS else None
    return (_gstcuda.gst_cuda_stream_get_handle(stream) or 0) if stream else 0


def cuda_stream_of(buffer):
    """The handle of the CUDA stream that the first memory of @buffer
    carries: 0 for none (system memory, or CUDA memory on the default
    stream), None where GStreamer's memory carries no streams (1.22)."""
    if not HAVE_CUDA_STREAMS:
        return None
    memory = buffer.peek_memory(0)
    return _stream_handle(_boxed_pointer(memory)) if GstCuda.is_cuda_memory(memory) else 0


class CudaMapping:
    """A GstBuffer of CUDA memory mapped for the device: .address, .size,
    and .stream, the handle of the CUDA stream the memory carries (0 for
    none)."""

    def __init__(self, buffer, flags):
        self._buffer = _boxed_pointer(buffer)
        self._info = _MapInfo()
        if not _gst.gst_buffer_map(self._buffer, ctypes.byref(self._info), int(flags | MAP_CUDA)):
            raise GLib.Error('could not map CUDA memory for the device')
        self.address, self.size = self._info.data, self._info.size
        self.stream = _stream_handle(self._info.memory)

    def unmap(self):
        _gst.gst_buffer_unmap(self._buffer, ctypes.byref(self._info))


def cuda_context_of(context):
    """The GstCuda.Context that @context carries, or None."""
    if context is None or context.get_context_type() != CONTEXT_TYPE:
        return None
    structure = context.get_structure()
    if hasattr(structure, '__enter__'):     # gst-python 1.24+ lends it through a wrapper
        with structure as lent:
            return lent.get_value(CONTEXT_TYPE)
    return structure.get_value(CONTEXT_TYPE)
