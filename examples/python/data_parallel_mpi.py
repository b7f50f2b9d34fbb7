#!/usr/bin/python3
"""Data parallelism with cugi and MPI: data_parallel.py's ranks, started
by mpirun instead of Gio.Subprocess, the communicator's unique id handed
out with mpi4py.

    mpirun -n N python3 data_parallel_mpi.py [--steps S]

Rank 0 makes the unique id and broadcasts it (comm.bcast); every rank
takes GPU rank % GPUs, makes its communicator with new_async() from a GLib
main loop and, on each of S steps (10 by default), all-reduces the mean of
every rank's gradient and checks it (data_parallel.run_rank). Before
connecting, the ranks tell each other whether they can take part, so that
none waits for a rank that left. Exits 0 when its means were right, 77
where mpi4py, a GPU or NCCL is missing, 1 otherwise. Runs under any Python
with PyGObject, NumPy and mpi4py (docs/multi-gpu.md)."""

import sys

try:
    from mpi4py import MPI
except ImportError as missing:
    print(f'no mpi4py: {missing}')
    sys.exit(77)

import data_parallel  # noqa: E402  (beside this file: the ranks' work)
from gi.repository import Cugi, GLib  # noqa: E402


def prepare(rank):
    """None where this rank can take part, else why not: (skipped?, text).
    Rank 0 also makes the unique id, as text: (None, id)."""
    try:
        Cugi.init()
        Cugi.Device.get_count()
        if rank == 0:
            return None, Cugi.Communicator.unique_id_to_string(Cugi.Communicator.new_unique_id())
        return None, None
    except GLib.Error as error:
        skipped = error.matches(Cugi.error_quark(), Cugi.Error.NOT_AVAILABLE)
        return (skipped, f'no GPU or no NCCL: {error.message}' if skipped else error.message), None


def main(argv):
    world = MPI.COMM_WORLD
    rank, n_ranks = world.Get_rank(), world.Get_size()
    try:
        steps = data_parallel.option(argv, '--steps', data_parallel.STEPS, 1)
    except ValueError as error:
        # Every rank reads the same arguments: all stop here.
        print(f'data_parallel_mpi.py: {error}', file=sys.stderr)
        return 2
    problem, unique_id = prepare(rank)
    problems = world.allgather(problem)
    if any(problems):
        if problem:
            print(f'rank {rank}/{n_ranks}: {problem[1]}')
        return 77 if all(p is None or p[0] for p in problems) else 1
    unique_id = world.bcast(unique_id, root=0)
    return data_parallel.run_rank(rank, n_ranks, Cugi.Communicator.unique_id_from_string(unique_id), steps)


if __name__ == '__main__':
    sys.exit(main(sys.argv))
