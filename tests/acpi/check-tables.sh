#!/usr/bin/env bash
# ACPICA's own tools judge the firmware's ACPI tables (firmware-stub/acpi.c),
# in every configuration a run can ask for: the tables written by
# build/acpi-dump (tests/acpi/acpi_dump.c), then
#  - iasl -d disassembles each table without an error or a warning, and
#    the disassembled AML compiles again (iasl), without one either;
#  - acpiexec loads the namespace from the DSDT, the SSDTs, the FADT and
#    the MADT and evaluates what the kernel evaluates: \_S5, each device's
#    _HID, _CID, _UID and _CRS, the VM generation ID's ADDR and the GED's
#    _EVT, with no AE_ status.
# Accepted, and why:
#  - iasl's error 6035 on \_SB.VGEN's _HID "VMGENCTR" (not PNP or ACPI ID
#    form, ACPI 6.4 section 6.1.5): the ID Linux's drivers/virt/vmgenid.c
#    matches, as the VM generation ID specification leaves _HID to the
#    hypervisor's vendor (QEMU's "QEMUVGID" is no ACPI ID either).
#  - acpiexec's own interface tests (aetests.c) that assume its test
#    platform: GPE numbers 0-5, 0x19 and 101 (this FADT has no GPE block),
#    ARB_DIS in a PM2 control block (there is none) and the PM timer (none:
#    ACPI 6.4 section 5.2.9 makes PM_TMR_BLK optional). Only those lines
#    are let through, by function name.
# --no-acpi builds no table: nothing to judge. The RSDP is no table iasl
# reads (its signature is no name); tests/unit/test_fw_acpi.c checks it.
# usage: tests/acpi/check-tables.sh ACPI_DUMP OUTDIR
set -u
dump=$1 out=$2
passed=0 failed=0

pass() { passed=$((passed + 1)); echo "ok $1"; }
fail() { failed=$((failed + 1)); echo "FAIL $1: $2"; [ -n "${3:-}" ] && sed 's/^/    /' "$3"; }

for tool in iasl acpiexec; do
    command -v "$tool" >/dev/null || { echo "FAIL no $tool: install acpica-tools (scripts/install-packages.sh)"; exit 1; }
done

# The acpiexec self-test lines this platform answers on purpose (above).
accepted_unexpected='^Unexpected AE_[A-Z_]+ from (Acpi(Install|Remove)GpeHandler|Acpi(Enable|Disable|Set)Gpe|AcpiSetupGpeForWake|AcpiSetGpeWakeMask|Acpi(Read|Write)BitRegister|AcpiGetTimer|AcpiGetTimerDuration) \(aetests-[0-9]+\)$'

# disassemble NAME DIR: iasl -d of DIR/*.dat, no error or warning, and
# the AML tables' ASL compiled again.
disassemble() {
    local name=$1 dir=$2 f log=$2/iasl.log ok=1
    : >"$log"
    for f in "$dir"/*.dat; do
        [ "$(basename "$f")" = RSDP.dat ] && continue
        if ! (cd "$dir" && iasl -d "$(basename "$f")") >>"$log" 2>&1; then ok=; fi
    done
    grep -Eqi '^(error|warning)|\*\*\*\* |invalid|does not contain' "$log" "$dir"/*.dsl && ok=
    for f in "$dir"/DSDT.dsl "$dir"/SSDT*.dsl; do
        [ -e "$f" ] || continue
        (cd "$dir" && iasl -vw 6035 -p "recompiled-$(basename "$f" .dsl)" "$(basename "$f")") >>"$log" 2>&1 || ok=
    done
    grep '^Compilation' "$log" | grep -Evq '^Compilation successful\. 0 Errors, 0 Warnings' && ok=
    if [ -n "$ok" ]; then pass "$name-iasl"; else fail "$name-iasl" "iasl -d or the recompile complained" "$log"; fi
}

# The names acpiexec evaluates: \_S5 and, for each device the SSDTs and
# the DSDT declare, the objects the kernel reads that it has.
objects_of() {
    local dir=$1 dev obj
    echo '\_S5'
    for dev in $(grep -ho 'Device ([A-Z0-9_]*)' "$dir"/DSDT.dsl "$dir"/SSDT*.dsl 2>/dev/null | sed 's/Device (\(.*\))/\1/'); do
        for obj in _HID _CID _UID _CRS _STA ADDR; do
            sed -n "/Device ($dev)/,/^        }/p" "$dir"/DSDT.dsl "$dir"/SSDT*.dsl 2>/dev/null |
                grep -Eq "(Name|Method) \(${obj}[,)]" && echo "\\_SB.$dev.$obj"
        done
    done
}

# execute NAME DIR: acpiexec loads the tables and evaluates objects_of.
execute() {
    local name=$1 dir=$2 log=$2/acpiexec.log cmds="" o tables
    for o in $(objects_of "$dir"); do cmds+="evaluate $o; "; done
    grep -qs 'Device (GED)' "$dir"/SSDT*.dsl 2>/dev/null && cmds+='evaluate \_SB.GED._EVT 0x80; '
    tables=$(cd "$dir" && ls DSDT.dat SSDT*.dat FACP.dat APIC.dat 2>/dev/null)
    # shellcheck disable=SC2086 # the file names split on purpose
    (cd "$dir" && acpiexec -b "$cmds" $tables) >"$log" 2>&1
    local rc=$? bad
    bad=$(grep -E 'AE_[A-Z]' "$log" | grep -Ev "$accepted_unexpected")
    local evaluated
    evaluated=$(grep -c '^Evaluation of .* returned\|^No object was returned from evaluation' "$log")
    if [ $rc -ne 0 ] || [ -n "$bad" ] || [ "$evaluated" -ne "$(echo "$cmds" | grep -o evaluate | wc -l)" ]; then
        fail "$name-acpiexec" "exit $rc, $evaluated of the evaluations returned, or an AE_ status: ${bad:-none}" "$log"
    elif grep -qs 'Device (GED)' "$dir"/SSDT*.dsl && ! grep -q 'Received a Device Notify on \[VGEN\].*Value 0x80' "$log"; then
        fail "$name-acpiexec" "the GED's _EVT did not notify VGEN" "$log"
    else
        pass "$name-acpiexec"
    fi
}

# Each configuration: a name and acpi-dump's options (--com2 is
# --exec-output's second UART, --vmgenid --snapshot's VM generation ID).
variants=(
    "one-cpu|--cpus 1"
    "four-cpus|--cpus 4"
    "max-cpus-com2|--cpus 64 --com2"
    "snapshot|--cpus 2 --vmgenid"
    "snapshot-com2|--cpus 3 --com2 --vmgenid"
    "tpm|--cpus 2 --tpm --vmgenid"
    "ia32|--firmware-bits 32"
    "ia32-snapshot-com2|--firmware-bits 32 --cpus 2 --com2 --vmgenid"
)
for v in "${variants[@]}"; do
    name=${v%%|*} args=${v#*|}
    dir=$out/$name
    rm -rf "$dir" && mkdir -p "$dir"
    # shellcheck disable=SC2086 # the options split on purpose
    if ! "$dump" "$dir" $args >"$dir/dump.log" 2>&1; then
        fail "$name-dump" "acpi-dump $args failed" "$dir/dump.log"
        continue
    fi
    disassemble "$name" "$dir"
    execute "$name" "$dir"
done
echo "$passed passed, $failed failed (0 skipped)"
[ "$failed" -eq 0 ]
