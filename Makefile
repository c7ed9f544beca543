# handover — `make` builds, `make test` proves, `make help` lists targets.

BUILD   ?= build
CC      ?= gcc
PREFIX  ?= /usr/local
VERSION := 0.1

WARN     := -Wall -Wextra -Werror
CFLAGS   ?= -O2 -g
CFLAGS   += -std=c11 -D_GNU_SOURCE $(WARN) -DHANDOVER_VERSION='"$(VERSION)"' -MMD -MP -I$(BUILD)/gen
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
LDLIBS   := -lz -lfdt -lcrypto
VMM_LIBS := -lseccomp -ljansson -pthread
CHECK_LIBS := $(shell pkg-config --libs check 2>/dev/null || echo -lcheck)

# The folders (docs/architecture.md), bottom first: guest, firmware-stub,
# loader, vmm; each includes only itself and those below it. The pure
# libraries work on a plain buffer standing for guest memory and never call
# KVM: the unit tests and fuzzers link them alone. Only vmm/kvm/ calls
# ioctl. tests/integration/layering.sh checks all three.
PURE_DIRS := guest firmware-stub loader vmm/devices vmm/x86 vmm/verdict
LIB_SRC := $(foreach d,$(PURE_DIRS),$(wildcard $(d)/*.c))
VMM_SRC := $(wildcard vmm/*.c vmm/kvm/*.c vmm/tools/*.c vmm/host/*.c)
# The tools' parts that need no VM (the report's JSON, the sweep's matrix)
# and the log they write through: the unit tests link them too.
TOOL_LIB_SRC := vmm/tools/report.c vmm/tools/sweep_matrix.c vmm/host/log.c
UNIT_SRC := $(wildcard tests/unit/*.c)

obj = $(patsubst %.c,$(BUILD)/$(1)/%.o,$(2))

LIB_OBJ      := $(call obj,obj,$(LIB_SRC))
VMM_OBJ      := $(call obj,obj,$(VMM_SRC))
LIB_OBJ_SAN  := $(call obj,san,$(LIB_SRC))
VMM_OBJ_SAN  := $(call obj,san,$(VMM_SRC))
UNIT_OBJ     := $(call obj,obj,$(UNIT_SRC))
UNIT_OBJ_SAN := $(call obj,san,$(UNIT_SRC))

.PHONY: all test test-full test-fuzz test-fast test-clang test-unit test-integration test-kernel test-long test-valgrind test-assets test-kvm test-lanes test-emulating \
        install uninstall man docs clean help kernels boot bench bench-sweep bench-realkvm bench-warm bench-mixed
all: $(BUILD)/handover

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/san/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -c $< -o $@

# --exec's /init, compiled in (vmm/host/add_files.c packs it): the text of
# scripts/handover-init.sh as a C string, the one copy handover-initramfs
# packs too.
$(BUILD)/gen/handover_init.h: scripts/handover-init.sh
	@mkdir -p $(dir $@)
	{ echo 'static const char handover_init_sh[] ='; \
	  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/    "/' -e 's/$$/\\n"/' $<; echo ';'; } > $@
# --snapshot's /handover/reseed (scripts/handover-reseed.c): a static,
# freestanding guest program, compiled in as bytes.
$(BUILD)/gen/handover-reseed: scripts/handover-reseed.c
	@mkdir -p $(dir $@)
	$(CC) -O2 $(WARN) -static -nostdlib -ffreestanding -fno-stack-protector -fno-pie -s -Wl,--build-id=none -o $@ $<
$(BUILD)/gen/handover_reseed.h: $(BUILD)/gen/handover-reseed
	{ echo 'static const unsigned char handover_reseed[] = {'; od -An -v -tx1 $< | sed -e 's/ \([0-9a-f][0-9a-f]\)/0x\1,/g'; \
	  echo '};'; } > $@
$(call obj,obj,vmm/host/add_files.c) $(call obj,san,vmm/host/add_files.c): $(BUILD)/gen/handover_init.h \
    $(BUILD)/gen/handover_reseed.h

$(BUILD)/handover: $(VMM_OBJ) $(LIB_OBJ)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS) $(VMM_LIBS)

$(BUILD)/handover-san: $(VMM_OBJ_SAN) $(LIB_OBJ_SAN)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $^ $(LDLIBS) $(VMM_LIBS)

# The unit tests link the pure libraries, the tools' pure parts, the
# --esp folder reader (host/esp_dir.c, which reads a folder the tests make),
# --snapshot's state file checks, its payload and RAM file
# (host/snapshot_file.c, tools/snapshot_payload.c, host/ram_file.c), and
# the option table (options.c: --help against the tables).
UNIT_HOST_SRC := vmm/host/add_files.c vmm/host/files.c vmm/host/esp_dir.c vmm/host/snapshot_file.c vmm/host/ram_file.c vmm/tools/snapshot_payload.c vmm/options.c
$(BUILD)/unit-tests: $(UNIT_OBJ) $(LIB_OBJ) $(call obj,obj,$(TOOL_LIB_SRC) $(UNIT_HOST_SRC))
	$(CC) $(CFLAGS) -o $@ $^ $(CHECK_LIBS) $(LDLIBS) -ljansson

$(BUILD)/unit-tests-san: $(UNIT_OBJ_SAN) $(LIB_OBJ_SAN) $(call obj,san,$(TOOL_LIB_SRC) $(UNIT_HOST_SRC))
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $^ $(CHECK_LIBS) $(LDLIBS) -ljansson

# Both seccomp filters entered for real, a call of each family issued
# under each (tests/sandbox/sandbox_test.c): sandbox.c with the log it
# writes through; no KVM.
SANDBOX_TEST_OBJ := $(call obj,obj,tests/sandbox/sandbox_test.c vmm/host/sandbox.c vmm/host/files.c vmm/host/log.c guest/guest_text.c)
$(BUILD)/sandbox-test: $(SANDBOX_TEST_OBJ)
	$(CC) $(CFLAGS) -o $@ $^ -lseccomp

# vmm_open_kvm and vmm_setup_vcpu against a faked KVM (tests/kvm-fake/vcpu_setup_test.c):
# the VMM's objects but main, with open, ioctl, mmap and pthread_create wrapped at link time.
VCPU_TEST_OBJ := $(call obj,obj,tests/kvm-fake/vcpu_setup_test.c) $(filter-out %/vmm/main.o,$(VMM_OBJ)) $(LIB_OBJ)
$(BUILD)/vcpu-setup-test: $(VCPU_TEST_OBJ)
	$(CC) $(CFLAGS) -Wl,--wrap=open -Wl,--wrap=ioctl -Wl,--wrap=mmap -Wl,--wrap=pthread_create -o $@ $^ $(CHECK_LIBS) $(LDLIBS) $(VMM_LIBS)

# The ACPI tables of one configuration written to files
# (tests/acpi/acpi_dump.c), for ACPICA's iasl and acpiexec
# (tests/acpi/check-tables.sh): the pure libraries alone.
$(BUILD)/acpi-dump: $(call obj,obj,tests/acpi/acpi_dump.c) $(LIB_OBJ)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

# docs/exit-status.md, written from the exit-status and end-reason tables
# (vmm/verdict/exit_status.h, end_reason.h) by make docs; the image tier
# fails when the page is not what they make.
EXIT_STATUS_DOC := $(BUILD)/exit-status-doc
$(EXIT_STATUS_DOC): $(call obj,obj,scripts/exit-status-doc.c vmm/verdict/exit_status.c vmm/verdict/end_reason.c)
	$(CC) $(CFLAGS) -o $@ $^

docs: $(EXIT_STATUS_DOC)
	$(EXIT_STATUS_DOC) > docs/exit-status.md

include tests/payload/payload.mk
include tests/fuzz/fuzz.mk

# The Secure Boot suite's keys and signed images (the TCG2 suite's PE image
# too, through fw_fixture.c's fixture()), made with the standard
# tools (tests/secure-boot-fixtures.sh) over the synthetic payload (here,
# after payload.mk, which names it).
SECURE_BOOT_DIR := $(BUILD)/secure-boot
$(SECURE_BOOT_DIR)/stamp: tests/secure-boot-fixtures.sh tests/fixture-cache.sh tests/tamper-pe.py tests/uefi-guid-cert.py \
                          tests/x509-sha256-sig-list.py \
                          scripts/make-secure-boot-keys.sh $(PAYLOAD_IMAGE)
	tests/secure-boot-fixtures.sh $(SECURE_BOOT_DIR) $(PAYLOAD_IMAGE)
	touch $@
$(call obj,obj,tests/unit/fw_fixture.c tests/unit/test_secure_boot.c) \
$(call obj,san,tests/unit/fw_fixture.c tests/unit/test_secure_boot.c): \
    CFLAGS += -DSECURE_BOOT_DIR='"$(SECURE_BOOT_DIR)"'
$(BUILD)/unit-tests $(BUILD)/unit-tests-san: | $(SECURE_BOOT_DIR)/stamp


# Each tier of make test runs through tests/tier.sh, which keeps its log,
# wall time and counts in $(TIERS) for the timing table (tests/timings.sh).
TIERS := $(BUILD)/tiers
TIER  := tests/tier.sh $(TIERS)

# Unit tests: plain and with ASan/UBSan. CK_FORK=no keeps valgrind and
# ASan looking at one process. A forked test gets five times Check's 4 s:
# the slowest takes 1.8 s, and on a loaded 2-core machine (helpers' builds
# and L1s beside it) a 0.02 s test once ran past 4 s; a hang still fails.
CK_FORKED := env CK_TIMEOUT_MULTIPLIER=5
test-unit: $(BUILD)/unit-tests $(BUILD)/unit-tests-san
	$(TIER) unit -- $(CK_FORKED) $(BUILD)/unit-tests
	$(TIER) unit-san -- env CK_FORK=no $(BUILD)/unit-tests-san

# The synthetic payload's checks that need no guest (usage, hostile images),
# with both the normal and the sanitizer build of the VMM.
test-integration: $(BUILD)/handover $(BUILD)/handover-san $(PAYLOAD_IMAGE) $(BUILD)/handover.1 $(BUILD)/sandbox-test \
                  $(BUILD)/vcpu-setup-test $(EXIT_STATUS_DOC) $(BUILD)/acpi-dump
	$(TIER) layering -- tests/integration/layering.sh $(BUILD)/obj $(PURE_DIRS)
	$(TIER) acpi -- tests/acpi/check-tables.sh $(BUILD)/acpi-dump $(BUILD)/acpi
	$(TIER) sandbox -- $(BUILD)/sandbox-test
	$(TIER) kvm-fake -- $(BUILD)/vcpu-setup-test
	$(TIER) image -- tests/integration/payload.sh $(BUILD)/handover $(PAYLOAD_IMAGE) image
	$(TIER) image-san -- tests/integration/payload.sh $(BUILD)/handover-san $(PAYLOAD_IMAGE) image

# The tree built with clang as well (-Werror, as with gcc) into
# $(BUILD)/clang, and its unit tests: the build is part of the tier.
CLANG_BUILD := $(BUILD)/clang
test-clang:
	$(TIER) clang -- sh -c '$(MAKE) --no-print-directory CC=clang BUILD=$(CLANG_BUILD) \
	    $(CLANG_BUILD)/handover $(CLANG_BUILD)/unit-tests $(CLANG_BUILD)/sandbox-test && $(CK_FORKED) $(CLANG_BUILD)/unit-tests'

test-fuzz: $(FUZZ_BINS)
	$(TIER) fuzz -- $(MAKE) --no-print-directory fuzz-regress fuzz-smoke

test-fast: test-unit test-integration test-clang test-fuzz

# Kernels, initramfs and the L1 KVM host, built or fetched here into
# ~/.cache/handover (a missing one makes its tests SKIP with the reason).
test-assets:
	scripts/prepare-test-assets.sh

# Every boot, on a KVM with hardware semantics: this machine's own when it
# has one, otherwise an L1 per tier with kvm_amd under QEMU TCG
# (scripts/kvm-host), two tiers at a time: the payload's boots (both
# builds), the tiny kernel, the real-KVM tier, the example CI workflow's
# steps, and on an emulating KVM the emulation-fallback tier
# (tests/integration/kvm-tiers.sh).
test-kvm: $(BUILD)/handover $(BUILD)/handover-san $(PAYLOAD_IMAGE) test-assets
	tests/integration/kvm-tiers.sh $(BUILD) $(PAYLOAD_IMAGE)

# On a KVM that emulates guest ring 0, its own tiers: the emulation
# fallbacks and the automatic noxsave (SKIP elsewhere).
test-emulating: $(BUILD)/handover $(PAYLOAD_IMAGE) test-assets
	tests/integration/emulating.sh $(BUILD) $(PAYLOAD_IMAGE)

# The tiny real kernel on this machine's own /dev/kvm.
test-kernel: $(BUILD)/handover
	tests/integration/kernel.sh $(BUILD)/handover tiny

# Every tier runs (-k), then the timing table; the status is 0 only when
# every tier passed. make test keeps its table in tests/timings.md, make
# test-full in tests/timings-full.md. The fast tiers run in a lane of the
# boots' (kvm-tiers.sh's KVM_TIERS_BESIDE), beside the other lane's L1,
# so that both cores work from the start.
test:
	@rm -rf $(TIERS); t0=$$(date +%s); \
	$(MAKE) --no-print-directory -k test-lanes; rc=$$?; \
	TIMINGS_TARGET=$(if $(HANDOVER_TEST_FULL),test-full,test) \
	    tests/timings.sh $(TIERS) $$(($$(date +%s) - t0)) $(if $(HANDOVER_TEST_FULL),tests/timings-full.md,tests/timings.md); \
	exit $$rc

test-lanes: $(BUILD)/handover $(BUILD)/handover-san $(PAYLOAD_IMAGE) test-assets
	KVM_TIERS_BESIDE='$(MAKE) --no-print-directory -k test-fast' tests/integration/kvm-tiers.sh $(BUILD) $(PAYLOAD_IMAGE)

# Everything make test leaves out to keep within its time: every payload
# boot with the sanitizer build too, and the UKI's whole fault sweep.
test-full:
	HANDOVER_TEST_FULL=1 $(MAKE) --no-print-directory test

# Stock Debian kernels on this machine's own /dev/kvm: hours on an emulating KVM.
test-long: $(BUILD)/handover
	tests/integration/kernel.sh $(BUILD)/handover debian

test-valgrind: $(BUILD)/unit-tests
	CK_FORK=no valgrind --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=all $(BUILD)/unit-tests

# The first boot a new user makes: the tiny KUnit kernel, its tests' result.
# No L1 is started for a kernel that could not be built.
boot: $(BUILD)/handover
	kernel=$$(scripts/build-tiny-kernel.sh kunit) && \
	    scripts/kvm-host $(BUILD)/handover --kunit --timeout 1200 "$$kernel"

# The benches in the L1, then handover against QEMU on this host's own KVM
# (bench/run.sh, about 25 minutes of it): bench/results.json and a table.
bench: $(BUILD)/handover $(PAYLOAD_IMAGE) bench-realkvm bench-warm bench-mixed
	bench/run.sh $(BUILD)/handover $(PAYLOAD_IMAGE)

# Warm boots (--snapshot) against cold ones, 5 runs each of --exec true on
# the tiny kernel, in scripts/kvm-host (bench/warm.sh, a few minutes).
bench-warm: $(BUILD)/handover
	scripts/kvm-host bench/warm.sh $(BUILD)/handover

# On a KVM with hardware semantics (scripts/kvm-host): handover (both
# entries, and behind systemd-stub and GRUB) against QEMU q35, microvm and
# q35 + OVMF, to user space and power-off, 5 runs each, the tiny kernel and
# stock Debian 6.1 and 6.12 (bench/realkvm.sh, about an hour in the L1).
# The summary is written from the runs that finished even when the L1 or a
# step failed; the target fails then all the same.
BENCH_RK := $(BUILD)/bench-realkvm
bench-realkvm: $(BUILD)/handover test-assets
	rm -rf $(BENCH_RK) && mkdir -p $(BENCH_RK) && : > $(BENCH_RK)/notes
	status=0; KVM_HOST_SAVE=$(BENCH_RK)/main KVM_HOST_TIMEOUT=7200 scripts/kvm-host bench/realkvm.sh 2> $(BENCH_RK)/l1.err \
	    || { status=$$?; echo "the KVM host or a step failed (status $$status): $$(grep -m1 -E 'ERROR|assert|FAILED' $(BENCH_RK)/l1.err)" >> $(BENCH_RK)/notes; }; \
	python3 bench/summarize_realkvm.py bench/realkvm-results.json "$$(cat $(BENCH_RK)/main/qemu-common-args 2>/dev/null)" \
	    $(BENCH_RK)/notes $(BENCH_RK)/main/runs.jsonl && exit $$status

# EFI mixed mode's firmware phase against the 64-bit one on the same kernel
# (tiny, CONFIG_EFI_MIXED): calls, exits and time from --report, in
# scripts/kvm-host (bench/mixed.sh, a few minutes): bench/mixed-results.json.
BENCH_MIXED := $(BUILD)/bench-mixed
bench-mixed: $(BUILD)/handover
	rm -rf $(BENCH_MIXED)
	KVM_HOST_SAVE=$(BENCH_MIXED) scripts/kvm-host bench/mixed.sh $(BUILD)/handover
	cp $(BENCH_MIXED)/mixed-results.json bench/mixed-results.json

# --fault-sweep against one boot per fault on the tiny kernel (about 10 minutes).
bench-sweep: $(BUILD)/handover
	bench/sweep.sh $(BUILD)/handover

kernels:
	scripts/build-tiny-kernel.sh
	scripts/build-tiny-kernel.sh kunit
	scripts/build-tiny-kernel.sh mixed
	scripts/fetch-debian-kernels.sh

# The man page is --help itself, run through help2man: the two cannot drift.
# help2man makes SYNOPSIS from "Usage:", EXAMPLES from "Examples:", and a
# subsection of each other "Heading:" paragraph: "Exit status:" (the
# table of vmm/verdict/exit_status.h) becomes the EXIT STATUS section here.
$(BUILD)/handover.1: $(BUILD)/handover
	help2man --no-info --name "boot a Linux bzImage through its EFI stub on KVM, with no firmware" \
	    --version-string "$$($(BUILD)/handover --version)" $(BUILD)/handover -o $@.tmp
	sed 's/^\.SS "Exit status:"$$/.SH "EXIT STATUS"/' $@.tmp > $@ && rm $@.tmp

man: $(BUILD)/handover.1

# The binary, the initramfs builder (as handover-initramfs, for --initrd
# users: --exec packs its own) with the /init it packs, the man page, and
# the examples (the scripts executable) with the kernel config fragment
# ci-kunit.sh reads, so that an installed handover works without the checkout.
INSTALL_TO = "$(DESTDIR)$(PREFIX)"
install: $(BUILD)/handover $(BUILD)/handover.1
	install -D -m 0755 $(BUILD)/handover $(INSTALL_TO)/bin/handover
	install -D -m 0644 $(BUILD)/handover.1 $(INSTALL_TO)/share/man/man1/handover.1
	install -D -m 0755 scripts/build-initramfs.sh $(INSTALL_TO)/bin/handover-initramfs
	install -D -m 0644 scripts/handover-init.sh $(INSTALL_TO)/share/handover/handover-init.sh
	install -D -m 0644 tests/kernel/tiny.config $(INSTALL_TO)/share/handover/tiny.config
	install -d $(INSTALL_TO)/share/handover/examples
	install -m 0755 examples/*.sh $(INSTALL_TO)/share/handover/examples/
	install -m 0644 examples/*.yml $(INSTALL_TO)/share/handover/examples/

# What make install put there (with the same DESTDIR and PREFIX).
uninstall:
	rm -f $(INSTALL_TO)/bin/handover $(INSTALL_TO)/bin/handover-initramfs $(INSTALL_TO)/share/man/man1/handover.1
	rm -rf $(INSTALL_TO)/share/handover

clean:
	rm -rf $(BUILD)

help:
	@echo "make                build $(BUILD)/handover"
	@echo "make boot           build, then boot the tiny KUnit kernel and print its results"
	@echo "make test           test-fast and test-kvm, then the timing table (tests/timings.md)"
	@echo "make test-full      make test with every sanitizer boot and the UKI's whole fault sweep (for a release)"
	@echo "make test-fast      unit tests (gcc, ASan, clang), image checks, the ACPI tables under ACPICA's iasl and acpiexec, fuzz regressions: no KVM needed"
	@echo "make test-clang     build with clang into $(BUILD)/clang and run the unit tests (part of test-fast)"
	@echo "make test-kvm       every boot, on a hardware KVM (this host's, or an L1 from scripts/kvm-host)"
	@echo "make test-emulating the emulation-fallback tiers, on a KVM that emulates guest ring 0 (else SKIP)"
	@echo "make test-long      stock Debian 6.1 and 6.12 kernels (many minutes here)"
	@echo "make test-assets    build or fetch every kernel, the initramfs, the GRUBs and the L1 (make test does)"
	@echo "make test-valgrind  unit tests under valgrind"
	@echo "make fuzz           run each libFuzzer harness FUZZ_SECONDS (60) seconds"
	@echo "make fuzz-regress   replay the fuzz corpora and regressions (part of test-fast)"
	@echo "make fuzz-smoke     each harness for FUZZ_SMOKE_SECONDS (5) seconds (part of test-fast)"
	@echo "make bench          bench-realkvm, bench-warm, bench-mixed, then handover against QEMU on this host's own KVM (bench/run.sh)"
	@echo "make bench-realkvm  on a hardware KVM: handover vs QEMU q35, microvm, OVMF to user space (bench/realkvm.sh)"
	@echo "make bench-sweep    --fault-sweep against one boot per fault (bench/sweep.sh)"
	@echo "make bench-warm     --snapshot: warm boots against cold ones, in the L1 (bench/warm.sh)"
	@echo "make bench-mixed    EFI mixed mode's firmware phase against the 64-bit one, in the L1 (bench/mixed.sh)"
	@echo "make kernels        build the tiny kernel and fetch the Debian kernels into ~/.cache/handover"
	@echo "make man            build/handover.1, the man page (help2man from --help)"
	@echo "make docs           write docs/exit-status.md from the exit-status and end-reason tables"
	@echo "make install        install handover, handover-initramfs, the man page and the examples under $(PREFIX)"
	@echo "make uninstall      remove what make install installed under $(PREFIX)"
	@echo "make clean          remove $(BUILD)/"
	@echo "make help           this list"

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
