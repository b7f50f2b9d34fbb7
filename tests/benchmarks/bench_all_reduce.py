#!/usr/bin/env python3
"""All-reduce bandwidth by size from Python: cugi through PyGObject beside
PyTorch's torch.distributed.all_reduce (NCCL backend), in one run on the
same ranks and GPUs.

    bench_all_reduce.py [--ranks N] [--min-size BYTES] [--max-size BYTES] [--json FILE]

The Python counterpart of bench-all-reduce.c, with the same sizes (8 B to
1 GiB, powers of 4 and the largest), float32 sums in place, schedule and
columns: each side is checked once a size (every rank's elements are its
rank + 1, the sum n(n + 1)/2), warmed up with a run, then timed in
interleaved runs taking turns going first; a run is one all-reduce that
lines the ranks up, then enough all-reduces to move 1 GiB (10 to 1000),
timed by the wall clock until they are done (cugi's stream synchronized;
torch.cuda.synchronize(), since PyTorch runs them on a stream of its own).
Prints per size and side the median time of an all-reduce, its algorithm
bandwidth (bytes / time) and bus bandwidth (× 2(n − 1)/n; 0 for one rank),
and the ratio cugi/torch of the bandwidths. cugi's side is
Cugi.Communicator.all_reduce() on a Cugi.Buffer and a Cugi.Stream;
PyTorch's dist.all_reduce() of a view of a CUDA tensor, its process group
made with init_method tcp://127.0.0.1:PORT. --ranks N: this process is
rank 0 on GPU 0 and starts N − 1 more with subprocess, rank r on GPU r.
--json FILE writes the records {"bench": "all-reduce-python", "impl":
"cugi"|"torch", "ranks", "size", "iterations", "us", "algbw_gbps",
"busbw_gbps"}. Needs PyGObject, NumPy, PyTorch with CUDA, a GPU and NCCL
(exits 77 without); on the GPU machine it runs in the machine's own Python
(.gpu/venv-gi, docs/multi-gpu.md). Never fails on speed.
"""
import argparse
import json
import os
import socket
import statistics
import struct
import subprocess
import sys
import threading
import time

try:
    import gi
    gi.require_version('Cugi', '1.0')
    from gi.repository import Cugi, GLib
    import numpy
    import torch
    import torch.distributed as dist
except (ImportError, ValueError) as missing:
    print(f'1..0 # SKIP needs PyGObject, NumPy and PyTorch: {missing}')
    sys.exit(77)

MIN_SIZE = 8
MAX_SIZE = 1 << 30
RUN_BYTES = 1 << 30
MIN_ITERATIONS = 10
MAX_ITERATIONS = 1000
REPETITIONS = 5
CHECK_ELEMENTS = 1 << 20


class CugiSide:
    """A rank of a Cugi.Communicator, all-reducing a Cugi.Buffer in place."""
    name = 'cugi'

    def __init__(self, rank, n_ranks, unique_id, max_size):
        context = Cugi.Device.get(rank).get_primary_context()
        self.stream = Cugi.Stream.new(context, Cugi.StreamFlags.NON_BLOCKING, 0)
        self.buffer = Cugi.Buffer.new(context, max_size)
        loop = GLib.MainLoop()
        found = {}

        def connected(_source, result, _data):
            try:
                found['comm'] = Cugi.Communicator.new_finish(result)
            except GLib.Error as error:
                found['error'] = error
            loop.quit()

        Cugi.Communicator.new_async(context, unique_id, n_ranks, rank, None, connected, None)
        loop.run()
        if 'error' in found:
            raise found['error']
        self.comm = found['comm']
        self.count = 0

    def prepare(self, count):
        self.count = count

    def fill(self, value):
        bits = struct.unpack('<I', struct.pack('<f', value))[0]
        self.buffer.memset_d32(0, bits, self.count, self.stream)

    def all_reduce(self):
        self.comm.all_reduce(self.buffer, self.buffer, self.count, Cugi.DataType.FLOAT32, Cugi.ReduceOp.SUM,
                             self.stream)

    def synchronize(self):
        self.stream.synchronize()

    def head(self, n):
        return numpy.frombuffer(self.buffer.download(0, n * 4).get_data(), numpy.float32)

    def close(self):
        self.comm.close(None)


