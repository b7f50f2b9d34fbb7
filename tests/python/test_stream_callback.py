#!/usr/bin/python3
"""Host callbacks from Python, without a GPU: against the stand-in driver of
the tests (fake-cuda-streams), which runs host functions on threads of its
own as CUDA does. Stream.add_callback() takes any callable (and user data),
runs it in the stream's main context after the work before it, in order with
events' ::completed, and releases the closure afterwards."""

import gc
import unittest
import weakref

import gi

gi.require_version('Cugi', '1.0')
from gi.repository import Cugi, GLib  # noqa: E402


def run_until(condition, main_context=None):
    main_context = main_context or GLib.MainContext.default()
    deadline = GLib.get_monotonic_time() + 10 * 1000000
    while not condition() and GLib.get_monotonic_time() < deadline:
        main_context.iteration(False)
    return condition()


class Recorder:
    """A callable whose lifetime a weak reference follows."""

    def __init__(self, log, name):
        self.log = log
        self.name = name

    def __call__(self, stream):
        self.log.append((self.name, stream))


class StreamCallbackTest(unittest.TestCase):
    def setUp(self):
        self.stream = Cugi.Stream.new(None, Cugi.StreamFlags.NON_BLOCKING, 0)

    def test_order_with_events(self):
        log = []
        first = Cugi.Event.new(None, Cugi.EventFlags.DISABLE_TIMING)
        second = Cugi.Event.new(None, Cugi.EventFlags.DISABLE_TIMING)
        first.connect('completed', lambda event: log.append('e1'))
        second.connect('completed', lambda event: log.append('e2'))
        first.record(self.stream)
        self.stream.add_callback(lambda stream: log.append('a'))
        second.record(self.stream)
        self.stream.add_callback(lambda stream, data: log.append(data), 'b')
        self.assertTrue(run_until(lambda: len(log) == 4))
        self.assertEqual(log, ['e1', 'a', 'e2', 'b'])

    def test_stream_given_and_closure_released(self):
        log = []
        recorder = Recorder(log, 'r')
        gone = weakref.ref(recorder)
        self.stream.add_callback(recorder)
        del recorder
        self.assertTrue(run_until(lambda: len(log) == 1))
        self.assertEqual(log[0][0], 'r')
        self.assertEqual(log[0][1], self.stream)
        del log[:]
        gc.collect()
        self.assertIsNone(gone())

    def test_main_context_of_the_stream(self):
        main_context = GLib.MainContext.new()
        main_context.push_thread_default()
        try:
            stream = Cugi.Stream.new(None, Cugi.StreamFlags.NON_BLOCKING, 0)
        finally:
            main_context.pop_thread_default()
        log = []
        stream.add_callback(lambda stream: log.append('ran'))
        # Not in the global default context: in the stream's.
        for _ in range(50):
            GLib.MainContext.default().iteration(False)
        self.assertEqual(log, [])
        self.assertTrue(run_until(lambda: log == ['ran'], main_context))

    def test_refused(self):
        with self.assertRaises(GLib.Error) as caught:
            Cugi.Stream().add_callback(lambda stream: None)
        self.assertTrue(caught.exception.matches(Cugi.error_quark(), Cugi.Error.INVALID_STATE))


if __name__ == '__main__':
    unittest.main()
