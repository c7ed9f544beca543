#!/usr/bin/env bash
# The tree keeps to its ranks (docs/architecture.md): a folder includes only
# itself and the folders below it, and inside vmm/ and firmware-stub/ a
# folder or file only looks down too; the pure folders (the Makefile's
# PURE_DIRS, which the unit tests and fuzzers link alone) include only pure
# folders; only vmm/kvm/ calls ioctl; and no object outside firmware-stub/
# uses its internal fw_* names. One ok/not ok line per rule, with the lines
# that break it.
# usage: tests/integration/layering.sh OBJ_DIR PURE_DIR...
#   OBJ_DIR: the build's objects ($(BUILD)/obj), for the firmware-stub's calls
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
OBJ=$1
shift
PURE_DIRS="$*"

# The top-level folders, bottom first.
FOLDER_RANKS=(guest firmware-stub loader vmm)

# The firmware-stub's files, bottom first (a .c and its .h share a rank).
FIRMWARE_RANKS=(
    "services efi guids names ucs2 region le_bytes"              # the spec's types, names and strings; the region's layout
    "memmap pe keys inject_kind volume fat_name tcg_log tpm2_command"   # libraries on them
    "fat_image"                                                  # the --esp volume as a FAT file system,
    "esp_disk"                                                   # and as a GPT disk around it
    "signature_list"                                             # Secure Boot's signature lists,
    "signed_data"                                                # its PKCS#7 on them,
    "authenticode auth_variable"                                 # its image and variable checks
    "state service width"                                        # the firmware's state, a service's row, its width
    "log"                                                        # its diagnostics
    "trace_decode handles pool system_table variable_store"      # what the services use
    "secure_boot_keys"                                           # Secure Boot's keys and modes, in the variable store
    "esp_volume"                                                 # the --esp volume, its paths and disk, which LoadImage reads
    "simple_fs block_io"                                         # its file system, and its disk's protocol
    "memory protocols events image console rng loadfile2 acpi memattr tcg2 variables"   # the services
    "watchdog"                                                   # the watchdog, on the timers' clock
    "boot_services runtime_services inject boot_measurements"    # tables of several files' services; the faults;
                                                                 # the firmware's own measurements
    "esp dispatch tables firmware"                               # --esp's two halves, the dispatch, the building,
                                                                 # the interface
)

# Inside vmm/, bottom first: its folders, and its own files by name (a .c
# and its .h share a rank). The state and steps of a boot sit below the
# KVM plumbing that runs them, the tools above the run loop, and main.c,
# which wires them all, on top.
VMM_RANKS=(
    "vmm/host vmm/x86 vmm/devices vmm/verdict"                  # host files and libraries, the pure folders
    "vmm/vmm vmm/boot vmm/console vmm/options vmm/run_hooks vmm/secure_boot"   # the VMM's state, the steps of a boot (the keys --secure-boot enrols), the hooks
    "vmm/kvm"                                                   # the VMs, the run loop, snapshots
    "vmm/tools"                                                 # the hooks' observers, registered by main.c
    "vmm/main"                                                  # the wiring
)

