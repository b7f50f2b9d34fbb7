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

/* Renders views of the fractal on one device, on a stream of its own, into
 * an RGBA image in device memory (pixels), which a CugiGtk.Paintable shows
 * from there and download_texture() brings to the host where the pixels
 * themselves are needed (a PNG).
 *
 * The image is computed in bands of rows: each band is a launch on a
 * non-blocking stream, bracketed by two events for its kernel time, which
 * the caller yields on (elapsed_time_async(); ::band-done follows), so a long
 * render refines visibly and a newer view, which cancels the stale render's
 * GCancellable, waits for one band at most. The bands are sized to take
 * about BAND_MS each. */
public class Renderer : Object {
    public Cugi.Device device { get; construct; }
    // The colouring kernel now in use; null until compile() has succeeded.
    public Cugi.Kernel? kernel { get; private set; }
    // The stream renders run on: what reads pixels (a paintable's copy, a
    // download) is enqueued on it too, so it sees the bands enqueued before.
    public Cugi.Stream stream { get; private set; }
    // The image of the latest render, width × height pixels of 4 bytes,
    // rows stride bytes apart; null before the first render.
    public Cugi.Buffer? pixels { get; private set; }
    public int width { get; private set; }
    public int height { get; private set; }
    public size_t stride {
        get { return (size_t) width * 4; }
    }

    // Emitted after each band has been written to pixels on the GPU.
    public signal void band_done (double fraction);

    const double BAND_MS = 8;
    const uint BLOCK = 16;

    Cugi.Context context;
    Cugi.Event band_start;
    Cugi.Event band_end;
    int rows_per_band = 64;
    // Counts for describe_progress(): bands enqueued, and bands the GPU has
    // done.
    uint bands_enqueued;
    uint bands_done;

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

    /* Renders view into pixels at width × height, band by band; returns the
     * kernel time in milliseconds, the sum of the bands' own times on the
     * GPU. A new view of the same size paints over the last image, so that
     * it shows until its rows are rendered again. Cancelling throws
     * IOError.CANCELLED at the next band: the band in flight still runs, the
     * GPU has no way to stop a kernel. */
    public async double render (View view, int width, int height, Cancellable? cancellable) throws Error {
        if (kernel == null)
            throw new Cugi.Error.INVALID_STATE ("No colouring kernel has been compiled yet");
        if (pixels == null || width != this.width || height != this.height) {
            // The stale buffer lives on while work enqueued on it runs.
            pixels = new Cugi.Buffer (context, (size_t) width * 4 * height);
            this.width = width;
            this.height = height;
        }

        var kernel_ms = 0.0;
        for (var row = 0; row < height;) {
            var rows = int.min (rows_per_band, height - row);
            var config = new Cugi.LaunchConfig.for_size_2d (width, rows, BLOCK, BLOCK);
            config.set_stream (stream);

            band_start.record (stream);
            kernel.launch (config, band_args (view, row, rows));
            band_end.record (stream);
            bands_enqueued++;
            var band_ms = yield band_start.elapsed_time_async (band_end, cancellable);
            bands_done++;
            kernel_ms += band_ms;
            row += rows;
            band_done ((double) row / height);
            rows_per_band = next_band_rows (rows, band_ms, height);
        }
        return kernel_ms;
    }

    /* The image in host memory, as it is after the work enqueued so far: for
     * what needs the pixels themselves (a PNG). */
    public async Gdk.Texture download_texture (Cancellable? cancellable) throws Error {
        if (pixels == null)
            throw new Cugi.Error.INVALID_STATE ("Nothing has been rendered yet");
        // This image's layout, whatever a render started meanwhile does.
        int width = this.width, height = this.height;
        var stride = this.stride;
        var bytes = yield pixels.download_async (0, stride * height, stream, cancellable);
        return new Gdk.MemoryTexture (width, height, Gdk.MemoryFormat.R8G8B8A8, bytes, stride);
    }

    /* Where the renders are, for a report when something waits too long:
     * a band never done while the stream says it is done would be a
     * completion lost on its way to the main loop. */
    public string describe_progress () {
        string stream_state;
        try {
            stream_state = stream.query () ? "has done all its work" : "is still busy";
        } catch (Error e) {
            stream_state = "failed: " + e.message;
        }
        return "%u bands enqueued, %u done; the GPU stream %s".printf (bands_enqueued, bands_done,
                                                                         stream_state);
    }

    Cugi.KernelArgs band_args (View view, int first_row, int rows) {
        var args = new Cugi.KernelArgs ();
        args.add_buffer (pixels);
        args.add_int32 (width);
        args.add_int32 (height);
        args.add_int32 (first_row);
        args.add_int32 (rows);
        args.add_double (view.centre_re);
        args.add_double (view.centre_im);
        args.add_double (view.pixel_size (height));
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
