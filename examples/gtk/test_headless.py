#!/usr/bin/python3
"""Starts the fractal explorer headless and checks what its window shows.

    test_headless.py [--keep FILE] COMMAND...

Runs COMMAND --screenshot FILE under Xvfb (xvfb-run) with GTK's cairo
renderer, within a timeout. The app saves a PNG of its window once it is
ready and quits; this checks that it exited 0, saved a PNG, and showed the
page it should: the no-GPU page where Cugi.init() fails (CI), the fractal
where it succeeds (on a GPU, or on the stand-in driver, where the fractal
page shows with a status instead of an image), that the picture, whose
size renders take, was given one, and that it shows a CugiGtk.Paintable.
Exit status 77 (skipped) without xvfb-run. --keep FILE keeps the
screenshot.
"""

import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

import gi
gi.require_version('Cugi', '1.0')
from gi.repository import Cugi, GLib  # noqa: E402

TIMEOUT = 90


def main():
    args = sys.argv[1:]
    keep = None
    if args[:1] == ['--keep']:
        keep, args = args[1], args[2:]
    xvfb_run = shutil.which('xvfb-run')
    if xvfb_run is None:
        print('SKIP: xvfb-run is not installed')
        return 77
    try:
        Cugi.init()
        expected = 'fractal'
    except GLib.Error:
        expected = 'no-gpu'

    env = dict(os.environ, GSK_RENDERER='cairo', GDK_BACKEND='x11', NO_AT_BRIDGE='1')
    env.pop('WAYLAND_DISPLAY', None)
    with tempfile.TemporaryDirectory() as scratch:
        path = os.path.join(scratch, 'window.png')
        run = subprocess.run([xvfb_run, '-a', '-s', '-screen 0 1600x1000x24'] + args + ['--screenshot', path],
                             env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             universal_newlines=True, timeout=TIMEOUT)
        print(run.stdout, end='')
        if run.returncode != 0:
            print('FAIL: exit status %d' % run.returncode)
            return 1
        shown = re.search(r'showing the (\S+) page \(picture (\d+) × (\d+), paintable (\S+)', run.stdout)
        if shown is None or shown.group(1) != expected:
            print('FAIL: expected the %s page' % expected)
            return 1
        # The fractal page renders at the picture's size, which the app
        # learns from its allocation: a picture that never got one would
        # never be rendered.
        if expected == 'fractal' and 0 in (int(shown.group(2)), int(shown.group(3))):
            print('FAIL: the picture was never given a size')
            return 1
        # Renders reach the picture through a CugiGtk.Paintable, from the
        # device buffer the kernel writes.
        if expected == 'fractal' and shown.group(4) != 'CugiGtkPaintable':
            print('FAIL: the picture shows a %s, not a CugiGtkPaintable' % shown.group(4))
            return 1
        with open(path, 'rb') as f:
            header = f.read(24)
        width, height = struct.unpack('>II', header[16:24])
        if header[:8] != b'\x89PNG\r\n\x1a\n' or width < 200 or height < 200:
            print('FAIL: the screenshot is not a PNG of a window')
            return 1
        print('OK: the %s page, a %d × %d screenshot' % (expected, width, height))
        if keep:
            shutil.copyfile(path, keep)
    return 0


if __name__ == '__main__':
    sys.exit(main())
