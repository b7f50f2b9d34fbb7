#!/usr/bin/python3
"""The fractal explorer's core in Python: GTK 4, PyGObject and cugi.

A window lists the GPUs, renders the Mandelbrot set (or a Julia set) with
the same CUDA kernel as the Vala app (fractal.cu and colour.cuh, next to this
script), pans on drag, zooms on scroll and saves PNGs. Run it from the build
tree:

    meson devenv -C build /usr/bin/python3 ../examples/gtk/fractal.py
    meson devenv -C build /usr/bin/python3 ../examples/gtk/fractal.py \\
        --render out.png --width 1920 --height 1080 --view -0.7436,0.1318,0.02

GPU work never blocks the main loop: a render is a launch on a non-blocking
stream into a device buffer, which a CugiGtk.Paintable shows with a copy
enqueued on the same stream (on the GPU into a GL texture where the display's
GL is on the CUDA device, else a download); a PNG downloads the buffer.
PyGObject 3.42 (Debian 12) has no awaitable async calls, so the code passes
callbacks.
"""

import argparse
import ctypes
import math
import os
import sys

import gi
gi.require_version('Cugi', '1.0')
gi.require_version('CugiGtk', '1.0')
gi.require_version('Gdk', '4.0')
gi.require_version('Gtk', '4.0')
from gi.repository import Cugi, CugiGtk, Gdk, Gio, GLib, Gtk  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
# See fractal.cu: without fused multiply-adds the CPU reference matches.
COMPILE_OPTIONS = ['--fmad=false']
BLOCK = 16


def read_source(name):
    with open(os.path.join(HERE, name), encoding='utf-8') as f:
        return f.read()


class View:
    """What part of which fractal is shown, independent of the pixel size:
    the centre, the height in the complex plane, and the Julia constant."""

    def __init__(self, centre_re=-0.6, centre_im=0.0, scale=2.6, julia=None):
        # Floats, whatever the caller gave: the kernel is extern "C", so cugi
        # knows its parameters' sizes only, and an int for a double (8 bytes)
        # would go as a 64-bit integer.
        self.centre_re, self.centre_im, self.scale = float(centre_re), float(centre_im), float(scale)
        # None, or (re, im) for a Julia set.
        self.julia = None if julia is None else (float(julia[0]), float(julia[1]))

    @classmethod
    def parse(cls, text):
        """cx,cy,scale or cx,cy,scale,julia_re,julia_im, as --view takes."""
        values = [float(part) for part in text.split(',')]
        if len(values) not in (3, 5) or values[2] <= 0:
            raise ValueError('--view takes cx,cy,scale[,julia_re,julia_im] with scale > 0')
        return cls(*values[:3], julia=tuple(values[3:]) or None)

    def max_iterations(self):
        # As in view.vala: 256, plus 128 for each tenfold zoom.
        return 256 + int(128 * max(0.0, math.log10(2.6 / self.scale)))

    def panned(self, dx, dy, height):
        pixel = self.scale / height
        return View(self.centre_re - dx * pixel, self.centre_im + dy * pixel, self.scale, self.julia)

    def zoomed(self, factor, x, y, width, height):
        pixel = self.scale / height
        re = self.centre_re + (x - width / 2) * pixel
        im = self.centre_im - (y - height / 2) * pixel
        return View(re + (self.centre_re - re) * factor, im + (self.centre_im - im) * factor,
                    self.scale * factor, self.julia)


