// cugi's memory as a dma-buf, from Vala: a buffer filled from the host is
// exported (Buffer.export_dma_buf: the fd, the buffer's offset in it and its
// size), imported back as external memory as another API or process would
// import it, and read through the import. Says which step the driver
// refuses, if any. The same steps and exit status as
// examples/python/dma_buf.py: 0 when the bytes read back are the same or
// the driver does not import its own dma-bufs, 77 (a test's skip) without a
// GPU, 1 on a failure.
//
//     build/examples/cugi-dma-buf-vala

const uint WORDS = 1 << 15;

int main () {
    try {
        Cugi.init ();
    } catch (Error e) {
        print ("no GPU: %s\n", e.message);
        return 77;
    }
    // A pattern of 32-bit words that no two offsets share.
    var words = new uint32[WORDS];
    for (uint i = 0; i < WORDS; i++)
        words[i] = i * 2654435761U;
    unowned uint8[] pattern = (uint8[]) words;
    pattern.length = (int) (WORDS * sizeof (uint32));

    try {
        var buffer = new Cugi.Buffer (null, pattern.length);
        buffer.upload (0, pattern);

        uint64 offset, size;
        int fd;
        try {
            fd = buffer.export_dma_buf (out offset, out size);
        } catch (Error e) {
            print ("the driver exports no dma-buf: %s\n", e.message);
            return 1;
        }
        print ("dma-buf %d: %" + uint64.FORMAT + " bytes, the buffer at offset %" + uint64.FORMAT + "\n",
               fd, size, offset);
        Cugi.ExternalMemory? memory = null;
        try {
            memory = new Cugi.ExternalMemory.from_fd (null, Cugi.ExternalMemoryType.DMA_BUF, fd, size,
                                                      Cugi.ExternalMemoryFlags.NONE);
        } catch (Error e) {
            print ("exported, but the driver does not import it back: %s\n", e.message);
        } finally {
            Posix.close (fd);  // cugi gave the driver a duplicate
        }
        if (memory == null)
            return 0;
        var seen = memory.get_buffer (offset, pattern.length).download (0, pattern.length);
        var same = seen.compare (new Bytes (pattern)) == 0;
        print ("read back through the import: %s\n", same ? "the same" : "DIFFERENT");
        return same ? 0 : 1;
    } catch (Error e) {
        printerr ("%s\n", e.message);
        return 1;
    }
}
