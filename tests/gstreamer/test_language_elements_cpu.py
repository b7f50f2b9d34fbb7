#!/usr/bin/python3
"""The CugiGst.Filter subclass written in Vala (valacugiinvert,
examples/gstreamer/vala/cugi-invert.vala) without a GPU, on the stand-in
driver and NVRTC of test_cugikernel_streams_cpu.py, whose setup (a registry
of its own, GStreamer's CUDA library on the stand-in) and pipeline helpers
this test shares: the element registers with its formats, inverts frames in
CUDA memory and in system memory with one kernel launch each, and reports
what cugi says of a kernel that does not compile or takes other arguments
as an element error.

Run by meson (gstreamer-languages-cpu), whose environment names the
stand-ins.
"""
import os
import subprocess
import unittest

# Sets the registry and the stand-ins up, and initializes GStreamer.
from test_cugikernel_streams_cpu import CUDA_CAPS, FRAMES, OPS, SYSTEM_CAPS, StandInPipeline

from gi.repository import Gst  # noqa: E402

# The kernel for the stand-in NVRTC (see test_cugikernel_streams_cpu.py):
# the element's signature, two pointers and four ints. Without double
# quotes, for gst_parse_launch().
SOURCE = '//! invert 8 4 8 4 4 4'


class ValaElement(StandInPipeline):

    def start_vala(self, source=SOURCE, in_caps=CUDA_CAPS):
        # In the description: the element compiles its kernel as soon as
        # appsrc sends the caps, when the pipeline starts.
        self.start(f'valacugiinvert name=v source="{source}"', in_caps)

    def assert_element_error(self, text):
        """Pushes a frame and expects an error of the element, from cugi,
        whose message contains @text."""
        self.push(None)
        message = self.pipeline.get_bus().timed_pop_filtered(5 * Gst.SECOND, Gst.MessageType.ERROR)
        self.assertIsNotNone(message, 'no error message')
        error, _debug = message.parse_error()
        self.assertEqual(message.src.get_name(), 'v')
        self.assertIn(text, error.message)
        self.assertTrue(error.matches(Gst.LibraryError.quark(), Gst.LibraryError.FAILED), error)

    def test_inspect_lists_the_formats(self):
        result = subprocess.run(['gst-inspect-1.0', 'valacugiinvert'], capture_output=True, text=True,
                                check=True, env=os.environ)
        self.assertIn('cugi invert (Vala)', result.stdout)
        self.assertIn('libgstcugivala.so', result.stdout)
        for feature in ('video/x-raw(memory:CUDAMemory)', 'video/x-raw(memory:GLMemory)', 'video/x-raw\n'):
            self.assertEqual(result.stdout.count(feature), 2, result.stdout)   # sink and src
        self.assertEqual(result.stdout.count('format: { (string)RGBA, (string)BGRA }'), 6, result.stdout)

    def run_to_eos(self, pool=None):
        """Runs FRAMES frames from @pool (system memory where there is
        none), then the end of the stream; returns the kernel launches."""
        launches = self.launches(self.run_frames(pool))
        self.assertEqual(self.source.emit('end-of-stream'), Gst.FlowReturn.OK)
        message = self.pipeline.get_bus().timed_pop_filtered(
            5 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
        if message.type == Gst.MessageType.ERROR:
            self.fail_with_error(message)
        return launches

    def test_cuda_memory(self):
        self.start_vala()
        launches = self.run_to_eos(self.new_pool(CUDA_CAPS))
        self.assertEqual(launches, launches[:1] * FRAMES)

    def test_system_memory(self):
        self.start_vala(in_caps=SYSTEM_CAPS)
        launches = self.run_to_eos()
        self.assertEqual(launches, launches[:1] * FRAMES)

    def test_source_that_does_not_compile(self):
        OPS.clear()
        self.start_vala(source='__global__ void invert () {}', in_caps=SYSTEM_CAPS)
        self.assert_element_error('no "//! " line')
        self.assertFalse(self.launches(OPS.read()))

    def test_kernel_with_other_parameters(self):
        OPS.clear()
        self.start_vala(source='//! invert 8 4 8 4 4', in_caps=SYSTEM_CAPS)
        self.assert_element_error('Kernel “invert” takes 5 parameters, but 6 arguments were given')
        self.assertFalse(self.launches(OPS.read()))


if __name__ == '__main__':
    unittest.main(verbosity=2)
