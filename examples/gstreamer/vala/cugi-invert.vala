// valacugiinvert: a GStreamer element in Vala that inverts RGBA and BGRA
// frames with a cugi kernel, in the plugin gstcugivala. CugiGst.Filter does
// the rest, as for pycugiinvert (examples/gstreamer/python/cugi_invert.py):
// the CUDA context shared with the neighbours, CUDA memory without copies,
// system memory through pinned staging, the pools and the stream, errors as
// element errors.
//
//   GST_PLUGIN_PATH=build/examples/gstreamer/vala gst-launch-1.0 \
//     videotestsrc num-buffers=100 ! video/x-raw,format=RGBA ! cudaupload ! \
//     valacugiinvert ! cudadownload ! fakesink

const string SOURCE = """
extern "C" __global__ void
invert (const unsigned char *src, int src_pitch, unsigned char *dst, int dst_pitch,
        int width, int height)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height)
    return;
  const unsigned char *in = src + (size_t) y * src_pitch + x * 4;
  unsigned char *out = dst + (size_t) y * dst_pitch + x * 4;
  for (int c = 0; c < 3; c++)
    out[c] = 255 - in[c];
  out[3] = in[3];   /* alpha, last in RGBA and BGRA */
}
""";

public class CugiVala.Invert : CugiGst.Filter {
    const uint BLOCK_SIZE = 16;

    // Set by the application, read on the streaming thread. A Mutex rather
    // than lock (): valac's C for lock () leaves unused labels, which
    // -Werror builds reject.
    Mutex source_mutex;
    string kernel_source = SOURCE;
    Cugi.Kernel? kernel;
    Cugi.LaunchConfig? config;
    Cugi.KernelArgs args = new Cugi.KernelArgs ();

    /**
     * The kernel's CUDA C++ source: invert (src, src_pitch, dst, dst_pitch,
     * width, height), compiled when the caps are set.
     */
    [Description (nick = "Source", blurb = "The CUDA C++ source of the kernel invert (src, src_pitch, dst, dst_pitch, width, height)")]
    public string source {
        owned get {
            source_mutex.lock ();
            var copy = kernel_source;
            source_mutex.unlock ();
            return copy;
        }
        set {
            source_mutex.lock ();
            kernel_source = value;
            source_mutex.unlock ();
        }
    }

    class construct {
        set_static_metadata ("cugi invert (Vala)", "Filter/Effect/Video/Hardware",
                             "Inverts RGBA frames with a cugi kernel, written in Vala",
                             "The cugi developers");
        try {
            set_formats ({ "RGBA", "BGRA" });
        } catch (Error e) {
            // Both are formats GStreamer knows: only a broken build gets here.
            GLib.error ("valacugiinvert: %s", e.message);
        }
    }

    public override bool set_info (Gst.Video.Info in_info, Gst.Video.Info out_info) throws Error {
        // Through cugi's kernel cache: a restart loads the compiled kernel.
        kernel = new Cugi.Kernel.from_source (cugi_context, source, "invert", null);
        config = new Cugi.LaunchConfig.for_size_2d (in_info.width, in_info.height, BLOCK_SIZE, BLOCK_SIZE);
        return true;
    }

    public override bool transform_frame (CugiGst.Frame in_frame, CugiGst.Frame out_frame,
                                          Cugi.Stream stream) throws Error {
        config.set_stream (stream);
        args.clear ();
        args.add_buffer (in_frame.get_plane (0));
        args.add_int32 ((int32) in_frame.get_plane_pitch (0));
        args.add_buffer (out_frame.get_plane (0));
        args.add_int32 ((int32) out_frame.get_plane_pitch (0));
        args.add_int32 ((int32) in_frame.get_width ());
        args.add_int32 ((int32) in_frame.get_height ());
        return kernel.launch (config, args);
    }
}

public bool plugin_init (Gst.Plugin plugin) {
    // Nothing here touches CUDA: the element registers on any machine.
    return Gst.Element.register (plugin, "valacugiinvert", Gst.Rank.NONE, typeof (CugiVala.Invert));
}

// meson.build defines it, from the project's version.
[CCode (cname = "PACKAGE_VERSION")]
public extern const string PACKAGE_VERSION;

// What GStreamer looks up when it loads the module.
[CCode (cname = "gst_plugin_desc")]
public const Gst.PluginDesc PLUGIN_DESC = {
    Gst.VERSION_MAJOR, Gst.VERSION_MINOR,
    "cugivala", "A cugi element written in Vala",
    plugin_init, PACKAGE_VERSION, "LGPL", "cugi", "cugi", "https://cugi.invalid/"
};
