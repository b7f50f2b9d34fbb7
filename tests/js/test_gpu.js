// The typelib from GJS on a GPU: devices, buffers, a kernel launch and
// Stream::idle in the main loop. Exits 77 (skipped) without a GPU.
import GLib from 'gi://GLib';
import System from 'system';
import Cugi from 'gi://Cugi?version=1.0';

try {
    Cugi.init();
} catch (e) {
    print(`1..0 # SKIP no GPU: ${e.message}`);
    System.exit(77);
}

GLib.setenv('CUGI_DISABLE_CACHE', '1', true);

let checks = 0;
function check(condition, what) {
    if (!condition)
        throw new Error(`failed: ${what}`);
    checks++;
}

const device = Cugi.Device.get_default();
check(device.name.length > 0, 'the device has a name');
check(device.compute_capability_major >= 3, 'compute capability');
check(device.get_attribute(Cugi.DeviceAttribute.WARP_SIZE) === 32, 'warp size');

// SAXPY, with the result checked on the host.
const n = 4096;
const x = new Float32Array(n).map((_, i) => i);
const y = new Float32Array(n).fill(1);
const xDev = Cugi.Buffer.new(null, x.byteLength);
const yDev = Cugi.Buffer.new(null, y.byteLength);
xDev.upload(0, new Uint8Array(x.buffer));
yDev.upload(0, new Uint8Array(y.buffer));

const kernel = Cugi.Kernel.new_from_source(null, `
    extern "C" __global__ void saxpy(float a, const float *x, float *y, unsigned int n)
    {
        unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n)
            y[i] = a * x[i] + y[i];
    }`, 'saxpy', null);
const stream = Cugi.Stream.new(null, Cugi.StreamFlags.NON_BLOCKING, 0);
const config = Cugi.LaunchConfig.new(n / 256, 256);
config.set_stream(stream);
check(config.get_stream() === stream, 'the launch configuration holds the stream');
const args = Cugi.KernelArgs.new();
args.add_float(2);
args.add_buffer(xDev);
args.add_buffer(yDev);
args.add_uint32(n);
check(args.get_n_args() === 4, `four kernel arguments, got ${args.get_n_args()}`);

// Stream::idle arrives in the main loop once the launch has completed.
const loop = new GLib.MainLoop(null, false);
let idles = 0;
stream.connect('idle', () => {
    idles++;
    loop.quit();
});
kernel.launch(config, args);
let timedOut = false;
const timeout = GLib.timeout_add_seconds(GLib.PRIORITY_DEFAULT, 30, () => {
    timedOut = true;
    loop.quit();
    return GLib.SOURCE_REMOVE;
});
loop.run();
check(!timedOut, 'Stream::idle within 30 s');
GLib.source_remove(timeout);
check(idles === 1, `one idle signal, got ${idles}`);
check(stream.query(), 'the stream is idle');

const result = new Float32Array(yDev.download(0, y.byteLength).toArray().slice().buffer);
check(result.every((v, i) => v === 2 * i + 1), 'saxpy result');

// Getters return their values: a number, or an array of two, never [true, ...].
check(kernel.get_attribute(Cugi.FunctionAttribute.NUM_REGS) === kernel.num_regs, 'a kernel attribute');
const [freeBytes, totalBytes] = device.get_memory_info();
check(freeBytes > 0 && freeBytes <= totalBytes, `free memory ${freeBytes} of ${totalBytes}`);
const [least, greatest] = Cugi.Context.get_default().get_stream_priority_range();
check(least >= greatest, `stream priorities ${least} to ${greatest}`);
const [blockSize, minGridSize] = kernel.suggest_block_size(0);
check(minGridSize > 0 && blockSize > 0, `suggested ${minGridSize} blocks of ${blockSize}`);
check(Cugi.Context.get_default().get_limit(Cugi.Limit.STACK_SIZE) > 0, 'the stack size limit');

print(`${checks} checks passed`);
