# shellcheck shell=bash
# The Secure Boot fixtures' cache, sourced by tests/secure-boot-fixtures.sh
# and tests/sb-chain-fixtures.sh. Their RSA keys and signatures take a
# few seconds on this machine and a minute or more in an L1 of
# scripts/kvm-host (QEMU TCG), where each tier would make them again:
# a fixture folder is kept in $HANDOVER_CACHE/fixtures/KEY, KEY a hash of
# the contents of every file that makes it (the scripts, the images
# signed), and copied from there when the same files make it again.
# tests/integration/kvm-tiers.sh makes them on this machine before the L1s
# start, which see its cache read-only.

fixture_cache=${HANDOVER_CACHE:-$HOME/.cache/handover}/fixtures

# fixture_key FILE...: the hash of the files' contents (not their paths).
fixture_key() {
    local f
    for f; do sha256sum < "$f" || return 1; done | sha256sum | cut -c1-16
}

# fixture_from_cache DIR KEY: DIR replaced by the cached folder; false
# when there is none.
fixture_from_cache() {
    [ -f "$fixture_cache/$2/.whole" ] || return 1
    rm -rf "$1" && mkdir -p "$(dirname "$1")" && cp -a "$fixture_cache/$2" "$1" && rm -f "$1/.whole"
}

# fixture_to_cache DIR KEY: DIR kept under KEY, whole or not at all (a
# temporary name of this run's own, renamed when complete). A cache that
# cannot be written (a read-only one) is no failure: the next run makes
# the fixtures again.
fixture_to_cache() {
    local part
    mkdir -p "$fixture_cache" 2>/dev/null && part=$(mktemp -d "$fixture_cache/$2.part.XXXXXX" 2>/dev/null) || return 0
    if cp -a "$1/." "$part/" && touch "$part/.whole" && mv -T "$part" "$fixture_cache/$2" 2>/dev/null; then
        return 0
    fi
    rm -rf "$part"
}
