#!/usr/bin/python3
"""Arrays and textures through the typelib on a GPU: a NumPy image in a
Cugi.Array, sampled by a kernel through a texture with linear filtering and
compared with a bilinear reference in NumPy; a surface written by a kernel.
Exits 77 (skipped) when no GPU can be used."""

import textwrap
import unittest

from cugi_gpu_test import init_or_skip
from gi.repository import Cugi, GLib  # noqa: E402

init_or_skip()

import numpy  # noqa: E402

SAMPLE = textwrap.dedent('''\
    __global__ void sample(cudaTextureObject_t texture, float *out, const float *coords, int n)
    {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n)
            out[i] = tex2D<float>(texture, coords[2 * i], coords[2 * i + 1]);
    }
''')

FILL = textwrap.dedent('''\
    __global__ void fill(cudaSurfaceObject_t surface, int width, int height)
    {
        int x = blockIdx.x * blockDim.x + threadIdx.x;
        int y = blockIdx.y * blockDim.y + threadIdx.y;
        if (x < width && y < height)
            surf2Dwrite((float) (y * 1000 + x), surface, x * (int) sizeof(float), y);
    }
''')


def bilinear(image, x, y):
    """tex2D with linear filtering, clamped, unnormalized coordinates."""
    height, width = image.shape
    xb, yb = x - 0.5, y - 0.5
    x0, y0 = numpy.floor(xb).astype(int), numpy.floor(yb).astype(int)
    a, b = xb - x0, yb - y0

    def at(xi, yi):
        return image[numpy.clip(yi, 0, height - 1), numpy.clip(xi, 0, width - 1)]
    return ((1 - a) * (1 - b) * at(x0, y0) + a * (1 - b) * at(x0 + 1, y0)
            + (1 - a) * b * at(x0, y0 + 1) + a * b * at(x0 + 1, y0 + 1))


class TextureTest(unittest.TestCase):
    def test_linear_sampling(self):
        height, width = 12, 20
        rng = numpy.random.default_rng(13)
        image = rng.random((height, width), dtype=numpy.float32)
        array = Cugi.Array.new(None, Cugi.ArrayFormat.FLOAT, 1, width, height, 0, Cugi.ArrayFlags.NONE)
        array.upload(0, 0, 0, image.tobytes(), width, height, 1)
        back = numpy.frombuffer(array.download(0, 0, 0, width, height, 1).get_data(), numpy.float32)
        numpy.testing.assert_array_equal(back.reshape(height, width), image)

        description = Cugi.TextureDescription.new()
        description.set_filter_mode(Cugi.FilterMode.LINEAR)
        for dimension in (0, 1):
            description.set_address_mode(dimension, Cugi.AddressMode.CLAMP)
        texture = Cugi.Texture.new_for_array(array, description)
        self.assertIs(texture.props.array, array)

        n = 1024
        x = rng.uniform(-2, width + 2, n).astype(numpy.float32)
        y = rng.uniform(-2, height + 2, n).astype(numpy.float32)
        coords = Cugi.to_device(numpy.stack([x, y], axis=1).ravel())
        out = Cugi.Buffer.new(None, n * 4)
        kernel = Cugi.Kernel.new_from_source(None, SAMPLE, 'sample', None)
        kernel(texture, out, coords, n, grid=(n + 127) // 128, block=128)
        seen = numpy.frombuffer(out.download(0, n * 4).get_data(), numpy.float32)
        # The hardware's weights have 8 bits of fraction: values in [0, 1)
        # are within 1e-2 of the exact interpolation.
        numpy.testing.assert_allclose(seen, bilinear(image, x, y), atol=1e-2)

    def test_texture_of_freed_array(self):
        array = Cugi.Array.new(None, Cugi.ArrayFormat.FLOAT, 1, 4, 4, 0, Cugi.ArrayFlags.NONE)
        array.free()
        with self.assertRaises(GLib.Error) as raised:
            Cugi.Texture.new_for_array(array, None)
        self.assertEqual(raised.exception.code, int(Cugi.Error.INVALID_STATE))

    def test_surface_write(self):
        width, height = 40, 20
        array = Cugi.Array.new(None, Cugi.ArrayFormat.FLOAT, 1, width, height, 0,
                               Cugi.ArrayFlags.SURFACE_LDST)
        surface = Cugi.Surface.new(array)
        kernel = Cugi.Kernel.new_from_source(None, FILL, 'fill', None)
        kernel(surface, width, height, grid=(3, 3), block=(16, 8))
        Cugi.Context.get_default().synchronize()
        seen = numpy.frombuffer(array.download(0, 0, 0, width, height, 1).get_data(), numpy.float32)
        expected = numpy.add.outer(numpy.arange(height) * 1000, numpy.arange(width)).astype(numpy.float32)
        numpy.testing.assert_array_equal(seen.reshape(height, width), expected)


if __name__ == '__main__':
    unittest.main()