class Renderer:
    """Renders views on one device into a device buffer (pixels, rows of
    width × 4 bytes): one launch on a non-blocking stream of its own,
    bracketed by events for the kernel time."""

    def __init__(self, device):
        self.device = device
        self.context = device.get_primary_context()
        self.stream = Cugi.Stream.new(self.context, Cugi.StreamFlags.NON_BLOCKING, 0)
        self.start = Cugi.Event.new(self.context, Cugi.EventFlags.NONE)
        self.end = Cugi.Event.new(self.context, Cugi.EventFlags.NONE)
        self.kernel = None
        self.pixels = None
        self.width = self.height = 0

    def compile(self, colour_source, on_done):
        """Compiles the kernel with NVRTC in a worker thread; on_done(error)."""
        program = Cugi.Program.new(read_source('fractal.cu'), 'fractal.cu')
        program.add_header('colour.cuh', colour_source)

        def compiled(program, result):
            try:
                program.compile_for_device_finish(result)
                module = Cugi.Module.new_from_program(self.context, program)
                self.kernel = module.get_kernel('fractal')
            except GLib.Error as error:
                return on_done(error)
            on_done(None)

        program.compile_for_device_async(self.device, COMPILE_OPTIONS, None, compiled)

    def render(self, view, width, height, paintable, cancellable, on_done):
        """Renders view at width × height and, where paintable is not None,
        shows it there; on_done(kernel_ms, error) once the GPU has done both.
        Cancelling drops the result (the GPU work itself still runs)."""
        size = width * height * 4
        if self.pixels is None or self.pixels.get_size() != size:
            self.pixels = Cugi.Buffer.new(self.context, size)
        self.width, self.height = width, height
        julia_re, julia_im = view.julia or (0.0, 0.0)
        # A thread a pixel, in blocks of BLOCK × BLOCK that cover the image.
        config = Cugi.LaunchConfig.new_for_size_2d(width, height, BLOCK, BLOCK)
        config.set_stream(self.stream)
        self.start.record(self.stream)
        self.kernel.launch_values(config, [self.pixels, width, height, 0, height,
                                           view.centre_re, view.centre_im, view.scale / height,
                                           view.julia is not None, julia_re, julia_im,
                                           view.max_iterations()])
        self.end.record(self.stream)

        def timed(start, result):
            try:
                kernel_ms = start.elapsed_time_finish(result)
            except GLib.Error as error:
                return on_done(0.0, error)
            on_done(kernel_ms, None)

        def shown(paintable, result):
            try:
                paintable.show_buffer_finish(result)
            except GLib.Error as error:
                return on_done(0.0, error)
            # The GL path's copy completes at once, before the kernel may
            # have: the events say when it has.
            self.start.elapsed_time_async(self.end, cancellable, timed)

        if paintable is None:
            self.start.elapsed_time_async(self.end, cancellable, timed)
        else:
            # Enqueued on the stream after the launch: it copies the image
            # the kernel writes.
            paintable.show_buffer_async(self.pixels, width, height, width * 4, self.stream, cancellable,
                                        shown)

    def download_texture(self, on_done):
        """The last image in host memory, as a Gdk.MemoryTexture, for what
        needs its pixels (a PNG); on_done(texture, error)."""
        width, height = self.width, self.height

        def downloaded(pixels, result):
            try:
                data = pixels.download_finish(result)
            except GLib.Error as error:
                return on_done(None, error)
            on_done(Gdk.MemoryTexture.new(width, height, Gdk.MemoryFormat.R8G8B8A8, data, width * 4), None)

        self.pixels.download_async(0, width * height * 4, self.stream, None, downloaded)


# How a paintable brought its image to GTK, for the status line.
PATHS = {CugiGtk.PaintablePath.NONE: 'nothing shown', CugiGtk.PaintablePath.GL_TEXTURE: 'zero-copy GL',
         CugiGtk.PaintablePath.DOWNLOAD: 'download'}


def cancelled(error):
    return error.matches(Gio.io_error_quark(), Gio.IOErrorEnum.CANCELLED)


class Canvas(Gtk.Widget):
    """A Gtk.Picture that says when its size changes: GtkPicture does not,
    and a new size needs a new render. Without a layout manager, because GTK
    calls do_size_allocate() only on widgets that have none."""

    def __init__(self, on_resized):
        super().__init__(hexpand=True, vexpand=True)
        self.picture = Gtk.Picture(can_shrink=True)
        if hasattr(Gtk, 'ContentFit'):      # GTK 4.8+: keep-aspect-ratio is deprecated
            self.picture.set_content_fit(Gtk.ContentFit.FILL)
        else:
            self.picture.set_keep_aspect_ratio(False)
        self.picture.set_parent(self)
        self.on_resized = on_resized
        self.size = (0, 0)      # the last allocation, in device pixels

    def do_measure(self, orientation, for_size):
        return self.picture.measure(orientation, for_size)

    def do_size_allocate(self, width, height, baseline):
        self.picture.allocate(width, height, baseline, None)
        scale = self.get_scale_factor()
        if (width * scale, height * scale) != self.size:
            self.size = (width * scale, height * scale)
            self.on_resized()

    def do_dispose(self):
        self.picture.unparent()
        Gtk.Widget.do_dispose(self)


