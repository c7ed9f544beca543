# Shared by the integration tests: run a case, check its exit status and
# output, keep the tally, print one "N passed, N failed" line at the end.
# shellcheck shell=bash

PASSED=0 FAILED=0 SKIPPED=0
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

pass() { PASSED=$((PASSED + 1)); echo "ok - $1"; }
fail() { FAILED=$((FAILED + 1)); echo "not ok - $1: $2"; [ -n "${3:-}" ] && sed 's/^/    | /' "$3" | tail -n 25; }
SKIPPED_NAMES=()
skip() { SKIPPED=$((SKIPPED + 1)); SKIPPED_NAMES+=("$1"); echo "SKIP - $1: $2"; }

# In CI a SKIP passes only if tests/allowed-skips lists it; otherwise it
# counts as a failure (a tier that did not run is not a tier that passed).
ci_skip_policy() {
    [ "${CI:-}" = true ] || return 0
    local allowed name pattern reason ok
    allowed="$(dirname "${BASH_SOURCE[0]}")/../allowed-skips"
    for name in "${SKIPPED_NAMES[@]}"; do
        ok=
        while read -r pattern reason; do
            case $pattern in ''|'#'*) continue ;; esac
            # shellcheck disable=SC2254
            case $name in $pattern) ok=1; break ;; esac
        done < "$allowed"
        [ -n "$ok" ] || fail "$name" "SKIP is not allowed in CI (add it to tests/allowed-skips with the reason, or make it run)"
    done
}

# expect NAME STATUS PATTERN... -- COMMAND...
# Runs COMMAND (stdout and stderr into one log); passes when its exit status
# is STATUS and every PATTERN (an extended regex) matches the log. A pattern
# starting with ! must not match.
expect() {
    local name=$1 want=$2; shift 2
    local patterns=()
    while [ "$1" != "--" ]; do patterns+=("$1"); shift; done
    shift
    local log
    log="$OUT/$(printf '%s' "$name" | tr -c 'a-zA-Z0-9_.-' _).log"
    "$@" >"$log" 2>&1
    local got=$?
    if [ "$got" != "$want" ]; then
        fail "$name" "exit status $got, expected $want" "$log"
        return
    fi
    for p in "${patterns[@]}"; do
        if [ "${p#!}" != "$p" ]; then
            if grep -Eq -- "${p#!}" "$log"; then fail "$name" "output matches /${p#!}/" "$log"; return; fi
        elif ! grep -Eq -- "$p" "$log"; then
            fail "$name" "output lacks /$p/" "$log"
            return
        fi
    done
    pass "$name"
}

# kvm_usable: can this process open /dev/kvm read-write?
kvm_usable() { [ -c /dev/kvm ] && [ -r /dev/kvm ] && [ -w /dev/kvm ]; }

summary() {
    ci_skip_policy
    echo "$PASSED passed, $FAILED failed ($SKIPPED skipped)"
    [ "$FAILED" -eq 0 ]
}
