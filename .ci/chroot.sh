# Sourced by .ci/debian13 and .ci/debian-packages, which make Debian chroots
# with mmdebstrap on this Debian 12 machine and run commands in them.

# debian_mirror: prints the first Debian mirror of this machine's apt sources
# (deb822 or one-line), or says there is none and fails.
debian_mirror() {
  local mirror
  mirror=$( { sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/*.sources 2>/dev/null || true;
              sed -n 's/^deb \(\[[^]]*\] \)\?\([^ ]*\) .*/\2/p' \
                /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null || true; } |
            tr ' ' '\n' | grep '/debian/\?$' | head -n1 || true)
  if [ -z "$mirror" ]; then
    echo "$(basename "$0"): no Debian mirror in this machine's apt sources" >&2
    return 2
  fi
  echo "$mirror"
}

# chroot_toolkit ROOT: makes ROOT ready for the CUDA toolkit that in_chroot
# mounts at /usr/local/cuda, as NVIDIA's packages install it: its libraries
# in the loader's path (so that NVRTC finds libnvrtc-builtins once ldconfig
# has run in the chroot).
chroot_toolkit() {
  mkdir -p "$1/usr/local/cuda"
  echo /usr/local/cuda/lib64 > "$1/etc/ld.so.conf.d/cuda.conf"
}

# in_chroot ROOT COMMAND [CHECKOUT]: COMMAND in the chroot ROOT, in a mount
# namespace of its own (the toolkit read-only, /proc, /dev, /sys, a fresh
# /tmp and, when given, CHECKOUT at its own path), with a clean environment.
in_chroot() {
  unshare --mount --propagation private bash -euo pipefail -c '
    root=$1 command=$2 checkout=${3:-}
    mount --bind -o ro /usr/local/cuda "$root/usr/local/cuda"
    mount -t proc proc "$root/proc"
    mount --rbind /dev "$root/dev"
    mount --rbind /sys "$root/sys"
    mount -t tmpfs tmpfs "$root/tmp"
    if [ -n "$checkout" ]; then
      mkdir -p "$root$checkout"
      mount --bind "$checkout" "$root$checkout"
    fi
    chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
      sh -c "$command"
  ' in_chroot "$@"
}
