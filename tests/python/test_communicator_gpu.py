#!/usr/bin/python3
"""One rank of an NCCL communicator on a GPU through the typelib, with the
real NCCL: connected from a GLib main loop, collectives on NumPy data
against NumPy's own results, a send to itself, closing without blocking.
Exits 77 (skipped) when no GPU or no NCCL can be used."""

import sys
import unittest

from cugi_gpu_test import init_or_skip
from gi.repository import Cugi, GLib  # noqa: E402

init_or_skip()

import numpy  # noqa: E402

try:
    UNIQUE_ID = Cugi.Communicator.new_unique_id()
except GLib.Error as error:
    print(f'1..0 # SKIP no NCCL: {error.message}')
    sys.exit(77)

COUNT = 1 << 18


class TestCommunicatorGpu(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        loop = GLib.MainLoop()
        found = {}

        def connected(_source, result, _data):
            found['comm'] = Cugi.Communicator.new_finish(result)
            loop.quit()

        Cugi.Communicator.new_async(None, UNIQUE_ID, 1, 0, None, connected, None)
        loop.run()
        cls.comm = found['comm']
        cls.stream = Cugi.Stream.new(None, Cugi.StreamFlags.NON_BLOCKING, 0)

    def test_collectives(self):
        values = numpy.random.default_rng(7).standard_normal(COUNT).astype(numpy.float32)
        send = Cugi.to_device(values)
        recv = Cugi.to_device(numpy.zeros(COUNT, dtype=numpy.float32))
        self.comm.all_reduce(send, recv, COUNT, Cugi.DataType.FLOAT32, Cugi.ReduceOp.SUM, self.stream)
        self.stream.synchronize()
        numpy.testing.assert_array_equal(recv.copy_to_host(), values)
        self.comm.all_reduce(send, send, COUNT, Cugi.DataType.FLOAT32, Cugi.ReduceOp.MAX, self.stream)
        self.comm.broadcast(send, recv, COUNT // 2, Cugi.DataType.FLOAT32, 0, self.stream)
        self.stream.synchronize()
        numpy.testing.assert_array_equal(recv.copy_to_host()[:COUNT // 2], values[:COUNT // 2])
        with self.assertRaises(GLib.Error) as caught:
            self.comm.all_gather(send, recv, COUNT, Cugi.DataType.FLOAT64, self.stream)
        self.assertEqual(caught.exception.code, int(Cugi.Error.INVALID_ARGUMENT))

    def test_send_to_self(self):
        values = numpy.arange(COUNT, dtype=numpy.int64)
        send = Cugi.to_device(values)
        recv = Cugi.to_device(numpy.zeros(COUNT, dtype=numpy.int64))
        Cugi.Communicator.group_start()
        self.comm.send(send, COUNT, Cugi.DataType.INT64, 0, self.stream)
        self.comm.recv(recv, COUNT, Cugi.DataType.INT64, 0, self.stream)
        Cugi.Communicator.group_end()
        self.stream.synchronize()
        numpy.testing.assert_array_equal(recv.copy_to_host(), values)

    def test_zz_close(self):
        loop = GLib.MainLoop()
        closed = {}

        def done(comm, result, _data):
            closed['ok'] = comm.close_finish(result)
            loop.quit()

        self.comm.close_async(None, done, None)
        loop.run()
        self.assertTrue(closed['ok'])
        self.assertEqual(self.comm.props.state, Cugi.CommunicatorState.CLOSED)


if __name__ == '__main__':
    unittest.main(verbosity=2)
