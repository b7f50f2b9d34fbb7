#!/usr/bin/python3
"""cugikernel without a GPU: it registers, gst-inspect-1.0 describes it, and
every pipeline that cannot run fails with an element error that names what
is missing, a non-zero exit status and no crash or critical.

The driver is hidden with CUGI_LIBCUDA, so this runs the same on machines
with a GPU. Run by meson (GST_PLUGIN_PATH points at the built plugin).
"""
import os
import subprocess
import sys
import unittest

KERNELS = os.environ['CUGI_GST_KERNELS']
NO_DRIVER = dict(os.environ, CUGI_LIBCUDA='/nonexistent/libcuda.so.1')


def run(*args, env=None):
    result = subprocess.run(args, capture_output=True, text=True, timeout=60,
                            env=env or os.environ)
    return result.returncode, result.stdout + result.stderr


def launch(element, env=NO_DRIVER):
    return run('gst-launch-1.0', '-q', 'videotestsrc', 'num-buffers=3', '!',
               'video/x-raw,format=RGBA,width=64,height=48', '!',
               *element.split(), '!', 'fakesink', env=env)


class Inspect(unittest.TestCase):
    def test_lists_element_and_properties(self):
        status, output = run('gst-inspect-1.0', 'cugikernel')
        self.assertEqual(status, 0, output)
        for fragment in ('cugi kernel', 'source', 'location', 'kernel-name',
                         'parameters', 'device-id', 'cugi-context',
                         'video/x-raw(memory:CUDAMemory)', 'NV12'):
            self.assertIn(fragment, output)

    def test_plugin_listed(self):
        status, output = run('gst-inspect-1.0', 'cugi')
        self.assertEqual(status, 0, output)
        self.assertIn('cugikernel', output)


class Errors(unittest.TestCase):
    def assert_element_error(self, status, output, *fragments):
        # gst-launch-1.0 exits 1 (or -1 as 255) on an error; a signal would
        # be negative, an abort 134.
        self.assertIn(status, (1, 255), output)
        self.assertIn('ERROR: from element', output)
        self.assertIn('cugikernel0', output)
        for fragment in fragments:
            self.assertIn(fragment, output)
        self.assertNotIn('CRITICAL', output)
        self.assertNotIn('assertion', output)

    def test_no_driver(self):
        status, output = launch(f'cugikernel location={KERNELS}/invert.cu kernel-name=invert')
        self.assert_element_error(status, output, 'No NVIDIA driver',
                                  '/nonexistent/libcuda.so.1')

    def test_no_kernel_name(self):
        status, output = launch(f'cugikernel location={KERNELS}/invert.cu')
        self.assert_element_error(status, output, 'no kernel-name')

    def test_no_source(self):
        status, output = launch('cugikernel kernel-name=invert')
        self.assert_element_error(status, output, 'set source', 'or location')

    def test_source_and_location(self):
        status, output = launch(f'cugikernel location={KERNELS}/invert.cu kernel-name=invert '
                                'source=x')
        self.assert_element_error(status, output, 'both a source and a location')

    def test_missing_file(self):
        status, output = launch('cugikernel location=/nonexistent/k.cu kernel-name=k')
        self.assert_element_error(status, output, '/nonexistent/k.cu')

    def test_python_element_no_driver(self):
        script = ('import sys; sys.path.insert(0, sys.argv[1]); import cugi_invert; '
                  'sys.exit(cugi_invert.main(3))')
        status, output = run(sys.executable, '-c', script, os.environ['CUGI_GST_PYTHON'],
                             env=NO_DRIVER)
        self.assertEqual(status, 1, output)
        self.assertIn('No NVIDIA driver', output)
        self.assertIn('initializing cugi', output)

    def test_properties_round_trip(self):
        import gi
        gi.require_version('Gst', '1.0')
        from gi.repository import Gst
        Gst.init(None)
        element = Gst.ElementFactory.make('cugikernel', None)
        self.assertIsNotNone(element)
        Gst.util_set_object_arg(element, 'parameters', '<0.5, 2>')
        self.assertEqual(list(element.get_property('parameters')), [0.5, 2.0])
        self.assertEqual(element.props.device_id, -1)
        self.assertIsNone(element.props.cugi_context)


if __name__ == '__main__':
    unittest.main(verbosity=2)
