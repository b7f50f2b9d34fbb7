#!/usr/bin/python3
"""Checks the fractal explorer's --render against a CPU reference.

    check_render.py [--out DIR] COMMAND...

Runs COMMAND --render FILE --width 480 --height 320 --view VIEW for a few
known views (the Vala app or fractal.py), reads each PNG back and compares it
with a NumPy rendering of the same kernel: fractal.cu's iteration in float64,
operation for operation (the app compiles with --fmad=false, so the escape
iterations match bit for bit), and colour.cuh's default colouring in float32.

Tolerance: what is left differs by rounding in the colouring's cosf() and
log2(), a level now and then. A view passes when the mean absolute difference
is at most 0.1 levels (of 255) and at most 0.1 % of the channel values differ
by more than 2 levels. Exit status: 0 all pass, 1 a view fails, 77 no GPU
(Cugi.init() fails: the test is skipped). --out DIR keeps the PNGs.
"""

import os
import struct
import subprocess
import sys
import tempfile
import zlib

import numpy

import gi
gi.require_version('Cugi', '1.0')
from gi.repository import Cugi, GLib  # noqa: E402

WIDTH, HEIGHT = 480, 320
VIEWS = {
    'mandelbrot': '-0.6,0,2.6',
    'seahorse-valley': '-0.7436438870371587,0.13182590420531198,0.002',
    'julia': '0,0,3.2,-0.8,0.156',
}
MAX_MEAN = 0.1
MAX_FRACTION_OVER_2 = 0.001
BAILOUT_SQUARED = 256.0


def max_iterations(scale):
    # view.vala's View.max_iterations() and fractal.py's.
    return 256 + int(128 * max(0.0, numpy.log10(2.6 / scale)))


def reference(view):
    """fractal.cu and colour.cuh in NumPy: an RGBA array, HEIGHT × WIDTH."""
    values = [float(v) for v in view.split(',')]
    centre_re, centre_im, scale = values[:3]
    julia = values[3:]
    pixel = scale / HEIGHT
    x = numpy.arange(WIDTH, dtype=numpy.float64)[numpy.newaxis, :]
    y = numpy.arange(HEIGHT, dtype=numpy.float64)[:, numpy.newaxis]
    re = numpy.broadcast_to(centre_re + (x - 0.5 * WIDTH + 0.5) * pixel, (HEIGHT, WIDTH)).ravel()
    im = numpy.broadcast_to(centre_im - (y - 0.5 * HEIGHT + 0.5) * pixel, (HEIGHT, WIDTH)).ravel()
    if julia:
        zr, zi = re.copy(), im.copy()
        cr, ci = numpy.full_like(re, julia[0]), numpy.full_like(im, julia[1])
    else:
        zr, zi = numpy.zeros_like(re), numpy.zeros_like(im)
        cr, ci = re, im

    limit = max_iterations(scale)
    iterations = numpy.zeros(re.size, dtype=numpy.int64)
    r2 = zr * zr + zi * zi
    # The points still iterating, as indices: each step works on them only.
    active = numpy.flatnonzero(r2 <= BAILOUT_SQUARED)
    for _ in range(limit):
        if active.size == 0:
            break
        a_re, a_im = zr[active], zi[active]
        next_re = a_re * a_re - a_im * a_im + cr[active]
        next_im = 2.0 * a_re * a_im + ci[active]
        zr[active], zi[active] = next_re, next_im
        r2[active] = next_re * next_re + next_im * next_im
        iterations[active] += 1
        active = active[r2[active] <= BAILOUT_SQUARED]

    escaped = iterations < limit
    n = numpy.full(re.size, -1.0, dtype=numpy.float32)
    with numpy.errstate(divide='ignore', invalid='ignore'):
        smooth = numpy.maximum(iterations + 1 - numpy.log2(0.5 * numpy.log(r2)), 0.0)
    n[escaped] = smooth[escaped].astype(numpy.float32)

    f = numpy.float32
    t = n / f(32.0)
    rgba = numpy.full((re.size, 4), 255, dtype=numpy.uint8)
    for channel, phase in enumerate((f(0.00), f(0.10), f(0.20))):
        level = f(0.5) + f(0.5) * numpy.cos(f(6.2831853) * (t + phase))
        rgba[:, channel] = numpy.where(escaped, (f(255.0) * level + f(0.5)).astype(numpy.uint8), 0)
    return rgba.reshape(HEIGHT, WIDTH, 4)


