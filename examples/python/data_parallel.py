#!/usr/bin/python3
"""Data parallelism with cugi: one process per GPU, started with
Gio.Subprocess, joined by an NCCL communicator, averaging what each
computed with an all-reduce on every step, without any rank's main loop
blocking while NCCL connects them.

    data_parallel.py [--ranks N] [--steps S] [--rendezvous]

Without --ranks, one rank per GPU. The launcher makes the communicator's
unique id and gives each rank its id, rank and number of ranks in its
environment; each rank makes its communicator with new_async(), and on
each of S steps (10 by default) fills a gradient of 2^20 floats with what
it "computed", all-reduces the mean and checks it against the mean it
expects; then it prints one line. The launcher waits for all ranks in its
own main loop and exits 0 when all passed, 77 where there is no GPU or no
NCCL (docs/multi-gpu.md). data_parallel_mpi.py runs the same ranks under
mpirun; examples/c/data-parallel.c is this program in C.

With --rendezvous, the launcher gives the ranks an address instead of the
id (a free port of the loopback interface), as a cluster's launcher gives
MASTER_ADDR and MASTER_PORT: rank 0 makes the id and serves it there with
a Cugi.Rendezvous, and the other ranks fetch it from there with
fetch_async(), whichever starts first."""

import os
import socket
import sys

import gi

gi.require_version('Cugi', '1.0')
from gi.repository import Cugi, Gio, GLib  # noqa: E402

import numpy  # noqa: E402

# 4 MiB of float32: the gradient of a small model.
COUNT = 1 << 20
STEPS = 10
# How long a rank tries to fetch the id from rank 0.
FETCH_TIMEOUT_MS = 60000


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


def run_rank(rank, n_ranks, unique_id=None, steps=STEPS, rendezvous_address=None):
    """One rank, given the unique id or the address of rank 0's
    rendezvous: connects from a main loop, then on each of @steps steps
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

    def fetched(_source, result, _data):
        try:
            Cugi.Communicator.new_async(context, Cugi.Rendezvous.fetch_finish(result), n_ranks, rank, None,
                                        connected, None)
        except GLib.Error as error:
            outcome['error'] = error.message
            loop.quit()

    if rendezvous_address is None:
        Cugi.Communicator.new_async(context, unique_id, n_ranks, rank, None, connected, None)
    elif rank == 0:
        unique_id = Cugi.Communicator.new_unique_id()
        # Kept until the ranks are connected: dropping it stops it.
        rendezvous = Cugi.Rendezvous.new(unique_id, n_ranks)
        rendezvous.listen(rendezvous_address)
        Cugi.Communicator.new_async(context, unique_id, n_ranks, rank, None, connected, None)
    else:
        Cugi.Rendezvous.fetch_async(rendezvous_address, FETCH_TIMEOUT_MS, None, fetched, None)
    # The loop goes on while the id is fetched and NCCL connects the ranks.
    loop.run()
    if 'error' in outcome:
        print(f'rank {rank}/{n_ranks}: {outcome["error"]}')
        return 1
    print(f'rank {rank}/{n_ranks} on {device.props.name}: mean of {COUNT} elements over {steps} steps',
          'right' if outcome['ok'] else 'WRONG')
    return 0 if outcome['ok'] else 1


def free_loopback_address():
    """A port of the loopback interface that nothing listens on (a moment
    ago), for rank 0's rendezvous."""
    with socket.socket() as probe:
        probe.bind(('127.0.0.1', 0))
        return f'127.0.0.1:{probe.getsockname()[1]}'


def launch(n_ranks, steps, rendezvous):
    # Made here where the launcher hands it on, else only to see that NCCL
    # is there before any rank waits for rank 0.
    unique_id = Cugi.Communicator.unique_id_to_string(Cugi.Communicator.new_unique_id())
    if rendezvous:
        given = {'CUGI_RENDEZVOUS': free_loopback_address()}
    else:
        given = {'CUGI_UNIQUE_ID': unique_id}
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
        for name, value in given.items():
            launcher.setenv(name, value, True)
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
            rank, n_ranks = int(os.environ['CUGI_RANK']), int(os.environ['CUGI_N_RANKS'])
            if 'CUGI_RENDEZVOUS' in os.environ:
                return run_rank(rank, n_ranks, steps=steps, rendezvous_address=os.environ['CUGI_RENDEZVOUS'])
            return run_rank(rank, n_ranks, Cugi.Communicator.unique_id_from_string(os.environ['CUGI_UNIQUE_ID']),
                            steps)
        return launch(n_ranks or Cugi.Device.get_count(), steps, '--rendezvous' in argv)
    except GLib.Error as error:
        if not error.matches(Cugi.error_quark(), Cugi.Error.NOT_AVAILABLE):
            raise
        print(f'no GPU or no NCCL: {error.message}')
        return 77


if __name__ == '__main__':
    sys.exit(main(sys.argv))
