"""The start of cugi's GPU tests in Python: Cugi from the typelib, and
init_or_skip(), which initializes cugi or, where no GPU can be used, prints
the TAP plan of a skipped test with the reason and exits 77 (skipped)."""

import sys

import gi

gi.require_version('Cugi', '1.0')
from gi.repository import Cugi, GLib  # noqa: E402


def init_or_skip():
    try:
        Cugi.init()
    except GLib.Error as error:
        print(f'1..0 # SKIP no GPU: {error.message}')
        sys.exit(77)
