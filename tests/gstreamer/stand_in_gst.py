"""GStreamer on the tests' stand-in driver (tests/gstreamer/stand-in-libcuda.c,
which libgstcuda loads as libcuda.so.1 and cugi through CUGI_LIBCUDA): a
registry of its own, and what the stand-in recorded of how work was
ordered."""

import ctypes
import os

# cugikernel's invert for the stand-in NVRTC: the kernel as the stand-in
# driver's module format has it (name, then its parameters' sizes), then
# what it stands for.
INVERT_SOURCE = ('//! invert 8 4 8 4 4 4 8\n'
                 'extern "C" __global__ void invert (const unsigned char *src, int src_stride, '
                 'unsigned char *dst, int dst_stride, int width, int height, '
                 'unsigned long long timestamp) {}\n')


def use_own_registry(scratch, plugins=()):
    """Makes GStreamer, once initialized, read its plugins from @scratch
    (with links to @plugins, file names in STAND_IN_GST_PLUGINS, GStreamer's
    plugin directory) into a registry there: nvcodec would otherwise
    register its elements on the stand-in in the registry of the other
    tests. Call it before Gst.init()."""
    for name in plugins:
        os.symlink(os.path.join(os.environ['STAND_IN_GST_PLUGINS'], name), os.path.join(scratch, name))
    os.environ['GST_PLUGIN_SYSTEM_PATH_1_0'] = scratch
    os.environ['GST_REGISTRY'] = os.path.join(scratch, 'registry.bin')


class Ops:
    """The event records, stream waits, stream synchronizations, kernel
    launches, host functions and event synchronizations that the stand-in
    recorded, in order: ('record', event, stream), ('wait', stream, event),
    ('sync', stream), ('launch', stream), ('host', stream),
    ('event-sync', event), handles as ints."""

    def __init__(self):
        self._driver = ctypes.CDLL(os.environ['CUGI_LIBCUDA'])
        self._driver.stand_in_gst_ops.restype = ctypes.c_size_t
        self._driver.stand_in_gst_ops.argtypes = (ctypes.c_char_p, ctypes.c_size_t)

    def clear(self):
        self._driver.stand_in_gst_clear_ops()

    def read(self):
        size = self._driver.stand_in_gst_ops(None, 0) + 1
        text = ctypes.create_string_buffer(size)
        self._driver.stand_in_gst_ops(text, size)
        return [(what, *(int(h, 0) for h in handles))
                for what, *handles in (line.split() for line in text.value.decode().splitlines())]


def waited_for(ops, index, stream):
    """The handle of the stream that @stream last waited for before
    ops[@index]: the one on which the event it waited for was last
    recorded, or None."""
    waits = [op[2] for op in ops[:index] if op[0] == 'wait' and op[1] == stream]
    if not waits:
        return None
    records = [op[2] for op in ops[:index] if op[0] == 'record' and op[1] == waits[-1]]
    return records[-1] if records else None
