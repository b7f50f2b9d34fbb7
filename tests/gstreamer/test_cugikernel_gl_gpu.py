#!/usr/bin/python3
"""cugikernel on GL memory (video/x-raw(memory:GLMemory)) on a GPU,
headless with EGL: glupload and gldownload around it, GL memory to and from
CUDA and system memory, two elements chained on GL memory, each format it
offers in GL memory, glimagesink after it, and the Python element on GL
memory. Every frame is checked byte for byte against the CPU
reference of test_cugikernel_gpu.py. Exits 77 (skipped) without a driver,
without nvcodec's CUDA elements (as that file does) or where GstGL makes no
context (no EGL or GLX on the machine), saying which.
"""
import sys
import unittest

import test_cugikernel_gpu as base
from test_cugikernel_gpu import Gst, FORMATS, SOURCE, invert_format, reference_inputs, run

GL = 'memory:GLMemory'
MEMORY = {'gl': f'video/x-raw({GL})', 'cuda': 'video/x-raw(memory:CUDAMemory)'}
# Those of cugikernel's formats it offers in GL memory
# (cugi/gst/cugi-gst-formats.c).
GL_FORMATS = [fmt for fmt in FORMATS if fmt not in ('P016_LE', 'Y444_16LE')]


def gl_works():
    """Why GstGL cannot move frames here, or None where it can."""
    for element in ('glupload', 'gldownload'):
        if Gst.ElementFactory.find(element) is None:
            return f'no {element} (GStreamer\'s GL plugin)'
    try:
        run(f'{SOURCE} ! {base.rgba(64, 64)} ! glupload ! gldownload ! fakesink name=out')
    except RuntimeError as error:
        return f'GstGL makes no context here: {error}'
    return None


def negotiated_memory(pipeline_description, expected):
    """Runs a pipeline; returns its frames and, for each cugikernel, the
    memory of its sink and src pads ('gl', 'cuda', 'system')."""
    kinds = []

    def setup(pipeline):
        def record(pad, info):
            features = pad.get_current_caps().get_features(0)
            kind = 'gl' if features.contains(GL) else 'cuda' if features.contains(base.CUDA) else 'system'
            kinds.append((pad.get_parent_element().get_name(), pad.get_name(), kind))
            return Gst.PadProbeReturn.REMOVE
        for index in range(expected):
            element = pipeline.get_by_name(f'k{index}')
            for pad in ('sink', 'src'):
                element.get_static_pad(pad).add_probe(Gst.PadProbeType.BUFFER, record)

    frames = run(pipeline_description, setup=setup)['out']
    by_element = {}
    for name, pad, kind in kinds:
        by_element.setdefault(name, {})[pad] = kind
    return frames, [(by_element[f'k{i}']['sink'], by_element[f'k{i}']['src']) for i in range(expected)]


class GlMemory(base.FrameChecks):
    @classmethod
    def setUpClass(cls):
        cls.expected = {}
        for fmt in GL_FORMATS:
            inputs = reference_inputs(cls.caps(fmt))
            cls.expected[fmt] = [invert_format(fmt, f) for f in inputs]
            cls.expected[fmt, 'twice'] = inputs

    @staticmethod
    def caps(fmt):
        width, height, _kernel = FORMATS[fmt]
        return base.rgba(width, height, fmt)

    def pipeline(self, fmt, memory_in, memory_out, count=1):
        """Frames of @fmt from @memory_in through @count cugikernels, the
        first ones' output in GL memory, the last one's in @memory_out."""
        caps = self.caps(fmt)
        # System memory is what the format's caps say: gst_parse_launch()
        # takes no caps right after other caps.
        upload = {'gl': f' ! glupload ! {MEMORY["gl"]}', 'cuda': f' ! cudaupload ! {MEMORY["cuda"]}',
                  'system': ''}[memory_in]
        download = {'gl': f'{MEMORY["gl"]} ! gldownload ! {caps}', 'cuda': f'{MEMORY["cuda"]} ! cudadownload ! {caps}',
                    'system': caps}[memory_out]
        element = FORMATS[fmt][2]
        chain = ' ! '.join(f'{element} name=k{i}' + (f' ! {MEMORY["gl"]}' if i < count - 1 else '')
                           for i in range(count))
        return f'{SOURCE} ! {caps}{upload} ! {chain} ! {download} ! appsink name=out'

    def check(self, fmt, memory_in, memory_out, count=1):
        frames, kinds = negotiated_memory(self.pipeline(fmt, memory_in, memory_out, count), count)
        between = [('gl', 'gl')] * (count - 1)
        if count > 1:
            between[0] = (memory_in, 'gl')
            expected_kinds = between + [('gl', memory_out)]
        else:
            expected_kinds = [(memory_in, memory_out)]
        self.assertEqual(kinds, expected_kinds)
        self.assert_frames(frames, self.expected[fmt] if count % 2 else self.expected[fmt, 'twice'])

    def test_gl_in_and_out(self):
        # glupload ! cugikernel ! gldownload: no frame through the host.
        for fmt in GL_FORMATS:
            with self.subTest(fmt=fmt):
                self.check(fmt, 'gl', 'gl')

    def test_gl_to_and_from_other_memory(self):
        for fmt in ('RGBA', 'NV12', 'I420'):
            for memory_in, memory_out in (('gl', 'cuda'), ('cuda', 'gl'), ('gl', 'system'), ('system', 'gl')):
                with self.subTest(fmt=fmt, memory_in=memory_in, memory_out=memory_out):
                    self.check(fmt, memory_in, memory_out)

    def test_to_glimagesink(self):
        # `… ! cugikernel ! glimagesink`, headless: glimagesink draws into
        # EGL's pbuffer, and its last sample, read back, is the last frame.
        for memory_in in ('cuda', 'gl'):
            with self.subTest(memory_in=memory_in):
                upload = {'gl': 'glupload', 'cuda': base.UPLOAD}[memory_in]
                kinds = []

                def before_stop():
                    kinds.append(self.sink.get_static_pad('sink').get_current_caps())
                    sample = self.sink.props.last_sample
                    self.last = base.frame_planes(sample.get_caps(), sample.get_buffer())

                def setup(pipeline):
                    self.sink = pipeline.get_by_name('show')

                run(f'{SOURCE} ! {self.caps("RGBA")} ! {upload} ! {FORMATS["RGBA"][2]} ! '
                    'glimagesink name=show sync=false', sinks=(), setup=setup, before_stop=before_stop)
                self.assertTrue(kinds[0].get_features(0).contains(GL), kinds[0].to_string())
                self.assert_frames([self.last], self.expected['RGBA'][-1:])

    def test_python_element(self):
        # pycugiinvert, a CugiGst.Filter in Python: GL memory comes with
        # the base class.
        caps = self.caps('RGBA')
        frames = run(f'{SOURCE} ! {caps} ! glupload ! {MEMORY["gl"]} ! pycugiinvert ! {MEMORY["gl"]} ! '
                     f'gldownload ! {caps} ! appsink name=out')['out']
        self.assert_frames(frames, self.expected['RGBA'])

    def test_two_elements_chained_on_gl_memory(self):
        for fmt in ('RGBA', 'NV12'):
            with self.subTest(fmt=fmt):
                self.check(fmt, 'gl', 'gl', count=2)


if __name__ == '__main__':
    reason = gl_works()
    if reason is not None:
        print(f'SKIP: {reason}')
        sys.exit(77)
    unittest.main(verbosity=2)
