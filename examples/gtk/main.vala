// main.vala: the fractal explorer, a GTK 4 application on cugi.
//
//     build/examples/gtk/cugi-fractal
//     build/examples/gtk/cugi-fractal --render out.png --width 1920 --height 1080 --view -0.7436,0.1318,0.02
//     build/examples/gtk/cugi-fractal --screenshot window.png
//     build/examples/gtk/cugi-fractal --benchmark 10 --size 3840x2160
//
// Drag to pan, scroll to zoom, edit the colouring on the right and press
// Compile. Nothing here waits on the GPU or on NVRTC in the main loop: every
// such wait is an async call the code yields on.

namespace Fractal {

public class Application : Gtk.Application {
    // The continuous zoom of --benchmark: into the seahorse valley, by
    // ZOOM_STEP a render, down to DEEPEST, and again.
    const double BENCHMARK_RE = -0.743643887037151;
    const double BENCHMARK_IM = 0.131825904205330;
    const double BENCHMARK_SCALE = 0.05;
    const double BENCHMARK_ZOOM_STEP = 0.97;
    const double BENCHMARK_DEEPEST = 1e-9;
    // The turns each paintable takes in --benchmark.
    const int BENCHMARK_ROUNDS = 3;

    // The longest side --size takes: GL's usual limit on a texture's side.
    const int MAX_SIDE = 16384;

    string? screenshot_path;
    double benchmark_seconds;
    int fixed_width;
    int fixed_height;
    int exit_status;

    const OptionEntry[] OPTIONS = {
        { "render", 0, 0, OptionArg.FILENAME, null, "Render to a PNG file, without a window", "FILE" },
        { "width", 0, 0, OptionArg.INT, null, "The width of --render, in pixels (default 1280)", "W" },
        { "height", 0, 0, OptionArg.INT, null, "The height of --render, in pixels (default 800)", "H" },
        { "view", 0, 0, OptionArg.STRING, null, "The view: cx,cy,scale[,julia_re,julia_im]", "VIEW" },
        { "screenshot", 0, 0, OptionArg.FILENAME, null, "Save a PNG of the window once it is ready, then quit", "FILE" },
        { "size", 0, 0, OptionArg.STRING, null, "Render the picture at W×H pixels, scaled to fit the window", "WxH" },
        { "benchmark", 0, 0, OptionArg.DOUBLE, null, "Zoom for SECONDS through the display's paintable and as long through one that downloads, taking turns; compare, quit", "SECONDS" },
        { null }
    };

    public Application () {
        // NON_UNIQUE: each explorer is a process of its own, so --render,
        // --screenshot and --benchmark never hand over to another instance.
        Object (application_id: "org.cugi.Fractal", flags: ApplicationFlags.NON_UNIQUE);
        add_main_option_entries (OPTIONS);
    }

    /* Runs before startup, so before GTK opens a display: --render renders
     * here, in a main loop of its own, and needs no display at all. */
    protected override int handle_local_options (VariantDict options) {
        string? view_text = null;
        options.lookup ("view", "s", out view_text);
        View view;
        try {
            view = view_text != null ? View.parse (view_text) : new View.home ();
        } catch (OptionError e) {
            printerr ("%s\n", e.message);
            return 2;
        }

        string? render_path = null;
        if (options.lookup ("render", "^ay", out render_path)) {
            int width = 1280, height = 800;
            options.lookup ("width", "i", out width);
            options.lookup ("height", "i", out height);
            if (width <= 0 || height <= 0) {
                printerr ("--width and --height must be more than 0\n");
                return 2;
            }
            var loop = new MainLoop ();
            var status = 0;
            render_file.begin (render_path, view, width, height, (source, result) => {
                try {
                    render_file.end (result);
                } catch (Error e) {
                    printerr ("--render: %s\n", e.message);
                    status = 1;
                }
                loop.quit ();
            });
            loop.run ();
            return status;
        }

        string? size_text = null;
        if (options.lookup ("size", "s", out size_text) && !parse_size (size_text, out fixed_width, out fixed_height)) {
            printerr ("--size takes WxH, such as 3840x2160, each side 1 to %d pixels\n", MAX_SIDE);
            return 2;
        }
        options.lookup ("screenshot", "^ay", out screenshot_path);
        options.lookup ("benchmark", "d", out benchmark_seconds);
        if (view_text != null)
            start_view = view;
        return -1;
    }

