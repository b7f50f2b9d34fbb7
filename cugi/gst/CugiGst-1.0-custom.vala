/* CugiGst-1.0-custom.vala: what vapigen cannot take from CugiGst-1.0.gir.
 *
 * The methods skipped by CugiGst-1.0-vala.metadata, with the C types of
 * their const parameters. */

namespace CugiGst {
	public abstract class Filter : Gst.Base.Transform {
		[CCode (cname = "cugi_gst_filter_class_set_formats")]
		[Version (since = "0.1")]
		public class bool set_formats ([CCode (array_length = false, array_null_terminated = true, type = "const gchar* const*")] string[] formats) throws GLib.Error;
		[NoWrapper]
		public virtual bool set_info ([CCode (type = "const GstVideoInfo*")] Gst.Video.Info in_info, [CCode (type = "const GstVideoInfo*")] Gst.Video.Info out_info) throws GLib.Error;
	}
}
