#!/usr/bin/python3
"""cugi's memory as a dma-buf: a buffer filled by a kernel is exported
(Buffer.export_dma_buf: the fd, the buffer's offset in it and its size),
imported back as external memory as another API or process would import
it, and read through the import. Says which step the driver refuses, if
any. Needs a GPU (without one it prints "no GPU: ..." and exits 77, a
test's skip).

    meson devenv -C build /usr/bin/python3 ../examples/python/dma_buf.py
"""

import os
import sys

import gi

gi.require_version('Cugi', '1.0')
from gi.repository import Cugi, GLib  # noqa: E402
import numpy  # noqa: E402

FILL = '''
extern "C" __global__ void fill(int *data, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        data[i] = i * i;
}
'''


def main():
    try:
        Cugi.init()
    except GLib.Error as error:
        print(f'no GPU: {error.message}')
        return 77
    n = 1 << 15
    buffer = Cugi.Buffer.new(None, n * 4)
    Cugi.Kernel.new_from_source(None, FILL, 'fill', None)(buffer, n, grid=n // 256, block=256)

    try:
        fd, offset, size = buffer.export_dma_buf()
    except GLib.Error as error:
        print(f'the driver exports no dma-buf: {error.message}')
        return 1
    print(f'dma-buf {fd}: {size} bytes, the buffer at offset {offset}')
    try:
        memory = Cugi.ExternalMemory.new_from_fd(None, Cugi.ExternalMemoryType.DMA_BUF, fd, size,
                                                 Cugi.ExternalMemoryFlags.NONE)
    except GLib.Error as error:
        print(f'exported, but the driver does not import it back: {error.message}')
        return 0
    finally:
        os.close(fd)  # cugi gave the driver a duplicate
    seen = memory.get_buffer(offset, n * 4).copy_to_host(numpy.int32)
    expected = numpy.arange(n, dtype=numpy.int64) ** 2
    ok = numpy.array_equal(seen, expected.astype(numpy.int32))
    print('read back through the import:', 'the same' if ok else 'DIFFERENT')
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
