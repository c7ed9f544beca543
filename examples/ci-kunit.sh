#!/usr/bin/env bash
# CI recipe: build a kernel with your KUnit suites built in, boot it with
# handover (no QEMU), and exit with the result: 0 every test passed, 1 a
# test failed, 6 kernel panic, 7 the run did not finish, 124 timeout (2: a
# usage error).
#
# usage: examples/ci-kunit.sh KERNEL_SRC [FRAGMENT...]
#   KERNEL_SRC  a kernel tree (e.g. your branch)
#   FRAGMENT    config fragments with your CONFIG_*_KUNIT_TEST=y options
# env: HANDOVER (default: handover on PATH), BUILD_DIR (default: KERNEL_SRC/.handover-build),
#      TIMEOUT seconds (default 1800), CMDLINE extra kernel parameters
#
# The base config is tinyconfig plus what an EFI-stub boot to a serial
# console needs (tests/kernel/tiny.config in the handover repository,
# installed as share/handover/tiny.config by make install) and KUnit
# itself; add your suites' options in a fragment.
set -euo pipefail

# A usage error is status 2, as handover's own: 1 says a test failed.
[ $# -ge 1 ] && [ -n "$1" ] || { echo "usage: $0 KERNEL_SRC [FRAGMENT...]" >&2; exit 2; }
src=$1
# The base fragment: in the checkout, or installed beside the examples.
here=$(dirname "$(readlink -f "$0")")
base=$here/../tests/kernel/tiny.config
[ -f "$base" ] || base=$here/../tiny.config
[ -f "$base" ] || { echo "ci-kunit: no tiny.config in $here/../tests/kernel or $here/.." >&2; exit 2; }
handover=${HANDOVER:-handover}
# Both as absolute paths: kbuild reads a relative O= from inside the tree
# (after make -C), merge_config.sh and the boot from here.
src=$(cd "$src" && pwd) || { echo "ci-kunit: $1: not a folder" >&2; exit 2; }
build=${BUILD_DIR:-$src/.handover-build}
mkdir -p "$build"
build=$(cd "$build" && pwd)

cat > "$build/kunit-base.config" <<'CFG'
CONFIG_KUNIT=y
CONFIG_KUNIT_DEFAULT_ENABLED=y
CFG
make -s -C "$src" O="$build" tinyconfig
"$src/scripts/kconfig/merge_config.sh" -m -O "$build" "$build/.config" \
    "$base" "$build/kunit-base.config" "${@:2}"
make -s -C "$src" O="$build" olddefconfig
make -s -C "$src" O="$build" -j"$(nproc)" bzImage

exec "$handover" --kunit --timeout "${TIMEOUT:-1800}" \
    --cmdline "console=ttyS0 ${CMDLINE:-}" "$build/arch/x86/boot/bzImage"
