#!/usr/bin/python3
"""What Python adds to a kernel launch, on the CPU alone.

Runs against the stand-in driver of the tests (fake-cuda-streams, whose
launches do nothing), so that what is timed is the cost of the Python call,
PyGObject and cugi: a 4-argument saxpy (float, const float *, float *,
unsigned) launched by calling the kernel, kernel(2.0, x, y, n, grid=1,
block=32), the same with a new value each call, by the prepared
Kernel.launch(config, args) and by Kernel.launch_values(config, [...]),
each for a C++ kernel (whose mangled name tells the parameters' types, so
the call uses its argument plan) and an extern "C" one (known by the
parameters' sizes alone). Prints
microseconds per launch, medians of the rounds; bench-launch-cpu gives the
same launch made from C for comparison.

  meson test -C build --benchmark bench-python-launch
  (or, by hand, with CUGI_LIBCUDA and FAKE_CUDA_BASE naming the stand-ins)

Options: --rounds N (default 7), --launches N per round (default 100000),
--json FILE (one record a line: {"bench": "launch-python-cpu", "impl": ...,
"kernel": "c++"|"extern-c", "us_per_launch": ...}), --profile (cProfile of
the calls, sorted by own time).
"""
import argparse
import itertools
import json
import statistics
import sys
import time

import gi

gi.require_version('Cugi', '1.0')
from gi.repository import Cugi, GLib  # noqa: E402

SYNC_EVERY = 1024
N_ELEMENTS = 32

# The stand-in driver's module format: a kernel and its parameters' sizes.
# _Z5saxpyfPKfPfj is saxpy(float, const float *, float *, unsigned int).
IMAGE = b'_Z5saxpyfPKfPfj 4 8 8 4\nsaxpy_c 4 8 8 4\n'
KERNELS = {'c++': '_Z5saxpyfPKfPfj', 'extern-c': 'saxpy_c'}


def per_launch_us(launch, stream, count):
    start = time.perf_counter()
    for i in range(count):
        launch()
        if i % SYNC_EVERY == SYNC_EVERY - 1:
            stream.synchronize()
    stream.synchronize()
    return (time.perf_counter() - start) * 1e6 / count


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--rounds', type=int, default=7)
    parser.add_argument('--launches', type=int, default=100000)
    parser.add_argument('--json', metavar='FILE')
    parser.add_argument('--profile', action='store_true')
    options = parser.parse_args()

    try:
        context = Cugi.Context.get_default()
        module = Cugi.Module.new_from_data(context, GLib.Bytes.new(IMAGE))
    except GLib.Error as error:
        print(f'1..0 # SKIP needs the stand-in driver (CUGI_LIBCUDA): {error.message}')
        return 77
    # Current, as bench-launch-cpu has it (and bench_peers, where
    # cuda-python makes it current): cugi then pushes nothing.
    context.push()
    stream = Cugi.Stream.new(context, Cugi.StreamFlags.NON_BLOCKING, 0)
    x = Cugi.Buffer.new(context, N_ELEMENTS * 4)
    y = Cugi.Buffer.new(context, N_ELEMENTS * 4)
    config = Cugi.LaunchConfig.new(1, N_ELEMENTS)
    config.set_stream(stream)

    cases = {}
    for kind, name in KERNELS.items():
        kernel = module.get_kernel(name)
        args = Cugi.KernelArgs.new()
        args.add_float(2.0)
        args.add_buffer(x)
        args.add_buffer(y)
        args.add_uint32(N_ELEMENTS)
        values = [2.0, x, y, N_ELEMENTS]
        cases[('call', kind)] = (lambda k=kernel: k(2.0, x, y, N_ELEMENTS, grid=1, block=N_ELEMENTS,
                                                     stream=stream))
        # A new value each call (the call launches the same values again
        # without writing them): a from a cycle, whose next() is timed too.
        cases[('call-new-values', kind)] = (
            lambda k=kernel, a=itertools.cycle((2.0, 3.0)).__next__:
            k(a(), x, y, N_ELEMENTS, grid=1, block=N_ELEMENTS, stream=stream))
        cases[('prepared', kind)] = lambda k=kernel, a=args: k.launch(config, a)
        cases[('launch_values', kind)] = lambda k=kernel, v=values: k.launch_values(config, v)

    if options.profile:
        import cProfile
        import pstats
        for (impl, kind), launch in cases.items():
            print(f'\n---- {impl}, {kind} kernel')
            profiler = cProfile.Profile()
            profiler.runcall(per_launch_us, launch, stream, options.launches)
            pstats.Stats(profiler).sort_stats('tottime').print_stats(12)
        return 0

    for launch in cases.values():
        per_launch_us(launch, stream, options.launches // 10)
    results = {case: [] for case in cases}
    for _ in range(max(options.rounds, 1)):
        for case, launch in cases.items():
            results[case].append(per_launch_us(launch, stream, options.launches))

    print(f'bench_python_launch: a 4-argument launch from Python against a driver that does nothing; '
          f'medians of {options.rounds} rounds of {options.launches} launches (µs per launch)')
    records = []
    for (impl, kind), times in results.items():
        median = statistics.median(times)
        print(f'  {impl + " (" + kind + ")":32s} {median:8.3f}')
        records.append({'bench': 'launch-python-cpu', 'impl': impl, 'kernel': kind,
                        'us_per_launch': median})
    if options.json:
        with open(options.json, 'a', encoding='utf-8') as out:
            for record in records:
                out.write(json.dumps(record) + '\n')
    return 0


if __name__ == '__main__':
    sys.exit(main())
