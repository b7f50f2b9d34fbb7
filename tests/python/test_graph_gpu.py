#!/usr/bin/python3
"""Graphs built node by node through the typelib, on the GPU: a while node
that runs until its kernel clears the condition, against a CPU reference.
Exits 77 (skipped) when no GPU can be used."""

import unittest

from cugi_gpu_test import init_or_skip
from gi.repository import Cugi  # noqa: E402

init_or_skip()

import numpy  # noqa: E402

SOURCE = '''extern "C" __device__ void cudaGraphSetConditional (unsigned long long handle, unsigned int value);
extern "C" __global__ void step (unsigned long long condition, int *counter, int limit)
{
  if (threadIdx.x == 0 && ++*counter >= limit)
    cudaGraphSetConditional (condition, 0);
}
'''
LOOPS = 23


class GraphGpuTest(unittest.TestCase):
    def test_while_loop(self):
        program = Cugi.Program.new(SOURCE, 'while.cu')
        program.compile(['-rdc=true'])
        linker = Cugi.Linker.new(None, None)
        linker.add_program(program)
        linker.add_device_runtime()
        step = linker.complete().get_kernel('step')

        counter = Cugi.Buffer.new(None, 4)
        graph = Cugi.Graph.new(None)
        reset = graph.add_memset_node([], counter, 0, 0, 4)
        condition = graph.create_condition(1, True)
        loop = graph.add_conditional_node([reset], Cugi.ConditionalType.WHILE, condition, 1)
        args = Cugi.KernelArgs.new()
        args.add_condition(condition)
        args.add_buffer(counter)
        args.add_int32(LOOPS)
        loop.get_body(0).add_kernel_node([], step, Cugi.LaunchConfig.new(1, 32), args)

        stream = Cugi.Stream.new(None, Cugi.StreamFlags.NON_BLOCKING, 0)
        exec_ = graph.instantiate()
        for _ in range(2):
            exec_.launch(stream)
            stream.synchronize()
            value = numpy.frombuffer(counter.download(0, 4).get_data(), numpy.int32)[0]
            self.assertEqual(value, LOOPS)


if __name__ == '__main__':
    unittest.main(verbosity=2)
