# Sourced with $build (a build directory) and $prefix (where it was
# installed): the environment README.md gives for cugi installed in a prefix
# of its own, so that programs find the installed cugi, and nothing of the
# build tree.
build_option () {
  meson introspect "$build" --buildoptions | /usr/bin/python3 -c \
    'import json, sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == sys.argv[1]))' "$1"
}
libdir=$(build_option libdir)
export PKG_CONFIG_PATH=$prefix/$libdir/pkgconfig
export LD_LIBRARY_PATH=$prefix/$libdir
export GI_TYPELIB_PATH=$prefix/$libdir/girepository-1.0
# Where Meson put the Python overrides: <prefix>/lib/python3/dist-packages
# on Debian; PyGObject finds gi/overrides in every directory of sys.path.
overrides=$(meson introspect "$build" --installed | /usr/bin/python3 -c \
  'import json, sys; print(next(v for v in json.load(sys.stdin).values() if v.endswith("/gi/overrides/Cugi.py")))')
export PYTHONPATH=${overrides%/gi/overrides/Cugi.py}
