// cugi from GJS: the device report, a kernel launch on a stream, and
// Stream::idle in the GLib main loop.
//
//     meson devenv -C build gjs -m ../examples/gjs/hello.js
import GLib from 'gi://GLib';
import System from 'system';
import Cugi from 'gi://Cugi?version=1.0';

const SAXPY = `
extern "C" __global__ void saxpy(float a, const float *x, float *y, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}`;

function bufferFromFloats(values) {
    const buffer = Cugi.Buffer.new(null, values.byteLength);
    buffer.upload(0, new Uint8Array(values.buffer));
    return buffer;
}

try {
    Cugi.init();
} catch (e) {
    print(`No GPU: ${e.message}`);
    System.exit(0);
}

const version = Cugi.get_driver_version();
print(`Driver: CUDA ${Math.floor(version / 1000)}.${(version % 1000) / 10}`);
for (const device of Cugi.Device.list()) {
    print(`  ${device.alias.padEnd(7)} ${device.name}, ` +
          `sm_${device.compute_capability_major}${device.compute_capability_minor}, ` +
          `${(device.total_memory / 2 ** 30).toFixed(1)} GiB`);
}

const n = 1 << 20;
const x = new Float32Array(n).map((_, i) => i / n);
const y = new Float32Array(n).fill(1);
const xDev = bufferFromFloats(x);
const yDev = bufferFromFloats(y);

const kernel = Cugi.Kernel.new_from_source(null, SAXPY, 'saxpy', null);
const stream = Cugi.Stream.new(null, Cugi.StreamFlags.NON_BLOCKING, 0);
const config = Cugi.LaunchConfig.new(n / 256, 256);
config.set_stream(stream);
const args = Cugi.KernelArgs.new();
args.add_float(2);
args.add_buffer(xDev);
args.add_buffer(yDev);
args.add_uint32(n);

// Stream::idle arrives in the main loop once the launch has completed.
const loop = new GLib.MainLoop(null, false);
stream.connect('idle', () => loop.quit());
kernel.launch(config, args);
loop.run();

const result = new Float32Array(yDev.download(0, y.byteLength).toArray().slice().buffer);
const wrong = result.findIndex((v, i) => Math.abs(v - (2 * x[i] + y[i])) > 1e-5);
if (wrong >= 0) {
    printerr(`saxpy: y[${wrong}] is ${result[wrong]}, expected ${2 * x[wrong] + y[wrong]}`);
    System.exit(1);
}
print(`saxpy on ${Cugi.Device.get_default().name}: ${n} elements OK`);
