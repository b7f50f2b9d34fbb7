#!/usr/bin/python3
"""cugi from Python: the device report, NumPy arrays to the GPU and back,
a kernel called like a function, and Stream::idle in the GLib main loop.

    meson devenv -C build /usr/bin/python3 ../examples/python/hello.py
"""

import sys

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


def main():
    try:
        Cugi.init()
    except GLib.Error as error:
        print(f'No GPU: {error.message}')
        return 0

    version = Cugi.get_driver_version()
    print(f'Driver: CUDA {version // 1000}.{version % 1000 // 10}')
    for device in Cugi.Device.list():
        props = device.props
        print(f'  {props.alias:7} {props.name}, '
              f'sm_{props.compute_capability_major}{props.compute_capability_minor}, '
              f'{props.total_memory / 2**30:.1f} GiB')

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
        print('saxpy: wrong result', file=sys.stderr)
        return 1
    print(f'saxpy on {Cugi.Device.get_default().props.name}: {n} elements OK')
    return 0


if __name__ == '__main__':
    sys.exit(main())
