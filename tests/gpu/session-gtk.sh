#!/bin/bash
# this session's GTK call (untracked; deleted after)
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
cd "$(dirname "$0")/../.."
BENCH_SECONDS=8 PART_TIMEOUT=420 timeout 560 bash tests/gpu/run-suites.sh debian12-gtk gtk check
echo "== check log"
tail -40 $OUT/debian12-gtk/gtk-check/gpu-check.log
