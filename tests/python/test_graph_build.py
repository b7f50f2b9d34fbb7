#!/usr/bin/python3
"""Graphs built node by node through the typelib, against the stand-in
driver (fake-cuda-graphs.c): memset, copy and host nodes with dependencies
run at each launch (host nodes in the main context), nodes switched off and
on, and the errors of bad dependencies and wrong node kinds."""

import unittest

import gi

gi.require_version('Cugi', '1.0')
from gi.repository import Cugi, GLib  # noqa: E402

import numpy  # noqa: E402

SIZE = 256


class GraphBuildTest(unittest.TestCase):
    def test_memset_copy_host(self):
        a = Cugi.Buffer.new(None, SIZE)
        b = Cugi.Buffer.new(None, SIZE)
        a.memset_d8(0, 0, SIZE, None)
        stream = Cugi.Stream.new(None, Cugi.StreamFlags.NON_BLOCKING, 0)
        graph = Cugi.Graph.new(None)
        fill = graph.add_memset_node([], a, 8, 0x2a, SIZE - 16)
        copy = graph.add_copy_node([fill], b, 0, a, 0, SIZE)
        runs = []
        graph.add_host_node([copy], lambda: runs.append(1))
        self.assertEqual(graph.props.node_count, 3)
        self.assertEqual(copy.props.node_type, Cugi.GraphNodeType.MEMCPY)

        exec_ = graph.instantiate()
        exec_.launch(stream)
        exec_.launch(stream)
        stream.synchronize()
        context = GLib.MainContext.default()
        while len(runs) < 2:
            context.iteration(True)
        expected = numpy.zeros(SIZE, numpy.uint8)
        expected[8:SIZE - 8] = 0x2a
        numpy.testing.assert_array_equal(numpy.frombuffer(b.download(0, SIZE).get_data(), numpy.uint8),
                                         expected)

        exec_.set_node_enabled(fill, False)
        self.assertFalse(exec_.get_node_enabled(fill))
        a.memset_d8(0, 3, SIZE, stream)
        exec_.launch(stream)
        stream.synchronize()
        numpy.testing.assert_array_equal(numpy.frombuffer(b.download(0, SIZE).get_data(), numpy.uint8),
                                         numpy.full(SIZE, 3, numpy.uint8))
        while len(runs) < 3:
            context.iteration(True)

    def test_errors(self):
        graph = Cugi.Graph.new(None)
        other = Cugi.Graph.new(None)
        foreign = other.add_empty_node([])
        with self.assertRaises(GLib.Error) as caught:
            graph.add_empty_node([foreign])
        self.assertEqual(caught.exception.code, int(Cugi.Error.INVALID_ARGUMENT))
        empty = graph.add_empty_node([])
        with self.assertRaises(GLib.Error) as caught:
            graph.add_free_node([], empty)
        self.assertEqual(caught.exception.code, int(Cugi.Error.INVALID_ARGUMENT))
        with self.assertRaises(GLib.Error) as caught:
            graph.add_conditional_node([], Cugi.ConditionalType.WHILE, 0, 2)
        self.assertEqual(caught.exception.code, int(Cugi.Error.INVALID_ARGUMENT))
        exec_ = graph.instantiate()
        with self.assertRaises(GLib.Error) as caught:
            exec_.set_kernel_node_args(empty, Cugi.KernelArgs.new())
        self.assertEqual(caught.exception.code, int(Cugi.Error.INVALID_ARGUMENT))
        self.assertEqual(graph.props.node_count, 1)


if __name__ == '__main__':
    unittest.main(verbosity=2)
