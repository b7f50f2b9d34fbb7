// renderer.vala: the GPU side of the fractal explorer. Everything that waits
// on the GPU or on NVRTC is an async method: callers yield, the main loop
// keeps running.

namespace Fractal {

// --fmad=false: see fractal.cu, the CPU reference depends on it.
const string[] COMPILE_OPTIONS = { "--fmad=false" };

/* A new program for the colouring source: fractal.cu, built in as a
 * resource, including the colouring as the header colour.cuh, so that NVRTC
 * reports the colouring's errors as colour.cuh(LINE) with the editor's own
 * line numbers. */
public Cugi.Program new_program (string colour_source) {
    Bytes fractal_cu;
    try {
        fractal_cu = resources_lookup_data ("/org/cugi/Fractal/fractal.cu", ResourceLookupFlags.NONE);
    } catch (Error e) {
        error ("The built-in kernel is missing: %s", e.message);
    }
    var program = new Cugi.Program ((string) fractal_cu.get_data (), "fractal.cu");
    program.add_header ("colour.cuh", colour_source);
    return program;
}

// The default colouring, as shipped in colour.cuh.
public string default_colour_source () {
    try {
        return (string) resources_lookup_data ("/org/cugi/Fractal/colour.cuh", ResourceLookupFlags.NONE).get_data ();
    } catch (Error e) {
        error ("The built-in colouring is missing: %s", e.message);
    }
}

/* An RGBA image in pinned host memory, which renders download band by band
 * into, each band straight to its rows. */
public class Image : Object {
    public int width { get; construct; }
    public int height { get; construct; }
    public Cugi.HostBuffer pixels { get; private set; }
    // The pixels as they are in the pinned memory, without a copy.
    Bytes view;

    public Image (int width, int height) throws Error {
        Object (width: width, height: height);
        // PORTABLE: pinned for every context, whichever device renders.
        pixels = new Cugi.HostBuffer (null, stride * height, Cugi.HostBufferFlags.PORTABLE);
        view = pixels.get_bytes ();
    }

    public size_t stride {
        get { return (size_t) width * 4; }
    }

    /* A texture of the image as it is now. A copy: a texture's bytes must
     * not change while it is shown, and the next bands are written into
     * the pinned memory as they come. */
    public Gdk.Texture to_texture () {
        return new Gdk.MemoryTexture (width, height, Gdk.MemoryFormat.R8G8B8A8,
                                      new Bytes (view.get_data ()), stride);
    }
}

/* Renders views of the fractal on one device, on a stream of its own.
 *
 * The image is computed in bands of rows: each band is a launch on a
 * non-blocking stream, bracketed by two events for its kernel time, then a
 * download_to_host_async() of its rows into the image, which the caller
 * yields on (::band-done follows), so a long render refines visibly and a
 * newer view, which cancels the stale render's GCancellable, waits for one
 * band at most. The bands are sized to take about BAND_MS each. */
public class Renderer : Object {
    public Cugi.Device device { get; construct; }
    // The colouring kernel now in use; null until compile() has succeeded.
    public Cugi.Kernel? kernel { get; private set; }

    // Emitted after each band has arrived in the image.
    public signal void band_done (Image image, double fraction);

    const double BAND_MS = 8;
    const uint BLOCK = 16;

    Cugi.Context context;
    Cugi.Stream stream;
    Cugi.Event band_start;
    Cugi.Event band_end;
    Cugi.Buffer? pixels;
    int rows_per_band = 64;
    // Counts for describe_progress(): bands enqueued, and bands whose rows
    // have arrived in the image.
    uint bands_enqueued;
    uint bands_arrived;

    public Renderer (Cugi.Device device) throws Error {
        Object (device: device);
        // The primary context: the one the CUDA runtime and other libraries
        // in the process share.
        context = device.get_primary_context ();
        // NON_BLOCKING: the stream does not wait for the legacy default
        // stream, so other CUDA users in the process cannot stall renders.
        stream = new Cugi.Stream (context, Cugi.StreamFlags.NON_BLOCKING, 0);
        band_start = new Cugi.Event (context, Cugi.EventFlags.NONE);
        band_end = new Cugi.Event (context, Cugi.EventFlags.NONE);
    }