class TorchSide:
    """A rank of PyTorch's NCCL process group, all-reducing a view of a
    CUDA tensor in place."""
    name = 'torch'

    def __init__(self, rank, n_ranks, init_method, max_size):
        device = torch.device('cuda', rank)
        torch.cuda.set_device(device)
        options = dict(backend='nccl', init_method=init_method, rank=rank, world_size=n_ranks)
        try:
            # device_id connects at once (PyTorch 2.3 and later), as cugi does.
            dist.init_process_group(device_id=device, **options)
        except TypeError:
            dist.init_process_group(**options)
        self.tensor = torch.empty(max_size // 4, dtype=torch.float32, device=device)
        self.view = self.tensor[:0]

    def prepare(self, count):
        # One view a size, as cugi's side takes one count: no slicing timed.
        self.view = self.tensor[:count]

    def fill(self, value):
        self.view.fill_(value)

    def all_reduce(self):
        dist.all_reduce(self.view)

    def synchronize(self):
        torch.cuda.synchronize()

    def head(self, n):
        return self.view[:n].cpu().numpy()

    def close(self):
        dist.destroy_process_group()


def run_us(side, iterations):
    """Microseconds per all-reduce of the side's size over @iterations,
    after one that waits for the slowest rank."""
    side.all_reduce()
    side.synchronize()
    start = time.perf_counter()
    for _ in range(iterations):
        side.all_reduce()
    side.synchronize()
    return (time.perf_counter() - start) / iterations * 1e6


def check(side, rank, n_ranks, count):
    """True when all-reducing every rank's rank + 1 gives n(n + 1)/2; then
    zeroes the elements, which the timed sums keep."""
    side.fill(rank + 1.0)
    side.all_reduce()
    side.synchronize()
    sums = side.head(min(count, CHECK_ELEMENTS))
    right = bool((sums == n_ranks * (n_ranks + 1) / 2).all())
    if not right:
        print(f'bench_all_reduce: rank {rank}, {side.name}, {count} elements: sums wrong, first {sums[:4]}',
              file=sys.stderr)
    side.fill(0.0)
    side.synchronize()
    return right


def sizes(min_size, max_size):
    size = min_size
    while True:
        yield size
        if size == max_size:
            return
        size = min(size * 4, max_size)


def size_text(size):
    for unit, shift in (('GiB', 30), ('MiB', 20), ('KiB', 10)):
        if size >= 1 << shift:
            return f'{size / (1 << shift):g} {unit}'
    return f'{size} B'


def measure(sides, rank, n_ranks, options):
    """Checks and times every side at every size: the records, and whether
    every sum was right (a wrong one goes on: the other ranks wait)."""
    records, right = [], True
    bus_factor = 2 * (n_ranks - 1) / n_ranks
    for size in sizes(options.min_size, options.max_size):
        count = size // 4
        iterations = max(MIN_ITERATIONS, min(MAX_ITERATIONS, RUN_BYTES // size))
        samples = {side.name: [] for side in sides}
        for side in sides:
            side.prepare(count)
            right &= check(side, rank, n_ranks, count)
            run_us(side, iterations)
        for repetition in range(REPETITIONS):
            # Each repetition starts with another side.
            for side in sides[repetition % len(sides):] + sides[:repetition % len(sides)]:
                samples[side.name].append(run_us(side, iterations))
        row = [f'{size_text(size):>10} {iterations:6}']
        medians = {}
        for side in sides:
            us = medians[side.name] = statistics.median(samples[side.name])
            algbw = size / (us * 1e3)
            row.append(f'{us:10.2f} {algbw:8.2f} {algbw * bus_factor:8.2f}')
            records.append({'bench': 'all-reduce-python', 'impl': side.name, 'ranks': n_ranks, 'size': size,
                            'iterations': iterations, 'us': us, 'algbw_gbps': algbw,
                            'busbw_gbps': algbw * bus_factor})
        row.append(f'{medians["torch"] / medians["cugi"]:8.3f}')
        if rank == 0:
            print(' | '.join(row), flush=True)
    return records, right


def free_port():
    """A TCP port of the loopback nobody listens on (PyTorch's store's)."""
    with socket.socket() as probe:
        probe.bind(('127.0.0.1', 0))
        return probe.getsockname()[1]


def start_ranks(n_ranks, unique_id, init_method, options):
    """Ranks 1 to @n_ranks - 1, and a watch that stops them all (and this
    process, which would wait for the failed one in NCCL) when one fails."""
    arguments = [sys.executable, os.path.abspath(__file__), '--min-size', str(options.min_size),
                 '--max-size', str(options.max_size)]
    children = []
    for rank in range(1, n_ranks):
        env = dict(os.environ, CUGI_RANK=str(rank), CUGI_N_RANKS=str(n_ranks), CUGI_UNIQUE_ID=unique_id,
                   CUGI_BENCH_TORCH_INIT=init_method)
        children.append(subprocess.Popen(arguments, env=env))

    def watch(child, rank):
        status = child.wait()
        if status not in (0, 77):
            print(f'bench_all_reduce: rank {rank} exited with status {status}: stopping', file=sys.stderr)
            for other in children:
                other.kill()
            os._exit(1)

    for rank, child in enumerate(children, 1):
        threading.Thread(target=watch, args=(child, rank), daemon=True).start()
    return children


def parse_options():
    parser = argparse.ArgumentParser(description='All-reduce bandwidth by size, cugi beside torch.distributed.')
    parser.add_argument('--ranks', type=int, default=1, help='run N ranks, one a GPU (default 1)')
    parser.add_argument('--min-size', type=int, default=MIN_SIZE, help='the smallest size in bytes (default 8)')
    parser.add_argument('--max-size', type=int, default=MAX_SIZE, help='the largest (default 1 GiB)')
    parser.add_argument('--json', help='write the figures to FILE as JSON records')
    options = parser.parse_args()
    if (options.ranks < 1 or options.min_size < 4 or options.min_size % 4 or options.max_size < options.min_size
            or options.max_size % 4):
        parser.error('--ranks takes a number from 1; --min-size and --max-size sizes in bytes, multiples of 4 '
                     '(float32 elements), the largest not below the smallest')
    return options


def main():
    options = parse_options()
    rank = int(os.environ.get('CUGI_RANK', '0'))
    n_ranks = int(os.environ.get('CUGI_N_RANKS', options.ranks))
    if not Cugi.is_available() or not torch.cuda.is_available():
        print('1..0 # SKIP no GPU usable by cugi and PyTorch')
        return 77
    if n_ranks > Cugi.Device.get_count():
        print(f'bench_all_reduce: {n_ranks} ranks need as many GPUs (one rank a GPU); '
              f'this machine has {Cugi.Device.get_count()}', file=sys.stderr)
        return 2
    children = []
    try:
        if rank == 0:
            unique_id = Cugi.Communicator.unique_id_to_string(Cugi.Communicator.new_unique_id())
            init_method = f'tcp://127.0.0.1:{free_port()}'
            children = start_ranks(n_ranks, unique_id, init_method, options)
        else:
            unique_id, init_method = os.environ['CUGI_UNIQUE_ID'], os.environ['CUGI_BENCH_TORCH_INIT']
        sides = [CugiSide(rank, n_ranks, Cugi.Communicator.unique_id_from_string(unique_id), options.max_size),
                 TorchSide(rank, n_ranks, init_method, options.max_size)]
    except GLib.Error as error:
        if not error.matches(Cugi.error_quark(), Cugi.Error.NOT_AVAILABLE):
            raise
        print(f'1..0 # SKIP no NCCL: {error.message}')
        return 77
    if rank == 0:
        nccl = torch.cuda.nccl.version()  # a tuple, or an int before PyTorch 2.1
        nccl = '.'.join(map(str, nccl)) if isinstance(nccl, tuple) else nccl
        print(f'bench_all_reduce on {Cugi.Device.get(0).props.name}, {n_ranks} rank{"s" if n_ranks > 1 else ""} '
              f'(PyTorch {torch.__version__}, its NCCL {nccl}): '
              f'float32 sums in place, medians of {REPETITIONS} runs;\n'
              'time of an all-reduce (us), algorithm and bus bandwidth (GB/s), cugi/torch of the bandwidths')
        print(f'{"size":>10} {"iters":>6} | {"cugi us":>10} {"algbw":>8} {"busbw":>8} | '
              f'{"torch us":>10} {"algbw":>8} {"busbw":>8} | {"cugi/torch":>8}')
    records, right = measure(sides, rank, n_ranks, options)
    for side in sides:
        side.close()
    statuses = [child.wait() for child in children]
    if rank == 0 and options.json:
        with open(options.json, 'w') as out:
            json.dump(records, out, indent=1)
    return 0 if right and all(status in (0, 77) for status in statuses) else 1


if __name__ == '__main__':
    sys.exit(main())
