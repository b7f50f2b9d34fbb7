#!/usr/bin/python3
"""The GPU works, the main loop keeps running: a 60 Hz GLib timer ticks while
the GPU spins a kernel for about a second and copies 256 MiB up and back.
Results arrive through Event::completed, Stream::idle and async calls; at the
end the example prints the longest gap between two ticks.

    meson devenv -C build /usr/bin/python3 examples/python/main_loop.py
"""

import sys
import time

import gi

gi.require_version('Cugi', '1.0')
from gi.repository import Cugi, GLib  # noqa: E402

SPIN = '''
extern "C" __global__ void spin(long long cycles)
{
    long long start = clock64();
    while (clock64() - start < cycles)
        ;
}
'''

COPY_SIZE = 256 << 20
TICK_MS = 1000 // 60


class Ticker:
    """A 60 Hz timer that remembers the longest gap between two ticks."""

    def __init__(self):
        self.last = None
        self.longest = 0.0
        self.ticks = 0
        GLib.timeout_add(TICK_MS, self.tick)

    def tick(self):
        now = time.monotonic()
        if self.last is not None:
            self.longest = max(self.longest, now - self.last)
        self.last = now
        self.ticks += 1
        return GLib.SOURCE_CONTINUE


def main():
    try:
        Cugi.init()
    except GLib.Error as error:
        print(f'no GPU: {error.message}')
        return 1

    device = Cugi.Device.get_default()
    clock_khz = device.get_attribute(Cugi.DeviceAttribute.CLOCK_RATE)
    kernel = Cugi.Kernel.new_from_source(None, SPIN, 'spin', None)
    compute = Cugi.Stream.new(None, Cugi.StreamFlags.NON_BLOCKING, 0)
    copies = Cugi.Stream.new(None, Cugi.StreamFlags.NON_BLOCKING, 0)
    started = Cugi.Event.new(None, Cugi.EventFlags.NONE)
    finished = Cugi.Event.new(None, Cugi.EventFlags.NONE)

    # Pinned host memory, so that the copies are DMA the GPU does alone.
    pattern = bytes(range(256)) * (COPY_SIZE // 256)
    outbound = Cugi.HostBuffer.new(None, COPY_SIZE, Cugi.HostBufferFlags.NONE)
    outbound.write(0, pattern)
    inbound = Cugi.HostBuffer.new(None, COPY_SIZE, Cugi.HostBufferFlags.NONE)
    device_buffer = Cugi.Buffer.new(None, COPY_SIZE)

    loop = GLib.MainLoop()
    waiting = {'kernel', 'copies'}

    def done(what):
        waiting.discard(what)
        if not waiting:
            loop.quit()

    def on_kernel_completed(event):
        print(f'kernel: done, {started.elapsed_time(finished):.0f} ms of GPU time '
              f'({ticker.ticks} ticks so far)')
        done('kernel')

    def on_compute_idle(stream):
        print('compute stream: idle')

    def on_downloaded(stream, result):
        stream.synchronize_finish(result)
        print(f'copies: 256 MiB downloaded ({ticker.ticks} ticks so far)')
        done('copies')

    def on_uploaded(buffer, result):
        buffer.upload_bytes_finish(result)
        print('copies: 256 MiB uploaded')
        buffer.download_to_host(0, inbound, 0, COPY_SIZE, copies)
        copies.synchronize_async(None, on_downloaded)

    ticker = Ticker()
    finished.connect('completed', on_kernel_completed)
    compute.connect('idle', on_compute_idle)

    # About a second of spinning at the nominal clock, timed by two events.
    config = Cugi.LaunchConfig.new(1, 1)
    config.set_stream(compute)
    args = Cugi.KernelArgs.new()
    args.add_int64(clock_khz * 1000)
    started.record(compute)
    kernel.launch(config, args)
    finished.record(compute)

    device_buffer.upload_bytes_async(0, outbound.get_bytes(), copies, None, on_uploaded)

    loop.run()
    print(f'{ticker.ticks} ticks; longest gap between two ticks: '
          f'{ticker.longest * 1000:.1f} ms (period {TICK_MS} ms)')

    # Checked after the loop, so that comparing 256 MiB does not delay a tick.
    if inbound.get_bytes().get_data() != pattern:
        print('copies: the data came back corrupted', file=sys.stderr)
        return 1
    print('copies: the data came back intact')
    return 0


if __name__ == '__main__':
    sys.exit(main())
