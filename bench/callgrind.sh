#!/usr/bin/env bash
# bench/callgrind.sh DIR HANDOVER ARGS...: run handover under callgrind and
# leave in DIR callgrind.out, its self and inclusive annotations and the
# exit status (callgrind.rc); bench/summarize.py's callgrind_figures reads
# them. valgrind does not know seccomp(2) (syscall 317) and refuses the
# sandbox's setrlimit, so handover would stop: a preloaded no-op
# seccomp_load() and setrlimit() let the same binary run unsandboxed. KVM's
# ioctls work under valgrind.
set -uo pipefail
dir=$1; shift
mkdir -p "$dir"
command -v valgrind >/dev/null || { echo "no valgrind" >"$dir/callgrind.stderr"; exit 0; }
cc -shared -fPIC -O2 -o "$dir/noseccomp.so" -x c - <<'C' || exit 0
int seccomp_load(void *ctx) { (void)ctx; return 0; }
int setrlimit(int resource, const void *rlim) { (void)resource; (void)rlim; return 0; }
C
LD_PRELOAD=$dir/noseccomp.so valgrind --tool=callgrind --callgrind-out-file="$dir/callgrind.out" "$@" \
    >"$dir/callgrind.stdout" 2>"$dir/callgrind.stderr"
echo $? >"$dir/callgrind.rc"
callgrind_annotate "$dir/callgrind.out" >"$dir/callgrind.self.txt" 2>/dev/null
callgrind_annotate --inclusive=yes "$dir/callgrind.out" >"$dir/callgrind.incl.txt" 2>/dev/null
exit 0
