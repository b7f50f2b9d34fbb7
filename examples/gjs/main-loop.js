// The GPU works, the main loop keeps running: a 60 Hz GLib timer ticks while
// the GPU spins a kernel for about a second and copies 256 MiB up and back.
// Results arrive through Event::completed, Stream::idle and async calls; at
// the end the example prints the longest gap between two ticks.
//
//     meson devenv -C build gjs -m examples/gjs/main-loop.js
import GLib from 'gi://GLib';
import System from 'system';
import Cugi from 'gi://Cugi?version=1.0';

const SPIN = `
extern "C" __global__ void spin(long long cycles)
{
    long long start = clock64();
    while (clock64() - start < cycles)
        ;
}`;

const COPY_SIZE = 256 * 1024 * 1024;
const TICK_MS = Math.floor(1000 / 60);

try {
    Cugi.init();
} catch (e) {
    print(`no GPU: ${e.message}`);
    System.exit(1);
}

const device = Cugi.Device.get_default();
const clockKhz = device.get_attribute(Cugi.DeviceAttribute.CLOCK_RATE);
const kernel = Cugi.Kernel.new_from_source(null, SPIN, 'spin', null);
const compute = Cugi.Stream.new(null, Cugi.StreamFlags.NON_BLOCKING, 0);
const copies = Cugi.Stream.new(null, Cugi.StreamFlags.NON_BLOCKING, 0);
const started = Cugi.Event.new(null, Cugi.EventFlags.NONE);
const finished = Cugi.Event.new(null, Cugi.EventFlags.NONE);

// Pinned host memory, so that the copies are DMA the GPU does alone.
const pattern = new Uint8Array(COPY_SIZE);
for (let i = 0; i < 256; i++)
    pattern[i] = i;
for (let filled = 256; filled < COPY_SIZE; filled *= 2)
    pattern.copyWithin(filled, 0, filled);
const outbound = Cugi.HostBuffer.new(null, COPY_SIZE, Cugi.HostBufferFlags.NONE);
outbound.write(0, pattern);
const inbound = Cugi.HostBuffer.new(null, COPY_SIZE, Cugi.HostBufferFlags.NONE);
const deviceBuffer = Cugi.Buffer.new(null, COPY_SIZE);

// A 60 Hz timer that remembers the longest gap between two ticks.
let ticks = 0;
let lastTick = null;
let longestGap = 0;
GLib.timeout_add(GLib.PRIORITY_DEFAULT, TICK_MS, () => {
    const now = GLib.get_monotonic_time();
    if (lastTick !== null)
        longestGap = Math.max(longestGap, now - lastTick);
    lastTick = now;
    ticks++;
    return GLib.SOURCE_CONTINUE;
});

const loop = new GLib.MainLoop(null, false);
const waiting = new Set(['kernel', 'copies']);
function done(what) {
    waiting.delete(what);
    if (waiting.size === 0)
        loop.quit();
}

finished.connect('completed', () => {
    print(`kernel: done, ${started.elapsed_time(finished).toFixed(0)} ms of GPU time ` +
          `(${ticks} ticks so far)`);
    done('kernel');
});
compute.connect('idle', () => print('compute stream: idle'));

// About a second of spinning at the nominal clock, timed by two events.
const config = Cugi.LaunchConfig.new(1, 1);
config.set_stream(compute);
const args = Cugi.KernelArgs.new();
args.add_int64(clockKhz * 1000);
started.record(compute);
kernel.launch(config, args);
finished.record(compute);

deviceBuffer.upload_bytes_async(0, outbound.get_bytes(), copies, null, (buffer, result) => {
    buffer.upload_bytes_finish(result);
    print('copies: 256 MiB uploaded');
    buffer.download_to_host(0, inbound, 0, COPY_SIZE, copies);
    copies.synchronize_async(null, (stream, downloaded) => {
        stream.synchronize_finish(downloaded);
        print(`copies: 256 MiB downloaded (${ticks} ticks so far)`);
        done('copies');
    });
});

loop.run();
print(`${ticks} ticks; longest gap between two ticks: ${(longestGap / 1000).toFixed(1)} ms ` +
      `(period ${TICK_MS} ms)`);

// Checked after the loop, so that comparing 256 MiB does not delay a tick.
const back = inbound.get_bytes().toArray();
let intact = back.length === COPY_SIZE;
for (let i = 0; intact && i < COPY_SIZE; i++)
    intact = back[i] === pattern[i];
if (!intact) {
    printerr('copies: the data came back corrupted');
    System.exit(1);
}
print('copies: the data came back intact');
