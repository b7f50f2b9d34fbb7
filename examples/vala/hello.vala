// cugi from Vala: the device report, a kernel compiled with NVRTC and
// launched, and Stream::idle in the GLib main loop.
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

Cugi.Buffer buffer_from_floats (float[] values) throws Error {
    unowned uint8[] bytes = (uint8[]) values;
    bytes.length = values.length * (int) sizeof (float);
    var buffer = new Cugi.Buffer (null, bytes.length);
    buffer.upload (0, bytes);
    return buffer;
}

int main () {
    try {
        Cugi.init ();
    } catch (Error e) {
        print ("No GPU: %s\n", e.message);
        return 0;
    }

    try {
        var version = Cugi.get_driver_version ();
        print ("Driver: CUDA %d.%d\n", version / 1000, version % 1000 / 10);
        foreach (var device in Cugi.Device.list ()) {
            int major, minor;
            device.get_compute_capability (out major, out minor);
            print ("  %-7s %s, sm_%d%d, %.1f GiB\n", device.alias, device.name, major, minor,
                   device.total_memory / (double) (1 << 30));
        }

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
                printerr ("saxpy: y[%d] is %g, expected %g\n", i, out_values[i], 2.0f * x[i] + y[i]);
                return 1;
            }
        }
        print ("saxpy on %s: %u elements OK\n", Cugi.Device.get_default ().name, N);
    } catch (Error e) {
        printerr ("cugi-hello-vala: %s\n", e.message);
        return 1;
    }
    return 0;
}