    View? start_view;

    static bool parse_size (string text, out int width, out int height) {
        var sides = text.split ("x");
        int64 w = 0, h = 0;
        var valid = sides.length == 2 && int64.try_parse (sides[0], out w) && int64.try_parse (sides[1], out h)
                    && w > 0 && w <= MAX_SIDE && h > 0 && h <= MAX_SIDE;
        width = valid ? (int) w : 0;
        height = valid ? (int) h : 0;
        return valid;
    }

    // --screenshot and --benchmark give up when the window is not ready by
    // then, saying what it waits for, rather than hang a script or a test.
    const uint READY_TIMEOUT_SECONDS = 30;

    protected override void activate () {
        var window = new Window (this);
        if (start_view != null)
            window.canvas.view = start_view;
        if (fixed_width > 0)
            window.canvas.fix_render_size (fixed_width, fixed_height);
        if (screenshot_path != null)
            window.ready.connect (() => take_screenshot.begin (window));
        if (benchmark_seconds > 0)
            window.ready.connect (() => benchmark (window));
        if (screenshot_path != null || benchmark_seconds > 0)
            give_up_unless_ready (window);
        window.present ();
    }

    void give_up_unless_ready (Window window) {
        var timeout = Timeout.add_seconds (READY_TIMEOUT_SECONDS, () => {
            printerr ("The window was not ready after %u s: %s\n", READY_TIMEOUT_SECONDS,
                      window.describe_progress ());
            exit_status = 1;
            quit ();
            return Source.REMOVE;
        });
        window.ready.connect (() => Source.remove (timeout));
    }

    public static int main (string[] args) {
        var app = new Application ();
        var status = app.run (args);
        return status != 0 ? status : app.exit_status;
    }

    async void take_screenshot (Window window) {
        // Wait until what made the window ready has been painted.
        var clock = window.get_frame_clock ();
        ulong handler = clock.after_paint.connect (() => take_screenshot.callback ());
        window.queue_draw ();
        yield;
        clock.disconnect (handler);

        var paintable = new Gtk.WidgetPaintable (window);
        var snapshot = new Gtk.Snapshot ();
        paintable.snapshot (snapshot, window.get_width (), window.get_height ());
        var texture = window.get_renderer ().render_texture (snapshot.free_to_node (), null);
        try {
            yield write_png (texture, File.new_for_commandline_arg (screenshot_path));
            int width, height;
            window.canvas.get_render_size (out width, out height);
            // What the picture shows, and how its image came, for the tests.
            var shown = window.canvas.picture.paintable;
            var how = (shown is CugiGtk.Paintable)
                ? " (%s)".printf (describe_path (((CugiGtk.Paintable) shown).path)) : "";
            print ("Saved the window, showing the %s page (picture %d × %d, paintable %s), to %s\n",
                   window.page, width, height, shown == null ? "none" : shown.get_type ().name () + how,
                   screenshot_path);
        } catch (Error e) {
            printerr ("--screenshot: %s\n", e.message);
            exit_status = 1;
        }
        quit ();
    }

