#!/usr/bin/env bash
# examples/github-actions.yml, run here as a runner would: its jobs in order,
# each matrix entry in turn, each step's commands as written, in a fresh copy
# of this tree per job and matrix entry (each is a machine of its own on a
# runner). What differs from a hosted runner, and why:
# - apt-get: `update` is skipped and `install` is simulated (apt-get -s)
#   against this machine's lists, which proves every package name exists
#   in Debian 12 (.ci/run has installed them; the test needs no network);
# - `make install` installs into a prefix of the test's (PREFIX in the
#   environment, which the Makefile honours), first on PATH;
# - a step that runs handover goes through scripts/kvm-host (this machine's
#   /dev/kvm, or an L1), and the files it writes in the workspace come back;
# - actions/cache does nothing (~/.cache/handover is this machine's own);
#   upload-artifact checks each path exists and keeps it, download-artifact
#   copies the kept files of the artifacts its pattern names.
# One test per step; a step after a failed one (and not `if: always()`)
# fails as not run.
# usage: tests/integration/workflow.sh [WORKFLOW.yml]
set -u
cd "$(dirname "$0")/../.."
TOP=$PWD
. tests/integration/lib.sh
WF=${1:-examples/github-actions.yml}
echo "# the example workflow: $WF"
# This runner's own semantics first, on a workflow that needs no KVM.
[ $# -gt 0 ] || expect workflow-runner 0 '^12 passed, 0 failed' \
    -- env -u TESTS_ONLY "$0" tests/integration/workflow-runner.yml

steps=$OUT/steps art=$OUT/artifacts shim=$OUT/shim
export PREFIX=$OUT/prefix
mkdir -p "$art" "$shim"
if ! python3 tests/integration/workflow-steps.py "$WF" "$steps" >"$OUT/steps.log" 2>&1; then
    fail workflow-parse "the workflow cannot be run here" "$OUT/steps.log"
    summary; exit
fi
cat > "$shim/apt-get" <<'EOF'
#!/bin/bash
case " $* " in *" update "*) echo "apt-get update: skipped (this machine's package lists are used)"; exit 0 ;; esac
out=$(/usr/bin/apt-get -s "$@" 2>&1); rc=$?
printf '%s\n' "$out" | grep -E '^(E:|[0-9]+ upgraded)' || true
[ $rc = 0 ] && ! printf '%s\n' "$out" | grep -q '^E:'
EOF
chmod +x "$shim/apt-get"

# checkout: the tree as it is now (tracked files, with their changes, and new
# ones git does not ignore), into a workspace of its own. pipefail: a git
# that cannot list the tree is a failed checkout, not an empty workspace.
checkout() {
    local -
    set -o pipefail
    rm -rf "$ws" && mkdir -p "$ws" &&
        git -C "$TOP" ls-files -z --cached --others --exclude-standard |
        (cd "$TOP" && xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh) |
        tar -C "$TOP" --null -T - -cf - | tar -C "$ws" -xf -
}

# run_step BODY LOG OPTIONS: the step's script under bash with the `set`
# OPTIONS its shell has on a runner (workflow-steps.py), with what earlier
# steps put in $GITHUB_ENV.
run_step() {
    local body=$1 log=$2 options=$3 script=$ws/.workflow-step.sh
    {
        echo "export PREFIX=$(printf '%q' "$PREFIX") GITHUB_ENV=$(printf '%q' "$ws/.github-env") GITHUB_WORKSPACE=$(printf '%q' "$ws") CI=true"
        echo "export PATH=$(printf '%q' "$shim:$PREFIX/bin:$PATH")"
        while IFS= read -r line; do
            [ -n "$line" ] && echo "export $(printf '%q' "$line")"
        done < "$ws/.github-env"
        echo "cd $(printf '%q' "$ws")"
        echo "( set $options"
        cat "$body"
        echo ")"
        echo "rc=\$?"
        # In an L1 the workspace is a copy: what the step wrote comes back.
        echo "if [ -n \"\${KVM_HOST_OUT:-}\" ] && ! [ \"\$KVM_HOST_OUT\" -ef . ]; then"
        echo "    find . -maxdepth 1 -type f -newer .workflow-step.sh -exec cp {} \"\$KVM_HOST_OUT/\" \\;"
        echo "fi"
        echo "exit \$rc"
    } > "$script"
    touch -d '-2 seconds' "$script"
    if grep -Eq '(^|[[:space:]/])handover[[:space:]]' "$body"; then
        (cd "$ws" && KVM_HOST_SAVE=$ws timeout -k 10 "$TEST_BOUND" "$TOP/scripts/kvm-host" bash "$script") >"$log" 2>&1
    else
        (cd "$ws" && timeout -k 10 "$TEST_BOUND" bash "$script") >"$log" 2>&1
    fi
}

