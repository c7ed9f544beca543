#!/usr/bin/env bash
# Fetch the stock Debian kernels the long tests boot: the current bookworm
# 6.1 kernel (what linux-image-amd64 depends on) and the newest 6.12 kernel
# in the archive. Versions are resolved with apt-cache, never hard-coded.
# Results: $HOME/.cache/handover/kernels/debian-6.1/vmlinuz and
# .../debian-6.12/vmlinuz (each with a VERSION file). Prints both paths.
set -euo pipefail

cache=${HANDOVER_CACHE:-$HOME/.cache/handover}/kernels

# In the L1 of scripts/kvm-host (QEMU TCG, no network, its writes thrown
# away) nothing can be fetched, and asking apt which versions are current
# costs half a minute a call: the kernels this machine fetched before the
# L1 started (make test-assets) are the ones.
if [ -n "${KVM_HOST_IN_L1:-}" ]; then
    for name in debian-6.1 debian-6.12; do
        [ -s "$cache/$name/vmlinuz" ] && [ -s "$cache/$name/VERSION" ] ||
            { echo "fetch-debian-kernels: no $name kernel in $cache: fetch it outside the L1 (make test-assets)" >&2; exit 1; }
        echo "$cache/$name/vmlinuz"
    done
    exit 0
fi

pkg61=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-6\.1/ {print $2; exit}')
pkg612=$(apt-cache search --names-only '^linux-image-6\.12\.[0-9.]+\+deb12-amd64(-unsigned)?$' \
         | awk '{print $1}' | sort -V | tail -n 1)
[ -n "$pkg61" ] || { echo "fetch-debian-kernels: cannot resolve the 6.1 kernel package (apt-get update?)" >&2; exit 1; }
[ -n "$pkg612" ] || { echo "fetch-debian-kernels: cannot resolve a 6.12 kernel package (apt-get update?)" >&2; exit 1; }

fetch() {   # fetch PACKAGE NAME
    local pkg=$1 dir=$cache/$2 ver
    ver=$(apt-cache policy "$pkg" | awk '/Candidate:/ {print $2}')
    if [ -s "$dir/vmlinuz" ] && [ "$(cat "$dir/VERSION" 2>/dev/null)" = "$pkg $ver" ]; then
        echo "$dir/vmlinuz"; return
    fi
    mkdir -p "$dir"
    # Unpacked beside the result, so that the rename below is one step: a
    # run cut short leaves no part of a kernel under the name the tests
    # and benches read (and VERSION, written after it, still differs).
    tmp=$(mktemp -d "$dir/.fetch.XXXXXX")
    (cd "$tmp" && apt-get download -q "$pkg" >&2) ||
        { echo "fetch-debian-kernels: apt-get download $pkg failed (network? apt-get update?)" >&2; exit 1; }
    dpkg-deb -x "$tmp"/*.deb "$tmp/x"
    mv "$tmp"/x/boot/vmlinuz-* "$dir/vmlinuz"
    echo "$pkg $ver" > "$dir/VERSION"
    rm -rf "$tmp"
    echo "$dir/vmlinuz"
}
tmp=
trap 'rm -rf "$tmp"' EXIT
fetch "$pkg61" debian-6.1
fetch "$pkg612" debian-6.12
