#!/usr/bin/env bash
# Build the tiny test kernel from Debian's linux-source-6.1 with the config
# fragment(s) in tests/kernel/. The result is cached under
# $HOME/.cache/handover/kernels/ keyed by the fragments and the source
# package version, so it is rebuilt only when one of them changes.
#
# usage: scripts/build-tiny-kernel.sh [VARIANT]   (VARIANT: tiny, default; kunit,
# nopci, mixed: tests/kernel/VARIANT.config merged after tiny.config)
# prints the path of the bzImage on stdout.
set -euo pipefail

variant=${1:-tiny}
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${HANDOVER_CACHE:-$HOME/.cache/handover}
tarball=/usr/src/linux-source-6.1.tar.xz

[ -r "$tarball" ] || { echo "build-tiny-kernel: $tarball missing; apt-get install linux-source-6.1" >&2; exit 1; }
fragments=("$top/tests/kernel/tiny.config")
[ "$variant" = tiny ] || fragments+=("$top/tests/kernel/$variant.config")
for f in "${fragments[@]}"; do [ -r "$f" ] || { echo "build-tiny-kernel: no fragment $f" >&2; exit 1; }; done

srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
key=$( { echo "$srcver"; cat "${fragments[@]}"
         if [ -d "$top/tests/kernel/$variant" ]; then
             find "$top/tests/kernel/$variant" -type f -print0 | sort -z | xargs -0 cat
         fi; } | sha256sum | cut -c1-16)
out="$cache/kernels/$variant-$key"
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
if [ -x "$top/tests/kernel/$variant/install.sh" ]; then
    "$top/tests/kernel/$variant/install.sh" "$src"
fi
echo "build-tiny-kernel: configuring $variant in $build" >&2
make -s -C "$src" O="$build" tinyconfig >&2
"$src/scripts/kconfig/merge_config.sh" -m -O "$build" "$build/.config" "${fragments[@]}" >&2
make -s -C "$src" O="$build" olddefconfig >&2
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
export KBUILD_BUILD_TIMESTAMP='2024-01-01 00:00:00 UTC' KBUILD_BUILD_USER=handover KBUILD_BUILD_HOST=handover
make -s -C "$src" O="$build" -j"$(nproc)" bzImage >&2
mkdir -p "$out"
cp "$build/arch/x86/boot/bzImage" "$out/bzImage"
cp "$build/.config" "$out/config"
echo "$out/bzImage"
