#!/usr/bin/python3
"""cugikernel without a GPU: it registers, gst-inspect-1.0 describes it, it
offers CUDA memory only in the formats GStreamer's CUDA allocator can
allocate, and every pipeline that cannot run fails with an element error
that names what is missing, a non-zero exit status and no crash or critical.

The driver is hidden with CUGI_LIBCUDA, so this runs the same on machines
with a GPU. Run by meson (GST_PLUGIN_PATH points at the built plugin).
"""
import os
import resource
import subprocess
import sys
import tempfile
import unittest

import gi
gi.require_version('Gst', '1.0')
from gi.repository import Gst  # noqa: E402

Gst.init(None)

KERNELS = os.environ['CUGI_GST_KERNELS']
NO_DRIVER = dict(os.environ, CUGI_LIBCUDA='/nonexistent/libcuda.so.1')


# The formats cugikernel takes, and those of them it offers in CUDA memory:
# GStreamer's CUDA allocator (1.22 to 1.28) cannot lay out GRAY8, and 1.22
# aborts the process when asked to.
FORMATS = {'RGBA', 'BGRA', 'RGBx', 'BGRx', 'ARGB', 'ABGR', 'GRAY8', 'NV12', 'NV21', 'I420',
           'YV12', 'Y42B', 'Y444', 'P010_10LE', 'P016_LE', 'Y444_16LE'}
CUDA_FORMATS = FORMATS - {'GRAY8'}
# Those whose GL textures CUDA registers: no 3-channel texture, every texel
# as many bytes as the plane's pixels.
GL_FORMATS = FORMATS - {'P016_LE', 'Y444_16LE'}
CUDA = 'memory:CUDAMemory'
GL = 'memory:GLMemory'
# docs/gstreamer.md: the largest file location may name.
MAX_SOURCE_SIZE = 16 * 2**20


def limit_memory():
    # A child that reads a device such as /dev/zero to its end fails at
    # 2 GiB of heap instead of taking the machine's memory.
    resource.setrlimit(resource.RLIMIT_DATA, (2 * 2**30, 2 * 2**30))


def run(*args, env=None, preexec_fn=None):
    # The timeout ends a child that blocks (on a FIFO, say): a failure, not a hang.
    result = subprocess.run(args, capture_output=True, text=True, timeout=60,
                            env=env or os.environ, preexec_fn=preexec_fn)
    return result.returncode, result.stdout + result.stderr


def launch(element, env=NO_DRIVER, preexec_fn=None):
    return run('gst-launch-1.0', '-q', 'videotestsrc', 'num-buffers=3', '!',
               'video/x-raw,format=RGBA,width=64,height=48', '!',
               *element.split(), '!', 'fakesink', env=env, preexec_fn=preexec_fn)


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


def formats_by_memory(caps):
    """{CUDA: formats in CUDA memory, GL: in GL memory, None: in system
    memory} of @caps."""
    formats = {CUDA: set(), GL: set(), None: set()}
    for index in range(caps.get_size()):
        value = caps[index]['format']   # a structure as it is, in gst-python 1.22 and 1.26
        features = caps.get_features(index)
        memory = CUDA if features.contains(CUDA) else GL if features.contains(GL) else None
        if memory == GL:
            assert caps[index]['texture-target'] == '2D', caps.to_string()
        formats[memory].update([value] if isinstance(value, str) else value)
    return formats


