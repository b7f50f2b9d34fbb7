#!/usr/bin/python3
"""The inverting CugiGst.Filter subclasses written in other languages than C
on a GPU: valacugiinvert (Vala, examples/gstreamer/vala/cugi-invert.vala)
and, for comparison, pycugiinvert (Python), in CUDA memory (cudaupload and
cudadownload around them) and in system memory. Every output frame is
checked byte for byte against a NumPy inversion of the same videotestsrc
frames. (GJS cannot run a CugiGst.Filter in a pipeline: docs/gstreamer.md.)
Exits 77 (skipped) without a driver or without nvcodec's CUDA elements, as
test_cugikernel_gpu.py, whose setup and helpers this test shares.
"""
import unittest

# Initializes GStreamer and cugi (or skips), registers pycugiinvert.
from test_cugikernel_gpu import SOURCE, UPLOAD, FrameChecks, invert, reference_inputs, rgba, run

ELEMENTS = ('valacugiinvert', 'pycugiinvert')


class Invert(FrameChecks):
    @classmethod
    def setUpClass(cls):
        cls.expected = [invert(frame) for frame in reference_inputs()]

    def test_cuda_memory(self):
        for element in ELEMENTS:
            with self.subTest(element=element):
                # The caps after the element keep it from handing on system
                # memory, which cudadownload would pass through.
                out = run(f'{SOURCE} ! {rgba()} ! {UPLOAD} ! {element} ! '
                          f'video/x-raw(memory:CUDAMemory) ! cudadownload ! {rgba()} ! '
                          'appsink name=out')['out']
                self.assert_frames(out, self.expected)

    def test_system_memory(self):
        for element in ELEMENTS:
            with self.subTest(element=element):
                out = run(f'{SOURCE} ! {rgba()} ! {element} ! {rgba()} ! appsink name=out')['out']
                self.assert_frames(out, self.expected)


if __name__ == '__main__':
    unittest.main(verbosity=2)
