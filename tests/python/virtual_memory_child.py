#!/usr/bin/python3
"""The other process of the virtual memory and pool sharing tests
(test_virtual_memory.py, test_virtual_memory_gpu.py), started by them
through Gio.SubprocessLauncher with the shared file descriptor as fd 3:

  virtual_memory_child.py fd SIZE
      imports physical memory of SIZE bytes, maps it and prints the string
      at its start;
  virtual_memory_child.py pool EXPORTED EVENT
      imports the pool, waits for the IPC event (both base64) on a stream,
      opens the exported buffer and prints how many 32-bit values it holds
      and their sum."""

import base64
import struct
import sys

import gi

gi.require_version('Cugi', '1.0')
from gi.repository import Cugi, GLib  # noqa: E402


def read_fd(size):
    memory = Cugi.PhysicalMemory.new_from_fd(None, 3, size)
    reserved = Cugi.VirtualRange.new(None, size)
    reserved.map(0, memory)
    data = reserved.get_buffer(0, size).download(0, 64).get_data()
    sys.stdout.write(data.split(b'\0')[0].decode())


def read_pool(exported, event_handle):
    pool = Cugi.StreamOrderedPool.new_from_fd(None, 3)
    stream = Cugi.Stream.new(None, Cugi.StreamFlags.NON_BLOCKING, 0)
    event = Cugi.Event.new_from_ipc_handle(None, GLib.Bytes.new(base64.b64decode(event_handle)))
    stream.wait_event(event)
    buffer = pool.import_buffer(GLib.Bytes.new(base64.b64decode(exported)), stream)
    data = buffer.download(0, buffer.props.size).get_data()
    buffer.free_on_stream(stream)
    stream.synchronize()
    values = struct.unpack(f'<{len(data) // 4}I', data)
    sys.stdout.write(f'{len(values)} {sum(values)}')


Cugi.init()
if sys.argv[1] == 'fd':
    read_fd(int(sys.argv[2]))
else:
    read_pool(sys.argv[2], sys.argv[3])
