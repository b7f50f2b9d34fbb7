#!/usr/bin/python3
"""Tensor maps through the typelib, without a GPU: against the stand-in
driver of the tests (fake-cuda-streams with its tensor maps), whose
descriptors hold what they were made with, and which records the
parameters of the last launch at their offsets. What Python passes: lists
for the dimensions, strides and box; tensor maps as kernel arguments, by a
call, a prepared argument list and GValues; and the errors."""

import struct
import unittest

import gi

gi.require_version('Cugi', '1.0')
from gi.repository import Cugi, GLib  # noqa: E402

from stand_in import LaunchRecorder  # noqa: E402

# copy(CUtensorMap, float *) in the stand-in's module format: a C++ kernel,
# the descriptor 64-byte aligned at offset 0, the pointer at 128.
IMAGE = b'_Z4copy11CUtensorMapPf 128@64 8\n'

WIDTH, HEIGHT, PITCH = 100, 60, 512


class TensorMapTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.launches = LaunchRecorder()
        module = Cugi.Module.new_from_data(None, GLib.Bytes.new(IMAGE))
        cls.copy = module.get_kernel('_Z4copy11CUtensorMapPf')
        cls.matrix = Cugi.Buffer.new(None, HEIGHT * PITCH)
        cls.out = Cugi.Buffer.new(None, 4096)

    def new_map(self, **changes):
        arguments = dict(dims=[WIDTH, HEIGHT], strides=[PITCH], box=[32, 8])
        arguments.update(changes)
        return Cugi.TensorMap.new_tiled(self.matrix, Cugi.TensorDataType.FLOAT32, arguments['dims'],
                                        arguments['strides'], arguments['box'])

    def assert_passed(self, tensor_map):
        params = self.launches.last_params()
        self.assertEqual(len(params), 136)
        self.assertEqual(params[:128], tensor_map.get_descriptor().get_data())
        self.assertEqual(struct.unpack('<Q', params[128:]), (self.out.props.device_pointer,))

    def test_made_from_lists(self):
        tensor_map = self.new_map()
        self.assertEqual(tensor_map.props.rank, 2)
        self.assertEqual(tensor_map.props.data_type, Cugi.TensorDataType.FLOAT32)
        self.assertEqual(tensor_map.props.buffer, self.matrix)
        self.assertEqual(tensor_map.props.context, Cugi.Context.get_default())
        # The stand-in's descriptor: the address, the type and rank, the
        # dimensions, the stride, the box with its element strides.
        words = struct.unpack('<16Q', tensor_map.get_descriptor().get_data())
        self.assertEqual(words[0], self.matrix.props.device_pointer)
        self.assertEqual(words[1], int(Cugi.TensorDataType.FLOAT32) | 2 << 8)
        self.assertEqual(words[2:4], (WIDTH, HEIGHT))
        self.assertEqual(words[7], PITCH)
        self.assertEqual(words[11:13], (32 | 1 << 32, 8 | 1 << 32))

    def test_packed_and_full(self):
        packed = Cugi.TensorMap.new_tiled(self.matrix, Cugi.TensorDataType.UINT8, [64, 8], None, [16, 8])
        self.assertEqual(struct.unpack('<16Q', packed.get_descriptor().get_data())[7], 64)
        full = Cugi.TensorMap.new_tiled_full(self.matrix, Cugi.TensorDataType.FLOAT32, [WIDTH, HEIGHT],
                                             [PITCH], [8, 8], [1, 2], Cugi.TensorInterleave.NONE,
                                             Cugi.TensorSwizzle.SPAN_32B, Cugi.TensorL2Promotion.FETCH_128B,
                                             Cugi.TensorOobFill.NAN_REQUEST_ZERO_FMA)
        words = struct.unpack('<16Q', full.get_descriptor().get_data())
        self.assertEqual(words[1], 7 | 2 << 8 | 1 << 24 | 2 << 32 | 1 << 40)
        self.assertEqual(words[12], 8 | 2 << 32)

    def test_bad_input_names_the_argument(self):
        for changes, fragment in [(dict(box=[32]), 'box: the tensor needs 2 values, not 1'),
                                  (dict(strides=[520]), 'strides[0] is 520 bytes'),
                                  (dict(box=[32, 300]), 'box[1] is 300'),
                                  (dict(dims=[WIDTH, 0]), 'dims[1] is 0'),
                                  (dict(strides=[PITCH * 2]), 'the tensor ends past its 30720 bytes')]:
            with self.subTest(fragment=fragment), self.assertRaises(GLib.Error) as caught:
                self.new_map(**changes)
            self.assertEqual(caught.exception.code, int(Cugi.Error.INVALID_ARGUMENT))
            self.assertIn(fragment, caught.exception.message)
        # And maps are still made.
        self.assertEqual(self.new_map().props.rank, 2)

    def test_kernel_arguments(self):
        tensor_map = self.new_map()
        # A call (by GValues), and a prepared list.
        self.copy(tensor_map, self.out, grid=1, block=32)
        self.assert_passed(tensor_map)
        other = self.new_map(box=[16, 16])
        args = Cugi.KernelArgs.new()
        args.add_tensor_map(other)
        args.add_buffer(self.out)
        self.copy.launch(Cugi.LaunchConfig.new(1, 32), args)
        self.assert_passed(other)
        Cugi.Context.get_default().synchronize()

    def test_wrong_arguments(self):
        with self.assertRaises(GLib.Error) as caught:
            self.copy(1, self.out, grid=1, block=32)
        self.assertIn('pass a CugiTensorMap', caught.exception.message)
        with self.assertRaises(GLib.Error) as caught:
            self.copy(self.out, self.new_map(), grid=1, block=32)
        self.assertEqual(caught.exception.code, int(Cugi.Error.INVALID_ARGUMENT))


if __name__ == '__main__':
    unittest.main()
