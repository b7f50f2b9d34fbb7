#!/usr/bin/python3
"""Unique ids served by a Cugi.Rendezvous through the typelib, over the
loopback interface: an id of the stand-in NCCL (fake-nccl, which
CUGI_LIBNCCL names) fetched with fetch_async() in a GLib main loop, with
the blocking fetch() from a thread and from another process meanwhile, and
communicators connected with what was fetched; timeouts, cancellation and
bad input as GLib.Error."""

import socket
import sys
import threading
import unittest

import gi

gi.require_version('Cugi', '1.0')
from gi.repository import Cugi, Gio, GLib  # noqa: E402

# Never reached where an answer is expected; reached where none is.
PATIENT_MS = 60000
SHORT_MS = 200

# Another rank: fetches the id and prints it as text.
CHILD = '''
import sys
import gi
gi.require_version('Cugi', '1.0')
from gi.repository import Cugi
unique_id = Cugi.Rendezvous.fetch(sys.argv[1], int(sys.argv[2]), None)
print(Cugi.Communicator.unique_id_to_string(unique_id))
'''


def free_address():
    """A loopback address that nothing listens on (a moment ago)."""
    with socket.socket() as probe:
        probe.bind(('127.0.0.1', 0))
        return f'127.0.0.1:{probe.getsockname()[1]}'


def run_until(loop, done):
    """Runs `loop` until done() is true (callbacks quit the loop to have it
    asked again), failing after a minute."""
    gave_up = []

    def give_up():
        gave_up.append(True)
        loop.quit()
        return GLib.SOURCE_REMOVE

    timeout = GLib.timeout_add_seconds(60, give_up)
    while not done() and not gave_up:
        loop.run()
    if gave_up:
        raise AssertionError('gave up waiting')
    GLib.source_remove(timeout)


class TestRendezvous(unittest.TestCase):
    def test_serve_and_fetch(self):
        unique_id = Cugi.Communicator.new_unique_id()
        rendezvous = Cugi.Rendezvous.new(unique_id, 4)
        rendezvous.listen('127.0.0.1:0')
        address = rendezvous.props.address
        self.assertEqual(address, f'127.0.0.1:{rendezvous.props.port}')
        self.assertEqual(rendezvous.props.n_ranks, 4)
        loop = GLib.MainLoop()
        fetched = {}
        served = []

        def notified(source, _pspec):
            served.append(source.props.n_served)
            loop.quit()

        def async_done(_source, result, _data):
            fetched['async'] = Cugi.Rendezvous.fetch_finish(result)
            loop.quit()

        def child_done(process, result, _data):
            _ok, output, _errors = process.communicate_utf8_finish(result)
            fetched['child'] = output.strip()
            loop.quit()

        def in_thread():
            fetched['thread'] = Cugi.Rendezvous.fetch(address, PATIENT_MS, None)

        rendezvous.connect('notify::n-served', notified)
        Cugi.Rendezvous.fetch_async(address, PATIENT_MS, None, async_done, None)
        thread = threading.Thread(target=in_thread)
        thread.start()
        child = Gio.Subprocess.new([sys.executable, '-c', CHILD, address, str(PATIENT_MS)],
                                   Gio.SubprocessFlags.STDOUT_PIPE)
        child.communicate_utf8_async(None, None, child_done, None)
        # This loop serves all three while they wait.
        run_until(loop, lambda: len(served) == 3 and 'async' in fetched and 'child' in fetched)
        thread.join()
        child.wait_check(None)

        self.assertEqual(served, [1, 2, 3])
        for name in ('async', 'thread'):
            self.assertEqual(fetched[name].get_data(), unique_id.get_data(), name)
        self.assertEqual(fetched['child'], Cugi.Communicator.unique_id_to_string(unique_id))
        # Served all: nothing listens any more.
        with self.assertRaises(GLib.Error) as caught:
            Cugi.Rendezvous.fetch(address, SHORT_MS, None)
        self.assertEqual(caught.exception.code, int(Cugi.Error.TIMED_OUT))

        # The fetched id joins the communicator (the stand-in's ranks are
        # communicators of this process).
        ranks = [None, None]

        def connected(_source, result, rank):
            ranks[rank] = Cugi.Communicator.new_finish(result)
            loop.quit()

        Cugi.Communicator.new_async(None, unique_id, 2, 0, None, connected, 0)
        Cugi.Communicator.new_async(None, fetched['async'], 2, 1, None, connected, 1)
        run_until(loop, lambda: all(ranks))
        for comm in ranks:
            self.assertEqual(comm.props.state, Cugi.CommunicatorState.READY)

    def test_fetch_before_listen(self):
        unique_id = Cugi.Communicator.new_unique_id()
        address = free_address()
        rendezvous = Cugi.Rendezvous.new(unique_id, 2)
        loop = GLib.MainLoop()
        fetched = []

        def done(_source, result, _data):
            fetched.append(Cugi.Rendezvous.fetch_finish(result))
            loop.quit()

        def listen():
            self.assertEqual(fetched, [])
            rendezvous.listen(address)
            return GLib.SOURCE_REMOVE

        Cugi.Rendezvous.fetch_async(address, PATIENT_MS, None, done, None)
        GLib.timeout_add(100, listen)
        run_until(loop, lambda: fetched)
        self.assertEqual(fetched[0].get_data(), unique_id.get_data())

    def test_errors(self):
        with self.assertRaises(GLib.Error) as caught:
            Cugi.Rendezvous.new(GLib.Bytes.new(b'short'), 2)
        self.assertEqual(caught.exception.code, int(Cugi.Error.INVALID_ARGUMENT))
        rendezvous = Cugi.Rendezvous.new(GLib.Bytes.new(bytes(128)), 2)
        with self.assertRaises(GLib.Error) as caught:
            rendezvous.listen('localhost')
        self.assertEqual(caught.exception.code, int(Cugi.Error.INVALID_ARGUMENT))
        self.assertIsNone(rendezvous.props.address)
        with self.assertRaises(GLib.Error) as caught:
            Cugi.Rendezvous.fetch('no port', PATIENT_MS, None)
        self.assertEqual(caught.exception.code, int(Cugi.Error.INVALID_ARGUMENT))

        address = free_address()
        with self.assertRaises(GLib.Error) as caught:
            Cugi.Rendezvous.fetch(address, SHORT_MS, None)
        self.assertTrue(caught.exception.matches(Cugi.error_quark(), Cugi.Error.TIMED_OUT))
        self.assertIn(address, caught.exception.message)

        loop = GLib.MainLoop()
        cancellable = Gio.Cancellable()
        errors = []

        def done(_source, result, _data):
            try:
                Cugi.Rendezvous.fetch_finish(result)
            except GLib.Error as error:
                errors.append(error)
            loop.quit()

        Cugi.Rendezvous.fetch_async(address, 0, cancellable, done, None)
        GLib.timeout_add(50, cancellable.cancel)
        run_until(loop, lambda: errors)
        self.assertTrue(errors[0].matches(Gio.io_error_quark(), Gio.IOErrorEnum.CANCELLED))

        # And it still works.
        rendezvous.listen('127.0.0.1:0')
        fetched = []
        Cugi.Rendezvous.fetch_async(rendezvous.props.address, PATIENT_MS, None,
                                    lambda _s, result, _d: (fetched.append(Cugi.Rendezvous.fetch_finish(result)),
                                                            loop.quit()), None)
        run_until(loop, lambda: fetched)
        self.assertEqual(fetched[0].get_data(), bytes(128))


if __name__ == '__main__':
    unittest.main(verbosity=2)
