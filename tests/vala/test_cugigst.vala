// libcugi-gst from Vala through cugi-gst-1.0.vapi, without a GPU: against
// the stand-in driver of the tests (CUGI_LIBCUDA), whose device memory is
// host memory. A frame in system memory is mapped as a Cugi.Buffer plane,
// read back and written through, and an element's context helpers answer
// as they should before any negotiation.

const int WIDTH = 8;
const int HEIGHT = 4;

Gst.Buffer new_rgba_buffer (Gst.Video.Info info) {
    var data = new uint8[info.size];
    for (int i = 0; i < data.length; i++)
        data[i] = (uint8) (i * 7 % 251);
    return new Gst.Buffer.wrapped ((owned) data);
}

uint8[] read_buffer (Gst.Buffer buffer, size_t size) {
    Gst.MapInfo map;
    assert (buffer.map (out map, Gst.MapFlags.READ));
    uint8[] copy = map.data[0:size];
    buffer.unmap (map);
    return copy;
}

void test_frame_planes () {
    var info = new Gst.Video.Info ();
    assert (info.set_format (Gst.Video.Format.RGBA, WIDTH, HEIGHT));
    var buffer = new_rgba_buffer (info);
    try {
        var frame = CugiGst.Frame.map (buffer, info, CugiGst.MapFlags.READ | CugiGst.MapFlags.WRITE,
                                       null, null);
        assert (frame.memory_kind == CugiGst.MemoryKind.SYSTEM);
        assert (frame.get_n_planes () == 1);
        assert (frame.get_plane_pitch (0) == info.stride[0]);
        assert (frame.get_plane_width (0) == WIDTH && frame.get_plane_height (0) == HEIGHT);
        size_t size = frame.get_plane_size (0);
        assert (size == WIDTH * 4 * HEIGHT);
        unowned Cugi.Buffer plane = frame.get_plane (0);
        var on_device = plane.download (0, size);
        uint8[] host = read_buffer (buffer, size);
        assert (on_device.compare (new Bytes (host)) == 0);

        // Written on the device, back in the buffer once unmapped.
        var inverted = new uint8[size];
        for (int i = 0; i < inverted.length; i++)
            inverted[i] = 255 - host[i];
        plane.upload (0, inverted);
        assert (frame.unmap ());
        assert (!frame.mapped && frame.get_plane (0) == null);
        // Held in a variable: valac frees no temporary inside assert ().
        uint8[] written = read_buffer (buffer, size);
        assert (Memory.cmp (written, inverted, size) == 0);
    } catch (Error e) {
        error ("%s", e.message);
    }
}

void test_frame_errors () {
    var info = new Gst.Video.Info ();
    assert (info.set_format (Gst.Video.Format.RGBA, WIDTH, HEIGHT));
    try {
        CugiGst.Frame.map (new Gst.Buffer.wrapped (new uint8[16]), info, CugiGst.MapFlags.READ, null, null);
        assert_not_reached ();
    } catch (Error e) {
        assert (e is Cugi.Error.INVALID_ARGUMENT);
    }
}

void test_context_helpers () {
    var element = Gst.ElementFactory.make ("identity", null);
    assert (element != null);
    assert (CugiGst.context_get_for_element (element) == null);
    assert (!CugiGst.context_handle_set_context (element, null, -1));
    assert (!CugiGst.context_handle_set_context (element, new Gst.Context ("gst.cuda.context", true), -1));
    assert (!CugiGst.context_handle_context_query (element, new Gst.Query.context ("gst.cuda.context")));
}

int main (string[] args) {
    Gst.init (ref args);
    Test.init (ref args);
    Test.add_func ("/cugigst/frame-planes", test_frame_planes);
    Test.add_func ("/cugigst/frame-errors", test_frame_errors);
    Test.add_func ("/cugigst/context-helpers", test_context_helpers);
    return Test.run ();
}
