#!/usr/bin/env python3
"""Writes the GIR that vapigen reads for cugi-gst-1.0.vapi: CugiGst-1.0.gir
without its include of GstCuda-1.0, whose GIR vapigen cannot read (its
includes, CudaGst-1.0 and GstGL-1.0, fail there) and for which Vala has no
VAPI. The functions that take or give a GstCudaContext are skipped in Vala
(CugiGst-1.0-vala.metadata, named after the GIR written here); their type becomes Gst.Object here so that nothing
else names GstCuda.

    vapi-gir.py INPUT OUTPUT
"""
import sys

with open(sys.argv[1], encoding='utf-8') as stream:
    text = stream.read()
text = text.replace('<include name="GstCuda" version="1.0"/>\n', '')
text = text.replace('name="GstCuda.CudaContext"', 'name="Gst.Object"')
if 'GstCuda.' in text:
    sys.exit(f'{sys.argv[1]} names GstCuda where vapi-gir.py does not expect it')
with open(sys.argv[2], 'w', encoding='utf-8') as stream:
    stream.write(text)