def read_png(path):
    """An 8-bit RGBA PNG (what GdkTexture writes) as a HEIGHT × WIDTH × 4 array."""
    with open(path, 'rb') as f:
        data = f.read()
    if data[:8] != b'\x89PNG\r\n\x1a\n':
        raise ValueError('%s is not a PNG' % path)
    position, idat = 8, b''
    while position < len(data):
        length, kind = struct.unpack('>I4s', data[position:position + 8])
        body = data[position + 8:position + 8 + length]
        if kind == b'IHDR':
            width, height, depth, colour_type, _, _, interlace = struct.unpack('>IIBBBBB', body)
            if (depth, colour_type, interlace) != (8, 6, 0):
                raise ValueError('%s: not 8-bit non-interlaced RGBA' % path)
        elif kind == b'IDAT':
            idat += body
        position += 12 + length
    raw = numpy.frombuffer(zlib.decompress(idat), dtype=numpy.uint8).reshape(height, 1 + width * 4)
    return unfilter(raw[:, 0], raw[:, 1:].astype(numpy.int32)).reshape(height, width, 4)


def unfilter(filters, rows):
    """Undoes PNG's per-row filters (None, Sub, Up, Average, Paeth)."""
    out = numpy.zeros_like(rows)
    previous = numpy.zeros(rows.shape[1], dtype=numpy.int32)
    for y, (kind, row) in enumerate(zip(filters, rows)):
        if kind == 0:
            line = row
        elif kind == 1:
            line = numpy.cumsum(row.reshape(-1, 4), axis=0).ravel() % 256
        elif kind == 2:
            line = (row + previous) % 256
        else:
            # Average and Paeth depend on the pixel to the left as decoded:
            # one pixel at a time.
            line = row.copy()
            for x in range(0, row.size, 4):
                left = line[x - 4:x] if x else numpy.zeros(4, dtype=numpy.int32)
                up = previous[x:x + 4]
                if kind == 3:
                    predictor = (left + up) // 2
                else:
                    upper_left = previous[x - 4:x] if x else numpy.zeros(4, dtype=numpy.int32)
                    p = left + up - upper_left
                    pa, pb, pc = abs(p - left), abs(p - up), abs(p - upper_left)
                    predictor = numpy.where((pa <= pb) & (pa <= pc), left, numpy.where(pb <= pc, up, upper_left))
                line[x:x + 4] = (row[x:x + 4] + predictor) % 256
        out[y] = line
        previous = line
    return out.astype(numpy.uint8)


def check(command, name, view, directory):
    path = os.path.join(directory, 'render-%s.png' % name)
    subprocess.run(command + ['--render', path, '--width', str(WIDTH), '--height', str(HEIGHT),
                              '--view=' + view], check=True, timeout=120)
    difference = numpy.abs(read_png(path).astype(numpy.int16) - reference(view).astype(numpy.int16))
    mean = difference.mean()
    over_2 = numpy.count_nonzero(difference > 2) / difference.size
    passed = mean <= MAX_MEAN and over_2 <= MAX_FRACTION_OVER_2
    print('%-16s %s: max difference %d, mean %.4f, %.4f %% over 2 levels (%s)'
          % (name, view, difference.max(), mean, 100 * over_2, 'PASS' if passed else 'FAIL'))
    return passed


def main():
    args = sys.argv[1:]
    out = None
    if args[:1] == ['--out']:
        out, args = args[1], args[2:]
    try:
        Cugi.init()
    except GLib.Error as error:
        print('SKIP: no GPU:', error.message)
        return 77
    # A machine with a GPU but without GTK (the GPU machines here, unless
    # GTK is carried there) cannot run the app at all: nothing to compare.
    probe = subprocess.run(args + ['--help'], capture_output=True, text=True, timeout=60)
    if probe.returncode != 0:
        print('SKIP: the app does not start here:', (probe.stderr.strip().splitlines() or ['?'])[-1])
        return 77
    print('Tolerance: mean difference <= %.1f levels, at most %.1f %% of values over 2 levels'
          % (MAX_MEAN, 100 * MAX_FRACTION_OVER_2))
    with tempfile.TemporaryDirectory() as scratch:
        results = [check(args, name, view, out or scratch) for name, view in VIEWS.items()]
    print('PASS' if all(results) else 'FAIL')
    return 0 if all(results) else 1


if __name__ == '__main__':
    sys.exit(main())
