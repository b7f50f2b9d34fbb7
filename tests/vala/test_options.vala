// The functions that take NVRTC options, from Vala, without a GPU. Vala
// passes a string[] as `gchar **` while the C functions take
// `const gchar * const *`: the C made of this file compiles only when the
// VAPI gives that type (GCC 14 refuses the mismatch, and the build adds
// -Werror=incompatible-pointer-types for older GCC). Meson runs this with
// CUGI_LIBCUDA naming a file that does not exist, as test_typelib.vala.

// FACTOR comes only from the options, so a compile that lost them fails.
const string SCALE = "extern \"C\" __global__ void scale(float *p) { p[threadIdx.x] *= FACTOR; }";

// A new array each time: valac ends a local array with NULL, as the C
// functions need, but not a constant one.
string[] nvrtc_options () {
    return { "-DFACTOR=3.0f", "--std=c++17" };
}

void assert_compiled (Cugi.Program program) {
    string? ptx = program.get_ptx_string ();
    assert (ptx != null);
    assert (".entry scale" in ptx);
    assert (ptx.length == program.get_ptx ().get_size ());
    assert (program.log != null);
}

void test_compile () {
    var program = new Cugi.Program (SCALE, null);
    // NULL until there is something to say, and for NVRTC's default name.
    assert (program.name == null && program.get_name () == null);
    assert (program.log == null && program.get_log () == null);
    assert (program.get_ptx_string () == null);
    try {
        assert (program.compile (nvrtc_options ()));
    } catch (Error e) {
        error ("compile: %s", e.message);
    }
    assert_compiled (program);
}

void test_compile_for_arch () {
    var program = new Cugi.Program (SCALE, "scale.cu");
    try {
        assert (program.compile_for_arch (9, 0, nvrtc_options ()));
    } catch (Error e) {
        error ("compile_for_arch: %s", e.message);
    }
    assert_compiled (program);
    assert (program.get_cubin () != null);
}

void test_compile_async () {
    var program = new Cugi.Program (SCALE, "scale.cu");
    var loop = new MainLoop ();
    string? failure = null;
    program.compile_async.begin (nvrtc_options (), null, (source, result) => {
        try {
            program.compile_async.end (result);
        } catch (Error e) {
            failure = e.message;
        }
        loop.quit ();
    });
    loop.run ();
    if (failure != null) {
        error ("compile_async: %s", failure);
    }
    assert_compiled (program);
}

// A device made without the driver, as no GPU leaves them: the calls reach
// cugi, which refuses them.
void test_compile_for_device () {
    var device = (Cugi.Device) Object.new (typeof (Cugi.Device));
    var program = new Cugi.Program (SCALE, "scale.cu");
    try {
        program.compile_for_device (device, nvrtc_options ());
        assert_not_reached ();
    } catch (Cugi.Error.INVALID_STATE e) {
    } catch (Error e) {
        error ("unexpected error: %s", e.message);
    }

    var loop = new MainLoop ();
    Error? failure = null;
    program.compile_for_device_async.begin (device, nvrtc_options (), null, (source, result) => {
        try {
            program.compile_for_device_async.end (result);
        } catch (Error e) {
            failure = e;
        }
        loop.quit ();
    });
    loop.run ();
    assert (failure != null && failure.matches (Cugi.Error.quark (), Cugi.Error.INVALID_STATE));
    assert (!program.compiled);
}

void test_kernel_from_source () {
    try {
        new Cugi.Kernel.from_source (null, SCALE, "scale", nvrtc_options ());
        assert_not_reached ();
    } catch (Cugi.Error.NOT_AVAILABLE e) {
    } catch (Error e) {
        error ("unexpected error: %s", e.message);
    }
}

int main (string[] args) {
    Test.init (ref args);
    Environment.set_variable ("CUGI_DISABLE_CACHE", "1", true);
    Test.add_func ("/vala/options/compile", test_compile);
    Test.add_func ("/vala/options/compile-for-arch", test_compile_for_arch);
    Test.add_func ("/vala/options/compile-async", test_compile_async);
    Test.add_func ("/vala/options/compile-for-device", test_compile_for_device);
    Test.add_func ("/vala/options/kernel-from-source", test_kernel_from_source);
    return Test.run ();
}