# with KEY: the values of a uses step's `with` KEY, one per line.
with() { sed -n "s/^$1=//p" "$body"; }

upload() {
    local name p missing=
    name=$(with name)
    [ -n "$(with path)" ] || { echo "upload-artifact $name: no path"; return 1; }
    mkdir -p "$art/$name"
    while IFS= read -r p; do
        if [ -e "$ws/$p" ]; then cp -a "$ws/$p" "$art/$name/"; else missing="$missing $p"; fi
    done < <(with path)
    [ -z "$missing" ] || { echo "upload-artifact $name: no such file:$missing"; return 1; }
    echo "upload-artifact $name: $(ls "$art/$name" | tr '\n' ' ')"
}

download() {
    local pattern d n=0
    pattern=$(with pattern)
    [ "$(with merge-multiple)" = true ] || { echo "download-artifact: only merge-multiple: true is run here"; return 1; }
    for d in "$art"/$pattern; do
        [ -d "$d" ] || continue
        cp -a "$d/." "$ws/" && n=$((n + 1))
    done
    echo "download-artifact $pattern: $n artifacts"
    [ $n -gt 0 ]
}

last_run= failed_run=
for meta in "$steps"/*.meta; do
    body=${meta%.meta}.body
    { read -r job; read -r label; read -r kind; read -r title; read -r cond; read -r options; } < "$meta"
    name="workflow $job${label:+ [$label]}: $title"
    [ "$label" = - ] && name="workflow $job: $title"
    if [ "$job/$label" != "$last_run" ]; then
        ws=$OUT/ws-$job
        [ "$label" = - ] || ws=$ws-${label//[^a-z0-9]/_}
        failed_run= last_run=$job/$label
        if ! checkout 2>"$OUT/checkout.log"; then
            fail "$name" "the copy of the tree for this job failed" "$OUT/checkout.log"; failed_run=1; continue
        fi
        : > "$ws/.github-env"
    fi
    case $cond in
        'always()') ;;
        'success()') if [ -n "$failed_run" ]; then fail "$name" "not run: an earlier step of the job failed"; continue; fi ;;
        *) fail "$name" "if: $cond is not a condition this runner knows"; failed_run=1; continue ;;
    esac
    selected "$name" || continue
    log=$OUT/step-$(basename "$meta" .meta).log
    announce "$name"
    case $kind in
        actions/checkout) echo "# $name: a copy of the tree in $ws"; T0=; continue ;;
        actions/cache) echo "# $name: nothing to do (this machine's ~/.cache/handover)"; T0=; continue ;;
        actions/upload-artifact) upload >"$log" 2>&1 ;;
        actions/download-artifact) download >"$log" 2>&1 ;;
        run) run_step "$body" "$log" "$options" ;;
        *) echo "no such action here: $kind" >"$log"; false ;;
    esac
    rc=$?
    if [ $rc = 0 ]; then pass "$name"; else fail "$name" "exit status $rc" "$log"; failed_run=1; fi
done
summary
