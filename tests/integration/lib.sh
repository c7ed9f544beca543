# Shared by the integration tests: run a case, check its exit status and
# output, keep the tally, print one "N passed, N failed" line at the end.
# shellcheck shell=bash

# The system's own programs first: python3 is Debian's (scripts/packages.txt),
# not a version manager's shim, which costs 0.8 s a call here and 10 s in
# an L1 of scripts/kvm-host, where the tests call it a hundred times.
export PATH=/usr/bin:/bin:$PATH

PASSED=0 FAILED=0 SKIPPED=0
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

# took: how long the test announce() named has run, for its result line.
took() { [ -n "${T0:-}" ] && echo " ($((SECONDS - T0)) s)"; T0=; }
pass() { PASSED=$((PASSED + 1)); echo "ok - $1$(took)"; }
fail() { FAILED=$((FAILED + 1)); echo "not ok - $1: $2$(took)"; [ -n "${3:-}" ] && sed 's/^/    | /' "$3" | tail -n 25; }
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

# Every command a test runs is bounded: a hang is a failure that names
# itself, not a tier that never ends.
TEST_BOUND=${TEST_BOUND:-600}

# announce NAME: in an L1 of scripts/kvm-host, the test about to run goes
# on the L1's console, so that a stall's report names it.
announce() {
    T0=$SECONDS
    [ -n "${KVM_HOST_IN_L1:-}" ] && echo "<3>kvm-host: running $1" > /dev/kmsg 2>/dev/null
    return 0
}

# selected NAME: whether the test runs in this tier. TESTS_ONLY, when set,
# lists the tests a tier runs (shell globs, space-separated); a test the
# list leaves out is not run and not counted (make test-full runs them all).
selected() {
    [ -n "${TESTS_ONLY:-}" ] || return 0
    local - g
    set -f   # the globs match test names, not files
    for g in $TESTS_ONLY; do
        # shellcheck disable=SC2254
        case $1 in $g) return 0 ;; esac
    done
    return 1
}

# expect NAME STATUS PATTERN... -- COMMAND...
# Runs COMMAND (stdout and stderr into one log); passes when its exit status
# is STATUS and every PATTERN (an extended regex) matches the log. A pattern
# starting with ! must not match.
expect() {
    local name=$1 want=$2; shift 2
    selected "$name" || return 0
    local patterns=()
    while [ "$1" != "--" ]; do patterns+=("$1"); shift; done
    shift
    local log
    log="$OUT/$(printf '%s' "$name" | tr -c 'a-zA-Z0-9_.-' _).log"
    announce "$name"
    timeout -k 10 "$TEST_BOUND" "$@" >"$log" 2>&1
    local got=$?
    if { [ "$got" = 124 ] || [ "$got" = 137 ]; } && [ $((SECONDS - T0)) -ge "$TEST_BOUND" ]; then
        fail "$name" "still running after the test's bound of $TEST_BOUND s (TEST_BOUND), stopped" "$log"
        return
    fi
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
    # A tier that ran nothing, when it was not told to pick its tests
    # (TESTS_ONLY), checked nothing: that is not a pass.
    [ $((PASSED + FAILED + SKIPPED)) -gt 0 ] || [ -n "${TESTS_ONLY:-}" ] ||
        fail "${0##*/}" "no test ran (nor was any skipped)"
    echo "$PASSED passed, $FAILED failed ($SKIPPED skipped)"
    [ "$FAILED" -eq 0 ]
}
