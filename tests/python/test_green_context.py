#!/usr/bin/python3
"""Green contexts through the typelib, without a GPU: over the stand-in
driver (fake-cuda-streams on fake-cuda-devices, whose 132 SMs are split off
in multiples of 8)."""

import unittest

import gi

gi.require_version('Cugi', '1.0')
from gi.repository import Cugi, GLib  # noqa: E402


class TestGreenContext(unittest.TestCase):
    def test_share_of_the_sms(self):
        green = Cugi.Context.new_green(None, 20)
        self.assertEqual(green.get_sm_count(), 24)
        self.assertFalse(green.props.is_primary)
        self.assertEqual(Cugi.Context.get_default().get_sm_count(), 132)
        stream = Cugi.Stream.new(green, Cugi.StreamFlags.NON_BLOCKING, 0)
        self.assertEqual(stream.get_context(), green)
        stream.synchronize()
        with green:
            self.assertEqual(Cugi.Context.get_current().props.handle, green.props.handle)

    def test_bad_counts(self):
        for count in (0, 133):
            with self.assertRaises(GLib.Error) as caught:
                Cugi.Context.new_green(Cugi.Device.get(0), count)
            self.assertEqual(caught.exception.code, int(Cugi.Error.INVALID_ARGUMENT))
        self.assertEqual(Cugi.Context.new_green(None, 8).get_sm_count(), 8)


if __name__ == '__main__':
    unittest.main(verbosity=2)