class Window(Gtk.ApplicationWindow):
    def __init__(self, app, view):
        super().__init__(application=app, title='Fractal Explorer (Python)',
                         default_width=960, default_height=640)
        self.view = view
        self.renderer = None
        self.rendering = None       # the GCancellable of the render in flight
        self.paintable = None       # what the picture shows, made for each renderer
        self.ready_callback = None  # called once the first image (or the no-GPU page) is up
        self.pointer = (0.0, 0.0)

        header = Gtk.HeaderBar()
        self.set_titlebar(header)
        self.devices = Gio.ListStore(item_type=Cugi.Device)
        factory = Gtk.SignalListItemFactory()
        factory.connect('setup', lambda f, item: item.set_child(Gtk.Label(xalign=0)))
        factory.connect('bind', lambda f, item: item.get_child().set_label(describe(item.get_item())))
        self.device_drop_down = Gtk.DropDown(model=self.devices, factory=factory)
        header.pack_start(self.device_drop_down)
        self.save_button = Gtk.Button(icon_name='document-save-symbolic', tooltip_text='Save as PNG',
                                      sensitive=False)
        self.save_button.connect('clicked', self.on_save)
        header.pack_end(self.save_button)
        self.status = Gtk.Label(css_classes=['dim-label', 'numeric'])
        header.pack_end(self.status)

        self.canvas = Canvas(self.render)
        self.picture = self.canvas.picture
        drag = Gtk.GestureDrag()
        drag.connect('drag-begin', lambda gesture, x, y: setattr(self, 'drag_start', self.view))
        drag.connect('drag-update', lambda gesture, dx, dy: self.show_view(
            self.drag_start.panned(dx, dy, self.picture.get_height())))
        self.picture.add_controller(drag)
        motion = Gtk.EventControllerMotion()
        motion.connect('motion', lambda controller, x, y: setattr(self, 'pointer', (x, y)))
        self.picture.add_controller(motion)
        scroll = Gtk.EventControllerScroll(flags=Gtk.EventControllerScrollFlags.VERTICAL)
        scroll.connect('scroll', self.on_scroll)
        self.picture.add_controller(scroll)

        try:
            Cugi.init()
            for device in Cugi.Device.list():
                self.devices.append(device)
        except GLib.Error as error:
            self.device_drop_down.set_visible(False)
            self.set_child(no_gpu_page(error))
            self.page = 'no-gpu'
            GLib.idle_add(self.become_ready)
            return
        self.page = 'fractal'
        self.set_child(self.canvas)
        self.device_drop_down.connect('notify::selected-item', self.on_device)
        self.on_device()

    def become_ready(self):
        if self.ready_callback:
            self.ready_callback(self)
            self.ready_callback = None

    def on_device(self, *args):
        if self.rendering:
            self.rendering.cancel()
        self.renderer = Renderer(self.device_drop_down.get_selected_item())
        # For the display, whose GL it copies into where that is on the CUDA
        # device; one for each renderer, since its GL textures are registered
        # with one device's context.
        self.paintable = CugiGtk.Paintable.new(self.get_display())
        self.picture.set_paintable(self.paintable)
        self.renderer.compile(read_source('colour.cuh'), self.on_compiled)

    def on_compiled(self, error):
        if error:
            self.status.set_label(error.message)
            return self.become_ready()
        # Without a size yet, the first allocation renders (Canvas.on_resized).
        self.render()

    def show_view(self, view):
        self.view = view
        self.render()

    def on_scroll(self, controller, dx, dy):
        x, y = self.pointer
        self.show_view(self.view.zoomed(1.25 ** dy, x, y, self.picture.get_width(),
                                        self.picture.get_height()))
        return True

    def render(self):
        """Starts a render of self.view, cancelling the one in flight."""
        width, height = self.canvas.size
        if not self.renderer or not self.renderer.kernel or width <= 0 or height <= 0:
            return
        if self.rendering:
            self.rendering.cancel()
        self.rendering = Gio.Cancellable()
        view = self.view

        def done(kernel_ms, error):
            if error and cancelled(error):
                return      # a newer view took over
            if error:
                self.status.set_label(error.message)
            else:
                self.save_button.set_sensitive(True)
                self.status.set_label('%.2f ms · %d × %d · %d iterations · %s'
                                      % (kernel_ms, width, height, view.max_iterations(),
                                         PATHS[self.paintable.props.path]))
            self.become_ready()

        self.renderer.render(view, width, height, self.paintable, self.rendering, done)

    def save_png(self, file):
        """Downloads the image from the device and writes it to file."""
        def done(error):
            self.status.set_label(error.message if error else 'Saved')

        def downloaded(texture, error):
            if error:
                return done(error)
            write_png(texture, file, done)

        self.renderer.download_texture(downloaded)

    def on_save(self, button):
        if hasattr(Gtk, 'FileDialog'):      # GTK 4.10+, where the file chooser is deprecated
            dialog = Gtk.FileDialog(title='Save as PNG', initial_name='fractal.png')

            def chosen(dialog, result):
                try:
                    file = dialog.save_finish(result)
                except GLib.Error as error:
                    if not error.matches(Gtk.DialogError.quark(), Gtk.DialogError.DISMISSED):
                        self.status.set_label(error.message)
                    return
                self.save_png(file)

            dialog.save(self, None, chosen)
            return
        chooser = Gtk.FileChooserNative(title='Save as PNG', transient_for=self,
                                        action=Gtk.FileChooserAction.SAVE)
        chooser.set_current_name('fractal.png')

        def response(chooser, response_id):
            if response_id == Gtk.ResponseType.ACCEPT:
                self.save_png(chooser.get_file())

        chooser.connect('response', response)
        chooser.show()
        self.chooser = chooser      # native dialogs are not kept alive by GTK


