#!/usr/bin/env python3
"""cugi beside its Python peers, in one process on one GPU.

Compares, for a Python program, what a launch of a 4-argument kernel and a
round trip of 256 MiB cost through cugi (PyGObject) and through CuPy and
cuda-python (NVIDIA's driver bindings), all in the device's primary context;
and uploads and downloads of 256 MiB of NumPy memory, pageable and pinned,
through the overrides (Buffer.upload(0, array), Buffer.download_into(array))
beside the C library's own address entry points called directly and
cuda-python's cuMemcpyHtoD and cuMemcpyDtoH. The launches are also timed
from C straight through the driver (bench-raw-launch.c, through ctypes), the
raw C reference. Every comparison's rounds are interleaved (bench_rounds.py).
Prints rates and cugi's ratio to each peer. Needs a Python with PyGObject
and NumPy and a CUDA driver (exits 77 without); the launches and round
trips need CuPy and cuda-python too, and the transfers' raw column
cuda-python, each left out where missing (on the GPU machine: bash
.gpu/enter .gpu/venv-gi tests/benchmarks/bench_peers.py; without a GPU the
transfers run against the stand-in driver of the tests, whose figures are
host memcpy's).

--json FILE appends one JSON record a line: {"bench": "launch-python",
"impl": "cugi-call"|"cugi-prepared"|"cupy"|"cuda-python"|"raw-c", "us_per_launch": ...},
{"bench": "copy-python", "impl": "cugi"|"cupy", "gb_per_s": ...} and
{"bench": "transfer-python", "direction": "upload"|"download",
"memory": "pageable"|"pinned", "impl": "override"|"cugi-c"|"cuda-python",
"gb_per_s": ...}.
"""
import argparse
import ctypes
import json
import os
import sys

from bench_rounds import interleaved_us

try:
    import gi
    gi.require_version('Cugi', '1.0')
    from gi.repository import Cugi
    import numpy
except (ImportError, ValueError) as missing:
    print(f'1..0 # SKIP needs PyGObject and NumPy: {missing}')
    sys.exit(77)

try:
    import cupy
except ImportError:
    cupy = None
try:
    from cuda.bindings import driver as cu
except ImportError:
    try:
        from cuda import cuda as cu     # cuda-python before 12.6
    except ImportError:
        cu = None

if not Cugi.is_available():
    print('1..0 # SKIP no GPU usable')
    sys.exit(77)

SOURCE = r'''
extern "C" __global__ void saxpy(float a, const float *x, float *y, unsigned n)
{
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}
'''
N_ELEMENTS = 32
LAUNCHES = 20000
SYNC_EVERY = 1000
ROUNDS = 5
COPY_BYTES = 256 << 20


def check(result):
    error = result[0] if isinstance(result, tuple) else result
    if error != cu.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f'cuda-python: {error}')
    return result[1] if isinstance(result, tuple) and len(result) == 2 else None


def raw_c_launcher():
    """bench_raw_launch_seconds() of bench-raw-launch.c, or None where it is
    not built (CUGI_BENCH_RAW_LAUNCH names it; by default the build tree's,
    from the project's root)."""
    path = os.environ.get('CUGI_BENCH_RAW_LAUNCH', 'build/tests/benchmarks/libbench-raw-launch.so')
    try:
        function = ctypes.CDLL(os.path.abspath(path)).bench_raw_launch_seconds
    except OSError as error:
        print(f'raw C launches left out: {error}')
        return None
    function.restype = ctypes.c_double
    function.argtypes = [ctypes.c_uint64, ctypes.c_uint64, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint]
    return function


def raw_driver():
    """Makes the default device's primary context current for cuda-python
    and returns it, or None where cuda-python or its driver is missing."""
    if cu is None:
        return None
    try:
        check(cu.cuInit(0))
    except (RuntimeError, OSError) as error:
        print(f'cuda-python has no driver here ({error}): its figures are left out')
        return None
    cu_context = check(cu.cuDevicePrimaryCtxRetain(check(cu.cuDeviceGet(0))))
    check(cu.cuCtxSetCurrent(cu_context))
    return cu_context