    /* Compiles program (from new_program()) for this device, NVRTC running
     * in a worker thread, and makes it the kernel of the next renders. On
     * failure the previous kernel stays, and program.get_diagnostics() says
     * what NVRTC found. */
    public async void compile (Cugi.Program program, Cancellable? cancellable) throws Error {
        yield program.compile_for_device_async (device, COMPILE_OPTIONS, cancellable);
        var module = new Cugi.Module.from_program (context, program);
        kernel = module.get_kernel ("fractal");
    }

    /* Renders view into image, band by band; returns the kernel time in
     * milliseconds, the sum of the bands' own times on the GPU. Cancelling
     * throws IOError.CANCELLED at the next band: the band in flight still
     * runs, the GPU has no way to stop a kernel, but its rows are dropped. */
    public async double render (View view, Image image, Cancellable? cancellable) throws Error {
        if (kernel == null)
            throw new Cugi.Error.INVALID_STATE ("No colouring kernel has been compiled yet");
        var size = image.stride * image.height;
        if (pixels == null || pixels.size != size) {
            // The stale buffer lives on while work enqueued on it runs.
            pixels = new Cugi.Buffer (context, size);
        }

        var kernel_ms = 0.0;
        for (var row = 0; row < image.height;) {
            var rows = int.min (rows_per_band, image.height - row);
            var config = new Cugi.LaunchConfig.for_size_2d (image.width, rows, BLOCK, BLOCK);
            config.set_stream (stream);

            band_start.record (stream);
            kernel.launch (config, band_args (view, image, row, rows));
            band_end.record (stream);
            var offset = row * image.stride;
            bands_enqueued++;
            yield pixels.download_to_host_async (offset, image.pixels, offset, rows * image.stride,
                                                 stream, cancellable);
            bands_arrived++;
            // The download came after band_end on the same stream: both
            // events have completed, elapsed_time() does not wait (with
            // nothing after them, elapsed_time_async() would).
            var band_ms = band_start.elapsed_time (band_end);
            kernel_ms += band_ms;
            row += rows;
            band_done (image, (double) row / image.height);
            rows_per_band = next_band_rows (rows, band_ms, image.height);
        }
        return kernel_ms;
    }

    /* Where the renders are, for a report when something waits too long:
     * a band whose rows never arrive while the stream says it is done would
     * be a completion lost on its way to the main loop. */
    public string describe_progress () {
        string stream_state;
        try {
            stream_state = stream.query () ? "has done all its work" : "is still busy";
        } catch (Error e) {
            stream_state = "failed: " + e.message;
        }
        return "%u bands enqueued, %u arrived; the GPU stream %s".printf (bands_enqueued, bands_arrived,
                                                                            stream_state);
    }

    Cugi.KernelArgs band_args (View view, Image image, int first_row, int rows) {
        var args = new Cugi.KernelArgs ();
        args.add_buffer (pixels);
        args.add_int32 (image.width);
        args.add_int32 (image.height);
        args.add_int32 (first_row);
        args.add_int32 (rows);
        args.add_double (view.centre_re);
        args.add_double (view.centre_im);
        args.add_double (view.pixel_size (image.height));
        args.add_int32 (view.julia ? 1 : 0);
        args.add_double (view.julia_re);
        args.add_double (view.julia_im);
        args.add_int32 (view.max_iterations ());
        return args;
    }

    // Band heights aim at BAND_MS of GPU time from the last band's rate; a
    // whole block row at the least, so every launch is full blocks high.
    static int next_band_rows (int rows, double band_ms, int height) {
        var rate = rows / double.max (band_ms, 0.01);
        return ((int) (rate * BAND_MS)).clamp ((int) BLOCK, height);
    }
}

}
