// The VAPI from Vala, without a GPU. Meson runs this with CUGI_LIBCUDA
// naming a file that does not exist (see meson.build).

void test_enums () {
    // CUDA's own values, so they can be passed through.
    assert (Cugi.DeviceAttribute.MAX_THREADS_PER_BLOCK == 1);
    assert (Cugi.StreamFlags.NON_BLOCKING == 1);
    assert (Cugi.EventFlags.DISABLE_TIMING == 2);
    var flags = Cugi.EventFlags.BLOCKING_SYNC | Cugi.EventFlags.DISABLE_TIMING;
    assert (Cugi.EventFlags.DISABLE_TIMING in flags);
    assert (Cugi.Error.quark () == Quark.from_string ("cugi-error-quark"));
}

void test_no_driver () {
    assert (Environment.get_variable ("CUGI_LIBCUDA") == "/nonexistent/libcuda.so.1");
    for (var attempt = 0; attempt < 2; attempt++) {
        try {
            Cugi.init ();
            assert_not_reached ();
        } catch (Cugi.Error.NOT_AVAILABLE e) {
            assert ("CUGI_LIBCUDA" in e.message);
        } catch (Error e) {
            error ("unexpected error: %s", e.message);
        }
    }
    assert (!Cugi.is_available ());

    // Wrapping another library's device memory needs the driver too.
    try {
        new Cugi.Buffer.for_address (null, 0x7f0000000000, 4096);
        assert_not_reached ();
    } catch (Cugi.Error.NOT_AVAILABLE e) {
    } catch (Error e) {
        error ("unexpected error: %s", e.message);
    }
}

void test_program () {
    // NVRTC needs no driver.
    Environment.set_variable ("CUGI_DISABLE_CACHE", "1", true);
    var program = new Cugi.Program ("extern \"C\" __global__ void fill(int *p) { p[threadIdx.x] = 7; }",
                                    "fill.cu");
    try {
        assert (program.compile ({ "--gpu-architecture=compute_90" }));
    } catch (Error e) {
        error ("compile: %s", e.message);
    }
    unowned uint8[] data = program.get_ptx ().get_data ();
    var ptx = new StringBuilder.sized (data.length);
    ptx.append_len ((string) data, data.length);
    assert (".entry fill" in ptx.str);

    var broken = new Cugi.Program ("__global__ void broken() { undeclared(); }", "broken.cu");
    try {
        broken.compile ({ "--gpu-architecture=compute_90" });
        assert_not_reached ();
    } catch (Cugi.Error.COMPILE e) {
        assert ("undeclared" in broken.get_log ());
    } catch (Error e) {
        error ("unexpected error: %s", e.message);
    }
}

void test_launch_types () {
    var config = new Cugi.LaunchConfig (4096, 256);
    config.set_block (128, 2, 1);
    config.set_shared_memory (512);
    uint x, y, z;
    config.get_grid (out x, out y, out z);
    assert (x == 4096 && y == 1 && z == 1);
    config.get_block (out x, out y, out z);
    assert (x == 128 && y == 2 && z == 1);
    assert (config.get_shared_memory () == 512);

    var args = new Cugi.KernelArgs ();
    args.add_int32 (-1);
    args.add_double (0.5);
    assert (args.get_n_args () == 2);
    assert (args.get_arg_type (0) == Cugi.ArgType.INT32 && args.get_arg_size (0) == 4);
    assert (args.get_arg_type (1) == Cugi.ArgType.DOUBLE && args.get_arg_size (1) == 8);
}

delegate void Getter () throws Error;

void assert_invalid_state (Getter getter) {
    try {
        getter ();
        assert_not_reached ();
    } catch (Cugi.Error.INVALID_STATE e) {
    } catch (Error e) {
        error ("unexpected error: %s", e.message);
    }
}

// Getters return their values and throw: objects made with Object.new stand
// for no GPU, so each call here throws, and each compiles only with the
// getter's shape.
void test_getters () {
    var device = (Cugi.Device) Object.new (typeof (Cugi.Device));
    var context = (Cugi.Context) Object.new (typeof (Cugi.Context));
    var kernel = (Cugi.Kernel) Object.new (typeof (Cugi.Kernel));
    int attribute = 0, least = 0, greatest = 0, min_grid_size = 0, block_size = 0;
    uint64 limit = 0, free_bytes = 0, total_bytes = 0;
    var config = Cugi.CacheConfig.PREFER_NONE;

    assert_invalid_state (() => { attribute = kernel.get_attribute (Cugi.FunctionAttribute.NUM_REGS); });
    assert_invalid_state (() => { block_size = kernel.suggest_block_size (0, out min_grid_size); });
    assert_invalid_state (() => { limit = context.get_limit (Cugi.Limit.STACK_SIZE); });
    assert_invalid_state (() => { config = context.get_cache_config (); });
    assert_invalid_state (() => { free_bytes = context.get_memory_info (out total_bytes); });
    assert_invalid_state (() => { least = context.get_stream_priority_range (out greatest); });
    assert_invalid_state (() => { free_bytes = device.get_memory_info (out total_bytes); });
}

int main (string[] args) {
    Test.init (ref args);
    Test.add_func ("/vala/enums", test_enums);
    Test.add_func ("/vala/no-driver", test_no_driver);
    Test.add_func ("/vala/program", test_program);
    Test.add_func ("/vala/launch-types", test_launch_types);
    Test.add_func ("/vala/getters", test_getters);
    return Test.run ();
}
