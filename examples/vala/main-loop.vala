// The GPU works, the main loop keeps running: a 60 Hz GLib timer ticks while
// the GPU spins a kernel for about a second and copies 256 MiB up and back.
// Results arrive through Event::completed, Stream::idle and async calls; at
// the end the example prints the longest gap between two ticks.
//
//     build/examples/cugi-main-loop-vala

const string SPIN = """
extern "C" __global__ void spin(long long cycles)
{
    long long start = clock64();
    while (clock64() - start < cycles)
        ;
}
""";

const size_t COPY_SIZE = 256 << 20;
const uint TICK_MS = 1000 / 60;

// A 60 Hz timer that remembers the longest gap between two ticks.
class Ticker : Object {
    public uint ticks { get; private set; }
    public int64 longest_gap { get; private set; }
    int64 last_tick = -1;

    construct {
        Timeout.add (TICK_MS, () => {
            var now = get_monotonic_time ();
            if (last_tick >= 0)
                longest_gap = int64.max (longest_gap, now - last_tick);
            last_tick = now;
            ticks++;
            return Source.CONTINUE;
        });
    }
}

int run () throws Error {
    var device = Cugi.Device.get_default ();
    var clock_khz = device.get_attribute (Cugi.DeviceAttribute.CLOCK_RATE);
    var kernel = new Cugi.Kernel.from_source (null, SPIN, "spin", null);
    var compute = new Cugi.Stream (null, Cugi.StreamFlags.NON_BLOCKING, 0);
    var copies = new Cugi.Stream (null, Cugi.StreamFlags.NON_BLOCKING, 0);
    var started = new Cugi.Event (null, Cugi.EventFlags.NONE);
    var finished = new Cugi.Event (null, Cugi.EventFlags.NONE);

    // Pinned host memory, so that the copies are DMA the GPU does alone.
    var pattern = new uint8[COPY_SIZE];
    for (size_t i = 0; i < COPY_SIZE; i++)
        pattern[i] = (uint8) (i & 0xff);
    var outbound = new Cugi.HostBuffer (null, COPY_SIZE, Cugi.HostBufferFlags.NONE);
    outbound.write (0, pattern);
    var inbound = new Cugi.HostBuffer (null, COPY_SIZE, Cugi.HostBufferFlags.NONE);
    var device_buffer = new Cugi.Buffer (null, COPY_SIZE);

    var loop = new MainLoop ();
    var ticker = new Ticker ();
    var waiting = 2;
    Error? failure = null;

    finished.completed.connect (() => {
        try {
            print ("kernel: done, %.0f ms of GPU time (%u ticks so far)\n",
                   started.elapsed_time (finished), ticker.ticks);
        } catch (Error e) {
            failure = e;
        }
        if (--waiting == 0)
            loop.quit ();
    });
    compute.idle.connect (() => print ("compute stream: idle\n"));

    // About a second of spinning at the nominal clock, timed by two events.
    var config = new Cugi.LaunchConfig (1, 1);
    config.set_stream (compute);
    var args = new Cugi.KernelArgs ();
    args.add_int64 ((int64) clock_khz * 1000);
    started.record (compute);
    kernel.launch (config, args);
    finished.record (compute);

    device_buffer.upload_bytes_async.begin (0, outbound.get_bytes (), copies, null, (obj, res) => {
        try {
            device_buffer.upload_bytes_async.end (res);
            print ("copies: 256 MiB uploaded\n");
            device_buffer.download_to_host (0, inbound, 0, COPY_SIZE, copies);
            copies.synchronize_async.begin (null, (obj2, res2) => {
                try {
                    copies.synchronize_async.end (res2);
                    print ("copies: 256 MiB downloaded (%u ticks so far)\n", ticker.ticks);
                } catch (Error e) {
                    failure = e;
                }
                if (--waiting == 0)
                    loop.quit ();
            });
        } catch (Error e) {
            failure = e;
            if (--waiting == 0)
                loop.quit ();
        }
    });

    loop.run ();
    print ("%u ticks; longest gap between two ticks: %.1f ms (period %u ms)\n",
           ticker.ticks, ticker.longest_gap / 1000.0, TICK_MS);
    if (failure != null)
        throw failure;

    // Checked after the loop, so that comparing 256 MiB does not delay a tick.
    unowned uint8[] back = inbound.get_data ();
    if (back.length != COPY_SIZE || Memory.cmp (back, pattern, COPY_SIZE) != 0) {
        printerr ("copies: the data came back corrupted\n");
        return 1;
    }
    print ("copies: the data came back intact\n");
    return 0;
}

int main () {
    try {
        Cugi.init ();
    } catch (Error e) {
        print ("no GPU: %s\n", e.message);
        return 1;
    }
    try {
        return run ();
    } catch (Error e) {
        printerr ("%s\n", e.message);
        return 1;
    }
}
