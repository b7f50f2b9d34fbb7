#!/usr/bin/python3
"""NCCL communicators through the typelib, without GPUs: two ranks of the
stand-in NCCL (fake-nccl, which CUGI_LIBNCCL names) connected from one main
loop, collectives on NumPy data, groups, construction properties, errors."""

import unittest

import gi

gi.require_version('Cugi', '1.0')
from gi.repository import Cugi, Gio, GLib  # noqa: E402

import numpy  # noqa: E402


def connect(n_ranks):
    """n_ranks communicators of one unique id, connected without blocking."""
    unique_id = Cugi.Communicator.new_unique_id()
    # The id travels as text, as it would to another process.
    text = Cugi.Communicator.unique_id_to_string(unique_id)
    loop = GLib.MainLoop()
    ranks = [None] * n_ranks

    def done(_source, result, rank):
        ranks[rank] = Cugi.Communicator.new_finish(result)
        if all(ranks):
            loop.quit()

    for rank in range(n_ranks):
        Cugi.Communicator.new_async(None, Cugi.Communicator.unique_id_from_string(text),
                                    n_ranks, rank, None, done, rank)
    loop.run()
    return ranks


class TestCommunicator(unittest.TestCase):
    def test_all_reduce_and_gather(self):
        ranks = connect(2)
        streams = [Cugi.Stream.new(None, Cugi.StreamFlags.NON_BLOCKING, 0) for _ in ranks]
        data = [Cugi.to_device(numpy.arange(8, dtype=numpy.float32) * (r + 1)) for r in range(2)]
        gathered = [Cugi.to_device(numpy.zeros(16, dtype=numpy.float32)) for _ in ranks]
        for r, comm in enumerate(ranks):
            self.assertEqual(comm.props.state, Cugi.CommunicatorState.READY)
            self.assertEqual((comm.props.rank, comm.props.n_ranks), (r, 2))
            comm.all_gather(data[r], gathered[r], 8, Cugi.DataType.FLOAT32, streams[r])
        for r, comm in enumerate(ranks):
            comm.all_reduce(data[r], data[r], 8, Cugi.DataType.FLOAT32, Cugi.ReduceOp.SUM, streams[r])
        for r, stream in enumerate(streams):
            stream.synchronize()
            numpy.testing.assert_array_equal(data[r].copy_to_host(), numpy.arange(8) * 3)
            numpy.testing.assert_array_equal(gathered[r].copy_to_host(),
                                             numpy.concatenate([numpy.arange(8), numpy.arange(8) * 2]))
        for comm in ranks:
            comm.close(None)
            self.assertEqual(comm.props.state, Cugi.CommunicatorState.CLOSED)

    def test_group_of_sends(self):
        ranks = connect(2)
        streams = [Cugi.Stream.new(None, Cugi.StreamFlags.NON_BLOCKING, 0) for _ in ranks]
        mine = [Cugi.to_device(numpy.full(4, r + 10, dtype=numpy.int64)) for r in range(2)]
        theirs = [Cugi.to_device(numpy.zeros(4, dtype=numpy.int64)) for _ in ranks]
        Cugi.Communicator.group_start()
        for r, comm in enumerate(ranks):
            comm.send(mine[r], 4, Cugi.DataType.INT64, 1 - r, streams[r])
            comm.recv(theirs[r], 4, Cugi.DataType.INT64, 1 - r, streams[r])
        Cugi.Communicator.group_end()
        for r, stream in enumerate(streams):
            stream.synchronize()
            numpy.testing.assert_array_equal(theirs[r].copy_to_host(), numpy.full(4, 11 - r))

    def test_all_to_all_and_scaled_sum(self):
        ranks = connect(2)
        streams = [Cugi.Stream.new(None, Cugi.StreamFlags.NON_BLOCKING, 0) for _ in ranks]
        # Rank r sends [r*10 + 0.., r*10 + 3..]: half to each rank.
        data = [Cugi.to_device(numpy.arange(6, dtype=numpy.float32) + 10 * r) for r in range(2)]
        swapped = [Cugi.to_device(numpy.zeros(6, dtype=numpy.float32)) for _ in ranks]
        for r, comm in enumerate(ranks):
            comm.all_to_all(data[r], swapped[r], 3, Cugi.DataType.FLOAT32, streams[r])
        for r, comm in enumerate(ranks):
            # 0.25 × rank 0's + 4 × rank 1's, in place.
            comm.all_reduce_scaled(data[r], data[r], 6, Cugi.DataType.FLOAT32, (0.25, 4.0)[r], streams[r])
        for r, stream in enumerate(streams):
            stream.synchronize()
            numpy.testing.assert_array_equal(
                swapped[r].copy_to_host(),
                numpy.concatenate([numpy.arange(3) + 3 * r, numpy.arange(3) + 3 * r + 10]))
            numpy.testing.assert_array_equal(data[r].copy_to_host(),
                                             0.25 * numpy.arange(6) + 4 * (numpy.arange(6) + 10))
        with self.assertRaises(GLib.Error) as caught:
            ranks[0].all_reduce_scaled(data[0], data[0], 6, Cugi.DataType.INT32, 0.5, None)
        self.assertEqual(caught.exception.code, int(Cugi.Error.INVALID_ARGUMENT))
        self.assertIn('0.5', caught.exception.message)

    def test_properties_and_errors(self):
        unique_id = Cugi.Communicator.new_unique_id()
        comm = Cugi.Communicator(unique_id=unique_id, max_ctas=4, net_name='Socket')
        with self.assertRaises(GLib.Error) as caught:
            comm.all_reduce(Cugi.to_device(numpy.zeros(2)), Cugi.to_device(numpy.zeros(2)), 2,
                            Cugi.DataType.FLOAT64, Cugi.ReduceOp.SUM, None)
        self.assertEqual(caught.exception.code, int(Cugi.Error.INVALID_STATE))
        comm.init(None)
        self.assertEqual((comm.props.max_ctas, comm.props.net_name), (4, 'Socket'))
        small = Cugi.to_device(numpy.zeros(3, dtype=numpy.float32))
        with self.assertRaises(GLib.Error) as caught:
            comm.all_reduce(small, small, 4, Cugi.DataType.FLOAT32, Cugi.ReduceOp.MAX, None)
        self.assertEqual(caught.exception.code, int(Cugi.Error.INVALID_ARGUMENT))
        self.assertIn('12 bytes', caught.exception.message)
        with self.assertRaises(GLib.Error) as caught:
            Cugi.Communicator.new(None, GLib.Bytes.new(b'short'), 1, 0, None)
        self.assertEqual(caught.exception.code, int(Cugi.Error.INVALID_ARGUMENT))
        comm.all_reduce(small, small, 3, Cugi.DataType.FLOAT32, Cugi.ReduceOp.MAX, None)
        cancellable = Gio.Cancellable()
        cancellable.cancel()
        lonely = Cugi.Communicator(unique_id=Cugi.Communicator.new_unique_id(), n_ranks=2, rank=0)
        with self.assertRaises(GLib.Error) as caught:
            lonely.init(cancellable)
        self.assertTrue(caught.exception.matches(Gio.io_error_quark(), Gio.IOErrorEnum.CANCELLED))
        self.assertEqual(lonely.props.state, Cugi.CommunicatorState.ABORTED)


if __name__ == '__main__':
    unittest.main(verbosity=2)
