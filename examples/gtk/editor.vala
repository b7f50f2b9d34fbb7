// editor.vala: the colouring kernel's source, editable, with NVRTC's errors
// marked on their lines.

namespace Fractal {

public class KernelEditor : Gtk.Box {
    public string source {
        owned get {
            Gtk.TextIter start, end;
            buffer.get_bounds (out start, out end);
            return buffer.get_text (start, end, false);
        }
    }

    // The user asked for the source to be compiled (the button, Ctrl+Return).
    public signal void compile_requested ();

    Gtk.TextBuffer buffer;
    Gtk.TextView text_view;
    Gtk.TextTag error_tag;
    Gtk.Button compile_button;
    Gtk.Label message;

    construct {
        orientation = Gtk.Orientation.VERTICAL;
        spacing = 6;
        margin_start = margin_end = margin_top = margin_bottom = 6;

        var title = new Gtk.Label ("Colouring kernel — colour.cuh") {
            xalign = 0,
            hexpand = true,
        };
        title.add_css_class ("heading");
        compile_button = new Gtk.Button.with_label ("Compile") {
            tooltip_text = "Compile with NVRTC (Ctrl+Return)",
        };
        compile_button.clicked.connect (() => compile_requested ());
        var header = new Gtk.Box (Gtk.Orientation.HORIZONTAL, 6);
        header.append (title);
        header.append (compile_button);
        append (header);

        buffer = new Gtk.TextBuffer (null);
        buffer.text = default_colour_source ();
        // A wavy red underline and a tinted line, as editors mark errors.
        error_tag = buffer.create_tag ("error",
                                       "underline", Pango.Underline.ERROR,
                                       "paragraph-background", "rgba(224, 27, 36, 0.15)");
        // Marks describe the source they were made for: editing clears them.
        buffer.changed.connect (clear_marks);
        text_view = new Gtk.TextView.with_buffer (buffer) {
            monospace = true,
            top_margin = 6,
            bottom_margin = 6,
            left_margin = 6,
            right_margin = 6,
        };
        var keys = new Gtk.EventControllerKey ();
        keys.key_pressed.connect ((keyval, keycode, state) => {
            var control = (state & Gdk.ModifierType.CONTROL_MASK) != 0;
            if (control && (keyval == Gdk.Key.Return || keyval == Gdk.Key.KP_Enter)) {
                compile_requested ();
                return true;
            }
            return false;
        });
        text_view.add_controller (keys);
        append (new Gtk.ScrolledWindow () {
            child = text_view,
            vexpand = true,
            has_frame = true,
        });

        message = new Gtk.Label (null) {
            xalign = 0,
            wrap = true,
            selectable = true,
        };
        append (message);
    }

    public override bool grab_focus () {
        return text_view.grab_focus ();
    }

    // Marks the start of a compile: the button waits, the message says so.
    public void set_compiling (bool compiling) {
        compile_button.sensitive = !compiling;
        if (compiling)
            show_message ("Compiling…", false);
    }

    public void show_message (string text, bool is_error) {
        message.label = text;
        if (is_error)
            message.add_css_class ("error");
        else
            message.remove_css_class ("error");
    }

    /* Shows a failed compile: every line of the colouring NVRTC reports an
     * error on is marked, the cursor goes to the first error's column, and
     * the message lists the colouring's errors and warnings. */
    public void show_compile_error (GenericArray<weak Cugi.Diagnostic> diagnostics, Error error) {
        clear_marks ();
        var lines = new StringBuilder ();
        var first = true;
        foreach (unowned var diagnostic in diagnostics) {
            var severity = diagnostic.get_severity ();
            if (diagnostic.get_file () != "colour.cuh" || severity < Cugi.DiagnosticSeverity.WARNING)
                continue;
            var line = (int) diagnostic.get_line () - 1;
            var is_error = severity == Cugi.DiagnosticSeverity.ERROR;
            lines.append_printf ("%sLine %d: %s: %s", lines.len > 0 ? "\n" : "", line + 1,
                                 is_error ? "error" : "warning", diagnostic.get_message ());
            if (!is_error)
                continue;
            Gtk.TextIter start, end;
            buffer.get_iter_at_line (out start, line);
            end = start;
            end.forward_to_line_end ();
            buffer.apply_tag (error_tag, start, end);
            if (first) {
                // The column counts bytes from 1, as line indices do from 0.
                var column = (int) diagnostic.get_column ();
                if (column > 0 && column <= end.get_line_index () + 1)
                    start.set_line_index (column - 1);
                buffer.place_cursor (start);
                text_view.scroll_to_iter (start, 0.1, false, 0, 0);
                first = false;
            }
        }
        // Errors outside the colouring (a renamed colour(), a missing NVRTC)
        // have no line here: the whole message says what went wrong.
        show_message (lines.len > 0 ? lines.str : error.message, true);
    }

    void clear_marks () {
        Gtk.TextIter start, end;
        buffer.get_bounds (out start, out end);
        buffer.remove_tag (error_tag, start, end);
    }
}

}
