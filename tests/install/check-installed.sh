#!/bin/bash
# check-installed.sh BUILD_DIR PREFIX: installs cugi from BUILD_DIR into
# PREFIX (a prefix of its own, as `--prefix=$HOME/.local` would be) and runs
# the C, Python, GJS and Vala hello programs against the installed files
# only: the C and Vala ones compiled through the installed cugi-1.0.pc and
# cugi-1.0.vapi, the Python one with the installed overrides, with the
# environment README.md gives for such a prefix. Without a GPU the programs
# still compile a kernel with NVRTC and exit 0, as in the test suite.
set -euo pipefail
build=$1
prefix=$2
source=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

meson install -C "$build" --quiet

source "$source/tests/install/installed-env.sh"
# Nothing of the build tree may be used.
unset CUGI_CACHE_DIR
export CUGI_DISABLE_CACHE=1

# The overrides and their C module must be the installed ones, under the prefix.
/usr/bin/python3 -c 'import gi; gi.require_version("Cugi", "1.0"); from gi.repository import Cugi; import sys
for name in ("gi.overrides.Cugi", "_cugi"):
    f = sys.modules[name].__file__; assert f.startswith(sys.argv[1]), f; print(name + ":", f)' "$prefix"

# cugi-info and its manual page, found as a user would.
versions=$("$prefix/bin/cugi-info" --version)
[[ $versions == "cugi "* ]]
test -f "$prefix/share/man/man1/cugi-info.1"
man_page=$(MANPATH="$prefix/share/man" man -w cugi-info)
[[ $man_page == "$prefix/"* ]]
echo "cugi-info: $man_page"

cc -o "$work/cugi-hello" "$source/examples/c/cugi-hello.c" $(pkg-config --cflags --libs cugi-1.0) -lm
"$work/cugi-hello"

/usr/bin/python3 "$source/examples/python/hello.py"

gjs -m "$source/examples/gjs/hello.js"

valac --pkg cugi-1.0 --vapidir "$prefix/share/vala/vapi" -X -lm -d "$work" -o hello-vala "$source/examples/vala/hello.vala"
"$work/hello-vala"

echo "check-installed: C, Python, GJS and Vala ran against $prefix"