def launches(records, device):
    kernel = Cugi.Kernel.new_from_source(None, SOURCE, 'saxpy', None)
    context = Cugi.Context.get_default()
    x = Cugi.to_device(numpy.ones(N_ELEMENTS, numpy.float32))
    y = Cugi.to_device(numpy.zeros(N_ELEMENTS, numpy.float32))
    config = Cugi.LaunchConfig.new(1, N_ELEMENTS)
    args = Cugi.KernelArgs.new()
    args.add_float(2.0)
    args.add_buffer(x)
    args.add_buffer(y)
    args.add_uint32(N_ELEMENTS)

    def cugi_launches():
        for i in range(LAUNCHES):
            kernel.launch(config, args)
            if i % SYNC_EVERY == SYNC_EVERY - 1:
                context.synchronize()

    def cugi_calls():
        for i in range(LAUNCHES):
            kernel(2.0, x, y, N_ELEMENTS, grid=1, block=N_ELEMENTS)
            if i % SYNC_EVERY == SYNC_EVERY - 1:
                context.synchronize()

    # CuPy: the same source through its RawKernel, on the legacy stream as cugi's.
    cupy_kernel = cupy.RawKernel(SOURCE, 'saxpy')
    cx = cupy.ones(N_ELEMENTS, cupy.float32)
    cy = cupy.zeros(N_ELEMENTS, cupy.float32)
    cupy_args = (numpy.float32(2.0), cx, cy, numpy.uint32(N_ELEMENTS))

    def cupy_launches():
        for i in range(LAUNCHES):
            cupy_kernel((1,), (N_ELEMENTS,), cupy_args)
            if i % SYNC_EVERY == SYNC_EVERY - 1:
                cupy.cuda.runtime.deviceSynchronize()

    # cuda-python: cuLaunchKernel with parameters prepared once, the fastest
    # a Python program can call the driver.
    program = Cugi.Program.new(SOURCE, 'saxpy.cu')
    program.compile_for_device(device, None)
    module = check(cu.cuModuleLoadData(program.get_cubin().get_data()))
    function = check(cu.cuModuleGetFunction(module, b'saxpy'))
    values = [numpy.array([2.0], numpy.float32),
              numpy.array([x.props.device_pointer], numpy.uint64),
              numpy.array([y.props.device_pointer], numpy.uint64),
              numpy.array([N_ELEMENTS], numpy.uint32)]
    params = numpy.array([v.ctypes.data for v in values], numpy.uint64)

    def raw_launches():
        for i in range(LAUNCHES):
            cu.cuLaunchKernel(function, 1, 1, 1, N_ELEMENTS, 1, 1, 0, 0, params.ctypes.data, 0)
            if i % SYNC_EVERY == SYNC_EVERY - 1:
                cu.cuCtxSynchronize()

    # The raw C reference: the same launches from C (bench-raw-launch.c).
    raw_c = raw_c_launcher()

    def raw_c_launches():
        if raw_c(int(function), params.ctypes.data, N_ELEMENTS, LAUNCHES, SYNC_EVERY) < 0:
            raise RuntimeError('bench-raw-launch: a launch failed')

    runs = {'cugi-prepared': cugi_launches, 'cugi-call': cugi_calls, 'cupy': cupy_launches,
            'cuda-python': raw_launches}
    if raw_c is not None:
        runs['raw-c'] = raw_c_launches
    us = interleaved_us(runs, LAUNCHES, ROUNDS)
    for impl, value in us.items():
        records.append({'bench': 'launch-python', 'impl': impl, 'us_per_launch': value})
    names = {'cugi-prepared': 'cugi Kernel.launch (prepared args)',
             'cugi-call': 'cugi kernel(...) call (override)', 'cupy': 'CuPy RawKernel call',
             'cuda-python': 'cuda-python cuLaunchKernel (prepared)',
             'raw-c': 'raw C cuLaunchKernel (prepared)'}
    print(f'\nLaunches, a {N_ELEMENTS}-thread saxpy, sync every {SYNC_EVERY}; '
          f'rounds interleaved (µs per launch, and launches a second):')
    for impl, value in us.items():
        print(f'  {names[impl]:40s} {value:8.3f} µs {1e6 / value:10.0f}')
    print(f'  cugi call / CuPy time: {us["cugi-call"] / us["cupy"]:.2f}; '
          f'cugi prepared / CuPy time: {us["cugi-prepared"] / us["cupy"]:.2f}')
    if raw_c is not None:
        print(f'  cugi call / raw C time: {us["cugi-call"] / us["raw-c"]:.2f}; '
              f'cugi prepared / raw C time: {us["cugi-prepared"] / us["raw-c"]:.2f}; '
              f'cuda-python / raw C time: {us["cuda-python"] / us["raw-c"]:.2f}')
    check(cu.cuModuleUnload(module))


