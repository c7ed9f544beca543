#!/usr/bin/env bash
# Runs the libFuzzer harnesses built by fuzz.mk.
#   run.sh fuzz    OUT SRC SECONDS NAME...  fuzz each NAME for SECONDS on
#                  OUT/corpus-NAME (seeded from SRC/corpus/NAME), one at a
#                  time; print exec/s and coverage; exit 1 if any crashed
#   run.sh regress OUT SRC 0 NAME...        run every file of
#                  SRC/regressions/NAME and SRC/corpus/NAME once
# FUZZ_ARGS in the environment adds libFuzzer flags (e.g. -jobs, -dict);
# FUZZ_JOBS runs that many harnesses at a time (default 1).
set -u
MODE=$1 OUT=$2 SRC=$3 SECS=$4
shift 4
# A regression or seed input runs in milliseconds: 5 s means it hangs.
if [ "$MODE" = regress ]; then TIMEOUT=5; else TIMEOUT=10; fi
COMMON=(-detect_leaks=1 -timeout=$TIMEOUT -rss_limit_mb=2048)
failed=()

stat() { sed -n "s/^stat::$1: *//p" "$2" | tail -n 1; }

fuzz_one() {
    local name=$1 bin=$OUT/fuzz_$1 corpus=$OUT/corpus-$1 art=$OUT/artifacts-$1/ log=$OUT/fuzz_$1.log
    mkdir -p "$corpus" "$art"
    [ -d "$SRC/corpus/$name" ] && cp -f "$SRC/corpus/$name"/* "$corpus"/ 2>/dev/null
    # shellcheck disable=SC2086
    "$bin" "${COMMON[@]}" -max_total_time="$SECS" -print_final_stats=1 -artifact_prefix="$art" \
        ${FUZZ_ARGS:-} "$corpus" >"$log" 2>&1
    local rc=$? eps cov execs units
    eps=$(stat average_exec_per_sec "$log")
    execs=$(stat number_of_executed_units "$log")
    cov=$(grep -oE '(DONE|pulse|NEW|REDUCE|INITED) +cov: [0-9]+' "$log" | tail -n 1 | grep -oE '[0-9]+$')
    units=$(find "$corpus" -type f | wc -l)
    printf 'fuzz_%-13s %7s exec/s  %10s execs  cov %5s edges  corpus %5s files' \
        "$name" "${eps:-?}" "${execs:-?}" "${cov:-?}" "$units"
    if [ $rc -ne 0 ]; then
        printf '  CRASH (exit %d)\n' $rc
        grep -E '^(==[0-9]+==ERROR|SUMMARY|[^ ]+: check failed|fuzz: known bug|artifact_prefix|Test unit written)' "$log" | head -n 6 | sed 's/^/    /'
        echo "    log: $log"
        failed+=("$name")
    else
        echo
    fi
}

regress_one() {
    local name=$1 bin=$OUT/fuzz_$1 log=$OUT/regress_$1.log
    local files=()
    for d in "$SRC/regressions/$name" "$SRC/corpus/$name"; do
        [ -d "$d" ] || continue
        while IFS= read -r -d '' f; do files+=("$f"); done < <(find "$d" -type f ! -name '*.md' -print0 | sort -z)
    done
    if [ ${#files[@]} -eq 0 ]; then
        printf 'fuzz_%-13s no inputs\n' "$name"
        return
    fi
    if "$bin" "${COMMON[@]}" "${files[@]}" >"$log" 2>&1; then
        printf 'fuzz_%-13s %3d inputs ok\n' "$name" ${#files[@]}
        return
    fi
    # libFuzzer stops at the first failing input: name every one that fails.
    printf 'fuzz_%-13s FAILED:\n' "$name"
    for f in "${files[@]}"; do
        if ! "$bin" "${COMMON[@]}" "$f" >"$log.one" 2>&1; then
            printf '    %s: %s\n' "$f" "$(grep -m1 -E '==ERROR|check failed|known bug|runtime error|ALARM|leak' "$log.one" | sed 's/^==[0-9]*==//')"
        fi
    done
    failed+=("$name")
}

# Fuzz FUZZ_JOBS harnesses at a time, each into a file of its own; their
# lines print in the harnesses' order once all have run.
fuzz_side_by_side() {
    local tmp name running=0
    tmp=$(mktemp -d)
    for name in "$@"; do
        ( failed=(); fuzz_one "$name" >"$tmp/$name.out"; echo ${#failed[@]} >"$tmp/$name.failed" ) &
        running=$((running + 1))
        if [ $running -ge "$FUZZ_JOBS" ]; then
            wait -n
            running=$((running - 1))
        fi
    done
    wait
    for name in "$@"; do
        cat "$tmp/$name.out"
        [ "$(cat "$tmp/$name.failed" 2>/dev/null)" = 0 ] || failed+=("$name")
    done
    rm -rf "$tmp"
}

case $MODE in
fuzz) if [ "${FUZZ_JOBS:-1}" -gt 1 ]; then fuzz_side_by_side "$@"
      else for name in "$@"; do fuzz_one "$name"; done; fi ;;
regress) for name in "$@"; do regress_one "$name"; done ;;
*) echo "run.sh: unknown mode $MODE" >&2; exit 2 ;;
esac
if [ ${#failed[@]} -ne 0 ]; then
    echo "fuzz: failed: ${failed[*]}"
    exit 1
fi
