// canvas.vala: the picture of the fractal, and the gestures that move it.

namespace Fractal {

/* A Gtk.Picture that knows its view: dragging pans it, scrolling zooms it
 * about the pointer. GtkPicture is final, so the canvas is a widget holding
 * one; being a widget of its own also tells it when its size changes, which
 * a picture does not say, and a new size needs a new render. */
public class Canvas : Gtk.Widget {
    public View view { get; set; default = new View.home (); }
    public Gtk.Picture picture { get; private set; }

    // Emitted when the size changes: the image should be rendered again.
    public signal void resized ();

    // Each wheel step zooms by this factor.
    const double ZOOM_STEP = 1.25;

    View? drag_start_view;
    double pointer_x;
    double pointer_y;
    int last_width;
    int last_height;
    // --size: the size renders take whatever the canvas's, 0 × 0 for none.
    int fixed_width;
    int fixed_height;
    // How many times GTK allocated the canvas, for Window.describe_progress().
    public uint allocations { get; private set; }

    static construct {
        set_css_name ("fractal-canvas");
    }

    construct {
        // The image is rendered at the canvas's own size, in device pixels;
        // while a render for a new size is on its way the previous image
        // stretches to fill it: content-fit FILL (GTK 4.8 deprecated
        // keep-aspect-ratio for it; the VAPI of Debian 12's GTK 4.8 does not
        // know the property yet, so there it is set by name: FILL is 0).
        picture = new Gtk.Picture () {
            can_shrink = true,
#if GTK_4_10
            content_fit = Gtk.ContentFit.FILL,
#endif
        };
#if !GTK_4_10
        picture.set ("content-fit", 0);
#endif
        picture.set_parent (this);
        hexpand = vexpand = true;

        var drag = new Gtk.GestureDrag ();
        drag.drag_begin.connect (() => drag_start_view = view);
        drag.drag_update.connect ((dx, dy) => view = drag_start_view.panned (dx, dy, get_height ()));
        add_controller (drag);

        var motion = new Gtk.EventControllerMotion ();
        motion.motion.connect ((x, y) => {
            pointer_x = x;
            pointer_y = y;
        });
        add_controller (motion);

        var scroll = new Gtk.EventControllerScroll (Gtk.EventControllerScrollFlags.VERTICAL);
        scroll.scroll.connect ((dx, dy) => {
            view = view.zoomed (Math.pow (ZOOM_STEP, dy), pointer_x, pointer_y, get_width (), get_height ());
            return true;
        });
        add_controller (scroll);
    }

    public override void dispose () {
        picture.unparent ();
        base.dispose ();
    }

    // No layout manager: GTK calls size_allocate() only on widgets without
    // one, and this is where the canvas learns its new size. The picture
    // takes the canvas's whole size, and asks for what it would alone.
    public override void measure (Gtk.Orientation orientation, int for_size, out int minimum,
                                  out int natural, out int minimum_baseline, out int natural_baseline) {
        picture.measure (orientation, for_size, out minimum, out natural,
                         out minimum_baseline, out natural_baseline);
    }

    public override void size_allocate (int width, int height, int baseline) {
        picture.allocate (width, height, baseline, null);
        allocations++;
        if (width != last_width || height != last_height) {
            last_width = width;
            last_height = height;
            resized ();
        }
    }

    // The size to render at: the canvas in device pixels. From the last
    // allocation, not get_width(): ::resized is emitted from size_allocate,
    // and a render requested there (the first one, when the kernel was ready
    // before the window was shown: a compile from the disk cache) must see
    // the new size. Once the canvas has been allocated, a fixed size takes
    // its place.
    public void get_render_size (out int width, out int height) {
        var fixed = fixed_width > 0 && last_width > 0;
        width = fixed ? fixed_width : last_width * scale_factor;
        height = fixed ? fixed_height : last_height * scale_factor;
    }

    /* Renders at width × height pixels from now on, whatever the canvas's
     * size (--size): the picture scales the image to fit. A benchmark
     * renders as many pixels whatever the screen, Xvfb's included. */
    public void fix_render_size (int width, int height) {
        fixed_width = width;
        fixed_height = height;
    }
}

}