def round_trips(records):
    """Round trips of 256 MiB from pageable NumPy memory and back."""
    host = numpy.random.default_rng(1).random(COPY_BYTES // 4, dtype=numpy.float32)

    def cugi_round_trip():
        back = Cugi.to_device(host).copy_to_host()
        assert back[12345] == host[12345]

    def cupy_round_trip():
        back = cupy.asnumpy(cupy.asarray(host))
        assert back[12345] == host[12345]

    gb = 2 * COPY_BYTES / 1e9
    us = interleaved_us({'cugi': cugi_round_trip, 'cupy': cupy_round_trip}, 1, ROUNDS)
    cugi_rate, cupy_rate = gb / (us['cugi'] * 1e-6), gb / (us['cupy'] * 1e-6)
    print('\nRound trip of 256 MiB (to the device and back), GB/s counting both ways:')
    print(f'  cugi to_device + copy_to_host            {cugi_rate:12.2f}')
    print(f'  CuPy asarray + asnumpy                   {cupy_rate:12.2f}')
    print(f'  cugi / CuPy: {cugi_rate / cupy_rate:.2f}')
    records += [{'bench': 'copy-python', 'impl': 'cugi', 'gb_per_s': cugi_rate},
                {'bench': 'copy-python', 'impl': 'cupy', 'gb_per_s': cupy_rate}]


def transfer_ways(buffer, host, raw_memory):
    """{direction: {impl: function}}: the copies of @host, a NumPy array of
    COPY_BYTES, to and from @buffer through the override and through the C
    library's address entry points, and to and from @raw_memory (None: left
    out) through cuda-python."""
    address = host.ctypes.data
    ways = {
        'upload': {
            'override': lambda: buffer.upload(0, host),
            'cugi-c': lambda: buffer.upload_from_address(0, address, COPY_BYTES),
        },
        'download': {
            'override': lambda: buffer.download_into(host),
            'cugi-c': lambda: buffer.download_to_address(0, address, COPY_BYTES),
        },
    }
    if raw_memory is not None:
        ways['upload']['cuda-python'] = lambda: check(cu.cuMemcpyHtoD(raw_memory, address, COPY_BYTES))
        ways['download']['cuda-python'] = lambda: check(cu.cuMemcpyDtoH(address, raw_memory, COPY_BYTES))
    return ways


def transfers(records, raw):
    """256 MiB of NumPy memory to the device and back, pageable and pinned
    (a NumPy view of a pinned HostBuffer)."""
    buffer = Cugi.Buffer.new(None, COPY_BYTES)
    pageable = numpy.random.default_rng(2).random(COPY_BYTES // 4, dtype=numpy.float32)
    pinned = Cugi.pinned_array(pageable.shape, numpy.float32)
    pinned[:] = pageable
    raw_memory = check(cu.cuMemAlloc(COPY_BYTES)) if raw is not None else None
    gb = COPY_BYTES / 1e9
    print('\nTransfers of 256 MiB of NumPy memory, GB/s; override: Buffer.upload(0, array) and '
          'download_into(array); cugi-c: upload_from_address and download_to_address '
          'called directly; cuda-python: cuMemcpyHtoD and cuMemcpyDtoH'
          + ('' if raw is not None else ' (left out: no cuda-python or no driver for it)') + ':')
    for memory, host in (('pageable', pageable), ('pinned', pinned)):
        for direction, impls in transfer_ways(buffer, host, raw_memory).items():
            # Warmed (staging blocks, page faults) and timed in interleaved
            # rounds of a few copies each.
            rates = {impl: gb / (us * 1e-6) for impl, us in interleaved_us(impls, 1, ROUNDS, repeat=3).items()}
            for impl, value in rates.items():
                records.append({'bench': 'transfer-python', 'direction': direction,
                                'memory': memory, 'impl': impl, 'gb_per_s': value})
            line = ''.join(f'  {impl} {value:7.2f}' for impl, value in rates.items())
            line += f'  override/C {rates["override"] / rates["cugi-c"]:.2f} (goal >= 0.95)'
            if 'cuda-python' in rates:
                line += f'  cugi/raw {rates["cugi-c"] / rates["cuda-python"]:.2f}'
            print(f'  {direction:8s} {memory:8s}{line}')
    if raw_memory is not None:
        check(cu.cuMemFree(raw_memory))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--json', metavar='FILE', help='append the figures to FILE as JSON records')
    options = parser.parse_args()
    records = []
    device = Cugi.Context.get_default().props.device
    print(f'bench_peers on {device.props.name}: Python {sys.version.split()[0]}, '
          f'CuPy {cupy.__version__ if cupy else "missing"}, '
          f'cuda-python {"found" if cu else "missing"}; medians of {ROUNDS} rounds')
    raw = raw_driver()
    if cupy is not None and raw is not None:
        launches(records, device)
        round_trips(records)
    else:
        print('\nLaunches and round trips beside CuPy and cuda-python: left out, '
              'they need both and a driver for them')
    transfers(records, raw)
    if options.json:
        with open(options.json, 'a', encoding='utf-8') as out:
            for record in records:
                out.write(json.dumps(record) + '\n')
    return 0


if __name__ == '__main__':
    sys.exit(main())
