#!/usr/bin/python3
"""Data parallelism with cugi: one process per GPU, started with
Gio.Subprocess, joined by an NCCL communicator, averaging what each
computed with an all-reduce on every step, without any rank's main loop
blocking while NCCL connects them.

    data_parallel.py [--ranks N] [--steps S]

Without --ranks, one rank per GPU. The launcher makes the communicator's
unique id and gives each rank its id, rank and number of ranks in its
environment; each rank makes its communicator with new_async(), and on
each of S steps (10 by default) fills a gradient of 2^20 floats with what
it "computed", all-reduces the mean and checks it against the mean it
expects; then it prints one line. The launcher waits for all ranks in its
own main loop and exits 0 when all passed, 77 where there is no GPU or no
NCCL (docs/multi-gpu.md). data_parallel_mpi.py runs the same ranks under
mpirun; examples/c/data-parallel.c is this program in C."""

import os
import sys

import gi

gi.require_version('Cugi', '1.0')
from gi.repository import Cugi, Gio, GLib  # noqa: E402

import numpy  # noqa: E402

# 4 MiB of float32: the gradient of a small model.
COUNT = 1 << 20
STEPS = 10


def computed(rank, step):
    """What rank `rank` computed at step `step`: its own gradient."""
    return numpy.arange(COUNT, dtype=numpy.float32) * (rank + 1) + step


def option(argv, name, default, lowest):
    """The number given as `name N` in @argv, @default without it;
    ValueError for one that is not a number from @lowest."""
    if name not in argv:
        return default
    try:
        value = int(argv[argv.index(name) + 1])
    except (IndexError, ValueError):
        value = None
    if value is None or value < lowest:
        raise ValueError(f'{name} takes a number from {lowest}')
    return value


def run_rank(rank, n_ranks, unique_id, steps):
    """One rank: connects from a main loop, then on each of @steps steps
    all-reduces the mean of every rank's gradient and checks it; returns
    the process's exit status."""
    loop = GLib.MainLoop()
    outcome = {}
    device = Cugi.Device.get(rank % Cugi.Device.get_count())
    context = device.get_primary_context()
    stream = Cugi.Stream.new(context, Cugi.StreamFlags.NON_BLOCKING, 0)

    def connected(_source, result, _data):
        try:
            comm = Cugi.Communicator.new_finish(result)
            values = Cugi.to_device(computed(rank, 0), context)
            outcome['ok'] = True
            for step in range(steps):
                if step:
                    values.upload(0, computed(rank, step))
                comm.all_reduce(values, values, COUNT, Cugi.DataType.FLOAT32, Cugi.ReduceOp.AVG, stream)
                stream.synchronize()
                expected = sum(computed(r, step) for r in range(n_ranks)) / n_ranks
                # A wrong step goes on all the same: the other ranks wait
                # for this one's next all-reduce.
                outcome['ok'] &= numpy.allclose(values.copy_to_host(), expected)
            comm.close(None)
        except GLib.Error as error:
            outcome['error'] = error.message
        loop.quit()

    Cugi.Communicator.new_async(context, unique_id, n_ranks, rank, None, connected, None)
    # The loop goes on while NCCL connects the ranks.
    loop.run()
    if 'error' in outcome:
        print(f'rank {rank}/{n_ranks}: {outcome["error"]}')
        return 1
    print(f'rank {rank}/{n_ranks} on {device.props.name}: mean of {COUNT} elements over {steps} steps',
          'right' if outcome['ok'] else 'WRONG')
    return 0 if outcome['ok'] else 1


def launch(n_ranks, steps):
    unique_id = Cugi.Communicator.unique_id_to_string(Cugi.Communicator.new_unique_id())
    loop = GLib.MainLoop()
    failed = []
    running = [n_ranks]

    def finished(process, result, rank):
        try:
            process.wait_check_finish(result)
        except GLib.Error as error:
            failed.append(f'rank {rank}: {error.message}')
        running[0] -= 1
        if running[0] == 0:
            loop.quit()

    for rank in range(n_ranks):
        launcher = Gio.SubprocessLauncher.new(Gio.SubprocessFlags.NONE)
        launcher.setenv('CUGI_UNIQUE_ID', unique_id, True)
        launcher.setenv('CUGI_RANK', str(rank), True)
        launcher.setenv('CUGI_N_RANKS', str(n_ranks), True)
        process = launcher.spawnv([sys.executable, os.path.abspath(__file__), '--steps', str(steps)])
        process.wait_check_async(None, finished, rank)
    loop.run()
    for line in failed:
        print(line)
    return 1 if failed else 0


def main(argv):
    try:
        steps = option(argv, '--steps', STEPS, 1)
        n_ranks = option(argv, '--ranks', None, 1)
    except ValueError as error:
        print(f'data_parallel.py: {error}', file=sys.stderr)
        return 2
    try:
        Cugi.init()
        if 'CUGI_RANK' in os.environ:
            return run_rank(int(os.environ['CUGI_RANK']), int(os.environ['CUGI_N_RANKS']),
                            Cugi.Communicator.unique_id_from_string(os.environ['CUGI_UNIQUE_ID']), steps)
        return launch(n_ranks or Cugi.Device.get_count(), steps)
    except GLib.Error as error:
        if not error.matches(Cugi.error_quark(), Cugi.Error.NOT_AVAILABLE):
            raise
        print(f'no GPU or no NCCL: {error.message}')
        return 77


if __name__ == '__main__':
    sys.exit(main(sys.argv))
