// cugi's memory as a dma-buf, from GJS: a buffer filled from the host is
// exported (Buffer.export_dma_buf: the fd, the buffer's offset in it and its
// size), imported back as external memory as another API or process would
// import it, and read through the import. Says which step the driver
// refuses, if any. The same steps and exit status as
// examples/python/dma_buf.py: 0 when the bytes read back are the same or
// the driver does not import its own dma-bufs, 77 (a test's skip) without a
// GPU, 1 on a failure.
//
//     meson devenv -C build gjs -m ../examples/gjs/dma-buf.js
import GLib from 'gi://GLib';
import System from 'system';
import Cugi from 'gi://Cugi?version=1.0';

const WORDS = 1 << 15;

function main() {
    try {
        Cugi.init();
    } catch (e) {
        print(`no GPU: ${e.message}`);
        return 77;
    }
    // A pattern of 32-bit words that no two offsets share.
    const pattern = new Uint8Array(new Uint32Array(WORDS).map((_, i) => Math.imul(i, 2654435761)).buffer);
    const buffer = Cugi.Buffer.new(null, pattern.length);
    buffer.upload(0, pattern);

    let fd, offset, size;
    try {
        [fd, offset, size] = buffer.export_dma_buf();
    } catch (e) {
        print(`the driver exports no dma-buf: ${e.message}`);
        return 1;
    }
    print(`dma-buf ${fd}: ${size} bytes, the buffer at offset ${offset}`);
    let memory;
    try {
        memory = Cugi.ExternalMemory.new_from_fd(null, Cugi.ExternalMemoryType.DMA_BUF, fd, size,
            Cugi.ExternalMemoryFlags.NONE);
    } catch (e) {
        print(`exported, but the driver does not import it back: ${e.message}`);
        return 0;
    } finally {
        GLib.close(fd);  // cugi gave the driver a duplicate
    }
    const seen = memory.get_buffer(offset, pattern.length).download(0, pattern.length).toArray();
    const same = seen.length === pattern.length && seen.every((byte, i) => byte === pattern[i]);
    print(`read back through the import: ${same ? 'the same' : 'DIFFERENT'}`);
    return same ? 0 : 1;
}

System.exit(main());
