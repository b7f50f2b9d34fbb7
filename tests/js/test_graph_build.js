// Graphs built node by node from GJS, without a GPU: against the stand-in
// driver (fake-cuda-streams with fake-cuda-graphs, see meson.build), whose
// device memory is host memory. A memset node, a copy node after it and a
// host node after that, launched twice: the copy matches the CPU's
// reference and the host function runs once per launch in the main loop;
// a dependency on another graph's node is an error.
import GLib from 'gi://GLib';
import Cugi from 'gi://Cugi?version=1.0';

let checks = 0;
function check(condition, what) {
    if (!condition)
        throw new Error(`failed: ${what}`);
    checks++;
}

const SIZE = 64;
const a = Cugi.Buffer.new(null, SIZE);
const b = Cugi.Buffer.new(null, SIZE);
a.memset_d8(0, 0, SIZE, null);
const stream = Cugi.Stream.new(null, Cugi.StreamFlags.NON_BLOCKING, 0);
const graph = Cugi.Graph.new(null);
const fill = graph.add_memset_node([], a, 4, 9, SIZE - 8);
const copy = graph.add_copy_node([fill], b, 0, a, 0, SIZE);
let runs = 0;
graph.add_host_node([copy], () => {
    runs++;
});
check(graph.node_count === 3, 'three nodes');
check(copy.node_type === Cugi.GraphNodeType.MEMCPY, 'a copy node');

const exec = graph.instantiate();
exec.launch(stream);
exec.launch(stream);
stream.synchronize();
const context = GLib.MainContext.default();
while (runs < 2)
    context.iteration(true);
const copied = b.download(0, SIZE).toArray();
check(copied.every((value, i) => value === (i >= 4 && i < SIZE - 4 ? 9 : 0)), 'the copy of the memset');

const other = Cugi.Graph.new(null);
const foreign = other.add_empty_node([]);
let threw = false;
try {
    graph.add_empty_node([foreign]);
} catch (error) {
    threw = error.matches(Cugi.Error, Cugi.Error.INVALID_ARGUMENT);
}
check(threw, 'a node of another graph is no dependency');

print(`graph build: ${checks} checks passed`);
