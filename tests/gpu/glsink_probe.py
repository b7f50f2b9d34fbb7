import gi, sys
gi.require_version('Gst', '1.0')
from gi.repository import Gst
Gst.init(None)
K = sys.argv[1]
for desc in [f'videotestsrc num-buffers=20 ! video/x-raw,format=RGBA,width=640,height=360 ! cudaupload ! video/x-raw(memory:CUDAMemory) ! cugikernel name=k location={K}/invert.cu kernel-name=invert ! glimagesink name=sink sync=false',
             f'videotestsrc num-buffers=20 ! video/x-raw,format=NV12,width=640,height=360 ! glupload ! cugikernel name=k location={K}/invert-yuv.cu kernel-name=invert_yuv ! glimagesink name=sink sync=false']:
    p = Gst.parse_launch(desc)
    p.set_state(Gst.State.PLAYING)
    m = p.get_bus().timed_pop_filtered(60 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    print('##', desc[:60], m.type if m else None, m.parse_error() if m and m.type == Gst.MessageType.ERROR else '')
    k = p.get_by_name('k')
    print('caps', k.get_static_pad('src').get_current_caps())
    sink = p.get_by_name('sink')
    print('props', [x.name for x in sink.list_properties()][:60])
    try:
        s = sink.get_property('last-sample')
        print('last-sample', s, s.get_caps() if s else None)
        if s:
            b = s.get_buffer(); ok, mi = b.map(Gst.MapFlags.READ); print('map', ok, mi.size if ok else 0, bytes(mi.data[:8]) if ok else b'')
            if ok: b.unmap(mi)
    except Exception as e:
        print('no last-sample', e)
    p.set_state(Gst.State.NULL)
