// view.vala: what part of which fractal is on screen.

namespace Fractal {

/* A view of the Mandelbrot set, or of a Julia set, independent of the size
 * in pixels: the same view renders the same picture in a window and with
 * --render at any size. Views are values; panning and zooming make new ones,
 * so a render in flight keeps the view it started with. */
public class View : Object {
    // The point at the centre of the image.
    public double centre_re { get; construct; }
    public double centre_im { get; construct; }
    // The height of the image in the complex plane; the width follows from
    // the aspect ratio.
    public double scale { get; construct; }
    public bool julia { get; construct; }
    // The constant c of the Julia set.
    public double julia_re { get; construct; }
    public double julia_im { get; construct; }

    public View (double centre_re, double centre_im, double scale,
                 bool julia = false, double julia_re = 0, double julia_im = 0) {
        Object (centre_re: centre_re, centre_im: centre_im, scale: scale,
                julia: julia, julia_re: julia_re, julia_im: julia_im);
    }

    public View.home () {
        this (-0.6, 0, 2.6);
    }

    /* Parses "cx,cy,scale" (Mandelbrot) or "cx,cy,scale,julia_re,julia_im",
     * the form of --view and of to_string(). */
    public static View parse (string text) throws OptionError {
        var parts = text.split (",");
        if (parts.length != 3 && parts.length != 5)
            throw new OptionError.BAD_VALUE ("--view takes cx,cy,scale or cx,cy,scale,julia_re,julia_im, not “%s”", text);
        var values = new double[parts.length];
        for (var i = 0; i < parts.length; i++) {
            if (!double.try_parse (parts[i].strip (), out values[i]))
                throw new OptionError.BAD_VALUE ("--view: “%s” is not a number", parts[i]);
        }
        if (!(values[2] > 0))
            throw new OptionError.BAD_VALUE ("--view: the scale must be more than 0");
        if (parts.length == 5)
            return new View (values[0], values[1], values[2], true, values[3], values[4]);
        return new View (values[0], values[1], values[2]);
    }

    public string to_string () {
        var text = "%.17g,%.17g,%.17g".printf (centre_re, centre_im, scale);
        return julia ? text + ",%.17g,%.17g".printf (julia_re, julia_im) : text;
    }

    /* Deeper views need more iterations before points near the boundary
     * escape: 256, plus 128 for each tenfold zoom past the home view. */
    public int max_iterations () {
        return 256 + (int) (128 * double.max (0, Math.log10 (2.6 / scale)));
    }

    // The size of a pixel of an image height pixels high.
    public double pixel_size (int height) {
        return scale / height;
    }

    // The view moved by dx, dy pixels of an image height pixels high, as a
    // drag by that much moves the picture.
    public View panned (double dx, double dy, int height) {
        var pixel = pixel_size (height);
        return new View (centre_re - dx * pixel, centre_im + dy * pixel, scale,
                         julia, julia_re, julia_im);
    }

    // The view zoomed by factor (< 1 zooms in) keeping the point at pixel
    // x, y of a width × height image where it is.
    public View zoomed (double factor, double x, double y, int width, int height) {
        var pixel = pixel_size (height);
        var re = centre_re + (x - width / 2.0) * pixel;
        var im = centre_im - (y - height / 2.0) * pixel;
        return new View (re + (centre_re - re) * factor, im + (centre_im - im) * factor,
                         scale * factor, julia, julia_re, julia_im);
    }

    // The Julia set of the point at the centre of this view, seen whole.
    public View julia_here () {
        return new View (0, 0, 3.2, true, centre_re, centre_im);
    }

    // The Mandelbrot set, centred on this Julia set's constant.
    public View mandelbrot_here () {
        return new View (julia_re, julia_im, 2.6);
    }
}

}
