// The typelib from GJS, without a GPU. Meson runs this with CUGI_LIBCUDA
// naming a file that does not exist (see meson.build).
import GLib from 'gi://GLib';
import Cugi from 'gi://Cugi?version=1.0';

let checks = 0;
function check(condition, what) {
    if (!condition)
        throw new Error(`failed: ${what}`);
    checks++;
}

// Enums and flags carry CUDA's own values.
check(Cugi.DeviceAttribute.MAX_THREADS_PER_BLOCK === 1, 'DeviceAttribute.MAX_THREADS_PER_BLOCK');
check(Cugi.StreamFlags.NON_BLOCKING === 1, 'StreamFlags.NON_BLOCKING');
check(Cugi.EventFlags.DISABLE_TIMING === 2, 'EventFlags.DISABLE_TIMING');
check(Cugi.error_quark() === GLib.quark_from_string('cugi-error-quark'), 'error domain');

// No driver: an ordinary GLib.Error, every time, and is_available() says no.
check(GLib.getenv('CUGI_LIBCUDA') === '/nonexistent/libcuda.so.1', 'test environment');
for (let attempt = 0; attempt < 2; attempt++) {
    let error = null;
    try {
        Cugi.init();
    } catch (e) {
        error = e;
    }
    check(error instanceof GLib.Error, 'init() throws a GLib.Error');
    check(error.matches(Cugi.error_quark(), Cugi.Error.NOT_AVAILABLE), `NOT_AVAILABLE, got: ${error}`);
    check(error.message.includes('CUGI_LIBCUDA'), `the message says what to do: ${error.message}`);
}
check(Cugi.is_available() === false, 'is_available() without a driver');

// Wrapping another library's device memory needs the driver too: a clear
// error, not a crash, for a pointer that is not even checked yet.
{
    let error = null;
    try {
        Cugi.Buffer.new_for_address(null, 0x7f0000000000, 4096);
    } catch (e) {
        error = e;
    }
    check(error?.matches(Cugi.error_quark(), Cugi.Error.NOT_AVAILABLE), `new_for_address: ${error}`);
}
check(typeof Cugi.Kernel.prototype.append_int === 'function', 'Kernel.append_int for bindings');

// NVRTC needs no driver.
GLib.setenv('CUGI_DISABLE_CACHE', '1', true);
const program = Cugi.Program.new(
    'extern "C" __global__ void scale(float *x, float a) { x[threadIdx.x] *= a; }', 'scale.cu');
check(program.compile(['--gpu-architecture=compute_90']), 'compile');
const ptx = new TextDecoder().decode(program.get_ptx().toArray());
check(ptx.includes('.entry scale'), 'the PTX has the kernel');

// The boxed launch types.
const config = Cugi.LaunchConfig.new(4096, 256);
config.set_grid(16, 8, 2);
check(config.get_grid().join() === '16,8,2', `LaunchConfig grid: ${config.get_grid()}`);
check(config.get_block().join() === '256,1,1', `LaunchConfig block: ${config.get_block()}`);
const args = Cugi.KernelArgs.new();
args.add_float(2.0);
args.add_uint32(1 << 20);
args.add_bytes(new GLib.Bytes(new Uint8Array([1, 2, 3, 4, 5])));
check(args.get_n_args() === 3, 'KernelArgs count');
check(args.get_arg_type(0) === Cugi.ArgType.FLOAT && args.get_arg_size(0) === 4, 'a float argument');
check(args.get_arg_type(1) === Cugi.ArgType.UINT32, 'a uint32 argument');
check(args.get_arg_type(2) === Cugi.ArgType.BYTES && args.get_arg_size(2) === 5, 'a bytes argument');

print(`${checks} checks passed`);
