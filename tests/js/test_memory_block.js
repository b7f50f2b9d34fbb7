// A pool's blocks from GJS (Cugi.MemoryBlock, a boxed type), without a
// GPU: against the stand-in driver (fake-cuda-streams, see meson.build),
// whose device memory is host memory. A block counts as active while GJS
// holds it and goes back to the pool once collected; a buffer made over it
// keeps it.
import GLib from 'gi://GLib';
import System from 'system';
import Cugi from 'gi://Cugi?version=1.0';

let checks = 0;
function check(condition, what) {
    if (!condition)
        throw new Error(`failed: ${what}`);
    checks++;
}

const pool = Cugi.MemoryPool.new(null);
function counts() {
    return `${pool.get_active_blocks()} ${pool.get_held_blocks()}`;
}

let block = pool.take_block(1000);
check(block instanceof Cugi.MemoryBlock, `take_block gives a Cugi.MemoryBlock: ${block}`);
check(block.get_size() === 1000 && block.get_address() > 0, 'its size and address');
const address = block.get_address();
check(counts() === '1 0', `active while held: ${counts()}`);
block = null;
System.gc();
check(counts() === '0 1', `back to the pool once collected: ${counts()}`);

// The pool's bin serves the next block, which a buffer then holds.
block = pool.take_block(1024);
check(block.get_address() === address, 'the held block serves again');
let buffer = block.new_buffer();
check(buffer.get_device_pointer() === address && buffer.get_size() === 1024, 'a buffer over the block');
const data = Uint8Array.from({length: 16}, (_, i) => i * 7);
buffer.upload(0, data);
check(buffer.download(0, 16).toArray().every((value, i) => value === i * 7), 'its bytes');
block = null;
System.gc();
check(counts() === '1 0', `the buffer keeps the block: ${counts()}`);
buffer = null;
System.gc();
check(counts() === '0 1', `and gives it back: ${counts()}`);

// The library's errors.
let error = null;
try {
    pool.take_block(Number.MAX_SAFE_INTEGER);
} catch (e) {
    error = e;
}
check(error instanceof GLib.Error && error.matches(Cugi.error_quark(), Cugi.Error.OUT_OF_MEMORY),
    `too much memory: ${error}`);
error = null;
try {
    new Cugi.MemoryPool().take_block(64);
} catch (e) {
    error = e;
}
check(error instanceof GLib.Error && error.matches(Cugi.error_quark(), Cugi.Error.INVALID_STATE),
    `a pool without a context: ${error}`);
print(`${checks} checks passed`);
