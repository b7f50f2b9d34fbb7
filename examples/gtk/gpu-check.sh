#!/bin/bash
# gpu-check.sh: the fractal explorer on a GPU machine.
#
#   bash .gpu/enter examples/gtk/gpu-check.sh [BUILD_DIR]
#
# from the project root, with BUILD_DIR the build tree that pack carried
# (default: the one in .gpu/build-dir, else build). It
#  1. renders three known views with `cugi-fractal --render` (the Vala app)
#     and with fractal.py --render, and compares each with a NumPy reference
#     of the same kernel (check_render.py: PASS when the mean difference is
#     at most 0.1 levels of 255 and at most 0.1 % of the values differ by
#     more than 2 levels); prints max/mean and PASS/FAIL;
#  2. where Xvfb is (GTK and Xvfb carried with GPU_EXTRA_DEBS), saves a
#     screenshot of the window showing a rendered fractal and runs the
#     benchmark at BENCH_SIZE (default 3840x2160) for BENCH_SECONDS (default
#     10) through each of two paintables, the display's and one without a
#     display (always a download): frames a second, p50/p99/max gap between
#     frame-clock ticks, CPU time and host copies a frame, the path taken,
#     and the ratios of the first to the second.
# The rendered PNGs, the screenshot and gpu-check.log go to $OUT (default
# ./gpu-check-out): 5 files at most. Exit status: 0 when the render check
# passes, 1 when it fails, 2 when the app cannot start (missing libraries),
# 77 without a GPU.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
build=${1:-$(cat .gpu/build-dir 2>/dev/null || echo build)}
out=${OUT:-$root/gpu-check-out}
mkdir -p "$out"
app=$build/examples/gtk/cugi-fractal
python=/usr/bin/python3
export LD_LIBRARY_PATH=$root/$build/cugi:$root/$build/cugi/gtk${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export GI_TYPELIB_PATH=$root/$build/cugi:$root/$build/cugi/gtk${GI_TYPELIB_PATH:+:$GI_TYPELIB_PATH}
export PYTHONPATH=$root/$build/cugi/python${PYTHONPATH:+:$PYTHONPATH}
exec > >(tee "$out/gpu-check.log") 2>&1

echo "== $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
if [ ! -x "$app" ]; then
  echo "No $app: build with GTK 4 (meson option gtk) and pack with GPU_BUILD=$build"
  exit 2
fi
missing=$(ldd "$app" | grep 'not found')
if [ -n "$missing" ]; then
  echo "cugi-fractal cannot start, libraries are missing (pack with GPU_EXTRA_DEBS, see examples/gtk/README.md):"
  echo "$missing"
  exit 2
fi

echo "== render check: the Vala app"
$python examples/gtk/check_render.py --out "$out" "$app"
status=$?
echo "== render check: fractal.py"
$python examples/gtk/check_render.py $python examples/gtk/fractal.py
python_status=$?
[ $python_status = 0 ] || [ $python_status = 77 ] || status=1

# Xvfb runs xkbcomp and reads the keymaps, and fontconfig reads its
# configuration, at paths compiled in: where the machine lacks them, link
# the copies that .gpu/enter unpacked into $GPUROOT.
if [ -n "${GPUROOT:-}" ]; then
  for path in /usr/bin/xkbcomp /usr/share/X11/xkb /etc/fonts /usr/share/fonts/truetype/dejavu; do
    if [ ! -e "$path" ] && [ -e "$GPUROOT$path" ]; then
      mkdir -p "$(dirname "$path")"
      ln -s "$GPUROOT$path" "$path"
    fi
  done
fi
# Xvfb started here rather than through xvfb-run, whose wait for the server
# hung on the GPU machine; every step is bounded so that a display that never
# comes up cannot hold the machine.
bench_seconds=${BENCH_SECONDS:-10}
bench_size=${BENCH_SIZE:-3840x2160}
if command -v Xvfb >/dev/null; then
  display=:$((90 + RANDOM % 9))
  timeout $((2 * bench_seconds + 200)) Xvfb "$display" -screen 0 1600x1000x24 -nolisten tcp \
    >"$out/xvfb.log" 2>&1 &
  xvfb=$!
  for _ in $(seq 1 40); do [ -e "/tmp/.X11-unix/X${display#:}" ] && break; sleep 0.25; done
  export DISPLAY=$display GSK_RENDERER=cairo GDK_BACKEND=x11 NO_AT_BRIDGE=1
  echo "== the window, under Xvfb with GTK's cairo renderer"
  timeout 60 "$app" --screenshot "$out/gtk-gpu-window.png" \
    --view=-0.7436438870371587,0.13182590420531198,0.01 || status=1
  echo "== benchmark at $bench_size: $bench_seconds s of continuous rendering through each of two paintables"
  # Line-buffered, so that what it printed survives a timeout. --size makes
  # the renders that large whatever the window's size on Xvfb's screen.
  timeout $((2 * bench_seconds + 60)) stdbuf -oL -eL "$app" --benchmark "$bench_seconds" \
    --size "$bench_size" || status=1
  kill "$xvfb" 2>/dev/null
else
  echo "== no Xvfb: no window screenshot, no frame-clock benchmark"
fi
case $status in
  0) echo "gpu-check: PASS" ;;
  77) echo "gpu-check: SKIP (no GPU)" ;;
  *) echo "gpu-check: FAIL" ;;
esac
exit $status
