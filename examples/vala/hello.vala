// cugi from Vala: the device report, SAXPY compiled with NVRTC for the GPU's
// architecture (sm_90 without a GPU, so the compile runs everywhere) and,
// where a GPU is, launched on a stream with Stream::idle in the GLib main
// loop. The same steps, output and exit status (0 with or without a GPU, 1
// on a failure) as the C cugi-hello.
//
//     build/examples/cugi-hello-vala

const string SAXPY = """
extern "C" __global__ void saxpy(float a, const float *x, float *y, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}
""";

const uint N = 1 << 20;

// Without a GPU, the compile step targets this architecture (Hopper).
const int FALLBACK_MAJOR = 9;
const int FALLBACK_MINOR = 0;

string cuda_version (int version) {
    return "CUDA %d.%d".printf (version / 1000, version % 1000 / 10);
}

// The device report, and the default device's architecture; false without a GPU.
bool report_devices (out int major, out int minor) throws Error {
    major = FALLBACK_MAJOR;
    minor = FALLBACK_MINOR;
    try {
        Cugi.init ();
    } catch (Cugi.Error.NOT_AVAILABLE e) {
        print ("No GPU: %s\n", e.message);
        return false;
    }
    print ("Driver: %s\n", cuda_version (Cugi.get_driver_version ()));
    foreach (var device in Cugi.Device.list ()) {
        int device_major, device_minor;
        device.get_compute_capability (out device_major, out device_minor);
        print ("  %-7s %s, sm_%d%d, %.1f GiB, %d SMs, PCI %s\n", device.alias, device.name,
               device_major, device_minor, device.total_memory / (double) (1 << 30),
               device.multiprocessor_count, device.pci_bus_id);
    }
    Cugi.Device.get_default ().get_compute_capability (out major, out minor);
    return true;
}

void compile_saxpy (int major, int minor) throws Error {
    var program = new Cugi.Program (SAXPY, "saxpy.cu");
    var start = get_monotonic_time ();
    program.compile_for_arch (major, minor, null);
    var cubin = program.get_cubin ();
    print ("Compiled saxpy.cu for sm_%d%d: PTX %zu bytes, CUBIN %zu bytes, %.1f ms\n",
           major, minor, program.get_ptx ().get_size (), cubin != null ? cubin.get_size () : 0,
           (get_monotonic_time () - start) / 1000.0);
}

Cugi.Buffer buffer_from_floats (float[] values) throws Error {
    unowned uint8[] bytes = (uint8[]) values;
    bytes.length = values.length * (int) sizeof (float);
    var buffer = new Cugi.Buffer (null, bytes.length);
    buffer.upload (0, bytes);
    return buffer;
}

void run_saxpy () throws Error {
    var x = new float[N];
    var y = new float[N];
    for (var i = 0; i < N; i++) {
        x[i] = (float) i / N;
        y[i] = 1.0f;
    }
    var x_dev = buffer_from_floats (x);
    var y_dev = buffer_from_floats (y);

    var kernel = new Cugi.Kernel.from_source (null, SAXPY, "saxpy", null);
    var stream = new Cugi.Stream (null, Cugi.StreamFlags.NON_BLOCKING, 0);
    var config = new Cugi.LaunchConfig ((N + 255) / 256, 256);
    config.set_stream (stream);
    var args = new Cugi.KernelArgs ();
    args.add_float (2.0f);
    args.add_buffer (x_dev);
    args.add_buffer (y_dev);
    args.add_uint32 (N);

    // Stream::idle arrives in the main loop once the launch has completed.
    var loop = new MainLoop ();
    stream.idle.connect (() => loop.quit ());
    kernel.launch (config, args);
    loop.run ();

    var result = y_dev.download (0, N * sizeof (float));
    unowned float[] out_values = (float[]) result.get_data ();
    for (var i = 0; i < N; i++) {
        if (Math.fabsf (out_values[i] - (2.0f * x[i] + y[i])) > 1e-5f) {
            throw new Cugi.Error.FAILED ("saxpy: y[%d] is %g, expected %g",
                                         i, out_values[i], 2.0f * x[i] + y[i]);
        }
    }
    print ("saxpy on %s: %u elements OK\n", Cugi.Device.get_default ().name, N);
}

int main () {
    print ("cugi %s\n", Cugi.get_version ());
    try {
        print ("NVRTC: %s\n", cuda_version (Cugi.get_nvrtc_version ()));
        int major, minor;
        var have_gpu = report_devices (out major, out minor);
        compile_saxpy (major, minor);
        if (!have_gpu) {
            print ("saxpy: compiled only; launching it needs a GPU\n");
            return 0;
        }
        run_saxpy ();
    } catch (Error e) {
        printerr ("cugi-hello-vala: %s\n", e.message);
        return 1;
    }
    return 0;
}
