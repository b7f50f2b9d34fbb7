#!/usr/bin/env python3
"""cugi beside its Python peers, in one process on one GPU.

Compares, for a Python program, what a launch of a 4-argument kernel and a
round trip of 256 MiB cost through cugi (PyGObject) and through CuPy and
cuda-python (NVIDIA's driver bindings), all in the device's primary context.
Prints rates and cugi's ratio to each peer. Needs a Python with PyGObject,
CuPy and cuda-python (on the GPU machine: bash .gpu/enter .gpu/venv-gi
tests/benchmarks/bench_peers.py); exits 77 where any is missing.

--json FILE appends one JSON record a line: {"bench": "launch-python",
"impl": "cugi-call"|"cugi-prepared"|"cupy"|"cuda-python", "us_per_launch": ...}
and {"bench": "copy-python", "impl": "cugi"|"cupy", "gb_per_s": ...}.
"""
import argparse
import json
import statistics
import sys
import time

try:
    import gi
    gi.require_version('Cugi', '1.0')
    from gi.repository import Cugi
    import numpy
    import cupy
    from cuda.bindings import driver as cu
except (ImportError, ValueError) as missing:
    print(f'1..0 # SKIP needs PyGObject, NumPy, CuPy and cuda-python: {missing}')
    sys.exit(77)

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


def rate(run, count):
    """Median rate over ROUNDS of @run, which does @count operations."""
    rates = []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        run()
        rates.append(count / (time.perf_counter() - start))
    return statistics.median(rates)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--json', metavar='FILE', help='append the figures to FILE as JSON records')
    options = parser.parse_args()
    records = []
    context = Cugi.Context.get_default()
    device = context.props.device
    print(f'bench_peers on {device.props.name}: Python {sys.version.split()[0]}, '
          f'CuPy {cupy.__version__}; medians of {ROUNDS} rounds')

    # cugi
    kernel = Cugi.Kernel.new_from_source(None, SOURCE, 'saxpy', None)
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
        for i in range(LAUNCHES // 10):
            kernel(2.0, x, y, N_ELEMENTS, grid=1, block=N_ELEMENTS)
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
    check(cu.cuInit(0))
    cu_device = check(cu.cuDeviceGet(0))
    cu_context = check(cu.cuDevicePrimaryCtxRetain(cu_device))
    check(cu.cuCtxSetCurrent(cu_context))
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

    for warm in (cugi_launches, cupy_launches, raw_launches):
        warm()
    results = {
        'cugi Kernel.launch (prepared args)': rate(cugi_launches, LAUNCHES),
        'cugi kernel(...) call (override)': rate(cugi_calls, LAUNCHES // 10),
        'CuPy RawKernel call': rate(cupy_launches, LAUNCHES),
        'cuda-python cuLaunchKernel (prepared)': rate(raw_launches, LAUNCHES),
    }
    for name, impl in zip(results, ('cugi-prepared', 'cugi-call', 'cupy', 'cuda-python')):
        records.append({'bench': 'launch-python', 'impl': impl, 'us_per_launch': 1e6 / results[name]})
    print(f'\nLaunches a second, a {N_ELEMENTS}-thread saxpy, sync every {SYNC_EVERY}:')
    for name, value in results.items():
        print(f'  {name:40s} {value:12.0f}')
    prepared = results['cugi Kernel.launch (prepared args)']
    print(f'  cugi prepared / CuPy: {prepared / results["CuPy RawKernel call"]:.2f}; '
          f'cugi prepared / cuda-python: {prepared / results["cuda-python cuLaunchKernel (prepared)"]:.2f}; '
          f'cugi call / CuPy: {results["cugi kernel(...) call (override)"] / results["CuPy RawKernel call"]:.2f}')

    # Round trips of 256 MiB from pageable NumPy memory and back.
    host = numpy.random.default_rng(1).random(COPY_BYTES // 4, dtype=numpy.float32)

    def cugi_round_trip():
        back = Cugi.to_device(host).copy_to_host()
        assert back[12345] == host[12345]

    def cupy_round_trip():
        back = cupy.asnumpy(cupy.asarray(host))
        assert back[12345] == host[12345]

    cugi_round_trip()
    cupy_round_trip()
    gb = 2 * COPY_BYTES / 1e9
    cugi_rate = rate(cugi_round_trip, gb)
    cupy_rate = rate(cupy_round_trip, gb)
    print('\nRound trip of 256 MiB (to the device and back), GB/s counting both ways:')
    print(f'  cugi to_device + copy_to_host            {cugi_rate:12.2f}')
    print(f'  CuPy asarray + asnumpy                   {cupy_rate:12.2f}')
    print(f'  cugi / CuPy: {cugi_rate / cupy_rate:.2f}')
    records += [{'bench': 'copy-python', 'impl': 'cugi', 'gb_per_s': cugi_rate},
                {'bench': 'copy-python', 'impl': 'cupy', 'gb_per_s': cupy_rate}]
    check(cu.cuModuleUnload(module))
    if options.json:
        with open(options.json, 'a', encoding='utf-8') as out:
            for record in records:
                out.write(json.dumps(record) + '\n')
    return 0


if __name__ == '__main__':
    sys.exit(main())