    /* Renders back to back, each view zoomed a little from the last, while a
     * tick callback records the gaps between frame-clock ticks: a gap longer
     * than a frame is a frame the main loop was too busy to draw. Through two
     * paintables in the same process and window, taking turns: the
     * window's, made for its display (the zero-copy GL path where the
     * display's GL is on the CUDA device), and one made without a display,
     * which downloads every image. */
    void benchmark (Window window) {
        // Without a GPU no image shows: the no-GPU page, or on the
        // stand-in driver a kernel that cannot load.
        if (window.page != "fractal" || window.paintable == null || window.paintable.frames == 0) {
            printerr ("--benchmark needs a GPU\n");
            exit_status = 1;
            quit ();
            return;
        }
        var first = new View (BENCHMARK_RE, BENCHMARK_IM, BENCHMARK_SCALE);
        // The two take turns, BENCHMARK_ROUNDS spans each, so that warming
        // up and the machine's other load fall on both alike.
        BenchmarkRun[] runs = {
            new BenchmarkRun ("on the display", window.paintable),
            new BenchmarkRun ("without a display", new CugiGtk.Paintable (null)),
        };
        var span_us = (int64) (benchmark_seconds * 1e6 / BENCHMARK_ROUNDS);
        var spans = 0;
        var run = runs[0];
        window.rendered.connect ((ms) => {
            run.renders++;
            run.kernel_ms += ms;
            // The next view from an idle callback: completions come at the
            // default priority, above GTK's redraws, so work that starts
            // itself again from one would keep frames from being drawn for
            // as long as the GPU keeps up (docs/gtk.md, "The main-loop
            // contract").
            Idle.add (() => {
                var view = window.canvas.view;
                window.canvas.view = view.scale < BENCHMARK_DEEPEST ? first
                    : new View (view.centre_re, view.centre_im, view.scale * BENCHMARK_ZOOM_STEP);
                return Source.REMOVE;
            });
        });
        window.add_tick_callback ((widget, clock) => {
            var now = get_monotonic_time ();
            run.tick (now);
            if (now - run.span_start < span_us)
                return Source.CONTINUE;
            run.end_span (now);
            if (++spans == 2 * BENCHMARK_ROUNDS) {
                print_benchmark (runs[0], runs[1], window);
                quit ();
                return Source.REMOVE;
            }
            run = runs[spans % 2];
            window.paintable = run.paintable;
            run.begin_span (now);
            return Source.CONTINUE;
        });
        run.begin_span (get_monotonic_time ());
        window.canvas.view = first;
    }

    static void print_benchmark (BenchmarkRun a, BenchmarkRun b, Window window) {
        int width, height;
        window.canvas.get_render_size (out width, out height);
        print ("benchmark: the continuous zoom at %d × %d, through two paintables in turn\n", width, height);
        a.print_summary ();
        b.print_summary ();
        print ("ratios, %s / %s: frames a second %s, gap p50 %s, p99 %s, max %s, CPU a frame %s, "
               + "host copies a frame %s\n", a.name, b.name,
               ratio (a.frames_per_second, b.frames_per_second), ratio (a.gap_p50, b.gap_p50),
               ratio (a.gap_p99, b.gap_p99), ratio (a.gap_max, b.gap_max),
               ratio (a.cpu_ms_per_frame, b.cpu_ms_per_frame),
               ratio (a.host_copies_per_frame, b.host_copies_per_frame));
    }

    static string ratio (double a, double b) {
        return b > 0 ? "%.2f".printf (a / b) : "n/a";
    }

    // --render: the default colouring on the default device (CUGI_DEVICE).
    static async void render_file (string path, View view, int width, int height) throws Error {
        Cugi.init ();
        var renderer = new Renderer (Cugi.Device.get_default ());
        yield renderer.compile (new_program (default_colour_source ()), null);
        var kernel_ms = yield renderer.render (view, width, height, null);
        var texture = yield renderer.download_texture (null);
        yield write_png (texture, File.new_for_commandline_arg (path));
        print ("%s: %d × %d, view %s, %d iterations, kernel %.2f ms on %s\n", path, width, height,
               view.to_string (), view.max_iterations (), kernel_ms, renderer.device.name);
    }
}

/* One side of --benchmark: what the continuous zoom did through one
 * paintable over its spans, each from begin_span () to end_span (). */
class BenchmarkRun {
    public string name;
    public CugiGtk.Paintable paintable;
    public int64 span_start;
    public int renders;
    public double kernel_ms;

    public double seconds;
    public double frames_per_second;
    public double gap_p50;
    public double gap_p99;
    public double gap_max;
    public double cpu_ms_per_frame;
    public double host_copies_per_frame;

