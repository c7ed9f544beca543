#!/usr/bin/env bash
# Install the handover_selftest KUnit suite into a Linux source tree.
# usage: tests/kernel/kunit/install.sh SRC
#
# Copies Kconfig, Makefile and handover_selftest.c to SRC/lib/handover_selftest/
# (only files whose contents changed, so kbuild does not rebuild needlessly)
# and adds one line each to SRC/lib/Kconfig.debug and SRC/lib/Makefile.
# Safe to run repeatedly. With CONFIG_HANDOVER_SELFTEST_KUNIT unset (any
# other variant) nothing is built and the kbuild descends into nothing.
set -euo pipefail

src=${1:?usage: install.sh LINUX_SRC}
here=$(cd "$(dirname "$0")" && pwd)
[ -f "$src/lib/Kconfig.debug" ] && [ -f "$src/lib/Makefile" ] ||
    { echo "install.sh: $src is not a Linux source tree" >&2; exit 1; }

dst="$src/lib/handover_selftest"
mkdir -p "$dst"
for f in Kconfig Makefile handover_selftest.c; do
    if ! cmp -s "$here/$f" "$dst/$f"; then
        cp "$here/$f" "$dst/$f.tmp" && mv "$dst/$f.tmp" "$dst/$f"
    fi
done

# (6.1 Kconfig has no optional 'osource': the directory above must stay.)
kline='source "lib/handover_selftest/Kconfig"'
if ! grep -qxF "$kline" "$src/lib/Kconfig.debug"; then
    grep -qxF 'source "lib/kunit/Kconfig"' "$src/lib/Kconfig.debug" ||
        { echo "install.sh: no lib/kunit/Kconfig line in lib/Kconfig.debug" >&2; exit 1; }
    sed -i 's|^source "lib/kunit/Kconfig"$|&\n'"$kline"'|' "$src/lib/Kconfig.debug"
fi

mline='obj-$(CONFIG_HANDOVER_SELFTEST_KUNIT) += handover_selftest/'
if ! grep -qxF "$mline" "$src/lib/Makefile"; then
    printf '\n%s\n' "$mline" >> "$src/lib/Makefile"
fi