# Every #include "..." in the folders given: FILE:LINE TARGET, the target
# a path from the top of the tree (the generated headers -I$(BUILD)/gen
# finds are not in the tree, and left out).
includes() {
    { find guest firmware-stub loader vmm tests -name '*.[ch]' | sed 's/^/tree /'
      grep -rHn --include='*.[ch]' '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$@"; } |
    awk '$1 == "tree" { tree[$2] = 1; next }
         { split($0, at, ":"); split($0, q, "\"")
           n = split(at[1] "/../" q[2], part, "/"); k = 0
           for (i = 1; i <= n; i++)
               if (part[i] == "..") k--; else if (part[i] != "." && part[i] != "") kept[++k] = part[i]
           t = kept[1]; for (i = 2; i <= k; i++) t = t "/" kept[i]
           if (t in tree) print at[1] ":" at[2], t }'
}

# above BY RANKS... < "FROM:LINE TO [WHAT]" lines: those where TO ranks
# above FROM (calls: at or above, unless the same file), and any FROM
# without a rank. BY: folder (ranked by top-level folder), vmm (by vmm/'s
# folder, or for vmm/'s own files by path without .c or .h), include or
# call (by file name without .c or .h); RANKS: one word list a rank,
# bottom first.
above() {
    local by=$1
    shift
    awk -v by="$by" -v ranks="$(printf '%s\n' "$@")" '
        BEGIN { n = split(ranks, line, "\n")
                for (r = 1; r <= n; r++) { m = split(line[r], w, " "); for (i = 1; i <= m; i++) rank[w[i]] = r } }
        function key(path,   p, n) {
            n = split(path, p, "/")
            if (by == "folder") return p[1]
            if (by == "vmm" && n > 2) return p[1] "/" p[2]
            if (by == "vmm") { sub(/\.[cho]$/, "", path); return path }
            sub(/\.[cho]$/, "", p[n]); return p[n]
        }
        { split($1, at, ":"); from = key(at[1]); to = key($2)
          if (!(from in rank)) { print at[1] ": has no rank"; next }
          if (!(to in rank) || from == to && by == "call") next
          if (rank[to] > rank[from] || rank[to] == rank[from] && by == "call")
              print (by == "call" ? at[1] " uses " $3 " of " $2 : $1 " includes " $2), \
                    "(rank " rank[to] ", " (rank[to] > rank[from] ? "above" : "the same as") " its own " rank[from] ")" }' |
    sort -u
}

# report RULE WHY: pass, or fail with the lines in $OUT/bad. A rule whose
# input ($OUT/in: the calls, includes or symbols it judged) is empty checked
# nothing (a missing nm, objects that are not objects, a path that matches
# no file) and fails too.
report() {
    if [ ! -s "$OUT/in" ]; then fail "$1" "nothing to check: no input reached the rule"
    elif [ -s "$OUT/bad" ]; then fail "$1" "$2" "$OUT/bad"
    else pass "$1"; fi
}

# 1. Only vmm/kvm/ calls ioctl.
grep -rnE '\bioctl *\(' --include='*.c' vmm | tee "$OUT/in" | grep -v '^vmm/kvm/' > "$OUT/bad"
report only-vmm-kvm-calls-ioctl "ioctl called outside vmm/kvm/"

# 2. A folder includes only itself and the folders below it.
includes "${FOLDER_RANKS[@]}" | tee "$OUT/in" | above folder "${FOLDER_RANKS[@]}" > "$OUT/bad"
report folders-include-only-lower-folders "the folders, bottom first: ${FOLDER_RANKS[*]}"

# 3. Inside vmm/, a folder or file includes only its own rank or lower.
{ find vmm -name '*.[ch]' | sed 's/.*/&:0 &/'
  includes vmm | grep ' vmm/'; } | tee "$OUT/in" | above vmm "${VMM_RANKS[@]}" > "$OUT/bad"
report vmm-includes-only-lower-ranks "the ranks: VMM_RANKS in $0"

# 4. The pure folders include only pure folders.
# shellcheck disable=SC2086
includes $PURE_DIRS | tee "$OUT/in" | awk -v pure=" $PURE_DIRS " '{ d = $2; sub(/\/[^\/]*$/, "", d)
    if (!index(pure, " " d " ")) print $1, "includes", $2, "(not in a pure folder)" }' > "$OUT/bad"
report pure-folders-include-only-pure-folders "the pure folders: $PURE_DIRS"

# 5. A firmware-stub file includes only headers of its own rank or lower.
{ for f in firmware-stub/*.[ch]; do echo "$f:0 $f"; done
  includes firmware-stub | grep ' firmware-stub/'; } | tee "$OUT/in" | above include "${FIRMWARE_RANKS[@]}" > "$OUT/bad"
report firmware-stub-files-include-only-lower-ranks "the ranks: FIRMWARE_RANKS in $0"

# 6. A firmware-stub file uses only the functions and tables of lower
# ranks: read from the objects, so that no declaration in the wrong header
# can hide a call.
if ! ls "$OBJ"/firmware-stub/*.o > /dev/null 2>&1; then
    echo "no objects in $OBJ/firmware-stub: build first" | tee "$OUT/in" > "$OUT/bad"
else
    for o in "$OBJ"/firmware-stub/*.o; do
        f=firmware-stub/$(basename "$o" .o).c
        nm --defined-only "$o" | awk -v f="$f" '$2 ~ /^[TDRB]$/ { print "def", f, $3 }'
        nm --undefined-only "$o" | awk -v f="$f" '{ print "use", f, $2 }'
    done | awk '$1 == "def" { owner[$3] = $2; next } { n++; user[n] = $2; sym[n] = $3 }
                END { for (i = 1; i <= n; i++) if (sym[i] in owner) print user[i] ":0", owner[sym[i]], sym[i] }' |
    tee "$OUT/in" | above call "${FIRMWARE_RANKS[@]}" > "$OUT/bad"
fi
report firmware-stub-files-use-only-lower-ranks "the ranks: FIRMWARE_RANKS in $0"

# 7. The firmware's interface is its firmware_* functions (and its
# libraries' own prefixes): fw_* names are its internals, which no object
# outside firmware-stub/ uses.
if ! ls "$OBJ"/vmm/*.o > /dev/null 2>&1; then
    echo "no objects in $OBJ/vmm: build first" | tee "$OUT/in" > "$OUT/bad"
else
    find "$OBJ"/vmm "$OBJ"/loader "$OBJ"/guest -name '*.o' | sort | while read -r o; do
        nm --undefined-only "$o" | awk -v o="${o#"$OBJ"/}" '{ print o, $2 }'
    done | tee "$OUT/in" | awk '$2 ~ /^fw_/ { print $1, "uses", $2 }' > "$OUT/bad"
fi
report only-firmware-stub-uses-fw-names "fw_* is the firmware's internal prefix: call a firmware_* function"

summary