    // Frame-clock gaps within spans, in ms: a switch is no gap of either.
    GenericArray<double?> gaps = new GenericArray<double?> ();
    int64 last_tick;
    int n_ticks;
    uint64 frames;
    uint64 host_copies;
    double process_cpu;
    double main_cpu;
    uint64 frames_start;
    uint64 host_copies_start;
    double process_start;
    double main_start;

    public BenchmarkRun (string name, CugiGtk.Paintable paintable) {
        this.name = name;
        this.paintable = paintable;
    }

    public void begin_span (int64 now) {
        // The paintable may have shown images already: the window's first.
        frames_start = paintable.frames;
        host_copies_start = paintable.host_copies;
        process_start = cpu_seconds (Posix.CLOCK_PROCESS_CPUTIME_ID);
        main_start = cpu_seconds (Posix.CLOCK_THREAD_CPUTIME_ID);
        span_start = last_tick = now;
    }

    public void tick (int64 now) {
        if (now > last_tick)
            gaps.add ((now - last_tick) / 1000.0);
        last_tick = now;
        n_ticks++;
    }

    public void end_span (int64 now) {
        seconds += (now - span_start) / 1e6;
        process_cpu += cpu_seconds (Posix.CLOCK_PROCESS_CPUTIME_ID) - process_start;
        main_cpu += cpu_seconds (Posix.CLOCK_THREAD_CPUTIME_ID) - main_start;
        frames += paintable.frames - frames_start;
        host_copies += paintable.host_copies - host_copies_start;
        frames_per_second = frames / seconds;
        cpu_ms_per_frame = 1000 * process_cpu / frames;
        host_copies_per_frame = (double) host_copies / frames;

        var sorted = new double[gaps.length];
        for (var i = 0; i < gaps.length; i++)
            sorted[i] = gaps[i];
        sort_values (sorted, sorted.length, sizeof (double), (a, b) => {
            var x = *(double *) a, y = *(double *) b;
            return x < y ? -1 : (x > y ? 1 : 0);
        });
        gap_p50 = percentile (sorted, 0.50);
        gap_p99 = percentile (sorted, 0.99);
        gap_max = percentile (sorted, 1);
    }

    public void print_summary () {
        print ("%s (%s): %.1f s, %d renders (%.1f a second), kernel %.2f ms a render on average\n",
               name, describe_path (paintable.path), seconds, renders, renders / seconds,
               kernel_ms / int.max (renders, 1));
        print ("  frames shown: %" + uint64.FORMAT + " (%.1f a second); frame-clock gaps over %d ticks: "
               + "p50 %.2f ms, p99 %.2f ms, max %.2f ms (goal: max ≤ 20 ms)\n",
               frames, frames_per_second, n_ticks, gap_p50, gap_p99, gap_max);
        print ("  CPU: %.2f ms a frame (the process %.0f%% of one core, driver threads included; the main thread "
               + "%.0f%%); host copies: %.2f a frame\n",
               cpu_ms_per_frame, 100 * process_cpu / seconds, 100 * main_cpu / seconds, host_copies_per_frame);
    }

    // The CPU time the process or the calling thread has used, in seconds.
    static double cpu_seconds (Posix.clockid_t clock) {
        Posix.timespec time;
        Posix.clock_gettime (clock, out time);
        return time.tv_sec + time.tv_nsec / 1e9;
    }

    // qsort, with the comparison function's parameters const as C declares
    // them: posix.vapi's Posix.qsort leaves them out, and GCC 14 refuses the
    // function that valac makes of the lambda.
    [CCode (has_target = false)]
    delegate int CompareValues ([CCode (type = "const void *")] void* a,
                                [CCode (type = "const void *")] void* b);
    [CCode (cname = "qsort", cheader_filename = "stdlib.h")]
    static extern void sort_values (void* values, size_t count, size_t size, CompareValues compare);

    // The nearest-rank percentile of sorted values.
    static double percentile (double[] sorted, double p) {
        var rank = (int) Math.ceil (p * sorted.length) - 1;
        return sorted[rank.clamp (0, sorted.length - 1)];
    }
}

}
