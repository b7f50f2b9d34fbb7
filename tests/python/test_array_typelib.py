#!/usr/bin/python3
"""Arrays, textures and surfaces through the typelib, without a GPU: against
the stand-in driver of the tests (fake-cuda-streams with its arrays), which
keeps arrays in host memory and records the parameters of the last launch.
What Python passes and gets back: NumPy data in and out of arrays, texture
descriptions, textures and surfaces as kernel arguments, and the errors."""

import struct
import unittest

import gi

gi.require_version('Cugi', '1.0')
from gi.repository import Cugi, GLib  # noqa: E402

import numpy  # noqa: E402

from stand_in import LaunchRecorder  # noqa: E402

# sample(cudaTextureObject_t, cudaSurfaceObject_t, int) in the stand-in's
# module format: a C++ kernel, so its parameters' types are known.
IMAGE = b'_Z6sampleyyi 8 8 4\n'


class ArrayTypelibTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.launches = LaunchRecorder()
        module = Cugi.Module.new_from_data(None, GLib.Bytes.new(IMAGE))
        cls.sample = module.get_kernel('_Z6sampleyyi')

    def last_params(self):
        return self.launches.last_params()

    def test_numpy_in_and_out(self):
        volume = numpy.arange(6 * 5 * 4, dtype=numpy.float32).reshape(4, 5, 6)
        array = Cugi.Array.new(None, Cugi.ArrayFormat.FLOAT, 1, 6, 5, 4, Cugi.ArrayFlags.NONE)
        self.assertEqual((array.props.width, array.props.height, array.props.depth), (6, 5, 4))
        self.assertEqual(array.props.format, Cugi.ArrayFormat.FLOAT)
        self.assertEqual(array.get_element_size(), 4)
        array.upload(0, 0, 0, volume.tobytes(), 6, 5, 4)
        box = numpy.frombuffer(array.download(1, 2, 3, 4, 3, 1).get_data(), numpy.float32)
        numpy.testing.assert_array_equal(box.reshape(3, 4), volume[3, 2:5, 1:5])

        # By address, as bindings hold NumPy memory.
        out = numpy.zeros((4, 5, 6), numpy.float32)
        array.download_to_address(0, 0, 0, out.ctypes.data, out.nbytes, 6, 5, 4)
        numpy.testing.assert_array_equal(out, volume)
        twice = volume * 2
        array.upload_from_address(0, 0, 0, twice.ctypes.data, twice.nbytes, 6, 5, 4)
        back = numpy.frombuffer(array.download(0, 0, 0, 6, 5, 4).get_data(), numpy.float32)
        numpy.testing.assert_array_equal(back.reshape(4, 5, 6), twice)

        with self.assertRaises(GLib.Error) as caught:
            array.upload(0, 0, 0, volume.tobytes(), 6, 5, 5)
        self.assertEqual(caught.exception.code, int(Cugi.Error.INVALID_ARGUMENT))

    def test_copy_is_called_on_the_destination(self):
        # As the docs of Array.copy() and Buffer.copy() say for bindings.
        src = Cugi.Array.new(None, Cugi.ArrayFormat.UINT8, 1, 16, 0, 0, Cugi.ArrayFlags.NONE)
        dst = Cugi.Array.new(None, Cugi.ArrayFormat.UINT8, 1, 16, 0, 0, Cugi.ArrayFlags.NONE)
        src.upload(0, 0, 0, bytes(range(16)), 16, 1, 1)
        dst.upload(0, 0, 0, bytes(16), 16, 1, 1)
        stream = Cugi.Stream.new(None, Cugi.StreamFlags.NONE, 0)
        dst.copy(4, 0, 0, src, 0, 0, 0, 8, 1, 1, stream)
        stream.synchronize()
        self.assertEqual(dst.download(0, 0, 0, 16, 1, 1).get_data(), bytes(4) + bytes(range(8)) + bytes(4))
        self.assertEqual(src.download(0, 0, 0, 16, 1, 1).get_data(), bytes(range(16)))
        source, target = Cugi.Buffer.new(None, 16), Cugi.Buffer.new(None, 16)
        source.upload(0, bytes(range(16)))
        target.upload(0, bytes(16))
        target.copy(8, source, 0, 8, stream)
        stream.synchronize()
        self.assertEqual(target.download(0, 16).get_data(), bytes(8) + bytes(range(8)))

    def test_bad_addresses(self):
        # Address 0, and a range past the end of the address space: errors,
        # as for buffers, not a crash or a copy skipped without one.
        array = Cugi.Array.new(None, Cugi.ArrayFormat.FLOAT, 1, 128, 0, 0, Cugi.ArrayFlags.NONE)
        for address in (0, 2**64 - 16):
            for method in (array.upload_from_address, array.download_to_address):
                with self.assertRaises(GLib.Error) as caught:
                    method(0, 0, 0, address, 512, 128, 1, 1)
                self.assertEqual(caught.exception.code, int(Cugi.Error.INVALID_ARGUMENT))
                self.assertIn('cannot hold 512 bytes', caught.exception.message)

    def test_address_mode_of_no_dimension(self):
        # A texture has dimensions 0, 1 and 2: any other is an error, which
        # changes nothing.
        description = Cugi.TextureDescription.new()
        description.set_address_mode(2, Cugi.AddressMode.BORDER)
        self.assertEqual(description.get_address_mode(2), Cugi.AddressMode.BORDER)
        with self.assertRaises(GLib.Error) as caught:
            description.set_address_mode(5, Cugi.AddressMode.WRAP)
        self.assertEqual(caught.exception.code, int(Cugi.Error.INVALID_ARGUMENT))
        self.assertIn('no dimension 5', caught.exception.message)
        with self.assertRaises(GLib.Error) as caught:
            description.get_address_mode(3)
        self.assertEqual(caught.exception.code, int(Cugi.Error.INVALID_ARGUMENT))
        self.assertIn('no dimension 3', caught.exception.message)
        self.assertEqual([description.get_address_mode(i) for i in range(3)],
                         [Cugi.AddressMode.CLAMP, Cugi.AddressMode.CLAMP, Cugi.AddressMode.BORDER])

    def test_textures_and_surfaces_as_arguments(self):
        array = Cugi.Array.new(None, Cugi.ArrayFormat.UINT8, 4, 8, 8, 0, Cugi.ArrayFlags.SURFACE_LDST)
        description = Cugi.TextureDescription.new()
        description.set_filter_mode(Cugi.FilterMode.LINEAR)
        description.set_read_mode(Cugi.TextureReadMode.NORMALIZED_FLOAT)
        description.set_border_color(1, 0.5, 0, 1)
        self.assertEqual(description.get_border_color(), (1, 0.5, 0, 1))
        texture = Cugi.Texture.new_for_array(array, description)
        surface = Cugi.Surface.new(array)
        self.assertIs(texture.props.array, array)
        self.assertIs(surface.get_array(), array)

        # In one call as GValues, and through the argument list.
        self.sample(texture, surface, 7, grid=1, block=1)
        expected = struct.pack('<QQi', texture.props.handle, surface.props.handle, 7)
        self.assertEqual(self.last_params(), expected)
        self.sample(texture, surface, numpy.int32(8), grid=1, block=1)
        self.assertEqual(self.last_params(), expected[:16] + struct.pack('<i', 8))

        # A texture where an int goes, and an array where a texture goes.
        with self.assertRaises(GLib.Error) as caught:
            self.sample(texture, surface, texture, grid=1, block=1)
        self.assertEqual(caught.exception.code, int(Cugi.Error.INVALID_ARGUMENT))
        with self.assertRaises((GLib.Error, TypeError)):
            self.sample(array, surface, 7, grid=1, block=1)

    def test_freed_array(self):
        array = Cugi.Array.new(None, Cugi.ArrayFormat.FLOAT, 1, 4, 0, 0, Cugi.ArrayFlags.NONE)
        array.free()
        self.assertTrue(array.props.freed)
        with self.assertRaises(GLib.Error) as caught:
            Cugi.Texture.new_for_array(array, None)
        self.assertEqual(caught.exception.code, int(Cugi.Error.INVALID_STATE))
        self.assertIn('freed', caught.exception.message)


if __name__ == '__main__':
    unittest.main()
