// bench_gjs_launch.js: what a kernel launch costs from GJS, beside Python's
// (bench_peers.py on a GPU, bench_python_launch.py on the stand-in driver).
//
// Times a 4-argument saxpy (float, const float *, float *, unsigned) launched
// with Kernel.launch_values (GJS makes the GValues) and with a prepared
// KernelArgs (Kernel.launch), in microseconds per launch, medians of 5
// rounds. (Kernel.launch_packed takes NULL for the parameters that are not
// buffers, and GJS refuses null elements in an array of objects.)
//
//   gjs -m bench_gjs_launch.js [--stand-in] [--json FILE]
//
// On a GPU the kernel is compiled with NVRTC; exits 77 where no GPU is
// usable. With --stand-in it runs against the stand-in driver of the tests
// (CUGI_LIBCUDA naming fake-cuda-streams), whose launches do nothing, so
// that GJS's own cost can be worked on without a GPU. --json FILE appends
// one record a line: {"bench": "launch-gjs", "impl": "launch_values" |
// "prepared", "us_per_launch": ...}.
import GLib from 'gi://GLib';
import System from 'system';
import Cugi from 'gi://Cugi?version=1.0';

const LAUNCHES = 20000;
const SYNC_EVERY = 1024;
const ROUNDS = 5;
const N = 32;

const argv = System.programArgs;
const standIn = argv.includes('--stand-in');
const jsonFile = argv.includes('--json') ? argv[argv.indexOf('--json') + 1] : null;

let kernel;
try {
    Cugi.init();
    const context = Cugi.Context.get_default();
    if (standIn) {
        // The stand-in's module format: a kernel and its parameters' sizes.
        const image = new TextEncoder().encode('_Z5saxpyfPKfPfj 4 8 8 4\n');
        kernel = Cugi.Module.new_from_data(context, new GLib.Bytes(image)).get_kernel('_Z5saxpyfPKfPfj');
    } else {
        kernel = Cugi.Kernel.new_from_source(context, `
            __global__ void saxpy(float a, const float *x, float *y, unsigned int n)
            {
                unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n)
                    y[i] = a * x[i] + y[i];
            }`, 'saxpy', null);
    }
} catch (e) {
    print(`1..0 # SKIP no GPU usable${standIn ? ' (nor the stand-in driver)' : ''}: ${e.message}`);
    System.exit(77);
}

const stream = Cugi.Stream.new(null, Cugi.StreamFlags.NON_BLOCKING, 0);
const x = Cugi.Buffer.new(null, N * 4);
const y = Cugi.Buffer.new(null, N * 4);
const config = Cugi.LaunchConfig.new(1, N);
config.set_stream(stream);
const args = Cugi.KernelArgs.new();
args.add_float(2);
args.add_buffer(x);
args.add_buffer(y);
args.add_uint32(N);
const cases = {
    launch_values: () => kernel.launch_values(config, [2.5, x, y, N]),
    prepared: () => kernel.launch(config, args),
};

function microsecondsPerLaunch(launch) {
    const start = GLib.get_monotonic_time();
    for (let i = 1; i <= LAUNCHES; i++) {
        launch();
        if (i % SYNC_EVERY === 0)
            stream.synchronize();
    }
    stream.synchronize();
    return (GLib.get_monotonic_time() - start) / LAUNCHES;
}

const times = {};
for (const [name, launch] of Object.entries(cases)) {
    microsecondsPerLaunch(launch);
    times[name] = [];
}
for (let round = 0; round < ROUNDS; round++) {
    for (const [name, launch] of Object.entries(cases))
        times[name].push(microsecondsPerLaunch(launch));
}

print(`bench_gjs_launch${standIn ? ' (stand-in driver, launches do nothing)' : ''}: ` +
      `a 4-argument launch, medians of ${ROUNDS} rounds of ${LAUNCHES} (µs per launch)`);
let records = '';
for (const [name, values] of Object.entries(times)) {
    values.sort((a, b) => a - b);
    const median = values[Math.floor(ROUNDS / 2)];
    print(`  ${name.padEnd(16)} ${median.toFixed(3).padStart(9)}`);
    records += `${JSON.stringify({bench: 'launch-gjs', impl: name, us_per_launch: median})}\n`;
}
if (jsonFile) {
    let previous = '';
    if (GLib.file_test(jsonFile, GLib.FileTest.EXISTS))
        previous = new TextDecoder().decode(GLib.file_get_contents(jsonFile)[1]);
    GLib.file_set_contents(jsonFile, previous + records);
}
