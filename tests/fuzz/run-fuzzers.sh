#!/bin/sh
# Runs each libFuzzer target of a -Dfuzzing=true build for a bounded time,
# from its corpus here, and fails on any crash, assertion, sanitizer report,
# input slower than 2 s or run past 512 MiB. The corpus is copied, so new
# inputs do not land in the source tree; what fails is kept in
# BUILDDIR/fuzz-artifacts to reproduce: BUILDDIR/tests/fuzz/fuzz-NAME FILE.
#
#   CC=clang-14 meson setup build-fuzz -Dfuzzing=true -Db_sanitize=address,undefined \
#     -Db_lundef=false -Dintrospection=false -Dgstreamer=disabled -Dgtk=disabled
#   meson compile -C build-fuzz
#   tests/fuzz/run-fuzzers.sh build-fuzz [SECONDS_EACH]
set -eu

build=${1:?usage: $0 BUILDDIR [SECONDS_EACH]}
seconds=${2:-30}
here=$(cd "$(dirname "$0")" && pwd)
artifacts="$build/fuzz-artifacts"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$artifacts"

# Criticals and undefined behaviour are failures, not messages.
export G_DEBUG=fatal-criticals
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# A smaller quarantine than the 256 MiB default, so that the RSS limit is
# about what one input costs.
export ASAN_OPTIONS=detect_leaks=1:quarantine_size_mb=64

failed=""
for name in mangle kernel-signature device-alias cache-entry image-params; do
  target="$build/tests/fuzz/fuzz-$name"
  mkdir "$work/$name"
  cp "$here/corpus/$name"/* "$work/$name/"
  set -- -max_total_time="$seconds" -rss_limit_mb=512 -malloc_limit_mb=512 -timeout=2 \
    -print_final_stats=1 -artifact_prefix="$artifacts/$name-"
  if [ -f "$here/$name.dict" ]; then
    set -- "$@" -dict="$here/$name.dict"
  fi
  echo "== fuzz-$name for ${seconds}s"
  if ! "$target" "$@" "$work/$name"; then
    failed="$failed $name"
  fi
done

if [ -n "$failed" ]; then
  echo "FAILED:$failed (inputs in $artifacts)" >&2
  exit 1
fi
echo "All fuzz targets ran ${seconds}s each without a failure."
