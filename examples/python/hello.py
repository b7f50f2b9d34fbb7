#!/usr/bin/python3
"""cugi from Python: the device report, SAXPY compiled with NVRTC for the
GPU's architecture (sm_90 without a GPU, so the compile runs everywhere)
and, where a GPU is, NumPy arrays to the GPU and back, the kernel called
like a function and Stream::idle in the GLib main loop. The same steps,
output and exit status (0 with or without a GPU, 1 on a failure) as the C
cugi-hello.

    meson devenv -C build /usr/bin/python3 ../examples/python/hello.py
"""

import sys
import time

import gi

gi.require_version('Cugi', '1.0')
from gi.repository import Cugi, GLib  # noqa: E402
import numpy  # noqa: E402

SAXPY = '''
extern "C" __global__ void saxpy(float a, const float *x, float *y, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}
'''


# Without a GPU, the compile step targets this architecture (Hopper).
FALLBACK_ARCH = (9, 0)


def cuda_version(version):
    return f'CUDA {version // 1000}.{version % 1000 // 10}'


def report_devices():
    """The device report; the default device's architecture, None without a GPU."""
    try:
        Cugi.init()
    except GLib.Error as error:
        if not error.matches(Cugi.error_quark(), Cugi.Error.NOT_AVAILABLE):
            raise
        print(f'No GPU: {error.message}')
        return None
    print(f'Driver: {cuda_version(Cugi.get_driver_version())}')
    for device in Cugi.Device.list():
        props = device.props
        print(f'  {props.alias:7} {props.name}, '
              f'sm_{props.compute_capability_major}{props.compute_capability_minor}, '
              f'{props.total_memory / 2**30:.1f} GiB, {props.multiprocessor_count} SMs, '
              f'PCI {props.pci_bus_id}')
    props = Cugi.Device.get_default().props
    return props.compute_capability_major, props.compute_capability_minor


def compile_saxpy(major, minor):
    program = Cugi.Program.new(SAXPY, 'saxpy.cu')
    start = time.monotonic()
    program.compile_for_arch(major, minor, None)
    cubin = program.get_cubin()
    print(f'Compiled saxpy.cu for sm_{major}{minor}: PTX {program.get_ptx().get_size()} bytes, '
          f'CUBIN {cubin.get_size() if cubin else 0} bytes, {(time.monotonic() - start) * 1000:.1f} ms')


def run_saxpy():
    n = 1 << 20
    x = numpy.linspace(0, 1, n, dtype=numpy.float32)
    y = numpy.ones(n, dtype=numpy.float32)
    saxpy = Cugi.Kernel.new_from_source(None, SAXPY, 'saxpy', None)
    x_dev, y_dev = Cugi.to_device(x), Cugi.to_device(y)
    stream = Cugi.Stream.new(None, Cugi.StreamFlags.NON_BLOCKING, 0)

    # Stream::idle arrives in the main loop once the launch has completed.
    loop = GLib.MainLoop()
    stream.connect('idle', lambda stream: loop.quit())
    saxpy(2.0, x_dev, y_dev, n, grid=(n + 255) // 256, block=256, stream=stream)
    loop.run()

    result = y_dev.copy_to_host()
    if not numpy.allclose(result, 2.0 * x + y):
        raise RuntimeError('saxpy: wrong result')
    print(f'saxpy on {Cugi.Device.get_default().props.name}: {n} elements OK')


def main():
    print(f'cugi {Cugi.get_version()}')
    try:
        print(f'NVRTC: {cuda_version(Cugi.get_nvrtc_version())}')
        arch = report_devices()
        compile_saxpy(*(arch or FALLBACK_ARCH))
        if arch is None:
            print('saxpy: compiled only; launching it needs a GPU')
            return 0
        run_saxpy()
    except (GLib.Error, RuntimeError) as error:
        print(f'hello.py: {error.message if isinstance(error, GLib.Error) else error}', file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
