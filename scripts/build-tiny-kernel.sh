#!/usr/bin/env bash
# Build the tiny test kernel from Debian's linux-source-6.1 with the config
# fragment(s) in tests/kernel/. The result is cached under
# $HOME/.cache/handover/kernels/ keyed by the fragments and the source
# package version, so it is rebuilt only when one of them changes.
#
# usage: scripts/build-tiny-kernel.sh [VARIANT]   (VARIANT: tiny, default)
# VARIANT names fragments tests/kernel/NAME.config, joined with '+'
# (kunit+i386: the KUnit suites in an i386 kernel), merged in that order
# after tiny.config. With the i386 fragment the build is ARCH=i386.
# prints the path of the bzImage on stdout.
set -euo pipefail

variant=${1:-tiny}
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${HANDOVER_CACHE:-$HOME/.cache/handover}
tarball=/usr/src/linux-source-6.1.tar.xz

[ -r "$tarball" ] || { echo "build-tiny-kernel: $tarball missing; apt-get install linux-source-6.1" >&2; exit 1; }
case $variant in ''|+*|*+|*++*|*[!a-z0-9+]*) echo "build-tiny-kernel: bad variant '$variant'" >&2; exit 1 ;; esac
IFS=+ read -r -a parts <<< "$variant"
fragments=("$top/tests/kernel/tiny.config") arch=x86_64
for p in "${parts[@]}"; do
    [ "$p" = tiny ] || fragments+=("$top/tests/kernel/$p.config")
    [ "$p" = i386 ] && arch=i386
done
for f in "${fragments[@]}"; do [ -r "$f" ] || { echo "build-tiny-kernel: no fragment $f" >&2; exit 1; }; done

srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
key=$( { echo "$srcver"; cat "${fragments[@]}"
         for p in "${parts[@]}"; do
             if [ -d "$top/tests/kernel/$p" ]; then
                 find "$top/tests/kernel/$p" -type f -print0 | sort -z | xargs -0 cat
             fi
         done; } | sha256sum | cut -c1-16)
out="$cache/kernels/$variant-$key"
if [ -s "$out/bzImage" ]; then echo "$out/bzImage"; exit 0; fi
# In the L1 of scripts/kvm-host (QEMU TCG, its writes thrown away) a build
# would take an hour and be lost: its tests say SKIP with this reason.
if [ -n "${KVM_HOST_IN_L1:-}" ]; then
    echo "build-tiny-kernel: no $variant kernel in $cache/kernels: build it outside the L1 (make test-assets)" >&2
    exit 1
fi

# kbuild refuses a source tree whose path has a space or colon (its top
# Makefile), which it would say only after the extraction.
case $cache in *[[:space:]:]*)
    echo "build-tiny-kernel: the kernel cannot be built under '$cache' (a space or colon in its path): set HANDOVER_CACHE to another folder" >&2
    exit 1 ;;
esac
# One build at a time per cache: the variants share the extracted source.
mkdir -p "$cache"
exec 9>"$cache/.build-tiny-kernel.lock"
flock -n 9 || { echo "build-tiny-kernel: waiting for another build in $cache" >&2; flock 9; }
if [ -s "$out/bzImage" ]; then echo "$out/bzImage"; exit 0; fi

src="$cache/src/linux-source-6.1-$srcver"
if [ ! -f "$src/.extracted" ]; then
    echo "build-tiny-kernel: extracting $tarball" >&2
    rm -rf "$src"; mkdir -p "$src"
    tar -xf "$tarball" -C "$src" --strip-components=1
    touch "$src/.extracted"
fi

build="$cache/build/$variant"
mkdir -p "$build"
# A project-owned source directory (e.g. a KUnit suite) is linked into the tree.
for p in "${parts[@]}"; do
    if [ -x "$top/tests/kernel/$p/install.sh" ]; then
        "$top/tests/kernel/$p/install.sh" "$src"
    fi
done
echo "build-tiny-kernel: configuring $variant ($arch) in $build" >&2
make -s -C "$src" O="$build" ARCH="$arch" tinyconfig >&2
ARCH=$arch "$src/scripts/kconfig/merge_config.sh" -m -O "$build" "$build/.config" "${fragments[@]}" >&2
make -s -C "$src" O="$build" ARCH="$arch" olddefconfig >&2
# Each symbol as the last fragment to name it sets it ("CONFIG_X=v", or
# "# CONFIG_X is not set" as merge_config.sh reads it) must stick.
awk '/^CONFIG_[A-Za-z0-9_]+=/ { s = $0; sub(/=.*/, "", s); want[s] = $0; next }
     /^# CONFIG_[A-Za-z0-9_]+ is not set$/ { want[$2] = $0 }
     END { for (s in want) print want[s] }' "${fragments[@]}" |
while IFS= read -r line; do
    case "$line" in
    CONFIG_*) grep -qxF -- "$line" "$build/.config" ;;
    *) sym=${line#\# }; ! grep -q "^${sym%% *}=" "$build/.config" ;;
    esac || { echo "build-tiny-kernel: $line did not stick (missing dependency?)" >&2; exit 1; }
done
echo "build-tiny-kernel: building (a few minutes on 2 cores)" >&2
# Reproducible: the same fragment and source give the same image, so the
# golden traces (tests/golden/) hold on every machine.
# The "#N" in the version string counts the links made in the build
# directory (init/build-version): a rebuild (a new linux-source-6.1) is
# made the first, as on a machine that never built the variant.
export KBUILD_BUILD_TIMESTAMP='2024-01-01 00:00:00 UTC' KBUILD_BUILD_USER=handover KBUILD_BUILD_HOST=handover
rm -f "$build/.version"
make -s -C "$src" O="$build" ARCH="$arch" -j"$(nproc)" bzImage >&2
# The result appears whole or not at all: a copy cut short (a full disk,
# Ctrl-C) stays in a folder of its own, never in $out for a later run to
# take as the kernel. Another run that finished first keeps its own.
mkdir -p "$cache/kernels"
part=$(mktemp -d "$out.part.XXXXXX")
trap 'rm -rf "$part"' EXIT
cp "$build/arch/x86/boot/bzImage" "$part/bzImage"
cp "$build/.config" "$part/config"
chmod 755 "$part"
mv -T "$part" "$out" 2>/dev/null || [ -s "$out/bzImage" ] || { echo "build-tiny-kernel: cannot make $out" >&2; exit 1; }
echo "$out/bzImage"
