// Uploads from GJS, without a GPU: against the stand-in driver
// (fake-cuda-streams, see meson.build), whose device memory is host memory.
// A Uint8Array goes where cugi takes a guint8 array (Buffer.upload, HostBuffer.write)
// and where it takes a GLib.Bytes (upload_bytes, upload_bytes_async); a
// GLib.Bytes goes as it is. What arrives is read back.
import GLib from 'gi://GLib';
import Gio from 'gi://Gio';
import Cugi from 'gi://Cugi?version=1.0';

Gio._promisify(Cugi.Buffer.prototype, 'upload_bytes_async');

let checks = 0;
function check(condition, what) {
    if (!condition)
        throw new Error(`failed: ${what}`);
    checks++;
}

const SIZE = 64;
function pattern(start) {
    return Uint8Array.from({length: SIZE}, (_, i) => (start + 3 * i) & 0xff);
}
function sameBytes(a, b) {
    return a.length === b.length && a.every((value, i) => value === b[i]);
}

const buffer = Cugi.Buffer.new(null, SIZE);
function contents() {
    return buffer.download(0, SIZE).toArray();
}

// A Uint8Array, whole and as a view into a larger one (its own range only).
const whole = pattern(1);
check(buffer.upload(0, whole), 'upload(0, Uint8Array)');
check(sameBytes(contents(), whole), 'a Uint8Array arrives');
const larger = pattern(50);
const view = larger.subarray(8, 8 + SIZE / 2);
buffer.upload(SIZE / 2, view);
check(sameBytes(contents().subarray(SIZE / 2), view), 'a subarray arrives, from its offset');
check(sameBytes(contents().subarray(0, SIZE / 2), whole.subarray(0, SIZE / 2)),
    'the bytes before it are left');

// A Float32Array's bytes, through a Uint8Array over its buffer.
const floats = Float32Array.from({length: SIZE / 4}, (_, i) => i * 0.5);
buffer.upload(0, new Uint8Array(floats.buffer));
const back = new Float32Array(contents().slice().buffer);
check(back.every((value, i) => value === i * 0.5), `floats arrive: ${back}`);

// A GLib.Bytes, made from a Uint8Array, and a Uint8Array where a GLib.Bytes goes.
const bytes = new GLib.Bytes(pattern(7));
check(buffer.upload_bytes(0, bytes), 'upload_bytes(0, GLib.Bytes)');
check(sameBytes(contents(), pattern(7)), 'a GLib.Bytes arrives');
buffer.upload_bytes(0, pattern(9));
check(sameBytes(contents(), pattern(9)), 'a Uint8Array arrives as GLib.Bytes');

// Asynchronously: GJS makes the GLib.Bytes from the Uint8Array, and cugi
// keeps it until the copy is done, so the array may change at once.
const source = pattern(11);
const done = buffer.upload_bytes_async(0, source, null, null);
source.fill(0);
check(await done, 'upload_bytes_async(0, Uint8Array) resolves true');
check(sameBytes(contents(), pattern(11)), 'the async upload has the bytes of the call');
check(await buffer.upload_bytes_async(0, new GLib.Bytes(pattern(13)), null, null),
    'upload_bytes_async(0, GLib.Bytes)');
check(sameBytes(contents(), pattern(13)), 'a GLib.Bytes arrives asynchronously');

// Host memory, and too much data: the library's error.
const host = Cugi.HostBuffer.new(null, SIZE, Cugi.HostBufferFlags.NONE);
host.write(0, pattern(17));
check(sameBytes(host.get_bytes().toArray(), pattern(17)), 'HostBuffer.write(0, Uint8Array)');
let error = null;
try {
    buffer.upload(1, pattern(0));
} catch (e) {
    error = e;
}
check(error instanceof GLib.Error && error.matches(Cugi.error_quark(), Cugi.Error.INVALID_ARGUMENT) &&
      error.message.includes('do not fit'), `too large: ${error}`);
print(`${checks} checks passed`);