class Caps(unittest.TestCase):
    """CUDA memory only in the formats GstCudaAllocator can allocate, GL
    memory only in those whose textures CUDA registers."""

    def test_pad_templates(self):
        factory = Gst.ElementFactory.find('cugikernel')
        templates = factory.get_static_pad_templates()
        self.assertEqual({t.name_template for t in templates}, {'sink', 'src'})
        for template in templates:
            formats = formats_by_memory(template.get_caps())
            self.assertEqual(formats[CUDA], CUDA_FORMATS, template.name_template)
            self.assertEqual(formats[GL], GL_FORMATS, template.name_template)
            self.assertEqual(formats[None], FORMATS, template.name_template)

    def neighbour_caps(self, fmt, features=None):
        media = 'video/x-raw' if features is None else f'video/x-raw({features})'
        return Gst.Caps.from_string(f'{media},format={fmt},width=64,height=64')

    def query_through(self, fmt, features=None, upstream=True):
        """The caps cugikernel offers on one pad when its neighbour on the
        other pad has @fmt (in @features): what negotiation can pick."""
        element = Gst.ElementFactory.make('cugikernel', None)
        neighbour = Gst.ElementFactory.make('capsfilter', None)
        neighbour.props.caps = self.neighbour_caps(fmt, features)
        near, far = ('sink', 'src') if upstream else ('src', 'sink')
        pads = [neighbour.get_static_pad(far), element.get_static_pad(near)]
        if not upstream:
            pads.reverse()
        # Linked without a caps check, which would refuse what the query shows.
        self.assertEqual(pads[0].link_full(pads[1], Gst.PadLinkCheck.NOTHING), Gst.PadLinkReturn.OK)
        return element.get_static_pad(far).query_caps(None)

    def test_gpu_memory_offered_for_its_formats(self):
        for fmt in sorted(FORMATS):
            for features in (None, CUDA, GL):
                for upstream in (True, False):
                    with self.subTest(fmt=fmt, features=features, upstream=upstream):
                        if features == CUDA and fmt not in CUDA_FORMATS or features == GL and fmt not in GL_FORMATS:
                            continue
                        formats = formats_by_memory(self.query_through(fmt, features, upstream))
                        self.assertEqual(formats[None], {fmt})
                        self.assertEqual(formats[CUDA], {fmt} & CUDA_FORMATS)
                        self.assertEqual(formats[GL], {fmt} & GL_FORMATS)

    def test_gray8_in_cuda_memory_refused(self):
        # Before, the element took and offered it, and the first buffer of
        # `videotestsrc ! video/x-raw,format=GRAY8 ! cugikernel ! fakesink`
        # aborted in gst_cuda_allocator_alloc_internal().
        for upstream in (True, False):
            with self.subTest(upstream=upstream):
                self.assertTrue(self.query_through('GRAY8', CUDA, upstream).is_empty())
        element = Gst.ElementFactory.make('cugikernel', None)
        for pad in ('sink', 'src'):
            self.assertFalse(element.get_static_pad(pad).query_accept_caps(
                self.neighbour_caps('GRAY8', CUDA)))
            self.assertTrue(element.get_static_pad(pad).query_accept_caps(
                self.neighbour_caps('NV12', CUDA)))


class ElementErrors(unittest.TestCase):
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


class Errors(ElementErrors):
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
        self.assert_element_error(status, output, '/nonexistent/k.cu', 'No such file')

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


class Location(ElementErrors):
    """location names a regular file of at most MAX_SOURCE_SIZE bytes; the
    element reads nothing else, and never blocks or reads without end."""

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def path(self, name):
        return os.path.join(self.dir.name, name)

    def launch_location(self, path):
        return launch(f'cugikernel location={path} kernel-name=invert', preexec_fn=limit_memory)

    def assert_refused(self, path, *fragments):
        status, output = self.launch_location(path)
        self.assert_element_error(status, output, path, *fragments)
        self.assertNotIn('No NVIDIA driver', output)

    def assert_read(self, path):
        # Read, the element goes on to initialize cugi, which finds no driver.
        status, output = self.launch_location(path)
        self.assert_element_error(status, output, 'No NVIDIA driver')

    def test_fifo(self):
        # Opening a FIFO for reading waits for a writer, which never comes.
        fifo = self.path('kernel.cu')
        os.mkfifo(fifo)
        self.assert_refused(fifo, 'is a FIFO', 'not a regular file')

    def test_device(self):
        self.assert_refused('/dev/zero', 'is a device', 'not a regular file')

    def test_directory(self):
        self.assert_refused(self.dir.name, 'is a directory', 'not a regular file')

    def test_too_large(self):
        large = self.path('large.cu')
        with open(large, 'wb') as file:
            file.truncate(MAX_SOURCE_SIZE + 1)   # sparse: nothing is written
        self.assert_refused(large, f'{MAX_SOURCE_SIZE + 1} bytes', '16 MiB')

    def test_largest(self):
        largest = self.path('largest.cu')
        with open(largest, 'wb') as file:
            file.truncate(MAX_SOURCE_SIZE)
        self.assert_read(largest)

    def test_unreadable(self):
        if os.geteuid() == 0:
            self.skipTest('root reads any file')
        secret = self.path('secret.cu')
        with open(secret, 'w') as file:
            file.write('x')
        os.chmod(secret, 0)
        self.assert_refused(secret, 'Permission denied')

    def test_good_file_and_link(self):
        self.assert_read(f'{KERNELS}/invert.cu')
        link = self.path('link.cu')
        os.symlink(f'{KERNELS}/invert.cu', link)
        self.assert_read(link)


if __name__ == '__main__':
    unittest.main(verbosity=2)
