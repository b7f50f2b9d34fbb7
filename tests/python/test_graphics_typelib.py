#!/usr/bin/python3
"""Graphics interoperability, external memory and semaphores and dma-buf
export through the typelib, without a GPU: against the stand-in driver of
the tests (fake-cuda-streams with fake-cuda-graphics), whose GL objects the
tests make and read back as GL would, and where a memfd stands for the file
descriptor Vulkan exports. What Python passes and gets back: GL names and
EGL images as integers, file descriptors as ints that stay the caller's,
NumPy data through the mapped buffers and arrays, the levels of a mipmapped
array as a list, (fd, offset, size) from the export, and GLib.Error for bad
input."""

import os
import mmap
import unittest

import gi

gi.require_version('Cugi', '1.0')
from gi.repository import Cugi, GLib  # noqa: E402

import numpy  # noqa: E402

from stand_in import GraphicsStandIn  # noqa: E402

GL_TEXTURE_2D = 0x0DE1


class GraphicsResourceTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.gl = GraphicsStandIn()

    def assert_error(self, code, fragment, function, *args):
        with self.assertRaises(GLib.Error) as caught:
            function(*args)
        self.assertEqual(caught.exception.code, int(code), caught.exception.message)
        self.assertIn(fragment, caught.exception.message)

    def test_gl_buffer_as_numpy(self):
        name = self.gl.gl_buffer(64)
        resource = Cugi.GraphicsResource.new_for_gl_buffer(None, name, Cugi.GraphicsRegisterFlags.NONE)
        self.assertEqual(resource.props.kind, Cugi.GraphicsResourceKind.GL_BUFFER)
        self.assertFalse(resource.props.mapped)
        resource.map(None)
        self.assertTrue(resource.props.mapped)
        buffer = resource.get_buffer()
        values = numpy.arange(16, dtype=numpy.float32)
        buffer.upload(0, values.tobytes())
        resource.unmap(None)
        numpy.testing.assert_array_equal(numpy.frombuffer(self.gl.gl_buffer_data(name), numpy.float32), values)
        self.assertTrue(buffer.props.freed)
        self.assert_error(Cugi.Error.INVALID_STATE, 'not mapped', resource.get_buffer)
        del buffer, resource
        self.assertEqual(self.gl.counts()[:2], (0, 0))
        self.gl.gl_delete(name)

    def test_gl_texture_as_array(self):
        name = self.gl.gl_image(GL_TEXTURE_2D, 8, 4, Cugi.ArrayFormat.UINT8, 4)
        resource = Cugi.GraphicsResource.new_for_gl_texture(None, name, GL_TEXTURE_2D,
                                                             Cugi.GraphicsRegisterFlags.SURFACE_LDST)
        resource.map(None)
        array = resource.get_array(0, 0)
        self.assertEqual((array.props.width, array.props.height, array.props.channels), (8, 4, 4))
        self.assertTrue(array.props.flags & Cugi.ArrayFlags.SURFACE_LDST)
        Cugi.Surface.new(array)
        image = numpy.arange(8 * 4 * 4, dtype=numpy.uint8)
        array.upload(0, 0, 0, image.tobytes(), 8, 4, 1)
        resource.unmap(None)
        self.assertEqual(self.gl.gl_image_read(name, 8 * 4, 4), image.tobytes())
        self.assert_error(Cugi.Error.INVALID_STATE, 'freed', array.download, 0, 0, 0, 1, 1, 1)

    def test_egl_image_is_an_integer(self):
        name = self.gl.gl_image(GL_TEXTURE_2D, 2, 2, Cugi.ArrayFormat.FLOAT, 1)
        resource = Cugi.GraphicsResource.new_for_egl_image(None, self.gl.egl_image(name),
                                                            Cugi.GraphicsRegisterFlags.READ_ONLY)
        self.assertEqual(resource.props.flags, Cugi.GraphicsRegisterFlags.READ_ONLY)
        resource.map(None)
        self.assertEqual(resource.get_array(0, 0).props.format, Cugi.ArrayFormat.FLOAT)

    def test_bad_input(self):
        self.assert_error(Cugi.Error.INVALID_ARGUMENT, 'texture target',
                          Cugi.GraphicsResource.new_for_gl_texture, None, 1, 0x1234,
                          Cugi.GraphicsRegisterFlags.NONE)
        self.assert_error(Cugi.Error.INVALID_ARGUMENT, 'no EGL image',
                          Cugi.GraphicsResource.new_for_egl_image, None, 0, Cugi.GraphicsRegisterFlags.NONE)
        name = self.gl.gl_buffer(16)
        resource = Cugi.GraphicsResource.new_for_gl_buffer(None, name, Cugi.GraphicsRegisterFlags.NONE)
        resource.map(None)
        self.assert_error(Cugi.Error.INVALID_STATE, 'mapped already', resource.map, None)
        self.assert_error(Cugi.Error.INVALID_ARGUMENT, 'get_buffer', resource.get_array, 0, 0)
        resource.unmap(None)
        self.assert_error(Cugi.Error.INVALID_STATE, 'not mapped', resource.unmap, None)

    def test_map_async(self):
        name = self.gl.gl_buffer(16)
        resource = Cugi.GraphicsResource.new_for_gl_buffer(None, name, Cugi.GraphicsRegisterFlags.NONE)
        loop = GLib.MainLoop()
        outcome = []

        def on_mapped(source, result):
            outcome.append(source.map_finish(result))
            loop.quit()
        resource.map_async(None, None, on_mapped)
        loop.run()
        self.assertEqual(outcome, [True])
        resource.unmap(None)


