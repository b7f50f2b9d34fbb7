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
# and, for GStreamer's parts (libcugi-gst-1.0 and the cugikernel plugin,
# which .ci/debian-packages installs; a prefix of its own would need
# GST_PLUGIN_PATH set for gst-plugin):
#   gst-plugin  gst-inspect-1.0 finds cugikernel in PREFIX's plugin folder
#               (it registers without a driver: nothing of CUDA is touched)
#   gst-c       a program including <cugi/gst/cugi-gst.h>, built with
#               pkg-config's cugi-gst-1.0, names CugiGstFrame's type
#   gst-python  gi.repository.CugiGst from PREFIX's CugiGst-1.0 typelib,
#               its Frame and Filter (a GstBaseTransform)
#   gst-vala    a program naming CugiGst.Frame, built with valac --pkg
#               cugi-gst-1.0
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
    gst-plugin)
      gst-inspect-1.0 cugikernel > "$work/inspect.txt"
      # Through /lib where /usr is merged: its real path.
      plugin=$(realpath "$(sed -n 's/^ *Filename *//p' "$work/inspect.txt")")
      echo "cugikernel: $plugin"
      [[ $plugin == "$prefix"/lib*/gstreamer-1.0/libgstcugi.so ]]
      grep -E '^ *(Long-name|Klass|Version) ' "$work/inspect.txt" ;;
    gst-c)
      cat > "$work/cugi-gst.c" <<'C'
#include <cugi/gst/cugi-gst.h>

int
main (void)
{
  const char *name = g_type_name (CUGI_GST_TYPE_FRAME);

  g_print ("%s (cugi %s)\n", name, cugi_get_version ());
  return g_strcmp0 (name, "CugiGstFrame") != 0;
}
C
      flags=$(pkg-config --cflags --libs cugi-gst-1.0)
      echo "pkg-config cugi-gst-1.0: $flags"
      cc -Wall -Werror -o "$work/cugi-gst" "$work/cugi-gst.c" $flags
      "$work/cugi-gst" ;;
    gst-python)
      /usr/bin/python3 -c 'import gi; gi.require_version("CugiGst", "1.0"); from gi.repository import CugiGst; import sys
path = gi.Repository.get_default().get_typelib_path("CugiGst"); assert path.startswith(sys.argv[1]), path
assert CugiGst.Frame.__gtype__.name == "CugiGstFrame", CugiGst.Frame.__gtype__
gi.require_version("GstBase", "1.0"); from gi.repository import GstBase
assert CugiGst.Filter.__gtype__.is_a(GstBase.BaseTransform.__gtype__), CugiGst.Filter.__mro__
print("CugiGst:", path, CugiGst.Frame.__gtype__.name, CugiGst.Filter.__gtype__.name)' "$prefix" ;;
    gst-vala)
      cat > "$work/cugi-gst.vala" <<'VALA'
int main () {
    CugiGst.Frame? frame = null;
    string name = typeof (CugiGst.Frame).name ();
    print ("%s (%s)\n", name, frame == null ? "no frame mapped" : "mapped");
    return name == "CugiGstFrame" ? 0 : 1;
}
VALA
      valac --pkg cugi-gst-1.0 "${vapidir[@]}" -d "$work" -o cugi-gst-vala "$work/cugi-gst.vala"
      "$work/cugi-gst-vala" ;;
    *)
      echo "probes.sh: no probe $probe" >&2
      exit 2 ;;
  esac
done
