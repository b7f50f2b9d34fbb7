#!/usr/bin/python3
"""cugikernel on GL memory without a GPU: under Xvfb, GstGL's context is
Mesa's, which the stand-in driver (as CUDA where GL is not on its device)
will not register a texture of. glupload ! cugikernel ! gldownload then
negotiates GL memory on both of the element's pads and fails with an
element error carrying cugi's message, never a crash or a critical, and
the process goes on: the next pipeline, in system memory, runs to its end.
Frames on GL memory are checked on a GPU (test_cugikernel_gl_gpu.py).

Run by meson (gstreamer-gl-cpu) on the stand-in driver; without a display
it runs itself again under xvfb-run. Exits 77 without either, without
GStreamer's GL plugin, or where GstGL makes no context (no GL under Xvfb).
"""
import atexit
import os
import shutil
import sys
import tempfile
import unittest

from stand_in_gst import INVERT_SOURCE, use_own_registry

if 'DISPLAY' not in os.environ:
    xvfb_run = shutil.which('xvfb-run')
    if xvfb_run is None:
        print('SKIP: no display and no xvfb-run')
        sys.exit(77)
    os.execv(xvfb_run, [xvfb_run, '-a', sys.executable] + sys.argv)

_scratch = tempfile.mkdtemp(prefix='cugi-gst-gl-')
atexit.register(shutil.rmtree, _scratch, True)
use_own_registry(_scratch, ('libgstcoreelements.so', 'libgstvideotestsrc.so', 'libgstopengl.so'))
os.environ['CUGI_CACHE_DIR'] = os.path.join(_scratch, 'cache')

import gi  # noqa: E402
gi.require_version('Gst', '1.0')
from gi.repository import Gst  # noqa: E402

Gst.init(None)

CAPS = 'video/x-raw,format=RGBA,width=64,height=48'
GL = 'memory:GLMemory'


def run(description):
    """Runs a pipeline to its end; returns the error message or None, and
    the memory cugikernel's pads negotiated (sink, src)."""
    pipeline = Gst.parse_launch(description)
    element = pipeline.get_by_name('k')
    element.set_property('source', INVERT_SOURCE)
    element.set_property('kernel-name', 'invert')
    pipeline.set_state(Gst.State.PLAYING)
    message = pipeline.get_bus().timed_pop_filtered(60 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    caps = [element.get_static_pad(pad).get_current_caps() for pad in ('sink', 'src')]
    pipeline.set_state(Gst.State.NULL)
    assert message is not None, 'the pipeline neither ended nor failed'
    memory = tuple(c is not None and c.get_features(0).contains(GL) for c in caps)
    if message.type == Gst.MessageType.ERROR:
        error, debug = message.parse_error()
        return (message.src.get_name(), error.message, debug), memory
    return None, memory


class GlMemory(unittest.TestCase):
    def test_texture_cuda_refuses_is_an_element_error(self):
        error, memory = run(f'videotestsrc num-buffers=3 ! {CAPS} ! glupload ! video/x-raw({GL}) ! '
                            f'cugikernel name=k ! video/x-raw({GL}) ! gldownload ! fakesink')
        self.assertEqual(memory, (True, True))
        self.assertIsNotNone(error, 'the stand-in registered a texture of Mesa\'s')
        source, text, debug = error
        self.assertEqual(source, 'k')
        self.assertIn('CUDA did not take the GL texture of plane 0', text)
        self.assertIn('cuGraphicsGLRegisterImage', text)
        self.assertIn('transform_frame', debug)
        # The process goes on: system memory through the same element kind.
        error, memory = run(f'videotestsrc num-buffers=3 ! {CAPS} ! cugikernel name=k ! {CAPS} ! fakesink')
        self.assertIsNone(error)
        self.assertEqual(memory, (False, False))


if __name__ == '__main__':
    for name in ('glupload', 'gldownload'):
        if Gst.ElementFactory.find(name) is None:
            print(f"SKIP: no {name} (GStreamer's GL plugin, gstreamer1.0-gl)")
            sys.exit(77)
    probe = Gst.parse_launch(f'videotestsrc num-buffers=1 ! {CAPS} ! glupload ! gldownload ! fakesink')
    probe.set_state(Gst.State.PLAYING)
    ended = probe.get_bus().timed_pop_filtered(30 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    probe.set_state(Gst.State.NULL)
    if ended is None or ended.type != Gst.MessageType.EOS:
        print('SKIP: GstGL makes no GL context here')
        sys.exit(77)
    unittest.main(verbosity=2)
