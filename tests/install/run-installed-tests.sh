#!/bin/bash
# run-installed-tests.sh BUILD_DIR PREFIX: runs the installed tests of
# BUILD_DIR (configured with -Dinstalled_tests=true, installed into PREFIX by
# check-installed.sh) where they were installed, with
# gnome-desktop-testing-runner, against the installed cugi only: the
# environment README.md gives for such a prefix, and none of the variables
# meson test sets. Tests that need a GPU exit 77 without one, which the
# runner counts as skipped. Exits non-zero when a test failed.
set -euo pipefail
build=$1
prefix=$2
source "$(dirname "$0")/installed-env.sh"
unset G_TEST_SRCDIR G_TEST_BUILDDIR CUGI_INFO CUGI_LIBCUDA CUGI_STUB_LIBCUDA FAKE_CUDA_BASE CUGI_CACHE_DIR

gnome-desktop-testing-runner --dir="$prefix/$(build_option datadir)" cugi-1.0/
