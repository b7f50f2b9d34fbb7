#!/usr/bin/python3
"""Virtual memory and pools shared between processes on a GPU through the
typelib: a kernel's data kept while its growable buffer grows, physical
memory exported as an fd that a child process maps and reads, and a
stream-ordered pool whose buffer a child opens after an IPC event (children:
virtual_memory_child.py). Exits 77 (skipped) when no GPU or no NVRTC can be
used."""

import base64
import sys
import textwrap
import unittest

from cugi_gpu_test import init_or_skip
from gi.repository import Cugi, GLib  # noqa: E402

init_or_skip()

import numpy  # noqa: E402

from virtual_memory_share import run_child  # noqa: E402

SOURCE = textwrap.dedent('''\
    extern "C" __global__ void fill(unsigned int *out, unsigned int start, unsigned int n)
    {
        unsigned int i = start + blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) out[i] = i * 3u + 1u;
    }
''')
BLOCK = 256
MIB = 1 << 20

try:
    PROGRAM = Cugi.Program.new(SOURCE, 'virtual_memory.cu')
    PROGRAM.compile_for_device(None, None)
    fill = Cugi.Module.new_from_program(None, PROGRAM).get_kernel('fill')
except GLib.Error as error:
    if error.code != int(Cugi.Error.NOT_AVAILABLE):
        raise
    print(f'1..0 # SKIP no NVRTC: {error.message}')
    sys.exit(77)


def expected(n):
    return numpy.arange(n, dtype=numpy.uint32) * 3 + 1


def fill_range(buffer, start, n, stream=None):
    fill(buffer, start, n, grid=(n - start + BLOCK - 1) // BLOCK, block=BLOCK, stream=stream)


class GrowableBufferTest(unittest.TestCase):
    def test_kernel_data_kept_while_growing(self):
        growable = Cugi.GrowableBuffer.new(None, 64 * MIB)
        buffer = growable.get_buffer()
        first = 1000
        growable.grow(first * 4)
        address = buffer.props.device_pointer
        fill_range(buffer, 0, first)
        every = 10 * MIB // 4
        growable.grow(every * 4)
        self.assertEqual(buffer.props.device_pointer, address)
        self.assertEqual(buffer.props.size, every * 4)
        head = numpy.frombuffer(buffer.download(0, first * 4).get_data(), dtype=numpy.uint32)
        numpy.testing.assert_array_equal(head, expected(first))
        fill_range(buffer, first, every)
        numpy.testing.assert_array_equal(buffer.copy_to_host(dtype=numpy.uint32), expected(every))


class SharingTest(unittest.TestCase):
    def test_child_maps_physical_memory(self):
        granularity = Cugi.PhysicalMemory.get_granularity(None, 0, False)
        if not Cugi.PhysicalMemory.get_supported_flags(None) & Cugi.PhysicalMemoryFlags.EXPORTABLE:
            self.skipTest('the device exports no POSIX file descriptors')
        memory = Cugi.PhysicalMemory.new(None, granularity, Cugi.PhysicalMemoryFlags.EXPORTABLE)
        reserved = Cugi.VirtualRange.new(None, granularity)
        reserved.map(0, memory)
        reserved.get_buffer(0, granularity).upload(0, b'written on the GPU by the parent\0')
        status, out = run_child(memory.export_fd(), 'fd', granularity)
        self.assertEqual((status, out), (0, 'written on the GPU by the parent'))

    def test_child_opens_pool_buffer_after_event(self):
        n = 1 << 20
        pool = Cugi.StreamOrderedPool.new_exportable(None)
        pool_fd = pool.export_fd()   # the pool is shared before its allocations are
        stream = Cugi.Stream.new(None, Cugi.StreamFlags.NON_BLOCKING, 0)
        event = Cugi.Event.new(None, Cugi.EventFlags.INTERPROCESS | Cugi.EventFlags.DISABLE_TIMING)
        buffer = pool.allocate(stream, n * 4)
        fill_range(buffer, 0, n, stream=stream)
        event.record(stream)
        exported = base64.b64encode(pool.export_buffer(buffer).get_data()).decode()
        handle = base64.b64encode(event.get_ipc_handle().get_data()).decode()
        status, out = run_child(pool_fd, 'pool', exported, handle)
        self.assertEqual((status, out), (0, f'{n} {int(expected(n).astype(numpy.uint64).sum())}'))
        stream.synchronize()


if __name__ == '__main__':
    unittest.main(verbosity=2)
