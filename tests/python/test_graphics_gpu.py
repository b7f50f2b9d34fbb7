#!/usr/bin/python3
"""Graphics interoperability on a GPU, headless: a GLES 3 context of EGL's
device platform on the GPU of cugi's default context (egl_headless.py loads
libEGL.so.1 and libGLESv2.so.2; cugi links neither). A kernel writes a GL
texture through a surface on its mapped array and GL reads it back through
a framebuffer; a kernel scales a GL buffer mapped as a Cugi.Buffer and GL
reads it with glMapBufferRange; an EGL image of a texture is written by
CUDA; a buffer's dma-buf export is imported back by cugi and by EGL
(EGL_EXT_image_dma_buf_import), each compared with a reference made in
NumPy. What the driver refuses (dma-buf imports) skips its case with the
driver's words. Exits 77 (skipped) when no GPU or no EGL device can be
used: on the GPU machine, __EGL_VENDOR_LIBRARY_FILENAMES must name NVIDIA's
EGL vendor file."""

import os
import sys
import textwrap
import unittest

from cugi_gpu_test import init_or_skip
from gi.repository import Cugi, GLib  # noqa: E402

init_or_skip()

import numpy  # noqa: E402

import egl_headless  # noqa: E402

try:
    GL = egl_headless.Headless(Cugi.Device.get_default().props.ordinal)
except egl_headless.Unavailable as unavailable:
    print(f'1..0 # SKIP no headless EGL: {unavailable}')
    sys.exit(77)

KERNELS = textwrap.dedent('''\
    extern "C" __global__ void paint(cudaSurfaceObject_t surface, int width, int height)
    {
        int x = blockIdx.x * blockDim.x + threadIdx.x;
        int y = blockIdx.y * blockDim.y + threadIdx.y;
        if (x < width && y < height)
            surf2Dwrite(make_uchar4(x, y, x ^ y, 255), surface, x * 4, y);
    }

    extern "C" __global__ void scale(float *data, float factor, int n)
    {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n)
            data[i] *= factor;
    }
''')


def painted(width, height):
    """What paint() writes: RGBA (x, y, x ^ y, 255) at (x, y)."""
    y, x = numpy.mgrid[0:height, 0:width]
    return numpy.stack([x, y, x ^ y, numpy.full_like(x, 255)], axis=-1).astype(numpy.uint8)


def kernel(name):
    return Cugi.Kernel.new_from_source(None, KERNELS, name, None)


