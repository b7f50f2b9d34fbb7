#!/bin/bash
# this session's GPU call (untracked; deleted after)
export VK_ICD_FILENAMES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
cd "$(dirname "$0")/../.."
echo "== suites"
PART_TIMEOUT=300 timeout 400 bash tests/gpu/run-suites.sh debian12 gstreamer
echo "== logs"
for part in gstreamer; do
/usr/bin/env python3 - "$OUT/debian12/$part-testlog.json" <<'PY' 2>&1 || bash .gpu/enter python3 - "$OUT/debian12/$part-testlog.json" <<'PY2'
import json, sys
for line in open(sys.argv[1]):
    t = json.loads(line)
    if "gl-gpu" in t["name"] or t["result"] not in ("OK", "SKIP"):
        print("##", t["name"], t["result"]); print(t.get("stdout", "")[-5000:])
PY
import json, sys
for line in open(sys.argv[1]):
    t = json.loads(line)
    if "gl-gpu" in t["name"] or t["result"] not in ("OK", "SKIP"):
        print("##", t["name"], t["result"]); print(t.get("stdout", "")[-5000:])
PY2
done
