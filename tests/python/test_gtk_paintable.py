#!/usr/bin/python3
"""CugiGtk.Paintable through its typelib, on the stand-in driver and without
a display (the download path): what the documented Python use gets, an image
from a device buffer read back from the paintable's texture, the path as an
enum, the counts as properties, and GLib.Error for a bad layout."""

import unittest

import gi

gi.require_version('Cugi', '1.0')
gi.require_version('CugiGtk', '1.0')
gi.require_version('Gdk', '4.0')
from gi.repository import Cugi, CugiGtk, Gdk, GLib  # noqa: E402

import numpy  # noqa: E402

WIDTH, HEIGHT, STRIDE = 6, 4, 32


class PaintableTest(unittest.TestCase):
    def show(self, paintable, *args):
        """show_buffer_async() and its result, waited for in the main loop."""
        outcome = []
        paintable.show_buffer_async(*args, None,
                                    lambda source, result: outcome.append(result))
        context = GLib.MainContext.default()
        while not outcome:
            context.iteration(True)
        return paintable.show_buffer_finish(outcome[0])

    def test_download_path(self):
        rows = numpy.full((HEIGHT, STRIDE), 0xee, dtype=numpy.uint8)
        rgba = rows[:, :WIDTH * 4].reshape(HEIGHT, WIDTH, 4)
        rgba[..., 0] = numpy.arange(WIDTH)[None, :] * 40
        rgba[..., 1] = numpy.arange(HEIGHT)[:, None] * 60
        rgba[..., 2] = 7
        rgba[..., 3] = 255
        pixels = Cugi.Buffer.new(None, rows.nbytes)
        pixels.upload(0, rows.tobytes())

        paintable = CugiGtk.Paintable.new(None)
        self.assertEqual(paintable.props.path, CugiGtk.PaintablePath.NONE)
        self.assertTrue(self.show(paintable, pixels, WIDTH, HEIGHT, STRIDE, None))
        self.assertEqual(paintable.props.path, CugiGtk.PaintablePath.DOWNLOAD)
        self.assertEqual(paintable.props.frames, 1)
        self.assertEqual(paintable.props.host_copies, 1)

        texture = paintable.get_current_image()
        self.assertIsInstance(texture, Gdk.Texture)
        self.assertEqual((texture.get_width(), texture.get_height()), (WIDTH, HEIGHT))
        # Gdk.TextureDownloader is GTK 4.10's: before, test-gtk-paintable
        # checks the pixels in C.
        if hasattr(Gdk, 'TextureDownloader'):
            downloader = Gdk.TextureDownloader.new(texture)
            downloader.set_format(Gdk.MemoryFormat.R8G8B8A8)
            data, stride = downloader.download_bytes()
            back = numpy.frombuffer(data.get_data(), dtype=numpy.uint8).reshape(HEIGHT, stride)
            numpy.testing.assert_array_equal(back[:, :WIDTH * 4].reshape(HEIGHT, WIDTH, 4), rgba)

    def test_bad_layout(self):
        pixels = Cugi.Buffer.new(None, STRIDE * HEIGHT)
        paintable = CugiGtk.Paintable.new(None)
        with self.assertRaises(GLib.Error) as caught:
            self.show(paintable, pixels, WIDTH, HEIGHT + 1, STRIDE, None)
        self.assertEqual(caught.exception.code, int(Cugi.Error.INVALID_ARGUMENT))
        self.assertIn('do not fit', caught.exception.message)
        self.assertEqual(paintable.props.frames, 0)


if __name__ == '__main__':
    unittest.main()