class GlTest(unittest.TestCase):
    def test_kernel_writes_texture_through_surface(self):
        width, height = 48, 20
        texture = GL.texture(width, height)
        resource = Cugi.GraphicsResource.new_for_gl_texture(None, texture, egl_headless.GL_TEXTURE_2D,
                                                             Cugi.GraphicsRegisterFlags.SURFACE_LDST)
        resource.map(None)
        array = resource.get_array(0, 0)
        self.assertEqual((array.props.width, array.props.height), (width, height))
        self.assertEqual((array.props.format, array.props.channels), (Cugi.ArrayFormat.UINT8, 4))
        surface = Cugi.Surface.new(array)
        kernel('paint')(surface, width, height, grid=((width + 15) // 16, (height + 15) // 16), block=(16, 16))
        resource.unmap(None)
        seen = numpy.frombuffer(GL.read_texture(texture, width, height), numpy.uint8)
        numpy.testing.assert_array_equal(seen.reshape(height, width, 4), painted(width, height))
        self.assertTrue(array.props.freed)

    def test_gl_buffer_as_cugi_buffer(self):
        values = numpy.arange(10000, dtype=numpy.float32)
        name = GL.buffer(values.tobytes())
        resource = Cugi.GraphicsResource.new_for_gl_buffer(None, name, Cugi.GraphicsRegisterFlags.NONE)
        stream = Cugi.Stream.new(None, Cugi.StreamFlags.NON_BLOCKING, 0)
        resource.map(stream)
        # The map orders GL's work before the stream's; the download below
        # goes to the default stream, which does not wait for this one.
        stream.synchronize()
        buffer = resource.get_buffer()
        self.assertGreaterEqual(buffer.props.size, values.nbytes)
        numpy.testing.assert_array_equal(
            numpy.frombuffer(buffer.download(0, values.nbytes).get_data(), numpy.float32), values)
        kernel('scale')(buffer, numpy.float32(3), len(values), grid=(len(values) + 255) // 256, block=256,
                        stream=stream)
        resource.unmap(stream)
        seen = numpy.frombuffer(GL.read_buffer(name, values.nbytes), numpy.float32)
        numpy.testing.assert_array_equal(seen, values * 3)

    def test_map_async(self):
        name = GL.buffer(bytes(4096))
        resource = Cugi.GraphicsResource.new_for_gl_buffer(None, name, Cugi.GraphicsRegisterFlags.WRITE_DISCARD)
        loop = GLib.MainLoop()
        outcome = []

        def on_mapped(source, result):
            outcome.append(source.map_finish(result))
            loop.quit()
        resource.map_async(None, None, on_mapped)
        loop.run()
        self.assertEqual(outcome, [True])
        resource.get_buffer().upload(0, b'\x01' * 4096)
        resource.unmap(None)
        self.assertEqual(GL.read_buffer(name, 4096), b'\x01' * 4096)

    def test_egl_image_of_texture(self):
        width, height = 16, 8
        texture = GL.texture(width, height)
        try:
            image = GL.image_of_texture(texture)
        except egl_headless.Unavailable as unavailable:
            self.skipTest(str(unavailable))
        resource = Cugi.GraphicsResource.new_for_egl_image(None, image, Cugi.GraphicsRegisterFlags.NONE)
        resource.map(None)
        array = resource.get_array(0, 0)
        expected = painted(width, height)
        array.upload(0, 0, 0, expected.tobytes(), width, height, 1)
        resource.unmap(None)
        seen = numpy.frombuffer(GL.read_texture(texture, width, height), numpy.uint8)
        numpy.testing.assert_array_equal(seen.reshape(height, width, 4), expected)


class DmaBufTest(unittest.TestCase):
    def exported(self, contents):
        """A 2 MiB buffer starting with @contents, and its dma-buf export."""
        buffer = Cugi.Buffer.new(None, 2 << 20)
        buffer.upload(0, contents)
        try:
            fd, offset, size = buffer.export_dma_buf()
        except GLib.Error as error:
            if error.code == int(Cugi.Error.NOT_SUPPORTED):
                self.skipTest(f'no dma-buf export: {error.message}')
            raise
        self.addCleanup(os.close, fd)
        self.assertGreaterEqual(size, offset + len(contents))
        return buffer, fd, offset, size

    def test_reimported_by_cugi(self):
        values = numpy.arange(4096, dtype=numpy.int32)
        buffer, fd, offset, size = self.exported(values.tobytes())
        try:
            memory = Cugi.ExternalMemory.new_from_fd(None, Cugi.ExternalMemoryType.DMA_BUF, fd, size,
                                                     Cugi.ExternalMemoryFlags.NONE)
        except GLib.Error as error:
            if 'cuImportExternalMemory' in error.message:
                self.skipTest(f'the driver does not import its own dma-buf: {error.message}')
            raise
        imported = memory.get_buffer(offset, values.nbytes)
        numpy.testing.assert_array_equal(
            numpy.frombuffer(imported.download(0, values.nbytes).get_data(), numpy.int32), values)
        imported.upload(0, numpy.int32([-7]).tobytes())
        self.assertEqual(numpy.frombuffer(buffer.download(0, 4).get_data(), numpy.int32)[0], -7)

    def test_imported_by_egl(self):
        width, height = 64, 32
        expected = painted(width, height)
        buffer, fd, offset, size = self.exported(expected.tobytes())
        try:
            image = GL.image_of_dma_buf(fd, offset, width * 4, width, height)
            texture = GL.texture_of_image(image)
        except (egl_headless.Unavailable, AssertionError) as unavailable:
            self.skipTest(f'EGL does not import the dma-buf: {unavailable}')
        seen = numpy.frombuffer(GL.read_texture(texture, width, height), numpy.uint8)
        numpy.testing.assert_array_equal(seen.reshape(height, width, 4), expected)


if __name__ == '__main__':
    unittest.main(verbosity=2)
