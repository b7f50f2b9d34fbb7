"""What the virtual memory tests in Python share: running
virtual_memory_child.py with a file descriptor as its fd 3, the way a
program hands memory to a child (Gio.SubprocessLauncher.take_fd)."""

import os
import sys

from gi.repository import Gio

CHILD = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'virtual_memory_child.py')


def run_child(fd, *args):
    """Runs the child with @fd (taken) as its fd 3: its exit status and
    standard output."""
    launcher = Gio.SubprocessLauncher.new(Gio.SubprocessFlags.STDOUT_PIPE)
    launcher.take_fd(fd, 3)
    child = launcher.spawnv([sys.executable, CHILD] + [str(arg) for arg in args])
    _, out, _ = child.communicate_utf8(None, None)
    child.wait()
    return child.get_exit_status(), out
