// cugi from GJS: the device report, SAXPY compiled with NVRTC for the GPU's
// architecture (sm_90 without a GPU, so the compile runs everywhere) and,
// where a GPU is, launched on a stream with Stream::idle in the GLib main
// loop. The same steps, output and exit status (0 with or without a GPU, 1
// on a failure) as the C cugi-hello.
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

// Without a GPU, the compile step targets this architecture (Hopper).
const FALLBACK_ARCH = [9, 0];

function cudaVersion(version) {
    return `CUDA ${Math.floor(version / 1000)}.${(version % 1000) / 10}`;
}

// The device report; the default device's architecture, null without a GPU.
function reportDevices() {
    try {
        Cugi.init();
    } catch (e) {
        if (!e.matches(Cugi.error_quark(), Cugi.Error.NOT_AVAILABLE))
            throw e;
        print(`No GPU: ${e.message}`);
        return null;
    }
    print(`Driver: ${cudaVersion(Cugi.get_driver_version())}`);
    for (const device of Cugi.Device.list()) {
        print(`  ${device.alias.padEnd(7)} ${device.name}, ` +
              `sm_${device.compute_capability_major}${device.compute_capability_minor}, ` +
              `${(device.total_memory / 2 ** 30).toFixed(1)} GiB, ${device.multiprocessor_count} SMs, ` +
              `PCI ${device.pci_bus_id}`);
    }
    const device = Cugi.Device.get_default();
    return [device.compute_capability_major, device.compute_capability_minor];
}

function compileSaxpy([major, minor]) {
    const program = Cugi.Program.new(SAXPY, 'saxpy.cu');
    const start = GLib.get_monotonic_time();
    program.compile_for_arch(major, minor, null);
    const cubin = program.get_cubin();
    print(`Compiled saxpy.cu for sm_${major}${minor}: PTX ${program.get_ptx().get_size()} bytes, ` +
          `CUBIN ${cubin ? cubin.get_size() : 0} bytes, ` +
          `${((GLib.get_monotonic_time() - start) / 1000).toFixed(1)} ms`);
}

function bufferFromFloats(values) {
    const buffer = Cugi.Buffer.new(null, values.byteLength);
    buffer.upload(0, new Uint8Array(values.buffer));
    return buffer;
}

function runSaxpy() {
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
    if (wrong >= 0)
        throw new Error(`saxpy: y[${wrong}] is ${result[wrong]}, expected ${2 * x[wrong] + y[wrong]}`);
    print(`saxpy on ${Cugi.Device.get_default().name}: ${n} elements OK`);
}

print(`cugi ${Cugi.get_version()}`);
try {
    print(`NVRTC: ${cudaVersion(Cugi.get_nvrtc_version())}`);
    const arch = reportDevices();
    compileSaxpy(arch ?? FALLBACK_ARCH);
    if (arch === null) {
        print('saxpy: compiled only; launching it needs a GPU');
    } else {
        runSaxpy();
    }
} catch (e) {
    printerr(`hello.js: ${e.message}`);
    System.exit(1);
}