def memfd(contents):
    fd = os.memfd_create('cugi-test-export')
    os.write(fd, contents)
    return fd


class ExternalMemoryTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.gl = GraphicsStandIn()

    def test_opaque_fd_round_trip(self):
        values = numpy.arange(1024, dtype=numpy.float32)
        fd = memfd(values.tobytes())
        memory = Cugi.ExternalMemory.new_from_fd(None, Cugi.ExternalMemoryType.OPAQUE_FD, fd, values.nbytes,
                                                 Cugi.ExternalMemoryFlags.NONE)
        self.assertEqual(memory.props.size, values.nbytes)
        self.assertEqual(memory.props.memory_type, Cugi.ExternalMemoryType.OPAQUE_FD)
        buffer = memory.get_buffer(0, values.nbytes)
        numpy.testing.assert_array_equal(buffer.copy_to_host(numpy.float32), values)
        buffer.upload(0, numpy.float32([-1, -2]).tobytes())
        with mmap.mmap(fd, values.nbytes) as exporter:
            numpy.testing.assert_array_equal(numpy.frombuffer(exporter, numpy.float32, 2), [-1, -2])
        os.close(fd)  # the caller's own: cugi gave the driver a duplicate

    def test_mipmapped_levels_are_a_list(self):
        fd = memfd(bytes(1 << 16))
        memory = Cugi.ExternalMemory.new_from_fd(None, Cugi.ExternalMemoryType.OPAQUE_FD, fd, 1 << 16,
                                                 Cugi.ExternalMemoryFlags.DEDICATED)
        os.close(fd)
        levels = memory.get_mipmapped_array(0, Cugi.ArrayFormat.UINT8, 4, 16, 16, 0,
                                            Cugi.ArrayFlags.COLOR_ATTACHMENT, 5)
        self.assertEqual([level.props.width for level in levels], [16, 8, 4, 2, 1])
        array = memory.get_array(0, Cugi.ArrayFormat.FLOAT, 1, 8, 8, 0, Cugi.ArrayFlags.NONE)
        self.assertEqual(array.props.height, 8)

    def test_bad_fds(self):
        for fd, fragment in ((-1, 'not a file descriptor'), (1 << 20, 'cannot be used')):
            with self.assertRaises(GLib.Error) as caught:
                Cugi.ExternalMemory.new_from_fd(None, Cugi.ExternalMemoryType.DMA_BUF, fd, 16,
                                                Cugi.ExternalMemoryFlags.NONE)
            self.assertEqual(caught.exception.code, int(Cugi.Error.INVALID_ARGUMENT))
            self.assertIn(fragment, caught.exception.message)
            with self.assertRaises(GLib.Error) as caught:
                Cugi.ExternalSemaphore.new_from_fd(None, Cugi.ExternalSemaphoreType.OPAQUE_FD, fd)
            self.assertIn(fragment, caught.exception.message)

    def test_dma_buf_export_and_import(self):
        values = numpy.arange(3000, dtype=numpy.int32)
        buffer = Cugi.to_device(values)
        fd, offset, size = buffer.export_dma_buf()
        self.assertGreaterEqual(size, offset + values.nbytes)
        memory = Cugi.ExternalMemory.new_from_fd(None, Cugi.ExternalMemoryType.DMA_BUF, fd, size,
                                                 Cugi.ExternalMemoryFlags.NONE)
        os.close(fd)
        imported = memory.get_buffer(offset, values.nbytes)
        numpy.testing.assert_array_equal(imported.copy_to_host(numpy.int32), values)

    def test_timeline_semaphore(self):
        fd = memfd(b'')
        semaphore = Cugi.ExternalSemaphore.new_from_fd(None, Cugi.ExternalSemaphoreType.TIMELINE_FD, fd)
        stream = Cugi.Stream.new(None, Cugi.StreamFlags.NON_BLOCKING, 0)
        semaphore.signal(7, stream)
        stream.synchronize()
        self.assertEqual(self.gl.semaphore_value(fd), 7)
        semaphore.wait(9, stream)
        self.assertFalse(stream.query())
        self.gl.semaphore_signal(fd, 9)
        stream.synchronize()
        with self.assertRaises(GLib.Error) as caught:
            Cugi.ExternalSemaphore.new_from_fd(None, Cugi.ExternalSemaphoreType.OPAQUE_FD, fd).signal(1, stream)
        self.assertEqual(caught.exception.code, int(Cugi.Error.INVALID_ARGUMENT))
        os.close(fd)


if __name__ == '__main__':
    unittest.main(verbosity=2)
