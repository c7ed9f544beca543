#!/usr/bin/env bash
# bench/callgrind.sh DIR HANDOVER ARGS...: run handover under callgrind and
# leave in DIR callgrind.out, its self and inclusive annotations and the
# exit status (callgrind.rc); bench/summarize.py's callgrind_figures reads
# them. valgrind does not know seccomp(2) (syscall 317), so handover would
# refuse to run: a preloaded no-op seccomp_load() lets the same binary run
# unsandboxed. KVM's ioctls work under valgrind.
set -u
dir=$1; shift
mkdir -p "$dir"
command -v valgrind >/dev/null || { echo "no valgrind" >"$dir/callgrind.stderr"; exit 0; }
cc -shared -fPIC -O2 -o "$dir/noseccomp.so" -x c - <<<'int seccomp_load(void *ctx) { (void)ctx; return 0; }' ||
    exit 0
LD_PRELOAD=$dir/noseccomp.so valgrind --tool=callgrind --callgrind-out-file="$dir/callgrind.out" "$@" \
    >"$dir/callgrind.stdout" 2>"$dir/callgrind.stderr"
echo $? >"$dir/callgrind.rc"
callgrind_annotate "$dir/callgrind.out" >"$dir/callgrind.self.txt" 2>/dev/null
callgrind_annotate --inclusive=yes "$dir/callgrind.out" >"$dir/callgrind.incl.txt" 2>/dev/null
exit 0