def describe(device):
    major, minor = device.get_compute_capability()
    return '%s · %.0f GiB · sm_%d%d' % (device.props.name, device.props.total_memory / 2**30, major, minor)


def no_gpu_page(error):
    """cugi's error, which says what is missing, and NVRTC's version."""
    page = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=12, valign=Gtk.Align.CENTER,
                   margin_start=24, margin_end=24)
    page.append(Gtk.Image(icon_name='dialog-warning-symbolic', pixel_size=96, css_classes=['dim-label']))
    page.append(Gtk.Label(label='No GPU', css_classes=['title-1']))
    page.append(Gtk.Label(label=error.message, wrap=True, justify=Gtk.Justification.CENTER,
                          max_width_chars=60))
    try:
        version = Cugi.get_nvrtc_version()
        nvrtc = 'NVRTC %d.%d is here: kernels still compile.' % (version // 1000, version % 1000 // 10)
    except GLib.Error as nvrtc_error:
        nvrtc = nvrtc_error.message
    page.append(Gtk.Label(label=nvrtc, wrap=True, css_classes=['dim-label']))
    return page


def write_png(texture, file, on_done):
    """Writes a PNG with GIO's async I/O; on_done(error)."""
    def written(file, result):
        try:
            file.replace_contents_finish(result)
        except GLib.Error as error:
            return on_done(error)
        on_done(None)

    # Encoding takes a few milliseconds, writing may take longer: only the
    # write is async here (the Vala app encodes in a thread too).
    file.replace_contents_bytes_async(texture.save_to_png_bytes(), None, False,
                                      Gio.FileCreateFlags.REPLACE_DESTINATION, None, written)


def screenshot(window, path):
    """Saves a PNG of the window as drawn (through its own GSK renderer),
    once what made it ready has been painted, then quits."""
    clock = window.get_frame_clock()

    def painted(clock):
        clock.disconnect(handler)
        save_window(window, path)

    handler = clock.connect('after-paint', painted)
    window.queue_draw()


def save_window(window, path):
    """The window drawn into a texture by its own GSK renderer, as a PNG.

    PyGObject 3.42 cannot take a GskRenderNode (a fundamental type, not a
    GObject) into Python, so the node goes from the snapshot to the renderer
    through ctypes, by the C pointers of the objects around it."""
    gtk = ctypes.CDLL('libgtk-4.so.1')
    gtk.gtk_snapshot_to_node.restype = ctypes.c_void_p
    gtk.gtk_snapshot_to_node.argtypes = [ctypes.c_void_p]
    gtk.gsk_renderer_render_texture.restype = ctypes.c_void_p
    gtk.gsk_renderer_render_texture.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
    gtk.gdk_texture_save_to_png.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    gtk.gsk_render_node_unref.argtypes = [ctypes.c_void_p]
    gtk.g_object_unref.argtypes = [ctypes.c_void_p]

    snapshot = Gtk.Snapshot.new()
    Gtk.WidgetPaintable.new(window).snapshot(snapshot, window.get_width(), window.get_height())
    node = gtk.gtk_snapshot_to_node(c_pointer(snapshot))
    texture = gtk.gsk_renderer_render_texture(c_pointer(window.get_renderer()), node, None)
    saved = gtk.gdk_texture_save_to_png(texture, os.fsencode(path))
    gtk.g_object_unref(texture)
    gtk.gsk_render_node_unref(node)
    if saved:
        shown = window.picture.get_paintable()
        print('Saved the window, showing the %s page (picture %d × %d, paintable %s), to %s'
              % ((window.page,) + window.canvas.size
                 + ('none' if shown is None else '%s (%s)' % (shown.__gtype__.name,
                                                              PATHS[shown.props.path]),
                    path)))
    else:
        print('--screenshot: could not write', path, file=sys.stderr)
        window.get_application().exit_status = 1
    window.get_application().quit()


def c_pointer(gobject):
    """The C pointer of a PyGObject object."""
    get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    get_pointer.restype = ctypes.c_void_p
    get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    return get_pointer(gobject.__gpointer__, None)


def render_file(args):
    """--render: no window, no display; a main loop for the async calls."""
    try:
        Cugi.init()
        renderer = Renderer(Cugi.Device.get_default())
    except GLib.Error as error:
        print('--render:', error.message, file=sys.stderr)
        return 1
    loop = GLib.MainLoop()
    status = 1

    def finish(error):
        nonlocal status
        if error:
            print('--render:', error.message, file=sys.stderr)
        else:
            status = 0
            print('%s: %d × %d, %d iterations, kernel %.2f ms on %s'
                  % (args.render, args.width, args.height, args.view.max_iterations(), kernel_ms,
                     renderer.device.props.name))
        loop.quit()

    def downloaded(texture, error):
        if error:
            return finish(error)
        write_png(texture, Gio.File.new_for_commandline_arg(args.render), finish)

    def rendered(ms, error):
        nonlocal kernel_ms
        kernel_ms = ms
        if error:
            return finish(error)
        renderer.download_texture(downloaded)

    kernel_ms = 0.0
    renderer.compile(read_source('colour.cuh'), lambda error: finish(error) if error else
                     renderer.render(args.view, args.width, args.height, None, None, rendered))
    loop.run()
    return status


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--render', metavar='FILE', help='render to a PNG file, without a window')
    parser.add_argument('--width', type=int, default=1280)
    parser.add_argument('--height', type=int, default=800)
    parser.add_argument('--view', type=View.parse, default=View(), help='cx,cy,scale[,julia_re,julia_im]')
    parser.add_argument('--screenshot', metavar='FILE', help='save a PNG of the window once it is ready, then quit')
    args = parser.parse_args()
    if args.render:
        return render_file(args)

    # NON_UNIQUE: every run is its own process, tests included.
    app = Gtk.Application(application_id='org.cugi.FractalPython', flags=Gio.ApplicationFlags.NON_UNIQUE)
    app.exit_status = 0

    def activate(app):
        window = Window(app, args.view)
        if args.screenshot:
            window.ready_callback = lambda window: screenshot(window, args.screenshot)
        window.present()

    app.connect('activate', activate)
    status = app.run(sys.argv[:1])
    return status or app.exit_status


if __name__ == '__main__':
    sys.exit(main())
