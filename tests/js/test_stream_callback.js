// Host callbacks from GJS, without a GPU: against the stand-in driver
// (fake-cuda-streams, see meson.build). A JS function is the callback; it
// runs in the stream's main context after the work before it, in order with
// an event's ::completed.
import GLib from 'gi://GLib';
import Cugi from 'gi://Cugi?version=1.0';

let checks = 0;
function check(condition, what) {
    if (!condition)
        throw new Error(`failed: ${what}`);
    checks++;
}

const stream = Cugi.Stream.new(null, Cugi.StreamFlags.NON_BLOCKING, 0);
const event = Cugi.Event.new(null, Cugi.EventFlags.DISABLE_TIMING);
const log = [];
event.connect('completed', () => log.push('event'));
stream.add_callback(s => log.push(s === stream ? 'first' : 'wrong stream'));
event.record(stream);
stream.add_callback(() => log.push('second'));

const loop = new GLib.MainLoop(null, false);
const timeout = GLib.timeout_add(GLib.PRIORITY_DEFAULT, 10000, () => {
    loop.quit();
    return GLib.SOURCE_REMOVE;
});
const poll = GLib.idle_add(GLib.PRIORITY_DEFAULT_IDLE, () => {
    if (log.length < 3)
        return GLib.SOURCE_CONTINUE;
    loop.quit();
    return GLib.SOURCE_REMOVE;
});
loop.run();
GLib.source_remove(timeout);
check(log.join(' ') === 'first event second', `in stream order: ${log.join(' ')}`);

let error = null;
try {
    new Cugi.Stream().add_callback(() => {});
} catch (e) {
    error = e;
}
check(error instanceof GLib.Error && error.matches(Cugi.error_quark(), Cugi.Error.INVALID_STATE),
    `a stream of no CUDA stream is refused: ${error}`);
print(`${checks} checks passed`);
