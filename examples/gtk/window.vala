// window.vala: the fractal explorer's window.

namespace Fractal {

public class Window : Gtk.ApplicationWindow {
    // Emitted once, when the window shows what it will show until the user
    // acts: the first image, or, without a GPU, the no-GPU page with the
    // startup compile's result. --screenshot and --benchmark wait for it.
    public signal void ready ();
    // Emitted after each complete render, with its kernel time.
    public signal void rendered (double kernel_ms);

    // Which page is shown: "fractal" or "no-gpu".
    public string page { get { return stack.visible_child_name; } }
    public Canvas canvas { get; private set; }
    // What the picture shows: the renderer's image, from its device buffer.
    // Made for each renderer with the canvas's display, whose GL it copies
    // into where that is on the CUDA device (its GL textures are registered
    // with one device's context); --benchmark puts one without a display,
    // which always downloads, in its place.
    public CugiGtk.Paintable? paintable { get; set; }

    Gtk.DropDown device_drop_down;
    Gtk.ToggleButton julia_button;
    Gtk.Button save_button;
    Gtk.Label timing_label;
    Gtk.ProgressBar progress;
    Gtk.Stack stack;
    KernelEditor editor;

    Renderer? renderer;
    // The render in flight and the compile in flight: a newer one cancels
    // them, so stale results never reach the screen.
    Cancellable? rendering;
    Cancellable? compiling;
    // The frame-clock frame in which the paintable was last given an image,
    // and whether a band's image waits for a frame of its own.
    int64 shown_in_frame = -1;
    bool band_show_pending;
    bool is_ready;
    bool compile_in_flight;

    public Window (Gtk.Application application) {
        Object (application: application, title: "Fractal Explorer",
                default_width: 1200, default_height: 720);
    }

    construct {
        device_drop_down = new Gtk.DropDown (new ListStore (typeof (Cugi.Device)), null) {
            tooltip_text = "The GPU that renders",
        };
        var factory = new Gtk.SignalListItemFactory ();
        /* GTK 4.12's bindings give the handlers a GLib.Object (a list item or
         * a header), 4.8's a Gtk.ListItem: the cast serves both. */
        factory.setup.connect ((item) => ((Gtk.ListItem) item).child = new Gtk.Label (null) { xalign = 0 });
        factory.bind.connect ((item) => {
            var list_item = (Gtk.ListItem) item;
            ((Gtk.Label) list_item.child).label = describe_device ((Cugi.Device) list_item.item);
        });
        device_drop_down.factory = factory;

        julia_button = new Gtk.ToggleButton.with_label ("Julia") {
            tooltip_text = "The Julia set of the point at the centre",
        };
        julia_button.toggled.connect (() => {
            var view = canvas.view;
            if (julia_button.active != view.julia)
                canvas.view = julia_button.active ? view.julia_here () : view.mandelbrot_here ();
        });
        save_button = new Gtk.Button.from_icon_name ("document-save-symbolic") {
            tooltip_text = "Save as PNG",
            sensitive = false,
        };
        save_button.clicked.connect (() => choose_png_file ());
        var editor_button = new Gtk.ToggleButton () {
            icon_name = "document-edit-symbolic",
            tooltip_text = "Edit the colouring kernel",
            active = true,
        };
        timing_label = new Gtk.Label (null);
        timing_label.add_css_class ("dim-label");
        timing_label.add_css_class ("numeric");

        var header = new Gtk.HeaderBar ();
        header.pack_start (device_drop_down);
        header.pack_start (julia_button);
        header.pack_end (save_button);
        header.pack_end (editor_button);
        header.pack_end (timing_label);
        titlebar = header;

        canvas = new Canvas ();
        canvas.notify["view"].connect (() => {
            julia_button.active = canvas.view.julia;
            request_render ();
        });
        canvas.resized.connect (request_render);
        notify["paintable"].connect (() => canvas.picture.paintable = paintable);
        progress = new Gtk.ProgressBar () {
            valign = Gtk.Align.START,
            visible = false,
        };
        progress.add_css_class ("osd");
        var overlay = new Gtk.Overlay () { child = canvas };
        overlay.add_overlay (progress);

        stack = new Gtk.Stack ();
        stack.add_named (overlay, "fractal");
        stack.add_named (new Gtk.Box (Gtk.Orientation.VERTICAL, 0), "no-gpu");

        editor = new KernelEditor ();
        editor.compile_requested.connect (() => compile.begin ());
        editor_button.bind_property ("active", editor, "visible", BindingFlags.SYNC_CREATE);

        child = new Gtk.Paned (Gtk.Orientation.HORIZONTAL) {
            start_child = stack,
            end_child = editor,
            resize_end_child = false,
            shrink_end_child = false,
            position = 610,
        };
        // The source, not the first selectable label, has the focus.
        editor.grab_focus ();

        try {
            Cugi.init ();
            var devices = (ListStore) device_drop_down.model;
            foreach (var device in Cugi.Device.list ())
                devices.append (device);
            device_drop_down.notify["selected-item"].connect (use_selected_device);
            use_selected_device ();
        } catch (Error e) {
            show_no_gpu (e);
        }
    }

