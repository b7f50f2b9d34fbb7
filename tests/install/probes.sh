#!/bin/bash
# probes.sh PREFIX PROBE...: runs each named probe against cugi installed in
# PREFIX, found as a user's programs find it: /usr for Debian's packages
# (.ci/debian-packages runs them with no environment at all), or a prefix of
# its own with the environment installed-env.sh sets (check-installed.sh),
# where valac and man are told of PREFIX and cugi-info is taken from it. A
# probe that fails ends the run with a non-zero status. The probes:
#   python     the overrides (gi.overrides.Cugi) and their C module (_cugi)
#              are PREFIX's, and Cugi.Kernel is the overrides' class, built
#              on _cugi.KernelCall; then examples/python/hello.py
#   gjs        examples/gjs/hello.js (gi://Cugi)
#   vala       examples/vala/hello.vala, built with valac --pkg cugi-1.0
#   c          examples/c/cugi-hello.c, built with pkg-config's cugi-1.0
#   cugi-info  --version and --json (without a driver: exit status 1,
#              driver_version null and the reason), and man finds its page
# Without a GPU the programs still compile a kernel with NVRTC and exit 0.
set -euo pipefail
prefix=$1
shift
source=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

vapidir=()
if [ "$prefix" != /usr ]; then
  vapidir=(--vapidir "$prefix/share/vala/vapi")
  export MANPATH=$prefix/share/man PATH=$prefix/bin:$PATH
fi

for probe; do
  echo "probes: $probe"
  case $probe in
    python)
      /usr/bin/python3 -c 'import gi; gi.require_version("Cugi", "1.0"); from gi.repository import Cugi; import sys
for name in ("gi.overrides.Cugi", "_cugi"):
    f = sys.modules[name].__file__; assert f.startswith(sys.argv[1]), f; print(name + ":", f)
assert issubclass(Cugi.Kernel, sys.modules["_cugi"].KernelCall), Cugi.Kernel.__mro__' "$prefix"
      /usr/bin/python3 "$source/examples/python/hello.py" ;;
    gjs)
      gjs -m "$source/examples/gjs/hello.js" ;;
    vala)
      valac --pkg cugi-1.0 "${vapidir[@]}" -X -lm -d "$work" -o hello-vala "$source/examples/vala/hello.vala"
      "$work/hello-vala" ;;
    c)
      cc -o "$work/cugi-hello" "$source/examples/c/cugi-hello.c" $(pkg-config --cflags --libs cugi-1.0) -lm
      "$work/cugi-hello" ;;
    cugi-info)
      [ "$(command -v cugi-info)" = "$prefix/bin/cugi-info" ]
      versions=$(cugi-info --version)
      printf '%s\n' "$versions"
      [[ $versions == "cugi "* ]]
      status=0
      cugi-info --json > "$work/info.json" || status=$?
      /usr/bin/python3 -c 'import json, sys; info = json.load(open(sys.argv[1]))
assert info["cugi_version"], info
if sys.argv[2] == "0":
    assert isinstance(info["devices"], list), info
else:
    assert sys.argv[2] == "1" and info["driver_version"] is None and info["error"], (sys.argv[2], info)
print("cugi-info --json:", len(info.get("devices", [])), "devices,", info.get("error", "a driver"))' \
        "$work/info.json" "$status"
      man_page=$(man -w cugi-info)
      [[ $man_page == "$prefix/share/man/"* ]]
      echo "cugi-info(1): $man_page" ;;
    *)
      echo "probes.sh: no probe $probe" >&2
      exit 2 ;;
  esac
done
