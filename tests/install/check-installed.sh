#!/bin/bash
# check-installed.sh BUILD_DIR PREFIX: installs cugi from BUILD_DIR into
# PREFIX (a prefix of its own, as `--prefix=$HOME/.local` would be) and runs
# the C, Python, GJS and Vala hello programs and cugi-info against the
# installed files only (probes.sh): the C and Vala ones compiled through the
# installed cugi-1.0.pc and cugi-1.0.vapi, the Python one with the installed
# overrides, with the environment README.md gives for such a prefix. Without
# a GPU the programs still compile a kernel with NVRTC and exit 0, as in the
# test suite.
set -euo pipefail
build=$1
prefix=$2
source=$(cd "$(dirname "$0")/../.." && pwd)

meson install -C "$build" --quiet

source "$source/tests/install/installed-env.sh"
# Nothing of the build tree may be used.
unset CUGI_CACHE_DIR
export CUGI_DISABLE_CACHE=1

bash "$source/tests/install/probes.sh" "$prefix" python cugi-info c gjs vala

echo "check-installed: C, Python, GJS and Vala ran against $prefix"