    static string describe_device (Cugi.Device device) {
        int major, minor;
        device.get_compute_capability (out major, out minor);
        return "%s · %.0f GiB · sm_%d%d".printf (device.name, device.total_memory / (double) (1 << 30),
                                                 major, minor);
    }

    /* The no-GPU page: cugi's own error, which says what is missing and what
     * to do, and NVRTC's version, since kernels still compile. */
    void show_no_gpu (Error error) {
        var page = (Gtk.Box) stack.get_child_by_name ("no-gpu");
        page.spacing = 12;
        page.valign = Gtk.Align.CENTER;
        page.margin_start = page.margin_end = 24;
        var icon = new Gtk.Image.from_icon_name ("dialog-warning-symbolic") { pixel_size = 96 };
        icon.add_css_class ("dim-label");
        page.append (icon);
        var title = new Gtk.Label ("No GPU");
        title.add_css_class ("title-1");
        page.append (title);
        page.append (new Gtk.Label (error.message) {
            wrap = true,
            selectable = true,
            justify = Gtk.Justification.CENTER,
            max_width_chars = 60,
        });
        string nvrtc;
        try {
            var version = Cugi.get_nvrtc_version ();
            nvrtc = "NVRTC %d.%d is here: the colouring kernel still compiles.".printf (version / 1000, version % 1000 / 10);
        } catch (Error e) {
            nvrtc = e.message;
        }
        var nvrtc_label = new Gtk.Label (nvrtc) { wrap = true };
        nvrtc_label.add_css_class ("dim-label");
        page.append (nvrtc_label);
        stack.visible_child_name = "no-gpu";
        device_drop_down.visible = false;
        julia_button.visible = false;
        compile.begin ();
    }

    void use_selected_device () {
        var device = (Cugi.Device) device_drop_down.selected_item;
        rendering?.cancel ();
        try {
            renderer = new Renderer (device);
        } catch (Error e) {
            show_status (e.message, true);
            return;
        }
        paintable = new CugiGtk.Paintable (canvas.get_display ());
        renderer.band_done.connect ((fraction) => {
            progress.fraction = fraction;
            progress.visible = fraction < 1;
            // The last band's image is shown by render() itself.
            if (fraction < 1)
                show_image_soon ();
        });
        compile.begin ();
    }

    /* Compiles the editor's source: for the renderer's device, then renders
     * with it; without a GPU for NVRTC's default architecture, to check it. */
    async void compile () {
        compiling?.cancel ();
        var cancellable = compiling = new Cancellable ();
        editor.set_compiling (true);
        compile_in_flight = true;
        var timer = new Timer ();
        var program = new_program (editor.source);
        try {
            if (renderer != null)
                yield renderer.compile (program, cancellable);
            else
                yield program.compile_async (COMPILE_OPTIONS, cancellable);
            editor.show_message ("Compiled in %.0f ms.".printf (timer.elapsed () * 1000), false);
            if (renderer != null)
                request_render ();
            else
                become_ready ();
        } catch (IOError.CANCELLED e) {
            // A newer compile took over.
        } catch (Error e) {
            editor.show_compile_error (program.get_diagnostics (), e);
            // No render follows: this is what the window will show.
            become_ready ();
        } finally {
            if (cancellable == compiling) {
                editor.set_compiling (false);
                compile_in_flight = false;
            }
        }
    }

    /* What the window is waiting for, for --screenshot and --benchmark to
     * say when it never becomes ready. */
    public string describe_progress () {
        int width, height;
        canvas.get_render_size (out width, out height);
        var clock = get_frame_clock ();
        var surface = get_surface ();
        return ("page %s; window %d × %d, %s, surface %s; canvas %d × %d after %u allocations, %s; %s; compile %s; "
                + "frames drawn: %s; %s").printf (
            page, get_width (), get_height (), get_mapped () ? "mapped" : "not mapped",
            surface == null ? "none" : "%d × %d %s".printf (surface.width, surface.height,
                                                             surface.mapped ? "mapped" : "not mapped"),
            width, height, canvas.allocations, canvas.get_mapped () ? "mapped" : "not mapped",
            renderer == null ? "no renderer" : (renderer.kernel == null ? "no kernel yet" : "kernel ready"),
            compiling == null ? "never started" : (compile_in_flight ? "in flight" : "done"),
            clock == null ? "no frame clock" : clock.get_frame_counter ().to_string (),
            renderer == null ? "no renders" : renderer.describe_progress ());
    }

    void become_ready () {
        if (!is_ready) {
            is_ready = true;
            ready ();
        }
    }

    // Starts rendering the canvas's view, cancelling the render in flight.
    void request_render () {
        if (renderer == null || renderer.kernel == null)
            return;
        int width, height;
        canvas.get_render_size (out width, out height);
        if (width <= 0 || height <= 0)
            return;
        rendering?.cancel ();
        rendering = new Cancellable ();
        render.begin (canvas.view, width, height, rendering);
    }

