#!/usr/bin/env python3
"""Allocating and dropping 1 MiB of device memory from Python: cugi's pools
beside CuPy's memory pool, in one process on one GPU.

Times, per allocation and drop, `Cugi.MemoryPool.allocate(1 << 20)` (a
Cugi.Buffer), `Cugi.MemoryPool.take_block(1 << 20)` (a Cugi.MemoryBlock,
the pool's block without a buffer, as CuPy's pointer is),
`Cugi.StreamOrderedPool.allocate(stream, 1 << 20)`,
`Cugi.Buffer.new_on_stream(stream, 1 << 20)` and CuPy's
`cupy.cuda.alloc(1 << 20)` from `cupy.get_default_memory_pool()`, and
prints cugi's ratio to CuPy; the rounds are interleaved. MemoryPool's
allocate() and take_block() go through the overrides' C module (_cugi); the others
through PyGObject's invoker, whose cost alone, a GI method call that
allocates nothing and returns no object (`pool.get_held_blocks()`), is
timed beside them for reference. `--json FILE` writes the
figures as records {"bench": "alloc", "impl": ..., "us": ...}. Needs
PyGObject, CuPy and a GPU (on the GPU machine: bash .gpu/enter
.gpu/venv-gi tests/benchmarks/bench_alloc.py); exits 77 where any is
missing.
"""
import json
import sys

from bench_rounds import interleaved_us

try:
    import gi
    gi.require_version('Cugi', '1.0')
    from gi.repository import Cugi
    import cupy
except (ImportError, ValueError) as missing:
    print(f'1..0 # SKIP needs PyGObject and CuPy: {missing}')
    sys.exit(77)

if not Cugi.is_available():
    print('1..0 # SKIP no GPU usable')
    sys.exit(77)

SIZE = 1 << 20
PAIRS = 20000
SYNC_EVERY = 256
ROUNDS = 7


def per_pair_us(pairs):
    """Median microseconds per allocate + drop of each of @pairs (name: (the
    pair, what waits for its frees)), in interleaved rounds of PAIRS."""
    def pairs_run(pair, synchronize):
        def run():
            for i in range(1, PAIRS + 1):
                pair()
                if i % SYNC_EVERY == 0:
                    synchronize()
            synchronize()
        return run

    return interleaved_us({name: pairs_run(*pair) for name, pair in pairs.items()}, PAIRS, ROUNDS)


def main():
    json_file = sys.argv[sys.argv.index('--json') + 1] if '--json' in sys.argv else None
    context = Cugi.Context.get_default()
    device = context.get_device()
    stream = Cugi.Stream.new(context, Cugi.StreamFlags.NON_BLOCKING, 0)
    pool = Cugi.MemoryPool.new(context)
    ordered = Cugi.StreamOrderedPool.new(device)
    ordered.set_release_threshold(2**64 - 1)
    Cugi.StreamOrderedPool.get_default(device).set_release_threshold(2**64 - 1)
    cupy_pool = cupy.get_default_memory_pool()

    def cugi_pool():
        pool.allocate(SIZE)

    def cugi_block():
        pool.take_block(SIZE)

    def cugi_ordered():
        ordered.allocate(stream, SIZE)

    def cugi_on_stream():
        Cugi.Buffer.new_on_stream(stream, SIZE)

    def cupy_alloc():
        memory = cupy.cuda.alloc(SIZE)
        del memory

    def gi_call():
        pool.get_held_blocks()

    def nothing():
        pass

    figures = per_pair_us({
        'cupy-memory-pool': (cupy_alloc, nothing),
        'python-cugi-memory-pool': (cugi_pool, nothing),
        'python-cugi-memory-pool-block': (cugi_block, nothing),
        'python-cugi-stream-ordered-pool': (cugi_ordered, stream.synchronize),
        'python-cugi-buffer-new-on-stream': (cugi_on_stream, stream.synchronize),
        'python-gi-call-reference': (gi_call, nothing),
    })
    assert cupy_pool.used_bytes() == 0
    cupy_time = figures['cupy-memory-pool']
    print(f'bench_alloc: allocate + drop of {SIZE} bytes from Python; '
          f'medians of {ROUNDS} interleaved rounds of {PAIRS}')
    for impl, us in figures.items():
        print(f'{impl:36} {us:8.3f} us   {us / cupy_time:6.3f} x CuPy')
    if json_file:
        with open(json_file, 'w') as out:
            json.dump([{'bench': 'alloc', 'impl': impl, 'us': us} for impl, us in figures.items()],
                      out, indent=1)
    return 0


if __name__ == '__main__':
    sys.exit(main())
