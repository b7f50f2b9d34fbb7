#!/bin/bash
# run-suites.sh: on the GPU machine, the test runs of one stack's pack (made by
# tests/gpu/pack and carried along), with their logs under $OUT:
#
#   bash tests/gpu/run-suites.sh PACK [PART...]
#
# PACK is debian12 (.gpu), debian13 (.gpu13), debian12-gtk (.gpu-gtk) or
# debian13-gtk (.gpu13-gtk). PARTs, each a meson test run of its own:
#   gpu        the `gpu` suite but its GStreamer and GTK tests (GTK's need a
#              GTK pack: they run in its `gtk` part)
#   gstreamer  the `gstreamer` suite (gstreamer-cpu and gstreamer-gpu, with
#              nvcodec's cudaupload/cudadownload)
#   gtk        the `gtk` suite (headless under Xvfb, and the render checks)
#   check      examples/gtk/gpu-check.sh (renders, screenshot, frame clock)
# By default `gpu gstreamer` for a pack without GTK, `gtk check` for a GTK one.
# Writes $OUT/PACK/PART.txt (meson's output), PART-testlog.json and the
# check's files (gtk-check/); prints each part's counts and the tests that did
# not pass (on the GPU machine no GPU test should skip). Exit status 0 when no
# part failed. PART_TIMEOUT (default 540 s) bounds each part.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
name=${1:-}
case $name in
  debian12) pack=.gpu ;; debian13) pack=.gpu13 ;;
  debian12-gtk) pack=.gpu-gtk ;; debian13-gtk) pack=.gpu13-gtk ;;
  *) echo "usage: run-suites.sh debian12|debian13|debian12-gtk|debian13-gtk [gpu] [gstreamer] [gtk] [check]" >&2
     exit 2 ;;
esac
shift
if [ -z "${RUN_SUITES_INSIDE:-}" ]; then
  [ -f "$root/$pack/enter" ] || { echo "run-suites: no $pack here (carry it)" >&2; exit 2; }
  RUN_SUITES_INSIDE=1 exec bash "$root/$pack/enter" bash "$root/tests/gpu/run-suites.sh" "$name" "$@"
fi
# In the pack's environment now, at the checkout's origin path.
build=$(cat "$pack/build-dir")
case $name in *-gtk) parts=${*:-gtk check} ;; *) parts=${*:-gpu gstreamer} ;; esac
out=${OUT:-$PWD/gpu-suites-out}/$name
mkdir -p "$out"
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1
  echo "pack $pack, build $build, $(python3 --version), $(meson --version 2>&1 | sed 's/^/meson /')"
  [ -n "${GST_PLUGIN_SYSTEM_PATH:-}" ] && gst-inspect-1.0 --version | sed -n 2p
  [ -n "${GST_PLUGIN_SYSTEM_PATH:-}" ] && { gst-inspect-1.0 cudaupload >/dev/null 2>&1 &&
    echo "nvcodec: cudaupload is here" || echo "nvcodec: NO cudaupload (gstreamer-gpu will skip)"; }
} 2>/dev/null | tee "$out/machine.txt"
# Xvfb (the GTK packs) runs xkbcomp and reads keymaps and fontconfig's files at
# paths compiled in: link the unpacked copies there, as gpu-check.sh does, for
# the gtk suite's xvfb-run too.
for path in /usr/bin/xkbcomp /usr/bin/xvfb-run /usr/share/X11/xkb /etc/fonts /usr/share/fonts/truetype/dejavu; do
  if [ ! -e "$path" ] && [ -e "$GPUROOT$path" ]; then mkdir -p "$(dirname "$path")"; ln -s "$GPUROOT$path" "$path"; fi
done
status=0 skipped=0
for part in $parts; do
  echo "== $part"
  case $part in
    gpu) args=(--suite gpu --no-suite gstreamer --no-suite gtk)
         # A pack made without GJS (GPU_EXTRA_DEBS="-gjs ...", to stay under
         # 64 MiB) cannot run the GJS tests: meson would stop at the first.
         [ -e /usr/bin/gjs ] || { args+=(--no-suite js); echo "  (no GJS in this pack: the js tests left out)"; } ;;
    gstreamer) args=(--suite gstreamer) ;;
    gtk) args=(--suite gtk) ;;
    check) OUT=$out/gtk-check timeout "${PART_TIMEOUT:-540}" bash examples/gtk/gpu-check.sh "$build" \
             >/dev/null 2>&1 || status=1
           grep -E 'PASS|FAIL|SKIP|p50|p99' "$out/gtk-check/gpu-check.log" | tail -12; continue ;;
    *) echo "run-suites: no part $part" >&2; status=2; continue ;;
  esac
  timeout "${PART_TIMEOUT:-540}" meson test -C "$build" --no-rebuild --print-errorlogs "${args[@]}" \
    > "$out/$part.txt" 2>&1 || status=1
  cp "$build/meson-logs/testlog.json" "$out/$part-testlog.json" 2>/dev/null
  grep -E '^(Ok|Fail|Skipped|Timeout): +[0-9]+ *$' "$out/$part.txt" | tr -s ' \n' ' '; echo
  python3 -c 'import json, sys
for line in open(sys.argv[1]):
    t = json.loads(line)
    if t["result"] != "OK":
        print("  %s: %s" % (t["result"], t["name"]))' "$out/$part-testlog.json" 2>/dev/null
  skipped=$((skipped + $(grep -c '"result": "SKIP"' "$out/$part-testlog.json" 2>/dev/null || true)))
done
echo "run-suites $name: $([ $status = 0 ] && echo PASS || echo FAIL), $skipped tests skipped"
exit $status