    async void render (View view, int width, int height, Cancellable cancellable) {
        try {
            var kernel_ms = yield renderer.render (view, width, height, cancellable);
            // Awaited, unlike the bands' images: once the window is ready,
            // the picture shows the whole image.
            yield next_frame_without_image ();
            cancellable.set_error_if_cancelled ();
            yield show_image (cancellable);
            show_status ("%.2f ms · %d × %d · %d iterations · %s".printf (
                kernel_ms, width, height, view.max_iterations (), describe_path (paintable.path)), false);
            save_button.sensitive = true;
            rendered (kernel_ms);
            become_ready ();
        } catch (IOError.CANCELLED e) {
            // A newer view took over.
        } catch (Error e) {
            progress.visible = false;
            show_status (e.message, true);
            become_ready ();
        }
    }

    void show_status (string text, bool is_error) {
        timing_label.label = text;
        timing_label.tooltip_text = is_error ? text
            : "Kernel time on the GPU, image size, iterations, and how the image reached GTK: "
              + "zero-copy GL (copied on the GPU into a GL texture) or download (through pinned host memory)";
        if (is_error)
            timing_label.add_css_class ("error");
        else
            timing_label.remove_css_class ("error");
    }

    /* Bands are done faster than frames are drawn, and renders may be: the
     * paintable gets the image so far, one copy of it, once a frame at most. */
    void show_image_soon () {
        if (band_show_pending)
            return;
        band_show_pending = true;
        show_band_image.begin ();
    }

    async void show_band_image () {
        yield next_frame_without_image ();
        band_show_pending = false;
        // A renderer for another device may have come meanwhile, with
        // nothing rendered yet.
        if (renderer.pixels == null)
            return;
        try {
            yield show_image (rendering);
        } catch (IOError.CANCELLED e) {
            // A newer view took over.
        } catch (Error e) {
            show_status (e.message, true);
        }
    }

    // Returns at once where no image has been shown in this frame (or the
    // canvas has no frame clock yet), else at the next frame's update.
    async void next_frame_without_image () {
        var clock = canvas.get_frame_clock ();
        while (clock != null && clock.get_frame_counter () == shown_in_frame) {
            canvas.add_tick_callback (() => {
                next_frame_without_image.callback ();
                return Source.REMOVE;
            });
            yield;
        }
    }

    /* Shows the renderer's image as its stream will hold it once the work
     * enqueued so far is done: the paintable's copy goes on that stream. */
    async void show_image (Cancellable? cancellable) throws Error {
        var clock = canvas.get_frame_clock ();
        shown_in_frame = clock != null ? clock.get_frame_counter () : -1;
        yield paintable.show_buffer_async (renderer.pixels, renderer.width, renderer.height, renderer.stride,
                                           renderer.stream, cancellable);
    }

#if GTK_4_10
    /* Gtk.FileDialog replaces the file chooser, deprecated since GTK 4.10. */
    void choose_png_file () {
        var dialog = new Gtk.FileDialog () { title = "Save as PNG", initial_name = "fractal.png" };
        dialog.save.begin (this, null, (source, result) => {
            try {
                save_png.begin (dialog.save.end (result));
            } catch (Error e) {
                if (!(e is Gtk.DialogError.DISMISSED))
                    show_status (e.message, true);
            }
        });
    }
#else
    void choose_png_file () {
        var chooser = new Gtk.FileChooserNative ("Save as PNG", this, Gtk.FileChooserAction.SAVE, "_Save", null);
        chooser.set_current_name ("fractal.png");
        chooser.response.connect ((response) => {
            if (response == Gtk.ResponseType.ACCEPT)
                save_png.begin (chooser.get_file ());
        });
        chooser.show ();
    }
#endif

    async void save_png (File file) {
        try {
            var texture = yield renderer.download_texture (null);
            yield write_png (texture, file);
            show_status ("Saved %s".printf (file.get_parse_name ()), false);
        } catch (Error e) {
            show_status (e.message, true);
        }
    }
}

/* How a paintable brought its image to GTK, for the status line and
 * --benchmark. */
public string describe_path (CugiGtk.PaintablePath path) {
    switch (path) {
    case CugiGtk.PaintablePath.GL_TEXTURE:
        return "zero-copy GL";
    case CugiGtk.PaintablePath.DOWNLOAD:
        return "download";
    default:
        return "nothing shown";
    }
}

/* Writes texture to file as a PNG without blocking the main loop: the PNG is
 * encoded in a thread (textures are immutable, reading one from another
 * thread is safe) and written with GIO's async I/O. */
public async void write_png (Gdk.Texture texture, File file, Cancellable? cancellable = null) throws Error {
    SourceFunc resume = write_png.callback;
    Bytes? png = null;
    new Thread<void> ("png-encoder", () => {
        png = texture.save_to_png_bytes ();
        Idle.add ((owned) resume);
    });
    yield;
    yield file.replace_contents_bytes_async (png, null, false, FileCreateFlags.REPLACE_DESTINATION,
                                             cancellable, null);
}

}
