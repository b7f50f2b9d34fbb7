// Graphs built node by node from Vala, without a GPU: against the stand-in
// driver (fake-cuda-streams with fake-cuda-graphs, see meson.build), whose
// device memory is host memory. A memset, a copy after it and a host
// function after that, launched twice, against the CPU's reference.

const size_t SIZE = 64;

void test_memset_copy_host () {
    try {
        var a = new Cugi.Buffer (null, SIZE);
        var b = new Cugi.Buffer (null, SIZE);
        a.memset_d8 (0, 0, SIZE, null);
        var stream = new Cugi.Stream (null, Cugi.StreamFlags.NON_BLOCKING, 0);
        var graph = new Cugi.Graph (null);
        var fill = graph.add_memset_node (null, a, 4, 7, SIZE - 8);
        var copy = graph.add_copy_node ({ fill }, b, 0, a, 0, SIZE);
        var runs = 0;
        graph.add_host_node ({ copy }, () => { runs++; });
        assert (graph.node_count == 3);
        assert (copy.node_type == Cugi.GraphNodeType.MEMCPY);

        var exec = graph.instantiate ();
        exec.launch (stream);
        exec.launch (stream);
        stream.synchronize ();
        while (runs < 2)
            MainContext.default ().iteration (true);
        unowned uint8[] copied = b.download (0, SIZE).get_data ();
        for (var i = 0; i < SIZE; i++)
            assert (copied[i] == (i >= 4 && i < SIZE - 4 ? 7 : 0));

        exec.set_node_enabled (fill, false);
        assert (!exec.get_node_enabled (fill));
    } catch (Error e) {
        error ("unexpected error: %s", e.message);
    }
}

void test_foreign_dependency () {
    try {
        var graph = new Cugi.Graph (null);
        var other = new Cugi.Graph (null);
        var foreign = other.add_empty_node (null);
        graph.add_empty_node ({ foreign });
        assert_not_reached ();
    } catch (Cugi.Error.INVALID_ARGUMENT e) {
        assert ("another graph" in e.message);
    } catch (Error e) {
        error ("unexpected error: %s", e.message);
    }
}

int main (string[] args) {
    Test.init (ref args);
    Test.add_func ("/vala/graph-build/memset-copy-host", test_memset_copy_host);
    Test.add_func ("/vala/graph-build/foreign-dependency", test_foreign_dependency);
    return Test.run ();
}
