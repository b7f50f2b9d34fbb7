/* Cugi-1.0-custom.vala: what vapigen cannot take from Cugi-1.0.gir.
 *
 * The functions that take NVRTC options (skipped from the GIR by
 * Cugi-1.0.metadata), with the C type of the options, so that valac casts
 * its `gchar **` to the `const gchar * const *` the C functions take. */

namespace Cugi {
	public sealed class Kernel : GLib.Object {
		[CCode (has_construct_function = false)]
		public Kernel.from_source (Cugi.Context? context, string source, string name, [CCode (array_length = false, array_null_terminated = true, type = "const gchar* const*")] string[]? options) throws GLib.Error;
	}

	public sealed class Program : GLib.Object {
		public bool compile ([CCode (array_length = false, array_null_terminated = true, type = "const gchar* const*")] string[]? options) throws GLib.Error;
		public async bool compile_async ([CCode (array_length = false, array_null_terminated = true, type = "const gchar* const*")] string[]? options, GLib.Cancellable? cancellable) throws GLib.Error;
		public bool compile_for_arch (int major, int minor, [CCode (array_length = false, array_null_terminated = true, type = "const gchar* const*")] string[]? options) throws GLib.Error;
		public bool compile_for_device (Cugi.Device device, [CCode (array_length = false, array_null_terminated = true, type = "const gchar* const*")] string[]? options) throws GLib.Error;
		public async bool compile_for_device_async (Cugi.Device device, [CCode (array_length = false, array_null_terminated = true, type = "const gchar* const*")] string[]? options, GLib.Cancellable? cancellable) throws GLib.Error;
	}
}
